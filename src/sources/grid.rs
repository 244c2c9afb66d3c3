//! Live grid carbon intensity: fetch, parse and cache a reading.
//!
//! Readings are cached on disk for five minutes, keyed by URL and zone. A
//! failure is never cached. The token never leaves the request: not in
//! output, messages or the cache. Deciding what to do when there is no
//! reading (the static default, loudly) is the pricing layer's job; this
//! module only says why.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::http::{self, Request};
use crate::text::redact_url as redact;

/// How long a reading is reused.
pub const CACHE_TTL_S: u64 = 300;
/// The longest a fetch may take, connection included, unless configured.
pub const TIMEOUT_S: f64 = 3.0;
/// The largest body read.
pub const MAX_BODY: u64 = 256 * 1024;
/// Pounds per MWh to grams per kWh.
const LBS_PER_MWH_TO_G_PER_KWH: f64 = 0.453_592;

/// A reading parsed from a body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridReading {
    /// The intensity, gCO2e/kWh.
    pub value: f64,
    /// The reading's own time, when the body gives one.
    pub time: Option<String>,
    /// How it was read or converted.
    pub detail: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct CacheEntry {
    url: String,
    zone: Option<String>,
    fetched_at: u64,
    reading: GridReading,
}

/// How an endpoint wants its key: the header each documented API reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    /// `Authorization: Bearer <token>`: WattTime and generic endpoints.
    Bearer,
    /// `auth-token: <token>`: Electricity Maps.
    AuthToken,
}

/// A grid-intensity endpoint, resolved by settings.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// The URL with the zone filled in; it may hold secrets and is shown only redacted.
    pub url: String,
    /// The grid zone asked for.
    pub zone: Option<String>,
    /// The API key, sent in the header `auth` names.
    pub token: Option<String>,
    /// How the key is sent.
    pub auth: Auth,
    /// The deadline for the whole request.
    pub timeout: Duration,
}

impl Endpoint {
    /// The URL as shown and cached.
    pub fn shown_url(&self) -> String {
        redact(&self.url)
    }
}

/// A reading and where it came from: fetched now, or cached `age_s` ago.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The reading.
    pub reading: GridReading,
    /// Seconds since it was fetched; `None` when fetched now.
    pub age_s: Option<u64>,
}

/// A reading for `ep`: from the cache in `cache_dir` when fresh, else fetched (and cached).
pub fn read_intensity(ep: &Endpoint, cache_dir: Option<&Path>) -> Result<Fetched, String> {
    let now = now_s();
    let cache = cache_dir.map(|d| cache_path(d, ep));
    if let Some(entry) = cache.as_ref().and_then(|p| read_cache(p, ep, now)) {
        return Ok(Fetched { age_s: Some(now.saturating_sub(entry.fetched_at)), reading: entry.reading });
    }
    let reading = get(ep, ep.url.clone(), MAX_BODY).and_then(|body| parse(&body))?;
    if let Some(p) = &cache {
        write_cache(p, &CacheEntry { url: ep.shown_url(), zone: ep.zone.clone(), fetched_at: now, reading: reading.clone() });
    }
    Ok(Fetched { reading, age_s: None })
}

/// The body at `url` (the endpoint's own, or one made from it), with the endpoint's key and deadline, at most
/// `max` bytes; a non-2xx answer is an error naming its status.
pub(super) fn get(ep: &Endpoint, url: String, max: u64) -> Result<Vec<u8>, String> {
    let mut get = Request::new(url, ep.timeout, max);
    get.headers.push(("Accept", "application/json".into()));
    match (&ep.token, ep.auth) {
        (Some(t), Auth::Bearer) => get.bearer = Some(t.clone()),
        (Some(t), Auth::AuthToken) => get.headers.push(("auth-token", t.clone())),
        (None, _) => {}
    }
    let answer = http::send(get).map_err(|e| e.to_string())?;
    if !(200..300).contains(&answer.status) {
        let reason = reqwest::StatusCode::from_u16(answer.status).ok().and_then(|s| s.canonical_reason()).unwrap_or("");
        return Err(format!("the endpoint answered {} {reason}", answer.status).trim_end().to_string());
    }
    Ok(answer.body)
}

