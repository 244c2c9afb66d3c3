//! A team's own methodology: expression formulas, provider files, plugins.

use std::path::{Path, PathBuf};

use crate::common::{close, fails, stderr, Env};
use crate::contract::{Estimate, Providers};

const SPEC_EXPRESSION: &str = r#"
finops:
  carbon:
    provider: expression
    coefficients: {gpu_tdp_watts: 700, pue: 1.3, grid_intensity_g_per_kwh: 250}
    formulas:
      kwh:    "gpu_hours * (gpu_tdp_watts / 1000) * pue"
      co2e_g: "kwh * grid_intensity_g_per_kwh"
    metadata:
      uncertainty: 0.25
      methodology: "H100 @ PUE 1.3, DE grid 250 gCO2e/kWh"
"#;

fn estimate(env: &Env, domain: &str, args: &[&str]) -> Estimate {
    let mut all = vec!["finops", domain, "estimate"];
    all.extend_from_slice(args);
    env.json(&all)
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("providers").join("examples")
}

#[test]
fn spec_expression_example() {
    let env = Env::new();
    env.config(SPEC_EXPRESSION);
    let e = estimate(&env, "carbon", &["--gpu-hours", "12"]);
    assert_eq!(e.provider.name, "expression");
    assert_eq!(e.provider.kind, "expression");
    assert_eq!(e.provider.methodology, "H100 @ PUE 1.3, DE grid 250 gCO2e/kWh");
    assert_eq!(e.provider.uncertainty, Some(0.25));
    close(e.outputs["kwh"], 10.92);
    close(e.outputs["co2e_g"], 2730.0);
    assert_eq!(e.coefficients["gpu_tdp_watts"].source, "config");
    // A coefficient flag reaches the formula.
    let e = estimate(&env, "carbon", &["--gpu-hours", "12", "--pue", "1.1"]);
    close(e.outputs["kwh"], 12.0 * 0.7 * 1.1);
    assert_eq!(e.coefficients["pue"].source, "flag");
}

#[test]
fn cost_expression_with_chained_formulas_and_own_coefficients() {
    let env = Env::new();
    env.config(
        r#"
finops:
  cost:
    provider: expression
    coefficients: {gpu_rate: 3, reserved_hours: 40, reserved_rate: 1}
    formulas:
      on_demand_hours: "max(gpu_hours - reserved_hours, 0)"
      cost_usd: "min(gpu_hours, reserved_hours) * reserved_rate + on_demand_hours * gpu_rate + cpu_hours * cpu_rate"
"#,
    );
    let e = estimate(&env, "cost", &["--gpu-hours", "100", "--cpu-hours", "10"]);
    close(e.outputs["on_demand_hours"], 60.0);
    close(e.outputs["cost_usd"], 40.0 + 180.0 + 0.5);
    assert_eq!(e.coefficients["reserved_hours"].source, "config");
    assert_eq!(e.coefficients["cpu_rate"].source, "default");
    assert_eq!(e.range, None.or(e.range.clone()));
    let e = estimate(&env, "cost", &["--gpu-hours", "100", "--set", "reserved_hours=100"]);
    close(e.outputs["cost_usd"], 100.0);
}

#[test]
fn float_arithmetic_and_power_in_formulas() {
    let env = Env::new();
    env.config(
        r#"
finops:
  carbon:
    provider: expression
    formulas:
      ratio: "700 / 1000"
      tower: "2 ** 3 ** 2"
      kwh: "gpu_hours * ratio + (tower - 512) + 7 % 3 - 1 + -(-0)"
      co2e_g: "kwh * grid_intensity_g_per_kwh"
"#,
    );
    let e = estimate(&env, "carbon", &["--gpu-hours", "10"]);
    assert_eq!(e.outputs["ratio"], 0.7);
    assert_eq!(e.outputs["tower"], 512.0);
    close(e.outputs["kwh"], 7.0);
    assert_eq!(e.range, None, "no uncertainty given, no invented range");
}

#[test]
fn broken_formula_is_listed_and_falls_back_loudly() {
    let env = Env::new();
    env.config(
        "finops:\n  carbon:\n    provider: expression\n    formulas:\n      kwh: \"gpu_hours * tdp\"\n      co2e_g: \"kwh * 300\"\n",
    );
    let p: Providers = env.json(&["finops", "carbon", "providers"]);
    let row = p.providers.iter().find(|r| r.name == "expression").unwrap();
    assert_eq!(row.status, "broken");
    let reason = row.reason.as_deref().unwrap();
    assert!(reason.contains("formula 'kwh'") && reason.contains("column 13") && reason.contains("unknown name 'tdp'"), "{reason}");
    let args = ["-o", "json", "finops", "carbon", "estimate", "--gpu-hours", "1"];
    let out = env.run(&args);
    assert!(out.status.success());
    assert!(stderr(&out).contains("warning: carbon provider 'expression' (from finops.carbon.provider in the config)"), "{}", stderr(&out));
    let e: Estimate = crate::common::answer(&args, &out);
    assert_eq!(e.provider.name, "green-ai-default");
    assert!(e.fallback_reason.unwrap().contains("unknown name 'tdp'"));
    fails(&env.run(&["--strict", "finops", "carbon", "estimate", "--gpu-hours", "1"]), 1, "unknown name 'tdp'");
}

