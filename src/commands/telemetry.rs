//! `exa gpu serve` and `exa gpu export`: the collector's readings, as the
//! metric catalog names them (`sinks::catalog`), served for a Prometheus
//! scrape or pushed over OTLP (`sinks::exporters`) until SIGTERM or Ctrl-C.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::error::Error;
use crate::model::telemetry::Semconv;
use crate::model::Device;
use crate::settings::{Reading, TelemetrySettings};
use crate::sinks::catalog::{device_attributes, families, names};
use crate::sinks::exporters;
use crate::sources::gpu::collector::{Collected, Collector, OnReading, Status};
use crate::sources::gpu::sampler::Hooks;
use crate::sources::gpu::SampleError;
use crate::sources::kube::Ledger;
use crate::sources::{cpu, node};

/// What an exporter did, said when it stops (`-o json` prints it).
#[derive(Debug, serde::Serialize)]
pub struct Stopped {
    /// `serve` or `export`.
    pub exporter: &'static str,
    /// The address served, for `serve`.
    pub listen: Option<String>,
    /// The OTLP URL (secrets hidden), for `export`.
    pub otlp: Option<String>,
    /// The metric names: genai or hw.
    pub semconv: &'static str,
    /// The GPU source read, or null with no GPU.
    pub source: Option<&'static str>,
    /// Where collection stood at the end: running, no GPU, or stopped after failures.
    pub status: String,
    /// GPU energy over the whole run, kWh (null without a GPU).
    pub energy_kwh: Option<f64>,
}

/// What an exporter needs from the command line besides the settings.
pub struct Hooked<'a> {
    /// A fresh set of hooks for each thread that talks to the person watching.
    pub hooks: &'a dyn Fn() -> Box<dyn Hooks>,
}

/// Starts the collector into `state` when there is a GPU source (and returns it with the source's
/// name); without one, marks `state` so. A named source that cannot be used is an error.
fn collector(
    settings: &Reading<'_>,
    h: &Hooked,
    on_reading: Option<OnReading>,
    state: &Arc<Mutex<Collected>>,
) -> Result<(Option<Collector>, Option<&'static str>), Error> {
    let cfg = &settings.telemetry;
    let say = (h.hooks)();
    for n in &cfg.notes {
        say.info(n);
    }
    match super::gpu_source(settings) {
        Ok(src) => {
            let kind = src.kind();
            let interval = Duration::from_secs_f64(cfg.interval.value);
            let root = settings.cpu.root.value.clone();
            Ok((Some(Collector::start(src, interval, (h.hooks)(), on_reading, (Arc::clone(state), root))), Some(kind)))
        }
        Err(SampleError::Failed(why)) => Err(Error::Failed(format!("cannot read the GPUs: {why}"))),
        Err(e) => {
            say.info(&format!("no GPU found ({e}): no GPU metrics are exported"));
            state.lock().unwrap_or_else(std::sync::PoisonError::into_inner).status = Status::NoGpu(e.to_string());
            Ok((None, None))
        }
    }
}

/// Reads the node's CPU counters into `state` at the exporter's interval, when a CPU source can be read.
fn cpu_collector(settings: &Reading<'_>, h: &Hooked, state: &Arc<Mutex<Collected>>) -> Result<Option<cpu::Sampler>, Error> {
    let source = match super::cpu_source(settings)? {
        Ok(s) => s,
        Err(why) => {
            (h.hooks)().info(&format!("no CPU energy counters ({why}): CPU energy is not exported"));
            return Ok(None);
        }
    };
    let shared = Arc::clone(state);
    let start = std::time::Instant::now();
    let mut live = cpu::Live::default();
    let on_read: cpu::OnRead = Box::new(move |m: &cpu::Meter| {
        live.update(m, start.elapsed().as_secs_f64());
        shared.lock().unwrap_or_else(std::sync::PoisonError::into_inner).cpu = Some(live.clone());
    });
    // Read often enough for the counters' wrap, whatever the export interval.
    let every = Duration::from_secs_f64(settings.telemetry.interval.value.clamp(0.05, cpu::LONGEST_WAIT_S));
    Ok(Some(cpu::Sampler::start(source, every, settings.cpu.root.value.clone(), Some(on_read))))
}

