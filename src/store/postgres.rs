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

use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;
use std::time::{Duration, Instant};

use tokio_postgres::NoTls;

use super::wire::{Client, Exec, WireError};

use super::cells::Cell;
use super::report::{self, By, Filter, Group, Report};
use super::{Ledger, Line, Location};
use crate::error::Error;

/// Schema migrations, in order; entry N takes the database from version N to N + 1.
const MIGRATIONS: &[&str] = &[
    r"
CREATE TABLE exa_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE exa_records (
    id               bigserial PRIMARY KEY,
    idem_key         text      NOT NULL UNIQUE,
    model            text      NOT NULL,
    run_id           text,
    recorded_at      bigint    NOT NULL,
    host             text      NOT NULL,
    domain           text      NOT NULL CHECK (domain IN ('carbon', 'cost')),
    provider         text      NOT NULL,
    provider_kind    text      NOT NULL,
    provider_digest  text      NOT NULL,
    gpu_hours        float8    NOT NULL CHECK (gpu_hours >= 0),
    cpu_hours        float8    NOT NULL CHECK (cpu_hours >= 0),
    kwh              float8,
    co2e_g           float8,
    cost_usd         float8,
    uncertainty      float8,
    measured         boolean   NOT NULL DEFAULT false,
    duration_s       float8,
    device_count     integer,
    measured_kwh     float8,
    part             boolean   NOT NULL DEFAULT false
);
CREATE TABLE exa_estimates (record_id bigint PRIMARY KEY REFERENCES exa_records (id), estimate jsonb NOT NULL);
CREATE INDEX exa_records_model_time ON exa_records (model, recorded_at);
CREATE INDEX exa_records_time ON exa_records (recorded_at);
CREATE FUNCTION exa_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'exa records are append-only'; END $$;
CREATE TRIGGER exa_records_no_change BEFORE UPDATE OR DELETE ON exa_records FOR EACH ROW EXECUTE FUNCTION exa_append_only();
CREATE TRIGGER exa_records_no_truncate BEFORE TRUNCATE ON exa_records FOR EACH STATEMENT EXECUTE FUNCTION exa_append_only();
CREATE TRIGGER exa_estimates_no_change BEFORE UPDATE OR DELETE ON exa_estimates FOR EACH ROW EXECUTE FUNCTION exa_append_only();
CREATE TRIGGER exa_estimates_no_truncate BEFORE TRUNCATE ON exa_estimates FOR EACH STATEMENT EXECUTE FUNCTION exa_append_only();
",
    // 2: the run of a record, indexed, for reports by run and for choosing each run's records.
    r"CREATE INDEX exa_records_run ON exa_records ((COALESCE(run_id, '(record ' || id || ')')), domain);",
    // 3: logs for MLflow that could not be sent yet; `exa sync mlflow` and the next record send them.
    r"CREATE TABLE exa_mlflow_outbox (
        id bigserial PRIMARY KEY, record_id bigint NOT NULL REFERENCES exa_records (id), run_id text NOT NULL,
        payload text NOT NULL, created_at bigint NOT NULL, attempts integer NOT NULL DEFAULT 1, last_error text, sent_at bigint);",
    // 4: who ran an imported job and where (the scheduler's user, account and partition), for reports by them.
    r"ALTER TABLE exa_records ADD COLUMN job_user text, ADD COLUMN job_account text, ADD COLUMN job_partition text;",
    // 5: the report's summary cells, kept by a trigger as records arrive (`cells_schema`, made with the report's SQL).
    "",
    // 6: a batch's cells counted once at its end (`refresh_schema`, made with the report's SQL).
    "",
    // 7: the records' key constraint named after the schema's version (`key_named`), which exa's INSERTs name.
    "",
];

/// The schema version that has the report's summary cells.
const CELLS_VERSION: i64 = 5;
/// The schema version whose batches count their cells at their end.
const REFRESH_VERSION: i64 = 6;

/// The first schema version whose records' key constraint is named after it.
const KEY_NAMED_VERSION: i64 = 7;

/// The SQL that takes the database to `version`: written out above, or made from the report's SQL; from
/// `KEY_NAMED_VERSION` on, each migration then names the records' key constraint after its version.
fn migration(version: i64) -> String {
    let sql = match version {
        CELLS_VERSION => cells_schema(),
        REFRESH_VERSION => refresh_schema(),
        _ => MIGRATIONS[usize::try_from(version - 1).unwrap_or(0)].to_string(),
    };
    if version >= KEY_NAMED_VERSION {
        format!("{sql}\n{}", key_named(version))
    } else {
        sql
    }
}

/// The name of the records' key constraint (unique `idem_key`) at schema `version`.
fn key_constraint(version: i64) -> String {
    format!("exa_records_key_v{version}")
}

/// Names the records' key constraint after `version` (and its index with it), whatever it was named before:
/// the schema's version in the catalog, where exa's INSERTs read it for nothing. They name it as their
/// `ON CONFLICT` arbiter, so a statement sent to a schema at any other version fails as it is parsed,
/// before it writes anything; a writer then reads `exa_meta`'s version and migrates or refuses.
fn key_named(version: i64) -> String {
    format!(
        "DO $key$ DECLARE c text; BEGIN
    SELECT conname INTO STRICT c FROM pg_constraint
    WHERE conrelid = 'exa_records'::regclass AND contype = 'u'
      AND conkey = ARRAY[(SELECT attnum FROM pg_attribute WHERE attrelid = 'exa_records'::regclass AND attname = 'idem_key')];
    IF c <> '{name}' THEN
        EXECUTE format('ALTER TABLE exa_records RENAME CONSTRAINT %I TO %I', c, '{name}');
    END IF;
END $key$;",
        name = key_constraint(version)
    )
}

/// A record's cell, as SQL over a record's columns (`r.` or `NEW.`): model, UTC day, user, account, partition.
fn cell_of(r: &str) -> String {
    cell_on(r, &format!("exa_day({r}recorded_at)"))
}

/// A record's cell with its UTC day given as SQL (`exa_day(…)`, or the day exa computed and sent).
fn cell_on(r: &str, day: &str) -> String {
    format!("{r}model, {day}, COALESCE({r}job_user, '(none)'), COALESCE({r}job_account, '(none)'), COALESCE({r}job_partition, '(none)')")
}

/// The summary cells, as the SQLite ledger keeps them (`cells.rs`): per model, UTC day, user, account and
/// partition, what a report counts over its records. exa's own INSERT adds a run's first record to its cell
/// in the same statement (`exa_runs`, a unique key per run, says which record is first, even between
/// concurrent writers) and marks it `cells_kept`. Every other record (a run's later record, or one written
/// by SQL) goes to a trigger, which counts its cell again from its records, holding the run's key row and
/// the cell's row locked; runs whose records fall in two cells are kept out of every cell, and reports read them. The trigger
/// does not fire for exa's common case (its WHEN), so a record pays no PL/pgSQL start-up in a new backend.
fn cells_schema() -> String {
    let cell = "model = _model AND recorded_at >= _day * 86400 AND recorded_at < (_day + 1) * 86400 \
                AND COALESCE(job_user, '(none)') = _user AND COALESCE(job_account, '(none)') = _account \
                AND COALESCE(job_partition, '(none)') = _partition AND (run_id IS NULL OR run_id NOT IN (SELECT run_id FROM exa_split_runs))";
    let recount = sql("'cell'", &format!("WHERE {cell}"));
    // Every cell at once, each keyed by its five values as a JSON array (text any value survives).
    let every_cell = sql(
        &format!("json_build_array({})::text", cell_of("")),
        "WHERE run_id IS NULL OR run_id NOT IN (SELECT run_id FROM exa_split_runs)",
    );
    let (new_cell, rec_cell) = (cell_of("NEW."), cell_of(""));
    let named = "model, exa_day(recorded_at) AS day, COALESCE(job_user, '(none)') AS u, COALESCE(job_account, '(none)') AS a, \
                 COALESCE(job_partition, '(none)') AS p";
    CELLS_SCHEMA
        .replace("{recount}", &recount)
        .replace("{every_cell}", &every_cell)
        .replace("{rec_cell}", &rec_cell)
        .replace("{new_cell}", &new_cell)
        .replace("{named}", named)
        .replace("{add_new}", &add_to_cell("NEW.", "exa_day(NEW.recorded_at)", "(VALUES (0)) AS one", ""))
}

