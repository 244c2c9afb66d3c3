//! The metric catalog: the spec's GPU, energy and CO2 metric set (or the
//! OpenTelemetry hardware conventions) made from the collector's state, and
//! a measured run's totals, as families of points for any exporter.
//!
//! What is not observed has no point: a field a device cannot report, every
//! gauge while readings fail or after they stopped (a gap, never the last
//! value repeated), and energy, cost and CO2 for a device without power.

use crate::model::energy::{Joules, Kwh};
use crate::model::telemetry::{Family, Histogram, Kind, Point, Semconv, Value};
use crate::model::{Aggregates, Device};
use crate::settings::TelemetrySettings;
use crate::sources::gpu::collector::Collected;
use crate::sources::kube::Ledger;

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
    ("hw.power", "W", G, "Power drawn: each GPU now, and the node's CPU packages and memory over the last interval (RAPL)", |d| d.power_w),
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
pub fn device_attributes(semconv: Semconv, index: u32, name: &str, uuid: Option<&str>) -> Vec<(&'static str, String)> {
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
pub fn families(state: &Collected, pods: Option<&Ledger>, cfg: &TelemetrySettings) -> Vec<Family> {
    let mut out = match cfg.semconv.value {
        Semconv::Genai => genai(state, cfg),
        Semconv::Hw => hw(state),
    };
    out.extend(pod_families(pods, cfg));
    out
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

fn genai(state: &Collected, cfg: &TelemetrySettings) -> Vec<Family> {
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
    out.push(attributed(state, Semconv::Genai));
    // The host's meter has no gen_ai.* name: the hardware conventions' host metrics stand beside them.
    out.extend(host(state));
    out
}

/// Each device's energy split among the groups (a Slurm job, a pod, a container, a user, the host, idle) whose
/// processes kept it busy, in whole millijoules that add up to the device's energy over the intervals split
/// (`collector::Collected::attribute`); no points where the source cannot say each process's activity.
fn attributed(state: &Collected, semconv: Semconv) -> Family {
    let points = state
        .groups
        .iter()
        .map(|((device, group), a)| {
            let t = state.totals.get(device);
            let mut attributes = device_attributes(semconv, *device, t.map_or("", |t| t.name.as_str()), t.and_then(|t| t.uuid.as_deref()));
            attributes.push(("group_kind", group.kind.as_str().to_string()));
            attributes.push(("group_id", group.id.clone()));
            let j = Joules::of_millijoules(a.millijoules);
            number(attributes, if semconv == Semconv::Hw { j.0 } else { j.kwh().0 })
        })
        .collect();
    let help = "Each GPU's energy since the exporter started, split among the jobs, pods and containers that kept it busy \
                (by SM activity) and idle, each interval to the millijoule; a group's series goes 5 minutes after it was last busy";
    match semconv {
        Semconv::Genai => family("gen_ai.gpu.energy.attributed", "kWh", Kind::Counter, help, points),
        Semconv::Hw => family("exa.gpu.energy.attributed", "J", Kind::Counter, help, points),
    }
}

/// The node's energy charged to its Kubernetes pods (`--pods`): each pod's energy by component, its CO2e at the
/// exporter's intensity and its cost at its price (one series each per pod), its info series with the labels and
/// annotations asked for, and the node's energy no pod was charged (idle, system). At most two series per pod
/// per component; none without `--pods`, and none of a component no source read (no GPU, no RAPL).
fn pod_families(ledger: Option<&Ledger>, cfg: &TelemetrySettings) -> Vec<Family> {
    use crate::sources::kube::charge::Component;
    let (mut energy, mut co2e, mut cost, mut info, mut node) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut gpu_time, mut cpu_time) = (Vec::new(), Vec::new());
    if let Some(l) = ledger {
        for (uid, p) in l.shown() {
            let (ns, name) = p.meta.as_ref().map_or(("", ""), |m| (m.namespace.as_str(), m.name.as_str()));
            let who = vec![("k8s.namespace.name", ns.to_string()), ("k8s.pod.name", name.to_string()), ("k8s.pod.uid", uid.clone())];
            let mut total = Joules(0.0);
            for c in Component::ALL.into_iter().filter(|c| l.observed[*c as usize]) {
                let j = Joules::of_millijoules(p.energy[c as usize]);
                total = total + j;
                let mut a = who.clone();
                a.push(("component", c.as_str().to_string()));
                energy.push(number(a, j.0));
            }
            if l.observed[Component::Gpu as usize] {
                gpu_time.push(number(who.clone(), p.time[0]));
            }
            cpu_time.push(number(who.clone(), p.time[1]));
            co2e.push(number(who.clone(), total.kwh().0 * cfg.intensity.value));
            if let Some(price) = &cfg.cost_per_kwh {
                cost.push(number(who.clone(), total.kwh().0 * price.value));
            }
            let mut a = who;
            let said = |keys: &[(String, &'static str)], of: Option<&std::collections::BTreeMap<String, String>>| {
                keys.iter().map(move |(k, attr)| (*attr, of.and_then(|m| m.get(k)).cloned().unwrap_or_default())).collect::<Vec<_>>()
            };
            a.extend(said(&l.labels, p.meta.as_ref().map(|m| &m.labels)));
            a.extend(said(&l.annotations, p.meta.as_ref().map(|m| &m.annotations)));
            info.push(number(a, 1.0));
        }
        node = unattributed(l);
    }
    vec![
        family(
            "exa.pod.energy",
            "J",
            Kind::Counter,
            "Each pod's energy since the exporter started, by component (gpu, cpu, dram): its GPUs', its CPU time's part of \
             the CPU packages and DRAM, and its part of the idle energy by the idle policy",
            energy,
        ),
        family(
            "exa.pod.co2e",
            "g",
            Kind::Counter,
            "Each pod's energy times the exporter's carbon intensity (--carbon-intensity, GENAI_CARBON_INTENSITY), grams CO2e",
            co2e,
        ),
        family("exa.pod.cost", "USD", Kind::Counter, "Each pod's energy times the electricity price (--power-cost-per-kwh)", cost),
        family(
            "exa.pod.gpu.time",
            "s",
            Kind::Counter,
            "Each pod's GPU-seconds since the exporter started: the time the kubelet gave it GPUs, a GPU shared by several \
             pods split evenly among them",
            gpu_time,
        ),
        family(
            "exa.pod.cpu.time",
            "s",
            Kind::Counter,
            "Each pod's CPU-seconds since the exporter started, as its control group counted them",
            cpu_time,
        ),
        family("exa.pod.info", "{pod}", Kind::Gauge, "1 for each pod charged, with the labels and annotations asked for", info),
        family(
            "exa.node.energy.unattributed",
            "J",
            Kind::Counter,
            "The node's energy no pod was charged, by component: idle (capacity no one used, a GPU's idle draw or one no pod \
             holds) and system (busy, but in no pod)",
            node,
        ),
    ]
}

/// The node's energy no pod was charged, by component and part (idle, system).
fn unattributed(l: &Ledger) -> Vec<Point> {
    use crate::sources::kube::charge::Component;
    let mut node = Vec::new();
    for (part, parts) in [("idle", &l.idle), ("system", &l.system)] {
        for c in Component::ALL.into_iter().filter(|c| l.observed[*c as usize]) {
            node.push(number(
                vec![("component", c.as_str().to_string()), ("part", part.to_string())],
                Joules::of_millijoules(parts[c as usize]).0,
            ));
        }
    }
    node
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
fn energy(state: &Collected, cfg: &TelemetrySettings) -> Vec<Family> {
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
    let total = state.total().map(|j| j.kwh().0);
    let whole = |v: Option<f64>| v.into_iter().map(|x| number(Vec::new(), x)).collect::<Vec<_>>();
    let mut consumed = per_device(&|t| Value::Number(t.energy.kwh().0));
    consumed.extend(cpu_points(state.cpu.as_ref(), |j| j.kwh().0, |c| vec![("component", c.to_string())]));
    let mut out = vec![
        family(
            "gen_ai.energy.consumed",
            "kWh",
            Kind::Counter,
            "Energy since the exporter started: by GPU (component = gpu), and the node's CPU packages and DRAM from RAPL (component = cpu, dram)",
            consumed,
        ),
        energy_total("GPU energy since the exporter started; GPU only: CPU and DRAM energy are in gen_ai.energy.consumed", whole(total)),
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
    out.extend(tokens(state));
    if cfg.co2.value {
        let g = cfg.intensity.value;
        out.push(co2(whole(total.map(|k| k * g))));
        let rate = state.latest.as_ref().and(state.last_interval).map(|(j, dt)| j.kwh().0 * g / dt);
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

/// The inference server's tokens and the GPUs' energy per token (`gpu serve --tokens-from`), under either
/// naming: no convention has names for them.
fn tokens(state: &Collected) -> Vec<Family> {
    let Some(t) = &state.tokens else { return Vec::new() };
    let whole = |v: Option<f64>| v.into_iter().map(|x| number(Vec::new(), x)).collect::<Vec<_>>();
    vec![
        family(
            "gen_ai.gpu.energy.per_token",
            "J/{token}",
            Kind::Gauge,
            "GPU energy over the last interval per output token the inference server generated in it (exa gpu serve --tokens-from)",
            whole(t.j_per_token),
        ),
        family(
            "gen_ai.inference.tokens",
            "{token}",
            Kind::Counter,
            "Output tokens the inference server generated since the exporter started",
            whole(Some(t.total)),
        ),
    ]
}

/// The node's CPU (package) and DRAM energy as points, `value` of joules, attributes by component name.
fn cpu_points(
    live: Option<&crate::sources::cpu::Live>,
    value: impl Fn(Joules) -> f64,
    attrs: impl Fn(&str) -> Vec<(&'static str, String)>,
) -> Vec<Point> {
    let Some(c) = live else { return Vec::new() };
    let mut out = vec![number(attrs("cpu"), value(c.package))];
    out.extend(c.dram.map(|j| number(attrs("dram"), value(j))));
    out
}

/// A CPU or memory component's attributes in the hardware conventions.
fn hw_cpu(component: &str) -> Vec<(&'static str, String)> {
    let kind = if component == "dram" { "memory" } else { "cpu" };
    vec![("hw.id", format!("rapl-{component}")), ("hw.type", kind.into()), ("hw.name", format!("RAPL {component}"))]
}

fn hw(state: &Collected) -> Vec<Family> {
    let mut out = gauges(HW_DEVICE, Semconv::Hw, state.latest.as_ref());
    if let Some(c) = &state.cpu {
        // The CPU and memory power of the last interval, beside the GPUs'.
        let power = out.iter_mut().find(|f| f.name == "hw.power").map(|f| &mut f.points);
        if let Some(points) = power {
            points.extend(c.package_w.map(|w| number(hw_cpu("cpu"), w)));
            points.extend(c.dram_w.map(|w| number(hw_cpu("dram"), w)));
        }
    }
    let mut points: Vec<Point> =
        state.totals.iter().map(|(i, t)| number(device_attributes(Semconv::Hw, *i, &t.name, t.uuid.as_deref()), t.energy.0)).collect();
    points.extend(cpu_points(state.cpu.as_ref(), |j| j.0, hw_cpu));
    out.push(family(
        "hw.energy",
        "J",
        Kind::Counter,
        "Energy consumed since the exporter started: each GPU, and the node's CPU packages and memory (RAPL)",
        points,
    ));
    out.push(attributed(state, Semconv::Hw));
    out.extend(host(state));
    out.extend(tokens(state));
    out
}

/// The whole node's energy and power from its platform meter, in the hardware conventions' host metrics; none
/// without a meter.
fn host(state: &Collected) -> Vec<Family> {
    let Some((joules, watts)) = state.node else { return Vec::new() };
    let mut out = vec![family(
        "hw.host.energy",
        "J",
        Kind::Counter,
        "Energy consumed by the whole host since the exporter started, from its platform meter (hwmon or the BMC)",
        vec![number(Vec::new(), joules)],
    )];
    if let Some(w) = watts {
        out.push(family(
            "hw.host.power",
            "W",
            G,
            "The whole host's power over the last interval, from its platform meter",
            vec![number(Vec::new(), w)],
        ));
    }
    out
}

/// A measured run's energy as its report states it: its GPUs', and its share of the node's CPU packages and DRAM
/// (pushed in kWh as the report's figures, in joules under the hardware conventions).
#[derive(Debug, Clone, Copy, Default)]
pub struct RunEnergy {
    pub gpu: Option<Kwh>,
    pub cpu: Option<Kwh>,
    pub dram: Option<Kwh>,
}

impl RunEnergy {
    /// A run's energy from what it measured.
    pub fn of(gpu: Option<Kwh>, cpu: Option<Kwh>, dram: Option<Kwh>) -> RunEnergy {
        RunEnergy { gpu, cpu, dram }
    }
}

/// The final totals of a measured run, for a push at its end: energy (GPU, and CPU and DRAM where
/// measured), and cost and CO2 of the GPU energy where set.
pub fn run_totals(e: RunEnergy, cfg: &TelemetrySettings, labels: &[(&'static str, String)]) -> Vec<Family> {
    let at = |v: f64| vec![number(labels.to_vec(), v)];
    let with = |extra: Vec<(&'static str, String)>, v: f64| {
        let mut a = labels.to_vec();
        a.extend(extra);
        number(a, v)
    };
    let cpu = [("cpu", e.cpu), ("dram", e.dram)];
    match cfg.semconv.value {
        Semconv::Hw => {
            let mut points: Vec<Point> = e.gpu.map(|k| at(k.joules().0)).unwrap_or_default();
            points.extend(cpu.iter().filter_map(|(c, k)| Some(with(hw_cpu(c), (*k)?.joules().0))));
            if points.is_empty() {
                return Vec::new();
            }
            vec![family(
                "hw.energy",
                "J",
                Kind::Counter,
                "Energy of the measured run: its GPUs, and its share of the CPU packages and memory",
                points,
            )]
        }
        Semconv::Genai => {
            let mut out = Vec::new();
            if let Some(kwh) = e.gpu.map(|k| k.0) {
                out.push(energy_total("GPU energy of the measured run (GPU only)", at(kwh)));
                if let Some(price) = &cfg.cost_per_kwh {
                    out.push(cost(at(kwh * price.value)));
                }
                if cfg.co2.value {
                    out.push(co2(at(kwh * cfg.intensity.value)));
                }
            }
            let consumed: Vec<Point> = cpu.iter().filter_map(|(c, k)| Some(with(vec![("component", (*c).to_string())], (*k)?.0))).collect();
            if !consumed.is_empty() {
                out.push(family(
                    "gen_ai.energy.consumed",
                    "kWh",
                    Kind::Counter,
                    "The measured run's share of the node's CPU packages and DRAM energy (component = cpu, dram)",
                    consumed,
                ));
            }
            out
        }
    }
}

/// An empty histogram with the collector's bounds (for instruments made before any reading).
pub fn empty_histogram() -> Histogram {
    Histogram::new(crate::sources::gpu::collector::POWER_BOUNDS_W)
}

/// Every family the catalog makes, as (name, unit, kind, help): the instruments an OTLP exporter declares.
pub fn names(cfg: &TelemetrySettings) -> Vec<(&'static str, &'static str, Kind, &'static str)> {
    families(&Collected::new(), None, cfg).into_iter().map(|f| (f.name, f.unit, f.kind, f.help)).collect()
}

/// The ledger's budgets as gauges (`exa gpu serve --budgets`): each unit's limit, its use this period, and its use at
/// the period's end at two paces, labelled by budget, scope, period and unit; and when each period ends.
pub fn budget_families(budgets: &[crate::store::budget::BudgetStatus]) -> Vec<Family> {
    let labels = |b: &crate::store::budget::BudgetStatus, unit: &str| {
        vec![
            ("budget", b.name.clone()),
            ("scope", b.scope.to_string()),
            ("period", b.period.name().to_string()),
            ("unit", unit.to_string()),
        ]
    };
    let (mut limit, mut used, mut forecast, mut end) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for b in budgets {
        end.push(number(labels(b, "")[..3].to_vec(), b.period_end as f64));
        for u in &b.units {
            let unit = serde_json::to_value(u.unit).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            limit.push(number(labels(b, &unit), u.limit));
            used.push(number(labels(b, &unit), u.used));
            for (pace, p) in [("period", &u.period_pace), ("7d", &u.last_7_days_pace)] {
                if let Some(p) = p {
                    let mut l = labels(b, &unit);
                    l.push(("pace", pace.to_string()));
                    forecast.push(number(l, p.at_period_end));
                }
            }
        }
    }
    vec![
        family("exa.budget.limit", "{amount}", Kind::Gauge, "A budget's limit a period, in its unit (kwh, kgco2e, usd).", limit),
        family("exa.budget.used", "{amount}", Kind::Gauge, "A budget's use this period, counted as exa report counts it.", used),
        family(
            "exa.budget.forecast",
            "{amount}",
            Kind::Gauge,
            "A budget's use at its period's end at a pace: the period's own, or the last 7 days'.",
            forecast,
        ),
        family("exa.budget.period.end", "s", Kind::Gauge, "When a budget's period ends, seconds since the epoch.", end),
    ]
}

#[cfg(test)]
mod tests {
    use super::{run_totals, Kwh, RunEnergy};
    use crate::model::telemetry::{Semconv, Value};

    fn cfg(semconv: Semconv) -> crate::settings::TelemetrySettings {
        use crate::model::{Source, Sourced};
        crate::settings::TelemetrySettings {
            semconv: Sourced::new(semconv, Source::Flag),
            cost_per_kwh: None,
            intensity: Sourced::new(475.0, Source::Default),
            co2: Sourced::new(false, Source::Default),
            interval: Sourced::new(5.0, Source::Default),
            otlp: None,
            notes: Vec::new(),
        }
    }

    #[test]
    fn a_run_pushes_its_cpu_and_dram_energy_as_components_and_keeps_the_total_gpu_only() {
        let e = RunEnergy { gpu: Some(Kwh(2.0)), cpu: Some(Kwh(0.5)), dram: Some(Kwh(0.1)) };
        let f = run_totals(e, &cfg(Semconv::Genai), &[]);
        let names: Vec<&str> = f.iter().map(|x| x.name).collect();
        assert_eq!(names, ["gen_ai.energy.total", "gen_ai.energy.consumed"]);
        assert!(matches!(f[0].points[0].value, Value::Number(v) if v == 2.0), "the total is GPU energy only");
        let parts: Vec<(String, f64)> =
            f[1].points.iter().map(|p| (p.attributes[0].1.clone(), if let Value::Number(v) = p.value { v } else { f64::NAN })).collect();
        assert_eq!(parts, [("cpu".to_string(), 0.5), ("dram".to_string(), 0.1)]);
        let hw = run_totals(RunEnergy { gpu: None, cpu: Some(Kwh(0.5)), dram: None }, &cfg(Semconv::Hw), &[]);
        assert_eq!(hw.len(), 1);
        assert_eq!(hw[0].points.len(), 1);
        assert!(hw[0].points[0].attributes.contains(&("hw.type", "cpu".to_string())));
        assert!(matches!(hw[0].points[0].value, Value::Number(v) if (v - 1.8e6).abs() < 1e-6));
    }
}
