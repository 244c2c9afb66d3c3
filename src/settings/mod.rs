//! Settings: flag > environment > config file > built-in default, each value
//! remembering where it came from.
//!
//! This is the only module that reads exa's environment variables or decides
//! which config file applies (a test greps the tree for `EXAMLOPS_`). It
//! reads; it never writes. Every duration is bounded here, where it is
//! parsed, before anything starts.

#![warn(missing_docs)]

pub mod config;
pub mod paths;
pub mod reading;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::error::Error;
pub use crate::model::config::{Config, DomainConfig};
pub use crate::model::gpu::GpuChoice;
use crate::model::Format;
pub use crate::model::{Domain, Source, Sourced};
use crate::provider::registry::Context;
use crate::sources::grid::{Auth, Endpoint};

pub use crate::model::COEFFICIENT_VARS;
pub use reading::{CpuSettings, GpuSettings, Reading, ReadingFlags, TelemetrySettings, GENAI_INTENSITY};

/// Default seconds between GPU readings.
pub const INTERVAL_S: f64 = 5.0;
/// The shortest interval between GPU readings.
pub const MIN_INTERVAL_S: f64 = 0.05;
/// exa's default deadline for one call of a GPU tool.
pub const GPU_TOOL_TIMEOUT_S: f64 = 10.0;
/// The longest any configured wait may be: a day.
pub const MAX_SECONDS: f64 = 86_400.0;
/// How long one exchange with a PostgreSQL ledger may wait, unless configured.
pub const DB_TIMEOUT: Duration = Duration::from_secs(30);
/// Seconds a grid-intensity request may take, unless configured.
pub const GRID_TIMEOUT_S: f64 = 3.0;

/// True when `NO_COLOR` asks for no colour (any non-empty value, as no-color.org says).
pub fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// Reads an environment variable; an empty value counts as unset.
fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Reads a number from the environment: `None` when unset, an error naming
/// the variable (never echoing its value) when malformed.
fn env_amount(name: &'static str) -> Result<Option<Sourced<f64>>, Error> {
    env(name)
        .map(|v| {
            crate::cli::amount(&v)
                .map(|x| Sourced::new(x, Source::Env(name)))
                .map_err(|_| Error::Config(format!("environment variable {name} is not a number >= 0")))
        })
        .transpose()
}

/// A number of seconds as a bounded duration, or a message naming `what`.
pub fn seconds(what: &str, s: f64, min: f64) -> Result<Duration, String> {
    if !s.is_finite() || s < min || s > MAX_SECONDS {
        return Err(format!("{what}: {s} s is outside {min} s to {MAX_SECONDS} s"));
    }
    Ok(Duration::from_secs_f64(s))
}

/// What the command line says that every command resolves alike: the flags given before the command
/// (`-o`, `--config`), and `--db` and `--strict` wherever they were given. The command's own flags
/// resolve in a settings type of its own ([`Reading`] for the commands that read GPUs over time).
#[derive(Debug, Clone)]
pub struct Global {
    /// How to render the answer.
    pub format: Format,
    /// `--config`.
    pub config: Option<PathBuf>,
    /// `--db`, before the command or after it.
    pub db: Option<PathBuf>,
    /// `--strict`, before the command or after it.
    pub strict: bool,
    /// Providers resolve by name only, never by a path: the door for agents (`exa mcp`) says so.
    pub names_only: bool,
}

impl Global {
    /// What the parsed command line says for every command.
    pub fn of(cli: &crate::cli::Cli) -> Global {
        let flags = cli.global_flags();
        Global {
            format: if cli.json { Format::Json } else { cli.output },
            config: cli.config.clone(),
            db: flags.db.cloned(),
            strict: flags.strict,
            names_only: false,
        }
    }
}

