//! HTTP: MLflow, the Pushgateway, the HTML page, servers under slow clients, OTLP, gpu serve.

use crate::common::{fails, stderr, stdout, Env};
use crate::http::{Answer, Server};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::doors::{ask, raise_fd_limit, slow_clients};

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
    let args = ["-o", "json", "sync", "mlflow"];
    let out = env.run(&args);
    let took = started.elapsed();
    let v: Value = crate::common::answer(&args, &out);
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
    let _: crate::contract::HtmlData = crate::contract::decode("report --html (the page's JSON)", json.as_bytes());
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
        let r: Value =
            crate::common::checked(&["finops", "measure"], &std::fs::read(&report).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out))));
        let error = r["pushed"].as_array().unwrap().iter().find(|p| p["to"] == "otlp").unwrap()["error"].as_str().unwrap_or("").to_string();
        assert!(error.contains(said), "{error}");
        for dump in ["reqwest::Error", "Os {", "kind:", "source:"] {
            assert!(!error.contains(dump) && !stderr(&out).contains(dump), "a debug dump: {error} / {}", stderr(&out));
        }
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
