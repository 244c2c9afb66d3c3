//! `finops.yaml` and `exa config path|show|init`.

use crate::common::{fails, stderr, stdout, Env};
use crate::contract::Estimate;

#[test]
fn malformed_yaml_names_file_line_and_column() {
    let env = Env::new();
    env.config("finops:\n  carbon:\n    provider: [ccf-like\n");
    let out = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1"]);
    fails(&out, 2, "finops.yaml");
    assert!(stderr(&out).contains("line") && stderr(&out).contains("column"), "{}", stderr(&out));
}

#[test]
fn non_numeric_and_negative_coefficients_are_config_errors() {
    let env = Env::new();
    env.config("finops:\n  carbon:\n    coefficients:\n      pue: high\n");
    let out = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1"]);
    fails(&out, 2, "finops.carbon.coefficients.pue");
    assert!(stderr(&out).contains("line 4"), "{}", stderr(&out));
    env.config("finops:\n  carbon:\n    coefficients:\n      pue: -1.5\n");
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1"]), 2, "not a finite number >= 0");
    env.config("finops:\n  carbon:\n    coefficients:\n      pue: .nan\n");
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1"]), 2, "finops.carbon.coefficients.pue");
}

#[test]
fn unknown_keys_warn_with_the_nearest() {
    let env = Env::new();
    env.config("finops:\n  carbon:\n    coefficents:\n      pue: 1.2\n");
    let args = ["-o", "json", "finops", "carbon", "estimate", "--gpu-hours", "1"];
    let out = env.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("unknown key 'finops.carbon.coefficents'") && stderr(&out).contains("did you mean 'coefficients'"),
        "{}",
        stderr(&out)
    );
    let e: Estimate = crate::common::answer(&args, &out);
    assert_eq!(e.coefficients["pue"].source, "default");
}

#[test]
fn config_flag_and_env_choose_the_file() {
    let env = Env::new();
    let p = env.file("elsewhere/mine.yaml", "finops:\n  cost:\n    provider: tiered-example\n");
    let v: serde_json::Value = env.json(&["--config", p.to_str().unwrap(), "config", "path"]);
    assert_eq!(v["source"], "flag");
    assert_eq!(v["exists"], true);
    let e: Estimate = env.json(&["--config", p.to_str().unwrap(), "finops", "cost", "estimate", "--gpu-hours", "1"]);
    assert_eq!(e.provider.name, "tiered-example");
    let env2 = Env::new().env("EXAMLOPS_CONFIG", p.to_str().unwrap());
    let v: serde_json::Value = env2.json(&["config", "path"]);
    assert_eq!(v["source"], "env");
    fails(&env.run(&["--config", "/nonexistent/finops.yaml", "config", "show"]), 2, "does not exist");
    let v: serde_json::Value = env.json(&["--config", "/nonexistent/finops.yaml", "config", "path"]);
    assert_eq!(v["exists"], false);
}

#[test]
fn default_path_is_in_the_user_config_dir() {
    let env = Env::new();
    let out = env.run(&["config", "path"]);
    assert_eq!(stdout(&out).trim(), env.config_file().to_str().unwrap());
}

#[test]
fn init_writes_a_commented_file_once() {
    let env = Env::new();
    let v: serde_json::Value = env.json(&["config", "init"]);
    assert_eq!(v["replaced"], false);
    let text = std::fs::read_to_string(env.config_file()).unwrap();
    assert!(text.contains("# exa configuration") && text.contains("provider: green-ai-default"));
    fails(&env.run(&["config", "init"]), 1, "already exists");
    assert_eq!(std::fs::read_to_string(env.config_file()).unwrap(), text, "a refused init leaves the file alone");
    let v: serde_json::Value = env.json(&["config", "init", "--force"]);
    assert_eq!(v["replaced"], true);
    // The starter parses and selects the defaults explicitly.
    let v: serde_json::Value = env.json(&["config", "show"]);
    assert_eq!(v["carbon"]["provider"]["value"], "green-ai-default");
    assert_eq!(v["carbon"]["provider"]["source"], "config");
    assert_eq!(v["config"]["exists"], true);
}

#[test]
fn show_gives_each_setting_and_its_source() {
    let env = Env::new().env("EXAMLOPS_STRICT", "0").env("CPU_COST_PER_HOUR", "0.09");
    env.config("finops:\n  carbon:\n    coefficients: {pue: 1.2}\n");
    let v: serde_json::Value = env.json(&["config", "show"]);
    assert_eq!(v["strict"]["source"], "env");
    assert_eq!(v["carbon"]["provider"]["source"], "default");
    assert_eq!(v["carbon"]["coefficients"]["pue"]["value"], 1.2);
    assert_eq!(v["carbon"]["coefficients"]["pue"]["source"], "config");
    assert_eq!(v["cost"]["coefficients"]["cpu_rate"]["source"], "env");
    let out = env.run(&["config", "show"]);
    assert!(stdout(&out).contains("pue") && stdout(&out).contains("config"));
}

#[test]
fn a_broken_config_can_still_be_found_and_replaced() {
    let env = Env::new();
    env.config("finops: [unclosed\n");
    fails(&env.run(&["finops", "carbon", "providers"]), 2, "finops.yaml");
    let v: serde_json::Value = env.json(&["config", "path"]);
    assert_eq!(v["exists"], true);
    assert!(env.run(&["completions", "bash"]).status.success());
    assert!(env.run(&["man"]).status.success());
    env.json::<serde_json::Value>(&["config", "init", "--force"]);
    assert!(env.run(&["finops", "carbon", "providers"]).status.success());
    // init makes a new file where --config points.
    let fresh = env.dir.path().join("fresh/finops.yaml");
    let v: serde_json::Value = env.json(&["--config", fresh.to_str().unwrap(), "config", "init"]);
    assert_eq!(v["replaced"], false);
    assert!(fresh.exists());
}
