//! What a newcomer meets first: figures without float noise, times as ISO
//! text, a config init that makes the directories the README names, and
//! answers that say how to go on.

use serde_json::Value;

use crate::common::{fails, stderr, stdout, Env};

/// Every number in `v`, with its path.
fn numbers(v: &Value, path: &str, out: &mut Vec<(String, f64)>) {
    match v {
        Value::Number(n) => out.push((path.to_string(), n.as_f64().unwrap())),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| numbers(x, &format!("{path}[{i}]"), out)),
        Value::Object(o) => o.iter().for_each(|(k, x)| numbers(x, &format!("{path}.{k}"), out)),
        _ => {}
    }
}

/// Significant digits of the shortest text that reads back as `x`.
fn significant(x: f64) -> usize {
    let s = format!("{:e}", x.abs());
    s.split('e').next().unwrap().chars().filter(char::is_ascii_digit).count()
}

#[track_caller]
fn no_noise(v: &Value) {
    let mut all = Vec::new();
    numbers(v, "", &mut all);
    let noisy: Vec<String> = all.iter().filter(|(_, x)| significant(*x) > 15).map(|(p, x)| format!("{p} = {x}")).collect();
    assert!(noisy.is_empty(), "float noise: {noisy:?}");
}

#[test]
fn figures_carry_no_float_noise() {
    let env = Env::new();
    let bin = env.dir.path().join("fakebin");
    std::fs::create_dir_all(&bin).unwrap();
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    std::os::unix::fs::symlink(fixtures.join("fake-nvidia-smi"), bin.join("nvidia-smi")).unwrap();
    let capture = fixtures.join("gpu/nvsmi-query-gpu-csv__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.csv");
    let env = env.env("FAKE_SMI_CAPTURE", capture.to_str().unwrap()).env("FAKE_SMI_POWER", "300").path_first(&bin);
    let out = env.run(&["-o", "json", "finops", "measure", "--interval", "0.1", "--power-cost-per-kwh", "0.3", "--", "sleep", "0.4"]);
    let r: Value = serde_json::from_slice(&out.stderr).unwrap();
    no_noise(&r);
    for _ in 0..3 {
        env.json::<Value>(&["finops", "carbon", "record", "M", "--gpu-hours", "0.1", "--cpu-hours", "0.7"]);
    }
    no_noise(&env.json(&["report"]));
    no_noise(&env.json(&["gpu"]));
}
