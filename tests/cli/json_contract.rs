//! The documented JSON, decoded with `deny_unknown_fields` into the test's own
//! structs (`support/contract.rs`): a field added, renamed or dropped by a
//! refactor fails here.

use crate::common::Env;
use crate::contract::*;

#[test]
fn an_estimate_has_exactly_the_documented_fields() {
    let env = Env::new();
    let e: Estimate = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "2", "--cpu-hours", "3", "--pue", "1.2"]);
    assert_eq!((e.domain.as_str(), e.provider.name.as_str(), e.provider.kind.as_str()), ("carbon", "green-ai-default", "builtin"));
    assert_eq!(e.provider_source, "default");
    assert!(e.requested_provider.is_none() && e.fallback_reason.is_none() && e.grid.is_none());
    // With no grid region, the intensity is said to be the provider's default, and how to give the grid's; the
    // default's 120 W a CPU-hour is said to be a socket's, with the provider that knows better.
    assert_eq!(e.notes.len(), 2, "{:?}", e.notes);
    assert!(e.notes[0].contains("the provider's default, 300 gCO2e/kWh") && e.notes[0].contains("--region"), "{:?}", e.notes);
    assert!(e.notes[1].contains("a whole socket's power") && e.notes[1].contains("hardware-aware"), "{:?}", e.notes);
    let fr: Estimate = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "2", "--region", "FR"]);
    assert!(fr.notes.is_empty(), "a region's figure is no default: {:?}", fr.notes);
    let set: Estimate = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "2", "--grid-intensity", "50"]);
    assert!(set.notes.is_empty(), "an intensity given is no default: {:?}", set.notes);
    assert_eq!(e.coefficients["pue"].source, "flag");
    assert_eq!(e.coefficients["gpu_tdp_watts"].source, "default");
    assert_eq!(e.inputs.keys().collect::<Vec<_>>(), ["cpu_hours", "gpu_hours"]);
    assert!(e.provider.digest.starts_with("fnv1a64:") && e.provider.origin.is_none() && e.provider.source.is_some());
    assert_eq!(e.range.unwrap()["kwh"].len(), 2);
    assert!(e.outputs["co2e_g"] > 0.0 && e.provider.uncertainty == Some(0.3) && !e.provider.methodology.is_empty());
    // The embodied CO2e beside the provider's figure, with its band and how it was made.
    assert!(e.outputs["embodied_co2e_g"] > 0.0 && e.footprint.as_ref().is_some_and(|f| f.defaults.contains_key("embodied_host_kg")));
    let cost: Estimate = env.json(&["finops", "cost", "estimate", "--gpu-hours", "2"]);
    assert!(cost.footprint.is_none() && !cost.outputs.contains_key("embodied_co2e_g"));
}

#[test]
fn an_env_coefficient_and_a_degraded_grid_reading_keep_their_shape() {
    let env = Env::new().env("GPU_COST_PER_HOUR", "3").env("EXAMLOPS_CARBON_PROVIDER", "grid-live");
    let c: Estimate = env.json(&["finops", "cost", "estimate", "--gpu-hours", "2"]);
    assert_eq!(c.coefficients["gpu_rate"].source, "env");
    assert_eq!(c.coefficients["gpu_rate"].value, 3.0);
    let g: Estimate = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "2"]);
    assert_eq!(g.provider_source, "env");
    let grid = g.grid.expect("grid-live says where its intensity came from");
    assert_eq!(grid.origin, "default");
    assert!(grid.url.is_none() && grid.zone.is_none() && grid.reading_time.is_none() && grid.age_s.is_none());
    assert!(grid.detail.is_some() && grid.value > 0.0);
}

