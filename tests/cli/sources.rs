//! Measuring the job, not the node: NVML through a fake `libnvidia-ml.so.1`
//! built here from C, AMD through a fake `amd-smi`, the job's GPUs from
//! `--gpus` and the scheduler's variables, and other processes on them.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use crate::common::{fails, fake_smi, fixtures, measure, stderr, Env};

const H100: &str = "nvsmi-query-gpu-csv__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.csv";
const H100_MIG: &str = "nvsmi-query-gpu-csv__linux-x86_64__nvidia-h100-mig__590.48.01__load.csv";
const MIG_LIST: &str = "nvsmi-L-h100-mig__590.48.01.txt";
const MI210_STATIC: &str = "amd-smi-static-json-mi210.json";

/// The fake NVML, compiled once per test run with the system's C compiler.
fn fake_nvml() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fake-nvml");
        std::fs::create_dir_all(&dir).unwrap();
        let lib = dir.join("libnvidia-ml.so.1");
        let out = std::process::Command::new("cc")
            .args(["-shared", "-fPIC", "-O2", "-Wall", "-o"])
            .arg(&lib)
            .arg(fixtures().join("fake-nvml.c"))
            .output()
            .expect("cc runs");
        assert!(out.status.success(), "the fake NVML does not build: {}", String::from_utf8_lossy(&out.stderr));
        lib
    })
}

/// The static values of a real capture's first device: name, uuid, util, memory, temperature, limit, clocks.
fn from_capture(capture: &str) -> Vec<String> {
    let text = std::fs::read_to_string(fixtures().join("gpu").join(capture)).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let header: Vec<&str> = lines[0].split(", ").map(|h| h.split(" [").next().unwrap()).collect();
    let row: Vec<&str> = lines[1].split(", ").collect();
    let whole = |k: &str| row[header.iter().position(|h| *h == k).unwrap()].to_string();
    let cell = |k: &str| whole(k).split(' ').next().unwrap().to_string();
    ["utilization.gpu", "memory.used", "memory.total", "temperature.gpu", "power.limit", "clocks.current.sm", "clocks.current.memory"]
        .iter()
        .map(|k| cell(k))
        .chain([whole("name")])
        .collect()
}

/// One device of the fake NVML's readings file.
pub(crate) struct Nv<'a> {
    pub(crate) uuid: &'a str,
    pub(crate) lo_w: Option<f64>,
    pub(crate) hi_w: f64,
    pub(crate) half_ms: u32,
    pub(crate) counter: bool,
    pub(crate) lost_ms: i64,
    pub(crate) pids: &'a str,
    pub(crate) migs: &'a str,
}

impl Default for Nv<'_> {
    fn default() -> Self {
        Nv {
            uuid: "GPU-00000000-0000-0000-0000-000000000000",
            lo_w: Some(300.0),
            hi_w: 300.0,
            half_ms: 0,
            counter: true,
            lost_ms: -1,
            pids: "-",
            migs: "-",
        }
    }
}

/// An environment whose NVML is the fake, reading `devices` with the H100 capture's static values.
pub(crate) fn with_nvml(devices: &[Nv]) -> Env {
    let env = Env::new();
    let s = from_capture(H100);
    let mut text =
        String::from("# index uuid lo_w hi_w half_ms counter lost_ms util mem_used mem_total temp limit sm mem pids migs name\n");
    for (i, d) in devices.iter().enumerate() {
        let lo = d.lo_w.map_or("-".to_string(), |w| w.to_string());
        text.push_str(&format!(
            "{i} {} {lo} {} {} {} {} {} {} {} {} {} {} {} {} {} {}\n",
            d.uuid,
            d.hi_w,
            d.half_ms,
            u8::from(d.counter),
            d.lost_ms,
            s[0],
            s[1],
            s[2],
            s[3],
            s[4],
            s[5],
            s[6],
            d.pids,
            d.migs,
            s[7]
        ));
    }
    let readings = env.file("nvml-readings.txt", &text);
    env.env("EXAMLOPS_NVML_LIBRARY", fake_nvml().to_str().unwrap()).env("FAKE_NVML_READINGS", readings.to_str().unwrap())
}

/// An environment whose PATH has the fake amd-smi and no nvidia-smi.
fn with_amd() -> Env {
    let env = Env::new();
    let bin = env.dir.path().join("amdbin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(fixtures().join("fake-amd-smi"), bin.join("amd-smi")).unwrap();
    let state = env.dir.path().join("amd-state");
    env.env("FAKE_AMD_STATIC", fixtures().join("gpu").join(MI210_STATIC).to_str().unwrap())
        .env("FAKE_AMD_STATE", state.to_str().unwrap())
        .env("PATH", &format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()))
}

fn indices(report: &Value) -> Vec<u64> {
    report["gpu"]["devices"].as_array().unwrap().iter().map(|d| d["index"].as_u64().unwrap()).collect()
}

