#!/usr/bin/env bash
# What charging a node's energy to its pods costs `exa gpu serve`: a node of 110 pods (the kubelet's default
# most) in a fake host tree (cgroup v2 pods, RAPL counters, /proc/stat), 8 GPUs through the fake NVML, 8 of the
# pods holding one each (the kubelet's PodResources API, gRPC's Python server from the published api.proto) and
# all 110 named by a loopback API server, against the same node exported without --pods (today's exporter),
# side by side in one run. Measured: exa's own CPU per /metrics scrape, and at the default 5 s interval with
# nobody scraping (target: the pods' part under 0.1% of one core), from /proc/PID/stat (utime + stime, the fake
# library's time included: an upper bound on exa's).
#
#   bash benches/exporter_pods.sh [SCRAPES] [IDLE_SECONDS] [INTERVAL]     (default 1000, 60, 5)
set -euo pipefail
cd "$(dirname "$0")/.."
scrapes=${1:-1000}
idle=${2:-60}
interval=${3:-5}
python=target/test-python/bin/python
[ -x "$python" ] || { echo "needs $python with grpcio (cargo xtask test makes it)" >&2; exit 1; }
cargo build --release --quiet
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
cc -shared -fPIC -O2 -o "$tmp/libnvidia-ml.so.1" tests/fixtures/fake-nvml.c
cp -r tests/fixtures/powercap/intel-xeon-2s "$tmp/host"
capture="tests/fixtures/gpu/nvsmi-query-gpu-csv__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.csv"
python3 - "$capture" "$tmp" <<'PY'
import json, os, sys, uuid
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
host = f"{tmp}/host"
os.makedirs(f"{host}/sys/devices/system/cpu", exist_ok=True)
open(f"{host}/sys/devices/system/cpu/online", "w").write("0-63\n")
os.makedirs(f"{host}/proc", exist_ok=True)
open(f"{host}/proc/stat", "w").write("cpu  1000 0 500 90000 0 0 0 0 0 0\n")
top = f"{host}/sys/fs/cgroup/kubepods.slice"
os.makedirs(top, exist_ok=True)
open(f"{top}/cgroup.procs", "w").write("")
items, held = [], []
for i in range(110):
    uid = str(uuid.UUID(int=i + 1))
    qos = ["burstable", "besteffort"][i % 2]
    d = f"{top}/kubepods-{qos}.slice/kubepods-{qos}-pod{uid.replace('-', '_')}.slice"
    os.makedirs(d)
    open(f"{d}/cpu.stat", "w").write(f"usage_usec {1000000 * (i + 1)}\nuser_usec 1\nsystem_usec 1\n")
    meta = {"name": f"pod-{i}", "namespace": f"team-{i % 10}", "uid": uid, "labels": {"team": f"t{i % 10}", "app": "x"}}
    items.append({"metadata": meta, "spec": {"nodeName": "node-1", "containers": [{"name": "main", "image": "example/x:1"}]}})
    if i < 8:
        held.append({"name": f"pod-{i}", "namespace": f"team-{i % 10}",
                     "containers": [{"name": "main", "devices": [{"resource_name": "nvidia.com/gpu", "device_ids": [f"GPU-{i:08d}-0000-0000-0000-000000000000"]}]}]})
json.dump({"kind": "PodList", "apiVersion": "v1", "items": items}, open(f"{tmp}/pods.json", "w"))
json.dump({"pods": held}, open(f"{tmp}/podresources.json", "w"))
PY
# The API server: the pod list, to any GET.
python3 - "$tmp/pods.json" "$tmp/api-port" <<'PY' &
import http.server, sys
body = open(sys.argv[1], "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[2], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
"$python" tests/fixtures/kubernetes/podresources/server.py "$tmp/k.sock" "$tmp/podresources.json" > "$tmp/kubelet-ready" &
for _ in $(seq 100); do [ -s "$tmp/api-port" ] && grep -q ready "$tmp/kubelet-ready" && break; sleep 0.1; done
export XDG_CONFIG_HOME="$tmp/config" EXAMLOPS_NVML_LIBRARY="$tmp/libnvidia-ml.so.1" FAKE_NVML_READINGS="$tmp/readings.txt" \
  EXAMLOPS_HOST_ROOT="$tmp/host" EXAMLOPS_NODE_NAME=node-1
api="http://127.0.0.1:$(cat "$tmp/api-port")"
run() { # $1: label, then exa's extra flags -> one line of figures
  label=$1; shift
  target/release/exa gpu serve --listen 127.0.0.1:0 --interval "$interval" "$@" > /dev/null 2> "$tmp/err-$label" &
  local exa=$!
  local want=gen_ai_energy_consumed
  [ "$label" = pods ] && want=exa_pod_energy
  echo "$label $(python3 benches/exporter_cpu.py "$exa" "$tmp/err-$label" "$scrapes" "$idle" "$want")"
  kill "$exa" 2>/dev/null || true
  wait "$exa" 2>/dev/null || true
}
before=$(run before)
pods=$(run pods --pods --pod-label team --pod-resources "$tmp/k.sock" --kube-api "$api")
grep -i "warn" "$tmp/err-pods" >&2 || true
python3 - "$before" "$pods" "$interval" <<'PY'
import sys
b, p = (a.split() for a in sys.argv[1:3])
interval = sys.argv[3]
print(f"| 8 GPUs, RAPL, 110 pods (fake node) | without --pods (today) | --pods | pods/today | target |")
print("|---|---|---|---|---|")
print(f"| series served | {b[1]} | {p[1]} ({p[2]} pods) | | 2 a pod a component |")
times = lambda a, b: f"{a / b:.2f}x" if b > 0 else "(today's under one clock tick)"
print(f"| CPU per /metrics scrape | {float(b[3]):.3f} ms | {float(p[3]):.3f} ms | {times(float(p[3]), float(b[3]))} | |")
extra = float(p[4]) - float(b[4])
ratio = times(float(p[4]), float(b[4]))
print(f"| CPU at a {interval} s interval, nobody scraping | {float(b[4]):.4f}% | {float(p[4]):.4f}% | {ratio} | the pods' part {extra:.4f}% < 0.1% of a core |")
PY
