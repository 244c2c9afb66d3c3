//! Domains (carbon, cost) and the kinds of provider: the vocabulary every layer shares.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The environment variables a provider file may bind a coefficient to
/// (`env: GPU_COST_PER_HOUR`): the ones the specification names. No other
/// variable is ever read for a provider, so a provider file cannot reach a
/// secret.
pub const COEFFICIENT_VARS: &[&str] = &["GPU_COST_PER_HOUR", "CPU_COST_PER_HOUR"];

/// The inputs of a call, in the order formulas see them: device-hours,
/// CPU-core-hours, and a GPU energy measured by exa or elsewhere (0 when none).
pub const INPUTS: &[&str] = &["gpu_hours", "cpu_hours", "gpu_kwh", "cpu_kwh"];

/// What a provider prices: energy and carbon, or money.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Domain {
    /// Energy (kWh) and carbon (gCO2e).
    Carbon,
    /// Money (USD).
    Cost,
}

impl Domain {
    /// The domain's name: carbon or cost.
    pub fn as_str(self) -> &'static str {
        match self {
            Domain::Carbon => "carbon",
            Domain::Cost => "cost",
        }
    }

    /// The outputs every provider of this domain must produce.
    pub fn outputs(self) -> &'static [&'static str] {
        match self {
            Domain::Carbon => &["kwh", "co2e_g"],
            Domain::Cost => &["cost_usd"],
        }
    }

    /// The provider used when none is asked for.
    pub fn default_provider(self) -> &'static str {
        match self {
            Domain::Carbon => "green-ai-default",
            Domain::Cost => "flat-rate",
        }
    }

    /// The environment variable that names this domain's provider.
    pub fn provider_env(self) -> &'static str {
        match self {
            Domain::Carbon => "EXAMLOPS_CARBON_PROVIDER",
            Domain::Cost => "EXAMLOPS_COST_PROVIDER",
        }
    }

    /// Executables named `<prefix><name>` are this domain's plugins.
    pub fn plugin_prefix(self) -> &'static str {
        match self {
            Domain::Carbon => "exa-carbon-",
            Domain::Cost => "exa-cost-",
        }
    }
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a provider is defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// Built into exa (a YAML document under providers/).
    Builtin,
    /// A user's YAML formula file.
    Yaml,
    /// Formulas inline in the config.
    Expression,
    /// An external program speaking JSON.
    Plugin,
}

impl ProviderKind {
    /// Its name, as records and JSON keep it.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Builtin => "builtin",
            ProviderKind::Yaml => "yaml",
            ProviderKind::Expression => "expression",
            ProviderKind::Plugin => "plugin",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
