//! grid-live against real HTTP servers on loopback.

use std::time::{Duration, Instant};

use crate::common::{close, stderr, stdout, Env};
use crate::contract::Estimate;
use crate::http::{Answer, Server};

fn json(body: &str) -> Answer {
    Answer::Body(200, "application/json", body.to_string())
}

fn live(env: &Env, extra: &[&str]) -> (Estimate, String) {
    let mut args = vec!["-o", "json", "finops", "carbon", "estimate", "--gpu-hours", "12", "--provider", "grid-live"];
    args.extend_from_slice(extra);
    let out = env.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    (crate::common::answer(&args, &out), stderr(&out))
}

const EM: &str = r#"{"zone":"FR","carbonIntensity":58.77,"datetime":"2026-11-30T05:00:00.000Z","updatedAt":"2026-11-30T05:10:00.000Z","emissionFactorType":"lifecycle"}"#;

#[test]
fn electricity_maps_with_zone_in_the_path() {
    let srv = Server::start(json(EM));
    let env = Env::new()
        .env("EXAMLOPS_GRID_INTENSITY_URL", &srv.url("/v3/{zone}/carbon-intensity/latest"))
        .env("EXAMLOPS_GRID_INTENSITY_ZONE", "FR");
    let (e, err) = live(&env, &[]);
    assert!(err.is_empty(), "no warning on success: {err}");
    let g = e.grid.unwrap();
    assert_eq!((g.origin.as_str(), g.value, g.zone.as_deref()), ("live", 58.77, Some("FR")));
    assert_eq!(g.reading_time.as_deref(), Some("2026-11-30T05:00:00.000Z"));
    assert!(g.detail.unwrap().contains("lifecycle"));
    assert_eq!(e.coefficients["grid_intensity_g_per_kwh"].source, "live");
    close(e.outputs["co2e_g"], 7.2 * 58.77);
    assert_eq!(e.provider.uncertainty, Some(0.2));
    assert!(srv.requests()[0].starts_with("GET /v3/FR/carbon-intensity/latest HTTP/1.1"), "{:?}", srv.requests());
}

