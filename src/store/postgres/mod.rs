//! The PostgreSQL ledger: one store for a team's records, from every node.
//!
//! The same guarantees as the SQLite ledger: a schema version with ordered
//! migrations (a newer one is refused, nothing touched), append-only
//! enforced by triggers in the database, one transaction per `insert`, the
//! whole estimate kept. Every record carries an idempotency key made by exa
//! before sending, so a retry after a lost connection finds the record it
//! already wrote instead of writing it twice. Reports aggregate on the
//! server; only the groups come back.
//!
//! TLS is rustls (never OpenSSL): `sslmode=disable`, `require` (encrypted,
//! the certificate not checked, as libpq's `require`), `verify-full`
//! (checked against the Web PKI roots and the host name), or, when unset,
//! libpq's default `prefer` (TLS, verified, when the server offers it).

use std::time::{Duration, Instant};

mod conn;
mod report;
mod schema;
mod wire;
mod write;

pub use conn::{form, Conn, Spelling, CONNECT_TIMEOUT};
pub use schema::SCHEMA_VERSION;
use wire::{Client, Exec, WireError};

use super::{columns, Ledger, Line, Location};
use crate::error::Error;
use crate::store::report::{self as model, By, Filter, Group, Report};
use crate::store::rule::{sql, Dialect};
use report::{group, record_key, where_clause, Answer};
use schema::{key_constraint, migration};
use write::{write_line_id, write_many, Touched};

/// An open PostgreSQL ledger.
pub struct Pg {
    client: Client,
    conn: Conn,
    /// The schema version it was opened at (a reader reads an older one as it is).
    version: i64,
    /// Whether that version was read. A writer leaves it to its first record, whose statement checks
    /// the version itself (one statement, not two, for the common case); anything else checks first.
    checked: bool,
}

/// Whether an error is the connection's (worth a reconnect and a retry), not the statement's.
/// A deadline that passed is not: the server is there and not answering, and waiting again would double it.
fn transient(e: &WireError) -> bool {
    e.is_closed()
        || matches!(e, WireError::Db(_))
            && e.as_db_error().is_none_or(|db| {
                let c = db.code().code();
                c.starts_with("08") || c.starts_with("57P") || c == "40001" || c == "40P01"
            })
}

/// How long a writer waits for a server that is restarting (refusing connections, or starting up).
pub(super) const RESTART_WAIT: Duration = Duration::from_secs(5);

