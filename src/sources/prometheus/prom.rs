//! A small Prometheus HTTP API client: instant and range queries through
//! exa's one HTTP client (a deadline for the whole exchange, a capped body),
//! answers decoded straight into typed series, so memory stays a small
//! multiple of the body. A sample that is not a finite number (NaN, ±Inf)
//! is no reading: a series of nothing else did not answer.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::model::IndexMap;
use serde::Deserialize;

use super::Refusal;
use crate::sources::http::{self, HttpError, Request};
use crate::text::redact_url as redact;

/// The largest answer read from Prometheus.
const MAX_BODY: u64 = 64 << 20;

/// The most steps Prometheus evaluates in one range query (it refuses a
/// span over step above 11,000: "exceeded maximum resolution of 11,000
/// points per timeseries").
pub const MAX_RANGE_STEPS: i64 = 11_000;
/// The steps of one read when a range is split.
const CHUNK_STEPS: i64 = 10_000;

/// A Prometheus HTTP API client for one cluster.
pub struct Client {
    /// Queries made, summed over threads.
    pub made: AtomicU64,
    /// Nanoseconds the queries took, summed over threads.
    pub nanos: AtomicU64,
    timeout: Duration,
    base: String,
    token: Option<String>,
    cluster: String,
    scope: IndexMap<String, String>,
}

/// One series: its labels and its samples (epoch seconds, value).
#[derive(Debug, Clone)]
pub struct RawSeries {
    /// The series' labels.
    pub labels: BTreeMap<String, String>,
    /// (seconds since the epoch, value), in time order; finite values only.
    pub samples: Vec<(f64, f64)>,
}

/// What a query answered, by result type.
#[derive(Debug, Clone)]
pub enum PromAnswer {
    /// An instant vector.
    Vector(Vec<RawSeries>),
    /// A range matrix.
    Matrix(Vec<RawSeries>),
    /// A scalar: (time, value).
    Scalar(f64, f64),
}

impl PromAnswer {
    /// The series of a vector or matrix; none for a scalar.
    pub fn series(self) -> Vec<RawSeries> {
        match self {
            PromAnswer::Vector(s) | PromAnswer::Matrix(s) => s,
            PromAnswer::Scalar(..) => Vec::new(),
        }
    }
}

/// The API's envelope: `{"status", "data" | "errorType", "error"}`.
#[derive(Deserialize)]
struct Envelope {
    status: String,
    data: Option<Data>,
    #[serde(rename = "errorType")]
    error_type: Option<String>,
    error: Option<String>,
}

/// `data`: `resultType` names the shape of `result`.
#[derive(Deserialize)]
#[serde(tag = "resultType", content = "result", rename_all = "lowercase")]
enum Data {
    Vector(Vec<Wire>),
    Matrix(Vec<Wire>),
    Scalar((f64, String)),
    String(serde::de::IgnoredAny),
}

/// One series as the API sends it.
#[derive(Deserialize)]
struct Wire {
    #[serde(default)]
    metric: BTreeMap<String, String>,
    value: Option<(f64, String)>,
    #[serde(default)]
    values: Vec<(f64, String)>,
}

fn finite((t, v): (f64, String)) -> Option<(f64, f64)> {
    v.parse::<f64>().ok().filter(|v| v.is_finite()).map(|v| (t, v))
}

impl Wire {
    fn series(self) -> RawSeries {
        let samples = self.value.into_iter().chain(self.values).filter_map(finite).collect();
        RawSeries { labels: self.metric, samples }
    }
}

impl Client {
    /// A client for `base`, each request bounded by `timeout` from start to
    /// last byte, and every expression scoped to `scope` before it is sent.
    pub fn new(cluster: &str, base: &str, token: Option<String>, timeout: Duration, scope: IndexMap<String, String>) -> Client {
        Client {
            made: AtomicU64::new(0),
            nanos: AtomicU64::new(0),
            timeout,
            base: base.trim_end_matches('/').to_string(),
            token,
            cluster: cluster.to_string(),
            scope,
        }
    }

    /// An instant query at `time`.
    pub fn instant(&self, query: &str, time: i64) -> Result<PromAnswer, Refusal> {
        self.get("query", &[("query", self.scoped(query)?), ("time", time.to_string())])
    }