fn now_s() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn cache_path(dir: &Path, ep: &Endpoint) -> PathBuf {
    // A file name that does not show the URL.
    let key = crate::text::fnv1a64(&[&ep.url, ep.zone.as_deref().unwrap_or("")]);
    dir.join(format!("{key:016x}.json"))
}

fn read_cache(path: &Path, ep: &Endpoint, now: u64) -> Option<CacheEntry> {
    // A cache entry is a few hundred bytes: what stands in its place is read no further than a megabyte.
    let entry: CacheEntry = serde_json::from_slice(&crate::files::read_regular(path, 1 << 20).ok()?).ok()?;
    let fresh = entry.fetched_at <= now && now - entry.fetched_at < CACHE_TTL_S;
    (fresh && entry.url == ep.shown_url() && entry.zone == ep.zone && entry.reading.value.is_finite() && entry.reading.value > 0.0)
        .then_some(entry)
}

/// Best effort: a cache that cannot be written only costs a later request.
fn write_cache(path: &Path, entry: &CacheEntry) {
    if let Ok(bytes) = serde_json::to_vec(entry) {
        let _ = crate::files::write_atomic(path, &bytes);
    }
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
}

fn text(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| v.get(*k).and_then(Value::as_str).map(str::to_string))
}

/// Reads an intensity in gCO2e/kWh from a body, without knowing the endpoint.
pub fn parse(body: &[u8]) -> Result<GridReading, String> {
    let v: Value = serde_json::from_slice(body).map_err(|_| {
        let start: String = String::from_utf8_lossy(&body[..body.len().min(40)]).chars().filter(|c| !c.is_control()).collect();
        format!("the body is not JSON (it starts {start:?})")
    })?;
    let reading = read(&v)?;
    if !reading.value.is_finite() || reading.value <= 0.0 {
        return Err(format!("the reading {} is not a positive number", reading.value));
    }
    Ok(reading)
}

/// The keys an intensity may have in an Electricity Maps or generic body.
const KEYS: &[&str] = &["carbonIntensity", "intensity", "value"];

/// What a WattTime-style `meta.units` is multiplied by to give g/kWh; a percentile (signal-index) or an
/// unknown unit is refused. The readings and the forecasts read their units through this one place.
pub(super) fn units_scale(units: &str) -> Result<f64, String> {
    match units.to_ascii_lowercase().as_str() {
        "lbs_co2_per_mwh" => Ok(LBS_PER_MWH_TO_G_PER_KWH),
        "g_co2_per_kwh" | "gco2/kwh" | "gco2e/kwh" => Ok(1.0),
        "percentile" => Err("the endpoint answers a percentile (WattTime signal-index), not an intensity".into()),
        other => Err(format!("the endpoint answers in units '{}', not an intensity exa can convert", crate::text::clean(other))),
    }
}

