//! `exa metrics` against a real Prometheus holding realistic series, with
//! the label sets of the real scrapes (dcgm-exporter, AMD's device metrics
//! exporter, kube-state-metrics, node_exporter).

use std::sync::OnceLock;

use serde_json::Value;

use crate::common::{fails, stdout, Env};
use crate::prometheus::{Prometheus, Series};

pub const MIN: i64 = 60;
pub const HOUR: i64 = 3600;

/// The fleet every test reads: generated once, served by one Prometheus per test binary.
pub struct Fleet {
    prom: Prometheus,
    /// "Now" when the data was written, on a minute.
    pub t: i64,
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

pub fn iso(t: i64) -> String {
    exa::time::iso8601(t)
}

/// A DCGM GPU of cluster `aurora` with the labels dcgm-exporter puts on it.
fn dcgm(
    s: &mut Series,
    node: &str,
    gpu: &str,
    temp: &dyn Fn(i64) -> f64,
    tensor: &dyn Fn(i64) -> f64,
    fb_used: &dyn Fn(i64) -> f64,
    power_violation: &dyn Fn(i64) -> f64,
) {
    dcgm_in(s, "aurora", node, gpu, temp, tensor, fb_used, power_violation, &|_| 0.0);
}

/// A DCGM GPU of any cluster.
#[allow(clippy::too_many_arguments)]
fn dcgm_in(
    s: &mut Series,
    cluster: &str,
    node: &str,
    gpu: &str,
    temp: &dyn Fn(i64) -> f64,
    tensor: &dyn Fn(i64) -> f64,
    fb_used: &dyn Fn(i64) -> f64,
    power_violation: &dyn Fn(i64) -> f64,
    thermal_violation: &dyn Fn(i64) -> f64,
) {
    let uuid = format!("GPU-{node}-{gpu}");
    let l = [
        ("gpu", gpu),
        ("UUID", uuid.as_str()),
        ("device", "nvidia0"),
        ("modelName", "NVIDIA H100 80GB HBM3"),
        ("Hostname", node),
        ("cluster", cluster),
    ];
    s.add("DCGM_FI_DEV_GPU_TEMP", &l, |t| Some(temp(t)));
    s.add("DCGM_FI_DEV_MEMORY_TEMP", &l, |_| Some(48.0));
    s.add("DCGM_FI_DEV_SM_CLOCK", &l, |_| Some(1980.0));
    s.add("DCGM_FI_DEV_MEM_CLOCK", &l, |_| Some(2619.0));
    s.add("DCGM_FI_DEV_GPU_UTIL", &l, |t| Some(tensor(t) * 100.0));
    s.add("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", &l, |t| Some(tensor(t)));
    s.add("DCGM_FI_PROF_SM_ACTIVE", &l, |t| Some(tensor(t) * 0.9));
    s.add("DCGM_FI_PROF_DRAM_ACTIVE", &l, |_| Some(0.4));
    s.add("DCGM_FI_DEV_POWER_USAGE", &l, |_| Some(612.5));
    s.add("DCGM_FI_DEV_FB_USED", &l, |t| Some(fb_used(t)));
    s.add("DCGM_FI_DEV_FB_FREE", &l, |t| Some(81559.0 - fb_used(t)));
    s.counter("DCGM_FI_DEV_THERMAL_VIOLATION", &l, thermal_violation);
    s.counter("DCGM_FI_DEV_POWER_VIOLATION", &l, power_violation);
    for c in [
        "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION",
        "DCGM_FI_DEV_SYNC_BOOST_VIOLATION",
        "DCGM_FI_DEV_LOW_UTIL_VIOLATION",
        "DCGM_FI_DEV_RELIABILITY_VIOLATION",
    ] {
        s.counter(c, &l, |_| 0.0);
    }
    for c in [
        "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
        "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
        "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
        "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
    ] {
        s.counter(c, &l, |_| 0.0);
    }
    s.add("DCGM_FI_DEV_XID_ERRORS", &l, |_| Some(0.0));
    s.add("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", &l, |_| Some(0.0));
}

/// node_exporter series for a host, labelled as the scrape labels them.
fn host(s: &mut Series, label: &str, node: &str, cluster: &str, cpu_pressure: &dyn Fn(i64) -> f64) {
    let l = [(label, node), ("cluster", cluster), ("job", "node-exporter")];
    for cpu in ["0", "1"] {
        let lc = [(label, node), ("cluster", cluster), ("cpu", cpu), ("mode", "idle")];
        s.counter("node_cpu_seconds_total", &lc, |_| 0.6);
    }
    s.add("node_load1", &l, |_| Some(1.5));
    s.counter("node_pressure_cpu_waiting_seconds_total", &l, cpu_pressure);
    s.counter("node_pressure_memory_waiting_seconds_total", &l, |_| 0.0);
    s.counter("node_pressure_io_waiting_seconds_total", &l, |_| 0.02);
    let ld = [(label, node), ("cluster", cluster), ("device", "eth0")];
    s.counter("node_network_receive_bytes_total", &ld, |_| 125_000_000.0);
    s.counter("node_network_transmit_bytes_total", &ld, |_| 62_500_000.0);
    for c in [
        "node_network_receive_errs_total",
        "node_network_transmit_errs_total",
        "node_network_receive_drop_total",
        "node_network_transmit_drop_total",
    ] {
        s.counter(c, &ld, |_| 0.0);
    }
}

fn pod(s: &mut Series, cluster: &str, pod: &str, node: &str, owner_kind: &str, owner: &str, when: &dyn Fn(i64) -> bool) {
    pod_in(s, cluster, pod, node, owner_kind, owner, when, "Running");
}

/// A pod in one phase throughout, with kube-state-metrics' 0 for every other phase.
#[allow(clippy::too_many_arguments)]
fn pod_in(s: &mut Series, cluster: &str, pod: &str, node: &str, owner_kind: &str, owner: &str, when: &dyn Fn(i64) -> bool, phase: &str) {
    let info = [("namespace", "default"), ("pod", pod), ("node", node), ("cluster", cluster), ("created_by_kind", owner_kind)];
    s.add("kube_pod_info", &info, |t| when(t).then_some(1.0));
    s.add(
        "kube_pod_owner",
        &[("namespace", "default"), ("pod", pod), ("owner_kind", owner_kind), ("owner_name", owner), ("cluster", cluster)],
        |t| when(t).then_some(1.0),
    );
    for p in ["Pending", "Running", "Succeeded", "Failed", "Unknown"] {
        let on = p == phase;
        s.add("kube_pod_status_phase", &[("namespace", "default"), ("pod", pod), ("phase", p), ("cluster", cluster)], |t| {
            when(t).then_some(if on { 1.0 } else { 0.0 })
        });
    }
}

/// Another tenant in the same Prometheus, with the same node and pod names, and everything wrong:
/// hot, idle, full, power-capped, under pressure, not ready, in an episode. No answer of aurora may change.
fn shadow(s: &mut Series) {
    for node in ["n1", "n2", "p1", "u1", "c1", "h1", "m1", "s6", "e1", "s1"] {
        for gpu in ["0", "1", "2", "3"] {
            dcgm_in(s, "shadow", node, gpu, &|_| 95.0, &|_| 0.01, &|_| 81_000.0, &|_| 1e9, &|_| 1e9);
        }
        host(s, "Hostname", node, "shadow", &|_| 0.9);
        s.add("kube_node_status_condition", &[("node", node), ("condition", "Ready"), ("status", "true"), ("cluster", "shadow")], |_| {
            Some(0.0)
        });
        s.add("ALERTS", &[("alertname", "GpuThermalEpisode"), ("alertstate", "firing"), ("Hostname", node), ("cluster", "shadow")], |_| {
            Some(1.0)
        });
    }
    let always = |_: i64| true;
    pod(s, "shadow", "train-llm-0", "n2", "Job", "train-llm", &always);
    pod(s, "shadow", "train-llm-9", "p1", "Job", "train-llm", &always);
    for gpu in ["0", "1"] {
        let l = [("gpu_id", gpu), ("hostname", "mi-n1"), ("cluster", "shadow")];
        s.add("amd_gpu_junction_temperature", &l, |_| Some(99.0));
        s.counter("amd_gpu_ecc_uncorrect_total", &l, |_| 1.0);
    }
}

/// The nodes of the telemetry document's audit, each failing one rule before it was fixed; the spells start at t - 2 h.
fn audited(s: &mut Series, t: i64) {
    let mid = move |x: i64, len: i64| (t - 2 * HOUR..t - 2 * HOUR + len).contains(&x);
    let (calm, fb, none, always) = (|_: i64| 0.8, |_: i64| 40_000.0, |_: i64| 0.0, |_: i64| true);
    // Thermal throttling by the violation counter alone, for 12 minutes from t - 2 h.
    let thermal = move |x: i64| if mid(x, 12 * MIN) { 1e9 } else { 0.0 };
    dcgm_in(s, "aurora", "t1", "0", &|_| 60.0, &calm, &fb, &none, &thermal);
    host(s, "Hostname", "t1", "aurora", &|_| 0.01);
    // Hot spells of exactly 5 and 10 scrapes, for durations that must not depend on the window's alignment.
    for (node, scrapes) in [("a5", 5), ("a10", 10)] {
        dcgm(s, node, "0", &move |x| if mid(x, scrapes * MIN) { 90.0 } else { 60.0 }, &calm, &fb, &none);
        host(s, "Hostname", node, "aurora", &|_| 0.01);
    }
    // Idle GPUs under two Deployments: one whose pod is Pending throughout, one whose pod is Running.
    let collapse = move |x: i64| if mid(x, 30 * MIN) { 0.1 } else { 0.8 };
    dcgm(s, "u2", "0", &|_| 60.0, &collapse, &fb, &none);
    host(s, "Hostname", "u2", "aurora", &|_| 0.01);
    pod_in(s, "aurora", "idle-dep-7c9d8b6f5-x2x4q", "u2", "ReplicaSet", "idle-dep-7c9d8b6f5", &always, "Pending");
    pod(s, "aurora", "busy-dep-5f6d7c8b9-qz7km", "u1", "ReplicaSet", "busy-dep-5f6d7c8b9", &always);
}

/// Nodes whose events test the flags' placement: one-scrape ECC (x1) and XID (x2) events at t - 2 h, and a GPU
/// hot one minute in ten for two hours (f1).
fn events(s: &mut Series, t: i64) {
    let mid = move |x: i64, len: i64| (t - 2 * HOUR..t - 2 * HOUR + len).contains(&x);
    let (calm, fb, none) = (|_: i64| 0.8, |_: i64| 40_000.0, |_: i64| 0.0);
    // One-scrape events: an uncorrectable ECC error between the scrapes at t - 2 h and a minute later (x1), and
    // an XID code read at one scrape only, t - 2 h (x2).
    for (node, xid) in [("x1", false), ("x2", true)] {
        dcgm(s, node, "0", &|_| 60.0, &calm, &fb, &none);
        let l = [("gpu", "1"), ("Hostname", node), ("cluster", "aurora")];
        if xid {
            s.add("DCGM_FI_DEV_XID_ERRORS", &l, move |x| Some(if x == t - 2 * HOUR { 79.0 } else { 0.0 }));
        } else {
            s.counter("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", &l, move |x| if mid(x, MIN) { 1.0 / 60.0 } else { 0.0 });
        }
        host(s, "Hostname", node, "aurora", &|_| 0.01);
    }
    // A GPU hot one minute in every ten for two hours: twelve hot minutes, never a held spell.
    let flicker = move |x: i64| if (t - 4 * HOUR..t - 2 * HOUR).contains(&x) && (x / 60) % 10 == 0 { 90.0 } else { 60.0 };
    dcgm(s, "f1", "0", &flicker, &calm, &fb, &none);
    host(s, "Hostname", "f1", "aurora", &|_| 0.01);
}

pub fn fleet() -> &'static Fleet {
    static FLEET: OnceLock<Fleet> = OnceLock::new();
    FLEET.get_or_init(|| {
        let t = now() / 60 * 60;
        let mut s = Series::new(t - 8 * HOUR, t);
        // The spec's thermal episode: GPU 3 of n2 at 91 °C for 41 minutes, 3 h ago; n1 stays clean.
        let hot = move |x: i64| (t - 3 * HOUR..t - 3 * HOUR + 41 * MIN).contains(&x);
        let calm = |_: i64| 0.8;
        let fb = |_: i64| 40_000.0;
        let none = |_: i64| 0.0;
        for node in ["n1", "n2"] {
            for gpu in ["0", "1", "2", "3"] {
                let temp = move |x: i64| if node == "n2" && gpu == "3" && hot(x) { 91.0 } else { 64.0 + (x / 60 % 5) as f64 };
                dcgm(&mut s, node, gpu, &temp, &calm, &fb, &none);
            }
            host(&mut s, "Hostname", node, "aurora", &|_| 0.01);
        }
        s.add("ALERTS", &[("alertname", "GpuThermalEpisode"), ("alertstate", "firing"), ("Hostname", "n2"), ("cluster", "aurora")], |x| {
            hot(x).then_some(1.0)
        });
        let always = |_: i64| true;
        pod(&mut s, "aurora", "train-llm-0", "n1", "Job", "train-llm", &always);
        pod(&mut s, "aurora", "train-llm-1", "n2", "Job", "train-llm", &always);
        s.add("kube_node_status_condition", &[("node", "n1"), ("condition", "Ready"), ("status", "true"), ("cluster", "aurora")], |_| {
            Some(1.0)
        });
        // The other five kinds, one node each.
        let mid = move |x: i64, len: i64| (t - 2 * HOUR..t - 2 * HOUR + len).contains(&x);
        dcgm(&mut s, "p1", "0", &|_| 60.0, &calm, &fb, &move |x| if mid(x, 12 * MIN) { 1e9 } else { 0.0 });
        host(&mut s, "Hostname", "p1", "aurora", &|_| 0.01);
        dcgm(&mut s, "u1", "0", &|_| 60.0, &move |x| if mid(x, 30 * MIN) { 0.1 } else { 0.8 }, &fb, &none);
        host(&mut s, "Hostname", "u1", "aurora", &|_| 0.01);
        dcgm(&mut s, "c1", "0", &|_| 60.0, &calm, &fb, &none);
        let lc = [("gpu", "1"), ("Hostname", "c1"), ("cluster", "aurora")];
        s.counter("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", &lc, move |x| if mid(x, 5 * MIN) { 1.0 / 60.0 } else { 0.0 });
        s.counter("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", &lc, move |x| if mid(x, MIN) { 1.0 / 60.0 } else { 0.0 });
        host(&mut s, "Hostname", "c1", "aurora", &|_| 0.01);
        events(&mut s, t);
        dcgm(&mut s, "h1", "0", &|_| 60.0, &calm, &fb, &none);
        host(&mut s, "Hostname", "h1", "aurora", &move |x| if mid(x, 20 * MIN) { 0.5 } else { 0.01 });
        dcgm(&mut s, "m1", "0", &|_| 60.0, &calm, &move |x| if mid(x, 15 * MIN) { 79_000.0 } else { 40_000.0 }, &none);
        host(&mut s, "Hostname", "m1", "aurora", &|_| 0.01);
        audited(&mut s, t);
        // A six-minute hot spell: shorter than one bucket of a 6h window at 48 points.
        dcgm(&mut s, "s6", "0", &move |x| if (t - 2 * HOUR..t - 2 * HOUR + 6 * MIN).contains(&x) { 90.0 } else { 60.0 }, &calm, &fb, &none);
        host(&mut s, "Hostname", "s6", "aurora", &|_| 0.01);
        // A hot spell running past the end of the data, for a flag clipped at the window's end.
        dcgm(&mut s, "e1", "0", &move |x| if x >= t - 10 * MIN { 90.0 } else { 60.0 }, &calm, &fb, &none);
        host(&mut s, "Hostname", "e1", "aurora", &|_| 0.01);
        // An AMD cluster, metric names with the amd_ prefix a site configured, gpu_id and hostname labels.
        for gpu in ["0", "1"] {
            let l = [("gpu_id", gpu), ("hostname", "mi-n1"), ("card_series", "AMD Instinct MI300X OAM"), ("cluster", "mi")];
            s.add("amd_gpu_junction_temperature", &l, |_| Some(70.0));
            s.add("amd_gpu_memory_temperature", &l, |_| Some(55.0));
            s.add("amd_gpu_power_usage", &l, |_| Some(650.0));
            s.add("amd_gpu_gfx_activity", &l, |_| Some(90.0));
            s.add("amd_gpu_umc_activity", &l, |_| Some(30.0));
            s.add("amd_gpu_used_vram", &l, |_| Some(100_000.0));
            s.add("amd_gpu_total_vram", &l, |_| Some(196_592.0));
            for (c, i) in [("system", "0"), ("memory", "8")] {
                let lc = [("gpu_id", gpu), ("hostname", "mi-n1"), ("clock_type", c), ("clock_index", i), ("cluster", "mi")];
                s.add("amd_gpu_clock", &lc, |_| Some(if c == "system" { 2100.0 } else { 1300.0 }));
            }
            s.counter("amd_pcie_replay_count", &l, |_| 0.0);
            s.counter("amd_pcie_recovery_count", &l, |_| 0.0);
            s.counter("amd_gpu_ecc_correct_total", &l, |_| 0.0);
            s.counter("amd_gpu_ecc_uncorrect_total", &l, |_| 0.0);
        }
        host(&mut s, "hostname", "mi-n1", "mi", &|_| 0.01);
        // A cluster whose exporter reports temperature only: families go missing.
        s.add("DCGM_FI_DEV_GPU_TEMP", &[("gpu", "0"), ("Hostname", "s1"), ("cluster", "sparse")], |_| Some(55.0));
        shadow(&mut s);
        // Many series, for the query cap.
        for i in 0..120 {
            let n = i.to_string();
            s.add("exa_test_many", &[("i", n.as_str()), ("cluster", "aurora")], |_| Some(1.0));
        }
        Fleet { prom: Prometheus::start(s), t }
    })
}

