//! Grid intensity by region, offline: `--region`, EXAMLOPS_GRID_REGION and the
//! config, resolved from the tables exa ships, each figure naming its source.

use serde_json::Value;

use crate::common::{fails, stdout, Env};

/// The shipped tables' figure for a key, read from the repository's own data.
fn table(file: &str, key_col: usize, key: &str, value_col: usize) -> f64 {
    let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/grid").join(file)).unwrap();
    let row = text.lines().map(|l| l.split('\t').collect::<Vec<_>>()).find(|r| r[key_col] == key).unwrap();
    row[value_col].parse().unwrap()
}

#[test]
fn a_region_sets_the_grid_intensity_and_says_where_it_came_from() {
    let env = Env::new();
    let fr = table("countries.tsv", 1, "FR", 4);
    let e: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "10", "--region", "fra"]);
    let c = &e["coefficients"]["grid_intensity_g_per_kwh"];
    assert_eq!((c["value"].as_f64().unwrap(), c["source"].as_str().unwrap()), (fr, "region"));
    assert_eq!(e["grid"]["origin"], "region");
    assert_eq!(e["grid"]["zone"], "FR");
    assert!(e["grid"]["detail"].as_str().unwrap().contains("region FR (Ember via OWID, 2024)"), "{}", e["grid"]);
    let kwh = e["outputs"]["kwh"].as_f64().unwrap();
    assert!((e["outputs"]["co2e_g"].as_f64().unwrap() - kwh * fr).abs() < 1e-6 * kwh * fr);
    // A cloud region: its grid's figure on one basis whoever runs it, the state's in the US, else the country's;
    // Google's own figure for a GCP region is not used (Northern Virginia is one figure for AWS and GCP).
    let va = table("us.tsv", 1, "VA", 4);
    let nl = table("countries.tsv", 1, "NL", 4);
    for (region, want, said) in [
        ("gcp:europe-west4", nl, "via NL"),
        ("aws:us-east-1", va, "via US-VA"),
        ("gcp:us-east4", va, "via US-VA"),
        ("azure:westeurope", nl, "via NL"),
    ] {
        let e: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--region", region]);
        assert_eq!(e["coefficients"]["grid_intensity_g_per_kwh"]["value"].as_f64().unwrap(), want, "{region}");
        assert!(e["grid"]["detail"].as_str().unwrap().contains(said), "{region}: {}", e["grid"]);
    }
    // From the environment and the config, the flag winning.
    let env = Env::new().env("EXAMLOPS_GRID_REGION", "US-VA");
    let e: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "1"]);
    assert_eq!(e["coefficients"]["grid_intensity_g_per_kwh"]["value"].as_f64().unwrap(), va);
    let e: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--region", "FR"]);
    assert_eq!(e["coefficients"]["grid_intensity_g_per_kwh"]["value"].as_f64().unwrap(), fr);
    let env = Env::new();
    env.config("finops:\n  carbon:\n    grid:\n      region: DE\n");
    let e: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "1"]);
    assert_eq!(e["grid"]["zone"], "DE");
    let shown: Value = env.json(&["config", "show"]);
    assert_eq!(shown["grid_region"]["value"], "DE");
    assert_eq!(shown["grid_region"]["source"], "config");
    // Doing nothing changes nothing: the default 300 and no grid block; config show says how to set one.
    let bare = Env::new();
    let e: Value = bare.json(&["finops", "carbon", "estimate", "--gpu-hours", "1"]);
    assert_eq!(e["coefficients"]["grid_intensity_g_per_kwh"]["value"], 300.0);
    assert_eq!(e.get("grid"), Some(&Value::Null));
    let o = bare.run(&["config", "show"]);
    assert!(stdout(&o).contains("set --region, EXAMLOPS_GRID_REGION or finops.carbon.grid.region"), "{}", stdout(&o));
}

