//! `providers` and `show` for both domains.

use crate::common::{fails, stdout, Env};
use crate::contract::Providers;

#[test]
fn carbon_providers_list_kinds_uncertainty_status_default() {
    let p: Providers = Env::new().json(&["finops", "carbon", "providers"]);
    assert_eq!(p.domain, "carbon");
    assert_eq!(p.default, "green-ai-default");
    let names: Vec<&str> = p.providers.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["ccf-like", "codecarbon-like", "green-ai-default", "grid-live", "hardware-aware"]);
    for r in &p.providers {
        assert_eq!((r.kind.as_str(), r.status.as_str()), ("builtin", "ok"), "{}", r.name);
        assert_eq!(r.default, r.name == "green-ai-default");
        assert!(r.reason.is_none());
    }
    let u: Vec<Option<f64>> = p.providers.iter().map(|r| r.uncertainty).collect();
    assert_eq!(u, [Some(0.3), Some(0.25), Some(0.3), Some(0.2), Some(0.3)]);
}

#[test]
fn carbon_providers_table() {
    let out = Env::new().run(&["finops", "carbon", "providers"]);
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn cost_providers() {
    let p: Providers = Env::new().json(&["--json", "finops", "cost", "providers"]);
    assert_eq!(p.default, "flat-rate");
    let names: Vec<&str> = p.providers.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["flat-rate", "tiered-example"]);
}

#[test]
fn show_gives_formulas_coefficients_and_metadata() {
    let v: serde_json::Value = Env::new().json(&["finops", "carbon", "show", "codecarbon-like"]);
    assert_eq!(v["provider"]["name"], "codecarbon-like");
    assert_eq!(v["provider"]["uncertainty"], 0.25);
    assert_eq!(v["accepts"], serde_json::json!(["gpu_hours"]));
    assert_eq!(v["formulas"][0]["output"], "kwh");
    assert!(v["formulas"][0]["formula"].as_str().unwrap().contains("ram_gb * ram_watts_per_gb"));
    let ram = v["coefficients"].as_array().unwrap().iter().find(|c| c["name"] == "ram_watts_per_gb").unwrap();
    assert_eq!(ram["default"], 0.3725);
    let out = Env::new().run(&["finops", "cost", "show", "flat-rate"]);
    let s = stdout(&out);
    assert!(s.contains("GPU_COST_PER_HOUR") && s.contains("gpu_hours * gpu_rate + cpu_hours * cpu_rate"), "{s}");
}

#[test]
fn show_unknown_provider_is_refused() {
    fails(&Env::new().run(&["finops", "carbon", "show", "ccf-lik"]), 1, "did you mean 'ccf-like'");
}
