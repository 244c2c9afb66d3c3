//! `exa validate`: how far exa's measurement of a run is from a reference's (a wall meter's CSV, a BMC's log, a
//! DCGM export), after their clocks are aligned: the error over windows of several lengths, and over the run.
//!
//! Exa's side is a trace (`measure --trace`): each reading's wall-clock time and each GPU's energy counter (its
//! mean power between two readings) or, without one, its power readings. The reference is CSV with a header: a
//! time column, a power column, and optionally a device column (one GPU's series each, as DCGM exports).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::model::validate::{find_offset, overlap_energy, window_errors, Piece, Series, WindowErrors};
use crate::num::tidy;

/// The largest trace or reference read (a week of 1 s readings of eight GPUs is some 400 MB of trace).
pub const MOST_BYTES: u64 = 512 * 1024 * 1024;

/// The most one GPU can draw, watts: a reading above it is not a GPU's (a board's limit is under 2 kW).
const MOST_GPU_W: f64 = 5_000.0;

/// The most windows of one length compared over a run.
const MOST_WINDOWS: f64 = 1_000_000.0;

/// The most a reference may read, watts: a rack's power, far above any node.
const MOST_REFERENCE_W: f64 = 1.0e6;

/// What was asked.
#[derive(Debug, Clone)]
pub struct Ask<'a> {
    pub trace: &'a Path,
    pub reference: &'a Path,
    /// The reference's clock minus exa's, seconds, when known; else found within `max_offset`.
    pub offset: Option<f64>,
    pub max_offset: f64,
    /// The windows' lengths, seconds.
    pub windows: Vec<f64>,
}

/// The answer.
#[derive(Debug, Clone, Serialize)]
pub struct Validation {
    pub trace: String,
    pub reference: String,
    /// Readings in the trace, and the reference's samples.
    pub trace_readings: usize,
    pub reference_samples: usize,
    /// The reference's clock minus exa's, seconds: found by correlation, or given.
    pub offset_s: f64,
    /// "found" (the offset within ±max that makes the two most alike), "given", "same clock" (the node's meter in the
    /// trace: compared as stamped), or "none" (none could be found: the series are compared as stamped).
    pub offset_from: &'static str,
    /// Pearson's r of the two series at that offset, when it was found.
    pub correlation: Option<f64>,
    /// Each component compared: every GPU together against a whole reference, or one GPU against its own.
    pub components: Vec<Component>,
    pub notes: Vec<String>,
}

/// One component's error.
#[derive(Debug, Clone, Serialize)]
pub struct Component {
    pub name: String,
    /// Over every stretch both cover: exa's energy and the reference's, joules, and the seconds compared.
    pub exa_j: f64,
    pub reference_j: f64,
    pub compared_s: f64,
    /// (exa - reference) / reference over those stretches, percent; null when the reference drew nothing.
    pub bias_pct: Option<f64>,
    /// By window length.
    pub windows: Vec<Windows>,
    /// The two series' mean watts in bins across exa's span, for the page's plot: (seconds from the span's start,
    /// exa's, the reference's at the offset), a side that does not cover a bin left out. Not in the JSON.
    #[serde(skip)]
    pub plot: Vec<(f64, Option<f64>, Option<f64>)>,
}

/// The most bins a component's plot has.
const PLOT_BINS: usize = 600;

/// The two series' mean watts over `PLOT_BINS` bins of exa's span, the reference moved by `offset`.
fn plot(exa: &Series, reference: &Series, offset: f64) -> Vec<(f64, Option<f64>, Option<f64>)> {
    let Some((a, b)) = exa.span().filter(|(a, b)| b > a) else { return Vec::new() };
    let step = (b - a) / PLOT_BINS as f64;
    (0..PLOT_BINS)
        .map(|i| {
            let (x, y) = (a + step * i as f64, a + step * (i + 1) as f64);
            let mean = |s: &Series, shift: f64| s.energy(x + shift, y + shift).map(|e| tidy(e / step));
            (tidy(x - a), mean(exa, 0.0), mean(reference, offset))
        })
        .collect()
}

/// The error over windows of one length.
#[derive(Debug, Clone, Serialize)]
pub struct Windows {
    pub seconds: f64,
    /// Windows both series cover, and those one of them does not (a drop-out, the run's edges) or where the
    /// reference drew nothing (no percentage of nothing).
    pub compared: usize,
    pub skipped: usize,
    /// Mean absolute percentage error of exa's energy against the reference's, the bias over the compared
    /// windows, and the worst window, percent.
    pub mape_pct: Option<f64>,
    pub bias_pct: Option<f64>,
    pub max_abs_pct: Option<f64>,
}

