//! The SQLite ledger: records in an embedded database, append-only.
//!
//! One row per record, written in one transaction, so a process killed
//! mid-write leaves the record whole or absent. WAL mode and a busy timeout
//! let many jobs on one node record at once. The schema has a version
//! (`PRAGMA user_version`) and migrations from the first release; a file
//! that is not SQLite, or from a newer exa, is an error and is never
//! written to.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};

mod bulk;
mod cells;
mod charges;
mod report;
mod rollup;
mod sums;

use super::rule::Row;
use super::{columns, form, EstimateText, Ledger, Line, Location};
use crate::error::Error;
use rusqlite::types::ValueRef;

/// Schema migrations, in order; entry N takes a database from version N to N + 1.
/// Public for the tests, which make a ledger of an older version with its first steps.
pub const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE records (
    id               INTEGER PRIMARY KEY,
    model            TEXT    NOT NULL,
    run_id           TEXT,
    recorded_at      INTEGER NOT NULL,            -- seconds since the epoch, UTC
    host             TEXT    NOT NULL,
    domain           TEXT    NOT NULL CHECK (domain IN ('carbon', 'cost')),
    provider         TEXT    NOT NULL,
    provider_kind    TEXT    NOT NULL,
    provider_digest  TEXT    NOT NULL,
    gpu_hours        REAL    NOT NULL CHECK (gpu_hours >= 0),
    cpu_hours        REAL    NOT NULL CHECK (cpu_hours >= 0),
    kwh              REAL,
    co2e_g           REAL,
    cost_usd         REAL,
    uncertainty      REAL,
    measured         INTEGER NOT NULL DEFAULT 0,
    duration_s       REAL,
    device_count     INTEGER,
    measured_kwh     REAL
);
-- The whole estimate as JSON (inputs, coefficients and their sources, outputs), apart so reports scan narrow rows.
CREATE TABLE record_estimates (
    record_id        INTEGER PRIMARY KEY REFERENCES records (id),
    estimate         TEXT    NOT NULL
);
CREATE INDEX records_model_time ON records (model, recorded_at);
CREATE INDEX records_time ON records (recorded_at);
CREATE TRIGGER records_no_update BEFORE UPDATE ON records BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
CREATE TRIGGER records_no_delete BEFORE DELETE ON records BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
CREATE TRIGGER estimates_no_update BEFORE UPDATE ON record_estimates BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
CREATE TRIGGER estimates_no_delete BEFORE DELETE ON record_estimates BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
"#,
    // 2: a record may be one part of its run's work (`--part`); parts are summed, repeats counted once.
    "ALTER TABLE records ADD COLUMN part INTEGER NOT NULL DEFAULT 0;",
    // 3: every record has an idempotency key, so a retry, or `exa db copy` run twice, never writes it twice.
    // Records from before get one now: the only change ever made to a stored record, inside this migration.
    r#"
ALTER TABLE records ADD COLUMN idem_key TEXT;
DROP TRIGGER records_no_update;
UPDATE records SET idem_key = 'sqlite-' || lower(hex(randomblob(16))) WHERE idem_key IS NULL;
CREATE TRIGGER records_no_update BEFORE UPDATE ON records BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
CREATE UNIQUE INDEX records_idem_key ON records (idem_key);
"#,
    // 4: logs for MLflow that could not be sent yet; `exa sync mlflow` and the next record send them.
    r#"
CREATE TABLE mlflow_outbox (
    id          INTEGER PRIMARY KEY,
    record_id   INTEGER NOT NULL REFERENCES records (id),
    run_id      TEXT    NOT NULL,
    payload     TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 1,
    last_error  TEXT,
    sent_at     INTEGER
);
"#,
    // 5: who ran an imported job and where (the scheduler's user, account and partition), for reports by them.
    r#"
ALTER TABLE records ADD COLUMN job_user TEXT;
ALTER TABLE records ADD COLUMN job_account TEXT;
ALTER TABLE records ADD COLUMN job_partition TEXT;
"#,
    // 6: the report's sums by model, day, user, account and partition, kept as records arrive (`cells`).
    cells::SCHEMA,
    // 7: what records priced alike share of their estimates (the provider, the coefficients and their sources,
    // the notes) kept once, as a shape; each record keeps its own figures beside it (`store::EstimateText`).
    // An import of a million jobs priced by two providers writes two shapes, not two million copies of them.
    r#"
CREATE TABLE estimate_shapes (
    id      INTEGER PRIMARY KEY,
    digest  INTEGER NOT NULL UNIQUE,     -- FNV-1a (64 bits) of the shape's text
    shape   TEXT    NOT NULL
);
ALTER TABLE record_estimates ADD COLUMN shape_id INTEGER;   -- the estimate_shapes row; NULL: the estimate is whole
CREATE TRIGGER shapes_no_update BEFORE UPDATE ON estimate_shapes BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
CREATE TRIGGER shapes_no_delete BEFORE DELETE ON estimate_shapes BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
-- Every record's whole estimate, for reading with SQL: the shape with the record's figures in their places.
-- Written with json() and json_extract() only (SQLite 3.9 on), so an older SQLite can still read the file.
CREATE VIEW record_estimate_json AS
    SELECT e.record_id,
           CASE WHEN e.shape_id IS NULL THEN e.estimate
                ELSE json_set(s.shape, '$.inputs', json(json_extract(e.estimate, '$.inputs')),
                              '$.outputs', json(json_extract(e.estimate, '$.outputs')),
                              '$.range', json(json_extract(e.estimate, '$.range'))) END AS estimate
    FROM record_estimates e LEFT JOIN estimate_shapes s ON s.id = e.shape_id;
"#,
    // 8: the work a run did (tokens, requests, units of its own naming) and the figures beside CO2e (embodied
    // CO2e, water), on the records and summed in the cells, which are made again (`migrate`).
    r#"
ALTER TABLE records ADD COLUMN embodied_co2e_g REAL;
ALTER TABLE records ADD COLUMN water_l REAL;
ALTER TABLE records ADD COLUMN tokens REAL;
ALTER TABLE records ADD COLUMN prompt_tokens REAL;
ALTER TABLE records ADD COLUMN requests REAL;
ALTER TABLE records ADD COLUMN unit_name TEXT;
ALTER TABLE records ADD COLUMN units REAL;
ALTER TABLE report_cells ADD COLUMN embodied_co2e_g REAL;
ALTER TABLE report_cells ADD COLUMN water_l REAL;
ALTER TABLE report_cells ADD COLUMN tokens REAL;
ALTER TABLE report_cells ADD COLUMN prompt_tokens REAL;
ALTER TABLE report_cells ADD COLUMN requests REAL;
"#,
    // 9: the index by model and time goes: the cells' index leads with the model and holds the time, so a report
    // of one model reads it there, and a first import no longer sorts a million records a fourth time.
    "DROP INDEX IF EXISTS records_model_time;",
    // 10: a record's figures kept in its own columns (`store::form`): the record names its estimate's form (which
    // figures it has, and each band's uncertainty) and keeps beside its columns only the figures they cannot give
    // back, most often none; such a record has no row in record_estimates. The view puts its estimate together.
    FORMS,
    // 11: a record's cell known by a number (`cells::key`), and the cells' index by it and the time: sorting records
    // by four words each (the model first, alike in nearly every pair) was the dearest of a first import's indexes.
    // The records kept before get their numbers, and the index is made again, by `cells::keyed` after this step.
    "ALTER TABLE records ADD COLUMN cell INTEGER;     -- cells::key of its model, user, account and partition; NULL: written otherwise
