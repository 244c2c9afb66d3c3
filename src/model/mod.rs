//! The domain as data: provenance, domains and provider kinds, requests,
//! estimates, GPU readings, measurements, records, refusals and the config
//! file's schema.
//!
//! Data only. This module imports nothing from the rest of the crate, so
//! every layer can use it and none of it can reach up.

#![warn(missing_docs)]

pub mod budget;
pub mod config;
pub mod domain;
pub mod energy;
pub mod estimate;
pub mod format;
pub mod gpu;
pub mod history;
pub mod job;
pub mod measurement;
pub mod provenance;
pub mod record;
pub mod refusal;
pub mod tags;
pub mod telemetry;
pub mod validate;

/// An ordered map (insertion order, as the JSON shows it) hashed with foldhash rather than SipHash: its keys are
/// coefficient, input and output names from exa's own configs, and an importer hashes them millions of times.
pub type IndexMap<K, V> = indexmap::IndexMap<K, V, foldhash::fast::RandomState>;

/// A short text a record is labelled with (a model, host, provider, user...): kept in place up to 24 bytes, on the
/// heap beyond. An importer makes two million records' labels on one thread and writes them on another; kept in
/// place, each record's are one piece of memory, neither allocated nor freed apart.
pub type Word = compact_str::CompactString;

pub use domain::{Domain, ProviderKind, COEFFICIENT_VARS, INPUTS};
pub use estimate::{CoefficientOverride, Estimate, Figures, Footprint, GridInfo, ProviderInfo, Request};
pub use format::Format;
pub use gpu::{Aggregates, Device, DeviceSummary, GpuShare, Throttled};
pub use history::{GridHistory, HistoryAsk};
pub use job::{BadLine, Job, Jobs};
pub use measurement::{Cpu, CpuEnergy, CpuZone, Electricity, Gpu, MeasuredWork, Measurement, NodeEnergy, NodeIntervals, Stored};
pub use provenance::{Coef, Source, Sourced};
pub use record::{Labels, Measured, NewRecord, NodePart, Work, MAX_WORK};
pub use refusal::Refusal;
