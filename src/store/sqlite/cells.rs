//! Summary cells: the SQLite ledger's report sums, kept as records arrive.
//!
//! A cell is one model's records of one UTC day for one scheduler user,
//! account and partition. It holds what `report` would sum over them: runs
//! counted once each, per run and domain the records `rule::choose`
//! counts (a measurement over an estimate, parts summed, repeats once), and
//! the notes on what it did not count. The writer recomputes a cell from
//! its records, in the transaction that adds one, so a cell is never
//! patched by subtraction and never out of date. A first write into an
//! empty ledger (a cluster's history imported) makes every cell from the
//! lines it wrote, as they read back, rather than reading them back.
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
use super::sums::{bind_sums, CellSums, SUMS, SUMS_COUNT};
use crate::store::report::{count_runs, Acc, Cell, Runs, DAY, NONE};
use crate::store::rule::Row;
use crate::store::{columns::Figure, Line};
use crate::text::{FnvMap, FnvSet};

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

/// The cells' index from schema 11: by a record's cell's number, then its time.
const KEYED_INDEX: &str = "CREATE INDEX records_cell ON records (cell, recorded_at)";

/// A record's cell but for its day, as a number: FNV-1a (64 bits) of its model, user, account and partition (each
/// `(none)` where it has none, as the cells name it), each followed by a byte UTF-8 text never holds. Records of one
/// cell have one number; two cells rarely share one, and a cell's records are read by the number and then their
/// own words (`write`).
pub(crate) fn key(model: &str, user: Option<&str>, account: Option<&str>, partition: Option<&str>) -> i64 {
    use std::hash::Hasher;
    let mut h = crate::text::Fnv::default();
    for word in [Some(model), user.or(Some(NONE)), account.or(Some(NONE)), partition.or(Some(NONE))].into_iter().flatten() {
        h.write(word.as_bytes());
        h.write(&[0xff]);
    }
    i64::from_ne_bytes(h.finish().to_ne_bytes())
}

