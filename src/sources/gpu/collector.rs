//! The exporter's collector: reads the GPUs every interval for as long as
//! it runs and keeps only what the metrics need (the latest reading, each
//! device's energy so far, a histogram of power readings), so a
//! long-running exporter holds the same memory on its first day and its
//! hundredth.
//!
//! The failure rules are the spec's: no GPU at the first reading (no tool,
//! no devices) stops collection with one info line; failing at start warns
//! once and retries every interval; a failed reading later observes nothing
//! (no latest reading: the gauges have no point, a gap) and its energy is
//! not integrated; five failures in a row stop collection with one warning,
//! and the gauges stay absent from then on, never repeated as a flat line.

use std::collections::BTreeMap;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::sampler::{Hooks, MAX_FAILURES};
use super::{Device, GpuSource, SampleError};
use crate::model::energy::Joules;
use crate::model::telemetry::Histogram;

/// Upper bounds of the power histogram, W.
pub const POWER_BOUNDS_W: &[f64] = &[25.0, 50.0, 100.0, 150.0, 200.0, 250.0, 300.0, 400.0, 500.0, 600.0, 700.0, 800.0, 1000.0, 1500.0];

/// Where collection stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// No reading yet.
    Starting,
    /// Reading.
    Running,
    /// The host has no GPU to read: why.
    NoGpu(String),
    /// Stopped after failures in a row: the last one.
    GaveUp(String),
}

/// What one device has accumulated since the collector started.
#[derive(Debug, Clone, PartialEq)]
pub struct Totals {
    /// Its name.
    pub name: String,
    /// Its UUID, where the source gives it.
    pub uuid: Option<String>,
    /// Energy since the start, J (counter increments, else the trapezoid between consecutive readings).
    pub energy: Joules,
    /// Its power readings.
    pub power: Histogram,
}

/// What the metrics are made from.
#[derive(Debug, Clone)]
pub struct Collected {
    /// The latest reading, when the latest attempt gave one (else a gap).
    pub latest: Option<Vec<Device>>,
    /// Each device's totals, by index.
    pub totals: BTreeMap<u32, Totals>,
    /// The last interval's energy over all devices, J, and its length, s: the rate of emissions.
    pub last_interval: Option<(Joules, f64)>,
    /// Where collection stands.
    pub status: Status,
    /// The node's CPU and DRAM counters, when a CPU source is read.
    pub cpu: Option<crate::sources::cpu::Live>,
    /// The inference server's work beside the energy, when `gpu serve --tokens-from` reads one.
    pub tokens: Option<Tokens>,
}

/// An inference server's output tokens, read beside the GPUs' energy.
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    /// Tokens the server generated since the exporter started (counted across the server's restarts).
    pub total: f64,
    /// The GPUs' energy over the last interval per token generated in it, J; None when none was (a gap).
    pub j_per_token: Option<f64>,
}

impl Default for Collected {
    fn default() -> Collected {
        Collected::new()
    }
}

impl Collected {
    /// Nothing read yet.
    pub fn new() -> Collected {
        Collected { latest: None, totals: BTreeMap::new(), last_interval: None, status: Status::Starting, cpu: None, tokens: None }
    }

    /// Energy over all devices since the start; None before any device had energy.
    pub fn total(&self) -> Option<Joules> {
        (!self.totals.is_empty()).then(|| self.totals.values().map(|t| t.energy).sum())
    }

    /// Adds a reading taken at `t` s after `prev` (the previous good reading and its time). Held to what a GPU can
    /// draw, as a measurement's readings are (`energy::GPU_CEILING_W`): a power reading beyond it is no reading, a
    /// counter that rose faster gives way to the trapezoid, and an interval still beyond it adds nothing. The
    /// devices with such a reading, by index, are returned (each said once by the caller).
    fn add(&mut self, prev: Option<&(f64, Vec<Device>)>, t: f64, now: &[Device]) -> Vec<u32> {
        let mut interval_j = 0.0;
        let mut refused = Vec::new();
        let most = super::energy::GPU_CEILING_W;
        for d in now {
            let before = prev.and_then(|(_, p)| p.iter().find(|x| x.index == d.index));
            let dt = prev.map_or(0.0, |(t0, _)| t - t0);
            let power = |x: &Device| x.power_w.filter(|w| (0.0..=most).contains(w));
            let (joules, beyond) = before.map_or((0.0, false), |b| super::energy::between(b, d, dt));
            if beyond || d.power_w.is_some_and(|w| power(d) != Some(w)) {
                refused.push(d.index);
            }
            interval_j += joules;
            if d.power_w.is_none() && !self.totals.contains_key(&d.index) {
                // A device with no power reading has no energy, cost or CO2: no totals at all.
                continue;
            }
            let e = self.totals.entry(d.index).or_insert_with(|| Totals {
                name: d.name.clone(),
                uuid: d.uuid.clone(),
                energy: Joules(0.0),
                power: Histogram::new(POWER_BOUNDS_W),
            });
            e.energy = e.energy + Joules(joules);
            if let Some(w) = power(d) {
                e.power.record(w);
            }
        }
        self.last_interval = prev.map(|(t0, _)| (Joules(interval_j), t - t0)).filter(|(_, dt)| *dt > 0.0);
        refused
    }
}

/// A collector thread and the state it keeps.
pub struct Collector {
    /// What the metrics are made from, shared with whoever exports them.
    pub state: Arc<Mutex<Collected>>,
    stop: mpsc::Sender<()>,
    handle: std::thread::JoinHandle<()>,
}

