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
//!
//! Where the source says how busy each process kept each device (NVML), each interval's energy of a device is
//! split among the groups the processes work for (`sources::owner`: a Slurm job, a pod, a container, a user),
//! by their SM activity, in whole millijoules that add up to the interval's energy: the part of a busy
//! interval the device would have drawn idle (its idle power, the least mean power of its idle intervals so
//! far, times the interval) and every idle interval go to `idle`. An interval whose activity is not known (the
//! device's query failed, or the driver had no new sample while the device was busy) is split as the one
//! before, or goes to `unknown` when there is none. One series per group per device, kept for
//! `GROUP_KEPT_S` after the group's last activity (any scraper has sent its last value by then), then
//! dropped: a node that ran a thousand jobs today exports the few running lately.

use std::collections::BTreeMap;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::sampler::{Hooks, MAX_FAILURES};
use super::{Device, GpuSource, SampleError};
use crate::model::energy::Joules;
use crate::model::telemetry::Histogram;
use crate::sources::owner::{Group, GroupKind};

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
    /// The whole node's energy since the exporter started, J, and its last interval's watts, when its platform
    /// meter is read.
    pub node: Option<(f64, Option<f64>)>,
    /// The inference server's work beside the energy, when `gpu serve --tokens-from` reads one.
    pub tokens: Option<Tokens>,
    /// Each device's energy split among the groups that kept it busy, by (device, group): only where the source
    /// says each process's activity.
    pub groups: BTreeMap<(u32, Group), Attributed>,
    /// Each device's idle power, W: the least mean power of its intervals no process was busy in, so far.
    idle_w: BTreeMap<u32, f64>,
    /// Each device's last known split (its groups' weights), for an interval whose activity is not known.
    last_weights: BTreeMap<u32, Vec<(Group, f64)>>,
}

/// An inference server's output tokens, read beside the GPUs' energy.
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    /// Tokens the server generated since the exporter started (counted across the server's restarts).
    pub total: f64,
    /// The GPUs' energy over the last interval per token generated in it, J; None when none was (a gap).
    pub j_per_token: Option<f64>,
}

/// How long a group's series stays after the group was last busy, s: Prometheus's staleness window, so a
/// scraper or an OTLP export at any usual interval has sent its last value before it goes.
pub const GROUP_KEPT_S: f64 = 300.0;

/// The shortest idle interval the device's idle power is learnt from, s.
const IDLE_LEARNT_FROM_S: f64 = 0.2;

/// A group's part of a device's energy since the exporter started (or since the group came back).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Attributed {
    /// Its energy, mJ.
    pub millijoules: u64,
    /// When the group was last busy on the device, s since the start.
    last_busy: f64,
}

/// What was said of one device's activity over an interval.
#[derive(Debug, Clone, PartialEq)]
pub enum Said {
    /// The groups busy on it, with their SM activity.
    Busy(Vec<(Group, f64)>),
    /// Nobody: the device answered with no sample and no utilisation.
    Idle,
    /// Not known: the device's query failed, or it had no new sample while busy.
    Unknown,
}

impl Default for Collected {
    fn default() -> Collected {
        Collected::new()
    }
}

impl Collected {
    /// Nothing read yet.
    pub fn new() -> Collected {
        Collected {
            latest: None,
            totals: BTreeMap::new(),
            last_interval: None,
            status: Status::Starting,
            cpu: None,
            node: None,
            tokens: None,
            groups: BTreeMap::new(),
            idle_w: BTreeMap::new(),
            last_weights: BTreeMap::new(),
        }
    }

    /// Energy over all devices since the start; None before any device had energy.
    pub fn total(&self) -> Option<Joules> {
        (!self.totals.is_empty()).then(|| self.totals.values().map(|t| t.energy).sum())
    }

