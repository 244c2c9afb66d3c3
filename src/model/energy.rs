//! Energy as types: joules and kilowatt-hours, converted in this one place. Each is serialised as the plain
//! number it holds, so a JSON answer reads as it did when they were bare numbers; rounding stays where figures
//! are shown. What a measurement holds is typed end to end: a device's counter and its energy over the run, a
//! shared device's parts, the CPU packages' and DRAM's, the exporters' running totals and a run's push, so the
//! exporters take joules from the joules counted, never back from a rounded kWh.

use serde::{Deserialize, Serialize};

/// Joules in a kilowatt-hour.
pub const J_PER_KWH: f64 = 3_600_000.0;

/// An amount of energy in joules.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Joules(pub f64);

/// An amount of energy in kilowatt-hours.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Kwh(pub f64);

impl Joules {
    /// The same energy in kilowatt-hours.
    pub fn kwh(self) -> Kwh {
        Kwh(self.0 / J_PER_KWH)
    }

    /// The energy in whole millijoules (rounded; none below 0, and at most `u64::MAX`), as a counter keeps it.
    pub fn whole_millijoules(self) -> u64 {
        (self.0 * 1000.0).round().max(0.0) as u64
    }

    /// An energy of whole millijoules.
    pub fn of_millijoules(mj: u64) -> Joules {
        Joules(mj as f64 / 1000.0)
    }

    /// The energy of a flat `watts` drawn for `seconds`.
    pub fn of_power(watts: f64, seconds: f64) -> Joules {
        Joules(watts * seconds)
    }
}

/// As its number, with the precision asked (`{:.6}`): the unit is the caller's to write.
impl std::fmt::Display for Kwh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

/// As its number, with the precision asked: the unit is the caller's to write.
impl std::fmt::Display for Joules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::ops::Add for Kwh {
    type Output = Kwh;
    fn add(self, other: Kwh) -> Kwh {
        Kwh(self.0 + other.0)
    }
}

impl std::ops::Mul<f64> for Kwh {
    type Output = Kwh;
    /// A share of it, or a rate times it.
    fn mul(self, by: f64) -> Kwh {
        Kwh(self.0 * by)
    }
}

impl std::iter::Sum for Kwh {
    fn sum<I: Iterator<Item = Kwh>>(it: I) -> Kwh {
        Kwh(it.map(|k| k.0).sum())
    }
}

impl std::ops::Add for Joules {
    type Output = Joules;
    fn add(self, other: Joules) -> Joules {
        Joules(self.0 + other.0)
    }
}

impl std::ops::Sub for Joules {
    type Output = Joules;
    fn sub(self, other: Joules) -> Joules {
        Joules(self.0 - other.0)
    }
}

impl std::iter::Sum for Joules {
    fn sum<I: Iterator<Item = Joules>>(it: I) -> Joules {
        Joules(it.map(|j| j.0).sum())
    }
}

impl Kwh {
    /// The same energy in joules.
    pub fn joules(self) -> Joules {
        Joules(self.0 * J_PER_KWH)
    }
}

#[cfg(test)]
mod tests {
    use super::{Joules, Kwh};

    #[test]
    fn a_kilowatt_hour_is_3_6_megajoules_both_ways_and_serialises_as_its_number() {
        assert_eq!(Kwh(1.0).joules(), Joules(3.6e6));
        assert_eq!(Joules::of_power(1500.0, 7200.0).kwh(), Kwh(3.0));
        assert_eq!(serde_json::to_string(&Kwh(0.25)).unwrap(), "0.25");
        assert_eq!((Kwh(0.001).joules().whole_millijoules(), Joules(-1.0).whole_millijoules()), (3_600_000, 0));
        assert_eq!(Joules::of_millijoules(3_600_000_000).kwh(), Kwh(1.0));
    }
}