fn read(v: &Value) -> Result<GridReading, String> {
    // WattTime v3: {"data": [{"point_time", "value"}], "meta": {"units": ...}}
    if let Some(units) = v.pointer("/meta/units").and_then(Value::as_str) {
        let point = v.pointer("/data/0").ok_or("a WattTime-style body with no data points")?;
        let raw = point.get("value").and_then(num).ok_or("a WattTime-style data point with no value")?;
        let time = text(point, &["point_time"]);
        let scale = units_scale(units)?;
        let detail = (scale != 1.0).then(|| format!("{raw} lbs_co2_per_mwh x 0.453592"));
        return Ok(GridReading { value: raw * scale, time, detail });
    }
    // UK Carbon Intensity: {"data": [{"from", "to", "intensity": {"forecast", "actual"}}]}
    if let Some(first) = v.pointer("/data/0") {
        if let Some(i) = first.get("intensity").filter(|i| i.is_object()) {
            let time = text(first, &["from"]);
            return match (i.get("actual").and_then(num), i.get("forecast").and_then(num)) {
                (Some(a), _) => Ok(GridReading { value: a, time, detail: None }),
                (None, Some(f)) => Ok(GridReading { value: f, time, detail: Some("no actual reading yet; this is the forecast".into()) }),
                (None, None) => Err("the intensity has neither an actual nor a forecast value".into()),
            };
        }
    }
    // Electricity Maps and the generic keys, at the top or nested one level.
    let time_keys = ["datetime", "updatedAt", "from", "point_time", "timestamp"];
    let detail = |o: &Value| text(o, &["emissionFactorType"]).map(|t| format!("emission factor: {t}"));
    for k in KEYS {
        if let Some(x) = v.get(*k).and_then(num) {
            return Ok(GridReading { value: x, time: text(v, &time_keys), detail: detail(v) });
        }
    }
    if let Some(map) = v.as_object() {
        for inner in map.values().filter(|x| x.is_object()) {
            for k in KEYS {
                if let Some(x) = inner.get(*k).and_then(num) {
                    return Ok(GridReading {
                        value: x,
                        time: text(inner, &time_keys).or_else(|| text(v, &time_keys)),
                        detail: detail(inner),
                    });
                }
            }
        }
    }
    Err("the body has no carbonIntensity, intensity or value reading".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_api_shapes() {
        let em = br#"{"zone":"FR","carbonIntensity":58.77,"datetime":"2026-11-30T05:00:00.000Z","updatedAt":"2026-11-30T05:10:00Z","emissionFactorType":"lifecycle"}"#;
        let r = parse(em).unwrap();
        assert_eq!(r.value, 58.77);
        assert_eq!(r.time.as_deref(), Some("2026-11-30T05:00:00.000Z"));
        assert_eq!(r.detail.as_deref(), Some("emission factor: lifecycle"));
        let uk = br#"{"data":[{"from":"2018-01-20T12:00Z","to":"2018-01-20T12:30Z","intensity":{"forecast":266,"actual":263,"index":"moderate"}}]}"#;
        assert_eq!(parse(uk).unwrap().value, 263.0);
        let uk = br#"{"data":[{"from":"2018-01-20T12:00Z","to":"2018-01-20T12:30Z","intensity":{"forecast":266,"actual":null,"index":"moderate"}}]}"#;
        let r = parse(uk).unwrap();
        assert_eq!(r.value, 266.0);
        assert!(r.detail.unwrap().contains("forecast"));
        let wt = br#"{"data":[{"point_time":"2026-11-30T05:00:00+00:00","value":1000}],"meta":{"units":"lbs_co2_per_mwh","region":"CAISO_NORTH"}}"#;
        assert!((parse(wt).unwrap().value - 453.592).abs() < 1e-9);
        let idx =
            br#"{"data":[{"point_time":"2026-11-30T05:00:00+00:00","value":77}],"meta":{"units":"percentile","signal_type":"co2_moer"}}"#;
        assert!(parse(idx).unwrap_err().contains("percentile"));
    }

    #[test]
    fn generic_keys_and_refusals() {
        assert_eq!(parse(br#"{"intensity": 120}"#).unwrap().value, 120.0);
        assert_eq!(parse(br#"{"value": 99.5}"#).unwrap().value, 99.5);
        assert_eq!(parse(br#"{"result": {"carbonIntensity": 42}}"#).unwrap().value, 42.0);
        assert!(parse(br#"{"a": {"b": {"value": 1}}}"#).is_err(), "only one level deep");
        assert!(parse(br#"{"carbonIntensity": -5}"#).unwrap_err().contains("not a positive number"));
        assert!(parse(br#"{"carbonIntensity": 0}"#).is_err());
        assert!(parse(b"<html>").unwrap_err().contains("not JSON"));
    }
}
