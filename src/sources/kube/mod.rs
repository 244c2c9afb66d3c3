//! A Kubernetes node's energy, charged to its pods (`gpu serve --pods`): who holds which GPU (the kubelet's
//! PodResources API), each pod's CPU time (its control group), the pods' names and labels (the API server), and
//! the node's counters the exporter already reads (GPUs, RAPL). Every interval the node's energy is charged
//! (`charge`) and added to running totals per pod and component, which the exporter serves; a pod's series go
//! after the first scrape that finds it gone.

#![warn(missing_docs)]

pub mod api;
pub mod cgroup;
pub mod charge;
pub mod podresources;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use charge::{Charged, GpuSpent, IdlePolicy, Parts, Spent};

use crate::sources::gpu::collector::Collected;
use crate::sources::owner::Group;

/// How often the pods' names and labels are asked for again, at most (and whenever a pod not known appears).
const META_EVERY: Duration = Duration::from_secs(60);
/// How soon after the last ask a pod not known makes exa ask again.
const META_AT_MOST: Duration = Duration::from_secs(10);

/// Where a node's pods are read from, and how their energy is charged.
#[derive(Debug, Clone)]
pub struct Config {
    /// The host root (`/`, or a container's mount of it) whose control groups and `/proc/stat` are read.
    pub root: PathBuf,
    /// The kubelet's PodResources socket, when GPUs held are read.
    pub socket: Option<PathBuf>,
    /// The API server, when the pods' names and labels are read.
    pub api: Option<api::Api>,
    /// Where idle energy goes.
    pub policy: IdlePolicy,
    /// The labels exported on each pod's info series.
    pub labels: Vec<String>,
    /// The annotations exported on each pod's info series.
    pub annotations: Vec<String>,
}

/// A pod's running totals.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pod {
    /// Its name and labels, once the API said them.
    pub meta: Option<api::PodMeta>,
    /// Its energy since the exporter started, by component, mJ.
    pub energy: Parts,
    /// Whether the last interval found it gone: its series are exported once more, then dropped.
    pub gone: bool,
}

/// The node's energy charged so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ledger {
    /// Each pod's, by UID.
    pub pods: BTreeMap<String, Pod>,
    /// The node's idle energy not given to pods, by component, mJ.
    pub idle: Parts,
    /// The node's own services', by component, mJ.
    pub system: Parts,
    /// Which components a source has read (GPUs, RAPL's packages, its DRAM), by `Component`: one never read is
    /// not exported (not observed, not 0).
    pub observed: [bool; 3],
    /// The policy charged by.
    pub policy: IdlePolicy,
    /// The labels exported on each pod's info series: each key, and the attribute it is exported as
    /// (`k8s.pod.label.<key>`, made once when the exporter starts).
    pub labels: Vec<(String, &'static str)>,
    /// The annotations exported, likewise (`k8s.pod.annotation.<key>`).
    pub annotations: Vec<(String, &'static str)>,
}

/// The attribute a pod's label or annotation `key` is exported as: `k8s.pod.<what>.<key>`, any character a
/// Prometheus label name cannot hold as `_`. Made once per key for the exporter's life.
fn attribute(what: &str, key: &str) -> &'static str {
    let clean: String = key.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    Box::leak(format!("k8s.pod.{what}.{clean}").into_boxed_str())
}

impl Ledger {
    /// An empty ledger for what `cfg` asks: its policy, and the labels and annotations exported.
    pub fn new(cfg: &Config) -> Ledger {
        let labels = cfg.labels.iter().map(|k| (k.clone(), attribute("label", k))).collect();
        let annotations = cfg.annotations.iter().map(|k| (k.clone(), attribute("annotation", k))).collect();
        Ledger { policy: cfg.policy, labels, annotations, ..Ledger::default() }
    }

    /// Adds an interval's charges, of which the components `observed` were read; a pod it does not name is
    /// marked gone.
    pub fn add(&mut self, c: &Charged, observed: [bool; 3]) {
        for (o, now) in self.observed.iter_mut().zip(observed) {
            *o |= now;
        }
        for p in self.pods.values_mut() {
            p.gone = true;
        }
        for (uid, parts) in &c.pods {
            let p = self.pods.entry(uid.clone()).or_default();
            p.gone = false;
            sum(&mut p.energy, parts);
        }
        sum(&mut self.idle, &c.idle);
        sum(&mut self.system, &c.system);
    }

