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
//! reload) is not trusted: that device falls back to the trapezoid.

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

/// The counter's increase and the seconds it spans, when the device has a counter that only went up.
fn counter(samples: &[Sample], index: u32) -> Option<(f64, f64)> {
    let read: Vec<(f64, f64)> = samples.iter().filter_map(|s| Some((s.read_t.unwrap_or(s.t), find(s, index)?.energy_counter_j?))).collect();
    let (first, last) = (read.first()?, read.last()?);
    let rising = read.windows(2).all(|w| w[1].1 >= w[0].1);
    (read.len() >= 2 && rising && last.0 > first.0).then_some((last.1 - first.1, last.0 - first.0))
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

fn device(samples: &[Sample], index: u32) -> DeviceSummary {
    let first = samples.iter().position(|s| find(s, index).is_some()).unwrap_or(0);
    let seen: Vec<&Device> = samples.iter().filter_map(|s| find(s, index)).collect();
    let (method, (joules, covered)) = match counter(samples, index) {
        Some(c) => ("counter", c),
        None => ("trapezoid", trapezoids(samples, index)),
    };
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
