//! The grid's intensity by the hour: the history over a run read once, and
//! the run's work weighed against it (each interval's energy times that
//! interval's intensity), so a measured run or an imported job is priced at
//! the intensity of the hours it used, not at one reading taken at its end.
//!
//! Where the history has no reading, the nearest reading stands in (at most
//! `NEAREST_S` away), else the intensity exa had without the history (the
//! region's, or the provider's default); the share of the work in such
//! parts is said, and each part listed. Never silent: a history that cannot
//! be read leaves the estimate as it was, with a warning saying why.

use crate::model::IndexMap;

use crate::model::history::{Gap, GridHistory, HistoryAsk, Reading, Series, Weight};
use crate::model::{Coef, GridInfo, Source};
use crate::num::tidy;
use crate::settings::{paths, Settings};
use crate::time::iso8601;

use super::GRID_INTENSITY;

/// The furthest a reading stands in for a part of the run the history has no reading for, seconds.
pub const NEAREST_S: i64 = 3 * 3600;
/// Gaps listed in an answer; the rest are counted.
const GAPS_LISTED: usize = 20;

/// The history over the UTC days `days` (each a day's first second, ascending); `Ok(None)` when no history
/// endpoint is configured.
pub fn fetch(settings: &Settings, days: &[i64]) -> Result<Option<Series>, String> {
    let Some(ep) = settings.history_endpoint()? else { return Ok(None) };
    let cache = paths::grid_cache_dir();
    let now = crate::time::now_unix();
    crate::sources::history::fetch(ep, days, cache.as_deref(), now)
        .map(Some)
        .map_err(|e| format!("the grid history ({}): {e}", ep.shown_url()))
}

/// The configured history endpoint as a history not read (no readings, no request): for an estimate whose
/// intensity is set by hand, which then says the history was not used.
pub fn unread(settings: &Settings) -> Option<Series> {
    let ep = settings.history_endpoint().ok()??;
    Some(Series { readings: Vec::new(), url: ep.shown_url(), zone: ep.zone.clone(), shape: "none", requests: 0, cached: 0 })
}

/// The days a window [from, to] touches, as each day's first second.
pub fn days(from: i64, to: i64) -> Vec<i64> {
    let day = crate::sources::history::day_of;
    // The last second of the window is to − 1: a window ending at midnight does not touch the next day.
    let last = day(if to > from { to - 1 } else { from });
    (0..).map(|k| day(from) + k * crate::sources::history::DAY_S).take_while(|d| *d <= last).collect()
}

/// Which readings stand where: a reading of the history, the nearest one, or the static intensity.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fill {
    Reading,
    Nearest,
    Static,
}

/// A stretch of time at one intensity.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Seg {
    start: i64,
    end: i64,
    g: f64,
    fill: Fill,
}

/// The intensity over [from, to) as stretches, every second of it covered: the history's readings, its holes
/// filled by the nearest reading up to `NEAREST_S` from it (the hole split between the readings either side),
/// the rest by `static_g`.
fn segments(readings: &[Reading], from: i64, to: i64, static_g: f64) -> Vec<Seg> {
    let mut out: Vec<Seg> = Vec::new();
    let mut push = |start: i64, end: i64, g: f64, fill: Fill| {
        if end > start {
            out.push(Seg { start, end, g, fill });
        }
    };
    let first = readings.partition_point(|r| r.end <= from);
    let mut prev = first.checked_sub(1).map(|i| &readings[i]);
    let mut t = from;
    let mut next = None;
    for r in &readings[first..] {
        if r.start >= to {
            next = Some(r);
            break;
        }
        gap(&mut push, t, r.start, prev, Some(r), static_g);
        push(r.start.max(t), r.end.min(to), r.g_per_kwh, Fill::Reading);
        t = t.max(r.end);
        prev = Some(r);
    }
    if t < to {
        gap(&mut push, t, to, prev, next, static_g);
    }
    out
}

