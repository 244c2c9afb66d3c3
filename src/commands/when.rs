//! `exa finops carbon when`: the start, within a window, that gives a job
//! of a known length the least carbon by the grid's forecast.
//!
//! The job draws a flat power for its duration; its emissions are that
//! energy times the forecast's intensity over the hours it runs, each
//! interval weighted by the time the job spends in it. The best start of a
//! window over a step function lies where the job's start or end meets an
//! interval's edge, so those are the starts compared, with now among them.

use serde::Serialize;

use crate::error::Error;
use crate::model::energy::Joules;
use crate::num::tidy;
use crate::settings::Settings;
use crate::sources::forecast::{self, Forecast, Interval};
use crate::time::{iso8601, local_iso, now_unix};

/// What was asked: how long the job runs, how far ahead it may start, and its power when given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WhenRequest {
    pub duration_s: i64,
    pub within_s: i64,
    pub power_w: Option<f64>,
}

/// One start considered: when, and the mean intensity the job would run at.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Start {
    /// UTC.
    #[serde(serialize_with = "crate::time::serialize_iso")]
    pub start: i64,
    #[serde(serialize_with = "crate::time::serialize_iso")]
    pub end: i64,
    /// The start in the local time zone, as `sbatch --begin` and `at` take it.
    pub begin: String,
    /// The forecast's intensity over the run, weighted by time, gCO2e/kWh.
    pub mean_g_per_kwh: f64,
    /// The run's emissions at `power_w`, when a power was given.
    pub co2e_g: Option<f64>,
}

/// The answer: the best start, starting now, and what the first saves over the second.
#[derive(Debug, Serialize)]
pub struct When {
    pub duration_s: i64,
    pub within_s: i64,
    pub power_w: Option<f64>,
    pub kwh: Option<f64>,
    pub best: Start,
    pub now: Start,
    /// `now` − `best` in gCO2e/kWh, and as a share of `now`.
    pub saving_g_per_kwh: f64,
    pub saving_pct: f64,
    /// The same in grams, when a power was given.
    pub saving_co2e_g: Option<f64>,
    pub forecast: ForecastInfo,
    pub notes: Vec<String>,
}

/// Where the forecast came from and what it covered.
#[derive(Debug, Serialize)]
pub struct ForecastInfo {
    /// The endpoint, its credentials redacted.
    pub url: String,
    pub zone: Option<String>,
    /// Where the zone came from: `zone (env)` or `zone (config)` for the zone set, `region FR (asked)` for a grid
    /// region's (`--region` or MCP's `region`; else `(env)`, `(config)` for the region set where no zone is);
    /// null with no zone.
    pub zone_from: Option<String>,
    /// Which API's shape the body had.
    pub shape: &'static str,
    pub generated_at: Option<String>,
    #[serde(serialize_with = "crate::time::serialize_iso")]
    pub from: i64,
    #[serde(serialize_with = "crate::time::serialize_iso")]
    pub to: i64,
    pub intervals: usize,
    /// The forecast's own band, when the provider gives one; none of the four APIs read does.
    pub uncertainty: Option<f64>,
}

/// The request from its words, as the CLI and MCP take them: a duration from 1 minute to 30 days
/// (`90m`, `6h`), a window (24 h when none), a power from 0 to 10 MW. Anything else is malformed input.
pub fn request(duration: &str, within: Option<&str>, power_w: Option<f64>) -> Result<WhenRequest, Error> {
    let secs = |what: &str, v: &str| {
        let d = crate::time::parse_duration(v).map_err(|e| Error::Usage(format!("{what}: {e}")))?;
        let s = i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
        if (60..=30 * 86_400).contains(&s) {
            Ok(s)
        } else {
            Err(Error::Usage(format!("{what} {}: from 1 minute to 30 days", crate::text::clean(v))))
        }
    };
    if let Some(p) = power_w.filter(|p| !(p.is_finite() && *p > 0.0 && *p <= 1e7)) {
        return Err(Error::Usage(format!("--power-w {p}: a power from 0 to 10 MW")));
    }
    Ok(WhenRequest { duration_s: secs("--duration", duration)?, within_s: within.map_or(Ok(86_400), |w| secs("--within", w))?, power_w })
}

