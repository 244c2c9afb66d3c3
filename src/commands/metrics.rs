//! `exa metrics clusters|node|workload|flags|query`: a cluster's GPU and
//! host telemetry from its Prometheus, in the spec's envelope.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::IndexMap;
use serde::Serialize;

use crate::error::Error;
use crate::model::config::Cluster;
use crate::settings::Settings;
use crate::sources::prometheus::catalog::{CLOCK_EVENTS, FAMILIES};
use crate::sources::prometheus::flags::{self, Flag};
use crate::sources::prometheus::prom::PromAnswer;
use crate::sources::prometheus::read::{self, Episode, GpuData, NodeData, Placement, Target};
use crate::sources::prometheus::{Refusal, Series, Window};
use crate::time::now_unix;

/// The window arguments every action takes.
#[derive(Debug, Clone, Default)]
pub struct WindowArgs {
    pub range: Option<String>,
    pub start: Option<String>,
    pub end: Option<String>,
    pub points: Option<u32>,
}

impl WindowArgs {
    fn resolve(&self) -> Result<Window, Refusal> {
        Window::resolve(self.range.as_deref(), self.start.as_deref(), self.end.as_deref(), self.points, now_unix())
    }
}

/// What every read answers with first: the cluster, the window, the
/// reference temperature, which families answered, and how to read it.
#[derive(Debug, Clone, Serialize)]
pub struct Envelope {
    pub cluster: String,
    pub gpu_vendor: String,
    pub gpu_model: String,
    pub window: Window,
    pub reference: Option<Reference>,
    pub coverage: Coverage,
    pub note: String,
}

/// The model's temperature p95 over the window, across the cluster.
#[derive(Debug, Clone, Serialize)]
pub struct Reference {
    pub gpu_model: String,
    pub temp_p95_c: f64,
    pub note: &'static str,
}

/// Families that answered, and those that did not (unavailable ones are in neither).
#[derive(Debug, Clone, Serialize)]
pub struct Coverage {
    pub present: Vec<&'static str>,
    pub missing: Vec<&'static str>,
}

/// How many Prometheus queries an answer took, and their summed seconds.
#[derive(Debug, Clone, Serialize)]
pub struct Queries {
    pub count: u64,
    pub seconds: f64,
}

/// One configured cluster, as `metrics clusters` lists it.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterRow {
    pub name: String,
    pub prometheus: String,
    pub gpu_vendor: String,
    pub gpu_model: String,
    pub node_label: String,
    pub labels: IndexMap<String, String>,
}

/// `metrics clusters`.
#[derive(Debug, Clone, Serialize)]
pub struct ClustersAnswer {
    pub clusters: Vec<ClusterRow>,
    /// How to add a cluster, when none is configured.
    pub note: Option<String>,
}

/// A node's readings: its GPUs by index, the host, and its episodes.
#[derive(Debug, Clone, Serialize)]
pub struct NodeBlock {
    pub gpus: BTreeMap<String, GpuBlock>,
    pub host: Host,
    pub health_episodes: Vec<Episode>,
}

/// Which node, how many GPUs it has, and its Ready state.
#[derive(Debug, Clone, Serialize)]
pub struct NodeHead {
    pub name: String,
    pub gpus: usize,
    pub state: Option<&'static str>,
}

/// `metrics node`.
#[derive(Debug, Clone, Serialize)]
pub struct NodeAnswer {
    #[serde(flatten)]
    pub envelope: Envelope,
    pub node: NodeHead,
    #[serde(flatten)]
    pub readings: NodeBlock,
    pub queries: Queries,
}

