//! Each device's energy so far, kept reading by reading, for windows read while a run goes (`measure --serve`).
//!
//! The rule is the run's own (`energy`): a device's energy counter, where it has one, is the energy between two
//! of its reads, exact whatever was read between and across failed readings; the trapezoid of its power
//! stands in after the last counter read (a reading that did not read the counter), and is replaced by the
//! counter's rise at its next read. A counter that went back or rose faster than a GPU can draw
//! (`GPU_CEILING_W`, the run's own rule) is not trusted: the trapezoid it would have replaced is kept. A failed reading breaks the trapezoid's chain,
//! never the counter's.

use std::collections::BTreeMap;

use super::energy::{trapezoid, GPU_CEILING_W};
use super::Device;

/// One device's account.
#[derive(Debug, Clone, Default)]
struct Account {
    /// The device's name.
    name: String,
    /// Joules up to the last counter read (or the last reading, for a device without a counter).
    counted: f64,
    /// The trapezoid since the last counter read: provisional, until the counter is read again.
    since: f64,
    /// The last counter read: when, and its value, J.
    counter: Option<(f64, f64)>,
    /// The last good power reading: when, and its watts.
    power: Option<(f64, f64)>,
}

/// Every device's energy since the first reading.
#[derive(Debug, Clone, Default)]
pub struct Running {
    accounts: BTreeMap<u32, Account>,
}

impl Running {
    /// Adds a good reading taken `t` seconds after the start.
    pub fn add(&mut self, t: f64, devices: &[Device]) {
        for d in devices {
            let a = self.accounts.entry(d.index).or_default();
            if a.name.is_empty() {
                a.name.clone_from(&d.name);
            }
            let watts = d.power_w.filter(|w| (0.0..=GPU_CEILING_W).contains(w));
            if let (Some((t0, w0)), Some(w)) = (a.power, watts) {
                a.since += trapezoid(w0, w, t - t0);
            }
            a.power = watts.map(|w| (t, w));
            match d.energy_counter_j.map(|c| c.0) {
                Some(c) => {
                    let rise = a.counter.map(|(t0, c0)| (c - c0, t - t0));
                    a.counted += match rise {
                        Some((r, dt)) if r >= 0.0 && r <= GPU_CEILING_W * dt.max(0.0) => r,
                        _ => a.since,
                    };
                    a.since = 0.0;
                    a.counter = Some((t, c));
                }
                None if a.counter.is_none() => {
                    a.counted += a.since;
                    a.since = 0.0;
                }
                None => {}
            }
        }
    }

    /// A reading failed: the trapezoid's chain breaks (the gap is not integrated); a counter still spans it.
    pub fn gap(&mut self) {
        for a in self.accounts.values_mut() {
            a.power = None;
        }
    }

    /// Each device's joules so far, by index.
    pub fn joules(&self) -> Vec<(u32, f64)> {
        self.accounts.iter().map(|(i, a)| (*i, a.counted + a.since)).collect()
    }

    /// The devices' model, when they are all one.
    pub fn one_model(&self) -> Option<String> {
        let mut names = self.accounts.values().map(|a| a.name.as_str());
        let first = names.next()?;
        names.all(|n| n == first).then(|| first.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::energy::Joules;

    fn dev(w: Option<f64>, counter: Option<f64>) -> Vec<Device> {
        vec![Device { index: 0, name: "g".into(), power_w: w, energy_counter_j: counter.map(Joules), ..Device::default() }]
    }

    fn so_far(r: &Running) -> f64 {
        r.joules()[0].1
    }

    #[test]
    fn a_counter_read_replaces_the_trapezoid_since_its_last_read() {
        let mut r = Running::default();
        r.add(0.0, &dev(Some(100.0), Some(1000.0)));
        r.add(1.0, &dev(Some(300.0), None));
        assert_eq!(so_far(&r), 200.0, "the trapezoid stands in until the counter is read again");
        r.add(2.0, &dev(Some(300.0), Some(1450.0)));
        assert_eq!(so_far(&r), 450.0, "the counter's rise, not the trapezoid's 500 J");
        r.gap();
        r.add(5.0, &dev(Some(300.0), Some(2350.0)));
        assert_eq!(so_far(&r), 1350.0, "a counter spans a failed reading");
    }

    #[test]
    fn a_counter_beyond_a_gpu_keeps_the_trapezoid_and_a_device_without_one_is_its_trapezoid() {
        let mut r = Running::default();
        r.add(0.0, &dev(Some(100.0), Some(0.0)));
        r.add(1.0, &dev(Some(100.0), Some(1e9)));
        assert_eq!(so_far(&r), 100.0);
        r.add(2.0, &dev(Some(100.0), Some(1e9 - 5.0)));
        assert_eq!(so_far(&r), 200.0, "a counter that went back is not trusted either");
        let mut p = Running::default();
        p.add(0.0, &dev(Some(50.0), None));
        p.add(2.0, &dev(Some(150.0), None));
        p.gap();
        p.add(10.0, &dev(Some(150.0), None));
        p.add(11.0, &dev(Some(150.0), None));
        assert_eq!(so_far(&p), 350.0, "the gap after a failed reading is not integrated");
    }
}