pub fn env() -> Env {
    let f = fleet();
    let env = Env::new();
    env.config(&format!(
        "clusters:\n  aurora-prod:\n    prometheus: {url}\n    gpu_vendor: nvidia\n    gpu_model: H100\n    node_label: Hostname\n    labels: {{cluster: aurora}}\n    episodes: {{GpuThermalEpisode: thermal}}\n  mi-prod:\n    prometheus: {url}\n    gpu_vendor: amd\n    gpu_model: MI300X\n    node_label: hostname\n    metric_prefix: amd_\n    labels: {{cluster: mi}}\n  sparse:\n    prometheus: {url}\n    gpu_vendor: nvidia\n    gpu_model: H100\n    node_label: Hostname\n    labels: {{cluster: sparse}}\n  bare:\n    prometheus: {url}\n    gpu_vendor: nvidia\n    gpu_model: H100\n    node_label: Hostname\n  gone:\n    prometheus: http://127.0.0.1:9\n    gpu_vendor: nvidia\n    gpu_model: H100\n    timeout_s: 2\n",
        url = f.prom.url
    ));
    env
}

fn json(env: &Env, args: &[&str]) -> Value {
    env.json(args)
}

/// The window around the thermal episode: 3h05m ago to 1h35m ago, in 60 s buckets.
fn episode_window() -> Vec<String> {
    let t = fleet().t;
    vec!["--start".into(), iso(t - 3 * HOUR - 5 * MIN), "--end".into(), iso(t - HOUR - 35 * MIN), "--points".into(), "90".into()]
}

