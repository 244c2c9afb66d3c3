//! `exa finops <domain> record MODEL`: estimate, then store the answer.

use serde::Serialize;

use crate::error::Error;
use crate::model::{Domain, Estimate, Labels, NewRecord, Request, Work};
use crate::pricing;
use crate::settings::Settings;
use crate::store::{self, check_record_name, hostname};
use crate::time::{iso8601, now_unix};

#[derive(Debug, Serialize)]
pub struct Recorded {
    pub id: i64,
    pub model: String,
    pub run_id: Option<String>,
    pub recorded_at: String,
    pub host: String,
    pub db: String,
    /// The work done, as given (`--tokens`, `--requests`, `--unit`); left out when none was.
    #[serde(skip_serializing_if = "Work::is_empty")]
    pub work: Work,
    pub estimate: Estimate,
}

/// Refusals come before anything is written: the estimate must succeed first.
pub fn run(
    settings: &Settings,
    domain: Domain,
    model: &str,
    run_id: Option<&str>,
    part: bool,
    req: &Request,
    work: &Work,
) -> Result<Recorded, Error> {
    check_record_name("model", model)?;
    if let Some(r) = run_id {
        check_record_name("run id", r)?;
    }
    let db = settings.db()?;
    store::check_writable(&db)?;
    // A PostgreSQL ledger connects while the estimate is made.
    let opening = store::open_soon(&db);
    if run_id.is_some() {
        // A tracking URI exa cannot use is refused before anything is written.
        settings.mlflow()?;
    }
    let estimate = pricing::estimate(settings, domain, req)?;
    let mut store = opening.wait()?;
    let now = now_unix();
    let host = hostname();
    let record = NewRecord {
        model: model.to_string(),
        run_id: run_id.map(str::to_string),
        recorded_at: now,
        host: host.clone(),
        estimate,
        measured: None,
        part,
        key: store::new_key(),
        labels: Labels::default(),
        work: work.clone(),
    };
    let id = store.insert(std::slice::from_ref(&record))?[0];
    crate::sinks::mlflow::log_records(settings, store.as_mut(), &[(id, &record)])?;
    Ok(Recorded {
        id,
        model: record.model,
        run_id: record.run_id,
        recorded_at: iso8601(now),
        host,
        db: store.location().0,
        work: record.work,
        estimate: record.estimate,
    })
}
