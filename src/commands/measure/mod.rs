//! `exa finops measure`: run a command (or watch the node), measure the
//! GPUs' energy, and price it through the carbon and cost providers.
//!
//! The command's stdin, stdout and stderr are its own; exa prints nothing
//! while it runs except warnings on stderr. exa's exit status is the
//! command's. SIGINT, SIGTERM and SIGHUP reach the command, and what was
//! measured up to then is still reported, marked interrupted.

pub mod serve;

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::error::Error;
use crate::model::energy::{Joules, Kwh};
use crate::model::history::Weight;
use crate::model::measurement::NodePolicy;
use crate::model::{
    Cpu, CpuEnergy, CpuZone, Domain, Electricity, Estimate, Gpu, HistoryAsk, Measured, Measurement, NewRecord, NodeEnergy, NodePart,
    Request, Stored,
};
use crate::num::tidy;
use crate::pricing;
use crate::settings::{Reading, Settings};
use crate::sinks::catalog::RunEnergy;
use crate::sources::child::{own_cpu_s, Ended, ProcessCpu, Spawned};
use crate::sources::gpu::energy::{summarize, DeviceSummary, Sample};
use crate::sources::gpu::sampler::{Hooks, JobOf, Options, Outcome, Sampler, Sampling};
use crate::sources::gpu::scope::{Scope, Scoped};
use crate::sources::gpu::{GpuSource, SampleError};
use crate::sources::signals;
use crate::sources::{cpu, node};
use crate::store::{self, check_record_name, hostname};
use crate::time::{iso8601, now_unix};

/// What `measure` is asked to do; the interval and price are in `Settings`.
pub struct Args {
    /// The command and its arguments, passed on as given (not necessarily UTF-8).
    pub command: Vec<OsString>,
    /// Without a command: how long to watch the node.
    pub duration: Option<Duration>,
    /// A file for every sample, as JSON lines.
    pub trace: Option<PathBuf>,
    /// The carbon provider asked for.
    pub carbon_provider: Option<String>,
    /// The cost provider asked for.
    pub cost_provider: Option<String>,
    /// The grid region asked for (`--region`).
    pub region: Option<String>,
    /// Show a live line on stderr (only without a command, on a terminal).
    pub live: bool,
    /// Store the run's carbon and cost as records of this model, with this run id.
    pub record: Option<(String, Option<String>)>,
    /// The records are one part of the run's work.
    pub part: bool,
    /// Who ran it and where (a scheduler's user, account and partition), kept on the records.
    pub labels: crate::model::Labels,
    /// The work done (`--tokens`, `--requests`, `--unit`), kept on the records.
    pub work: crate::model::Work,
    /// An inference server's metrics URL, read at the start and end for the tokens and requests served.
    pub tokens_from: Option<String>,
    /// Only this model's series of the server's counters.
    pub tokens_model: Option<String>,
    /// Create an MLflow run in this experiment and record under its id.
    pub mlflow_experiment: Option<String>,
    /// Push the run's totals to this Pushgateway at the end.
    pub push_gateway: Option<String>,
    /// Without a command: whose CPU time the run holds (`--pid`, `--cpus`).
    pub job_cpu: Option<JobCpu>,
    /// Where a shared GPU's idle energy goes (`--idle-share`).
    pub idle_share: crate::model::gpu::IdlePolicy,
    /// How the node's remainder becomes the job's (`--node-policy`).
    pub node_policy: crate::model::measurement::NodePolicy,
    /// The Slurm job whose processes are the job's (`--slurm-job`: its control group), for a shared GPU's split.
    pub slurm_job: Option<String>,
    /// Answer windows of the run on a socket (`--serve`): every process of the job on this node asks it.
    pub serve: Option<Arc<serve::Serve>>,
}

/// Whose CPU time a measurement without a command counts: without one, the GPUs' energy would be
/// recorded with no CPU-hours, and a measurement supersedes an estimate that has them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JobCpu {
    /// A running process's user and system time over the run, its waited-for children's included (`--pid`).
    Pid(u32),
    /// The CPUs the job holds on this node for the run's length (`--cpus`): core-hours, as a scheduler bills them.
    Held(f64),
}

impl JobCpu {
    /// The process watched (`--pid`), whose descendants are the job's.
    fn pid(self) -> Option<u32> {
        match self {
            JobCpu::Pid(pid) => Some(pid),
            JobCpu::Held(_) => None,
        }
    }
}

/// Where the records' run id came from, as `Stored::run_id_from` says it.
fn run_id_from(args: &Args, given: bool) -> &'static str {
    match (given, &args.mlflow_experiment) {
        (true, _) => "given",
        (false, Some(_)) => "mlflow",
        (false, None) => "made",
    }
}

/// An energy without float noise: 15 significant digits, as every figure exa prints.
fn tidied(k: Kwh) -> Kwh {
    Kwh(tidy(k.0))
}

/// Measures the run: every step below, in order.
pub fn run(
    settings: &Reading<'_>,
    mut args: Args,
    source: Result<Box<dyn GpuSource>, SampleError>,
    hooks: Box<dyn Hooks>,
) -> Result<Measurement, Error> {
    let scrape = check(settings, &args)?;
    let (source, scope) = scoped(settings, source)?;
    let trace = open_trace(args.trace.as_ref())?;
    // The MLflow run is made once everything else is known good, and before the command starts.
    let cpu_source = super::cpu_source(settings)?;
    let node_source = super::node_source(settings)?;
    let (mut given_run_id, mlflow_run, mut run_id_from) = run_id(settings, &mut args)?;
    signals::catch();
    let (started_unix, start) =
        (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64()), Instant::now());
    let (cpu_sampler, cpu_reason) = start_cpu(settings, cpu_source);
    let node_sampler = node_source.map(|s| node::Sampler::start(s, (node_every(settings), true), None));
    let held_from = args.job_cpu.map(|j| (j, started(j)));
    // --pid: the process read as the run goes, its last reading kept; the run ends when it does (or is another's).
    let watched = std::cell::Cell::new(held_from.and_then(|h| h.1));
    let job = spawn(&args.command)?;
    let job_of = job_of(settings, &args);
    let (sampler, no_gpu, hooks) = start_gpus(settings, source, (trace, args.live && job.is_none()), (hooks, job_of.clone()), start);
    // Watching the node with nothing to read ends at once, never after a silent --duration; a process or
    // CPUs held (--pid, --cpus), or the node's own meter, are something to watch, to its --duration or an interrupt.
    let nothing_to_watch = || match args.job_cpu {
        _ if args.serve.is_some() => args.serve.as_ref().is_some_and(|s| s.over()),
        Some(JobCpu::Pid(pid)) => !still(pid, &watched),
        Some(JobCpu::Held(_)) => false,
        None => sampler.as_ref().is_none_or(Sampler::ended) && node_sampler.is_err(),
    };
    // With no GPU to read, a terminal still sees the run go: elapsed time and CPU-hours so far.
    let live_line = hooks.filter(|_| args.live && job.is_some());
    let tick = |elapsed: f64, cpu_s: f64| {
        if let Some(h) = &live_line {
            h.live(&format!("{elapsed:>7.1} s  {:.6} CPU-hours so far (no GPU to read)", cpu_s / 3600.0));
        }
    };
    let tick = live_line.as_ref().map(|_| &tick as &dyn Fn(f64, f64));
    let live = serve::Live { gpu: sampler.as_ref(), cpu: cpu_sampler.as_ref(), settings, args: &args, start, tokens: scrape.as_ref() };
    let (ended, interrupted) =
        serve::serving(args.serve.as_deref(), &live, || wait(job.as_ref(), args.duration, start, &nothing_to_watch, tick));
    if let Some(asked) = args.serve.as_ref().and_then(|s| s.record_asked()) {
        (given_run_id, run_id_from) = recorded_as(&mut args, asked);
    }
    live_line.iter().for_each(|h| h.live(""));
    let (duration_s, (outcome, scope), node_read) =
        (start.elapsed().as_secs_f64(), finished(sampler, &scope), node_sampler.map(node::Sampler::finish));
    let split = (args.idle_share, job.is_some() || job_of.named(), scope.allocated.as_slice());
    let (mut gpu, profile) = gpu_of(outcome, no_gpu, (started_unix, duration_s), split);
    gpu.scope = scope;
    let held = held_from.map(|(j, first)| (j, first.zip(watched.get())));
    let (cpu, job_time) = job_cpu(settings, (ended.as_ref(), args.serve.as_deref().filter(|_| args.job_cpu.is_none())), held, duration_s);
    let cpu_energy = cpu_energy_of(settings, cpu_sampler.and_then(cpu::Sampler::finish), cpu_reason, job_time);
    let work = Readings { gpu: &gpu, cpu: cpu.as_ref(), cpu_energy: &cpu_energy, cpu_name: None };
    let [(carbon, carbon_error), (cost, cost_error)] = price_both(settings, &args, &work, (started_unix, duration_s), &profile);
    let electricity = electricity(settings, &gpu, &cpu_energy);
    let (node, measured) = node_and_measured(settings, &args, node_read, (&gpu, &profile, &cpu_energy), duration_s);
    let (work_done, measured_work) = work_done(settings, scrape, &args.work, gpu.energy_kwh.map(|k| k.0));
    let (recorded, record_error) = args.record.as_ref().map_or((None, None), |(model, run_id)| {
        let records = Records { model, run_id: run_id.as_ref(), run_id_from, part: args.part, labels: &args.labels, work: &work_done };
        record(settings, &records, [&carbon, &cost], carbon_error.as_deref(), measured)
    });
    let run_id = given_run_id.as_deref().or(mlflow_run.as_ref().map(|(_, id)| id.as_str()));
    let pushed = push(settings, &args, RunEnergy::of(gpu.energy_kwh, cpu_energy.cpu_kwh, cpu_energy.dram_kwh), run_id);
    finish_mlflow(settings, mlflow_run.as_ref(), ended.as_ref());
    Ok(Measurement {
        command: (!args.command.is_empty()).then(|| args.command.iter().map(|a| a.to_string_lossy().into_owned()).collect()),
        exit_code: ended.map(|e| e.code),
        killed_by: ended.and_then(|e| e.signal).map(signals::name),
        interrupted,
        started_at: iso8601(started_unix as i64),
        duration_s: tidy(duration_s),
        interval_s: settings.gpu.interval.clone(),
        gpu,
        cpu,
        cpu_energy,
        node,
        carbon,
        carbon_error,
        cost,
        cost_error,
        electricity,
        recorded,
        record_error,
        pushed,
        work: measured_work,
        exa_cpu_s: tidy(own_cpu_s()),
    })
}

