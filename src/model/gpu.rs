//! GPU readings as data: one device's reading, what a run measured of it, and aggregates.
//!
//! Units are in the field names. What is not measured is `None`, never 0.

use serde::Serialize;

/// One device's reading. Units are in the field names.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Device {
    /// The device's index, as the tool numbers it.
    pub index: u32,
    /// The device's name, e.g. NVIDIA H100 80GB HBM3.
    pub name: String,
    /// GPU utilisation, percent.
    pub utilization_pct: Option<f64>,
    /// Memory-controller utilisation, percent.
    pub memory_utilization_pct: Option<f64>,
    /// Memory in use, MiB.
    pub memory_used_mib: Option<f64>,
    /// Memory on the device, MiB.
    pub memory_total_mib: Option<f64>,
    /// Temperature, °C.
    pub temperature_c: Option<f64>,
    /// Power draw, W.
    pub power_w: Option<f64>,
    /// The power limit, W.
    pub power_limit_w: Option<f64>,
    /// SM clock, MHz.
    pub clock_sm_mhz: Option<f64>,
    /// Memory clock, MHz.
    pub clock_memory_mhz: Option<f64>,
    /// Fan speed, percent.
    pub fan_pct: Option<f64>,
    /// Performance state (P0 is 0).
    pub pstate: Option<u8>,
    /// Slowed for heat (software or hardware).
    pub throttle_thermal: Option<bool>,
    /// Held at its power cap.
    pub throttle_power: Option<bool>,
    /// Slowed by the hardware (power brake or heat).
    pub throttle_hw_slowdown: Option<bool>,
    /// Corrected ECC errors since the driver loaded.
    pub ecc_corrected: Option<u64>,
    /// Uncorrected ECC errors since the driver loaded.
    pub ecc_uncorrected: Option<u64>,
}

/// Whether a device was ever throttled over a run, and why.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Throttled {
    /// For heat.
    pub thermal: bool,
    /// At its power cap.
    pub power: bool,
    /// By a hardware slowdown.
    pub hw_slowdown: bool,
}

/// What was measured of one device over a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceSummary {
    /// The device's index.
    pub index: u32,
    /// The device's name.
    pub name: String,
    /// None when the device never gave two power readings in a row.
    pub energy_kwh: Option<f64>,
    /// Seconds covered by integrated intervals.
    pub covered_s: f64,
    /// Mean power over the integrated intervals, W.
    pub mean_power_w: Option<f64>,
    /// 95th percentile of the power readings, W.
    pub p95_power_w: Option<f64>,
    /// The highest power reading, W.
    pub peak_power_w: Option<f64>,
    /// The highest temperature reading, °C.
    pub peak_temperature_c: Option<f64>,
    /// Samples in which the device gave a reading.
    pub samples: usize,
    /// Attempts in which it gave none (the tool failed, or the device was absent).
    pub missed: usize,
    /// Whether it was throttled, and why.
    pub throttled: Throttled,
}

/// Aggregates over the devices that reported each value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Aggregates {
    /// Devices read.
    pub gpu_count: usize,
    /// Mean utilisation over the devices that reported it, percent.
    pub mean_utilization_pct: Option<f64>,
    /// Devices that reported utilisation.
    pub utilization_count: usize,
    /// Memory in use summed over the devices that reported it, GiB.
    pub total_memory_used_gib: Option<f64>,
    /// Devices that reported memory.
    pub memory_count: usize,
    /// Power summed over the devices that reported it, W.
    pub total_power_w: Option<f64>,
    /// Devices that reported power.
    pub power_count: usize,
    /// The hottest device, °C.
    pub max_temperature_c: Option<f64>,
    /// Devices that reported temperature.
    pub temperature_count: usize,
}

impl Aggregates {
    /// The aggregates of one reading of `devices`.
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