/// Everything resolved once for one invocation, whatever the command.
pub struct Settings {
    /// How to render the answer.
    pub format: Format,
    /// Fail rather than fall back.
    pub strict: Sourced<bool>,
    /// The config file in effect.
    pub config_path: Sourced<PathBuf>,
    /// Whether that file exists.
    pub config_exists: bool,
    /// The config file's contents (the default when absent).
    pub config: Config,
    /// Where the records are, as given (a path or a URL), and where that came from.
    pub db: Option<Sourced<PathBuf>>,
    /// The records database, parsed (and its password found) once, when first asked for.
    ledger: OnceLock<Result<crate::store::Db, Error>>,
    /// How long one exchange with a PostgreSQL ledger may wait for its answer.
    pub db_timeout: Sourced<Duration>,
    /// The grid region for the static intensity, from the environment or the config (`--region` comes with the request).
    pub grid_region: Option<Sourced<String>>,
    /// The program search path, for plugins and GPU tools.
    pub path: Vec<PathBuf>,
    /// Providers resolve by name only, never by a path (the door for agents: `exa mcp`).
    pub names_only: bool,
    /// Whether this process holds privileges its user does not (a library the user names is then not loaded).
    privilege: Privilege,
    /// The live grid endpoint, or why there is none.
    grid: Result<Option<Endpoint>, String>,
    /// The grid's forecast endpoint, or why it is unusable.
    forecast: Result<Option<Endpoint>, String>,
    /// The grid's history endpoint, or why it is unusable.
    history: Result<Option<Endpoint>, String>,
    /// Diagnostics for stderr, printed by `main` once the command is done.
    warnings: Mutex<Vec<String>>,
}

impl Settings {
    /// Resolves the settings every command shares; with `read_config` false the config file is located but
    /// not read (for `config path`, `config init`, `completions` and `man`, which must work when it is broken).
    pub fn resolve(global: &Global, read_config: bool) -> Result<Settings, Error> {
        let privilege = privilege()?;
        let strict = strict(global.strict)?;
        let config_path = config_path(global.config.as_ref())?;
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
        let db = match (&global.db, env("EXAMLOPS_DB"), &loaded.config.db.url) {
            (Some(p), _, _) => Some(Sourced::new(p.clone(), Source::Flag)),
            (None, Some(p), _) => Some(Sourced::new(PathBuf::from(p), Source::Env("EXAMLOPS_DB"))),
            (None, None, Some(p)) => Some(Sourced::new(PathBuf::from(p), Source::Config)),
            (None, None, None) => paths::default_db().map(|p| Sourced::new(p, Source::Default)),
        };
        let db_timeout = match env_amount("EXAMLOPS_DB_TIMEOUT")? {
            Some(t) => Sourced::new(seconds("EXAMLOPS_DB_TIMEOUT", t.value, 0.1).map_err(Error::Config)?, t.source),
            None => match loaded.config.db.timeout_s {
                Some(t) => Sourced::new(Duration::from_secs_f64(t), Source::Config),
                None => Sourced::new(DB_TIMEOUT, Source::Default),
            },
        };
        if let Some(api) = env("EXAMLOPS_GRID_INTENSITY_API") {
            grid_auth(&api).map_err(|e| Error::Config(format!("environment variable EXAMLOPS_GRID_INTENSITY_API: {e}")))?;
        }
        let grid = grid_endpoint(&loaded.config.finops.carbon.grid);
        let forecast = forecast_endpoint(&loaded.config.finops.carbon.grid);
        let history = history_endpoint(&loaded.config.finops.carbon.grid);
        let grid_region = grid_region(&loaded.config.finops.carbon.grid);
        Ok(Settings {
            format: global.format,
            strict,
            config_path,
            config_exists: loaded.exists,
            config: loaded.config,
            db,
            ledger: OnceLock::new(),
            db_timeout,
            grid_region,
            path: search_path(privilege),
            names_only: global.names_only,
            privilege,
            grid,
            forecast,
            history,
            warnings: Mutex::new(loaded.warnings),
        })
    }

    /// The records database, or why there is none.
    pub fn db_path(&self) -> Result<&Path, Error> {
        self.db
            .as_ref()
            .map(|d| d.value.as_path())
            .ok_or_else(|| Error::Config("cannot find a data directory for the records; pass --db".into()))
    }

    /// The records database: a SQLite file, or a `postgres://` URL with its password from
    /// the URL, PGPASSWORD or the pgpass file (PGPASSFILE, else ~/.pgpass). Parsed once, when first asked.
    pub fn db(&self) -> Result<crate::store::Db, Error> {
        self.ledger.get_or_init(|| self.db_at(&self.db_path()?.to_string_lossy())).clone()
    }

