# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_exa_global_optspecs
    string join \n o/output= json config= db= strict h/help V/version
end

function __fish_exa_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_exa_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_exa_using_subcommand
    set -l cmd (__fish_exa_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c exa -n "__fish_exa_needs_command" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_needs_command" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_needs_command" -l db -d 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]' -r -F
complete -c exa -n "__fish_exa_needs_command" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_needs_command" -l strict -d 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]'
complete -c exa -n "__fish_exa_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_needs_command" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_needs_command" -f -a "finops" -d 'Energy, carbon and cost of GPU and CPU work'
complete -c exa -n "__fish_exa_needs_command" -f -a "config" -d 'Where the config file is, what is in effect, and a starting file'
complete -c exa -n "__fish_exa_needs_command" -f -a "gpu" -d 'One reading of every GPU (NVML, nvidia-smi or amd-smi), and the aggregates; or export them'
complete -c exa -n "__fish_exa_needs_command" -f -a "report" -d 'Totals of the stored records: runs, GPU-h, CPU-h, kWh, CO2e with its range, USD'
complete -c exa -n "__fish_exa_needs_command" -f -a "budget" -d 'Budgets: a team\'s kWh, kgCO2e and USD a period, kept in the ledger, watched and checked where work starts'
complete -c exa -n "__fish_exa_needs_command" -f -a "db" -d 'The records database: bring its schema up to date, copy records between stores'
complete -c exa -n "__fish_exa_needs_command" -f -a "sync" -d 'Send what could not be sent: records waiting in the outbox for MLflow'
complete -c exa -n "__fish_exa_needs_command" -f -a "import" -d 'Turn a scheduler\'s finished jobs into records: Slurm (sacct) or Flux'
complete -c exa -n "__fish_exa_needs_command" -f -a "mcp" -d 'Serve exa\'s read-only tools to AI agents over MCP (stdio, or streamable HTTP)'
complete -c exa -n "__fish_exa_needs_command" -f -a "metrics" -d 'Cluster GPU and host telemetry from Prometheus, and the flags it raises'
complete -c exa -n "__fish_exa_needs_command" -f -a "validate" -d 'How far a measurement is from a reference: a trace against a wall meter\'s, BMC\'s or DCGM\'s series'
complete -c exa -n "__fish_exa_needs_command" -f -a "completions" -d 'Print shell completions for exa'
complete -c exa -n "__fish_exa_needs_command" -f -a "man" -d 'Print exa\'s man page (roff), or a subcommand\'s'
complete -c exa -n "__fish_exa_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand finops; and not __fish_seen_subcommand_from carbon cost measure help" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand finops; and not __fish_seen_subcommand_from carbon cost measure help" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand finops; and not __fish_seen_subcommand_from carbon cost measure help" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand finops; and not __fish_seen_subcommand_from carbon cost measure help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand finops; and not __fish_seen_subcommand_from carbon cost measure help" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand finops; and not __fish_seen_subcommand_from carbon cost measure help" -f -a "carbon" -d 'Energy and carbon: kWh and gCO2e'
complete -c exa -n "__fish_exa_using_subcommand finops; and not __fish_seen_subcommand_from carbon cost measure help" -f -a "cost" -d 'Money: USD from a rate card'
complete -c exa -n "__fish_exa_using_subcommand finops; and not __fish_seen_subcommand_from carbon cost measure help" -f -a "measure" -d 'Run a command (or watch the node) and measure its GPU energy, carbon and cost'
complete -c exa -n "__fish_exa_using_subcommand finops; and not __fish_seen_subcommand_from carbon cost measure help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from carbon" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from carbon" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from carbon" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from carbon" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from carbon" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from carbon" -f -a "providers" -d 'List the carbon providers, each with its kind, uncertainty and status'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from carbon" -f -a "estimate" -d 'Estimate energy (kWh) and carbon (gCO2e) of GPU and CPU hours'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from carbon" -f -a "show" -d 'Show a carbon provider: formulas, coefficients with defaults, metadata'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from carbon" -f -a "record" -d 'Estimate as `estimate` does and store the result as a record of MODEL'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from carbon" -f -a "regions" -d 'List the grid regions exa knows offline, each with its intensity, year and source'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from carbon" -f -a "hardware" -d 'List the GPU and CPU models exa knows the power of, each with its source (what hardware-aware prices by)'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from carbon" -f -a "when" -d 'The start, within a window, that gives a job of a known length the least carbon by the grid\'s forecast'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from carbon" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from cost" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from cost" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from cost" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from cost" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from cost" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from cost" -f -a "providers" -d 'List the cost providers (rate cards), each with its kind and status'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from cost" -f -a "estimate" -d 'Estimate the cost (USD) of GPU and CPU hours'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from cost" -f -a "show" -d 'Show a cost provider: formulas, coefficients with defaults, metadata'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from cost" -f -a "record" -d 'Estimate as `estimate` does and store the result as a record of MODEL'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from cost" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l db -d 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]' -r -F
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l interval -d 'Seconds between readings [default: 5; env: EXAMLOPS_GPU_INTERVAL, GENAI_GPU_COLLECTION_INTERVAL]' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l gpu-source -d 'Where readings come from [default: auto; env: EXAMLOPS_GPU_SOURCE]' -r -f -a "auto\t''
nvml\t''
nvidia-smi\t''
amd-smi\t''"
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l cpu-source -d 'Where CPU and memory energy is read: powercap (RAPL in sysfs), perf (the power PMU), or none [default: auto; env: EXAMLOPS_CPU_SOURCE; config: cpu.source]' -r -f -a "auto\t''
powercap\t''
perf\t''
none\t''"
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l node-source -d 'Where the whole node\'s power is read: hwmon (the ACPI power meter), ipmi (the BMC through ipmitool), redfish (the BMC\'s chassis at EXAMLOPS_REDFISH_URL), or none [default: auto; env: EXAMLOPS_NODE_SOURCE; config: node.source]' -r -f -a "auto\t''
hwmon\t''
ipmi\t''
redfish\t''
none\t''"
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l semconv -d 'The names of exported metrics: the spec\'s gen_ai.* or OpenTelemetry\'s hardware conventions (hw.*) [default: genai; env: EXAMLOPS_SEMCONV]' -r -f -a "genai\t''
hw\t''"
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l power-cost-per-kwh -d 'Electricity price in USD per kWh, for the cost of the measured energy; none without it [env: EXAMLOPS_POWER_COST_PER_KWH, GENAI_POWER_COST_PER_KWH]' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l carbon-intensity -d 'gCO2e per kWh for the exported gen_ai.co2.emissions [default: 475, a world average; env: EXAMLOPS_CARBON_INTENSITY, GENAI_CARBON_INTENSITY]' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l gpus -d 'The job\'s GPUs: indices, GPU- or MIG- UUIDs, comma-separated, or none [default: from CUDA_VISIBLE_DEVICES and the like, else all]' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l duration -d 'Without a command, measure the node this long (90s, 10m, 1.5h); Ctrl-C ends it early' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l trace -d 'Write every sample to FILE as JSON lines, for plotting and re-analysis' -r -F
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l pid -d 'Without a command: the run\'s CPU time is this process\'s (and its waited-for children\'s) user + system time over the run; the Python API passes its own. The run ends when the process does (a pid given to a later process is not it)' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l cpus -d 'Without a command: the job holds N CPUs here, and its CPU-hours are N times the run\'s length (core-hours, as a scheduler bills them; the Slurm prolog passes the job\'s)' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l slurm-job -d 'The Slurm job whose processes are the job\'s on a shared GPU: those in its control group (`…/job_<ID>/…` in /proc/<pid>/cgroup), as the prolog measures a job it did not start' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l report -d 'Write the report to FILE instead of stderr (with a command) or stdout (without)' -r -F
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l serve -d 'Without a command: answer windows of the run on this Unix socket (private to you) for every process and rank of the job on this node, as the Python API\'s `Monitor` asks. The run ends when a client ends it (recording it, when asked), on Ctrl-C, or once no client has been connected for --linger' -r -F
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l linger -d 'With --serve: end the run once no client has been connected this long (from the start until the first comes) [default: 10s]' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l idle-share -d 'On a GPU other processes share: where the device\'s idle energy goes. The job always gets its part of the busy energy by its SM activity (NVML); `none` charges it no idle, `even` an equal part among the processes seen, `by-activity` a part by its activity over the run' -r -f -a "none\t'Kept apart as idle: no process pays for it'
even\t'Shared evenly among the processes seen on the device'
by-activity\t'Shared by each process\'s activity over the run'"
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l node-policy -d 'With the node\'s meter: how the node\'s energy beyond the counters (fans, disks, NICs, the power supply\'s loss) becomes the job\'s. `measured` by its share of the node\'s measured energy; `allocation` by what it holds: with every GPU of the node read, all of the rest; with none, the CPUs it holds (--cpus) of the node\'s' -r -f -a "measured\t'By the job\'s share of the node\'s measured energy (its GPUs, and its share of the CPU packages\' and DRAM\'s)'
allocation\t'By the job\'s allocation: measured with every GPU of the node, all of it; measured with none, the CPUs it holds (`--cpus`) of the node\'s'"
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l carbon-provider -d 'The carbon provider for the measured energy (else env, config, default)' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l cost-provider -d 'The cost provider for the measured hours (else env, config, default)' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l region -d 'The grid region whose intensity prices the measured energy: a country (FR), US state (US-VA), NERC or cloud region (aws:us-east-1) [env: EXAMLOPS_GRID_REGION; config: finops.carbon.grid.region]' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l record -d 'Store the measured run\'s carbon and cost as records of MODEL' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l run-id -d 'The run id for --record' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l mlflow-experiment -d 'Create an MLflow run in this experiment (made when missing), named after the command, and record under its id' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l tokens -d 'Output tokens the work generated, kept on the record for `report --per token`' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l prompt-tokens -d 'Prompt (input) tokens the work read, kept beside --tokens' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l requests -d 'Requests the work served, kept on the record for `report --per request`' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l unit -d 'Work in a unit of your naming, NAME=N (images=5000), kept for `report --per NAME`' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l tokens-from -d 'Read an inference server\'s Prometheus metrics (vLLM, TGI, SGLang) at the start and end: the tokens and requests it served meanwhile' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l tokens-model -d 'With --tokens-from: only this model\'s series (the server\'s model_name label)' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l job-user -d 'Who ran the work, kept on the records for `report --by user` (a scheduler\'s prolog passes the job\'s user)' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l job-account -d 'The account (bank) the work is charged to, kept on the records for `report --by account`' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l job-partition -d 'The partition (queue) it ran in, kept on the records for `report --by partition`' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l push-gateway -d 'Push the run\'s energy, cost and CO2 to this Prometheus Pushgateway at its end (a failed push is a warning)' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l otlp -d 'Send the run\'s energy, cost and CO2 over OTLP/HTTP at its end [URL, else OTEL_EXPORTER_OTLP_METRICS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT]' -r
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l strict -d 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l co2 -d 'Export the CO2 metrics (energy times the intensity) [env: GENAI_ENABLE_CO2_TRACKING=true]'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l model-is-job-name -d '--record\'s MODEL is a scheduler\'s job name as given: made a model name as `exa import slurm` makes one (control characters dropped, 200 characters at most, `(no name)` when empty), so both name the job alike'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l part -d 'The measured run is one part of the run\'s work (a node of a multi-node job), summed with its other parts'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from measure" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from help" -f -a "carbon" -d 'Energy and carbon: kWh and gCO2e'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from help" -f -a "cost" -d 'Money: USD from a rate card'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from help" -f -a "measure" -d 'Run a command (or watch the node) and measure its GPU energy, carbon and cost'
complete -c exa -n "__fish_exa_using_subcommand finops; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand config; and not __fish_seen_subcommand_from path show init help" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand config; and not __fish_seen_subcommand_from path show init help" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand config; and not __fish_seen_subcommand_from path show init help" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand config; and not __fish_seen_subcommand_from path show init help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand config; and not __fish_seen_subcommand_from path show init help" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand config; and not __fish_seen_subcommand_from path show init help" -f -a "path" -d 'Print where the config file is, and whether it exists'
complete -c exa -n "__fish_exa_using_subcommand config; and not __fish_seen_subcommand_from path show init help" -f -a "show" -d 'Print the settings in effect, each with where it came from'
complete -c exa -n "__fish_exa_using_subcommand config; and not __fish_seen_subcommand_from path show init help" -f -a "init" -d 'Write a commented starting config file'
complete -c exa -n "__fish_exa_using_subcommand config; and not __fish_seen_subcommand_from path show init help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from path" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from path" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from path" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from path" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from path" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from show" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from show" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from show" -l strict -d 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]'
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from show" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from init" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from init" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from init" -l force -d 'Replace an existing file'
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from init" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from init" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "path" -d 'Print where the config file is, and whether it exists'
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print the settings in effect, each with where it came from'
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "init" -d 'Write a commented starting config file'
complete -c exa -n "__fish_exa_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand gpu; and not __fish_seen_subcommand_from serve export help" -l gpu-source -d 'Where readings come from [default: auto; env: EXAMLOPS_GPU_SOURCE]' -r -f -a "auto\t''
nvml\t''
nvidia-smi\t''
amd-smi\t''"
complete -c exa -n "__fish_exa_using_subcommand gpu; and not __fish_seen_subcommand_from serve export help" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand gpu; and not __fish_seen_subcommand_from serve export help" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand gpu; and not __fish_seen_subcommand_from serve export help" -l wide -d 'Every column, however narrow the terminal (a narrow one shows the main ones; JSON has all)'
complete -c exa -n "__fish_exa_using_subcommand gpu; and not __fish_seen_subcommand_from serve export help" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand gpu; and not __fish_seen_subcommand_from serve export help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand gpu; and not __fish_seen_subcommand_from serve export help" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand gpu; and not __fish_seen_subcommand_from serve export help" -f -a "serve" -d 'Serve the GPU, energy and CO2 metrics for a Prometheus scrape, until SIGTERM or Ctrl-C'
complete -c exa -n "__fish_exa_using_subcommand gpu; and not __fish_seen_subcommand_from serve export help" -f -a "export" -d 'Push the GPU, energy and CO2 metrics over OTLP/HTTP every --interval seconds, until SIGTERM or Ctrl-C'
complete -c exa -n "__fish_exa_using_subcommand gpu; and not __fish_seen_subcommand_from serve export help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l listen -d 'The address to listen on; the metrics are at /metrics' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l tokens-from -d 'Read an inference server\'s Prometheus metrics (vLLM, TGI, SGLang) every interval and export the GPUs\' energy per output token' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l tokens-model -d 'With --tokens-from: only this model\'s series (the server\'s model_name label)' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l interval -d 'Seconds between readings [default: 5; env: EXAMLOPS_GPU_INTERVAL, GENAI_GPU_COLLECTION_INTERVAL]' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l gpu-source -d 'Where readings come from [default: auto; env: EXAMLOPS_GPU_SOURCE]' -r -f -a "auto\t''
nvml\t''
nvidia-smi\t''
amd-smi\t''"
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l cpu-source -d 'Where CPU and memory energy is read: powercap (RAPL in sysfs), perf (the power PMU), or none [default: auto; env: EXAMLOPS_CPU_SOURCE; config: cpu.source]' -r -f -a "auto\t''
powercap\t''
perf\t''
none\t''"
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l node-source -d 'Where the whole node\'s power is read: hwmon (the ACPI power meter), ipmi (the BMC through ipmitool), redfish (the BMC\'s chassis at EXAMLOPS_REDFISH_URL), or none [default: auto; env: EXAMLOPS_NODE_SOURCE; config: node.source]' -r -f -a "auto\t''
hwmon\t''
ipmi\t''
redfish\t''
none\t''"
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l semconv -d 'The names of exported metrics: the spec\'s gen_ai.* or OpenTelemetry\'s hardware conventions (hw.*) [default: genai; env: EXAMLOPS_SEMCONV]' -r -f -a "genai\t''
hw\t''"
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l power-cost-per-kwh -d 'Electricity price in USD per kWh, for the cost of the measured energy; none without it [env: EXAMLOPS_POWER_COST_PER_KWH, GENAI_POWER_COST_PER_KWH]' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l carbon-intensity -d 'gCO2e per kWh for the exported gen_ai.co2.emissions [default: 475, a world average; env: EXAMLOPS_CARBON_INTENSITY, GENAI_CARBON_INTENSITY]' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l pod-idle -d 'Where the node\'s idle energy goes: none (its own series), even (equally to the pods), weighted (by their busy energy) [default: none; env: EXAMLOPS_POD_IDLE]' -r -f -a "none\t''
even\t''
weighted\t''"
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l pod-label -d 'A pod label exported on its exa_pod_info series (repeat, or comma-separate) [env: EXAMLOPS_POD_LABELS]' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l pod-annotation -d 'A pod annotation exported on its exa_pod_info series (repeat, or comma-separate) [env: EXAMLOPS_POD_ANNOTATIONS]' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l pod-resources -d 'The kubelet\'s PodResources socket, which says who holds each GPU; `none` not to ask [default: /var/lib/kubelet/pod-resources/kubelet.sock; env: EXAMLOPS_POD_RESOURCES]' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l kube-api -d 'The Kubernetes API, which names the pods; `none` not to ask [default: in a pod, the cluster\'s; env: EXAMLOPS_KUBE_API]' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l budgets -d 'Also serve the ledger\'s budgets (exa budget) as gauges, read every minute: exa_budget_limit, _used, _forecast. One exporter per ledger is enough'
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l co2 -d 'Export the CO2 metrics (energy times the intensity) [env: GENAI_ENABLE_CO2_TRACKING=true]'
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l pods -d 'Charge the node\'s GPU, CPU and DRAM energy to its pods, and export it per pod [env: EXAMLOPS_PODS]'
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from serve" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l otlp -d 'The OTLP/HTTP endpoint: a base URL (/v1/metrics is added) [env: OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, OTEL_EXPORTER_OTLP_ENDPOINT]' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l interval -d 'Seconds between readings [default: 5; env: EXAMLOPS_GPU_INTERVAL, GENAI_GPU_COLLECTION_INTERVAL]' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l gpu-source -d 'Where readings come from [default: auto; env: EXAMLOPS_GPU_SOURCE]' -r -f -a "auto\t''
nvml\t''
nvidia-smi\t''
amd-smi\t''"
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l cpu-source -d 'Where CPU and memory energy is read: powercap (RAPL in sysfs), perf (the power PMU), or none [default: auto; env: EXAMLOPS_CPU_SOURCE; config: cpu.source]' -r -f -a "auto\t''
powercap\t''
perf\t''
none\t''"
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l node-source -d 'Where the whole node\'s power is read: hwmon (the ACPI power meter), ipmi (the BMC through ipmitool), redfish (the BMC\'s chassis at EXAMLOPS_REDFISH_URL), or none [default: auto; env: EXAMLOPS_NODE_SOURCE; config: node.source]' -r -f -a "auto\t''
hwmon\t''
ipmi\t''
redfish\t''
none\t''"
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l semconv -d 'The names of exported metrics: the spec\'s gen_ai.* or OpenTelemetry\'s hardware conventions (hw.*) [default: genai; env: EXAMLOPS_SEMCONV]' -r -f -a "genai\t''
hw\t''"
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l power-cost-per-kwh -d 'Electricity price in USD per kWh, for the cost of the measured energy; none without it [env: EXAMLOPS_POWER_COST_PER_KWH, GENAI_POWER_COST_PER_KWH]' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l carbon-intensity -d 'gCO2e per kWh for the exported gen_ai.co2.emissions [default: 475, a world average; env: EXAMLOPS_CARBON_INTENSITY, GENAI_CARBON_INTENSITY]' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l pod-idle -d 'Where the node\'s idle energy goes: none (its own series), even (equally to the pods), weighted (by their busy energy) [default: none; env: EXAMLOPS_POD_IDLE]' -r -f -a "none\t''
even\t''
weighted\t''"
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l pod-label -d 'A pod label exported on its exa_pod_info series (repeat, or comma-separate) [env: EXAMLOPS_POD_LABELS]' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l pod-annotation -d 'A pod annotation exported on its exa_pod_info series (repeat, or comma-separate) [env: EXAMLOPS_POD_ANNOTATIONS]' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l pod-resources -d 'The kubelet\'s PodResources socket, which says who holds each GPU; `none` not to ask [default: /var/lib/kubelet/pod-resources/kubelet.sock; env: EXAMLOPS_POD_RESOURCES]' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l kube-api -d 'The Kubernetes API, which names the pods; `none` not to ask [default: in a pod, the cluster\'s; env: EXAMLOPS_KUBE_API]' -r
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l co2 -d 'Export the CO2 metrics (energy times the intensity) [env: GENAI_ENABLE_CO2_TRACKING=true]'
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l pods -d 'Charge the node\'s GPU, CPU and DRAM energy to its pods, and export it per pod [env: EXAMLOPS_PODS]'
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from export" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from help" -f -a "serve" -d 'Serve the GPU, energy and CO2 metrics for a Prometheus scrape, until SIGTERM or Ctrl-C'
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from help" -f -a "export" -d 'Push the GPU, energy and CO2 metrics over OTLP/HTTP every --interval seconds, until SIGTERM or Ctrl-C'
complete -c exa -n "__fish_exa_using_subcommand gpu; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand report" -l db -d 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]' -r -F
complete -c exa -n "__fish_exa_using_subcommand report" -l by -d 'Group by model, run, provider, day (UTC), user, account, partition, namespace, or a pod\'s tag: label:KEY or annotation:KEY (records without one are "(none)")' -r -f -a "model\t''
run\t''
provider\t''
day\t''
user\t''
account\t''
partition\t''
namespace\t''"
complete -c exa -n "__fish_exa_using_subcommand report" -l since -d 'Records from this UTC date or time on (2026-11-01, 2026-11-01T12:00:00Z)' -r
complete -c exa -n "__fish_exa_using_subcommand report" -l until -d 'Records before this UTC time; a date alone includes that whole day' -r
complete -c exa -n "__fish_exa_using_subcommand report" -l format -d 'totals (grouped, the default) or focus: FinOps FOCUS 1.2 cost rows, one per run and resource' -r -f -a "totals\t'Totals per group'
focus\t'FinOps FOCUS 1.2 rows: CSV, or JSON lines with -o json'"
complete -c exa -n "__fish_exa_using_subcommand report" -l per -d 'Figures per unit of work, with SCI\'s terms (E, I, M, R): token, request, run, or a unit of your naming (--unit images=N); only runs that counted it' -r
complete -c exa -n "__fish_exa_using_subcommand report" -l html -d 'Also write a self-contained HTML page with charts of energy, CO2e and cost to FILE' -r -F
complete -c exa -n "__fish_exa_using_subcommand report" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand report" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand report" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand report" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand report" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand budget; and not __fish_seen_subcommand_from set list rm status check notify help" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand budget; and not __fish_seen_subcommand_from set list rm status check notify help" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand budget; and not __fish_seen_subcommand_from set list rm status check notify help" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand budget; and not __fish_seen_subcommand_from set list rm status check notify help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand budget; and not __fish_seen_subcommand_from set list rm status check notify help" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand budget; and not __fish_seen_subcommand_from set list rm status check notify help" -f -a "set" -d 'Keep a budget, or new terms for one of that name: a scope\'s limits a period'
complete -c exa -n "__fish_exa_using_subcommand budget; and not __fish_seen_subcommand_from set list rm status check notify help" -f -a "list" -d 'The budgets in effect, each with who set it and when; --history lists every change'
complete -c exa -n "__fish_exa_using_subcommand budget; and not __fish_seen_subcommand_from set list rm status check notify help" -f -a "rm" -d 'End a budget. Its changes stay in the ledger (list --history)'
complete -c exa -n "__fish_exa_using_subcommand budget; and not __fish_seen_subcommand_from set list rm status check notify help" -f -a "status" -d 'Each budget\'s use this period: used, left and percent per unit, and when it runs out at the period\'s pace and at the last 7 days\''
complete -c exa -n "__fish_exa_using_subcommand budget; and not __fish_seen_subcommand_from set list rm status check notify help" -f -a "check" -d 'Whether the budgets of a scope (or one named) hold, with the work about to start added: exit 0 within, 1 past a warn line, 3 over; one line says which unit and by how much'
complete -c exa -n "__fish_exa_using_subcommand budget; and not __fish_seen_subcommand_from set list rm status check notify help" -f -a "notify" -d 'Send each line a budget crossed this period (its warn lines and 100 %) to the webhook and the Alertmanager the config names, once: an event that could not be sent is kept and sent by the next run (exit 1 until then)'
complete -c exa -n "__fish_exa_using_subcommand budget; and not __fish_seen_subcommand_from set list rm status check notify help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from set" -l scope -d 'Whose work: all, account=A, user=U, model=M, namespace=N, label:KEY=V or annotation:KEY=V' -r
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from set" -l period -d 'The period each allowance covers, in UTC (a week from Monday)' -r -f -a "day\t'A UTC day'
week\t'An ISO week, from Monday 00:00 UTC'
month\t'A calendar month'
quarter\t'A calendar quarter (January, April, July, October)'"
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from set" -l kwh -d 'The most energy a period, kWh' -r
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from set" -l kgco2e -d 'The most operational CO2e a period, kg' -r
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from set" -l usd -d 'The most cost a period, USD' -r
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from set" -l warn -d 'The lines, percent of a limit, past which it warns (status, check\'s exit 1)' -r
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from set" -l db -d 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]' -r -F
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from set" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from set" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from set" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from set" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from list" -l db -d 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]' -r -F
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from list" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from list" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from list" -l history -d 'Every change, oldest first: set, replaced, removed, by whom and when'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from list" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from rm" -l db -d 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]' -r -F
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from rm" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from rm" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from rm" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from rm" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from rm" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from status" -l at -d 'As of this time (ISO 8601 UTC, or a date: its midnight): the records before it, in the period holding it [default: now]' -r
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from status" -l db -d 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]' -r -F
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from status" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from status" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from status" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from check" -l scope -d 'The budgets of this scope (repeat for a job\'s account and user): as `set --scope` names them' -r
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from check" -l add-gpu-hours -d 'GPU-hours about to start, priced by the carbon and cost providers in effect and added' -r
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from check" -l add-cpu-hours -d 'CPU-hours about to start, added as --add-gpu-hours is' -r
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from check" -l at -d 'As of this time (ISO 8601 UTC, or a date: its midnight): the records before it [default: now]' -r
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from check" -l db -d 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]' -r -F
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from check" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from check" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from check" -l advise-only -d 'Say the verdict, never fail on it: exit 0 within, past a line or over'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from check" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from check" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from notify" -l at -d 'As of this time (ISO 8601 UTC, or a date: its midnight) [default: now]' -r
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from notify" -l db -d 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]' -r -F
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from notify" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from notify" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from notify" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from notify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from notify" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from help" -f -a "set" -d 'Keep a budget, or new terms for one of that name: a scope\'s limits a period'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from help" -f -a "list" -d 'The budgets in effect, each with who set it and when; --history lists every change'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from help" -f -a "rm" -d 'End a budget. Its changes stay in the ledger (list --history)'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from help" -f -a "status" -d 'Each budget\'s use this period: used, left and percent per unit, and when it runs out at the period\'s pace and at the last 7 days\''
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from help" -f -a "check" -d 'Whether the budgets of a scope (or one named) hold, with the work about to start added: exit 0 within, 1 past a warn line, 3 over; one line says which unit and by how much'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from help" -f -a "notify" -d 'Send each line a budget crossed this period (its warn lines and 100 %) to the webhook and the Alertmanager the config names, once: an event that could not be sent is kept and sent by the next run (exit 1 until then)'
complete -c exa -n "__fish_exa_using_subcommand budget; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand db; and not __fish_seen_subcommand_from migrate copy help" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand db; and not __fish_seen_subcommand_from migrate copy help" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand db; and not __fish_seen_subcommand_from migrate copy help" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand db; and not __fish_seen_subcommand_from migrate copy help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand db; and not __fish_seen_subcommand_from migrate copy help" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand db; and not __fish_seen_subcommand_from migrate copy help" -f -a "migrate" -d 'Bring the database\'s schema to this exa\'s version, creating it when missing'
complete -c exa -n "__fish_exa_using_subcommand db; and not __fish_seen_subcommand_from migrate copy help" -f -a "copy" -d 'Copy every record from one store into another, SQLite or PostgreSQL either way'
complete -c exa -n "__fish_exa_using_subcommand db; and not __fish_seen_subcommand_from migrate copy help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from migrate" -l db -d 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]' -r -F
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from migrate" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from migrate" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from migrate" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from migrate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from migrate" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from copy" -l from -d 'The store to read: a SQLite file or a postgres:// URL' -r
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from copy" -l to -d 'The store to write: a SQLite file or a postgres:// URL (made and migrated when missing)' -r
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from copy" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from copy" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from copy" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from copy" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from copy" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from help" -f -a "migrate" -d 'Bring the database\'s schema to this exa\'s version, creating it when missing'
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from help" -f -a "copy" -d 'Copy every record from one store into another, SQLite or PostgreSQL either way'
complete -c exa -n "__fish_exa_using_subcommand db; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand sync; and not __fish_seen_subcommand_from mlflow help" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand sync; and not __fish_seen_subcommand_from mlflow help" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand sync; and not __fish_seen_subcommand_from mlflow help" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand sync; and not __fish_seen_subcommand_from mlflow help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand sync; and not __fish_seen_subcommand_from mlflow help" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand sync; and not __fish_seen_subcommand_from mlflow help" -f -a "mlflow" -d 'Log to MLflow every record whose log is waiting in the outbox (MLflow was down, slow or refused)'
complete -c exa -n "__fish_exa_using_subcommand sync; and not __fish_seen_subcommand_from mlflow help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand sync; and __fish_seen_subcommand_from mlflow" -l db -d 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]' -r -F
complete -c exa -n "__fish_exa_using_subcommand sync; and __fish_seen_subcommand_from mlflow" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand sync; and __fish_seen_subcommand_from mlflow" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand sync; and __fish_seen_subcommand_from mlflow" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand sync; and __fish_seen_subcommand_from mlflow" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand sync; and __fish_seen_subcommand_from mlflow" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand sync; and __fish_seen_subcommand_from help" -f -a "mlflow" -d 'Log to MLflow every record whose log is waiting in the outbox (MLflow was down, slow or refused)'
complete -c exa -n "__fish_exa_using_subcommand sync; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand import; and not __fish_seen_subcommand_from slurm flux kubernetes help" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand import; and not __fish_seen_subcommand_from slurm flux kubernetes help" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand import; and not __fish_seen_subcommand_from slurm flux kubernetes help" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand import; and not __fish_seen_subcommand_from slurm flux kubernetes help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand import; and not __fish_seen_subcommand_from slurm flux kubernetes help" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand import; and not __fish_seen_subcommand_from slurm flux kubernetes help" -f -a "slurm" -d 'Finished Slurm jobs, from `sacct` (run here) or a saved `sacct -P` or `sacct --json` output'
complete -c exa -n "__fish_exa_using_subcommand import; and not __fish_seen_subcommand_from slurm flux kubernetes help" -f -a "flux" -d 'Finished Flux jobs, from `flux jobs` and each job\'s R (run here) or a saved file'
complete -c exa -n "__fish_exa_using_subcommand import; and not __fish_seen_subcommand_from slurm flux kubernetes help" -f -a "kubernetes" -d 'Pods\' measured energy and time, day by day, from the Prometheus that scrapes `exa gpu serve --pods`'
complete -c exa -n "__fish_exa_using_subcommand import; and not __fish_seen_subcommand_from slurm flux kubernetes help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -l since -d 'Jobs that ended at or after WHEN: a UTC date or time (2026-11-01, 2026-11-01T12:00:00Z) or an age (-7d, -12h, -30m). Default: where the last import of this cluster stopped' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -l until -d 'Jobs that ended before WHEN (same forms as --since); a date alone includes that whole day' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -l file -d 'Read the jobs from FILE (`-` for standard input) instead of asking the scheduler' -r -F
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -l cluster -d 'The cluster\'s name, for run ids and the watermark [default: the jobs\' own (Slurm), or this host\'s name (Flux)]' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -l model -d 'The model every imported job is recorded under' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -l model-from -d 'Which field of a job names its model' -r -f -a "jobname\t'The job\'s name'
account\t'The job\'s account (Slurm)'
wckey\t'The job\'s workload characterization key (Slurm --wckey)'
comment\t'The job\'s comment (Slurm --comment; kept when AccountingStoreFlags has job_comment)'"
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -l carbon-provider -d 'The carbon provider that prices the jobs (else env, config, default)' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -l cost-provider -d 'The cost provider that prices the jobs (else env, config, default)' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -l db -d 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]' -r -F
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -l dry-run -d 'Show what would be recorded, job by job (`jobs` in JSON), and write nothing'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -l skip-bad -d 'Skip malformed lines (each named in the answer) instead of importing nothing from the file'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -l grid-history -d 'Price each job at the grid\'s intensity over its own start to end, from the history endpoint (EXAMLOPS_GRID_HISTORY_URL): one request per zone and UTC day, cached, not one per job'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -l exclusive -d 'The jobs held whole nodes (the partition is OverSubscribe=EXCLUSIVE, or --exclusive everywhere), so Slurm\'s node energy (ConsumedEnergyRaw) is the job\'s own and is kept; otherwise energy is not measured'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from slurm" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -l since -d 'Jobs that ended at or after WHEN: a UTC date or time (2026-11-01, 2026-11-01T12:00:00Z) or an age (-7d, -12h, -30m). Default: where the last import of this cluster stopped' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -l until -d 'Jobs that ended before WHEN (same forms as --since); a date alone includes that whole day' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -l file -d 'Read the jobs from FILE (`-` for standard input) instead of asking the scheduler' -r -F
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -l cluster -d 'The cluster\'s name, for run ids and the watermark [default: the jobs\' own (Slurm), or this host\'s name (Flux)]' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -l model -d 'The model every imported job is recorded under' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -l model-from -d 'Which field of a job names its model' -r -f -a "jobname\t'The job\'s name'
account\t'The job\'s account (Slurm)'
wckey\t'The job\'s workload characterization key (Slurm --wckey)'
comment\t'The job\'s comment (Slurm --comment; kept when AccountingStoreFlags has job_comment)'"
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -l carbon-provider -d 'The carbon provider that prices the jobs (else env, config, default)' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -l cost-provider -d 'The cost provider that prices the jobs (else env, config, default)' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -l db -d 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]' -r -F
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -l dry-run -d 'Show what would be recorded, job by job (`jobs` in JSON), and write nothing'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -l skip-bad -d 'Skip malformed lines (each named in the answer) instead of importing nothing from the file'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -l grid-history -d 'Price each job at the grid\'s intensity over its own start to end, from the history endpoint (EXAMLOPS_GRID_HISTORY_URL): one request per zone and UTC day, cached, not one per job'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from flux" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from kubernetes" -l cluster -d 'The cluster\'s name, in run ids and keys; one configured under clusters: in finops.yaml also gives the Prometheus to read, its token and its labels' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from kubernetes" -l prometheus -d 'The Prometheus that scrapes the exporters: its HTTP API\'s base URL [default: the configured cluster\'s]' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from kubernetes" -l since -d 'The first UTC day to import (2026-11-01, or an age: -7d) [default: the day after this cluster\'s last import, else yesterday]' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from kubernetes" -l until -d 'The last day to import, whole (a date), or the day before WHEN [default: yesterday; today is never imported]' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from kubernetes" -l model -d 'The model every pod\'s records are kept under [default: its namespace]' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from kubernetes" -l carbon-provider -d 'The carbon provider that prices the pods (else env, config, default)' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from kubernetes" -l cost-provider -d 'The cost provider that prices the pods (else env, config, default)' -r
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from kubernetes" -l db -d 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]' -r -F
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from kubernetes" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from kubernetes" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from kubernetes" -l dry-run -d 'Show what would be recorded, pod by pod and day by day (`pods` in JSON), and write nothing'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from kubernetes" -l grid-history -d 'Price each pod-day\'s carbon at the grid\'s history, each hour weighed by the pod\'s energy in it (EXAMLOPS_GRID_HISTORY_URL)'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from kubernetes" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from kubernetes" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from kubernetes" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from help" -f -a "slurm" -d 'Finished Slurm jobs, from `sacct` (run here) or a saved `sacct -P` or `sacct --json` output'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from help" -f -a "flux" -d 'Finished Flux jobs, from `flux jobs` and each job\'s R (run here) or a saved file'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from help" -f -a "kubernetes" -d 'Pods\' measured energy and time, day by day, from the Prometheus that scrapes `exa gpu serve --pods`'
complete -c exa -n "__fish_exa_using_subcommand import; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand mcp" -l listen -d 'Serve streamable HTTP on ADDR (host:port) at /mcp instead of stdio; loopback unless you name another address' -r
complete -c exa -n "__fish_exa_using_subcommand mcp" -l db -d 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]' -r -F
complete -c exa -n "__fish_exa_using_subcommand mcp" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand mcp" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand mcp" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand mcp" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand metrics; and not __fish_seen_subcommand_from clusters node workload flags query help" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand metrics; and not __fish_seen_subcommand_from clusters node workload flags query help" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand metrics; and not __fish_seen_subcommand_from clusters node workload flags query help" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand metrics; and not __fish_seen_subcommand_from clusters node workload flags query help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand metrics; and not __fish_seen_subcommand_from clusters node workload flags query help" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand metrics; and not __fish_seen_subcommand_from clusters node workload flags query help" -f -a "clusters" -d 'The clusters configured (clusters: in finops.yaml), with vendor and model'
complete -c exa -n "__fish_exa_using_subcommand metrics; and not __fish_seen_subcommand_from clusters node workload flags query help" -f -a "node" -d 'Every reading of one node\'s GPUs and host over the window'
complete -c exa -n "__fish_exa_using_subcommand metrics; and not __fish_seen_subcommand_from clusters node workload flags query help" -f -a "workload" -d 'Where a workload ran over the window, and each node\'s readings'
complete -c exa -n "__fish_exa_using_subcommand metrics; and not __fish_seen_subcommand_from clusters node workload flags query help" -f -a "flags" -d 'Which conditions fired on a node or a workload, with the evidence'
complete -c exa -n "__fish_exa_using_subcommand metrics; and not __fish_seen_subcommand_from clusters node workload flags query help" -f -a "query" -d 'One PromQL expression of your own (at most 4000 characters), over the window or at its end, on one cluster or, without --cluster, on every cluster configured (the organization)'
complete -c exa -n "__fish_exa_using_subcommand metrics; and not __fish_seen_subcommand_from clusters node workload flags query help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from clusters" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from clusters" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from clusters" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from clusters" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from clusters" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from node" -l cluster -d 'The cluster to read, as named under clusters: in finops.yaml (`exa metrics clusters` lists them)' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from node" -l node -d 'The node, as the cluster\'s node label names it' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from node" -l range -d 'A window ending now: 1h, 6h, 24h or 7d [default: 6h]' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from node" -l start -d 'An explicit window start (ISO 8601 UTC); --range is then ignored' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from node" -l end -d 'The window end (ISO 8601 UTC) [default: now]' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from node" -l points -d 'Points per series, at most 96 [default: 48]' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from node" -l detail -d 'summary (mean, min, max) or series [default: series]' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from node" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from node" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from node" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from node" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from node" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from workload" -l cluster -d 'The cluster to read, as named under clusters: in finops.yaml (`exa metrics clusters` lists them)' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from workload" -l kind -d 'The workload\'s kind: Job, JobSet, MPIJob, Deployment, StatefulSet or Pod' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from workload" -l name -d 'The workload\'s name' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from workload" -l namespace -d 'The workload\'s namespace' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from workload" -l range -d 'A window ending now: 1h, 6h, 24h or 7d [default: 6h]' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from workload" -l start -d 'An explicit window start (ISO 8601 UTC); --range is then ignored' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from workload" -l end -d 'The window end (ISO 8601 UTC) [default: now]' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from workload" -l points -d 'Points per series, at most 96 [default: 48]' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from workload" -l detail -d 'summary (mean, min, max) or series [default: summary]' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from workload" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from workload" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from workload" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from workload" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from workload" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from flags" -l cluster -d 'The cluster to read, as named under clusters: in finops.yaml (`exa metrics clusters` lists them)' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from flags" -l node -d 'A node (or give --kind and --name)' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from flags" -l kind -d 'The workload\'s kind: Job, JobSet, MPIJob, Deployment, StatefulSet or Pod (with --name)' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from flags" -l name -d 'The workload\'s name (with --kind)' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from flags" -l namespace -d 'The workload\'s namespace' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from flags" -l range -d 'A window ending now: 1h, 6h, 24h or 7d [default: 6h]' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from flags" -l start -d 'An explicit window start (ISO 8601 UTC); --range is then ignored' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from flags" -l end -d 'The window end (ISO 8601 UTC) [default: now]' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from flags" -l points -d 'Points per series, at most 96 [default: 48]' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from flags" -l detail -d 'summary, the only detail flags have: a flag carries its evidence (read the node with --detail series for the curves)' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from flags" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from flags" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from flags" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from flags" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from flags" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from query" -l cluster -d 'The cluster to read, as named under clusters: in finops.yaml; every cluster when unset' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from query" -l range -d 'A window ending now: 1h, 6h, 24h or 7d [default: 6h]' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from query" -l start -d 'An explicit window start (ISO 8601 UTC); --range is then ignored' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from query" -l end -d 'The window end (ISO 8601 UTC) [default: now]' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from query" -l points -d 'Points per series, at most 96 [default: 48]' -r
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from query" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from query" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from query" -l instant -d 'One value per series at the window\'s end, instead of a series over it'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from query" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from query" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from query" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from help" -f -a "clusters" -d 'The clusters configured (clusters: in finops.yaml), with vendor and model'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from help" -f -a "node" -d 'Every reading of one node\'s GPUs and host over the window'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from help" -f -a "workload" -d 'Where a workload ran over the window, and each node\'s readings'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from help" -f -a "flags" -d 'Which conditions fired on a node or a workload, with the evidence'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from help" -f -a "query" -d 'One PromQL expression of your own (at most 4000 characters), over the window or at its end, on one cluster or, without --cluster, on every cluster configured (the organization)'
complete -c exa -n "__fish_exa_using_subcommand metrics; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand validate" -l trace -d 'Exa\'s trace of the run (`measure --trace FILE`), JSON lines' -r -F
complete -c exa -n "__fish_exa_using_subcommand validate" -l reference -d 'The reference\'s series, CSV with a header; or redfish, ipmi or hwmon: the node meter\'s readings the trace holds (measure --node-source with --trace), the whole node against the GPUs' -r -F
complete -c exa -n "__fish_exa_using_subcommand validate" -l offset -d 'The reference\'s clock minus exa\'s, seconds, when known [default: found within --max-offset]' -r
complete -c exa -n "__fish_exa_using_subcommand validate" -l max-offset -d 'How far apart the clocks may be, seconds, when the offset is found' -r
complete -c exa -n "__fish_exa_using_subcommand validate" -l window -d 'The windows\' lengths, seconds, comma-separated' -r
complete -c exa -n "__fish_exa_using_subcommand validate" -l html -d 'Also write a page (self-contained HTML) plotting both series, aligned, with the errors\' table' -r -F
complete -c exa -n "__fish_exa_using_subcommand validate" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand validate" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand validate" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand validate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand validate" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand completions" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand completions" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand completions" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand completions" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand man" -s o -l output -d 'Output format: a table for people, or JSON for programs' -r -f -a "table\t''
json\t''
csv\t'Comma-separated values (`exa report` only)'"
complete -c exa -n "__fish_exa_using_subcommand man" -l config -d 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]' -r -F
complete -c exa -n "__fish_exa_using_subcommand man" -l json -d 'Same as `-o json`'
complete -c exa -n "__fish_exa_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c exa -n "__fish_exa_using_subcommand man" -s V -l version -d 'Print version'
complete -c exa -n "__fish_exa_using_subcommand help; and not __fish_seen_subcommand_from finops config gpu report budget db sync import mcp metrics validate completions man help" -f -a "finops" -d 'Energy, carbon and cost of GPU and CPU work'
complete -c exa -n "__fish_exa_using_subcommand help; and not __fish_seen_subcommand_from finops config gpu report budget db sync import mcp metrics validate completions man help" -f -a "config" -d 'Where the config file is, what is in effect, and a starting file'
complete -c exa -n "__fish_exa_using_subcommand help; and not __fish_seen_subcommand_from finops config gpu report budget db sync import mcp metrics validate completions man help" -f -a "gpu" -d 'One reading of every GPU (NVML, nvidia-smi or amd-smi), and the aggregates; or export them'
complete -c exa -n "__fish_exa_using_subcommand help; and not __fish_seen_subcommand_from finops config gpu report budget db sync import mcp metrics validate completions man help" -f -a "report" -d 'Totals of the stored records: runs, GPU-h, CPU-h, kWh, CO2e with its range, USD'
complete -c exa -n "__fish_exa_using_subcommand help; and not __fish_seen_subcommand_from finops config gpu report budget db sync import mcp metrics validate completions man help" -f -a "budget" -d 'Budgets: a team\'s kWh, kgCO2e and USD a period, kept in the ledger, watched and checked where work starts'
complete -c exa -n "__fish_exa_using_subcommand help; and not __fish_seen_subcommand_from finops config gpu report budget db sync import mcp metrics validate completions man help" -f -a "db" -d 'The records database: bring its schema up to date, copy records between stores'
complete -c exa -n "__fish_exa_using_subcommand help; and not __fish_seen_subcommand_from finops config gpu report budget db sync import mcp metrics validate completions man help" -f -a "sync" -d 'Send what could not be sent: records waiting in the outbox for MLflow'
complete -c exa -n "__fish_exa_using_subcommand help; and not __fish_seen_subcommand_from finops config gpu report budget db sync import mcp metrics validate completions man help" -f -a "import" -d 'Turn a scheduler\'s finished jobs into records: Slurm (sacct) or Flux'
complete -c exa -n "__fish_exa_using_subcommand help; and not __fish_seen_subcommand_from finops config gpu report budget db sync import mcp metrics validate completions man help" -f -a "mcp" -d 'Serve exa\'s read-only tools to AI agents over MCP (stdio, or streamable HTTP)'
complete -c exa -n "__fish_exa_using_subcommand help; and not __fish_seen_subcommand_from finops config gpu report budget db sync import mcp metrics validate completions man help" -f -a "metrics" -d 'Cluster GPU and host telemetry from Prometheus, and the flags it raises'
complete -c exa -n "__fish_exa_using_subcommand help; and not __fish_seen_subcommand_from finops config gpu report budget db sync import mcp metrics validate completions man help" -f -a "validate" -d 'How far a measurement is from a reference: a trace against a wall meter\'s, BMC\'s or DCGM\'s series'
complete -c exa -n "__fish_exa_using_subcommand help; and not __fish_seen_subcommand_from finops config gpu report budget db sync import mcp metrics validate completions man help" -f -a "completions" -d 'Print shell completions for exa'
complete -c exa -n "__fish_exa_using_subcommand help; and not __fish_seen_subcommand_from finops config gpu report budget db sync import mcp metrics validate completions man help" -f -a "man" -d 'Print exa\'s man page (roff), or a subcommand\'s'
complete -c exa -n "__fish_exa_using_subcommand help; and not __fish_seen_subcommand_from finops config gpu report budget db sync import mcp metrics validate completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from finops" -f -a "carbon" -d 'Energy and carbon: kWh and gCO2e'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from finops" -f -a "cost" -d 'Money: USD from a rate card'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from finops" -f -a "measure" -d 'Run a command (or watch the node) and measure its GPU energy, carbon and cost'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "path" -d 'Print where the config file is, and whether it exists'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "show" -d 'Print the settings in effect, each with where it came from'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "init" -d 'Write a commented starting config file'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from gpu" -f -a "serve" -d 'Serve the GPU, energy and CO2 metrics for a Prometheus scrape, until SIGTERM or Ctrl-C'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from gpu" -f -a "export" -d 'Push the GPU, energy and CO2 metrics over OTLP/HTTP every --interval seconds, until SIGTERM or Ctrl-C'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from budget" -f -a "set" -d 'Keep a budget, or new terms for one of that name: a scope\'s limits a period'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from budget" -f -a "list" -d 'The budgets in effect, each with who set it and when; --history lists every change'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from budget" -f -a "rm" -d 'End a budget. Its changes stay in the ledger (list --history)'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from budget" -f -a "status" -d 'Each budget\'s use this period: used, left and percent per unit, and when it runs out at the period\'s pace and at the last 7 days\''
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from budget" -f -a "check" -d 'Whether the budgets of a scope (or one named) hold, with the work about to start added: exit 0 within, 1 past a warn line, 3 over; one line says which unit and by how much'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from budget" -f -a "notify" -d 'Send each line a budget crossed this period (its warn lines and 100 %) to the webhook and the Alertmanager the config names, once: an event that could not be sent is kept and sent by the next run (exit 1 until then)'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from db" -f -a "migrate" -d 'Bring the database\'s schema to this exa\'s version, creating it when missing'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from db" -f -a "copy" -d 'Copy every record from one store into another, SQLite or PostgreSQL either way'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from sync" -f -a "mlflow" -d 'Log to MLflow every record whose log is waiting in the outbox (MLflow was down, slow or refused)'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from import" -f -a "slurm" -d 'Finished Slurm jobs, from `sacct` (run here) or a saved `sacct -P` or `sacct --json` output'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from import" -f -a "flux" -d 'Finished Flux jobs, from `flux jobs` and each job\'s R (run here) or a saved file'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from import" -f -a "kubernetes" -d 'Pods\' measured energy and time, day by day, from the Prometheus that scrapes `exa gpu serve --pods`'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from metrics" -f -a "clusters" -d 'The clusters configured (clusters: in finops.yaml), with vendor and model'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from metrics" -f -a "node" -d 'Every reading of one node\'s GPUs and host over the window'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from metrics" -f -a "workload" -d 'Where a workload ran over the window, and each node\'s readings'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from metrics" -f -a "flags" -d 'Which conditions fired on a node or a workload, with the evidence'
complete -c exa -n "__fish_exa_using_subcommand help; and __fish_seen_subcommand_from metrics" -f -a "query" -d 'One PromQL expression of your own (at most 4000 characters), over the window or at its end, on one cluster or, without --cluster, on every cluster configured (the organization)'
