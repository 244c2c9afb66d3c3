//! The counting rule: which records of a run a report counts. Its one home.
//!
//! Per run and domain (carbon, cost): a measured record supersedes
//! estimated ones, when the measurements hold every kind of work the
//! estimates do (GPU-hours where an estimate has GPU-hours, CPU-hours where
//! one has CPU-hours; else the estimates count, and the note says the
//! measurement lacked it); records marked as parts (`--part`) are summed;
//! otherwise several records of the same kind are the same work recorded
//! again, and the latest counts once. A run's hours are the most of its
//! domains' counted hours, and so is its work (tokens, requests, units);
//! its embodied CO2e and water are summed over its counted carbon records,
//! as its CO2e is, and so is its part of its node's platform energy. A run that dropped records gets a note saying which it
//! counted and why.
//!
//! The rule is stated twice, side by side in this file, and a change to
//! what a report counts is made here to both:
//!
//! - `choose`, in Rust: SQLite's reports and summary cells, and the
//!   charges of FOCUS rows, count runs with it as they scan.
//! - `counted` and `sql`, in SQL: PostgreSQL's reports and its schema's
//!   cell functions run them on the server, where only the groups come
//!   back.
//!
//! Why not one SQL form for both: `cargo bench --bench rule` runs this very
//! SQL on SQLite (the bundled SQLite has the window functions and `FILTER`
//! it needs: `Dialect::Sqlite`) beside the Rust scan over the same ledger,
//! and checks they agree: the Rust scan is about ten times faster there (the
//! bench prints the ratio: 12.7x over a million records), and
//! SQLite's summary cells recount a cell in the writer's transaction, where
//! a statement per cell would cost more again. The property test
//! `postgres::both_stores_count_generated_runs_alike` (tests/cli/postgres.rs)
//! holds the two statements to the same reports, notes included, over
//! generated runs (parts, repeats, measured over estimated, runs split over
//! days) by every grouping and filter.

#[derive(Clone, Copy)]
pub(crate) struct Row {
    pub(crate) id: i64,
    /// The index of the record's group in the scan's group list.
    pub(crate) group: u32,
    /// The UTC day it was recorded (days since the epoch).
    pub(crate) day: i32,
    pub(crate) carbon: bool,
    pub(crate) measured: bool,
    pub(crate) part: bool,
    pub(crate) gpu_hours: f64,
    pub(crate) cpu_hours: f64,
    pub(crate) kwh: Option<f64>,
    pub(crate) co2e: Option<f64>,
    pub(crate) uncertainty: Option<f64>,
    pub(crate) cost_usd: Option<f64>,
    /// The carbon records' figures beside CO2e: embodied CO2e and water (summed like CO2e).
    pub(crate) embodied: Option<f64>,
    pub(crate) water: Option<f64>,
    /// The job's part of its node's platform energy, and of that the remainder beyond the counters (kWh,
    /// `Measured::node`), summed like CO2e.
    pub(crate) node: [Option<f64>; 2],
    /// The work done: tokens, prompt tokens, requests, units (a run's, once: like its hours).
    pub(crate) work: WorkCounts,
}

/// A record's work: tokens, prompt tokens, requests and units of its own naming.
pub(crate) type WorkCounts = [Option<f64>; 4];

/// The larger of two counts of the same work, either missing.
pub(crate) fn most(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// Two counts of work added, either missing.
fn plus(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    }
}

impl Row {
    pub(crate) fn new(
        id: i64,
        carbon: bool,
        measured: bool,
        part: bool,
        hours: [f64; 2],
        sums: [Option<f64>; 3],
        uncertainty: Option<f64>,
    ) -> Row {
        Row {
            id,
            group: 0,
            day: 0,
            carbon,
            measured,
            part,
            gpu_hours: hours[0],
            cpu_hours: hours[1],
            kwh: sums[0],
            co2e: sums[1],
            uncertainty,
            cost_usd: sums[2],
            embodied: None,
            water: None,
            node: [None; 2],
            work: [None; 4],
        }
    }
}

