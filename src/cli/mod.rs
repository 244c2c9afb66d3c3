//! The command line: clap definitions and nothing else.
//!
//! Doc comments here are the help text, the man pages and the completions.
//! No behaviour lives here beyond parsing single values.

mod values;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub use values::{amount, assignment, duration, job_id, per_unit, unit_count, unit_name, Assignment, WORK_UNITS};

/// exa: what GPU and CPU work costs in energy, carbon and money.
///
/// Estimates from GPU-hours and CPU-hours with a methodology you pick, and
/// says where every number came from. `exa -o json ...` prints JSON for
/// scripts.
#[derive(Debug, Clone, Parser)]
#[command(name = "exa", version, propagate_version = true, max_term_width = 100)]
#[command(
    after_help = "--db and --strict go here or after the commands that take them: --db after record, measure, report,\nimport, db migrate, sync and mcp; --strict after estimate, record, measure and config show.\n\nExit status: 0 success, 1 a request refused or failed, 2 a malformed command line, config or input."
)]
pub struct Cli {
    /// Output format: a table for people, or JSON for programs.
    #[arg(short = 'o', long = "output", value_enum, global = true, default_value_t = Format::Table)]
    pub output: Format,

    /// Same as `-o json`.
    #[arg(long, global = true)]
    pub json: bool,

    /// The config file [default: <config dir>/examlops/finops.yaml; env: EXAMLOPS_CONFIG].
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// `--db`: here, or after a command that keeps records (record, measure, report, import, db migrate, sync, mcp).
    #[command(flatten)]
    pub db: DbOpt,

    /// `--strict`: here, or after a command that chooses a provider (estimate, record, measure, config show).
    #[command(flatten)]
    pub strict: StrictOpt,

    #[command(subcommand)]
    pub command: Command,
}

pub use crate::model::Format;
use crate::model::{CoefficientOverride, Request};

#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Energy, carbon and cost of GPU and CPU work.
    #[command(subcommand)]
    Finops(Finops),
    /// Where the config file is, what is in effect, and a starting file.
    #[command(subcommand)]
    Config(ConfigCmd),
    /// One reading of every GPU (NVML, nvidia-smi or amd-smi), and the aggregates; or export them.
    ///
    /// The source is --gpu-source, else EXAMLOPS_GPU_SOURCE, else gpu.source
    /// in the config, else auto: NVML if libnvidia-ml loads, else the first
    /// nvidia-smi on PATH, else amd-smi. A value a device cannot report
    /// ([N/A]) is blank in the table and null in JSON, never 0. `exa gpu
    /// serve` and `exa gpu export` keep reading and export the GPU, energy and
    /// CO2 metrics to Prometheus or over OTLP.
    #[command(
        args_conflicts_with_subcommands = true,
        after_help = "Examples:\n  exa gpu\n  exa gpu --wide\n  exa gpu --gpu-source nvidia-smi\n  exa -o json gpu | jq '.devices[].power_w'\n  exa gpu serve --listen 127.0.0.1:9464\n  exa gpu export --otlp http://collector:4318"
    )]
    Gpu(GpuArgs),
    /// Totals of the stored records: runs, GPU-h, CPU-h, kWh, CO2e with its range, USD.
    ///
    /// A model (or a store) with no carbon records shows "not measured"
    /// (null in JSON), never 0. `-o csv` gives one row per group.
    /// `--format focus` writes FinOps FOCUS 1.2 cost rows instead (CSV, or
    /// JSON lines with `-o json`); `--html FILE` also writes a page with charts.
    #[command(
        after_help = "Examples:\n  exa report\n  exa report JPCP --since 2026-11-01 -o json\n  exa report --by day -o csv > carbon.csv\n  exa report --format focus --since 2026-11-01 > focus.csv\n  exa report --format focus -o json | jq -s 'map(.BilledCost) | add'\n  exa report --html report.html"
    )]
    Report(ReportArgs),
    /// Budgets: a team's kWh, kgCO2e and USD a period, kept in the ledger, watched and checked where work starts.
    ///
    /// A budget covers a scope (an account, user, model, namespace, a pod's
    /// label or annotation, or all) over a UTC day, week, month or quarter.
    /// What it used is what `exa report` counts for that scope. `status`
    /// forecasts when each limit runs out, at the period's pace and at the
    /// last 7 days'; `check` exits 0 within, 1 past a warn line, 3 over (2
    /// stays malformed input), for CI, Slurm prologs and admission webhooks.
    #[command(
        subcommand,
        after_help = "Examples:\n  exa budget set ml-gpu --scope account=ml --period month --kwh 5000 --usd 20000\n  exa budget status\n  exa budget check --scope account=ml --add-gpu-hours 64\n  exa budget list --history -o json"
    )]
    Budget(BudgetCmd),
    /// The records database: bring its schema up to date, copy records between stores.
    #[command(subcommand)]
    Db(DbCmd),
    /// Send what could not be sent: records waiting in the outbox for MLflow.
    #[command(subcommand)]
    Sync(SyncCmd),
    /// Turn a scheduler's finished jobs into records: Slurm (sacct) or Flux.
    ///
    /// One carbon and one cost record per finished allocation, priced by the
    /// resolved providers as `record` prices, run id `slurm:<cluster>:<jobid>`
    /// (or `flux:...`). Importing the same jobs again adds nothing.
    #[command(subcommand)]
    Import(ImportCmd),
    /// Serve exa's read-only tools to AI agents over MCP (stdio, or streamable HTTP).
    ///
    /// Tools: metrics_read, metrics_query, metrics_clusters, finops_estimate,
    /// finops_providers, finops_report and gpu_read, each answering with the
    /// same JSON as the CLI's `-o json`. None writes anything. Over HTTP
    /// (`--listen`) the endpoint is /mcp and every request must carry
    /// `Authorization: Bearer <token>`, the token read from EXAMLOPS_MCP_TOKEN
    /// (or the variable `mcp.token_env` names).
    #[command(
        after_help = "Examples:\n  exa mcp\n  exa mcp --listen 127.0.0.1:8765    # with EXAMLOPS_MCP_TOKEN set\n  claude mcp add exa -- exa mcp"
    )]
    Mcp(McpArgs),
    /// Cluster GPU and host telemetry from Prometheus, and the flags it raises.
    #[command(subcommand)]
    Metrics(MetricsCmd),
    /// How far a measurement is from a reference: a trace against a wall meter's, BMC's or DCGM's series.
    ///
    /// The trace is `exa finops measure --trace`'s. The reference is CSV with
    /// a header naming a time column (time, timestamp, unix: seconds since
    /// the epoch or RFC 3339), a power column (watts, power_w, power_mw,
    /// power_kw, DCGM_FI_DEV_POWER_USAGE) and optionally a device column
    /// (gpu, index, uuid: one GPU's series each; without it the reference is
    /// compared with every GPU together). The clocks' offset is found as the
    /// one that makes the two series most alike, unless --offset gives it.
    /// Energy is compared over windows of each --window length and over the
    /// whole run: mean absolute percentage error, bias and the worst window.
    /// A reference's drop-out is skipped, never read as zero watts.
    #[command(
        after_help = "Examples:\n  exa finops measure --trace run.jsonl -- python train.py\n  exa validate --trace run.jsonl --reference meter.csv\n  exa validate --trace run.jsonl --reference dcgm.csv --window 1,10,60,300 -o json | jq '.components[].bias_pct'\n  exa finops measure --node-source redfish --trace run.jsonl -- python train.py && exa validate --trace run.jsonl --reference redfish"
    )]
    Validate(ValidateArgs),
    /// Print shell completions for exa.
    #[command(
        after_help = "Examples:\n  exa completions bash > ~/.local/share/bash-completion/completions/exa\n  exa completions zsh > ~/.zfunc/_exa"
    )]
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print exa's man page (roff), or a subcommand's.
    #[command(after_help = "Examples:\n  exa man | man -l -\n  exa man finops carbon estimate | man -l -")]
    Man {
        /// A subcommand path, e.g. `finops carbon estimate`.
        command: Vec<String>,
    },
}

/// `exa gpu`: a reading, or an exporter.
#[derive(Debug, Clone, Args)]
pub struct GpuArgs {
    #[command(subcommand)]
    pub action: Option<GpuCmd>,

    /// Every column, however narrow the terminal (a narrow one shows the main ones; JSON has all).
    #[arg(long)]
    pub wide: bool,

    #[command(flatten)]
    pub gpu_source: GpuSourceOpt,
}

