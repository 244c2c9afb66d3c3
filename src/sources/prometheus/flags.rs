//! The six flag kinds, each with the rule that fires it, from a node's readings.

use serde::Serialize;
use serde_json::{json, Value};

use super::read::{Episode, GpuData, NodeData};
use super::{Series, Window};
use crate::time::iso8601;

/// The counters comm_errors judges: (field, its name in the evidence).
const COMM_COUNTERS: [(&str, &str); 7] = [
    ("errors.link_crc", "link_crc"),
    ("errors.link_replay", "link_replay"),
    ("errors.link_recovery", "link_recovery"),
    ("errors.pcie_replay", "pcie_replay"),
    ("errors.pcie_recovery", "pcie_recovery"),
    ("errors.ecc_dbe", "ecc_dbe"),
    ("errors.xid", "xid"),
];

pub use super::catalog::{HOLD_S, HOT_C};

/// Whether a flag's span was cut by the window's edges.
#[derive(Debug, Clone, Serialize)]
pub struct Clipped {
    /// Cut at the window's start.
    pub start: bool,
    /// Cut at the window's end.
    pub end: bool,
}

/// The health episode a flag falls in.
#[derive(Debug, Clone, Serialize)]
pub struct EpisodeBounds {
    /// When it began, UTC.
    pub from: String,
    /// When it ended; `None` while it goes on.
    pub to: Option<String>,
}

/// A fired flag: the rule, where, when, and the evidence.
#[derive(Debug, Clone, Serialize)]
pub struct Flag {
    /// thermal_throttle, power_cap, utilization_collapse, comm_errors, memory_pressure or host_pressure.
    pub kind: &'static str,
    /// warn or high.
    pub severity: &'static str,
    /// The node.
    pub node: String,
    /// The GPU, for a GPU flag.
    pub gpu: Option<String>,
    /// How long it held, minutes.
    pub minutes: u64,
    /// When it began, UTC.
    pub from: String,
    /// When it ended, UTC.
    pub to: String,
    /// Whether the window cut it.
    pub clipped: Clipped,
    /// The health episode it falls in.
    pub episode: Option<EpisodeBounds>,
    /// The readings that fired it.
    pub evidence: Value,
    /// One sentence for a person.
    pub summary: String,
}

