//! Per unit of work: the hardware's embodied carbon and the water beside every carbon figure, the work a
//! run did kept on its records, and reports per token, request, run or unit with SCI's terms.

use serde_json::Value;

use crate::common::{close, fails, stderr, Env};
use crate::pg::PgServer;

/// CCF's example server (2 sockets, 1 TB, 8 GPUs: 3699.125 kg over 4 years of 8760 h), per GPU-hour.
const CCF_G_PER_GPU_HOUR: f64 = 3699.125 * 1000.0 / (4.0 * 8760.0) / 8.0;

#[test]
fn a_carbon_estimate_carries_the_embodied_carbon_beside_its_own_figure() {
    let env = Env::new();
    let v: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "12"]);
    let out = &v["outputs"];
    close(out["embodied_co2e_g"].as_f64().unwrap(), 12.0 * CCF_G_PER_GPU_HOUR);
    // The provider's figure is what the provider computed: 12 h x 400 W x 1.5 x 300 g/kWh, embodied not in it.
    close(out["co2e_g"].as_f64().unwrap(), 12.0 * 0.4 * 1.5 * 300.0);
    let band = v["range"]["embodied_co2e_g"].as_array().unwrap();
    close(band[0].as_f64().unwrap(), 12.0 * CCF_G_PER_GPU_HOUR * 0.5);
    close(band[1].as_f64().unwrap(), 12.0 * CCF_G_PER_GPU_HOUR * 1.5);
    // Every term is a coefficient with its source; the defaults say where they come from.
    assert_eq!(v["coefficients"]["embodied_host_kg"]["source"], "default");
    assert!(v["footprint"]["defaults"]["embodied_gpu_kg"].as_str().unwrap().contains("GPU_MANUFACTURING_EMISSIONS"), "{v}");
    assert!(v["footprint"]["method"].as_str().unwrap().contains("never added"), "{v}");
    assert!(out.get("water_l").is_none(), "no water until a WUE is set: {out}");
    // A cost estimate has none of it.
    let cost: Value = env.json(&["finops", "cost", "estimate", "--gpu-hours", "12"]);
    assert!(cost["outputs"].get("embodied_co2e_g").is_none() && cost.get("footprint").is_none(), "{cost}");
}

#[test]
fn the_sci_specifications_example_and_a_sites_water() {
    let env = Env::new();
    // SCI's own: 1000 kg over 4 years, the machine reserved for an hour (all its cores): about 28 g.
    let v: Value =
        env.json(&["finops", "carbon", "estimate", "--cpu-hours", "1", "--set", "embodied_host_kg=1000", "--set", "embodied_node_cores=1"]);
    close(v["outputs"]["embodied_co2e_g"].as_f64().unwrap(), 1_000_000.0 / 35_040.0);
    assert_eq!(v["coefficients"]["embodied_host_kg"]["source"], "flag");
    // Water from the config: the IT energy (kWh / PUE) at the site's WUE, plus the grid's water.
    env.config("finops:\n  carbon:\n    coefficients:\n      wue_l_per_kwh: 1.8\n      grid_water_l_per_kwh: 2.0\n");
    let v: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "10"]);
    let kwh = v["outputs"]["kwh"].as_f64().unwrap();
    close(kwh, 6.0);
    close(v["outputs"]["water_l"].as_f64().unwrap(), kwh / 1.5 * 1.8 + kwh * 2.0);
    assert_eq!(v["coefficients"]["wue_l_per_kwh"]["source"], "config");
    let notes = v["notes"].as_array().unwrap();
    assert!(notes.iter().all(|n| !n.as_str().unwrap().contains("wue")), "exa's own terms are not 'unused': {notes:?}");
}

