//! `exa mcp` driven by the official MCP Python SDK (PyPI `mcp`, installed by
//! `cargo xtask test`), over stdio and streamable HTTP, against the same
//! real Prometheus the metrics tests read. Each structured answer must equal
//! the CLI's `-o json` for the same arguments.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{stderr, Env};
use crate::metrics::{self, HOUR, MIN};

const EXA: &str = env!("CARGO_BIN_EXE_exa");

fn python() -> PathBuf {
    crate::common::test_python("the MCP tests need the MCP Python SDK")
}

fn client_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py")
}

/// Runs the SDK client with `plan` against a server; its JSON report.
fn client(env: &Env, transport: &[&str], plan: &Value) -> Value {
    let mut child = env
        .cmd_for(python().to_str().unwrap())
        .arg(client_script())
        .args(transport)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(plan.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the MCP client failed: {}", String::from_utf8_lossy(&out.stderr));
    let report: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("client output ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    // Each structured answer holds to the JSON contract of the CLI command the tool answers as.
    let no_calls = Vec::new();
    let calls = plan["calls"].as_array().unwrap_or(&no_calls);
    for (call, r) in calls.iter().zip(report["results"].as_array().unwrap_or(&no_calls)) {
        let tool = call["name"].as_str().unwrap_or_default();
        crate::contract::check_tool(tool, &call["arguments"], &r["structured"], r["is_error"] == true);
    }
    report
}

pub(crate) fn stdio(env: &Env, calls: Value) -> Value {
    client(env, &["stdio", EXA, "mcp"], &json!({ "calls": calls }))
}

fn structured(r: &Value) -> &Value {
    assert_eq!(r["is_error"], false, "{r}");
    &r["structured"]
}

/// Two metrics answers are the same but for how long their queries took.
#[track_caller]
fn same(mcp: &Value, cli: &Value) {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(q) = v.get_mut("queries").and_then(Value::as_object_mut) {
            q.remove("seconds");
        }
        v
    };
    let (a, b) = (strip(mcp), strip(cli));
    if a != b {
        let (a, b) = (a.to_string(), b.to_string());
        let at = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(0);
        panic!(
            "the MCP answer differs from the CLI's at byte {at}: ...{}... vs ...{}...",
            &a[at.saturating_sub(80)..(at + 80).min(a.len())],
            &b[at.saturating_sub(80)..(at + 80).min(b.len())]
        );
    }
}

#[test]
fn a_report_per_unit_of_work_is_the_clis() {
    let env = Env::new();
    env.json::<Value>(&["finops", "carbon", "record", "M", "--run-id", "r", "--gpu-hours", "2", "--tokens", "5000"]);
    let calls = json!([
        {"name": "finops_report", "arguments": {"per": "token"}},
        {"name": "finops_report", "arguments": {"per": "Bad Unit"}}
    ]);
    let out = stdio(&env, calls);
    let r = out["results"].as_array().unwrap();
    let cli = env.json::<Value>(&["report", "--per", "token"]);
    assert_eq!(structured(&r[0])["totals"]["per"], cli["totals"]["per"]);
    assert_eq!(structured(&r[0])["totals"]["per"]["r"], 5000.0);
    assert_eq!(r[1]["is_error"], true, "{}", r[1]);
    assert!(r[1]["text"].as_str().unwrap().contains("per: unit 'Bad Unit'"), "{}", r[1]);
}

#[track_caller]
fn refused(r: &Value, code: &str, status: u64) {
    assert_eq!(r["is_error"], true, "{r}");
    assert_eq!((r["structured"]["error"]["code"].as_str(), r["structured"]["error"]["status"].as_u64()), (Some(code), Some(status)), "{r}");
}

/// A pod's tag is a grouping too, its key checked as the CLI checks it; the schema says both forms.
fn tags_group_reports(env: &Env, report: &Value, r: &[Value]) {
    assert_eq!(structured(&r[0]), &env.json::<Value>(&["report", "--by", "label:team"]));
    refused(&r[1], "bad-request", 422);
    assert!(r[1]["text"].as_str().unwrap().contains("not a Kubernetes label key"), "{}", r[1]["text"]);
    let by = &report["inputSchema"]["properties"]["by"];
    assert!(by["anyOf"][0]["enum"].as_array().unwrap().iter().any(|n| n == "namespace"), "{by}");
    assert!(by["anyOf"][1]["pattern"].as_str().unwrap().starts_with("^(label|annotation):"), "{by}");
}

/// The hardware named as the CLI names it: the same estimate; a model exa does not have is refused, naming the argument.
fn hardware_is_named_as_the_cli_names_it(env: &Env, r: &[Value]) {
    let cli = env.json::<Value>(&[
        "finops",
        "carbon",
        "estimate",
        "--gpu-hours",
        "10",
        "--cpu-hours",
        "32",
        "--provider",
        "hardware-aware",
        "--gpu-model",
        "H100-SXM",
        "--cpu-model",
        "EPYC 7763",
        "--cpu-cores",
        "64",
    ]);
    assert_eq!(structured(&r[0])["outputs"], cli["outputs"]);
    assert_eq!(structured(&r[0])["coefficients"]["gpu_tdp_watts"]["value"], 700.0);
    refused(&r[1], "bad-request", 422);
    assert!(r[1]["text"].as_str().unwrap().contains("gpu_model:"), "{}", r[1]["text"]);
    refused(&r[2], "bad-request", 422);
    assert!(r[2]["text"].as_str().unwrap().contains("cpu_model needs cpu_cores"), "{}", r[2]["text"]);
}

/// metrics_read's schema is the spec's argument table.
fn metrics_read_schema_is_the_specs_table(read: &Value) {
    assert_eq!(read["required"], json!(["action", "cluster"]));
    assert_eq!(read["properties"]["action"]["enum"], json!(["node", "workload", "flags"]));
    assert_eq!(read["properties"]["kind"]["enum"], json!(["Job", "JobSet", "MPIJob", "Deployment", "StatefulSet", "Pod"]));
    assert_eq!((read["properties"]["range"]["default"].as_str(), read["properties"]["points"]["maximum"].as_u64()), (Some("6h"), Some(96)));
    assert_eq!(read["properties"]["points"]["default"], 48);
    assert_eq!(read["properties"]["namespace"]["default"], "default");
    assert_eq!(read["properties"]["detail"]["enum"], json!(["summary", "series"]));
}

#[test]
fn tools_are_listed_with_their_schemas_and_finops_answers_equal_the_cli() {
    let env = crate::common::with_h100(Env::new());
    let calls = json!([
        {"name": "finops_estimate", "arguments": {"domain": "carbon", "gpu_hours": 12, "cpu_hours": 32}},
        {"name": "finops_estimate", "arguments": {"domain": "cost", "gpu_hours": 10, "provider": "tiered-example", "coefficients": {"tier_threshold": 4}}},
        {"name": "finops_providers", "arguments": {"domain": "carbon"}},
        {"name": "finops_report", "arguments": {"by": "day"}},
        {"name": "gpu_read"},
        {"name": "finops_estimate", "arguments": {"domain": "carbon"}},
        {"name": "finops_estimate", "arguments": {"domain": "carbon", "gpu_hours": "12"}},
        {"name": "finops_estimate", "arguments": {"domain": "carbon", "gpu_hours": -1}},
        {"name": "finops_estimate", "arguments": {"domain": "carbon", "gpu_hour": 1}},
        {"name": "finops_estimate", "arguments": {"domain": "water", "gpu_hours": 1}},
        {"name": "finops_estimate", "arguments": {"domain": "carbon", "gpu_hours": 1, "provider": "nope"}},
        {"name": "no_such_tool", "arguments": {}},
        {"name": "finops_report", "arguments": {"by": "label:team"}},
        {"name": "finops_report", "arguments": {"by": "label:te'am"}},
        {"name": "finops_estimate", "arguments": {"domain": "carbon", "gpu_hours": 10, "cpu_hours": 32, "provider": "hardware-aware", "gpu_model": "H100-SXM", "cpu_model": "EPYC 7763", "cpu_cores": 64}},
        {"name": "finops_estimate", "arguments": {"domain": "carbon", "gpu_hours": 1, "gpu_model": "H1000"}},
        {"name": "finops_estimate", "arguments": {"domain": "carbon", "cpu_hours": 1, "cpu_model": "EPYC 7763"}}
    ]);
    let out = stdio(&env, calls);
    assert_eq!(out["server"], "exa");
    let tools = out["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "metrics_read",
            "metrics_query",
            "metrics_clusters",
            "finops_estimate",
            "finops_providers",
            "finops_report",
            "finops_when",
            "finops_budget_status",
            "gpu_read"
        ]
    );
    for t in tools {
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{} is annotated read-only", t["name"]);
        assert_eq!(t["annotations"]["destructiveHint"], false);
    }
    metrics_read_schema_is_the_specs_table(&tools[0]["inputSchema"]);
    let r = out["results"].as_array().unwrap();
    // The same answers as the CLI's -o json.
    assert_eq!(structured(&r[0]), &env.json::<Value>(&["finops", "carbon", "estimate", "--gpu-hours", "12", "--cpu-hours", "32"]));
    let cost = structured(&r[1]);
    let cli = env.json::<Value>(&[
        "finops",
        "cost",
        "estimate",
        "--gpu-hours",
        "10",
        "--provider",
        "tiered-example",
        "--set",
        "tier_threshold=4",
    ]);
    assert_eq!(cost["outputs"], cli["outputs"]);
    assert_eq!(cost["coefficients"], cli["coefficients"]);
    assert_eq!(structured(&r[2]), &env.json::<Value>(&["finops", "carbon", "providers"]));
    assert_eq!(structured(&r[3]), &env.json::<Value>(&["report", "--by", "day"]));
    let gpu = structured(&r[4]);
    assert_eq!(gpu["devices"].as_array().unwrap().len(), env.json::<Value>(&["gpu"])["devices"].as_array().unwrap().len());
    assert!(r[0]["text"].as_str().unwrap().contains("gCO2e"), "a text answer for a model too: {}", r[0]["text"]);
    // Refusals are tool errors with the spec's code; the argument at fault is named.
    refused(&r[5], "bad-request", 422);
    assert!(r[5]["structured"]["error"]["message"].as_str().unwrap().contains("nothing to estimate"));
    refused(&r[6], "bad-request", 422);
    assert!(r[6]["text"].as_str().unwrap().contains("'gpu_hours' must be a number"), "{}", r[6]["text"]);
    refused(&r[7], "bad-request", 422);
    refused(&r[8], "bad-request", 422);
    assert!(r[8]["text"].as_str().unwrap().contains("did you mean 'gpu_hours'"), "{}", r[8]["text"]);
    refused(&r[9], "bad-request", 422);
    // An unknown provider falls back as the CLI does, never silently: the answer says why, and a warning says so.
    assert!(structured(&r[10])["fallback_reason"].as_str().unwrap().contains("no carbon provider named 'nope'"));
    assert!(r[10]["text"].as_str().unwrap().contains("warning: carbon provider 'nope'"), "{}", r[10]["text"]);
    assert!(r[11]["protocol_error"].as_str().unwrap().contains("no tool 'no_such_tool'"), "{}", r[11]);
    tags_group_reports(&env, &tools[5], &r[12..14]);
    hardware_is_named_as_the_cli_names_it(&env, &r[14..17]);

    // Read only: nothing was recorded, not even an empty store.
    assert!(!env.dir.path().join("data/examlops/records.sqlite3").exists());
}

