//! `measure --serve SOCKET`: one measurer for every process and rank of a job on a node. The run is
//! `measure`'s own (watching the node, no command); the socket answers windows of it.
//!
//! One JSON line each way (docs/python.md has the protocol):
//!
//! - `{"op":"hello"}`: the connecting process (its peer credentials) is the job's; its CPU time counts from now.
//! - `{"op":"read"}`: the energy so far, read now (`at`: GPUs by index, CPU and DRAM, the job's CPU time).
//! - `{"op":"window","from":AT}`: reads now and answers the window since `AT`, priced.
//! - `{"op":"end","record":MODEL,"run_id":ID,"part":BOOL}`: ends the run (recorded, when a model is given;
//!   one node's part of a job's, with `part`) and answers its report once it is made.
//!
//! A window is the difference of two readings of the counters: any number may nest or overlap, each costs a
//! round trip, and every process sees the same node, so the job's total counts each device once.

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::Args;
use crate::model::{Cpu, Domain, Request};
use crate::num::tidy;
use crate::pricing;
use crate::settings::Reading;
use crate::sources::child::{process_cpu, ProcessCpu};
use crate::sources::cpu;
use crate::sources::gpu::sampler::Sampler;
use crate::sources::socket::{refusal, Bound, Handled, Handler, Peer};

/// The socket, and what its clients asked of the run.
pub struct Serve {
    /// The socket.
    pub bound: Bound,
    /// With no client connected for this long (or none yet, from the start), the run ends.
    pub linger: Duration,
    end: Mutex<Option<Ending>>,
    clients: Mutex<Clients>,
    whole_node: OnceLock<bool>,
    /// Whether each domain's provider prices CPU-hours (carbon, cost): asked once, not at every window.
    accepts_cpu: OnceLock<[bool; 2]>,
    /// The reading taken when the first process said hello: where the job's total counts from.
    origin: OnceLock<At>,
}

/// The end a client asked for.
struct Ending {
    record: Option<Asked>,
    conn: Option<UnixStream>,
}

/// What a client asked the run to be recorded as: model, run id, and whether it is one node's part.
pub type Asked = (String, Option<String>, bool);

impl Client {
    /// Its user and system seconds since its hello.
    fn used(&self) -> (f64, f64) {
        ((self.last.user_s - self.first.user_s).max(0.0), (self.last.system_s - self.first.system_s).max(0.0))
    }
}

/// The job's processes by pid, and the CPU time of those whose pid a later process took (never lost).
#[derive(Default)]
struct Clients {
    by_pid: BTreeMap<u32, Client>,
    /// (processes, user s, system s) of the processes replaced.
    retired: (usize, f64, f64),
}

impl Clients {
    /// Reads `pid`'s CPU time now, when it is still the process that said hello.
    fn refresh(&mut self, pid: u32) {
        if let Some(c) = self.by_pid.get_mut(&pid).filter(|c| !c.last.ended) {
            if let Some(now) = process_cpu(pid).filter(|p| p.started == c.first.started) {
                c.last = now;
            }
        }
    }

    /// Every process's CPU time so far: (processes, user s, system s).
    fn seconds(&self) -> (usize, f64, f64) {
        self.by_pid.values().map(Client::used).fold(self.retired, |(n, u, s), (du, ds)| (n + 1, u + du, s + ds))
    }
}

/// A process of the job: its CPU time when it said hello, and at its last reading.
#[derive(Clone, Copy)]
struct Client {
    first: ProcessCpu,
    last: ProcessCpu,
}

/// What a window reads from: the run's samplers, and how to price.
pub struct Live<'a> {
    /// The GPUs' sampler, when there are GPUs.
    pub gpu: Option<&'a Sampler>,
    /// The CPU counters' sampler, when there are counters.
    pub cpu: Option<&'a cpu::Sampler>,
    /// The run's settings.
    pub settings: &'a Reading<'a>,
    /// The providers and region asked for.
    pub args: &'a Args,
    /// Time zero.
    pub start: Instant,
    /// The inference server `--tokens-from` reads, at every window's edge too.
    pub tokens: Option<&'a crate::sources::tokens::Scrape>,
}

