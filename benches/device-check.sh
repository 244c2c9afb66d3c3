#!/usr/bin/env bash
# The check to run on a real NVIDIA GPU machine: what exa reads there, and
# how the energy counter compares with the trapezoid over power readings.
#
#   bash benches/device-check.sh [OUTDIR]      (default ./device-check; LOAD_SECONDS=60)
#   EXA=path/to/exa bash benches/device-check.sh   (a machine without cargo)
#
# 1. Builds exa (release) and saves `exa gpu` and `exa -o json gpu` (the
#    JSON is a new fixture) for each source that works here.
# 2. Around a 60 s matrix-multiply load (PyTorch when it is installed, else
#    an idle 60 s, said in the table), at --interval 1 and 5:
#      exa measure --gpu-source nvml --trace T -- exa measure --gpu-source nvidia-smi -- LOAD
#    so both sources measure the same load at once. From the NVML run: the
#    counter energy (the report) and the trapezoid over its own power
#    readings (the trace); from the nvidia-smi run: its trapezoid.
# 3. Prints one Markdown table: counter kWh, trapezoid kWh, their ratio.
# 4. Job scope and sharing: CUDA_VISIBLE_DEVICES=0, a GPU UUID, --gpus none,
#    and a run beside a load that is not its own (shared_with must be 1).
# 5. exa's steady CPU at 1 s readings (an 80 s run less a 20 s one, over 60 s).
# 6. `exa gpu serve` scraped once.
# Every nvidia-smi call exa makes is logged with its answer (a wrapper
# first on PATH), so the captures are exa's own queries on this driver.
#
# Needs: python3, an NVIDIA driver (libnvidia-ml.so.1 and nvidia-smi), and
# cargo unless EXA names a built exa.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-device-check}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [[ -n ${EXA:-} ]]; then
  exa=$(realpath "$EXA")
else
  cargo build --release --quiet
  exa=$PWD/target/release/exa
fi
export XDG_CONFIG_HOME="$out/config" XDG_DATA_HOME="$out/data"

nvidia-smi -L > "$out/nvidia-smi-L.txt" 2>&1 || true
nvidia-smi -q > "$out/nvidia-smi-q.txt" 2>&1 || true
nvidia-smi -q -x > "$out/nvidia-smi-q-x.xml" 2>&1 || true
# Every call exa makes to nvidia-smi, with what it answered.
real_smi=$(command -v nvidia-smi || echo /usr/bin/nvidia-smi)
mkdir -p "$out/wrap"
cat > "$out/wrap/nvidia-smi" <<SH
#!/usr/bin/env bash
ans=\$(mktemp); err=\$(mktemp)
"$real_smi" "\$@" > "\$ans" 2> "\$err"; rc=\$?
{ echo "\$ nvidia-smi \$*"; cat "\$ans"; sed 's/^/[stderr] /' "\$err"; echo "[exit \$rc]"; } >> "$out/nvidia-smi-calls.txt"
cat "\$ans"; cat "\$err" >&2; rm -f "\$ans" "\$err"; exit \$rc
SH
chmod +x "$out/wrap/nvidia-smi"
export PATH="$out/wrap:$PATH"
for src in nvml nvidia-smi; do
  "$exa" gpu --gpu-source "$src" --wide > "$out/exa-gpu-$src.txt" 2>&1 || true
  "$exa" -o json gpu --gpu-source "$src" > "$out/exa-gpu-$src.json" 2>"$out/exa-gpu-$src.err" || true
  echo "== exa gpu --gpu-source $src"; cat "$out/exa-gpu-$src.txt"
done

cat > "$out/load.py" <<'PY'
import sys, time
secs = float(sys.argv[1])
try:
    import torch
    assert torch.cuda.is_available()
except Exception as e:  # no PyTorch or no CUDA: an idle run, said as such
    print(f"load: idle ({e.__class__.__name__})", file=sys.stderr)
    time.sleep(secs)
    sys.exit(0)
a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
end = time.time() + secs
n = 0
while time.time() < end:
    for _ in range(20):
        c = a @ b
    torch.cuda.synchronize()
    n += 20
print(f"load: {n} matmuls of 8192x8192 fp16 in {secs:.0f} s", file=sys.stderr)
PY

for interval in 1 5; do
  "$exa" -o json finops measure --gpu-source nvml --interval "$interval" --trace "$out/nvml-$interval.jsonl" \
    --report "$out/nvml-$interval.json" -- \
    "$exa" -o json finops measure --gpu-source nvidia-smi --interval "$interval" --report "$out/smi-$interval.json" -- \
    python3 "$out/load.py" "${LOAD_SECONDS:-60}" 2> "$out/load-$interval.err" || true
done

# Scope: the first GPU by index and by UUID, none, and a load that is not exa's.
uuid=$("$real_smi" --query-gpu=uuid --format=csv,noheader | head -1)
CUDA_VISIBLE_DEVICES=0 "$exa" -o json finops measure --report "$out/scope-cvd0.json" --gpu-source nvml --interval 1 -- sleep 3 >/dev/null 2>> "$out/scope.err" || true
"$exa" -o json finops measure --report "$out/scope-uuid.json" --gpu-source nvml --gpus "$uuid" --interval 1 -- sleep 3 >/dev/null 2>> "$out/scope.err" || true
"$exa" -o json finops measure --report "$out/scope-none.json" --gpu-source nvml --gpus none -- sleep 1 >/dev/null 2>> "$out/scope.err" || true
python3 "$out/load.py" 25 2> "$out/load-shared.err" &
load=$!
sleep 12
for src in nvml nvidia-smi; do
  "$exa" -o json finops measure --gpu-source "$src" --interval 1 --report "$out/shared-$src.json" -- sleep 5 >/dev/null 2>> "$out/scope.err" || true