#[test]
fn metrics_tools_answer_as_the_cli_does_against_a_real_prometheus() {
    let env = metrics::env();
    let t = metrics::fleet().t;
    let (start, end) = (metrics::iso(t - 3 * HOUR - 5 * MIN), metrics::iso(t - HOUR - 35 * MIN));
    let w = json!({"start": start, "end": end, "points": 90});
    let (week, fortnight, now) = (metrics::iso(t - 7 * 86_400), metrics::iso(t - 14 * 86_400 - 60), metrics::iso(t));
    let with = |extra: Value| {
        let mut a = w.clone();
        a.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        a
    };
    let calls = json!([
        {"name": "metrics_clusters"},
        {"name": "metrics_read", "arguments": with(json!({"action": "node", "cluster": "aurora-prod", "node": "n2"}))},
        {"name": "metrics_read", "arguments": with(json!({"action": "flags", "cluster": "aurora-prod", "kind": "Job", "name": "train-llm"}))},
        {"name": "metrics_read", "arguments": with(json!({"action": "workload", "cluster": "aurora-prod", "kind": "Job", "name": "train-llm"}))},
        {"name": "metrics_query", "arguments": with(json!({"cluster": "aurora-prod", "query": "max(DCGM_FI_DEV_GPU_TEMP)"}))},
        {"name": "metrics_read", "arguments": {"action": "node", "node": "n2"}},
        {"name": "metrics_read", "arguments": {"action": "node", "cluster": "nowhere", "node": "n2"}},
        {"name": "metrics_read", "arguments": {"action": "node", "cluster": "aurora-prod", "node": "n2", "points": 200}},
        {"name": "metrics_read", "arguments": {"action": "flags", "cluster": "aurora-prod"}},
        {"name": "metrics_read", "arguments": {"action": "node", "cluster": "gone", "node": "n1"}},
        {"name": "metrics_query", "arguments": {"cluster": "aurora-prod", "query": "sum(("}},
        {"name": "metrics_read", "arguments": {"action": "node", "cluster": "aurora-prod", "node": "n2", "points": "48"}},
        {"name": "metrics_read", "arguments": {"action": "flags", "cluster": "aurora-prod", "node": "n2", "start": week, "end": now}},
        {"name": "metrics_read", "arguments": with(json!({"action": "flags", "cluster": "aurora-prod", "node": "n2", "detail": "summary"}))},
        {"name": "metrics_read", "arguments": with(json!({"action": "flags", "cluster": "aurora-prod", "node": "n2", "detail": "series"}))},
        {"name": "metrics_query", "arguments": {"query": "count(DCGM_FI_DEV_GPU_TEMP)", "instant": true, "start": start, "end": end}},
        {"name": "metrics_read", "arguments": {"action": "node", "cluster": "aurora-prod", "node": "n2", "start": end, "end": start}},
        {"name": "metrics_read", "arguments": {"action": "node", "cluster": "aurora-prod", "node": "n2", "start": fortnight, "end": now}},
        {"name": "metrics_read", "arguments": {"action": "workload", "cluster": "aurora-prod", "kind": "CronJob", "name": "x"}},
        {"name": "metrics_read", "arguments": {"action": "workload", "cluster": "aurora-prod", "kind": "Job", "name": "never-ran"}},
        {"name": "metrics_query", "arguments": {"cluster": "aurora-prod", "query": "up{cluster=\"elsewhere\"}"}}
    ]);
    let r = stdio(&env, calls)["results"].as_array().unwrap().clone();
    let win = ["--start", &start, "--end", &end, "--points", "90"];
    let cli = |args: &[&str]| env.json::<Value>(&[&["metrics"][..], args, &win].concat());
    same(structured(&r[0]), &env.json::<Value>(&["metrics", "clusters"]));
    same(structured(&r[1]), &cli(&["node", "--cluster", "aurora-prod", "--node", "n2"]));
    let flags = structured(&r[2]);
    same(flags, &cli(&["flags", "--cluster", "aurora-prod", "--kind", "Job", "--name", "train-llm"]));
    assert!(flags["flags"].as_array().unwrap().iter().any(|f| f["kind"] == "thermal_throttle"), "the spec's thermal episode");
    same(structured(&r[3]), &cli(&["workload", "--cluster", "aurora-prod", "--kind", "Job", "--name", "train-llm"]));
    same(structured(&r[4]), &cli(&["query", "--cluster", "aurora-prod", "max(DCGM_FI_DEV_GPU_TEMP)"]));
    refused(&r[5], "bad-request", 422);
    refused(&r[6], "not-found", 404);
    refused(&r[7], "bad-request", 422);
    refused(&r[8], "bad-request", 422);
    refused(&r[9], "metrics-unavailable", 503);
    refused(&r[10], "bad-request", 422);
    refused(&r[11], "bad-request", 422);
    // Seven days answer, as on the CLI, on a cluster with episodes configured.
    let week_flags = structured(&r[12]);
    same(
        week_flags,
        &env.json::<Value>(&["metrics", "flags", "--cluster", "aurora-prod", "--node", "n2", "--start", &week, "--end", &now]),
    );
    assert_eq!(week_flags["flags"][0]["kind"], "thermal_throttle");
    // Flags take summary detail, and refuse series.
    same(structured(&r[13]), &cli(&["flags", "--cluster", "aurora-prod", "--node", "n2", "--detail", "summary"]));
    refused(&r[14], "bad-request", 422);
    // A query without a cluster runs over the organization, as the CLI's does.
    let org = structured(&r[15]);
    same(org, &env.json::<Value>(&["metrics", "query", "--instant", "--start", &start, "--end", &end, "count(DCGM_FI_DEV_GPU_TEMP)"]));
    assert_eq!(org.get("cluster"), Some(&Value::Null));
    assert!(org["org"]["clusters"].as_array().unwrap().len() > 1);
    // The refusals: a window ending before it starts, one over 14 days, a kind outside the six, a workload
    // that never ran, and a query that reaches past the cluster's labels.
    refused(&r[16], "bad-request", 422);
    refused(&r[17], "bad-request", 422);
    refused(&r[18], "bad-request", 422);
    refused(&r[19], "not-found", 404);
    refused(&r[20], "bad-request", 422);
}