#[derive(Debug, Clone, Subcommand)]
pub enum GpuCmd {
    /// Serve the GPU, energy and CO2 metrics for a Prometheus scrape, until SIGTERM or Ctrl-C.
    ///
    /// The GPUs are read every --interval seconds; GET /metrics answers with
    /// the latest reading: OpenMetrics when the scraper's Accept asks for it
    /// (Prometheus does), the Prometheus text format 0.0.4 otherwise. A
    /// reading that failed, or readings that stopped after five failures in a
    /// row, leave the gauges out of the next scrape (a gap), never repeated.
    #[command(
        after_help = "Examples:\n  exa gpu serve\n  exa gpu serve --listen 0.0.0.0:9464 --interval 10\n  GENAI_ENABLE_CO2_TRACKING=true exa gpu serve --semconv genai\n  curl -s localhost:9464/metrics | grep gen_ai_gpu_power\n  NODE_NAME=gpu-07 exa gpu serve --pods --pod-label team    # in a pod: docs/kubernetes.md"
    )]
    Serve(GpuServe),
    /// Push the GPU, energy and CO2 metrics over OTLP/HTTP every --interval seconds, until SIGTERM or Ctrl-C.
    ///
    /// The URL is --otlp's, else OTEL_EXPORTER_OTLP_METRICS_ENDPOINT (as
    /// given), else OTEL_EXPORTER_OTLP_ENDPOINT plus /v1/metrics. Gauges use
    /// delta temporality, so a device nobody reads any more sends nothing.
    #[command(
        after_help = "Examples:\n  exa gpu export --otlp http://collector:4318\n  exa gpu export --otlp http://collector:4318 --interval 15 --co2\n  OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 exa gpu export --otlp --semconv hw"
    )]
    Export(GpuExport),
}

/// `--gpu-source`, on `exa gpu`, `measure` and the exporters.
#[derive(Debug, Clone, Default, Args)]
pub struct GpuSourceOpt {
    /// Where readings come from [default: auto; env: EXAMLOPS_GPU_SOURCE].
    #[arg(long, value_name = "SOURCE", value_parser = clap::builder::PossibleValuesParser::new(crate::model::gpu::GPU_CHOICES))]
    pub gpu_source: Option<String>,
}

/// HOST:PORT, the port a number.
fn host_port(s: &str) -> Result<String, String> {
    match s.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => Ok(s.to_string()),
        _ => Err(format!("'{}' is not HOST:PORT (127.0.0.1:9464, 0.0.0.0:9464)", s.escape_default())),
    }
}

/// What reading GPUs over time takes: `measure` and both exporters.
#[derive(Debug, Clone, Args)]
pub struct TelemetryOpts {
    /// Seconds between readings [default: 5; env: EXAMLOPS_GPU_INTERVAL, GENAI_GPU_COLLECTION_INTERVAL].
    #[arg(long, value_name = "SECONDS", value_parser = amount, allow_negative_numbers = true)]
    pub interval: Option<f64>,

    #[command(flatten)]
    pub gpu_source: GpuSourceOpt,

    /// Where CPU and memory energy is read: powercap (RAPL in sysfs), perf (the power PMU), or none [default: auto; env: EXAMLOPS_CPU_SOURCE; config: cpu.source].
    #[arg(long, value_name = "SOURCE", value_parser = clap::builder::PossibleValuesParser::new(crate::model::gpu::CPU_CHOICES))]
    pub cpu_source: Option<String>,

    /// Where the whole node's power is read: hwmon (the ACPI power meter), ipmi (the BMC through ipmitool), redfish (the BMC's chassis at EXAMLOPS_REDFISH_URL), or none [default: auto; env: EXAMLOPS_NODE_SOURCE; config: node.source].
    #[arg(long, value_name = "SOURCE", value_parser = clap::builder::PossibleValuesParser::new(crate::model::gpu::NODE_CHOICES))]
    pub node_source: Option<String>,

    /// The names of exported metrics: the spec's gen_ai.* or OpenTelemetry's hardware conventions (hw.*) [default: genai; env: EXAMLOPS_SEMCONV].
    #[arg(long, value_name = "SET", value_parser = ["genai", "hw"])]
    pub semconv: Option<String>,

    /// Electricity price in USD per kWh, for the cost of the measured energy; none without it [env: EXAMLOPS_POWER_COST_PER_KWH, GENAI_POWER_COST_PER_KWH].
    #[arg(long, value_name = "USD", value_parser = amount, allow_negative_numbers = true)]
    pub power_cost_per_kwh: Option<f64>,

    /// gCO2e per kWh for the exported gen_ai.co2.emissions [default: 475, a world average; env: EXAMLOPS_CARBON_INTENSITY, GENAI_CARBON_INTENSITY].
    #[arg(long, value_name = "G_PER_KWH", value_parser = amount, allow_negative_numbers = true)]
    pub carbon_intensity: Option<f64>,

    /// Export the CO2 metrics (energy times the intensity) [env: GENAI_ENABLE_CO2_TRACKING=true].
    #[arg(long)]
    pub co2: bool,
}

#[derive(Debug, Clone, Args)]
pub struct GpuServe {
    /// The address to listen on; the metrics are at /metrics.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9464", value_parser = host_port)]
    pub listen: String,

    /// Read an inference server's Prometheus metrics (vLLM, TGI, SGLang) every interval and export the GPUs' energy per output token.
    #[arg(long, value_name = "URL")]
    pub tokens_from: Option<String>,

    /// With --tokens-from: only this model's series (the server's model_name label).
    #[arg(long, value_name = "NAME", requires = "tokens_from")]
    pub tokens_model: Option<String>,

    /// Also serve the ledger's budgets (exa budget) as gauges, read every minute: exa_budget_limit, _used, _forecast. One exporter per ledger is enough.
    #[arg(long)]
    pub budgets: bool,

    #[command(flatten)]
    pub telemetry: TelemetryOpts,

    #[command(flatten)]
    pub pods: PodsOpts,
}

#[derive(Debug, Clone, Args)]
pub struct GpuExport {
    /// The OTLP/HTTP endpoint: a base URL (/v1/metrics is added) [env: OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, OTEL_EXPORTER_OTLP_ENDPOINT].
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "", required = true)]
    pub otlp: Option<String>,

    #[command(flatten)]
    pub telemetry: TelemetryOpts,

    #[command(flatten)]
    pub pods: PodsOpts,
}

/// A Kubernetes node's energy charged to its pods, on the exporters.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Kubernetes pods")]
pub struct PodsOpts {
    /// Charge the node's GPU, CPU and DRAM energy to its pods, and export it per pod [env: EXAMLOPS_PODS].
    #[arg(long)]
    pub pods: bool,

    /// Where the node's idle energy goes: none (its own series), even (equally to the pods), weighted (by their busy energy) [default: none; env: EXAMLOPS_POD_IDLE].
    #[arg(long, value_name = "POLICY", value_parser = ["none", "even", "weighted"])]
    pub pod_idle: Option<String>,

    /// A pod label exported on its exa_pod_info series (repeat, or comma-separate) [env: EXAMLOPS_POD_LABELS].
    #[arg(long, value_name = "KEY", value_delimiter = ',')]
    pub pod_label: Vec<String>,

    /// A pod annotation exported on its exa_pod_info series (repeat, or comma-separate) [env: EXAMLOPS_POD_ANNOTATIONS].
    #[arg(long, value_name = "KEY", value_delimiter = ',')]
    pub pod_annotation: Vec<String>,

    /// The kubelet's PodResources socket, which says who holds each GPU; `none` not to ask [default: /var/lib/kubelet/pod-resources/kubelet.sock; env: EXAMLOPS_POD_RESOURCES].
    #[arg(long, value_name = "SOCKET")]
    pub pod_resources: Option<String>,

    /// The Kubernetes API, which names the pods; `none` not to ask [default: in a pod, the cluster's; env: EXAMLOPS_KUBE_API].
    #[arg(long, value_name = "URL")]
    pub kube_api: Option<String>,
}

