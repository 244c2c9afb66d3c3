//! Budgets: a team's kWh, kgCO2e and dollars over a calendar period, kept in the ledger beside the records.
//!
//! A budget names a scope (an account, a user, a model, a namespace, a pod's tag, or everything), a period (a UTC
//! day, ISO week, month or quarter), a limit in at least one unit, and the lines, in percent of a limit, past which
//! it warns. What a scope used is what `report` counts for it over the period: one rule, so a budget and a report
//! never disagree.

use serde::{Deserialize, Serialize};

use super::tags::clean;

/// The largest limit a budget takes, in any unit: far past any fleet's, and exact as a float.
pub const MOST: f64 = 1e15;

/// The smallest: a millionth of a thousandth (a use's percent of it stays a number).
pub const LEAST: f64 = 1e-9;

/// Who a budget covers: the records a report groups under one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every record.
    All,
    /// A scheduler account (bank): `account=ml`.
    Account(String),
    /// A scheduler user: `user=ann`.
    User(String),
    /// A model (what `record` names): `model=llama-70b`.
    Model(String),
    /// A Kubernetes namespace: `namespace=nlp`.
    Namespace(String),
    /// A pod's label or annotation and its value: `label:team=nlp` (the key as `report --by` takes it).
    Tag(&'static str, String),
}

impl Scope {
    /// Parses `all`, `account=A`, `user=U`, `model=M`, `namespace=N`, `label:KEY=V` or `annotation:KEY=V`.
    pub fn parse(s: &str) -> Result<Scope, String> {
        if s == "all" {
            return Ok(Scope::All);
        }
        let Some((kind, value)) = s.split_once('=') else {
            return Err(format!(
                "'{}' is not a scope: all, account=A, user=U, model=M, namespace=N, label:KEY=V or annotation:KEY=V",
                clean(s)
            ));
        };
        if value.is_empty() || value.len() > 256 || value.chars().any(char::is_control) {
            return Err(format!("the scope's value '{}' must be 1 to 256 characters, none of them control characters", clean(value)));
        }
        let v = value.to_string();
        match kind {
            "account" => Ok(Scope::Account(v)),
            "user" => Ok(Scope::User(v)),
            "model" => Ok(Scope::Model(v)),
            "namespace" => Ok(Scope::Namespace(v)),
            k if k.starts_with("label:") || k.starts_with("annotation:") => Ok(Scope::Tag(super::tags::key(k)?, v)),
            other => Err(format!(
                "'{}' is not a kind of scope (account, user, model, namespace, label:KEY, annotation:KEY, or all)",
                clean(other)
            )),
        }
    }

    /// The kind of scope, as `--scope` names it before the `=`.
    pub fn kind(&self) -> &str {
        match self {
            Scope::All => "all",
            Scope::Account(_) => "account",
            Scope::User(_) => "user",
            Scope::Model(_) => "model",
            Scope::Namespace(_) => "namespace",
            Scope::Tag(k, _) => k,
        }
    }

    /// The value a report's group must have to be this scope (none for `all`).
    pub fn value(&self) -> Option<&str> {
        match self {
            Scope::All => None,
            Scope::Account(v) | Scope::User(v) | Scope::Model(v) | Scope::Namespace(v) | Scope::Tag(_, v) => Some(v),
        }
    }
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.value() {
            None => f.write_str("all"),
            Some(v) => write!(f, "{}={v}", self.kind()),
        }
    }
}

impl Serialize for Scope {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Scope {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Scope, D::Error> {
        Scope::parse(&String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// The calendar period a budget's limits cover, in UTC; a new one begins with a fresh allowance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Period {
    /// A UTC day.
    Day,
    /// An ISO week, from Monday 00:00 UTC.
    Week,
    /// A calendar month.
    Month,
    /// A calendar quarter (January, April, July, October).
    Quarter,
}

impl Period {
    /// Its name, as `--period` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Period::Day => "day",
            Period::Week => "week",
            Period::Month => "month",
            Period::Quarter => "quarter",
        }
    }
}

/// A unit a budget limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Energy, kWh (the carbon records').
    Kwh,
    /// Operational emissions, kgCO2e.
    Kgco2e,
    /// Cost, USD.
    Usd,
}

