//! `exa report --html FILE`: one self-contained page. Charts are inline
//! SVG drawn here (no script, no network, no CDN: a Content-Security-Policy
//! forbids every fetch), the table beneath them carries each figure's exact
//! value in `data-value`, the same number `-o json` gives, and the two
//! reports themselves ride along as inert JSON.

use std::fmt::Write;

use super::num;
use crate::store::report::{Group, Report};

fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in crate::text::clean(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A number exactly as JSON writes it.
fn exact(v: f64) -> String {
    serde_json::to_string(&v).unwrap_or_else(|_| "null".into())
}

/// What a chart plots from a group.
struct Measure {
    id: &'static str,
    title: &'static str,
    unit: &'static str,
    color: &'static str,
    get: fn(&Group) -> Option<f64>,
}

const MEASURES: [Measure; 3] = [
    Measure { id: "kwh", title: "Energy", unit: "kWh", color: "#3b7dd8", get: |g| g.kwh },
    Measure { id: "co2e_g", title: "CO2e", unit: "g", color: "#3a9d5d", get: |g| g.co2e_g },
    Measure { id: "cost_usd", title: "Cost", unit: "USD", color: "#c47f1a", get: |g| g.cost_usd },
];

/// Per 1,000 tokens, from a report per token: SCI's gCO2e (operational and embodied) and the joules.
const PER_TOKEN: [Measure; 2] = [
    Measure {
        id: "sci_g_per_1k_tokens",
        title: "gCO2e per 1,000 tokens (SCI)",
        unit: "g",
        color: "#3a9d5d",
        get: |g| g.per.as_ref().and_then(|p| p.sci_g_per_unit).map(|v| v * 1000.0),
    },
    Measure {
        id: "j_per_1k_tokens",
        title: "Energy per 1,000 tokens",
        unit: "J",
        color: "#3b7dd8",
        get: |g| g.per.as_ref().and_then(|p| p.j_per_unit).map(|v| v * 1000.0),
    },
];

/// A bar chart of one measure over the groups; a group with no value has no bar and says so.
fn chart(out: &mut String, section: &str, m: &Measure, groups: &[Group]) {
    let (w, h, left, bottom, top) = (400.0, 220.0, 56.0, 64.0, 16.0);
    let max = groups.iter().filter_map(|g| (m.get)(g)).fold(0.0f64, f64::max);
    let n = groups.len().max(1) as f64;
    let slot = (w - left - 8.0) / n;
    let _ = write!(
        out,
        r#"<figure class="chart" data-chart="{section}-{id}"><figcaption>{title} ({unit}) by {section}</figcaption><svg viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="{title} by {section}">"#,
        id = m.id,
        title = m.title,
        unit = m.unit
    );
    let _ = write!(
        out,
        r##"<line x1="{left}" y1="{top}" x2="{left}" y2="{y}" stroke="#888"/><line x1="{left}" y1="{y}" x2="{x}" y2="{y}" stroke="#888"/>"##,
        y = h - bottom,
        x = w - 8.0
    );
    let _ = write!(
        out,
        r##"<text x="{x}" y="{y}" text-anchor="end" class="axis">{v}</text>"##,
        x = left - 4.0,
        y = top + 4.0,
        v = esc(&num(max, 2))
    );
    let _ = write!(out, r##"<text x="{x}" y="{y}" text-anchor="end" class="axis">0</text>"##, x = left - 4.0, y = h - bottom);
    for (i, g) in groups.iter().enumerate() {
        let x = left + slot * i as f64 + (slot - (slot * 0.7).clamp(1.0, 48.0)) / 2.0;
        let bw = (slot * 0.7).clamp(1.0, 48.0);
        let label = esc(&g.key);
        match (m.get)(g) {
            Some(v) => {
                let bh = if max > 0.0 { (v / max) * (h - bottom - top) } else { 0.0 };
                let _ = write!(
                    out,
                    r#"<rect x="{x:.2}" y="{y:.2}" width="{bw:.2}" height="{bh:.2}" fill="{c}" data-key="{label}" data-value="{val}"><title>{label}: {shown} {unit}</title></rect>"#,
                    y = h - bottom - bh,
                    c = m.color,
                    val = exact(v),
                    shown = esc(&num(v, 3)),
                    unit = m.unit
                );
            }
            None => {
                let _ =
                    write!(out, r#"<text x="{x:.2}" y="{y:.2}" class="none" data-key="{label}">not measured</text>"#, y = h - bottom - 4.0);
            }
        }
        if groups.len() <= 31 {
            let _ = write!(
                out,
                r#"<text x="{cx:.2}" y="{y:.2}" text-anchor="end" transform="rotate(-35 {cx:.2} {y:.2})" class="axis">{label}</text>"#,
                cx = x + bw / 2.0,
                y = h - bottom + 14.0
            );
        }
    }
    out.push_str("</svg></figure>");
}

fn cell(out: &mut String, field: &str, v: Option<f64>, shown: String) {
    match v {
        Some(v) => {
            let _ = write!(out, r#"<td data-field="{field}" data-value="{}">{}</td>"#, exact(v), esc(&shown));
        }
        None => {
            let _ = write!(out, r#"<td data-field="{field}" data-value="null" class="none">not measured</td>"#);
        }
    }
}

fn row(out: &mut String, g: &Group, total: bool) {
    let _ = write!(out, r#"<tr data-key="{}"{}>"#, esc(&g.key), if total { r#" class="total""# } else { "" });
    let _ = write!(out, r#"<th scope="row">{}</th>"#, esc(&g.key));
    let _ = write!(out, r#"<td data-field="runs" data-value="{0}">{0}</td>"#, g.runs);
    let _ = write!(out, r#"<td data-field="runs_measured" data-value="{0}">{0}</td>"#, g.runs_measured);
    cell(out, "gpu_hours", Some(g.gpu_hours), num(g.gpu_hours, 2));
    cell(out, "cpu_hours", Some(g.cpu_hours), num(g.cpu_hours, 2));
    cell(out, "kwh", g.kwh, g.kwh.map(|v| num(v, 3)).unwrap_or_default());
    cell(out, "co2e_g", g.co2e_g, g.co2e_g.map(|v| num(v, 1)).unwrap_or_default());
    match g.co2e_range_g {
        Some([lo, hi]) => {
            let _ = write!(out, r#"<td data-field="co2e_range_g">{} – {}</td>"#, esc(&num(lo, 1)), esc(&num(hi, 1)));
        }
        None => out.push_str(r#"<td data-field="co2e_range_g" class="none">unknown</td>"#),
    }
    cell(out, "cost_usd", g.cost_usd, g.cost_usd.map(|v| num(v, 2)).unwrap_or_default());
    cell(out, "node_kwh", g.node_kwh, g.node_kwh.map(|v| num(v, 3)).unwrap_or_default());
    cell(out, "coverage_pct", g.coverage_pct, g.coverage_pct.map(|v| num(v, 1)).unwrap_or_default());
    out.push_str("</tr>");
}

const STYLE: &str = "body{font:14px system-ui,sans-serif;margin:24px;color:#222;background:#fff}h1{font-size:20px}\
h2{font-size:16px;margin-top:28px}.charts{display:flex;flex-wrap:wrap;gap:12px}figure{margin:0}\
figcaption{font-weight:600;margin-bottom:4px}.axis{font-size:10px;fill:#555}.none{fill:#999;color:#999;font-size:10px}\
table{border-collapse:collapse;margin-top:8px}th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}\
th[scope=row]{text-align:left}tr.total{font-weight:700;background:#f4f4f4}.meta{color:#555}";

/// The page: charts over time and by model (and per 1,000 tokens, when runs counted tokens), the table by
/// model, and the reports as JSON.
pub fn page(by_model: &Report, by_day: &Report, per_token: Option<&Report>) -> String {
    let mut out = String::with_capacity(16 * 1024);
    out.push_str("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">");
    let _ = write!(out, "<title>exa report</title><style>{STYLE}</style></head><body><h1>exa report</h1>");
    let f = &by_model.filter;
    let window = match (f.since, f.until) {
        (None, None) => "all records".to_string(),
        (s, u) => format!(
            "records from {} until {}",
            s.map_or("the first".into(), crate::time::iso8601),
            u.map_or("now".into(), crate::time::iso8601)
        ),
    };
    let _ = write!(
        out,
        r#"<p class="meta">{}{} in {}. Each run is counted once: a measurement over an estimate, parts summed, repeats once. CO2e range: {}.</p>"#,
        esc(&window),
        f.model.as_ref().map(|m| format!(", model {}", esc(m))).unwrap_or_default(),
        esc(&by_model.db),
        esc(by_model.range_method)
    );
    out.push_str(r#"<h2>Over time (UTC days)</h2><div class="charts" id="over-time">"#);
    for m in &MEASURES {
        chart(&mut out, "day", m, &by_day.groups);
    }
    out.push_str(r#"</div><h2>By model</h2><div class="charts" id="by-model">"#);
    for m in &MEASURES {
        chart(&mut out, "model", m, &by_model.groups);
    }
    if let Some(p) = per_token.filter(|p| !p.groups.is_empty()) {
        out.push_str(r#"</div><h2>Per 1,000 tokens by model</h2><div class="charts" id="per-token">"#);
        for m in &PER_TOKEN {
            chart(&mut out, "model", m, &p.groups);
        }
    }
    out.push_str("</div><h2>Totals by model</h2><table id=\"totals\"><thead><tr><th>Model</th><th>Runs</th><th>Measured</th><th>GPU-h</th><th>CPU-h</th><th>kWh</th><th>CO2e g</th><th>CO2e range g</th><th>Cost USD</th><th title=\"the metered runs' part of their nodes' energy\">Node kWh</th><th title=\"the counters' share of the node kWh\">Measured %</th></tr></thead><tbody>");
    for g in &by_model.groups {
        row(&mut out, g, false);
    }
    out.push_str("</tbody><tfoot>");
    row(&mut out, &by_model.totals, true);
    out.push_str("</tfoot></table>");
    for n in &by_model.notes {
        let _ = write!(out, r#"<p class="meta note">{}</p>"#, esc(n));
    }
    let data = serde_json::json!({ "by_model": by_model, "by_day": by_day, "per_token_by_model": per_token });
    // Inert data for tools. Inside <script>, `<!--` and `<script` change how the HTML parser ends the element (the rest of the page
    // would be swallowed), and `</script` ends it: `<`, `>` and `&` go as JSON escapes, the same JSON to a reader.
    let json = script_safe(&serde_json::to_string(&data).expect("reports serialise"));
    let _ = write!(out, r#"<script type="application/json" id="exa-report">{json}</script></body></html>"#);
    out.push('\n');
    out
}

/// A component's plot: exa's mean watts and the reference's, bin by bin, as two lines over the run (a bin one side
/// does not cover breaks its line).
fn plot(out: &mut String, c: &crate::commands::validate::Component) {
    let (w, h, left, bottom, top) = (720.0, 260.0, 56.0, 28.0, 12.0);
    let most = c.plot.iter().flat_map(|(_, e, r)| [*e, *r]).flatten().fold(0.0f64, f64::max);
    let span = c.plot.last().map_or(0.0, |p| p.0).max(1e-9);
    let (x, y) =
        (|t: f64| left + t / span * (w - left - 8.0), |v: f64| h - bottom - if most > 0.0 { v / most * (h - bottom - top) } else { 0.0 });
    let _ = write!(
        out,
        r#"<figure class="chart wide" data-component="{name}"><figcaption>{name}: mean power, W, exa and the reference</figcaption><svg viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="{name}: exa's power and the reference's">"#,
        name = esc(&c.name)
    );
    let _ = write!(
        out,
        r##"<line x1="{left}" y1="{top}" x2="{left}" y2="{b}" stroke="#888"/><line x1="{left}" y1="{b}" x2="{r}" y2="{b}" stroke="#888"/><text x="{l}" y="{t}" text-anchor="end" class="axis">{most}</text><text x="{l}" y="{b}" text-anchor="end" class="axis">0</text><text x="{r}" y="{lb}" text-anchor="end" class="axis">{span} s</text>"##,
        b = h - bottom,
        r = w - 8.0,
        l = left - 4.0,
        t = top + 4.0,
        lb = h - 8.0,
        most = esc(&num(most, 0)),
        span = esc(&num(span, 0))
    );
    for (series, color, pick) in [("exa", "#3b7dd8", 1usize), ("reference", "#d8843b", 2usize)] {
        let mut runs: Vec<Vec<String>> = vec![Vec::new()];
        for p in &c.plot {
            match if pick == 1 { p.1 } else { p.2 } {
                Some(v) => runs.last_mut().expect("one run at least").push(format!("{:.2},{:.2}", x(p.0), y(v))),
                None if runs.last().is_some_and(|r| !r.is_empty()) => runs.push(Vec::new()),
                None => {}
            }
        }
        for r in runs.iter().filter(|r| !r.is_empty()) {
            let _ = write!(
                out,
                r#"<polyline data-series="{series}" fill="none" stroke="{color}" stroke-width="1.5" points="{}"/>"#,
                r.join(" ")
            );
        }
    }
    out.push_str(
        r##"<text x="64" y="24" style="fill:#3b7dd8">exa</text><text x="104" y="24" style="fill:#d8843b">reference</text></svg></figure>"##,
    );
}

/// `exa validate --html`: each component's two series plotted, aligned, and the errors by window length.
pub fn validation_page(v: &crate::commands::validate::Validation) -> String {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">");
    let _ = write!(out, "<title>exa validate</title><style>{STYLE}</style></head><body><h1>exa validate</h1>");
    let _ = write!(
        out,
        r#"<p class="meta">{} against {}: clock offset {:+.3} s ({}){}.</p>"#,
        esc(&v.trace),
        esc(&v.reference),
        v.offset_s,
        v.offset_from,
        v.correlation.map(|r| format!(", r = {r:.4}")).unwrap_or_default()
    );
    for c in &v.components {
        let _ = write!(out, "<h2>{}</h2>", esc(&c.name));
        plot(&mut out, c);
        let _ = write!(
            out,
            r#"<p class="meta">exa {} J, the reference {} J over {} s compared: bias {}.</p>"#,
            esc(&num(c.exa_j, 1)),
            esc(&num(c.reference_j, 1)),
            esc(&num(c.compared_s, 1)),
            c.bias_pct.map_or("none (the reference drew nothing)".into(), |b| format!("{b:+.3} %"))
        );
        out.push_str("<table><thead><tr><th>Window s</th><th>Compared</th><th>Skipped</th><th>MAPE %</th><th>Bias %</th><th>Worst %</th></tr></thead><tbody>");
        for w in &c.windows {
            let _ = write!(out, r#"<tr data-key="{}-{}">"#, esc(&c.name), exact(w.seconds));
            let _ = write!(out, "<td>{}</td><td>{}</td><td>{}</td>", exact(w.seconds), w.compared, w.skipped);
            for (field, value) in [("mape_pct", w.mape_pct), ("bias_pct", w.bias_pct), ("max_abs_pct", w.max_abs_pct)] {
                match value {
                    Some(v) => cell(&mut out, field, value, num(v, 3)),
                    None => {
                        let _ = write!(out, r#"<td data-field="{field}" data-value="null" class="none">none compared</td>"#);
                    }
                }
            }
            out.push_str("</tr>");
        }
        out.push_str("</tbody></table>");
    }
    for n in &v.notes {
        let _ = write!(out, r#"<p class="meta note">{}</p>"#, esc(n));
    }
    let json = script_safe(&serde_json::to_string(v).expect("a validation serialises"));
    let _ = write!(out, r#"<script type="application/json" id="exa-validation">{json}</script></body></html>"#);
    out.push('\n');
    out
}

/// JSON made safe inside a `<script>` element: `<`, `>` and `&` (and the line separators some parsers take as
/// line ends) written as `\u` escapes, which any JSON reader reads back as the same characters.
fn script_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}
