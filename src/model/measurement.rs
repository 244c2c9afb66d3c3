//! A measured run: the command, the GPUs' energy, the CPU time, and their price.

use serde::Serialize;

use super::energy::Kwh;
use super::{DeviceSummary, Estimate, Sourced};

/// Where a measured run's totals were sent, and whether they arrived.
#[derive(Debug, Serialize)]
pub struct Pushed {
    /// `pushgateway` or `otlp`.
    pub to: &'static str,
    /// The URL, secrets hidden.
    pub url: String,
    /// Why it failed, or null.
    pub error: Option<String>,
}

/// The records a measured run wrote.
#[derive(Debug, Serialize)]
pub struct Stored {
    /// The model they belong to.
    pub model: String,
    /// The run id the records share: the one given, the MLflow run's, or one made for this measurement.
    pub run_id: Option<String>,
    /// Where the run id came from: `given` (--run-id), `mlflow` (--mlflow-experiment) or `made`
    /// (neither: one measurement is one run, so its records share an id made for it).
    pub run_id_from: &'static str,
    /// The ids of the records, carbon first.
    pub ids: Vec<i64>,
    /// The ledger they were written to.
    pub db: String,
}

/// What was measured of the GPUs over a run.
#[derive(Debug, Serialize)]
pub struct Gpu {
    /// `measured` or `not measured`.
    pub status: &'static str,
    /// Why not, or what limited the measurement.
    pub reason: Option<String>,
    /// The source that read them: `nvml`, `nvidia-smi` or `amd-smi`; null when none did.
    pub source: Option<&'static str>,
    /// The library or program read, e.g. nvidia-smi (/usr/bin/nvidia-smi).
    pub source_detail: Option<String>,
    /// The GPUs measured: the job's, and the flag or variable that said so.
    pub scope: super::gpu::Scope,
    /// The field set the source used.
    pub fields: Option<&'static str>,
    /// Readings that succeeded.
    pub samples: usize,
    /// Readings that failed.
    pub missed: usize,
    /// True when readings stopped after repeated failures.
    pub gave_up: bool,
    /// Each device's energy, power and temperature.
    pub devices: Vec<DeviceSummary>,
    /// GPU energy only: the sum over devices that had a power reading.
    pub energy_kwh: Option<Kwh>,
    /// Device-hours covered by integrated intervals.
    pub device_hours: Option<f64>,
    /// Mean GPU power over the covered device-hours, W.
    pub mean_power_w: Option<f64>,
}

/// The CPU time of the measured command.
#[derive(Debug, Serialize)]
pub struct Cpu {
    /// CPU-core-hours: user + system over 3600 (or the CPUs held times the run's length, with --cpus).
    pub hours: f64,
    /// User CPU seconds; null when the CPU-hours are the CPUs held (--cpus).
    pub user_s: Option<f64>,
    /// System CPU seconds; null when the CPU-hours are the CPUs held (--cpus).
    pub system_s: Option<f64>,
    /// Where the CPU time came from.
    pub source: String,
}

/// CPU and memory energy from RAPL counters, and the job's share of it.
#[derive(Debug, Clone, Serialize)]
pub struct CpuEnergy {
    /// `measured` or `not measured`.
    pub status: &'static str,
    /// Why not measured (the CPU-hours estimate then stands, with this reason in its notes).
    pub reason: Option<String>,
    /// `powercap` or `perf`; null when none was read.
    pub source: Option<&'static str>,
    /// The counters read.
    pub zones: Vec<CpuZone>,
    /// How the node's energy became the job's: `whole node` or `share by CPU time`.
    pub method: Option<&'static str>,
    /// Why that method.
    pub method_reason: Option<String>,
    /// The job's share of the node's energy (1 for the whole node).
    pub share: Option<f64>,
    /// The node's package energy over the run, kWh.
    pub node_cpu_kwh: Option<Kwh>,
    /// The node's DRAM energy over the run, kWh; null where no DRAM counter exists.
    pub node_dram_kwh: Option<Kwh>,
    /// The job's package energy, kWh.
    pub cpu_kwh: Option<Kwh>,
    /// The job's DRAM energy, kWh.
    pub dram_kwh: Option<Kwh>,
    /// Times a counter wrapped and was carried on.
    pub wraps: u32,
    /// What was left out and why (psys, duplicates), and what happened to the counters.
    pub notes: Vec<String>,
}

