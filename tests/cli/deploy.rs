//! deploy/: the Kubernetes manifests and the systemd unit, each checked by
//! the real validator (Kubernetes' schemas, the Prometheus operator's,
//! systemd's own), and held to what exa itself takes.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_yaml_ng::Value;

use crate::common::{test_python, Env};

fn deploy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy")
}

fn yaml(file: &str) -> Value {
    serde_yaml_ng::from_str(&std::fs::read_to_string(deploy().join("kubernetes").join(file)).unwrap()).unwrap()
}

/// The manifests in the kustomization, in its order.
fn resources() -> Vec<String> {
    yaml("kustomization.yaml")["resources"].as_sequence().unwrap().iter().map(|r| r.as_str().unwrap().to_string()).collect()
}

fn labels(v: &Value) -> Vec<(String, String)> {
    let mut l: Vec<(String, String)> =
        v.as_mapping().unwrap().iter().map(|(k, v)| (k.as_str().unwrap().to_string(), v.as_str().unwrap().to_string())).collect();
    l.sort();
    l
}

/// `exa ARGS --help`: exit 0 when exa takes the arguments a manifest or unit gives it.
fn takes(args: &[&str]) {
    let env = Env::new();
    let out = env.run(&[args, &["--help"]].concat());
    assert!(out.status.success(), "exa {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_kubernetes_manifests_pass_kubernetes_own_schemas_and_agree_with_each_other() {
    // Every file is in the kustomization, and every resource there is a file.
    let mut files: Vec<String> = std::fs::read_dir(deploy().join("kubernetes"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().into_string().unwrap())
        .filter(|f| f != "kustomization.yaml")
        .collect();
    files.sort();
    let mut listed = resources();
    listed.sort();
    assert_eq!(files, listed, "deploy/kubernetes holds the kustomization's resources and nothing else");
    // Kubernetes' own schemas, strictly (an unknown field fails), for every kind they know: all but the
    // ServiceMonitor, which is the Prometheus operator's (the next test).
    let core: Vec<PathBuf> =
        resources().iter().filter(|f| f.as_str() != "servicemonitor.yaml").map(|f| deploy().join("kubernetes").join(f)).collect();
    let validate = test_python("the Kubernetes manifests' check").with_file_name("kubernetes-validate");
    let out = Command::new(&validate).args(["--strict", "-k", "1.32.0"]).args(&core).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    for f in &core {
        assert!(said.contains(&format!("{} passed", f.display())), "{said}");
    }
    // The Service and the ServiceMonitor select the DaemonSet's pods, on the port it names.
    let ds = yaml("daemonset.yaml");
    let pod = labels(&ds["spec"]["template"]["metadata"]["labels"]);
    assert_eq!(labels(&ds["spec"]["selector"]["matchLabels"]), pod);
    let svc = yaml("service.yaml");
    assert_eq!(labels(&svc["spec"]["selector"]), pod);
    let sm = yaml("servicemonitor.yaml");
    assert_eq!(labels(&sm["spec"]["selector"]["matchLabels"]), labels(&svc["metadata"]["labels"]));
    let container = &ds["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(container["ports"][0]["name"], "metrics");
    assert_eq!((svc["spec"]["ports"][0]["name"].as_str(), sm["spec"]["endpoints"][0]["port"].as_str()), (Some("metrics"), Some("metrics")));
    // Least privilege: no token, nobody, nothing to escalate to, a file system it cannot write.
    assert_eq!(ds["spec"]["template"]["spec"]["automountServiceAccountToken"], false);
    assert_eq!(container["securityContext"]["allowPrivilegeEscalation"], false);
    assert_eq!(container["securityContext"]["readOnlyRootFilesystem"], true);
    assert_eq!(container["securityContext"]["capabilities"]["drop"][0], "ALL");
    assert!(container["resources"]["limits"]["memory"].as_str().is_some(), "a memory limit");
    // exa takes the command line the container runs.
    let args: Vec<&str> = container["args"].as_sequence().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert_eq!(container["command"][0], "exa");
    takes(&args);
}

#[test]
fn the_servicemonitor_passes_the_prometheus_operators_schema() {
    let modules = std::env::var_os("EXA_TEST_NODE_MODULES")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-node/node_modules"), PathBuf::from);
    assert!(modules.is_dir(), "the ServiceMonitor's check: run `cargo xtask test`, which installs it ({} is missing)", modules.display());
    // Node finds an ES module's imports beside the script: the checker runs from a folder with the modules in it.
    let env = Env::new();
    let script = env.dir.path().join("servicemonitor.mjs");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/deploy/servicemonitor.mjs"), &script).unwrap();
    std::os::unix::fs::symlink(&modules, env.dir.path().join("node_modules")).unwrap();
    let check = |file: &Path| Command::new("node").arg(&script).arg(file).output().unwrap();
    let ours = deploy().join("kubernetes/servicemonitor.yaml");
    let out = check(&ours);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("ServiceMonitor/exa-gpu passed"));
    // The check can fail: an interval that is not a duration is refused.
    let bad = env.dir.path().join("bad.yaml");
    std::fs::write(&bad, std::fs::read_to_string(&ours).unwrap().replace("interval: 15s", "interval: soon")).unwrap();
    let out = check(&bad);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("interval"), "{out:?}");
}

#[test]
fn the_systemd_unit_verifies_and_keeps_its_exposure_low() {
    let unit = std::fs::read_to_string(deploy().join("systemd/exa-gpu-serve.service")).unwrap();
    let exec = unit.lines().find_map(|l| l.strip_prefix("ExecStart=")).unwrap();
    let mut words = exec.split_whitespace();
    assert_eq!(words.next(), Some("/usr/local/bin/exa"));
    let args: Vec<&str> = words.collect();
    takes(&args);
    // systemd checks the program exists: the unit as installed, with this build of exa in its place.
    let env = Env::new();
    let path = env.dir.path().join("exa-gpu-serve.service");
    std::fs::write(&path, unit.replace("/usr/local/bin/exa", env!("CARGO_BIN_EXE_exa"))).unwrap();
    let out = Command::new("systemd-analyze").arg("verify").arg(&path).output().unwrap();
    // A warning (an unknown key, say) is a failure too.
    assert!(out.status.success() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    // systemd's own exposure score: 2.0 or less of 10 ("OK"); the threshold is in tenths.
    let out = Command::new("systemd-analyze").args(["security", "--offline=true", "--threshold=20"]).arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn every_grafana_panel_reads_series_from_a_prometheus_scraping_a_real_exporter() {
    // Grafana's own SDK reads the dashboard: every panel's options as its type's, every query as Prometheus's.
    let dashboard = deploy().join("grafana/exa-gpu.json");
    let out = Command::new(test_python("the Grafana dashboard's check"))
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/deploy/dashboard.py"))
        .arg(&dashboard)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let read: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(read["variables"], serde_json::json!(["datasource", "job"]));
    let queries = read["queries"].as_array().unwrap();
    let panels: std::collections::BTreeSet<&str> = queries.iter().map(|q| q["panel"].as_str().unwrap()).collect();
    for wanted in [
        "Power by GPU",
        "Energy by node",
        "CO2e by node",
        "Cost by node",
        "Throttling by GPU",
        "Exporter scrape health",
        "GPU energy per 1,000 tokens by node",
    ] {
        assert!(panels.contains(wanted), "a panel {wanted:?}: {panels:?}");
    }
    // A real exa gpu serve (two H100s through the fake nvidia-smi, CO2 and cost on), scraped every 500 ms.
    let env =
        crate::common::fake_smi(Env::new(), crate::telemetry::H100).env("FAKE_SMI_DEVICES", "2").env("GENAI_ENABLE_CO2_TRACKING", "true");
    // Beside it an inference server (the vLLM sample) generating 100 tokens every 100 ms, for the J/token panel.
    let server = std::sync::Arc::new(crate::http::Server::start(crate::http::Answer::Body(
        200,
        "text/plain",
        crate::work::vllm_advanced(0.0, 0.0, 0.0),
    )));
    let generating = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let generator = {
        let (server, generating) = (std::sync::Arc::clone(&server), std::sync::Arc::clone(&generating));
        std::thread::spawn(move || {
            let mut served = 0.0;
            while generating.load(std::sync::atomic::Ordering::Relaxed) {
                served += 100.0;
                server.set(crate::http::Answer::Body(200, "text/plain", crate::work::vllm_advanced(served, 0.0, 0.0)));
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        })
    };
    let url = server.url("/metrics");
    let mut exa = crate::telemetry::Running::start(
        &env,
        &["gpu", "serve", "--listen", "127.0.0.1:0", "--interval", "0.3", "--power-cost-per-kwh", "0.2", "--tokens-from", &url],
    );
    let addr = exa.address();
    let prom = crate::prometheus::Prometheus::scraping(&[("exa", &addr)]);
    // Enough scrapes for a rate: four of the energy counter in the last minute.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while prom.query("count_over_time(gen_ai_energy_kWh_total[1m]) >= 4").is_empty() {
        assert!(std::time::Instant::now() < deadline, "Prometheus never had four scrapes of the exporter");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    // Each query as Grafana sends it, its variables filled in: every one answers with series.
    for q in queries {
        let expr = q["expr"].as_str().unwrap().replace("$job", "exa").replace("$__rate_interval", "5s").replace("$__range", "1m");
        assert!(!expr.contains('$'), "a variable the test does not fill: {expr}");
        let series = prom.query(&expr);
        assert!(!series.is_empty(), "panel {} query {}: no series from {expr}", q["panel"], q["ref"]);
    }
    // A panel that would read nothing is caught: the same check fails for a metric exa does not export.
    assert!(prom.query("sum(gen_ai_gpu_no_such_metric{job=~\"exa\"})").is_empty());
    generating.store(false, std::sync::atomic::Ordering::Relaxed);
    generator.join().unwrap();
}

fn chargeback(file: &str) -> Value {
    serde_yaml_ng::from_str(&std::fs::read_to_string(deploy().join("kubernetes/chargeback").join(file)).unwrap()).unwrap()
}

/// deploy/kubernetes/chargeback: every file in its kustomization, Kubernetes' own schemas (strictly) and the
/// Prometheus operator's pass, and it is granted only what `gpu serve --pods` reads: pods listed, the host's files
/// read-only, no privilege escalation, no capability.
#[test]
fn the_chargeback_manifests_pass_the_schemas_and_grant_only_what_exa_reads() {
    let dir = deploy().join("kubernetes/chargeback");
    let listed: Vec<String> =
        chargeback("kustomization.yaml")["resources"].as_sequence().unwrap().iter().map(|r| r.as_str().unwrap().to_string()).collect();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|f| f != "kustomization.yaml")
        .collect();
    files.sort();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(files, sorted, "the chargeback folder holds its kustomization's resources and nothing else");
    let operator = ["servicemonitor.yaml", "prometheusrule.yaml"];
    let core: Vec<PathBuf> = listed.iter().filter(|f| !operator.contains(&f.as_str())).map(|f| dir.join(f)).collect();
    let validate = test_python("the Kubernetes manifests' check").with_file_name("kubernetes-validate");
    let out = Command::new(&validate).args(["--strict", "-k", "1.32.0"]).args(&core).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert_eq!(said.matches(" passed").count(), core.len(), "{said}");
    let modules = std::env::var_os("EXA_TEST_NODE_MODULES")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-node/node_modules"), PathBuf::from);
    let env = Env::new();
    let script = env.dir.path().join("servicemonitor.mjs");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/deploy/servicemonitor.mjs"), &script).unwrap();
    std::os::unix::fs::symlink(&modules, env.dir.path().join("node_modules")).unwrap();
    let out = Command::new("node").arg(&script).args(operator.iter().map(|f| dir.join(f))).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("ServiceMonitor/exa-chargeback passed") && said.contains("PrometheusRule/exa-chargeback passed"), "{said}");

    // Pods listed, nothing else.
    let rules = &chargeback("clusterrole.yaml")["rules"];
    assert_eq!(serde_json::to_value(rules).unwrap(), serde_json::json!([{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}]));
    let binding = chargeback("clusterrolebinding.yaml");
    assert_eq!(binding["subjects"][0]["name"], chargeback("serviceaccount.yaml")["metadata"]["name"]);
    let ds = chargeback("daemonset.yaml");
    let spec = &ds["spec"]["template"]["spec"];
    assert_eq!(spec["serviceAccountName"], binding["subjects"][0]["name"]);
    let c = &spec["containers"][0];
    assert_eq!(c["securityContext"]["allowPrivilegeEscalation"], false);
    assert_eq!(c["securityContext"]["readOnlyRootFilesystem"], true);
    assert_eq!(c["securityContext"]["capabilities"]["drop"][0], "ALL");
    assert!(c["securityContext"]["capabilities"].get("add").is_none(), "no capability added");
    // Every host path mounted read-only, and mounted.
    let mounts = c["volumeMounts"].as_sequence().unwrap();
    assert!(mounts.iter().all(|m| m["readOnly"] == true), "{mounts:?}");
    for v in spec["volumes"].as_sequence().unwrap() {
        assert!(mounts.iter().any(|m| m["name"] == v["name"]), "volume {:?} is not mounted", v["name"]);
    }
    let env_of = |name: &str| c["env"].as_sequence().unwrap().iter().find(|e| e["name"] == name).cloned().unwrap_or(Value::Null);
    assert_eq!(env_of("NODE_NAME")["valueFrom"]["fieldRef"]["fieldPath"], "spec.nodeName");
    assert_eq!(env_of("EXAMLOPS_HOST_ROOT")["value"], "/host");
    assert!(mounts.iter().any(|m| m["mountPath"] == "/host/sys") && mounts.iter().any(|m| m["mountPath"] == "/host/proc"));
    let args: Vec<&str> = c["args"].as_sequence().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert!(args.contains(&"--pods"), "{args:?}");
    takes(&args);
    // The Service and the ServiceMonitor select its pods.
    let pod = labels(&ds["spec"]["template"]["metadata"]["labels"]);
    assert_eq!(labels(&chargeback("service.yaml")["spec"]["selector"]), pod);
    assert_eq!(labels(&chargeback("servicemonitor.yaml")["spec"]["selector"]["matchLabels"]), pod);
    assert_eq!(chargeback("namespace.yaml")["metadata"]["labels"]["pod-security.kubernetes.io/enforce"], "privileged");
}

/// The chargeback's recording rules pass `promtool check rules`, and `promtool test rules` with every rule's
/// answer worked by hand (tests/deploy/chargeback.test.yaml); a wrong answer fails it.
#[test]
fn the_chargeback_recording_rules_pass_promtool_and_give_the_answers_worked_by_hand() {
    let env = Env::new();
    let rules = env.file("chargeback.rules.yaml", &serde_yaml_ng::to_string(&chargeback("prometheusrule.yaml")["spec"]).unwrap());
    let tests = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/deploy/chargeback.test.yaml")).unwrap();
    let test_file = env.file("chargeback.test.yaml", &tests);
    let promtool = |args: &[&Path], what: &str| Command::new("promtool").args([what, "rules"]).args(args).output().unwrap();
    let out = promtool(&[&rules], "check");
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("SUCCESS: 7 rules found"), "{out:?}");
    let out = promtool(&[&test_file], "test");
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // The check can fail: the node's GPU watts are 250, not 251.
    assert!(tests.contains("value: 250"));
    let wrong = env.file("chargeback.test.yaml", &tests.replace("value: 250", "value: 251"));
    let out = promtool(&[&wrong], "test");
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("node_component:exa_energy_joules:rate5m"), "{out:?}");
}