/// Runs of consecutive buckets where `pred` holds: (first, last) indexes.
fn runs(s: &Series, pred: impl Fn(f64) -> bool) -> Vec<(usize, usize)> {
    let Some(values) = &s.values else { return Vec::new() };
    let mut out = Vec::new();
    let mut start = None;
    for (i, v) in values.iter().enumerate() {
        match (v.is_some_and(&pred), start) {
            (true, None) => start = Some(i),
            (false, Some(a)) => {
                out.push((a, i - 1));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(a) = start {
        out.push((a, values.len() - 1));
    }
    out
}

/// The longest run lasting at least `min_s`, as (first, last, seconds).
fn longest(s: &Series, w: &Window, min_s: i64, pred: impl Fn(f64) -> bool) -> Option<(usize, usize, i64)> {
    runs(s, pred).into_iter().map(|(a, b)| (a, b, (b - a + 1) as i64 * w.step_s)).filter(|r| r.2 >= min_s).max_by_key(|r| r.2)
}

fn hhmm(t: i64) -> String {
    iso8601(t)[11..16].to_string()
}

struct Ctx<'a> {
    node: &'a NodeData,
    w: &'a Window,
    reference: Option<f64>,
}

impl Ctx<'_> {
    fn episode(&self, kind: &str, from: i64, to: i64) -> Option<&Episode> {
        self.node.episodes.iter().find(|e| e.kind == kind && e.started <= to && e.ended.is_none_or(|end| end >= from))
    }

    #[allow(clippy::too_many_arguments)]
    fn flag(
        &self,
        kind: &'static str,
        severity: &'static str,
        gpu: Option<&str>,
        span: (i64, i64),
        clipped: (bool, bool),
        evidence: Value,
        summary: String,
        episode_kind: &str,
    ) -> Flag {
        let ep = self.episode(episode_kind, span.0, span.1);
        let mut summary = summary;
        if let Some(e) = ep {
            if e.started < self.w.start {
                summary.push_str(&format!("; the episode began {} UTC, before the window", hhmm(e.started)));
            }
        }
        Flag {
            kind,
            severity,
            node: self.node.name.clone(),
            gpu: gpu.map(str::to_string),
            minutes: ((span.1 - span.0) as f64 / 60.0).round() as u64,
            from: iso8601(span.0),
            to: iso8601(span.1),
            clipped: Clipped { start: clipped.0, end: clipped.1 },
            episode: ep.map(|e| EpisodeBounds { from: iso8601(e.started), to: e.ended.map(iso8601) }),
            evidence,
            summary,
        }
    }

    /// The span of a counter-based flag: from the first to the last bucket in
    /// which any of `fields` rose; the whole window where no bucket was read.
    fn rose(&self, g: &Gpu, fields: &[&str]) -> ((i64, i64), (bool, bool)) {
        let mut rose = fields
            .iter()
            .filter_map(|f| g.d.spans.get(f))
            .filter_map(|s| s.values.as_ref())
            .flat_map(|v| v.iter().enumerate().filter(|(_, x)| x.is_some_and(|x| x > 0.0)).map(|(i, _)| i));
        // No bucket read as rising (a counter read per bucket nowhere): the whole window, which the flag's
        // span then reaches at both ends, and says so.
        let Some(first) = rose.next() else { return self.bounds(0, self.w.points.saturating_sub(1) as usize) };
        let (a, b) = rose.fold((first, first), |(a, b), i| (a.min(i), b.max(i)));
        self.bounds(a, b)
    }

    fn bounds(&self, a: usize, b: usize) -> ((i64, i64), (bool, bool)) {
        let w = self.w;
        ((w.at(a as u32) - w.step_s, w.at(b as u32)), (a == 0, b + 1 == w.points as usize))
    }
}

fn val(v: Option<&Option<f64>>) -> Option<f64> {
    v.copied().flatten()
}

/// Every flag the node's readings fire. `running`, one entry per bucket, limits the
/// utilisation check to the buckets in which a pod of the workload was Running on the node.
pub fn evaluate(node: &NodeData, w: &Window, reference: Option<f64>, running: Option<&[bool]>) -> Vec<Flag> {
    let cx = Ctx { node, w, reference };
    let mut out = Vec::new();
    for (gpu, d) in &node.gpus {
        let g = Gpu { index: gpu, on: format!("GPU {gpu} on {}", node.name), d };
        out.extend(thermal_throttle(&cx, &g));
        out.extend(power_cap(&cx, &g));
        out.extend(utilization_collapse(&cx, &g, running));
        out.extend(comm_errors(&cx, &g));
        out.extend(memory_pressure(&cx, &g));
    }
    out.extend(host_pressure(&cx));
    out
}

/// One GPU's readings, and how a summary names it.
struct Gpu<'a> {
    index: &'a str,
    on: String,
    d: &'a GpuData,
}

/// Held at or above HOT_C for five minutes, or any thermal throttling.
fn thermal_throttle(cx: &Ctx, g: &Gpu) -> Option<Flag> {
    let (w, d, on) = (cx.w, g.d, &g.on);
    let temp = d.series.get("temp_c");
    // The highest reading in the window; the highest bucket mean only where the peak was not read.
    let peak = val(d.values.get("peak_temp_c")).or(temp.map(|s| s.max));
    let thermal_s = val(d.values.get("throttle.thermal_s")).filter(|v| *v > 0.0);
    let thermal_events =
        val(d.values.get("clock_events.SW_THERMAL")).unwrap_or(0.0) + val(d.values.get("clock_events.HW_THERMAL")).unwrap_or(0.0);
    // Buckets no longer than a hold: the longest run of hot bucket means. Longer ones: the seconds each bucket
    // was hot, summed over a run of buckets with any (`read::HOT_S`), where a bucket's mean hides a short spell.
    let hot = if w.step_s > HOLD_S {
        d.spans.get(super::read::HOT_MINUTES).and_then(|s| held_minutes(s, w))
    } else {
        temp.and_then(|s| longest(s, w, HOLD_S, |v| v >= HOT_C)).map(|(a, b, secs)| {
            let (span, clipped) = cx.bounds(a, b);
            (span, clipped, secs)
        })
    };
    if hot.is_none() && thermal_s.is_none() && thermal_events <= 0.0 {
        return None;
    }
    let evidence = json!({"peak_temp_c": peak, "reference_p95_c": cx.reference, "thermal_s": thermal_s, "thermal_clock_events": (thermal_events > 0.0).then_some(thermal_events)});
    let (span, clipped, summary) = match hot {
        Some((span, clipped, secs)) => {
            let refp = cx.reference.map(|r| format!(", reference p95 {r} °C")).unwrap_or_default();
            let s = format!(
                "{on} held at or above {HOT_C} °C for {} min inside this window (peak {} °C{refp})",
                secs / 60,
                peak.unwrap_or(0.0)
            );
            (span, clipped, s)
        }
        None => {
            let secs = thermal_s.unwrap_or(0.0);
            let s = format!(
                "{on} throttled for heat: {secs:.0} s of thermal throttle and {thermal_events:.0} thermal clock events in this window"
            );
            // The buckets where the violation counter rose or a thermal event landed, not the whole window.
            let (span, clipped) = cx.rose(g, &["throttle.thermal_s", "clock_events.SW_THERMAL", "clock_events.HW_THERMAL"]);
            (span, clipped, s)
        }
    };
    let minutes = hot.map_or_else(|| throttled_minutes(thermal_s, thermal_events, w), |h| h.2 as f64 / 60.0);
    let severity = if minutes >= 10.0 { "high" } else { "warn" };
    Some(cx.flag("thermal_throttle", severity, Some(g.index), span, clipped, evidence, summary, "thermal"))
}

