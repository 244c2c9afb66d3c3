//! Providers: what turns inputs and coefficients into outputs.
//!
//! One trait, several kinds: `builtin` and `yaml` (formula documents),
//! `expression` (formulas inline in the config) and `plugin` (an external
//! program). Carbon and cost are two domains of this one mechanism.
//! A provider computes; it never prints and never resolves settings.

pub mod doc;
pub mod formula;
pub mod plugin;
pub mod registry;

use std::fmt;
use std::path::PathBuf;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

pub use registry::{Entry, Registry, Status};

/// The inputs of a call, in the order formulas see them: device-hours,
/// CPU-core-hours, and a GPU energy measured by exa or elsewhere (0 when none).
pub const INPUTS: &[&str] = &["gpu_hours", "cpu_hours", "gpu_kwh"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Domain {
    Carbon,
    Cost,
}

impl Domain {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Builtin,
    Yaml,
    Expression,
    Plugin,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Builtin => "builtin",
            Kind::Yaml => "yaml",
            Kind::Expression => "expression",
            Kind::Plugin => "plugin",
        })
    }
}

/// Where a value came from. Every coefficient in an answer carries one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Default,
    Env,
    Config,
    Flag,
    Measured,
    Live,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::Default => "default",
            Source::Env => "env",
            Source::Config => "config",
            Source::Flag => "flag",
            Source::Measured => "measured",
            Source::Live => "live",
        })
    }
}

/// A coefficient a provider uses, with its default.
#[derive(Debug, Clone, Serialize)]
pub struct Coefficient {
    pub name: String,
    pub default: f64,
    /// An environment variable that overrides the default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// What a provider says about itself.
#[derive(Debug, Clone)]
pub struct Meta {
    pub name: String,
    pub kind: Kind,
    pub domain: Domain,
    /// Relative uncertainty (0.3 is ±30%); `None` when the author gave none.
    pub uncertainty: Option<f64>,
    pub methodology: String,
    pub source: Option<String>,
    /// Which of `INPUTS` it uses.
    pub accepts: Vec<String>,
    pub coefficients: Vec<Coefficient>,
    pub outputs: Vec<String>,
    /// The formulas, in order, for formula providers.
    pub formulas: Vec<(String, String)>,
    /// The coefficient a live signal may fill (grid-live).
    pub live: Option<String>,
    /// The file or program it was loaded from; `None` for built-ins.
    pub origin: Option<PathBuf>,
    /// A digest of what defines the methodology (formulas or program).
    pub digest: String,
}

impl Meta {
    pub fn accepts(&self, input: &str) -> bool {
        self.accepts.iter().any(|a| a == input)
    }

    pub fn coefficient(&self, name: &str) -> Option<&Coefficient> {
        self.coefficients.iter().find(|c| c.name == name)
    }
}

/// The numbers a provider computes from.
#[derive(Debug, Clone, Default)]
pub struct Values {
    pub inputs: IndexMap<String, f64>,
    pub coefficients: IndexMap<String, f64>,
}

/// Why a provider gave no answer for these values.
#[derive(Debug, Clone, PartialEq)]
pub enum ComputeError {
    /// A formula gave no finite number (exit 1, never a NaN in the output).
    Formula { output: String, cause: String },
    /// The provider itself is broken (a plugin that failed); the default may stand in.
    Broken(String),
}

impl fmt::Display for ComputeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ComputeError::Formula { output, cause } => write!(f, "formula '{output}': {cause}"),
            ComputeError::Broken(why) => f.write_str(why),
        }
    }
}

pub trait Provider: Send + Sync {
    fn meta(&self) -> &Meta;
    fn compute(&self, values: &Values) -> Result<IndexMap<String, f64>, ComputeError>;
}

/// A short stable digest (FNV-1a, 64 bits) of the text that defines a methodology.
pub fn digest(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("fnv1a64:{h:016x}")
}
