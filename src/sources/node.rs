//! The node's own power: what the whole platform draws (fans, NICs, disks, the power supplies' loss beside the
//! GPUs, CPUs and memory), read from the ACPI power meter in hwmon or from the BMC over IPMI DCMI.
//!
//! A source answers one reading at a time: watts, or a cumulative energy counter where the platform keeps one
//! (hwmon `energy*_input`). A `Meter` integrates readings into joules, a counter's by its differences (exact) and
//! watts by the trapezoid, and refuses an interval no node could have drawn.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use super::child::{self, RunError};

/// Where the node's power is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeChoice {
    /// hwmon's power meter, else the BMC where its device is there and `ipmitool` on PATH, else none (said).
    Auto,
    /// The ACPI power meter in hwmon.
    Hwmon,
    /// The BMC's DCMI power reading through ipmitool.
    Ipmi,
    /// The BMC's chassis power over Redfish.
    Redfish,
    /// Not read.
    None,
}

impl NodeChoice {
    /// Every choice, in the order the flag lists them.
    pub const ALL: [NodeChoice; 5] = [NodeChoice::Auto, NodeChoice::Hwmon, NodeChoice::Ipmi, NodeChoice::Redfish, NodeChoice::None];

    /// Its name, as the flag takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeChoice::Auto => "auto",
            NodeChoice::Hwmon => "hwmon",
            NodeChoice::Ipmi => "ipmi",
            NodeChoice::Redfish => "redfish",
            NodeChoice::None => "none",
        }
    }
}

impl std::str::FromStr for NodeChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<NodeChoice, String> {
        NodeChoice::ALL.into_iter().find(|c| c.as_str() == s).ok_or_else(|| {
            format!("'{}' is not a node power source: {}", crate::text::clean(s), crate::model::gpu::NODE_CHOICES.join(", "))
        })
    }
}

/// The most a node draws, watts: a reading above it is not a node's (a dense 8-GPU server is some 10 kW).
pub const MOST_NODE_W: f64 = 100_000.0;

/// One reading of the platform.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    /// Watts now (or averaged by the meter over its own short period).
    pub watts: Option<f64>,
    /// A cumulative energy counter, joules.
    pub energy_j: Option<f64>,
}

/// A platform power source.
pub trait NodeSource: Send {
    /// `hwmon`, `ipmi` or `redfish`.
    fn kind(&self) -> &'static str;
    /// Where it reads, for the report.
    fn describe(&self) -> String;
    /// One reading, or why there is none.
    fn read(&mut self) -> Result<Reading, String>;
}

/// The ACPI power meter in hwmon (`name` is `power_meter`): its energy counter (µJ) where it has one, else its
/// average power (µW), else its power now.
struct Hwmon {
    dir: PathBuf,
    energy: Option<PathBuf>,
    power: Option<PathBuf>,
}

fn micro(path: &Path) -> Result<f64, String> {
    let text = crate::files::read_regular_text(path, 64).map_err(|e| format!("{}: {e}", path.display()))?;
    text.trim()
        .parse::<u64>()
        .map(|v| v as f64 / 1e6)
        .map_err(|_| format!("{}: '{}' is not a count", path.display(), crate::text::clean(text.trim())))
}

impl NodeSource for Hwmon {
    fn kind(&self) -> &'static str {
        "hwmon"
    }

    fn describe(&self) -> String {
        format!("hwmon power meter {}", self.dir.display())
    }

    fn read(&mut self) -> Result<Reading, String> {
        let energy_j = self.energy.as_deref().map(micro).transpose()?;
        let watts = match (&self.power, energy_j) {
            (Some(p), None) => Some(micro(p)?),
            _ => None,
        };
        Ok(Reading { watts, energy_j })
    }
}

/// The hwmon power meters under `root`: each folder whose `name` says `power_meter`.
impl NodeSource for super::redfish::Redfish {
    fn kind(&self) -> &'static str {
        "redfish"
    }

    fn describe(&self) -> String {
        super::redfish::Redfish::describe(self)
    }

    fn read(&mut self) -> Result<Reading, String> {
        let w = self.watts()?;
        if w > MOST_NODE_W {
            return Err(format!("the BMC reads {w} W: more than a node draws"));
        }
        Ok(Reading { watts: Some(w), energy_j: None })
    }
}