impl From<WindowErrors> for Windows {
    fn from(w: WindowErrors) -> Windows {
        let pct = |v: Option<f64>| v.map(|v| tidy((v * 1e4).round() / 1e4));
        Windows {
            seconds: w.seconds,
            compared: w.compared,
            skipped: w.skipped,
            mape_pct: pct(w.mape_pct),
            bias_pct: pct(w.bias_pct),
            max_abs_pct: pct(w.max_abs_pct),
        }
    }
}

/// Compares the trace with the reference.
pub fn run(ask: &Ask<'_>) -> Result<Validation, Error> {
    let text = |p: &Path, what: &str| {
        crate::files::read_regular_text(p, MOST_BYTES).map_err(|e| Error::Usage(format!("cannot read the {what} {}: {e}", p.display())))
    };
    let mut trace = read_trace(&text(ask.trace, "trace")?, ask.trace)?;
    let mut notes = trace.notes.clone();
    let (reference, reference_samples) = reference_of(ask, trace.node.take(), &mut notes)?;
    // What is compared: each GPU against its own series where the reference has a device column, else all of them.
    let same_clock = matches!(reference, Reference::Node(_));
    let pairs: Vec<(String, &Series, Series)> = match reference {
        Reference::Node(series) => vec![("all GPUs against the node".to_string(), &trace.total, series)],
        Reference::File(reference) => match &reference.by_device {
            None => vec![("all GPUs".to_string(), &trace.total, reference.series(None))],
            Some(devices) => {
                let mut pairs = Vec::new();
                for name in devices.keys() {
                    match trace.device(name) {
                        Some((index, s)) => pairs.push((format!("GPU {index}"), s, reference.series(Some(name)))),
                        None => notes.push(format!("the reference's device '{}' is not in the trace", crate::text::clean(name))),
                    }
                }
                pairs
            }
        },
    };
    let Some((_, first_exa, first_ref)) = pairs.iter().find(|(_, e, r)| !e.is_empty() && !r.is_empty()) else {
        return Err(Error::Refused(format!(
            "{} and {} have no series to compare (no GPU of the trace in the reference, or too few readings)",
            ask.trace.display(),
            ask.reference.display()
        )));
    };
    // Every window compared is read: a length that makes more than a million of them over the run is refused.
    let span = first_exa.span().map_or(0.0, |(a, b)| b - a);
    if let Some(w) = ask.windows.iter().find(|&&w| span / w > MOST_WINDOWS) {
        return Err(Error::Usage(format!(
            "--window {w}: the run's {span:.0} s make more than {MOST_WINDOWS} windows of it; give a longer one"
        )));
    }
    // The node's meter is on exa's own clock: compared as stamped, unless an offset is given.
    let (offset_s, offset_from, correlation) = match (same_clock, ask.offset) {
        (true, None) => (0.0, "same clock", None),
        _ => offset(ask, first_exa, first_ref, &mut notes),
    };
    let round = |v: f64, places: i32| tidy((v * 10f64.powi(places)).round() / 10f64.powi(places));
    let components: Vec<Component> = pairs
        .iter()
        .map(|(name, exa, r)| {
            let (e, rj, seconds) = overlap_energy(exa, r, offset_s);
            Component {
                name: name.clone(),
                exa_j: round(e, 3),
                reference_j: round(rj, 3),
                compared_s: round(seconds, 3),
                bias_pct: (rj > 0.0).then(|| round((e - rj) / rj * 100.0, 4)),
                windows: ask.windows.iter().map(|&w| window_errors(exa, r, offset_s, w).into()).collect(),
                plot: plot(exa, r, offset_s),
            }
        })
        .collect();
    if components.iter().all(|c| c.compared_s <= 0.0) {
        notes.push("the two series share no time once aligned: is the reference from this run?".into());
    }
    Ok(Validation {
        trace: ask.trace.display().to_string(),
        reference: ask.reference.display().to_string(),
        trace_readings: trace.readings,
        reference_samples,
        offset_s: round(offset_s, 3),
        offset_from,
        correlation: correlation.map(|r| round(r, 6)),
        components,
        notes,
    })
}