/// A workload named by kind, namespace and name.
#[derive(Debug, Clone, Serialize)]
pub struct WorkloadId {
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

/// `metrics workload`.
#[derive(Debug, Clone, Serialize)]
pub struct WorkloadAnswer {
    #[serde(flatten)]
    pub envelope: Envelope,
    pub workload: WorkloadId,
    pub placement: Vec<Placement>,
    pub placement_source: &'static str,
    pub nodes: IndexMap<String, NodeBlock>,
    pub queries: Queries,
}

/// What `metrics flags` judged: a node, or a workload and where it ran.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Judged {
    Node { node: String },
    Workload { workload: WorkloadId, placement: Vec<Placement>, placement_source: &'static str },
}

/// `metrics flags`.
#[derive(Debug, Clone, Serialize)]
pub struct FlagsAnswer {
    #[serde(flatten)]
    pub envelope: Envelope,
    pub target: Judged,
    pub checked: Vec<&'static str>,
    pub unavailable: Vec<&'static str>,
    pub clean: bool,
    pub flags: Vec<Flag>,
    pub queries: Queries,
}

/// One series of a `metrics query` answer, with the cluster it came from.
#[derive(Debug, Clone, Serialize)]
pub struct QuerySeries {
    pub cluster: String,
    #[serde(flatten)]
    pub reading: Reading,
}

/// What one series read: a scalar, a value at the window's end, or values over the window.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Reading {
    Scalar { value: f64 },
    Instant { labels: BTreeMap<String, String>, value: Option<f64> },
    Range { labels: BTreeMap<String, String>, values: Vec<Option<f64>> },
}

/// The organization a query ran over: every cluster of the config.
#[derive(Debug, Clone, Serialize)]
pub struct Org {
    pub clusters: Vec<String>,
}

/// A cluster of the organization that did not answer a query, and its refusal.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterFailure {
    pub cluster: String,
    #[serde(flatten)]
    pub refusal: Refusal,
}

/// `metrics query`.
#[derive(Debug, Clone, Serialize)]
pub struct QueryAnswer {
    pub org: Org,
    /// The one cluster asked for; null when the query ran over the whole organization.
    pub cluster: Option<String>,
    pub query: String,
    /// The expression as sent to the one cluster asked for: its label matchers on every selector.
    pub scoped_query: Option<String>,
    /// The expression as sent to each cluster read, by cluster.
    pub scoped_queries: IndexMap<String, String>,
    pub result_type: &'static str,
    pub instant: bool,
    pub window: Window,
    pub series: Vec<QuerySeries>,
    pub series_total: usize,
    pub truncated: bool,
    /// Clusters of the organization that did not answer (an organization-wide query only).
    pub failed: Vec<ClusterFailure>,
    pub note: Option<String>,
}

fn refuse(r: Refusal) -> Error {
    Error::Metrics(r)
}

fn cluster<'a>(settings: &'a Settings, name: &'a str) -> Result<Target<'a>, Error> {
    let c: &Cluster = settings.config.clusters.get(name).ok_or_else(|| {
        let known: Vec<&str> = settings.config.clusters.keys().map(String::as_str).collect();
        let file = settings.config_path.value.display();
        let hint = if known.is_empty() {
            format!("no clusters are configured in {file} (add one under clusters:; `exa config init` writes an example)")
        } else {
            format!("configured in {file}: {}", known.join(", "))
        };
        refuse(Refusal::not_found(format!("no cluster named '{name}'; {hint}")))
    })?;
    let token = match &c.token_env {
        Some(var) => Some(settings.cluster_token(name, var)?),
        None => None,
    };
    Ok(Target::new(name, c, token))
}

pub fn clusters(settings: &Settings) -> ClustersAnswer {
    let clusters = settings
        .config
        .clusters
        .iter()
        .map(|(n, c)| ClusterRow {
            name: n.clone(),
            prometheus: crate::text::redact_url(&c.prometheus),
            gpu_vendor: c.gpu_vendor.clone(),
            gpu_model: c.gpu_model.clone(),
            node_label: c.node_label.clone(),
            labels: c.labels.clone(),
        })
        .collect::<Vec<_>>();
    let note = clusters.is_empty().then(|| {
        format!(
            "no clusters are configured: add one under clusters: in {} (`exa config init` writes a commented example)",
            settings.config_path.value.display()
        )
    });
    ClustersAnswer { clusters, note }
}

