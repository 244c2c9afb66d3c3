//! What an attacker and a bad day found (issue: hardening), one test per
//! finding, each on the real binary.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{fails, stderr, stdout, Env};
use crate::http::{Answer, Server};

/// A fake nvidia-smi answering any field list: `FAKE_NAME`, `FAKE_POWER`,
/// `FAKE_SLEEP` (seconds per call) and `FAKE_DUP` (two devices with index 0).
const SMI: &str = r#"#!/usr/bin/env python3
import os, sys, time
q = [a for a in sys.argv[1:] if a.startswith("--query-gpu=")][0].split("=", 1)[1].split(",")
time.sleep(float(os.environ.get("FAKE_SLEEP", "0")))
def cell(f, i):
    return {"index": str(i), "name": os.environ.get("FAKE_NAME", "Fake GPU"), "power.draw": os.environ.get("FAKE_POWER", "300"), "pstate": "P0"}.get(f, "1")
rows = [0, 0] if os.environ.get("FAKE_DUP") else [0]
for i in rows:
    print(", ".join(cell(f, i) for f in q))
"#;

fn with_fake_smi(env: Env) -> Env {
    let bin = env.dir.path().join("smibin");
    env.program("smibin/nvidia-smi", SMI);
    env.path_first(&bin)
}

/// What exa run with `args` printed, checked against the JSON contract (`common::answer`).
fn json_of(args: &[&str], out: &std::process::Output) -> Value {
    crate::common::answer(args, out)
}

// 1. Secrets: a provider file cannot reach the environment, and no value read from it is echoed.
#[test]
fn provider_files_cannot_read_secrets_and_values_are_never_echoed() {
    let env = Env::new().env("AWS_SECRET_ACCESS_KEY", "s3cr3t-value-1");
    let p = env.file(
        "p/leak.yaml",
        "name: leak\ndomain: cost\nmethodology: m\ncoefficients:\n  gpu_rate: {default: 1, env: AWS_SECRET_ACCESS_KEY}\nformulas:\n  cost_usd: gpu_hours * gpu_rate\n",
    );
    let out = env.run(&["--strict", "finops", "cost", "estimate", "--gpu-hours", "1", "--provider", p.to_str().unwrap()]);
    fails(&out, 1, "env AWS_SECRET_ACCESS_KEY is not a variable a provider may read");
    assert!(!stderr(&out).contains("s3cr3t"));
    let env = Env::new().env("GPU_COST_PER_HOUR", "hunter2-secret");
    let out = env.run(&["finops", "cost", "estimate", "--gpu-hours", "1"]);
    fails(&out, 2, "GPU_COST_PER_HOUR is not a number");
    assert!(!stderr(&out).contains("hunter2"), "{}", stderr(&out));
}

// 2. Credentials in URLs are hidden wherever a URL is shown or stored.
#[test]
fn url_credentials_never_show() {
    let url = "http://alice:pw-secret@127.0.0.1:9/x;token=semi-secret?pass=q-secret&code=c-secret&zone=FR#token=f-secret";
    let env = Env::new().env("EXAMLOPS_GRID_INTENSITY_URL", url);
    let args = ["-o", "json", "finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", "grid-live"];
    let out = env.run(&args);
    let all = format!("{}{}", stdout(&out), stderr(&out));
    for secret in ["pw-secret", "semi-secret", "q-secret", "c-secret", "f-secret", "alice"] {
        assert!(!all.contains(secret), "{secret} leaked: {all}");
    }
    assert!(json_of(&args, &out)["grid"]["url"].as_str().unwrap().contains("REDACTED"));
    let env = Env::new();
    env.config("clusters:\n  c1:\n    prometheus: http://bob:prom-secret@127.0.0.1:9/\n    gpu_vendor: nvidia\n    gpu_model: H100\n");
    for args in
        [&["metrics", "clusters"][..], &["-o", "json", "metrics", "clusters"], &["metrics", "node", "--cluster", "c1", "--node", "n1"]]
    {
        let out = env.run(args);
        let all = format!("{}{}", stdout(&out), stderr(&out));
        assert!(!all.contains("prom-secret") && !all.contains("bob"), "{args:?}: {all}");
    }
}

