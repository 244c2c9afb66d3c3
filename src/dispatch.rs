//! From the parsed command line to a rendered answer: each command's own settings resolved over the ones
//! every command shares, its verb run, its report rendered. Exit codes stay with `lib.rs`.

use std::process::ExitCode;

use crate::cli::{self, Carbon, Cli, Command, ConfigCmd, Cost, Finops, Format};
use crate::error::Error;
use crate::output::{self, emit, Render, Text};
use crate::provider::Domain;
use crate::settings::{Reading, ReadingFlags, Settings};
use crate::{codegen, commands, files, mcp, model, sources, store};

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

/// `exa validate`: its numbers checked, then the comparison.
fn validate(v: &cli::ValidateArgs, s: &Settings) -> anyhow::Result<ExitCode> {
    let finite = |what: &str, v: f64, most: f64| {
        if v.is_finite() && v.abs() <= most {
            Ok(v)
        } else {
            Err(Error::Usage(format!("{what} must be a number of seconds up to {most}")))
        }
    };
    if v.window.len() > 16 {
        return Err(Error::Usage("--window takes 16 lengths at most".into()).into());
    }
    if v.window.iter().any(|w| !(w.is_finite() && (0.001..=31_536_000.0).contains(w))) {
        return Err(Error::Usage("--window must be lengths from 0.001 to 31536000 seconds".into()).into());
    }
    let ask = commands::validate::Ask {
        trace: &v.trace,
        reference: &v.reference,
        offset: v.offset.map(|o| finite("--offset", o, 86_400.0)).transpose()?,
        max_offset: finite("--max-offset", v.max_offset, 3_600.0)?.abs(),
        windows: v.window.clone(),
    };
    let done = commands::validate::run(&ask)?;
    if let Some(path) = &v.html {
        files::write_atomic(path, output::html::validation_page(&done).as_bytes())
            .map_err(|e| Error::Failed(format!("--html: cannot write {}: {e}", path.display())))?;
    }
    show(done, s)
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

/// Runs the command given.
pub fn run(cli: &Cli, s: &Settings) -> anyhow::Result<ExitCode> {
    match &cli.command {
        Command::Finops(Finops::Carbon(c)) => match c {
            Carbon::Providers => show(commands::providers::run(s, Domain::Carbon), s),
            Carbon::Show(a) => show(commands::show::run(s, Domain::Carbon, &a.name)?, s),
            Carbon::Estimate(a) => show(commands::estimate::run(s, Domain::Carbon, &a.request())?, s),
            Carbon::Regions(a) => show(commands::regions::run(a.query.as_deref(), a.sources), s),
            Carbon::Hardware(a) => show(commands::hardware::run(a.query.as_deref(), a.sources), s),
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
        Command::Import(cli::ImportCmd::Kubernetes(i)) => show(commands::kubernetes::run(s, i)?, s),
        Command::Budget(b) => budget(b, s),
        Command::Validate(v) => validate(v, s),
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
        Command::Gpu(cli::GpuArgs { action: Some(action), wide: _, gpu_source: _ }) => {
            let hooks = || Box::new(output::StderrHooks) as Box<dyn sources::gpu::sampler::Hooks>;
            let h = commands::telemetry::Hooked { hooks: &hooks };
            let stopped = match action {
                cli::GpuCmd::Serve(cli::GpuServe { listen, tokens_from, tokens_model, budgets, telemetry, pods }) => {
                    let r = Reading::resolve(s, ReadingFlags { telemetry: Some(telemetry), pods: Some(pods), ..ReadingFlags::default() })?;
                    let tokens = tokens_from.as_deref().map(|u| (u, tokens_model.as_deref()));
                    commands::telemetry::serve(&r, listen, tokens, *budgets, &h)?
                }
                cli::GpuCmd::Export(cli::GpuExport { otlp, telemetry, pods }) => {
                    let flags =
                        ReadingFlags { telemetry: Some(telemetry), otlp: otlp.as_deref(), pods: Some(pods), ..ReadingFlags::default() };
                    commands::telemetry::export(&Reading::resolve(s, flags)?, &h)?
                }
            };
            for w in s.take_warnings() {
                output::diag("warning", &w);
            }
            show(stopped, s)
        }
        Command::Gpu(cli::GpuArgs { action: None, wide, gpu_source }) => {
            let r = Reading::resolve(s, ReadingFlags { gpu_source: gpu_source.gpu_source.as_deref(), ..ReadingFlags::default() })?;
            let mut reading = commands::gpu::run(commands::gpu_source(&r))?;
            reading.wide = *wide;
            show(reading, s)
        }
        Command::Finops(Finops::Measure(m)) => measure(m, s),
        Command::Config(ConfigCmd::Path) => show(commands::config::path(s), s),
        Command::Config(ConfigCmd::Show(_)) => show(commands::config::show(&Reading::resolve(s, ReadingFlags::default())?)?, s),
        Command::Config(ConfigCmd::Init { force }) => show(commands::config::init(s, *force)?, s),
        Command::Completions { shell } => show(Text { text: String::from_utf8_lossy(&codegen::completion(*shell)).into_owned() }, s),
        Command::Man { command } => {
            let page = codegen::man_page(command)
                .ok_or_else(|| Error::Usage(format!("no subcommand '{}' to show a man page for", command.join(" "))))?;
            show(Text { text: String::from_utf8_lossy(&page).into_owned() }, s)
        }
    }
}

fn budget(b: &cli::BudgetCmd, s: &Settings) -> anyhow::Result<ExitCode> {
    use commands::budget as bg;
    let at = |t: &Option<String>| t.as_deref().map(bg::at).transpose();
    match b {
        cli::BudgetCmd::Set(a) => {
            let terms = model::budget::Budget {
                scope: a.scope.clone(),
                period: a.period,
                kwh: a.kwh,
                kgco2e: a.kgco2e,
                usd: a.usd,
                warn: a.warn.clone(),
            };
            show(bg::set(s, &a.name, terms)?, s)
        }
        cli::BudgetCmd::List { history, .. } => show(bg::list(s, *history)?, s),
        cli::BudgetCmd::Rm { name, .. } => show(bg::rm(s, name)?, s),
        cli::BudgetCmd::Status { name, at: when, .. } => show(bg::status(s, name.as_deref(), at(when)?)?, s),
        cli::BudgetCmd::Notify { at: when, .. } => {
            let done = bg::notify(s, at(when)?)?;
            let failed = done.failed > 0;
            show(done, s)?;
            Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
        }
        cli::BudgetCmd::Check(a) => {
            let ask = bg::Ask {
                name: a.name.as_deref(),
                scopes: a.scopes.clone(),
                gpu_hours: a.add_gpu_hours.unwrap_or(0.0),
                cpu_hours: a.add_cpu_hours.unwrap_or(0.0),
                at: at(&a.at)?,
                advise_only: a.advise_only,
            };
            let checked = bg::check(s, &ask)?;
            let code = checked.exit_code;
            show(checked, s)?;
            Ok(ExitCode::from(code))
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
    let cli::Measure {
        db: _,
        strict: _,
        telemetry,
        gpus,
        duration,
        trace,
        pid,
        cpus,
        report,
        serve,
        linger,
        idle_share,
        node_policy,
        slurm_job,
        carbon_provider,
        cost_provider,
        region,
        record,
        run_id,
        model_is_job_name,
        mlflow_experiment,
        part,
        work,
        tokens_from,
        tokens_model,
        job_user,
        job_account,
        job_partition,
        push_gateway,
        otlp,
        command,
    } = m;
    let flags =
        ReadingFlags { telemetry: Some(telemetry), gpu_source: None, otlp: otlp.as_deref(), measure: Some(gpus.as_deref()), pods: None };
    let r = Reading::resolve(s, flags)?;
    // Checked before the command starts: a clash found after the job would lose its report.
    let ledger = sqlite_ledger(s);
    if let Some(path) = report {
        let others: Vec<(&str, &std::path::Path)> = trace.iter().map(|t| ("--trace", t.as_path())).collect();
        files::check_output("--report", path, ledger.as_deref(), &others).map_err(Error::Usage)?;
    }
    if let Some(path) = trace {
        files::check_output("--trace", path, ledger.as_deref(), &[]).map_err(Error::Usage)?;
    }
    let args = commands::measure::Args {
        command: command.clone(),
        duration: *duration,
        trace: trace.clone(),
        carbon_provider: carbon_provider.clone(),
        cost_provider: cost_provider.clone(),
        region: region.clone(),
        live: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        record: record.clone().map(|model| {
            let model = if *model_is_job_name { store::model_of(Some(&model), "name") } else { model };
            (model, run_id.clone())
        }),
        part: *part,
        labels: model::Labels::of(job_user.as_deref(), job_account.as_deref(), job_partition.as_deref()),
        work: work.work(),
        tokens_from: tokens_from.clone(),
        tokens_model: tokens_model.clone(),
        mlflow_experiment: mlflow_experiment.clone(),
        push_gateway: push_gateway.clone(),
        job_cpu: pid.map(commands::measure::JobCpu::Pid).or(cpus.map(commands::measure::JobCpu::Held)),
        idle_share: *idle_share,
        node_policy: *node_policy,
        slurm_job: slurm_job.clone(),
        serve: serve
            .as_deref()
            .map(|p| crate::sources::socket::bind(p).map_err(|e| Error::Failed(format!("--serve: {e}"))))
            .transpose()?
            .map(|b| std::sync::Arc::new(commands::measure::serve::Serve::new(b, linger.unwrap_or(std::time::Duration::from_secs(10))))),
    };
    let serving = args.serve.clone();
    let done = commands::measure::run(&r, args, commands::gpu_source(&r), Box::new(output::StderrHooks))?;
    if let Some(server) = serving {
        server.answer_end(&output::render(&done, model::Format::Json)?);
    }
    deliver(&done, report.as_deref(), command.is_empty(), s)
}

/// Prints or writes a measurement's report: to `--report`'s file, else stdout when exa ran no command, else
/// stderr (the command's own output has stdout). The exit status is the command's.
fn deliver(done: &model::Measurement, report: Option<&std::path::Path>, no_command: bool, s: &Settings) -> anyhow::Result<ExitCode> {
    let code = ExitCode::from(done.exit_status());
    for w in s.take_warnings() {
        output::diag("warning", &w);
    }
    let text = output::render(done, s.format)?;
    let written = match report {
        Some(path) => files::write_atomic(path, text.as_bytes()).map_err(|e| format!("cannot write the report {}: {e}", path.display())),
        None if no_command => output::write_stdout(text.as_bytes()).map_err(|e| format!("cannot print the report: {e}")),
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
            Ok(if done.exit_status() == 0 { ExitCode::FAILURE } else { code })
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