/// Called with each good reading (the OTLP histogram records it).
pub type ReadingHook = dyn Fn(&[Device]) + Send;
/// An owned hook.
pub type OnReading = Box<ReadingHook>;

impl Collector {
    /// Starts reading `source` every `interval` into `state`.
    pub fn start(
        source: Box<dyn GpuSource>,
        interval: Duration,
        hooks: Box<dyn Hooks>,
        on_reading: Option<OnReading>,
        state: Arc<Mutex<Collected>>,
    ) -> Collector {
        let (stop, rx) = mpsc::channel();
        let shared = Arc::clone(&state);
        let handle = std::thread::spawn(move || run(source, interval, hooks.as_ref(), on_reading.as_deref(), &shared, &rx));
        Collector { state, stop, handle }
    }

    /// Stops collecting and waits for the thread.
    pub fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.handle.join();
    }
}

fn lock(state: &Mutex<Collected>) -> std::sync::MutexGuard<'_, Collected> {
    state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn run(
    mut source: Box<dyn GpuSource>,
    interval: Duration,
    hooks: &dyn Hooks,
    on_reading: Option<&ReadingHook>,
    state: &Mutex<Collected>,
    stop: &mpsc::Receiver<()>,
) {
    let start = Instant::now();
    let mut prev: Option<(f64, Vec<Device>)> = None;
    let mut failures = 0;
    let mut started = false;
    let mut next = start;
    let mut said: std::collections::BTreeSet<u32> = std::collections::BTreeSet::new();
    loop {
        let result = source.sample();
        let t = start.elapsed().as_secs_f64();
        for n in source.take_notices() {
            hooks.warn(&n);
        }
        match result {
            Ok(devices) => {
                failures = 0;
                started = true;
                if let Some(f) = on_reading {
                    f(&devices);
                }
                let mut s = lock(state);
                for gpu in s.add(prev.as_ref(), t, &devices) {
                    if said.insert(gpu) {
                        hooks.warn(&format!(
                            "GPU {gpu}: a reading beyond what a GPU can draw ({} W) was not counted as energy (said once per GPU)",
                            super::energy::GPU_CEILING_W
                        ));
                    }
                }
                s.latest = Some(devices.clone());
                s.status = Status::Running;
                prev = Some((t, devices));
            }
            Err(e @ (SampleError::Missing(_) | SampleError::NoDevices(_))) if !started => {
                hooks.info(&format!("no GPU found ({e}): no GPU metrics are exported"));
                lock(state).status = Status::NoGpu(e.to_string());
                return;
            }
            Err(e) => {
                failures += 1;
                let what = e.to_string();
                // Nothing observed for this reading, and the gap is not integrated.
                prev = None;
                {
                    let mut s = lock(state);
                    s.latest = None;
                    s.last_interval = None;
                }
                if !started && failures == 1 {
                    hooks.warn(&format!("GPU readings failed at start: {what}; trying again every {:.1} s", interval.as_secs_f64()));
                }
                if failures >= MAX_FAILURES {
                    hooks.warn(&format!("GPU readings failed {MAX_FAILURES} times in a row ({what}); no further readings are taken"));
                    lock(state).status = Status::GaveUp(what);
                    return;
                }
            }
        }
        next += interval;
        match stop.recv_timeout(next.saturating_duration_since(Instant::now())) {
            Err(RecvTimeoutError::Timeout) => {}
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(index: u32, w: Option<f64>, counter: Option<f64>) -> Device {
        Device { index, name: "g".into(), power_w: w, energy_counter_j: counter.map(crate::model::energy::Joules), ..Device::default() }
    }

    #[test]
    fn energy_by_counter_else_trapezoid_and_none_without_power() {
        let mut s = Collected::new();
        let a = vec![dev(0, Some(100.0), Some(1000.0)), dev(1, Some(100.0), None), dev(2, None, None)];
        s.add(None, 0.0, &a);
        let b = vec![dev(0, Some(100.0), Some(3500.0)), dev(1, Some(300.0), None), dev(2, None, None)];
        s.add(Some(&(0.0, a)), 10.0, &b);
        assert_eq!(s.totals[&0].energy, Joules(2500.0));
        assert_eq!(s.totals[&1].energy, Joules(2000.0));
        assert!(!s.totals.contains_key(&2));
        assert_eq!(s.totals[&1].power.count, 2);
        assert_eq!(s.last_interval, Some((Joules(4500.0), 10.0)));
        assert_eq!(s.total(), Some(Joules(4500.0)));
    }

    #[test]
    fn a_reading_no_gpu_can_make_is_no_energy() {
        let mut s = Collected::new();
        let a = vec![dev(0, Some(100.0), Some(1000.0)), dev(1, Some(100.0), None)];
        assert!(s.add(None, 0.0, &a).is_empty());
        // A counter that rose 18 TJ in 10 s gives way to the trapezoid; a 5 kW reading is no reading.
        let b = vec![dev(0, Some(300.0), Some(1.8e13)), dev(1, Some(5000.0), None)];
        assert_eq!(s.add(Some(&(0.0, a)), 10.0, &b), vec![0, 1]);
        assert_eq!((s.totals[&0].energy, s.totals[&1].energy), (Joules(2000.0), Joules(0.0)));
        assert_eq!(s.totals[&1].power.count, 1, "the 5 kW reading is not in the power histogram");
    }
}