fn args<'a>(base: &[&'a str], extra: &'a [String]) -> Vec<&'a str> {
    base.iter().copied().chain(extra.iter().map(String::as_str)).collect()
}

#[test]
fn clusters_are_listed() {
    let v = json(&env(), &["metrics", "clusters"]);
    let names: Vec<&str> = v["clusters"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["aurora-prod", "mi-prod", "sparse", "bare", "gone"]);
    assert_eq!(v["clusters"][1]["gpu_vendor"], "amd");
}

#[test]
fn the_spec_thermal_episode_as_flags_on_the_workload() {
    let w = episode_window();
    let v = json(&env(), &args(&["metrics", "flags", "--cluster", "aurora-prod", "--kind", "Job", "--name", "train-llm"], &w));
    assert_eq!(v["window"]["step_s"], 60);
    assert_eq!(v["target"]["placement_source"], "history");
    assert_eq!(v["checked"], serde_json::json!(["thermal", "power", "utilization", "comm", "host", "memory"]));
    assert_eq!(v["unavailable"], serde_json::json!([]));
    assert_eq!(v["clean"], false);
    let flags = v["flags"].as_array().unwrap();
    assert_eq!(flags.len(), 1, "one node of two is clean: {flags:?}");
    let f = &flags[0];
    assert_eq!(
        (f["kind"].as_str(), f["severity"].as_str(), f["node"].as_str(), f["gpu"].as_str()),
        (Some("thermal_throttle"), Some("high"), Some("n2"), Some("3"))
    );
    let minutes = f["minutes"].as_u64().unwrap();
    assert!((40..=42).contains(&minutes), "{minutes} minutes");
    assert_eq!(f["evidence"]["peak_temp_c"], 91.0);
    assert!(f["evidence"]["reference_p95_c"].as_f64().is_some());
    assert_eq!(f["clipped"], serde_json::json!({"start": false, "end": false}));
    assert!(f["episode"]["from"].as_str().is_some() && f["episode"]["to"].as_str().is_some());
    assert!(f["summary"].as_str().unwrap().starts_with("GPU 3 on n2 held at or above 83 °C for 4"), "{}", f["summary"]);
    assert!(v["coverage"]["present"].as_array().unwrap().iter().any(|p| p == "health_episodes"));
}

