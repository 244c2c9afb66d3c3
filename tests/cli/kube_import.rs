//! `exa import kubernetes`: the exporter's pod series, as a real Prometheus holds them, into the ledger, pod by
//! pod and day by day; then reported by namespace, label and annotation, and as FOCUS rows.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::{fails, Env};
use crate::prometheus::{Prometheus, Series};

const DAY: i64 = 86_400;
const A: &str = "6f1c2a8e-3b7d-4c1e-9a2f-0d5e6b7c8a91";
const B: &str = "0b9e4d2c-7a15-4f3e-8c6d-2e1f0a9b8c73";
const C: &str = "c3c3c3c3-0000-4000-8000-000000000003";
const D: &str = "d4d4d4d4-0000-4000-8000-000000000004";
const HOUR: i64 = 3_600;

/// A counter's series: `rate` per second from `from` to `to`, `first` already counted at its first sample (what
/// the exporter charged before Prometheus first scraped it), and reset to 0 at `reset`, where one is given.
fn counter(s: &mut Series, name: &str, labels: &[(&str, &str)], (from, to): (i64, i64), rate: f64, first: f64, reset: Option<i64>) {
    s.add(name, labels, |t| {
        if t < from || t > to {
            return None;
        }
        Some(match reset {
            Some(r) if t >= r => rate * (t - r) as f64,
            _ => first + rate * (t - from) as f64,
        })
    });
}

/// Two finished days of a node's exporter, `day0` and the day after:
/// - pod A (research/trainer-0, team vision) the whole time: one GPU held (300 W), 2 CPU-seconds a second, its CPU
///   packages' part 50 W (its exporter restarted at 06:30 on the second day: that counter reset) and DRAM's 10 W;
/// - pod B (serving/llm-0, team nlp, cost-center cc-42) from noon of the first day to noon of the second: no GPU,
///   one CPU-second a second, 20 W of CPU; its first sample already says 60 s of it (`increase()` would lose that);
/// - pod C (research/batch-0) at 10 W and a CPU-second a second, scraped from 30 h to 26 h before the first day,
///   then not until 01:00 (Prometheus down a day): its counter's rise over the gap is the first day's, from its last
///   value before (not from 0, which would count its first four hours again);
/// - pod D (research/spike-0) whose CPU counter jumps by 10 TJ at 05:00, more than any node draws in an hour.
fn node(day0: i64) -> Series {
    let mut s = Series::new(day0 - 30 * HOUR, day0 + 2 * DAY);
    let a = [("node", "n1"), ("k8s_namespace_name", "research"), ("k8s_pod_name", "trainer-0"), ("k8s_pod_uid", A)];
    let b = [("node", "n1"), ("k8s_namespace_name", "serving"), ("k8s_pod_name", "llm-0"), ("k8s_pod_uid", B)];
    let whole = (day0 - 7200, day0 + 2 * DAY);
    let with = |l: &[(&'static str, &'static str)], c: &'static str| {
        let mut v = l.to_vec();
        v.push(("component", c));
        v
    };
    counter(&mut s, "exa_pod_energy_joules_total", &with(&a, "gpu"), whole, 300.0, 0.0, None);
    counter(&mut s, "exa_pod_energy_joules_total", &with(&a, "cpu"), whole, 50.0, 0.0, Some(day0 + DAY + 6 * 3600 + 1800));
    counter(&mut s, "exa_pod_energy_joules_total", &with(&a, "dram"), whole, 10.0, 0.0, None);
    counter(&mut s, "exa_pod_gpu_time_seconds_total", &a, whole, 1.0, 0.0, None);
    counter(&mut s, "exa_pod_cpu_time_seconds_total", &a, whole, 2.0, 0.0, None);
    let (noon, next_noon) = (day0 + DAY / 2, day0 + DAY + DAY / 2);
    for c in ["gpu", "dram"] {
        counter(&mut s, "exa_pod_energy_joules_total", &with(&b, c), (noon, next_noon), 0.0, 0.0, None);
    }
    counter(&mut s, "exa_pod_energy_joules_total", &with(&b, "cpu"), (noon, next_noon), 20.0, 20.0 * 60.0, None);
    counter(&mut s, "exa_pod_gpu_time_seconds_total", &b, (noon, next_noon), 0.0, 0.0, None);
    counter(&mut s, "exa_pod_cpu_time_seconds_total", &b, (noon, next_noon), 1.0, 60.0, None);
    let c = [("node", "n1"), ("k8s_namespace_name", "research"), ("k8s_pod_name", "batch-0"), ("k8s_pod_uid", C)];
    let seen = move |t: i64| (day0 - 30 * HOUR..=day0 - 26 * HOUR).contains(&t) || (day0 + HOUR..=day0 + 2 * HOUR).contains(&t);
    let since_c = move |t: i64| (t - (day0 - 30 * HOUR)) as f64;
    s.add("exa_pod_energy_joules_total", &with(&c, "cpu"), |t| seen(t).then(|| 10.0 * since_c(t)));
    s.add("exa_pod_cpu_time_seconds_total", &c, |t| seen(t).then(|| since_c(t)));
    s.add("exa_pod_info", &c, |t| seen(t).then_some(1.0));
    let d = [("node", "n1"), ("k8s_namespace_name", "research"), ("k8s_pod_name", "spike-0"), ("k8s_pod_uid", D)];
    counter(&mut s, "exa_pod_cpu_time_seconds_total", &d, (day0, day0 + DAY), 1.0, 0.0, None);
    s.add("exa_pod_energy_joules_total", &with(&d, "cpu"), |t| {
        (day0..=day0 + DAY).contains(&t).then(|| if t >= day0 + 5 * HOUR { 1e13 } else { 8.0 * (t - day0) as f64 })
    });
    s.add("exa_pod_info", &d, |t| (day0..=day0 + DAY).contains(&t).then_some(1.0));
    let mut info_a = a.to_vec();
    info_a.extend([("k8s_pod_label_team", "vision"), ("k8s_pod_annotation_cost_center", "")]);
    let mut info_b = b.to_vec();
    info_b.extend([("k8s_pod_label_team", "nlp"), ("k8s_pod_annotation_cost_center", "cc-42")]);
    s.add("exa_pod_info", &info_a, |_| Some(1.0));
    s.add("exa_pod_info", &info_b, |t| (noon..=next_noon).contains(&t).then_some(1.0));
    s
}

