//! The sampler owns time: the first sample at once, then one every
//! interval, a last one when told to stop, and giving up after five
//! failures in a row. It runs on its own thread so that a slow or hung
//! `nvidia-smi` never delays noticing that the measured command exited.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::json;

use super::energy::{trapezoid, Sample};
use super::running::Running;
use super::{GpuSource, SampleError};

/// Failures in a row after which sampling stops.
pub const MAX_FAILURES: usize = 5;

/// How sampling ended, or why it never began.
#[derive(Debug, Clone, PartialEq)]
pub enum Sampling {
    /// Readings were taken (some may have failed).
    Measured,
    /// The host has no GPU to read: no tool, or no devices.
    NoGpu(String),
    /// The tool never gave a reading: what it said.
    NeverStarted(String),
}

/// What the sampler tells the person watching, as it happens.
pub trait Hooks: Send {
    /// A warning, as it happens.
    fn warn(&self, message: &str);
    /// One line at info level, as it happens (no GPU on the host, say).
    fn info(&self, _message: &str) {}
    /// A live status line (only called when `live` is set).
    fn live(&self, _line: &str) {}
}

/// What sampling gathered.
pub struct Outcome {
    /// Every attempt, in order.
    pub samples: Vec<Sample>,
    /// How it ended.
    pub state: Sampling,
    /// The source, for reports.
    pub source: String,
    /// The field set the source used last.
    pub fields: &'static str,
    /// True when sampling stopped before the end because of failures.
    pub gave_up: bool,
    /// Which source it was: `nvml`, `nvidia-smi`, `amd-smi`.
    pub kind: &'static str,
    /// Other processes seen computing on each device (by index); None where the source cannot list them.
    pub shared: Option<BTreeMap<u32, BTreeSet<u32>>>,
    /// Each process's activity at each reading, where the source says it (`GpuSource::process_activity`); None
    /// where it cannot.
    pub activity: Option<Vec<super::split::Activity>>,
}

/// Seconds between two looks at the processes on the devices (and one at the first and the last reading).
const PROCESS_LIST_EVERY_S: f64 = 60.0;

/// Whose processes are the job's, besides exa's own and their descendants.
#[derive(Debug, Clone, Default)]
pub struct JobOf {
    /// A process whose descendants are the job's too (`measure --pid`).
    pub root: Option<u32>,
    /// A group whose processes are the job's (`measure --slurm-job`: the job's control group), and the host root
    /// their `/proc` is read under.
    pub group: Option<(std::path::PathBuf, crate::sources::owner::Group)>,
}

impl JobOf {
    /// Whether anything says whose the job's processes are beyond exa's own (exa may watch a node alone).
    pub fn named(&self) -> bool {
        self.root.is_some() || self.group.is_some()
    }
}

/// True when `pid` is exa or one of its descendants (the measured command and whatever it started), or
/// the job's as `job` says: `--pid`'s process or one of its descendants, or a process in `--slurm-job`'s group.
fn ours(pid: u32, job: &JobOf) -> bool {
    if job.group.as_ref().is_some_and(|(host, g)| crate::sources::owner::group_of(host, pid) == *g) {
        return true;
    }
    let root = job.root;
    let me = std::process::id();
    let mut p = pid;
    for _ in 0..64 {
        if p == me || Some(p) == root {
            return true;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else { return false };
        // The parent is the second field after the command name, which may hold spaces and parentheses.
        let Some(parent) = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok()) else {
            return false;
        };
        // The parent is looked at as the next `p` (exa may be PID 1, a container's entrypoint); no parent ends it.
        if parent == 0 || parent == p {
            return false;
        }
        p = parent;
    }
    false
}

/// The other processes seen on each device: looked at on the first reading, every minute, and the last; and
/// each process's activity at every reading, where the source says it.
#[derive(Default)]
struct Processes {
    shared: Option<BTreeMap<u32, BTreeSet<u32>>>,
    next: f64,
    activity: Option<Vec<super::split::Activity>>,
    /// Whether each pid seen is exa's or the command's, looked up once.
    ours: BTreeMap<u32, bool>,
    /// Whose processes are the job's besides exa's own.
    job: JobOf,
}

