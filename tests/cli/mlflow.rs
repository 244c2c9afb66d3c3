//! Records on their MLflow runs, against a real MLflow tracking server
//! (PyPI `mlflow`, installed by `cargo xtask test`) on loopback with a
//! SQLite backend: logged, read back through MLflow's REST API, kept in the
//! outbox while the server is down, and sent exactly once when it is back.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{fails, stderr, Env};

fn python() -> PathBuf {
    crate::common::test_python("the MLflow tests need MLflow from PyPI")
}

struct Mlflow {
    dir: tempfile::TempDir,
    port: u16,
    child: Option<Child>,
}

impl Mlflow {
    fn start() -> Mlflow {
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut m = Mlflow { dir, port, child: None };
        m.up();
        m
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Starts the server (its own process group, watched: it ends with this test process).
    fn up(&mut self) {
        let d = self.dir.path().display();
        let script = format!(
            "setsid '{py}' -m mlflow server --host 127.0.0.1 --port {port} --workers 1 --backend-store-uri 'sqlite:///{d}/mlflow.db' \
             --default-artifact-root '{d}/artifacts' >'{d}/log' 2>&1 & p=$!; \
             while [ -d /proc/{parent} ] && kill -0 $p 2>/dev/null; do sleep 1; done; kill -TERM -- -$p 2>/dev/null",
            py = python().display(),
            port = self.port,
            parent = std::process::id()
        );
        let child = Command::new("sh")
            .args(["-c", &script])
            .env("MLFLOW_SERVER_ENABLE_JOB_EXECUTION", "false")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(90);
        while Instant::now() < deadline {
            if get(&format!("{}/health", self.url())).is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(300));
        }
        panic!("mlflow server did not start: {}", std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default());
    }