/// Adds one record (its columns prefixed `r`, read from `from` where `filter`; its UTC day the SQL `day`)
/// to its cell as a run's only record counts. The upsert locks the cell's row, as a recount of the cell
/// does (`exa_cell_recount`). Its numbers are typed as the columns are (`0::float8`), so a new backend
/// parses it without searching the catalog for an operator that takes an integer and a float.
fn add_to_cell(r: &str, day: &str, from: &str, filter: &str) -> String {
    let carbon = format!("{r}domain = 'carbon'");
    format!(
        "INSERT INTO exa_report_cells AS x
        SELECT {cell}, 1, {r}measured::int, ({carbon})::int, (NOT ({carbon}))::int, 0, {r}gpu_hours, {r}cpu_hours,
               CASE WHEN {carbon} THEN {r}kwh END, CASE WHEN {carbon} THEN {r}co2e_g END,
               CASE WHEN {carbon} THEN {r}co2e_g * (1::float8 - {r}uncertainty) END, CASE WHEN {carbon} THEN {r}co2e_g * (1::float8 + {r}uncertainty) END,
               {carbon} AND {r}co2e_g IS NOT NULL AND {r}uncertainty IS NULL, CASE WHEN NOT ({carbon}) THEN {r}cost_usd END, NULL
        FROM {from} {filter}
        ON CONFLICT (model, day, job_user, job_account, job_partition) DO UPDATE SET
        runs = x.runs + 1, runs_measured = x.runs_measured + EXCLUDED.runs_measured, carbon = x.carbon + EXCLUDED.carbon,
        cost = x.cost + EXCLUDED.cost, gpu_hours = x.gpu_hours + EXCLUDED.gpu_hours, cpu_hours = x.cpu_hours + EXCLUDED.cpu_hours,
        kwh = CASE WHEN EXCLUDED.kwh IS NULL THEN x.kwh ELSE COALESCE(x.kwh, 0::float8) + EXCLUDED.kwh END,
        co2e_g = CASE WHEN EXCLUDED.co2e_g IS NULL THEN x.co2e_g ELSE COALESCE(x.co2e_g, 0::float8) + EXCLUDED.co2e_g END,
        co2e_low = CASE WHEN EXCLUDED.co2e_low IS NULL THEN x.co2e_low ELSE COALESCE(x.co2e_low, 0::float8) + EXCLUDED.co2e_low END,
        co2e_high = CASE WHEN EXCLUDED.co2e_high IS NULL THEN x.co2e_high ELSE COALESCE(x.co2e_high, 0::float8) + EXCLUDED.co2e_high END,
        unknown_uncertainty = x.unknown_uncertainty OR EXCLUDED.unknown_uncertainty,
        cost_usd = CASE WHEN EXCLUDED.cost_usd IS NULL THEN x.cost_usd ELSE COALESCE(x.cost_usd, 0::float8) + EXCLUDED.cost_usd END",
        cell = cell_on(r, day)
    )
}

/// The cells' tables and functions; `cells_schema` fills in the SQL between braces.
const CELLS_SCHEMA: &str = r"
CREATE INDEX exa_records_run_id ON exa_records (run_id);
CREATE INDEX exa_records_cell ON exa_records (model, COALESCE(job_user, '(none)'), COALESCE(job_account, '(none)'),
    COALESCE(job_partition, '(none)'), recorded_at);
ALTER TABLE exa_records ADD COLUMN cells_kept boolean NOT NULL DEFAULT false;
CREATE TABLE exa_runs (run_id text PRIMARY KEY);
CREATE TABLE exa_report_cells (
    model text NOT NULL, day bigint NOT NULL, job_user text NOT NULL, job_account text NOT NULL, job_partition text NOT NULL,
    runs bigint NOT NULL, runs_measured bigint NOT NULL, carbon bigint NOT NULL, cost bigint NOT NULL, not_counted bigint NOT NULL,
    gpu_hours float8 NOT NULL, cpu_hours float8 NOT NULL, kwh float8, co2e_g float8, co2e_low float8, co2e_high float8,
    unknown_uncertainty boolean NOT NULL, cost_usd float8, notes text,
    PRIMARY KEY (model, day, job_user, job_account, job_partition));
CREATE TABLE exa_split_runs (run_id text PRIMARY KEY);
CREATE FUNCTION exa_day(t bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT (t - ((t % 86400) + 86400) % 86400) / 86400 $$;
CREATE FUNCTION exa_cell_recount(_model text, _day bigint, _user text, _account text, _partition text) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
    -- The cell's row, there to be locked (a writer adding to it, or counting it, waits for this one's commit).
    INSERT INTO exa_report_cells VALUES (_model, _day, _user, _account, _partition, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, false, NULL, NULL)
        ON CONFLICT DO NOTHING;
    PERFORM 1 FROM exa_report_cells
        WHERE model = _model AND day = _day AND job_user = _user AND job_account = _account AND job_partition = _partition FOR UPDATE;
    -- Counted in a statement begun after the lock: it sees every record of the cell whose writer committed.
    UPDATE exa_report_cells AS x SET runs = q.runs, runs_measured = q.runs_measured, carbon = q.carbon, cost = q.cost,
            not_counted = q.not_counted, gpu_hours = q.gpu_hours, cpu_hours = q.cpu_hours, kwh = q.kwh, co2e_g = q.co2e_g,
            co2e_low = q.co2e_low, co2e_high = q.co2e_high, unknown_uncertainty = q.unknown_uncertainty, cost_usd = q.cost_usd, notes = q.notes
        FROM ({recount}) AS q(g, runs, runs_measured, carbon, cost, not_counted, gpu_hours, cpu_hours, kwh, co2e_g, co2e_low, co2e_high,
                              unknown_uncertainty, cost_usd, notes)
        WHERE x.model = _model AND x.day = _day AND x.job_user = _user AND x.job_account = _account AND x.job_partition = _partition;
    IF NOT FOUND THEN
        -- No run left in the cell (its runs were split out).
        DELETE FROM exa_report_cells
            WHERE model = _model AND day = _day AND job_user = _user AND job_account = _account AND job_partition = _partition;
    END IF;
END $fn$;
CREATE FUNCTION exa_cells_on_insert() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    c record;
BEGIN
    IF NEW.run_id IS NOT NULL THEN
        INSERT INTO exa_runs VALUES (NEW.run_id) ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
            -- The run has records before this one (their writers committed: the key waited for them). Its key's row,
            -- locked, makes the run's other writers wait their turn: a row lock, not an advisory one, so a batch of a
            -- million runs in one transaction takes no entry per run in the server's lock table.
            PERFORM 1 FROM exa_runs WHERE run_id = NEW.run_id FOR UPDATE;
            IF EXISTS (SELECT 1 FROM exa_split_runs WHERE run_id = NEW.run_id) THEN
                RETURN NULL;
            ELSIF EXISTS (SELECT 1 FROM exa_records WHERE run_id = NEW.run_id AND ({rec_cell}) IS DISTINCT FROM ({new_cell})) THEN
                -- The run now falls in two cells: out of every cell, whose records reports read instead.
                INSERT INTO exa_split_runs VALUES (NEW.run_id);
                FOR c IN SELECT DISTINCT {named} FROM exa_records WHERE run_id = NEW.run_id LOOP
                    PERFORM exa_cell_recount(c.model, c.day, c.u, c.a, c.p);
                END LOOP;
            ELSE
                -- What the run counts may change, so its cell is counted again.
                PERFORM exa_cell_recount({new_cell});
            END IF;
            RETURN NULL;
        END IF;
    END IF;
    -- A run's first record (or a record without a run), written by SQL: it counts, once, as it is.
    {add_new};
    RETURN NULL;
