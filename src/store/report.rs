//! Totals over stored records, grouped by model, run, provider or day.
//!
//! A group with no carbon records has no energy or carbon: `None`, shown as
//! "not measured", never 0. Uncertainty bands add linearly (low = Σ co2e ×
//! (1 − u), high = Σ co2e × (1 + u)): a methodology's error is systematic,
//! the same for every run it prices, so the errors do not cancel. One
//! record with an unknown uncertainty makes its group's band unknown.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;

use super::rule::{choose, most, simple, Dialect, Row, RunCount, WorkCounts};
use super::Line;
use crate::error::Error;
use crate::num::tidy;
use crate::text::FnvMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Model,
    Run,
    Provider,
    Day,
    User,
    Account,
    Partition,
    /// A pod's Kubernetes namespace.
    Namespace,
    /// A tag's value (`label:team`, `annotation:cost-center`: a key `model::tags::key` checked).
    Tag(&'static str),
}

impl Serialize for By {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl By {
    /// The grouping's name, as `report --by` takes it and JSON says it.
    pub fn name(self) -> &'static str {
        match self {
            By::Model => "model",
            By::Run => "run",
            By::Provider => "provider",
            By::Day => "day",
            By::User => "user",
            By::Account => "account",
            By::Partition => "partition",
            By::Namespace => "namespace",
            By::Tag(key) => key,
        }
    }

    /// Whether the summary cells can answer it: their key is a record's model, day, user, account and partition. A
    /// report by anything else scans the records.
    pub(crate) fn in_cells(self) -> bool {
        !matches!(self, By::Provider | By::Run | By::Namespace | By::Tag(_))
    }

    /// The SQL of a record's group key in `d`, its store's schema having the Kubernetes columns (`k8s`) or not; a
    /// day is the record's `recorded_at` (made a day by the reader). Work without a scheduler's user, account or
    /// partition (recorded by hand, measured), or without a namespace or that tag, is "(none)".
    pub(crate) fn sql(self, d: Dialect, k8s: bool) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            By::Model => "model",
            By::Run => "COALESCE(run_id, '(record ' || id || ')')",
            By::Provider => "provider",
            By::Day => "recorded_at",
            By::User => "COALESCE(job_user, '(none)')",
            By::Account => "COALESCE(job_account, '(none)')",
            By::Partition => "COALESCE(job_partition, '(none)')",
            By::Namespace | By::Tag(_) if !k8s => "'(none)'",
            By::Namespace => "COALESCE(k8s_namespace, '(none)')",
            // The key holds no quote or backslash (`model::tags::check`): a literal, not a parameter.
            By::Tag(key) => {
                return Cow::Owned(match d {
                    // As text, as PostgreSQL's `->>` gives it (a number in a store edited by hand groups alike).
                    Dialect::Sqlite => format!("COALESCE(CAST(json_extract(tags, '$.\"{key}\"') AS TEXT), '(none)')"),
                    Dialect::Postgres => format!("COALESCE(tags::jsonb ->> '{key}', '(none)')"),
                });
            }
        })
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Filter {
    pub model: Option<String>,
    /// One run's records only (MLflow's view of a run); not a command-line filter, so left out of JSON when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// Seconds since the epoch, inclusive; ISO 8601 in JSON, like every time exa prints.
    #[serde(serialize_with = "crate::time::serialize_iso_opt")]
    pub since: Option<i64>,
    /// Seconds since the epoch, exclusive; ISO 8601 in JSON.
    #[serde(serialize_with = "crate::time::serialize_iso_opt")]
    pub until: Option<i64>,
    /// Also gather each group's CO2e (or cost) per day, for a sparkline at a terminal.
    #[serde(skip)]
    pub trend: bool,
    /// The unit of work a report is per (`report --per`): it counts only the runs whose counted records
    /// have that work (every run per run); the unit's name in JSON, absent without one.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "per_name")]
    pub per: Option<Per>,
    /// Only the group with this key (a budget's account): a store reads no other group's rows. A report's answer is
    /// the same without it, but for the other groups; not a command-line filter, so never in JSON. Grouped by day,
    /// it is not read.
    #[serde(skip)]
    pub key: Option<String>,
}

fn per_name<S: serde::Serializer>(per: &Option<Per>, s: S) -> Result<S::Ok, S::Error> {
    match per {
        Some(p) => s.serialize_str(p.name()),
        None => s.serialize_none(),
    }
}

/// The unit of work a report gives its figures per (SCI's functional unit, R).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Per {
    Token,
    Request,
    Run,
    /// Units of the owner's naming (`--unit images=5000`).
    Unit(String),
}

impl Per {
    /// The unit's name, as a report shows it.
    pub fn name(&self) -> &str {
        match self {
            Per::Token => "token",
            Per::Request => "request",
            Per::Run => "run",
            Per::Unit(u) => u,
        }
    }

