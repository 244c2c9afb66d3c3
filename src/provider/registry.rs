//! Finding, listing and resolving providers.
//!
//! Where providers come from, in the order a name is looked up:
//! 1. the built-ins (their names, and `expression`, cannot be taken by anyone else),
//! 2. `expression`: formulas inline in the config block,
//! 3. provider files in `<config dir>/providers/<domain>/*.yaml`,
//! 4. plugins `exa-<domain>-<name>` in `<config dir>/plugins/`, then on `PATH`.
//!
//! A later source offering a name an earlier one has is listed as shadowed,
//! so `providers` shows which one wins. The registry never falls back by
//! itself: resolving gives the provider or the reason it could not.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::Value;

use super::doc::{self, BUILTINS};
use super::formula::FormulaProvider;
use super::plugin::Plugin;
use super::{Coefficient, Domain, Meta, Provider, ProviderKind};
use crate::files::{check_trusted, is_executable, is_regular};
use crate::model::config::DomainConfig;
use crate::suggest::nearest;

/// Default time a plugin may take for one call.
pub const PLUGIN_TIMEOUT_S: f64 = 10.0;
/// The reserved name of the inline config provider.
pub const EXPRESSION: &str = "expression";

/// What the registry needs to know of the settings.
pub struct Context<'a> {
    /// The domain to resolve in.
    pub domain: Domain,
    /// The domain's config block.
    pub block: &'a DomainConfig,
    /// The directory holding `finops.yaml`, `providers/` and `plugins/`.
    pub config_dir: Option<&'a Path>,
    /// The directories of `PATH`, in order.
    pub path: Vec<PathBuf>,
    /// Only names resolve, never a path to a file or a program: the door for agents (MCP).
    pub names_only: bool,
}

impl Context<'_> {
    fn plugin_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.block.plugin_timeout_s.unwrap_or(PLUGIN_TIMEOUT_S))
    }

    fn plugin_config(&self) -> Value {
        self.block.config.clone().unwrap_or(Value::Object(Default::default()))
    }
}

/// Whether a listed provider can be used.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// It loads and can be used.
    Ok,
    /// It cannot be used: why.
    Broken(String),
    /// Another provider of the same name wins: which.
    Shadowed(String),
}

impl Status {
    /// The status as a word: ok, broken or shadowed.
    pub fn label(&self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Broken(_) => "broken",
            Status::Shadowed(_) => "shadowed",
        }
    }

    /// Why it is broken or shadowed.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Status::Ok => None,
            Status::Broken(r) | Status::Shadowed(r) => Some(r),
        }
    }
}

/// One provider as listed.
pub struct Entry {
    /// The provider's name.
    pub name: String,
    /// How it is defined.
    pub kind: ProviderKind,
    /// The file or program it comes from; `None` for built-ins.
    pub origin: Option<PathBuf>,
    /// Whether it can be used.
    pub status: Status,
    /// The loaded provider, when it loaded.
    pub provider: Option<Arc<dyn Provider>>,
}

/// Every provider of a domain that exa can find, in resolution order.
pub struct Registry {
    /// The domain listed.
    pub domain: Domain,
    /// The providers found.
    pub entries: Vec<Entry>,
}

fn loaded(kind: ProviderKind, origin: Option<PathBuf>, name: String, r: Result<Arc<dyn Provider>, String>) -> Entry {
    match r {
        Ok(p) => Entry { name: p.meta().name.clone(), kind, origin, status: Status::Ok, provider: Some(p) },
        Err(why) => Entry { name, kind, origin, status: Status::Broken(why), provider: None },
    }
}

/// The built-in provider named `name` of `domain`.
pub fn builtin(domain: Domain, name: &str) -> Option<Arc<dyn Provider>> {
    builtins(domain).find(|p| p.meta().name == name)
}

fn builtins(domain: Domain) -> impl Iterator<Item = Arc<dyn Provider>> {
    static ALL: OnceLock<Vec<Arc<dyn Provider>>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        BUILTINS
            .iter()
            .map(|(path, text)| {
                // A built-in that does not load is a bug caught by the unit tests, never at a user's prompt.
                let p = doc::load(text, ProviderKind::Builtin, None).unwrap_or_else(|e| panic!("built-in {path}: {e}"));
                Arc::new(p) as Arc<dyn Provider>
            })
            .collect()
    });
    all.iter().filter(move |p| p.meta().domain == domain).cloned()
}

fn reserved(domain: Domain, name: &str) -> bool {
    name == EXPRESSION || BUILTINS.iter().any(|(path, _)| path.starts_with(&format!("providers/{domain}/{name}.")))
}