#[test]
fn a_term_out_of_bounds_or_a_unit_that_is_not_a_name_is_refused() {
    let env = Env::new();
    let o = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--set", "embodied_lifetime_years=0"]);
    fails(&o, 2, "embodied_lifetime_years");
    let o = env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1", "--unit", "Images=3"]);
    fails(&o, 2, "lowercase");
    let o = env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1", "--unit", "tokens=3"]);
    fails(&o, 2, "--tokens");
    let o = env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1", "--tokens", "-5"]);
    fails(&o, 2, "negative");
    assert!(!env.dir.path().join("data").exists() || std::fs::read_dir(env.dir.path().join("data")).unwrap().count() == 0);
    let o = env.run(&["report", "--per", "Bad Unit"]);
    fails(&o, 2, "unit");
}

/// Records the SCI-for-AI specification's LLM example: 5000 kg operational and 1500 kg embodied over
/// 50 billion tokens, in two runs (a carbon and a cost record each, the tokens on both), and a third run
/// without a token count.
fn sci_for_ai(env: &Env, db: &str) {
    // One run: 1 GPU-hour at 1 MW, PUE 1, 2500 g/kWh = 1000 kWh, 2.5 t; its embodied 750 kg (a node of
    // 26,280 t, as large as the example needs, held whole for an hour of its 4 years) and 25 billion tokens.
    let carbon = [
        "--gpu-hours",
        "1",
        "--gpu-tdp",
        "1000000",
        "--pue",
        "1",
        "--grid-intensity",
        "2500",
        "--set",
        "embodied_gpu_kg=0",
        "--set",
        "embodied_host_kg=26280000",
        "--set",
        "embodied_node_gpus=1",
    ];
    for run in ["w1", "w2"] {
        let mut args =
            vec!["--db", db, "finops", "carbon", "record", "LLM", "--run-id", run, "--tokens", "25000000000", "--requests", "1000"];
        args.extend_from_slice(&carbon);
        env.json::<Value>(&args);
        env.json::<Value>(&[
            "--db",
            db,
            "finops",
            "cost",
            "record",
            "LLM",
            "--run-id",
            run,
            "--gpu-hours",
            "1",
            "--gpu-rate",
            "4",
            "--tokens",
            "25000000000",
        ]);
    }
    env.json::<Value>(&["--db", db, "finops", "carbon", "record", "LLM", "--run-id", "w3", "--gpu-hours", "5"]);
}

fn per_token(env: &Env, db: &str) -> Value {
    let args: &[&str] = &["-o", "json", "--db", db, "report", "--per", "token"];
    let out = env.run(args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("1 of 3 run(s) have no token count"), "{}", stderr(&out));
    let mut v: Value = crate::common::answer(args, &out);
    v.as_object_mut().unwrap().remove("db");
    v
}

#[test]
fn a_report_per_token_gives_sci_with_its_terms_the_worked_example() {
    let env = Env::new();
    let db = env.dir.path().join("r.sqlite3");
    let db = db.to_str().unwrap();
    sci_for_ai(&env, db);
    let v = per_token(&env, db);
    let p = &v["totals"]["per"];
    assert_eq!(p["unit"], "token");
    close(p["r"].as_f64().unwrap(), 5e10);
    close(p["o_g"].as_f64().unwrap(), 5e6);
    close(p["m_g"].as_f64().unwrap(), 1.5e6);
    close(p["e_kwh"].as_f64().unwrap(), 2000.0);
    close(p["i_g_per_kwh"].as_f64().unwrap(), 2500.0);
    // 130 kgCO2e per billion tokens: 0.13 mg a token.
    close(p["sci_g_per_unit"].as_f64().unwrap(), 1.3e-4);
    close(p["j_per_unit"].as_f64().unwrap(), 2000.0 * 3.6e6 / 5e10);
    close(p["cost_usd_per_unit"].as_f64().unwrap(), 8.0 / 5e10);
    // The run without tokens is left out, and each run's tokens count once (its carbon and cost records).
    assert_eq!(v["totals"]["runs"], 2);
    close(v["totals"]["tokens"].as_f64().unwrap(), 5e10);
    // Per request and per run from the same records.
    let r: Value = env.json(&["--db", db, "report", "--per", "requests"]);
    close(r["totals"]["per"]["r"].as_f64().unwrap(), 2000.0);
    let all: Value = env.json(&["--db", db, "report", "--per", "run"]);
    assert_eq!(all["totals"]["runs"], 3);
    close(all["totals"]["per"]["r"].as_f64().unwrap(), 3.0);
    // The table shows the score.
    let text = env.run(&["--db", db, "report", "--per", "token"]);
    let shown = String::from_utf8_lossy(&text.stdout);
    assert!(shown.contains("gCO2e/token (SCI)") && shown.contains("1.300e-4"), "{shown}");
}

