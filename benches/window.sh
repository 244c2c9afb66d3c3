#!/usr/bin/env bash
# A window of `examlops.Monitor` (a reading at each edge from the node's measurer, `measure --serve`, priced at its
# end) beside the floor it replaces: a block measured by `examlops.measure`, which starts an `exa finops measure`
# process. Both on the fake NVML (tests/fixtures/fake-nvml.c: two H100s, energy counters), alternating rounds in
# one run so the machine's mood falls on both alike. Goal: a window under 1 ms.
#
#   bash benches/window.sh [WINDOWS_PER_ROUND] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-500}
rounds=${2:-10}
cargo build --release --quiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -shared -fPIC -O2 -o "$tmp/libnvidia-ml.so.1" tests/fixtures/fake-nvml.c
uuid=GPU-00000000-0000-0000-0000-00000000000
{
  echo "# index uuid lo_w hi_w half_ms counter lost_ms util mem_used mem_total temp limit sm mem pids migs name"
  for i in 0 1; do echo "$i $uuid$i 300 300 0 1 -1 50 1000 81559 40 700 1980 2619 - - NVIDIA H100 80GB HBM3"; done
} > "$tmp/readings.txt"
mkdir -m 700 "$tmp/run"
export EXAMLOPS_NVML_LIBRARY="$tmp/libnvidia-ml.so.1" FAKE_NVML_READINGS="$tmp/readings.txt" XDG_RUNTIME_DIR="$tmp/run" \
  XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" EXAMLOPS_EXA="$PWD/target/release/exa" PYTHONPATH="$PWD/python"
python3 - "$n" "$rounds" <<'PY'
import statistics, sys, time
import examlops
n, rounds = int(sys.argv[1]), int(sys.argv[2])
m = examlops.Monitor()
times = {"window": [], "read": [], "process": []}
for _ in range(rounds):
    t = time.perf_counter()
    for _ in range(n):
        with m.window("w") as w:
            pass
    times["window"].append((time.perf_counter() - t) / n)
    t = time.perf_counter()
    for _ in range(n):
        m._ask({"op": "read"})
    times["read"].append((time.perf_counter() - t) / n)
    t = time.perf_counter()
    with examlops.measure() as run:
        pass
    times["process"].append(time.perf_counter() - t)
assert w.gpu_total_j >= 0 and run.report["gpu"]["status"] == "measured", (w.data, run.report["gpu"])
m.close()
for name, ts in times.items():
    print(f"{name:8} min {min(ts)*1e3:8.3f} ms  median {statistics.median(ts)*1e3:8.3f} ms  max {max(ts)*1e3:8.3f} ms")
w, p = statistics.median(times["window"]), statistics.median(times["process"])
print(f"a window (two round trips, priced): {w*1e3:.3f} ms (goal: under 1 ms); a process per block: {p*1e3:.1f} ms, {p/w:.0f}x a window")
PY