/// Reads the node's platform meter into `state` at the exporter's interval (a second at least), when one can be read.
fn node_collector(settings: &Reading<'_>, h: &Hooked, state: &Arc<Mutex<Collected>>) -> Result<Option<node::Sampler>, Error> {
    let source = match super::node_source(settings)? {
        Ok(s) => s,
        Err(why) => {
            (h.hooks)().info(&format!("no platform power meter ({why}): the node's power is not exported"));
            return Ok(None);
        }
    };
    let shared = Arc::clone(state);
    let on_read: node::OnRead = Box::new(move |m: &node::Meter| {
        shared.lock().unwrap_or_else(std::sync::PoisonError::into_inner).node = Some((m.joules, m.last_w));
    });
    let every = Duration::from_secs_f64(settings.telemetry.interval.value.max(1.0));
    Ok(Some(node::Sampler::start(source, (every, false), Some(on_read))))
}

fn stopped(exporter: &'static str, cfg: &TelemetrySettings, state: &Mutex<Collected>, source: Option<&'static str>) -> Stopped {
    let s = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let status = match &s.status {
        Status::Starting => "no reading yet".to_string(),
        Status::Running => "running".to_string(),
        Status::NoGpu(why) => format!("no GPU: {why}"),
        Status::GaveUp(why) => format!("stopped after 5 failures in a row: {why}"),
    };
    Stopped {
        exporter,
        listen: None,
        otlp: cfg.otlp.as_ref().map(|u| crate::text::redact_url(&u.value)),
        semconv: cfg.semconv.value.name(),
        source,
        status,
        energy_kwh: s.total().map(|j| crate::num::tidy(j.kwh().0)),
    }
}

/// `exa gpu serve`: serves /metrics until SIGTERM or Ctrl-C; with an inference server's metrics URL (and
/// model), its tokens and the GPUs' energy per token too (a server that cannot be read refuses to start).
pub fn serve(
    settings: &Reading<'_>,
    listen: &str,
    tokens: Option<(&str, Option<&str>)>,
    budgets: bool,
    h: &Hooked,
) -> Result<Stopped, Error> {
    let cfg = settings.telemetry.clone();
    let state = Arc::new(Mutex::new(Collected::new()));
    let scrape = tokens.map(|(url, model)| super::tokens_from(url, model)).transpose()?;
    let stop_watch = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // The budgets read first: a ledger that cannot be read refuses to start before anything else has.
    let budget_gauges = Arc::new(Mutex::new(Vec::new()));
    budgets.then(|| read_budgets(settings, h, Arc::clone(&budget_gauges), Arc::clone(&stop_watch))).transpose()?;
    let (collector, source) = collector(settings, h, None, &state)?;
    let cpu = cpu_collector(settings, h, &state)?;
    let node = node_collector(settings, h, &state)?;
    let ledger: Pods = settings.pods.as_ref().map(|c| Arc::new(Mutex::new(Ledger::new(c))));
    let pods = pods_watcher(settings, h, &state, &ledger);
    let watcher = scrape.map(|s| {
        let say = Mutex::new((h.hooks)());
        let warn = Box::new(move |m: &str| say.lock().unwrap_or_else(std::sync::PoisonError::into_inner).warn(m));
        crate::sources::tokens::watch(s, Duration::from_secs_f64(cfg.interval.value), Arc::clone(&state), Arc::clone(&stop_watch), warn)
    });
    let shared = Arc::clone(&state);
    let render_cfg = cfg.clone();
    let gauges = Arc::clone(&budget_gauges);
    let render = Arc::new(move || {
        let mut families = families_now(&shared, ledger.as_deref(), &render_cfg);
        families.extend(gauges.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter().cloned());
        exporters::openmetrics(families)
    });
    let say = (h.hooks)();
    let mut bound = None;
    let served = exporters::serve(listen, render, |addr| {
        bound = Some(addr);
        say.info(&format!("serving the GPU metrics at http://{addr}/metrics"));
    });
    if let Some(p) = pods {
        p.stop();
    }
    if let Some(c) = collector {
        c.stop();
    }
    stop_watch.store(true, std::sync::atomic::Ordering::Relaxed);
    if let Some(w) = watcher {
        let _ = w.join();
    }
    drop(cpu.and_then(cpu::Sampler::finish));
    drop(node.and_then(node::Sampler::finish));
    served.map_err(Error::Failed)?;
    let mut out = stopped("serve", &cfg, &state, source);
    out.listen = Some(bound.map_or_else(|| listen.to_string(), |a| a.to_string()));
    Ok(out)
}