/// Reads the configured forecast for the grid's zone and answers. The zone: `region`'s grid (`--region`), else the
/// zone set, else the grid region set's (EXAMLOPS_GRID_REGION, the config's) where the forecast asks for a zone.
pub fn run(settings: &Settings, req: WhenRequest, region: Option<&str>) -> Result<When, Error> {
    let set = settings.grid_zone();
    let asked = match (region, &set, &settings.grid_region) {
        (Some(r), _, _) => Some((r.to_string(), "asked".to_string())),
        // The region set prices estimates everywhere; it names the forecast's grid only where the forecast's URL
        // asks for a zone (a URL naming its own grid is read as it is).
        (None, None, Some(r)) if settings.forecast_wants_zone() => Some((r.value.clone(), r.source.to_string())),
        _ => None,
    };
    let none = || {
        Error::Refused("no forecast endpoint: set EXAMLOPS_GRID_FORECAST_URL or finops.carbon.grid.forecast_url (the UK National Grid's https://api.carbonintensity.org.uk/intensity/{from}/fw48h needs no key)".into())
    };
    let (ep, zone_from) = match asked {
        Some((r, from)) => {
            let zone = region_zone(&r, from)?;
            let ep = settings.forecast_endpoint_in(&zone.0).map_err(Error::Config)?.ok_or_else(none)?;
            (std::borrow::Cow::Owned(ep), Some(zone.1))
        }
        None => {
            let ep = settings.forecast_endpoint().map_err(Error::Config)?.ok_or_else(none)?;
            (std::borrow::Cow::Borrowed(ep), set.map(|z| format!("zone ({})", z.source)))
        }
    };
    let now = now_unix();
    let f = forecast::fetch(&ep, now).map_err(|e| Error::Failed(format!("the forecast from {}: {e}", ep.shown_url())))?;
    let mut w = answer(&f, now, req, ep.shown_url(), ep.zone.clone())?;
    w.forecast.zone_from = zone_from;
    Ok(w)
}

/// The forecast zone of a grid region named by `from`, and how the answer says where it came from.
fn region_zone(region: &str, from: String) -> Result<(String, String), Error> {
    let r = crate::pricing::region::resolve(region).map_err(|e| Error::Usage(format!("--region: {e}")))?;
    let zone = crate::pricing::region::forecast_zone(&r).ok_or_else(|| {
        Error::Refused(format!(
            "no forecast zone is known for region {}: forecasts zone US grids by balancing authority (Electricity Maps' \
             US-MIDA-PJM, WattTime's PJM_DC); set EXAMLOPS_GRID_INTENSITY_ZONE or finops.carbon.grid.zone",
            r.key
        ))
    })?;
    let via = if zone == r.key { String::new() } else { format!(", its country {zone}") };
    Ok((zone, format!("region {} ({from}){via}", r.key)))
}

/// The starts the run may take, from `from` to `latest`, and what the forecast's edges left out; or why
/// the forecast cannot answer (too short, starting after the window, a hole within reach).
fn reach(f: &Forecast, now: i64, req: WhenRequest) -> Result<(i64, i64, Vec<String>), Error> {
    let (first, last) = (f.intervals[0].start, f.intervals[f.intervals.len() - 1].end);
    if first > now.saturating_add(req.within_s) {
        return Err(Error::Failed(format!(
            "the forecast starts at {}, after the window of {} from now",
            iso8601(first),
            hours(req.within_s)
        )));
    }
    let from = now.max(first);
    let latest = now.saturating_add(req.within_s).min(last.saturating_sub(req.duration_s));
    if latest < from {
        return Err(Error::Failed(format!(
            "the forecast covers {} to {}: too little for a run of {} from now",
            iso8601(first),
            iso8601(last),
            hours(req.duration_s)
        )));
    }
    let mut notes = Vec::new();
    if now < first {
        notes.push(format!("the forecast starts at {}, after now: 'now' is its first interval", iso8601(first)));
    }
    if now.saturating_add(req.within_s) > latest {
        notes.push(format!("the forecast ends at {}: starts after {} were not considered", iso8601(last), iso8601(latest)));
    }
    if let Some(gap) = gaps(&f.intervals, from, latest + req.duration_s) {
        return Err(Error::Failed(format!(
            "the forecast has a gap from {} to {}: no intensity to weigh the run by there",
            iso8601(gap.0),
            iso8601(gap.1)
        )));
    }
    Ok((from, latest, notes))
}

