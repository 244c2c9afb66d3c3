//! `exa import slurm` against a real single-node Slurm with accounting
//! (tests/slurm/cluster.sh: munge, MariaDB, slurmdbd, slurmctld, slurmd from
//! Debian's packages), and against saved `sacct` outputs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

use crate::common::{fails, stderr, stdout, Env};

/// A running cluster; every daemon stopped when dropped, or by a watchdog if the test process dies.
struct Slurm {
    dir: TempDir,
    watchdog: Option<std::process::Child>,
    /// One cluster at a time: two at once on one host slow each other's start past its deadlines.
    _turn: std::sync::MutexGuard<'static, ()>,
}

static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/slurm/cluster.sh")
}

fn system_path() -> String {
    format!("{}:/usr/sbin:/sbin", std::env::var("PATH").unwrap_or_default())
}

impl Slurm {
    fn start() -> Slurm {
        Slurm::start_with("")
    }

    /// A cluster whose slurm.conf also has `extra` (a Prolog and Epilog, say).
    fn start_with(extra: &str) -> Slurm {
        // Four ports a cluster: this process's slot, and a range of its own for each of two clusters started,
        // all below the kernel's ephemeral ports (32768 and up), which any test's connection may hold.
        static STARTED: std::sync::atomic::AtomicU16 = std::sync::atomic::AtomicU16::new(0);
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let root = Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
        assert!(root, "the Slurm tests run as root (slurmd starts jobs as their users); run them with `cargo xtask test` as root");
        let dir = tempfile::tempdir().unwrap();
        let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::SeqCst) % 2;
        let base = 21_000 + (std::process::id() % 1_400) as u16 * 4 + n * 5_600;
        let out = Command::new("bash")
            .arg(script())
            .args(["start"])
            .arg(dir.path())
            .arg(base.to_string())
            .env("PATH", system_path())
            .env("SLURM_CONF_EXTRA", extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "Slurm did not start: {}{}", stdout(&out), stderr(&out));
        let mut s = Slurm { dir, watchdog: None, _turn: turn };
        let watch = format!(
            "while [ -d /proc/{} ]; do sleep 1; done; bash '{}' stop '{}'",
            std::process::id(),
            script().display(),
            s.dir.path().display()
        );
        s.watchdog = Some(Command::new("sh").args(["-c", &watch]).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap());
        s
    }

    fn conf(&self) -> String {
        self.dir.path().join("etc/slurm.conf").display().to_string()
    }

    /// Runs a Slurm client command; its stdout.
    fn sh(&self, cmd: &str) -> String {
        let out = Command::new("bash").args(["-c", cmd]).env("SLURM_CONF", self.conf()).env("PATH", system_path()).output().unwrap();
        assert!(out.status.success(), "{cmd}: {}", stderr(&out));
        stdout(&out).trim().to_string()
    }

    fn sbatch(&self, args: &str) -> String {
        self.sh(&format!("sbatch --parsable -o {}/out/%j.out {args}", self.dir.path().display()))
    }

    /// Waits until every job named has one of the states in sacct (the last run of each).
    fn wait_states(&self, jobs: &[&str], states: &[&str]) {
        let started = Instant::now();
        loop {
            let got = self.sh(&format!("sacct -n -X -P -D -j {} --format=JobID,State", jobs.join(",")));
            let last: std::collections::HashMap<&str, &str> = got.lines().filter_map(|l| l.split_once('|')).collect();
            let done = jobs.iter().all(|j| {
                last.iter().any(|(id, st)| (id == j || id.starts_with(&format!("{j}_"))) && states.iter().any(|s| st.starts_with(s)))
                    && !last
                        .iter()
                        .any(|(id, st)| (id == j || id.starts_with(&format!("{j}_"))) && !states.iter().any(|s| st.starts_with(s)))
            });
            if done {
                return;
            }
            assert!(started.elapsed() < Duration::from_secs(90), "jobs {jobs:?} never reached {states:?}: {got}");
            std::thread::sleep(Duration::from_millis(300));
        }
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        let _ = Command::new("bash").arg(script()).arg("stop").arg(self.dir.path()).env("PATH", system_path()).status();
        if let Some(mut w) = self.watchdog.take() {
            let _ = w.kill();
            let _ = w.wait();
        }
    }
}

fn job<'a>(answer: &'a Value, run_id: &str) -> &'a Value {
    answer["jobs"].as_array().unwrap().iter().find(|j| j["run_id"] == run_id).unwrap_or_else(|| panic!("no {run_id} in {answer}"))
}