fn hwmon(root: &Path) -> Option<Hwmon> {
    let base = root.join("sys/class/hwmon");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&base).ok()?.flatten().map(|e| e.path()).collect();
    dirs.sort();
    dirs.into_iter().find_map(|dir| {
        let name = crate::files::read_regular_text(&dir.join("name"), 64).ok()?;
        if !matches!(name.trim(), "power_meter" | "acpi_power_meter") {
            return None;
        }
        let first = |names: &[&str]| names.iter().map(|n| dir.join(n)).find(|p| crate::files::is_regular(p));
        let energy = first(&["energy1_input"]);
        let power = first(&["power1_average", "power1_input"]);
        (energy.is_some() || power.is_some()).then_some(Hwmon { dir, energy, power })
    })
}

/// The BMC's DCMI power reading through `ipmitool dcmi power reading`.
struct Ipmi {
    program: PathBuf,
    deadline: Duration,
}

impl NodeSource for Ipmi {
    fn kind(&self) -> &'static str {
        "ipmi"
    }

    fn describe(&self) -> String {
        format!("{} dcmi power reading", self.program.display())
    }

    fn read(&mut self) -> Result<Reading, String> {
        let done = child::run(&self.program, &["dcmi", "power", "reading"], None, Stdio::null(), self.deadline).map_err(|e| match e {
            RunError::Spawn(e) => format!("cannot run {}: {e}", self.program.display()),
            RunError::Timeout(d) => format!("ipmitool gave no answer within {:.0} s and was killed", d.as_secs_f64()),
            RunError::Output(e) => format!("ipmitool: {e}"),
        })?;
        let text = String::from_utf8_lossy(&done.stdout);
        if !done.status.success() {
            return Err(format!("ipmitool dcmi power reading failed ({})", done.status));
        }
        dcmi_watts(&text).map(|w| Reading { watts: Some(w), energy_j: None })
    }
}

/// The instantaneous watts of ipmitool's DCMI power reading, unless the BMC says its reading is not active.
pub fn dcmi_watts(text: &str) -> Result<f64, String> {
    let value = |label: &str| {
        text.lines().find(|l| l.trim_start().starts_with(label)).and_then(|l| l.split_once(':')).map(|(_, v)| v.trim().to_string())
    };
    if let Some(state) = value("Power reading state is") {
        if state.contains("deactivated") || state.contains("not") {
            return Err(format!("the BMC's power reading is {}", crate::text::clean(&state)));
        }
    }
    let reading = value("Instantaneous power reading").ok_or("ipmitool printed no instantaneous power reading")?;
    let watts = reading.split_whitespace().next().and_then(|w| w.parse::<f64>().ok());
    watts.filter(|w| (0.0..=MOST_NODE_W).contains(w)).ok_or_else(|| format!("'{}' is not a node's power", crate::text::clean(&reading)))
}

/// Opens the source chosen; `root` holds the host's `sys/` and `dev/`, `path` is where programs are looked for.
pub fn open(
    choice: NodeChoice,
    (root, path): (&Path, &[PathBuf]),
    redfish: Option<&super::redfish::Conf>,
    deadline: Duration,
) -> Result<Box<dyn NodeSource>, String> {
    let ipmitool = || path.iter().map(|d| d.join("ipmitool")).find(|p| crate::files::is_executable(p));
    // A BMC device this user may talk to (not merely one that is there: ipmitool would fail at every reading).
    let bmc = ["dev/ipmi0", "dev/ipmi/0", "dev/ipmidev/0"].iter().any(|d| crate::files::may_read_write(&root.join(d)));
    // A BMC answers in well under a second; one that takes longer is not waited on for the tool deadline.
    let deadline = deadline.min(Duration::from_secs(3));
    match choice {
        NodeChoice::None => Err("not read (node source none)".into()),
        NodeChoice::Hwmon => match hwmon(root) {
            Some(h) => Ok(Box::new(h)),
            None => {
                Err(format!("no hwmon power meter under {} (a folder whose name is power_meter)", root.join("sys/class/hwmon").display()))
            }
        },
        NodeChoice::Ipmi => match ipmitool() {
            Some(program) => Ok(Box::new(Ipmi { program, deadline })),
            None => Err("ipmitool is not on PATH".into()),
        },
        NodeChoice::Redfish => match redfish {
            Some(conf) => Ok(Box::new(super::redfish::Redfish::open(conf, deadline)?)),
            None => Err("no Redfish chassis URL is set (EXAMLOPS_REDFISH_URL, or node.redfish_url in the config)".into()),
        },
        // A BMC named by its Redfish URL is what the site set up: it is read, or fails, ahead of ipmitool.
        NodeChoice::Auto => match (hwmon(root), redfish, ipmitool().filter(|_| bmc)) {
            (Some(h), _, _) => Ok(Box::new(h)),
            (None, Some(conf), _) => Ok(Box::new(super::redfish::Redfish::open(conf, deadline)?)),
            (None, None, Some(program)) => Ok(Box::new(Ipmi { program, deadline })),
            (None, None, None) => Err(format!(
                "no platform power meter: no hwmon power_meter under {}, no Redfish URL set, and no BMC device with ipmitool on PATH",
                root.join("sys/class/hwmon").display()
            )),
        },
    }
}