#[test]
fn a_flag_clipped_at_each_edge() {
    let t = fleet().t;
    // The window opens inside the episode.
    let w = [iso(t - 3 * HOUR + 20 * MIN), iso(t - 2 * HOUR)];
    let v =
        json(&env(), &["metrics", "flags", "--cluster", "aurora-prod", "--node", "n2", "--start", &w[0], "--end", &w[1], "--points", "80"]);
    let f = &v["flags"][0];
    assert_eq!(f["clipped"], serde_json::json!({"start": true, "end": false}), "{v}");
    assert_eq!(f["from"], iso(t - 3 * HOUR + 20 * MIN));
    assert!(f["summary"].as_str().unwrap().contains("before the window"), "{}", f["summary"]);
    assert!(v["note"].as_str().unwrap().contains("clipped at the window start"), "{}", v["note"]);
    // A hot spell still going at the window's end.
    let v = json(
        &env(),
        &["metrics", "flags", "--cluster", "aurora-prod", "--node", "e1", "--start", &iso(t - HOUR), "--end", &iso(t), "--points", "60"],
    );
    let f = &v["flags"][0];
    assert_eq!(f["kind"], "thermal_throttle");
    assert_eq!(f["clipped"], serde_json::json!({"start": false, "end": true}));
    assert!(v["note"].as_str().unwrap().contains("clipped at the window end"));
}

fn only_flag(node: &str) -> Value {
    let t = fleet().t;
    let v = json(
        &env(),
        &[
            "metrics",
            "flags",
            "--cluster",
            "aurora-prod",
            "--node",
            node,
            "--start",
            &iso(t - 3 * HOUR),
            "--end",
            &iso(t - HOUR),
            "--points",
            "96",
        ],
    );
    let flags = v["flags"].as_array().unwrap();
    assert_eq!(flags.len(), 1, "{node}: {flags:?}");
    flags[0].clone()
}

#[test]
fn the_other_five_kinds() {
    let f = only_flag("p1");
    assert_eq!((f["kind"].as_str(), f["severity"].as_str()), (Some("power_cap"), Some("high")));
    assert_eq!(f["evidence"]["power_s"], 720.0, "DCGM violation counters are nanoseconds");
    let f = only_flag("u1");
    assert_eq!((f["kind"].as_str(), f["severity"].as_str()), (Some("utilization_collapse"), Some("warn")));
    assert_eq!(f["evidence"]["reading"], "tensor_active_pct");
    let f = only_flag("c1");
    assert_eq!((f["kind"].as_str(), f["severity"].as_str(), f["gpu"].as_str()), (Some("comm_errors"), Some("high"), Some("1")));
    assert_eq!(f["evidence"]["ecc_dbe"], 1.0);
    assert_eq!(f["evidence"]["pcie_replay"], 5.0);
    let f = only_flag("h1");
    assert_eq!((f["kind"].as_str(), f["gpu"].clone()), (Some("host_pressure"), Value::Null));
    assert_eq!(f["evidence"]["resource"], "cpu");
    let f = only_flag("m1");
    assert_eq!(f["kind"], "memory_pressure");
    assert!((14..=16).contains(&f["minutes"].as_u64().unwrap()));
}

#[test]
fn rules_are_judged_per_minute_whatever_the_points() {
    let v = json(&env(), &["metrics", "flags", "--cluster", "aurora-prod", "--node", "s6", "--range", "6h"]);
    assert_eq!(v["window"]["step_s"], 450, "the answer's window is the one asked for");
    let f = &v["flags"][0];
    assert_eq!((f["kind"].as_str(), f["severity"].as_str()), (Some("thermal_throttle"), Some("warn")));
    // Six scrapes are six minutes, wherever the window's edges fall (a_hold_lasts_as_long_as_its_scrapes...).
    assert_eq!(f["minutes"], 6, "{f}");
    // The 41-minute episode measures 41 minutes in the default window too.
    let v = json(&env(), &["metrics", "flags", "--cluster", "aurora-prod", "--node", "n2"]);
    assert_eq!(v["flags"][0]["minutes"], 41, "{}", v["flags"][0]);
}

#[test]
fn a_clean_node() {
    let t = fleet().t;
    let v = json(
        &env(),
        &["metrics", "flags", "--cluster", "aurora-prod", "--node", "n1", "--start", &iso(t - 3 * HOUR), "--end", &iso(t - HOUR)],
    );
    assert_eq!(v["clean"], true);
    assert_eq!(v["flags"], serde_json::json!([]));
    assert!(v["note"].as_str().unwrap().contains("Clean"));
}

