//! MCP over stdio: names, never paths; slow calls bounded; a client that never reads.

use crate::common::Env;
use crate::http::{Answer, Server};
use serde_json::{json, Value};
use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::doors::Mcp;

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
