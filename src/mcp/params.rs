//! The tools' arguments as types: each derives the input schema agents are
//! shown (`schemars`) and is read from the call with the same type
//! (`serde`), so the schema and the reading cannot disagree.
//!
//! Reading is exa's, not the schema validator's alone: an argument the tool
//! does not take is refused naming the nearest one it does (the names come
//! from the type's own schema); a mistyped one is refused naming it, by the
//! field helpers below; what a value means (a provider name, a window, a
//! duration) is checked by the command that takes it, as for the CLI. Every
//! refusal is a usage error: the spec's bad-request (422), the CLI's exit 2.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::commands::metrics::WindowArgs;
use crate::error::Error;

/// A window over the cluster's monitoring (the metrics tools).
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Window {
    /// a window ending now; ignored when start is given
    #[serde(default, deserialize_with = "range")]
    #[schemars(extend("enum" = ["1h", "6h", "24h", "7d"], "default" = "6h"))]
    pub range: Option<String>,
    /// ISO 8601 UTC start of an explicit window (at most 14 days)
    #[serde(default, deserialize_with = "start")]
    pub start: Option<String>,
    /// ISO 8601 UTC end; defaults to now
    #[serde(default, deserialize_with = "end")]
    pub end: Option<String>,
    /// series length after downsampling
    #[serde(default, deserialize_with = "points")]
    #[schemars(range(min = 1, max = 96), extend("default" = 48))]
    pub points: Option<u32>,
}

impl Window {
    /// As the metrics commands take it.
    pub fn args(self) -> WindowArgs {
        WindowArgs { range: self.range, start: self.start, end: self.end, points: self.points }
    }
}

/// `metrics_read`: a node, a workload, or the flags raised on either.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MetricsRead {
    /// what to read
    #[serde(deserialize_with = "text")]
    #[schemars(required, extend("enum" = ["node", "workload", "flags"]))]
    pub action: Option<String>,
    /// the cluster name (metrics_clusters lists them)
    #[serde(deserialize_with = "text")]
    #[schemars(required)]
    pub cluster: Option<String>,
    /// the node, for action=node and action=flags on a node
    #[serde(default, deserialize_with = "text")]
    pub node: Option<String>,
    /// the workload's kind
    #[serde(default, deserialize_with = "text")]
    #[schemars(extend("enum" = ["Job", "JobSet", "MPIJob", "Deployment", "StatefulSet", "Pod"]))]
    pub kind: Option<String>,
    /// the workload's name
    #[serde(default, deserialize_with = "text")]
    pub name: Option<String>,
    /// the workload's namespace
    #[serde(default, deserialize_with = "text")]
    #[schemars(extend("default" = "default"))]
    pub namespace: Option<String>,
    /// series for node, summary otherwise, when unset; flags take summary only
    #[serde(default, deserialize_with = "text")]
    #[schemars(extend("enum" = ["summary", "series"]))]
    pub detail: Option<String>,
    #[serde(flatten)]
    pub window: Window,
}

/// `metrics_query`: one PromQL expression, scoped to each cluster's series.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MetricsQuery {
    /// one cluster (metrics_clusters lists them); every cluster of the organization when unset
    #[serde(default, deserialize_with = "text")]
    pub cluster: Option<String>,
    /// PromQL
    #[serde(deserialize_with = "text")]
    #[schemars(required, length(max = 4000))]
    pub query: Option<String>,
    /// one value per series at the window's end
    #[serde(default, deserialize_with = "flag")]
    #[schemars(extend("default" = false))]
    pub instant: bool,
    #[serde(flatten)]
    pub window: Window,
}

