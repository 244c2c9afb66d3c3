//! GPU readings as data: one device's reading, what a run measured of it, and aggregates.
//!
//! Units are in the field names. What is not measured is `None`, never 0.

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

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Throttled {
    pub thermal: bool,
    pub power: bool,
    pub hw_slowdown: bool,
}

/// What was measured of one device over a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceSummary {
    pub index: u32,
    pub name: String,
    /// None when the device never gave two power readings in a row.
    pub energy_kwh: Option<f64>,
    /// Seconds covered by integrated intervals.
    pub covered_s: f64,
    pub mean_power_w: Option<f64>,
    pub p95_power_w: Option<f64>,
    pub peak_power_w: Option<f64>,
    pub peak_temperature_c: Option<f64>,
    /// Samples in which the device gave a reading.
    pub samples: usize,
    /// Attempts in which it gave none (the tool failed, or the device was absent).
    pub missed: usize,
    pub throttled: Throttled,
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