    /// R of a group: how many units its counted runs did.
    pub fn of(&self, g: &Group) -> Option<f64> {
        match self {
            Per::Token => g.tokens,
            Per::Request => g.requests,
            Per::Run => Some(g.runs as f64),
            Per::Unit(_) => g.units,
        }
    }

    /// Whether a store must keep work counts to answer it.
    pub fn needs_work(&self) -> bool {
        *self != Per::Run
    }

    /// The kind of work (its index in `rule::WorkCounts`) a run's counted records must have for the run to
    /// count: none per run.
    pub(crate) fn need(&self) -> Option<usize> {
        match self {
            Per::Token => Some(0),
            Per::Request => Some(2),
            Per::Unit(_) => Some(3),
            Per::Run => None,
        }
    }

    /// The records' column of that work, for the rule's SQL.
    pub(crate) fn need_column(&self) -> Option<&'static str> {
        self.need().map(|i| ["tokens", "prompt_tokens", "requests", "units"][i])
    }
}

/// A group's figures per unit of work, with SCI's terms so a reader can check the arithmetic:
/// SCI = (E x I + M) / R, here O = E x I is the counted records' operational CO2e (so I is their
/// effective intensity, O / E).
#[derive(Debug, Clone, Serialize)]
pub struct PerUnit {
    pub unit: String,
    /// R: the units of work of the group's counted runs; null when none counted one.
    pub r: Option<f64>,
    /// E, kWh.
    pub e_kwh: Option<f64>,
    /// I, gCO2e/kWh: O / E.
    pub i_g_per_kwh: Option<f64>,
    /// O = E x I, gCO2e (the operational co2e_g).
    pub o_g: Option<f64>,
    /// M, gCO2e (embodied_co2e_g).
    pub m_g: Option<f64>,
    /// (O + M) / R, gCO2e per unit; null without M (records made before exa kept it) or R.
    pub sci_g_per_unit: Option<f64>,
    /// O / R alone.
    pub co2e_g_per_unit: Option<f64>,
    pub kwh_per_unit: Option<f64>,
    /// Joules per unit (kWh per unit x 3.6e6).
    pub j_per_unit: Option<f64>,
    pub cost_usd_per_unit: Option<f64>,
    pub water_l_per_unit: Option<f64>,
}

impl PerUnit {
    /// The group's figures per unit of `per`.
    /// A figure of a domain is divided by the work of the runs that have that domain's record: cost per
    /// token by the tokens of the runs with a cost, never every run's (one run's cost over two runs' tokens).
    pub fn of(per: &Per, g: &Group) -> PerUnit {
        let r = per.of(g).filter(|r| *r > 0.0);
        let (r_carbon, r_cost) = match per.need() {
            Some(i) => (g.domain_work[0][i].filter(|r| *r > 0.0), g.domain_work[1][i].filter(|r| *r > 0.0)),
            None => (r, r),
        };
        // A quotient that does not fit a number (a figure over a vanishing count) is none, never infinity.
        let over = |v: Option<f64>, r: Option<f64>| v.zip(r).map(|(v, r)| v / r).filter(|q| q.is_finite()).map(tidy);
        let each = |v: Option<f64>| over(v, r_carbon);
        let kwh_per_unit = each(g.kwh);
        PerUnit {
            unit: per.name().to_string(),
            r: per.of(g),
            e_kwh: g.kwh,
            i_g_per_kwh: g.co2e_g.zip(g.kwh).filter(|(_, e)| *e > 0.0).map(|(o, e)| tidy(o / e)),
            o_g: g.co2e_g,
            m_g: g.embodied_co2e_g,
            sci_g_per_unit: each(g.co2e_g.zip(g.embodied_co2e_g).map(|(o, m)| o + m)),
            co2e_g_per_unit: each(g.co2e_g),
            kwh_per_unit,
            j_per_unit: kwh_per_unit.map(|k| crate::model::energy::Kwh(k).joules().0).filter(|j| j.is_finite()).map(tidy),
            cost_usd_per_unit: over(g.cost_usd, r_cost),
            water_l_per_unit: each(g.water_l),
        }
    }
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
    /// Runs counted from a measurement.
    pub runs_measured: u64,
    /// Runs counted from estimates alone.
    pub runs_estimated: u64,
    /// The records counted: per run and domain, a measurement over an estimate, every part, or one of repeats.
    pub records: Counts,
    /// Records of the group's runs that were not counted (superseded by a measurement, or repeats).
    pub records_not_counted: u64,
    /// Hours of work, each run counted once however many records it has.
    pub gpu_hours: f64,
    pub cpu_hours: f64,
    pub kwh: Option<f64>,
    pub co2e_g: Option<f64>,
    pub co2e_range_g: Option<[f64; 2]>,
    pub cost_usd: Option<f64>,
    pub currency: &'static str,
    /// The hardware's embodied CO2e, beside `co2e_g` (never in it); null where no counted record has one.
    pub embodied_co2e_g: Option<f64>,
    /// Water, litres; null where no counted record has a figure (no WUE was set).
    pub water_l: Option<f64>,
    /// The work done, each run counted once as its hours are; null where no run counted it.
    pub tokens: Option<f64>,
    pub prompt_tokens: Option<f64>,
    pub requests: Option<f64>,
    /// Units of the owner's naming (only the one `report --per UNIT` selects).
    #[serde(skip)]
    pub units: Option<f64>,
    /// Over the counted runs whose node a meter read (`measure --node-source`): their part of their nodes' platform
    /// energy, kWh (what the counters measured of them, and their part of the rest). Null where no counted run's
    /// node was metered. Not in `kwh`, which is what was measured and estimated of the GPUs and CPUs.
    pub node_kwh: Option<f64>,
    /// Of `node_kwh`, the part beyond what the counters measured (fans, disks, NICs, the power supply's loss),
    /// given to the runs by their measurement's policy: measured for the node, estimated for the job. (exa records
    /// none below zero: a run whose meter read less than its counters keeps no node figure.)
    pub node_rest_kwh: Option<f64>,
    /// The measured share of `node_kwh`, percent: how much of those nodes' energy exa's counters saw.
    pub coverage_pct: Option<f64>,
    /// Its figures per unit of work, when the report was asked for them (`--per`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per: Option<PerUnit>,
    /// CO2e per UTC day (cost per day for a group without carbon), oldest first, when the filter asked for it.
    #[serde(skip)]
    pub trend: Vec<f64>,
    /// The work (tokens, prompt tokens, requests, units) of the runs with a counted carbon record, and of those
    /// with a counted cost record: what a figure per unit of each domain divides by. None where not known.
    #[serde(skip)]
    pub domain_work: [[Option<f64>; 4]; 2],
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
    /// Runs with records that were not counted, and which were.
    pub notes: Vec<String>,
}