/// The platform's energy from its readings.
#[derive(Debug, Clone, Default)]
pub struct Meter {
    last: Option<(f64, Reading)>,
    /// Joules over the intervals counted.
    pub joules: f64,
    /// The intervals' seconds.
    pub covered_s: f64,
    /// Readings taken.
    pub readings: u64,
    /// Readings that failed (no interval crosses one).
    pub failed: u64,
    /// Intervals left out: one no node could have drawn, a counter that went back.
    pub refused: u64,
    /// The first failure's reason.
    pub notes: Vec<String>,
    /// The mean watts of the last interval counted.
    pub last_w: Option<f64>,
    /// The first and last readings' times, seconds: what the intervals counted should cover.
    pub span: (Option<f64>, f64),
    /// Each interval counted: (from, to, joules), in order; `MOST_PIECES` at most (then `cut`).
    pub pieces: Vec<(f64, f64, f64)>,
    /// Intervals were counted beyond `MOST_PIECES` and not kept one by one.
    pub cut: bool,
    /// Whether intervals are kept one by one at all (a run's meter does; an exporter's, read for days, does not).
    pub keep_pieces: bool,
}

/// The most intervals a meter keeps one by one: two days and more at a reading a second.
pub const MOST_PIECES: usize = 200_000;

impl Meter {
    /// The share of the readings' span the intervals counted cover (failed readings and refused intervals are
    /// gaps); 0 without two readings.
    pub fn covered_share(&self) -> f64 {
        match self.span {
            (Some(a), b) if b > a => (self.covered_s / (b - a)).clamp(0.0, 1.0),
            _ => 0.0,
        }
    }
}

impl Meter {
    /// Adds a reading at `t` seconds (or a failure, which no interval crosses).
    pub fn add(&mut self, t: f64, r: Result<Reading, String>) {
        let r = match r {
            Ok(r) => r,
            Err(why) => {
                self.failed += 1;
                if self.failed == 1 {
                    self.notes.push(format!("a reading failed: {why}"));
                }
                (self.last, self.last_w) = (None, None);
                return;
            }
        };
        self.readings += 1;
        self.span = (self.span.0.or(Some(t)), t);
        if let Some((t0, r0)) = self.last.replace((t, r)) {
            let dt = t - t0;
            let joules = match (r0.energy_j, r.energy_j, r0.watts, r.watts) {
                (Some(e0), Some(e1), ..) => Some(e1 - e0),
                (_, _, Some(w0), Some(w1)) => Some((w0 + w1) / 2.0 * dt),
                _ => None,
            };
            match joules {
                Some(j) if dt > 0.0 && j >= 0.0 && j <= MOST_NODE_W * dt => {
                    if self.pieces.len() < MOST_PIECES && self.keep_pieces {
                        self.pieces.push((t0, t, j));
                    } else {
                        self.cut = true;
                    }
                    self.joules += j;
                    self.covered_s += dt;
                    self.last_w = Some(j / dt);
                }
                Some(_) if dt > 0.0 => (self.refused, self.last_w) = (self.refused + 1, None),
                _ => self.last_w = None,
            }
        }
    }
}

