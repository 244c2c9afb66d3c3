//! `examlops.Monitor`: windows inside the process, read from one `exa finops measure --serve` per node, through
//! the fake NVML whose energy counters the test advances (`FAKE_NVML_COUNTER`): each window's energy is known
//! to the millijoule.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{stderr, test_python, Env};
use crate::sources::{with_nvml, Nv};

/// Python helpers every script starts with: `put(j)` advances the counters to j joules (device i by (i + 1) j),
/// a tenth of a second around it, so no rise is faster than a GPU draws.
const PRELUDE: &str = r#"
import json, os, sys, time
import examlops
def put(j):
    time.sleep(0.1)
    path = os.environ["FAKE_NVML_COUNTER"]
    with open(path + ".tmp", "w") as f:
        f.write(str(j))
    os.replace(path + ".tmp", path)
    time.sleep(0.1)
"#;

/// Two fake H100s whose counters the test advances; the Python API from this tree, running this exa.
fn monitored() -> Env {
    // Drawing 0 W by their power readings: the counters alone move, when the test says, so that a counter
    // still for a second (which the run's rule does not trust) and the trapezoid standing in agree at 0 J.
    let idle = || Nv { lo_w: Some(0.0), hi_w: 0.0, ..Nv::default() };
    let env = with_nvml(&[idle(), Nv { uuid: "GPU-00000001-0000-0000-0000-000000000000", ..idle() }]);
    let counter = env.file("counter", "0");
    let run = env.dir.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).unwrap();
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("python");
    env.env("FAKE_NVML_COUNTER", counter.to_str().unwrap())
        .env("XDG_RUNTIME_DIR", run.to_str().unwrap())
        .env("PYTHONPATH", python.to_str().unwrap())
        .env("EXAMLOPS_EXA", env!("CARGO_BIN_EXE_exa"))
}

fn python(env: &Env, script: &str) -> Command {
    let mut c = env.cmd_for(test_python("the Monitor's tests need the tests' Python").to_str().unwrap());
    c.arg("-c").arg(format!("{PRELUDE}\n{script}"));
    c
}

