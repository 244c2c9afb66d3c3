//! The tools: their input schemas, and each call run through the same
//! functions as the CLI, answering with the CLI's `-o json` as structured
//! content and the text a person would read.
//!
//! Arguments are read here, not by the schema validator alone: a missing or
//! mistyped one reaches exa's own checks and comes back as the spec's
//! `bad-request` (422), naming the argument.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::cli::{Cli, GroupBy};
use crate::commands;
use crate::commands::metrics::{self as cm, WindowArgs};
use crate::error::Error;
use crate::model::{CoefficientOverride, Domain, Request};
use crate::output::{Render, Style};
use crate::settings::Settings;

/// The tool names: the interface agents are configured with.
pub const NAMES: [&str; 8] = [
    "metrics_read",
    "metrics_query",
    "metrics_clusters",
    "finops_estimate",
    "finops_providers",
    "finops_report",
    "finops_when",
    "gpu_read",
];

fn schema(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => Arc::new(JsonObject::new()),
    }
}

fn window_props() -> Map<String, Value> {
    let v = json!({
        "range": {"type": "string", "enum": ["1h", "6h", "24h", "7d"], "default": "6h", "description": "a window ending now; ignored when start is given"},
        "start": {"type": "string", "description": "ISO 8601 UTC start of an explicit window (at most 14 days)"},
        "end": {"type": "string", "description": "ISO 8601 UTC end; defaults to now"},
        "points": {"type": "integer", "minimum": 1, "maximum": 96, "default": 48, "description": "series length after downsampling"}
    });
    v.as_object().cloned().unwrap_or_default()
}

fn object(mut props: Map<String, Value>, extra: Value, required: &[&str]) -> Arc<JsonObject> {
    if let Value::Object(m) = extra {
        props.extend(m);
    }
    schema(json!({"type": "object", "properties": props, "required": required, "additionalProperties": false}))
}

fn read_only(title: &str) -> ToolAnnotations {
    ToolAnnotations::with_title(title).read_only(true).destructive(false).idempotent(true)
}

fn none() -> Arc<JsonObject> {
    schema(json!({"type": "object", "properties": {}, "additionalProperties": false}))
}

/// The metrics tools: the spec's argument tables as schemas.
fn metrics_tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "metrics_read",
            "What the cluster's own monitoring saw on a node's or a workload's GPUs and host over a window, or the flags it raises \
             with their evidence. Read only. Answers the spec's envelope: cluster, window, reference temperature, coverage, readings.",
            object(
                window_props(),
                json!({
                    "action": {"type": "string", "enum": ["node", "workload", "flags"]},
                    "cluster": {"type": "string", "description": "the cluster name (metrics_clusters lists them)"},
                    "node": {"type": "string", "description": "the node, for action=node and action=flags on a node"},
                    "kind": {"type": "string", "enum": ["Job", "JobSet", "MPIJob", "Deployment", "StatefulSet", "Pod"]},
                    "name": {"type": "string", "description": "the workload's name"},
                    "namespace": {"type": "string", "default": "default"},
                    "detail": {"type": "string", "enum": ["summary", "series"], "description": "series for node, summary otherwise, when unset; flags take summary only"}
                }),
                &["action", "cluster"],
            ),
        )
        .with_annotations(read_only("Read cluster telemetry and flags")),
        Tool::new(
            "metrics_query",
            "One PromQL expression over the organization's monitoring: one cluster's, or without cluster every cluster \
             configured, each scoped to its own series. Read only.",
            object(
                window_props(),
                json!({
                    "cluster": {"type": "string", "description": "one cluster (metrics_clusters lists them); every cluster of the organization when unset"},
                    "query": {"type": "string", "maxLength": 4000, "description": "PromQL"},
                    "instant": {"type": "boolean", "default": false, "description": "one value per series at the window's end"}
                }),
                &["query"],
            ),
        )
        .with_annotations(read_only("Run a PromQL query")),
        Tool::new("metrics_clusters", "The configured clusters: name, GPU vendor and model, where their monitoring is.", none())
            .with_annotations(read_only("List clusters")),
    ]
}

