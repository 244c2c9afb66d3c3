//! The rollup: the summary cells summed by day for each model, user, account and partition.
//!
//! A busy ledger has tens of thousands of cells an account a month (a cell is one model, user, account and
//! partition a day), so a budget's or a report's question about one account's month read them all. A rollup row
//! is every cell of one day with one model (or user, account, partition), summed as a report merges cells, so that
//! question reads one row a day. The rows are made again from the cells, never patched: a write makes again the
//! rows its cells count in (their models', users', accounts' and partitions' of those days, from the days' cells),
//! and a first write or a rebuild makes every row. Reports group by
//! model, user, account, partition or day from the rows where nothing narrows them below a row (a model with a
//! grouping other than by model or day, bounds within a day, a run): those read the cells.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::Connection;

use super::sums::{bind_sums, read_sums, residuals, CellSums, SUMS, SUMS_COUNT};
use crate::store::report::{Acc, By, Cell, Filter, DAY};
use crate::text::FnvMap;

/// The migration that makes the rollup (filled from the cells by `recount` after it), and the cells' index by day
/// that a day's rows are made again from.
pub(crate) const SCHEMA: &str = r"
CREATE TABLE IF NOT EXISTS report_rollup (
    kind                TEXT    NOT NULL,     -- 'model', 'user', 'account' or 'partition'
    value               TEXT    NOT NULL,     -- the model, user, ... ('(none)' as the cells name none)
    day                 INTEGER NOT NULL,     -- days since the epoch, UTC
    runs                INTEGER NOT NULL,
    runs_measured       INTEGER NOT NULL,
    carbon              INTEGER NOT NULL,
    cost                INTEGER NOT NULL,
    not_counted         INTEGER NOT NULL,
    gpu_hours           REAL    NOT NULL,
    cpu_hours           REAL    NOT NULL,
    kwh                 REAL,
    co2e_g              REAL,
    co2e_low            REAL    NOT NULL,
    co2e_high           REAL    NOT NULL,
    unknown_uncertainty INTEGER NOT NULL,
    cost_usd            REAL,
    notes               TEXT,
    embodied_co2e_g     REAL,
    water_l             REAL,
    tokens              REAL,
    prompt_tokens       REAL,
    requests            REAL,
    residuals           BLOB,                 -- what rounding each sum left out (sums::residuals), so that rows
                                              -- merge to what the cells would
    PRIMARY KEY (kind, value, day)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS report_rollup_day ON report_rollup (day);
CREATE INDEX IF NOT EXISTS report_cells_day ON report_cells (day);
";

/// What a row sums the cells by, in the order of the cells' key columns.
const KINDS: [(&str, usize); 4] = [("model", 0), ("user", 2), ("account", 3), ("partition", 4)];

/// Makes again, from the cells, the rows the cells `touched` count in (every row, where None): for each day, the rows
/// of the models, users, accounts and partitions of the cells touched that day, from that day's cells.
pub(crate) fn recount(tx: &Connection, touched: Option<&BTreeSet<Cell>>) -> rusqlite::Result<()> {
    let select = format!("SELECT model, day, job_user, job_account, job_partition, {SUMS} FROM report_cells");
    let mut sums = Sums::default();
    let Some(touched) = touched else {
        tx.execute("DELETE FROM report_rollup", [])?;
        let mut q = tx.prepare(&select)?;
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            sums.add(r, None)?;
        }
        return sums.write(tx);
    };
    let mut by_day: BTreeMap<i64, [BTreeSet<&str>; 4]> = BTreeMap::new();
    for c in touched {
        let only = by_day.entry(c.day).or_default();
        for (set, value) in only.iter_mut().zip([&c.model, &c.user, &c.account, &c.partition]) {
            set.insert(value.as_str());
        }
    }
    let mut clear = tx.prepare_cached("DELETE FROM report_rollup WHERE kind = ?1 AND value = ?2 AND day = ?3")?;
    let mut q = tx.prepare_cached(&format!("{select} WHERE day = ?1"))?;
    for (day, only) in &by_day {
        for (set, (kind, _)) in only.iter().zip(KINDS) {
            for value in set {
                clear.execute(rusqlite::params![kind, value, day])?;
            }
        }
        let mut rows = q.query([day])?;
        while let Some(r) = rows.next()? {
            sums.add(r, Some(only))?;
        }
    }
    sums.write(tx)
}