    /// After a scrape (or an export) has sent the gone pods' last values: they are dropped.
    pub fn scraped(&mut self) {
        self.pods.retain(|_, p| !p.gone);
    }

    /// Everything charged so far, by component: the node's energy since the start.
    pub fn total(&self) -> Parts {
        let mut t = self.idle;
        sum(&mut t, &self.system);
        for p in self.pods.values() {
            sum(&mut t, &p.energy);
        }
        t
    }
}

fn sum(into: &mut Parts, add: &Parts) {
    for (a, b) in into.iter_mut().zip(add) {
        *a = a.saturating_add(*b);
    }
}

/// What the counters said at one reading, cumulative: each GPU's energy (mJ, by UUID or index), each group's
/// part of it, the CPU packages' and DRAM's energy, the pods' and the node's CPU time.
#[derive(Debug, Clone, Default)]
struct Reading {
    at: Option<Instant>,
    gpus: BTreeMap<u32, (Option<String>, u64)>,
    groups: BTreeMap<(u32, Group), u64>,
    package: Option<u64>,
    dram: Option<u64>,
    /// Each pod's CPU time, s: None where its counter was not read this time.
    pods: BTreeMap<String, Option<f64>>,
    busy: Option<f64>,
}

/// What changed between two readings, as `charge` takes it.
fn spent(before: &Reading, now: &Reading, held: &BTreeMap<String, Vec<String>>, cpus: Option<usize>) -> Spent {
    let dt = match (before.at, now.at) {
        (Some(a), Some(b)) => b.saturating_duration_since(a).as_secs_f64(),
        _ => 0.0,
    };
    let gpus = now
        .gpus
        .iter()
        .map(|(i, (uuid, mj))| {
            // A GPU new since counts from 0, as the collector's totals do.
            let was = before.gpus.get(i).map_or(0, |(_, w)| *w);
            let groups = now
                .groups
                .iter()
                .filter(|((d, _), _)| d == i)
                .map(|((_, g), mj)| {
                    // A group made again since (gone 5 minutes, then busy) counts from 0.
                    let was = before.groups.get(&(*i, g.clone())).copied().filter(|w| w <= mj).unwrap_or(0);
                    (g.clone(), mj - was)
                })
                .filter(|(_, mj)| *mj > 0)
                .collect();
            let holders = uuid.as_ref().and_then(|u| held.get(u)).cloned().unwrap_or_default();
            GpuSpent { energy: mj.saturating_sub(was), holders, groups }
        })
        .collect();
    // The CPU reader's totals count from its start: one that began since counts from 0.
    let delta = |a: Option<u64>, b: Option<u64>| b.map_or(0, |b| b.saturating_sub(a.unwrap_or(0)));
    let pod_cpu_s = now
        .pods
        .iter()
        .map(|(uid, s)| {
            let used = match (before.pods.get(uid), s) {
                // A counter that went back is a control group made again: its time is all in the interval.
                (Some(Some(w)), Some(s)) => s - if w <= s { *w } else { 0.0 },
                // A pod new since: all its time is in the interval.
                (None, Some(s)) => *s,
                // Not read, now or before: nothing known of this interval (its time goes to the next one read).
                _ => 0.0,
            };
            (uid.clone(), used)
        })
        .collect();
    Spent {
        gpus,
        package: delta(before.package, now.package),
        dram: delta(before.dram, now.dram),
        pod_cpu_s,
        node_busy_s: before.busy.zip(now.busy).map(|(a, b)| (b - a).max(0.0)),
        capacity_s: cpus.map_or(0.0, |n| n as f64 * dt),
    }
}

/// The collector's cumulative counters now.
fn counters(c: &Collected) -> Reading {
    Reading {
        at: Some(Instant::now()),
        gpus: c.totals.iter().map(|(i, t)| (*i, (t.uuid.clone(), t.energy.whole_millijoules()))).collect(),
        groups: c.groups.iter().map(|(k, a)| (k.clone(), a.millijoules)).collect(),
        package: c.cpu.as_ref().map(|l| l.package.whole_millijoules()),
        dram: c.cpu.as_ref().and_then(|l| l.dram.map(crate::model::energy::Joules::whole_millijoules)),
        ..Reading::default()
    }
}