pub const RANGE_METHOD: &str =
    "linear: low = sum of co2e*(1-u), high = sum of co2e*(1+u); a methodology's error is systematic, so bands add";

/// A value a filter compares a column with.
pub(crate) enum Bound {
    Text(String),
    Int(i64),
}

impl Filter {
    /// What the filter asks of a record, for every store: a column with its operator, and the value.
    pub(crate) fn conditions(&self) -> Vec<(&'static str, Bound)> {
        self.conditions_on(false)
    }

    /// The same asked of the summary cells, whose time is a UTC day number; None when a bound falls within
    /// a day, which the cells cannot answer.
    pub(crate) fn cell_conditions(&self) -> Option<Vec<(&'static str, Bound)>> {
        // The cells are kept by model and day, not by run, and sum every record's work.
        let whole_days = [self.since, self.until].iter().flatten().all(|t| t.rem_euclid(DAY) == 0);
        let every_record = self.per.as_ref().is_none_or(|p| *p == Per::Run);
        (whole_days && self.run.is_none() && every_record).then(|| self.conditions_on(true))
    }

    fn conditions_on(&self, cells: bool) -> Vec<(&'static str, Bound)> {
        let (since, until, unit) = if cells { ("day >=", "day <", DAY) } else { ("recorded_at >=", "recorded_at <", 1) };
        let mut c = Vec::new();
        if let Some(m) = &self.model {
            c.push(("model =", Bound::Text(m.clone())));
        }
        if let Some(r) = self.run.as_ref().filter(|_| !cells) {
            c.push(("run_id =", Bound::Text(r.clone())));
        }
        if let Some(s) = self.since {
            c.push((since, Bound::Int(s.div_euclid(unit))));
        }
        if let Some(u) = self.until {
            c.push((until, Bound::Int(u.div_euclid(unit))));
        }
        // Per a unit of the owner's naming: its records, and those that name none (a run's cost record), never
        // another unit's. Which runs count is the rule's: those whose counted records have the work.
        if let Some(Per::Unit(u)) = self.per.as_ref().filter(|_| !cells) {
            c.push(("({p}unit_name IS NULL OR {p}unit_name = {})", Bound::Text(u.clone())));
        }
        c
    }
}

/// `clause` (a WHERE clause, or nothing) with one more condition: that `expr`, a row's group, is the value at
/// `placeholder`.
pub(crate) fn and_key(clause: String, expr: &str, placeholder: &str) -> String {
    let cond = format!("({expr}) = {placeholder}");
    if clause.is_empty() {
        format!("WHERE {cond}")
    } else {
        format!("{clause} AND {cond}")
    }
}

/// The summary cells' column holding a group's key (`Filter::key`), where one does.
pub(crate) fn cell_key_column(by: By) -> Option<&'static str> {
    match by {
        By::Model => Some("model"),
        By::User => Some("job_user"),
        By::Account => Some("job_account"),
        By::Partition => Some("job_partition"),
        By::Day | By::Provider | By::Run | By::Namespace | By::Tag(_) => None,
    }
}

