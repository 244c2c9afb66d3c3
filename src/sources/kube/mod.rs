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

/// How long a gone pod's series stay, with their last values, s: Prometheus's staleness window, so any scraper
/// (and an OTLP export) at any usual interval has sent them, whoever else read `/metrics` meanwhile (a probe, a
/// second Prometheus).
pub const GONE_KEPT_S: f64 = 300.0;

/// How long a pod's series wait for its names when the API is asked, s: a series that changed its labels once
/// named would lose what it counted before to `rate()`. Past this (the API down or not naming it), the pod is
/// exported by UID alone.
pub const NAMES_WAIT_S: f64 = 60.0;

/// A pod's running totals.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pod {
    /// Its name and labels, once the API said them.
    pub meta: Option<api::PodMeta>,
    /// Its energy since the exporter started, by component, mJ.
    pub energy: Parts,
    /// Its GPU-seconds held and CPU-seconds used since the exporter started.
    pub time: charge::Time,
    /// When it was first charged, s since the start.
    pub seen_at: f64,
    /// When it was found gone, s since the start: its series stay `GONE_KEPT_S` with their last values.
    pub gone_at: Option<f64>,
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
    /// Whether the API is asked for the pods' names (a pod's series then wait for them, `NAMES_WAIT_S`).
    pub names_asked: bool,
    /// The last interval's time, s since the start.
    pub now: f64,
}

/// The attribute a pod's label or annotation `key` is exported as: `k8s.pod.<what>.<key>`, any character a
/// Prometheus label name cannot hold as `_`. Made once per key for the exporter's life (the keys are refused at
/// start when two would be one attribute).
fn attribute(what: &str, key: &str) -> &'static str {
    Box::leak(format!("k8s.pod.{what}.{}", label_name(key)).into_boxed_str())
}

/// A Kubernetes key as a Prometheus label name's part: any character other than a letter, digit or `_` as `_`.
pub fn label_name(key: &str) -> String {
    key.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect()
}

impl Ledger {
    /// An empty ledger for what `cfg` asks: its policy, and the labels and annotations exported.
    pub fn new(cfg: &Config) -> Ledger {
        let labels = cfg.labels.iter().map(|k| (k.clone(), attribute("label", k))).collect();
        let annotations = cfg.annotations.iter().map(|k| (k.clone(), attribute("annotation", k))).collect();
        Ledger { policy: cfg.policy, labels, annotations, names_asked: cfg.api.is_some(), ..Ledger::default() }
    }

    /// Adds an interval's charges at `t` (s since the start), of which the components `observed` were read. A pod
    /// it does not name is gone from then; one gone `GONE_KEPT_S` is dropped.
    pub fn add(&mut self, c: &Charged, observed: [bool; 3], t: f64) {
        self.now = t;
        for (o, now) in self.observed.iter_mut().zip(observed) {
            *o |= now;
        }
        for p in self.pods.values_mut().filter(|p| p.gone_at.is_none()) {
            p.gone_at = Some(t);
        }
        for (uid, parts) in &c.pods {
            let p = self.pods.entry(uid.clone()).or_insert_with(|| Pod { seen_at: t, ..Pod::default() });
            p.gone_at = None;
            sum(&mut p.energy, parts);
            if let Some(time) = c.time.get(uid) {
                p.time[0] += time[0];
                p.time[1] += time[1];
            }
        }
        sum(&mut self.idle, &c.idle);
        sum(&mut self.system, &c.system);
        self.pods.retain(|_, p| p.gone_at.is_none_or(|g| t - g < GONE_KEPT_S));
    }

    /// The pods exported: each named one, and one not named once its names are not asked or waited for long enough.
    pub fn shown(&self) -> impl Iterator<Item = (&String, &Pod)> {
        self.pods.iter().filter(|(_, p)| p.meta.is_some() || !self.names_asked || self.now - p.seen_at >= NAMES_WAIT_S)
    }

