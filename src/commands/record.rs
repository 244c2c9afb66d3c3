//! `exa finops <domain> record MODEL`: estimate, then store the answer.

use serde::Serialize;

use super::estimate::{self, Estimate, Request};
use crate::error::Error;
use crate::provider::Domain;
use crate::settings::Settings;
use crate::store::{check_name, hostname, NewRecord, Store};
use crate::time::{iso8601, now_unix};

#[derive(Debug, Serialize)]
pub struct Recorded {
    pub id: i64,
    pub model: String,
    pub run_id: Option<String>,
    pub recorded_at: String,
    pub host: String,
    pub db: String,
    pub estimate: Estimate,
}

/// Refusals come before anything is written: the estimate must succeed first.
pub fn run(settings: &Settings, domain: Domain, model: &str, run_id: Option<&str>, req: &Request) -> Result<Recorded, Error> {
    check_name("model", model)?;
    if let Some(r) = run_id {
        check_name("run id", r)?;
    }
    let estimate = estimate::run(settings, domain, req)?;
    let mut store = Store::open(settings.db_path()?)?;
    let now = now_unix();
    let host = hostname();
    let record = NewRecord {
        model: model.to_string(),
        run_id: run_id.map(str::to_string),
        recorded_at: now,
        host: host.clone(),
        estimate,
        measured: None,
    };
    let id = store.insert(std::slice::from_ref(&record))?[0];
    Ok(Recorded {
        id,
        model: record.model,
        run_id: record.run_id,
        recorded_at: iso8601(now),
        host,
        db: store.path.display().to_string(),
        estimate: record.estimate,
    })
}