/// Schema 11: every record kept before gets its cell's number, and the cells' index is made by the numbers. The
/// records are append-only, so their trigger is set aside for this one update, in the migration's transaction.
pub(crate) fn keyed(tx: &Connection) -> rusqlite::Result<()> {
    let keys: Vec<(i64, i64)> = {
        let mut q = tx.prepare("SELECT id, model, job_user, job_account, job_partition FROM records WHERE cell IS NULL")?;
        let rows = q.query_map([], |r| {
            let text = |i: usize| r.get::<_, Option<String>>(i);
            Ok((r.get(0)?, key(&r.get::<_, String>(1)?, text(2)?.as_deref(), text(3)?.as_deref(), text(4)?.as_deref())))
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    if !keys.is_empty() {
        use rusqlite::OptionalExtension;
        let trigger: Option<String> = tx
            .query_row("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'records_no_update'", [], |r| r.get(0))
            .optional()?;
        if trigger.is_some() {
            tx.execute_batch("DROP TRIGGER records_no_update")?;
        }
        let mut set = tx.prepare("UPDATE records SET cell = ?2 WHERE id = ?1")?;
        for (id, cell) in keys {
            set.execute([id, cell])?;
        }
        if let Some(trigger) = trigger {
            tx.execute_batch(&trigger)?;
        }
    }
    tx.execute_batch(KEYED_INDEX)
}

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

/// The cell of a line, in the line's own words: hashed as `Cell` hashes (the same fields, in order, `str` for
/// `String`), and equal to the `Cell` it names.
#[derive(Hash)]
struct CellOf<'l> {
    model: &'l str,
    day: i64,
    user: &'l str,
    account: &'l str,
    partition: &'l str,
}

impl<'l> CellOf<'l> {
    fn of(l: &'l Line) -> CellOf<'l> {
        let or_none = |v: &'l Option<crate::model::Word>| v.as_deref().unwrap_or(NONE);
        CellOf {
            model: &l.model,
            day: l.recorded_at.div_euclid(DAY),
            user: or_none(&l.labels.user),
            account: or_none(&l.labels.account),
            partition: or_none(&l.labels.partition),
        }
    }
}

impl indexmap::Equivalent<Cell> for CellOf<'_> {
    fn equivalent(&self, c: &Cell) -> bool {
        self.model == c.model && self.day == c.day && self.user == c.user && self.account == c.account && self.partition == c.partition
    }
}

/// Cells, each known by its place.
type CellSet = indexmap::IndexSet<Cell, std::hash::BuildHasherDefault<crate::text::Fnv>>;

/// What a writer wrote, for the cells: every cell written (each once, known by its place in `cells`), each run
/// written with the one cell it was written in (None: more than one), and, in a first write into an empty
/// ledger, every line as the cells count it (its runs are then found from those lines, and `runs` stays empty).
#[derive(Default)]
pub(crate) struct CellsTouched {
    cells: CellSet,
    runs: FnvMap<String, Option<u32>>,
    /// The run and cell of the line before: a job's records arrive one after another, in one cell.
    last: Option<(String, u32)>,
    fresh: Option<FirstWrite>,
}

/// The lines of a first write into an empty ledger, kept as they were written so that the cells are counted
/// from them (`FirstWrite::count`) rather than read back: in blocks of `BLOCK` as they arrive, so that the writer's
/// thread never copies a million lines to a larger room; `ready` puts them together, on a thread of its own.
#[derive(Default)]
struct FirstWrite {
    blocks: Vec<Vec<CellLine>>,
    names: String,
    /// The run of the line before, a span of `names`: a job's records name it once there.
    last_run: Option<(u64, u64)>,
    /// How many spans `names` has (at most as many runs).
    spans: usize,
}

const BLOCK: usize = 1 << 16;

/// A line as the cells count it, in less room than its `Row`: its cell, time, record id, run (a span of
/// `FirstWrite::names`; `NO_RUN` for none), flags (carbon, measured, part) and figures (NaN for none: a stored
/// figure is never NaN).
struct CellLine {
    cell: u32,
    at: i64,
    id: i64,
    run: (u64, u64),
    flags: u8,
    figures: [f64; 14],
}

const NO_RUN: (u64, u64) = (u64::MAX, u64::MAX);

impl CellLine {
    /// The line `l`, stored as the record `id`, as `read_row` reads it back: SQLite keeps no NaN (it stores
    /// NULL) and no negative zero (a whole REAL is kept as an integer).
    fn of(cell: u32, id: i64, run: (u64, u64), l: &Line) -> CellLine {
        let real = |v: Option<f64>| v.filter(|x| !x.is_nan()).map_or(f64::NAN, |x| x + 0.0);
        let flags = u8::from(l.domain == "carbon") | u8::from(l.measured) << 1 | u8::from(l.part) << 2;
        let w = &l.work;
        let figures = [
            real(Some(l.gpu_hours)),
            real(Some(l.cpu_hours)),
            real(l.figures.get(Figure::Kwh)),
            real(l.figures.get(Figure::Co2eG)),
            real(l.figures.get(Figure::Uncertainty)),
            real(l.figures.get(Figure::CostUsd)),
            real(l.figures.get(Figure::EmbodiedCo2eG)),
            real(l.figures.get(Figure::WaterL)),
            real(w.tokens),
            real(w.prompt_tokens),
            real(w.requests),
            real(w.unit.as_ref().map(|u| u.1)),
            real(l.figures.get(Figure::NodeKwh)),
            real(l.figures.get(Figure::NodeRestKwh)),
        ];
        CellLine { cell, at: l.recorded_at, id, run, flags, figures }
    }

    fn row(&self) -> Row {
        let f = |i: usize| Some(self.figures[i]).filter(|x| !x.is_nan());
        Row {
            id: self.id,
            group: 0,
            day: 0,
            carbon: self.flags & 1 != 0,
            measured: self.flags & 2 != 0,
            part: self.flags & 4 != 0,
            gpu_hours: f(0).unwrap_or(0.0),
            cpu_hours: f(1).unwrap_or(0.0),
            kwh: f(2),
            co2e: f(3),
            uncertainty: f(4),
            cost_usd: f(5),
            embodied: f(6),
            water: f(7),
            node: [f(12), f(13)],
            work: [f(8), f(9), f(10), f(11)],
        }
    }
}

impl CellsTouched {
    /// What a writer writes; `fresh`: the ledger is empty, and its cells include every record (none).
    pub(crate) fn new(fresh: bool) -> CellsTouched {
        CellsTouched { fresh: fresh.then(FirstWrite::default), ..CellsTouched::default() }
    }

    /// Notes a line written as the record `id`.
    pub(crate) fn add(&mut self, id: i64, l: &Line) {
        let same = match (&l.run_id, &self.last) {
            (Some(run), Some((last_run, last))) if run == last_run && self.cells[*last as usize].holds(l) => Some(*last),
            _ => None,
        };
        let cell = match same {
            Some(cell) => cell,
            None => self.note(l),
        };
        if let Some(fresh) = &mut self.fresh {
            let run = l.run_id.as_deref().map_or(NO_RUN, |r| match fresh.last_run {
                Some(span) if fresh.name(span) == r => span,
                _ => {
                    let span = (fresh.names.len() as u64, r.len() as u64);
                    fresh.names.push_str(r);
                    fresh.last_run = Some(span);
                    fresh.spans += 1;
                    span
                }
            });
            // The first block grows as lines come (a single record's write makes room for few); each after it
            // is made whole at once.
            debug_assert!(fresh.blocks.last().and_then(|b| b.last()).is_none_or(|k| k.id < id), "a first write's ids rise");
            if fresh.blocks.last().is_none_or(|b| b.len() == BLOCK) {
                fresh.blocks.push(if fresh.blocks.is_empty() { Vec::new() } else { Vec::with_capacity(BLOCK) });
            }
            if let Some(block) = fresh.blocks.last_mut() {
                block.push(CellLine::of(cell, id, run, l));
            }
        }
    }

    /// Notes the cell and run of a line that is not in the line before's: its cell.
    fn note(&mut self, l: &Line) -> u32 {
        // Found by the line's own words; a cell is made only for one not written before.
        let at = match self.cells.get_index_of(&CellOf::of(l)) {
            Some(i) => i,
            None => self.cells.insert_full(Cell::of(l)).0,
        };
        let cell = u32::try_from(at).unwrap_or(u32::MAX);
        // A first write's runs are known from its lines, on the thread that counts them (`ready`).
        if let Some(run) = l.run_id.as_ref().filter(|_| self.fresh.is_none()) {
            match self.runs.get_mut(run.as_str()) {
                Some(one) => {
                    if *one != Some(cell) {
                        *one = None;
                    }
                }
                None => {
                    self.runs.insert(run.to_string(), Some(cell));
                }
            }
        }
        // The run kept in the last one's room: a million jobs' first lines make no copy of their run each.
        match (&mut self.last, &l.run_id) {
            (Some((last, at)), Some(run)) => {
                last.clear();
                last.push_str(run);
                *at = cell;
            }
            (last, run) => *last = run.as_deref().map(|r| (r.to_string(), cell)),
        }
        cell
    }
}

impl FirstWrite {
    /// The kept lines, one after another.
    fn lines(&self) -> impl Iterator<Item = &CellLine> {
        self.blocks.iter().flatten()
    }

    /// The `i`th kept line (every block but the last holds `BLOCK`).
    fn line(&self, i: usize) -> Option<&CellLine> {
        self.blocks.get(i / BLOCK).and_then(|b| b.get(i % BLOCK))
    }

    /// Counts the `cells` cells (each at its place, the order they were first written in) from the lines, leaving
    /// out the runs `split` names, as `fill` counts them from the records: each cell's records in the order of the
    /// cells' index (their time, then their id). Touches no database, so it runs beside the indexes being made
    /// again.
    ///
    /// The lines stay where they are: their places are put in their cells' order (counted, each cell's places
    /// after the cells before it's), and each cell's few places then in order of time and id. The cells are
    /// counted in the order they were first written in, so their lines are read nearly in the order they lie
    /// (in the order of the cells' table, each cell's lines were a read from anywhere in some 270 MB).
    fn count(&self, cells: usize, split: &FnvSet<&str>) -> Vec<CellSums> {
        let mut starts = vec![0usize; cells + 1];
        for k in self.lines() {
            if let Some(n) = starts.get_mut(k.cell as usize + 1) {
                *n += 1;
            }
        }
        let mut sum = 0;
        for n in &mut starts {
            sum += *n;
            *n = sum;
        }
        // Each line's time beside its place, so that a cell's places are put in order without reading its lines.
        let mut next = starts.clone();
        let mut by_cell = vec![(0i64, 0usize); starts.last().copied().unwrap_or(0)];
        for (i, k) in self.lines().enumerate() {
            if let Some(at) = next.get_mut(k.cell as usize) {
                if let Some(place) = by_cell.get_mut(*at) {
                    *place = (k.at, i);
                }
                *at += 1;
            }
        }
        let mut counted = Vec::with_capacity(cells);
        for cell in 0..cells {
            let span = starts.get(cell).zip(starts.get(cell + 1));
            let places = span.and_then(|(&from, &to)| by_cell.get_mut(from..to)).unwrap_or_default();
            // A cell's places come in the lines' order, which is their ids': by time, ties in that order.
            places.sort_by_key(|&(at, _)| at);
            let mut sums = Sums::default();
            for k in places.iter().filter_map(|&(_, i)| self.line(i)) {
                match (k.run != NO_RUN).then(|| self.name(k.run)) {
                    Some(run) if split.contains(run) => {}
                    Some(run) => sums.runs.push(run, k.row()),
                    None => sums.alone.run_simple(&[k.row()]),
                }
            }
            counted.push(sums.count());
        }
        counted
    }

    /// The run a span of `names` names.
    fn name(&self, (start, len): (u64, u64)) -> &str {
        let span = usize::try_from(start).ok().zip(usize::try_from(len).ok()).map(|(s, l)| s..s.saturating_add(l));
        // Every span is one `add` took from `names`, so it is there.
        span.and_then(|span| self.names.get(span)).expect("a kept line's run is in the names")
    }

    /// The runs written into more than one cell (split).
    fn split(&self) -> FnvSet<&str> {
        let mut runs: FnvMap<&str, Option<u32>> = FnvMap::default();
        runs.reserve(self.spans);
        let mut last = None;
        for k in self.lines().filter(|k| k.run != NO_RUN) {
            // A job's records, one after another in one cell, name their run by one span: looked up once.
            if last == Some((k.run, k.cell)) {
                continue;
            }
            last = Some((k.run, k.cell));
            runs.entry(self.name(k.run))
                .and_modify(|one| {
                    if *one != Some(k.cell) {
                        *one = None;
                    }
                })
                .or_insert(Some(k.cell));
        }
        runs.into_iter().filter(|(_, one)| one.is_none()).map(|(run, _)| run).collect()
    }
}

/// What a writer leaves for the cells (`after_write`): a first write's cells counted from its lines already, or
/// what it wrote, for the cells to be made from the records.
pub(crate) enum Ready {
    /// Every cell of a first write into an empty ledger, each counted (at its place in `cells`), their places in
    /// the order of the cells' table, and the runs it wrote into two cells (split).
    CellSums {
        cells: CellSet,
        counted: Vec<CellSums>,
        order: Vec<u32>,
        split: Vec<String>,
    },
    CellsTouched(CellsTouched),
}

impl CellsTouched {
    /// Whether the cells will be counted from the lines as written (`ready`'s work is then worth a thread).
    pub(crate) fn counts_lines(&self) -> bool {
        self.fresh.is_some()
    }

    /// Counts a first write's cells from its lines (nothing else is done here: that is `after_write`'s, from
    /// the records, in the writer's transaction). Touches no database.
    pub(crate) fn ready(mut self) -> Ready {
        let Some(fresh) = self.fresh.take() else {
            return Ready::CellsTouched(self);
        };
        // Every record is this write's: a run written into two cells is split, and every cell is counted from
        // the lines as written.
        let split = fresh.split();
        // Stored in the order of the cells' table (its key's: model, day, user, account, partition), so that each is
        // added at the end of it rather than into pages all over it.
        // The cells stay where they are, and each count is made once into a list made once: a first import's
        // cells are some 400,000, and a list of them moved and grown would be some 500 MB of pages the kernel
        // must first zero, on a thread that shares the cores with the indexes being made.
        let mut order: Vec<u32> = (0..u32::try_from(self.cells.len()).unwrap_or(u32::MAX)).collect();
        order.sort_unstable_by(|&a, &b| self.cells[a as usize].cmp(&self.cells[b as usize]));
        let counted = fresh.count(self.cells.len(), &split);
        let split = split.into_iter().map(str::to_string).collect();
        Ready::CellSums { cells: self.cells, counted, order, split }
    }
}

/// Empties the cells, and keeps the runs `split` names out of them.
fn clear<'a>(tx: &Connection, split: impl Iterator<Item = &'a str>) -> rusqlite::Result<()> {
    tx.execute_batch("DELETE FROM report_cells; DELETE FROM report_split_runs;")?;
    let mut add = tx.prepare_cached("INSERT INTO report_split_runs (run_id) VALUES (?1)")?;
    for run in split {
        add.execute([run])?;
    }
    Ok(())
}

/// In a writer's transaction, after it wrote: the cells of what it wrote made again (or stored, as counted from
/// a first write's lines), or every cell where they were behind before it wrote; they then include every record.
/// `before` is the newest record before the write (0: the ledger was empty, and every record is one it wrote).
pub(crate) fn after_write(tx: &Connection, were_current: bool, ready: Ready, before: i64) -> rusqlite::Result<()> {
    match ready {
        _ if !were_current => rebuild(tx)?,
        // Lines are counted only in a first write into an empty ledger (`CellsTouched::new`): every record is its.
        Ready::CellSums { cells, counted, order, split } => {
            debug_assert_eq!(before, 0);
            clear(tx, split.iter().map(String::as_str))?;
            // The cells emptied: each counted one is added, in the table's order, by one statement held for all.
            let mut add = tx.prepare(&INSERT)?;
            let of = |at: &u32| Some((cells.get_index(*at as usize)?, counted.get(*at as usize)?));
            for (cell, counted) in order.iter().filter_map(of).filter(|(_, c)| c.runs > 0) {
                insert(&mut add, cell, counted)?;
            }
            super::rollup::recount(tx, None)?;
        }
        Ready::CellsTouched(CellsTouched { cells, runs, .. }) => {
            let runs: BTreeMap<String, bool> = runs.into_iter().map(|(r, one)| (r, one.is_some())).collect();
            let written = refresh(tx, &runs, cells.into_iter().collect(), before)?;
            super::rollup::recount(tx, Some(&written))?;
        }
    }
    tx.execute("UPDATE report_cells_upto SET id = (SELECT COALESCE(max(id), 0) FROM records)", [])?;
    Ok(())
}

/// Brings up to date, in the writer's transaction, the cells of the records just written and
/// of their runs: a run found in two cells is split, and every cell it was in is made again.
///
/// A run first written now, all into one cell, lies in that cell alone: it cannot be split, and
/// one look at the index for an older record of it says so (an import of a million new runs
/// then reads none of them back). Answers the cells made again.
pub(crate) fn refresh(
    tx: &Connection,
    runs: &BTreeMap<String, bool>,
    mut cells: BTreeSet<Cell>,
    before: i64,
) -> rusqlite::Result<BTreeSet<Cell>> {
    let mut earlier = tx.prepare_cached("SELECT 1 FROM records WHERE run_id = ?1 AND id <= ?2 LIMIT 1")?;
    let mut is_split = tx.prepare_cached("SELECT 1 FROM report_split_runs WHERE run_id = ?1")?;
    let mut split = tx.prepare_cached("INSERT INTO report_split_runs (run_id) VALUES (?1)")?;
    for (run, one_cell) in runs {
        if *one_cell && !earlier.exists(params![run, before])? {
            continue;
        }
        if is_split.exists([run])? {
            continue;
        }
        let seen = cells_of_run(tx, run)?;
        if seen.len() > 1 {
            split.execute([run])?;
            cells.extend(seen);
        }
    }
    for cell in &cells {
        write(tx, cell)?;
    }
    Ok(cells)
}

/// The cells a run's records lie in.
fn cells_of_run(tx: &Connection, run: &str) -> rusqlite::Result<BTreeSet<Cell>> {
    let mut of_run =
        tx.prepare_cached("SELECT DISTINCT model, recorded_at, job_user, job_account, job_partition FROM records WHERE run_id = ?1")?;
    let seen = of_run.query_map([run], cell_read)?.collect();
    seen
}

/// Makes every cell again from the records (the migration that adds them, and a writer that
/// finds them behind).
pub(crate) fn rebuild(tx: &Connection) -> rusqlite::Result<()> {
    // Every run of more than one record, each looked at whole: those in two cells are split.
    let mut split = Vec::new();
    {
        let mut q = tx.prepare("SELECT run_id FROM records WHERE run_id IS NOT NULL GROUP BY run_id HAVING count(*) > 1")?;
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            let run: String = r.get(0)?;
            if cells_of_run(tx, &run)?.len() > 1 {
                split.push(run);
            }
        }
    }
    fill(tx, &split)?;
    super::rollup::recount(tx, None)?;
    tx.execute("UPDATE report_cells_upto SET id = (SELECT COALESCE(max(id), 0) FROM records)", [])?;
    Ok(())
}