#[derive(Debug, Clone, Subcommand)]
pub enum Finops {
    /// Energy and carbon: kWh and gCO2e.
    #[command(subcommand)]
    Carbon(Carbon),
    /// Money: USD from a rate card.
    #[command(subcommand)]
    Cost(Cost),
    /// Run a command (or watch the node) and measure its GPU energy, carbon and cost.
    ///
    /// The GPUs read are the job's: --gpus, else CUDA_VISIBLE_DEVICES,
    /// NVIDIA_VISIBLE_DEVICES, SLURM_STEP_GPUS, SLURM_JOB_GPUS,
    /// ROCR_VISIBLE_DEVICES or HIP_VISIBLE_DEVICES, else all. They are read
    /// every --interval seconds (NVML, nvidia-smi or amd-smi, as `exa gpu`),
    /// from the start to a last reading when the command exits. A device's
    /// energy is its energy counter's increase where it has one (NVML on
    /// Volta and newer, AMD's accumulator), else the trapezoid rule between
    /// consecutive good power readings. CPU-hours are the command's own
    /// user + system time. The command's stdout and stderr
    /// pass through untouched; exa's report goes to stderr (stdout when no
    /// command is given), or to --report FILE. exa exits with the command's
    /// exit status.
    #[command(
        after_help = "Examples:\n  exa finops measure -- python train.py\n  exa finops measure --gpus 0,1 --gpu-source nvml -- torchrun train.py\n  exa finops measure --duration 10m\n  exa -o json finops measure --report run.json --interval 1 --trace run.jsonl -- ./bench.sh"
    )]
    Measure(Box<Measure>),
}

#[derive(Debug, Clone, Args)]
pub struct Measure {
    #[command(flatten)]
    pub db: DbOpt,

    #[command(flatten)]
    pub strict: StrictOpt,

    #[command(flatten)]
    pub telemetry: TelemetryOpts,

    /// The job's GPUs: indices, GPU- or MIG- UUIDs, comma-separated, or none [default: from CUDA_VISIBLE_DEVICES and the like, else all].
    #[arg(long, value_name = "LIST")]
    pub gpus: Option<String>,

    /// Without a command, measure the node this long (90s, 10m, 1.5h); Ctrl-C ends it early.
    #[arg(long, value_name = "DURATION", value_parser = duration, conflicts_with = "command")]
    pub duration: Option<std::time::Duration>,

    /// Write every sample to FILE as JSON lines, for plotting and re-analysis.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,

    /// Without a command: the run's CPU time is this process's (and its waited-for children's) user + system time over the run; the Python API passes its own. The run ends when the process does (a pid given to a later process is not it).
    #[arg(long, value_name = "PID", conflicts_with = "command")]
    pub pid: Option<u32>,

    /// Without a command: the job holds N CPUs here, and its CPU-hours are N times the run's length (core-hours, as a scheduler bills them; the Slurm prolog passes the job's).
    #[arg(long, value_name = "N", value_parser = values::cpus, conflicts_with_all = ["command", "pid"])]
    pub cpus: Option<f64>,

    /// The Slurm job whose processes are the job's on a shared GPU: those in its control group
    /// (`…/job_<ID>/…` in /proc/<pid>/cgroup), as the prolog measures a job it did not start.
    #[arg(long, value_name = "ID", value_parser = values::job_id, conflicts_with_all = ["command", "pid"])]
    pub slurm_job: Option<String>,

    /// Write the report to FILE instead of stderr (with a command) or stdout (without).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// Without a command: answer windows of the run on this Unix socket (private to you) for every process and rank of the job on this node, as the Python API's `Monitor` asks. The run ends when a client ends it (recording it, when asked), on Ctrl-C, or once no client has been connected for --linger.
    #[arg(long, value_name = "SOCKET", conflicts_with_all = ["command", "pid", "slurm_job"])]
    pub serve: Option<PathBuf>,

    /// With --serve: end the run once no client has been connected this long (from the start until the first comes) [default: 10s].
    #[arg(long, value_name = "DURATION", value_parser = duration, requires = "serve")]
    pub linger: Option<std::time::Duration>,

    /// On a GPU other processes share: where the device's idle energy goes. The job always gets its part of the busy energy by its SM activity (NVML); `none` charges it no idle, `even` an equal part among the processes seen, `by-activity` a part by its activity over the run.
    #[arg(long, value_name = "POLICY", value_enum, default_value_t)]
    pub idle_share: crate::model::gpu::IdlePolicy,

    /// With the node's meter: how the node's energy beyond the counters (fans, disks, NICs, the power supply's loss) becomes the job's. `measured` by its share of the node's measured energy; `allocation` by what it holds: with every GPU of the node read, all of the rest; with none, the CPUs it holds (--cpus) of the node's.
    #[arg(long, value_name = "POLICY", value_enum, default_value_t)]
    pub node_policy: crate::model::measurement::NodePolicy,

    /// The carbon provider for the measured energy (else env, config, default).
    #[arg(long, value_name = "NAME")]
    pub carbon_provider: Option<String>,

    /// The cost provider for the measured hours (else env, config, default).
    #[arg(long, value_name = "NAME")]
    pub cost_provider: Option<String>,

    /// The grid region whose intensity prices the measured energy: a country (FR), US state (US-VA), NERC or cloud region (aws:us-east-1) [env: EXAMLOPS_GRID_REGION; config: finops.carbon.grid.region].
    #[arg(long, value_name = "REGION")]
    pub region: Option<String>,

    /// Store the measured run's carbon and cost as records of MODEL.
    #[arg(long, value_name = "MODEL")]
    pub record: Option<String>,

    /// The run id for --record.
    #[arg(long, value_name = "ID", requires = "record")]
    pub run_id: Option<String>,

    /// --record's MODEL is a scheduler's job name as given: made a model name as `exa import slurm` makes one (control characters dropped, 200 characters at most, `(no name)` when empty), so both name the job alike.
    #[arg(long, requires = "record")]
    pub model_is_job_name: bool,

    /// Create an MLflow run in this experiment (made when missing), named after the command, and record under its id.
    #[arg(long, value_name = "NAME", requires = "record", conflicts_with = "run_id")]
    pub mlflow_experiment: Option<String>,

    /// The measured run is one part of the run's work (a node of a multi-node job), summed with its other parts.
    #[arg(long, requires = "run_id")]
    pub part: bool,

    #[command(flatten)]
    pub work: WorkOpts,

    /// Read an inference server's Prometheus metrics (vLLM, TGI, SGLang) at the start and end: the tokens and requests it served meanwhile.
    #[arg(long, value_name = "URL", conflicts_with_all = ["tokens", "prompt_tokens", "requests"])]
    pub tokens_from: Option<String>,

    /// With --tokens-from: only this model's series (the server's model_name label).
    #[arg(long, value_name = "NAME", requires = "tokens_from")]
    pub tokens_model: Option<String>,

    /// Who ran the work, kept on the records for `report --by user` (a scheduler's prolog passes the job's user).
    #[arg(long, value_name = "USER", requires = "record")]
    pub job_user: Option<String>,

    /// The account (bank) the work is charged to, kept on the records for `report --by account`.
    #[arg(long, value_name = "ACCOUNT", requires = "record")]
    pub job_account: Option<String>,

    /// The partition (queue) it ran in, kept on the records for `report --by partition`.
    #[arg(long, value_name = "PARTITION", requires = "record")]
    pub job_partition: Option<String>,

    /// Push the run's energy, cost and CO2 to this Prometheus Pushgateway at its end (a failed push is a warning).
    #[arg(long, value_name = "URL")]
    pub push_gateway: Option<String>,

    /// Send the run's energy, cost and CO2 over OTLP/HTTP at its end [URL, else OTEL_EXPORTER_OTLP_METRICS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT].
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    pub otlp: Option<String>,

    /// The command to run and measure, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<std::ffi::OsString>,
}