/// Pushes the run's totals to `--push-gateway`'s, grouped by its model (job) and run id.
fn push(settings: &Reading<'_>, args: &Args, energy: RunEnergy, run_id: Option<&str>) -> Vec<crate::model::measurement::Pushed> {
    let job = args.record.as_ref().map_or("exa_measure", |(m, _)| m.as_str());
    crate::sinks::push::run(settings, args.push_gateway.as_deref(), energy, job, run_id)
}

/// How often the node's meter is read: the GPUs' interval, but never more than once a second (a BMC's reading costs
/// a round trip).
fn node_every(settings: &Reading<'_>) -> Duration {
    Duration::from_secs_f64(settings.gpu.interval.value.max(1.0))
}

/// The sampler's outcome and the GPUs' scope, read once the sampler is done (before the node's meter is: a slow BMC's
/// last reading must not move the GPUs' past the run's end): the scope is resolved at the first
/// reading, which a short run may take only as the sampler finishes.
fn finished(sampler: Option<Sampler>, scope: &Mutex<Scope>) -> (Option<Outcome>, Scope) {
    let outcome = sampler.map(Sampler::finish);
    (outcome, scope.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone())
}

/// Whose processes are the job's besides exa's: `--pid`'s and its descendants, or those in `--slurm-job`'s control
/// group (read under the host root, as the CPU counters are).
fn job_of(settings: &Reading<'_>, args: &Args) -> JobOf {
    use crate::sources::owner::{Group, GroupKind};
    let group = args.slurm_job.as_ref().map(|id| (settings.cpu.root.value.clone(), Group { kind: GroupKind::SlurmJob, id: id.clone() }));
    JobOf { root: args.job_cpu.and_then(JobCpu::pid), group }
}

/// Starts reading the GPUs now, or says why there are none to read (the hooks then stay with the caller).
#[allow(clippy::type_complexity)]
fn start_gpus(
    settings: &Reading<'_>,
    source: Result<Box<dyn GpuSource>, SampleError>,
    (trace, live): (Option<Box<dyn Write + Send>>, bool),
    (hooks, job): (Box<dyn Hooks>, JobOf),
    start: Instant,
) -> (Option<Sampler>, Option<String>, Option<Box<dyn Hooks>>) {
    let opts =
        Options { interval: Duration::from_secs_f64(settings.gpu.interval.value), trace, live, deadline: settings.gpu.timeout.value, job };
    match source {
        Ok(s) => (Some(Sampler::start(s, opts, hooks, start)), None, None),
        Err(e) => {
            hooks.info(&format!("no GPU found ({e}): only CPU time is measured"));
            // The trace says so at once, as a failed reading: a caller waiting for its first line (the Slurm
            // prolog, the Python API) goes on, rather than waiting out its startup for a reading never taken.
            if let Some(mut w) = opts.trace {
                let line = serde_json::json!({"t": 0.0, "ok": false, "error": format!("no GPU found: {e}")});
                if writeln!(w, "{line}").and_then(|()| w.flush()).is_err() {
                    hooks.warn("the trace could not be written: the run is measured on without it");
                }
            }
            (None, Some(e.to_string()), Some(hooks))
        }
    }
}

/// The source, reading only the job's GPUs, and the scope it resolves at its first reading.
/// A source named by flag, environment or config that cannot be used refuses the run before it starts.
#[allow(clippy::type_complexity)]
fn scoped(
    settings: &Reading<'_>,
    source: Result<Box<dyn GpuSource>, SampleError>,
) -> Result<(Result<Box<dyn GpuSource>, SampleError>, Arc<Mutex<Scope>>), Error> {
    if let Err(SampleError::Failed(why)) = &source {
        return Err(Error::Failed(format!("cannot read the GPUs: {why}")));
    }
    let s = &settings.gpu.scope;
    let scope = Arc::new(Mutex::new(s.clone()));
    let source = if s.none() {
        Err(SampleError::NoDevices(format!("{} says the job holds no GPU", s.from)))
    } else {
        source.map(|inner| Box::new(Scoped::new(inner, Arc::clone(&scope), settings.gpu.pci_order)) as Box<dyn GpuSource>)
    };
    Ok((source, scope))
}

/// Refuses a bad Pushgateway URL, grid region, model name, run id or database before anything runs.
/// Refuses what cannot run before anything does; the inference server's counters at the start, when
/// `--tokens-from` names one (one that cannot be read refuses the run).
fn check(settings: &Settings, args: &Args) -> Result<Option<crate::sources::tokens::Scrape>, Error> {
    if let Some(r) = &args.region {
        crate::pricing::region::resolve(r).map_err(|e| Error::Usage(format!("--region: {e}")))?;
    } else if let Some(r) = &settings.grid_region {
        crate::pricing::region::resolve(&r.value).map_err(|e| Error::Config(format!("the grid region (from {}): {e}", r.source)))?;
    }
    if let Some(url) = &args.push_gateway {
        crate::settings::http_url(url).map_err(|e| Error::Usage(format!("--push-gateway: {e}")))?;
    }
    if let Some((model, run_id)) = &args.record {
        check_names(settings, args, model, run_id.as_deref())?;
    }
    if let Some(JobCpu::Pid(pid)) = args.job_cpu {
        if crate::sources::child::process_cpu_s(pid).is_none() {
            return Err(Error::Usage(format!("--pid {pid}: no such process to read (/proc/{pid}/stat)")));
        }
    }
    args.tokens_from.as_deref().map(|u| super::tokens_from(u, args.tokens_model.as_deref())).transpose()
}

/// The model of the measured GPUs, when they are all one.
fn one_model(devices: &[crate::model::DeviceSummary]) -> Option<String> {
    let first = devices.first()?;
    devices.iter().all(|d| d.name == first.name).then(|| first.name.clone())
}

/// The run's work (`sources::tokens::counted`); a counter reset, or a server unread at the end, is a warning too.
fn work_done(
    settings: &Settings,
    scrape: Option<crate::sources::tokens::Scrape>,
    given: &crate::model::Work,
    gpu_kwh: Option<f64>,
) -> (crate::model::Work, Option<crate::model::MeasuredWork>) {
    let (work, measured) = crate::sources::tokens::counted(scrape, given, gpu_kwh);
    if let Some(m) = &measured {
        if m.reset {
            settings.warn("the inference server's counters went down during the run (it restarted): its work is counted from the reset");
        }
        if let Some(e) = &m.error {
            settings.warn(format!("--tokens-from: {e}; the run is kept without a token count"));
        }
    }
    (work, measured)
}