/// The `expression` provider from the config block's formulas.
pub fn expression(ctx: &Context) -> Result<Arc<dyn Provider>, String> {
    let block = ctx.block;
    if block.formulas.is_empty() {
        return Err(format!("provider 'expression' needs formulas under finops.{}.formulas in the config", ctx.domain));
    }
    // The domain's built-in coefficients are all available, then the config's own.
    let mut coefficients: Vec<Coefficient> = Vec::new();
    for p in builtins(ctx.domain) {
        for c in &p.meta().coefficients {
            if !coefficients.iter().any(|k| k.name == c.name) {
                coefficients.push(c.clone());
            }
        }
    }
    for (name, v) in &block.coefficients {
        if !coefficients.iter().any(|k| &k.name == name) {
            coefficients.push(Coefficient { name: name.clone(), default: *v, env: None, unit: None, description: None });
        }
    }
    let meta = Meta {
        name: EXPRESSION.into(),
        kind: ProviderKind::Expression,
        domain: ctx.domain,
        uncertainty: block.metadata.uncertainty,
        methodology: block.metadata.methodology.clone().unwrap_or_else(|| "formulas from the config file".into()),
        source: block.metadata.source.clone(),
        accepts: Vec::new(),
        coefficients,
        outputs: Vec::new(),
        formulas: block.formulas.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        live: None,
        origin: None,
        digest: String::new(),
    };
    FormulaProvider::new(meta).map(|p| Arc::new(p) as Arc<dyn Provider>).map_err(|e| format!("finops.{}.formulas: {e}", ctx.domain))
}

fn load_file(ctx: &Context, path: &Path) -> Result<Arc<dyn Provider>, String> {
    if !is_regular(path) {
        return Err(format!("{} is not a regular file", path.display()));
    }
    check_trusted(path, "provider file")?;
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let p = doc::load(&text, ProviderKind::Yaml, Some(path)).map_err(|e| format!("{}: {e}", path.display()))?;
    if p.meta().domain != ctx.domain {
        return Err(format!("{} is a {} provider, not a {} one", path.display(), p.meta().domain, ctx.domain));
    }
    Ok(Arc::new(p))
}

fn load_plugin(ctx: &Context, name: &str, program: &Path) -> Result<Arc<dyn Provider>, String> {
    check_trusted(program, "plugin")?;
    Plugin::load(name, ctx.domain, program, ctx.plugin_timeout(), ctx.plugin_config())
        .map(|p| Arc::new(p) as Arc<dyn Provider>)
        .map_err(|e| format!("plugin {}: {e}", program.display()))
}

fn provider_files(ctx: &Context) -> Vec<PathBuf> {
    let Some(dir) = ctx.config_dir else { return Vec::new() };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("providers").join(ctx.domain.as_str()))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")) && is_regular(p))
        .collect();
    files.sort();
    files
}

/// Plugin programs of this domain: (name, path), config dir first, then `PATH` order.
fn plugin_programs(ctx: &Context) -> Vec<(String, PathBuf)> {
    let prefix = ctx.domain.plugin_prefix();
    let dirs = ctx.config_dir.map(|d| d.join("plugins")).into_iter().chain(ctx.path.iter().cloned());
    let mut found = Vec::new();
    // One program reached by two routes (the plugins directory also on PATH) is one plugin.
    let mut seen = std::collections::HashSet::new();
    for dir in dirs {
        let mut here: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let file = e.file_name().to_str()?.to_string();
                let name = file.strip_prefix(prefix)?.to_string();
                (!name.is_empty() && is_executable(&e.path())).then(|| (name, e.path()))
            })
            .collect();
        here.sort();
        found.extend(here.into_iter().filter(|(_, p)| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))));
    }
    found
}

/// Whether `s` is a provider's name as `exa finops carbon providers` lists it (letters, digits, `.`, `_`, `-`;
/// 1 to 64 of them, a letter or digit first), never a path, a program or a URL.
pub fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && s.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !looks_like_path(s)
}

fn looks_like_path(name: &str) -> bool {
    let ext = std::path::Path::new(name).extension().map(std::ffi::OsStr::to_ascii_lowercase);
    name.contains('/') || ext.is_some_and(|e| e == "yaml" || e == "yml")
}

