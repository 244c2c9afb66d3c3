//! `exa gpu` and `exa finops measure` against fake nvidia-smi programs that
//! replay real captures, one per row of the spec's failure table.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{close, fails, fake_smi, fixtures, measure, stderr, stdout, Env};

const H100: &str = "nvsmi-query-gpu-csv__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.csv";
const H200: &str = "nvsmi-query-gpu-csv__linux-x86_64__nvidia-h200__590.48.01__load.csv";
const L40S: &str = "nvsmi-query-gpu-csv__linux-x86_64__nvidia-l40s__595.80__load.csv";
const RTX_IDLE: &str = "nvsmi-query-gpu-csv__linux-x86_64__nvidia-geforce-rtx-2080-super__610.57.04__idle.csv";
const H100_MIG: &str = "nvsmi-query-gpu-csv__linux-x86_64__nvidia-h100-mig__590.48.01__load.csv";
const R465: &str = "nvsmi-query-gpu-csv__linux__rtx-2080-super__465.27.csv";

/// An environment whose PATH starts with a fake nvidia-smi replaying `capture`.
fn with_smi(capture: &str) -> Env {
    fake_smi(Env::new(), capture)
}

/// A PATH with the system's tools and no nvidia-smi.
fn without_smi() -> Env {
    Env::new().env("PATH", "/usr/local/bin:/usr/bin:/bin")
}

fn calls(env: &Env) -> usize {
    std::fs::read_to_string(env.dir.path().join("smi-state/calls")).map_or(0, |s| s.trim().parse().unwrap())
}

/// `common::until_calls` as a command's words.
fn until_calls(env: &Env, n: usize) -> Vec<String> {
    vec!["sh".into(), "-c".into(), crate::common::until_calls(env, n)]
}

fn gpu_json(env: &Env) -> Value {
    env.json(&["gpu"])
}

#[test]
fn gpu_reads_each_real_capture() {
    for (capture, name, power, fields) in [
        (H100, "NVIDIA H100 80GB HBM3", 631.95, "full"),
        (H200, "NVIDIA H200", 627.4, "full"),
        (L40S, "NVIDIA L40S", f64::NAN, "full"),
        (RTX_IDLE, "NVIDIA GeForce RTX 2080 SUPER", 39.17, "full"),
        (R465, "NVIDIA GeForce RTX 2080 SUPER", 30.37, "full-throttle-names"),
    ] {
        let v = gpu_json(&with_smi(capture));
        let d = &v["devices"][0];
        assert_eq!(d["name"], name, "{capture}");
        assert_eq!(v["fields"], fields, "{capture}");
        if !power.is_nan() {
            assert_eq!(d["power_w"].as_f64(), Some(power), "{capture}");
        }
        assert!(d["temperature_c"].as_f64().is_some(), "{capture}");
        assert_eq!(v["aggregates"]["gpu_count"], 1);
    }
}

#[test]
fn na_cells_are_null_never_zero() {
    let v = gpu_json(&with_smi(RTX_IDLE));
    let d = &v["devices"][0];
    assert_eq!(d.get("ecc_corrected"), Some(&Value::Null));
    assert_eq!(d["fan_pct"], 38.0);
    let v = gpu_json(&with_smi(H100_MIG));
    let d = &v["devices"][0];
    assert_eq!(d.get("utilization_pct"), Some(&Value::Null), "MIG mode has no utilisation");
    assert_eq!(v["aggregates"].get("mean_utilization_pct"), Some(&Value::Null));
    assert_eq!(v["aggregates"]["utilization_count"], 0);
    assert_eq!(v["aggregates"]["power_count"], 1);
    let out = with_smi(H100_MIG).run(&["gpu"]);
    assert!(stdout(&out).contains("mean utilisation n/a (0 reporting)"), "{}", stdout(&out));
}

#[test]
fn eight_devices_and_their_aggregates() {
    let env = with_smi(H200).env("FAKE_SMI_DEVICES", "8").env("FAKE_SMI_POWER", "500");
    let v = gpu_json(&env);
    assert_eq!(v["devices"].as_array().unwrap().len(), 8);
    assert_eq!(v["devices"][7]["index"], 7);
    assert_eq!(v["aggregates"]["total_power_w"], 4000.0);
    assert_eq!(v["aggregates"]["gpu_count"], 8);
    close(v["aggregates"]["total_memory_used_gib"].as_f64().unwrap(), 8.0 * 32362.0 / 1024.0);
}