#[test]
fn both_stores_give_the_same_report_per_token() {
    let pg = PgServer::start();
    let env = Env::new();
    let lite = env.dir.path().join("r.sqlite3");
    sci_for_ai(&env, lite.to_str().unwrap());
    let url = pg.database("perunit");
    sci_for_ai(&env, &url);
    assert_eq!(per_token(&env, lite.to_str().unwrap()), per_token(&env, &url));
    let by = |db: &str| {
        let mut v: Value = env.json(&["--db", db, "report", "--by", "run", "--per", "run"]);
        v.as_object_mut().unwrap().remove("db");
        v
    };
    assert_eq!(by(lite.to_str().unwrap()), by(&url));
    // The plain report sums embodied CO2e and tokens in both, from the summary cells.
    let plain = |db: &str| env.json::<Value>(&["--db", db, "report"])["totals"].clone();
    let (a, b) = (plain(lite.to_str().unwrap()), plain(&url));
    assert_eq!(a, b);
    close(a["embodied_co2e_g"].as_f64().unwrap(), 1.5e6 + 5.0 * CCF_G_PER_GPU_HOUR);
    close(a["tokens"].as_f64().unwrap(), 5e10);
}

#[test]
fn a_ledger_from_before_work_was_kept_reads_and_migrates() {
    let env = Env::new();
    let db = env.dir.path().join("old.sqlite3");
    let c = rusqlite::Connection::open(&db).unwrap();
    // A version-7 ledger's one record, as that exa wrote it (its schema made by this exa's first seven steps).
    let schema: Vec<&str> = exa::store::sqlite::MIGRATIONS[..7].to_vec();
    for (i, m) in schema.iter().enumerate() {
        c.execute_batch(m).unwrap();
        c.pragma_update(None, "user_version", i as i64 + 1).unwrap();
    }
    c.execute_batch(
        "INSERT INTO records (model, run_id, recorded_at, host, domain, provider, provider_kind, provider_digest, gpu_hours, cpu_hours,
            kwh, co2e_g, cost_usd, uncertainty, measured, part, idem_key)
         VALUES ('OLD', 'r', 1790000000, 'h', 'carbon', 'green-ai-default', 'builtin', 'd', 2, 0, 1.2, 360, NULL, 0.3, 0, 0, 'k1');
         INSERT INTO record_estimates (record_id, estimate) VALUES (1, '{}');",
    )
    .unwrap();
    drop(c);
    let d = db.to_str().unwrap();
    // Read as it is: no figure it never kept, nothing per token, and the file left at its version.
    let v: Value = env.json(&["--db", d, "report"]);
    assert_eq!(v["totals"]["co2e_g"], 360.0);
    assert!(v["totals"].get("embodied_co2e_g").is_some_and(Value::is_null) && v["totals"].get("tokens").is_some_and(Value::is_null), "{v}");
    let out = env.run(&["-o", "json", "--db", d, "report", "--per", "token"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("1 of 1 run(s) have no token count"), "{}", stderr(&out));
    let version =
        |p: &std::path::Path| rusqlite::Connection::open(p).unwrap().query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0)).unwrap();
    assert_eq!(version(&db), 7);
    let indexes = |p: &std::path::Path| -> Vec<String> {
        let c = rusqlite::Connection::open(p).unwrap();
        let mut q = c
            .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' AND sql IS NOT NULL ORDER BY name")
            .unwrap();
        q.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
    };
    assert!(indexes(&db).contains(&"records_model_time".to_string()), "{:?}", indexes(&db));
    // A writer migrates it; the old record and the new one report together.
    env.json::<Value>(&["--db", d, "finops", "carbon", "record", "OLD", "--run-id", "s", "--gpu-hours", "1", "--tokens", "100"]);
    assert_eq!(version(&db), exa::store::SCHEMA_VERSION);
    // Schema 9 has no index by model and time; from schema 11 the cells' index is by each record's cell's number, and
    // the record kept before has its number.
    assert_eq!(indexes(&db), ["records_cell", "records_idem_key", "records_run", "records_time"]);
    let unnumbered: i64 =
        rusqlite::Connection::open(&db).unwrap().query_row("SELECT count(*) FROM records WHERE cell IS NULL", [], |r| r.get(0)).unwrap();
    assert_eq!(unnumbered, 0);
    let one: Value = env.json(&["--db", d, "report", "OLD", "--since", "2026-09-21T14:00:00Z", "--until", "2026-09-21T15:00:00Z"]);
    assert_eq!((one["totals"]["runs"].as_u64(), one["totals"]["co2e_g"].as_f64()), (Some(1), Some(360.0)), "{one}");
    let v: Value = env.json(&["--db", d, "report"]);
    assert_eq!(v["totals"]["runs"], 2);
    close(v["totals"]["embodied_co2e_g"].as_f64().unwrap(), CCF_G_PER_GPU_HOUR);
    let p: Value = env.json(&["--db", d, "report", "--per", "token"]);
    close(p["totals"]["per"]["co2e_g_per_unit"].as_f64().unwrap(), 180.0 / 100.0);
}