// 3. Plugins and provider files someone else could change are refused.
#[test]
fn writable_plugin_and_provider_files_are_refused() {
    let env = Env::new();
    let plugin = env.program("open/exa-cost-shared", "#!/bin/sh\necho '{}'\n");
    let dir = plugin.parent().unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = env.run(&["finops", "cost", "estimate", "--gpu-hours", "1", "--strict", "--provider", plugin.to_str().unwrap()]);
    fails(&out, 1, "is writable by everyone");
    let file = env.file("p2/mine.yaml", "name: mine\ndomain: cost\nmethodology: m\nformulas:\n  cost_usd: gpu_hours\n");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    let out = env.run(&["finops", "cost", "estimate", "--gpu-hours", "1", "--strict", "--provider", file.to_str().unwrap()]);
    fails(&out, 1, "chmod go-w");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(
        env.run(&["finops", "cost", "estimate", "--gpu-hours", "1", "--strict", "--provider", file.to_str().unwrap()]).status.code(),
        Some(0)
    );
}

// 4. Reports write through links and special files, and a report failure keeps the command's status.
#[test]
fn reports_follow_links_and_never_hide_the_commands_status() {
    let env = with_fake_smi(Env::new());
    let target = env.file("real-report.json", "old");
    let link = env.dir.path().join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let args = ["-o", "json", "finops", "measure", "--interval", "0.1", "--report", link.to_str().unwrap(), "--", "true"];
    let out = env.run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is still a link");
    let r: Value = crate::common::checked(&args, &std::fs::read(&target).unwrap());
    assert_eq!(r["exit_code"], 0);
    let dir = env.dir.path().join("a-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let out = env.run(&["finops", "measure", "--interval", "0.1", "--report", dir.to_str().unwrap(), "--", "sh", "-c", "exit 3"]);
    assert_eq!(out.status.code(), Some(3), "the command's status survives: {}", stderr(&out));
    assert!(stderr(&out).contains("cannot write the report"));
    let out = env.run(&["finops", "measure", "--interval", "0.1", "--report", dir.to_str().unwrap(), "--", "true"]);
    assert_eq!(out.status.code(), Some(1), "a lost report is a failure");
    let cfg = env.file("cfg-target.yaml", "# mine\n");
    let cfg_link = env.dir.path().join("cfg-link.yaml");
    std::os::unix::fs::symlink(&cfg, &cfg_link).unwrap();
    let out = env.run(&["--config", cfg_link.to_str().unwrap(), "config", "init", "--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::symlink_metadata(&cfg_link).unwrap().file_type().is_symlink());
    assert!(std::fs::read_to_string(&cfg).unwrap().contains("finops"));
}

// 5. Every argument is checked before anything runs or is written.
#[test]
fn bad_formats_are_refused_before_side_effects() {
    let env = Env::new();
    let db = env.dir.path().join("r.db");
    let out = env.run(&["-o", "csv", "--db", db.to_str().unwrap(), "finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    fails(&out, 2, "-o csv is for `exa report`");
    assert!(!db.exists(), "nothing was recorded");
    let marker = env.dir.path().join("ran");
    let out = env.run(&["-o", "csv", "finops", "measure", "--", "touch", marker.to_str().unwrap()]);
    fails(&out, 2, "-o csv");
    assert!(!marker.exists(), "the job never started");
}

#[test]
fn a_record_that_cannot_be_confirmed_stays_recorded_and_says_so() {
    let env = Env::new();
    let db = env.dir.path().join("r.db");
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = env
        .cmd()
        .args(["--db", db.to_str().unwrap(), "finops", "carbon", "record", "M", "--gpu-hours", "1"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("record #1 is stored"), "{}", stderr(&out));
    let r: Value = env.json(&["--db", db.to_str().unwrap(), "report"]);
    assert_eq!(r["totals"]["records"]["carbon"], 1);
}

// 6, 7. Reading never creates or migrates; an in-memory store is refused.
#[test]
fn reports_only_read_and_memory_stores_are_refused() {
    let env = Env::new();
    let empty = env.file("empty.db", "");
    let r: Value = env.json(&["--db", empty.to_str().unwrap(), "report"]);
    assert_eq!(r["totals"]["runs"], 0);
    assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0, "a 0-byte file is left as it was");
    let missing = env.dir.path().join("none.db");
    env.json::<Value>(&["--db", missing.to_str().unwrap(), "report"]);
    assert!(!missing.exists());
    let out = env.run(&["--db", ":memory:", "finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    fails(&out, 2, "in-memory database");
}

// 8. Durations are bounded where they are parsed, before anything starts.
#[test]
fn huge_durations_are_refused_before_the_job_starts() {
    let env = with_fake_smi(Env::new());
    let marker = env.dir.path().join("ran");
    let out = env.run(&["finops", "measure", "--interval", "1e20", "--", "touch", marker.to_str().unwrap()]);
    fails(&out, 2, "--interval");
    assert!(!marker.exists());
    let out = env
        .cmd()
        .env("EXAMLOPS_GPU_INTERVAL", "1e20")
        .args(["finops", "measure", "--", "touch", marker.to_str().unwrap()])
        .output()
        .unwrap();
    fails(&out, 2, "EXAMLOPS_GPU_INTERVAL");
    assert!(!marker.exists());
    env.config("finops:\n  cost:\n    plugin_timeout_s: 1e20\n");
    fails(&env.run(&["finops", "cost", "providers"]), 2, "plugin_timeout_s");
    env.config("finops:\n  carbon:\n    grid:\n      timeout_s: 1e20\n");
    fails(&env.run(&["finops", "carbon", "providers"]), 2, "timeout_s");
}

// 9. A stderr that cannot be written never costs the exit status.
#[test]
fn a_full_or_closed_stderr_never_panics() {
    let env = Env::new();
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = env.cmd().args(["finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", "no-such"]).stderr(full).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "a warning into /dev/full is lost, nothing else");
    assert!(stdout(&out).contains("kWh"));
    let env = with_fake_smi(env);
    let mut child = env
        .cmd()
        .args(["finops", "measure", "--interval", "0.1", "--", "sh", "-c", "sleep 0.3; exit 4"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    assert_eq!(child.wait().unwrap().code(), Some(4), "the job's status, not a panic");
}

// 10. An HTTP timeout is a deadline for the whole exchange.
#[test]
fn a_trickling_server_cannot_hold_exa() {
    let srv = Server::start(Answer::Trickle);
    let env = Env::new();
    env.config(&format!("finops:\n  carbon:\n    grid:\n      url: {}\n      timeout_s: 1\n", srv.url("/ci")));
    let started = Instant::now();
    let out = env.run(&["-o", "json", "finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", "grid-live"]);
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert!(stderr(&out).contains("no answer within 1.0 s"), "{}", stderr(&out));
    let env = Env::new();
    env.config(&format!(
        "clusters:\n  c1:\n    prometheus: {}\n    gpu_vendor: nvidia\n    gpu_model: H100\n    timeout_s: 1\n",
        srv.url("")
    ));
    let started = Instant::now();
    let out = env.run(&["metrics", "query", "--cluster", "c1", "up"]);
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    fails(&out, 1, "no answer in time");
}

// 11. Memory stays a small multiple of the answer.
#[test]
fn a_large_prometheus_answer_takes_a_small_multiple_of_its_size() {
    let mut body = String::from(r#"{"status":"success","data":{"resultType":"matrix","result":["#);
    for s in 0..400 {
        if s > 0 {
            body.push(',');
        }
        body.push_str(&format!(r#"{{"metric":{{"__name__":"up","instance":"node-{s}","job":"dcgm"}},"values":["#));
        for i in 0..1000 {
            if i > 0 {
                body.push(',');
            }
            body.push_str(&format!(r#"[{}.000,"{}.5"]"#, 1_700_000_000 + i * 15, i));
        }
        body.push_str("]}");
    }
    body.push_str("]}}");
    let mib = body.len() as f64 / f64::from(1 << 20);
    let srv = Server::start(Answer::Body(200, "application/json", body));
    let env = Env::new();
    env.config(&format!("clusters:\n  c1:\n    prometheus: {}\n    gpu_vendor: nvidia\n    gpu_model: H100\n", srv.url("")));
    // exa's own peak memory, as a small Python parent sees it: a child forked from this big test
    // process would carry the test's resident pages into its maximum, and so would any child of it.
    let probe = "import resource, subprocess, sys\n\
                 r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n\
                 print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)";
    let exa = env!("CARGO_BIN_EXE_exa");
    let out = env.cmd_for("python3").args(["-c", probe, exa, "-o", "json", "metrics", "query", "--cluster", "c1", "up"]).output().unwrap();
    let said = stdout(&out);
    let (code, kib) = said.trim().split_once(' ').unwrap_or_else(|| panic!("{said} {}", stderr(&out)));
    assert_eq!(code, "0", "exa failed: {}", stderr(&out));
    let rss_mib = kib.parse::<f64>().unwrap() / 1024.0;
    eprintln!("{rss_mib:.0} MiB of memory for a {mib:.1} MiB answer");
    assert!(rss_mib < 6.0 * mib + 48.0, "{rss_mib:.0} MiB of memory for a {mib:.1} MiB answer");
}

// 12. A plugin leaves nothing running.
#[test]
fn a_plugin_never_leaves_children_behind() {
    let env = Env::new();
    let tag = format!("{}", f64::from(std::process::id()) + 0.25);
    let plugin = env.program(
        "plugins/exa-cost-stray",
        &format!("#!/bin/sh\nsleep {tag} &\ncase \"$1\" in metadata) echo '{{\"protocol\":1,\"name\":\"stray\",\"methodology\":\"m\",\"outputs\":[\"cost_usd\"]}}';; *) echo '{{\"cost_usd\": 1}}';; esac\n"),
    );
    let out = env.run(&["finops", "cost", "estimate", "--gpu-hours", "1", "--provider", plugin.to_str().unwrap()]);
    assert!(out.status.code().is_some());
    std::thread::sleep(Duration::from_millis(200));
    let ps = Command::new("ps").args(["-eo", "args"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&ps.stdout).lines().any(|l| l.contains(&format!("sleep {tag}"))), "the plugin's child was killed");
}

// 13. Anything that is not a regular file in a providers directory is skipped.
#[test]
fn a_fifo_among_provider_files_is_skipped() {
    let env = Env::new();
    let dir = env.config_dir().join("providers/cost");
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("trap.yaml");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let mut child = env.cmd().args(["finops", "cost", "providers"]).stdout(Stdio::piped()).spawn().unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("providers hung on a FIFO");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(child.wait().unwrap().success());
}

// 14, 15. Non-finite and negative figures are errors naming what went wrong.
#[test]
fn overflowing_and_negative_figures_are_refused() {
    let env = Env::new();
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1e308"]), 1, "kwh");
    env.config("finops:\n  carbon:\n    provider: expression\n    formulas:\n      kwh: \"1e308 * gpu_hours\"\n      co2e_g: \"kwh\"\n    metadata: {uncertainty: 0.9}\n");
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1.5"]), 1, "the range of kwh overflowed");
    env.config("finops:\n  carbon:\n    provider: expression\n    formulas:\n      kwh: \"gpu_hours\"\n      co2e_g: \"-1 * kwh\"\n");
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1"]), 1, "never negative");
    env.config("finops:\n  carbon:\n    provider: expression\n    formulas:\n      kwh: \"1e300 * gpu_hours\"\n      co2e_g: \"1.5e308 * gpu_hours / gpu_hours\"\n");
    let db = env.dir.path().join("big.db");
    for _ in 0..2 {
        let out = env.run(&["--db", db.to_str().unwrap(), "finops", "carbon", "record", "M", "--gpu-hours", "1"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    fails(&env.run(&["--db", db.to_str().unwrap(), "report"]), 1, "the sum of co2e_g over 'M' overflowed");
    let env = with_fake_smi(Env::new()).env("FAKE_POWER", "-50");
    let args = ["-o", "json", "gpu"];
    let out = env.run(&args);
    assert_eq!(json_of(&args, &out)["devices"][0].get("power_w"), Some(&Value::Null), "a negative power is a failed reading");
}

// 16. A run shorter than one reading is billed for the run, not the reading.
#[test]
fn a_short_run_is_billed_for_its_own_length() {
    let env = with_fake_smi(Env::new()).env("FAKE_SLEEP", "0.6");
    let args = ["-o", "json", "finops", "measure", "--interval", "5", "--", "sleep", "0.05"];
    let out = env.run(&args);
    // After a command, the report is on stderr.
    let r: Value = crate::common::checked(&args, &out.stderr);
    let covered = r["gpu"]["devices"][0]["covered_s"].as_f64().unwrap();
    let duration = r["duration_s"].as_f64().unwrap();
    assert!(covered <= duration + 1e-9, "covered {covered} s of a {duration} s run");
    let kwh = r["gpu"]["energy_kwh"].as_f64().unwrap();
    assert!((kwh - 300.0 * covered / 3.6e6).abs() < 1e-12);
}

// 17. Two devices with one index are a failed reading, not a silent drop.
#[test]
fn a_duplicated_device_index_is_refused() {
    let env = with_fake_smi(Env::new()).env("FAKE_DUP", "1");
    fails(&env.run(&["gpu"]), 1, "device index 0 twice");
}

// 18. Dates outside a sane range are refused; a date-only --until means the whole day.
#[test]
fn dates_are_sane_and_date_only_forms_mean_the_day() {
    let env = Env::new();
    fails(&env.run(&["report", "--since", "300000000000-01-01"]), 2, "outside 1970 to 9999");
    let rec: Value = env.json(&["finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    let day = &rec["recorded_at"].as_str().unwrap()[..10];
    for until in [day.to_string(), format!("{day}Z")] {
        let r: Value = env.json(&["report", "--until", &until]);
        assert_eq!(r["totals"]["records"]["carbon"], 1, "--until {until} includes that day");
    }
}

// 21. Tiny figures keep their digits.
#[test]
fn tiny_figures_are_not_shown_as_zero() {
    let out = Env::new().run(&["finops", "carbon", "estimate", "--gpu-hours", "1e-320"]);
    assert!(stdout(&out).contains("6.00e-321 kWh"), "{}", stdout(&out));
}

// 22, 26. Names: reserved run ids, and the limit counted in characters.
#[test]
fn names_are_checked_as_the_message_says() {
    let env = Env::new();
    fails(&env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1", "--run-id", "(record 1)"]), 2, "reserved");
    let accented = "é".repeat(150);
    assert_eq!(env.run(&["finops", "carbon", "record", &accented, "--gpu-hours", "1"]).status.code(), Some(0), "150 characters fit in 200");
    fails(&env.run(&["finops", "carbon", "record", &"é".repeat(201), "--gpu-hours", "1"]), 2, "1 to 200 printable characters");
}

// 23. Escape sequences from outside never reach the terminal.
#[test]
fn escape_sequences_are_stripped_from_tables_and_errors() {
    let env = Env::new();
    let p = env.file("p/esc.yaml", "name: esc\ndomain: cost\nmethodology: \"evil \\e]0;owned\\a \\e[2J\\e]8;;http://x\\e\\\\link\"\nformulas:\n  cost_usd: gpu_hours\n");
    for args in [
        &["finops", "cost", "show", p.to_str().unwrap()][..],
        &["finops", "cost", "estimate", "--gpu-hours", "1", "--provider", p.to_str().unwrap()],
    ] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(!stdout(&out).contains('\u{1b}') && !stdout(&out).contains('\u{7}'), "{args:?}: {:?}", stdout(&out));
    }
    let out = env.run(&["finops", "cost", "estimate", "--gpu-hours", "1", "--strict", "--provider", "x\u{1b}[2Jy"]);
    assert!(!stderr(&out).contains('\u{1b}'), "{:?}", stderr(&out));
    let env = with_fake_smi(Env::new()).env("FAKE_NAME", "H100\u{1b}]0;pwned\u{7}");
    let out = env.run(&["gpu"]);
    assert!(!stdout(&out).contains('\u{1b}'), "{:?}", stdout(&out));
}

// 24. Names that enter PromQL are validated at the config.
#[test]
fn promql_names_from_the_config_are_validated() {
    let env = Env::new();
    for (what, cluster) in [
        ("label key", "    labels: {\"bad key\\\"\": x}\n"),
        ("node_label", "    node_label: \"instance\\\",x=\\\"\"\n"),
        ("metric_prefix", "    metric_prefix: \"amd_} or vector(1)\"\n"),
    ] {
        env.config(&format!("clusters:\n  c1:\n    prometheus: http://127.0.0.1:9\n    gpu_vendor: amd\n    gpu_model: MI300X\n{cluster}"));
        fails(&env.run(&["metrics", "clusters"]), 2, what);
    }
}

// 25. Spreadsheet formulas in CSV are neutralised.
#[test]
fn csv_cells_cannot_be_formulas() {
    let env = Env::new();
    env.json::<Value>(&["finops", "carbon", "record", "=HYPERLINK(\"http://x\",\"y\")", "--gpu-hours", "1"]);
    let out = env.run(&["-o", "csv", "report"]);
    let row = stdout(&out).lines().nth(1).unwrap().to_string();
    assert!(row.starts_with("\"'=HYPERLINK("), "{row}");
}

// 27. Each grid API gets its key in the header it reads.
#[test]
fn grid_keys_go_in_the_header_each_api_expects() {
    let em = Server::start(Answer::Require("auth-token: em-key", r#"{"carbonIntensity": 55}"#.into()));
    let env = Env::new().env("EXAMLOPS_GRID_INTENSITY_TOKEN", "em-key");
    env.config(&format!(
        "finops:\n  carbon:\n    grid:\n      url: {}\n      api: electricitymaps\n",
        em.url("/v3/carbon-intensity/latest")
    ));
    let e: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", "grid-live"]);
    assert_eq!((e["grid"]["origin"].as_str(), e["grid"]["value"].as_f64()), (Some("live"), Some(55.0)));
    let wt = Server::start(Answer::Require(
        "authorization: bearer wt-key",
        r#"{"data":[{"value":1000}],"meta":{"units":"lbs_co2_per_mwh"}}"#.into(),
    ));
    let env = Env::new().env("EXAMLOPS_GRID_INTENSITY_TOKEN", "wt-key");
    env.config(&format!("finops:\n  carbon:\n    grid:\n      url: {}\n      api: watttime\n", wt.url("/v3/signal-index")));
    let e: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", "grid-live"]);
    assert_eq!(e["grid"]["origin"], "live");
    // A misspelt API is a malformed setting, not a quiet fallback to the static default.
    let out = env
        .cmd()
        .env("EXAMLOPS_GRID_INTENSITY_API", "wattime")
        .args(["finops", "carbon", "estimate", "--gpu-hours", "1"])
        .output()
        .unwrap();
    fails(&out, 2, "EXAMLOPS_GRID_INTENSITY_API");
    env.config("finops:\n  carbon:\n    grid:\n      api: electricitymap\n");
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1"]), 2, "grid.api");
}

// 28. A degraded grid-live reading carries the static band, and --strict refuses it.
#[test]
fn degraded_grid_live_is_honest_and_strict_refuses_it() {
    let srv = Server::start(Answer::Body(503, "text/plain", "down".into()));
    let env = Env::new().env("EXAMLOPS_GRID_INTENSITY_URL", &srv.url("/ci"));
    let e: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", "grid-live"]);
    assert_eq!(e["provider"]["uncertainty"], 0.3);
    assert_eq!(e["range"]["co2e_g"][1], 234.0);
    let out = env.run(&["--strict", "finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", "grid-live"]);
    fails(&out, 1, "strict mode");
}

// 29. Arguments that are not UTF-8 reach the command as they are.
#[test]
fn non_utf8_arguments_are_passed_on() {
    use std::os::unix::ffi::OsStrExt;
    let env = with_fake_smi(Env::new());
    let arg = std::ffi::OsStr::from_bytes(b"\xff\xfe");
    let out = env
        .cmd()
        .args(["finops", "measure", "--interval", "0.1", "--", "sh", "-c", "test \"$1\" = \"$(printf '\\377\\376')\"", "_"])
        .arg(arg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

// 30. A terminal that reports no width still gets a readable table.
#[test]
fn a_zero_width_terminal_gets_a_readable_table() {
    let env = Env::new();
    let exa = env!("CARGO_BIN_EXE_exa");
    let out =
        env.cmd_for("script").args(["-qec", &format!("stty cols 0 rows 0; {exa} finops cost providers"), "/dev/null"]).output().unwrap();
    let text = stdout(&out);
    assert!(text.lines().any(|l| l.contains("flat-rate") && l.contains("builtin")), "{text}");
}

// 31. Under -o json even a malformed command line answers with a JSON error.
#[test]
fn parse_errors_have_a_json_body_under_json() {
    let args = ["-o", "json", "finops", "carbon", "estimate", "--gpu-hours", "abc"];
    let out = Env::new().run(&args);
    assert_eq!(out.status.code(), Some(2));
    let v = json_of(&args, &out);
    assert_eq!(v["error"]["kind"], "usage");
    assert!(v["error"]["message"].as_str().unwrap().contains("--gpu-hours"));
}

// 37. Many processes creating one store at once lose nothing.
#[test]
fn concurrent_writers_on_a_new_store_lose_no_record() {
    let env = Env::new();
    for burst in 0..2 {
        let db = env.dir.path().join(format!("burst{burst}.db"));
        let procs: Vec<_> = (0..8)
            .map(|_| {
                let mut c = env.cmd_for("sh");
                let script = format!(
                    "for i in 1 2 3 4 5; do {} --db {} finops carbon record M --gpu-hours 1 >/dev/null || exit 1; done",
                    env!("CARGO_BIN_EXE_exa"),
                    db.display()
                );
                c.args(["-c", &script]).spawn().unwrap()
            })
            .collect();
        for mut p in procs {
            assert!(p.wait().unwrap().success(), "a writer failed");
        }
        let r: Value = env.json(&["--db", db.to_str().unwrap(), "report"]);
        assert_eq!(r["totals"]["records"]["carbon"], 40, "burst {burst}");
    }
}

// 38. Deep YAML is refused quickly.
#[test]
fn deeply_nested_yaml_is_refused_in_linear_time() {
    let env = Env::new();
    env.config(&format!("finops: {}", "[".repeat(100_000)));
    let started = Instant::now();
    fails(&env.run(&["finops", "carbon", "providers"]), 2, "nested deeper than 64");
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    let env = Env::new();
    let p: PathBuf = env.file("deep.yaml", &format!("name: x\ndomain: cost\nmethodology: m\nformulas:\n{}x\n", "- ".repeat(100_000)));
    let started = Instant::now();
    fails(&env.run(&["finops", "cost", "estimate", "--gpu-hours", "1", "--strict", "--provider", p.to_str().unwrap()]), 1, "nested deeper");
    assert!(started.elapsed() < Duration::from_secs(3));
    let _ = Path::new("");
}
