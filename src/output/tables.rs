//! The table form of each report.

use std::fmt::Write;

use comfy_table::Cell;

use super::{num, pct, Render, Style};
use crate::commands::config::{ConfigPath, ConfigWritten, Effective};
use crate::commands::providers::ProviderList;
use crate::commands::show::ProviderDetail;
use crate::model::Estimate;
use crate::time::iso8601;

/// The unit and the fewest decimals an output is shown with.
fn unit(output: &str) -> (&'static str, usize) {
    match output {
        "kwh" => ("kWh", 3),
        "co2e_g" | "embodied_co2e_g" => ("gCO2e", 1),
        "water_l" => ("L", 3),
        "cost_usd" => ("USD", 2),
        _ => ("", 4),
    }
}

/// An output with its unit; small values keep three significant digits (0.000141 kWh, not 0.000).
pub(super) fn shown(output: &str, v: f64) -> String {
    let (u, d) = unit(output);
    // Too small for nine decimals, or too large to read: three significant digits in scientific form, never "0.000".
    if v != 0.0 && (v.abs() < 1e-7 || v.abs() >= 1e15) {
        let s = format!("{v:.2e}");
        return if u.is_empty() { s } else { format!("{s} {u}") };
    }
    let significant = if v == 0.0 { 0 } else { (2 - v.abs().log10().floor() as i64).clamp(0, 9) as usize };
    let d = if output.ends_with("co2e_g") && v.abs() >= 100.0 { 0 } else { d.max(significant) };
    if u.is_empty() {
        num(v, d)
    } else {
        format!("{} {u}", num(v, d))
    }
}

