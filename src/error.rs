//! The error kinds exa reports, and the exit code each one means.
//!
//! Exit codes are decided here and nowhere else: 0 success, 1 a well-formed
//! request that was refused or failed, 2 a malformed command line, config or
//! input.

use std::process::ExitCode;

#[derive(Debug, thiserror::Error)]
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

/// The exit code for any error that reached `main`.
pub fn exit_code(err: &anyhow::Error) -> ExitCode {
    err.chain().find_map(|e| e.downcast_ref::<Error>()).map_or(ExitCode::from(1), Error::exit_code)
}
