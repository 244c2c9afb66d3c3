//! The PostgreSQL ledger's schema: its migrations, the summary cells and the functions that keep them.

use crate::store::columns;
use crate::store::rule::{sql, sql_from, Dialect, Summed};

/// Schema migrations, in order; entry N takes the database from version N to N + 1.
pub(super) const MIGRATIONS: &[&str] = &[
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
    // 8: the work a run did (tokens, requests, units of its own naming) and the figures beside CO2e (embodied
    // CO2e, water), on the records and summed in the cells; the cells' functions made again to keep them, and
    // the cells counted again with them (`work_schema`).
    "",
    // 9: the counting rule's measurement supersedes an estimate only where it holds every kind of work (GPU, CPU)
    // the estimate does: the cells' functions made again with the rule, and the cells counted again (`rule_schema`).
    "",
];

/// The schema version that has the report's summary cells.
pub(super) const CELLS_VERSION: i64 = 5;
/// The schema version whose batches count their cells at their end.
pub(super) const REFRESH_VERSION: i64 = 6;

/// The first schema version whose records' key constraint is named after it.
pub(super) const KEY_NAMED_VERSION: i64 = 7;

/// The schema version whose records keep their work, embodied CO2e and water, summed in the cells.
pub(crate) const WORK_VERSION: i64 = 8;

/// The schema version whose cells were counted by the rule that never lets a measurement drop a kind of work.
pub(crate) const RULE_VERSION: i64 = 9;

/// The schema version whose records have a pod's namespace and tags (`columns::RECORD`'s `k8s_namespace`, `tags`).
pub(crate) const K8S_VERSION: i64 = columns::since_of("tags")[columns::Store::Postgres as usize];

/// The records' work and the figures beside CO2e, as a reader of a schema at `version` selects them
/// (`r` the records' prefix): embodied CO2e, water, tokens, prompt tokens, requests, unit name, units; nulls
/// before the schema kept them.
pub(super) fn work_columns(version: i64, r: &str) -> String {
    if version >= WORK_VERSION {
        format!("{r}embodied_co2e_g, {r}water_l, {r}tokens, {r}prompt_tokens, {r}requests, {r}unit_name, {r}units")
    } else {
        "NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::text, NULL::float8".into()
    }
}

/// Which figures a schema's reports count.
pub(super) fn figures(version: i64) -> Summed {
    if version >= NODE_CELLS_VERSION {
        Summed::Node
    } else if version >= WORK_VERSION {
        Summed::Work
    } else {
        Summed::Base
    }
}

/// The SQL that takes the database to `version`: written out above, or made from the report's SQL; from
/// `KEY_NAMED_VERSION` on, each migration then names the records' key constraint after its version.
pub(super) fn migration(version: i64) -> String {
    let sql = match version {
        CELLS_VERSION => cells_schema(),
        REFRESH_VERSION => refresh_schema(Summed::Base),
        WORK_VERSION => work_schema(),
        RULE_VERSION => rule_schema(),
        BUDGET_VERSION => BUDGETS.to_string(),
        NODE_CELLS_VERSION => node_schema(),
        _ => match usize::try_from(version - 1).ok().and_then(|i| MIGRATIONS.get(i)) {
            Some(sql) => (*sql).to_string(),
            // A step past those written out: the columns `columns::RECORD` says it adds.
            None => columns::added(columns::RECORD, columns::Store::Postgres, version, MIGRATIONS.len(), "exa_records"),
        },
    };
    if version >= KEY_NAMED_VERSION {
        format!("{sql}\n{}", key_named(version))
    } else {
        sql
    }
}

/// The name of the records' key constraint (unique `idem_key`) at schema `version`.
pub(super) fn key_constraint(version: i64) -> String {
    format!("exa_records_key_v{version}")
}

