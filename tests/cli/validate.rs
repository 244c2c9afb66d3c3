//! `exa validate`: a trace against a reference with an injected bias, lag and drop-outs, which it must recover
//! within 0.5 %; a reference per GPU; the H200 capture's counter against its own power readings; bad input.

use std::fmt::Write as _;

use crate::support::common::{fails, fixtures, stdout, Env};
use crate::support::contract::Validation;
use serde_json::Value;

/// A training loop's power: 10 s busy, 5 s waiting on data, with a slow swell; GPU `g` a little apart.
fn watts(g: usize, t: f64) -> f64 {
    let busy = (t + 3.0 * g as f64).rem_euclid(15.0) < 10.0;
    (if busy { 620.0 } else { 140.0 }) + 35.0 * (t / 41.0).sin() + 10.0 * g as f64
}

/// Exa's trace of `gpus` GPUs read every second for `seconds` from `start`, each counter the exact integral.
fn trace(gpus: usize, start: f64, seconds: usize) -> String {
    let mut counters = vec![1000.0f64; gpus];
    let mut out = String::new();
    for k in 0..=seconds {
        let t = start + k as f64;
        let devices: Vec<String> = (0..gpus)
            .map(|g| {
                if k > 0 {
                    // The integral over the second before, at 100 steps: the counter a GPU keeps.
                    counters[g] += (0..100).map(|i| watts(g, t - 1.0 + (f64::from(i) + 0.5) / 100.0)).sum::<f64>() / 100.0;
                }
                format!(
                    r#"{{"index":{g},"name":"NVIDIA H100","uuid":"GPU-0000000{g}","power_w":{:.3},"energy_counter_j":{:.3}}}"#,
                    watts(g, t),
                    counters[g]
                )
            })
            .collect();
        writeln!(out, r#"{{"t":{k}.0,"unix":{t:.3},"ok":true,"devices":[{}]}}"#, devices.join(",")).unwrap();
    }
    out
}

/// The reference of every GPU together, read every half second by a clock `lag` seconds ahead, `scale` times
/// the truth, with the samples from `gap.0` to `gap.1` (exa's time) lost.
fn meter(gpus: usize, start: f64, seconds: usize, lag: f64, scale: f64, gap: (f64, f64)) -> String {
    let mut out = String::from("timestamp,watts\n");
    for k in 0..=(2 * seconds) {
        let t = start + k as f64 / 2.0;
        if t > gap.0 && t < gap.1 {
            continue;
        }
        let w: f64 = (0..gpus).map(|g| watts(g, t)).sum::<f64>() * scale;
        writeln!(out, "{:.3},{w:.4}", t + lag).unwrap();
    }
    out
}

const START: f64 = 1_796_060_000.0;

#[test]
fn an_injected_bias_lag_and_drop_out_are_recovered_within_half_a_percent() {
    let env = Env::new();
    let dir = env.dir.path();
    std::fs::write(dir.join("run.jsonl"), trace(2, START, 600)).unwrap();
    std::fs::write(dir.join("meter.csv"), meter(2, START, 600, 4.2, 1.04, (START + 200.0, START + 230.0))).unwrap();
    let v: Validation = env.json(&["validate", "--trace", "run.jsonl", "--reference", "meter.csv", "--window", "1,10,60"]);
    assert_eq!(v.offset_from, "found");
    // A step read every second is a ramp somewhere within that second: the lag is known to half of it.
    assert!((v.offset_s - 4.2).abs() <= 0.5, "offset {}", v.offset_s);
    assert!(v.correlation.unwrap() > 0.99, "{:?}", v.correlation);
    assert_eq!((v.trace_readings, v.components.len()), (601, 1));
    let c = &v.components[0];
    assert_eq!(c.name, "all GPUs");
    // exa reads 1/1.04 of the reference: -3.846 %.
    let truth = (1.0 / 1.04 - 1.0) * 100.0;
    assert!((c.bias_pct.unwrap() - truth).abs() < 0.5, "bias {:?} against {truth}", c.bias_pct);
    assert!((c.reference_j / c.exa_j / 1.04 - 1.0).abs() < 0.005, "{} / {}", c.reference_j, c.exa_j);
    // The drop-out is skipped, not read as zero watts: some 30 of the 600 seconds are not compared.
    assert!(c.compared_s > 540.0 && c.compared_s < 575.0, "{}", c.compared_s);
    let minute = c.windows.iter().find(|w| w.seconds == 60.0).unwrap();
    assert!(minute.skipped >= 1 && minute.compared >= 8, "{minute:?}");
    for w in &c.windows {
        assert!((w.bias_pct.unwrap() - truth).abs() < 0.5, "{w:?}");
        // Over a second the reference's half-second samples of each step add their own error; over ten seconds
        // and more every window is the bias.
        let spread = if w.seconds < 10.0 { 2.0 } else { 0.5 };
        assert!(w.mape_pct.unwrap() >= truth.abs() - 0.5 && w.mape_pct.unwrap() < truth.abs() + spread, "{w:?}");
    }
    // The same at a terminal's width: a table per component, the offset said.
    let out = env.run(&["validate", "--trace", "run.jsonl", "--reference", "meter.csv"]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.contains("clock offset +") && text.contains("found") && text.contains("MAPE") && text.contains("all GPUs"), "{text}");
}

#[test]
fn a_reference_per_gpu_is_compared_gpu_by_gpu() {
    let env = Env::new();
    let dir = env.dir.path();
    std::fs::write(dir.join("run.jsonl"), trace(2, START, 300)).unwrap();
    // DCGM's export: each GPU's own series, in milliwatts, GPU 1 reading 2 % high; RFC 3339 times.
    let mut csv = String::from("timestamp,gpu,power_mw\n");
    for k in 0..=300 {
        let t = START + f64::from(k);
        for (g, scale) in [(0usize, 1.0), (1, 1.02)] {
            let secs = t as i64;
            let stamp = format!("{}.{:03}Z", &exa::time::iso8601(secs)[..19], ((t - secs as f64) * 1000.0).round() as i64);
            writeln!(csv, "{stamp},{g},{:.1}", watts(g, t) * scale * 1000.0).unwrap();
        }
    }
    std::fs::write(dir.join("dcgm.csv"), csv).unwrap();
    let v: Validation = env.json(&["validate", "--trace", "run.jsonl", "--reference", "dcgm.csv", "--offset", "0"]);
    assert_eq!((v.offset_from.as_str(), v.offset_s), ("given", 0.0));
    let names: Vec<&str> = v.components.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["GPU 0", "GPU 1"]);
    assert!(v.components[0].bias_pct.unwrap().abs() < 0.5, "{:?}", v.components[0]);
    let truth = (1.0 / 1.02 - 1.0) * 100.0;
    assert!((v.components[1].bias_pct.unwrap() - truth).abs() < 0.5, "{:?}", v.components[1]);
}

