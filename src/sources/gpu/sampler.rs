//! The sampler owns time: the first sample at once, then one every
//! interval, a last one when told to stop, and giving up after five
//! failures in a row. It runs on its own thread so that a slow or hung
//! `nvidia-smi` never delays noticing that the measured command exited.

use std::io::Write;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::json;

use super::energy::{trapezoid, Sample};
use super::{GpuSource, SampleError};

/// Failures in a row after which sampling stops.
pub const MAX_FAILURES: usize = 5;

/// How sampling ended, or why it never began.
#[derive(Debug, Clone, PartialEq)]
pub enum State {
    /// Readings were taken (some may have failed).
    Measured,
    /// The host has no GPU to read: no tool, or no devices.
    NoGpu(String),
    /// The tool never gave a reading: what it said.
    NeverStarted(String),
}

/// What the sampler tells the person watching, as it happens.
pub trait Hooks: Send {
    fn warn(&self, message: &str);
    /// A live status line (only called when `live` is set).
    fn live(&self, _line: &str) {}
}

pub struct Outcome {
    pub samples: Vec<Sample>,
    pub state: State,
    pub source: String,
    pub fields: &'static str,
    /// True when sampling stopped before the end because of failures.
    pub gave_up: bool,
}

pub struct Sampler {
    stop: Sender<()>,
    handle: JoinHandle<Outcome>,
}

pub struct Options {
    pub interval: Duration,
    pub trace: Option<Box<dyn Write + Send>>,
    pub live: bool,
}

impl Sampler {
    /// Starts sampling `source` now; `start` is time zero of the samples.
    pub fn start(source: Box<dyn GpuSource>, opts: Options, hooks: Box<dyn Hooks>, start: Instant) -> Sampler {
        let (stop, rx) = mpsc::channel();
        let handle = std::thread::spawn(move || run(source, opts, hooks, start, rx));
        Sampler { stop, handle }
    }

    /// Takes a last sample (unless sampling already ended) and returns everything.
    pub fn finish(self) -> Outcome {
        let _ = self.stop.send(());
        self.handle.join().expect("the sampler thread does not panic")
    }
}

fn run(mut source: Box<dyn GpuSource>, mut opts: Options, hooks: Box<dyn Hooks>, start: Instant, stop: mpsc::Receiver<()>) -> Outcome {
    let mut samples: Vec<Sample> = Vec::new();
    let mut failures = 0usize;
    let mut state: Option<State> = None;
    let mut gave_up = false;
    let mut energy_j = 0.0;
    let mut next = start;
    let mut last = false;
    loop {
        let t = start.elapsed().as_secs_f64();
        let result = source.sample();
        for n in source.take_notices() {
            hooks.warn(&n);
        }
        match result {
            Ok(devices) => {
                failures = 0;
                state = Some(State::Measured);
                if let Some(Sample { t: t0, result: Ok(prev) }) = samples.last() {
                    for d in &devices {
                        if let (Some(b), Some(a)) = (d.power_w, prev.iter().find(|p| p.index == d.index).and_then(|p| p.power_w)) {
                            energy_j += trapezoid(a, b, t - t0);
                        }
                    }
                }
                if opts.live {
                    let watts: Vec<String> = devices.iter().map(|d| d.power_w.map_or("n/a".into(), |w| format!("{w:.0} W"))).collect();
                    hooks.live(&format!("{:>7.1} s  {}  {:.6} kWh", t, watts.join(" "), energy_j / super::energy::J_PER_KWH));
                }
                trace(&mut opts.trace, t, Ok(&devices));
                samples.push(Sample { t, result: Ok(devices) });
            }
            Err(e @ (SampleError::Missing(_) | SampleError::NoDevices)) if state.is_none() => {
                state = Some(State::NoGpu(e.to_string()));
                break;
            }
            Err(e) => {
                failures += 1;
                let what = e.to_string();
                trace(&mut opts.trace, t, Err(&what));
                if state.is_none() {
                    if failures == 1 {
                        hooks.warn(&format!(
                            "GPU readings failed at start: {what}; trying again every {:.1} s",
                            opts.interval.as_secs_f64()
                        ));
                    }
                } else {
                    samples.push(Sample { t, result: Err(what.clone()) });
                }
                if failures >= MAX_FAILURES {
                    hooks.warn(&format!("GPU readings failed {MAX_FAILURES} times in a row ({what}); no further readings are taken"));
                    gave_up = true;
                    if state.is_none() {
                        state = Some(State::NeverStarted(what));
                    }
                    break;
                }
            }
        }
        if last {
            break;
        }
        next += opts.interval;
        match stop.recv_timeout(next.saturating_duration_since(Instant::now())) {
            Err(RecvTimeoutError::Timeout) => {}
            // Told to stop (or the owner went away): one last sample counts the tail.
            Ok(()) | Err(RecvTimeoutError::Disconnected) => last = true,
        }
    }
    if let Some(w) = opts.trace.as_mut() {
        let _ = w.flush();
    }
    Outcome {
        samples,
        state: state.unwrap_or_else(|| State::NeverStarted("no reading was taken".into())),
        source: source.describe(),
        fields: source.fields(),
        gave_up,
    }
}

fn trace(w: &mut Option<Box<dyn Write + Send>>, t: f64, r: Result<&Vec<super::Device>, &str>) {
    let Some(w) = w.as_mut() else { return };
    let unix = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
    let line = match r {
        Ok(devices) => json!({"t": t, "unix": unix, "ok": true, "devices": devices}),
        Err(e) => json!({"t": t, "unix": unix, "ok": false, "error": e}),
    };
    let _ = writeln!(w, "{line}");
}
