//! Reports from PostgreSQL: the server counts by the rule and sums; only the groups come back.

use std::collections::BTreeMap;

use super::schema::{figures, NODE_CELLS_VERSION, RULE_VERSION, WORK_VERSION};
use super::wire::Exec;
use super::{Pg, WireError};
use crate::error::Error;
use crate::store::report::{self as model, By, Filter, Group};
use crate::store::rule::{sql, Dialect};

/// The filter as PostgreSQL: the WHERE clause (columns prefixed) and its values.
pub(super) fn where_clause(f: &Filter, prefix: &str) -> (String, Vec<Box<dyn tokio_postgres::types::ToSql + Sync>>) {
    pg_clause(f.conditions(), prefix)
}

/// Conditions as PostgreSQL: the WHERE clause (columns prefixed) and their values.
pub(super) fn pg_clause(
    conditions: Vec<(&'static str, model::Bound)>,
    prefix: &str,
) -> (String, Vec<Box<dyn tokio_postgres::types::ToSql + Sync>>) {
    let clause = model::where_sql(&conditions, prefix, |i| format!("${i}"));
    let args = conditions
        .into_iter()
        .map(|(_, b)| -> Box<dyn tokio_postgres::types::ToSql + Sync> {
            match b {
                model::Bound::Text(t) => Box::new(t),
                model::Bound::Int(i) => Box::new(i),
            }
        })
        .collect();
    (clause, args)
}

/// One row of `sql` as a group; `node`: its statement counted the node's figures (`Summed::node`).
pub(super) fn group(r: &tokio_postgres::Row, node: bool) -> Group {
    let mut sums = Sums::default();
    sums.add(r, node);
    sums.group(r.get(0))
}

impl Pg {
    /// The report from the summary cells and the records of split runs, in one snapshot; None where
    /// the cells cannot answer it (by provider or run, bounds within a day, a schema without cells).
    pub(super) fn report_from_cells(&mut self, by: By, f: &Filter) -> Result<Option<Answer>, Error> {
        let Some(conditions) = f.cell_conditions() else { return Ok(None) };
        let cell_key = match by {
            By::Model => "model",
            By::Day => "to_char(to_timestamp(day * 86400) AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
            By::User => "job_user",
            By::Account => "job_account",
            By::Partition => "job_partition",
            By::Provider | By::Run | By::Namespace | By::Tag(_) => return Ok(None),
        };
        // Cells counted by the rule before its measurements kept every kind of work: the records are counted instead.
        if self.version < RULE_VERSION {
            return Ok(None);
        }
        let figs = figures(self.version);
        let work = if self.version >= NODE_CELLS_VERSION {
            ", sum(embodied_co2e_g), sum(water_l), sum(tokens), sum(prompt_tokens), sum(requests), NULL::float8, sum(node_kwh), sum(node_rest_kwh)"
        } else if self.version >= WORK_VERSION {
            ", sum(embodied_co2e_g), sum(water_l), sum(tokens), sum(prompt_tokens), sum(requests), NULL::float8"
        } else {
            ""
        };
        let node = figs.node();
        let (mut filter, mut args) = pg_clause(conditions, "");
        let (clause, mut split_args) = where_clause(f, "");
        let split = "run_id IN (SELECT run_id FROM exa_split_runs)";
        let mut clause = if clause.is_empty() { format!("WHERE {split}") } else { format!("{clause} AND {split}") };
        let record_key = record_key(by, self.version);
        if let (Some(k), Some(column)) = (&f.key, model::cell_key_column(by)) {
            filter = model::and_key(filter, column, &format!("${}", args.len() + 1));
            args.push(Box::new(k.clone()));
            clause = model::and_key(clause, &record_key, &format!("${}", split_args.len() + 1));
            split_args.push(Box::new(k.clone()));
        }
        let cells = |key: &str| {
            format!(
                "SELECT ({key}) COLLATE \"C\", sum(runs)::bigint, sum(runs_measured)::bigint, sum(carbon)::bigint, sum(cost)::bigint,
                        sum(not_counted)::bigint, sum(gpu_hours), sum(cpu_hours), sum(kwh), sum(co2e_g), sum(co2e_low), sum(co2e_high),
                        bool_or(unknown_uncertainty), sum(cost_usd), string_agg(notes, E'\\n' ORDER BY notes){work}
                 FROM exa_report_cells {filter} GROUP BY 1"
            )
        };
        let params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = args.iter().map(|a| a.as_ref() as _).collect();
        let split_params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = split_args.iter().map(|a| a.as_ref() as _).collect();
        let conn = self.conn.clone();
        let db = |e: WireError| conn.error(&e);
        let mut tx = self.client.snapshot().map_err(db)?;
        let mut groups: BTreeMap<String, Sums> = BTreeMap::new();
        let mut total = Sums::default();
        for row in tx
            .query(&cells(cell_key), &params)
            .map_err(db)?
            .iter()
            .chain(&tx.query(&sql(Dialect::Postgres, figs, &record_key, &clause), &split_params).map_err(db)?)
        {
            groups.entry(row.get(0)).or_default().add(row, node);
        }
        for row in tx
            .query(&cells("'total'"), &params)
            .map_err(db)?
            .iter()
            .chain(&tx.query(&sql(Dialect::Postgres, figs, "'total'", &clause), &split_params).map_err(db)?)
        {
            total.add(row, node);
        }
        tx.commit().map_err(db)?;
        let mut notes: Vec<String> = total.notes.iter().flat_map(|n| n.lines()).map(str::to_string).collect();
        notes.sort();
        let groups: Vec<Group> = groups.into_iter().map(|(k, s)| s.group(k)).collect();
        let total = if groups.is_empty() { model::nothing() } else { total.group("total".into()) };
        Ok(Some((groups, total, notes)))
    }
}

/// A record's group, as SQL over its columns in a schema of `version`.
pub(super) fn record_key(by: By, version: i64) -> std::borrow::Cow<'static, str> {
    match by {
        By::Day => "to_char(to_timestamp(recorded_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD')".into(),
        other => other.sql(Dialect::Postgres, version >= super::schema::K8S_VERSION),
    }
}