END $fn$;
CREATE FUNCTION exa_cells_rebuild() RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
    DELETE FROM exa_report_cells;
    DELETE FROM exa_split_runs;
    INSERT INTO exa_runs SELECT DISTINCT run_id FROM exa_records WHERE run_id IS NOT NULL ON CONFLICT DO NOTHING;
    INSERT INTO exa_split_runs SELECT run_id FROM exa_records WHERE run_id IS NOT NULL GROUP BY run_id HAVING count(DISTINCT ({rec_cell})) > 1;
    INSERT INTO exa_report_cells
        SELECT g::json->>0, (g::json->>1)::bigint, g::json->>2, g::json->>3, g::json->>4, runs, runs_measured, carbon, cost, not_counted,
               gpu_hours, cpu_hours, kwh, co2e_g, co2e_low, co2e_high, unknown_uncertainty, cost_usd, notes
        FROM ({every_cell}) AS q(g, runs, runs_measured, carbon, cost, not_counted, gpu_hours, cpu_hours, kwh, co2e_g, co2e_low, co2e_high,
                                 unknown_uncertainty, cost_usd, notes);
END $fn$;
CREATE TRIGGER exa_records_cells AFTER INSERT ON exa_records FOR EACH ROW WHEN (NOT NEW.cells_kept) EXECUTE FUNCTION exa_cells_on_insert();
SELECT exa_cells_rebuild();
";

/// A batch's cells, counted once at its end instead of at each record (`exa_cells_refresh`): a batch (an
/// import, a copy) writes its records uncounted (`INSERT_MANY`, marked `cells_kept`), then hands its
/// runs and cells to this function in the same transaction. It locks the runs' key rows, splits out runs
/// whose records now fall in two cells (adding their other cells), locks every cell's row, in order, and
/// counts the cells again with the report's SQL in a statement begun after the locks, as `exa_cell_recount`
/// does for one cell.
fn refresh_schema() -> String {
    let rec_cell = cell_of("");
    // The records of the cells in `todo` (each a JSON array of its five values), found by the cells' index.
    let source = "unnest(todo) AS k CROSS JOIN LATERAL (
            SELECT x.* FROM exa_records x WHERE x.model = k::json->>0 AND COALESCE(x.job_user, '(none)') = k::json->>2
                AND COALESCE(x.job_account, '(none)') = k::json->>3 AND COALESCE(x.job_partition, '(none)') = k::json->>4
                AND x.recorded_at >= (k::json->>1)::bigint * 86400 AND x.recorded_at < ((k::json->>1)::bigint + 1) * 86400) AS r";
    let recount = sql_from(
        &format!("json_build_array({rec_cell})::text"),
        "exa_refresh_records AS exa_records",
        "WHERE run_id IS NULL OR run_id NOT IN (SELECT run_id FROM exa_split_runs)",
    );
    let at = "x.model = k::json->>0 AND x.day = (k::json->>1)::bigint AND x.job_user = k::json->>2 \
              AND x.job_account = k::json->>3 AND x.job_partition = k::json->>4";
    REFRESH_SCHEMA
        .replace("{source}", source)
        .replace("{rec_cell}", &rec_cell)
        .replace("{recount}", &recount)
        .replace("{at_q}", &at.replace("k::json", "q.g::json"))
        .replace("{at}", at)
}

/// The batch's count of its cells; `refresh_schema` fills in the SQL between braces.
const REFRESH_SCHEMA: &str = r"
CREATE FUNCTION exa_cells_refresh(_runs text[], _m text[], _d bigint[], _u text[], _a text[], _p text[]) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
    todo text[];
    counted text[];
BEGIN
    -- The runs' key rows, made and locked in order: the runs' other writers wait for this commit.
    INSERT INTO exa_runs SELECT DISTINCT r FROM unnest(_runs) AS r ORDER BY 1 ON CONFLICT DO NOTHING;
    PERFORM 1 FROM exa_runs WHERE run_id = ANY (_runs) ORDER BY run_id FOR UPDATE;
    -- The batch's cells, and every cell of a run whose records now fall in two (out of every cell from now on).
    WITH split AS (
        INSERT INTO exa_split_runs
        SELECT run_id FROM exa_records WHERE run_id = ANY (_runs) AND run_id NOT IN (SELECT run_id FROM exa_split_runs)
        GROUP BY run_id HAVING count(DISTINCT ({rec_cell})) > 1
        RETURNING run_id)
    SELECT array_agg(DISTINCT c.k ORDER BY c.k) INTO todo FROM (
        SELECT json_build_array(m, d, u, a, p)::text FROM unnest(_m, _d, _u, _a, _p) AS t(m, d, u, a, p)
        UNION ALL SELECT json_build_array({rec_cell})::text FROM exa_records WHERE run_id IN (SELECT run_id FROM split)) AS c(k);
    -- Each cell's row, there to be locked, and locked in order.
    INSERT INTO exa_report_cells
        SELECT k::json->>0, (k::json->>1)::bigint, k::json->>2, k::json->>3, k::json->>4, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, false, NULL, NULL
        FROM unnest(todo) AS k ON CONFLICT DO NOTHING;
    PERFORM 1 FROM exa_report_cells x JOIN unnest(todo) AS k ON {at}
        ORDER BY x.model, x.day, x.job_user, x.job_account, x.job_partition FOR UPDATE OF x;
    -- The cells' records, read in a statement begun after the locks: every record whose writer committed. Kept
    -- aside with statistics of their own, so that the count is planned for as many records as there are (the
    -- table's statistics do not know a batch's records yet).
    DROP TABLE IF EXISTS pg_temp.exa_refresh_records;
    CREATE TEMP TABLE exa_refresh_records ON COMMIT DROP AS SELECT r.* FROM {source};
    ANALYZE exa_refresh_records;
    WITH q (g, runs, runs_measured, carbon, cost, not_counted, gpu_hours, cpu_hours, kwh, co2e_g, co2e_low, co2e_high,
            unknown_uncertainty, cost_usd, notes) AS ({recount}),
    u AS (
        UPDATE exa_report_cells AS x SET runs = q.runs, runs_measured = q.runs_measured, carbon = q.carbon, cost = q.cost,
            not_counted = q.not_counted, gpu_hours = q.gpu_hours, cpu_hours = q.cpu_hours, kwh = q.kwh, co2e_g = q.co2e_g,
            co2e_low = q.co2e_low, co2e_high = q.co2e_high, unknown_uncertainty = q.unknown_uncertainty, cost_usd = q.cost_usd, notes = q.notes
        FROM q WHERE {at_q}
        RETURNING q.g)
    SELECT array_agg(g) INTO counted FROM u;
    -- A cell with no run left (its runs split out) is gone.
    DELETE FROM exa_report_cells x USING unnest(todo) AS k WHERE {at} AND k <> ALL (COALESCE(counted, '{}'));
END $fn$;
";

/// The schema version this exa writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// How to secure the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tls {
    Disable,
    /// Encrypted; the certificate is not checked (libpq's `require`).
    Require,
    /// Encrypted and checked: the Web PKI roots and the host name.
    VerifyFull,
    /// TLS, checked, when the server offers it; plain when it does not (libpq's default).
    Prefer,
}

/// Where the database is and how to reach it; never holds the password in what it shows.
#[derive(Clone)]
pub struct Conn {
    config: tokio_postgres::Config,
    tls: Tls,
    shown: String,
    /// How long connecting (TCP, TLS, authentication) may take.
    connect_within: Duration,
    /// How long any later exchange (a statement, a commit) may wait for the server.
    deadline: Duration,
}

/// The default deadline of a connection: TCP, TLS and authentication.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How a ledger's location is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// A `postgres://` or `postgresql://` URL (the scheme in any case).
    Url,
    /// A libpq keyword string: `host=db.example dbname=exa user=exa`.
    Keywords,
    /// A SQLite file.
    Path,
}