/// The vLLM sample with its counters advanced: `tokens` more output tokens, `prompt` more prompt tokens,
/// `requests` more finished requests (of reason "stop"). Negative amounts take the server back below its
/// start (a restart).
pub fn vllm_advanced(tokens: f64, prompt: f64, requests: f64) -> String {
    let text = std::fs::read_to_string(crate::common::fixtures().join("inference/vllm-metrics.txt")).unwrap();
    let set = |text: &str, prefix: &str, to: f64| -> String {
        text.lines()
            .map(|l| if l.starts_with(prefix) { format!("{} {to}", l.rsplit_once(' ').unwrap().0) } else { l.to_string() })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let text = set(&text, "vllm:generation_tokens_total{", 426_922.0 + tokens);
    let text = set(&text, "vllm:prompt_tokens_total{", 1_376_791.0 + prompt);
    set(&text, "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\"", 1629.0 + requests)
}

/// Measures a job served by the fake server: the job waits for the test to advance the counters (after
/// exa's first scrape), so the increase is known whatever the machine's speed.
fn measure_served(env: &Env, server: &crate::http::Server, end: String, extra: &[&str]) -> (std::process::Output, Value) {
    let go = env.dir.path().join("go");
    let report = env.dir.path().join("report.json");
    let url = server.url("/metrics");
    let mut args = vec!["-o", "json", "finops", "measure", "--report", report.to_str().unwrap(), "--tokens-from", &url];
    args.extend_from_slice(extra);
    let wait = format!("while [ ! -e '{}' ]; do sleep 0.02; done", go.display());
    args.extend_from_slice(&["--", "sh", "-c", &wait]);
    let child = env.cmd().args(&args).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let asked = std::time::Instant::now();
    while server.requests().is_empty() {
        assert!(asked.elapsed() < std::time::Duration::from_secs(60), "exa never read the server");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    server.set(crate::http::Answer::Body(200, "text/plain; version=0.0.4", end));
    std::fs::write(&go, "").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = std::fs::read_to_string(&report).unwrap_or_else(|e| panic!("no report ({e}): {}", stderr(&out)));
    (out, crate::common::checked(&args, text.as_bytes()))
}

#[test]
fn measure_counts_the_tokens_an_inference_server_served_during_the_run() {
    let env = crate::common::fake_smi(Env::new(), crate::telemetry::H100);
    let server = crate::http::Server::start(crate::http::Answer::Body(200, "text/plain", vllm_advanced(0.0, 0.0, 0.0)));
    let (out, v) = measure_served(&env, &server, vllm_advanced(12_345.0, 40_000.0, 17.0), &["--record", "llama", "--run-id", "serve-1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let w = &v["work"];
    assert_eq!((w["source"].as_str(), w["server"].as_str(), w["reset"].as_bool()), (Some("scrape"), Some("vllm"), Some(false)), "{w}");
    assert_eq!((w["tokens"].as_f64(), w["prompt_tokens"].as_f64(), w["requests"].as_f64()), (Some(12_345.0), Some(40_000.0), Some(17.0)));
    let gpu_kwh = v["gpu"]["energy_kwh"].as_f64().unwrap();
    close(w["gpu_j_per_token"].as_f64().unwrap(), gpu_kwh * 3.6e6 / 12_345.0);
    assert_eq!(server.requests().len(), 2, "read at the start and at the end");
    // The records keep the count: a report per token divides by it.
    let r: Value = env.json(&["report", "--per", "token"]);
    close(r["totals"]["per"]["r"].as_f64().unwrap(), 12_345.0);
    close(r["totals"]["tokens"].as_f64().unwrap(), 12_345.0);
}

#[test]
fn a_server_that_restarted_during_the_run_is_counted_from_its_reset_and_said() {
    let env = Env::new();
    let server = crate::http::Server::start(crate::http::Answer::Body(200, "text/plain", vllm_advanced(0.0, 0.0, 0.0)));
    // After the restart the server has served 600 tokens: fewer than at the start.
    let (out, v) = measure_served(&env, &server, vllm_advanced(600.0 - 426_922.0, 0.0, 0.0), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(v["work"]["reset"], true);
    assert_eq!(v["work"]["tokens"], 600.0);
    assert!(stderr(&out).contains("restarted"), "{}", stderr(&out));
}

#[test]
fn a_server_that_cannot_be_read_refuses_the_run_before_it_starts() {
    let env = Env::new();
    let ran = env.dir.path().join("ran");
    let touch = format!("touch '{}'", ran.display());
    for answer in [
        crate::http::Answer::Body(200, "text/plain", "up 1\nprocess_cpu_seconds_total 3\n".into()),
        crate::http::Answer::Body(503, "text/plain", "busy".into()),
    ] {
        let server = crate::http::Server::start(answer);
        let o = env.run(&["finops", "measure", "--tokens-from", &server.url("/metrics"), "--", "sh", "-c", &touch]);
        fails(&o, 1, "--tokens-from");
        assert!(stderr(&o).contains("nothing was run"), "{}", stderr(&o));
        assert!(!ran.exists(), "the command did not run");
    }
    // TGI names no model: a model filter there is refused, not ignored.
    let tgi = std::fs::read_to_string(crate::common::fixtures().join("inference/tgi-metrics.txt")).unwrap();
    let server = crate::http::Server::start(crate::http::Answer::Body(200, "text/plain", tgi));
    let o = env.run(&["finops", "measure", "--tokens-from", &server.url("/metrics"), "--tokens-model", "m", "--", "true"]);
    fails(&o, 1, "model");
    let o = env.run(&["finops", "measure", "--tokens-from", "ftp://x/metrics", "--", "true"]);
    fails(&o, 2, "--tokens-from");
}

/// Runs whose work is on some of their records: a measurement over an estimate, a cost record without
/// tokens, parts of which one counted tokens.
fn mixed_runs(env: &Env, db: &str) {
    let carbon = |args: &[&str]| env.json::<Value>(&[&["--db", db, "finops", "carbon", "record", "M"][..], args].concat());
    // r1: its carbon record counts tokens, its cost record does not: the run counts, cost and all.
    carbon(&["--run-id", "r1", "--gpu-hours", "10", "--tokens", "1000"]);
    env.json::<Value>(&["--db", db, "finops", "cost", "record", "M", "--run-id", "r1", "--gpu-hours", "10"]);
    // r2: two parts, 9 GPU-hours without tokens and 1 with 1000: the whole run counts, its 1000 tokens.
    carbon(&["--run-id", "r2", "--part", "--gpu-hours", "9"]);
    carbon(&["--run-id", "r2", "--part", "--gpu-hours", "1", "--tokens", "1000"]);
    // r3: an estimate of CPU work with tokens, then a measurement of that CPU work without them: what counts (the
    // measurement, which holds every kind of work the estimate does) has no tokens.
    carbon(&["--run-id", "r3", "--cpu-hours", "1", "--tokens", "100"]);
    let measure = ["--db", db, "finops", "measure", "--gpus", "none", "--record", "M", "--run-id", "r3", "--cpus", "1", "--duration", "1s"];
    let measured = env.run(&measure);
    assert!(measured.status.success(), "{}", stderr(&measured));
}

#[test]
fn a_report_per_token_counts_runs_by_the_rule_not_records() {
    let pg = PgServer::start();
    let env = Env::new();
    let lite = env.dir.path().join("m.sqlite3");
    let url = pg.database("mixed");
    for db in [lite.to_str().unwrap(), url.as_str()] {
        mixed_runs(&env, db);
        let args: &[&str] = &["-o", "json", "--db", db, "report", "--per", "token", "--by", "run"];
        let out = env.run(args);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stderr(&out).contains("1 of 3 run(s) have no token count"), "r3's measurement has none: {}", stderr(&out));
        let v: Value = crate::common::answer(args, &out);
        let run = |id: &str| v["groups"].as_array().unwrap().iter().find(|g| g["key"] == id).cloned();
        let r1 = run("r1").expect("r1 counts");
        close(r1["cost_usd"].as_f64().unwrap(), 25.0);
        close(r1["per"]["cost_usd_per_unit"].as_f64().unwrap(), 25.0 / 1000.0);
        let r2 = run("r2").expect("r2 counts");
        assert_eq!(r2["gpu_hours"], 10.0, "both parts: {r2}");
        close(r2["per"]["co2e_g_per_unit"].as_f64().unwrap(), 10.0 * 0.4 * 1.5 * 300.0 / 1000.0);
        assert!(run("r3").is_none(), "{v}");
        assert_eq!(v["totals"]["runs"], 2);
        assert_eq!(v["filter"]["per"], "token");
    }
    let strip = |db: &str| {
        let mut v: Value = env.json(&["--db", db, "report", "--per", "token"]);
        v.as_object_mut().unwrap().remove("db");
        v
    };
    assert_eq!(strip(lite.to_str().unwrap()), strip(&url), "both stores alike");
    // The CSV carries the figures per unit after each row's, and the node's last (the per unit's places kept).
    let csv = env.run(&["-o", "csv", "--db", lite.to_str().unwrap(), "report", "--per", "token"]);
    let text = String::from_utf8_lossy(&csv.stdout);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .ends_with(",per,r,sci_g_per_unit,co2e_g_per_unit,embodied_g_per_unit,kwh_per_unit,j_per_unit,cost_usd_per_unit,node_kwh,node_rest_kwh,coverage_pct"),
        "{text}"
    );
    assert!(text.lines().nth(1).unwrap().contains(",token,2000,"), "{text}");
}

#[test]
fn a_provider_that_takes_exas_own_names_is_refused_and_counts_are_bounded() {
    let env = Env::new();
    let provider = env.file(
        "k.yaml",
        "name: k\ndomain: carbon\nuncertainty: 0.1\nmethodology: a name that clashes\nformulas:\n  kwh: gpu_hours * 0.4\n  co2e_g: kwh * embodied_gpu_kg\ncoefficients:\n  embodied_gpu_kg: {default: 100, unit: g/kWh, description: a clash}\n",
    );
    let o = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", provider.to_str().unwrap(), "--strict"]);
    assert_ne!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("'embodied_gpu_kg', a name exa keeps"), "{}", stderr(&o));
    let o = env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1", "--tokens", "1e16"]);
    fails(&o, 2, "not one run's work");
    let o = env.run(&["finops", "carbon", "record", "M", "--gpu-hours", "1", "--unit", "pages=1e300"]);
    fails(&o, 2, "not one run's work");
}

#[test]
fn a_gpu_from_exas_table_gives_its_published_figure() {
    let env = Env::new();
    // Chien et al.'s 318 kg per A100 holds its host's share: no host term for its GPU-hours.
    env.config("finops:\n  carbon:\n    embodied_gpu: a100-with-host\n");
    let v: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "10"]);
    close(v["outputs"]["embodied_co2e_g"].as_f64().unwrap(), 10.0 * 318_000.0 / 35_040.0);
    assert_eq!(v["footprint"]["gpu"], "a100-with-host");
    assert!(v["footprint"]["defaults"]["embodied_gpu_kg"].as_str().unwrap().contains("Chien"), "{v}");
    assert_eq!(v["coefficients"]["embodied_host_kg"]["value"], 0.0);
    // The card alone, with the host counted as for any GPU; a value set still wins.
    env.config("finops:\n  carbon:\n    embodied_gpu: a100-pcie-40gb\n    coefficients:\n      embodied_host_kg: 0\n");
    let v: Value = env.json(&["finops", "carbon", "estimate", "--gpu-hours", "10"]);
    close(v["outputs"]["embodied_co2e_g"].as_f64().unwrap(), 10.0 * 181_000.0 / 35_040.0);
    assert_eq!(v["coefficients"]["embodied_host_kg"]["source"], "config");
    env.config("finops:\n  carbon:\n    embodied_gpu: h100\n");
    let o = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1"]);
    fails(&o, 2, "not in exa's table (generic, a100-pcie-40gb, a100-with-host)");
}

