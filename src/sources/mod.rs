//! The outside world behind seams, as exa reads it: GPUs, the grid,
//! Prometheus, schedulers, HTTP and child processes. What exa sends out
//! (expositions, pushes, OTLP, MLflow) lives in `sinks/`.
//!
//! Nothing here reads `Settings`: each source takes the values it needs,
//! resolved by the settings layer, so a test can hand it any.

#![warn(missing_docs)]

pub mod child;
pub mod cpu;
pub mod flux;
pub mod forecast;
pub mod gpu;
pub mod grid;
pub mod history;
pub mod http;
pub mod inference;
pub mod jobs;
pub mod kube;
pub mod node;
pub mod owner;
pub mod prometheus;
pub mod redfish;
pub mod serve;
pub mod signals;
pub mod slurm;
pub mod socket;
pub mod tokens;
