#!/usr/bin/env bash
# `exa import slurm --file` of N jobs (default 1,000,000) from realistic `sacct -P`
# output (benches/sacct_gen.py: each allocation with its .batch and .extern steps),
# then the same file again (nothing new), beside the floor a site script starts
# from: Python's csv module merely reading the same file.
#
#   bash benches/import.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
cargo build --release --quiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" EXAMLOPS_DB="$tmp/records.sqlite3" TZ=UTC
python3 benches/sacct_gen.py "$n" > "$tmp/sacct.txt"
echo "$n jobs, $(wc -l < "$tmp/sacct.txt") lines, $(du -h "$tmp/sacct.txt" | cut -f1)"
python3 - target/release/exa "$tmp/sacct.txt" <<'PY'
import csv, subprocess, sys, time
exa, path = sys.argv[1], sys.argv[2]
t = time.perf_counter()
with open(path, newline="") as f:
    rows = sum(1 for _ in csv.reader(f, delimiter="|"))
floor = time.perf_counter() - t
print(f"floor: python csv reads {rows} rows in {floor:.2f} s")
for label in ("first import", "same file again"):
    t = time.perf_counter()
    out = subprocess.run([exa, "-o", "json", "import", "slurm", "--file", path], check=True, capture_output=True, text=True)
    took = time.perf_counter() - t
    import json
    a = json.loads(out.stdout)
    print(f"{label}: {took:.2f} s ({took / floor:.1f}x the floor): imported {a['imported']}, already there {a['already_there']}, "
          f"records written {a['records_written']}, skipped {sum(a['skipped'].values())}")
PY
ls -l "$EXAMLOPS_DB" | awk '{printf "store: %.0f MB\n", $5 / 1e6}'
