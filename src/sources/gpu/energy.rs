//! Energy from power samples: a pure function, tested on its own.
//!
//! Between two consecutive good samples of a device, the energy is the mean
//! of the two power readings times the time between them (the trapezoid
//! rule), in watt-seconds, over 3,600,000 for kWh. A failed sample breaks
//! the chain: the gap is not integrated. A device with no power reading has
//! no energy, never zero.
//!
//! A device with an energy counter (NVML's total energy on Volta and newer,
//! AMD's accumulator) is measured by the counter instead: its increase from
//! the first reading to the last is the energy, exact whatever the interval
//! and across failed readings. A counter that goes backwards (a driver
//! reload) is not trusted: that device falls back to the trapezoid. A
//! counter need not be read at every reading (`measure` reads it on the
//! first, the last and every 30 s): readings outside its first and last
//! read add their trapezoid (`counter+trapezoid`).

use super::Device;
use crate::model::energy::{Joules, Kwh};
pub use crate::model::gpu::{DeviceSummary, Throttled};
use crate::num::tidy;

/// One attempt to read the GPUs, `t` seconds after the start.
#[derive(Debug, Clone)]
pub struct Sample {
    /// Seconds since the start.
    pub t: f64,
    /// Every device's reading, or why there was none.
    pub result: Result<Vec<Device>, String>,
    /// When a counter in it was read (the middle of the call; `t` is the call's start, and may be
    /// moved to the end of the run): a counter's increase is over the time it was really read across.
    pub read_t: Option<f64>,
}

/// Joules between two power readings `dt` seconds apart: their mean times the time.
pub fn trapezoid(watts_a: f64, watts_b: f64, dt: f64) -> f64 {
    (watts_a + watts_b) / 2.0 * dt
}

/// Joules in a kilowatt-hour.
pub use crate::model::energy::J_PER_KWH;

/// Summarises every device seen in `samples`.
pub fn summarize(samples: &[Sample]) -> Vec<DeviceSummary> {
    let mut indices: Vec<u32> = samples.iter().filter_map(|s| s.result.as_ref().ok()).flatten().map(|d| d.index).collect();
    indices.sort_unstable();
    indices.dedup();
    indices.into_iter().map(|i| device(samples, i)).collect()
}

fn find(s: &Sample, index: u32) -> Option<&Device> {
    s.result.as_ref().ok()?.iter().find(|d| d.index == index)
}

/// A counter's increase: joules, the seconds it spans, and the first and last samples it was read in.
struct Increase {
    joules: f64,
    seconds: f64,
    first: usize,
    last: usize,
}

/// The counter's increase over the readings that read it, when the device has a counter that only went up.
fn counter(samples: &[Sample], index: u32) -> Option<Increase> {
    let read: Vec<(usize, f64, f64)> =
        samples.iter().enumerate().filter_map(|(i, s)| Some((i, s.read_t.unwrap_or(s.t), find(s, index)?.energy_counter_j?.0))).collect();
    let (first, last) = (read.first()?, read.last()?);
    let rising = read.windows(2).all(|w| w[1].2 >= w[0].2);
    (read.len() >= 2 && rising && last.1 > first.1).then_some(Increase {
        joules: last.2 - first.2,
        seconds: last.1 - first.1,
        first: first.0,
        last: last.0,
    })
}

/// The most a GPU can draw, W, when its power limit is unknown: none made draws 2 kW (the largest are
/// rated 1.4 kW).
pub const GPU_CEILING_W: f64 = 2000.0;

/// The most a device's power can be, W, and why: `GPU_CEILING_W`, whatever it is. Its power limit is no
/// ceiling: a driver may report the one an administrator set below what the board draws for moments,
/// or none; what is refused here is a reading no GPU makes, not a busy one.
fn ceiling() -> (f64, String) {
    (GPU_CEILING_W, format!("{GPU_CEILING_W} W, more than any GPU draws"))
}