/// A report's groups, its totals and its notes.
pub(super) type Answer = (Vec<Group>, Group, Vec<String>);

/// A group's figures from the cells and from the split runs' records, added up.
#[derive(Default)]
pub(super) struct Sums {
    counts: [u64; 5],
    hours: [f64; 2],
    kwh: Option<f64>,
    co2e: Option<f64>,
    low: f64,
    high: f64,
    unknown: bool,
    cost: Option<f64>,
    notes: Vec<String>,
    /// Embodied CO2e, water, tokens, prompt tokens, requests, units, the node's energy and its remainder.
    extra: [Option<f64>; 8],
    /// Per unit of work (`Summed::Per`): that work of the runs with a carbon record, and with a cost record.
    per_domain: [Option<f64>; 2],
}

impl Sums {
    /// Adds one row of `sql` or of the cells' query (the same columns); `node`: they have the node's figures after
    /// the work's.
    fn add(&mut self, r: &tokio_postgres::Row, node: bool) {
        let plus = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        for (i, c) in self.counts.iter_mut().enumerate() {
            *c += u64::try_from(r.get::<_, i64>(i + 1)).unwrap_or(0);
        }
        self.hours[0] += r.get::<_, Option<f64>>(6).unwrap_or(0.0);
        self.hours[1] += r.get::<_, Option<f64>>(7).unwrap_or(0.0);
        self.kwh = plus(self.kwh, r.get(8));
        self.co2e = plus(self.co2e, r.get(9));
        self.low += r.get::<_, Option<f64>>(10).unwrap_or(0.0);
        self.high += r.get::<_, Option<f64>>(11).unwrap_or(0.0);
        self.unknown |= r.get::<_, Option<bool>>(12).unwrap_or(false);
        self.cost = plus(self.cost, r.get(13));
        self.notes.extend(r.get::<_, Option<String>>(14));
        let extra = if node { 8 } else { 6 };
        if r.len() > 15 {
            for (i, e) in self.extra.iter_mut().take(extra).enumerate() {
                *e = plus(*e, r.get(15 + i));
            }
        }
        if r.len() > 15 + extra {
            for (i, e) in self.per_domain.iter_mut().enumerate() {
                *e = plus(*e, r.get(15 + extra + i));
            }
        }
    }

    fn group(self, key: String) -> Group {
        let range = if self.unknown { None } else { self.co2e.map(|_| [self.low, self.high]) };
        let mut g = model::group(key, self.counts, self.hours, [self.kwh, self.co2e, self.cost], range, self.extra);
        // The statement counts the work of the report's one unit (`Summed::Per`): it stands at every kind's
        // place, the one `PerUnit::of` reads among them.
        g.domain_work = self.per_domain.map(|w| [w.map(crate::num::tidy); 4]);
        g
    }
}
