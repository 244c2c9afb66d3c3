#!/usr/bin/env bash
# `exa import slurm --file` of N jobs (default 1,000,000) from realistic `sacct -P`
# output (benches/sacct_gen.py: each allocation with its .batch and .extern steps),
# then the same file again (nothing new), beside the floor a site script starts
# from: Python's csv module merely reading the same file. With REV, that
# revision's exa too, alternating with this tree's in one run (a fresh store for
# each first import), so the machine's mood falls on both alike. Beside them,
# SQLite alone writing the rows the first import wrote (same schema, journal
# and page cache, copied inside SQLite): what any importer into this schema
# pays before it has parsed or priced anything.
#
#   bash benches/import.sh [N] [REV]
#   bash benches/import.sh 200000 HEAD~3
#   OLD_BIN=path/to/exa bash benches/import.sh 1000000 REV   # REV's exa built already
#   HARDWARE=1 bash benches/import.sh                         # also each job priced by its GPU type and partition
#                                                              # (hardware-aware), alternating with the default
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
rev=${2:-}
rounds=${ROUNDS:-3}
cargo build --release --quiet
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
old=""
if [ -n "$rev" ] && [ -n "${OLD_BIN:-}" ]; then
  old=$(realpath "$OLD_BIN")
elif [ -n "$rev" ]; then
  git worktree add --detach "$tmp/old" "$rev" >/dev/null 2>&1
  CARGO_TARGET_DIR="$PWD/target/ab" cargo build --release --quiet --manifest-path "$tmp/old/Cargo.toml" --bin exa
  old="$PWD/target/ab/release/exa"
fi
export XDG_CONFIG_HOME="$tmp/config"
unset EXAMLOPS_DB
if [ -n "${HARDWARE:-}" ]; then
  python3 benches/sacct_gen.py "$n" --typed > "$tmp/sacct.txt"
  mkdir -p "$tmp/config/examlops"
  printf 'finops:\n  hardware:\n    gres: {h100: H100 SXM, a100: A100 SXM 80GB}\n    partitions:\n      gpu: {cpu_model: EPYC 7763, cpu_cores: 64}\n      cpu: {cpu_model: Xeon Platinum 8380, cpu_cores: 40}\n      debug: {cpu_model: Xeon Platinum 8380, cpu_cores: 40}\n' > "$tmp/config/examlops/finops.yaml"
else
  python3 benches/sacct_gen.py "$n" > "$tmp/sacct.txt"
fi
echo "$n jobs, $(wc -l < "$tmp/sacct.txt") lines, $(du -h "$tmp/sacct.txt" | cut -f1); TZ=${TZ:-unset, the system zone}"
python3 - target/release/exa "$tmp/sacct.txt" "$tmp" "$rounds" "$old" "$rev" <<'PY'
import csv, json, os, sqlite3, statistics, subprocess, sys, time
new, path, tmp, rounds, old, rev = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
t = time.perf_counter()
with open(path, newline="") as f:
    rows = sum(1 for _ in csv.reader(f, delimiter="|"))
floor = time.perf_counter() - t
print(f"floor: python csv reads {rows} rows in {floor:.2f} s")


def copy_alone(exa, src, dst):
    """SQLite alone writing the rows the import wrote: the same schema (made by exa), the same page cache and
    journal as exa's first import, the indexes set aside (the keys' too) and made again, every row copied inside
    SQLite. No parsing, no pricing, no binding: what any importer into this schema pays at least."""
    subprocess.run([exa, "--db", dst, "db", "migrate"], check=True, capture_output=True)
    c = sqlite3.connect(dst, isolation_level=None)
    c.execute("PRAGMA cache_size = -131072")
    c.execute("PRAGMA journal_mode = DELETE")
    c.execute("PRAGMA synchronous = FULL")
    c.execute("ATTACH ? AS old", (src,))
    indexes = c.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' AND sql IS NOT NULL ORDER BY name = 'records_idem_key', name").fetchall()
    t = time.perf_counter()
    c.execute("BEGIN IMMEDIATE")
    for name, _ in indexes:
        c.execute(f'DROP INDEX main."{name}"')
    for table in ("estimate_shapes", "estimate_forms", "records", "record_estimates", "report_cells", "report_split_runs", "report_cells_upto"):
        c.execute(f"INSERT INTO main.{table} SELECT * FROM old.{table}")
    for _, sql in indexes:
        c.execute(sql)
    c.execute("COMMIT")
    took = time.perf_counter() - t
    c.close()
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.remove(dst + suffix)
        except FileNotFoundError:
            pass
    return took


sqlite_alone = []
exas = [("this tree", new, [])] + ([(rev, old, [])] if old else [])
if os.environ.get("HARDWARE"):
    exas.append(("this tree, hardware-aware", new, ["--carbon-provider", "hardware-aware"]))
times = {name: {"first import": [], "same file again": []} for name, _, _ in exas}
said = {}
for i in range(rounds):
    for name, exa, extra in (exas if i % 2 == 0 else exas[::-1]):
        db = f"{tmp}/r-{i}-{len(extra)}-{'new' if exa == new else 'old'}.sqlite3"
        for label in ("first import", "same file again"):
            t = time.perf_counter()
            out = subprocess.run([exa, "--db", db, "-o", "json", "import", "slurm", "--file", path, *extra], check=True, capture_output=True, text=True)
            times[name][label].append(time.perf_counter() - t)
            a = json.loads(out.stdout)
            said[(name, label)] = (a["imported"], a["already_there"], a["records_written"])
        if i == 0 and exa == new and not extra:
            print(f"store: {os.path.getsize(db) / 1e6:.0f} MB")
        if exa == new and not extra:
            sqlite_alone.append(copy_alone(exa, db, f"{tmp}/alone-{i}.sqlite3"))
        for suffix in ("", "-wal", "-shm"):
            try:
                os.remove(db + suffix)
            except FileNotFoundError:
                pass
for label in ("first import", "same file again"):
    line = []
    for name, _, _ in exas:
        m = statistics.median(times[name][label])
        imp, there, written = said[(name, label)]
        each = ", ".join(f"{t:.2f}" for t in times[name][label])
        line.append(f"{name}: {m:.2f} s = {m / floor:.1f}x the floor (runs {each}; imported {imp}, already there {there}, written {written})")
    if old:
        r = statistics.median(times["this tree"][label]) / statistics.median(times[rev][label])
        line.append(f"new/old {r:.2f}x")
    print(f"{label}, median of {rounds}: " + "; ".join(line))
m = statistics.median(sqlite_alone)
print(f"SQLite alone writing the first import's rows (same schema, journal and cache; no parsing or pricing), median of {rounds}: {m:.2f} s = {m / floor:.1f}x the floor")
PY
