//! What reading GPUs and CPUs takes: `measure` and the exporters (over time, with the exporters' flags), and
//! `exa gpu`, `config show` and MCP's `gpu_read` (one reading, the source alone). Resolved per command from
//! its own flags on top of the [`Settings`] every command shares, which a [`Reading`] derefs to.

use std::path::PathBuf;
use std::time::Duration;

use super::{env, env_amount, env_bool, http_url, seconds, Privilege, Settings, GPU_TOOL_TIMEOUT_S, INTERVAL_S, MIN_INTERVAL_S};
use crate::cli::TelemetryOpts;
use crate::error::Error;
use crate::model::config::Config;
use crate::model::gpu::GpuChoice;
use crate::model::{Source, Sourced};

/// The flags a command that reads GPUs was given. Each command's own flags are read into this where it is
/// dispatched, its arguments destructured whole, so a flag added to it is a flag someone decided about.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadingFlags<'a> {
    /// What reading over time takes (measure and the exporters); `None` for one reading.
    pub telemetry: Option<&'a TelemetryOpts>,
    /// `--gpu-source`, where the command has it outside its telemetry options (`exa gpu`).
    pub gpu_source: Option<&'a str>,
    /// `--otlp` (measure's push at its end, or the exporter's endpoint).
    pub otlp: Option<&'a str>,
    /// `measure --gpus`, and whether the command is `measure` (the job's GPUs are then decided).
    pub measure: Option<Option<&'a str>>,
    /// The exporters' Kubernetes flags.
    pub pods: Option<&'a crate::cli::PodsOpts>,
}

/// The settings of a command that reads GPUs and CPUs: its own, over the ones every command shares.
pub struct Reading<'g> {
    /// The settings every command shares.
    pub global: &'g Settings,
    /// GPU reading settings.
    pub gpu: GpuSettings,
    /// CPU energy reading settings.
    pub cpu: CpuSettings,
    /// Where the whole node's power is read.
    pub node: Sourced<crate::sources::node::NodeChoice>,
    /// The BMC's Redfish chassis, when one is set.
    pub redfish: Option<crate::sources::redfish::Conf>,
    /// The electricity price for `measure`, when one is set.
    pub power_cost_per_kwh: Option<Sourced<f64>>,
    /// What the exporters (and `measure`'s push) export, and where.
    pub telemetry: TelemetrySettings,
    /// Where an exporter charging the node's energy to its pods reads them (`--pods`); None when it does not.
    pub pods: Option<crate::sources::kube::Config>,
}

impl std::ops::Deref for Reading<'_> {
    type Target = Settings;
    fn deref(&self) -> &Settings {
        self.global
    }
}

impl<'g> Reading<'g> {
    /// Resolves a reading command's settings: its flags, else the environment, else the config, else the
    /// default. The spec's `GENAI_*` variables count only for the commands that read over time.
    pub fn resolve(global: &'g Settings, flags: ReadingFlags<'_>) -> Result<Reading<'g>, Error> {
        let opts = flags.telemetry;
        let mut gpu = gpu_settings(opts.and_then(|t| t.interval), opts.is_some())?;
        let flag = opts.map_or(flags.gpu_source, |t| t.gpu_source.gpu_source.as_deref());
        gpu_source(flag, &global.config, &mut gpu)?;
        if let Some(lib) = gpu.nvml_library.take_if(|_| global.privilege == Privilege::Capable) {
            global.warn(format!(
                "exa runs with file capabilities: the NVML library {} (from {}) is not loaded, only the system's",
                lib.value.display(),
                lib.source
            ));
        }
        if let Some(gpus) = flags.measure {
            let var = |name: &str| std::env::var(name).ok();
            gpu.scope = crate::sources::gpu::scope::decide(gpus, &var).map_err(Error::Usage)?;
        }
        let cpu = cpu_settings(opts.and_then(|t| t.cpu_source.as_deref()), &global.config)?;
        let node = node_source(opts.and_then(|t| t.node_source.as_deref()), &global.config)?;
        let power_cost_per_kwh = match opts.and_then(|t| t.power_cost_per_kwh) {
            Some(p) => Some(Sourced::new(p, Source::Flag)),
            None => {
                env_amount("EXAMLOPS_POWER_COST_PER_KWH")?.or(if opts.is_some() { env_amount("GENAI_POWER_COST_PER_KWH")? } else { None })
            }
        };
        let telemetry = telemetry_settings(opts, flags.otlp, power_cost_per_kwh.clone(), gpu.interval.clone())?;
        if let Some(note) = exported_co2_note(&telemetry, global.grid_region.as_ref()) {
            global.warn(note);
        }
        let pods = match flags.pods {
            Some(p) => pod_settings(p, &cpu.root.value, gpu.interval.value)?,
            None => None,
        };
        let redfish = redfish(&global.config);
        Ok(Reading { global, gpu, cpu, node, redfish, power_cost_per_kwh, telemetry, pods })
    }
}

