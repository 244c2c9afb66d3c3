//! Records: a ledger behind one small trait, SQLite the embedded default.
//!
//! A ledger is append-only: one transaction per call of `insert`, so a
//! process killed mid-write leaves its records whole or absent. A newer
//! schema than this exa knows is refused and never written to.

pub mod charges;
pub mod report;
pub mod sqlite;

use std::path::Path;

use crate::error::Error;
use crate::model::NewRecord;
pub use sqlite::{Store, SCHEMA_VERSION};

/// Where a ledger lives, as a report shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location(pub String);

/// What every ledger does.
pub trait Ledger {
    /// Appends records, all or none; their ids in order.
    fn insert(&mut self, records: &[NewRecord]) -> Result<Vec<i64>, Error>;
    /// Totals over the records `filter` selects, grouped `by`.
    fn report(&self, by: report::By, filter: report::Filter) -> Result<report::Report, Error>;
    /// The counted records of every run the filter selects, for charge lines and charts.
    fn runs(&self, filter: &report::Filter) -> Result<Vec<charges::RunCharge>, Error>;
    /// Where it lives.
    fn location(&self) -> Location;
}

/// Opens the ledger at `path` to read: never creates, migrates or writes.
/// `None` when there is nothing recorded there yet.
pub fn open_read(path: &Path) -> Result<Option<Box<dyn Ledger>>, Error> {
    if !path.exists() {
        return Ok(None);
    }
    Ok(Store::open_read(path)?.map(|s| Box::new(s) as Box<dyn Ledger>))
}

/// Opens the ledger at `path` for writing, creating and migrating it as needed.
pub fn open(path: &Path) -> Result<Box<dyn Ledger>, Error> {
    Ok(Box::new(Store::open(path)?))
}

/// This host's name, for records.
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into the buffer.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    if ok && end > 0 {
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        "unknown".into()
    }
}

/// Checks a model name or run id given on the command line.
pub fn check_record_name(what: &str, s: &str) -> Result<(), Error> {
    if s.trim().is_empty() || s.chars().count() > 200 || s.chars().any(char::is_control) {
        return Err(Error::Usage(format!("{what} '{}' must be 1 to 200 printable characters", s.escape_default())));
    }
    // Reports show a record without a run id as "(record N)": such a name would pass for one.
    if s.starts_with("(record ") && s.ends_with(')') {
        return Err(Error::Usage(format!("{what} '{s}' is reserved: reports name records without a run id this way")));
    }
    Ok(())
}

/// Refuses a database that cannot keep a record, before anything runs.
pub fn check_writable(path: &Path) -> Result<(), Error> {
    let s = path.to_string_lossy();
    if s == ":memory:" || s.is_empty() || s.starts_with("file::memory:") {
        return Err(Error::Usage(format!("--db {s}: an in-memory database forgets every record when exa exits; name a file")));
    }
    if path.is_dir() {
        return Err(Error::Usage(format!("--db {}: is a directory; name a file", path.display())));
    }
    Ok(())
}