#[test]
fn exa_gpu_reads_nvml_when_it_loads() {
    let env = fake_smi(with_nvml(&[Nv::default(), Nv { uuid: "GPU-00000001-0000-0000-0000-000000000000", ..Nv::default() }]), H100);
    let v: Value = env.json(&["gpu"]);
    assert_eq!(v["source"], "nvml", "auto takes NVML over nvidia-smi when it loads");
    assert!(v["source_detail"].as_str().unwrap().contains("fake-nvml/libnvidia-ml.so.1"));
    let d = &v["devices"][0];
    assert_eq!(d["name"], "NVIDIA H100 80GB HBM3");
    assert_eq!(d["uuid"], "GPU-00000000-0000-0000-0000-000000000000");
    assert_eq!(d["power_w"], 300.0);
    assert_eq!(d["power_limit_w"], 700.0);
    assert_eq!(d["memory_total_mib"], 81559.0);
    assert_eq!(d.get("fan_pct"), Some(&Value::Null), "NOT_SUPPORTED is null, never 0");
    assert!(d["energy_counter_j"].as_f64().unwrap() > 123_456.0);
    assert_eq!(v["aggregates"]["gpu_count"], 2);
    // Named sources win over auto, from the flag and from the environment.
    let smi: Value = env.json(&["gpu", "--gpu-source", "nvidia-smi"]);
    assert_eq!(smi["source"], "nvidia-smi");
    let by_env: Value = env.clone_with("EXAMLOPS_GPU_SOURCE", "nvidia-smi").json(&["gpu"]);
    assert_eq!(by_env["source"], "nvidia-smi");
}

#[test]
fn nvml_that_cannot_be_used_is_said_never_skipped() {
    let env = Env::new().env("EXAMLOPS_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
    fails(&env.run(&["gpu"]), 1, "/nonexistent/libnvidia-ml.so.1");
    // Asked for by name on a host without it: refused before the command runs.
    let plain = Env::new().env("PATH", "/usr/local/bin:/usr/bin:/bin");
    let out = plain.run(&["finops", "measure", "--gpu-source", "nvml", "--", "sh", "-c", "echo ran"]);
    fails(&out, 1, "GPU source nvml (from --gpu-source)");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("ran"));
    fails(&plain.env("EXAMLOPS_GPU_SOURCE", "cuda").run(&["gpu"]), 2, "EXAMLOPS_GPU_SOURCE");
    fails(&Env::new().run(&["gpu", "--gpu-source", "cuda"]), 2, "cuda");
    // The driver not loaded: NVML's own return code, named.
    let down = with_nvml(&[Nv::default()]).env("FAKE_NVML_INIT", "9");
    fails(&down.run(&["gpu"]), 1, "NVML_ERROR_DRIVER_NOT_LOADED");
}

#[test]
fn the_counter_is_exact_where_the_trapezoid_only_samples() {
    // Power switches between 100 W and 500 W every 10 ms: its mean is 300 W, which readings every
    // 0.25 s only sample, while the counter integrates it. Device 1 has no counter, device 2 no power.
    let wave = |uuid| Nv { uuid, lo_w: Some(100.0), hi_w: 500.0, half_ms: 10, ..Nv::default() };
    let env = with_nvml(&[
        wave("GPU-00000000-0000-0000-0000-000000000000"),
        Nv { counter: false, ..wave("GPU-00000001-0000-0000-0000-000000000000") },
        Nv { lo_w: None, ..wave("GPU-00000002-0000-0000-0000-000000000000") },
    ]);
    let trace = env.dir.path().join("trace.jsonl");
    let (out, r) = measure(&env, &["--interval", "0.25", "--trace", trace.to_str().unwrap()], &["sleep", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(r["gpu"]["source"], "nvml");
    let d = &r["gpu"]["devices"];
    assert_eq!(d[0]["energy_method"], "counter");
    let mean = d[0]["mean_power_w"].as_f64().unwrap();
    assert!((mean - 300.0).abs() < 6.0, "the counter's mean power is the wave's mean: {mean} W");
    let kwh = d[0]["energy_kwh"].as_f64().unwrap();
    let covered = d[0]["covered_s"].as_f64().unwrap();
    assert!((kwh * 3_600_000.0 - mean * covered).abs() < 1e-6 * kwh * 3_600_000.0);
    // Without a counter: the trapezoid over the power readings in the trace, exactly.
    assert_eq!(d[1]["energy_method"], "trapezoid");
    let lines: Vec<Value> = std::fs::read_to_string(&trace).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // The counter (a costly call on a real driver) is read on the first and the last reading only in
    // a run this short; power is read at every one.
    let read: Vec<bool> = lines.iter().map(|l| l["devices"][0]["energy_counter_j"].is_number()).collect();
    assert!(read.len() >= 5, "{read:?}");
    assert!(read[0] && read[read.len() - 1] && read[1..read.len() - 1].iter().all(|r| !r), "{read:?}");
    let points: Vec<(f64, f64)> = lines.iter().map(|l| (l["t"].as_f64().unwrap(), l["devices"][1]["power_w"].as_f64().unwrap())).collect();
    let end = r["duration_s"].as_f64().unwrap();
    let mut joules = 0.0;
    for w in points.windows(2) {
        let t1 = w[1].0.min(end);
        joules += (w[0].1 + w[1].1) / 2.0 * (t1 - w[0].0);
        if w[1].0 >= end {
            break;
        }
    }
    let trap = d[1]["energy_kwh"].as_f64().unwrap() * 3_600_000.0;
    assert!((trap - joules).abs() < 1e-3, "trapezoid {trap} J against {joules} J from the trace");
    // No power reading: no energy, and no method.
    assert_eq!(d[2].get("energy_kwh"), Some(&Value::Null));
    assert_eq!(d[2].get("energy_method"), Some(&Value::Null));
}

#[test]
fn a_device_lost_mid_run_keeps_what_it_measured_and_is_said_once() {
    let env = with_nvml(&[Nv::default(), Nv { uuid: "GPU-00000001-0000-0000-0000-000000000000", lost_ms: 700, ..Nv::default() }]);
    let (out, r) = measure(&env, &["--interval", "0.2"], &["sleep", "1.5"]);
    assert!(out.status.success());
    let lost = &r["gpu"]["devices"][1];
    assert!(lost["missed"].as_u64().unwrap() >= 3, "{lost}");
    assert!(lost["energy_kwh"].as_f64().unwrap() > 0.0, "what it measured before is kept");
    assert_eq!(r["gpu"]["devices"][0]["missed"], 0);
    assert_eq!(stderr(&out).matches("GPU 1 is lost (NVML_ERROR_GPU_IS_LOST)").count(), 1, "{}", stderr(&out));
    assert_eq!(r["gpu"]["status"], "measured");
}

/// A scope case: variables, flags, the devices measured, what decided.
type Case<'a> = (&'a [(&'a str, &'a str)], &'a [&'a str], &'a [u64], &'a str);

