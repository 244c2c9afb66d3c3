//! `exa finops carbon|cost estimate`: the spec's numbers, resolution, sources, refusals.

use crate::common::{close, fails, stderr, stdout, Env};
use crate::contract::{ErrorBody, Estimate};

fn carbon(env: &Env, args: &[&str]) -> Estimate {
    let mut all = vec!["finops", "carbon", "estimate"];
    all.extend_from_slice(args);
    env.json(&all)
}

fn cost(env: &Env, args: &[&str]) -> Estimate {
    let mut all = vec!["finops", "cost", "estimate"];
    all.extend_from_slice(args);
    env.json(&all)
}

#[test]
fn spec_cpu_only_default() {
    let e = carbon(&Env::new(), &["--cpu-hours", "32"]);
    assert_eq!(e.domain, "carbon");
    assert_eq!(e.provider.name, "green-ai-default");
    assert_eq!(e.provider.kind, "builtin");
    assert!(e.provider.methodology.contains("PUE"), "{}", e.provider.methodology);
    assert_eq!(e.provider_source, "default");
    assert_eq!((e.inputs["gpu_hours"], e.inputs["cpu_hours"]), (0.0, 32.0));
    assert_eq!(e.outputs["kwh"], 5.76);
    assert_eq!(e.outputs["co2e_g"], 1728.0);
    let r = e.range.unwrap();
    close(r["kwh"][0], 4.032);
    close(r["kwh"][1], 7.488);
    close(r["co2e_g"][0], 1209.6);
}

#[test]
fn table_headline_reads_like_the_spec() {
    let out = Env::new().run(&["finops", "carbon", "estimate", "--cpu-hours", "32"]);
    assert!(out.status.success());
    let s = stdout(&out);
    assert!(s.contains("5.760 kWh · 1728 gCO2e"), "{s}");
    assert!(!s.contains('\x1b'), "no colour when stdout is not a terminal");
}

#[test]
fn worked_number_for_every_builtin() {
    let env = Env::new();
    let e = carbon(&env, &["--gpu-hours", "12"]);
    close(e.outputs["kwh"], 7.2);
    close(e.outputs["co2e_g"], 2160.0);

    let e = carbon(&env, &["--gpu-hours", "12", "--provider", "ccf-like", "--pue", "1.3"]);
    close(e.outputs["kwh"], 6.24);
    close(e.outputs["co2e_g"], 1872.0);
    assert_eq!(e.provider.uncertainty, Some(0.3));

    let e = carbon(&env, &["--gpu-hours", "12", "--provider", "codecarbon-like"]);
    close(e.outputs["kwh"], 12.0 * (400.0 + 120.0 + 32.0 * 0.3725) / 1000.0 * 1.5);
    close(e.outputs["kwh"], 9.57456);
    close(e.outputs["co2e_g"], 2872.368);
    assert_eq!(e.provider.uncertainty, Some(0.25));

    // With no endpoint, grid-live is the static methodology, and says so with its band (±30%, not the live ±20%).
    let e = carbon(&env, &["--gpu-hours", "12", "--provider", "grid-live"]);
    close(e.outputs["co2e_g"], 2160.0);
    assert_eq!(e.provider.uncertainty, Some(0.3));
    assert_eq!(e.coefficients["grid_intensity_g_per_kwh"].source, "default");
    assert!(e.notes.iter().any(|n| n.contains("static grid intensity")), "{:?}", e.notes);

    let e = cost(&env, &["--gpu-hours", "12", "--cpu-hours", "32"]);
    assert_eq!(e.provider.name, "flat-rate");
    close(e.outputs["cost_usd"], 12.0 * 2.5 + 32.0 * 0.05);

    let e = cost(&env, &["--gpu-hours", "150", "--provider", "tiered-example"]);
    close(e.outputs["cost_usd"], 100.0 * 2.5 + 50.0 * 2.5 * 0.8);
    let e = cost(&env, &["--gpu-hours", "80", "--provider", "tiered-example"]);
    close(e.outputs["cost_usd"], 200.0);
}

#[test]
fn cpu_hours_zero_changes_nothing_for_gpu_sites() {
    let env = Env::new();
    let a = carbon(&env, &["--gpu-hours", "12", "--provider", "ccf-like"]);
    let b = carbon(&env, &["--gpu-hours", "12", "--cpu-hours", "0", "--provider", "ccf-like"]);
    assert_eq!(a.outputs, b.outputs);
    let a = carbon(&env, &["--gpu-hours", "12"]);
    let b = carbon(&env, &["--gpu-hours", "12", "--cpu-hours", "0"]);
    assert_eq!(a.outputs, b.outputs);
}

