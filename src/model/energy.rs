//! Energy as types: joules and kilowatt-hours, converted in this one place. Each is serialised as the plain
//! number it holds, so a JSON answer reads as it did when they were bare numbers; rounding stays where figures
//! are shown.

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