#[test]
fn the_h200_capture_s_counter_against_its_own_power_readings() {
    let env = Env::new();
    let trace = fixtures().join("gpu/h200-device-check/measure-nvml-1s-matmul.trace.jsonl");
    // The reference: NVML's power readings of the same run (instantaneous watts), against the energy counter.
    let mut csv = String::from("unix,power_w\n");
    for line in std::fs::read_to_string(&trace).unwrap().lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(w) = r["devices"][0]["power_w"].as_f64() {
            writeln!(csv, "{},{w}", r["unix"]).unwrap();
        }
    }
    std::fs::write(env.dir.path().join("power.csv"), csv).unwrap();
    let v: Validation = env.json(&["validate", "--trace", trace.to_str().unwrap(), "--reference", "power.csv", "--offset", "0"]);
    let c = &v.components[0];
    assert_eq!(v.trace_readings, 52);
    assert!(c.compared_s > 45.0, "{c:?}");
    // A real H200 under a matmul: its power readings and its counter agree over the run to a few percent.
    assert!(c.bias_pct.unwrap().abs() < 5.0, "{c:?}");
}

#[test]
fn bad_input_is_refused_naming_the_file_and_line() {
    let env = Env::new();
    let dir = env.dir.path();
    std::fs::write(dir.join("run.jsonl"), trace(1, START, 60)).unwrap();
    std::fs::write(dir.join("nopower.csv"), "timestamp,temperature\n1796060000,40\n").unwrap();
    fails(&env.run(&["validate", "--trace", "run.jsonl", "--reference", "nopower.csv"]), 2, "no power column");
    std::fs::write(dir.join("neg.csv"), "timestamp,watts\n1796060000,100\n1796060001,-5\n").unwrap();
    fails(&env.run(&["validate", "--trace", "run.jsonl", "--reference", "neg.csv"]), 2, "neg.csv:3: '-5' is not a power");
    std::fs::write(dir.join("bad.jsonl"), "{\"unix\":1796060000,\"ok\":true,\"devices\":[]}\nnot json\n").unwrap();
    fails(&env.run(&["validate", "--trace", "bad.jsonl", "--reference", "neg.csv"]), 2, "bad.jsonl:2: not a reading");
    std::fs::write(dir.join("huge.jsonl"), "{\"unix\":1796060000,\"ok\":true,\"devices\":[{\"index\":0,\"power_w\":1e300}]}\n").unwrap();
    fails(&env.run(&["validate", "--trace", "huge.jsonl", "--reference", "neg.csv"]), 2, "which no GPU draws");
    fails(&env.run(&["validate", "--trace", "missing.jsonl", "--reference", "neg.csv"]), 2, "cannot read the trace missing.jsonl");
    fails(&env.run(&["validate", "--trace", "run.jsonl", "--reference", "neg.csv", "--window", "0"]), 2, "--window");
    fails(&env.run(&["validate", "--trace", "run.jsonl", "--reference", "neg.csv", "--offset", "inf"]), 2, "--offset");
    // A reference from another day shares no time with the run: said, not a made-up figure.
    std::fs::write(dir.join("other.csv"), meter(1, START + 86_400.0, 60, 0.0, 1.0, (0.0, 0.0))).unwrap();
    let v: Validation = env.json(&["validate", "--trace", "run.jsonl", "--reference", "other.csv"]);
    assert_eq!(v.components[0].bias_pct, None);
    assert!(v.notes.iter().any(|n| n.contains("share no time")), "{:?}", v.notes);
}

