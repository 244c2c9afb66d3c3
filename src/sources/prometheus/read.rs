//! Reading a node's GPUs and host, a workload's placement, and the
//! reference, from Prometheus, with the queries run concurrently.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::catalog::{self, Catalog, ReadingKind};
use super::prom::{Client, RawSeries};
use super::{check_k8s_name, Refusal, Series, Window};
use crate::model::config::Cluster;
use crate::time::{serialize_iso, serialize_iso_opt};

/// How many queries run at once against one Prometheus.
const PARALLEL: usize = 8;

/// A cluster and the client to its Prometheus.
pub struct Target<'a> {
    /// The cluster's name.
    pub name: &'a str,
    /// Its config.
    pub cluster: &'a Cluster,
    /// The client of its Prometheus.
    pub client: Client,
    /// What to read on it.
    pub catalog: Catalog,
}

impl<'a> Target<'a> {
    /// The cluster `name` as configured, with its bearer token.
    pub fn new(name: &'a str, cluster: &'a Cluster, token: Option<String>) -> Target<'a> {
        let timeout = std::time::Duration::from_secs_f64(cluster.timeout_s.unwrap_or(10.0));
        Target {
            name,
            cluster,
            client: Client::new(name, &cluster.prometheus, token, timeout, cluster.labels.clone()),
            catalog: catalog::for_cluster(cluster),
        }
    }

    fn labels(&self) -> Vec<String> {
        self.cluster.labels.iter().map(|(k, v)| format!("{k}=\"{}\"", escape(v))).collect()
    }

    /// The matchers of a namespace's kube-state-metrics series, with the cluster's labels.
    fn namespace_selector(&self, namespace: &str) -> String {
        let labels: String = self.labels().iter().map(|l| format!(",{l}")).collect();
        format!("namespace=\"{}\"{labels}", escape(namespace))
    }

    /// The selector of a node's series (`label="node"` plus the cluster's labels).
    fn selector(&self, label: &str, node: Option<&str>) -> String {
        let mut parts = self.labels();
        if let Some(n) = node {
            parts.insert(0, format!("{label}=\"{}\"", escape(n)));
        }
        parts.join(",")
    }

    /// A catalog expression with its selectors, node and window filled in.
    pub fn fill(&self, template: &str, node: Option<&str>, w: &Window) -> String {
        let host_label = self.cluster.host_label.as_deref().unwrap_or(&self.cluster.node_label);
        let (sel, hsel) = (self.selector(&self.cluster.node_label, node), self.selector(host_label, node));
        // An empty selector must not leave a leading comma behind.
        let put = |text: String, key: &str, value: &str| {
            if value.is_empty() {
                text.replace(&format!("{{{key}}},"), "").replace(&format!("{{{key}}}"), "")
            } else {
                text.replace(&format!("{{{key}}}"), value)
            }
        };
        put(put(template.to_string(), "sel", &sel), "hsel", &hsel)
            .replace("{step}", &w.step_s.to_string())
            .replace("{bucket}", &(w.step_s.max(60) * 1000 - 1).to_string())
            .replace("{rate}", &w.step_s.max(180).to_string())
            .replace("{win}", &w.span().to_string())
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Runs queries concurrently, a few at a time, keeping their order.
pub fn run_all<T: Send>(jobs: Vec<Box<dyn FnOnce() -> Result<T, Refusal> + Send + '_>>) -> Result<Vec<T>, Refusal> {
    let mut out = Vec::with_capacity(jobs.len());
    let mut jobs = jobs.into_iter().peekable();
    while jobs.peek().is_some() {
        let batch: Vec<_> = jobs.by_ref().take(PARALLEL).collect();
        let results: Vec<Result<T, Refusal>> = std::thread::scope(|s| {
            batch
                .into_iter()
                .map(|j| s.spawn(j))
                .collect::<Vec<_>>()
                .into_iter()
                .map(|h| h.join().expect("query threads do not panic"))
                .collect()
        });
        for r in results {
            out.push(r?);
        }
    }
    Ok(out)
}

/// A health episode of a node.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Episode {
    /// The episode's kind (thermal, power, comm, ...).
    pub kind: String,
    /// When it began.
    #[serde(serialize_with = "serialize_iso")]
    pub started: i64,
    /// When it ended; `None` while it goes on.
    #[serde(serialize_with = "serialize_iso_opt")]
    pub ended: Option<i64>,
    /// The alert that marks it.
    pub detail: String,
}