impl Processes {
    /// Looks at the processes on the devices when it is time, adding those not exa's or the command's.
    fn look(&mut self, source: &mut dyn GpuSource, t: f64, last: bool) {
        if t < self.next && !last {
            return;
        }
        self.next = t + PROCESS_LIST_EVERY_S;
        let Some(list) = source.processes() else { return };
        // A pid gone from the devices is looked up again if it comes back: it may be another process's by then.
        self.ours.retain(|pid, _| list.iter().any(|(_, p)| p == pid));
        let seen = self.shared.get_or_insert_with(BTreeMap::new);
        for (index, pid) in list {
            let others = seen.entry(index).or_default();
            if !*self.ours.entry(pid).or_insert_with(|| ours(pid, &self.job)) {
                others.insert(pid);
            }
        }
    }

    /// Notes each process's activity the source says at the reading `at`; a process busy on a device is on it.
    fn busy(&mut self, source: &mut dyn GpuSource, at: usize) {
        use super::split::{Activity, Party};
        let Some(list) = source.process_activity().map(|a| a.samples) else { return };
        self.ours.retain(|pid, _| list.iter().any(|(_, p, _, _)| p == pid));
        let activity = self.activity.get_or_insert_with(Vec::new);
        for (device, pid, sm, mem) in list {
            let party = if *self.ours.entry(pid).or_insert_with(|| ours(pid, &self.job)) {
                Party::Job
            } else {
                self.shared.get_or_insert_with(BTreeMap::new).entry(device).or_default().insert(pid);
                Party::Other(pid)
            };
            activity.push(Activity { at, device, party, sm, mem });
        }
    }
}

/// A sampling thread.
pub struct Sampler {
    /// Told when the run ended (the command's exit, an interrupt), and when that was; or asked to read now.
    stop: Sender<Ask>,
    handle: JoinHandle<Outcome>,
}

/// How to sample.
pub struct Options {
    /// Time between readings.
    pub interval: Duration,
    /// Where to write each sample as a JSON line.
    pub trace: Option<Box<dyn Write + Send>>,
    /// Whether to call `Hooks::live` after each reading.
    pub live: bool,
    /// The most the run's end waits on the GPUs: one tool's deadline, counted from the end, whatever call
    /// (a reading, a look at the processes) was under way then.
    pub deadline: Duration,
    /// Whose processes are the job's, besides exa's own (`measure --pid`, `--slurm-job`).
    pub job: JobOf,
}

impl Sampler {
    /// Starts sampling `source` now; `start` is time zero of the samples.
    pub fn start(source: Box<dyn GpuSource>, opts: Options, hooks: Box<dyn Hooks>, start: Instant) -> Sampler {
        let (stop, rx) = mpsc::channel();
        let handle = std::thread::spawn(move || run(source, opts, hooks, start, rx));
        Sampler { stop, handle }
    }

    /// True once sampling has ended on its own (no GPU, or it gave up).
    pub fn ended(&self) -> bool {
        self.handle.is_finished()
    }

    /// Reads the GPUs now, their energy counters included, and answers each device's energy so far
    /// (`running::Running`), within `deadline`: a window's edge. Not a sample of the run: its readings stay
    /// the interval's, so a thousand windows a second hold no memory.
    pub fn read_now(&self, deadline: Duration) -> Result<Now, String> {
        let (tx, rx) = mpsc::sync_channel(1);
        self.stop.send(Ask::Read(tx)).map_err(|_| "the GPUs are no longer read: the run has ended".to_string())?;
        rx.recv_timeout(deadline).map_err(|e| match e {
            RecvTimeoutError::Timeout => format!("the GPUs did not answer within {:.1} s", deadline.as_secs_f64()),
            RecvTimeoutError::Disconnected => "the GPUs are no longer read: sampling ended".to_string(),
        })?
    }

