//! The harness: the real `exa` binary with a private home, config, data and
//! cache directory per test, and none of the caller's exa settings.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde::de::DeserializeOwned;
use serde_json::Value;
use std::process::Command;
use tempfile::TempDir;

use super::contract;

pub struct Env {
    pub dir: TempDir,
    vars: Vec<(String, String)>,
    path_prefix: Vec<PathBuf>,
}

/// Variables of the caller's that would change what exa does: prices, colour, and a job's GPUs.
const CLEARED: &[&str] = &[
    "GPU_COST_PER_HOUR",
    "CPU_COST_PER_HOUR",
    "NO_COLOR",
    "CUDA_VISIBLE_DEVICES",
    "NVIDIA_VISIBLE_DEVICES",
    "SLURM_STEP_GPUS",
    "SLURM_JOB_GPUS",
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    // A launcher's ranks on this node, which make measure share the node's CPU energy.
    "SLURM_NTASKS_PER_NODE",
    "OMPI_COMM_WORLD_LOCAL_SIZE",
    "MPI_LOCALNRANKS",
    // A PostgreSQL ledger's password, which a shell that ran psql may have set.
    "PGPASSWORD",
    "PGPASSFILE",
];

#[allow(dead_code)]
impl Env {
    pub fn new() -> Env {
        Env { dir: tempfile::tempdir().expect("tempdir"), vars: Vec::new(), path_prefix: Vec::new() }
    }

    /// The directory exa treats as its config directory (`~/.config/examlops`).
    pub fn config_dir(&self) -> PathBuf {
        self.dir.path().join("config").join("examlops")
    }

    pub fn config_file(&self) -> PathBuf {
        self.config_dir().join("finops.yaml")
    }

    /// Writes `finops.yaml` in the default location.
    pub fn config(&self, yaml: &str) -> &Self {
        std::fs::create_dir_all(self.config_dir()).unwrap();
        std::fs::write(self.config_file(), yaml).unwrap();
        self
    }

