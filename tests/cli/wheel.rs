//! `pip install examlops`: the wheel maturin builds from this tree, installed into a fresh virtual
//! environment, puts this exa on PATH, and its Python API measures a block through it.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::{fake_smi, test_python, Env};

/// The wheel maturin builds from this tree as a release does (linked by zig against glibc 2.28, so that it installs
/// on RHEL/Rocky 8 and Ubuntu 20.04), its tag checked by auditwheel, installed offline into a fresh virtual
/// environment in `d`; that environment's folder.
fn installed(python: &Path, d: &Path) -> std::path::PathBuf {
    // The dev profile: the wheel's exa is built once, in a folder of its own (its target is named).
    let wheels = d.join("wheels");
    let bin = python.parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())));
    let out = Command::new(python)
        .args(["-m", "maturin", "build", "--profile", "dev", "--zig", "--compatibility", "manylinux_2_28", "--out"])
        .arg(&wheels)
        .env("PATH", path.unwrap())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success(), "maturin: {}", String::from_utf8_lossy(&out.stderr));
    let wheel = std::fs::read_dir(&wheels).unwrap().flatten().map(|e| e.path()).find(|p| p.extension().is_some_and(|x| x == "whl"));
    let wheel = wheel.expect("a wheel");
    let name = format!("examlops-{}-py3-none-manylinux_2_28_x86_64.whl", env!("CARGO_PKG_VERSION"));
    assert_eq!(wheel.file_name().unwrap().to_string_lossy(), name);
    // auditwheel reads the binary's symbols: nothing newer than glibc 2.28, and no library a base system lacks.
    let show = Command::new(python).args(["-m", "auditwheel", "show"]).arg(&wheel).output().unwrap();
    let said = String::from_utf8_lossy(&show.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(show.status.success(), "auditwheel: {}", String::from_utf8_lossy(&show.stderr));
    assert!(said.contains(r#"is consistent with the following platform tag: "manylinux_2_28_x86_64""#), "{said}");
    // A fresh virtual environment, the wheel installed offline: nothing else comes with it.
    let venv = d.join("venv");
    assert!(Command::new(python).args(["-m", "venv"]).arg(&venv).status().unwrap().success());
    let pip = Command::new(venv.join("bin/python"))
        .args(["-m", "pip", "install", "-q", "--no-index", "--disable-pip-version-check"])
        .arg(&wheel)
        .output()
        .unwrap();
    assert!(pip.status.success(), "pip: {}", String::from_utf8_lossy(&pip.stderr));
    venv
}

#[test]
fn pip_installs_exa_and_a_python_api_that_measures_and_records_through_it() {
    let python = test_python("the wheel's test needs maturin");
    let env = fake_smi(Env::new(), crate::telemetry::H100).env("FAKE_SMI_DEVICES", "2");
    let venv = installed(&python, env.dir.path());
    let exa = venv.join("bin/exa");
    let version = Command::new(&exa).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&version.stdout).trim(), format!("exa {}", env!("CARGO_PKG_VERSION")));
    // The API: a block measured with the context manager, a function with the decorator, each recorded.
    let script = r#"
import json, time
import examlops
with examlops.measure("JPCP", run_id="py-block", interval=0.2) as run:
    time.sleep(1)
@examlops.measured("JPCP", run_id="py-fn", interval=0.2)
def train():
    time.sleep(0.5)
    return "trained"
said = train()
try:
    with examlops.measure("JPCP", interval=0.2, extra=["--region", "NOWHERE"]):
        pass
    refused = None
except examlops.ExaError as e:
    refused = [str(e), e.status]
# The block's own exception comes out as it was, measured all the same.
try:
    with examlops.measure("JPCP", run_id="py-raised", interval=0.2):
        raise ValueError("the block's own")
except ValueError as e:
    raised = str(e)
# Windows from the node's measurer, through the exa the wheel installed; the callbacks ship with it.
import examlops.integrations
with examlops.Monitor(interval=0.2) as m:
    with m.window("w") as w:
        time.sleep(0.6)
print(json.dumps({"report": run.report, "said": said, "refused": refused, "raised": raised, "exa": examlops.exa_path(),
                  "window": w.data, "callbacks": examlops.integrations.__all__}))
"#;
    let run_dir = env.dir.path().join("run");
    std::fs::create_dir_all(&run_dir).unwrap();
    std::fs::set_permissions(&run_dir, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let mut python = env.cmd_for(venv.join("bin/python").to_str().unwrap());
    let out = python.env("XDG_RUNTIME_DIR", &run_dir).args(["-c", script]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["exa"], exa.to_str().unwrap(), "the API runs the exa the wheel installed");
    let r = &got["report"];
    // The API's report is exa's `finops measure --report` file, as Python read it.
    crate::contract::check(&["finops", "measure"], r.to_string().as_bytes());
    assert!(r["gpu"]["energy_kwh"].as_f64().is_some_and(|k| k > 0.0), "{r}");
    assert_eq!(r["gpu"]["devices"].as_array().unwrap().len(), 2);
    assert_eq!(r["interrupted"], "SIGINT", "the block's end is the run's end");
    assert_eq!(r["recorded"]["run_id"], "py-block");
    assert_eq!(got["said"], "trained", "the decorated function's own answer");
    // exa's refusal comes back as ExaError with exa's words and status.
    assert_eq!(got["refused"][1], 2, "{}", got["refused"]);
    assert!(got["refused"][0].as_str().unwrap().contains("NOWHERE"), "{}", got["refused"]);
    assert_eq!(got["raised"], "the block's own");
    let w = &got["window"];
    assert_eq!(w["gpu_j"].as_object().unwrap().len(), 2, "{w}");
    assert!(w["gpu_total_j"].as_f64().unwrap() > 0.0 && w["duration_s"].as_f64().unwrap() >= 0.6, "{w}");
    assert_eq!(got["callbacks"], serde_json::json!(["HuggingFaceCallback", "LightningCallback"]));
    // A process killed inside the block (out of memory, say): its measurement is still ended and recorded.
    let killed = r#"
import os, signal, time
import examlops
with examlops.measure("JPCP", run_id="py-killed", interval=0.2):
    time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGKILL)
"#;
    let out = env.cmd_for(venv.join("bin/python").to_str().unwrap()).args(["-c", killed]).output().unwrap();
    assert!(!out.status.success(), "it was killed");
    let runs = || -> Vec<String> {
        let report: Value = env.json(&["report", "--by", "run"]);
        report["groups"].as_array().unwrap().iter().map(|g| g["key"].as_str().unwrap().to_string()).collect()
    };
    let started = std::time::Instant::now();
    while !runs().iter().any(|r| r == "py-killed") {
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "the killed block's run was never recorded: {:?}", runs());
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    // Every run is in the ledger, as a measured run.
    let report: Value = env.json(&["report", "--by", "run"]);
    assert_eq!(runs(), ["py-block", "py-fn", "py-killed", "py-raised"], "{report}");
    assert_eq!(report["totals"]["runs_measured"], 4);
    assert!(Path::new(&exa).is_file());
}
