#!/bin/sh
# Slurm PrologSlurmctld: hold back a job whose account or user is over its exa budget. slurmctld runs it on the
# controller when a job is allocated, before any of it starts; it asks `exa budget check` for the budgets of the
# job's account and user (exa budget set ... --scope account=A / user=U) and, as the site chooses:
#   EXA_GATE=refuse  (the default) a job over a budget is refused: the script exits 1, and slurmctld requeues a
#                    batch job to begin after its requeue delay (pending, reason BeginTime; each try asks
#                    again, so it runs once the budget allows: a new period, a raised limit) and cancels an
#                    interactive one;
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
if [ -e "$settings" ] && [ -r "$settings" ] && [ -z "$(find "$settings" -prune \( ! -user 0 -o -perm /g+w -o -perm /o+w \) 2>/dev/null)" ]; then
  set -a
  . "$settings"
  set +a
fi
EXA=${EXA:-exa}
run_dir=${EXA_RUN_DIR:-/var/lib/exa-slurm}
gate=${EXA_GATE:-refuse}
unknown=${EXA_GATE_UNKNOWN:-open}
job=${SLURM_JOB_ID:-}
[ -n "$job" ] || exit 0
log() {
  [ -d "$run_dir" ] || { mkdir -p "$run_dir" && chmod 700 "$run_dir"; } 2>/dev/null
  echo "$(date -u +%FT%TZ) job $job: $*" >> "$run_dir/exa-gate.log" 2>/dev/null
}
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