/// How `s` names a ledger; an error for a URL of another scheme, which is never taken for a file name.
pub fn form(s: &str) -> Result<Form, Error> {
    if let Some((scheme, _)) = s.split_once("://") {
        if !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) {
            return if scheme.eq_ignore_ascii_case("postgres") || scheme.eq_ignore_ascii_case("postgresql") {
                Ok(Form::Url)
            } else {
                Err(Error::Usage(format!(
                    "ledger {}: a {scheme}:// URL is not a ledger; give a SQLite file or a postgres:// URL",
                    crate::text::clean(&crate::text::redact_url(s))
                )))
            };
        }
    }
    // `key=value` first, as libpq's keyword strings start: never a file name (write ./a=b for a file).
    let first = s.split_whitespace().next().unwrap_or("");
    match first.split_once('=') {
        Some((k, _)) if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphabetic() || c == '_') => Ok(Form::Keywords),
        _ => Ok(Form::Path),
    }
}

/// The first host a config names (a socket directory for a Unix socket), as libpq matches pgpass lines.
fn host_of(c: &tokio_postgres::Config) -> String {
    match c.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        Some(tokio_postgres::config::Host::Unix(p)) => p.display().to_string(),
        None => "localhost".into(),
    }
}

/// A libpq keyword string as exa shows it: what it names, never a password.
fn shown_keywords(c: &tokio_postgres::Config) -> String {
    let port = c.get_ports().first().copied().unwrap_or(5432);
    let mut out = format!("host={} port={port}", host_of(c));
    if let Some(db) = c.get_dbname() {
        out.push_str(&format!(" dbname={db}"));
    }
    if let Some(u) = c.get_user() {
        out.push_str(&format!(" user={u}"));
    }
    crate::text::clean(&out)
}

/// One line of `~/.pgpass`: `host:port:database:user:password`, `*` matching anything, `\` escaping.
fn pgpass_match(line: &str, want: [&str; 4]) -> Option<String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => cur.extend(chars.next()),
            ':' if fields.len() < 4 => fields.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    fields.push(cur);
    if fields.len() != 5 || line.trim_start().starts_with('#') {
        return None;
    }
    want.iter().zip(&fields).all(|(w, f)| f == "*" || f == w).then(|| fields[4].clone())
}

impl Conn {
    /// Parses a `postgres://` URL or (`keywords`) a libpq keyword string, as `form` told them apart; the
    /// password from it, else `password` (PGPASSWORD), else the pgpass file. Each exchange after connecting
    /// waits at most `deadline`.
    pub fn parse(raw: &str, keywords: bool, password: Option<&str>, pgpass: Option<&Path>, deadline: Duration) -> Result<Conn, Error> {
        // The scheme in lower case, as the URL parser wants it.
        let url = match raw.split_once("://") {
            Some((scheme, rest)) if !keywords => format!("{}://{rest}", scheme.to_ascii_lowercase()),
            _ => raw.to_string(),
        };
        let mut shown = if keywords { "the libpq keyword string".to_string() } else { crate::text::clean(&crate::text::redact_url(&url)) };
        let bad = |shown: &str, why: String| Error::Usage(format!("database {shown}: {why}"));
        let mut tls = Tls::Prefer;
        let mut rebuilt = if keywords { without_keyword(raw, "sslmode") } else { url.clone() };
        if !keywords {
            // sslmode is exa's to read: tokio-postgres knows no verify-full.
            let (base, query) = url.split_once('?').unwrap_or((&url, ""));
            let mut kept = Vec::new();
            for pair in query.split('&').filter(|p| !p.is_empty()) {
                match pair.split_once('=') {
                    Some(("sslmode", v)) => tls = sslmode(v).map_err(|why| bad(&shown, why))?,
                    _ => kept.push(pair),
                }
            }
            rebuilt = if kept.is_empty() { base.to_string() } else { format!("{base}?{}", kept.join("&")) };
        }
        // Errors of the parser name the option at fault, never its value.
        let mut config = tokio_postgres::Config::from_str(&rebuilt).map_err(|e| bad(&shown, e.to_string()))?;
        if keywords {
            shown = shown_keywords(&config);
            // A keyword string's own sslmode, as exa reads it (verify-full included).
            if let Some(v) = keyword(raw, "sslmode") {
                tls = sslmode(&v).map_err(|why| bad(&shown, why))?;
            }
        }
        if config.get_dbname().is_none() {
            return Err(bad(&shown, "it names no database (postgres://user@host/DATABASE, or dbname=)".into()));
        }
        let user = config.get_user().map(str::to_string).unwrap_or_else(|| "postgres".into());
        config.user(&user);
        if config.get_password().is_none() {
            if let Some(p) = password {
                config.password(p);
            } else if let Some(file) = pgpass.filter(|p| p.is_file()) {
                let host = host_of(&config);
                let port = config.get_ports().first().copied().unwrap_or(5432).to_string();
                let db = config.get_dbname().unwrap_or_default().to_string();
                let text = std::fs::read_to_string(file).unwrap_or_default();
                if let Some(p) = text.lines().find_map(|l| pgpass_match(l, [&host, &port, &db, &user])) {
                    config.password(p);
                }
            }
        }
        config.ssl_mode(match tls {
            Tls::Disable => tokio_postgres::config::SslMode::Disable,
            Tls::Prefer => tokio_postgres::config::SslMode::Prefer,
            Tls::Require | Tls::VerifyFull => tokio_postgres::config::SslMode::Require,
        });
        // libpq's connect_timeout, when given, bounds the whole connection here (TCP, TLS, authentication).
        let connect_within = config.get_connect_timeout().copied().unwrap_or(CONNECT_TIMEOUT);
        config.connect_timeout(connect_within);
        config.application_name("exa");
        Ok(Conn { config, tls, shown, connect_within, deadline })
    }

    /// Where it is, without its password.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    fn connect_once(&self) -> Result<Client, WireError> {
        let (within, deadline) = (self.connect_within, self.deadline);
        match self.tls {
            Tls::Disable => Client::connect(&self.config, NoTls, within, deadline),
            Tls::Require => Client::connect(&self.config, tls::unverified(), within, deadline),
            Tls::VerifyFull | Tls::Prefer => Client::connect(&self.config, tls::verified(), within, deadline),
        }
    }

    /// Connects; a writer (`patient`) tries again for a moment while the server refuses connections or says it
    /// is starting or stopping (a restart, a failover), so that a record made during one is not lost to it.
    fn connect(&self, patient: bool) -> Result<Client, Error> {
        let started = Instant::now();
        let mut wait = Duration::from_millis(50);
        let result = loop {
            match self.connect_once() {
                Err(e) if patient && restarting(&e) && started.elapsed() < RESTART_WAIT => {
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(Duration::from_millis(500));
                }
                other => break other,
            }
        };
        result.map_err(|e| match e {
            WireError::Timeout(d) => Error::Failed(format!(
                "{}: the server did not let exa connect within {:.0} s (connect_timeout in the URL sets how long to wait)",
                self.shown,
                d.as_secs_f64()
            )),
            other => self.error(&other),
        })
    }

    /// A connection or server error as one line, naming the database without its password.
    fn error(&self, e: &WireError) -> Error {
        let why = match e {
            WireError::Timeout(d) => format!(
                "the server did not answer within {:.0} s (EXAMLOPS_DB_TIMEOUT or db.timeout_s in the config sets how long to wait)",
                d.as_secs_f64()
            ),
            WireError::Local(why) => why.clone(),
            WireError::Db(e) => match e.as_db_error() {
                Some(db) if db.code().code() == "28P01" || db.code().code() == "28000" => {
                    format!("authentication failed for user '{}'", self.config.get_user().unwrap_or("?"))
                }
                Some(db) if db.code().code() == "3D000" => "the database does not exist".into(),
                Some(db) if db.code().code() == "42501" || db.code().code() == "25006" => {
                    format!("the role may not write here ({})", db.message())
                }
                Some(db) => db.message().to_string(),
                None => {
                    let mut s = e.to_string();
                    let mut src = std::error::Error::source(e);
                    while let Some(inner) = src {
                        s = format!("{s}: {inner}");
                        src = inner.source();
                    }
                    s
                }
            },
        };
        Error::Failed(format!("{}: {}", self.shown, crate::text::clean(&why)))
    }
}