/// The trapezoid rule over consecutive good readings: joules and the seconds covered. A power reading
/// outside 0 to `most` W is no reading.
fn trapezoids(samples: &[Sample], index: u32, most: f64) -> (f64, f64) {
    let mut joules = 0.0;
    let mut covered = 0.0;
    let good = |w: Option<f64>| w.filter(|w| (0.0..=most).contains(w));
    for pair in samples.windows(2) {
        let (Some(a), Some(b)) = (find(&pair[0], index), find(&pair[1], index)) else { continue };
        if let (Some(pa), Some(pb)) = (good(a.power_w), good(b.power_w)) {
            let dt = pair[1].t - pair[0].t;
            if dt > 0.0 {
                joules += trapezoid(pa, pb, dt);
                covered += dt;
            }
        }
    }
    (joules, covered)
}

/// A device's energy, the seconds it covers, and how it was found. With a counter, the counter
/// covers its first read to its last; readings before or after those (a counter read that failed,
/// or a last reading without one) add their trapezoid, and the method says both.
///
/// Every figure is held to what the device can draw (`ceiling`): a counter that rose faster, or never
/// moved over a second or more, is not trusted (the trapezoid stands in, and `refused` says why); energy
/// that is still beyond it, or none at all over a second, is refused whole: never kept as measured.
fn energy(samples: &[Sample], index: u32, (most, why): (f64, String)) -> Energy {
    let mut refused = None;
    let plausible = |j: f64, s: f64| j.is_finite() && j <= most * s && !(j == 0.0 && s >= 1.0);
    match counter(samples, index) {
        Some(c) if plausible(c.joules, c.seconds) => {
            let (head_j, head_s) = trapezoids(&samples[..=c.first], index, most);
            let (tail_j, tail_s) = trapezoids(&samples[c.last..], index, most);
            let method = if head_s + tail_s > 0.0 { "counter+trapezoid" } else { "counter" };
            return Energy { method, joules: c.joules + head_j + tail_j, covered: c.seconds + head_s + tail_s, refused };
        }
        Some(c) => {
            refused = Some(format!(
                "its energy counter rose {} J in {:.1} s, beyond what it can draw ({why}) or not at all: the power readings' trapezoid stands in",
                tidy(c.joules),
                c.seconds
            ));
        }
        None => {}
    }
    let (joules, covered) = trapezoids(samples, index, most);
    let beyond = samples.iter().filter_map(|s| find(s, index)?.power_w).filter(|w| !(0.0..=most).contains(w)).count();
    if beyond > 0 {
        let said = format!("{beyond} power readings beyond what it can draw ({why}) were not used");
        refused = Some(refused.map_or(said.clone(), |r| format!("{r}; {said}")));
    }
    if covered > 0.0 && !plausible(joules, covered) {
        let said =
            format!("{} J in {covered:.1} s is no reading of a device that draws at most {why}: its energy is not measured", tidy(joules));
        return Energy {
            method: "trapezoid",
            joules: 0.0,
            covered: 0.0,
            refused: Some(refused.map_or(said.clone(), |r| format!("{r}; {said}"))),
        };
    }
    Energy { method: "trapezoid", joules, covered, refused }
}

/// A device's energy, the seconds it covers, how it was found, and what was not trusted.
struct Energy {
    method: &'static str,
    joules: f64,
    covered: f64,
    refused: Option<String>,
}

/// The devices' energy bucket by bucket (`bucket_s` seconds, on the clock of the run), as `(from, to, joules)`
/// in seconds since the start: the shape of the run's energy over time, which a history of the grid's
/// intensity is weighed by (the totals are `summarize`'s). A device with an energy counter read at both ends
/// of a bucket is the counter's increase, two readings whatever the bucket holds; else each pair of
/// readings in it adds its counter increase or its trapezoid. A week read every second is ten thousand
/// buckets of a minute, and with counters costs ten thousand readings, not six hundred thousand.
///
/// The buckets are the clock's (`offset_s`: the run's start past the last whole bucket of the clock, its Unix
/// time modulo `bucket_s`), not counted from the run's start: a grid's data change on the clock's minutes
/// and hours, and a bucket across such a change would weigh the energy on both sides alike.
pub fn profile(samples: &[Sample], bucket_s: f64, offset_s: f64) -> Vec<(f64, f64, f64)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < samples.len() {
        let edge = (((samples[i].t + offset_s) / bucket_s).floor() + 1.0) * bucket_s - offset_s;
        // A walk, not a binary search: the readings are in order, and a walk reads them in order.
        let mut j = i + 1;
        while j + 1 < samples.len() && samples[j].t < edge {
            j += 1;
        }
        let joules = span_joules(&samples[i..=j]);
        if joules > 0.0 && joules.is_finite() && samples[j].t > samples[i].t {
            out.push((samples[i].t, samples[j].t, joules));
        }
        i = j;
    }
    out
}