#[test]
fn a_slow_prometheus_does_not_hold_up_other_calls() {
    let silent = crate::http::Server::start(crate::http::Answer::Silence);
    let env = Env::new();
    env.config(&format!(
        "clusters:\n  slow:\n    prometheus: http://127.0.0.1:{}\n    gpu_vendor: nvidia\n    gpu_model: H100\n    timeout_s: 4\n",
        silent.port
    ));
    let plan = json!({"concurrent": true, "calls": [
        {"name": "metrics_read", "arguments": {"action": "node", "cluster": "slow", "node": "n1"}},
        {"name": "finops_providers", "arguments": {"domain": "cost"}}
    ]});
    let out = client(&env, &["stdio", EXA, "mcp"], &plan);
    let r = out["results"].as_array().unwrap();
    refused(&r[0], "metrics-unavailable", 503);
    let (slow, quick) = (r[0]["elapsed"].as_f64().unwrap(), r[1]["elapsed"].as_f64().unwrap());
    assert!(slow >= 3.5, "the slow call waited for its cluster's timeout: {slow}");
    assert!(quick < slow - 2.0, "the providers call answered while the slow one waited: {quick} vs {slow}");
}

/// A server over raw pipes, for what an SDK would never send.
fn raw(env: &Env) -> Child {
    env.cmd().arg("mcp").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

/// `exa mcp` on stdio with its pipes: the server, its stdin, and its stdout read a line at a time.
fn piped(env: &Env) -> (Child, std::process::ChildStdin, BufReader<std::process::ChildStdout>) {
    let mut child = raw(env);
    let stdin = child.stdin.take().unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    (child, stdin, out)
}

/// Writes one JSON-RPC message and its line break.
fn line_to(stdin: &mut impl Write, v: &str) {
    stdin.write_all(v.as_bytes()).unwrap();
    stdin.write_all(b"\n").unwrap();
}

fn line(out: &mut impl BufRead) -> Value {
    let mut s = String::new();
    out.read_line(&mut s).unwrap();
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("not a JSON-RPC line ({e}): {s:?}"))
}

