//! `exa sync mlflow`: sends every log waiting in the store's outbox to the
//! MLflow tracking server.

use crate::error::Error;
use crate::settings::Settings;
use crate::sinks::mlflow::{drain, Synced, Tracking};
use crate::store;

/// Sends every log waiting in the outbox.
pub fn mlflow(settings: &Settings) -> Result<Synced, Error> {
    let tracking = settings
        .mlflow()?
        .map(Tracking::from)
        .ok_or_else(|| Error::Config("no MLflow tracking server: set MLFLOW_TRACKING_URI (or mlflow.tracking_uri in the config)".into()))?;
    let db = settings.db()?;
    if matches!(&db, store::Db::Sqlite(path) if !path.exists()) {
        // Nothing was ever recorded here: nothing waits, and no store is made.
        return Ok(Synced { tracking_uri: tracking.shown(), ..Synced::default() });
    }
    // The outbox is written to: open for writing (which also migrates an older store).
    let mut ledger = store::open(&db)?;
    let done = drain(&tracking, ledger.as_mut(), None, usize::MAX)?;
    if done.still_waiting > 0 && settings.strict.value {
        return Err(Error::Failed(format!(
            "{} log(s) still not sent to MLflow: {}",
            done.still_waiting,
            done.error.as_deref().unwrap_or("unknown")
        )));
    }
    Ok(done)
}
