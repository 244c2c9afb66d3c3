//! CPU and memory energy behind a seam: `CpuSource`, read from the Linux
//! powercap tree (RAPL) or the perf `power` PMU.
//!
//! A source names its counters once (`zones`) and reads them (`read`); the
//! `Meter` here owns the arithmetic: a counter that went backwards wrapped
//! at its zone's range, a zone that stops answering is said, never a zero.
//! Nothing here reads the environment or `Settings`: the host root (where
//! `sys/` and `proc/` are) is given.

pub mod perf;
pub mod powercap;
pub mod share;

use std::path::Path;

use crate::model::energy::Joules;

/// The longest wait between two readings of the CPU counters: an AMD package counter at 360 W wraps in
/// about three minutes, and one wrap between readings is all a reader can tell apart.
pub const LONGEST_WAIT_S: f64 = 10.0;

/// What a counter measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A CPU package (socket): cores, caches, uncore.
    Package,
    /// The memory attached to a package.
    Dram,
}

impl Kind {
    /// Its name in reports: `package`, `dram`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Package => "package",
            Kind::Dram => "dram",
        }
    }
}

/// One energy counter.
#[derive(Debug, Clone, PartialEq)]
pub struct Zone {
    /// Where it is read: `intel-rapl:0`, `power/energy-pkg on CPU 0`.
    pub id: String,
    /// Its own name: `package-0`, `dram`.
    pub name: String,
    /// What it measures.
    pub kind: Kind,
    /// The counter wraps to 0 after this many µJ; None: it does not wrap (perf's 64-bit count).
    pub range_uj: Option<u64>,
}

/// Why a CPU source cannot be read.
#[derive(Debug, Clone, PartialEq)]
pub enum CpuError {
    /// No RAPL counters on this host (a VM, a container without the tree, another architecture).
    Missing(String),
    /// The counters are there but this user may not read them: what was refused, and how to grant it.
    NoAccess(String),
    /// Read, but not understood.
    Failed(String),
}

impl std::fmt::Display for CpuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CpuError::Missing(why) | CpuError::NoAccess(why) | CpuError::Failed(why) => f.write_str(why),
        }
    }
}

/// A source of CPU energy counters. Implementations never invent a value.
pub trait CpuSource: Send {
    /// Which source it is, for scripts: `powercap` or `perf`.
    fn kind(&self) -> &'static str;
    /// The counters it reads, in the order `read` answers.
    fn zones(&self) -> &[Zone];
    /// Every counter now, in µJ; None for one that could not be read this time.
    fn read(&mut self) -> Vec<Option<u64>>;
    /// What it left out and why (a duplicate MMIO zone, a mirrored package, psys), said once.
    fn notes(&self) -> Vec<String>;
}

/// Which CPU source to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuChoice {
    /// powercap, else perf, else none (with the reason).
    Auto,
    /// `sys/class/powercap` (root, or a granted `energy_uj`).
    Powercap,
    /// The perf `power` PMU (CAP_PERFMON, or a low `perf_event_paranoid`).
    Perf,
    /// Do not read CPU energy: the CPU-hours estimate, said so.
    None,
}

impl std::str::FromStr for CpuChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        CpuChoice::ALL.into_iter().find(|c| c.as_str() == s).ok_or_else(|| {
            let names = crate::model::gpu::CPU_CHOICES;
            let (last, rest) = names.split_last().unwrap_or((&"", &[]));
            format!("'{}' is not a CPU source: {} or {last}", crate::text::clean(s), rest.join(", "))
        })
    }
}

impl CpuChoice {
    /// Every choice, in the order `CPU_CHOICES` names them.
    pub const ALL: [CpuChoice; 4] = [CpuChoice::Auto, CpuChoice::Powercap, CpuChoice::Perf, CpuChoice::None];

    /// Its name, as the flag takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            CpuChoice::Auto => "auto",
            CpuChoice::Powercap => "powercap",
            CpuChoice::Perf => "perf",
            CpuChoice::None => "none",
        }
    }
}

/// The source `choice` names under the host root `root`; `auto` tries powercap, then perf. The error of
/// the last tried, with what the others said before it; a refusal says once how to grant access.
pub fn open(choice: CpuChoice, root: &Path) -> Result<Box<dyn CpuSource>, CpuError> {
    opened(choice, root).map_err(|e| match e {
        CpuError::NoAccess(why) => CpuError::NoAccess(format!("{why}: {}", powercap::GRANT)),
        other => other,
    })
}

