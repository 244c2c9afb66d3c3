#!/usr/bin/env bash
# `exa metrics flags` over a 7-day window on 8 nodes of 8 GPUs against a real
# Prometheus (Debian's package), beside the summed time of the Prometheus
# queries it made (they run concurrently, so the ratio shows the overlap).
#
#   bash benches/metrics.sh        (needs prometheus and promtool on PATH)
#   EXA_BASELINE=/path/to/old/exa bash benches/metrics.sh   (the same runs with another build, side by side)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
tmp=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cleanup() { pkill -f "web.listen-address=127.0.0.1:$port" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
python3 - "$tmp/series.om" <<'PY'
import sys, time
now = int(time.time()) // 300 * 300
start = now - 7 * 86400
out = open(sys.argv[1], "w")
gauges = {"DCGM_FI_DEV_GPU_TEMP": 65, "DCGM_FI_DEV_MEMORY_TEMP": 50, "DCGM_FI_DEV_SM_CLOCK": 1980, "DCGM_FI_DEV_MEM_CLOCK": 2619,
          "DCGM_FI_DEV_GPU_UTIL": 90, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE": 0.8, "DCGM_FI_PROF_SM_ACTIVE": 0.7, "DCGM_FI_PROF_DRAM_ACTIVE": 0.4,
          "DCGM_FI_DEV_POWER_USAGE": 600, "DCGM_FI_DEV_FB_USED": 40000, "DCGM_FI_DEV_FB_FREE": 41559, "DCGM_FI_DEV_XID_ERRORS": 0,
          "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS": 0}
counters = ["DCGM_FI_DEV_THERMAL_VIOLATION", "DCGM_FI_DEV_POWER_VIOLATION", "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION", "DCGM_FI_DEV_SYNC_BOOST_VIOLATION",
            "DCGM_FI_DEV_LOW_UTIL_VIOLATION", "DCGM_FI_DEV_RELIABILITY_VIOLATION", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
            "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"]
times = range(start, now + 1, 300)
for n in range(8):
    node = f"gpu-node-{n}"
    for g in range(8):
        l = f'gpu="{g}",Hostname="{node}",modelName="NVIDIA H100 80GB HBM3"'
        for m, v in gauges.items():
            hot = m == "DCGM_FI_DEV_GPU_TEMP" and n == 3 and g == 5
            out.writelines(f"{m}{{{l}}} {91 if hot and (t // 3600) % 24 == 14 else v} {t}\n" for t in times)
        for m in counters:
            out.writelines(f"{m}{{{l}}} 0 {t}\n" for t in times)
    for m in ["node_pressure_cpu_waiting_seconds_total", "node_pressure_memory_waiting_seconds_total", "node_pressure_io_waiting_seconds_total"]:
        out.writelines(f'{m}{{Hostname="{node}"}} {(t - start) * 0.01} {t}\n' for t in times)
    out.writelines(f'node_cpu_seconds_total{{Hostname="{node}",cpu="0",mode="idle"}} {(t - start) * 0.5} {t}\n' for t in times)
    out.writelines(f'kube_pod_info{{namespace="default",pod="train-{n}",node="{node}"}} 1 {t}\n' for t in times)
    out.writelines(f'kube_pod_owner{{namespace="default",pod="train-{n}",owner_kind="Job",owner_name="train"}} 1 {t}\n' for t in times)
    out.writelines(f'kube_pod_status_phase{{namespace="default",pod="train-{n}",phase="Running"}} 1 {t}\n' for t in times)
out.write("# EOF\n")
PY
t0=$(date +%s.%N)
promtool tsdb create-blocks-from openmetrics "$tmp/series.om" "$tmp/data" >/dev/null
echo "backfilled $(grep -c . "$tmp/series.om") samples in $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s"
printf 'global:\n  scrape_interval: 1h\n' > "$tmp/prometheus.yml"
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" --web.listen-address=127.0.0.1:$port \
  --storage.tsdb.retention.time=30d >/dev/null 2>&1 &
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null && break; sleep 0.1; done
mkdir -p "$tmp/config/examlops"
printf 'clusters:\n  bench:\n    prometheus: http://127.0.0.1:%s\n    gpu_vendor: nvidia\n    gpu_model: H100\n    node_label: Hostname\n' "$port" > "$tmp/config/examlops/finops.yaml"
export XDG_CONFIG_HOME="$tmp/config"
for exa in target/release/exa ${EXA_BASELINE:-}; do
for run in 1 2 3; do
  s=$(date +%s.%N)
  "$exa" -o json metrics flags --cluster bench --kind Job --name train --range 7d --points 96 > "$tmp/flags.json"
  e=$(date +%s.%N)
  python3 - "$tmp/flags.json" "$s" "$e" "$exa" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
q = r["queries"]
print(f"{sys.argv[4]}: flags, 7d, 8 nodes x 8 GPUs: wall {wall:.2f} s; {q['count']} Prometheus queries summing {q['seconds']:.2f} s; "
      f"wall / sum = {wall / q['seconds']:.2f}; {len(r['flags'])} flag(s), clean={r['clean']}")
PY
done
done