/// A spell held: its span (from, to), whether it reaches the window's start and end, and its seconds.
type Held = ((i64, i64), (bool, bool), i64);

/// The longest spell a GPU held at or above `HOT_C`, read a minute at a time (`read::HOT_MINUTES`), if it lasted a
/// hold or more: its span, whether it reaches the window's edges, and its seconds.
fn held_minutes(s: &Series, w: &Window) -> Option<Held> {
    let (a, b) = runs(s, |v| v >= HOT_C).into_iter().max_by_key(|(a, b)| b - a)?;
    let secs = (b - a + 1) as i64 * s.step_s;
    let span = (s.t0 + a as i64 * s.step_s - s.step_s, s.t0 + b as i64 * s.step_s);
    (secs >= HOLD_S).then_some((span, (span.0 <= w.start, span.1 >= w.end), secs))
}

/// How long a GPU was throttled, minutes: the throttle timer's seconds, or
/// the buckets in which a clock event of the kind was set, whichever is longer.
fn throttled_minutes(timer_s: Option<f64>, events: f64, w: &Window) -> f64 {
    timer_s.unwrap_or(0.0).max(events * w.step_s as f64) / 60.0
}

/// Any time at the power cap, or power clock events.
fn power_cap(cx: &Ctx, g: &Gpu) -> Option<Flag> {
    let d = g.d;
    let power_s = val(d.values.get("throttle.power_s")).filter(|v| *v > 0.0);
    let power_events =
        val(d.values.get("clock_events.SW_POWER_CAP")).unwrap_or(0.0) + val(d.values.get("clock_events.HW_POWER_BRAKE")).unwrap_or(0.0);
    if power_s.is_none() && power_events <= 0.0 {
        return None;
    }
    let minutes = throttled_minutes(power_s, power_events, cx.w);
    let evidence = json!({"power_s": power_s, "power_clock_events": (power_events > 0.0).then_some(power_events), "peak_power_w": d.series.get("power_w").map(|s| s.max)});
    let summary = format!(
        "{} was held at its power cap for {:.0} s ({power_events:.0} power clock events) in this window",
        g.on,
        power_s.unwrap_or(0.0)
    );
    let severity = if minutes >= 10.0 { "high" } else { "warn" };
    let (span, clipped) = cx.rose(g, &["throttle.power_s", "clock_events.SW_POWER_CAP", "clock_events.HW_POWER_BRAKE"]);
    Some(cx.flag("power_cap", severity, Some(g.index), span, clipped, evidence, summary, "power"))
}

/// Tensor activity (or plain utilisation where there is none) below half the
/// window's median for ten minutes, counting only while the workload's pods were Running.
fn utilization_collapse(cx: &Ctx, g: &Gpu, running: Option<&[bool]>) -> Option<Flag> {
    let w = cx.w;
    let (field, s) =
        g.d.series
            .get("tensor_active_pct")
            .map(|s| ("tensor_active_pct", s))
            .or_else(|| g.d.series.get("util_pct").map(|s| ("util_pct", s)))?;
    let mut present: Vec<f64> = s.values.iter().flatten().flatten().copied().collect();
    present.sort_by(f64::total_cmp);
    let median = if present.is_empty() { 0.0 } else { present[present.len() / 2] };
    if median <= 0.0 {
        return None;
    }
    let limit = median / 2.0;
    let masked = running.map(|mask| while_running(s, mask));
    let (a, b, secs) = longest(masked.as_ref().unwrap_or(s), w, 600, |v| v < limit)?;
    let (span, clipped) = cx.bounds(a, b);
    let evidence = json!({"reading": field, "window_median": median, "threshold": limit, "min": s.min});
    let summary = format!("{}: {field} stayed below half the window's median ({median:.1}) for {} min", g.on, secs / 60);
    Some(cx.flag("utilization_collapse", "warn", Some(g.index), span, clipped, evidence, summary, "utilization"))
}