fn check_names(settings: &Settings, args: &Args, model: &str, run_id: Option<&str>) -> Result<(), Error> {
    check_record_name("model", model)?;
    if let Some(r) = run_id {
        check_record_name("run id", r)?;
        settings.mlflow()?;
    }
    let l = &args.labels;
    for (flag, v) in [("--job-user", &l.user), ("--job-account", &l.account), ("--job-partition", &l.partition)] {
        if let Some(v) = v {
            check_record_name(flag, v)?;
        }
    }
    store::check_writable(&settings.db()?)
}

fn open_trace(path: Option<&PathBuf>) -> Result<Option<Box<dyn Write + Send>>, Error> {
    let Some(p) = path else { return Ok(None) };
    let f = std::fs::File::create(p).map_err(|e| Error::Failed(format!("cannot create the trace file {}: {e}", p.display())))?;
    Ok(Some(Box::new(std::io::BufWriter::new(f))))
}

fn spawn(command: &[OsString]) -> Result<Option<Spawned>, Error> {
    let Some((program, rest)) = command.split_first() else { return Ok(None) };
    Spawned::spawn(program, rest)
        .map(Some)
        .map_err(|e| Error::Failed(format!("cannot run '{}': {e}", crate::text::clean(&program.to_string_lossy()))))
}

/// How often the waiting thread wakes when it watches the node (to notice that sampling ended).
/// With a command it sleeps until the command ends or a signal comes: a thread blocks in wait4
/// and another reads the signal handler's pipe, so waiting costs nothing.
const WAKE: Duration = Duration::from_millis(100);

/// What woke the waiting thread.
enum Woke {
    Ended(Ended),
    Signal,
}

/// Waits for the job to end (or the duration to pass), passing signals on.
fn wait(
    job: Option<&Spawned>,
    duration: Option<Duration>,
    start: Instant,
    nothing_to_watch: &dyn Fn() -> bool,
    tick: Option<&dyn Fn(f64, f64)>,
) -> (Option<Ended>, Option<String>) {
    let mut interrupted = None;
    let mut next_tick = Duration::ZERO;
    let (tx, woke) = std::sync::mpsc::channel();
    let on_signal = tx.clone();
    signals::on_signal(move || {
        let _ = on_signal.send(Woke::Signal);
    });
    if let Some(j) = job.copied() {
        std::thread::spawn(move || {
            let _ = tx.send(Woke::Ended(j.wait()));
        });
    }
    loop {
        if let (Some(j), Some(tick)) = (job, tick.filter(|_| start.elapsed() >= next_tick)) {
            tick(start.elapsed().as_secs_f64(), j.cpu_s_so_far());
            next_tick += Duration::from_secs(1);
        }
        if job.is_none() && (duration.is_some_and(|d| start.elapsed() >= d) || nothing_to_watch()) {
            return (None, interrupted);
        }
        while let Some((sig, sent_by_a_process)) = signals::take() {
            // USR1, USR2, WINCH and CONT tell the command something; the run goes on, measured.
            if signals::stops(sig) {
                interrupted = Some(signals::name(sig));
            }
            match job {
                // What a terminal sends reached the command already; anything a process sent is passed on.
                Some(j) if sent_by_a_process || !signals::from_terminal(sig) => j.signal(sig),
                Some(_) => {}
                None if signals::stops(sig) => return (None, interrupted),
                None => {}
            }
        }
        let until = match (job, tick) {
            (Some(_), Some(_)) => next_tick.saturating_sub(start.elapsed()),
            (Some(_), None) => Duration::from_secs(3600),
            (None, _) => WAKE,
        };
        if let Ok(Woke::Ended(done)) = woke.recv_timeout(until) {
            return (Some(done), interrupted);
        }
    }
}

fn cpu_of(e: &Ended) -> Cpu {
    Cpu {
        hours: tidy((e.user_s + e.system_s) / 3600.0),
        user_s: Some(tidy(e.user_s)),
        system_s: Some(tidy(e.system_s)),
        source: "user + system time of the command and its children".into(),
    }
}

/// The records' run id: the one given (which alone the Pushgateway groups by: a group a run is kept for
/// ever), the MLflow run's, else one made here: one act of measuring is one run, its carbon and cost records
/// share an id. The MLflow run is made now, when asked for.
#[allow(clippy::type_complexity)]
fn run_id(
    settings: &Settings,
    args: &mut Args,
) -> Result<(Option<String>, Option<(crate::sinks::mlflow::Tracking, String)>, &'static str), Error> {
    let given = args.record.as_ref().and_then(|(_, r)| r.clone());
    let mlflow = mlflow_run(settings, args)?;
    let from = run_id_from(args, given.is_some());
    if let Some((_, run_id @ None)) = args.record.as_mut() {
        *run_id = Some(format!("measure-{}", store::new_key()));
    }
    Ok((given, mlflow, from))
}

/// What a client that ended a served run asked it to be recorded as: its run id is then given, else one is made
/// (as for any run). The run id given, and where it came from.
fn recorded_as(args: &mut Args, (model, asked_id, part): serve::Asked) -> (Option<String>, &'static str) {
    let from = run_id_from(args, asked_id.is_some());
    args.part |= part;
    args.record = Some((model, asked_id.clone().or_else(|| Some(format!("measure-{}", store::new_key())))));
    (asked_id, from)
}

/// The run's CPU time, and the job's use of the CPUs for its share of their energy: the command's, else
/// what `--pid` or `--cpus` says.
fn job_cpu(
    settings: &Settings,
    (ended, served): (Option<&Ended>, Option<&serve::Serve>),
    held: Option<(JobCpu, Option<(ProcessCpu, ProcessCpu)>)>,
    duration_s: f64,
) -> (Option<Cpu>, Option<JobTime>) {
    // A served run's CPU time is its clients' (those that said hello).
    if let Some(c) = served.and_then(serve::Serve::cpu) {
        let seconds = c.hours * 3600.0;
        return (Some(c), Some(JobTime::Seconds(seconds)));
    }
    if let Some(e) = ended {
        return (Some(cpu_of(e)), Some(JobTime::Seconds(e.user_s + e.system_s)));
    }
    let Some(h) = held else { return (None, None) };
    let cpu = held_cpu(settings, h, duration_s);
    let time = cpu.as_ref().map(|c| match h.0 {
        JobCpu::Held(n) => JobTime::Held(n),
        JobCpu::Pid(_) => JobTime::Seconds(c.hours * 3600.0),
    });
    (cpu, time)
}

/// What `--pid` read at the start: the process's CPU seconds then (checked readable before the run).
fn started(j: JobCpu) -> Option<ProcessCpu> {
    match j {
        JobCpu::Pid(pid) => crate::sources::child::process_cpu(pid),
        JobCpu::Held(_) => None,
    }
}

/// Whether the `--pid` process read last (`last`) is still there, its reading kept in `last` when it is: false once
/// it ended (a zombie too, its last reading kept) or its pid is another process's (a later start).
fn still(pid: u32, last: &std::cell::Cell<Option<ProcessCpu>>) -> bool {
    let Some(was) = last.get() else { return false };
    match crate::sources::child::process_cpu(pid) {
        Some(now) if now.started == was.started => {
            last.set(Some(now));
            !now.ended
        }
        _ => false,
    }
}

/// The CPU time `--pid` or `--cpus` gives a run without a command; a process gone before the end is said,
/// and its CPU time is then unknown (never 0).
fn held_cpu(settings: &Settings, (j, read): (JobCpu, Option<(ProcessCpu, ProcessCpu)>), duration_s: f64) -> Option<Cpu> {
    match j {
        JobCpu::Held(n) => Some(Cpu {
            hours: tidy(n * duration_s / 3600.0),
            user_s: None,
            system_s: None,
            source: format!("{n} CPUs held (--cpus) for the run's {duration_s:.1} s, as a scheduler bills core-hours"),
        }),
        JobCpu::Pid(pid) => {
            let Some((first, last)) = read else {
                settings.warn(format!("process {pid} (--pid) could not be read: its CPU time is not in the run"));
                return None;
            };
            // Its reading at the end where it is still the same process, else its last reading while it was.
            let end = crate::sources::child::process_cpu(pid).filter(|p| p.started == first.started && !p.ended);
            let gone = if end.is_none() { " until it ended, the run ending with it" } else { "" };
            let end = end.unwrap_or(last);
            let (user, system) = ((end.user_s - first.user_s).max(0.0), (end.system_s - first.system_s).max(0.0));
            Some(Cpu {
                hours: tidy((user + system) / 3600.0),
                user_s: Some(tidy(user)),
                system_s: Some(tidy(system)),
                source: format!("user + system time of process {pid} (--pid) and its waited-for children over the run{gone}"),
            })
        }
    }
}

