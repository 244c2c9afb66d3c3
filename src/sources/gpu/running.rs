//! Each device's energy so far, kept reading by reading, for windows read while a run goes (`measure --serve`).
//!
//! The rule is the run's own (`energy`): a device's energy counter, where it has one, is the energy from its
//! first read to its last, exact whatever was read between and across failed readings, with the trapezoid
//! of its power before the first and after the last counter read; a counter that went back, rose faster
//! than a GPU can draw over its span (`GPU_CEILING_W`), or never moved over a second is not trusted, and the
//! trapezoid of every reading stands in, as in the run's report. A failed reading breaks the trapezoid's
//! chain, never the counter's.

use std::collections::BTreeMap;

use super::energy::{trapezoid, GPU_CEILING_W};
use super::Device;

/// One device's account.
#[derive(Debug, Clone, Default)]
struct Account {
    /// The device's name.
    name: String,
    /// The trapezoid over every pair of good readings.
    all: f64,
    /// The trapezoid before the first counter read.
    head: f64,
    /// The trapezoid since the last counter read.
    tail: f64,
    /// The first and the last counter read: when, and the value, J.
    first: Option<(f64, f64)>,
    last: Option<(f64, f64)>,
    /// The counter went back at some read.
    went_back: bool,
    /// The last good power reading: when, and its watts.
    power: Option<(f64, f64)>,
}

impl Account {
    /// Joules so far: the counter's where it is to be trusted, else the trapezoid's.
    fn joules(&self) -> f64 {
        match (self.first, self.last) {
            (Some((t0, c0)), Some((t1, c1))) if !self.went_back && t1 > t0 => {
                let (j, s) = (c1 - c0, t1 - t0);
                let plausible = j.is_finite() && j <= GPU_CEILING_W * s && !(j == 0.0 && s >= 1.0);
                if plausible {
                    j + self.head + self.tail
                } else {
                    self.all
                }
            }
            _ => self.all,
        }
    }
}

/// Every device's energy since the first reading.
#[derive(Debug, Clone, Default)]
pub struct Running {
    accounts: BTreeMap<u32, Account>,
}

impl Running {
    /// Adds a good reading taken `t` seconds after the start.
    pub fn add(&mut self, t: f64, devices: &[Device]) {
        // A device missing from this reading breaks its own chain, as a failed reading breaks every device's.
        for (index, a) in &mut self.accounts {
            if !devices.iter().any(|d| d.index == *index) {
                a.power = None;
            }
        }
        for d in devices {
            let a = self.accounts.entry(d.index).or_default();
            if a.name.is_empty() {
                a.name.clone_from(&d.name);
            }
            let watts = d.power_w.filter(|w| (0.0..=GPU_CEILING_W).contains(w));
            if let (Some((t0, w0)), Some(w)) = (a.power, watts) {
                let j = trapezoid(w0, w, t - t0);
                a.all += j;
                if a.first.is_none() {
                    a.head += j;
                }
                a.tail += j;
            }
            a.power = watts.map(|w| (t, w));
            if let Some(c) = d.energy_counter_j.map(|c| c.0) {
                a.went_back |= a.last.is_some_and(|(_, was)| c < was);
                a.first.get_or_insert((t, c));
                a.last = Some((t, c));
                a.tail = 0.0;
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
        self.accounts.iter().map(|(i, a)| (*i, a.joules())).collect()
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
    fn the_counter_from_its_first_read_to_its_last_with_the_trapezoid_outside_them() {
        let mut r = Running::default();
        r.add(0.0, &dev(Some(100.0), None));
        r.add(1.0, &dev(Some(100.0), Some(1000.0)));
        assert_eq!(so_far(&r), 100.0, "before the counter's first read: the trapezoid");
        r.add(2.0, &dev(Some(300.0), None));
        assert_eq!(so_far(&r), 300.0, "one counter read: the trapezoid on both sides of it");
        r.add(3.0, &dev(Some(300.0), Some(1450.0)));
        assert_eq!(so_far(&r), 550.0, "the head's 100 J and the counter's 450 J, not the trapezoid's 500");
        r.gap();
        r.add(6.0, &dev(Some(300.0), Some(2350.0)));
        assert_eq!(so_far(&r), 1450.0, "a counter spans a failed reading");
        r.add(6.001, &dev(Some(300.0), Some(2450.0)));
        assert_eq!(so_far(&r), 1550.0, "a step is judged over the counter's whole span, not the milliseconds since its last read");
    }

    #[test]
    fn a_counter_beyond_a_gpu_that_went_back_or_never_moved_gives_way_to_the_trapezoid() {
        let mut r = Running::default();
        r.add(0.0, &dev(Some(100.0), Some(0.0)));
        r.add(1.0, &dev(Some(100.0), Some(1e9)));
        assert_eq!(so_far(&r), 100.0);
        let mut back = Running::default();
        back.add(0.0, &dev(Some(100.0), Some(500.0)));
        back.add(1.0, &dev(Some(100.0), Some(400.0)));
        back.add(2.0, &dev(Some(100.0), Some(900.0)));
        assert_eq!(so_far(&back), 200.0, "a counter that went back is not trusted");
        let mut stuck = Running::default();
        stuck.add(0.0, &dev(Some(100.0), Some(7.0)));
        stuck.add(2.0, &dev(Some(100.0), Some(7.0)));
        assert_eq!(so_far(&stuck), 200.0, "a counter that never moved in 2 s counts nothing");
        let mut p = Running::default();
        p.add(0.0, &dev(Some(50.0), None));
        p.add(2.0, &dev(Some(150.0), None));
        p.gap();
        p.add(10.0, &dev(Some(150.0), None));
        p.add(11.0, &dev(Some(150.0), None));
        assert_eq!(so_far(&p), 350.0, "the gap after a failed reading is not integrated");
        let mut lost = Running::default();
        lost.add(0.0, &dev(Some(100.0), None));
        lost.add(1.0, &[]);
        lost.add(5.0, &dev(Some(100.0), None));
        lost.add(6.0, &dev(Some(100.0), None));
        assert_eq!(so_far(&lost), 100.0, "a reading the device is missing from breaks its chain too");
    }
}