#[test]
fn node_readings_in_the_envelope() {
    let w = episode_window();
    let v = json(&env(), &args(&["metrics", "node", "--cluster", "aurora-prod", "--node", "n2"], &w));
    for k in ["cluster", "gpu_vendor", "gpu_model", "window", "reference", "coverage", "note", "node", "gpus", "host", "health_episodes"] {
        assert!(v.get(k).is_some(), "{k}");
    }
    assert_eq!(v["node"]["gpus"], 4);
    let g3 = &v["gpus"]["3"];
    assert_eq!(g3["peak_temp_c"], 91.0);
    let temp = &g3["temp_c"];
    assert_eq!(temp["values"].as_array().unwrap().len(), v["window"]["points"].as_u64().unwrap() as usize);
    assert_eq!(temp["step_s"], v["window"]["step_s"]);
    assert_eq!(g3["tensor_active_pct"]["mean"], 80.0);
    assert_eq!(g3["throttle"]["thermal_s"], 0.0);
    assert_eq!(g3["errors"].get("pcie_recovery"), Some(&Value::Null), "NVIDIA has no PCIe recovery counter");
    assert_eq!(g3["hbm_total_gib"].as_f64().unwrap().round(), 80.0);
    assert!(v["host"]["pressure"]["io"]["mean"].as_f64().unwrap() > 1.9);
    assert_eq!(v["health_episodes"][0]["kind"], "thermal");
    let missing = v["coverage"]["missing"].as_array().unwrap();
    assert!(missing.contains(&Value::from("north_south")));
    assert!(!missing.contains(&Value::from("gpu_temp")));
    // The table draws series as sparklines.
    let out = env().run(&args(&["metrics", "node", "--cluster", "aurora-prod", "--node", "n2"], &w));
    assert!(stdout(&out).chars().any(|c| ('▁'..='█').contains(&c)), "{}", stdout(&out));
}

#[test]
fn a_cluster_without_labels_of_its_own() {
    let v = json(&env(), &["metrics", "node", "--cluster", "bare", "--node", "n1", "--range", "1h"]);
    assert_eq!(v["node"]["gpus"], 4);
    assert!(v["reference"]["temp_p95_c"].as_f64().is_some());
}

#[test]
fn an_amd_cluster_reads_what_amd_reports() {
    let v = json(&env(), &["metrics", "node", "--cluster", "mi-prod", "--node", "mi-n1", "--range", "1h"]);
    assert_eq!(v["gpu_vendor"], "amd");
    let g = &v["gpus"]["0"];
    assert_eq!(g["temp_c"]["mean"], 70.0);
    assert_eq!(g["sm_clock_mhz"]["mean"], 2100.0);
    assert_eq!(g["errors"]["pcie_recovery"], 0.0);
    assert_eq!(g["errors"]["ecc_dbe"], 0.0);
    assert_eq!(g["errors"].get("link_crc"), Some(&Value::Null));
    assert_eq!(g["errors"].get("xid"), Some(&Value::Null));
    assert_eq!(g["throttle"].get("thermal_s"), Some(&Value::Null));
    let missing = v["coverage"]["missing"].as_array().unwrap();
    assert!(!missing.contains(&Value::from("throttle_violations")), "unavailable is not missing");
    let f = json(&env(), &["metrics", "flags", "--cluster", "mi-prod", "--node", "mi-n1", "--range", "1h"]);
    assert_eq!(f["unavailable"], serde_json::json!(["throttle_violations", "clock_events", "xid"]));
    assert_eq!(f["checked"], serde_json::json!(["thermal", "utilization", "comm", "host", "memory"]));
    assert_eq!(f["clean"], true);
    assert!(f["note"].as_str().unwrap().contains("reports no throttle_violations, clock_events, xid"));
}

#[test]
fn a_missing_family_keeps_clean_false() {
    let v = json(&env(), &["metrics", "flags", "--cluster", "sparse", "--node", "s1", "--range", "1h"]);
    assert_eq!(v["flags"], serde_json::json!([]));
    assert_eq!(v["clean"], false);
    assert!(v["note"].as_str().unwrap().contains("Checked but not answered"));
    assert!(v["coverage"]["missing"].as_array().unwrap().contains(&Value::from("hbm")));
    assert_eq!(v["coverage"]["present"], serde_json::json!(["gpu_temp"]));
}

#[test]
fn workload_placement_from_history_and_from_current_pods() {
    let v = json(&env(), &["metrics", "workload", "--cluster", "aurora-prod", "--kind", "Job", "--name", "train-llm", "--range", "1h"]);
    assert_eq!(v["placement_source"], "history");
    let pods: Vec<(&str, &str)> =
        v["placement"].as_array().unwrap().iter().map(|p| (p["pod"].as_str().unwrap(), p["node"].as_str().unwrap())).collect();
    assert_eq!(pods, [("train-llm-0", "n1"), ("train-llm-1", "n2")]);
    assert_eq!(v["placement"][0]["phase"], "Running");
    assert!(v["nodes"]["n1"]["gpus"]["0"]["sm_clock_mhz"].get("values").is_none(), "summary by default");
    assert!(v["nodes"]["n1"]["gpus"]["0"]["temp_c"].get("values").is_some(), "temp_c keeps its values");
    // A window with no scheduling history: the pods running now.
    let t = fleet().t;
    let v = json(
        &env(),
        &[
            "metrics",
            "workload",
            "--cluster",
            "aurora-prod",
            "--kind",
            "Job",
            "--name",
            "train-llm",
            "--start",
            &iso(t - 13 * 86_400),
            "--end",
            &iso(t - 12 * 86_400),
        ],
    );
    assert_eq!(v["placement_source"], "current-pods");
    assert_eq!(v["placement"].as_array().unwrap().len(), 2);
}

