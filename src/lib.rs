//! exa: what GPU and CPU work costs in energy, carbon and money.
//!
//! One flow, four layers: `cli` parses, `settings` resolves flag > env >
//! config > default, `commands` do the work and return typed reports, and
//! `output` renders them. Exit codes are decided in `run` alone.

pub mod cli;
pub mod codegen;
pub mod commands;
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

use cli::{Carbon, Cli, Command, ConfigCmd, Cost, Finops, Format};
use error::Error;
use output::{emit, Render, Text};
use provider::Domain;
use settings::Settings;

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
    let settings = match Settings::from_cli(&cli, reads_config) {
        Ok(s) => s,
        Err(e) => return fail(&anyhow::Error::new(e), format),
    };
    let result = dispatch(&cli, &settings);
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

fn show<R: Render>(report: R, settings: &Settings) -> anyhow::Result<ExitCode> {
    emit(&report, settings.format)?;
    Ok(ExitCode::SUCCESS)
}

/// Prints a record's confirmation; when it cannot be printed, the record is
/// still stored, and stderr says so, so nobody records it again.
fn recorded(report: commands::record::Recorded, settings: &Settings) -> ExitCode {
    match emit(&report, settings.format) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            output::diag(
                "error",
                &format!(
                    "record #{} is stored in {}, but its confirmation could not be printed ({e}); do not record it again",
                    report.id, report.db
                ),
            );
            ExitCode::FAILURE
        }
    }
}

