//! `finops.yaml`: where it lives, what it may say, and reading it.
//!
//! Reading never writes, and a malformed file is an error naming the file,
//! line and column; it is never half-applied. Keys exa does not know are
//! warnings that name the nearest known key.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::Deserialize;
use serde_yaml_ng::Value;

use crate::error::Error;
use crate::suggest::nearest;

/// The whole file. Every block is optional.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct Config {
    #[serde(default, deserialize_with = "null_as_default")]
    pub finops: Finops,
    /// Clusters whose Prometheus `exa metrics` reads, by name.
    #[serde(default, deserialize_with = "null_as_default")]
    pub clusters: IndexMap<String, Cluster>,
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
    pub timeout_s: Option<f64>,
}

fn default_node_label() -> String {
    "instance".into()
}

#[derive(Debug, Default, Clone, Deserialize)]
pub struct Finops {
    #[serde(default, deserialize_with = "null_as_default")]
    pub carbon: DomainConfig,
    #[serde(default, deserialize_with = "null_as_default")]
    pub cost: DomainConfig,
}

/// `finops.carbon` or `finops.cost`.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct DomainConfig {
    pub provider: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub coefficients: IndexMap<String, f64>,
    /// Formulas for `provider: expression`, evaluated in the order written.
    #[serde(default, deserialize_with = "null_as_default")]
    pub formulas: IndexMap<String, String>,
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
}

#[derive(Debug, Default, Clone, Deserialize)]
pub struct Metadata {
    pub uncertainty: Option<f64>,
    pub methodology: Option<String>,
    pub source: Option<String>,
}

#[derive(Debug, Default, Clone, Deserialize)]
pub struct GridConfig {
    pub url: Option<String>,
    pub zone: Option<String>,
    pub token: Option<String>,
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

/// The keys each block knows, for unknown-key warnings.
const KNOWN: &[(&str, &[&str])] = &[
    ("", &["finops", "clusters"]),
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
    ("finops", &["carbon", "cost"]),
    ("finops.carbon", DOMAIN_KEYS),
    ("finops.cost", DOMAIN_KEYS),
    ("finops.carbon.metadata", METADATA_KEYS),
    ("finops.cost.metadata", METADATA_KEYS),
    ("finops.carbon.grid", &["url", "zone", "token", "timeout_s"]),
];
const DOMAIN_KEYS: &[&str] = &["provider", "coefficients", "formulas", "metadata", "plugin_timeout_s", "config", "grid"];
const METADATA_KEYS: &[&str] = &["uncertainty", "methodology", "source"];

/// A parsed config file and the warnings reading it raised.
#[derive(Debug, Default, Clone)]
pub struct Loaded {
    pub config: Config,
    pub warnings: Vec<String>,
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
        if let Some(t) = block.plugin_timeout_s {
            if !t.is_finite() || t <= 0.0 {
                return Err(Error::Config(format!(
                    "{}: finops.{domain}.plugin_timeout_s: {t} is not a positive number of seconds",
                    path.display()
                )));
            }
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
        if c.timeout_s.is_some_and(|t| !t.is_finite() || t <= 0.0) {
            return Err(at("timeout_s is not a positive number of seconds".into()));
        }
    }
    Ok(Loaded { config, warnings, exists: true })
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
"#;

/// The default location: `<config dir>/finops.yaml`.
pub fn default_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "examlops").map(|d| d.config_dir().to_path_buf())
}
