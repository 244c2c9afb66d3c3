//! Writing records to PostgreSQL: one statement per batch of lines, the cells touched counted after.

use super::schema::{add_to_cell, key_constraint, SCHEMA_VERSION};
use super::wire::{Exec, WireError};
use crate::store::report::{self as model, Cell};
use crate::store::rule::Figures;
use crate::store::Line;

/// One record into both tables at once (a data-modifying CTE); its id when it is new. A run's first record
/// (its key new in `exa_runs`), or one without a run, is added to its cell in the same statement and marked
/// `cells_kept`; any other goes to the cells' trigger. Only at this exa's schema version: its arbiter is the
/// key constraint named after it (`key_named`), so at any other the statement fails before it writes. A
/// record whose key is stored already comes back as no row (`write_line_id` reads its id): a new backend's
/// first statement then plans no lookup by key, which only a retry needs, and reads no version row. The
/// record's UTC day (`$25`, for its cell) is exa's, as `exa_day` would make it: the statement calls no SQL
/// function, whose body a new backend parses.
pub(super) static INSERT: std::sync::LazyLock<String> = std::sync::LazyLock::new(insert_sql);

/// The columns exa writes to a record, in the order of `INSERT`'s and `INSERT_MANY`'s parameters (less the
/// estimate, `$21`, which goes to `exa_estimates`).
pub(super) const COLUMNS: &str =
    "idem_key, model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest, gpu_hours, \
                       cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, duration_s, device_count, measured_kwh, part, job_user, \
                       job_account, job_partition, embodied_co2e_g, water_l, tokens, prompt_tokens, requests, unit_name, units";

/// The SQL of `INSERT`.
pub(super) fn insert_sql() -> String {
    format!(
        "WITH run AS (INSERT INTO exa_runs (run_id) SELECT $3 WHERE $3 IS NOT NULL ON CONFLICT DO NOTHING RETURNING run_id),
    ins AS (
        INSERT INTO exa_records ({COLUMNS}, cells_kept)
        SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $22, $23, $24,
               $26, $27, $28, $29, $30, $31, $32, $3 IS NULL OR EXISTS (SELECT 1 FROM run)
        ON CONFLICT ON CONSTRAINT {key} DO NOTHING RETURNING *),
    est AS (INSERT INTO exa_estimates (record_id, estimate) SELECT id, $21 FROM ins),
    cell AS ({add})
    SELECT id FROM ins",
        key = key_constraint(SCHEMA_VERSION),
        add = add_to_cell(Figures::Work, "n.", "$25", "ins AS n", "WHERE n.cells_kept")
    )
}

/// Many records in one statement, for a batch: each column an array, the records inserted in order; their
/// cells untouched and each marked `cells_kept` (no trigger), no run key made: the batch counts its cells
/// at its end (`exa_cells_refresh`). Per record its place in the arrays and its id, none when its key was
/// stored already. Only at this exa's schema version, as `INSERT`.
pub(super) static INSERT_MANY: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "WITH l AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                               $10::float8[], $11::float8[], $12::float8[], $13::float8[], $14::float8[], $15::float8[], $16::bool[],
                               $17::float8[], $18::int4[], $19::float8[], $20::bool[], $21::jsonb[], $22::text[], $23::text[], $24::text[],
                               $25::float8[], $26::float8[], $27::float8[], $28::float8[], $29::float8[], $30::text[], $31::float8[])
          WITH ORDINALITY AS l (idem_key, model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest, gpu_hours,
                                cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, duration_s, device_count, measured_kwh, part,
                                estimate, job_user, job_account, job_partition, embodied_co2e_g, water_l, tokens, prompt_tokens, requests,
                                unit_name, units, n)),
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
pub(super) const MANY: usize = 1_000;

/// A written line: its id (none when its key was stored already) and whether it is new.
pub(super) type Written = (Option<i64>, bool);

