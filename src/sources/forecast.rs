//! A grid's carbon-intensity forecast: fetch and parse it into intervals.
//!
//! The shapes read are those the providers document: the UK National Grid
//! Carbon Intensity API (`/intensity/{from}/fw48h`, national or regional),
//! Electricity Maps (`/v3/carbon-intensity/forecast`), WattTime v3
//! (`/v3/forecast`, pounds per MWh) and the Green Software Foundation's
//! Carbon Aware SDK (`/emissions/forecasts/current`). Each gives points in
//! time with an intensity; a point holds until the next one (or for its
//! own stated period). Never cached: a forecast is read for the question
//! asked now. The token never leaves the request.

use serde_json::Value;

use super::grid::Endpoint;

/// The largest forecast body read: WattTime's 72 hours at 5 minutes is about 90 kB.
pub const MAX_BODY: u64 = 4 * 1024 * 1024;

/// One interval of a forecast: from `start` (inclusive) to `end`, seconds since the epoch, at `g_per_kwh`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// When it begins.
    pub start: i64,
    /// When the next begins.
    pub end: i64,
    /// The forecast intensity, gCO2e/kWh.
    pub g_per_kwh: f64,
}

/// A forecast read: its intervals in time order, which API's shape it had, and when the provider made it.
#[derive(Debug, Clone, PartialEq)]
pub struct Forecast {
    /// In time order, none overlapping.
    pub intervals: Vec<Interval>,
    /// `uk`, `electricitymaps`, `watttime` or `carbon-aware-sdk`.
    pub shape: &'static str,
    /// The provider's own time of the forecast, when the body gives one.
    pub generated_at: Option<String>,
}

/// Fetches the forecast at `ep`, its `{from}` filled with `now` (UTC, to the minute, as the UK API takes it).
pub fn fetch(ep: &Endpoint, now: i64) -> Result<Forecast, String> {
    let from = crate::time::iso8601(now - now.rem_euclid(60));
    let url = ep.url.replace("{from}", &format!("{}Z", &from[..16]));
    parse(&super::grid::get(ep, url, MAX_BODY)?)
}

/// A forecast from a body of one of the documented shapes.
pub fn parse(body: &[u8]) -> Result<Forecast, String> {
    let v: Value = serde_json::from_slice(body).map_err(|_| {
        let start: String = String::from_utf8_lossy(&body[..body.len().min(40)]).chars().filter(|c| !c.is_control()).collect();
        format!("the body is not JSON (it starts {start:?})")
    })?;
    let (points, shape, generated_at) = points(&v)?;
    let intervals = intervals(points)?;
    if intervals.is_empty() {
        return Err(format!("the {shape} forecast has no points"));
    }
    Ok(Forecast { intervals, shape, generated_at })
}

/// A point: its start, its own end when the body says, and its intensity in g/kWh.
type Point = (i64, Option<i64>, f64);

pub(super) fn time(v: &Value, key: &str, at: usize) -> Result<i64, String> {
    let s = v.get(key).and_then(Value::as_str).ok_or_else(|| format!("point {at} has no '{key}' time"))?;
    crate::time::parse_rfc3339(s).map_err(|e| format!("point {at}: {e}"))
}

pub(super) fn number(v: &Value, key: &str, at: usize) -> Result<f64, String> {
    v.get(key).and_then(Value::as_f64).ok_or_else(|| format!("point {at} has no number '{key}'"))
}

