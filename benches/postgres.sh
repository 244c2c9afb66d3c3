#!/usr/bin/env bash
# The PostgreSQL ledger's speed, on a throw-away cluster on loopback:
# - one `record` process of a new run into PostgreSQL beside one into SQLite (median of 120 each,
#   alternated, in three rounds), and into a second PostgreSQL database whose commits wait for no disk flush
#   (`synchronous_commit = off`), as SQLite's ledger commits (WAL, `synchronous = NORMAL`); and, when
#   PgBouncer is installed, into the same database through PgBouncer (session pooling, SCRAM to PgBouncer):
#   the server's backend then outlives each exa process, as behind the pooler a team of many nodes runs;
# - one `record` process of a run recorded before (its cell counted again), both stores;
# - `exa report --by model` over N records (default 10,000,000) beside psql
#   running the plain aggregate over the same table (the floor: one scan, no
#   per-run choice), and beside psql running nothing but a count. The records
#   are filled by SQL with the summary cells' trigger off, then the cells are
#   made in one statement (`exa_cells_rebuild()`, timed); a report by provider
#   (every record, no cells) is timed beside them.
#
#   bash benches/postgres.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000000}
cargo build --release --quiet
bin=$(ls -d /usr/lib/postgresql/*/bin | sort | tail -1)
tmp=$(mktemp -d)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$tmp"
echo bench-pw-123456 > "$tmp/pw"; [ "$(id -u)" = 0 ] && chown postgres "$tmp/pw"
as_pg "$bin/initdb" --no-sync -U exa --auth=scram-sha-256 --pwfile="$tmp/pw" -D "$tmp/data" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
as_pg "$bin/pg_ctl" -D "$tmp/data" -o "-p $port -k $tmp -c listen_addresses=127.0.0.1 -c shared_buffers=512MB -c work_mem=256MB -c max_parallel_workers_per_gather=2" -l "$tmp/log" -w start >/dev/null
trap 'as_pg "$bin/pg_ctl" -D "$tmp/data" stop -m immediate >/dev/null 2>&1; rm -rf "$tmp"' EXIT
export PGPASSWORD=bench-pw-123456
"$bin/psql" -q -h 127.0.0.1 -p "$port" -U exa -d postgres -c "CREATE DATABASE bench" -c "CREATE DATABASE unflushed" \
  -c "ALTER DATABASE unflushed SET synchronous_commit = off" >/dev/null
url="postgres://exa@127.0.0.1:$port/bench?sslmode=disable"
pooled=""
bouncer=$(command -v pgbouncer || ls /usr/sbin/pgbouncer 2>/dev/null || true)
if [ -n "$bouncer" ]; then
  bport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  # The role's SCRAM verifier, not its password: PgBouncer then checks a client's proof as the server would,
  # and logs in to the server with the key that proof gives it, where a password would cost it PBKDF2 per login.
  verifier=$("$bin/psql" -X -A -t -h 127.0.0.1 -p "$port" -U exa -d postgres -c "SELECT rolpassword FROM pg_authid WHERE rolname = 'exa'")
  printf '"exa" "%s"\n' "$verifier" > "$tmp/userlist.txt"
  cat > "$tmp/pgbouncer.ini" <<INI
[databases]
bench = host=127.0.0.1 port=$port dbname=bench
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $bport
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $tmp/userlist.txt
pool_mode = session
logfile = $tmp/pgbouncer.log
pidfile = $tmp/pgbouncer.pid
INI
  [ "$(id -u)" = 0 ] && chown postgres "$tmp/userlist.txt" "$tmp/pgbouncer.ini"
  as_pg "$bouncer" -d "$tmp/pgbouncer.ini" >/dev/null
  trap 'kill "$(cat "$tmp/pgbouncer.pid" 2>/dev/null)" 2>/dev/null; as_pg "$bin/pg_ctl" -D "$tmp/data" stop -m immediate >/dev/null 2>&1; rm -rf "$tmp"' EXIT
  pooled="postgres://exa@127.0.0.1:$bport/bench?sslmode=disable"
fi
export XDG_CONFIG_HOME="$tmp/config"
python3 - target/release/exa "$url" "$tmp/records.sqlite3" "$bin/psql" "$port" "$n" "$pooled" <<'PY'
import statistics, subprocess, sys, time, os
exa, url, lite, psql, port, n, pooled = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7]

def timed(args, env, k):
    runs = []
    for _ in range(k):
        t = time.perf_counter()
        subprocess.run([exa, *args], check=True, stdout=subprocess.DEVNULL, env={**os.environ, **env})
        runs.append(time.perf_counter() - t)
    return statistics.median(runs)

unflushed = url.replace("/bench?", "/unflushed?")
rec = ["-o", "json", "finops", "carbon", "record", "M0", "--gpu-hours", "12", "--run-id"]
stores = {"PostgreSQL": url, "SQLite": lite, "PostgreSQL with commits unflushed, as SQLite's": unflushed}
if pooled:
    stores["PostgreSQL through PgBouncer"] = pooled
for db in stores.values():
    timed(rec + ["first"], {"EXAMLOPS_DB": db}, 1)
# Alternated, one of each in turn, so that every store sees the same machine noise; each record a new run.
# Three rounds, each ratio printed: this machine's disk and CPU noise moves a single median by 20%.
took = {name: [] for name in stores}

def summary(what, runs):
    """One line: each store's median record beside SQLite's, as a ratio."""
    sq = statistics.median(runs["SQLite"])
    parts = [f"{name} {statistics.median(runs[name]) * 1000:.1f} ms ({statistics.median(runs[name]) / sq:.2f}x)" for name in stores if name != "SQLite"]
    return f"record (a new run), {what}: SQLite {sq * 1000:.1f} ms; " + "; ".join(parts)

for round in range(3):
    now = {name: [] for name in stores}
    for i in range(40):
        for name, db in stores.items():
            now[name].append(timed(rec + [f"run-{round}-{i}"], {"EXAMLOPS_DB": db}, 1))
    print(summary(f"round {round + 1}", now))
    for name in stores:
        took[name] += now[name]
print(summary("all 120 of each", took))
again = {"PostgreSQL": [], "SQLite": []}
for _ in range(20):
    for name in again:
        again[name].append(timed(rec + ["first"], {"EXAMLOPS_DB": stores[name]}, 1))
pg2, sq2 = statistics.median(again["PostgreSQL"]), statistics.median(again["SQLite"])
print(f"record (a run recorded before, its cell counted again): PostgreSQL {pg2 * 1000:.1f} ms, SQLite {sq2 * 1000:.1f} ms "
      f"(median of 20 each; {pg2 / sq2:.2f}x)")

def sql(q):
    return subprocess.run([psql, "-X", "-q", "-A", "-t", "-h", "127.0.0.1", "-p", port, "-U", "exa", "-d", "bench", "-c", q],
                          check=True, capture_output=True, text=True).stdout.strip()

cols = "model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest, gpu_hours, cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, duration_s, device_count, measured_kwh, part"
have = int(sql("SELECT count(*) FROM exa_records"))
t = time.perf_counter()
sql("ALTER TABLE exa_records DISABLE TRIGGER exa_records_cells")
sql(f"""INSERT INTO exa_records (idem_key, {cols})
        SELECT 'bench-' || i, 'M' || (i % 50), 'fill-' || i, recorded_at - i * 60, host, domain, provider, provider_kind, provider_digest,
               gpu_hours, cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, duration_s, device_count, measured_kwh, part
        FROM generate_series(1, {n - have}) i, (SELECT * FROM exa_records WHERE id = 1) one""")
sql("ALTER TABLE exa_records ENABLE TRIGGER exa_records_cells")
sql("VACUUM ANALYZE exa_records")
print(f"filled {n:,} records in {time.perf_counter() - t:.0f} s")
t = time.perf_counter()
sql("SELECT exa_cells_rebuild()")
sql("VACUUM ANALYZE exa_report_cells")
print(f"made {int(sql('SELECT count(*) FROM exa_report_cells')):,} summary cells in {time.perf_counter() - t:.0f} s")

def psql_time(q, k=3):
    runs = []
    for _ in range(k):
        t = time.perf_counter(); sql(q); runs.append(time.perf_counter() - t)
    return statistics.median(runs)

report = timed(["-o", "json", "report", "--by", "model"], {"EXAMLOPS_DB": url}, 3)
by_provider = timed(["-o", "json", "report", "--by", "provider"], {"EXAMLOPS_DB": url}, 1)
plain = psql_time("SELECT model, count(*), sum(gpu_hours), sum(cpu_hours), sum(kwh), sum(co2e_g), sum(cost_usd) FROM exa_records GROUP BY model")
count = psql_time("SELECT count(*) FROM exa_records")
print(f"{n:,} records: exa report --by model {report:.3f} s; psql plain GROUP BY model {plain:.2f} s; psql count(*) {count:.2f} s "
      f"(median of 3; report / plain aggregate = {report / plain:.3f}x); exa report --by provider (every record, once) {by_provider:.1f} s")
PY