/// Every tool, with its input schema and annotations.
pub fn list() -> Vec<Tool> {
    let domain = json!({"type": "string", "enum": ["carbon", "cost"], "description": "carbon (energy and CO2e) or cost (USD)"});
    let mut tools = metrics_tools();
    tools.extend([
        Tool::new(
            "finops_estimate",
            "Energy and CO2e (domain carbon) or cost (domain cost) of GPU-hours and CPU-hours, by the resolved provider, with \
             every coefficient and where it came from. Writes no record.",
            object(
                Map::new(),
                json!({
                    "domain": domain,
                    "gpu_hours": {"type": "number", "minimum": 0},
                    "cpu_hours": {"type": "number", "minimum": 0},
                    "gpu_kwh": {"type": "number", "minimum": 0, "description": "measured GPU energy over gpu_hours (carbon)"},
                    "cpu_kwh": {"type": "number", "minimum": 0, "description": "measured CPU and memory energy over cpu_hours (carbon)"},
                    "region": {"type": "string", "maxLength": 64, "description": "grid region for the intensity: a country (FR), US state (US-VA), NERC region or cloud region (aws:us-east-1); carbon"},
                    "provider": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", "description": "a provider name as finops_providers lists it (never a path, a program or a URL); the configured or default one when unset"},
                    "coefficients": {"type": "object", "additionalProperties": {"type": "number", "minimum": 0}, "description": "coefficients to set, as --set NAME=VALUE"}
                }),
                &["domain"],
            ),
        )
        .with_annotations(read_only("Estimate carbon or cost")),
        Tool::new(
            "finops_providers",
            "The carbon or cost providers: name, kind, status, which is the default and which is selected.",
            object(Map::new(), json!({"domain": domain}), &["domain"]),
        )
        .with_annotations(read_only("List providers")),
        Tool::new(
            "finops_report",
            "Totals of the stored records grouped by model, run, provider or day: runs, GPU-h, CPU-h, kWh, CO2e with its range, \
             USD; each run counted once.",
            object(
                Map::new(),
                json!({
                    "by": {"type": "string", "enum": ["model", "run", "provider", "day", "user", "account", "partition"], "default": "model"},
                    "model": {"type": "string"},
                    "since": {"type": "string", "description": "UTC date or time, inclusive"},
                    "until": {"type": "string", "description": "UTC date or time, exclusive; a date alone includes that day"}
                }),
                &[],
            ),
        )
        .with_annotations(read_only("Report stored records")),
        Tool::new(
            "finops_when",
            "The start within a window that gives a job of a known length the least carbon by the configured grid forecast \
             (UK National Grid, Electricity Maps, WattTime or the Carbon Aware SDK), with the saving against starting now.",
            object(
                Map::new(),
                json!({
                    "duration": {"type": "string", "pattern": "^[0-9.]+ *(s|sec|m|min|h|d)?$", "description": "how long the job runs: 90m, 6h, 1.5d (1 minute to 30 days)"},
                    "within": {"type": "string", "pattern": "^[0-9.]+ *(s|sec|m|min|h|d)?$", "default": "24h", "description": "how far from now it may start"},
                    "power_w": {"type": "number", "exclusiveMinimum": 0, "maximum": 1e7, "description": "the job's mean power, for its emissions in grams"}
                }),
                &["duration"],
            ),
        )
        .with_annotations(read_only("Best time to run")),
        Tool::new("gpu_read", "One reading of every GPU on this host (NVML, nvidia-smi or amd-smi, as exa gpu chooses), and the aggregates.", none())
            .with_annotations(read_only("Read this host's GPUs")),
    ]);
    tools
}

/// A tool's arguments, read with exa's own checks.
struct Args<'a>(&'a Map<String, Value>);

/// A malformed argument: a usage error, the spec's bad-request (422), as the CLI's exit 2.
fn bad(message: String) -> Error {
    Error::Usage(message)
}