#[test]
fn the_jobs_gpus_come_from_the_flag_then_the_variables() {
    let uuid = |i: u32| format!("GPU-{i:08}-0000-0000-0000-000000000000");
    let uuids: Vec<String> = (0..8).map(uuid).collect();
    let env = fake_smi(Env::new(), H100).env("FAKE_SMI_DEVICES", "8");
    let cases: &[Case] = &[
        (&[], &[], &[0, 1, 2, 3, 4, 5, 6, 7], "all"),
        (&[("CUDA_VISIBLE_DEVICES", "1,3")], &[], &[1, 3], "CUDA_VISIBLE_DEVICES"),
        (&[("CUDA_VISIBLE_DEVICES", "1,3")], &["--gpus", &uuids[2]], &[2], "--gpus"),
        (&[("CUDA_VISIBLE_DEVICES", &uuids[5][..12])], &[], &[5], "CUDA_VISIBLE_DEVICES"),
        (&[("NVIDIA_VISIBLE_DEVICES", "4"), ("SLURM_JOB_GPUS", "6")], &[], &[4], "NVIDIA_VISIBLE_DEVICES"),
        (&[("SLURM_JOB_GPUS", "6,7"), ("SLURM_STEP_GPUS", "7")], &[], &[7], "SLURM_STEP_GPUS"),
        (&[("SLURM_JOB_GPUS", "6,7")], &[], &[6, 7], "SLURM_JOB_GPUS"),
        (&[("ROCR_VISIBLE_DEVICES", "0")], &[], &[0], "ROCR_VISIBLE_DEVICES"),
        (&[("HIP_VISIBLE_DEVICES", "2,0")], &[], &[0, 2], "HIP_VISIBLE_DEVICES"),
        (&[("NVIDIA_VISIBLE_DEVICES", "all")], &[], &[0, 1, 2, 3, 4, 5, 6, 7], "NVIDIA_VISIBLE_DEVICES"),
    ];
    for (vars, flags, want, from) in cases {
        let mut e = env.clone_with("EXAMLOPS_GPU_INTERVAL", "0.1");
        for (k, v) in *vars {
            e = e.env(k, v);
        }
        let (out, r) = measure(&e, flags, &["true"]);
        assert!(out.status.success(), "{vars:?}: {}", stderr(&out));
        assert_eq!(indices(&r), *want, "{vars:?} {flags:?}");
        assert_eq!(r["gpu"]["scope"]["from"], *from, "{vars:?} {flags:?}");
        assert_eq!(r["gpu"]["scope"]["measured"].as_array().unwrap().len(), want.len());
    }
    // Indices under CUDA's default order: the report says how they were mapped.
    let (_, r) = measure(&env.clone_with("CUDA_VISIBLE_DEVICES", "1"), &[], &["true"]);
    assert!(r["gpu"]["scope"]["notes"].to_string().contains("CUDA_DEVICE_ORDER=PCI_BUS_ID"), "{}", r["gpu"]["scope"]);
    let (_, r) = measure(&env.clone_with("CUDA_VISIBLE_DEVICES", "1").env("CUDA_DEVICE_ORDER", "PCI_BUS_ID"), &[], &["true"]);
    assert_eq!(r["gpu"]["scope"]["notes"], serde_json::json!([]));
}

