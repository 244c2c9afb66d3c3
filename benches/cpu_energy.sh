#!/usr/bin/env bash
# What reading CPU energy costs `exa finops measure`: the same `sleep S` measured at --interval 1 with
# --cpu-source powercap (a 2-socket powercap tree: four counters, read as their ranges need) and with
# --cpu-source none, alternating, ROUNDS times; exa's own CPU time (the report's exa_cpu_s)
# is compared, as a share of one core over the run. Then the steady cost, exa's start-up taken
# out: each source's runs of S and of 4S seconds, the difference of their CPU times over the 3S
# seconds between them, powercap's less none's.
#
#   bash benches/cpu_energy.sh [S]
set -euo pipefail
cd "$(dirname "$0")/.."
s=${1:-20}
rounds=${ROUNDS:-3}
cargo build --release --quiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r tests/fixtures/powercap/intel-xeon-2s "$tmp/host"
mkdir -p "$tmp/host/sys/devices/system/cpu" "$tmp/host/proc"
echo 0 > "$tmp/host/sys/devices/system/cpu/online"
echo "cpu  1 0 1 1 0 0 0 0 0 0" > "$tmp/host/proc/stat"
export EXAMLOPS_HOST_ROOT="$tmp/host" XDG_CONFIG_HOME="$tmp/config" PATH=/usr/bin:/bin
# The counters move as a package's do (50 W each, read every half second): a still counter is no measurement.
(
  while :; do
    for f in "$tmp"/host/sys/class/powercap/intel-rapl:[0-9]*/energy_uj; do
      v=$(cat "$f"); echo $((v + 25000000)) > "$f"
    done
    sleep 0.5
  done
) &
mover=$!
trap 'kill $mover 2>/dev/null; rm -rf "$tmp"' EXIT
python3 - "$PWD/target/release/exa" "$tmp" "$s" "$rounds" <<'PY'
import json, statistics, subprocess, sys
exa, tmp, s, rounds = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
cost = {"powercap": [], "none": []}
for i in range(rounds):
    for src in (("powercap", "none") if i % 2 == 0 else ("none", "powercap")):
        report = f"{tmp}/r.json"
        subprocess.run([exa, "-o", "json", "finops", "measure", "--interval", "1", "--cpu-source", src, "--report", report, "--", "sleep", str(s)], check=True, capture_output=True)
        r = json.load(open(report))
        if src == "powercap":
            assert r["cpu_energy"]["status"] == "measured", r["cpu_energy"]
        cost[src].append(r["exa_cpu_s"] / r["duration_s"])
p, n = statistics.median(cost["powercap"]), statistics.median(cost["none"])
print(f"sleep {s:g} s, median of {rounds}: exa uses {p * 100:.4f}% of a core reading CPU energy, {n * 100:.4f}% without; "
      f"the reading adds {(p - n) * 100:.4f}% of a core (ratio {p / n if n else float('inf'):.2f}x)")
# The steady cost: CPU seconds of a 4S run less those of an S run, over the 3S seconds between, per source.
steady = {"powercap": [], "none": []}
for i in range(rounds):
    for src in (("powercap", "none") if i % 2 == 0 else ("none", "powercap")):
        used = []
        for length in (s, 4 * s):
            report = f"{tmp}/r.json"
            subprocess.run([exa, "-o", "json", "finops", "measure", "--interval", "1", "--cpu-source", src, "--report", report, "--", "sleep", str(length)], check=True, capture_output=True)
            r = json.load(open(report))
            used.append((r["exa_cpu_s"], r["duration_s"]))
        steady[src].append((used[1][0] - used[0][0]) / (used[1][1] - used[0][1]))
p, n = statistics.median(steady["powercap"]), statistics.median(steady["none"])
print(f"steady, start-up taken out ({4 * s:g} s less {s:g} s runs, median of {rounds}): {p * 100:.4f}% of a core with powercap, "
      f"{n * 100:.4f}% without; reading CPU energy adds {(p - n) * 100:.4f}% of a core")
PY
