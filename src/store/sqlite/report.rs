//! Reports from the SQLite ledger: a scan of the records, or the summary
//! cells and the split runs' records (`cells`), counted by the one rule in
//! `store::report`.

use rusqlite::types::{Value as Sql, ValueRef};

use super::{column_int, read_row, Store};
use crate::error::Error;
use crate::store::report::{
    and_key, cell_key_column, count_runs, nothing, where_sql, Acc, Bound, By, Filter, Gathered, Keys, Per, Report, Runs, DAY, RANGE_METHOD,
};
use crate::store::rule::Row;
use crate::text::FnvMap;

fn clause(f: &Filter) -> (String, Vec<Sql>) {
    clause_for(f, "")
}

/// The WHERE clause of a filter for SQLite, its columns prefixed (`r.` in a join), and its values.
pub(super) fn clause_for(f: &Filter, prefix: &str) -> (String, Vec<Sql>) {
    sqlite_clause(f.conditions(), prefix)
}

/// The WHERE clause of conditions for SQLite, and their values.
fn sqlite_clause(conditions: Vec<(&'static str, Bound)>, prefix: &str) -> (String, Vec<Sql>) {
    let clause = where_sql(&conditions, prefix, |_| "?".into());
    let args = conditions
        .into_iter()
        .map(|(_, b)| match b {
            Bound::Text(t) => Sql::Text(t),
            Bound::Int(i) => Sql::Integer(i),
        })
        .collect();
    (clause, args)
}

/// One scan of the matching records (only those of runs split over summary cells, when `split_only`).
pub(crate) fn gather(store: &Store, by: By, f: &Filter, split_only: bool) -> Result<Gathered, Error> {
    let (mut filter, mut args) = clause(f);
    if split_only {
        let split = "run_id IN (SELECT run_id FROM report_split_runs)";
        filter = if filter.is_empty() { format!("WHERE {split}") } else { format!("{filter} AND {split}") };
    }
    let key = by.sql(crate::store::rule::Dialect::Sqlite, store.version()? >= super::K8S_VERSION);
    if let (Some(k), false) = (&f.key, by == By::Day) {
        filter = and_key(filter, &key, "?");
        args.push(Sql::Text(k.clone()));
    }
    let need = f.per.as_ref().and_then(Per::need);
    let columns = super::row_columns(store.version()?);
    let sql = format!("SELECT {key}, {columns}, recorded_at FROM records {filter}");
    let db = |e: rusqlite::Error| Error::Failed(format!("{}: {e}", store.path.display()));
    let mut stmt = store.conn().prepare(&sql).map_err(db)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(args.iter())).map_err(db)?;
    // Runs are gathered first: what a run counts depends on all of its records.
    let mut runs = Runs::default();
    let mut day_keys: FnvMap<i64, u32> = FnvMap::default();
    let mut g = Gathered {
        keys: Keys::default(),
        groups: Vec::new(),
        total: Acc { trend: f.trend.then(Box::default), ..Acc::default() },
        notes: Vec::new(),
        days: None,
        trend: f.trend,
    };
    while let Some(r) = rows.next().map_err(db)? {
        let group = if by == By::Day {
            let day = r.get::<_, i64>(0).map_err(db)?.div_euclid(DAY);
            *day_keys.entry(day).or_insert_with(|| g.keys.of(&crate::time::iso8601(day * DAY)[..10]))
        } else {
            g.keys.of(r.get_ref(0).map_err(db)?.as_str().map_err(|e| Error::Failed(format!("{}: {e}", store.path.display())))?)
        };
        if g.groups.len() <= group as usize {
            g.groups.push(Acc { trend: f.trend.then(Box::default), ..Acc::default() });
        }
        let day = i32::try_from(column_int(r, 1 + super::ROW_COLUMNS).div_euclid(DAY)).unwrap_or(0);
        let row = Row { group, day, ..read_row(r, 1) };
        g.saw_day(row.day);
        match r.get_ref(2).map_err(db)? {
            ValueRef::Text(run) => runs.push(&String::from_utf8_lossy(run), row),
            // A record without a run is a run of its own.
            _ if need.is_some_and(|i| row.work[i].is_none()) => {}
            _ => {
                g.total.run_simple(&[row]);
                g.groups[group as usize].run_simple(&[row]);
            }
        }
    }
    g.notes = count_runs(runs, &mut g.groups, &mut g.total, need);
    Ok(g)
}

