//! A node's energy over one interval, charged to the pods on it: each GPU's, the CPU packages' and DRAM's, in
//! whole millijoules that add up, component by component, to what the node's counters said. What no pod used
//! is said as such, never spread silently: the node's `idle` (CPU capacity nobody used, a GPU's idle draw or a
//! GPU nobody holds) and its `system` (the kubelet, the runtime, the OS: busy, but in no pod). The idle policy
//! a site declares then gives the idle part to the pods, or not.
//!
//! - A GPU the kubelet gave to one pod (PodResources) is that pod's, whole: it was held even while idle.
//! - A GPU shared or given to nobody is split as the collector split it among the control groups busy on it
//!   (`gpu::collector`, by SM activity): a pod's part to the pod, the device's idle part to idle, a process's
//!   that could not be placed evenly to the pods that hold the GPU (or to system when none does), any other
//!   group's (the host, a container outside Kubernetes) to system. What the split did not cover (no activity
//!   known) goes evenly to the pods that hold the GPU, or to idle when none does.
//! - The CPU packages and DRAM are split by CPU time over the interval's CPU capacity (online CPUs times the
//!   interval): each pod's cgroup CPU time, the node's busy time beyond the pods' (system), and the capacity
//!   left (idle). DRAM has no per-cgroup counter; CPU time is its stated proxy.

use std::collections::{BTreeMap, BTreeSet};

use crate::sources::gpu::split::apportion;
use crate::sources::owner::{Group, GroupKind};

/// What a node's energy is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Component {
    /// The GPUs.
    Gpu,
    /// The CPU packages (RAPL package domains).
    Cpu,
    /// DRAM (RAPL DRAM domains).
    Dram,
}

impl Component {
    /// All of them, in the order a `Parts` holds them.
    pub const ALL: [Component; 3] = [Component::Gpu, Component::Cpu, Component::Dram];

    /// As a label says it.
    pub fn as_str(self) -> &'static str {
        match self {
            Component::Gpu => "gpu",
            Component::Cpu => "cpu",
            Component::Dram => "dram",
        }
    }
}

/// Energy by component (`Component::ALL`'s order), mJ.
pub type Parts = [u64; 3];

/// A pod's time: the GPU-seconds it held (a GPU's interval, split evenly among the pods that hold it) and the
/// CPU-seconds its control group used. What a rate card prices, beside the energy.
pub type Time = [f64; 2];

/// Where the node's idle energy goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IdlePolicy {
    /// Nowhere: it stays the node's idle, a series of its own.
    #[default]
    None,
    /// Evenly among the pods on the node in the interval.
    Even,
    /// Among the pods by their part of the component's busy energy in the interval.
    Weighted,
}

impl IdlePolicy {
    /// The policy's name as flags, env and config say it.
    pub fn name(self) -> &'static str {
        match self {
            IdlePolicy::None => "none",
            IdlePolicy::Even => "even",
            IdlePolicy::Weighted => "weighted",
        }
    }

    /// The policy of that name.
    pub fn parse(s: &str) -> Option<IdlePolicy> {
        [IdlePolicy::None, IdlePolicy::Even, IdlePolicy::Weighted].into_iter().find(|p| p.name() == s)
    }
}

/// One GPU over the interval.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GpuSpent {
    /// Its energy, mJ.
    pub energy: u64,
    /// The pods the kubelet gave it to, by UID.
    pub holders: Vec<String>,
    /// Its energy as the collector split it among groups over the interval, mJ.
    pub groups: Vec<(Group, u64)>,
}