/// Names the records' key constraint after `version` (and its index with it), whatever it was named before:
/// the schema's version in the catalog, where exa's INSERTs read it for nothing. They name it as their
/// `ON CONFLICT` arbiter, so a statement sent to a schema at any other version fails as it is parsed,
/// before it writes anything; a writer then reads `exa_meta`'s version and migrates or refuses.
pub(super) fn key_named(version: i64) -> String {
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
pub(super) fn cell_of(r: &str) -> String {
    cell_on(r, &format!("exa_day({r}recorded_at)"))
}

/// A record's cell with its UTC day given as SQL (`exa_day(…)`, or the day exa computed and sent).
pub(super) fn cell_on(r: &str, day: &str) -> String {
    format!("{r}model, {day}, COALESCE({r}job_user, '(none)'), COALESCE({r}job_account, '(none)'), COALESCE({r}job_partition, '(none)')")
}

/// The summary cells, as the SQLite ledger keeps them (`cells.rs`): per model, UTC day, user, account and
/// partition, what a report counts over its records. exa's own INSERT adds a run's first record to its cell
/// in the same statement (`exa_runs`, a unique key per run, says which record is first, even between
/// concurrent writers) and marks it `cells_kept`. Every other record (a run's later record, or one written
/// by SQL) goes to a trigger, which counts its cell again from its records, holding the run's key row and
/// the cell's row locked; runs whose records fall in two cells are kept out of every cell, and reports read them. The trigger
/// does not fire for exa's common case (its WHEN), so a record pays no PL/pgSQL start-up in a new backend.
pub(super) fn cells_schema() -> String {
    format!("{CELLS_TABLES}\n{}\n{CELLS_START}", cells_functions(Summed::Base))
}

/// The cells' new columns (after the base ones, in this order), summed as the report's SQL sums them.
const WORK_CELLS: [&str; 5] = ["embodied_co2e_g", "water_l", "tokens", "prompt_tokens", "requests"];

/// Migration 8: the records' and the cells' new columns (where a hand-made downgrade left them, kept), every
/// cell function made again to keep them, and the cells counted again.
pub(super) fn work_schema() -> String {
    format!(
        "ALTER TABLE exa_records ADD COLUMN IF NOT EXISTS embodied_co2e_g float8, ADD COLUMN IF NOT EXISTS water_l float8,
            ADD COLUMN IF NOT EXISTS tokens float8, ADD COLUMN IF NOT EXISTS prompt_tokens float8, ADD COLUMN IF NOT EXISTS requests float8,
            ADD COLUMN IF NOT EXISTS unit_name text, ADD COLUMN IF NOT EXISTS units float8;
ALTER TABLE exa_report_cells ADD COLUMN IF NOT EXISTS embodied_co2e_g float8, ADD COLUMN IF NOT EXISTS water_l float8,
            ADD COLUMN IF NOT EXISTS tokens float8, ADD COLUMN IF NOT EXISTS prompt_tokens float8, ADD COLUMN IF NOT EXISTS requests float8;
{}
{}
SELECT exa_cells_rebuild();",
        cells_functions(Summed::Work),
        refresh_schema(Summed::Work)
    )
}

/// The cells' columns for the node's figures, after `WORK_CELLS`.
const NODE_CELLS: [&str; 2] = ["node_kwh", "node_rest_kwh"];

/// The schema version whose records keep the job's part of its node's platform energy (`columns::RECORD`'s
/// `node_kwh`, `node_rest_kwh`).
pub(crate) const NODE_VERSION: i64 = columns::since_of("node_kwh")[columns::Store::Postgres as usize];

/// The schema version whose cells sum the node's figures (`node_schema`).
pub(crate) const NODE_CELLS_VERSION: i64 = NODE_VERSION + 1;

/// The cells' columns for the node's figures, and every cell function made again to keep them. No record had the
/// figures before `NODE_VERSION`, so the cells are right with the new columns NULL, and are not counted again.
fn node_schema() -> String {
    format!(
        "ALTER TABLE exa_report_cells ADD COLUMN IF NOT EXISTS node_kwh float8, ADD COLUMN IF NOT EXISTS node_rest_kwh float8;
{}
{}",
        cells_functions(Summed::Node),
        refresh_schema(Summed::Node)
    )
}

/// Migration 9: every cell function made again with the counting rule as it is now, and the cells counted again.
pub(super) fn rule_schema() -> String {
    format!("{}\n{}\nSELECT exa_cells_rebuild();", cells_functions(Summed::Work), refresh_schema(Summed::Work))
}

/// The pieces of the cells' SQL that name the figures beyond the base ones: the report's extra columns'
/// aliases (`q(…)`), the cells' columns set from them, and the cells' columns selected.
struct WorkSql {
    aliases: String,
    set: String,
    select: String,
}

fn work_sql(f: Summed) -> WorkSql {
    let node: &[&str] = if f.node() { &NODE_CELLS } else { &[] };
    let cells: Vec<&str> = if f == Summed::Base { Vec::new() } else { WORK_CELLS.iter().chain(node).copied().collect() };
    WorkSql {
        aliases: f.extra().iter().map(|c| format!(", {c}")).collect(),
        set: cells.iter().map(|c| format!(", {c} = q.{c}")).collect(),
        select: cells.iter().map(|c| format!(", {c}")).collect(),
    }
}

/// The cells' functions, counting `f`'s figures.
fn cells_functions(f: Summed) -> String {
    let cell = "model = _model AND recorded_at >= _day * 86400 AND recorded_at < (_day + 1) * 86400 \
                AND COALESCE(job_user, '(none)') = _user AND COALESCE(job_account, '(none)') = _account \
                AND COALESCE(job_partition, '(none)') = _partition AND (run_id IS NULL OR run_id NOT IN (SELECT run_id FROM exa_split_runs))";
    let recount = sql(Dialect::Postgres, f, "'cell'", &format!("WHERE {cell}"));
    // Every cell at once, each keyed by its five values as a JSON array (text any value survives).
    let every_cell = sql(
        Dialect::Postgres,
        f,
        &format!("json_build_array({})::text", cell_of("")),
        "WHERE run_id IS NULL OR run_id NOT IN (SELECT run_id FROM exa_split_runs)",
    );
    let (new_cell, rec_cell) = (cell_of("NEW."), cell_of(""));
    let named = "model, exa_day(recorded_at) AS day, COALESCE(job_user, '(none)') AS u, COALESCE(job_account, '(none)') AS a, \
                 COALESCE(job_partition, '(none)') AS p";
    let w = work_sql(f);
    CELLS_FUNCTIONS
        .replace("{q_work}", &w.aliases)
        .replace("{set_work}", &w.set)
        .replace("{select_work}", &w.select)
        .replace("{recount}", &recount)
        .replace("{every_cell}", &every_cell)
        .replace("{rec_cell}", &rec_cell)
        .replace("{new_cell}", &new_cell)
        .replace("{named}", named)
        .replace("{add_new}", &add_to_cell(f, "NEW.", "exa_day(NEW.recorded_at)", "(VALUES (0)) AS one", ""))
}

/// Adds one record (its columns prefixed `r`, read from `from` where `filter`; its UTC day the SQL `day`)
/// to its cell as a run's only record counts. The upsert locks the cell's row, as a recount of the cell
/// does (`exa_cell_recount`). Its numbers are typed as the columns are (`0::float8`), so a new backend
/// parses it without searching the catalog for an operator that takes an integer and a float.
pub(super) fn add_to_cell(f: Summed, r: &str, day: &str, from: &str, filter: &str) -> String {
    let carbon = format!("{r}domain = 'carbon'");
    let node: &[&str] = if f.node() { &NODE_CELLS } else { &[] };
    let (values, set) = if f != Summed::Base {
        (
            format!(", CASE WHEN {carbon} THEN {r}embodied_co2e_g END, CASE WHEN {carbon} THEN {r}water_l END, {r}tokens, {r}prompt_tokens, {r}requests")
                + &node.iter().map(|c| format!(", CASE WHEN {carbon} THEN {r}{c} END")).collect::<String>(),
            WORK_CELLS.iter().chain(node).map(|c| format!(",\n        {c} = CASE WHEN EXCLUDED.{c} IS NULL THEN x.{c} ELSE COALESCE(x.{c}, 0::float8) + EXCLUDED.{c} END")).collect(),
        )
    } else {
        (String::new(), String::new())
    };
    format!(
        "INSERT INTO exa_report_cells AS x
        SELECT {cell}, 1, {r}measured::int, ({carbon})::int, (NOT ({carbon}))::int, 0, {r}gpu_hours, {r}cpu_hours,
               CASE WHEN {carbon} THEN {r}kwh END, CASE WHEN {carbon} THEN {r}co2e_g END,
               CASE WHEN {carbon} THEN {r}co2e_g * (1::float8 - {r}uncertainty) END, CASE WHEN {carbon} THEN {r}co2e_g * (1::float8 + {r}uncertainty) END,
               {carbon} AND {r}co2e_g IS NOT NULL AND {r}uncertainty IS NULL, CASE WHEN NOT ({carbon}) THEN {r}cost_usd END, NULL{values}
        FROM {from} {filter}
        ON CONFLICT (model, day, job_user, job_account, job_partition) DO UPDATE SET
        runs = x.runs + 1, runs_measured = x.runs_measured + EXCLUDED.runs_measured, carbon = x.carbon + EXCLUDED.carbon,
        cost = x.cost + EXCLUDED.cost, gpu_hours = x.gpu_hours + EXCLUDED.gpu_hours, cpu_hours = x.cpu_hours + EXCLUDED.cpu_hours,
        kwh = CASE WHEN EXCLUDED.kwh IS NULL THEN x.kwh ELSE COALESCE(x.kwh, 0::float8) + EXCLUDED.kwh END,
        co2e_g = CASE WHEN EXCLUDED.co2e_g IS NULL THEN x.co2e_g ELSE COALESCE(x.co2e_g, 0::float8) + EXCLUDED.co2e_g END,
        co2e_low = CASE WHEN EXCLUDED.co2e_low IS NULL THEN x.co2e_low ELSE COALESCE(x.co2e_low, 0::float8) + EXCLUDED.co2e_low END,
        co2e_high = CASE WHEN EXCLUDED.co2e_high IS NULL THEN x.co2e_high ELSE COALESCE(x.co2e_high, 0::float8) + EXCLUDED.co2e_high END,
        unknown_uncertainty = x.unknown_uncertainty OR EXCLUDED.unknown_uncertainty,
        cost_usd = CASE WHEN EXCLUDED.cost_usd IS NULL THEN x.cost_usd ELSE COALESCE(x.cost_usd, 0::float8) + EXCLUDED.cost_usd END{set}",
        cell = cell_on(r, day)
    )
}

/// The cells' tables.
const CELLS_TABLES: &str = r"
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
";

/// The cells' trigger, and every cell made from the records already stored.
const CELLS_START: &str = r"
CREATE TRIGGER exa_records_cells AFTER INSERT ON exa_records FOR EACH ROW WHEN (NOT NEW.cells_kept) EXECUTE FUNCTION exa_cells_on_insert();
SELECT exa_cells_rebuild();
";

/// The cells' functions; `cells_functions` fills in the SQL between braces.
const CELLS_FUNCTIONS: &str = r"
CREATE OR REPLACE FUNCTION exa_cell_recount(_model text, _day bigint, _user text, _account text, _partition text) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
    -- The cell's row, there to be locked (a writer adding to it, or counting it, waits for this one's commit).
    INSERT INTO exa_report_cells VALUES (_model, _day, _user, _account, _partition, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, false, NULL, NULL)
        ON CONFLICT DO NOTHING;
    PERFORM 1 FROM exa_report_cells
        WHERE model = _model AND day = _day AND job_user = _user AND job_account = _account AND job_partition = _partition FOR UPDATE;
    -- Counted in a statement begun after the lock: it sees every record of the cell whose writer committed.
    UPDATE exa_report_cells AS x SET runs = q.runs, runs_measured = q.runs_measured, carbon = q.carbon, cost = q.cost,
            not_counted = q.not_counted, gpu_hours = q.gpu_hours, cpu_hours = q.cpu_hours, kwh = q.kwh, co2e_g = q.co2e_g,
            co2e_low = q.co2e_low, co2e_high = q.co2e_high, unknown_uncertainty = q.unknown_uncertainty, cost_usd = q.cost_usd, notes = q.notes{set_work}
        FROM ({recount}) AS q(g, runs, runs_measured, carbon, cost, not_counted, gpu_hours, cpu_hours, kwh, co2e_g, co2e_low, co2e_high,
                              unknown_uncertainty, cost_usd, notes{q_work})
        WHERE x.model = _model AND x.day = _day AND x.job_user = _user AND x.job_account = _account AND x.job_partition = _partition;
    IF NOT FOUND THEN
        -- No run left in the cell (its runs were split out).
        DELETE FROM exa_report_cells
            WHERE model = _model AND day = _day AND job_user = _user AND job_account = _account AND job_partition = _partition;
    END IF;