#[test]
fn providers_records_reports_and_errors_have_exactly_the_documented_fields() {
    let env = Env::new();
    let p: Providers = env.json(&["finops", "cost", "providers"]);
    assert_eq!((p.domain.as_str(), p.default.as_str(), p.selected), ("cost", "flat-rate", None));
    let def = p.providers.iter().find(|r| r.default).unwrap();
    assert_eq!((def.name.as_str(), def.kind.as_str(), def.status.as_str()), ("flat-rate", "builtin", "ok"));
    assert!(def.reason.is_none() && def.origin.is_none() && def.uncertainty == Some(0.0));

    let r: Recorded = env.json(&["finops", "carbon", "record", "M", "--gpu-hours", "1", "--run-id", "r1"]);
    assert_eq!((r.id, r.model.as_str(), r.run_id.as_deref()), (1, "M", Some("r1")));
    assert!(r.recorded_at.ends_with('Z') && !r.host.is_empty() && r.db.ends_with("records.sqlite3"));
    assert_eq!(r.estimate.outputs["co2e_g"], 180.0);

    let rep: Report = env.json(&["report"]);
    assert_eq!((rep.by.as_str(), rep.groups.len(), rep.totals.key.as_str()), ("model", 1, "total"));
    assert!(rep.filter.model.is_none() && rep.filter.since.is_none() && rep.filter.until.is_none());
    let g = &rep.groups[0];
    assert_eq!((g.key.as_str(), g.runs, g.records.carbon, g.records.cost), ("M", 1, 1, 0));
    assert_eq!((g.runs_measured, g.runs_estimated, g.records_not_counted), (0, 1, 0));
    assert!(rep.notes.is_empty());
    assert_eq!((g.gpu_hours, g.cpu_hours, g.kwh, g.co2e_g, g.cost_usd), (1.0, 0.0, Some(0.6), Some(180.0), None));
    assert_eq!((g.co2e_range_g, g.currency.as_str()), (Some([126.0, 234.0]), "USD"));
    assert!(rep.range_method.starts_with("linear") && rep.db == r.db);

    let rep: Report = env.json(&["report", "--since", "2026-11-01", "--until", "2026-11-30T12:00:00Z"]);
    assert_eq!(rep.filter.since.as_deref(), Some("2026-11-01T00:00:00Z"), "times in JSON are ISO 8601");
    assert_eq!(rep.filter.until.as_deref(), Some("2026-11-30T12:00:00Z"));

    let args = ["-o", "json", "finops", "carbon", "estimate"];
    let out = env.run(&args);
    assert_eq!(out.status.code(), Some(2));
    // An error body on stdout under -o json.
    let e: ErrorBody = crate::common::answer(&args, &out);
    assert_eq!(e.error.kind, "usage");
    assert!(e.error.message.contains("nothing to estimate"));
}

#[test]
fn work_embodied_carbon_and_figures_per_unit_have_exactly_the_documented_fields() {
    let env = Env::new();
    env.config("finops:\n  carbon:\n    coefficients:\n      wue_l_per_kwh: 1.5\n");
    let e: Estimate = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "8"]);
    let f = e.footprint.expect("a carbon estimate says how its embodied figure was made");
    assert!(f.method.starts_with("SCI's M = TE") && f.defaults.len() == 6 && f.gpu.is_none(), "{f:?}");
    let r: crate::contract::Recorded = env.json(&[
        "finops",
        "carbon",
        "record",
        "M",
        "--run-id",
        "r",
        "--gpu-hours",
        "8",
        "--tokens",
        "4000",
        "--requests",
        "20",
        "--unit",
        "images=7",
    ]);
    let w = r.work.expect("the work given is echoed");
    assert_eq!((w.tokens, w.prompt_tokens, w.requests), (Some(4000.0), None, Some(20.0)));
    let u = w.unit.unwrap();
    assert_eq!((u.name.as_str(), u.count), ("images", 7.0));
    let plain: crate::contract::Recorded = env.json(&["finops", "carbon", "record", "M", "--gpu-hours", "1"]);
    assert!(plain.work.is_none(), "no work given, none shown");
    let rep: crate::contract::Report = env.json(&["report", "--per", "token"]);
    let t = &rep.totals;
    assert_eq!((t.tokens, t.prompt_tokens, t.requests), (Some(4000.0), None, Some(20.0)));
    assert!(t.embodied_co2e_g.unwrap() > 0.0 && t.water_l.unwrap() > 0.0);
    assert_eq!(rep.filter.per.as_deref(), Some("token"));
    let p = t.per.as_ref().expect("per unit on --per");
    assert_eq!((p.unit.as_str(), p.r), ("token", Some(4000.0)));
    let (o, m, e_kwh) = (p.o_g.unwrap(), p.m_g.unwrap(), p.e_kwh.unwrap());
    assert!((p.sci_g_per_unit.unwrap() - (o + m) / 4000.0).abs() < 1e-12);
    assert!((p.i_g_per_kwh.unwrap() - o / e_kwh).abs() < 1e-9 && (p.co2e_g_per_unit.unwrap() - o / 4000.0).abs() < 1e-12);
    assert!((p.kwh_per_unit.unwrap() - e_kwh / 4000.0).abs() < 1e-15 && (p.j_per_unit.unwrap() - e_kwh * 3.6e6 / 4000.0).abs() < 1e-9);
    assert!(p.cost_usd_per_unit.is_none(), "no cost record");
    assert!((p.water_l_per_unit.unwrap() - t.water_l.unwrap() / 4000.0).abs() < 1e-12);
    let no_per: crate::contract::Report = env.json(&["report"]);
    assert!(no_per.totals.per.is_none() && no_per.groups.iter().all(|g| g.per.is_none()) && no_per.filter.per.is_none());
}