/// Makes every cell from the records, the runs `split` kept out of them, in one pass over the records in the
/// cells' order: each cell's records one after another, by time, then id.
fn fill(tx: &Connection, split: &[String]) -> rusqlite::Result<()> {
    clear(tx, split.iter().map(String::as_str))?;
    let mut q = tx.prepare(
        "SELECT model, recorded_at, job_user, job_account, job_partition, id, run_id, domain = 'carbon', measured, part, gpu_hours,
                cpu_hours, kwh, co2e_g, uncertainty, cost_usd, embodied_co2e_g, water_l, tokens, prompt_tokens, requests, units,
                node_kwh, node_rest_kwh
         FROM records WHERE run_id IS NULL OR run_id NOT IN (SELECT run_id FROM report_split_runs)
         ORDER BY model, COALESCE(job_user, '(none)'), COALESCE(job_account, '(none)'), COALESCE(job_partition, '(none)'), recorded_at, id",
    )?;
    let mut rows = q.query([])?;
    let mut at: Option<(Cell, Sums)> = None;
    while let Some(r) = rows.next()? {
        if !at.as_ref().is_some_and(|(cell, _)| in_cell(r, cell)) {
            if let Some((cell, sums)) = at.take() {
                put(tx, &cell, sums)?;
            }
            at = Some((cell_read(r)?, Sums::default()));
        }
        if let Some((_, sums)) = &mut at {
            sums.add(r, 5);
        }
    }
    if let Some((cell, sums)) = at {
        put(tx, &cell, sums)?;
    }
    Ok(())
}

