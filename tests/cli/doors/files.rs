//! Output files and ledgers: never replaced, private, refused plainly, read without writing.

use crate::common::{fails, stderr, Env};
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use crate::support::doors::walk;

#[test]
fn an_output_never_replaces_the_ledger_another_output_or_a_database() {
    let env = Env::new();
    env.json::<Value>(&["finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    let ledger = env.dir.path().join("data/examlops/records.sqlite3");
    let before = std::fs::read(&ledger).unwrap();
    fails(&env.run(&["report", "--html", ledger.to_str().unwrap()]), 2, "that is the ledger");
    let wal = format!("{}-wal", ledger.display());
    fails(&env.run(&["report", "--html", &wal]), 2, "that is the ledger");
    assert_eq!(std::fs::read(&ledger).unwrap(), before);
    let other = env.dir.path().join("other.sqlite3");
    std::fs::copy(&ledger, &other).unwrap();
    fails(&env.run(&["report", "--html", other.to_str().unwrap()]), 2, "is a SQLite database");
    for (report, trace) in [("same.json", "same.json"), ("r.json", "records.sqlite3")] {
        let r = env.dir.path().join(report);
        let t = if trace == "records.sqlite3" { ledger.clone() } else { env.dir.path().join(trace) };
        let marker = env.dir.path().join("job-ran");
        let out = env.run(&[
            "finops",
            "measure",
            "--report",
            r.to_str().unwrap(),
            "--trace",
            t.to_str().unwrap(),
            "--",
            "touch",
            marker.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(!marker.exists(), "the job ran although its outputs were refused");
    }
    assert_eq!(std::fs::read(&ledger).unwrap(), before);
    // A report replaced through a temporary file leaves none behind, and keeps the file's mode.
    let page = env.dir.path().join("page.html");
    std::fs::write(&page, "old").unwrap();
    std::fs::set_permissions(&page, std::fs::Permissions::from_mode(0o640)).unwrap();
    assert!(env.run(&["report", "--html", page.to_str().unwrap()]).status.success());
    assert_eq!(std::fs::metadata(&page).unwrap().permissions().mode() & 0o777, 0o640);
    let left: Vec<String> = walk(env.dir.path())
        .into_iter()
        .filter(|p| std::path::Path::new(p).file_name().is_some_and(|n| n.to_string_lossy().to_ascii_lowercase().contains(".tmp")))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_new_ledger_is_private() {
    let env = Env::new();
    env.json::<Value>(&["finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    let dir = env.dir.path().join("data/examlops");
    assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
    for f in ["records.sqlite3", "records.sqlite3-wal", "records.sqlite3-shm"] {
        let p = dir.join(f);
        if p.exists() {
            assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600, "{f}");
        }
    }
    // A ledger that is there already keeps its mode.
    let shared = env.dir.path().join("team/shared.sqlite3");
    std::fs::create_dir_all(shared.parent().unwrap()).unwrap();
    std::fs::write(&shared, "").unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o640)).unwrap();
    env.json::<Value>(&["--db", shared.to_str().unwrap(), "finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    assert_eq!(std::fs::metadata(&shared).unwrap().permissions().mode() & 0o777, 0o640);
}

#[test]
fn smaller_store_and_provider_refusals() {
    // A negative schema version is a store of unknown schema: refused, not written.
    let env = Env::new();
    let db = env.dir.path().join("neg.sqlite3");
    let py = format!("import sqlite3; c = sqlite3.connect('{}'); c.execute('PRAGMA user_version = -3'); c.commit()", db.display());
    assert!(Command::new("python3").args(["-c", &py]).status().unwrap().success());
    let before = std::fs::read(&db).unwrap();
    fails(&env.run(&["--db", db.to_str().unwrap(), "finops", "carbon", "record", "M", "--gpu-hours", "1"]), 2, "unknown schema");
    fails(&env.run(&["--db", db.to_str().unwrap(), "report"]), 2, "unknown schema");
    assert_eq!(std::fs::read(&db).unwrap(), before);
    // A provider file refused as group-writable says so, instead of "no provider named".
    let env = Env::new();
    let p = env.file(
        "config/examlops/providers/carbon/mine.yaml",
        "name: mine\ndomain: carbon\nmethodology: m\nformulas:\n  kwh: gpu_hours\n  co2e_g: kwh\n",
    );
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o664)).unwrap();
    let out = env.run(&["--strict", "finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", "mine"]);
    fails(&out, 1, "writable by its group");
    assert!(!stderr(&out).contains("did you mean"), "{}", stderr(&out));
    // An intermediate value may be negative (a credit); only the domain's outputs must not.
    let env = Env::new();
    env.config(
        "finops:\n  cost:\n    provider: expression\n    coefficients: {gpu_rate: 2}\n    formulas:\n      credit: \"-0.1 * gpu_hours\"\n      cost_usd: \"gpu_hours * gpu_rate + credit\"\n",
    );
    let v = env.json::<Value>(&["--strict", "finops", "cost", "estimate", "--gpu-hours", "10"]);
    assert_eq!(v["outputs"]["cost_usd"], 19.0, "{v}");
    env.config("finops:\n  cost:\n    provider: expression\n    formulas:\n      cost_usd: \"-1 * gpu_hours\"\n");
    fails(&env.run(&["--strict", "finops", "cost", "estimate", "--gpu-hours", "10"]), 1, "cost_usd");
}

#[test]
fn reading_a_ledger_one_may_not_write_writes_nothing() {
    let env = Env::new();
    let dir = env.dir.path().join("team");
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("l.sqlite3");
    for (gh, run) in [("1", "r1"), ("2", "r2"), ("3", "r2")] {
        env.json::<Value>(&["--db", db.to_str().unwrap(), "finops", "carbon", "record", "M", "--gpu-hours", gh, "--run-id", run]);
    }
    let want = env.json::<Value>(&["--db", db.to_str().unwrap(), "report", "--by", "model"]);
    // As a writer leaves it: no -wal or -shm beside it (a reader leaves them behind; these hold nothing now).
    for f in ["l.sqlite3-wal", "l.sqlite3-shm"] {
        let _ = std::fs::remove_file(dir.join(f));
    }
    let before = std::fs::read(&db).unwrap();
    // Readable by all, writable by none but its owner; read by another user (or, not as root, a directory made read-only).
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let root = Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let home = tempfile::tempdir().unwrap();
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::set_permissions(env.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(if root { 0o755 } else { 0o555 })).unwrap();
    // exa as that reader.
    let reader = |args: &[&str]| {
        let mut c = if root {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", env!("CARGO_BIN_EXE_exa")]);
            c
        } else {
            Command::new(env!("CARGO_BIN_EXE_exa"))
        };
        c.args(["--db", db.to_str().unwrap()])
            .args(args)
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path())
            .env_remove("EXAMLOPS_DB")
            .output()
            .unwrap()
    };
    for by in ["model", "run", "day"] {
        let args = ["-o", "json", "report", "--by", by];
        let out = reader(&args);
        assert!(out.status.success(), "report --by {by}: {}", stderr(&out));
        if by == "model" {
            let got: Value = crate::common::answer(&args, &out);
            assert_eq!(got["totals"], want["totals"]);
        }
    }
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(std::fs::read(&db).unwrap(), before, "the ledger was written by a reader");
    assert!(!dir.join("l.sqlite3-shm").exists() || root, "a reader left a file behind");
    // A rollback journal beside it (a first import writing through one, or killed): such a reader takes no
    // locks, so it is refused rather than shown a file half-written.
    let journal = dir.join("l.sqlite3-journal");
    std::fs::write(&journal, [0u8; 512]).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(if root { 0o755 } else { 0o555 })).unwrap();
    fails(&reader(&["report"]), 1, "a write is under way, or was left mid-way");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_file(&journal).unwrap();
    assert_eq!(std::fs::read(&db).unwrap(), before, "the ledger was written by a reader");
}