DROP INDEX IF EXISTS records_cell;",
    // 12: the counting rule's measurement supersedes an estimate only where it holds every kind of work (GPU,
    // CPU) the estimate does (`rule::choose`): the cells, counted by the rule before, are counted again by
    // `cells::rebuild` after this step, and a reader of an older file scans its records instead.
    "",
];

/// Schema 10: estimates' forms, and the view over both ways a record keeps its estimate.
const FORMS: &str = r#"
CREATE TABLE estimate_forms (
    id        INTEGER PRIMARY KEY,
    shape_id  INTEGER NOT NULL REFERENCES estimate_shapes (id),
    layout    TEXT    NOT NULL,     -- {"inputs":[names],"outputs":[names],"range":{name: uncertainty or null} or null}
    UNIQUE (shape_id, layout)
);
CREATE TRIGGER forms_no_update BEFORE UPDATE ON estimate_forms BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
CREATE TRIGGER forms_no_delete BEFORE DELETE ON estimate_forms BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
ALTER TABLE records ADD COLUMN form_id INTEGER;     -- the estimate_forms row; NULL: the estimate is in record_estimates
ALTER TABLE records ADD COLUMN figures TEXT;        -- with a form: the figures the columns do not give back (JSON), or NULL
DROP VIEW record_estimate_json;
-- Every record's whole estimate, for reading with SQL. A record with a form: its shape, each input and output
-- from the record's figures kept apart or else its column, each band from the figures or else its output and the
-- form's uncertainty, v x (1 - u) (never below 0) to v x (1 + u) at 15 significant digits, as exa makes them.
CREATE VIEW record_estimate_json AS
    SELECT e.record_id,
           CASE WHEN e.shape_id IS NULL THEN e.estimate
                ELSE json_set(s.shape, '$.inputs', json(json_extract(e.estimate, '$.inputs')),
                              '$.outputs', json(json_extract(e.estimate, '$.outputs')),
                              '$.range', json(json_extract(e.estimate, '$.range'))) END AS estimate
    FROM record_estimates e LEFT JOIN estimate_shapes s ON s.id = e.shape_id
    UNION ALL
    SELECT r.id,
           json_set(s.shape,
               '$.inputs', json((SELECT json_group_object(n.key, json(CASE WHEN CAST(printf('%!.15g', n.v) AS REAL) = n.v THEN printf('%!.15g', n.v) WHEN CAST(printf('%!.16g', n.v) AS REAL) = n.v THEN printf('%!.16g', n.v) ELSE printf('%!.17g', n.v) END))
                                 FROM (SELECT i.value AS key, COALESCE(json_extract(r.figures, '$.inputs."' || i.value || '"'),
                                              CASE i.value WHEN 'gpu_hours' THEN r.gpu_hours WHEN 'cpu_hours' THEN r.cpu_hours END) AS v
                                       FROM json_each(f.layout, '$.inputs') i) n)),
               '$.outputs', json((SELECT json_group_object(n.key, json(CASE WHEN CAST(printf('%!.15g', n.v) AS REAL) = n.v THEN printf('%!.15g', n.v) WHEN CAST(printf('%!.16g', n.v) AS REAL) = n.v THEN printf('%!.16g', n.v) ELSE printf('%!.17g', n.v) END))
                                  FROM (SELECT o.value AS key, COALESCE(json_extract(r.figures, '$.outputs."' || o.value || '"'),
                                               CASE o.value WHEN 'kwh' THEN r.kwh WHEN 'co2e_g' THEN r.co2e_g WHEN 'cost_usd' THEN r.cost_usd
                                                            WHEN 'embodied_co2e_g' THEN r.embodied_co2e_g WHEN 'water_l' THEN r.water_l END) AS v
                                        FROM json_each(f.layout, '$.outputs') o) n)),
               '$.range', CASE WHEN json_type(f.layout, '$.range') = 'object' THEN json((
                   SELECT json_group_object(b.key, json(COALESCE(json_extract(r.figures, '$.range."' || b.key || '"'),
                              CASE WHEN b.v IS NOT NULL AND b.u IS NOT NULL THEN json_array(json(printf('%!.15g', max(b.v * (1.0 - b.u), 0.0))),
                                                                                           json(printf('%!.15g', b.v * (1.0 + b.u)))) END)))
                   FROM (SELECT g.key AS key, g.value AS u,
                                CASE g.key WHEN 'kwh' THEN r.kwh WHEN 'co2e_g' THEN r.co2e_g WHEN 'cost_usd' THEN r.cost_usd
                                           WHEN 'embodied_co2e_g' THEN r.embodied_co2e_g WHEN 'water_l' THEN r.water_l END AS v
                         FROM json_each(f.layout, '$.range') g) b)) END) AS estimate
    FROM records r JOIN estimate_forms f ON f.id = r.form_id JOIN estimate_shapes s ON s.id = f.shape_id;
"#;

/// A new ledger's page size, in bytes.
const PAGE_SIZE: i64 = 16_384;

/// The schema version whose records may keep their figures in their columns, by a form.
pub const FORMS_VERSION: i64 = 10;

/// The schema version whose records keep their work, embodied CO2e and water.
pub const WORK_VERSION: i64 = 8;

/// The columns `read_row` reads, for a schema at `version` (nulls for what it does not keep).
pub(super) fn row_columns(version: i64) -> &'static str {
    if version >= NODE_VERSION {
        "id, run_id, domain = 'carbon', measured, part, gpu_hours, cpu_hours, kwh, co2e_g, uncertainty, cost_usd, \
         embodied_co2e_g, water_l, tokens, prompt_tokens, requests, units, node_kwh, node_rest_kwh"
    } else if version >= WORK_VERSION {
        "id, run_id, domain = 'carbon', measured, part, gpu_hours, cpu_hours, kwh, co2e_g, uncertainty, cost_usd, \
         embodied_co2e_g, water_l, tokens, prompt_tokens, requests, units, NULL, NULL"
    } else {
        "id, run_id, domain = 'carbon', measured, part, gpu_hours, cpu_hours, kwh, co2e_g, uncertainty, cost_usd, \
         NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL"
    }
}

/// The records' work and the figures beside CO2e, as a reader of a schema at `version` selects them (`r` the
/// records' prefix): embodied CO2e, water, tokens, prompt tokens, requests, unit name, units; nulls before the
/// schema kept them. PostgreSQL's reader has its own (`postgres::schema::work_columns`).
pub(super) fn work_columns(version: i64, r: &str) -> String {
    if version >= WORK_VERSION {
        format!("{r}embodied_co2e_g, {r}water_l, {r}tokens, {r}prompt_tokens, {r}requests, {r}unit_name, {r}units")
    } else {
        "NULL, NULL, NULL, NULL, NULL, NULL, NULL".into()
    }
}

/// The number of columns `row_columns` gives.
pub(super) const ROW_COLUMNS: usize = 19;

/// The schema version whose records keep the job's part of its node's platform energy (`columns::RECORD`'s
/// `node_kwh`, `node_rest_kwh`).
pub const NODE_VERSION: i64 = columns::since_of("node_kwh")[columns::Store::Sqlite as usize];

/// The schema version whose cells and rollup rows sum the node's figures (`node_cells`): no record had them before
/// `NODE_VERSION`, so the cells made before it are right with the new columns NULL, and are not made again.
pub const NODE_CELLS_VERSION: i64 = NODE_VERSION + 1;