/// The energy from the first reading of `s` to its last: by the counters where both ends have one that rose,
/// the other devices by their pairs of readings, in one pass.
fn span_joules(s: &[Sample]) -> f64 {
    let (Ok(a), Ok(b)) = (&s[0].result, &s[s.len() - 1].result) else { return pairs(s, |_| true) };
    let (mut total, span) = (0.0, s[s.len() - 1].t - s[0].t);
    let mut rest: Vec<u32> = Vec::new();
    for (k, da) in a.iter().enumerate() {
        match (da.energy_counter_j.map(|j| j.0), same(b, k, da.index).and_then(|d| d.energy_counter_j).map(|j| j.0)) {
            // Held to what a GPU can draw, as the totals are (`energy`): a weight is never a reading no GPU makes.
            (Some(x), Some(y)) if y >= x && y - x <= GPU_CEILING_W * span => total += y - x,
            _ => rest.push(da.index),
        }
    }
    if rest.is_empty() {
        total
    } else {
        total + pairs(s, |i| rest.contains(&i))
    }
}

/// The device `index` in `list`, looked for first where it was in the reading before (`at`).
fn same(list: &[Device], at: usize, index: u32) -> Option<&Device> {
    list.get(at).filter(|d| d.index == index).or_else(|| list.iter().find(|d| d.index == index))
}

/// The energy of the devices `want` takes over consecutive pairs of readings: a counter's increase, else the
/// trapezoid of their powers.
fn pairs(s: &[Sample], want: impl Fn(u32) -> bool) -> f64 {
    let mut joules = 0.0;
    for w in s.windows(2) {
        let (Ok(a), Ok(b), dt) = (&w[0].result, &w[1].result, w[1].t - w[0].t) else { continue };
        if dt <= 0.0 {
            continue;
        }
        for (k, da) in a.iter().enumerate().filter(|(_, d)| want(d.index)) {
            let Some(db) = same(b, k, da.index) else { continue };
            joules += between(da, db, dt).0;
        }
    }
    joules
}

/// One device's energy between two of its readings `dt` seconds apart, held to what a GPU can draw
/// (`GPU_CEILING_W`): its counter's rise where the device could have made it, else the trapezoid of its two
/// powers where both are readings a GPU makes, else nothing; and whether a figure was set aside as beyond the
/// device (a counter that rose faster, a power out of range). The one rule the totals' profile and the exporter's
/// collector both count by.
pub fn between(a: &Device, b: &Device, dt: f64) -> (f64, bool) {
    let good = |w: Option<f64>| w.filter(|w| (0.0..=GPU_CEILING_W).contains(w));
    let rise = a.energy_counter_j.zip(b.energy_counter_j).map(|(x, y)| (y - x).0).filter(|r| *r >= 0.0);
    let beyond = rise.is_some_and(|r| r > GPU_CEILING_W * dt) || [a.power_w, b.power_w].iter().any(|w| w.is_some() && good(*w).is_none());
    let joules = match (rise, good(a.power_w), good(b.power_w)) {
        (Some(r), _, _) if r <= GPU_CEILING_W * dt => r,
        (_, Some(pa), Some(pb)) => trapezoid(pa, pb, dt),
        _ => 0.0,
    };
    (joules, beyond)
}