#[derive(Debug, Clone, Subcommand)]
pub enum Carbon {
    /// List the carbon providers, each with its kind, uncertainty and status.
    #[command(
        after_help = "Examples:\n  exa finops carbon providers\n  exa -o json finops carbon providers | jq -r '.providers[] | select(.status == \"ok\") | .name'"
    )]
    Providers,
    /// Estimate energy (kWh) and carbon (gCO2e) of GPU and CPU hours.
    ///
    /// The provider is --provider, else EXAMLOPS_CARBON_PROVIDER, else
    /// finops.carbon.provider in the config, else green-ai-default.
    /// Coefficients are the provider's defaults, then the config's, then flags.
    #[command(
        after_help = "Examples:\n  exa finops carbon estimate --cpu-hours 32\n  exa finops carbon estimate --gpu-hours 12 --provider ccf-like --pue 1.3\n  exa -o json finops carbon estimate --gpu-hours 12 | jq .outputs.co2e_g"
    )]
    Estimate(CarbonEstimate),
    /// Show a carbon provider: formulas, coefficients with defaults, metadata.
    #[command(
        after_help = "Examples:\n  exa finops carbon show codecarbon-like\n  exa -o json finops carbon show grid-live | jq .formulas"
    )]
    Show(Show),
    /// Estimate as `estimate` does and store the result as a record of MODEL.
    #[command(
        after_help = "Examples:\n  exa finops carbon record JPCP --cpu-hours 32 --run-id 3f2a9c\n  exa finops carbon record JPCP --gpu-hours 12"
    )]
    Record(CarbonRecord),
    /// List the grid regions exa knows offline, each with its intensity, year and source.
    #[command(
        after_help = "Examples:\n  exa finops carbon regions\n  exa finops carbon regions aws:\n  exa -o json finops carbon regions FR | jq '.regions[0].g_per_kwh'\n  exa finops carbon regions --sources"
    )]
    Regions(RegionsArgs),
    /// List the GPU and CPU models exa knows the power of, each with its source (what hardware-aware prices by).
    #[command(
        after_help = "Examples:\n  exa finops carbon hardware\n  exa finops carbon hardware h100\n  exa -o json finops carbon hardware 'EPYC 7763' | jq '.cpus[0].tdp_w'\n  exa finops carbon estimate --gpu-hours 8 --provider hardware-aware --gpu-model H100-SXM\n  exa finops carbon hardware --sources"
    )]
    Hardware(HardwareArgs),
    /// The start, within a window, that gives a job of a known length the least carbon by the grid's forecast.
    #[command(
        after_help = "Examples:\n  exa finops carbon when --duration 6h\n  exa finops carbon when --duration 90m --within 12h --power-w 2800\n  sbatch --begin=$(exa -o json finops carbon when --duration 6h | jq -r .best.begin) train.sh\n\nThe forecast comes from EXAMLOPS_GRID_FORECAST_URL or finops.carbon.grid.forecast_url ({zone} and {from} filled in), with the grid's zone, API and token: the UK National Grid (https://api.carbonintensity.org.uk/intensity/{from}/fw48h, no key), Electricity Maps, WattTime or the Carbon Aware SDK."
    )]
    When(WhenArgs),
}

/// `finops carbon when`.
#[derive(Debug, Clone, Args)]
pub struct WhenArgs {
    /// How long the job runs: 90m, 6h, 1.5d.
    #[arg(long, value_name = "DURATION")]
    pub duration: String,
    /// How far from now it may start [default: 24h].
    #[arg(long, value_name = "DURATION")]
    pub within: Option<String>,
    /// The job's mean power, watts, for its emissions in grams (without it, intensities only).
    #[arg(long, value_name = "WATTS")]
    pub power_w: Option<f64>,
    /// The grid whose forecast to read: a country (FR) or a cloud region outside the US (gcp:europe-west9), asked as
    /// its country's zone [default: the zone set (EXAMLOPS_GRID_INTENSITY_ZONE, finops.carbon.grid.zone), else the
    /// grid region set (EXAMLOPS_GRID_REGION, finops.carbon.grid.region)].
    #[arg(long, value_name = "REGION")]
    pub region: Option<String>,
}

/// `validate`.
#[derive(Debug, Clone, Args)]
pub struct ValidateArgs {
    /// Exa's trace of the run (`measure --trace FILE`), JSON lines.
    #[arg(long, value_name = "FILE")]
    pub trace: PathBuf,
    /// The reference's series, CSV with a header; or redfish, ipmi or hwmon: the node meter's readings the trace holds (measure --node-source with --trace), the whole node against the GPUs.
    #[arg(long, value_name = "FILE|redfish|ipmi|hwmon")]
    pub reference: PathBuf,
    /// The reference's clock minus exa's, seconds, when known [default: found within --max-offset].
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub offset: Option<f64>,
    /// How far apart the clocks may be, seconds, when the offset is found.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub max_offset: f64,
    /// The windows' lengths, seconds, comma-separated.
    #[arg(long, value_name = "SECONDS", value_delimiter = ',', default_values_t = [1.0, 10.0, 60.0])]
    pub window: Vec<f64>,
    /// Also write a page (self-contained HTML) plotting both series, aligned, with the errors' table.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// `finops carbon hardware`.
#[derive(Debug, Clone, Args)]
pub struct HardwareArgs {
    /// Only the models whose name (or a name it goes by) contains this, compared as exa compares models (any case,
    /// letters and digits): h100, mi300, "EPYC 7763".
    pub query: Option<String>,
    /// Print the tables' sources and licences instead.
    #[arg(long)]
    pub sources: bool,
}

/// `finops carbon regions`.
#[derive(Debug, Clone, Args)]
pub struct RegionsArgs {
    /// Only the regions whose name or place contains this (any case): FR, us-, aws:, Virginia.
    pub query: Option<String>,
    /// Print the tables' sources, licences and attribution instead.
    #[arg(long)]
    pub sources: bool,
}

#[derive(Debug, Clone, Args)]
pub struct Recording {
    /// The model (or project) the record belongs to, e.g. JPCP.
    pub model: String,

    /// The run this record belongs to (an MLflow run id, a job id); records of one run count as one run.
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,

    /// This record is one part of the run's work (a stage, a node), summed with the run's other
    /// parts; without it, a second record of the same kind for a run is the same work, counted once.
    #[arg(long, requires = "run_id")]
    pub part: bool,

    #[command(flatten)]
    pub work: WorkOpts,

    #[command(flatten)]
    pub db: DbOpt,
}

/// The work a run did, on the commands that keep records: summed in reports, for `report --per`.
#[derive(Debug, Clone, Default, Args)]
pub struct WorkOpts {
    /// Output tokens the work generated, kept on the record for `report --per token`.
    #[arg(long, value_name = "N", value_parser = values::whole, allow_negative_numbers = true)]
    pub tokens: Option<f64>,

    /// Prompt (input) tokens the work read, kept beside --tokens.
    #[arg(long, value_name = "N", value_parser = values::whole, allow_negative_numbers = true)]
    pub prompt_tokens: Option<f64>,

    /// Requests the work served, kept on the record for `report --per request`.
    #[arg(long, value_name = "N", value_parser = values::whole, allow_negative_numbers = true)]
    pub requests: Option<f64>,

    /// Work in a unit of your naming, NAME=N (images=5000), kept for `report --per NAME`.
    #[arg(long, value_name = "NAME=N", value_parser = unit_count, allow_negative_numbers = true)]
    pub unit: Option<(String, f64)>,
}

impl WorkOpts {
    /// The work as a record keeps it.
    pub fn work(&self) -> crate::model::Work {
        crate::model::Work { tokens: self.tokens, prompt_tokens: self.prompt_tokens, requests: self.requests, unit: self.unit.clone() }
    }
}

/// `--db`, on the commands that keep records.
#[derive(Debug, Clone, Default, Args)]
pub struct DbOpt {
    /// The records database: a SQLite file, a postgres:// URL or a libpq keyword string (host=… dbname=…) [default: <data dir>/examlops/records.sqlite3; env: EXAMLOPS_DB; config: db.url; each PostgreSQL exchange waits at most 30 s, EXAMLOPS_DB_TIMEOUT].
    #[arg(long = "db", value_name = "DB")]
    pub db: Option<PathBuf>,
}

/// `--strict`, on the commands that choose a provider.
#[derive(Debug, Clone, Default, Args)]
pub struct StrictOpt {
    /// Fail (exit 1) instead of falling back to the default provider [env: EXAMLOPS_STRICT=1].
    #[arg(long = "strict")]
    pub strict: bool,
}

#[derive(Debug, Clone, Args)]
pub struct CarbonRecord {
    #[command(flatten)]
    pub record: Recording,
    #[command(flatten)]
    pub estimate: CarbonEstimate,
}

#[derive(Debug, Clone, Args)]
pub struct CostRecord {
    #[command(flatten)]
    pub record: Recording,
    #[command(flatten)]
    pub estimate: CostEstimate,
}

#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// Only this model.
    pub model: Option<String>,

    #[command(flatten)]
    pub db: DbOpt,

    /// Group by model, run, provider, day (UTC), user, account, partition, namespace, or a pod's tag: label:KEY or
    /// annotation:KEY (records without one are "(none)").
    #[arg(long, value_name = "BY", value_parser = GroupByParser, default_value = "model")]
    pub by: GroupBy,

    /// Records from this UTC date or time on (2026-11-01, 2026-11-01T12:00:00Z).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Records before this UTC time; a date alone includes that whole day.
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,

    /// totals (grouped, the default) or focus: FinOps FOCUS 1.2 cost rows, one per run and resource.
    #[arg(long, value_enum, default_value_t = ReportFormat::Totals)]
    pub format: ReportFormat,

