//! The new doors, hardened (issue: hardening the new doors): MCP, the
//! PostgreSQL ledger, output files, signals, imported numbers, MLflow and
//! the HTML page, each attack tried on the real binary.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{fails, stderr, stdout, Env};
use crate::http::{Answer, Server};
use crate::pg::{PgServer, PASSWORD};

/// `exa mcp` over raw pipes, initialized; answers read by id, each within a deadline (a server that never
/// answers fails the test rather than hanging it).
struct Mcp {
    child: Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
    id: u64,
    /// Answers read while waiting for another.
    seen: Vec<Value>,
}

impl Mcp {
    fn start(env: &Env) -> Mcp {
        let mut child = env.cmd().arg("mcp").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in out.lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    return;
                }
            }
        });
        let mut m = Mcp { child, stdin: Some(stdin), lines, id: 0, seen: Vec::new() };
        let init = m.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "exa", "{init}");
        m.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        m
    }

    fn send(&mut self, v: &Value) {
        self.stdin.as_mut().expect("stdin open").write_all(format!("{v}\n").as_bytes()).unwrap();
    }

    /// The next answer, within 30 s.
    fn next(&mut self) -> Value {
        let line = self.lines.recv_timeout(Duration::from_secs(30)).expect("exa mcp answered within 30 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.id += 1;
        let id = self.id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let v = self.next();
            if v["id"] == id {
                return v;
            }
            self.seen.push(v);
        }
    }

    fn call(&mut self, tool: &str, args: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": args}))
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn mcp_tools_take_names_never_paths_programs_or_urls() {
    let env = Env::new();
    let marker = env.dir.path().join("ran");
    let program = env.program("bin/exa-carbon-evil", &format!("#!/bin/sh\ntouch {}\necho '{{}}'\n", marker.display()));
    let yaml = env.file(
        "p/leak.yaml",
        "name: leak\ndomain: carbon\nmethodology: m\ncoefficients:\n  hidden_coefficient_q: {default: 1}\nformulas:\n  kwh: gpu_hours\n  co2e_g: kwh\n",
    );
    let hostile = [
        program.to_str().unwrap().to_string(),
        yaml.to_str().unwrap().to_string(),
        "/usr/bin/tee".into(),
        "./leak.yaml".into(),
        "../p/leak.yaml".into(),
        "http://127.0.0.1:9/x".into(),
        "file:///etc/passwd".into(),
        "leak.yml".into(),
    ];
    let mut mcp = Mcp::start(&env);
    for p in &hostile {
        for domain in ["carbon", "cost"] {
            let r = mcp.call("finops_estimate", json!({"domain": domain, "gpu_hours": 1, "provider": p}));
            let text = r.to_string();
            assert_eq!(r["result"]["isError"], true, "{p}: {text}");
            assert_eq!(r["result"]["structuredContent"]["error"]["code"], "bad-request", "{p}: {text}");
            assert!(text.contains("not a provider name"), "{p}: {text}");
            assert!(!text.contains("secret_key_name_q") && !text.contains("hidden_coefficient_q"), "{p}: {text}");
        }
    }
    // Every string argument of every tool, with the same values: refused or matched as a name, never opened or run.
    let tools: [(&str, Value, &[&str]); 6] = [
        ("metrics_read", json!({"action": "node", "cluster": "c", "node": "n"}), &["cluster", "node", "namespace", "start", "end"]),
        ("metrics_query", json!({"cluster": "c", "query": "up"}), &["cluster", "query"]),
        ("finops_report", json!({}), &["model", "since", "until"]),
        ("finops_providers", json!({"domain": "carbon"}), &["domain"]),
        ("finops_estimate", json!({"domain": "cost", "gpu_hours": 1}), &["domain"]),
        ("metrics_read", json!({"action": "workload", "cluster": "c", "kind": "Job", "name": "n"}), &["name", "kind"]),
    ];
    for (tool, base, fields) in tools {
        for field in fields {
            for p in &hostile {
                let mut args = base.clone();
                args[*field] = json!(p);
                let r = mcp.call(tool, args);
                let text = r.to_string();
                assert!(r.get("result").is_some() || r.get("error").is_some(), "{tool}.{field}={p}: {text}");
                assert!(!text.contains("secret_key_name_q") && !text.contains("hidden_coefficient_q"), "{tool}.{field}={p}: {text}");
            }
        }
    }
    assert!(!marker.exists(), "a program named in a tool argument ran");
    assert!(!env.dir.path().join("metadata").exists(), "tee ran in the server's directory");
    // A name still resolves over MCP (a built-in), and the CLI still takes a path.
    let ok = mcp.call("finops_estimate", json!({"domain": "carbon", "gpu_hours": 1, "provider": "ccf-like"}));
    assert_eq!(ok["result"]["isError"], false, "{ok}");
    let cli = env.json::<Value>(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", yaml.to_str().unwrap()]);
    assert_eq!(cli["provider"]["name"], "leak");
}

/// Runs `c` to its end, or kills it at `limit`: a command that hangs fails the test instead of hanging it.
fn within(mut c: Command, limit: Duration) -> std::process::Output {
    let mut child = c.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("still running after {limit:?}: {}", String::from_utf8_lossy(&out.stderr));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A TCP proxy in front of a real PostgreSQL: it passes the startup and authentication through, then holds
/// the first statement (a simple or extended query) for ever: a server that accepted and stalled.
fn stalling_proxy(to: u16) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming().take(16) {
            let Ok(client) = conn else { continue };
            std::thread::spawn(move || {
                let server = TcpStream::connect(("127.0.0.1", to)).unwrap();
                let (mut c_read, mut s_write) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                let (mut s_read, mut c_write) = (server, client);
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut s_read, &mut c_write);
                });
                // The startup message has no type byte; every later one does.
                let mut len = [0u8; 4];
                if c_read.read_exact(&mut len).is_err() {
                    return;
                }
                let mut body = vec![0u8; (u32::from_be_bytes(len) as usize).saturating_sub(4)];
                let _ = c_read.read_exact(&mut body);
                let _ = s_write.write_all(&len).and_then(|()| s_write.write_all(&body));
                loop {
                    let mut head = [0u8; 5];
                    if c_read.read_exact(&mut head).is_err() {
                        return;
                    }
                    let n = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
                    let mut body = vec![0u8; n.saturating_sub(4)];
                    if c_read.read_exact(&mut body).is_err() {
                        return;
                    }
                    if matches!(head[0], b'Q' | b'P') {
                        // Held: the client waits for an answer that never comes.
                        std::thread::sleep(Duration::from_secs(120));
                        return;
                    }
                    if s_write.write_all(&head).and_then(|()| s_write.write_all(&body)).is_err() {
                        return;
                    }
                }
            });
        }
    });
    port
}

