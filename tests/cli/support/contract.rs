//! The JSON contract as a consumer decodes it, once: the test's own structs,
//! with `deny_unknown_fields`, so every test that reads an answer also checks
//! that no field was added, renamed or dropped behind the documentation.

use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Estimate {
    pub domain: String,
    pub provider: Provider,
    pub provider_source: String,
    pub requested_provider: Option<String>,
    pub fallback_reason: Option<String>,
    pub inputs: std::collections::BTreeMap<String, f64>,
    pub coefficients: std::collections::BTreeMap<String, Coef>,
    pub outputs: std::collections::BTreeMap<String, f64>,
    pub range: Option<std::collections::BTreeMap<String, [f64; 2]>>,
    pub grid: Option<Grid>,
    /// On carbon estimates: how the embodied CO2e (and water) were made.
    pub footprint: Option<Footprint>,
    pub notes: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Footprint {
    pub method: String,
    pub defaults: std::collections::BTreeMap<String, String>,
    /// The GPU of exa's table, when one was chosen or matched.
    pub gpu: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provider {
    pub name: String,
    pub kind: String,
    pub uncertainty: Option<f64>,
    pub methodology: String,
    pub source: Option<String>,
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
    pub url: Option<String>,
    pub zone: Option<String>,
    pub reading_time: Option<String>,
    pub age_s: Option<u64>,
    pub detail: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Providers {
    pub domain: String,
    pub default: String,
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
    pub uncertainty: Option<f64>,
    pub status: String,
    pub reason: Option<String>,
    pub default: bool,
    pub origin: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recorded {
    pub id: i64,
    pub model: String,
    pub run_id: Option<String>,
    pub recorded_at: String,
    pub host: String,
    pub db: String,
    /// Present only when work was given.
    pub work: Option<Work>,
    pub estimate: Estimate,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Work {
    pub tokens: Option<f64>,
    pub prompt_tokens: Option<f64>,
    pub requests: Option<f64>,
    pub unit: Option<Unit>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unit {
    pub name: String,
    pub count: f64,
}

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
    pub model: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    /// Present only with `--per`: the unit's name.
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
    pub kwh: Option<f64>,
    pub co2e_g: Option<f64>,
    pub co2e_range_g: Option<[f64; 2]>,
    pub cost_usd: Option<f64>,
    pub currency: String,
    pub embodied_co2e_g: Option<f64>,
    pub water_l: Option<f64>,
    pub tokens: Option<f64>,
    pub prompt_tokens: Option<f64>,
    pub requests: Option<f64>,
    /// Present only with `--per`.
    pub per: Option<PerUnit>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerUnit {
    pub unit: String,
    pub r: Option<f64>,
    pub e_kwh: Option<f64>,
    pub i_g_per_kwh: Option<f64>,
    pub o_g: Option<f64>,
    pub m_g: Option<f64>,
    pub sci_g_per_unit: Option<f64>,
    pub co2e_g_per_unit: Option<f64>,
    pub kwh_per_unit: Option<f64>,
    pub j_per_unit: Option<f64>,
    pub cost_usd_per_unit: Option<f64>,
    pub water_l_per_unit: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    pub carbon: u64,
    pub cost: u64,
}

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
