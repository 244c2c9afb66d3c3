//! Integration tests: the real `exa` binary, one private environment per test.

mod support;
use support::{common, contract, http, pg, prometheus};

mod codegen;
mod config;
mod cpu;
mod deploy;
mod docs;
mod doors;
mod estimate;
mod flux;
mod formula_python;
mod fuzz;
mod gpu;
mod grid;
mod hardening;
mod history;
mod house;
mod json_contract;
mod mcp;
mod methodology;
mod metrics;
mod mlflow;
mod newcomer;
mod postgres;
mod providers;
mod records;
mod regions;
mod reports;
mod slurm;
mod sources;
mod telemetry;
mod tenancy;
mod wheel;
mod when;
mod work;