/// A WHERE clause of conditions, columns prefixed (`r.` in a join), each value's placeholder made by
/// `placeholder` from its position (1, 2, ...).
/// A condition is a column and its operator, the value's placeholder after it, or a whole expression with the
/// columns' prefix at `{p}` and the placeholder at `{}`.
pub(crate) fn where_sql(conditions: &[(&str, Bound)], prefix: &str, placeholder: impl Fn(usize) -> String) -> String {
    let parts: Vec<String> = conditions
        .iter()
        .enumerate()
        .map(|(i, (cond, _))| match cond.contains("{}") {
            true => cond.replace("{p}", prefix).replace("{}", &placeholder(i + 1)),
            false => format!("{prefix}{cond} {}", placeholder(i + 1)),
        })
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", parts.join(" AND "))
    }
}

/// How reports show a record without a scheduler user, account or partition.
pub(crate) const NONE: &str = "(none)";
pub(crate) const DAY: i64 = 86_400;

/// The cell a record falls in.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Cell {
    pub(crate) model: String,
    pub(crate) day: i64,
    pub(crate) user: String,
    pub(crate) account: String,
    pub(crate) partition: String,
}

impl Cell {
    pub(crate) fn of(l: &Line) -> Cell {
        let or_none = |v: &Option<crate::model::Word>| v.as_deref().unwrap_or(NONE).to_string();
        Cell {
            model: l.model.to_string(),
            day: l.recorded_at.div_euclid(DAY),
            user: or_none(&l.labels.user),
            account: or_none(&l.labels.account),
            partition: or_none(&l.labels.partition),
        }
    }

    /// Whether the line falls in this cell (`Cell::of` it, without making one).
    pub(crate) fn holds(&self, l: &Line) -> bool {
        let label = |v: &Option<crate::model::Word>, cell: &str| v.as_deref().unwrap_or(NONE) == cell;
        l.model == self.model
            && l.recorded_at.div_euclid(DAY) == self.day
            && label(&l.labels.user, &self.user)
            && label(&l.labels.account, &self.account)
            && label(&l.labels.partition, &self.partition)
    }
}

/// Sums for one group (or one summary cell: `cells`).
#[derive(Default)]
pub(crate) struct Acc {
    pub(crate) carbon: u64,
    pub(crate) cost: u64,
    pub(crate) kwh: Option<Sum>,
    pub(crate) co2e: Option<Sum>,
    pub(crate) low: Sum,
    pub(crate) high: Sum,
    pub(crate) unknown_uncertainty: bool,
    pub(crate) cost_usd: Option<Sum>,
    pub(crate) runs: u64,
    pub(crate) runs_measured: u64,
    pub(crate) gpu_hours: Sum,
    pub(crate) cpu_hours: Sum,
    pub(crate) not_counted: u64,
    /// Embodied CO2e and water, summed over counted carbon records.
    pub(crate) embodied: Option<Sum>,
    pub(crate) water: Option<Sum>,
    /// The runs' part of their nodes' platform energy, and of its remainder, over counted carbon records.
    pub(crate) node: [Option<Sum>; 2],
    /// The runs' work: tokens, prompt tokens, requests, units.
    pub(crate) work: [Option<Sum>; 4],
    /// The same, of the runs with a counted carbon record and of those with a counted cost record.
    pub(crate) domain_work: [[Option<Sum>; 4]; 2],
    /// CO2e and cost per day, when a trend was asked for.
    pub(crate) trend: Option<Box<Trend>>,
}

#[derive(Default)]
pub(crate) struct Trend {
    co2e: BTreeMap<i32, f64>,
    cost: BTreeMap<i32, f64>,
}

/// A sum with its rounding error kept (Neumaier): a million records, or the same records summed
/// by cells, come to the same figure as the exact sum rounded once, so two reports of the same
/// records agree however they were added up.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Sum {
    sum: f64,
    error: f64,
}

impl Sum {
    pub(crate) fn add(&mut self, v: f64) {
        let t = self.sum + v;
        self.error += if self.sum.abs() >= v.abs() { (self.sum - t) + v } else { (v - t) + self.sum };
        self.sum = t;
    }

    /// The sum; one that overflowed is infinite (never NaN), for `finite` to refuse.
    pub(crate) fn value(self) -> f64 {
        if self.sum.is_finite() {
            self.sum + self.error
        } else if self.sum.is_nan() {
            f64::INFINITY
        } else {
            self.sum
        }
    }
}

impl Sum {
    /// Adds another sum, its kept error with it: cells' sums merged this way come to what their terms summed one by
    /// one would.
    pub(crate) fn merge(&mut self, other: Sum) {
        self.add(other.sum);
        self.error += other.error;
    }

    /// The sum rounded once, and what rounding it left out (0 for an overflowed sum): the two kept together lose
    /// nothing of it.
    pub(crate) fn parts(self) -> (f64, f64) {
        let v = self.value();
        if v.is_finite() {
            (v, (self.sum - v) + self.error)
        } else {
            (v, 0.0)
        }
    }