/// The sums of a report read from the cells and the split runs' records; None where the cells
/// cannot answer it (grouped by provider or run, bounds within a day, a store without cells).
fn from_cells(store: &Store, by: By, f: &Filter) -> Result<Option<Gathered>, Error> {
    let Some(conditions) = f.cell_conditions() else { return Ok(None) };
    // The cells of a schema before the work's, or counted by the rule before its measurements kept every kind of
    // work: scanned, as their records are (a reader never migrates).
    if !by.in_cells() || store.version()? < super::RULE_VERSION {
        return Ok(None);
    }
    let db = |e: rusqlite::Error| Error::Failed(format!("{}: {e}", store.path.display()));
    // One snapshot for the check, the split runs' records and the cells: a writer between them changes neither.
    let snapshot = store.conn().unchecked_transaction().map_err(db)?;
    if !super::cells::current(&snapshot).map_err(db)? {
        return Ok(None);
    }
    let mut g = gather(store, by, f, true)?;
    // The rollup's rows where they answer (a row a day a model, user, account or partition), else the cells.
    let version = store.version()?;
    let from_rollup = if version >= super::ROLLUP_VERSION { super::rollup::select(by, f, version) } else { None };
    let rollup = from_rollup.is_some();
    let (sql, args) = from_rollup.unwrap_or_else(|| {
        let (mut filter, mut args) = sqlite_clause(conditions, "");
        let column = cell_key_column(by).unwrap_or("model");
        if let (Some(k), By::Model | By::User | By::Account | By::Partition) = (&f.key, by) {
            filter = and_key(filter, column, "?");
            args.push(Sql::Text(k.clone()));
        }
        (format!("SELECT {column}, day, {} FROM report_cells {filter}", super::sums::sums_in(version)), args)
    });
    let mut stmt = store.conn().prepare(&sql).map_err(db)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(args.iter())).map_err(db)?;
    while let Some(r) = rows.next().map_err(db)? {
        let day: i64 = r.get(1).map_err(db)?;
        let (mut cell, notes) = super::sums::read_sums(r, 2).map_err(db)?;
        if rollup {
            if let ValueRef::Blob(b) = r.get_ref(2 + super::sums::SUMS_COUNT).map_err(db)? {
                super::sums::with_residuals(&mut cell, b);
            }
        }
        let key = match by {
            By::Day => crate::time::iso8601(day.saturating_mul(DAY))[..10].to_string(),
            _ => r.get(0).map_err(db)?,
        };
        let day = i32::try_from(day).unwrap_or(0);
        g.group(&key).merge(&cell, day);
        g.total.merge(&cell, day);
        g.saw_day(day);
        if let Some(notes) = notes {
            g.notes.extend(notes.lines().map(str::to_string));
        }
    }
    drop(rows);
    drop(stmt);
    snapshot.finish().map_err(db)?;
    Ok(Some(g))
}

pub fn run(store: &Store, by: By, filter: Filter) -> Result<Report, Error> {
    let gathered = match from_cells(store, by, &filter)? {
        Some(g) => g,
        None => gather(store, by, &filter, false)?,
    };
    let (groups, totals, notes) = gathered.finish()?;
    let totals = if groups.is_empty() { nothing() } else { totals };
    Ok(Report { by, filter, db: store.path.display().to_string(), groups, totals, range_method: RANGE_METHOD, notes })
}