/// What the node's counters and control groups said over one interval.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spent {
    /// Each GPU's.
    pub gpus: Vec<GpuSpent>,
    /// The CPU packages' energy, mJ (0 without RAPL).
    pub package: u64,
    /// DRAM's, mJ.
    pub dram: u64,
    /// Each pod's CPU time, s, by UID: every pod whose control group exists.
    pub pod_cpu_s: BTreeMap<String, f64>,
    /// The node's busy CPU time, s, when known (`/proc/stat`).
    pub node_busy_s: Option<f64>,
    /// The CPU time the node could have given: online CPUs times the interval, s.
    pub capacity_s: f64,
    /// The interval's length, s: what a GPU held over it was held for.
    pub seconds: f64,
}

/// The interval's energy, charged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Charged {
    /// Each pod's, by UID.
    pub pods: BTreeMap<String, Parts>,
    /// What no one used.
    pub idle: Parts,
    /// What the node's own services used.
    pub system: Parts,
    /// Each pod's time, by UID: every pod `pods` names.
    pub time: BTreeMap<String, Time>,
}

impl Charged {
    /// Everything charged, by component: the node's energy.
    #[cfg(test)]
    fn total(&self) -> Parts {
        let mut t = [0u64; 3];
        for p in self.pods.values().chain([&self.idle, &self.system]) {
            for (t, x) in t.iter_mut().zip(p) {
                *t = t.saturating_add(*x);
            }
        }
        t
    }
}

/// Charges `spent` to the pods, their idle part by `policy`: for every component, the pods, idle and system
/// add up to the node's energy exactly.
pub fn charge(spent: &Spent, policy: IdlePolicy) -> Charged {
    let mut out = Charged::default();
    for uid in pods_named(spent) {
        out.pods.entry(uid).or_default();
    }
    for g in &spent.gpus {
        gpu(&mut out, g);
    }
    cpu(&mut out, spent);
    idle_to_pods(&mut out, policy);
    out.time = time(spent, out.pods.keys());
    out
}

/// Each pod's GPU-seconds held and CPU-seconds used over the interval: a GPU's interval split evenly among its
/// holders, as its energy is when no split says better.
fn time<'a>(spent: &Spent, pods: impl Iterator<Item = &'a String>) -> BTreeMap<String, Time> {
    let clean = |s: f64| if s.is_finite() && s > 0.0 { s } else { 0.0 };
    let mut out: BTreeMap<String, Time> = pods.map(|u| (u.clone(), [0.0, 0.0])).collect();
    for g in spent.gpus.iter().filter(|g| !g.holders.is_empty()) {
        let each = clean(spent.seconds) / g.holders.len() as f64;
        for h in &g.holders {
            out.entry(h.clone()).or_default()[0] += each;
        }
    }
    for (uid, s) in &spent.pod_cpu_s {
        out.entry(uid.clone()).or_default()[1] += clean(*s);
    }
    out
}

fn add(p: &mut Parts, c: Component, mj: u64) {
    p[c as usize] = p[c as usize].saturating_add(mj);
}

/// One GPU's energy: whole to its one holder, else by the collector's split, the rest to its holders or idle.
fn gpu(out: &mut Charged, g: &GpuSpent) {
    if let [one] = g.holders.as_slice() {
        add(out.pods.entry(one.clone()).or_default(), Component::Gpu, g.energy);
        return;
    }
    // The split's parts, never more than the device's energy (the collector's totals and splits round apart).
    let said: u64 = g.groups.iter().map(|(_, mj)| *mj).fold(0, u64::saturating_add);
    let parts: Vec<u64> = if said > g.energy {
        let w: Vec<f64> = g.groups.iter().map(|(_, mj)| *mj as f64).collect();
        apportion(g.energy, &w).unwrap_or_else(|| vec![0; g.groups.len()])
    } else {
        g.groups.iter().map(|(_, mj)| *mj).collect()
    };
    // A process exa could not place (gone, or in a PID namespace it does not see) was busy for someone: its part goes
    // to the GPU's holders, or to system when it has none.
    let mut unplaced = 0u64;
    for ((group, _), mj) in g.groups.iter().zip(&parts) {
        match group.kind {
            GroupKind::Pod => add(out.pods.entry(group.id.clone()).or_default(), Component::Gpu, *mj),
            GroupKind::Idle => add(&mut out.idle, Component::Gpu, *mj),
            GroupKind::Unknown => unplaced = unplaced.saturating_add(*mj),
            _ => add(&mut out.system, Component::Gpu, *mj),
        }
    }
    let rest = g.energy - parts.iter().fold(0, |a: u64, b| a.saturating_add(*b)).min(g.energy);
    for (mj, nobody) in [(unplaced, &mut out.system), (rest, &mut out.idle)] {
        match apportion(mj, &vec![1.0; g.holders.len()]) {
            Some(each) => {
                for (h, part) in g.holders.iter().zip(each) {
                    add(out.pods.entry(h.clone()).or_default(), Component::Gpu, part);
                }
            }
            None => add(nobody, Component::Gpu, mj),
        }
    }
}

