"""Realistic `sacct -a -P -D --format=...` output for benchmarks: N allocations,
each followed by its .batch and .extern steps (as sacct lists them), a mix of
GPU and CPU jobs, array tasks, users, accounts and partitions, failed and
cancelled jobs, and a few still running or pending.

    python3 benches/sacct_gen.py N > sacct.txt
    python3 benches/sacct_gen.py N --typed > sacct.txt   # GPUs with their gres type (h100, a100, l4, mi300x)
"""
import random
import sys
import time

FIELDS = "JobID|JobIDRaw|JobName|User|Account|Partition|Cluster|State|Start|End|ElapsedRaw|NCPUS|CPUTimeRAW|AllocTRES|ConsumedEnergyRaw"


def main(n, typed=False):
    rnd = random.Random(7)
    out = sys.stdout
    out.write(FIELDS + "\n")
    t0 = int(time.mktime((2026, 10, 1, 0, 0, 0, 0, 0, -1)))
    names = ["train-llm", "finetune", "eval", "prep", "sweep", "render", "md-sim", "infer"]
    users = [f"u{i:03d}" for i in range(200)]
    accounts = ["ml", "physics", "bio", "chem", "infra"]
    states = ["COMPLETED"] * 85 + ["FAILED"] * 8 + ["CANCELLED by 1001"] * 3 + ["TIMEOUT"] * 2 + ["RUNNING", "PENDING"]
    fmt = lambda t: time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))
    for i in range(n):
        jid = 100000 + i
        shown = f"{jid - 1}_{i % 16}" if i % 10 == 9 else str(jid)
        gpus = rnd.choice([0, 0, 1, 2, 4, 8])
        cpus = rnd.choice([1, 2, 4, 8, 16, 32, 64])
        elapsed = rnd.randint(30, 86400)
        start = t0 + i * 2
        state = rnd.choice(states)
        part = "gpu" if gpus else rnd.choice(["cpu", "debug"])
        kind = ["h100", "a100", "l4", "mi300x"][i % 4]
        typed_gres = f",gres/gpu:{kind}={gpus}" if typed and gpus else ""
        tres = f"billing={cpus},cpu={cpus}" + (f",gres/gpu={gpus}" if gpus else "") + typed_gres + ",node=1"
        if state == "PENDING":
            s, e, el = "Unknown", "Unknown", 0
        elif state == "RUNNING":
            s, e, el = fmt(start), "Unknown", elapsed
        else:
            s, e, el = fmt(start), fmt(start + elapsed), elapsed
        user, acct, name = rnd.choice(users), rnd.choice(accounts), rnd.choice(names)
        out.write(f"{shown}|{jid}|{name}|{user}|{acct}|{part}|hpc1|{state}|{s}|{e}|{el}|{cpus}|{cpus * el}|{tres}|\n")
        if state != "PENDING":
            out.write(f"{shown}.batch|{jid}.batch|batch||{acct}||hpc1|{state.split()[0]}|{s}|{e}|{el}|{cpus}|{cpus * el}|cpu={cpus},mem=0,node=1|0\n")
            out.write(f"{shown}.extern|{jid}.extern|extern||{acct}||hpc1|COMPLETED|{s}|{e}|{el}|{cpus}|{cpus * el}|billing={cpus},cpu={cpus},node=1|0\n")


if __name__ == "__main__":
    main(int(sys.argv[1]), "--typed" in sys.argv[2:])