#[test]
fn a_wide_search_finds_the_lag_and_a_gpu_missing_from_a_reading_is_a_gap() {
    let env = Env::new();
    let dir = env.dir.path();
    let mut run = trace(2, START, 600);
    // GPU 1 is missing from one reading: the total has a gap there, never one GPU's power alone.
    let lines: Vec<&str> = run.lines().collect();
    let mut edited: Vec<String> = lines.iter().map(|l| (*l).to_string()).collect();
    let r: serde_json::Value = serde_json::from_str(lines[300]).unwrap();
    let mut one = r.clone();
    one["devices"] = serde_json::json!([r["devices"][0]]);
    edited[300] = one.to_string();
    run = edited.join("\n");
    std::fs::write(dir.join("run.jsonl"), run).unwrap();
    std::fs::write(dir.join("meter.csv"), meter(2, START, 600, 4.2, 1.04, (0.0, 0.0))).unwrap();
    // An hour either way: a short overlap that happens to match never beats the whole run.
    let v: Validation = env.json(&["validate", "--trace", "run.jsonl", "--reference", "meter.csv", "--max-offset", "3600"]);
    assert!((v.offset_s - 4.2).abs() <= 0.5, "offset {}", v.offset_s);
    let c = &v.components[0];
    let truth = (1.0 / 1.04 - 1.0) * 100.0;
    assert!((c.bias_pct.unwrap() - truth).abs() < 0.05, "{c:?}");
    // The two intervals around the reading without GPU 1 are not compared.
    assert!(c.compared_s <= 598.0 && c.compared_s >= 590.0, "{}", c.compared_s);
}

