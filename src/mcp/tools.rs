//! The tools: their input schemas, and each call run through the same
//! functions as the CLI, answering with the CLI's `-o json` as structured
//! content and the text a person would read.
//!
//! Each tool's arguments are a type in `params`, which gives both the input
//! schema agents are shown and the reading of a call: a missing or mistyped
//! argument reaches exa's own checks and comes back as the spec's
//! `bad-request` (422), naming the argument.

use rmcp::model::{CallToolResult, ContentBlock, Tool, ToolAnnotations};
use serde::Serialize;
use serde_json::{Map, Value};

use super::params;

use crate::cli::Cli;
use crate::commands;
use crate::commands::metrics as cm;
use crate::error::Error;
use crate::model::{CoefficientOverride, Domain, Request};
use crate::output::{Render, Style};
use crate::settings::{Global, Reading, ReadingFlags, Settings};

/// The tools, each named once: the interface agents are configured with. A tool added here must be described
/// (`tool`) and run (`call`): both match every one, and `list` lists `Name::ALL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name {
    MetricsRead,
    MetricsQuery,
    MetricsClusters,
    FinopsEstimate,
    FinopsProviders,
    FinopsReport,
    FinopsWhen,
    FinopsBudgetStatus,
    GpuRead,
}

impl Name {
    /// Every tool, in the order they are listed.
    pub const ALL: [Name; 9] = [
        Name::MetricsRead,
        Name::MetricsQuery,
        Name::MetricsClusters,
        Name::FinopsEstimate,
        Name::FinopsProviders,
        Name::FinopsReport,
        Name::FinopsWhen,
        Name::FinopsBudgetStatus,
        Name::GpuRead,
    ];

    /// The name agents call it by.
    pub fn as_str(self) -> &'static str {
        match self {
            Name::MetricsRead => "metrics_read",
            Name::MetricsQuery => "metrics_query",
            Name::MetricsClusters => "metrics_clusters",
            Name::FinopsEstimate => "finops_estimate",
            Name::FinopsProviders => "finops_providers",
            Name::FinopsReport => "finops_report",
            Name::FinopsWhen => "finops_when",
            Name::FinopsBudgetStatus => "finops_budget_status",
            Name::GpuRead => "gpu_read",
        }
    }

    /// The tool called `name`, if there is one.
    pub fn of(name: &str) -> Option<Name> {
        Name::ALL.into_iter().find(|n| n.as_str() == name)
    }

    /// Whether it waits on the world outside exa (a cluster, the ledger, a forecast, the GPUs): such calls share
    /// the busy cap.
    pub fn waits_outside(self) -> bool {
        match self {
            Name::MetricsRead | Name::MetricsQuery | Name::FinopsReport | Name::FinopsWhen | Name::FinopsBudgetStatus | Name::GpuRead => {
                true
            }
            Name::MetricsClusters | Name::FinopsEstimate | Name::FinopsProviders => false,
        }
    }
}

fn read_only(title: &str) -> ToolAnnotations {
    ToolAnnotations::with_title(title).read_only(true).destructive(false).idempotent(true)
}

/// Every tool, with its input schema (derived from its arguments' type, `params`) and annotations.
pub fn list() -> Vec<Tool> {
    Name::ALL.into_iter().map(tool).collect()
}

/// One tool as agents are shown it: its description, its input schema and its title.
fn tool(name: Name) -> Tool {
    let (description, schema, title): (String, _, &str) = match name {
        Name::MetricsRead => (
            "What the cluster's own monitoring saw on a node's or a workload's GPUs and host over a window, or the flags it raises \
                 with their evidence. Read only. Answers the spec's envelope: cluster, window, reference temperature, coverage, readings."
                .into(),
            params::schema::<params::MetricsRead>(),
            "Read cluster telemetry and flags",
        ),
        Name::MetricsQuery => (
            "One PromQL expression over the organization's monitoring: one cluster's, or without cluster every cluster \
                 configured, each scoped to its own series. Read only."
                .into(),
            params::schema::<params::MetricsQuery>(),
            "Run a PromQL query",
        ),
        Name::MetricsClusters => (
            "The configured clusters: name, GPU vendor and model, where their monitoring is.".into(),
            params::schema::<params::Nothing>(),
            "List clusters",
        ),
        Name::FinopsEstimate => (
            "Energy and CO2e (domain carbon) or cost (domain cost) of GPU-hours and CPU-hours, by the resolved provider, with \
                 every coefficient and where it came from; region names the grid whose intensity prices the carbon. Writes no \
                 record."
                .into(),
            params::schema::<params::Estimate>(),
            "Estimate carbon or cost",
        ),
        Name::FinopsProviders => (
            "The carbon or cost providers: name, kind, status, which is the default and which is selected.".into(),
            params::schema::<params::Providers>(),
            "List providers",
        ),
        Name::FinopsReport => (
            format!(
                "Totals of the stored records grouped by {}, or a pod's tag as label:KEY or annotation:KEY (by): runs, GPU-h, CPU-h, kWh, CO2e with its range, USD; each run \
                     counted once; with per, figures per unit of work (token, request, run, or a unit recorded with --unit).",
                params::group_by_names().join(", ")
            ),
            params::schema::<params::Report>(),
            "Report stored records",
        ),
        Name::FinopsWhen => (
            "The start within a window that gives a job of a known length the least carbon by the configured grid forecast \
                 (UK National Grid, Electricity Maps, WattTime or the Carbon Aware SDK), with the saving against starting now; \
                 region names the grid whose forecast zone is asked for."
                .into(),
            params::schema::<params::When>(),
            "Best time to run",
        ),
        Name::FinopsBudgetStatus => (
            "The budgets kept in the ledger (or the one named) and each one's use this period as exa report counts it: used, \
                 left and percent per unit (kWh, kgCO2e, USD), state (ok, warn, over), and when it runs out at the period's pace \
                 and at the last 7 days'. Read only: budgets are set with the CLI."
                .into(),
            params::schema::<params::BudgetStatus>(),
            "Budgets' status",
        ),
        Name::GpuRead => (
            "One reading of every GPU on this host (NVML, nvidia-smi or amd-smi, as exa gpu chooses), and the aggregates.".into(),
            params::schema::<params::Nothing>(),
            "Read this host's GPUs",
        ),
    };
    Tool::new(name.as_str(), description, schema).with_annotations(read_only(title))
}

