#!/usr/bin/env bash
# exa's own CPU use while it measures a command at a 1 s interval, through
# each GPU source side by side in one run (both at once, so they share the
# machine's noise):
#   nvidia-smi  a fake nvidia-smi replaying a real H100 capture: one process
#               forked per reading (the fake's own CPU is not exa's and is not
#               counted: exa reports exa_cpu_s from getrusage(RUSAGE_SELF));
#   nvml        the fake libnvidia-ml.so.1 the tests build: calls in-process,
#               no fork;
#   none        `--gpus none`: no readings at all, exa's fixed cost (start,
#               pricing, the report), which the sampling cost is over.
# Target: NVML sampling at 1 s costs <= 0.05% of one core.
#
#   bash benches/measure-overhead.sh [SECONDS]     (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
cargo build --release --quiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -shared -fPIC -O2 -o "$tmp/libnvidia-ml.so.1" tests/fixtures/fake-nvml.c
ln -s "$PWD/tests/fixtures/fake-nvidia-smi" "$tmp/nvidia-smi"
capture="$PWD/tests/fixtures/gpu/nvsmi-query-gpu-csv__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.csv"
# Eight H100s for both sources, with the capture's static values.
for i in 0 1 2 3 4 5 6 7; do
  printf '%d GPU-%08d-0000-0000-0000-000000000000 300 300 0 1 -1 100 40000 81559 60 700 1980 2619 - - NVIDIA H100 80GB HBM3\n' "$i" "$i"
done > "$tmp/readings"
export PATH="$tmp:$PATH" XDG_CONFIG_HOME="$tmp/config" FAKE_SMI_POWER=300 FAKE_SMI_DEVICES=8 FAKE_SMI_CAPTURE="$capture" \
  FAKE_NVML_READINGS="$tmp/readings"
target/release/exa -o json finops measure --gpu-source nvidia-smi --interval 1 --report "$tmp/smi.json" -- sleep "$secs" &
EXAMLOPS_NVML_LIBRARY="$tmp/libnvidia-ml.so.1" \
  target/release/exa -o json finops measure --gpu-source nvml --interval 1 --report "$tmp/nvml.json" -- sleep "$secs" &
target/release/exa -o json finops measure --gpus none --report "$tmp/none.json" -- sleep "$secs" &
wait
python3 - "$tmp/none.json" "$tmp/smi.json" "$tmp/nvml.json" <<'PY'
import json, sys
base = json.load(open(sys.argv[1]))["exa_cpu_s"]
print(f"exa's fixed cost (no readings, --gpus none): {base:.4f} CPU-s\n")
print("| source | measured s | readings (8 GPUs) | exa CPU-s | sampling CPU-s (over the fixed cost) | sampling % of one core | ms per reading |")
print("|---|---|---|---|---|---|---|")
rows = []
for path in sys.argv[2:]:
    r = json.load(open(path))
    d, cpu, n = r["duration_s"], r["exa_cpu_s"], r["gpu"]["samples"]
    s = max(cpu - base, 0.0)
    rows.append(s / d * 100)
    print(f"| {r['gpu']['source']} | {d:.1f} | {n} | {cpu:.4f} | {s:.4f} | {s / d * 100:.4f}% | {s / n * 1000:.3f} |")
smi, nvml = rows
print(f"\nNVML sampling: {nvml:.4f}% of one core = {nvml / 0.05:.2f}x the 0.05% target; nvidia-smi polling: {smi / max(nvml, 1e-9):.1f}x NVML's")
PY
