//! `exa gpu`: one reading of every GPU, and the aggregates.

use serde::Serialize;

use crate::error::Error;
use crate::model::{Aggregates, Device};
use crate::num::tidy;
use crate::settings::{GpuChoice, Settings};
use crate::sources::gpu::amd_smi::AmdSmi;
use crate::sources::gpu::nvidia_smi::NvidiaSmi;
use crate::sources::gpu::nvml::Nvml;
use crate::sources::gpu::{GpuSource, SampleError};

/// One reading of every device, and where it came from.
#[derive(Debug, Serialize)]
pub struct GpuReading {
    /// `nvml`, `nvidia-smi` or `amd-smi`.
    pub source: &'static str,
    /// The library or program read, e.g. nvidia-smi (/usr/bin/nvidia-smi).
    pub source_detail: String,
    pub fields: &'static str,
    pub devices: Vec<Device>,
    pub aggregates: Aggregates,
    pub notes: Vec<String>,
    /// Draw every column whatever the terminal's width (table only).
    #[serde(skip)]
    pub wide: bool,
}

fn boxed<S: GpuSource + 'static>(s: S) -> Box<dyn GpuSource> {
    Box::new(s)
}

/// The GPU source the settings choose, with their deadline: the same for `exa gpu` and `measure`.
///
/// `auto` takes NVML if it loads, else nvidia-smi, else amd-smi; with none of them the host has no GPU
/// to read (`Missing`). A source named by the flag, the environment or the config that cannot be used
/// is `Failed`, and so is an NVML library named by path that does not load: never a silent fallback.
pub fn source(settings: &Settings) -> Result<Box<dyn GpuSource>, SampleError> {
    let g = &settings.gpu;
    let lib = g.nvml_library.as_ref().map(|p| p.value.as_path());
    let nvml = || Nvml::open(lib).map(boxed);
    let smi = || NvidiaSmi::from_path(&settings.path, g.timeout.value).map(boxed);
    let amd = || AmdSmi::from_path(&settings.path, g.timeout.value).map(boxed);
    let from = match g.source.source {
        crate::settings::Source::Flag => "--gpu-source".to_string(),
        ref other => other.to_string(),
    };
    let named = |e: SampleError| match e {
        SampleError::Missing(why) => SampleError::Failed(format!("GPU source {} (from {from}): {why}", g.source.value)),
        other => other,
    };
    match g.source.value {
        GpuChoice::Nvml => nvml().map_err(named),
        GpuChoice::NvidiaSmi => smi().map_err(named),
        GpuChoice::AmdSmi => amd().map_err(named),
        GpuChoice::Auto => match nvml() {
            Ok(s) => Ok(s),
            Err(SampleError::Missing(_)) if lib.is_none() => smi().or_else(|_| amd()).map_err(|_| {
                SampleError::Missing(
                    "no nvidia-smi on PATH: no GPU to read on this host (NVML does not load and there is no amd-smi either)".into(),
                )
            }),
            Err(e) => Err(e),
        },
    }
}

/// The aggregates without float noise (sums and means of readings).
fn tidied(mut a: Aggregates) -> Aggregates {
    for v in [&mut a.mean_utilization_pct, &mut a.total_memory_used_gib, &mut a.total_power_w, &mut a.max_temperature_c] {
        *v = v.map(tidy);
    }
    a
}

/// One reading of `source`.
pub fn run(source: Result<Box<dyn GpuSource>, SampleError>) -> Result<GpuReading, Error> {
    let mut src = source.map_err(|e| Error::Failed(e.to_string()))?;
    let devices = src.sample().map_err(|e| match e {
        SampleError::NoDevices(said) => Error::Failed(format!("no GPU: {said}")),
        other => Error::Failed(format!("cannot read the GPUs: {other}")),
    })?;
    Ok(GpuReading {
        source: src.kind(),
        source_detail: src.describe(),
        fields: src.fields(),
        aggregates: tidied(Aggregates::of(&devices)),
        devices,
        notes: src.take_notices(),
        wide: false,
    })
}