/// The whole node's energy from its platform meter (hwmon or the BMC), beside what was measured of it, and the
/// rest (fans, NICs, disks, the power supplies' loss) attributed to the job.
#[derive(Debug, Clone, Serialize)]
pub struct NodeEnergy {
    /// `measured` or `not measured`.
    pub status: &'static str,
    /// Why not measured.
    pub reason: Option<String>,
    /// `hwmon`, `ipmi` or `redfish`; null when none was read.
    pub source: Option<&'static str>,
    /// Where it was read.
    pub meter: Option<String>,
    /// Readings taken.
    pub readings: u64,
    /// Readings that failed.
    pub failed: u64,
    /// The platform's energy over the run, kWh.
    pub node_kwh: Option<Kwh>,
    /// What was measured of the node over the run: the GPUs read, and the node's CPU packages and DRAM, kWh.
    pub measured_kwh: Option<Kwh>,
    /// The platform's energy less what was measured: negative when the meter read less than the parts (a BMC
    /// slower than the counters, or wrong), said in `notes` and never clamped.
    pub remainder_kwh: Option<Kwh>,
    /// The measured share of the platform's energy, percent.
    pub coverage_pct: Option<f64>,
    /// How the remainder became the job's: `by measured share` (the job's share of the measured energy) or `by
    /// allocation` (all of it, measured with every GPU of the node; its CPUs held of the node's, with none); null where
    /// it could not.
    pub policy: Option<&'static str>,
    /// The job's share of the remainder.
    pub share: Option<f64>,
    /// The job's part of the remainder, kWh: an estimate beside the measured energy, not added to it. Null when
    /// the remainder is negative.
    pub job_remainder_kwh: Option<Kwh>,
    /// The remainder interval by interval (the clock's minutes), where the meter covers one: null when none is.
    pub intervals: Option<NodeIntervals>,
    /// What happened to the readings.
    pub notes: Vec<String>,
}

/// How the node's remainder becomes the job's (`measure --node-policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum NodePolicy {
    /// By the job's share of the node's measured energy (its GPUs, and its share of the CPU packages' and DRAM's).
    #[default]
    Measured,
    /// By the job's allocation: measured with every GPU of the node, all of it; measured with none, the CPUs it holds
    /// (`--cpus`) of the node's.
    Allocation,
}

impl NodePolicy {
    /// Its name in a measurement's `node.policy`.
    pub fn describe(self) -> &'static str {
        match self {
            NodePolicy::Measured => "by measured share",
            NodePolicy::Allocation => "by allocation",
        }
    }
}

/// The node's remainder over each interval of the run: the meter's energy less the GPUs' over that interval and the
/// CPU packages' and DRAM's spread evenly over the run (their counters are read as totals).
#[derive(Debug, Clone, Serialize)]
pub struct NodeIntervals {
    /// The intervals' length: the GPUs' energy profile's, the clock's minutes (the first and last cut by the run).
    pub seconds: f64,
    /// Intervals the meter covers (90 % of them at least).
    pub compared: usize,
    /// Of those, the ones whose meter read less than their measured parts: said, never clamped.
    pub negative: usize,
    /// The least remainder over an interval, mean watts.
    pub min_remainder_w: f64,
    /// The most remainder over an interval, mean watts.
    pub max_remainder_w: f64,
}

impl NodeEnergy {
    /// Nothing read, and why.
    pub fn none(reason: String) -> NodeEnergy {
        NodeEnergy {
            status: "not measured",
            reason: Some(reason),
            source: None,
            meter: None,
            readings: 0,
            failed: 0,
            node_kwh: None,
            measured_kwh: None,
            remainder_kwh: None,
            coverage_pct: None,
            policy: None,
            share: None,
            job_remainder_kwh: None,
            intervals: None,
            notes: Vec::new(),
        }
    }
}

/// One counter read.
#[derive(Debug, Clone, Serialize)]
pub struct CpuZone {
    /// Where it was read.
    pub id: String,
    /// Its own name.
    pub name: String,
    /// `package` or `dram`.
    pub kind: &'static str,
}

