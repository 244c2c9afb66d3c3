//! Live grid carbon intensity for `grid-live`: fetch, parse, cache, degrade.
//!
//! The endpoint is `EXAMLOPS_GRID_INTENSITY_URL` (or `finops.carbon.grid.url`),
//! with an optional zone and bearer token. Readings are cached on disk for
//! five minutes, keyed by URL and zone. Any failure degrades to the static
//! default with one warning; a failure is never cached. The token never
//! leaves the request: not in output, messages or the cache.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::commands::estimate::Coef;
use crate::provider::Source;
use crate::settings::{env, Settings};

/// How long a reading is reused.
pub const CACHE_TTL_S: u64 = 300;
/// The longest a fetch may take, connection included, unless configured.
pub const TIMEOUT_S: f64 = 3.0;
/// The largest body read.
pub const MAX_BODY: u64 = 256 * 1024;
/// Pounds per MWh to grams per kWh.
const LBS_PER_MWH_TO_G_PER_KWH: f64 = 0.453_592;

/// Where the intensity in an answer came from.
#[derive(Debug, Clone, Serialize)]
pub struct GridInfo {
    /// live, cache, default or explicit.
    pub origin: &'static str,
    pub value: f64,
    /// The endpoint, with secrets in its query hidden.
    pub url: Option<String>,
    pub zone: Option<String>,
    /// The reading's own time, when the body gives one.
    pub reading_time: Option<String>,
    /// Seconds since the cached reading was fetched.
    pub age_s: Option<u64>,
    /// Why the default is used, or what was read and how it was converted.
    pub detail: Option<String>,
}

struct Endpoint {
    url: String,
    zone: Option<String>,
    token: Option<String>,
    timeout: Duration,
}

/// A reading parsed from a body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    pub value: f64,
    pub time: Option<String>,
    pub detail: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct CacheEntry {
    url: String,
    zone: Option<String>,
    fetched_at: u64,
    reading: Reading,
}

/// Fills the live coefficient when no explicit value was given.
pub fn apply(settings: &Settings, name: &str, coef: &mut Coef) -> GridInfo {
    if matches!(coef.source, Source::Flag | Source::Config) {
        return GridInfo {
            origin: "explicit",
            value: coef.value,
            url: None,
            zone: None,
            reading_time: None,
            age_s: None,
            detail: Some(format!("{name} was given explicitly ({}); no request was made", coef.source)),
        };
    }
    let default = |why: String, ep: Option<&Endpoint>| {
        let at = ep.map(|e| format!("{}: ", redact(&e.url))).unwrap_or_default();
        settings.warn(format!("grid-live: {at}{why}; using the static default {name} = {}", coef.value));
        GridInfo {
            origin: "default",
            value: coef.value,
            url: ep.map(|e| redact(&e.url)),
            zone: ep.and_then(|e| e.zone.clone()),
            reading_time: None,
            age_s: None,
            detail: Some(why),
        }
    };
    let ep = match endpoint(settings) {
        Ok(Some(ep)) => ep,
        Ok(None) => return default("no grid-intensity endpoint is configured (EXAMLOPS_GRID_INTENSITY_URL)".into(), None),
        Err(why) => return default(why, None),
    };
    let now = now_s();
    let cache = cache_path(&ep);
    if let Some(entry) = cache.as_ref().and_then(|p| read_cache(p, &ep, now)) {
        coef.value = entry.reading.value;
        coef.source = Source::Live;
        return GridInfo {
            origin: "cache",
            value: entry.reading.value,
            url: Some(redact(&ep.url)),
            zone: ep.zone.clone(),
            reading_time: entry.reading.time,
            age_s: Some(now.saturating_sub(entry.fetched_at)),
            detail: entry.reading.detail,
        };
    }
    match fetch(&ep).and_then(|body| parse(&body)) {
        Ok(reading) => {
            if let Some(p) = &cache {
                write_cache(p, &CacheEntry { url: redact(&ep.url), zone: ep.zone.clone(), fetched_at: now, reading: reading.clone() });
            }
            coef.value = reading.value;
            coef.source = Source::Live;
            GridInfo {
                origin: "live",
                value: reading.value,
                url: Some(redact(&ep.url)),
                zone: ep.zone.clone(),
                reading_time: reading.time,
                age_s: Some(0),
                detail: reading.detail,
            }
        }
        Err(why) => default(why, Some(&ep)),
    }
}

