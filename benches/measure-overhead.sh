#!/usr/bin/env bash
# exa's own CPU use while it measures a command at a 1 s interval, with a
# fake nvidia-smi replaying a real H100 capture (its CPU is not exa's, and
# is not counted: exa reports exa_cpu_s from getrusage(RUSAGE_SELF)).
#
#   bash benches/measure-overhead.sh [SECONDS]     (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
cargo build --release --quiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ln -s "$PWD/tests/fixtures/fake-nvidia-smi" "$tmp/nvidia-smi"
export PATH="$tmp:$PATH" XDG_CONFIG_HOME="$tmp/config" FAKE_SMI_POWER=300 \
  FAKE_SMI_CAPTURE="$PWD/tests/fixtures/gpu/nvsmi-query-gpu-csv__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.csv"
target/release/exa -o json finops measure --interval 1 --report "$tmp/r.json" -- sleep "$secs"
python3 - "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
d, cpu, n = r["duration_s"], r["exa_cpu_s"], r["gpu"]["samples"]
print(f"measured {d:.1f} s, {n} samples at 1 s: exa used {cpu:.3f} CPU-s = {cpu / d * 100:.3f}% of one core, {cpu / n * 1000:.2f} ms per sample")
PY