/// Everything read of one node over the window.
#[derive(Debug, Default)]
pub struct NodeData {
    /// The node's name.
    pub name: String,
    /// ready or not-ready, when known.
    pub state: Option<&'static str>,
    /// By GPU index: fields to series, and fields to window totals.
    pub gpus: BTreeMap<String, GpuData>,
    /// Host series, by field.
    pub host_series: BTreeMap<&'static str, Series>,
    /// Host totals, by field.
    pub host_values: BTreeMap<&'static str, Option<f64>>,
    /// The families that answered.
    pub present: BTreeSet<&'static str>,
    /// Its health episodes in the window.
    pub episodes: Vec<Episode>,
}

/// One GPU's readings.
#[derive(Debug, Default, Clone)]
pub struct GpuData {
    /// Series, by field.
    pub series: BTreeMap<&'static str, Series>,
    /// Window totals, by field.
    pub values: BTreeMap<&'static str, Option<f64>>,
    /// Per-bucket increases of counters, by field (read for flags only).
    pub spans: BTreeMap<&'static str, Series>,
}

enum Got {
    Gpu(&'static str, &'static str, Vec<(String, Option<Series>, Option<f64>)>),
    /// A counter's per-bucket increases, by device (for flags' spans).
    Span(&'static str, Vec<(String, Option<Series>)>),
    Host(&'static str, &'static str, Option<Series>, Option<f64>),
}

fn sum_values(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (None, None) => None,
        // A sum that overflows is no reading, never infinity.
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)).filter(|s| s.is_finite()),
    }
}

/// Reads one node: every reading in the catalog, its state and its episodes.
pub fn node(t: &Target, node: &str, w: &Window) -> Result<NodeData, Refusal> {
    check_k8s_name("node", node)?;
    let jobs: Vec<Job<'_>> = t.catalog.readings.iter().map(|r| reading_job(t, r, node, w)).collect();
    let state_q = format!("max(kube_node_status_condition{{node=\"{}\",condition=\"Ready\",status=\"true\"}})", escape(node));
    // The node's state and episodes are read alongside its readings, not after them.
    let (got, state, found_episodes) = std::thread::scope(|s| {
        let state = s.spawn(|| t.client.instant(&state_q, w.end));
        let found = s.spawn(|| episodes(t, node, w));
        (run_all(jobs), state.join().expect("query threads do not panic"), found.join().expect("query threads do not panic"))
    });
    let mut data = NodeData { name: node.to_string(), ..NodeData::default() };
    for g in got? {
        data.add(g);
    }
    if data.present.is_empty() {
        return Err(Refusal::not_found(format!("node {node} has no readings in cluster {} over the window", t.name)));
    }
    data.state = state?.series().first().and_then(|s| s.samples.last()).map(|(_, v)| if *v >= 1.0 { "ready" } else { "not-ready" });
    data.episodes = found_episodes?;
    if !t.cluster.episodes.is_empty() {
        data.present.insert("health_episodes");
    }
    Ok(data)
}

/// Reads one node as `node` does, then the per-bucket increases of just the
/// counters that rose over the window, for the spans of counter-based flags
/// (a node whose counters did not rise costs no extra query).
pub fn node_for_flags(t: &Target, node: &str, w: &Window) -> Result<NodeData, Refusal> {
    let mut data = self::node(t, node, w)?;
    let rose: BTreeSet<&'static str> =
        data.gpus.values().flat_map(|g| g.values.iter().filter(|(_, v)| v.is_some_and(|x| x > 0.0)).map(|(k, _)| *k)).collect();
    // Buckets longer than a hold: a hot spell's seconds in each bucket, read where a GPU peaked hot (a bucket's
    // mean of 3.5 hours hides a 10-minute spell).
    let hot = super::catalog::HOT_C;
    let peaked = data.gpus.values().any(|g| g.values.get("peak_temp_c").copied().flatten().is_some_and(|p| p >= hot));
    let held = (w.step_s > super::catalog::HOLD_S && peaked).then(|| super::catalog::Reading {
        family: "gpu_temp",
        field: HOT_S,
        exprs: vec![hot_seconds(t.catalog.device_label, &t.catalog.temp, hot)],
        kind: ReadingKind::Gauge(1.0),
    });
    let mut jobs: Vec<Job<'_>> = t.catalog.spans.iter().filter(|r| rose.contains(r.field)).map(|r| span_job(t, r, node, w)).collect();
    if let Some(r) = &held {
        jobs.push(span_job(t, r, node, w));
    }
    for g in run_all(jobs)? {
        data.add(g);
    }
    if held.is_some() {
        hot_minutes(t, node, w, &mut data)?;
    }
    Ok(data)
}

