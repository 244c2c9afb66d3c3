//! A small Prometheus HTTP API client: instant and range queries, each
//! with a timeout and a capped body, run concurrently by the caller.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::Refusal;

/// The largest answer read from Prometheus.
const MAX_BODY: u64 = 64 << 20;

/// A Prometheus HTTP API client for one cluster.
pub struct Client {
    /// Queries made, and the nanoseconds they took, summed over threads.
    pub made: AtomicU64,
    /// Nanoseconds the queries took, summed over threads.
    pub nanos: AtomicU64,
    http: reqwest::blocking::Client,
    base: String,
    token: Option<String>,
    cluster: String,
}

/// One series: its labels and its samples (epoch seconds, value).
#[derive(Debug, Clone)]
pub struct RawSeries {
    /// The series' labels.
    pub labels: BTreeMap<String, String>,
    /// (seconds since the epoch, value), in time order.
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

impl Client {
    /// A client for `base`, each request bounded by `timeout`.
    pub fn new(cluster: &str, base: &str, token: Option<String>, timeout: Duration) -> Result<Client, Refusal> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::blocking::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .user_agent(concat!("exa/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Refusal::unavailable(cluster, format!("cannot build an HTTP client: {e}")))?;
        Ok(Client {
            made: AtomicU64::new(0),
            nanos: AtomicU64::new(0),
            http,
            base: base.trim_end_matches('/').to_string(),
            token,
            cluster: cluster.to_string(),
        })
    }

    /// An instant query at `time`.
    pub fn instant(&self, query: &str, time: i64) -> Result<PromAnswer, Refusal> {
        self.get("query", &[("query", query.to_string()), ("time", time.to_string())])
    }

    /// A range query on the grid start, start + step, ..., end.
    pub fn range(&self, query: &str, start: i64, end: i64, step: i64) -> Result<PromAnswer, Refusal> {
        self.get(
            "query_range",
            &[("query", query.to_string()), ("start", start.to_string()), ("end", end.to_string()), ("step", step.to_string())],
        )
    }

    fn get(&self, endpoint: &str, params: &[(&str, String)]) -> Result<PromAnswer, Refusal> {
        let started = Instant::now();
        let r = self.fetch(endpoint, params);
        self.made.fetch_add(1, Ordering::Relaxed);
        self.nanos.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        r
    }

    fn fetch(&self, endpoint: &str, params: &[(&str, String)]) -> Result<PromAnswer, Refusal> {
        let url = format!("{}/api/v1/{endpoint}", self.base);
        let mut req = self.http.get(&url).query(params);
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        let resp = req.send().map_err(|e| {
            let why = if e.is_timeout() { "no answer in time".to_string() } else { format!("cannot reach Prometheus at {}", self.base) };
            Refusal::unavailable(&self.cluster, why)
        })?;
        let status = resp.status();
        let retry_after = resp.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_string);
        let mut body = Vec::new();
        resp.take(MAX_BODY + 1)
            .read_to_end(&mut body)
            .map_err(|e| Refusal::unavailable(&self.cluster, format!("reading the answer failed: {e}")))?;
        if body.len() as u64 > MAX_BODY {
            return Err(Refusal::unavailable(&self.cluster, format!("the answer is larger than {MAX_BODY} bytes")));
        }
        if status.as_u16() == 429 {
            return Err(Refusal::rate_limited(&self.cluster, retry_after));
        }
        let v: Value = serde_json::from_slice(&body)
            .map_err(|_| Refusal::unavailable(&self.cluster, format!("Prometheus answered {status} without JSON")))?;
        if v["status"] != "success" {
            let words = v["error"].as_str().unwrap_or("unknown error").to_string();
            return if status.as_u16() == 400 || status.as_u16() == 422 || v["errorType"] == "bad_data" {
                Err(Refusal::bad_request(format!("Prometheus: {words}")))
            } else {
                Err(Refusal::unavailable(&self.cluster, format!("Prometheus answered {status}: {words}")))
            };
        }
        parse(&v["data"]).ok_or_else(|| Refusal::unavailable(&self.cluster, "Prometheus answered in a shape exa does not know".into()))
    }
}

fn sample(p: &Value) -> Option<(f64, f64)> {
    let t = p.get(0)?.as_f64()?;
    let v: f64 = p.get(1)?.as_str()?.parse().ok()?;
    Some((t, v))
}

fn labels(m: &Value) -> BTreeMap<String, String> {
    m.as_object().map(|o| o.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect()).unwrap_or_default()
}

fn parse(data: &Value) -> Option<PromAnswer> {
    let result = &data["result"];
    Some(match data["resultType"].as_str()? {
        "vector" => PromAnswer::Vector(
            result
                .as_array()?
                .iter()
                .map(|s| RawSeries { labels: labels(&s["metric"]), samples: sample(&s["value"]).into_iter().collect() })
                .collect(),
        ),
        "matrix" => PromAnswer::Matrix(
            result
                .as_array()?
                .iter()
                .map(|s| RawSeries {
                    labels: labels(&s["metric"]),
                    samples: s["values"].as_array().map(|a| a.iter().filter_map(sample).collect()).unwrap_or_default(),
                })
                .collect(),
        ),
        "scalar" => {
            let (t, v) = sample(result)?;
            PromAnswer::Scalar(t, v)
        }
        _ => return None,
    })
}