impl Args<'_> {
    /// Refuses an argument the tool does not take, naming the nearest one it does.
    fn only(&self, known: &[&str]) -> Result<(), Error> {
        match self.0.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => {
                let hint = crate::suggest::nearest(k, known.iter().copied()).map(|n| format!("; did you mean '{n}'?")).unwrap_or_default();
                Err(bad(format!("unknown argument '{}'{hint}", crate::text::clean(k))))
            }
            None => Ok(()),
        }
    }

    fn str(&self, name: &str) -> Result<Option<&str>, Error> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(bad(format!("argument '{name}' must be a string, not {}", kind(other)))),
        }
    }

    fn amount(&self, name: &str) -> Result<Option<f64>, Error> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(v) if v.is_finite() && v >= 0.0 => Ok(Some(v)),
                _ => Err(bad(format!("argument '{name}' must be a finite number of 0 or more"))),
            },
            Some(other) => Err(bad(format!("argument '{name}' must be a number, not {}", kind(other)))),
        }
    }

    fn flag(&self, name: &str) -> Result<bool, Error> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(bad(format!("argument '{name}' must be true or false, not {}", kind(other)))),
        }
    }

    fn points(&self) -> Result<Option<u32>, Error> {
        match self.0.get("points") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_u64().and_then(|v| u32::try_from(v).ok()) {
                Some(v) => Ok(Some(v)),
                None => Err(bad(format!("argument 'points' must be a whole number from 1 to 96, not {n}"))),
            },
            Some(other) => Err(bad(format!("argument 'points' must be a whole number, not {}", kind(other)))),
        }
    }

    fn window(&self) -> Result<WindowArgs, Error> {
        Ok(WindowArgs {
            range: self.str("range")?.map(str::to_string),
            start: self.str("start")?.map(str::to_string),
            end: self.str("end")?.map(str::to_string),
            points: self.points()?,
        })
    }

    fn domain(&self) -> Result<Domain, Error> {
        match cm::required(self.str("domain")?, "domain", "carbon or cost")? {
            "carbon" => Ok(Domain::Carbon),
            "cost" => Ok(Domain::Cost),
            other => Err(bad(format!("domain '{}' is not carbon or cost", crate::text::clean(other)))),
        }
    }
}

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

const WINDOW: [&str; 4] = ["range", "start", "end", "points"];

/// An answer: its JSON (the CLI's `-o json`) and the text a person reads.
fn answer<R: Render + Serialize>(r: &R) -> CallToolResult {
    let mut text = String::new();
    r.render(Style { color: false, width: None }, &mut text);
    let mut result = CallToolResult::structured(serde_json::to_value(r).unwrap_or(Value::Null));
    result.content = vec![ContentBlock::text(text)];
    result
}

/// A refusal as a tool error: the spec's code and status, and the message.
pub fn refusal(e: &Error) -> CallToolResult {
    let crate::error::Kind { kind, code, status } = e.kind();
    let retry_after = match e {
        Error::Metrics(r) => r.retry_after.clone(),
        _ => None,
    };
    let message = match e {
        Error::Metrics(r) => r.message.clone(),
        other => other.to_string(),
    };
    let mut body = json!({"error": {"kind": kind, "code": code, "status": status, "message": message}});
    if let Some(r) = retry_after {
        body["error"]["retry_after"] = json!(r);
    }
    let mut result = CallToolResult::structured_error(body);
    result.content = vec![ContentBlock::text(format!("{code} ({status}): {message}"))];
    result
}

/// A slow call refused because `limit` are running or queued already: retry shortly.
pub fn busy(limit: usize) -> CallToolResult {
    let message =
        format!("exa is busy: {limit} calls that wait on Prometheus, the ledger or the GPUs are running or queued; retry shortly");
    let body = json!({"error": {"kind": "busy", "code": "busy", "status": 503, "message": message, "retry_after": "1"}});
    let mut result = CallToolResult::structured_error(body);
    result.content = vec![ContentBlock::text(format!("busy (503): {message}"))];
    result
}

fn metrics_read(s: &Settings, a: &Args) -> Result<CallToolResult, Error> {
    a.only(&[&["action", "cluster", "node", "kind", "name", "namespace", "detail"][..], &WINDOW].concat())?;
    let action = cm::required(a.str("action")?, "action", "node, workload or flags")?;
    let cluster = cm::required(a.str("cluster")?, "cluster", "the cluster")?;
    let w = a.window()?;
    let namespace = a.str("namespace")?.unwrap_or("default");
    match action {
        "node" => {
            let node = cm::required(a.str("node")?, "node", "the node")?;
            Ok(answer(&cm::node(s, cluster, node, &w, a.str("detail")?)?))
        }
        "workload" => {
            let kind = cm::required(a.str("kind")?, "kind", "the workload's kind")?;
            let name = cm::required(a.str("name")?, "name", "the workload's name")?;
            Ok(answer(&cm::workload(s, cluster, kind, namespace, name, &w, a.str("detail")?)?))
        }
        "flags" => {
            let target = cm::FlagTarget::of(a.str("node")?, a.str("kind")?, a.str("name")?, namespace)?;
            Ok(answer(&cm::flags(s, cluster, target, &w, a.str("detail")?)?))
        }
        other => Err(bad(format!("action '{}' is not node, workload or flags", crate::text::clean(other)))),
    }
}