/// The span field holding a GPU's seconds at or above the hot mark in each bucket (`hot_seconds`).
pub const HOT_S: &str = "hot_s";

/// The span field holding a GPU's temperature minute by minute over the buckets where it was hot (`hot_minutes`):
/// whether a hot spell was held is judged there, never from seconds summed over buckets (a minute hot in every
/// ten adds up to a spell that never was).
pub const HOT_MINUTES: &str = "hot_minutes";

/// Reads, a minute at a time, the temperature of the GPUs with hot seconds over the stretch from their first hot
/// bucket to their last, into `HOT_MINUTES` (a series on a grid of its own: `t0`, 60 s steps).
fn hot_minutes(t: &Target, node: &str, w: &Window, data: &mut NodeData) -> Result<(), Refusal> {
    let hot_buckets = |g: &GpuData| -> Option<(usize, usize)> {
        let v = g.spans.get(HOT_S)?.values.as_ref()?;
        let first = v.iter().position(|x| x.is_some_and(|x| x >= 1.0))?;
        let last = v.iter().rposition(|x| x.is_some_and(|x| x >= 1.0))?;
        Some((first, last))
    };
    let Some((a, b)) = data.gpus.values().filter_map(hot_buckets).reduce(|x, y| (x.0.min(y.0), x.1.max(y.1))) else { return Ok(()) };
    let (from, to) = (w.at(a as u32) - w.step_s, w.at(b as u32));
    let minutes = Window { start: from, end: to, step_s: 60, points: u32::try_from((to - from) / 60).unwrap_or(u32::MAX) };
    let parts: Vec<String> = t.catalog.temp.iter().map(|m| format!("avg_over_time({m}[59999ms])")).collect();
    let query = t.fill(&format!("avg by ({}) ({})", t.catalog.device_label, parts.join(" or ")), Some(node), w);
    let dev = t.catalog.device_label;
    for s in t.client.range(&query, minutes.at(0), minutes.at(minutes.points.saturating_sub(1)), 60)?.series() {
        let Some(key) = s.labels.get(dev) else { continue };
        if let (Some(g), Some(series)) = (data.gpus.get_mut(key), Series::on_grid(&minutes, &s.samples, 1.0)) {
            if hot_buckets(g).is_some() {
                g.spans.insert(HOT_MINUTES, series);
            }
        }
    }
    Ok(())
}

/// Per bucket, the seconds a GPU's temperature (any of `temps`) was at or above `hot`: the share of the
/// bucket's minutes hot, read a minute apart, times the bucket.
fn hot_seconds(dev: &str, temps: &[String], hot: f64) -> String {
    let parts: Vec<String> = temps.iter().map(|m| format!("avg_over_time(({m} >= bool {hot})[{{bucket}}ms:60s])")).collect();
    format!("max by ({dev}) ({}) * {{step}}", parts.join(" or "))
}

/// A query job, run beside the others.
type Job<'a> = Box<dyn FnOnce() -> Result<Got, Refusal> + Send + 'a>;

