//! Cluster telemetry from Prometheus: the window rules, the metric catalog
//! per GPU maker, series and refusals.
//!
//! Every name that reaches PromQL has been checked against
//! `[A-Za-z0-9][A-Za-z0-9._-]{0,120}` first. A reading Prometheus did not
//! give is null, never 0; a family a maker structurally lacks is
//! `unavailable` and never queried.

pub mod catalog;
pub mod flags;
pub mod prom;
pub mod read;
pub mod tenant;

use serde::Serialize;

use crate::time::parse_utc;

pub use crate::model::Refusal;

/// Checks a node or workload name before it goes anywhere near PromQL.
pub fn check_k8s_name(what: &str, s: &str) -> Result<(), Refusal> {
    let mut c = s.chars();
    let ok = s.len() <= 121
        && c.next().is_some_and(|f| f.is_ascii_alphanumeric())
        && c.all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(Refusal::bad_request(format!("{what} '{}' is not a name of the form [A-Za-z0-9][A-Za-z0-9._-]{{0,120}}", s.escape_default())))
    }
}

/// The most points a series may have.
pub const MAX_POINTS: u32 = 96;
/// The longest window.
pub const MAX_SPAN_S: i64 = 14 * 86_400;

/// The resolved window: buckets of `step_s` ending at `start + step_s`, ..., `end`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Window {
    /// The window's start, seconds since the epoch.
    #[serde(serialize_with = "crate::time::serialize_iso")]
    pub start: i64,
    /// The window's end.
    #[serde(serialize_with = "crate::time::serialize_iso")]
    pub end: i64,
    /// Seconds per bucket.
    pub step_s: i64,
    /// Buckets in the window.
    pub points: u32,
}

impl Window {
    /// The window from `--range`, or `--start`/`--end`, and `--points`.
    pub fn resolve(range: Option<&str>, start: Option<&str>, end: Option<&str>, points: Option<u32>, now: i64) -> Result<Window, Refusal> {
        let points = points.unwrap_or(48);
        if points == 0 || points > MAX_POINTS {
            return Err(Refusal::bad_request(format!("points {points} is outside 1 to {MAX_POINTS}")));
        }
        let when = |flag: &str, s: &str| parse_utc(s).map_err(|e| Refusal::bad_request(format!("{flag}: {e}")));
        let (start, end) = match (start, end) {
            (Some(s), e) => (when("--start", s)?, e.map(|e| when("--end", e)).transpose()?.unwrap_or(now)),
            (None, Some(_)) => return Err(Refusal::bad_request("--end needs --start".into())),
            (None, None) => {
                let span = match range.unwrap_or("6h") {
                    "1h" => 3_600,
                    "6h" => 21_600,
                    "24h" => 86_400,
                    "7d" => 604_800,
                    other => return Err(Refusal::bad_request(format!("range '{other}' is not one of 1h, 6h, 24h, 7d"))),
                };
                (now - span, now)
            }
        };
        if start >= end {
            return Err(Refusal::bad_request("the window's start is at or after its end".into()));
        }
        let span = end - start;
        if span > MAX_SPAN_S {
            return Err(Refusal::bad_request(format!("the window spans {:.1} days, more than 14", span as f64 / 86_400.0)));
        }
        // The span over the points, rounded up to a multiple of 30 s, never below 30 s.
        let step = ((span + i64::from(points) - 1) / i64::from(points)).max(1);
        let step_s = ((step + 29) / 30 * 30).max(30);
        let points = ((span + step_s - 1) / step_s) as u32;
        Ok(Window { start, end, step_s, points })
    }

    /// The same span in buckets of a minute or more (at most 1440 of them), on which the
    /// flag rules ("held for at least 5 minutes") are judged, whatever points the answer shows.
    /// Never under a minute, so that a scrape every minute lands in every bucket.
    pub fn fine(&self) -> Window {
        let span = self.span();
        let step_s = ((span + 1439) / 1440 + 29) / 30 * 30;
        let step_s = step_s.max(60);
        Window { start: self.start, end: self.end, step_s, points: ((span + step_s - 1) / step_s) as u32 }
    }

    /// The bucket a sample at `t` (seconds) belongs to: the one whose end is nearest; `None` outside the window.
    pub fn bucket(&self, t: f64) -> Option<usize> {
        let i = ((t as i64 - self.start) as f64 / self.step_s as f64).round() as i64 - 1;
        (0..i64::from(self.points)).contains(&i).then_some(i as usize)
    }

