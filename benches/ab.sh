#!/usr/bin/env bash
# Side by side: this tree's release `exa` against another revision's, in one
# run, alternating, so the machine's mood falls on both alike. Times the
# commands a change must not slow: an estimate, a record (SQLite, and
# PostgreSQL when AB_PG_URL names a database), and reports by model and by
# run over 100,000 records. Prints each median and the ratio new/old.
#
#   bash benches/ab.sh [REV]          # REV defaults to HEAD~1
#   AB_PG_URL=postgres://exa@127.0.0.1:5432/bench?sslmode=disable bash benches/ab.sh bff85d7
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-HEAD~1}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
cargo build --release --quiet
git worktree add --detach "$tmp/old" "$rev" >/dev/null 2>&1
# The other revision builds in a target directory of its own, kept between runs.
CARGO_TARGET_DIR="$PWD/target/ab" cargo build --release --quiet --manifest-path "$tmp/old/Cargo.toml" --bin exa
python3 - "$PWD/target/ab/release/exa" "$PWD/target/release/exa" "$tmp" "$rev" <<'PY'
import os, shutil, sqlite3, statistics, subprocess, sys, time
old, new, tmp, rev = sys.argv[1:5]
env = dict(os.environ, XDG_CONFIG_HOME=f"{tmp}/config", HOME=tmp)
env.pop("EXAMLOPS_DB", None)

def once(exa, args, db):
    t = time.perf_counter()
    subprocess.run([exa, "--db", db, *args], check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t

def side_by_side(name, args, db_of, rounds):
    times = {old: [], new: []}
    for i in range(rounds):
        for exa in ((old, new) if i % 2 == 0 else (new, old)):
            times[exa].append(once(exa, args, db_of(exa)))
    o, n = statistics.median(times[old]), statistics.median(times[new])
    print(f"{name:<34} {rev}: {o * 1000:8.2f} ms   this tree: {n * 1000:8.2f} ms   new/old {n / o:.2f}x")

side_by_side("estimate", ["-o", "json", "finops", "carbon", "estimate", "--gpu-hours", "12"], lambda e: f"{tmp}/none.sqlite3", 60)
side_by_side("record (SQLite)", ["-o", "json", "finops", "carbon", "record", "M0", "--gpu-hours", "12", "--run-id", "r"],
             lambda e: f"{tmp}/rec-{'old' if e == old else 'new'}.sqlite3", 60)
pg = os.environ.get("AB_PG_URL")
if pg:
    side_by_side("record (PostgreSQL)", ["-o", "json", "finops", "carbon", "record", "M0", "--gpu-hours", "12", "--run-id", "r"],
                 lambda e: pg, 60)

# 100,000 records, made once by one real record copied in SQL, by the older exa (whose schema the newer reads and
# migrates, never the other way); then a copy of that file for each binary, each brought up to date by one record
# its binary writes (the newer migrating its copy and counting its cells), so each reports a ledger of its own schema.
base = f"{tmp}/big.sqlite3"
subprocess.run([old, "--db", base, "-o", "json", "finops", "carbon", "record", "M0", "--gpu-hours", "12"], check=True, stdout=subprocess.DEVNULL, env=env)
# A record keeps its estimate by a form since schema 10 (form_id, figures), else in record_estimates: both copied.
cols = "model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest, gpu_hours, cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, duration_s, device_count, measured_kwh, form_id, figures, idem_key"
c = sqlite3.connect(base)
c.execute(f"""insert into records ({cols})
    with recursive n(i) as (select 1 union all select i + 1 from n where i < 99999)
    select 'M' || (i % 50), 'run-' || i, recorded_at - i * 60, host, domain, provider, provider_kind, provider_digest,
           gpu_hours, cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, duration_s, device_count, measured_kwh, form_id, figures, 'ab-' || i
    from n, (select * from records where id = 1)""")
c.execute("insert into record_estimates (record_id, estimate, shape_id) select id, (select estimate from record_estimates where record_id = 1), (select shape_id from record_estimates where record_id = 1) from records where id > 1 and exists (select 1 from record_estimates where record_id = 1)")
c.commit()
c.close()
dbs = {}
for exa in (old, new):
    dbs[exa] = f"{tmp}/big-{'old' if exa == old else 'new'}.sqlite3"
    shutil.copy(base, dbs[exa])
    subprocess.run([exa, "--db", dbs[exa], "-o", "json", "finops", "carbon", "record", "M0", "--gpu-hours", "1"], check=True, stdout=subprocess.DEVNULL, env=env)
side_by_side("report --by model (100k records)", ["-o", "json", "report"], lambda e: dbs[e], 20)
side_by_side("report --by run (100k records)", ["-o", "json", "report", "--by", "run"], lambda e: dbs[e], 10)
PY
