//! A refusal of a metrics read, as the spec's table has it: code, status, message.

use serde::Serialize;

/// A refusal, as the spec's table: its code, status and message.
#[derive(Debug, Clone, Serialize)]
pub struct Refusal {
    /// The spec's code: bad-request, not-found, metrics-unavailable, rate-limited...
    pub code: &'static str,
    /// The HTTP status the code stands for.
    pub status: u16,
    /// What went wrong, for a person.
    pub message: String,
    /// When to retry, from Prometheus's Retry-After.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<String>,
}

impl Refusal {
    /// A malformed request (422).
    pub fn bad_request(message: String) -> Refusal {
        Refusal { code: "bad-request", status: 422, message, retry_after: None }
    }
    /// Nothing by that name (404).
    pub fn not_found(message: String) -> Refusal {
        Refusal { code: "not-found", status: 404, message, retry_after: None }
    }
    /// The cluster's monitoring did not answer (503).
    pub fn unavailable(cluster: &str, why: String) -> Refusal {
        Refusal {
            code: "metrics-unavailable",
            status: 503,
            message: format!("the monitoring of cluster {cluster} did not answer: {why}; retry"),
            retry_after: None,
        }
    }
    /// Prometheus is throttling (429).
    pub fn rate_limited(cluster: &str, retry_after: Option<String>) -> Refusal {
        let when = retry_after.as_deref().map(|r| format!("; retry after {r} s")).unwrap_or_default();
        Refusal {
            code: "rate-limited",
            status: 429,
            message: format!("Prometheus for cluster {cluster} is throttling requests{when}"),
            retry_after,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.code, self.status, self.message)
    }
}

impl std::error::Error for Refusal {}