/// The reference asked for, and its samples' count: the node's meter in the trace, or a file's series.
/// `node` is the trace's node meter, its source and intervals.
fn reference_of(ask: &Ask<'_>, node: Option<(String, Vec<Piece>)>, notes: &mut Vec<String>) -> Result<(Reference, usize), Error> {
    if let Some(source) = node_source(ask.reference) {
        let (series, samples) = node_reference(node, source, ask.trace)?;
        notes.push(format!(
            "the reference is the node's meter ({source}): the whole node, against exa's GPUs; the difference is the rest of the node (CPUs, memory, fans, disks, the supply's loss) as well as either instrument's error"
        ));
        return Ok((Reference::Node(series), samples));
    }
    let text = crate::files::read_regular_text(ask.reference, MOST_BYTES)
        .map_err(|e| Error::Usage(format!("cannot read the reference {}: {e}", ask.reference.display())))?;
    let r = read_reference(&text, ask.reference)?;
    let samples = r.samples;
    Ok((Reference::File(r), samples))
}

/// The clocks' offset: given, or the one found that makes the two most alike (and a note when another fits almost as
/// well, or when none can be found).
fn offset(ask: &Ask<'_>, first_exa: &Series, first_ref: &Series, notes: &mut Vec<String>) -> (f64, &'static str, Option<f64>) {
    match ask.offset {
        Some(o) => (o, "given", None),
        None => {
            let span = first_exa.span().map_or(0.0, |(a, b)| b - a);
            let bin = first_exa.median_step().max(first_ref.median_step()).max(span / 5_000.0).max(1e-3);
            match find_offset(first_exa, first_ref, ask.max_offset, bin) {
                Some(o) => {
                    if let Some(other) = o.runner_up {
                        notes.push(format!(
                            "offsets {:+.3} s and {other:+.3} s fit almost alike (a load that repeats): {:+.3} s was taken; --offset sets the right one",
                            o.seconds, o.seconds
                        ));
                    }
                    (o.seconds, "found", Some(o.correlation))
                }
                None => {
                    notes.push(format!(
                        "no clock offset could be found within ±{} s (the series are flat, or share under ten {bin:.3} s bins): compared as stamped; --offset sets one",
                        ask.max_offset
                    ));
                    (0.0, "none", None)
                }
            }
        }
    }
}

/// A trace's series: each GPU's (by index, with its uuid) and all of them together.
struct Trace {
    readings: usize,
    devices: BTreeMap<u32, (Option<String>, Series)>,
    total: Series,
    /// The node meter's intervals, and its source, where the run read one.
    node: Option<(String, Vec<Piece>)>,
    notes: Vec<String>,
}

impl Trace {
    /// The GPU a reference's device names: its index, or its uuid.
    fn device(&self, name: &str) -> Option<(u32, &Series)> {
        let by_index = name.trim().parse::<u32>().ok().and_then(|i| self.devices.get(&i).map(|(_, s)| (i, s)));
        by_index.or_else(|| {
            let want = name.trim().to_ascii_lowercase();
            self.devices.iter().find_map(|(i, (uuid, s))| {
                let uuid = uuid.as_deref()?.to_ascii_lowercase();
                (uuid == want || uuid.strip_prefix("gpu-") == Some(want.as_str())).then_some((*i, s))
            })
        })
    }
}

#[derive(Deserialize)]
struct Reading {
    unix: Option<f64>,
    #[serde(default)]
    ok: bool,
    #[serde(default)]
    devices: Vec<TracedDevice>,
    /// An interval of the node's meter, added after the GPUs' readings (`measure --node-source`).
    node: Option<NodeInterval>,
}

/// An interval of the node's meter in a trace: its source, from and to (seconds since the epoch), and the joules.
#[derive(Deserialize)]
struct NodeInterval {
    source: String,
    a: f64,
    b: f64,
    j: f64,
}

/// The most a node draws, watts, as the node's meter takes it (`node::MOST_NODE_W`).
const MOST_NODE_W: f64 = crate::sources::node::MOST_NODE_W;

#[derive(Deserialize)]
struct TracedDevice {
    index: u32,
    uuid: Option<String>,
    power_w: Option<f64>,
    energy_counter_j: Option<f64>,
}

/// A reading that worked: its time, and each GPU's watts and energy counter.
type Kept = (f64, BTreeMap<u32, (Option<f64>, Option<f64>)>);

