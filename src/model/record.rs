//! A record to store: an estimate of a model's work, and what was measured of it.

use serde::Serialize;

use super::Estimate;

/// What a measured run adds to its records.
#[derive(Debug, Clone, Serialize)]
pub struct Measured {
    pub duration_s: f64,
    pub device_count: usize,
    pub gpu_kwh: Option<f64>,
}

pub struct NewRecord {
    pub model: String,
    pub run_id: Option<String>,
    pub recorded_at: i64,
    pub host: String,
    pub estimate: Estimate,
    pub measured: Option<Measured>,
}
