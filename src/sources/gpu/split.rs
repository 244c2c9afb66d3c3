//! A shared GPU's energy split among the processes on it: a pure function, tested on its own.
//!
//! The device's counter says how much energy it used between two reads (a window); the driver says how busy each
//! process kept it meanwhile (NVML's per-process SM utilisation, sampled at each reading). Each window's energy
//! is split among the processes by their activity in it (SM percent times seconds), in whole millijoules, the
//! last millijoule of a window going where the rounding left it (largest remainder): so the parts add up to the
//! window's energy exactly, and the windows to the device's. A window in which no process was busy is the
//! device idling: its energy is idle energy, and its power the device's idle power, from which the idle part of
//! a busy window is known too (the idle power times its length, at most its energy). Where the device never
//! idled in the run, its idle power is not known and stays inside the busy windows' shares (said).
//!
//! The idle energy is then the policy's (`IdlePolicy`): kept apart (`none`), shared evenly among the processes
//! seen (`even`), or by their activity over the run (`by-activity`, the default: a job that kept the device
//! busy 60 % of the time pays 60 % of its idling).
//!
//! How wrong it can be: activity is not power. Two kernels at the same SM percent can draw different power (a
//! memory-bound kernel less than a tensor-core one), and a split by SM activity charges them alike. The
//! split is made a second time weighing each process's memory activity instead; the difference between the
//! two is the share's stated uncertainty.

/// Who a share is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Party {
    /// The measured job: exa's command and whatever it started.
    Job,
    /// Another process on the device, by pid.
    Other(u32),
}

pub use crate::model::gpu::IdlePolicy;

/// One process's activity in a window: SM and memory percent times seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Busy {
    /// Whose activity.
    pub party: Party,
    /// SM percent times seconds.
    pub sm: f64,
    /// Memory percent times seconds.
    pub mem: f64,
}

/// One window of a device: the counter's increase over it, its length, and the activity in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// The device's energy over it, mJ.
    pub energy_mj: u64,
    /// Its length.
    pub seconds: f64,
    /// Each process's activity in it.
    pub busy: Vec<Busy>,
    /// The device's mean power over it as its power readings say (the counter gives the energy; the readings, where
    /// an idle window says the idle power, what the device drew then, unscaled by the rest of the run).
    pub mean_w: Option<f64>,
}

/// The device's energy over the run, split.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    /// The device's energy: the windows' sum.
    pub total_mj: u64,
    /// Each party's part, idle shared as the policy says; sorted by party.
    pub parts: Vec<(Party, u64)>,
    /// The idle energy no process was charged (all of it with `none`; with the others, only where no process was
    /// seen at all).
    pub idle_mj: u64,
    /// The idle energy the device used, charged or not.
    pub idle_seen_mj: u64,
    /// The device's idle power, W, where it idled for a window in the run.
    pub idle_w: Option<f64>,
    /// The job's part had the split weighed memory activity instead of SM activity.
    pub job_by_memory_mj: u64,
}

impl Split {
    /// A party's part.
    pub fn part(&self, party: Party) -> u64 {
        self.parts.iter().find(|(p, _)| *p == party).map_or(0, |(_, mj)| *mj)
    }

    /// The other processes' parts, together.
    pub fn others_mj(&self) -> u64 {
        self.parts.iter().filter(|(p, _)| *p != Party::Job).map(|(_, mj)| mj).sum()
    }

    /// The relative difference between the job's part by SM and by memory activity: the weight's uncertainty.
    pub fn weight_uncertainty(&self) -> Option<f64> {
        let by_sm = self.part(Party::Job) as f64;
        (by_sm > 0.0).then(|| (by_sm - self.job_by_memory_mj as f64).abs() / by_sm)
    }
}

