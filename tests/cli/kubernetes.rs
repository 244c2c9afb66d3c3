//! A Kubernetes node's energy charged to its pods (`gpu serve --pods`): a fake host tree with the kubelet's
//! cgroup v2 pods and RAPL counters the test advances, two fake NVML GPUs, the kubelet's PodResources API served
//! by gRPC's own Python implementation from the published `api.proto`, and the pods' metadata from a loopback
//! server answering as the API server does.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{fixtures, test_python, Env};
use crate::cpu::{host, zone};
use crate::http::{Answer, Server};
use crate::sources::{sample, with_nvml, with_processes, Nv};

const A: &str = "6f1c2a8e-3b7d-4c1e-9a2f-0d5e6b7c8a91";
const B: &str = "11111111-2222-3333-4444-555555555555";
const C: &str = "99999999-8888-7777-6666-555555555555";
const GPU0: &str = "GPU-00000000-0000-0000-0000-000000000000";
const GPU1: &str = "GPU-00000001-0000-0000-0000-000000000000";

/// The kubelet's PodResources API, served on a Unix socket until dropped.
struct Kubelet {
    child: Child,
    socket: PathBuf,
}

impl Kubelet {
    fn start(dir: &Path, pods: &str) -> Kubelet {
        let json = dir.join("podresources.json");
        std::fs::write(&json, pods).unwrap();
        // A short path: a Unix socket's is at most 107 bytes.
        let socket = dir.join("k.sock");
        let server = fixtures().join("kubernetes/podresources/server.py");
        let mut child = Command::new(test_python("the PodResources server"))
            .arg(server)
            .arg(&socket)
            .arg(&json)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
        assert_eq!(line.trim(), "ready", "the PodResources server did not start");
        Kubelet { child, socket }
    }
}