#[test]
fn a_real_slurms_finished_jobs_become_records_once() {
    let sl = Slurm::start();
    sl.sh("id exaalice >/dev/null 2>&1 || useradd -M exaalice; sacctmgr -i add account acctA cluster=testclu >/dev/null; sacctmgr -i add user exaalice account=acctA >/dev/null");
    let gpu = sl.sbatch("--gres=gpu:2 -c 2 -J train-llm -p gpu --comment 'exp 7' --wrap 'sleep 2'");
    let cpu = sl.sbatch("-c 1 -J prep --uid=exaalice --account=acctA --wrap 'sleep 1'");
    let array = sl.sbatch("-c 1 -J sweep --array=0-1 --wrap 'sleep 1'");
    let failing = sl.sbatch("-c 1 -J broken --wrap 'sleep 1; exit 3'");
    let long = sl.sbatch("-c 1 -J long --wrap 'sleep 600'");
    let requeued = sl.sbatch("-c 1 -J requeued --requeue --wrap 'sleep 3'");
    // Requeue a running job and let it run again at once: two runs of one allocation.
    sl.wait_states(&[&requeued], &["RUNNING"]);
    sl.sh(&format!("scontrol requeue {requeued}"));
    sl.wait_states(&[&requeued], &["PENDING", "REQUEUED"]);
    sl.sh(&format!("scontrol update JobId={requeued} StartTime=now"));
    sl.wait_states(&[&gpu, &cpu, &array, &requeued], &["COMPLETED"]);
    sl.wait_states(&[&failing], &["FAILED"]);
    sl.wait_states(&[&long], &["RUNNING"]);
    // Waiting for 8 CPUs while `long` holds one: pending; and one cancelled before it could start.
    let pending = sl.sbatch("-c 8 -J waiting --wrap true");
    let cancelled = sl.sbatch("-c 8 -J never --wrap true");
    sl.sh(&format!("scancel {cancelled}"));
    sl.wait_states(&[&cancelled], &["CANCELLED"]);
    sl.wait_states(&[&pending], &["PENDING"]);

    let env = Env::new().env("SLURM_CONF", &sl.conf()).env("PATH", &system_path());
    let since = &crate::metrics::iso(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64 - 3600);
    // A dry run: what would be recorded, and nothing written.
    let dry = env.json::<Value>(&["import", "slurm", "--since", since, "--dry-run"]);
    assert!(!env.dir.path().join("data/examlops/records.sqlite3").exists(), "a dry run writes nothing");
    assert_eq!(dry["jobs"].as_array().unwrap().len(), 7, "{dry}");
    let facts = |id: &str, fields: &str| -> Vec<f64> {
        sl.sh(&format!("sacct -n -X -P -j {id} --format={fields}")).lines().last().unwrap().split('|').map(|v| v.parse().unwrap()).collect()
    };
    let g = job(&dry, &format!("slurm:testclu:{gpu}"));
    let f = facts(&gpu, "ElapsedRaw,CPUTimeRAW");
    assert_eq!((g["model"].as_str(), g["partition"].as_str(), g["user"].as_str()), (Some("train-llm"), Some("gpu"), Some("root")));
    crate::common::close(g["gpu_hours"].as_f64().unwrap(), 2.0 * f[0] / 3600.0);
    crate::common::close(g["cpu_hours"].as_f64().unwrap(), f[1] / 3600.0);
    assert!(g.get("node_kwh").is_some_and(Value::is_null), "no energy plugin: energy not measured, never 0");
    let a = job(&dry, &format!("slurm:testclu:{cpu}"));
    assert_eq!((a["user"].as_str(), a["account"].as_str(), a["gpu_hours"].as_f64()), (Some("exaalice"), Some("accta"), Some(0.0)));
    assert!(dry["jobs"].as_array().unwrap().iter().any(|j| j["run_id"] == format!("slurm:testclu:{array}_1")), "array tasks: {dry}");

    let first = env.json::<Value>(&["import", "slurm", "--since", since]);
    assert_eq!(
        (first["imported"].as_u64(), first["already_there"].as_u64(), first["records_written"].as_u64()),
        (Some(7), Some(0), Some(14)),
        "{first}"
    );
    assert_eq!(first["skipped"], serde_json::json!({"pending": 1, "running": 1, "never ran": 1}), "{first}");
    assert_eq!((first["cluster"].as_str(), first["source"].as_str()), (Some("testclu"), Some("sacct")));
    // The requeued job ran twice: one run id, both runs counted (parts of one allocation).
    let runs = env.json::<Value>(&["report", "--by", "run"]);
    let rq = runs["groups"].as_array().unwrap().iter().find(|g| g["key"] == format!("slurm:testclu:{requeued}")).unwrap();
    assert_eq!((rq["runs"].as_u64(), rq["records"]["carbon"].as_u64(), rq["records_not_counted"].as_u64()), (Some(1), Some(2), Some(0)));
    assert!(rq["cpu_hours"].as_f64().unwrap() > 3.0 / 3600.0, "both runs' CPU time: {rq}");
    // Reports by the scheduler's own labels.
    let keys = |by: &str| -> Vec<String> {
        env.json::<Value>(&["report", "--by", by])["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["key"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(keys("account"), ["accta", "root"]);
    assert_eq!(keys("user"), ["exaalice", "root"]);
    assert_eq!(keys("partition"), ["debug", "gpu"]);

    // Again: nothing new. Without --since: from where the last import stopped.
    let again = env.json::<Value>(&["import", "slurm", "--since", since]);
    assert_eq!(
        (again["imported"].as_u64(), again["already_there"].as_u64(), again["records_written"].as_u64()),
        (Some(0), Some(7), Some(0))
    );
    let cont = env.json::<Value>(&["import", "slurm"]);
    assert_eq!(cont["since_from"], "the last import");
    assert_eq!(cont["records_written"], 0);
    // The same jobs from saved outputs, `-P` with steps and `--json`: already there, by the same keys.
    let saved = env.file("sacct.txt", &sl.sh(&format!("sacct -a -P -D -S now-2hours -E now --format=ALL -j {gpu},{cpu},{requeued}")));
    let from_file = env.json::<Value>(&["import", "slurm", "--file", saved.to_str().unwrap()]);
    assert_eq!((from_file["already_there"].as_u64(), from_file["imported"].as_u64()), (Some(4), Some(0)), "{from_file}");
    assert!(from_file["steps"].as_u64().unwrap() >= 4, "steps are read and not counted: {from_file}");
    let json = env.file("sacct.json", &sl.sh(&format!("sacct -a -D --json -j {gpu},{array}")));
    let from_json = env.json::<Value>(&["import", "slurm", "--file", json.to_str().unwrap()]);
    assert_eq!((from_json["already_there"].as_u64(), from_json["imported"].as_u64()), (Some(3), Some(0)), "{from_json}");
    // The model from another field.
    let by_comment = env.json::<Value>(&["import", "slurm", "--since", since, "--model-from", "comment", "--dry-run"]);
    assert_eq!(job(&by_comment, &format!("slurm:testclu:{gpu}"))["model"], "exp 7");
    assert_eq!(job(&by_comment, &format!("slurm:testclu:{failing}"))["model"], "(no comment)");
    assert!(!dry["jobs"].as_array().unwrap().iter().any(|j| j["run_id"] == format!("slurm:testclu:{pending}")), "pending: not recorded");
}

const HEADER: &str =
    "JobID|JobIDRaw|JobName|User|Account|Partition|Cluster|State|Start|End|ElapsedRaw|NCPUS|CPUTimeRAW|AllocTRES|ConsumedEnergyRaw";

#[test]
fn a_saved_file_imports_whole_or_not_at_all() {
    let env = Env::new().env("TZ", "UTC");
    let good = format!(
        "{HEADER}\n\
         10|10|a|u1|acc|gpu|c1|COMPLETED|2026-11-02T10:00:00|2026-11-02T12:00:00|7200|4|28800|billing=4,cpu=4,gres/gpu=2,node=1|36000000\n\
         10.batch|10.batch|batch||acc||c1|COMPLETED|2026-11-02T10:00:00|2026-11-02T12:00:00|7200|4|28800|cpu=4,gres/gpu=2,node=1|36000000\n\
         11|11|b|u2|acc|cpu|c1|COMPLETED|2026-11-02T10:00:00|2026-11-02T11:00:00|3600|16|57600|billing=16,cpu=16,node=1|0\n"
    );
    let bad = format!("{good}12|12|c|u3|acc|cpu|c1|COMPLETED|2026-11-02T10:00:00|2026-11-02T11:00:00|an hour|1|3600|cpu=1|\n");
    let path = env.file("bad.txt", &bad);
    let out = env.run(&["import", "slurm", "--file", path.to_str().unwrap()]);
    fails(&out, 2, "line 5, field ElapsedRaw: 'an hour' is not a whole number");
    assert!(stderr(&out).contains("nothing was imported"), "{}", stderr(&out));
    assert!(!env.dir.path().join("data/examlops/records.sqlite3").exists(), "a refused file writes nothing");
    let skipped = env.json::<Value>(&["import", "slurm", "--file", path.to_str().unwrap(), "--skip-bad"]);
    assert_eq!((skipped["imported"].as_u64(), skipped["steps"].as_u64()), (Some(2), Some(1)));
    assert_eq!(skipped["bad_lines"][0], serde_json::json!({"line": 5, "field": "ElapsedRaw", "why": "'an hour' is not a whole number"}));
    // Node energy is the job's only when it held its nodes alone.
    let dry = |extra: &[&str]| {
        let p = env.file("good.txt", &good);
        env.json::<Value>(&[&["import", "slurm", "--file", p.to_str().unwrap(), "--dry-run"][..], extra].concat())
    };
    let shared = dry(&[]);
    assert!(job(&shared, "slurm:c1:10").get("node_kwh").is_some_and(Value::is_null));
    assert!(shared["notes"][0].as_str().unwrap().contains("whole nodes"), "{}", shared["notes"]);
    let exclusive = dry(&["--exclusive"]);
    assert_eq!(job(&exclusive, "slurm:c1:10")["node_kwh"], 10.0, "36,000,000 J");
    assert!(job(&exclusive, "slurm:c1:11").get("node_kwh").is_some_and(Value::is_null), "0 J is not a measurement");
    assert_eq!(exclusive["energy_measured"], 1);
    assert_eq!(job(&exclusive, "slurm:c1:10")["gpu_hours"], 4.0);
    assert_eq!(job(&exclusive, "slurm:c1:11")["cpu_hours"], 16.0);
    // Without a Cluster column the cluster must be named; --since/--until pick by the end time.
    let no_cluster = env.file(
        "nc.txt",
        "JobID|State|Start|End|ElapsedRaw|CPUTimeRAW|AllocTRES\n5|COMPLETED|2026-11-02T10:00:00|2026-11-02T11:00:00|3600|3600|cpu=1\n",
    );
    fails(&env.run(&["import", "slurm", "--file", no_cluster.to_str().unwrap()]), 2, "name the cluster with --cluster");
    let named = env.json::<Value>(&["import", "slurm", "--file", no_cluster.to_str().unwrap(), "--cluster", "hpc1", "--dry-run"]);
    assert_eq!((named["cluster_from"].as_str(), named["jobs"][0]["run_id"].as_str()), (Some("--cluster"), Some("slurm:hpc1:5")));
    let window = env.json::<Value>(&[
        "import",
        "slurm",
        "--file",
        no_cluster.to_str().unwrap(),
        "--cluster",
        "hpc1",
        "--since",
        "2026-11-03",
        "--dry-run",
    ]);
    assert_eq!(window["skipped"]["ended outside --since/--until"], 1);
    // Standard input, and a file that is not sacct's.
    let piped_args = ["-o", "json", "import", "slurm", "--file", "-", "--dry-run"];
    let mut child = env.cmd().args(piped_args).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), good.as_bytes()).unwrap();
    let piped: Value = crate::common::answer(&piped_args, &child.wait_with_output().unwrap());
    assert_eq!(piped["source"], "standard input");
    let junk = env.file("junk.txt", "hello world\n");
    fails(&env.run(&["import", "slurm", "--file", junk.to_str().unwrap()]), 2, "not a `sacct -P` header");
    fails(&env.run(&["import", "slurm", "--file", "/nonexistent/sacct.txt"]), 2, "--file /nonexistent/sacct.txt");
    fails(&env.run(&["import", "slurm", "--since", "yesterday"]), 2, "--since");
    // The file is read a line at a time: blank lines before the header still count, a byte that is not
    // text is named by its place in the file, and a folder is not a file.
    let padded = env.file("padded.txt", &format!("\n\n{bad}"));
    fails(&env.run(&["import", "slurm", "--file", padded.to_str().unwrap()]), 2, "line 7, field ElapsedRaw");
    let mut binary = good.clone().into_bytes();
    let at = binary.len();
    binary.extend(b"13|13|\xff|u|a|p|c1|COMPLETED|||1|1|1|cpu=1|\n");
    let binary_path = env.dir.path().join("binary.txt");
    std::fs::write(&binary_path, &binary).unwrap();
    fails(&env.run(&["import", "slurm", "--file", binary_path.to_str().unwrap()]), 2, &format!("not UTF-8 text (byte {})", at + 6));
    let folder = env.dir.path().join("a-folder");
    std::fs::create_dir(&folder).unwrap();
    fails(&env.run(&["import", "slurm", "--file", folder.to_str().unwrap()]), 2, &format!("--file {}", folder.display()));
}