    /// Figures per unit of work, with SCI's terms (E, I, M, R): token, request, run, or a unit of your
    /// naming (--unit images=N); only runs that counted it.
    #[arg(long, value_name = "UNIT", value_parser = per_unit)]
    pub per: Option<String>,

    /// Also write a self-contained HTML page with charts of energy, CO2e and cost to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Subcommand)]
pub enum BudgetCmd {
    /// Keep a budget, or new terms for one of that name: a scope's limits a period.
    #[command(
        after_help = "Examples:\n  exa budget set ml-gpu --scope account=ml --period month --kwh 5000 --kgco2e 1500 --usd 20000\n  exa budget set nlp-week --scope label:team=nlp --period week --usd 3000 --warn 50,80,95"
    )]
    Set(BudgetSet),
    /// The budgets in effect, each with who set it and when; --history lists every change.
    #[command(
        after_help = "Examples:\n  exa budget list\n  exa budget list --history -o json | jq '.changes[] | select(.action == \"removed\")'"
    )]
    List {
        /// Every change, oldest first: set, replaced, removed, by whom and when.
        #[arg(long)]
        history: bool,
        #[command(flatten)]
        db: DbOpt,
    },
    /// End a budget. Its changes stay in the ledger (list --history).
    #[command(after_help = "Examples:\n  exa budget rm ml-gpu\n  exa budget rm ml-gpu --db postgres://exa@db.internal/finops")]
    Rm {
        /// The budget's name.
        name: String,
        #[command(flatten)]
        db: DbOpt,
    },
    /// Each budget's use this period: used, left and percent per unit, and when it runs out at the period's pace
    /// and at the last 7 days'.
    #[command(after_help = "Examples:\n  exa budget status\n  exa budget status ml-gpu --at 2026-11-30T23:59:59Z -o json")]
    Status {
        /// One budget; every one when not given.
        name: Option<String>,
        /// As of this time (ISO 8601 UTC, or a date: its midnight): the records before it, in the period holding it [default: now].
        #[arg(long, value_name = "TIME")]
        at: Option<String>,
        #[command(flatten)]
        db: DbOpt,
    },
    /// Whether the budgets of a scope (or one named) hold, with the work about to start added: exit 0 within,
    /// 1 past a warn line, 3 over; one line says which unit and by how much.
    #[command(
        group(clap::ArgGroup::new("which").required(true).multiple(true).args(["name", "scopes"])),
        after_help = "Examples:\n  exa budget check --scope account=ml --add-gpu-hours 64\n  exa budget check --scope account=\"$SLURM_JOB_ACCOUNT\" --scope user=\"$SLURM_JOB_USER\"\n  exa budget check ml-gpu --advise-only -o json"
    )]
    Check(BudgetCheckArgs),
    /// Send each line a budget crossed this period (its warn lines and 100 %) to the webhook and the Alertmanager
    /// the config names, once: an event that could not be sent is kept and sent by the next run (exit 1 until then).
    #[command(
        after_help = "Examples:\n  exa budget notify            # from cron or a systemd timer, after imports\n  exa budget notify -o json | jq '.events[] | select(.outcome == \"failed\")'\n\nConfig (finops.budgets):\n  webhook: {url: https://hooks.example/exa, secret_env: EXA_BUDGET_HMAC}   # each body signed: X-Exa-Signature-256\n  alertmanager: {url: http://alertmanager:9093}"
    )]
    Notify {
        /// As of this time (ISO 8601 UTC, or a date: its midnight) [default: now].
        #[arg(long, value_name = "TIME")]
        at: Option<String>,
        #[command(flatten)]
        db: DbOpt,
    },
}

/// `exa budget set`.
#[derive(Debug, Clone, Args)]
pub struct BudgetSet {
    /// The budget's name: 1 to 64 letters, digits, '.', '_' or '-'.
    pub name: String,
    /// Whose work: all, account=A, user=U, model=M, namespace=N, label:KEY=V or annotation:KEY=V.
    #[arg(long, value_name = "SCOPE", value_parser = budget_scope)]
    pub scope: crate::model::budget::Scope,
    /// The period each allowance covers, in UTC (a week from Monday).
    #[arg(long, value_enum)]
    pub period: crate::model::budget::Period,
    /// The most energy a period, kWh.
    #[arg(long, value_name = "KWH", value_parser = amount, allow_negative_numbers = true)]
    pub kwh: Option<f64>,
    /// The most operational CO2e a period, kg.
    #[arg(long, value_name = "KG", value_parser = amount, allow_negative_numbers = true)]
    pub kgco2e: Option<f64>,
    /// The most cost a period, USD.
    #[arg(long, value_name = "USD", value_parser = amount, allow_negative_numbers = true)]
    pub usd: Option<f64>,
    /// The lines, percent of a limit, past which it warns (status, check's exit 1).
    #[arg(long, value_name = "PERCENTS", value_delimiter = ',', default_value = "80,95", value_parser = amount, allow_negative_numbers = true)]
    pub warn: Vec<f64>,
    #[command(flatten)]
    pub db: DbOpt,
}

/// `exa budget check`.
#[derive(Debug, Clone, Args)]
pub struct BudgetCheckArgs {
    /// One budget by name.
    pub name: Option<String>,
    /// The budgets of this scope (repeat for a job's account and user): as `set --scope` names them.
    #[arg(long = "scope", value_name = "SCOPE", value_parser = budget_scope)]
    pub scopes: Vec<crate::model::budget::Scope>,
    /// GPU-hours about to start, priced by the carbon and cost providers in effect and added.
    #[arg(long, value_name = "HOURS", value_parser = amount, allow_negative_numbers = true)]
    pub add_gpu_hours: Option<f64>,
    /// CPU-hours about to start, added as --add-gpu-hours is.
    #[arg(long, value_name = "HOURS", value_parser = amount, allow_negative_numbers = true)]
    pub add_cpu_hours: Option<f64>,
    /// As of this time (ISO 8601 UTC, or a date: its midnight): the records before it [default: now].
    #[arg(long, value_name = "TIME")]
    pub at: Option<String>,
    /// Say the verdict, never fail on it: exit 0 within, past a line or over.
    #[arg(long)]
    pub advise_only: bool,
    #[command(flatten)]
    pub db: DbOpt,
}

fn budget_scope(s: &str) -> Result<crate::model::budget::Scope, String> {
    crate::model::budget::Scope::parse(s)
}

#[derive(Debug, Clone, Subcommand)]
pub enum DbCmd {
    /// Bring the database's schema to this exa's version, creating it when missing.
    ///
    /// Record and measure migrate on their own; this is for doing it ahead of
    /// time, for example before many jobs start writing to a new PostgreSQL.
    #[command(after_help = "Examples:\n  exa db migrate\n  exa db migrate --db postgres://exa@db.internal/finops")]
    Migrate(DbOpt),
    /// Copy every record from one store into another, SQLite or PostgreSQL either way.
    ///
    /// Records keep their idempotency keys, so running it twice (or after an
    /// interrupted run) copies nothing twice.
    #[command(
        after_help = "Examples:\n  exa db copy --from ~/.local/share/examlops/records.sqlite3 --to \"$EXAMLOPS_DB\"\n  exa db copy --from postgres://exa@db.internal/finops --to backup.sqlite3"
    )]
    Copy {
        /// The store to read: a SQLite file or a postgres:// URL.
        #[arg(long, value_name = "DB")]
        from: String,
        /// The store to write: a SQLite file or a postgres:// URL (made and migrated when missing).
        #[arg(long, value_name = "DB")]
        to: String,
    },
}

#[derive(Debug, Clone, Subcommand)]
pub enum SyncCmd {
    /// Log to MLflow every record whose log is waiting in the outbox (MLflow was down, slow or refused).
    #[command(after_help = "Examples:\n  exa sync mlflow\n  exa -o json sync mlflow | jq .still_waiting")]
    Mlflow(DbOpt),
}

#[derive(Debug, Clone, clap::Args)]
pub struct McpArgs {
    /// Serve streamable HTTP on ADDR (host:port) at /mcp instead of stdio; loopback unless you name another address.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8765")]
    pub listen: Option<String>,