#[test]
fn providers_without_a_cpu_term_refuse_cpu_hours() {
    let env = Env::new();
    for p in ["ccf-like", "codecarbon-like"] {
        let out = env.run(&["finops", "carbon", "estimate", "--cpu-hours", "32", "--provider", p]);
        fails(&out, 1, "no CPU-hours term");
        assert!(stderr(&out).contains("--provider green-ai-default"), "names a provider that can: {}", stderr(&out));
        let out = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--cpu-hours", "32", "--provider", p]);
        fails(&out, 1, "no CPU-hours term");
    }
}

#[test]
fn neither_gpu_nor_cpu_hours_is_refused() {
    let env = Env::new();
    fails(&env.run(&["finops", "carbon", "estimate"]), 2, "nothing to estimate");
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-hours", "0", "--cpu-hours", "0"]), 2, "nothing to estimate");
    fails(&env.run(&["finops", "cost", "estimate"]), 2, "nothing to estimate");
}

#[test]
fn resolution_order_flag_env_config_default() {
    let env = Env::new();
    env.config("finops:\n  carbon:\n    provider: ccf-like\n");
    let e = carbon(&env, &["--gpu-hours", "1"]);
    assert_eq!((e.provider.name.as_str(), e.provider_source.as_str()), ("ccf-like", "config"));

    let env = env.env("EXAMLOPS_CARBON_PROVIDER", "codecarbon-like");
    let e = carbon(&env, &["--gpu-hours", "1"]);
    assert_eq!((e.provider.name.as_str(), e.provider_source.as_str()), ("codecarbon-like", "env"));

    let e = carbon(&env, &["--gpu-hours", "1", "--provider", "green-ai-default"]);
    assert_eq!((e.provider.name.as_str(), e.provider_source.as_str()), ("green-ai-default", "flag"));
    assert_eq!(e.requested_provider.as_deref(), Some("green-ai-default"));

    let e = carbon(&Env::new(), &["--gpu-hours", "1"]);
    assert_eq!((e.provider.name.as_str(), e.provider_source.as_str()), ("green-ai-default", "default"));
    assert_eq!(e.requested_provider, None);

    let env = Env::new().env("EXAMLOPS_COST_PROVIDER", "tiered-example");
    let e = cost(&env, &["--gpu-hours", "1"]);
    assert_eq!((e.provider.name.as_str(), e.provider_source.as_str()), ("tiered-example", "env"));
}

#[test]
fn every_coefficient_says_where_it_came_from() {
    let env = Env::new().env("GPU_COST_PER_HOUR", "3.10");
    env.config("finops:\n  carbon:\n    coefficients:\n      gpu_tdp_watts: 700\n      pue: 1.3\n  cost:\n    coefficients:\n      cpu_rate: 0.07\n");
    let e = carbon(&env, &["--gpu-hours", "12", "--pue", "1.1"]);
    assert_eq!(e.coefficients["gpu_tdp_watts"].value, 700.0);
    assert_eq!(e.coefficients["gpu_tdp_watts"].source, "config");
    assert_eq!(e.coefficients["pue"].value, 1.1);
    assert_eq!(e.coefficients["pue"].source, "flag");
    assert_eq!(e.coefficients["grid_intensity_g_per_kwh"].source, "default");
    close(e.outputs["kwh"], 12.0 * 0.7 * 1.1);

    let e = cost(&env, &["--gpu-hours", "10", "--cpu-hours", "10"]);
    assert_eq!((e.coefficients["gpu_rate"].value, e.coefficients["gpu_rate"].source.as_str()), (3.1, "env"));
    assert_eq!((e.coefficients["cpu_rate"].value, e.coefficients["cpu_rate"].source.as_str()), (0.07, "config"));
    close(e.outputs["cost_usd"], 31.0 + 0.7);

    let e = cost(&env, &["--gpu-hours", "10", "--gpu-rate", "2", "--set", "cpu_rate=0.01", "--cpu-hours", "100"]);
    assert_eq!(e.coefficients["gpu_rate"].source, "flag");
    assert_eq!(e.coefficients["cpu_rate"].source, "flag");
    close(e.outputs["cost_usd"], 21.0);
}

#[test]
fn set_reaches_any_coefficient() {
    let e =
        carbon(&Env::new(), &["--gpu-hours", "1", "--provider", "codecarbon-like", "--set", "ram_gb=64", "--set", "ram_watts_per_gb=0.5"]);
    close(e.outputs["kwh"], (400.0 + 120.0 + 32.0) / 1000.0 * 1.5);
    assert_eq!(e.coefficients["ram_gb"].source, "flag");
}

#[test]
fn unknown_set_name_names_the_nearest() {
    let env = Env::new();
    let out = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--set", "pu=1.2"]);
    fails(&out, 2, "did you mean 'pue'");
    let out = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", "ccf-like", "--gpu-tdp", "700"]);
    fails(&out, 2, "has no coefficient 'gpu_tdp_watts'");
    let out = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--pue", "1.2", "--set", "pue=1.3"]);
    fails(&out, 2, "set twice");
}