/// Where the kubelet's PodResources socket is on a node.
pub const POD_RESOURCES_SOCKET: &str = "/var/lib/kubelet/pod-resources/kubelet.sock";

/// The pods' settings, when `--pods` (or EXAMLOPS_PODS) asks for them: each from its flag, else its variable,
/// else its default. The API is the cluster's own when exa runs in a pod (KUBERNETES_SERVICE_HOST), with the
/// pod's service-account token and CA (EXAMLOPS_KUBE_TOKEN_FILE and EXAMLOPS_KUBE_CA_FILE name others); the node
/// is EXAMLOPS_NODE_NAME, else NODE_NAME (the downward API's, as the shipped DaemonSet sets it), else the host name.
fn pod_settings(p: &crate::cli::PodsOpts, root: &std::path::Path, interval_s: f64) -> Result<Option<crate::sources::kube::Config>, Error> {
    use crate::sources::kube::{api::Api, charge::IdlePolicy, Config};
    if !p.pods && env_bool("EXAMLOPS_PODS")? != Some(true) {
        return Ok(None);
    }
    let policy = match (&p.pod_idle, env("EXAMLOPS_POD_IDLE")) {
        (Some(f), _) => IdlePolicy::parse(f)
            .ok_or_else(|| Error::Usage(format!("--pod-idle: '{}' is not none, even or weighted", f.escape_default())))?,
        (None, Some(v)) => IdlePolicy::parse(v.trim())
            .ok_or_else(|| Error::Config("environment variable EXAMLOPS_POD_IDLE is not none, even or weighted".into()))?,
        (None, None) => IdlePolicy::None,
    };
    let keys = |flag: &[String], var: &'static str| -> Result<Vec<String>, Error> {
        let listed: Vec<String> = if flag.is_empty() {
            env(var).map(|v| v.split(',').map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect()).unwrap_or_default()
        } else {
            flag.iter().map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect()
        };
        // A Kubernetes key: an optional DNS prefix and `/`, then a name of letters, digits, `-`, `_` and `.`.
        match listed.iter().find(|k| k.len() > 316 || !k.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))) {
            Some(bad) => Err(Error::Usage(format!("'{}' is not a Kubernetes label or annotation key", bad.escape_default()))),
            None => Ok(listed),
        }
    };
    let labels = keys(&p.pod_label, "EXAMLOPS_POD_LABELS")?;
    let annotations = keys(&p.pod_annotation, "EXAMLOPS_POD_ANNOTATIONS")?;
    // Each key once; two keys that would be one label name would make every scrape fail.
    let distinct = |listed: Vec<String>, what: &str| -> Result<Vec<String>, Error> {
        let mut out: Vec<String> = Vec::new();
        for k in listed {
            if out.contains(&k) {
                continue;
            }
            let name = crate::sources::kube::label_name(&k);
            if let Some(other) = out.iter().find(|o| crate::sources::kube::label_name(o) == name) {
                return Err(Error::Usage(format!(
                    "pod {what}s '{}' and '{}' would both be exported as k8s_pod_{what}_{name}: give one of them",
                    other.escape_default(),
                    k.escape_default()
                )));
            }
            out.push(k);
        }
        Ok(out)
    };
    let (labels, annotations) = (distinct(labels, "label")?, distinct(annotations, "annotation")?);
    let socket = match p.pod_resources.clone().or_else(|| env("EXAMLOPS_POD_RESOURCES")) {
        Some(s) if s.trim() == "none" => None,
        Some(s) => Some(PathBuf::from(s)),
        None => Some(PathBuf::from(POD_RESOURCES_SOCKET)),
    };
    let in_cluster = || {
        let host = env("KUBERNETES_SERVICE_HOST")?;
        let port = env("KUBERNETES_SERVICE_PORT").unwrap_or_else(|| "443".into());
        // An IPv6 service address goes in brackets.
        Some(if host.contains(':') { format!("https://[{host}]:{port}") } else { format!("https://{host}:{port}") })
    };
    let url = match (&p.kube_api, env("EXAMLOPS_KUBE_API")) {
        (Some(u), _) if u.trim() == "none" => None,
        (Some(u), _) => Some(http_url(u).map_err(|e| Error::Usage(format!("--kube-api: {e}")))?.to_string()),
        (None, Some(u)) if u.trim() == "none" => None,
        (None, Some(u)) => {
            Some(http_url(&u).map_err(|e| Error::Config(format!("environment variable EXAMLOPS_KUBE_API: {e}")))?.to_string())
        }
        (None, None) => in_cluster(),
    };
    let account = PathBuf::from(crate::sources::kube::api::SERVICE_ACCOUNT);
    let file = |var: &str, name: &str| env(var).map(PathBuf::from).or_else(|| Some(account.join(name)).filter(|p| p.is_file()));
    let node = env("EXAMLOPS_NODE_NAME").or_else(|| env("NODE_NAME")).or_else(host_name).unwrap_or_default();
    let https = |url: &str| url.starts_with("https:");
    let api = url.map(|url| Api {
        ca_file: file("EXAMLOPS_KUBE_CA_FILE", "ca.crt").filter(|_| https(&url)),
        // The pod's own token goes only over TLS; one named by EXAMLOPS_KUBE_TOKEN_FILE goes where it is told.
        token_file: env("EXAMLOPS_KUBE_TOKEN_FILE")
            .map(PathBuf::from)
            .or_else(|| Some(account.join("token")).filter(|p| p.is_file() && https(&url))),
        url,
        node: node.clone(),
        deadline: Duration::from_secs_f64(interval_s.clamp(2.0, 10.0)),
    });
    Ok(Some(Config { root: root.to_path_buf(), socket, api, policy, labels, annotations }))
}

