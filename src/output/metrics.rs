//! The table form of `exa metrics` answers: readings as sparklines.

use std::fmt::Write;

use comfy_table::Cell;
use serde_json::Value;

use super::{Render, Style};
use std::collections::BTreeMap;

use crate::commands::metrics::{ClustersAnswer, Envelope, FlagsAnswer, GpuBlock, NodeAnswer, QueryAnswer, Reading, WorkloadAnswer};
use crate::sources::prometheus::read::Placement;
use crate::text::clean;
use crate::text::redact_url as redact;
use crate::time::iso8601;

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

fn gpus(style: Style, gpus: &BTreeMap<String, GpuBlock>, out: &mut String) {
    let mut t = style.table(&["GPU", "Reading", "Value"]);
    for (idx, g) in gpus {
        // Every field of the block, in the answer's order, as the JSON draws it.
        if let Ok(Value::Object(fields)) = serde_json::to_value(g) {
            for (k, v) in &fields {
                let s = shown(v);
                if !s.is_empty() && s != "—" {
                    t.add_row(vec![Cell::new(clean(idx)), Cell::new(clean(k)), Cell::new(clean(&s))]);
                }
            }
        }
    }
    let _ = writeln!(out, "{t}");
}

/// The envelope's first line: cluster, maker, model and window; and the reference.
fn head(e: &Envelope, out: &mut String) {
    let w = &e.window;
    let _ = writeln!(
        out,
        "{} ({} {}) · {} to {} · {} points of {} s",
        clean(&e.cluster),
        clean(&e.gpu_vendor),
        clean(&e.gpu_model),
        iso8601(w.start),
        iso8601(w.end),
        w.points,
        w.step_s
    );
    if let Some(r) = &e.reference {
        let _ = writeln!(out, "reference: p95 GPU temperature {} °C", Value::from(r.temp_p95_c));
    }
}

/// The envelope's last lines: coverage and the note.
fn foot(e: &Envelope, out: &mut String) {
    let _ = writeln!(out, "coverage: present {} · missing {}", json_list(&e.coverage.present), json_list(&e.coverage.missing));
    let _ = writeln!(out, "note: {}", clean(&e.note));
}

fn json_list(items: &[&str]) -> String {
    Value::from(items.to_vec()).to_string()
}

fn placement(source: &str, placement: &[Placement], out: &mut String) {
    let _ = writeln!(out, "placement ({source}):");
    for pl in placement {
        let when = |t: Option<i64>| t.map_or_else(|| "null".to_string(), |t| format!("\"{}\"", iso8601(t)));
        let phase = pl.phase.as_ref().map_or_else(|| "null".to_string(), |p| format!("\"{}\"", clean(p)));
        let _ = writeln!(out, "  {} on {} from {} to {} ({phase})", clean(&pl.pod), clean(&pl.node), when(pl.from), when(pl.to));
    }
}

impl Render for ClustersAnswer {
    fn render(&self, style: Style, out: &mut String) {
        let mut t = style.table(&["Cluster", "Vendor", "Model", "Prometheus", "Node label"]);
        for c in &self.clusters {
            t.add_row(vec![clean(&c.name), clean(&c.gpu_vendor), clean(&c.gpu_model), clean(&redact(&c.prometheus)), clean(&c.node_label)]);
        }
        match &self.note {
            Some(n) => {
                let _ = writeln!(out, "{n}");
            }
            None => {
                let _ = writeln!(out, "{t}");
            }
        }
    }
}

impl Render for QueryAnswer {
    fn render(&self, style: Style, out: &mut String) {
        let _ =
            writeln!(out, "{} series ({}){}", self.series_total, self.result_type, if self.truncated { ", truncated to 100" } else { "" });
        let mut t = style.table(&["Cluster", "Labels", "Value"]);
        for s in &self.series {
            let (labels, val) = match &s.reading {
                Reading::Scalar { value } => (String::new(), Value::from(*value).to_string()),
                Reading::Instant { labels, value } => {
                    (labels_shown(labels), value.map_or_else(|| "null".into(), |v| Value::from(v).to_string()))
                }
                Reading::Range { labels, values } => {
                    let vals: Vec<Value> = values.iter().map(|v| v.map_or(Value::Null, Value::from)).collect();
                    (labels_shown(labels), sparkline(&vals))
                }
            };
            t.add_row(vec![clean(&s.cluster), labels, val]);
        }
        let _ = writeln!(out, "{t}");
        for f in &self.failed {
            let _ = writeln!(
                out,
                "{} did not answer: {} ({}): {}",
                clean(&f.cluster),
                f.refusal.code,
                f.refusal.status,
                clean(&f.refusal.message)
            );
        }
        if let Some(n) = &self.note {
            let _ = writeln!(out, "note: {}", clean(n));
        }
    }
}

fn labels_shown(labels: &std::collections::BTreeMap<String, String>) -> String {
    clean(&serde_json::to_string(labels).unwrap_or_default())
}

impl Render for NodeAnswer {
    fn render(&self, style: Style, out: &mut String) {
        head(&self.envelope, out);
        gpus(style, &self.readings.gpus, out);
        let _ = writeln!(out, "host: {}", shown(&serde_json::to_value(&self.readings.host).unwrap_or(Value::Null)));
        foot(&self.envelope, out);
    }
}

impl Render for WorkloadAnswer {
    fn render(&self, style: Style, out: &mut String) {
        head(&self.envelope, out);
        placement(self.placement_source, &self.placement, out);
        for (name, n) in &self.nodes {
            let _ = writeln!(out, "node {}", clean(name));
            gpus(style, &n.gpus, out);
        }
        foot(&self.envelope, out);
    }
}

impl Render for FlagsAnswer {
    fn render(&self, style: Style, out: &mut String) {
        head(&self.envelope, out);
        let _ =
            writeln!(out, "clean: {} · checked: {} · unavailable: {}", self.clean, json_list(&self.checked), json_list(&self.unavailable));
        let mut t = style.table(&["Kind", "Severity", "Node", "GPU", "Minutes", "Summary"]);
        for f in &self.flags {
            t.add_row(vec![
                Cell::new(f.kind),
                Cell::new(f.severity),
                Cell::new(clean(&f.node)),
                Cell::new(clean(f.gpu.as_deref().unwrap_or(""))),
                Cell::new(f.minutes),
                Cell::new(clean(&f.summary)),
            ]);
        }
        if !self.flags.is_empty() {
            let _ = writeln!(out, "{t}");
        }
        foot(&self.envelope, out);
    }
}
