//! The schema of `finops.yaml`: what the file may say, as data.
//!
//! Reading and checking the file is `settings::config`'s job; these types
//! only describe it, so every layer can take a block without reaching up.

use super::IndexMap;
use serde::Deserialize;

/// The whole file. Every block is optional.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct Config {
    /// The `finops:` block: carbon and cost.
    #[serde(default, deserialize_with = "null_as_default")]
    pub finops: Finops,
    /// Clusters whose Prometheus `exa metrics` reads, by name.
    #[serde(default, deserialize_with = "null_as_default")]
    pub clusters: IndexMap<String, Cluster>,
    /// The `mcp:` block: `exa mcp`'s settings.
    #[serde(default, deserialize_with = "null_as_default")]
    pub mcp: McpConfig,
    /// The `mlflow:` block: where records with a run id are logged.
    #[serde(default, deserialize_with = "null_as_default")]
    pub mlflow: MlflowConfig,
    /// The `gpu:` block: where GPU readings come from.
    #[serde(default, deserialize_with = "null_as_default")]
    pub gpu: GpuConfig,
    /// The `cpu:` block: where `measure` reads CPU energy.
    #[serde(default, deserialize_with = "null_as_default")]
    pub cpu: CpuConfig,
    /// The `node:` block: where `measure` reads the whole node's power.
    #[serde(default, deserialize_with = "null_as_default")]
    pub node: NodeConfig,
    /// The `db:` block: the ledger.
    #[serde(default, deserialize_with = "null_as_default")]
    pub db: DbConfig,
}

/// `db:`: where records are kept.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct DbConfig {
    /// The ledger: a SQLite file, or a PostgreSQL URL; `--db` and EXAMLOPS_DB win over it.
    pub url: Option<String>,
    /// Seconds any one exchange with a PostgreSQL server may wait for its answer (default 30);
    /// EXAMLOPS_DB_TIMEOUT wins over it.
    pub timeout_s: Option<f64>,
}

/// `gpu:`: where `exa gpu` and `measure` read the GPUs.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct GpuConfig {
    /// auto, nvml, nvidia-smi or amd-smi; EXAMLOPS_GPU_SOURCE and --gpu-source win over it.
    pub source: Option<String>,
    /// The NVML library to load; EXAMLOPS_NVML_LIBRARY wins over it.
    pub nvml_library: Option<std::path::PathBuf>,
}

/// `cpu:`: where `measure` reads CPU and memory energy.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct CpuConfig {
    /// auto, powercap, perf or none; EXAMLOPS_CPU_SOURCE and --cpu-source win over it.
    pub source: Option<String>,
}

/// `node:`: where `measure` reads the whole node's power.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct NodeConfig {
    /// auto, hwmon, ipmi, redfish or none; EXAMLOPS_NODE_SOURCE and --node-source win over it.
    pub source: Option<String>,
    /// The BMC's Redfish chassis URL (`https://bmc/redfish/v1/Chassis/1U`); EXAMLOPS_REDFISH_URL wins over it.
    pub redfish_url: Option<String>,
    /// A file holding the BMC's `user:password`, readable by its owner alone; EXAMLOPS_REDFISH_CREDENTIALS_FILE wins.
    pub redfish_credentials_file: Option<String>,
    /// The site's CA (PEM) the BMC's certificate is checked against; EXAMLOPS_REDFISH_CA_FILE wins.
    pub redfish_ca_file: Option<String>,
}

/// `mlflow:`: the tracking server records are logged to.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct MlflowConfig {
    /// The tracking server's URL; MLFLOW_TRACKING_URI wins over it.
    pub tracking_uri: Option<String>,
    /// Seconds one request may take (default 10).
    pub timeout_s: Option<f64>,
}

