//! Summary cells: the SQLite ledger's report sums, kept as records arrive.
//!
//! A cell is one model's records of one UTC day for one scheduler user,
//! account and partition. It holds what `report` would sum over them: runs
//! counted once each, per run and domain the records `report::choose`
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

use super::report::{count_runs, gather, Acc, By, Filter, Gathered, Row, Runs, Sum};
use super::{Line, Store};
use crate::error::Error;

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

/// How reports show a record without a scheduler user, account or partition.
const NONE: &str = "(none)";
pub(super) const DAY: i64 = 86_400;

/// The cell a record falls in.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Cell {
    pub(super) model: String,
    pub(super) day: i64,
    pub(super) user: String,
    pub(super) account: String,
    pub(super) partition: String,
}

impl Cell {
    /// The cell of the columns `model, recorded_at, job_user, job_account, job_partition`.
    fn read(r: &rusqlite::Row) -> rusqlite::Result<Cell> {
        let text = |i: usize| r.get::<_, Option<String>>(i).map(|v| v.unwrap_or_else(|| NONE.into()));
        Ok(Cell { model: r.get(0)?, day: r.get::<_, i64>(1)?.div_euclid(DAY), user: text(2)?, account: text(3)?, partition: text(4)? })
    }

    pub(crate) fn of(l: &Line) -> Cell {
        let or_none = |v: &Option<String>| v.clone().unwrap_or_else(|| NONE.into());
        Cell {
            model: l.model.clone(),
            day: l.recorded_at.div_euclid(DAY),
            user: or_none(&l.labels.user),
            account: or_none(&l.labels.account),
            partition: or_none(&l.labels.partition),
        }
    }
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
        let seen: BTreeSet<Cell> = of_run.query_map([run], Cell::read)?.collect::<Result<_, _>>()?;
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
        let cells = q.query_map([], Cell::read)?.collect::<Result<_, _>>()?;
        cells
    };
    refresh(tx, &runs, cells, 0)?;
    tx.execute("UPDATE report_cells_upto SET id = (SELECT COALESCE(max(id), 0) FROM records)", [])?;
    Ok(())
}

/// Makes one cell from its records, leaving out split runs; a cell left with no run is removed.
fn write(tx: &Connection, cell: &Cell) -> rusqlite::Result<()> {
    let mut q = tx.prepare_cached(
        "SELECT id, run_id, domain = 'carbon', measured, part, gpu_hours, cpu_hours, kwh, co2e_g, uncertainty, cost_usd FROM records
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
        let row = Row::read(r, 0);
        match r.get_ref(1)? {
            ValueRef::Text(run) => runs.push(&String::from_utf8_lossy(run), row),
            _ => sums[0].run_simple(&[row]),
        }
    }
    let notes = count_runs(runs, &mut sums, &mut total);
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
            not_counted, gpu_hours, cpu_hours, kwh, co2e_g, co2e_low, co2e_high, unknown_uncertainty, cost_usd, notes)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
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
    ])?;
    Ok(())
}