impl Unit {
    /// Every unit, in the order shown.
    pub const ALL: [Unit; 3] = [Unit::Kwh, Unit::Kgco2e, Unit::Usd];

    /// How it is written after a number.
    pub fn label(self) -> &'static str {
        match self {
            Unit::Kwh => "kWh",
            Unit::Kgco2e => "kgCO2e",
            Unit::Usd => "USD",
        }
    }
}

/// A budget as it is kept: its scope, period, limits and warn lines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// Whose work it covers.
    pub scope: Scope,
    /// The period each allowance covers.
    pub period: Period,
    /// The most energy a period, kWh.
    #[serde(default)]
    pub kwh: Option<f64>,
    /// The most operational CO2e a period, kg.
    #[serde(default)]
    pub kgco2e: Option<f64>,
    /// The most cost a period, USD.
    #[serde(default)]
    pub usd: Option<f64>,
    /// The lines, percent of a limit, past which it warns; ascending, each above 0 and below 100.
    pub warn: Vec<f64>,
}

impl Budget {
    /// The limit in `unit`, where it has one.
    pub fn limit(&self, unit: Unit) -> Option<f64> {
        match unit {
            Unit::Kwh => self.kwh,
            Unit::Kgco2e => self.kgco2e,
            Unit::Usd => self.usd,
        }
    }

    /// Checks what a budget must be: a limit in one unit at least, each above 0 and at most `MOST`, and warn lines
    /// ascending between 0 and 100. The message names the flag at fault.
    pub fn check(&self) -> Result<(), String> {
        if Unit::ALL.iter().all(|u| self.limit(*u).is_none()) {
            return Err("a budget needs a limit: --kwh, --kgco2e or --usd".into());
        }
        for (unit, flag) in [(Unit::Kwh, "--kwh"), (Unit::Kgco2e, "--kgco2e"), (Unit::Usd, "--usd")] {
            if let Some(v) = self.limit(unit) {
                if !(v.is_finite() && (LEAST..=MOST).contains(&v)) {
                    let shown = if v.abs() >= 1e6 || (v != 0.0 && v.abs() < 1e-6) { format!("{v:e}") } else { v.to_string() };
                    return Err(format!("{flag} {shown} is not a limit: a number from {LEAST:e} to {MOST:e}"));
                }
            }
        }
        if self.warn.len() > 8 {
            return Err("--warn takes at most 8 lines".into());
        }
        for w in &self.warn {
            if !(w.is_finite() && *w > 0.0 && *w < 100.0) {
                return Err(format!("--warn {w} is not a line: a percent above 0 and below 100 (100 % is the limit itself)"));
            }
        }
        if self.warn.windows(2).any(|w| w[0] >= w[1]) {
            return Err("--warn's lines must ascend, each once (80,95)".into());
        }
        Ok(())
    }
}

/// Checks a budget's name: 1 to 64 letters, digits, `.`, `_` or `-`, begun with a letter or digit.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = (1..=64).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(format!("'{}' is not a budget name: 1 to 64 letters, digits, '.', '_' or '-', begun with a letter or digit", clean(name)))
    }
}

/// One change to the budgets, as the ledger keeps it (never changed, never removed): a budget set (or set again), or
/// removed.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The budget's name.
    pub name: String,
    /// When, seconds since the epoch.
    pub at: i64,
    /// Who: the user and host that made it.
    pub by: String,
    /// The budget as set, in JSON; none where it was removed.
    pub budget: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_read_back_as_written() {
        for s in ["all", "account=ml", "user=ann", "model=llama", "namespace=nlp", "label:team=nlp", "annotation:cost-center=cc 4"] {
            assert_eq!(Scope::parse(s).unwrap().to_string(), s);
        }
        for bad in ["account", "acct=ml", "account=", "label:te'am=x", "user=a\u{1b}b"] {
            assert!(Scope::parse(bad).is_err(), "{bad}");
        }
    }
}