/// Whether the row's columns `model, recorded_at, job_user, job_account, job_partition` are `cell`'s.
fn in_cell(r: &rusqlite::Row, cell: &Cell) -> bool {
    let text = |i: usize, want: &str| match r.get_ref_unwrap(i) {
        ValueRef::Text(t) => t == want.as_bytes(),
        ValueRef::Null => want == NONE,
        _ => false,
    };
    let day = match r.get_ref_unwrap(1) {
        ValueRef::Integer(t) => t.div_euclid(DAY) == cell.day,
        _ => false,
    };
    day && text(0, &cell.model) && text(2, &cell.user) && text(3, &cell.account) && text(4, &cell.partition)
}

/// One cell's records as they are read: those of runs, and those of none.
#[derive(Default)]
struct Sums {
    runs: Runs,
    alone: Acc,
}

impl Sums {
    /// Adds the record of the columns `row_columns` gives, starting at `at`.
    fn add(&mut self, r: &rusqlite::Row, at: usize) {
        let row = read_row(r, at);
        match r.get_ref_unwrap(at + 1) {
            ValueRef::Text(run) => self.runs.push(&String::from_utf8_lossy(run), row),
            _ => self.alone.run_simple(&[row]),
        }
    }
}

/// Makes one cell from its records, leaving out split runs; a cell left with no run is removed.
///
/// Its records are found by its number and day in the cells' index, and those without a number (written otherwise
/// than by exa) by their day there; each is then known by its own words. In the order `fill` and a first write's
/// count take them: by time, then id.
fn write(tx: &Connection, cell: &Cell) -> rusqlite::Result<()> {
    let mut q = tx.prepare_cached(
        "SELECT id, run_id, domain = 'carbon', measured, part, gpu_hours, cpu_hours, kwh, co2e_g, uncertainty, cost_usd,
                embodied_co2e_g, water_l, tokens, prompt_tokens, requests, units, node_kwh, node_rest_kwh FROM records
         WHERE (cell = ?7 OR cell IS NULL) AND recorded_at >= ?2 AND recorded_at < ?3 AND model = ?1
           AND COALESCE(job_user, '(none)') = ?4 AND COALESCE(job_account, '(none)') = ?5 AND COALESCE(job_partition, '(none)') = ?6
           AND (run_id IS NULL OR run_id NOT IN (SELECT run_id FROM report_split_runs))
         ORDER BY recorded_at, id",
    )?;
    let start = cell.day.saturating_mul(DAY);
    let number = key(&cell.model, Some(&cell.user), Some(&cell.account), Some(&cell.partition));
    let mut rows = q.query(params![cell.model, start, start.saturating_add(DAY), cell.user, cell.account, cell.partition, number])?;
    let mut sums = Sums::default();
    while let Some(r) = rows.next()? {
        sums.add(r, 0);
    }
    put(tx, cell, sums)
}