#[test]
fn each_formula_error_is_found_at_load() {
    let cases = [
        ("kwh: \"open('/etc/passwd')\"", "unexpected character"),
        ("kwh: \"__import__(1)\"", "unknown function '__import__'"),
        ("kwh: \"gpu_hours.real\"", "attribute access"),
        ("kwh: \"x = 1\"", "'=' is not allowed"),
        ("kwh: \"2 ^ 3\"", "use ** for power"),
        ("kwh: \"(1 + 2\"", "expected ')'"),
        ("kwh: \"sqrt(1, 2)\"", "sqrt takes 1 argument"),
        ("co2e_only: \"1\"", "must produce kwh and co2e_g"),
    ];
    for (formula, why) in cases {
        let env = Env::new();
        let extra = if formula.starts_with("kwh") { "\n      co2e_g: \"kwh\"" } else { "" };
        env.config(&format!("finops:\n  carbon:\n    provider: expression\n    formulas:\n      {formula}{extra}\n"));
        let out = env.run(&["--strict", "finops", "carbon", "estimate", "--gpu-hours", "1"]);
        fails(&out, 1, why);
    }
}

#[test]
fn limits_are_clear_errors() {
    let env = Env::new();
    let deep = format!("{}gpu_hours{}", "(".repeat(100_000), ")".repeat(100_000));
    env.config(&format!("finops:\n  carbon:\n    provider: expression\n    formulas:\n      kwh: \"{deep}\"\n      co2e_g: \"kwh\"\n"));
    fails(&env.run(&["--strict", "finops", "carbon", "estimate", "--gpu-hours", "1"]), 1, "longer than the limit");
    let nested = format!("{}gpu_hours{}", "(".repeat(100), ")".repeat(100));
    env.config(&format!("finops:\n  carbon:\n    provider: expression\n    formulas:\n      kwh: \"{nested}\"\n      co2e_g: \"kwh\"\n"));
    fails(&env.run(&["--strict", "finops", "carbon", "estimate", "--gpu-hours", "1"]), 1, "nested deeper than the limit of 64");
    let many: String = (0..70).map(|i| format!("      f{i}: \"1\"\n")).collect();
    env.config(&format!("finops:\n  carbon:\n    provider: expression\n    formulas:\n{many}      kwh: \"1\"\n      co2e_g: \"1\"\n"));
    fails(&env.run(&["--strict", "finops", "carbon", "estimate", "--gpu-hours", "1"]), 1, "more than the limit of 64");
}

#[test]
fn non_finite_results_exit_1_naming_the_formula() {
    for (formula, why) in [
        ("gpu_hours / cpu_hours", "division by zero"),
        ("log(cpu_hours) * gpu_hours", "log"),
        ("sqrt(0 - gpu_hours)", "sqrt of a negative"),
    ] {
        let env = Env::new();
        env.config(&format!(
            "finops:\n  carbon:\n    provider: expression\n    formulas:\n      kwh: \"{formula}\"\n      co2e_g: \"kwh\"\n"
        ));
        let out = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1"]);
        fails(&out, 1, "formula 'kwh'");
        assert!(stderr(&out).contains(why), "{}", stderr(&out));
    }
}

const FILE_PROVIDER: &str = r#"
name: h100-de
domain: carbon
uncertainty: 0.2
methodology: H100 boards on the German grid
source: our measurements, 2026
coefficients:
  gpu_tdp_watts: 700
  pue: {default: 1.3, unit: ratio}
  grid_intensity_g_per_kwh: 250
formulas:
  kwh: "gpu_hours * gpu_tdp_watts / 1000 * pue"
  co2e_g: "kwh * grid_intensity_g_per_kwh"
"#;