fn read_trace(text: &str, path: &Path) -> Result<Trace, Error> {
    let mut readings = 0;
    // Each reading, None where it failed: no piece crosses it.
    let mut kept: Vec<Option<Kept>> = Vec::new();
    let mut uuids: BTreeMap<u32, Option<String>> = BTreeMap::new();
    let mut node: Option<(String, Vec<Piece>)> = None;
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let bad = |what: &str| Error::Usage(format!("{}:{}: {what}", path.display(), n + 1));
        let r: Reading = serde_json::from_str(line).map_err(|e| bad(&format!("not a reading of exa's trace ({e})")))?;
        if let Some(i) = r.node {
            add_node(&mut node, i).map_err(|why| bad(&why))?;
            continue;
        }
        readings += 1;
        let Some(unix) = r.unix.filter(|t| t.is_finite() && *t > 0.0) else { return Err(bad("a reading without its time (unix)")) };
        if !r.ok {
            kept.push(None);
            continue;
        }
        let mut devices = BTreeMap::new();
        for d in r.devices {
            if let Some(w) = d.power_w.filter(|w| !(0.0..=MOST_GPU_W).contains(w)) {
                return Err(bad(&format!("GPU {} reads {w} W, which no GPU draws", d.index)));
            }
            uuids.entry(d.index).or_insert(d.uuid);
            devices.insert(d.index, (d.power_w, d.energy_counter_j.filter(|j| j.is_finite())));
        }
        kept.push(Some((unix, devices)));
    }
    let mut impossible = 0usize;
    let mut pieces: BTreeMap<u32, Vec<Piece>> = BTreeMap::new();
    let mut total = Vec::new();
    for pair in kept.windows(2) {
        let (Some((a, before)), Some((b, after))) = (&pair[0], &pair[1]) else { continue };
        let (a, b) = (*a, *b);
        if b <= a || before.is_empty() {
            continue;
        }
        // Every GPU's piece, for the total: one GPU without one, or in one reading and not the other, leaves the
        // total a gap there.
        let mut sum = before.keys().eq(after.keys()).then_some((0.0, 0.0));
        for (index, &(w0, e0)) in before {
            let Some(&(w1, e1)) = after.get(index) else {
                sum = None;
                continue;
            };
            let piece = match (e0, e1) {
                // The counter's mean over the interval, unless it moved more than a GPU can draw.
                (Some(e0), Some(e1)) if e1 >= e0 => {
                    let w = (e1 - e0) / (b - a);
                    if w > MOST_GPU_W {
                        impossible += 1;
                        None
                    } else {
                        Some(Piece { a, b, w0: w, w1: w })
                    }
                }
                _ => w0.zip(w1).map(|(w0, w1)| Piece { a, b, w0, w1 }),
            };
            match piece {
                Some(p) => {
                    pieces.entry(*index).or_default().push(p);
                    sum = sum.map(|(s0, s1)| (s0 + p.w0, s1 + p.w1));
                }
                None => sum = None,
            }
        }
        if let Some((w0, w1)) = sum {
            total.push(Piece { a, b, w0, w1 });
        }
    }
    let mut notes = Vec::new();
    if impossible > 0 {
        notes.push(format!("{impossible} interval(s) whose energy counter moved more than a GPU can draw ({MOST_GPU_W} W) were left out"));
    }
    let devices = pieces.into_iter().map(|(i, p)| (i, (uuids.get(&i).cloned().flatten(), Series::new(p)))).collect();
    Ok(Trace { readings, devices, total: Series::new(total), node, notes })
}

/// What the reference is: a file's series, or the node's meter in the trace itself.
enum Reference {
    File(FileReference),
    Node(Series),
}

/// The node meter's source a reference names (`redfish`, `ipmi`, `hwmon`): its intervals in the trace are the
/// reference. A file of that name in the working directory is the file (`./ipmi` names it either way).
fn node_source(reference: &Path) -> Option<&'static str> {
    let name = reference.to_str()?;
    let source = ["redfish", "ipmi", "hwmon"].into_iter().find(|s| *s == name)?;
    (!reference.exists()).then_some(source)
}

/// The node meter's series in the trace, from `source`, and its intervals' count; refused where the run read none, or
/// another.
fn node_reference(node: Option<(String, Vec<Piece>)>, source: &str, path: &Path) -> Result<(Series, usize), Error> {
    match node {
        Some((read, pieces)) if read == source => {
            let n = pieces.len();
            Ok((Series::new(pieces), n))
        }
        Some((read, _)) => Err(Error::Refused(format!(
            "{}'s node readings are from {}, not {source}: --reference {} compares with them",
            path.display(),
            crate::text::clean(&read),
            crate::text::clean(&read)
        ))),
        None => Err(Error::Refused(format!(
            "{} holds no node readings: measure the run with --node-source {source} and --trace to compare with its meter",
            path.display()
        ))),
    }
}

