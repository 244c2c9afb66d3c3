//! The counting rule's two statements held to one answer (`src/store/rule.rs`): a ledger made by exa and filled
//! in SQL (runs of a carbon and a cost record, repeats, measurements with and without CPU-hours, parts, records
//! without a run), counted by the Rust scan SQLite's reports use and by the rule's SQL run on SQLite
//! (`Dialect::Sqlite`), group by group and note by note. `cargo bench --bench rule` times the two over the same
//! ledger; `rule::both_statements_count_alike_without_postgresql` runs the check on every test run.

use exa::store::report::{By, Filter, Group};
use exa::store::rule::{sql, Dialect, Summed};
use exa::store::{open, open_read, Db};

/// Fills the ledger with `n` records.
pub fn fill(path: &std::path::Path, n: u64) {
    drop(open(&Db::Sqlite(path.to_path_buf())).expect("a new ledger"));
    let c = rusqlite::Connection::open(path).expect("the ledger");
    c.execute(
        "INSERT INTO records (model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest,
                              gpu_hours, cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, part, idem_key,
                              embodied_co2e_g, tokens)
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1),
              k(i, run) AS (SELECT i, CASE WHEN (i / 2) % 10 = 0 THEN (i / 2) - (i / 2) % 30 ELSE i / 2 END FROM n)
         SELECT 'M' || (i % 7), CASE WHEN i % 53 = 0 THEN NULL ELSE 'run-' || run END, 1790000000 + i * 60, 'h',
                CASE WHEN i % 2 = 0 THEN 'carbon' ELSE 'cost' END, 'p' || (i % 5), 'static', 'd',
                (i % 13) * 0.5, (i % 3) * 0.25,
                CASE WHEN i % 2 = 0 THEN (i % 17) * 0.1 END, CASE WHEN i % 2 = 0 THEN (i % 19) * 12.5 END,
                CASE WHEN i % 2 = 1 THEN (i % 23) * 0.75 END, CASE WHEN i % 41 = 0 THEN NULL ELSE 0.1 + (i % 3) * 0.05 END,
                i % 7 = 0, i % 11 = 0, 'k' || i,
                CASE WHEN i % 2 = 0 THEN (i % 29) * 0.5 END, CASE WHEN i % 3 = 0 THEN (i % 1000) * 7.0 END
         FROM k",
        [n],
    )
    .expect("records in SQL");
}

/// A group as the SQL statement answers it.
pub struct SqlGroup {
    key: String,
    counts: [i64; 5],
    figures: [Option<f64>; 9],
    unknown: bool,
    notes: Option<String>,
}

pub fn by_sql(c: &rusqlite::Connection) -> (Vec<SqlGroup>, Vec<SqlGroup>) {
    let run = |key: &str| {
        let mut st = c.prepare(&sql(Dialect::Sqlite, Summed::Work, key, "")).expect("the rule's SQL on SQLite");
        let rows = st
            .query_map([], |r| {
                Ok(SqlGroup {
                    key: r.get(0)?,
                    counts: [r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?],
                    figures: [r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?, r.get(10)?, r.get(11)?, r.get(13)?, r.get(15)?, r.get(17)?],
                    unknown: r.get(12)?,
                    notes: r.get(14)?,
                })
            })
            .expect("run")
            .collect::<Result<Vec<_>, _>>()
            .expect("rows");
        rows
    };
    (run("provider"), run("'total'"))
}

fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * a.abs().max(1.0),
        (None, None) => true,
        _ => false,
    }
}

fn same(g: &Group, s: &SqlGroup) -> bool {
    let counts = [g.runs, g.runs_measured, g.records.carbon, g.records.cost, g.records_not_counted];
    let range = g.co2e_range_g.map(|r| (Some(r[0]), Some(r[1])));
    g.key == s.key
        && counts.iter().zip(s.counts).all(|(a, b)| i64::try_from(*a).ok() == Some(b))
        && close(Some(g.gpu_hours), s.figures[0])
        && close(Some(g.cpu_hours), s.figures[1])
        && close(g.kwh, s.figures[2])
        && close(g.co2e_g, s.figures[3])
        && range.is_none_or(|(lo, hi)| close(lo, s.figures[4]) && close(hi, s.figures[5]))
        && g.co2e_range_g.is_none() == (s.unknown || s.figures[3].is_none())
        && close(g.cost_usd, s.figures[6])
        && close(g.embodied_co2e_g, s.figures[7])
        && close(g.tokens, s.figures[8])
}

/// Fills a new ledger at `path` with `n` records and checks that both statements count it alike; the ledger is
/// left for the caller.
pub fn agree(path: &std::path::Path, n: u64) {
    fill(path, n);
    let db = Db::Sqlite(path.to_path_buf());
    let c = rusqlite::Connection::open(path).expect("the ledger");
    let report = open_read(&db).expect("open").expect("a ledger").report(By::Provider, Filter::default()).expect("report");
    let (groups, total) = by_sql(&c);
    let mut sorted: Vec<&SqlGroup> = groups.iter().collect();
    sorted.sort_by(|a, b| a.key.cmp(&b.key));
    let mut ours: Vec<&Group> = report.groups.iter().collect();
    ours.sort_by(|a, b| a.key.cmp(&b.key));
    assert_eq!(ours.len(), sorted.len(), "as many groups");
    for (g, s) in ours.iter().zip(&sorted) {
        assert!(same(g, s), "group {} differs", g.key);
    }
    let mut total_group = report.totals.clone();
    total_group.key = "total".into();
    assert!(same(&total_group, &total[0]), "the totals differ");
    // The notes word for word: SQL's come sorted, one a line.
    let mut theirs: Vec<&str> = total[0].notes.as_deref().map_or_else(Vec::new, |n| n.lines().collect());
    let mut ours_notes: Vec<&str> = report.notes.iter().map(String::as_str).collect();
    theirs.sort_unstable();
    ours_notes.sort_unstable();
    assert_eq!(theirs, ours_notes, "the same notes");
    assert!(!theirs.is_empty() && report.totals.records_not_counted > 0, "the ledger has runs to choose in");
    // Both of a measurement's cases are there: holding every kind of work the estimates do, and not.
    for why in ["a measured record supersedes an estimate", "does not supersede it"] {
        assert!(theirs.iter().any(|n| n.contains(why)), "no run where {why}");
    }
}
