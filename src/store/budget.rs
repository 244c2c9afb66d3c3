//! Budgets' use, as `report` counts it: what a scope used in a period, its state against each limit, and the
//! forecasts of when it runs out. Read by `exa budget` and by the exporter's budget gauges alike.

use serde::Serialize;

use crate::error::Error;
use crate::model::budget::{Budget, Change, Period, Scope, Unit};
use crate::num::tidy;
use crate::store::report::{By, Filter, Group};
use crate::store::Ledger;
use crate::time::serialize_iso;

const DAY: i64 = 86_400;

/// A budget in effect, as `list` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Kept {
    pub name: String,
    #[serde(flatten)]
    pub budget: Budget,
    /// When it was last set, and by whom.
    #[serde(serialize_with = "serialize_iso")]
    pub set_at: i64,
    pub set_by: String,
}

/// A pace of use and where it leads.
#[derive(Debug, Clone, Serialize)]
pub struct Pace {
    /// Use a day at this pace.
    pub per_day: f64,
    /// What the period will have used at its end, at this pace.
    pub at_period_end: f64,
    /// When the limit is reached at this pace; null where it is not within the period (or already was).
    #[serde(serialize_with = "crate::time::serialize_iso_opt")]
    pub runs_out: Option<i64>,
}

/// One unit of a budget: its limit, what the period used, and the forecasts.
#[derive(Debug, Clone, Serialize)]
pub struct UnitStatus {
    pub unit: Unit,
    pub limit: f64,
    pub used: f64,
    /// limit - used: below 0 once over.
    pub left: f64,
    /// used / limit, percent.
    pub percent: f64,
    /// ok, warn (past a warn line) or over (past the limit).
    pub state: State,
    /// The highest warn line passed, percent; null below every line.
    pub line: Option<f64>,
    /// The period's own pace: its use so far over its time so far.
    pub period_pace: Option<Pace>,
    /// The pace of the last 7 UTC days and today so far (across a period's start).
    pub last_7_days_pace: Option<Pace>,
}

/// A budget's state: the worst of its units'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Ok,
    Warn,
    Over,
}

/// A budget's use in its current period.
#[derive(Debug, Serialize)]
pub struct BudgetStatus {
    pub name: String,
    pub scope: Scope,
    pub period: Period,
    #[serde(serialize_with = "serialize_iso")]
    pub period_start: i64,
    #[serde(serialize_with = "serialize_iso")]
    pub period_end: i64,
    pub warn: Vec<f64>,
    /// The runs counted in the period.
    pub runs: u64,
    pub state: State,
    pub units: Vec<UnitStatus>,
}

/// How a budget's use is counted, said in every status.
pub const COUNTING: &str = "as `exa report` counts: per run and domain, a measurement over an estimate, parts summed, \
                            repeats once; kWh and kgCO2e from carbon records, USD from cost records";

pub fn parse(name: &str, json: &str) -> Result<Budget, Error> {
    serde_json::from_str(json).map_err(|e| Error::Failed(format!("the ledger's budget '{}' cannot be read: {e}", crate::text::clean(name))))
}

/// The budgets in effect: each name's newest change, where it set one; by name.
pub fn in_effect(changes: &[Change]) -> Result<Vec<Kept>, Error> {
    let mut newest: std::collections::BTreeMap<&str, &Change> = std::collections::BTreeMap::new();
    for c in changes {
        newest.insert(&c.name, c);
    }
    newest
        .into_values()
        .filter_map(|c| c.budget.as_deref().map(|j| (c, j)))
        .map(|(c, j)| Ok(Kept { name: c.name.clone(), budget: parse(&c.name, j)?, set_at: c.at, set_by: c.by.clone() }))
        .collect()
}

/// What a scope used from `since` (to `until`, exclusive, where given), as `report` counts it: kWh, kgCO2e, USD, and
/// its runs.
pub fn used(ledger: &mut dyn Ledger, scope: &Scope, since: i64, until: Option<i64>) -> Result<([f64; 3], u64), Error> {
    let (by, model) = match scope {
        Scope::All => (By::Model, None),
        Scope::Account(_) => (By::Account, None),
        Scope::User(_) => (By::User, None),
        Scope::Model(m) => (By::Model, Some(m.clone())),
        Scope::Namespace(_) => (By::Namespace, None),
        Scope::Tag(k, _) => (By::Tag(k), None),
    };
    // Only the scope's group is read (`Filter::key`): a month of a busy ledger's other accounts is never summed.
    let key = match scope {
        Scope::All | Scope::Model(_) => None,
        _ => scope.value().map(str::to_string),
    };
    let report = ledger.report(by, Filter { model, since: Some(since), until, key, ..Filter::default() })?;
    let group: Option<&Group> = match scope {
        Scope::All | Scope::Model(_) => Some(&report.totals),
        _ => report.groups.iter().find(|g| Some(g.key.as_str()) == scope.value()),
    };
    Ok(group.map_or(([0.0; 3], 0), |g| ([g.kwh.unwrap_or(0.0), tidy(g.co2e_g.unwrap_or(0.0) / 1000.0), g.cost_usd.unwrap_or(0.0)], g.runs)))
}

