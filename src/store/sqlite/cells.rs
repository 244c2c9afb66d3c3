//! Summary cells: the SQLite ledger's report sums, kept as records arrive.
//!
//! A cell is one model's records of one UTC day for one scheduler user,
//! account and partition. It holds what `report` would sum over them: runs
//! counted once each, per run and domain the records `rule::choose`
//! counts (a measurement over an estimate, parts summed, repeats once), and
//! the notes on what it did not count. The writer recomputes a cell from
//! its records, in the transaction that adds one, so a cell is never
//! patched by subtraction and never out of date.
//!
//! The cells know the newest record they include. Records written by other
//! means than exa (SQL into the file) leave them behind: a report then scans
//! the records, and the next exa that writes makes every cell again.
//!
//! A run whose records fall in two cells (recorded on two days, say) is
//! "split": it is kept out of every cell and a report reads its records, as
//! before. `report --by model|day|user|account|partition` with no filter,
//! a model, or whole-day `--since`/`--until` then reads the cells and the
//! split runs' records instead of every record. Other reports (by provider
//! or run, bounds within a day, a store from before the cells) scan the
//! records.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::types::ValueRef;
use rusqlite::{params, Connection};

use super::read_row;
use crate::store::report::{count_runs, Acc, Cell, Runs, Sum, DAY, NONE};

/// The migration that makes the cells, and fills them from the records already stored (`rebuild`).
pub(crate) const SCHEMA: &str = r"
CREATE INDEX records_run ON records (run_id);
-- A cell's records, found by the cell's own key (the expressions `write` reads them by): without it, making a
-- cell scans its model's whole day, every user's, and a batch of many cells a day grows as its square.
CREATE INDEX records_cell ON records (model, COALESCE(job_user, '(none)'), COALESCE(job_account, '(none)'),
    COALESCE(job_partition, '(none)'), recorded_at);
CREATE TABLE report_cells (
    model               TEXT    NOT NULL,
    day                 INTEGER NOT NULL,     -- days since the epoch, UTC
    job_user            TEXT    NOT NULL,     -- '(none)' where the record has none, as reports show it
    job_account         TEXT    NOT NULL,
    job_partition       TEXT    NOT NULL,
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
    notes               TEXT,                 -- one line per run with records not counted
    PRIMARY KEY (model, day, job_user, job_account, job_partition)
) WITHOUT ROWID;
CREATE TABLE report_split_runs (run_id TEXT PRIMARY KEY) WITHOUT ROWID;
-- The newest record the cells include: below the newest record, some were written by other means than exa.
CREATE TABLE report_cells_upto (id INTEGER NOT NULL);
INSERT INTO report_cells_upto VALUES (0);
";

/// The cell of the columns `model, recorded_at, job_user, job_account, job_partition`.
fn cell_read(r: &rusqlite::Row) -> rusqlite::Result<Cell> {
    let text = |i: usize| r.get::<_, Option<String>>(i).map(|v| v.unwrap_or_else(|| NONE.into()));
    Ok(Cell { model: r.get(0)?, day: r.get::<_, i64>(1)?.div_euclid(DAY), user: text(2)?, account: text(3)?, partition: text(4)? })
}

