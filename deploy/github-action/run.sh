#!/usr/bin/env bash
# The GitHub Action's step (action.yml): measure INPUT_COMMAND with exa, record it, and check it against per-run
# limits and a ledger's budget. Exits with the command's status when it failed; else 1 when a limit or the budget is
# over (or past a warn line of the budget), unless INPUT_ADVISE_ONLY is true; else 0. Runs anywhere bash and exa
# are: GitHub sets RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_RUN_ID and GITHUB_RUN_ATTEMPT.
set -uo pipefail
exa=${EXA:-exa}
tmp=${RUNNER_TEMP:-$(mktemp -d)}/exa-action
rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
run_ledger="$tmp/run.sqlite3"
# One run id for each use of the action: the workflow run and attempt, the job (each matrix leg runs the job
# again) and a random part (two uses in one job); records sharing a run id would count as one run.
nonce=$(od -An -N4 -tx4 /dev/urandom | tr -d ' \n')
run_id="gh-${GITHUB_RUN_ID:-local}-${GITHUB_RUN_ATTEMPT:-1}-${GITHUB_JOB:-job}-$nonce"
out=${GITHUB_OUTPUT:-/dev/null}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
say() { printf '%s\n' "$*"; printf '%s\n\n' "$*" >> "$summary"; }

if [ -z "${INPUT_COMMAND:-}" ]; then
  echo "exa action: the command input is empty" >&2
  exit 2
fi
# The run, measured and recorded in a ledger of its own (this run alone), its report kept.
"$exa" --db "$run_ledger" finops measure --record="${INPUT_MODEL:-ci}" --run-id="$run_id" --report "$tmp/report.json" \
  -- bash -c "$INPUT_COMMAND"
status=$?
if [ ! -s "$tmp/report.json" ]; then
  echo "exa action: exa measured nothing (see its message above)" >&2
  exit $((status == 0 ? 1 : status))
fi
figures=$("$exa" --db "$run_ledger" -o json report "${INPUT_MODEL:-ci}")
command -v python3 > /dev/null || echo "exa action: python3 is not on PATH: the kwh and co2e-g outputs are empty" >&2
kwh=$(printf '%s' "$figures" | python3 -c 'import json,sys; t=json.load(sys.stdin)["totals"]; print(t["kwh"] if t["kwh"] is not None else "")')
co2e=$(printf '%s' "$figures" | python3 -c 'import json,sys; t=json.load(sys.stdin)["totals"]; print(t["co2e_g"] if t["co2e_g"] is not None else "")')
{ echo "kwh=$kwh"; echo "co2e-g=$co2e"; } >> "$out"
say "exa: \`${INPUT_COMMAND}\` exited $status: ${kwh:-?} kWh, ${co2e:-?} gCO2e (run $run_id)"
# A team's ledger takes the run whatever its command did: a job that failed after hours spent them.
if [ -n "${INPUT_LEDGER:-}" ]; then
  "$exa" db copy --from "$run_ledger" --to "$INPUT_LEDGER" > /dev/null || exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "verdict=" >> "$out"
  exit "$status"
fi

worst=0
# Per-run limits: a budget over this run's own ledger, so exa's own check says the verdict and by how much.
limits=()
[ -n "${INPUT_MAX_KWH:-}" ] && limits+=(--kwh "$INPUT_MAX_KWH")
[ -n "${INPUT_MAX_KGCO2E:-}" ] && limits+=(--kgco2e "$INPUT_MAX_KGCO2E")
[ -n "${INPUT_MAX_USD:-}" ] && limits+=(--usd "$INPUT_MAX_USD")
if ((${#limits[@]})); then
  "$exa" --db "$run_ledger" budget set run --scope all --period quarter "${limits[@]}" --warn 99 > /dev/null || exit 2
  line=$("$exa" --db "$run_ledger" budget check run)
  code=$?
  say "exa: this run: $line"
  # A run is within its limits or over them: its 99 % line only says it came close.
  case $code in 0 | 1) ;; 3) worst=3 ;; *) exit 1 ;; esac
fi
# A team's ledger: the run copied into it (its keys make a second copy a no-op), and its budget checked.
if [ -n "${INPUT_LEDGER:-}" ]; then
  if [ -n "${INPUT_BUDGET:-}" ]; then
    line=$("$exa" --db "$INPUT_LEDGER" budget check "$INPUT_BUDGET")
    code=$?
    say "exa: budget $INPUT_BUDGET: $line"
    case $code in 0) ;; 1) ((worst < 1)) && worst=1 ;; 3) worst=3 ;; *) exit 1 ;; esac
  fi
elif [ -n "${INPUT_BUDGET:-}" ]; then
  echo "exa action: the budget input needs the ledger that keeps it (the ledger input)" >&2
  exit 2
fi
case $worst in 0) verdict=within ;; 1) verdict=warn ;; 3) verdict=over ;; *) verdict=unknown ;; esac
echo "verdict=$verdict" >> "$out"
if [ "$worst" -ne 0 ] && [ "${INPUT_ADVISE_ONLY:-false}" != "true" ]; then
  exit 1
fi
exit 0
