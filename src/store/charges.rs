//! The counted records of each run, with what a charge line needs: times,
//! providers and the rate card's unit prices. The same choice as reports
//! (`report::choose`): a measurement over an estimate, parts summed,
//! repeats once. FOCUS rows and the HTML page are built from these.

use std::collections::BTreeMap;

use rusqlite::types::Value as Sql;

use super::report::{choose, clause_for, Filter, Row};
use super::Store;
use crate::error::Error;

/// One counted record.
#[derive(Debug, Clone)]
pub struct Charged {
    pub id: i64,
    pub provider: String,
    pub digest: String,
    pub measured: bool,
    pub gpu_hours: f64,
    pub cpu_hours: f64,
    pub kwh: Option<f64>,
    pub co2e_g: Option<f64>,
    pub cost_usd: Option<f64>,
    /// The rate card's price per GPU-hour and per CPU-hour, when its coefficients name them.
    pub gpu_rate: Option<f64>,
    pub cpu_rate: Option<f64>,
}

/// One run: its counted carbon and cost records.
#[derive(Debug, Clone)]
pub struct RunCharge {
    /// The run id, or `(record N)` for a record without one.
    pub run: String,
    pub model: String,
    /// When the work ran: from the earliest start (recorded time less a measured duration) to the latest record.
    pub start: i64,
    pub end: i64,
    pub carbon: Vec<Charged>,
    pub cost: Vec<Charged>,
}

/// One stored record, as a store reads it for charges.
pub struct Raw {
    pub id: i64,
    pub model: String,
    pub run_id: Option<String>,
    pub recorded_at: i64,
    pub duration_s: Option<f64>,
    pub carbon: bool,
    pub measured: bool,
    pub part: bool,
    pub provider: String,
    pub digest: String,
    pub gpu_hours: f64,
    pub cpu_hours: f64,
    pub kwh: Option<f64>,
    pub co2e_g: Option<f64>,
    pub uncertainty: Option<f64>,
    pub cost_usd: Option<f64>,
    pub gpu_rate: Option<f64>,
    pub cpu_rate: Option<f64>,
}

struct Detail {
    model: String,
    recorded_at: i64,
    duration_s: Option<f64>,
    charged: Charged,
}

/// Every run the filter selects in the SQLite ledger, in order of its first record.
pub fn runs(store: &Store, f: &Filter) -> Result<Vec<RunCharge>, Error> {
    let (filter, args): (String, Vec<Sql>) = clause_for(f, "r.");
    let sql = format!(
        "SELECT r.id, r.model, r.run_id, r.recorded_at, r.duration_s, r.domain = 'carbon', r.measured, r.part, r.provider,
                r.provider_digest, r.gpu_hours, r.cpu_hours, r.kwh, r.co2e_g, r.uncertainty, r.cost_usd,
                json_extract(e.estimate, '$.coefficients.gpu_rate.value'), json_extract(e.estimate, '$.coefficients.cpu_rate.value')
         FROM records r JOIN record_estimates e ON e.record_id = r.id {filter} ORDER BY r.id"
    );
    let db = |e: rusqlite::Error| Error::Failed(format!("{}: {e}", store.path.display()));
    let mut stmt = store.conn().prepare(&sql).map_err(db)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(args.iter())).map_err(db)?;
    let mut raw = Vec::new();
    while let Some(r) = rows.next().map_err(db)? {
        raw.push(Raw {
            id: r.get(0).map_err(db)?,
            model: r.get(1).map_err(db)?,
            run_id: r.get(2).map_err(db)?,
            recorded_at: r.get(3).map_err(db)?,
            duration_s: r.get(4).map_err(db)?,
            carbon: r.get(5).map_err(db)?,
            measured: r.get(6).map_err(db)?,
            part: r.get(7).map_err(db)?,
            provider: r.get(8).map_err(db)?,
            digest: r.get(9).map_err(db)?,
            gpu_hours: r.get(10).map_err(db)?,
            cpu_hours: r.get(11).map_err(db)?,
            kwh: r.get(12).map_err(db)?,
            co2e_g: r.get(13).map_err(db)?,
            uncertainty: r.get(14).map_err(db)?,
            cost_usd: r.get(15).map_err(db)?,
            gpu_rate: r.get(16).ok().flatten(),
            cpu_rate: r.get(17).ok().flatten(),
        });
    }
    Ok(from_raw(raw))
}

/// Groups stored records (in id order) into runs and keeps what each run counts.
pub fn from_raw(raw: Vec<Raw>) -> Vec<RunCharge> {
    let mut order: Vec<String> = Vec::new();
    let mut by_run: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    let mut details: BTreeMap<i64, Detail> = BTreeMap::new();
    for r in raw {
        let charged = Charged {
            id: r.id,
            provider: r.provider,
            digest: r.digest,
            measured: r.measured,
            gpu_hours: r.gpu_hours,
            cpu_hours: r.cpu_hours,
            kwh: r.kwh,
            co2e_g: r.co2e_g,
            cost_usd: r.cost_usd,
            gpu_rate: r.gpu_rate,
            cpu_rate: r.cpu_rate,
        };
        let row = Row::new(r.id, r.carbon, r.measured, r.part, &charged, r.uncertainty);
        let key = r.run_id.unwrap_or_else(|| format!("(record {})", r.id));
        let entry = by_run.entry(key.clone()).or_default();
        if entry.is_empty() {
            order.push(key);
        }
        entry.push(row);
        details.insert(r.id, Detail { model: r.model, recorded_at: r.recorded_at, duration_s: r.duration_s, charged });
    }
    let mut out = Vec::with_capacity(order.len());
    for run in order {
        let counted = choose(&run, &by_run[&run]);
        let used: Vec<&Detail> = counted.used.iter().map(|r| &details[&r.id]).collect();
        let Some(latest) = used.iter().max_by_key(|d| d.charged.id) else { continue };
        let start = used.iter().map(|d| d.recorded_at - d.duration_s.map_or(0, |s| s.ceil() as i64)).min().unwrap_or(latest.recorded_at);
        let end = used.iter().map(|d| d.recorded_at).max().unwrap_or(latest.recorded_at);
        let pick = |carbon: bool| -> Vec<Charged> {
            counted.used.iter().filter(|r| r.carbon == carbon).map(|r| details[&r.id].charged.clone()).collect()
        };
        out.push(RunCharge { run, model: latest.model.clone(), start, end, carbon: pick(true), cost: pick(false) });
    }
    out
}