    /// Takes a last sample (unless sampling already ended) and returns everything.
    pub fn finish(self) -> Outcome {
        let _ = self.stop.send(Ask::Stop(Instant::now()));
        self.handle.join().expect("the sampler thread does not panic")
    }
}

/// The energy since the last good sample, by the trapezoid rule over each device's power.
fn step_energy(samples: &[Sample], devices: &[super::Device], t: f64) -> f64 {
    let Some(Sample { t: t0, result: Ok(prev), .. }) = samples.last() else { return 0.0 };
    devices.iter().filter_map(|d| Some(trapezoid(prev.iter().find(|p| p.index == d.index)?.power_w?, d.power_w?, t - t0))).sum()
}

/// What the sampling thread is told.
enum Ask {
    /// The run ended, then.
    Stop(Instant),
    /// Read now and answer each device's energy so far.
    Read(mpsc::SyncSender<Result<Now, String>>),
}

/// Each device's energy so far, read at `t` seconds after the start.
#[derive(Debug, Clone, PartialEq)]
pub struct Now {
    /// When the reading began, s since the start.
    pub t: f64,
    /// (device index, joules since the first reading).
    pub joules: Vec<(u32, f64)>,
    /// The devices' model, when they are all one.
    pub model: Option<String>,
}

/// Waits until `next`, reading the GPUs whenever asked meanwhile (one reading answers every ask waiting, and
/// the interval's own reading is never put off by them); when told to stop (or the owner went away) first,
/// when the run ended.
fn stop_asked(
    stop: &mpsc::Receiver<Ask>,
    next: Instant,
    source: &mut dyn GpuSource,
    (start, running): (Instant, &mut Running),
) -> Option<Instant> {
    loop {
        let first = match stop.recv_timeout(next.saturating_duration_since(Instant::now())) {
            Ok(Ask::Stop(at)) => return Some(at),
            Ok(Ask::Read(reply)) => reply,
            Err(RecvTimeoutError::Disconnected) => return Some(Instant::now()),
            Err(RecvTimeoutError::Timeout) => return None,
        };
        let (mut replies, mut stopped) = (vec![first], None);
        while let Ok(ask) = stop.try_recv() {
            match ask {
                Ask::Read(reply) => replies.push(reply),
                Ask::Stop(at) => stopped = Some(at),
            }
        }
        source.counter_now();
        let (t, _, result) = timed(source, start);
        let answer = match result {
            Ok(devices) => {
                running.add(t, &devices);
                Ok(Now { t, joules: running.joules(), model: running.one_model() })
            }
            Err(e) => {
                running.gap();
                Err(format!("the GPUs could not be read: {e}"))
            }
        };
        for reply in replies {
            let _ = reply.send(answer.clone());
        }
        if stopped.is_some() {
            return stopped;
        }
        if Instant::now() >= next {
            return None;
        }
    }
}

/// Below this, what is left of the deadline is no time to take a last reading in.
const TOO_LATE: Duration = Duration::from_millis(50);

/// How often a measured job's energy counters are read, besides its first and last readings: the
/// counter's increase between those two is the energy whatever lies between, and the reads between
/// only catch a counter reset (NVML's counter call costs about 4 ms of CPU on an H200).
pub const COUNTER_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

/// The deadline of the reading taken when a job that is already measured has ended.
const LAST_CALL: std::time::Duration = std::time::Duration::from_secs(2);

