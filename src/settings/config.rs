//! `finops.yaml`: where it lives and reading it.
//!
//! Reading never writes, and a malformed file is an error naming the file,
//! line and column; it is never half-applied. Keys exa does not know are
//! warnings that name the nearest known key.

use std::path::Path;

use serde_yaml_ng::Value;

use crate::error::Error;
pub use crate::model::config::{Cluster, Config, DomainConfig, Finops, GridConfig, Metadata};
use crate::suggest::nearest;

/// The keys each block knows, for unknown-key warnings.
const KNOWN: &[(&str, &[&str])] = &[
    ("", &["finops", "clusters", "mcp", "mlflow", "gpu", "cpu", "node", "db"]),
    ("db", &["url", "timeout_s"]),
    ("mlflow", &["tracking_uri", "timeout_s"]),
    ("gpu", &["source", "nvml_library"]),
    ("cpu", &["source"]),
    ("node", &["source"]),
    (
        "clusters.*",
        &[
            "prometheus",
            "token_env",
            "gpu_vendor",
            "gpu_model",
            "node_label",
            "host_label",
            "metric_prefix",
            "labels",
            "episodes",
            "timeout_s",
        ],
    ),
    ("finops", &["carbon", "cost", "focus", "hardware", "budgets"]),
    ("finops.budgets", &["webhook", "alertmanager"]),
    ("finops.hardware", &["gres", "partitions"]),
    ("mcp", &["token_env", "allowed_hosts"]),
    (
        "finops.focus",
        &["billing_account_id", "billing_account_name", "provider_name", "publisher_name", "invoice_issuer_name", "service_name"],
    ),
    ("finops.carbon", DOMAIN_KEYS),
    ("finops.cost", DOMAIN_KEYS),
    ("finops.carbon.metadata", METADATA_KEYS),
    ("finops.cost.metadata", METADATA_KEYS),
    ("finops.carbon.grid", &["url", "forecast_url", "history_url", "api", "zone", "token", "timeout_s", "region"]),
];
const DOMAIN_KEYS: &[&str] = &["provider", "coefficients", "formulas", "metadata", "plugin_timeout_s", "config", "grid", "embodied_gpu"];
const METADATA_KEYS: &[&str] = &["uncertainty", "methodology", "source"];

/// A parsed config file and the warnings reading it raised.
#[derive(Debug, Default, Clone)]
pub struct Loaded {
    /// The file's contents, or the default when it is absent.
    pub config: Config,
    /// Unknown keys, each with the nearest known one.
    pub warnings: Vec<String>,
    /// Whether the file exists.
    pub exists: bool,
}

/// Reads `path`; a missing file is an empty config.
pub fn load(path: &Path) -> Result<Loaded, Error> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Loaded::default()),
        Err(e) => return Err(Error::Config(format!("{}: cannot read: {e}", path.display()))),
    };
    let mut loaded = parse(&text, path)?;
    loaded.exists = true;
    Ok(loaded)
}