/// A number as given, in scientific form when it is tiny or huge.
pub(super) fn plain(v: f64) -> String {
    if v != 0.0 && (v.abs() < 1e-6 || v.abs() >= 1e15) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

impl Estimate {
    /// The required outputs in a line: `5.760 kWh · 1728 gCO2e`.
    pub(super) fn headline(&self) -> String {
        let parts: Vec<String> =
            self.outputs.iter().filter(|(k, _)| self.domain.outputs().contains(&k.as_str())).map(|(k, v)| shown(k, *v)).collect();
        parts.join(" · ")
    }
}

fn title(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

impl Render for Estimate {
    fn render(&self, style: Style, out: &mut String) {
        let p = &self.provider;
        let _ = writeln!(out, "{} estimate · {} ({}, {})", title(self.domain.as_str()), p.name, p.kind, pct(p.uncertainty));
        let _ = writeln!(out, "{}", self.headline());
        if let Some(r) = &self.fallback_reason {
            let _ = writeln!(out, "fell back from '{}': {r}", self.requested_provider.as_deref().unwrap_or("?"));
        }
        let mut t = style.table(&["Output", "Value", "Range"]);
        for (k, v) in &self.outputs {
            let range = match self.range.as_ref().and_then(|r| r.get(k)) {
                Some([lo, hi]) => format!("{} – {}", shown(k, *lo), shown(k, *hi)),
                None if self.domain.outputs().contains(&k.as_str()) => "unknown".into(),
                None => String::new(),
            };
            t.add_row(vec![Cell::new(k), Cell::new(shown(k, *v)), Cell::new(range)]);
        }
        let _ = writeln!(out, "{t}");
        let mut t = style.table(&["Input / coefficient", "Value", "Source"]);
        for (k, v) in &self.inputs {
            t.add_row(vec![Cell::new(k), Cell::new(plain(*v)), Cell::new("input")]);
        }
        for (k, c) in &self.coefficients {
            t.add_row(vec![Cell::new(k), Cell::new(plain(c.value)), Cell::new(c.source)]);
        }
        let _ = writeln!(out, "{t}");
        if let Some(g) = &self.grid {
            let mut line = format!("grid intensity: {} gCO2e/kWh, {}", g.value, g.origin);
            if let Some(age) = g.age_s.filter(|_| g.origin == "cache") {
                let _ = write!(line, " ({age} s old)");
            }
            for (label, v) in [("from", &g.url), ("zone", &g.zone), ("reading at", &g.reading_time), ("", &g.detail)] {
                if let Some(v) = v {
                    let _ =
                        write!(line, "{}{label}{}{v}", if label.is_empty() { "; " } else { ", " }, if label.is_empty() { "" } else { " " });
                }
            }
            let _ = writeln!(out, "{line}");
        }
        for n in &self.notes {
            let _ = writeln!(out, "note: {n}");
        }
    }
}

impl Render for ProviderList {
    fn render(&self, style: Style, out: &mut String) {
        let _ = writeln!(out, "{} providers", title(self.domain.as_str()));
        let mut t = style.table(&["Name", "Kind", "Uncertainty", "Status"]);
        for r in &self.providers {
            let name = if r.default { format!("{}  (default)", r.name) } else { r.name.clone() };
            t.add_row(vec![Cell::new(name), Cell::new(r.kind), Cell::new(pct(r.uncertainty)), style.status(r.status)]);
        }
        let _ = writeln!(out, "{t}");
        for r in self.providers.iter().filter(|r| r.reason.is_some()) {
            let _ = writeln!(out, "{} ({}): {}", r.name, r.status, r.reason.as_deref().unwrap_or_default());
        }
        if let Some(s) = &self.selected {
            let _ = writeln!(out, "selected: {} (from {})", s.value, s.source);
        }
    }
}

impl Render for crate::commands::hardware::Hardware {
    fn render(&self, style: Style, out: &mut String) {
        if let Some(a) = self.attribution {
            out.push_str(a);
            return;
        }
        if !self.gpus.is_empty() {
            let mut t = style.table(&["GPU", "Vendor", "Board power W", "Also named", "Year", "Source"]);
            for g in &self.gpus {
                t.add_row(vec![
                    Cell::new(&g.name),
                    Cell::new(&g.vendor),
                    Cell::new(plain(g.board_power_w)),
                    Cell::new(g.aliases.join(", ")),
                    Cell::new(g.year),
                    Cell::new(&g.source),
                ]);
            }
            let _ = writeln!(out, "{t}");
        }
        if !self.cpus.is_empty() {
            let mut t = style.table(&["CPU", "TDP W (a socket)"]);
            for c in self.cpus.iter().take(50) {
                t.add_row(vec![Cell::new(&c.name), Cell::new(plain(c.tdp_w))]);
            }
            let _ = writeln!(out, "{t}");
            if self.cpus.len() > 50 {
                let _ = writeln!(out, "(the first 50 of {} CPU models that match; -o json lists them all)", self.cpus.len());
            }
        }
        let _ = writeln!(
            out,
            "{} GPU models, {} CPU models{}; CPUs from {} (exa finops carbon hardware --sources for the sources and licences)",
            self.gpus.len(),
            self.cpus.len(),
            if self.query.is_none() { format!(" of {} (name one to list them)", self.cpu_models) } else { String::new() },
            self.cpu_source
        );
    }
}

impl Render for crate::commands::regions::Regions {
    fn render(&self, style: Style, out: &mut String) {
        if let Some(a) = self.attribution {
            out.push_str(a);
            return;
        }
        let mut t = style.table(&["Region", "Kind", "Place", "gCO2e/kWh", "Basis", "Year", "Source"]);
        for r in &self.regions {
            let mut source = r.via.as_ref().map_or_else(|| r.source.clone(), |v| format!("{} (via {v})", r.source));
            if let Some(p) = &r.provider_figure {
                source.push_str(&format!("; not used: {} {} ({}, {})", p.basis, plain(p.g_per_kwh), p.source, p.year));
            }
            t.add_row(vec![
                Cell::new(&r.key),
                Cell::new(r.kind),
                Cell::new(&r.name),
                Cell::new(plain(r.g_per_kwh)),
                Cell::new(r.basis),
                Cell::new(r.year),
                Cell::new(source),
            ]);
        }
        let _ = writeln!(out, "{t}");
        let _ = writeln!(
            out,
            "{} regions; tables of {} (exa finops carbon regions --sources for their sources and licences)",
            self.regions.len(),
            self.tables
        );
    }
}

impl Render for crate::commands::when::When {
    fn render(&self, _style: Style, out: &mut String) {
        let grams = |g: Option<f64>| g.map(|g| format!(", {}", super::records::carbon(g))).unwrap_or_default();
        let b = &self.best;
        let _ = writeln!(out, "best start: {} (local {}), until {}", crate::time::iso8601(b.start), b.begin, crate::time::iso8601(b.end));
        let _ = writeln!(out, "  {:.1} gCO2e/kWh over the run{}", b.mean_g_per_kwh, grams(b.co2e_g));
        let n = &self.now;
        let _ = writeln!(out, "starting now: {:.1} gCO2e/kWh{}", n.mean_g_per_kwh, grams(n.co2e_g));
        let saved = self.saving_co2e_g.map(|g| format!(" ({} less)", super::records::carbon(g))).unwrap_or_default();
        let _ = writeln!(out, "saving: {:.1} gCO2e/kWh, {:.1}%{saved}", self.saving_g_per_kwh, self.saving_pct);
        let f = &self.forecast;
        let _ = writeln!(
            out,
            "forecast: {} ({} shape{}), {} intervals from {} to {}; no uncertainty band given",
            f.url,
            f.shape,
            f.zone
                .as_ref()
                .map(|z| format!(", zone {z}{}", f.zone_from.as_ref().map(|w| format!(" from {w}")).unwrap_or_default()))
                .unwrap_or_default(),
            f.intervals,
            crate::time::iso8601(f.from),
            crate::time::iso8601(f.to)
        );
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
        }
    }
}

impl Render for crate::commands::validate::Validation {
    fn render(&self, style: Style, out: &mut String) {
        let pct = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:+.2} %"));
        let abs = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.2} %"));
        let clock = match self.offset_from {
            "found" => format!("clock offset {:+.3} s, found (r = {:.4})", self.offset_s, self.correlation.unwrap_or(0.0)),
            "given" => format!("clock offset {:+.3} s, given", self.offset_s),
            _ => "clock offset: none found, compared as stamped".to_string(),
        };
        let _ = writeln!(
            out,
            "{} ({} readings) against {} ({} samples); {clock}",
            crate::text::clean(&self.trace),
            self.trace_readings,
            crate::text::clean(&self.reference),
            self.reference_samples
        );
        for c in &self.components {
            let _ = writeln!(
                out,
                "{}: exa {:.1} J, reference {:.1} J over {:.1} s: bias {}",
                c.name,
                c.exa_j,
                c.reference_j,
                c.compared_s,
                pct(c.bias_pct)
            );
            let mut t = style.table(&["window", "compared", "skipped", "MAPE", "bias", "worst"]);
            for w in &c.windows {
                t.add_row(vec![
                    format!("{} s", w.seconds),
                    w.compared.to_string(),
                    w.skipped.to_string(),
                    abs(w.mape_pct),
                    pct(w.bias_pct),
                    abs(w.max_abs_pct),
                ]);
            }
            let _ = writeln!(out, "{t}");
        }
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
        }
    }
}