/// The job's CPU use, for its share of the node's CPU energy: seconds of CPU time, or CPUs held.
#[derive(Clone, Copy)]
enum JobTime {
    Seconds(f64),
    Held(f64),
}

/// The resolution of the run's energy over time that the grid's history is weighed by: finer than any
/// provider's history (WattTime's five minutes), and a week-long run is ten thousand buckets.
const PROFILE_BUCKET_S: f64 = 60.0;

/// What the sampler measured, and why not when it did not; and the energy over the run, a minute at a time.
fn gpu_of(
    outcome: Option<Outcome>,
    no_gpu: Option<String>,
    (started_unix, end): (f64, f64),
    (idle, knows_job, allocated): (crate::model::gpu::IdlePolicy, bool, &[crate::model::gpu::Allocation]),
) -> (Gpu, Vec<(f64, f64, f64)>) {
    let Some(mut o) = outcome else { return (Gpu { status: "not measured", reason: no_gpu, ..Gpu::empty() }, Vec::new()) };
    let read = o.samples.len();
    clip(&mut o.samples, end);
    // A lone reading copied to the run's start moved every reading one place on: so does what was said at each.
    if o.samples.len() > read {
        o.activity.iter_mut().flatten().for_each(|a| a.at += 1);
    }
    let profile = crate::sources::gpu::energy::profile(&o.samples, PROFILE_BUCKET_S, started_unix.rem_euclid(PROFILE_BUCKET_S));
    let mut devices = summarize(&o.samples);
    if let Some(shared) = &o.shared {
        for d in &mut devices {
            d.shared_with = Some(shared.get(&d.index).map_or(0, std::collections::BTreeSet::len));
        }
    }
    // Split only where the job's processes are known (a command's, or --pid's): watching a node alone, every
    // process is another's, and the job would be charged nothing.
    // And only where some process of the job's was seen busy on a GPU: where none was (a container whose PID
    // namespace hides the host's PIDs, a job that left exa's process tree), whose work is whose is not known.
    let job_seen = o.activity.as_ref().is_some_and(|a| a.iter().any(|a| a.party == crate::sources::gpu::split::Party::Job));
    if let (Some(activity), true) = (&o.activity, knows_job && job_seen) {
        for d in devices.iter_mut().filter(|d| d.shared_with.is_some_and(|n| n > 0)) {
            d.share = share_of(&o.samples, activity, d, idle);
        }
    }
    // A GPU the job holds MIG instances of is charged their share of its compute slices, by allocation.
    for d in &mut devices {
        if let Some(a) = allocated.iter().find(|a| a.device == d.index) {
            d.share = allocation_share(d, *a);
        }
    }
    let energy: Vec<&DeviceSummary> = devices.iter().filter(|d| d.energy_kwh.is_some()).collect();
    // A shared device counts the job's share of it, the device's whole energy only where no share could be made.
    let counted = |d: &DeviceSummary| d.share.as_ref().map_or(d.energy_kwh, |s| Some(s.job_kwh));
    let mut kwh = (!energy.is_empty()).then(|| energy.iter().filter_map(|d| counted(d)).sum::<Kwh>());
    // The GPU-hours held: a MIG instance's share of its GPU's hours.
    let held =
        |d: &DeviceSummary| allocated.iter().find(|a| a.device == d.index).map_or(1.0, |a| f64::from(a.slices) / f64::from(a.of.max(1)));
    let mut hours = (!energy.is_empty()).then(|| energy.iter().map(|d| d.covered_s * held(d)).sum::<f64>() / 3600.0);
    let mut refused: Vec<String> = devices
        .iter()
        .filter_map(|d| d.refused.as_ref().map(|r| format!("GPU {} ({}): {r}", d.index, crate::text::clean(&d.name))))
        .collect();
    // A device whose energy was refused whole is never left out of the run (its work gone from a record that
    // would still supersede the estimate of the job): the run's GPU energy is then not measured, and every
    // device's hours, from its first reading to its last, are priced by an assumed power, as CPU-hours without
    // counters are.
    // So is a device read twice or more that gave no energy at all (its power `[N/A]` throughout): the run's
    // GPU-hours are every device's, its energy measured for all of them or for none.
    let refused_whole = devices.iter().filter(|d| d.energy_kwh.is_none() && d.refused.is_some()).count();
    let silent = devices.iter().filter(|d| d.energy_kwh.is_none() && d.refused.is_none() && d.samples >= 2).count();
    let whole = refused_whole + silent;
    if whole > 0 {
        let spans: f64 = devices.iter().map(|d| seen_for(&o.samples, d.index) * held(d)).sum();
        refused.push(format!(
            "the GPUs' energy is not measured for the run ({whole} of {} devices without energy: refused, or no power read): \
             their {} device-hours are priced by an assumed power",
            devices.len(),
            tidy(spans / 3600.0)
        ));
        kwh = None;
        hours = (spans > 0.0).then_some(spans / 3600.0);
    }
    let (status, reason) = match (&o.state, kwh) {
        (Sampling::Measured, None) if hours.is_some() => ("not measured", Some(refused.join("; "))),
        (Sampling::NoGpu(why), _) => ("not measured", Some(why.clone())),
        (Sampling::Measured, None) if !refused.is_empty() => ("not measured", Some(refused.join("; "))),
        (Sampling::Measured, Some(_)) if !refused.is_empty() => ("measured", Some(refused.join("; "))),
        (Sampling::NeverStarted(why), _) => ("not measured", Some(format!("{} never gave a reading: {why}", o.kind))),
        (Sampling::Measured, None) if devices.iter().all(|d| d.peak_power_w.is_none()) => {
            ("not measured", Some("no device reported its power".into()))
        }
        (Sampling::Measured, None) => ("not measured", Some("fewer than two readings in a row: no interval to integrate".into())),
        (Sampling::Measured, Some(_)) if o.gave_up => {
            ("measured", Some("readings stopped after 5 failures in a row; the rest of the run is not counted".into()))
        }
        (Sampling::Measured, Some(_)) => ("measured", None),
    };
    let gpu = Gpu {
        status,
        reason,
        source: Some(o.kind),
        source_detail: Some(o.source),
        scope: Scope::all(),
        fields: Some(o.fields),
        samples: o.samples.iter().filter(|s| s.result.is_ok()).count(),
        missed: o.samples.iter().filter(|s| s.result.is_err()).count(),
        gave_up: o.gave_up,
        mean_power_w: kwh.zip(hours).map(|(k, h)| tidy(k.0 * 1000.0 / h)),
        energy_kwh: kwh.map(tidied),
        device_hours: hours.map(tidy),
        devices,
    };
    (gpu, if kwh.is_some() { profile } else { Vec::new() })
}

/// Device `d`'s energy split among the processes seen busy on it (`split`), where it has energy.
fn share_of(
    samples: &[Sample],
    activity: &[crate::sources::gpu::split::Activity],
    d: &DeviceSummary,
    idle: crate::model::gpu::IdlePolicy,
) -> Option<crate::model::GpuShare> {
    use crate::sources::gpu::split::{split, windows_of, Party};
    let kwh = d.energy_kwh?;
    // No process's activity said for the device in the whole run: nothing to split by; charged whole.
    if !activity.iter().any(|a| a.device == d.index) {
        return None;
    }
    let to_kwh = |mj: u64| tidied(Joules::of_millijoules(mj).kwh());
    let windows = windows_of(samples, activity, d.index, kwh.joules().whole_millijoules());
    // Nobody busy in any window (what was said came before the run): nobody to split among; charged whole.
    if windows.iter().all(|w| w.busy.is_empty()) {
        return None;
    }
    let s = split(&windows, idle);
    Some(crate::model::GpuShare {
        job_kwh: to_kwh(s.part(Party::Job)),
        device_kwh: kwh,
        others_kwh: to_kwh(s.others_mj()),
        idle_kwh: to_kwh(s.idle_mj),
        idle_seen_kwh: to_kwh(s.idle_seen_mj),
        idle_w: s.idle_w.map(tidy),
        idle_policy: idle.as_str(),
        weight: "sm",
        co_tenants: d.shared_with.unwrap_or(0),
        uncertainty: s.weight_uncertainty().map(tidy),
    })
}