fn points(v: &Value) -> Result<(Vec<Point>, &'static str, Option<String>), String> {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    // WattTime v3: {"data": [{"point_time", "value"}], "meta": {"units", "data_point_period_seconds", "generated_at"}}.
    if let Some(meta) = v.get("meta").filter(|m| m.get("units").is_some()) {
        let scale = super::grid::units_scale(meta.get("units").and_then(Value::as_str).unwrap_or(""))?;
        let period = meta.get("data_point_period_seconds").and_then(Value::as_i64).filter(|p| (1..=31_536_000).contains(p));
        let data = v.get("data").and_then(Value::as_array).ok_or("a WattTime-style body with no data list")?;
        let pts = data
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let t = time(p, "point_time", i)?;
                let end =
                    period.map(|s| t.checked_add(s).ok_or_else(|| format!("point {i}'s period runs past the year 9999"))).transpose()?;
                Ok((t, end, number(p, "value", i)? * scale))
            })
            .collect::<Result<_, String>>()?;
        return Ok((pts, "watttime", meta.get("generated_at").and_then(Value::as_str).map(str::to_string)));
    }
    // Electricity Maps: {"zone", "forecast": [{"carbonIntensity", "datetime"}], "updatedAt"}.
    if let Some(list) = v.get("forecast").and_then(Value::as_array) {
        let pts = list
            .iter()
            .enumerate()
            .map(|(i, p)| Ok((time(p, "datetime", i)?, None, number(p, "carbonIntensity", i)?)))
            .collect::<Result<_, String>>()?;
        return Ok((pts, "electricitymaps", text(v, "updatedAt")));
    }
    // UK National Grid: {"data": [{"from", "to", "intensity": {"forecast"}}]}, or regional:
    // {"data": {"regionid", "data": [...]}} and {"data": [{"regionid", "data": [...]}]}.
    if let Some(data) = v.get("data") {
        let list = uk_intervals(data)?;
        let pts = list
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let f = p.get("intensity").and_then(|x| x.get("forecast")).and_then(Value::as_f64);
                let f = f.ok_or_else(|| format!("point {i} has no intensity.forecast"))?;
                Ok((time(p, "from", i)?, Some(time(p, "to", i)?), f))
            })
            .collect::<Result<_, String>>()?;
        return Ok((pts, "uk", None));
    }
    // The Carbon Aware SDK: [{"generatedAt", "forecastData": [{"timestamp", "duration" (minutes), "value"}]}].
    if let Some(first) = v.as_array().and_then(|a| a.first()) {
        let list = first.get("forecastData").and_then(Value::as_array).ok_or("a list whose first item has no forecastData")?;
        let pts = list
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let t = time(p, "timestamp", i)?;
                // At most a year a point: a longer one is no forecast interval.
                let minutes = p.get("duration").and_then(Value::as_f64).filter(|d| d.is_finite() && *d > 0.0 && *d <= 525_600.0);
                Ok((t, minutes.map(|m| t + (m * 60.0) as i64), number(p, "value", i)?))
            })
            .collect::<Result<_, String>>()?;
        return Ok((pts, "carbon-aware-sdk", text(first, "generatedAt")));
    }
    Err("the body is not a forecast exa knows (UK National Grid, Electricity Maps, WattTime or the Carbon Aware SDK)".into())
}

/// The UK API's half-hours under its `data`: a list, or a region's list (`{"regionid", "data"}`, alone or in
/// a list of regions, the first taken).
pub(super) fn uk_intervals(data: &Value) -> Result<&Vec<Value>, String> {
    match data {
        Value::Object(o) => o.get("data").and_then(Value::as_array),
        Value::Array(a) if a.first().is_some_and(|x| x.get("regionid").is_some()) => a[0].get("data").and_then(Value::as_array),
        Value::Array(a) => Some(a),
        _ => None,
    }
    .ok_or_else(|| "a body whose 'data' holds no list of intervals".to_string())
}