/// Adds a node interval of the trace to the node's series; why not, where no node draws it or another source gave it.
fn add_node(node: &mut Option<(String, Vec<Piece>)>, i: NodeInterval) -> Result<(), String> {
    let w = i.j / (i.b - i.a);
    // An interval longer than a day is no meter's (it reads every second or so).
    if !(i.a.is_finite() && i.b > i.a && i.b - i.a <= 86_400.0 && (0.0..=MOST_NODE_W).contains(&w)) {
        return Err(format!("a node interval of {} J over {} s, which no node draws", i.j, i.b - i.a));
    }
    let (source, pieces) = node.get_or_insert_with(|| (i.source.clone(), Vec::new()));
    if *source != i.source {
        return Err(format!("node intervals from two sources ({} and {})", crate::text::clean(source), crate::text::clean(&i.source)));
    }
    pieces.push(Piece { a: i.a, b: i.b, w0: w, w1: w });
    Ok(())
}

/// A reference file's samples: all of them, or each device's.
struct FileReference {
    samples: usize,
    /// Without a device column, under "".
    by_device: Option<BTreeMap<String, Vec<(f64, f64)>>>,
    all: Vec<(f64, f64)>,
}

impl FileReference {
    fn series(&self, device: Option<&str>) -> Series {
        let samples = match (device, &self.by_device) {
            (Some(d), Some(map)) => map.get(d).map_or(&[][..], Vec::as_slice),
            _ => &self.all,
        };
        // A drop-out: samples more than three of its usual intervals apart.
        let mut steps: Vec<f64> = samples.windows(2).map(|w| w[1].0 - w[0].0).filter(|d| *d > 0.0).collect();
        steps.sort_by(f64::total_cmp);
        let step = steps.get(steps.len() / 2).copied().unwrap_or(0.0);
        Series::from_samples(samples, 3.0 * step)
    }
}

const TIME_NAMES: [&str; 6] = ["time", "timestamp", "unix", "t", "epoch", "date"];
const DEVICE_NAMES: [&str; 6] = ["gpu", "device", "index", "uuid", "gpu_uuid", "gpu_index"];

/// A power column's scale to watts from its name, where it names power: `watts`, `power_w`, `power` (watts),
/// `power_mw` or `milliwatts`, `power_kw` or `kilowatts`, DCGM's `DCGM_FI_DEV_POWER_USAGE`.
fn power_scale(name: &str) -> Option<f64> {
    let n = name.to_ascii_lowercase();
    // Its words: `Power (mW)` is power in milliwatts, as `power_mw` is.
    let words: Vec<&str> = n.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let has = |w: &[&str]| words.iter().any(|x| w.contains(x));
    if !(has(&["watts", "watt", "w", "mw", "kw", "milliwatts", "kilowatts"]) || n.contains("power")) {
        None
    } else if has(&["mw", "milliwatt", "milliwatts"]) {
        Some(1e-3)
    } else if has(&["kw", "kilowatt", "kilowatts"]) {
        Some(1e3)
    } else {
        Some(1.0)
    }
}

/// A CSV line's fields: split at commas outside double quotes, each trimmed and unquoted (`""` inside quotes is one
/// quote).
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut field, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut field).trim().to_string()),
            c => field.push(c),
        }
    }
    out.push(field.trim().to_string());
    out
}

/// The power column among `names`: the only one naming power, else the one of those named exactly as exa prefers.
fn power_column(names: &[String], path: &Path) -> Result<usize, Error> {
    let is_time = |n: &str| TIME_NAMES.contains(&n.to_ascii_lowercase().as_str());
    // A limit, cap or extreme is a setting or a statistic, not the power drawn.
    let setting = |n: &str| {
        let n = n.to_ascii_lowercase();
        n.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| ["limit", "cap", "max", "min", "enforced", "default", "threshold"].contains(&w))
    };
    let candidates: Vec<usize> =
        (0..names.len()).filter(|&i| power_scale(&names[i]).is_some() && !is_time(&names[i]) && !setting(&names[i])).collect();
    let preferred = ["watts", "power_w", "power", "power_mw", "power_kw", "dcgm_fi_dev_power_usage"];
    match candidates.as_slice() {
        [one] => Ok(*one),
        [] => Err(Error::Usage(format!(
            "{}: the header names no power column (watts, power_w, power_mw, power_kw, DCGM_FI_DEV_POWER_USAGE)",
            path.display()
        ))),
        many => many.iter().copied().find(|&i| preferred.contains(&names[i].to_ascii_lowercase().as_str())).ok_or_else(|| {
            let listed: Vec<String> = many.iter().map(|&i| crate::text::clean(&names[i])).collect();
            Error::Usage(format!(
                "{}: the header has several power columns ({}): keep the one to compare, or name it watts",
                path.display(),
                listed.join(", ")
            ))
        }),
    }
}