#[test]
fn zone_is_appended_when_the_url_has_no_placeholder() {
    let srv = Server::start(json(r#"{"intensity": 120}"#));
    let env = Env::new().env("EXAMLOPS_GRID_INTENSITY_URL", &srv.url("/latest")).env("EXAMLOPS_GRID_INTENSITY_ZONE", "DE");
    live(&env, &[]);
    let env = Env::new().env("EXAMLOPS_GRID_INTENSITY_URL", &srv.url("/latest?fmt=json")).env("EXAMLOPS_GRID_INTENSITY_ZONE", "GB-North");
    live(&env, &[]);
    let reqs = srv.requests();
    assert!(reqs[0].starts_with("GET /latest?zone=DE "), "{}", reqs[0]);
    assert!(reqs[1].starts_with("GET /latest?fmt=json&zone=GB-North "), "{}", reqs[1]);
}

#[test]
fn uk_carbon_intensity_uses_forecast_when_actual_is_null_and_says_so() {
    let srv = Server::start(json(
        r#"{"data":[{"from":"2018-01-20T12:00Z","to":"2018-01-20T12:30Z","intensity":{"forecast":266,"actual":null,"index":"moderate"}}]}"#,
    ));
    let env = Env::new().env("EXAMLOPS_GRID_INTENSITY_URL", &srv.url("/intensity"));
    let (e, _) = live(&env, &[]);
    let g = e.grid.unwrap();
    assert_eq!(g.value, 266.0);
    assert!(g.detail.unwrap().contains("forecast"));
    assert_eq!(g.reading_time.as_deref(), Some("2018-01-20T12:00Z"));
}

#[test]
fn watttime_pounds_per_mwh_are_converted_and_signal_index_is_refused() {
    let srv =
        Server::start(json(r#"{"data":[{"point_time":"2026-11-30T05:00:00+00:00","value":1000}],"meta":{"units":"lbs_co2_per_mwh"}}"#));
    let env = Env::new().env("EXAMLOPS_GRID_INTENSITY_URL", &srv.url("/v3/forecast"));
    let (e, _) = live(&env, &[]);
    close(e.grid.unwrap().value, 453.592);
    let srv = Server::start(json(r#"{"data":[{"point_time":"2026-11-30T05:00:00+00:00","value":77}],"meta":{"units":"percentile"}}"#));
    let env = Env::new().env("EXAMLOPS_GRID_INTENSITY_URL", &srv.url("/v3/signal-index"));
    let (e, err) = live(&env, &[]);
    assert_eq!(e.grid.unwrap().origin, "default");
    assert!(err.contains("percentile"), "{err}");
}

#[test]
fn generic_value_nested_one_level() {
    let srv = Server::start(json(r#"{"result": {"value": 42.5, "timestamp": "t0"}}"#));
    let env = Env::new().env("EXAMLOPS_GRID_INTENSITY_URL", &srv.url("/x"));
    let (e, _) = live(&env, &[]);
    let g = e.grid.unwrap();
    assert_eq!((g.value, g.reading_time.as_deref()), (42.5, Some("t0")));
}

#[test]
fn bearer_token_is_sent_and_never_shown() {
    let srv = Server::start(Answer::Body(500, "text/plain", "boom".into()));
    let env = Env::new()
        .env("EXAMLOPS_GRID_INTENSITY_URL", &srv.url("/ci?auth-token=urlsecret42"))
        .env("EXAMLOPS_GRID_INTENSITY_TOKEN", "s3cr3t-bearer");
    let mut seen = String::new();
    for answer in [Answer::Body(500, "text/plain", "boom".into()), json(EM)] {
        srv.set(answer);
        for args in [&["-o", "json"][..], &[][..]] {
            let mut all = args.to_vec();
            all.extend(["finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", "grid-live"]);
            let out = env.run(&all);
            seen.push_str(&stdout(&out));
            seen.push_str(&stderr(&out));
        }
    }
    assert!(srv.requests().iter().all(|r| r.to_ascii_lowercase().contains("authorization: bearer s3cr3t-bearer")), "{:?}", srv.requests());
    assert!(seen.contains("auth-token=REDACTED"), "{seen}");
    for dir in ["cache", "config", "data"] {
        for f in walk(&env.dir.path().join(dir)) {
            seen.push_str(&String::from_utf8_lossy(&std::fs::read(f).unwrap()));
        }
    }
    assert!(!seen.contains("s3cr3t-bearer") && !seen.contains("urlsecret42"), "a secret leaked: {seen}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_reading_is_cached_for_five_minutes() {
    let srv = Server::start(json(EM));
    let env = Env::new().env("EXAMLOPS_GRID_INTENSITY_URL", &srv.url("/latest")).env("EXAMLOPS_GRID_INTENSITY_ZONE", "FR");
    let (first, _) = live(&env, &[]);
    assert_eq!(first.grid.unwrap().origin, "live");
    let (second, _) = live(&env, &[]);
    let g = second.grid.unwrap();
    assert_eq!((g.origin.as_str(), g.value), ("cache", 58.77));
    assert!(g.age_s.unwrap() < 60);
    assert_eq!(srv.requests().len(), 1, "the second run made no request");
    // Age the cache entry past the window: the next run asks again.
    let files = walk(&env.dir.path().join("cache"));
    assert_eq!(files.len(), 1, "{files:?}");
    let mut entry: serde_json::Value = serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    entry["fetched_at"] = (entry["fetched_at"].as_u64().unwrap() - 301).into();
    std::fs::write(&files[0], entry.to_string()).unwrap();
    let (third, _) = live(&env, &[]);
    assert_eq!(third.grid.unwrap().origin, "live");
    assert_eq!(srv.requests().len(), 2);
    // Another zone is another key.
    let env2 = Env::new().env("EXAMLOPS_GRID_INTENSITY_URL", &srv.url("/latest")).env("EXAMLOPS_GRID_INTENSITY_ZONE", "DE");
    live(&env2, &[]);
    assert_eq!(srv.requests().len(), 3);
}

#[test]
fn every_failure_degrades_to_the_default_with_a_warning() {
    let refused = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let cases: Vec<(&str, Option<Answer>, &str)> = vec![
        ("refused", None, "cannot connect"),
        ("silent", Some(Answer::Silence), "no answer within 1.0 s"),
        ("500", Some(Answer::Body(500, "text/plain", "boom".into())), "500"),
        ("html", Some(Answer::Body(200, "text/html", "<html><body>hi</body></html>".into())), "not JSON"),
        ("negative", Some(json(r#"{"carbonIntensity": -5}"#)), "not a positive number"),
        ("no reading", Some(json(r#"{"status": "ok"}"#)), "no carbonIntensity"),
        ("50 MB", Some(Answer::Huge(50 * 1024 * 1024)), "larger than"),
    ];
    for (name, answer, why) in cases {
        let srv = answer.map(Server::start);
        let url = srv.as_ref().map_or_else(|| format!("http://127.0.0.1:{refused}/x"), |s| s.url("/x"));
        let env = Env::new().env("EXAMLOPS_GRID_INTENSITY_URL", &url);
        env.config("finops:\n  carbon:\n    grid:\n      timeout_s: 1\n");
        let started = Instant::now();
        let (e, err) = live(&env, &[]);
        assert!(started.elapsed() < Duration::from_secs(10), "{name}: took {:?}", started.elapsed());
        let g = e.grid.unwrap();
        assert_eq!((g.origin.as_str(), g.value), ("default", 300.0), "{name}");
        assert_eq!(e.coefficients["grid_intensity_g_per_kwh"].source, "default");
        close(e.outputs["co2e_g"], 2160.0);
        assert_eq!(err.lines().count(), 1, "{name}: one warning line: {err}");
        assert!(err.starts_with("warning: grid-live:") && err.contains(why), "{name}: {err}");
        assert!(walk(&env.dir.path().join("cache")).is_empty(), "{name}: a failure is not cached");
    }
}

#[test]
fn a_failure_is_not_cached() {
    let srv = Server::start(Answer::Body(503, "text/plain", "later".into()));
    let env = Env::new().env("EXAMLOPS_GRID_INTENSITY_URL", &srv.url("/x"));
    let (e, _) = live(&env, &[]);
    assert_eq!(e.grid.unwrap().origin, "default");
    srv.set(json(r#"{"carbonIntensity": 99}"#));
    let (e, _) = live(&env, &[]);
    let g = e.grid.unwrap();
    assert_eq!((g.origin.as_str(), g.value), ("live", 99.0));
}

#[test]
fn an_explicit_intensity_wins_and_no_request_is_made() {
    let srv = Server::start(json(EM));
    let env = Env::new().env("EXAMLOPS_GRID_INTENSITY_URL", &srv.url("/x"));
    let (e, err) = live(&env, &["--grid-intensity", "100"]);
    assert!(err.is_empty(), "{err}");
    assert_eq!(e.grid.unwrap().origin, "explicit");
    close(e.outputs["co2e_g"], 720.0);
    env.config("finops:\n  carbon:\n    coefficients: {grid_intensity_g_per_kwh: 50}\n");
    let (e, _) = live(&env, &[]);
    assert_eq!(e.grid.unwrap().origin, "explicit");
    assert_eq!(e.coefficients["grid_intensity_g_per_kwh"].source, "config");
    assert!(srv.requests().is_empty());
}

#[test]
fn endpoint_from_the_config_file_and_env_wins() {
    let from_file = Server::start(json(r#"{"carbonIntensity": 11}"#));
    let from_env = Server::start(json(r#"{"carbonIntensity": 22}"#));
    let env = Env::new();
    env.config(&format!("finops:\n  carbon:\n    grid:\n      url: \"{}\"\n      zone: SE\n", from_file.url("/{zone}")));
    let (e, _) = live(&env, &[]);
    assert_eq!(e.grid.as_ref().unwrap().value, 11.0);
    assert!(from_file.requests()[0].starts_with("GET /SE "));
    let env = env.env("EXAMLOPS_GRID_INTENSITY_URL", &from_env.url("/{zone}"));
    let (e, _) = live(&env, &[]);
    let g = e.grid.unwrap();
    assert_eq!(g.value, 22.0);
    assert_eq!(g.url.unwrap(), from_env.url("/SE"));
}

#[test]
fn no_endpoint_warns_once_and_succeeds() {
    let (e, err) = live(&Env::new(), &[]);
    assert_eq!(e.grid.unwrap().origin, "default");
    assert_eq!(err.lines().count(), 1);
    assert!(err.contains("EXAMLOPS_GRID_INTENSITY_URL"));
}

#[test]
fn a_redirect_to_another_host_is_not_followed_and_the_key_stays_home() {
    // Electricity Maps' key rides in its own header, which an HTTP client does not drop on a redirect the
    // way it drops Authorization: exa follows no redirect off the origin it was given.
    let elsewhere = Server::start(json(EM));
    let srv =
        Server::start(Answer::WithHeader(302, Box::leak(format!("Location: {}", elsewhere.url("/steal")).into_boxed_str()), String::new()));
    let env = Env::new()
        .env("EXAMLOPS_GRID_INTENSITY_URL", &srv.url("/v3/carbon-intensity/latest"))
        .env("EXAMLOPS_GRID_INTENSITY_API", "electricitymaps")
        .env("EXAMLOPS_GRID_INTENSITY_TOKEN", "sekret-key");
    let (e, err) = live(&env, &[]);
    assert_eq!(e.grid.unwrap().origin, "default", "the reading was not taken from the other host");
    assert!(err.contains("another host"), "{err}");
    assert!(elsewhere.requests().is_empty(), "the other host got {:?}", elsewhere.requests());
    assert!(!err.contains("sekret"));
    // A redirect within the same origin is followed.
    srv.set(Answer::WithHeader(302, Box::leak(format!("Location: {}", srv.url("/moved")).into_boxed_str()), String::new()));
    let (_, err) = live(&env, &[]);
    assert!(srv.requests().iter().any(|r| r.starts_with("GET /moved ")), "{:?} {err}", srv.requests());
}
