//! How an answer is rendered: a table for people, JSON or CSV for programs.

/// The output format (`-o`): a table for people, JSON (the documented contract) for programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
#[allow(missing_docs)] // a doc comment here would become help text
pub enum Format {
    Table,
    Json,
    /// Comma-separated values (`exa report` only).
    Csv,
}