    /// Splits each device's energy over the last interval (`spent`: device, joules, seconds) among the groups
    /// `said` busy on it, in whole millijoules that add up to it; the idle part to `idle`. `t`: now, s since the
    /// start. A group not busy for `GROUP_KEPT_S` is dropped.
    pub fn attribute(&mut self, t: f64, spent: &[(u32, f64, f64)], said: &BTreeMap<u32, Said>) {
        let idle = Group::of(GroupKind::Idle);
        for &(device, joules, seconds) in spent {
            let mj = Joules(joules).whole_millijoules();
            let weights = match said.get(&device) {
                Some(Said::Busy(w)) => {
                    self.last_weights.insert(device, w.clone());
                    w.clone()
                }
                Some(Said::Idle) => {
                    self.last_weights.remove(&device);
                    Vec::new()
                }
                Some(Said::Unknown) | None => {
                    self.last_weights.get(&device).cloned().unwrap_or_else(|| vec![(Group::of(GroupKind::Unknown), 1.0)])
                }
            };
            let weights: Vec<(Group, f64)> = weights.into_iter().filter(|(_, w)| w.is_finite() && *w > 0.0).collect();
            let idle_mj = if weights.is_empty() {
                // A reading of nothing (no power, a refused counter) is no idle power.
                if seconds >= IDLE_LEARNT_FROM_S && joules > 0.0 {
                    let w = joules / seconds;
                    self.idle_w.entry(device).and_modify(|x| *x = x.min(w)).or_insert(w);
                }
                mj
            } else {
                self.idle_w.get(&device).map_or(0, |w| Joules::of_power(*w, seconds).whole_millijoules().min(mj))
            };
            let shares: Vec<f64> = weights.iter().map(|(_, w)| *w).collect();
            let parts = super::split::apportion(mj - idle_mj, &shares).unwrap_or_default();
            for ((g, _), part) in weights.into_iter().zip(parts) {
                let a = self.groups.entry((device, g)).or_default();
                a.millijoules = a.millijoules.saturating_add(part);
                a.last_busy = t;
            }
            let a = self.groups.entry((device, idle.clone())).or_default();
            a.millijoules = a.millijoules.saturating_add(idle_mj);
        }
        self.groups.retain(|(_, g), a| g.kind == GroupKind::Idle || t - a.last_busy < GROUP_KEPT_S);
    }