/// A GPU's energy charged by allocation: the job's compute slices of its MIG instances over the GPU's, idle
/// included, in whole millijoules that add up to the GPU's energy.
fn allocation_share(d: &DeviceSummary, a: crate::model::gpu::Allocation) -> Option<crate::model::GpuShare> {
    let kwh = d.energy_kwh?;
    let to_kwh = |mj: u64| tidied(Joules::of_millijoules(mj).kwh());
    let parts = crate::sources::gpu::split::apportion(
        kwh.joules().whole_millijoules(),
        &[f64::from(a.slices), f64::from(a.of.saturating_sub(a.slices))],
    )?;
    Some(crate::model::GpuShare {
        job_kwh: to_kwh(parts[0]),
        device_kwh: kwh,
        others_kwh: to_kwh(parts[1]),
        idle_kwh: Kwh(0.0),
        idle_seen_kwh: Kwh(0.0),
        idle_w: None,
        idle_policy: "by-allocation",
        weight: "allocation",
        co_tenants: d.shared_with.unwrap_or(0),
        uncertainty: None,
    })
}

/// The seconds from device `index`'s first reading to its last.
fn seen_for(samples: &[Sample], index: u32) -> f64 {
    let at = |s: &&Sample| s.result.as_ref().is_ok_and(|l| l.iter().any(|d| d.index == index));
    match (samples.iter().find(at), samples.iter().rev().find(at)) {
        (Some(a), Some(b)) => (b.t - a.t).max(0.0),
        _ => 0.0,
    }
}

/// Reads the CPU counters from now, as often as their ranges need (`cpu::longest_wait_s`: a wrap never unseen) and
/// every `cpu::LONGEST_WAIT_S` at most, and once more at the end; or why they are not read. Only the run's totals
/// are kept, so reading at the GPUs' interval would cost a core's time for nothing.
fn start_cpu(settings: &Reading<'_>, source: Result<Box<dyn cpu::CpuSource>, String>) -> (Option<cpu::Sampler>, Option<String>) {
    let every = Duration::from_secs_f64(cpu::LONGEST_WAIT_S);
    match source {
        Ok(source) => (Some(cpu::Sampler::start(source, every, settings.cpu.root.value.clone(), None)), None),
        Err(why) => (None, Some(why)),
    }
}

/// Marks the MLflow run `--mlflow-experiment` made finished, as the command ended (a failure is said, not fatal).
fn finish_mlflow(settings: &Reading<'_>, run: Option<&(crate::sinks::mlflow::Tracking, String)>, ended: Option<&Ended>) {
    if let Some((tracking, id)) = run {
        let ok = ended.is_some_and(|e| e.code == 0);
        if let Err(e) = tracking.finish_run(id, ok, now_unix().saturating_mul(1000)) {
            settings.warn(format!("the MLflow run {id} could not be marked finished: {e}"));
        }
    }
}

/// The node's energy from its meter over the run, beside what was measured of it (the GPUs read, whole, and the
/// node's CPU packages and DRAM), and the remainder's share that is the job's: its part of the measured energy,
/// when every GPU of the node was read (else the other GPUs' draw is in the remainder, and none of it is the job's).
/// The remainder interval by interval: over each interval of the GPUs' profile (`(from, to, joules)`, in order) the
/// meter covers (90 % at least), the meter's energy less the GPUs' and the CPU's spread evenly over the run
/// (`cpu_w`), as mean watts over the part covered. None when no interval is covered, or the meter kept too many.
fn intervals_of(meter: &node::Meter, profile: &[(f64, f64, f64)], cpu_w: f64) -> Option<crate::model::NodeIntervals> {
    if meter.cut {
        return None;
    }
    let (mut remainders, mut first) = (Vec::new(), 0);
    for &(a, b, gpu_j) in profile.iter().filter(|(a, b, _)| b > a) {
        // A walk: both lists are in order, so each bucket starts where the last one's pieces ended.
        while meter.pieces.get(first).is_some_and(|p| p.1 <= a) {
            first += 1;
        }
        let (mut node_j, mut covered) = (0.0, 0.0);
        for &(t0, t1, j) in meter.pieces[first..].iter().take_while(|p| p.0 < b) {
            let over = t1.min(b) - t0.max(a);
            if over > 0.0 && t1 > t0 {
                node_j += j * over / (t1 - t0);
                covered += over;
            }
        }
        if covered >= 0.9 * (b - a) {
            remainders.push((node_j - gpu_j * covered / (b - a)) / covered - cpu_w);
        }
    }
    let (least, most) = remainders.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, m), r| (l.min(*r), m.max(*r)));
    (!remainders.is_empty()).then(|| crate::model::NodeIntervals {
        seconds: PROFILE_BUCKET_S,
        compared: remainders.len(),
        negative: remainders.iter().filter(|r| **r < 0.0).count(),
        min_remainder_w: tidy((least * 1e3).round() / 1e3),
        max_remainder_w: tidy((most * 1e3).round() / 1e3),
    })
}

fn node_energy_of(
    metered: Result<Option<node::Metered>, String>,
    (gpu, profile): (&Gpu, &[(f64, f64, f64)]),
    (cpu, policy, held): (&CpuEnergy, NodePolicy, Option<f64>),
    duration_s: f64,
) -> NodeEnergy {
    let m = match metered {
        Ok(Some(m)) => m,
        Ok(None) => return NodeEnergy::none("the node's power sampler stopped".into()),
        Err(why) => return NodeEnergy::none(why),
    };
    let meter = &m.meter;
    let mut notes = meter.notes.clone();
    if meter.refused > 0 {
        notes.push(format!(
            "{} interval(s) no node could have drawn (over {} W, or a counter that went back) were left out",
            meter.refused,
            node::MOST_NODE_W
        ));
    }
    let base = NodeEnergy {
        source: Some(m.kind),
        meter: Some(m.describe.clone()),
        readings: meter.readings,
        failed: meter.failed,
        ..NodeEnergy::none(String::new())
    };
    // The meter's energy stands for the run only where its readings cover it: failed readings leave gaps.
    // Of the run's own length, not the meter's span: a meter too slow to read more than a moment of the run
    // covers its own span and none of the run.
    if meter.covered_s <= 0.0 || meter.covered_s < 0.9 * duration_s {
        let why = format!(
            "the meter's readings cover {:.1} s of the run's {duration_s:.1} s, with gaps where readings failed: its energy is not the run's",
            meter.covered_s
        );
        return NodeEnergy { reason: Some(why), notes, ..base };
    }
    let node_kwh = Joules(meter.joules).kwh().0;
    if node_kwh <= 0.0 {
        let why = "the meter read no energy over the run (a BMC that does not support the reading reads 0 W)".to_string();
        return NodeEnergy { reason: Some(why), notes, ..base };
    }
    let devices: f64 = gpu.devices.iter().filter_map(|d| d.energy_kwh).map(|k| k.0).sum();
    let measured = devices + cpu.node_cpu_kwh.map_or(0.0, |k| k.0) + cpu.node_dram_kwh.map_or(0.0, |k| k.0);
    let remainder = node_kwh - measured;
    let share = job_share((gpu, cpu), measured, (policy, held), &mut notes);
    if remainder < 0.0 {
        notes.push(format!(
            "the node's meter read {:.1} % less than its measured parts: a meter slower than the counters, or wrong; nothing of it is the job's, and a record keeps no node figure",
            -remainder / node_kwh * 100.0
        ));
    }
    let cpu_w = (cpu.node_cpu_kwh.map_or(0.0, |k| k.0) + cpu.node_dram_kwh.map_or(0.0, |k| k.0)) * crate::model::energy::J_PER_KWH
        / duration_s.max(1e-9);
    let intervals = intervals_of(meter, profile, cpu_w);
    if let Some(i) = intervals.as_ref().filter(|i| i.negative > 0) {
        notes.push(format!(
            "{} of {} intervals read less than their measured parts (down to {} W): the meter lags the counters there, or is wrong",
            i.negative, i.compared, i.min_remainder_w
        ));
    }
    NodeEnergy {
        status: "measured",
        reason: None,
        node_kwh: Some(tidied(Kwh(node_kwh))),
        measured_kwh: Some(tidied(Kwh(measured))),
        remainder_kwh: Some(tidied(Kwh(remainder))),
        coverage_pct: Some(tidy((measured / node_kwh * 100.0 * 1e4).round() / 1e4)),
        policy: share.map(|_| policy.describe()),
        share: share.map(tidy),
        job_remainder_kwh: share.filter(|_| remainder >= 0.0).map(|s| tidied(Kwh(remainder * s))),
        intervals,
        notes,
        ..base
    }
}