    /// Stops the server: its whole process group.
    fn down(&mut self) {
        let _ = Command::new("sh")
            .args(["-c", &format!("pkill -TERM -f -- '--port {} ' ; sleep 0.2; pkill -KILL -f -- '--port {} '", self.port, self.port)])
            .status();
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline && std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn api(&self, path: &str) -> Value {
        let body = get(&format!("{}/api/2.0/mlflow/{path}", self.url())).unwrap_or_else(|| panic!("MLflow {path}"));
        serde_json::from_str(&body).unwrap()
    }

    /// A run's metrics and tags, as maps.
    fn run(&self, id: &str) -> (serde_json::Map<String, Value>, serde_json::Map<String, Value>, Value) {
        let r = self.api(&format!("runs/get?run_id={id}"));
        let pairs = |k: &str| {
            r["run"]["data"][k]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(|m| (m["key"].as_str().unwrap().to_string(), m["value"].clone()))
                .collect()
        };
        (pairs("metrics"), pairs("tags"), r["run"]["info"].clone())
    }

    fn points(&self, run: &str, key: &str) -> usize {
        self.api(&format!("metrics/get-history?run_id={run}&metric_key={key}"))["metrics"].as_array().map_or(0, Vec::len)
    }
}

impl Drop for Mlflow {
    fn drop(&mut self) {
        self.down();
    }
}

/// GET through Python's standard library (the tests have no HTTP client of their own).
fn get(url: &str) -> Option<String> {
    let out = Command::new("python3")
        .args(["-c", "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())", url])
        .output()
        .ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn records_reach_their_mlflow_run_and_wait_in_the_outbox_while_it_is_down() {
    let mut mlflow = Mlflow::start();
    let secret = "tok-5ecret-never-shown";
    let env = crate::common::with_h100(Env::new())
        .env("FAKE_SMI_POWER", "300")
        .env("MLFLOW_TRACKING_URI", &mlflow.url())
        .env("MLFLOW_TRACKING_TOKEN", secret);
    // measure creates the run, named after the command, and records under its id.
    let out = env.run(&["finops", "measure", "--interval", "0.1", "--record", "JPCP", "--mlflow-experiment", "jpcp", "--", "sleep", "0.3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = env.json::<Value>(&["report", "--by", "run"]);
    let run = report["groups"][0]["key"].as_str().unwrap().to_string();
    let (metrics, tags, info) = mlflow.run(&run);
    assert_eq!(info["run_name"], "sleep 0.3");
    assert_eq!(info["status"], "FINISHED");
    for m in ["exa.energy_kwh", "exa.co2e_g", "exa.cost_usd", "exa.gpu_hours", "exa.cpu_hours", "exa.measured_gpu_kwh"] {
        assert!(metrics.contains_key(m), "{m} on the run: {metrics:?}");
    }
    assert_eq!(metrics["exa.energy_kwh"], report["groups"][0]["kwh"]);
    assert_eq!(tags["exa.carbon_provider"], "green-ai-default");
    assert_eq!(tags["exa.carbon_measured"], "true");
    assert!(tags.contains_key("exa.cost_provider_digest") && tags.contains_key("exa.version"));
    // A record naming the run; the same log sent again adds no second point.
    let out = env.run(&["finops", "carbon", "record", "JPCP", "--gpu-hours", "2", "--run-id", &run]);
    assert!(out.status.success() && stderr(&out).is_empty(), "{}", stderr(&out));
    // MLflow shows the run as the report counts it: the measurement over this later estimate.
    let report = env.json::<Value>(&["report", "--by", "run"]);
    assert_eq!(mlflow.run(&run).0["exa.gpu_hours"], report["groups"][0]["gpu_hours"]);
    // MLflow down: the record is kept, the warning says why and what to do; --strict exits 1, the record kept too.
    mlflow.down();
    let out = env.run(&["finops", "cost", "record", "JPCP", "--gpu-hours", "3", "--run-id", &run]);
    assert!(out.status.success(), "{}", stderr(&out));
    let warning = stderr(&out);
    assert!(warning.contains("is stored, but not logged to MLflow") && warning.contains("exa sync mlflow"), "{warning}");
    assert!(!warning.contains(secret));
    let out = env.run(&["--strict", "finops", "cost", "record", "JPCP", "--gpu-hours", "4", "--run-id", &run]);
    fails(&out, 1, "is stored, but not logged to MLflow");
    assert_eq!(env.json::<Value>(&["report"])["totals"]["records"]["cost"], 1, "both kept; the latest cost record of the run counts");
    let out = env.run(&["sync", "mlflow"]);
    assert!(out.status.success() && !stderr(&out).contains(secret));
    assert_eq!(env.json::<Value>(&["sync", "mlflow"])["still_waiting"], 2);
    // Back up: sync sends both, once.
    mlflow.up();
    let synced = env.json::<Value>(&["sync", "mlflow"]);
    assert_eq!((synced["sent"].as_u64(), synced["still_waiting"].as_u64()), (Some(2), Some(0)), "{synced}");
    assert_eq!(env.json::<Value>(&["sync", "mlflow"])["sent"], 0, "nothing is sent twice");
    let before = mlflow.points(&run, "exa.cost_usd");
    assert!(before >= 2, "the waiting logs reached the run: {before}");
    // A retry of logs already sent (as after a timeout whose answer was lost) adds no data point.
    let db = env.dir.path().join("data/examlops/records.sqlite3");
    let py = format!(
        "import sqlite3; c = sqlite3.connect('{}'); c.execute('update mlflow_outbox set sent_at = null'); c.commit()",
        db.display()
    );
    assert!(Command::new("python3").args(["-c", &py]).status().unwrap().success());
    assert_eq!(env.json::<Value>(&["sync", "mlflow"])["sent"], 2);
    assert_eq!(mlflow.points(&run, "exa.cost_usd"), before, "the same log twice is one data point");
    // A log that can never be taken (its run does not exist) is retried by the next records only
    // until it has failed three times; `exa sync mlflow` still tries it.
    let attempts = || {
        let py = format!("import sqlite3; print(sqlite3.connect('{}').execute(\"select attempts from mlflow_outbox where run_id = 'gone'\").fetchone()[0])", db.display());
        String::from_utf8(Command::new("python3").args(["-c", &py]).output().unwrap().stdout).unwrap().trim().to_string()
    };
    env.run(&["finops", "carbon", "record", "JPCP", "--gpu-hours", "1", "--run-id", "gone"]);
    assert_eq!(attempts(), "1");
    for want in ["2", "3", "3"] {
        assert!(env.run(&["finops", "carbon", "record", "JPCP", "--gpu-hours", "1", "--run-id", &run]).status.success());
        assert_eq!(attempts(), want);
    }
    assert_eq!(env.json::<Value>(&["sync", "mlflow"])["still_waiting"], 1);
    assert_eq!(attempts(), "4");
    // Nothing secret in the store or its outbox.
    let db = std::fs::read(env.dir.path().join("data/examlops/records.sqlite3")).unwrap();
    assert!(!String::from_utf8_lossy(&db).contains(secret));
    // A tracking URI exa cannot use is a config error, before anything is written.
    let bad = Env::new().env("MLFLOW_TRACKING_URI", "file:///tmp/mlruns");
    fails(&bad.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1", "--run-id", "r"]), 2, "http:// or https://");
}

/// Runs Python with MLflow's own client against the server; its stdout.
fn mlflow_client(mlflow: &Mlflow, code: &str) -> String {
    let out = Command::new(python())
        .args(["-c", &format!("import json, mlflow\nfrom mlflow import MlflowClient\nc = MlflowClient()\n{code}")])
        .env("MLFLOW_TRACKING_URI", mlflow.url())
        .output()
        .expect("python runs");
    assert!(out.status.success(), "MlflowClient: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn what_mlflow_shows_for_a_run_is_what_the_report_says_of_it_whatever_the_order_and_split() {
    let mlflow = Mlflow::start();
    let env = Env::new().env("MLFLOW_TRACKING_URI", &mlflow.url());
    let ids: Vec<String> = mlflow_client(&mlflow, "print(json.dumps([c.create_run('0').info.run_id for _ in range(4)]))")
        .parse::<Value>()
        .map_or_else(|e| panic!("{e}"), |v| v.as_array().unwrap().iter().map(|i| i.as_str().unwrap().to_string()).collect());
    let rec = |domain: &str, run: &str, args: &[&str]| {
        let out = env.run(&[&["finops", domain, "record", "JPCP", "--run-id", run][..], args].concat());
        assert!(out.status.success() && stderr(&out).is_empty(), "{}", stderr(&out));
    };
    // Two parts of one run: MLflow shows their sum.
    rec("carbon", &ids[0], &["--gpu-hours", "6", "--part"]);
    rec("carbon", &ids[0], &["--gpu-hours", "6", "--part"]);
    // A cost record with CPU-hours, then a carbon record without: the run's CPU-hours stay.
    rec("cost", &ids[1], &["--gpu-hours", "1", "--cpu-hours", "32"]);
    rec("carbon", &ids[1], &["--gpu-hours", "1"]);
    // A repeat replaces what it repeats, even when it is smaller and lands in the same second.
    rec("carbon", &ids[2], &["--gpu-hours", "10"]);
    rec("carbon", &ids[2], &["--gpu-hours", "4"]);
    // Cost parts around a carbon record.
    rec("cost", &ids[3], &["--gpu-hours", "2", "--part"]);
    rec("carbon", &ids[3], &["--gpu-hours", "5"]);
    rec("cost", &ids[3], &["--gpu-hours", "3", "--part", "--cpu-hours", "8"]);
    let report = env.json::<Value>(&["report", "--by", "run"]);
    let shown: Value =
        mlflow_client(&mlflow, &format!("print(json.dumps({{i: c.get_run(i).data.metrics for i in {ids:?}}}))")).parse().unwrap();
    for id in &ids {
        let g = report["groups"].as_array().unwrap().iter().find(|g| g["key"] == id.as_str()).unwrap();
        let m = &shown[id.as_str()];
        for (metric, field) in [
            ("exa.gpu_hours", "gpu_hours"),
            ("exa.cpu_hours", "cpu_hours"),
            ("exa.energy_kwh", "kwh"),
            ("exa.co2e_g", "co2e_g"),
            ("exa.cost_usd", "cost_usd"),
        ] {
            let want = g[field].as_f64();
            let got = m[metric].as_f64();
            assert!(
                want.zip(got).is_some_and(|(w, g)| (w - g).abs() <= 1e-9 * w.abs().max(1.0)) || (want.is_none() && got.is_none()),
                "run {id}: MLflow's {metric} is {got:?}, the report's {field} is {want:?}\nreport: {g}\nmlflow: {m}"
            );
        }
    }
    // The figures themselves, as the issue's user saw them.
    assert_eq!(shown[ids[0].as_str()]["exa.energy_kwh"], 7.2);
    assert_eq!(shown[ids[1].as_str()]["exa.cpu_hours"], 32.0);
}
