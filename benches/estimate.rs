//! One estimate through the formula engine (parsed once, evaluated many
//! times), beside a whole `exa finops carbon estimate` process.
//!
//! `cargo bench --bench estimate`; quote the ratios, not the absolute times.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use exa::model::ProviderKind as Kind;
use exa::provider::doc;
use exa::provider::plugin::Plugin;
use exa::provider::registry::builtin;
use exa::provider::{Domain, Provider, Values};

fn values(p: &dyn Provider) -> Values {
    let mut v = Values::default();
    v.inputs.insert("gpu_hours".into(), 12.0);
    v.inputs.insert("cpu_hours".into(), 32.0);
    v.coefficients = p.meta().coefficients.iter().map(|c| (c.name.clone(), c.default)).collect();
    v
}

const USER: &str = r#"
name: h100-de
domain: carbon
uncertainty: 0.25
methodology: H100 at PUE 1.3 on the DE grid, with an idle floor
coefficients: {gpu_tdp_watts: 700, idle_watts: 60, pue: 1.3, grid_intensity_g_per_kwh: 250}
formulas:
  busy_kwh: "gpu_hours * (gpu_tdp_watts / 1000)"
  idle_kwh: "max(cpu_hours - gpu_hours, 0) * idle_watts / 1000"
  kwh: "(busy_kwh + idle_kwh) * pue"
  co2e_g: "round(kwh * grid_intensity_g_per_kwh, 3)"
"#;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("estimate");
    let default = builtin(Domain::Carbon, "green-ai-default").unwrap();
    let v = values(default.as_ref());
    g.bench_function("builtin green-ai-default (compute)", |b| b.iter(|| default.compute(black_box(&v)).unwrap()));
    let user = doc::load(USER, Kind::Yaml, None).unwrap();
    let v = values(&user);
    g.bench_function("user formula file, 4 formulas (compute)", |b| b.iter(|| user.compute(black_box(&v)).unwrap()));
    g.bench_function("user formula file (parse + compile)", |b| b.iter(|| doc::load(black_box(USER), Kind::Yaml, None).unwrap()));
    let home = std::env::temp_dir().join("exa-bench-home");
    g.sample_size(30);
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("providers/examples");
    for (name, domain) in [("exa-cost-spot", Domain::Cost), ("exa-carbon-my-grid-aware", Domain::Carbon)] {
        let plugin = Plugin::load(name, domain, &examples.join(name), Duration::from_secs(10), serde_json::json!({})).unwrap();
        let v = values(&plugin);
        g.bench_function(format!("plugin {name} (one compute call)"), |b| b.iter(|| plugin.compute(black_box(&v)).unwrap()));
    }
    g.bench_function("whole process: exa finops carbon estimate", |b| {
        b.iter(|| {
            let out = Command::new(env!("CARGO_BIN_EXE_exa"))
                .args(["-o", "json", "finops", "carbon", "estimate", "--gpu-hours", "12"])
                .env("XDG_CONFIG_HOME", &home)
                .output()
                .unwrap();
            assert!(out.status.success());
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