/// The envelope every action answers in.
fn envelope(t: &Target, w: &Window, reference: Option<f64>, present: &BTreeSet<&'static str>, extra_note: &[String]) -> Envelope {
    let unavailable = &t.catalog.unavailable;
    let present_list: Vec<&str> = FAMILIES.iter().filter(|f| present.contains(*f)).copied().collect();
    let missing: Vec<&str> = FAMILIES.iter().filter(|f| !present.contains(*f) && !unavailable.contains(f)).copied().collect();
    let mut note = String::from(
        "Temperatures °C, clocks MHz, activity and pressure percent, power W, memory GiB, network Mbit/s. A series is {t0, step_s, values, mean, min, max}, one value per step_s bucket ending at t0, t0 + step_s, ...; null is a gap or no reading, never a zero. Throttle seconds and error counts are increases over the window.",
    );
    if !unavailable.is_empty() {
        note.push_str(&format!(" This GPU maker reports no {}: they are unavailable, not missing.", unavailable.join(", ")));
    }
    for p in &t.catalog.partial {
        note.push_str(&format!(" {p}."));
    }
    if missing.contains(&"north_south") {
        note.push_str(" north_south: no internet-traffic metric is read.");
    }
    if missing.contains(&"health_episodes") {
        note.push_str(" health_episodes: the cluster maps no alert names to episodes.");
    }
    for n in extra_note {
        note.push(' ');
        note.push_str(n);
    }
    Envelope {
        cluster: t.name.to_string(),
        gpu_vendor: t.cluster.gpu_vendor.clone(),
        gpu_model: t.cluster.gpu_model.clone(),
        window: *w,
        reference: reference.map(|p| Reference {
            gpu_model: t.cluster.gpu_model.clone(),
            temp_p95_c: p,
            note: "p95 of GPU temperature for this model over the window, across the cluster's nodes",
        }),
        coverage: Coverage { present: present_list, missing },
        note,
    }
}

/// How many Prometheus queries an answer took, and their summed time (they run concurrently).
fn queries(t: &Target) -> Queries {
    use std::sync::atomic::Ordering;
    Queries { count: t.client.made.load(Ordering::Relaxed), seconds: (t.client.nanos.load(Ordering::Relaxed) as f64 / 1e6).round() / 1e3 }
}

/// Fields kept whole under `summary` detail.
const KEEP: &[&str] = &["temp_c", "tensor_active_pct", "power_w"];

/// One GPU's readings over the window, in the document's fields. A reading
/// the platform holds none of is null; a counter is its increase.
#[derive(Debug, Clone, Serialize)]
pub struct GpuBlock {
    pub temp_c: Option<Series>,
    pub memory_temp_c: Option<Series>,
    pub sm_clock_mhz: Option<Series>,
    pub mem_clock_mhz: Option<Series>,
    pub util_pct: Option<Series>,
    pub sm_active_pct: Option<Series>,
    pub dram_active_pct: Option<Series>,
    pub tensor_active_pct: Option<Series>,
    pub power_w: Option<Series>,
    pub hbm_used_gib: Option<Series>,
    pub peak_temp_c: Option<f64>,
    pub throttle: Throttle,
    pub errors: Errors,
    pub hbm_total_gib: Option<f64>,
}

/// Seconds of throttle by cause over the window, and the clock events by kind.
#[derive(Debug, Clone, Serialize)]
pub struct Throttle {
    pub thermal_s: Option<f64>,
    pub power_s: Option<f64>,
    pub board_limit_s: Option<f64>,
    pub sync_boost_s: Option<f64>,
    pub low_util_s: Option<f64>,
    pub reliability_s: Option<f64>,
    /// By kind (`HW_SLOWDOWN`, `SW_THERMAL`, ...): buckets in which the GPU reported it; null when no mask was read.
    pub clock_events: Option<IndexMap<&'static str, f64>>,
}

