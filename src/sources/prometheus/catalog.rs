//! What each GPU maker's exporter calls each reading, as PromQL templates.
//!
//! `{sel}` is the label selector of the node (and the cluster's own
//! labels), `{step}` the bucket width, `{rate}` the range of a `rate()`
//! (the bucket, but never under 3 minutes, so that it always holds two
//! scrapes) and `{win}` the window, in seconds; `{bucket}` is the bucket
//! (or a minute, where the bucket is shorter, so that a scrape every
//! minute lands in every bucket) less a millisecond, in milliseconds.
//!
//! A gauge's bucket is `(end - step, end]`: Prometheus 2 counts both ends
//! of a range, so a bucket of exactly `step` seconds whose edges land on
//! scrapes would hold the scrape at its start too, and average a hot
//! reading with the cool one before it. `[{bucket}ms]` gives every
//! scrape to one bucket, whatever the window's alignment (Prometheus 3's
//! ranges are open at the start already; the millisecond changes nothing
//! there).

use crate::model::config::Cluster;

/// The GPU temperature at or above which a GPU counts as hot, °C (the thermal flag's mark, which the readings for
/// flags are made for).
pub const HOT_C: f64 = 83.0;

/// How long a GPU must hold at or above `HOT_C` to be flagged, seconds.
pub const HOLD_S: i64 = 300;

/// The fixed vocabulary of metric families.
pub const FAMILIES: &[&str] = &[
    "gpu_temp",
    "memory_temp",
    "sm_clock",
    "mem_clock",
    "gpu_util",
    "tensor_active",
    "sm_active",
    "dram_active",
    "power",
    "hbm",
    "throttle_violations",
    "clock_events",
    "link_errors",
    "ecc",
    "xid",
    "host_cpu",
    "host_pressure",
    "host_nic",
    "north_south",
    "health_episodes",
];

/// The clock-event kinds read from the reasons mask, in the answer's order: field, and the kind's bit.
pub const CLOCK_EVENTS: [(&str, u32); 5] = [
    ("clock_events.SW_POWER_CAP", 4),
    ("clock_events.HW_SLOWDOWN", 8),
    ("clock_events.SW_THERMAL", 32),
    ("clock_events.HW_THERMAL", 64),
    ("clock_events.HW_POWER_BRAKE", 128),
];

/// How a reading is taken.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ReadingKind {
    /// A per-GPU gauge over the window's buckets, times a scale.
    Gauge(f64),
    /// A per-GPU value at the window's end (a total), times a scale.
    Last(f64),
    /// A per-GPU counter's increase over the window, times a scale (null when not held).
    Increase(f64),
    /// A host gauge over the window's buckets.
    HostGauge,
    /// A host counter's increase over the window.
    HostIncrease,
}

/// One reading of the catalog: a family, the field it fills and its PromQL.
#[derive(Debug, Clone)]
pub struct Reading {
    /// The family it belongs to (coverage counts families).
    pub family: &'static str,
    /// Where it lands: `temp_c`, `throttle.thermal_s`, `errors.pcie_replay`, `host.pressure.cpu`...
    pub field: &'static str,
    /// PromQL templates; the readings of several are summed.
    pub exprs: Vec<String>,
    /// How its answer is read.
    pub kind: ReadingKind,
}

/// What exa reads for one cluster's GPU maker.
pub struct Catalog {
    /// The label naming the GPU on a series.
    pub device_label: &'static str,
    /// The readings, in order.
    pub readings: Vec<Reading>,
    /// Families this maker structurally lacks: never queried.
    pub unavailable: Vec<&'static str>,
    /// The GPU temperature selectors (any of them), for the reference.
    pub temp: Vec<String>,
    /// Per-bucket increases of the counters counter-based flags judge, read
    /// only for flags: the buckets where a counter rose are the flag's span.
    pub spans: Vec<Reading>,
    /// Families that answer only in part for this maker, and why: said in every answer's note.
    pub partial: Vec<&'static str>,
}