fn endpoint(settings: &Settings) -> Result<Option<Endpoint>, String> {
    let g = &settings.config.finops.carbon.grid;
    let Some(base) = env("EXAMLOPS_GRID_INTENSITY_URL").or_else(|| g.url.clone()) else { return Ok(None) };
    let zone = env("EXAMLOPS_GRID_INTENSITY_ZONE").or_else(|| g.zone.clone());
    let token = env("EXAMLOPS_GRID_INTENSITY_TOKEN").or_else(|| g.token.clone());
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(format!("the grid-intensity URL '{}' is not http:// or https://", redact(&base)));
    }
    let url = match (&zone, base.contains("{zone}")) {
        (Some(z), true) => base.replace("{zone}", &encode(z)),
        (None, true) => {
            return Err(format!(
                "the grid-intensity URL '{}' has {{zone}} but no zone is set (EXAMLOPS_GRID_INTENSITY_ZONE)",
                redact(&base)
            ))
        }
        (Some(z), false) => format!("{base}{}zone={}", if base.contains('?') { '&' } else { '?' }, encode(z)),
        (None, false) => base,
    };
    let timeout = Duration::from_secs_f64(g.timeout_s.filter(|t| t.is_finite() && *t > 0.0).unwrap_or(TIMEOUT_S));
    Ok(Some(Endpoint { url, zone, token, timeout }))
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The URL with the values of secret-looking query parameters hidden.
pub fn redact(url: &str) -> String {
    let Some((base, query)) = url.split_once('?') else { return url.to_string() };
    let secret = |k: &str| {
        let k = k.to_ascii_lowercase();
        ["token", "key", "auth", "secret", "password", "sig", "credential"].iter().any(|s| k.contains(s))
    };
    let parts: Vec<String> = query
        .split('&')
        .map(|kv| match kv.split_once('=') {
            Some((k, _)) if secret(k) => format!("{k}=REDACTED"),
            _ => kv.to_string(),
        })
        .collect();
    format!("{base}?{}", parts.join("&"))
}

fn fetch(ep: &Endpoint) -> Result<Vec<u8>, String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::blocking::Client::builder()
        .timeout(ep.timeout)
        .connect_timeout(ep.timeout)
        .redirect(reqwest::redirect::Policy::limited(3))
        .user_agent(concat!("exa/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {e}"))?;
    let mut req = client.get(&ep.url).header("Accept", "application/json");
    if let Some(t) = &ep.token {
        req = req.bearer_auth(t);
    }
    let resp = req.send().map_err(|e| describe(e, ep.timeout))?;
    let status = resp.status();
    if !status.is_success() {
        return Err(format!("the endpoint answered {status}"));
    }
    if resp.content_length().is_some_and(|n| n > MAX_BODY) {
        return Err(format!("the body is larger than {MAX_BODY} bytes"));
    }
    let mut body = Vec::new();
    resp.take(MAX_BODY + 1).read_to_end(&mut body).map_err(|e| format!("reading the body failed: {}", strip_url(&e.to_string())))?;
    if body.len() as u64 > MAX_BODY {
        return Err(format!("the body is larger than {MAX_BODY} bytes"));
    }
    Ok(body)
}

/// A reqwest error in words, without the URL it carries (which may hold secrets).
fn describe(e: reqwest::Error, timeout: Duration) -> String {
    if e.is_timeout() {
        return format!("no answer within {:.1} s", timeout.as_secs_f64());
    }
    if e.is_connect() {
        let mut cause = String::new();
        let mut src = std::error::Error::source(&e);
        while let Some(s) = src {
            cause = s.to_string();
            src = s.source();
        }
        return format!("cannot connect ({cause})");
    }
    strip_url(&e.without_url().to_string())
}

fn strip_url(s: &str) -> String {
    s.split(" for url (").next().unwrap_or(s).to_string()
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
}

fn text(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| v.get(*k).and_then(Value::as_str).map(str::to_string))
}