/// The job that reads one catalog reading of `node`: by device, the samples
/// of a gauge or the summed value of a total.
fn reading_job<'a>(t: &'a Target, reading: &'a super::catalog::Reading, node: &str, w: &'a Window) -> Job<'a> {
    let queries: Vec<String> = reading.exprs.iter().map(|e| t.fill(e, Some(node), w)).collect();
    let (dev, client, kind) = (t.catalog.device_label, &t.client, reading.kind);
    let (family, field) = (reading.family, reading.field);
    Box::new(move || {
        type Samples = Vec<(f64, f64)>;
        let mut per: BTreeMap<String, (Samples, Option<f64>)> = BTreeMap::new();
        for q in &queries {
            let series: Vec<RawSeries> = match kind {
                ReadingKind::Gauge(_) | ReadingKind::HostGauge => client.range(q, w.at(0), w.at(w.points - 1), w.step_s)?.series(),
                _ => client.instant(q, w.end)?.series(),
            };
            for s in series {
                let key = s.labels.get(dev).cloned().unwrap_or_default();
                let e = per.entry(key).or_default();
                match kind {
                    ReadingKind::Gauge(_) | ReadingKind::HostGauge => e.0.extend(s.samples),
                    _ => e.1 = sum_values(e.1, s.samples.last().map(|x| x.1)),
                }
            }
        }
        Ok(match kind {
            ReadingKind::HostGauge => Got::Host(family, field, per.values().next().and_then(|(s, _)| Series::on_grid(w, s, 1.0)), None),
            ReadingKind::HostIncrease => Got::Host(family, field, None, per.values().next().and_then(|(_, v)| v.map(round))),
            ReadingKind::Gauge(scale) => {
                Got::Gpu(family, field, per.into_iter().map(|(k, (s, _))| (k, Series::on_grid(w, &s, scale), None)).collect())
            }
            ReadingKind::Last(scale) | ReadingKind::Increase(scale) => {
                Got::Gpu(family, field, per.into_iter().map(|(k, (_, v))| (k, None, v.map(|x| round(x * scale)))).collect())
            }
        })
    })
}

/// A span reading: the same query as a gauge, filed apart from the readings.
fn span_job<'a>(t: &'a Target, reading: &'a super::catalog::Reading, node: &str, w: &'a Window) -> Job<'a> {
    let job = reading_job(t, reading, node, w);
    Box::new(move || {
        Ok(match job()? {
            Got::Gpu(_, field, per) => Got::Span(field, per.into_iter().map(|(k, s, _)| (k, s)).collect()),
            other => other,
        })
    })
}

impl NodeData {
    /// Files one job's answer under its GPUs or the host, noting the family as present.
    fn add(&mut self, g: Got) {
        match g {
            Got::Span(field, per) => {
                for (idx, series) in per.into_iter().filter(|(idx, _)| !idx.is_empty()) {
                    if let Some(s) = series {
                        self.gpus.entry(idx).or_default().spans.insert(field, s);
                    }
                }
            }
            Got::Gpu(family, field, per) => {
                for (idx, series, value) in per.into_iter().filter(|(idx, ..)| !idx.is_empty()) {
                    let gpu = self.gpus.entry(idx).or_default();
                    if let Some(s) = series {
                        self.present.insert(family);
                        gpu.series.insert(field, s);
                    }
                    if value.is_some() {
                        self.present.insert(family);
                        gpu.values.insert(field, value);
                    }
                }
            }
            Got::Host(family, field, series, value) => {
                if let Some(s) = series {
                    self.present.insert(family);
                    self.host_series.insert(field, s);
                }
                if value.is_some() {
                    self.present.insert(family);
                }
                self.host_values.insert(field, value);
            }
        }
    }
}

fn round(x: f64) -> f64 {
    super::round3(x)
}

/// The node's health episodes that overlap the window, from the ALERTS series the cluster maps.
pub fn episodes(t: &Target, node: &str, w: &Window) -> Result<Vec<Episode>, Refusal> {
    if t.cluster.episodes.is_empty() {
        return Ok(Vec::new());
    }
    let names: Vec<String> = t.cluster.episodes.keys().map(|k| escape(k)).collect();
    let q = format!("ALERTS{{alertstate=\"firing\",alertname=~\"{}\",{}}}", names.join("|"), t.selector(&t.cluster.node_label, Some(node)));
    // Look back a day before the window, so an episode that began earlier shows its real start;
    // read by the minute whatever the span (a long span is read in parts: `Client::range`).
    let from = w.start - 86_400;
    let step = 60;
    let mut out = Vec::new();
    for s in t.client.range(&q, from, w.end, step)?.series() {
        let alert = s.labels.get("alertname").cloned().unwrap_or_default();
        let kind = t.cluster.episodes.get(&alert).cloned().unwrap_or(alert.clone());
        let mut run: Option<(i64, i64)> = None;
        let close = |r: (i64, i64), open: bool, out: &mut Vec<Episode>| {
            if r.1 >= w.start && r.0 <= w.end {
                out.push(Episode {
                    kind: kind.clone(),
                    started: r.0,
                    ended: (!open).then_some(r.1),
                    detail: format!("alert {alert} firing"),
                });
            }
        };
        for (t, v) in &s.samples {
            let t = *t as i64;
            if *v < 1.0 {
                continue;
            }
            run = match run {
                Some((a, b)) if t - b <= step => Some((a, t)),
                Some(r) => {
                    close(r, false, &mut out);
                    Some((t, t))
                }
                None => Some((t, t)),
            };
        }
        if let Some(r) = run {
            close(r, r.1 >= w.end - step, &mut out);
        }
    }
    out.sort_by_key(|e| e.started);
    Ok(out)
}