    /// A sum kept as `parts` gave it. A residual is under one rounding of the value: anything larger (a row written
    /// otherwise than by exa) is not a residual, and is dropped.
    pub(crate) fn of_parts(value: f64, residual: f64) -> Sum {
        let rounding = residual.is_finite() && residual.abs() <= value.abs() * f64::EPSILON;
        Sum { sum: value, error: if rounding { residual } else { 0.0 } }
    }
}

impl From<f64> for Sum {
    fn from(v: f64) -> Sum {
        Sum { sum: v, error: 0.0 }
    }
}

fn add(sum: &mut Option<Sum>, v: Option<f64>) {
    if let Some(v) = v {
        sum.get_or_insert_with(Sum::default).add(v);
    }
}

impl Acc {
    fn push(&mut self, r: &Row) {
        if let Some(t) = &mut self.trend {
            let (map, v) = if r.carbon { (&mut t.co2e, r.co2e) } else { (&mut t.cost, r.cost_usd) };
            *map.entry(r.day).or_default() += v.unwrap_or(0.0);
        }
        if r.carbon {
            self.carbon += 1;
            add(&mut self.kwh, r.kwh);
            add(&mut self.co2e, r.co2e);
            add(&mut self.embodied, r.embodied);
            add(&mut self.water, r.water);
            add(&mut self.node[0], r.node[0]);
            add(&mut self.node[1], r.node[1]);
            match (r.co2e, r.uncertainty) {
                (Some(c), Some(u)) => {
                    self.low.add(c * (1.0 - u));
                    self.high.add(c * (1.0 + u));
                }
                (Some(_), None) => self.unknown_uncertainty = true,
                _ => {}
            }
        } else {
            self.cost += 1;
            add(&mut self.cost_usd, r.cost_usd);
        }
    }

    /// Adds one run: the records it counts, its hours once, and what it did not count.
    fn run(&mut self, used: &[Row], gpu_hours: f64, cpu_hours: f64, work: WorkCounts, not_counted: u64) {
        for r in used {
            self.push(r);
        }
        for (sum, w) in self.work.iter_mut().zip(work) {
            add(sum, w);
        }
        for (d, carbon) in [(0, true), (1, false)] {
            if used.iter().any(|r| r.carbon == carbon) {
                for (sum, w) in self.domain_work[d].iter_mut().zip(work) {
                    add(sum, w);
                }
            }
        }
        self.runs += 1;
        self.runs_measured += u64::from(used.iter().any(|r| r.measured));
        self.gpu_hours.add(gpu_hours);
        self.cpu_hours.add(cpu_hours);
        self.not_counted += not_counted;
    }

    /// Adds the sums of a summary cell made on `day` (whose runs lie in it alone).
    pub(crate) fn merge(&mut self, cell: &Acc, day: i32) {
        if let Some(t) = &mut self.trend {
            *t.co2e.entry(day).or_default() += cell.co2e.map_or(0.0, Sum::value);
            *t.cost.entry(day).or_default() += cell.cost_usd.map_or(0.0, Sum::value);
        }
        let merge = |sum: &mut Option<Sum>, other: Option<Sum>| {
            if let Some(o) = other {
                sum.get_or_insert_with(Sum::default).merge(o);
            }
        };
        self.carbon += cell.carbon;
        self.cost += cell.cost;
        merge(&mut self.kwh, cell.kwh);
        merge(&mut self.co2e, cell.co2e);
        self.low.merge(cell.low);
        self.high.merge(cell.high);
        self.unknown_uncertainty |= cell.unknown_uncertainty;
        merge(&mut self.cost_usd, cell.cost_usd);
        self.runs += cell.runs;
        self.runs_measured += cell.runs_measured;
        self.gpu_hours.merge(cell.gpu_hours);
        self.cpu_hours.merge(cell.cpu_hours);
        self.not_counted += cell.not_counted;
        merge(&mut self.embodied, cell.embodied);
        merge(&mut self.water, cell.water);
        merge(&mut self.node[0], cell.node[0]);
        merge(&mut self.node[1], cell.node[1]);
        for (sum, w) in self.work.iter_mut().zip(&cell.work) {
            merge(sum, *w);
        }
    }

    /// Adds a run whose records all count (at most one per domain).
    pub(crate) fn run_simple(&mut self, rows: &[Row]) {
        let g = rows.iter().fold(0.0f64, |m, r| m.max(r.gpu_hours));
        let h = rows.iter().fold(0.0f64, |m, r| m.max(r.cpu_hours));
        self.run(rows, g, h, simple_work(rows), 0);
    }

    pub(crate) fn counted(&mut self, c: &RunCount) {
        self.run(&c.used, c.gpu_hours, c.cpu_hours, c.work, c.not_counted);
    }