impl Drop for Kubelet {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn pod_dir(root: &Path, qos: &str, uid: &str) -> PathBuf {
    let slice = uid.replace('-', "_");
    root.join(format!("sys/fs/cgroup/kubepods.slice/kubepods-{qos}.slice/kubepods-{qos}-pod{slice}.slice"))
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

const PODS: [(&str, &str); 3] = [(A, "guaranteed"), (B, "burstable"), (C, "besteffort")];

/// A node: two GPUs (GPU 1 shared by a process of pod B's and one of the host's, 40 : 20 by SM activity), RAPL
/// counters, three pods' control groups, the kubelet saying pod A holds GPU 0, and the API naming the pods.
struct Node {
    env: Env,
    root: PathBuf,
    api: Server,
    kubelet: Kubelet,
}

impl Node {
    fn new() -> Node {
        let gpus = with_nvml(&[
            Nv { lo_w: Some(300.0), hi_w: 300.0, ..Nv::default() },
            Nv { uuid: GPU1, lo_w: Some(100.0), hi_w: 100.0, ..Nv::default() },
        ]);
        let env = with_processes(gpus, "1 4343 40 20 2.0 0 -1\n1 5555 20 10 2.0 0 -1\n");
        let (env, root) = host(env, "intel-xeon-2s", "0-7");
        let b = pod_dir(Path::new("/"), "burstable", B);
        write(
            &root.join("proc/4343/cgroup"),
            &format!("0::{}/cri-containerd-0123456789abcdef.scope\n", b.strip_prefix("/sys/fs/cgroup").unwrap().display()),
        );
        write(&root.join("proc/5555/cgroup"), "0::/system.slice/containerd.service\n");
        write(&root.join("sys/fs/cgroup/kubepods.slice/cgroup.procs"), "");
        for (uid, qos) in PODS {
            write(&cpu_file(&root, uid, qos), "usage_usec 1000000000\nuser_usec 1\n");
        }
        let api = Server::start(Answer::Body(
            200,
            "application/json",
            format!(
                r#"{{"kind":"PodList","apiVersion":"v1","items":[
              {{"metadata":{{"name":"trainer-0","namespace":"research","uid":"{A}","labels":{{"team":"vision","app.kubernetes.io/name":"trainer"}}}}}},
              {{"metadata":{{"name":"llm-0","namespace":"serving","uid":"{B}","labels":{{"team":"nlp"}},"annotations":{{"cost-center":"cc-42"}}}}}},
              {{"metadata":{{"name":"batch-0","namespace":"research","uid":"{C}"}}}}]}}"#
            ),
        ));
        let kubelet = Kubelet::start(
            env.dir.path(),
            &format!(
                r#"{{"pods":[{{"name":"trainer-0","namespace":"research","containers":[{{"name":"main","devices":[{{"resource_name":"nvidia.com/gpu","device_ids":["{GPU0}"]}}],"cpu_ids":[0,1]}}]}},
                        {{"name":"llm-0","namespace":"serving","containers":[{{"name":"main"}}]}}]}}"#
            ),
        );
        let token = env.file("token", "sekret-token-9f8e\n");
        let env = env.env("EXAMLOPS_NODE_NAME", "node-1").env("EXAMLOPS_KUBE_TOKEN_FILE", token.to_str().unwrap());
        Node { env, root, api, kubelet }
    }

    /// The counters advance `steps` times, 10 ms apart (nearly continuously, as a node's do, so the exporter's
    /// readings of the RAPL counters and of the control groups, taken apart, see the same work): package 0 by 0.5 J
    /// and its DRAM by 0.1 J a step, the pods' CPU time 2 : 1 : 1 (20, 10 and 10 ms), and the node's busy time
    /// beyond theirs by as much as pod B's (5 ticks of 10 ms a step).
    fn advance(&self, steps: u64) {
        let (pkg, dram) = (zone(&self.root, "intel-rapl:0"), zone(&self.root, "intel-rapl:0:1"));
        let read = |f: &str| std::fs::read_to_string(f).unwrap().trim().parse::<u64>().unwrap();
        let (pkg0, dram0) = (read(&pkg), read(&dram));
        let stat = self.root.join("proc/stat");
        for step in 1..=steps {
            // RAPL's files in place (exa keeps them open) and never truncated (a counter only grows, so it is never
            // shorter); the control groups' and /proc/stat whole.
            overwrite(&pkg, pkg0 + step * 500_000);
            overwrite(&dram, dram0 + step * 100_000);
            for (uid, qos) in PODS {
                let us = if uid == A { 20_000 } else { 10_000 };
                put(cpu_file(&self.root, uid, qos), format!("usage_usec {}\n", 1_000_000_000 + step * us));
            }
            let busy = 1000 + step * 5;
            put(&stat, format!("cpu  {busy} 0 500 90000 0 0 0 0 0 0\ncpu0 {busy} 0 500 90000 0 0 0 0 0 0\n"));
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// `gpu serve --pods` on the node, reading its kubelet and API, with `extra` flags.
fn serve(n: &Node, extra: &[&str]) -> crate::telemetry::Running {
    let (socket, api) = (n.kubelet.socket.to_str().unwrap(), n.api.url(""));
    let mut args = vec!["gpu", "serve", "--listen", "127.0.0.1:0", "--interval", "0.1", "--pods", "--pod-label", "team"];
    args.extend(["--pod-resources", socket, "--kube-api", &api]);
    args.extend(extra);
    crate::telemetry::Running::start(&n.env, &args)
}

/// Writes a counter's new value over its old one, in place and in one write: a reader holding the file open sees
/// the old value or the new one, never an empty file.
fn overwrite(p: &str, v: u64) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
    f.write_all_at(format!("{v}\n").as_bytes(), 0).unwrap();
}

/// Writes a counter's file whole, as the kernel shows one: a reader never sees it half-written.
fn put(p: impl AsRef<Path>, text: String) {
    let p = p.as_ref();
    let tmp = p.with_extension("new");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, p).unwrap();
}

fn cpu_file(root: &Path, uid: &str, qos: &str) -> PathBuf {
    if qos == "guaranteed" {
        root.join(format!("sys/fs/cgroup/kubepods.slice/kubepods-pod{}.slice/cpu.stat", uid.replace('-', "_")))
    } else {
        pod_dir(root, qos, uid).join("cpu.stat")
    }
}

/// A pod's energy of a component, J.
fn part(text: &str, uid: &str, c: &str) -> f64 {
    let labels = [format!("k8s_pod_uid=\"{uid}\""), format!("component=\"{c}\"")];
    sample(text, "exa_pod_energy_joules_total", &[&labels[0], &labels[1]]).unwrap_or_else(|| panic!("no {uid} {c}: {text}"))
}

/// The node's energy of a component no pod was charged (idle or system), J.
fn node(text: &str, c: &str, p: &str) -> f64 {
    let labels = [format!("component=\"{c}\""), format!("part=\"{p}\"")];
    sample(text, "exa_node_energy_unattributed_joules_total", &[&labels[0], &labels[1]])
        .unwrap_or_else(|| panic!("no node {c} {p}: {text}"))
}

