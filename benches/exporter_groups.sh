#!/usr/bin/env bash
# What splitting shared GPUs among jobs costs `exa gpu serve`: 8 GPUs through the fake NVML, each shared by
# 3 processes of 3 Slurm jobs (24 jobs, their control groups in a fake host tree), against the same GPUs with
# no process activity (the exporter as it was before the split: no per-job series), side by side in one run.
# Measured: exa's own CPU per /metrics scrape (target <= 1 ms) and at a 1 s interval with nobody scraping
# (target <= 0.5% of one core), from /proc/PID/stat (utime + stime, the fake library's time included, as it
# runs in exa's process: an upper bound on exa's).
#
#   bash benches/exporter_groups.sh [SCRAPES] [IDLE_SECONDS]     (default 2000, 30)
set -euo pipefail
cd "$(dirname "$0")/.."
scrapes=${1:-2000}
idle=${2:-30}
cargo build --release --quiet
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
cc -shared -fPIC -O2 -o "$tmp/libnvidia-ml.so.1" tests/fixtures/fake-nvml.c
capture="tests/fixtures/gpu/nvsmi-query-gpu-csv__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.csv"
# The capture's static values, as the tests' fake NVML readings take them.
python3 - "$capture" "$tmp" <<'PY'
import os, sys
capture, tmp = sys.argv[1], sys.argv[2]
lines = [l.rstrip("\n") for l in open(capture) if not l.startswith("#")]
head = [h.split(" [")[0] for h in lines[0].split(", ")]
first = lines[1].split(", ")
col = lambda name: first[head.index(name)].split()[0]
name = first[head.index("name")]
with open(f"{tmp}/readings.txt", "w") as f:
    for i in range(8):
        f.write(f"{i} GPU-{i:08d}-0000-0000-0000-000000000000 100 100 500 1 -1 {col('utilization.gpu')} {col('memory.used')} "
                f"{col('memory.total')} {col('temperature.gpu')} {col('power.limit')} {col('clocks.current.sm')} "
                f"{col('clocks.current.memory')} - - {name}\n")
with open(f"{tmp}/processes.txt", "w") as f:
    for i in range(8):
        for k in range(3):
            pid = 10000 + i * 10 + k
            f.write(f"{i} {pid} {20 + 10 * k} 10 2.0 0 -1\n")
            os.makedirs(f"{tmp}/host/proc/{pid}")
            open(f"{tmp}/host/proc/{pid}/cgroup", "w").write(f"0::/system.slice/slurmstepd.scope/job_{pid}/step_0/user/task_0\n")
PY
export XDG_CONFIG_HOME="$tmp/config" EXAMLOPS_NVML_LIBRARY="$tmp/libnvidia-ml.so.1" FAKE_NVML_READINGS="$tmp/readings.txt" \
  EXAMLOPS_HOST_ROOT="$tmp/host" EXAMLOPS_CPU_SOURCE=none
run() { # $1: label, $2: processes file or "" -> one line of figures
  FAKE_NVML_PROCESSES="$2" target/release/exa gpu serve --listen 127.0.0.1:0 --interval 1 > /dev/null 2> "$tmp/err-$1" &
  local want=gen_ai_energy_consumed
  [ "$1" = split ] && want=gen_ai_gpu_energy_attributed
  echo "$1 $(python3 benches/exporter_cpu.py "$!" "$tmp/err-$1" "$scrapes" "$idle" "$want" 'group_kind="slurm-job",group_id="([^"]+)"')"
  kill %1 2>/dev/null || true
  wait 2>/dev/null || true
}
whole=$(run whole "")
split=$(run split "$tmp/processes.txt")
python3 - "$whole" "$split" <<'PY'
import sys
w, s = (a.split() for a in sys.argv[1:])
print("| 8 shared GPUs (fake NVML) | no activity (before) | split among 24 jobs | split/before | target |")
print("|---|---|---|---|---|")
print(f"| series served | {w[1]} | {s[1]} ({s[2]} job series) | | |")
print(f"| CPU per /metrics scrape | {float(w[3]):.3f} ms | {float(s[3]):.3f} ms | {float(s[3]) / float(w[3]):.2f}x | 1 ms |")
print(f"| CPU at a 1 s interval, nobody scraping | {float(w[4]):.4f}% | {float(s[4]):.4f}% | {float(s[4]) / max(float(w[4]), 1e-9):.2f}x | 0.5% of a core |")
PY
