//! Providers: what turns inputs and coefficients into outputs.
//!
//! One trait, several kinds: `builtin` and `yaml` (formula documents),
//! `expression` (formulas inline in the config) and `plugin` (an external
//! program). Carbon and cost are two domains of this one mechanism.
//! A provider computes; it never prints and never resolves settings.

#![warn(missing_docs)]

pub mod doc;
pub mod formula;
pub mod plugin;
pub mod registry;

use std::fmt;
use std::path::PathBuf;

use crate::model::IndexMap;
use serde::Serialize;

pub use registry::{Entry, Registry, Status};

pub use crate::model::{Domain, ProviderKind, Source, INPUTS};

/// A coefficient a provider uses, with its default.
#[derive(Debug, Clone, Serialize)]
pub struct Coefficient {
    /// The coefficient's name, as formulas use it.
    pub name: String,
    /// Its value when nothing else sets it.
    pub default: f64,
    /// An environment variable that overrides the default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env: Option<String>,
    /// Its unit, for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// What it means, for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// What a provider says about itself.
#[derive(Debug, Clone)]
pub struct Meta {
    /// The provider's name.
    pub name: String,
    /// How it is defined.
    pub kind: ProviderKind,
    /// What it prices.
    pub domain: Domain,
    /// Relative uncertainty (0.3 is ±30%); `None` when the author gave none.
    pub uncertainty: Option<f64>,
    /// What the methodology is, in a sentence.
    pub methodology: String,
    /// Where it comes from.
    pub source: Option<String>,
    /// Which of `INPUTS` it uses.
    pub accepts: Vec<String>,
    /// The coefficients it uses, with their defaults.
    pub coefficients: Vec<Coefficient>,
    /// The outputs it computes.
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
    /// Whether it reads `input` (one of `INPUTS`).
    pub fn accepts(&self, input: &str) -> bool {
        self.accepts.iter().any(|a| a == input)
    }

    /// The coefficient called `name`, if it has one.
    pub fn coefficient(&self, name: &str) -> Option<&Coefficient> {
        self.coefficients.iter().find(|c| c.name == name)
    }
}

/// The numbers a provider computes from.
#[derive(Debug, Clone, Default)]
pub struct Values {
    /// The inputs, by name.
    pub inputs: IndexMap<String, f64>,
    /// The merged coefficients, by name.
    pub coefficients: IndexMap<String, f64>,
}

/// Why a provider gave no answer for these values.
#[derive(Debug, Clone, PartialEq)]
pub enum ComputeError {
    /// A formula gave no finite number (exit 1, never a NaN in the output).
    Formula {
        /// The output whose formula failed.
        output: String,
        /// Why.
        cause: String,
    },
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

/// What turns inputs and coefficients into outputs.
pub trait Provider: Send + Sync {
    /// What it says about itself.
    fn meta(&self) -> &Meta;
    /// The outputs for `values`, every one finite.
    fn compute(&self, values: &Values) -> Result<IndexMap<String, f64>, ComputeError>;
}

/// A short stable digest (FNV-1a, 64 bits) of the text that defines a methodology.
pub fn digest(parts: &[&str]) -> String {
    format!("fnv1a64:{:016x}", crate::text::fnv1a64(parts))
}