fn opened(choice: CpuChoice, root: &Path) -> Result<Box<dyn CpuSource>, CpuError> {
    match choice {
        CpuChoice::None => Err(CpuError::Missing("the CPU source is none (--cpu-source none)".into())),
        CpuChoice::Powercap => powercap::Powercap::open(root).map(|s| Box::new(s) as Box<dyn CpuSource>),
        CpuChoice::Perf => perf::Perf::open(root).map(|s| Box::new(s) as Box<dyn CpuSource>),
        CpuChoice::Auto => match powercap::Powercap::open(root) {
            Ok(s) => Ok(Box::new(s)),
            Err(first) => match perf::Perf::open(root) {
                Ok(s) => Ok(Box::new(s)),
                // Missing both: say powercap's reason; one refused, the other missing: say the refusal.
                Err(CpuError::Missing(_)) => Err(first),
                Err(second) if matches!(first, CpuError::NoAccess(_)) => Err(CpuError::NoAccess(format!("{first}; and {second}"))),
                Err(second) => Err(second),
            },
        },
    }
}

/// The most a zone of this kind can draw, W: no CPU package made draws 1 kW (the largest are rated
/// 500 W), nor a socket's memory 500 W (twelve channels of two DIMMs at 15 W is 360 W). An increase
/// beyond this over its interval is no reading of the hardware.
pub fn ceiling_w(kind: Kind) -> f64 {
    match kind {
        Kind::Package => 1000.0,
        Kind::Dram => 500.0,
    }
}

/// The longest a reader of `zones` may wait between readings: half the time the smallest counter takes to wrap
/// at its zone's ceiling (`ceiling_w`), so no wrap goes unseen, and `LONGEST_WAIT_S` at most (a 300 J range,
/// which a 55 W package wraps every 5.5 s, is read every 0.15 s; the common 262 kJ one every 10 s).
pub fn longest_wait_s(zones: &[Zone]) -> f64 {
    zones.iter().filter_map(|z| z.range_uj.map(|r| r as f64 / 1e6 / ceiling_w(z.kind) / 2.0)).fold(LONGEST_WAIT_S, f64::min).max(0.05)
}

/// Below this span a counter that has not moved may just not have updated yet (RAPL updates every
/// millisecond or so; a run of a second that reads 0 J did not run on this CPU).
const STILL_S: f64 = 1.0;

/// Per zone, the energy counted since the first reading, with the counters' traps handled.
pub struct Meter {
    zones: Vec<Zone>,
    last: Vec<Option<u64>>,
    /// When each zone was last read, s since the first reading.
    last_t: Vec<f64>,
    total_uj: Vec<f64>,
    wraps: Vec<u32>,
    /// Zones that stopped answering (by index), said once each.
    lost: Vec<bool>,
    /// Why a zone's figure is not a measurement (an increase its hardware cannot make), by index.
    refused: Vec<Option<String>>,
    /// The span read, s.
    span_s: f64,
    notes: Vec<String>,
}

impl Meter {
    /// Starts from the first reading.
    pub fn new(zones: Vec<Zone>, first: Vec<Option<u64>>) -> Meter {
        let n = zones.len();
        Meter {
            zones,
            last: first,
            last_t: vec![0.0; n],
            total_uj: vec![0.0; n],
            wraps: vec![0; n],
            lost: vec![false; n],
            refused: vec![None; n],
            span_s: 0.0,
            notes: Vec::new(),
        }
    }