#[test]
fn local_times_are_read_in_the_zone_on_either_side_of_a_clock_change() {
    // Berlin: CET (+1) in winter, CEST (+2) from 2026-03-29 02:00 to 2026-10-25 03:00.
    let env = Env::new().env("TZ", "Europe/Berlin");
    let line = |id: u32, end: &str| format!("{id}|{id}|j|u|acc|gpu|c1|COMPLETED|2026-01-01T00:00:00|{end}|3600|1|3600|cpu=1,gres/gpu=1|\n");
    let text = [
        line(1, "2026-03-29T01:30:00"),
        line(2, "2026-03-29T03:30:00"),
        line(3, "2026-07-01T12:00:00"),
        line(4, "2026-10-25T03:30:00"),
        line(5, "2026-12-01T12:00:00"),
        line(6, "2026-03-29T01:59:59"),
        line(7, "2026-03-29T03:00:00"),
    ]
    .concat();
    let path = env.file("dst.txt", &format!("{HEADER}\n{text}"));
    let dry = env.json::<Value>(&["import", "slurm", "--file", path.to_str().unwrap(), "--dry-run"]);
    let ended = |id: &str| job(&dry, &format!("slurm:c1:{id}"))["ended"].as_str().unwrap().to_string();
    assert_eq!(ended("1"), "2026-03-29T00:30:00Z");
    assert_eq!(ended("2"), "2026-03-29T01:30:00Z");
    assert_eq!(ended("3"), "2026-07-01T10:00:00Z");
    assert_eq!(ended("4"), "2026-10-25T02:30:00Z");
    assert_eq!(ended("5"), "2026-12-01T11:00:00Z");
    assert_eq!(ended("6"), "2026-03-29T00:59:59Z");
    assert_eq!(ended("7"), "2026-03-29T01:00:00Z");
}