    fn finish(self, key: String, days: Option<(i32, i32)>) -> Group {
        let trend = match (&self.trend, days) {
            (Some(t), Some((first, last))) => {
                let map = if t.co2e.is_empty() { &t.cost } else { &t.co2e };
                (first..=last).map(|d| map.get(&d).copied().unwrap_or(0.0)).collect()
            }
            _ => Vec::new(),
        };
        Group {
            trend,
            key,
            runs: self.runs,
            runs_measured: self.runs_measured,
            runs_estimated: self.runs - self.runs_measured,
            records: Counts { carbon: self.carbon, cost: self.cost },
            records_not_counted: self.not_counted,
            gpu_hours: tidy(self.gpu_hours.value()),
            cpu_hours: tidy(self.cpu_hours.value()),
            kwh: self.kwh.map(|s| tidy(s.value())),
            co2e_g: self.co2e.map(|s| tidy(s.value())),
            co2e_range_g: self.co2e.filter(|_| !self.unknown_uncertainty).map(|_| [tidy(self.low.value()), tidy(self.high.value())]),
            cost_usd: self.cost_usd.map(|s| tidy(s.value())),
            currency: "USD",
            embodied_co2e_g: self.embodied.map(|s| tidy(s.value())),
            water_l: self.water.map(|s| tidy(s.value())),
            tokens: self.work[0].map(|s| tidy(s.value())),
            prompt_tokens: self.work[1].map(|s| tidy(s.value())),
            requests: self.work[2].map(|s| tidy(s.value())),
            units: self.work[3].map(|s| tidy(s.value())),
            node_kwh: self.node[0].map(|s| tidy(s.value())),
            node_rest_kwh: self.node[1].map(|s| tidy(s.value())),
            coverage_pct: coverage(self.node[0].map(Sum::value), self.node[1].map(Sum::value)),
            per: None,
            domain_work: self.domain_work.map(|d| d.map(|w| w.map(|s| tidy(s.value())))),
        }
    }
}

/// The runs of a scan: every record with a run id, its id in one string
/// buffer, and a hash per record. Records are grouped into runs by sorting
/// (hash, position) once at the end, which walks memory in order, where a
/// hash table would probe it at random for every record: a million records
/// cost no allocation each and few cache misses.
#[derive(Default)]
pub(crate) struct Runs {
    /// Per record: its run id's hash, and its index in `rows`.
    keys: Vec<(u64, u32)>,
    /// Per record: its run id's span in `text`.
    spans: Vec<(u32, u32)>,
    rows: Vec<Row>,
    text: String,
}

impl Runs {
    fn name(&self, i: u32) -> &str {
        let (start, len) = self.spans[i as usize];
        &self.text[start as usize..(start + len) as usize]
    }

    pub(crate) fn push(&mut self, run: &str, row: Row) {
        let i = self.rows.len() as u32;
        self.keys.push((crate::text::fnv1a64(&[run]), i));
        self.spans.push((self.text.len() as u32, run.len() as u32));
        self.text.push_str(run);
        self.rows.push(row);
    }

    /// Each run's id and its records, oldest first.
    pub(crate) fn each(mut self, mut f: impl FnMut(&str, &[Row])) {
        let mut keys = std::mem::take(&mut self.keys);
        keys.sort_unstable();
        let mut buf = Vec::new();
        let mut at = 0;
        while at < keys.len() {
            let hash = keys[at].0;
            let end = at + keys[at..].iter().take_while(|k| k.0 == hash).count();
            let first = self.name(keys[at].1);
            if keys[at + 1..end].iter().all(|k| self.name(k.1) == first) {
                buf.clear();
                buf.extend(keys[at..end].iter().map(|k| self.rows[k.1 as usize]));
                f(first, &buf);
            } else {
                // Records with one hash: usually one run; split by the ids themselves when they differ.
                let mut left: Vec<u32> = keys[at..end].iter().map(|k| k.1).collect();
                while let Some(&first) = left.first() {
                    let name = self.name(first);
                    buf.clear();
                    buf.extend(left.iter().filter(|&&i| self.name(i) == name).map(|&i| self.rows[i as usize]));
                    f(name, &buf);
                    left.retain(|&i| self.name(i) != name);
                }
            }
            at = end;
        }
    }
}

/// The groups' keys in order of first sight, and their index.
#[derive(Default)]
pub(crate) struct Keys {
    index: FnvMap<Box<str>, u32>,
    names: Vec<String>,
}

impl Keys {
    pub(crate) fn of(&mut self, k: &str) -> u32 {
        if let Some(&i) = self.index.get(k) {
            return i;
        }
        let i = self.names.len() as u32;
        self.index.insert(k.into(), i);
        self.names.push(k.to_string());
        i
    }
}

/// What a scan gathered: the groups' sums, in order of first sight, the totals, the notes, and the days seen.
pub(crate) struct Gathered {
    pub(crate) keys: Keys,
    pub(crate) groups: Vec<Acc>,
    pub(crate) total: Acc,
    pub(crate) notes: Vec<String>,
    pub(crate) days: Option<(i32, i32)>,
    pub(crate) trend: bool,
}

impl Gathered {
    /// The sums of the group named `key`, made when first seen.
    pub(crate) fn group(&mut self, key: &str) -> &mut Acc {
        let i = self.keys.of(key) as usize;
        if self.groups.len() <= i {
            self.groups.push(Acc { trend: self.trend.then(Box::default), ..Acc::default() });
        }
        &mut self.groups[i]
    }

