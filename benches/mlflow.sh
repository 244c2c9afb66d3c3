#!/usr/bin/env bash
# What logging to MLflow adds to a record: `record --run-id` with and without
# MLFLOW_TRACKING_URI set (median of 30 processes each), beside one bare
# runs/log-batch round trip of the same shape (four metrics, five tags) to the
# same server (median of 30, from Python).
# Needs MLflow in target/test-python (`cargo xtask test` installs it).
#
#   bash benches/mlflow.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
py=target/test-python/bin/python
tmp=$(mktemp -d)
port=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
MLFLOW_SERVER_ENABLE_JOB_EXECUTION=false setsid "$py" -m mlflow server --host 127.0.0.1 --port "$port" --workers 1 \
  --backend-store-uri "sqlite:///$tmp/mlflow.db" --default-artifact-root "$tmp/art" >"$tmp/log" 2>&1 &
pid=$!
trap 'kill -TERM -- -$pid 2>/dev/null; rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" EXAMLOPS_DB="$tmp/records.sqlite3"
"$py" - target/release/exa "http://127.0.0.1:$port" <<'PY'
import json, os, statistics, subprocess, sys, time, urllib.request
exa, url = sys.argv[1], sys.argv[2]
for _ in range(120):
    try:
        urllib.request.urlopen(url + "/health", timeout=1); break
    except Exception:
        time.sleep(0.5)
def post(path, body):
    req = urllib.request.Request(f"{url}/api/2.0/mlflow/{path}", data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    return json.loads(urllib.request.urlopen(req, timeout=10).read() or b"{}")
exp = post("experiments/create", {"name": "bench"})["experiment_id"]
run = post("runs/create", {"experiment_id": exp})["run"]["info"]["run_id"]
def timed(env, n=30):
    runs = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run([exa, "finops", "carbon", "record", "M", "--gpu-hours", "1", "--run-id", run], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **env})
        runs.append(time.perf_counter() - t)
    return statistics.median(runs)
plain = timed({"MLFLOW_TRACKING_URI": ""})
logged = timed({"MLFLOW_TRACKING_URI": url})
trips = []
for i in range(30):
    t = time.perf_counter()
    # The same shape as a carbon record's log: four metrics, five tags.
    metrics = [{"key": f"bench.m{k}", "value": i, "timestamp": 1000 + i, "step": 0} for k in range(4)]
    tags = [{"key": f"bench.t{k}", "value": str(i)} for k in range(5)]
    post("runs/log-batch", {"run_id": run, "metrics": metrics, "tags": tags})
    trips.append(time.perf_counter() - t)
trip = statistics.median(trips)
print(f"record: {plain * 1000:.1f} ms alone, {logged * 1000:.1f} ms logged to MLflow (+{(logged - plain) * 1000:.1f} ms); "
      f"one log-batch round trip {trip * 1000:.1f} ms (extra / round trip = {(logged - plain) / trip:.2f}; medians of 30)")
PY