    /// Adds a later reading, taken `at_s` seconds after the first: a counter below its last value wrapped at
    /// its zone's range (once: the reader reads more often than the shortest wrap time); a zone without a
    /// range that went backwards was reset, and that interval is not counted. A zone that does not answer
    /// keeps its last value. An increase beyond what the zone can draw over the interval (`ceiling_w`) is
    /// not counted, and the zone's figure is refused: never kept as a measurement.
    pub fn add(&mut self, now: &[Option<u64>], at_s: f64) {
        self.span_s = self.span_s.max(at_s);
        for (i, v) in now.iter().enumerate().take(self.zones.len()) {
            let Some(v) = *v else {
                if !self.lost[i] {
                    self.lost[i] = true;
                    self.notes
                        .push(format!("{} ({}) stopped answering at a reading: its energy is counted over the readings it answered, a gap taken as at most one wrap", self.zones[i].id, self.zones[i].name));
                }
                continue;
            };
            let dt = at_s - self.last_t[i];
            match self.last[i] {
                Some(last) if v >= last => self.count(i, (v - last) as f64, dt, false),
                Some(last) => match self.zones[i].range_uj.filter(|r| *r >= last) {
                    Some(range) => self.count(i, (range - last).saturating_add(v) as f64, dt, true),
                    None => self.notes.push(match self.zones[i].range_uj {
                        Some(r) => format!(
                            "{} ({}) went back from {last} to {v} µJ, above its range of {r}: not a wrap, that interval not counted",
                            self.zones[i].id, self.zones[i].name
                        ),
                        None => format!(
                            "{} ({}) went back from {last} to {v} µJ with no known range: a reset, that interval not counted",
                            self.zones[i].id, self.zones[i].name
                        ),
                    }),
                },
                None => {}
            }
            self.last[i] = Some(v);
            self.last_t[i] = at_s;
        }
    }

    /// Counts an increase of `uj` over `dt` seconds into zone `i`, when its hardware could have made it.
    fn count(&mut self, i: usize, uj: f64, dt: f64, wrapped: bool) {
        let z = &self.zones[i];
        // A reading's time is taken beside it, not with it, and a counter may lag its power (the firmware
        // updates it every millisecond or so, a hypervisor less often): a second's slack. What is refused is
        // a jump no CPU makes, not a busy moment.
        let most = ceiling_w(z.kind) * (dt.max(0.0) + 1.0);
        if uj / 1e6 > most {
            if self.refused[i].is_none() {
                self.refused[i] = Some(format!(
                    "{} ({}) rose {} J in {dt:.3} s, more than it can draw ({} W): not a reading of the hardware",
                    z.id,
                    z.name,
                    crate::num::tidy(uj / 1e6),
                    ceiling_w(z.kind)
                ));
            }
            return;
        }
        self.total_uj[i] += uj;
        if wrapped {
            self.wraps[i] += 1;
        }
    }

    /// Why the figures of `kind` are no measurement: a zone rose more than its hardware can draw, or never
    /// moved over a run long enough to (a counter stuck, or not this machine's). Empty when they are.
    pub fn refusals(&self, kind: Kind) -> Vec<String> {
        let mut out = Vec::new();
        for (i, z) in self.zones.iter().enumerate().filter(|(_, z)| z.kind == kind) {
            if let Some(why) = &self.refused[i] {
                out.push(why.clone());
            } else if self.total_uj[i] == 0.0 && self.last_t[i] >= STILL_S {
                out.push(format!("{} ({}) never moved in {:.1} s: a counter that is not counting", z.id, z.name, self.last_t[i]));
            }
        }
        out
    }

    /// Joules of every zone of `kind`; None when there is no such zone.
    pub fn joules(&self, kind: Kind) -> Option<f64> {
        let mut any = false;
        let mut sum = 0.0;
        for (z, t) in self.zones.iter().zip(&self.total_uj) {
            if z.kind == kind {
                any = true;
                sum += t / 1e6;
            }
        }
        any.then_some(sum)
    }

    /// How many times any counter wrapped.
    pub fn wraps(&self) -> u32 {
        self.wraps.iter().sum()
    }

    /// The counters metered.
    pub fn zones(&self) -> &[Zone] {
        &self.zones
    }

    /// What happened to the counters on the way (a wrap without a range, a zone lost).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }
}

/// What an exporter shows of the CPU counters: the node's energy so far and its last interval's power.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Live {
    /// Package energy since the start.
    pub package: Joules,
    /// DRAM energy since the start; None without a DRAM counter.
    pub dram: Option<Joules>,
    /// The last interval's package power, W.
    pub package_w: Option<f64>,
    /// The last interval's DRAM power, W.
    pub dram_w: Option<f64>,
    /// When the totals were last read, s since the start; None before the first reading.
    pub at_s: Option<f64>,
}

impl Live {
    /// The meter's totals read `at_s` seconds after the start, with the power since the last reading.
    pub fn update(&mut self, m: &Meter, at_s: f64) {
        let (pkg, dram) = (Joules(m.joules(Kind::Package).unwrap_or(0.0)), m.joules(Kind::Dram).map(Joules));
        if let Some(dt) = self.at_s.map(|t| at_s - t).filter(|dt| *dt > 0.0) {
            self.package_w = Some((pkg - self.package).0 / dt);
            self.dram_w = dram.zip(self.dram).map(|(now, was)| (now - was).0 / dt);
        }
        self.package = pkg;
        self.dram = dram;
        self.at_s = Some(at_s);
    }
}

