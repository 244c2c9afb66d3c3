//! The table and CSV forms of records and reports.

use std::fmt::Write;

use comfy_table::{Cell, CellAlignment};

use super::{num, Render, Style};
use crate::commands::record::Recorded;
use crate::store::report::{Group, Report};

/// Carbon in the unit that reads best: g, kg or t.
pub(super) fn carbon(g: f64) -> String {
    if g.abs() >= 1e6 {
        format!("{} t", num(g / 1e6, 3))
    } else if g.abs() >= 1e3 {
        format!("{} kg", num(g / 1e3, 3))
    } else {
        format!("{} g", num(g, 1))
    }
}

fn carbon_range(grp: &Group) -> String {
    match (grp.co2e_g, grp.co2e_range_g) {
        (None, _) => "not measured".into(),
        (Some(c), Some([lo, hi])) => format!("{} ({} – {})", carbon(c), carbon(lo), carbon(hi)),
        (Some(c), None) => format!("{} (range unknown)", carbon(c)),
    }
}

impl Render for Recorded {
    fn render(&self, _: Style, out: &mut String) {
        let e = &self.estimate;
        let run = self.run_id.as_ref().map(|r| format!(", run {r}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "recorded #{} for {}{run}: {} ({} {}, {})",
            self.id,
            self.model,
            e.headline(),
            e.domain,
            e.provider.name,
            self.recorded_at
        );
        let _ = writeln!(out, "in {}", self.db);
    }
}

fn row(g: &Group) -> Vec<Cell> {
    vec![
        Cell::new(&g.key),
        Cell::new(if g.runs_measured > 0 { format!("{} ({} measured)", g.runs, g.runs_measured) } else { g.runs.to_string() })
            .set_alignment(CellAlignment::Right),
        Cell::new(num(g.gpu_hours, 2)).set_alignment(CellAlignment::Right),
        Cell::new(num(g.cpu_hours, 2)).set_alignment(CellAlignment::Right),
        Cell::new(g.kwh.map_or("not measured".into(), |k| num(k, 3))).set_alignment(CellAlignment::Right),
        Cell::new(carbon_range(g)),
        Cell::new(g.cost_usd.map_or("not recorded".into(), |c| format!("{} {}", num(c, 2), g.currency)))
            .set_alignment(CellAlignment::Right),
    ]
}

/// A sparkline: one block per day, its height the day's share of the busiest day.
pub fn spark(values: &[f64]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = values.iter().copied().filter(|v| v.is_finite()).fold(0.0f64, f64::max);
    values
        .iter()
        .map(|&v| match v {
            v if !(v.is_finite() && v > 0.0 && max > 0.0) => ' ',
            v => BARS[((v / max) * 7.0).round().clamp(0.0, 7.0) as usize],
        })
        .collect()
}

/// The report table's columns beyond the base ones, each shown where any counted record has its figure.
struct Extra {
    embodied: bool,
    water: bool,
    node: bool,
}

impl Extra {
    fn head(&self, head: &mut Vec<&str>) {
        for (shown, name) in [(self.embodied, "Embodied"), (self.water, "Water"), (self.node, "Node kWh (% measured)")] {
            if shown {
                head.push(name);
            }
        }
    }

