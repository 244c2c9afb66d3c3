"""What a running `exa gpu serve` costs in its own CPU, for the exporter benches.

    python3 benches/exporter_cpu.py PID STDERR_FILE SCRAPES IDLE_SECONDS WANT [COUNTED]

Finds the address exa said on STDERR_FILE, waits until a scrape holds WANT (a metric name), then measures exa's
utime + stime (/proc/PID/stat, children excluded) over IDLE_SECONDS with nobody scraping, and over SCRAPES
scrapes back to back. Prints one line: series served, the distinct values of COUNTED (a regular expression with
one group; by default a pod's UID), CPU per scrape (ms), CPU idle (% of one core).
"""
import http.client
import os
import re
import sys
import time

pid, err, scrapes, idle, want = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5].encode()
counted = sys.argv[6] if len(sys.argv) > 6 else r'k8s_pod_uid="([^"]+)"'
hz = os.sysconf("SC_CLK_TCK")


def cpu():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / hz


addr = None
for _ in range(300):
    m = re.search(r"http://([0-9.]+:[0-9]+)/metrics", open(err).read())
    if m:
        addr = m.group(1)
        break
    time.sleep(0.1)
if addr is None:
    raise SystemExit(f"exa never said where it serves: {open(err).read()}")
host, port = addr.split(":")
conn = [None]


def scrape():
    # A fresh connection when the server closed the last (as a scraper would open one).
    for _ in range(2):
        try:
            if conn[0] is None:
                conn[0] = http.client.HTTPConnection(host, int(port), timeout=10)
            conn[0].request("GET", "/metrics")
            return conn[0].getresponse().read()
        except (http.client.HTTPException, ConnectionError):
            conn[0] = None
    raise SystemExit("the exporter stopped answering")


while want not in scrape():
    time.sleep(0.5)
body = scrape().decode()
series = sum(1 for l in body.splitlines() if l and not l.startswith("#"))
things = len(set(re.findall(counted, body)))
c0, t0 = cpu(), time.time()
time.sleep(idle)
c1, t1 = cpu(), time.time()
c2 = cpu()
for _ in range(scrapes):
    scrape()
c3 = cpu()
print(f"{series} {things} {(c3 - c2) / scrapes * 1000:.4f} {(c1 - c0) / (t1 - t0) * 100:.4f}")