/// One request.
#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Ask {
    Hello {
        pid: Option<u32>,
    },
    Read,
    Window {
        from: At,
    },
    Total,
    End {
        record: Option<String>,
        run_id: Option<String>,
        #[serde(default)]
        part: bool,
    },
}

/// The energy so far, read at `t` seconds after the start: the edge of a window.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct At {
    t: f64,
    /// Joules by GPU index (a string: JSON's keys are).
    gpu_j: BTreeMap<String, f64>,
    /// The node's CPU packages, J; null without counters.
    cpu_j: Option<f64>,
    /// The node's DRAM, J; null without a counter.
    dram_j: Option<f64>,
    /// The job's processes' CPU seconds.
    cpu_s: f64,
    /// The node's busy CPU seconds; null where /proc/stat cannot be read.
    busy_s: Option<f64>,
    /// The GPUs' model, when they are all one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gpu_model: Option<String>,
    /// The tokens and requests the inference server (`--tokens-from`) served since the run began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tokens: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    requests: Option<f64>,
}

/// A window: what the job used between two readings.
#[derive(Serialize)]
struct Window {
    duration_s: f64,
    /// Each GPU's energy, J, by index.
    gpu_j: BTreeMap<String, f64>,
    /// All the GPUs', J.
    gpu_total_j: f64,
    /// The node's CPU packages and DRAM, J (null without counters).
    node_cpu_j: Option<f64>,
    node_dram_j: Option<f64>,
    /// The job's processes' CPU seconds.
    cpu_s: f64,
    /// The job's part of the node's CPU and DRAM energy (whole when it owns the node, else by its CPU time).
    cpu_share: Option<f64>,
    /// The job's energy: the GPUs' and its part of the CPU and DRAM's, kWh.
    energy_kwh: f64,
    /// The tokens and requests the inference server served in the window (`--tokens-from`), and the job's
    /// energy per token.
    tokens: Option<f64>,
    requests: Option<f64>,
    j_per_token: Option<f64>,
    carbon: Option<Priced>,
    cost: Option<Priced>,
    carbon_error: Option<String>,
    cost_error: Option<String>,
}

/// A window priced by a provider.
#[derive(Serialize)]
struct Priced {
    provider: String,
    outputs: crate::model::IndexMap<String, f64>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn reply(v: &impl Serialize) -> Handled {
    Handled::Reply(serde_json::to_string(v).unwrap_or_else(|e| refusal(&format!("the answer could not be written: {e}"))))
}

impl Serve {
    /// Serves `bound`; the run ends after `linger` with no client.
    pub fn new(bound: Bound, linger: Duration) -> Serve {
        Serve {
            bound,
            linger,
            end: Mutex::new(None),
            clients: Mutex::new(Clients::default()),
            whole_node: OnceLock::new(),
            accepts_cpu: OnceLock::new(),
            origin: OnceLock::new(),
        }
    }

    /// Whether the run is over: a client asked, or none has been connected for the linger.
    pub fn over(&self) -> bool {
        lock(&self.end).is_some() || self.bound.idle_for().is_some_and(|d| d >= self.linger)
    }

    /// The model, run id and part a client asked the run to be recorded as.
    pub fn record_asked(&self) -> Option<Asked> {
        lock(&self.end).as_ref().and_then(|e| e.record.clone())
    }

    /// Answers the client that ended the run with its report (`-o json`'s), on one line.
    pub fn answer_end(&self, report: &str) {
        if let Some(mut conn) = lock(&self.end).as_mut().and_then(|e| e.conn.take()) {
            let line = match serde_json::from_str::<serde_json::Value>(report) {
                Ok(v) => serde_json::json!({"ok": true, "report": v}).to_string(),
                Err(e) => refusal(&format!("the report could not be read back: {e}")),
            };
            let _ = conn.set_write_timeout(Some(Duration::from_secs(10)));
            let _ = writeln!(conn, "{line}");
        }
    }