    /// A database named on the command line (`exa db copy --from/--to`), read as `--db` is.
    pub fn db_at(&self, raw: &str) -> Result<crate::store::Db, Error> {
        let pgpass = env("PGPASSFILE").map(PathBuf::from).or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".pgpass")));
        crate::store::Db::parse(raw, env("PGPASSWORD").as_deref(), pgpass.as_deref(), self.db_timeout.value)
    }

    /// Queues a warning for stderr; the same words twice (one question answered in two reads) print once.
    pub fn warn(&self, msg: impl Into<String>) {
        let msg = msg.into();
        let mut w = self.warnings.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !w.contains(&msg) {
            w.push(msg);
        }
    }

    /// The warnings queued so far, emptying the queue.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut self.warnings.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// The config block of a domain.
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

    /// What the provider registry needs to find and load a domain's providers.
    pub fn context(&self, domain: Domain) -> Context<'_> {
        Context { domain, block: self.block(domain), config_dir: self.config_dir(), path: self.path.clone(), names_only: self.names_only }
    }

    /// The provider asked for: flag, then environment, then config; `None` means the default.
    pub fn requested_provider(&self, domain: Domain, flag: Option<&str>) -> Option<Sourced<String>> {
        if let Some(f) = flag {
            return Some(Sourced::new(f.to_string(), Source::Flag));
        }
        if let Some(e) = env(domain.provider_env()) {
            return Some(Sourced::new(e, Source::Env(domain.provider_env())));
        }
        self.block(domain).provider.clone().map(|p| Sourced::new(p, Source::Config))
    }

    /// A coefficient's value from the variable a provider binds it to, when set.
    /// Only the variables in [`COEFFICIENT_VARS`] are ever read.
    pub fn coefficient_env(&self, var: &str) -> Result<Option<Sourced<f64>>, Error> {
        match COEFFICIENT_VARS.iter().find(|v| **v == var) {
            Some(name) => env_amount(name),
            None => Ok(None),
        }
    }

    /// The grid's forecast endpoint: `Ok(None)` when none is configured, `Err` why it is unusable.
    pub fn forecast_endpoint(&self) -> Result<Option<&Endpoint>, String> {
        self.forecast.as_ref().map(Option::as_ref).map_err(Clone::clone)
    }

    /// The grid zone set by EXAMLOPS_GRID_INTENSITY_ZONE or the config, and where; None when neither is.
    pub fn grid_zone(&self) -> Option<Sourced<String>> {
        zone_set(&self.config.finops.carbon.grid)
    }

    /// Whether the forecast configured names a grid zone: its URL has `{zone}`, or its API is Electricity Maps'
    /// (which takes `zone=`). A URL that names its own grid (WattTime's `region=`, the UK's, the Carbon Aware SDK's
    /// `location=`) is asked as it is.
    pub fn forecast_wants_zone(&self) -> bool {
        let g = &self.config.finops.carbon.grid;
        let Some(base) = forecast_base(g) else { return false };
        let api = env("EXAMLOPS_GRID_INTENSITY_API").or_else(|| g.api.clone());
        base.contains("{zone}")
            || api.is_some_and(|a| matches!(grid_auth(&a), Ok(Auth::AuthToken)))
            || host_of(&base).is_some_and(|h| h.contains("electricitymap"))
    }

    /// The forecast endpoint asking for `zone` instead of the zone set: `Ok(None)` when none is configured.
    pub fn forecast_endpoint_in(&self, zone: &str) -> Result<Option<Endpoint>, String> {
        let g = &self.config.finops.carbon.grid;
        let Some(base) = forecast_base(g) else { return Ok(None) };
        endpoint(g, base, "forecast", Some(zone.to_string()))
    }

    /// The grid's history endpoint: `Ok(None)` when none is configured, `Err` why it is unusable.
    pub fn history_endpoint(&self) -> Result<Option<&Endpoint>, String> {
        self.history.as_ref().map(Option::as_ref).map_err(Clone::clone)
    }

    /// The live grid-intensity endpoint: `Ok(None)` when none is configured, `Err` why it is unusable.
    pub fn grid_endpoint(&self) -> Result<Option<&Endpoint>, String> {
        self.grid.as_ref().map(Option::as_ref).map_err(Clone::clone)
    }

    /// The bearer token of a cluster's Prometheus, from the variable its config names.
    pub fn cluster_token(&self, cluster: &str, var: &str) -> Result<String, Error> {
        env(var).ok_or_else(|| Error::Config(format!("cluster {cluster}: its token variable {var} is not set")))
    }

    /// The key that signs a budget webhook's bodies, from the variable `finops.budgets.webhook.secret_env` names,
    /// which must be set and not empty. Its value is never printed.
    pub fn webhook_key(&self, var: &str) -> Result<Vec<u8>, Error> {
        env(var).filter(|k| !k.is_empty()).map(String::into_bytes).ok_or_else(|| {
            Error::Config(format!(
                "finops.budgets.webhook.secret_env names {}, which is not set: it holds the key that signs each body",
                crate::text::clean(var)
            ))
        })
    }

    /// The bearer token `exa mcp --listen` requires, and the variable it came from:
    /// the one `mcp.token_env` names, else EXAMLOPS_MCP_TOKEN. Its value is never printed.
    pub fn mcp_token(&self) -> Result<(String, String), Error> {
        let var = self.config.mcp.token_env.clone().unwrap_or_else(|| "EXAMLOPS_MCP_TOKEN".into());
        match env(&var) {
            Some(t) if t.trim().len() >= 16 => Ok((t.trim().to_string(), var)),
            Some(_) => Err(Error::Config(format!("the MCP token in {var} is shorter than 16 characters; use a long random one"))),
            None => Err(Error::Config(format!(
                "exa mcp --listen needs a bearer token: set {var} (e.g. to the output of `openssl rand -hex 32`); clients send it as Authorization: Bearer"
            ))),
        }
    }

    /// The MLflow tracking server records with a run id are logged to: MLFLOW_TRACKING_URI, else
    /// `mlflow.tracking_uri`; None when neither is set. Credentials from MLflow's own variables.
    pub fn mlflow(&self) -> Result<Option<MlflowTarget>, Error> {
        let (uri, from) = match (env("MLFLOW_TRACKING_URI"), &self.config.mlflow.tracking_uri) {
            (Some(u), _) => (u, "MLFLOW_TRACKING_URI"),
            (None, Some(u)) => (u.clone(), "mlflow.tracking_uri"),
            (None, None) => return Ok(None),
        };
        if !(uri.starts_with("http://") || uri.starts_with("https://")) {
            return Err(Error::Config(format!(
                "{from} '{}': exa logs to an MLflow tracking server over its REST API; give its http:// or https:// URL",
                crate::text::redact_url(&uri)
            )));
        }
        let basic = match (env("MLFLOW_TRACKING_USERNAME"), env("MLFLOW_TRACKING_PASSWORD")) {
            (Some(u), Some(p)) => Some((u, p)),
            (Some(_), None) | (None, Some(_)) => {
                return Err(Error::Config("MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD go together; set both or neither".into()))
            }
            (None, None) => None,
        };
        let insecure = env_bool("MLFLOW_TRACKING_INSECURE_TLS")?.unwrap_or(false);
        let timeout = seconds("mlflow.timeout_s", self.config.mlflow.timeout_s.unwrap_or(10.0), 0.1).map_err(Error::Config)?;
        Ok(Some(MlflowTarget { uri, token: env("MLFLOW_TRACKING_TOKEN"), basic, insecure, timeout }))
    }

    /// How long a plugin of `domain` may run.
    pub fn plugin_timeout(&self, domain: Domain) -> Option<f64> {
        self.block(domain).plugin_timeout_s
    }
}

