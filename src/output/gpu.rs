//! The table form of GPU readings and measurements.

use std::fmt::Write;

use comfy_table::Cell;

use super::{num, Render, Style};
use crate::commands::gpu::GpuReading;
use crate::model::Measurement;

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map(|x| num(x, digits)).unwrap_or_default()
}

fn of(a: Option<f64>, b: Option<f64>, digits: usize) -> String {
    match (a, b) {
        (None, None) => String::new(),
        (a, b) => format!("{} / {}", a.map_or("?".into(), |x| num(x, digits)), b.map_or("?".into(), |x| num(x, digits))),
    }
}

/// Parts joined by ` · `, on lines no wider than a terminal's `width` (broken between parts); one line
/// when the width is not known (not a terminal), as scripts read it.
fn wrap_parts(parts: &[String], width: Option<u16>) -> String {
    let Some(width) = width.map(usize::from) else { return parts.join(" · ") };
    let mut lines: Vec<String> = Vec::new();
    for p in parts {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 3 + p.chars().count() <= width => {
                l.push_str(" · ");
                l.push_str(p);
            }
            _ => lines.push(p.clone()),
        }
    }
    lines.join("\n")
}

impl Render for GpuReading {
    fn render(&self, style: Style, out: &mut String) {
        // A narrow terminal gets the main columns; `--wide` and JSON have them all.
        let t = if self.wide {
            // Every column at its full width: the terminal may wrap the lines, but never a cell.
            let mut t = self.wide_table(style);
            t.set_content_arrangement(comfy_table::ContentArrangement::Disabled);
            t
        } else if style.narrower_than(150) {
            self.narrow_table(style)
        } else {
            self.wide_table(style)
        };
        let _ = writeln!(out, "{t}");
        let a = &self.aggregates;
        let parts = [
            format!("{} GPU(s)", a.gpu_count),
            format!(
                "mean utilisation {} ({} reporting)",
                a.mean_utilization_pct.map_or("n/a".into(), |v| format!("{v:.1}%")),
                a.utilization_count
            ),
            format!("memory used {} GiB ({})", a.total_memory_used_gib.map_or("n/a".into(), |v| format!("{v:.2}")), a.memory_count),
            format!("power {} W ({})", a.total_power_w.map_or("n/a".into(), |v| format!("{v:.1}")), a.power_count),
            format!("max temperature {} °C ({})", a.max_temperature_c.map_or("n/a".into(), |v| format!("{v:.0}")), a.temperature_count),
        ];
        let _ = writeln!(out, "{}", wrap_parts(&parts, style.width));
        let _ = writeln!(out, "source: {} ({} fields)", self.source_detail, self.fields);
        for n in &self.notes {
            let _ = writeln!(out, "note: {n}");
        }
    }
}

impl Render for Measurement {
    fn render(&self, style: Style, out: &mut String) {
        let what = self.command.as_ref().map_or_else(|| "the node".to_string(), |c| c.join(" "));
        let _ = writeln!(out, "exa measured {what}: {:.1} s from {}", self.duration_s, self.started_at);
        if let Some(code) = self.exit_code {
            let by = self.killed_by.as_ref().map(|s| format!(" (killed by {s})")).unwrap_or_default();
            let _ = writeln!(out, "exit status {code}{by}");
        }
        if let Some(sig) = &self.interrupted {
            let _ = writeln!(out, "interrupted by {sig}: the figures cover the run up to then");
        }
        let g = &self.gpu;
        match g.energy_kwh {
            Some(kwh) => {
                let _ = writeln!(
                    out,
                    "GPU energy: {kwh:.6} kWh over {:.4} device-hours, mean {:.1} W ({} samples, {} missed, every {} s)",
                    g.device_hours.unwrap_or(0.0),
                    g.mean_power_w.unwrap_or(0.0),
                    g.samples,
                    g.missed,
                    self.interval_s.value
                );
            }
            None => {
                let _ = writeln!(out, "GPU energy: not measured ({})", g.reason.as_deref().unwrap_or("no reading"));
            }
        }
        if g.energy_kwh.is_some() {
            if let Some(r) = &g.reason {
                let _ = writeln!(out, "note: {r}");
            }
        }
        if !g.devices.is_empty() {
            devices(style, &g.devices, out);
        }
        scope(g, out);
        if let Some(c) = &self.cpu {
            let _ = match (c.user_s, c.system_s) {
                (Some(u), Some(s)) => writeln!(out, "CPU: {:.6} CPU-hours ({u:.2} s user + {s:.2} s system; {})", c.hours, c.source),
                _ => writeln!(out, "CPU: {:.6} CPU-hours ({})", c.hours, c.source),
            };
        }
        cpu_energy(&self.cpu_energy, out);
        node_energy(&self.node, out);
        if let Some(w) = &self.work {
            work(w, out);
        }
        priced(self, out);
        if let Some(r) = &self.recorded {
            let ids: Vec<String> = r.ids.iter().map(|i| format!("#{i}")).collect();
            let run = r.run_id.as_deref().map(|id| format!(" as run {}", crate::text::clean(id))).unwrap_or_default();
            let _ = writeln!(out, "recorded {} for {}{run} in {}", ids.join(", "), r.model, r.db);
        }
        for p in &self.pushed {
            let _ = match &p.error {
                None => writeln!(out, "pushed the run's totals to {} ({})", p.to, p.url),
                Some(e) => writeln!(out, "not pushed to {} ({}): {e}", p.to, p.url),
            };
        }
        if let Some(el) = &self.electricity {
            let _ = writeln!(
                out,
                "electricity: {:.4} USD ({:.6} kWh at {} USD/kWh, from {}); {}",
                el.cost_usd, el.kwh, el.price_per_kwh.value, el.price_per_kwh.source, el.note
            );
        }
    }
}