impl Sums {
    /// The cell's records counted by the rule.
    fn count(self) -> CellSums {
        let Sums { runs, alone } = self;
        let mut sums = [alone];
        let mut total = Acc::default();
        let notes = count_runs(runs, &mut sums, &mut total, None);
        let [acc] = sums;
        CellSums::of(&acc, &notes)
    }
}

/// Stores a cell's sums (counted by the rule); a cell with no run is removed.
fn put(tx: &Connection, cell: &Cell, sums: Sums) -> rusqlite::Result<()> {
    store(tx, cell, &sums.count())
}

/// Stores a cell as counted; a cell with no run is removed.
fn store(tx: &Connection, cell: &Cell, counted: &CellSums) -> rusqlite::Result<()> {
    if counted.runs == 0 {
        tx.prepare_cached(
            "DELETE FROM report_cells WHERE model = ?1 AND day = ?2 AND job_user = ?3 AND job_account = ?4 AND job_partition = ?5",
        )?
        .execute(params![cell.model, cell.day, cell.user, cell.account, cell.partition])?;
        return Ok(());
    }
    let mut add = tx.prepare_cached(&INSERT)?;
    insert(&mut add, cell, counted)
}

/// Adds (or replaces) a cell: its key, then its sums in `SUMS`' order (as `bind_sums` binds them).
static INSERT: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "INSERT OR REPLACE INTO report_cells (model, day, job_user, job_account, job_partition, {SUMS}) VALUES ({})",
        (1..=5 + SUMS_COUNT).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ")
    )
});