    #[command(flatten)]
    pub db: DbOpt,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Totals per group.
    Totals,
    /// FinOps FOCUS 1.2 rows: CSV, or JSON lines with -o json.
    Focus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    Model,
    Run,
    Provider,
    Day,
    /// The scheduler's user of an imported job; "(none)" for other records.
    User,
    /// The scheduler's account (bank) of an imported job.
    Account,
    /// The scheduler's partition (Flux: queue) of an imported job.
    Partition,
    /// A pod's Kubernetes namespace (`import kubernetes`).
    Namespace,
    /// A pod's label or annotation, `label:team` (a key `model::tags::key` checked and kept).
    Tag(&'static str),
}

impl GroupBy {
    /// The groupings by name, beside `label:KEY` and `annotation:KEY`.
    pub const NAMED: [(&'static str, GroupBy); 8] = [
        ("model", GroupBy::Model),
        ("run", GroupBy::Run),
        ("provider", GroupBy::Provider),
        ("day", GroupBy::Day),
        ("user", GroupBy::User),
        ("account", GroupBy::Account),
        ("partition", GroupBy::Partition),
        ("namespace", GroupBy::Namespace),
    ];
}

/// `--by`'s parser: `group_by`, with the named groupings offered to help and completions.
#[derive(Debug, Clone, Copy)]
pub struct GroupByParser;

impl clap::builder::TypedValueParser for GroupByParser {
    type Value = GroupBy;

    fn parse_ref(&self, cmd: &clap::Command, arg: Option<&clap::Arg>, value: &std::ffi::OsStr) -> Result<GroupBy, clap::Error> {
        clap::builder::TypedValueParser::parse_ref(&clap::builder::StringValueParser::new().try_map(|s| group_by(&s)), cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(GroupBy::NAMED.iter().map(|(n, _)| clap::builder::PossibleValue::new(n))))
    }
}

/// `--by`: one of `GroupBy::NAMED`, or `label:KEY` / `annotation:KEY`.
pub fn group_by(s: &str) -> Result<GroupBy, String> {
    if let Some((_, by)) = GroupBy::NAMED.iter().find(|(n, _)| *n == s) {
        return Ok(*by);
    }
    if s.contains(':') {
        return crate::model::tags::key(s).map(GroupBy::Tag);
    }
    let names: Vec<&str> = GroupBy::NAMED.iter().map(|(n, _)| *n).collect();
    Err(format!("'{}' is not a grouping: {}, label:KEY or annotation:KEY", crate::text::clean(s), names.join(", ")))
}

#[derive(Debug, Clone, Subcommand)]
pub enum ImportCmd {
    /// Finished Slurm jobs, from `sacct` (run here) or a saved `sacct -P` or `sacct --json` output.
    ///
    /// GPU-hours are the allocated GPUs (AllocTRES gres/gpu) times the
    /// elapsed time; CPU-hours are CPUTimeRAW / 3600. Job steps are parts of
    /// their allocation and are not counted again; array tasks and
    /// heterogeneous components are each an allocation; every run of a
    /// requeued job counts. Pending and running jobs are skipped, and so is
    /// a job cancelled before it started. Without --since, the import goes on
    /// from the newest job this cluster's last import stored.
    #[command(
        after_help = "Examples:\n  exa import slurm --since 2026-11-01\n  exa import slurm --file sacct.txt --cluster hpc1\n  sacct -a -P -X -D --format=ALL -S 2026-11-01 | exa import slurm --file - --cluster hpc1\n  exa import slurm --model-from account --dry-run -o json\n  exa report --by account --since 2026-11-01"
    )]
    Slurm(SlurmImport),
    /// Finished Flux jobs, from `flux jobs` and each job's R (run here) or a saved file.
    ///
    /// GPU-hours are the GPUs in the job's R (its R_lite children) times its
    /// runtime; CPU-hours are its cores times its runtime. A saved file holds
    /// `flux jobs -a -A --json` output, or one job per line, each with its R
    /// under the key "R" (see the docs for a one-liner that adds it).
    #[command(after_help = "Examples:\n  exa import flux --since -7d\n  exa import flux --file jobs.jsonl --cluster tioga --dry-run")]
    Flux(FluxImport),
    /// Pods' measured energy and time, day by day, from the Prometheus that scrapes `exa gpu serve --pods`.
    ///
    /// One carbon and one cost record per pod per finished UTC day, measured:
    /// its GPU energy over the GPU-hours the kubelet gave it, its CPU and DRAM
    /// energy over the CPU-hours it used, counted hour by hour from the
    /// exporter's counters; carbon at each hour's grid intensity with
    /// --grid-history. Run id `k8s:<cluster>:<namespace>/<pod>@<day>#<uid8>`, model
    /// the namespace unless --model; the pod's labels and annotations kept as
    /// tags (`report --by label:team`). Today is never imported (it is not
    /// over); importing a day again adds nothing.
    #[command(
        after_help = "Examples:\n  exa import kubernetes --cluster prod --prometheus http://prometheus.monitoring:9090 --since 2026-11-01\n  exa import kubernetes --cluster prod --dry-run -o json | jq '.pods[] | {namespace, pod, co2e_g}'\n  exa report --by namespace --since 2026-11-01\n  exa report --by label:team"
    )]
    Kubernetes(KubeImport),
}

#[derive(Debug, Clone, Args)]
pub struct KubeImport {
    /// The cluster's name, in run ids and keys; one configured under clusters: in finops.yaml also gives the
    /// Prometheus to read, its token and its labels.
    #[arg(long, value_name = "NAME")]
    pub cluster: String,

    /// The Prometheus that scrapes the exporters: its HTTP API's base URL [default: the configured cluster's].
    #[arg(long, value_name = "URL")]
    pub prometheus: Option<String>,

    /// The first UTC day to import (2026-11-01, or an age: -7d) [default: the day after this cluster's last
    /// import, else yesterday].
    #[arg(long, value_name = "WHEN", allow_hyphen_values = true)]
    pub since: Option<String>,

    /// The last day to import, whole (a date), or the day before WHEN [default: yesterday; today is never imported].
    #[arg(long, value_name = "WHEN", allow_hyphen_values = true)]
    pub until: Option<String>,

    /// The model every pod's records are kept under [default: its namespace].
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,

    /// Show what would be recorded, pod by pod and day by day (`pods` in JSON), and write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Price each pod-day's carbon at the grid's history, each hour weighed by the pod's energy in it
    /// (EXAMLOPS_GRID_HISTORY_URL).
    #[arg(long)]
    pub grid_history: bool,

    /// The carbon provider that prices the pods (else env, config, default).
    #[arg(long, value_name = "NAME")]
    pub carbon_provider: Option<String>,

    /// The cost provider that prices the pods (else env, config, default).
    #[arg(long, value_name = "NAME")]
    pub cost_provider: Option<String>,

    #[command(flatten)]
    pub db: DbOpt,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModelFrom {
    /// The job's name.
    Jobname,
    /// The job's account (Slurm).
    Account,
    /// The job's workload characterization key (Slurm --wckey).
    Wckey,
    /// The job's comment (Slurm --comment; kept when AccountingStoreFlags has job_comment).
    Comment,
}

/// What every importer takes.
#[derive(Debug, Clone, Args)]
pub struct ImportArgs {
    /// Jobs that ended at or after WHEN: a UTC date or time (2026-11-01, 2026-11-01T12:00:00Z) or an age (-7d, -12h, -30m).
    /// Default: where the last import of this cluster stopped.
    #[arg(long, value_name = "WHEN", allow_hyphen_values = true)]
    pub since: Option<String>,

    /// Jobs that ended before WHEN (same forms as --since); a date alone includes that whole day.
    #[arg(long, value_name = "WHEN", allow_hyphen_values = true)]
    pub until: Option<String>,

    /// Read the jobs from FILE (`-` for standard input) instead of asking the scheduler.
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// The cluster's name, for run ids and the watermark [default: the jobs' own (Slurm), or this host's name (Flux)].
    #[arg(long, value_name = "NAME")]
    pub cluster: Option<String>,

    /// The model every imported job is recorded under.
    #[arg(long, value_name = "NAME", conflicts_with = "model_from")]
    pub model: Option<String>,

    /// Which field of a job names its model.
    #[arg(long, value_enum, value_name = "FIELD", default_value_t = ModelFrom::Jobname)]
    pub model_from: ModelFrom,

    /// Show what would be recorded, job by job (`jobs` in JSON), and write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Skip malformed lines (each named in the answer) instead of importing nothing from the file.
    #[arg(long)]
    pub skip_bad: bool,

    /// Price each job at the grid's intensity over its own start to end, from the history endpoint
    /// (EXAMLOPS_GRID_HISTORY_URL): one request per zone and UTC day, cached, not one per job.
    #[arg(long)]
    pub grid_history: bool,

    /// The carbon provider that prices the jobs (else env, config, default).
    #[arg(long, value_name = "NAME")]
    pub carbon_provider: Option<String>,

