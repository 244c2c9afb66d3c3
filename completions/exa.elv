
use builtin;
use str;

set edit:completion:arg-completer[exa] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'exa'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'exa'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand --json 'Same as `-o json`'
            cand --strict 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand finops 'Energy, carbon and cost of GPU and CPU work'
            cand config 'Where the config file is, what is in effect, and a starting file'
            cand gpu 'One reading of every GPU (NVML, nvidia-smi or amd-smi), and the aggregates; or export them'
            cand report 'Totals of the stored records: runs, GPU-h, CPU-h, kWh, CO2e with its range, USD'
            cand budget 'Budgets: a team''s kWh, kgCO2e and USD a period, kept in the ledger, watched and checked where work starts'
            cand db 'The records database: bring its schema up to date, copy records between stores'
            cand sync 'Send what could not be sent: records waiting in the outbox for MLflow'
            cand import 'Turn a scheduler''s finished jobs into records: Slurm (sacct) or Flux'
            cand mcp 'Serve exa''s read-only tools to AI agents over MCP (stdio, or streamable HTTP)'
            cand metrics 'Cluster GPU and host telemetry from Prometheus, and the flags it raises'
            cand validate 'How far a measurement is from a reference: a trace against a wall meter''s, BMC''s or DCGM''s series'
            cand completions 'Print shell completions for exa'
            cand man 'Print exa''s man page (roff), or a subcommand''s'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;finops'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand carbon 'Energy and carbon: kWh and gCO2e'
            cand cost 'Money: USD from a rate card'
            cand measure 'Run a command (or watch the node) and measure its GPU energy, carbon and cost'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;finops;carbon'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand providers 'List the carbon providers, each with its kind, uncertainty and status'
            cand estimate 'Estimate energy (kWh) and carbon (gCO2e) of GPU and CPU hours'
            cand show 'Show a carbon provider: formulas, coefficients with defaults, metadata'
            cand record 'Estimate as `estimate` does and store the result as a record of MODEL'
            cand regions 'List the grid regions exa knows offline, each with its intensity, year and source'
            cand hardware 'List the GPU and CPU models exa knows the power of, each with its source (what hardware-aware prices by)'
            cand when 'The start, within a window, that gives a job of a known length the least carbon by the grid''s forecast'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;finops;carbon;providers'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;finops;carbon;estimate'= {
            cand --gpu-hours 'GPU-hours of the work (device-hours: 2 GPUs for 6 hours is 12)'
            cand --cpu-hours 'CPU-core-hours of the work, as the scheduler reports them'
            cand --provider 'The provider: a name from `providers`, or a path to a provider file or plugin'
            cand --set 'Set any coefficient of the provider, e.g. --set ram_gb=64 (repeatable)'
            cand --pue 'Data-centre PUE (coefficient pue)'
            cand --gpu-tdp 'Power of one GPU board in watts (coefficient gpu_tdp_watts)'
            cand --cpu-tdp 'Power per CPU-hour in watts (coefficient cpu_tdp_watts)'
            cand --grid-intensity 'Grid carbon intensity in gCO2e/kWh (coefficient grid_intensity_g_per_kwh)'
            cand --gpu-kwh 'GPU energy measured elsewhere (DCGM, a PDU) over --gpu-hours; its mean power replaces gpu_tdp_watts'
            cand --cpu-kwh 'CPU and memory energy measured elsewhere (RAPL, a PDU) over --cpu-hours; its mean power replaces cpu_tdp_watts'
            cand --region 'The grid region whose intensity to use: a country (FR, FRA), a US state (US-VA), a NERC region (SERC) or a cloud region (aws:us-east-1) [env: EXAMLOPS_GRID_REGION; config: finops.carbon.grid.region; list: exa finops carbon regions]'
            cand --gpu-model 'The GPU model (H100-SXM, "NVIDIA L4", MI300X): a provider that prices by model (hardware-aware) takes its board power [list: exa finops carbon hardware]'
            cand --cpu-model 'The CPU model ("EPYC 7763", "Xeon Platinum 8380"), with --cpu-cores: a provider that prices by model takes a core''s power as its TDP over its cores'
            cand --cpu-cores 'The CPU model''s CPUs a socket, as the CPU-hours count them (threads, where they count threads): --cpu-model''s TDP is the socket''s'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --strict 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;finops;carbon;show'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;finops;carbon;record'= {
            cand --run-id 'The run this record belongs to (an MLflow run id, a job id); records of one run count as one run'
            cand --tokens 'Output tokens the work generated, kept on the record for `report --per token`'
            cand --prompt-tokens 'Prompt (input) tokens the work read, kept beside --tokens'
            cand --requests 'Requests the work served, kept on the record for `report --per request`'
            cand --unit 'Work in a unit of your naming, NAME=N (images=5000), kept for `report --per NAME`'
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand --gpu-hours 'GPU-hours of the work (device-hours: 2 GPUs for 6 hours is 12)'
            cand --cpu-hours 'CPU-core-hours of the work, as the scheduler reports them'
            cand --provider 'The provider: a name from `providers`, or a path to a provider file or plugin'
            cand --set 'Set any coefficient of the provider, e.g. --set ram_gb=64 (repeatable)'
            cand --pue 'Data-centre PUE (coefficient pue)'
            cand --gpu-tdp 'Power of one GPU board in watts (coefficient gpu_tdp_watts)'
            cand --cpu-tdp 'Power per CPU-hour in watts (coefficient cpu_tdp_watts)'
            cand --grid-intensity 'Grid carbon intensity in gCO2e/kWh (coefficient grid_intensity_g_per_kwh)'
            cand --gpu-kwh 'GPU energy measured elsewhere (DCGM, a PDU) over --gpu-hours; its mean power replaces gpu_tdp_watts'
            cand --cpu-kwh 'CPU and memory energy measured elsewhere (RAPL, a PDU) over --cpu-hours; its mean power replaces cpu_tdp_watts'
            cand --region 'The grid region whose intensity to use: a country (FR, FRA), a US state (US-VA), a NERC region (SERC) or a cloud region (aws:us-east-1) [env: EXAMLOPS_GRID_REGION; config: finops.carbon.grid.region; list: exa finops carbon regions]'
            cand --gpu-model 'The GPU model (H100-SXM, "NVIDIA L4", MI300X): a provider that prices by model (hardware-aware) takes its board power [list: exa finops carbon hardware]'
            cand --cpu-model 'The CPU model ("EPYC 7763", "Xeon Platinum 8380"), with --cpu-cores: a provider that prices by model takes a core''s power as its TDP over its cores'
            cand --cpu-cores 'The CPU model''s CPUs a socket, as the CPU-hours count them (threads, where they count threads): --cpu-model''s TDP is the socket''s'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --part 'This record is one part of the run''s work (a stage, a node), summed with the run''s other parts; without it, a second record of the same kind for a run is the same work, counted once'
            cand --strict 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;finops;carbon;regions'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --sources 'Print the tables'' sources, licences and attribution instead'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;finops;carbon;hardware'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --sources 'Print the tables'' sources and licences instead'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;finops;carbon;when'= {
            cand --duration 'How long the job runs: 90m, 6h, 1.5d'
            cand --within 'How far from now it may start [default: 24h]'
            cand --power-w 'The job''s mean power, watts, for its emissions in grams (without it, intensities only)'
            cand --region 'The grid whose forecast to read: a country (FR) or a cloud region outside the US (gcp:europe-west9), asked as its country''s zone [default: the zone set (EXAMLOPS_GRID_INTENSITY_ZONE, finops.carbon.grid.zone), else the grid region set (EXAMLOPS_GRID_REGION, finops.carbon.grid.region)]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;finops;carbon;help'= {
            cand providers 'List the carbon providers, each with its kind, uncertainty and status'
            cand estimate 'Estimate energy (kWh) and carbon (gCO2e) of GPU and CPU hours'
            cand show 'Show a carbon provider: formulas, coefficients with defaults, metadata'
            cand record 'Estimate as `estimate` does and store the result as a record of MODEL'
            cand regions 'List the grid regions exa knows offline, each with its intensity, year and source'
            cand hardware 'List the GPU and CPU models exa knows the power of, each with its source (what hardware-aware prices by)'
            cand when 'The start, within a window, that gives a job of a known length the least carbon by the grid''s forecast'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;finops;carbon;help;providers'= {
        }
        &'exa;finops;carbon;help;estimate'= {
        }
        &'exa;finops;carbon;help;show'= {
        }
        &'exa;finops;carbon;help;record'= {
        }
        &'exa;finops;carbon;help;regions'= {
        }
        &'exa;finops;carbon;help;hardware'= {
        }
        &'exa;finops;carbon;help;when'= {
        }
        &'exa;finops;carbon;help;help'= {
        }
        &'exa;finops;cost'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand providers 'List the cost providers (rate cards), each with its kind and status'
            cand estimate 'Estimate the cost (USD) of GPU and CPU hours'
            cand show 'Show a cost provider: formulas, coefficients with defaults, metadata'
            cand record 'Estimate as `estimate` does and store the result as a record of MODEL'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;finops;cost;providers'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;finops;cost;estimate'= {
            cand --gpu-hours 'GPU-hours of the work (device-hours: 2 GPUs for 6 hours is 12)'
            cand --cpu-hours 'CPU-core-hours of the work, as the scheduler reports them'
            cand --provider 'The provider: a name from `providers`, or a path to a provider file or plugin'
            cand --set 'Set any coefficient of the provider, e.g. --set ram_gb=64 (repeatable)'
            cand --gpu-rate 'Price of one GPU-hour in USD (coefficient gpu_rate)'
            cand --cpu-rate 'Price of one CPU-hour in USD (coefficient cpu_rate)'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --strict 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;finops;cost;show'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;finops;cost;record'= {
            cand --run-id 'The run this record belongs to (an MLflow run id, a job id); records of one run count as one run'
            cand --tokens 'Output tokens the work generated, kept on the record for `report --per token`'
            cand --prompt-tokens 'Prompt (input) tokens the work read, kept beside --tokens'
            cand --requests 'Requests the work served, kept on the record for `report --per request`'
            cand --unit 'Work in a unit of your naming, NAME=N (images=5000), kept for `report --per NAME`'
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand --gpu-hours 'GPU-hours of the work (device-hours: 2 GPUs for 6 hours is 12)'
            cand --cpu-hours 'CPU-core-hours of the work, as the scheduler reports them'
            cand --provider 'The provider: a name from `providers`, or a path to a provider file or plugin'
            cand --set 'Set any coefficient of the provider, e.g. --set ram_gb=64 (repeatable)'
            cand --gpu-rate 'Price of one GPU-hour in USD (coefficient gpu_rate)'
            cand --cpu-rate 'Price of one CPU-hour in USD (coefficient cpu_rate)'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --part 'This record is one part of the run''s work (a stage, a node), summed with the run''s other parts; without it, a second record of the same kind for a run is the same work, counted once'
            cand --strict 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;finops;cost;help'= {
            cand providers 'List the cost providers (rate cards), each with its kind and status'
            cand estimate 'Estimate the cost (USD) of GPU and CPU hours'
            cand show 'Show a cost provider: formulas, coefficients with defaults, metadata'
            cand record 'Estimate as `estimate` does and store the result as a record of MODEL'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;finops;cost;help;providers'= {
        }
        &'exa;finops;cost;help;estimate'= {
        }
        &'exa;finops;cost;help;show'= {
        }
        &'exa;finops;cost;help;record'= {
        }
        &'exa;finops;cost;help;help'= {
        }
        &'exa;finops;measure'= {
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand --interval 'Seconds between readings [default: 5; env: EXAMLOPS_GPU_INTERVAL, GENAI_GPU_COLLECTION_INTERVAL]'
            cand --gpu-source 'Where readings come from [default: auto; env: EXAMLOPS_GPU_SOURCE]'
            cand --cpu-source 'Where CPU and memory energy is read: powercap (RAPL in sysfs), perf (the power PMU), or none [default: auto; env: EXAMLOPS_CPU_SOURCE; config: cpu.source]'
            cand --node-source 'Where the whole node''s power is read: hwmon (the ACPI power meter), ipmi (the BMC through ipmitool), redfish (the BMC''s chassis at EXAMLOPS_REDFISH_URL), or none [default: auto; env: EXAMLOPS_NODE_SOURCE; config: node.source]'
            cand --semconv 'The names of exported metrics: the spec''s gen_ai.* or OpenTelemetry''s hardware conventions (hw.*) [default: genai; env: EXAMLOPS_SEMCONV]'
            cand --power-cost-per-kwh 'Electricity price in USD per kWh, for the cost of the measured energy; none without it [env: EXAMLOPS_POWER_COST_PER_KWH, GENAI_POWER_COST_PER_KWH]'
            cand --carbon-intensity 'gCO2e per kWh for the exported gen_ai.co2.emissions [default: 475, a world average; env: EXAMLOPS_CARBON_INTENSITY, GENAI_CARBON_INTENSITY]'
            cand --gpus 'The job''s GPUs: indices, GPU- or MIG- UUIDs, comma-separated, or none [default: from CUDA_VISIBLE_DEVICES and the like, else all]'
            cand --duration 'Without a command, measure the node this long (90s, 10m, 1.5h); Ctrl-C ends it early'
            cand --trace 'Write every sample to FILE as JSON lines, for plotting and re-analysis'
            cand --pid 'Without a command: the run''s CPU time is this process''s (and its waited-for children''s) user + system time over the run; the Python API passes its own. The run ends when the process does (a pid given to a later process is not it)'
            cand --cpus 'Without a command: the job holds N CPUs here, and its CPU-hours are N times the run''s length (core-hours, as a scheduler bills them; the Slurm prolog passes the job''s)'
            cand --slurm-job 'The Slurm job whose processes are the job''s on a shared GPU: those in its control group (`…/job_<ID>/…` in /proc/<pid>/cgroup), as the prolog measures a job it did not start'
            cand --report 'Write the report to FILE instead of stderr (with a command) or stdout (without)'
            cand --serve 'Without a command: answer windows of the run on this Unix socket (private to you) for every process and rank of the job on this node, as the Python API''s `Monitor` asks. The run ends when a client ends it (recording it, when asked), on Ctrl-C, or once no client has been connected for --linger'
            cand --linger 'With --serve: end the run once no client has been connected this long (from the start until the first comes) [default: 10s]'
            cand --idle-share 'On a GPU other processes share: where the device''s idle energy goes. The job always gets its part of the busy energy by its SM activity (NVML); `none` charges it no idle, `even` an equal part among the processes seen, `by-activity` a part by its activity over the run'
            cand --node-policy 'With the node''s meter: how the node''s energy beyond the counters (fans, disks, NICs, the power supply''s loss) becomes the job''s. `measured` by its share of the node''s measured energy; `allocation` by what it holds: with every GPU of the node read, all of the rest; with none, the CPUs it holds (--cpus) of the node''s'
            cand --carbon-provider 'The carbon provider for the measured energy (else env, config, default)'
            cand --cost-provider 'The cost provider for the measured hours (else env, config, default)'
            cand --region 'The grid region whose intensity prices the measured energy: a country (FR), US state (US-VA), NERC or cloud region (aws:us-east-1) [env: EXAMLOPS_GRID_REGION; config: finops.carbon.grid.region]'
            cand --record 'Store the measured run''s carbon and cost as records of MODEL'
            cand --run-id 'The run id for --record'
            cand --mlflow-experiment 'Create an MLflow run in this experiment (made when missing), named after the command, and record under its id'
            cand --tokens 'Output tokens the work generated, kept on the record for `report --per token`'
            cand --prompt-tokens 'Prompt (input) tokens the work read, kept beside --tokens'
            cand --requests 'Requests the work served, kept on the record for `report --per request`'
            cand --unit 'Work in a unit of your naming, NAME=N (images=5000), kept for `report --per NAME`'
            cand --tokens-from 'Read an inference server''s Prometheus metrics (vLLM, TGI, SGLang) at the start and end: the tokens and requests it served meanwhile'
            cand --tokens-model 'With --tokens-from: only this model''s series (the server''s model_name label)'
            cand --job-user 'Who ran the work, kept on the records for `report --by user` (a scheduler''s prolog passes the job''s user)'
            cand --job-account 'The account (bank) the work is charged to, kept on the records for `report --by account`'
            cand --job-partition 'The partition (queue) it ran in, kept on the records for `report --by partition`'
            cand --push-gateway 'Push the run''s energy, cost and CO2 to this Prometheus Pushgateway at its end (a failed push is a warning)'
            cand --otlp 'Send the run''s energy, cost and CO2 over OTLP/HTTP at its end [URL, else OTEL_EXPORTER_OTLP_METRICS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --strict 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]'
            cand --co2 'Export the CO2 metrics (energy times the intensity) [env: GENAI_ENABLE_CO2_TRACKING=true]'
            cand --model-is-job-name '--record''s MODEL is a scheduler''s job name as given: made a model name as `exa import slurm` makes one (control characters dropped, 200 characters at most, `(no name)` when empty), so both name the job alike'
            cand --part 'The measured run is one part of the run''s work (a node of a multi-node job), summed with its other parts'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;finops;help'= {
            cand carbon 'Energy and carbon: kWh and gCO2e'
            cand cost 'Money: USD from a rate card'
            cand measure 'Run a command (or watch the node) and measure its GPU energy, carbon and cost'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;finops;help;carbon'= {
            cand providers 'List the carbon providers, each with its kind, uncertainty and status'
            cand estimate 'Estimate energy (kWh) and carbon (gCO2e) of GPU and CPU hours'
            cand show 'Show a carbon provider: formulas, coefficients with defaults, metadata'
            cand record 'Estimate as `estimate` does and store the result as a record of MODEL'
            cand regions 'List the grid regions exa knows offline, each with its intensity, year and source'
            cand hardware 'List the GPU and CPU models exa knows the power of, each with its source (what hardware-aware prices by)'
            cand when 'The start, within a window, that gives a job of a known length the least carbon by the grid''s forecast'
        }
        &'exa;finops;help;carbon;providers'= {
        }
        &'exa;finops;help;carbon;estimate'= {
        }
        &'exa;finops;help;carbon;show'= {
        }
        &'exa;finops;help;carbon;record'= {
        }
        &'exa;finops;help;carbon;regions'= {
        }
        &'exa;finops;help;carbon;hardware'= {
        }
        &'exa;finops;help;carbon;when'= {
        }
        &'exa;finops;help;cost'= {
            cand providers 'List the cost providers (rate cards), each with its kind and status'
            cand estimate 'Estimate the cost (USD) of GPU and CPU hours'
            cand show 'Show a cost provider: formulas, coefficients with defaults, metadata'
            cand record 'Estimate as `estimate` does and store the result as a record of MODEL'
        }
        &'exa;finops;help;cost;providers'= {
        }
        &'exa;finops;help;cost;estimate'= {
        }
        &'exa;finops;help;cost;show'= {
        }
        &'exa;finops;help;cost;record'= {
        }
        &'exa;finops;help;measure'= {
        }
        &'exa;finops;help;help'= {
        }
        &'exa;config'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand path 'Print where the config file is, and whether it exists'
            cand show 'Print the settings in effect, each with where it came from'
            cand init 'Write a commented starting config file'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;config;path'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;config;show'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --strict 'Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;config;init'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --force 'Replace an existing file'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;config;help'= {
            cand path 'Print where the config file is, and whether it exists'
            cand show 'Print the settings in effect, each with where it came from'
            cand init 'Write a commented starting config file'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;config;help;path'= {
        }
        &'exa;config;help;show'= {
        }
        &'exa;config;help;init'= {
        }
        &'exa;config;help;help'= {
        }
        &'exa;gpu'= {
            cand --gpu-source 'Where readings come from [default: auto; env: EXAMLOPS_GPU_SOURCE]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --wide 'Every column, however narrow the terminal (a narrow one shows the main ones; JSON has all)'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand serve 'Serve the GPU, energy and CO2 metrics for a Prometheus scrape, until SIGTERM or Ctrl-C'
            cand export 'Push the GPU, energy and CO2 metrics over OTLP/HTTP every --interval seconds, until SIGTERM or Ctrl-C'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;gpu;serve'= {
            cand --listen 'The address to listen on; the metrics are at /metrics'
            cand --tokens-from 'Read an inference server''s Prometheus metrics (vLLM, TGI, SGLang) every interval and export the GPUs'' energy per output token'
            cand --tokens-model 'With --tokens-from: only this model''s series (the server''s model_name label)'
            cand --interval 'Seconds between readings [default: 5; env: EXAMLOPS_GPU_INTERVAL, GENAI_GPU_COLLECTION_INTERVAL]'
            cand --gpu-source 'Where readings come from [default: auto; env: EXAMLOPS_GPU_SOURCE]'
            cand --cpu-source 'Where CPU and memory energy is read: powercap (RAPL in sysfs), perf (the power PMU), or none [default: auto; env: EXAMLOPS_CPU_SOURCE; config: cpu.source]'
            cand --node-source 'Where the whole node''s power is read: hwmon (the ACPI power meter), ipmi (the BMC through ipmitool), redfish (the BMC''s chassis at EXAMLOPS_REDFISH_URL), or none [default: auto; env: EXAMLOPS_NODE_SOURCE; config: node.source]'
            cand --semconv 'The names of exported metrics: the spec''s gen_ai.* or OpenTelemetry''s hardware conventions (hw.*) [default: genai; env: EXAMLOPS_SEMCONV]'
            cand --power-cost-per-kwh 'Electricity price in USD per kWh, for the cost of the measured energy; none without it [env: EXAMLOPS_POWER_COST_PER_KWH, GENAI_POWER_COST_PER_KWH]'
            cand --carbon-intensity 'gCO2e per kWh for the exported gen_ai.co2.emissions [default: 475, a world average; env: EXAMLOPS_CARBON_INTENSITY, GENAI_CARBON_INTENSITY]'
            cand --pod-idle 'Where the node''s idle energy goes: none (its own series), even (equally to the pods), weighted (by their busy energy) [default: none; env: EXAMLOPS_POD_IDLE]'
            cand --pod-label 'A pod label exported on its exa_pod_info series (repeat, or comma-separate) [env: EXAMLOPS_POD_LABELS]'
            cand --pod-annotation 'A pod annotation exported on its exa_pod_info series (repeat, or comma-separate) [env: EXAMLOPS_POD_ANNOTATIONS]'
            cand --pod-resources 'The kubelet''s PodResources socket, which says who holds each GPU; `none` not to ask [default: /var/lib/kubelet/pod-resources/kubelet.sock; env: EXAMLOPS_POD_RESOURCES]'
            cand --kube-api 'The Kubernetes API, which names the pods; `none` not to ask [default: in a pod, the cluster''s; env: EXAMLOPS_KUBE_API]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --budgets 'Also serve the ledger''s budgets (exa budget) as gauges, read every minute: exa_budget_limit, _used, _forecast. One exporter per ledger is enough'
            cand --co2 'Export the CO2 metrics (energy times the intensity) [env: GENAI_ENABLE_CO2_TRACKING=true]'
            cand --pods 'Charge the node''s GPU, CPU and DRAM energy to its pods, and export it per pod [env: EXAMLOPS_PODS]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;gpu;export'= {
            cand --otlp 'The OTLP/HTTP endpoint: a base URL (/v1/metrics is added) [env: OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, OTEL_EXPORTER_OTLP_ENDPOINT]'
            cand --interval 'Seconds between readings [default: 5; env: EXAMLOPS_GPU_INTERVAL, GENAI_GPU_COLLECTION_INTERVAL]'
            cand --gpu-source 'Where readings come from [default: auto; env: EXAMLOPS_GPU_SOURCE]'
            cand --cpu-source 'Where CPU and memory energy is read: powercap (RAPL in sysfs), perf (the power PMU), or none [default: auto; env: EXAMLOPS_CPU_SOURCE; config: cpu.source]'
            cand --node-source 'Where the whole node''s power is read: hwmon (the ACPI power meter), ipmi (the BMC through ipmitool), redfish (the BMC''s chassis at EXAMLOPS_REDFISH_URL), or none [default: auto; env: EXAMLOPS_NODE_SOURCE; config: node.source]'
            cand --semconv 'The names of exported metrics: the spec''s gen_ai.* or OpenTelemetry''s hardware conventions (hw.*) [default: genai; env: EXAMLOPS_SEMCONV]'
            cand --power-cost-per-kwh 'Electricity price in USD per kWh, for the cost of the measured energy; none without it [env: EXAMLOPS_POWER_COST_PER_KWH, GENAI_POWER_COST_PER_KWH]'
            cand --carbon-intensity 'gCO2e per kWh for the exported gen_ai.co2.emissions [default: 475, a world average; env: EXAMLOPS_CARBON_INTENSITY, GENAI_CARBON_INTENSITY]'
            cand --pod-idle 'Where the node''s idle energy goes: none (its own series), even (equally to the pods), weighted (by their busy energy) [default: none; env: EXAMLOPS_POD_IDLE]'
            cand --pod-label 'A pod label exported on its exa_pod_info series (repeat, or comma-separate) [env: EXAMLOPS_POD_LABELS]'
            cand --pod-annotation 'A pod annotation exported on its exa_pod_info series (repeat, or comma-separate) [env: EXAMLOPS_POD_ANNOTATIONS]'
            cand --pod-resources 'The kubelet''s PodResources socket, which says who holds each GPU; `none` not to ask [default: /var/lib/kubelet/pod-resources/kubelet.sock; env: EXAMLOPS_POD_RESOURCES]'
            cand --kube-api 'The Kubernetes API, which names the pods; `none` not to ask [default: in a pod, the cluster''s; env: EXAMLOPS_KUBE_API]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --co2 'Export the CO2 metrics (energy times the intensity) [env: GENAI_ENABLE_CO2_TRACKING=true]'
            cand --pods 'Charge the node''s GPU, CPU and DRAM energy to its pods, and export it per pod [env: EXAMLOPS_PODS]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;gpu;help'= {
            cand serve 'Serve the GPU, energy and CO2 metrics for a Prometheus scrape, until SIGTERM or Ctrl-C'
            cand export 'Push the GPU, energy and CO2 metrics over OTLP/HTTP every --interval seconds, until SIGTERM or Ctrl-C'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;gpu;help;serve'= {
        }
        &'exa;gpu;help;export'= {
        }
        &'exa;gpu;help;help'= {
        }
        &'exa;report'= {
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand --by 'Group by model, run, provider, day (UTC), user, account, partition, namespace, or a pod''s tag: label:KEY or annotation:KEY (records without one are "(none)")'
            cand --since 'Records from this UTC date or time on (2026-11-01, 2026-11-01T12:00:00Z)'
            cand --until 'Records before this UTC time; a date alone includes that whole day'
            cand --format 'totals (grouped, the default) or focus: FinOps FOCUS 1.2 cost rows, one per run and resource'
            cand --per 'Figures per unit of work, with SCI''s terms (E, I, M, R): token, request, run, or a unit of your naming (--unit images=N); only runs that counted it'
            cand --html 'Also write a self-contained HTML page with charts of energy, CO2e and cost to FILE'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;budget'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand set 'Keep a budget, or new terms for one of that name: a scope''s limits a period'
            cand list 'The budgets in effect, each with who set it and when; --history lists every change'
            cand rm 'End a budget. Its changes stay in the ledger (list --history)'
            cand status 'Each budget''s use this period: used, left and percent per unit, and when it runs out at the period''s pace and at the last 7 days'''
            cand check 'Whether the budgets of a scope (or one named) hold, with the work about to start added: exit 0 within, 1 past a warn line, 3 over; one line says which unit and by how much'
            cand notify 'Send each line a budget crossed this period (its warn lines and 100 %) to the webhook and the Alertmanager the config names, once: an event that could not be sent is kept and sent by the next run (exit 1 until then)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;budget;set'= {
            cand --scope 'Whose work: all, account=A, user=U, model=M, namespace=N, label:KEY=V or annotation:KEY=V'
            cand --period 'The period each allowance covers, in UTC (a week from Monday)'
            cand --kwh 'The most energy a period, kWh'
            cand --kgco2e 'The most operational CO2e a period, kg'
            cand --usd 'The most cost a period, USD'
            cand --warn 'The lines, percent of a limit, past which it warns (status, check''s exit 1)'
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;budget;list'= {
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --history 'Every change, oldest first: set, replaced, removed, by whom and when'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;budget;rm'= {
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;budget;status'= {
            cand --at 'As of this time (ISO 8601 UTC, or a date: its midnight): the records before it, in the period holding it [default: now]'
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;budget;check'= {
            cand --scope 'The budgets of this scope (repeat for a job''s account and user): as `set --scope` names them'
            cand --add-gpu-hours 'GPU-hours about to start, priced by the carbon and cost providers in effect and added'
            cand --add-cpu-hours 'CPU-hours about to start, added as --add-gpu-hours is'
            cand --at 'As of this time (ISO 8601 UTC, or a date: its midnight): the records before it [default: now]'
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --advise-only 'Say the verdict, never fail on it: exit 0 within, past a line or over'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;budget;notify'= {
            cand --at 'As of this time (ISO 8601 UTC, or a date: its midnight) [default: now]'
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;budget;help'= {
            cand set 'Keep a budget, or new terms for one of that name: a scope''s limits a period'
            cand list 'The budgets in effect, each with who set it and when; --history lists every change'
            cand rm 'End a budget. Its changes stay in the ledger (list --history)'
            cand status 'Each budget''s use this period: used, left and percent per unit, and when it runs out at the period''s pace and at the last 7 days'''
            cand check 'Whether the budgets of a scope (or one named) hold, with the work about to start added: exit 0 within, 1 past a warn line, 3 over; one line says which unit and by how much'
            cand notify 'Send each line a budget crossed this period (its warn lines and 100 %) to the webhook and the Alertmanager the config names, once: an event that could not be sent is kept and sent by the next run (exit 1 until then)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;budget;help;set'= {
        }
        &'exa;budget;help;list'= {
        }
        &'exa;budget;help;rm'= {
        }
        &'exa;budget;help;status'= {
        }
        &'exa;budget;help;check'= {
        }
        &'exa;budget;help;notify'= {
        }
        &'exa;budget;help;help'= {
        }
        &'exa;db'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand migrate 'Bring the database''s schema to this exa''s version, creating it when missing'
            cand copy 'Copy every record from one store into another, SQLite or PostgreSQL either way'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;db;migrate'= {
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;db;copy'= {
            cand --from 'The store to read: a SQLite file or a postgres:// URL'
            cand --to 'The store to write: a SQLite file or a postgres:// URL (made and migrated when missing)'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;db;help'= {
            cand migrate 'Bring the database''s schema to this exa''s version, creating it when missing'
            cand copy 'Copy every record from one store into another, SQLite or PostgreSQL either way'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;db;help;migrate'= {
        }
        &'exa;db;help;copy'= {
        }
        &'exa;db;help;help'= {
        }
        &'exa;sync'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand mlflow 'Log to MLflow every record whose log is waiting in the outbox (MLflow was down, slow or refused)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;sync;mlflow'= {
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;sync;help'= {
            cand mlflow 'Log to MLflow every record whose log is waiting in the outbox (MLflow was down, slow or refused)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;sync;help;mlflow'= {
        }
        &'exa;sync;help;help'= {
        }
        &'exa;import'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand slurm 'Finished Slurm jobs, from `sacct` (run here) or a saved `sacct -P` or `sacct --json` output'
            cand flux 'Finished Flux jobs, from `flux jobs` and each job''s R (run here) or a saved file'
            cand kubernetes 'Pods'' measured energy and time, day by day, from the Prometheus that scrapes `exa gpu serve --pods`'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;import;slurm'= {
            cand --since 'Jobs that ended at or after WHEN: a UTC date or time (2026-11-01, 2026-11-01T12:00:00Z) or an age (-7d, -12h, -30m). Default: where the last import of this cluster stopped'
            cand --until 'Jobs that ended before WHEN (same forms as --since); a date alone includes that whole day'
            cand --file 'Read the jobs from FILE (`-` for standard input) instead of asking the scheduler'
            cand --cluster 'The cluster''s name, for run ids and the watermark [default: the jobs'' own (Slurm), or this host''s name (Flux)]'
            cand --model 'The model every imported job is recorded under'
            cand --model-from 'Which field of a job names its model'
            cand --carbon-provider 'The carbon provider that prices the jobs (else env, config, default)'
            cand --cost-provider 'The cost provider that prices the jobs (else env, config, default)'
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --dry-run 'Show what would be recorded, job by job (`jobs` in JSON), and write nothing'
            cand --skip-bad 'Skip malformed lines (each named in the answer) instead of importing nothing from the file'
            cand --grid-history 'Price each job at the grid''s intensity over its own start to end, from the history endpoint (EXAMLOPS_GRID_HISTORY_URL): one request per zone and UTC day, cached, not one per job'
            cand --exclusive 'The jobs held whole nodes (the partition is OverSubscribe=EXCLUSIVE, or --exclusive everywhere), so Slurm''s node energy (ConsumedEnergyRaw) is the job''s own and is kept; otherwise energy is not measured'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;import;flux'= {
            cand --since 'Jobs that ended at or after WHEN: a UTC date or time (2026-11-01, 2026-11-01T12:00:00Z) or an age (-7d, -12h, -30m). Default: where the last import of this cluster stopped'
            cand --until 'Jobs that ended before WHEN (same forms as --since); a date alone includes that whole day'
            cand --file 'Read the jobs from FILE (`-` for standard input) instead of asking the scheduler'
            cand --cluster 'The cluster''s name, for run ids and the watermark [default: the jobs'' own (Slurm), or this host''s name (Flux)]'
            cand --model 'The model every imported job is recorded under'
            cand --model-from 'Which field of a job names its model'
            cand --carbon-provider 'The carbon provider that prices the jobs (else env, config, default)'
            cand --cost-provider 'The cost provider that prices the jobs (else env, config, default)'
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --dry-run 'Show what would be recorded, job by job (`jobs` in JSON), and write nothing'
            cand --skip-bad 'Skip malformed lines (each named in the answer) instead of importing nothing from the file'
            cand --grid-history 'Price each job at the grid''s intensity over its own start to end, from the history endpoint (EXAMLOPS_GRID_HISTORY_URL): one request per zone and UTC day, cached, not one per job'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;import;kubernetes'= {
            cand --cluster 'The cluster''s name, in run ids and keys; one configured under clusters: in finops.yaml also gives the Prometheus to read, its token and its labels'
            cand --prometheus 'The Prometheus that scrapes the exporters: its HTTP API''s base URL [default: the configured cluster''s]'
            cand --since 'The first UTC day to import (2026-11-01, or an age: -7d) [default: the day after this cluster''s last import, else yesterday]'
            cand --until 'The last day to import, whole (a date), or the day before WHEN [default: yesterday; today is never imported]'
            cand --model 'The model every pod''s records are kept under [default: its namespace]'
            cand --carbon-provider 'The carbon provider that prices the pods (else env, config, default)'
            cand --cost-provider 'The cost provider that prices the pods (else env, config, default)'
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --dry-run 'Show what would be recorded, pod by pod and day by day (`pods` in JSON), and write nothing'
            cand --grid-history 'Price each pod-day''s carbon at the grid''s history, each hour weighed by the pod''s energy in it (EXAMLOPS_GRID_HISTORY_URL)'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;import;help'= {
            cand slurm 'Finished Slurm jobs, from `sacct` (run here) or a saved `sacct -P` or `sacct --json` output'
            cand flux 'Finished Flux jobs, from `flux jobs` and each job''s R (run here) or a saved file'
            cand kubernetes 'Pods'' measured energy and time, day by day, from the Prometheus that scrapes `exa gpu serve --pods`'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;import;help;slurm'= {
        }
        &'exa;import;help;flux'= {
        }
        &'exa;import;help;kubernetes'= {
        }
        &'exa;import;help;help'= {
        }
        &'exa;mcp'= {
            cand --listen 'Serve streamable HTTP on ADDR (host:port) at /mcp instead of stdio; loopback unless you name another address'
            cand --db 'The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;metrics'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand clusters 'The clusters configured (clusters: in finops.yaml), with vendor and model'
            cand node 'Every reading of one node''s GPUs and host over the window'
            cand workload 'Where a workload ran over the window, and each node''s readings'
            cand flags 'Which conditions fired on a node or a workload, with the evidence'
            cand query 'One PromQL expression of your own (at most 4000 characters), over the window or at its end, on one cluster or, without --cluster, on every cluster configured (the organization)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;metrics;clusters'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;metrics;node'= {
            cand --cluster 'The cluster to read, as named under clusters: in finops.yaml (`exa metrics clusters` lists them)'
            cand --node 'The node, as the cluster''s node label names it'
            cand --range 'A window ending now: 1h, 6h, 24h or 7d [default: 6h]'
            cand --start 'An explicit window start (ISO 8601 UTC); --range is then ignored'
            cand --end 'The window end (ISO 8601 UTC) [default: now]'
            cand --points 'Points per series, at most 96 [default: 48]'
            cand --detail 'summary (mean, min, max) or series [default: series]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;metrics;workload'= {
            cand --cluster 'The cluster to read, as named under clusters: in finops.yaml (`exa metrics clusters` lists them)'
            cand --kind 'The workload''s kind: Job, JobSet, MPIJob, Deployment, StatefulSet or Pod'
            cand --name 'The workload''s name'
            cand --namespace 'The workload''s namespace'
            cand --range 'A window ending now: 1h, 6h, 24h or 7d [default: 6h]'
            cand --start 'An explicit window start (ISO 8601 UTC); --range is then ignored'
            cand --end 'The window end (ISO 8601 UTC) [default: now]'
            cand --points 'Points per series, at most 96 [default: 48]'
            cand --detail 'summary (mean, min, max) or series [default: summary]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;metrics;flags'= {
            cand --cluster 'The cluster to read, as named under clusters: in finops.yaml (`exa metrics clusters` lists them)'
            cand --node 'A node (or give --kind and --name)'
            cand --kind 'The workload''s kind: Job, JobSet, MPIJob, Deployment, StatefulSet or Pod (with --name)'
            cand --name 'The workload''s name (with --kind)'
            cand --namespace 'The workload''s namespace'
            cand --range 'A window ending now: 1h, 6h, 24h or 7d [default: 6h]'
            cand --start 'An explicit window start (ISO 8601 UTC); --range is then ignored'
            cand --end 'The window end (ISO 8601 UTC) [default: now]'
            cand --points 'Points per series, at most 96 [default: 48]'
            cand --detail 'summary, the only detail flags have: a flag carries its evidence (read the node with --detail series for the curves)'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;metrics;query'= {
            cand --cluster 'The cluster to read, as named under clusters: in finops.yaml; every cluster when unset'
            cand --range 'A window ending now: 1h, 6h, 24h or 7d [default: 6h]'
            cand --start 'An explicit window start (ISO 8601 UTC); --range is then ignored'
            cand --end 'The window end (ISO 8601 UTC) [default: now]'
            cand --points 'Points per series, at most 96 [default: 48]'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --instant 'One value per series at the window''s end, instead of a series over it'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;metrics;help'= {
            cand clusters 'The clusters configured (clusters: in finops.yaml), with vendor and model'
            cand node 'Every reading of one node''s GPUs and host over the window'
            cand workload 'Where a workload ran over the window, and each node''s readings'
            cand flags 'Which conditions fired on a node or a workload, with the evidence'
            cand query 'One PromQL expression of your own (at most 4000 characters), over the window or at its end, on one cluster or, without --cluster, on every cluster configured (the organization)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;metrics;help;clusters'= {
        }
        &'exa;metrics;help;node'= {
        }
        &'exa;metrics;help;workload'= {
        }
        &'exa;metrics;help;flags'= {
        }
        &'exa;metrics;help;query'= {
        }
        &'exa;metrics;help;help'= {
        }
        &'exa;validate'= {
            cand --trace 'Exa''s trace of the run (`measure --trace FILE`), JSON lines'
            cand --reference 'The reference''s series, CSV with a header; or redfish, ipmi or hwmon: the node meter''s readings the trace holds (measure --node-source with --trace), the whole node against the GPUs'
            cand --offset 'The reference''s clock minus exa''s, seconds, when known [default: found within --max-offset]'
            cand --max-offset 'How far apart the clocks may be, seconds, when the offset is found'
            cand --window 'The windows'' lengths, seconds, comma-separated'
            cand --html 'Also write a page (self-contained HTML) plotting both series, aligned, with the errors'' table'
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;completions'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;man'= {
            cand -o 'Output format: a table for people, or JSON for programs'
            cand --output 'Output format: a table for people, or JSON for programs'
            cand --config 'The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG]'
            cand --json 'Same as `-o json`'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'exa;help'= {
            cand finops 'Energy, carbon and cost of GPU and CPU work'
            cand config 'Where the config file is, what is in effect, and a starting file'
            cand gpu 'One reading of every GPU (NVML, nvidia-smi or amd-smi), and the aggregates; or export them'
            cand report 'Totals of the stored records: runs, GPU-h, CPU-h, kWh, CO2e with its range, USD'
            cand budget 'Budgets: a team''s kWh, kgCO2e and USD a period, kept in the ledger, watched and checked where work starts'
            cand db 'The records database: bring its schema up to date, copy records between stores'
            cand sync 'Send what could not be sent: records waiting in the outbox for MLflow'
            cand import 'Turn a scheduler''s finished jobs into records: Slurm (sacct) or Flux'
            cand mcp 'Serve exa''s read-only tools to AI agents over MCP (stdio, or streamable HTTP)'
            cand metrics 'Cluster GPU and host telemetry from Prometheus, and the flags it raises'
            cand validate 'How far a measurement is from a reference: a trace against a wall meter''s, BMC''s or DCGM''s series'
            cand completions 'Print shell completions for exa'
            cand man 'Print exa''s man page (roff), or a subcommand''s'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'exa;help;finops'= {
            cand carbon 'Energy and carbon: kWh and gCO2e'
            cand cost 'Money: USD from a rate card'
            cand measure 'Run a command (or watch the node) and measure its GPU energy, carbon and cost'
        }
        &'exa;help;finops;carbon'= {
            cand providers 'List the carbon providers, each with its kind, uncertainty and status'
            cand estimate 'Estimate energy (kWh) and carbon (gCO2e) of GPU and CPU hours'
            cand show 'Show a carbon provider: formulas, coefficients with defaults, metadata'
            cand record 'Estimate as `estimate` does and store the result as a record of MODEL'
            cand regions 'List the grid regions exa knows offline, each with its intensity, year and source'
            cand hardware 'List the GPU and CPU models exa knows the power of, each with its source (what hardware-aware prices by)'
            cand when 'The start, within a window, that gives a job of a known length the least carbon by the grid''s forecast'
        }
        &'exa;help;finops;carbon;providers'= {
        }
        &'exa;help;finops;carbon;estimate'= {
        }
        &'exa;help;finops;carbon;show'= {
        }
        &'exa;help;finops;carbon;record'= {
        }
        &'exa;help;finops;carbon;regions'= {
        }
        &'exa;help;finops;carbon;hardware'= {
        }
        &'exa;help;finops;carbon;when'= {
        }
        &'exa;help;finops;cost'= {
            cand providers 'List the cost providers (rate cards), each with its kind and status'
            cand estimate 'Estimate the cost (USD) of GPU and CPU hours'
            cand show 'Show a cost provider: formulas, coefficients with defaults, metadata'
            cand record 'Estimate as `estimate` does and store the result as a record of MODEL'
        }
        &'exa;help;finops;cost;providers'= {
        }
        &'exa;help;finops;cost;estimate'= {
        }
        &'exa;help;finops;cost;show'= {
        }
        &'exa;help;finops;cost;record'= {
        }
        &'exa;help;finops;measure'= {
        }
        &'exa;help;config'= {
            cand path 'Print where the config file is, and whether it exists'
            cand show 'Print the settings in effect, each with where it came from'
            cand init 'Write a commented starting config file'
        }
        &'exa;help;config;path'= {
        }
        &'exa;help;config;show'= {
        }
        &'exa;help;config;init'= {
        }
        &'exa;help;gpu'= {
            cand serve 'Serve the GPU, energy and CO2 metrics for a Prometheus scrape, until SIGTERM or Ctrl-C'
            cand export 'Push the GPU, energy and CO2 metrics over OTLP/HTTP every --interval seconds, until SIGTERM or Ctrl-C'
        }
        &'exa;help;gpu;serve'= {
        }
        &'exa;help;gpu;export'= {
        }
        &'exa;help;report'= {
        }
        &'exa;help;budget'= {
            cand set 'Keep a budget, or new terms for one of that name: a scope''s limits a period'
            cand list 'The budgets in effect, each with who set it and when; --history lists every change'
            cand rm 'End a budget. Its changes stay in the ledger (list --history)'
            cand status 'Each budget''s use this period: used, left and percent per unit, and when it runs out at the period''s pace and at the last 7 days'''
            cand check 'Whether the budgets of a scope (or one named) hold, with the work about to start added: exit 0 within, 1 past a warn line, 3 over; one line says which unit and by how much'
            cand notify 'Send each line a budget crossed this period (its warn lines and 100 %) to the webhook and the Alertmanager the config names, once: an event that could not be sent is kept and sent by the next run (exit 1 until then)'
        }
        &'exa;help;budget;set'= {
        }
        &'exa;help;budget;list'= {
        }
        &'exa;help;budget;rm'= {
        }
        &'exa;help;budget;status'= {
        }
        &'exa;help;budget;check'= {
        }
        &'exa;help;budget;notify'= {
        }
        &'exa;help;db'= {
            cand migrate 'Bring the database''s schema to this exa''s version, creating it when missing'
            cand copy 'Copy every record from one store into another, SQLite or PostgreSQL either way'
        }
        &'exa;help;db;migrate'= {
        }
        &'exa;help;db;copy'= {
        }
        &'exa;help;sync'= {
            cand mlflow 'Log to MLflow every record whose log is waiting in the outbox (MLflow was down, slow or refused)'
        }
        &'exa;help;sync;mlflow'= {
        }
        &'exa;help;import'= {
            cand slurm 'Finished Slurm jobs, from `sacct` (run here) or a saved `sacct -P` or `sacct --json` output'
            cand flux 'Finished Flux jobs, from `flux jobs` and each job''s R (run here) or a saved file'
            cand kubernetes 'Pods'' measured energy and time, day by day, from the Prometheus that scrapes `exa gpu serve --pods`'
        }
        &'exa;help;import;slurm'= {
        }
        &'exa;help;import;flux'= {
        }
        &'exa;help;import;kubernetes'= {
        }
        &'exa;help;mcp'= {
        }
        &'exa;help;metrics'= {
            cand clusters 'The clusters configured (clusters: in finops.yaml), with vendor and model'
            cand node 'Every reading of one node''s GPUs and host over the window'
            cand workload 'Where a workload ran over the window, and each node''s readings'
            cand flags 'Which conditions fired on a node or a workload, with the evidence'
            cand query 'One PromQL expression of your own (at most 4000 characters), over the window or at its end, on one cluster or, without --cluster, on every cluster configured (the organization)'
        }
        &'exa;help;metrics;clusters'= {
        }
        &'exa;help;metrics;node'= {
        }
        &'exa;help;metrics;workload'= {
        }
        &'exa;help;metrics;flags'= {
        }
        &'exa;help;metrics;query'= {
        }
        &'exa;help;validate'= {
        }
        &'exa;help;completions'= {
        }
        &'exa;help;man'= {
        }
        &'exa;help;help'= {
        }
    ]
    $completions[$command]
}