/// The node's package and DRAM energy since the first reading, J: None where there is no such counter, or
/// where a counter rose more than its hardware can draw (never a measurement).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Now {
    /// The packages' energy so far.
    pub package_j: Option<f64>,
    /// The DRAM's energy so far.
    pub dram_j: Option<f64>,
}

impl Now {
    fn of(m: &Meter) -> Now {
        let read = |kind| m.joules(kind).filter(|_| m.refusals(kind).is_empty());
        Now { package_j: read(Kind::Package), dram_j: read(Kind::Dram) }
    }
}

/// Called with the meter after every reading (an exporter's live totals).
pub type OnRead = Box<dyn FnMut(&Meter) + Send>;

/// A thread that reads a CPU source from now until `finish`, often enough for its counters' wrap.
pub struct Sampler {
    stop: std::sync::mpsc::Sender<Option<std::sync::mpsc::SyncSender<Now>>>,
    thread: std::thread::JoinHandle<Metered>,
}

/// What a sampler read: the meter, the node's busy CPU seconds over the same span (when readable),
/// and the source's own notes.
pub struct Metered {
    /// The counters' energy over the span.
    pub meter: Meter,
    /// Which source read them.
    pub kind: &'static str,
    /// The node's busy CPU seconds over the same span; None when `proc/stat` could not be read.
    pub busy_s: Option<f64>,
    /// What the source left out, and why.
    pub notes: Vec<String>,
}

impl Sampler {
    /// Reads now, then every `every`; the node's busy time is read with the first and last readings.
    pub fn start(
        mut source: Box<dyn CpuSource>,
        every: std::time::Duration,
        root: std::path::PathBuf,
        mut on_read: Option<OnRead>,
    ) -> Sampler {
        let (stop, stopped) = std::sync::mpsc::channel::<Option<std::sync::mpsc::SyncSender<Now>>>();
        // As often as the counters' ranges need, whatever the caller asked.
        let every = every.min(std::time::Duration::from_secs_f64(longest_wait_s(source.zones())));
        let busy0 = share::node_busy_s(&root);
        let first = source.read();
        let thread = std::thread::spawn(move || {
            let mut meter = Meter::new(source.zones().to_vec(), first);
            if let Some(f) = on_read.as_mut() {
                f(&meter);
            }
            let start = std::time::Instant::now();
            let mut next = start + every;
            loop {
                match stopped.recv_timeout(next.saturating_duration_since(std::time::Instant::now())) {
                    // Asked for the energy so far (a window's edge): read now, and keep the interval's time.
                    // The interval's own reading is never put off by them.
                    Ok(Some(reply)) => {
                        meter.add(&source.read(), start.elapsed().as_secs_f64());
                        let _ = reply.send(Now::of(&meter));
                        if std::time::Instant::now() < next {
                            continue;
                        }
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                    Ok(None) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                }
                next += every;
                meter.add(&source.read(), start.elapsed().as_secs_f64());
                if let Some(f) = on_read.as_mut() {
                    f(&meter);
                }
            }
            meter.add(&source.read(), start.elapsed().as_secs_f64());
            let busy_s = busy0.zip(share::node_busy_s(&root)).map(|(a, b)| b - a);
            Metered { meter, kind: source.kind(), busy_s, notes: source.notes() }
        });
        Sampler { stop, thread }
    }

    /// Reads the counters now and answers the node's energy so far, within `deadline`.
    pub fn read_now(&self, deadline: std::time::Duration) -> Result<Now, String> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.stop.send(Some(tx)).map_err(|_| "the CPU counters are no longer read".to_string())?;
        rx.recv_timeout(deadline).map_err(|_| format!("the CPU counters did not answer within {:.1} s", deadline.as_secs_f64()))
    }

