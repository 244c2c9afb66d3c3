#!/bin/sh
# Slurm Prolog: measure every GPU job on this node without users changing
# their scripts. slurmd runs it as root before the job's first step here; it
# starts `exa finops measure` in the background for the job's GPUs and holds
# the job until their first reading (ten seconds at most). exa-epilog.sh ends
# the measurement when the job ends, and exa then records the job's measured
# energy as run slurm:<cluster>:<jobid>, the id `exa import slurm` gives the
# same job (so a report counts the measurement over the import's estimate),
# under the job's name, with its user, account and partition. A job on
# several nodes is measured on each, each node's record a part of the run.
#
# slurm.conf:  Prolog=/etc/slurm/exa-prolog.sh  Epilog=/etc/slurm/exa-epilog.sh
# Settings, in exa-slurm.env beside this script (optional; read only when it
# belongs to root and no one else may read or write it: mode 0600): EXA (the program, default
# exa on PATH), EXA_RUN_DIR (the measurements' pid files, reports and
# messages, default /var/lib/exa-slurm), EXA_MODEL (the model records are
# kept under, default the job's name, as `exa import slurm` names it), and
# any EXAMLOPS_* setting (EXAMLOPS_DB for the ledger, say). A failure here
# never holds a job: the prolog always exits 0.
PATH=${PATH:+$PATH:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
here=$(dirname "$0")
settings="$here/exa-slurm.env"
# It may hold the ledger's password: read only when root owns it and no one else may read or write it
# (mode 0600); otherwise it is not read, and that is said in the run directory's exa-slurm.log.
if [ -e "$settings" ]; then
  if [ -r "$settings" ] && [ -z "$(find "$settings" -prune \( ! -user 0 -o -perm /g+rw -o -perm /o+rw \) 2>/dev/null)" ]; then
    set -a
    . "$settings"
    set +a
  else
    d=${EXA_RUN_DIR:-/var/lib/exa-slurm}
    [ -d "$d" ] && echo "$(date -u +%FT%TZ) $settings is not root's alone (chmod 600, chown root): not read" >> "$d/exa-slurm.log"
  fi
fi
EXA=${EXA:-exa}
run_dir=${EXA_RUN_DIR:-/var/lib/exa-slurm}
job=${SLURM_JOB_ID:-}
[ -n "$job" ] || exit 0
# The job's GPUs on this node. A job that holds none is left to `exa import slurm`, whose estimate
# of its CPU-hours is all there is to measure here.
[ -n "${SLURM_JOB_GPUS:-}" ] || exit 0
[ -d "$run_dir" ] || { mkdir -p "$run_dir" && chmod 700 "$run_dir"; } || exit 0
log="$run_dir/$job.log"
# The id and name as sacct prints them (an array task is 4_1, a heterogeneous component 7+0), which
# the importer's run ids and models are made of; a prolog is told neither. No answer, no measurement:
# a record under another run id or model would be counted beside the import's, not instead of it.
# The CPUs it holds (%C, over its %D nodes) are its CPU-hours here: a measurement with none would hide
# the import's estimate of them. The name comes last: it may hold spaces.
line=$(timeout 5 squeue -h -j "$job" -o '%i %C %D %j' 2>/dev/null | head -n 1)
shown=${line%% *}
rest=${line#* }
cpus=${rest%% *}
rest=${rest#* }
nodes=${rest%% *}
name=${rest#* }
case $cpus$nodes in '' | *[!0-9]*) cpus="" ;; esac
if [ -z "$line" ] || [ -z "$shown" ] || [ -z "$cpus" ] || [ "${nodes:-0}" -lt 1 ] || [ "$cpus" -lt 1 ]; then
  echo "exa-prolog: squeue did not answer for job $job: not measured (exa import slurm estimates it)" > "$log"
  exit 0
fi
[ "$name" != "$rest" ] || name=""
# A job over several nodes holds its CPUs there evenly, as far as a prolog can tell.
cpus=$(awk -v c="$cpus" -v n="$nodes" 'BEGIN { printf "%g", c / n }')
model=${EXA_MODEL:-${name:-(no name)}}
set -- -o json finops measure --record="$model" --run-id="slurm:${SLURM_CLUSTER_NAME:-cluster}:$shown" \
  --report "$run_dir/$job.json" --trace "$run_dir/$job.jsonl" --gpus "$SLURM_JOB_GPUS" --cpus "$cpus" \
  --slurm-job "$job"
# A job's name is the user's data, whatever it holds (a leading '-', a tab, an escape, 300 characters):
# exa makes the model of it as the importer does.
[ -z "${EXA_MODEL:-}" ] && set -- "$@" --model-is-job-name
[ "${SLURM_JOB_NUM_NODES:-1}" -gt 1 ] 2>/dev/null && set -- "$@" --part
[ -n "${SLURM_JOB_USER:-}" ] && set -- "$@" --job-user="$SLURM_JOB_USER"
[ -n "${SLURM_JOB_ACCOUNT:-}" ] && set -- "$@" --job-account="$SLURM_JOB_ACCOUNT"
[ -n "${SLURM_JOB_PARTITION:-}" ] && set -- "$@" --job-partition="$SLURM_JOB_PARTITION"
rm -f "$run_dir/$job.jsonl" "$run_dir/$job.json"
# Its own session, so slurmd's end of the prolog does not end it.
setsid "$EXA" "$@" </dev/null >/dev/null 2>"$log" &
pid=$!
# The job starts when the prolog ends: hold it until the GPUs' first reading is in the trace, so the
# measurement covers it from its start; ten seconds at most, so a broken exa never holds a job long.
i=0
while [ ! -s "$run_dir/$job.jsonl" ] && kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
  sleep 0.1
  i=$((i + 1))
done
# Only a measurement that is running is the epilog's to end.
kill -0 "$pid" 2>/dev/null && echo "$pid" > "$run_dir/$job.pid"
exit 0
