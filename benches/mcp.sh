#!/usr/bin/env bash
# What a tool call over MCP costs beyond the CLI's own work for the same
# question, the server already running: the mean round trip of a tools/call
# over stdio (a bare JSON-RPC client, so the SDK's own cost is not counted),
# beside the CLI's own work, measured as the `exa` process for the same
# question less a bare `exa --version` process (the start every CLI call
# pays and a running server does not).
#
#   bash benches/mcp.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" HOME="$tmp"
python3 - target/release/exa <<'PY'
import json, statistics, subprocess, sys, time
exa = sys.argv[1]

def process(args, n=60):
    runs = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run([exa, *args], check=True, stdout=subprocess.DEVNULL)
        runs.append(time.perf_counter() - t)
    return statistics.median(runs)

server = subprocess.Popen([exa, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def rpc(msg):
    server.stdin.write(json.dumps(msg) + "\n")
    server.stdin.flush()
    return json.loads(server.stdout.readline()) if "id" in msg else None

rpc({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
rpc({"jsonrpc": "2.0", "method": "notifications/initialized"})

def call(name, args, n=300):
    runs = []
    for i in range(n):
        t = time.perf_counter()
        r = rpc({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": name, "arguments": args}})
        runs.append(time.perf_counter() - t)
        assert not r["result"].get("isError"), r
    return statistics.median(runs)

bare = process(["--version"])
for name, args, cli in [
    ("finops_estimate", {"domain": "carbon", "gpu_hours": 12, "cpu_hours": 32}, ["-o", "json", "finops", "carbon", "estimate", "--gpu-hours", "12", "--cpu-hours", "32"]),
    ("finops_providers", {"domain": "cost"}, ["-o", "json", "finops", "cost", "providers"]),
]:
    rtt = call(name, args)
    work = max(process(cli) - bare, 0.0)
    print(f"{name}: MCP round trip {rtt * 1000:.2f} ms; CLI process {(work + bare) * 1000:.2f} ms, of which its own work {work * 1000:.2f} ms "
          f"(bare start {bare * 1000:.2f} ms); overhead over the work {(rtt - work) * 1000:.2f} ms (median of 300 calls, 60 processes)")
server.stdin.close()
server.wait(timeout=10)
PY