#[test]
fn the_core_field_set_when_a_driver_knows_little() {
    let env = with_smi(H100);
    // A capture with only the core columns: every richer field set is rejected.
    let full = std::fs::read_to_string(fixtures().join("gpu").join(H100)).unwrap();
    let lines: Vec<&str> = full.lines().filter(|l| !l.starts_with('#')).collect();
    let header: Vec<&str> = lines[0].split(", ").collect();
    let row: Vec<&str> = lines[1].split(", ").collect();
    let keep =
        ["index", "name", "uuid", "utilization.gpu", "utilization.memory", "memory.used", "memory.total", "temperature.gpu", "power.draw"];
    let idx: Vec<usize> = keep.iter().map(|k| header.iter().position(|h| h.split(" [").next() == Some(*k)).unwrap()).collect();
    let capture = format!(
        "# source: tests/fixtures/gpu/{H100}, only the core columns kept\n{}\n{}\n",
        idx.iter().map(|i| header[*i]).collect::<Vec<_>>().join(", "),
        idx.iter().map(|i| row[*i]).collect::<Vec<_>>().join(", ")
    );
    let path = env.file("core.csv", &capture);
    let env = env.env("FAKE_SMI_CAPTURE", path.to_str().unwrap());
    let v = gpu_json(&env);
    assert_eq!(v["fields"], "core");
    assert_eq!(v["devices"][0]["power_w"], 631.95);
    assert_eq!(v["devices"][0].get("power_limit_w"), Some(&Value::Null));
    assert!(v["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("using the core field set")));
}

#[test]
fn gpu_without_nvidia_smi_or_devices_or_driver() {
    fails(&without_smi().run(&["gpu"]), 1, "no nvidia-smi on PATH");
    fails(&with_smi(H100).env("FAKE_SMI_MODE", "no-devices").run(&["gpu"]), 1, "found no devices");
    let out = with_smi(H100).env("FAKE_SMI_MODE", "driver").run(&["gpu"]);
    fails(&out, 1, "couldn't communicate with the NVIDIA driver");
    fails(&with_smi(H100).env("FAKE_SMI_MODE", "empty").run(&["gpu"]), 1, "printed nothing");
}

#[test]
fn measure_without_nvidia_smi_still_runs_the_command() {
    let (out, r) = measure(&without_smi(), &["--interval", "0.2"], &["sh", "-c", "echo from-the-job; exit 4"]);
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(stdout(&out), "from-the-job\n", "the command's stdout passes through untouched");
    assert_eq!(r["gpu"]["status"], "not measured");
    assert!(r["gpu"]["reason"].as_str().unwrap().contains("no nvidia-smi on PATH"));
    assert_eq!(r["gpu"].get("energy_kwh"), Some(&Value::Null), "never 0 kWh");
    // The spec: one line at info level, not a warning.
    let said: Vec<&str> = std::str::from_utf8(&out.stderr).unwrap().lines().collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].starts_with("info: no GPU found"), "{said:?}");
}