/// An `sslmode` as exa reads it.
fn sslmode(v: &str) -> Result<Tls, String> {
    match v {
        "disable" => Ok(Tls::Disable),
        "require" => Ok(Tls::Require),
        "verify-full" | "verify-ca" => Ok(Tls::VerifyFull),
        "prefer" | "allow" => Ok(Tls::Prefer),
        other => Err(format!("sslmode '{}' is not disable, prefer, require or verify-full", crate::text::clean(other))),
    }
}

/// A libpq keyword string without one (unquoted) keyword, the rest as it was written.
fn without_keyword(s: &str, key: &str) -> String {
    let mut out = s.to_string();
    let needle = format!("{key}=");
    let mut from = 0;
    while let Some(i) = out[from..].find(&needle).map(|i| i + from) {
        if i == 0 || out[..i].ends_with(char::is_whitespace) {
            let end = out[i..].find(char::is_whitespace).map_or(out.len(), |e| e + i);
            out.replace_range(i..end, "");
        } else {
            from = i + needle.len();
        }
    }
    out
}

/// A keyword's value in a libpq keyword string (unquoted values only; exa's own keywords need no quotes).
fn keyword(s: &str, key: &str) -> Option<String> {
    s.split_whitespace().find_map(|kv| kv.split_once('=').filter(|(k, _)| *k == key).map(|(_, v)| v.trim_matches('\'').to_string()))
}

mod tls {
    //! rustls for PostgreSQL: verified against the Web PKI roots, or (sslmode=require) not verified.

    use std::sync::Arc;

    use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
    use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
    use rustls::{DigitallySignedStruct, SignatureScheme};
    use tokio_postgres_rustls::MakeRustlsConnect;

    fn provider() -> Arc<rustls::crypto::CryptoProvider> {
        Arc::new(rustls::crypto::ring::default_provider())
    }

    pub fn verified() -> MakeRustlsConnect {
        let roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
        let config = rustls::ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .expect("ring supports the default protocol versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        MakeRustlsConnect::new(config)
    }

    #[derive(Debug)]
    struct Unverified(Arc<rustls::crypto::CryptoProvider>);

    impl ServerCertVerifier for Unverified {
        fn verify_server_cert(
            &self,
            _: &CertificateDer<'_>,
            _: &[CertificateDer<'_>],
            _: &ServerName<'_>,
            _: &[u8],
            _: UnixTime,
        ) -> Result<ServerCertVerified, rustls::Error> {
            Ok(ServerCertVerified::assertion())
        }
        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
        }
        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
        }
        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.0.signature_verification_algorithms.supported_schemes()
        }
    }

    pub fn unverified() -> MakeRustlsConnect {
        let config = rustls::ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .expect("ring supports the default protocol versions")
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unverified(provider())))
            .with_no_client_auth();
        MakeRustlsConnect::new(config)
    }
}

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
const RESTART_WAIT: Duration = Duration::from_secs(5);

/// Whether connecting failed as it does while a server restarts: refused, reset or closed before it was
/// made, or the server saying it is starting up or shutting down (57P03). Never a wrong password, a
/// missing database or a deadline.
fn restarting(e: &WireError) -> bool {
    if e.is_closed() {
        return true;
    }
    match e {
        WireError::Db(db) => match db.as_db_error() {
            Some(d) => d.code().code() == "57P03",
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
        let key = record_key(by);
        let (clause, args) = where_clause(f, "");
        let params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = args.iter().map(|a| a.as_ref() as _).collect();
        let conn = self.conn.clone();
        // Room to group a million runs in memory rather than on disk; this session only.
        let _ = self.client.batch_execute("SET work_mem = '256MB'");
        let rows = self.client.query(&sql(key, &clause), &params).map_err(|e| conn.error(&e))?;
        let mut groups: Vec<Group> = rows.iter().map(group).collect();
        let total = self.client.query(&sql("'total'", &clause), &params).map_err(|e| conn.error(&e))?;
        let totals = total.first().map(group);
        // The notes are the totals' (each run over all its records), as the SQLite ledger gives them.
        let notes: Vec<String> =
            total.first().and_then(|r| r.get::<_, Option<String>>(14)).map(|n| n.lines().map(str::to_string).collect()).unwrap_or_default();
        groups.sort_by(|a, b| a.key.cmp(&b.key));
        let totals = totals.unwrap_or_else(report::nothing);
        Ok((groups, totals, notes))
    }
}

impl Pg {
    /// The report from the summary cells and the records of split runs, in one snapshot; None where
    /// the cells cannot answer it (by provider or run, bounds within a day, a schema without cells).
    fn report_from_cells(&mut self, by: By, f: &Filter) -> Result<Option<Answer>, Error> {
        let Some(conditions) = f.cell_conditions() else { return Ok(None) };
        let cell_key = match by {
            By::Model => "model",
            By::Day => "to_char(to_timestamp(day * 86400) AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
            By::User => "job_user",
            By::Account => "job_account",
            By::Partition => "job_partition",
            By::Provider | By::Run => return Ok(None),
        };
        if self.version < CELLS_VERSION {
            return Ok(None);
        }
        let (filter, args) = pg_clause(conditions, "");
        let cells = |key: &str| {
            format!(
                "SELECT ({key}) COLLATE \"C\", sum(runs)::bigint, sum(runs_measured)::bigint, sum(carbon)::bigint, sum(cost)::bigint,
                        sum(not_counted)::bigint, sum(gpu_hours), sum(cpu_hours), sum(kwh), sum(co2e_g), sum(co2e_low), sum(co2e_high),
                        bool_or(unknown_uncertainty), sum(cost_usd), string_agg(notes, E'\\n' ORDER BY notes)
                 FROM exa_report_cells {filter} GROUP BY 1"
            )
        };
        let (clause, split_args) = where_clause(f, "");
        let split = "run_id IN (SELECT run_id FROM exa_split_runs)";
        let clause = if clause.is_empty() { format!("WHERE {split}") } else { format!("{clause} AND {split}") };
        let record_key = record_key(by);
        let params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = args.iter().map(|a| a.as_ref() as _).collect();
        let split_params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = split_args.iter().map(|a| a.as_ref() as _).collect();
        let conn = self.conn.clone();
        let db = |e: WireError| conn.error(&e);
        let mut tx = self.client.snapshot().map_err(db)?;
        let mut groups: BTreeMap<String, Sums> = BTreeMap::new();
        let mut total = Sums::default();
        for row in
            tx.query(&cells(cell_key), &params).map_err(db)?.iter().chain(&tx.query(&sql(record_key, &clause), &split_params).map_err(db)?)
        {
            groups.entry(row.get(0)).or_default().add(row);
        }
        for row in
            tx.query(&cells("'total'"), &params).map_err(db)?.iter().chain(&tx.query(&sql("'total'", &clause), &split_params).map_err(db)?)
        {
            total.add(row);
        }
        tx.commit().map_err(db)?;
        let mut notes: Vec<String> = total.notes.iter().flat_map(|n| n.lines()).map(str::to_string).collect();
        notes.sort();
        let groups: Vec<Group> = groups.into_iter().map(|(k, s)| s.group(k)).collect();
        let total = if groups.is_empty() { report::nothing() } else { total.group("total".into()) };
        Ok(Some((groups, total, notes)))
    }
}

/// A record's group, as SQL over its columns.
fn record_key(by: By) -> &'static str {
    match by {
        By::Day => "to_char(to_timestamp(recorded_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
        other => other.sql(),
    }
}