/// Error counter increases over the window.
#[derive(Debug, Clone, Serialize)]
pub struct Errors {
    pub link_crc: Option<f64>,
    pub link_replay: Option<f64>,
    pub link_recovery: Option<f64>,
    pub pcie_replay: Option<f64>,
    pub pcie_recovery: Option<f64>,
    pub ecc_sbe: Option<f64>,
    pub ecc_dbe: Option<f64>,
    pub xid: Option<f64>,
}

/// The node itself: CPU, pressure and network.
#[derive(Debug, Clone, Serialize)]
pub struct Host {
    pub cpu_busy_pct: Option<Series>,
    pub load_per_core: Option<Series>,
    pub pressure: Pressure,
    pub nic: Nic,
    /// Always null: no internet-traffic metric is read, and coverage says so.
    pub north_south: Option<Series>,
}

/// Share of time the host waited on CPU, memory or disk, percent.
#[derive(Debug, Clone, Serialize)]
pub struct Pressure {
    pub cpu: Option<Series>,
    pub memory: Option<Series>,
    pub io: Option<Series>,
}

/// The node's network: throughput, and error and drop increases over the window.
#[derive(Debug, Clone, Serialize)]
pub struct Nic {
    pub rx_mbps: Option<Series>,
    pub tx_mbps: Option<Series>,
    pub errors: Option<f64>,
    pub drops: Option<f64>,
}

/// A series as the answer shows it: whole, or under `summary` its mean, min and max (but for the fields kept whole).
fn shown_series(s: Option<&Series>, field: &str, summary: bool) -> Option<Series> {
    s.map(|s| if summary && !KEEP.contains(&field) { s.clone().summarised() } else { s.clone() })
}

fn gpu_block(g: &GpuData, summary: bool) -> GpuBlock {
    let series = |f: &str| shown_series(g.series.get(f), f, summary);
    let value = |f: &str| g.values.get(f).copied().flatten();
    let events: IndexMap<&'static str, f64> =
        CLOCK_EVENTS.iter().filter_map(|(f, _)| Some((f.strip_prefix("clock_events.")?, value(f)?))).collect();
    GpuBlock {
        temp_c: series("temp_c"),
        memory_temp_c: series("memory_temp_c"),
        sm_clock_mhz: series("sm_clock_mhz"),
        mem_clock_mhz: series("mem_clock_mhz"),
        util_pct: series("util_pct"),
        sm_active_pct: series("sm_active_pct"),
        dram_active_pct: series("dram_active_pct"),
        tensor_active_pct: series("tensor_active_pct"),
        power_w: series("power_w"),
        hbm_used_gib: series("hbm_used_gib"),
        // The highest reading; the highest bucket mean only where the peak was not read.
        peak_temp_c: value("peak_temp_c").or_else(|| g.series.get("temp_c").map(|s| s.max)),
        throttle: Throttle {
            thermal_s: value("throttle.thermal_s"),
            power_s: value("throttle.power_s"),
            board_limit_s: value("throttle.board_limit_s"),
            sync_boost_s: value("throttle.sync_boost_s"),
            low_util_s: value("throttle.low_util_s"),
            reliability_s: value("throttle.reliability_s"),
            clock_events: (!events.is_empty()).then_some(events),
        },
        errors: Errors {
            link_crc: value("errors.link_crc"),
            link_replay: value("errors.link_replay"),
            link_recovery: value("errors.link_recovery"),
            pcie_replay: value("errors.pcie_replay"),
            pcie_recovery: value("errors.pcie_recovery"),
            ecc_sbe: value("errors.ecc_sbe"),
            ecc_dbe: value("errors.ecc_dbe"),
            xid: value("errors.xid"),
        },
        hbm_total_gib: value("hbm_total_gib"),
    }
}

