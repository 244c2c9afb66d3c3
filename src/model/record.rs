//! A record to store: an estimate of a model's work, and what was measured of it.

use serde::Serialize;

use super::Estimate;

/// What a measured run adds to its records.
#[derive(Debug, Clone, Serialize)]
pub struct Measured {
    /// How long the run took, seconds.
    pub duration_s: f64,
    /// GPUs measured.
    pub device_count: usize,
    /// The measured GPU energy, kWh.
    pub gpu_kwh: Option<f64>,
}

/// Who ran the work and where, as a scheduler reports it: kept on the record so
/// reports group by them. Empty for work recorded by hand or measured.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Labels {
    /// The user who ran the job.
    pub user: Option<String>,
    /// The account (bank) it was charged to.
    pub account: Option<String>,
    /// The partition (queue) it ran in.
    pub partition: Option<String>,
}

/// A record to append to the ledger.
pub struct NewRecord {
    /// The model the work belongs to.
    pub model: String,
    /// The run id (an MLflow run's, say).
    pub run_id: Option<String>,
    /// When it was recorded, seconds since the epoch.
    pub recorded_at: i64,
    /// The host that recorded it.
    pub host: String,
    /// The estimate, whole.
    pub estimate: Estimate,
    /// What was measured, for a measured run.
    pub measured: Option<Measured>,
    /// One part of its run's work (summed with the other parts), not a repeat of it.
    pub part: bool,
    /// The idempotency key, made before the record is sent: a ledger writes a key once.
    pub key: String,
    /// The scheduler's user, account and partition, for an imported job.
    pub labels: Labels,
}