#[test]
fn an_explicit_intensity_wins_and_a_bad_region_is_refused() {
    let env = Env::new();
    let e: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--region", "FR", "--grid-intensity", "250"]);
    assert_eq!(e["coefficients"]["grid_intensity_g_per_kwh"]["value"], 250.0);
    assert!(e["notes"].to_string().contains("region FR"), "{}", e["notes"]);
    let out = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--region", "aws:us-east-9"]);
    fails(&out, 2, "no grid intensity is known for region 'aws:us-east-9'; did you mean");
    // A state's two letters are a US state, never the nearest country code (VA is not Bosnia's BA).
    fails(&env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--region", "VA"]), 2, "did you mean 'US-VA' (the US state)?");
    // A country its source gives 0 gCO2e/kWh has no figure here: refused, never priced at 0.
    fails(
        &env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--region", "CF"]),
        2,
        "no grid intensity is known for region 'CF'",
    );
    let out = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--region", "x\u{1b}[2J"]);
    fails(&out, 2, "--region");
    assert!(!crate::common::stderr(&out).contains('\u{1b}'), "no raw control characters shown");
    let bad = Env::new().env("EXAMLOPS_GRID_REGION", "Atlantis");
    let out = bad.run(&["finops", "carbon", "estimate", "--gpu-hours", "1"]);
    fails(&out, 2, "the grid region (from env");
}

#[test]
fn regions_lists_what_is_known_with_sources() {
    let env = Env::new();
    let all: Value = env.json(&["finops", "carbon", "regions"]);
    let regions = all["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 212 + 51 + 5 + 121);
    for r in regions {
        assert!(r["g_per_kwh"].as_f64().is_some_and(|v| v >= 0.0) && r["year"].as_u64().is_some() && r["source"].is_string(), "{r}");
    }
    // Every row says its basis; a GCP region's own figure is shown beside its grid's, on its own basis.
    assert!(regions.iter().all(|r| ["country", "us-state", "us-nerc"].contains(&r["basis"].as_str().unwrap())), "a basis per row");
    let east4 = regions.iter().find(|r| r["key"] == "gcp:us-east4").unwrap();
    assert_eq!((east4["basis"].as_str(), east4["via"].as_str()), (Some("us-state"), Some("US-VA")), "{east4}");
    assert_eq!(east4["provider_figure"]["g_per_kwh"].as_f64(), Some(table("cloud.tsv", 1, "us-east4", 6)), "{east4}");
    assert_eq!(east4["provider_figure"]["basis"], "provider's own");
    let aws: Value = env.json(&["finops", "carbon", "regions", "aws:"]);
    assert!(aws["regions"].as_array().unwrap().iter().all(|r| r["key"].as_str().unwrap().starts_with("aws:")));
    assert!(!aws["regions"].as_array().unwrap().is_empty());
    let out = env.run(&["finops", "carbon", "regions", "--sources"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("CC BY 4.0") && stdout(&out).contains("Ember (2025)"), "{}", stdout(&out));
}

#[test]
fn measure_prices_its_energy_at_the_regions_intensity() {
    let env = Env::new();
    let busy = "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done";
    let (out, r) = crate::common::measure(&env, &["--region", "SE", "--interval", "0.2"], &["sh", "-c", busy]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::common::stderr(&out));
    assert_eq!(r["carbon"]["grid"]["zone"], "SE", "{}", r["carbon"]);
    assert_eq!(r["carbon"]["coefficients"]["grid_intensity_g_per_kwh"]["value"].as_f64().unwrap(), table("countries.tsv", 1, "SE", 4));
    // A bad region is refused before the command runs.
    let marker = env.dir.path().join("ran");
    let out = env.run(&["finops", "measure", "--region", "Narnia", "--", "touch", marker.to_str().unwrap()]);
    fails(&out, 2, "--region: no grid intensity is known for region 'Narnia'");
    assert!(!marker.exists(), "the command ran");
    let bad = Env::new().env("EXAMLOPS_GRID_REGION", "Narnia");
    let out = bad.run(&["finops", "measure", "--", "touch", marker.to_str().unwrap()]);
    fails(&out, 2, "the grid region (from env");
    assert!(!marker.exists(), "the command ran");
}