    /// The job's processes' CPU time over the run: None when no process said hello.
    pub fn cpu(&self) -> Option<Cpu> {
        let (n, user, system) = self.read_clients();
        if n == 0 {
            return None;
        }
        Some(Cpu {
            hours: tidy((user + system) / 3600.0),
            user_s: Some(tidy(user)),
            system_s: Some(tidy(system)),
            source: format!(
                "user + system time of the {n} process(es) that used the measurer, each from its hello to its end or the run's"
            ),
        })
    }

    /// Every client's CPU time read now (a process gone, or its pid another's, keeps its last reading): (processes,
    /// user s, system s).
    fn read_clients(&self) -> (usize, f64, f64) {
        let mut clients = lock(&self.clients);
        let pids: Vec<u32> = clients.by_pid.keys().copied().collect();
        for pid in pids {
            clients.refresh(pid);
        }
        clients.seconds()
    }

    /// Answers one line.
    pub fn handle(&self, live: &Live<'_>, line: &str, peer: Peer) -> Handled {
        let ask: Ask = match serde_json::from_str(line) {
            Ok(a) => a,
            Err(e) => return Handled::Reply(refusal(&format!("not a request ({e}): one JSON object a line, with an op"))),
        };
        match ask {
            Ask::Hello { pid: Some(pid) } if pid != peer.pid => Handled::Reply(refusal(&format!(
                "hello from process {}, which says it is {pid}: a process says hello for itself",
                peer.pid
            ))),
            Ask::Hello { .. } => match process_cpu(peer.pid) {
                Some(first) => {
                    // A pid seen before is a new process when it started later (a restarted rank): counted anew, the
                    // earlier one's time kept.
                    let mut clients = lock(&self.clients);
                    match clients.by_pid.get(&peer.pid).copied() {
                        // The same process saying hello again keeps its first reading.
                        Some(c) if c.first.started == first.started => {}
                        Some(old) => {
                            let (n, u, s) = clients.retired;
                            let (du, ds) = old.used();
                            clients.retired = (n + 1, u + du, s + ds);
                            clients.by_pid.insert(peer.pid, Client { first, last: first });
                        }
                        None => drop(clients.by_pid.insert(peer.pid, Client { first, last: first })),
                    }
                    drop(clients);
                    if self.origin.get().is_none() {
                        match self.at(live) {
                            Ok(at) => drop(self.origin.set(at)),
                            Err(why) => return Handled::Reply(refusal(&why)),
                        }
                    }
                    reply(&serde_json::json!({"ok": true, "pid": std::process::id()}))
                }
                None => Handled::Reply(refusal(&format!("process {} cannot be read (/proc/{}/stat)", peer.pid, peer.pid))),
            },
            Ask::Read => match self.at(live) {
                Ok(at) => reply(&serde_json::json!({"ok": true, "at": at})),
                Err(why) => Handled::Reply(refusal(&why)),
            },
            Ask::Total => match self.origin.get() {
                None => Handled::Reply(refusal("no process has said hello: there is no total yet")),
                Some(origin) => self.answer_window(live, origin),
            },
            Ask::Window { from } => self.answer_window(live, &from),
            Ask::End { record, run_id, part } => self.end((record, run_id, part), peer.id),
        }
    }

    /// Reads now, and answers the window since `from`.
    fn answer_window(&self, live: &Live<'_>, from: &At) -> Handled {
        match self.at(live) {
            Ok(to) => match self.window(live, from, &to) {
                Ok(w) => reply(&serde_json::json!({"ok": true, "at": to, "window": w})),
                Err(why) => Handled::Reply(refusal(&why)),
            },
            Err(why) => Handled::Reply(refusal(&why)),
        }
    }

