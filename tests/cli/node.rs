//! The whole node's energy in `measure`: the ACPI power meter in hwmon (a tree under the test's own host root,
//! whose counter the measured command advances) and the BMC through a fake `ipmitool` printing DCMI's layout;
//! the remainder beside the measured parts, its negative case, and a source asked for that is not there.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::{fails, fixtures, measure, stderr, stdout, with_h100, Env};

/// A host root with an ACPI power meter whose energy counter reads `uj` (and no CPU counters).
fn meter(env: Env, uj: u64) -> (Env, PathBuf) {
    let hwmon = env.dir.path().join("host/sys/class/hwmon");
    std::fs::create_dir_all(hwmon.join("hwmon0")).unwrap();
    std::fs::write(hwmon.join("hwmon0/name"), "nvme\n").unwrap();
    std::fs::write(hwmon.join("hwmon0/power1_input"), "5000000\n").unwrap();
    std::fs::create_dir_all(hwmon.join("hwmon3")).unwrap();
    std::fs::write(hwmon.join("hwmon3/name"), "power_meter\n").unwrap();
    let counter = hwmon.join("hwmon3/energy1_input");
    std::fs::write(&counter, format!("{uj}\n")).unwrap();
    let root = env.dir.path().join("host");
    (env.env("EXAMLOPS_HOST_ROOT", root.to_str().unwrap()), counter)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// A command that waits, advances the meter's counter, and waits again: whichever readings fall around it, the
/// interval holding the step is at least 0.3 s, so its 900 J is a power a node can draw.
fn step(counter: &std::path::Path, to: u64) -> String {
    format!("sleep 0.3; echo {to} > {}; sleep 0.3", counter.display())
}

#[test]
fn the_node_s_meter_gives_its_energy_the_measured_share_and_the_rest() {
    let (env, counter) = meter(with_h100(Env::new()), 7_000_000_000_000);
    let (out, r) = measure(&env, &["--interval", "0.2"], &["sh", "-c", &step(&counter, 7_000_000_000_000 + 900_000_000)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let n = &r["node"];
    assert_eq!(n["status"], "measured", "{n}");
    assert_eq!(n["source"], "hwmon");
    assert!(n["meter"].as_str().unwrap().ends_with("hwmon3"), "the power meter, not the disk's sensor: {n}");
    // The counter's difference, exactly: 900 J.
    assert!((f(&n["node_kwh"]) - 900.0 / 3.6e6).abs() < 1e-12, "{n}");
    // What was measured is the GPUs' energy (no CPU counters here); the rest is the difference, never clamped.
    let gpu = f(&r["gpu"]["energy_kwh"]);
    assert!(gpu > 0.0);
    assert!((f(&n["measured_kwh"]) - gpu).abs() < 1e-12, "{n}");
    assert!((f(&n["remainder_kwh"]) - (f(&n["node_kwh"]) - gpu)).abs() < 1e-12, "{n}");
    assert!((f(&n["coverage_pct"]) - gpu / f(&n["node_kwh"]) * 100.0).abs() < 1e-3, "{n}");
    if f(&n["remainder_kwh"]) >= 0.0 {
        // The job is every GPU read and no CPU counter: the whole rest is its.
        assert_eq!((n["policy"].as_str(), f(&n["share"])), (Some("by measured share"), 1.0));
        assert!((f(&n["job_remainder_kwh"]) - f(&n["remainder_kwh"])).abs() < 1e-12, "{n}");
    }
    // The measured energy stands as it was: the rest is beside it, not in it.
    assert!((f(&r["carbon"]["inputs"]["gpu_kwh"]) - gpu).abs() < 1e-9, "{}", r["carbon"]["inputs"]);
    assert!(stderr(&out).is_empty() || !stderr(&out).contains("panicked"));
}

#[test]
fn a_metered_run_s_record_keeps_its_part_of_the_node_and_reports_give_the_coverage() {
    let (env, counter) = meter(with_h100(Env::new()), 7_000_000_000_000);
    let args = ["--interval", "0.2", "--record", "train", "--run-id", "job-1"];
    let (out, r) = measure(&env, &args, &["sh", "-c", &step(&counter, 7_000_000_000_000 + 900_000_000)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let n = &r["node"];
    assert_eq!(n["status"], "measured", "{n}");
    // Beside it, a model whose work was only estimated: no node was metered for it.
    let est = env.run(&["finops", "carbon", "record", "serve", "--gpu-hours", "2"]);
    assert_eq!(est.status.code(), Some(0), "{}", stderr(&est));
    let rep: Value = env.json(&["report", "--by", "model"]);
    let group = |k: &str| rep["groups"].as_array().unwrap().iter().find(|g| g["key"] == k).unwrap_or_else(|| panic!("{k}: {rep}")).clone();
    let (train, serve) = (group("train"), group("serve"));
    // Every GPU read is the job's, so all of the node is its part: the meter's energy, and its remainder.
    assert!((f(&train["node_kwh"]) - f(&n["node_kwh"])).abs() < 1e-12, "{train} {n}");
    assert!((f(&train["node_rest_kwh"]) - f(&n["remainder_kwh"])).abs() < 1e-12, "{train} {n}");
    assert!((f(&train["coverage_pct"]) - f(&n["coverage_pct"])).abs() < 1e-3, "{train} {n}");
    // Beside kWh, never in it: what was measured and priced stands as it was.
    assert!((f(&train["kwh"]) - f(&r["carbon"]["outputs"]["kwh"])).abs() < 1e-9, "{train}");
    assert_eq!((&serve["node_kwh"], &serve["coverage_pct"]), (&Value::Null, &Value::Null), "{serve}");
    assert!((f(&rep["totals"]["node_kwh"]) - f(&n["node_kwh"])).abs() < 1e-12, "{}", rep["totals"]);
    // The same in CSV, at the end of each row, and in the table with its note.
    let csv = env.run(&["-o", "csv", "report", "--by", "model"]);
    let text = String::from_utf8(csv.stdout).unwrap();
    assert!(text.lines().next().unwrap().ends_with(",node_kwh,node_rest_kwh,coverage_pct"), "{text}");
    let row = text.lines().find(|l| l.starts_with("train,")).unwrap();
    assert_eq!(row.rsplit(',').next().unwrap().parse::<f64>().unwrap(), f(&train["coverage_pct"]), "{row}");
    assert!(text.lines().find(|l| l.starts_with("serve,")).unwrap().ends_with(",,,"), "{text}");
    let table = String::from_utf8(env.run(&["report", "--by", "model"]).stdout).unwrap();
    assert!(table.contains("Node kWh (% measured)") && table.contains("node: over the runs whose node a meter read"), "{table}");
}

#[test]
fn by_allocation_the_job_takes_the_share_of_the_node_it_holds() {
    // A node of 8 CPUs with RAPL counters, a flat 300 W power meter, no GPU; the job holds 2 CPUs.
    let (env, root) = crate::cpu::host(Env::new(), "intel-xeon-2s", "0-7");
    let hwmon = root.join("sys/class/hwmon/hwmon3");
    std::fs::create_dir_all(&hwmon).unwrap();
    std::fs::write(hwmon.join("name"), "power_meter\n").unwrap();
    std::fs::write(hwmon.join("power1_input"), "300000000\n").unwrap();
    let args = ["--interval", "0.2", "--node-source", "hwmon", "--cpus", "2", "--duration", "1.2s"];
    let by = |policy: &str| {
        let (out, r) = measure(&env, &[&args[..], &["--node-policy", policy, "--record", "cpu-job", "--run-id", policy]].concat(), &[]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        r
    };
    let r = by("allocation");
    let n = &r["node"];
    assert_eq!(n["status"], "measured", "{n}");
    assert_eq!((n["policy"].as_str(), f(&n["share"])), (Some("by allocation"), 0.25), "2 of 8 CPUs: {n}");
    assert!((f(&n["job_remainder_kwh"]) - 0.25 * f(&n["remainder_kwh"])).abs() < 1e-12, "{n}");
    // The table says which policy gave the part.
    let table = env.run(&[&["finops", "measure"][..], &args, &["--node-policy", "allocation"]].concat());
    assert!(
        stdout(&table).contains("the job's part of the rest") && stdout(&table).contains("(by allocation, 0.250)"),
        "{}",
        stdout(&table)
    );
    // The record keeps that part, and the report gives the job's coverage of it.
    let rep: Value = env.json(&["report", "--by", "run"]);
    let g = rep["groups"].as_array().unwrap().iter().find(|g| g["key"] == "allocation").unwrap().clone();
    // The counters here stand still, so nothing of the job was measured: its part of the node is the rest's.
    let job = ["cpu_kwh", "dram_kwh"].iter().map(|k| r["cpu_energy"][k].as_f64().unwrap_or(0.0)).sum::<f64>();
    assert!((f(&g["node_rest_kwh"]) - f(&n["job_remainder_kwh"])).abs() < 1e-12, "{g}");
    assert!((f(&g["node_kwh"]) - (job + f(&n["job_remainder_kwh"]))).abs() < 1e-12, "{g}");
    // By measured share, a node whose counters measured nothing (these stand still) gives the job no share.
    let r = by("measured");
    let n = &r["node"];
    assert_eq!(f(&n["measured_kwh"]), 0.0, "{n}");
    assert_eq!((&n["policy"], &n["share"], &n["job_remainder_kwh"]), (&Value::Null, &Value::Null, &Value::Null), "{n}");
    // Allocation with nothing held (a command's CPU time is use, not allocation) is said, not guessed.
    let (out, r) = measure(&env, &["--interval", "0.2", "--node-source", "hwmon", "--node-policy", "allocation"], &["sleep", "1.2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let n = &r["node"];
    assert_eq!(n["share"], Value::Null, "{n}");
    assert!(n["notes"].to_string().contains("no allocation to share the node's remainder by"), "{n}");
    fails(&env.run(&["finops", "measure", "--node-policy", "equal", "--", "true"]), 2, "--node-policy");
}

#[test]
fn the_trace_keeps_the_node_s_meter_and_validate_compares_the_gpus_with_it() {
    // Two H100s (a captured load) beside a flat 700 W power meter.
    let env = with_h100(Env::new());
    let hwmon = env.dir.path().join("host/sys/class/hwmon/hwmon3");
    std::fs::create_dir_all(&hwmon).unwrap();
    std::fs::write(hwmon.join("name"), "power_meter\n").unwrap();
    std::fs::write(hwmon.join("power1_input"), "700000000\n").unwrap();
    let root = env.dir.path().join("host").to_str().unwrap().to_string();
    let env = env.env("EXAMLOPS_HOST_ROOT", &root);
    let trace = env.dir.path().join("run.jsonl");
    let (out, r) = measure(&env, &["--interval", "0.2", "--node-source", "hwmon", "--trace", trace.to_str().unwrap()], &["sleep", "2.2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(r["node"]["status"], "measured", "{}", r["node"]);
    let text = std::fs::read_to_string(&trace).unwrap();
    let node_lines: Vec<Value> =
        text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|v| v.get("node").is_some()).collect();
    assert!(!node_lines.is_empty(), "{text}");
    for l in &node_lines {
        let n = &l["node"];
        assert_eq!(n["source"], "hwmon");
        // 700 W over each interval, to the microjoule.
        assert!((f(&n["j"]) - 700.0 * (f(&n["b"]) - f(&n["a"]))).abs() < 1e-3, "{n}");
    }
    let v: Value = env.json(&["validate", "--trace", trace.to_str().unwrap(), "--reference", "hwmon"]);
    let c = &v["components"][0];
    assert_eq!(c["name"], "all GPUs against the node", "{v}");
    assert_eq!((v["offset_from"].as_str(), f(&v["offset_s"])), (Some("same clock"), 0.0), "one clock: as stamped");
    assert!(f(&c["compared_s"]) > 0.0, "{v}");
    // 700 W over the seconds compared (given to the millisecond: 0.35 J either way).
    assert!((f(&c["reference_j"]) - 700.0 * f(&c["compared_s"])).abs() < 0.36, "{c}");
    let bias = (f(&c["exa_j"]) - f(&c["reference_j"])) / f(&c["reference_j"]) * 100.0;
    assert!((f(&c["bias_pct"]) - bias).abs() < 1e-3, "{c}");
    assert!(v["notes"].to_string().contains("the reference is the node's meter (hwmon)"), "{v}");
    // Another source than the run read, and a trace without the node's readings, are refused, naming why.
    fails(&env.run(&["validate", "--trace", trace.to_str().unwrap(), "--reference", "ipmi"]), 1, "are from hwmon, not ipmi");
    let gpus_only = env.file("gpus.jsonl", &text.lines().filter(|l| !l.contains("\"node\"")).collect::<Vec<_>>().join("\n"));
    fails(&env.run(&["validate", "--trace", gpus_only.to_str().unwrap(), "--reference", "redfish"]), 1, "holds no node readings");
    // A node interval no node could draw is refused, naming its line.
    let bad = format!("{text}{{\"node\":{{\"source\":\"hwmon\",\"a\":1800000000,\"b\":1800000001,\"j\":1e12}}}}\n");
    let line = bad.lines().count();
    let bad = env.file("bad.jsonl", &bad);
    fails(
        &env.run(&["validate", "--trace", bad.to_str().unwrap(), "--reference", "hwmon"]),
        2,
        &format!("bad.jsonl:{line}: a node interval"),
    );
}

#[test]
fn a_meter_reading_less_than_the_parts_is_said_and_never_clamped() {
    // 1 J over the run, far below the GPUs' energy.
    let (env, counter) = meter(with_h100(Env::new()), 1_000_000);
    let (out, r) = measure(&env, &["--interval", "0.2", "--record", "lag"], &["sh", "-c", &step(&counter, 2_000_000)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let n = &r["node"];
    assert!(f(&n["remainder_kwh"]) < 0.0, "{n}");
    assert_eq!(n["job_remainder_kwh"], Value::Null, "no part of a negative rest is the job's");
    assert!(n["notes"].as_array().unwrap().iter().any(|s| s.as_str().unwrap().contains("less than its measured parts")), "{n}");
    // A node drawing less than its parts is no figure for the ledger: the run is recorded, with no node figure.
    let rep: Value = env.json(&["report", "--by", "model"]);
    assert_eq!(rep["groups"][0]["runs_measured"], 1, "{rep}");
    assert_eq!((&rep["groups"][0]["node_kwh"], &rep["groups"][0]["coverage_pct"]), (&Value::Null, &Value::Null), "{rep}");
}

#[test]
fn the_bmc_is_read_through_ipmitool_and_an_inactive_reading_is_not_energy() {
    let env = Env::new();
    let bin = env.dir.path().join("fakebin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(fixtures().join("fake-ipmitool"), bin.join("ipmitool")).unwrap();
    let env = env.path_first(&bin).env("FAKE_IPMI_WATTS", "480");
    let (out, r) = measure(&env, &["--interval", "0.2", "--node-source", "ipmi", "--gpus", "none"], &["sleep", "1.2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let n = &r["node"];
    assert_eq!((n["status"].as_str(), n["source"].as_str()), (Some("measured"), Some("ipmi")), "{n}");
    assert!(n["readings"].as_u64().unwrap() >= 2, "{n}");
    // A flat 480 W: the energy is 480 W times the seconds read, which lie within the run and a little past it.
    let seconds = f(&n["node_kwh"]) * 3.6e6 / 480.0;
    assert!(seconds > 0.0 && seconds <= f(&r["duration_s"]) + 30.0, "{seconds} s of {}", r["duration_s"]);
    // Nothing was measured of this node: no GPU, no CPU counter.
    assert_eq!((f(&n["measured_kwh"]), f(&n["coverage_pct"])), (0.0, 0.0));
    // A BMC whose reading is deactivated gives no energy: every reading fails, and the report says why.
    let off = env.env("FAKE_IPMI_STATE", "deactivated");
    let (out, r) = measure(&off, &["--interval", "0.2", "--node-source", "ipmi", "--gpus", "none"], &["true"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let n = &r["node"];
    assert_eq!(n["status"], "not measured", "{n}");
    assert!(n["notes"].to_string().contains("deactivated"), "{n}");
}

#[test]
fn a_source_asked_for_and_not_there_refuses_before_the_command_runs() {
    let env = Env::new();
    let marker = env.dir.path().join("ran");
    let cmd = format!("touch {}", marker.display());
    let out = env.run(&["finops", "measure", "--node-source", "hwmon", "--gpus", "none", "--", "sh", "-c", &cmd]);
    fails(&out, 1, "cannot read the node's power (hwmon from flag): no hwmon power meter");
    assert!(!marker.exists(), "the command never ran");
    let out = env.run(&["finops", "measure", "--node-source", "bmc", "--", "true"]);
    fails(&out, 2, "bmc");
    // Auto with no meter: the run goes on, and the report says there was none.
    let (out, r) = measure(&env, &["--gpus", "none"], &["true"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(r["node"]["status"], "not measured");
    assert!(r["node"]["reason"].as_str().unwrap().contains("no platform power meter"), "{}", r["node"]);
}

#[test]
fn the_exporter_serves_the_host_s_energy_and_power_from_its_meter() {
    use crate::prometheus::http_get;
    use crate::telemetry::{promtool_lints, text_004, Running};
    let (env, counter) = meter(Env::new(), 5_000_000_000);
    let mut exa = Running::start(&env, &["gpu", "serve", "--listen", "127.0.0.1:0", "--interval", "0.2", "--semconv", "hw"]);
    let addr = exa.address();
    let value = |text: &str, series: &str| -> Option<f64> {
        text.lines().find(|l| l.starts_with(series)).and_then(|l| l.rsplit(' ').next()?.parse().ok())
    };
    // The counter rises 50 J at a time while the test scrapes: the exporter's total follows it, and a power is
    // served for the last interval (each reading a second apart at least, so 50 J is a node's power).
    let mut uj: u64 = 5_000_000_000;
    let mut text = String::new();
    crate::telemetry::eventually(60, "the host's energy rises and its power is served", || {
        uj += 50_000_000;
        std::fs::write(&counter, format!("{uj}\n")).unwrap();
        text = http_get(&addr, "/metrics");
        value(&text, "hw_host_energy_joules_total ").is_some_and(|j| j >= 100.0) && text.contains("hw_host_power_watts ")
    });
    let served = value(&text, "hw_host_energy_joules_total ").unwrap();
    assert!(served <= (uj - 5_000_000_000) as f64 / 1e6, "never more than the counter rose: {served}");
    assert!(value(&text, "hw_host_power_watts ").unwrap() >= 0.0);
    let lints = promtool_lints(&text_004(&addr));
    assert!(lints.iter().all(|l| !l.contains("hw_host")), "promtool: {lints:?}");
    exa.stop();
}

#[test]
fn a_hung_bmc_never_holds_the_run_and_a_bmc_reading_zero_is_no_energy() {
    let bmc = |var: &str, value: &str| {
        let env = Env::new();
        let bin = env.dir.path().join("fakebin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(fixtures().join("fake-ipmitool"), bin.join("ipmitool")).unwrap();
        env.path_first(&bin).env(var, value)
    };
    // A BMC that answers in a minute: its reads are killed after 3 s on their own thread, and the run is the
    // command's own length, not the BMC's.
    let hung = bmc("FAKE_IPMI_SLEEP", "60");
    let (out, r) = measure(&hung, &["--node-source", "ipmi", "--gpus", "none"], &["true"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(f(&r["duration_s"]) < 30.0, "the run waited for the BMC: {}", r["duration_s"]);
    assert_eq!(r["node"]["status"], "not measured", "{}", r["node"]);
    assert!(r["node"]["notes"].to_string().contains("no answer within 3 s"), "{}", r["node"]);
    // A BMC reading 0 W (one that does not support the reading): no energy, said, never a percentage of nothing.
    let zero = bmc("FAKE_IPMI_WATTS", "0");
    let (out, r) = measure(&zero, &["--node-source", "ipmi", "--gpus", "none"], &["sleep", "1.2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(r["node"]["status"], "not measured", "{}", r["node"]);
    assert!(r["node"]["reason"].as_str().unwrap().contains("0 W"), "{}", r["node"]);
}

#[test]
fn the_job_s_own_gpus_of_a_node_take_none_of_the_rest() {
    let (env, counter) = meter(with_h100(Env::new()), 7_000_000_000_000);
    let (out, r) = measure(&env, &["--interval", "0.2", "--gpus", "0"], &["sh", "-c", &step(&counter, 7_000_000_000_000 + 900_000_000)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let n = &r["node"];
    assert_eq!(n["status"], "measured", "{n}");
    // Other GPUs of the node (if any) draw in the remainder: no share of it is the job's.
    assert_eq!((n["share"].clone(), n["job_remainder_kwh"].clone()), (Value::Null, Value::Null), "{n}");
    assert!(n["notes"].to_string().contains("none of it is the job's"), "{n}");
}

#[test]
fn the_node_s_meter_alone_is_something_to_watch_for_a_duration() {
    // No GPU, no command: the meter is watched for the --duration asked, never ended at once.
    let (env, _) = meter(Env::new(), 5_000_000_000);
    let (out, r) = measure(&env, &["--gpus", "none", "--duration", "1.5"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(f(&r["duration_s"]) >= 1.5, "the run ended before its --duration: {}", r["duration_s"]);
    assert_eq!(r["node"]["source"], "hwmon", "{}", r["node"]);
}

/// DMTF's public rackmount mockup (tests/fixtures/redfish) by path, as a BMC serves it, without the chassis's
/// links named in `unlinked`; with `both_supplies`, Bay2 answers its input power as Bay1 does.
fn redfish_docs(unlinked: &[&str], both_supplies: bool) -> std::collections::BTreeMap<String, String> {
    let dir = fixtures().join("redfish");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let base = "/redfish/v1/Chassis/1U";
    let mut chassis: Value = serde_json::from_str(&read("chassis-1U.json")).unwrap();
    for link in unlinked {
        chassis.as_object_mut().unwrap().remove(*link).expect("the mockup links it");
    }
    let mut docs = std::collections::BTreeMap::new();
    docs.insert(base.to_string(), chassis.to_string());
    for (path, file) in [
        ("/EnvironmentMetrics", "chassis-1U-EnvironmentMetrics.json"),
        ("/PowerSubsystem", "chassis-1U-PowerSubsystem.json"),
        ("/PowerSubsystem/PowerSupplies", "chassis-1U-PowerSupplies.json"),
        ("/PowerSubsystem/PowerSupplies/Bay1", "chassis-1U-PowerSupplies-Bay1.json"),
        ("/PowerSubsystem/PowerSupplies/Bay1/Metrics", "chassis-1U-PowerSupplies-Bay1-Metrics.json"),
        ("/Power", "chassis-1U-Power.json"),
    ] {
        docs.insert(format!("{base}{path}"), read(file));
        if both_supplies && path.contains("Bay1") {
            docs.insert(format!("{base}{}", path.replace("Bay1", "Bay2")), read(file).replace("Bay1", "Bay2"));
        }
    }
    docs
}

/// A BMC on loopback serving `docs` to `admin:secret` alone, and an environment that reads it.
fn with_bmc(docs: std::collections::BTreeMap<String, String>) -> (Env, crate::http::Server) {
    use std::os::unix::fs::PermissionsExt;
    // "admin:secret", as basic authentication sends it.
    let server = crate::http::Server::start(crate::http::Answer::Paths(std::sync::Arc::new(docs), "authorization: basic ywrtaw46c2vjcmv0"));
    let env = Env::new();
    let creds = env.file("bmc-credentials", "admin:secret\n");
    std::fs::set_permissions(&creds, std::fs::Permissions::from_mode(0o600)).unwrap();
    let env = env
        .env("EXAMLOPS_REDFISH_URL", &server.url("/redfish/v1/Chassis/1U"))
        .env("EXAMLOPS_REDFISH_CREDENTIALS_FILE", creds.to_str().unwrap());
    (env, server)
}

#[test]
fn the_bmc_is_read_over_redfish_by_the_chassis_s_own_links() {
    // The chassis's EnvironmentMetrics first: its PowerWatts, 374 W in the mockup.
    let (env, _bmc) = with_bmc(redfish_docs(&[], false));
    let (out, r) = measure(&env, &["--interval", "0.2", "--node-source", "redfish", "--gpus", "none"], &["sleep", "1.2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let n = &r["node"];
    assert_eq!((n["status"].as_str(), n["source"].as_str()), (Some("measured"), Some("redfish")), "{n}");
    assert!(n["meter"].as_str().unwrap().contains("EnvironmentMetrics PowerWatts"), "{n}");
    let seconds = f(&n["node_kwh"]) * 3.6e6 / 374.0;
    assert!(seconds > 0.5 && seconds <= f(&r["duration_s"]) + 30.0, "{seconds} s of {}", r["duration_s"]);
    // Where the chassis does not link its EnvironmentMetrics, its supplies' input power, summed: none is left out.
    let (env, _bmc) = with_bmc(redfish_docs(&["EnvironmentMetrics"], true));
    let c: Value = env.clone_with("EXAMLOPS_NODE_SOURCE", "redfish").json(&["config", "show"]);
    assert!(c["node_meter"]["meter"].as_str().unwrap().contains("input power of its 2 power supplies"), "{}", c["node_meter"]);
    // A supply without metrics (the mockup's Bay2) is no partial sum: the older Power resource is read.
    let (env, _bmc) = with_bmc(redfish_docs(&["EnvironmentMetrics"], false));
    let c: Value = env.clone_with("EXAMLOPS_NODE_SOURCE", "redfish").json(&["config", "show"]);
    assert!(c["node_meter"]["meter"].as_str().unwrap().contains("Power PowerConsumedWatts"), "{}", c["node_meter"]);
    // A link to another host is never followed: the credentials go only to the BMC they were given for.
    let elsewhere = crate::http::Server::start(crate::http::json("{\"PowerWatts\": {\"Reading\": 1}}".into()));
    let mut docs = redfish_docs(&[], false);
    let chassis = docs.get_mut("/redfish/v1/Chassis/1U").unwrap();
    *chassis = chassis.replace("\"/redfish/v1/Chassis/1U/EnvironmentMetrics\"", &format!("\"{}\"", elsewhere.url("/steal")));
    let (env, _bmc) = with_bmc(docs);
    let c: Value = env.clone_with("EXAMLOPS_NODE_SOURCE", "redfish").json(&["config", "show"]);
    assert!(c["node_meter"]["meter"].as_str().unwrap().contains("Power PowerConsumedWatts"), "{}", c["node_meter"]);
    assert!(elsewhere.requests().is_empty(), "a request went to another host: {:?}", elsewhere.requests());
    let (env, _bmc) = with_bmc(redfish_docs(&["EnvironmentMetrics", "PowerSubsystem", "Power"], false));
    let c: Value = env.clone_with("EXAMLOPS_NODE_SOURCE", "redfish").json(&["config", "show"]);
    assert!(c["node_meter"]["reason"].as_str().unwrap().contains("links no EnvironmentMetrics"), "{}", c["node_meter"]);
}

#[test]
fn redfish_credentials_go_only_over_tls_from_a_private_file_and_a_refusal_is_said() {
    use std::os::unix::fs::PermissionsExt;
    let (env, _bmc) = with_bmc(redfish_docs(&[], false));
    let run = |env: &Env| env.run(&["finops", "measure", "--node-source", "redfish", "--gpus", "none", "--", "true"]);
    // Wrong credentials: the BMC's 401, said, and the run refused before its command (a named source).
    let wrong = env.file("wrong", "admin:guess\n");
    std::fs::set_permissions(&wrong, std::fs::Permissions::from_mode(0o600)).unwrap();
    fails(&run(&env.clone_with("EXAMLOPS_REDFISH_CREDENTIALS_FILE", wrong.to_str().unwrap())), 1, "refused the credentials");
    let open = env.file("open", "admin:secret\n");
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o644)).unwrap();
    fails(&run(&env.clone_with("EXAMLOPS_REDFISH_CREDENTIALS_FILE", open.to_str().unwrap())), 1, "chmod 600");
    // Plain HTTP beyond this machine would carry the password in the clear: refused, nothing sent.
    fails(&run(&env.clone_with("EXAMLOPS_REDFISH_URL", "http://192.0.2.1/redfish/v1/Chassis/1U")), 1, "not HTTPS");
    let none = Env::new();
    fails(&run(&none), 1, "no Redfish chassis URL");
    let o = run(&env.clone_with("EXAMLOPS_REDFISH_CREDENTIALS_FILE", wrong.to_str().unwrap()));
    assert!(!stderr(&o).contains("guess"), "the password is never shown: {}", stderr(&o));
}

#[test]
fn the_remainder_interval_by_interval_says_where_the_meter_read_less_than_the_gpus() {
    // A platform meter reading a flat 100 W (its power, no counter) beside two H100s drawing far more: every
    // interval the meter covers reads less than its parts, said, and never clamped.
    let (env, counter) = meter(with_h100(Env::new()), 0);
    std::fs::remove_file(&counter).unwrap();
    std::fs::write(counter.with_file_name("power1_average"), "100000000\n").unwrap();
    let (out, r) = measure(&env, &["--interval", "0.2"], &["sleep", "2.5"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let n = &r["node"];
    assert_eq!(n["status"], "measured", "{n}");
    let i = &n["intervals"];
    assert_eq!(i["seconds"], 60.0, "the GPUs' profile's intervals: the clock's minutes");
    assert!(i["compared"].as_u64().unwrap() >= 1, "{n}");
    assert_eq!(i["negative"], i["compared"], "{n}");
    // The GPUs' mean power over the run, less the meter's 100 W, is about what each interval is short by.
    let gpu_w = f(&r["gpu"]["energy_kwh"]) * 3.6e6 / f(&r["duration_s"]);
    assert!(f(&i["max_remainder_w"]) < 0.0 && f(&i["min_remainder_w"]) > -(gpu_w * 1.5), "{i} against {gpu_w} W");
    assert!(n["notes"].to_string().contains("intervals read less than their measured parts"), "{n}");
}
