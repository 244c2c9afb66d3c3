//! One function per verb: `fn(&Settings, ...) -> Result<Report>`. No printing here.

pub mod budget;
pub mod config;
pub mod db;
pub mod estimate;
pub mod gpu;
pub mod hardware;
pub mod import;
pub mod kubernetes;
pub mod measure;
pub mod metrics;
pub mod providers;
pub mod record;
pub mod regions;
pub mod report;
pub mod show;
pub mod sync;
pub mod telemetry;
pub mod validate;
pub mod when;

use crate::error::Error;
use crate::settings::{GpuChoice, Reading};
use crate::sources::gpu::amd_smi::AmdSmi;
use crate::sources::gpu::nvidia_smi::NvidiaSmi;
use crate::sources::gpu::nvml::Nvml;
use crate::sources::gpu::{GpuSource, SampleError};
use crate::sources::{cpu, node};

/// The CPU source settings name; a source named by flag, environment or config that cannot be read
/// refuses the run before it starts; under `auto`, why none is read (said once on stderr).
/// An inference server's counters read at the start (`--tokens-from`, `--tokens-model`), for `measure` and
/// `gpu serve`: a URL that is not HTTP is malformed; a server that cannot be read refuses to start.
pub(crate) fn tokens_from(url: &str, model: Option<&str>) -> Result<crate::sources::tokens::Scrape, Error> {
    crate::settings::http_url(url).map_err(|e| Error::Usage(format!("--tokens-from: {e}")))?;
    crate::sources::tokens::start(url, model)
        .map_err(|e| Error::Failed(format!("--tokens-from {}: {e}; nothing was run", crate::text::redact_url(url))))
}

pub(crate) fn cpu_source(settings: &Reading<'_>) -> Result<Result<Box<dyn cpu::CpuSource>, String>, Error> {
    let choice = &settings.cpu.source;
    match cpu::open(choice.value, &settings.cpu.root.value) {
        Ok(s) => Ok(Ok(s)),
        Err(e) if choice.value == cpu::CpuChoice::None => Ok(Err(e.to_string())),
        Err(e) if choice.source != crate::model::Source::Default => {
            Err(Error::Failed(format!("cannot read CPU energy ({} from {}): {e}", choice.value.as_str(), choice.source)))
        }
        Err(e) => {
            if matches!(e, cpu::CpuError::NoAccess(_)) {
                settings.warn(format!("CPU energy is not read: {e}"));
            }
            Ok(Err(e.to_string()))
        }
    }
}

/// The node's power source, or why there is none: one asked for (by flag, variable or config) that cannot be opened
/// refuses the run before its command starts; auto without a meter is said in the report.
pub(crate) fn node_source(settings: &Reading<'_>) -> Result<Result<Box<dyn node::NodeSource>, String>, Error> {
    let choice = &settings.node;
    match node::open(choice.value, (&settings.cpu.root.value, &settings.path), settings.redfish.as_ref(), settings.gpu.timeout.value) {
        Ok(s) => Ok(Ok(s)),
        Err(e) if matches!(choice.value, node::NodeChoice::Auto | node::NodeChoice::None) => Ok(Err(e)),
        Err(e) => Err(Error::Failed(format!("cannot read the node's power ({} from {}): {e}", choice.value.as_str(), choice.source))),
    }
}

fn boxed<S: GpuSource + 'static>(s: S) -> Box<dyn GpuSource> {
    Box::new(s)
}

/// The GPU source the settings choose, with their deadline: the same for `exa gpu` and `measure`.
///
/// `auto` takes NVML if it loads, else nvidia-smi, else amd-smi; with none of them the host has no GPU
/// to read (`Missing`). A source named by the flag, the environment or the config that cannot be used
/// is `Failed`, and so is an NVML library named by path that does not load: never a silent fallback.
pub fn gpu_source(settings: &Reading<'_>) -> Result<Box<dyn GpuSource>, SampleError> {
    let g = &settings.gpu;
    let lib = g.nvml_library.as_ref().map(|p| p.value.as_path());
    let nvml = || Nvml::open(lib).map(boxed);
    let smi = || NvidiaSmi::from_path(&settings.path, g.timeout.value).map(boxed);
    let amd = || AmdSmi::from_path(&settings.path, g.timeout.value).map(boxed);
    let from = match g.source.source {
        crate::settings::Source::Flag => "--gpu-source".to_string(),
        ref other => other.to_string(),
    };
    let named = |e: SampleError| match e {
        SampleError::Missing(why) => SampleError::Failed(format!("GPU source {} (from {from}): {why}", g.source.value)),
        other => other,
    };
    match g.source.value {
        GpuChoice::Nvml => nvml().map_err(named),
        GpuChoice::NvidiaSmi => smi().map_err(named),
        GpuChoice::AmdSmi => amd().map_err(named),
        GpuChoice::Auto => match nvml() {
            Ok(s) => Ok(s),
            Err(SampleError::Missing(_)) if lib.is_none() => smi().or_else(|_| amd()).map_err(|_| {
                SampleError::Missing(
                    "no nvidia-smi on PATH: no GPU to read on this host (NVML does not load and there is no amd-smi either)".into(),
                )
            }),
            Err(e) => Err(e),
        },
    }
}

/// `--since`/`--until`: a UTC date or time, or an age (`-7d`).
pub(crate) fn when(flag: &str, s: &str, end_of_day: bool) -> Result<i64, Error> {
    if let Some(age) = s.strip_prefix('-') {
        let d = crate::time::parse_duration(age).map_err(|e| Error::Usage(format!("{flag} {s}: {e}")))?;
        return Ok(crate::time::now_unix() - i64::try_from(d.as_secs()).unwrap_or(i64::MAX / 2));
    }
    let t = crate::time::parse_utc(s).map_err(|e| Error::Usage(format!("{flag}: {e}")))?;
    Ok(if end_of_day && crate::time::is_date_only(s) { t + 86_400 } else { t })
}

/// A cluster name as it goes into run ids and keys (an importer's `--cluster`): printable, no `:`.
pub(crate) fn check_cluster(c: &str) -> Result<(), Error> {
    if c.is_empty() || c.len() > 100 || c.contains(':') || c.chars().any(|ch| ch.is_control() || ch.is_whitespace()) {
        return Err(Error::Usage(format!(
            "--cluster '{}' must be 1 to 100 printable characters without ':' or spaces",
            c.escape_default()
        )));
    }
    Ok(())
}
