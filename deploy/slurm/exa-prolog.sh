#!/bin/sh
# Slurm Prolog: measure every GPU job on this node without users changing
# their scripts. slurmd runs it as root before the job's first step here; it starts
# `exa finops measure` in the background for the job's GPUs and returns at
# once. exa-epilog.sh ends the measurement when the job ends, and exa then
# records the job's measured energy as run slurm:<cluster>:<jobid>, with the
# job's user, account and partition (the run id `exa import slurm` gives the
# same job, so a report counts the measurement over the import's estimate).
#
# slurm.conf:  Prolog=/etc/slurm/exa-prolog.sh  Epilog=/etc/slurm/exa-epilog.sh
# Settings, in exa-slurm.env beside this script (optional): EXA (the program,
# default exa on PATH), EXA_RUN_DIR (where the measurements' pid files live,
# default /run/exa-slurm), EXA_MODEL (the model records are kept under,
# default the job's name, as `exa import slurm` names it), and any EXAMLOPS_*
# setting (EXAMLOPS_DB for the ledger, say). A failure here never holds a
# job: the prolog always exits 0.
here=$(dirname "$0")
if [ -r "$here/exa-slurm.env" ]; then
  set -a
  . "$here/exa-slurm.env"
  set +a
fi
EXA=${EXA:-exa}
run_dir=${EXA_RUN_DIR:-/run/exa-slurm}
job=${SLURM_JOB_ID:-}
[ -n "$job" ] || exit 0
mkdir -p "$run_dir" && chmod 700 "$run_dir" || exit 0
# The model: as `exa import slurm` names it by default, the job's name (asked of slurmctld: a
# prolog is not told it), else the account.
model=${EXA_MODEL:-}
[ -n "$model" ] || model=$(timeout 5 squeue -h -j "$job" -o %j 2>/dev/null | head -n 1)
[ -n "$model" ] || model=${SLURM_JOB_ACCOUNT:-slurm-job}
set -- -o json finops measure --record "$model" --run-id "slurm:${SLURM_CLUSTER_NAME:-cluster}:$job" \
  --report "$run_dir/$job.json" --trace "$run_dir/$job.jsonl"
# The job's GPUs on this node. A job that holds none is left to `exa import slurm`: a prolog has no
# process to time, so its measurement would hold no CPU-hours and hide the import's estimate of them.
[ -n "${SLURM_JOB_GPUS:-}" ] || exit 0
set -- "$@" --gpus "$SLURM_JOB_GPUS"
[ -n "${SLURM_JOB_USER:-}" ] && set -- "$@" --job-user "$SLURM_JOB_USER"
[ -n "${SLURM_JOB_ACCOUNT:-}" ] && set -- "$@" --job-account "$SLURM_JOB_ACCOUNT"
[ -n "${SLURM_JOB_PARTITION:-}" ] && set -- "$@" --job-partition "$SLURM_JOB_PARTITION"
# Its own session, so slurmd's end of the prolog does not end it; its pid for the epilog.
setsid "$EXA" "$@" </dev/null >/dev/null 2>"$run_dir/$job.log" &
pid=$!
echo "$pid" > "$run_dir/$job.pid"
# The job starts when the prolog ends: hold it until the GPUs' first reading is in the trace, so the
# measurement covers it from its start; ten seconds at most, so a broken exa never holds a job long.
i=0
while [ ! -s "$run_dir/$job.jsonl" ] && kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
  sleep 0.1
  i=$((i + 1))
done
exit 0