/// What one run counts: the records used, its hours, and why others were not counted.
pub(crate) struct RunCount {
    pub(crate) used: Vec<Row>,
    pub(crate) gpu_hours: f64,
    pub(crate) cpu_hours: f64,
    /// The run's work: per kind, the most of its domains' counted sums.
    pub(crate) work: WorkCounts,
    pub(crate) not_counted: u64,
    pub(crate) note: Option<String>,
}

/// Chooses, per domain, the records of one run that count: a measured record
/// supersedes estimated ones when the measurements hold every kind of work (GPU, CPU) the estimates
/// hold, and never drops a kind it did not measure (then the estimates count); records marked as parts are summed; otherwise
/// several records of the same kind are the same work recorded again, and
/// the latest counts once.
///
/// The rule's first statement (see the module's header for the second).
pub(crate) fn choose(run: &str, rows: &[Row]) -> RunCount {
    let mut c = RunCount { used: Vec::new(), gpu_hours: 0.0, cpu_hours: 0.0, work: [None; 4], not_counted: 0, note: None };
    let mut why = Vec::new();
    for carbon in [true, false] {
        let all: Vec<&Row> = rows.iter().filter(|r| r.carbon == carbon).collect();
        if all.is_empty() {
            continue;
        }
        let (measured, estimated): (Vec<&Row>, Vec<&Row>) = all.iter().copied().partition(|r| r.measured);
        // The measurements that would count, held to the estimates' kinds of work: what counts must hold them.
        // (With none measured, the estimates are every record.)
        let counted = pick(&measured);
        let chosen = if !counted.is_empty() && covers(&counted, &estimated) { counted } else { pick(&estimated) };
        let (g, h) = chosen.iter().fold((0.0, 0.0), |acc, r| (acc.0 + r.gpu_hours, acc.1 + r.cpu_hours));
        c.gpu_hours = c.gpu_hours.max(g);
        c.cpu_hours = c.cpu_hours.max(h);
        for (i, w) in c.work.iter_mut().enumerate() {
            *w = most(*w, chosen.iter().fold(None, |acc, r| plus(acc, r.work[i])));
        }
        let dropped = all.len() - chosen.len();
        if dropped > 0 {
            // By id, as the PostgreSQL statement lists them: the order rows came in is not the note's.
            let mut by_id: Vec<i64> = chosen.iter().map(|r| r.id).collect();
            by_id.sort_unstable();
            let ids: Vec<String> = by_id.iter().map(|id| format!("#{id}")).collect();
            let reason = if chosen.iter().any(|r| r.measured) && all.iter().any(|r| !r.measured) {
                SUPERSEDES
            } else if all.iter().any(|r| r.measured) && !chosen.iter().any(|r| r.measured) {
                LACKS
            } else {
                "the same work recorded again (--part marks parts of one run)"
            };
            let domain = if carbon { "carbon" } else { "cost" };
            why.push(format!("{} {domain} records, counted {}: {reason}", all.len(), ids.join(", ")));
            c.not_counted += dropped as u64;
        }
        c.used.extend(chosen.into_iter().copied());
    }
    if !why.is_empty() {
        c.note = Some(format!("run {}: {}", crate::text::clean(run), why.join("; ")));
    }
    c
}

/// Within a pool of a run's records of one domain: its parts, to be summed, else its latest record alone.
fn pick<'r>(pool: &[&'r Row]) -> Vec<&'r Row> {
    let parts: Vec<&Row> = pool.iter().copied().filter(|r| r.part).collect();
    if parts.is_empty() {
        pool.iter().copied().max_by_key(|r| r.id).into_iter().collect()
    } else {
        parts
    }
}