/// The node's energy over the run, and what the run's records keep of the measurement; the meter's intervals are added
/// to the run's trace first (`node_trace`), a note where they could not be.
fn node_and_measured(
    settings: &Reading<'_>,
    args: &Args,
    read: Result<Option<node::Metered>, String>,
    (gpu, profile, cpu): (&Gpu, &[(f64, f64, f64)], &CpuEnergy),
    duration_s: f64,
) -> (NodeEnergy, Measured) {
    let traced = match (&args.trace, &read) {
        (Some(path), Ok(Some(m))) => node_trace(path, m).err(),
        _ => None,
    };
    let mut node = node_energy_of(read, (gpu, profile), (cpu, args.node_policy, held_share(settings, args)), duration_s);
    node.notes.extend(traced);
    let measured = measured(duration_s, gpu, &node, cpu);
    (node, measured)
}

/// Adds the node meter's intervals to the run's trace, once its GPU readings are written: a line each,
/// `{"node": {"source", "a", "b", "j"}}` (from and to, seconds since the epoch, and the joules between), what
/// `exa validate --reference redfish|ipmi|hwmon` compares the GPUs with. Only to a regular file (a pipe's reader has
/// had its lines); why not, where it could not, or what is missing (a meter that kept no more intervals).
fn node_trace(path: &std::path::Path, m: &node::Metered) -> Result<(), String> {
    use std::fmt::Write as _;
    if m.meter.pieces.is_empty() {
        return Ok(());
    }
    let why = |e: &dyn std::fmt::Display| format!("the node's readings were not added to the trace {}: {e}", path.display());
    // Through a link as the readings were written (`File::create` follows it), to a regular file only.
    let regular = std::fs::metadata(path).map_err(|e| why(&e))?.is_file();
    if !regular {
        return Err(why(&"it is not a regular file"));
    }
    let mut text = String::with_capacity(m.meter.pieces.len() * 96);
    for &(a, b, j) in &m.meter.pieces {
        let (a, b) = (m.origin_unix + a, m.origin_unix + b);
        let _ = writeln!(text, r#"{{"node":{{"source":"{}","a":{a:.6},"b":{b:.6},"j":{}}}}}"#, m.kind, tidy(j));
    }
    let mut f = std::fs::OpenOptions::new().append(true).open(path).map_err(|e| why(&e))?;
    f.write_all(text.as_bytes()).map_err(|e| why(&e))?;
    if m.meter.cut {
        return Err(format!(
            "the trace holds the node's first {} intervals, all the meter kept: the rest of the run has none",
            m.meter.pieces.len()
        ));
    }
    Ok(())
}

/// The share of the node's CPUs the job holds (`--cpus`), where it holds some and the node's are known.
fn held_share(settings: &Reading<'_>, args: &Args) -> Option<f64> {
    let Some(JobCpu::Held(n)) = args.job_cpu else { return None };
    held_of(settings, n).map(|(_, share)| share)
}

/// The node's online CPUs, and the share of them `n` CPUs held are; None where the node's are unknown.
fn held_of(settings: &Reading<'_>, n: f64) -> Option<(usize, f64)> {
    let online = cpu::share::online(&settings.cpu.root.value).filter(|o| *o > 0)?;
    Some((online, (n / online as f64).clamp(0.0, 1.0)))
}

/// The job's measured energy, kWh: its GPUs' and its part of the CPU packages' and DRAM's.
fn job_kwh(gpu: &Gpu, cpu: &CpuEnergy) -> f64 {
    gpu.energy_kwh.map_or(0.0, |k| k.0) + cpu.job_kwh().map_or(0.0, |k| k.0)
}

/// The job's share of its node's remainder by `policy` (`held`: the share of the node's CPUs it holds), or why none.
fn job_share(
    (gpu, cpu): (&Gpu, &CpuEnergy),
    measured: f64,
    (policy, held): (NodePolicy, Option<f64>),
    notes: &mut Vec<String>,
) -> Option<f64> {
    let every_gpu = gpu.scope.devices.is_none();
    // The job's GPUs must be in its measured energy: a run whose GPU energy was refused (priced by its hours) has
    // none, and its part would leave them out.
    let gpus_known = gpu.devices.is_empty() || gpu.energy_kwh.is_some();
    if !gpus_known {
        notes.push("the GPUs' energy is not measured for the run: the job's part of the remainder cannot be told".into());
    }
    if !every_gpu {
        notes.push(format!(
            "the GPUs read are the job's ({}), not necessarily the node's: any other GPU's draw is in the remainder, so none of it is the job's",
            gpu.scope.from
        ));
    }
    match policy {
        NodePolicy::Measured => (measured > 0.0).then(|| (job_kwh(gpu, cpu) / measured).clamp(0.0, 1.0)),
        NodePolicy::Allocation => allocated(gpu, held).map_err(|why| notes.push(why)).ok(),
    }
    .filter(|_| every_gpu && gpus_known)
}

/// The job's share of its node by allocation (`--node-policy allocation`): measured with every GPU of the node (no
/// `--gpus` or the like), it holds them all, so all of the node's rest is its; measured with none, the share of the
/// node's CPUs it holds (`--cpus`). Why not, where it holds neither. (A job measured with only its own GPUs gets no
/// share by either policy: the other GPUs' draw is in the rest, `job_share`.)
fn allocated(gpu: &Gpu, held_cpus: Option<f64>) -> Result<f64, String> {
    if !gpu.devices.is_empty() {
        return Ok(1.0);
    }
    held_cpus.ok_or_else(|| {
        "no allocation to share the node's remainder by: the job holds no GPU, and its CPUs are counted by the time it used, not held (--cpus)"
            .to_string()
    })
}

/// What the run's records keep of its measurement; with the job's part of its node's platform energy: its measured
/// energy and its share of the remainder. No part where no meter covered the run, no policy gave the job a share of
/// it, or the meter read less than the counters (a node drawing less than its parts is no figure for the ledger).
fn measured(duration_s: f64, gpu: &Gpu, node: &NodeEnergy, cpu: &CpuEnergy) -> Measured {
    let part = node.job_remainder_kwh.zip(node.policy).map(|(rest, policy)| NodePart {
        kwh: tidy(job_kwh(gpu, cpu) + rest.0),
        rest_kwh: rest.0,
        policy,
    });
    Measured { duration_s, device_count: gpu.devices.len(), gpu_kwh: gpu.energy_kwh.map(|k| k.0), node: part }
}

/// The MLflow run `--mlflow-experiment` asks for, made now (before the command starts); the run id
/// `--record` then records under.
fn mlflow_run(settings: &Settings, args: &mut Args) -> Result<Option<(crate::sinks::mlflow::Tracking, String)>, Error> {
    let Some(experiment) = &args.mlflow_experiment else { return Ok(None) };
    let made = crate::sinks::mlflow::start_run(settings, experiment, &args.command)?;
    if let Some((_, run_id)) = args.record.as_mut() {
        *run_id = Some(made.1.clone());
    }
    Ok(Some(made))
}

/// The job's CPU and memory energy: the node's, whole when the job owns the node, else by its share of
/// the node's busy CPU time over the run.
fn cpu_energy_of(settings: &Reading<'_>, metered: Option<cpu::Metered>, reason: Option<String>, job: Option<JobTime>) -> CpuEnergy {
    let Some(m) = metered else { return CpuEnergy::none(reason.unwrap_or_else(|| "the CPU sampler stopped".into())) };
    // A figure the hardware could not have made is never a measurement: the CPU-hours' estimate stands.
    let refused = m.meter.refusals(cpu::Kind::Package);
    if !refused.is_empty() {
        return CpuEnergy::none(format!("{}; the CPU energy is not measured", refused.join("; ")));
    }
    let dram_refused = m.meter.refusals(cpu::Kind::Dram);
    let kwh = |kind| m.meter.joules(kind).map(|j| Joules(j).kwh());
    let (node_cpu, node_dram) = (kwh(cpu::Kind::Package), kwh(cpu::Kind::Dram).filter(|_| dram_refused.is_empty()));
    let mut notes = m.notes.clone();
    notes.extend(dram_refused.into_iter().map(|why| format!("{why}; the memory energy is not measured")));
    notes.extend(m.meter.notes().iter().cloned());
    let (method, why, share) = match job {
        None => ("whole node", "no command: the node is what was watched".to_string(), 1.0),
        Some(JobTime::Held(n)) => match held_of(settings, n) {
            Some((online, share)) => ("share by CPUs held", format!("the job holds {n} of the node's {online} CPUs (--cpus)"), share),
            None => {
                return CpuEnergy::none("the node's CPUs are unknown: the share of the CPUs the job holds (--cpus) cannot be taken".into())
            }
        },
        Some(JobTime::Seconds(job_s)) => {
            let own = cpu::share::ownership(&settings.cpu.root.value, settings.cpu.ranks);
            match m.busy_s.filter(|b| *b > 0.0) {
                _ if own.whole => ("whole node", own.why, 1.0),
                Some(busy) => (
                    "share by CPU time",
                    format!("{}: the job's {job_s:.2} CPU-seconds of the node's {busy:.2} busy", own.why),
                    (job_s / busy).clamp(0.0, 1.0),
                ),
                None => {
                    let stat = settings.cpu.root.value.join("proc/stat");
                    return CpuEnergy::none(format!(
                        "{}, and the node's busy time over the run could not be read ({}): the job's share is unknown",
                        own.why,
                        stat.display()
                    ));
                }
            }
        }
    };
    CpuEnergy {
        status: "measured",
        reason: None,
        source: Some(m.kind),
        zones: m.meter.zones().iter().map(|z| CpuZone { id: z.id.clone(), name: z.name.clone(), kind: z.kind.as_str() }).collect(),
        method: Some(method),
        method_reason: Some(why),
        share: Some(tidy(share)),
        node_cpu_kwh: node_cpu.map(tidied),
        node_dram_kwh: node_dram.map(tidied),
        cpu_kwh: node_cpu.map(|k| tidied(k * share)),
        dram_kwh: node_dram.map(|k| tidied(k * share)),
        wraps: m.meter.wraps(),
        notes,
    }
}

/// Ends the integration at the command's exit: the reading taken after it
/// counts as the power at the exit, and nothing after it is billed. A run
/// that ended before its first reading began is billed at that reading's
/// power for the run's length, never for the reading's. A device's energy
/// counter is read across its real span (`read_t`): its mean power stays
/// exact, and the milliseconds between the exit and that reading are in it.
fn clip(samples: &mut Vec<Sample>, end: f64) {
    if let Some(i) = samples.iter().position(|s| s.t > end) {
        samples.truncate(i + 1);
        let at = samples[i].t;
        samples[i].read_t.get_or_insert(at);
        samples[i].t = end;
    }
    if samples.len() == 1 && samples[0].t >= end && samples[0].result.is_ok() {
        let mut first = samples[0].clone();
        first.t = 0.0;
        // A copy of a reading is no second reading of a counter: this run is priced by its power.
        if let Ok(devices) = first.result.as_mut() {
            for d in devices {
                d.energy_counter_j = None;
            }
        }
        samples.insert(0, first);
    }
}

/// The carbon estimate, at the grid's history over the run when one is configured, and the cost estimate.
fn price_both(
    settings: &Reading<'_>,
    args: &Args,
    work: &Readings,
    span: (f64, f64),
    profile: &[(f64, f64, f64)],
) -> [(Option<Estimate>, Option<String>); 2] {
    // The node's CPU as it names itself, for a provider that prices by model.
    let cpu_name = work.cpu.and_then(|_| cpu::share::model(&settings.cpu.root.value));
    let work = &Readings { cpu_name: cpu_name.as_ref(), ..*work };
    let history = history_ask(settings, args.carbon_provider.as_deref(), span, profile, work);
    let carbon_ask = (args.carbon_provider.as_ref(), args.region.as_ref());
    [
        price(settings, Domain::Carbon, carbon_ask, work, history),
        price(settings, Domain::Cost, (args.cost_provider.as_ref(), None), work, Ok(None)),
    ]
}

/// Prices the measured hours and energy in `domain`; an error is kept, not raised.
fn price(
    settings: &Settings,
    domain: Domain,
    (provider, region): (Option<&String>, Option<&String>),
    work: &Readings,
    history: Result<Option<HistoryAsk>, String>,
) -> (Option<Estimate>, Option<String>) {
    let Readings { gpu, cpu, cpu_energy, cpu_name } = *work;
    let (history, unread) = match history {
        Ok(h) => (h, None),
        Err(why) => (None, Some(why)),
    };
    let gpu_hours = gpu.device_hours.unwrap_or(0.0);
    let cpu_hours = cpu.map_or(0.0, |c| c.hours);
    if gpu_hours <= 0.0 && cpu_hours <= 0.0 {
        return (None, Some("nothing was measured: no GPU energy and no CPU time".into()));
    }
    // A provider without a CPU-hours term still prices the GPU work; the CPU-hours it cannot price are
    // stated with their figure, never dropped in silence, and never a reason to refuse the whole run.
    let unpriced_cpu = cpu_hours > 0.0
        && gpu_hours > 0.0
        && pricing::resolve(settings, domain, provider.map(String::as_str)).is_ok_and(|r| !r.provider.meta().accepts("cpu_hours"));
    let req = Request {
        gpu_hours: Some(gpu_hours),
        cpu_hours: Some(if unpriced_cpu { 0.0 } else { cpu_hours }),
        gpu_kwh: gpu.energy_kwh.map(|k| k.0),
        cpu_kwh: cpu_energy.job_kwh().map(|k| k.0).filter(|_| cpu_hours > 0.0 && !unpriced_cpu),
        provider: provider.cloned(),
        region: region.cloned(),
        overrides: Vec::new(),
        history,
        // The GPUs' name, for the table of embodied carbon: one model for all of them, else none.
        gpu_name: one_model(&gpu.devices),
        gpu_model: None,
        cpu_model: None,
        // The node's CPU, for a provider that prices by model where no CPU energy was measured.
        cpu_name: cpu_name.filter(|_| cpu_hours > 0.0).cloned(),
    };
    match pricing::estimate(settings, domain, &req) {
        Ok(mut e) => {
            if let Some(why) = unread {
                e.notes.push(format!("{why}: the run is priced at the intensity above, not the hours it ran"));
            }
            if let (Some(why), true) =
                (&cpu_energy.reason, domain == Domain::Carbon && cpu_hours > 0.0 && !unpriced_cpu && req.cpu_kwh.is_none())
            {
                e.notes.push(format!("CPU energy not measured ({why}): the CPU-hours are priced by cpu_tdp_watts, an assumed power"));
            }
            if let (Some(kwh), true) = (cpu_energy.job_kwh(), domain == Domain::Carbon && req.cpu_kwh.is_none()) {
                e.notes.push(format!(
                    "the measured CPU and memory energy ({kwh:.6} kWh) is not in this figure: with no CPU-hours to price it over, it is reported in cpu_energy alone"
                ));
            }
            if domain == Domain::Carbon {
                widen_for_shares(&mut e, gpu, req.gpu_kwh.unwrap_or(0.0) + req.cpu_kwh.unwrap_or(0.0));
            }
            if unpriced_cpu {
                let figure =
                    if cpu_hours < 0.01 { format!("{:.3} CPU-seconds", cpu_hours * 3600.0) } else { format!("{cpu_hours:.3} CPU-hours") };
                e.notes.push(format!(
                    "the command's {figure} were not priced: {domain} provider '{}' has no CPU-hours term; this figure is the GPU work alone",
                    e.provider.name
                ));
            }
            (Some(e), None)
        }
        Err(e) => (None, Some(e.to_string())),
    }
}

/// Widens a measured run's energy and CO2e bands by how far its shared GPUs' parts could move with the weight
/// chosen (`GpuShare::uncertainty`), as a share of the run's measured energy (`measured_kwh`: before any PUE, which
/// scales both alike; CPU energy priced by an assumed power is not in it, so the band errs wide), added in
/// quadrature to the provider's, and says so.
fn widen_for_shares(e: &mut Estimate, gpu: &Gpu, measured_kwh: f64) {
    if gpu.energy_kwh.is_none() || measured_kwh <= 0.0 {
        return;
    }
    let moved: f64 = gpu.devices.iter().filter_map(|d| d.share.as_ref()).map(|s| s.job_kwh.0 * s.uncertainty.unwrap_or(0.0)).sum();
    if moved <= 0.0 {
        return;
    }
    let share_u = moved / measured_kwh;
    let Some(range) = e.range.as_mut() else { return };
    for key in ["kwh", "co2e_g"] {
        let (Some(v), Some(band)) = (e.outputs.get(key).copied(), range.get_mut(key)) else { continue };
        if v <= 0.0 {
            continue;
        }
        let provider_u = ((band[1] - v) / v).max(0.0);
        let u = provider_u.hypot(share_u);
        *band = [tidy((v * (1.0 - u)).max(0.0)), tidy(v * (1.0 + u))];
    }
    e.notes.push(format!(
        "the band includes the shared GPUs' split: the job's part could be {:.1} % of the run's energy more or less by the activity it is \
         weighed by (SM or memory), added in quadrature to the provider's uncertainty",
        share_u * 100.0
    ));
}

/// What was measured, as the pricing reads it.
#[derive(Clone, Copy)]
struct Readings<'a> {
    gpu: &'a Gpu,
    cpu: Option<&'a Cpu>,
    cpu_energy: &'a CpuEnergy,
    /// The node's CPU model and cores a socket (`/proc/cpuinfo`).
    cpu_name: Option<&'a (String, Option<f64>)>,
}