/// Fills [a, b), a part of the hole between `prev`'s end and `next`'s start: each reading stands in from its
/// own edge to the hole's middle, at most `NEAREST_S` from itself; the rest of the hole is static.
fn gap(push: &mut impl FnMut(i64, i64, f64, Fill), a: i64, b: i64, prev: Option<&Reading>, next: Option<&Reading>, static_g: f64) {
    if b <= a {
        return;
    }
    let middle = match (prev, next) {
        (Some(p), Some(n)) => Some(p.end + (n.start - p.end) / 2),
        _ => None,
    };
    // Where the reading before stops standing in, and where the one after starts, clipped to [a, b).
    let back = prev.map_or(a, |p| middle.unwrap_or(i64::MAX).min(p.end.saturating_add(NEAREST_S)).clamp(a, b));
    let on = next.map_or(b, |n| middle.unwrap_or(i64::MIN).max(n.start.saturating_sub(NEAREST_S)).clamp(back, b));
    if let Some(p) = prev {
        push(a, back, p.g_per_kwh, Fill::Nearest);
    }
    push(back, on, static_g, Fill::Static);
    if let Some(n) = next {
        push(on, b, n.g_per_kwh, Fill::Nearest);
    }
}

/// The stretches integrated from the window's start: a mean over any part is two lookups.
struct Integral {
    segs: Vec<Seg>,
    /// Before each stretch: ∫ g dt, ∫ [in a hole] dt, ∫ [static] dt.
    before: Vec<[f64; 3]>,
}

impl Integral {
    fn of(segs: Vec<Seg>) -> Integral {
        let mut before = Vec::with_capacity(segs.len());
        let mut sum = [0.0; 3];
        for s in &segs {
            before.push(sum);
            let dt = (s.end - s.start) as f64;
            sum[0] += s.g * dt;
            sum[1] += if s.fill == Fill::Reading { 0.0 } else { dt };
            sum[2] += if s.fill == Fill::Static { dt } else { 0.0 };
        }
        Integral { segs, before }
    }

    fn at(&self, t: f64) -> [f64; 3] {
        let k = self.segs.partition_point(|s| (s.start as f64) <= t);
        let Some(s) = k.checked_sub(1).map(|i| &self.segs[i]) else { return [0.0; 3] };
        let dt = (t.min(s.end as f64) - s.start as f64).max(0.0);
        let b = self.before[k - 1];
        let gap = if s.fill == Fill::Reading { 0.0 } else { dt };
        [b[0] + s.g * dt, b[1] + gap, b[2] + if s.fill == Fill::Static { dt } else { 0.0 }]
    }

    /// The means of g, of being in a hole and of being static over [a, b); at a point, its value there.
    fn mean(&self, a: f64, b: f64) -> [f64; 3] {
        if b - a < 1e-9 {
            let k = self.segs.partition_point(|s| (s.start as f64) <= a).max(1);
            let s = &self.segs[(k - 1).min(self.segs.len() - 1)];
            return [s.g, f64::from(u8::from(s.fill != Fill::Reading)), f64::from(u8::from(s.fill == Fill::Static))];
        }
        let (x, y) = (self.at(a), self.at(b));
        [(y[0] - x[0]) / (b - a), (y[1] - x[1]) / (b - a), (y[2] - x[2]) / (b - a)]
    }
}

/// The history weighed by the work: the mean intensity, the shares of the work in holes and at the static
/// intensity, the value at the window's end, and the stretches that were not readings.
#[derive(Debug, Clone, PartialEq)]
pub struct Weighed {
    /// Σ weight × intensity / Σ weight, gCO2e/kWh.
    pub mean: f64,
    /// The share of the work where the history had no reading.
    pub gap_share: f64,
    /// The share of the work at the static intensity.
    pub static_share: f64,
    /// The intensity at the window's end.
    pub end_g: f64,
    /// The window, whole seconds.
    pub from: i64,
    /// Its end.
    pub to: i64,
    /// Readings of the history in the window, and of them forecasts.
    pub readings: (usize, usize),
    gaps: Vec<Seg>,
}