/// The answer from a forecast read at `now`.
pub fn answer(f: &Forecast, now: i64, req: WhenRequest, url: String, zone: Option<String>) -> Result<When, Error> {
    let (from, latest, mut notes) = reach(f, now, req)?;
    let (first, last) = (f.intervals[0].start, f.intervals[f.intervals.len() - 1].end);
    let integral = Integral::of(&f.intervals);
    let start = |s: i64| -> Start {
        let mean = tidy(integral.mean(s, s + req.duration_s));
        let kwh = req.power_w.map(|p| Joules::of_power(p, req.duration_s as f64).kwh().0);
        Start { start: s, end: s + req.duration_s, begin: local_iso(s), mean_g_per_kwh: mean, co2e_g: kwh.map(|k| tidy(k * mean)) }
    };
    // Every start where the run's start or end meets an interval's edge, within [from, latest].
    let mut candidates = vec![from, latest];
    for i in &f.intervals {
        for t in [i.start, i.end, i.start - req.duration_s, i.end - req.duration_s] {
            if (from..=latest).contains(&t) {
                candidates.push(t);
            }
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
    let now_start = start(from);
    let mut best = now_start.clone();
    for &c in &candidates {
        let s = start(c);
        // The earliest of equal starts: no reason to wait for nothing.
        if s.mean_g_per_kwh < best.mean_g_per_kwh {
            best = s;
        }
    }
    if crate::time::parse_utc(&best.begin).ok().and_then(crate::time::from_local) != Some(best.start) {
        notes.push(format!(
            "the local time {} is repeated or skipped by a clock change: give a scheduler the UTC start {} (or now+{}s)",
            best.begin,
            iso8601(best.start),
            best.start - now
        ));
    }
    let saving = tidy(now_start.mean_g_per_kwh - best.mean_g_per_kwh);
    let kwh = req.power_w.map(|p| tidy(Joules::of_power(p, req.duration_s as f64).kwh().0));
    Ok(When {
        duration_s: req.duration_s,
        within_s: req.within_s,
        power_w: req.power_w,
        kwh,
        saving_pct: if now_start.mean_g_per_kwh > 0.0 { tidy(saving / now_start.mean_g_per_kwh * 100.0) } else { 0.0 },
        saving_co2e_g: now_start.co2e_g.zip(best.co2e_g).map(|(n, b)| tidy(n - b)),
        saving_g_per_kwh: saving,
        best,
        now: now_start,
        forecast: ForecastInfo {
            url,
            zone,
            zone_from: None,
            shape: f.shape,
            generated_at: f.generated_at.as_deref().map(crate::text::clean),
            from: first,
            to: last,
            intervals: f.intervals.len(),
            uncertainty: None,
        },
        notes,
    })
}

fn hours(s: i64) -> String {
    format!("{} h", tidy(s as f64 / 3600.0))
}

/// The first stretch within [from, to) no interval covers.
fn gaps(intervals: &[Interval], from: i64, to: i64) -> Option<(i64, i64)> {
    let mut at = from;
    for i in intervals.iter().filter(|i| i.end > from && i.start < to) {
        if i.start > at {
            return Some((at, i.start));
        }
        at = at.max(i.end);
    }
    (at < to).then_some((at, to))
}

/// The intensity integrated over time from the forecast's start, so a window's mean is two lookups, not a
/// pass over every interval: comparing every start of a forecast of n intervals costs n log n, not n².
struct Integral<'a> {
    intervals: &'a [Interval],
    /// Before each interval: the integral of every interval before it, g/kWh × s.
    before: Vec<f64>,
}

impl<'a> Integral<'a> {
    fn of(intervals: &'a [Interval]) -> Integral<'a> {
        let mut before = Vec::with_capacity(intervals.len());
        let mut sum = 0.0;
        for i in intervals {
            before.push(sum);
            sum += i.g_per_kwh * (i.end - i.start) as f64;
        }
        Integral { intervals, before }
    }

    /// The integral up to `t`; time in no interval adds nothing.
    fn at(&self, t: i64) -> f64 {
        let k = self.intervals.partition_point(|i| i.start <= t);
        if k == 0 {
            return 0.0;
        }
        let i = &self.intervals[k - 1];
        self.before[k - 1] + i.g_per_kwh * (t.min(i.end) - i.start) as f64
    }

    /// The time-weighted mean intensity over [from, to).
    fn mean(&self, from: i64, to: i64) -> f64 {
        (self.at(to) - self.at(from)) / (to - from) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(values: &[f64], start: i64, step: i64) -> Forecast {
        let intervals = values
            .iter()
            .enumerate()
            .map(|(k, g)| Interval { start: start + k as i64 * step, end: start + (k as i64 + 1) * step, g_per_kwh: *g })
            .collect();
        Forecast { intervals, shape: "uk", generated_at: None }
    }

    #[test]
    fn the_best_window_is_found_at_an_edge_and_compared_with_now() {
        // Half-hours: 300 now, a trough of 100 for two hours from 02:00, 300 again.
        let mut v = vec![300.0; 4];
        v.extend([100.0; 4]);
        v.extend([300.0; 8]);
        let f = flat(&v, 0, 1800);
        let req = WhenRequest { duration_s: 7200, within_s: 6 * 3600, power_w: Some(1000.0) };
        let w = answer(&f, 0, req, "u".into(), None).unwrap();
        assert_eq!((w.best.start, w.best.mean_g_per_kwh), (7200, 100.0));
        assert_eq!((w.now.start, w.now.mean_g_per_kwh), (0, 300.0));
        assert_eq!(w.best.co2e_g, Some(200.0), "2 kWh at 100 g/kWh");
        assert_eq!((w.saving_co2e_g, w.saving_pct), (Some(400.0), 66.6666666666667));
        // Ten minutes into the first half-hour, a run starting now ends ten minutes into the trough.
        let w = answer(&f, 600, req, "u".into(), None).unwrap();
        assert_eq!((w.now.start, w.now.mean_g_per_kwh), (600, tidy((6600.0 * 300.0 + 600.0 * 100.0) / 7200.0)));
        assert_eq!(w.best.start, 7200);
        // A run longer than the trough straddles it best by sitting on it whole.
        let req = WhenRequest { duration_s: 3 * 3600, within_s: 6 * 3600, power_w: None };
        let w = answer(&f, 0, req, "u".into(), None).unwrap();
        assert!((w.best.mean_g_per_kwh - (100.0 * 2.0 + 300.0) / 3.0).abs() < 1e-9, "{}", w.best.mean_g_per_kwh);
        assert!((3600..=7200).contains(&w.best.start), "{}", w.best.start);
    }

    #[test]
    fn the_integral_gives_each_windows_mean_as_a_pass_over_the_intervals_would() {
        let f = flat(&[300.0, 120.0, 80.0, 410.0, 5.0, 95.5], 1000, 1800);
        let brute = |from: i64, to: i64| {
            f.intervals.iter().map(|i| i.g_per_kwh * (i.end.min(to) - i.start.max(from)).max(0) as f64).sum::<f64>() / (to - from) as f64
        };
        let integral = Integral::of(&f.intervals);
        for (from, to) in [(1000, 1300), (1000, 11800), (1500, 7000), (2800, 2801), (9999, 11800), (4600, 6400)] {
            assert!((integral.mean(from, to) - brute(from, to)).abs() < 1e-9, "{from}..{to}");
        }
    }

    #[test]
    fn a_forecast_that_begins_later_is_weighed_within_the_window_from_now() {
        // The forecast's first point is an hour from now; a window of 90 minutes leaves starts up to 30 minutes in.
        let f = flat(&[300.0, 300.0, 100.0, 100.0, 300.0, 300.0], 3600, 1800);
        let req = WhenRequest { duration_s: 1800, within_s: 5400, power_w: None };
        let w = answer(&f, 0, req, "u".into(), None).unwrap();
        assert!(w.best.start <= 5400 && w.best.mean_g_per_kwh == 300.0, "{:?}", w.best);
        let req = WhenRequest { duration_s: 1800, within_s: 1800, power_w: None };
        assert!(answer(&f, 0, req, "u".into(), None).unwrap_err().to_string().contains("after the window"));
    }

    #[test]
    fn too_short_a_forecast_and_holes_are_refused() {
        let f = flat(&[200.0; 4], 0, 1800);
        let req = WhenRequest { duration_s: 3 * 3600, within_s: 3600, power_w: None };
        assert!(answer(&f, 0, req, "u".into(), None).unwrap_err().to_string().contains("too little"));
        let mut f = flat(&[200.0; 8], 0, 1800);
        f.intervals.remove(3);
        let req = WhenRequest { duration_s: 3600, within_s: 3 * 3600, power_w: None };
        assert!(answer(&f, 0, req, "u".into(), None).unwrap_err().to_string().contains("gap from"));
        // Flat: now is as good as any, and starting now is the answer.
        let f = flat(&[200.0; 8], 0, 1800);
        let w = answer(&f, 0, req, "u".into(), None).unwrap();
        assert_eq!((w.best.start, w.saving_pct), (0, 0.0));
    }
}