/// Reads an intensity in gCO2e/kWh from a body, without knowing the endpoint.
pub fn parse(body: &[u8]) -> Result<Reading, String> {
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

fn read(v: &Value) -> Result<Reading, String> {
    // WattTime v3: {"data": [{"point_time", "value"}], "meta": {"units": ...}}
    if let Some(units) = v.pointer("/meta/units").and_then(Value::as_str) {
        let point = v.pointer("/data/0").ok_or("a WattTime-style body with no data points")?;
        let raw = point.get("value").and_then(num).ok_or("a WattTime-style data point with no value")?;
        let time = text(point, &["point_time"]);
        return match units.to_ascii_lowercase().as_str() {
            "lbs_co2_per_mwh" => {
                Ok(Reading { value: raw * LBS_PER_MWH_TO_G_PER_KWH, time, detail: Some(format!("{raw} lbs_co2_per_mwh x 0.453592")) })
            }
            "g_co2_per_kwh" | "gco2/kwh" | "gco2e/kwh" => Ok(Reading { value: raw, time, detail: None }),
            "percentile" => Err("the endpoint answers a percentile (WattTime signal-index), not an intensity".into()),
            other => Err(format!("the reading is in units '{other}', not an intensity exa can convert")),
        };
    }
    // UK Carbon Intensity: {"data": [{"from", "to", "intensity": {"forecast", "actual"}}]}
    if let Some(first) = v.pointer("/data/0") {
        if let Some(i) = first.get("intensity").filter(|i| i.is_object()) {
            let time = text(first, &["from"]);
            return match (i.get("actual").and_then(num), i.get("forecast").and_then(num)) {
                (Some(a), _) => Ok(Reading { value: a, time, detail: None }),
                (None, Some(f)) => Ok(Reading { value: f, time, detail: Some("no actual reading yet; this is the forecast".into()) }),
                (None, None) => Err("the intensity has neither an actual nor a forecast value".into()),
            };
        }
    }
    // Electricity Maps and the generic keys, at the top or nested one level.
    const KEYS: &[&str] = &["carbonIntensity", "intensity", "value"];
    let time_keys = ["datetime", "updatedAt", "from", "point_time", "timestamp"];
    let detail = |o: &Value| text(o, &["emissionFactorType"]).map(|t| format!("emission factor: {t}"));
    for k in KEYS {
        if let Some(x) = v.get(*k).and_then(num) {
            return Ok(Reading { value: x, time: text(v, &time_keys), detail: detail(v) });
        }
    }
    if let Some(map) = v.as_object() {
        for inner in map.values().filter(|x| x.is_object()) {
            for k in KEYS {
                if let Some(x) = inner.get(*k).and_then(num) {
                    return Ok(Reading { value: x, time: text(inner, &time_keys).or_else(|| text(v, &time_keys)), detail: detail(inner) });
                }
            }
        }
    }
    Err("the body has no carbonIntensity, intensity or value reading".into())
}

fn now_s() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn cache_path(ep: &Endpoint) -> Option<PathBuf> {
    let dir = directories::ProjectDirs::from("", "", "examlops")?.cache_dir().join("grid");
    let key = crate::provider::digest(&[&ep.url, ep.zone.as_deref().unwrap_or("")]);
    Some(dir.join(format!("{}.json", key.trim_start_matches("fnv1a64:"))))
}

fn read_cache(path: &Path, ep: &Endpoint, now: u64) -> Option<CacheEntry> {
    let entry: CacheEntry = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    let fresh = entry.fetched_at <= now && now - entry.fetched_at < CACHE_TTL_S;
    (fresh && entry.url == redact(&ep.url) && entry.zone == ep.zone && entry.reading.value.is_finite() && entry.reading.value > 0.0)
        .then_some(entry)
}

/// Best effort: a cache that cannot be written only costs a later request.
fn write_cache(path: &Path, entry: &CacheEntry) {
    let _ = crate::files::write_atomic(path, &serde_json::to_vec(entry).expect("cache entries serialise"));
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

    #[test]
    fn secrets_are_redacted() {
        assert_eq!(redact("https://x/y?zone=FR&auth-token=abc&api_key=k"), "https://x/y?zone=FR&auth-token=REDACTED&api_key=REDACTED");
        assert_eq!(redact("https://x/y"), "https://x/y");
    }
}
