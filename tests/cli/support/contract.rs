//! The JSON contract as a consumer decodes it, once: the test's own structs,
//! with `deny_unknown_fields`, so every test that reads an answer also checks
//! that no field was added, renamed or dropped behind the documentation.
//!
//! `check` decodes any answer a test reads with the struct of the command that
//! printed it (`Env::json`, `common::measure` and `common::answer` call it), so
//! a test need not name the struct to hold exa to its contract.
//!
//! The conventions: a field exa always writes is required, even when it may be
//! null (`Option<T>` with `deserialize_with = "nullable"`: serde would otherwise
//! take a missing key for `None`, and a dropped field would pass); a field exa
//! leaves out when it has nothing to say (`skip_serializing_if`) is
//! `#[serde(default)]`. An open map (inputs, coefficients by name) is a
//! `BTreeMap`; `serde_json::Value` only where exa passes on an object whose keys
//! are not its own (said where it is).

#![allow(dead_code)]

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};

/// A key exa always writes, whose value may be null: missing is an error, null is `None`.
fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}

/// A value and where it came from (flag, env, config, default...).
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sourced<T> {
    pub value: T,
    pub source: String,
}

// ---- finops {carbon,cost} estimate (and the estimates of record, measure) ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Estimate {
    pub domain: String,
    pub provider: Provider,
    pub provider_source: String,
    #[serde(deserialize_with = "nullable")]
    pub requested_provider: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub fallback_reason: Option<String>,
    pub inputs: BTreeMap<String, f64>,
    pub coefficients: BTreeMap<String, Coef>,
    pub outputs: BTreeMap<String, f64>,
    #[serde(deserialize_with = "nullable")]
    pub range: Option<BTreeMap<String, [f64; 2]>>,
    #[serde(deserialize_with = "nullable")]
    pub grid: Option<Grid>,
    /// On carbon estimates: how the embodied CO2e (and water) were made; absent on cost estimates.
    #[serde(default)]
    pub footprint: Option<Footprint>,
    pub notes: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Footprint {
    pub method: String,
    pub defaults: BTreeMap<String, String>,
    /// The GPU of exa's table, when one was chosen or matched.
    #[serde(deserialize_with = "nullable")]
    pub gpu: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provider {
    pub name: String,
    pub kind: String,
    #[serde(deserialize_with = "nullable")]
    pub uncertainty: Option<f64>,
    pub methodology: String,
    #[serde(deserialize_with = "nullable")]
    pub source: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub origin: Option<String>,
    pub digest: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coef {
    pub value: f64,
    pub source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grid {
    pub origin: String,
    pub value: f64,
    #[serde(deserialize_with = "nullable")]
    pub url: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub zone: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub reading_time: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub age_s: Option<u64>,
    #[serde(deserialize_with = "nullable")]
    pub detail: Option<String>,
    /// With origin `history` only.
    #[serde(default)]
    pub history: Option<GridHistory>,
}

/// The grid's history over a measured run or an imported job.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridHistory {
    pub from: String,
    pub to: String,
    pub time_weighted_g_per_kwh: f64,
    pub weighted_by: String,
    pub end_of_run_g_per_kwh: f64,
    pub end_of_run_from: String,
    pub difference_pct: f64,
    pub readings: u64,
    pub forecast_readings: u64,
    pub requests: u64,
    pub cached: u64,
    pub gap_share: f64,
    pub gaps: Vec<Gap>,
    pub gaps_not_listed: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gap {
    pub from: String,
    pub to: String,
    pub filled_with: String,
    pub g_per_kwh: f64,
}

// ---- finops {carbon,cost} providers ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Providers {
    pub domain: String,
    pub default: String,
    #[serde(deserialize_with = "nullable")]
    pub selected: Option<Selected>,
    pub providers: Vec<Row>,
}

/// The provider asked for, and where the ask came from (a flag, the environment, the config).
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Selected {
    pub value: String,
    pub source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    pub name: String,
    pub kind: String,
    #[serde(deserialize_with = "nullable")]
    pub uncertainty: Option<f64>,
    pub status: String,
    #[serde(deserialize_with = "nullable")]
    pub reason: Option<String>,
    pub default: bool,
    #[serde(deserialize_with = "nullable")]
    pub origin: Option<String>,
}

// ---- finops {carbon,cost} show NAME ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Show {
    pub domain: String,
    pub provider: Provider,
    pub default: bool,
    pub accepts: Vec<String>,
    pub outputs: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    pub live: Option<String>,
    pub formulas: Vec<Formula>,
    pub coefficients: Vec<ShowCoefficient>,
    pub exa_terms: BTreeMap<String, Coef>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Formula {
    pub output: String,
    pub formula: String,
}

/// A provider's coefficient as `show` lists it; `env`, `unit` and `description` only where it has them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShowCoefficient {
    pub name: String,
    pub default: f64,
    #[serde(default)]
    pub env: Option<String>,
    #[serde(default)]
    pub unit: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
}

// ---- finops carbon regions ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Regions {
    #[serde(deserialize_with = "nullable")]
    pub query: Option<String>,
    pub tables: String,
    pub regions: Vec<Region>,
    #[serde(deserialize_with = "nullable")]
    pub attribution: Option<String>,
}