/// The series with every bucket in which no pod was Running blanked.
fn while_running(s: &Series, running: &[bool]) -> Series {
    let mut m = s.clone();
    if let Some(v) = m.values.as_mut() {
        for (i, x) in v.iter_mut().enumerate() {
            if !running.get(i).copied().unwrap_or(false) {
                *x = None;
            }
        }
    }
    m
}

/// Link, PCIe, uncorrectable ECC or XID errors logged in the window.
fn comm_errors(cx: &Ctx, g: &Gpu) -> Option<Flag> {
    let count = |k: &str| val(g.d.values.get(k)).filter(|v| *v > 0.0);
    let links: Vec<(&str, f64)> = COMM_COUNTERS[..5].iter().filter_map(|(k, short)| count(k).map(|v| (*short, v))).collect();
    let (dbe, xid) = (count("errors.ecc_dbe"), count("errors.xid"));
    if links.is_empty() && dbe.is_none() && xid.is_none() {
        return None;
    }
    let mut ev = serde_json::Map::new();
    for (k, v) in &links {
        ev.insert((*k).to_string(), json!(v));
    }
    ev.insert("ecc_dbe".into(), json!(dbe));
    ev.insert("xid".into(), json!(xid));
    let severity = if dbe.is_some() || xid.is_some() { "high" } else { "warn" };
    let what: Vec<String> = links
        .iter()
        .map(|(k, v)| format!("{k} +{v}"))
        .chain(dbe.map(|v| format!("uncorrectable ECC +{v}")))
        .chain(xid.map(|v| format!("XID +{v}")))
        .collect();
    let summary = format!("{} logged errors in this window: {}", g.on, what.join(", "));
    let (span, clipped) = cx.rose(g, &COMM_COUNTERS.map(|k| k.0));
    Some(cx.flag("comm_errors", severity, Some(g.index), span, clipped, Value::Object(ev), summary, "comm"))
}

/// GPU memory at or above 95% of its size for five minutes.
fn memory_pressure(cx: &Ctx, g: &Gpu) -> Option<Flag> {
    let used = g.d.series.get("hbm_used_gib")?;
    let total = val(g.d.values.get("hbm_total_gib")).filter(|t| *t > 0.0)?;
    let (a, b, secs) = longest(used, cx.w, 300, |v| v >= 0.95 * total)?;
    let (span, clipped) = cx.bounds(a, b);
    let evidence = json!({"hbm_used_max_gib": used.max, "hbm_total_gib": total});
    let summary = format!("{} held GPU memory at or above 95% of {total} GiB for {} min", g.on, secs / 60);
    Some(cx.flag("memory_pressure", "warn", Some(g.index), span, clipped, evidence, summary, "memory"))
}

/// The host waiting on CPU, memory or IO more than 20% of the time for five minutes.
fn host_pressure(cx: &Ctx) -> Vec<Flag> {
    let node = cx.node;
    let mut out = Vec::new();
    for (which, key) in [("cpu", "host.pressure.cpu"), ("memory", "host.pressure.memory"), ("io", "host.pressure.io")] {
        let Some(s) = node.host_series.get(key) else { continue };
        if let Some((a, b, secs)) = longest(s, cx.w, 300, |v| v > 20.0) {
            let (span, clipped) = cx.bounds(a, b);
            let evidence = json!({"resource": which, "max_pct": s.max, "threshold_pct": 20.0});
            let summary = format!("{} waited on {which} more than 20% of the time for {} min (up to {:.0}%)", node.name, secs / 60, s.max);
            out.push(cx.flag("host_pressure", "warn", None, span, clipped, evidence, summary, "host"));
        }
    }
    out
}

/// The checks a maker can answer, and the families each needs.
pub fn checks(vendor: &str) -> Vec<(&'static str, &'static [&'static str])> {
    let mut c: Vec<(&'static str, &'static [&'static str])> = vec![("thermal", &["gpu_temp"])];
    if vendor != "amd" {
        c.push(("power", &["throttle_violations"]));
    }
    c.extend([
        ("utilization", &["gpu_util"][..]),
        ("comm", &["link_errors", "ecc"][..]),
        ("host", &["host_pressure"][..]),
        ("memory", &["hbm"][..]),
    ]);
    c
}