/// `mcp:`: the MCP server.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct McpConfig {
    /// The environment variable holding the bearer token HTTP clients must send (EXAMLOPS_MCP_TOKEN when unset).
    pub token_env: Option<String>,
    /// Host names (as clients put them in `Host` and `Origin`) answered beside loopback and the listening address.
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
}

/// One cluster's monitoring.
#[derive(Debug, Clone, Deserialize)]
pub struct Cluster {
    /// The Prometheus base URL, e.g. http://prometheus.monitoring:9090.
    pub prometheus: String,
    /// The environment variable holding a bearer token, if Prometheus needs one.
    pub token_env: Option<String>,
    /// nvidia or amd.
    pub gpu_vendor: String,
    /// The GPU model, e.g. H100; the reference temperature is per model.
    pub gpu_model: String,
    /// The label naming the node on GPU series (instance, Hostname, hostname...).
    #[serde(default = "default_node_label")]
    pub node_label: String,
    /// The label naming the node on node_exporter series; the node label when unset.
    pub host_label: Option<String>,
    /// A prefix the site puts on AMD exporter metric names, e.g. amd_.
    #[serde(default)]
    pub metric_prefix: String,
    /// Label matchers added to every query, e.g. {cluster: aurora-prod}.
    #[serde(default, deserialize_with = "null_as_default")]
    pub labels: IndexMap<String, String>,
    /// Alert names (Prometheus ALERTS) that are health episodes, and their kind.
    #[serde(default, deserialize_with = "null_as_default")]
    pub episodes: IndexMap<String, String>,
    /// Seconds a Prometheus request may take.
    pub timeout_s: Option<f64>,
}

fn default_node_label() -> String {
    "instance".into()
}

/// The `finops:` block.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct Finops {
    /// `finops.carbon`.
    #[serde(default, deserialize_with = "null_as_default")]
    pub carbon: DomainConfig,
    /// `finops.cost`.
    #[serde(default, deserialize_with = "null_as_default")]
    pub cost: DomainConfig,
    /// `finops.focus`: who bills whom, in FOCUS rows.
    #[serde(default, deserialize_with = "null_as_default")]
    pub focus: FocusConfig,
    /// `finops.hardware`: what an importer's jobs ran on, for a provider that prices by model.
    #[serde(default, deserialize_with = "null_as_default")]
    pub hardware: HardwareConfig,
    /// `finops.budgets`: where a budget's crossings are sent (`exa budget notify`).
    #[serde(default, deserialize_with = "null_as_default")]
    pub budgets: BudgetsConfig,
}

/// `finops.budgets`: the destinations of a budget's crossings.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetsConfig {
    /// A webhook: each crossing POSTed as JSON, signed.
    pub webhook: Option<WebhookConfig>,
    /// An Alertmanager: each crossing an alert, until its period ends.
    pub alertmanager: Option<AlertmanagerConfig>,
}

/// `finops.budgets.webhook`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookConfig {
    /// Where to POST.
    pub url: String,
    /// The variable holding the HMAC-SHA256 key that signs each body (never the key itself in the file).
    pub secret_env: String,
    /// The most seconds one delivery may take (default 10).
    pub timeout_s: Option<f64>,
}

/// `finops.budgets.alertmanager`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlertmanagerConfig {
    /// The Alertmanager's base URL (its API is `/api/v2/alerts` under it).
    pub url: String,
    /// The most seconds one delivery may take (default 10).
    pub timeout_s: Option<f64>,
}

/// `finops.hardware`: the models a scheduler's words stand for.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct HardwareConfig {
    /// A scheduler's GPU type (Slurm's gres type: `h100`) to the model it is (`H100 SXM`), where the names differ.
    #[serde(default)]
    pub gres: IndexMap<String, String>,
    /// Each partition's (Flux: queue's) hardware: its nodes' CPU model and cores a socket, and the GPU model of a
    /// job whose GPUs have no type.
    #[serde(default)]
    pub partitions: IndexMap<String, PartitionHardware>,
}