fn node_block(d: &NodeData, summary: bool) -> NodeBlock {
    let series = |f: &str| shown_series(d.host_series.get(f), &f[5..], summary);
    let value = |f: &str| d.host_values.get(f).copied().flatten();
    let host = Host {
        cpu_busy_pct: series("host.cpu_busy_pct"),
        load_per_core: series("host.load_per_core"),
        pressure: Pressure { cpu: series("host.pressure.cpu"), memory: series("host.pressure.memory"), io: series("host.pressure.io") },
        nic: Nic {
            rx_mbps: series("host.nic.rx_mbps"),
            tx_mbps: series("host.nic.tx_mbps"),
            errors: value("host.nic.errors"),
            drops: value("host.nic.drops"),
        },
        north_south: None,
    };
    let gpus = d.gpus.iter().map(|(idx, g)| (idx.clone(), gpu_block(g, summary))).collect();
    NodeBlock { gpus, host, health_episodes: d.episodes.clone() }
}

pub fn node(settings: &Settings, cluster_name: &str, node: &str, w: &WindowArgs, detail: Option<&str>) -> Result<NodeAnswer, Error> {
    let summary = detail_is_summary(detail, false)?;
    let w = w.resolve().map_err(refuse)?;
    crate::sources::prometheus::check_k8s_name("node", node).map_err(refuse)?;
    let t = cluster(settings, cluster_name)?;
    let d = read::node(&t, node, &w).map_err(refuse)?;
    let reference = read::reference(&t, &w).map_err(refuse)?;
    Ok(NodeAnswer {
        envelope: envelope(&t, &w, reference, &d.present, &[]),
        node: NodeHead { name: d.name.clone(), gpus: d.gpus.len(), state: d.state },
        readings: node_block(&d, summary),
        queries: queries(&t),
    })
}

fn detail_is_summary(detail: Option<&str>, default_summary: bool) -> Result<bool, Error> {
    match detail {
        None => Ok(default_summary),
        Some("summary") => Ok(true),
        Some("series") => Ok(false),
        Some(other) => Err(refuse(Refusal::bad_request(format!("detail '{}' is not summary or series", crate::text::clean(other))))),
    }
}

/// A workload's placement and the nodes it touched.
fn workload_data<'a>(
    t: &Target<'a>,
    kind: &str,
    ns: &str,
    name: &str,
    w: &Window,
    for_flags: bool,
) -> Result<(Vec<Placement>, &'static str, Vec<NodeData>), Error> {
    let (placement, source) = read::placement(t, kind, ns, name, w, now_unix()).map_err(refuse)?;
    let nodes: Vec<&str> =
        placement.iter().map(|p| p.node.as_str()).filter(|n| !n.is_empty()).collect::<BTreeSet<_>>().into_iter().collect();
    // Nodes are read a few at a time, each with its own queries running concurrently.
    let mut data = Vec::new();
    for chunk in nodes.chunks(4) {
        let read: Vec<Result<NodeData, Refusal>> = std::thread::scope(|s| {
            let read = if for_flags { read::node_for_flags } else { read::node };
            let handles: Vec<_> = chunk.iter().map(|n| s.spawn(move || read(t, n, w))).collect();
            handles.into_iter().map(|h| h.join().expect("node readers do not panic")).collect()
        });
        for (n, r) in chunk.iter().zip(read) {
            match r {
                Ok(d) => data.push(d),
                Err(r) if r.code == "not-found" => data.push(NodeData { name: n.to_string(), ..NodeData::default() }),
                Err(r) => return Err(refuse(r)),
            }
        }
    }
    Ok((placement, source, data))
}

fn present_of(data: &[NodeData]) -> BTreeSet<&'static str> {
    data.iter().flat_map(|d| d.present.iter().copied()).collect()
}

pub fn workload(
    settings: &Settings,
    cluster_name: &str,
    kind: &str,
    ns: &str,
    name: &str,
    w: &WindowArgs,
    detail: Option<&str>,
) -> Result<WorkloadAnswer, Error> {
    let summary = detail_is_summary(detail, true)?;
    check_kind(kind)?;
    let w = w.resolve().map_err(refuse)?;
    let t = cluster(settings, cluster_name)?;
    let (placement, source, data) = workload_data(&t, kind, ns, name, &w, false)?;
    let reference = read::reference(&t, &w).map_err(refuse)?;
    Ok(WorkloadAnswer {
        envelope: envelope(&t, &w, reference, &present_of(&data), &[]),
        workload: WorkloadId { kind: kind.to_string(), namespace: ns.to_string(), name: name.to_string() },
        placement,
        placement_source: source,
        nodes: data.iter().map(|d| (d.name.clone(), node_block(d, summary))).collect(),
        queries: queries(&t),
    })
}