/// Weighs `readings` by `profile` (weights that are all zero weigh by time instead); `static_g` fills what no
/// reading reaches. A profile of n weights against m readings costs (n + 1) log m.
pub fn weigh(readings: &[Reading], profile: &[Weight], static_g: f64) -> Option<Weighed> {
    let from = profile.iter().map(|w| w.from).fold(f64::INFINITY, f64::min);
    let to = profile.iter().map(|w| w.to).fold(f64::NEG_INFINITY, f64::max);
    if !from.is_finite() || !to.is_finite() {
        return None;
    }
    let (from_s, to_s) = (from.floor() as i64, (to.ceil() as i64).max(from.floor() as i64 + 1));
    let integral = Integral::of(segments(readings, from_s, to_s, static_g));
    let total: f64 = profile.iter().map(|w| w.weight.max(0.0)).sum();
    let flat = [Weight { from, to: to.max(from), weight: 1.0 }];
    let (profile, total) = if total > 0.0 && total.is_finite() { (profile, total) } else { (&flat[..], 1.0) };
    let mut sum = [0.0; 3];
    for w in profile.iter().filter(|w| w.weight > 0.0) {
        let m = integral.mean(w.from, w.to.max(w.from));
        for k in 0..3 {
            sum[k] += w.weight * m[k];
        }
    }
    let first = readings.partition_point(|r| r.end <= from_s);
    let inside = &readings[first..first + readings[first..].partition_point(|r| r.start < to_s)];
    let forecasts = inside.iter().filter(|r| r.forecast).count();
    Some(Weighed {
        mean: sum[0] / total,
        gap_share: (sum[1] / total).clamp(0.0, 1.0),
        static_share: (sum[2] / total).clamp(0.0, 1.0),
        end_g: integral.segs.last().map_or(static_g, |s| s.g),
        from: from_s,
        to: to_s,
        readings: (inside.len(), forecasts),
        gaps: integral.segs.iter().filter(|s| s.fill != Fill::Reading).copied().collect(),
    })
}