impl Render for ProviderDetail {
    fn render(&self, style: Style, out: &mut String) {
        let p = &self.provider;
        let _ = writeln!(out, "{} ({} {} provider{})", p.name, p.kind, self.domain, if self.default { ", the default" } else { "" });
        let _ = writeln!(out, "uncertainty: {}", pct(p.uncertainty));
        let _ = writeln!(out, "methodology: {}", p.methodology);
        if let Some(s) = &p.source {
            let _ = writeln!(out, "source: {s}");
        }
        if let Some(o) = &p.origin {
            let _ = writeln!(out, "file: {o}");
        }
        let _ = writeln!(out, "inputs: {}", self.accepts.join(", "));
        let _ = writeln!(out, "outputs: {}", self.outputs.join(", "));
        if let Some(l) = &self.live {
            let _ = writeln!(out, "live: {l} is fetched from the grid-intensity endpoint when one is configured");
        }
        let _ = writeln!(out, "digest: {}", p.digest);
        if !self.formulas.is_empty() {
            let mut t = style.table(&["Output", "Formula"]);
            for f in &self.formulas {
                t.add_row(vec![&f.output, &f.formula]);
            }
            let _ = writeln!(out, "{t}");
        }
        if !self.coefficients.is_empty() {
            let mut t = style.table(&["Coefficient", "Default", "Unit", "Env", "Description"]);
            for c in &self.coefficients {
                t.add_row(vec![
                    Cell::new(&c.name),
                    Cell::new(c.default),
                    Cell::new(c.unit.as_deref().unwrap_or("")),
                    Cell::new(c.env.as_deref().unwrap_or("")),
                    Cell::new(c.description.as_deref().unwrap_or("")),
                ]);
            }
            let _ = writeln!(out, "{t}");
        }
        if !self.exa_terms.is_empty() {
            let mut t = style.table(&["exa's own term", "Value", "Set by"]);
            for (name, c) in &self.exa_terms {
                t.add_row(vec![Cell::new(name), Cell::new(plain(c.value)), Cell::new(c.source)]);
            }
            let _ = writeln!(out, "{t}\nexa's own terms are priced beside every carbon estimate, whichever provider (docs/estimating.md)");
        }
    }
}

