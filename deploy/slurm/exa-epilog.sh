#!/bin/sh
# Slurm Epilog: ends the measurement exa-prolog.sh started for this job (an
# interrupt, which exa takes as the end of the run: it reads the GPUs a last
# time, prices and records the run) and waits up to a minute for it to be
# recorded; then a terminate, then a kill. Its report stays in EXA_RUN_DIR as
# <jobid>.json, its messages as <jobid>.log; the trace of its readings is
# removed. It always exits 0: a measurement never holds a node.
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
run_dir=${EXA_RUN_DIR:-/var/lib/exa-slurm}
job=${SLURM_JOB_ID:-}
[ -n "$job" ] || exit 0
pidfile="$run_dir/$job.pid"
[ -r "$pidfile" ] || exit 0
pid=$(cat "$pidfile")
rm -f "$pidfile"
case $pid in '' | *[!0-9]*) exit 0 ;; esac
# Only the measurement of this job: a pid the system has given to another process since is left alone.
tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "finops measure .*--report $run_dir/$job.json" || exit 0
alive() { kill -0 "$pid" 2>/dev/null; }
stop() {
  kill "-$1" "$pid" 2>/dev/null || return 0
  i=0
  while alive && [ $i -lt "$2" ]; do
    sleep 0.1
    i=$((i + 1))
  done
}
stop INT 600
alive && stop TERM 50
alive && kill -KILL "$pid" 2>/dev/null
rm -f "$run_dir/$job.jsonl"
exit 0
