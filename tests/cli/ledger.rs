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
    assert_eq!(r["cpu"].get("user_s"), Some(&Value::Null), "CPUs held, not CPU time: {}", r["cpu"]);
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
fn a_measurement_without_the_jobs_cpu_work_never_drops_it_from_the_import() {
    // A ledger's measurement of the GPUs alone (the prolog before it passed --cpus): no CPU-hours. The job's import
    // holds 8 CPU-core-hours; the measurement does not supersede it, and the report says why.
    let env = fake_smi(Env::new(), crate::telemetry::H100).env("FAKE_SMI_POWER", "300").env("TZ", "UTC");
    let (out, r) = measure(&env, &["--interval", "0.2", "--record", "train", "--run-id", "slurm:c1:6", "--duration", "1s"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(r["gpu"]["energy_kwh"].as_f64().unwrap() > 0.0, "{}", r["gpu"]);
    assert_eq!(r["cpu"]["hours"].as_f64().unwrap_or(0.0), 0.0, "{}", r["cpu"]);
    let line = "6|6|train|u|acc|gpu|c1|COMPLETED|2026-11-02T10:00:00|2026-11-02T12:00:00|7200|4|28800|billing=4,cpu=4,gres/gpu=1,node=1|0";
    let header =
        "JobID|JobIDRaw|JobName|User|Account|Partition|Cluster|State|Start|End|ElapsedRaw|NCPUS|CPUTimeRAW|AllocTRES|ConsumedEnergyRaw";
    let file = env.file("sacct.txt", &format!("{header}\n{line}\n"));
    let imported = env.run(&["import", "slurm", "--file", file.to_str().unwrap()]);
    assert_eq!(imported.status.code(), Some(0), "{}", stderr(&imported));
    let report = env.json::<Value>(&["report", "--by", "run"]);
    let g = &report["groups"][0];
    assert_eq!((g["gpu_hours"].as_f64(), g["cpu_hours"].as_f64()), (Some(2.0), Some(8.0)), "the CPU work dropped: {g}");
    assert!(g["co2e_g"].as_f64().unwrap() > 0.0 && g["cost_usd"].as_f64().unwrap() > 0.0, "{g}");
    assert_eq!(g["runs_measured"], 0, "{g}");
    let notes = report["notes"].to_string();
    assert!(notes.contains("without the GPU or CPU work the estimate holds does not supersede it"), "{notes}");
    // By model (the summary cells) the same hours.
    let by_model = env.json::<Value>(&["report"]);
    assert_eq!(by_model["totals"]["cpu_hours"].as_f64(), Some(8.0), "{by_model}");
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
fn a_measurement_of_a_process_ends_with_it_and_keeps_its_cpu_time() {
    // The process waits for the run to start (its trace's first line, written after the process is first read),
    // is busy, then ends long before the run's --duration: the run ends with it, holding its CPU time.
    let env = without_smi();
    let trace = env.dir.path().join("t.jsonl");
    let busy = format!("until [ -s {} ]; do sleep 0.05; done; i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done", trace.display());
    let mut child = Command::new("sh").args(["-c", &busy]).stdout(Stdio::null()).spawn().unwrap();
    let pid = child.id().to_string();
    let (out, r) = measure(&env, &["--record", "py", "--pid", &pid, "--duration", "600s", "--trace", trace.to_str().unwrap()], &[]);
    let _ = child.wait();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(r["duration_s"].as_f64().unwrap() < 600.0, "the run outlived its process: {r}");
    let cpu = &r["cpu"];
    assert!(cpu["user_s"].as_f64().unwrap() > 0.0, "the CPU time it had used was lost: {cpu}");
    assert!(cpu["source"].as_str().unwrap().contains("until it ended"), "{cpu}");
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
    let job = crate::common::until_calls(&env, 4);
    let (out, r) = measure(&env, &["--interval", "0.2", "--record", "M"], &["sh", "-c", &job]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let g = &r["gpu"];
    assert_eq!(g["status"], "not measured", "{g}");
    assert_eq!(g.get("energy_kwh"), Some(&Value::Null), "{g}");
    assert!(g["reason"].as_str().unwrap().contains("beyond what it can draw"), "{g}");
    assert!(g["devices"][0]["refused"].as_str().unwrap().contains("2000 W, more than any GPU draws"), "{g}");
    // The device's work stays in the run: its hours priced by an assumed power, never dropped from the record.
    assert!(g["reason"].as_str().unwrap().contains("device-hours are priced by an assumed power"), "{g}");
    let hours = g["device_hours"].as_f64().unwrap_or_else(|| panic!("no device-hours: {g}"));
    assert!(hours > 0.0 && hours <= r["duration_s"].as_f64().unwrap() / 3600.0, "{hours}");
    assert_ne!(r["carbon"]["coefficients"]["gpu_tdp_watts"]["source"], "measured", "{}", r["carbon"]);
    let run = &runs(&env)[0];
    assert!((run["gpu_hours"].as_f64().unwrap() - hours).abs() < 1e-9, "{run}");
    assert!(run["kwh"].as_f64().unwrap() < 0.001, "{run}");
}

#[test]
fn a_report_per_unit_says_which_count_is_missing() {
    let env = Env::new();
    let out = env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let per = env.run(&["report", "--per", "widgets"]);
    let said = crate::common::stdout(&per);
    assert!(said.contains("no run with a widgets count"), "{said}");
    assert!(!said.contains("no records"), "the store has records: {said}");
    // A count that would make a figure per unit infinite is no count.
    crate::common::fails(
        &env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1", "--tokens", "5e-324"]),
        2,
        "less than a millionth",
    );
}

#[test]
fn urls_are_whole_and_malformed_ones_are_usage_errors() {
    let env = without_smi();
    let out = env.run(&["finops", "measure", "--tokens-from", "http://127.0.0.1:99999/x", "--", "true"]);
    crate::common::fails(&out, 2, "--tokens-from: not an http:// or https:// URL with a host: invalid port number");
    // A line break in a URL never forges a line of its own.
    let out = env.run(&["finops", "measure", "--push-gateway", "http://h/\nerror: forged", "--", "true"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().filter(|l| l.starts_with("error:")).count(), 1, "{}", stderr(&out));
    assert!(!stderr(&out).contains("forged"), "{}", stderr(&out));
}

#[test]
fn a_hand_written_row_is_read_plainly_and_copied_once() {
    let env = Env::new();
    let db = env.dir.path().join("hand.sqlite3");
    let d = db.to_str().unwrap();
    let out = env.run(&["--db", d, "finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Written by hand, as a site's script might: an escape in its model, no idempotency key.
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(
        "INSERT INTO records (model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest, gpu_hours, cpu_hours,
            kwh, co2e_g, cost_usd, uncertainty, measured, part)
         VALUES ('e' || char(27) || '[31mvil', 'hand-1', 1790000000, 'h', 'carbon', 'green-ai-default', 'builtin', 'd', 2, 0, 1.2, 360, NULL, 0.3, 0, 0);",
    )
    .unwrap();
    drop(c);
    let csv = env.run(&["--db", d, "-o", "csv", "report"]);
    assert_eq!(csv.status.code(), Some(0), "{}", stderr(&csv));
    assert!(!csv.stdout.contains(&0x1b), "a raw escape in the CSV: {}", crate::common::stdout(&csv));
    let to = env.dir.path().join("copy.sqlite3");
    let copy = |what: &str| {
        let args: &[&str] = &["-o", "json", "db", "copy", "--from", d, "--to", to.to_str().unwrap()];
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
        crate::common::answer::<Value>(args, &out)
    };
    assert_eq!(copy("first")["copied"], 2);
    let again = copy("again");
    assert_eq!((again["copied"].as_u64(), again["already_there"].as_u64()), (Some(0), Some(2)), "{again}");
}

#[test]
fn exas_own_terms_are_shown_with_the_settings_and_an_exported_co2_beside_a_region_is_said() {
    let env = without_smi();
    env.config("finops:\n  carbon:\n    coefficients:\n      embodied_gpu_kg: 180\n      wue_l_per_kwh: 1.8\n");
    let c: Value = env.json(&["config", "show"]);
    let coefs = &c["carbon"]["coefficients"];
    assert_eq!(
        (coefs["embodied_gpu_kg"]["value"].as_f64(), coefs["embodied_gpu_kg"]["source"].as_str()),
        (Some(180.0), Some("config")),
        "{c}"
    );
    assert_eq!(coefs["wue_l_per_kwh"]["value"], 1.8, "{c}");
    assert_eq!(coefs["embodied_lifetime_years"]["source"], "default", "{c}");
    // A provider's page shows them too, beside the provider's own coefficients: they price every carbon estimate.
    let shown: Value = env.json(&["finops", "carbon", "show", "green-ai-default"]);
    let terms = &shown["exa_terms"];
    assert_eq!((terms["embodied_gpu_kg"]["value"].as_f64(), terms["wue_l_per_kwh"]["value"].as_f64()), (Some(180.0), Some(1.8)), "{shown}");
    let table = crate::common::stdout(&env.run(&["finops", "carbon", "show", "green-ai-default"]));
    assert!(table.contains("wue_l_per_kwh") && table.contains("exa's own terms"), "{table}");
    let env = env.env("EXAMLOPS_GRID_REGION", "FR");
    let out = env.run(&["finops", "measure", "--co2", "--duration", "1s"]);
    assert!(stderr(&out).contains("not the grid of region FR"), "{}", stderr(&out));
}

#[test]
fn the_measurement_that_counts_must_hold_the_estimates_work_not_an_older_one() {
    // An estimate of 1 GPU-hour and 1 CPU-hour; a measurement holding both; a later one holding the GPU only.
    // The later measurement is the one that would count, and it lacks the CPU work: the estimate counts.
    let env = Env::new();
    let db = env.dir.path().join("l.sqlite3");
    drop(exa::store::open(&exa::store::Db::Sqlite(db.clone())).unwrap());
    let c = rusqlite::Connection::open(&db).unwrap();
    for (id, measured, cpu) in [(1, false, 1.0), (2, true, 1.0), (3, true, 0.0)] {
        c.execute(
            "INSERT INTO records (id, model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest,
                                  gpu_hours, cpu_hours, kwh, co2e_g, uncertainty, measured, part, idem_key)
             VALUES (?1, 'M', 'r', 1790000000, 'h', 'carbon', 'p', 'builtin', 'd', 1.0, ?2, 1.0, 300.0, 0.3, ?3, 0, 'k' || ?1)",
            rusqlite::params![id, cpu, measured],
        )
        .unwrap();
    }
    drop(c);
    let r: Value = env.json(&["--db", db.to_str().unwrap(), "report", "--by", "run"]);
    let g = &r["groups"][0];
    assert_eq!((g["cpu_hours"].as_f64(), g["runs_measured"].as_u64()), (Some(1.0), Some(0)), "{r}");
    assert!(r["notes"].to_string().contains("counted #1: a measurement without the GPU or CPU work"), "{r}");
}