/// The packages' and DRAM's energy by CPU time: each pod's, the node's busy time beyond them (system), and the
/// capacity left (idle).
fn cpu(out: &mut Charged, spent: &Spent) {
    let clean = |s: f64| if s.is_finite() && s > 0.0 { s } else { 0.0 };
    let pods: Vec<(&String, f64)> = spent.pod_cpu_s.iter().map(|(u, s)| (u, clean(*s))).collect();
    let in_pods: f64 = pods.iter().map(|(_, s)| s).sum();
    let busy = spent.node_busy_s.map_or(in_pods, clean).max(in_pods);
    let system = busy - in_pods;
    let idle = (clean(spent.capacity_s) - busy).max(0.0);
    let mut weights: Vec<f64> = pods.iter().map(|(_, s)| *s).collect();
    weights.extend([system, idle]);
    for (c, total) in [(Component::Cpu, spent.package), (Component::Dram, spent.dram)] {
        let Some(parts) = apportion(total, &weights) else {
            add(&mut out.idle, c, total);
            continue;
        };
        for ((uid, _), mj) in pods.iter().zip(&parts) {
            add(out.pods.entry((*uid).clone()).or_default(), c, *mj);
        }
        add(&mut out.system, c, parts[pods.len()]);
        add(&mut out.idle, c, parts[pods.len() + 1]);
    }
}

/// The idle part of each component to the pods, by the policy; with no pod (or, weighted, none busy) it stays.
fn idle_to_pods(out: &mut Charged, policy: IdlePolicy) {
    if policy == IdlePolicy::None || out.pods.is_empty() {
        return;
    }
    let uids: Vec<String> = out.pods.keys().cloned().collect();
    for c in Component::ALL {
        let i = c as usize;
        let weights: Vec<f64> = match policy {
            IdlePolicy::Even => vec![1.0; uids.len()],
            _ => uids.iter().map(|u| out.pods[u][i] as f64).collect(),
        };
        if let Some(parts) = apportion(out.idle[i], &weights) {
            for (u, mj) in uids.iter().zip(parts) {
                add(out.pods.get_mut(u).expect("a pod listed"), c, mj);
            }
            out.idle[i] = 0;
        }
    }
}