/// The p95 of GPU temperature over the window across the cluster's GPUs, or None.
/// The reference: the 95th percentile of the model's GPU temperature over the
/// window, one number pooled across every reading of every GPU of the cluster
/// (sampled on the window's minute-scale grid), never a percentile of per-GPU
/// percentiles, so a hot GPU cannot raise its own reference much.
pub fn reference(t: &Target, w: &Window) -> Result<Option<f64>, Refusal> {
    let fine = w.fine();
    let mut readings: Vec<f64> = Vec::new();
    for m in &t.catalog.temp {
        let q = t.fill(m, None, &fine);
        for s in t.client.range(&q, fine.at(0), fine.at(fine.points - 1), fine.step_s)?.series() {
            readings.extend(s.samples.iter().map(|(_, v)| *v));
        }
    }
    Ok(p95(&mut readings).map(round))
}

/// The 95th percentile as Prometheus's `quantile` computes it (linear between ranks); `None` for no readings.
fn p95(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let rank = 0.95 * (values.len() - 1) as f64;
    let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
    Some(values[lo] + (values[hi] - values[lo]) * (rank - lo as f64))
}

/// One pod of a workload and where it ran.
#[derive(Debug, Clone, Serialize)]
pub struct Placement {
    /// The pod.
    pub pod: String,
    /// The node it ran on.
    pub node: String,
    /// When it was first seen in the window.
    #[serde(serialize_with = "serialize_iso_opt")]
    pub from: Option<i64>,
    /// When it was last seen, if before the window's end.
    #[serde(serialize_with = "serialize_iso_opt")]
    pub to: Option<i64>,
    /// Its phase (Running, Succeeded, ...).
    pub phase: Option<String>,
}

/// The workload kinds exa can place.
pub const KINDS: &[&str] = &["Job", "JobSet", "MPIJob", "Deployment", "StatefulSet", "Pod"];

/// The pods of a workload, from kube-state-metrics: over the window if it has history, else now.
pub fn placement(
    t: &Target,
    kind: &str,
    namespace: &str,
    name: &str,
    w: &Window,
    now: i64,
) -> Result<(Vec<Placement>, &'static str), Refusal> {
    if !KINDS.contains(&kind) {
        return Err(Refusal::bad_request(format!("kind '{kind}' is not one of {}", KINDS.join(", "))));
    }
    check_k8s_name("workload name", name)?;
    check_k8s_name("namespace", namespace)?;
    let ns = t.namespace_selector(namespace);
    let pods = pods_query(&ns, kind, name);
    let history = t.client.range(&pods, w.at(0), w.at(w.points - 1), w.step_s)?.series();
    let (mut found, source, at) = if history.iter().any(|s| !s.samples.is_empty()) {
        (from_history(history, w), "history", w.end)
    } else {
        let rows = t.client.instant(&pods, now)?.series().into_iter().map(|s| placed(&s, None, None)).collect();
        (rows, "current-pods", now)
    };
    if found.is_empty() {
        return Err(Refusal::not_found(format!("{kind} {namespace}/{name} has no pods in cluster {}, over the window or now", t.name)));
    }
    let names: Vec<String> = found.iter().map(|p| p.pod.clone()).collect();
    let ph = phases(t, &ns, &names, at)?;
    for p in &mut found {
        p.phase = ph.get(&p.pod).cloned();
    }
    found.sort_by(|a, b| a.pod.cmp(&b.pod));
    Ok((found, source))
}