#[test]
fn measure_with_no_devices_asks_once() {
    let env = with_smi(H100).env("FAKE_SMI_MODE", "no-devices");
    let (out, r) = measure(&env, &["--interval", "0.1"], &["sleep", "0.6"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(r["gpu"]["status"], "not measured");
    assert!(r["gpu"]["reason"].as_str().unwrap().contains("No devices were found"));
    assert_eq!(calls(&env), 1, "not asked again");
}

#[test]
fn failing_at_start_warns_retries_and_gives_up_after_five() {
    for (mode, said) in [("driver", "couldn't communicate with the NVIDIA driver"), ("empty", "printed nothing")] {
        let env = with_smi(H100).env("FAKE_SMI_MODE", mode);
        let (out, r) = measure(&env, &["--interval", "0.1"], &["sleep", "3"]);
        assert_eq!(out.status.code(), Some(0));
        let err = stderr(&out);
        assert_eq!(err.lines().filter(|l| l.starts_with("warning:")).count(), 2, "one at the start, one on giving up: {err}");
        assert!(err.contains(said) && err.contains("5 times in a row"), "{err}");
        assert_eq!(calls(&env), 5);
        assert_eq!(r["gpu"]["status"], "not measured");
        assert_eq!(r["gpu"].get("energy_kwh"), Some(&Value::Null));
    }
}

#[test]
fn an_older_driver_uses_the_throttle_names() {
    let env = with_smi(R465).env("FAKE_SMI_POWER", "200");
    let (out, r) = measure(&env, &["--interval", "0.1"], &["sleep", "0.5"]);
    assert_eq!(r["gpu"]["fields"], "full-throttle-names");
    assert!(stderr(&out).contains("does not know the field \"clocks_event_reasons."), "{}", stderr(&out));
    assert_eq!(r["gpu"]["status"], "measured");
}

#[test]
fn constant_power_integrates_to_power_times_time() {
    let env = with_smi(H100).env("FAKE_SMI_POWER", "300");
    let (out, r) = measure(&env, &["--interval", "0.2"], &["sleep", "1.5"]);
    assert_eq!(out.status.code(), Some(0));
    let g = &r["gpu"];
    let covered = g["devices"][0]["covered_s"].as_f64().unwrap();
    close(g["energy_kwh"].as_f64().unwrap(), 300.0 * covered / 3_600_000.0);
    // The readings span the run (loosely: a loaded machine delays the first and the last reading).
    let duration = r["duration_s"].as_f64().unwrap();
    assert!(covered > duration - 1.0 && covered < duration + 2.0, "{covered} s covered of a {duration} s run");
    close(g["mean_power_w"].as_f64().unwrap(), 300.0);
    assert_eq!(g["missed"], 0);
}

#[test]
fn stepped_power_on_eight_devices_matches_the_trapezoid_over_the_trace() {
    let env = with_smi(H200).env("FAKE_SMI_DEVICES", "8").env("FAKE_SMI_POWER", "100,100,300,300,500,100");
    let trace = env.dir.path().join("run.jsonl");
    // The fake steps through its six powers, the 500 W one among them, before the job ends.
    let job = until_calls(&env, 7);
    let job: Vec<&str> = job.iter().map(String::as_str).collect();
    let (_, r) = measure(&env, &["--interval", "0.2", "--trace", trace.to_str().unwrap()], &job);
    let lines: Vec<Value> = std::fs::read_to_string(&trace).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len() as u64, r["gpu"]["samples"].as_u64().unwrap() + r["gpu"]["missed"].as_u64().unwrap());
    // The integration ends at the command's exit: the reading after it counts as the power at the exit.
    let end = r["duration_s"].as_f64().unwrap();
    let mut joules = 0.0;
    for w in lines.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        joules += (a["devices"][3]["power_w"].as_f64().unwrap() + b["devices"][3]["power_w"].as_f64().unwrap()) / 2.0
            * (b["t"].as_f64().unwrap().min(end) - a["t"].as_f64().unwrap());
    }
    let devices = r["gpu"]["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 8);
    close(devices[3]["energy_kwh"].as_f64().unwrap(), joules / 3_600_000.0);
    close(r["gpu"]["energy_kwh"].as_f64().unwrap(), 8.0 * joules / 3_600_000.0);
    assert_eq!(devices[3]["peak_power_w"], 500.0);
}

#[test]
fn a_tool_failing_later_leaves_a_gap() {
    let env = with_smi(H100).env("FAKE_SMI_POWER", "300").env("FAKE_SMI_MODE", "fail-calls:3,4");
    let trace = env.dir.path().join("t.jsonl");
    // At least six readings, the two failures among them.
    let job = until_calls(&env, 8);
    let job: Vec<&str> = job.iter().map(String::as_str).collect();
    let (_, r) = measure(&env, &["--interval", "0.2", "--trace", trace.to_str().unwrap()], &job);
    let g = &r["gpu"];
    assert_eq!(g["missed"], 2);
    assert_eq!(g["status"], "measured");
    let t: Vec<(f64, bool)> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| (v["t"].as_f64().unwrap(), v["ok"].as_bool().unwrap()))
        .collect();
    assert_eq!(t.iter().map(|x| x.1).collect::<Vec<_>>()[..6], [true, true, true, false, false, true]);
    let gap = t[5].0 - t[2].0;
    let covered = g["devices"][0]["covered_s"].as_f64().unwrap();
    close(covered, t.last().unwrap().0.min(r["duration_s"].as_f64().unwrap()) - t[0].0 - gap);
    close(g["energy_kwh"].as_f64().unwrap(), 300.0 * covered / 3_600_000.0);
}