/// A budget's terms, as `budget set` keeps them.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BudgetTerms {
    pub scope: String,
    pub period: String,
    #[serde(deserialize_with = "nullable")]
    pub kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub kgco2e: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub usd: Option<f64>,
    pub warn: Vec<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetKept {
    pub name: String,
    pub scope: String,
    pub period: String,
    #[serde(deserialize_with = "nullable")]
    pub kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub kgco2e: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub usd: Option<f64>,
    pub warn: Vec<f64>,
    pub set_at: String,
    pub set_by: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetChange {
    pub name: String,
    pub action: String,
    pub at: String,
    pub by: String,
    #[serde(deserialize_with = "nullable")]
    pub budget: Option<BudgetTerms>,
}

/// `budget set` and `budget rm`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetDone {
    pub name: String,
    pub action: String,
    pub at: String,
    pub by: String,
    #[serde(deserialize_with = "nullable")]
    pub budget: Option<BudgetTerms>,
    pub db: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetList {
    pub budgets: Vec<BudgetKept>,
    #[serde(deserialize_with = "nullable")]
    pub changes: Option<Vec<BudgetChange>>,
    pub db: String,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BudgetPace {
    pub per_day: f64,
    pub at_period_end: f64,
    #[serde(deserialize_with = "nullable")]
    pub runs_out: Option<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BudgetUnit {
    pub unit: String,
    pub limit: f64,
    pub used: f64,
    pub left: f64,
    pub percent: f64,
    pub state: String,
    #[serde(deserialize_with = "nullable")]
    pub line: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub period_pace: Option<BudgetPace>,
    #[serde(deserialize_with = "nullable")]
    pub last_7_days_pace: Option<BudgetPace>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BudgetOne {
    pub name: String,
    pub scope: String,
    pub period: String,
    pub period_start: String,
    pub period_end: String,
    pub warn: Vec<f64>,
    pub runs: u64,
    pub state: String,
    pub units: Vec<BudgetUnit>,
}

/// `budget status`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetStatus {
    pub at: String,
    pub budgets: Vec<BudgetOne>,
    pub counting: String,
    pub db: String,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BudgetAdded {
    pub gpu_hours: f64,
    pub cpu_hours: f64,
    pub kwh: f64,
    pub kgco2e: f64,
    pub usd: f64,
    pub carbon_provider: String,
    pub cost_provider: String,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BudgetUnitChecked {
    pub unit: String,
    pub limit: f64,
    pub used: f64,
    pub added: f64,
    pub after: f64,
    pub percent: f64,
    pub state: String,
    #[serde(deserialize_with = "nullable")]
    pub line: Option<f64>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BudgetChecked {
    pub name: String,
    pub scope: String,
    pub period: String,
    pub period_start: String,
    pub period_end: String,
    pub state: String,
    pub units: Vec<BudgetUnitChecked>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetEvent {
    pub key: String,
    pub destination: String,
    pub outcome: String,
    #[serde(deserialize_with = "nullable")]
    pub error: Option<String>,
}

/// `budget notify`: printed whether or not every event was sent.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetNotified {
    pub at: String,
    pub destinations: Vec<String>,
    pub events: Vec<BudgetEvent>,
    pub sent: u64,
    pub failed: u64,
    pub db: String,
}

/// `budget check`: printed whatever its exit code (0, 1 or 3).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetCheck {
    pub at: String,
    pub scopes: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    pub added: Option<BudgetAdded>,
    pub verdict: String,
    pub exit_code: u8,
    pub advise_only: bool,
    pub message: String,
    pub budgets: Vec<BudgetChecked>,
    pub db: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hardware {
    #[serde(deserialize_with = "nullable")]
    pub query: Option<String>,
    pub gpus: Vec<HardwareGpu>,
    pub cpus: Vec<HardwareCpu>,
    pub cpu_models: u64,
    pub cpu_source: String,
    #[serde(deserialize_with = "nullable")]
    pub attribution: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HardwareGpu {
    pub name: String,
    pub vendor: String,
    pub board_power_w: f64,
    pub aliases: Vec<String>,
    pub source: String,
    pub year: u16,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HardwareCpu {
    pub name: String,
    pub tdp_w: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Region {
    pub key: String,
    pub kind: String,
    pub name: String,
    pub g_per_kwh: f64,
    pub year: u16,
    pub source: String,
    #[serde(deserialize_with = "nullable")]
    pub via: Option<String>,
    pub basis: String,
    #[serde(deserialize_with = "nullable")]
    pub provider_figure: Option<ProviderFigure>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderFigure {
    pub g_per_kwh: f64,
    pub year: u16,
    pub source: String,
    pub basis: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeInEffect {
    #[serde(deserialize_with = "nullable")]
    pub source: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub meter: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub reason: Option<String>,
}

// ---- the node's energy in a measurement ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeEnergy {
    pub status: String,
    #[serde(deserialize_with = "nullable")]
    pub reason: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub source: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub meter: Option<String>,
    pub readings: u64,
    pub failed: u64,
    #[serde(deserialize_with = "nullable")]
    pub node_kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub measured_kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub remainder_kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub coverage_pct: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub policy: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub share: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub job_remainder_kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub intervals: Option<NodeIntervals>,
    pub notes: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeIntervals {
    pub seconds: f64,
    pub compared: usize,
    pub negative: usize,
    pub min_remainder_w: f64,
    pub max_remainder_w: f64,
}

// ---- validate ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Validation {
    pub trace: String,
    pub reference: String,
    pub trace_readings: u64,
    pub reference_samples: u64,
    pub offset_s: f64,
    pub offset_from: String,
    #[serde(deserialize_with = "nullable")]
    pub correlation: Option<f64>,
    pub components: Vec<ValidatedComponent>,
    pub notes: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValidatedComponent {
    pub name: String,
    pub exa_j: f64,
    pub reference_j: f64,
    pub compared_s: f64,
    #[serde(deserialize_with = "nullable")]
    pub bias_pct: Option<f64>,
    pub windows: Vec<ValidatedWindows>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValidatedWindows {
    pub seconds: f64,
    pub compared: u64,
    pub skipped: u64,
    #[serde(deserialize_with = "nullable")]
    pub mape_pct: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub bias_pct: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub max_abs_pct: Option<f64>,
}

// ---- finops carbon when ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct When {
    pub duration_s: i64,
    pub within_s: i64,
    #[serde(deserialize_with = "nullable")]
    pub power_w: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub kwh: Option<f64>,
    pub best: Start,
    pub now: Start,
    pub saving_g_per_kwh: f64,
    pub saving_pct: f64,
    #[serde(deserialize_with = "nullable")]
    pub saving_co2e_g: Option<f64>,
    pub forecast: Forecast,
    pub notes: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Start {
    pub start: String,
    pub end: String,
    pub begin: String,
    pub mean_g_per_kwh: f64,
    #[serde(deserialize_with = "nullable")]
    pub co2e_g: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Forecast {
    pub url: String,
    #[serde(deserialize_with = "nullable")]
    pub zone: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub zone_from: Option<String>,
    pub shape: String,
    #[serde(deserialize_with = "nullable")]
    pub generated_at: Option<String>,
    pub from: String,
    pub to: String,
    pub intervals: u64,
    #[serde(deserialize_with = "nullable")]
    pub uncertainty: Option<f64>,
}

// ---- finops {carbon,cost} record ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recorded {
    pub id: i64,
    pub model: String,
    #[serde(deserialize_with = "nullable")]
    pub run_id: Option<String>,
    pub recorded_at: String,
    pub host: String,
    pub db: String,
    /// Present only when work was given.
    #[serde(default)]
    pub work: Option<Work>,
    pub estimate: Estimate,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Work {
    #[serde(deserialize_with = "nullable")]
    pub tokens: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub prompt_tokens: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub requests: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub unit: Option<Unit>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unit {
    pub name: String,
    pub count: f64,
}

// ---- finops measure (its report: --report FILE, stdout without a command, stderr with one) ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measurement {
    #[serde(deserialize_with = "nullable")]
    pub command: Option<Vec<String>>,
    #[serde(deserialize_with = "nullable")]
    pub exit_code: Option<i32>,
    #[serde(deserialize_with = "nullable")]
    pub killed_by: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub interrupted: Option<String>,
    pub started_at: String,
    pub duration_s: f64,
    pub interval_s: Sourced<f64>,
    pub gpu: MeasuredGpu,
    #[serde(deserialize_with = "nullable")]
    pub cpu: Option<Cpu>,
    pub cpu_energy: CpuEnergy,
    pub node: NodeEnergy,
    #[serde(deserialize_with = "nullable")]
    pub carbon: Option<Estimate>,
    #[serde(deserialize_with = "nullable")]
    pub carbon_error: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub cost: Option<Estimate>,
    #[serde(deserialize_with = "nullable")]
    pub cost_error: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub electricity: Option<Electricity>,
    #[serde(deserialize_with = "nullable")]
    pub recorded: Option<Stored>,
    #[serde(deserialize_with = "nullable")]
    pub record_error: Option<String>,
    pub pushed: Vec<Pushed>,
    #[serde(deserialize_with = "nullable")]
    pub work: Option<MeasuredWork>,
    pub exa_cpu_s: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasuredGpu {
    pub status: String,
    #[serde(deserialize_with = "nullable")]
    pub reason: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub source: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub source_detail: Option<String>,
    pub scope: Scope,
    #[serde(deserialize_with = "nullable")]
    pub fields: Option<String>,
    pub samples: u64,
    pub missed: u64,
    pub gave_up: bool,
    pub devices: Vec<DeviceSummary>,
    #[serde(deserialize_with = "nullable")]
    pub energy_kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub device_hours: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub mean_power_w: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scope {
    #[serde(deserialize_with = "nullable")]
    pub devices: Option<Vec<String>>,
    pub from: String,
    pub notes: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    pub measured: Option<Vec<u32>>,
    pub unmatched: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceSummary {
    pub index: u32,
    pub name: String,
    #[serde(deserialize_with = "nullable")]
    pub uuid: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub energy_kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub energy_method: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub refused: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub shared_with: Option<u64>,
    #[serde(deserialize_with = "nullable")]
    pub share: Option<GpuShare>,
    pub covered_s: f64,
    #[serde(deserialize_with = "nullable")]
    pub mean_power_w: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub p95_power_w: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub peak_power_w: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub peak_temperature_c: Option<f64>,
    pub samples: u64,
    pub missed: u64,
    pub throttled: Throttled,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Throttled {
    pub thermal: bool,
    pub power: bool,
    pub hw_slowdown: bool,
}

/// A shared GPU's split between the job, its co-tenants and idle.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuShare {
    pub job_kwh: f64,
    pub device_kwh: f64,
    pub others_kwh: f64,
    pub idle_kwh: f64,
    pub idle_seen_kwh: f64,
    #[serde(deserialize_with = "nullable")]
    pub idle_w: Option<f64>,
    pub idle_policy: String,
    pub weight: String,
    pub co_tenants: u64,
    #[serde(deserialize_with = "nullable")]
    pub uncertainty: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cpu {
    pub hours: f64,
    #[serde(deserialize_with = "nullable")]
    pub user_s: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub system_s: Option<f64>,
    pub source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuEnergy {
    pub status: String,
    #[serde(deserialize_with = "nullable")]
    pub reason: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub source: Option<String>,
    pub zones: Vec<CpuZone>,
    #[serde(deserialize_with = "nullable")]
    pub method: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub method_reason: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub share: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub node_cpu_kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub node_dram_kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub cpu_kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub dram_kwh: Option<f64>,
    pub wraps: u32,
    pub notes: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuZone {
    pub id: String,
    pub name: String,
    pub kind: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Electricity {
    pub price_per_kwh: Sourced<f64>,
    pub kwh: f64,
    pub cost_usd: f64,
    pub note: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stored {
    pub model: String,
    #[serde(deserialize_with = "nullable")]
    pub run_id: Option<String>,
    pub run_id_from: String,
    pub ids: Vec<i64>,
    pub db: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pushed {
    pub to: String,
    pub url: String,
    #[serde(deserialize_with = "nullable")]
    pub error: Option<String>,
}

/// `measure`'s `work`: the counts (as a record's `work`), and where they came from.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasuredWork {
    #[serde(deserialize_with = "nullable")]
    pub tokens: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub prompt_tokens: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub requests: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub unit: Option<Unit>,
    pub source: String,
    #[serde(deserialize_with = "nullable")]
    pub server: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub url: Option<String>,
    pub reset: bool,
    #[serde(deserialize_with = "nullable")]
    pub gpu_j_per_token: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub error: Option<String>,
}

// ---- report (totals) ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Report {
    pub by: String,
    pub filter: Filter,
    pub db: String,
    pub groups: Vec<Group>,
    pub totals: Group,
    pub range_method: String,
    pub notes: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    #[serde(deserialize_with = "nullable")]
    pub model: Option<String>,
    /// One run's records only: not a command-line filter, absent unless set.
    #[serde(default)]
    pub run: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub since: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub until: Option<String>,
    /// Present only with `--per`: the unit's name.
    #[serde(default)]
    pub per: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    pub key: String,
    pub runs: u64,
    pub runs_measured: u64,
    pub runs_estimated: u64,
    pub records: Counts,
    pub records_not_counted: u64,
    pub gpu_hours: f64,
    pub cpu_hours: f64,
    #[serde(deserialize_with = "nullable")]
    pub kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub co2e_g: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub co2e_range_g: Option<[f64; 2]>,
    #[serde(deserialize_with = "nullable")]
    pub cost_usd: Option<f64>,
    pub currency: String,
    #[serde(deserialize_with = "nullable")]
    pub embodied_co2e_g: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub water_l: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub tokens: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub prompt_tokens: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub requests: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub node_kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub node_rest_kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub coverage_pct: Option<f64>,
    /// Present only with `--per`.
    #[serde(default)]
    pub per: Option<PerUnit>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerUnit {
    pub unit: String,
    #[serde(deserialize_with = "nullable")]
    pub r: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub e_kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub i_g_per_kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub o_g: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub m_g: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub sci_g_per_unit: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub co2e_g_per_unit: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub kwh_per_unit: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub j_per_unit: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub cost_usd_per_unit: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub water_l_per_unit: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    pub carbon: u64,
    pub cost: u64,
}

/// `report --html FILE`: the reports the page draws, as the JSON in its `exa-report` script element.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HtmlData {
    pub by_model: Report,
    pub by_day: Report,
    /// Per 1,000 tokens, when some run counted its tokens.
    #[serde(deserialize_with = "nullable")]
    pub per_token_by_model: Option<Report>,
}

// ---- report --format focus -o json: one FOCUS 1.2 row per line ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct FocusRow {
    pub billed_cost: f64,
    pub billing_account_id: String,
    pub billing_account_name: String,
    pub billing_currency: String,
    pub billing_period_end: String,
    pub billing_period_start: String,
    pub charge_category: String,
    #[serde(deserialize_with = "nullable")]
    pub charge_class: Option<String>,
    pub charge_description: String,
    pub charge_frequency: String,
    pub charge_period_end: String,
    pub charge_period_start: String,
    pub consumed_quantity: f64,
    pub consumed_unit: String,
    pub contracted_cost: f64,
    #[serde(deserialize_with = "nullable")]
    pub contracted_unit_price: Option<f64>,
    pub effective_cost: f64,
    #[serde(deserialize_with = "nullable")]
    pub invoice_id: Option<String>,
    pub invoice_issuer_name: String,
    pub list_cost: f64,
    #[serde(deserialize_with = "nullable")]
    pub list_unit_price: Option<f64>,
    pub pricing_category: String,
    pub pricing_quantity: f64,
    pub pricing_unit: String,
    pub provider_name: String,
    pub publisher_name: String,
    pub resource_id: String,
    pub resource_name: String,
    pub resource_type: String,
    pub service_category: String,
    pub service_name: String,
    pub service_subcategory: String,
    /// FOCUS's Tags column: a JSON object written as text.
    pub tags: String,
    #[serde(rename = "x_RecordIds")]
    pub x_record_ids: String,
    #[serde(rename = "x_Measured")]
    pub x_measured: bool,
    #[serde(rename = "x_CostProvider")]
    pub x_cost_provider: String,
    #[serde(rename = "x_CostProviderDigest")]
    pub x_cost_provider_digest: String,
    #[serde(rename = "x_CostAllocation")]
    pub x_cost_allocation: String,
    #[serde(rename = "x_RunGpuHours", deserialize_with = "nullable")]
    pub x_run_gpu_hours: Option<f64>,
    #[serde(rename = "x_RunCpuHours", deserialize_with = "nullable")]
    pub x_run_cpu_hours: Option<f64>,
    #[serde(rename = "x_EnergyKwh", deserialize_with = "nullable")]
    pub x_energy_kwh: Option<f64>,
    #[serde(rename = "x_Co2eGrams", deserialize_with = "nullable")]
    pub x_co2e_grams: Option<f64>,
    #[serde(rename = "x_CarbonProvider", deserialize_with = "nullable")]
    pub x_carbon_provider: Option<String>,
    #[serde(rename = "x_CarbonProviderDigest", deserialize_with = "nullable")]
    pub x_carbon_provider_digest: Option<String>,
    #[serde(rename = "x_EmbodiedCo2eGrams", deserialize_with = "nullable")]
    pub x_embodied_co2e_grams: Option<f64>,
    #[serde(rename = "x_WaterLitres", deserialize_with = "nullable")]
    pub x_water_litres: Option<f64>,
    #[serde(rename = "x_Tokens", deserialize_with = "nullable")]
    pub x_tokens: Option<f64>,
    #[serde(rename = "x_PromptTokens", deserialize_with = "nullable")]
    pub x_prompt_tokens: Option<f64>,
    #[serde(rename = "x_Requests", deserialize_with = "nullable")]
    pub x_requests: Option<f64>,
    #[serde(rename = "x_UnitName", deserialize_with = "nullable")]
    pub x_unit_name: Option<String>,
    #[serde(rename = "x_Units", deserialize_with = "nullable")]
    pub x_units: Option<f64>,
}

// ---- gpu (one reading) ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuReading {
    pub source: String,
    pub source_detail: String,
    pub fields: String,
    pub devices: Vec<Device>,
    pub aggregates: Aggregates,
    pub notes: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Device {
    pub index: u32,
    pub name: String,
    #[serde(deserialize_with = "nullable")]
    pub uuid: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub utilization_pct: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub memory_utilization_pct: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub memory_used_mib: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub memory_total_mib: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub temperature_c: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub power_w: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub power_limit_w: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub clock_sm_mhz: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub clock_memory_mhz: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub fan_pct: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub pstate: Option<u8>,
    #[serde(deserialize_with = "nullable")]
    pub throttle_thermal: Option<bool>,
    #[serde(deserialize_with = "nullable")]
    pub throttle_power: Option<bool>,
    #[serde(deserialize_with = "nullable")]
    pub throttle_hw_slowdown: Option<bool>,
    #[serde(deserialize_with = "nullable")]
    pub ecc_corrected: Option<u64>,
    #[serde(deserialize_with = "nullable")]
    pub ecc_uncorrected: Option<u64>,
    #[serde(deserialize_with = "nullable")]
    pub energy_counter_j: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Aggregates {
    pub gpu_count: u64,
    #[serde(deserialize_with = "nullable")]
    pub mean_utilization_pct: Option<f64>,
    pub utilization_count: u64,
    #[serde(deserialize_with = "nullable")]
    pub total_memory_used_gib: Option<f64>,
    pub memory_count: u64,
    #[serde(deserialize_with = "nullable")]
    pub total_power_w: Option<f64>,
    pub power_count: u64,
    #[serde(deserialize_with = "nullable")]
    pub max_temperature_c: Option<f64>,
    pub temperature_count: u64,
}

// ---- gpu serve / gpu export, when they stop ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stopped {
    pub exporter: String,
    #[serde(deserialize_with = "nullable")]
    pub listen: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub otlp: Option<String>,
    pub semconv: String,
    #[serde(deserialize_with = "nullable")]
    pub source: Option<String>,
    pub status: String,
    #[serde(deserialize_with = "nullable")]
    pub energy_kwh: Option<f64>,
}

// ---- import slurm|flux ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Imported {
    pub scheduler: String,
    pub cluster: String,
    pub cluster_from: String,
    pub source: String,
    #[serde(deserialize_with = "nullable")]
    pub since: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub since_from: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub until: Option<String>,
    pub dry_run: bool,
    pub jobs_read: u64,
    pub steps: u64,
    pub imported: u64,
    pub already_there: u64,
    pub records_written: u64,
    pub skipped: BTreeMap<String, u64>,
    pub bad_lines: Vec<BadLine>,
    pub energy_measured: u64,
    pub carbon_provider: String,
    pub cost_provider: String,
    #[serde(deserialize_with = "nullable")]
    pub watermark: Option<String>,
    pub db: String,
    pub notes: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    pub jobs: Option<Vec<JobRecord>>,
    /// Only when the grid's history priced the jobs.
    #[serde(default)]
    pub grid_history: Option<ImportHistory>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BadLine {
    pub line: u64,
    pub field: String,
    pub why: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobRecord {
    pub run_id: String,
    pub model: String,
    pub state: String,
    #[serde(deserialize_with = "nullable")]
    pub user: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub account: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub partition: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub ended: Option<String>,
    pub gpu_hours: f64,
    pub cpu_hours: f64,
    #[serde(deserialize_with = "nullable")]
    pub node_kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub co2e_g: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub cost_usd: Option<f64>,
    pub notes: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportHistory {
    pub url: String,
    #[serde(deserialize_with = "nullable")]
    pub zone: Option<String>,
    pub shape: String,
    pub days: u64,
    pub requests: u64,
    pub cached: u64,
    pub readings: u64,
    pub jobs_weighed: u64,
}

// ---- import kubernetes ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KubeImported {
    pub cluster: String,
    pub prometheus: String,
    pub since: String,
    pub since_from: String,
    pub until: String,
    pub days: u64,
    pub dry_run: bool,
    pub pod_days: u64,
    pub imported: u64,
    pub already_there: u64,
    pub records_written: u64,
    pub skipped: BTreeMap<String, u64>,
    pub measured_kwh: f64,
    pub carbon_provider: String,
    pub cost_provider: String,
    pub queries: u64,
    pub db: String,
    pub notes: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    pub pods: Option<Vec<PodDay>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PodDay {
    pub run_id: String,
    pub model: String,
    pub namespace: String,
    pub pod: String,
    pub uid: String,
    pub day: String,
    pub gpu_hours: f64,
    pub cpu_hours: f64,
    #[serde(deserialize_with = "nullable")]
    pub gpu_kwh: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub cpu_kwh: Option<f64>,
    pub tags: BTreeMap<String, String>,
    #[serde(deserialize_with = "nullable")]
    pub co2e_g: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub cost_usd: Option<f64>,
    pub notes: Vec<String>,
}

// ---- db migrate, db copy, sync mlflow ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Migrated {
    pub db: String,
    pub schema_version: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Copied {
    pub from: String,
    pub to: String,
    pub read: u64,
    pub copied: u64,
    pub already_there: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Synced {
    pub tracking_uri: String,
    pub sent: u64,
    pub still_waiting: u64,
    #[serde(deserialize_with = "nullable")]
    pub error: Option<String>,
}

// ---- config path|show|init ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigPath {
    pub path: String,
    pub source: String,
    pub exists: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigShow {
    pub config: ConfigPath,
    pub strict: Sourced<bool>,
    pub gpu_source: Sourced<String>,
    #[serde(deserialize_with = "nullable")]
    pub nvml_library: Option<Sourced<String>>,
    pub cpu_source: Sourced<String>,
    pub cpu_energy: CpuInEffect,
    pub node_source: Sourced<String>,
    pub node_meter: NodeInEffect,
    #[serde(deserialize_with = "nullable")]
    pub grid_region: Option<Sourced<String>>,
    pub carbon: DomainSettings,
    pub cost: DomainSettings,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuInEffect {
    #[serde(deserialize_with = "nullable")]
    pub source: Option<String>,
    pub zones: Vec<String>,
    pub notes: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    pub reason: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DomainSettings {
    pub provider: Sourced<String>,
    #[serde(deserialize_with = "nullable")]
    pub fallback_reason: Option<String>,
    pub coefficients: BTreeMap<String, Coef>,
    pub notes: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigWritten {
    pub path: String,
    pub replaced: bool,
    pub directories: Vec<String>,
}

/// `completions` and `man` under `-o json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    pub text: String,
}

// ---- metrics clusters|node|workload|flags|query ----
// exa flattens the envelope (cluster ... note) into each read; serde cannot deny unknown fields of a
// flattened struct, so each answer spells the envelope's fields out.

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clusters {
    pub clusters: Vec<ClusterRow>,
    #[serde(deserialize_with = "nullable")]
    pub note: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterRow {
    pub name: String,
    pub prometheus: String,
    pub gpu_vendor: String,
    pub gpu_model: String,
    pub node_label: String,
    pub labels: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Window {
    pub start: String,
    pub end: String,
    pub step_s: i64,
    pub points: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    pub gpu_model: String,
    pub temp_p95_c: f64,
    pub note: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coverage {
    pub present: Vec<String>,
    pub missing: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Queries {
    pub count: u64,
    pub seconds: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeAnswer {
    pub cluster: String,
    pub gpu_vendor: String,
    pub gpu_model: String,
    pub window: Window,
    #[serde(deserialize_with = "nullable")]
    pub reference: Option<Reference>,
    pub coverage: Coverage,
    pub note: String,
    pub node: NodeHead,
    pub gpus: BTreeMap<String, GpuBlock>,
    pub host: Host,
    pub health_episodes: Vec<Episode>,
    pub queries: Queries,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeHead {
    pub name: String,
    pub gpus: u64,
    #[serde(deserialize_with = "nullable")]
    pub state: Option<String>,
}

/// A node's readings within a workload's answer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeBlock {
    pub gpus: BTreeMap<String, GpuBlock>,
    pub host: Host,
    pub health_episodes: Vec<Episode>,
}

/// `{t0, step_s, values, mean, min, max}`; `values` left out of a summarised series.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Series {
    pub t0: i64,
    pub step_s: i64,
    #[serde(default)]
    pub values: Option<Vec<Option<f64>>>,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuBlock {
    #[serde(deserialize_with = "nullable")]
    pub temp_c: Option<Series>,
    #[serde(deserialize_with = "nullable")]
    pub memory_temp_c: Option<Series>,
    #[serde(deserialize_with = "nullable")]
    pub sm_clock_mhz: Option<Series>,
    #[serde(deserialize_with = "nullable")]
    pub mem_clock_mhz: Option<Series>,
    #[serde(deserialize_with = "nullable")]
    pub util_pct: Option<Series>,
    #[serde(deserialize_with = "nullable")]
    pub sm_active_pct: Option<Series>,
    #[serde(deserialize_with = "nullable")]
    pub dram_active_pct: Option<Series>,
    #[serde(deserialize_with = "nullable")]
    pub tensor_active_pct: Option<Series>,
    #[serde(deserialize_with = "nullable")]
    pub power_w: Option<Series>,
    #[serde(deserialize_with = "nullable")]
    pub hbm_used_gib: Option<Series>,
    #[serde(deserialize_with = "nullable")]
    pub peak_temp_c: Option<f64>,
    pub throttle: Throttle,
    pub errors: Errors,
    #[serde(deserialize_with = "nullable")]
    pub hbm_total_gib: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Throttle {
    #[serde(deserialize_with = "nullable")]
    pub thermal_s: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub power_s: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub board_limit_s: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub sync_boost_s: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub low_util_s: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub reliability_s: Option<f64>,
    /// By the exporter's clock-event reason name (the vendor's, not exa's).
    #[serde(deserialize_with = "nullable")]
    pub clock_events: Option<BTreeMap<String, f64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Errors {
    #[serde(deserialize_with = "nullable")]
    pub link_crc: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub link_replay: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub link_recovery: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub pcie_replay: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub pcie_recovery: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub ecc_sbe: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub ecc_dbe: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub xid: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Host {
    #[serde(deserialize_with = "nullable")]
    pub cpu_busy_pct: Option<Series>,
    #[serde(deserialize_with = "nullable")]
    pub load_per_core: Option<Series>,
    pub pressure: Pressure,
    pub nic: Nic,
    #[serde(deserialize_with = "nullable")]
    pub north_south: Option<Series>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pressure {
    #[serde(deserialize_with = "nullable")]
    pub cpu: Option<Series>,
    #[serde(deserialize_with = "nullable")]
    pub memory: Option<Series>,
    #[serde(deserialize_with = "nullable")]
    pub io: Option<Series>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Nic {
    #[serde(deserialize_with = "nullable")]
    pub rx_mbps: Option<Series>,
    #[serde(deserialize_with = "nullable")]
    pub tx_mbps: Option<Series>,
    #[serde(deserialize_with = "nullable")]
    pub errors: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub drops: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Episode {
    pub kind: String,
    pub started: String,
    #[serde(deserialize_with = "nullable")]
    pub ended: Option<String>,
    pub detail: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadAnswer {
    pub cluster: String,
    pub gpu_vendor: String,
    pub gpu_model: String,
    pub window: Window,
    #[serde(deserialize_with = "nullable")]
    pub reference: Option<Reference>,
    pub coverage: Coverage,
    pub note: String,
    pub workload: WorkloadId,
    pub placement: Vec<Placement>,
    pub placement_source: String,
    pub nodes: BTreeMap<String, NodeBlock>,
    pub queries: Queries,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadId {
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    pub pod: String,
    pub node: String,
    #[serde(deserialize_with = "nullable")]
    pub from: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub to: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub phase: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlagsAnswer {
    pub cluster: String,
    pub gpu_vendor: String,
    pub gpu_model: String,
    pub window: Window,
    #[serde(deserialize_with = "nullable")]
    pub reference: Option<Reference>,
    pub coverage: Coverage,
    pub note: String,
    pub target: Judged,
    pub checked: Vec<String>,
    pub unavailable: Vec<String>,
    pub clean: bool,
    pub flags: Vec<Flag>,
    pub queries: Queries,
}

/// What `metrics flags` judged: a node, or a workload and where it ran.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Judged {
    Node(JudgedNode),
    Workload(JudgedWorkload),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgedNode {
    pub node: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgedWorkload {
    pub workload: WorkloadId,
    pub placement: Vec<Placement>,
    pub placement_source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flag {
    pub kind: String,
    pub severity: String,
    pub node: String,
    #[serde(deserialize_with = "nullable")]
    pub gpu: Option<String>,
    pub minutes: u64,
    pub from: String,
    pub to: String,
    pub clipped: Clipped,
    #[serde(deserialize_with = "nullable")]
    pub episode: Option<EpisodeBounds>,
    /// The readings behind the flag: a different object for each kind of flag (and, for comm_errors, keyed
    /// by the counters that rose), so it is not held to one shape here.
    pub evidence: serde_json::Value,
    pub summary: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clipped {
    pub start: bool,
    pub end: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EpisodeBounds {
    pub from: String,
    #[serde(deserialize_with = "nullable")]
    pub to: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueryAnswer {
    pub org: Org,
    #[serde(deserialize_with = "nullable")]
    pub cluster: Option<String>,
    pub query: String,
    #[serde(deserialize_with = "nullable")]
    pub scoped_query: Option<String>,
    pub scoped_queries: BTreeMap<String, String>,
    pub result_type: String,
    pub instant: bool,
    pub window: Window,
    pub series: Vec<QuerySeries>,
    pub series_total: u64,
    pub truncated: bool,
    pub failed: Vec<ClusterFailure>,
    #[serde(deserialize_with = "nullable")]
    pub note: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Org {
    pub clusters: Vec<String>,
}

/// One series of a query: a scalar, a value at the window's end, or values over the window.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum QuerySeries {
    Scalar(ScalarSeries),
    Instant(InstantSeries),
    Range(RangeSeries),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScalarSeries {
    pub cluster: String,
    pub value: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstantSeries {
    pub cluster: String,
    /// The series' Prometheus labels, whatever the query selects.
    pub labels: BTreeMap<String, String>,
    #[serde(deserialize_with = "nullable")]
    pub value: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RangeSeries {
    pub cluster: String,
    pub labels: BTreeMap<String, String>,
    pub values: Vec<Option<f64>>,
}

/// A cluster that did not answer an organization-wide query, and its refusal.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterFailure {
    pub cluster: String,
    pub code: String,
    pub status: u16,
    pub message: String,
    #[serde(default)]
    pub retry_after: Option<String>,
}

// ---- errors under -o json ----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody {
    pub error: ErrorInner,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorInner {
    pub kind: String,
    pub message: String,
}

/// A refusal of `exa metrics` (`kind: "metrics"`): the spec's whole envelope.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsErrorBody {
    pub error: MetricsErrorInner,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsErrorInner {
    pub kind: String,
    pub code: String,
    pub status: u16,
    pub message: String,
    #[serde(deserialize_with = "nullable")]
    pub retry_after: Option<String>,
}

/// An MCP tool's refusal: the spec's whole envelope, always (`retry_after` only when there is one).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpErrorBody {
    pub error: McpErrorInner,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpErrorInner {
    pub kind: String,
    pub code: String,
    pub status: u16,
    pub message: String,
    #[serde(default)]
    pub retry_after: Option<String>,
}

// ---- recognising the command, and checking its answer ----

/// The global flags that take a value, which may stand before the command.
const GLOBAL_WITH_VALUE: &[&str] = &["-o", "--output", "--config", "--db"];
/// The global flags that take none.
const GLOBAL_BARE: &[&str] = &["--json", "--strict"];

/// The words of the command exa runs (`finops carbon estimate`, `gpu serve`, `report`), with the global
/// flags before and between them skipped; the arguments after it are not included.
pub fn command(args: &[&str]) -> Vec<String> {
    let mut words = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        if a == "--" {
            break;
        } else if GLOBAL_WITH_VALUE.contains(&a) {
            i += 2;
            continue;
        } else if GLOBAL_BARE.contains(&a) || a.starts_with("-o") || GLOBAL_WITH_VALUE.iter().any(|g| a.starts_with(&format!("{g}="))) {
            i += 1;
            continue;
        } else if a.starts_with('-') {
            break;
        }
        words.push(a.to_string());
        if is_leaf(&words) {
            break;
        }
        i += 1;
    }
    words
}

/// Whether `words` name a whole command (one whose answer has a shape), or a group that needs one more word.
fn is_leaf(words: &[String]) -> bool {
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    // `gpu` alone is a reading; `gpu serve` and `gpu export` are the exporters.
    !matches!(w.as_slice(), ["finops" | "config" | "metrics" | "import" | "db" | "sync" | "gpu" | "budget"] | ["finops", "carbon" | "cost"])
}

/// The flag's value among `args` (`--flag V` or `--flag=V`).
fn flag_value<'a>(args: &[&'a str], flag: &str) -> Option<&'a str> {
    let eq = format!("{flag}=");
    let end = args.iter().position(|a| *a == "--").unwrap_or(args.len());
    let args = &args[..end];
    args.iter().enumerate().find_map(|(i, a)| if *a == flag { args.get(i + 1).copied() } else { a.strip_prefix(&eq) })
}

/// Decodes `json` strictly as `T`, or panics naming the command and the path of the field that differs.
#[track_caller]
pub fn decode<T: DeserializeOwned>(what: &str, json: &[u8]) -> T {
    let de = &mut serde_json::Deserializer::from_slice(json);
    match serde_path_to_error::deserialize::<_, T>(de) {
        Ok(v) => v,
        Err(e) => panic!(
            "exa {what}: the answer breaks the JSON contract (tests/cli/support/contract.rs) at `{}`: {}\n{}",
            e.path(),
            e.inner(),
            String::from_utf8_lossy(json)
        ),
    }
}

/// Checks a successful answer of exa run with `args` (exa's whole argv): decodes `json` with the strict
/// struct of that command, and panics, naming the command and the field's path, where it does not match.
/// For `finops measure`, `json` is its report (the `--report` file, or stdout/stderr where it went).
#[track_caller]
pub fn check(args: &[&str], json: &[u8]) {
    let words = command(args);
    let what = words.join(" ");
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    match w.as_slice() {
        ["finops", "carbon" | "cost", "estimate"] => drop(decode::<Estimate>(&what, json)),
        ["finops", "carbon" | "cost", "providers"] => drop(decode::<Providers>(&what, json)),
        ["finops", "carbon" | "cost", "show"] => drop(decode::<Show>(&what, json)),
        ["finops", "carbon" | "cost", "record"] => drop(decode::<Recorded>(&what, json)),
        ["finops", "carbon", "regions"] => drop(decode::<Regions>(&what, json)),
        ["finops", "carbon", "hardware"] => drop(decode::<Hardware>(&what, json)),
        ["finops", "carbon", "when"] => drop(decode::<When>(&what, json)),
        ["validate"] => drop(decode::<Validation>(&what, json)),
        ["finops", "measure"] => drop(decode::<Measurement>(&what, json)),
        ["report"] if flag_value(args, "--format") == Some("focus") => check_focus(&what, json),
        ["report"] => drop(decode::<Report>(&what, json)),
        ["gpu", "serve" | "export"] => drop(decode::<Stopped>(&what, json)),
        ["gpu", ..] => drop(decode::<GpuReading>(&what, json)),
        ["import", "slurm" | "flux"] => drop(decode::<Imported>(&what, json)),
        ["import", "kubernetes"] => drop(decode::<KubeImported>(&what, json)),
        ["db", "migrate"] => drop(decode::<Migrated>(&what, json)),
        ["budget", "set" | "rm"] => drop(decode::<BudgetDone>(&what, json)),
        ["budget", "list"] => drop(decode::<BudgetList>(&what, json)),
        ["budget", "status"] => drop(decode::<BudgetStatus>(&what, json)),
        ["budget", "check"] => drop(decode::<BudgetCheck>(&what, json)),
        ["budget", "notify"] => drop(decode::<BudgetNotified>(&what, json)),
        ["db", "copy"] => drop(decode::<Copied>(&what, json)),
        ["sync", "mlflow"] => drop(decode::<Synced>(&what, json)),
        ["config", "path"] => drop(decode::<ConfigPath>(&what, json)),
        ["config", "show"] => drop(decode::<ConfigShow>(&what, json)),
        ["config", "init"] => drop(decode::<ConfigWritten>(&what, json)),
        ["metrics", "clusters"] => drop(decode::<Clusters>(&what, json)),
        ["metrics", "node"] => drop(decode::<NodeAnswer>(&what, json)),
        ["metrics", "workload"] => drop(decode::<WorkloadAnswer>(&what, json)),
        ["metrics", "flags"] => drop(decode::<FlagsAnswer>(&what, json)),
        ["metrics", "query"] => drop(decode::<QueryAnswer>(&what, json)),
        ["completions" | "man", ..] => drop(decode::<Text>(&what, json)),
        _ => panic!("exa {args:?}: no contract for the command {what:?} in tests/cli/support/contract.rs"),
    }
}

/// `report --format focus -o json`: one FOCUS row per line.
#[track_caller]
fn check_focus(what: &str, json: &[u8]) {
    for (i, line) in String::from_utf8_lossy(json).lines().enumerate() {
        let _: FocusRow = decode(&format!("{what} --format focus (line {})", i + 1), line.as_bytes());
    }
}

/// Checks the error body exa printed on stdout under `-o json` when it failed: `{"error": {"kind",
/// "message"}}`, or a metrics refusal's whole envelope.
#[track_caller]
pub fn check_error(args: &[&str], json: &[u8]) {
    let what = format!("{} (failed)", command(args).join(" "));
    let kind = serde_json::from_slice::<serde_json::Value>(json).ok().and_then(|v| v["error"]["kind"].as_str().map(str::to_owned));
    if kind.as_deref() == Some("metrics") {
        drop(decode::<MetricsErrorBody>(&what, json));
    } else {
        drop(decode::<ErrorBody>(&what, json));
    }
}

/// Checks what exa printed on stdout under `-o json`: its answer when it succeeded, else the error body.
/// (`finops measure` exits with its command's status and its report is not always on stdout: use `check`.)
#[track_caller]
pub fn check_output(args: &[&str], out: &std::process::Output) {
    if out.status.success() {
        check(args, &out.stdout);
    } else {
        check_error(args, &out.stdout);
    }
}

/// The CLI command whose `-o json` an MCP tool answers with, given the tool's arguments; `None` for a tool
/// exa does not have (the call is then refused before any answer).
fn tool_command(tool: &str, arguments: &serde_json::Value) -> Option<Vec<String>> {
    let arg = |k: &str| arguments[k].as_str().unwrap_or_default().to_string();
    let words = |w: &[&str]| Some(w.iter().map(|s| (*s).to_string()).collect());
    match tool {
        "finops_estimate" => Some(vec!["finops".into(), arg("domain"), "estimate".into()]),
        "finops_providers" => Some(vec!["finops".into(), arg("domain"), "providers".into()]),
        "finops_report" => words(&["report"]),
        "finops_when" => words(&["finops", "carbon", "when"]),
        "finops_budget_status" => words(&["budget", "status"]),
        "gpu_read" => words(&["gpu"]),
        "metrics_read" => Some(vec!["metrics".into(), arg("action")]),
        "metrics_query" => words(&["metrics", "query"]),
        "metrics_clusters" => words(&["metrics", "clusters"]),
        _ => None,
    }
}

/// Checks an MCP tool's structured answer (`structuredContent`) against the contract of the CLI command it
/// answers as, or, when the call is an error, against the MCP error envelope. A call refused before any
/// answer (an unknown tool, a protocol error) has no structured content and nothing to check.
#[track_caller]
pub fn check_tool(tool: &str, arguments: &serde_json::Value, structured: &serde_json::Value, is_error: bool) {
    if structured.is_null() {
        return;
    }
    let json = structured.to_string();
    if is_error {
        drop(decode::<McpErrorBody>(&format!("mcp {tool} (refused)"), json.as_bytes()));
    } else {
        let words = tool_command(tool, arguments).unwrap_or_else(|| panic!("mcp {tool}: an answer from a tool exa does not have"));
        let args: Vec<&str> = words.iter().map(String::as_str).collect();
        check(&args, json.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate() -> serde_json::Value {
        serde_json::json!({
            "domain": "cost",
            "provider": {"name": "flat-rate", "kind": "builtin", "uncertainty": 0.0, "methodology": "m",
                         "source": null, "origin": null, "digest": "fnv1a64:0"},
            "provider_source": "default", "requested_provider": null, "fallback_reason": null,
            "inputs": {"gpu_hours": 1.0, "cpu_hours": 0.0}, "coefficients": {"gpu_rate": {"value": 2.0, "source": "default"}},
            "outputs": {"cost_usd": 2.0}, "range": null, "grid": null, "notes": []
        })
    }

    fn panic_of(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
        let e = std::panic::catch_unwind(f).expect_err("check should refuse it");
        e.downcast_ref::<String>().cloned().unwrap_or_default()
    }

    #[test]
    fn the_command_is_found_past_the_global_flags() {
        let words = |a: &[&str]| command(a).join(" ");
        assert_eq!(words(&["-o", "json", "--config", "f.yaml", "finops", "cost", "estimate", "--gpu-hours", "1"]), "finops cost estimate");
        assert_eq!(words(&["--json", "--db", "x", "--strict", "gpu", "--wide"]), "gpu");
        assert_eq!(words(&["-o", "json", "gpu", "serve", "--listen", "x"]), "gpu serve");
        assert_eq!(words(&["--output=json", "report", "M", "--format", "focus"]), "report");
        assert_eq!(words(&["-o", "json", "finops", "measure", "--report", "r", "--", "sh", "-c", "true"]), "finops measure");
    }

    #[test]
    fn check_accepts_the_contract_and_refuses_an_unknown_a_renamed_or_a_dropped_field() {
        let args = ["-o", "json", "finops", "cost", "estimate", "--gpu-hours", "1"];
        check(&args, estimate().to_string().as_bytes());

        let mut added = estimate();
        added["provider"]["bogus"] = 1.into();
        let msg = panic_of(move || check(&args, added.to_string().as_bytes()));
        assert!(msg.contains("exa finops cost estimate") && msg.contains("at `provider.bogus`: unknown field `bogus`"), "{msg}");

        let mut renamed = estimate();
        let v = renamed.as_object_mut().unwrap().remove("fallback_reason").unwrap();
        renamed["fallback_why"] = v;
        let msg = panic_of(move || check(&args, renamed.to_string().as_bytes()));
        assert!(msg.contains("at `fallback_why`: unknown field"), "{msg}");

        // A nullable field dropped is refused too, not taken for null.
        let mut dropped = estimate();
        dropped["provider"].as_object_mut().unwrap().remove("origin");
        let msg = panic_of(move || check(&args, dropped.to_string().as_bytes()));
        assert!(msg.contains("missing field `origin`") && msg.contains("at `provider`"), "{msg}");

        let msg = panic_of(|| check_error(&args, br#"{"error": {"kind": "usage", "message": "m", "hint": "h"}}"#));
        assert!(msg.contains("exa finops cost estimate (failed)") && msg.contains("hint"), "{msg}");
    }
}