fn metrics_query(s: &Settings, a: &Args) -> Result<CallToolResult, Error> {
    a.only(&[&["cluster", "query", "instant"][..], &WINDOW].concat())?;
    let query = cm::required(a.str("query")?, "query", "a PromQL expression")?;
    Ok(answer(&cm::query(s, a.str("cluster")?, query, a.flag("instant")?, &a.window()?)?))
}

fn finops_estimate(s: &Settings, a: &Args) -> Result<CallToolResult, Error> {
    a.only(&["domain", "gpu_hours", "cpu_hours", "gpu_kwh", "cpu_kwh", "provider", "region", "coefficients"])?;
    let domain = a.domain()?;
    if let Some(p) = a.str("provider")?.filter(|p| !crate::provider::registry::is_name(p)) {
        return Err(bad(format!(
            "argument 'provider' '{}' is not a provider name: name one that finops_providers lists (never a path, a program or a URL)",
            crate::text::clean(p)
        )));
    }
    let mut req = Request {
        gpu_hours: a.amount("gpu_hours")?,
        cpu_hours: a.amount("cpu_hours")?,
        gpu_kwh: a.amount("gpu_kwh")?,
        cpu_kwh: a.amount("cpu_kwh")?,
        provider: a.str("provider")?.map(str::to_string),
        region: a.str("region")?.map(str::to_string),
        overrides: Vec::new(),
        history: None,
    };
    match a.0.get("coefficients") {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => {
            let inner = Args(m);
            for name in m.keys() {
                let v = inner.amount(name)?.unwrap_or(0.0);
                req.overrides.push(CoefficientOverride::new(name.clone(), v, format!("coefficients.{name}")));
            }
        }
        Some(other) => return Err(bad(format!("argument 'coefficients' must be an object of numbers, not {}", kind(other)))),
    }
    Ok(answer(&commands::estimate::run(s, domain, &req)?))
}

fn finops_report(s: &Settings, a: &Args) -> Result<CallToolResult, Error> {
    a.only(&["by", "model", "since", "until"])?;
    let by = match a.str("by")?.unwrap_or("model") {
        "model" => GroupBy::Model,
        "run" => GroupBy::Run,
        "provider" => GroupBy::Provider,
        "day" => GroupBy::Day,
        "user" => GroupBy::User,
        "account" => GroupBy::Account,
        "partition" => GroupBy::Partition,
        other => {
            return Err(bad(format!("by '{}' is not model, run, provider, day, user, account or partition", crate::text::clean(other))))
        }
    };
    let filter = commands::report::filter(a.str("model")?, a.str("since")?, a.str("until")?)?;
    Ok(answer(&commands::report::run(s, filter, by)?))
}

/// Runs one tool with fresh settings (the config is read on each call, so an edit applies at once).
pub fn call(cli: &Cli, name: &str, args: &Map<String, Value>) -> CallToolResult {
    let run = || -> Result<CallToolResult, Error> {
        let mut s = Settings::from_cli(cli, true)?;
        // An agent names providers; it never points exa at a file or a program.
        s.names_only = true;
        let a = Args(args);
        let mut result = match name {
            "metrics_read" => metrics_read(&s, &a)?,
            "metrics_query" => metrics_query(&s, &a)?,
            "metrics_clusters" => {
                a.only(&[])?;
                answer(&cm::clusters(&s))
            }
            "finops_estimate" => finops_estimate(&s, &a)?,
            "finops_providers" => {
                a.only(&["domain"])?;
                answer(&commands::providers::run(&s, a.domain()?))
            }
            "finops_report" => finops_report(&s, &a)?,
            "finops_when" => {
                a.only(&["duration", "within", "power_w"])?;
                let duration = a.str("duration")?.ok_or_else(|| bad("duration is required (90m, 6h)".into()))?;
                answer(&commands::when::run(&s, commands::when::request(duration, a.str("within")?, a.amount("power_w")?)?)?)
            }
            "gpu_read" => {
                a.only(&[])?;
                answer(&commands::gpu::run(commands::gpu_source(&s))?)
            }
            other => return Err(bad(format!("no tool '{}'", crate::text::clean(other)))),
        };
        for w in s.take_warnings() {
            result.content.push(ContentBlock::text(format!("warning: {}", crate::text::clean_lines(&w))));
        }
        Ok(result)
    };
    run().unwrap_or_else(|e| refusal(&e))
}
