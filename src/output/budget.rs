//! The table forms of `exa budget`'s answers.

use std::fmt::Write;

use comfy_table::{Cell, CellAlignment};

use super::{num, Render, Style};
use crate::commands::budget::{Checked, Done, Kept, Listed, Notified, Pace, State, Status};
use crate::model::budget::{Budget, Unit};
use crate::time::iso8601;

fn limits(b: &Budget) -> String {
    let shown: Vec<String> = Unit::ALL.iter().filter_map(|u| b.limit(*u).map(|v| format!("{} {}", num(v, 2), u.label()))).collect();
    shown.join(", ")
}

fn warn(b: &Budget) -> String {
    let lines: Vec<String> = b.warn.iter().map(|w| format!("{} %", num(*w, 0))).collect();
    if lines.is_empty() {
        "none".into()
    } else {
        lines.join(", ")
    }
}

fn right(s: String) -> Cell {
    Cell::new(s).set_alignment(CellAlignment::Right)
}

fn state(style: Style, s: State) -> Cell {
    style.status(match s {
        State::Ok => "ok",
        State::Warn => "warn",
        State::Over => "over",
    })
}

impl Render for Done {
    fn render(&self, _: Style, out: &mut String) {
        let c = &self.change;
        let _ = match &c.budget {
            Some(b) => writeln!(
                out,
                "budget '{}' {}: {} a {} for {}, warning at {} ({} by {}; {})",
                c.name,
                c.action,
                limits(b),
                b.period.name(),
                b.scope,
                warn(b),
                iso8601(c.at),
                c.by,
                self.db
            ),
            None => writeln!(out, "budget '{}' removed ({} by {}; its changes stay in {})", c.name, iso8601(c.at), c.by, self.db),
        };
    }
}

fn kept_row(k: &Kept) -> Vec<Cell> {
    vec![
        Cell::new(&k.name),
        Cell::new(k.budget.scope.to_string()),
        Cell::new(k.budget.period.name()),
        Cell::new(limits(&k.budget)),
        Cell::new(warn(&k.budget)),
        Cell::new(format!("{} by {}", iso8601(k.set_at), k.set_by)),
    ]
}

impl Render for Listed {
    fn render(&self, style: Style, out: &mut String) {
        if let Some(changes) = &self.changes {
            let mut t = style.table(&["When", "Budget", "Change", "By", "Terms"]);
            for c in changes {
                let terms = c.budget.as_ref().map(|b| format!("{}: {} a {}", b.scope, limits(b), b.period.name())).unwrap_or_default();
                t.add_row(vec![Cell::new(iso8601(c.at)), Cell::new(&c.name), Cell::new(c.action), Cell::new(&c.by), Cell::new(terms)]);
            }
            let _ = writeln!(out, "{t}");
        }
        if self.budgets.is_empty() {
            let _ = writeln!(out, "no budgets in {} (exa budget set NAME --scope ... --period ... --kwh|--kgco2e|--usd ...)", self.db);
            return;
        }
        let mut t = style.table(&["Budget", "Scope", "Period", "Limits", "Warn at", "Set"]);
        for k in &self.budgets {
            t.add_row(kept_row(k));
        }
        let _ = writeln!(out, "{t}");
    }
}

fn pace(p: Option<&Pace>, digits: usize) -> String {
    match p {
        None => "-".into(),
        Some(p) => {
            let out = p.runs_out.map_or_else(String::new, |t| format!(", out {}", iso8601(t).get(..10).unwrap_or_default()));
            format!("{}{out}", num(p.at_period_end, digits))
        }
    }
}

impl Render for Status {
    fn render(&self, style: Style, out: &mut String) {
        if self.budgets.is_empty() {
            let _ = writeln!(out, "no budgets in {}", self.db);
            return;
        }
        let mut t =
            style.table(&["Budget", "Period", "Unit", "Used", "Limit", "%", "Left", "At period end: its pace", "7 days' pace", "State"]);
        for b in &self.budgets {
            let period = format!(
                "{} to {}",
                iso8601(b.period_start).get(..10).unwrap_or_default(),
                iso8601(b.period_end - 1).get(..10).unwrap_or_default()
            );
            for u in &b.units {
                let d = if u.unit == Unit::Usd { 2 } else { 3 };
                t.add_row(vec![
                    Cell::new(format!("{} ({})", b.name, b.scope)),
                    Cell::new(&period),
                    Cell::new(u.unit.label()),
                    right(num(u.used, d)),
                    right(num(u.limit, d)),
                    right(num(u.percent, 1)),
                    right(num(u.left, d)),
                    right(pace(u.period_pace.as_ref(), d)),
                    right(pace(u.last_7_days_pace.as_ref(), d)),
                    state(style, u.state),
                ]);
            }
        }
        Style::whole_numbers(&mut t, &[0, 1]);
        let _ = writeln!(out, "{t}");
        let _ = writeln!(out, "as of {}; counted {}", iso8601(self.at), self.counting);
    }
}

impl Render for Checked {
    fn render(&self, _: Style, out: &mut String) {
        let _ = writeln!(out, "{}", self.message);
        if let Some(a) = &self.added {
            let _ = writeln!(
                out,
                "the work added: {} GPU-h, {} CPU-h = {} kWh, {} kgCO2e ({}), {} USD ({})",
                num(a.gpu_hours, 2),
                num(a.cpu_hours, 2),
                num(a.kwh, 3),
                num(a.kgco2e, 3),
                a.carbon_provider,
                num(a.usd, 2),
                a.cost_provider
            );
        }
        if self.advise_only && self.verdict != "within" {
            let _ = writeln!(out, "--advise-only: exit 0 all the same");
        }
    }
}

impl Render for Notified {
    fn render(&self, _: Style, out: &mut String) {
        for e in &self.events {
            let why = e.error.as_deref().map(|w| format!(": {w}")).unwrap_or_default();
            let _ = writeln!(out, "{} {}{why}", e.outcome, e.key);
        }
        let _ = writeln!(
            out,
            "{} sent, {} failed (kept, sent by the next run) to {}; as of {}",
            self.sent,
            self.failed,
            self.destinations.join(" and "),
            iso8601(self.at)
        );
    }
}
