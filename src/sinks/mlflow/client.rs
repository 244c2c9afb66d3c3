//! An MLflow tracking server, through its REST API: log a record's figures to
//! a run, create a run, finish it. Errors name the server without its
//! credentials and never carry a token or password.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::settings::MlflowTarget;
use crate::sources::http::{self, Request};

/// A client of the tracking server the settings resolved.
#[derive(Debug, Clone)]
pub struct Tracking {
    /// The server's base URL (http:// or https://).
    pub uri: String,
    /// MLFLOW_TRACKING_TOKEN: a bearer token.
    pub token: Option<String>,
    /// MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD.
    pub basic: Option<(String, String)>,
    /// MLFLOW_TRACKING_INSECURE_TLS: accept any certificate.
    pub insecure: bool,
    /// How long one request may take.
    pub timeout: Duration,
}

impl From<MlflowTarget> for Tracking {
    fn from(t: MlflowTarget) -> Tracking {
        Tracking { uri: t.uri, token: t.token, basic: t.basic, insecure: t.insecure, timeout: t.timeout }
    }
}

/// What a record logs to its run: metrics at one timestamp and step, and tags.
/// Sending it twice adds no second data point: MLflow keeps one copy of an
/// identical (key, value, timestamp, step).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Payload {
    /// The MLflow run.
    pub run_id: String,
    /// Milliseconds since the epoch: the record's time.
    pub timestamp_ms: i64,
    /// The metrics' step: the record's id, so the run's latest totals are the latest record's
    /// (0 in logs an older exa left waiting in the outbox).
    #[serde(default)]
    pub step: i64,
    /// Metric name and value.
    pub metrics: Vec<(String, f64)>,
    /// Tag name and value.
    pub tags: Vec<(String, String)>,
}

/// A call that failed.
#[derive(Debug, Clone)]
pub struct Failure {
    /// What went wrong, the URL without its secrets.
    pub message: String,
    /// The server as a whole failed (unreachable, not MLflow, not letting exa in): later calls would too.
    pub whole_server: bool,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl Tracking {
    /// The URL as exa shows it.
    pub fn shown(&self) -> String {
        crate::text::redact_url(&self.uri)
    }

    fn call(&self, path: &str, body: Option<Value>, query: &[(&str, &str)]) -> Result<Value, String> {
        self.exchange(path, body, query).map_err(|f| f.message)
    }

    /// One call; a failure says whether the server as a whole failed (no answer, not MLflow's, refused us)
    /// or only this call.
    fn exchange(&self, path: &str, body: Option<Value>, query: &[(&str, &str)]) -> Result<Value, Failure> {
        let whole = |message: String| Failure { message, whole_server: true };
        let url = http::with_path(&self.uri, &["api/2.0/mlflow", path]).map_err(|e| whole(format!("MLflow: {e}")))?;
        let mut get = Request::new(url, self.timeout, 4 << 20);
        get.json = body.map(|b| b.to_string());
        get.query = query.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect();
        get.bearer.clone_from(&self.token);
        get.basic.clone_from(&self.basic);
        get.insecure = self.insecure;
        let answer = http::send(get).map_err(|e| whole(format!("MLflow at {}: {e}", self.shown())))?;
        let v: Value = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
        if (200..300).contains(&answer.status) {
            // MLflow answers every call with a JSON object; anything else (a proxy's login page) logged nothing.
            return if v.is_object() {
                Ok(v)
            } else {
                Err(whole(format!(
                    "MLflow at {} answered HTTP {} with something that is not MLflow's JSON (a proxy's page?); nothing was logged",
                    self.shown(),
                    answer.status
                )))
            };
        }
        let code = v["error_code"].as_str().unwrap_or("");
        let message = v["message"].as_str().unwrap_or("");
        let why = match (answer.status, code) {
            (401 | 403, _) => {
                "not authorized (check MLFLOW_TRACKING_TOKEN, or MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD)".to_string()
            }
            (_, "") => format!("HTTP {}", answer.status),
            (_, c) => format!("{c}: {}", crate::text::clean(message)),
        };
        // Only MLflow's own refusal of this call (an error code, a 4xx other than auth) leaves the others worth trying.
        let whole_server = code.is_empty() || matches!(answer.status, 401 | 403 | 407 | 429) || answer.status >= 500;
        Err(Failure { message: format!("MLflow at {}: {why}", self.shown()), whole_server })
    }

    /// Logs a record's metrics and tags to its run.
    pub fn log(&self, p: &Payload) -> Result<(), Failure> {
        let metrics: Vec<Value> =
            p.metrics.iter().map(|(k, v)| json!({"key": k, "value": v, "timestamp": p.timestamp_ms, "step": p.step})).collect();
        let tags: Vec<Value> = p.tags.iter().map(|(k, v)| json!({"key": k, "value": v})).collect();
        self.exchange("runs/log-batch", Some(json!({"run_id": p.run_id, "metrics": metrics, "tags": tags})), &[]).map(|_| ())
    }

    /// Creates a run named `name` in the experiment `experiment` (made when missing); its id.
    pub fn create_run(&self, experiment: &str, name: &str, start_ms: i64) -> Result<String, String> {
        let id = match self.call("experiments/get-by-name", None, &[("experiment_name", experiment)]) {
            Ok(v) => v["experiment"]["experiment_id"].as_str().map(str::to_string),
            Err(e) if e.contains("RESOURCE_DOES_NOT_EXIST") => None,
            Err(e) => return Err(e),
        };
        let id = match id {
            Some(id) => id,
            None => self.call("experiments/create", Some(json!({"name": experiment})), &[])?["experiment_id"]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("MLflow at {}: no experiment id in its answer", self.shown()))?,
        };
        let run = self.call(
            "runs/create",
            Some(json!({"experiment_id": id, "run_name": name, "start_time": start_ms, "tags": [{"key": "mlflow.source.name", "value": "exa"}]})),
            &[],
        )?;
        run["run"]["info"]["run_id"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("MLflow at {}: no run id in its answer", self.shown()))
    }

    /// Marks a run finished (or failed) at `end_ms`.
    pub fn finish_run(&self, run_id: &str, ok: bool, end_ms: i64) -> Result<(), String> {
        let status = if ok { "FINISHED" } else { "FAILED" };
        self.call("runs/update", Some(json!({"run_id": run_id, "status": status, "end_time": end_ms})), &[]).map(|_| ())
    }
}