    /// The end of bucket `i`.
    pub fn at(&self, i: u32) -> i64 {
        self.start + self.step_s * (i64::from(i) + 1)
    }

    /// The window's length, seconds.
    pub fn span(&self) -> i64 {
        self.end - self.start
    }
}

/// A series on the window's grid: a gap is null; the stats cover the readings present.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Series {
    /// The end of the first bucket.
    pub t0: i64,
    /// Seconds per bucket.
    pub step_s: i64,
    /// One value per bucket; null is a gap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<Option<f64>>>,
    /// Mean of the values present.
    pub mean: f64,
    /// Smallest value present.
    pub min: f64,
    /// Largest value present.
    pub max: f64,
}

impl Series {
    /// Places samples on the window's grid; `None` when there is no reading at all.
    pub fn on_grid(w: &Window, samples: &[(f64, f64)], scale: f64) -> Option<Series> {
        let mut values = vec![None; w.points as usize];
        for (t, v) in samples {
            if !v.is_finite() {
                continue;
            }
            if let Some(i) = w.bucket(*t) {
                values[i] = Some(v * scale);
            }
        }
        let present: Vec<f64> = values.iter().flatten().copied().collect();
        if present.is_empty() {
            return None;
        }
        let r = round3;
        let n = present.len() as f64;
        Some(Series {
            t0: w.at(0),
            step_s: w.step_s,
            // Each term divided first: a mean of values near the largest double never overflows.
            mean: r(present.iter().map(|x| x / n).sum::<f64>()),
            min: r(present.iter().copied().fold(f64::INFINITY, f64::min)),
            max: r(present.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
            values: Some(values.into_iter().map(|v| v.map(r)).collect()),
        })
    }

    /// The summary form: mean, min and max only.
    pub fn summarised(mut self) -> Series {
        self.values = None;
        self
    }
}

/// `x` to three decimals; a value too large for decimals to mean anything is kept whole, never turned into infinity.
pub fn round3(x: f64) -> f64 {
    if !x.is_finite() || x.abs() >= 1e15 {
        return x;
    }
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_readings_stay_finite() {
        assert_eq!(round3(1e306), 1e306);
        assert_eq!(round3(1.23456), 1.235);
        let w = Window::resolve(Some("1h"), None, None, Some(4), 100_000).unwrap();
        let s = Series::on_grid(&w, &[(w.at(0) as f64, 1.7e308), (w.at(1) as f64, 1.7e308)], 1.0).unwrap();
        assert_eq!((s.mean, s.max), (1.7e308, 1.7e308));
    }

    #[test]
    fn the_step_rule() {
        let w = Window::resolve(Some("6h"), None, None, None, 100_000).unwrap();
        assert_eq!((w.step_s, w.points), (450, 48));
        let w = Window::resolve(Some("1h"), None, None, Some(96), 100_000).unwrap();
        assert_eq!((w.step_s, w.points), (60, 60));
        let w = Window::resolve(Some("1h"), None, None, Some(40), 100_000).unwrap();
        assert_eq!((w.step_s, w.points), (90, 40));
        let w = Window::resolve(Some("7d"), None, None, Some(96), 1_000_000).unwrap();
        assert_eq!(w.step_s, 6300);
        assert!(Window::resolve(Some("2h"), None, None, None, 0).is_err());
        let w = Window::resolve(Some("6h"), None, None, None, 100_000).unwrap().fine();
        assert_eq!((w.step_s, w.points), (60, 360));
        let w = Window::resolve(Some("7d"), None, None, None, 1_000_000).unwrap().fine();
        assert_eq!((w.step_s, w.points), (420, 1440));
        assert!(Window::resolve(None, None, None, Some(97), 0).is_err());
        assert!(Window::resolve(None, Some("2026-01-01"), Some("2026-01-20"), None, 0).is_err());
        assert!(Window::resolve(None, Some("2026-01-02"), Some("2026-01-01"), None, 0).is_err());
    }

    #[test]
    fn names_are_checked() {
        assert!(check_k8s_name("node", "aurora-prod-n2").is_ok());
        assert!(check_k8s_name("node", "n\"} or vector(1) #").is_err());
        assert!(check_k8s_name("node", "-x").is_err());
        assert!(check_k8s_name("node", &"a".repeat(122)).is_err());
    }
}