fn strict(flag: bool) -> Result<Sourced<bool>, Error> {
    if flag {
        return Ok(Sourced::new(true, Source::Flag));
    }
    Ok(match env_bool("EXAMLOPS_STRICT")? {
        Some(on) => Sourced::new(on, Source::Env("EXAMLOPS_STRICT")),
        None => Sourced::new(false, Source::Default),
    })
}

/// A yes-or-no environment variable: `None` when unset; 1, true, yes and on, or 0, false, no and off
/// (any case); anything else is refused, naming the variable, never read as no.
fn env_bool(name: &'static str) -> Result<Option<bool>, Error> {
    let Some(v) = env(name) else { return Ok(None) };
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(Some(true)),
        "0" | "false" | "no" | "off" => Ok(Some(false)),
        _ => Err(Error::Config(format!(
            "environment variable {name} is '{}': give 1/0, true/false, yes/no or on/off",
            crate::text::clean(v.chars().take(40).collect::<String>().as_str())
        ))),
    }
}

/// The programs' search path of a process with privileges of its own: the system's directories only.
const SYSTEM_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// Whether this process holds privileges its user does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Privilege {
    /// The user's own.
    User,
    /// File capabilities (`setcap cap_perfmon+ep`, for perf's RAPL counters): the kernel's AT_SECURE, which
    /// the dynamic loader heeds too (LD_PRELOAD and LD_LIBRARY_PATH are ignored).
    Capable,
}