END $fn$;
CREATE OR REPLACE FUNCTION exa_cells_on_insert() RETURNS trigger LANGUAGE plpgsql AS $fn$
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
CREATE OR REPLACE FUNCTION exa_cells_rebuild() RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
    DELETE FROM exa_report_cells;
    DELETE FROM exa_split_runs;
    INSERT INTO exa_runs SELECT DISTINCT run_id FROM exa_records WHERE run_id IS NOT NULL ON CONFLICT DO NOTHING;
    INSERT INTO exa_split_runs SELECT run_id FROM exa_records WHERE run_id IS NOT NULL GROUP BY run_id HAVING count(DISTINCT ({rec_cell})) > 1;
    INSERT INTO exa_report_cells
        SELECT g::json->>0, (g::json->>1)::bigint, g::json->>2, g::json->>3, g::json->>4, runs, runs_measured, carbon, cost, not_counted,
               gpu_hours, cpu_hours, kwh, co2e_g, co2e_low, co2e_high, unknown_uncertainty, cost_usd, notes{select_work}
        FROM ({every_cell}) AS q(g, runs, runs_measured, carbon, cost, not_counted, gpu_hours, cpu_hours, kwh, co2e_g, co2e_low, co2e_high,
                                 unknown_uncertainty, cost_usd, notes{q_work});
