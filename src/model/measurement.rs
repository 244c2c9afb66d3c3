//! A measured run: the command, the GPUs' energy, the CPU time, and their price.

use serde::Serialize;

use super::{DeviceSummary, Estimate, Sourced};

#[derive(Debug, Serialize)]
pub struct Stored {
    pub model: String,
    pub run_id: Option<String>,
    pub ids: Vec<i64>,
    pub db: String,
}

#[derive(Debug, Serialize)]
pub struct Gpu {
    /// `measured` or `not measured`.
    pub status: &'static str,
    /// Why not, or what limited the measurement.
    pub reason: Option<String>,
    pub source: Option<String>,
    pub fields: Option<&'static str>,
    pub samples: usize,
    pub missed: usize,
    pub gave_up: bool,
    pub devices: Vec<DeviceSummary>,
    /// GPU energy only: the sum over devices that had a power reading.
    pub energy_kwh: Option<f64>,
    pub device_hours: Option<f64>,
    pub mean_power_w: Option<f64>,
}

#[derive(Debug, Serialize)]
pub struct Cpu {
    pub hours: f64,
    pub user_s: f64,
    pub system_s: f64,
    pub source: &'static str,
}

#[derive(Debug, Serialize)]
pub struct Electricity {
    pub price_per_kwh: Sourced<f64>,
    pub kwh: f64,
    pub cost_usd: f64,
    pub note: &'static str,
}

#[derive(Debug, Serialize)]
pub struct Measurement {
    pub command: Option<Vec<String>>,
    pub exit_code: Option<i32>,
    /// The signal that ended the command, if one did.
    pub killed_by: Option<String>,
    /// The signal that interrupted the run, if one did.
    pub interrupted: Option<String>,
    pub started_at: String,
    pub duration_s: f64,
    pub interval_s: Sourced<f64>,
    pub gpu: Gpu,
    pub cpu: Option<Cpu>,
    pub carbon: Option<Estimate>,
    pub carbon_error: Option<String>,
    pub cost: Option<Estimate>,
    pub cost_error: Option<String>,
    pub electricity: Option<Electricity>,
    /// The records written for --record.
    pub recorded: Option<Stored>,
    /// Why --record wrote nothing.
    pub record_error: Option<String>,
    /// CPU seconds exa itself used (user + system; nvidia-smi and the command not included).
    pub exa_cpu_s: f64,
}

impl Measurement {
    /// The status exa exits with: the command's (128 + signal when a signal ended it).
    pub fn exit_status(&self) -> u8 {
        self.exit_code.map_or(0, |c| u8::try_from(c).unwrap_or(1))
    }
}

impl Gpu {
    /// Nothing measured yet: no source, no samples, no energy.
    pub fn empty() -> Gpu {
        Gpu {
            status: "not measured",
            reason: None,
            source: None,
            fields: None,
            samples: 0,
            missed: 0,
            gave_up: false,
            devices: Vec::new(),
            energy_kwh: None,
            device_hours: None,
            mean_power_w: None,
        }
    }
}
