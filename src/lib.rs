//! exa: what GPU and CPU work costs in energy, carbon and money.
//!
//! One flow, four layers: `cli` parses, `settings` resolves flag > env >
//! config > default, `commands` do the work and return typed reports, and
//! `output` renders them. Exit codes are decided in `run` alone.

pub mod cli;
pub mod codegen;
pub mod commands;
pub mod dispatch;
pub mod error;
pub mod files;
pub mod formula;
pub mod mcp;
pub mod model;
pub mod num;
pub mod output;
pub mod pricing;
pub mod provider;
pub mod settings;
pub mod sinks;
pub mod sources;
pub mod store;
pub mod suggest;
pub mod text;
pub mod time;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command, ConfigCmd, Format};
use error::Error;
use settings::{Global, Settings};

/// Runs exa with the process's arguments and returns its exit status.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            if !e.use_stderr() {
                return ExitCode::SUCCESS;
            }
            if wants_json(std::env::args_os()) {
                let rendered = e.render().to_string();
                let first = rendered.lines().next().map_or("", |l| l.trim_start_matches("error: "));
                let message = if first.is_empty() { "the command line is malformed" } else { first };
                let body = serde_json::json!({"error": {"kind": "usage", "message": text::clean(message)}});
                let _ = output::write_stdout(output::json(&body).as_bytes());
            }
            return ExitCode::from(2);
        }
    };
    let format = if cli.json { Format::Json } else { cli.output };
    let reads_config = !matches!(
        cli.command,
        Command::Completions { .. } | Command::Man { .. } | Command::Config(ConfigCmd::Path | ConfigCmd::Init { .. })
    );
    if format == Format::Csv && !matches!(cli.command, Command::Report(_)) {
        // Refused before anything runs or is written.
        return fail(&anyhow::Error::new(Error::Usage("-o csv is for `exa report`; use -o json or -o table here".into())), format);
    }
    let settings = match Settings::resolve(&Global::of(&cli), reads_config) {
        Ok(s) => s,
        Err(e) => return fail(&anyhow::Error::new(e), format),
    };
    let result = dispatch::run(&cli, &settings);
    for w in settings.take_warnings() {
        output::diag("warning", &w);
    }
    match result {
        Ok(code) => code,
        Err(e) => fail(&e, format),
    }
}

/// Whether the raw arguments ask for JSON, for an error found before they could be parsed.
fn wants_json(args: impl Iterator<Item = std::ffi::OsString>) -> bool {
    let args: Vec<String> = args.map(|a| a.to_string_lossy().into_owned()).take_while(|a| a != "--").collect();
    args.iter().enumerate().any(|(i, a)| {
        a == "--json"
            || a == "-ojson"
            || a == "--output=json"
            || ((a == "-o" || a == "--output") && args.get(i + 1).is_some_and(|v| v == "json"))
    })
}

/// Prints an error once: `error: ...` on stderr, and under `-o json` an object on stdout.
fn fail(err: &anyhow::Error, format: Format) -> ExitCode {
    let code = error::exit_code(err);
    let message = err.chain().map(ToString::to_string).collect::<Vec<_>>().join(": ");
    output::diag("error", &message);
    if format == Format::Json {
        let found = err.chain().find_map(|e| e.downcast_ref::<Error>());
        let body = error::body(found, &message, error::Door::Cli);
        let _ = output::write_stdout(output::json(&body).as_bytes());
    }
    code
}