    fn end(&self, (record, run_id, part): (Option<String>, Option<String>, bool), id: u64) -> Handled {
        if run_id.is_some() && record.is_none() {
            return Handled::Reply(refusal("a run id needs a model to record under"));
        }
        if part && run_id.is_none() {
            return Handled::Reply(refusal("a part needs the run id its parts share"));
        }
        if let Some(model) = &record {
            let checked = crate::store::check_record_name("model", model)
                .and_then(|()| run_id.as_deref().map_or(Ok(()), |r| crate::store::check_record_name("run id", r)));
            if let Err(e) = checked {
                return Handled::Reply(refusal(&e.to_string()));
            }
        }
        let mut end = lock(&self.end);
        if end.is_some() {
            return Handled::Reply(refusal("the run is already ending: another process asked"));
        }
        // A connection `stop` already ended cannot be answered: the run is ending anyway.
        let Some(conn) = self.bound.take(id) else { return Handled::Reply(refusal("the run is already ending")) };
        *end = Some(Ending { record: record.map(|m| (m, run_id, part)), conn: Some(conn) });
        Handled::Kept
    }

    /// The energy so far, read now.
    fn at(&self, live: &Live<'_>) -> Result<At, String> {
        let deadline = live.settings.gpu.timeout.value;
        let t = live.start.elapsed().as_secs_f64();
        let gpu = live.gpu.map(|g| g.read_now(deadline)).transpose()?;
        let cpu = live.cpu.map(|c| c.read_now(deadline)).transpose()?;
        let (_, user, system) = self.read_clients();
        let cpu_s = user + system;
        // A server that cannot be read leaves the window without a count: never a guess.
        let (tokens, requests) = live.tokens.and_then(|s| s.so_far().ok()).map_or((None, None), |(t, r)| (Some(t), r));
        Ok(At {
            t,
            gpu_j: gpu.as_ref().map(|g| g.joules.iter().map(|(i, j)| (i.to_string(), *j)).collect()).unwrap_or_default(),
            cpu_j: cpu.and_then(|c| c.package_j),
            dram_j: cpu.and_then(|c| c.dram_j),
            cpu_s,
            busy_s: cpu::share::node_busy_s(&live.settings.cpu.root.value),
            gpu_model: gpu.and_then(|g| g.model),
            tokens,
            requests,
        })
    }