END $fn$;
";

/// A batch's cells, counted once at its end instead of at each record (`exa_cells_refresh`): a batch (an
/// import, a copy) writes its records uncounted (`INSERT_MANY`, marked `cells_kept`), then hands its
/// runs and cells to this function in the same transaction. It locks the runs' key rows, splits out runs
/// whose records now fall in two cells (adding their other cells), locks every cell's row, in order, and
/// counts the cells again with the report's SQL in a statement begun after the locks, as `exa_cell_recount`
/// does for one cell.
pub(super) fn refresh_schema(f: Summed) -> String {
    let rec_cell = cell_of("");
    // The records of the cells in `todo` (each a JSON array of its five values), found by the cells' index.
    let source = "unnest(todo) AS k CROSS JOIN LATERAL (
            SELECT x.* FROM exa_records x WHERE x.model = k::json->>0 AND COALESCE(x.job_user, '(none)') = k::json->>2
                AND COALESCE(x.job_account, '(none)') = k::json->>3 AND COALESCE(x.job_partition, '(none)') = k::json->>4
                AND x.recorded_at >= (k::json->>1)::bigint * 86400 AND x.recorded_at < ((k::json->>1)::bigint + 1) * 86400) AS r";
    let recount = sql_from(
        Dialect::Postgres,
        f,
        &format!("json_build_array({rec_cell})::text"),
        "exa_refresh_records AS exa_records",
        "WHERE run_id IS NULL OR run_id NOT IN (SELECT run_id FROM exa_split_runs)",
    );
    let at = "x.model = k::json->>0 AND x.day = (k::json->>1)::bigint AND x.job_user = k::json->>2 \
              AND x.job_account = k::json->>3 AND x.job_partition = k::json->>4";
    let w = work_sql(f);
    REFRESH_SCHEMA
        .replace("{q_work}", &w.aliases)
        .replace("{set_work}", &w.set)
        .replace("{source}", source)
        .replace("{rec_cell}", &rec_cell)
        .replace("{recount}", &recount)
        .replace("{at_q}", &at.replace("k::json", "q.g::json"))
        .replace("{at}", at)
}