fn read_reference(text: &str, path: &Path) -> Result<FileReference, Error> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err(Error::Usage(format!("{}: empty; a header and samples are needed", path.display())));
    };
    let names = fields(header);
    let find = |ok: &dyn Fn(&str) -> bool| names.iter().position(|n| ok(n));
    let device = find(&|n| DEVICE_NAMES.contains(&n.to_ascii_lowercase().as_str()));
    let Some(time) = find(&|n| TIME_NAMES.contains(&n.to_ascii_lowercase().as_str())) else {
        return Err(Error::Usage(format!("{}: the header names no time column ({})", path.display(), TIME_NAMES.join(", "))));
    };
    let power = power_column(&names, path)?;
    let scale = power_scale(&names[power]).unwrap_or(1.0);
    let mut all = Vec::new();
    let mut by_device: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for (n, line) in lines {
        let bad = |what: String| Error::Usage(format!("{}:{}: {what}", path.display(), n + 1));
        let cells = fields(line);
        let cell = |i: usize| cells.get(i).map_or("", String::as_str);
        let t = parse_time(cell(time))
            .ok_or_else(|| bad(format!("'{}' is not a time (seconds since the epoch, or RFC 3339)", crate::text::clean(cell(time)))))?;
        let w = cell(power)
            .parse::<f64>()
            .ok()
            .map(|w| w * scale)
            .filter(|w| (0.0..=MOST_REFERENCE_W).contains(w))
            .ok_or_else(|| bad(format!("'{}' is not a power from 0 to {MOST_REFERENCE_W} W", crate::text::clean(cell(power)))))?;
        match device {
            Some(d) => by_device.entry(cell(d).to_string()).or_default().push((t, w)),
            None => all.push((t, w)),
        }
    }
    let samples = all.len() + by_device.values().map(Vec::len).sum::<usize>();
    let sort = |v: &mut Vec<(f64, f64)>| {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v.dedup_by(|a, b| a.0 == b.0);
    };
    sort(&mut all);
    by_device.values_mut().for_each(sort);
    Ok(FileReference { samples, by_device: device.map(|_| by_device), all })
}

/// A time: seconds since the epoch (milliseconds or microseconds where the number is that large), or RFC 3339
/// with its fraction of a second.
fn parse_time(s: &str) -> Option<f64> {
    if let Ok(v) = s.parse::<f64>() {
        let secs = if v > 1e14 {
            v / 1e6
        } else if v > 1e11 {
            v / 1e3
        } else {
            v
        };
        return (secs.is_finite() && secs > 0.0).then_some(secs);
    }
    // The fraction apart: the whole seconds parse as RFC 3339.
    let (whole, fraction) = match s.find('.') {
        Some(dot) => {
            let digits = s[dot + 1..].bytes().take_while(u8::is_ascii_digit).count();
            let fraction: f64 = format!("0.{}", &s[dot + 1..dot + 1 + digits]).parse().ok()?;
            (format!("{}{}", &s[..dot], &s[dot + 1 + digits..]), fraction)
        }
        None => (s.to_string(), 0.0),
    };
    let secs = crate::time::parse_rfc3339(&whole).ok()?;
    #[allow(clippy::cast_precision_loss)]
    Some(secs as f64 + fraction)
}

#[cfg(test)]
mod tests {
    use super::parse_time;

    #[test]
    fn times_read_as_seconds() {
        assert_eq!(parse_time("1796060194.25"), Some(1_796_060_194.25));
        assert_eq!(parse_time("1796060194250"), Some(1_796_060_194.25));
        assert_eq!(parse_time("2026-12-01T00:00:01.5Z"), Some(1_796_083_201.5));
        assert_eq!(parse_time("2026-12-01T01:00:01+01:00"), Some(1_796_083_201.0));
        assert_eq!(parse_time("yesterday"), None);
        assert_eq!(parse_time("-5"), None);
    }
}