/// Why a run's estimates were not counted: its measurements hold every kind of work they do.
const SUPERSEDES: &str = "a measured record supersedes an estimate";
/// Why a run's measurements were not counted: they lack a kind of work (GPU or CPU) its estimates hold.
const LACKS: &str = "a measurement without the GPU or CPU work the estimate holds does not supersede it";

/// Whether the measured records that would count hold every kind of work the estimated ones hold: GPU-hours
/// where an estimate has GPU-hours, CPU-hours where one has CPU-hours. A measurement that took the GPUs' energy
/// alone, of a job whose import holds its CPU-hours, does not replace the CPU's part with nothing.
fn covers(measured: &[&Row], estimated: &[&Row]) -> bool {
    [|r: &Row| r.gpu_hours, |r: &Row| r.cpu_hours]
        .into_iter()
        .all(|hours| measured.iter().any(|r| hours(r) > 0.0) || !estimated.iter().any(|r| hours(r) > 0.0))
}

/// True when a run has at most one record of each domain: every record counts, nothing to choose.
pub(crate) fn simple(rows: &[Row]) -> bool {
    rows.iter().filter(|r| r.carbon).count() <= 1 && rows.iter().filter(|r| !r.carbon).count() <= 1
}

/// Which SQL the statement is written in: PostgreSQL runs it for its reports; SQLite only in
/// `cargo bench --bench rule`, to weigh it against `choose`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// PostgreSQL: `bool_or`, byte-order collation named.
    Postgres,
    /// SQLite (3.44 or later, as bundled): `max` over 0/1, byte order the default.
    Sqlite,
}

impl Dialect {
    fn any(self) -> &'static str {
        match self {
            Dialect::Postgres => "bool_or",
            Dialect::Sqlite => "max",
        }
    }

    fn bytes(self) -> &'static str {
        match self {
            Dialect::Postgres => " COLLATE \"C\"",
            Dialect::Sqlite => "",
        }
    }

    /// The records' table.
    pub fn records(self) -> &'static str {
        match self {
            Dialect::Postgres => "exa_records",
            Dialect::Sqlite => "records",
        }
    }
}

