//! A grid's carbon-intensity history: fetch it a UTC day at a time, cache
//! each day, and parse the shapes the providers document.
//!
//! The shapes read: the UK National Grid Carbon Intensity API
//! (`/intensity/{from}/{to}`, national or regional: the actual intensity,
//! else the forecast, said), Electricity Maps (`/v3/carbon-intensity/
//! past-range`, and `/history`'s `history` list), WattTime v3
//! (`/v3/historical`, pounds per MWh) and the Carbon Aware SDK
//! (`/emissions/bylocation`). A reading the provider leaves null is a hole,
//! never a zero. One request per day asked (every provider's history window
//! is longer than a day: the UK's 14 days, WattTime's 32, Electricity Maps'
//! 10 hourly), so a week-long run is read in seven pieces and an import of a
//! month's jobs in about thirty, however many jobs. The token never leaves
//! the request.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::forecast::{number, time, uk_intervals};
use super::grid::{get, units_scale, Endpoint, CACHE_TTL_S};
use crate::model::history::{Reading, Series};

/// The largest body read for a day: WattTime's 288 five-minute points are about 30 kB.
pub const MAX_BODY: u64 = 4 * 1024 * 1024;
/// Seconds in a piece: one UTC day.
pub const DAY_S: i64 = 86_400;
/// How long a day that had ended (by an hour) when it was fetched is reused: a provider may still revise it.
const DONE_TTL_S: i64 = 86_400;

/// The day `t` is in, as the second it starts.
pub fn day_of(t: i64) -> i64 {
    t - t.rem_euclid(DAY_S)
}

/// The history for the UTC days starting at `days` (ascending, each `day_of` a time): a day that is over
/// whole, today up to now; each day from the cache in `cache_dir` when it holds the day, else fetched and
/// cached. One day that cannot be read fails the whole: a history with a day missing is not the history asked for.
pub fn fetch(ep: &Endpoint, days: &[i64], cache_dir: Option<&Path>, now: i64) -> Result<Series, String> {
    let mut readings: Vec<Reading> = Vec::new();
    let (mut requests, mut cached, mut shape) = (0, 0, None);
    for &day in days {
        let to = (day + DAY_S).min(now.saturating_add(59) / 60 * 60).max(day + 60);
        let url = ep.url.replace("{from}", &minute(day)).replace("{to}", &minute(to));
        let path = cache_dir.map(|d| cache_path(d, ep, day));
        let piece = match path.as_deref().and_then(|p| read_cache(p, ep, day, to, now)) {
            Some(p) => {
                cached += 1;
                p
            }
            None => {
                requests += 1;
                let (got, shape) = parse(&get(ep, url, MAX_BODY)?)
                    .and_then(|(r, shape)| Ok((within_day(r, day)?, shape)))
                    .map_err(|e| format!("the history for {}: {e}", &minute(day)[..10]))?;
                let piece = Piece {
                    url: ep.shown_url(),
                    zone: ep.zone.clone(),
                    day,
                    to,
                    fetched_at: now,
                    shape: shape.map(str::to_string),
                    readings: got,
                };
                if let Some(p) = &path {
                    write_cache(p, &piece);
                }
                piece
            }
        };
        shape = shape.or(piece.shape.as_deref().and_then(known_shape));
        readings.extend(piece.readings.iter().map(|r| Reading { start: r.0, end: r.1, g_per_kwh: r.2, forecast: r.3 }));
    }
    Ok(Series { readings: merged(readings), url: ep.shown_url(), zone: ep.zone.clone(), shape: shape.unwrap_or("none"), requests, cached })
}

/// The most readings a day may hold: one every 30 s (WattTime's finest is five minutes).
const MOST_A_DAY: usize = 2_880;

/// A day's readings clipped to the day (a provider may answer the interval around the day's edge, or one that
/// never ends), at most `MOST_A_DAY` of them.
fn within_day(readings: Vec<Raw>, day: i64) -> Result<Vec<Raw>, String> {
    let kept: Vec<Raw> =
        readings.into_iter().map(|(s, e, g, f)| (s.max(day), e.min(day + DAY_S), g, f)).filter(|(s, e, _, _)| e > s).collect();
    if kept.len() > MOST_A_DAY {
        return Err(format!("{} readings in one day, more than {MOST_A_DAY} (one every 30 s)", kept.len()));
    }
    Ok(kept)
}

