//! Writing records to PostgreSQL: one statement per batch of lines, the cells touched counted after.

use super::schema::{add_to_cell, key_constraint, SCHEMA_VERSION};
use super::wire::{Exec, WireError};
use crate::store::report::{self as model, Cell};
use crate::store::rule::Summed;
use crate::store::{columns, Line};
use tokio_postgres::types::{IsNull, ToSql, Type};

/// One record into both tables at once (a data-modifying CTE); its id when it is new. A run's first record
/// (its key new in `exa_runs`), or one without a run, is added to its cell in the same statement and marked
/// `cells_kept`; any other goes to the cells' trigger. Only at this exa's schema version: its arbiter is the
/// key constraint named after it (`key_named`), so at any other the statement fails before it writes. A
/// record whose key is stored already comes back as no row (`write_line_id` reads its id): a new backend's
/// first statement then plans no lookup by key, which only a retry needs, and reads no version row. The
/// record's UTC day (`$25`, for its cell) is exa's, as `exa_day` would make it: the statement calls no SQL
/// function, whose body a new backend parses.
pub(super) static INSERT: std::sync::LazyLock<String> = std::sync::LazyLock::new(insert_sql);

/// The parameter after the record's columns that holds its estimate (which goes to `exa_estimates`), and the one
/// after it that holds its UTC day (`INSERT`'s, for its cell).
const ESTIMATE: usize = columns::RECORD.len() + 1;
const DAY: usize = columns::RECORD.len() + 2;

/// The SQL of `INSERT`: the columns of `columns::RECORD` as `$1`… in its order, then the estimate and the day.
pub(super) fn insert_sql() -> String {
    let names = columns::names();
    let params = (1..=columns::RECORD.len()).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ");
    let run = columns::at("run_id") + 1;
    format!(
        "WITH run AS (INSERT INTO exa_runs (run_id) SELECT ${run} WHERE ${run} IS NOT NULL ON CONFLICT DO NOTHING RETURNING run_id),
    ins AS (
        INSERT INTO exa_records ({names}, cells_kept)
        SELECT {params}, ${run} IS NULL OR EXISTS (SELECT 1 FROM run)
        ON CONFLICT ON CONSTRAINT {key} DO NOTHING RETURNING *),
    est AS (INSERT INTO exa_estimates (record_id, estimate) SELECT id, ${ESTIMATE} FROM ins),
    cell AS ({add})
    SELECT id FROM ins",
        key = key_constraint(SCHEMA_VERSION),
        add = add_to_cell(Summed::Node, "n.", &format!("${DAY}"), "ins AS n", "WHERE n.cells_kept")
    )
}

/// Many records in one statement, for a batch: each column an array, the records inserted in order; their
/// cells untouched and each marked `cells_kept` (no trigger), no run key made: the batch counts its cells
/// at its end (`exa_cells_refresh`). Per record its place in the arrays and its id, none when its key was
/// stored already. Only at this exa's schema version, as `INSERT`.
pub(super) static INSERT_MANY: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    let names = columns::names();
    let arrays = columns::RECORD.iter().enumerate().map(|(i, c)| format!("${}::{}[]", i + 1, c.kind.postgres())).collect::<Vec<_>>();
    format!(
        "WITH l AS (SELECT * FROM unnest({arrays}, ${ESTIMATE}::jsonb[]) WITH ORDINALITY AS l ({names}, estimate, n)),
    ins AS (
        INSERT INTO exa_records ({names}, cells_kept)
        SELECT {names}, true FROM l ORDER BY n
        ON CONFLICT ON CONSTRAINT {key} DO NOTHING RETURNING id, idem_key),
    est AS (INSERT INTO exa_estimates (record_id, estimate)
            SELECT DISTINCT ON (ins.id) ins.id, l.estimate FROM ins JOIN l USING (idem_key) ORDER BY ins.id, l.n)
    SELECT l.n, ins.id FROM l LEFT JOIN ins USING (idem_key)",
        arrays = arrays.join(", "),
        key = key_constraint(SCHEMA_VERSION)
    )
});

/// A column's value as PostgreSQL binds it, of the column's type.
#[derive(Debug)]
struct Param<'a>(columns::Value<'a>, columns::Kind);