/// Runs a script; its last line of stdout, as JSON.
#[track_caller]
fn answer(out: &Output) -> Value {
    assert!(out.status.success(), "the script failed: {}", stderr(out));
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().last().unwrap_or_default()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn joules(v: &Value) -> Vec<f64> {
    let m = v.as_object().unwrap();
    (0..m.len()).map(|i| m[&i.to_string()].as_f64().unwrap()).collect()
}

#[test]
fn nested_and_overlapping_windows_are_the_counters_rise_to_the_millijoule_and_rank_0_records_the_run() {
    let env = monitored();
    let script = r#"
m = examlops.Monitor("bert", run_id="windows-1")
m.begin_window("a"); put(10); m.begin_window("b"); put(25)
a = m.end_window("a"); put(40); b = m.end_window("b")
with m.window("c") as c:
    with m.window("inner") as inner:
        put(100)
    c.tokens = 60
total = m.total()
sock = oct(os.stat(m.path).st_mode & 0o777)
report = m.close()
print(json.dumps({"a": a.data, "b": b.data, "c": c.data, "inner": inner.data, "c_j_per_token": c.j_per_token,
                  "total": total.data, "report": report, "mode": sock, "path": m.path}))
"#;
    let v = answer(&python(&env, script).output().unwrap());
    assert_eq!(joules(&v["a"]["gpu_j"]), [25.0, 50.0], "a: from 0 to 25 J");
    assert_eq!(joules(&v["b"]["gpu_j"]), [30.0, 60.0], "b overlaps a: from 10 to 40 J");
    assert_eq!(joules(&v["c"]["gpu_j"]), [60.0, 120.0]);
    assert_eq!(joules(&v["inner"]["gpu_j"]), [60.0, 120.0], "a window nested in another");
    assert_eq!(v["c"]["gpu_total_j"], 180.0);
    assert_eq!(v["c_j_per_token"], 3.0, "180 J over 60 tokens");
    assert_eq!(joules(&v["total"]["gpu_j"]), [100.0, 200.0], "the total since the first hello");
    // Every window is priced by the providers, as the run is.
    assert!(v["c"]["carbon"]["outputs"]["co2e_g"].as_f64().unwrap() > 0.0, "{}", v["c"]);
    assert_eq!(v["c"]["carbon"]["provider"], "green-ai-default");
    assert!(v["c"]["cost"]["outputs"]["cost_usd"].as_f64().unwrap() > 0.0);
    // The run, recorded once at close: its energy is the windows' counters' too.
    let report = &v["report"];
    crate::common::close(report["gpu"]["energy_kwh"].as_f64().unwrap() * 3.6e6, 300.0);
    assert_eq!(report["recorded"]["run_id"], "windows-1");
    assert_eq!(report["recorded"]["run_id_from"], "given");
    assert_eq!(v["mode"], "0o600", "the socket is the user's alone");
    let path = v["path"].as_str().unwrap();
    assert!(!Path::new(path).exists(), "the measurer removed its socket when the run ended");
    for leftover in [format!("{path}.lock"), format!("{path}.log")] {
        assert!(!Path::new(&leftover).exists(), "a measurer of one process leaves nothing behind: {leftover}");
    }
    let r: Value = env.json(&["report", "--by", "model"]);
    assert_eq!(r["totals"]["runs"], 1);
    assert_eq!(r["totals"]["records"]["carbon"], 1);
}

/// A rank of a four-rank job: waits for the others at each step (files in DIR), so every rank reads the total
/// after the counters moved; rank 0 advances them, and closes last.
const RANK: &str = r#"
d, rank = os.environ["DIR"], int(os.environ["RANK"])
def touch(name):
    open(os.path.join(d, name), "w").close()
def wait_for(prefix, n):
    deadline = time.monotonic() + 120
    while sum(f.startswith(prefix) for f in os.listdir(d)) < n:
        if time.monotonic() > deadline:
            sys.exit(f"rank {rank} waited too long for {prefix}")
        time.sleep(0.01)
m = examlops.Monitor("llama", run_id="job-77")
touch(f"ready-{rank}"); wait_for("ready-", 4)
if rank == 0:
    put(50); touch("go")
wait_for("go", 1)
total = m.total()
touch(f"read-{rank}"); wait_for("read-", 4)
if rank != 0:
    m.close(); touch(f"left-{rank}")
else:
    wait_for("left-", 3); m.close()
print(json.dumps({"rank": m.rank, "world": m.world_size, "measurer": m.measurer_pid, "total": total.data, "report": m.report}))
"#;

#[test]
fn four_ranks_on_a_node_share_one_measurer_and_the_job_counts_each_gpu_once() {
    let env = monitored();
    let dir = env.dir.path().join("ranks");
    std::fs::create_dir_all(&dir).unwrap();
    let ranks: Vec<_> = (0..4)
        .map(|rank| {
            let mut c = python(&env, RANK);
            c.env("DIR", &dir).env("RANK", rank.to_string()).env("LOCAL_RANK", rank.to_string()).env("WORLD_SIZE", "4");
            c.env("MASTER_ADDR", "127.0.0.1").env("MASTER_PORT", "29500").stdout(Stdio::piped()).stderr(Stdio::piped());
            c.spawn().unwrap()
        })
        .collect();
    let answers: Vec<Value> = ranks.into_iter().map(|r| answer(&r.wait_with_output().unwrap())).collect();
    let measurer = &answers[0]["measurer"];
    for (i, a) in answers.iter().enumerate() {
        assert_eq!(a["rank"], i);
        assert_eq!(a["world"], 4);
        assert_eq!(&a["measurer"], measurer, "rank {i} talked to the same measurer: one per node");
        assert_eq!(joules(&a["total"]["gpu_j"]), [50.0, 100.0], "rank {i} sees the node's energy, once");
        assert_eq!(a["report"].is_null(), i != 0, "rank 0 alone ends and records the run");
    }
    let report = &answers[0]["report"];
    crate::common::close(report["gpu"]["energy_kwh"].as_f64().unwrap() * 3.6e6, 150.0);
    assert_eq!(report["cpu"]["source"].as_str().unwrap().split(' ').nth(6), Some("4"), "{}", report["cpu"]);
    let r: Value = env.json(&["report", "--by", "model"]);
    assert_eq!(r["totals"]["runs"], 1, "one run for the job");
    assert_eq!(r["groups"][0]["key"], "llama");
}

/// A measurer serving `path`, started by the test, with the fake GPUs.
fn serving(env: &Env, path: &Path, linger: &str) -> std::process::Child {
    let child = env
        .cmd()
        .args(["-o", "json", "finops", "measure", "--serve"])
        .arg(path)
        .args(["--linger", linger])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while UnixStream::connect(path).is_err() {
        assert!(start.elapsed() < Duration::from_secs(60), "the measurer never listened");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

struct Client(BufReader<UnixStream>);

impl Client {
    fn new(path: &Path) -> Client {
        let s = UnixStream::connect(path).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        Client(BufReader::new(s))
    }

    fn send(&mut self, line: &[u8]) -> Value {
        // One write: a server that closes after a line too long must not fail the test on a second one.
        let s = self.0.get_mut();
        let _ = s.write_all(&[line, b"\n"].concat());
        let mut back = String::new();
        self.0.read_line(&mut back).unwrap();
        serde_json::from_str(&back).unwrap_or_else(|e| panic!("{e}: {back:?}"))
    }

    fn ask(&mut self, v: &Value) -> Value {
        self.send(v.to_string().as_bytes())
    }
}

fn refused(v: &Value, needle: &str) {
    assert_eq!(v["ok"], false, "{v}");
    assert!(v["error"].as_str().unwrap().contains(needle), "{v}");
}

#[test]
fn the_socket_refuses_what_is_not_a_request_and_serves_on() {
    let env = monitored();
    let path: PathBuf = env.dir.path().join("run/m.sock");
    let mut child = serving(&env, &path, "60s");
    let mut c = Client::new(&path);
    refused(&c.send(b"{not json"), "not a request");
    refused(&c.ask(&json!({"op": "fly"})), "not a request");
    refused(&c.ask(&json!({"op": "total"})), "no process has said hello");
    refused(&c.ask(&json!({"op": "hello", "pid": 1})), "a process says hello for itself");
    assert_eq!(c.ask(&json!({"op": "hello"}))["ok"], true, "the peer's own process, as the kernel says");
    let at = c.ask(&json!({"op": "read"}))["at"].clone();
    let mut bad = at.clone();
    bad["t"] = json!(1e300);
    refused(&c.ask(&json!({"op": "window", "from": bad})), "not a reading this measurer gave");
    refused(&c.ask(&json!({"op": "end", "run_id": "x"})), "needs a model");
    refused(&c.ask(&json!({"op": "end", "record": "bad\u{7}name"})), "model");
    refused(&c.ask(&json!({"op": "end", "record": "m", "part": true})), "a part needs the run id");
    let mut negative = at.clone();
    negative["busy_s"] = json!(-1e9);
    refused(&c.ask(&json!({"op": "window", "from": negative})), "not a reading this measurer gave");
    refused(&c.send(b"\xff\xfe"), "UTF-8");
    let mut c = Client::new(&path);
    // A line longer than the cap is refused and that connection closed; the next is served.
    let long = vec![b'x'; 70 * 1024];
    refused(&c.send(&long), "64");
    let mut again = Client::new(&path);
    assert_eq!(again.ask(&json!({"op": "read"}))["ok"], true);
    // A second measurer on a socket that is served, or on a file that is not a socket, is refused.
    let second = env.run(&["finops", "measure", "--serve", path.to_str().unwrap()]);
    crate::common::fails(&second, 1, "a measurer already serves");
    let file = env.file("not-a-socket", "keep me");
    let third = env.run(&["finops", "measure", "--serve", file.to_str().unwrap()]);
    crate::common::fails(&third, 1, "is not a socket");
    // A directory others may write to is no place for the socket: they could put their own in its place.
    let shared = env.dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let fourth = env.run(&["finops", "measure", "--serve", shared.join("m.sock").to_str().unwrap()]);
    crate::common::fails(&fourth, 1, "may be written by others");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
    // Ending without a model: the report comes back, nothing is recorded.
    let end = again.ask(&json!({"op": "end"}));
    assert_eq!(end["ok"], true, "{end}");
    assert!(end["report"]["recorded"].is_null());
    assert!(child.wait().unwrap().success());
    assert!(!path.exists());
}

#[test]
fn a_measurer_no_client_comes_back_to_ends_after_its_linger_and_says_so_to_nobody() {
    let env = monitored();
    let path = env.dir.path().join("run/linger.sock");
    let child = serving(&env, &path, "1s");
    {
        let mut c = Client::new(&path);
        assert_eq!(c.ask(&json!({"op": "hello", "pid": std::process::id()}))["ok"], true);
        // The counters move while a client is there: 7 J and 14 J.
        let counter = env.dir.path().join("counter");
        std::fs::write(counter.with_extension("tmp"), "7").unwrap();
        std::fs::rename(counter.with_extension("tmp"), &counter).unwrap();
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["gpu"]["status"], "measured", "{}", report["gpu"]);
    crate::common::close(report["gpu"]["energy_kwh"].as_f64().unwrap() * 3.6e6, 21.0);
    assert!(report["recorded"].is_null(), "nobody asked for a record");
    assert!(!path.exists());
}

#[test]
fn the_hugging_face_callback_logs_a_window_an_epoch_through_the_real_trainer_callbacks_and_records_once() {
    let env = monitored();
    // The Trainer's own CallbackHandler calls the callback as a training loop does (transformers without
    // PyTorch: the loop's model and optimizer are none), two epochs, the counters advanced in each.
    let script = r#"
import examlops.integrations
assert "transformers" not in sys.modules, "importing the integrations imports no framework"
from types import SimpleNamespace
from examlops.integrations import HuggingFaceCallback
from transformers.trainer_callback import CallbackHandler, TrainerControl, TrainerState
cb = HuggingFaceCallback("hf-model", run_id="hf-1")
handler = CallbackHandler([cb], None, None, None, None)
args, state, control = SimpleNamespace(), TrainerState(), TrainerControl()
handler.on_train_begin(args, state, control)
for epoch, j in ((0, 10), (1, 30)):
    handler.on_epoch_begin(args, state, control)
    put(j)
    state.epoch, state.global_step = float(epoch + 1), 5 * (epoch + 1)
    handler.on_epoch_end(args, state, control)
handler.on_train_end(args, state, control)
print(json.dumps({"log": state.log_history, "report": cb.report}))
"#;
    let v = answer(&python(&env, script).output().unwrap());
    let log = v["log"].as_array().unwrap();
    assert_eq!(log.len(), 2, "{log:?}");
    assert_eq!(log[0]["exa/gpu_j"], 30.0, "epoch 1: 10 J and 20 J");
    assert_eq!(log[1]["exa/gpu_j"], 60.0, "epoch 2: 20 J and 40 J");
    assert_eq!(log[1]["epoch"], 2.0);
    assert_eq!(log[1]["step"], 10);
    assert!(log[1]["exa/co2e_g"].as_f64().unwrap() > 0.0);
    assert_eq!(v["report"]["recorded"]["run_id"], "hf-1");
    let r: Value = env.json(&["report", "--by", "model"]);
    assert_eq!(r["groups"][0]["key"], "hf-model");
    assert_eq!(r["totals"]["runs"], 1);
}

#[test]
fn the_lightning_callback_follows_its_documented_hooks_and_only_rank_zero_records() {
    let env = monitored();
    // Lightning needs PyTorch, which the tests do not install: its `Callback` as documented (every hook a
    // method taking the trainer and the module, doing nothing), and a loop calling the hooks in Lightning's order.
    env.file("stubs/lightning/__init__.py", "");
    env.file(
        "stubs/lightning/pytorch/__init__.py",
        "class Callback:\n    def on_train_start(self, trainer, pl_module): pass\n    def on_train_epoch_start(self, trainer, pl_module): pass\n    def on_train_epoch_end(self, trainer, pl_module): pass\n    def on_train_end(self, trainer, pl_module): pass\n",
    );
    let stubs = env.dir.path().join("stubs");
    let script = r#"
from types import SimpleNamespace
from examlops.integrations import LightningCallback
logged = []
module = SimpleNamespace(log_dict=lambda d: logged.append(d))
def train(rank, epochs):
    cb = LightningCallback("pl-model", run_id="pl-1")
    trainer = SimpleNamespace(global_rank=rank, local_rank=rank, current_epoch=0)
    cb.on_train_start(trainer, module)
    for e in range(epochs):
        trainer.current_epoch = e
        cb.on_train_epoch_start(trainer, module)
        put(10 * (e + 1) + 100 * (2 - rank))
        cb.on_train_epoch_end(trainer, module)
    cb.on_train_end(trainer, module)
    return cb
one = train(1, 1)
zero = train(0, 2)
print(json.dumps({"logged": logged, "one": one.report, "zero": zero.report, "names": [w.name for w in zero.windows]}))
"#;
    let mut c = python(&env, script);
    let path = format!("{}:{}", stubs.display(), Path::new(env!("CARGO_MANIFEST_DIR")).join("python").display());
    c.env("PYTHONPATH", path);
    let v = answer(&c.output().unwrap());
    let logged = v["logged"].as_array().unwrap();
    assert_eq!(logged.len(), 3);
    assert_eq!(logged[0]["exa/gpu_j"], 330.0, "rank 1's epoch: from 0 to 110 J (and twice that)");
    assert_eq!(logged[1]["exa/gpu_j"], 300.0, "rank 0's first epoch: from 110 to 210 J");
    assert_eq!(logged[2]["exa/gpu_j"], 30.0, "rank 0's second epoch: from 210 to 220 J");
    assert_eq!(v["names"], json!(["epoch-0", "epoch-1"]));
    assert!(v["one"]["recorded"].is_null(), "rank 1 records nothing (its measurer, this process's alone, ended with it)");
    assert_eq!(v["zero"]["recorded"]["run_id"], "pl-1");
    let r: Value = env.json(&["report", "--by", "model"]);
    assert_eq!(r["totals"]["runs"], 1);
}

/// The `python` blocks of docs/python.md (`py` blocks are sketches needing a framework).
fn examples() -> Vec<String> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/python.md")).unwrap();
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for line in text.lines() {
        match (block.as_mut(), line) {
            (None, "```python") => block = Some(String::new()),
            (Some(_), "```") => out.extend(block.take()),
            (Some(b), l) => b.push_str(&format!("{l}\n")),
            (None, _) => {}
        }
    }
    out
}

#[test]
fn the_python_guide_runs_as_written_and_documents_every_public_name() {
    let blocks = examples();
    assert!(blocks.len() >= 2, "docs/python.md has its examples");
    for (i, block) in blocks.iter().enumerate() {
        let env = monitored();
        let mut c = env.cmd_for(test_python("the guide's examples need the tests' Python").to_str().unwrap());
        let out = c.arg("-c").arg(block).output().unwrap();
        assert!(out.status.success(), "example {} of docs/python.md fails:\n{block}\n{}", i + 1, stderr(&out));
    }
    // Every public name of the API, and every public method and property of its classes, is in the reference.
    let env = monitored();
    let script = r#"
import examlops, examlops.monitor, examlops.integrations
names = set(examlops.__all__) | set(examlops.monitor.__all__) | set(examlops.integrations.__all__)
for cls in (examlops.Monitor, examlops.Window):
    names |= {n for n in vars(cls) if not n.startswith("_")}
print(json.dumps(sorted(names)))
"#;
    let names = answer(&python(&env, script).output().unwrap());
    let guide = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/python.md")).unwrap();
    let missing: Vec<&str> =
        names.as_array().unwrap().iter().map(|n| n.as_str().unwrap()).filter(|n| !guide.contains(&format!("`{n}"))).collect();
    assert!(missing.is_empty(), "not in docs/python.md's reference: {missing:?}");
}

#[test]
fn a_measurer_that_reads_an_inference_server_counts_each_windows_tokens() {
    let env = monitored();
    let server = crate::http::Server::start(crate::http::Answer::Body(200, "text/plain", crate::work::vllm_advanced(0.0, 0.0, 0.0)));
    let flag = env.dir.path().join("advance");
    let script = r#"
url, flag = sys.argv[1], sys.argv[2]
m = examlops.Monitor(extra=["--tokens-from", url])
with m.window("served") as w:
    put(30)
    open(flag, "w").close()
    while os.path.exists(flag):
        time.sleep(0.01)
with m.window("told") as told:
    put(40)
    told.tokens = 7
print(json.dumps({"tokens": w.tokens, "requests": w.requests, "j_per_token": w.j_per_token, "data": w.data,
                  "told": told.tokens, "told_j_per_token": told.j_per_token}))
m.close()
"#;
    let mut c = python(&env, script);
    c.arg(server.url("/metrics")).arg(&flag).stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = c.spawn().unwrap();
    let start = Instant::now();
    while !flag.exists() {
        assert!(start.elapsed() < Duration::from_secs(60), "the script never reached its window");
        std::thread::sleep(Duration::from_millis(10));
    }
    server.set(crate::http::Answer::Body(200, "text/plain", crate::work::vllm_advanced(900.0, 0.0, 3.0)));
    std::fs::remove_file(&flag).unwrap();
    let v = answer(&child.wait_with_output().unwrap());
    assert_eq!(v["tokens"], 900.0, "{v}");
    assert_eq!(v["requests"], 3.0);
    crate::common::close(v["data"]["j_per_token"].as_f64().unwrap(), 90.0 / 900.0);
    crate::common::close(v["j_per_token"].as_f64().unwrap(), 90.0 / 900.0);
    assert_eq!(v["told"], 7.0, "a count set in the window wins");
    crate::common::close(v["told_j_per_token"].as_f64().unwrap(), 30.0 / 7.0);
}

#[test]
fn a_measurer_whose_socket_was_removed_still_ends_after_its_linger() {
    let env = monitored();
    let path = env.dir.path().join("run/gone.sock");
    let mut child = serving(&env, &path, "1s");
    // A cleaner of temporary files, or the job's own folder removed: the measurer must not wait on the path.
    std::fs::remove_file(&path).unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success());
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "the measurer never ended: it waits on a socket that is gone");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_job_on_several_nodes_records_each_node_as_a_part_under_the_run_id_they_share() {
    let env = monitored();
    let script = r#"
try:
    examlops.Monitor("llama")
    sys.exit("a job on two nodes was let record without a run id")
except ValueError as e:
    said = str(e)
m = examlops.Monitor("llama", run_id="job-2n")
put(20)
r = m.close()
print(json.dumps({"said": said, "nodes": m.nodes, "report": r}))
"#;
    let mut c = python(&env, script);
    c.env("SLURM_JOB_ID", "41").env("SLURM_NNODES", "2").env("SLURM_PROCID", "2").env("SLURM_LOCALID", "0").env("SLURM_NTASKS", "4");
    let v = answer(&c.output().unwrap());
    assert!(v["said"].as_str().unwrap().contains("run_id"), "{v}");
    assert_eq!(v["nodes"], 2);
    assert_eq!(v["report"]["recorded"]["run_id"], "job-2n", "the node's local rank 0 records, though its rank is 2");
    let r: Value = env.json(&["report", "--by", "model"]);
    assert_eq!(r["totals"]["runs"], 1);
}

#[test]
fn ranks_and_the_job_are_read_from_each_launcher_s_variables() {
    let env = monitored();
    let script = r#"
from examlops.monitor import _rank_of, _job_key
cases = {
    "torchrun": {"RANK": "9", "LOCAL_RANK": "1", "WORLD_SIZE": "16", "LOCAL_WORLD_SIZE": "8"},
    "slurm": {"SLURM_PROCID": "5", "SLURM_LOCALID": "1", "SLURM_NTASKS": "8", "SLURM_NNODES": "2", "SLURM_JOB_ID": "7"},
    "pmi": {"PMI_RANK": "1", "PMI_SIZE": "2", "PMI_PORT": "node1:4242"},
    "alone": {},
    # mpirun inside a batch script: its ranks inherit the batch step's Slurm variables, and say their own.
    "mpirun_in_sbatch": {"SLURM_PROCID": "0", "SLURM_LOCALID": "0", "SLURM_NTASKS": "1", "SLURM_JOB_ID": "9",
                         "PMI_RANK": "3", "PMI_SIZE": "8", "MPI_LOCALRANKID": "3"},
}
out = {k: list(_rank_of(v)) + [_job_key(v)] for k, v in cases.items()}
# torchrun's default run id is "none": two jobs on one node differ by their rendezvous.
out["two"] = [_job_key({"TORCHELASTIC_RUN_ID": "none", "MASTER_PORT": p}) for p in ("29500", "29501")]
print(json.dumps(out))
"#;
    let v = answer(&python(&env, script).output().unwrap());
    assert_eq!(v["torchrun"].as_array().unwrap()[..4], [json!(9), json!(1), json!(16), json!(2)]);
    assert_eq!(v["slurm"], json!([5, 1, 8, 2, "slurm-7.x"]));
    assert_eq!(v["pmi"], json!([1, null, 2, 1, "mpi-node1:4242"]), "no local rank said: the rank stands in, so rank 1 never records");
    assert_eq!(v["alone"].as_array().unwrap()[..4], [json!(0), json!(null), json!(1), json!(1)]);
    assert!(v["alone"][4].as_str().unwrap().starts_with("pid-"));
    assert_eq!(v["mpirun_in_sbatch"], json!([3, 3, 8, 1, "slurm-9.x"]), "not every rank the batch step's rank 0");
    assert_ne!(v["two"][0], v["two"][1]);
}