impl Render for ConfigPath {
    fn render(&self, _: Style, out: &mut String) {
        let _ = writeln!(out, "{}", self.path);
    }
}

impl Render for Effective {
    fn render(&self, style: Style, out: &mut String) {
        let exists = if self.config.exists { "" } else { " (does not exist; built-in defaults apply)" };
        let _ = writeln!(out, "config: {} (from {}){exists}", self.config.path, self.config.source);
        let _ = writeln!(out, "strict: {} (from {})", self.strict.value, self.strict.source);
        let _ = writeln!(out, "GPU source: {} (from {})", self.gpu_source.value, self.gpu_source.source);
        if let Some(lib) = &self.nvml_library {
            let _ = writeln!(out, "NVML library: {} (from {})", lib.value.display(), lib.source);
        }
        let _ = match (&self.cpu_energy.source, &self.cpu_energy.reason) {
            (Some(k), _) => writeln!(
                out,
                "CPU source: {} (from {}): {k}, {}",
                self.cpu_source.value,
                self.cpu_source.source,
                crate::text::clean(&self.cpu_energy.zones.join(", "))
            ),
            (None, r) => writeln!(
                out,
                "CPU source: {} (from {}): not read: {}",
                self.cpu_source.value,
                self.cpu_source.source,
                crate::text::clean(r.as_deref().unwrap_or(""))
            ),
        };
        let node = match (&self.node_meter.meter, &self.node_meter.reason) {
            (Some(m), _) => crate::text::clean(m),
            (None, r) => format!("not read: {}", crate::text::clean(r.as_deref().unwrap_or(""))),
        };
        let _ = writeln!(out, "node source: {} (from {}): {node}", self.node_source.value, self.node_source.source);
        let _ = match &self.grid_region {
            Some(r) => writeln!(out, "grid region: {} (from {})", crate::text::clean(&r.value), r.source),
            None => writeln!(
                out,
                "grid region: none, so the grid intensity is the provider's default; set --region, EXAMLOPS_GRID_REGION or finops.carbon.grid.region (exa finops carbon regions lists them)"
            ),
        };
        for (name, d) in [("carbon", &self.carbon), ("cost", &self.cost)] {
            let _ = writeln!(out, "\n{name} provider: {} (from {})", d.provider.value, d.provider.source);
            if let Some(r) = &d.fallback_reason {
                let _ = writeln!(out, "  fell back: {r}");
            }
            let mut t = style.table(&["Coefficient", "Value", "Source"]);
            for (k, c) in &d.coefficients {
                t.add_row(vec![Cell::new(k), Cell::new(plain(c.value)), Cell::new(c.source)]);
            }
            let _ = writeln!(out, "{t}");
            for n in &d.notes {
                let _ = writeln!(out, "note: {n}");
            }
        }
    }
}

impl Render for ConfigWritten {
    fn render(&self, _: Style, out: &mut String) {
        let _ = writeln!(out, "{} {}", if self.replaced { "replaced" } else { "wrote" }, self.path);
        for d in &self.directories {
            let _ = writeln!(out, "ready: {d}");
        }
    }
}

impl Render for crate::commands::db::Migrated {
    fn render(&self, _: Style, out: &mut String) {
        let _ = writeln!(out, "{}: schema version {}", self.db, self.schema_version);
    }
}

impl Render for crate::commands::db::Copied {
    fn render(&self, _: Style, out: &mut String) {
        let _ = writeln!(
            out,
            "{} records read from {}; {} copied to {}, {} already there",
            self.read, self.from, self.copied, self.to, self.already_there
        );
    }
}

impl Render for crate::sinks::mlflow::Synced {
    fn render(&self, _: Style, out: &mut String) {
        let _ = writeln!(out, "{} log(s) sent to MLflow at {}; {} still waiting", self.sent, self.tracking_uri, self.still_waiting);
        if let Some(e) = &self.error {
            let _ = writeln!(out, "the first failure: {e}");
        }
    }
}

