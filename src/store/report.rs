//! Totals over stored records, grouped by model, run, provider or day.
//!
//! A group with no carbon records has no energy or carbon: `None`, shown as
//! "not measured", never 0. Uncertainty bands add linearly (low = Σ co2e ×
//! (1 − u), high = Σ co2e × (1 + u)): a methodology's error is systematic,
//! the same for every run it prices, so the errors do not cancel. One
//! record with an unknown uncertainty makes its group's band unknown.

use std::collections::HashMap;

use rusqlite::types::Value as Sql;
use serde::Serialize;

use super::Store;
use crate::error::Error;
use crate::num::tidy;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum By {
    Model,
    Run,
    Provider,
    Day,
}

impl By {
    fn key(self) -> &'static str {
        match self {
            By::Model => "model",
            By::Run => "COALESCE(run_id, '(record ' || id || ')')",
            By::Provider => "provider",
            By::Day => "date(recorded_at, 'unixepoch')",
        }
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Filter {
    pub model: Option<String>,
    /// Seconds since the epoch, inclusive; ISO 8601 in JSON, like every time exa prints.
    #[serde(serialize_with = "crate::time::serialize_iso_opt")]
    pub since: Option<i64>,
    /// Seconds since the epoch, exclusive; ISO 8601 in JSON.
    #[serde(serialize_with = "crate::time::serialize_iso_opt")]
    pub until: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Counts {
    pub carbon: u64,
    pub cost: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub key: String,
    /// Distinct runs: records sharing a run id are one run; a record without one is its own.
    pub runs: u64,
    pub records: Counts,
    /// Hours of work, each run counted once however many records it has.
    pub gpu_hours: f64,
    pub cpu_hours: f64,
    pub kwh: Option<f64>,
    pub co2e_g: Option<f64>,
    pub co2e_range_g: Option<[f64; 2]>,
    pub cost_usd: Option<f64>,
    pub currency: &'static str,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub by: By,
    pub filter: Filter,
    pub db: String,
    pub groups: Vec<Group>,
    /// Over every record matched; `kwh`, `co2e_g` and `cost_usd` are null when nothing was recorded.
    pub totals: Group,
    pub range_method: &'static str,
}

pub const RANGE_METHOD: &str =
    "linear: low = sum of co2e*(1-u), high = sum of co2e*(1+u); a methodology's error is systematic, so bands add";

fn clause(f: &Filter) -> (String, Vec<Sql>) {
    let mut parts = Vec::new();
    let mut args = Vec::new();
    if let Some(m) = &f.model {
        parts.push("model = ?");
        args.push(Sql::Text(m.clone()));
    }
    if let Some(s) = f.since {
        parts.push("recorded_at >= ?");
        args.push(Sql::Integer(s));
    }
    if let Some(u) = f.until {
        parts.push("recorded_at < ?");
        args.push(Sql::Integer(u));
    }
    let sql = if parts.is_empty() { String::new() } else { format!("WHERE {}", parts.join(" AND ")) };
    (sql, args)
}

/// Sums for one group, in one pass over its records.
#[derive(Default)]
struct Acc {
    carbon: u64,
    cost: u64,
    kwh: Option<f64>,
    co2e: Option<f64>,
    low: f64,
    high: f64,
    unknown_uncertainty: bool,
    cost_usd: Option<f64>,
    /// Hours of each named run: the largest any of its records states.
    runs: HashMap<String, (f64, f64)>,
    /// Records without a run id: each is a run of its own.
    lone_runs: u64,
    lone_hours: (f64, f64),
}

fn add(sum: &mut Option<f64>, v: Option<f64>) {
    if let Some(v) = v {
        *sum = Some(sum.unwrap_or(0.0) + v);
    }
}

struct Row {
    run_id: Option<String>,
    carbon: bool,
    gpu_hours: f64,
    cpu_hours: f64,
    kwh: Option<f64>,
    co2e: Option<f64>,
    uncertainty: Option<f64>,
    cost_usd: Option<f64>,
}

impl Acc {
    fn push(&mut self, r: &Row) {
        if r.carbon {
            self.carbon += 1;
            add(&mut self.kwh, r.kwh);
            add(&mut self.co2e, r.co2e);
            match (r.co2e, r.uncertainty) {
                (Some(c), Some(u)) => {
                    self.low += c * (1.0 - u);
                    self.high += c * (1.0 + u);
                }
                (Some(_), None) => self.unknown_uncertainty = true,
                _ => {}
            }
        } else {
            self.cost += 1;
            add(&mut self.cost_usd, r.cost_usd);
        }
        match &r.run_id {
            Some(id) => {
                let e = self.runs.entry(id.clone()).or_insert((0.0, 0.0));
                *e = (e.0.max(r.gpu_hours), e.1.max(r.cpu_hours));
            }
            None => {
                self.lone_runs += 1;
                self.lone_hours.0 += r.gpu_hours;
                self.lone_hours.1 += r.cpu_hours;
            }
        }
    }

    fn finish(self, key: String) -> Group {
        let (g, c) = self.runs.values().fold(self.lone_hours, |acc, h| (acc.0 + h.0, acc.1 + h.1));
        Group {
            key,
            runs: self.runs.len() as u64 + self.lone_runs,
            records: Counts { carbon: self.carbon, cost: self.cost },
            gpu_hours: tidy(g),
            cpu_hours: tidy(c),
            kwh: self.kwh.map(tidy),
            co2e_g: self.co2e.map(tidy),
            co2e_range_g: self.co2e.filter(|_| !self.unknown_uncertainty).map(|_| [tidy(self.low), tidy(self.high)]),
            cost_usd: self.cost_usd.map(tidy),
            currency: "USD",
        }
    }
}

/// The groups and the totals, in one scan of the matching records.
fn scan(store: &Store, key: &str, f: &Filter) -> Result<(Vec<Group>, Group), Error> {
    let (filter, args) = clause(f);
    let sql =
        format!("SELECT {key}, run_id, domain = 'carbon', gpu_hours, cpu_hours, kwh, co2e_g, uncertainty, cost_usd FROM records {filter}");
    let db = |e: rusqlite::Error| Error::Failed(format!("{}: {e}", store.path.display()));
    let mut stmt = store.conn().prepare(&sql).map_err(db)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(args.iter())).map_err(db)?;
    let mut groups: HashMap<String, Acc> = HashMap::new();
    let mut total = Acc::default();
    while let Some(r) = rows.next().map_err(db)? {
        let k: String = r.get(0).map_err(db)?;
        let row = Row {
            run_id: r.get(1).map_err(db)?,
            carbon: r.get(2).map_err(db)?,
            gpu_hours: r.get(3).map_err(db)?,
            cpu_hours: r.get(4).map_err(db)?,
            kwh: r.get(5).map_err(db)?,
            co2e: r.get(6).map_err(db)?,
            uncertainty: r.get(7).map_err(db)?,
            cost_usd: r.get(8).map_err(db)?,
        };
        total.push(&row);
        groups.entry(k).or_default().push(&row);
    }
    let mut out: Vec<Group> = groups.into_iter().map(|(k, a)| a.finish(k)).collect();
    out.sort_by(|a, b| a.key.cmp(&b.key));
    let total = total.finish("total".into());
    for g in out.iter().chain(std::iter::once(&total)) {
        finite(g)?;
    }
    Ok((out, total))
}

/// A sum that overflowed is an error naming it, never `inf` or a null that reads as "not recorded".
fn finite(g: &Group) -> Result<(), Error> {
    let sums = [
        ("gpu_hours", Some(g.gpu_hours)),
        ("cpu_hours", Some(g.cpu_hours)),
        ("kwh", g.kwh),
        ("co2e_g", g.co2e_g),
        ("the co2e_g range", g.co2e_range_g.map(|r| r[1])),
        ("cost_usd", g.cost_usd),
    ];
    match sums.iter().find(|(_, v)| v.is_some_and(|v| !v.is_finite())) {
        Some((what, _)) => Err(Error::Failed(format!("the sum of {what} over '{}' overflowed (not a finite number)", g.key))),
        None => Ok(()),
    }
}

fn nothing() -> Group {
    Group {
        key: "total".into(),
        runs: 0,
        records: Counts { carbon: 0, cost: 0 },
        gpu_hours: 0.0,
        cpu_hours: 0.0,
        kwh: None,
        co2e_g: None,
        co2e_range_g: None,
        cost_usd: None,
        currency: "USD",
    }
}

pub fn run(store: &Store, by: By, filter: Filter) -> Result<Report, Error> {
    let (groups, totals) = scan(store, by.key(), &filter)?;
    let totals = if groups.is_empty() { nothing() } else { totals };
    Ok(Report { by, filter, db: store.path.display().to_string(), groups, totals, range_method: RANGE_METHOD })
}

/// The report of a store that does not exist yet.
pub fn empty(by: By, filter: Filter, path: &std::path::Path) -> Report {
    Report { by, filter, db: path.display().to_string(), groups: Vec::new(), totals: nothing(), range_method: RANGE_METHOD }
}
