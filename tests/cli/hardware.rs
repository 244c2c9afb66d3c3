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

/// Green Algorithms' method as its R port (greenAlgoR 0.1, `ga_footprint`) documents its first example: 2 h on
/// 4 cores at 15 W a core with 16 GB of memory, PUE 1.67, the world's 475 gCO2e/kWh -> 104.6455 gCO2e. As exa's
/// inputs: 8 CPU-hours, 4 GB each CPU.
#[test]
fn green_algorithms_published_example_is_reproduced() {
    let env = Env::new();
    let e =
        estimate(&env, &["--cpu-hours", "8", "--provider", "hardware-aware", "--set", "cpu_tdp_watts=15", "--set", "memory_gb_per_cpu=4"]);
    close(&e["outputs"]["kwh"], 0.220_306_4);
    assert!((e["outputs"]["co2e_g"].as_f64().unwrap() - 104.6455).abs() < 5e-5, "{}", e["outputs"]);
    assert_eq!(e["coefficients"]["memory_watts_per_gb"]["value"], 0.3725);
    // Memory is left out unless given: the same work without it.
    close(&estimate(&env, &["--cpu-hours", "8", "--provider", "hardware-aware", "--set", "cpu_tdp_watts=15"])["outputs"]["kwh"], 0.200_4);
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
    fails(
        &env.run(&["finops", "carbon", "estimate", "--cpu-hours", "1", "--cpu-model", "EPYC 7763", "--cpu-cores", "0.01"]),
        2,
        "from 1 to 4096",
    );
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

/// A config's hardware that exa cannot price is refused before anything is read, naming the key.
fn config_faults_are_refused(env: &Env, file: &str) {
    // Memory a CPU that no node could have is refused, naming the partition.
    env.config("finops:\n  hardware:\n    partitions:\n      cpu: {memory_gb_per_cpu: -1}\n");
    fails(
        &env.run(&["import", "slurm", "--file", file, "--cluster", "c1", "--dry-run", "--carbon-provider", "hardware-aware"]),
        2,
        "finops.hardware.partitions.cpu: memory_gb_per_cpu",
    );
    // A model in the config that exa does not know is refused, naming the key.
    env.config("finops:\n  hardware:\n    partitions:\n      gpu: {cpu_model: EPYC 7764, cpu_cores: 64}\n");
    fails(&env.run(&["import", "slurm", "--file", file, "--cluster", "c1", "--dry-run"]), 2, "finops.hardware.partitions.gpu.cpu_model");
}

/// `import slurm` with hardware-aware: each job priced by its own GPU type (Slurm's gres type, through the config's
/// map where the names differ) and its partition's CPU model; a type exa does not know is said and priced at the
/// provider's default; the default provider prices the same jobs as it always did.
#[test]
fn import_slurm_prices_each_job_by_its_gpu_type_and_partition() {
    let env = Env::new();
    env.config(
        "finops:\n  hardware:\n    gres: {a100: A100 SXM 80GB, h100: H100 SXM}\n    partitions:\n      gpu: {cpu_model: EPYC 7763, cpu_cores: 64}\n      cpu: {cpu_model: Xeon Platinum 8380, cpu_cores: 40, memory_gb_per_cpu: 4}\n",
    );
    let head = "JobID|JobIDRaw|JobName|User|Account|Partition|State|Start|End|ElapsedRaw|CPUTimeRAW|AllocTRES\n";
    let job = |id: u32, part: &str, cores: u32, tres: &str| {
        format!(
            "{id}|{id}|j{id}|ann|ml|{part}|COMPLETED|2026-11-01T00:00:00|2026-11-01T01:00:00|3600|{}|cpu={cores},{tres}\n",
            cores * 3600
        )
    };
    let text = [
        head.to_string(),
        job(1, "gpu", 64, "gres/gpu=4,gres/gpu:h100=4"),
        job(2, "gpu", 16, "gres/gpu=2,gres/gpu:l4=2"),
        job(3, "gpu", 32, "gres/gpu=8,gres/gpu:a100=8"),
        job(4, "gpu", 32, "gres/gpu=8,gres/gpu:mi300x=8"),
        job(5, "cpu", 128, "node=1"),
        job(6, "gpu", 8, "gres/gpu=1,gres/gpu:tpu9=1"),
    ]
    .concat();
    let file = env.file("sacct.txt", &text);
    let import = |provider: &str| -> Vec<f64> {
        let r: Value =
            env.json(&["import", "slurm", "--file", file.to_str().unwrap(), "--cluster", "c1", "--dry-run", "--carbon-provider", provider]);
        r["jobs"].as_array().unwrap().iter().map(|j| j["co2e_g"].as_f64().unwrap()).collect()
    };
    // Green Algorithms' defaults: PUE 1.67, 475 gCO2e/kWh; a core of the EPYC 7763 280/64 W, of the 8380 270/40 W.
    let g = |gpus: f64, watts: f64, cores: f64, core_w: f64| (gpus * watts + cores * core_w) / 1000.0 * 1.67 * 475.0;
    let epyc = 280.0 / 64.0;
    let want = [
        g(4.0, 700.0, 64.0, epyc),
        g(2.0, 72.0, 16.0, epyc),
        g(8.0, 400.0, 32.0, epyc),
        g(8.0, 750.0, 32.0, epyc),
        // The cpu partition's nodes give each CPU 4 GB, at Green Algorithms' 0.3725 W a GB.
        g(0.0, 0.0, 128.0, 270.0 / 40.0 + 4.0 * 0.3725),
        // tpu9 is in no table: the provider's 400 W.
        g(1.0, 400.0, 8.0, epyc),
    ];
    let dry: Value = env.json(&[
        "import",
        "slurm",
        "--file",
        file.to_str().unwrap(),
        "--cluster",
        "c1",
        "--dry-run",
        "--carbon-provider",
        "hardware-aware",
    ]);
    assert!(
        dry["notes"].to_string().contains("does not have, priced at the hardware-aware provider's default: 'tpu9'"),
        "{}",
        dry["notes"]
    );
    for (got, want) in import("hardware-aware").iter().zip(want) {
        assert!((got - want).abs() < 1e-6 * want, "{got} against {want}");
    }
    // Written, each hardware's jobs in a frame of their own: the ledger says what the dry run said.
    let done: Value =
        env.json(&["import", "slurm", "--file", file.to_str().unwrap(), "--cluster", "c1", "--carbon-provider", "hardware-aware"]);
    assert_eq!(done["imported"].as_u64(), Some(6), "{done}");
    let total: Value = env.json(&["report"]);
    let sum: f64 = want.iter().sum();
    assert!((total["totals"]["co2e_g"].as_f64().unwrap() - sum).abs() < 1e-6 * sum, "{total}");
    // The spec's default provider: 400 W a GPU, 120 W a CPU-hour, PUE 1.5, 300 g/kWh, whatever the hardware.
    let spec = [(4.0, 64.0), (2.0, 16.0), (8.0, 32.0), (8.0, 32.0), (0.0, 128.0), (1.0, 8.0)];
    for (got, (gpus, cores)) in import("green-ai-default").iter().zip(spec) {
        let want = (gpus * 400.0 + cores * 120.0) / 1000.0 * 1.5 * 300.0;
        assert!((got - want).abs() < 1e-6 * want, "{got} against {want}");
    }
    config_faults_are_refused(&env, file.to_str().unwrap());
}

/// `measure` with hardware-aware and no CPU energy read prices the node's CPU by the model `/proc/cpuinfo` names,
/// over its cores a socket; a CPU it does not know is said, and the provider's 12 W a core stands.
#[test]
fn measure_prices_the_nodes_cpu_by_the_model_it_names() {
    let (env, root) = crate::cpu::host(Env::new(), "intel-xeon-2s", "0");
    let burn = ["sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done"];
    let args = ["--cpu-source", "none", "--carbon-provider", "hardware-aware"];
    let info = |name: &str| {
        format!("processor\t: 0\nmodel name\t: {name}\nsiblings\t: 128\ncpu cores\t: 64\nflags\t\t: fpu sse2\n\nprocessor\t: 1\nmodel name\t: {name}\n")
    };
    std::fs::write(root.join("proc/cpuinfo"), info("AMD EPYC 7763 64-Core Processor")).unwrap();
    let (out, r) = crate::common::measure(&env, &args, &burn);
    assert_eq!(out.status.code(), Some(0), "{}", crate::common::stderr(&out));
    let carbon = &r["carbon"];
    // CPU-hours count logical CPUs: the socket's 280 W over its 128 threads.
    assert_eq!(carbon["coefficients"]["cpu_tdp_watts"], serde_json::json!({"value": 2.1875, "source": "hardware"}), "{carbon}");
    // A virtual machine's CPUs are not its socket's: said, and the provider's figure stands.
    std::fs::write(root.join("proc/cpuinfo"), info("AMD EPYC 7763 64-Core Processor").replace("fpu sse2", "fpu sse2 hypervisor")).unwrap();
    let (_, r) = crate::common::measure(&env, &args, &burn);
    assert_eq!(r["carbon"]["coefficients"]["cpu_tdp_watts"]["value"], 12.0);
    assert!(r["carbon"]["notes"].to_string().contains("virtual machine"), "{}", r["carbon"]["notes"]);
    std::fs::write(root.join("proc/cpuinfo"), info("Imaginary CPU 9000")).unwrap();
    let (_, r) = crate::common::measure(&env, &args, &burn);
    assert_eq!(r["carbon"]["coefficients"]["cpu_tdp_watts"]["value"], 12.0);
    assert!(r["carbon"]["notes"].to_string().contains("not in exa's hardware table"), "{}", r["carbon"]["notes"]);
}