    fn window(&self, live: &Live<'_>, from: &At, to: &At) -> Result<Window, String> {
        let bad = |x: f64| !x.is_finite() || x < 0.0;
        let after = |a: Option<f64>, b: Option<f64>| a.is_some_and(|a| bad(a) || b.is_none_or(|b| a > b));
        if bad(from.t)
            || from.t > to.t
            || bad(from.cpu_s)
            || from.gpu_j.values().any(|j| bad(*j))
            || after(from.cpu_j, to.cpu_j)
            || after(from.dram_j, to.dram_j)
            || after(from.busy_s, to.busy_s)
        {
            return Err("'from' is not a reading this measurer gave (a time or figure out of range)".into());
        }
        let duration_s = to.t - from.t;
        let gpu_j: BTreeMap<String, f64> =
            to.gpu_j.iter().map(|(i, j)| (i.clone(), tidy((j - from.gpu_j.get(i).copied().unwrap_or(0.0)).max(0.0)))).collect();
        let gpu_total_j = tidy(gpu_j.values().fold(0.0, |a, b| a + b));
        let less = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| tidy((a - b).max(0.0)));
        let (node_cpu_j, node_dram_j) = (less(to.cpu_j, from.cpu_j), less(to.dram_j, from.dram_j));
        let cpu_s = tidy((to.cpu_s - from.cpu_s).max(0.0));
        // The run's own rule for the job's part of the node's CPU energy (`cpu_energy_of`).
        let whole = *self.whole_node.get_or_init(|| cpu::share::ownership(&live.settings.cpu.root.value, live.settings.cpu.ranks).whole);
        let busy = less(to.busy_s, from.busy_s);
        let cpu_share = node_cpu_j.and_then(|_| if whole { Some(1.0) } else { busy.filter(|b| *b > 0.0).map(|b| (cpu_s / b).min(1.0)) });
        let job_cpu_j = cpu_share.map(|s| (node_cpu_j.unwrap_or(0.0) + node_dram_j.unwrap_or(0.0)) * s);
        let gpu_hours = gpu_j.len() as f64 * duration_s / 3600.0;
        let accepts = *self.accepts_cpu.get_or_init(|| {
            [Domain::Carbon, Domain::Cost]
                .map(|d| pricing::resolve(live.settings, d, provider(live.args, d)).is_ok_and(|r| r.provider.meta().accepts("cpu_hours")))
        });
        let request = |domain| {
            let accepts_cpu = accepts[usize::from(domain == Domain::Cost)];
            let cpu_hours = if accepts_cpu { cpu_s / 3600.0 } else { 0.0 };
            Request {
                gpu_hours: Some(gpu_hours),
                cpu_hours: Some(cpu_hours),
                gpu_kwh: (!gpu_j.is_empty()).then_some(gpu_total_j / crate::model::energy::J_PER_KWH),
                cpu_kwh: job_cpu_j.filter(|_| cpu_hours > 0.0).map(|j| j / crate::model::energy::J_PER_KWH),
                provider: provider(live.args, domain).map(str::to_string),
                region: live.args.region.clone().filter(|_| domain == Domain::Carbon),
                overrides: Vec::new(),
                history: None,
                gpu_name: to.gpu_model.clone(),
                gpu_model: None,
                cpu_model: None,
                cpu_name: None,
            }
        };
        let priced = |domain| -> (Option<Priced>, Option<String>) {
            if gpu_hours <= 0.0 && cpu_s <= 0.0 {
                return (None, Some("nothing was measured in the window: no GPU and no CPU time".into()));
            }
            match pricing::estimate(live.settings, domain, &request(domain)) {
                Ok(e) => (Some(Priced { provider: e.provider.name, outputs: e.outputs }), None),
                Err(e) => (None, Some(e.to_string())),
            }
        };
        let ((carbon, carbon_error), (cost, cost_error)) = (priced(Domain::Carbon), priced(Domain::Cost));
        let energy_kwh = tidy((gpu_total_j + job_cpu_j.unwrap_or(0.0)) / crate::model::energy::J_PER_KWH);
        let tokens = less(to.tokens, from.tokens);
        Ok(Window {
            duration_s: tidy(duration_s),
            gpu_total_j,
            gpu_j,
            node_cpu_j,
            node_dram_j,
            cpu_s,
            cpu_share: cpu_share.map(tidy),
            energy_kwh,
            j_per_token: tokens.filter(|t| *t > 0.0).map(|t| tidy(energy_kwh * crate::model::energy::J_PER_KWH / t)),
            tokens,
            requests: less(to.requests, from.requests),
            carbon,
            cost,
            carbon_error,
            cost_error,
        })
    }
}

/// The socket's handler: a served run and what its windows read.
struct Answer<'a> {
    serve: &'a Serve,
    live: &'a Live<'a>,
}

impl Handler for Answer<'_> {
    fn line(&self, line: &str, peer: Peer) -> Handled {
        self.serve.handle(self.live, line, peer)
    }

    /// A process that leaves has its CPU time read then, while its last reading is still to be had.
    fn closed(&self, peer: Peer) {
        lock(&self.serve.clients).refresh(peer.pid);
    }
}

/// Runs `wait` while the socket (when there is one) answers windows of the run, then stops answering.
pub fn serving<R>(serve: Option<&Serve>, live: &Live<'_>, wait: impl FnOnce() -> R) -> R {
    let Some(s) = serve else { return wait() };
    let answer = Answer { serve: s, live };
    std::thread::scope(|scope| {
        s.bound.serve(scope, &answer);
        let waited = wait();
        s.bound.stop();
        waited
    })
}

/// The provider asked for in `domain`.
fn provider(args: &Args, domain: Domain) -> Option<&str> {
    match domain {
        Domain::Carbon => args.carbon_provider.as_deref(),
        Domain::Cost => args.cost_provider.as_deref(),
    }
}