/// `YYYY-MM-DDThh:mmZ`, as the UK API takes it (and ISO 8601, as the others do).
fn minute(t: i64) -> String {
    format!("{}Z", &crate::time::iso8601(t)[..16])
}

fn known_shape(s: &str) -> Option<&'static str> {
    ["uk", "electricitymaps", "watttime", "carbon-aware-sdk"].into_iter().find(|k| *k == s)
}

/// Readings from several pieces in time order; one a piece repeats (a day's edge) is kept once, and one
/// that overlaps the one before begins where it ends.
fn merged(mut readings: Vec<Reading>) -> Vec<Reading> {
    readings.sort_by_key(|r| (r.start, r.end));
    let mut out: Vec<Reading> = Vec::with_capacity(readings.len());
    for mut r in readings {
        if let Some(last) = out.last() {
            if r.end <= last.end {
                continue;
            }
            r.start = r.start.max(last.end);
        }
        out.push(r);
    }
    out
}

/// A day as cached: the readings as `[start, end, g/kWh, forecast]`.
#[derive(Serialize, Deserialize)]
struct Piece {
    url: String,
    zone: Option<String>,
    day: i64,
    to: i64,
    fetched_at: i64,
    shape: Option<String>,
    readings: Vec<Raw>,
}

fn cache_path(dir: &Path, ep: &Endpoint, day: i64) -> PathBuf {
    let key = crate::text::fnv1a64(&[&ep.url, ep.zone.as_deref().unwrap_or(""), &day.to_string()]);
    dir.join(format!("history-{key:016x}.json"))
}

/// The cached day when it is the one asked, covers up to `to`, and is still good: fetched in the last five
/// minutes, or, when what it covers had ended an hour before it was fetched, in the last day.
fn read_cache(path: &Path, ep: &Endpoint, day: i64, to: i64, now: i64) -> Option<Piece> {
    // A day of readings, every five minutes, is some 20 KB: what stands in its place is read no further than 16 MB.
    let p: Piece = serde_json::from_slice(&crate::files::read_regular(path, 16 << 20).ok()?).ok()?;
    let age = now - p.fetched_at;
    let ended = p.fetched_at >= p.to.saturating_add(3600);
    let good = (0..if ended { DONE_TTL_S } else { CACHE_TTL_S as i64 }).contains(&age);
    let sane = p.readings.iter().all(|r| r.1 > r.0 && r.2.is_finite() && (0.0..=10_000.0).contains(&r.2));
    (good && sane && p.day == day && p.to >= to && p.url == ep.shown_url() && p.zone == ep.zone).then_some(p)
}

/// Best effort: a cache that cannot be written only costs a later request.
fn write_cache(path: &Path, piece: &Piece) {
    if let Ok(bytes) = serde_json::to_vec(piece) {
        let _ = crate::files::write_atomic(path, &bytes);
    }
}

/// A reading as parsed and cached: start, end, g/kWh, only a forecast.
pub type Raw = (i64, i64, f64, bool);

/// A point: its start, its own end when the body says, its intensity (`None`: the provider has none), and
/// whether it is only a forecast.
type Point = (i64, Option<i64>, Option<f64>, bool);

/// A day's readings from a body of one of the documented shapes, and which shape (none for an empty list).
pub fn parse(body: &[u8]) -> Result<(Vec<Raw>, Option<&'static str>), String> {
    let v: Value = serde_json::from_slice(body).map_err(|_| {
        let start: String = String::from_utf8_lossy(&body[..body.len().min(40)]).chars().filter(|c| !c.is_control()).collect();
        format!("the body is not JSON (it starts {start:?})")
    })?;
    let (points, shape) = points(&v)?;
    Ok((readings(points)?, shape))
}