/// The cells' and the rollup's columns for the node's figures, each added where its table lacks it (SQLite has no
/// `ADD COLUMN IF NOT EXISTS`): a step run again adds nothing twice.
fn node_cells(tx: &Connection) -> rusqlite::Result<String> {
    let mut sql = String::new();
    for table in ["report_cells", "report_rollup"] {
        let mut q = tx.prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))?;
        let have: Vec<String> = q.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
        for column in ["node_kwh", "node_rest_kwh"] {
            if !have.iter().any(|h| h == column) {
                sql.push_str(&format!("ALTER TABLE {table} ADD COLUMN {column} REAL;\n"));
            }
        }
    }
    Ok(sql)
}

/// The schema version that keeps estimates' shapes apart.
pub const SHAPES_VERSION: i64 = 7;

/// For a reader of records' estimates (`record_estimates e`): the join that adds their shapes (`s`) where the
/// schema has them, and the expression that holds an estimate's coefficients.
pub(super) fn shapes_join(version: i64) -> (&'static str, &'static str) {
    if version >= SHAPES_VERSION {
        ("LEFT JOIN estimate_shapes s ON s.id = e.shape_id", "COALESCE(s.shape, e.estimate)")
    } else {
        ("", "e.estimate")
    }
}

/// For a reader of records' coefficients (`records r`): the joins that find each record's estimate, by its form
/// or in record_estimates, and the expression that holds its coefficients.
pub(super) fn coefficients_join(version: i64) -> (String, &'static str) {
    let (shapes, coefficients) = shapes_join(version);
    if version >= FORMS_VERSION {
        (
            format!(
                "LEFT JOIN record_estimates e ON e.record_id = r.id {shapes}
                 LEFT JOIN estimate_forms f ON f.id = r.form_id LEFT JOIN estimate_shapes fs ON fs.id = f.shape_id"
            ),
            "COALESCE(fs.shape, s.shape, e.estimate)",
        )
    } else {
        (format!("JOIN record_estimates e ON e.record_id = r.id {shapes}"), coefficients)
    }
}

/// An integer column of the schema's own (NOT NULL where it must be), read without conversion checks.
pub(super) fn column_int(r: &rusqlite::Row, i: usize) -> i64 {
    match r.get_ref_unwrap(i) {
        ValueRef::Integer(v) => v,
        _ => 0,
    }
}

/// A real column, null as None.
fn column_real(r: &rusqlite::Row, i: usize) -> Option<f64> {
    match r.get_ref_unwrap(i) {
        ValueRef::Real(v) => Some(v),
        ValueRef::Integer(v) => Some(v as f64),
        _ => None,
    }
}

/// A record from the columns `row_columns` gives, starting at `at` (its group and day left at 0).
pub(super) fn read_row(r: &rusqlite::Row, at: usize) -> Row {
    Row {
        id: column_int(r, at),
        group: 0,
        day: 0,
        carbon: column_int(r, at + 2) != 0,
        measured: column_int(r, at + 3) != 0,
        part: column_int(r, at + 4) != 0,
        gpu_hours: column_real(r, at + 5).unwrap_or(0.0),
        cpu_hours: column_real(r, at + 6).unwrap_or(0.0),
        kwh: column_real(r, at + 7),
        co2e: column_real(r, at + 8),
        uncertainty: column_real(r, at + 9),
        cost_usd: column_real(r, at + 10),
        embodied: column_real(r, at + 11),
        water: column_real(r, at + 12),
        work: [column_real(r, at + 13), column_real(r, at + 14), column_real(r, at + 15), column_real(r, at + 16)],
        node: [column_real(r, at + 17), column_real(r, at + 18)],
    }
}

/// The records' INSERT (`write_each`'s), a statement for each domain: the columns of `columns::RECORD` in its
/// order, then the record's form, its figures kept beside its columns, and its cell's number. SQLite keeps a
/// statement's bindings from one row to the next, so a line binds only the words (`Kind::Word`) that differ from
/// the last line of its domain: the provider's name, kind and digest, the host, and most often the model and the
/// labels, are copied into SQLite once, not for every record (a million jobs' two records bound eleven words
/// each, and SQLite copies every one).
///
/// A parameter left NULL by the record before stays bound as it is: most of an importer's records leave the same
/// dozen columns empty (a cost record its energy and CO2e, every one its work), so those are not bound again.
struct Insert<'c> {
    sql: String,
    by_domain: Vec<(String, rusqlite::Statement<'c>, Bound, Nulls)>,
}

/// The parameters a statement holds bound to NULL, as bits (bit `i` for `?i`).
type Nulls = u64;

/// The words a statement holds bound, per column of `columns::RECORD` (`None` where none is yet, or it is no word).
type Bound = Vec<Option<Option<crate::model::Word>>>;

/// The parameters after the record's columns: its form, its figures kept apart, its cell's number.
const AFTER_COLUMNS: usize = 3;

// Every parameter has its bit in `Nulls`.
const _: () = assert!(columns::RECORD.len() + AFTER_COLUMNS < Nulls::BITS as usize);

/// Binds parameter `i` to `v`, leaving a parameter that holds NULL (its bit in `nulls`) as it is.
#[inline(always)]
fn bind(stmt: &mut rusqlite::Statement<'_>, nulls: &mut Nulls, i: usize, v: columns::Value<'_>) -> rusqlite::Result<()> {
    let null = 1 << i;
    match v {
        columns::Value::Null if *nulls & null != 0 => return Ok(()),
        columns::Value::Null => {
            stmt.raw_bind_parameter(i, rusqlite::types::Null)?;
            *nulls |= null;
            return Ok(());
        }
        // Each type bound as itself: a conversion through `ToSqlOutput` cost an import 2 % more instructions.
        columns::Value::Text(t) => stmt.raw_bind_parameter(i, t)?,
        columns::Value::Real(x) => stmt.raw_bind_parameter(i, x)?,
        columns::Value::Int(n) => stmt.raw_bind_parameter(i, n)?,
        columns::Value::Flag(b) => stmt.raw_bind_parameter(i, b)?,
    }
    *nulls &= !null;
    Ok(())
}

impl<'c> Insert<'c> {
    fn new(on_conflict: &str) -> Insert<'c> {
        let n = columns::RECORD.len() + AFTER_COLUMNS;
        let params = (1..=n).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ");
        let sql = format!("INSERT INTO records ({}, form_id, figures, cell) VALUES ({params}) {on_conflict}", columns::names());
        Insert { sql, by_domain: Vec::with_capacity(2) }
    }

    /// Writes one line's columns, with its form and the figures its columns do not give back where it has one; the
    /// rows written (0: its key was stored).
    fn line(&mut self, tx: &'c Connection, l: &Line, form: Option<(i64, Option<&str>)>) -> rusqlite::Result<usize> {
        let at = match self.by_domain.iter().position(|(d, ..)| *d == l.domain) {
            Some(at) => at,
            None => {
                let bound = vec![None; columns::RECORD.len()];
                self.by_domain.push((l.domain.to_string(), tx.prepare(&self.sql)?, bound, 0));
                self.by_domain.len() - 1
            }
        };
        let (_, stmt, held, nulls) = &mut self.by_domain[at];
        let mut bind = |i: usize, v: columns::Value<'_>| bind(stmt, nulls, i, v);
        for (i, (c, held)) in columns::RECORD.iter().zip(held.iter_mut()).enumerate() {
            let v = (c.get)(l);
            if c.kind == columns::Kind::Word {
                let word = match v {
                    columns::Value::Text(t) => Some(t),
                    _ => None,
                };
                if held.as_ref().is_some_and(|h| h.as_deref() == word) {
                    continue;
                }
                *held = Some(word.map(crate::model::Word::from));
            }
            bind(i + 1, v)?;
        }
        let cell = cells::key(&l.model, l.labels.user.as_deref(), l.labels.account.as_deref(), l.labels.partition.as_deref());
        let n = columns::RECORD.len();
        bind(n + 1, form.map_or(columns::Value::Null, |f| columns::Value::Int(f.0)))?;
        bind(n + 2, form.and_then(|f| f.1).map_or(columns::Value::Null, columns::Value::Text))?;
        bind(n + 3, columns::Value::Int(cell))?;
        stmt.raw_execute()
    }
}