/// A malformed argument: a usage error, the spec's bad-request (422), as the CLI's exit 2.
fn bad(message: String) -> Error {
    Error::Usage(message)
}

fn domain(d: Option<&str>) -> Result<Domain, Error> {
    match cm::required(d, "domain", "carbon or cost")? {
        "carbon" => Ok(Domain::Carbon),
        "cost" => Ok(Domain::Cost),
        other => Err(bad(format!("domain '{}' is not carbon or cost", crate::text::clean(other)))),
    }
}

/// An answer: its JSON (the CLI's `-o json`) and the text a person reads.
fn answer<R: Render + Serialize>(r: &R) -> CallToolResult {
    let mut text = String::new();
    r.render(Style { color: false, width: None }, &mut text);
    let mut result = CallToolResult::structured(serde_json::to_value(r).unwrap_or(Value::Null));
    result.content = vec![ContentBlock::text(text)];
    result
}

/// A refusal as a tool error: the spec's code and status, and the message (`error::body`).
pub fn refusal(e: &Error) -> CallToolResult {
    let crate::error::Kind { code, status, .. } = e.kind();
    let body = crate::error::body(Some(e), &e.to_string(), crate::error::Door::Mcp);
    let message = body["error"]["message"].as_str().unwrap_or_default().to_string();
    let mut result = CallToolResult::structured_error(body);
    result.content = vec![ContentBlock::text(format!("{code} ({status}): {message}"))];
    result
}

/// A slow call refused because `limit` are running or queued already: retry shortly.
pub fn busy(limit: usize) -> CallToolResult {
    let message =
        format!("exa is busy: {limit} requests to Prometheus, the ledger or the GPUs are running or queued (an organization-wide query counts one a cluster); retry shortly");
    let kind = crate::error::Kind { kind: "busy", code: "busy", status: 503 };
    let mut result = CallToolResult::structured_error(crate::error::envelope(kind, &message, Some("1"), crate::error::Door::Mcp));
    result.content = vec![ContentBlock::text(format!("busy (503): {message}"))];
    result
}

fn metrics_read(s: &Settings, a: params::MetricsRead) -> Result<CallToolResult, Error> {
    let action = cm::required(a.action.as_deref(), "action", "node, workload or flags")?;
    let cluster = cm::required(a.cluster.as_deref(), "cluster", "the cluster")?;
    let namespace = a.namespace.as_deref().unwrap_or("default");
    let detail = a.detail.as_deref();
    let (node, kind, name) = (a.node.as_deref(), a.kind.as_deref(), a.name.as_deref());
    let w = a.window.args();
    match action {
        "node" => {
            let node = cm::required(node, "node", "the node")?;
            Ok(answer(&cm::node(s, cluster, node, &w, detail)?))
        }
        "workload" => {
            let kind = cm::required(kind, "kind", "the workload's kind")?;
            let name = cm::required(name, "name", "the workload's name")?;
            Ok(answer(&cm::workload(s, cluster, kind, namespace, name, &w, detail)?))
        }
        "flags" => {
            let target = cm::FlagTarget::of(node, kind, name, namespace)?;
            Ok(answer(&cm::flags(s, cluster, target, &w, detail)?))
        }
        other => Err(bad(format!("action '{}' is not node, workload or flags", crate::text::clean(other)))),
    }
}

fn metrics_query(s: &Settings, a: params::MetricsQuery) -> Result<CallToolResult, Error> {
    let query = cm::required(a.query.as_deref(), "query", "a PromQL expression")?;
    Ok(answer(&cm::query(s, a.cluster.as_deref(), query, a.instant, &a.window.args())?))
}

