//! A first write into an empty ledger (the first import of a cluster's history): the records' secondary
//! indexes are set aside while the rows go in, and made again from them before the commit.
//!
//! Each of those indexes orders the records by something other than their arrival (time, run, the report's
//! cell), so a million rows added one at a time touch index pages all over the file, and once the
//! page cache is full every new row writes and reads one back. Made at the end, each index is one sort of
//! rows already there. All of it is inside the writer's transaction: what a reader or a crash sees is the
//! ledger before, or the ledger after with every index whole. The index on the idempotency keys stays where it
//! decides, row by row, whether a record is stored; an importer's lines have distinct keys (one job, one key per
//! domain), and a ledger with no record has none stored, so its first import sets that index aside too and
//! makes it again last: two lines with one key then fail it, and nothing is written.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

/// Whether `path` has a rollback journal beside it at all, even one SQLite has not yet marked as holding a
/// write: a write under way (`alone`'s), or one left. A reader that takes no locks must not read then.
pub(super) fn journal_beside(path: &Path) -> bool {
    std::fs::metadata(journal(path)).is_ok_and(|m| m.len() > 0)
}

fn journal(path: &Path) -> std::ffi::OsString {
    let mut journal = path.as_os_str().to_os_string();
    journal.push("-journal");
    journal
}

/// Whether a read-only connection met a rollback journal it may not play back (SQLITE_READONLY_ROLLBACK).
pub(super) fn rollback_needed(e: &rusqlite::Error) -> bool {
    e.sqlite_error().is_some_and(|f| f.extended_code == rusqlite::ffi::SQLITE_READONLY_ROLLBACK)
}

/// Puts back a ledger whose write was left mid-way, as any writer's open would: SQLite plays the journal back,
/// and the ledger is as it was before that write. A reader comes here only when it could not read otherwise.
pub(super) fn put_back(path: &Path, busy: Duration) -> rusqlite::Result<()> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    conn.busy_timeout(busy)?;
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))
}

/// Takes a first batch into an empty ledger through a rollback journal rather than the WAL, when this
/// connection is the file's only one: whether it did (the caller then calls `shared_again` after the write).
///
/// Through the WAL every page is written twice: into the WAL, then copied into the file by the checkpoint at the
/// commit (a million jobs' records: 1.2 GB each time). A rollback journal keeps only what the pages held before
/// a write changes them, and the pages of an empty ledger's new rows held nothing: they are written once, and
/// the journal holds the few pages of the schema. A kill mid-write leaves that journal, and the next opener puts
/// the empty ledger back from it, as SQLite does for any rollback journal. SQLite leaves the WAL only when no
/// other connection has the file open (it answers busy at once, and the write goes through the WAL as ever), so
/// no reader loses its snapshot; one that comes while the batch is written waits for it, up to the busy
/// timeout, where through the WAL it would have read the empty ledger. A write of single records never comes
/// here: many of them at once into a new ledger is what the WAL is for.
pub(super) fn alone(conn: &Connection, busy: Duration) -> bool {
    let empty = conn.query_row("SELECT NOT EXISTS (SELECT 1 FROM records)", [], |r| r.get::<_, bool>(0)).unwrap_or(false);
    if !empty || conn.busy_timeout(Duration::ZERO).is_err() {
        return false;
    }
    let mode = conn.query_row("PRAGMA journal_mode = DELETE", [], |r| r.get::<_, String>(0));
    let alone = mode.is_ok_and(|m| m.eq_ignore_ascii_case("delete"));
    // FULL: the journal is synced before the file is written, so even a power loss leaves the ledger whole or empty.
    let synced = alone && conn.pragma_update(None, "synchronous", "FULL").is_ok();
    let waits = conn.busy_timeout(busy).is_ok();
    if alone && !(synced && waits) {
        shared_again(conn, busy);
        return false;
    }
    alone
}

