#!/usr/bin/env bash
# `exa budget check` on a ledger of N imported jobs (default 1,000,000: two million records), beside the floor the
# issue sets: one `exa finops carbon estimate` process. The check prices the work it adds (carbon and cost), reads
# the budgets and counts the account's month so far as `report` does; alternating with the estimate in one run, so
# the machine's mood falls on both alike. Goal: under 2x the estimate.
#
#   bash benches/budget.sh [N] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
rounds=${2:-30}
cargo build --release --quiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" EXAMLOPS_DB="$tmp/ledger.sqlite3"
exa=target/release/exa
python3 benches/sacct_gen.py "$n" > "$tmp/sacct.txt"
t=$(date +%s)
$exa import slurm --file "$tmp/sacct.txt" --cluster hpc1 > /dev/null
echo "$n jobs imported in $(( $(date +%s) - t )) s; $($exa -o json report | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["totals"]["records"]["carbon"] + r["totals"]["records"]["cost"], "records")')"
$exa budget set ml-month --scope account=ml --period month --kwh 1e9 --usd 1e9 > /dev/null
$exa budget set ml-week --scope account=ml --period week --kgco2e 1e9 > /dev/null
python3 - "$exa" "$rounds" <<'PY'
import statistics, subprocess, sys, time
exa, rounds = sys.argv[1], int(sys.argv[2])
# The jobs end from 2026-10-01 on, 2 s apart: the 20th of October is in the thick of them.
check = [exa, "budget", "check", "--scope", "account=ml", "--at", "2026-10-20", "--add-gpu-hours", "8"]
estimate = [exa, "finops", "carbon", "estimate", "--gpu-hours", "8"]
out = subprocess.run(check, capture_output=True, text=True)
print("check says:", out.stdout.splitlines()[0], f"(exit {out.returncode})")
times = {"check": [], "estimate": []}
for _ in range(rounds):
    for name, argv in (("check", check), ("estimate", estimate)):
        t = time.perf_counter()
        subprocess.run(argv, check=name == "estimate", capture_output=True)
        times[name].append(time.perf_counter() - t)
for name, ts in times.items():
    print(f"{name:9} min {min(ts)*1e3:7.2f} ms  median {statistics.median(ts)*1e3:7.2f} ms  max {max(ts)*1e3:7.2f} ms")
ratio = statistics.median(times["check"]) / statistics.median(times["estimate"])
print(f"check / estimate (medians): {ratio:.2f}x  (goal: under 2x)")
PY