fn points(v: &Value) -> Result<(Vec<Point>, Option<&'static str>), String> {
    let list = |v: Option<&Value>, what: &str| {
        v.and_then(Value::as_array).cloned().ok_or_else(|| format!("a {what} body with no list of readings"))
    };
    let shape = |pts: &Vec<Point>, s: &'static str| (!pts.is_empty()).then_some(s);
    // WattTime v3: {"data": [{"point_time", "value"}], "meta": {"units", "data_point_period_seconds"}}.
    if let Some(meta) = v.get("meta").filter(|m| m.get("units").is_some()) {
        let scale = units_scale(meta.get("units").and_then(Value::as_str).unwrap_or(""))?;
        let period = meta.get("data_point_period_seconds").and_then(Value::as_i64).filter(|p| (1..=DAY_S).contains(p));
        let pts = list(v.get("data"), "WattTime-style")?
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let t = time(p, "point_time", i)?;
                Ok((t, period.map(|s| t + s), value(p, "value", i)?.map(|g| g * scale), false))
            })
            .collect::<Result<Vec<_>, String>>()?;
        return Ok((pts.clone(), shape(&pts, "watttime")));
    }
    // Electricity Maps: {"zone", "data": [{"carbonIntensity", "datetime"}]} (past-range) or {"history": [...]}.
    let em = v.get("history").or_else(|| v.get("data").filter(|d| d.get(0).is_some_and(|p| p.get("carbonIntensity").is_some())));
    if let Some(items) = em {
        let pts = list(Some(items), "Electricity Maps")?
            .iter()
            .enumerate()
            .map(|(i, p)| Ok((time(p, "datetime", i)?, None, value(p, "carbonIntensity", i)?, false)))
            .collect::<Result<Vec<_>, String>>()?;
        return Ok((pts.clone(), shape(&pts, "electricitymaps")));
    }
    // UK National Grid: {"data": [{"from", "to", "intensity": {"forecast", "actual"}}]}, or regional.
    if let Some(data) = v.get("data") {
        let pts = uk_intervals(data)?
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let at = |k: &str| p.get("intensity").and_then(|x| x.get(k)).and_then(Value::as_f64);
                let (g, forecast) = match (at("actual"), at("forecast")) {
                    (Some(a), _) => (Some(a), false),
                    (None, f) => (f, f.is_some()),
                };
                Ok((time(p, "from", i)?, Some(time(p, "to", i)?), g, forecast))
            })
            .collect::<Result<Vec<_>, String>>()?;
        return Ok((pts.clone(), shape(&pts, "uk")));
    }
    // The Carbon Aware SDK: [{"location", "time", "duration" ("hh:mm:ss"), "rating"}].
    if let Some(items) = v.as_array() {
        let pts = items
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let t = time(p, "time", i)?;
                let end = p.get("duration").and_then(Value::as_str).and_then(span).map(|s| t + s);
                Ok((t, end, value(p, "rating", i)?, false))
            })
            .collect::<Result<Vec<_>, String>>()?;
        return Ok((pts.clone(), shape(&pts, "carbon-aware-sdk")));
    }
    Err("the body is not a history exa knows (UK National Grid, Electricity Maps, WattTime or the Carbon Aware SDK)".into())
}

/// A number, or `None` where the provider says null (a hole); anything else is refused.
fn value(p: &Value, key: &str, at: usize) -> Result<Option<f64>, String> {
    match p.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => number(p, key, at).map(Some),
    }
}

/// A .NET TimeSpan as the SDK writes it, `hh:mm:ss` or `d.hh:mm:ss`, in seconds (at most a day).
fn span(s: &str) -> Option<i64> {
    let (days, rest) = s.split_once('.').filter(|(d, _)| !d.contains(':')).unwrap_or(("0", s));
    let parts: Vec<u8> = rest.split(':').map(|x| x.parse().ok()).collect::<Option<_>>()?;
    let [h, m, sec] = parts[..] else { return None };
    let days: u8 = days.parse().ok()?;
    if days > 1 || h > 23 || m > 59 || sec > 59 {
        return None;
    }
    let total = i64::from(days) * DAY_S + i64::from(h) * 3600 + i64::from(m) * 60 + i64::from(sec);
    (1..=DAY_S).contains(&total).then_some(total)
}