fn close(got: f64, want: f64, what: &str) {
    assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0), "{what}: {got}, not {want}");
}

/// Each pod's day from the counters, exactly: the hours between the hourly readings, a new pod's first sample kept,
/// a reset's hour counted to its highest reading and on from 0 (the minute between the last reading before the
/// restart and the restart is lost to any reader of the counter); a day again writes nothing; reported by
/// namespace, label and annotation, whose groups add up to the whole; FOCUS rows with the pods' tags pass the
/// FinOps Foundation's validator.
#[test]
fn pods_days_are_imported_from_the_exporters_counters_and_reported_by_namespace_and_team() {
    let day0 = (exa::time::now_unix() / DAY - 3) * DAY;
    let prom = Prometheus::start(node(day0));
    let env = Env::new();
    let (since, until) = (&exa::time::iso8601(day0)[..10], &exa::time::iso8601(day0 + DAY)[..10]);
    let import = ["import", "kubernetes", "--cluster", "c1", "--prometheus", &prom.url, "--since", since, "--until", until];
    let dry: Value = env.json(&[&import[..], &["--dry-run"]].concat());
    assert_eq!((dry["days"].as_u64(), dry["pod_days"].as_u64(), dry["records_written"].as_u64()), (Some(2), Some(6), Some(0)));
    let pods: BTreeMap<String, &Value> =
        dry["pods"].as_array().unwrap().iter().map(|p| (p["run_id"].as_str().unwrap().to_string(), p)).collect();
    let day1 = &exa::time::iso8601(day0 + DAY)[..10];
    // A run a pod-day: its name, its day and its UID's first part.
    let pod = |ns_pod: &str, day: &str| {
        let run = |u: &str| format!("k8s:c1:{ns_pod}@{day}#{}", &u[..8]);
        let uid = [A, B, C, D].into_iter().find(|u| pods.contains_key(&run(u)));
        pods[&run(uid.unwrap_or_else(|| panic!("no {ns_pod} on {day}: {:?}", pods.keys())))]
    };
    // A: 300 W of GPU all day, 24 GPU-hours, 48 CPU-hours; 50 W of CPU and 10 W of DRAM; the second day's CPU
    // counter reset at 06:30, the minute before it lost.
    let a0 = pod("research/trainer-0", since);
    close(a0["gpu_kwh"].as_f64().unwrap(), 7.2, "A's GPU kWh, day 0");
    close(a0["cpu_kwh"].as_f64().unwrap(), 1.44, "A's CPU and DRAM kWh, day 0");
    close(a0["gpu_hours"].as_f64().unwrap(), 24.0, "A's GPU-hours");
    close(a0["cpu_hours"].as_f64().unwrap(), 48.0, "A's CPU-hours");
    let a1 = pod("research/trainer-0", day1);
    close(a1["cpu_kwh"].as_f64().unwrap(), (50.0 * (86_400.0 - 60.0) + 10.0 * 86_400.0) / 3.6e6, "A's CPU kWh through the reset");
    assert!(a1["notes"].to_string().contains("exporter restarted"), "{a1}");
    assert_eq!(a0["tags"], serde_json::json!({"label:team": "vision"}), "an empty annotation is no tag");
    // B: from noon, its first sample's 60 s kept; no GPU held, so no GPU energy claimed.
    let b0 = pod("serving/llm-0", since);
    close(b0["cpu_kwh"].as_f64().unwrap(), 20.0 * 43_260.0 / 3.6e6, "B's first half-day, its first sample kept");
    close(b0["cpu_hours"].as_f64().unwrap(), 43_260.0 / 3600.0, "B's CPU-hours, day 0");
    assert_eq!((b0["gpu_kwh"].clone(), b0["gpu_hours"].as_f64()), (Value::Null, Some(0.0)));
    close(pod("serving/llm-0", day1)["cpu_kwh"].as_f64().unwrap(), 0.24, "B's second half-day");
    assert_eq!(b0["tags"], serde_json::json!({"label:team": "nlp", "annotation:cost_center": "cc-42"}));
    assert_eq!(b0["model"], "serving", "the namespace is the model");
    // C: its counter's rise over a day without scrapes, from its last value before the day, counted once.
    let c0 = pod("research/batch-0", since);
    close(c0["cpu_kwh"].as_f64().unwrap(), 10.0 * 28.0 * 3600.0 / 3.6e6, "C's CPU kWh across the gap");
    close(c0["cpu_hours"].as_f64().unwrap(), 28.0, "C's CPU-hours across the gap");
    // D: the hour no node could make is not counted, and its CPU energy is not claimed as measured.
    let d0 = pod("research/spike-0", since);
    assert_eq!(d0["cpu_kwh"], Value::Null, "{d0}");
    assert!(d0["notes"].to_string().contains("more than a node can make"), "{d0}");
    close(d0["cpu_hours"].as_f64().unwrap(), 24.0, "D's CPU-hours");

    let done: Value = env.json(&import);
    assert_eq!((done["imported"].as_u64(), done["records_written"].as_u64()), (Some(6), Some(12)));
    let again: Value = env.json(&import);
    assert_eq!(
        (again["imported"].as_u64(), again["already_there"].as_u64(), again["records_written"].as_u64()),
        (Some(0), Some(6), Some(0))
    );

    let groups = |by: &str| -> BTreeMap<String, Value> {
        let r: Value = env.json(&["report", "--by", by]);
        r["groups"].as_array().unwrap().iter().map(|g| (g["key"].as_str().unwrap().to_string(), g.clone())).collect()
    };
    let total: Value = env.json(&["report"]);
    let co2e = |g: &Value| g["co2e_g"].as_f64().unwrap();
    let by_ns = groups("namespace");
    assert_eq!(by_ns.keys().collect::<Vec<_>>(), ["research", "serving"]);
    close(by_ns["research"]["gpu_hours"].as_f64().unwrap(), 48.0, "research's GPU-hours");
    close(by_ns["serving"]["cpu_hours"].as_f64().unwrap(), (43_260.0 + 43_200.0) / 3600.0, "serving's CPU-hours");
    assert_eq!((by_ns["research"]["runs"].as_u64(), by_ns["research"]["runs_measured"].as_u64()), (Some(4), Some(3)), "D's estimated");
    // The pods' carbon, as the import priced each, adds up per namespace and to the whole.
    let priced = |ns: &str| pods.values().filter(|p| p["namespace"] == ns).map(|p| p["co2e_g"].as_f64().unwrap()).sum::<f64>();
    close(co2e(&by_ns["research"]), priced("research"), "research's CO2e");
    close(co2e(&by_ns["research"]) + co2e(&by_ns["serving"]), co2e(&total["totals"]), "the namespaces' CO2e against the whole");
    let by_team = groups("label:team");
    assert_eq!(by_team.keys().collect::<Vec<_>>(), ["(none)", "nlp", "vision"]);
    let of_pod = |name: &str| pods.values().filter(|p| p["pod"] == name).map(|p| p["co2e_g"].as_f64().unwrap()).sum::<f64>();
    close(co2e(&by_team["vision"]), of_pod("trainer-0"), "team vision is pod A");
    let by_cc = groups("annotation:cost_center");
    assert_eq!(by_cc.keys().collect::<Vec<_>>(), ["(none)", "cc-42"]);
    fails(&env.run(&["report", "--by", "label:te'am"]), 2, "Kubernetes label key");

    // FOCUS: the pods' namespace, labels and annotations are each row's Tags, under the keys --by takes.
    let csv = env.dir.path().join("focus.csv");
    let out = env.run(&["report", "--format", "focus"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(&csv, &out.stdout).unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(r#""label:team"":""nlp"""#) && text.contains(r#""namespace"":""serving"""#), "{text}");
    let (summary, failed) = crate::reports::validate_focus(&csv);
    assert!(failed.is_empty(), "focus-validator: {summary}: {failed:?}");
}

/// Today is never imported, nor a day it would take more than a year to reach; a Prometheus that is not there
/// is said, and nothing is written.
#[test]
fn an_import_refuses_today_and_says_a_prometheus_that_is_not_there() {
    let env = Env::new();
    let today = &exa::time::iso8601(exa::time::now_unix())[..10];
    fails(&env.run(&["import", "kubernetes", "--cluster", "c1", "--prometheus", "http://127.0.0.1:9", "--since", today]), 2, "today");
    fails(&env.run(&["import", "kubernetes", "--cluster", "c:1", "--prometheus", "http://127.0.0.1:9"]), 2, "--cluster");
    fails(&env.run(&["import", "kubernetes", "--cluster", "nowhere"]), 2, "give --prometheus");
    let out = env.run(&["import", "kubernetes", "--cluster", "c1", "--prometheus", "http://127.0.0.1:9", "--since", "-2d"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot reach Prometheus"), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = env.json(&["report"]);
    assert_eq!(r["groups"].as_array().map(Vec::len), Some(0), "nothing written");
}

/// The same import into PostgreSQL reports alike by namespace, label and annotation, and gives the same FOCUS
/// rows' tags; a second import writes nothing there either.
#[test]
fn an_import_into_postgresql_reports_as_into_sqlite() {
    let day0 = (exa::time::now_unix() / DAY - 3) * DAY;
    let prom = Prometheus::start(node(day0));
    let pg = crate::pg::PgServer::start();
    let lite = Env::new();
    let post = Env::new().env("EXAMLOPS_DB", &pg.database("pods"));
    let (since, until) = (&exa::time::iso8601(day0)[..10], &exa::time::iso8601(day0 + DAY)[..10]);
    let import = ["import", "kubernetes", "--cluster", "c1", "--prometheus", &prom.url, "--since", since, "--until", until];
    for env in [&lite, &post] {
        let done: Value = env.json(&import);
        assert_eq!(done["records_written"].as_u64(), Some(12), "{done}");
    }
    let again: Value = post.json(&import);
    assert_eq!((again["already_there"].as_u64(), again["records_written"].as_u64()), (Some(6), Some(0)));
    for by in ["namespace", "label:team", "annotation:cost_center", "run"] {
        let report = |env: &Env| {
            let mut v: Value = env.json(&["report", "--by", by]);
            v.as_object_mut().unwrap().remove("db");
            v
        };
        crate::postgres::same(&report(&lite), &report(&post), &format!("--by {by}"));
    }
    let tags = |env: &Env| -> Vec<String> {
        let out = env.run(&["-o", "json", "report", "--format", "focus"]);
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["Tags"].to_string()).collect()
    };
    let (a, b) = (tags(&lite), tags(&post));
    assert_eq!(a, b);
    assert!(a.iter().any(|t| t.contains("annotation:cost_center") && t.contains("serving")), "{a:?}");
}
