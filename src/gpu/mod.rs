//! GPU readings behind a seam: `GpuSource`, with `nvidia-smi` as the first source.
//!
//! What is not measured is not reported: a field a device cannot report is
//! `None`, never 0, and a device with no power reading gets no energy. This
//! module reads; the sampler owns time and the integrator owns arithmetic.

pub mod energy;
pub mod nvidia_smi;
pub mod sampler;

use serde::Serialize;

/// One device's reading. Units are in the field names.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Device {
    pub index: u32,
    pub name: String,
    pub utilization_pct: Option<f64>,
    pub memory_utilization_pct: Option<f64>,
    pub memory_used_mib: Option<f64>,
    pub memory_total_mib: Option<f64>,
    pub temperature_c: Option<f64>,
    pub power_w: Option<f64>,
    pub power_limit_w: Option<f64>,
    pub clock_sm_mhz: Option<f64>,
    pub clock_memory_mhz: Option<f64>,
    pub fan_pct: Option<f64>,
    pub pstate: Option<u8>,
    pub throttle_thermal: Option<bool>,
    pub throttle_power: Option<bool>,
    pub throttle_hw_slowdown: Option<bool>,
    pub ecc_corrected: Option<u64>,
    pub ecc_uncorrected: Option<u64>,
}

/// Why a sample has no readings.
#[derive(Debug, Clone, PartialEq)]
pub enum SampleError {
    /// The tool is not on this host: no GPU to read.
    Missing(String),
    /// The tool says there are no devices: no GPU to read.
    NoDevices,
    /// The tool failed: what it said, or why it gave nothing.
    Failed(String),
}

impl std::fmt::Display for SampleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SampleError::Missing(why) => f.write_str(why),
            SampleError::NoDevices => f.write_str("nvidia-smi found no devices (\"No devices were found\")"),
            SampleError::Failed(why) => f.write_str(why),
        }
    }
}

/// A source of GPU readings. Implementations never invent a value.
pub trait GpuSource: Send {
    /// One reading of every device.
    fn sample(&mut self) -> Result<Vec<Device>, SampleError>;
    /// What it is, for reports: "nvidia-smi (/usr/bin/nvidia-smi)".
    fn describe(&self) -> String;
    /// Which field set it is using now, for reports.
    fn fields(&self) -> &'static str;
    /// Notices to pass on once (a field set given up, say).
    fn take_notices(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// Aggregates over the devices that reported each value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Aggregates {
    pub gpu_count: usize,
    pub mean_utilization_pct: Option<f64>,
    pub utilization_count: usize,
    pub total_memory_used_gib: Option<f64>,
    pub memory_count: usize,
    pub total_power_w: Option<f64>,
    pub power_count: usize,
    pub max_temperature_c: Option<f64>,
    pub temperature_count: usize,
}

impl Aggregates {
    pub fn of(devices: &[Device]) -> Aggregates {
        let vals = |f: fn(&Device) -> Option<f64>| devices.iter().filter_map(f).collect::<Vec<f64>>();
        let util = vals(|d| d.utilization_pct);
        let mem = vals(|d| d.memory_used_mib);
        let power = vals(|d| d.power_w);
        let temp = vals(|d| d.temperature_c);
        let some = |v: &[f64], x: f64| (!v.is_empty()).then_some(x);
        Aggregates {
            gpu_count: devices.len(),
            mean_utilization_pct: some(&util, util.iter().sum::<f64>() / util.len().max(1) as f64),
            utilization_count: util.len(),
            total_memory_used_gib: some(&mem, mem.iter().sum::<f64>() / 1024.0),
            memory_count: mem.len(),
            total_power_w: some(&power, power.iter().sum()),
            power_count: power.len(),
            max_temperature_c: some(&temp, temp.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
            temperature_count: temp.len(),
        }
    }
}