/// One kind's rows: by value, then day, the cells' sums merged and their notes.
type Rows = FnvMap<String, BTreeMap<i64, (Acc, Vec<String>)>>;

/// Each kind's rows, in the order of `KINDS`.
#[derive(Default)]
struct Sums {
    kinds: [Rows; 4],
}

impl Sums {
    /// Adds a cell read by `recount`'s SELECT to the rows of each kind whose value is `only`'s (every row, where
    /// None); a cell in none of them is not read further.
    fn add(&mut self, r: &rusqlite::Row, only: Option<&[BTreeSet<&str>; 4]>) -> rusqlite::Result<()> {
        let mut wanted = [false; 4];
        for (i, (_, column)) in KINDS.iter().enumerate() {
            let value = r.get_ref(*column)?.as_str()?;
            wanted[i] = only.is_none_or(|o| o[i].contains(value));
        }
        if !wanted.contains(&true) {
            return Ok(());
        }
        let day: i64 = r.get(1)?;
        let (cell, notes) = read_sums(r, 5)?;
        for ((rows, (_, column)), wanted) in self.kinds.iter_mut().zip(KINDS).zip(wanted) {
            if !wanted {
                continue;
            }
            let value = r.get_ref(column)?.as_str()?;
            let days = match rows.get_mut(value) {
                Some(days) => days,
                None => rows.entry(value.to_string()).or_default(),
            };
            let (acc, kept) = days.entry(day).or_default();
            acc.merge(&cell, i32::try_from(day).unwrap_or(0));
            kept.extend(notes.iter().cloned());
        }
        Ok(())
    }

    fn write(self, tx: &Connection) -> rusqlite::Result<()> {
        let mut add = tx.prepare_cached(&format!(
            "INSERT OR REPLACE INTO report_rollup (kind, value, day, {SUMS}, residuals) VALUES (?1, ?2, ?3, {})",
            (4..=4 + SUMS_COUNT).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ")
        ))?;
        for (rows, (kind, _)) in self.kinds.into_iter().zip(KINDS) {
            for (value, days) in rows {
                for (day, (mut acc, notes)) in days {
                    add.raw_bind_parameter(1, kind)?;
                    add.raw_bind_parameter(2, &value)?;
                    add.raw_bind_parameter(3, day)?;
                    bind_sums(&mut add, 4, &CellSums::of(&acc, &notes))?;
                    add.raw_bind_parameter(4 + SUMS_COUNT, residuals(&mut acc))?;
                    add.raw_execute()?;
                }
            }
        }
        Ok(())
    }
}

/// The rows' SELECT (`value, day`, then `SUMS` and the residuals) that answers a report grouped `by` with filter `f`, and its
/// values; None where the rows cannot (the caller has checked that the cells can: whole days, no run).
pub(crate) fn select(by: By, f: &Filter, version: i64) -> Option<(String, Vec<rusqlite::types::Value>)> {
    use rusqlite::types::Value;
    let kind = match by {
        By::Model | By::Day => "model",
        By::User if f.model.is_none() => "user",
        By::Account if f.model.is_none() => "account",
        By::Partition if f.model.is_none() => "partition",
        _ => return None,
    };
    let mut sql = format!("SELECT value, day, {}, residuals FROM report_rollup WHERE kind = ?", super::sums::sums_in(version));
    let mut args = vec![Value::Text(kind.into())];
    // A day's key is its date, not a row's value.
    let key = f.key.as_ref().filter(|_| by != By::Day);
    for value in [f.model.as_ref(), key].into_iter().flatten() {
        sql.push_str(" AND value = ?");
        args.push(Value::Text(value.clone()));
    }
    for (bound, op) in [(f.since, ">="), (f.until, "<")] {
        if let Some(t) = bound {
            sql.push_str(&format!(" AND day {op} ?"));
            args.push(Value::Integer(t.div_euclid(DAY)));
        }
    }
    Some((sql, args))
}