    /// A range query on the grid start, start + step, ..., end. A grid of
    /// more steps than Prometheus evaluates at once is read in parts, each
    /// continuing the grid where the last ended, and the series joined.
    pub fn range(&self, query: &str, start: i64, end: i64, step: i64) -> Result<PromAnswer, Refusal> {
        let (query, step) = (self.scoped(query)?, step.max(1));
        let once = |from: i64, to: i64| {
            self.get(
                "query_range",
                &[("query", query.clone()), ("start", from.to_string()), ("end", to.to_string()), ("step", step.to_string())],
            )
        };
        if (end - start) / step <= MAX_RANGE_STEPS {
            return once(start, end);
        }
        let mut joined: BTreeMap<BTreeMap<String, String>, Vec<(f64, f64)>> = BTreeMap::new();
        let mut from = start;
        while from <= end {
            let to = from.saturating_add(CHUNK_STEPS * step).min(end);
            for s in once(from, to)?.series() {
                joined.entry(s.labels).or_default().extend(s.samples);
            }
            from = to + step;
        }
        Ok(PromAnswer::Matrix(joined.into_iter().map(|(labels, samples)| RawSeries { labels, samples }).collect()))
    }

    /// The expression as it is sent: with the cluster's matchers on every selector.
    pub fn scoped(&self, query: &str) -> Result<String, Refusal> {
        super::tenant::scope(query, &self.scope)
    }

    fn get(&self, endpoint: &str, params: &[(&str, String)]) -> Result<PromAnswer, Refusal> {
        let started = Instant::now();
        let r = self.fetch(endpoint, params);
        self.made.fetch_add(1, Ordering::Relaxed);
        self.nanos.fetch_add(u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX), Ordering::Relaxed);
        r
    }

    fn fetch(&self, endpoint: &str, params: &[(&str, String)]) -> Result<PromAnswer, Refusal> {
        let mut get = Request::new(format!("{}/api/v1/{endpoint}", self.base), self.timeout, MAX_BODY);
        get.query = params.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect();
        get.bearer.clone_from(&self.token);
        let answer = http::send(get).map_err(|e| {
            let why = match e {
                HttpError::Timeout(_) => "no answer in time".to_string(),
                HttpError::TooLarge(cap) => format!("the answer is larger than {cap} bytes"),
                HttpError::Connect(_) | HttpError::Other(_) => format!("cannot reach Prometheus at {}", redact(&self.base)),
            };
            Refusal::unavailable(&self.cluster, why)
        })?;
        if answer.status == 429 {
            return Err(Refusal::rate_limited(&self.cluster, answer.retry_after));
        }
        let status = answer.status;
        let env: Envelope = serde_json::from_slice(&answer.body)
            .map_err(|_| Refusal::unavailable(&self.cluster, format!("Prometheus answered {status} without JSON it understands")))?;
        if env.status != "success" {
            let words = crate::text::clean(env.error.as_deref().unwrap_or("unknown error"));
            return if status == 400 || status == 422 || env.error_type.as_deref() == Some("bad_data") {
                Err(Refusal::bad_request(format!("Prometheus: {words}")))
            } else {
                Err(Refusal::unavailable(&self.cluster, format!("Prometheus answered {status}: {words}")))
            };
        }
        Ok(match env.data {
            Some(Data::Vector(s)) => PromAnswer::Vector(s.into_iter().map(Wire::series).collect()),
            Some(Data::Matrix(s)) => PromAnswer::Matrix(s.into_iter().map(Wire::series).collect()),
            // A scalar keeps what it said; a NaN shows as null.
            Some(Data::Scalar((t, v))) => PromAnswer::Scalar(t, v.parse().unwrap_or(f64::NAN)),
            Some(Data::String(_)) | None => {
                return Err(Refusal::unavailable(&self.cluster, "Prometheus answered in a shape exa does not know".into()))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_samples_are_no_reading() {
        let body = r#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"gpu":"0"},"values":[[1,"NaN"],[2,"+Inf"],[3,"-Inf"]]},
            {"metric":{"gpu":"1"},"values":[[1,"1e306"],[2,"NaN"],[3,"7"]]}]}}"#;
        let env: Envelope = serde_json::from_str(body).unwrap();
        let Some(Data::Matrix(wires)) = env.data else { panic!("a matrix") };
        let series: Vec<RawSeries> = wires.into_iter().map(Wire::series).collect();
        assert!(series[0].samples.is_empty(), "a family that answered only NaN did not answer");
        assert_eq!(series[1].samples, vec![(1.0, 1e306), (3.0, 7.0)]);
    }
}