/// The work the run did, where it came from, and the GPU energy per token.
fn work(w: &crate::model::MeasuredWork, out: &mut String) {
    let mut parts = Vec::new();
    for (n, what) in [(w.work.tokens, "tokens"), (w.work.prompt_tokens, "prompt tokens"), (w.work.requests, "requests")] {
        if let Some(n) = n {
            parts.push(format!("{} {what}", super::num(n, 0)));
        }
    }
    if let Some((name, n)) = &w.work.unit {
        parts.push(format!("{} {}", super::num(*n, 0), crate::text::clean(name)));
    }
    let from = match (w.server, &w.url) {
        (Some(s), Some(u)) => format!(" (the increase of {s}'s counters at {})", crate::text::clean(u)),
        _ => String::new(),
    };
    let per = w.gpu_j_per_token.map(|j| format!("; {j:.4} J of GPU energy per token")).unwrap_or_default();
    match &w.error {
        Some(e) => {
            let _ = writeln!(out, "work: not counted{from}: {e}");
        }
        None => {
            let _ = writeln!(out, "work: {}{from}{per}", if parts.is_empty() { "none counted".to_string() } else { parts.join(", ") });
        }
    }
}

/// Which GPUs were read, from what, and who else used them.
fn scope(g: &crate::model::Gpu, out: &mut String) {
    let s = &g.scope;
    let which = match (&s.devices, &s.measured) {
        (None, Some(m)) => format!("every GPU ({})", m.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")),
        (None, None) => "every GPU".to_string(),
        (Some(d), _) if d.is_empty() => "no GPU".to_string(),
        (Some(d), _) => format!("GPUs {}", d.join(", ")),
    };
    let from = if s.from == "all" { "no job scope set".to_string() } else { format!("from {}", s.from) };
    let by = g.source_detail.as_ref().map(|d| format!(", read through {d}")).unwrap_or_default();
    let _ = writeln!(out, "scope: {which} ({from}){by}");
    for n in &s.notes {
        let _ = writeln!(out, "note: {n}");
    }
    for d in &g.devices {
        if let Some(s) = d.share.as_ref().filter(|s| s.weight == "allocation") {
            let _ = writeln!(
                out,
                "note: GPU {}: this job's MIG instances hold {:.6} of the GPU's {:.6} kWh, by their compute slices (idle included)",
                d.index, s.job_kwh, s.device_kwh
            );
        }
    }
    for d in g.devices.iter().filter(|d| d.shared_with.is_some_and(|n| n > 0) && d.share.as_ref().is_none_or(|s| s.weight != "allocation"))
    {
        let n = d.shared_with.unwrap_or(0);
        let others = format!("{n} other process{}", if n == 1 { "" } else { "es" });
        let _ = match &d.share {
            Some(s) => {
                let weight = s.uncertainty.map(|u| format!(", ±{:.0} % by the weight chosen", u * 100.0)).unwrap_or_default();
                let idle = s.idle_w.map_or_else(
                    || ", the device never idled: its idle power is inside the shares".to_string(),
                    |w| format!(", at {w:.0} W idle"),
                );
                writeln!(
                    out,
                    "note: GPU {} was shared with {others}: this job's share is {:.6} of the device's {:.6} kWh (by SM activity{weight}; \
                     idle energy {:.6} kWh, shared {}{idle})",
                    d.index, s.job_kwh, s.device_kwh, s.idle_seen_kwh, s.idle_policy
                )
            }
            None => writeln!(
                out,
                "note: GPU {} was shared with {others}: its energy is the device's, not this job's alone (not split: the source \
                 said no process's activity, or no process is known as the job's: no command or --pid, or none of its seen busy)",
                d.index
            ),
        };
    }
}

/// Each measured device: energy, power, temperature, samples and throttling.
fn devices(style: Style, devices: &[crate::model::DeviceSummary], out: &mut String) {
    let mut t =
        style.table(&["GPU", "Name", "Energy kWh", "Method", "Mean W", "p95 W", "Peak W", "Peak °C", "Samples", "Missed", "Throttling"]);
    for d in devices {
        let th: Vec<&str> = [(d.throttled.thermal, "thermal"), (d.throttled.power, "power"), (d.throttled.hw_slowdown, "hw")]
            .iter()
            .filter(|(f, _)| *f)
            .map(|(_, n)| *n)
            .collect();
        t.add_row(vec![
            Cell::new(d.index),
            Cell::new(&d.name),
            Cell::new(d.energy_kwh.map_or("not measured".into(), |k| format!("{k:.6}"))),
            Cell::new(d.energy_method.unwrap_or("")),
            Cell::new(opt(d.mean_power_w, 1)),
            Cell::new(opt(d.p95_power_w, 1)),
            Cell::new(opt(d.peak_power_w, 1)),
            Cell::new(opt(d.peak_temperature_c, 0)),
            Cell::new(d.samples),
            Cell::new(d.missed),
            Cell::new(if th.is_empty() { "none".to_string() } else { th.join(",") }),
        ]);
    }
    let _ = writeln!(out, "{t}");
}

/// The carbon and cost lines of a measurement, or why each is missing.
fn priced(m: &Measurement, out: &mut String) {
    for (label, est, err) in [("carbon", &m.carbon, &m.carbon_error), ("cost", &m.cost, &m.cost_error)] {
        match (est, err) {
            (Some(e), _) => {
                let measured: Vec<&str> =
                    e.coefficients.iter().filter(|(_, c)| c.source == crate::model::Source::Measured).map(|(k, _)| k.as_str()).collect();
                let m = if measured.is_empty() { String::new() } else { format!("; measured: {}", measured.join(", ")) };
                let _ = writeln!(out, "{label}: {} ({}, {}{m})", e.headline(), e.provider.name, super::pct(e.provider.uncertainty));
                // What the figure leaves out (CPU-hours a provider cannot price) is said here as in the JSON.
                for n in &e.notes {
                    let _ = writeln!(out, "  note: {}", crate::text::clean(n));
                }
            }
            (None, Some(err)) => {
                let _ = writeln!(out, "{label}: not estimated ({err})");
            }
            (None, None) => {}
        }
    }
}

impl GpuReading {
    fn wide_table(&self, style: Style) -> comfy_table::Table {
        let mut t = style.table(&[
            "GPU",
            "Name",
            "Util %",
            "Mem %",
            "Mem used / total MiB",
            "Temp °C",
            "Power / limit W",
            "SM MHz",
            "Mem MHz",
            "Fan %",
            "P",
            "Throttle",
            "ECC c/u",
        ]);
        for d in &self.devices {
            let ecc = match (d.ecc_corrected, d.ecc_uncorrected) {
                (None, None) => String::new(),
                (c, u) => format!("{}/{}", c.map_or("?".into(), |v| v.to_string()), u.map_or("?".into(), |v| v.to_string())),
            };
            t.add_row(vec![
                Cell::new(d.index),
                Cell::new(&d.name),
                Cell::new(opt(d.utilization_pct, 0)),
                Cell::new(opt(d.memory_utilization_pct, 0)),
                Cell::new(of(d.memory_used_mib, d.memory_total_mib, 0)),
                Cell::new(opt(d.temperature_c, 0)),
                Cell::new(of(d.power_w, d.power_limit_w, 1)),
                Cell::new(opt(d.clock_sm_mhz, 0)),
                Cell::new(opt(d.clock_memory_mhz, 0)),
                Cell::new(opt(d.fan_pct, 0)),
                Cell::new(d.pstate.map(|p| format!("P{p}")).unwrap_or_default()),
                Cell::new(throttled(d)),
                Cell::new(ecc),
            ]);
        }
        Style::whole_numbers(&mut t, &[1]);
        t
    }

    fn narrow_table(&self, style: Style) -> comfy_table::Table {
        let mut t = style.table(&["GPU", "Name", "Util %", "Mem GiB", "°C", "Power W", "Throttle"]);
        let gib = |v: Option<f64>| v.map(|m| m / 1024.0);
        for d in &self.devices {
            t.add_row(vec![
                Cell::new(d.index),
                Cell::new(&d.name),
                Cell::new(opt(d.utilization_pct, 0)),
                Cell::new(of(gib(d.memory_used_mib), gib(d.memory_total_mib), 1)),
                Cell::new(opt(d.temperature_c, 0)),
                Cell::new(of(d.power_w, d.power_limit_w, 0)),
                Cell::new(throttled(d)),
            ]);
        }
        Style::whole_numbers(&mut t, &[1]);
        t
    }
}

/// The causes a device reports it is throttled for, comma-separated.
fn throttled(d: &crate::model::Device) -> String {
    [(d.throttle_thermal, "thermal"), (d.throttle_power, "power"), (d.throttle_hw_slowdown, "hw")]
        .iter()
        .filter(|(f, _)| *f == Some(true))
        .map(|(_, n)| *n)
        .collect::<Vec<_>>()
        .join(",")
}

impl Render for crate::commands::telemetry::Stopped {
    fn render(&self, _: Style, out: &mut String) {
        let at = self.listen.as_deref().or(self.otlp.as_deref()).unwrap_or("");
        let _ = writeln!(out, "exa gpu {} ({at}, {} names) stopped; GPU readings: {}", self.exporter, self.semconv, self.status);
        match self.energy_kwh {
            Some(k) => {
                let _ = writeln!(out, "GPU energy while it ran: {k:.6} kWh ({})", self.source.unwrap_or("no source"));
            }
            None => {
                let _ = writeln!(out, "GPU energy while it ran: not measured");
            }
        }
    }
}

/// The CPU and memory energy line: what was read, the job's share and how; or why nothing was.
fn cpu_energy(e: &crate::model::CpuEnergy, out: &mut String) {
    let (Some(cpu), Some(method)) = (e.cpu_kwh, e.method) else {
        let why = e.reason.as_deref().map(crate::text::clean).unwrap_or_default();
        let _ = writeln!(out, "CPU and RAM energy: not measured ({why}); the CPU-hours are priced by an assumed power");
        return;
    };
    let dram = e.dram_kwh.map_or("no DRAM counter".to_string(), |d| format!("DRAM {d:.6} kWh"));
    let zones: Vec<&str> = e.zones.iter().map(|z| z.id.as_str()).collect();
    let _ = writeln!(
        out,
        "CPU energy: {cpu:.6} kWh, {dram} ({method}, share {:.3}; {} from {})",
        e.share.unwrap_or(1.0),
        e.source.unwrap_or("?"),
        crate::text::clean(&zones.join(", "))
    );
    if let Some(why) = &e.method_reason {
        let _ = writeln!(out, "  {}", crate::text::clean(why));
    }
    for n in &e.notes {
        let _ = writeln!(out, "  note: {}", crate::text::clean(n));
    }
}

fn node_energy(n: &crate::model::NodeEnergy, out: &mut String) {
    let (Some(node), Some(measured), Some(rest)) = (n.node_kwh, n.measured_kwh, n.remainder_kwh) else {
        let why = n.reason.as_deref().map(crate::text::clean).unwrap_or_default();
        let _ = writeln!(out, "node energy: not measured ({why})");
        for note in &n.notes {
            let _ = writeln!(out, "  note: {}", crate::text::clean(note));
        }
        return;
    };
    let coverage = n.coverage_pct.map(|c| format!(", {c:.1} % of it")).unwrap_or_default();
    let _ = writeln!(
        out,
        "node energy: {node:.6} kWh ({}, {}); measured {measured:.6} kWh{coverage} (GPUs read, CPU packages, DRAM); the rest {rest:.6} kWh",
        n.source.unwrap_or("?"),
        crate::text::clean(n.meter.as_deref().unwrap_or_default())
    );
    if let (Some(job), Some(share)) = (n.job_remainder_kwh, n.share) {
        let _ = writeln!(
            out,
            "  the job's part of the rest: {job:.6} kWh ({}, {share:.3}); estimated, not added to the measured energy",
            n.policy.unwrap_or("by measured share")
        );
    }
    for note in &n.notes {
        let _ = writeln!(out, "  note: {}", crate::text::clean(note));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_summary_wraps_between_parts_on_a_narrow_terminal() {
        let parts: Vec<String> = [
            "8 GPU(s)",
            "mean utilisation 97.5% (8 reporting)",
            "memory used 612.34 GiB (8)",
            "power 5123.4 W (8)",
            "max temperature 71 °C (8)",
        ]
        .map(String::from)
        .to_vec();
        let wrapped = super::wrap_parts(&parts, Some(80));
        assert!(wrapped.lines().all(|l| l.chars().count() <= 80), "{wrapped}");
        assert_eq!(wrapped.replace('\n', " · "), parts.join(" · "), "nothing lost, nothing reordered");
        assert_eq!(super::wrap_parts(&parts, None), parts.join(" · "), "one line for scripts");
    }
}