/// The grid's history over the run, and the run's energy over time to weigh it by (the GPUs' interval by
/// interval, the CPUs' measured energy spread evenly; with neither, time): `Ok(None)` when no history
/// endpoint is configured, `Err` why it could not be read (said as a warning, and in the carbon estimate).
/// An intensity set by hand wins: nothing is read, and the estimate says the history was not used.
fn history_ask(
    settings: &Settings,
    provider: Option<&str>,
    (start, duration_s): (f64, f64),
    gpu: &[(f64, f64, f64)],
    work: &Readings,
) -> Result<Option<HistoryAsk>, String> {
    let fixed = pricing::Pricer::new(settings, Domain::Carbon, provider).ok().and_then(|p| p.intensity_set_by());
    if let Some(series) = fixed.and_then(|_| pricing::history::unread(settings)) {
        return Ok(Some(HistoryAsk { series: std::sync::Arc::new(series), profile: Vec::new(), weighted_by: String::new() }));
    }
    let end = start + duration_s;
    let series = match pricing::history::fetch(settings, &pricing::history::days(start as i64, end.ceil() as i64)) {
        Ok(Some(s)) => s,
        Ok(None) => return Ok(None),
        Err(why) => {
            settings.warn(format!("{why}; the run is priced without it"));
            return Err(why);
        }
    };
    let mut profile: Vec<Weight> = gpu.iter().map(|&(a, b, j)| Weight { from: start + a, to: start + b, weight: j }).collect();
    let cpu_j = work.cpu_energy.job_kwh().map_or(0.0, |k| k.joules().0);
    let weighted_by = match (profile.is_empty(), cpu_j > 0.0) {
        (false, true) => "GPU energy per minute, and the measured CPU and memory energy spread evenly over the run",
        (false, false) if work.cpu.is_some_and(|c| c.hours > 0.0) => {
            "GPU energy per minute (the CPU-hours, whose energy was not measured, at the same intensity)"
        }
        (false, false) => "GPU energy per minute",
        (true, true) => "the measured CPU and memory energy, spread evenly over the run",
        (true, false) => "time (flat power: no energy was measured over time)",
    };
    if cpu_j > 0.0 || profile.is_empty() {
        profile.push(Weight { from: start, to: end, weight: if cpu_j > 0.0 { cpu_j } else { 1.0 } });
    }
    Ok(Some(HistoryAsk { series: std::sync::Arc::new(series), profile, weighted_by: weighted_by.to_string() }))
}