pub fn index(unit: Unit) -> usize {
    match unit {
        Unit::Kwh => 0,
        Unit::Kgco2e => 1,
        Unit::Usd => 2,
    }
}

/// `value` as a percent of `limit`, a number whatever they are (a use past 1e300 of a tiny limit is the largest).
pub fn percent(value: f64, limit: f64) -> f64 {
    (value / limit * 100.0).min(f64::MAX)
}

/// A unit's state at `value` of `limit`, and the highest warn line passed.
pub fn state_of(value: f64, limit: f64, warn: &[f64]) -> (State, Option<f64>) {
    let percent = percent(value, limit);
    let line = warn.iter().copied().rfind(|w| percent >= *w);
    let state = if value > limit {
        State::Over
    } else if line.is_some() {
        State::Warn
    } else {
        State::Ok
    };
    (state, line)
}

/// Where use at `per_day` from `at` leads: the period's end, and when the limit is reached within the period.
pub fn pace(per_day: f64, used: f64, limit: f64, at: i64, end: i64) -> Pace {
    let left_s = (end - at) as f64;
    let runs_out = (used < limit && per_day > 0.0)
        .then(|| at as f64 + (limit - used) / per_day * DAY as f64)
        .filter(|t| *t < end as f64)
        .map(|t| t.ceil() as i64);
    Pace { per_day: tidy(per_day), at_period_end: tidy(used + per_day * left_s / DAY as f64), runs_out }
}

/// The upper bound a count as of `at` reads to, exclusive: none when `at` is now (every record so far), else `at`.
/// Either way a count from a day's start to midnight reads the report's summary cells, not every record.
pub fn until(at: Option<i64>) -> Option<i64> {
    at
}

pub fn status_of(ledger: &mut dyn Ledger, k: &Kept, at: i64, asked_at: Option<i64>) -> Result<BudgetStatus, Error> {
    let b = &k.budget;
    let (start, end) = bounds(b.period, at);
    let (now, runs) = used(ledger, &b.scope, start, until(asked_at))?;
    // The last 7 whole UTC days and today so far.
    let week_from = at.div_euclid(DAY) * DAY - 7 * DAY;
    let (week, _) = used(ledger, &b.scope, week_from, until(asked_at))?;
    let mut units = Vec::new();
    for unit in Unit::ALL {
        let Some(limit) = b.limit(unit) else { continue };
        let u = now[index(unit)];
        let (state, line) = state_of(u, limit, &b.warn);
        let elapsed = (at - start) as f64;
        units.push(UnitStatus {
            unit,
            limit,
            used: tidy(u),
            left: tidy(limit - u),
            percent: tidy(percent(u, limit)),
            state,
            line,
            period_pace: (elapsed > 0.0).then(|| pace(u / elapsed * DAY as f64, u, limit, at, end)),
            last_7_days_pace: Some(pace(week[index(unit)] / (at - week_from) as f64 * DAY as f64, u, limit, at, end)),
        });
    }
    let state = units.iter().map(|u| u.state).max().unwrap_or(State::Ok);
    Ok(BudgetStatus {
        name: k.name.clone(),
        scope: b.scope.clone(),
        period: b.period,
        period_start: start,
        period_end: end,
        warn: b.warn.clone(),
        runs,
        state,
        units,
    })
}

/// The period holding `at`: its first second and the first second of the next.
pub fn bounds(p: Period, at: i64) -> (i64, i64) {
    match p {
        Period::Day => {
            let d = at.div_euclid(DAY) * DAY;
            (d, d + DAY)
        }
        Period::Week => crate::time::week(at),
        Period::Month => crate::time::month(at),
        Period::Quarter => crate::time::quarter(at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_hold_their_instant() {
        let at = crate::time::parse_utc("2026-11-18T13:00:00Z").unwrap();
        let iso = |t: i64| crate::time::iso8601(t);
        let b = |p: Period| {
            let (s, e) = bounds(p, at);
            (iso(s), iso(e))
        };
        assert_eq!(b(Period::Day), ("2026-11-18T00:00:00Z".into(), "2026-11-19T00:00:00Z".into()));
        // 2026-11-18 is a Wednesday.
        assert_eq!(b(Period::Week), ("2026-11-16T00:00:00Z".into(), "2026-11-23T00:00:00Z".into()));
        assert_eq!(b(Period::Month), ("2026-11-01T00:00:00Z".into(), "2026-12-01T00:00:00Z".into()));
        assert_eq!(b(Period::Quarter), ("2026-10-01T00:00:00Z".into(), "2027-01-01T00:00:00Z".into()));
        let jan = crate::time::parse_utc("2027-01-01T00:00:00Z").unwrap();
        assert_eq!(bounds(Period::Quarter, jan).0, jan);
        // 2027-01-01 is a Friday: its week began on Monday 2026-12-28.
        assert_eq!(bounds(Period::Week, jan), (jan - 4 * 86_400, jan + 3 * 86_400));
    }
}