impl Registry {
    /// Every provider of the domain, each with its status. Runs each plugin's `metadata`.
    pub fn list(ctx: &Context) -> Registry {
        let mut entries: Vec<Entry> = builtins(ctx.domain)
            .map(|p| Entry {
                name: p.meta().name.clone(),
                kind: ProviderKind::Builtin,
                origin: None,
                status: Status::Ok,
                provider: Some(p),
            })
            .collect();
        if !ctx.block.formulas.is_empty() || ctx.block.provider.as_deref() == Some(EXPRESSION) {
            entries.push(loaded(ProviderKind::Expression, None, EXPRESSION.into(), expression(ctx)));
        }
        for path in provider_files(ctx) {
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("?").to_string();
            entries.push(loaded(ProviderKind::Yaml, Some(path.clone()), stem, load_file(ctx, &path)));
        }
        // Each plugin's `metadata` call runs at once, so one slow plugin costs its timeout once, not per plugin.
        let programs = plugin_programs(ctx);
        let answers: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = programs.iter().map(|(name, path)| s.spawn(move || load_plugin(ctx, name, path))).collect();
            handles.into_iter().map(|h| h.join().expect("plugin loaders do not panic")).collect()
        });
        for ((name, path), answer) in programs.into_iter().zip(answers) {
            entries.push(loaded(ProviderKind::Plugin, Some(path), name, answer));
        }
        // Decide who holds each name: built-ins always, then the first that loaded.
        for i in 0..entries.len() {
            if entries[i].kind == ProviderKind::Builtin {
                continue;
            }
            let name = entries[i].name.clone();
            if entries[i].kind != ProviderKind::Expression && reserved(ctx.domain, &name) {
                if entries[i].status == Status::Ok {
                    entries[i].status = Status::Broken(format!("'{name}' is a built-in name and cannot be taken; rename this provider"));
                }
                continue;
            }
            let winner = entries[..i].iter().find(|e| e.name == name && e.status == Status::Ok);
            if let (Some(w), Status::Ok) = (winner, &entries[i].status) {
                let by = w.origin.as_ref().map_or_else(|| w.kind.to_string(), |o| format!("{} {}", w.kind, o.display()));
                entries[i].status = Status::Shadowed(format!("'{name}' is taken by {by}"));
            }
        }
        Registry { domain: ctx.domain, entries }
    }

    /// The provider `name` resolves to, or why it cannot be used.
    pub fn resolve(ctx: &Context, name: &str) -> Result<Arc<dyn Provider>, String> {
        if let Some(p) = builtin(ctx.domain, name) {
            return Ok(p);
        }
        if name == EXPRESSION {
            return expression(ctx);
        }
        if ctx.names_only && !is_name(name) {
            return Err(format!(
                "'{}' is not a provider name; name one that `exa finops {} providers` lists",
                crate::text::clean(name),
                ctx.domain
            ));
        }
        if looks_like_path(name) {
            let path = Path::new(name);
            if !path.exists() {
                return Err(format!("{name}: no such file"));
            }
            if matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")) {
                return load_file(ctx, path);
            }
            if !is_executable(path) {
                return Err(format!("{name} is neither a provider file (.yaml) nor an executable plugin"));
            }
            let stem = path.file_name().and_then(|s| s.to_str()).unwrap_or(name);
            let short = stem.strip_prefix(ctx.domain.plugin_prefix()).unwrap_or(stem);
            return load_plugin(ctx, short, path);
        }
        // A file of that name refused as untrusted: its reason, rather than "no such provider".
        let mut refused = None;
        for path in provider_files(ctx) {
            if let Err(why) = check_trusted(&path, "provider file") {
                if path.file_stem().and_then(|s| s.to_str()) == Some(name) {
                    refused = Some(why);
                }
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            // Match on the document's name without compiling every file.
            let named = crate::text::check_yaml_depth(&text)
                .ok()
                .and_then(|()| serde_yaml_ng::from_str::<serde_yaml_ng::Value>(&text).ok())
                .and_then(|v| v.get("name").and_then(|n| n.as_str()).map(str::to_string))
                .or_else(|| path.file_stem().and_then(|s| s.to_str()).map(str::to_string));
            if named.as_deref() == Some(name) {
                return load_file(ctx, &path);
            }
        }
        if let Some((n, path)) = plugin_programs(ctx).into_iter().find(|(n, _)| n == name) {
            return load_plugin(ctx, &n, &path);
        }
        if let Some(why) = refused {
            return Err(why);
        }
        let known = Registry::known_names(ctx);
        let hint = match nearest(name, known.iter().map(String::as_str)) {
            Some(n) => format!("; did you mean '{n}'?"),
            None => format!("; known: {}", known.join(", ")),
        };
        Err(format!("no {} provider named '{name}'{hint}", ctx.domain))
    }

    /// Names that can be resolved, without running any plugin.
    fn known_names(ctx: &Context) -> Vec<String> {
        let mut names: Vec<String> = builtins(ctx.domain).map(|p| p.meta().name.clone()).collect();
        names.extend(provider_files(ctx).iter().filter_map(|p| p.file_stem().and_then(|s| s.to_str()).map(str::to_string)));
        names.extend(plugin_programs(ctx).into_iter().map(|(n, _)| n));
        names
    }

    /// A provider of the domain that accepts CPU-hours, to name in a refusal.
    pub fn cpu_capable(domain: Domain) -> Option<String> {
        builtins(domain).find(|p| p.meta().accepts("cpu_hours")).map(|p| p.meta().name.clone())
    }
}