    fn cells(&self, g: &Group, r: &mut Vec<Cell>) {
        if self.embodied {
            r.push(Cell::new(g.embodied_co2e_g.map_or("-".into(), carbon)).set_alignment(CellAlignment::Right));
        }
        if self.water {
            r.push(Cell::new(g.water_l.map_or("-".into(), |w| format!("{} L", num(w, 1)))).set_alignment(CellAlignment::Right));
        }
        if self.node {
            let shown = g.node_kwh.map_or("-".into(), |n| match g.coverage_pct {
                Some(c) => format!("{} ({} %)", num(n, 3), num(c, 1)),
                None => num(n, 3),
            });
            r.push(Cell::new(shown).set_alignment(CellAlignment::Right));
        }
    }
}

impl Render for Report {
    fn render(&self, style: Style, out: &mut String) {
        let key = match self.by {
            crate::store::report::By::Model => "Model",
            crate::store::report::By::Run => "Run",
            crate::store::report::By::Provider => "Provider",
            crate::store::report::By::Day => "Day (UTC)",
            crate::store::report::By::User => "User",
            crate::store::report::By::Account => "Account",
            crate::store::report::By::Partition => "Partition",
            crate::store::report::By::Namespace => "Namespace",
            crate::store::report::By::Tag(key) => key,
        };
        if self.groups.is_empty() {
            let what = self.filter.model.as_deref().map_or("the store".to_string(), |m| format!("model {m}"));
            let window = if self.filter.since.is_some() || self.filter.until.is_some() { " in that window" } else { "" };
            let _ = match &self.filter.per {
                // Per unit of work: the records may be there, without that unit's count.
                Some(per) if per.needs_work() => writeln!(out, "{what}: no run with a {} count{window}", per.name()),
                _ => writeln!(out, "{what}: not measured (no records{window})"),
            };
            return;
        }
        let trend = self.groups.iter().any(|g| g.trend.len() > 1);
        let extra = Extra {
            embodied: self.totals.embodied_co2e_g.is_some(),
            water: self.totals.water_l.is_some(),
            node: self.totals.node_kwh.is_some(),
        };
        let mut head = vec![key, "Runs", "GPU-h", "CPU-h", "kWh", "CO2e (range)", "Cost"];
        extra.head(&mut head);
        if trend {
            head.push("Daily");
        }
        let mut t = style.table(&head);
        for g in &self.groups {
            let mut r = row(g);
            extra.cells(g, &mut r);
            if trend {
                r.push(Cell::new(spark(&g.trend)));
            }
            t.add_row(r);
        }
        if self.groups.len() > 1 {
            let mut total = row(&self.totals);
            total[0] = Cell::new("total");
            extra.cells(&self.totals, &mut total);
            if trend {
                total.push(Cell::new(spark(&self.totals.trend)));
            }
            t.add_row(total);
        }
        let _ = writeln!(out, "{t}");
        if self.totals.per.is_some() {
            let _ = writeln!(out, "{}", per_table(self, style, key));
        }
        let _ = writeln!(out, "ranges add linearly: a methodology's error is systematic, the same for every run");
        if extra.embodied {
            let _ = writeln!(out, "embodied: the hardware's manufacturing CO2e for the time the work held it, beside CO2e (not in it)");
        }
        if extra.node {
            let _ = writeln!(
                out,
                "node: over the runs whose node a meter read, their part of the whole node's energy (beside kWh, not in it), and the share of it the counters measured"
            );
        }
        for n in &self.notes {
            let _ = writeln!(out, "note: {n}");
        }
    }

