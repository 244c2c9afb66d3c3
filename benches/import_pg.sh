#!/usr/bin/env bash
# `exa import slurm --file` of N jobs (default 200,000; benches/sacct_gen.py) into PostgreSQL on a
# throw-away cluster on loopback, then the same file again (nothing new), beside the floor there: psql
# COPYing the same file's lines into a table of text columns (one per sacct field), and beside the same
# import into SQLite, in one run.
#
#   bash benches/import_pg.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200000}
cargo build --release --quiet
bin=$(ls -d /usr/lib/postgresql/*/bin | sort | tail -1)
tmp=$(mktemp -d)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chmod 755 "$tmp" && chown postgres "$tmp"
echo bench-pw-123456 > "$tmp/pw"; [ "$(id -u)" = 0 ] && chown postgres "$tmp/pw"
as_pg "$bin/initdb" --no-sync -U exa --auth=scram-sha-256 --pwfile="$tmp/pw" -D "$tmp/data" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
as_pg "$bin/pg_ctl" -D "$tmp/data" -o "-p $port -k $tmp -c listen_addresses=127.0.0.1 -c shared_buffers=512MB" -l "$tmp/log" -w start >/dev/null
trap 'as_pg "$bin/pg_ctl" -D "$tmp/data" stop -m immediate >/dev/null 2>&1; rm -rf "$tmp"' EXIT
export PGPASSWORD=bench-pw-123456
"$bin/psql" -q -h 127.0.0.1 -p "$port" -U exa -d postgres -c "CREATE DATABASE bench" >/dev/null
url="postgres://exa@127.0.0.1:$port/bench?sslmode=disable"
export XDG_CONFIG_HOME="$tmp/config"
unset EXAMLOPS_DB
python3 benches/sacct_gen.py "$n" > "$tmp/sacct.txt"
echo "$n jobs, $(wc -l < "$tmp/sacct.txt") lines"
python3 - target/release/exa "$url" "$tmp" "$bin/psql" "$port" <<'PY'
import subprocess, sys, time, json
exa, url, tmp, psql, port = sys.argv[1:6]
path = f"{tmp}/sacct.txt"
header = open(path).readline().rstrip("\n").split("|")
cols = ", ".join(f'"{c}" text' for c in header)
run = lambda *a: subprocess.run(list(a), check=True, capture_output=True, text=True)
pg = [psql, "-q", "-X", "-h", "127.0.0.1", "-p", port, "-U", "exa", "-d", "bench"]
run(*pg, "-c", f"CREATE TABLE sacct ({cols})")
t = time.perf_counter()
run(*pg, "-c", f"\\copy sacct FROM '{path}' WITH (FORMAT csv, DELIMITER '|', HEADER true)")
floor = time.perf_counter() - t
print(f"floor: psql COPY of the file into a table of {len(header)} text columns: {floor:.2f} s")
def imp(db):
    t = time.perf_counter()
    a = json.loads(run(exa, "--db", db, "-o", "json", "import", "slurm", "--file", path).stdout)
    return time.perf_counter() - t, a["records_written"]
for name, db in (("PostgreSQL", url), ("SQLite", f"{tmp}/records.sqlite3")):
    first, w1 = imp(db)
    again, w2 = imp(db)
    print(f"{name}: first import {first:.2f} s = {first / floor:.1f}x the COPY ({w1} records); the same file again {again:.2f} s = {again / floor:.1f}x ({w2} written)")
PY