fn wait(child: &mut Child, limit: Duration) -> i32 {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s.code().unwrap_or(-1);
        }
        assert!(start.elapsed() < limit, "exa mcp did not exit within {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn malformed_messages_huge_arguments_and_a_closed_stdin() {
    let silent = crate::http::Server::start(crate::http::Answer::Silence);
    let env = Env::new();
    env.config(&format!(
        "clusters:\n  slow:\n    prometheus: http://127.0.0.1:{}\n    gpu_vendor: nvidia\n    gpu_model: H100\n    timeout_s: 60\n",
        silent.port
    ));
    let (mut child, mut stdin, mut out) = piped(&env);
    let mut send = |v: &str| line_to(&mut stdin, v);
    // Not JSON at all: ignored, as every official SDK does (answering could start an error storm); the server goes on.
    send("this is not json {{{");
    send(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
    );
    assert_eq!(line(&mut out)["result"]["serverInfo"]["name"], "exa");
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    // JSON of the wrong shape: an Invalid Request error.
    send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"not an object"}"#);
    let e = line(&mut out);
    assert!(e["error"]["code"].as_i64().is_some(), "{e}");
    // An unknown method: method not found.
    send(r#"{"jsonrpc":"2.0","id":3,"method":"no/such/method"}"#);
    assert_eq!(line(&mut out)["error"]["code"], -32601);
    // A 10 MB argument: a clear refusal naming it.
    let huge = "x".repeat(10 * 1024 * 1024);
    send(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "metrics_query", "arguments": {"cluster": "slow", "query": huge}}}).to_string());
    let r = line(&mut out);
    assert_eq!(r["id"], 4);
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(r["result"]["structuredContent"]["error"]["code"], "bad-request", "{}", &r.to_string()[..300.min(r.to_string().len())]);
    // JSON by its grammar holding a number no number type holds: JSON-RPC's parse error, with its id; never silence.
    send(r#"{"jsonrpc":"2.0","id":44,"method":"tools/call","params":{"name":"finops_estimate","arguments":{"gpu_hours":1e400}}}"#);
    let e = line(&mut out);
    assert_eq!((e["id"].as_i64(), e["error"]["code"].as_i64()), (Some(44), Some(-32700)), "{e}");
    assert!(e["error"]["message"].as_str().unwrap().contains("number out of range"), "{e}");
    // A call to a Prometheus that never answers, then the client goes away: exa exits at once, cleanly.
    send(
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"metrics_read","arguments":{"action":"node","cluster":"slow","node":"n1"}}}"#,
    );
    std::thread::sleep(Duration::from_millis(300));
    drop(stdin);
    assert_eq!(wait(&mut child, Duration::from_secs(10)), 0);
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn an_organization_wide_query_asks_a_few_clusters_at_a_time_within_the_busy_cap() {
    // Ten clusters whose Prometheus never answers (3 s each): a metrics_query without a cluster asks 8 at a time,
    // and weighs 10 of the 16 running requests, so a second such call waits for the first. Until the first 8 time
    // out, the server sees at most 8 requests; asking every cluster of both calls at once would be 20.
    let silent = crate::http::Server::start(crate::http::Answer::Silence);
    let env = Env::new();
    let clusters: String = (0..10)
        .map(|i| {
            format!(
                "  c{i}:\n    prometheus: http://127.0.0.1:{}\n    gpu_vendor: nvidia\n    gpu_model: H100\n    timeout_s: 3\n",
                silent.port
            )
        })
        .collect();
    env.config(&format!("clusters:\n{clusters}"));
    let (mut child, mut stdin, mut out) = piped(&env);
    let mut send = |v: &str| line_to(&mut stdin, v);
    send(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
    );
    assert_eq!(line(&mut out)["result"]["serverInfo"]["name"], "exa");
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    for id in [2, 3] {
        send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "metrics_query", "arguments": {"query": "up", "instant": true}}}).to_string());
    }
    // From the first request, less than a timeout: however slow the machine, no later chunk can have started.
    let started = Instant::now();
    while silent.requests().is_empty() {
        assert!(started.elapsed() < Duration::from_secs(30), "no cluster was asked");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_secs(2));
    let asked = silent.requests().len();
    assert!((1..=8).contains(&asked), "{asked} clusters asked at once");
    drop(stdin);
    assert_eq!(wait(&mut child, Duration::from_secs(10)), 0);
}