done
"$real_smi" --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv > "$out/compute-apps.csv" 2>&1 || true
wait "$load" || true

# exa's steady cost at 1 s readings: a 20 s and an 80 s run side by side; their difference over 60 s.
for s in 20 80; do
  "$exa" -o json finops measure --gpu-source nvml --interval 1 --report "$out/steady-$s.json" -- sleep $s >/dev/null 2>> "$out/scope.err" &
done
wait

# The exporter, scraped once.
"$exa" gpu serve --gpu-source nvml --listen 127.0.0.1:9464 --interval 1 > "$out/serve.out" 2>&1 &
serve=$!
sleep 4
python3 -c 'import urllib.request,sys; sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:9464/metrics").read().decode())' > "$out/serve-metrics.txt" 2>&1 || true
kill -TERM "$serve" 2>/dev/null || true; wait "$serve" || true

python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
load = open(os.path.join(out, "load-1.err")).read().strip().splitlines()
print(f"\nload: {load[-1] if load else 'unknown'}\n")
print("| interval | device | counter kWh (NVML) | trapezoid kWh (NVML readings) | counter / trapezoid | trapezoid kWh (nvidia-smi) | counter / nvidia-smi |")
print("|---|---|---|---|---|---|---|")
cpu = []
for interval in (1, 5):
    try:
        nv = json.load(open(os.path.join(out, f"nvml-{interval}.json")))
        smi = json.load(open(os.path.join(out, f"smi-{interval}.json")))
    except Exception as e:
        print(f"| {interval} s | - | no report: {e} | | | | |")
        continue
    trace = [json.loads(l) for l in open(os.path.join(out, f"nvml-{interval}.jsonl")) if l.strip()]
    end = nv["duration_s"]
    for d in nv["gpu"]["devices"]:
        i = d["index"]
        pts = [(s["t"], next((x["power_w"] for x in s["devices"] if x["index"] == i), None)) for s in trace if s.get("ok")]
        pts = [(t, w) for t, w in pts if w is not None]
        joules = 0.0
        for (t0, w0), (t1, w1) in zip(pts, pts[1:]):
            joules += (w0 + w1) / 2 * (min(t1, end) - t0)
            if t1 >= end:
                break
        trap = joules / 3.6e6
        counter = d["energy_kwh"] if d.get("energy_method") == "counter" else None
        s = next((x for x in smi["gpu"]["devices"] if x["index"] == i), {})
        st = s.get("energy_kwh")
        f = lambda v: "n/a" if v is None else f"{v:.6f}"
        r = lambda a, b: "n/a" if a is None or not b else f"{a / b:.4f}"
        print(f"| {interval} s | {i} {d['name']} | {f(counter)} | {f(trap)} | {r(counter, trap)} | {f(st)} | {r(counter, st)} |")
    cpu.append((interval, nv["exa_cpu_s"], nv["gpu"]["samples"], smi["exa_cpu_s"], smi["gpu"]["samples"], nv["duration_s"]))
print("\nexa's own CPU (getrusage of exa alone: the nvidia-smi processes it starts are not in it)\n")
print("| interval | exa CPU-s, NVML (readings) | exa CPU-s, nvidia-smi (readings) | NVML % of one core | nvidia-smi % of one core |")
print("|---|---|---|---|---|")
for interval, a, n, b, m, d in cpu:
    print(f"| {interval} s | {a:.4f} ({n}) | {b:.4f} ({m}) | {a / d * 100:.4f}% | {b / d * 100:.4f}% |")
try:
    a = json.load(open(os.path.join(out, "steady-20.json"))); z = json.load(open(os.path.join(out, "steady-80.json")))
    rate = (z["exa_cpu_s"] - a["exa_cpu_s"]) / (z["duration_s"] - a["duration_s"])
    print(f"\nsteady cost, NVML at 1 s: {a['exa_cpu_s']:.4f} CPU-s over {a['duration_s']:.1f} s, {z['exa_cpu_s']:.4f} over {z['duration_s']:.1f} s: {rate * 100:.4f}% of one core")
except Exception as e:
    print(f"\nsteady cost: no reports ({e})")
print()
for name in ("scope-cvd0", "scope-uuid", "scope-none", "shared-nvml", "shared-nvidia-smi"):
    try:
        r = json.load(open(os.path.join(out, name + ".json")))
        g = r["gpu"]
        devs = [(d["index"], d.get("shared_with"), d.get("energy_method")) for d in g.get("devices", [])]
        print(f"{name}: scope={g.get('scope')} devices(index, shared_with, method)={devs}")
    except Exception as e:
        print(f"{name}: unreadable ({e}): {open(os.path.join(out, name + '.json')).read()[:300]!r}")
PY