    /// Widens the days a trend spans to `day`.
    pub(crate) fn saw_day(&mut self, day: i32) {
        if self.trend {
            self.days = Some(self.days.map_or((day, day), |(a, b)| (a.min(day), b.max(day))));
        }
    }

    /// The groups by key, the totals and the notes, sorted; an overflowed sum is an error.
    pub(crate) fn finish(mut self) -> Result<(Vec<Group>, Group, Vec<String>), Error> {
        // A sparkline of at most the last 30 days.
        let days = self.days.map(|(a, b)| (a.max(b - 29), b));
        let mut out: Vec<Group> = self.groups.into_iter().zip(self.keys.names).map(|(a, k)| a.finish(k, days)).collect();
        // A group whose every run was left out (`report --per`: none counted the work) is no group.
        out.retain(|g| g.runs > 0);
        out.sort_by(|a, b| a.key.cmp(&b.key));
        let total = self.total.finish("total".into(), days);
        for g in out.iter().chain(std::iter::once(&total)) {
            finite(g)?;
        }
        self.notes.sort();
        Ok((out, total, self.notes))
    }
}

/// Adds each run to its groups and to the totals; the notes on what was not counted, in order. With
/// `need`, only the runs whose counted records have that kind of work count (`report --per`): the
/// totals judge a run whole, a group the run's records in it, as the rule's SQL does.
pub(crate) fn count_runs(runs: Runs, groups: &mut [Acc], total: &mut Acc, need: Option<usize>) -> Vec<String> {
    let mut notes = Vec::new();
    let mut part = Vec::new();
    let has = |work: &WorkCounts| need.is_none_or(|i| work[i].is_some());
    runs.each(|run, rows| {
        let one_group = rows.iter().all(|r| r.group == rows[0].group);
        if simple(rows) {
            let counted = has(&simple_work(rows));
            if counted {
                total.run_simple(rows);
            }
            if one_group {
                if counted {
                    groups[rows[0].group as usize].run_simple(rows);
                }
                return;
            }
        } else {
            let c = choose(run, rows);
            if has(&c.work) {
                notes.extend(c.note.clone());
                total.counted(&c);
            }
            if one_group {
                if has(&c.work) {
                    groups[rows[0].group as usize].counted(&c);
                }
                return;
            }
        }
        // A run whose records fall in several groups counts in each, with that group's records.
        let mut seen: Vec<u32> = rows.iter().map(|r| r.group).collect();
        seen.sort_unstable();
        seen.dedup();
        for g in seen {
            part.clear();
            part.extend(rows.iter().filter(|r| r.group == g).copied());
            let c = choose(run, &part);
            if has(&c.work) {
                groups[g as usize].counted(&c);
            }
        }
    });
    notes.sort();
    notes
}

/// The work of a run whose records all count: per kind, the most of its records'.
pub(crate) fn simple_work(rows: &[Row]) -> WorkCounts {
    let mut work = [None; 4];
    for (i, w) in work.iter_mut().enumerate() {
        *w = rows.iter().fold(None, |m, r| most(m, r.work[i]));
    }
    work
}

/// A sum that overflowed is an error naming it, never `inf` or a null that reads as "not recorded".
pub(crate) fn finite(g: &Group) -> Result<(), Error> {
    let sums = [
        ("gpu_hours", Some(g.gpu_hours)),
        ("cpu_hours", Some(g.cpu_hours)),
        ("kwh", g.kwh),
        ("co2e_g", g.co2e_g),
        ("the co2e_g range", g.co2e_range_g.map(|r| r[1])),
        ("cost_usd", g.cost_usd),
        ("embodied_co2e_g", g.embodied_co2e_g),
        ("water_l", g.water_l),
        ("tokens", g.tokens),
        ("prompt_tokens", g.prompt_tokens),
        ("requests", g.requests),
        ("units", g.units),
        ("node_kwh", g.node_kwh),
        ("node_rest_kwh", g.node_rest_kwh),
    ];
    match sums.iter().find(|(_, v)| v.is_some_and(|v| !v.is_finite())) {
        Some((what, _)) => Err(Error::Failed(format!("the sum of {what} over '{}' overflowed (not a finite number)", g.key))),
        None => Ok(()),
    }
}

pub(crate) fn nothing() -> Group {
    Group {
        key: "total".into(),
        runs: 0,
        runs_measured: 0,
        runs_estimated: 0,
        records: Counts { carbon: 0, cost: 0 },
        records_not_counted: 0,
        gpu_hours: 0.0,
        cpu_hours: 0.0,
        kwh: None,
        co2e_g: None,
        co2e_range_g: None,
        cost_usd: None,
        currency: "USD",
        embodied_co2e_g: None,
        water_l: None,
        tokens: None,
        prompt_tokens: None,
        requests: None,
        units: None,
        node_kwh: None,
        node_rest_kwh: None,
        coverage_pct: None,
        per: None,
        trend: Vec::new(),
        domain_work: [[None; 4]; 2],
    }
}