fn electricity(settings: &Reading<'_>, gpu: &Gpu, cpu: &CpuEnergy) -> Option<Electricity> {
    let price = settings.power_cost_per_kwh.clone()?;
    let (kwh, note) = match (gpu.energy_kwh, cpu.job_kwh()) {
        (Some(g), Some(c)) => (tidy((g + c).0), "measured GPU, CPU and memory energy times the price"),
        (Some(g), None) => (g.0, "measured GPU energy times the price; CPU and RAM energy are not measured"),
        (None, Some(c)) => (tidy(c.0), "measured CPU and memory energy times the price; no GPU energy was measured"),
        (None, None) => return None,
    };
    Some(Electricity { cost_usd: tidy(kwh * price.value), price_per_kwh: price, kwh, note })
}

/// Stores the run's estimates; a failure is a warning and a field of the report, never lost silently.
/// Where the run's records go: model, run id, and whether they are one part of the run.
struct Records<'a> {
    model: &'a str,
    run_id: Option<&'a String>,
    run_id_from: &'static str,
    part: bool,
    labels: &'a crate::model::Labels,
    work: &'a crate::model::Work,
}

fn record(
    settings: &Settings,
    to: &Records,
    estimates: [&Option<Estimate>; 2],
    carbon_error: Option<&str>,
    measured: Measured,
) -> (Option<Stored>, Option<String>) {
    let records: Vec<NewRecord> = estimates
        .into_iter()
        .flatten()
        .map(|e| NewRecord {
            model: to.model.to_string(),
            run_id: to.run_id.cloned(),
            recorded_at: now_unix(),
            host: hostname(),
            estimate: e.clone(),
            measured: Some(measured.clone()),
            part: to.part,
            key: store::new_key(),
            labels: to.labels.clone(),
            work: to.work.clone(),
        })
        .collect();
    if records.is_empty() {
        let why = carbon_error.map_or_else(|| "no estimate to record".to_string(), str::to_string);
        settings.warn(format!("nothing recorded for {}: {why}", to.model));
        return (None, Some(why));
    }
    let stored = settings.db().and_then(|db| store::open(&db)).and_then(|mut st| {
        let ids = st.insert(&records)?;
        let pairs: Vec<(i64, &NewRecord)> = ids.iter().copied().zip(records.iter()).collect();
        // Stored first, always; a log MLflow does not take is a warning (the records stay).
        if let Err(e) = crate::sinks::mlflow::log_records(settings, st.as_mut(), &pairs) {
            settings.warn(e.to_string());
        }
        Ok((ids, st.location().0))
    });
    match stored {
        Ok((ids, db)) => {
            (Some(Stored { model: to.model.to_string(), run_id: to.run_id.cloned(), run_id_from: to.run_id_from, ids, db }), None)
        }
        Err(e) => {
            settings.warn(format!("nothing recorded for {}: {e}", to.model));
            (None, Some(e.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::intervals_of;
    use crate::sources::node::Meter;

    #[test]
    fn by_allocation_every_gpu_read_is_the_job_s_and_without_gpus_the_cpus_it_holds() {
        use crate::model::gpu::{DeviceSummary, Throttled};
        let device = DeviceSummary {
            index: 0,
            name: "NVIDIA H100".into(),
            uuid: None,
            energy_kwh: None,
            energy_method: None,
            refused: None,
            shared_with: None,
            share: None,
            covered_s: 0.0,
            mean_power_w: None,
            p95_power_w: None,
            peak_power_w: None,
            peak_temperature_c: None,
            samples: 0,
            missed: 0,
            throttled: Throttled::default(),
        };
        let mut gpu = crate::model::Gpu::empty();
        gpu.devices = vec![device];
        assert_eq!(super::allocated(&gpu, Some(0.25)), Ok(1.0), "the node's GPUs, all of them");
        gpu.devices.clear();
        assert_eq!(super::allocated(&gpu, Some(0.25)), Ok(0.25));
        assert!(super::allocated(&gpu, None).unwrap_err().contains("no allocation"));
    }

    fn meter(pieces: &[(f64, f64, f64)]) -> Meter {
        let mut m = Meter::default();
        m.pieces = pieces.to_vec();
        m.keep_pieces = true;
        m
    }

    #[test]
    fn an_interval_s_remainder_is_the_meter_less_its_parts_in_mean_watts() {
        // 100 W read in two halves, the GPUs' 20 W, the CPU's 10 W: 70 W of rest.
        let m = meter(&[(0.0, 30.0, 3000.0), (30.0, 60.0, 3000.0)]);
        let i = intervals_of(&m, &[(0.0, 60.0, 1200.0)], 10.0).unwrap();
        assert_eq!((i.compared, i.negative, i.min_remainder_w, i.max_remainder_w), (1, 0, 70.0, 70.0));
        // A piece across two intervals counts in each by its overlap; the GPUs' 150 W is more than the meter's.
        let i = intervals_of(&meter(&[(0.0, 120.0, 12_000.0)]), &[(0.0, 60.0, 1200.0), (60.0, 120.0, 9000.0)], 0.0).unwrap();
        assert_eq!((i.compared, i.negative, i.min_remainder_w, i.max_remainder_w), (2, 1, -50.0, 80.0));
        // Under 90 % of an interval read is no comparison, and a meter that kept too many pieces has none.
        assert!(intervals_of(&meter(&[(0.0, 50.0, 5000.0)]), &[(0.0, 60.0, 1200.0)], 0.0).is_none());
        let mut cut = meter(&[(0.0, 60.0, 6000.0)]);
        cut.cut = true;
        assert!(intervals_of(&cut, &[(0.0, 60.0, 1200.0)], 0.0).is_none());
    }
}