    /// The cost provider that prices the jobs (else env, config, default).
    #[arg(long, value_name = "NAME")]
    pub cost_provider: Option<String>,

    #[command(flatten)]
    pub db: DbOpt,
}

#[derive(Debug, Clone, Args)]
pub struct SlurmImport {
    #[command(flatten)]
    pub common: ImportArgs,

    /// The jobs held whole nodes (the partition is OverSubscribe=EXCLUSIVE, or --exclusive everywhere), so Slurm's
    /// node energy (ConsumedEnergyRaw) is the job's own and is kept; otherwise energy is not measured.
    #[arg(long)]
    pub exclusive: bool,
}

#[derive(Debug, Clone, Args)]
pub struct FluxImport {
    #[command(flatten)]
    pub common: ImportArgs,
}

#[derive(Debug, Clone, Subcommand)]
pub enum Cost {
    /// List the cost providers (rate cards), each with its kind and status.
    #[command(after_help = "Examples:\n  exa finops cost providers\n  exa -o json finops cost providers | jq -r .default")]
    Providers,
    /// Estimate the cost (USD) of GPU and CPU hours.
    ///
    /// The provider is --provider, else EXAMLOPS_COST_PROVIDER, else
    /// finops.cost.provider in the config, else flat-rate.
    #[command(
        after_help = "Examples:\n  exa finops cost estimate --gpu-hours 150 --provider tiered-example\n  exa finops cost estimate --gpu-hours 12 --cpu-hours 32 --gpu-rate 3.10"
    )]
    Estimate(CostEstimate),
    /// Show a cost provider: formulas, coefficients with defaults, metadata.
    #[command(
        after_help = "Examples:\n  exa finops cost show tiered-example\n  exa -o json finops cost show flat-rate | jq .coefficients"
    )]
    Show(Show),
    /// Estimate as `estimate` does and store the result as a record of MODEL.
    #[command(
        after_help = "Examples:\n  exa finops cost record JPCP --gpu-hours 12 --cpu-hours 32\n  exa finops cost record JPCP --gpu-hours 150 --provider tiered-example --run-id 3f2a9c"
    )]
    Record(CostRecord),
}

#[derive(Debug, Clone, Args)]
pub struct Show {
    /// The provider's name, or a path to a provider file or plugin.
    pub name: String,
}

/// What every estimate takes.
#[derive(Debug, Clone, Args)]
pub struct Hours {
    /// GPU-hours of the work (device-hours: 2 GPUs for 6 hours is 12).
    #[arg(long, value_name = "HOURS", value_parser = amount, allow_negative_numbers = true)]
    pub gpu_hours: Option<f64>,

    /// CPU-core-hours of the work, as the scheduler reports them.
    #[arg(long, value_name = "HOURS", value_parser = amount, allow_negative_numbers = true)]
    pub cpu_hours: Option<f64>,

    /// The provider: a name from `providers`, or a path to a provider file or plugin.
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,

    #[command(flatten)]
    pub strict: StrictOpt,

    /// Set any coefficient of the provider, e.g. --set ram_gb=64 (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = assignment, allow_negative_numbers = true)]
    pub set: Vec<Assignment>,
}

#[derive(Debug, Clone, Args)]
pub struct CarbonEstimate {
    #[command(flatten)]
    pub hours: Hours,

    /// Data-centre PUE (coefficient pue).
    #[arg(long, value_name = "RATIO", value_parser = amount, allow_negative_numbers = true)]
    pub pue: Option<f64>,

    /// Power of one GPU board in watts (coefficient gpu_tdp_watts).
    #[arg(long, value_name = "WATTS", value_parser = amount, allow_negative_numbers = true)]
    pub gpu_tdp: Option<f64>,

    /// Power per CPU-hour in watts (coefficient cpu_tdp_watts).
    #[arg(long, value_name = "WATTS", value_parser = amount, allow_negative_numbers = true)]
    pub cpu_tdp: Option<f64>,

    /// Grid carbon intensity in gCO2e/kWh (coefficient grid_intensity_g_per_kwh).
    #[arg(long, value_name = "G_PER_KWH", value_parser = amount, allow_negative_numbers = true)]
    pub grid_intensity: Option<f64>,

    /// GPU energy measured elsewhere (DCGM, a PDU) over --gpu-hours; its mean power replaces gpu_tdp_watts.
    #[arg(long, value_name = "KWH", value_parser = amount, allow_negative_numbers = true)]
    pub gpu_kwh: Option<f64>,

    /// CPU and memory energy measured elsewhere (RAPL, a PDU) over --cpu-hours; its mean power replaces cpu_tdp_watts.
    #[arg(long, value_name = "KWH", value_parser = amount, allow_negative_numbers = true)]
    pub cpu_kwh: Option<f64>,

    /// The grid region whose intensity to use: a country (FR, FRA), a US state (US-VA), a NERC region (SERC) or a cloud region (aws:us-east-1) [env: EXAMLOPS_GRID_REGION; config: finops.carbon.grid.region; list: exa finops carbon regions].
    #[arg(long, value_name = "REGION")]
    pub region: Option<String>,

    /// The GPU model (H100-SXM, "NVIDIA L4", MI300X): a provider that prices by model (hardware-aware) takes its board power [list: exa finops carbon hardware].
    #[arg(long, value_name = "MODEL")]
    pub gpu_model: Option<String>,

    /// The CPU model ("EPYC 7763", "Xeon Platinum 8380"), with --cpu-cores: a provider that prices by model takes a core's power as its TDP over its cores.
    #[arg(long, value_name = "MODEL", requires = "cpu_cores")]
    pub cpu_model: Option<String>,

    /// The CPU model's CPUs a socket, as the CPU-hours count them (threads, where they count threads): --cpu-model's TDP is the socket's.
    #[arg(long, value_name = "CPUS", value_parser = values::socket_cpus, requires = "cpu_model")]
    pub cpu_cores: Option<f64>,
}

#[derive(Debug, Clone, Args)]
pub struct CostEstimate {
    #[command(flatten)]
    pub hours: Hours,

    /// Price of one GPU-hour in USD (coefficient gpu_rate).
    #[arg(long, value_name = "USD", value_parser = amount, allow_negative_numbers = true)]
    pub gpu_rate: Option<f64>,

    /// Price of one CPU-hour in USD (coefficient cpu_rate).
    #[arg(long, value_name = "USD", value_parser = amount, allow_negative_numbers = true)]
    pub cpu_rate: Option<f64>,
}

impl CarbonEstimate {
    /// The request these flags make: hours, a measured energy, and each coefficient set here with the flag that set it.
    pub fn request(&self) -> Request {
        let mut req = self.hours.request();
        req.gpu_kwh = self.gpu_kwh;
        req.cpu_kwh = self.cpu_kwh;
        req.region = self.region.clone();
        req.gpu_model = self.gpu_model.clone();
        req.cpu_model = self.cpu_model.clone().map(|m| (m, self.cpu_cores));
        let named = [
            ("pue", self.pue, "--pue"),
            ("gpu_tdp_watts", self.gpu_tdp, "--gpu-tdp"),
            ("cpu_tdp_watts", self.cpu_tdp, "--cpu-tdp"),
            ("grid_intensity_g_per_kwh", self.grid_intensity, "--grid-intensity"),
        ];
        self.hours.add_flags(&mut req, &named);
        req
    }
}

impl CostEstimate {
    /// The request these flags make.
    pub fn request(&self) -> Request {
        let mut req = self.hours.request();
        self.hours.add_flags(&mut req, &[("gpu_rate", self.gpu_rate, "--gpu-rate"), ("cpu_rate", self.cpu_rate, "--cpu-rate")]);
        req
    }
}

impl Hours {
    fn request(&self) -> Request {
        Request {
            gpu_hours: self.gpu_hours,
            cpu_hours: self.cpu_hours,
            gpu_kwh: None,
            cpu_kwh: None,
            provider: self.provider.clone(),
            region: None,
            overrides: Vec::new(),
            history: None,
            gpu_name: None,
            gpu_model: None,
            cpu_model: None,
            cpu_name: None,
        }
    }

    /// Adds the named coefficient flags that were given, then every `--set NAME=VALUE`.
    fn add_flags(&self, req: &mut Request, named: &[(&str, Option<f64>, &str)]) {
        for (coef, v, flag) in named {
            if let Some(v) = v {
                req.overrides.push(CoefficientOverride::new(*coef, *v, *flag));
            }
        }
        for a in &self.set {
            req.overrides.push(CoefficientOverride::new(a.name.clone(), a.value, format!("--set {}", a.name)));
        }
    }
}

