//! Two tenants in one Prometheus, with the same node and pod names: every
//! read of one cluster answers exactly as if the other were not there.

use serde_json::Value;

use crate::common::{stderr, Env};
use crate::prometheus::{Prometheus, Series};

const HOUR: i64 = 3600;

/// One tenant: `gpus` GPUs on node n1 at `temp` °C, n1's Ready condition, and a Job's pod train-0 on n1.
fn tenant(s: &mut Series, cluster: &str, gpus: u32, temp: f64, ready: bool) {
    for g in 0..gpus {
        let gpu = g.to_string();
        let l = [("gpu", gpu.as_str()), ("Hostname", "n1"), ("modelName", "NVIDIA H100 80GB HBM3"), ("cluster", cluster)];
        s.add("DCGM_FI_DEV_GPU_TEMP", &l, |_| Some(temp));
        s.add("DCGM_FI_DEV_POWER_USAGE", &l, |_| Some(temp * 10.0));
        s.add("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", &l, |_| Some(0.8));
        s.counter("DCGM_FI_DEV_POWER_VIOLATION", &l, |_| if cluster == "b" { 1e6 } else { 0.0 });
    }
    s.add("kube_node_status_condition", &[("node", "n1"), ("condition", "Ready"), ("status", "true"), ("cluster", cluster)], |_| {
        Some(if ready { 1.0 } else { 0.0 })
    });
    let info = [("namespace", "default"), ("pod", "train-0"), ("node", "n1"), ("cluster", cluster), ("created_by_kind", "Job")];
    s.add("kube_pod_info", &info, |_| Some(1.0));
    s.add(
        "kube_pod_owner",
        &[("namespace", "default"), ("pod", "train-0"), ("owner_kind", "Job"), ("owner_name", "train"), ("cluster", cluster)],
        |_| Some(1.0),
    );
    s.add("kube_pod_status_phase", &[("namespace", "default"), ("pod", "train-0"), ("phase", "Running"), ("cluster", cluster)], |_| {
        Some(1.0)
    });
}

fn env_for(p: &Prometheus) -> Env {
    let env = Env::new();
    env.config(&format!(
        "clusters:\n  a:\n    prometheus: {}\n    gpu_vendor: nvidia\n    gpu_model: H100\n    node_label: Hostname\n    labels: {{cluster: a}}\n",
        p.url
    ));
    env
}

fn answer(env: &Env, args: &[&str]) -> Value {
    let mut all = vec!["-o", "json"];
    all.extend_from_slice(args);
    let out = env.run(&all);
    let mut v: Value = crate::common::answer(&all, &out);
    if let Some(m) = v.as_object_mut() {
        m.remove("queries");
    }
    v
}

#[test]
fn another_tenant_changes_no_answer() {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64 / 60 * 60;
    let mut both = Series::new(t - 2 * HOUR, t);
    tenant(&mut both, "a", 2, 60.0, true);
    tenant(&mut both, "b", 8, 90.0, false);
    let mut alone = Series::new(t - 2 * HOUR, t);
    tenant(&mut alone, "a", 2, 60.0, true);
    let (shared, own) = (Prometheus::start(both), Prometheus::start(alone));
    let (shared, own) = (env_for(&shared), env_for(&own));
    let window = ["--start", &exa::time::iso8601(t - HOUR), "--end", &exa::time::iso8601(t), "--points", "12"].map(String::from);
    let w: Vec<&str> = window.iter().map(String::as_str).collect();
    let mut cases: Vec<Vec<&str>> = vec![
        [&["metrics", "node", "--cluster", "a", "--node", "n1"][..], &w].concat(),
        [&["metrics", "workload", "--cluster", "a", "--kind", "Job", "--name", "train"][..], &w].concat(),
        [&["metrics", "flags", "--cluster", "a", "--node", "n1"][..], &w].concat(),
        [&["metrics", "flags", "--cluster", "a", "--kind", "Job", "--name", "train"][..], &w].concat(),
        [&["metrics", "query", "--cluster", "a", "--instant"][..], &w, &["count(DCGM_FI_DEV_GPU_TEMP)"]].concat(),
    ];
    cases.push([&["metrics", "query", "--cluster", "a"][..], &w, &["max by (Hostname) (DCGM_FI_DEV_POWER_USAGE)"]].concat());
    for args in &cases {
        assert_eq!(answer(&shared, args), answer(&own, args), "{args:?} changed with another tenant present");
    }
    let node = answer(&shared, &cases[0]);
    assert_eq!(node["node"]["state"], "ready", "this tenant's Ready condition, not the other's");
    assert_eq!(node["node"]["gpus"], 2);
    let count = answer(&shared, &cases[4]);
    assert_eq!(count["series"][0]["value"], 2.0, "only this cluster's GPUs are counted");
    assert!(count["scoped_query"].as_str().unwrap().contains("cluster=\"a\""));
    let flags = answer(&shared, &cases[2]);
    assert_eq!(flags["flags"].as_array().map(Vec::len), Some(0), "the other tenant's power violations are not ours: {flags}");
}

#[test]
fn a_query_that_names_another_tenant_is_refused() {
    let env = Env::new();
    env.config(
        "clusters:\n  a:\n    prometheus: http://127.0.0.1:9\n    gpu_vendor: nvidia\n    gpu_model: H100\n    labels: {cluster: a}\n",
    );
    let args = ["-o", "json", "metrics", "query", "--cluster", "a", "up{cluster=\"b\"}"];
    let out = env.run(&args);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = crate::common::answer(&args, &out);
    assert_eq!((v["error"]["code"].as_str(), v["error"]["status"].as_u64()), (Some("bad-request"), Some(422)));
    assert!(v["error"]["message"].as_str().unwrap().contains("matches the label cluster itself"));
}