#[test]
fn five_failures_in_a_row_stop_collection_with_one_warning() {
    let env = with_smi(H100).env("FAKE_SMI_POWER", "300").env("FAKE_SMI_MODE", "fail-calls:2,3,4,5,6,7,8,9");
    // The job outlives the seven calls (two good, five failed) by a few intervals, in which none is made.
    let job = until_calls(&env, 7);
    let job = format!("{} && sleep 0.5", job[2]);
    let (out, r) = measure(&env, &["--interval", "0.1"], &["sh", "-c", &job]);
    assert_eq!(r["gpu"]["gave_up"], true);
    assert_eq!(calls(&env), 7, "two good, five failed, then no more");
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("5 times in a row"));
    assert!(r["gpu"]["reason"].as_str().unwrap().contains("not counted"));
}

#[test]
fn a_device_without_power_has_no_energy() {
    let env = with_smi(H200).env("FAKE_SMI_DEVICES", "2").env("FAKE_SMI_POWER", "400").env("FAKE_SMI_MODE", "no-power:1");
    let (_, r) = measure(&env, &["--interval", "0.2"], &["sleep", "0.5"]);
    let d = r["gpu"]["devices"].as_array().unwrap();
    assert!(d[0]["energy_kwh"].as_f64().unwrap() > 0.0);
    assert_eq!(d[1].get("energy_kwh"), Some(&Value::Null));
    // The run's GPU energy is every device's or none's: not measured, and both devices' hours priced by an assumed
    // power, never device 0's alone standing for the run.
    let g = &r["gpu"];
    assert_eq!((g["status"].as_str(), g.get("energy_kwh")), (Some("not measured"), Some(&Value::Null)), "{g}");
    assert!(g["reason"].as_str().unwrap().contains("(1 of 2 devices without energy"), "{g}");
    let hours = g["device_hours"].as_f64().unwrap();
    assert!(hours > 1.5 * d[0]["covered_s"].as_f64().unwrap() / 3600.0, "both devices' hours: {g}");
}

#[test]
fn a_run_shorter_than_one_interval_still_has_a_reading() {
    let env = with_smi(H100).env("FAKE_SMI_POWER", "300");
    let (_, r) = measure(&env, &["--interval", "5"], &["sleep", "0.3"]);
    assert_eq!(r["gpu"]["samples"], 2, "the first at once, the last at exit");
    assert!(r["gpu"]["energy_kwh"].as_f64().unwrap() > 0.0);
    assert!(r["duration_s"].as_f64().unwrap() < 3.0, "exa does not wait for the next tick");
}