#[test]
fn no_gpu_for_the_job_is_said_and_the_command_still_runs() {
    let env = fake_smi(Env::new(), H100);
    for (k, v) in [
        ("CUDA_VISIBLE_DEVICES", ""),
        ("NVIDIA_VISIBLE_DEVICES", "void"),
        ("CUDA_VISIBLE_DEVICES", "none"),
        ("NVIDIA_VISIBLE_DEVICES", "NoDevFiles"),
    ] {
        let (out, r) = measure(&env.clone_with(k, v), &[], &["sh", "-c", "exit 3"]);
        assert_eq!(out.status.code(), Some(3));
        assert_eq!(r["gpu"]["status"], "not measured");
        assert!(r["gpu"]["reason"].as_str().unwrap().contains(&format!("{k} says the job holds no GPU")), "{}", r["gpu"]);
        assert_eq!(r["gpu"]["scope"]["devices"], serde_json::json!([]));
    }
    // A GPU this host does not have: nothing measured, and why.
    let (_, r) = measure(&env.clone_with("CUDA_VISIBLE_DEVICES", "5"), &[], &["true"]);
    assert_eq!(r["gpu"]["status"], "not measured");
    assert!(r["gpu"]["reason"].as_str().unwrap().contains("none of the job's GPUs (CUDA_VISIBLE_DEVICES=5)"), "{}", r["gpu"]);
    // A malformed --gpus is refused before anything runs; a malformed variable is read as CUDA reads it.
    let out = env.run(&["finops", "measure", "--gpus", "0,gpu1", "--", "sh", "-c", "echo ran"]);
    fails(&out, 2, "--gpus: 'gpu1'");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("ran"));
    let (_, r) = measure(&env.clone_with("CUDA_VISIBLE_DEVICES", "0,-1,1"), &[], &["true"]);
    assert_eq!(indices(&r), vec![0]);
    assert!(r["gpu"]["scope"]["notes"][0].as_str().unwrap().contains("read up to '-1'"));
}