/// This host's name (`gethostname(2)`).
fn host_name() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname(2) writes at most the length given into the buffer.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    (rc == 0).then(|| String::from_utf8_lossy(buf.split(|b| *b == 0).next().unwrap_or_default()).into_owned()).filter(|h| !h.is_empty())
}

/// The GPU settings shared by `exa gpu` and `measure`.
#[derive(Debug, Clone)]
pub struct GpuSettings {
    /// Seconds between readings.
    pub interval: Sourced<f64>,
    /// The deadline of one call of the GPU tool.
    pub timeout: Sourced<Duration>,
    /// Where readings come from: `auto`, `nvml`, `nvidia-smi` or `amd-smi`.
    pub source: Sourced<GpuChoice>,
    /// The NVML library to load, when one is named (else `libnvidia-ml.so.1` from the loader's path).
    pub nvml_library: Option<Sourced<PathBuf>>,
    /// The GPUs `measure` reads: the job's (from `--gpus` or the scheduler's variables), else all.
    pub scope: crate::sources::gpu::scope::Scope,
    /// Whether CUDA numbers devices in PCI bus order (`CUDA_DEVICE_ORDER=PCI_BUS_ID`).
    pub pci_order: bool,
}

/// Where `measure` reads CPU and memory energy.
pub struct CpuSettings {
    /// `auto`, `powercap`, `perf` or `none`.
    pub source: Sourced<crate::sources::cpu::CpuChoice>,
    /// The host root holding `sys/` and `proc/` (`/`, or EXAMLOPS_HOST_ROOT: a container's mount of the host).
    pub root: Sourced<PathBuf>,
    /// Ranks the launcher placed on this node, and the variable that says so; more than one share it.
    pub ranks: Option<(u32, &'static str)>,
}

/// The CPU source: `--cpu-source`, else `EXAMLOPS_CPU_SOURCE`, else `cpu.source` in the config, else auto;
/// the host root from `EXAMLOPS_HOST_ROOT`; the ranks on this node from the launcher's variables.
fn cpu_settings(flag: Option<&str>, config: &Config) -> Result<CpuSettings, Error> {
    use crate::sources::cpu::CpuChoice;
    let source = if let Some(f) = flag {
        Sourced::new(f.parse::<CpuChoice>().map_err(|e| Error::Usage(format!("--cpu-source: {e}")))?, Source::Flag)
    } else if let Some(v) = env("EXAMLOPS_CPU_SOURCE") {
        let choice = v.trim().parse().map_err(|e| Error::Config(format!("environment variable EXAMLOPS_CPU_SOURCE: {e}")))?;
        Sourced::new(choice, Source::Env("EXAMLOPS_CPU_SOURCE"))
    } else if let Some(v) = &config.cpu.source {
        Sourced::new(v.parse().map_err(|e| Error::Config(format!("cpu.source in the config: {e}")))?, Source::Config)
    } else {
        Sourced::new(CpuChoice::Auto, Source::Default)
    };
    let root = match env("EXAMLOPS_HOST_ROOT") {
        Some(r) if r.trim().is_empty() => return Err(Error::Config("environment variable EXAMLOPS_HOST_ROOT is empty".into())),
        Some(r) => Sourced::new(PathBuf::from(r), Source::Env("EXAMLOPS_HOST_ROOT")),
        None => Sourced::new(PathBuf::from("/"), Source::Default),
    };
    let mut ranks = None;
    for name in ["SLURM_NTASKS_PER_NODE", "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"] {
        // A launcher's variable, not exa's: one that is not a count is not exa's to refuse, and is passed over.
        if let Some(n) = env(name).and_then(|v| v.trim().parse::<u32>().ok()) {
            ranks = Some((n, name));
            break;
        }
    }
    Ok(CpuSettings { source, root, ranks })
}

/// The BMC's Redfish chassis: `EXAMLOPS_REDFISH_URL`, else `node.redfish_url`; its credentials file and CA likewise.
fn redfish(config: &Config) -> Option<crate::sources::redfish::Conf> {
    let n = &config.node;
    let pick = |var: &str, key: &Option<String>| env(var).or_else(|| key.clone()).filter(|v| !v.trim().is_empty());
    Some(crate::sources::redfish::Conf {
        url: pick("EXAMLOPS_REDFISH_URL", &n.redfish_url)?,
        credentials_file: pick("EXAMLOPS_REDFISH_CREDENTIALS_FILE", &n.redfish_credentials_file).map(PathBuf::from),
        ca_file: pick("EXAMLOPS_REDFISH_CA_FILE", &n.redfish_ca_file).map(PathBuf::from),
    })
}

/// The node power source `measure` reads: `--node-source`, else `EXAMLOPS_NODE_SOURCE`, else `node.source` in the
/// config, else auto.
fn node_source(flag: Option<&str>, config: &Config) -> Result<Sourced<crate::sources::node::NodeChoice>, Error> {
    use crate::sources::node::NodeChoice;
    Ok(if let Some(f) = flag {
        Sourced::new(f.parse::<NodeChoice>().map_err(|e| Error::Usage(format!("--node-source: {e}")))?, Source::Flag)
    } else if let Some(v) = env("EXAMLOPS_NODE_SOURCE") {
        let choice = v.trim().parse().map_err(|e| Error::Config(format!("environment variable EXAMLOPS_NODE_SOURCE: {e}")))?;
        Sourced::new(choice, Source::Env("EXAMLOPS_NODE_SOURCE"))
    } else if let Some(v) = &config.node.source {
        Sourced::new(v.parse().map_err(|e| Error::Config(format!("node.source in the config: {e}")))?, Source::Config)
    } else {
        Sourced::new(NodeChoice::Auto, Source::Default)
    })
}

/// The exported CO2 is energy times one intensity, the spec's default a world average: with a grid region set
/// and that intensity left at its default, the exporter would be taken to export the region's. Said.
fn exported_co2_note(t: &TelemetrySettings, region: Option<&Sourced<String>>) -> Option<String> {
    let r = region.filter(|_| t.co2.value && t.intensity.source == Source::Default)?;
    Some(format!(
        "the exported gen_ai.co2.emissions is measured energy times {} gCO2e/kWh (GENAI_CARBON_INTENSITY's default, a world \
         average), not the grid of region {} (from {}): set --carbon-intensity or GENAI_CARBON_INTENSITY to export that grid's",
        t.intensity.value,
        crate::text::clean(&r.value),
        r.source
    ))
}

/// The GPU settings; `genai` when the command reads GPUs over time, the only commands for which the
/// spec's `GENAI_*` variables mean anything (a value another tool set is no concern of the others).
fn gpu_settings(interval_flag: Option<f64>, genai: bool) -> Result<GpuSettings, Error> {
    let interval = match interval_flag {
        Some(f) => Sourced::new(f, Source::Flag),
        None => env_amount("EXAMLOPS_GPU_INTERVAL")?
            .or(if genai { env_amount("GENAI_GPU_COLLECTION_INTERVAL")? } else { None })
            .unwrap_or(Sourced::new(INTERVAL_S, Source::Default)),
    };
    let bounded = |what: &str| match interval.source {
        Source::Flag => Error::Usage(what.to_string()),
        _ => Error::Config(what.to_string()),
    };
    if interval.value < MIN_INTERVAL_S {
        return Err(bounded(&format!("the sampling interval {} s is too short ({MIN_INTERVAL_S} s at least)", interval.value)));
    }
    let what = match interval.source {
        Source::Env(v) => format!("environment variable {v}"),
        _ => "--interval".to_string(),
    };
    seconds(&what, interval.value, MIN_INTERVAL_S).map_err(|e| bounded(&e))?;
    let timeout = match env_amount("EXAMLOPS_NVIDIA_SMI_TIMEOUT")?.filter(|t| t.value > 0.0) {
        Some(t) => {
            let d = seconds("environment variable EXAMLOPS_NVIDIA_SMI_TIMEOUT", t.value, 0.001).map_err(Error::Config)?;
            Sourced::new(d, t.source)
        }
        None => Sourced::new(Duration::from_secs_f64(GPU_TOOL_TIMEOUT_S), Source::Default),
    };
    let source = Sourced::new(GpuChoice::Auto, Source::Default);
    let pci_order = std::env::var("CUDA_DEVICE_ORDER").is_ok_and(|v| v.trim() == "PCI_BUS_ID");
    Ok(GpuSettings { interval, timeout, source, nvml_library: None, scope: crate::sources::gpu::scope::Scope::all(), pci_order })
}

/// The exporters' settings: the metric names, price, carbon intensity, CO2 switch and OTLP endpoint.
#[derive(Debug, Clone)]
pub struct TelemetrySettings {
    /// gen_ai.* or hw.*.
    pub semconv: Sourced<crate::model::telemetry::Semconv>,
    /// USD per kWh for gen_ai.power.cost, when set.
    pub cost_per_kwh: Option<Sourced<f64>>,
    /// gCO2e per kWh for gen_ai.co2.emissions.
    pub intensity: Sourced<f64>,
    /// Whether the CO2 metrics are exported.
    pub co2: Sourced<bool>,
    /// Seconds between readings.
    pub interval: Sourced<f64>,
    /// The OTLP/HTTP metrics URL (with its path), when OTLP was asked for.
    pub otlp: Option<Sourced<String>>,
    /// Lines to log once at start (a GENAI_CO2_* variable that has no effect).
    pub notes: Vec<String>,
}

/// The spec's default carbon intensity, gCO2e/kWh: a world average, not any grid's.
pub const GENAI_INTENSITY: f64 = 475.0;

/// An OTLP base URL with the metrics path (before its query, if it has one); a URL whose path already ends
/// with it is kept.
fn with_metrics_path(base: &str) -> String {
    let path_ends = reqwest::Url::parse(base).is_ok_and(|u| u.path().trim_end_matches('/').ends_with("/v1/metrics"));
    if path_ends {
        return base.to_string();
    }
    // A URL that does not parse is kept as given, and refused where endpoints are checked.
    crate::sources::http::with_path(base, &["v1/metrics"]).unwrap_or_else(|_| base.to_string())
}

/// The exporters' settings from `opts` (measure's or an exporter's flags); without them (every other
/// command) the defaults, with no variable read.
fn telemetry_settings(
    opts: Option<&TelemetryOpts>,
    otlp: Option<&str>,
    cost_per_kwh: Option<Sourced<f64>>,
    interval: Sourced<f64>,
) -> Result<TelemetrySettings, Error> {
    let mut t = TelemetrySettings {
        semconv: Sourced::new(crate::model::telemetry::Semconv::Genai, Source::Default),
        cost_per_kwh,
        intensity: Sourced::new(GENAI_INTENSITY, Source::Default),
        co2: Sourced::new(false, Source::Default),
        interval,
        otlp: None,
        notes: Vec::new(),
    };
    let Some(opts) = opts else { return Ok(t) };
    t.semconv = match (opts.semconv.as_deref(), env("EXAMLOPS_SEMCONV")) {
        (Some(f), _) => Sourced::new(f.parse().map_err(Error::Usage)?, Source::Flag),
        (None, Some(v)) => Sourced::new(
            v.trim().parse().map_err(|e| Error::Config(format!("environment variable EXAMLOPS_SEMCONV: {e}")))?,
            Source::Env("EXAMLOPS_SEMCONV"),
        ),
        (None, None) => t.semconv,
    };
    if let Some(g) = opts.carbon_intensity {
        t.intensity = Sourced::new(g, Source::Flag);
    } else if let Some(g) = env_amount("EXAMLOPS_CARBON_INTENSITY")?.or(env_amount("GENAI_CARBON_INTENSITY")?) {
        t.intensity = g;
    }
    if opts.co2 {
        t.co2 = Sourced::new(true, Source::Flag);
    } else if let Some(on) = env_bool("GENAI_ENABLE_CO2_TRACKING")? {
        t.co2 = Sourced::new(on, Source::Env("GENAI_ENABLE_CO2_TRACKING"));
    }
    t.otlp = match otlp {
        None => None,
        Some(url) if !url.is_empty() => Some(Sourced::new(otlp_url(url).map_err(|e| Error::Usage(format!("--otlp: {e}")))?, Source::Flag)),
        Some(_) => {
            const METRICS: &str = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT";
            const BASE: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
            let bad = |name: &str, e: String| Error::Config(format!("environment variable {name}: {e}"));
            // The metrics endpoint is used as it is; the base endpoint gets the metrics path, as the SDKs do.
            if let Some(u) = env(METRICS) {
                Some(Sourced::new(http_url(u.trim()).map_err(|e| bad(METRICS, e))?.to_string(), Source::Env(METRICS)))
            } else if let Some(u) = env(BASE) {
                Some(Sourced::new(otlp_url(u.trim()).map_err(|e| bad(BASE, e))?, Source::Env(BASE)))
            } else {
                return Err(Error::Usage(format!("--otlp without a URL needs {METRICS} or {BASE}")));
            }
        }
    };
    t.notes = std::env::vars_os()
        .filter_map(|(k, _)| k.into_string().ok())
        .filter(|k| k.starts_with("GENAI_CO2_"))
        .map(|k| format!("{k} is accepted and has no effect: CO2 here is measured GPU energy times one intensity (GENAI_CARBON_INTENSITY)"))
        .collect();
    t.notes.sort();
    Ok(t)
}

/// An OTLP base URL with the metrics path added (a URL already ending with it is kept).
fn otlp_url(base: &str) -> Result<String, String> {
    http_url(base).map(with_metrics_path)
}

/// The GPU source: `--gpu-source`, else `EXAMLOPS_GPU_SOURCE`, else `gpu.source` in the config, else auto;
/// and the NVML library: `EXAMLOPS_NVML_LIBRARY`, else `gpu.nvml_library`.
fn gpu_source(flag: Option<&str>, config: &Config, gpu: &mut GpuSettings) -> Result<(), Error> {
    gpu.source = if let Some(f) = flag {
        Sourced::new(f.parse().map_err(Error::Usage)?, Source::Flag)
    } else if let Some(v) = env("EXAMLOPS_GPU_SOURCE") {
        let choice = v.trim().parse().map_err(|e| Error::Config(format!("environment variable EXAMLOPS_GPU_SOURCE: {e}")))?;
        Sourced::new(choice, Source::Env("EXAMLOPS_GPU_SOURCE"))
    } else if let Some(v) = &config.gpu.source {
        Sourced::new(v.parse().map_err(|e| Error::Config(format!("gpu.source in the config: {e}")))?, Source::Config)
    } else {
        Sourced::new(GpuChoice::Auto, Source::Default)
    };
    gpu.nvml_library = match (env("EXAMLOPS_NVML_LIBRARY"), &config.gpu.nvml_library) {
        (Some(p), _) => Some(Sourced::new(PathBuf::from(p), Source::Env("EXAMLOPS_NVML_LIBRARY"))),
        (None, Some(p)) => Some(Sourced::new(p.clone(), Source::Config)),
        (None, None) => None,
    };
    Ok(())
}
