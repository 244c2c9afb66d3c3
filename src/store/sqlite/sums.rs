//! A cell's sums as stored: what the cells (`cells`) and the rollup (`rollup`) keep of a group of records, each
//! figure rounded once, and how they are bound to a statement and read back.

use crate::store::report::{Acc, Sum};

/// A cell's sums as the rule counts them, as the cells' table keeps them, and its notes on what it did not
/// count: a first import counts some 400,000 of them into one list, so each holds its figures rounded once
/// (160 bytes, where its sums were 360: 80 MB fewer fresh pages beside the indexes being made).
pub(crate) struct CellSums {
    pub(crate) runs: u64,
    runs_measured: u64,
    carbon: u64,
    cost: u64,
    not_counted: u64,
    gpu_hours: f64,
    cpu_hours: f64,
    co2e_low: f64,
    co2e_high: f64,
    unknown_uncertainty: bool,
    /// The figures a cell may have none of, NaN for none (a sum's value never is NaN, and SQLite stores a NaN as
    /// NULL): kept as numbers, not `Option`s, which would take half as much room again.
    kwh: f64,
    co2e_g: f64,
    cost_usd: f64,
    embodied_co2e_g: f64,
    water_l: f64,
    tokens: f64,
    prompt_tokens: f64,
    requests: f64,
    node_kwh: f64,
    node_rest_kwh: f64,
    notes: Option<Box<str>>,
}

impl CellSums {
    pub(crate) fn of(a: &Acc, notes: &[String]) -> CellSums {
        let v = |s: Option<Sum>| s.map_or(f64::NAN, Sum::value);
        CellSums {
            runs: a.runs,
            runs_measured: a.runs_measured,
            carbon: a.carbon,
            cost: a.cost,
            not_counted: a.not_counted,
            gpu_hours: a.gpu_hours.value(),
            cpu_hours: a.cpu_hours.value(),
            co2e_low: a.low.value(),
            co2e_high: a.high.value(),
            unknown_uncertainty: a.unknown_uncertainty,
            kwh: v(a.kwh),
            co2e_g: v(a.co2e),
            cost_usd: v(a.cost_usd),
            embodied_co2e_g: v(a.embodied),
            water_l: v(a.water),
            tokens: v(a.work[0]),
            prompt_tokens: v(a.work[1]),
            requests: v(a.work[2]),
            node_kwh: v(a.node[0]),
            node_rest_kwh: v(a.node[1]),
            notes: (!notes.is_empty()).then(|| notes.join("\n").into_boxed_str()),
        }
    }
}

/// The columns a cell sums (and a rollup row, `rollup`), in the order `bind_sums` binds and `read_sums` reads them.
pub(crate) const SUMS: &str = "runs, runs_measured, carbon, cost, not_counted, gpu_hours, cpu_hours, kwh, co2e_g, co2e_low, \
    co2e_high, unknown_uncertainty, cost_usd, notes, embodied_co2e_g, water_l, tokens, prompt_tokens, requests, node_kwh, \
    node_rest_kwh";

/// How many columns `SUMS` names (its commas and one).
pub(crate) const SUMS_COUNT: usize = {
    let (bytes, mut i, mut n) = (SUMS.as_bytes(), 0, 1);
    while i < bytes.len() {
        if bytes[i] == b',' {
            n += 1;
        }
        i += 1;
    }
    n
};

/// `SUMS` as a reader selects them from a schema at `version`: the node's figures NULL before its cells kept them.
pub(crate) fn sums_in(version: i64) -> std::borrow::Cow<'static, str> {
    if version >= super::NODE_CELLS_VERSION {
        SUMS.into()
    } else {
        SUMS.replace("node_kwh, node_rest_kwh", "NULL, NULL").into()
    }
}