/// Parses the text of a config file named `path` (for messages).
pub fn parse(text: &str, path: &Path) -> Result<Loaded, Error> {
    let at = |e: serde_yaml_ng::Error| Error::Config(format!("{}: {e}", path.display()));
    crate::text::check_yaml_depth(text).map_err(|e| Error::Config(format!("{}: {e}", path.display())))?;
    let value: Value = serde_yaml_ng::from_str(text).map_err(at)?;
    if value.is_null() {
        return Ok(Loaded::default());
    }
    let mut warnings = Vec::new();
    unknown_keys(&value, "", path, &mut warnings);
    let config: Config = serde_yaml_ng::from_str(text).map_err(at)?;
    for (domain, block) in [("carbon", &config.finops.carbon), ("cost", &config.finops.cost)] {
        for (name, v) in &block.coefficients {
            if !v.is_finite() || *v < 0.0 {
                return Err(Error::Config(format!(
                    "{}: finops.{domain}.coefficients.{name}: {v} is not a finite number >= 0",
                    path.display()
                )));
            }
        }
        if let Some(u) = block.metadata.uncertainty {
            if !(0.0..=10.0).contains(&u) {
                return Err(Error::Config(format!(
                    "{}: finops.{domain}.metadata.uncertainty: {u} is not a fraction between 0 and 10 (0.25 means ±25%)",
                    path.display()
                )));
            }
        }
        seconds_key(path, &format!("finops.{domain}.plugin_timeout_s"), block.plugin_timeout_s)?;
        if let Some(api) = &block.grid.api {
            super::grid_auth(api).map_err(|e| Error::Config(format!("{}: finops.{domain}.grid.api: {e}", path.display())))?;
        }
        seconds_key(path, &format!("finops.{domain}.grid.timeout_s"), block.grid.timeout_s)?;
    }
    focus_names(&config.finops.focus, path)?;
    if let Some(t) = config.db.timeout_s {
        if !t.is_finite() || t <= 0.0 || t > super::MAX_SECONDS {
            return Err(Error::Config(format!(
                "{}: db.timeout_s: {t} is not a positive number of seconds (at most a day)",
                path.display()
            )));
        }
    }
    for (name, c) in &config.clusters {
        let at = |what: String| Error::Config(format!("{}: clusters.{name}: {what}", path.display()));
        if !matches!(c.gpu_vendor.as_str(), "nvidia" | "amd") {
            return Err(at(format!("gpu_vendor '{}' is not nvidia or amd", c.gpu_vendor)));
        }
        if !(c.prometheus.starts_with("http://") || c.prometheus.starts_with("https://")) {
            return Err(at(format!("prometheus '{}' is not an http:// or https:// URL", c.prometheus)));
        }
        // Every name that enters PromQL is checked here, whatever its origin; values are escaped where used.
        for (what, name) in c
            .labels
            .keys()
            .map(|k| ("a label key", k.as_str()))
            .chain([("node_label", c.node_label.as_str()), ("host_label", c.host_label.as_deref().unwrap_or("instance"))])
        {
            if !label_name(name) {
                return Err(at(format!("{what} '{}' is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)", name.escape_default())));
            }
        }
        if !c.metric_prefix.is_empty() && !metric_name(&c.metric_prefix) {
            return Err(at(format!(
                "metric_prefix '{}' is not the start of a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)",
                c.metric_prefix.escape_default()
            )));
        }
        if c.timeout_s.is_some_and(|t| !t.is_finite() || t <= 0.0 || t > super::MAX_SECONDS) {
            return Err(at("timeout_s is not a positive number of seconds (at most a day)".into()));
        }
    }
    Ok(Loaded { config, warnings, exists: true })
}

/// `finops.focus`'s names go into FOCUS columns that must hold ASCII only: a name that does not is
/// refused here, naming its key, rather than written into rows a validator then fails.
fn focus_names(f: &crate::model::config::FocusConfig, path: &Path) -> Result<(), Error> {
    let names = [
        ("billing_account_id", &f.billing_account_id),
        ("billing_account_name", &f.billing_account_name),
        ("provider_name", &f.provider_name),
        ("publisher_name", &f.publisher_name),
        ("invoice_issuer_name", &f.invoice_issuer_name),
        ("service_name", &f.service_name),
    ];
    for (key, v) in names {
        let Some(v) = v else { continue };
        if v.trim().is_empty() {
            return Err(Error::Config(format!("{}: finops.focus.{key} is empty; leave it out for its default", path.display())));
        }
        if let Some(c) = v.chars().find(|c| !(' '..='~').contains(c)) {
            return Err(Error::Config(format!(
                "{}: finops.focus.{key}: '{}' holds '{}', which is not printable ASCII; FOCUS names are ASCII only",
                path.display(),
                v.escape_default(),
                c.escape_default()
            )));
        }
    }
    Ok(())
}

