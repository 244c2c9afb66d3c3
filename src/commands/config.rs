//! `exa config path|show|init`.

use std::path::Path;

use crate::model::IndexMap;
use serde::Serialize;

use crate::error::Error;
use crate::model::{Coef, Domain, Source, Sourced};
use crate::pricing;
use crate::settings::config::STARTER;
use crate::settings::Settings;

#[derive(Debug, Serialize)]
pub struct ConfigPath {
    pub path: String,
    pub source: Source,
    pub exists: bool,
}

pub fn path(settings: &Settings) -> ConfigPath {
    ConfigPath {
        path: settings.config_path.value.display().to_string(),
        source: settings.config_path.source,
        exists: settings.config_exists,
    }
}

#[derive(Debug, Serialize)]
pub struct DomainSettings {
    pub provider: Sourced<String>,
    pub fallback_reason: Option<String>,
    pub coefficients: IndexMap<String, Coef>,
    pub notes: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Effective {
    pub config: ConfigPath,
    pub strict: Sourced<bool>,
    /// Where `exa gpu` and `measure` read the GPUs, and the NVML library named, if one is.
    pub gpu_source: Sourced<crate::settings::GpuChoice>,
    pub nvml_library: Option<Sourced<std::path::PathBuf>>,
    /// Where `measure` reads CPU and memory energy: the setting, and what it finds on this host now.
    pub cpu_source: Sourced<&'static str>,
    pub cpu_energy: CpuInEffect,
    /// Where `measure` and the exporters read the whole node's power: the setting, and the meter it finds here now
    /// (`meter` null and `reason` why, without one).
    pub node_source: Sourced<&'static str>,
    pub node_meter: NodeInEffect,
    /// The grid region for the static intensity, and where it was set; null: the provider's default intensity.
    pub grid_region: Option<Sourced<String>>,
    pub carbon: DomainSettings,
    pub cost: DomainSettings,
}

fn domain(settings: &Settings, d: Domain) -> Result<DomainSettings, Error> {
    let r = pricing::resolve(settings, d, None)?;
    let (mut coefficients, notes) = pricing::coefficients(settings, d, r.provider.as_ref(), &[])?;
    // exa's own terms beside every carbon estimate (embodied carbon, water), as they are in effect: set or not.
    if d == Domain::Carbon {
        coefficients.extend(pricing::footprint::terms(&settings.block(d).coefficients, &[], None)?);
    }
    Ok(DomainSettings {
        provider: Sourced::new(r.provider.meta().name.clone(), r.source),
        fallback_reason: r.fallback_reason,
        coefficients,
        notes,
    })
}

/// What the CPU source setting finds on this host: the source and its counters, or why none is read.
#[derive(Debug, Serialize)]
pub struct CpuInEffect {
    pub source: Option<&'static str>,
    pub zones: Vec<String>,
    /// What it leaves out, and why (psys, a duplicate MMIO zone, a mirrored package).
    pub notes: Vec<String>,
    pub reason: Option<String>,
}

fn cpu_in_effect(settings: &crate::settings::Reading<'_>) -> CpuInEffect {
    match crate::sources::cpu::open(settings.cpu.source.value, &settings.cpu.root.value) {
        Ok(s) => {
            CpuInEffect { source: Some(s.kind()), zones: s.zones().iter().map(|z| z.id.clone()).collect(), notes: s.notes(), reason: None }
        }
        Err(e) => CpuInEffect {
            source: None,
            zones: Vec::new(),
            notes: Vec::new(),
            reason: Some(format!("{e}; measure prices CPU-hours by an assumed power (cpu_tdp_watts)")),
        },
    }
}

/// What the node source setting finds on this host.
#[derive(Debug, Serialize)]
pub struct NodeInEffect {
    pub source: Option<&'static str>,
    pub meter: Option<String>,
    pub reason: Option<String>,
}

fn node_in_effect(settings: &crate::settings::Reading<'_>) -> NodeInEffect {
    let s = &settings.node.value;
    match crate::sources::node::open(*s, (&settings.cpu.root.value, &settings.path), settings.redfish.as_ref(), settings.gpu.timeout.value)
    {
        Ok(m) => NodeInEffect { source: Some(m.kind()), meter: Some(m.describe()), reason: None },
        Err(e) => NodeInEffect { source: None, meter: None, reason: Some(e) },
    }
}

pub fn show(settings: &crate::settings::Reading<'_>) -> Result<Effective, Error> {
    Ok(Effective {
        config: path(settings),
        strict: settings.strict.clone(),
        gpu_source: settings.gpu.source.clone(),
        nvml_library: settings.gpu.nvml_library.clone(),
        cpu_source: Sourced::new(settings.cpu.source.value.as_str(), settings.cpu.source.source),
        cpu_energy: cpu_in_effect(settings),
        node_source: Sourced::new(settings.node.value.as_str(), settings.node.source),
        node_meter: node_in_effect(settings),
        grid_region: settings.grid_region.clone(),
        carbon: domain(settings, Domain::Carbon)?,
        cost: domain(settings, Domain::Cost)?,
    })
}

#[derive(Debug, Serialize)]
pub struct ConfigWritten {
    pub path: String,
    pub replaced: bool,
    /// The directories made beside it for your provider files and plugins.
    pub directories: Vec<String>,
}

/// Writes the starter file whole or not at all: a temporary file beside it, then a rename.
pub fn init(settings: &Settings, force: bool) -> Result<ConfigWritten, Error> {
    let path: &Path = &settings.config_path.value;
    let exists = path.exists();
    if exists && !force {
        return Err(Error::Refused(format!("{} already exists; pass --force to replace it", path.display())));
    }
    crate::files::write_atomic(path, STARTER.as_bytes()).map_err(|e| Error::Failed(format!("cannot write {}: {e}", path.display())))?;
    // The directories docs/methodology.md tells people to copy providers and plugins into.
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut directories = Vec::new();
    for sub in ["providers/carbon", "providers/cost", "plugins"] {
        let d = dir.join(sub);
        std::fs::create_dir_all(&d).map_err(|e| Error::Failed(format!("cannot create {}: {e}", d.display())))?;
        directories.push(d.display().to_string());
    }
    Ok(ConfigWritten { path: path.display().to_string(), replaced: exists, directories })
}