/// The batch's count of its cells; `refresh_schema` fills in the SQL between braces.
pub(super) const REFRESH_SCHEMA: &str = r"
CREATE OR REPLACE FUNCTION exa_cells_refresh(_runs text[], _m text[], _d bigint[], _u text[], _a text[], _p text[]) RETURNS void LANGUAGE plpgsql AS $fn$
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
            unknown_uncertainty, cost_usd, notes{q_work}) AS ({recount}),
    u AS (
        UPDATE exa_report_cells AS x SET runs = q.runs, runs_measured = q.runs_measured, carbon = q.carbon, cost = q.cost,
            not_counted = q.not_counted, gpu_hours = q.gpu_hours, cpu_hours = q.cpu_hours, kwh = q.kwh, co2e_g = q.co2e_g,
            co2e_low = q.co2e_low, co2e_high = q.co2e_high, unknown_uncertainty = q.unknown_uncertainty, cost_usd = q.cost_usd, notes = q.notes{set_work}
        FROM q WHERE {at_q}
        RETURNING q.g)
    SELECT array_agg(g) INTO counted FROM u;
    -- A cell with no run left (its runs split out) is gone.
    DELETE FROM exa_report_cells x USING unnest(todo) AS k WHERE {at} AND k <> ALL (COALESCE(counted, '{}'));