/// The pods an interval names: whose control group exists, who hold a GPU, or whose processes were busy on one.
pub fn pods_named(spent: &Spent) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = spent.pod_cpu_s.keys().cloned().collect();
    for g in &spent.gpus {
        out.extend(g.holders.iter().cloned());
        out.extend(g.groups.iter().filter(|(g, _)| g.kind == GroupKind::Pod).map(|(g, _)| g.id.clone()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(uid: &str) -> Group {
        Group { kind: GroupKind::Pod, id: uid.into() }
    }

    /// A small, seeded generator (xorshift): the same cases on every run.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n.max(1)
        }

        fn seconds(&mut self) -> f64 {
            match self.below(8) {
                0 => 0.0,
                1 => f64::NAN,
                2 => -1.0,
                _ => self.below(1_000_000) as f64 / 1000.0,
            }
        }

        fn energy(&mut self) -> u64 {
            match self.below(6) {
                0 => 0,
                1 => u64::MAX / 4,
                _ => self.below(10_000_000_000),
            }
        }
    }

    fn case(g: &mut Gen) -> Spent {
        let uids: Vec<String> = (0..g.below(6)).map(|i| format!("uid-{i}")).collect();
        let pick = |g: &mut Gen| uids.get(g.below(uids.len() as u64 + 1) as usize).cloned();
        let mut gpus = Vec::new();
        for _ in 0..g.below(4) {
            let holders: Vec<String> = (0..g.below(3)).filter_map(|_| pick(g)).collect();
            let mut groups = Vec::new();
            for _ in 0..g.below(4) {
                let who = match (g.below(4), pick(g)) {
                    (0, Some(u)) | (1, Some(u)) => pod(&u),
                    (2, _) => Group::of(GroupKind::Idle),
                    _ => Group { kind: GroupKind::Container, id: "c0ffee".into() },
                };
                groups.push((who, g.energy()));
            }
            gpus.push(GpuSpent { energy: g.energy(), holders, groups });
        }
        let mut pod_cpu_s = BTreeMap::new();
        for u in &uids {
            if g.below(4) > 0 {
                pod_cpu_s.insert(u.clone(), g.seconds());
            }
        }
        let node_busy_s = (g.below(3) > 0).then(|| g.seconds());
        Spent { gpus, package: g.energy(), dram: g.energy(), pod_cpu_s, node_busy_s, capacity_s: g.seconds(), seconds: g.seconds() }
    }

    /// Pods, idle and system add up to the node, component by component, under every policy and whatever the
    /// counters said (nothing, NaN seconds, a quarter of u64's range); `even` gives idle in parts at most 1 mJ
    /// apart; no pod gets more than the node had.
    #[test]
    fn the_pods_idle_and_system_add_up_to_the_node_whatever_it_said() {
        let mut g = Gen(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let spent = case(&mut g);
            let node = [spent.gpus.iter().map(|x| x.energy).fold(0, u64::saturating_add), spent.package, spent.dram];
            let none = charge(&spent, IdlePolicy::None);
            for policy in [IdlePolicy::None, IdlePolicy::Even, IdlePolicy::Weighted] {
                let c = charge(&spent, policy);
                assert_eq!(c.total(), node, "{policy:?} {spent:?}");
                assert_eq!(c.system, none.system, "the policy moves only idle energy");
                assert!(c.pods.values().all(|p| (0..3).all(|i| p[i] <= node[i])));
                if policy == IdlePolicy::Even && !c.pods.is_empty() {
                    // Exact below 2^53 mJ (2.5 GWh in an interval); beyond, floats spread their error evenly.
                    for i in (0..3).filter(|&i| none.idle[i] < 1 << 53) {
                        let got: Vec<u64> = c.pods.iter().map(|(u, p)| p[i] - none.pods[u][i]).collect();
                        let (lo, hi) = (got.iter().min().unwrap(), got.iter().max().unwrap());
                        assert!(hi - lo <= 1, "even: {got:?}");
                    }
                }
            }
            assert_eq!(charge(&spent, IdlePolicy::None).pods.keys().cloned().collect::<BTreeSet<_>>(), pods_named(&spent));
            // Time: each held GPU's interval once among its holders; each pod's CPU time as its control group said.
            let c = charge(&spent, IdlePolicy::None);
            assert_eq!(c.time.keys().collect::<Vec<_>>(), c.pods.keys().collect::<Vec<_>>());
            let interval = if spent.seconds.is_finite() && spent.seconds > 0.0 { spent.seconds } else { 0.0 };
            let held = spent.gpus.iter().filter(|g| !g.holders.is_empty()).count() as f64 * interval;
            let gpu_s: f64 = c.time.values().map(|t| t[0]).sum();
            assert!((gpu_s - held).abs() <= 1e-9 * held.max(1.0), "{gpu_s} against {held}");
            for (uid, t) in &c.time {
                let used = spent.pod_cpu_s.get(uid).copied().filter(|s| s.is_finite() && *s > 0.0).unwrap_or(0.0);
                assert_eq!(t[1], used);
            }
        }
    }

    /// A process exa could not place was busy for someone: the GPU's holders, evenly, or system without one.
    #[test]
    fn an_unplaced_processs_part_goes_to_the_gpus_holders() {
        let unknown = vec![(Group::of(GroupKind::Unknown), 1_000), (Group::of(GroupKind::Idle), 500)];
        let held = GpuSpent { energy: 2_000, holders: vec!["a".into(), "b".into()], groups: unknown.clone() };
        let c = charge(&Spent { gpus: vec![held], ..Spent::default() }, IdlePolicy::None);
        // 1 J unplaced and the 0.5 J no split covered to the two holders; the device's idle part to idle.
        assert_eq!((c.pods["a"][0], c.pods["b"][0], c.idle[0], c.system[0]), (750, 750, 500, 0));
        let nobodys = GpuSpent { energy: 2_000, holders: vec![], groups: unknown };
        let c = charge(&Spent { gpus: vec![nobodys], ..Spent::default() }, IdlePolicy::None);
        assert_eq!((c.idle[0], c.system[0]), (1_000, 1_000));
    }

    /// Counters at the edge of u64 still add up, and nothing overflows.
    #[test]
    fn a_gpu_at_the_edge_of_the_counters_range_still_adds_up() {
        let g = GpuSpent { energy: u64::MAX, holders: vec![], groups: vec![(pod("a"), u64::MAX), (Group::of(GroupKind::Idle), u64::MAX)] };
        let c = charge(&Spent { gpus: vec![g], ..Spent::default() }, IdlePolicy::Even);
        assert_eq!(c.total(), [u64::MAX, 0, 0]);
    }

    /// Hand-worked: a GPU held by one pod is its whole; a shared one by its split; the CPU by CPU time.
    #[test]
    fn a_node_charged_by_hand() {
        let spent = Spent {
            gpus: vec![
                GpuSpent { energy: 3_000_000, holders: vec!["a".into()], groups: vec![(pod("b"), 1_000_000)] },
                GpuSpent {
                    energy: 2_000_000,
                    holders: vec![],
                    groups: vec![(pod("b"), 900_000), (Group::of(GroupKind::Idle), 600_000), (Group::of(GroupKind::Host), 100_000)],
                },
            ],
            package: 100_000,
            dram: 10_000,
            pod_cpu_s: BTreeMap::from([("a".into(), 2.0), ("b".into(), 6.0)]),
            node_busy_s: Some(10.0),
            capacity_s: 20.0,
            seconds: 10.0,
        };
        let c = charge(&spent, IdlePolicy::None);
        assert_eq!(c.pods["a"], [3_000_000, 10_000, 1_000]);
        // a held the first GPU the whole 10 s; b held none, and used 6 CPU-seconds.
        assert_eq!((c.time["a"], c.time["b"]), ([10.0, 2.0], [0.0, 6.0]));
        assert_eq!(c.pods["b"], [900_000, 30_000, 3_000]);
        // 400 J of the shared GPU's no split covered, held by nobody: idle.
        assert_eq!(c.idle, [1_000_000, 50_000, 5_000]);
        assert_eq!(c.system, [100_000, 10_000, 1_000]);
        let w = charge(&spent, IdlePolicy::Weighted);
        assert_eq!(w.pods["a"][0] + w.pods["b"][0], 4_900_000);
        assert_eq!(w.pods["a"][1], 10_000 + 12_500);
        assert_eq!(w.idle, [0, 0, 0]);
    }
}
