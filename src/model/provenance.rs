//! Provenance: where a value came from. Every coefficient in an answer carries one.

use std::fmt;

use serde::Serialize;

/// Where a value came from.
///
/// `Env` names the variable it was read from, so a message can say which one;
/// in JSON every source is one lowercase word (`"env"`), as documented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Built into exa or the provider.
    Default,
    /// An environment variable exa documents.
    Env(&'static str),
    /// The config file.
    Config,
    /// A command-line flag.
    Flag,
    /// Measured by exa while the work ran.
    Measured,
    /// Read live from an outside service (grid intensity).
    Live,
    /// The grid region's figure from exa's shipped tables (`--region`).
    Region,
    /// The grid's intensity history over the work, weighted by it.
    History,
    /// exa's shipped hardware tables, by the GPU or CPU model named (`--gpu-model`, `--cpu-model`).
    Hardware,
}

impl Source {
    /// The one word JSON and tables show.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Default => "default",
            Source::Env(_) => "env",
            Source::Config => "config",
            Source::Flag => "flag",
            Source::Measured => "measured",
            Source::Live => "live",
            Source::Region => "region",
            Source::History => "history",
            Source::Hardware => "hardware",
        }
    }

    /// The environment variable a value came from, when it came from one.
    pub fn env_var(self) -> Option<&'static str> {
        match self {
            Source::Env(name) => Some(name),
            _ => None,
        }
    }

    /// True for a value read from the environment, whichever variable.
    pub fn is_env(self) -> bool {
        matches!(self, Source::Env(_))
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Source {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sourced<T> {
    /// The value in effect.
    pub value: T,
    /// Where it came from.
    pub source: Source,
}

impl<T> Sourced<T> {
    /// A value with its provenance.
    pub fn new(value: T, source: Source) -> Self {
        Sourced { value, source }
    }
}

/// A coefficient in an answer: its value and where that came from.
pub type Coef = Sourced<f64>;
