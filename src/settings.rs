//! Settings: flag > environment > config file > built-in default, each value
//! remembering where it came from.
//!
//! This is the only module that reads exa's environment variables or decides
//! which config file applies. It reads; it never writes.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use crate::cli::{Cli, Format};
use crate::config::{self, Config, DomainConfig};
use crate::error::Error;
use crate::provider::registry::Context;
use crate::provider::{Domain, Source};

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Sourced<T> {
    pub value: T,
    pub source: Source,
}

impl<T> Sourced<T> {
    pub fn new(value: T, source: Source) -> Self {
        Sourced { value, source }
    }
}

/// Reads an environment variable; an empty value counts as unset.
pub fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Reads a number from the environment: `None` when unset, an error naming the variable when malformed.
pub fn env_amount(name: &str) -> Result<Option<f64>, Error> {
    env(name).map(|v| crate::cli::amount(&v).map_err(|e| Error::Config(format!("environment variable {name}: {e}")))).transpose()
}

pub struct Settings {
    pub format: Format,
    pub strict: Sourced<bool>,
    pub config_path: Sourced<PathBuf>,
    pub config_exists: bool,
    pub config: Config,
    pub db: Option<Sourced<PathBuf>>,
    /// Diagnostics for stderr, printed by `main` once the command is done.
    warnings: RefCell<Vec<String>>,
}

impl Settings {
    /// Resolves the settings; with `read_config` false the config file is located but not read
    /// (for `config path`, `config init`, `completions` and `man`, which must work when it is broken).
    pub fn from_cli(cli: &Cli, read_config: bool) -> Result<Settings, Error> {
        let format = if cli.json { Format::Json } else { cli.output };
        let strict = if cli.strict {
            Sourced::new(true, Source::Flag)
        } else if let Some(v) = env("EXAMLOPS_STRICT") {
            let on = match v.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => true,
                "0" | "false" | "no" | "off" => false,
                other => return Err(Error::Config(format!("environment variable EXAMLOPS_STRICT: '{other}' is not 1/0/true/false"))),
            };
            Sourced::new(on, Source::Env)
        } else {
            Sourced::new(false, Source::Default)
        };
        let config_path = if let Some(p) = &cli.config {
            Sourced::new(p.clone(), Source::Flag)
        } else if let Some(p) = env("EXAMLOPS_CONFIG") {
            Sourced::new(PathBuf::from(p), Source::Env)
        } else {
            let dir = config::default_dir()
                .ok_or_else(|| Error::Config("cannot find a home directory for the config file; pass --config".into()))?;
            Sourced::new(dir.join("finops.yaml"), Source::Default)
        };
        let loaded = if read_config {
            if config_path.source != Source::Default && !config_path.value.exists() {
                return Err(Error::Config(format!(
                    "config file {} (from {}) does not exist",
                    config_path.value.display(),
                    config_path.source
                )));
            }
            config::load(&config_path.value)?
        } else {
            config::Loaded { exists: config_path.value.exists(), ..config::Loaded::default() }
        };
        let db = match (&cli.db, env("EXAMLOPS_DB")) {
            (Some(p), _) => Some(Sourced::new(p.clone(), Source::Flag)),
            (None, Some(p)) => Some(Sourced::new(PathBuf::from(p), Source::Env)),
            (None, None) => crate::store::default_path().map(|p| Sourced::new(p, Source::Default)),
        };
        Ok(Settings {
            format,
            strict,
            config_path,
            config_exists: loaded.exists,
            config: loaded.config,
            db,
            warnings: RefCell::new(loaded.warnings),
        })
    }

    /// The records database, or why there is none.
    pub fn db_path(&self) -> Result<&Path, Error> {
        self.db
            .as_ref()
            .map(|d| d.value.as_path())
            .ok_or_else(|| Error::Config("cannot find a data directory for the records; pass --db".into()))
    }

    pub fn warn(&self, msg: impl Into<String>) {
        self.warnings.borrow_mut().push(msg.into());
    }

    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut self.warnings.borrow_mut())
    }

    pub fn block(&self, domain: Domain) -> &DomainConfig {
        match domain {
            Domain::Carbon => &self.config.finops.carbon,
            Domain::Cost => &self.config.finops.cost,
        }
    }

    /// The directory that holds the config file, `providers/` and `plugins/`.
    pub fn config_dir(&self) -> Option<&Path> {
        self.config_path.value.parent()
    }

    pub fn context(&self, domain: Domain) -> Context<'_> {
        Context {
            domain,
            block: self.block(domain),
            config_dir: self.config_dir(),
            path: std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default(),
        }
    }

    /// The provider asked for: flag, then environment, then config; `None` means the default.
    pub fn requested_provider(&self, domain: Domain, flag: Option<&str>) -> Option<Sourced<String>> {
        if let Some(f) = flag {
            return Some(Sourced::new(f.to_string(), Source::Flag));
        }
        if let Some(e) = env(domain.provider_env()) {
            return Some(Sourced::new(e, Source::Env));
        }
        self.block(domain).provider.clone().map(|p| Sourced::new(p, Source::Config))
    }
}