#[test]
fn a_mig_instance_is_charged_its_compute_slices_of_its_gpu() {
    let mig = "MIG-00000002-0000-0000-0000-000000000002";
    // Through nvidia-smi: -L maps the instance to its GPU, its profile (1g.10gb) to 1 of an H100's 7 slices.
    let env = fake_smi(Env::new(), H100_MIG).env("FAKE_SMI_LIST", fixtures().join("gpu").join(MIG_LIST).to_str().unwrap());
    let (_, r) = measure(&env.clone_with("CUDA_VISIBLE_DEVICES", mig), &["--interval", "0.1"], &["sleep", "0.3"]);
    assert_eq!(indices(&r), vec![0]);
    let note = r["gpu"]["scope"]["notes"][0].as_str().unwrap();
    assert!(note.contains("MIG instance of GPU 0, 1 of its 7 compute slices"), "{note}");
    let s = &r["gpu"]["devices"][0]["share"];
    let (job, device) = (s["job_kwh"].as_f64().unwrap(), s["device_kwh"].as_f64().unwrap());
    // Whole millijoules of a small energy: within one of the exact seventh.
    assert!(device > 0.0 && (job / device - 1.0 / 7.0).abs() < 1e-4, "{s}");
    // Through NVML: the instance's handle names its parent and its 3 compute slices of the GPU's 7.
    let env = with_nvml(&[
        Nv::default(),
        Nv { uuid: "GPU-00000001-0000-0000-0000-000000000000", migs: "MIG-aaaa-1@4,MIG-bbbb-2@3", ..Nv::default() },
    ]);
    let (out, r) = measure(&env, &["--interval", "0.1", "--gpus", "MIG-bbbb-2"], &["sleep", "0.5"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(indices(&r), vec![1]);
    assert_eq!(r["gpu"]["scope"]["from"], "--gpus");
    let note = r["gpu"]["scope"]["notes"][0].as_str().unwrap();
    assert!(note.contains("MIG instance of GPU 1, 3 of its 7 compute slices"), "{note}");
    let d = &r["gpu"]["devices"][0];
    let s = &d["share"];
    assert_eq!((s["weight"].as_str(), s["idle_policy"].as_str()), (Some("allocation"), Some("by-allocation")), "{s}");
    let (job, device, others) = (s["job_kwh"].as_f64().unwrap(), s["device_kwh"].as_f64().unwrap(), s["others_kwh"].as_f64().unwrap());
    assert_eq!(s["device_kwh"], d["energy_kwh"]);
    assert!(device > 0.0 && (job / device - 3.0 / 7.0).abs() < 1e-4, "{job} of {device} kWh");
    assert!((job + others - device).abs() <= 1e-9, "{job} + {others} against {device}");
    // The run counts the instance's share, and the GPU-hours it held: 3/7 of the GPU's.
    assert_eq!(r["gpu"]["energy_kwh"], s["job_kwh"], "{}", r["gpu"]);
    let held = r["gpu"]["device_hours"].as_f64().unwrap();
    let covered = d["covered_s"].as_f64().unwrap() / 3600.0;
    assert!((held - covered * 3.0 / 7.0).abs() < 1e-9, "{held} device-hours held of {covered}");
}

#[test]
fn other_processes_on_a_measured_gpu_are_counted() {
    // NVML lists exa itself (the measuring process) and pid 1 on GPU 0, nobody on GPU 1.
    let env =
        with_nvml(&[Nv { pids: "self,1", ..Nv::default() }, Nv { uuid: "GPU-00000001-0000-0000-0000-000000000000", ..Nv::default() }]);
    let (out, r) = measure(&env, &["--interval", "0.1"], &["true"]);
    let d = &r["gpu"]["devices"];
    assert_eq!((d[0]["shared_with"].as_u64(), d[1]["shared_with"].as_u64()), (Some(1), Some(0)), "{d}");
    // The table says it in words.
    let report = env.dir.path().join("report.txt");
    let table = env.run(&["finops", "measure", "--interval", "0.1", "--report", report.to_str().unwrap(), "--", "true"]);
    assert!(table.status.success(), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&report).unwrap().contains("GPU 0 was shared with 1 other process"));
    // Through nvidia-smi's --query-compute-apps.
    let env = fake_smi(Env::new(), H100).env("FAKE_SMI_APPS", "0:1");
    let (_, r) = measure(&env, &["--interval", "0.1"], &["true"]);
    assert_eq!(r["gpu"]["devices"][0]["shared_with"], 1);
    // nvidia-smi says nothing of each process's activity: the device is charged whole, and the share is null.
    assert!(r["gpu"]["devices"][0].get("share") == Some(&Value::Null), "{}", r["gpu"]["devices"][0]);
}

#[test]
fn amd_smi_readings_and_its_energy_accumulator() {
    let env = with_amd().env("FAKE_AMD_POWER", "133");
    let v: Value = env.json(&["gpu"]);
    assert_eq!(v["source"], "amd-smi", "auto falls to amd-smi without NVML or nvidia-smi");
    let d = &v["devices"][0];
    assert_eq!(d["name"], "AMD Instinct MI210");
    assert_eq!((d["power_w"].as_f64(), d["power_limit_w"].as_f64()), (Some(133.0), Some(300.0)));
    assert_eq!((d["temperature_c"].as_f64(), d["memory_total_mib"].as_f64()), (Some(53.0), Some(32752.0)));
    assert!(d["energy_counter_j"].as_f64().unwrap() > 78_098_902.0);
    let trace = env.dir.path().join("amd.jsonl");
    let (out, r) = measure(&env, &["--interval", "0.3", "--trace", trace.to_str().unwrap()], &["sleep", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(r["gpu"]["source"], "amd-smi");
    let dev = &r["gpu"]["devices"][0];
    assert_eq!(dev["energy_method"], "counter");
    // The energy is the accumulator's own increase over the run, as the trace shows it: exact, however long
    // each call of the fake took (a loaded machine moves when the counter is read, not what it says).
    let counters: Vec<f64> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["ok"] == true)
        .filter_map(|v| v["devices"][0]["energy_counter_j"].as_f64())
        .collect();
    let joules = dev["energy_kwh"].as_f64().unwrap() * 3.6e6;
    let increase = counters.last().unwrap() - counters[0];
    assert!((joules - increase).abs() <= 1e-3 * increase.max(1.0), "{joules} J against the counter's {increase} J");
    // And the fake's 133 W comes through, within what the timing of a Python program's answer allows.
    let mean = dev["mean_power_w"].as_f64().unwrap();
    assert!((mean - 133.0).abs() < 133.0 * 0.25, "{mean}");
    assert_eq!(dev["shared_with"], 0);
    // The older bare-list shape, and a device without an accumulator.
    let old = env.clone_with("FAKE_AMD_SHAPE", "list").env("FAKE_AMD_ENERGY", "0");
    let (_, r) = measure(&old, &["--interval", "0.3"], &["sleep", "0.7"]);
    assert_eq!(r["gpu"]["devices"][0]["energy_method"], "trapezoid");
    assert!((r["gpu"]["devices"][0]["mean_power_w"].as_f64().unwrap() - 133.0).abs() < 1e-9);
    // Named in the config.
    let cfg = with_amd();
    cfg.config("gpu:\n  source: nvidia-smi\n");
    fails(&cfg.run(&["gpu"]), 1, "GPU source nvidia-smi (from config");
}

#[test]
fn an_exa_with_capabilities_loads_no_library_its_user_names() {
    // `setcap cap_perfmon+ep exa` (for RAPL through perf), run by an ordinary user: a library that user
    // names (the environment's NVML, say) would run with CAP_PERFMON. It is not loaded, and that is said.
    let is_root = std::process::Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !is_root {
        eprintln!("skipped: setcap and running as another user need root");
        return;
    }
    let env = with_nvml(&[Nv::default()]);
    let d = env.dir.path();
    let exa = d.join("exa");
    std::fs::copy(env!("CARGO_BIN_EXE_exa"), &exa).unwrap();
    let caps = std::process::Command::new("setcap").args(["cap_perfmon+ep"]).arg(&exa).output().unwrap();
    assert!(caps.status.success(), "setcap: {}", String::from_utf8_lossy(&caps.stderr));
    std::process::Command::new("chmod").args(["-R", "a+rwX"]).arg(d).status().unwrap();
    let as_nobody = |args: &[&str]| {
        let mut c = env.cmd_for("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(&exa).args(args);
        c.output().unwrap()
    };
    let out = as_nobody(&["-o", "json", "gpu", "--gpu-source", "nvml"]);
    let said = stderr(&out);
    assert!(said.contains("exa runs with file capabilities: the NVML library") && said.contains("is not loaded"), "{said}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("GPU-00000000"),
        "the fake NVML was loaded: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(out.status.code(), Some(1), "no system NVML here: {said}");
    // The same binary without capabilities, as the same user, loads it: the difference is the capability.
    let plain = d.join("exa-plain");
    std::fs::copy(env!("CARGO_BIN_EXE_exa"), &plain).unwrap();
    std::process::Command::new("chmod").args(["a+rx"]).arg(&plain).status().unwrap();
    let mut c = env.cmd_for("setpriv");
    let out = c
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&plain)
        .args(["-o", "json", "gpu", "--gpu-source", "nvml"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("GPU-00000000"), "{}", stderr(&out));
}

/// The fake NVML's processes: `index pid sm_pct mem_pct w_per_sm_pct start_ms end_ms` per line.
pub(crate) fn with_processes(env: Env, lines: &str) -> Env {
    let file = env.file("nvml-processes.txt", lines);
    env.env("FAKE_NVML_PROCESSES", file.to_str().unwrap())
}

/// A device's share block, its parts checked to add up to the device's energy.
fn share_of(r: &Value) -> &Value {
    let d = &r["gpu"]["devices"][0];
    let s = &d["share"];
    let part = |k: &str| s[k].as_f64().unwrap_or_else(|| panic!("no {k} in {s}"));
    assert_eq!(s["device_kwh"], d["energy_kwh"], "{d}");
    let device = part("device_kwh");
    let sum = part("job_kwh") + part("others_kwh") + part("idle_kwh");
    assert!((sum - device).abs() <= 1e-9 * device, "parts {sum} kWh against the device's {device} kWh: {s}");
    // The run counts the job's share of the device, not the device.
    assert_eq!(r["gpu"]["energy_kwh"], s["job_kwh"], "{}", r["gpu"]);
    s
}

/// Two processes compute on one GPU the whole run: this job at 60 % SM drawing 2.0 W a percent, another at 40 %
/// drawing 2.4 W a percent, over 100 W idle. The job's true part, its idle shared by activity as the default
/// policy shares it, is 2.0 x 60 + 100 x 0.6 = 180 W of the device's 316 W; a split by SM activity says 60 %, 5.3 %
/// over. The parts add up to the device's counter, and the run counts the job's part.
#[test]
fn a_shared_gpu_is_split_by_activity_within_ten_percent_of_the_truth() {
    let env = with_processes(
        with_nvml(&[Nv { lo_w: Some(100.0), hi_w: 100.0, ..Nv::default() }]),
        "0 self 60 30 2.0 0 -1\n0 4242 40 50 2.4 0 -1\n",
    );
    let (out, r) = measure(&env, &["--interval", "0.1"], &["sleep", "1.5"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let s = share_of(&r);
    assert_eq!((s["idle_policy"].as_str(), s["weight"].as_str(), s["co_tenants"].as_u64()), (Some("by-activity"), Some("sm"), Some(1)));
    let job = s["job_kwh"].as_f64().unwrap() / s["device_kwh"].as_f64().unwrap();
    let truth = 180.0 / 316.0;
    let error = (job - truth).abs() / truth;
    assert!(error <= 0.10, "the job's part {job:.4} of the device against the truth {truth:.4}: {:.1} % off", error * 100.0);
    // The device never idled: its idle power is unknown and inside the shares, said as null.
    assert!(s.get("idle_w") == Some(&Value::Null), "{s}");
    // Weighed by memory activity instead (30 % against 50 %), the job's part would be 37.5 %: that difference is
    // the stated uncertainty of the weight.
    let u = s["uncertainty"].as_f64().unwrap();
    assert!((u - (0.6 - 0.375) / 0.6).abs() < 0.02, "{u}");
    // It widens the run's CO2e band beyond the provider's own, and the estimate says so.
    let carbon = &r["carbon"];
    let (v, hi) = (carbon["outputs"]["co2e_g"].as_f64().unwrap(), carbon["range"]["co2e_g"][1].as_f64().unwrap());
    let provider_u = carbon["provider"]["uncertainty"].as_f64().unwrap();
    assert!((hi - v) / v > provider_u + 0.05, "band {hi} over {v} against the provider's {provider_u}: {carbon}");
    assert!(carbon["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("shared GPUs' split")), "{}", carbon["notes"]);
    // The table says it in words.
    let report = env.dir.path().join("shared.txt");
    let table = env.run(&["finops", "measure", "--interval", "0.1", "--report", report.to_str().unwrap(), "--", "sleep", "0.5"]);
    assert!(table.status.success(), "{}", stderr(&table));
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(text.contains("GPU 0 was shared with 1 other process: this job's share is"), "{text}");
}

/// The co-tenants start once the device has idled at 100 W for three readings (the command makes the fake's go
/// file when the trace holds them): the device's idle power is read there, and with `--idle-share none` no
/// process pays for it. Both draw alike per percent, so the busy energy above idle splits 60 : 40 exactly; the
/// idle energy is kept apart and said.
#[test]
fn idle_energy_goes_where_the_policy_says() {
    let env = with_processes(
        with_nvml(&[Nv { lo_w: Some(100.0), hi_w: 100.0, ..Nv::default() }]),
        "0 self 60 60 2.0 go -1\n0 4242 40 40 2.0 go -1\n",
    );
    let (go, trace) = (env.dir.path().join("go"), env.dir.path().join("trace.jsonl"));
    let env = env.env("FAKE_NVML_GO", go.to_str().unwrap());
    // Idle for three readings, then busy for ten more.
    let script = format!(
        "until [ \"$(wc -l < {t} 2>/dev/null || echo 0)\" -ge 3 ]; do sleep 0.02; done; touch {g}; \
         until [ \"$(wc -l < {t})\" -ge 13 ]; do sleep 0.02; done",
        t = trace.display(),
        g = go.display()
    );
    let run = |policy: &str| {
        let _ = std::fs::remove_file(&go);
        let (out, r) =
            measure(&env, &["--interval", "0.1", "--idle-share", policy, "--trace", trace.to_str().unwrap()], &["sh", "-c", &script]);
        assert!(out.status.success(), "{}", stderr(&out));
        r
    };
    let r = run("none");
    let s = share_of(&r);
    assert_eq!(s["idle_policy"], "none");
    let idle_w = s["idle_w"].as_f64().unwrap_or_else(|| panic!("no idle power read: {s}"));
    assert!((idle_w - 100.0).abs() < 1.0, "idle power {idle_w} W against the fake's 100 W");
    let (job, others, idle) = (s["job_kwh"].as_f64().unwrap(), s["others_kwh"].as_f64().unwrap(), s["idle_kwh"].as_f64().unwrap());
    assert!((job / others - 1.5).abs() < 0.01, "{job} against {others}");
    assert!(idle > 0.0 && s["idle_kwh"] == s["idle_seen_kwh"], "{s}");
    // The same run shared by activity charges the idle too: nothing is left idle, and the job pays 60 % of it.
    let r = run("by-activity");
    let s = share_of(&r);
    assert_eq!(s["idle_kwh"].as_f64(), Some(0.0));
    let (device, seen) = (s["device_kwh"].as_f64().unwrap(), s["idle_seen_kwh"].as_f64().unwrap());
    let job = s["job_kwh"].as_f64().unwrap();
    assert!((job - 0.6 * device).abs() <= 0.01 * device && seen > 0.0, "{s}");
    // A policy exa does not know is malformed input.
    fails(&env.run(&["finops", "measure", "--idle-share", "half", "--", "true"]), 2, "--idle-share");
}

/// Watching a node with no command and no `--pid`, no process is known as the job's; and with a command whose
/// processes were never seen busy (a container's PID namespace hides the host's PIDs NVML gives), whose work is
/// whose is not known either: a shared device is then charged whole (and said), never split down to nothing.
#[test]
fn a_shared_gpu_is_charged_whole_where_the_jobs_processes_are_not_known() {
    let env = with_processes(with_nvml(&[Nv { lo_w: Some(100.0), hi_w: 100.0, ..Nv::default() }]), "0 4242 40 50 2.4 0 -1\n");
    for (args, cmd) in [(&["--interval", "0.1", "--duration", "1s"][..], &[][..]), (&["--interval", "0.1"][..], &["sleep", "1"][..])] {
        let (out, r) = measure(&env, args, cmd);
        assert!(out.status.success(), "{}", stderr(&out));
        let d = &r["gpu"]["devices"][0];
        assert_eq!(d["shared_with"], 1, "{d}");
        assert!(d.get("share") == Some(&Value::Null), "{d}");
        assert_eq!(r["gpu"]["energy_kwh"], d["energy_kwh"]);
    }
}

/// The value of the one sample of `text` whose line starts with `name{` and holds every one of `labels`.
pub(crate) fn sample(text: &str, name: &str, labels: &[&str]) -> Option<f64> {
    let line = text.lines().find(|l| l.starts_with(&format!("{name}{{")) && labels.iter().all(|x| l.contains(x)))?;
    line.rsplit(' ').next()?.parse().ok()
}

/// One GPU drawing 100 W idle plus its `processes`' load (the fake NVML's lines), each pid's control group as
/// `cgroups` says under a fake host root (`EXAMLOPS_HOST_ROOT`); a pid without one is no process exa can read.
fn shared_gpu(processes: &str, cgroups: &[(u32, &str)]) -> Env {
    let env = with_processes(with_nvml(&[Nv { lo_w: Some(100.0), hi_w: 100.0, ..Nv::default() }]), processes);
    let host = env.dir.path().join("host");
    for (pid, cgroup) in cgroups {
        std::fs::create_dir_all(host.join(format!("proc/{pid}"))).unwrap();
        std::fs::write(host.join(format!("proc/{pid}/cgroup")), cgroup).unwrap();
    }
    env.env("EXAMLOPS_HOST_ROOT", host.to_str().unwrap())
}

/// `gpu serve` on a GPU three processes share: one of Slurm job 77's, one of a pod's, one exa cannot place (no
/// `/proc/<pid>/cgroup` under the host root). The device's energy is split among the three groups by SM activity,
/// the parts adding up to the device's energy (it never idles: no idle part); the job's and the pod's parts keep
/// their 60 : 40; and nothing is exported per process.
#[test]
fn the_exporter_splits_a_shared_gpu_among_the_jobs_pods_and_containers_on_it() {
    let env = shared_gpu(
        "0 4242 60 30 2.0 0 -1\n0 4343 40 20 2.0 0 -1\n0 5555 20 10 2.0 0 -1\n",
        &[
            (4242, "0::/system.slice/slurmstepd.scope/job_77/step_0/user/task_0\n"),
            (4343, "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod6f1c2a8e_3b7d_4c1e_9a2f_0d5e6b7c8a91.slice/cri-containerd-0123456789abcdef.scope\n"),
        ],
    );
    let mut serve =
        crate::telemetry::Running::start(&env, &["gpu", "serve", "--listen", "127.0.0.1:0", "--interval", "0.1", "--cpu-source", "none"]);
    let addr = serve.address();
    let name = "gen_ai_gpu_energy_attributed_kWh_total";
    let (job, pod, unknown) = (
        r#"group_kind="slurm-job",group_id="77""#,
        r#"group_kind="pod",group_id="6f1c2a8e-3b7d-4c1e-9a2f-0d5e6b7c8a91""#,
        r#"group_kind="unknown""#,
    );
    // A few intervals split: each part well above a millijoule's rounding.
    let mut text = String::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while sample(&text, name, &[job]).is_none_or(|k| k < 1e-5) {
        assert!(std::time::Instant::now() < deadline, "no job series in 30 s: {text}");
        std::thread::sleep(std::time::Duration::from_millis(100));
        text = crate::prometheus::http_get(&addr, "/metrics");
    }
    let part = |labels: &str| sample(&text, name, &[r#"gpu_id="0""#, labels]).unwrap_or_else(|| panic!("no {labels} series: {text}"));
    let (j, p, u, idle) = (part(job), part(pod), part(unknown), part(r#"group_kind="idle""#));
    let device = sample(&text, "gen_ai_energy_consumed_kWh_total", &[r#"component="gpu""#, r#"gpu_id="0""#]).unwrap();
    // The parts add up to the device's energy (a millijoule per interval at most, of rounding).
    assert!(((j + p + u + idle) - device).abs() < 1e-6, "parts {j} + {p} + {u} + {idle} kWh against the device's {device}: {text}");
    assert_eq!(idle, 0.0, "the device never idled: {text}");
    assert!((j / p - 1.5).abs() < 0.01, "the job's part over the pod's: {} (60 : 40)", j / p);
    assert!((j / u - 3.0).abs() < 0.01, "the job's part over the unplaced process's: {} (60 : 20)", j / u);
    assert!(!text.contains("\"4242\"") && !text.contains("\"5555\"") && !text.contains("pid"), "no series names a process: {text}");
    drop(serve);
}

/// The prolog measures a job it did not start (`--slurm-job`): the job's processes on a shared GPU are those in
/// the job's control group, so the GPU is split rather than charged whole.
#[test]
fn a_slurm_jobs_processes_are_known_by_its_control_group_and_its_share_split() {
    let env = shared_gpu(
        "0 4242 60 30 2.0 0 -1\n0 4343 40 20 2.0 0 -1\n",
        &[
            (4242, "0::/system.slice/slurmstepd.scope/job_77/step_0/user/task_0\n"),
            (4343, "0::/system.slice/slurmstepd.scope/job_78/step_0/user/task_0\n"),
        ],
    )
    .env("EXAMLOPS_CPU_SOURCE", "none");
    let db = env.dir.path().join("ledger.sqlite3");
    let args = ["--interval", "0.1", "--duration", "1s", "--slurm-job", "77", "--record", "M", "--db", db.to_str().unwrap()];
    let (out, r) = measure(&env, &args, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let s = share_of(&r);
    assert_eq!(s["co_tenants"].as_u64(), Some(1), "{s}");
    let (job, device) = (s["job_kwh"].as_f64().unwrap(), s["device_kwh"].as_f64().unwrap());
    // Never idle: the whole device split 60 : 40 by SM activity.
    assert!((job / device - 0.6).abs() < 0.01, "job 77's part {job} of {device} kWh");
    // The record prices the job's part, and a report sums what was recorded: the share, not the device.
    assert_eq!(r["carbon"]["inputs"]["gpu_kwh"], s["job_kwh"], "{}", r["carbon"]["inputs"]);
    let report: Value = env.json(&["report", "--db", db.to_str().unwrap()]);
    assert!(report["totals"]["kwh"].as_f64().is_some_and(|k| k > 0.0), "{}", report["totals"]);
    assert_eq!(report["totals"]["kwh"], r["carbon"]["outputs"]["kwh"], "{}", report["totals"]);
    // Without the job named, nobody on the GPU is known as the job's: charged whole, said.
    let (_, whole) = measure(&env, &["--interval", "0.1", "--duration", "1s"], &[]);
    assert!(whole["gpu"]["devices"][0]["share"].is_null(), "{}", whole["gpu"]["devices"][0]);
    fails(&env.run(&["finops", "measure", "--slurm-job", "7;rm", "--duration", "1s"]), 2, "not a Slurm job id");
}