/// The GitHub Action's step, run as the runner runs it (its inputs as INPUT_* variables), with the fake
/// nvidia-smi's H100: within its limits it passes and says the run's figures; over a per-run limit or a team
/// ledger's budget it fails, saying which and by how much; advice only never fails; the command's own failure is
/// its exit status.
#[test]
fn the_github_action_measures_a_command_and_fails_it_above_a_budget() {
    let action: Value = serde_yaml_ng::from_str(&std::fs::read_to_string(deploy().join("github-action/action.yml")).unwrap()).unwrap();
    assert_eq!(action["runs"]["using"].as_str(), Some("composite"));
    let step = &action["runs"]["steps"][0];
    assert_eq!(step["run"].as_str(), Some("bash \"$GITHUB_ACTION_PATH/run.sh\""));
    // Every input reaches the script, by the name it reads.
    let script = std::fs::read_to_string(deploy().join("github-action/run.sh")).unwrap();
    for (name, _) in action["inputs"].as_mapping().unwrap() {
        let var = format!("INPUT_{}", name.as_str().unwrap().to_uppercase().replace('-', "_"));
        assert!(step["env"][var.as_str()].as_str().is_some() && script.contains(&var), "{var}");
    }
    let env = crate::common::with_h100(Env::new());
    let d = env.dir.path().to_path_buf();
    let run = |inputs: &[(&str, &str)]| {
        let (out, summary) = (d.join("github-output"), d.join("summary.md"));
        let _ = (std::fs::remove_file(&out), std::fs::remove_file(&summary));
        let mut c = env.cmd_for("bash");
        c.arg(deploy().join("github-action/run.sh"))
            .env("EXA", env!("CARGO_BIN_EXE_exa"))
            .env("RUNNER_TEMP", &d)
            .env("GITHUB_OUTPUT", &out)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("GITHUB_RUN_ID", "77")
            .env("EXAMLOPS_GPU_INTERVAL", "0.1");
        for (k, v) in inputs {
            c.env(k, v);
        }
        let o = c.output().unwrap();
        (o, std::fs::read_to_string(out).unwrap_or_default(), std::fs::read_to_string(summary).unwrap_or_default())
    };
    let cmd = ("INPUT_COMMAND", "sleep 0.3");
    let (o, outputs, summary) = run(&[cmd, ("INPUT_MAX_KWH", "10")]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let kwh: f64 = outputs.lines().find_map(|l| l.strip_prefix("kwh=")).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    assert!(outputs.contains("verdict=within") && kwh > 0.0, "{outputs}");
    assert!(summary.contains("`sleep 0.3` exited 0") && summary.contains("this run: within: budget 'run'"), "{summary}");
    // Over a per-run limit: the step fails, and says by how much.
    let (o, outputs, summary) = run(&[cmd, ("INPUT_MAX_KWH", "0.000000001")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(outputs.contains("verdict=over") && summary.contains("this run: over: budget 'run' (all, quarter)"), "{summary}");
    let (o, _, _) = run(&[cmd, ("INPUT_MAX_KWH", "0.000000001"), ("INPUT_ADVISE_ONLY", "true")]);
    assert_eq!(o.status.code(), Some(0), "advice only");
    // A team's ledger with a budget the run takes past its limit: copied in, checked, failed.
    let team = d.join("team.sqlite3");
    let team_db = team.to_str().unwrap();
    let set = env.run(&["--db", team_db, "budget", "set", "ci", "--scope", "model=ci", "--period", "month", "--kwh", "0.000000001"]);
    assert!(set.status.success(), "{}", String::from_utf8_lossy(&set.stderr));
    let (o, outputs, summary) = run(&[cmd, ("INPUT_LEDGER", team_db), ("INPUT_BUDGET", "ci")]);
    assert_eq!(o.status.code(), Some(1), "{summary}");
    assert!(outputs.contains("verdict=over") && summary.contains("budget ci: over: budget 'ci' (model=ci, month)"), "{summary}");
    let runs: serde_json::Value = env.json(&["--db", team_db, "report", "--by", "run"]);
    assert!(runs["groups"][0]["key"].as_str().unwrap().starts_with("gh-77-1-job-"), "{runs}");
    // The command's own failure is the step's, and the team's ledger is charged for it all the same.
    let (o, outputs, _) = run(&[("INPUT_COMMAND", "sleep 0.3; exit 7"), ("INPUT_LEDGER", team_db)]);
    assert_eq!((o.status.code(), outputs.contains("verdict=\n")), (Some(7), true));
    let runs: serde_json::Value = env.json(&["--db", team_db, "report", "--by", "run"]);
    assert_eq!(runs["groups"].as_array().unwrap().len(), 2, "{runs}");
}

/// The alerting rules pass `promtool check rules` and `promtool test rules` (tests/deploy/alerts.test.yaml: a
/// budget burning and over, a node's idle GPUs, energy per token rising, each worked by hand); a wrong answer fails
/// it; and the node's series they divide by are the ones a real exporter serves.
#[test]
fn the_alerting_rules_pass_promtool_and_read_series_the_exporter_serves() {
    let env = crate::common::with_h100(Env::new());
    let rules = std::fs::read_to_string(deploy().join("prometheus/exa.rules.yaml")).unwrap();
    let rules_file = env.file("exa.rules.yaml", &rules);
    let tests = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/deploy/alerts.test.yaml")).unwrap();
    let test_file = env.file("alerts.test.yaml", &tests);
    let promtool = |args: &[&Path], what: &str| Command::new("promtool").args([what, "rules"]).args(args).output().unwrap();
    let out = promtool(&[&rules_file], "check");
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("SUCCESS: 8 rules found"), "{out:?}");
    let out = promtool(&[&test_file], "test");
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(tests.contains("value: 24"));
    let wrong = env.file("alerts.test.yaml", &tests.replace("value: 24", "value: 25"));
    let out = promtool(&[&wrong], "test");
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("exa_gpu_idle_co2e_kg"), "{out:?}");
    // The node's energy, CO2e and cost totals, as `exa gpu serve --co2 --power-cost-per-kwh` serves them.
    let mut exa = crate::telemetry::Running::start(
        &env,
        &["gpu", "serve", "--listen", "127.0.0.1:0", "--interval", "0.2", "--co2", "--power-cost-per-kwh", "0.2"],
    );
    let addr = exa.address();
    let names = ["gen_ai_energy_kWh_total", "gen_ai_co2_emissions_grams_total", "gen_ai_power_cost_USD_total"];
    let started = std::time::Instant::now();
    let mut text = String::new();
    while !names.iter().all(|n| text.lines().any(|l| l.starts_with(&format!("{n} ")))) {
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "not served: {names:?} in\n{text}");
        std::thread::sleep(std::time::Duration::from_millis(100));
        text = crate::prometheus::http_get(&addr, "/metrics");
    }
    for n in names {
        assert!(rules.contains(n), "{n}");
    }
    assert_eq!(exa.stop().0, 0);
}