fn run(mut source: Box<dyn GpuSource>, mut opts: Options, hooks: Box<dyn Hooks>, start: Instant, stop: mpsc::Receiver<Ask>) -> Outcome {
    let (mut running, mut samples, mut state): (Running, Vec<Sample>, Option<Sampling>) = (Running::default(), Vec::new(), None);
    let (mut failures, mut gave_up, mut last) = (0usize, false, false);
    let (mut energy_j, mut next) = (0.0, start);
    let mut processes = Processes { job: opts.job.clone(), ..Processes::default() };
    source.counter_every(COUNTER_EVERY);
    loop {
        let (t, read_t, result) = timed(source.as_mut(), start);
        for n in source.take_notices() {
            hooks.warn(&n);
        }
        match result {
            Ok(devices) => {
                processes.look(source.as_mut(), t, last);
                failures = 0;
                state = Some(Sampling::Measured);
                energy_j += step_energy(&samples, &devices, t);
                running.add(t, &devices);
                if opts.live {
                    hooks.live(&live_line(t, &devices, energy_j));
                }
                trace(&mut opts.trace, hooks.as_ref(), t, Ok(&devices));
                samples.push(Sample { t, result: Ok(devices), read_t: Some(read_t) });
                processes.busy(source.as_mut(), samples.len() - 1);
            }
            Err(e @ (SampleError::Missing(_) | SampleError::NoDevices(_))) if state.is_none() => {
                hooks.info(&format!("no GPU found ({e}): only CPU time is measured"));
                state = Some(Sampling::NoGpu(e.to_string()));
                break;
            }
            Err(e) => {
                failures += 1;
                running.gap();
                let what = e.to_string();
                trace(&mut opts.trace, hooks.as_ref(), t, Err(&what));
                if state.is_none() {
                    if failures == 1 {
                        hooks.warn(&format!(
                            "GPU readings failed at start: {what}; trying again every {:.1} s",
                            opts.interval.as_secs_f64()
                        ));
                    }
                } else {
                    samples.push(Sample { t, result: Err(what.clone()), read_t: None });
                }
                if failures >= MAX_FAILURES {
                    hooks.warn(&format!("GPU readings failed {MAX_FAILURES} times in a row ({what}); no further readings are taken"));
                    gave_up = true;
                    if state.is_none() {
                        state = Some(Sampling::NeverStarted(what));
                    }
                    break;
                }
            }
        }
        if last {
            break;
        }
        next += opts.interval;
        if let Some(ended) = stop_asked(&stop, next, source.as_mut(), (start, &mut running)) {
            // One last sample counts the tail. After a call that failed (a hung tool, killed at its
            // deadline) there is none: waiting a second deadline would only hold the job's exit. Nor
            // after one that held the end past most of a deadline (a hung look at the processes).
            if failures > 0 || !ready_last(source.as_mut(), &samples, opts.deadline.saturating_sub(ended.elapsed())) {
                break;
            }
            last = true;
        }
    }
    if let Some(w) = opts.trace.as_mut() {
        let _ = w.flush();
    }
    Outcome {
        samples,
        state: state.unwrap_or_else(|| Sampling::NeverStarted("no reading was taken".into())),
        source: source.describe(),
        fields: source.fields(),
        gave_up,
        kind: source.kind(),
        shared: processes.shared,
        activity: processes.activity,
    }
}

/// Readies the source for the reading taken once the command ended: it reads the energy counter,
/// and a run already measured (two readings) only loses its tail to a slow tool, so that reading
/// gets a short deadline; a shorter run needs it to be measured at all, and keeps the full one.
/// It has what is left of one deadline since the run's end (`left`), so the exit waits one at most; false,
/// and no last reading, when that is too little to take one in.
fn ready_last(source: &mut dyn GpuSource, samples: &[Sample], left: Duration) -> bool {
    if left < TOO_LATE {
        return false;
    }
    source.shorten(left);
    if samples.iter().filter(|s| s.result.is_ok()).count() >= 2 {
        source.shorten(LAST_CALL);
    }
    source.counter_now();
    true
}

/// One reading: when the call began (the reading's time, as the trace and the run's end see it) and
/// its middle (when a counter was read: a tool that takes a while, as amd-smi, a Python program,
/// does, read it somewhere in between, and the middle is the best guess of when).
fn timed(source: &mut dyn GpuSource, start: Instant) -> (f64, f64, Result<Vec<super::Device>, SampleError>) {
    let before = start.elapsed().as_secs_f64();
    let result = source.sample();
    (before, (before + start.elapsed().as_secs_f64()) / 2.0, result)
}