/// `finops_estimate`: energy and CO2e, or cost, of GPU-hours and CPU-hours.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Estimate {
    /// carbon (energy and CO2e) or cost (USD)
    #[serde(deserialize_with = "text")]
    #[schemars(required, extend("enum" = ["carbon", "cost"]))]
    pub domain: Option<String>,
    /// GPU-hours of work
    #[serde(default, deserialize_with = "amount")]
    #[schemars(range(min = 0))]
    pub gpu_hours: Option<f64>,
    /// CPU-hours of work
    #[serde(default, deserialize_with = "amount")]
    #[schemars(range(min = 0))]
    pub cpu_hours: Option<f64>,
    /// measured GPU energy over gpu_hours (carbon)
    #[serde(default, deserialize_with = "amount")]
    #[schemars(range(min = 0))]
    pub gpu_kwh: Option<f64>,
    /// measured CPU and memory energy over cpu_hours (carbon)
    #[serde(default, deserialize_with = "amount")]
    #[schemars(range(min = 0))]
    pub cpu_kwh: Option<f64>,
    /// grid region for the intensity: a country (FR), US state (US-VA), NERC region or cloud region (aws:us-east-1); carbon
    #[serde(default, deserialize_with = "text")]
    #[schemars(length(max = 64))]
    pub region: Option<String>,
    /// a provider name as finops_providers lists it (never a path, a program or a URL); the configured or default one when unset
    #[serde(default, deserialize_with = "text")]
    #[schemars(regex(pattern = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"))]
    pub provider: Option<String>,
    /// coefficients to set, as --set NAME=VALUE
    #[serde(default, deserialize_with = "amounts")]
    #[schemars(with = "Option<BTreeMap<String, f64>>", extend("additionalProperties" = {"type": "number", "minimum": 0}))]
    pub coefficients: Option<Vec<(String, f64)>>,
    /// the GPU model (H100-SXM, NVIDIA L4): a provider that prices by model (hardware-aware) takes its board power; carbon
    #[serde(default, deserialize_with = "text")]
    #[schemars(length(max = 64))]
    pub gpu_model: Option<String>,
    /// the CPU model (EPYC 7763), with cpu_cores: a provider that prices by model takes a core's power as its TDP over its cores; carbon
    #[serde(default, deserialize_with = "text")]
    #[schemars(length(max = 64))]
    pub cpu_model: Option<String>,
    /// the CPU model's CPUs a socket, as cpu_hours counts them
    #[serde(default, deserialize_with = "amount")]
    #[schemars(range(min = 1, max = 4096))]
    pub cpu_cores: Option<f64>,
}

/// `finops_providers`: the carbon or cost providers.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Providers {
    /// carbon (energy and CO2e) or cost (USD)
    #[serde(deserialize_with = "text")]
    #[schemars(required, extend("enum" = ["carbon", "cost"]))]
    pub domain: Option<String>,
}

/// `finops_report`: totals of the stored records.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Report {
    /// how records are grouped
    #[serde(default, deserialize_with = "text")]
    #[schemars(schema_with = "group_by")]
    pub by: Option<String>,
    /// one model's records only
    #[serde(default, deserialize_with = "text")]
    pub model: Option<String>,
    /// UTC date or time, inclusive
    #[serde(default, deserialize_with = "text")]
    pub since: Option<String>,
    /// UTC date or time, exclusive; a date alone includes that day
    #[serde(default, deserialize_with = "text")]
    pub until: Option<String>,
    /// figures per unit of work, with SCI's terms: token, request, run, or a unit recorded with --unit
    #[serde(default, deserialize_with = "text")]
    #[schemars(regex(pattern = r"^[a-z][a-z0-9_-]{0,39}$"))]
    pub per: Option<String>,
}

/// The groupings `report --by` takes by name, from the one list the CLI parses them with: never restated.
pub fn group_by_names() -> Vec<String> {
    crate::cli::GroupBy::NAMED.iter().map(|(n, _)| (*n).to_string()).collect()
}

/// `by`'s schema: a string, one of `group_by_names` or a tag (`label:KEY`, `annotation:KEY`), `model` when unset.
fn group_by(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "default": "model",
        "anyOf": [
            {"enum": group_by_names()},
            {"pattern": "^(label|annotation):([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"}
        ]
    })
}

/// `finops_when`: the least-carbon start for a job of a known length.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct When {
    /// how long the job runs: 90m, 6h, 1.5d (1 minute to 30 days)
    #[serde(deserialize_with = "text")]
    #[schemars(required, regex(pattern = r"^[0-9.]+ *(s|sec|m|min|h|d)?$"))]
    pub duration: Option<String>,
    /// how far from now it may start
    #[serde(default, deserialize_with = "text")]
    #[schemars(regex(pattern = r"^[0-9.]+ *(s|sec|m|min|h|d)?$"), extend("default" = "24h"))]
    pub within: Option<String>,
    /// the job's mean power, for its emissions in grams
    #[serde(default, deserialize_with = "amount")]
    #[schemars(extend("exclusiveMinimum" = 0, "maximum" = 1e7))]
    pub power_w: Option<f64>,
    /// the grid region whose forecast to read: a country (FR) or a cloud region outside the US (gcp:europe-west9); the configured zone or region when unset
    #[serde(default, deserialize_with = "text")]
    #[schemars(length(max = 64))]
    pub region: Option<String>,
}