/// This process's privilege; setuid or setgid is refused outright: every path, plugin and program the
/// invoking user names would run with another user's rights.
fn privilege() -> Result<Privilege, Error> {
    // SAFETY: these calls read the process's credentials and auxiliary vector, and touch no memory of ours.
    let (uid, euid, gid, egid, secure) =
        unsafe { (libc::getuid(), libc::geteuid(), libc::getgid(), libc::getegid(), libc::getauxval(libc::AT_SECURE)) };
    if uid != euid || gid != egid {
        return Err(Error::Refused(
            "exa is installed setuid or setgid, and will not run so: grant CAP_PERFMON for RAPL through perf instead (docs/measuring.md)"
                .into(),
        ));
    }
    Ok(if secure != 0 { Privilege::Capable } else { Privilege::User })
}

/// The programs' search path (plugins, GPU tools): a process with privileges of its own looks them up on the
/// system's PATH, not the invoking user's.
fn search_path(privilege: Privilege) -> Vec<PathBuf> {
    match privilege {
        Privilege::Capable => std::env::split_paths(SYSTEM_PATH).collect(),
        Privilege::User => std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default(),
    }
}

fn config_path(flag: Option<&PathBuf>) -> Result<Sourced<PathBuf>, Error> {
    if let Some(p) = flag {
        return Ok(Sourced::new(p.clone(), Source::Flag));
    }
    if let Some(p) = env("EXAMLOPS_CONFIG") {
        return Ok(Sourced::new(PathBuf::from(p), Source::Env("EXAMLOPS_CONFIG")));
    }
    let dir = paths::config_dir().ok_or_else(|| Error::Config("cannot find a home directory for the config file; pass --config".into()))?;
    Ok(Sourced::new(dir.join("finops.yaml"), Source::Default))
}

/// The MLflow tracking server records are logged to, as resolved from MLflow's own variables and the config.
#[derive(Debug, Clone)]
pub struct MlflowTarget {
    /// The server's base URL (http:// or https://).
    pub uri: String,
    /// MLFLOW_TRACKING_TOKEN: a bearer token.
    pub token: Option<String>,
    /// MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD.
    pub basic: Option<(String, String)>,
    /// MLFLOW_TRACKING_INSECURE_TLS: accept any certificate.
    pub insecure: bool,
    /// How long one request may take.
    pub timeout: std::time::Duration,
}

/// An http:// or https:// URL, or why not (without echoing it: a URL may carry a password).
pub fn http_url(url: &str) -> Result<&str, String> {
    const NOT: &str = "not an http:// or https:// URL with a host";
    // A URL parser drops tabs and line breaks without a word; a line break in a URL shown in a message forges
    // a line of its own ("error: ..."): no control character or space is part of a URL.
    if url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(format!("{NOT}: it holds a space or a control character"));
    }
    let rest = url.strip_prefix("http://").or_else(|| url.strip_prefix("https://"));
    match rest {
        Some(r) if !r.is_empty() && !r.starts_with('/') => {}
        _ => return Err(NOT.into()),
    }
    // What the client would refuse later, as a "builder error": a port past 65535, a host that is no host.
    match reqwest::Url::parse(url) {
        Ok(u) if u.host_str().is_some_and(|h| !h.is_empty()) => Ok(url),
        Ok(_) => Err(NOT.into()),
        Err(e) => Err(format!("{NOT}: {e}")),
    }
}

/// The grid region for the static intensity: the environment's, else the config's.
fn grid_region(g: &crate::model::config::GridConfig) -> Option<Sourced<String>> {
    match (env("EXAMLOPS_GRID_REGION"), &g.region) {
        (Some(r), _) => Some(Sourced::new(r, Source::Env("EXAMLOPS_GRID_REGION"))),
        (None, Some(r)) => Some(Sourced::new(r.clone(), Source::Config)),
        (None, None) => None,
    }
}

/// The grid endpoint from the environment, else the config.
fn grid_endpoint(g: &crate::model::config::GridConfig) -> Result<Option<Endpoint>, String> {
    let Some(base) = env("EXAMLOPS_GRID_INTENSITY_URL").or_else(|| g.url.clone()) else { return Ok(None) };
    endpoint(g, base, "grid-intensity", zone_set(g).map(|z| z.value))
}

