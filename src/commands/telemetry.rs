//! Telemetry out: the spec's GPU, energy and CO2 metric set (or the
//! OpenTelemetry hardware conventions) made from the collector's state,
//! served for a Prometheus scrape (`exa gpu serve`), pushed over OTLP
//! (`exa gpu export`), and a measured run's totals pushed once at its end.
//!
//! What is not observed has no point: a field a device cannot report, every
//! gauge while readings fail or after they stopped (a gap, never the last
//! value repeated), and energy, cost and CO2 for a device without power.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::error::Error;
use crate::model::measurement::Pushed;
use crate::model::telemetry::{Family, Histogram, Kind, Point, Semconv, Value};
use crate::model::{Aggregates, Device};
use crate::settings::{Settings, TelemetrySettings};
use crate::sources::exporters;
use crate::sources::gpu::collector::{Collector, OnReading, State, Status};
use crate::sources::gpu::energy::J_PER_KWH;
use crate::sources::gpu::sampler::Hooks;
use crate::sources::gpu::SampleError;

/// One per-device reading of the spec's set: name, UCUM unit (the Prometheus suffix is made from it), kind, help, the reading.
type DeviceGauge = (&'static str, &'static str, Kind, &'static str, fn(&Device) -> Option<f64>);

const G: Kind = Kind::Gauge;
const U: Kind = Kind::UpDownCounter;

const GENAI_DEVICE: &[DeviceGauge] = &[
    ("gen_ai.gpu.utilization", "%", G, "GPU utilisation (utilization.gpu)", |d| d.utilization_pct),
    ("gen_ai.gpu.memory.utilization", "%", G, "Memory-controller utilisation (utilization.memory)", |d| d.memory_utilization_pct),
    ("gen_ai.gpu.memory.used", "MiBy", G, "Memory in use (memory.used)", |d| d.memory_used_mib),
    ("gen_ai.gpu.memory.total", "MiBy", G, "Memory on the device (memory.total)", |d| d.memory_total_mib),
    ("gen_ai.gpu.temperature", "Cel", G, "Temperature (temperature.gpu)", |d| d.temperature_c),
    ("gen_ai.gpu.power", "W", G, "Power draw (power.draw)", |d| d.power_w),
    ("gen_ai.gpu.power.limit", "W", G, "Power limit (power.limit)", |d| d.power_limit_w),
    ("gen_ai.gpu.clock.sm", "MHz", G, "SM clock (clocks.current.sm)", |d| d.clock_sm_mhz),
    ("gen_ai.gpu.clock.memory", "MHz", G, "Memory clock (clocks.current.memory)", |d| d.clock_memory_mhz),
    ("gen_ai.gpu.fan.speed", "%", G, "Fan speed (fan.speed)", |d| d.fan_pct),
    ("gen_ai.gpu.performance.state", "{pstate}", G, "Performance state, 0 (P0) to 15 (pstate)", |d| d.pstate.map(f64::from)),
    ("gen_ai.gpu.throttle.thermal", "{flag}", G, "1 when slowed for heat (sw/hw thermal slowdown), else 0", |d| {
        d.throttle_thermal.map(flag)
    }),
    ("gen_ai.gpu.throttle.power", "{flag}", G, "1 when held at the power cap (sw_power_cap), else 0", |d| d.throttle_power.map(flag)),
    ("gen_ai.gpu.throttle.hw_slowdown", "{flag}", G, "1 when slowed by the hardware (hw_slowdown), else 0", |d| {
        d.throttle_hw_slowdown.map(flag)
    }),
    ("gen_ai.gpu.ecc.errors.corrected", "{error}", G, "Corrected ECC errors since the driver loaded", |d| {
        d.ecc_corrected.map(|v| v as f64)
    }),
    ("gen_ai.gpu.ecc.errors.uncorrected", "{error}", G, "Uncorrected ECC errors since the driver loaded", |d| {
        d.ecc_uncorrected.map(|v| v as f64)
    }),
];

const HW_DEVICE: &[DeviceGauge] = &[
    ("hw.power", "W", G, "Instantaneous power drawn by the GPU", |d| d.power_w),
    ("hw.gpu.utilization", "1", G, "Fraction of time the GPU was busy, 0 to 1", |d| d.utilization_pct.map(|p| p / 100.0)),
    ("hw.gpu.memory.usage", "By", U, "GPU memory in use", |d| d.memory_used_mib.map(|m| m * 1_048_576.0)),
    ("hw.gpu.memory.limit", "By", U, "GPU memory on the device", |d| d.memory_total_mib.map(|m| m * 1_048_576.0)),
];

fn flag(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

fn family(name: &'static str, unit: &'static str, kind: Kind, help: &'static str, points: Vec<Point>) -> Family {
    Family { name, unit, kind, help, points }
}

fn number(attributes: Vec<(&'static str, String)>, v: f64) -> Point {
    Point { attributes, value: Value::Number(v) }
}

/// A device's attributes: gpu_id and gpu_name (the spec's), or hw.id and hw.type (the hardware conventions).
fn device_attributes(semconv: Semconv, index: u32, name: &str, uuid: Option<&str>) -> Vec<(&'static str, String)> {
    match semconv {
        Semconv::Genai => vec![("gpu_id", index.to_string()), ("gpu_name", name.to_string())],
        Semconv::Hw => vec![
            ("hw.id", uuid.map_or_else(|| format!("gpu{index}"), str::to_string)),
            ("hw.type", "gpu".into()),
            ("hw.name", name.to_string()),
        ],
    }
}

/// The metric families now, from the collector's state.
pub fn families(state: &State, cfg: &TelemetrySettings) -> Vec<Family> {
    match cfg.semconv.value {
        Semconv::Genai => genai(state, cfg),
        Semconv::Hw => hw(state),
    }
}

fn gauges(table: &[DeviceGauge], semconv: Semconv, latest: Option<&Vec<Device>>) -> Vec<Family> {
    table
        .iter()
        .map(|(name, unit, kind, help, read)| {
            let points = latest
                .into_iter()
                .flatten()
                .filter_map(|d| Some(number(device_attributes(semconv, d.index, &d.name, d.uuid.as_deref()), read(d)?)))
                .collect();
            family(name, unit, *kind, help, points)
        })
        .collect()
}

fn genai(state: &State, cfg: &TelemetrySettings) -> Vec<Family> {
    let mut out = gauges(GENAI_DEVICE, Semconv::Genai, state.latest.as_ref());
    let agg = state.latest.as_ref().map(|d| Aggregates::of(d));
    let aggregate = |name, unit, help, v: Option<(f64, usize)>| {
        let points = v.into_iter().map(|(x, n)| number(vec![("gpu_count", n.to_string())], x)).collect();
        family(name, unit, Kind::Gauge, help, points)
    };
    let a = agg.as_ref();
    out.push(aggregate(
        "gen_ai.gpu.aggregate.mean_utilization",
        "%",
        "Mean utilisation over the devices that reported it",
        a.and_then(|a| Some((a.mean_utilization_pct?, a.utilization_count))),
    ));
    out.push(aggregate(
        "gen_ai.gpu.aggregate.total_memory_used",
        "GiBy",
        "Memory in use over the devices that reported it",
        a.and_then(|a| Some((a.total_memory_used_gib?, a.memory_count))),
    ));
    out.push(aggregate(
        "gen_ai.gpu.aggregate.total_power",
        "W",
        "Power over the devices that reported it",
        a.and_then(|a| Some((a.total_power_w?, a.power_count))),
    ));
    out.push(aggregate(
        "gen_ai.gpu.aggregate.max_temperature",
        "Cel",
        "The hottest device",
        a.and_then(|a| Some((a.max_temperature_c?, a.temperature_count))),
    ));
    out.extend(energy(state, cfg));
    out
}

/// `gen_ai.power.cost`: energy times the electricity price.
fn cost(points: Vec<Point>) -> Family {
    family("gen_ai.power.cost", "USD", Kind::Counter, "That energy times the electricity price", points)
}

/// `gen_ai.co2.emissions`: energy times one carbon intensity.
fn co2(points: Vec<Point>) -> Family {
    family(
        "gen_ai.co2.emissions",
        "g",
        Kind::Counter,
        "Grams of CO2e: that energy times one carbon intensity (GENAI_CARBON_INTENSITY), not a reading of the grid",
        points,
    )
}

/// `gen_ai.energy.total`: GPU energy, kWh.
fn energy_total(help: &'static str, points: Vec<Point>) -> Family {
    family("gen_ai.energy.total", "kWh", Kind::Counter, help, points)
}

/// Energy, the power histogram, cost and CO2: running totals since the exporter started.
fn energy(state: &State, cfg: &TelemetrySettings) -> Vec<Family> {
    let per_device = |f: &dyn Fn(&crate::sources::gpu::collector::Totals) -> Value| -> Vec<Point> {
        state
            .totals
            .iter()
            .map(|(i, t)| {
                let mut attributes = vec![("component", "gpu".to_string())];
                attributes.extend(device_attributes(Semconv::Genai, *i, &t.name, None));
                Point { attributes, value: f(t) }
            })
            .collect()
    };
    let total = state.total_kwh();
    let whole = |v: Option<f64>| v.into_iter().map(|x| number(Vec::new(), x)).collect::<Vec<_>>();
    let mut out = vec![
        family(
            "gen_ai.energy.consumed",
            "kWh",
            Kind::Counter,
            "GPU energy since the exporter started, by device (component = gpu)",
            per_device(&|t| Value::Number(t.energy_j / J_PER_KWH)),
        ),
        energy_total("GPU energy since the exporter started; GPU only (CPU and RAM energy are not measured)", whole(total)),
        family(
            "gen_ai.power.consumption",
            "W",
            Kind::Histogram,
            "The power readings, by device",
            per_device(&|t| Value::Histogram(t.power.clone())),
        ),
    ];
    if let Some(price) = &cfg.cost_per_kwh {
        out.push(cost(whole(total.map(|k| k * price.value))));
    }
    if cfg.co2.value {
        let g = cfg.intensity.value;
        out.push(co2(whole(total.map(|k| k * g))));
        let rate = state.latest.as_ref().and(state.last_interval).map(|(j, dt)| j / J_PER_KWH * g / dt);
        out.push(family(
            "gen_ai.co2.emissions_rate",
            "g/s",
            Kind::Gauge,
            "The last interval's emissions, grams of CO2e per second",
            whole(rate),
        ));
    }
    out
}

fn hw(state: &State) -> Vec<Family> {
    let mut out = gauges(HW_DEVICE, Semconv::Hw, state.latest.as_ref());
    let points =
        state.totals.iter().map(|(i, t)| number(device_attributes(Semconv::Hw, *i, &t.name, t.uuid.as_deref()), t.energy_j)).collect();
    out.push(family("hw.energy", "J", Kind::Counter, "Energy consumed by the GPU since the exporter started", points));
    out
}

/// The final totals of a measured run, for a push at its end: energy, and cost and CO2 where set.
pub fn run_totals(kwh: Option<f64>, cfg: &TelemetrySettings, labels: &[(&'static str, String)]) -> Vec<Family> {
    let Some(kwh) = kwh else { return Vec::new() };
    let at = |v: f64| vec![number(labels.to_vec(), v)];
    match cfg.semconv.value {
        Semconv::Hw => vec![family("hw.energy", "J", Kind::Counter, "GPU energy of the measured run", at(kwh * J_PER_KWH))],
        Semconv::Genai => {
            let mut out = vec![energy_total("GPU energy of the measured run (GPU only)", at(kwh))];
            if let Some(price) = &cfg.cost_per_kwh {
                out.push(cost(at(kwh * price.value)));
            }
            if cfg.co2.value {
                out.push(co2(at(kwh * cfg.intensity.value)));
            }
            out
        }
    }
}

/// An empty histogram with the collector's bounds (for instruments made before any reading).
pub fn empty_histogram() -> Histogram {
    Histogram::new(crate::sources::gpu::collector::POWER_BOUNDS_W)
}

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

fn names(cfg: &TelemetrySettings) -> Vec<(&'static str, &'static str, Kind, &'static str)> {
    families(&State::new(), cfg).into_iter().map(|f| (f.name, f.unit, f.kind, f.help)).collect()
}

/// Starts the collector into `state` when there is a GPU source (and returns it with the source's
/// name); without one, marks `state` so. A named source that cannot be used is an error.
fn collector(
    settings: &Settings,
    h: &Hooked,
    on_reading: Option<OnReading>,
    state: &Arc<Mutex<State>>,
) -> Result<(Option<Collector>, Option<&'static str>), Error> {
    let cfg = &settings.telemetry;
    let say = (h.hooks)();
    for n in &cfg.notes {
        say.info(n);
    }
    match super::gpu::source(settings) {
        Ok(src) => {
            let kind = src.kind();
            let interval = Duration::from_secs_f64(cfg.interval.value);
            Ok((Some(Collector::start(src, interval, (h.hooks)(), on_reading, Arc::clone(state))), Some(kind)))
        }
        Err(SampleError::Failed(why)) => Err(Error::Failed(format!("cannot read the GPUs: {why}"))),
        Err(e) => {
            say.info(&format!("no GPU found ({e}): no GPU metrics are exported"));
            state.lock().unwrap_or_else(std::sync::PoisonError::into_inner).status = Status::NoGpu(e.to_string());
            Ok((None, None))
        }
    }
}

fn stopped(exporter: &'static str, cfg: &TelemetrySettings, state: &Mutex<State>, source: Option<&'static str>) -> Stopped {
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
        energy_kwh: s.total_kwh().map(crate::num::tidy),
    }
}

/// `exa gpu serve`: serves /metrics until SIGTERM or Ctrl-C.
pub fn serve(settings: &Settings, listen: &str, h: &Hooked) -> Result<Stopped, Error> {
    let cfg = settings.telemetry.clone();
    let state = Arc::new(Mutex::new(State::new()));
    let (collector, source) = collector(settings, h, None, &state)?;
    let shared = Arc::clone(&state);
    let render_cfg = cfg.clone();
    let render = Arc::new(move || {
        let families = families(&shared.lock().unwrap_or_else(std::sync::PoisonError::into_inner), &render_cfg);
        exporters::openmetrics(families)
    });
    let say = (h.hooks)();
    let mut bound = None;
    let served = exporters::serve(listen, render, |addr| {
        bound = Some(addr);
        say.info(&format!("serving the GPU metrics at http://{addr}/metrics"));
    });
    if let Some(c) = collector {
        c.stop();
    }
    served.map_err(Error::Failed)?;
    let mut out = stopped("serve", &cfg, &state, source);
    out.listen = Some(bound.map_or_else(|| listen.to_string(), |a| a.to_string()));
    Ok(out)
}

/// `exa gpu export --otlp`: sends every interval until SIGTERM or Ctrl-C, then once more.
pub fn export(settings: &Settings, h: &Hooked) -> Result<Stopped, Error> {
    let cfg = settings.telemetry.clone();
    let url = cfg.otlp.as_ref().map(|u| u.value.clone()).ok_or_else(|| Error::Usage("--otlp is required".into()))?;
    let state = Arc::new(Mutex::new(State::new()));
    let (read, family_cfg) = (Arc::clone(&state), cfg.clone());
    let source: exporters::Source =
        Arc::new(move || families(&read.lock().unwrap_or_else(std::sync::PoisonError::into_inner), &family_cfg));
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
    (h.hooks)().info(&format!("sending the GPU metrics to {} every {} s", crate::text::redact_url(&url), cfg.interval.value));
    exporters::wait_for_stop().map_err(Error::Failed)?;
    if let Some(c) = collector {
        c.stop();
    }
    // The export made at shutdown fails loudly too: said here unless the exporter said it as it came.
    if let Some(e) = otlp.shutdown_unsaid() {
        (h.hooks)().warn(&e);
    }
    Ok(stopped("export", &cfg, &state, kind))
}

/// Sends a measured run's totals once, to a Pushgateway and/or over OTLP; a failure is a warning and a field.
pub fn push_run(settings: &Settings, gateway: Option<&str>, kwh: Option<f64>, job: &str, run_id: Option<&str>) -> Vec<Pushed> {
    let cfg = &settings.telemetry;
    let mut labels: Vec<(&'static str, String)> = vec![("job", job.to_string())];
    if let Some(r) = run_id {
        labels.push(("run_id", r.to_string()));
    }
    let mut out = Vec::new();
    if kwh.is_none() && (gateway.is_some() || cfg.otlp.is_some()) {
        settings.warn("nothing was pushed: no GPU energy was measured".to_string());
        return out;
    }
    if let Some(url) = gateway {
        let mut grouping = vec![("job", job.to_string()), ("instance", crate::store::hostname())];
        if let Some(r) = run_id {
            grouping.push(("run_id", r.to_string()));
        }
        // The grouping key carries job, instance and run id: the points need no labels of their own.
        let fams = run_totals(kwh, cfg, &[]);
        let error = exporters::push_gateway(url, &grouping, fams, Duration::from_secs(10)).err();
        if let Some(e) = &error {
            settings.warn(e.clone());
        }
        out.push(Pushed { to: "pushgateway", url: crate::text::redact_url(url), error });
    }
    if let Some(url) = &cfg.otlp {
        let fams = run_totals(kwh, cfg, &labels);
        let list: Vec<_> = fams.iter().map(|f| (f.name, f.unit, f.kind, f.help)).collect();
        let source: exporters::Source = Arc::new(move || fams.clone());
        // One export, at shutdown: the interval only has to be longer than the run's end.
        // The one export's failure comes back from shutdown, and is said once, below.
        let quiet: exporters::Say = Arc::new(|_: &str| {});
        let sent = exporters::Otlp::start(&url.value, Duration::from_secs(3600), &list, source, quiet).and_then(|o| o.shutdown());
        let error = sent.err();
        if let Some(e) = &error {
            settings.warn(e.clone());
        }
        out.push(Pushed { to: "otlp", url: crate::text::redact_url(&url.value), error });
    }
    out
}