fn r(family: &'static str, field: &'static str, expr: &str, kind: ReadingKind) -> Reading {
    Reading { family, field, exprs: vec![expr.to_string()], kind }
}

fn gauge(dev: &str, metric: &str) -> String {
    format!("avg by ({dev}) (avg_over_time({metric}[{{bucket}}ms]))")
}

/// A gauge read from whichever of several metrics a GPU exports.
fn gauge_any(dev: &str, metrics: &[String]) -> String {
    let parts: Vec<String> = metrics.iter().map(|m| format!("avg_over_time({m}[{{bucket}}ms])")).collect();
    format!("avg by ({dev}) ({})", parts.join(" or "))
}

/// The highest reading over the window at the scrape's own resolution, not the highest bucket mean.
fn peak(dev: &str, metrics: &[String]) -> String {
    let parts: Vec<String> = metrics.iter().map(|m| format!("max_over_time({m}[{{win}}s])")).collect();
    format!("max by ({dev}) ({})", parts.join(" or "))
}

fn increase(dev: &str, metric: &str) -> String {
    format!("sum by ({dev}) (increase({metric}[{{win}}s]))")
}

/// Inserts `{sel}` into a metric name with or without matchers of its own.
fn m(name: &str, matchers: &str) -> String {
    if matchers.is_empty() {
        format!("{name}{{{{sel}}}}")
    } else {
        format!("{name}{{{{sel}},{matchers}}}")
    }
}

/// The families whose counters counter-based flags (power_cap, comm_errors) judge.
const SPAN_FAMILIES: &[&str] = &["throttle_violations", "clock_events", "link_errors", "ecc", "xid"];

/// The catalog for a cluster's maker, labels and prefix, with the span
/// readings derived from its window-increase readings.
pub fn for_cluster(c: &Cluster) -> Catalog {
    let mut cat = table(c);
    cat.spans = cat
        .readings
        .iter()
        .filter(|r| SPAN_FAMILIES.contains(&r.family))
        .filter_map(|r| match r.kind {
            ReadingKind::Increase(scale) => Some(Reading {
                family: r.family,
                field: r.field,
                // The same counter, its rise in each bucket instead of over the window.
                exprs: r.exprs.iter().map(|e| per_bucket(e)).collect(),
                kind: ReadingKind::Gauge(scale),
            }),
            _ => None,
        })
        .collect();
    cat
}

/// A window's reading of a counter made its reading per bucket, each rise in exactly one bucket: the one where
/// the later of its two scrapes landed. A counter's `increase(X[win])` becomes the counter at the bucket's end
/// less the counter at its start (`offset`), so a rise whose two scrapes fall in neighbouring buckets is not
/// lost between them, as `increase(X[step])` loses it (that sees only the scrapes inside one bucket); where the
/// counter has no reading at one end (it reset, began or went stale inside the bucket) its increase inside the
/// bucket stands in. `changes(X[win])` (the XID code, a gauge) becomes its changes inside the bucket plus a
/// change across the bucket's start, or its changes inside alone where one end has no reading. Other forms (the
/// clock events' subquery) are read over the bucket instead of the window.
pub(crate) fn per_bucket(expr: &str) -> String {
    let rewrite = |e: &str, func: &str, make: &dyn Fn(&str) -> String| -> Option<String> {
        let at = e.find(&format!("{func}("))?;
        let inner_from = at + func.len() + 1;
        let close = e[inner_from..].find("[{win}s])")? + inner_from;
        let inner = &e[inner_from..close];
        Some(format!("{}{}{}", &e[..at], make(inner), &e[close + "[{win}s])".len()..]))
    };
    let mut e = expr.to_string();
    while let Some(next) = rewrite(&e, "increase", &|x| format!("({x} - {x} offset {{step}}s >= 0 or increase({x}[{{bucket}}ms]))")) {
        e = next;
    }
    while let Some(next) = rewrite(&e, "changes", &|x| {
        format!("((changes({x}[{{bucket}}ms]) + ({x} != bool {x} offset {{step}}s)) or changes({x}[{{bucket}}ms]))")
    }) {
        e = next;
    }
    e.replace("[{win}s", "[{step}s")
}