/// One partition's hardware.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitionHardware {
    /// The GPU model of a job whose GPUs have no type.
    pub gpu_model: Option<String>,
    /// The nodes' CPU model.
    pub cpu_model: Option<String>,
    /// Its CPUs a socket as the scheduler counts them in CPU-hours (threads, where Slurm counts threads).
    pub cpu_cores: Option<f64>,
    /// The GB of memory each of its CPUs had (a node's memory over its CPUs), for a provider that prices memory.
    pub memory_gb_per_cpu: Option<f64>,
}

/// `finops.focus`: the names FOCUS rows carry; each has a default.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct FocusConfig {
    /// BillingAccountId: the account charged (a team, a project code).
    pub billing_account_id: Option<String>,
    /// BillingAccountName.
    pub billing_account_name: Option<String>,
    /// ProviderName: who makes the compute available (the platform team, the site).
    pub provider_name: Option<String>,
    /// PublisherName: who produces the service.
    pub publisher_name: Option<String>,
    /// InvoiceIssuerName: who issues the (chargeback) invoice.
    pub invoice_issuer_name: Option<String>,
    /// ServiceName: the service the rows are charges of.
    pub service_name: Option<String>,
}

/// `finops.carbon` or `finops.cost`.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct DomainConfig {
    /// The provider to use.
    pub provider: Option<String>,
    /// Coefficients to set, by name.
    #[serde(default, deserialize_with = "null_as_default")]
    pub coefficients: IndexMap<String, f64>,
    /// Formulas for `provider: expression`, evaluated in the order written.
    #[serde(default, deserialize_with = "null_as_default")]
    pub formulas: IndexMap<String, String>,
    /// Metadata for `provider: expression`.
    #[serde(default, deserialize_with = "null_as_default")]
    pub metadata: Metadata,
    /// Seconds a plugin may take before it is killed.
    pub plugin_timeout_s: Option<f64>,
    /// Free-form settings handed to a plugin as its `config`.
    #[serde(default, deserialize_with = "null_as_default")]
    pub config: Option<serde_json::Value>,
    /// The live grid-intensity endpoint (carbon only).
    #[serde(default, deserialize_with = "null_as_default")]
    pub grid: GridConfig,
    /// The GPU whose embodied carbon exa's table gives (carbon only): `generic`, `a100-pcie-40gb`,
    /// `a100-with-host`.
    pub embodied_gpu: Option<String>,
}

/// What an expression provider says about itself.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct Metadata {
    /// Relative uncertainty (0.25 is ±25%).
    pub uncertainty: Option<f64>,
    /// What the methodology is.
    pub methodology: Option<String>,
    /// Where it comes from.
    pub source: Option<String>,
}

/// `finops.carbon.grid`: the live grid-intensity endpoint.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct GridConfig {
    /// The endpoint URL; `{zone}` is replaced by the zone.
    pub url: Option<String>,
    /// The forecast endpoint's URL, for `carbon when`; `{zone}` and `{from}` (now) are filled in. The zone,
    /// API, token and timeout are the grid's.
    pub forecast_url: Option<String>,
    /// The history endpoint's URL, for measured runs and `import --grid-history`; `{zone}`, `{from}` and `{to}`
    /// (a UTC day, or up to the run's end) are filled in. The zone, API, token and timeout are the grid's.
    pub history_url: Option<String>,
    /// Which API the URL speaks, for how its key is sent: electricitymaps, watttime, uk or generic.
    pub api: Option<String>,
    /// The grid zone.
    pub zone: Option<String>,
    /// The grid region for the static intensity (a country, US state, NERC or cloud region); EXAMLOPS_GRID_REGION and --region win over it.
    pub region: Option<String>,
    /// The API key.
    pub token: Option<String>,
    /// Seconds a request may take.
    pub timeout_s: Option<f64>,
}

/// An empty block (`coefficients:` with everything commented out) is the default.
fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}