/// `finops_budget_status`: the budgets' use this period.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BudgetStatus {
    /// one budget's name; every budget when unset
    #[serde(default, deserialize_with = "text")]
    #[schemars(regex(pattern = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"))]
    pub name: Option<String>,
    /// as of this time (ISO 8601 UTC, or a date); now when unset
    #[serde(default, deserialize_with = "text")]
    #[schemars(length(max = 40))]
    pub at: Option<String>,
}

/// A tool that takes no arguments (`metrics_clusters`, `gpu_read`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Nothing {}

/// The input schema of `T`, as agents are shown it: an object of its fields and no others.
pub fn schema<T: JsonSchema>() -> Arc<JsonObject> {
    let mut v = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
    let Value::Object(m) = &mut v else { return Arc::new(JsonObject::new()) };
    m.remove("$schema");
    m.remove("title");
    m.remove("description");
    m.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    m.entry("required").or_insert_with(|| Value::Array(Vec::new()));
    m.insert("additionalProperties".into(), Value::Bool(false));
    if let Some(Value::Object(props)) = m.get_mut("properties") {
        for p in props.values_mut() {
            present_only(p);
        }
    }
    Arc::new(std::mem::take(m))
}

/// An optional field is absent when unset: its schema names its type alone (a null is read as
/// absent all the same), and has no default of null. Rust's number formats (`uint32`, `double`)
/// go too: they say nothing the bounds do not, and some clients refuse a format they do not know.
fn present_only(p: &mut Value) {
    if let Value::Object(m) = p {
        if m.get("default") == Some(&Value::Null) {
            m.remove("default");
        }
        m.remove("format");
    }
    if let Some(Value::Array(types)) = p.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| t.as_str() != Some("null")).cloned().collect();
        p["type"] = if kept.len() == 1 { kept[0].clone() } else { Value::Array(kept) };
    }
}

/// Reads a tool's arguments as `T`: an argument it does not take is refused naming the nearest it
/// does; a mistyped one is refused naming it.
pub fn read<T: DeserializeOwned + JsonSchema>(args: &Map<String, Value>) -> Result<T, Error> {
    let schema = schema::<T>();
    let known: Vec<&str> = match schema.get("properties") {
        Some(Value::Object(p)) => p.keys().map(String::as_str).collect(),
        _ => Vec::new(),
    };
    if let Some(k) = args.keys().find(|k| !known.contains(&k.as_str())) {
        let hint = crate::suggest::nearest(k, known.iter().copied()).map(|n| format!("; did you mean '{n}'?")).unwrap_or_default();
        return Err(Error::Usage(format!("unknown argument '{}'{hint}", crate::text::clean(k))));
    }
    // A required argument left out reads as null: the command that takes it refuses it in its own words,
    // as it refuses the CLI's missing flag.
    let mut args = args.clone();
    if let Some(Value::Array(required)) = schema.get("required") {
        for r in required.iter().filter_map(Value::as_str) {
            args.entry(r).or_insert(Value::Null);
        }
    }
    serde_path_to_error::deserialize(Value::Object(args)).map_err(|e| {
        // A flattened struct's field is not on the path (".."): the window's fields name themselves.
        let path = e.path().to_string();
        let inner = crate::text::clean(&e.into_inner().to_string());
        match path.as_str() {
            "." => Error::Usage(inner),
            p => Error::Usage(format!("argument '{}' {inner}", crate::text::clean(p))),
        }
    })
}

/// What a JSON value is, for a refusal.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A string, or absent (null).
fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    string(Value::deserialize(d)?).map_err(D::Error::custom)
}

fn string(v: Value) -> Result<Option<String>, String> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        other => Err(format!("must be a string, not {}", kind(&other))),
    }
}

/// A field of the window, which is flattened into the tools that take one: serde cannot say
/// which field of a flattened struct failed, so these name themselves (see `read`).
fn named(name: &str, r: Result<Option<String>, String>) -> Result<Option<String>, String> {
    r.map_err(|e| format!("argument '{name}' {e}"))
}