/// How often `serve --budgets` reads the ledger's budgets.
const BUDGETS_EVERY: Duration = Duration::from_secs(60);

/// The budgets' gauges now: each budget's status as of now, or an error (a ledger file that is not there among
/// them: its budgets are not known to be none).
fn budgets_now(db: &crate::store::Db) -> Result<Vec<crate::model::telemetry::Family>, Error> {
    let Some(mut ledger) = crate::store::open_read(db)? else {
        return Err(Error::Failed(format!("{}: no ledger there, so no budgets to serve", db.shown())));
    };
    let now = crate::time::now_unix();
    let kept = crate::store::budget::in_effect(&ledger.budget_changes()?)?;
    let statuses = kept.iter().map(|k| crate::store::budget::status_of(ledger.as_mut(), k, now, None)).collect::<Result<Vec<_>, _>>()?;
    Ok(crate::sinks::catalog::budget_families(&statuses))
}

/// `serve --budgets`: reads the budgets at once (a ledger that cannot be read refuses to start), then every
/// `BUDGETS_EVERY` until `stop`; a read that fails empties the gauges (no stale figure is served) and says so once.
/// The thread is not waited for at the end: a read held up by a slow ledger never holds up a stop.
fn read_budgets(
    settings: &Reading<'_>,
    h: &Hooked,
    gauges: Arc<Mutex<Vec<crate::model::telemetry::Family>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
) -> Result<std::thread::JoinHandle<()>, Error> {
    let db = settings.global.db()?;
    *gauges.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = budgets_now(&db)?;
    let say = (h.hooks)();
    std::thread::Builder::new()
        .name("exa-budgets".into())
        .spawn(move || {
            let mut failing = false;
            let mut next = std::time::Instant::now() + BUDGETS_EVERY;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if std::time::Instant::now() < next {
                    std::thread::sleep(Duration::from_millis(200));
                    continue;
                }
                next = std::time::Instant::now() + BUDGETS_EVERY;
                let read = budgets_now(&db);
                match (&read, failing) {
                    (Err(e), false) => say.warn(&format!("budgets: the ledger cannot be read ({e}); their gauges are empty until it can")),
                    (Ok(_), true) => say.info("budgets: the ledger is read again"),
                    _ => {}
                }
                failing = read.is_err();
                *gauges.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = read.unwrap_or_default();
            }
        })
        .map_err(|e| Error::Failed(format!("cannot start the budgets' reader: {e}")))
}

/// The pods' running totals, when `--pods` asked for them.
type Pods = Option<Arc<Mutex<Ledger>>>;