/// The newest record the cells include, and the newest record.
fn marks(tx: &Connection) -> rusqlite::Result<(i64, i64)> {
    tx.query_row("SELECT (SELECT id FROM report_cells_upto), (SELECT COALESCE(max(id), 0) FROM records)", [], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
}

/// True when the cells include every record.
pub(crate) fn current(tx: &Connection) -> rusqlite::Result<bool> {
    marks(tx).map(|(upto, newest)| upto == newest)
}

/// In a writer's transaction, after it wrote: the cells of what it wrote made again, or every
/// cell where they were behind before it wrote; they then include every record.
/// `runs` are the runs written, each with whether what was written of it lies in one cell;
/// `before` is the newest record before the write.
pub(crate) fn after_write(
    tx: &Connection,
    were_current: bool,
    runs: &BTreeMap<String, bool>,
    cells: BTreeSet<Cell>,
    before: i64,
) -> rusqlite::Result<()> {
    if were_current {
        refresh(tx, runs, cells, before)?;
    } else {
        rebuild(tx)?;
    }
    tx.execute("UPDATE report_cells_upto SET id = (SELECT COALESCE(max(id), 0) FROM records)", [])?;
    Ok(())
}

/// Brings up to date, in the writer's transaction, the cells of the records just written and
/// of their runs: a run found in two cells is split, and every cell it was in is made again.
///
/// A run first written now, all into one cell, lies in that cell alone: it cannot be split, and
/// one look at the index for an older record of it says so (an import of a million new runs
/// then reads none of them back).
pub(crate) fn refresh(tx: &Connection, runs: &BTreeMap<String, bool>, mut cells: BTreeSet<Cell>, before: i64) -> rusqlite::Result<()> {
    let mut earlier = tx.prepare_cached("SELECT 1 FROM records WHERE run_id = ?1 AND id <= ?2 LIMIT 1")?;
    let mut is_split = tx.prepare_cached("SELECT 1 FROM report_split_runs WHERE run_id = ?1")?;
    let mut of_run =
        tx.prepare_cached("SELECT DISTINCT model, recorded_at, job_user, job_account, job_partition FROM records WHERE run_id = ?1")?;
    let mut split = tx.prepare_cached("INSERT INTO report_split_runs (run_id) VALUES (?1)")?;
    for (run, one_cell) in runs {
        if *one_cell && !earlier.exists(params![run, before])? {
            continue;
        }
        if is_split.exists([run])? {
            continue;
        }
        let seen: BTreeSet<Cell> = of_run.query_map([run], cell_read)?.collect::<Result<_, _>>()?;
        if seen.len() > 1 {
            split.execute([run])?;
            cells.extend(seen);
        }
    }
    for cell in &cells {
        write(tx, cell)?;
    }
    Ok(())
}

/// Makes every cell again from the records (the migration that adds them, and a writer that
/// finds them behind).
pub(crate) fn rebuild(tx: &Connection) -> rusqlite::Result<()> {
    tx.execute_batch("DELETE FROM report_cells; DELETE FROM report_split_runs;")?;
    // Every run of more than one record, each looked at whole.
    let runs: BTreeMap<String, bool> = {
        let mut q = tx.prepare("SELECT run_id FROM records WHERE run_id IS NOT NULL GROUP BY run_id HAVING count(*) > 1")?;
        let runs = q.query_map([], |r| Ok((r.get(0)?, false)))?.collect::<Result<_, _>>()?;
        runs
    };
    let cells: BTreeSet<Cell> = {
        let mut q = tx.prepare("SELECT DISTINCT model, recorded_at, job_user, job_account, job_partition FROM records")?;
        let cells = q.query_map([], cell_read)?.collect::<Result<_, _>>()?;
        cells
    };
    refresh(tx, &runs, cells, 0)?;
    tx.execute("UPDATE report_cells_upto SET id = (SELECT COALESCE(max(id), 0) FROM records)", [])?;
    Ok(())
}

/// Makes one cell from its records, leaving out split runs; a cell left with no run is removed.
fn write(tx: &Connection, cell: &Cell) -> rusqlite::Result<()> {
    let mut q = tx.prepare_cached(
        "SELECT id, run_id, domain = 'carbon', measured, part, gpu_hours, cpu_hours, kwh, co2e_g, uncertainty, cost_usd,
                embodied_co2e_g, water_l, tokens, prompt_tokens, requests, units FROM records
         WHERE model = ?1 AND recorded_at >= ?2 AND recorded_at < ?3 AND COALESCE(job_user, '(none)') = ?4
           AND COALESCE(job_account, '(none)') = ?5 AND COALESCE(job_partition, '(none)') = ?6
           AND (run_id IS NULL OR run_id NOT IN (SELECT run_id FROM report_split_runs))",
    )?;
    let start = cell.day.saturating_mul(DAY);
    let mut rows = q.query(params![cell.model, start, start.saturating_add(DAY), cell.user, cell.account, cell.partition])?;
    let mut sums = [Acc::default()];
    let mut total = Acc::default();
    let mut runs = Runs::default();
    while let Some(r) = rows.next()? {
        let row = read_row(r, 0);
        match r.get_ref(1)? {
            ValueRef::Text(run) => runs.push(&String::from_utf8_lossy(run), row),
            _ => sums[0].run_simple(&[row]),
        }
    }
    let notes = count_runs(runs, &mut sums, &mut total, None);
    let a = &sums[0];
    let key = params![cell.model, cell.day, cell.user, cell.account, cell.partition];
    if a.runs == 0 {
        tx.prepare_cached(
            "DELETE FROM report_cells WHERE model = ?1 AND day = ?2 AND job_user = ?3 AND job_account = ?4 AND job_partition = ?5",
        )?
        .execute(key)?;
        return Ok(());
    }
    let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    tx.prepare_cached(
        "INSERT OR REPLACE INTO report_cells (model, day, job_user, job_account, job_partition, runs, runs_measured, carbon, cost,
            not_counted, gpu_hours, cpu_hours, kwh, co2e_g, co2e_low, co2e_high, unknown_uncertainty, cost_usd, notes, embodied_co2e_g,
            water_l, tokens, prompt_tokens, requests)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)",
    )?
    .execute(params![
        cell.model,
        cell.day,
        cell.user,
        cell.account,
        cell.partition,
        count(a.runs),
        count(a.runs_measured),
        count(a.carbon),
        count(a.cost),
        count(a.not_counted),
        a.gpu_hours.value(),
        a.cpu_hours.value(),
        a.kwh.map(Sum::value),
        a.co2e.map(Sum::value),
        a.low.value(),
        a.high.value(),
        a.unknown_uncertainty,
        a.cost_usd.map(Sum::value),
        (!notes.is_empty()).then(|| notes.join("\n")),
        a.embodied.map(Sum::value),
        a.water.map(Sum::value),
        a.work[0].map(Sum::value),
        a.work[1].map(Sum::value),
        a.work[2].map(Sum::value),
    ])?;
    Ok(())
}