#[test]
fn a_postgres_server_that_stalls_costs_a_deadline_never_a_hang() {
    let pg = PgServer::start();
    pg.database("stall");
    let proxy = stalling_proxy(pg.port);
    let url = format!("postgres://exa:{PASSWORD}@127.0.0.1:{proxy}/stall?sslmode=disable");
    let env = Env::new().env("EXAMLOPS_DB", &url).env("EXAMLOPS_DB_TIMEOUT", "1");
    for args in [&["report"][..], &["finops", "carbon", "record", "M", "--gpu-hours", "1"]] {
        let mut c = env.cmd();
        c.args(args);
        let out = within(c, Duration::from_secs(30));
        fails(&out, 1, &format!("127.0.0.1:{proxy}/stall"));
        assert!(stderr(&out).contains("did not answer within 1 s"), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains(PASSWORD));
    }
    // measure --record: the job ran, its report is written, the failure is said, and nothing hangs.
    let report = env.dir.path().join("m.json");
    let mut c = env.cmd();
    c.args(["-o", "json", "finops", "measure", "--report", report.to_str().unwrap(), "--record", "M", "--", "true"]);
    let out = within(c, Duration::from_secs(40));
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert!(r["record_error"].as_str().unwrap_or("").contains("did not answer"), "{r}\n{}", stderr(&out));
    // A server that accepts and never speaks: the connection's own deadline (libpq's connect_timeout).
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("postgres://exa@127.0.0.1:{}/x?sslmode=disable&connect_timeout=1", silent.local_addr().unwrap().port());
    let bare = Env::new().env("EXAMLOPS_DB", &dead);
    let mut c = bare.cmd();
    c.arg("report");
    let out = within(c, Duration::from_secs(20));
    fails(&out, 1, "did not let exa connect within 1 s");
    drop(silent);
}