END $fn$;
";

/// The schema version that keeps the budgets' changes (`BUDGETS`). No column of `columns::RECORD` may name it: a
/// step is a table or columns, never both.
pub(crate) const BUDGET_VERSION: i64 = 11;

/// The budgets' changes: each a budget set (its JSON) or removed (NULL), by whom and when; appended, never changed.
const BUDGETS: &str = r"
CREATE TABLE IF NOT EXISTS exa_budget_changes (
    id          bigserial PRIMARY KEY,
    name        text   NOT NULL,
    changed_at  bigint NOT NULL,
    changed_by  text   NOT NULL,
    budget      text
);
DROP TRIGGER IF EXISTS exa_budget_changes_no_change ON exa_budget_changes;
CREATE TRIGGER exa_budget_changes_no_change BEFORE UPDATE OR DELETE ON exa_budget_changes FOR EACH ROW EXECUTE FUNCTION exa_append_only();
DROP TRIGGER IF EXISTS exa_budget_changes_no_truncate ON exa_budget_changes;
CREATE TRIGGER exa_budget_changes_no_truncate BEFORE TRUNCATE ON exa_budget_changes FOR EACH STATEMENT EXECUTE FUNCTION exa_append_only();
CREATE TABLE IF NOT EXISTS exa_budget_events (
    id          bigserial PRIMARY KEY,
    event_key   text    NOT NULL UNIQUE,
    created_at  bigint  NOT NULL,
    payload     text    NOT NULL,
    attempts    integer NOT NULL DEFAULT 0,
    last_error  text,
    claimed_at  bigint,
    sent_at     bigint
);
";

// A step is a table or columns, never both (as in SQLite's).
const _: () = assert!(!columns::names_version(columns::RECORD, columns::Store::Postgres, BUDGET_VERSION));
const _: () = assert!(!columns::names_version(columns::RECORD, columns::Store::Postgres, NODE_CELLS_VERSION));
const _: () = assert!(NODE_VERSION > BUDGET_VERSION);
const _: () = assert!((MIGRATIONS.len() as i64) < BUDGET_VERSION);

/// The schema version this exa writes.
pub const SCHEMA_VERSION: i64 = {
    let columns = columns::newest(columns::RECORD, columns::Store::Postgres, MIGRATIONS.len());
    if columns > NODE_CELLS_VERSION {
        columns
    } else {
        NODE_CELLS_VERSION
    }
};