impl ToSql for Param<'_> {
    fn to_sql(&self, ty: &Type, out: &mut bytes::BytesMut) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        use columns::Value;
        match (self.0, self.1) {
            (Value::Null, _) => Ok(IsNull::Yes),
            (Value::Text(t), _) => t.to_sql(ty, out),
            (Value::Real(x), _) => x.to_sql(ty, out),
            (Value::Int(i), columns::Kind::Int4) => int4(i).to_sql(ty, out),
            (Value::Int(i), _) => i.to_sql(ty, out),
            (Value::Flag(b), _) => b.to_sql(ty, out),
        }
    }

    fn accepts(ty: &Type) -> bool {
        [Type::TEXT, Type::FLOAT8, Type::INT4, Type::INT8, Type::BOOL].contains(ty)
    }

    tokio_postgres::types::to_sql_checked!();
}

/// A whole number as a 32-bit column keeps it, at its bounds where it is beyond them.
fn int4(i: i64) -> i32 {
    i32::try_from(i).unwrap_or(if i < 0 { i32::MIN } else { i32::MAX })
}

/// A column's type, and its array's.
fn types(kind: columns::Kind) -> (Type, Type) {
    match kind {
        columns::Kind::Word | columns::Kind::Text => (Type::TEXT, Type::TEXT_ARRAY),
        columns::Kind::Real => (Type::FLOAT8, Type::FLOAT8_ARRAY),
        columns::Kind::Int4 => (Type::INT4, Type::INT4_ARRAY),
        columns::Kind::Int8 => (Type::INT8, Type::INT8_ARRAY),
        columns::Kind::Flag => (Type::BOOL, Type::BOOL_ARRAY),
    }
}

/// One column of many lines, as an array of its type.
fn array<'l>(c: &columns::Column, lines: &'l [Line]) -> Box<dyn ToSql + Sync + 'l> {
    use columns::Value;
    let values = lines.iter().map(|l| (c.get)(l));
    match c.kind {
        columns::Kind::Word | columns::Kind::Text => {
            Box::new(values.map(|v| if let Value::Text(t) = v { Some(t) } else { None }).collect::<Vec<_>>())
        }
        columns::Kind::Real => Box::new(values.map(|v| if let Value::Real(x) = v { Some(x) } else { None }).collect::<Vec<_>>()),
        columns::Kind::Int4 => Box::new(values.map(|v| if let Value::Int(i) = v { Some(int4(i)) } else { None }).collect::<Vec<_>>()),
        columns::Kind::Int8 => Box::new(values.map(|v| if let Value::Int(i) = v { Some(i) } else { None }).collect::<Vec<_>>()),
        columns::Kind::Flag => Box::new(values.map(|v| if let Value::Flag(b) = v { Some(b) } else { None }).collect::<Vec<_>>()),
    }
}

/// Records in one statement each time.
pub(super) const MANY: usize = 1_000;

/// A written line: its id (none when its key was stored already) and whether it is new.
pub(super) type LineWritten = (Option<i64>, bool);

/// Writes lines with `INSERT_MANY`, `MANY` at a time, in the caller's transaction, noting the new ones in
/// `touched`: per line its id (none when its key was stored before the batch) and whether it is new (a key
/// twice in the batch: its first line).
pub(super) fn write_many<C: Exec>(c: &mut C, lines: &[Line], touched: &mut Touched) -> Result<Vec<LineWritten>, WireError> {
    let mut out = Vec::with_capacity(lines.len());
    let mut seen: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
    for part in lines.chunks(MANY) {
        let arrays: Vec<Box<dyn ToSql + Sync>> = columns::RECORD.iter().map(|c| array(c, part)).collect();
        let estimate: Vec<JsonText> = part.iter().map(|l| JsonText(l.estimate_or_null())).collect();
        let mut params: Vec<(&(dyn ToSql + Sync), Type)> =
            arrays.iter().zip(columns::RECORD).map(|(a, c)| (a.as_ref() as &(dyn ToSql + Sync), types(c.kind).1)).collect();
        params.push((&estimate, Type::JSONB_ARRAY));
        let rows = c.query_typed(&INSERT_MANY, &params)?;
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
    let values: Vec<Param> = columns::RECORD.iter().map(|c| Param((c.get)(l), c.kind)).collect();
    let (estimate, day) = (JsonText(l.estimate_or_null()), l.recorded_at.div_euclid(model::DAY));
    let mut params: Vec<(&(dyn ToSql + Sync), Type)> =
        values.iter().zip(columns::RECORD).map(|(v, c)| (v as &(dyn ToSql + Sync), types(c.kind).0)).collect();
    params.push((&estimate, Type::JSONB));
    params.push((&day, Type::INT8));
    let row = c.query_typed_opt(&INSERT, &params)?;
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