#[test]
fn ledger_passwords_are_never_shown_and_never_file_names() {
    let env = Env::new();
    let secrets = ["q-secret-1", "at@secret-2", "kw-secret-3", "upper-secret-4", "slash/secret?5"];
    let locations = [
        "postgres://exa@127.0.0.1:9/x?sslmode=disable&password=q-secret-1".to_string(),
        "postgres://exa:at@secret-2@127.0.0.1:9/x?sslmode=disable".to_string(),
        "host=127.0.0.1 port=9 dbname=x user=exa password=kw-secret-3 sslmode=disable".to_string(),
        "POSTGRES://exa:upper-secret-4@127.0.0.1:9/x?sslmode=disable".to_string(),
        "postgresql://exa:slash/secret?5@127.0.0.1:9/x?sslmode=disable".to_string(),
    ];
    for (i, db) in locations.iter().enumerate() {
        // A writer waits a moment for a server that refuses (it may be restarting): one writer is enough here.
        let record: &[&str] = if i == 0 { &["finops", "carbon", "record", "M", "--gpu-hours", "1"] } else { &["report"] };
        for args in [&["report"][..], &["-o", "json", "report"], record] {
            let out = env.cmd().args(args).env("EXAMLOPS_DB", db).output().unwrap();
            let all = format!("{}{}", stdout(&out), stderr(&out));
            assert_eq!(out.status.code(), Some(1), "{db} {args:?}: {all}");
            for s in secrets {
                assert!(!all.contains(s), "{s} shown for {db}: {all}");
            }
            assert!(all.contains("127.0.0.1"), "{db}: the server is named: {all}");
        }
    }
    // Nothing was taken for a SQLite file: no file named after any of them, anywhere under the home.
    let made: Vec<String> =
        walk(env.dir.path()).into_iter().filter(|p| secrets.iter().any(|s| p.contains(s.split('/').next().unwrap()))).collect();
    assert!(made.is_empty(), "files made from a database location: {made:?}");
    // Another scheme is refused, never a file.
    let out = env.cmd().args(["report"]).env("EXAMLOPS_DB", "mysql://u:p@h/db").output().unwrap();
    fails(&out, 2, "not a ledger");
    // A real server: what record and report say of it carries no password, from the query or the user info.
    let pg = PgServer::start();
    pg.database("shown");
    let url = format!("postgres://exa@127.0.0.1:{}/shown?sslmode=disable&password={PASSWORD}", pg.port);
    let env = Env::new().env("EXAMLOPS_DB", &url);
    let out = env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = env.run(&["-o", "json", "report"]);
    for o in [&out, &report] {
        let all = format!("{}{}", stdout(o), stderr(o));
        assert!(!all.contains(PASSWORD) && all.contains("password=REDACTED"), "{all}");
    }
    let kw = format!("host=127.0.0.1 port={} dbname=shown user=exa password={PASSWORD} sslmode=disable", pg.port);
    let out = Env::new().env("EXAMLOPS_DB", &kw).run(&["-o", "json", "report"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let db: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(db["db"], format!("host=127.0.0.1 port={} dbname=shown user=exa", pg.port));
    assert_eq!(db["totals"]["runs"], 1);
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        out.push(p.display().to_string());
        if p.is_dir() && !p.is_symlink() {
            out.extend(walk(&p));
        }
    }
    out
}

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
fn measure_passes_usr1_and_quit_on_and_keeps_measuring() {
    let env = Env::new();
    let got = env.dir.path().join("got");
    let script = format!(
        "trap 'echo USR1 >> {g}' USR1; trap 'echo USR2 >> {g}' USR2; trap 'echo QUIT >> {g}; exit 3' QUIT; echo ready > {g}.ready; \
         while [ ! -s {g} ] || ! grep -q QUIT {g}; do sleep 0.05; done",
        g = got.display()
    );
    let report = env.dir.path().join("r.json");
    let mut child = env
        .cmd()
        .args(["-o", "json", "finops", "measure", "--report", report.to_str().unwrap(), "--", "sh", "-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let ready = env.dir.path().join("got.ready");
    let until = Instant::now() + Duration::from_secs(30);
    while !ready.exists() {
        assert!(Instant::now() < until, "the job never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = child.id().to_string();
    let kill = |sig: &str| assert!(Command::new("kill").args([sig, &pid]).status().unwrap().success());
    kill("-USR1");
    wait_for(&got, "USR1");
    kill("-USR2");
    wait_for(&got, "USR2");
    // exa is alive after both: the job got them through it.
    assert!(child.try_wait().unwrap().is_none(), "exa died of a signal it should pass on");
    kill("-QUIT");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(3), "exa exits with the job's status");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["exit_code"], 3);
    assert_eq!(r["interrupted"], "SIGQUIT", "{r}");
}

fn wait_for(file: &std::path::Path, word: &str) {
    let until = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(file).unwrap_or_default().contains(word) {
        assert!(Instant::now() < until, "{word} never reached the job");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_job_dies_with_exa_when_exa_is_killed_outright() {
    let env = Env::new();
    let pid_file = env.dir.path().join("job.pid");
    let script = format!("echo $$ > {}; exec sleep 300", pid_file.display());
    let mut child = env.cmd().args(["finops", "measure", "--", "sh", "-c", &script]).stderr(Stdio::null()).spawn().unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    let pid = loop {
        if let Some(p) = std::fs::read_to_string(&pid_file).ok().and_then(|s| s.trim().parse::<i32>().ok()) {
            break p;
        }
        assert!(Instant::now() < until, "the job never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    while std::path::Path::new(&format!("/proc/{pid}")).exists() && !zombie(pid) {
        assert!(Instant::now() < until, "the job {pid} outlived exa");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| s.rsplit_once(')').is_some_and(|(_, r)| r.trim_start().starts_with('Z')))
}

fn sacct_json(jobs: &[Value]) -> String {
    json!({"jobs": jobs}).to_string()
}

fn slurm_job(id: Value, end: Value, gpus: Value) -> Value {
    json!({
        "job_id": id, "name": "train", "user": "alice", "account": "a", "partition": "gpu", "cluster": "hpc1",
        "state": {"current": ["COMPLETED"]},
        "time": {"start": 1764547200, "end": end, "elapsed": 3600},
        "tres": {"allocated": [{"type": "cpu", "count": 8}, {"type": "gres", "name": "gpu", "count": gpus}]}
    })
}

#[test]
fn imported_numbers_are_range_checked_as_they_are_read() {
    let env = Env::new();
    let good = slurm_job(json!(100), json!(1764550800), json!(2));
    let cases = [
        (slurm_job(json!(101), json!(1e300), json!(1)), "end"),
        (slurm_job(json!(102), json!(253402214400i64), json!(1)), "in the future"),
        (slurm_job(json!(-1), json!(1764550800), json!(1)), "job_id"),
        (slurm_job(json!(1e30), json!(1764550800), json!(1)), "job_id"),
        (slurm_job(json!(1.5), json!(1764550800), json!(1)), "job_id"),
        (slurm_job(json!(103), json!(1764550800), json!(-2)), "gpus"),
    ];
    for (bad, why) in &cases {
        let file = env.file("sacct.json", &sacct_json(&[good.clone(), bad.clone()]));
        let out = env.run(&["import", "slurm", "--file", file.to_str().unwrap(), "--cluster", "hpc1"]);
        fails(&out, 2, why);
        assert!(stderr(&out).contains("line 2") || stderr(&out).contains("job 2") || stderr(&out).contains(" 2"), "{}", stderr(&out));
        let out =
            env.run(&["-o", "json", "import", "slurm", "--file", file.to_str().unwrap(), "--cluster", "hpc1", "--skip-bad", "--dry-run"]);
        assert!(out.status.success(), "{why}: {}", stderr(&out));
    }
    // Nothing was stored by the refused imports; the good job imports alone.
    let file = env.file("sacct.json", &sacct_json(std::slice::from_ref(&good)));
    let got = env.json::<Value>(&["import", "slurm", "--file", file.to_str().unwrap(), "--cluster", "hpc1"]);
    assert_eq!(got["imported"], 1, "{got}");
    // A Flux core range that would wrap a 64-bit count is a bad line.
    let flux = json!({"id": 5, "state": "INACTIVE", "result": "COMPLETED", "t_run": 1764547200.0, "t_inactive": 1764550800.0,
        "R": {"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-18446744073709551615"}}]}}});
    let file = env.file("flux.json", &format!("{flux}\n"));
    fails(&env.run(&["import", "flux", "--file", file.to_str().unwrap(), "--cluster", "tioga"]), 2, "idset");
}

#[test]
fn the_watermark_moves_only_with_imported_jobs_and_never_past_now() {
    let env = Env::new();
    // A hand-made record under the importer's run-id prefix does not pass for an import.
    env.json::<Value>(&["finops", "carbon", "record", "M", "--gpu-hours", "1", "--run-id", "slurm:hpc1:x"]);
    let bin = env.dir.path().join("bin");
    env.program("bin/sacct", "#!/bin/sh\necho 'sacct must not run' >&2\nexit 1\n");
    let env = env.path_first(&bin);
    fails(&env.run(&["import", "slurm", "--cluster", "hpc1"]), 2, "no earlier import");
    // An imported job sets it.
    let file = env.file("sacct.json", &sacct_json(&[slurm_job(json!(7), json!(1764550800), json!(1))]));
    let got = env.json::<Value>(&["import", "slurm", "--file", file.to_str().unwrap(), "--cluster", "hpc1"]);
    assert_eq!(got["watermark"], "2025-12-01T01:00:00Z", "{got}");
}

#[test]
fn mlflow_answers_are_checked_and_a_sync_stops_at_a_dead_server() {
    // A proxy's login page, with 200: not logged; the log waits in the outbox.
    let page = Server::start(Answer::Body(200, "text/html", "<html><body>Sign in</body></html>".into()));
    let env = Env::new().env("MLFLOW_TRACKING_URI", &page.url("/"));
    let out = env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1", "--run-id", "0123456789abcdef0123456789abcdef"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("not MLflow's JSON"), "{}", stderr(&out));
    for i in 0..4 {
        let out =
            env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1", "--run-id", &format!("{i}123456789abcdef0123456789abcdef")]);
        assert!(out.status.success());
    }
    // Every request went to the API's path, before any query.
    assert!(page.requests().iter().all(|r| r.starts_with("POST /api/2.0/mlflow/runs/log-batch ")), "{:?}", page.requests());
    // A server that never answers: the sync tries once, then stops, all still waiting.
    let silent = Server::start(Answer::Silence);
    let env = env.env("MLFLOW_TRACKING_URI", &silent.url("/"));
    env.config("mlflow:\n  timeout_s: 1\n");
    let started = Instant::now();
    let out = env.run(&["-o", "json", "sync", "mlflow"]);
    let took = started.elapsed();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(v["sent"], 0, "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(v["still_waiting"], 5, "{v}");
    assert!(took < Duration::from_secs(4), "one deadline, not one per log: {took:?}");
    assert_eq!(silent.requests().len(), 1, "one request to a dead server");
}

#[test]
fn pushgateway_and_mlflow_paths_go_before_the_query() {
    let gw = Server::start(Answer::Body(200, "text/plain", String::new()));
    let env = crate::common::with_h100(Env::new());
    let url = gw.url("/base?token=T");
    let out = env.run(&["finops", "measure", "--interval", "0.1", "--push-gateway", &url, "--", "sleep", "0.5"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reqs = gw.requests();
    assert!(!reqs.is_empty(), "nothing pushed: {}", stderr(&out));
    let line = reqs[0].lines().next().unwrap().to_string();
    assert!(line.starts_with("PUT /base/metrics/job@base64/") && line.contains("?token=T "), "{line}");
}

#[test]
fn the_html_page_keeps_hostile_model_names_inert() {
    let env = Env::new();
    for model in ["<!--", "<script>alert(1)</script>", "a</script><p id=pwn>x", "x&amp;y"] {
        env.json::<Value>(&["finops", "carbon", "record", model, "--gpu-hours", "1"]);
    }
    let page = env.dir.path().join("page.html");
    assert!(env.run(&["report", "--html", page.to_str().unwrap()]).status.success());
    let html = std::fs::read_to_string(&page).unwrap();
    let script = html.split(r#"<script type="application/json" id="exa-report">"#).nth(1).unwrap();
    let json = script.split("</script>").next().unwrap();
    assert!(!json.contains('<') && !json.contains('>'), "raw markup in the embedded JSON");
    let data: Value = serde_json::from_str(json).unwrap();
    let keys: Vec<&str> = data["by_model"]["groups"].as_array().unwrap().iter().map(|g| g["key"].as_str().unwrap()).collect();
    for model in ["<!--", "<script>alert(1)</script>", "a</script><p id=pwn>x", "x&amp;y"] {
        assert!(keys.contains(&model), "{model} in {keys:?}");
    }
    // In a real browser: the script element ends where it should, nothing after it is swallowed, nothing injected.
    let (dom, _) = crate::reports::chromium(&["--dump-dom", &format!("file://{}", page.display())]);
    assert!(!dom.contains("id=\"pwn\""), "markup from a model name became an element");
    let in_dom = dom.split(r#"id="exa-report">"#).nth(1).and_then(|s| s.split("</script>").next()).unwrap();
    let parsed: Value = serde_json::from_str(in_dom).unwrap_or_else(|e| panic!("the page's JSON as the browser sees it ({e}): {in_dom}"));
    assert_eq!(parsed, data);
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
        let out = reader(&["-o", "json", "report", "--by", by]);
        assert!(out.status.success(), "report --by {by}: {}", stderr(&out));
        if by == "model" {
            let got: Value = serde_json::from_slice(&out.stdout).unwrap();
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

/// Lets this test process hold a thousand sockets.
fn raise_fd_limit() {
    // SAFETY: getrlimit and setrlimit read and write the local struct only.
    unsafe {
        let mut l: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) == 0 && l.rlim_cur < l.rlim_max {
            l.rlim_cur = l.rlim_max.min(65_536);
            libc::setrlimit(libc::RLIMIT_NOFILE, &l);
        }
    }
}

/// A thousand connections that send half a request's headers and then nothing.
fn slow_clients(addr: &str, n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ").unwrap();
            s
        })
        .collect()
}

/// One whole request; the answer's status line.
fn ask(addr: &str, request: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).lines().next().unwrap_or("").to_string()
}

#[test]
fn servers_answer_while_a_thousand_slow_clients_hang_on() {
    raise_fd_limit();
    let env = crate::common::with_h100(Env::new());
    let mut exa = crate::telemetry::Running::start(&env, &["gpu", "serve", "--listen", "127.0.0.1:0", "--interval", "0.3"]);
    let addr = exa.address();
    let slow = slow_clients(&addr, 1000);
    let status = ask(&addr, &format!("GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"));
    assert!(status.starts_with("HTTP/1.1 200"), "a scrape beside 1,000 slow clients: {status:?}");
    // The header deadline closes a slow client.
    let mut one = slow.into_iter().next().unwrap();
    one.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut buf = [0u8; 256];
    match one.read(&mut buf) {
        Ok(0) => {}
        Ok(n) => assert!(String::from_utf8_lossy(&buf[..n]).contains("408"), "{}", String::from_utf8_lossy(&buf[..n])),
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "the slow client was never closed: {e}"),
    }
    drop(exa);

    let token = "0123456789abcdef0123456789abcdef";
    let env = Env::new().env("EXAMLOPS_MCP_TOKEN", token);
    let mut exa = crate::telemetry::Running::start(&env, &["mcp", "--listen", "127.0.0.1:0"]);
    let line = exa.wait_for("MCP over streamable HTTP at http://");
    let addr = line.split("http://").nth(1).unwrap().split_whitespace().next().unwrap().trim_end_matches("/mcp").to_string();
    let _slow = slow_clients(&addr, 1000);
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let post = |extra: &str, body: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    let status = ask(&addr, &post("", body));
    assert!(status.starts_with("HTTP/1.1 200"), "an MCP client beside 1,000 slow ones: {status:?}");
    // A browser page's Origin is refused; the server's own is not.
    assert!(ask(&addr, &post("Origin: https://evil.example\r\n", body)).starts_with("HTTP/1.1 403"));
    assert!(ask(&addr, &post(&format!("Origin: http://{addr}\r\n"), body)).starts_with("HTTP/1.1 200"));
    // A number JSON cannot hold is answered with JSON-RPC's parse error, not silence.
    let huge = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"finops_estimate","arguments":{"domain":"cost","gpu_hours":1e400}}}"#;
    let mut s = TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(post("", huge).as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 400") && answer.contains("-32700"), "{answer}");
}

#[test]
fn mcp_bounds_slow_calls_keeps_fast_ones_fast_and_leaves_at_once() {
    let silent = Server::start(Answer::Silence);
    let env = Env::new();
    env.config(&format!(
        "clusters:\n  slow:\n    prometheus: http://127.0.0.1:{}\n    gpu_vendor: nvidia\n    gpu_model: H100\n    timeout_s: 60\n",
        silent.port
    ));
    let mut mcp = Mcp::start(&env);
    let slow = |id: u64| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "metrics_read", "arguments": {"action": "node", "cluster": "slow", "node": "n1"}}});
    for id in 1000..1100 {
        mcp.send(&slow(id));
    }
    // Past 16 running and 64 queued, a slow call is answered "busy" at once; an estimate is answered meanwhile.
    let fast = mcp.call("finops_estimate", json!({"domain": "cost", "gpu_hours": 1}));
    assert_eq!(fast["result"]["isError"], false, "{fast}");
    let is_busy = |v: &Value| v["result"]["structuredContent"]["error"]["code"] == "busy";
    let mut busy = mcp.seen.iter().filter(|v| is_busy(v)).count();
    let until = Instant::now() + Duration::from_secs(30);
    while busy < 20 {
        assert!(Instant::now() < until, "only {busy} calls were refused as busy");
        let v = mcp.next();
        if is_busy(&v) {
            busy += 1;
        }
    }
    // The client leaves with 80 calls still waiting on a Prometheus that never answers: exa exits at once.
    drop(mcp.stdin.take());
    let left = Instant::now();
    let code = loop {
        if let Some(s) = mcp.child.try_wait().unwrap() {
            break s.code();
        }
        assert!(left.elapsed() < Duration::from_secs(3), "exa mcp was still running {:?} after stdin closed", left.elapsed());
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(code, Some(0));
}

#[test]
fn an_mcp_client_that_never_reads_is_not_read_from_either() {
    let env = Env::new();
    let mut child = env.cmd().arg("mcp").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let _stdout = child.stdout.take().unwrap();
    let pid = child.id();
    std::thread::spawn(move || {
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let _ = writeln!(stdin, "{init}\n{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}");
        for id in 1..2_000_000u64 {
            let call = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"finops_providers","arguments":{{"domain":"carbon"}}}}}}"#
            );
            if writeln!(stdin, "{call}").is_err() {
                return;
            }
        }
    });
    let rss_kb = || -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        status.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.split_whitespace().next()?.parse().ok()).unwrap()
    };
    // Once its pipes are full, exa stops reading: it holds what it has, and grows no more.
    std::thread::sleep(Duration::from_secs(4));
    let early = rss_kb();
    std::thread::sleep(Duration::from_secs(8));
    let late = rss_kb();
    let _ = child.kill();
    let _ = child.wait();
    assert!(late < early + 16 * 1024, "exa grew from {} to {} MiB answering a client that reads nothing", early / 1024, late / 1024);
}