/// The buckets in which a workload's pods were Running on a node; `None` for a node judged on its own.
type Running = Option<Vec<bool>>;

/// What `flags` is asked about: a node, or a workload.
pub enum FlagTarget<'a> {
    Node(&'a str),
    Workload { kind: &'a str, namespace: &'a str, name: &'a str },
}

/// A required argument, or the spec's bad-request naming it.
pub fn required<'a>(v: Option<&'a str>, flag: &str, what: &str) -> Result<&'a str, Error> {
    v.ok_or_else(|| refuse(Refusal::bad_request(format!("{flag} is required: {what} to read"))))
}

/// Refuses a workload kind outside the six before anything is read.
fn check_kind(kind: &str) -> Result<(), Error> {
    if read::KINDS.contains(&kind) {
        Ok(())
    } else {
        Err(refuse(Refusal::bad_request(format!("kind '{kind}' is not one of {}", read::KINDS.join(", ")))))
    }
}

impl<'a> FlagTarget<'a> {
    /// A node, or a workload's kind and name: the spec's bad-request when it is neither or both.
    pub fn of(node: Option<&'a str>, kind: Option<&'a str>, name: Option<&'a str>, namespace: &'a str) -> Result<Self, Error> {
        match (node, kind, name) {
            (Some(n), None, None) => Ok(FlagTarget::Node(n)),
            (None, Some(kind), Some(name)) => {
                check_kind(kind)?;
                Ok(FlagTarget::Workload { kind, namespace, name })
            }
            _ => Err(refuse(Refusal::bad_request("flags takes either --node or both --kind and --name".into()))),
        }
    }
}

/// Flags are always a summary: `detail` takes `summary`, and refuses `series`, naming where the curves are.
fn flags_detail(detail: Option<&str>) -> Result<(), Error> {
    if detail_is_summary(detail, true)? {
        return Ok(());
    }
    Err(refuse(Refusal::bad_request(
        "detail 'series' does not apply to flags: a flag carries its evidence and its sub-window; read the node with detail series for the curves"
            .into(),
    )))
}

