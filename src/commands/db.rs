//! `exa db`: the records database's schema, and copying records between stores.

use serde::Serialize;

use crate::error::Error;
use crate::settings::Settings;
use crate::store;

/// What `exa db migrate` did.
#[derive(Debug, Serialize)]
pub struct Migrated {
    pub db: String,
    pub schema_version: i64,
}

pub fn migrate(settings: &Settings) -> Result<Migrated, Error> {
    let db = settings.db()?;
    store::check_writable(&db)?;
    let mut ledger = store::open(&db)?;
    Ok(Migrated { schema_version: ledger.schema_version()?, db: ledger.location().0 })
}

/// What `exa db copy` did.
#[derive(Debug, Serialize)]
pub struct Copied {
    pub from: String,
    pub to: String,
    /// Records read from the source.
    pub read: u64,
    /// Records written to the target.
    pub copied: u64,
    /// Records the target held already (the same idempotency key): not written again.
    pub already_there: u64,
}

/// Records per transaction.
const BATCH: usize = 5_000;

/// Copies in batches of 5,000, one transaction each; `progress` hears after each batch.
pub fn copy(settings: &Settings, from: &str, to: &str, progress: &dyn Fn(&Copied)) -> Result<Copied, Error> {
    let (src, dst) = (settings.db_at(from)?, settings.db_at(to)?);
    if src.shown() == dst.shown() {
        return Err(Error::Usage(format!("--from and --to are the same database ({})", src.shown())));
    }
    store::check_writable(&dst)?;
    let Some(mut source) = store::open_read(&src)? else {
        return Err(Error::Refused(format!("--from {}: no records there", src.shown())));
    };
    let mut target = store::open(&dst)?;
    let mut done = Copied { from: source.location().0, to: target.location().0, read: 0, copied: 0, already_there: 0 };
    let mut after = 0;
    loop {
        let batch = source.read(after, BATCH)?;
        let Some(&(last, _)) = batch.last() else { break };
        let lines: Vec<store::Line> = batch.into_iter().map(|(_, l)| l).collect();
        // A run id that passes for a record without one ("(record 7)") was not written by exa: copied, it would
        // merge with that record in reports by run.
        if let Some(bad) = lines.iter().find_map(|l| l.run_id.as_deref().filter(|r| store::check_record_name("run id", r).is_err())) {
            return Err(Error::Refused(format!(
                "--from {}: a record has the run id '{}', which exa never writes; {} records copied before it, none after",
                src.shown(),
                crate::text::clean(bad),
                done.copied
            )));
        }
        let written = target.write(&lines)?;
        done.read += lines.len() as u64;
        let new = written.iter().filter(|(_, n)| *n).count() as u64;
        done.copied += new;
        done.already_there += lines.len() as u64 - new;
        after = last;
        progress(&done);
    }
    Ok(done)
}