#[test]
fn writers_during_a_postgres_restart_wait_for_it() {
    let pg = PgServer::start_trusting();
    let url = pg.database("restart");
    let env = Env::new().env("EXAMLOPS_DB", &url);
    env.json::<Value>(&["db", "migrate"]);
    // Writers start every 40 ms while the server restarts beside them (pg_ctl restart: a fast stop, a start).
    let writers: Vec<Child> = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(150));
            pg.restart();
        });
        (0..24)
            .map(|i| {
                std::thread::sleep(Duration::from_millis(40));
                env.cmd()
                    .args(["finops", "carbon", "record", "M", "--gpu-hours", "1", "--run-id", &format!("w{i}")])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect()
    });
    for w in writers {
        let out = w.wait_with_output().unwrap();
        assert!(out.status.success(), "a writer during the restart: {}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(pg.value("restart", "SELECT count(*) FROM exa_records"), "24");
}

#[test]
fn mlflow_run_ids_and_copied_run_ids_cannot_pass_for_a_record_without_one() {
    let body = r#"{"experiment": {"experiment_id": "1"}, "experiment_id": "1", "run": {"info": {"run_id": "(record 1)"}}}"#;
    let mlflow = Server::start(Answer::Body(200, "application/json", body.into()));
    let env = Env::new().env("MLFLOW_TRACKING_URI", &mlflow.url("/"));
    let marker = env.dir.path().join("ran");
    let out = env.run(&["finops", "measure", "--mlflow-experiment", "e", "--record", "M", "--", "touch", marker.to_str().unwrap()]);
    fails(&out, 1, "run id exa cannot record");
    assert!(!marker.exists());
    // A ledger someone wrote by hand with such a run id: `db copy` refuses it.
    let env = Env::new();
    env.json::<Value>(&["finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    env.json::<Value>(&["finops", "carbon", "record", "M", "--gpu-hours", "2", "--run-id", "r"]);
    let db = env.dir.path().join("data/examlops/records.sqlite3");
    let py = format!(
        "import sqlite3; c = sqlite3.connect('{}'); c.execute('DROP TRIGGER IF EXISTS records_no_update'); c.execute(\"UPDATE records SET run_id = '(record 1)' WHERE run_id = 'r'\"); c.commit()",
        db.display()
    );
    let done = Command::new("python3").args(["-c", &py]).output().unwrap();
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let to = env.dir.path().join("copy.sqlite3");
    fails(&env.run(&["db", "copy", "--from", db.to_str().unwrap(), "--to", to.to_str().unwrap()]), 1, "which exa never writes");
}

#[test]
fn otlp_answers_are_capped_and_failures_said_plainly() {
    let env = crate::common::with_h100(Env::new());
    for (answer, said) in
        [(Answer::Huge(3 << 30), "larger than 1048576 bytes"), (Answer::Body(500, "text/plain", "oops".into()), "answered HTTP 500")]
    {
        let collector = Server::start(answer);
        let report = env.dir.path().join("r.json");
        let out = env.run(&[
            "-o",
            "json",
            "finops",
            "measure",
            "--report",
            report.to_str().unwrap(),
            "--interval",
            "0.1",
            "--otlp",
            &collector.url("/"),
            "--",
            "sleep",
            "0.3",
        ]);
        let r: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
        let error = r["pushed"].as_array().unwrap().iter().find(|p| p["to"] == "otlp").unwrap()["error"].as_str().unwrap_or("").to_string();
        assert!(error.contains(said), "{error}");
        for dump in ["reqwest::Error", "Os {", "kind:", "source:"] {
            assert!(!error.contains(dump) && !stderr(&out).contains(dump), "a debug dump: {error} / {}", stderr(&out));
        }
    }
}

#[test]
fn a_plugin_that_exits_broken_takes_its_process_group_with_it() {
    let env = Env::new();
    let pid_file = env.dir.path().join("child.pid");
    env.program(
        "config/examlops/plugins/exa-carbon-broken",
        &format!("#!/bin/sh\nsleep 300 >/dev/null 2>&1 &\necho $! > {}\necho not-json\nexit 1\n", pid_file.display()),
    );
    let out = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", "broken"]);
    assert!(stderr(&out).contains("exited with"), "{}", stderr(&out));
    let pid: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    while std::path::Path::new(&format!("/proc/{pid}")).exists() && !zombie(pid) {
        assert!(Instant::now() < until, "the plugin's child {pid} outlived it");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn gpu_serve_answers_the_format_asked_for() {
    let env = crate::common::with_h100(Env::new());
    let mut exa = crate::telemetry::Running::start(&env, &["gpu", "serve", "--listen", "127.0.0.1:0", "--interval", "0.2"]);
    let addr = exa.address();
    let get = |accept: &str| {
        let mut s = TcpStream::connect(&addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        write!(s, "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nAccept: {accept}\r\nConnection: close\r\n\r\n").unwrap();
        let mut a = String::new();
        let _ = s.read_to_string(&mut a);
        a
    };
    // The energy counter appears once two readings are in.
    let until = Instant::now() + Duration::from_secs(30);
    let text = loop {
        let t = get("text/plain; version=0.0.4");
        if t.contains("gen_ai_energy_consumed") || Instant::now() > until {
            break t;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(text.to_ascii_lowercase().contains("content-type: text/plain; version=0.0.4"), "{text}");
    assert!(!text.contains("# EOF") && !text.contains("# UNIT") && !text.contains("_created"), "{text}");
    // A counter is one family in the text format: its TYPE names the samples.
    assert!(text.contains("# TYPE gen_ai_energy_consumed_kWh_total counter"), "{text}");
    let om = get("application/openmetrics-text; version=1.0.0,text/plain;version=0.0.4;q=0.5");
    assert!(om.to_ascii_lowercase().contains("content-type: application/openmetrics-text"), "{om}");
    assert!(om.trim_end().ends_with("# EOF"));
    let body = text.split("\r\n\r\n").nth(1).unwrap().to_string();
    // promtool parses it (its lints are the spec's units, docs/telemetry.md).
    crate::telemetry::promtool_lints(&body);
}
