//! Energy from power samples: a pure function, tested on its own.
//!
//! Between two consecutive good samples of a device, the energy is the mean
//! of the two power readings times the time between them (the trapezoid
//! rule), in watt-seconds, over 3,600,000 for kWh. A failed sample breaks
//! the chain: the gap is not integrated. A device with no power reading has
//! no energy, never zero.

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

fn device(samples: &[Sample], index: u32) -> DeviceSummary {
    let first = samples.iter().position(|s| find(s, index).is_some()).unwrap_or(0);
    let seen: Vec<&Device> = samples.iter().filter_map(|s| find(s, index)).collect();
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
    let mut powers: Vec<f64> = seen.iter().filter_map(|d| d.power_w).collect();
    powers.sort_by(f64::total_cmp);
    let p95 = (!powers.is_empty()).then(|| powers[((powers.len() as f64 * 0.95).ceil() as usize).clamp(1, powers.len()) - 1]);
    let has_energy = covered > 0.0;
    DeviceSummary {
        index,
        name: seen.first().map(|d| d.name.clone()).unwrap_or_default(),
        // Figures carry no float noise: 15 significant digits, as every figure exa prints.
        energy_kwh: has_energy.then(|| tidy(joules / J_PER_KWH)),
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
        Sample { t, result: Ok(devices) }
    }

    fn failed(t: f64) -> Sample {
        Sample { t, result: Err("boom".into()) }
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

    #[test]
    fn a_single_sample_has_no_energy() {
        assert_eq!(summarize(&[at(0.0, &[Some(100.0)])])[0].energy_kwh, None);
    }
}
