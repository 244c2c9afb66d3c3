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
pub const J_PER_KWH: f64 = 3_600_000.0;

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
struct Counted {
    joules: f64,
    seconds: f64,
    first: usize,
    last: usize,
}

/// The counter's increase over the readings that read it, when the device has a counter that only went up.
fn counter(samples: &[Sample], index: u32) -> Option<Counted> {
    let read: Vec<(usize, f64, f64)> =
        samples.iter().enumerate().filter_map(|(i, s)| Some((i, s.read_t.unwrap_or(s.t), find(s, index)?.energy_counter_j?))).collect();
    let (first, last) = (read.first()?, read.last()?);
    let rising = read.windows(2).all(|w| w[1].2 >= w[0].2);
    (read.len() >= 2 && rising && last.1 > first.1).then_some(Counted {
        joules: last.2 - first.2,
        seconds: last.1 - first.1,
        first: first.0,
        last: last.0,
    })
}

/// The trapezoid rule over consecutive good readings: joules and the seconds covered.
fn trapezoids(samples: &[Sample], index: u32) -> (f64, f64) {
    let mut joules = 0.0;
    let mut covered = 0.0;
    for pair in samples.windows(2) {
        let (Some(a), Some(b)) = (find(&pair[0], index), find(&pair[1], index)) else { continue };
        if let (Some(pa), Some(pb)) = (a.power_w, b.power_w) {
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
fn energy(samples: &[Sample], index: u32) -> (&'static str, f64, f64) {
    let Some(c) = counter(samples, index) else {
        let (joules, covered) = trapezoids(samples, index);
        return ("trapezoid", joules, covered);
    };
    let (head_j, head_s) = trapezoids(&samples[..=c.first], index);
    let (tail_j, tail_s) = trapezoids(&samples[c.last..], index);
    let method = if head_s + tail_s > 0.0 { "counter+trapezoid" } else { "counter" };
    (method, c.joules + head_j + tail_j, c.seconds + head_s + tail_s)
}

fn device(samples: &[Sample], index: u32) -> DeviceSummary {
    let first = samples.iter().position(|s| find(s, index).is_some()).unwrap_or(0);
    let seen: Vec<&Device> = samples.iter().filter_map(|s| find(s, index)).collect();
    let (method, joules, covered) = energy(samples, index);
    let mut powers: Vec<f64> = seen.iter().filter_map(|d| d.power_w).collect();
    powers.sort_by(f64::total_cmp);
    let p95 = (!powers.is_empty()).then(|| powers[((powers.len() as f64 * 0.95).ceil() as usize).clamp(1, powers.len()) - 1]);
    let has_energy = covered > 0.0;
    DeviceSummary {
        index,
        name: seen.first().map(|d| d.name.clone()).unwrap_or_default(),
        uuid: seen.iter().find_map(|d| d.uuid.clone()),
        // Figures carry no float noise: 15 significant digits, as every figure exa prints.
        energy_kwh: has_energy.then(|| tidy(joules / J_PER_KWH)),
        energy_method: has_energy.then_some(method),
        shared_with: None,
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

    fn failed(t: f64) -> Sample {
        Sample { t, result: Err("boom".into()), read_t: None }
    }

    #[test]
    fn three_hundred_watts_for_an_hour_is_0_3_kwh() {
        let samples: Vec<Sample> = (0..=720).map(|i| at(f64::from(i) * 5.0, &[Some(300.0)])).collect();
        let d = &summarize(&samples)[0];
        assert!((d.energy_kwh.unwrap() - 0.3).abs() < 1e-12, "{:?}", d.energy_kwh);
        assert_eq!(d.mean_power_w, Some(300.0));
        assert_eq!(d.covered_s, 3600.0);
    }

    #[test]
    fn trapezoid_between_two_readings() {
        let d = &summarize(&[at(0.0, &[Some(100.0)]), at(10.0, &[Some(300.0)])])[0];
        assert!((d.energy_kwh.unwrap() * J_PER_KWH - 2000.0).abs() < 1e-9);
        assert_eq!((d.peak_power_w, d.p95_power_w), (Some(300.0), Some(300.0)));
    }

    #[test]
    fn a_gap_is_not_integrated() {
        let s = [at(0.0, &[Some(100.0)]), at(5.0, &[Some(100.0)]), failed(10.0), at(15.0, &[Some(100.0)]), at(20.0, &[Some(100.0)])];
        let d = &summarize(&s)[0];
        assert_eq!(d.covered_s, 10.0);
        assert!((d.energy_kwh.unwrap() * J_PER_KWH - 1000.0).abs() < 1e-9);
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
        let d = Device { index: 0, name: "gpu".into(), power_w: Some(watts), energy_counter_j: joules, ..Device::default() };
        Sample { t, result: Ok(vec![d]), read_t: None }
    }

    #[test]
    fn a_counter_gives_the_energy_whatever_the_power_readings_say() {
        // Power read 100 W at both ends, but the device drew 250 W on average between: the counter knows.
        let s = [counted(0.0, 100.0, Some(5_000.0)), failed(5.0), counted(10.0, 100.0, Some(7_500.0))];
        let d = &summarize(&s)[0];
        assert_eq!(d.energy_method, Some("counter"));
        assert!((d.energy_kwh.unwrap() * J_PER_KWH - 2_500.0).abs() < 1e-9);
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
        assert!((d.energy_kwh.unwrap() * J_PER_KWH - 6_000.0).abs() < 1e-9);
        assert_eq!(d.covered_s, 30.0);
    }

    #[test]
    fn readings_after_the_last_counter_read_add_their_trapezoid() {
        // The counter read at 0 s and 10 s; the last reading, at 14 s, could not read it.
        let s = [counted(0.0, 100.0, Some(0.0)), counted(10.0, 100.0, Some(3_000.0)), counted(14.0, 300.0, None)];
        let d = &summarize(&s)[0];
        assert_eq!(d.energy_method, Some("counter+trapezoid"));
        assert!((d.energy_kwh.unwrap() * J_PER_KWH - (3_000.0 + 800.0)).abs() < 1e-9);
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
        let ratio = counter / trapezoid.energy_kwh.unwrap();
        assert!((ratio - 1.0).abs() < 0.01, "counter / trapezoid = {ratio}");
    }

    #[test]
    fn a_counter_that_goes_backwards_is_not_trusted() {
        let s = [counted(0.0, 100.0, Some(9_000.0)), counted(10.0, 100.0, Some(1_000.0))];
        let d = &summarize(&s)[0];
        assert_eq!(d.energy_method, Some("trapezoid"));
        assert!((d.energy_kwh.unwrap() * J_PER_KWH - 1_000.0).abs() < 1e-9);
    }

    #[test]
    fn a_single_sample_has_no_energy() {
        assert_eq!(summarize(&[at(0.0, &[Some(100.0)])])[0].energy_kwh, None);
    }
}
