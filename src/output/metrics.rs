//! The table form of `exa metrics` answers: readings as sparklines.

use std::fmt::Write;

use comfy_table::Cell;
use serde_json::Value;

use super::{Render, Style};
use crate::commands::metrics::Answer;

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// A series as a sparkline scaled to its own min and max; a gap is a space.
pub fn sparkline(values: &[Value]) -> String {
    let nums: Vec<f64> = values.iter().filter_map(Value::as_f64).collect();
    let (lo, hi) = nums.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
    values
        .iter()
        .map(|v| match v.as_f64() {
            None => ' ',
            Some(x) if hi > lo => BARS[(((x - lo) / (hi - lo)) * 7.0).round() as usize],
            Some(_) => BARS[3],
        })
        .collect()
}

fn shown(v: &Value) -> String {
    match v {
        Value::Null => "—".into(),
        Value::Object(o) if o.contains_key("mean") => {
            let spark = o.get("values").and_then(Value::as_array).map(|a| format!("{} ", sparkline(a))).unwrap_or_default();
            format!("{spark}{} ({}–{})", o["mean"], o["min"], o["max"])
        }
        Value::Object(o) => o.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| format!("{k} {}", shown(v))).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

fn gpus(style: Style, gpus: &serde_json::Map<String, Value>, out: &mut String) {
    let mut t = style.table(&["GPU", "Reading", "Value"]);
    for (idx, g) in gpus {
        if let Value::Object(fields) = g {
            for (k, v) in fields {
                let s = shown(v);
                if !s.is_empty() && s != "—" {
                    t.add_row(vec![Cell::new(idx), Cell::new(k), Cell::new(s)]);
                }
            }
        }
    }
    let _ = writeln!(out, "{t}");
}

impl Render for Answer {
    fn render(&self, style: Style, out: &mut String) {
        let v = &self.0;
        if let Some(list) = v.get("clusters").and_then(Value::as_array) {
            let mut t = style.table(&["Cluster", "Vendor", "Model", "Prometheus", "Node label"]);
            for c in list {
                t.add_row(vec![
                    c["name"].as_str().unwrap_or(""),
                    c["gpu_vendor"].as_str().unwrap_or(""),
                    c["gpu_model"].as_str().unwrap_or(""),
                    c["prometheus"].as_str().unwrap_or(""),
                    c["node_label"].as_str().unwrap_or(""),
                ]);
            }
            let _ = writeln!(out, "{t}");
            return;
        }
        if v.get("query").is_some() {
            let _ = writeln!(
                out,
                "{} series ({}){}",
                v["series_total"],
                v["result_type"].as_str().unwrap_or(""),
                if v["truncated"] == true { ", truncated to 100" } else { "" }
            );
            let mut t = style.table(&["Labels", "Value"]);
            for s in v["series"].as_array().into_iter().flatten() {
                let labels = s.get("labels").map(|l| l.to_string()).unwrap_or_default();
                let val = match (s.get("values"), s.get("value")) {
                    (Some(Value::Array(a)), _) => sparkline(a),
                    (_, Some(x)) => x.to_string(),
                    _ => String::new(),
                };
                t.add_row(vec![labels, val]);
            }
            let _ = writeln!(out, "{t}");
            if let Some(n) = v["note"].as_str() {
                let _ = writeln!(out, "note: {n}");
            }
            return;
        }
        let w = &v["window"];
        let _ = writeln!(
            out,
            "{} ({} {}) · {} to {} · {} points of {} s",
            v["cluster"].as_str().unwrap_or(""),
            v["gpu_vendor"].as_str().unwrap_or(""),
            v["gpu_model"].as_str().unwrap_or(""),
            w["start"].as_str().unwrap_or(""),
            w["end"].as_str().unwrap_or(""),
            w["points"],
            w["step_s"]
        );
        if let Some(p) = v["reference"].get("temp_p95_c") {
            let _ = writeln!(out, "reference: p95 GPU temperature {p} °C");
        }
        if let Some(flags) = v.get("flags").and_then(Value::as_array) {
            let _ = writeln!(out, "clean: {} · checked: {} · unavailable: {}", v["clean"], v["checked"], v["unavailable"]);
            let mut t = style.table(&["Kind", "Severity", "Node", "GPU", "Minutes", "Summary"]);
            for f in flags {
                t.add_row(vec![
                    Cell::new(f["kind"].as_str().unwrap_or("")),
                    Cell::new(f["severity"].as_str().unwrap_or("")),
                    Cell::new(f["node"].as_str().unwrap_or("")),
                    Cell::new(f["gpu"].as_str().unwrap_or("")),
                    Cell::new(&f["minutes"]),
                    Cell::new(f["summary"].as_str().unwrap_or("")),
                ]);
            }
            if !flags.is_empty() {
                let _ = writeln!(out, "{t}");
            }
        }
        if let Some(p) = v.get("placement").and_then(Value::as_array) {
            let _ = writeln!(out, "placement ({}):", v["placement_source"].as_str().unwrap_or(""));
            for pl in p {
                let _ = writeln!(
                    out,
                    "  {} on {} from {} to {} ({})",
                    pl["pod"].as_str().unwrap_or(""),
                    pl["node"].as_str().unwrap_or(""),
                    pl["from"],
                    pl["to"],
                    pl["phase"]
                );
            }
        }
        if let Some(Value::Object(g)) = v.get("gpus") {
            gpus(style, g, out);
            let _ = writeln!(out, "host: {}", shown(&v["host"]));
        }
        if let Some(Value::Object(nodes)) = v.get("nodes") {
            for (name, n) in nodes {
                let _ = writeln!(out, "node {name}");
                if let Some(Value::Object(g)) = n.get("gpus") {
                    gpus(style, g, out);
                }
            }
        }
        let _ = writeln!(out, "coverage: present {} · missing {}", v["coverage"]["present"], v["coverage"]["missing"]);
        if let Some(n) = v["note"].as_str() {
            let _ = writeln!(out, "note: {n}");
        }
    }
}