/// The schema version that has the report's summary cells.
pub const CELLS_VERSION: i64 = 6;

/// The schema version whose records know their cell by a number.
pub const CELL_KEY_VERSION: i64 = 11;

/// The schema version whose cells were counted by the rule that never lets a measurement drop a kind of work.
pub const RULE_VERSION: i64 = 12;

/// The schema version whose records have a pod's namespace and tags (`columns::RECORD`'s `k8s_namespace`, `tags`).
pub const K8S_VERSION: i64 = columns::since_of("tags")[columns::Store::Sqlite as usize];

/// Writes one line in a transaction: its id, and whether it is new (false: its key was stored).
type Put<'a> = dyn FnMut(&Line) -> Result<(i64, bool), Error> + 'a;

/// The schema version that keeps the budgets' changes (`BUDGETS`). No column of `columns::RECORD` may name it: a
/// step is a table or columns, never both.
pub const BUDGET_VERSION: i64 = 14;

/// The budgets' changes: each a budget set (its JSON) or removed (NULL), by whom and when; appended, never changed.
const BUDGETS: &str = r"
CREATE TABLE IF NOT EXISTS budget_changes (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL,
    changed_at  INTEGER NOT NULL,            -- seconds since the epoch, UTC
    changed_by  TEXT    NOT NULL,            -- user@host
    budget      TEXT                         -- the budget as set, JSON; NULL: removed
);
CREATE TRIGGER IF NOT EXISTS budget_changes_no_update BEFORE UPDATE ON budget_changes BEGIN SELECT RAISE(ABORT, 'budget changes are append-only'); END;
CREATE TRIGGER IF NOT EXISTS budget_changes_no_delete BEFORE DELETE ON budget_changes BEGIN SELECT RAISE(ABORT, 'budget changes are append-only'); END;
-- A budget's crossings to send, one a line, unit, period and destination: kept before it is sent, so a crossing
-- is sent once, and one that could not be sent is sent by the next `exa budget notify`.
CREATE TABLE IF NOT EXISTS budget_events (
    id          INTEGER PRIMARY KEY,
    event_key   TEXT    NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL,
    payload     TEXT    NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT,
    claimed_at  INTEGER,                     -- when a run took it to send; NULL when none holds it
    sent_at     INTEGER
);
";

/// The schema version that keeps the cells summed by day for each model, user, account and partition
/// (`rollup`), made from the cells after its step.
pub const ROLLUP_VERSION: i64 = 15;

/// A step that adds tables or their columns: its SQL, made against the ledger as it stands.
type TableStep = fn(&Connection) -> rusqlite::Result<String>;

/// The steps that add tables (or tables' columns), by version; every other step past `MIGRATIONS` adds the record
/// columns that `columns::RECORD` says.
const TABLES: [(i64, TableStep); 3] =
    [(BUDGET_VERSION, |_| Ok(BUDGETS.to_string())), (ROLLUP_VERSION, |_| Ok(rollup::SCHEMA.to_string())), (NODE_CELLS_VERSION, node_cells)];

// A step is a table or columns, never both: no record column may name a table's version, and the written-out
// migrations end before them.
const _: () = assert!(!columns::names_version(columns::RECORD, columns::Store::Sqlite, BUDGET_VERSION));
const _: () = assert!(!columns::names_version(columns::RECORD, columns::Store::Sqlite, ROLLUP_VERSION));
const _: () = assert!(!columns::names_version(columns::RECORD, columns::Store::Sqlite, NODE_CELLS_VERSION));
const _: () = assert!(NODE_VERSION > ROLLUP_VERSION);
const _: () = assert!((MIGRATIONS.len() as i64) < BUDGET_VERSION);

/// The schema version this exa writes.
pub const SCHEMA_VERSION: i64 = {
    let columns = columns::newest(columns::RECORD, columns::Store::Sqlite, MIGRATIONS.len());
    let tables = if ROLLUP_VERSION > NODE_CELLS_VERSION { ROLLUP_VERSION } else { NODE_CELLS_VERSION };
    if columns > tables {
        columns
    } else {
        tables
    }
};

/// An open SQLite ledger.
pub struct Store {
    conn: Connection,
    pub path: PathBuf,
}

/// How long a writer waits for another to finish before it gives up.
const BUSY: Duration = Duration::from_secs(30);

fn busy(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
}

fn db_error(path: &Path, e: rusqlite::Error) -> Error {
    let msg = e.to_string();
    if msg.contains("file is not a database") {
        Error::Config(format!("{} is not an exa database (not SQLite); nothing was written to it", path.display()))
    } else {
        Error::Failed(format!("{}: {msg}", path.display()))
    }
}

/// Whether a reader of `path` cannot go through its `-shm` and `-wal` files: it may not make them (its directory
/// is not writable by this user, or is on a read-only filesystem) and they are not there for it to read (no
/// writer has them, or another user's reader left them private). A WAL ledger is read through those files, so
/// SQLite would try to make them and fail ("readonly database", "unable to open"); the file is then read as
/// it is, immutable, which is all a reader without them can see.
fn unshared(path: &Path) -> bool {
    let can = |p: &Path, mode: libc::c_int| {
        std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str()))
            // SAFETY: access(2) reads the NUL-terminated path and touches no other memory.
            .is_ok_and(|c| unsafe { libc::access(c.as_ptr(), mode) } == 0)
    };
    let beside = |suffix: &str| {
        let mut p = path.as_os_str().to_os_string();
        p.push(suffix);
        std::path::PathBuf::from(p)
    };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let readable = |p: &Path| can(p, libc::R_OK);
    // A full disk is no place to make them either: a reader that tried would fail ("disk I/O error").
    let can_make = can(dir, libc::W_OK) && room(dir);
    let can_read = readable(&beside("-shm")) && readable(&beside("-wal"));
    !can_make && !can_read
}

/// Whether `dir`'s filesystem has room for a reader's shared-memory file (32 KiB, and as much again).
fn room(dir: &Path) -> bool {
    let Ok(c) = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(dir.as_os_str())) else { return true };
    // SAFETY: statvfs(3) reads the NUL-terminated path and writes into the zeroed local, valid for the call.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return true;
    }
    st.f_bavail.saturating_mul(st.f_frsize) >= 64 << 10
}

/// `path` as a SQLite URI opened immutable: read as it is, no lock taken, nothing written.
fn immutable_uri(path: &Path) -> String {
    let mut out = String::from("file:");
    for b in std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()) {
        match b {
            b'?' | b'#' | b'%' | 0..=0x20 | 0x7f.. => out.push_str(&format!("%{b:02X}")),
            _ => out.push(char::from(*b)),
        }
    }
    out.push_str("?immutable=1");
    out
}

/// Refuses a schema this exa did not make: a newer one, or a negative version (no exa writes one).
fn known_version(path: &Path, version: i64) -> Result<(), Error> {
    if version > SCHEMA_VERSION {
        return Err(Error::Config(format!(
            "{} has schema version {version}, newer than this exa knows ({SCHEMA_VERSION}); upgrade exa. Nothing was written to it",
            path.display()
        )));
    }
    if version < 0 {
        return Err(Error::Config(format!(
            "{} has schema version {version}, which no exa writes: a store of unknown schema. Nothing was written to it",
            path.display()
        )));
    }
    Ok(())
}

