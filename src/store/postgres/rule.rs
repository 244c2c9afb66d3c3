//! The counting rule as PostgreSQL runs it: which records of each run a
//! report counts, in one SQL statement. The same rule as `store::report::choose`
//! (SQLite's); the property test `postgres::both_stores_count_generated_runs_alike`
//! holds the two to the same answers.

/// What counts, per group, run and domain (`d`), as `report::choose` decides it:
/// the rule's second statement, held to the first by
/// `postgres::both_stores_count_generated_runs_alike` (tests/cli/postgres.rs).
/// Nearly every run has at most one record of each domain, and then that
/// record counts: those are summed in one aggregation. Only the few groups of
/// several records go through the choice (windows over just those rows): the
/// pool is the measured records when there are any, else all; its parts are
/// summed when it has parts, else its latest record counts alone.
pub(super) fn counted(key: &str, source: &str, clause: &str) -> String {
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
pub(super) fn sql(key: &str, clause: &str) -> String {
    sql_from(key, "exa_records", clause)
}

/// `sql` over the records `source` gives (a subquery named `exa_records`).
pub(super) fn sql_from(key: &str, source: &str, clause: &str) -> String {
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