/// A report's groups, its totals and its notes.
type Answer = (Vec<Group>, Group, Vec<String>);

/// A group's figures from the cells and from the split runs' records, added up.
#[derive(Default)]
struct Sums {
    counts: [u64; 5],
    hours: [f64; 2],
    kwh: Option<f64>,
    co2e: Option<f64>,
    low: f64,
    high: f64,
    unknown: bool,
    cost: Option<f64>,
    notes: Vec<String>,
}

impl Sums {
    /// Adds one row of `sql` or of the cells' query (the same columns).
    fn add(&mut self, r: &tokio_postgres::Row) {
        let plus = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        for (i, c) in self.counts.iter_mut().enumerate() {
            *c += u64::try_from(r.get::<_, i64>(i + 1)).unwrap_or(0);
        }
        self.hours[0] += r.get::<_, Option<f64>>(6).unwrap_or(0.0);
        self.hours[1] += r.get::<_, Option<f64>>(7).unwrap_or(0.0);
        self.kwh = plus(self.kwh, r.get(8));
        self.co2e = plus(self.co2e, r.get(9));
        self.low += r.get::<_, Option<f64>>(10).unwrap_or(0.0);
        self.high += r.get::<_, Option<f64>>(11).unwrap_or(0.0);
        self.unknown |= r.get::<_, Option<bool>>(12).unwrap_or(false);
        self.cost = plus(self.cost, r.get(13));
        self.notes.extend(r.get::<_, Option<String>>(14));
    }

    fn group(self, key: String) -> Group {
        let range = if self.unknown { None } else { self.co2e.map(|_| [self.low, self.high]) };
        report::group(key, self.counts, self.hours, [self.kwh, self.co2e, self.cost], range)
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

/// One record into both tables at once (a data-modifying CTE); its id when it is new. A run's first record
/// (its key new in `exa_runs`), or one without a run, is added to its cell in the same statement and marked
/// `cells_kept`; any other goes to the cells' trigger. Only at this exa's schema version: its arbiter is the
/// key constraint named after it (`key_named`), so at any other the statement fails before it writes. A
/// record whose key is stored already comes back as no row (`write_line_id` reads its id): a new backend's
/// first statement then plans no lookup by key, which only a retry needs, and reads no version row. The
/// record's UTC day (`$25`, for its cell) is exa's, as `exa_day` would make it: the statement calls no SQL
/// function, whose body a new backend parses.
static INSERT: std::sync::LazyLock<String> = std::sync::LazyLock::new(insert_sql);

/// The columns exa writes to a record, in the order of `INSERT`'s and `INSERT_MANY`'s parameters (less the
/// estimate, `$21`, which goes to `exa_estimates`).
const COLUMNS: &str = "idem_key, model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest, gpu_hours, \
                       cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, duration_s, device_count, measured_kwh, part, job_user, \
                       job_account, job_partition";

/// The SQL of `INSERT`.
fn insert_sql() -> String {
    format!(
        "WITH run AS (INSERT INTO exa_runs (run_id) SELECT $3 WHERE $3 IS NOT NULL ON CONFLICT DO NOTHING RETURNING run_id),
    ins AS (
        INSERT INTO exa_records ({COLUMNS}, cells_kept)
        SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $22, $23, $24,
               $3 IS NULL OR EXISTS (SELECT 1 FROM run)
        ON CONFLICT ON CONSTRAINT {key} DO NOTHING RETURNING *),
    est AS (INSERT INTO exa_estimates (record_id, estimate) SELECT id, $21 FROM ins),
    cell AS ({add})
    SELECT id FROM ins",
        key = key_constraint(SCHEMA_VERSION),
        add = add_to_cell("n.", "$25", "ins AS n", "WHERE n.cells_kept")
    )
}

/// Many records in one statement, for a batch: each column an array, the records inserted in order; their
/// cells untouched and each marked `cells_kept` (no trigger), no run key made: the batch counts its cells
/// at its end (`exa_cells_refresh`). Per record its place in the arrays and its id, none when its key was
/// stored already. Only at this exa's schema version, as `INSERT`.
static INSERT_MANY: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "WITH l AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                               $10::float8[], $11::float8[], $12::float8[], $13::float8[], $14::float8[], $15::float8[], $16::bool[],
                               $17::float8[], $18::int4[], $19::float8[], $20::bool[], $21::jsonb[], $22::text[], $23::text[], $24::text[])
          WITH ORDINALITY AS l (idem_key, model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest, gpu_hours,
                                cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, duration_s, device_count, measured_kwh, part,
                                estimate, job_user, job_account, job_partition, n)),
    ins AS (
        INSERT INTO exa_records ({COLUMNS}, cells_kept)
        SELECT {COLUMNS}, true FROM l ORDER BY n
        ON CONFLICT ON CONSTRAINT {key} DO NOTHING RETURNING id, idem_key),
    est AS (INSERT INTO exa_estimates (record_id, estimate)
            SELECT DISTINCT ON (ins.id) ins.id, l.estimate FROM ins JOIN l USING (idem_key) ORDER BY ins.id, l.n)
    SELECT l.n, ins.id FROM l LEFT JOIN ins USING (idem_key)",
        key = key_constraint(SCHEMA_VERSION)
    )
});

/// Records in one statement each time.
const MANY: usize = 1_000;

/// A written line: its id (none when its key was stored already) and whether it is new.
type Written = (Option<i64>, bool);

/// Writes lines with `INSERT_MANY`, `MANY` at a time, in the caller's transaction, noting the new ones in
/// `touched`: per line its id (none when its key was stored before the batch) and whether it is new (a key
/// twice in the batch: its first line).
fn write_many<C: Exec>(c: &mut C, lines: &[Line], touched: &mut Touched) -> Result<Vec<Written>, WireError> {
    use tokio_postgres::types::Type;
    let mut out = Vec::with_capacity(lines.len());
    let mut seen: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
    for part in lines.chunks(MANY) {
        let text = |f: fn(&Line) -> Option<&str>| part.iter().map(f).collect::<Vec<_>>();
        let float = |f: fn(&Line) -> Option<f64>| part.iter().map(f).collect::<Vec<_>>();
        let flag = |f: fn(&Line) -> bool| part.iter().map(f).collect::<Vec<_>>();
        let (key, model, run) = (text(|l| Some(&l.key)), text(|l| Some(&l.model)), text(|l| l.run_id.as_deref()));
        let at: Vec<i64> = part.iter().map(|l| l.recorded_at).collect();
        let (host, domain, provider) = (text(|l| Some(&l.host)), text(|l| Some(&l.domain)), text(|l| Some(&l.provider)));
        let (kind, digest) = (text(|l| Some(&l.provider_kind)), text(|l| Some(&l.provider_digest)));
        let (gpu, cpu) = (float(|l| Some(l.gpu_hours)), float(|l| Some(l.cpu_hours)));
        let (kwh, co2e, cost, unc) = (float(|l| l.kwh), float(|l| l.co2e_g), float(|l| l.cost_usd), float(|l| l.uncertainty));
        let (measured, part_of) = (flag(|l| l.measured), flag(|l| l.part));
        let (duration, measured_kwh) = (float(|l| l.duration_s), float(|l| l.measured_kwh));
        let count: Vec<Option<i32>> = part.iter().map(|l| l.device_count.map(|d| i32::try_from(d).unwrap_or(i32::MAX))).collect();
        let estimate: Vec<JsonText> = part.iter().map(|l| JsonText(&l.estimate)).collect();
        let (user, account, partition) =
            (text(|l| l.labels.user.as_deref()), text(|l| l.labels.account.as_deref()), text(|l| l.labels.partition.as_deref()));
        let rows = c.query_typed(
            &INSERT_MANY,
            &[
                (&key, Type::TEXT_ARRAY),
                (&model, Type::TEXT_ARRAY),
                (&run, Type::TEXT_ARRAY),
                (&at, Type::INT8_ARRAY),
                (&host, Type::TEXT_ARRAY),
                (&domain, Type::TEXT_ARRAY),
                (&provider, Type::TEXT_ARRAY),
                (&kind, Type::TEXT_ARRAY),
                (&digest, Type::TEXT_ARRAY),
                (&gpu, Type::FLOAT8_ARRAY),
                (&cpu, Type::FLOAT8_ARRAY),
                (&kwh, Type::FLOAT8_ARRAY),
                (&co2e, Type::FLOAT8_ARRAY),
                (&cost, Type::FLOAT8_ARRAY),
                (&unc, Type::FLOAT8_ARRAY),
                (&measured, Type::BOOL_ARRAY),
                (&duration, Type::FLOAT8_ARRAY),
                (&count, Type::INT4_ARRAY),
                (&measured_kwh, Type::FLOAT8_ARRAY),
                (&part_of, Type::BOOL_ARRAY),
                (&estimate, Type::JSONB_ARRAY),
                (&user, Type::TEXT_ARRAY),
                (&account, Type::TEXT_ARRAY),
                (&partition, Type::TEXT_ARRAY),
            ],
        )?;
        let mut ids = vec![None; part.len()];
        for r in &rows {
            let n: i64 = r.get(0);
            if let Some(slot) = usize::try_from(n - 1).ok().and_then(|i| ids.get_mut(i)) {
                *slot = r.get::<_, Option<i64>>(1);
            }
        }
        for (l, id) in part.iter().zip(ids) {
            out.push(match (id, seen.get(l.key.as_str())) {
                (_, Some(&first)) => (Some(first), false),
                (Some(id), None) => {
                    seen.insert(&l.key, id);
                    touched.add(l);
                    (Some(id), true)
                }
                (None, None) => (None, false),
            });
        }
    }
    Ok(out)
}