#[test]
fn a_spreadsheet_s_reference_reads_as_its_header_says() {
    let env = Env::new();
    let dir = env.dir.path();
    std::fs::write(dir.join("run.jsonl"), trace(1, START, 120)).unwrap();
    // Excel's byte-order mark, CRLF, a quoted note with a comma, the unit in parentheses, and a limit column beside
    // the power: the power column is the one named as power, in milliwatts.
    let mut csv = String::from("\u{feff}\"note\",Time,Power (mW),power_limit_w\r\n");
    for k in 0..=240 {
        let t = START + f64::from(k) / 2.0;
        writeln!(csv, "\"a, b\",{t:.3},{:.1},700\r", watts(0, t) * 1000.0).unwrap();
    }
    std::fs::write(dir.join("sheet.csv"), csv).unwrap();
    let v: Validation = env.json(&["validate", "--trace", "run.jsonl", "--reference", "sheet.csv", "--offset", "0"]);
    assert!(v.components[0].bias_pct.unwrap().abs() < 0.5, "{:?}", v.components[0]);
    // Two columns that both name power drawn, neither as exa prefers: refused, naming them.
    std::fs::write(dir.join("two.csv"), format!("time,gpu_power_w,board_power_w\n{START},700,700\n")).unwrap();
    fails(
        &env.run(&["validate", "--trace", "run.jsonl", "--reference", "two.csv"]),
        2,
        "several power columns (gpu_power_w, board_power_w)",
    );
    // Windows too short for the run: refused, never cut off silently.
    fails(&env.run(&["validate", "--trace", "run.jsonl", "--reference", "sheet.csv", "--window", "0.0001"]), 2, "--window");
    std::fs::write(dir.join("long.jsonl"), trace(1, START, 1200)).unwrap();
    let out = env.run(&["validate", "--trace", "long.jsonl", "--reference", "sheet.csv", "--window", "0.001"]);
    fails(&out, 2, "--window 0.001: the run's 1200 s make more than 1000000 windows");
}

#[test]
fn the_page_plots_both_series_aligned_with_the_json_s_errors() {
    let env = Env::new();
    let dir = env.dir.path();
    std::fs::write(dir.join("run.jsonl"), trace(2, START, 300)).unwrap();
    std::fs::write(dir.join("meter.csv"), meter(2, START, 300, 3.0, 1.02, (START + 100.0, START + 120.0))).unwrap();
    let page = dir.join("out/validate.html");
    let args = ["validate", "--trace", "run.jsonl", "--reference", "meter.csv", "--window", "10,60", "--html", page.to_str().unwrap()];
    let v: Value = env.json(&args);
    let html = std::fs::read_to_string(&page).unwrap();
    for needle in ["http://", "https://", "src=", "<link"] {
        assert!(!html.contains(needle), "the page refers outside itself: {needle}");
    }
    let (dom, log) = crate::reports::chromium(&["--dump-dom", &format!("file://{}", page.display())]);
    assert!(!log.lines().any(|l| l.contains(":CONSOLE")), "console messages: {log}");
    // Both series are drawn; the reference's drop-out breaks its line in two.
    let plot = &dom[dom.find("data-component=\"all GPUs\"").expect("the component's plot")..];
    let plot = &plot[..plot.find("</svg>").unwrap()];
    assert_eq!(plot.matches("data-series=\"exa\"").count(), 1, "{plot}");
    assert_eq!(plot.matches("data-series=\"reference\"").count(), 2, "the drop-out is a gap, not zero watts");
    let points = plot.split("points=\"").nth(1).unwrap().split('"').next().unwrap().split(' ').count();
    assert!(points > 500, "{points} points");
    // The table's figures are the JSON's.
    for w in v["components"][0]["windows"].as_array().unwrap() {
        let anchor = format!("data-key=\"all GPUs-{}\"", w["seconds"]);
        let row = &dom[dom.find(&anchor).unwrap_or_else(|| panic!("{anchor}"))..];
        let at = row.find("data-field=\"mape_pct\" data-value=\"").unwrap() + "data-field=\"mape_pct\" data-value=\"".len();
        assert_eq!(row[at..].split('"').next().unwrap().parse::<f64>().unwrap(), w["mape_pct"].as_f64().unwrap());
    }
    // A page that cannot be written: its name, and nothing on stdout.
    let out = env.run(&["validate", "--trace", "run.jsonl", "--reference", "meter.csv", "--html", dir.to_str().unwrap()]);
    crate::common::fails(&out, 1, "--html");
}
