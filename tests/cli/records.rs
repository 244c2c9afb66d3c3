//! `record` and `exa report` against a real SQLite store.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::common::{close, fails, stderr, stdout, Env};

fn db(env: &Env) -> PathBuf {
    env.dir.path().join("data/examlops/records.sqlite3")
}

/// Runs a Python snippet against the database with the sqlite3 module; `sys.argv[1]` is its path.
fn sql(path: &Path, script: &str) -> String {
    let out = Command::new("python3")
        .args(["-c", &format!("import sqlite3, sys, json\nc = sqlite3.connect(sys.argv[1])\n{script}")])
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "python: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn report(env: &Env, args: &[&str]) -> Value {
    let mut all = vec!["report"];
    all.extend_from_slice(args);
    env.json(&all)
}

#[test]
fn carbon_and_cost_records_round_trip() {
    let env = Env::new();
    let r: Value = env.json(&["finops", "carbon", "record", "JPCP", "--gpu-hours", "12", "--run-id", "3f2a"]);
    assert_eq!(r["model"], "JPCP");
    assert_eq!(r["run_id"], "3f2a");
    assert_eq!(r["id"], 1);
    close(r["estimate"]["outputs"]["co2e_g"].as_f64().unwrap(), 2160.0);
    env.json::<Value>(&["finops", "cost", "record", "JPCP", "--gpu-hours", "12", "--cpu-hours", "32", "--run-id", "3f2a"]);
    env.json::<Value>(&["finops", "carbon", "record", "JPCP", "--cpu-hours", "32"]);
    let rep = report(&env, &[]);
    let g = &rep["groups"][0];
    assert_eq!(g["key"], "JPCP");
    assert_eq!(g["runs"], 2, "the two records of run 3f2a are one run");
    assert_eq!(g["records"]["carbon"], 2);
    assert_eq!(g["records"]["cost"], 1);
    close(g["gpu_hours"].as_f64().unwrap(), 12.0);
    close(g["cpu_hours"].as_f64().unwrap(), 64.0);
    close(g["kwh"].as_f64().unwrap(), 7.2 + 5.76);
    close(g["co2e_g"].as_f64().unwrap(), 2160.0 + 1728.0);
    close(g["co2e_range_g"][0].as_f64().unwrap(), (2160.0 + 1728.0) * 0.7);
    close(g["co2e_range_g"][1].as_f64().unwrap(), (2160.0 + 1728.0) * 1.3);
    close(g["cost_usd"].as_f64().unwrap(), 30.0 + 1.6);
    assert_eq!(g["currency"], "USD");
    // Everything needed to audit a record is stored with it.
    let row = sql(&db(&env), "r = c.execute('select host, provider, provider_kind, provider_digest, estimate from records join record_estimate_json on record_id = id where id = 1').fetchone()\nprint(json.dumps([r[0], r[1], r[2], r[3], json.loads(r[4])]))");
    let row: Value = serde_json::from_str(&row).unwrap();
    assert!(!row[0].as_str().unwrap().is_empty());
    assert_eq!(row[1], "green-ai-default");
    assert_eq!(row[2], "builtin");
    assert!(row[3].as_str().unwrap().starts_with("fnv1a64:"));
    assert_eq!(row[4]["coefficients"]["pue"]["source"], "default");
}