/// Called with the meter after every reading (an exporter's live totals).
pub type OnRead = Box<dyn FnMut(&Meter) + Send>;

/// A thread reading a node source from now until `finish`.
pub struct Sampler {
    stop: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<Metered>,
}

/// What a sampler read.
pub struct Metered {
    /// The energy read.
    pub meter: Meter,
    /// `hwmon`, `ipmi` or `redfish`.
    pub kind: &'static str,
    /// Where it read.
    pub describe: String,
    /// The wall clock's time (seconds since the epoch) at the meter's time 0: its intervals on the clock a trace keeps.
    pub origin_unix: f64,
}

impl Sampler {
    /// Reads now (on its own thread: a slow BMC never holds the caller), then every `every`, and once more at
    /// `finish`; `on_read` sees the meter after each reading.
    pub fn start(mut source: Box<dyn NodeSource>, (every, keep_pieces): (Duration, bool), mut on_read: Option<OnRead>) -> Sampler {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let start = std::time::Instant::now();
        let origin_unix = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
        // A reading is stamped at the middle of its call: a BMC that takes a second answers for somewhere within it.
        let read = move |source: &mut Box<dyn NodeSource>| {
            let before = start.elapsed().as_secs_f64();
            let r = source.read();
            ((before + start.elapsed().as_secs_f64()) / 2.0, r)
        };
        let thread = std::thread::spawn(move || {
            let mut meter = Meter { keep_pieces, ..Meter::default() };
            let (t, first) = read(&mut source);
            meter.add(t, first);
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                let (t, r) = read(&mut source);
                meter.add(t, r);
                if let Some(f) = on_read.as_mut() {
                    f(&meter);
                }
            }
            let (t, last) = read(&mut source);
            meter.add(t, last);
            Metered { meter, kind: source.kind(), describe: source.describe(), origin_unix }
        });
        Sampler { stop, thread }
    }

    /// The last reading, taken now.
    pub fn finish(self) -> Option<Metered> {
        let _ = self.stop.send(());
        self.thread.join().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::{dcmi_watts, Meter, Reading};

    /// ipmitool 1.8.19's `dcmi power reading` (lib/ipmi_dcmi.c's layout).
    const DCMI: &str = "
    Instantaneous power reading:                   214 Watts
    Minimum during sampling period:                  2 Watts
    Maximum during sampling period:                468 Watts
    Average power reading over sample period:      184 Watts
    IPMI timestamp:                           Sun May  5 13:06:44 2024
    Sampling period:                          00000001 Seconds.
    Power reading state is:                   activated
";

    #[test]
    fn a_dcmi_reading_is_its_instantaneous_watts_while_active() {
        assert_eq!(dcmi_watts(DCMI), Ok(214.0));
        let off = DCMI.replace("activated", "deactivated");
        assert_eq!(dcmi_watts(&off), Err("the BMC's power reading is deactivated".into()));
        assert!(dcmi_watts("Error: no response").is_err());
        assert!(dcmi_watts(&DCMI.replace("214", "1e300")).is_err());
    }

    #[test]
    fn watts_integrate_by_the_trapezoid_and_counters_by_difference() {
        let w = |w: f64| Ok(Reading { watts: Some(w), energy_j: None });
        let mut m = Meter::default();
        m.add(0.0, w(100.0));
        m.add(10.0, w(300.0));
        m.add(20.0, Err("gone".into()));
        m.add(30.0, w(300.0));
        m.add(40.0, w(300.0));
        assert_eq!((m.joules, m.covered_s, m.readings, m.failed), (2000.0 + 3000.0, 20.0, 4, 1));
        let e = |j: f64| Ok(Reading { watts: None, energy_j: Some(j) });
        let mut c = Meter::default();
        c.add(0.0, e(1000.0));
        c.add(10.0, e(6000.0));
        c.add(20.0, e(1.0e12)); // 100 GW: no node draws it
        c.add(30.0, e(1.0e12 + 5000.0));
        assert_eq!((c.joules, c.covered_s, c.refused), (10_000.0, 20.0, 1));
    }
}