/// Whether connecting failed as it does while a server restarts: refused, reset or closed before it was
/// made, or the server saying it is starting up or shutting down (57P03), or ending the new session as
/// it shuts down (57P01, 57P02: a connection that came just as a fast stop began). Never a wrong
/// password, a missing database or a deadline.
pub(super) fn restarting(e: &WireError) -> bool {
    if e.is_closed() {
        return true;
    }
    match e {
        WireError::Db(db) => match db.as_db_error() {
            Some(d) => matches!(d.code().code(), "57P01" | "57P02" | "57P03"),
            None => {
                let mut src: Option<&(dyn std::error::Error + 'static)> = Some(db);
                while let Some(s) = src {
                    // Refused while it is down; reset, or closed mid-startup, as it goes down.
                    let kinds =
                        [std::io::ErrorKind::ConnectionRefused, std::io::ErrorKind::ConnectionReset, std::io::ErrorKind::UnexpectedEof];
                    if s.downcast_ref::<std::io::Error>().is_some_and(|io| kinds.contains(&io.kind())) {
                        return true;
                    }
                    src = s.source();
                }
                false
            }
        },
        _ => false,
    }
}

/// How long an insert keeps retrying a lost connection before it reports failure.
const RETRY_FOR: Duration = Duration::from_secs(30);

impl Pg {
    /// Connects to write. The schema is checked, and migrated, before its first use (`check`).
    pub fn open_write(conn: Conn) -> Result<Pg, Error> {
        Ok(Pg { client: conn.connect(true)?, conn, version: SCHEMA_VERSION, checked: false })
    }

    /// Connects to read: the schema is checked now, and never changed; None when exa's tables are not there yet.
    pub fn open_read(conn: Conn) -> Result<Option<Pg>, Error> {
        let mut pg = Pg { client: conn.connect(false)?, conn, version: SCHEMA_VERSION, checked: false };
        let version = pg.version()?;
        pg.refuse_newer(version)?;
        (pg.version, pg.checked) = (version, true);
        // A reader reads an older schema as it is (every version has the columns reports read); 0 is nothing yet.
        Ok((version > 0).then_some(pg))
    }

    fn refuse_newer(&self, version: i64) -> Result<(), Error> {
        if version > SCHEMA_VERSION {
            return Err(Error::Config(format!(
                "{} has exa schema version {version}, newer than this exa knows ({SCHEMA_VERSION}); upgrade exa. Nothing was written to it",
                self.conn.shown
            )));
        }
        Ok(())
    }

    /// A writer's schema at this exa's version: read, and migrated when older; a newer one refused.
    fn check(&mut self) -> Result<(), Error> {
        if !self.checked {
            let version = self.version()?;
            self.refuse_newer(version)?;
            self.version = if version < SCHEMA_VERSION { self.migrate()? } else { version };
            self.checked = true;
        }
        Ok(())
    }

    /// The schema version: 0 for a database without exa's tables; an error for one whose tables are not exa's.
    fn version(&mut self) -> Result<i64, Error> {
        let conn = self.conn.clone();
        // The common case in one round trip: the version where exa_meta is.
        if let Ok(msgs) = self.client.simple_query("SELECT value FROM exa_meta WHERE key = 'schema_version'") {
            let value = msgs.iter().find_map(|m| match m {
                tokio_postgres::SimpleQueryMessage::Row(r) => r.get(0).and_then(|v| v.parse::<i64>().ok()),
                _ => None,
            });
            if let Some(v) = value {
                return Ok(v);
            }
        }
        let row = self
            .client
            .query_one("SELECT to_regclass('exa_meta') IS NOT NULL, to_regclass('exa_records') IS NOT NULL", &[])
            .map_err(|e| conn.error(&e))?;
        let (meta, records): (bool, bool) = (row.get(0), row.get(1));
        match (meta, records) {
            (false, false) => Ok(0),
            (false, true) => {
                Err(Error::Config(format!("{}: its exa_records table is not exa's (no exa_meta); nothing was written to it", conn.shown)))
            }
            _ => {
                let v = self
                    .client
                    .query_opt("SELECT value FROM exa_meta WHERE key = 'schema_version'", &[])
                    .map_err(|e| conn.error(&e))?
                    .map(|r| r.get::<_, String>(0));
                v.and_then(|v| v.parse().ok())
                    .ok_or_else(|| Error::Config(format!("{}: exa_meta holds no schema version; not an exa database", conn.shown)))
            }
        }
    }

    /// Brings the schema to this exa's version, one process at a time (an advisory lock).
    pub fn migrate(&mut self) -> Result<i64, Error> {
        let conn = self.conn.clone();
        let db = |e: WireError| conn.error(&e);
        // A session lock, taken before the transaction: the transaction's first look at the catalog then
        // sees what a process that held the lock before committed (a lock taken inside it would not).
        self.client.execute("SELECT pg_advisory_lock(7865786101)", &[]).map_err(db)?;
        let done = self.migrate_locked();
        let _ = self.client.execute("SELECT pg_advisory_unlock(7865786101)", &[]);
        done
    }

    fn migrate_locked(&mut self) -> Result<i64, Error> {
        let conn = self.conn.clone();
        let db = |e: WireError| conn.error(&e);
        let mut tx = self.client.transaction().map_err(db)?;
        let meta: bool = tx.query_one("SELECT to_regclass('exa_meta') IS NOT NULL", &[]).map_err(db)?.get(0);
        let now: i64 = if meta {
            let v: Option<String> =
                tx.query_opt("SELECT value FROM exa_meta WHERE key = 'schema_version'", &[]).map_err(db)?.map(|r| r.get(0));
            v.and_then(|v| v.parse().ok()).unwrap_or(0)
        } else {
            0
        };
        if now > SCHEMA_VERSION {
            return Err(Error::Config(format!(
                "{} has exa schema version {now}, newer than this exa knows ({SCHEMA_VERSION})",
                conn.shown
            )));
        }
        for version in now.max(0) + 1..=SCHEMA_VERSION {
            tx.batch_execute(&migration(version)).map_err(db)?;
            tx.execute(
                "INSERT INTO exa_meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                &[&version.to_string()],
            )
            .map_err(db)?;
        }
        tx.commit().map_err(db)?;
        Ok(SCHEMA_VERSION)
    }

    /// Writes lines: one statement each, both tables at once (a data-modifying CTE), so a single
    /// record needs no explicit transaction; several are wrapped in one. At another schema version than
    /// this exa's, an error (`other_schema`), and nothing written.
    fn write_once(&mut self, lines: &[Line]) -> Result<Vec<(i64, bool)>, WireError> {
        if let [l] = lines {
            return Ok(vec![write_line_id(&mut self.client, l)?]);
        }
        let mut tx = self.client.transaction()?;
        let mut touched = Touched::default();
        let written = write_many(&mut tx, lines, &mut touched)?;
        // The ids of records stored before this batch.
        let before: Vec<&str> = lines.iter().zip(&written).filter(|(_, (id, _))| id.is_none()).map(|(l, _)| l.key.as_str()).collect();
        let stored: std::collections::HashMap<String, i64> = if before.is_empty() {
            std::collections::HashMap::new()
        } else {
            tx.query("SELECT idem_key, id FROM exa_records WHERE idem_key = ANY($1)", &[&before])?
                .iter()
                .map(|r| (r.get(0), r.get(1)))
                .collect()
        };
        let mut ids = Vec::with_capacity(lines.len());
        for (l, (id, new)) in lines.iter().zip(written) {
            let id = match id.or_else(|| stored.get(&l.key).copied()) {
                Some(id) => id,
                None => tx.query_one("SELECT id FROM exa_records WHERE idem_key = $1", &[&l.key])?.get(0),
            };
            ids.push((id, new));
        }
        touched.count(&mut tx)?;
        tx.commit()?;
        Ok(ids)
    }

    /// Writes every line of every chunk in one transaction; counts new lines and those already stored.
    fn write_chunks_once(&mut self, chunks: &mut dyn Iterator<Item = Result<Vec<Line>, Error>>) -> Result<Vec<bool>, Error> {
        self.check()?;
        let conn = self.conn.clone();
        let mut tx = self.client.transaction().map_err(|e| conn.error(&e))?;
        let mut fresh = Vec::new();
        let mut touched = Touched::default();
        for chunk in chunks {
            let written = write_many(&mut tx, &chunk?, &mut touched).map_err(|e| {
                if other_schema(&e) {
                    version_changed(&conn.shown)
                } else {
                    conn.error(&e)
                }
            })?;
            fresh.extend(written.into_iter().map(|(_, new)| new));
        }
        touched.count(&mut tx).map_err(|e| conn.error(&e))?;
        tx.commit().map_err(|e| conn.error(&e))?;
        Ok(fresh)
    }

    /// The report's groups and totals, aggregated by the server.
    fn aggregate(&mut self, by: By, f: &Filter) -> Result<Answer, Error> {
        if let Some(done) = self.report_from_cells(by, f)? {
            return Ok(done);
        }
        let key = record_key(by, self.version);
        let (mut clause, mut args) = where_clause(f, "");
        if let (Some(k), false) = (&f.key, by == By::Day) {
            clause = crate::store::report::and_key(clause, &key, &format!("${}", args.len() + 1));
            args.push(Box::new(k.clone()));
        }
        let params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = args.iter().map(|a| a.as_ref() as _).collect();
        let conn = self.conn.clone();
        // Room to group a million runs in memory rather than on disk; this session only.
        let _ = self.client.batch_execute("SET work_mem = '256MB'");
        let figs = match f.per.as_ref().and_then(crate::store::report::Per::need_column) {
            Some(column) => crate::store::rule::Summed::Per(column, self.version >= schema::NODE_CELLS_VERSION),
            None => schema::figures(self.version),
        };
        let rows = self.client.query(&sql(Dialect::Postgres, figs, &key, &clause), &params).map_err(|e| conn.error(&e))?;
        let mut groups: Vec<Group> = rows.iter().map(|r| group(r, figs.node())).collect();
        let total = self.client.query(&sql(Dialect::Postgres, figs, "'total'", &clause), &params).map_err(|e| conn.error(&e))?;
        let totals = total.first().map(|r| group(r, figs.node()));
        // The notes are the totals' (each run over all its records), as the SQLite ledger gives them.
        let notes: Vec<String> =
            total.first().and_then(|r| r.get::<_, Option<String>>(14)).map(|n| n.lines().map(str::to_string).collect()).unwrap_or_default();
        groups.sort_by(|a, b| a.key.cmp(&b.key));
        let totals = totals.unwrap_or_else(model::nothing);
        Ok((groups, totals, notes))
    }
}

/// Whether a write failed because the schema is not at this exa's version: its statement named a key
/// constraint (`key_named`) the database does not have.
fn other_schema(e: &WireError) -> bool {
    e.as_db_error().is_some_and(|db| {
        db.code() == &tokio_postgres::error::SqlState::UNDEFINED_OBJECT && db.message().contains(&key_constraint(SCHEMA_VERSION))
    })
}

/// A writer found the schema at another version than the one it checked.
fn version_changed(shown: &str) -> Error {
    Error::Failed(format!(
        "{shown}: its exa schema is no longer version {SCHEMA_VERSION} (changed while exa wrote); nothing more was written"
    ))
}

impl Ledger for Pg {
    fn write(&mut self, lines: &[Line]) -> Result<Vec<(i64, bool)>, Error> {
        let started = Instant::now();
        let mut wait = Duration::from_millis(100);
        loop {
            match self.write_once(lines) {
                Ok(ids) => {
                    // The statement found this exa's schema version.
                    self.checked = true;
                    return Ok(ids);
                }
                Err(e) if transient(&e) && started.elapsed() < RETRY_FOR => {
                    // The connection went (a restart, a failover): reconnect and send the same records again;
                    // their keys make a second write of a committed record a no-op.
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(Duration::from_secs(2));
                    if let Ok(c) = self.conn.connect(false) {
                        self.client = c;
                    }
                }
                // Another version (or no exa tables yet, or not exa's), or a role that may not write: read the
                // version, migrate or refuse, and write again.
                Err(e) if !self.checked && e.as_db_error().is_some() => self.check()?,
                Err(e) if other_schema(&e) => return Err(version_changed(&self.conn.shown)),
                Err(e) => return Err(self.conn.error(&e)),
            }
        }
    }

    fn report(&mut self, by: By, filter: Filter) -> Result<Report, Error> {
        self.check()?;
        let (groups, totals, notes) = self.aggregate(by, &filter)?;
        for g in groups.iter().chain(std::iter::once(&totals)) {
            model::finite(g)?;
        }
        let totals = if groups.is_empty() { model::nothing() } else { totals };
        Ok(Report { by, filter, db: self.conn.shown.clone(), groups, totals, range_method: model::RANGE_METHOD, notes })
    }

    fn runs(&mut self, filter: &Filter) -> Result<Vec<super::charges::RunCharge>, Error> {
        self.check()?;
        let (clause, args) = where_clause(filter, "r.");
        let params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = args.iter().map(|a| a.as_ref() as _).collect();
        let q = format!(
            "SELECT r.id, r.model, r.run_id, r.recorded_at, r.duration_s, r.domain = 'carbon', r.measured, r.part, r.provider,
                    r.provider_digest, r.gpu_hours, r.cpu_hours, r.kwh, r.co2e_g, r.uncertainty, r.cost_usd,
                    (e.estimate #>> '{{coefficients,gpu_rate,value}}')::float8, (e.estimate #>> '{{coefficients,cpu_rate,value}}')::float8,
                    {work}, {k8s}
             FROM exa_records r JOIN exa_estimates e ON e.record_id = r.id {clause} ORDER BY r.id",
            work = schema::work_columns(self.version, "r."),
            k8s = if self.version >= schema::K8S_VERSION { "r.k8s_namespace, r.tags" } else { "NULL::text, NULL::text" }
        );
        let conn = self.conn.clone();
        let rows = self.client.query(&q, &params).map_err(|e| conn.error(&e))?;
        let raw = rows
            .iter()
            .map(|r| super::charges::Raw {
                id: r.get(0),
                model: r.get(1),
                run_id: r.get(2),
                recorded_at: r.get(3),
                duration_s: r.get(4),
                carbon: r.get(5),
                measured: r.get(6),
                part: r.get(7),
                provider: r.get(8),
                digest: r.get(9),
                gpu_hours: r.get(10),
                cpu_hours: r.get(11),
                kwh: r.get(12),
                co2e_g: r.get(13),
                uncertainty: r.get(14),
                cost_usd: r.get(15),
                gpu_rate: r.get(16),
                cpu_rate: r.get(17),
                embodied_co2e_g: r.get(18),
                water_l: r.get(19),
                work: crate::model::Work {
                    tokens: r.get(20),
                    prompt_tokens: r.get(21),
                    requests: r.get(22),
                    unit: r.get::<_, Option<String>>(23).map(|u| (u, r.get::<_, Option<f64>>(24).unwrap_or(0.0))),
                },
                namespace: r.get(25),
                tags: r.get(26),
            })
            .collect();
        Ok(super::charges::from_raw(raw))
    }

    fn write_chunks(&mut self, chunks: &mut dyn Iterator<Item = Result<Vec<Line>, Error>>) -> Result<Vec<bool>, Error> {
        self.write_chunks_once(chunks)
    }

    fn stored_keys(&mut self, keys: &[String]) -> Result<Vec<bool>, Error> {
        self.check()?;
        let conn = self.conn.clone();
        let rows = self.client.query("SELECT idem_key FROM exa_records WHERE idem_key = ANY($1)", &[&keys]).map_err(|e| conn.error(&e))?;
        let stored: std::collections::HashSet<String> = rows.iter().map(|r| r.get(0)).collect();
        Ok(keys.iter().map(|k| stored.contains(k)).collect())
    }

    fn newest_imported(&mut self, prefix: &str, not_after: i64) -> Result<(Option<i64>, Option<i64>), Error> {
        self.check()?;
        let conn = self.conn.clone();
        self.client
            .query_one(
                // Newest first by the time index, each stopping at the importer's first record (as SQLite's).
                "SELECT (SELECT recorded_at FROM exa_records WHERE recorded_at <= $2 AND left(idem_key, length($1)) = $1
                          ORDER BY recorded_at DESC LIMIT 1),
                        (SELECT recorded_at FROM exa_records WHERE left(idem_key, length($1)) = $1 ORDER BY recorded_at DESC LIMIT 1)",
                &[&prefix, &not_after],
            )
            .map(|r| (r.get(0), r.get(1)))
            .map_err(|e| conn.error(&e))
    }

    fn read(&mut self, after: i64, limit: usize) -> Result<Vec<(i64, Line)>, Error> {
        self.check()?;
        let conn = self.conn.clone();
        let q = format!(
            "SELECT r.id, {}, e.estimate
             FROM exa_records r JOIN exa_estimates e ON e.record_id = r.id WHERE r.id > $1 ORDER BY r.id LIMIT $2",
            columns::select(columns::Store::Postgres, self.version, "r.")
        );
        let rows = self.client.query(&q, &[&after, &i64::try_from(limit).unwrap_or(i64::MAX)]).map_err(|e| conn.error(&e))?;
        let estimate_at = 1 + columns::RECORD.len();
        rows.iter()
            .map(|r| {
                let line = columns::line(|i, c| value(r, 1 + i, c.kind))
                    .map_err(|c| Error::Failed(format!("{}: record {}'s {} is not of its type", conn.shown, r.get::<_, i64>(0), c.name)))?;
                Ok((r.get(0), Line { estimate: r.get::<_, serde_json::Value>(estimate_at).to_string().into(), ..line }))
            })
            .collect()
    }

    fn schema_version(&mut self) -> Result<i64, Error> {
        // Read when it was opened (a reader) or checked (a writer); a writer's first record checks it too.
        self.check()?;
        Ok(self.version)
    }

    fn keeps_work(&mut self) -> Result<bool, Error> {
        self.check()?;
        Ok(self.version >= schema::WORK_VERSION)
    }

    fn outbox_add(&mut self, record_id: i64, run_id: &str, payload: &str, error: &str) -> Result<(), Error> {
        self.check()?;
        let conn = self.conn.clone();
        self.client
            .execute(
                "INSERT INTO exa_mlflow_outbox (record_id, run_id, payload, created_at, last_error) VALUES ($1, $2, $3, $4, $5)",
                &[&record_id, &run_id, &payload, &crate::time::now_unix(), &error],
            )
            .map(|_| ())
            .map_err(|e| conn.error(&e))
    }

    fn outbox_pending(&mut self, max_attempts: Option<i64>, limit: usize) -> Result<Vec<(i64, String)>, Error> {
        self.check()?;
        let conn = self.conn.clone();
        let (max, limit) = (max_attempts.map(|m| i32::try_from(m).unwrap_or(i32::MAX)), i64::try_from(limit).unwrap_or(i64::MAX));
        let rows = self
            .client
            .query(
                "SELECT id, payload FROM exa_mlflow_outbox WHERE sent_at IS NULL AND ($1::int IS NULL OR attempts < $1) ORDER BY id LIMIT $2",
                &[&max, &limit],
            )
            .map_err(|e| conn.error(&e))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn outbox_mark(&mut self, id: i64, error: Option<&str>) -> Result<(), Error> {
        self.check()?;
        let conn = self.conn.clone();
        let done = match error {
            None => self
                .client
                .execute("UPDATE exa_mlflow_outbox SET sent_at = $2, last_error = NULL WHERE id = $1", &[&id, &crate::time::now_unix()]),
            Some(e) => {
                self.client.execute("UPDATE exa_mlflow_outbox SET attempts = attempts + 1, last_error = $2 WHERE id = $1", &[&id, &e])
            }
        };
        done.map(|_| ()).map_err(|e| conn.error(&e))
    }

    fn budget_change(&mut self, c: &crate::model::budget::Change) -> Result<(), Error> {
        self.check()?;
        let conn = self.conn.clone();
        self.client
            .execute(
                "INSERT INTO exa_budget_changes (name, changed_at, changed_by, budget) VALUES ($1, $2, $3, $4)",
                &[&c.name, &c.at, &c.by, &c.budget],
            )
            .map(|_| ())
            .map_err(|e| conn.error(&e))
    }

    fn budget_changes(&mut self) -> Result<Vec<crate::model::budget::Change>, Error> {
        self.check()?;
        if self.version < schema::BUDGET_VERSION {
            return Ok(Vec::new());
        }
        let conn = self.conn.clone();
        let rows = self
            .client
            .query("SELECT name, changed_at, changed_by, budget FROM exa_budget_changes ORDER BY id", &[])
            .map_err(|e| conn.error(&e))?;
        Ok(rows.iter().map(|r| crate::model::budget::Change { name: r.get(0), at: r.get(1), by: r.get(2), budget: r.get(3) }).collect())
    }

    fn budget_event_add(&mut self, key: &str, payload: &str, at: i64, sent: bool) -> Result<bool, Error> {
        self.check()?;
        let conn = self.conn.clone();
        self.client
            .execute(
                "INSERT INTO exa_budget_events (event_key, created_at, payload, sent_at) VALUES ($1, $2, $3, $4) ON CONFLICT (event_key) DO NOTHING",
                &[&key, &at, &payload, &sent.then_some(at)],
            )
            .map(|n| n == 1)
            .map_err(|e| conn.error(&e))
    }

    fn budget_events_pending(&mut self, destinations: &[&str], limit: usize) -> Result<Vec<(i64, String, String)>, Error> {
        self.check()?;
        let conn = self.conn.clone();
        let names: Vec<String> = destinations.iter().map(|d| (*d).to_string()).collect();
        let rows = self
            .client
            .query(
                "SELECT id, event_key, payload FROM exa_budget_events WHERE sent_at IS NULL AND split_part(event_key, '|', 1) = ANY($1) \
                 ORDER BY id LIMIT $2",
                &[&names, &i64::try_from(limit).unwrap_or(i64::MAX)],
            )
            .map_err(|e| conn.error(&e))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect())
    }

    fn budget_event_claim(&mut self, id: i64, at: i64, stale_before: i64) -> Result<bool, Error> {
        self.check()?;
        let conn = self.conn.clone();
        self.client
            .execute(
                "UPDATE exa_budget_events SET claimed_at = $2 WHERE id = $1 AND sent_at IS NULL AND (claimed_at IS NULL OR claimed_at < $3)",
                &[&id, &at, &stale_before],
            )
            .map(|n| n == 1)
            .map_err(|e| conn.error(&e))
    }

    fn budget_event_mark(&mut self, id: i64, error: Option<&str>, at: i64) -> Result<(), Error> {
        self.check()?;
        let conn = self.conn.clone();
        let done = match error {
            None => self.client.execute("UPDATE exa_budget_events SET sent_at = $2, attempts = attempts + 1 WHERE id = $1", &[&id, &at]),
            Some(e) => self.client.execute(
                "UPDATE exa_budget_events SET attempts = attempts + 1, last_error = $2, claimed_at = NULL WHERE id = $1",
                &[&id, &e],
            ),
        };
        done.map(|_| ()).map_err(|e| conn.error(&e))
    }

    fn location(&self) -> Location {
        Location(self.conn.shown.clone())
    }
}

/// A record's column as PostgreSQL gives it back, read as its type.
fn value(r: &tokio_postgres::Row, i: usize, kind: columns::Kind) -> columns::Value<'_> {
    use columns::{Kind, Value};
    match kind {
        Kind::Word | Kind::Text => r.get::<_, Option<&str>>(i).map_or(Value::Null, Value::Text),
        Kind::Real => r.get::<_, Option<f64>>(i).map_or(Value::Null, Value::Real),
        Kind::Int4 => r.get::<_, Option<i32>>(i).map_or(Value::Null, |v| Value::Int(i64::from(v))),
        Kind::Int8 => r.get::<_, Option<i64>>(i).map_or(Value::Null, Value::Int),
        Kind::Flag => r.get::<_, Option<bool>>(i).map_or(Value::Null, Value::Flag),
    }
}
