//! A first write into an empty ledger (the first import of a cluster's history): the records' secondary
//! indexes are set aside while the rows go in, and made again from them before the commit.
//!
//! Each of those indexes orders the records by something other than their arrival (model, time, run, the
//! report's cell), so a million rows added one at a time touch index pages all over the file, and once the
//! page cache is full every new row writes and reads one back. Made at the end, each index is one sort of
//! rows already there. All of it is inside the writer's transaction: what a reader or a crash sees is the
//! ledger before, or the ledger after with every index whole. The index on the idempotency keys stays: it
//! decides, row by row, whether a record is stored (the keys of one import arrive nearly in order, so it is
//! written at its end).

use rusqlite::Connection;

/// An index set aside: its name and the statement that made it.
pub(super) struct Index {
    name: String,
    sql: String,
}

/// Drops the records' secondary indexes but the keys', answering what made them.
pub(super) fn set_aside(tx: &Connection) -> rusqlite::Result<Vec<Index>> {
    let indexes: Vec<Index> = {
        let mut q = tx.prepare(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' AND sql IS NOT NULL
               AND name != 'records_idem_key' ORDER BY name",
        )?;
        let rows = q.query_map([], |r| Ok(Index { name: r.get(0)?, sql: r.get(1)? }))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for i in &indexes {
        tx.execute_batch(&format!("DROP INDEX \"{}\"", i.name.replace('"', "\"\"")))?;
    }
    Ok(indexes)
}

/// Makes again the indexes set aside.
pub(super) fn restore(tx: &Connection, indexes: &[Index]) -> rusqlite::Result<()> {
    for i in indexes {
        tx.execute_batch(&i.sql)?;
    }
    Ok(())
}