/// Whether every pod's and the node's CPU and DRAM parts are there, and add up to what the counters rose by.
fn settled(text: &str) -> bool {
    let has = |name: &str, labels: &[&str]| sample(text, name, labels);
    let mut sums = [0.0, 0.0];
    for (i, c) in ["cpu", "dram"].iter().enumerate() {
        let comp = format!("component=\"{c}\"");
        for uid in [A, B, C] {
            match has("exa_pod_energy_joules_total", &[&format!("k8s_pod_uid=\"{uid}\""), &comp]) {
                Some(v) => sums[i] += v,
                None => return false,
            }
        }
        for p in ["idle", "system"] {
            match has("exa_node_energy_unattributed_joules_total", &[&comp, &format!("part=\"{p}\"")]) {
                Some(v) => sums[i] += v,
                None => return false,
            }
        }
    }
    (sums[0] - 200.0).abs() < 0.002 && (sums[1] - 40.0).abs() < 0.002
}

/// The CPU packages and DRAM: all the energy the counters rose by, pods + idle + system, to the millijoule; split by
/// CPU time, A twice B's, B as C's and as the node's own services'.
fn check_cpu(text: &str) {
    let all = |c: &str| [A, B, C].iter().map(|u| part(text, u, c)).sum::<f64>() + node(text, c, "idle") + node(text, c, "system");
    let (cpu, dram) = (all("cpu"), all("dram"));
    assert!((cpu - 200.0).abs() < 0.002, "the CPU parts add up to {cpu} J, not the 200 J package 0 rose by: {text}");
    assert!((dram - 40.0).abs() < 0.002, "the DRAM parts add up to {dram} J, not 40 J: {text}");
    let (a, b, c, sys) = (part(text, A, "cpu"), part(text, B, "cpu"), part(text, C, "cpu"), node(text, "cpu", "system"));
    assert!(a > 0.0 && (a / b - 2.0).abs() < 0.2 && (b / c - 1.0).abs() < 0.1, "{a} {b} {c}");
    // The node's busy time is read apart from the pods' (as on a real node), and an interval in which the pods' rose
    // more than the node's gives system nothing: its part is the least certain.
    assert!((sys / b - 1.0).abs() < 0.3, "system {sys} J against pod B's {b} J");
}

/// The GPUs: GPU 0 is pod A's, whole; GPU 1 pod B's and the host's 40 : 20 (the split's exact sums are the unit
/// tests'). Checked at one scrape against each device's own counter.
fn check_gpu(text: &str) {
    let device = |uuid: &str| sample(text, "hw_energy_joules_total", &[&format!("hw_id=\"{uuid}\"")]).unwrap_or_else(|| panic!("{text}"));
    let (g0, g1) = (device(GPU0), device(GPU1));
    let a = part(text, A, "gpu");
    // The pods' part trails the devices' counters by the exporter's readings since its last charge: most of it is
    // there, and never more.
    assert!(a <= g0 + 0.002 && a > 0.5 * g0, "pod A's GPU energy {a} of GPU 0's {g0}");
    assert_eq!(part(text, C, "gpu"), 0.0);
    let (b, host_part) = (part(text, B, "gpu"), node(text, "gpu", "system"));
    assert!((b / host_part - 2.0).abs() < 0.05, "pod B {b} J, the host {host_part} J of GPU 1: 40 : 20");
    let all = a + b + host_part + node(text, "gpu", "idle");
    assert!(all <= g0 + g1 + 0.002 && all > 0.5 * (g0 + g1), "{all} J of {} J", g0 + g1);
}

/// The pods' time, what a rate card prices: CPU-seconds as their control groups rose (400 steps of 20, 10 and 10
/// ms), GPU-seconds as held (pod A's GPU 0 since the exporter's first reading, at most its life; B and C hold none).
fn check_time(text: &str, lived: f64) {
    let time = |what: &str, uid: &str| {
        sample(text, &format!("exa_pod_{what}_time_seconds_total"), &[&format!("k8s_pod_uid=\"{uid}\"")])
            .unwrap_or_else(|| panic!("no {what} time for {uid}: {text}"))
    };
    for (uid, cpu_s) in [(A, 8.0), (B, 4.0), (C, 4.0)] {
        assert!((time("cpu", uid) - cpu_s).abs() < 1e-6, "{uid}: {} CPU-seconds, not {cpu_s}", time("cpu", uid));
    }
    let held = time("gpu", A);
    assert!(held > 0.0 && held <= lived, "pod A held GPU 0 {held} s of the exporter's {lived} s");
    assert_eq!((time("gpu", B), time("gpu", C)), (0.0, 0.0));
}

