//! Integration tests: the real `exa` binary, one private environment per test.

mod common;
mod contract;

mod codegen;
mod config;
mod docs;
mod doors;
mod estimate;
mod flux;
mod formula_python;
mod fuzz;
mod gpu;
mod grid;
mod hardening;
mod house;
mod http;
mod mcp;
mod methodology;
mod metrics;
mod mlflow;
mod newcomer;
mod pg;
mod postgres;
mod prometheus;
mod providers;
mod records;
mod reports;
mod slurm;
mod sources;
mod strict;
mod telemetry;
mod tenancy;