#[test]
fn one_jobs_name_never_stops_the_clusters_import() {
    // A user's job named with a line break splits its line of `sacct -P`: that job's lines are left out and
    // said, and every other job of the cluster is imported (a saved file is still whole or nothing).
    let sl = Slurm::start();
    let odd = sl.sbatch("-c 1 -J $'two\\nlines' --wrap 'sleep 1'");
    let plain = sl.sbatch("-c 1 -J plain --wrap 'sleep 1'");
    // A name written to read, after its line break, as sacct's line of another user's job with 8 GPUs: never a job.
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let (from, to) = (exa::time::local_iso(now - 1800), exa::time::local_iso(now - 600));
    let forged = format!(
        "x\\n4242\\x1f4242\\x1fforged\\x1fvictim\\x1fbank\\x1fgpu\\x1f\\x1f\\x1ftestclu\\x1fCOMPLETED\\x1f{from}\\x1f{to}\\x1f1200\\x1f64\\x1f76800\\x1fbilling=64,cpu=64,gres/gpu=8,node=1\\x1f0\\n"
    );
    let forger = sl.sbatch(&format!("-c 1 -J $'{forged}' --wrap 'sleep 1'"));
    sl.wait_states(&[&odd, &plain, &forger], &["COMPLETED"]);
    let env = Env::new().env("SLURM_CONF", &sl.conf()).env("PATH", &system_path());
    let since = &crate::metrics::iso(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64 - 3600);
    let args = ["-o", "json", "import", "slurm", "--since", since];
    let out = env.run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("left out, the rest imported"), "{}", stderr(&out));
    let v: Value = crate::common::answer(&args, &out);
    assert_eq!(v["imported"], 1, "{v}");
    assert!(!v["bad_lines"].as_array().unwrap().is_empty(), "{v}");
    let runs = env.json::<Value>(&["report", "--by", "run"]);
    assert_eq!(runs["groups"][0]["key"], format!("slurm:testclu:{plain}"), "{runs}");
    let users = env.json::<Value>(&["report", "--by", "user"]);
    assert!(!users.to_string().contains("victim"), "a job forged in a name was imported: {users}");
    assert_eq!(users["totals"]["gpu_hours"], 0.0, "{users}");
}