/// One record into both tables at once; its id, none when its key was stored already (`write_line_id`
/// reads it). The parameters' types are given, so the statement is parsed, bound and run in one round trip
/// (no separate prepare).
fn write_line<C: Exec>(c: &mut C, l: &Line) -> Result<Option<i64>, WireError> {
    use tokio_postgres::types::Type;
    let count = l.device_count.map(|d| i32::try_from(d).unwrap_or(i32::MAX));
    let row = c.query_typed_opt(
        &INSERT,
        &[
            (&l.key, Type::TEXT),
            (&l.model, Type::TEXT),
            (&l.run_id, Type::TEXT),
            (&l.recorded_at, Type::INT8),
            (&l.host, Type::TEXT),
            (&l.domain, Type::TEXT),
            (&l.provider, Type::TEXT),
            (&l.provider_kind, Type::TEXT),
            (&l.provider_digest, Type::TEXT),
            (&l.gpu_hours, Type::FLOAT8),
            (&l.cpu_hours, Type::FLOAT8),
            (&l.kwh, Type::FLOAT8),
            (&l.co2e_g, Type::FLOAT8),
            (&l.cost_usd, Type::FLOAT8),
            (&l.uncertainty, Type::FLOAT8),
            (&l.measured, Type::BOOL),
            (&l.duration_s, Type::FLOAT8),
            (&count, Type::INT4),
            (&l.measured_kwh, Type::FLOAT8),
            (&l.part, Type::BOOL),
            (&JsonText(&l.estimate), Type::JSONB),
            (&l.labels.user, Type::TEXT),
            (&l.labels.account, Type::TEXT),
            (&l.labels.partition, Type::TEXT),
            (&l.recorded_at.div_euclid(super::cells::DAY), Type::INT8),
        ],
    )?;
    Ok(row.map(|r| r.get(0)))
}

/// `write_line`, with the id of a record whose key was stored already (a retry of a record whose first
/// write committed) read.
fn write_line_id<C: Exec>(c: &mut C, l: &Line) -> Result<(i64, bool), WireError> {
    Ok(match write_line(c, l)? {
        Some(id) => (id, true),
        None => (c.query_one("SELECT id FROM exa_records WHERE idem_key = $1", &[&l.key])?.get(0), false),
    })
}

/// The runs and cells of a batch's new records, counted once at the batch's end (`exa_cells_refresh`).
#[derive(Default)]
struct Touched {
    runs: std::collections::BTreeSet<String>,
    cells: std::collections::BTreeSet<Cell>,
}

impl Touched {
    fn add(&mut self, l: &Line) {
        if let Some(run) = &l.run_id {
            self.runs.insert(run.clone());
        }
        self.cells.insert(Cell::of(l));
    }

    /// Counts the cells again, in the batch's transaction.
    fn count<C: Exec>(self, c: &mut C) -> Result<(), WireError> {
        if self.cells.is_empty() {
            return Ok(());
        }
        let runs: Vec<String> = self.runs.into_iter().collect();
        let (mut m, mut d, mut u, mut a, mut p) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for cell in self.cells {
            m.push(cell.model);
            d.push(cell.day);
            u.push(cell.user);
            a.push(cell.account);
            p.push(cell.partition);
        }
        c.execute("SELECT exa_cells_refresh($1, $2, $3, $4, $5, $6)", &[&runs, &m, &d, &u, &a, &p])?;
        Ok(())
    }
}

/// The filter as PostgreSQL: the WHERE clause (columns prefixed) and its values.
fn where_clause(f: &Filter, prefix: &str) -> (String, Vec<Box<dyn tokio_postgres::types::ToSql + Sync>>) {
    pg_clause(f.conditions(), prefix)
}

/// Conditions as PostgreSQL: the WHERE clause (columns prefixed) and their values.
fn pg_clause(conditions: Vec<(&'static str, report::Bound)>, prefix: &str) -> (String, Vec<Box<dyn tokio_postgres::types::ToSql + Sync>>) {
    let clause = report::where_sql(&conditions, prefix, |i| format!("${i}"));
    let args = conditions
        .into_iter()
        .map(|(_, b)| -> Box<dyn tokio_postgres::types::ToSql + Sync> {
            match b {
                report::Bound::Text(t) => Box::new(t),
                report::Bound::Int(i) => Box::new(i),
            }
        })
        .collect();
    (clause, args)
}

/// What counts, per group, run and domain (`d`), as `report::choose` decides it:
/// the rule's second statement, held to the first by
/// `postgres::both_stores_count_generated_runs_alike` (tests/cli/postgres.rs).
/// Nearly every run has at most one record of each domain, and then that
/// record counts: those are summed in one aggregation. Only the few groups of
/// several records go through the choice (windows over just those rows): the
/// pool is the measured records when there are any, else all; its parts are
/// summed when it has parts, else its latest record counts alone.
fn counted(key: &str, source: &str, clause: &str) -> String {
    let figures = "gpu_hours, cpu_hours, kwh, co2e_g, low, high, cost_usd";
    let sums = "sum(gpu_hours) AS gpu_hours, sum(cpu_hours) AS cpu_hours, sum(kwh) AS kwh, sum(co2e_g) AS co2e_g, sum(low) AS low, \
                sum(high) AS high, sum(cost_usd) AS cost_usd";
    let chosen_sums = "sum(gpu_hours) FILTER (WHERE c) AS gpu_hours, sum(cpu_hours) FILTER (WHERE c) AS cpu_hours, \
                       sum(kwh) FILTER (WHERE c) AS kwh, sum(co2e_g) FILTER (WHERE c) AS co2e_g, sum(low) FILTER (WHERE c) AS low, \
                       sum(high) FILTER (WHERE c) AS high, sum(cost_usd) FILTER (WHERE c) AS cost_usd";
    format!(
        "f AS (SELECT ({key}) COLLATE \"C\" AS g, COALESCE(run_id, '(record ' || id || ')') COLLATE \"C\" AS run, domain = 'carbon' AS carbon,
                      id, measured, part, gpu_hours, cpu_hours, kwh, co2e_g, cost_usd,
                      co2e_g * (1 - uncertainty) AS low, co2e_g * (1 + uncertainty) AS high, (co2e_g IS NOT NULL AND uncertainty IS NULL) AS unk
               FROM {source} {clause}),
         a AS (SELECT g, run, carbon, count(*) AS n, bool_or(measured) AS m_any, {sums}, bool_or(unk) AS unk FROM f GROUP BY g, run, carbon),
         x AS (SELECT f.*, f.measured OR NOT bool_or(f.measured) OVER w AS in_pool
               FROM f JOIN a ON a.g = f.g AND a.run = f.run AND a.carbon = f.carbon WHERE a.n > 1 WINDOW w AS (PARTITION BY f.g, f.run, f.carbon)),
         y AS (SELECT x.*, in_pool AND CASE WHEN bool_or(part AND in_pool) OVER w THEN part ELSE id = max(id) FILTER (WHERE in_pool) OVER w END AS c
               FROM x WINDOW w AS (PARTITION BY g, run, carbon)),
         z AS (SELECT g, run, carbon, count(*) AS n, bool_or(measured) AS m_any, bool_or(NOT measured) AS e_any, count(*) FILTER (WHERE c) AS used,
                 {chosen_sums}, bool_or(unk AND c) AS unk, string_agg('#' || id, ', ' ORDER BY id) FILTER (WHERE c) AS ids
               FROM y GROUP BY g, run, carbon),
         d AS (SELECT g, run, carbon, n, m_any, 1::bigint AS used, {figures}, unk FROM a WHERE n = 1
               UNION ALL SELECT g, run, carbon, n, m_any, used, {figures}, unk FROM z)"
    )
}

