#!/bin/sh
# Slurm PrologSlurmctld: hold back a job whose account or user is over its exa budget. slurmctld runs it on the
# controller when a job is allocated, before any of it starts; it asks `exa budget check` for the budgets of the
# job's account and user (exa budget set ... --scope account=A / user=U) and, as the site chooses:
#   EXA_GATE=refuse  (the default) a job over a budget is refused: the script exits 1, and slurmctld requeues a
#                    batch job to begin after its requeue delay (pending, reason BeginTime; each try asks
#                    again, so it runs once the budget allows: a new period, a raised limit) and cancels an
#                    interactive one, and a batch job that may not be requeued (--no-requeue, JobRequeue=0);
#   EXA_GATE=advise  it runs all the same; the verdict is logged.
# Past a warn line, a job runs and the line is logged. When exa cannot answer (the ledger unreachable, exa not
# there), EXA_GATE_UNKNOWN says what happens: open (the default: the job runs, and that is logged) or closed (it is
# refused as if over). Never put it in the nodes' Prolog: a node prolog that fails drains its node.
#
# slurm.conf:  PrologSlurmctld=/etc/slurm/exa-budget-gate.sh
# Settings, in exa-slurm.env beside this script (read only when root owns it and no one else may write it): EXA
# (the program, default exa on PATH), EXA_RUN_DIR (where exa-gate.log goes, default /var/lib/exa-slurm),
# EXA_GATE, EXA_GATE_UNKNOWN, and any EXAMLOPS_* setting (EXAMLOPS_DB for the ledger, say).
PATH=${PATH:+$PATH:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
here=$(dirname "$0")
settings="$here/exa-slurm.env"
# slurmctld runs this as SlurmUser: the controller's copy of the settings is root's, readable by SlurmUser's
# group (install -m 0640 -o root -g slurm), and writable by root alone; otherwise it is not read, and that is said.
unread=""
if [ -e "$settings" ]; then
  if [ -r "$settings" ] && [ -z "$(find "$settings" -prune \( ! -user 0 -o -perm /g+w -o -perm /o+w \) 2>/dev/null)" ]; then
    set -a
    . "$settings"
    set +a
  else
    unread="$settings is not readable by $(id -un), or not root's alone to write: not read"
  fi
fi
EXA=${EXA:-exa}
run_dir=${EXA_RUN_DIR:-/var/lib/exa-slurm}
gate=${EXA_GATE:-refuse}
unknown=${EXA_GATE_UNKNOWN:-open}
job=${SLURM_JOB_ID:-}
[ -n "$job" ] || exit 0
# The log, in EXA_RUN_DIR (SlurmUser's to write: install -d -o slurm -m 700), and the system log where there is one.
log() {
  [ -d "$run_dir" ] || { mkdir -p "$run_dir" && chmod 700 "$run_dir"; } 2>/dev/null
  echo "$(date -u +%FT%TZ) job $job: $*" >> "$run_dir/exa-gate.log" 2>/dev/null
  command -v logger > /dev/null 2>&1 && logger -t exa-budget-gate "job $job: $*" 2>/dev/null
  return 0
}
[ -z "$unread" ] || log "$unread"
set --
[ -n "${SLURM_JOB_ACCOUNT:-}" ] && set -- "$@" --scope "account=$SLURM_JOB_ACCOUNT"
[ -n "${SLURM_JOB_USER:-}" ] && set -- "$@" --scope "user=$SLURM_JOB_USER"
[ $# -gt 0 ] || exit 0
answer=$(timeout 20 "$EXA" -o json budget check "$@" 2>/dev/null)
code=$?
line=$(printf '%s\n' "$answer" | sed -n 's/^  "message": "\(.*\)",$/\1/p' | head -n 1)
case $code in
  0) exit 0 ;;
  3)
    log "$line"
    if [ "$gate" = advise ]; then exit 0; fi
    echo "exa budget: $line" >&2
    exit 1
    ;;
  1)
    if [ -n "$line" ]; then
      log "$line"
      exit 0
    fi
    ;;
esac
# No verdict: exa could not answer.
log "exa budget check could not answer (exit $code): the gate is $unknown"
if [ "$unknown" = closed ] && [ "$gate" != advise ]; then
  echo "exa budget: no answer from exa, and the gate is closed" >&2
  exit 1
fi
exit 0