/// The live status line: time, each device's power, and the energy so far.
fn live_line(t: f64, devices: &[super::Device], energy_j: f64) -> String {
    let watts: Vec<String> = devices.iter().map(|d| d.power_w.map_or("n/a".into(), |w| format!("{w:.0} W"))).collect();
    format!("{:>7.1} s  {}  {:.6} kWh", t, watts.join(" "), crate::model::energy::Joules(energy_j).kwh())
}

/// Writes one reading to the trace; a trace that cannot grow (a full disk, the job's own `ulimit -f`, whose
/// SIGXFSZ exa ignores so that the write fails instead) stops growing, said once, and the run goes on.
fn trace(trace: &mut Option<Box<dyn Write + Send>>, hooks: &dyn Hooks, t: f64, r: Result<&Vec<super::Device>, &str>) {
    let Some(w) = trace.as_mut() else { return };
    let unix = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
    let line = match r {
        Ok(devices) => json!({"t": t, "unix": unix, "ok": true, "devices": devices}),
        Err(e) => json!({"t": t, "unix": unix, "ok": false, "error": e}),
    };
    // Each reading is in the file as soon as it is taken: a trace can be followed while the run goes
    // (`tail -f`, a Slurm prolog waiting for the first reading), at one write per reading.
    if let Err(e) = writeln!(w, "{line}").and_then(|()| w.flush()) {
        hooks.warn(&format!("the trace stopped growing at {t:.1} s ({e}): the run is measured on without it"));
        *trace = None;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::sources::gpu::energy::summarize;
    use crate::sources::gpu::fake::{devices, Fake};

    #[derive(Clone, Default)]
    struct Said(Arc<Mutex<Vec<String>>>);

    impl Hooks for Said {
        fn warn(&self, message: &str) {
            self.0.lock().unwrap().push(message.to_string());
        }
    }

    fn sample(source: Fake, run_for: Duration) -> (Outcome, Vec<String>) {
        let said = Said::default();
        let opts = Options {
            interval: Duration::from_millis(20),
            trace: None,
            live: false,
            deadline: Duration::from_secs(10),
            job: JobOf::default(),
        };
        let s = Sampler::start(Box::new(source), opts, Box::new(said.clone()), Instant::now());
        std::thread::sleep(run_for);
        let out = s.finish();
        let words = said.0.lock().unwrap().clone();
        (out, words)
    }

    #[test]
    fn constant_power_integrates_to_power_times_covered_time() {
        let (o, said) = sample(Fake::constant(2, 300.0), Duration::from_millis(150));
        assert_eq!(o.state, Sampling::Measured);
        assert!(said.is_empty(), "{said:?}");
        let d = summarize(&o.samples);
        assert_eq!(d.len(), 2);
        for dev in d {
            let kwh = dev.energy_kwh.unwrap();
            assert!((kwh.joules().0 - 300.0 * dev.covered_s).abs() < 1e-6, "{kwh} kWh over {} s", dev.covered_s);
        }
        assert_eq!(o.source, "fake (in-process)");
    }

    #[test]
    fn no_devices_at_start_is_no_gpu_and_one_reading() {
        let (o, _) = sample(Fake::new(vec![Err(SampleError::NoDevices("none".into()))]), Duration::from_millis(80));
        assert!(matches!(o.state, Sampling::NoGpu(_)));
        assert!(o.samples.is_empty());
    }

    #[test]
    fn five_failures_in_a_row_give_up_and_say_so() {
        let failing = Err(SampleError::Failed("driver gone".into()));
        let script = vec![Ok(devices(1, 100.0)), failing];
        let (o, said) = sample(Fake::new(script), Duration::from_millis(400));
        assert!(o.gave_up);
        assert_eq!(o.samples.iter().filter(|s| s.result.is_err()).count(), MAX_FAILURES);
        assert!(said.iter().any(|w| w.contains("failed 5 times in a row (driver gone)")), "{said:?}");
    }
}