fn range<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    named("range", string(Value::deserialize(d)?)).map_err(D::Error::custom)
}

fn start<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    named("start", string(Value::deserialize(d)?)).map_err(D::Error::custom)
}

fn end<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    named("end", string(Value::deserialize(d)?)).map_err(D::Error::custom)
}

fn finite(v: &Value) -> Result<f64, String> {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
            _ => Err("must be a finite number of 0 or more".into()),
        },
        other => Err(format!("must be a number, not {}", kind(other))),
    }
}

/// A finite number of 0 or more, or absent (null).
fn amount<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        v => finite(&v).map(Some).map_err(D::Error::custom),
    }
}

/// An object of finite numbers of 0 or more, in the order given, or absent (null).
fn amounts<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<(String, f64)>>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::Object(m) => m
            .into_iter()
            .map(|(k, v)| finite(&v).map(|x| (k.clone(), x)).map_err(|e| D::Error::custom(format!("'{}' {e}", crate::text::clean(&k)))))
            .collect::<Result<_, _>>()
            .map(Some),
        other => Err(D::Error::custom(format!("must be an object of numbers, not {}", kind(&other)))),
    }
}

/// True or false; absent (null) is false.
fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(false),
        Value::Bool(b) => Ok(b),
        other => Err(D::Error::custom(format!("must be true or false, not {}", kind(&other)))),
    }
}

/// A whole number (the range is the window's to check), or absent (null); a window's field,
/// so it names itself.
fn points<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::Number(n) => match n.as_u64().and_then(|v| u32::try_from(v).ok()) {
            Some(v) => Ok(Some(v)),
            None => Err(D::Error::custom(format!("argument 'points' must be a whole number from 1 to 96, not {n}"))),
        },
        other => Err(D::Error::custom(format!("argument 'points' must be a whole number, not {}", kind(&other)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn the_schema_lists_exactly_the_fields_the_reader_takes() {
        let s = schema::<MetricsRead>();
        let props: Vec<&String> = s["properties"].as_object().unwrap().keys().collect();
        assert_eq!(props.len(), 11, "{props:?}: the window's four are flattened in");
        assert_eq!(s["properties"]["points"]["maximum"], 96);
        assert_eq!(s["properties"]["cluster"]["type"], "string");
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(s["required"], json!(["action", "cluster"]));
        assert!(s["properties"]["node"].get("default").is_none(), "no default of null");
        let read: MetricsRead = read(&args(json!({"action": "node", "cluster": "c", "range": "1h", "points": 12}))).unwrap();
        assert_eq!((read.window.range.as_deref(), read.window.points), (Some("1h"), Some(12)));
    }

    #[test]
    fn a_wrong_argument_is_refused_naming_it() {
        let e = read::<Estimate>(&args(json!({"domain": "carbon", "coefficients": {"pue": "high"}}))).unwrap_err().to_string();
        assert!(e.contains("argument 'coefficients' 'pue' must be a number, not a string"), "{e}");
        let e = read::<MetricsQuery>(&args(json!({"query": "up", "points": 1.5}))).unwrap_err().to_string();
        assert!(e.contains("argument 'points' must be a whole number from 1 to 96, not 1.5"), "{e}");
        let e = read::<MetricsRead>(&args(json!({"action": "node", "cluster": "c", "start": 5}))).unwrap_err().to_string();
        assert!(e.contains("argument 'start' must be a string, not a number"), "{e}");
        // A required argument left out reaches the command as null, which refuses it in its own words.
        let p: Providers = read(&args(json!({}))).unwrap();
        assert_eq!(p.domain, None);
        assert_eq!(schema::<Providers>()["required"], json!(["domain"]));
        assert!(schema::<Estimate>()["properties"]["gpu_hours"].get("format").is_none());
        let e = read::<Nothing>(&args(json!({"x": 1}))).unwrap_err().to_string();
        assert!(e.contains("unknown argument 'x'"), "{e}");
        let e = read::<MetricsQuery>(&args(json!({"query": "up", "instant": "yes"}))).unwrap_err().to_string();
        assert!(e.contains("argument 'instant' must be true or false, not a string"), "{e}");
    }
}
