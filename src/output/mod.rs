//! Rendering reports: a table for people, JSON for programs.
//!
//! Every report is `Serialize` (the JSON contract) and `Render` (the table).
//! Rendering writes into a buffer; only `emit` touches stdout, so a closed
//! pipe is noticed in one place. Nothing here computes a figure.

mod budget;
pub mod focus;
mod gpu;
pub mod html;
mod metrics;
mod records;
mod tables;

use std::io::{self, IsTerminal, Write};

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{modifiers::UTF8_ROUND_CORNERS, Attribute, Cell, Color, ContentArrangement, Table};
use serde::Serialize;

use crate::cli::Format;

/// How a table is drawn.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
    /// The terminal's columns, when stdout is a terminal that says (0 counts as 80).
    pub width: Option<u16>,
}

impl Style {
    /// Colour only on a terminal, and never with `NO_COLOR` set.
    pub fn detect() -> Style {
        let tty = io::stdout().is_terminal();
        Style { color: tty && !crate::settings::no_color(), width: if tty { Some(terminal_width().unwrap_or(80)) } else { None } }
    }

    /// True when the terminal is narrower than `columns`.
    pub fn narrower_than(&self, columns: u16) -> bool {
        self.width.is_some_and(|w| w < columns)
    }

    pub fn table(&self, header: &[&str]) -> Table {
        let mut t = Table::new();
        t.load_preset(UTF8_FULL_CONDENSED).apply_modifier(UTF8_ROUND_CORNERS).set_content_arrangement(ContentArrangement::Dynamic);
        // The terminal's width (a terminal that reports 0 columns gets 80, not a one-character table).
        if let Some(w) = self.width {
            t.set_width(if w < 20 { 80 } else { w });
        }
        if self.color {
            t.enforce_styling();
            t.set_header(header.iter().map(|h| Cell::new(h).add_attribute(Attribute::Bold)));
        } else {
            t.force_no_tty();
            t.set_header(header.iter().map(Cell::new));
        }
        t
    }

    /// Keeps every column but `wrap` at its content's width, so a number is never split across lines.
    pub fn whole_numbers(t: &mut Table, wrap: &[usize]) {
        for (i, c) in t.column_iter_mut().enumerate() {
            if !wrap.contains(&i) {
                c.set_constraint(comfy_table::ColumnConstraint::ContentWidth);
            }
        }
    }

    pub fn status(&self, status: &str) -> Cell {
        let c = Cell::new(status);
        if !self.color {
            return c;
        }
        match status {
            "ok" => c.fg(Color::Green),
            "broken" => c.fg(Color::Red),
            _ => c.fg(Color::Yellow),
        }
    }
}

/// The columns of the terminal on stdout; `None` when it does not say.
fn terminal_width() -> Option<u16> {
    // SAFETY: TIOCGWINSZ fills the winsize struct, which is valid for the call.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) } == 0;
    (ok && ws.ws_col > 0).then_some(ws.ws_col)
}

/// A report people read as text.
pub trait Render: Serialize {
    fn render(&self, style: Style, out: &mut String);

    /// The report as CSV, for the reports that have a tabular form.
    fn csv(&self) -> Option<String> {
        None
    }
}

/// Text printed as it is (completions, man pages); in JSON, `{"text": ...}`.
#[derive(Debug, Serialize)]
pub struct Text {
    pub text: String,
}

impl Render for Text {
    fn render(&self, _: Style, out: &mut String) {
        out.push_str(&self.text);
    }
}

/// Serialises a report as pretty JSON with a trailing newline.
pub fn json<R: Serialize + ?Sized>(report: &R) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("reports serialise");
    s.push('\n');
    s
}

/// A report as text in `format`.
pub fn render<R: Render + ?Sized>(report: &R, format: Format) -> Result<String, crate::error::Error> {
    match format {
        Format::Json => Ok(json(report)),
        Format::Csv => {
            report.csv().ok_or_else(|| crate::error::Error::Usage("-o csv is for `exa report`; use -o json or -o table here".into()))
        }
        Format::Table => {
            let style = Style::detect();
            let mut s = String::new();
            report.render(style, &mut s);
            Ok(crate::text::for_terminal(&s, style.color))
        }
    }
}

/// Writes a report to stdout. A closed pipe is not an error (`exa ... | head`).
pub fn emit<R: Render + ?Sized>(report: &R, format: Format) -> anyhow::Result<()> {
    write_stdout(render(report, format)?.as_bytes())?;
    Ok(())
}

/// Sampler diagnostics, as they happen: warnings and the live line on stderr.
pub struct StderrHooks;

impl crate::sources::gpu::sampler::Hooks for StderrHooks {
    fn warn(&self, message: &str) {
        diag("warning", message);
    }

    fn info(&self, message: &str) {
        diag("info", message);
    }

    fn live(&self, line: &str) {
        write_stderr(format!("\r\x1b[2K{}", crate::text::clean(line)).as_bytes());
    }
}

/// A diagnostic on stderr: `kind: message`, control characters removed.
/// A stderr that cannot be written (full, closed) costs the message, never the exit status.
pub fn diag(kind: &str, message: &str) {
    write_stderr(format!("{kind}: {}\n", crate::text::clean_lines(message)).as_bytes());
}

/// Writes to stderr, ignoring failure.
pub fn write_stderr(bytes: &[u8]) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(bytes).and_then(|()| err.flush());
}

pub fn write_stdout(bytes: &[u8]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// A number for people: `digits` decimals, trailing noise trimmed where the value is whole.
pub fn num(x: f64, digits: usize) -> String {
    // Beyond what decimals can show (huge, or too small for `digits`): three significant digits, scientific.
    let smallest = 0.5 * 10f64.powi(-i32::try_from(digits).unwrap_or(i32::MAX));
    if x != 0.0 && (x.abs() >= 1e15 || x.abs() < smallest) {
        return format!("{x:.2e}");
    }
    format!("{x:.digits$}")
}

/// A relative uncertainty as `±30%`, or `unknown`.
pub fn pct(u: Option<f64>) -> String {
    match u {
        Some(u) => {
            let p = u * 100.0;
            if (p - p.round()).abs() < 1e-9 {
                format!("±{p:.0}%")
            } else {
                format!("±{p:.1}%")
            }
        }
        None => "unknown".into(),
    }
}