/// The forecast endpoint (`carbon when`) from the environment, else the config; the zone, API, token and
/// timeout are the grid endpoint's.
fn forecast_endpoint(g: &crate::model::config::GridConfig) -> Result<Option<Endpoint>, String> {
    let Some(base) = forecast_base(g) else { return Ok(None) };
    endpoint(g, base, "forecast", zone_set(g).map(|z| z.value))
}

/// The forecast's URL template: EXAMLOPS_GRID_FORECAST_URL, else the config's; None when neither is set.
fn forecast_base(g: &crate::model::config::GridConfig) -> Option<String> {
    env("EXAMLOPS_GRID_FORECAST_URL").or_else(|| g.forecast_url.clone())
}

/// The grid zone set (EXAMLOPS_GRID_INTENSITY_ZONE, else the config's), and where: None when neither is.
fn zone_set(g: &crate::model::config::GridConfig) -> Option<Sourced<String>> {
    match (env("EXAMLOPS_GRID_INTENSITY_ZONE"), &g.zone) {
        (Some(z), _) => Some(Sourced::new(z, Source::Env("EXAMLOPS_GRID_INTENSITY_ZONE"))),
        (None, Some(z)) => Some(Sourced::new(z.clone(), Source::Config)),
        (None, None) => None,
    }
}

/// The history endpoint (measured runs, `import --grid-history`) from the environment, else the config; it
/// must say where `{from}` and `{to}` go. The zone, API, token and timeout are the grid endpoint's.
fn history_endpoint(g: &crate::model::config::GridConfig) -> Result<Option<Endpoint>, String> {
    let Some(base) = env("EXAMLOPS_GRID_HISTORY_URL").or_else(|| g.history_url.clone()) else { return Ok(None) };
    if !(base.contains("{from}") && base.contains("{to}")) {
        return Err(format!(
            "the history URL '{}' has no {{from}} and {{to}} for the window asked (e.g. https://api.carbonintensity.org.uk/intensity/{{from}}/{{to}})",
            crate::text::redact_url(&base)
        ));
    }
    endpoint(g, base, "history", zone_set(g).map(|z| z.value))
}

/// An endpoint at `base` with the grid's zone, key, API and timeout; `what` names its URL in errors.
fn endpoint(g: &crate::model::config::GridConfig, base: String, what: &str, zone: Option<String>) -> Result<Option<Endpoint>, String> {
    let token = env("EXAMLOPS_GRID_INTENSITY_TOKEN").or_else(|| g.token.clone());
    let shown = crate::text::redact_url(&base);
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(format!("the {what} URL '{shown}' is not http:// or https://"));
    }
    let url = match (&zone, base.contains("{zone}")) {
        (Some(z), true) => base.replace("{zone}", &encode(z)),
        (None, true) => return Err(format!("the {what} URL '{shown}' has {{zone}} but no zone is set (EXAMLOPS_GRID_INTENSITY_ZONE)")),
        (Some(z), false) => format!("{base}{}zone={}", if base.contains('?') { '&' } else { '?' }, encode(z)),
        (None, false) => base.clone(),
    };
    let timeout = match g.timeout_s {
        Some(t) => seconds("finops.carbon.grid.timeout_s", t, 0.001)?,
        None => Duration::from_secs_f64(GRID_TIMEOUT_S),
    };
    let auth = match env("EXAMLOPS_GRID_INTENSITY_API").or_else(|| g.api.clone()) {
        Some(api) => grid_auth(&api)?,
        None if host_of(&base).is_some_and(|h| h.contains("electricitymap")) => Auth::AuthToken,
        None => Auth::Bearer,
    };
    Ok(Some(Endpoint { url, zone, token, auth, timeout }))
}

/// How a named grid API wants its key; checked where the setting is read, so a typo is an error, not a fallback.
pub fn grid_auth(api: &str) -> Result<Auth, String> {
    match api.to_ascii_lowercase().as_str() {
        "electricitymaps" | "electricity-maps" => Ok(Auth::AuthToken),
        "watttime" | "uk" | "generic" => Ok(Auth::Bearer),
        other => Err(format!("'{}' is not electricitymaps, watttime, uk or generic", crate::text::clean(other))),
    }
}

fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let auth = rest.split(['/', '?', '#']).next()?;
    Some(auth.rsplit('@').next()?.to_ascii_lowercase())
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