#[test]
fn provider_files_are_listed_shown_and_used() {
    let env = Env::new();
    env.file("config/examlops/providers/carbon/h100.yaml", FILE_PROVIDER);
    let p: Providers = env.json(&["finops", "carbon", "providers"]);
    let row = p.providers.iter().find(|r| r.name == "h100-de").expect("listed");
    assert_eq!((row.kind.as_str(), row.status.as_str()), ("yaml", "ok"));
    let e = estimate(&env, "carbon", &["--gpu-hours", "12", "--provider", "h100-de"]);
    close(e.outputs["kwh"], 10.92);
    assert_eq!(e.provider.kind, "yaml");
    let v: serde_json::Value = env.json(&["finops", "carbon", "show", "h100-de"]);
    assert_eq!(v["provider"]["source"], "our measurements, 2026");
}

#[test]
fn provider_file_by_path() {
    let env = Env::new();
    let f = env.file("work/mine.yaml", FILE_PROVIDER);
    let e = estimate(&env, "carbon", &["--gpu-hours", "12", "--provider", f.to_str().unwrap()]);
    assert_eq!(e.provider.name, "h100-de");
    close(e.outputs["co2e_g"], 2730.0);
    let e = estimate(&env, "carbon", &["--gpu-hours", "12", "--provider", "./work/mine.yaml"]);
    assert_eq!(e.provider.name, "h100-de");
    // A carbon file is not a cost provider.
    fails(&env.run(&["--strict", "finops", "cost", "estimate", "--gpu-hours", "1", "--provider", "./work/mine.yaml"]), 1, "not a cost one");
}

#[test]
fn builtin_names_cannot_be_shadowed() {
    let env = Env::new();
    env.file("config/examlops/providers/carbon/evil.yaml", &FILE_PROVIDER.replace("name: h100-de", "name: ccf-like"));
    env.file("config/examlops/providers/carbon/a.yaml", FILE_PROVIDER);
    env.file("config/examlops/providers/carbon/b.yaml", &FILE_PROVIDER.replace("uncertainty: 0.2", "uncertainty: 0.5"));
    let p: Providers = env.json(&["finops", "carbon", "providers"]);
    let ccf: Vec<_> = p.providers.iter().filter(|r| r.name == "ccf-like").collect();
    assert_eq!(ccf.len(), 2);
    assert_eq!((ccf[0].kind.as_str(), ccf[0].status.as_str()), ("builtin", "ok"));
    assert_eq!(ccf[1].status, "broken");
    assert!(ccf[1].reason.as_deref().unwrap().contains("built-in name"));
    let h: Vec<_> = p.providers.iter().filter(|r| r.name == "h100-de").collect();
    assert_eq!(h.iter().map(|r| r.status.as_str()).collect::<Vec<_>>(), ["ok", "shadowed"]);
    assert!(h[1].reason.as_deref().unwrap().contains("a.yaml"), "{:?}", h[1].reason);
    // The built-in is what `ccf-like` means, and the first file wins its name.
    let e = estimate(&env, "carbon", &["--gpu-hours", "12", "--provider", "ccf-like"]);
    assert_eq!(e.provider.kind, "builtin");
    let e = estimate(&env, "carbon", &["--gpu-hours", "12", "--provider", "h100-de"]);
    assert_eq!(e.provider.uncertainty, Some(0.2));
}

#[test]
fn python_plugin_from_the_examples() {
    let env = Env::new().path_first(&examples());
    env.config("finops:\n  carbon:\n    config: {overhead: 1.5}\n");
    let p: Providers = env.json(&["finops", "carbon", "providers"]);
    let row = p.providers.iter().find(|r| r.name == "my-grid-aware").expect("listed");
    assert_eq!((row.kind.as_str(), row.status.as_str(), row.uncertainty), ("plugin", "ok", Some(0.15)));
    let e = estimate(&env, "carbon", &["--gpu-hours", "12", "--provider", "my-grid-aware", "--grid-intensity", "100"]);
    assert_eq!(e.provider.kind, "plugin");
    close(e.outputs["kwh"], 12.0 * 0.4 * 1.5);
    close(e.outputs["co2e_g"], 12.0 * 0.4 * 1.5 * 100.0);
    assert_eq!(e.coefficients["grid_intensity_g_per_kwh"].source, "flag");
    fails(&env.run(&["finops", "carbon", "estimate", "--cpu-hours", "1", "--provider", "my-grid-aware"]), 1, "no CPU-hours term");
}

#[test]
fn shell_plugin_from_the_examples_by_path() {
    let env = Env::new();
    let prog = examples().join("exa-cost-spot");
    let e = estimate(&env, "cost", &["--gpu-hours", "150", "--cpu-hours", "10", "--provider", prog.to_str().unwrap()]);
    assert_eq!(e.provider.name, "spot");
    close(e.outputs["cost_usd"], 150.0 * 2.5 * 0.35 + 10.0 * 0.05);
    let e = estimate(&env, "cost", &["--gpu-hours", "10", "--provider", prog.to_str().unwrap(), "--set", "spot_factor=1"]);
    close(e.outputs["cost_usd"], 25.0);
}