/// The measured share of the nodes' energy, percent (4 decimals), from their sum and their remainder's; None without
/// a sum, or one that is not above zero (a share of nothing).
pub(crate) fn coverage(node_kwh: Option<f64>, rest_kwh: Option<f64>) -> Option<f64> {
    let (n, r) = (node_kwh?, rest_kwh?);
    (n > 0.0 && n.is_finite() && r.is_finite()).then(|| tidy(((n - r) / n * 100.0 * 1e4).round() / 1e4))
}

/// A group from sums a server made: counts (runs, runs measured, carbon records,
/// cost records, records not counted), hours (GPU, CPU), sums (kWh, CO2e, USD), the CO2e range, and the
/// figures beside them (embodied CO2e, water, tokens, prompt tokens, requests, units, the node's energy and its
/// remainder).
pub(crate) fn group(
    key: String,
    counts: [u64; 5],
    hours: [f64; 2],
    sums: [Option<f64>; 3],
    range: Option<[f64; 2]>,
    extra: [Option<f64>; 8],
) -> Group {
    Group {
        key,
        runs: counts[0],
        runs_measured: counts[1],
        runs_estimated: counts[0] - counts[1].min(counts[0]),
        records: Counts { carbon: counts[2], cost: counts[3] },
        records_not_counted: counts[4],
        gpu_hours: tidy(hours[0]),
        cpu_hours: tidy(hours[1]),
        kwh: sums[0].map(tidy),
        co2e_g: sums[1].map(tidy),
        co2e_range_g: range.map(|[lo, hi]| [tidy(lo), tidy(hi)]),
        cost_usd: sums[2].map(tidy),
        currency: "USD",
        embodied_co2e_g: extra[0].map(tidy),
        water_l: extra[1].map(tidy),
        tokens: extra[2].map(tidy),
        prompt_tokens: extra[3].map(tidy),
        requests: extra[4].map(tidy),
        units: extra[5].map(tidy),
        node_kwh: extra[6].map(tidy),
        node_rest_kwh: extra[7].map(tidy),
        coverage_pct: coverage(extra[6], extra[7]),
        per: None,
        trend: Vec::new(),
        domain_work: [[None; 4]; 2],
    }
}

/// The report of a store that does not exist yet.
pub fn empty(by: By, filter: Filter, location: &str) -> Report {
    Report { by, filter, db: location.to_string(), groups: Vec::new(), totals: nothing(), range_method: RANGE_METHOD, notes: Vec::new() }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sums_merged_by_their_parts_are_the_terms_summed_one_by_one() {
        use super::Sum;
        // Terms of every magnitude in a few groups (a month's days): the groups' sums merged with what their
        // rounding left out come to the terms summed in order, to the last bit; rounded first, now and then not.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut differs = 0;
        for _ in 0..400 {
            let terms: Vec<f64> = (0..240).map(|i| next() * 10f64.powi(i % 7 - 2) / 3.0).collect();
            let mut one_by_one = Sum::default();
            terms.iter().for_each(|t| one_by_one.add(*t));
            let (mut by_parts, mut rounded) = (Sum::default(), Sum::default());
            for group in terms.chunks(24) {
                let mut g = Sum::default();
                group.iter().for_each(|t| g.add(*t));
                let (v, r) = g.parts();
                by_parts.merge(Sum::of_parts(v, r));
                rounded.merge(Sum::from(v));
            }
            assert_eq!(by_parts.value().to_bits(), one_by_one.value().to_bits());
            differs += usize::from(rounded.value().to_bits() != one_by_one.value().to_bits());
        }
        assert!(differs > 0, "the terms need the residuals somewhere");
    }

    use super::{Row, Runs};

    fn row(id: i64) -> Row {
        Row {
            id,
            group: 0,
            day: 0,
            carbon: true,
            measured: false,
            part: false,
            gpu_hours: 1.0,
            cpu_hours: 0.0,
            kwh: None,
            co2e: None,
            uncertainty: None,
            cost_usd: None,
            embodied: None,
            water: None,
            node: [None; 2],
            work: [None; 4],
        }
    }

    #[test]
    fn runs_group_by_id_even_when_two_ids_share_a_hash() {
        let mut runs = Runs::default();
        for (id, name) in [(1, "a"), (2, "b"), (3, "a"), (4, "c")] {
            runs.push(name, row(id));
        }
        // Force a collision: "c" takes "a"'s hash.
        let a = runs.keys[0].0;
        runs.keys[3].0 = a;
        let mut seen = Vec::new();
        runs.each(|name, rows| seen.push((name.to_string(), rows.iter().map(|r| r.id).collect::<Vec<_>>())));
        seen.sort();
        assert_eq!(seen, [("a".into(), vec![1, 3]), ("b".into(), vec![2]), ("c".into(), vec![4])]);
    }
}
