#!/usr/bin/env bash
# What `exa gpu serve` costs: exa's own CPU per /metrics scrape of 8 GPUs
# (target <= 1 ms), and its CPU at the default 5 s interval with nobody
# scraping (target <= 0.5% of one core), each against its target in one run.
# GPUs are the fake nvidia-smi replaying a real H100 capture; its CPU is the
# tool's, not exa's, and is not counted (exa's utime + stime from
# /proc/PID/stat, children excluded), as benches/measure-overhead.sh does.
#
#   bash benches/exporter.sh [SCRAPES] [IDLE_SECONDS]     (default 2000, 60)
set -euo pipefail
cd "$(dirname "$0")/.."
scrapes=${1:-2000}
idle=${2:-60}
cargo build --release --quiet
tmp=$(mktemp -d)
ln -s "$PWD/tests/fixtures/fake-nvidia-smi" "$tmp/nvidia-smi"
export PATH="$tmp:$PATH" XDG_CONFIG_HOME="$tmp/config" FAKE_SMI_DEVICES=8 GENAI_ENABLE_CO2_TRACKING=true GENAI_POWER_COST_PER_KWH=0.2 \
  FAKE_SMI_CAPTURE="$PWD/tests/fixtures/gpu/nvsmi-query-gpu-csv__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.csv"
target/release/exa gpu serve --listen 127.0.0.1:0 2> "$tmp/err" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
python3 - "$pid" "$tmp/err" "$scrapes" "$idle" <<'PY'
import http.client, os, re, sys, time
pid, err, scrapes, idle = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
hz = os.sysconf("SC_CLK_TCK")
def cpu():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / hz
addr = None
for _ in range(300):
    m = re.search(r"http://([0-9.]+:[0-9]+)/metrics", open(err).read())
    if m:
        addr = m.group(1); break
    time.sleep(0.1)
host, port = addr.split(":")
def scrape(c):
    c.request("GET", "/metrics"); r = c.getresponse(); return r.read()
c = http.client.HTTPConnection(host, int(port))
while b"gen_ai_energy_consumed" not in scrape(c):
    time.sleep(0.5)
body = scrape(c)
series = sum(1 for l in body.decode().splitlines() if l and not l.startswith("#"))
# Idle: no scrapes, readings every 5 s (the default).
c0, t0 = cpu(), time.time()
time.sleep(idle)
c1, t1 = cpu(), time.time()
idle_pct = (c1 - c0) / (t1 - t0) * 100
# Scrapes, back to back, between two readings as much as the run allows.
c2 = cpu()
for _ in range(scrapes):
    scrape(c)
c3 = cpu()
per = (c3 - c2) / scrapes * 1000
print(f"| measure | exa | target | ratio |")
print(f"|---|---|---|---|")
print(f"| CPU per /metrics scrape, 8 GPUs ({series} series, {len(body)} bytes; {scrapes} scrapes) | {per:.3f} ms | 1 ms | {per / 1.0:.2f}x |")
print(f"| CPU at the default 5 s interval, nobody scraping ({t1 - t0:.0f} s) | {idle_pct:.4f}% of one core | 0.5% | {idle_pct / 0.5:.3f}x |")
PY
