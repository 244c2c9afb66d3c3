//! The ledger tells the truth: one measurement is one run, a measurement keeps the CPU work it did not
//! measure, and no figure the hardware could not have made is kept as measured.

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::{fake_smi, measure, stderr, Env};
use crate::cpu::{host, zone};

/// A PATH with the system's tools and no nvidia-smi.
fn without_smi() -> Env {
    Env::new().env("PATH", "/usr/local/bin:/usr/bin:/bin")
}

const BUSY: &str = "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done";

fn runs(env: &Env) -> Vec<Value> {
    env.json::<Value>(&["report", "--by", "run"])["groups"].as_array().unwrap().clone()
}

#[test]
fn one_measurement_recorded_without_a_run_id_is_one_run() {
    // A carbon and a cost record of one measurement: one run, not two (GPU-hours and tokens counted once).
    let env = fake_smi(Env::new(), crate::telemetry::H100).env("FAKE_SMI_POWER", "300");
    let (out, r) = measure(&env, &["--interval", "0.2", "--record", "JPCP", "--tokens", "1000"], &["sh", "-c", BUSY]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let run = r["recorded"]["run_id"].as_str().unwrap_or_else(|| panic!("no run id made: {}", r["recorded"]));
    assert!(run.starts_with("measure-") && run.len() == "measure-".len() + 32, "{run}");
    assert_eq!(r["recorded"]["run_id_from"], "made");
    let groups = runs(&env);
    assert_eq!(groups.len(), 1, "{groups:?}");
    let g = &groups[0];
    assert_eq!((g["key"].as_str(), g["runs"].as_u64()), (Some(run), Some(1)), "{g}");
    assert_eq!((g["records"]["carbon"].as_u64(), g["records"]["cost"].as_u64()), (Some(1), Some(1)), "{g}");
    let by_model: Value = env.json(&["report", "--by", "model"]);
    assert_eq!(by_model["groups"][0]["runs"], 1, "{by_model}");
    assert_eq!(by_model["groups"][0]["tokens"], 1000.0, "tokens once: {by_model}");
    // Two measurements are two runs, each its own id.
    let (_, again) = measure(&env, &["--interval", "0.2", "--record", "JPCP"], &["true"]);
    assert_ne!(again["recorded"]["run_id"], r["recorded"]["run_id"]);
    assert_eq!(runs(&env).len(), 2);
    // A run id given is the one used, and said so; the table says which run was recorded.
    let (_, given) = measure(&env, &["--interval", "0.2", "--record", "JPCP", "--run-id", "job-7"], &["true"]);
    assert_eq!((given["recorded"]["run_id"].as_str(), given["recorded"]["run_id_from"].as_str()), (Some("job-7"), Some("given")));
    let table = env.run(&["finops", "measure", "--interval", "0.2", "--record", "JPCP", "--", "true"]);
    assert!(stderr(&table).contains("for JPCP as run measure-"), "{}", stderr(&table));
}

#[test]
fn a_measurement_without_a_command_holds_the_cpu_work_it_is_told_of() {
    // The Slurm prolog's measurement: no command, the job's 4 CPUs. Its CPU-hours are 4 times its length.
    let env = without_smi().env("TZ", "UTC");
    let (out, r) = measure(&env, &["--record", "train", "--run-id", "slurm:c1:5", "--cpus", "4", "--duration", "1s"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let hours = r["cpu"]["hours"].as_f64().unwrap_or_else(|| panic!("no CPU-hours: {r}"));
    let duration = r["duration_s"].as_f64().unwrap();
    assert!((hours - 4.0 * duration / 3600.0).abs() < 1e-9, "{hours} for {duration} s");
    assert_eq!(r["cpu"]["user_s"], Value::Null, "CPUs held, not CPU time: {}", r["cpu"]);
    // The import of the same job keeps its CPU-core-hours: the measurement that supersedes the estimate has them.
    let line = "5|5|train|u|acc|gpu|c1|COMPLETED|2026-11-02T10:00:00|2026-11-02T12:00:00|7200|4|28800|billing=4,cpu=4,node=1|0";
    let header =
        "JobID|JobIDRaw|JobName|User|Account|Partition|Cluster|State|Start|End|ElapsedRaw|NCPUS|CPUTimeRAW|AllocTRES|ConsumedEnergyRaw";
    let file = env.file("sacct.txt", &format!("{header}\n{line}\n"));
    let imported = env.run(&["import", "slurm", "--file", file.to_str().unwrap()]);
    assert_eq!(imported.status.code(), Some(0), "{}", stderr(&imported));
    let groups = runs(&env);
    assert_eq!(groups.len(), 1, "{groups:?}");
    assert_eq!(groups[0]["runs_measured"], 1);
    assert!(groups[0]["cpu_hours"].as_f64().unwrap() > 0.0, "the CPU work dropped: {}", groups[0]);
    assert!(groups[0]["co2e_g"].as_f64().unwrap() > 0.0, "{}", groups[0]);
    // --cpus takes a number of CPUs; --pid a process that is there.
    crate::common::fails(&env.run(&["finops", "measure", "--cpus", "0", "--duration", "1s"]), 2, "'0' is not a number of CPUs");
    crate::common::fails(
        &env.run(&["finops", "measure", "--pid", "4294967295", "--duration", "1s"]),
        2,
        "--pid 4294967295: no such process",
    );
}

#[test]
fn a_measurement_of_a_process_holds_its_cpu_time() {
    // The Python API's measurement: its own process, busy for the run.
    let env = without_smi();
    let mut busy = Command::new("sh").args(["-c", "while :; do :; done"]).stdout(Stdio::null()).spawn().unwrap();
    let pid = busy.id().to_string();
    let (out, r) = measure(&env, &["--record", "py", "--pid", &pid, "--duration", "1s"], &[]);
    let _ = busy.kill();
    let _ = busy.wait();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let cpu = &r["cpu"];
    assert!(cpu["hours"].as_f64().unwrap() > 0.0 && cpu["user_s"].as_f64().unwrap() > 0.0, "{cpu}");
    assert!(cpu["source"].as_str().unwrap().contains(&format!("process {pid}")), "{cpu}");
    assert!(runs(&env)[0]["cpu_hours"].as_f64().unwrap() > 0.0);
}

#[test]
fn an_energy_counter_read_no_cpu_can_make_is_never_recorded_as_measured() {
    // One read of 18446744073709551000 µJ during a short job: 18 TJ, where the 7.7 GWh came from.
    let (env, root) = host(Env::new(), "intel-xeon-2s", "0");
    let set = format!("{BUSY}; echo 18446744073709551000 > {}", zone(&root, "intel-rapl:0"));
    let (out, r) = measure(&env, &["--interval", "0.2", "--record", "M"], &["sh", "-c", &set]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let e = &r["cpu_energy"];
    assert_eq!(e["status"], "not measured", "{e}");
    assert!(e["reason"].as_str().unwrap().contains("more than it can draw"), "{e}");
    // The estimate stands: the CPU-hours priced by an assumed power, and the ledger holds no gigawatt-hours.
    assert_ne!(r["carbon"]["coefficients"]["cpu_tdp_watts"]["source"], "measured", "{}", r["carbon"]);
    let kwh = runs(&env)[0]["kwh"].as_f64().unwrap();
    assert!(kwh < 0.001, "{kwh} kWh recorded for a job of a moment");
}

#[test]
fn counters_that_never_move_are_no_measurement() {
    // A powercap tree whose counters stand still (a copy of a host's, say) over a run of a second or more.
    let (env, _root) = host(Env::new(), "intel-xeon-2s", "0");
    let (out, r) = measure(&env, &["--interval", "0.2", "--record", "M"], &["sleep", "1.5"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let e = &r["cpu_energy"];
    assert_eq!(e["status"], "not measured", "{e}");
    assert!(e["reason"].as_str().unwrap().contains("never moved"), "{e}");
}

#[test]
fn a_gpu_power_reading_beyond_the_device_is_not_energy() {
    // An H100 read at 5 kW: not a reading of the hardware, never integrated into kWh.
    let env = fake_smi(Env::new(), crate::telemetry::H100).env("FAKE_SMI_POWER", "5000");
    let (out, r) = measure(&env, &["--interval", "0.2", "--record", "M"], &["sleep", "0.6"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let g = &r["gpu"];
    assert_eq!(g["status"], "not measured", "{g}");
    assert_eq!(g["energy_kwh"], Value::Null, "{g}");
    assert!(g["reason"].as_str().unwrap().contains("beyond what it can draw"), "{g}");
    assert!(g["devices"][0]["refused"].as_str().unwrap().contains("2000 W, more than any GPU draws"), "{g}");
}