/// Says what went wrong, once per run of failures (and again after it recovered and failed anew).
struct Once {
    failing: bool,
}

impl Once {
    fn result<T>(&mut self, r: Result<T, String>, warn: &dyn Fn(&str)) -> Option<T> {
        match r {
            Ok(v) => {
                self.failing = false;
                Some(v)
            }
            Err(e) => {
                if !std::mem::replace(&mut self.failing, true) {
                    warn(&e);
                }
                None
            }
        }
    }
}

/// A thread charging the node's energy, as the exporter's collectors read it into `state`, to its pods every
/// `interval` into `ledger`.
pub struct Watcher {
    stop: mpsc::Sender<()>,
    handle: std::thread::JoinHandle<()>,
}

impl Watcher {
    /// Starts charging; `warn` says a source that fails (once per run of failures).
    pub fn start(
        cfg: Config,
        interval: Duration,
        (state, ledger): (Arc<Mutex<Collected>>, Arc<Mutex<Ledger>>),
        warn: Box<dyn Fn(&str) + Send>,
    ) -> Watcher {
        let (stop, rx) = mpsc::channel();
        let handle = std::thread::spawn(move || watch(&cfg, interval, (&state, &ledger), warn.as_ref(), &rx));
        Watcher { stop, handle }
    }

    /// Stops, and waits for the thread.
    pub fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.handle.join();
    }
}

/// Each GPU's holders (by UID), from the devices the kubelet says each pod holds and the pods the API named.
fn holders(held: &[podresources::Held], meta: &BTreeMap<String, api::PodMeta>) -> BTreeMap<String, Vec<String>> {
    let by_name: BTreeMap<(&str, &str), &str> = meta.values().map(|m| ((m.namespace.as_str(), m.name.as_str()), m.uid.as_str())).collect();
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for h in held {
        if let Some(uid) = by_name.get(&(h.namespace.as_str(), h.pod.as_str())) {
            out.entry(h.device.clone()).or_default().push((*uid).to_string());
        }
    }
    for v in out.values_mut() {
        v.sort();
        v.dedup();
    }
    out
}

