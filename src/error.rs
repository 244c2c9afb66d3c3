//! The error kinds exa reports, and the exit code each one means.
//!
//! Exit codes are decided here and nowhere else: 0 success, 1 a well-formed
//! request that was refused or failed, 2 a malformed command line, config or
//! input.

use std::process::ExitCode;

#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// A malformed argument or input value (exit 2).
    #[error("{0}")]
    Usage(String),
    /// A malformed config file or environment variable (exit 2).
    #[error("{0}")]
    Config(String),
    /// A well-formed request that exa refuses (exit 1).
    #[error("{0}")]
    Refused(String),
    /// A well-formed request that failed while running (exit 1).
    #[error("{0}")]
    Failed(String),
    /// A refusal of `exa metrics`, with the spec's code and status.
    #[error("{0}")]
    Metrics(crate::model::Refusal),
}

/// How a door names an error: its kind, the spec's code, and the HTTP status that code stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    /// usage, config, refused, failed or metrics.
    pub kind: &'static str,
    /// bad-request, refused, failed, or a metrics refusal's own (not-found, metrics-unavailable, ...).
    pub code: &'static str,
    /// 422, 409, 500, or a metrics refusal's own.
    pub status: u16,
}

impl Error {
    /// The one mapping from an error to its kind, code and status, for the CLI's `-o json` and for MCP alike.
    pub fn kind(&self) -> Kind {
        let (kind, code, status) = match self {
            Error::Usage(_) => ("usage", "bad-request", 422),
            Error::Config(_) => ("config", "bad-request", 422),
            Error::Refused(_) => ("refused", "refused", 409),
            Error::Failed(_) => ("failed", "failed", 500),
            Error::Metrics(r) => ("metrics", r.code, r.status),
        };
        Kind { kind, code, status }
    }

    pub fn exit_code(&self) -> ExitCode {
        match self {
            Error::Usage(_) | Error::Config(_) => ExitCode::from(2),
            Error::Refused(_) | Error::Failed(_) => ExitCode::from(1),
            Error::Metrics(r) if r.code == "bad-request" => ExitCode::from(2),
            Error::Metrics(_) => ExitCode::from(1),
        }
    }
}

/// Which door a refusal leaves by: the CLI's `-o json` or an MCP tool error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// `{"error": {"kind", "message"}}`; a metrics refusal has the spec's whole envelope.
    Cli,
    /// The spec's whole envelope, always: kind, code, status, message, and retry_after when there is one.
    Mcp,
}

/// The spec's envelope of a refusal.
pub fn envelope(kind: Kind, message: &str, retry_after: Option<&str>, door: Door) -> serde_json::Value {
    let mut e = serde_json::json!({"kind": kind.kind, "code": kind.code, "status": kind.status, "message": message});
    match (retry_after, door) {
        (Some(r), _) => e["retry_after"] = r.into(),
        (None, Door::Cli) => e["retry_after"] = serde_json::Value::Null,
        (None, Door::Mcp) => {}
    }
    serde_json::json!({ "error": e })
}

/// The JSON body of an error at either door: the one place an error becomes what a program
/// reads. `message` is the whole chain as the CLI shows it; a metrics refusal keeps its own.
pub fn body(err: Option<&Error>, message: &str, door: Door) -> serde_json::Value {
    match (err, door) {
        (Some(e @ Error::Metrics(r)), _) => envelope(e.kind(), &r.message, r.retry_after.as_deref(), door),
        (Some(e), Door::Cli) => serde_json::json!({"error": {"kind": e.kind().kind, "message": message}}),
        (None, Door::Cli) => serde_json::json!({"error": {"kind": "failed", "message": message}}),
        (Some(e), Door::Mcp) => envelope(e.kind(), message, None, door),
        (None, Door::Mcp) => envelope(Error::Failed(String::new()).kind(), message, None, door),
    }
}

/// The exit code for any error that reached `main`.
pub fn exit_code(err: &anyhow::Error) -> ExitCode {
    err.chain().find_map(|e| e.downcast_ref::<Error>()).map_or(ExitCode::from(1), Error::exit_code)
}