#[test]
fn streamable_http_needs_the_bearer_token() {
    let env = Env::new();
    // No token: refused before listening.
    let out = env.run(&["mcp", "--listen", "127.0.0.1:0"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("EXAMLOPS_MCP_TOKEN"), "{}", stderr(&out));
    // A short token is refused too; the variable can be another one, named in the config.
    let short = Env::new().env("EXAMLOPS_MCP_TOKEN", "short");
    let out = short.run(&["mcp", "--listen", "127.0.0.1:0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("shorter than 16") && !stderr(&out).contains("short\n"), "{}", stderr(&out));
    let named = Env::new().env("TEAM_MCP_SECRET", "0123456789abcdef-team");
    named.config("mcp:\n  token_env: TEAM_MCP_SECRET\n");
    let mut c = named.cmd().args(["mcp", "--listen", "127.0.0.1:0"]).stderr(Stdio::piped()).stdout(Stdio::null()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(c.stderr.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.contains("bearer token from TEAM_MCP_SECRET"), "{line}");
    let _ = c.kill();
    let _ = c.wait();
    let token = "0123456789abcdef0123456789abcdef";
    let env = env.env("EXAMLOPS_MCP_TOKEN", token);
    let mut child = env.cmd().args(["mcp", "--listen", "127.0.0.1:0"]).stderr(Stdio::piped()).stdout(Stdio::null()).spawn().unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    let url = first.split_whitespace().find(|w| w.starts_with("http://")).unwrap_or_else(|| panic!("{first}")).to_string();
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{url}");
    assert!(!first.contains(token), "the token is never printed: {first}");
    // The SDK client with the token.
    let plan = json!({"calls": [{"name": "finops_estimate", "arguments": {"domain": "cost", "gpu_hours": 2}}]});
    let out = client(&env, &["http", &url, token], &plan);
    assert_eq!(structured(&out["results"][0]), &env.json::<Value>(&["finops", "cost", "estimate", "--gpu-hours", "2"]));
    // Without it, or with a wrong one: 401, nothing served.
    let addr = url.trim_start_matches("http://").trim_end_matches("/mcp").to_string();
    let post = |auth: Option<&str>| {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
        let auth = auth.map(|a| format!("Authorization: Bearer {a}\r\n")).unwrap_or_default();
        write!(
            s,
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        answer
    };
    assert!(post(None).starts_with("HTTP/1.1 401"), "{}", post(None));
    assert!(post(Some("wrong-token-wrong-token-wrong-token")).starts_with("HTTP/1.1 401"));
    assert!(post(Some(token)).starts_with("HTTP/1.1 200"), "{}", post(Some(token)));
    // SIGTERM stops it cleanly.
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    assert_eq!(wait(&mut child, Duration::from_secs(10)), 0);
}

#[test]
fn docs_mcp_names_every_argument_and_value_the_schemas_take() {
    // docs/mcp.md's row for each tool names each property of its input schema, and each value of an enum.
    let docs = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/mcp.md")).unwrap();
    let out = stdio(&Env::new(), json!([]));
    for tool in out["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        let row =
            docs.lines().find(|l| l.starts_with(&format!("| `{name}` |"))).unwrap_or_else(|| panic!("docs/mcp.md has no row for {name}"));
        for (prop, schema) in tool["inputSchema"]["properties"].as_object().into_iter().flatten() {
            assert!(row.contains(&format!("`{prop}`")), "docs/mcp.md's {name} row does not name `{prop}`: {row}");
            for v in schema["enum"].as_array().into_iter().flatten() {
                let v = v.as_str().unwrap();
                assert!(row.contains(&format!("`{v}`")), "docs/mcp.md's {name} row does not name {prop}'s value `{v}`: {row}");
            }
        }
    }
}