pub fn flags(
    settings: &Settings,
    cluster_name: &str,
    target: FlagTarget,
    w: &WindowArgs,
    detail: Option<&str>,
) -> Result<FlagsAnswer, Error> {
    flags_detail(detail)?;
    let shown = w.resolve().map_err(refuse)?;
    // Rules are judged on minute-scale buckets, not on the answer's points.
    let w = shown.fine();
    if let FlagTarget::Node(n) = target {
        crate::sources::prometheus::check_k8s_name("node", n).map_err(refuse)?;
    }
    let t = cluster(settings, cluster_name)?;
    let reference = read::reference(&t, &shown).map_err(refuse)?;
    // For each node: its readings, and when the workload's pods ran on it.
    let (judged, data, running): (Judged, Vec<NodeData>, Vec<Running>) = match target {
        FlagTarget::Node(n) => (Judged::Node { node: n.to_string() }, vec![read::node_for_flags(&t, n, &w).map_err(refuse)?], vec![None]),
        FlagTarget::Workload { kind, namespace, name } => {
            let (placement, source, data) = workload_data(&t, kind, namespace, name, &w, true)?;
            let mut by_node = read::running(&t, namespace, &placement, &w).map_err(refuse)?;
            let running: Vec<Running> =
                data.iter().map(|d| Some(by_node.remove(&d.name).unwrap_or_else(|| vec![false; w.points as usize]))).collect();
            let workload = WorkloadId { kind: kind.to_string(), namespace: namespace.to_string(), name: name.to_string() };
            (Judged::Workload { workload, placement, placement_source: source }, data, running)
        }
    };
    let mut all: Vec<Flag> = Vec::new();
    let mut idle: Vec<&str> = Vec::new();
    for (d, run) in data.iter().zip(&running) {
        if run.as_ref().is_some_and(|r| !r.contains(&true)) {
            idle.push(&d.name);
        }
        all.extend(flags::evaluate(d, &w, reference, run.as_deref()));
    }
    let present = present_of(&data);
    let checks = flags::checks(&t.cluster.gpu_vendor);
    let silent: Vec<&str> = checks.iter().filter(|(_, fams)| !fams.iter().all(|f| present.contains(f))).map(|(c, _)| *c).collect();
    let clean = all.is_empty() && silent.is_empty();
    let mut notes = Vec::new();
    if !silent.is_empty() {
        notes.push(format!("Checked but not answered: {} (so this answer cannot be clean).", silent.join(", ")));
    }
    if !idle.is_empty() {
        notes.push(format!(
            "utilization_collapse is judged only while the workload's pods were Running: none was Running in this window on {}.",
            idle.join(", ")
        ));
    }
    let clipped: Vec<String> = all
        .iter()
        .filter(|f| f.clipped.start || f.clipped.end)
        .map(|f| {
            let edge = match (f.clipped.start, f.clipped.end) {
                (true, true) => "both edges",
                (true, false) => "the window start",
                _ => "the window end",
            };
            format!("{} on {}{} is clipped at {edge}", f.kind, f.node, f.gpu.as_ref().map(|g| format!(" GPU {g}")).unwrap_or_default())
        })
        .collect();
    if !clipped.is_empty() {
        notes.push(format!("Clipped flags cover only the part inside the window (a floor): {}.", clipped.join("; ")));
    }
    if clean {
        notes.push(format!(
            "Clean: no flag fired and every checked family answered ({}).",
            checks.iter().map(|c| c.0).collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(FlagsAnswer {
        envelope: envelope(&t, &shown, reference, &present, &notes),
        target: judged,
        checked: checks.iter().map(|c| c.0).collect(),
        unavailable: t.catalog.unavailable.clone(),
        clean,
        flags: all,
        queries: queries(&t),
    })
}

/// The longest PromQL expression `query` accepts.
pub const MAX_QUERY: usize = 4000;
/// The most series `query` returns.
pub const MAX_SERIES: usize = 100;

/// What one cluster answered, as the result type and its readings; a range on `grid`.
fn readings(answer: PromAnswer, grid: &[i64]) -> (&'static str, Vec<Reading>) {
    match answer {
        PromAnswer::Scalar(_, v) => ("scalar", vec![Reading::Scalar { value: v }]),
        PromAnswer::Vector(s) => {
            ("vector", s.into_iter().map(|s| Reading::Instant { value: s.samples.last().map(|x| x.1), labels: s.labels }).collect())
        }
        PromAnswer::Matrix(s) => (
            "matrix",
            s.into_iter()
                .map(|s| {
                    let values = grid.iter().map(|g| s.samples.iter().find(|(t, _)| (*t as i64) == *g).map(|x| x.1)).collect();
                    Reading::Range { labels: s.labels, values }
                })
                .collect(),
        ),
    }
}

/// One PromQL expression over one cluster, or, with no cluster named, over
/// every cluster of the organization (each scoped by its own labels, read
/// side by side). A cluster that does not answer an organization-wide query
/// is listed under `failed`; the query is refused only when none answered.
/// The most clusters an organization-wide query asks at once.
pub const FAN_OUT: usize = 8;

pub fn query(settings: &Settings, cluster_name: Option<&str>, promql: &str, instant: bool, w: &WindowArgs) -> Result<QueryAnswer, Error> {
    if promql.trim().is_empty() || promql.len() > MAX_QUERY {
        return Err(refuse(Refusal::bad_request(format!("the query must be 1 to {MAX_QUERY} characters; it is {}", promql.len()))));
    }
    let w = w.resolve().map_err(refuse)?;
    let org = Org { clusters: settings.config.clusters.keys().cloned().collect() };
    let names: Vec<&str> = match cluster_name {
        Some(c) => vec![c],
        None if org.clusters.is_empty() => {
            let file = settings.config_path.value.display();
            return Err(refuse(Refusal::not_found(format!(
                "no clusters are configured in {file}, so the organization has none to query (add one under clusters:; `exa config init` writes an example)"
            ))));
        }
        None => org.clusters.iter().map(String::as_str).collect(),
    };
    let targets = names.iter().map(|n| cluster(settings, n)).collect::<Result<Vec<_>, _>>()?;
    // Scoping refuses a query that reaches past any cluster's labels before anything is sent.
    let scoped_queries = targets
        .iter()
        .map(|t| Ok((t.name.to_string(), t.client.scoped(promql).map_err(refuse)?)))
        .collect::<Result<IndexMap<_, _>, Error>>()?;
    let grid: Vec<i64> = (0..=w.points).map(|i| w.start + i64::from(i) * w.step_s).filter(|x| *x <= w.end).collect();
    let ask = |t: &Target| {
        if instant {
            t.client.instant(promql, w.end)
        } else {
            t.client.range(promql, w.start, *grid.last().unwrap_or(&w.end), w.step_s)
        }
    };
    // Side by side, but at most `FAN_OUT` clusters at a time: an organization of a hundred is not a hundred threads.
    let mut answers: Vec<Result<PromAnswer, Refusal>> = Vec::with_capacity(targets.len());
    for some in targets.chunks(FAN_OUT) {
        std::thread::scope(|s| {
            let handles: Vec<_> = some.iter().map(|t| s.spawn(move || ask(t))).collect();
            answers.extend(handles.into_iter().map(|h| h.join().expect("query threads do not panic")));
        });
    }
    let mut result_type = if instant { "vector" } else { "matrix" };
    let (mut series, mut failed) = (Vec::new(), Vec::new());
    for (t, answer) in targets.iter().zip(answers) {
        let answer = match answer {
            Ok(a) => a,
            // One cluster asked for: its refusal is the answer.
            Err(r) if cluster_name.is_some() => return Err(refuse(r)),
            Err(r) => {
                failed.push(ClusterFailure { cluster: t.name.to_string(), refusal: r });
                continue;
            }
        };
        let (kind, read) = readings(answer, &grid);
        result_type = kind;
        series.extend(read.into_iter().map(|reading| QuerySeries { cluster: t.name.to_string(), reading }));
    }
    if failed.len() == targets.len() {
        // Not one cluster answered: the first cluster's refusal, naming how many failed.
        let mut r = failed.remove(0).refusal;
        if !failed.is_empty() {
            r.message.push_str(&format!(" (and none of the other {} clusters answered)", failed.len()));
        }
        return Err(refuse(r));
    }
    let total = series.len();
    let truncated = total > MAX_SERIES;
    series.truncate(MAX_SERIES);
    let note = query_note(total, &failed);
    Ok(QueryAnswer {
        org,
        cluster: cluster_name.map(str::to_string),
        query: promql.to_string(),
        scoped_query: cluster_name.and_then(|c| scoped_queries.get(c).cloned()),
        scoped_queries,
        result_type,
        instant,
        window: w,
        series,
        series_total: total,
        truncated,
        failed,
        note,
    })
}

/// What a query answer must say beside its series: nothing matched, some were dropped, or some clusters did not answer.
fn query_note(total: usize, failed: &[ClusterFailure]) -> Option<String> {
    let mut notes = Vec::new();
    if total == 0 {
        notes.push("Nothing matched: check the metric name and the matchers; an empty result is not an all-clear.".to_string());
    } else if total > MAX_SERIES {
        notes.push(format!("{total} series matched; the first {MAX_SERIES} are returned."));
    }
    if !failed.is_empty() {
        let names: Vec<&str> = failed.iter().map(|f| f.cluster.as_str()).collect();
        notes.push(format!("Not every cluster answered: {} (see failed); the series are the other clusters' only.", names.join(", ")));
    }
    (!notes.is_empty()).then(|| notes.join(" "))
}