#[test]
fn the_newer_dcgm_clock_events_field_is_read() {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64 / 60 * 60;
    let mut s = Series::new(t - 2 * HOUR, t);
    let l = [("gpu", "0"), ("Hostname", "n1"), ("cluster", "a")];
    s.add("DCGM_FI_DEV_GPU_TEMP", &l, |_| Some(70.0));
    // DCGM 3.3 and newer: SW thermal slowdown (bit 32) for ten minutes.
    s.add("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", &l, move |x| Some(if (t - 40 * 60..t - 30 * 60).contains(&x) { 32.0 } else { 0.0 }));
    let p = Prometheus::start(s);
    let env = env_for(&p);
    let w = ["--start", &exa::time::iso8601(t - HOUR), "--end", &exa::time::iso8601(t), "--points", "12"];
    let node = answer(&env, &[&["metrics", "node", "--cluster", "a", "--node", "n1"][..], &w].concat());
    assert!(node["gpus"]["0"]["throttle"]["clock_events"]["SW_THERMAL"].as_f64().unwrap() > 0.0, "{}", node["gpus"]["0"]);
    assert!(node["gpus"]["0"].get("clock_events").is_none(), "clock events live inside throttle");
    let flags = answer(&env, &[&["metrics", "flags", "--cluster", "a", "--node", "n1"][..], &w].concat());
    assert!(flags["flags"].as_array().unwrap().iter().any(|f| f["kind"] == "thermal_throttle"), "{flags}");
}

#[test]
fn the_envelope_as_the_spec_draws_it() {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64 / 60 * 60;
    let mut s = Series::new(t - 2 * HOUR, t);
    // GPU 0 reaches 85 °C for three minutes; the others hold 60 to 63 °C.
    let spike = move |x: i64| (t - 30 * 60..t - 27 * 60).contains(&x);
    let temp = move |gpu: i64, x: i64| if gpu == 0 && spike(x) { 85.0 } else { 60.0 + gpu as f64 };
    for gpu in 0..4 {
        let g = gpu.to_string();
        let l = [("gpu", g.as_str()), ("Hostname", "n1"), ("cluster", "a")];
        s.add("DCGM_FI_DEV_GPU_TEMP", &l, move |x| Some(temp(gpu, x)));
    }
    let p = Prometheus::start(s);
    let env = env_for(&p);
    let w = ["--start", &exa::time::iso8601(t - HOUR), "--end", &exa::time::iso8601(t), "--points", "12"];
    let node = answer(&env, &[&["metrics", "node", "--cluster", "a", "--node", "n1", "--detail", "series"][..], &w].concat());
    let g0 = &node["gpus"]["0"];
    assert_eq!(g0["peak_temp_c"], 85.0, "the highest reading, not the highest 5-minute mean ({})", g0["temp_c"]["max"]);
    assert!(g0["temp_c"]["max"].as_f64().unwrap() < 85.0);
    assert_eq!(node["host"].get("north_south"), Some(&Value::Null));
    assert!(node["coverage"]["missing"].as_array().unwrap().iter().any(|f| f == "north_south"));
    assert!(node["note"].as_str().unwrap().contains("north_south"));
    // The reference: one p95 over every reading of every GPU on the minute grid, as Prometheus's quantile interpolates.
    let mut all: Vec<f64> = (0..4).flat_map(|g| (1..=60).map(move |i| temp(g, t - HOUR + i * 60))).collect();
    all.sort_by(f64::total_cmp);
    let rank = 0.95 * (all.len() - 1) as f64;
    let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
    let want = all[lo] + (all[hi] - all[lo]) * (rank - lo as f64);
    let got = node["reference"]["temp_p95_c"].as_f64().unwrap();
    assert!((got - want).abs() < 1e-3, "reference {got}, pooled p95 {want}");
}

#[test]
fn missing_arguments_and_unknown_kinds_are_the_specs_bad_request() {
    let env = Env::new();
    env.config("clusters:\n  a:\n    prometheus: http://127.0.0.1:9\n    gpu_vendor: nvidia\n    gpu_model: H100\n");
    for (args, needle) in [
        (&["metrics", "node", "--node", "n1"][..], "--cluster is required"),
        (&["metrics", "node", "--cluster", "a"], "--node is required"),
        (&["metrics", "workload", "--cluster", "a", "--name", "x"], "--kind is required"),
        (&["metrics", "workload", "--cluster", "a", "--kind", "Job"], "--name is required"),
        (&["metrics", "workload", "--cluster", "a", "--kind", "CronJob", "--name", "x"], "kind 'CronJob' is not one of"),
        (&["metrics", "flags", "--cluster", "a", "--kind", "CronJob", "--name", "x"], "kind 'CronJob' is not one of"),
        (&["metrics", "query", "--cluster", "a"], "QUERY is required"),
    ] {
        let all = [&["-o", "json"][..], args].concat();
        let out = env.run(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let v: Value = crate::common::answer(&all, &out);
        assert_eq!((v["error"]["code"].as_str(), v["error"]["status"].as_u64()), (Some("bad-request"), Some(422)), "{args:?}");
        assert!(v["error"]["message"].as_str().unwrap().contains(needle), "{args:?}: {v}");
    }
}
