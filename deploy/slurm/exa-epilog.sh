#!/bin/sh
# Slurm Epilog: ends the measurement exa-prolog.sh started for this job (an
# interrupt, which exa takes as the end of the run: it reads the GPUs a last
# time, prices and records the run) and waits up to a minute for it to be
# recorded. Its report stays in EXA_RUN_DIR as <jobid>.json, its messages as
# <jobid>.log; the trace of its readings is removed. It always exits 0: a measurement never holds a node.
here=$(dirname "$0")
if [ -r "$here/exa-slurm.env" ]; then
  set -a
  . "$here/exa-slurm.env"
  set +a
fi
run_dir=${EXA_RUN_DIR:-/run/exa-slurm}
job=${SLURM_JOB_ID:-}
[ -n "$job" ] || exit 0
pidfile="$run_dir/$job.pid"
[ -r "$pidfile" ] || exit 0
pid=$(cat "$pidfile")
rm -f "$pidfile"
case $pid in '' | *[!0-9]*) exit 0 ;; esac
kill -INT "$pid" 2>/dev/null || exit 0
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 600 ]; do
  sleep 0.1
  i=$((i + 1))
done
# The trace only told the prolog the measurement had begun; the report holds the run.
rm -f "$run_dir/$job.jsonl"
exit 0