/// Stores a cell of at least one run, counted, with `INSERT` prepared.
fn insert(insert: &mut rusqlite::Statement, cell: &Cell, c: &CellSums) -> rusqlite::Result<()> {
    insert.raw_bind_parameter(1, &cell.model)?;
    insert.raw_bind_parameter(2, cell.day)?;
    insert.raw_bind_parameter(3, &cell.user)?;
    insert.raw_bind_parameter(4, &cell.account)?;
    insert.raw_bind_parameter(5, &cell.partition)?;
    bind_sums(insert, 6, c)?;
    insert.raw_execute()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line's cell is found in its own words (`CellOf`), hashed as the `Cell` they name: no cell is made to be
    /// looked up, and one made otherwise is still found.
    #[test]
    fn a_lines_cell_is_found_in_its_own_words() {
        use std::hash::BuildHasher;
        let cell = Cell { model: "m".into(), day: 20_000, user: NONE.into(), account: "a".into(), partition: "gpu".into() };
        let words = CellOf { model: "m", day: 20_000, user: NONE, account: "a", partition: "gpu" };
        let hasher = std::hash::BuildHasherDefault::<crate::text::Fnv>::default();
        assert_eq!(hasher.hash_one(&words), hasher.hash_one(&cell));
        let mut cells: indexmap::IndexSet<Cell, std::hash::BuildHasherDefault<crate::text::Fnv>> = indexmap::IndexSet::default();
        cells.insert(Cell { model: "other".into(), ..cell.clone() });
        cells.insert(cell);
        assert_eq!(cells.get_index_of(&words), Some(1));
        assert_eq!(cells.get_index_of(&CellOf { partition: "cpu", ..words }), None);
    }
}