#[test]
fn nothing_recorded_is_not_measured_never_zero() {
    let env = Env::new();
    let rep = report(&env, &[]);
    assert_eq!(rep["groups"], serde_json::json!([]));
    assert_eq!(rep["totals"].get("kwh"), Some(&Value::Null));
    assert_eq!(rep["totals"].get("co2e_g"), Some(&Value::Null));
    assert!(!db(&env).exists(), "reporting creates no database");
    let out = env.run(&["report", "NEVER-RECORDED"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("not measured"), "{}", stdout(&out));
    assert!(!stdout(&out).contains("0.000"), "{}", stdout(&out));
    // A model with only cost records has no carbon: not measured.
    env.json::<Value>(&["finops", "cost", "record", "BILLING", "--gpu-hours", "5"]);
    env.json::<Value>(&["finops", "carbon", "record", "JPCP", "--gpu-hours", "5"]);
    let rep = report(&env, &["BILLING"]);
    assert_eq!(rep["groups"][0].get("co2e_g"), Some(&Value::Null));
    assert_eq!(rep["groups"][0].get("kwh"), Some(&Value::Null));
    let rep = report(&env, &["NEVER-RECORDED"]);
    assert_eq!(rep["groups"], serde_json::json!([]));
    assert_eq!(rep["totals"].get("co2e_g"), Some(&Value::Null));
    let out = env.run(&["report"]);
    assert!(stdout(&out).contains("not measured"), "{}", stdout(&out));
}

#[test]
fn refusals_write_nothing() {
    let env = Env::new();
    fails(&env.run(&["finops", "carbon", "record", "JPCP"]), 2, "nothing to estimate");
    fails(&env.run(&["finops", "carbon", "record", "JPCP", "--cpu-hours", "32", "--provider", "ccf-like"]), 1, "no CPU-hours term");
    fails(&env.run(&["finops", "carbon", "record", "", "--gpu-hours", "1"]), 2, "model");
    assert!(!db(&env).exists(), "no database was created");
    env.json::<Value>(&["finops", "carbon", "record", "JPCP", "--gpu-hours", "1"]);
    fails(&env.run(&["finops", "carbon", "record", "JPCP", "--cpu-hours", "32", "--provider", "codecarbon-like"]), 1, "no CPU-hours term");
    assert_eq!(sql(&db(&env), "print(c.execute('select count(*) from records').fetchone()[0])"), "1");
}

#[test]
fn filters_and_grouping() {
    let env = Env::new();
    env.json::<Value>(&["finops", "carbon", "record", "A", "--gpu-hours", "1", "--run-id", "r1"]);
    // Backdate copies of that record to known days (2026-10-31, 2026-11-01, 2026-11-02 at noon UTC).
    sql(
        &db(&env),
        "cols = 'model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest, gpu_hours, cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, duration_s, device_count, measured_kwh'\n\
         for (m, run, t, prov) in [('A', 'r2', 1793448000, 'green-ai-default'), ('B', 'r3', 1793534400, 'ccf-like'), ('B', 'r4', 1793620800, 'ccf-like')]:\n\
         \x20   cur = c.execute(f\"insert into records ({cols}) select ?, ?, ?, host, domain, ?, provider_kind, provider_digest, gpu_hours, cpu_hours, kwh, co2e_g, cost_usd, uncertainty, measured, duration_s, device_count, measured_kwh from records where id = 1\", (m, run, t, prov))\n\
         \x20   c.execute('insert into record_estimates (record_id, estimate, shape_id) select ?, estimate, shape_id from record_estimates where record_id = 1', (cur.lastrowid,))\n\
         c.commit()",
    );
    let rep = report(&env, &["--since", "2026-11-01", "--until", "2026-11-01"]);
    assert_eq!(rep["groups"].as_array().unwrap().len(), 1);
    assert_eq!(rep["groups"][0]["key"], "B");
    assert_eq!(rep["groups"][0]["runs"], 1);
    let rep = report(&env, &["B"]);
    assert_eq!(rep["groups"][0]["runs"], 2);
    let rep = report(&env, &["--by", "day", "--until", "2026-11-02T00:00:00Z"]);
    let keys: Vec<&str> = rep["groups"].as_array().unwrap().iter().map(|g| g["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["2026-10-31", "2026-11-01"]);
    let rep = report(&env, &["--by", "provider"]);
    let keys: Vec<&str> = rep["groups"].as_array().unwrap().iter().map(|g| g["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["ccf-like", "green-ai-default"]);
    let rep = report(&env, &["--by", "run"]);
    assert_eq!(rep["groups"].as_array().unwrap().len(), 4);
    assert_eq!(rep["totals"]["runs"], 4);
    close(rep["totals"]["co2e_g"].as_f64().unwrap(), 4.0 * 180.0);
    fails(&env.run(&["report", "--since", "last week"]), 2, "--since");
}

#[test]
fn csv_for_spreadsheets() {
    let env = Env::new();
    env.json::<Value>(&["finops", "carbon", "record", "JPCP", "--gpu-hours", "12"]);
    env.json::<Value>(&["finops", "cost", "record", "tricky, \"name\"", "--gpu-hours", "2"]);
    let out = env.run(&["-o", "csv", "report"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "key,runs,gpu_hours,cpu_hours,kwh,co2e_g,co2e_low_g,co2e_high_g,cost_usd,currency,carbon_records,cost_records,embodied_co2e_g,water_l,tokens,prompt_tokens,requests,node_kwh,node_rest_kwh,coverage_pct");
    // The embodied CO2e of 12 GPU-hours at CCF's defaults: (12 x 150 + 12/8 x 2499.125) x 1000 / 35,040.
    assert_eq!(lines[1], "JPCP,1,12,0,7.2,2160,1512,2808,,USD,1,0,158.352953767123,,,,,,,");
    assert_eq!(lines[2], "\"tricky, \"\"name\"\"\",1,2,0,,,,,5,USD,0,1,,,,,,,,");
    fails(&env.run(&["-o", "csv", "finops", "carbon", "providers"]), 2, "-o csv is for `exa report`");
}

#[test]
fn a_file_that_is_not_sqlite_or_from_a_newer_exa_is_left_alone() {
    let env = Env::new();
    let path = env.file("not-a-db.sqlite3", "these are my notes, not a database\n");
    let before = std::fs::read(&path).unwrap();
    let out = env.run(&["--db", path.to_str().unwrap(), "finops", "carbon", "record", "JPCP", "--gpu-hours", "1"]);
    fails(&out, 2, "not an exa database");
    fails(&env.run(&["--db", path.to_str().unwrap(), "report"]), 2, "not an exa database");
    assert_eq!(std::fs::read(&path).unwrap(), before);

    let newer = env.dir.path().join("newer.sqlite3");
    sql(&newer, "c.execute('create table records (id integer)')\nc.execute('pragma user_version = 99')\nc.commit()");
    let before = std::fs::read(&newer).unwrap();
    let env = env.env("EXAMLOPS_DB", newer.to_str().unwrap());
    fails(&env.run(&["finops", "carbon", "record", "JPCP", "--gpu-hours", "1"]), 2, "schema version 99");
    assert_eq!(std::fs::read(&newer).unwrap(), before);

    let foreign = Env::new();
    let other = foreign.dir.path().join("other.sqlite3");
    sql(&other, "c.execute('create table notes (t text)')\nc.commit()");
    let foreign = foreign.env("EXAMLOPS_DB", other.to_str().unwrap());
    fails(&foreign.run(&["report"]), 2, "exa did not create");
}

#[test]
fn records_are_append_only() {
    let env = Env::new();
    env.json::<Value>(&["finops", "carbon", "record", "JPCP", "--gpu-hours", "1"]);
    let out = sql(
        &db(&env),
        "try:\n    c.execute('update records set co2e_g = 0')\n    print('updated')\nexcept sqlite3.DatabaseError as e:\n    print(e)",
    );
    assert_eq!(out, "records are append-only");
    assert_eq!(sql(&db(&env), "print(c.execute('pragma user_version').fetchone()[0])"), exa::store::SCHEMA_VERSION.to_string());
}

#[test]
fn thirty_two_processes_recording_at_once() {
    let env = Env::new();
    let exa = env!("CARGO_BIN_EXE_exa");
    let children: Vec<_> = (0..32)
        .map(|p| {
            Command::new("sh")
                .args(["-c", &format!("for i in $(seq 50); do \"$0\" -o json finops carbon record M{} --gpu-hours 1 --run-id p{p}-$i >/dev/null || exit 1; done", p % 4)])
                .arg(exa)
                .envs(env.cmd().get_envs().filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && !err.contains("locked"), "{err}");
    }
    let rep = report(&env, &[]);
    assert_eq!(rep["totals"]["records"]["carbon"], 1600);
    assert_eq!(rep["totals"]["runs"], 1600);
    assert_eq!(sql(&db(&env), "print(c.execute('select count(*) from records').fetchone()[0])"), "1600");
}

#[test]
fn a_kill_mid_write_leaves_the_store_intact() {
    let env = Env::new();
    env.json::<Value>(&["finops", "carbon", "record", "JPCP", "--gpu-hours", "1"]);
    let mut finished = 1;
    for i in 0..40u64 {
        let mut child = env
            .cmd()
            .args(["finops", "carbon", "record", "JPCP", "--gpu-hours", "1"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(500 + (i * 7919) % 6000));
        let _ = child.kill();
        if child.wait().unwrap().success() {
            finished += 1;
        }
    }
    assert_eq!(sql(&db(&env), "print(c.execute('pragma integrity_check').fetchone()[0])"), "ok");
    let rows: usize = sql(&db(&env), "print(c.execute('select count(*) from records').fetchone()[0])").parse().unwrap();
    assert!((finished..=41).contains(&rows), "{rows} rows, {finished} finished");
    // Every row that is there is whole.
    let whole = sql(
        &db(&env),
        "rows = c.execute('select j.estimate, r.co2e_g from records r left join record_estimate_json j on j.record_id = r.id').fetchall()\nprint(all(e is not None and json.loads(e)['outputs']['co2e_g'] == co2 for e, co2 in rows))",
    );
    assert_eq!(whole, "True");
    let rep = report(&env, &[]);
    assert_eq!(rep["totals"]["records"]["carbon"].as_u64().unwrap() as usize, rows);
    assert!(stderr(&env.run(&["report"])).is_empty());
}

/// `sacct -P` output of `n` finished jobs, one allocation and its batch step each.
fn sacct_jobs(n: u32) -> String {
    let mut out =
        String::from("JobID|JobIDRaw|JobName|User|Account|Partition|Cluster|State|Start|End|ElapsedRaw|NCPUS|CPUTimeRAW|AllocTRES\n");
    for i in 0..n {
        let (id, end) = (1000 + i, 1_790_000_000 + i64::from(i) * 7);
        let when = |t: i64| exa::time::iso8601(t).trim_end_matches('Z').to_string();
        let (s, e) = (when(end - 3600), when(end));
        out.push_str(&format!(
            "{id}|{id}|job{}|u{}|acct|gpu|c1|COMPLETED|{s}|{e}|3600|4|14400|billing=4,cpu=4,gres/gpu={},node=1\n",
            i % 5,
            i % 7,
            1 + i % 4
        ));
        out.push_str(&format!("{id}.batch|{id}.batch|batch||acct||c1|COMPLETED|{s}|{e}|3600|4|14400|cpu=4,node=1\n"));
    }
    out
}

#[test]
fn a_first_import_killed_mid_write_leaves_the_ledger_as_it_was() {
    let env = Env::new().env("TZ", "UTC");
    let file = env.file("sacct.txt", &sacct_jobs(8000));
    let file = file.to_str().unwrap();
    let journal = db(&env).with_file_name("records.sqlite3-journal");
    // A journal that holds a write: SQLite's magic number first (zeroes once the write is done).
    let holds_a_write = || std::fs::read(&journal).is_ok_and(|b| b.starts_with(&[0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]));
    env.json::<Value>(&["db", "migrate"]);
    // A first import into an empty ledger, alone with it, writes through a rollback journal: killed while the
    // journal holds the write, it leaves the write mid-way.
    let mut child = env.cmd().args(["import", "slurm", "--file", file]).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let started = std::time::Instant::now();
    let killed = loop {
        if holds_a_write() {
            let _ = child.kill();
            break true;
        }
        if child.try_wait().unwrap().is_some() {
            break false;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "the import neither wrote nor finished");
        std::thread::sleep(Duration::from_millis(1));
    };
    let finished = child.wait().unwrap().success();
    if killed && !finished {
        // A reader puts the ledger back as it was (empty) before it reads.
        let rep = report(&env, &[]);
        assert_eq!(rep["totals"]["records"]["carbon"], 0, "{rep}");
        assert!(!holds_a_write(), "the journal is played back");
        let again = env.json::<Value>(&["import", "slurm", "--file", file]);
        assert_eq!((again["imported"].as_u64(), again["already_there"].as_u64()), (Some(8000), Some(0)), "{again}");
    }
    // Whole, and back in the WAL, so that many writers can come again.
    assert_eq!(sql(&db(&env), "print(c.execute('pragma journal_mode').fetchone()[0])"), "wal");
    assert_eq!(sql(&db(&env), "print(c.execute('pragma integrity_check').fetchone()[0])"), "ok");
    assert_eq!(sql(&db(&env), "print(c.execute('select count(*) from records').fetchone()[0])"), "16000");
    let rep = report(&env, &["--by", "user"]);
    assert_eq!((rep["totals"]["runs"].as_u64(), rep["groups"].as_array().map(Vec::len)), (Some(8000), Some(7)), "{rep}");
    assert!(!holds_a_write());
}

/// Every number as a float, so that 400 and 400.0 compare equal.
fn floats(v: Value) -> Value {
    match v {
        Value::Number(n) => serde_json::json!(n.as_f64().unwrap()),
        Value::Array(a) => Value::Array(a.into_iter().map(floats).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, floats(v))).collect()),
        other => other,
    }
}

#[test]
fn an_imported_jobs_estimate_is_what_estimate_says_for_its_hours() {
    // The importer prices a million jobs alike from what it worked out once; each must still be the very
    // estimate `exa finops ... estimate` gives for the job's hours, with the grid region's intensity and notes.
    let env = Env::new().env("TZ", "UTC").env("EXAMLOPS_GRID_REGION", "DE").env("GPU_COST_PER_HOUR", "3.25");
    let file = env.file("sacct.txt", &sacct_jobs(4));
    env.json::<Value>(&["import", "slurm", "--file", file.to_str().unwrap()]);
    let stored = sql(
        &db(&env),
        "print(json.dumps([json.loads(e) for (e,) in c.execute('select estimate from record_estimate_json order by record_id')]))",
    );
    let stored: Vec<Value> = serde_json::from_str(&stored).unwrap();
    assert_eq!(stored.len(), 8);
    for e in stored {
        let hours = |k: &str| e["inputs"][k].as_f64().unwrap().to_string();
        let domain = e["domain"].as_str().unwrap().to_string();
        let asked =
            env.json::<Value>(&["finops", &domain, "estimate", "--gpu-hours", &hours("gpu_hours"), "--cpu-hours", &hours("cpu_hours")]);
        assert_eq!(floats(e.clone()), floats(asked), "{domain}");
        // What the environment set, as the record says it.
        let (got, want) = match domain.as_str() {
            "carbon" => ((&e["grid"]["zone"], &e["grid"]["origin"]), (serde_json::json!("DE"), serde_json::json!("region"))),
            _ => (
                (&e["coefficients"]["gpu_rate"]["value"], &e["coefficients"]["gpu_rate"]["source"]),
                (serde_json::json!(3.25), serde_json::json!("env")),
            ),
        };
        assert_eq!((got.0, got.1), (&want.0, &want.1), "{e}");
    }
}

#[test]
fn a_run_is_counted_once() {
    let env = crate::common::with_h100(Env::new()).env("FAKE_SMI_POWER", "300");
    let rec = |args: &[&str]| env.json::<Value>(&[&["finops", "carbon", "record", "M"][..], args].concat());
    // An estimate, then a measurement of the same run: the measurement counts, the estimate does not.
    rec(&["--gpu-hours", "12", "--run-id", "r1"]);
    let args = ["-o", "json", "finops", "measure", "--interval", "0.1", "--record", "M", "--run-id", "r1", "--", "sleep", "0.3"];
    let m = env.run(&args);
    // After a command, the report is on stderr.
    let measured: Value = crate::common::checked(&args, &m.stderr);
    let measured_kwh = measured["carbon"]["outputs"]["kwh"].as_f64().unwrap();
    let r = report(&env, &["--by", "run"]);
    let g = &r["groups"][0];
    assert_eq!((g["key"].as_str(), g["runs"].as_u64(), g["runs_measured"].as_u64()), (Some("r1"), Some(1), Some(1)));
    assert_eq!(g["records"]["carbon"], 1);
    assert_eq!(g["records_not_counted"], 1, "the estimate is superseded");
    assert_eq!(g["kwh"].as_f64().unwrap(), measured_kwh, "the measured energy alone, not estimate + measurement");
    assert!(r["notes"][0].as_str().unwrap().contains("a measured record supersedes an estimate"), "{}", r["notes"]);
    // The same estimate recorded twice is the same work: counted once, with a note.
    rec(&["--gpu-hours", "2", "--run-id", "r2"]);
    rec(&["--gpu-hours", "2", "--run-id", "r2"]);
    let r = report(&env, &["--by", "run"]);
    let g = r["groups"].as_array().unwrap().iter().find(|g| g["key"] == "r2").unwrap().clone();
    assert_eq!(
        (g["records"]["carbon"].as_u64(), g["records_not_counted"].as_u64(), g["gpu_hours"].as_f64()),
        (Some(1), Some(1), Some(2.0))
    );
    assert_eq!(g["runs_estimated"], 1);
    assert!(r["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("run r2: 2 carbon records, counted #")));
    // Parts of one run add up.
    rec(&["--gpu-hours", "3", "--run-id", "r3", "--part"]);
    rec(&["--gpu-hours", "4", "--run-id", "r3", "--part"]);
    let r = report(&env, &["--by", "run"]);
    let g = r["groups"].as_array().unwrap().iter().find(|g| g["key"] == "r3").unwrap().clone();
    assert_eq!(
        (g["records"]["carbon"].as_u64(), g["records_not_counted"].as_u64(), g["gpu_hours"].as_f64()),
        (Some(2), Some(0), Some(7.0))
    );
    // Carbon and cost records of one run are one run; records without a run id are runs of their own.
    env.json::<Value>(&["finops", "cost", "record", "M", "--gpu-hours", "2", "--run-id", "r2"]);
    rec(&["--gpu-hours", "1"]);
    rec(&["--gpu-hours", "1"]);
    let t = &report(&env, &[])["totals"];
    assert_eq!(t["runs"], 5, "r1, r2, r3 and two lone records: {t}");
    assert_eq!((t["runs_measured"].as_u64(), t["runs_estimated"].as_u64()), (Some(1), Some(4)));
    assert_eq!(t["records"]["cost"].as_u64(), Some(2), "r2's cost record and measure's cost record");
    fails(&env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1", "--part"]), 2, "--run-id");
}

#[test]
fn a_store_of_the_first_schema_is_migrated_in_place() {
    let env = Env::new();
    env.json::<Value>(&["finops", "carbon", "record", "OLD", "--gpu-hours", "1"]);
    // Take the store back to schema 1, as the first release wrote it.
    sql(
        &db(&env),
        &format!(
            "c.execute('insert into record_estimates (record_id, estimate) select record_id, estimate from record_estimate_json j where not exists (select 1 from record_estimates e where e.record_id = j.record_id)')\nc.execute('drop trigger estimates_no_update')\nc.execute('update record_estimates set estimate = (select j.estimate from record_estimate_json j where j.record_id = record_estimates.record_id)')\nc.execute(\"create trigger estimates_no_update before update on record_estimates begin select raise(abort, 'records are append-only'); end\")\nc.execute('drop view record_estimate_json')\nc.execute('drop trigger forms_no_update')\nc.execute('drop trigger forms_no_delete')\nc.execute('drop table estimate_forms')\nc.execute('alter table records drop column form_id')\nc.execute('alter table records drop column figures')\nc.execute('drop trigger shapes_no_update')\nc.execute('drop trigger shapes_no_delete')\nc.execute('alter table record_estimates drop column shape_id')\nc.execute('drop table estimate_shapes')\nc.execute('drop table report_cells')\nc.execute('drop table report_rollup')\nc.execute('drop table report_split_runs')\nc.execute('drop table report_cells_upto')\nc.execute('drop index records_run')\nc.execute('drop index records_cell')\nc.execute('alter table records drop column cell')\nc.execute('drop table mlflow_outbox')\nc.execute('drop index records_idem_key')\n{record}c.execute('pragma user_version = 1')\nc.commit()",
            // Every record column the first schema did not have, as the column table says.
            record = exa::store::columns::RECORD
                .iter()
                .filter(|c| c.since[0] > 1)
                .map(|c| format!("c.execute('alter table records drop column {}')\n", c.name))
                .collect::<String>()
        ),
    );
    assert_eq!(sql(&db(&env), "print(c.execute('pragma user_version').fetchone()[0])"), "1");
    env.json::<Value>(&["finops", "carbon", "record", "NEW", "--gpu-hours", "2", "--run-id", "p", "--part"]);
    assert_eq!(sql(&db(&env), "print(c.execute('pragma user_version').fetchone()[0])"), exa::store::SCHEMA_VERSION.to_string());
    let t = &report(&env, &[])["totals"];
    assert_eq!((t["runs"].as_u64(), t["gpu_hours"].as_f64()), (Some(2), Some(3.0)), "the old record is kept and counted");
    // The old record got an idempotency key of its own in the migration, and is still append-only.
    assert_eq!(
        sql(&db(&env), "print(c.execute('select count(distinct idem_key) from records where idem_key is not null').fetchone()[0])"),
        "2"
    );
    let out = sql(&db(&env), "try:\n    c.execute('update records set co2e_g = 0')\nexcept sqlite3.DatabaseError as e:\n    print(e)");
    assert_eq!(out, "records are append-only");
    // The old record's estimate, kept whole, and the new one's, kept by its form (its figures in its columns),
    // read alike (SQL through record_estimate_json), and copy alike into a new ledger.
    let estimates = |path: &std::path::Path| {
        let out = sql(
            path,
            "print(json.dumps([json.loads(e) for (e,) in c.execute('select estimate from record_estimate_json order by record_id')]))",
        );
        serde_json::from_str::<Value>(&out).unwrap()
    };
    let here = estimates(&db(&env));
    assert_eq!(
        sql(&db(&env), "print(c.execute('select (select count(*) from record_estimates), count(form_id) from records').fetchone())"),
        "(1, 1)",
        "{here}"
    );
    for (e, hours) in here.as_array().unwrap().iter().zip([1.0, 2.0]) {
        assert_eq!(e["inputs"]["gpu_hours"].as_f64(), Some(hours), "{e}");
        assert_eq!(e["coefficients"]["pue"]["source"], "default", "{e}");
        // 400 W for the GPU-hours, PUE 1.5, 300 g/kWh, and the band's upper end at +30 %.
        close(e["range"]["co2e_g"][1].as_f64().unwrap(), hours * 0.4 * 1.5 * 300.0 * 1.3);
    }
    let copy = env.dir.path().join("copy.sqlite3");
    let c = env.json::<Value>(&["db", "copy", "--from", db(&env).to_str().unwrap(), "--to", copy.to_str().unwrap()]);
    assert_eq!(c["copied"], 2, "{c}");
    assert_eq!(estimates(&copy), here);
}