/// Back to the WAL after `alone`, waiting up to `busy` for readers that came meanwhile. If they outlast it, the
/// ledger stays in the rollback journal, which is as safe; the next writer's open puts it back in the WAL.
pub(super) fn shared_again(conn: &Connection, busy: Duration) {
    let _ = conn.pragma_update(None, "synchronous", "NORMAL");
    // Each try answers at once; only a busy file is tried again, and only until `busy` has passed.
    let _ = conn.busy_timeout(Duration::ZERO);
    let started = std::time::Instant::now();
    loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)) {
            Err(e) if super::busy(&e) && started.elapsed() < busy => std::thread::sleep(Duration::from_millis(5)),
            _ => break,
        }
    }
    let _ = conn.busy_timeout(busy);
}

/// An index set aside: its name and the statement that made it.
pub(super) struct Index {
    name: String,
    sql: String,
}

/// Drops the records' secondary indexes, the keys' too with `keys` (the lines written have distinct keys, and the
/// ledger none yet), answering what made them; the keys' is made again last.
pub(super) fn set_aside(tx: &Connection, keys: bool) -> rusqlite::Result<Vec<Index>> {
    let indexes: Vec<Index> = {
        let mut q = tx.prepare(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' AND sql IS NOT NULL
               AND (?1 OR name != 'records_idem_key') ORDER BY name = 'records_idem_key', name",
        )?;
        let rows = q.query_map([keys], |r| Ok(Index { name: r.get(0)?, sql: r.get(1)? }))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for i in &indexes {
        tx.execute_batch(&format!("DROP INDEX \"{}\"", i.name.replace('"', "\"\"")))?;
    }
    Ok(indexes)
}

/// Makes again the indexes set aside.
///
/// Each is one sort of every record's key. SQLite sorts in memory up to the page cache's size, so with the
/// writer's (128 MiB) a million jobs' keys are one sort on this thread. With a cache of 8 MiB and a worker
/// thread, the keys are sorted in pieces of 8 MiB, each on the worker while this thread reads the next, then
/// merged (from temporary files, as any sort larger than the cache): the pieces fit the processor's caches, and
/// two cores share the work (1M jobs: the four indexes in 3.1-3.2 s, was 3.7 s, the cells counted beside them; 2.4 to
/// 2.7 s since the cells' index is by a number, schema 11).
/// The connection's own settings are put back after, whether or not the indexes were made.
pub(super) fn restore(tx: &Connection, indexes: &[Index]) -> rusqlite::Result<()> {
    let setting = |name: &str| tx.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0));
    let (threads, cache) = (setting("threads")?, setting("cache_size")?);
    tx.pragma_update(None, "threads", 1)?;
    tx.pragma_update(None, "cache_size", -8_192)?;
    let made = indexes.iter().try_for_each(|i| tx.execute_batch(&i.sql));
    let back = tx.pragma_update(None, "threads", threads).and_then(|()| tx.pragma_update(None, "cache_size", cache));
    made.and(back)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(c: &Connection) -> String {
        c.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn only_a_lone_writer_of_an_empty_ledger_leaves_the_wal_and_it_comes_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.sqlite3");
        let busy = Duration::from_secs(5);
        let store = crate::store::sqlite::Store::open(&path).unwrap();
        // Another connection has the file open: the batch goes through the WAL.
        let other = Connection::open(&path).unwrap();
        other.query_row("SELECT count(*) FROM records", [], |_| Ok(())).unwrap();
        assert!(!alone(store.conn(), busy));
        assert_eq!(mode(store.conn()), "wal");
        drop(other);
        // Alone with the empty ledger: the rollback journal, then the WAL again.
        assert!(alone(store.conn(), busy));
        assert_eq!(mode(store.conn()), "delete");
        shared_again(store.conn(), busy);
        assert_eq!(mode(store.conn()), "wal");
        // A ledger with records: the WAL.
        store
            .conn()
            .execute_batch(
                "INSERT INTO records (model, recorded_at, host, domain, provider, provider_kind, provider_digest, gpu_hours, cpu_hours, idem_key)
                 VALUES ('m', 1, 'h', 'carbon', 'p', 'builtin', 'd', 1, 0, 'k')",
            )
            .unwrap();
        assert!(!alone(store.conn(), busy));
        assert_eq!(mode(store.conn()), "wal");
        assert!(!journal_beside(&path));
    }

    /// A record as `Line::of` makes it: a form, and the figures its columns hold.
    fn line(key: &str, gpu_hours: f64) -> crate::store::Line {
        use crate::model::{Labels, NewRecord, Work};
        let u = 0.3;
        let kwh = gpu_hours * 0.4;
        let mut estimate = crate::store::test_estimate(gpu_hours, 1.5, &[]);
        estimate.inputs.insert("cpu_hours".into(), 0.0);
        estimate.outputs.insert("kwh".into(), kwh);
        estimate.range = Some([("kwh".to_string(), crate::num::band(kwh, u))].into_iter().collect());
        let r = NewRecord {
            model: "m".into(),
            run_id: Some(format!("run-{key}")),
            recorded_at: 1_790_000_000,
            host: "h".into(),
            estimate,
            measured: None,
            part: true,
            key: key.into(),
            labels: Labels::default(),
            work: Work::default(),
        };
        crate::store::Line::of(&r)
    }

    #[test]
    fn a_first_import_makes_the_keys_index_at_its_end_and_refuses_a_key_twice_whole() {
        use crate::store::Ledger;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.sqlite3");
        let mut store = crate::store::sqlite::Store::open(&path).unwrap();
        let indexes = |s: &crate::store::sqlite::Store| -> Vec<String> {
            let mut q =
                s.conn().prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' ORDER BY name").unwrap();
            q.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
        };
        let made = indexes(&store);
        // Two records with one key: refused, nothing written, every index still there.
        let twice = vec![line("a", 1.0), line("b", 2.0), line("a", 3.0)];
        let err = store.write_chunks(&mut std::iter::once(Ok(twice))).unwrap_err().to_string();
        assert!(err.contains("two records of one write have the same key") && err.contains("nothing was written"), "{err}");
        let count =
            |s: &crate::store::sqlite::Store| -> i64 { s.conn().query_row("SELECT count(*) FROM records", [], |r| r.get(0)).unwrap() };
        assert_eq!(count(&store), 0);
        assert_eq!(indexes(&store), made);
        // The index builds' settings are the writer's again, the write refused or not; the pages are 16 KiB.
        let settings = |s: &crate::store::sqlite::Store| -> (i64, i64, i64) {
            let get = |p: &str| s.conn().query_row(&format!("PRAGMA {p}"), [], |r| r.get::<_, i64>(0)).unwrap();
            (get("threads"), get("cache_size"), get("page_size"))
        };
        assert_eq!(settings(&store), (0, -131_072, 16_384));
        // Distinct keys: all new, the figures in their columns (no estimate row), the keys' index made again, and
        // a key written again later is found there.
        let lines: Vec<_> = (0..50).map(|i| line(&format!("k{i}"), f64::from(i) / 7.0)).collect();
        let fresh = store.write_chunks(&mut std::iter::once(Ok(lines.clone()))).unwrap();
        assert_eq!((fresh.len(), fresh.iter().all(|f| *f)), (50, true));
        assert_eq!(indexes(&store), made);
        assert_eq!(settings(&store), (0, -131_072, 16_384));
        let rows: i64 = store.conn().query_row("SELECT count(*) FROM record_estimates", [], |r| r.get(0)).unwrap();
        assert_eq!(rows, 0, "every figure is in its record's columns");
        let again = store.write(&[line("k7", 1.0)]).unwrap();
        assert_eq!(again, vec![(8, false)]);
        let read = store.read(0, 100).unwrap();
        for ((_, back), written) in read.iter().zip(&lines) {
            assert_eq!(back.estimate_json(), written.estimate_json());
        }
    }
}
