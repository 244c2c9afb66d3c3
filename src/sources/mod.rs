//! The outside world behind seams: GPUs, the grid, Prometheus, HTTP and
//! child processes.
//!
//! Nothing here reads `Settings`: each source takes the values it needs,
//! resolved by the settings layer, so a test can hand it any.

#![warn(missing_docs)]

pub mod child;
pub mod exporters;
pub mod flux;
pub mod gpu;
pub mod grid;
pub mod http;
pub mod jobs;
pub mod mlflow;
pub mod prometheus;
pub mod serve;
pub mod signals;
pub mod slurm;
