//! `exa finops carbon when` against a server on loopback answering each
//! provider's documented forecast shape, with times around the real now.

use serde_json::Value;

use crate::common::{fails, stderr, stdout, Env};
use crate::http::{iso, json, now, Answer, Server};

/// 48 half-hours from the one now is in: 300 g/kWh, except a trough of 100 for two hours from 4 h on.
fn uk_forecast(t0: i64) -> (String, i64) {
    let start = t0 - t0.rem_euclid(1800);
    let points: Vec<String> = (0..48)
        .map(|k| {
            let from = start + k * 1800;
            let g = if (8..12).contains(&k) { 100 } else { 300 };
            format!(
                r#"{{"from":"{}Z","to":"{}Z","intensity":{{"forecast":{g},"actual":null,"index":"moderate"}}}}"#,
                &iso(from)[..16],
                &iso(from + 1800)[..16]
            )
        })
        .collect();
    (format!(r#"{{"data":[{}]}}"#, points.join(",")), start + 8 * 1800)
}

#[test]
fn the_uk_forecast_gives_the_trough_as_the_start_with_the_saving() {
    let t0 = now();
    let (body, trough) = uk_forecast(t0);
    let srv = Server::start(json(body));
    let env = Env::new().env("EXAMLOPS_GRID_FORECAST_URL", &srv.url("/intensity/{from}/fw48h")).env("TZ", "UTC");
    let w = env.json::<Value>(&["finops", "carbon", "when", "--duration", "2h", "--power-w", "1500"]);
    assert_eq!(w["best"]["start"], iso(trough), "{w}");
    assert_eq!(w["best"]["mean_g_per_kwh"], 100.0);
    assert_eq!(w["best"]["co2e_g"], 300.0, "3 kWh at 100 g/kWh: {w}");
    assert_eq!(w["now"]["mean_g_per_kwh"], 300.0);
    assert_eq!(w["saving_co2e_g"], 600.0);
    assert!((w["saving_pct"].as_f64().unwrap() - 200.0 / 3.0).abs() < 1e-9);
    // The local start a scheduler takes (TZ=UTC here): sbatch --begin=2026-12-02T18:00:00.
    assert_eq!(w["best"]["begin"].as_str().unwrap(), iso(trough).trim_end_matches('Z'));
    assert_eq!((w["forecast"]["shape"].as_str(), w["forecast"]["intervals"].as_u64()), (Some("uk"), Some(48)));
    assert_eq!(w["forecast"].get("uncertainty"), Some(&Value::Null));
    // {from} is now, to the minute, as the API takes it (the minute the test began, or one after it).
    let asked = &srv.requests()[0];
    let after = now();
    let minutes: Vec<String> = [t0, after].iter().map(|t| format!("GET /intensity/{}Z/fw48h ", &iso(t - t.rem_euclid(60))[..16])).collect();
    assert!(minutes.iter().any(|m| asked.starts_with(m.as_str())), "{asked} is none of {minutes:?}");
    // Within an hour of now, the trough is out of reach: the best is now.
    let w = env.json::<Value>(&["finops", "carbon", "when", "--duration", "2h", "--within", "1h"]);
    assert_eq!(w["best"]["mean_g_per_kwh"], 300.0, "{w}");
    assert_eq!((w["saving_pct"].as_f64(), w["best"]["co2e_g"].clone()), (Some(0.0), Value::Null));
    // The table says the same.
    let out = env.run(&["finops", "carbon", "when", "--duration", "2h", "--power-w", "1500"]);
    let text = stdout(&out);
    assert!(
        text.contains(&format!("best start: {}", iso(trough)))
            && text.contains("100.0 gCO2e/kWh over the run")
            && text.contains("saving: 200.0 gCO2e/kWh, 66.7%"),
        "{text}"
    );
    assert!(text.contains("600.0 g less"), "{text}");
    // MCP's finops_when runs the same function: the same best start, and the same refusal of bad input.
    let calls = serde_json::json!([
        {"name": "finops_when", "arguments": {"duration": "2h", "power_w": 1500}},
        {"name": "finops_when", "arguments": {"duration": "forever"}},
        {"name": "finops_when", "arguments": {"duration": "2h", "file": "/etc/passwd"}}
    ]);
    let out = crate::mcp::stdio(&env, calls);
    let results = out["results"].as_array().unwrap();
    let m = &results[0]["structured"];
    assert_eq!((&m["best"], &m["saving_co2e_g"]), (&w_best(&env), &Value::from(600.0)), "{out}");
    assert_eq!(results[1]["is_error"], true, "{out}");
    assert!(results[1]["structured"]["error"]["message"].as_str().unwrap().contains("--duration"), "{out}");
    assert!(results[2]["structured"]["error"]["message"].as_str().unwrap().contains("unknown argument 'file'"), "{out}");
}

fn w_best(env: &Env) -> Value {
    env.json::<Value>(&["finops", "carbon", "when", "--duration", "2h", "--power-w", "1500"])["best"].clone()
}

#[test]
fn electricity_maps_watttime_and_the_carbon_aware_sdk_forecasts_read_alike() {
    let t0 = now();
    let hour = t0 - t0.rem_euclid(3600) + 3600;
    let em: Vec<String> = (0..24)
        .map(|k| format!(r#"{{"carbonIntensity":{},"datetime":"{}"}}"#, if k == 5 { 50 } else { 400 }, iso(hour + k * 3600)))
        .collect();
    let em = format!(r#"{{"zone":"DE","forecast":[{}],"updatedAt":"{}"}}"#, em.join(","), iso(t0));
    let srv = Server::start(json(em));
    let env = Env::new()
        .env("EXAMLOPS_GRID_FORECAST_URL", &srv.url("/v3/carbon-intensity/forecast?zone={zone}"))
        .env("EXAMLOPS_GRID_INTENSITY_ZONE", "DE")
        .env("EXAMLOPS_GRID_INTENSITY_API", "electricitymaps")
        .env("EXAMLOPS_GRID_INTENSITY_TOKEN", "sekret-em");
    let args = ["-o", "json", "finops", "carbon", "when", "--duration", "1h"];
    let out = env.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let w: Value = crate::common::answer(&args, &out);
    assert_eq!((w["best"]["start"].as_str().unwrap(), w["best"]["mean_g_per_kwh"].as_f64()), (iso(hour + 5 * 3600).as_str(), Some(50.0)));
    assert_eq!((w["forecast"]["shape"].as_str(), w["forecast"]["zone"].as_str()), (Some("electricitymaps"), Some("DE")));
    // The forecast begins after now: its first hour stands for now, and says so.
    assert!(w["notes"][0].as_str().unwrap().contains("after now"), "{w}");
    let asked = &srv.requests()[0];
    assert!(asked.contains("auth-token: sekret-em") && asked.contains("zone=DE"), "{asked}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("sekret") && !stderr(&out).contains("sekret"));

    // WattTime: pounds per MWh, 5-minute points.
    let base = t0 - t0.rem_euclid(300);
    let wt: Vec<String> = (0..288)
        .map(|k| {
            format!(
                r#"{{"point_time":"{}","value":{}}}"#,
                iso(base + k * 300).replace('Z', "+00:00"),
                if (100..112).contains(&k) { 500 } else { 1000 }
            )
        })
        .collect();
    let wt = format!(
        r#"{{"data":[{}],"meta":{{"units":"lbs_co2_per_mwh","data_point_period_seconds":300,"region":"CAISO_NORTH"}}}}"#,
        wt.join(",")
    );
    srv.set(json(wt));
    let env = Env::new().env("EXAMLOPS_GRID_FORECAST_URL", &srv.url("/v3/forecast?region=CAISO_NORTH&signal_type=co2_moer"));
    let w = env.json::<Value>(&["finops", "carbon", "when", "--duration", "1h"]);
    assert_eq!(w["best"]["start"], iso(base + 100 * 300), "{w}");
    assert!((w["best"]["mean_g_per_kwh"].as_f64().unwrap() - 500.0 * 0.453592).abs() < 1e-6, "{w}");

    // The Carbon Aware SDK's /emissions/forecasts/current: minutes per point, g/kWh.
    let sdk: Vec<String> = (0..96)
        .map(|k| {
            format!(
                r#"{{"location":"eastus","timestamp":"{}","duration":15,"value":{}}}"#,
                iso(base + k * 900),
                if k == 40 { 20.5 } else { 380.5 }
            )
        })
        .collect();
    srv.set(json(format!(r#"[{{"generatedAt":"{}","location":"eastus","forecastData":[{}]}}]"#, iso(t0), sdk.join(","))));
    let env = Env::new().env("EXAMLOPS_GRID_FORECAST_URL", &srv.url("/emissions/forecasts/current?location=eastus"));
    let w = env.json::<Value>(&["finops", "carbon", "when", "--duration", "15m"]);
    assert_eq!(
        (w["best"]["start"].as_str().unwrap(), w["forecast"]["shape"].as_str()),
        (iso(base + 40 * 900).as_str(), Some("carbon-aware-sdk"))
    );
}

#[test]
fn no_forecast_a_bad_one_or_bad_input_is_refused_by_name() {
    fails(&Env::new().run(&["finops", "carbon", "when", "--duration", "6h"]), 1, "EXAMLOPS_GRID_FORECAST_URL");
    let t0 = now();
    let (body, _) = uk_forecast(t0);
    let srv = Server::start(json(body));
    let env = Env::new().env("EXAMLOPS_GRID_FORECAST_URL", &srv.url("/intensity/{from}/fw48h"));
    fails(&env.run(&["finops", "carbon", "when", "--duration", "2x"]), 2, "--duration");
    fails(&env.run(&["finops", "carbon", "when", "--duration", "40d"]), 2, "from 1 minute to 30 days");
    fails(&env.run(&["finops", "carbon", "when", "--duration", "1h", "--power-w=-3"]), 2, "--power-w");
    // 24 hours of forecast cannot hold a 30-hour run.
    fails(&env.run(&["finops", "carbon", "when", "--duration", "30h"]), 1, "too little for a run of 30 h");
    // A server error, a body that is no forecast, a hole in the forecast.
    srv.set(Answer::Body(503, "text/plain", "down".into()));
    fails(&env.run(&["finops", "carbon", "when", "--duration", "1h"]), 1, "503");
    srv.set(json(r#"{"carbonIntensity": 3}"#.into()));
    fails(&env.run(&["finops", "carbon", "when", "--duration", "1h"]), 1, "not a forecast exa knows");
    let start = t0 - t0.rem_euclid(1800);
    let holes = format!(
        r#"{{"data":[{{"from":"{}Z","to":"{}Z","intensity":{{"forecast":200}}}},{{"from":"{}Z","to":"{}Z","intensity":{{"forecast":200}}}}]}}"#,
        &iso(start)[..16],
        &iso(start + 1800)[..16],
        &iso(start + 7200)[..16],
        &iso(start + 9000)[..16]
    );
    srv.set(json(holes));
    fails(&env.run(&["finops", "carbon", "when", "--duration", "2h", "--within", "30m"]), 1, "gap from");
    fails(
        &Env::new().env("EXAMLOPS_GRID_FORECAST_URL", "ftp://x/y").run(&["finops", "carbon", "when", "--duration", "1h"]),
        2,
        "forecast URL",
    );
}

#[test]
fn a_region_chooses_the_forecasts_zone_on_the_command_line_and_from_the_setting() {
    let t0 = now();
    let hour = t0 - t0.rem_euclid(3600) + 3600;
    let em: Vec<String> = (0..24).map(|k| format!(r#"{{"carbonIntensity":{},"datetime":"{}"}}"#, 100 + k, iso(hour + k * 3600))).collect();
    let srv = Server::start(json(format!(r#"{{"zone":"FR","forecast":[{}]}}"#, em.join(","))));
    let url = srv.url("/v3/carbon-intensity/forecast?zone={zone}");
    let asked = |n: usize| srv.requests()[n].lines().next().unwrap_or_default().to_string();
    // --region: a country's zone is its code.
    let env = Env::new().env("EXAMLOPS_GRID_FORECAST_URL", &url);
    let w = env.json::<Value>(&["finops", "carbon", "when", "--duration", "1h", "--region", "fra"]);
    assert_eq!((w["forecast"]["zone"].as_str(), w["forecast"]["zone_from"].as_str()), (Some("FR"), Some("region FR (asked)")), "{w}");
    assert!(asked(0).contains("zone=FR"), "{}", asked(0));
    // MCP's finops_when takes the same region.
    let out = crate::mcp::stdio(&env, serde_json::json!([{"name": "finops_when", "arguments": {"duration": "1h", "region": "FR"}}]));
    assert_eq!(out["results"][0]["structured"]["forecast"]["zone_from"], "region FR (asked)", "{out}");
    let env = Env::new().env("EXAMLOPS_GRID_FORECAST_URL", &url);
    // A cloud region outside the US: its country's zone; and --region wins over a zone set.
    let env = env.env("EXAMLOPS_GRID_INTENSITY_ZONE", "DE");
    let w = env.json::<Value>(&["finops", "carbon", "when", "--duration", "1h", "--region", "gcp:europe-west9"]);
    assert_eq!(w["forecast"]["zone_from"], "region gcp:europe-west9 (asked), its country FR", "{w}");
    assert!(asked(2).contains("zone=FR"), "{}", asked(2));
    // The zone set, with no --region: that zone, said so.
    let w = env.json::<Value>(&["finops", "carbon", "when", "--duration", "1h"]);
    assert_eq!((w["forecast"]["zone"].as_str(), w["forecast"]["zone_from"].as_str()), (Some("DE"), Some("zone (env)")));
    // The region setting, with no zone set: its grid's zone.
    let env = Env::new().env("EXAMLOPS_GRID_FORECAST_URL", &url).env("EXAMLOPS_GRID_REGION", "azure:westeurope");
    let w = env.json::<Value>(&["finops", "carbon", "when", "--duration", "1h"]);
    assert_eq!(
        (w["forecast"]["zone"].as_str(), w["forecast"]["zone_from"].as_str()),
        (Some("NL"), Some("region azure:westeurope (env), its country NL"))
    );
    // A forecast URL that names its own grid (WattTime's region=, say) is read as it is, whatever region is set.
    let own =
        Env::new().env("EXAMLOPS_GRID_FORECAST_URL", &srv.url("/v3/forecast?region=CAISO_NORTH")).env("EXAMLOPS_GRID_REGION", "US-CA");
    let w = own.json::<Value>(&["finops", "carbon", "when", "--duration", "1h"]);
    assert_eq!((w["forecast"].get("zone"), w["forecast"].get("zone_from")), (Some(&Value::Null), Some(&Value::Null)), "{w}");
    // A US grid has no zone exa can name; an unknown region is malformed input. Neither asks the server.
    let before = srv.requests().len();
    fails(
        &env.run(&["finops", "carbon", "when", "--duration", "1h", "--region", "aws:us-east-1"]),
        1,
        "no forecast zone is known for region aws:us-east-1",
    );
    fails(
        &env.run(&["finops", "carbon", "when", "--duration", "1h", "--region", "atlantis"]),
        2,
        "--region: no grid intensity is known for region 'atlantis'",
    );
    assert_eq!(srv.requests().len(), before);
}
