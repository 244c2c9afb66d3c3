//! The grid's intensity by the hour: a measured run and imported jobs priced
//! at the history over their own time, against a server on loopback
//! answering the providers' documented history shapes.

use serde_json::Value;

use crate::common::{fake_smi, stderr, Env};
use crate::http::{iso, json, now, Answer, Server};

const H100: &str = "nvsmi-query-gpu-csv__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.csv";

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn a_measured_run_is_priced_at_the_intensity_of_the_seconds_it_ran() {
    // Electricity Maps past-range, a reading a second from two minutes ago to ten minutes on: 100 and 500 by turns.
    let t0 = now();
    let points: Vec<String> = (t0 - 120..t0 + 600)
        .map(|t| {
            format!(
                r#"{{"zone":"DE","carbonIntensity":{},"datetime":"{}","isEstimated":false}}"#,
                if t % 2 == 0 { 100 } else { 500 },
                iso(t)
            )
        })
        .collect();
    let srv = Server::start(json(format!(r#"{{"zone":"DE","data":[{}]}}"#, points.join(","))));
    let url = srv.url("/v3/carbon-intensity/past-range?zone={zone}&start={from}&end={to}");
    let env = fake_smi(Env::new(), H100).env("EXAMLOPS_GRID_HISTORY_URL", &url).env("EXAMLOPS_GRID_INTENSITY_ZONE", "DE");
    let (out, r) = crate::common::measure(&env, &["--interval", "0.2"], &["sleep", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let c = &r["carbon"];
    let h = &c["grid"]["history"];
    assert_eq!(c["grid"]["origin"], "history", "{c}");
    let mean = f(&h["time_weighted_g_per_kwh"]);
    assert!(mean > 100.0 && mean < 500.0, "a run of two seconds and more weighs both: {h}");
    assert_eq!(c["coefficients"]["grid_intensity_g_per_kwh"]["value"], h["time_weighted_g_per_kwh"]);
    assert_eq!(c["coefficients"]["grid_intensity_g_per_kwh"]["source"], "history");
    assert_eq!(h["weighted_by"].as_str().unwrap().split(" (").next(), Some("GPU energy per minute"), "{h}");
    assert_eq!(h["end_of_run_from"], "history");
    let end = f(&h["end_of_run_g_per_kwh"]);
    assert!(end == 100.0 || end == 500.0, "{h}");
    assert!((f(&h["difference_pct"]) - (mean - end) / end * 100.0).abs() < 1e-6, "{h}");
    assert_eq!((h["gap_share"].as_f64(), h["gaps"].as_array().map(Vec::len)), (Some(0.0), Some(0)));
    assert!(h["readings"].as_u64().unwrap() >= 2, "{h}");
    // The energy (the measured GPUs', the CPU-hours', the PUE) is priced at the weighted intensity.
    assert!((f(&c["outputs"]["co2e_g"]) - f(&c["outputs"]["kwh"]) * mean).abs() <= 1e-6 * f(&c["outputs"]["co2e_g"]), "{c}");
    // One request per UTC day the run touched, from the day's start, the zone in its place.
    let asked = srv.requests();
    assert_eq!(asked.len(), h["requests"].as_u64().unwrap() as usize);
    let day = &r["started_at"].as_str().unwrap()[..10];
    assert!(asked[0].contains(&format!("zone=DE&start={day}T00:00Z&end=")), "{}", asked[0]);
}

#[test]
fn a_history_that_cannot_be_read_leaves_the_estimate_as_it_was_and_says_so() {
    let srv = Server::start(Answer::Body(503, "text/plain", "down".into()));
    let env = fake_smi(Env::new(), H100).env("EXAMLOPS_GRID_HISTORY_URL", &srv.url("/intensity/{from}/{to}"));
    let (out, r) = crate::common::measure(&env, &["--interval", "0.2"], &["true"]);
    assert_eq!(out.status.code(), Some(0), "the run was measured: {}", stderr(&out));
    assert!(stderr(&out).contains("the grid history") && stderr(&out).contains("503"), "{}", stderr(&out));
    let c = &r["carbon"];
    assert_eq!(c["coefficients"]["grid_intensity_g_per_kwh"]["source"], "default", "{c}");
    assert!(c["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("503")), "{}", c["notes"]);
    // A history URL that cannot say the window is refused when it is read, by name.
    let bad = Env::new().env("EXAMLOPS_GRID_HISTORY_URL", "https://api.example/history");
    let out = bad.run(&["import", "slurm", "--file", "/dev/null", "--cluster", "c1", "--grid-history"]);
    assert_eq!(out.status.code(), Some(2), "a setting at fault: {}", stderr(&out));
    assert!(stderr(&out).contains("has no {from} and {to}"), "{}", stderr(&out));
    let out = Env::new().run(&["import", "slurm", "--file", "/dev/null", "--cluster", "c1", "--grid-history"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no history endpoint is configured"), "{}", stderr(&out));
}

const HEADER: &str = "JobID|JobIDRaw|JobName|User|Account|Partition|Cluster|State|Start|End|ElapsedRaw|NCPUS|CPUTimeRAW|AllocTRES";

/// The UK API's half-hours: 2026-11-01 09:00 to 13:00 at 100, 200, … with 11:30 missing, and 2026-11-03 08:00
/// to 10:00 at 250 (one body for both days, as a server covering the window would answer).
fn uk_history() -> String {
    let mut points = Vec::new();
    for k in 0..8 {
        if k == 5 {
            continue;
        }
        let (h, m) = (9 + k / 2, if k % 2 == 0 { "00" } else { "30" });
        let (h2, m2) = if k % 2 == 0 { (h, "30") } else { (h + 1, "00") };
        points.push(format!(
            r#"{{"from":"2026-11-01T{h:02}:{m}Z","to":"2026-11-01T{h2:02}:{m2}Z","intensity":{{"forecast":1,"actual":{},"index":"low"}}}}"#,
            (k + 1) * 100
        ));
    }
    for (from, to) in [("08:00", "08:30"), ("08:30", "09:00"), ("09:00", "09:30"), ("09:30", "10:00")] {
        points.push(format!(
            r#"{{"from":"2026-11-03T{from}Z","to":"2026-11-03T{to}Z","intensity":{{"forecast":250,"actual":null,"index":"low"}}}}"#
        ));
    }
    format!(r#"{{"data":[{}]}}"#, points.join(","))
}

#[test]
fn imported_jobs_are_priced_over_their_own_hours_with_one_request_a_day() {
    let srv = Server::start(json(uk_history()));
    let env = Env::new().env("TZ", "UTC").env("EXAMLOPS_GRID_HISTORY_URL", &srv.url("/intensity/{from}/{to}"));
    let file = env.file(
        "sacct.txt",
        &format!(
            "{HEADER}\n\
             1|1|a|u1|acc|gpu|c1|COMPLETED|2026-11-01T10:00:00|2026-11-01T12:00:00|7200|4|28800|cpu=4,gres/gpu=1,node=1\n\
             2|2|b|u1|acc|gpu|c1|COMPLETED|2026-11-01T11:00:00|2026-11-01T11:30:00|1800|4|7200|cpu=4,gres/gpu=2,node=1\n\
             3|3|c|u2|acc|gpu|c1|COMPLETED|2026-11-03T08:30:00|2026-11-03T09:30:00|3600|4|14400|cpu=4,gres/gpu=1,node=1\n"
        ),
    );
    let path = file.to_str().unwrap();
    let dry = env.json::<Value>(&["import", "slurm", "--file", path, "--dry-run", "--grid-history"]);
    let h = &dry["grid_history"];
    assert_eq!((h["days"].as_u64(), h["requests"].as_u64(), h["jobs_weighed"].as_u64()), (Some(2), Some(2), Some(3)), "{dry}");
    assert_eq!(h["shape"], "uk");
    assert_eq!(srv.requests().len(), 2, "one request per day, not per job");
    assert!(srv.requests()[0].starts_with("GET /intensity/2026-11-01T00:00Z/2026-11-02T00:00Z "), "{}", srv.requests()[0]);
    // Job 1 spans 10:00 to 12:00: 300, 400, 500, then the missing half-hour split between 500 and 700: 450.
    // Job 2 is the 11:00 half-hour: 500. Job 3 is two of the 250 forecasts.
    let plain = env.json::<Value>(&["import", "slurm", "--file", path, "--dry-run"]);
    let co2e = |v: &Value, id: &str| f(&v["jobs"].as_array().unwrap().iter().find(|j| j["run_id"] == id).unwrap()["co2e_g"]);
    for (id, g) in [("slurm:c1:1", 450.0), ("slurm:c1:2", 500.0), ("slurm:c1:3", 250.0)] {
        // Without the history, the provider's default of 300 g/kWh: the figure scales by the intensity alone.
        let (with, without) = (co2e(&dry, id), co2e(&plain, id));
        assert!((with - without * g / 300.0).abs() < 1e-6 * with, "{id}: {with} vs {without} at {g}");
    }
    let gap_notes: Vec<&str> =
        dry["notes"].as_array().unwrap().iter().filter_map(Value::as_str).filter(|n| n.contains("history has no reading")).collect();
    assert!(gap_notes.len() == 1 && !gap_notes[0].contains("jobs)"), "job 1 alone fell in the hole: {}", dry["notes"]);
    // Imported for real: the days come from the cache (both ended long ago), and each record says its intensity.
    let done = env.json::<Value>(&["import", "slurm", "--file", path, "--grid-history"]);
    assert_eq!((done["grid_history"]["requests"].as_u64(), done["grid_history"]["cached"].as_u64()), (Some(0), Some(2)), "{done}");
    assert_eq!(srv.requests().len(), 2);
    assert_eq!(done["imported"], 3);
    let rep = env.json::<Value>(&["report", "--by", "model"]);
    let total: f64 = ["slurm:c1:1", "slurm:c1:2", "slurm:c1:3"].iter().map(|id| co2e(&dry, id)).sum();
    let reported = f(&rep["totals"]["co2e_g"]);
    assert!((reported - total).abs() < 1e-6 * total, "{reported} vs {total}: {rep}");
}

#[test]
fn every_provider_s_history_shape_prices_a_job_alike() {
    // 2026-11-03 08:00 to 10:00 at 250 g/kWh, as each API documents its history.
    let hours = ["08:00", "09:00"];
    let em = hours.map(|h| format!(r#"{{"zone":"GB","carbonIntensity":250,"datetime":"2026-11-03T{h}:00.000Z","isEstimated":false}}"#));
    let wt = (0..24).map(|k| format!(r#"{{"point_time":"2026-11-03T{:02}:{:02}:00+00:00","value":551.156}}"#, 8 + k / 12, k % 12 * 5));
    let sdk = hours.map(|h| format!(r#"{{"location":"uksouth","time":"2026-11-03T{h}:00+00:00","rating":250,"duration":"01:00:00"}}"#));
    let shapes = [
        ("electricitymaps", format!(r#"{{"zone":"GB","data":[{}]}}"#, em.join(","))),
        (
            "watttime",
            format!(
                r#"{{"data":[{}],"meta":{{"units":"lbs_co2_per_mwh","data_point_period_seconds":300,"region":"UK"}}}}"#,
                wt.collect::<Vec<_>>().join(",")
            ),
        ),
        ("carbon-aware-sdk", format!("[{}]", sdk.join(","))),
        ("uk", uk_history()),
    ];
    let line = "3|3|c|u2|acc|gpu|c1|COMPLETED|2026-11-03T08:30:00|2026-11-03T09:30:00|3600|4|14400|cpu=4,gres/gpu=1,node=1";
    for (shape, body) in shapes {
        let srv = Server::start(json(body));
        let env = Env::new().env("TZ", "UTC").env("EXAMLOPS_GRID_HISTORY_URL", &srv.url("/h?start={from}&end={to}"));
        let file = env.file("sacct.txt", &format!("{HEADER}\n{line}\n"));
        let dry = env.json::<Value>(&["import", "slurm", "--file", file.to_str().unwrap(), "--dry-run", "--grid-history"]);
        assert_eq!(dry["grid_history"]["shape"], shape, "{dry}");
        let plain = env.json::<Value>(&["import", "slurm", "--file", file.to_str().unwrap(), "--dry-run"]);
        let (with, without) = (f(&dry["jobs"][0]["co2e_g"]), f(&plain["jobs"][0]["co2e_g"]));
        // 551.156 lbs/MWh is 250.000 g/kWh to the gram.
        assert!((with - without * 250.0 / 300.0).abs() < 1e-4 * with, "{shape}: {with} vs {without}");
    }
    // An empty window, a history with nothing near the job: the job is priced as without it, and says so.
    let srv = Server::start(json(r#"{"zone":"GB","data":[]}"#.into()));
    let env = Env::new().env("TZ", "UTC").env("EXAMLOPS_GRID_HISTORY_URL", &srv.url("/h?start={from}&end={to}"));
    let file = env.file("sacct.txt", &format!("{HEADER}\n{line}\n"));
    let dry = env.json::<Value>(&["import", "slurm", "--file", file.to_str().unwrap(), "--dry-run", "--grid-history"]);
    assert_eq!((dry["grid_history"]["readings"].as_u64(), dry["grid_history"]["shape"].as_str()), (Some(0), Some("none")), "{dry}");
    let plain = env.json::<Value>(&["import", "slurm", "--file", file.to_str().unwrap(), "--dry-run"]);
    assert_eq!(dry["jobs"][0]["co2e_g"], plain["jobs"][0]["co2e_g"]);
    assert!(dry["notes"].to_string().contains("no reading within 3 h of the job"), "{}", dry["notes"]);
    // A job that ran (by its clock) for six years costs no request a day: it is priced without the history.
    let long = "4|4|d|u2|acc|gpu|c1|COMPLETED|2020-11-03T08:30:00|2026-11-03T09:30:00|3600|4|14400|cpu=4,gres/gpu=1,node=1";
    let file = env.file("long.txt", &format!("{HEADER}\n{long}\n"));
    let before = srv.requests().len();
    let dry = env.json::<Value>(&["import", "slurm", "--file", file.to_str().unwrap(), "--dry-run", "--grid-history"]);
    assert_eq!((dry["grid_history"]["days"].as_u64(), srv.requests().len()), (Some(0), before), "{dry}");
    assert!(dry["notes"].to_string().contains("ran longer than 92 days"), "{}", dry["notes"]);
}
