#!/usr/bin/env bash
# `exa import kubernetes` of one day of N pods (default 1100: 10 nodes of 110) from a real Prometheus (Debian's
# package), beside its floor: the same 13 Prometheus queries asked by a plain HTTP client, one after another, as
# exa asks them, their answers read and dropped. What exa adds is counting the hours, pricing every pod-day in
# both domains, and (without --dry-run) writing the records.
#
#   bash benches/import_kubernetes.sh [PODS]      (needs prometheus and promtool on PATH)
set -euo pipefail
cd "$(dirname "$0")/.."
pods=${1:-1100}
cargo build --release --quiet
tmp=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cleanup() { pkill -f "web.listen-address=127.0.0.1:$port" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
day=$(python3 -c 'import time; print((int(time.time()) // 86400 - 2) * 86400)')
python3 - "$tmp/series.om" "$pods" "$day" <<'PY'
import sys
out, pods, day = open(sys.argv[1], "w"), int(sys.argv[2]), int(sys.argv[3])
times = range(day - 7200, day + 86400 + 1, 300)
for p in range(pods):
    uid = f"00000000-0000-4000-8000-{p:012d}"
    l = f'node="n{p // 110}",k8s_namespace_name="ns-{p % 17}",k8s_pod_name="pod-{p}",k8s_pod_uid="{uid}"'
    gpu = p % 14 == 0
    for c, w in (("gpu", 300.0 if gpu else 0.0), ("cpu", 5.0 + p % 7), ("dram", 1.0)):
        out.writelines(f'exa_pod_energy_joules_total{{{l},component="{c}"}} {w * (t - times[0])} {t}\n' for t in times)
    out.writelines(f'exa_pod_gpu_time_seconds_total{{{l}}} {float(t - times[0]) if gpu else 0.0} {t}\n' for t in times)
    out.writelines(f'exa_pod_cpu_time_seconds_total{{{l}}} {0.5 * (t - times[0])} {t}\n' for t in times)
    out.writelines(f'exa_pod_info{{{l},k8s_pod_label_team="team-{p % 5}"}} 1 {t}\n' for t in times)
out.write("# EOF\n")
PY
promtool tsdb create-blocks-from openmetrics "$tmp/series.om" "$tmp/data" >/dev/null
printf 'global:\n  scrape_interval: 1h\n' > "$tmp/prometheus.yml"
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" --web.listen-address=127.0.0.1:$port \
  --storage.tsdb.retention.time=30d >/dev/null 2>&1 &
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null && break; sleep 0.1; done
url="http://127.0.0.1:$port"
since=$(python3 -c "import datetime; print(datetime.datetime.utcfromtimestamp($day).date())")
floor() {
  python3 - "$url" "$day" <<'PY'
import sys, time, urllib.parse, urllib.request
url, day = sys.argv[1], int(sys.argv[2])
def get(path, **q):
    with urllib.request.urlopen(f"{url}/api/v1/{path}?{urllib.parse.urlencode(q)}", timeout=60) as r:
        r.read()
s = time.time()
for m in ("exa_pod_energy_joules_total", "exa_pod_gpu_time_seconds_total", "exa_pod_cpu_time_seconds_total"):
    for f in ("last_over_time", "resets", "max_over_time"):
        get("query_range", query=f"{f}({m}[1h])", start=day, end=day + 86400, step=3600)
    get("query", query=f"last_over_time({m}[1d])", time=day)
get("query", query="last_over_time(exa_pod_info[1d])", time=day + 86400)
print(f"{time.time() - s:.3f}")
PY
}
run() {
  local s e
  s=$(date +%s.%N)
  target/release/exa -o json import kubernetes --cluster bench --prometheus "$url" --since "$since" --until "$since" "$@" \
    --db "$tmp/ledger.sqlite3" > "$tmp/out.json"
  e=$(date +%s.%N)
  python3 -c "print(f'{$e - $s:.3f}')"
}
echo "one day of $pods pods: $(python3 -c "import json; print(sum(1 for _ in open('$tmp/series.om')) - 1)") samples"
for i in 1 2 3; do
  f=$(floor); d=$(run --dry-run); rm -f "$tmp/ledger.sqlite3"; w=$(run)
  python3 - "$f" "$d" "$w" "$tmp/out.json" <<'PY'
import json, sys
f, d, w = map(float, sys.argv[1:4])
r = json.load(open(sys.argv[4]))
print(f"queries alone {f:.2f} s | import --dry-run {d:.2f} s ({d / f:.2f}x) | import into SQLite {w:.2f} s ({w / f:.2f}x): "
      f"{r['pod_days']} pod-days, {r['records_written']} records, {r['queries']} queries")
PY
done