/// The points as intervals in time order: each ends at its own end, else where the next begins; the last
/// without an end of its own lasts as long as the one before it. A point that is not a positive, finite
/// intensity, or intervals that overlap, are refused, never smoothed over.
fn intervals(mut points: Vec<Point>) -> Result<Vec<Interval>, String> {
    points.sort_by_key(|p| p.0);
    let mut out: Vec<Interval> = Vec::with_capacity(points.len());
    for i in 0..points.len() {
        let (start, end, g) = points[i];
        if !g.is_finite() || !(0.0..=10_000.0).contains(&g) {
            return Err(format!("the forecast's intensity {g} at {} is not a number from 0 to 10000 g/kWh", crate::time::iso8601(start)));
        }
        let next = points.get(i + 1).map(|p| p.0);
        let end = match (end, next, out.last()) {
            (Some(e), _, _) => e,
            (None, Some(n), _) => n,
            (None, None, Some(prev)) => start + (prev.end - prev.start),
            (None, None, None) => start + 3600,
        };
        if end <= start || next.is_some_and(|n| n < end) {
            return Err(format!("the forecast's point at {} overlaps the next or ends before it starts", crate::time::iso8601(start)));
        }
        out.push(Interval { start, end, g_per_kwh: g });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_documented_shape_reads_as_intervals() {
        let uk = br#"{"data":[{"from":"2026-12-02T15:00Z","to":"2026-12-02T15:30Z","intensity":{"forecast":266,"actual":null,"index":"moderate"}},
            {"from":"2026-12-02T15:30Z","to":"2026-12-02T16:00Z","intensity":{"forecast":120,"actual":null,"index":"low"}}]}"#;
        let f = parse(uk).unwrap();
        assert_eq!(f.shape, "uk");
        assert_eq!(f.intervals[1], Interval { start: 1_796_225_400, end: 1_796_227_200, g_per_kwh: 120.0 });
        let regional = br#"{"data":[{"regionid":13,"shortname":"London","data":[{"from":"2026-12-02T15:00Z","to":"2026-12-02T15:30Z","intensity":{"forecast":90,"index":"low"}}]}]}"#;
        assert_eq!(parse(regional).unwrap().intervals[0].g_per_kwh, 90.0);
        let em = br#"{"zone":"DE","forecast":[{"carbonIntensity":370,"datetime":"2026-12-02T15:00:00.000Z"},{"carbonIntensity":300,"datetime":"2026-12-02T16:00:00.000Z"}],"updatedAt":"2026-12-02T14:41:00.000Z"}"#;
        let f = parse(em).unwrap();
        assert_eq!((f.shape, f.generated_at.as_deref()), ("electricitymaps", Some("2026-12-02T14:41:00.000Z")));
        assert_eq!(f.intervals[1].end - f.intervals[1].start, 3600, "the last point lasts as long as the one before");
        let wt = br#"{"data":[{"point_time":"2026-12-02T15:00:00+00:00","value":1000}],"meta":{"units":"lbs_co2_per_mwh","data_point_period_seconds":300,"generated_at":"2026-12-02T14:55:00+00:00"}}"#;
        let f = parse(wt).unwrap();
        assert!((f.intervals[0].g_per_kwh - 453.592).abs() < 1e-9);
        assert_eq!(f.intervals[0].end - f.intervals[0].start, 300);
        let sdk = br#"[{"generatedAt":"2026-12-02T14:55:00+00:00","location":"eastus","forecastData":[{"location":"eastus","timestamp":"2026-12-02T15:00:00+00:00","duration":5,"value":380.5}]}]"#;
        let f = parse(sdk).unwrap();
        assert_eq!((f.shape, f.intervals[0].end - f.intervals[0].start), ("carbon-aware-sdk", 300));
    }

    #[test]
    fn bodies_that_are_not_forecasts_are_refused_by_name() {
        assert!(parse(br#"{"data":[]}"#).unwrap_err().contains("no points"));
        assert!(parse(b"<html>").unwrap_err().contains("not JSON"));
        assert!(parse(br#"{"carbonIntensity": 3}"#).unwrap_err().contains("not a forecast"));
        let neg = br#"{"forecast":[{"carbonIntensity":-1,"datetime":"2026-12-02T15:00:00Z"}]}"#;
        assert!(parse(neg).unwrap_err().contains("not a number from 0"));
        let pct = br#"{"data":[],"meta":{"units":"percentile"}}"#;
        assert!(parse(pct).unwrap_err().contains("percentile"));
        let overlap = br#"{"data":[{"from":"2026-12-02T15:00Z","to":"2026-12-02T16:00Z","intensity":{"forecast":1}},{"from":"2026-12-02T15:30Z","to":"2026-12-02T16:30Z","intensity":{"forecast":1}}]}"#;
        assert!(parse(overlap).unwrap_err().contains("overlaps"));
    }
}