#[test]
fn a_hung_nvidia_smi_is_killed_at_the_deadline_while_the_command_runs_on() {
    let env = with_smi(H100).env("FAKE_SMI_POWER", "300").env("FAKE_SMI_MODE", "hang-calls:1").env("EXAMLOPS_NVIDIA_SMI_TIMEOUT", "1");
    let started = Instant::now();
    let (out, r) = measure(&env, &["--interval", "0.2"], &["sh", "-c", "sleep 2.5; echo done"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "done\n");
    assert!(started.elapsed() < Duration::from_secs(8), "{:?}", started.elapsed());
    assert_eq!(r["gpu"]["missed"], 1);
    assert_eq!(r["gpu"]["status"], "measured");
    let ps = Command::new("ps").args(["-eo", "args"]).output().unwrap();
    let mine = env.dir.path().to_str().unwrap().to_string();
    assert!(
        !String::from_utf8_lossy(&ps.stdout).lines().any(|l| l.contains("fake-nvidia-smi") && l.contains(&mine)),
        "the hung nvidia-smi was killed"
    );
}

#[test]
fn a_tool_that_hangs_at_the_end_costs_one_deadline_not_two() {
    // Every call hangs: the reading in flight when the job ends is killed at its deadline, and no second
    // (exit) reading is started after it, so the job's exit waits one deadline at most.
    let env = with_smi(H100).env("FAKE_SMI_MODE", "hang").env("EXAMLOPS_NVIDIA_SMI_TIMEOUT", "2");
    let (out, r) = measure(&env, &["--interval", "0.2"], &["true"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(calls(&env), 1, "one call, killed at its deadline; none started at exit");
    assert_ne!(r["gpu"]["status"], "measured");
    // A healthy tool still gets its reading at exit, under a short deadline of its own.
    let env = with_smi(H100).env("FAKE_SMI_POWER", "300").env("EXAMLOPS_NVIDIA_SMI_TIMEOUT", "2");
    let (_, r) = measure(&env, &["--interval", "5"], &["sleep", "0.3"]);
    assert_eq!(calls(&env), 2, "the first reading and the one at exit");
    assert_eq!(r["gpu"]["status"], "measured");
}

#[test]
fn a_short_run_keeps_its_exit_reading_however_slow_the_tool() {
    // The reading at exit is the second of a run shorter than an interval: without it there is no
    // measurement, so it keeps the full deadline even when the tool takes 3 s to answer.
    let env = Env::new().env("FAKE_SMI_POWER", "300").env("FAKE_SMI_CAPTURE", fixtures().join("gpu").join(H100).to_str().unwrap());
    let count = env.dir.path().join("calls");
    let script = format!(
        "#!/bin/sh\nn=$(cat '{c}' 2>/dev/null || echo 0); echo $((n+1)) > '{c}'\n[ \"$n\" -ge 1 ] && sleep 3\nexec python3 '{f}' \"$@\"\n",
        c = count.display(),
        f = fixtures().join("fake-nvidia-smi").display()
    );
    let wrapper = env.program("slowbin/nvidia-smi", &script);
    let env = env.path_first(wrapper.parent().unwrap());
    let (_, r) = measure(&env, &["--interval", "5"], &["sleep", "0.3"]);
    assert_eq!(r["gpu"]["status"], "measured", "{}", r["gpu"]);
}

#[test]
fn an_answer_is_kept_when_something_the_tool_started_holds_its_stdout() {
    // A wrapper whose helper escapes the process group (setsid) and keeps stdout open after the tool exits.
    let env = Env::new().env("FAKE_SMI_POWER", "321").env("FAKE_SMI_CAPTURE", fixtures().join("gpu").join(H100).to_str().unwrap());
    let fake = fixtures().join("fake-nvidia-smi");
    let script = format!("#!/bin/sh\nsetsid sleep 3 &\nexec python3 '{}' \"$@\"\n", fake.display());
    let wrapper = env.program("wrapbin/nvidia-smi", &script);
    let env = env.path_first(wrapper.parent().unwrap());
    let g = gpu_json(&env);
    assert_eq!(g["devices"][0]["power_w"], 321.0, "the answer the tool gave, though its stdout stayed open: {g}");
}

#[test]
fn cpu_hours_come_from_the_command_itself() {
    let env = with_smi(H100).env("FAKE_SMI_POWER", "300");
    let burn = "import time\nt=time.process_time()\nwhile time.process_time()-t<1.0: pass";
    let (_, r) = measure(&env, &["--interval", "0.5"], &["python3", "-c", burn]);
    let cpu = &r["cpu"];
    let used = cpu["user_s"].as_f64().unwrap() + cpu["system_s"].as_f64().unwrap();
    assert!((0.95..2.0).contains(&used), "{used} s of CPU");
    close(cpu["hours"].as_f64().unwrap(), used / 3600.0);
}

#[test]
fn measured_energy_goes_through_the_providers() {
    let env = with_smi(H100).env("FAKE_SMI_POWER", "600");
    let (_, r) = measure(&env, &["--interval", "0.2", "--power-cost-per-kwh", "0.25"], &["sleep", "0.8"]);
    let kwh = r["gpu"]["energy_kwh"].as_f64().unwrap();
    let hours = r["gpu"]["device_hours"].as_f64().unwrap();
    let c = &r["carbon"];
    assert_eq!(c["coefficients"]["gpu_tdp_watts"]["source"], "measured");
    close(c["coefficients"]["gpu_tdp_watts"]["value"].as_f64().unwrap(), 600.0);
    close(c["inputs"]["gpu_hours"].as_f64().unwrap(), hours);
    close(c["inputs"]["gpu_kwh"].as_f64().unwrap(), kwh);
    let cpu_h = r["cpu"]["hours"].as_f64().unwrap();
    close(c["outputs"]["kwh"].as_f64().unwrap(), (kwh + cpu_h * 120.0 / 1000.0) * 1.5);
    assert_eq!(c["coefficients"]["pue"]["source"], "default");
    close(r["cost"]["outputs"]["cost_usd"].as_f64().unwrap(), hours * 2.5 + cpu_h * 0.05);
    close(r["electricity"]["cost_usd"].as_f64().unwrap(), kwh * 0.25);
    assert_eq!(r["electricity"]["price_per_kwh"]["source"], "flag");
    let (_, r) = measure(&env, &["--interval", "0.2"], &["true"]);
    assert_eq!(r.get("electricity"), Some(&Value::Null), "no price, no electricity cost");
    let env = env.env("EXAMLOPS_POWER_COST_PER_KWH", "0.1");
    let busy = ["sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"];
    let (_, r) = measure(&env, &["--interval", "0.2", "--carbon-provider", "ccf-like"], &busy);
    assert_eq!(r["electricity"]["price_per_kwh"]["source"], "env");
    // A command always uses some CPU, which ccf-like cannot price: the GPU work is priced, and the
    // CPU time left out is stated with its figure, never dropped in silence nor a refusal of the run.
    assert_eq!(r.get("carbon_error"), Some(&Value::Null), "{}", r["carbon_error"]);
    let c = &r["carbon"];
    assert_eq!(c["provider"]["name"], "ccf-like");
    assert_eq!(c["inputs"]["cpu_hours"], 0.0);
    let cpu_s = r["cpu"]["hours"].as_f64().unwrap() * 3600.0;
    let note = c["notes"].as_array().unwrap().iter().find_map(|n| n.as_str().filter(|n| n.contains("not priced"))).unwrap();
    assert!(note.contains(&format!("{cpu_s:.3} CPU-seconds")) && note.contains("'ccf-like' has no CPU-hours term"), "{note}");
    let (gh, gk) = (c["inputs"]["gpu_hours"].as_f64().unwrap(), c["inputs"]["gpu_kwh"].as_f64().unwrap());
    let alone: Value =
        env.json(&["finops", "carbon", "estimate", "--provider", "ccf-like", "--gpu-hours", &gh.to_string(), "--gpu-kwh", &gk.to_string()]);
    close(c["outputs"]["co2e_g"].as_f64().unwrap(), alone["outputs"]["co2e_g"].as_f64().unwrap());
    // The table a person reads says it too.
    let table = env.run(&[&["finops", "measure", "--interval", "0.2", "--carbon-provider", "ccf-like", "--"][..], &busy].concat());
    let said = stderr(&table);
    assert!(said.contains("note: the command's") && said.contains("were not priced: carbon provider 'ccf-like'"), "{said}");
}

#[test]
fn exit_status_passes_through() {
    let env = with_smi(H100).env("FAKE_SMI_POWER", "300");
    let (out, r) = measure(&env, &["--interval", "0.2"], &["sh", "-c", "exit 7"]);
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(r["exit_code"], 7);
    let (out, r) = measure(&env, &["--interval", "0.2"], &["sh", "-c", "kill -KILL $$"]);
    assert_eq!(out.status.code(), Some(137));
    assert_eq!(r["killed_by"], "SIGKILL");
}

fn spawn_measure(env: &Env, report: &Path, cmd: &str) -> std::process::Child {
    env.cmd()
        .args(["-o", "json", "finops", "measure", "--interval", "0.2", "--report", report.to_str().unwrap(), "--", "sh", "-c", cmd])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn signals_reach_the_command_and_the_report_is_still_written() {
    for (sig, name, code) in [(libc_sigterm(), "SIGTERM", 42), (2, "SIGINT", 43)] {
        let env = with_smi(H100).env("FAKE_SMI_POWER", "300");
        let report = env.dir.path().join("r.json");
        let child = spawn_measure(&env, &report, &format!("trap 'kill $!; exit {code}' TERM INT; sleep 30 >/dev/null 2>&1 & wait"));
        std::thread::sleep(Duration::from_millis(1500));
        Command::new("kill").args([format!("-{sig}"), child.id().to_string()]).status().unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let r: Value = crate::common::report_file(&report);
        assert_eq!(r["interrupted"], name);
        assert_eq!(r["exit_code"], code);
        assert!(r["gpu"]["energy_kwh"].as_f64().unwrap() > 0.0);
    }
}

fn libc_sigterm() -> i32 {
    15
}

#[test]
fn the_report_never_mixes_with_the_commands_stdout() {
    let env = with_smi(H100).env("FAKE_SMI_POWER", "300");
    let args = ["-o", "json", "finops", "measure", "--interval", "0.2", "--", "sh", "-c", "echo '{\"job\": 1}'"];
    let out = env.run(&args);
    let job: Value = serde_json::from_slice(&out.stdout).expect("stdout is the command's alone");
    assert_eq!(job["job"], 1);
    // The report is on stderr.
    let report: Value = crate::common::checked(&args, &out.stderr);
    assert_eq!(report["gpu"]["status"], "measured");
}

#[test]
fn measuring_the_node_for_a_duration_reports_on_stdout() {
    let env = with_smi(L40S).env("FAKE_SMI_POWER", "250");
    let args = ["-o", "json", "finops", "measure", "--interval", "0.2", "--duration", "1s"];
    let out = env.run(&args);
    assert_eq!(out.status.code(), Some(0));
    let r: Value = crate::common::checked(&args, &out.stdout);
    assert_eq!(r.get("command"), Some(&Value::Null));
    assert_eq!(r.get("cpu"), Some(&Value::Null));
    assert!((0.9..5.0).contains(&r["duration_s"].as_f64().unwrap()));
    assert!(r["gpu"]["energy_kwh"].as_f64().unwrap() > 0.0);
    let out = env.run(&["finops", "measure", "--duration", "1s", "--", "true"]);
    fails(&out, 2, "--duration");
}

#[test]
fn bad_measure_input() {
    let env = with_smi(H100);
    fails(&env.run(&["finops", "measure", "--interval", "0", "--", "true"]), 2, "too short");
    fails(&env.run(&["finops", "measure", "--interval", "-1", "--", "true"]), 2, "negative");
    fails(&env.run(&["finops", "measure", "--duration", "soon"]), 2, "soon");
    fails(&env.env("EXAMLOPS_GPU_INTERVAL", "fast").run(&["finops", "measure", "--", "true"]), 2, "EXAMLOPS_GPU_INTERVAL");
    let env = with_smi(H100);
    // Each command resolves its own settings: a GPU reader's malformed variable is refused by the commands
    // that read GPUs, and is none of an estimate's or a report's business.
    for var in ["EXAMLOPS_GPU_INTERVAL", "EXAMLOPS_CPU_SOURCE", "EXAMLOPS_SEMCONV"] {
        let bad = env.clone_with(var, "fast");
        fails(&bad.run(&["finops", "measure", "--duration", "1s"]), 2, var);
        let out = bad.run(&["finops", "carbon", "estimate", "--gpu-hours", "1"]);
        assert!(out.status.success(), "{var}: {}", stderr(&out));
    }
    fails(&env.clone_with("EXAMLOPS_GPU_INTERVAL", "fast").run(&["gpu"]), 2, "EXAMLOPS_GPU_INTERVAL");
    fails(&env.run(&["finops", "measure", "--", "/nonexistent/job"]), 1, "cannot run '/nonexistent/job'");
}

#[test]
fn estimate_takes_an_energy_measured_elsewhere() {
    let env = Env::new();
    let e: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "2", "--gpu-kwh", "1.2"]);
    assert_eq!(e["coefficients"]["gpu_tdp_watts"]["value"], 600.0);
    assert_eq!(e["coefficients"]["gpu_tdp_watts"]["source"], "measured");
    close(e["outputs"]["kwh"].as_f64().unwrap(), 1.8);
    let e: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "2", "--gpu-kwh", "1.2", "--provider", "ccf-like"]);
    close(e["coefficients"]["energy_coeff_kwh_per_gpu_hour"]["value"].as_f64().unwrap(), 0.6);
    close(e["outputs"]["kwh"].as_f64().unwrap(), 1.8);
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-kwh", "1.2"]), 2, "needs --gpu-hours");
    // A formula priced on measured energy alone takes it.
    env.config("finops:\n  carbon:\n    provider: expression\n    formulas:\n      kwh: \"gpu_kwh * pue\"\n      co2e_g: \"kwh * 100\"\n");
    let e: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "2", "--gpu-kwh", "1.2"]);
    close(e["outputs"]["kwh"].as_f64().unwrap(), 1.8);
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-hours", "2"]), 1, "no GPU-hours term");
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-hours", "2", "--gpu-kwh", "1", "--gpu-tdp", "300"]), 2, "drop one");
}