/// Writes lines with `INSERT_MANY`, `MANY` at a time, in the caller's transaction, noting the new ones in
/// `touched`: per line its id (none when its key was stored before the batch) and whether it is new (a key
/// twice in the batch: its first line).
pub(super) fn write_many<C: Exec>(c: &mut C, lines: &[Line], touched: &mut Touched) -> Result<Vec<Written>, WireError> {
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
        let estimate: Vec<JsonText> = part.iter().map(|l| JsonText(l.estimate_or_null())).collect();
        let (user, account, partition) =
            (text(|l| l.labels.user.as_deref()), text(|l| l.labels.account.as_deref()), text(|l| l.labels.partition.as_deref()));
        let (embodied, water) = (float(|l| l.embodied_co2e_g), float(|l| l.water_l));
        let (tokens, prompt, requests) = (float(|l| l.work.tokens), float(|l| l.work.prompt_tokens), float(|l| l.work.requests));
        let (unit, units) = (text(|l| l.work.unit.as_ref().map(|u| u.0.as_str())), float(|l| l.work.unit.as_ref().map(|u| u.1)));
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
                (&embodied, Type::FLOAT8_ARRAY),
                (&water, Type::FLOAT8_ARRAY),
                (&tokens, Type::FLOAT8_ARRAY),
                (&prompt, Type::FLOAT8_ARRAY),
                (&requests, Type::FLOAT8_ARRAY),
                (&unit, Type::TEXT_ARRAY),
                (&units, Type::FLOAT8_ARRAY),
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
pub(super) fn write_line<C: Exec>(c: &mut C, l: &Line) -> Result<Option<i64>, WireError> {
    use tokio_postgres::types::Type;
    let count = l.device_count.map(|d| i32::try_from(d).unwrap_or(i32::MAX));
    let row = c.query_typed_opt(
        &INSERT,
        &[
            (&l.key, Type::TEXT),
            (&l.model.as_str(), Type::TEXT),
            (&l.run_id.as_deref(), Type::TEXT),
            (&l.recorded_at, Type::INT8),
            (&l.host.as_str(), Type::TEXT),
            (&l.domain.as_str(), Type::TEXT),
            (&l.provider.as_str(), Type::TEXT),
            (&l.provider_kind.as_str(), Type::TEXT),
            (&l.provider_digest.as_str(), Type::TEXT),
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
            (&JsonText(l.estimate_or_null()), Type::JSONB),
            (&l.labels.user.as_deref(), Type::TEXT),
            (&l.labels.account.as_deref(), Type::TEXT),
            (&l.labels.partition.as_deref(), Type::TEXT),
            (&l.recorded_at.div_euclid(model::DAY), Type::INT8),
            (&l.embodied_co2e_g, Type::FLOAT8),
            (&l.water_l, Type::FLOAT8),
            (&l.work.tokens, Type::FLOAT8),
            (&l.work.prompt_tokens, Type::FLOAT8),
            (&l.work.requests, Type::FLOAT8),
            (&l.work.unit.as_ref().map(|u| u.0.as_str()), Type::TEXT),
            (&l.work.unit.as_ref().map(|u| u.1), Type::FLOAT8),
        ],
    )?;
    Ok(row.map(|r| r.get(0)))
}

/// `write_line`, with the id of a record whose key was stored already (a retry of a record whose first
/// write committed) read.
pub(super) fn write_line_id<C: Exec>(c: &mut C, l: &Line) -> Result<(i64, bool), WireError> {
    Ok(match write_line(c, l)? {
        Some(id) => (id, true),
        None => (c.query_one("SELECT id FROM exa_records WHERE idem_key = $1", &[&l.key])?.get(0), false),
    })
}

/// The runs and cells of a batch's new records, counted once at the batch's end (`exa_cells_refresh`).
#[derive(Default)]
pub(super) struct Touched {
    runs: std::collections::BTreeSet<String>,
    cells: std::collections::BTreeSet<Cell>,
}

impl Touched {
    fn add(&mut self, l: &Line) {
        if let Some(run) = &l.run_id {
            self.runs.insert(run.to_string());
        }
        self.cells.insert(Cell::of(l));
    }

    /// Counts the cells again, in the batch's transaction.
    pub(super) fn count<C: Exec>(self, c: &mut C) -> Result<(), WireError> {
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

/// JSON text already serialised, sent as json or jsonb without being parsed and written again.
#[derive(Debug)]
pub(super) struct JsonText<'a>(std::borrow::Cow<'a, str>);

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