fn refused(env: &Env, args: &[&str], code: &str, status: u64, exit: i32) -> Value {
    let mut all = vec!["-o", "json"];
    all.extend_from_slice(args);
    let out = env.run(&all);
    assert_eq!(out.status.code(), Some(exit), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let v: Value = crate::common::answer(&all, &out);
    assert_eq!(v["error"]["code"], code, "{v}");
    assert_eq!(v["error"]["status"], status);
    v
}

#[test]
fn each_refusal() {
    let env = env();
    refused(&env, &["metrics", "node", "--cluster", "aurora-prod", "--node", "n1\"} or vector(1) #"], "bad-request", 422, 2);
    refused(&env, &["metrics", "node", "--cluster", "aurora-prod", "--node", "n1", "--points", "97"], "bad-request", 422, 2);
    refused(
        &env,
        &["metrics", "node", "--cluster", "aurora-prod", "--node", "n1", "--start", "2026-01-01", "--end", "2026-01-20"],
        "bad-request",
        422,
        2,
    );
    refused(&env, &["metrics", "node", "--cluster", "aurora-prod", "--node", "n1", "--range", "2h"], "bad-request", 422, 2);
    refused(&env, &["metrics", "flags", "--cluster", "aurora-prod"], "bad-request", 422, 2);
    refused(&env, &["metrics", "workload", "--cluster", "aurora-prod", "--kind", "CronJob", "--name", "x"], "bad-request", 422, 2);
    refused(&env, &["metrics", "node", "--cluster", "nowhere", "--node", "n1"], "not-found", 404, 1);
    refused(&env, &["metrics", "node", "--cluster", "aurora-prod", "--node", "n99", "--range", "1h"], "not-found", 404, 1);
    refused(&env, &["metrics", "workload", "--cluster", "aurora-prod", "--kind", "Job", "--name", "never-ran"], "not-found", 404, 1);
    let v = refused(&env, &["metrics", "node", "--cluster", "gone", "--node", "n1"], "metrics-unavailable", 503, 1);
    assert!(v["error"]["message"].as_str().unwrap().contains("retry"));
    fails(&env.run(&["metrics", "node", "--cluster", "gone", "--node", "n1"]), 1, "metrics-unavailable (503)");
}

#[test]
fn free_promql() {
    let env = env();
    let v = json(
        &env,
        &[
            "metrics",
            "query",
            "--cluster",
            "aurora-prod",
            "--range",
            "1h",
            "--points",
            "12",
            "avg by (Hostname) (DCGM_FI_DEV_POWER_USAGE{cluster=\"aurora\",Hostname=~\"n.\"})",
        ],
    );
    assert_eq!(v["result_type"], "matrix");
    assert_eq!(v["series_total"], 2);
    assert_eq!(v["truncated"], false);
    assert_eq!(v["series"][0]["values"].as_array().unwrap().len(), 13, "the inclusive [start, end] grid");
    let v = json(&env, &["metrics", "query", "--cluster", "aurora-prod", "--instant", "count(DCGM_FI_DEV_GPU_TEMP{cluster=\"aurora\"})"]);
    assert_eq!(v["series"][0]["value"], 22.0);
    let v = json(&env, &["metrics", "query", "--cluster", "aurora-prod", "--instant", "DCGM_FI_DEV_NO_SUCH_METRIC"]);
    assert_eq!(v["series_total"], 0);
    assert!(v["note"].as_str().unwrap().contains("not an all-clear"));
    let v = json(&env, &["metrics", "query", "--cluster", "aurora-prod", "--instant", "exa_test_many"]);
    assert_eq!((v["series_total"].as_u64(), v["truncated"].as_bool(), v["series"].as_array().unwrap().len()), (Some(120), Some(true), 100));
    let e = refused(&env, &["metrics", "query", "--cluster", "aurora-prod", "sum(rate(x[5m]"], "bad-request", 422, 2);
    assert!(e["error"]["message"].as_str().unwrap().contains("parse error"), "Prometheus's own words: {e}");
    let long = "x".repeat(4001);
    refused(&env, &["metrics", "query", "--cluster", "aurora-prod", &long], "bad-request", 422, 2);
}

#[test]
fn a_throttled_or_failing_prometheus() {
    use crate::http::{Answer, Server};
    let srv = Server::start(Answer::WithHeader(
        429,
        "Retry-After: 30",
        r#"{"status":"error","errorType":"too_many_requests","error":"slow down"}"#.into(),
    ));
    let env = Env::new();
    let cfg = |url: &str| format!("clusters:\n  busy:\n    prometheus: {url}\n    gpu_vendor: nvidia\n    gpu_model: H100\n");
    env.config(&cfg(&srv.url("")));
    let v = refused(&env, &["metrics", "query", "--cluster", "busy", "up"], "rate-limited", 429, 1);
    assert!(v["error"]["message"].as_str().unwrap().contains("throttling"));
    assert_eq!(v["error"]["retry_after"], "30", "Retry-After is passed on");
    srv.set(Answer::Body(503, "text/plain", "down for maintenance".into()));
    refused(&env, &["metrics", "query", "--cluster", "busy", "up"], "metrics-unavailable", 503, 1);
    srv.set(Answer::Silence);
    env.config(&format!("{}    timeout_s: 1\n", cfg(&srv.url(""))));
    let started = std::time::Instant::now();
    refused(&env, &["metrics", "query", "--cluster", "busy", "up"], "metrics-unavailable", 503, 1);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn counter_flags_cover_the_buckets_where_the_counter_rose() {
    let t = fleet().t;
    let f = only_flag("p1");
    let (from, to) = (exa::time::parse_utc(f["from"].as_str().unwrap()).unwrap(), exa::time::parse_utc(f["to"].as_str().unwrap()).unwrap());
    // The violation counter rose for 12 minutes from t - 2 h, inside a 2-hour window: the flag says so, not the window.
    assert!((t - 2 * HOUR - 2 * MIN..=t - 2 * HOUR + 2 * MIN).contains(&from), "from {}", f["from"]);
    assert!((11..=15).contains(&f["minutes"].as_u64().unwrap()), "{f}");
    assert!(to < t - HOUR - 30 * MIN, "to {}", f["to"]);
    let f = only_flag("c1");
    assert!((4..=7).contains(&f["minutes"].as_u64().unwrap()), "PCIe replays for 5 minutes: {f}");
}

#[test]
fn a_one_scrape_event_is_placed_in_its_bucket_whatever_the_windows_phase() {
    let t = fleet().t;
    // Six hours in 48 buckets of 450 s, their edges moved through a whole bucket: wherever the edge falls between
    // the event's two scrapes, the flag covers the bucket of the later one, never the whole window.
    for shift in [0, 30, 60, 90, 200, 330, 420, 449] {
        let window = between(t - 6 * HOUR + shift, t - 10 * MIN + shift, 48);
        for node in ["x1", "x2"] {
            let f = &flags_of(node, &window, 1)[0];
            assert_eq!(f["kind"], "comm_errors", "{node}, {shift} s: {f}");
            let at = |k: &str| exa::time::parse_utc(f[k].as_str().unwrap()).unwrap();
            let (from, to) = (at("from"), at("to"));
            assert!(from <= t - 2 * HOUR + MIN && to >= t - 2 * HOUR, "{node}, {shift} s: {f}");
            assert!(to - from <= 2 * 450, "{node}, {shift} s: one or two buckets, not the window: {f}");
            assert_eq!(f["clipped"], serde_json::json!({"start": false, "end": false}), "{node}, {shift} s");
        }
    }
}

#[test]
fn a_short_hot_spell_in_a_long_window_is_its_own_length() {
    // Seven days in 48 buckets of 3.5 hours: spells of 5 and 10 minutes at 90 °C read as 5 and 10 minutes, not
    // hidden in a bucket's mean.
    for (node, minutes, severity) in [("a5", 5, "warn"), ("a10", 10, "high")] {
        let v = json(&env(), &["metrics", "flags", "--cluster", "aurora-prod", "--node", node, "--range", "7d"]);
        let flags = v["flags"].as_array().unwrap();
        assert_eq!(flags.len(), 1, "{node}: {v}");
        let f = &flags[0];
        assert_eq!((f["kind"].as_str(), f["severity"].as_str()), (Some("thermal_throttle"), Some(severity)), "{f}");
        assert!(f["summary"].as_str().unwrap().contains(&format!("for {minutes} min")), "{f}");
    }
    // Minutes hot scattered over buckets are no spell held, however many they add up to.
    let t = fleet().t;
    for window in [vec!["--range".to_string(), "7d".to_string()], between(t - 14 * 86_400, t, 48)] {
        let v = json(&env(), &args(&["metrics", "flags", "--cluster", "aurora-prod", "--node", "f1"], &window));
        assert!(v["flags"].as_array().unwrap().iter().all(|f| f["kind"] != "thermal_throttle"), "{window:?}: {v}");
    }
}

/// The flags of one node over `window`, with exactly `n` of them.
fn flags_of(node: &str, window: &[String], n: usize) -> Vec<Value> {
    let v = json(&env(), &args(&["metrics", "flags", "--cluster", "aurora-prod", "--node", node], window));
    let flags = v["flags"].as_array().unwrap().clone();
    assert_eq!(flags.len(), n, "{node}: {v}");
    flags
}

fn between(from: i64, to: i64, points: u32) -> Vec<String> {
    vec!["--start".into(), iso(from), "--end".into(), iso(to), "--points".into(), points.to_string()]
}

#[test]
fn every_window_up_to_fourteen_days_answers_on_a_cluster_with_episodes() {
    let t = fleet().t;
    // A 7-day window: its episodes are read a day further back, by the minute, past Prometheus's 11,000 points.
    for window in [vec!["--range".to_string(), "7d".to_string()], between(t - 14 * 86_400, t, 48)] {
        let v = json(&env(), &args(&["metrics", "node", "--cluster", "aurora-prod", "--node", "n2"], &window));
        assert_eq!(v["health_episodes"][0]["kind"], "thermal", "{window:?}: {}", v["health_episodes"]);
        let f = &flags_of("n2", &window, 1)[0];
        assert_eq!((f["kind"].as_str(), f["gpu"].as_str(), f["severity"].as_str()), (Some("thermal_throttle"), Some("3"), Some("high")));
        let (from, to) = (&f["episode"]["from"], &f["episode"]["to"]);
        assert_eq!(from.as_str().map(|s| &s[..16]), Some(&iso(t - 3 * HOUR)[..16]), "the episode's own bounds: {f}");
        assert!(to.as_str().is_some(), "{f}");
        let v = json(&env(), &args(&["metrics", "workload", "--cluster", "aurora-prod", "--kind", "Job", "--name", "train-llm"], &window));
        assert_eq!(v["placement_source"], "history", "{window:?}");
    }
    let v = json(&env(), &["metrics", "flags", "--cluster", "aurora-prod", "--node", "n2", "--range", "7d"]);
    assert_eq!(v["window"]["step_s"], 12_600, "7 days over 48 points");
}

#[test]
fn a_gpu_whose_clock_mask_is_read_with_no_bit_set_counts_zero_events() {
    let v = json(&env(), &["metrics", "node", "--cluster", "aurora-prod", "--node", "n1", "--range", "1h"]);
    let events = &v["gpus"]["0"]["throttle"]["clock_events"];
    assert_eq!(events["HW_SLOWDOWN"], 0.0, "zero events, not no reading: {events}");
    assert_eq!(events["SW_THERMAL"], 0.0);
    assert!(v["coverage"]["present"].as_array().unwrap().contains(&Value::from("clock_events")), "{}", v["coverage"]);
    assert!(!v["coverage"]["missing"].as_array().unwrap().contains(&Value::from("clock_events")));
    // A cluster whose exporter sends no mask at all: still no reading.
    let v = json(&env(), &["metrics", "node", "--cluster", "sparse", "--node", "s1", "--range", "1h"]);
    assert_eq!(v["gpus"]["0"]["throttle"].get("clock_events"), Some(&Value::Null));
    assert!(v["coverage"]["missing"].as_array().unwrap().contains(&Value::from("clock_events")));
}

#[test]
fn a_thermal_flag_from_the_violation_counter_covers_the_buckets_where_it_rose() {
    let t = fleet().t;
    let f = &flags_of("t1", &between(t - 3 * HOUR, t - HOUR, 96), 1)[0];
    assert_eq!((f["kind"].as_str(), f["severity"].as_str()), (Some("thermal_throttle"), Some("high")), "{f}");
    assert_eq!(f["evidence"]["thermal_s"], 720.0);
    let from = exa::time::parse_utc(f["from"].as_str().unwrap()).unwrap();
    assert!((t - 2 * HOUR - 2 * MIN..=t - 2 * HOUR + 2 * MIN).contains(&from), "from {}", f["from"]);
    assert!((11..=15).contains(&f["minutes"].as_u64().unwrap()), "12 minutes of throttling, not the 120 of the window: {f}");
    assert_eq!(f["clipped"], serde_json::json!({"start": false, "end": false}));
}

#[test]
fn a_hold_lasts_as_long_as_its_scrapes_whatever_the_windows_alignment() {
    let t = fleet().t;
    for shift in [0, 7, 30, 53] {
        // Two hours holding the 41-minute episode (from t - 3 h) and the spells of 5, 6 and 10 scrapes (from t - 2 h).
        let window = between(t - 3 * HOUR - 30 * MIN + shift, t - HOUR - 30 * MIN + shift, 96);
        let f = &flags_of("a5", &window, 1)[0];
        assert_eq!(
            (f["kind"].as_str(), f["severity"].as_str(), f["minutes"].as_u64()),
            (Some("thermal_throttle"), Some("warn"), Some(5)),
            "{shift} s: {f}"
        );
        let f = &flags_of("a10", &window, 1)[0];
        assert_eq!((f["severity"].as_str(), f["minutes"].as_u64()), (Some("high"), Some(10)), "{shift} s: {f}");
        let f = &flags_of("s6", &window, 1)[0];
        assert_eq!(f["minutes"], 6, "{shift} s: {f}");
        let f = &flags_of("n2", &window, 1)[0];
        assert_eq!(f["minutes"], 41, "the spec's 41-minute episode, {shift} s: {f}");
    }
}

#[test]
fn utilization_collapse_counts_only_while_the_pods_were_running() {
    let t = fleet().t;
    let window = between(t - 3 * HOUR, t - HOUR, 96);
    let on = |name: &str| {
        json(&env(), &args(&["metrics", "flags", "--cluster", "aurora-prod", "--kind", "Deployment", "--name", name], &window))
    };
    // The only pod was Pending throughout: nothing ran, so nothing collapsed.
    let v = on("idle-dep");
    assert_eq!(v["target"]["placement"][0]["phase"], "Pending", "{v}");
    assert_eq!(v["flags"], serde_json::json!([]), "{v}");
    assert!(v["note"].as_str().unwrap().contains("none was Running in this window on u2"), "{}", v["note"]);
    // The same collapse under a Running pod fires.
    let v = on("busy-dep");
    let flags = v["flags"].as_array().unwrap();
    assert_eq!(flags.len(), 1, "{v}");
    assert_eq!((flags[0]["kind"].as_str(), flags[0]["node"].as_str()), (Some("utilization_collapse"), Some("u1")));
    // Judged on the node alone, u2's collapse is there.
    assert_eq!(flags_of("u2", &window, 1)[0]["kind"], "utilization_collapse");
}

#[test]
fn the_amd_note_says_link_errors_answers_only_in_part() {
    for action in [
        &["metrics", "node", "--cluster", "mi-prod", "--node", "mi-n1", "--range", "1h"][..],
        &["metrics", "flags", "--cluster", "mi-prod", "--node", "mi-n1", "--range", "1h"],
    ] {
        let v = json(&env(), action);
        let note = v["note"].as_str().unwrap();
        assert!(note.contains("link_errors answers only in part") && note.contains("XGMI"), "{action:?}: {note}");
        assert!(v["coverage"]["present"].as_array().unwrap().contains(&Value::from("link_errors")), "partial is present");
    }
    let v = json(&env(), &["metrics", "node", "--cluster", "aurora-prod", "--node", "n1", "--range", "1h"]);
    assert!(!v["note"].as_str().unwrap().contains("XGMI"), "NVIDIA reads its fabric links");
}

#[test]
fn a_query_without_a_cluster_runs_over_the_organization() {
    let env = env();
    let v = json(&env, &["metrics", "query", "--instant", "count(DCGM_FI_DEV_GPU_TEMP)"]);
    assert_eq!(v["org"]["clusters"], serde_json::json!(["aurora-prod", "mi-prod", "sparse", "bare", "gone"]));
    assert_eq!(v.get("cluster"), Some(&Value::Null));
    let by: Vec<(&str, f64)> =
        v["series"].as_array().unwrap().iter().map(|s| (s["cluster"].as_str().unwrap(), s["value"].as_f64().unwrap())).collect();
    // Each cluster scoped by its own labels: aurora's GPUs, none for the AMD cluster, sparse's one, and every
    // series of the shared Prometheus for the cluster configured without labels.
    let aurora = json(&env, &["metrics", "query", "--cluster", "aurora-prod", "--instant", "count(DCGM_FI_DEV_GPU_TEMP)"]);
    let bare = json(&env, &["metrics", "query", "--cluster", "bare", "--instant", "count(DCGM_FI_DEV_GPU_TEMP)"]);
    assert_eq!(
        by,
        [
            ("aurora-prod", aurora["series"][0]["value"].as_f64().unwrap()),
            ("sparse", 1.0),
            ("bare", bare["series"][0]["value"].as_f64().unwrap())
        ],
        "{v}"
    );
    assert_eq!(v["scoped_queries"]["aurora-prod"], r#"count(DCGM_FI_DEV_GPU_TEMP{cluster="aurora"})"#);
    assert_eq!(v.get("scoped_query"), Some(&Value::Null));
    // The cluster that does not answer is named, and the others still answer.
    let failed = v["failed"].as_array().unwrap();
    assert_eq!(
        (failed.len(), failed[0]["cluster"].as_str(), failed[0]["code"].as_str()),
        (1, Some("gone"), Some("metrics-unavailable")),
        "{v}"
    );
    assert!(v["note"].as_str().unwrap().contains("Not every cluster answered: gone"), "{}", v["note"]);
    // A query naming one cluster works as it did, and carries its cluster on each series.
    assert_eq!(aurora["cluster"], "aurora-prod");
    assert_eq!(aurora["series"][0]["cluster"], "aurora-prod");
    assert_eq!(aurora["failed"], serde_json::json!([]));
    // A query one cluster's scope refuses is refused for the organization, before anything is sent.
    refused(&env, &["metrics", "query", "up{cluster=\"elsewhere\"}"], "bad-request", 422, 2);
    // Nothing answers: the refusal of the one that did not.
    let lone = Env::new();
    lone.config("clusters:\n  gone:\n    prometheus: http://127.0.0.1:9\n    gpu_vendor: nvidia\n    gpu_model: H100\n    timeout_s: 2\n");
    refused(&lone, &["metrics", "query", "up"], "metrics-unavailable", 503, 1);
}

#[test]
fn flags_take_summary_detail_and_refuse_series() {
    let v = json(&env(), &["metrics", "flags", "--cluster", "aurora-prod", "--node", "n1", "--range", "1h", "--detail", "summary"]);
    assert_eq!(v["clean"], true);
    let e = refused(&env(), &["metrics", "flags", "--cluster", "aurora-prod", "--node", "n1", "--detail", "series"], "bad-request", 422, 2);
    assert!(e["error"]["message"].as_str().unwrap().contains("read the node with detail series"), "{e}");
}

#[test]
fn the_windows_arithmetic_as_the_document_gives_it() {
    let env = env();
    let t = fleet().t;
    for (window, step, points) in [
        (vec!["--range".to_string(), "6h".to_string()], 450, 48),
        (between(t - HOUR, t, 40), 90, 40),
        (between(t - HOUR, t, 96), 60, 60),
        (between(t - 7 * 86_400, t, 96), 6300, 96),
    ] {
        let v = json(&env, &args(&["metrics", "node", "--cluster", "aurora-prod", "--node", "n1"], &window));
        assert_eq!((v["window"]["step_s"].as_i64(), v["window"]["points"].as_i64()), (Some(step), Some(points)), "{window:?}");
        let temp = &v["gpus"]["0"]["temp_c"];
        assert_eq!(temp["values"].as_array().unwrap().len() as i64, points);
        assert_eq!(temp["step_s"].as_i64(), Some(step));
    }
    let e = refused(
        &env,
        &["metrics", "node", "--cluster", "aurora-prod", "--node", "n1", "--start", &iso(t), "--end", &iso(t)],
        "bad-request",
        422,
        2,
    );
    assert!(e["error"]["message"].as_str().unwrap().contains("at or after its end"));
    let e = refused(
        &env,
        &args(&["metrics", "node", "--cluster", "aurora-prod", "--node", "n1"], &between(t - 14 * 86_400 - 60, t, 48)),
        "bad-request",
        422,
        2,
    );
    assert!(e["error"]["message"].as_str().unwrap().contains("more than 14"), "{e}");
}