fn finops_estimate(s: &Settings, a: params::Estimate) -> Result<CallToolResult, Error> {
    let domain = domain(a.domain.as_deref())?;
    if let Some(p) = a.provider.as_deref().filter(|p| !crate::provider::registry::is_name(p)) {
        return Err(bad(format!(
            "argument 'provider' '{}' is not a provider name: name one that finops_providers lists (never a path, a program or a URL)",
            crate::text::clean(p)
        )));
    }
    let overrides = a
        .coefficients
        .unwrap_or_default()
        .into_iter()
        .map(|(name, v)| {
            let from = format!("coefficients.{name}");
            CoefficientOverride::new(name, v, from)
        })
        .collect();
    if let Some(m) = &a.gpu_model {
        crate::pricing::hardware::gpu(m).map_err(|e| bad(format!("gpu_model: {e}")))?;
    }
    let cpu_model = match (a.cpu_model, a.cpu_cores) {
        (Some(m), Some(c)) => {
            crate::pricing::hardware::cpu(&m).map_err(|e| bad(format!("cpu_model: {e}")))?;
            if !(1.0..=4096.0).contains(&c) || c.fract() != 0.0 {
                return Err(bad(format!("cpu_cores {c} is not a number of CPUs a socket: a whole number from 1 to 4096")));
            }
            Some((m, Some(c)))
        }
        (None, None) => None,
        (Some(_), None) => return Err(bad("cpu_model needs cpu_cores, its CPUs a socket (the table has the socket's TDP)".into())),
        (None, Some(_)) => return Err(bad("cpu_cores is the CPUs a socket of cpu_model: name the model too".into())),
    };
    let req = Request {
        gpu_hours: a.gpu_hours,
        cpu_hours: a.cpu_hours,
        gpu_kwh: a.gpu_kwh,
        cpu_kwh: a.cpu_kwh,
        provider: a.provider,
        region: a.region,
        overrides,
        history: None,
        gpu_name: None,
        gpu_model: a.gpu_model,
        cpu_model,
        cpu_name: None,
    };
    Ok(answer(&commands::estimate::run(s, domain, &req)?))
}

fn finops_report(s: &Settings, a: params::Report) -> Result<CallToolResult, Error> {
    let asked = a.by.as_deref().unwrap_or("model");
    let by = crate::cli::group_by(asked).map_err(|e| bad(format!("by: {e}")))?;
    let mut filter = commands::report::filter(a.model.as_deref(), a.since.as_deref(), a.until.as_deref())?;
    if let Some(unit) = &a.per {
        let unit = crate::cli::per_unit(unit).map_err(|e| bad(format!("per: {e}")))?;
        filter.per = Some(commands::report::per(&unit));
    }
    Ok(answer(&commands::report::run(s, filter, by)?))
}

/// Runs one tool with fresh settings (the config is read on each call, so an edit applies at once).
pub fn call(cli: &Cli, name: Name, args: &Map<String, Value>) -> CallToolResult {
    let run = || -> Result<CallToolResult, Error> {
        // An agent names providers; it never points exa at a file or a program.
        let s = Settings::resolve(&Global { names_only: true, ..Global::of(cli) }, true)?;
        let mut result = match name {
            Name::MetricsRead => metrics_read(&s, params::read(args)?)?,
            Name::MetricsQuery => metrics_query(&s, params::read(args)?)?,
            Name::MetricsClusters => {
                params::read::<params::Nothing>(args)?;
                answer(&cm::clusters(&s))
            }
            Name::FinopsEstimate => finops_estimate(&s, params::read(args)?)?,
            Name::FinopsProviders => {
                let a: params::Providers = params::read(args)?;
                answer(&commands::providers::run(&s, domain(a.domain.as_deref())?))
            }
            Name::FinopsReport => finops_report(&s, params::read(args)?)?,
            Name::FinopsWhen => {
                let a: params::When = params::read(args)?;
                let duration = a.duration.as_deref().ok_or_else(|| bad("duration is required (90m, 6h)".into()))?;
                answer(&commands::when::run(&s, commands::when::request(duration, a.within.as_deref(), a.power_w)?, a.region.as_deref())?)
            }
            Name::FinopsBudgetStatus => {
                let a: params::BudgetStatus = params::read(args)?;
                let at = a.at.as_deref().map(|t| crate::time::parse_utc(t).map_err(|e| bad(format!("at: {e}")))).transpose()?;
                answer(&commands::budget::status(&s, a.name.as_deref(), at)?)
            }
            Name::GpuRead => {
                params::read::<params::Nothing>(args)?;
                answer(&commands::gpu::run(commands::gpu_source(&Reading::resolve(&s, ReadingFlags::default())?))?)
            }
        };
        for w in s.take_warnings() {
            result.content.push(ContentBlock::text(format!("warning: {}", crate::text::clean_lines(&w))));
        }
        Ok(result)
    };
    run().unwrap_or_else(|e| refusal(&e))
}