fn report(r: &cli::ReportArgs, s: &Settings) -> anyhow::Result<ExitCode> {
    if r.format == cli::ReportFormat::Focus && r.by != cli::GroupBy::Model {
        // Refused rather than ignored: FOCUS rows are not grouped.
        return Err(Error::Usage("--by groups the totals; --format focus writes one row per run and resource, ungrouped".into()).into());
    }
    if r.format == cli::ReportFormat::Focus && r.per.is_some() {
        return Err(Error::Usage(
            "--per gives totals per unit of work; --format focus writes charge rows, one per run and resource".into(),
        )
        .into());
    }
    let filter = commands::report::filter(r.model.as_deref(), r.since.as_deref(), r.until.as_deref())?;
    let per = r.per.as_deref().map(commands::report::per);
    // At a terminal, a sparkline per model or provider: how its CO2e (or cost) went, day by day.
    let trend = s.format == Format::Table
        && r.format == cli::ReportFormat::Totals
        && matches!(r.by, cli::GroupBy::Model | cli::GroupBy::Provider)
        && std::io::IsTerminal::is_terminal(&std::io::stdout());
    let mut shown = None;
    if let Some(path) = &r.html {
        files::check_output("--html", path, sqlite_ledger(s).as_deref(), &[]).map_err(Error::Usage)?;
        let by_model = commands::report::run(s, store::report::Filter { trend, ..filter.clone() }, cli::GroupBy::Model)?;
        let by_day = commands::report::run(s, filter.clone(), cli::GroupBy::Day)?;
        // Per 1,000 tokens, when some run counted its tokens.
        let per_token = match by_model.totals.tokens {
            Some(_) => {
                let f = store::report::Filter { per: Some(store::report::Per::Token), ..filter.clone() };
                Some(commands::report::run(s, f, cli::GroupBy::Model)?)
            }
            None => None,
        };
        files::write_atomic(path, output::html::page(&by_model, &by_day, per_token.as_ref()).as_bytes())
            .map_err(|e| Error::Failed(format!("--html {}: {e}", path.display())))?;
        output::diag("info", &format!("wrote {}", path.display()));
        // The page's report by model is the one to print when that is what was asked for.
        shown = (r.by == cli::GroupBy::Model && per.is_none()).then_some(by_model);
    }
    if r.format == cli::ReportFormat::Focus {
        let focus = commands::report::focus(s, &filter)?;
        let text = if s.format == Format::Json { output::focus::jsonl(&focus.rows) } else { output::focus::csv(&focus.rows) };
        output::write_stdout(text.as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    match shown {
        Some(report) => show(report, s),
        None => show(commands::report::run(s, store::report::Filter { trend, per, ..filter }, r.by)?, s),
    }
}

/// `finops {carbon,cost} record`.
fn record(s: &Settings, domain: Domain, r: &cli::Recording, req: &model::Request) -> anyhow::Result<ExitCode> {
    let done = commands::record::run(s, domain, &r.model, r.run_id.as_deref(), r.part, req, &r.work.work())?;
    Ok(recorded(done, s))
}

fn dispatch(cli: &Cli, s: &Settings) -> anyhow::Result<ExitCode> {
    match &cli.command {
        Command::Finops(Finops::Carbon(c)) => match c {
            Carbon::Providers => show(commands::providers::run(s, Domain::Carbon), s),
            Carbon::Show(a) => show(commands::show::run(s, Domain::Carbon, &a.name)?, s),
            Carbon::Estimate(a) => show(commands::estimate::run(s, Domain::Carbon, &a.request())?, s),
            Carbon::Regions(a) => show(commands::regions::run(a.query.as_deref(), a.sources), s),
            Carbon::When(a) => {
                show(commands::when::run(s, commands::when::request(&a.duration, a.within.as_deref(), a.power_w)?, a.region.as_deref())?, s)
            }
            Carbon::Record(r) => record(s, Domain::Carbon, &r.record, &r.estimate.request()),
        },
        Command::Finops(Finops::Cost(c)) => match c {
            Cost::Providers => show(commands::providers::run(s, Domain::Cost), s),
            Cost::Show(a) => show(commands::show::run(s, Domain::Cost, &a.name)?, s),
            Cost::Estimate(a) => show(commands::estimate::run(s, Domain::Cost, &a.request())?, s),
            Cost::Record(r) => record(s, Domain::Cost, &r.record, &r.estimate.request()),
        },
        Command::Metrics(m) => metrics(m, s),
        Command::Report(r) => report(r, s),
        Command::Sync(cli::SyncCmd::Mlflow(_)) => show(commands::sync::mlflow(s)?, s),
        Command::Import(cli::ImportCmd::Slurm(i)) => {
            show(commands::import::run(s, commands::import::Scheduler::Slurm, &i.common, i.exclusive)?, s)
        }
        Command::Import(cli::ImportCmd::Flux(i)) => show(commands::import::run(s, commands::import::Scheduler::Flux, &i.common, false)?, s),
        Command::Db(cli::DbCmd::Migrate(_)) => show(commands::db::migrate(s)?, s),
        Command::Db(cli::DbCmd::Copy { from, to }) => {
            let progress = |c: &commands::db::Copied| {
                if c.read % 50_000 == 0 {
                    output::diag("info", &format!("{} records read, {} copied", c.read, c.copied));
                }
            };
            show(commands::db::copy(s, from, to, &progress)?, s)
        }
        Command::Mcp(m) => {
            for w in s.take_warnings() {
                output::diag("warning", &w);
            }
            Ok(mcp::serve(cli.clone(), m.listen.as_deref(), s)?)
        }
        Command::Gpu(cli::GpuArgs { action: Some(action), .. }) => {
            let hooks = || Box::new(output::StderrHooks) as Box<dyn sources::gpu::sampler::Hooks>;
            let h = commands::telemetry::Hooked { hooks: &hooks };
            let stopped = match action {
                cli::GpuCmd::Serve(g) => {
                    let tokens = g.tokens_from.as_deref().map(|u| (u, g.tokens_model.as_deref()));
                    commands::telemetry::serve(s, &g.listen, tokens, &h)?
                }
                cli::GpuCmd::Export(_) => commands::telemetry::export(s, &h)?,
            };
            for w in s.take_warnings() {
                output::diag("warning", &w);
            }
            show(stopped, s)
        }
        Command::Gpu(g) => {
            let mut reading = commands::gpu::run(commands::gpu_source(s))?;
            reading.wide = g.wide;
            show(reading, s)
        }
        Command::Finops(Finops::Measure(m)) => measure(m, s),
        Command::Config(ConfigCmd::Path) => show(commands::config::path(s), s),
        Command::Config(ConfigCmd::Show(_)) => show(commands::config::show(s)?, s),
        Command::Config(ConfigCmd::Init { force }) => show(commands::config::init(s, *force)?, s),
        Command::Completions { shell } => show(Text { text: String::from_utf8_lossy(&codegen::completion(*shell)).into_owned() }, s),
        Command::Man { command } => {
            let page = codegen::man_page(command)
                .ok_or_else(|| Error::Usage(format!("no subcommand '{}' to show a man page for", command.join(" "))))?;
            show(Text { text: String::from_utf8_lossy(&page).into_owned() }, s)
        }
    }
}

/// The SQLite ledger in effect, which no output may overwrite.
fn sqlite_ledger(s: &Settings) -> Option<std::path::PathBuf> {
    match s.db() {
        Ok(store::Db::Sqlite(p)) => Some(p),
        _ => None,
    }
}

fn measure(m: &cli::Measure, s: &Settings) -> anyhow::Result<ExitCode> {
    // Checked before the command starts: a clash found after the job would lose its report.
    let ledger = sqlite_ledger(s);
    if let Some(path) = &m.report {
        let others: Vec<(&str, &std::path::Path)> = m.trace.iter().map(|t| ("--trace", t.as_path())).collect();
        files::check_output("--report", path, ledger.as_deref(), &others).map_err(Error::Usage)?;
    }
    if let Some(path) = &m.trace {
        files::check_output("--trace", path, ledger.as_deref(), &[]).map_err(Error::Usage)?;
    }
    let args = commands::measure::Args {
        command: m.command.clone(),
        duration: m.duration,
        trace: m.trace.clone(),
        carbon_provider: m.carbon_provider.clone(),
        cost_provider: m.cost_provider.clone(),
        region: m.region.clone(),
        live: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        record: m.record.clone().map(|model| {
            let model = if m.model_is_job_name { store::model_of(Some(&model), "name") } else { model };
            (model, m.run_id.clone())
        }),
        part: m.part,
        labels: crate::model::Labels::of(m.job_user.as_deref(), m.job_account.as_deref(), m.job_partition.as_deref()),
        work: m.work.work(),
        tokens_from: m.tokens_from.clone(),
        tokens_model: m.tokens_model.clone(),
        mlflow_experiment: m.mlflow_experiment.clone(),
        push_gateway: m.push_gateway.clone(),
        job_cpu: m.pid.map(commands::measure::JobCpu::Pid).or(m.cpus.map(commands::measure::JobCpu::Held)),
        idle_share: m.idle_share,
    };
    let report = commands::measure::run(s, args, commands::gpu_source(s), Box::new(output::StderrHooks))?;
    let code = ExitCode::from(report.exit_status());
    for w in s.take_warnings() {
        output::diag("warning", &w);
    }
    let text = output::render(&report, s.format)?;
    let written = match &m.report {
        Some(path) => files::write_atomic(path, text.as_bytes()).map_err(|e| format!("cannot write the report {}: {e}", path.display())),
        None if m.command.is_empty() => output::write_stdout(text.as_bytes()).map_err(|e| format!("cannot print the report: {e}")),
        None => {
            output::write_stderr(text.as_bytes());
            Ok(())
        }
    };
    match written {
        Ok(()) => Ok(code),
        // The report is lost, not the command's status: a failed command still says so.
        Err(why) => {
            output::diag("error", &why);
            Ok(if report.exit_status() == 0 { ExitCode::FAILURE } else { code })
        }
    }
}

fn window(w: &cli::WindowOpts) -> commands::metrics::WindowArgs {
    commands::metrics::WindowArgs { range: w.range.clone(), start: w.start.clone(), end: w.end.clone(), points: w.points }
}

fn metrics(m: &cli::MetricsCmd, s: &Settings) -> anyhow::Result<ExitCode> {
    use cli::MetricsCmd as M;
    use commands::metrics as cm;
    // A missing argument is the spec's bad-request (422), refused here before anything is read.
    match m {
        M::Clusters => show(cm::clusters(s), s),
        M::Node { cluster, node, window: w, detail } => {
            let (c, n) =
                (cm::required(cluster.as_deref(), "--cluster", "the cluster")?, cm::required(node.as_deref(), "--node", "the node")?);
            show(cm::node(s, c, n, &window(w), detail.as_deref())?, s)
        }
        M::Workload { cluster, workload: wl, window: w, detail } => {
            let c = cm::required(cluster.as_deref(), "--cluster", "the cluster")?;
            let (k, n) = (
                cm::required(wl.kind.as_deref(), "--kind", "the workload's kind")?,
                cm::required(wl.name.as_deref(), "--name", "the workload's name")?,
            );
            show(cm::workload(s, c, k, &wl.namespace, n, &window(w), detail.as_deref())?, s)
        }
        M::Flags { cluster, node, kind, name, namespace, window: w, detail } => {
            let c = cm::required(cluster.as_deref(), "--cluster", "the cluster")?;
            let target = cm::FlagTarget::of(node.as_deref(), kind.as_deref(), name.as_deref(), namespace)?;
            show(cm::flags(s, c, target, &window(w), detail.as_deref())?, s)
        }
        M::Query { cluster, instant, window: w, query } => {
            let q = cm::required(query.as_deref(), "QUERY", "a PromQL expression")?;
            show(cm::query(s, cluster.as_deref(), q, *instant, &window(w))?, s)
        }
    }
}