    fn csv(&self) -> Option<String> {
        // Every text cell goes through `csv_field`; the numbers are exa's own.
        // New columns go at the end, so a script that reads them by position keeps working.
        let mut s = String::from(
            "key,runs,gpu_hours,cpu_hours,kwh,co2e_g,co2e_low_g,co2e_high_g,cost_usd,currency,carbon_records,cost_records,\
             embodied_co2e_g,water_l,tokens,prompt_tokens,requests\n",
        );
        let opt = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
        for g in &self.groups {
            let quoted = csv_field(&g.key);
            let _ = writeln!(
                s,
                "{quoted},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                g.runs,
                g.gpu_hours,
                g.cpu_hours,
                opt(g.kwh),
                opt(g.co2e_g),
                opt(g.co2e_range_g.map(|r| r[0])),
                opt(g.co2e_range_g.map(|r| r[1])),
                opt(g.cost_usd),
                g.currency,
                g.records.carbon,
                g.records.cost,
                opt(g.embodied_co2e_g),
                opt(g.water_l),
                opt(g.tokens),
                opt(g.prompt_tokens),
                opt(g.requests)
            );
        }
        if let Some(unit) = self.totals.per.as_ref().map(|p| p.unit.clone()) {
            s = per_csv(self, &s, &unit);
        }
        Some(node_csv(self, &s))
    }
}

/// The CSV with the node's figures at the end of each row (after those per unit, so that their places stay).
fn node_csv(r: &Report, csv: &str) -> String {
    let opt = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    let mut out = String::with_capacity(csv.len() + 32 * (r.groups.len() + 1));
    for (i, line) in csv.lines().enumerate() {
        out.push_str(line);
        if i == 0 {
            out.push_str(",node_kwh,node_rest_kwh,coverage_pct\n");
            continue;
        }
        let g = r.groups.get(i - 1);
        let _ = writeln!(
            out,
            ",{},{},{}",
            opt(g.and_then(|g| g.node_kwh)),
            opt(g.and_then(|g| g.node_rest_kwh)),
            opt(g.and_then(|g| g.coverage_pct))
        );
    }
    out
}

/// The CSV with the figures per unit (`--per`) after each row's: the unit, R, SCI and its parts.
fn per_csv(r: &Report, csv: &str, unit: &str) -> String {
    let opt = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    let mut out = String::with_capacity(csv.len() * 2);
    for (i, line) in csv.lines().enumerate() {
        out.push_str(line);
        if i == 0 {
            out.push_str(",per,r,sci_g_per_unit,co2e_g_per_unit,embodied_g_per_unit,kwh_per_unit,j_per_unit,cost_usd_per_unit\n");
            continue;
        }
        let p = r.groups.get(i - 1).and_then(|g| g.per.as_ref());
        let m = p.and_then(|p| p.m_g.zip(p.r).filter(|(_, r)| *r > 0.0).map(|(m, r)| m / r).filter(|v| v.is_finite()));
        let _ = writeln!(
            out,
            ",{},{},{},{},{},{},{},{}",
            csv_field(unit),
            opt(p.and_then(|p| p.r)),
            opt(p.and_then(|p| p.sci_g_per_unit)),
            opt(p.and_then(|p| p.co2e_g_per_unit)),
            opt(m),
            opt(p.and_then(|p| p.kwh_per_unit)),
            opt(p.and_then(|p| p.j_per_unit)),
            opt(p.and_then(|p| p.cost_usd_per_unit))
        );
    }
    out
}

/// A figure per unit, in three significant digits, or "-" where there is none.
fn each(v: Option<f64>) -> String {
    match v {
        Some(v) if v != 0.0 && (v.abs() < 1e-3 || v.abs() >= 1e6) => format!("{v:.3e}"),
        Some(v) => {
            let d = if v == 0.0 { 0 } else { (2 - v.abs().log10().floor() as i64).clamp(0, 6) as usize };
            num(v, d)
        }
        None => "-".into(),
    }
}

/// The figures per unit of work (`--per`): R, SCI, its terms, and energy and cost per unit.
fn per_table(r: &Report, style: Style, key: &str) -> String {
    let unit = r.totals.per.as_ref().map_or("unit", |p| p.unit.as_str());
    let (sci, j, usd) = (format!("gCO2e/{unit} (SCI)"), format!("J/{unit}"), format!("USD/{unit}"));
    let mut t = style.table(&[key, "R", sci.as_str(), "operational", "embodied", j.as_str(), usd.as_str()]);
    let groups = r.groups.iter().map(|g| (g.key.as_str(), g));
    let total = (r.groups.len() > 1).then_some(("total", &r.totals));
    for (name, g) in groups.chain(total) {
        let Some(p) = &g.per else { continue };
        let right = |s: String| Cell::new(s).set_alignment(CellAlignment::Right);
        t.add_row(vec![
            Cell::new(name),
            right(p.r.map_or("-".into(), |r| num(r, 0))),
            right(each(p.sci_g_per_unit)),
            right(each(p.co2e_g_per_unit)),
            right(each(p.m_g.zip(p.r).filter(|(_, r)| *r > 0.0).map(|(m, r)| m / r).filter(|v| v.is_finite()))),
            right(each(p.j_per_unit)),
            right(each(p.cost_usd_per_unit)),
        ]);
    }
    format!("per {unit}: SCI = (E x I + M) / R, O = E x I the operational CO2e, M the embodied\n{t}")
}

/// A text cell for CSV: quoted when it holds a separator, a quote or a line
/// break, and, as OWASP advises against formula injection, prefixed with `'`
/// when a spreadsheet would read it as a formula (`=`, `+`, `-`, `@`, tab, CR).
pub fn csv_field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{s}") } else { s.to_string() };
    // A ledger row written by hand may hold an escape: a CSV is read in terminals too (`cat`, `column`).
    let s = crate::text::clean(&s);
    if s.contains([',', '"', '\n', '\r']) || s.starts_with('\'') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::csv_field;

    #[test]
    fn a_sparkline_scales_to_the_busiest_day_and_leaves_empty_days_blank() {
        assert_eq!(super::spark(&[0.0, 1.0, 2.0, 4.0]), " ▃▅█");
        assert_eq!(super::spark(&[f64::INFINITY, 3.0]), " █");
    }

    #[test]
    fn formulas_are_neutralised_and_separators_quoted() {
        assert_eq!(csv_field("JPCP"), "JPCP");
        assert_eq!(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(csv_field("+1"), "\"'+1\"");
        assert_eq!(csv_field("@SUM(A1)"), "\"'@SUM(A1)\"");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
    }
}
