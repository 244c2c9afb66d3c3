//! GPU readings as data: one device's reading, what a run measured of it, and aggregates.
//!
//! Units are in the field names. What is not measured is `None`, never 0.

use serde::Serialize;

use super::energy::{Joules, Kwh};

/// Where GPU readings come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GpuChoice {
    /// NVML if it loads, else nvidia-smi, else amd-smi, else none.
    Auto,
    /// NVIDIA's library, loaded at run time.
    Nvml,
    /// `nvidia-smi --query-gpu`, once per reading.
    NvidiaSmi,
    /// AMD's `amd-smi metric --json`, once per reading.
    AmdSmi,
}

/// The names `--gpu-source` takes.
pub const GPU_CHOICES: &[&str] = &["auto", "nvml", "nvidia-smi", "amd-smi"];

/// The names `--cpu-source` (and `EXAMLOPS_CPU_SOURCE`, `cpu.source`) takes; `sources::cpu::CpuChoice` is each.
pub const CPU_CHOICES: &[&str] = &["auto", "powercap", "perf", "none"];

/// The node power sources `measure --node-source` takes.
pub const NODE_CHOICES: &[&str] = &["auto", "hwmon", "ipmi", "redfish", "none"];

impl GpuChoice {
    /// Its name, as the flag takes it.
    pub fn name(self) -> &'static str {
        match self {
            GpuChoice::Auto => "auto",
            GpuChoice::Nvml => "nvml",
            GpuChoice::NvidiaSmi => "nvidia-smi",
            GpuChoice::AmdSmi => "amd-smi",
        }
    }
}

impl std::str::FromStr for GpuChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(GpuChoice::Auto),
            "nvml" => Ok(GpuChoice::Nvml),
            "nvidia-smi" => Ok(GpuChoice::NvidiaSmi),
            "amd-smi" => Ok(GpuChoice::AmdSmi),
            other => Err(format!("'{}' is not a GPU source (auto, nvml, nvidia-smi, amd-smi)", other.escape_default())),
        }
    }
}

impl std::fmt::Display for GpuChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One device's reading. Units are in the field names.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Device {
    /// The device's index, as the tool numbers it.
    pub index: u32,
    /// The device's name, e.g. NVIDIA H100 80GB HBM3.
    pub name: String,
    /// The device's UUID (GPU-…), where the source gives it.
    pub uuid: Option<String>,
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
    /// The device's energy counter, J since the driver loaded (NVML on Volta and newer, AMD's accumulator).
    pub energy_counter_j: Option<Joules>,
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
    /// The device's UUID, where the source gives it.
    pub uuid: Option<String>,
    /// None when the device never gave two power readings in a row.
    pub energy_kwh: Option<Kwh>,
    /// How the energy was found: `counter` (the device's energy counter's increase, exact whatever the
    /// interval), `trapezoid` (the trapezoid rule over power readings), or `counter+trapezoid` (the
    /// counter, and the trapezoid over readings outside its first and last read); null without energy.
    pub energy_method: Option<&'static str>,
    /// A figure of the device's that was not kept, being beyond what it can draw (an energy counter's jump, a
    /// power reading of a terawatt) or a counter that never moved, and what stood in; null when none.
    pub refused: Option<String>,
    /// Other processes seen computing on the device during the run; null where the source cannot list them.
    pub shared_with: Option<usize>,
    /// This job's share of the device's energy, where others computed on it too and the source said how busy
    /// each kept it; null otherwise (a device of the job's alone, or a source that cannot say).
    pub share: Option<GpuShare>,
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

/// Where a shared device's idle energy goes (`measure --idle-share`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IdlePolicy {
    /// Kept apart as idle: no process pays for it.
    None,
    /// Shared evenly among the processes seen on the device.
    Even,
    /// Shared by each process's activity over the run.
    #[default]
    ByActivity,
}

impl IdlePolicy {
    /// Its name, as the flag takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            IdlePolicy::None => "none",
            IdlePolicy::Even => "even",
            IdlePolicy::ByActivity => "by-activity",
        }
    }
}

/// A shared device's energy split among the processes on it (`sources::gpu::split`): the parts and the idle
/// left add up to the device's energy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuShare {
    /// This job's part, kWh: what the run counts for the device.
    pub job_kwh: Kwh,
    /// The device's energy over the run, kWh (as `energy_kwh`).
    pub device_kwh: Kwh,
    /// The other processes' parts together, kWh.
    pub others_kwh: Kwh,
    /// Idle energy charged to no process, kWh (all the idle energy under the `none` policy).
    pub idle_kwh: Kwh,
    /// The idle energy the device used, charged or not, kWh.
    pub idle_seen_kwh: Kwh,
    /// The device's idle power, W, where it idled for a reading interval in the run; null where it never did
    /// (its idle energy is then inside the busy intervals' shares).
    pub idle_w: Option<f64>,
    /// Where idle energy went: `none`, `even` or `by-activity`; `by-allocation` for a MIG instance's GPU (idle
    /// inside the shares, as the slices are).
    pub idle_policy: &'static str,
    /// What each process was weighed by: `sm` (its SM activity, percent times seconds); `allocation` for a GPU
    /// the job holds MIG instances of (its compute slices of the GPU's).
    pub weight: &'static str,
    /// The other processes seen on the device.
    pub co_tenants: usize,
    /// The relative difference of the job's part weighed by memory activity instead: how much the choice of
    /// weight moves it; null where the job's part is 0.
    pub uncertainty: Option<f64>,
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

/// Which GPUs to measure, as given, and what decided it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scope {
    /// The entries as given: indices or UUIDs; null for every GPU.
    pub devices: Option<Vec<String>>,
    /// The flag or variable that decided (`--gpus`, `CUDA_VISIBLE_DEVICES`, ...), or `all`.
    pub from: String,
    /// What was read of it, when it had to be cut or was mapped (an ignored tail, an index order, a MIG parent).
    pub notes: Vec<String>,
    /// The device indices measured (known after the first reading).
    pub measured: Option<Vec<u32>>,
    /// Entries that matched no device on this host.
    pub unmatched: Vec<String>,
    /// The GPUs the job holds MIG instances of, with their compute slices: charged by allocation.
    #[serde(skip)]
    pub allocated: Vec<Allocation>,
}

/// A job's MIG instances on one GPU: their compute slices of the GPU's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allocation {
    /// The GPU's index.
    pub device: u32,
    /// The job's compute slices on it.
    pub slices: u32,
    /// The GPU's compute slices (the MIG devices it can hold).
    pub of: u32,
}

impl Scope {
    /// Every GPU of the host.
    pub fn all() -> Scope {
        Scope { devices: None, from: "all".into(), notes: Vec::new(), measured: None, unmatched: Vec::new(), allocated: Vec::new() }
    }

    /// True when the job holds no GPU at all.
    pub fn none(&self) -> bool {
        self.devices.as_ref().is_some_and(Vec::is_empty)
    }
}