/// What counts, per group, run and domain (`d`), as `choose` decides it: the
/// rule's second statement.
/// Nearly every run has at most one record of each domain, and then that
/// record counts: those are summed in one aggregation. Only the few groups of
/// several records go through the choice (windows over just those rows): the
/// measured records that would count (`cm`: their parts, else their latest) are
/// held to the estimates' kinds of work; the pool is the measured records when
/// those hold them, the estimates when they do not, all when none is measured;
/// its parts are summed when it has parts, else its latest record counts alone.
fn counted(d: Dialect, f: Summed, key: &str, source: &str, clause: &str) -> String {
    let (any, bytes) = (d.any(), d.bytes());
    let extra = f.extra();
    let figures =
        format!("gpu_hours, cpu_hours, kwh, co2e_g, low, high, cost_usd{}", extra.iter().map(|c| format!(", {c}")).collect::<String>());
    let sums_of = |filter: &str| {
        ["gpu_hours", "cpu_hours", "kwh", "co2e_g", "low", "high", "cost_usd"]
            .iter()
            .chain(extra)
            .map(|c| format!("sum({c}){filter} AS {c}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (sums, chosen_sums) = (sums_of(""), sums_of(" FILTER (WHERE c)"));
    let columns: String = extra.iter().map(|c| format!(", {c}")).collect();
    format!(
        "f AS (SELECT ({key}){bytes} AS g, COALESCE(run_id, '(record ' || id || ')'){bytes} AS run, domain = 'carbon' AS carbon,
                      id, measured, part, gpu_hours, cpu_hours, kwh, co2e_g, cost_usd{columns},
                      co2e_g * (1 - uncertainty) AS low, co2e_g * (1 + uncertainty) AS high, (co2e_g IS NOT NULL AND uncertainty IS NULL) AS unk
               FROM {source} {clause}),
         a AS (SELECT g, run, carbon, count(*) AS n, {any}(measured) AS m_any, {sums}, {any}(unk) AS unk FROM f GROUP BY g, run, carbon),
         m AS (SELECT f.*, f.measured AND CASE WHEN {any}(f.part AND f.measured) OVER w THEN f.part
                                                ELSE f.id = max(f.id) FILTER (WHERE f.measured) OVER w END AS cm
               FROM f JOIN a ON a.g = f.g AND a.run = f.run AND a.carbon = f.carbon WHERE a.n > 1 WINDOW w AS (PARTITION BY f.g, f.run, f.carbon)),
         x AS (SELECT m.*, CASE WHEN {any}(cm) OVER w
                                  AND ({any}(cm AND gpu_hours > 0) OVER w OR NOT {any}(NOT measured AND gpu_hours > 0) OVER w)
                                  AND ({any}(cm AND cpu_hours > 0) OVER w OR NOT {any}(NOT measured AND cpu_hours > 0) OVER w)
                                THEN measured ELSE NOT measured END AS in_pool
               FROM m WINDOW w AS (PARTITION BY g, run, carbon)),
         y AS (SELECT x.*, in_pool AND CASE WHEN {any}(part AND in_pool) OVER w THEN part ELSE id = max(id) FILTER (WHERE in_pool) OVER w END AS c
               FROM x WINDOW w AS (PARTITION BY g, run, carbon)),
         z AS (SELECT g, run, carbon, count(*) AS n, {any}(measured) AS m_seen, {any}(measured AND c) AS m_any, {any}(NOT measured) AS e_any,
                 count(*) FILTER (WHERE c) AS used,
                 {chosen_sums}, {any}(unk AND c) AS unk, string_agg('#' || id, ', ' ORDER BY id) FILTER (WHERE c) AS ids
               FROM y GROUP BY g, run, carbon),
         d AS (SELECT g, run, carbon, n, m_any, CAST(1 AS BIGINT) AS used, {figures}, unk FROM a WHERE n = 1
               UNION ALL SELECT g, run, carbon, n, m_any, used, {figures}, unk FROM z)"
    )
}

/// Per group: runs, runs measured, records counted per domain and not counted, hours, sums, the
/// range, and the notes; over the records' table, rows selected by `clause` (a WHERE clause or
/// empty). The figures as columns 1–13, the notes (newline-separated) last.
pub fn sql(d: Dialect, f: Summed, key: &str, clause: &str) -> String {
    sql_from(d, f, key, d.records(), clause)
}

/// Which figures the statement counts: those every schema has (the SQL the oldest cell functions were
/// made with), or also the work and the figures beside CO2e, after them (`Summed::extra`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Summed {
    Base,
    Work,
    /// `Work`, and the job's part of its node's platform energy (`node_kwh`, `node_rest_kwh`) after it.
    Node,
    /// `Work` (and `Node`'s, where the flag says the schema has them), counting only the runs whose counted
    /// records have this column's work (`report --per`).
    Per(&'static str, bool),
}

/// The work and the figures beside CO2e, as `Summed::Work` counts them (the first six), then the job's part of its
/// node's platform energy (`Summed::Node`'s two more).
const NODE: [&str; 8] = ["embodied_co2e_g", "water_l", "tokens", "prompt_tokens", "requests", "units", "node_kwh", "node_rest_kwh"];

impl Summed {
    /// The records' columns it counts beyond the base ones: summed over counted carbon records (embodied
    /// CO2e, water), or a run's work (the most of its domains' sums, as its hours).
    pub fn extra(self) -> &'static [&'static str] {
        match self {
            Summed::Base => &[],
            Summed::Work | Summed::Per(_, false) => &NODE[..6],
            Summed::Node | Summed::Per(_, true) => &NODE,
        }
    }

    /// Whether it counts the node's figures.
    pub fn node(self) -> bool {
        matches!(self, Summed::Node | Summed::Per(_, true))
    }
}

/// `sql` over the records `source` gives (a table, or a subquery named as the records' table).
/// With `Summed::Work`, six more columns after the notes: embodied CO2e, water, tokens, prompt tokens,
/// requests, units; with `Summed::Node`, two more after them: the job's part of its node's energy, and of its
/// remainder.
pub fn sql_from(d: Dialect, f: Summed, key: &str, source: &str, clause: &str) -> String {
    let any = d.any();
    let (per_run, of_runs) = match f {
        Summed::Base => (String::new(), String::new()),
        _ => (
            ", sum(embodied_co2e_g) FILTER (WHERE carbon) AS embodied_co2e_g, sum(water_l) FILTER (WHERE carbon) AS water_l, \
             max(tokens) AS tokens, max(prompt_tokens) AS prompt_tokens, max(requests) AS requests, max(units) AS units"
                .to_string(),
            ", sum(embodied_co2e_g), sum(water_l), sum(tokens), sum(prompt_tokens), sum(requests), sum(units)".to_string(),
        ),
    };
    let (per_run, of_runs) = if f.node() {
        (
            per_run + ", sum(node_kwh) FILTER (WHERE carbon) AS node_kwh, sum(node_rest_kwh) FILTER (WHERE carbon) AS node_rest_kwh",
            of_runs + ", sum(node_kwh), sum(node_rest_kwh)",
        )
    } else {
        (per_run, of_runs)
    };
    // Per unit of work: the runs whose counted records have it, and only their notes; and that work again, of
    // the runs with a counted carbon record and of those with a counted cost record (what each domain's figure
    // per unit divides by), as two columns after the others.
    let (having, noted, per_domain) = match f {
        Summed::Per(column, _) => (
            format!(" HAVING max({column}) IS NOT NULL"),
            " AND z.run IN (SELECT k.run FROM r AS k WHERE k.g = z.g)",
            format!(", sum({column}) FILTER (WHERE carbon_n > 0), sum({column}) FILTER (WHERE cost_n > 0)"),
        ),
        _ => (String::new(), "", String::new()),
    };
    format!(
        "WITH {counted},
         r AS (SELECT g, run, max(gpu_hours) AS gh, max(cpu_hours) AS ch, {any}(m_any) AS m,
                 coalesce(sum(used) FILTER (WHERE carbon), 0) AS carbon_n, coalesce(sum(used) FILTER (WHERE NOT carbon), 0) AS cost_n,
                 sum(n - used) AS dropped, sum(kwh) AS kwh, sum(co2e_g) AS co2e, sum(low) AS low, sum(high) AS high,
                 {any}(unk) AS unknown_u, sum(cost_usd) AS cost{per_run}
               FROM d GROUP BY g, run{having})
         SELECT g, count(*), count(*) FILTER (WHERE m), CAST(sum(carbon_n) AS BIGINT), CAST(sum(cost_n) AS BIGINT), CAST(sum(dropped) AS BIGINT),
                coalesce(sum(gh), 0), coalesce(sum(ch), 0), sum(kwh), sum(co2e), sum(low), sum(high), coalesce({any}(unknown_u), false), sum(cost),
                (SELECT string_agg(note, '\n' ORDER BY note) FROM (
                   SELECT 'run ' || run || ': ' || string_agg(n || CASE WHEN carbon THEN ' carbon' ELSE ' cost' END || ' records, counted ' || ids || ': ' ||
                          CASE WHEN m_any AND e_any THEN '{SUPERSEDES}' WHEN m_seen AND NOT m_any THEN '{LACKS}'
                               ELSE 'the same work recorded again (--part marks parts of one run)' END, '; ' ORDER BY NOT carbon) AS note
                   FROM z WHERE n > used AND z.g = r.g{noted} GROUP BY run) notes){of_runs}{per_domain}
         FROM r GROUP BY g",
        counted = counted(d, f, key, source, clause)
    )
}
