//! `exa gpu`: one reading of every GPU, and the aggregates.

use serde::Serialize;

use crate::error::Error;
use crate::model::{Aggregates, Device};
use crate::num::tidy;
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