#[test]
fn bad_numbers_are_usage_errors() {
    let env = Env::new();
    for (flag, v, why) in [
        ("--gpu-hours", "-1", "negative"),
        ("--gpu-hours", "NaN", "not a finite number"),
        ("--cpu-hours", "inf", "not a finite number"),
        ("--gpu-hours", "twelve", "not a number"),
        ("--pue", "-1.3", "negative"),
        ("--grid-intensity", "nan", "not a finite number"),
    ] {
        let mut args = vec!["finops", "carbon", "estimate", flag, v];
        if !flag.ends_with("-hours") {
            args.extend(["--gpu-hours", "1"]);
        }
        let out = env.run(&args);
        fails(&out, 2, why);
        assert!(stderr(&out).contains(flag), "names the flag: {}", stderr(&out));
    }
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--set", "pue=-2"]), 2, "negative");
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--set", "pue"]), 2, "NAME=VALUE");
    fails(&env.run(&["finops", "cost", "estimate", "--gpu-hours", "1", "--gpu-rate", "1e400"]), 2, "finite");
}

#[test]
fn bad_environment_values_are_config_errors() {
    let env = Env::new().env("GPU_COST_PER_HOUR", "cheap");
    fails(&env.run(&["finops", "cost", "estimate", "--gpu-hours", "1"]), 2, "GPU_COST_PER_HOUR");
    let env = Env::new().env("EXAMLOPS_STRICT", "maybe");
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1"]), 2, "EXAMLOPS_STRICT");
}

#[test]
fn every_yes_or_no_variable_reads_the_same_words() {
    // "on" is yes wherever exa reads a yes or a no; a word that is neither is refused, naming its variable.
    let env = Env::new().env("EXAMLOPS_STRICT", "on");
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-hours", "12", "--provider", "nope"]), 1, "no carbon provider named 'nope'");
    let env = Env::new().env("EXAMLOPS_STRICT", "Off");
    assert!(env.run(&["finops", "carbon", "estimate", "--gpu-hours", "12", "--provider", "nope"]).status.success());
    // MLflow's TLS switch: once read as no unless 1, true or yes, so "on" turned it off, silently.
    let mlflow = |v: &str| Env::new().env("MLFLOW_TRACKING_URI", "http://127.0.0.1:9").env("MLFLOW_TRACKING_INSECURE_TLS", v);
    fails(
        &mlflow("sometimes").run(&["finops", "carbon", "record", "m", "--gpu-hours", "1", "--run-id", "r1"]),
        2,
        "MLFLOW_TRACKING_INSECURE_TLS",
    );
    let out = mlflow("on").run(&["finops", "carbon", "record", "m", "--gpu-hours", "1", "--run-id", "r1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("not logged to MLflow"), "the record is stored; MLflow is down: {}", stderr(&out));
}

#[test]
fn unknown_provider_falls_back_loudly() {
    let env = Env::new();
    let args = ["-o", "json", "finops", "carbon", "estimate", "--gpu-hours", "12", "--provider", "cff-like"];
    let out = env.run(&args);
    assert!(out.status.success());
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "one warning line: {err}");
    assert!(err.starts_with("warning: carbon provider 'cff-like' (from --provider)") && err.contains("did you mean 'ccf-like'"), "{err}");
    let e: Estimate = crate::common::answer(&args, &out);
    assert_eq!(e.provider.name, "green-ai-default");
    assert_eq!(e.requested_provider.as_deref(), Some("cff-like"));
    assert!(e.fallback_reason.unwrap().contains("no carbon provider named 'cff-like'"));
    close(e.outputs["kwh"], 7.2);
}

#[test]
fn strict_refuses_to_fall_back() {
    let env = Env::new();
    fails(&env.run(&["--strict", "finops", "carbon", "estimate", "--gpu-hours", "12", "--provider", "nope"]), 1, "strict");
    let env = Env::new().env("EXAMLOPS_STRICT", "1");
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-hours", "12", "--provider", "nope"]), 1, "no carbon provider named 'nope'");
    let env = Env::new().env("EXAMLOPS_COST_PROVIDER", "nope");
    fails(&env.run(&["--strict", "finops", "cost", "estimate", "--gpu-hours", "1"]), 1, "EXAMLOPS_COST_PROVIDER");
}

#[test]
fn errors_are_json_under_o_json() {
    let args = ["--json", "finops", "carbon", "estimate", "--cpu-hours", "3", "--provider", "ccf-like"];
    let out = Env::new().run(&args);
    assert_eq!(out.status.code(), Some(1));
    let body: ErrorBody = crate::common::answer(&args, &out);
    assert_eq!(body.error.kind, "refused");
    assert!(body.error.message.contains("CPU-hours"));
}

#[test]
fn json_numbers_carry_no_float_noise() {
    let out = Env::new().run(&["-o", "json", "finops", "carbon", "estimate", "--cpu-hours", "32"]);
    let s = stdout(&out);
    assert!(s.contains("\"kwh\": 5.76,"), "{s}");
}