/// Binds `c`'s sums to the parameters from `from` on, in the order of `SUMS`.
pub(crate) fn bind_sums(stmt: &mut rusqlite::Statement, from: usize, c: &CellSums) -> rusqlite::Result<()> {
    let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let figure = |x: f64| Some(x).filter(|x| !x.is_nan());
    for (i, n) in [c.runs, c.runs_measured, c.carbon, c.cost, c.not_counted].into_iter().enumerate() {
        stmt.raw_bind_parameter(from + i, count(n))?;
    }
    for (i, x) in [c.gpu_hours, c.cpu_hours].into_iter().enumerate() {
        stmt.raw_bind_parameter(from + 5 + i, x)?;
    }
    for (i, x) in [figure(c.kwh), figure(c.co2e_g), Some(c.co2e_low), Some(c.co2e_high)].into_iter().enumerate() {
        stmt.raw_bind_parameter(from + 7 + i, x)?;
    }
    stmt.raw_bind_parameter(from + 11, c.unknown_uncertainty)?;
    stmt.raw_bind_parameter(from + 12, figure(c.cost_usd))?;
    stmt.raw_bind_parameter(from + 13, c.notes.as_deref())?;
    let rest = [c.embodied_co2e_g, c.water_l, c.tokens, c.prompt_tokens, c.requests, c.node_kwh, c.node_rest_kwh];
    for (i, x) in rest.into_iter().enumerate() {
        stmt.raw_bind_parameter(from + 14 + i, figure(x))?;
    }
    Ok(())
}

/// The sums of a cell (or a rollup row) from the columns `SUMS` at `at` on, and its notes.
pub(crate) fn read_sums(r: &rusqlite::Row, at: usize) -> rusqlite::Result<(Acc, Option<String>)> {
    let count = |i: usize| r.get::<_, i64>(at + i).map(|v| u64::try_from(v).unwrap_or(0));
    let real = |i: usize| r.get::<_, f64>(at + i).map(Sum::from);
    let figure = |i: usize| r.get::<_, Option<f64>>(at + i).map(|v| v.map(Sum::from));
    let acc = Acc {
        runs: count(0)?,
        runs_measured: count(1)?,
        carbon: count(2)?,
        cost: count(3)?,
        not_counted: count(4)?,
        gpu_hours: real(5)?,
        cpu_hours: real(6)?,
        kwh: figure(7)?,
        co2e: figure(8)?,
        low: real(9)?,
        high: real(10)?,
        unknown_uncertainty: r.get(at + 11)?,
        cost_usd: figure(12)?,
        embodied: figure(14)?,
        water: figure(15)?,
        work: [figure(16)?, figure(17)?, figure(18)?, None],
        node: [figure(19)?, figure(20)?],
        ..Acc::default()
    };
    Ok((acc, r.get(at + 13)?))
}

/// The sums a rollup row keeps the rounding of, in order: their residuals are one BLOB of little-endian f64.
fn summed(acc: &mut Acc) -> [Option<&mut Sum>; 14] {
    let [w0, w1, w2, _] = &mut acc.work;
    let [n0, n1] = &mut acc.node;
    [
        Some(&mut acc.gpu_hours),
        Some(&mut acc.cpu_hours),
        acc.kwh.as_mut(),
        acc.co2e.as_mut(),
        Some(&mut acc.low),
        Some(&mut acc.high),
        acc.cost_usd.as_mut(),
        acc.embodied.as_mut(),
        acc.water.as_mut(),
        w0.as_mut(),
        w1.as_mut(),
        w2.as_mut(),
        n0.as_mut(),
        n1.as_mut(),
    ]
}

/// What rounding each of `acc`'s sums left out (`Sum::parts`), as a rollup row keeps it beside the rounded sums.
pub(crate) fn residuals(acc: &mut Acc) -> Vec<u8> {
    summed(acc).into_iter().flat_map(|s| s.map_or(0.0, |s| s.parts().1).to_le_bytes()).collect()
}

/// Gives `acc`'s sums (read rounded from a rollup row) back the residuals `residuals` kept.
pub(crate) fn with_residuals(acc: &mut Acc, blob: &[u8]) {
    for (sum, bytes) in summed(acc).into_iter().zip(blob.chunks_exact(8)) {
        if let (Some(sum), Ok(b)) = (sum, <[u8; 8]>::try_from(bytes)) {
            *sum = Sum::of_parts(sum.value(), f64::from_le_bytes(b));
        }
    }
}