#[test]
fn a_prolog_and_epilog_measure_a_job_submitted_as_usual() {
    // deploy/slurm's two scripts, as a site installs them, with their settings beside them: this build of
    // exa, a ledger, and the fake nvidia-smi's four H100s for the node's four GPUs.
    let env = crate::common::fake_smi(Env::new(), crate::telemetry::H100).env("FAKE_SMI_DEVICES", "4");
    let d = env.dir.path();
    let hooks = d.join("hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let deploy = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/slurm");
    for script in ["exa-prolog.sh", "exa-epilog.sh"] {
        std::fs::copy(deploy.join(script), hooks.join(script)).unwrap();
    }
    let (db, run_dir) = (d.join("ledger.sqlite3"), d.join("exa-run"));
    let capture = crate::common::fixtures().join("gpu").join(crate::telemetry::H100);
    let settings = format!(
        "EXA='{exa}'\nEXA_RUN_DIR='{run}'\nEXAMLOPS_DB='{db}'\nEXAMLOPS_GPU_SOURCE=nvidia-smi\nEXAMLOPS_GPU_INTERVAL=0.5\n\
         PATH='{smi}:/usr/bin:/bin'\nFAKE_SMI_CAPTURE='{capture}'\nFAKE_SMI_DEVICES=4\n\
         XDG_CONFIG_HOME='{d}/config'\nXDG_DATA_HOME='{d}/data'\nXDG_CACHE_HOME='{d}/cache'\nSLURM_CONF='{d}/slurm.conf'\n",
        exa = env!("CARGO_BIN_EXE_exa"),
        run = run_dir.display(),
        db = db.display(),
        smi = d.join("smibin").display(),
        capture = capture.display(),
        d = d.display(),
    );
    std::fs::write(hooks.join("exa-slurm.env"), settings).unwrap();
    // It may hold the ledger's password: root's alone, as docs/deploy.md installs it.
    std::fs::set_permissions(hooks.join("exa-slurm.env"), std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let sl = Slurm::start_with(&format!("Prolog={0}/exa-prolog.sh\nEpilog={0}/exa-epilog.sh", hooks.display()));
    // The prolog asks slurmctld for the job's name: this cluster's slurm.conf is not where a site's is.
    std::os::unix::fs::symlink(sl.conf(), d.join("slurm.conf")).unwrap();
    // Submitted as any job is: nothing in it names exa.
    let gpu = sl.sbatch("--gres=gpu:2 -c 2 -J train-llm -p gpu --wrap 'sleep 3'");
    let cpu = sl.sbatch("-c 1 -J prep --wrap 'sleep 1'");
    // Names a user may choose, each the user's data: a leading '-', a tab, an escape, 250 characters.
    let long = "n".repeat(250);
    let odd: Vec<String> = ["--job-name=-dash", "-J $'tab\there'", "-J $'esc\x1b[2Jname'", &format!("-J {long}")]
        .iter()
        .map(|name| sl.sbatch(&format!("--gres=gpu:1 -c 1 -p gpu {name} --wrap 'sleep 2'")))
        .collect();
    let mut all: Vec<&str> = vec![&gpu, &cpu];
    all.extend(odd.iter().map(String::as_str));
    sl.wait_states(&all, &["COMPLETED"]);
    let run = format!("slurm:testclu:{gpu}");
    let report = |by: &str| env.json::<Value>(&["--db", db.to_str().unwrap(), "report", "--by", by]);
    let started = Instant::now();
    while !db.exists() || !report("run")["groups"].as_array().unwrap().iter().any(|g| g["key"] == run.as_str()) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the epilog never recorded {run}: {:?}",
            std::fs::read_dir(&run_dir)
                .map(|d| d.flatten().map(|e| (e.file_name(), std::fs::read_to_string(e.path()).unwrap_or_default())).collect::<Vec<_>>())
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    let by_run = report("run");
    let groups: Vec<&Value> = by_run["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| !odd.iter().any(|j| g["key"] == format!("slurm:testclu:{j}").as_str()))
        .collect();
    assert_eq!(groups.len(), 1, "the CPU-only job is left to the importer: {by_run}");
    let g = groups[0];
    assert_eq!((g["runs_measured"].as_u64(), g["records"]["carbon"].as_u64()), (Some(1), Some(1)), "{g}");
    assert!(g["kwh"].as_f64().is_some_and(|k| k > 0.0), "measured energy: {g}");
    // The job's 2 CPUs are in the measurement (squeue's %C): CPU work is never dropped for the GPUs' energy.
    assert!(g["cpu_hours"].as_f64().is_some_and(|h| h > 0.0), "the measurement holds no CPU-hours: {g}");
    // The job's two GPUs only, of the node's four: the measurement's own report says which.
    // The prolog's `exa finops measure --report`.
    let measured = crate::common::report_file(&run_dir.join(format!("{gpu}.json")));
    assert_eq!(measured["gpu"]["devices"].as_array().unwrap().len(), 2, "{measured}");
    assert!(measured["interrupted"].as_str().is_some(), "ended by the epilog: {measured}");
    // Who ran it and where, as Slurm says: the record groups by them.
    let key = |by: &str| {
        let r = env.json::<Value>(&["--db", db.to_str().unwrap(), "report", "--by", by, "train-llm"]);
        r["groups"][0]["key"].as_str().unwrap().to_string()
    };
    assert_eq!((key("user"), key("account"), key("partition")), ("root".to_string(), "root".to_string(), "gpu".to_string()));
    // The model is the job's name; no pid file is left behind.
    assert_eq!(key("model"), "train-llm");
    // The epilog removes the trace once the measurement has ended, a moment after its records.
    let started = Instant::now();
    while run_dir.join(format!("{gpu}.jsonl")).exists() {
        assert!(started.elapsed() < Duration::from_secs(60), "the epilog left the trace behind");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!run_dir.join(format!("{gpu}.pid")).exists());
    odd_names_are_one_model_each(&env, &sl, &db, &odd, &long);
}

/// Imports the prolog test's jobs: each job with an odd name (`odd`, named as `names` says) is one run under the model
/// the importer makes of its name, its measurement superseding the import's estimates.
fn odd_names_are_one_model_each(env: &Env, sl: &Slurm, db: &Path, odd: &[String], long: &str) {
    let d = env.dir.path();
    // Every odd name was measured too, under the model the importer makes of it: importing the jobs adds their
    // estimates to the same runs and models, which the measurements supersede.
    let started = Instant::now();
    let measured_all = || {
        let runs = env.json::<Value>(&["--db", db.to_str().unwrap(), "report", "--by", "run"]);
        odd.iter().all(|j| runs["groups"].as_array().unwrap().iter().any(|g| g["key"] == format!("slurm:testclu:{j}").as_str()))
    };
    while !measured_all() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "a job with an odd name was never measured: {}",
            env.json::<Value>(&["--db", db.to_str().unwrap(), "report", "--by", "run"])
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    let imported = Command::new(env!("CARGO_BIN_EXE_exa"))
        .args(["--db", db.to_str().unwrap(), "-o", "json", "import", "slurm", "--since", "-1d"])
        .env("SLURM_CONF", sl.conf())
        .env("PATH", system_path())
        .env("HOME", d)
        .output()
        .unwrap();
    assert!(imported.status.success(), "{}", stderr(&imported));
    for (j, name) in odd.iter().zip(["-dash", "tab\there", "esc\u{1b}[2Jname", long]) {
        let (run, model) = (format!("slurm:testclu:{j}"), exa::store::model_of(Some(name), "name"));
        assert!(!model.contains('\u{1b}') && !model.contains('\t') && model.chars().count() <= 200, "{model:?}");
        let runs = env.json::<Value>(&["--db", db.to_str().unwrap(), "report", "--by", "run", "--", &model]);
        let g = runs["groups"].as_array().unwrap().iter().find(|g| g["key"] == run.as_str());
        let all = || env.json::<Value>(&["--db", db.to_str().unwrap(), "report", "--by", "model"]);
        let g = g.unwrap_or_else(|| panic!("{run} is not under the importer's model {model:?}: {}", all()));
        // The measurement counted, the import's estimates (carbon and cost) superseded by it.
        let counted = (g["runs_measured"].as_u64(), g["records"]["carbon"].as_u64(), g["records_not_counted"].as_u64());
        assert_eq!(counted, (Some(1), Some(1), Some(2)), "the measurement and the import: {g}");
    }
}

#[test]
fn a_listing_read_in_two_halves_is_chosen_and_imported_in_order() {
    // Over 16 MiB: read in two halves at once, whose jobs are kept in two lists. Pending jobs fill it; a job in each
    // half is imported, one in the second half is the first half's again, and a pending one is in both halves.
    let env = Env::new().env("TZ", "UTC");
    let done = |id: u32| {
        format!("{id}|{id}|j|u{id}|acc|gpu|c1|COMPLETED|2026-11-02T10:00:00|2026-11-02T12:00:00|7200|4|28800|billing=4,cpu=4,gres/gpu=1,node=1|0\n")
    };
    let pending = |id: u32| format!("{id}|{id}|p|u|acc|gpu|c1|PENDING|Unknown|Unknown|0|4|0|billing=4,cpu=4,gres/gpu=1,node=1|0\n");
    let mut text = format!("{HEADER}\n{}", done(1));
    let mut id = 100;
    while text.len() < 17 << 20 {
        text.push_str(&pending(id));
        id += 1;
    }
    let half = text.len();
    text.push_str(&done(2));
    text.push_str(&done(1));
    while text.len() < 2 * half {
        text.push_str(&pending(id));
        id += 1;
    }
    let path = env.file("long.txt", &text);
    let v = env.json::<Value>(&["import", "slurm", "--file", path.to_str().unwrap()]);
    let pendings = u64::from(id - 100);
    assert_eq!((v["jobs_read"].as_u64(), v["imported"].as_u64()), (Some(pendings + 3), Some(2)), "{v}");
    assert_eq!((v["skipped"]["pending"].as_u64(), v["skipped"]["listed twice in the input"].as_u64()), (Some(pendings), Some(1)), "{v}");
    assert_eq!(v["records_written"], 4, "{v}");
    let report = env.json::<Value>(&["report", "--by", "run"]);
    let runs: Vec<&str> = report["groups"].as_array().unwrap().iter().map(|g| g["key"].as_str().unwrap()).collect();
    assert_eq!(runs, ["slurm:c1:1", "slurm:c1:2"], "{report}");
}

#[test]
fn a_job_listed_twice_is_imported_once_and_a_steps_bad_field_is_still_a_bad_line() {
    let env = Env::new().env("TZ", "UTC");
    let job = "11|11|b|u2|acc|cpu|c1|COMPLETED|2026-11-02T10:00:00|2026-11-02T11:00:00|3600|16|57600|billing=16,cpu=16,node=1|0";
    let twice = env.file("twice.txt", &format!("{HEADER}\n{job}\n{job}\n"));
    let v = env.json::<Value>(&["import", "slurm", "--file", twice.to_str().unwrap()]);
    assert_eq!((v["jobs_read"].as_u64(), v["imported"].as_u64()), (Some(2), Some(1)), "{v}");
    assert_eq!(v["skipped"]["listed twice in the input"], 1, "{v}");
    assert_eq!(v["records_written"], 2, "a carbon and a cost record, once: {v}");
    // A step is dropped once read, but read it is: a bad time in it is a bad line like any other.
    let step = "12.batch|12.batch|batch||acc||c1|COMPLETED|2026-11-02T10:00:00|2026-11-31T11:00:00|3600|16|57600|cpu=16,node=1|0";
    let bad = env.file("bad-step.txt", &format!("{HEADER}\n{job}\n{step}\n"));
    let out = env.run(&["import", "slurm", "--file", bad.to_str().unwrap()]);
    fails(&out, 2, "line 3, field End: '2026-11-31T11:00:00' is not a time like 2026-11-30T07:45:00");
}

/// deploy/slurm/exa-budget-gate.sh as the controller's PrologSlurmctld: a job whose account is over its budget is
/// refused before it starts (slurmctld requeues it to begin later, the gate's line in its log, and asks again
/// then); with the budget raised, its next try runs. The node is never drained.
#[test]
fn the_controllers_gate_refuses_a_job_whose_account_is_over_its_budget_until_it_is_not() {
    let env = Env::new();
    let d = env.dir.path();
    let hooks = d.join("hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/slurm/exa-budget-gate.sh"), hooks.join("exa-budget-gate.sh")).unwrap();
    let (db, run_dir) = (d.join("ledger.sqlite3"), d.join("exa-run"));
    let settings = format!(
        "EXA='{exa}'\nEXA_RUN_DIR='{run}'\nEXAMLOPS_DB='{db}'\nXDG_CONFIG_HOME='{d}/config'\nXDG_DATA_HOME='{d}/data'\n",
        exa = env!("CARGO_BIN_EXE_exa"),
        run = run_dir.display(),
        db = db.display(),
        d = d.display(),
    );
    std::fs::write(hooks.join("exa-slurm.env"), settings).unwrap();
    std::fs::set_permissions(hooks.join("exa-slurm.env"), std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    // Account root's month: 40 GPU-hours imported (24 kWh), over a budget of 1 kWh.
    let (month, _) = exa::time::month(exa::time::now_unix());
    let end = exa::time::iso8601((month + 60).min(exa::time::now_unix()));
    let end = end.trim_end_matches('Z');
    let sacct = format!(
        "JobID|JobIDRaw|JobName|User|Account|Partition|State|Start|End|ElapsedRaw|CPUTimeRAW|AllocTRES\n\
         1|1|a|root|root|gpu|COMPLETED|{end}|{end}|36000|0|gres/gpu=4\n"
    );
    let file = env.file("sacct.txt", &sacct);
    let db_arg = db.to_str().unwrap();
    let imported: Value = env.json(&["--db", db_arg, "import", "slurm", "--file", file.to_str().unwrap(), "--cluster", "old"]);
    assert_eq!(imported["imported"], 1, "{imported}");
    let set = |kwh: &str| {
        let out = env.run(&["--db", db_arg, "budget", "set", "root-month", "--scope", "account=root", "--period", "month", "--kwh", kwh]);
        assert!(out.status.success(), "{}", crate::common::stderr(&out));
    };
    set("1");
    let sl = Slurm::start_with(&format!("PrologSlurmctld={}/exa-budget-gate.sh", hooks.display()));
    let job = sl.sbatch("-J over --wrap 'true'");
    let log = run_dir.join("exa-gate.log");
    let started = Instant::now();
    while !std::fs::read_to_string(&log).is_ok_and(|l| l.contains(&format!("job {job}: over: budget 'root-month' (account=root, month)"))) {
        assert!(started.elapsed() < Duration::from_secs(60), "the gate never refused job {job}: {:?}", std::fs::read_to_string(&log));
        std::thread::sleep(Duration::from_millis(200));
    }
    // Refused: pending again, to begin later (Slurm's requeue delay), not run; the node stays up.
    let started = Instant::now();
    loop {
        let state = sl.sh(&format!("squeue -h -j {job} -o '%T %r'"));
        if state == "PENDING BeginTime" {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "job {job}: {state}");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(!sl.sh("sinfo -h -o '%T'").contains("drain"), "{}", sl.sh("sinfo -h -o '%T %E'"));
    // Tried again and again, past MaxBatchRequeue's 5 (each try brought forward), it is refused each time and
    // stays pending, never held.
    for tries in 2..=6 {
        sl.sh(&format!("scontrol update JobId={job} StartTime=now"));
        let started = Instant::now();
        loop {
            let refused = std::fs::read_to_string(&log).unwrap_or_default().matches(&format!("job {job}: over")).count();
            let state = sl.sh(&format!("squeue -h -j {job} -o '%T %r'"));
            // Pending to begin later again: never held, however many tries (Slurm's MaxBatchRequeue does not
            // count them).
            if refused >= tries && state == "PENDING BeginTime" {
                break;
            }
            assert!(!state.to_lowercase().contains("held"), "try {tries}: {state}");
            assert!(started.elapsed() < Duration::from_secs(300), "try {tries} of job {job}: {refused} refusals, {state}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    // The budget raised, its next try (brought forward) runs.
    set("1000");
    sl.sh(&format!("scontrol update JobId={job} StartTime=now"));
    sl.wait_states(&[&job], &["COMPLETED"]);
}