/// The families now.
fn families_now(state: &Mutex<Collected>, pods: Option<&Mutex<Ledger>>, cfg: &TelemetrySettings) -> Vec<crate::model::telemetry::Family> {
    let s = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let ledger = pods.map(|l| l.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    families(&s, ledger.as_deref(), cfg)
}

/// Charges the node's energy to its pods into `pods` at the exporter's interval, when `--pods` asked.
fn pods_watcher(settings: &Reading<'_>, h: &Hooked, state: &Arc<Mutex<Collected>>, pods: &Pods) -> Option<crate::sources::kube::Watcher> {
    let (cfg, ledger) = (settings.pods.clone()?, Arc::clone(pods.as_ref()?));
    let say = (h.hooks)();
    say.info(&format!(
        "charging the node's energy to its pods (idle: {}; GPUs held: {}; names: {})",
        cfg.policy.name(),
        cfg.socket.as_ref().filter(|_| cfg.api.is_some()).map_or_else(|| "not asked".to_string(), |p| p.display().to_string()),
        cfg.api.as_ref().map_or_else(|| "not asked".to_string(), |a| format!("{} for node {}", crate::text::redact_url(&a.url), a.node)),
    ));
    let say = Mutex::new(say);
    let warn = Box::new(move |m: &str| say.lock().unwrap_or_else(std::sync::PoisonError::into_inner).warn(m));
    let interval = Duration::from_secs_f64(settings.telemetry.interval.value);
    Some(crate::sources::kube::Watcher::start(cfg, interval, (Arc::clone(state), ledger), warn))
}

/// `exa gpu export --otlp`: sends every interval until SIGTERM or Ctrl-C, then once more.
pub fn export(settings: &Reading<'_>, h: &Hooked) -> Result<Stopped, Error> {
    let cfg = settings.telemetry.clone();
    let url = cfg.otlp.as_ref().map(|u| u.value.clone()).ok_or_else(|| Error::Usage("--otlp is required".into()))?;
    let state = Arc::new(Mutex::new(Collected::new()));
    let ledger: Pods = settings.pods.as_ref().map(|c| Arc::new(Mutex::new(Ledger::new(c))));
    let (read, read_pods, family_cfg) = (Arc::clone(&state), ledger.clone(), cfg.clone());
    let source: exporters::Source = Arc::new(move || families_now(&read, read_pods.as_deref(), &family_cfg));
    let interval = Duration::from_secs_f64(cfg.interval.value);
    let hooks = Mutex::new((h.hooks)());
    let say: exporters::Say = Arc::new(move |m: &str| hooks.lock().unwrap_or_else(std::sync::PoisonError::into_inner).warn(m));
    let otlp = Arc::new(exporters::Otlp::start(&url, interval, &names(&cfg), source, say).map_err(Error::Failed)?);
    let recorder = Arc::clone(&otlp);
    let semconv = cfg.semconv.value;
    let on_reading: OnReading = Box::new(move |devices: &[Device]| {
        if semconv == Semconv::Genai {
            for d in devices {
                if let Some(w) = d.power_w {
                    let mut attrs = vec![("component", "gpu".to_string())];
                    attrs.extend(device_attributes(Semconv::Genai, d.index, &d.name, None));
                    recorder.record(w, &attrs);
                }
            }
        }
    });
    let (collector, kind) = collector(settings, h, Some(on_reading), &state)?;
    let cpu = cpu_collector(settings, h, &state)?;
    let node = node_collector(settings, h, &state)?;
    let pods = pods_watcher(settings, h, &state, &ledger);
    (h.hooks)().info(&format!("sending the GPU metrics to {} every {} s", crate::text::redact_url(&url), cfg.interval.value));
    exporters::wait_for_stop().map_err(Error::Failed)?;
    if let Some(p) = pods {
        p.stop();
    }
    if let Some(c) = collector {
        c.stop();
    }
    drop(cpu.and_then(cpu::Sampler::finish));
    drop(node.and_then(node::Sampler::finish));
    // The export made at shutdown fails loudly too: said here unless the exporter said it as it came.
    if let Some(e) = otlp.shutdown_unsaid() {
        (h.hooks)().warn(&e);
    }
    Ok(stopped("export", &cfg, &state, kind))
}