#[cfg(test)]
mod tests {
    use super::{from_cells, gather};
    use crate::model::Labels;
    use crate::store::columns::{Figure, FigureSet};
    use crate::store::report::{By, Filter, Group};
    use crate::store::{Ledger, Line, Store};

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
        let run = (g.next(5) > 0).then(|| crate::model::Word::from(format!("r{r}")));
        let stray = g.next(10) == 0;
        let of_run = |g: &mut Lcg, n: u64| if stray { g.next(n) } else { r % n };
        let (model, day, who) = (of_run(g, 3), of_run(g, 3), of_run(g, 3));
        let carbon = g.next(3) > 0;
        let maybe = |g: &mut Lcg, n: u64, d: f64| {
            let v = g.next(n) as f64 / d;
            (g.next(8) > 0).then_some(v)
        };
        let user = ["ann", "bob"].get(who as usize).map(|u| crate::model::Word::from(*u));
        let mut line = Line {
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
            // Drawn in this order, as the generator always has.
            figures: {
                let kwh = if carbon { maybe(g, 1000, 7.0) } else { None };
                let co2e = if carbon { maybe(g, 100_000, 3.0) } else { None };
                let cost = if carbon { None } else { maybe(g, 10_000, 9.0) };
                let u = if carbon { maybe(g, 1, 1.0 / 0.3) } else { None };
                FigureSet::default()
                    .with(Figure::Kwh, kwh)
                    .with(Figure::Co2eG, co2e)
                    .with(Figure::CostUsd, cost)
                    .with(Figure::Uncertainty, u)
            },
            measured: g.next(3) == 0,
            device_count: None,
            labels: Labels { user, account: Some("proj".into()), ..Labels::default() },
            work: crate::model::Work::default(),
            node_policy: None,
            estimate: "{}".into(),
        };
        line.figures.set(Figure::EmbodiedCo2eG, if carbon { maybe(g, 1000, 11.0) } else { None });
        line.figures.set(Figure::WaterL, if carbon { maybe(g, 100, 3.0) } else { None });
        line.work = crate::model::Work { tokens: maybe(g, 100_000, 1.0), requests: maybe(g, 100, 1.0), ..Default::default() };
        // The job's part of its node's energy, on a measured record now and then (drawn from its number, so the
        // generator's draws stay as they were); its remainder below zero now and then.
        if line.measured && n % 2 == 0 {
            let rest = (n * 37 % 200) as f64 / 17.0 - 2.0;
            line.figures.set(Figure::NodeKwh, Some((n * 101 % 1000) as f64 / 9.0 + rest));
            line.figures.set(Figure::NodeRestKwh, Some(rest));
            line.node_policy = Some("by measured share".into());
        }
        line
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
        assert!(opt(a.embodied_co2e_g, b.embodied_co2e_g) && opt(a.water_l, b.water_l), "{}: embodied, water", a.key);
        assert!(opt(a.tokens, b.tokens) && opt(a.requests, b.requests) && opt(a.prompt_tokens, b.prompt_tokens), "{}: work", a.key);
        assert!(opt(a.node_kwh, b.node_kwh) && opt(a.node_rest_kwh, b.node_rest_kwh), "{}: node", a.key);
        assert!(opt(a.coverage_pct, b.coverage_pct), "{}: coverage", a.key);
        assert_eq!(a.co2e_range_g.is_some(), b.co2e_range_g.is_some(), "{}: range", a.key);
        if let (Some(x), Some(y)) = (a.co2e_range_g, b.co2e_range_g) {
            assert!(close(x[0], y[0]) && close(x[1], y[1]));
        }
        assert_eq!(a.trend.len(), b.trend.len(), "{}: trend", a.key);
        assert!(a.trend.iter().zip(&b.trend).all(|(x, y)| close(*x, *y)), "{}: trend", a.key);
    }

    /// A ledger written as exa writes: one record at a time, and in batches (an import); `node`: with the node's
    /// figures on the records that have them.
    fn written(dir: &std::path::Path, node: bool) -> Store {
        let mut store = Store::open(&dir.join("r.sqlite3")).unwrap();
        let mut g = Lcg(7);
        let mut n = 0;
        for batch in [1, 1, 1, 40, 1, 1, 120, 1, 60, 1, 1, 30] {
            let lines: Vec<Line> = (0..batch)
                .map(|_| {
                    n += 1;
                    let mut l = line(&mut g, n);
                    if !node {
                        l.figures.set(Figure::NodeKwh, None);
                        l.figures.set(Figure::NodeRestKwh, None);
                        l.node_policy = None;
                    }
                    l
                })
                .collect();
            store.write(&lines).unwrap();
        }
        store
    }

    fn filters() -> [Filter; 6] {
        [
            Filter::default(),
            Filter { model: Some("B".into()), ..Filter::default() },
            Filter { since: Some(DAY0 + 86_400), ..Filter::default() },
            Filter { since: Some(DAY0), until: Some(DAY0 + 2 * 86_400), trend: true, ..Filter::default() },
            Filter { model: Some("A".into()), until: Some(DAY0 + 86_400), ..Filter::default() },
            Filter { trend: true, ..Filter::default() },
        ]
    }

    #[test]
    fn reports_from_the_cells_are_the_reports_from_the_records() {
        let dir = tempfile::tempdir().unwrap();
        let store = written(dir.path(), true);
        let split: i64 = store.conn().query_row("SELECT count(*) FROM report_split_runs", [], |r| r.get(0)).unwrap();
        assert!(split > 0, "some runs fall on two days");
        let notes_in_cells: i64 =
            store.conn().query_row("SELECT count(*) FROM report_cells WHERE notes IS NOT NULL", [], |r| r.get(0)).unwrap();
        assert!(notes_in_cells > 0, "some runs in one cell have records not counted");
        let node: i64 = store.conn().query_row("SELECT count(*) FROM report_cells WHERE node_kwh IS NOT NULL", [], |r| r.get(0)).unwrap();
        assert!(node > 0, "some cells sum the node's figures");
        let filters = filters();
        for by in [By::Model, By::Day, By::User, By::Account, By::Partition] {
            for f in &filters {
                let cells = from_cells(&store, by, f).unwrap().expect("the cells answer it").finish().unwrap();
                let scan = gather(&store, by, f, false).unwrap().finish().unwrap();
                assert_eq!(cells.0.len(), scan.0.len(), "{by:?} {f:?}");
                for (a, b) in cells.0.iter().zip(&scan.0) {
                    same(a, b);
                }
                same(&cells.1, &scan.1);
                assert_eq!(cells.2, scan.2, "{by:?} {f:?}: notes");
                // One group asked for (a budget's scope): that group alone, as the whole report has it.
                if let (Some(group), false) = (scan.0.last(), by == By::Day) {
                    let one = Filter { key: Some(group.key.clone()), ..f.clone() };
                    let cells = from_cells(&store, by, &one).unwrap().expect("the cells answer it").finish().unwrap();
                    assert_eq!(cells.0.len(), 1, "{by:?} {one:?}");
                    same(&cells.0[0], group);
                }
            }
        }
        // Not from the cells: by provider or run, and bounds within a day.
        assert!(from_cells(&store, By::Provider, &Filter::default()).unwrap().is_none());
        assert!(from_cells(&store, By::Run, &Filter::default()).unwrap().is_none());
        assert!(from_cells(&store, By::Model, &Filter { since: Some(DAY0 + 3600), ..Filter::default() }).unwrap().is_none());
    }

    /// The statements that take a ledger's records back to schema `version`'s columns, and its cells (and its rollup's
    /// rows, where it is kept) without the node's figures where it is from before them.
    fn later_than(version: i64, rollup: bool) -> String {
        let records = crate::store::columns::RECORD
            .iter()
            .filter(|c| c.since[0] > version)
            .map(|c| format!("ALTER TABLE records DROP COLUMN {};", c.name));
        let cells = (version < crate::store::sqlite::NODE_CELLS_VERSION)
            .then_some("ALTER TABLE report_cells DROP COLUMN node_kwh; ALTER TABLE report_cells DROP COLUMN node_rest_kwh;");
        let rows = (rollup && version < crate::store::sqlite::NODE_CELLS_VERSION)
            .then_some("ALTER TABLE report_rollup DROP COLUMN node_kwh; ALTER TABLE report_rollup DROP COLUMN node_rest_kwh;");
        records.chain(cells.into_iter().chain(rows).map(str::to_string)).collect()
    }

    #[test]
    fn the_rollup_kept_as_records_arrive_is_the_cells_summed_to_the_last_bit() {
        let dir = tempfile::tempdir().unwrap();
        // Without the node's figures: the ledger is taken back to a schema before them below.
        let store = written(dir.path(), false);
        let filters = filters();
        // The rollup kept as records arrived is the one made from the cells at once.
        let rollup = |s: &Store| -> Vec<String> {
            let mut q = s.conn().prepare("SELECT * FROM report_rollup ORDER BY kind, value, day").unwrap();
            let n = q.column_count();
            q.query_map([], |r| Ok((0..n).map(|i| format!("{:?}", r.get_ref_unwrap(i))).collect::<Vec<_>>().join("|")))
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .unwrap()
        };
        let kept = rollup(&store);
        assert!(kept.len() > 10, "{} rows", kept.len());
        let tx = store.conn().unchecked_transaction().unwrap();
        super::super::rollup::recount(&tx, None).unwrap();
        tx.commit().unwrap();
        assert_eq!(rollup(&store), kept);
        // Every report from the rollup, to the last bit, for the cells' own below.
        let every = |s: &Store| -> Vec<String> {
            let mut out = Vec::new();
            for by in [By::Model, By::Day, By::User, By::Account, By::Partition] {
                for f in &filters {
                    let (groups, totals, notes) = from_cells(s, by, f).unwrap().expect("the cells answer it").finish().unwrap();
                    out.push(format!("{by:?} {f:?}: {} {} {notes:?}", serde_json::json!(groups), serde_json::json!(totals)));
                }
            }
            out
        };
        let from_rollup = every(&store);
        // A ledger from before the rollup gets it, made from its cells, when it is opened to write.
        let path = store.path.clone();
        drop(store);
        let old = rusqlite::Connection::open(&path).unwrap();
        // As a schema-14 ledger: no rollup, and neither the records' nor the cells' columns for the node's figures.
        old.execute_batch(&format!(
            "DROP TABLE report_rollup; DROP INDEX report_cells_day; {} PRAGMA user_version = 14;",
            later_than(14, false)
        ))
        .unwrap();
        drop(old);
        let reader = Store::open_read(&path).unwrap().expect("a ledger");
        // Read from its cells, every report is the rollup's: the rows keep what their sums' rounding left out.
        assert_eq!(every(&reader), from_rollup);
        drop(reader);
        let store = Store::open(&path).unwrap();
        assert_eq!(rollup(&store), kept);
    }

    #[test]
    fn the_step_that_adds_the_node_s_cell_columns_adds_none_twice() {
        let dir = tempfile::tempdir().unwrap();
        let store = written(dir.path(), true);
        let before = every_report(&store);
        let path = store.path.clone();
        drop(store);
        // Taken back to the step before, its cells and rollup keeping the columns it adds (a step run again).
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!("PRAGMA user_version = {};", crate::store::sqlite::NODE_CELLS_VERSION - 1)).unwrap();
        drop(c);
        let store = Store::open(&path).unwrap();
        assert_eq!(store.version().unwrap(), crate::store::sqlite::SCHEMA_VERSION);
        assert_eq!(every_report(&store), before);
    }

    /// Every report the cells answer, by model and by day, as JSON text.
    fn every_report(store: &Store) -> Vec<String> {
        [By::Model, By::Day]
            .into_iter()
            .map(|by| {
                let (groups, totals, _) =
                    from_cells(store, by, &Filter::default()).unwrap().expect("the cells answer it").finish().unwrap();
                format!("{} {}", serde_json::json!(groups), serde_json::json!(totals))
            })
            .collect()
    }

    #[test]
    fn records_written_behind_exas_back_are_scanned_until_exa_writes_again() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("r.sqlite3")).unwrap();
        let mut g = Lcg(11);
        store.write(&(0..20).map(|i| line(&mut g, i)).collect::<Vec<_>>()).unwrap();
        assert!(from_cells(&store, By::Model, &Filter::default()).unwrap().is_some());
        let cols = "model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest, gpu_hours, cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, part";
        store
            .conn()
            .execute(
                &format!(
                    "INSERT INTO records ({cols}, idem_key) SELECT {}, 'sql' FROM records WHERE id = 1",
                    cols.replace("run_id", "'behind'")
                ),
                [],
            )
            .unwrap();
        assert!(from_cells(&store, By::Model, &Filter::default()).unwrap().is_none(), "the cells are behind: scan");
        store.write(&[line(&mut g, 99)]).unwrap();
        let cells = from_cells(&store, By::Model, &Filter::default()).unwrap().expect("made again").finish().unwrap();
        let scan = gather(&store, By::Model, &Filter::default(), false).unwrap().finish().unwrap();
        same(&cells.1, &scan.1);
        assert_eq!(cells.1.records.carbon + cells.1.records.cost + cells.1.records_not_counted, 22);
        // A record into the cell of the one written behind exa's back (the first's model and time, no user, account
        // or partition), which has no cell number: that cell is made again with both (the one without a number
        // found by its day).
        let (_, mut alike) = store.read(0, 1).unwrap().remove(0);
        (alike.key, alike.run_id, alike.labels) = ("again".into(), Some("again".into()), crate::model::Labels::default());
        store.write(&[alike]).unwrap();
        let nulls: i64 = store.conn().query_row("SELECT count(*) FROM records WHERE cell IS NULL", [], |r| r.get(0)).unwrap();
        assert_eq!(nulls, 1);
        let cells = from_cells(&store, By::Model, &Filter::default()).unwrap().expect("current").finish().unwrap();
        let scan = gather(&store, By::Model, &Filter::default(), false).unwrap().finish().unwrap();
        same(&cells.1, &scan.1);
        assert_eq!(cells.1.records.carbon + cells.1.records.cost + cells.1.records_not_counted, 23);
    }

    #[test]
    fn a_ledger_from_before_cell_numbers_gets_them_with_its_index_or_trigger_gone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.sqlite3");
        let mut g = Lcg(5);
        Store::open(&path).unwrap().write(&(0..30).map(|n| line(&mut g, n)).collect::<Vec<_>>()).unwrap();
        // As a schema-10 ledger, the cells' index and the append-only trigger dropped by hand.
        let c = rusqlite::Connection::open(&path).unwrap();
        // And without every record column the column table says came after schema 10.
        let later = later_than(10, true);
        c.execute_batch(&format!(
            "DROP INDEX records_cell; DROP TRIGGER records_no_update; ALTER TABLE records DROP COLUMN cell; {later} PRAGMA user_version = 10;"
        ))
        .unwrap();
        drop(c);
        let store = Store::open(&path).unwrap();
        let mut q = store.conn().prepare("SELECT cell, model, job_user, job_account, job_partition FROM records").unwrap();
        let rows: Vec<(Option<i64>, i64)> = q
            .query_map([], |r| {
                let text = |i: usize| r.get::<_, Option<String>>(i);
                let key = crate::store::sqlite::cells::key(
                    &r.get::<_, String>(1)?,
                    text(2)?.as_deref(),
                    text(3)?.as_deref(),
                    text(4)?.as_deref(),
                );
                Ok((r.get(0)?, key))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(rows.len(), 30);
        assert!(rows.iter().all(|(cell, key)| *cell == Some(*key)), "{rows:?}");
        let index: String = store.conn().query_row("SELECT sql FROM sqlite_master WHERE name = 'records_cell'", [], |r| r.get(0)).unwrap();
        assert!(index.ends_with("(cell, recorded_at)"), "{index}");
    }

    #[test]
    fn a_first_batch_into_an_empty_ledger_counts_as_records_written_one_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let mut g = Lcg(23);
        let lines: Vec<Line> = (0..400).map(|n| line(&mut g, n)).collect();
        let mut batch = Store::open(&dir.path().join("batch.sqlite3")).unwrap();
        let indexes = |s: &Store| -> Vec<(String, String)> {
            let mut q =
                s.conn().prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").unwrap();
            q.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().collect::<Result<_, _>>().unwrap()
        };
        let made = indexes(&batch);
        let names: Vec<&str> = made.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["records_cell", "records_idem_key", "records_run", "records_time", "report_cells_day", "report_rollup_day"],
            "{made:?}"
        );
        // The first write sets the records' indexes aside and makes them again; every one is there after it.
        batch.write(&lines).unwrap();
        assert_eq!(indexes(&batch), made);
        let mut single = Store::open(&dir.path().join("single.sqlite3")).unwrap();
        for l in &lines {
            single.write(std::slice::from_ref(l)).unwrap();
        }
        let split = |s: &Store| -> Vec<String> {
            let mut q = s.conn().prepare("SELECT run_id FROM report_split_runs ORDER BY run_id").unwrap();
            q.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
        };
        assert!(!split(&batch).is_empty(), "some runs fall on two days");
        assert_eq!(split(&batch), split(&single));
        // The first batch's cells are made from its lines as written: to the last bit what the records make.
        let stored = |s: &Store| -> Vec<String> {
            let mut q = s
                .conn()
                .prepare(
                    "SELECT * FROM report_cells, (SELECT count(*) FROM report_rollup)
                     ORDER BY model, day, job_user, job_account, job_partition",
                )
                .unwrap();
            let n = q.column_count();
            q.query_map([], |r| Ok((0..n).map(|i| format!("{:?}", r.get_ref_unwrap(i))).collect::<Vec<_>>().join("|")))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        };
        let from_lines = stored(&batch);
        assert!(from_lines.len() > 3, "{} cells", from_lines.len());
        let tx = batch.conn().unchecked_transaction().unwrap();
        super::super::cells::rebuild(&tx).unwrap();
        tx.commit().unwrap();
        assert_eq!(stored(&batch), from_lines, "the cells made again from the records");
        for by in [By::Model, By::Day, By::User] {
            for f in [Filter::default(), Filter { trend: true, ..Filter::default() }] {
                let a = from_cells(&batch, by, &f).unwrap().expect("the cells answer it").finish().unwrap();
                let b = from_cells(&single, by, &f).unwrap().expect("the cells answer it").finish().unwrap();
                let scan = gather(&batch, by, &f, false).unwrap().finish().unwrap();
                assert_eq!((a.0.len(), a.0.len()), (b.0.len(), scan.0.len()), "{by:?} {f:?}");
                for ((x, y), z) in a.0.iter().zip(&b.0).zip(&scan.0) {
                    same(x, y);
                    same(x, z);
                }
                same(&a.1, &b.1);
                assert_eq!(a.2, b.2, "{by:?} {f:?}: notes");
            }
        }
    }
}
