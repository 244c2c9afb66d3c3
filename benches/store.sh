#!/usr/bin/env bash
# The store's speed: one `record` process, and `exa report` over 100,000 and
# 1,000,000 records (filled by copying one real record in SQL), beside the
# floor: the sqlite3 shell scanning the same columns of the same table.
# Records written by SQL leave the summary cells behind: the next `record`
# makes them all again (timed), and reports by model or day read them; a
# report by provider still scans every record.
#
#   bash benches/store.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" EXAMLOPS_DB="$tmp/records.sqlite3"
exa=target/release/exa
python3 - "$exa" "$tmp" <<'PY'
import os, sqlite3, statistics, subprocess, sys, time
exa, tmp = sys.argv[1], sys.argv[2]
db = os.environ["EXAMLOPS_DB"]

def timed(args, n):
    runs = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run([exa, *args], check=True, stdout=subprocess.DEVNULL)
        runs.append(time.perf_counter() - t)
    return statistics.median(runs)

est = timed(["-o", "json", "finops", "carbon", "estimate", "--gpu-hours", "12"], 30)
rec = timed(["-o", "json", "finops", "carbon", "record", "M0", "--gpu-hours", "12", "--run-id", "r"], 30)
print(f"estimate process: {est * 1000:.1f} ms; record process: {rec * 1000:.1f} ms (median of 30; record/estimate = {rec / est:.2f}x)")

cols = "model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest, gpu_hours, cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, duration_s, device_count, measured_kwh, form_id, figures"
for target in (100_000, 1_000_000):
    c = sqlite3.connect(db)
    have = c.execute("select count(*) from records").fetchone()[0]
    c.execute(f"""insert into records ({cols})
        with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
        select 'M' || (i % 50), 'run-' || i, recorded_at - i * 60, host, domain, provider, provider_kind, provider_digest,
               gpu_hours, cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, duration_s, device_count, measured_kwh, form_id, figures
        from n, (select * from records where id = 1)""", (target - have,))
    # Record 1 keeps its estimate by its form (schema 10), and so do its copies; one kept in record_estimates is copied there.
    c.execute("insert into record_estimates (record_id, estimate, shape_id) select id, (select estimate from record_estimates where record_id = 1), (select shape_id from record_estimates where record_id = 1) from records where id > (select max(record_id) from record_estimates)")
    c.commit()
    c.close()
    t = time.perf_counter()
    subprocess.run([exa, "-o", "json", "finops", "carbon", "record", "M0", "--gpu-hours", "12", "--run-id", "r"], check=True, stdout=subprocess.DEVNULL)
    heal = time.perf_counter() - t
    by_model = timed(["-o", "json", "report"], 5)
    by_provider = timed(["-o", "json", "report", "--by", "provider"], 5)
    # The floor: the sqlite3 shell reading every column the report needs, once over the whole table.
    floor_sql = ("SELECT count(model), sum(id), count(run_id), sum(domain = 'carbon'), sum(measured), sum(part), sum(gpu_hours),"
                 " sum(cpu_hours), sum(kwh), sum(co2e_g), sum(uncertainty), sum(cost_usd) FROM records")
    floors = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run(["sqlite3", db, floor_sql], check=True, stdout=subprocess.DEVNULL)
        floors.append(time.perf_counter() - t)
    floor = statistics.median(floors)
    one = timed(["-o", "json", "report", "M7", "--since", "2026-01-01"], 5)
    by_day = timed(["-o", "json", "report", "--by", "day"], 5)
    print(f"{target:>9,} records: report by model {by_model * 1000:.0f} ms, one model since a date {one * 1000:.0f} ms, by day {by_day * 1000:.0f} ms, "
          f"by provider (every record) {by_provider * 1000:.0f} ms (median of 5); sqlite3 full scan {floor * 1000:.0f} ms; "
          f"report by model / scan = {by_model / floor:.3f}x; the record that made every cell again {heal * 1000:.0f} ms")
PY