/// A key holding seconds: when set, a positive number of them, at most a day.
fn seconds_key(path: &Path, key: &str, value: Option<f64>) -> Result<(), Error> {
    match value {
        Some(t) if !t.is_finite() || t <= 0.0 || t > super::MAX_SECONDS => {
            Err(Error::Config(format!("{}: {key}: {t} is not a positive number of seconds (at most a day)", path.display())))
        }
        _ => Ok(()),
    }
}

/// A Prometheus label name: `[a-zA-Z_][a-zA-Z0-9_]*`.
fn label_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic() || f == '_') && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// A Prometheus metric name: `[a-zA-Z_:][a-zA-Z0-9_:]*`.
fn metric_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic() || f == '_' || f == ':')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_' || x == ':')
}

fn unknown_keys(value: &Value, at: &str, path: &Path, warnings: &mut Vec<String>) {
    let pattern = match at.split_once('.') {
        Some(("clusters", rest)) if !rest.contains('.') => "clusters.*".to_string(),
        _ => at.to_string(),
    };
    if at == "clusters" {
        if let Value::Mapping(map) = value {
            for (k, v) in map {
                unknown_keys(v, &format!("clusters.{}", k.as_str().unwrap_or("?")), path, warnings);
            }
        }
        return;
    }
    let Some(known) = KNOWN.iter().find(|(p, _)| *p == pattern).map(|(_, k)| *k) else { return };
    let Value::Mapping(map) = value else { return };
    for (k, v) in map {
        let key = match k {
            Value::String(s) => s.clone(),
            other => serde_yaml_ng::to_string(other).unwrap_or_default().trim().to_string(),
        };
        let full = if at.is_empty() { key.clone() } else { format!("{at}.{key}") };
        if known.contains(&key.as_str()) {
            unknown_keys(v, &full, path, warnings);
        } else {
            let hint = match nearest(&key, known.iter().copied()) {
                Some(n) => format!("; did you mean '{n}'?"),
                None => format!("; known keys here: {}", known.join(", ")),
            };
            warnings.push(format!("{}: unknown key '{full}' is ignored{hint}", path.display()));
        }
    }
}

/// A commented starting file, written by `exa config init`.
pub const STARTER: &str = r#"# exa configuration: finops.yaml
#
# Every key is optional. Values here override the built-in defaults; a flag on
# the command line overrides them in turn. `exa config show` prints what is in
# effect and where each value came from.

finops:
  carbon:
    # Which methodology to use: `exa finops carbon providers` lists them.
    # The environment variable EXAMLOPS_CARBON_PROVIDER overrides this.
    provider: green-ai-default
    coefficients:
      # gpu_tdp_watts: 700               # e.g. an H100 SXM board
      # pue: 1.3                         # your data centre
      # grid_intensity_g_per_kwh: 250    # your grid region, gCO2e/kWh
    # Your own formula instead: set `provider: expression` and write
    # formulas:
    #   kwh:    "gpu_hours * (gpu_tdp_watts / 1000) * pue"
    #   co2e_g: "kwh * grid_intensity_g_per_kwh"
    # metadata:
    #   uncertainty: 0.25
    #   methodology: "H100 @ PUE 1.3, DE grid 250 gCO2e/kWh"
  cost:
    # `exa finops cost providers` lists the rate cards.
    provider: flat-rate
    coefficients:
      # gpu_rate: 2.50                   # USD per GPU-hour
      # cpu_rate: 0.05                   # USD per CPU-hour

# Your provider files go in providers/carbon/ and providers/cost/ beside this
# file, your plugins (exa-carbon-NAME, exa-cost-NAME) in plugins/.

# Clusters whose Prometheus `exa metrics` reads (`exa metrics clusters` lists them):
# clusters:
#   aurora-prod:
#     prometheus: http://prometheus.monitoring:9090
#     token_env: AURORA_PROM_TOKEN       # the variable holding a bearer token, if needed
#     gpu_vendor: nvidia                 # or amd
#     gpu_model: H100
#     node_label: Hostname               # the label naming the node on GPU series
#     labels: {cluster: aurora-prod}     # added to every query, so only this cluster is read
"#;