impl Render for crate::commands::kubernetes::KubeImported {
    fn render(&self, _: Style, out: &mut String) {
        let days = match self.days {
            0 => "no day".to_string(),
            1 => iso8601(self.since)[..10].to_string(),
            n => format!("{} to {} ({n} days)", &iso8601(self.since)[..10], &iso8601(self.until - 1)[..10]),
        };
        let _ = writeln!(out, "kubernetes cluster {} from {}: {days}, from {}", self.cluster, self.prometheus, self.since_from);
        let verb = if self.dry_run { "would record" } else { "recorded" };
        let recorded = if self.dry_run {
            self.pods.as_ref().map_or(0, |p| p.iter().filter(|d| d.co2e_g.is_some() || d.cost_usd.is_some()).count() as u64)
        } else {
            self.imported
        };
        let _ = writeln!(
            out,
            "{} pod-days read ({} kWh measured): {verb} {recorded}, {} already there; {} records written to {}",
            self.pod_days, self.measured_kwh, self.already_there, self.records_written, self.db
        );
        if !self.skipped.is_empty() {
            let parts: Vec<String> = self.skipped.iter().map(|(why, n)| format!("{n} {why}")).collect();
            let _ = writeln!(out, "skipped: {}", parts.join(", "));
        }
        let _ = writeln!(
            out,
            "priced by {} (carbon) and {} (cost); {} queries to Prometheus",
            self.carbon_provider, self.cost_provider, self.queries
        );
        for n in &self.notes {
            let _ = writeln!(out, "note: {n}");
        }
        for p in self.pods.iter().flatten() {
            let _ = writeln!(
                out,
                "  {}  {}  {} GPU-h  {} CPU-h  {} kWh  {} gCO2e  {} USD",
                p.run_id,
                p.model,
                p.gpu_hours,
                p.cpu_hours,
                crate::num::tidy(p.gpu_kwh.unwrap_or(0.0) + p.cpu_kwh.unwrap_or(0.0)),
                p.co2e_g.map_or("-".into(), |v| v.to_string()),
                p.cost_usd.map_or("-".into(), |v| v.to_string())
            );
        }
    }
}

impl Render for crate::commands::import::Imported {
    fn render(&self, _: Style, out: &mut String) {
        let window = match (self.since, self.until) {
            (Some(s), Some(u)) => format!(", ended {} to {}", iso8601(s), iso8601(u)),
            (Some(s), None) => format!(", ended since {}{}", iso8601(s), self.since_from.map(|f| format!(" ({f})")).unwrap_or_default()),
            (None, Some(u)) => format!(", ended before {}", iso8601(u)),
            (None, None) => String::new(),
        };
        let _ = writeln!(out, "{} cluster {} ({}) from {}{window}", self.scheduler.as_str(), self.cluster, self.cluster_from, self.source);
        let verb = if self.dry_run { "would record" } else { "recorded" };
        let _ = writeln!(
            out,
            "{} jobs read: {verb} {}, {} already there; {} records written to {}",
            self.jobs_read,
            if self.dry_run { self.jobs.as_ref().map_or(0, Vec::len) as u64 } else { self.imported },
            self.already_there,
            self.records_written,
            self.db
        );
        if !self.skipped.is_empty() {
            let parts: Vec<String> = self.skipped.iter().map(|(why, n)| format!("{n} {why}")).collect();
            let _ = writeln!(out, "skipped: {}", parts.join(", "));
        }
        if self.steps > 0 {
            let _ = writeln!(out, "{} job steps: parts of their allocations, not counted again", self.steps);
        }
        for b in &self.bad_lines {
            let field = if b.field.is_empty() { String::new() } else { format!(", field {}", b.field) };
            let _ = writeln!(out, "left out: line {}{field}: {}", b.line, b.why);
        }
        let _ = writeln!(out, "priced by {} (carbon) and {} (cost)", self.carbon_provider, self.cost_provider);
        if let Some(h) = &self.grid_history {
            let _ = writeln!(
                out,
                "grid history: {} jobs weighed against {} readings ({}) over {} days: {} requests, {} days cached",
                h.jobs_weighed, h.readings, h.shape, h.days, h.requests, h.cached
            );
        }
        if let Some(w) = self.watermark {
            let _ = writeln!(out, "the next import without --since starts at {}", iso8601(w));
        }
        for n in &self.notes {
            let _ = writeln!(out, "note: {n}");
        }
        if let Some(jobs) = &self.jobs {
            for j in jobs {
                let _ = writeln!(
                    out,
                    "  {}  {}  {} GPU-h  {} CPU-h  {} gCO2e  {} USD",
                    j.run_id,
                    j.model,
                    j.gpu_hours,
                    j.cpu_hours,
                    j.co2e_g.map_or("-".into(), |v| v.to_string()),
                    j.cost_usd.map_or("-".into(), |v| v.to_string())
                );
            }
        }
    }
}