/// The pods of a workload and their nodes, through the owner chain its kind has.
fn pods_query(ns: &str, kind: &str, name: &str) -> String {
    let owner = match kind {
        "Pod" => None,
        "Deployment" => Some(format!("owner_kind=\"ReplicaSet\",owner_name=~\"{name}-[a-z0-9]{{6,10}}\"")),
        "JobSet" => Some(format!("owner_kind=\"Job\",owner_name=~\"{name}-.+-[0-9]+\"")),
        other => Some(format!("owner_kind=\"{other}\",owner_name=\"{name}\"")),
    };
    match &owner {
        None => format!("max by (pod, node) (kube_pod_info{{{ns},pod=\"{name}\"}})"),
        Some(o) => format!("max by (pod, node) (kube_pod_info{{{ns}}} * on (namespace, pod) group_left () max by (namespace, pod) (kube_pod_owner{{{ns},{o}}}))"),
    }
}

fn placed(s: &RawSeries, from: Option<i64>, to: Option<i64>) -> Placement {
    Placement {
        pod: s.labels.get("pod").cloned().unwrap_or_default(),
        node: s.labels.get("node").cloned().unwrap_or_default(),
        from,
        to,
        phase: None,
    }
}

/// Where each pod ran over the window, and from when to when.
fn from_history(history: Vec<RawSeries>, w: &Window) -> Vec<Placement> {
    let last_t = w.at(w.points - 1);
    history
        .into_iter()
        .filter(|s| !s.samples.is_empty())
        .map(|s| {
            let first = s.samples.first().map(|x| x.0 as i64 - w.step_s);
            let last = s.samples.last().map(|x| x.0 as i64).unwrap_or(0);
            placed(&s, first.map(|f| f.max(w.start)), (last < last_t).then_some(last))
        })
        .collect()
}

/// Each pod's phase at `at`; pod names are escaped as regex alternatives.
fn phases(t: &Target, ns: &str, pods: &[String], at: i64) -> Result<BTreeMap<String, String>, Refusal> {
    if pods.is_empty() {
        return Ok(BTreeMap::new());
    }
    let alternatives: Vec<String> = pods.iter().map(|p| escape(&regex_quote(p))).collect();
    let q = format!("kube_pod_status_phase{{{ns},pod=~\"{}\"}} == 1", alternatives.join("|"));
    Ok(t.client
        .instant(&q, at)?
        .series()
        .into_iter()
        .filter_map(|s| Some((s.labels.get("pod")?.clone(), s.labels.get("phase")?.clone())))
        .collect())
}

/// For each node of the placement, which of the window's buckets a pod of the
/// workload was Running in there, from kube-state-metrics' phase history
/// joined to the node each pod was on at the time (a StatefulSet's pod keeps
/// its name when it moves).
pub fn running(t: &Target, namespace: &str, placement: &[Placement], w: &Window) -> Result<BTreeMap<String, Vec<bool>>, Refusal> {
    let mut out: BTreeMap<String, Vec<bool>> = placement.iter().map(|p| (p.node.clone(), vec![false; w.points as usize])).collect();
    if placement.is_empty() {
        return Ok(out);
    }
    check_k8s_name("namespace", namespace)?;
    let ns = t.namespace_selector(namespace);
    let pods: BTreeSet<&str> = placement.iter().map(|p| p.pod.as_str()).collect();
    let alternatives: Vec<String> = pods.iter().map(|p| escape(&regex_quote(p))).collect();
    let sel = format!("{ns},pod=~\"{}\"", alternatives.join("|"));
    let q = format!(
        "max by (pod, node) ((kube_pod_status_phase{{{sel},phase=\"Running\"}} == 1) * on (namespace, pod) group_left (node) max by (namespace, pod, node) (kube_pod_info{{{sel}}}))"
    );
    for s in t.client.range(&q, w.at(0), w.at(w.points - 1), w.step_s)?.series() {
        let Some(mask) = s.labels.get("node").and_then(|n| out.get_mut(n)) else { continue };
        for i in s.samples.iter().filter(|(_, v)| *v >= 1.0).filter_map(|(at, _)| w.bucket(*at)) {
            mask[i] = true;
        }
    }
    Ok(out)
}

/// `s` as a literal inside a RE2 regular expression.
fn regex_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