    /// Writes a file below the private directory and returns its path.
    pub fn file(&self, rel: &str, contents: &str) -> PathBuf {
        let p = self.dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, contents).unwrap();
        p
    }

    /// Writes an executable file below the private directory.
    pub fn program(&self, rel: &str, contents: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = self.file(rel, contents);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    /// A fresh private environment with this one's variables and PATH, and `k=v` too.
    pub fn clone_with(&self, k: &str, v: &str) -> Env {
        let mut vars = self.vars.clone();
        vars.push((k.into(), v.into()));
        Env { dir: tempfile::tempdir().expect("tempdir"), vars, path_prefix: self.path_prefix.clone() }
    }

    pub fn env(mut self, k: &str, v: &str) -> Self {
        self.vars.push((k.into(), v.into()));
        self
    }

    /// Puts `dir` first on PATH.
    pub fn path_first(mut self, dir: &Path) -> Self {
        self.path_prefix.push(dir.to_path_buf());
        self
    }

    pub fn cmd(&self) -> Command {
        self.cmd_for(env!("CARGO_BIN_EXE_exa"))
    }

    /// Another program, in the same private environment.
    pub fn cmd_for(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        for (k, _) in std::env::vars() {
            if k.starts_with("EXAMLOPS_") || CLEARED.contains(&k.as_str()) {
                c.env_remove(&k);
            }
        }
        let home = self.dir.path();
        c.env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CACHE_HOME", home.join("cache"))
            .current_dir(home);
        let mut path = self.path_prefix.clone();
        path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
        c.env("PATH", std::env::join_paths(path).unwrap());
        // No CPU counters of the machine running the tests: a test that wants some gives its own tree.
        c.env("EXAMLOPS_HOST_ROOT", home.join("no-host"));
        for (k, v) in &self.vars {
            c.env(k, v);
        }
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().expect("exa runs")
    }

    /// Runs with `-o json`, asserts exit 0, checks stdout against the JSON contract (`contract::check`), and
    /// decodes it.
    #[track_caller]
    pub fn json<T: DeserializeOwned>(&self, args: &[&str]) -> T {
        let mut all = vec!["-o", "json"];
        all.extend_from_slice(args);
        let out = self.run(&all);
        assert!(out.status.success(), "exa {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
        contract::check(&all, &out.stdout);
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("exa {args:?}: bad JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts the exit code, and for failures that stdout is empty and stderr says `needle`.
#[track_caller]
pub fn fails(o: &Output, code: i32, needle: &str) {
    assert_eq!(o.status.code(), Some(code), "stdout: {}\nstderr: {}", stdout(o), stderr(o));
    assert!(stdout(o).is_empty(), "nothing on stdout when failing, got: {}", stdout(o));
    assert!(stderr(o).contains(needle), "stderr should mention {needle:?}: {}", stderr(o));
}

#[track_caller]
pub fn close(got: f64, want: f64) {
    assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0), "{got} != {want}");
}

/// `env` with the fake nvidia-smi replaying a real H100 capture first on PATH, counting its readings in
/// `<dir>/smi-state` (`until_calls`).
#[allow(dead_code)]
pub fn with_h100(env: Env) -> Env {
    let bin = env.dir.path().join("fakebin");
    std::fs::create_dir_all(&bin).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    std::os::unix::fs::symlink(fixtures.join("fake-nvidia-smi"), bin.join("nvidia-smi")).unwrap();
    let capture = fixtures.join("gpu/nvsmi-query-gpu-csv__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.csv");
    let state = env.dir.path().join("smi-state");
    env.env("FAKE_SMI_CAPTURE", capture.to_str().unwrap()).env("FAKE_SMI_STATE", state.to_str().unwrap()).path_first(&bin)
}

/// The tests' Python (`cargo xtask test` makes it with the MCP SDK, MLflow and opentelemetry-proto);
/// `what` says which tests need it, for the message when it is missing.
pub fn test_python(what: &str) -> PathBuf {
    let p = std::env::var_os("EXA_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/test-python/bin/python"));
    assert!(p.exists(), "{what}: run `cargo xtask test`, which installs it ({} is missing)", p.display());
    p
}

/// The test fixtures: fake tools and real captures.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A job (a `sh -c` script) that ends once `fake_smi`'s nvidia-smi has been called `n` times, however slow the
/// machine (or after a minute): a run that must hold so many readings asks for them, never for a wall-clock time
/// that may hold fewer. The counter is read while the fake may be writing it: an empty read counts as 0.
pub fn until_calls(env: &Env, n: usize) -> String {
    let counter = env.dir.path().join("smi-state/calls");
    format!(
        "i=0; until c=$(cat {} 2>/dev/null); [ \"${{c:-0}}\" -ge {n} ] 2>/dev/null || [ $i -ge 1200 ]; do sleep 0.05; i=$((i+1)); done",
        counter.display()
    )
}

/// `env` with the fake nvidia-smi first on PATH, replaying the capture `capture` of tests/fixtures/gpu,
/// and counting its readings in `<dir>/smi-state`.
pub fn fake_smi(env: Env, capture: &str) -> Env {
    let bin = env.dir.path().join("smibin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(fixtures().join("fake-nvidia-smi"), bin.join("nvidia-smi")).unwrap();
    let state = env.dir.path().join("smi-state");
    env.env("FAKE_SMI_CAPTURE", fixtures().join("gpu").join(capture).to_str().unwrap())
        .env("FAKE_SMI_STATE", state.to_str().unwrap())
        .path_first(&bin)
}

/// Runs `exa -o json finops measure --report FILE [args] [-- cmd...]`; the output and the report, checked
/// against the JSON contract.
#[track_caller]
pub fn measure(env: &Env, args: &[&str], cmd: &[&str]) -> (Output, serde_json::Value) {
    let report = env.dir.path().join("report.json");
    let _ = std::fs::remove_file(&report);
    let mut all = vec!["-o", "json", "finops", "measure", "--report", report.to_str().unwrap()];
    all.extend_from_slice(args);
    if !cmd.is_empty() {
        all.push("--");
        all.extend_from_slice(cmd);
    }
    let out = env.run(&all);
    let text = std::fs::read_to_string(&report).unwrap_or_else(|e| panic!("no report ({e}); stderr: {}", stderr(&out)));
    (out, checked(&all, text.as_bytes()))
}

/// What exa run with `args` (its whole argv, `-o json` among them) printed on stdout, checked against the
/// JSON contract (`contract::check_output`: its answer when it succeeded, else the error body) and decoded
/// into `T` (a `Value`, or a struct of `contract`).
#[track_caller]
pub fn answer<T: DeserializeOwned>(args: &[&str], out: &Output) -> T {
    contract::check_output(args, out);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("exa {args:?}: bad JSON ({e}): {}\n{}", stdout(out), stderr(out)))
}

/// What exa run with `args` printed as JSON lines (`report --format focus -o json`), checked line by line
/// against the JSON contract and decoded.
#[track_caller]
pub fn answer_lines<T: DeserializeOwned>(args: &[&str], out: &Output) -> Vec<T> {
    contract::check_output(args, out);
    stdout(out).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("exa {args:?}: a line is not JSON ({e}): {l}"))).collect()
}

/// A `finops measure --report` file (written by a run the test did not start itself, or spawned), checked
/// against the JSON contract and decoded.
#[track_caller]
pub fn report_file(path: &Path) -> Value {
    let json = std::fs::read(path).unwrap_or_else(|e| panic!("no report {} ({e})", path.display()));
    checked(&["finops", "measure"], &json)
}

/// The answer of exa run with `args`, wherever it was written: a measurement's report (the `--report` file,
/// stdout, or stderr after a command), or an answer a script kept; checked against the JSON contract
/// (`contract::check`) and decoded.
#[track_caller]
pub fn checked<T: DeserializeOwned>(args: &[&str], json: &[u8]) -> T {
    contract::check(args, json);
    serde_json::from_slice(json).unwrap_or_else(|e| panic!("exa {args:?}: bad report ({e}): {}", String::from_utf8_lossy(json)))
}