impl CpuEnergy {
    /// Nothing measured, and why.
    pub fn none(reason: String) -> CpuEnergy {
        CpuEnergy {
            status: "not measured",
            reason: Some(reason),
            source: None,
            zones: Vec::new(),
            method: None,
            method_reason: None,
            share: None,
            node_cpu_kwh: None,
            node_dram_kwh: None,
            cpu_kwh: None,
            dram_kwh: None,
            wraps: 0,
            notes: Vec::new(),
        }
    }

    /// The job's CPU and memory energy, kWh, when measured.
    pub fn job_kwh(&self) -> Option<Kwh> {
        self.cpu_kwh.map(|c| c + self.dram_kwh.unwrap_or_default())
    }
}

/// The electricity cost of the measured GPU energy.
#[derive(Debug, Serialize)]
pub struct Electricity {
    /// The price per kWh and where it came from.
    pub price_per_kwh: Sourced<f64>,
    /// The GPU energy priced, kWh.
    pub kwh: f64,
    /// kWh times the price, USD.
    pub cost_usd: f64,
    /// What the figure covers.
    pub note: &'static str,
}

/// A measured run: the report `exa finops measure` prints.
#[derive(Debug, Serialize)]
pub struct Measurement {
    /// The command run, when there was one.
    pub command: Option<Vec<String>>,
    /// The command's exit status (128 + signal when a signal ended it).
    pub exit_code: Option<i32>,
    /// The signal that ended the command, if one did.
    pub killed_by: Option<String>,
    /// The signal that interrupted the run, if one did.
    pub interrupted: Option<String>,
    /// When the run started, UTC.
    pub started_at: String,
    /// How long the run took, seconds.
    pub duration_s: f64,
    /// Seconds between GPU readings, and where that came from.
    pub interval_s: Sourced<f64>,
    /// What was measured of the GPUs.
    pub gpu: Gpu,
    /// The command's CPU time, when there was a command.
    pub cpu: Option<Cpu>,
    /// What was measured of the CPUs' and memory's energy.
    pub cpu_energy: CpuEnergy,
    /// The whole node's energy from its platform meter, what share of it was measured, and the rest.
    pub node: NodeEnergy,
    /// The carbon estimate of the measured work.
    pub carbon: Option<Estimate>,
    /// Why there is no carbon estimate.
    pub carbon_error: Option<String>,
    /// The cost estimate of the measured work.
    pub cost: Option<Estimate>,
    /// Why there is no cost estimate.
    pub cost_error: Option<String>,
    /// The electricity cost, when a price was given.
    pub electricity: Option<Electricity>,
    /// The records written for --record.
    pub recorded: Option<Stored>,
    /// Why --record wrote nothing.
    pub record_error: Option<String>,
    /// Where the run's totals were pushed (--push-gateway, --otlp), and any failure.
    pub pushed: Vec<Pushed>,
    /// The work the run did (`--tokens`, `--requests`, `--unit`, or read with `--tokens-from`); null when none was given.
    pub work: Option<MeasuredWork>,
    /// CPU seconds exa itself used (user + system; nvidia-smi and the command not included).
    pub exa_cpu_s: f64,
}

/// The work a measured run did, where it came from, and its GPU energy per output token.
#[derive(Debug, Clone, Serialize)]
pub struct MeasuredWork {
    /// The counts: tokens, prompt tokens, requests, a unit of the owner's naming.
    #[serde(flatten)]
    pub work: super::Work,
    /// `flags` (given on the command line) or `scrape` (the counters' increase over the run).
    pub source: &'static str,
    /// The inference server whose counters were read (`vllm`, `tgi`, `sglang`).
    pub server: Option<&'static str>,
    /// Its metrics URL, secrets hidden.
    pub url: Option<String>,
    /// A counter went down during the run (the server restarted): counted from the reset.
    pub reset: bool,
    /// The measured GPU energy per output token, joules.
    pub gpu_j_per_token: Option<f64>,
    /// Why the counters could not be read at the run's end (the run is recorded without them).
    pub error: Option<String>,
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
            source_detail: None,
            scope: super::gpu::Scope::all(),
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
