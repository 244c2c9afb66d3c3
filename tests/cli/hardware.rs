//! Estimates that know the hardware: `--provider hardware-aware` with `--gpu-model` and `--cpu-model`, each priced
//! by its own row of exa's tables; the spec's default provider untouched.

use serde_json::Value;

use crate::common::{fails, Env};

fn estimate(env: &Env, args: &[&str]) -> Value {
    env.json(&[&["finops", "carbon", "estimate"], args].concat())
}

fn close(got: &Value, want: f64) {
    let g = got.as_f64().unwrap_or_else(|| panic!("not a number: {got}"));
    assert!((g - want).abs() <= 1e-9 * want.max(1.0), "{g}, not {want}");
}

/// By hand, Green Algorithms' method with its defaults (usage factor 1, PUE 1.67, 475 gCO2e/kWh): energy =
/// hours x watts / 1000 x PUE, carbon = energy x intensity; a GPU at its model's board power, a core at its model's
/// TDP over its cores.
#[test]
fn each_model_is_priced_by_its_own_row() {
    let env = Env::new();
    let hw = ["--provider", "hardware-aware"];
    for (model, watts) in [("H100-SXM", 700.0), ("NVIDIA L4", 72.0), ("AMD Instinct MI300X", 750.0), ("A100-PCIE-40GB", 250.0)] {
        let e = estimate(&env, &[&["--gpu-hours", "10", "--gpu-model", model], &hw[..]].concat());
        let kwh = 10.0 * watts / 1000.0 * 1.67;
        close(&e["outputs"]["kwh"], kwh);
        close(&e["outputs"]["co2e_g"], kwh * 475.0);
        assert_eq!(e["coefficients"]["gpu_tdp_watts"]["source"], "hardware", "{model}");
    }
    // EPYC 7763: 280 W over 64 cores, 4.375 W a core; Xeon Platinum 8380: 270 W over 40.
    for (model, cores, tdp) in
        [("AMD EPYC 7763 64-Core Processor", "64", 280.0), ("Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz", "40", 270.0)]
    {
        let e = estimate(&env, &[&["--cpu-hours", "32", "--cpu-model", model, "--cpu-cores", cores], &hw[..]].concat());
        let kwh = 32.0 * tdp / cores.parse::<f64>().unwrap() / 1000.0 * 1.67;
        close(&e["outputs"]["kwh"], kwh);
        close(&e["coefficients"]["cpu_tdp_watts"]["value"], tdp / cores.parse::<f64>().unwrap());
    }
    // No model named: Green Algorithms' 12 W a core and the provider's 400 W a GPU.
    close(&estimate(&env, &["--cpu-hours", "32", "--provider", "hardware-aware"])["outputs"]["kwh"], 32.0 * 12.0 / 1000.0 * 1.67);
}

/// The spec's default provider keeps its numbers whatever model is named, and says it does not use it.
#[test]
fn the_default_provider_keeps_the_specs_numbers() {
    let env = Env::new();
    let e = estimate(&env, &["--cpu-hours", "32", "--cpu-model", "EPYC 7763", "--cpu-cores", "64"]);
    close(&e["outputs"]["kwh"], 5.76);
    close(&e["outputs"]["co2e_g"], 1728.0);
    assert!(e["notes"].to_string().contains("does not price by hardware model"), "{}", e["notes"]);
    let e = estimate(&env, &["--gpu-hours", "10", "--gpu-model", "H100-SXM"]);
    close(&e["outputs"]["kwh"], 6.0);
    assert_eq!(e["coefficients"]["gpu_tdp_watts"]["source"], "default");
}

/// A model not in the table is refused naming the nearest, or a family's forms; a CPU model without its cores is
/// refused; a measured energy wins over the table.
#[test]
fn unknown_models_are_refused_with_the_nearest_and_measurement_wins() {
    let env = Env::new();
    let hw = ["finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", "hardware-aware", "--gpu-model"];
    fails(&env.run(&[&hw[..], &["H100-SMX"]].concat()), 2, "did you mean 'H100 SXM'");
    fails(&env.run(&[&hw[..], &["h100"]].concat()), 2, "one of 'H100 SXM', 'H100 PCIe', 'H100 NVL'");
    fails(&env.run(&["finops", "carbon", "estimate", "--cpu-hours", "1", "--cpu-model", "EPYC 7763"]), 2, "--cpu-cores");
    let e = estimate(&env, &["--gpu-hours", "10", "--gpu-kwh", "5", "--gpu-model", "H100-SXM", "--provider", "hardware-aware"]);
    close(&e["outputs"]["kwh"], 5.0 * 1.67);
    assert_eq!(
        (e["coefficients"]["gpu_tdp_watts"]["source"].as_str(), e["coefficients"]["gpu_usage_factor"]["value"].as_f64()),
        (Some("measured"), Some(1.0))
    );
    fails(
        &env.run(&[
            "finops",
            "carbon",
            "estimate",
            "--gpu-hours",
            "10",
            "--gpu-kwh",
            "5",
            "--provider",
            "hardware-aware",
            "--set",
            "gpu_usage_factor=0.5",
        ]),
        2,
        "gpu_usage_factor is set on the command line",
    );
}

/// The tables are listed with their sources, by a query compared as models are.
#[test]
fn the_tables_are_listed_with_their_sources() {
    let env = Env::new();
    let h: Value = env.json(&["finops", "carbon", "hardware", "h100"]);
    let names: Vec<&str> = h["gpus"].as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["H100 SXM", "H100 PCIe", "H100 NVL"]);
    assert!(h["gpus"].as_array().unwrap().iter().all(|g| g["source"].as_str().unwrap().contains("NVIDIA H100")), "{h}");
    let all: Value = env.json(&["finops", "carbon", "hardware"]);
    assert!(all["gpus"].as_array().unwrap().len() >= 25 && all["cpus"].as_array().unwrap().is_empty(), "{all}");
    assert!(all["cpu_models"].as_u64().unwrap() > 4_800);
    let cpu: Value = env.json(&["finops", "carbon", "hardware", "EPYC 7763"]);
    assert_eq!(cpu["cpus"][0]["tdp_w"], 280.0);
    let out = env.run(&["finops", "carbon", "hardware", "--sources"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("MIT"), "the CPU table's licence is shown");
    let providers: Value = env.json(&["finops", "carbon", "providers"]);
    assert!(providers.to_string().contains("hardware-aware"), "{providers}");
}