    /// The last reading, taken now.
    pub fn finish(self) -> Option<Metered> {
        let _ = self.stop.send(None);
        self.thread.join().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::{CpuChoice, Kind, Meter, Zone};

    #[test]
    fn the_choices_are_the_names_the_flag_takes() {
        let names: Vec<&str> = CpuChoice::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(names, crate::model::gpu::CPU_CHOICES);
        for c in CpuChoice::ALL {
            assert_eq!(c.as_str().parse::<CpuChoice>(), Ok(c));
        }
        assert_eq!("rapl".parse::<CpuChoice>().unwrap_err(), "'rapl' is not a CPU source: auto, powercap, perf or none");
    }

    fn zone(kind: Kind, range: Option<u64>) -> Zone {
        Zone { id: "z".into(), name: "package-0".into(), kind, range_uj: range }
    }

    #[test]
    fn a_counter_that_wraps_counts_what_it_ran_past_its_range() {
        let mut m = Meter::new(
            vec![zone(Kind::Package, Some(65_532_610_987)), zone(Kind::Dram, Some(1_000))],
            vec![Some(65_532_000_000), Some(900)],
        );
        m.add(&[Some(389_013), Some(100)], 1.0);
        // 610,987 to the range, then 389,013 past 0: exactly 1 J; the DRAM counter wraps on its own range.
        assert_eq!(m.joules(Kind::Package), Some(1.0));
        assert_eq!(m.joules(Kind::Dram), Some(200.0 / 1e6));
        assert_eq!(m.wraps(), 2);
        m.add(&[None, Some(300)], 2.0);
        m.add(&[Some(2_389_013), Some(400)], 3.0);
        assert_eq!(m.joules(Kind::Package), Some(3.0), "a missed reading keeps the last value");
        assert_eq!(m.notes().len(), 1, "{:?}", m.notes());
    }

    #[test]
    fn a_counter_without_a_range_that_goes_back_is_not_counted_as_negative() {
        let mut m = Meter::new(vec![zone(Kind::Package, None)], vec![Some(5_000_000)]);
        m.add(&[Some(1_000_000)], 1.0);
        m.add(&[Some(3_000_000)], 2.0);
        assert_eq!(m.joules(Kind::Package), Some(2.0));
        assert!(m.notes()[0].contains("reset"), "{:?}", m.notes());
        assert_eq!(m.joules(Kind::Dram), None, "no DRAM zone: not measured, not 0");
    }

    #[test]
    fn an_increase_no_cpu_can_make_is_refused_and_never_counted() {
        // A read of 18446744073709551000 µJ 0.3 s after 1 J: 18 TJ, where a package draws at most 1 kW.
        let mut m = Meter::new(vec![zone(Kind::Package, Some(u64::MAX)), zone(Kind::Dram, Some(1 << 40))], vec![Some(1_000_000), Some(0)]);
        m.add(&[Some(18_446_744_073_709_551_000), Some(30_000_000)], 0.3);
        assert_eq!(m.joules(Kind::Package), Some(0.0), "the impossible interval is not counted");
        let why = m.refusals(Kind::Package);
        assert!(why.len() == 1 && why[0].contains("more than it can draw (1000 W)"), "{why:?}");
        assert!(m.refusals(Kind::Dram).is_empty(), "30 J in 0.3 s is 100 W of memory: {:?}", m.refusals(Kind::Dram));
        // A wrap's arithmetic that comes out too large is refused alike.
        let mut w = Meter::new(vec![zone(Kind::Package, Some(u64::MAX))], vec![Some(5)]);
        w.add(&[Some(1)], 1.0);
        assert_eq!(w.refusals(Kind::Package).len(), 1);
    }

    #[test]
    fn counters_are_read_as_often_as_their_ranges_need() {
        assert_eq!(super::longest_wait_s(&[zone(Kind::Package, Some(262_143_328_850))]), super::LONGEST_WAIT_S);
        assert_eq!(super::longest_wait_s(&[zone(Kind::Package, Some(300_000_000)), zone(Kind::Dram, None)]), 0.15);
        assert_eq!(super::longest_wait_s(&[zone(Kind::Dram, Some(1_000))]), 0.05, "never more often than 20 times a second");
    }

    #[test]
    fn a_counter_that_never_moves_over_a_second_is_no_measurement() {
        let mut m = Meter::new(vec![zone(Kind::Package, Some(1 << 40))], vec![Some(7)]);
        m.add(&[Some(7)], 0.5);
        assert!(m.refusals(Kind::Package).is_empty(), "half a second is too short to tell");
        m.add(&[Some(7)], 10.0);
        assert!(m.refusals(Kind::Package)[0].contains("never moved in 10.0 s"), "{:?}", m.refusals(Kind::Package));
    }
}