#[derive(Debug, Clone, Subcommand)]
pub enum ConfigCmd {
    /// Print where the config file is, and whether it exists.
    #[command(after_help = "Examples:\n  exa config path\n  $EDITOR \"$(exa -o json config path | jq -r .path)\"")]
    Path,
    /// Print the settings in effect, each with where it came from.
    #[command(after_help = "Examples:\n  exa config show\n  exa -o json config show | jq .carbon.coefficients")]
    Show(StrictOpt),
    /// Write a commented starting config file.
    #[command(after_help = "Examples:\n  exa config init\n  exa config init --force")]
    Init {
        /// Replace an existing file.
        #[arg(long)]
        force: bool,
    },
}

#[derive(Debug, Clone, Subcommand)]
pub enum MetricsCmd {
    /// The clusters configured (clusters: in finops.yaml), with vendor and model.
    #[command(after_help = "Examples:\n  exa metrics clusters\n  exa -o json metrics clusters | jq -r '.clusters[].name'")]
    Clusters,
    /// Every reading of one node's GPUs and host over the window.
    #[command(
        after_help = "Examples:\n  exa metrics node --cluster aurora-prod --node aurora-prod-n2 --range 6h\n  exa -o json metrics node --cluster aurora-prod --node aurora-prod-n2 --detail summary | jq .gpus"
    )]
    Node {
        /// The cluster to read, as named under clusters: in finops.yaml (`exa metrics clusters` lists them).
        #[arg(long)]
        cluster: Option<String>,
        /// The node, as the cluster's node label names it.
        #[arg(long)]
        node: Option<String>,
        #[command(flatten)]
        window: WindowOpts,
        /// summary (mean, min, max) or series [default: series].
        #[arg(long)]
        detail: Option<String>,
    },
    /// Where a workload ran over the window, and each node's readings.
    #[command(
        after_help = "Examples:\n  exa metrics workload --cluster aurora-prod --kind Job --name train-llm\n  exa metrics workload --cluster aurora-prod --kind Deployment --namespace serving --name llm-api --range 24h"
    )]
    Workload {
        /// The cluster to read, as named under clusters: in finops.yaml (`exa metrics clusters` lists them).
        #[arg(long)]
        cluster: Option<String>,
        #[command(flatten)]
        workload: WorkloadOpts,
        #[command(flatten)]
        window: WindowOpts,
        /// summary (mean, min, max) or series [default: summary].
        #[arg(long)]
        detail: Option<String>,
    },
    /// Which conditions fired on a node or a workload, with the evidence.
    #[command(
        after_help = "Examples:\n  exa metrics flags --cluster aurora-prod --kind Job --name train-llm --range 1h\n  exa metrics flags --cluster aurora-prod --node aurora-prod-n2"
    )]
    Flags {
        /// The cluster to read, as named under clusters: in finops.yaml (`exa metrics clusters` lists them).
        #[arg(long)]
        cluster: Option<String>,
        /// A node (or give --kind and --name).
        #[arg(long)]
        node: Option<String>,
        /// The workload's kind: Job, JobSet, MPIJob, Deployment, StatefulSet or Pod (with --name).
        #[arg(long)]
        kind: Option<String>,
        /// The workload's name (with --kind).
        #[arg(long)]
        name: Option<String>,
        /// The workload's namespace.
        #[arg(long, default_value = "default")]
        namespace: String,
        #[command(flatten)]
        window: WindowOpts,
        /// summary, the only detail flags have: a flag carries its evidence (read the node with --detail series for the curves).
        #[arg(long)]
        detail: Option<String>,
    },
    /// One PromQL expression of your own (at most 4000 characters), over the window or at its end,
    /// on one cluster or, without --cluster, on every cluster configured (the organization).
    #[command(
        after_help = "Examples:\n  exa metrics query --cluster aurora-prod 'avg by (instance) (DCGM_FI_DEV_POWER_USAGE)'\n  exa metrics query --cluster aurora-prod --instant 'count(DCGM_FI_DEV_GPU_TEMP)'\n  exa -o json metrics query --instant 'count(DCGM_FI_DEV_GPU_TEMP)' | jq '.series[] | {cluster, value}'"
    )]
    Query {
        /// The cluster to read, as named under clusters: in finops.yaml; every cluster when unset.
        #[arg(long)]
        cluster: Option<String>,
        /// One value per series at the window's end, instead of a series over it.
        #[arg(long)]
        instant: bool,
        #[command(flatten)]
        window: WindowOpts,
        /// The PromQL expression.
        query: Option<String>,
    },
}

#[derive(Debug, Clone, Args)]
pub struct WorkloadOpts {
    /// The workload's kind: Job, JobSet, MPIJob, Deployment, StatefulSet or Pod.
    #[arg(long)]
    pub kind: Option<String>,
    /// The workload's name.
    #[arg(long)]
    pub name: Option<String>,
    /// The workload's namespace.
    #[arg(long, default_value = "default")]
    pub namespace: String,
}

#[derive(Debug, Clone, Args)]
pub struct WindowOpts {
    /// A window ending now: 1h, 6h, 24h or 7d [default: 6h].
    #[arg(long)]
    pub range: Option<String>,
    /// An explicit window start (ISO 8601 UTC); --range is then ignored.
    #[arg(long)]
    pub start: Option<String>,
    /// The window end (ISO 8601 UTC) [default: now].
    #[arg(long)]
    pub end: Option<String>,
    /// Points per series, at most 96 [default: 48].
    #[arg(long)]
    pub points: Option<u32>,
}

/// `--db` and `--strict`, found wherever they were given: before the command, or after one that takes them.
/// Each flag is declared once (`DbOpt`, `StrictOpt`); this is the one place that knows which commands take
/// which, and it names every command, so a new one is a decision here, not a flag silently dropped.
#[derive(Debug, Clone, Copy, Default)]
pub struct GlobalFlags<'a> {
    /// `--db`, after the command or before it.
    pub db: Option<&'a PathBuf>,
    /// `--strict`, after the command or before it.
    pub strict: bool,
}

impl Cli {
    /// `--db` and `--strict` of the command given, or from before it.
    pub fn global_flags(&self) -> GlobalFlags<'_> {
        let (db, strict) = match &self.command {
            Command::Finops(Finops::Carbon(c)) => match c {
                Carbon::Estimate(e) => (None, e.hours.strict.strict),
                Carbon::Record(r) => (r.record.db.db.as_ref(), r.estimate.hours.strict.strict),
                Carbon::Providers | Carbon::Show(_) | Carbon::Regions(_) | Carbon::Hardware(_) | Carbon::When(_) => (None, false),
            },
            Command::Finops(Finops::Cost(c)) => match c {
                Cost::Estimate(e) => (None, e.hours.strict.strict),
                Cost::Record(r) => (r.record.db.db.as_ref(), r.estimate.hours.strict.strict),
                Cost::Providers | Cost::Show(_) => (None, false),
            },
            Command::Finops(Finops::Measure(m)) => (m.db.db.as_ref(), m.strict.strict),
            Command::Config(ConfigCmd::Show(o)) => (None, o.strict),
            Command::Config(ConfigCmd::Path | ConfigCmd::Init { .. }) => (None, false),
            Command::Report(r) => (r.db.db.as_ref(), false),
            Command::Mcp(m) => (m.db.db.as_ref(), false),
            Command::Db(DbCmd::Migrate(d)) | Command::Sync(SyncCmd::Mlflow(d)) => (d.db.as_ref(), false),
            Command::Db(DbCmd::Copy { .. }) => (None, false),
            Command::Budget(BudgetCmd::Set(BudgetSet { db, .. }) | BudgetCmd::Check(BudgetCheckArgs { db, .. })) => (db.db.as_ref(), false),
            Command::Budget(
                BudgetCmd::List { db, .. } | BudgetCmd::Rm { db, .. } | BudgetCmd::Status { db, .. } | BudgetCmd::Notify { db, .. },
            ) => (db.db.as_ref(), false),
            Command::Import(ImportCmd::Slurm(i)) => (i.common.db.db.as_ref(), false),
            Command::Import(ImportCmd::Flux(i)) => (i.common.db.db.as_ref(), false),
            Command::Import(ImportCmd::Kubernetes(i)) => (i.db.db.as_ref(), false),
            Command::Gpu(_) | Command::Metrics(_) | Command::Validate(_) | Command::Completions { .. } | Command::Man { .. } => {
                (None, false)
            }
        };
        GlobalFlags { db: db.or(self.db.db.as_ref()), strict: strict || self.strict.strict }
    }
}
