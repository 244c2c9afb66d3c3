//! `exa gpu`: one reading of every GPU, and the aggregates.

use serde::Serialize;

use crate::error::Error;
use crate::gpu::nvidia_smi::{NvidiaSmi, DEADLINE};
use crate::gpu::{Aggregates, Device, GpuSource, SampleError};

#[derive(Debug, Serialize)]
pub struct Reading {
    pub source: String,
    pub fields: &'static str,
    pub devices: Vec<Device>,
    pub aggregates: Aggregates,
    pub notes: Vec<String>,
}

pub fn run(deadline: Option<std::time::Duration>) -> Result<Reading, Error> {
    let mut smi = NvidiaSmi::from_path(deadline.unwrap_or(DEADLINE)).map_err(|e| Error::Failed(e.to_string()))?;
    let devices = smi.sample().map_err(|e| match e {
        SampleError::NoDevices => Error::Failed("no GPU: nvidia-smi found no devices".into()),
        other => Error::Failed(format!("cannot read the GPUs: {other}")),
    })?;
    Ok(Reading { source: smi.describe(), fields: smi.fields(), aggregates: Aggregates::of(&devices), devices, notes: smi.take_notices() })
}