/// The catalog as a data table, one row per reading.
#[allow(clippy::too_many_lines)] // a table of readings, not logic
fn table(c: &Cluster) -> Catalog {
    let mut readings = host();
    if c.gpu_vendor == "amd" {
        let p = &c.metric_prefix;
        let d = "gpu_id";
        let g = |f, field, name: &str, matchers: &str, scale| {
            r(f, field, &gauge(d, &m(&format!("{p}{name}"), matchers)), ReadingKind::Gauge(scale))
        };
        let temp = vec![m(&format!("{p}gpu_junction_temperature"), ""), m(&format!("{p}gpu_edge_temperature"), "")];
        readings.extend([
            r("gpu_temp", "temp_c", &gauge_any(d, &temp), ReadingKind::Gauge(1.0)),
            r("gpu_temp", "peak_temp_c", &peak(d, &temp), ReadingKind::Last(1.0)),
            g("memory_temp", "memory_temp_c", "gpu_memory_temperature", "", 1.0),
            g("sm_clock", "sm_clock_mhz", "gpu_clock", "clock_type=\"system\"", 1.0),
            g("mem_clock", "mem_clock_mhz", "gpu_clock", "clock_type=\"memory\"", 1.0),
            g("gpu_util", "util_pct", "gpu_gfx_activity", "", 1.0),
            g("tensor_active", "tensor_active_pct", "gpu_mma_activity", "", 1.0),
            g("sm_active", "sm_active_pct", "gpu_gfx_busy_instantaneous", "", 1.0),
            g("dram_active", "dram_active_pct", "gpu_umc_activity", "", 1.0),
            r(
                "power",
                "power_w",
                &gauge_any(d, &[m(&format!("{p}gpu_power_usage"), ""), m(&format!("{p}gpu_package_power"), "")]),
                ReadingKind::Gauge(1.0),
            ),
            g("hbm", "hbm_used_gib", "gpu_used_vram", "", 1.0 / 1024.0),
            r("hbm", "hbm_total_gib", &format!("max by ({d}) ({})", m(&format!("{p}gpu_total_vram"), "")), ReadingKind::Last(1.0 / 1024.0)),
            r("link_errors", "errors.pcie_replay", &increase(d, &m(&format!("{p}pcie_replay_count"), "")), ReadingKind::Increase(1.0)),
            r("link_errors", "errors.pcie_recovery", &increase(d, &m(&format!("{p}pcie_recovery_count"), "")), ReadingKind::Increase(1.0)),
            Reading {
                family: "ecc",
                field: "errors.ecc_sbe",
                exprs: vec![
                    increase(d, &m(&format!("{p}gpu_ecc_correct_total"), "")),
                    increase(d, &m(&format!("{p}gpu_ecc_deferred_total"), "")),
                ],
                kind: ReadingKind::Increase(1.0),
            },
            r("ecc", "errors.ecc_dbe", &increase(d, &m(&format!("{p}gpu_ecc_uncorrect_total"), "")), ReadingKind::Increase(1.0)),
        ]);
        return Catalog {
            device_label: d,
            spans: Vec::new(),
            readings,
            unavailable: vec!["throttle_violations", "clock_events", "xid"],
            partial: vec![
                "link_errors answers only in part: the PCIe counters are read, the fabric link (XGMI) counters are not, so link_crc, link_replay and link_recovery are null",
            ],
            temp,
        };
    }
    let d = "gpu";
    let g = |f, field, name: &str, scale| r(f, field, &gauge(d, &m(name, "")), ReadingKind::Gauge(scale));
    let inc = |f, field, name: &str, scale| r(f, field, &increase(d, &m(name, "")), ReadingKind::Increase(scale));
    readings.extend([
        g("gpu_temp", "temp_c", "DCGM_FI_DEV_GPU_TEMP", 1.0),
        r("gpu_temp", "peak_temp_c", &peak(d, &[m("DCGM_FI_DEV_GPU_TEMP", "")]), ReadingKind::Last(1.0)),
        g("memory_temp", "memory_temp_c", "DCGM_FI_DEV_MEMORY_TEMP", 1.0),
        g("sm_clock", "sm_clock_mhz", "DCGM_FI_DEV_SM_CLOCK", 1.0),
        g("mem_clock", "mem_clock_mhz", "DCGM_FI_DEV_MEM_CLOCK", 1.0),
        g("gpu_util", "util_pct", "DCGM_FI_DEV_GPU_UTIL", 1.0),
        g("tensor_active", "tensor_active_pct", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", 100.0),
        g("sm_active", "sm_active_pct", "DCGM_FI_PROF_SM_ACTIVE", 100.0),
        g("dram_active", "dram_active_pct", "DCGM_FI_PROF_DRAM_ACTIVE", 100.0),
        g("power", "power_w", "DCGM_FI_DEV_POWER_USAGE", 1.0),
        g("hbm", "hbm_used_gib", "DCGM_FI_DEV_FB_USED", 1.0 / 1024.0),
        r(
            "hbm",
            "hbm_total_gib",
            &format!("max by ({d}) ({} + {})", m("DCGM_FI_DEV_FB_USED", ""), m("DCGM_FI_DEV_FB_FREE", "")),
            ReadingKind::Last(1.0 / 1024.0),
        ),
        // DCGM's violation counters are nanoseconds.
        inc("throttle_violations", "throttle.thermal_s", "DCGM_FI_DEV_THERMAL_VIOLATION", 1e-9),
        inc("throttle_violations", "throttle.power_s", "DCGM_FI_DEV_POWER_VIOLATION", 1e-9),
        inc("throttle_violations", "throttle.board_limit_s", "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION", 1e-9),
        inc("throttle_violations", "throttle.sync_boost_s", "DCGM_FI_DEV_SYNC_BOOST_VIOLATION", 1e-9),
        inc("throttle_violations", "throttle.low_util_s", "DCGM_FI_DEV_LOW_UTIL_VIOLATION", 1e-9),
        inc("throttle_violations", "throttle.reliability_s", "DCGM_FI_DEV_RELIABILITY_VIOLATION", 1e-9),
        inc("link_errors", "errors.link_crc", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", 1.0),
        inc("link_errors", "errors.link_replay", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", 1.0),
        inc("link_errors", "errors.link_recovery", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", 1.0),
        inc("link_errors", "errors.pcie_replay", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", 1.0),
        inc("ecc", "errors.ecc_sbe", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", 1.0),
        inc("ecc", "errors.ecc_dbe", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 1.0),
        r(
            "xid",
            "errors.xid",
            &format!("sum by ({d}) (changes({}[{{win}}s]))", m("DCGM_FI_DEV_XID_ERRORS", "")),
            ReadingKind::Increase(1.0),
        ),
    ]);
    // Clock events: buckets in which each reason bit of the event mask was set. The bit is
    // summed, not filtered: a mask that is read with no bit set counts 0 events, not no reading.
    for (field, bit) in CLOCK_EVENTS {
        // DCGM 3.3 renamed the field; an exporter has one name or the other, and both are read.
        let exprs = ["DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"]
            .map(|name| {
                let mask = m(name, "");
                format!("sum by ({d}) (sum_over_time((floor({mask} / {bit}) % 2)[{{win}}s:{{step}}s]))")
            })
            .to_vec();
        readings.push(Reading { family: "clock_events", field, exprs, kind: ReadingKind::Increase(1.0) });
    }
    Catalog {
        device_label: d,
        readings,
        unavailable: Vec::new(),
        temp: vec![m("DCGM_FI_DEV_GPU_TEMP", "")],
        spans: Vec::new(),
        partial: Vec::new(),
    }
}

/// node_exporter's readings of the host, the same for every maker.
fn host() -> Vec<Reading> {
    vec![
        r(
            "host_cpu",
            "host.cpu_busy_pct",
            "100 * (1 - avg(rate(node_cpu_seconds_total{{hsel},mode=\"idle\"}[{rate}s])))",
            ReadingKind::HostGauge,
        ),
        r(
            "host_cpu",
            "host.load_per_core",
            "sum(avg_over_time(node_load1{{hsel}}[{bucket}ms])) / count(node_cpu_seconds_total{{hsel},mode=\"idle\"})",
            ReadingKind::HostGauge,
        ),
        r(
            "host_pressure",
            "host.pressure.cpu",
            "100 * sum(rate(node_pressure_cpu_waiting_seconds_total{{hsel}}[{rate}s]))",
            ReadingKind::HostGauge,
        ),
        r(
            "host_pressure",
            "host.pressure.memory",
            "100 * sum(rate(node_pressure_memory_waiting_seconds_total{{hsel}}[{rate}s]))",
            ReadingKind::HostGauge,
        ),
        r(
            "host_pressure",
            "host.pressure.io",
            "100 * sum(rate(node_pressure_io_waiting_seconds_total{{hsel}}[{rate}s]))",
            ReadingKind::HostGauge,
        ),
        r(
            "host_nic",
            "host.nic.rx_mbps",
            "sum(rate(node_network_receive_bytes_total{{hsel},device!=\"lo\"}[{rate}s])) * 8 / 1e6",
            ReadingKind::HostGauge,
        ),
        r(
            "host_nic",
            "host.nic.tx_mbps",
            "sum(rate(node_network_transmit_bytes_total{{hsel},device!=\"lo\"}[{rate}s])) * 8 / 1e6",
            ReadingKind::HostGauge,
        ),
        Reading {
            family: "host_nic",
            field: "host.nic.errors",
            exprs: vec![
                "sum(increase(node_network_receive_errs_total{{hsel},device!=\"lo\"}[{win}s]))".into(),
                "sum(increase(node_network_transmit_errs_total{{hsel},device!=\"lo\"}[{win}s]))".into(),
            ],
            kind: ReadingKind::HostIncrease,
        },
        Reading {
            family: "host_nic",
            field: "host.nic.drops",
            exprs: vec![
                "sum(increase(node_network_receive_drop_total{{hsel},device!=\"lo\"}[{win}s]))".into(),
                "sum(increase(node_network_transmit_drop_total{{hsel},device!=\"lo\"}[{win}s]))".into(),
            ],
            kind: ReadingKind::HostIncrease,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::per_bucket;

    #[test]
    fn a_counters_reading_per_bucket_is_its_rise_across_the_bucket() {
        assert_eq!(
            per_bucket("sum by (gpu) (increase(X{{sel}}[{win}s]))"),
            "sum by (gpu) ((X{{sel}} - X{{sel}} offset {step}s >= 0 or increase(X{{sel}}[{bucket}ms])))"
        );
        assert_eq!(
            per_bucket("sum by (gpu) (changes(X{{sel}}[{win}s]))"),
            "sum by (gpu) (((changes(X{{sel}}[{bucket}ms]) + (X{{sel}} != bool X{{sel}} offset {step}s)) or changes(X{{sel}}[{bucket}ms])))"
        );
        assert_eq!(
            per_bucket("sum by (gpu) (sum_over_time((m % 2)[{win}s:{step}s]))"),
            "sum by (gpu) (sum_over_time((m % 2)[{step}s:{step}s]))"
        );
    }
}
