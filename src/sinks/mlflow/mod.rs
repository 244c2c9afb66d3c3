//! Records on the MLflow run their run id names: logged after the local
//! record is written (always first), kept in the store's outbox when MLflow
//! cannot take them, and sent by `exa sync mlflow` or the next record; and
//! the run a measured command's records go to, made before it starts.

pub mod client;

use serde::Serialize;

use crate::error::Error;
use crate::model::{Domain, NewRecord};
use crate::settings::Settings;
use crate::store::report::{By, Filter, Group};
use crate::store::Ledger;
pub use client::{Payload, Tracking};

/// The metrics and tags a record puts on its run. The metrics are the run's totals as `exa report
/// --by run` counts them after this record (`totals`: parts summed, a measurement over an estimate,
/// a repeat replacing what it repeats, each domain's hours kept), so MLflow shows what the ledger
/// says of the run whatever order and split its records came in. Logged at step = the record's id,
/// so a later record's totals are the run's latest even when an older log arrives after it from
/// the outbox. Names are documented in docs/records.md.
pub fn payload(r: &NewRecord, id: i64, totals: &Group) -> Option<Payload> {
    let run_id = r.run_id.clone()?;
    let e = &r.estimate;
    let domain = e.domain.as_str();
    let mut metrics = vec![("exa.gpu_hours".to_string(), totals.gpu_hours), ("exa.cpu_hours".to_string(), totals.cpu_hours)];
    metrics.extend(totals.kwh.map(|v| ("exa.energy_kwh".to_string(), v)));
    metrics.extend(totals.co2e_g.map(|v| ("exa.co2e_g".to_string(), v)));
    metrics.extend(totals.cost_usd.map(|v| ("exa.cost_usd".to_string(), v)));
    if e.domain == Domain::Carbon {
        metrics.extend(r.measured.as_ref().and_then(|m| m.gpu_kwh).map(|v| ("exa.measured_gpu_kwh".to_string(), v)));
    }
    let tags = vec![
        (format!("exa.{domain}_provider"), e.provider.name.clone()),
        (format!("exa.{domain}_provider_digest"), e.provider.digest.clone()),
        (format!("exa.{domain}_record_id"), id.to_string()),
        (format!("exa.{domain}_measured"), r.measured.is_some().to_string()),
        ("exa.version".to_string(), env!("CARGO_PKG_VERSION").to_string()),
    ];
    Some(Payload { run_id, timestamp_ms: r.recorded_at.saturating_mul(1000), step: id, metrics, tags })
}

/// The run's totals in the ledger, as `exa report --by run` gives them.
fn run_totals(ledger: &mut dyn Ledger, run_id: &str) -> Result<Option<Group>, Error> {
    let filter = Filter { run: Some(run_id.to_string()), ..Filter::default() };
    Ok(ledger.report(By::Run, filter)?.groups.into_iter().find(|g| g.key == run_id))
}

/// Logs stored records that name a run; a log MLflow does not take goes to the outbox.
/// The records are already stored: a failure is a warning, or under `--strict` an error
/// that says so.
pub fn log_records(settings: &Settings, ledger: &mut dyn Ledger, stored: &[(i64, &NewRecord)]) -> Result<(), Error> {
    let Some(tracking) = settings.mlflow()?.map(Tracking::from) else { return Ok(()) };
    let mut failed = Vec::new();
    for (id, r) in stored {
        let Some(run_id) = &r.run_id else { continue };
        let Some(totals) = run_totals(ledger, run_id)? else { continue };
        let Some(p) = payload(r, *id, &totals) else { continue };
        if let Err(e) = tracking.log(&p) {
            let json = serde_json::to_string(&p).expect("payloads serialise");
            ledger.outbox_add(*id, &p.run_id, &json, &e.message)?;
            failed.push((*id, e.message));
        }
    }
    if failed.is_empty() {
        // MLflow answers: send what earlier records left waiting. Only a few, and not those that failed
        // again and again (a run that does not exist): a record must not retry them all every time;
        // `exa sync mlflow` tries every one.
        let _ = drain(&tracking, ledger, Some(AUTO_ATTEMPTS), AUTO_BATCH);
        return Ok(());
    }
    let ids: Vec<String> = failed.iter().map(|(id, _)| format!("#{id}")).collect();
    let message = format!(
        "record {} is stored, but not logged to MLflow: {}; it waits in the outbox, and `exa sync mlflow` (or the next record) sends it",
        ids.join(", "),
        failed[0].1
    );
    if settings.strict.value {
        return Err(Error::Failed(message));
    }
    settings.warn(message);
    Ok(())
}

/// What `exa sync mlflow` did.
#[derive(Debug, Default, Serialize)]
pub struct Synced {
    pub tracking_uri: String,
    /// Logs sent now.
    pub sent: u64,
    /// Logs that failed again, still waiting.
    pub still_waiting: u64,
    /// Why the first of those failed.
    pub error: Option<String>,
}

/// A record resends waiting logs tried fewer times than this…
const AUTO_ATTEMPTS: i64 = 3;
/// …and at most this many of them.
const AUTO_BATCH: usize = 10;

pub fn drain(tracking: &Tracking, ledger: &mut dyn Ledger, max_attempts: Option<i64>, limit: usize) -> Result<Synced, Error> {
    let mut done = Synced { tracking_uri: tracking.shown(), ..Synced::default() };
    let mut pending = ledger.outbox_pending(max_attempts, limit)?.into_iter();
    while let Some((id, json)) = pending.next() {
        let Ok(p) = serde_json::from_str::<Payload>(&json) else {
            ledger.outbox_mark(id, Some("the stored log is unreadable"))?;
            done.still_waiting += 1;
            continue;
        };
        match tracking.log(&p) {
            Ok(()) => {
                ledger.outbox_mark(id, None)?;
                done.sent += 1;
            }
            // The server is down, or not MLflow: every other log would wait out the same deadline. Stop here;
            // the rest stay waiting, their attempts unspent.
            Err(e) if e.whole_server => {
                ledger.outbox_mark(id, Some(&e.message))?;
                done.still_waiting += 1 + pending.len() as u64;
                done.error.get_or_insert(e.message);
                break;
            }
            Err(e) => {
                ledger.outbox_mark(id, Some(&e.message))?;
                done.still_waiting += 1;
                done.error.get_or_insert(e.message);
            }
        }
    }
    Ok(done)
}

/// Creates the MLflow run a measured command's records go to: in `experiment`, named after the command.
pub fn start_run(settings: &Settings, experiment: &str, command: &[std::ffi::OsString]) -> Result<(Tracking, String), Error> {
    let tracking = settings.mlflow()?.map(Tracking::from).ok_or_else(|| {
        Error::Usage("--mlflow-experiment needs a tracking server: set MLFLOW_TRACKING_URI (or mlflow.tracking_uri in the config)".into())
    })?;
    let words: Vec<String> = command.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let mut name = crate::text::clean(&words.join(" "));
    if name.chars().count() > 100 {
        name = name.chars().take(99).collect::<String>() + "…";
    }
    if name.is_empty() {
        name = "exa measure".into();
    }
    let id = tracking
        .create_run(experiment, &name, crate::time::now_unix().saturating_mul(1000))
        .map_err(|e| Error::Failed(format!("cannot create the MLflow run, so the command was not started: {e}")))?;
    // The server's id becomes the records' run id: held to the same rule as one given on the command line.
    crate::store::check_record_name("the MLflow run id", &id).map_err(|e| {
        Error::Failed(format!("MLflow at {} answered a run id exa cannot record ({e}); the command was not started", tracking.shown()))
    })?;
    Ok((tracking, id))
}
