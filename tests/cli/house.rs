//! The shape the code keeps: settings alone read the environment, and every
//! GPU command honours the same settings.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{fails, Env};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn only_settings_reads_the_environment() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let settings = src.join("settings");
    let mut readers = Vec::new();
    for f in &files {
        if f.starts_with(&settings) {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if ["env::var(", "env::var_os(", "env::vars(", "env::vars_os("].iter().any(|c| code.contains(c)) {
                readers.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(readers.is_empty(), "only src/settings/ reads the environment:\n{}", readers.join("\n"));
    let settings_text: String =
        std::fs::read_dir(&settings).unwrap().map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap()).collect();
    for var in ["EXAMLOPS_NVIDIA_SMI_TIMEOUT", "EXAMLOPS_GPU_INTERVAL", "EXAMLOPS_POWER_COST_PER_KWH", "EXAMLOPS_GRID_INTENSITY_URL"] {
        assert!(settings_text.contains(&format!("\"{var}\"")), "{var} is resolved in settings");
    }
}

#[test]
fn exa_gpu_honours_the_same_nvidia_smi_timeout_as_measure() {
    let env = Env::new();
    let bin = env.dir.path().join("fakebin");
    std::fs::create_dir_all(&bin).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    std::os::unix::fs::symlink(fixtures.join("fake-nvidia-smi"), bin.join("nvidia-smi")).unwrap();
    let capture = fixtures.join("gpu/nvsmi-query-gpu-csv__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.csv");
    let env = env
        .env("FAKE_SMI_CAPTURE", capture.to_str().unwrap())
        .env("FAKE_SMI_MODE", "hang")
        .env("EXAMLOPS_NVIDIA_SMI_TIMEOUT", "1")
        .path_first(&bin);
    let started = Instant::now();
    let out = env.run(&["gpu"]);
    fails(&out, 1, "nvidia-smi gave no answer within 1 s");
    assert!(started.elapsed() < Duration::from_secs(6), "the 1 s deadline held, not the 10 s default: {:?}", started.elapsed());
    let out = env.cmd().env("EXAMLOPS_NVIDIA_SMI_TIMEOUT", "1e20").arg("gpu").output().unwrap();
    fails(&out, 2, "EXAMLOPS_NVIDIA_SMI_TIMEOUT");
}