/// The sums of a report read from the cells and the split runs' records; None where the cells
/// cannot answer it (grouped by provider or run, bounds within a day, a store without cells).
pub(crate) fn report(store: &Store, by: By, f: &Filter) -> Result<Option<Gathered>, Error> {
    let Some(conditions) = f.cell_conditions() else { return Ok(None) };
    if matches!(by, By::Provider | By::Run) || store.version()? < super::sqlite::CELLS_VERSION {
        return Ok(None);
    }
    let db = |e: rusqlite::Error| Error::Failed(format!("{}: {e}", store.path.display()));
    // One snapshot for the check, the split runs' records and the cells: a writer between them changes neither.
    let snapshot = store.conn().unchecked_transaction().map_err(db)?;
    if !current(&snapshot).map_err(db)? {
        return Ok(None);
    }
    let mut g = gather(store, by, f, true)?;
    let (filter, args) = super::report::sqlite_clause(conditions, "");
    let sql = format!(
        "SELECT model, day, job_user, job_account, job_partition, runs, runs_measured, carbon, cost, not_counted, gpu_hours,
                cpu_hours, kwh, co2e_g, co2e_low, co2e_high, unknown_uncertainty, cost_usd, notes FROM report_cells {filter}"
    );
    let mut stmt = store.conn().prepare(&sql).map_err(db)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(args.iter())).map_err(db)?;
    while let Some(r) = rows.next().map_err(db)? {
        let count = |i: usize| r.get::<_, i64>(i).map(|v| u64::try_from(v).unwrap_or(0));
        let day: i64 = r.get(1).map_err(db)?;
        let cell = Acc {
            runs: count(5).map_err(db)?,
            runs_measured: count(6).map_err(db)?,
            carbon: count(7).map_err(db)?,
            cost: count(8).map_err(db)?,
            not_counted: count(9).map_err(db)?,
            gpu_hours: Sum::from(r.get::<_, f64>(10).map_err(db)?),
            cpu_hours: Sum::from(r.get::<_, f64>(11).map_err(db)?),
            kwh: r.get::<_, Option<f64>>(12).map_err(db)?.map(Sum::from),
            co2e: r.get::<_, Option<f64>>(13).map_err(db)?.map(Sum::from),
            low: Sum::from(r.get::<_, f64>(14).map_err(db)?),
            high: Sum::from(r.get::<_, f64>(15).map_err(db)?),
            unknown_uncertainty: r.get(16).map_err(db)?,
            cost_usd: r.get::<_, Option<f64>>(17).map_err(db)?.map(Sum::from),
            ..Acc::default()
        };
        let key = match by {
            By::Day => crate::time::iso8601(day.saturating_mul(DAY))[..10].to_string(),
            By::User => r.get(2).map_err(db)?,
            By::Account => r.get(3).map_err(db)?,
            By::Partition => r.get(4).map_err(db)?,
            _ => r.get(0).map_err(db)?,
        };
        let day = i32::try_from(day).unwrap_or(0);
        g.group(&key).merge(&cell, day);
        g.total.merge(&cell, day);
        g.saw_day(day);
        if let Some(notes) = r.get::<_, Option<String>>(18).map_err(db)? {
            g.notes.extend(notes.lines().map(str::to_string));
        }
    }
    drop(rows);
    drop(stmt);
    snapshot.finish().map_err(db)?;
    Ok(Some(g))
}

#[cfg(test)]
mod tests {
    use super::super::report::{self, By, Filter, Group};
    use super::super::{Ledger, Line, Store};
    use crate::model::Labels;