#[test]
fn a_figure_per_token_divides_by_the_tokens_of_the_runs_that_have_it_in_both_stores() {
    // Run a: carbon and cost, 1,000 tokens; run b: carbon alone, 9,000 tokens. Cost per token is a's cost over
    // a's tokens (not over 10,000), CO2e per token both runs' CO2e over both runs' tokens.
    let pg = PgServer::start();
    let env = Env::new();
    let lite = env.dir.path().join("r.sqlite3");
    let url = pg.database("perdomain");
    for db in [lite.to_str().unwrap(), url.as_str()] {
        for (domain, run, tokens) in [("carbon", "a", "1000"), ("cost", "a", "1000"), ("carbon", "b", "9000")] {
            let out = env.run(&["--db", db, "finops", domain, "record", "M", "--gpu-hours", "1", "--run-id", run, "--tokens", tokens]);
            assert_eq!(out.status.code(), Some(0), "{}", crate::common::stderr(&out));
        }
    }
    let per = |db: &str| env.json::<Value>(&["--db", db, "report", "--per", "token"])["totals"].clone();
    let (a, b) = (per(lite.to_str().unwrap()), per(&url));
    let cost = a["cost_usd"].as_f64().unwrap();
    close(a["per"]["cost_usd_per_unit"].as_f64().unwrap(), cost / 1000.0);
    close(a["per"]["co2e_g_per_unit"].as_f64().unwrap(), a["co2e_g"].as_f64().unwrap() / 10_000.0);
    assert_eq!(a["per"], b["per"], "both stores alike");
}