/// Gives the carbon estimate the history's time-weighted intensity, when it has a grid intensity no one set
/// by hand and the history reaches the work. `static_g` is the intensity before grid-live read it; `grid` is
/// what the estimate had (grid-live's reading, or the region's); it stays, with a note, where the history
/// does not apply.
pub fn apply(
    ask: &HistoryAsk,
    coefs: &mut IndexMap<String, Coef>,
    static_g: f64,
    grid: Option<GridInfo>,
    notes: &mut Vec<String>,
) -> Option<GridInfo> {
    let s = &ask.series;
    let Some(c) = coefs.get_mut(GRID_INTENSITY) else { return grid };
    if matches!(c.source, Source::Flag | Source::Config) {
        notes.push(format!("{GRID_INTENSITY} is set by {} ({}): the grid's history ({}) is not used", c.source, c.value, s.url));
        return grid;
    }
    let Some(w) = weigh(&s.readings, &ask.profile, static_g).filter(|w| w.static_share < 1.0) else {
        notes.push(format!(
            "the grid's history ({}) has no reading within {} hours of the work: its intensity is not the history's",
            s.url,
            NEAREST_S / 3600
        ));
        return grid;
    };
    let (end_g, end_from) = match &grid {
        Some(g) if matches!(g.origin, "live" | "cache") => (g.value, "live reading"),
        _ => (w.end_g, "history"),
    };
    let mean = tidy(w.mean);
    *c = Coef { value: mean, source: Source::History };
    let listed: Vec<Gap> = w
        .gaps
        .iter()
        .take(GAPS_LISTED)
        .map(|g| Gap {
            from: iso8601(g.start),
            to: iso8601(g.end),
            filled_with: if g.fill == Fill::Nearest { "nearest" } else { "static" },
            g_per_kwh: g.g,
        })
        .collect();
    if w.gap_share > 0.0 {
        notes.push(format!(
            "{:.1}% of the work fell where the grid's history has no reading: filled by the nearest reading (within {} h), else {static_g} gCO2e/kWh",
            w.gap_share * 100.0,
            NEAREST_S / 3600
        ));
    }
    let detail = format!(
        "time-weighted over {} readings of the {} history from {} to {}, weighted by {}",
        w.readings.0,
        s.shape,
        iso8601(w.from),
        iso8601(w.to),
        ask.weighted_by
    );
    Some(GridInfo {
        origin: "history",
        value: mean,
        url: Some(s.url.clone()),
        zone: s.zone.clone(),
        reading_time: None,
        age_s: None,
        detail: Some(detail),
        history: Some(GridHistory {
            from: iso8601(w.from),
            to: iso8601(w.to),
            time_weighted_g_per_kwh: mean,
            weighted_by: ask.weighted_by.clone(),
            end_of_run_g_per_kwh: tidy(end_g),
            end_of_run_from: end_from,
            difference_pct: if end_g > 0.0 { tidy((w.mean - end_g) / end_g * 100.0) } else { 0.0 },
            readings: w.readings.0,
            forecast_readings: w.readings.1,
            requests: s.requests,
            cached: s.cached,
            gap_share: tidy(w.gap_share),
            gaps_not_listed: w.gaps.len().saturating_sub(GAPS_LISTED),
            gaps: listed,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hourly(values: &[Option<f64>]) -> Vec<Reading> {
        values
            .iter()
            .enumerate()
            .filter_map(|(k, g)| g.map(|g| Reading { start: k as i64 * 3600, end: (k as i64 + 1) * 3600, g_per_kwh: g, forecast: false }))
            .collect()
    }

    fn flat(from: f64, to: f64) -> Vec<Weight> {
        vec![Weight { from, to, weight: 1.0 }]
    }

    #[test]
    fn energy_in_each_hour_is_priced_at_that_hour() {
        let r = hourly(&[Some(100.0), Some(300.0), Some(200.0)]);
        // 1 kWh in the first hour, 3 kWh in the second: (100 + 900) / 4.
        let profile = [Weight { from: 0.0, to: 3600.0, weight: 1.0 }, Weight { from: 3600.0, to: 7200.0, weight: 3.0 }];
        let w = weigh(&r, &profile, 999.0).unwrap();
        assert_eq!((w.mean, w.gap_share, w.end_g), (250.0, 0.0, 300.0));
        // Flat over 90 minutes from 00:30: half an hour at 100, an hour at 300.
        let w = weigh(&r, &flat(1800.0, 7200.0), 999.0).unwrap();
        assert!((w.mean - (100.0 * 0.5 + 300.0) / 1.5).abs() < 1e-9);
        assert_eq!(w.readings, (2, 0));
        // A weight at one instant takes the intensity there.
        assert_eq!(weigh(&r, &[Weight { from: 5400.0, to: 5400.0, weight: 1.0 }], 0.0).unwrap().mean, 300.0);
        // Weights all zero: by time.
        assert_eq!(weigh(&r, &[Weight { from: 0.0, to: 7200.0, weight: 0.0 }], 0.0).unwrap().mean, 200.0);
    }

    #[test]
    fn a_hole_is_filled_by_the_nearest_reading_then_the_static_value() {
        // Two hours missing between 100 and 300: the first hour takes 100, the second 300.
        let r = hourly(&[Some(100.0), None, None, Some(300.0)]);
        let w = weigh(&r, &flat(0.0, 4.0 * 3600.0), 50.0).unwrap();
        assert_eq!((w.mean, w.gap_share, w.static_share), (200.0, 0.5, 0.0));
        let segs = segments(&r, 0, 4 * 3600, 50.0);
        assert_eq!(segs[1], Seg { start: 3600, end: 7200, g: 100.0, fill: Fill::Nearest });
        // Ten hours missing: three hours from each reading, four static in the middle.
        let mut v = vec![Some(100.0)];
        v.extend([None; 10]);
        v.push(Some(300.0));
        let w = weigh(&hourly(&v), &flat(3600.0, 11.0 * 3600.0), 50.0).unwrap();
        assert!((w.mean - (3.0 * 100.0 + 4.0 * 50.0 + 3.0 * 300.0) / 10.0).abs() < 1e-9, "{w:?}");
        assert!((w.static_share - 0.4).abs() < 1e-12 && w.gap_share == 1.0);
        // A run after the history's last reading: the reading stands in for three hours, then the static value.
        let w = weigh(&hourly(&[Some(100.0)]), &flat(3600.0, 5.0 * 3600.0), 50.0).unwrap();
        assert_eq!((w.mean, w.end_g), ((3.0 * 100.0 + 50.0) / 4.0, 50.0));
        // A window inside a long hole, far from both readings: static, however near the window's edges are.
        let mut v = vec![Some(100.0)];
        v.extend([None; 20]);
        v.push(Some(300.0));
        let w = weigh(&hourly(&v), &flat(10.0 * 3600.0, 11.0 * 3600.0), 50.0).unwrap();
        assert_eq!((w.mean, w.static_share), (50.0, 1.0), "{w:?}");
        // Within three hours of the reading before, past the hole's middle of a short hole: the one after.
        let w = weigh(&hourly(&[Some(100.0), None, None, None, None, None, Some(300.0)]), &flat(5.0 * 3600.0, 5.5 * 3600.0), 50.0).unwrap();
        assert_eq!(w.mean, 300.0, "5:00 is two hours from the 300 reading's start, four from the 100's end");
        // A reading a month away reaches nothing.
        let far = [Reading { start: 0, end: 3600, g_per_kwh: 900.0, forecast: false }];
        assert_eq!(weigh(&far, &flat(30.0 * 86_400.0, 30.0 * 86_400.0 + 3600.0), 50.0).unwrap().static_share, 1.0);
        // No reading within reach at all: everything static.
        assert_eq!(weigh(&[], &flat(0.0, 60.0), 50.0).unwrap().static_share, 1.0);
    }

    #[test]
    fn a_week_of_one_second_samples_against_the_brute_force() {
        let r = hourly(&(0..170).map(|k| (k % 7 != 3).then_some(100.0 + f64::from(k * 37 % 200))).collect::<Vec<_>>());
        let profile: Vec<Weight> = (0..7 * 24 * 3600)
            .step_by(97)
            .map(|t| Weight { from: f64::from(t), to: f64::from(t) + 97.0, weight: 1.0 + f64::from(t % 13) })
            .collect();
        let w = weigh(&r, &profile, 123.0).unwrap();
        let segs = segments(&r, 0, 7 * 24 * 3600 + 97, 123.0);
        let at = |t: f64| segs.iter().find(|s| (s.start as f64) <= t && t < s.end as f64).unwrap().g;
        let (mut num, mut den) = (0.0, 0.0);
        for p in &profile {
            // Every profile interval is whole seconds: the midpoint of each second is exact for a step function.
            for s in 0..97 {
                num += p.weight / 97.0 * at(p.from + f64::from(s) + 0.5);
            }
            den += p.weight;
        }
        assert!((w.mean - num / den).abs() < 1e-6, "{} vs {}", w.mean, num / den);
    }

    #[test]
    fn the_days_a_window_touches() {
        assert_eq!(days(1_796_169_600 + 10, 1_796_169_600 + 86_400 + 5), vec![1_796_169_600, 1_796_256_000]);
        assert_eq!(days(100, 50), vec![0]);
        assert_eq!(days(1_796_169_600 - 3600, 1_796_169_600), vec![1_796_169_600 - 86_400], "ending at midnight");
    }
}