const META: &str = r#"{"protocol": 1, "methodology": "m", "uncertainty": 0.1, "outputs": ["kwh", "co2e_g"], "inputs": ["gpu_hours"]}"#;

/// A carbon plugin whose `metadata` answers well and whose `compute` runs `body`.
fn plugin(env: &Env, name: &str, compute: &str) -> PathBuf {
    let script = format!("#!/bin/sh\ncat >/dev/null\ncase \"$1\" in\nmetadata) echo '{META}' ;;\ncompute) {compute} ;;\nesac\n");
    env.program(&format!("config/examlops/plugins/exa-carbon-{name}"), &script)
}

#[test]
fn each_plugin_failure_is_broken_and_falls_back() {
    let cases = [
        ("hangs", "sleep 30", "within 0.5 s and was killed"),
        ("exits", "echo 'it went wrong' >&2; exit 3", "exited with exit status: 3"),
        ("garbage", "echo 'kwh=12'", "did not print the promised JSON"),
        ("nan", r#"echo '{"outputs": {"kwh": NaN, "co2e_g": 1}}'"#, "did not print the promised JSON"),
        ("huge", r#"echo '{"outputs": {"kwh": 1e999, "co2e_g": 1}}'"#, "number out of range"),
        ("string", r#"echo '{"outputs": {"kwh": "12", "co2e_g": 1}}'"#, "not a finite number"),
        ("missing", r#"echo '{"outputs": {"kwh": 1}}'"#, "no output 'co2e_g'"),
    ];
    for (name, body, why) in cases {
        let env = Env::new();
        env.config("finops:\n  carbon:\n    plugin_timeout_s: 0.5\n");
        plugin(&env, name, body);
        let started = std::time::Instant::now();
        let args = ["-o", "json", "finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", name];
        let out = env.run(&args);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert!(started.elapsed().as_secs() < 20, "{name}: the hung plugin was not killed in time");
        assert!(stderr(&out).contains("warning:") && stderr(&out).contains(why), "{name}: {}", stderr(&out));
        let e: Estimate = crate::common::answer(&args, &out);
        assert_eq!(e.provider.name, "green-ai-default", "{name}");
        assert_eq!(e.requested_provider.as_deref(), Some(name));
        assert!(e.fallback_reason.unwrap().contains(why));
        fails(&env.run(&["--strict", "finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", name]), 1, why);
    }
    let env = Env::new();
    plugin(&env, "exits", "echo 'it went wrong' >&2; exit 3");
    let out = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", "exits"]);
    assert!(stderr(&out).contains("it went wrong"), "the plugin's stderr reaches the user: {}", stderr(&out));
}

#[test]
fn plugins_with_bad_metadata_are_listed_broken() {
    let env = Env::new();
    env.program("config/examlops/plugins/exa-carbon-nometa", "#!/bin/sh\ncat >/dev/null\nexit 1\n");
    env.program("config/examlops/plugins/exa-carbon-badjson", "#!/bin/sh\ncat >/dev/null\necho '{not json'\n");
    env.program(
        "config/examlops/plugins/exa-carbon-nokwh",
        "#!/bin/sh\ncat >/dev/null\necho '{\"protocol\": 1, \"methodology\": \"m\", \"outputs\": [\"co2e_g\"]}'\n",
    );
    env.program(
        "config/examlops/plugins/exa-carbon-future",
        "#!/bin/sh\ncat >/dev/null\necho '{\"protocol\": 2, \"methodology\": \"m\", \"outputs\": [\"kwh\", \"co2e_g\"]}'\n",
    );
    env.program("config/examlops/plugins/exa-carbon-slow", "#!/bin/sh\nsleep 30\n");
    env.config("finops:\n  carbon:\n    plugin_timeout_s: 0.5\n");
    let p: Providers = env.json(&["finops", "carbon", "providers"]);
    let status = |n: &str| {
        let r = p.providers.iter().find(|r| r.name == n).unwrap_or_else(|| panic!("{n} listed"));
        (r.status.clone(), r.reason.clone().unwrap_or_default())
    };
    assert_eq!(status("nometa").0, "broken");
    assert!(status("nometa").1.contains("exited"));
    assert!(status("badjson").1.contains("promised JSON"));
    assert!(status("nokwh").1.contains("must produce kwh and co2e_g"));
    assert!(status("future").1.contains("protocol 2"));
    assert!(status("slow").1.contains("killed"));
}