    /// Adds a reading taken at `t` s after `prev` (the previous good reading and its time). Held to what a GPU can
    /// draw, as a measurement's readings are (`energy::GPU_CEILING_W`): a power reading beyond it is no reading, a
    /// counter that rose faster gives way to the trapezoid, and an interval still beyond it adds nothing. The
    /// devices with such a reading, by index, are returned (each said once by the caller).
    fn add(&mut self, prev: Option<&(f64, Vec<Device>)>, t: f64, now: &[Device]) -> (Vec<u32>, Vec<(u32, f64, f64)>) {
        let mut interval_j = 0.0;
        let mut refused = Vec::new();
        let mut spent = Vec::new();
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
            if let Some((t0, _)) = prev.filter(|_| before.is_some()) {
                spent.push((d.index, joules, t - t0));
            }
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
        (refused, spent)
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
    /// Starts reading `source` every `interval` into `state`; the processes' groups are read under `root` (the
    /// host's `/`, or where a container mounts it).
    pub fn start(
        source: Box<dyn GpuSource>,
        interval: Duration,
        hooks: Box<dyn Hooks>,
        on_reading: Option<OnReading>,
        (state, root): (Arc<Mutex<Collected>>, std::path::PathBuf),
    ) -> Collector {
        let (stop, rx) = mpsc::channel();
        let shared = Arc::clone(&state);
        let handle = std::thread::spawn(move || {
            let mut owners = Owners { root, known: std::collections::HashMap::new(), said_once: false };
            run(source, interval, (hooks.as_ref(), on_reading.as_deref()), (&shared, &mut owners), &rx);
        });
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

/// The groups processes work for, read once per pid while it stays busy (a pid's control group is its job's
/// for its life; a pid not busy at a reading is read again when it is, so a pid reused is not taken for the
/// process before it).
struct Owners {
    root: std::path::PathBuf,
    known: std::collections::HashMap<u32, Group>,
    /// Whether the source has said any activity: from then on, a reading it says none of is not known.
    said_once: bool,
}

impl Owners {
    /// What was said of each device in `devices` at this reading, by group.
    fn said(&mut self, activity: Option<super::ProcessActivity>, devices: &[Device]) -> Option<BTreeMap<u32, Said>> {
        let Some(a) = activity else {
            return self.said_once.then(|| devices.iter().map(|d| (d.index, Said::Unknown)).collect());
        };
        self.said_once = true;
        self.known.retain(|pid, _| a.samples.iter().any(|(_, p, _, _)| p == pid));
        let mut out = BTreeMap::new();
        for d in devices {
            let mut busy: Vec<(Group, f64)> = Vec::new();
            for &(_, pid, sm, _) in a.samples.iter().filter(|s| s.0 == d.index) {
                let g = self.known.entry(pid).or_insert_with(|| crate::sources::owner::group_of(&self.root, pid)).clone();
                match busy.iter_mut().find(|(x, _)| *x == g) {
                    Some(b) => b.1 += sm,
                    None => busy.push((g, sm)),
                }
            }
            let said = if !a.answered.contains(&d.index) {
                Said::Unknown
            } else if busy.iter().any(|(_, w)| *w > 0.0) {
                Said::Busy(busy)
            } else if d.utilization_pct.is_some_and(|u| u > 0.0) {
                // Busy, with no new sample yet (exa reads faster than the driver samples): as the interval before.
                Said::Unknown
            } else {
                Said::Idle
            };
            out.insert(d.index, said);
        }
        Some(out)
    }
}

fn run(
    mut source: Box<dyn GpuSource>,
    interval: Duration,
    (hooks, on_reading): (&dyn Hooks, Option<&ReadingHook>),
    (state, owners): (&Mutex<Collected>, &mut Owners),
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
                let activity = owners.said(source.process_activity(), &devices);
                let mut s = lock(state);
                let (refused, spent) = s.add(prev.as_ref(), t, &devices);
                if let Some(activity) = activity {
                    s.attribute(t, &spent, &activity);
                }
                for gpu in refused {
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

    fn job(id: &str) -> Group {
        Group { kind: GroupKind::SlurmJob, id: id.into() }
    }

    fn mj(s: &Collected, device: u32, g: &Group) -> u64 {
        s.groups.get(&(device, g.clone())).map_or(0, |a| a.millijoules)
    }

    fn busy(list: &[(&Group, f64)]) -> BTreeMap<u32, Said> {
        BTreeMap::from([(0, Said::Busy(list.iter().map(|(g, w)| ((*g).clone(), *w)).collect()))])
    }

    /// Every interval's energy goes to the groups busy in it and idle, to the millijoule; idle power is learnt
    /// from an idle interval and taken out of the busy ones; an interval not known is split as the one before; a
    /// group is dropped once it has not been busy for `GROUP_KEPT_S`.
    #[test]
    fn a_devices_energy_is_split_among_the_groups_busy_on_it_and_adds_up() {
        let (a, b, idle, unknown) = (job("1"), job("2"), Group::of(GroupKind::Idle), Group::of(GroupKind::Unknown));
        let nobody = BTreeMap::from([(0, Said::Idle)]);
        let not_known = BTreeMap::from([(0, Said::Unknown)]);
        let mut s = Collected::new();
        // Not known before anything was said: whose is unknown.
        s.attribute(1.0, &[(0, 500.0, 1.0)], &not_known);
        assert_eq!(mj(&s, 0, &unknown), 500_000);
        // An idle reading of nothing (no power read) teaches no idle power; 100 W for 10 s does.
        s.attribute(2.0, &[(0, 0.0, 1.0)], &nobody);
        s.attribute(12.0, &[(0, 1000.0, 10.0)], &nobody);
        assert_eq!((mj(&s, 0, &idle), mj(&s, 0, &a)), (1_000_000, 0));
        // Busy at 60 : 40 (two of job 1's processes, one of job 2's), 300 W for 10 s: 1 kJ idle, 2 kJ split 60 : 40.
        s.attribute(22.0, &[(0, 3000.0, 10.0)], &busy(&[(&a, 60.0), (&b, 40.0)]));
        assert_eq!((mj(&s, 0, &a), mj(&s, 0, &b), mj(&s, 0, &idle)), (1_200_000, 800_000, 2_000_000));
        // Not known (a failed query, or no new sample while busy): split as the interval before, not idle.
        s.attribute(32.0, &[(0, 3000.0, 10.0)], &not_known);
        assert_eq!((mj(&s, 0, &a), mj(&s, 0, &b), mj(&s, 0, &idle)), (2_400_000, 1_600_000, 3_000_000));
        // An odd interval: the parts still add up to it.
        s.attribute(35.0, &[(0, 1234.5677, 3.0)], &busy(&[(&a, 33.0), (&b, 33.0)]));
        let total: u64 = s.groups.values().map(|x| x.millijoules).sum();
        assert_eq!(total, 500_000 + 1_000_000 + 3_000_000 + 3_000_000 + 1_234_568);
        // Job 2 ends: its series stays GROUP_KEPT_S after its last activity, whatever reads it, then goes.
        s.attribute(35.0 + GROUP_KEPT_S - 1.0, &[(0, 2000.0, 10.0)], &busy(&[(&a, 50.0)]));
        assert!(s.groups.contains_key(&(0, b.clone())));
        s.attribute(35.0 + GROUP_KEPT_S, &[(0, 2000.0, 10.0)], &busy(&[(&a, 50.0)]));
        assert!(!s.groups.contains_key(&(0, b.clone())));
        assert!(s.groups.contains_key(&(0, a.clone())) && s.groups.contains_key(&(0, idle)));
        // A reading with no interval (after a failed one) drops nobody who is busy.
        s.attribute(400.0, &[], &busy(&[(&a, 50.0)]));
        assert!(s.groups.contains_key(&(0, a)));
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
        assert!(s.add(None, 0.0, &a).0.is_empty());
        // A counter that rose 18 TJ in 10 s gives way to the trapezoid; a 5 kW reading is no reading.
        let b = vec![dev(0, Some(300.0), Some(1.8e13)), dev(1, Some(5000.0), None)];
        assert_eq!(s.add(Some(&(0.0, a)), 10.0, &b).0, vec![0, 1]);
        assert_eq!((s.totals[&0].energy, s.totals[&1].energy), (Joules(2000.0), Joules(0.0)));
        assert_eq!(s.totals[&1].power.count, 1, "the 5 kW reading is not in the power histogram");
    }
}