/// Makes a new ledger's directory (0700) and file (0600) before SQLite opens it: it holds job names, users,
/// accounts and hosts. SQLite gives its `-wal` and `-shm` files the database's mode. What exists is left as it is.
fn create_private(path: &Path) -> Result<(), Error> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let name = path.to_string_lossy();
    if name == ":memory:" || name.starts_with("file:") {
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| Error::Failed(format!("cannot create {}: {e}", dir.display())))?;
    }
    match std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        // A path SQLite itself must judge (a directory, a special file): its own error is clearer.
        Err(_) => Ok(()),
    }
}

/// A writer's estimates: each kept by its form on its record, or as its shape and figures, or whole; each shape
/// and form found or added once.
struct Estimates<'t> {
    put: rusqlite::CachedStatement<'t>,
    find: rusqlite::CachedStatement<'t>,
    add: rusqlite::CachedStatement<'t>,
    find_form: rusqlite::CachedStatement<'t>,
    add_form: rusqlite::CachedStatement<'t>,
    tx: &'t Connection,
    /// The forms written last and their ids, newest first: the next record's is most often one of these, shared
    /// (`store::Shapes`, each of whose shapes keeps `store::FORMS`), and found without reading it. None where its
    /// shape's digest is another text's.
    forms: Vec<(std::sync::Arc<crate::store::form::Form>, std::sync::Arc<str>, Option<i64>)>,
    /// By digest: the shape's text and id, or None where the digest is another text's.
    known: std::collections::HashMap<u64, (String, Option<i64>)>,
    /// The shapes written last and their ids (as `known` has them), newest first: the next record's is most
    /// often one of these very texts, shared (`store::Shapes`), and found without reading it.
    recent: Vec<(std::sync::Arc<str>, Option<i64>)>,
}

impl<'t> Estimates<'t> {
    fn new(tx: &'t Connection) -> rusqlite::Result<Estimates<'t>> {
        Ok(Estimates {
            put: tx.prepare_cached("INSERT INTO record_estimates (record_id, estimate, shape_id) VALUES (?1, ?2, ?3)")?,
            find: tx.prepare_cached("SELECT id, shape FROM estimate_shapes WHERE digest = ?1")?,
            add: tx.prepare_cached("INSERT INTO estimate_shapes (digest, shape) VALUES (?1, ?2)")?,
            find_form: tx.prepare_cached("SELECT id FROM estimate_forms WHERE shape_id = ?1 AND layout = ?2")?,
            add_form: tx.prepare_cached("INSERT INTO estimate_forms (shape_id, layout) VALUES (?1, ?2)")?,
            tx,
            forms: Vec::new(),
            known: std::collections::HashMap::new(),
            recent: Vec::new(),
        })
    }

    /// The form line `l`'s record names, and the figures it keeps beside its columns; None where its estimate is
    /// kept in record_estimates (`put`).
    fn form<'l>(&mut self, l: &'l Line) -> rusqlite::Result<Option<(i64, Option<&'l str>)>> {
        let EstimateText::Formed { shape, form, rest } = &l.estimate else { return Ok(None) };
        let id = match self.forms.iter().find(|(f, s, _)| std::sync::Arc::ptr_eq(f, form) && std::sync::Arc::ptr_eq(s, shape)) {
            Some((_, _, id)) => *id,
            None => {
                let id = match self.id(shape)? {
                    Some(shape_id) => Some(self.find_or_add_form(shape_id, &form.text)?),
                    None => None,
                };
                super::push_front(
                    &mut self.forms,
                    (std::sync::Arc::clone(form), std::sync::Arc::clone(shape), id),
                    super::SHAPES * super::FORMS,
                );
                id
            }
        };
        Ok(id.map(|id| (id, rest.as_deref())))
    }

    fn find_or_add_form(&mut self, shape_id: i64, layout: &str) -> rusqlite::Result<i64> {
        let found: Option<i64> = self.find_form.query_row(params![shape_id, layout], |r| r.get(0)).optional()?;
        match found {
            Some(id) => Ok(id),
            None => {
                self.add_form.execute(params![shape_id, layout])?;
                Ok(self.tx.last_insert_rowid())
            }
        }
    }

    /// Writes record `id`'s estimate, where its record names no form: its figures beside its shape, or whole.
    fn put(&mut self, id: i64, l: &Line) -> rusqlite::Result<()> {
        match &l.estimate {
            EstimateText::Split { shape, figures } => match self.id(shape)? {
                Some(shape_id) => self.put.execute(params![id, figures, shape_id])?,
                // Its digest is another shape's: kept whole.
                None => self.put.execute(params![id, l.estimate_or_null(), None::<i64>])?,
            },
            EstimateText::Whole(w) => self.put.execute(params![id, w, None::<i64>])?,
            // A form whose shape's digest is another shape's: kept whole.
            EstimateText::Formed { .. } => self.put.execute(params![id, l.estimate_or_null(), None::<i64>])?,
        };
        Ok(())
    }

    /// The id of a shape, added if it is new; None when its digest belongs to another shape (kept whole then).
    fn id(&mut self, shape: &std::sync::Arc<str>) -> rusqlite::Result<Option<i64>> {
        if let Some((_, id)) = self.recent.iter().find(|(s, _)| std::sync::Arc::ptr_eq(s, shape)) {
            return Ok(*id);
        }
        let id = self.find_or_add(shape)?;
        super::push_front(&mut self.recent, (std::sync::Arc::clone(shape), id), super::SHAPES);
        Ok(id)
    }

    /// The id of a shape by its digest, added if it is new; None when the digest belongs to another shape.
    fn find_or_add(&mut self, shape: &str) -> rusqlite::Result<Option<i64>> {
        let digest = crate::text::fnv1a64(&[shape]);
        if let Some((text, id)) = self.known.get(&digest) {
            return Ok(if text == shape { *id } else { None });
        }
        let column = i64::from_ne_bytes(digest.to_ne_bytes());
        let found: Option<(i64, String)> = {
            let mut rows = self.find.query([column])?;
            match rows.next()? {
                Some(r) => Some((r.get(0)?, r.get(1)?)),
                None => None,
            }
        };
        let id = match found {
            Some((id, text)) if text == shape => Some(id),
            Some(_) => None,
            None => {
                self.add.execute(params![column, shape])?;
                Some(self.tx.last_insert_rowid())
            }
        };
        self.known.insert(digest, (shape.to_string(), id));
        Ok(id)
    }
}

/// The forms a reader has read, by id, each with its shape: None where either is gone (a store edited by hand).
type FormsRead = std::collections::HashMap<i64, Option<(std::sync::Arc<str>, std::sync::Arc<form::Form>)>>;