/// The node's busy time and the pods' are read apart: an interval that saw the pods' rise before the node's owes
/// the difference (`carry`, at most 0) to the next, rather than the node's services being given it twice.
fn owe(spent: &mut Spent, carry: &mut f64) {
    if let Some(busy) = spent.node_busy_s.as_mut() {
        let in_pods: f64 = spent.pod_cpu_s.values().filter(|s| s.is_finite() && **s > 0.0).sum();
        // The node's services' time this interval, less what the last ones owe.
        let system = *busy + *carry - in_pods;
        *carry = system.min(0.0);
        *busy = in_pods + system.max(0.0);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn watch(
    cfg: &Config,
    interval: Duration,
    (state, ledger): (&Mutex<Collected>, &Mutex<Ledger>),
    warn: &dyn Fn(&str),
    stop: &mpsc::Receiver<()>,
) {
    let tree = cgroup::tree(&cfg.root);
    if tree.is_none() {
        warn(&format!(
            "no pods' control groups under {} (sys/fs/cgroup/kubepods…): the CPU and DRAM energy stays the node's",
            cfg.root.join("sys/fs/cgroup").display()
        ));
    }
    let (mut said_holders, mut said_api) = (Once { failing: false }, Once { failing: false });
    let mut meta: BTreeMap<String, api::PodMeta> = BTreeMap::new();
    let mut asked: Option<Instant> = None;
    let mut before: Option<Reading> = None;
    let mut carry = 0.0;
    let mut kubelet = match cfg.socket.as_deref().map(podresources::Kubelet::new) {
        Some(Err(e)) => {
            warn(&format!("the kubelet's PodResources API is not asked ({e}): GPUs are split by their processes"));
            None
        }
        Some(Ok(k)) => Some(k),
        None => None,
    };
    let mut next = Instant::now();
    loop {
        let pods = tree.as_ref().map(cgroup::pods_cpu).unwrap_or_default();
        let held = match kubelet.as_mut() {
            Some(k) => said_holders.result(k.list(Duration::from_secs(5)), warn).unwrap_or_default(),
            None => Vec::new(),
        };
        // Ask the API again on schedule, or soon when a pod it has not named appears.
        let unknown = pods.keys().any(|u| !meta.contains_key(u));
        let due = asked.is_none_or(|a| a.elapsed() >= META_EVERY || (unknown && a.elapsed() >= META_AT_MOST));
        if let (Some(api), true) = (&cfg.api, due) {
            asked = Some(Instant::now());
            if let Some(m) = said_api.result(api.pods(), warn) {
                meta = m;
            }
        }
        let holders = holders(&held, &meta);
        let busy = crate::sources::cpu::share::node_busy_s(&cfg.root);
        let cpus = crate::sources::cpu::share::online(&cfg.root);
        let mut now = counters(&lock(state));
        // A counter not read this time keeps the last value read, so the next reading's difference holds its time.
        now.pods = pods
            .into_iter()
            .map(|(uid, s)| {
                let kept = s.or_else(|| before.as_ref().and_then(|b| b.pods.get(&uid).copied().flatten()));
                (uid, kept)
            })
            .collect();
        now.busy = busy;
        // The exporter's energy counts from its start: the first reading's energy is charged too (its CPU time,
        // which counts from each pod's, is where the next reading's difference starts).
        let b = before.get_or_insert_with(|| Reading {
            gpus: BTreeMap::new(),
            groups: BTreeMap::new(),
            package: None,
            dram: None,
            ..now.clone()
        });
        {
            let mut spent = spent(b, &now, &holders, cpus);
            owe(&mut spent, &mut carry);
            let charged = charge::charge(&spent, cfg.policy);
            let observed = [!now.gpus.is_empty(), now.package.is_some(), now.dram.is_some()];
            let mut l = lock(ledger);
            l.add(&charged, observed);
            for (uid, p) in &mut l.pods {
                if let Some(m) = meta.get(uid) {
                    p.meta = Some(m.clone());
                }
            }
        }
        before = Some(now);
        next += interval;
        match stop.recv_timeout(next.saturating_duration_since(Instant::now())) {
            Err(RecvTimeoutError::Timeout) => {}
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The node's busy time read behind the pods' is owed to the next interval, not given to its services twice:
    /// over both intervals, system gets the node's time beyond the pods', 1 s.
    #[test]
    fn the_nodes_busy_time_read_behind_the_pods_is_owed_not_given_twice() {
        let at = |pods: f64, node: f64| Spent {
            pod_cpu_s: BTreeMap::from([("a".to_string(), pods)]),
            node_busy_s: Some(node),
            ..Spent::default()
        };
        let mut carry = 0.0;
        let (mut one, mut two) = (at(2.0, 1.0), at(1.0, 3.0));
        owe(&mut one, &mut carry);
        assert_eq!((one.node_busy_s, carry), (Some(2.0), -1.0));
        owe(&mut two, &mut carry);
        assert_eq!((two.node_busy_s, carry), (Some(2.0), 0.0));
    }

    /// A pod's counter not read at one reading keeps its time for the next; a pod new since counts all of its.
    #[test]
    fn a_pods_time_not_read_once_is_counted_when_it_is() {
        let r = |pods: &[(&str, Option<f64>)]| Reading {
            pods: pods.iter().map(|(u, s)| ((*u).to_string(), *s)).collect(),
            ..Reading::default()
        };
        let none = BTreeMap::new();
        let s = spent(&r(&[("a", Some(10.0))]), &r(&[("a", Some(10.0)), ("b", Some(0.5))]), &none, None);
        assert_eq!(s.pod_cpu_s, BTreeMap::from([("a".into(), 0.0), ("b".into(), 0.5)]));
        let s = spent(&r(&[("a", Some(10.0))]), &r(&[("a", Some(12.0))]), &none, None);
        assert_eq!(s.pod_cpu_s["a"], 2.0);
    }
}