/// The exporter's pod series say each pod's part by component, named and labelled as the API says, and the node's
/// idle and system parts, adding up to the node's energy; a pod whose control group goes is dropped; the API's
/// token is sent and never shown.
#[test]
fn the_exporter_charges_a_nodes_gpus_cpus_and_dram_to_its_pods_and_adds_up_to_the_node() {
    let n = Node::new();
    let began = Instant::now();
    let mut serve = serve(&n, &["--semconv", "hw", "--pod-annotation", "cost-center"]);
    let addr = serve.address();
    let scrape = || crate::prometheus::http_get(&addr, "/metrics");
    // The exporter's first reading is its baseline: the pods' time before it is not its to count.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !scrape().contains("exa_pod_cpu_time_seconds_total{") {
        assert!(Instant::now() < deadline, "no pod's CPU time in 20 s: {}", scrape());
        std::thread::sleep(Duration::from_millis(50));
    }
    n.advance(400);
    // Held still: the CPU side's totals settle at what the counters rose by (the GPUs draw on).
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut text = scrape();
    while !settled(&text) {
        assert!(Instant::now() < deadline, "the CPU's parts never settled at 200 J and the DRAM's at 40 J: {text}");
        std::thread::sleep(Duration::from_millis(100));
        text = scrape();
    }
    // Named and labelled as the API says.
    let trainer = [r#"k8s_namespace_name="research""#, r#"k8s_pod_name="trainer-0""#, &format!(r#"k8s_pod_uid="{A}""#)];
    assert!(text.lines().any(|l| l.starts_with("exa_pod_energy_joules_total") && trainer.iter().all(|x| l.contains(x))), "{text}");
    let info = text.lines().find(|l| l.starts_with("exa_pod_info{") && l.contains("llm-0")).unwrap_or_else(|| panic!("{text}"));
    assert!(info.contains(r#"k8s_pod_label_team="nlp""#) && info.contains(r#"k8s_pod_annotation_cost_center="cc-42""#), "{info}");
    check_cpu(&text);
    check_gpu(&text);
    check_time(&text, began.elapsed().as_secs_f64());
    // The API was asked for this node's pods, with the token; the token is never shown.
    let asked = n.api.requests();
    // This node's pods, from the API server's cache, their metadata alone.
    let list = "GET /api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1&resourceVersion=0 ";
    assert!(asked.iter().any(|r| r.starts_with(list) && r.contains("as=PartialObjectMetadataList")), "{asked:?}");
    assert!(asked.iter().any(|r| r.contains("authorization: Bearer sekret-token-9f8e\r\n")), "{asked:?}");
    // Pod C goes: its series stay with their last values, whoever reads /metrics meanwhile (a probe, another
    // scraper), for Prometheus's staleness window; the others go on.
    let before = part(&scrape(), C, "cpu");
    std::fs::remove_dir_all(pod_dir(&n.root, "besteffort", C)).unwrap();
    for _ in 0..10 {
        std::thread::sleep(Duration::from_millis(100));
        let text = scrape();
        assert_eq!(part(&text, C, "cpu"), before, "{text}");
    }
    let text = scrape();
    assert!(text.contains(A) && text.contains(B), "{text}");
    let (_, _, said) = serve.stop();
    assert!(!said.iter().any(|l| l.contains("sekret")), "{said:?}");
    assert!(said.iter().any(|l| l.contains("charging the node's energy to its pods (idle: none")), "{said:?}");
}

/// The shipped recording rules (deploy/kubernetes/chargeback/prometheusrule.yaml, evaluated every 500 ms here
/// rather than every minute) in a real Prometheus scraping the exporter: the namespaces and the unattributed
/// part add up to the node, and a team is the sum of its pods.
#[test]
fn a_real_prometheus_with_the_shipped_rules_sums_namespaces_and_teams_to_their_node() {
    let n = Node::new();
    let mut serve = serve(&n, &["--power-cost-per-kwh", "0.2"]);
    let addr = serve.address();
    let rule: serde_yaml_ng::Value = serde_yaml_ng::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/kubernetes/chargeback/prometheusrule.yaml")).unwrap(),
    )
    .unwrap();
    let groups = serde_yaml_ng::to_string(&rule["spec"]).unwrap();
    assert!(groups.contains("interval: 1m"), "{groups}");
    let rules = n.env.file("rules.yaml", &groups.replace("interval: 1m", "interval: 500ms"));
    let prom = crate::prometheus::Prometheus::scraping_with_rules(&[("exa", &addr)], "node-1", &rules);
    // The counters advance once Prometheus has scraped the exporter (a rate needs them rising between scrapes).
    let deadline = Instant::now() + Duration::from_secs(30);
    while prom.query(r#"count_over_time(exa_pod_info[1m]) >= 2"#).is_empty() {
        assert!(Instant::now() < deadline, "Prometheus never scraped the exporter twice");
        std::thread::sleep(Duration::from_millis(100));
    }
    n.advance(300);
    let deadline = Instant::now() + Duration::from_secs(30);
    let wanted = r#"count(namespace_component:exa_pod_energy_joules:rate5m{component="cpu"} > 0) == 2"#;
    while prom.query(wanted).is_empty() {
        assert!(Instant::now() < deadline, "no namespace's CPU watts in 30 s: {:?}", prom.query("exa_pod_energy_joules_total"));
        std::thread::sleep(Duration::from_millis(200));
    }
    // Every rule answers from the series the exporter exports (their names and labels are the ones the rules read).
    for q in [
        r#"team:exa_pod_energy_joules:rate5m{k8s_pod_label_team="nlp"} > 0"#,
        r#"team:exa_pod_co2e_grams:rate5m{k8s_pod_label_team="vision"} > 0"#,
        r#"namespace:exa_pod_cost_usd:rate5m{k8s_namespace_name="research"} > 0"#,
        r#"namespace:exa_pod_co2e_grams:rate5m{k8s_namespace_name="serving"} > 0"#,
        r#"node_component:exa_energy_joules:rate5m{node="node-1",component="cpu"} > 0"#,
        r#"node_part:exa_node_energy_unattributed_joules:rate5m{part="idle"} > 0"#,
    ] {
        assert_eq!(prom.query(q).len(), 1, "{q}");
    }
    // The rules' own expressions, at one moment past (every scrape before it stored): the namespaces and the
    // unattributed part are the node, and team nlp (pod llm-0) is namespace serving, to float rounding.
    let expr = |record: &str| {
        let rules = rule["spec"]["groups"][0]["rules"].as_sequence().unwrap();
        let r = rules.iter().find(|r| r["record"] == record).unwrap_or_else(|| panic!("no rule {record}"));
        format!("({})", r["expr"].as_str().unwrap())
    };
    let past = prom.api("/api/v1/query?query=time()-3")["data"]["result"][1].as_str().unwrap().to_string();
    let at_past = |q: &str| {
        let v = prom.api(&format!("/api/v1/query?query={}&time={past}", crate::prometheus::encode(q)));
        v["data"]["result"].as_array().cloned().unwrap_or_default()
    };
    let value = |v: &serde_json::Value| v["value"][1].as_str().unwrap().parse::<f64>().unwrap();
    let one = |q: &str| {
        let r = at_past(q);
        assert_eq!(r.len(), 1, "{q}: {r:?}");
        value(&r[0])
    };
    let node = one(&format!("sum({})", expr("node_component:exa_energy_joules:rate5m")));
    let parts = one(&format!(
        "sum({}) + sum({})",
        expr("namespace_component:exa_pod_energy_joules:rate5m"),
        expr("node_part:exa_node_energy_unattributed_joules:rate5m")
    ));
    assert!(node > 0.0 && (parts - node).abs() <= 1e-9 * node, "namespaces and unattributed {parts} W, the node {node} W");
    let teams = at_past(&expr("team:exa_pod_energy_joules:rate5m"));
    let nlp = teams.iter().find(|t| t["metric"]["k8s_pod_label_team"] == "nlp").map(value).unwrap_or_else(|| panic!("{teams:?}"));
    let namespaces = at_past(&expr("namespace_component:exa_pod_energy_joules:rate5m"));
    let serving: f64 = namespaces.iter().filter(|n| n["metric"]["k8s_namespace_name"] == "serving").map(value).sum();
    assert!(nlp > 0.0 && (nlp - serving).abs() <= 1e-9 * serving, "team nlp {nlp} W, namespace serving {serving} W");
}

/// A node with RAPL's packages but no DRAM domain and no GPU: its pods' CPU series only, never a GPU or DRAM series
/// at 0 (not measured is not 0); with neither source, no energy series at all. The kubelet not there is said once.
#[test]
fn a_component_no_source_reads_is_not_exported() {
    let (env, root) = host(Env::new(), "amd-epyc-1s", "0-3");
    write(&root.join("sys/fs/cgroup/kubepods.slice/cgroup.procs"), "");
    write(&cpu_file(&root, B, "burstable"), "usage_usec 1000\n");
    // A static pod: its control group bears its config hash, which its mirror pod's annotation says.
    let hash = "0123456789abcdef0123456789abcdef";
    write(
        &root.join(format!("sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{hash}.slice/cpu.stat")),
        "usage_usec 5\n",
    );
    let env = env.env("EXAMLOPS_GPU_SOURCE", "auto");
    let args = ["gpu", "serve", "--listen", "127.0.0.1:0", "--interval", "0.1", "--pods"];
    let missing = env.dir.path().join("no-kubelet.sock");
    let mut with_rapl: Vec<&str> = args.to_vec();
    // The kubelet does not answer: said once, its cause once.
    let api = Server::start(Answer::Body(
        200,
        "application/json",
        format!(
            r#"{{"kind":"PodList","items":[{{"metadata":{{"name":"llm-0","namespace":"serving","uid":"{B}"}}}},
               {{"metadata":{{"name":"etcd-node-1","namespace":"kube-system","uid":"9c4e0d6a-0000-4000-8000-000000000001","annotations":{{"kubernetes.io/config.mirror":"{hash}"}}}}}}]}}"#
        ),
    ));
    let api_url = api.url("");
    with_rapl.extend(["--pod-resources", missing.to_str().unwrap(), "--kube-api", &api_url]);
    let mut serve = crate::telemetry::Running::start(&env, &with_rapl);
    let addr = serve.address();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut text = crate::prometheus::http_get(&addr, "/metrics");
    let pods_cpu = format!(r#"k8s_pod_uid="{B}",component="cpu""#);
    while !text.contains(&pods_cpu) {
        assert!(Instant::now() < deadline, "no CPU series: {text}");
        std::thread::sleep(Duration::from_millis(100));
        text = crate::prometheus::http_get(&addr, "/metrics");
    }
    assert!(!text.contains(r#"component="gpu""#) && !text.contains(r#"component="dram""#), "{text}");
    let etcd = format!(r#"exa_pod_info{{k8s_namespace_name="kube-system",k8s_pod_name="etcd-node-1",k8s_pod_uid="{hash}"}} 1"#);
    assert!(text.contains(&etcd), "{text}");
    let (_, _, said) = serve.stop();
    let unreachable: Vec<&String> = said.iter().filter(|l| l.contains("cannot reach the kubelet's PodResources API")).collect();
    assert_eq!(unreachable.len(), 1, "said once: {said:?}");
    assert_eq!(unreachable[0].matches("No such file or directory").count(), 1, "its cause once: {}", unreachable[0]);

    // Neither GPUs nor RAPL: the pods are known, and no energy series is made up for them.
    let env = env.env("EXAMLOPS_CPU_SOURCE", "none");
    let mut serve = crate::telemetry::Running::start(&env, &[&args[..], &["--pod-resources", "none", "--kube-api", "none"]].concat());
    let addr = serve.address();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut text = crate::prometheus::http_get(&addr, "/metrics");
    while !text.contains("exa_pod_info{") {
        assert!(Instant::now() < deadline, "no pod: {text}");
        std::thread::sleep(Duration::from_millis(100));
        text = crate::prometheus::http_get(&addr, "/metrics");
    }
    assert!(!text.contains("exa_pod_energy") && !text.contains("exa_node_energy_unattributed"), "{text}");
    drop(serve.stop());
    // Two keys that would be one label name are refused before anything starts: a scrape with a label twice fails.
    let out = env.run(&["gpu", "serve", "--pods", "--pod-label", "app.kubernetes.io/name,app-kubernetes-io/name"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("would both be exported as k8s_pod_label_app_kubernetes_io_name"), "{out:?}");
}

/// `gpu export --pods`: the pods' families go out over OTLP under their OpenTelemetry names and attributes, every
/// export holding every pod (a gone pod is not dropped by one instrument's read before the others').
#[test]
fn the_pods_energy_goes_out_over_otlp_too() {
    let n = Node::new();
    let rx = crate::telemetry::Receiver::start(n.env.dir.path());
    let base = format!("http://127.0.0.1:{}", rx.port);
    let (socket, api) = (n.kubelet.socket.to_str().unwrap(), n.api.url(""));
    let args = ["gpu", "export", "--otlp", &base, "--interval", "0.3", "--pods", "--pod-label", "team"];
    let mut exa = crate::telemetry::Running::start(&n.env, &[&args[..], &["--pod-resources", socket, "--kube-api", &api]].concat());
    exa.wait_for("sending the GPU metrics to");
    n.advance(50);
    crate::telemetry::eventually(30, "an export with every pod's energy", || {
        let ms = crate::telemetry::metrics(&rx.requests());
        ms.iter()
            .rev()
            .find(|(_, m)| m["name"] == "exa.pod.energy")
            .is_some_and(|(_, m)| m["sum"]["dataPoints"].as_array().is_some_and(|p| p.len() == 9))
    });
    let ms = crate::telemetry::metrics(&rx.requests());
    let (i, energy) = ms.iter().rev().find(|(_, m)| m["name"] == "exa.pod.energy").unwrap();
    assert_eq!(energy["unit"], "J");
    let points = energy["sum"]["dataPoints"].as_array().unwrap();
    let a_gpu = points
        .iter()
        .find(|p| {
            crate::telemetry::attr(p, "k8s.pod.uid").as_deref() == Some(A)
                && crate::telemetry::attr(p, "component").as_deref() == Some("gpu")
        })
        .unwrap_or_else(|| panic!("{energy}"));
    assert_eq!(crate::telemetry::attr(a_gpu, "k8s.namespace.name").as_deref(), Some("research"));
    assert_eq!(crate::telemetry::attr(a_gpu, "k8s.pod.name").as_deref(), Some("trainer-0"));
    // The same export holds every pod's info, with its team.
    let info = ms.iter().find(|(j, m)| j == i && m["name"] == "exa.pod.info").map(|(_, m)| m.clone()).unwrap_or_else(|| panic!("{ms:?}"));
    let teams: Vec<Option<String>> =
        info["gauge"]["dataPoints"].as_array().unwrap().iter().map(|p| crate::telemetry::attr(p, "k8s.pod.label.team")).collect();
    assert_eq!(teams.len(), 3, "{info}");
    assert!(teams.contains(&Some("vision".into())) && teams.contains(&Some("nlp".into())), "{teams:?}");
    let (code, _, _) = exa.stop();
    assert_eq!(code, 0);
}

/// A pod whose CPU time cannot be read at the exporter's first reading takes its first value read as its
/// baseline: the time it spent before the exporter started is not charged to one interval.
#[test]
fn a_pod_unread_at_the_start_is_not_charged_its_past() {
    let n = Node::new();
    let c = cpu_file(&n.root, C, "besteffort");
    std::fs::remove_file(&c).unwrap();
    let mut serve = serve(&n, &[]);
    let addr = serve.address();
    let scrape = || crate::prometheus::http_get(&addr, "/metrics");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !scrape().contains(r#"exa_pod_cpu_time_seconds_total{k8s_namespace_name="research",k8s_pod_name="batch-0""#) {
        assert!(Instant::now() < deadline, "pod C not charged in 20 s: {}", scrape());
        std::thread::sleep(Duration::from_millis(50));
    }
    // Its counter appears saying 1,000 s, then rises 10 ms a step with the others.
    n.advance(100);
    let deadline = Instant::now() + Duration::from_secs(20);
    let time = |text: &str, uid: &str| sample(text, "exa_pod_cpu_time_seconds_total", &[&format!("k8s_pod_uid=\"{uid}\"")]);
    loop {
        let text = scrape();
        if time(&text, B).is_some_and(|b| (b - 1.0).abs() < 1e-6) {
            let got = time(&text, C).unwrap_or_else(|| panic!("{text}"));
            assert!(got <= 1.0 + 1e-6, "pod C charged {got} CPU-seconds, its past included: {text}");
            break;
        }
        assert!(Instant::now() < deadline, "pod B's CPU time never reached 1 s: {text}");
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(serve.stop());
}