/// `total` split by `weights` in whole units, the remainders given to the largest fractions first (ties to the
/// first): the parts add up to `total` exactly. No weight (or none above 0): None.
pub fn apportion(total: u64, weights: &[f64]) -> Option<Vec<u64>> {
    let w: Vec<f64> = weights.iter().map(|w| if w.is_finite() && *w > 0.0 { *w } else { 0.0 }).collect();
    // Each weight over the largest: finite weights whose sum would not be stay in proportion.
    let largest = w.iter().copied().fold(0.0, f64::max);
    let w: Vec<f64> = w.iter().map(|x| if largest > 0.0 { x / largest } else { 0.0 }).collect();
    let sum: f64 = w.iter().sum();
    if !(sum > 0.0 && sum.is_finite()) {
        return None;
    }
    let exact: Vec<f64> = w.iter().map(|x| total as f64 * (x / sum)).collect();
    // `as` saturates: a part is never above the total, however the floats rounded.
    let mut parts: Vec<u64> = exact.iter().map(|x| x.floor() as u64).map(|p| p.min(total)).collect();
    let mut given: u128 = parts.iter().map(|p| u128::from(*p)).sum();
    // Floats may round a large total's parts over it: taken back from the largest parts.
    let mut largest: Vec<usize> = (0..parts.len()).collect();
    largest.sort_by(|&a, &b| parts[b].cmp(&parts[a]));
    for &i in &largest {
        if given <= u128::from(total) {
            break;
        }
        let take = u64::try_from(given - u128::from(total)).unwrap_or(u64::MAX).min(parts[i]);
        parts[i] -= take;
        given -= u128::from(take);
    }
    // What flooring left, one unit each to the largest fractions first (ties to the first); a large total's float
    // error, evenly.
    let mut order: Vec<usize> = (0..parts.len()).filter(|&i| w[i] > 0.0).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())).then(a.cmp(&b)));
    let left = total - u64::try_from(given).unwrap_or(total);
    let n = order.len() as u64;
    for (k, &i) in order.iter().enumerate() {
        parts[i] += left / n + u64::from((k as u64) < left % n);
    }
    Some(parts)
}

/// The parties in `windows`, sorted.
fn parties(windows: &[Window]) -> Vec<Party> {
    let mut out: Vec<Party> = windows.iter().flat_map(|w| w.busy.iter().map(|b| b.party)).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Splits a device's windows among the processes busy in them, its idle energy as `policy` says; `by_memory`
/// weighs memory activity rather than SM activity (for the uncertainty). Conservation: the parts and the
/// uncharged idle add up to the windows' energy, to the millijoule.
fn split_by(windows: &[Window], policy: IdlePolicy, by_memory: bool) -> (Vec<(Party, u64)>, u64, u64, Option<f64>) {
    let weight = |b: &Busy| if by_memory { b.mem } else { b.sm };
    let busy = |w: &Window| w.busy.iter().any(|b| weight(b) > 0.0);
    // The device's idle power: the least mean power of a window no process was busy in.
    let idle_w = windows
        .iter()
        .filter(|w| !busy(w) && w.seconds > 0.0)
        .map(|w| w.mean_w.unwrap_or(w.energy_mj as f64 / 1000.0 / w.seconds))
        .min_by(f64::total_cmp);
    let who = parties(windows);
    let mut parts = vec![0u64; who.len()];
    let mut idle = 0u64;
    let mut run_weight = vec![0.0; who.len()];
    for w in windows {
        let weights: Vec<f64> =
            who.iter().map(|p| w.busy.iter().filter(|b| b.party == *p).map(weight).filter(|x| x.is_finite() && *x > 0.0).sum()).collect();
        if !weights.iter().any(|x| *x > 0.0) {
            idle += w.energy_mj;
            continue;
        }
        // The idle part of a busy window: the idle power times its length, at most its energy.
        let idle_part = idle_w.map_or(0, |p| ((p * w.seconds * 1000.0).round().max(0.0) as u64).min(w.energy_mj));
        idle += idle_part;
        if let Some(split) = apportion(w.energy_mj - idle_part, &weights) {
            for (i, mj) in split.into_iter().enumerate() {
                parts[i] += mj;
            }
        }
        for (i, x) in weights.iter().enumerate() {
            run_weight[i] += x;
        }
    }
    let idle_seen = idle;
    let shared = match policy {
        IdlePolicy::None => None,
        IdlePolicy::Even => apportion(idle, &vec![1.0; who.len()]),
        IdlePolicy::ByActivity => apportion(idle, &run_weight),
    };
    if let Some(shared) = shared {
        for (i, mj) in shared.into_iter().enumerate() {
            parts[i] += mj;
        }
        idle = 0;
    }
    (who.into_iter().zip(parts).collect(), idle, idle_seen, idle_w)
}

/// Splits a device's windows among the processes busy in them, its idle energy as `policy` says.
pub fn split(windows: &[Window], policy: IdlePolicy) -> Split {
    let (parts, idle_mj, idle_seen_mj, idle_w) = split_by(windows, policy, false);
    let (by_memory, ..) = split_by(windows, policy, true);
    let job_by_memory_mj = by_memory.iter().find(|(p, _)| *p == Party::Job).map_or(0, |(_, mj)| *mj);
    Split { total_mj: windows.iter().map(|w| w.energy_mj).sum(), parts, idle_mj, idle_seen_mj, idle_w, job_by_memory_mj }
}

/// A process's activity on a device as the source said it at one reading (`at`, the reading's place in the
/// samples): SM and memory percent over the time since the reading before.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Activity {
    /// The reading it was said at: its place in the samples.
    pub at: usize,
    /// The device's index.
    pub device: u32,
    /// Whose activity.
    pub party: Party,
    /// SM percent.
    pub sm: f64,
    /// Memory percent.
    pub mem: f64,
}