/// A column's value as SQLite gives it back.
fn value(v: ValueRef<'_>) -> columns::Value<'_> {
    match v {
        ValueRef::Null | ValueRef::Blob(_) => columns::Value::Null,
        ValueRef::Integer(i) => columns::Value::Int(i),
        ValueRef::Real(x) => columns::Value::Real(x),
        // Text a store was given is UTF-8; a byte that is not (a store edited by hand) reads as no value.
        ValueRef::Text(t) => std::str::from_utf8(t).map_or(columns::Value::Null, columns::Value::Text),
    }
}

/// Where `read_lines` selects the estimate's columns: after the record's id and its columns.
const ESTIMATE_AT: usize = 1 + columns::RECORD.len();

/// A line's columns as `read_lines` selects them (from column 1), its estimate left empty (`estimate_read`).
fn line_read(r: &rusqlite::Row) -> rusqlite::Result<Line> {
    let mut line = columns::line(|i, _| value(r.get_ref_unwrap(1 + i))).map_err(|c| {
        let id = r.get_ref_unwrap(0).as_i64().unwrap_or(0);
        rusqlite::Error::InvalidColumnType(
            1 + columns::at(c.name),
            format!("record {id}'s {}", c.name),
            r.get_ref_unwrap(1 + columns::at(c.name)).data_type(),
        )
    })?;
    // A row written by hand (or by an exa before keys) has no idempotency key: one is made of what the row says,
    // the same at every read, so a copy of it made twice is one record, never a refusal ("Invalid column type Null").
    if line.key.is_empty() && r.get_ref_unwrap(1 + columns::at("idem_key")) == ValueRef::Null {
        let at = line.recorded_at.to_string();
        let (g, c) = (line.gpu_hours.to_bits().to_string(), line.cpu_hours.to_bits().to_string());
        let run = line.run_id.as_deref().unwrap_or("");
        let words = [line.model.as_str(), run, &at, line.host.as_str(), line.domain.as_str(), line.provider.as_str(), &g, &c];
        line.key = format!("row:{:016x}", crate::text::fnv1a64(&words));
    }
    Ok(line)
}

/// A line's estimate as `read_lines` selects it: by its form, or from record_estimates (split or whole).
fn estimate_read(r: &rusqlite::Row, seen: &mut FormsRead) -> rusqlite::Result<EstimateText> {
    let at = ESTIMATE_AT;
    let Some(id) = r.get::<_, Option<i64>>(at + 3)? else {
        let estimate: Option<String> = r.get(at)?;
        let shape: Option<String> = r.get(at + 1)?;
        let shape_id: Option<i64> = r.get(at + 2)?;
        return Ok(match (estimate, shape, shape_id) {
            (Some(estimate), Some(shape), _) => EstimateText::Split { shape: shape.into(), figures: estimate },
            // A shape named but gone (a store edited by hand): the figures alone are no estimate.
            (Some(_), None, Some(_)) | (None, _, _) => EstimateText::Whole("null".into()),
            (Some(estimate), None, None) => EstimateText::Whole(estimate),
        });
    };
    let formed = match seen.get(&id) {
        Some(known) => known.clone(),
        None => {
            let layout: Option<String> = r.get(at + 5)?;
            let shape: Option<String> = r.get(at + 7)?;
            let made = shape.zip(layout.as_deref().and_then(form::Form::parse)).map(|(s, f)| (s.into(), std::sync::Arc::new(f)));
            seen.insert(id, made.clone());
            made
        }
    };
    Ok(match formed {
        Some((shape, form)) => EstimateText::Formed { shape, form, rest: r.get(at + 4)? },
        // A form named but gone (a store edited by hand): the figures alone are no estimate.
        None => EstimateText::Whole("null".into()),
    })
}

impl Store {
    /// Opens (creating if missing) and migrates the database at `path`.
    pub fn open(path: &Path) -> Result<Store, Error> {
        create_private(path)?;
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| db_error(path, e))?;
        conn.busy_timeout(BUSY).map_err(|e| db_error(path, e))?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| db_error(path, e))?;
        known_version(path, version)?;
        let mut store = Store { conn, path: path.to_path_buf() };
        if version == 0 {
            // A new ledger's pages of 16 KiB (SQLite's default is 4 KiB), set before its first table: an import of a
            // cluster's history writes and reads back a quarter as many pages, each call to the file moving four
            // times as much (1M jobs: the kernel's time 2.4-3.4 s, was 3.4-4.8 s). A file that has pages keeps its own.
            store.conn.pragma_update(None, "page_size", PAGE_SIZE).map_err(|e| db_error(path, e))?;
        }
        if version < SCHEMA_VERSION {
            store.migrate()?;
        }
        // Switching to WAL takes a lock the busy handler does not wait for: retry it within the busy timeout,
        // so many processes creating the store at once all get it, and none drops its record.
        let started = std::time::Instant::now();
        loop {
            let mode: Result<String, _> = store.conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0));
            match mode {
                Ok(_) => break,
                Err(e) if busy(&e) && started.elapsed() < BUSY => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => return Err(db_error(path, e)),
            }
        }
        store.conn.pragma_update(None, "synchronous", "NORMAL").map_err(|e| db_error(path, e))?;
        // A page cache of up to 128 MiB (2 MiB is SQLite's default), filled only as pages are used: a batch (an
        // import, a copy) writes index pages all over the file, and with a small cache it spills them to the WAL
        // and reads them back again and again.
        store.conn.pragma_update(None, "cache_size", -131_072).map_err(|e| db_error(path, e))?;
        Ok(store)
    }

    /// Opens the database at `path` to read, never creating, migrating or
    /// writing anything: `None` when it holds no records yet (an empty file).
    pub fn open_read(path: &Path) -> Result<Option<Store>, Error> {
        Store::open_read_once(path, true)
    }

    /// `open_read`; with `put_back`, a write left mid-way (a killed import's hot journal, which a read-only
    /// connection may not play back) is put back first, once, as any writer's open would.
    fn open_read_once(path: &Path, put_back: bool) -> Result<Option<Store>, Error> {
        let unshared = unshared(path);
        // Read without locks (`unshared`), a file an import is writing through its journal, or one whose write was
        // left mid-way, could be read half-written: refused.
        if unshared && bulk::journal_beside(path) {
            return Err(Error::Failed(format!(
                "{}: a write is under way, or was left mid-way by a killed import, and this user may not take the locks \
                 that read it safely; try again after it, or run exa as the ledger's owner (which puts a killed write back)",
                path.display()
            )));
        }
        let conn = if unshared {
            // No writer is there (none made the shared-memory file), and this reader cannot make one (a ledger
            // it may read but not write, a read-only filesystem): read the file as it is, writing nothing.
            Connection::open_with_flags(
                immutable_uri(path),
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
        } else {
            Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        }
        .map_err(|e| db_error(path, e))?;
        conn.busy_timeout(Duration::from_secs(30)).map_err(|e| db_error(path, e))?;
        let version: i64 = match conn.query_row("PRAGMA user_version", [], |r| r.get(0)) {
            Ok(v) => v,
            Err(e) if put_back && bulk::rollback_needed(&e) => {
                drop(conn);
                bulk::put_back(path, BUSY).map_err(|e| {
                    Error::Failed(format!(
                        "{}: a write was left mid-way (a killed import), and putting the ledger back as it was failed: {e}",
                        path.display()
                    ))
                })?;
                return Store::open_read_once(path, false);
            }
            Err(e) => return Err(db_error(path, e)),
        };
        known_version(path, version)?;
        if version == 0 {
            let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0)).map_err(|e| db_error(path, e))?;
            if tables > 0 {
                return Err(Error::Config(format!("{} is a SQLite database exa did not create", path.display())));
            }
            return Ok(None);
        }
        Ok(Some(Store { conn, path: path.to_path_buf() }))
    }

    fn migrate(&mut self) -> Result<(), Error> {
        let path = self.path.clone();
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Exclusive).map_err(|e| db_error(&path, e))?;
        // Read again under the lock: another process may have migrated while this one waited.
        let now: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| db_error(&path, e))?;
        known_version(&path, now)?;
        if now == 0 {
            // A fresh file, or a SQLite file exa did not make: refuse the latter.
            let tables: i64 = tx.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0)).map_err(|e| db_error(&path, e))?;
            if tables > 0 {
                return Err(Error::Config(format!(
                    "{} is a SQLite database exa did not create; nothing was written to it",
                    path.display()
                )));
            }
        }
        // Each step: its migration written out above, or the columns `columns::RECORD` says it adds.
        for version in now + 1..=SCHEMA_VERSION {
            let sql = match usize::try_from(version - 1).ok().and_then(|i| MIGRATIONS.get(i)) {
                Some(sql) => (*sql).to_string(),
                None => match TABLES.iter().find(|(v, _)| *v == version) {
                    Some((_, step)) => step(&tx).map_err(|e| db_error(&path, e))?,
                    None => columns::added(columns::RECORD, columns::Store::Sqlite, version, MIGRATIONS.len(), "records"),
                },
            };
            tx.execute_batch(&sql).map_err(|e| db_error(&path, e))?;
            tx.pragma_update(None, "user_version", version).map_err(|e| db_error(&path, e))?;
        }
        // The records' cells' numbers, and the cells' index by them.
        if now < CELL_KEY_VERSION {
            cells::keyed(&tx).map_err(|e| db_error(&path, e))?;
        }
        // The cells, made (or made again with the work's sums, or by the rule that keeps every kind of work) from
        // the records, once every column is there.
        if now < RULE_VERSION {
            cells::rebuild(&tx).map_err(|e| db_error(&path, e))?;
        } else if now < ROLLUP_VERSION {
            rollup::recount(&tx, None).map_err(|e| db_error(&path, e))?;
        }
        tx.commit().map_err(|e| db_error(&path, e))
    }

    /// Appends lines in one transaction: all of them or none.
    fn write_all(&mut self, lines: &[Line]) -> Result<Vec<(i64, bool)>, Error> {
        let mut ids = Vec::with_capacity(lines.len());
        self.write_each(false, &mut |put| {
            for l in lines {
                ids.push(put(l)?);
            }
            Ok(())
        })?;
        Ok(ids)
    }

    /// One transaction: `feed` hands every line to the `put` it is given, which writes it (unless its key is
    /// stored) and answers its id and whether it is new. All of them are kept, or none. `distinct_keys`: the
    /// caller's lines have distinct keys (an importer's do), so a first write into an empty ledger makes the
    /// keys' index once at its end, as the others, rather than asking it at every line.
    fn write_each(&mut self, distinct_keys: bool, feed: &mut dyn FnMut(&mut Put) -> Result<(), Error>) -> Result<(), Error> {
        let path = self.path.clone();
        let db = |e: rusqlite::Error| db_error(&path, e);
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db)?;
        let were_current = cells::current(&tx).map_err(db)?;
        let before: i64 = tx.query_row("SELECT COALESCE(max(id), 0) FROM records", [], |r| r.get(0)).map_err(db)?;
        // The cells and runs of the records written, whose summaries are made again before the commit (in a first
        // write into an empty ledger, from the lines as written).
        let mut written = cells::CellsTouched::new(were_current && before == 0);
        let keys_aside = before == 0 && distinct_keys;
        let set_aside = if before == 0 { bulk::set_aside(&tx, keys_aside).map_err(db)? } else { Vec::new() };
        {
            // Without the keys' index, no key is stored yet and the lines' are distinct: every line is new.
            let on_conflict = if keys_aside { "" } else { "ON CONFLICT (idem_key) DO NOTHING" };
            let mut insert = Insert::new(on_conflict);
            let mut existing = tx.prepare_cached("SELECT id FROM records WHERE idem_key = ?1").map_err(db)?;
            let mut estimates = Estimates::new(&tx).map_err(db)?;
            let mut put = |l: &Line| -> Result<(i64, bool), Error> {
                let form = estimates.form(l).map_err(db)?;
                if insert.line(&tx, l, form).map_err(db)? == 0 {
                    // Stored before under this key: the same record, not a second one.
                    return Ok((existing.query_row([&l.key], |row| row.get(0)).map_err(db)?, false));
                }
                let id = tx.last_insert_rowid();
                if form.is_none() {
                    estimates.put(id, l).map_err(db)?;
                }
                written.add(id, l);
                Ok((id, true))
            };
            feed(&mut put)?;
        }
        let restored = |tx: &Connection| {
            bulk::restore(tx, &set_aside).map_err(|e| match e.sqlite_error_code() {
                Some(rusqlite::ErrorCode::ConstraintViolation) if keys_aside => {
                    Error::Failed(format!("{}: two records of one write have the same key ({e}); nothing was written", path.display()))
                }
                _ => db(e),
            })
        };
        // A first write's cells are counted from its lines on a thread of their own while SQLite makes the
        // indexes again: neither waits for the other, and the cells are stored once both are done.
        let ready = if written.counts_lines() {
            std::thread::scope(|s| {
                let counting = s.spawn(move || written.ready());
                let restored = restored(&tx);
                let ready = counting.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                restored.map(|()| ready)
            })?
        } else {
            restored(&tx)?;
            written.ready()
        };
        cells::after_write(&tx, were_current, ready, before).map_err(db)?;
        tx.commit().map_err(db)
    }

    fn read_lines(&self, after: i64, limit: usize) -> Result<Vec<(i64, Line)>, Error> {
        let db = |e: rusqlite::Error| db_error(&self.path, e);
        // One read transaction: the version and the rows from the same snapshot (a newer exa migrating meanwhile
        // cannot leave this reader running the old schema's query over the new schema's rows).
        let tx = self.conn.unchecked_transaction().map_err(db)?;
        let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(db)?;
        let (shapes, _) = shapes_join(version);
        let shape = if version >= SHAPES_VERSION { "s.shape, e.shape_id" } else { "NULL, NULL" };
        let record = columns::select(columns::Store::Sqlite, version, "r.");
        // From schema 10 a record keeps its estimate by a form or in record_estimates; before, always the latter.
        let (estimates, forms, form) = if version >= FORMS_VERSION {
            (
                "LEFT JOIN record_estimates e ON e.record_id = r.id",
                "LEFT JOIN estimate_forms f ON f.id = r.form_id LEFT JOIN estimate_shapes fs ON fs.id = f.shape_id",
                "r.form_id, r.figures, f.layout, f.shape_id, fs.shape",
            )
        } else {
            ("JOIN record_estimates e ON e.record_id = r.id", "", "NULL, NULL, NULL, NULL, NULL")
        };
        let mut stmt = tx
            .prepare(&format!(
                "SELECT r.id, {record}, e.estimate, {shape}, {form}
                 FROM records r {estimates} {shapes} {forms} WHERE r.id > ?1 ORDER BY r.id LIMIT ?2"
            ))
            .map_err(db)?;
        // Each form and its shape read once, shared by the lines of it (as a writer's are).
        let mut seen: FormsRead = std::collections::HashMap::new();
        let mut rows = stmt.query(params![after, i64::try_from(limit).unwrap_or(i64::MAX)]).map_err(db)?;
        let mut lines = Vec::new();
        while let Some(r) = rows.next().map_err(db)? {
            let mut l = line_read(r).map_err(db)?;
            l.estimate = estimate_read(r, &mut seen).map_err(db)?;
            lines.push((r.get(0).map_err(db)?, l.checked()));
        }
        drop(rows);
        drop(stmt);
        tx.commit().map_err(db)?;
        Ok(lines)
    }

    /// The connection, for reports.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// The schema version of the open database.
    pub(crate) fn version(&self) -> Result<i64, Error> {
        self.conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| db_error(&self.path, e))
    }
}

