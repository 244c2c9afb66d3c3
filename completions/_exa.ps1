
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'exa' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'exa'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'exa' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('finops', 'finops', [CompletionResultType]::ParameterValue, 'Energy, carbon and cost of GPU and CPU work')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Where the config file is, what is in effect, and a starting file')
            [CompletionResult]::new('gpu', 'gpu', [CompletionResultType]::ParameterValue, 'One reading of every GPU (NVML, nvidia-smi or amd-smi), and the aggregates; or export them')
            [CompletionResult]::new('report', 'report', [CompletionResultType]::ParameterValue, 'Totals of the stored records: runs, GPU-h, CPU-h, kWh, CO2e with its range, USD')
            [CompletionResult]::new('budget', 'budget', [CompletionResultType]::ParameterValue, 'Budgets: a team''s kWh, kgCO2e and USD a period, kept in the ledger, watched and checked where work starts')
            [CompletionResult]::new('db', 'db', [CompletionResultType]::ParameterValue, 'The records database: bring its schema up to date, copy records between stores')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Send what could not be sent: records waiting in the outbox for MLflow')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Turn a scheduler''s finished jobs into records: Slurm (sacct) or Flux')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve exa''s read-only tools to AI agents over MCP (stdio, or streamable HTTP)')
            [CompletionResult]::new('metrics', 'metrics', [CompletionResultType]::ParameterValue, 'Cluster GPU and host telemetry from Prometheus, and the flags it raises')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'How far a measurement is from a reference: a trace against a wall meter''s, BMC''s or DCGM''s series')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions for exa')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print exa''s man page (roff), or a subcommand''s')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;finops' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('carbon', 'carbon', [CompletionResultType]::ParameterValue, 'Energy and carbon: kWh and gCO2e')
            [CompletionResult]::new('cost', 'cost', [CompletionResultType]::ParameterValue, 'Money: USD from a rate card')
            [CompletionResult]::new('measure', 'measure', [CompletionResultType]::ParameterValue, 'Run a command (or watch the node) and measure its GPU energy, carbon and cost')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;finops;carbon' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('providers', 'providers', [CompletionResultType]::ParameterValue, 'List the carbon providers, each with its kind, uncertainty and status')
            [CompletionResult]::new('estimate', 'estimate', [CompletionResultType]::ParameterValue, 'Estimate energy (kWh) and carbon (gCO2e) of GPU and CPU hours')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a carbon provider: formulas, coefficients with defaults, metadata')
            [CompletionResult]::new('record', 'record', [CompletionResultType]::ParameterValue, 'Estimate as `estimate` does and store the result as a record of MODEL')
            [CompletionResult]::new('regions', 'regions', [CompletionResultType]::ParameterValue, 'List the grid regions exa knows offline, each with its intensity, year and source')
            [CompletionResult]::new('hardware', 'hardware', [CompletionResultType]::ParameterValue, 'List the GPU and CPU models exa knows the power of, each with its source (what hardware-aware prices by)')
            [CompletionResult]::new('when', 'when', [CompletionResultType]::ParameterValue, 'The start, within a window, that gives a job of a known length the least carbon by the grid''s forecast')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;finops;carbon;providers' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;finops;carbon;estimate' {
            [CompletionResult]::new('--gpu-hours', '--gpu-hours', [CompletionResultType]::ParameterName, 'GPU-hours of the work (device-hours: 2 GPUs for 6 hours is 12)')
            [CompletionResult]::new('--cpu-hours', '--cpu-hours', [CompletionResultType]::ParameterName, 'CPU-core-hours of the work, as the scheduler reports them')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The provider: a name from `providers`, or a path to a provider file or plugin')
            [CompletionResult]::new('--set', '--set', [CompletionResultType]::ParameterName, 'Set any coefficient of the provider, e.g. --set ram_gb=64 (repeatable)')
            [CompletionResult]::new('--pue', '--pue', [CompletionResultType]::ParameterName, 'Data-centre PUE (coefficient pue)')
            [CompletionResult]::new('--gpu-tdp', '--gpu-tdp', [CompletionResultType]::ParameterName, 'Power of one GPU board in watts (coefficient gpu_tdp_watts)')
            [CompletionResult]::new('--cpu-tdp', '--cpu-tdp', [CompletionResultType]::ParameterName, 'Power per CPU-hour in watts (coefficient cpu_tdp_watts)')
            [CompletionResult]::new('--grid-intensity', '--grid-intensity', [CompletionResultType]::ParameterName, 'Grid carbon intensity in gCO2e/kWh (coefficient grid_intensity_g_per_kwh)')
            [CompletionResult]::new('--gpu-kwh', '--gpu-kwh', [CompletionResultType]::ParameterName, 'GPU energy measured elsewhere (DCGM, a PDU) over --gpu-hours; its mean power replaces gpu_tdp_watts')
            [CompletionResult]::new('--cpu-kwh', '--cpu-kwh', [CompletionResultType]::ParameterName, 'CPU and memory energy measured elsewhere (RAPL, a PDU) over --cpu-hours; its mean power replaces cpu_tdp_watts')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The grid region whose intensity to use: a country (FR, FRA), a US state (US-VA), a NERC region (SERC) or a cloud region (aws:us-east-1) [env: EXAMLOPS_GRID_REGION; config: finops.carbon.grid.region; list: exa finops carbon regions]')
            [CompletionResult]::new('--gpu-model', '--gpu-model', [CompletionResultType]::ParameterName, 'The GPU model (H100-SXM, "NVIDIA L4", MI300X): a provider that prices by model (hardware-aware) takes its board power [list: exa finops carbon hardware]')
            [CompletionResult]::new('--cpu-model', '--cpu-model', [CompletionResultType]::ParameterName, 'The CPU model ("EPYC 7763", "Xeon Platinum 8380"), with --cpu-cores: a provider that prices by model takes a core''s power as its TDP over its cores')
            [CompletionResult]::new('--cpu-cores', '--cpu-cores', [CompletionResultType]::ParameterName, 'The CPU model''s CPUs a socket, as the CPU-hours count them (threads, where they count threads): --cpu-model''s TDP is the socket''s')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;finops;carbon;show' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;finops;carbon;record' {
            [CompletionResult]::new('--run-id', '--run-id', [CompletionResultType]::ParameterName, 'The run this record belongs to (an MLflow run id, a job id); records of one run count as one run')
            [CompletionResult]::new('--tokens', '--tokens', [CompletionResultType]::ParameterName, 'Output tokens the work generated, kept on the record for `report --per token`')
            [CompletionResult]::new('--prompt-tokens', '--prompt-tokens', [CompletionResultType]::ParameterName, 'Prompt (input) tokens the work read, kept beside --tokens')
            [CompletionResult]::new('--requests', '--requests', [CompletionResultType]::ParameterName, 'Requests the work served, kept on the record for `report --per request`')
            [CompletionResult]::new('--unit', '--unit', [CompletionResultType]::ParameterName, 'Work in a unit of your naming, NAME=N (images=5000), kept for `report --per NAME`')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('--gpu-hours', '--gpu-hours', [CompletionResultType]::ParameterName, 'GPU-hours of the work (device-hours: 2 GPUs for 6 hours is 12)')
            [CompletionResult]::new('--cpu-hours', '--cpu-hours', [CompletionResultType]::ParameterName, 'CPU-core-hours of the work, as the scheduler reports them')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The provider: a name from `providers`, or a path to a provider file or plugin')
            [CompletionResult]::new('--set', '--set', [CompletionResultType]::ParameterName, 'Set any coefficient of the provider, e.g. --set ram_gb=64 (repeatable)')
            [CompletionResult]::new('--pue', '--pue', [CompletionResultType]::ParameterName, 'Data-centre PUE (coefficient pue)')
            [CompletionResult]::new('--gpu-tdp', '--gpu-tdp', [CompletionResultType]::ParameterName, 'Power of one GPU board in watts (coefficient gpu_tdp_watts)')
            [CompletionResult]::new('--cpu-tdp', '--cpu-tdp', [CompletionResultType]::ParameterName, 'Power per CPU-hour in watts (coefficient cpu_tdp_watts)')
            [CompletionResult]::new('--grid-intensity', '--grid-intensity', [CompletionResultType]::ParameterName, 'Grid carbon intensity in gCO2e/kWh (coefficient grid_intensity_g_per_kwh)')
            [CompletionResult]::new('--gpu-kwh', '--gpu-kwh', [CompletionResultType]::ParameterName, 'GPU energy measured elsewhere (DCGM, a PDU) over --gpu-hours; its mean power replaces gpu_tdp_watts')
            [CompletionResult]::new('--cpu-kwh', '--cpu-kwh', [CompletionResultType]::ParameterName, 'CPU and memory energy measured elsewhere (RAPL, a PDU) over --cpu-hours; its mean power replaces cpu_tdp_watts')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The grid region whose intensity to use: a country (FR, FRA), a US state (US-VA), a NERC region (SERC) or a cloud region (aws:us-east-1) [env: EXAMLOPS_GRID_REGION; config: finops.carbon.grid.region; list: exa finops carbon regions]')
            [CompletionResult]::new('--gpu-model', '--gpu-model', [CompletionResultType]::ParameterName, 'The GPU model (H100-SXM, "NVIDIA L4", MI300X): a provider that prices by model (hardware-aware) takes its board power [list: exa finops carbon hardware]')
            [CompletionResult]::new('--cpu-model', '--cpu-model', [CompletionResultType]::ParameterName, 'The CPU model ("EPYC 7763", "Xeon Platinum 8380"), with --cpu-cores: a provider that prices by model takes a core''s power as its TDP over its cores')
            [CompletionResult]::new('--cpu-cores', '--cpu-cores', [CompletionResultType]::ParameterName, 'The CPU model''s CPUs a socket, as the CPU-hours count them (threads, where they count threads): --cpu-model''s TDP is the socket''s')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--part', '--part', [CompletionResultType]::ParameterName, 'This record is one part of the run''s work (a stage, a node), summed with the run''s other parts; without it, a second record of the same kind for a run is the same work, counted once')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;finops;carbon;regions' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--sources', '--sources', [CompletionResultType]::ParameterName, 'Print the tables'' sources, licences and attribution instead')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;finops;carbon;hardware' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--sources', '--sources', [CompletionResultType]::ParameterName, 'Print the tables'' sources and licences instead')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;finops;carbon;when' {
            [CompletionResult]::new('--duration', '--duration', [CompletionResultType]::ParameterName, 'How long the job runs: 90m, 6h, 1.5d')
            [CompletionResult]::new('--within', '--within', [CompletionResultType]::ParameterName, 'How far from now it may start [default: 24h]')
            [CompletionResult]::new('--power-w', '--power-w', [CompletionResultType]::ParameterName, 'The job''s mean power, watts, for its emissions in grams (without it, intensities only)')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The grid whose forecast to read: a country (FR) or a cloud region outside the US (gcp:europe-west9), asked as its country''s zone [default: the zone set (EXAMLOPS_GRID_INTENSITY_ZONE, finops.carbon.grid.zone), else the grid region set (EXAMLOPS_GRID_REGION, finops.carbon.grid.region)]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;finops;carbon;help' {
            [CompletionResult]::new('providers', 'providers', [CompletionResultType]::ParameterValue, 'List the carbon providers, each with its kind, uncertainty and status')
            [CompletionResult]::new('estimate', 'estimate', [CompletionResultType]::ParameterValue, 'Estimate energy (kWh) and carbon (gCO2e) of GPU and CPU hours')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a carbon provider: formulas, coefficients with defaults, metadata')
            [CompletionResult]::new('record', 'record', [CompletionResultType]::ParameterValue, 'Estimate as `estimate` does and store the result as a record of MODEL')
            [CompletionResult]::new('regions', 'regions', [CompletionResultType]::ParameterValue, 'List the grid regions exa knows offline, each with its intensity, year and source')
            [CompletionResult]::new('hardware', 'hardware', [CompletionResultType]::ParameterValue, 'List the GPU and CPU models exa knows the power of, each with its source (what hardware-aware prices by)')
            [CompletionResult]::new('when', 'when', [CompletionResultType]::ParameterValue, 'The start, within a window, that gives a job of a known length the least carbon by the grid''s forecast')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;finops;carbon;help;providers' {
            break
        }
        'exa;finops;carbon;help;estimate' {
            break
        }
        'exa;finops;carbon;help;show' {
            break
        }
        'exa;finops;carbon;help;record' {
            break
        }
        'exa;finops;carbon;help;regions' {
            break
        }
        'exa;finops;carbon;help;hardware' {
            break
        }
        'exa;finops;carbon;help;when' {
            break
        }
        'exa;finops;carbon;help;help' {
            break
        }
        'exa;finops;cost' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('providers', 'providers', [CompletionResultType]::ParameterValue, 'List the cost providers (rate cards), each with its kind and status')
            [CompletionResult]::new('estimate', 'estimate', [CompletionResultType]::ParameterValue, 'Estimate the cost (USD) of GPU and CPU hours')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a cost provider: formulas, coefficients with defaults, metadata')
            [CompletionResult]::new('record', 'record', [CompletionResultType]::ParameterValue, 'Estimate as `estimate` does and store the result as a record of MODEL')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;finops;cost;providers' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;finops;cost;estimate' {
            [CompletionResult]::new('--gpu-hours', '--gpu-hours', [CompletionResultType]::ParameterName, 'GPU-hours of the work (device-hours: 2 GPUs for 6 hours is 12)')
            [CompletionResult]::new('--cpu-hours', '--cpu-hours', [CompletionResultType]::ParameterName, 'CPU-core-hours of the work, as the scheduler reports them')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The provider: a name from `providers`, or a path to a provider file or plugin')
            [CompletionResult]::new('--set', '--set', [CompletionResultType]::ParameterName, 'Set any coefficient of the provider, e.g. --set ram_gb=64 (repeatable)')
            [CompletionResult]::new('--gpu-rate', '--gpu-rate', [CompletionResultType]::ParameterName, 'Price of one GPU-hour in USD (coefficient gpu_rate)')
            [CompletionResult]::new('--cpu-rate', '--cpu-rate', [CompletionResultType]::ParameterName, 'Price of one CPU-hour in USD (coefficient cpu_rate)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;finops;cost;show' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;finops;cost;record' {
            [CompletionResult]::new('--run-id', '--run-id', [CompletionResultType]::ParameterName, 'The run this record belongs to (an MLflow run id, a job id); records of one run count as one run')
            [CompletionResult]::new('--tokens', '--tokens', [CompletionResultType]::ParameterName, 'Output tokens the work generated, kept on the record for `report --per token`')
            [CompletionResult]::new('--prompt-tokens', '--prompt-tokens', [CompletionResultType]::ParameterName, 'Prompt (input) tokens the work read, kept beside --tokens')
            [CompletionResult]::new('--requests', '--requests', [CompletionResultType]::ParameterName, 'Requests the work served, kept on the record for `report --per request`')
            [CompletionResult]::new('--unit', '--unit', [CompletionResultType]::ParameterName, 'Work in a unit of your naming, NAME=N (images=5000), kept for `report --per NAME`')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('--gpu-hours', '--gpu-hours', [CompletionResultType]::ParameterName, 'GPU-hours of the work (device-hours: 2 GPUs for 6 hours is 12)')
            [CompletionResult]::new('--cpu-hours', '--cpu-hours', [CompletionResultType]::ParameterName, 'CPU-core-hours of the work, as the scheduler reports them')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The provider: a name from `providers`, or a path to a provider file or plugin')
            [CompletionResult]::new('--set', '--set', [CompletionResultType]::ParameterName, 'Set any coefficient of the provider, e.g. --set ram_gb=64 (repeatable)')
            [CompletionResult]::new('--gpu-rate', '--gpu-rate', [CompletionResultType]::ParameterName, 'Price of one GPU-hour in USD (coefficient gpu_rate)')
            [CompletionResult]::new('--cpu-rate', '--cpu-rate', [CompletionResultType]::ParameterName, 'Price of one CPU-hour in USD (coefficient cpu_rate)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--part', '--part', [CompletionResultType]::ParameterName, 'This record is one part of the run''s work (a stage, a node), summed with the run''s other parts; without it, a second record of the same kind for a run is the same work, counted once')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;finops;cost;help' {
            [CompletionResult]::new('providers', 'providers', [CompletionResultType]::ParameterValue, 'List the cost providers (rate cards), each with its kind and status')
            [CompletionResult]::new('estimate', 'estimate', [CompletionResultType]::ParameterValue, 'Estimate the cost (USD) of GPU and CPU hours')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a cost provider: formulas, coefficients with defaults, metadata')
            [CompletionResult]::new('record', 'record', [CompletionResultType]::ParameterValue, 'Estimate as `estimate` does and store the result as a record of MODEL')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;finops;cost;help;providers' {
            break
        }
        'exa;finops;cost;help;estimate' {
            break
        }
        'exa;finops;cost;help;show' {
            break
        }
        'exa;finops;cost;help;record' {
            break
        }
        'exa;finops;cost;help;help' {
            break
        }
        'exa;finops;measure' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Seconds between readings [default: 5; env: EXAMLOPS_GPU_INTERVAL, GENAI_GPU_COLLECTION_INTERVAL]')
            [CompletionResult]::new('--gpu-source', '--gpu-source', [CompletionResultType]::ParameterName, 'Where readings come from [default: auto; env: EXAMLOPS_GPU_SOURCE]')
            [CompletionResult]::new('--cpu-source', '--cpu-source', [CompletionResultType]::ParameterName, 'Where CPU and memory energy is read: powercap (RAPL in sysfs), perf (the power PMU), or none [default: auto; env: EXAMLOPS_CPU_SOURCE; config: cpu.source]')
            [CompletionResult]::new('--node-source', '--node-source', [CompletionResultType]::ParameterName, 'Where the whole node''s power is read: hwmon (the ACPI power meter), ipmi (the BMC through ipmitool), redfish (the BMC''s chassis at EXAMLOPS_REDFISH_URL), or none [default: auto; env: EXAMLOPS_NODE_SOURCE; config: node.source]')
            [CompletionResult]::new('--semconv', '--semconv', [CompletionResultType]::ParameterName, 'The names of exported metrics: the spec''s gen_ai.* or OpenTelemetry''s hardware conventions (hw.*) [default: genai; env: EXAMLOPS_SEMCONV]')
            [CompletionResult]::new('--power-cost-per-kwh', '--power-cost-per-kwh', [CompletionResultType]::ParameterName, 'Electricity price in USD per kWh, for the cost of the measured energy; none without it [env: EXAMLOPS_POWER_COST_PER_KWH, GENAI_POWER_COST_PER_KWH]')
            [CompletionResult]::new('--carbon-intensity', '--carbon-intensity', [CompletionResultType]::ParameterName, 'gCO2e per kWh for the exported gen_ai.co2.emissions [default: 475, a world average; env: EXAMLOPS_CARBON_INTENSITY, GENAI_CARBON_INTENSITY]')
            [CompletionResult]::new('--gpus', '--gpus', [CompletionResultType]::ParameterName, 'The job''s GPUs: indices, GPU- or MIG- UUIDs, comma-separated, or none [default: from CUDA_VISIBLE_DEVICES and the like, else all]')
            [CompletionResult]::new('--duration', '--duration', [CompletionResultType]::ParameterName, 'Without a command, measure the node this long (90s, 10m, 1.5h); Ctrl-C ends it early')
            [CompletionResult]::new('--trace', '--trace', [CompletionResultType]::ParameterName, 'Write every sample to FILE as JSON lines, for plotting and re-analysis')
            [CompletionResult]::new('--pid', '--pid', [CompletionResultType]::ParameterName, 'Without a command: the run''s CPU time is this process''s (and its waited-for children''s) user + system time over the run; the Python API passes its own. The run ends when the process does (a pid given to a later process is not it)')
            [CompletionResult]::new('--cpus', '--cpus', [CompletionResultType]::ParameterName, 'Without a command: the job holds N CPUs here, and its CPU-hours are N times the run''s length (core-hours, as a scheduler bills them; the Slurm prolog passes the job''s)')
            [CompletionResult]::new('--slurm-job', '--slurm-job', [CompletionResultType]::ParameterName, 'The Slurm job whose processes are the job''s on a shared GPU: those in its control group (`…/job_<ID>/…` in /proc/<pid>/cgroup), as the prolog measures a job it did not start')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Write the report to FILE instead of stderr (with a command) or stdout (without)')
            [CompletionResult]::new('--serve', '--serve', [CompletionResultType]::ParameterName, 'Without a command: answer windows of the run on this Unix socket (private to you) for every process and rank of the job on this node, as the Python API''s `Monitor` asks. The run ends when a client ends it (recording it, when asked), on Ctrl-C, or once no client has been connected for --linger')
            [CompletionResult]::new('--linger', '--linger', [CompletionResultType]::ParameterName, 'With --serve: end the run once no client has been connected this long (from the start until the first comes) [default: 10s]')
            [CompletionResult]::new('--idle-share', '--idle-share', [CompletionResultType]::ParameterName, 'On a GPU other processes share: where the device''s idle energy goes. The job always gets its part of the busy energy by its SM activity (NVML); `none` charges it no idle, `even` an equal part among the processes seen, `by-activity` a part by its activity over the run')
            [CompletionResult]::new('--node-policy', '--node-policy', [CompletionResultType]::ParameterName, 'With the node''s meter: how the node''s energy beyond the counters (fans, disks, NICs, the power supply''s loss) becomes the job''s. `measured` by its share of the node''s measured energy; `allocation` by what it holds: with every GPU of the node read, all of the rest; with none, the CPUs it holds (--cpus) of the node''s')
            [CompletionResult]::new('--carbon-provider', '--carbon-provider', [CompletionResultType]::ParameterName, 'The carbon provider for the measured energy (else env, config, default)')
            [CompletionResult]::new('--cost-provider', '--cost-provider', [CompletionResultType]::ParameterName, 'The cost provider for the measured hours (else env, config, default)')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The grid region whose intensity prices the measured energy: a country (FR), US state (US-VA), NERC or cloud region (aws:us-east-1) [env: EXAMLOPS_GRID_REGION; config: finops.carbon.grid.region]')
            [CompletionResult]::new('--record', '--record', [CompletionResultType]::ParameterName, 'Store the measured run''s carbon and cost as records of MODEL')
            [CompletionResult]::new('--run-id', '--run-id', [CompletionResultType]::ParameterName, 'The run id for --record')
            [CompletionResult]::new('--mlflow-experiment', '--mlflow-experiment', [CompletionResultType]::ParameterName, 'Create an MLflow run in this experiment (made when missing), named after the command, and record under its id')
            [CompletionResult]::new('--tokens', '--tokens', [CompletionResultType]::ParameterName, 'Output tokens the work generated, kept on the record for `report --per token`')
            [CompletionResult]::new('--prompt-tokens', '--prompt-tokens', [CompletionResultType]::ParameterName, 'Prompt (input) tokens the work read, kept beside --tokens')
            [CompletionResult]::new('--requests', '--requests', [CompletionResultType]::ParameterName, 'Requests the work served, kept on the record for `report --per request`')
            [CompletionResult]::new('--unit', '--unit', [CompletionResultType]::ParameterName, 'Work in a unit of your naming, NAME=N (images=5000), kept for `report --per NAME`')
            [CompletionResult]::new('--tokens-from', '--tokens-from', [CompletionResultType]::ParameterName, 'Read an inference server''s Prometheus metrics (vLLM, TGI, SGLang) at the start and end: the tokens and requests it served meanwhile')
            [CompletionResult]::new('--tokens-model', '--tokens-model', [CompletionResultType]::ParameterName, 'With --tokens-from: only this model''s series (the server''s model_name label)')
            [CompletionResult]::new('--job-user', '--job-user', [CompletionResultType]::ParameterName, 'Who ran the work, kept on the records for `report --by user` (a scheduler''s prolog passes the job''s user)')
            [CompletionResult]::new('--job-account', '--job-account', [CompletionResultType]::ParameterName, 'The account (bank) the work is charged to, kept on the records for `report --by account`')
            [CompletionResult]::new('--job-partition', '--job-partition', [CompletionResultType]::ParameterName, 'The partition (queue) it ran in, kept on the records for `report --by partition`')
            [CompletionResult]::new('--push-gateway', '--push-gateway', [CompletionResultType]::ParameterName, 'Push the run''s energy, cost and CO2 to this Prometheus Pushgateway at its end (a failed push is a warning)')
            [CompletionResult]::new('--otlp', '--otlp', [CompletionResultType]::ParameterName, 'Send the run''s energy, cost and CO2 over OTLP/HTTP at its end [URL, else OTEL_EXPORTER_OTLP_METRICS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]')
            [CompletionResult]::new('--co2', '--co2', [CompletionResultType]::ParameterName, 'Export the CO2 metrics (energy times the intensity) [env: GENAI_ENABLE_CO2_TRACKING=true]')
            [CompletionResult]::new('--model-is-job-name', '--model-is-job-name', [CompletionResultType]::ParameterName, '--record''s MODEL is a scheduler''s job name as given: made a model name as `exa import slurm` makes one (control characters dropped, 200 characters at most, `(no name)` when empty), so both name the job alike')
            [CompletionResult]::new('--part', '--part', [CompletionResultType]::ParameterName, 'The measured run is one part of the run''s work (a node of a multi-node job), summed with its other parts')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;finops;help' {
            [CompletionResult]::new('carbon', 'carbon', [CompletionResultType]::ParameterValue, 'Energy and carbon: kWh and gCO2e')
            [CompletionResult]::new('cost', 'cost', [CompletionResultType]::ParameterValue, 'Money: USD from a rate card')
            [CompletionResult]::new('measure', 'measure', [CompletionResultType]::ParameterValue, 'Run a command (or watch the node) and measure its GPU energy, carbon and cost')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;finops;help;carbon' {
            [CompletionResult]::new('providers', 'providers', [CompletionResultType]::ParameterValue, 'List the carbon providers, each with its kind, uncertainty and status')
            [CompletionResult]::new('estimate', 'estimate', [CompletionResultType]::ParameterValue, 'Estimate energy (kWh) and carbon (gCO2e) of GPU and CPU hours')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a carbon provider: formulas, coefficients with defaults, metadata')
            [CompletionResult]::new('record', 'record', [CompletionResultType]::ParameterValue, 'Estimate as `estimate` does and store the result as a record of MODEL')
            [CompletionResult]::new('regions', 'regions', [CompletionResultType]::ParameterValue, 'List the grid regions exa knows offline, each with its intensity, year and source')
            [CompletionResult]::new('hardware', 'hardware', [CompletionResultType]::ParameterValue, 'List the GPU and CPU models exa knows the power of, each with its source (what hardware-aware prices by)')
            [CompletionResult]::new('when', 'when', [CompletionResultType]::ParameterValue, 'The start, within a window, that gives a job of a known length the least carbon by the grid''s forecast')
            break
        }
        'exa;finops;help;carbon;providers' {
            break
        }
        'exa;finops;help;carbon;estimate' {
            break
        }
        'exa;finops;help;carbon;show' {
            break
        }
        'exa;finops;help;carbon;record' {
            break
        }
        'exa;finops;help;carbon;regions' {
            break
        }
        'exa;finops;help;carbon;hardware' {
            break
        }
        'exa;finops;help;carbon;when' {
            break
        }
        'exa;finops;help;cost' {
            [CompletionResult]::new('providers', 'providers', [CompletionResultType]::ParameterValue, 'List the cost providers (rate cards), each with its kind and status')
            [CompletionResult]::new('estimate', 'estimate', [CompletionResultType]::ParameterValue, 'Estimate the cost (USD) of GPU and CPU hours')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a cost provider: formulas, coefficients with defaults, metadata')
            [CompletionResult]::new('record', 'record', [CompletionResultType]::ParameterValue, 'Estimate as `estimate` does and store the result as a record of MODEL')
            break
        }
        'exa;finops;help;cost;providers' {
            break
        }
        'exa;finops;help;cost;estimate' {
            break
        }
        'exa;finops;help;cost;show' {
            break
        }
        'exa;finops;help;cost;record' {
            break
        }
        'exa;finops;help;measure' {
            break
        }
        'exa;finops;help;help' {
            break
        }
        'exa;config' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print where the config file is, and whether it exists')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the settings in effect, each with where it came from')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a commented starting config file')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;config;path' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;config;show' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;config;init' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace an existing file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;config;help' {
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print where the config file is, and whether it exists')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the settings in effect, each with where it came from')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a commented starting config file')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;config;help;path' {
            break
        }
        'exa;config;help;show' {
            break
        }
        'exa;config;help;init' {
            break
        }
        'exa;config;help;help' {
            break
        }
        'exa;gpu' {
            [CompletionResult]::new('--gpu-source', '--gpu-source', [CompletionResultType]::ParameterName, 'Where readings come from [default: auto; env: EXAMLOPS_GPU_SOURCE]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Every column, however narrow the terminal (a narrow one shows the main ones; JSON has all)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the GPU, energy and CO2 metrics for a Prometheus scrape, until SIGTERM or Ctrl-C')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Push the GPU, energy and CO2 metrics over OTLP/HTTP every --interval seconds, until SIGTERM or Ctrl-C')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;gpu;serve' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'The address to listen on; the metrics are at /metrics')
            [CompletionResult]::new('--tokens-from', '--tokens-from', [CompletionResultType]::ParameterName, 'Read an inference server''s Prometheus metrics (vLLM, TGI, SGLang) every interval and export the GPUs'' energy per output token')
            [CompletionResult]::new('--tokens-model', '--tokens-model', [CompletionResultType]::ParameterName, 'With --tokens-from: only this model''s series (the server''s model_name label)')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Seconds between readings [default: 5; env: EXAMLOPS_GPU_INTERVAL, GENAI_GPU_COLLECTION_INTERVAL]')
            [CompletionResult]::new('--gpu-source', '--gpu-source', [CompletionResultType]::ParameterName, 'Where readings come from [default: auto; env: EXAMLOPS_GPU_SOURCE]')
            [CompletionResult]::new('--cpu-source', '--cpu-source', [CompletionResultType]::ParameterName, 'Where CPU and memory energy is read: powercap (RAPL in sysfs), perf (the power PMU), or none [default: auto; env: EXAMLOPS_CPU_SOURCE; config: cpu.source]')
            [CompletionResult]::new('--node-source', '--node-source', [CompletionResultType]::ParameterName, 'Where the whole node''s power is read: hwmon (the ACPI power meter), ipmi (the BMC through ipmitool), redfish (the BMC''s chassis at EXAMLOPS_REDFISH_URL), or none [default: auto; env: EXAMLOPS_NODE_SOURCE; config: node.source]')
            [CompletionResult]::new('--semconv', '--semconv', [CompletionResultType]::ParameterName, 'The names of exported metrics: the spec''s gen_ai.* or OpenTelemetry''s hardware conventions (hw.*) [default: genai; env: EXAMLOPS_SEMCONV]')
            [CompletionResult]::new('--power-cost-per-kwh', '--power-cost-per-kwh', [CompletionResultType]::ParameterName, 'Electricity price in USD per kWh, for the cost of the measured energy; none without it [env: EXAMLOPS_POWER_COST_PER_KWH, GENAI_POWER_COST_PER_KWH]')
            [CompletionResult]::new('--carbon-intensity', '--carbon-intensity', [CompletionResultType]::ParameterName, 'gCO2e per kWh for the exported gen_ai.co2.emissions [default: 475, a world average; env: EXAMLOPS_CARBON_INTENSITY, GENAI_CARBON_INTENSITY]')
            [CompletionResult]::new('--pod-idle', '--pod-idle', [CompletionResultType]::ParameterName, 'Where the node''s idle energy goes: none (its own series), even (equally to the pods), weighted (by their busy energy) [default: none; env: EXAMLOPS_POD_IDLE]')
            [CompletionResult]::new('--pod-label', '--pod-label', [CompletionResultType]::ParameterName, 'A pod label exported on its exa_pod_info series (repeat, or comma-separate) [env: EXAMLOPS_POD_LABELS]')
            [CompletionResult]::new('--pod-annotation', '--pod-annotation', [CompletionResultType]::ParameterName, 'A pod annotation exported on its exa_pod_info series (repeat, or comma-separate) [env: EXAMLOPS_POD_ANNOTATIONS]')
            [CompletionResult]::new('--pod-resources', '--pod-resources', [CompletionResultType]::ParameterName, 'The kubelet''s PodResources socket, which says who holds each GPU; `none` not to ask [default: /var/lib/kubelet/pod-resources/kubelet.sock; env: EXAMLOPS_POD_RESOURCES]')
            [CompletionResult]::new('--kube-api', '--kube-api', [CompletionResultType]::ParameterName, 'The Kubernetes API, which names the pods; `none` not to ask [default: in a pod, the cluster''s; env: EXAMLOPS_KUBE_API]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--budgets', '--budgets', [CompletionResultType]::ParameterName, 'Also serve the ledger''s budgets (exa budget) as gauges, read every minute: exa_budget_limit, _used, _forecast. One exporter per ledger is enough')
            [CompletionResult]::new('--co2', '--co2', [CompletionResultType]::ParameterName, 'Export the CO2 metrics (energy times the intensity) [env: GENAI_ENABLE_CO2_TRACKING=true]')
            [CompletionResult]::new('--pods', '--pods', [CompletionResultType]::ParameterName, 'Charge the node''s GPU, CPU and DRAM energy to its pods, and export it per pod [env: EXAMLOPS_PODS]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;gpu;export' {
            [CompletionResult]::new('--otlp', '--otlp', [CompletionResultType]::ParameterName, 'The OTLP/HTTP endpoint: a base URL (/v1/metrics is added) [env: OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, OTEL_EXPORTER_OTLP_ENDPOINT]')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Seconds between readings [default: 5; env: EXAMLOPS_GPU_INTERVAL, GENAI_GPU_COLLECTION_INTERVAL]')
            [CompletionResult]::new('--gpu-source', '--gpu-source', [CompletionResultType]::ParameterName, 'Where readings come from [default: auto; env: EXAMLOPS_GPU_SOURCE]')
            [CompletionResult]::new('--cpu-source', '--cpu-source', [CompletionResultType]::ParameterName, 'Where CPU and memory energy is read: powercap (RAPL in sysfs), perf (the power PMU), or none [default: auto; env: EXAMLOPS_CPU_SOURCE; config: cpu.source]')
            [CompletionResult]::new('--node-source', '--node-source', [CompletionResultType]::ParameterName, 'Where the whole node''s power is read: hwmon (the ACPI power meter), ipmi (the BMC through ipmitool), redfish (the BMC''s chassis at EXAMLOPS_REDFISH_URL), or none [default: auto; env: EXAMLOPS_NODE_SOURCE; config: node.source]')
            [CompletionResult]::new('--semconv', '--semconv', [CompletionResultType]::ParameterName, 'The names of exported metrics: the spec''s gen_ai.* or OpenTelemetry''s hardware conventions (hw.*) [default: genai; env: EXAMLOPS_SEMCONV]')
            [CompletionResult]::new('--power-cost-per-kwh', '--power-cost-per-kwh', [CompletionResultType]::ParameterName, 'Electricity price in USD per kWh, for the cost of the measured energy; none without it [env: EXAMLOPS_POWER_COST_PER_KWH, GENAI_POWER_COST_PER_KWH]')
            [CompletionResult]::new('--carbon-intensity', '--carbon-intensity', [CompletionResultType]::ParameterName, 'gCO2e per kWh for the exported gen_ai.co2.emissions [default: 475, a world average; env: EXAMLOPS_CARBON_INTENSITY, GENAI_CARBON_INTENSITY]')
            [CompletionResult]::new('--pod-idle', '--pod-idle', [CompletionResultType]::ParameterName, 'Where the node''s idle energy goes: none (its own series), even (equally to the pods), weighted (by their busy energy) [default: none; env: EXAMLOPS_POD_IDLE]')
            [CompletionResult]::new('--pod-label', '--pod-label', [CompletionResultType]::ParameterName, 'A pod label exported on its exa_pod_info series (repeat, or comma-separate) [env: EXAMLOPS_POD_LABELS]')
            [CompletionResult]::new('--pod-annotation', '--pod-annotation', [CompletionResultType]::ParameterName, 'A pod annotation exported on its exa_pod_info series (repeat, or comma-separate) [env: EXAMLOPS_POD_ANNOTATIONS]')
            [CompletionResult]::new('--pod-resources', '--pod-resources', [CompletionResultType]::ParameterName, 'The kubelet''s PodResources socket, which says who holds each GPU; `none` not to ask [default: /var/lib/kubelet/pod-resources/kubelet.sock; env: EXAMLOPS_POD_RESOURCES]')
            [CompletionResult]::new('--kube-api', '--kube-api', [CompletionResultType]::ParameterName, 'The Kubernetes API, which names the pods; `none` not to ask [default: in a pod, the cluster''s; env: EXAMLOPS_KUBE_API]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--co2', '--co2', [CompletionResultType]::ParameterName, 'Export the CO2 metrics (energy times the intensity) [env: GENAI_ENABLE_CO2_TRACKING=true]')
            [CompletionResult]::new('--pods', '--pods', [CompletionResultType]::ParameterName, 'Charge the node''s GPU, CPU and DRAM energy to its pods, and export it per pod [env: EXAMLOPS_PODS]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;gpu;help' {
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the GPU, energy and CO2 metrics for a Prometheus scrape, until SIGTERM or Ctrl-C')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Push the GPU, energy and CO2 metrics over OTLP/HTTP every --interval seconds, until SIGTERM or Ctrl-C')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;gpu;help;serve' {
            break
        }
        'exa;gpu;help;export' {
            break
        }
        'exa;gpu;help;help' {
            break
        }
        'exa;report' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'Group by model, run, provider, day (UTC), user, account, partition, namespace, or a pod''s tag: label:KEY or annotation:KEY (records without one are "(none)")')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Records from this UTC date or time on (2026-11-01, 2026-11-01T12:00:00Z)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Records before this UTC time; a date alone includes that whole day')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'totals (grouped, the default) or focus: FinOps FOCUS 1.2 cost rows, one per run and resource')
            [CompletionResult]::new('--per', '--per', [CompletionResultType]::ParameterName, 'Figures per unit of work, with SCI''s terms (E, I, M, R): token, request, run, or a unit of your naming (--unit images=N); only runs that counted it')
            [CompletionResult]::new('--html', '--html', [CompletionResultType]::ParameterName, 'Also write a self-contained HTML page with charts of energy, CO2e and cost to FILE')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;budget' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Keep a budget, or new terms for one of that name: a scope''s limits a period')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'The budgets in effect, each with who set it and when; --history lists every change')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'End a budget. Its changes stay in the ledger (list --history)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Each budget''s use this period: used, left and percent per unit, and when it runs out at the period''s pace and at the last 7 days''')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Whether the budgets of a scope (or one named) hold, with the work about to start added: exit 0 within, 1 past a warn line, 3 over; one line says which unit and by how much')
            [CompletionResult]::new('notify', 'notify', [CompletionResultType]::ParameterValue, 'Send each line a budget crossed this period (its warn lines and 100 %) to the webhook and the Alertmanager the config names, once: an event that could not be sent is kept and sent by the next run (exit 1 until then)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;budget;set' {
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Whose work: all, account=A, user=U, model=M, namespace=N, label:KEY=V or annotation:KEY=V')
            [CompletionResult]::new('--period', '--period', [CompletionResultType]::ParameterName, 'The period each allowance covers, in UTC (a week from Monday)')
            [CompletionResult]::new('--kwh', '--kwh', [CompletionResultType]::ParameterName, 'The most energy a period, kWh')
            [CompletionResult]::new('--kgco2e', '--kgco2e', [CompletionResultType]::ParameterName, 'The most operational CO2e a period, kg')
            [CompletionResult]::new('--usd', '--usd', [CompletionResultType]::ParameterName, 'The most cost a period, USD')
            [CompletionResult]::new('--warn', '--warn', [CompletionResultType]::ParameterName, 'The lines, percent of a limit, past which it warns (status, check''s exit 1)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;budget;list' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--history', '--history', [CompletionResultType]::ParameterName, 'Every change, oldest first: set, replaced, removed, by whom and when')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;budget;rm' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;budget;status' {
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'As of this time (ISO 8601 UTC, or a date: its midnight): the records before it, in the period holding it [default: now]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;budget;check' {
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'The budgets of this scope (repeat for a job''s account and user): as `set --scope` names them')
            [CompletionResult]::new('--add-gpu-hours', '--add-gpu-hours', [CompletionResultType]::ParameterName, 'GPU-hours about to start, priced by the carbon and cost providers in effect and added')
            [CompletionResult]::new('--add-cpu-hours', '--add-cpu-hours', [CompletionResultType]::ParameterName, 'CPU-hours about to start, added as --add-gpu-hours is')
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'As of this time (ISO 8601 UTC, or a date: its midnight): the records before it [default: now]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--advise-only', '--advise-only', [CompletionResultType]::ParameterName, 'Say the verdict, never fail on it: exit 0 within, past a line or over')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;budget;notify' {
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'As of this time (ISO 8601 UTC, or a date: its midnight) [default: now]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;budget;help' {
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Keep a budget, or new terms for one of that name: a scope''s limits a period')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'The budgets in effect, each with who set it and when; --history lists every change')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'End a budget. Its changes stay in the ledger (list --history)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Each budget''s use this period: used, left and percent per unit, and when it runs out at the period''s pace and at the last 7 days''')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Whether the budgets of a scope (or one named) hold, with the work about to start added: exit 0 within, 1 past a warn line, 3 over; one line says which unit and by how much')
            [CompletionResult]::new('notify', 'notify', [CompletionResultType]::ParameterValue, 'Send each line a budget crossed this period (its warn lines and 100 %) to the webhook and the Alertmanager the config names, once: an event that could not be sent is kept and sent by the next run (exit 1 until then)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;budget;help;set' {
            break
        }
        'exa;budget;help;list' {
            break
        }
        'exa;budget;help;rm' {
            break
        }
        'exa;budget;help;status' {
            break
        }
        'exa;budget;help;check' {
            break
        }
        'exa;budget;help;notify' {
            break
        }
        'exa;budget;help;help' {
            break
        }
        'exa;db' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Bring the database''s schema to this exa''s version, creating it when missing')
            [CompletionResult]::new('copy', 'copy', [CompletionResultType]::ParameterValue, 'Copy every record from one store into another, SQLite or PostgreSQL either way')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;db;migrate' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;db;copy' {
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'The store to read: a SQLite file or a postgres:// URL')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The store to write: a SQLite file or a postgres:// URL (made and migrated when missing)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;db;help' {
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Bring the database''s schema to this exa''s version, creating it when missing')
            [CompletionResult]::new('copy', 'copy', [CompletionResultType]::ParameterValue, 'Copy every record from one store into another, SQLite or PostgreSQL either way')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;db;help;migrate' {
            break
        }
        'exa;db;help;copy' {
            break
        }
        'exa;db;help;help' {
            break
        }
        'exa;sync' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('mlflow', 'mlflow', [CompletionResultType]::ParameterValue, 'Log to MLflow every record whose log is waiting in the outbox (MLflow was down, slow or refused)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;sync;mlflow' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;sync;help' {
            [CompletionResult]::new('mlflow', 'mlflow', [CompletionResultType]::ParameterValue, 'Log to MLflow every record whose log is waiting in the outbox (MLflow was down, slow or refused)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;sync;help;mlflow' {
            break
        }
        'exa;sync;help;help' {
            break
        }
        'exa;import' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('slurm', 'slurm', [CompletionResultType]::ParameterValue, 'Finished Slurm jobs, from `sacct` (run here) or a saved `sacct -P` or `sacct --json` output')
            [CompletionResult]::new('flux', 'flux', [CompletionResultType]::ParameterValue, 'Finished Flux jobs, from `flux jobs` and each job''s R (run here) or a saved file')
            [CompletionResult]::new('kubernetes', 'kubernetes', [CompletionResultType]::ParameterValue, 'Pods'' measured energy and time, day by day, from the Prometheus that scrapes `exa gpu serve --pods`')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;import;slurm' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Jobs that ended at or after WHEN: a UTC date or time (2026-11-01, 2026-11-01T12:00:00Z) or an age (-7d, -12h, -30m). Default: where the last import of this cluster stopped')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Jobs that ended before WHEN (same forms as --since); a date alone includes that whole day')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Read the jobs from FILE (`-` for standard input) instead of asking the scheduler')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The cluster''s name, for run ids and the watermark [default: the jobs'' own (Slurm), or this host''s name (Flux)]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model every imported job is recorded under')
            [CompletionResult]::new('--model-from', '--model-from', [CompletionResultType]::ParameterName, 'Which field of a job names its model')
            [CompletionResult]::new('--carbon-provider', '--carbon-provider', [CompletionResultType]::ParameterName, 'The carbon provider that prices the jobs (else env, config, default)')
            [CompletionResult]::new('--cost-provider', '--cost-provider', [CompletionResultType]::ParameterName, 'The cost provider that prices the jobs (else env, config, default)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be recorded, job by job (`jobs` in JSON), and write nothing')
            [CompletionResult]::new('--skip-bad', '--skip-bad', [CompletionResultType]::ParameterName, 'Skip malformed lines (each named in the answer) instead of importing nothing from the file')
            [CompletionResult]::new('--grid-history', '--grid-history', [CompletionResultType]::ParameterName, 'Price each job at the grid''s intensity over its own start to end, from the history endpoint (EXAMLOPS_GRID_HISTORY_URL): one request per zone and UTC day, cached, not one per job')
            [CompletionResult]::new('--exclusive', '--exclusive', [CompletionResultType]::ParameterName, 'The jobs held whole nodes (the partition is OverSubscribe=EXCLUSIVE, or --exclusive everywhere), so Slurm''s node energy (ConsumedEnergyRaw) is the job''s own and is kept; otherwise energy is not measured')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;import;flux' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Jobs that ended at or after WHEN: a UTC date or time (2026-11-01, 2026-11-01T12:00:00Z) or an age (-7d, -12h, -30m). Default: where the last import of this cluster stopped')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Jobs that ended before WHEN (same forms as --since); a date alone includes that whole day')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Read the jobs from FILE (`-` for standard input) instead of asking the scheduler')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The cluster''s name, for run ids and the watermark [default: the jobs'' own (Slurm), or this host''s name (Flux)]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model every imported job is recorded under')
            [CompletionResult]::new('--model-from', '--model-from', [CompletionResultType]::ParameterName, 'Which field of a job names its model')
            [CompletionResult]::new('--carbon-provider', '--carbon-provider', [CompletionResultType]::ParameterName, 'The carbon provider that prices the jobs (else env, config, default)')
            [CompletionResult]::new('--cost-provider', '--cost-provider', [CompletionResultType]::ParameterName, 'The cost provider that prices the jobs (else env, config, default)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be recorded, job by job (`jobs` in JSON), and write nothing')
            [CompletionResult]::new('--skip-bad', '--skip-bad', [CompletionResultType]::ParameterName, 'Skip malformed lines (each named in the answer) instead of importing nothing from the file')
            [CompletionResult]::new('--grid-history', '--grid-history', [CompletionResultType]::ParameterName, 'Price each job at the grid''s intensity over its own start to end, from the history endpoint (EXAMLOPS_GRID_HISTORY_URL): one request per zone and UTC day, cached, not one per job')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;import;kubernetes' {
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The cluster''s name, in run ids and keys; one configured under clusters: in finops.yaml also gives the Prometheus to read, its token and its labels')
            [CompletionResult]::new('--prometheus', '--prometheus', [CompletionResultType]::ParameterName, 'The Prometheus that scrapes the exporters: its HTTP API''s base URL [default: the configured cluster''s]')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'The first UTC day to import (2026-11-01, or an age: -7d) [default: the day after this cluster''s last import, else yesterday]')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'The last day to import, whole (a date), or the day before WHEN [default: yesterday; today is never imported]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model every pod''s records are kept under [default: its namespace]')
            [CompletionResult]::new('--carbon-provider', '--carbon-provider', [CompletionResultType]::ParameterName, 'The carbon provider that prices the pods (else env, config, default)')
            [CompletionResult]::new('--cost-provider', '--cost-provider', [CompletionResultType]::ParameterName, 'The cost provider that prices the pods (else env, config, default)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be recorded, pod by pod and day by day (`pods` in JSON), and write nothing')
            [CompletionResult]::new('--grid-history', '--grid-history', [CompletionResultType]::ParameterName, 'Price each pod-day''s carbon at the grid''s history, each hour weighed by the pod''s energy in it (EXAMLOPS_GRID_HISTORY_URL)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;import;help' {
            [CompletionResult]::new('slurm', 'slurm', [CompletionResultType]::ParameterValue, 'Finished Slurm jobs, from `sacct` (run here) or a saved `sacct -P` or `sacct --json` output')
            [CompletionResult]::new('flux', 'flux', [CompletionResultType]::ParameterValue, 'Finished Flux jobs, from `flux jobs` and each job''s R (run here) or a saved file')
            [CompletionResult]::new('kubernetes', 'kubernetes', [CompletionResultType]::ParameterValue, 'Pods'' measured energy and time, day by day, from the Prometheus that scrapes `exa gpu serve --pods`')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;import;help;slurm' {
            break
        }
        'exa;import;help;flux' {
            break
        }
        'exa;import;help;kubernetes' {
            break
        }
        'exa;import;help;help' {
            break
        }
        'exa;mcp' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Serve streamable HTTP on ADDR (host:port) at /mcp instead of stdio; loopback unless you name another address')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;metrics' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('clusters', 'clusters', [CompletionResultType]::ParameterValue, 'The clusters configured (clusters: in finops.yaml), with vendor and model')
            [CompletionResult]::new('node', 'node', [CompletionResultType]::ParameterValue, 'Every reading of one node''s GPUs and host over the window')
            [CompletionResult]::new('workload', 'workload', [CompletionResultType]::ParameterValue, 'Where a workload ran over the window, and each node''s readings')
            [CompletionResult]::new('flags', 'flags', [CompletionResultType]::ParameterValue, 'Which conditions fired on a node or a workload, with the evidence')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'One PromQL expression of your own (at most 4000 characters), over the window or at its end, on one cluster or, without --cluster, on every cluster configured (the organization)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;metrics;clusters' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;metrics;node' {
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The cluster to read, as named under clusters: in finops.yaml (`exa metrics clusters` lists them)')
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'The node, as the cluster''s node label names it')
            [CompletionResult]::new('--range', '--range', [CompletionResultType]::ParameterName, 'A window ending now: 1h, 6h, 24h or 7d [default: 6h]')
            [CompletionResult]::new('--start', '--start', [CompletionResultType]::ParameterName, 'An explicit window start (ISO 8601 UTC); --range is then ignored')
            [CompletionResult]::new('--end', '--end', [CompletionResultType]::ParameterName, 'The window end (ISO 8601 UTC) [default: now]')
            [CompletionResult]::new('--points', '--points', [CompletionResultType]::ParameterName, 'Points per series, at most 96 [default: 48]')
            [CompletionResult]::new('--detail', '--detail', [CompletionResultType]::ParameterName, 'summary (mean, min, max) or series [default: series]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;metrics;workload' {
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The cluster to read, as named under clusters: in finops.yaml (`exa metrics clusters` lists them)')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'The workload''s kind: Job, JobSet, MPIJob, Deployment, StatefulSet or Pod')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The workload''s name')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The workload''s namespace')
            [CompletionResult]::new('--range', '--range', [CompletionResultType]::ParameterName, 'A window ending now: 1h, 6h, 24h or 7d [default: 6h]')
            [CompletionResult]::new('--start', '--start', [CompletionResultType]::ParameterName, 'An explicit window start (ISO 8601 UTC); --range is then ignored')
            [CompletionResult]::new('--end', '--end', [CompletionResultType]::ParameterName, 'The window end (ISO 8601 UTC) [default: now]')
            [CompletionResult]::new('--points', '--points', [CompletionResultType]::ParameterName, 'Points per series, at most 96 [default: 48]')
            [CompletionResult]::new('--detail', '--detail', [CompletionResultType]::ParameterName, 'summary (mean, min, max) or series [default: summary]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;metrics;flags' {
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The cluster to read, as named under clusters: in finops.yaml (`exa metrics clusters` lists them)')
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'A node (or give --kind and --name)')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'The workload''s kind: Job, JobSet, MPIJob, Deployment, StatefulSet or Pod (with --name)')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The workload''s name (with --kind)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The workload''s namespace')
            [CompletionResult]::new('--range', '--range', [CompletionResultType]::ParameterName, 'A window ending now: 1h, 6h, 24h or 7d [default: 6h]')
            [CompletionResult]::new('--start', '--start', [CompletionResultType]::ParameterName, 'An explicit window start (ISO 8601 UTC); --range is then ignored')
            [CompletionResult]::new('--end', '--end', [CompletionResultType]::ParameterName, 'The window end (ISO 8601 UTC) [default: now]')
            [CompletionResult]::new('--points', '--points', [CompletionResultType]::ParameterName, 'Points per series, at most 96 [default: 48]')
            [CompletionResult]::new('--detail', '--detail', [CompletionResultType]::ParameterName, 'summary, the only detail flags have: a flag carries its evidence (read the node with --detail series for the curves)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;metrics;query' {
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The cluster to read, as named under clusters: in finops.yaml; every cluster when unset')
            [CompletionResult]::new('--range', '--range', [CompletionResultType]::ParameterName, 'A window ending now: 1h, 6h, 24h or 7d [default: 6h]')
            [CompletionResult]::new('--start', '--start', [CompletionResultType]::ParameterName, 'An explicit window start (ISO 8601 UTC); --range is then ignored')
            [CompletionResult]::new('--end', '--end', [CompletionResultType]::ParameterName, 'The window end (ISO 8601 UTC) [default: now]')
            [CompletionResult]::new('--points', '--points', [CompletionResultType]::ParameterName, 'Points per series, at most 96 [default: 48]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--instant', '--instant', [CompletionResultType]::ParameterName, 'One value per series at the window''s end, instead of a series over it')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;metrics;help' {
            [CompletionResult]::new('clusters', 'clusters', [CompletionResultType]::ParameterValue, 'The clusters configured (clusters: in finops.yaml), with vendor and model')
            [CompletionResult]::new('node', 'node', [CompletionResultType]::ParameterValue, 'Every reading of one node''s GPUs and host over the window')
            [CompletionResult]::new('workload', 'workload', [CompletionResultType]::ParameterValue, 'Where a workload ran over the window, and each node''s readings')
            [CompletionResult]::new('flags', 'flags', [CompletionResultType]::ParameterValue, 'Which conditions fired on a node or a workload, with the evidence')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'One PromQL expression of your own (at most 4000 characters), over the window or at its end, on one cluster or, without --cluster, on every cluster configured (the organization)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;metrics;help;clusters' {
            break
        }
        'exa;metrics;help;node' {
            break
        }
        'exa;metrics;help;workload' {
            break
        }
        'exa;metrics;help;flags' {
            break
        }
        'exa;metrics;help;query' {
            break
        }
        'exa;metrics;help;help' {
            break
        }
        'exa;validate' {
            [CompletionResult]::new('--trace', '--trace', [CompletionResultType]::ParameterName, 'Exa''s trace of the run (`measure --trace FILE`), JSON lines')
            [CompletionResult]::new('--reference', '--reference', [CompletionResultType]::ParameterName, 'The reference''s series, CSV with a header; or redfish, ipmi or hwmon: the node meter''s readings the trace holds (measure --node-source with --trace), the whole node against the GPUs')
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'The reference''s clock minus exa''s, seconds, when known [default: found within --max-offset]')
            [CompletionResult]::new('--max-offset', '--max-offset', [CompletionResultType]::ParameterName, 'How far apart the clocks may be, seconds, when the offset is found')
            [CompletionResult]::new('--window', '--window', [CompletionResultType]::ParameterName, 'The windows'' lengths, seconds, comma-separated')
            [CompletionResult]::new('--html', '--html', [CompletionResultType]::ParameterName, 'Also write a page (self-contained HTML) plotting both series, aligned, with the errors'' table')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;completions' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;man' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a table for people, or JSON for programs')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as `-o json`')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'exa;help' {
            [CompletionResult]::new('finops', 'finops', [CompletionResultType]::ParameterValue, 'Energy, carbon and cost of GPU and CPU work')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Where the config file is, what is in effect, and a starting file')
            [CompletionResult]::new('gpu', 'gpu', [CompletionResultType]::ParameterValue, 'One reading of every GPU (NVML, nvidia-smi or amd-smi), and the aggregates; or export them')
            [CompletionResult]::new('report', 'report', [CompletionResultType]::ParameterValue, 'Totals of the stored records: runs, GPU-h, CPU-h, kWh, CO2e with its range, USD')
            [CompletionResult]::new('budget', 'budget', [CompletionResultType]::ParameterValue, 'Budgets: a team''s kWh, kgCO2e and USD a period, kept in the ledger, watched and checked where work starts')
            [CompletionResult]::new('db', 'db', [CompletionResultType]::ParameterValue, 'The records database: bring its schema up to date, copy records between stores')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Send what could not be sent: records waiting in the outbox for MLflow')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Turn a scheduler''s finished jobs into records: Slurm (sacct) or Flux')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve exa''s read-only tools to AI agents over MCP (stdio, or streamable HTTP)')
            [CompletionResult]::new('metrics', 'metrics', [CompletionResultType]::ParameterValue, 'Cluster GPU and host telemetry from Prometheus, and the flags it raises')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'How far a measurement is from a reference: a trace against a wall meter''s, BMC''s or DCGM''s series')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions for exa')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print exa''s man page (roff), or a subcommand''s')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'exa;help;finops' {
            [CompletionResult]::new('carbon', 'carbon', [CompletionResultType]::ParameterValue, 'Energy and carbon: kWh and gCO2e')
            [CompletionResult]::new('cost', 'cost', [CompletionResultType]::ParameterValue, 'Money: USD from a rate card')
            [CompletionResult]::new('measure', 'measure', [CompletionResultType]::ParameterValue, 'Run a command (or watch the node) and measure its GPU energy, carbon and cost')
            break
        }
        'exa;help;finops;carbon' {
            [CompletionResult]::new('providers', 'providers', [CompletionResultType]::ParameterValue, 'List the carbon providers, each with its kind, uncertainty and status')
            [CompletionResult]::new('estimate', 'estimate', [CompletionResultType]::ParameterValue, 'Estimate energy (kWh) and carbon (gCO2e) of GPU and CPU hours')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a carbon provider: formulas, coefficients with defaults, metadata')
            [CompletionResult]::new('record', 'record', [CompletionResultType]::ParameterValue, 'Estimate as `estimate` does and store the result as a record of MODEL')
            [CompletionResult]::new('regions', 'regions', [CompletionResultType]::ParameterValue, 'List the grid regions exa knows offline, each with its intensity, year and source')
            [CompletionResult]::new('hardware', 'hardware', [CompletionResultType]::ParameterValue, 'List the GPU and CPU models exa knows the power of, each with its source (what hardware-aware prices by)')
            [CompletionResult]::new('when', 'when', [CompletionResultType]::ParameterValue, 'The start, within a window, that gives a job of a known length the least carbon by the grid''s forecast')
            break
        }
        'exa;help;finops;carbon;providers' {
            break
        }
        'exa;help;finops;carbon;estimate' {
            break
        }
        'exa;help;finops;carbon;show' {
            break
        }
        'exa;help;finops;carbon;record' {
            break
        }
        'exa;help;finops;carbon;regions' {
            break
        }
        'exa;help;finops;carbon;hardware' {
            break
        }
        'exa;help;finops;carbon;when' {
            break
        }
        'exa;help;finops;cost' {
            [CompletionResult]::new('providers', 'providers', [CompletionResultType]::ParameterValue, 'List the cost providers (rate cards), each with its kind and status')
            [CompletionResult]::new('estimate', 'estimate', [CompletionResultType]::ParameterValue, 'Estimate the cost (USD) of GPU and CPU hours')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a cost provider: formulas, coefficients with defaults, metadata')
            [CompletionResult]::new('record', 'record', [CompletionResultType]::ParameterValue, 'Estimate as `estimate` does and store the result as a record of MODEL')
            break
        }
        'exa;help;finops;cost;providers' {
            break
        }
        'exa;help;finops;cost;estimate' {
            break
        }
        'exa;help;finops;cost;show' {
            break
        }
        'exa;help;finops;cost;record' {
            break
        }
        'exa;help;finops;measure' {
            break
        }
        'exa;help;config' {
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print where the config file is, and whether it exists')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the settings in effect, each with where it came from')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a commented starting config file')
            break
        }
        'exa;help;config;path' {
            break
        }
        'exa;help;config;show' {
            break
        }
        'exa;help;config;init' {
            break
        }
        'exa;help;gpu' {
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the GPU, energy and CO2 metrics for a Prometheus scrape, until SIGTERM or Ctrl-C')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Push the GPU, energy and CO2 metrics over OTLP/HTTP every --interval seconds, until SIGTERM or Ctrl-C')
            break
        }
        'exa;help;gpu;serve' {
            break
        }
        'exa;help;gpu;export' {
            break
        }
        'exa;help;report' {
            break
        }
        'exa;help;budget' {
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Keep a budget, or new terms for one of that name: a scope''s limits a period')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'The budgets in effect, each with who set it and when; --history lists every change')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'End a budget. Its changes stay in the ledger (list --history)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Each budget''s use this period: used, left and percent per unit, and when it runs out at the period''s pace and at the last 7 days''')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Whether the budgets of a scope (or one named) hold, with the work about to start added: exit 0 within, 1 past a warn line, 3 over; one line says which unit and by how much')
            [CompletionResult]::new('notify', 'notify', [CompletionResultType]::ParameterValue, 'Send each line a budget crossed this period (its warn lines and 100 %) to the webhook and the Alertmanager the config names, once: an event that could not be sent is kept and sent by the next run (exit 1 until then)')
            break
        }
        'exa;help;budget;set' {
            break
        }
        'exa;help;budget;list' {
            break
        }
        'exa;help;budget;rm' {
            break
        }
        'exa;help;budget;status' {
            break
        }
        'exa;help;budget;check' {
            break
        }
        'exa;help;budget;notify' {
            break
        }
        'exa;help;db' {
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Bring the database''s schema to this exa''s version, creating it when missing')
            [CompletionResult]::new('copy', 'copy', [CompletionResultType]::ParameterValue, 'Copy every record from one store into another, SQLite or PostgreSQL either way')
            break
        }
        'exa;help;db;migrate' {
            break
        }
        'exa;help;db;copy' {
            break
        }
        'exa;help;sync' {
            [CompletionResult]::new('mlflow', 'mlflow', [CompletionResultType]::ParameterValue, 'Log to MLflow every record whose log is waiting in the outbox (MLflow was down, slow or refused)')
            break
        }
        'exa;help;sync;mlflow' {
            break
        }
        'exa;help;import' {
            [CompletionResult]::new('slurm', 'slurm', [CompletionResultType]::ParameterValue, 'Finished Slurm jobs, from `sacct` (run here) or a saved `sacct -P` or `sacct --json` output')
            [CompletionResult]::new('flux', 'flux', [CompletionResultType]::ParameterValue, 'Finished Flux jobs, from `flux jobs` and each job''s R (run here) or a saved file')
            [CompletionResult]::new('kubernetes', 'kubernetes', [CompletionResultType]::ParameterValue, 'Pods'' measured energy and time, day by day, from the Prometheus that scrapes `exa gpu serve --pods`')
            break
        }
        'exa;help;import;slurm' {
            break
        }
        'exa;help;import;flux' {
            break
        }
        'exa;help;import;kubernetes' {
            break
        }
        'exa;help;mcp' {
            break
        }
        'exa;help;metrics' {
            [CompletionResult]::new('clusters', 'clusters', [CompletionResultType]::ParameterValue, 'The clusters configured (clusters: in finops.yaml), with vendor and model')
            [CompletionResult]::new('node', 'node', [CompletionResultType]::ParameterValue, 'Every reading of one node''s GPUs and host over the window')
            [CompletionResult]::new('workload', 'workload', [CompletionResultType]::ParameterValue, 'Where a workload ran over the window, and each node''s readings')
            [CompletionResult]::new('flags', 'flags', [CompletionResultType]::ParameterValue, 'Which conditions fired on a node or a workload, with the evidence')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'One PromQL expression of your own (at most 4000 characters), over the window or at its end, on one cluster or, without --cluster, on every cluster configured (the organization)')
            break
        }
        'exa;help;metrics;clusters' {
            break
        }
        'exa;help;metrics;node' {
            break
        }
        'exa;help;metrics;workload' {
            break
        }
        'exa;help;metrics;flags' {
            break
        }
        'exa;help;metrics;query' {
            break
        }
        'exa;help;validate' {
            break
        }
        'exa;help;completions' {
            break
        }
        'exa;help;man' {
            break
        }
        'exa;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