fn device(samples: &[Sample], index: u32) -> DeviceSummary {
    let first = samples.iter().position(|s| find(s, index).is_some()).unwrap_or(0);
    let seen: Vec<&Device> = samples.iter().filter_map(|s| find(s, index)).collect();
    let most = ceiling();
    let top = most.0;
    let Energy { method, joules, covered, refused } = energy(samples, index, most);
    let mut powers: Vec<f64> = seen.iter().filter_map(|d| d.power_w).filter(|w| (0.0..=top).contains(w)).collect();
    powers.sort_by(f64::total_cmp);
    let p95 = (!powers.is_empty()).then(|| powers[((powers.len() as f64 * 0.95).ceil() as usize).clamp(1, powers.len()) - 1]);
    let has_energy = covered > 0.0;
    DeviceSummary {
        index,
        name: seen.first().map(|d| d.name.clone()).unwrap_or_default(),
        uuid: seen.iter().find_map(|d| d.uuid.clone()),
        // Figures carry no float noise: 15 significant digits, as every figure exa prints.
        energy_kwh: has_energy.then(|| Kwh(tidy(Joules(joules).kwh().0))),
        energy_method: has_energy.then_some(method),
        refused,
        shared_with: None,
        share: None,
        covered_s: tidy(covered),
        mean_power_w: has_energy.then(|| tidy(joules / covered)),
        p95_power_w: p95,
        peak_power_w: powers.last().copied(),
        peak_temperature_c: seen.iter().filter_map(|d| d.temperature_c).reduce(f64::max),
        samples: seen.len(),
        missed: samples.len() - first - seen.len(),
        throttled: Throttled {
            thermal: seen.iter().any(|d| d.throttle_thermal == Some(true)),
            power: seen.iter().any(|d| d.throttle_power == Some(true)),
            hw_slowdown: seen.iter().any(|d| d.throttle_hw_slowdown == Some(true)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t: f64, watts: &[Option<f64>]) -> Sample {
        let devices = watts
            .iter()
            .enumerate()
            .map(|(i, w)| Device { index: i as u32, name: "gpu".into(), power_w: *w, ..Device::default() })
            .collect();
        Sample { t, result: Ok(devices), read_t: None }
    }

    #[test]
    fn the_profiles_buckets_are_the_clocks_minutes() {
        // A 16 s run started 8 s before a minute of the clock, at 100 W, then 300 W after the minute: the
        // minute splits it, so an intensity that changes on the minute weighs each side's own energy.
        let run: Vec<Sample> = [(0.0, 100.0), (4.0, 100.0), (8.0, 100.0), (8.0, 300.0), (12.0, 300.0), (16.0, 300.0)]
            .iter()
            .map(|&(t, w)| at(t, &[Some(w)]))
            .collect();
        let p = profile(&run, 60.0, 52.0);
        assert_eq!(p, vec![(0.0, 8.0, 800.0), (8.0, 16.0, 2400.0)]);
        // Increase from the run's start, the same run is one bucket: the minute's change lost.
        assert_eq!(profile(&run, 60.0, 0.0).len(), 1);
    }

    #[test]
    fn a_profile_never_weighs_a_reading_no_gpu_makes() {
        // 100 W read every 20 s over two minutes; one counter read jumps by 18 TJ in the second minute. The
        // weights stay the trapezoids' 6 kJ a minute, not all of the run's weight on the jump's minute.
        let run: Vec<Sample> = (0..=6)
            .map(|k| {
                let mut s = at(f64::from(k) * 20.0, &[Some(100.0)]);
                let counter = if k == 6 { 1.8e13 } else { f64::from(k) * 2000.0 };
                if let Ok(d) = &mut s.result {
                    d[0].energy_counter_j = Some(Joules(counter));
                }
                s
            })
            .collect();
        let p = profile(&run, 60.0, 0.0);
        assert_eq!(p.iter().map(|b| b.2).collect::<Vec<_>>(), vec![6000.0, 6000.0], "{p:?}");
        // A 5 kW reading is no reading either.
        let run = [at(0.0, &[Some(100.0)]), at(30.0, &[Some(5000.0)]), at(60.0, &[Some(100.0)])];
        assert!(profile(&run, 60.0, 0.0).is_empty());
    }

    #[test]
    fn the_profile_is_the_energy_a_bucket_at_a_time_by_counters_or_trapezoids() {
        // Two devices at 100 W and 300 W read every 20 s for 150 s: minute buckets 0-60, 60-120, 120-150.
        let power: Vec<Sample> =
            (0..=7).map(|k| at(f64::from(k) * 20.0, &[Some(100.0), Some(300.0)])).chain([at(150.0, &[Some(100.0), Some(300.0)])]).collect();
        let p = profile(&power, 60.0, 0.0);
        assert_eq!(p, vec![(0.0, 60.0, 24_000.0), (60.0, 120.0, 24_000.0), (120.0, 150.0, 12_000.0)]);
        // With counters, the same energy from the bucket's ends; a failed reading inside changes nothing.
        let mut counted: Vec<Sample> = power.clone();
        for s in &mut counted {
            let t = s.t;
            for d in s.result.as_mut().unwrap() {
                d.energy_counter_j = Some(Joules(1e6 + t * if d.index == 0 { 100.0 } else { 300.0 }));
                d.power_w = None;
            }
        }
        counted[4].result = Err("timed out".into());
        assert_eq!(profile(&counted, 60.0, 0.0), p);
        // A counter that went back (the driver reloaded at 20 s) is not trusted for its bucket: the pairs that rose count.
        for s in &mut counted[1..] {
            let t = s.t;
            if let Ok(d) = s.result.as_mut() {
                d[0].energy_counter_j = Some(Joules((t - 20.0) * 100.0));
            }
        }
        let reset = profile(&counted, 60.0, 0.0);
        assert_eq!(reset[0].2, 24_000.0 - 2_000.0, "0→20 s of device 0 is lost with the reset, nothing else");
    }

    fn failed(t: f64) -> Sample {
        Sample { t, result: Err("boom".into()), read_t: None }
    }

    #[test]
    fn three_hundred_watts_for_an_hour_is_0_3_kwh() {
        let samples: Vec<Sample> = (0..=720).map(|i| at(f64::from(i) * 5.0, &[Some(300.0)])).collect();
        let d = &summarize(&samples)[0];
        assert!((d.energy_kwh.unwrap().0 - 0.3).abs() < 1e-12, "{:?}", d.energy_kwh);
        assert_eq!(d.mean_power_w, Some(300.0));
        assert_eq!(d.covered_s, 3600.0);
    }

    #[test]
    fn trapezoid_between_two_readings() {
        let d = &summarize(&[at(0.0, &[Some(100.0)]), at(10.0, &[Some(300.0)])])[0];
        assert!((d.energy_kwh.unwrap().joules().0 - 2000.0).abs() < 1e-9);
        assert_eq!((d.peak_power_w, d.p95_power_w), (Some(300.0), Some(300.0)));
    }

    #[test]
    fn a_gap_is_not_integrated() {
        let s = [at(0.0, &[Some(100.0)]), at(5.0, &[Some(100.0)]), failed(10.0), at(15.0, &[Some(100.0)]), at(20.0, &[Some(100.0)])];
        let d = &summarize(&s)[0];
        assert_eq!(d.covered_s, 10.0);
        assert!((d.energy_kwh.unwrap().joules().0 - 1000.0).abs() < 1e-9);
        assert_eq!((d.samples, d.missed), (4, 1));
    }

    #[test]
    fn a_device_without_power_has_no_energy() {
        let s = [at(0.0, &[Some(100.0), None]), at(5.0, &[Some(100.0), None])];
        let all = summarize(&s);
        assert!(all[0].energy_kwh.is_some());
        assert_eq!(all[1].energy_kwh, None);
        assert_eq!(all[1].mean_power_w, None);
    }

    fn counted(t: f64, watts: f64, joules: Option<f64>) -> Sample {
        let d = Device { index: 0, name: "gpu".into(), power_w: Some(watts), energy_counter_j: joules.map(Joules), ..Device::default() };
        Sample { t, result: Ok(vec![d]), read_t: None }
    }

    #[test]
    fn a_counter_gives_the_energy_whatever_the_power_readings_say() {
        // Power read 100 W at both ends, but the device drew 250 W on average between: the counter knows.
        let s = [counted(0.0, 100.0, Some(5_000.0)), failed(5.0), counted(10.0, 100.0, Some(7_500.0))];
        let d = &summarize(&s)[0];
        assert_eq!(d.energy_method, Some("counter"));
        assert!((d.energy_kwh.unwrap().joules().0 - 2_500.0).abs() < 1e-9);
        assert_eq!(d.covered_s, 10.0);
        assert_eq!(d.mean_power_w, Some(250.0));
    }

    #[test]
    fn readings_between_counter_reads_change_nothing() {
        // The counter read at 0 s and 30 s only; the power readings between say 100 W, the counter 200 W.
        let mut s = vec![counted(0.0, 100.0, Some(1_000.0))];
        s.extend((1..30).map(|t| counted(f64::from(t), 100.0, None)));
        s.push(counted(30.0, 100.0, Some(7_000.0)));
        let d = &summarize(&s)[0];
        assert_eq!(d.energy_method, Some("counter"));
        assert!((d.energy_kwh.unwrap().joules().0 - 6_000.0).abs() < 1e-9);
        assert_eq!(d.covered_s, 30.0);
    }

    #[test]
    fn readings_after_the_last_counter_read_add_their_trapezoid() {
        // The counter read at 0 s and 10 s; the last reading, at 14 s, could not read it.
        let s = [counted(0.0, 100.0, Some(0.0)), counted(10.0, 100.0, Some(3_000.0)), counted(14.0, 300.0, None)];
        let d = &summarize(&s)[0];
        assert_eq!(d.energy_method, Some("counter+trapezoid"));
        assert!((d.energy_kwh.unwrap().joules().0 - (3_000.0 + 800.0)).abs() < 1e-9);
        assert_eq!(d.covered_s, 14.0);
    }

    /// A real `measure --trace` of an H200 under a matmul load, read by NVML at 1 s.
    fn h200_trace(counter_every: Option<f64>) -> Vec<Sample> {
        let text = include_str!("../../../tests/fixtures/gpu/h200-device-check/measure-nvml-1s-matmul.trace.jsonl");
        let mut last_read = f64::NEG_INFINITY;
        let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let n = lines.len();
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let t = l["t"].as_f64().unwrap();
                let d = &l["devices"][0];
                let read = counter_every.is_none_or(|every| i == 0 || i == n - 1 || t - last_read >= every);
                if read {
                    last_read = t;
                }
                counted(t, d["power_w"].as_f64().unwrap(), d["energy_counter_j"].as_f64().filter(|_| read))
            })
            .collect()
    }

    #[test]
    fn on_a_real_h200_the_counter_read_every_30_s_gives_what_it_gives_read_every_second() {
        let every = &summarize(&h200_trace(None))[0];
        let sparse = &summarize(&h200_trace(Some(30.0)))[0];
        assert_eq!(every.energy_method, Some("counter"));
        assert_eq!(sparse.energy_method, Some("counter"));
        assert_eq!(every.energy_kwh, sparse.energy_kwh);
        assert!(every.samples >= 50);
    }

    #[test]
    fn on_a_real_h200_the_trapezoid_at_1_s_is_within_one_percent_of_the_counter() {
        let counter = summarize(&h200_trace(None))[0].energy_kwh.unwrap();
        let no_counter: Vec<Sample> = h200_trace(Some(f64::INFINITY))
            .into_iter()
            .map(|mut s| {
                if let Ok(d) = s.result.as_mut() {
                    d[0].energy_counter_j = None;
                }
                s
            })
            .collect();
        let trapezoid = &summarize(&no_counter)[0];
        assert_eq!(trapezoid.energy_method, Some("trapezoid"));
        let ratio = counter.0 / trapezoid.energy_kwh.unwrap().0;
        assert!((ratio - 1.0).abs() < 0.01, "counter / trapezoid = {ratio}");
    }

    #[test]
    fn a_counter_that_goes_backwards_is_not_trusted() {
        let s = [counted(0.0, 100.0, Some(9_000.0)), counted(10.0, 100.0, Some(1_000.0))];
        let d = &summarize(&s)[0];
        assert_eq!(d.energy_method, Some("trapezoid"));
        assert!((d.energy_kwh.unwrap().joules().0 - 1_000.0).abs() < 1e-9);
    }

    #[test]
    fn a_single_sample_has_no_energy() {
        assert_eq!(summarize(&[at(0.0, &[Some(100.0)])])[0].energy_kwh, None);
    }
}
