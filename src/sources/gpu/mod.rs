//! GPU readings behind a seam: `GpuSource`, with `nvidia-smi` as the first source.
//!
//! What is not measured is not reported: a field a device cannot report is
//! `None`, never 0, and a device with no power reading gets no energy. This
//! module reads; the sampler owns time and the integrator owns arithmetic.

pub mod amd_smi;
pub mod collector;
pub mod energy;
pub mod fake;
pub mod nvidia_smi;
pub mod nvml;
pub mod running;
pub mod sampler;
pub mod scope;
pub mod split;

pub use crate::model::gpu::{Aggregates, Device};

/// Why a sample has no readings.
#[derive(Debug, Clone, PartialEq)]
pub enum SampleError {
    /// The tool is not on this host: no GPU to read.
    Missing(String),
    /// The tool says there are no devices: no GPU to read. What it said.
    NoDevices(String),
    /// The tool failed: what it said, or why it gave nothing.
    Failed(String),
}

impl std::fmt::Display for SampleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SampleError::Missing(why) => f.write_str(why),
            SampleError::NoDevices(said) => f.write_str(said),
            SampleError::Failed(why) => f.write_str(why),
        }
    }
}

/// What a source said of the processes' activity at one reading.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProcessActivity {
    /// The devices that answered (a device whose query failed is not here: its activity is unknown, not none).
    pub answered: Vec<u32>,
    /// (device index, pid, SM percent, memory percent) over the time since the last call: the driver's samples
    /// newer than the last seen. A device that answered with none had no new sample (idle, or not sampled yet).
    pub samples: Vec<(u32, u32, f64, f64)>,
}

/// A source of GPU readings. Implementations never invent a value.
pub trait GpuSource: Send {
    /// One reading of every device.
    fn sample(&mut self) -> Result<Vec<Device>, SampleError>;
    /// What it is, for reports: "nvidia-smi (/usr/bin/nvidia-smi)".
    fn describe(&self) -> String;
    /// Which source it is, for scripts: `nvml`, `nvidia-smi`, `amd-smi`.
    fn kind(&self) -> &'static str;
    /// The processes computing on each device now, as (device index, pid); None where the source cannot list them.
    fn processes(&mut self) -> Option<Vec<(u32, u32)>> {
        None
    }
    /// Each process's activity on each device since the last call; None where the source cannot say (then a shared
    /// device is charged whole, and the report says so).
    fn process_activity(&mut self) -> Option<ProcessActivity> {
        None
    }
    /// The index of the GPU a MIG instance (`MIG-…` UUID) belongs to, and the instance's compute slices of the
    /// GPU's where the source can tell them, in one look; None where the source cannot place the instance.
    fn mig(&mut self, _uuid: &str) -> Option<(u32, Option<(u32, u32)>)> {
        None
    }
    /// Which field set it is using now, for reports.
    fn fields(&self) -> &'static str;
    /// Bounds every later call by `deadline` (the reading taken at exit must not hold the job's exit long).
    fn shorten(&mut self, _deadline: std::time::Duration) {}
    /// Reads the energy counter at most once per `every` from now on, and on the reading after
    /// [`GpuSource::counter_now`]; by default it is read at every reading. On an H200 NVML's counter
    /// call costs about 4 ms of CPU where every other call costs microseconds. A source whose
    /// counter comes with its reading at no cost ignores this.
    fn counter_every(&mut self, _every: std::time::Duration) {}
    /// The next reading reads the energy counter, whatever `counter_every` said (the last reading).
    fn counter_now(&mut self) {}
    /// Notices to pass on once (a field set given up, say).
    fn take_notices(&mut self) -> Vec<String> {
        Vec::new()
    }
}