/// A device's windows over a run: each interval between two readings of its power, its activity that said at
/// the later reading, and the device's energy over the run (`total_mj`, the counter's where it has one) given
/// out among them by each interval's trapezoid, in whole millijoules that add up to it. Without two power
/// readings in a row, the run is one window.
pub fn windows_of(samples: &[super::energy::Sample], activity: &[Activity], device: u32, total_mj: u64) -> Vec<Window> {
    let power = |k: usize| -> Option<f64> { samples.get(k)?.result.as_ref().ok()?.iter().find(|d| d.index == device)?.power_w };
    let mut spans: Vec<(usize, usize, f64, f64)> = Vec::new();
    let mut last: Option<usize> = None;
    for k in 0..samples.len() {
        if power(k).is_none() {
            // A failed reading, or none of this device's: the interval over it is no window of its own; its time
            // and energy fall in the next one (the activity said then covers it too).
            continue;
        }
        if let (Some(j), Some(a), Some(b)) = (last, last.and_then(power), power(k)) {
            let dt = (samples[k].t - samples[j].t).max(0.0);
            spans.push((j, k, super::energy::trapezoid(a, b, dt).max(0.0), (a + b) / 2.0));
        }
        last = Some(k);
    }
    // The device's activity by the reading it was said at: each window takes its readings' in one look.
    let mut at: Vec<Vec<&Activity>> = vec![Vec::new(); samples.len()];
    for a in activity.iter().filter(|a| a.device == device) {
        if let Some(list) = at.get_mut(a.at) {
            list.push(a);
        }
    }
    // Each process's SM and memory percent said at the readings `from` (not) to `to`.
    let rates_in = |from: usize, to: usize| -> Vec<(Party, f64, f64)> {
        at.get(from + 1..=to).unwrap_or_default().iter().flatten().map(|a| (a.party, a.sm, a.mem)).collect()
    };
    // The device busy at reading `k` by its own utilisation (None: it does not say).
    let busy_at = |k: usize| -> Option<bool> {
        samples.get(k)?.result.as_ref().ok()?.iter().find(|d| d.index == device)?.utilization_pct.map(|u| u > 0.0)
    };
    let weights: Vec<f64> = spans.iter().map(|s| s.2).collect();
    match apportion(total_mj, &weights) {
        Some(energy) => {
            // A window in which the driver said no process is busy while the device says it is (exa read sooner
            // than the driver sampled) goes on as the window before: no new sample is no idling.
            let mut before: Vec<(Party, f64, f64)> = Vec::new();
            spans
                .iter()
                .zip(energy)
                .map(|(&(j, k, _, mean_w), energy_mj)| {
                    let seconds = (samples[k].t - samples[j].t).max(0.0);
                    let mut rates = rates_in(j, k);
                    if rates.is_empty() && busy_at(k) == Some(true) {
                        rates.clone_from(&before);
                    } else {
                        before.clone_from(&rates);
                    }
                    let busy = rates.iter().map(|&(party, sm, mem)| Busy { party, sm: sm * seconds, mem: mem * seconds }).collect();
                    Window { energy_mj, seconds, busy, mean_w: Some(mean_w) }
                })
                .collect()
        }
        None => {
            let seconds = samples.last().map_or(0.0, |s| s.t) - samples.first().map_or(0.0, |s| s.t);
            let seconds = seconds.max(0.0);
            let busy = activity
                .iter()
                .filter(|a| a.device == device)
                .map(|a| Busy { party: a.party, sm: a.sm * seconds.max(1.0), mem: a.mem * seconds.max(1.0) })
                .collect();
            vec![Window { energy_mj: total_mj, seconds, busy, mean_w: None }]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy(party: Party, sm: f64) -> Busy {
        Busy { party, sm, mem: sm / 2.0 }
    }

    /// A small generator, so the property below runs the same cases every time.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self, n: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) % n.max(1)
        }
    }

    /// Whatever the windows (processes joining and leaving, idle windows, windows of no energy, huge counters),
    /// the parts and the idle left add up to the device's energy, to the millijoule, by every policy.
    #[test]
    fn the_parts_add_up_to_the_device_to_the_millijoule() {
        let mut g = Lcg(7);
        for case in 0..2_000 {
            let n = 1 + g.next(12) as usize;
            let windows: Vec<Window> = (0..n)
                .map(|_| {
                    let energy_mj = match g.next(10) {
                        0 => 0,
                        1 => u64::MAX / 64 + g.next(1 << 40),
                        _ => g.next(5_000_000),
                    };
                    let busy = (0..g.next(5))
                        .map(|_| {
                            let party = if g.next(3) == 0 { Party::Job } else { Party::Other(g.next(4) as u32 + 2) };
                            Busy { party, sm: g.next(101) as f64 * (g.next(10) as f64 / 10.0), mem: g.next(101) as f64 }
                        })
                        .collect();
                    Window { energy_mj, seconds: (g.next(3000) as f64) / 1000.0, busy, mean_w: None }
                })
                .collect();
            let total: u64 = windows.iter().map(|w| w.energy_mj).sum();
            for policy in [IdlePolicy::None, IdlePolicy::Even, IdlePolicy::ByActivity] {
                let s = split(&windows, policy);
                let parts: u64 = s.parts.iter().map(|(_, mj)| mj).sum();
                assert_eq!(parts + s.idle_mj, total, "case {case}, {policy:?}: {s:?}");
                assert_eq!(s.total_mj, total);
                assert!(s.idle_mj <= s.idle_seen_mj, "case {case}");
            }
        }
    }

    /// Two processes busy 60 % and 40 % of a device that never idled share each window 60 : 40; one alone in a
    /// window takes it whole; a window with nobody busy is idle, and gives the device's idle power.
    #[test]
    fn shares_follow_activity_and_idle_follows_the_policy() {
        let both =
            Window { energy_mj: 10_000, seconds: 1.0, busy: vec![busy(Party::Job, 60.0), busy(Party::Other(9), 40.0)], mean_w: None };
        let s = split(std::slice::from_ref(&both), IdlePolicy::ByActivity);
        assert_eq!((s.part(Party::Job), s.part(Party::Other(9)), s.idle_mj, s.idle_w), (6_000, 4_000, 0, None));
        // A second of idling at 100 W: 100 W of each busy second is idle, the rest split 60 : 40.
        let idle = Window { energy_mj: 100_000, seconds: 1.0, busy: vec![], mean_w: None };
        let both = Window { energy_mj: 300_000, ..both };
        let windows = [idle, both];
        let none = split(&windows, IdlePolicy::None);
        assert_eq!(none.idle_w, Some(100.0));
        assert_eq!((none.part(Party::Job), none.part(Party::Other(9)), none.idle_mj), (120_000, 80_000, 200_000));
        let even = split(&windows, IdlePolicy::Even);
        assert_eq!((even.part(Party::Job), even.part(Party::Other(9)), even.idle_mj), (220_000, 180_000, 0));
        let by = split(&windows, IdlePolicy::ByActivity);
        assert_eq!((by.part(Party::Job), by.part(Party::Other(9)), by.idle_mj), (240_000, 160_000, 0));
        // Weighed by memory activity instead (half the SM figure for each here): the same shares.
        assert_eq!(by.weight_uncertainty(), Some(0.0));
    }

    /// A window whose reading brought no new activity sample while the device says it is busy goes on as the
    /// window before (the driver samples slower than exa may read); one where the device says it is idle is idle.
    #[test]
    fn a_reading_without_a_new_sample_is_not_idling_while_the_device_is_busy() {
        use crate::sources::gpu::energy::Sample;
        use crate::sources::gpu::Device;
        let reading = |t: f64, util: f64| Sample {
            t,
            result: Ok(vec![Device { index: 0, power_w: Some(200.0), utilization_pct: Some(util), ..Device::default() }]),
            read_t: Some(t),
        };
        // Readings at 0..4 s; the device idle at the first two, busy after; samples said at readings 2 and 4 only.
        let samples = [reading(0.0, 0.0), reading(1.0, 0.0), reading(2.0, 50.0), reading(3.0, 50.0), reading(4.0, 50.0)];
        let said = |at: usize, party: Party, sm: f64| Activity { at, device: 0, party, sm, mem: sm };
        let activity =
            [said(2, Party::Job, 30.0), said(2, Party::Other(7), 20.0), said(4, Party::Job, 30.0), said(4, Party::Other(7), 20.0)];
        let w = windows_of(&samples, &activity, 0, 4_000_000);
        assert_eq!(w.len(), 4);
        assert_eq!(w.iter().map(|w| w.energy_mj).sum::<u64>(), 4_000_000);
        assert!(w[0].busy.is_empty(), "idle by the device's word: {:?}", w[0]);
        // Window 2..3 had no new sample but the device was busy: it carries 2's rates.
        assert_eq!(w[2].busy, w[1].busy);
        assert_eq!(w[1].busy.iter().map(|b| b.sm).sum::<f64>(), 50.0);
        let s = split(&w, IdlePolicy::None);
        assert_eq!(s.idle_w, Some(200.0));
        assert_eq!(s.parts.iter().map(|(_, mj)| mj).sum::<u64>() + s.idle_mj, 4_000_000);
    }

    /// Remainders go to the largest fractions, and the parts always add up.
    #[test]
    fn apportion_gives_every_unit_out() {
        assert_eq!(apportion(10, &[1.0, 1.0, 1.0]), Some(vec![4, 3, 3]));
        assert_eq!(apportion(7, &[0.0, 2.0]), Some(vec![0, 7]));
        assert_eq!(apportion(5, &[0.0, 0.0]), None);
        assert_eq!(apportion(5, &[f64::NAN, 1.0]), Some(vec![0, 5]));
        assert_eq!(apportion(u64::MAX, &[1.0, 3.0]).map(|p| p.iter().map(|x| u128::from(*x)).sum::<u128>()), Some(u128::from(u64::MAX)));
        // Finite weights whose sum is not: still in proportion, still every unit.
        assert_eq!(apportion(9, &[f64::MAX, f64::MAX, f64::MAX / 2.0]), Some(vec![4, 3, 2]));
    }
}