/// Per group: runs, runs measured, records counted per domain and not counted, hours, sums, the range.
fn sql(key: &str, clause: &str) -> String {
    sql_from(key, "exa_records", clause)
}

/// `sql` over the records `source` gives (a subquery named `exa_records`).
fn sql_from(key: &str, source: &str, clause: &str) -> String {
    format!(
        "WITH {counted},
         r AS (SELECT g, run, max(gpu_hours) AS gh, max(cpu_hours) AS ch, bool_or(m_any) AS m,
                 coalesce(sum(used) FILTER (WHERE carbon), 0) AS carbon_n, coalesce(sum(used) FILTER (WHERE NOT carbon), 0) AS cost_n,
                 sum(n - used) AS dropped, sum(kwh) AS kwh, sum(co2e_g) AS co2e, sum(low) AS low, sum(high) AS high,
                 bool_or(unk) AS unknown_u, sum(cost_usd) AS cost
               FROM d GROUP BY g, run)
         SELECT g, count(*), count(*) FILTER (WHERE m), sum(carbon_n)::bigint, sum(cost_n)::bigint, sum(dropped)::bigint,
                coalesce(sum(gh), 0), coalesce(sum(ch), 0), sum(kwh), sum(co2e), sum(low), sum(high), coalesce(bool_or(unknown_u), false), sum(cost),
                (SELECT string_agg(note, '\n' ORDER BY note) FROM (
                   SELECT 'run ' || run || ': ' || string_agg(n || CASE WHEN carbon THEN ' carbon' ELSE ' cost' END || ' records, counted ' || ids || ': ' ||
                          CASE WHEN m_any AND e_any THEN 'a measured record supersedes an estimate'
                               ELSE 'the same work recorded again (--part marks parts of one run)' END, '; ' ORDER BY NOT carbon) AS note
                   FROM z WHERE n > used AND z.g = r.g GROUP BY run) notes)
         FROM r GROUP BY g",
        counted = counted(key, source, clause)
    )
}

/// One row of `sql` as a group.
fn group(r: &tokio_postgres::Row) -> Group {
    let mut sums = Sums::default();
    sums.add(r);
    sums.group(r.get(0))
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
            report::finite(g)?;
        }
        let totals = if groups.is_empty() { report::nothing() } else { totals };
        Ok(Report { by, filter, db: self.conn.shown.clone(), groups, totals, range_method: report::RANGE_METHOD, notes })
    }

    fn runs(&mut self, filter: &Filter) -> Result<Vec<super::charges::RunCharge>, Error> {
        self.check()?;
        let (clause, args) = where_clause(filter, "r.");
        let params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = args.iter().map(|a| a.as_ref() as _).collect();
        let q = format!(
            "SELECT r.id, r.model, r.run_id, r.recorded_at, r.duration_s, r.domain = 'carbon', r.measured, r.part, r.provider,
                    r.provider_digest, r.gpu_hours, r.cpu_hours, r.kwh, r.co2e_g, r.uncertainty, r.cost_usd,
                    (e.estimate #>> '{{coefficients,gpu_rate,value}}')::float8, (e.estimate #>> '{{coefficients,cpu_rate,value}}')::float8
             FROM exa_records r JOIN exa_estimates e ON e.record_id = r.id {clause} ORDER BY r.id"
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
                "SELECT max(recorded_at) FILTER (WHERE recorded_at <= $2), max(recorded_at) FROM exa_records WHERE left(idem_key, length($1)) = $1",
                &[&prefix, &not_after],
            )
            .map(|r| (r.get(0), r.get(1)))
            .map_err(|e| conn.error(&e))
    }

    fn read(&mut self, after: i64, limit: usize) -> Result<Vec<(i64, Line)>, Error> {
        self.check()?;
        let conn = self.conn.clone();
        let rows = self
            .client
            .query(
                "SELECT r.id, idem_key, model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest, gpu_hours,
                        cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, duration_s, device_count, measured_kwh, part, e.estimate,
                        job_user, job_account, job_partition
                 FROM exa_records r JOIN exa_estimates e ON e.record_id = r.id WHERE r.id > $1 ORDER BY r.id LIMIT $2",
                &[&after, &i64::try_from(limit).unwrap_or(i64::MAX)],
            )
            .map_err(|e| conn.error(&e))?;
        Ok(rows
            .iter()
            .map(|r| {
                (
                    r.get(0),
                    Line {
                        key: r.get(1),
                        model: r.get(2),
                        run_id: r.get(3),
                        recorded_at: r.get(4),
                        host: r.get(5),
                        domain: r.get(6),
                        provider: r.get(7),
                        provider_kind: r.get(8),
                        provider_digest: r.get(9),
                        gpu_hours: r.get(10),
                        cpu_hours: r.get(11),
                        kwh: r.get(12),
                        co2e_g: r.get(13),
                        cost_usd: r.get(14),
                        uncertainty: r.get(15),
                        measured: r.get(16),
                        duration_s: r.get(17),
                        device_count: r.get::<_, Option<i32>>(18).map(i64::from),
                        measured_kwh: r.get(19),
                        part: r.get(20),
                        labels: crate::model::Labels { user: r.get(22), account: r.get(23), partition: r.get(24) },
                        estimate: r.get::<_, serde_json::Value>(21).to_string(),
                    },
                )
            })
            .collect())
    }

    fn schema_version(&mut self) -> Result<i64, Error> {
        // Read when it was opened (a reader) or checked (a writer); a writer's first record checks it too.
        self.check()?;
        Ok(self.version)
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

    fn location(&self) -> Location {
        Location(self.conn.shown.clone())
    }
}

/// JSON text already serialised, sent as json or jsonb without being parsed and written again.
#[derive(Debug)]
struct JsonText<'a>(&'a str);

impl tokio_postgres::types::ToSql for JsonText<'_> {
    fn to_sql(
        &self,
        ty: &tokio_postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        use bytes::BufMut;
        if *ty == tokio_postgres::types::Type::JSONB {
            // jsonb's binary form: a version byte, then the text.
            out.put_u8(1);
        }
        out.put_slice(self.0.as_bytes());
        Ok(tokio_postgres::types::IsNull::No)
    }

    fn accepts(ty: &tokio_postgres::types::Type) -> bool {
        matches!(*ty, tokio_postgres::types::Type::JSON | tokio_postgres::types::Type::JSONB)
    }

    tokio_postgres::types::to_sql_checked!();
}