#[test]
fn a_measured_run_is_recorded() {
    let env = with_smi(H100).env("FAKE_SMI_POWER", "400");
    let (out, r) = measure(&env, &["--interval", "0.2", "--record", "JPCP", "--run-id", "job-7"], &["sleep", "0.6"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(r["recorded"]["ids"], serde_json::json!([1, 2]));
    let rep: Value = env.json(&["report", "--by", "run"]);
    let g = &rep["groups"][0];
    assert_eq!(g["key"], "job-7");
    assert_eq!(g["runs"], 1);
    close(g["kwh"].as_f64().unwrap(), r["carbon"]["outputs"]["kwh"].as_f64().unwrap());
    close(g["cost_usd"].as_f64().unwrap(), r["cost"]["outputs"]["cost_usd"].as_f64().unwrap());
    close(g["gpu_hours"].as_f64().unwrap(), r["gpu"]["device_hours"].as_f64().unwrap());
    // Without a GPU, a run's CPU work is still recorded.
    let plain = without_smi();
    let (_, r) = measure(&plain, &["--record", "CPUJOB"], &["sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"]);
    assert_eq!(r["recorded"]["ids"].as_array().unwrap().len(), 2);
    let rep: Value = plain.json(&["report", "CPUJOB"]);
    assert_eq!(rep["groups"][0]["gpu_hours"], 0.0);
    assert!(rep["groups"][0]["co2e_g"].as_f64().unwrap() > 0.0);
    // With nothing measured at all, nothing is recorded and the run still succeeds.
    let (out, r) = measure(&plain, &["--record", "IDLE", "--duration", "0.3s"], &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(r.get("recorded"), Some(&Value::Null));
    assert!(r["record_error"].as_str().unwrap().contains("nothing was measured"));
    assert!(stderr(&out).contains("nothing recorded for IDLE"));
    let rep: Value = plain.json(&["report", "IDLE"]);
    assert_eq!(rep["groups"], serde_json::json!([]));
}

#[test]
fn a_live_line_when_stderr_is_a_terminal() {
    // `script` gives exa a terminal; the live line is redrawn in place with carriage returns.
    let env = with_smi(H100).env("FAKE_SMI_POWER", "350");
    let exa = env!("CARGO_BIN_EXE_exa");
    let out = env
        .cmd_for("script")
        .args(["-qec", &format!("{exa} finops measure --interval 0.2 --duration 1s >/dev/null"), "/dev/null"])
        .output()
        .unwrap();
    let seen = String::from_utf8_lossy(&out.stdout);
    assert!(seen.contains("350 W") && seen.contains("kWh") && seen.contains('\r'), "{seen:?}");
    // Without a terminal there is no live line.
    let out = env.run(&["finops", "measure", "--interval", "0.2", "--duration", "1s"]);
    assert!(!stderr(&out).contains('\r'));
}
