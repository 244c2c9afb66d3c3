//! The SQLite ledger's records for charge lines, grouped into runs by
//! `store::charges`.

use rusqlite::types::Value as Sql;

use super::report::clause_for;
use super::Store;
use crate::error::Error;
use crate::store::charges::{from_raw, Raw, RunCharge};
use crate::store::report::Filter;

/// Every run the filter selects in the SQLite ledger, in order of its first record.
pub fn runs(store: &Store, f: &Filter) -> Result<Vec<RunCharge>, Error> {
    let (filter, args): (String, Vec<Sql>) = clause_for(f, "r.");
    let db = |e: rusqlite::Error| Error::Failed(format!("{}: {e}", store.path.display()));
    // The version and the rows from one snapshot, as `read_lines` reads them.
    let tx = store.conn().unchecked_transaction().map_err(db)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(db)?;
    let (estimates, coefficients) = super::coefficients_join(version);
    let work = super::work_columns(version, "r.");
    let sql = format!(
        "SELECT r.id, r.model, r.run_id, r.recorded_at, r.duration_s, r.domain = 'carbon', r.measured, r.part, r.provider,
                r.provider_digest, r.gpu_hours, r.cpu_hours, r.kwh, r.co2e_g, r.uncertainty, r.cost_usd,
                json_extract({coefficients}, '$.coefficients.gpu_rate.value'), json_extract({coefficients}, '$.coefficients.cpu_rate.value'),
                {work}, {k8s}
         FROM records r {estimates} {filter} ORDER BY r.id",
        k8s = if version >= super::K8S_VERSION { "r.k8s_namespace, r.tags" } else { "NULL, NULL" }
    );
    let mut stmt = tx.prepare(&sql).map_err(db)?;
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
            embodied_co2e_g: r.get(18).map_err(db)?,
            water_l: r.get(19).map_err(db)?,
            work: crate::model::Work {
                tokens: r.get(20).map_err(db)?,
                prompt_tokens: r.get(21).map_err(db)?,
                requests: r.get(22).map_err(db)?,
                unit: r.get::<_, Option<String>>(23).map_err(db)?.map(|u| (u, r.get::<_, Option<f64>>(24).ok().flatten().unwrap_or(0.0))),
            },
            namespace: r.get(25).map_err(db)?,
            tags: r.get(26).map_err(db)?,
        });
    }
    drop(rows);
    drop(stmt);
    tx.commit().map_err(db)?;
    Ok(from_raw(raw))
}