/// The points as readings in time order. A point without its own end lasts until the next, but never longer
/// than the data's step (the shortest spacing between points): a point missing from a list stays a hole, and
/// one the provider left null is one. Two points at one time, a reading that is not a finite intensity from 0
/// to 10000 g/kWh, or readings that overlap are refused.
fn readings(mut points: Vec<Point>) -> Result<Vec<Raw>, String> {
    points.sort_by_key(|p| p.0);
    let step = points.windows(2).map(|w| w[1].0 - w[0].0).filter(|d| *d > 0).min().unwrap_or(3600);
    let mut out = Vec::with_capacity(points.len());
    for (i, &(start, end, g, forecast)) in points.iter().enumerate() {
        let at = crate::time::iso8601(start);
        let next = points.get(i + 1).map(|p| p.0);
        if next == Some(start) {
            return Err(format!("the history has two readings at {at}"));
        }
        let end = end.unwrap_or_else(|| next.map_or(start + step, |n| n.min(start + step)));
        if end <= start || next.is_some_and(|n| n < end) {
            return Err(format!("the history's reading at {at} overlaps the next or ends before it starts"));
        }
        let Some(g) = g else { continue };
        if !g.is_finite() || !(0.0..=10_000.0).contains(&g) {
            return Err(format!("the history's intensity {g} at {at} is not a number from 0 to 10000 g/kWh"));
        }
        out.push((start, end, g, forecast));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: i64 = 1_796_169_600; // 2026-12-02T00:00:00Z

    #[test]
    fn each_documented_shape_reads_with_its_holes() {
        // UK: an actual, a forecast where the actual is not yet known, a half-hour with neither.
        let uk =
            br#"{"data":[{"from":"2026-12-02T00:00Z","to":"2026-12-02T00:30Z","intensity":{"forecast":200,"actual":210,"index":"low"}},
            {"from":"2026-12-02T00:30Z","to":"2026-12-02T01:00Z","intensity":{"forecast":220,"actual":null,"index":"low"}},
            {"from":"2026-12-02T01:00Z","to":"2026-12-02T01:30Z","intensity":{"forecast":null,"actual":null,"index":"low"}}]}"#;
        let (r, shape) = parse(uk).unwrap();
        assert_eq!(shape, Some("uk"));
        assert_eq!(r, vec![(T, T + 1800, 210.0, false), (T + 1800, T + 3600, 220.0, true)]);
        // Electricity Maps past-range: hourly, one hour null, one missing; each lasts an hour, never into the hole.
        let em = br#"{"zone":"DE","data":[{"zone":"DE","carbonIntensity":300,"datetime":"2026-12-02T00:00:00.000Z","isEstimated":false},
            {"zone":"DE","carbonIntensity":null,"datetime":"2026-12-02T01:00:00.000Z"},
            {"zone":"DE","carbonIntensity":280,"datetime":"2026-12-02T02:00:00.000Z"},
            {"zone":"DE","carbonIntensity":260,"datetime":"2026-12-02T04:00:00.000Z"}]}"#;
        let (r, shape) = parse(em).unwrap();
        assert_eq!(shape, Some("electricitymaps"));
        assert_eq!(r, vec![(T, T + 3600, 300.0, false), (T + 7200, T + 10800, 280.0, false), (T + 14400, T + 18000, 260.0, false)]);
        let em_history = br#"{"zone":"DE","history":[{"carbonIntensity":310,"datetime":"2026-12-02T00:00:00.000Z"}]}"#;
        assert_eq!(parse(em_history).unwrap().0, vec![(T, T + 3600, 310.0, false)]);
        // WattTime v3 historical: pounds per MWh, five minutes a point.
        let wt =
            br#"{"data":[{"point_time":"2026-12-02T00:00:00+00:00","value":1000},{"point_time":"2026-12-02T00:05:00+00:00","value":null}],
            "meta":{"units":"lbs_co2_per_mwh","data_point_period_seconds":300,"region":"CAISO_NORTH","signal_type":"co2_moer"}}"#;
        let (r, shape) = parse(wt).unwrap();
        assert_eq!((r.len(), r[0].1 - r[0].0, shape), (1, 300, Some("watttime")));
        assert!((r[0].2 - 453.592).abs() < 1e-9);
        // The Carbon Aware SDK's emissions by location: a TimeSpan duration.
        let sdk = br#"[{"location":"eastus","time":"2026-12-02T00:00:00+00:00","rating":400.5,"duration":"01:00:00"},
            {"location":"eastus","time":"2026-12-02T01:00:00+00:00","rating":390,"duration":"1.00:00:00"}]"#;
        let (r, shape) = parse(sdk).unwrap();
        assert_eq!((shape, r[0].1 - r[0].0, r[1].1 - r[1].0), (Some("carbon-aware-sdk"), 3600, DAY_S));
    }

    #[test]
    fn an_empty_window_is_no_reading_and_a_bad_body_is_refused_by_name() {
        assert_eq!(parse(br#"{"data":[]}"#).unwrap(), (vec![], None));
        assert_eq!(parse(br#"{"zone":"FR","history":[]}"#).unwrap(), (vec![], None));
        assert!(parse(b"<html>").unwrap_err().contains("not JSON"));
        assert!(parse(br#"{"carbonIntensity": 3}"#).unwrap_err().contains("not a history"));
        let neg = br#"{"zone":"DE","data":[{"carbonIntensity":-1,"datetime":"2026-12-02T00:00:00Z"}]}"#;
        assert!(parse(neg).unwrap_err().contains("not a number from 0"));
        let text = br#"{"zone":"DE","data":[{"carbonIntensity":"high","datetime":"2026-12-02T00:00:00Z"}]}"#;
        assert!(parse(text).unwrap_err().contains("no number 'carbonIntensity'"));
        let twice = br#"{"zone":"DE","data":[{"carbonIntensity":1,"datetime":"2026-12-02T00:00:00Z"},{"carbonIntensity":2,"datetime":"2026-12-02T00:00:00Z"}]}"#;
        assert!(parse(twice).unwrap_err().contains("two readings"));
        assert!(parse(br#"{"data":[],"meta":{"units":"percentile"}}"#).unwrap_err().contains("percentile"));
    }

    #[test]
    fn pieces_meet_without_counting_an_edge_twice() {
        let r = |start, end, g| Reading { start, end, g_per_kwh: g, forecast: false };
        let m = merged(vec![r(1800, 3600, 2.0), r(0, 1800, 1.0), r(1800, 3600, 2.0), r(3000, 5400, 3.0)]);
        assert_eq!(m, vec![r(0, 1800, 1.0), r(1800, 3600, 2.0), r(3600, 5400, 3.0)]);
        assert_eq!(span("00:05:00"), Some(300));
        assert_eq!(span("2.00:00:00"), None, "more than a day");
        assert_eq!(span("9999999999999999:00:00"), None);
        assert_eq!(span("213503982334602.00:00:00"), None);
        assert_eq!(span("-1:90:00"), None);
        assert_eq!(span("1.00:00:00"), Some(DAY_S));
        // Clipped to the day asked: the half-hour around its start, and a reading that never ends.
        let day = T;
        let r = within_day(
            vec![(T - 1800, T + 1800, 1.0, false), (T + 3600, T + 400 * DAY_S, 2.0, false), (T - 7200, T - 3600, 3.0, false)],
            day,
        )
        .unwrap();
        assert_eq!(r, vec![(T, T + 1800, 1.0, false), (T + 3600, T + DAY_S, 2.0, false)]);
        let many: Vec<Raw> = (0..3000).map(|k| (T + k * 20, T + k * 20 + 20, 1.0, false)).collect();
        assert!(within_day(many, day).unwrap_err().contains("more than 2880"));
        assert_eq!(day_of(T + 5), T);
    }
}
