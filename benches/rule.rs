//! Why the counting rule has two statements (`src/store/rule.rs`): the
//! rule's SQL, which PostgreSQL runs, run on SQLite beside the Rust scan
//! SQLite's reports use, over the same ledger, by provider (a report the
//! summary cells cannot answer, so both read every record).
//!
//! The ledger is made by exa and filled in SQL: runs of a carbon and a cost
//! record, one in ten runs with repeats, measurements and parts among them,
//! some records without a run. Before timing, the two answers are compared
//! group by group (runs, records counted and not, hours, kWh, CO2e and its
//! range, cost, embodied CO2e, tokens; the notes word for word): the bench stops if they differ.
//!
//! `cargo bench --bench rule`. The median of 5 rounds, as a ratio: not a
//! timed test, nothing fails on a slow machine.

use std::time::Instant;

use exa::store::report::{By, Filter};
use exa::store::{open_read, Db};

#[path = "../tests/cli/support/rule.rs"]
mod rule;
use rule::by_sql;

const ROUNDS: usize = 5;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    println!("| records | Rust scan (SQLite's reports) | the rule's SQL on SQLite | SQL / Rust |");
    println!("|---|---|---|---|");
    for n in [100_000u64, 1_000_000] {
        let dir = std::env::temp_dir().join(format!("exa-bench-rule-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let path = dir.join("records.sqlite3");
        rule::agree(&path, n);
        let db = Db::Sqlite(path.clone());
        let c = rusqlite::Connection::open(&path).expect("the ledger");

        let (mut rust, mut sql_t) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            let t = Instant::now();
            let r = open_read(&db).expect("open").expect("a ledger").report(By::Provider, Filter::default()).expect("report");
            rust.push(t.elapsed().as_secs_f64());
            std::hint::black_box(r);
            let t = Instant::now();
            std::hint::black_box(by_sql(&c));
            sql_t.push(t.elapsed().as_secs_f64());
        }
        let (r, s) = (median(rust), median(sql_t));
        println!("| {n} | {:.0} ms | {:.0} ms | {:.1}x |", r * 1e3, s * 1e3, s / r);
        drop(c);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