    /// Everything the ledger holds, by component: the node's energy since the start, less the pods dropped.
    #[cfg(test)]
    fn total(&self) -> Parts {
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
        seconds: dt,
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

/// Each GPU's holders (by the UID their control groups bear), from the devices the kubelet says each pod holds and
/// the pods the API named: a static pod by its config hash (its key in `meta` beside its mirror's UID).
fn holders(held: &[podresources::Held], meta: &BTreeMap<String, api::PodMeta>) -> BTreeMap<String, Vec<String>> {
    let mut by_name: BTreeMap<(&str, &str), &str> = BTreeMap::new();
    for (key, m) in meta {
        let name = (m.namespace.as_str(), m.name.as_str());
        if key != &m.uid || !by_name.contains_key(&name) {
            by_name.insert(name, key.as_str());
        }
    }
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
        // Owed at most one interval's capacity: a reading gone wrong does not starve system for long.
        *carry = system.min(0.0).max(-spent.capacity_s);
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
    let mut w = Watch::new(cfg, warn);
    let (start, mut next) = (Instant::now(), Instant::now());
    loop {
        w.tick(cfg, (state, ledger), start.elapsed().as_secs_f64(), warn);
        next += interval;
        match stop.recv_timeout(next.saturating_duration_since(Instant::now())) {
            Err(RecvTimeoutError::Timeout) => {}
            _ => return,
        }
    }
}

/// How long a pod's last CPU time read is kept once it is not read (a directory that could not be listed once):
/// when it is read again, its time since counts, not its whole life.
const CPU_KEPT: Duration = Duration::from_secs(300);

/// What the pods' reader keeps from one reading to the next.
struct Watch {
    tree: Option<cgroup::Tree>,
    kubelet: Option<podresources::Kubelet>,
    /// The pods the API named, by UID (and a static pod by its config hash, which its control group bears).
    meta: BTreeMap<String, api::PodMeta>,
    asked: Option<Instant>,
    /// The pods not named when the API was last asked: a new one makes it ask again sooner.
    unnamed_asked: std::collections::BTreeSet<String>,
    /// Each pod's CPU time last read, and when.
    cpu: BTreeMap<String, (f64, Instant)>,
    before: Option<Reading>,
    /// The pods there at the first reading whose CPU time could not be read then: their first value read is their
    /// baseline (the time before the exporter's start is not its to charge), not time spent since.
    unread_at_start: std::collections::BTreeSet<String>,
    carry: f64,
    said_holders: Once,
    said_api: Once,
    said_unnamed: bool,
}

impl Watch {
    fn new(cfg: &Config, warn: &dyn Fn(&str)) -> Watch {
        let tree = cgroup::tree(&cfg.root);
        if tree.is_none() {
            warn(&format!(
                "no pods' control groups under {} (sys/fs/cgroup/kubepods…): the CPU and DRAM energy stays the node's",
                cfg.root.join("sys/fs/cgroup").display()
            ));
        }
        if cfg.socket.is_some() && cfg.api.is_none() {
            warn("the kubelet names the pods that hold each GPU, and without the Kubernetes API (--kube-api) exa cannot tell their UIDs: GPUs are split by their processes");
        }
        let kubelet = match cfg.socket.as_deref().filter(|_| cfg.api.is_some()).map(podresources::Kubelet::new) {
            Some(Err(e)) => {
                warn(&format!("the kubelet's PodResources API is not asked ({e}): GPUs are split by their processes"));
                None
            }
            Some(Ok(k)) => Some(k),
            None => None,
        };
        Watch {
            tree,
            kubelet,
            meta: BTreeMap::new(),
            asked: None,
            unnamed_asked: std::collections::BTreeSet::new(),
            cpu: BTreeMap::new(),
            before: None,
            unread_at_start: std::collections::BTreeSet::new(),
            carry: 0.0,
            said_holders: Once { failing: false },
            said_api: Once { failing: false },
            said_unnamed: false,
        }
    }

    /// Asks the API for the pods' names on schedule, or sooner when a pod it did not name appeared since it asked.
    fn ask(&mut self, cfg: &Config, warn: &dyn Fn(&str)) {
        let Some(api) = &cfg.api else { return };
        let seen = self.before.as_ref().map(|b| b.pods.keys().cloned().collect::<Vec<_>>()).unwrap_or_default();
        let unnamed: std::collections::BTreeSet<String> = seen.into_iter().filter(|u| !self.meta.contains_key(u)).collect();
        let due = self
            .asked
            .is_none_or(|a| a.elapsed() >= META_EVERY || (a.elapsed() >= META_AT_MOST && !unnamed.is_subset(&self.unnamed_asked)));
        if !due {
            return;
        }
        self.asked = Some(Instant::now());
        let keep: Vec<&str> = cfg.labels.iter().chain(&cfg.annotations).map(String::as_str).collect();
        if let Some(m) = self.said_api.result(api.pods(&keep), warn) {
            self.meta = m;
            self.unnamed_asked = unnamed.into_iter().filter(|u| !self.meta.contains_key(u)).collect();
            if !self.said_unnamed
                && !self.unnamed_asked.is_empty()
                && self.unnamed_asked.len() == self.before.as_ref().map_or(0, |b| b.pods.len())
            {
                self.said_unnamed = true;
                warn(&format!(
                    "the Kubernetes API names none of the {} pods on this host as on node {}: is the node's name right (NODE_NAME, EXAMLOPS_NODE_NAME)?",
                    self.unnamed_asked.len(),
                    crate::text::clean(&api.node)
                ));
            }
        }
    }

    /// One reading: the pods' holders and names (over the network), then the control groups and the counters read
    /// together, charged and added to the ledger.
    fn tick(&mut self, cfg: &Config, (state, ledger): (&Mutex<Collected>, &Mutex<Ledger>), t: f64, warn: &dyn Fn(&str)) {
        let held = match self.kubelet.as_mut() {
            Some(k) => self.said_holders.result(k.list(Duration::from_secs(5)), warn).unwrap_or_default(),
            None => Vec::new(),
        };
        self.ask(cfg, warn);
        let pods = self.tree.as_ref().map(cgroup::pods_cpu).unwrap_or_default();
        let busy = crate::sources::cpu::share::node_busy_s(&cfg.root);
        let cpus = crate::sources::cpu::share::online(&cfg.root);
        let mut now = counters(&lock(state));
        now.busy = busy;
        // A pod's time is counted from the last value read of it, kept a while when a reading misses it.
        let read_at = Instant::now();
        let mut last: BTreeMap<String, Option<f64>> = pods.keys().filter_map(|u| Some((u.clone(), Some(self.cpu.get(u)?.0)))).collect();
        if self.before.is_none() {
            self.unread_at_start = pods.iter().filter(|(_, s)| s.is_none()).map(|(u, _)| u.clone()).collect();
        }
        self.unread_at_start.retain(|u| match pods.get(u) {
            Some(Some(s)) => {
                last.insert(u.clone(), Some(*s));
                false
            }
            Some(None) => true,
            None => false,
        });
        for (uid, s) in &pods {
            if let Some(s) = s {
                self.cpu.insert(uid.clone(), (*s, read_at));
            }
        }
        self.cpu.retain(|_, (_, at)| at.elapsed() < CPU_KEPT);
        now.pods = pods.into_iter().map(|(uid, s)| (uid.clone(), s.or_else(|| last.get(&uid).copied().flatten()))).collect();
        // A GPU is held by the pods the kubelet says, while their control groups are there (a finished pod it still
        // lists holds nothing).
        let mut holders = holders(&held, &self.meta);
        if self.tree.is_some() {
            for v in holders.values_mut() {
                v.retain(|u| now.pods.contains_key(u));
            }
        }
        // The exporter's energy counts from its start: the first reading's energy is charged too, and none of the pods'
        // CPU time from before it (their first reading is its own baseline).
        let b = match self.before.take() {
            Some(before) => Reading { pods: last, ..before },
            None => Reading { gpus: BTreeMap::new(), groups: BTreeMap::new(), package: None, dram: None, ..now.clone() },
        };
        let mut spent = spent(&b, &now, &holders, cpus);
        owe(&mut spent, &mut self.carry);
        let charged = charge::charge(&spent, cfg.policy);
        let observed = [!now.gpus.is_empty(), now.package.is_some(), now.dram.is_some()];
        let mut l = lock(ledger);
        l.add(&charged, observed, t);
        for (uid, p) in &mut l.pods {
            match self.meta.get(uid) {
                Some(m) if p.meta.as_ref() != Some(m) => p.meta = Some(m.clone()),
                _ => {}
            }
        }
        drop(l);
        self.before = Some(now);
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
            capacity_s: 8.0,
            ..Spent::default()
        };
        let mut carry = 0.0;
        let (mut one, mut two) = (at(2.0, 1.0), at(1.0, 3.0));
        owe(&mut one, &mut carry);
        assert_eq!((one.node_busy_s, carry), (Some(2.0), -1.0));
        owe(&mut two, &mut carry);
        assert_eq!((two.node_busy_s, carry), (Some(2.0), 0.0));
    }

    /// A pod found gone keeps its series, with their last values, `GONE_KEPT_S`, whoever reads them meanwhile; a pod
    /// the API is asked to name waits for its names `NAMES_WAIT_S` before it is exported by UID alone.
    #[test]
    fn a_gone_pod_stays_five_minutes_and_an_unnamed_one_waits_for_its_names() {
        let mut l = Ledger { names_asked: true, observed: [true; 3], ..Ledger::default() };
        let charged = |uids: &[&str]| Charged { pods: uids.iter().map(|u| ((*u).to_string(), [1, 2, 3])).collect(), ..Charged::default() };
        l.add(&charged(&["a", "b"]), [true; 3], 0.0);
        assert_eq!(l.shown().count(), 0, "not named yet");
        l.pods.get_mut("a").unwrap().meta = Some(api::PodMeta::default());
        l.add(&charged(&["a", "b"]), [true; 3], 10.0);
        assert_eq!(l.shown().map(|(u, _)| u.as_str()).collect::<Vec<_>>(), ["a"]);
        l.add(&charged(&["a"]), [true; 3], NAMES_WAIT_S);
        assert_eq!(l.shown().count(), 2, "b, unnamed, is shown by UID after the wait");
        assert_eq!((l.pods["b"].gone_at, l.pods["b"].energy), (Some(NAMES_WAIT_S), [2, 4, 6]));
        l.add(&charged(&["a"]), [true; 3], NAMES_WAIT_S + GONE_KEPT_S - 1.0);
        assert!(l.pods.contains_key("b"), "kept with its last values");
        assert_eq!(l.pods["b"].energy, [2, 4, 6]);
        l.add(&charged(&["a"]), [true; 3], NAMES_WAIT_S + GONE_KEPT_S);
        assert!(!l.pods.contains_key("b"));
        // Its energy went out in its series for five minutes; the ledger keeps the pods still exported.
        assert_eq!(l.total(), [5, 10, 15]);
    }

    /// A GPU held by a static pod is held by the config hash its control group bears, not its mirror's UID.
    #[test]
    fn a_static_pods_gpu_is_held_by_its_config_hash() {
        let hash = "0123456789abcdef0123456789abcdef";
        let etcd =
            api::PodMeta { uid: "mirror-uid".into(), namespace: "kube-system".into(), name: "etcd-n1".into(), ..api::PodMeta::default() };
        let web = api::PodMeta { uid: "web-uid".into(), namespace: "default".into(), name: "web".into(), ..api::PodMeta::default() };
        let meta = BTreeMap::from([(hash.to_string(), etcd.clone()), ("mirror-uid".to_string(), etcd), ("web-uid".to_string(), web)]);
        let held = |ns: &str, pod: &str, device: &str| podresources::Held { namespace: ns.into(), pod: pod.into(), device: device.into() };
        let h = holders(&[held("kube-system", "etcd-n1", "GPU-0"), held("default", "web", "GPU-1")], &meta);
        assert_eq!(h["GPU-0"], [hash]);
        assert_eq!(h["GPU-1"], ["web-uid"]);
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