    /// A small deterministic generator (no dependency for a test).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, n: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) % n
        }
    }

    const DAY0: i64 = 1_795_000_000 / 86_400 * 86_400;

    fn line(g: &mut Lcg, n: usize) -> Line {
        // A run's records mostly share its model, day and user; one in ten strays (a split run).
        let r = g.next(70);
        let run = (g.next(5) > 0).then(|| format!("r{r}"));
        let stray = g.next(10) == 0;
        let of_run = |g: &mut Lcg, n: u64| if stray { g.next(n) } else { r % n };
        let (model, day, who) = (of_run(g, 3), of_run(g, 3), of_run(g, 3));
        let carbon = g.next(3) > 0;
        let maybe = |g: &mut Lcg, n: u64, d: f64| {
            let v = g.next(n) as f64 / d;
            (g.next(8) > 0).then_some(v)
        };
        let user = ["ann", "bob"].get(who as usize).map(ToString::to_string);
        Line {
            key: format!("k{n}"),
            model: ["A", "B", "C"][model as usize].into(),
            part: run.is_some() && g.next(6) == 0,
            run_id: run,
            recorded_at: DAY0 + (day as i64) * 86_400 + g.next(86_400) as i64,
            host: "h".into(),
            domain: if carbon { "carbon" } else { "cost" }.into(),
            provider: if carbon { "green-ai-default" } else { "flat-rate" }.into(),
            provider_kind: "yaml".into(),
            provider_digest: "d".into(),
            gpu_hours: g.next(100) as f64 / 8.0,
            cpu_hours: g.next(100) as f64 / 16.0,
            kwh: if carbon { maybe(g, 1000, 7.0) } else { None },
            co2e_g: if carbon { maybe(g, 100_000, 3.0) } else { None },
            cost_usd: if carbon { None } else { maybe(g, 10_000, 9.0) },
            uncertainty: if carbon { maybe(g, 1, 1.0 / 0.3) } else { None },
            measured: g.next(3) == 0,
            duration_s: None,
            device_count: None,
            measured_kwh: None,
            labels: Labels { user, account: Some("proj".into()), partition: None },
            estimate: "{}".into(),
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-300)
    }

    fn same(a: &Group, b: &Group) {
        assert_eq!(
            (&a.key, a.runs, a.runs_measured, a.records.carbon, a.records.cost, a.records_not_counted),
            (&b.key, b.runs, b.runs_measured, b.records.carbon, b.records.cost, b.records_not_counted)
        );
        let opt = |x: Option<f64>, y: Option<f64>| match (x, y) {
            (Some(x), Some(y)) => close(x, y),
            (None, None) => true,
            _ => false,
        };
        assert!(close(a.gpu_hours, b.gpu_hours) && close(a.cpu_hours, b.cpu_hours), "{}: hours", a.key);
        assert!(opt(a.kwh, b.kwh) && opt(a.co2e_g, b.co2e_g) && opt(a.cost_usd, b.cost_usd), "{}: sums", a.key);
        assert_eq!(a.co2e_range_g.is_some(), b.co2e_range_g.is_some(), "{}: range", a.key);
        if let (Some(x), Some(y)) = (a.co2e_range_g, b.co2e_range_g) {
            assert!(close(x[0], y[0]) && close(x[1], y[1]));
        }
        assert_eq!(a.trend.len(), b.trend.len(), "{}: trend", a.key);
        assert!(a.trend.iter().zip(&b.trend).all(|(x, y)| close(*x, *y)), "{}: trend", a.key);
    }

    #[test]
    fn reports_from_the_cells_are_the_reports_from_the_records() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("r.sqlite3")).unwrap();
        let mut g = Lcg(7);
        let mut n = 0;
        // Written as exa writes: one record at a time, and in batches (an import).
        for batch in [1, 1, 1, 40, 1, 1, 120, 1, 60, 1, 1, 30] {
            let lines: Vec<Line> = (0..batch)
                .map(|_| {
                    n += 1;
                    line(&mut g, n)
                })
                .collect();
            store.write(&lines).unwrap();
        }
        let split: i64 = store.conn().query_row("SELECT count(*) FROM report_split_runs", [], |r| r.get(0)).unwrap();
        assert!(split > 0, "some runs fall on two days");
        let notes_in_cells: i64 =
            store.conn().query_row("SELECT count(*) FROM report_cells WHERE notes IS NOT NULL", [], |r| r.get(0)).unwrap();
        assert!(notes_in_cells > 0, "some runs in one cell have records not counted");
        let filters = [
            Filter::default(),
            Filter { model: Some("B".into()), ..Filter::default() },
            Filter { since: Some(DAY0 + 86_400), ..Filter::default() },
            Filter { since: Some(DAY0), until: Some(DAY0 + 2 * 86_400), trend: true, ..Filter::default() },
            Filter { model: Some("A".into()), until: Some(DAY0 + 86_400), ..Filter::default() },
            Filter { trend: true, ..Filter::default() },
        ];
        for by in [By::Model, By::Day, By::User, By::Account, By::Partition] {
            for f in &filters {
                let cells = super::report(&store, by, f).unwrap().expect("the cells answer it").finish().unwrap();
                let scan = report::gather(&store, by, f, false).unwrap().finish().unwrap();
                assert_eq!(cells.0.len(), scan.0.len(), "{by:?} {f:?}");
                for (a, b) in cells.0.iter().zip(&scan.0) {
                    same(a, b);
                }
                same(&cells.1, &scan.1);
                assert_eq!(cells.2, scan.2, "{by:?} {f:?}: notes");
            }
        }
        // Not from the cells: by provider or run, and bounds within a day.
        assert!(super::report(&store, By::Provider, &Filter::default()).unwrap().is_none());
        assert!(super::report(&store, By::Run, &Filter::default()).unwrap().is_none());
        assert!(super::report(&store, By::Model, &Filter { since: Some(DAY0 + 3600), ..Filter::default() }).unwrap().is_none());
    }

    #[test]
    fn records_written_behind_exas_back_are_scanned_until_exa_writes_again() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("r.sqlite3")).unwrap();
        let mut g = Lcg(11);
        store.write(&(0..20).map(|i| line(&mut g, i)).collect::<Vec<_>>()).unwrap();
        assert!(super::report(&store, By::Model, &Filter::default()).unwrap().is_some());
        let cols = "model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest, gpu_hours, cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, part";
        store
            .conn()
            .execute(&format!("INSERT INTO records ({cols}, idem_key) SELECT {cols}, 'sql' FROM records WHERE id = 1"), [])
            .unwrap();
        assert!(super::report(&store, By::Model, &Filter::default()).unwrap().is_none(), "the cells are behind: scan");
        store.write(&[line(&mut g, 99)]).unwrap();
        let cells = super::report(&store, By::Model, &Filter::default()).unwrap().expect("made again").finish().unwrap();
        let scan = report::gather(&store, By::Model, &Filter::default(), false).unwrap().finish().unwrap();
        same(&cells.1, &scan.1);
        assert_eq!(cells.1.records.carbon + cells.1.records.cost + cells.1.records_not_counted, 22);
    }
}