impl Ledger for Store {
    fn write(&mut self, lines: &[Line]) -> Result<Vec<(i64, bool)>, Error> {
        self.write_all(lines)
    }

    fn write_chunks(&mut self, chunks: &mut dyn Iterator<Item = Result<Vec<Line>, Error>>) -> Result<Vec<bool>, Error> {
        let mut fresh = Vec::new();
        let alone = bulk::alone(&self.conn, BUSY);
        let written = self.write_each(true, &mut |put| {
            for chunk in &mut *chunks {
                for l in chunk? {
                    fresh.push(put(&l)?.1);
                }
            }
            Ok(())
        });
        if alone {
            bulk::shared_again(&self.conn, BUSY);
        }
        written.map(|()| fresh)
    }

    fn stored_keys(&mut self, keys: &[String]) -> Result<Vec<bool>, Error> {
        let path = self.path.clone();
        let db = |e: rusqlite::Error| db_error(&path, e);
        // One read transaction for the batch: each lookup on its own would take and drop the WAL's
        // read lock (two fcntl calls) around a few microseconds of index search.
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Deferred).map_err(db)?;
        let found = {
            let mut stmt = tx.prepare_cached("SELECT 1 FROM records WHERE idem_key = ?1").map_err(db)?;
            keys.iter().map(|k| stmt.exists([k]).map_err(db)).collect::<Result<Vec<bool>, Error>>()?
        };
        tx.commit().map_err(db)?;
        Ok(found)
    }

    fn newest_imported(&mut self, prefix: &str, not_after: i64) -> Result<(Option<i64>, Option<i64>), Error> {
        // Walked newest first by the time index, each stopping at the first record of the importer's: the newest
        // records are an import's own, so this reads a few rows where a max() over the prefix read them all.
        self.conn
            .query_row(
                "SELECT (SELECT recorded_at FROM records INDEXED BY records_time
                          WHERE recorded_at <= ?2 AND substr(idem_key, 1, length(?1)) = ?1 ORDER BY recorded_at DESC LIMIT 1),
                        (SELECT recorded_at FROM records INDEXED BY records_time
                          WHERE substr(idem_key, 1, length(?1)) = ?1 ORDER BY recorded_at DESC LIMIT 1)",
                rusqlite::params![prefix, not_after],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| db_error(&self.path, e))
    }

    fn read(&mut self, after: i64, limit: usize) -> Result<Vec<(i64, Line)>, Error> {
        self.read_lines(after, limit)
    }

    fn schema_version(&mut self) -> Result<i64, Error> {
        self.version()
    }

    fn keeps_work(&mut self) -> Result<bool, Error> {
        Ok(self.version()? >= WORK_VERSION)
    }

    fn outbox_add(&mut self, record_id: i64, run_id: &str, payload: &str, error: &str) -> Result<(), Error> {
        self.conn
            .execute(
                "INSERT INTO mlflow_outbox (record_id, run_id, payload, created_at, last_error) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![record_id, run_id, payload, crate::time::now_unix(), error],
            )
            .map(|_| ())
            .map_err(|e| db_error(&self.path, e))
    }

    fn outbox_pending(&mut self, max_attempts: Option<i64>, limit: usize) -> Result<Vec<(i64, String)>, Error> {
        let db = |e: rusqlite::Error| db_error(&self.path, e);
        let mut stmt = self
            .conn
            .prepare("SELECT id, payload FROM mlflow_outbox WHERE sent_at IS NULL AND (?1 IS NULL OR attempts < ?1) ORDER BY id LIMIT ?2")
            .map_err(db)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt.query_map(params![max_attempts, limit], |r| Ok((r.get(0)?, r.get(1)?))).map_err(db)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(db)
    }

    fn outbox_mark(&mut self, id: i64, error: Option<&str>) -> Result<(), Error> {
        let done = match error {
            None => self
                .conn
                .execute("UPDATE mlflow_outbox SET sent_at = ?2, last_error = NULL WHERE id = ?1", params![id, crate::time::now_unix()]),
            Some(e) => self.conn.execute("UPDATE mlflow_outbox SET attempts = attempts + 1, last_error = ?2 WHERE id = ?1", params![id, e]),
        };
        done.map(|_| ()).map_err(|e| db_error(&self.path, e))
    }

    fn budget_change(&mut self, c: &crate::model::budget::Change) -> Result<(), Error> {
        self.conn
            .execute(
                "INSERT INTO budget_changes (name, changed_at, changed_by, budget) VALUES (?1, ?2, ?3, ?4)",
                params![c.name, c.at, c.by, c.budget],
            )
            .map(|_| ())
            .map_err(|e| db_error(&self.path, e))
    }

    fn budget_changes(&mut self) -> Result<Vec<crate::model::budget::Change>, Error> {
        if self.version()? < BUDGET_VERSION {
            return Ok(Vec::new());
        }
        let db = |e: rusqlite::Error| db_error(&self.path, e);
        let mut stmt = self.conn.prepare("SELECT name, changed_at, changed_by, budget FROM budget_changes ORDER BY id").map_err(db)?;
        let rows = stmt
            .query_map([], |r| Ok(crate::model::budget::Change { name: r.get(0)?, at: r.get(1)?, by: r.get(2)?, budget: r.get(3)? }))
            .map_err(db)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(db)
    }

    fn budget_event_add(&mut self, key: &str, payload: &str, at: i64, sent: bool) -> Result<bool, Error> {
        self.conn
            .execute(
                "INSERT INTO budget_events (event_key, created_at, payload, sent_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (event_key) DO NOTHING",
                params![key, at, payload, sent.then_some(at)],
            )
            .map(|n| n == 1)
            .map_err(|e| db_error(&self.path, e))
    }

    fn budget_events_pending(&mut self, destinations: &[&str], limit: usize) -> Result<Vec<(i64, String, String)>, Error> {
        let db = |e: rusqlite::Error| db_error(&self.path, e);
        let mut out = Vec::new();
        for d in destinations {
            // The keys that begin `d|`: from `d|` up to `d}` ('}' follows '|').
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT id, event_key, payload FROM budget_events WHERE sent_at IS NULL AND event_key >= ?1 AND event_key < ?2 \
                     ORDER BY id LIMIT ?3",
                )
                .map_err(db)?;
            let args = params![format!("{d}|"), format!("{d}}}"), i64::try_from(limit).unwrap_or(i64::MAX)];
            let rows = stmt.query_map(args, |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).map_err(db)?;
            out.extend(rows.collect::<Result<Vec<(i64, String, String)>, _>>().map_err(db)?);
        }
        out.sort_by_key(|(id, _, _)| *id);
        out.truncate(limit);
        Ok(out)
    }

    fn budget_event_claim(&mut self, id: i64, at: i64, stale_before: i64) -> Result<bool, Error> {
        self.conn
            .execute(
                "UPDATE budget_events SET claimed_at = ?2 WHERE id = ?1 AND sent_at IS NULL AND (claimed_at IS NULL OR claimed_at < ?3)",
                params![id, at, stale_before],
            )
            .map(|n| n == 1)
            .map_err(|e| db_error(&self.path, e))
    }

    fn budget_event_mark(&mut self, id: i64, error: Option<&str>, at: i64) -> Result<(), Error> {
        let done = match error {
            None => self.conn.execute("UPDATE budget_events SET sent_at = ?2, attempts = attempts + 1 WHERE id = ?1", params![id, at]),
            Some(e) => self.conn.execute(
                "UPDATE budget_events SET attempts = attempts + 1, last_error = ?2, claimed_at = NULL WHERE id = ?1",
                params![id, e],
            ),
        };
        done.map(|_| ()).map_err(|e| db_error(&self.path, e))
    }

    fn report(&mut self, by: super::report::By, filter: super::report::Filter) -> Result<super::report::Report, Error> {
        report::run(self, by, filter)
    }

    fn runs(&mut self, filter: &super::report::Filter) -> Result<Vec<super::charges::RunCharge>, Error> {
        charges::runs(self, filter)
    }

    fn location(&self) -> Location {
        Location(self.path.display().to_string())
    }
}
