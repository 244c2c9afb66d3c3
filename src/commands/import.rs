//! `exa import slurm|flux`: a scheduler's finished jobs as records.
//!
//! Every job is read and checked before anything is written: a malformed
//! line imports nothing (or, with `--skip-bad`, is named and left out).
//! Then the jobs are priced and written in chunks inside one transaction,
//! so a million jobs are never all priced in memory at once, and the import
//! is whole or absent. Every record's idempotency key is made from the
//! scheduler, cluster, job and start time, so importing a job again, from
//! `sacct` or from a saved file, finds it already there.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, Read};
use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use crate::cli::{ImportArgs, ModelFrom};
use crate::error::Error;
use crate::model::history::{Series, Weight};
use crate::model::{BadLine, Domain, Estimate, HistoryAsk, Job, Jobs, Labels, Word};
use crate::pricing::{self, Pricer};
use crate::settings::Settings;
use crate::sources::{flux, slurm};
use crate::store::{self, columns::Figure, Line};
use crate::time::{iso8601, now_unix};

/// Which scheduler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheduler {
    Slurm,
    Flux,
}

impl Scheduler {
    pub fn as_str(self) -> &'static str {
        match self {
            Scheduler::Slurm => "slurm",
            Scheduler::Flux => "flux",
        }
    }
}

/// One job as it would be recorded (`--dry-run`).
#[derive(Debug, Serialize)]
pub struct JobRecord {
    pub run_id: String,
    pub model: String,
    pub state: String,
    pub user: Option<String>,
    pub account: Option<String>,
    pub partition: Option<String>,
    #[serde(serialize_with = "crate::time::serialize_iso_opt")]
    pub ended: Option<i64>,
    pub gpu_hours: f64,
    pub cpu_hours: f64,
    /// Energy the scheduler measured for the job's nodes (kept only for an exclusive allocation); null: not measured.
    pub node_kwh: Option<f64>,
    pub co2e_g: Option<f64>,
    pub cost_usd: Option<f64>,
    pub notes: Vec<String>,
}

/// What an import did.
#[derive(Debug, Serialize)]
pub struct Imported {
    pub scheduler: Scheduler,
    /// The cluster (or clusters) the jobs ran on.
    pub cluster: String,
    /// What named it: the jobs themselves, --cluster, scontrol, or this host's name.
    pub cluster_from: &'static str,
    /// Where the jobs were read: the scheduler's tool, a file, or standard input.
    pub source: String,
    #[serde(serialize_with = "crate::time::serialize_iso_opt")]
    pub since: Option<i64>,
    /// --since, or "the last import" (the watermark); null when the whole input was taken.
    pub since_from: Option<&'static str>,
    #[serde(serialize_with = "crate::time::serialize_iso_opt")]
    pub until: Option<i64>,
    pub dry_run: bool,
    /// Allocations read (array tasks and heterogeneous components each one); steps apart.
    pub jobs_read: u64,
    /// Job steps read: parts of their allocations, never counted again.
    pub steps: u64,
    /// Jobs recorded now.
    pub imported: u64,
    /// Jobs whose records were stored by an earlier import: not written again.
    pub already_there: u64,
    /// Records written now (a carbon and a cost record per job, where the provider can price it).
    pub records_written: u64,
    /// Jobs not recorded, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// Lines left out with --skip-bad.
    pub bad_lines: Vec<BadLine>,
    /// Jobs recorded now whose node energy (Slurm's ConsumedEnergyRaw) was kept: only with --exclusive.
    pub energy_measured: u64,
    pub carbon_provider: String,
    pub cost_provider: String,
    /// The newest end of a job this cluster has stored: where the next import without --since starts.
    #[serde(serialize_with = "crate::time::serialize_iso_opt")]
    pub watermark: Option<i64>,
    pub db: String,
    pub notes: Vec<String>,
    /// Every job as it would be recorded; only with --dry-run (null otherwise).
    pub jobs: Option<Vec<JobRecord>>,
    /// With --grid-history: the history read, and how many jobs it priced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid_history: Option<ImportHistory>,
}

/// The grid's history an import read (`--grid-history`).
#[derive(Debug, Serialize)]
pub struct ImportHistory {
    /// The endpoint, secrets hidden.
    pub url: String,
    /// The grid zone.
    pub zone: Option<String>,
    /// Which API's shape it answered in.
    pub shape: &'static str,
    /// UTC days the jobs ran on.
    pub days: usize,
    /// Requests made (one per day not in the cache).
    pub requests: usize,
    /// Days taken from the cache.
    pub cached: usize,
    /// Readings read.
    pub readings: usize,
    /// Jobs given a start and an end to weigh the history over; the others are priced as without it.
    pub jobs_weighed: u64,
}

/// How long `sacct` or `flux jobs` may take.
const LIST_TIMEOUT: Duration = Duration::from_secs(300);
/// Jobs priced and written per chunk.
const CHUNK: usize = 10_000;

/// States of an allocation that ran and ended.
const FINISHED: &[&str] = &[
    "COMPLETED",
    "FAILED",
    "TIMEOUT",
    "CANCELLED",
    "NODE_FAIL",
    "OUT_OF_MEMORY",
    "PREEMPTED",
    "BOOT_FAIL",
    "DEADLINE",
    "REQUEUED",
    "REVOKED",
];

/// How much of an input is read at a time.
const BUFFER: usize = 256 * 1024;

/// The input: a file or standard input, buffered, how a message names it, and its size in bytes where it is
/// a file (0: standard input, or not known).
fn open_input(path: &Path) -> Result<(Box<dyn BufRead>, String, u64), Error> {
    if is_stdin(path) {
        return Ok((Box::new(std::io::BufReader::with_capacity(BUFFER, std::io::stdin())), "standard input".to_string(), 0));
    }
    let f = std::fs::File::open(path).map_err(|e| unreadable(path, &e))?;
    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
    Ok((Box::new(std::io::BufReader::with_capacity(BUFFER, f)), path.display().to_string(), size))
}

fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// A read that failed: standard input's is a failure (exit 1), a file's names the flag (exit 2).
fn unreadable(path: &Path, e: &dyn std::fmt::Display) -> Error {
    if is_stdin(path) {
        Error::Failed(format!("cannot read standard input: {e}"))
    } else {
        Error::Usage(format!("--file {}: {e}", path.display()))
    }
}

/// The input text whole.
fn read_all(path: &Path, mut input: Box<dyn BufRead>, shown: &str) -> Result<String, Error> {
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes).map_err(|e| unreadable(path, &e))?;
    String::from_utf8(bytes).map_err(|e| Error::Usage(format!("{shown}: not UTF-8 text (byte {})", e.utf8_error().valid_up_to())))
}

/// Whether the input's first character that is not white space is `{` (`sacct --json`), seen in the
/// reader's buffer without consuming any of it; `None` when the buffer holds white space alone.
fn starts_with_brace(path: &Path, input: &mut dyn BufRead) -> Result<Option<bool>, Error> {
    let buf = input.fill_buf().map_err(|e| unreadable(path, &e))?;
    let head = String::from_utf8_lossy(buf);
    let text = head.trim_start();
    Ok(if buf.is_empty() {
        Some(false)
    } else if text.is_empty() {
        None
    } else {
        Some(text.starts_with('{'))
    })
}

/// Imports a scheduler's jobs.
pub fn run(settings: &Settings, sched: Scheduler, args: &ImportArgs, exclusive: bool) -> Result<Imported, Error> {
    if let Some(m) = &args.model {
        store::check_record_name("--model", m)?;
    }
    if let Some(c) = &args.cluster {
        super::check_cluster(c)?;
    }
    if args.grid_history {
        settings.history_endpoint().map_err(|e| Error::Config(format!("--grid-history: {e}")))?.ok_or_else(no_history)?;
    }
    if sched == Scheduler::Flux && matches!(args.model_from, ModelFrom::Account | ModelFrom::Wckey | ModelFrom::Comment) {
        return Err(Error::Usage("--model-from: Flux jobs have a name only; use --model-from jobname or --model NAME".into()));
    }
    let until = args.until.as_deref().map(|u| super::when("--until", u, true)).transpose()?;
    let since = args.since.as_deref().map(|s| super::when("--since", s, false)).transpose()?;
    if let (Some(s), Some(u)) = (since, until) {
        if s >= u {
            return Err(Error::Usage(format!("--since {} is not before --until {}", iso8601(s), iso8601(u))));
        }
    }
    let db = settings.db()?;
    if !args.dry_run {
        store::check_writable(&db)?;
    }
    let carbon = Pricer::new(settings, Domain::Carbon, args.carbon_provider.as_deref())?;
    let cost = Pricer::new(settings, Domain::Cost, args.cost_provider.as_deref())?;
    let mut cluster: Option<(String, &'static str)> = args.cluster.clone().map(|c| (c, "--cluster"));
    let (since, since_from) = match since {
        Some(s) => (Some(s), Some("--since")),
        None if args.file.is_none() => (Some(watermark(settings, &db, sched, &mut cluster)?), Some("the last import")),
        None => (None, None),
    };
    let (Jobs { jobs, later, steps, bad }, source, no_r) = read_jobs(sched, args, since, until)?;
    bad_lines(settings, args, &source, &bad)?;
    let mut answer = Imported {
        scheduler: sched,
        cluster: String::new(),
        cluster_from: "the jobs",
        source,
        since,
        since_from,
        until,
        dry_run: args.dry_run,
        jobs_read: 0,
        steps,
        imported: 0,
        already_there: 0,
        records_written: 0,
        skipped: BTreeMap::new(),
        bad_lines: bad,
        energy_measured: 0,
        carbon_provider: carbon.name().to_string(),
        cost_provider: cost.name().to_string(),
        watermark: None,
        db: db.shown(),
        notes: Vec::new(),
        jobs: None,
        grid_history: None,
    };
    let chosen = choose([jobs, later], &no_r.into_iter().collect(), sched, args, cluster.as_ref(), &mut answer)?;
    if sched == Scheduler::Slurm && !exclusive && chosen.iter().flatten().any(|j| j.energy_j.is_some_and(|e| e > 0.0)) {
        answer.notes.push(
            "Slurm measured energy for some jobs, but it is the whole nodes' (ConsumedEnergyRaw): not kept unless the jobs held \
             their nodes alone (--exclusive); their energy is estimated"
                .into(),
        );
    }
    let history = if args.grid_history { read_history(settings, &carbon, &chosen, &mut answer)? } else { None };
    let host = store::hostname();
    let hardware = hardware_pricers(settings, &carbon, &chosen)?;
    answer.notes.extend(unknown_gpus(&hardware, carbon.name()));
    let ctx = Ctx { sched, args, exclusive, carbon: &carbon, cost: &cost, host: &host, history, settings, hardware };
    record(&ctx, &db, &chosen, &mut answer)?;
    Ok(answer)
}

/// A carbon pricer for each hardware the chosen jobs ran on, where the carbon provider prices by model (its
/// prelude, and so its jobs' frame, of that hardware's power); the config's models checked first.
fn hardware_pricers<'a>(settings: &'a Settings, carbon: &Pricer<'a>, chosen: &Chosen) -> Result<BTreeMap<Hardware, Pricer<'a>>, Error> {
    let hw = &settings.config.finops.hardware;
    let at = |key: &str| format!("{}: finops.hardware.{key}", settings.config_path.value.display());
    for (ty, model) in &hw.gres {
        pricing::hardware::gpu(model).map_err(|e| Error::Config(format!("{}: {e}", at(&format!("gres.{ty}")))))?;
    }
    for (name, p) in &hw.partitions {
        if let Some(m) = &p.gpu_model {
            pricing::hardware::gpu(m).map_err(|e| Error::Config(format!("{}: {e}", at(&format!("partitions.{name}.gpu_model")))))?;
        }
        if let Some(m) = &p.cpu_model {
            pricing::hardware::cpu(m).map_err(|e| Error::Config(format!("{}: {e}", at(&format!("partitions.{name}.cpu_model")))))?;
            if !p.cpu_cores.is_some_and(|c| c >= 1.0 && c.fract() == 0.0 && c <= 4096.0) {
                return Err(Error::Config(format!(
                    "{}: a CPU model needs cpu_cores, its cores a socket (1 to 4096)",
                    at(&format!("partitions.{name}"))
                )));
            }
        }
        if p.memory_gb_per_cpu.is_some_and(|m| !(0.0..=65_536.0).contains(&m)) {
            return Err(Error::Config(format!(
                "{}: memory_gb_per_cpu is the GB of memory each CPU had: a number from 0 to 65536",
                at(&format!("partitions.{name}"))
            )));
        }
    }
    let mut out = BTreeMap::new();
    if !carbon.takes_hardware() || (hw.gres.is_empty() && hw.partitions.is_empty() && chosen.iter().flatten().all(|j| j.gpu_type.is_none()))
    {
        return Ok(out);
    }
    for job in chosen.iter().flatten() {
        let key = hardware_of(settings, job);
        if let std::collections::btree_map::Entry::Vacant(e) = out.entry(key) {
            let (gpu, cpu, memory) = e.key().clone();
            let pricer = carbon.on_hardware(gpu, cpu.map(|(m, c)| (m, Some(c as f64))), memory.map(f64::from_bits));
            e.insert(pricer);
        }
    }
    Ok(out)
}

/// A note naming the GPU types the jobs ran on that exa's table does not have (priced at the provider's default).
fn unknown_gpus(hardware: &BTreeMap<Hardware, Pricer>, provider: &str) -> Option<String> {
    let unknown: std::collections::BTreeSet<&str> =
        hardware.keys().filter_map(|(gpu, _, _)| gpu.as_deref()).filter(|g| pricing::hardware::gpu(g).is_err()).collect();
    let listed: Vec<String> = unknown.iter().map(|g| format!("'{g}'")).collect();
    (!listed.is_empty()).then(|| {
        format!(
            "GPU types exa's hardware table does not have, priced at the {provider} provider's default: {} (map each to a model \
             under finops.hardware.gres; exa finops carbon hardware lists them)",
            listed.join(", ")
        )
    })
}

/// The hardware a job ran on, by the config: its GPUs' type through `finops.hardware.gres` (else as the scheduler
/// names it), else its partition's GPU model; its partition's CPU model and cores.
fn hardware_of(settings: &Settings, job: &Job) -> Hardware {
    let hw = &settings.config.finops.hardware;
    let part = job.partition.as_deref().and_then(|p| hw.partitions.get(p));
    let gpu = if job.gpus > 0.0 {
        match &job.gpu_type {
            Some(t) => Some(hw.gres.get(t.as_str()).cloned().unwrap_or_else(|| t.to_string())),
            None => part.and_then(|p| p.gpu_model.clone()),
        }
    } else {
        None
    };
    let cpu = part.and_then(|p| Some((p.cpu_model.clone()?, p.cpu_cores? as u64)));
    (gpu, cpu, part.and_then(|p| p.memory_gb_per_cpu).map(f64::to_bits))
}

/// The longest job weighed against the grid's history: a longer one (a clock's error, most likely) would
/// cost a request for every day of it.
const LONGEST_WEIGHED_S: i64 = 92 * 86_400;

/// The most UTC days one import reads the grid's history for: ten years.
const MOST_DAYS: usize = 3_660;

/// A listing's bad lines: a file given imports whole or not at all; the scheduler's own listing leaves them out, said.
fn bad_lines(settings: &Settings, args: &ImportArgs, source: &str, bad: &[BadLine]) -> Result<(), Error> {
    let Some(b) = bad.first() else { return Ok(()) };
    let field = if b.field.is_empty() { String::new() } else { format!(", field {}", b.field) };
    let more = if bad.len() > 1 { format!(" ({} bad lines in all)", bad.len()) } else { String::new() };
    // A file given is the user's to mend: whole or nothing. The scheduler's own listing is every user's jobs,
    // and one job's name (a newline in it, say) never stops the cluster's import: its lines are left out, said.
    if args.file.is_some() && !args.skip_bad {
        return Err(Error::Usage(format!(
            "{source} line {}{field}: {}{more}; nothing was imported (--skip-bad leaves such lines out)",
            b.line,
            crate::text::clean(&b.why)
        )));
    }
    settings.warn(format!(
        "{source} line {}{field}: {}{more}; left out, the rest imported (bad_lines in the JSON report lists them)",
        b.line,
        crate::text::clean(&b.why)
    ));
    Ok(())
}

/// A job's start and end, when it has both and ran no longer than `LONGEST_WEIGHED_S`.
fn weighable(job: &Job) -> Option<(i64, i64)> {
    job.start.zip(job.end).filter(|(s, e)| e >= s && e - s <= LONGEST_WEIGHED_S)
}

/// `--grid-history` without an endpoint to read.
fn no_history() -> Error {
    Error::Usage("--grid-history: no history endpoint is configured (EXAMLOPS_GRID_HISTORY_URL or finops.carbon.grid.history_url)".into())
}

/// The grid's history over every UTC day a chosen job ran on, read before any is priced: one request a day
/// (fewer with the cache), whatever the number of jobs. A history that cannot be read refuses the import.
/// An intensity set by hand wins, and nothing is read.
fn read_history(
    settings: &Settings,
    carbon: &Pricer,
    chosen: &Chosen,
    answer: &mut Imported,
) -> Result<Option<std::sync::Arc<Series>>, Error> {
    if let Some(by) = carbon.intensity_set_by() {
        answer.notes.push(format!("--grid-history: grid_intensity_g_per_kwh is set by {by}, and wins: the history is not read"));
        return Ok(None);
    }
    let windows: Vec<(i64, i64)> = chosen.iter().flatten().filter_map(weighable).collect();
    let mut days: Vec<i64> = windows.iter().flat_map(|&(s, e)| pricing::history::days(s, e)).collect();
    days.sort_unstable();
    days.dedup();
    if days.len() > MOST_DAYS {
        return Err(Error::Usage(format!(
            "--grid-history: the jobs ran on {} UTC days, more than the {MOST_DAYS} read in one import (a request each): \
             narrow it with --since and --until",
            days.len()
        )));
    }
    if days.len() > 1 {
        settings.warn(format!("grid history: reading {} days, one request each unless cached", days.len()));
    }
    let series = match pricing::history::fetch(settings, &days) {
        Ok(Some(s)) => s,
        Ok(None) => return Err(no_history()),
        Err(e) => return Err(Error::Failed(format!("--grid-history: {e}; nothing was imported"))),
    };
    answer.grid_history = Some(ImportHistory {
        url: series.url.clone(),
        zone: series.zone.clone(),
        shape: series.shape,
        days: days.len(),
        requests: series.requests,
        cached: series.cached,
        readings: series.readings.len(),
        jobs_weighed: windows.len() as u64,
    });
    Ok(Some(std::sync::Arc::new(series)))
}

/// Where the last import of this cluster stopped; naming the cluster first if no flag did.
/// The latest a watermark may be: now, and a day for clocks that disagree. A record after it moves nothing.
fn not_after() -> i64 {
    crate::time::now_unix().saturating_add(SKEW_S)
}

use crate::sources::jobs::SKEW_S;

fn watermark(settings: &Settings, db: &store::Db, sched: Scheduler, cluster: &mut Option<(String, &'static str)>) -> Result<i64, Error> {
    let (c, _) = cluster.get_or_insert_with(|| match sched {
        Scheduler::Slurm => (String::new(), "scontrol"),
        Scheduler::Flux => (store::hostname(), "this host's name"),
    });
    if c.is_empty() {
        *c = slurm::local_cluster(Path::new("scontrol"), Duration::from_secs(30))
            .map_err(|e| Error::Failed(format!("scontrol: {e}; name the cluster with --cluster")))?;
    }
    let prefix = format!("{}:{c}:", sched.as_str());
    let (mark, newest) = match store::open_read(db)? {
        Some(mut ledger) => ledger.newest_imported(&prefix, not_after())?,
        None => (None, None),
    };
    if let Some(future) = newest.filter(|n| mark.is_none_or(|m| *n > m)) {
        settings.warn(format!(
            "a record of {} cluster '{c}' in {} ends at {}, after now: it does not move where the next import starts",
            sched.as_str(),
            db.shown(),
            iso8601(future)
        ));
    }
    mark.ok_or_else(|| {
        Error::Usage(format!(
            "no earlier import of {} cluster '{c}' in {}: give --since (e.g. --since 2026-11-01, or --since -7d)",
            sched.as_str(),
            db.shown()
        ))
    })
}

/// Every job, from the file or the scheduler's tool; where they came from; the lines of Flux jobs without an R.
fn read_jobs(sched: Scheduler, args: &ImportArgs, since: Option<i64>, until: Option<i64>) -> Result<(Jobs, String, Vec<usize>), Error> {
    Ok(match (sched, &args.file) {
        (Scheduler::Slurm, Some(path)) => {
            // `sacct -P` is read a line at a time, never whole; `sacct --json` is one document.
            let (mut input, shown, size) = open_input(path)?;
            // A long listing's second half is read through the file opened again (`slurm::SPLIT_MIN`).
            let reopen = |at: u64| -> std::io::Result<Box<dyn BufRead + Send>> {
                use std::io::Seek;
                let mut f = std::fs::File::open(path)?;
                f.seek(std::io::SeekFrom::Start(at))?;
                Ok(Box::new(std::io::BufReader::with_capacity(BUFFER, f)))
            };
            let jobs = match starts_with_brace(path, input.as_mut())? {
                Some(true) => slurm::parse_json(&read_all(path, input, &shown)?),
                Some(false) => match slurm::parse_parsable_halves(input, size, (!is_stdin(path)).then_some(&reopen), slurm::SPLIT_MIN) {
                    Ok(jobs) => Ok(jobs),
                    Err(slurm::Unread::Io(e)) => return Err(unreadable(path, &e)),
                    Err(slurm::Unread::Input(e)) => Err(e),
                },
                // A buffer of white space alone: too odd to stream, read whole and decided as the text says.
                None => {
                    let text = read_all(path, input, &shown)?;
                    if text.trim_start().starts_with('{') {
                        slurm::parse_json(&text)
                    } else {
                        slurm::parse_parsable(&text)
                    }
                }
            };
            (jobs.map_err(|e| Error::Usage(format!("{shown}: {e}")))?, shown, Vec::new())
        }
        (Scheduler::Slurm, None) => {
            // The current second whole: a job that became eligible in it is in the window.
            let until = until.unwrap_or_else(|| now_unix() + 1);
            let out = slurm::sacct(Path::new("sacct"), since.unwrap_or(0), until, args.cluster.as_deref(), LIST_TIMEOUT)
                .map_err(|e| Error::Failed(format!("sacct: {e}; a saved `sacct -P` output imports with --file")))?;
            // Read a line at a time from the file it was written to, as a saved listing is: memory holds the jobs,
            // never the text (a long listing's second half read through the file opened again).
            let size = out.metadata().map_or(0, |m| m.len());
            let fd = std::os::fd::AsRawFd::as_raw_fd(&out);
            let reopen = |at: u64| -> std::io::Result<Box<dyn BufRead + Send>> {
                use std::io::Seek;
                let mut f = std::fs::File::open(format!("/proc/self/fd/{fd}"))?;
                f.seek(std::io::SeekFrom::Start(at))?;
                Ok(Box::new(std::io::BufReader::with_capacity(BUFFER, f)))
            };
            let input = std::io::BufReader::with_capacity(BUFFER, &out);
            let jobs = slurm::parse_parsable_halves(input, size, Some(&reopen), slurm::SPLIT_MIN)
                .map_err(|e| Error::Failed(format!("sacct's output: {e}")))?;
            (jobs, "sacct".to_string(), Vec::new())
        }
        (Scheduler::Flux, Some(path)) => {
            let (input, shown, _) = open_input(path)?;
            let text = read_all(path, input, &shown)?;
            let (jobs, no_r) = flux::parse_file(&text).map_err(|e| Error::Usage(format!("{shown}: {e}")))?;
            (jobs, shown, no_r)
        }
        (Scheduler::Flux, None) => (flux_live(since)?, "flux jobs".to_string(), Vec::new()),
    })
}

/// The jobs chosen, in input order: those of a listing's first list, then those of its `later` (`Jobs::later`).
type Chosen = [Vec<Job>; 2];

/// The allocations to record, in input order (`jobs`' two lists, each kept where it is); the others counted in
/// `answer` by why they are not.
fn choose(
    mut jobs: Chosen,
    no_r: &HashSet<usize>,
    sched: Scheduler,
    args: &ImportArgs,
    cluster: Option<&(String, &'static str)>,
    answer: &mut Imported,
) -> Result<Chosen, Error> {
    // The jobs the input leaves the cluster of are on --cluster's.
    let mut filled = false;
    for job in jobs.iter_mut().flatten().filter(|j| j.cluster.is_none()) {
        job.cluster = cluster.map(|(c, _)| Word::from(c.as_str()));
        filled = true;
    }
    // The chosen are kept in the input's own buffer, in order (`retain`): a million jobs are never copied
    // into a second, growing one, and a job listed twice is known by its own fields, not by a copy of them.
    let mut keep = Vec::with_capacity(jobs.iter().map(Vec::len).sum());
    let mut clusters: Vec<String> = Vec::new();
    // Each job to record by the hash of its cluster, raw id and start, beside its place: sorted, a job listed
    // twice is next to its first listing. A table of the jobs' words for a million jobs would be some 100 MB of
    // pages the kernel must first zero; this list is 16 MB.
    let mut hashed: Vec<(u64, usize)> = Vec::with_capacity(keep.capacity());
    for (at, job) in jobs.iter().flatten().enumerate() {
        answer.jobs_read += 1;
        let why = skipped(job, no_r, sched, args, answer.since, answer.until);
        if let Some(why) = why {
            *answer.skipped.entry(why.to_string()).or_insert(0) += 1;
            keep.push(false);
            continue;
        }
        let Some(c) = job.cluster.as_deref() else {
            return Err(Error::Usage(format!(
                "{} has no Cluster column: name the cluster with --cluster (run ids are {}:<cluster>:<jobid>)",
                answer.source,
                sched.as_str()
            )));
        };
        if !clusters.iter().any(|k| k == c) {
            super::check_cluster(c)?;
            clusters.push(c.to_string());
        }
        hashed.push((listed(job), at));
        keep.push(true);
    }
    let twice = listed_twice(&mut hashed, |a, b| {
        let job = |at: usize| jobs[0].get(at).or_else(|| jobs[1].get(at - jobs[0].len()));
        job(a).zip(job(b)).is_some_and(|(a, b)| same_listing(a, b))
    });
    for at in twice {
        keep[at] = false;
        *answer.skipped.entry("listed twice in the input".into()).or_insert(0) += 1;
    }
    let mut kept = keep.into_iter();
    for list in &mut jobs {
        list.retain(|_| kept.next().unwrap_or(false));
    }
    answer.cluster = match (&clusters[..], cluster) {
        ([], Some((c, _))) => c.clone(),
        (many, _) => many.join(","),
    };
    if let Some((_, from)) = cluster {
        if filled || clusters.is_empty() {
            answer.cluster_from = from;
        }
    }
    Ok(jobs)
}

/// What makes a job's listing one: its cluster, raw id and start.
fn same_listing(a: &Job, b: &Job) -> bool {
    a.cluster == b.cluster && a.raw_id == b.raw_id && a.start == b.start
}

/// The hash of what makes a job's listing one (`same_listing`).
fn listed(job: &Job) -> u64 {
    use std::hash::BuildHasher;
    std::hash::BuildHasherDefault::<crate::text::Fnv>::default().hash_one((job.cluster.as_deref(), job.raw_id.as_str(), job.start))
}

/// The places of the listings that repeat one before them, from each listing's hash and place (`listed`); `same`
/// says whether the listings at two places are one. Each later one of equal hashes is held against the first of
/// each listing among them: a job listed a million times is a million comparisons, not a million squared.
fn listed_twice(hashed: &mut [(u64, usize)], same: impl Fn(usize, usize) -> bool) -> Vec<usize> {
    hashed.sort_unstable();
    let mut twice = Vec::new();
    let mut firsts: Vec<usize> = Vec::new();
    for group in hashed.chunk_by(|a, b| a.0 == b.0) {
        if let [_] = group {
            continue;
        }
        firsts.clear();
        for &(_, at) in group {
            if firsts.iter().any(|&first| same(first, at)) {
                twice.push(at);
            } else {
                firsts.push(at);
            }
        }
    }
    twice
}

/// Why a job is not recorded, if it is not.
fn skipped(
    job: &Job,
    no_r: &HashSet<usize>,
    sched: Scheduler,
    args: &ImportArgs,
    since: Option<i64>,
    until: Option<i64>,
) -> Option<&'static str> {
    // A file may hold several clusters' jobs; --cluster names the one to import.
    if sched == Scheduler::Slurm && args.cluster.as_ref().is_some_and(|c| job.cluster.as_ref().is_some_and(|jc| jc != c)) {
        return Some("another cluster");
    }
    if job.state == "PENDING" {
        return Some("pending");
    }
    if !FINISHED.contains(&job.state.as_str()) {
        return Some("running");
    }
    if job.start.is_none() || job.elapsed_s <= 0.0 {
        return Some("never ran");
    }
    if job.end.is_some_and(|end| since.is_some_and(|s| end < s) || until.is_some_and(|u| end >= u)) {
        return Some("ended outside --since/--until");
    }
    if no_r.contains(&job.line) {
        return Some("no resource set (R) in the file");
    }
    if job.gpus <= 0.0 && job.cpu_hours <= 0.0 {
        return Some("no CPU or GPU time");
    }
    None
}

/// Prices the chosen jobs and writes their records in one transaction (or, for a dry run, lists them).
/// A job whose records a store already holds is not priced again: it is already there.
fn record(ctx: &Ctx, db: &store::Db, chosen: &Chosen, answer: &mut Imported) -> Result<(), Error> {
    let mut said = NoteTally::default();
    if ctx.args.dry_run {
        let mut shown = Vec::with_capacity(chosen.iter().map(Vec::len).sum());
        let mut alike = PricedBefore::default();
        for job in chosen.iter().flatten() {
            let made = ctx.lines(job, &mut alike)?;
            said.tally(&made);
            shown.push(made.shown(job));
        }
        answer.jobs = Some(shown);
    } else if chosen.iter().any(|list| !list.is_empty()) {
        let mut ledger = store::open(db)?;
        let new_jobs = unstored(ctx, ledger.as_mut(), chosen, answer)?;
        let (fresh, per_job) = price_and_write(ctx, ledger.as_mut(), &new_jobs, &mut said)?;
        answer.records_written = fresh.iter().filter(|f| **f).count() as u64;
        // A job is imported when any of its records is new; already there when another import wrote them meanwhile.
        let mut at = 0usize;
        for n in per_job {
            match fresh.get(at..at + n) {
                Some([]) | None => *answer.skipped.entry("neither provider can price it".into()).or_insert(0) += 1,
                Some(lines) if lines.iter().any(|f| *f) => answer.imported += 1,
                Some(_) => answer.already_there += 1,
            }
            at += n;
        }
        if !answer.cluster.is_empty() && !answer.cluster.contains(',') {
            answer.watermark = ledger.newest_imported(&format!("{}:{}:", ctx.sched.as_str(), answer.cluster), not_after())?.0;
        }
    }
    answer.energy_measured = said.energy;
    answer.notes.extend(said.notes.into_iter().map(|(n, k)| if k > 1 { format!("{n} ({k} jobs)") } else { n }));
    Ok(())
}

/// What the priced jobs said: each note with how many jobs said it, and how many had measured energy.
#[derive(Default)]
struct NoteTally {
    notes: BTreeMap<String, u64>,
    energy: u64,
}

impl NoteTally {
    fn tally(&mut self, made: &JobLines) {
        for n in &made.notes {
            *self.notes.entry(n.clone()).or_insert(0) += 1;
        }
        self.energy += u64::from(made.node_kwh.is_some());
    }
}

/// The chosen jobs whose records the store may not hold yet; those it holds counted as already there.
/// Only a job that ended no later than the newest its cluster has stored can be stored already: those are
/// looked up before pricing. (The keys still decide when writing; this only spares the pricing.)
fn unstored<'j>(ctx: &Ctx, ledger: &mut dyn store::Ledger, chosen: &'j Chosen, answer: &mut Imported) -> Result<Vec<&'j Job>, Error> {
    let mut marks: HashMap<&str, Option<i64>> = HashMap::new();
    let mut new_jobs: Vec<&Job> = Vec::with_capacity(chosen.iter().map(Vec::len).sum());
    let mut check: Vec<&Job> = Vec::new();
    for job in chosen.iter().flatten() {
        let cluster = job.cluster.as_deref().unwrap_or("");
        let mark = match marks.get(cluster) {
            Some(m) => *m,
            None => *marks.entry(cluster).or_insert(ledger.newest_imported(&format!("{}:{cluster}:", ctx.sched.as_str()), not_after())?.0),
        };
        if mark.is_some_and(|m| job.end.is_none_or(|e| e <= m)) {
            check.push(job);
        } else {
            new_jobs.push(job);
        }
    }
    for jobs in check.chunks(CHUNK) {
        // A job with either record stored is there: its carbon key is looked up first, its cost key only where
        // that is not stored (a re-import looks up one key a job).
        let carbon = ledger.stored_keys(&jobs.iter().map(|j| ctx.key(j, Domain::Carbon)).collect::<Vec<_>>())?;
        let unsure: Vec<&Job> = jobs.iter().zip(&carbon).filter(|(_, c)| !**c).map(|(j, _)| *j).collect();
        let cost = ledger.stored_keys(&unsure.iter().map(|j| ctx.key(j, Domain::Cost)).collect::<Vec<_>>())?;
        answer.already_there += (jobs.len() - unsure.len()) as u64;
        for (job, stored) in unsure.into_iter().zip(cost) {
            if stored {
                answer.already_there += 1;
            } else {
                new_jobs.push(job);
            }
        }
    }
    Ok(new_jobs)
}

/// Prices the jobs on a thread of its own, a chunk at a time, while the ledger writes the chunks before
/// them in one transaction (all or none). Per line whether it was new, and per job how many lines it made.
fn price_and_write(
    ctx: &Ctx,
    ledger: &mut dyn store::Ledger,
    jobs: &[&Job],
    said: &mut NoteTally,
) -> Result<(Vec<bool>, Vec<usize>), Error> {
    // Set by the pricing thread when it stops of its own accord (every job priced, or an error sent): a channel
    // that closes without it closed in a panic, and the writer must not take that for the end of the jobs.
    let finished = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        // Two chunks in flight at most: the pricing stays just ahead of the writes, never the whole file ahead.
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Vec<Line>, Error>>(2);
        let finished = &finished;
        let pricing = s.spawn(move || {
            let mut said = NoteTally::default();
            let mut per_job: Vec<usize> = Vec::with_capacity(jobs.len());
            let mut alike = PricedBefore::default();
            for chunk in jobs.chunks(CHUNK) {
                let mut lines = Vec::with_capacity(chunk.len() * 2);
                for job in chunk {
                    match ctx.lines(job, &mut alike) {
                        Ok(made) => {
                            said.tally(&made);
                            per_job.push(made.lines.len());
                            lines.extend(made.lines);
                        }
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            finished.store(true, std::sync::atomic::Ordering::SeqCst);
                            return (said, per_job);
                        }
                    }
                }
                // The writer stopped (it failed): nothing more is wanted.
                if tx.send(Ok(lines)).is_err() {
                    break;
                }
            }
            finished.store(true, std::sync::atomic::Ordering::SeqCst);
            (said, per_job)
        });
        let cut_short = std::iter::from_fn(|| {
            (!finished.load(std::sync::atomic::Ordering::SeqCst)).then(|| Err(Error::Failed("import: the pricing thread failed".into())))
        })
        .take(1);
        let fresh = ledger.write_chunks(&mut rx.iter().chain(cut_short));
        drop(rx);
        let (theirs, per_job) = pricing.join().map_err(|_| Error::Failed("import: the pricing thread failed".into()))?;
        said.notes = theirs.notes;
        said.energy = theirs.energy;
        Ok((fresh?, per_job))
    })
}

/// `flux jobs` and each finished job's R.
fn flux_live(since: Option<i64>) -> Result<Jobs, Error> {
    let program = Path::new("flux");
    let out = flux::jobs(program, since, LIST_TIMEOUT)
        .map_err(|e| Error::Failed(format!("flux jobs: {e}; a saved `flux jobs --json` output imports with --file")))?;
    let text = String::from_utf8_lossy(&out);
    let mut jobs = Jobs::default();
    for (line, item) in flux::parse(&text).map_err(|e| Error::Failed(format!("flux jobs' output: {e}")))? {
        let v = item.map_err(|e| Error::Failed(format!("flux jobs' output, job {line}: {e}")))?;
        let job = match flux::job(&v, line, None) {
            Ok((job, _)) => job,
            Err(b) => {
                jobs.bad.push(b);
                continue;
            }
        };
        // Only a job that ran to its end has resources worth asking for; it is read again with them.
        if !(FINISHED.contains(&job.state.as_str()) && job.start.is_some()) {
            jobs.add(job);
            continue;
        }
        let id = &job.raw_id;
        let r = flux::resources(program, id, Duration::from_secs(30)).map_err(|e| Error::Failed(format!("flux job info {id} R: {e}")))?;
        match flux::job(&v, line, Some(&r)) {
            Ok((job, _)) => jobs.add(job),
            Err(b) => jobs.bad.push(b),
        }
    }
    Ok(jobs)
}

/// What pricing one job needs.
struct Ctx<'a> {
    sched: Scheduler,
    args: &'a ImportArgs,
    exclusive: bool,
    carbon: &'a Pricer<'a>,
    cost: &'a Pricer<'a>,
    host: &'a str,
    /// The grid's history, with --grid-history.
    history: Option<std::sync::Arc<Series>>,
    settings: &'a Settings,
    /// A carbon pricer for each hardware the jobs ran on, where the carbon provider prices by model; else empty.
    hardware: BTreeMap<Hardware, Pricer<'a>>,
}

/// What the jobs priced before leave for the next: the store's encoder, which keeps the shapes of their estimates
/// and each domain's frame for jobs priced from their hours alone (`Pricer::figures`).
#[derive(Default)]
struct PricedBefore {
    /// One encoder for each hardware the jobs ran on (`Hardware`): a provider that prices by model makes each its
    /// own estimates' frame.
    encoders: BTreeMap<(Hardware, bool), store::Encoder>,
}

/// The hardware a job ran on, as the config maps a scheduler's words: its GPU model (Slurm's gres type, or its
/// partition's), and its CPU model with its cores a socket (its partition's). Empty where the provider does not
/// price by model.
/// A GPU model, a CPU model with its cores a socket, and the bits of the GB of memory a CPU (a key: never NaN).
type Hardware = (Option<String>, Option<(String, u64)>, Option<u64>);

/// A job's records, and what they say.
struct JobLines {
    run_id: String,
    model: String,
    gpu_hours: f64,
    node_kwh: Option<f64>,
    co2e_g: Option<f64>,
    cost_usd: Option<f64>,
    lines: Vec<Line>,
    notes: Vec<String>,
}

impl JobLines {
    fn shown(self, job: &Job) -> JobRecord {
        JobRecord {
            run_id: self.run_id,
            model: self.model,
            state: job.state.to_string(),
            user: job.user.as_deref().map(str::to_string),
            account: job.account.as_deref().map(str::to_string),
            partition: job.partition.as_deref().map(str::to_string),
            ended: job.end,
            gpu_hours: crate::num::tidy(self.gpu_hours),
            cpu_hours: crate::num::tidy(job.cpu_hours),
            node_kwh: self.node_kwh,
            co2e_g: self.co2e_g,
            cost_usd: self.cost_usd,
            notes: self.notes,
        }
    }
}

impl Ctx<'_> {
    fn model(&self, job: &Job) -> String {
        if let Some(m) = &self.args.model {
            return m.clone();
        }
        let (field, what) = match self.args.model_from {
            ModelFrom::Jobname => (&job.name, "name"),
            ModelFrom::Account => (&job.account, "account"),
            ModelFrom::Wckey => (&job.wckey, "wckey"),
            ModelFrom::Comment => (&job.comment, "comment"),
        };
        store::model_of(field.as_deref(), what)
    }

    /// A record's idempotency key: the same for a job read from the scheduler, a `-P` file or JSON.
    fn key(&self, job: &Job, domain: Domain) -> String {
        let cluster = job.cluster.as_deref().unwrap_or("");
        format!("{}:{cluster}:{}:{}:{domain}", self.sched.as_str(), job.raw_id, job.start.unwrap_or(0))
    }

    /// The job priced in `domain`; with --grid-history, carbon at the grid's history over its start to end,
    /// and the notes that says where it could not be.
    fn priced(
        &self,
        pricer: &Pricer,
        job: &Job,
        domain: Domain,
        (gpu, cpu): (f64, f64),
        notes: &mut Vec<String>,
    ) -> Result<Estimate, Error> {
        let history = match (&self.history, weighable(job)) {
            (Some(series), Some((s, e))) if domain == Domain::Carbon => Some(HistoryAsk {
                series: std::sync::Arc::clone(series),
                profile: vec![Weight { from: s as f64, to: e as f64, weight: 1.0 }],
                weighted_by: "time (flat power over the job's start to end)".into(),
            }),
            (Some(_), _) if domain == Domain::Carbon => {
                notes.push(format!(
                    "the job has no start and end to weigh the grid's history over, or ran longer than {} days: priced without it",
                    LONGEST_WEIGHED_S / 86_400
                ));
                None
            }
            _ => None,
        };
        let asked = history.is_some();
        let estimate = pricer.price(gpu, cpu, history)?;
        let h = estimate.grid.as_ref().filter(|g| g.origin == "history").and_then(|g| g.history.as_ref());
        let within = pricing::history::NEAREST_S / 3600;
        match h {
            None if asked => notes.push(format!(
                "the grid's history has no reading within {within} h of the job, or its intensity was set by hand: priced without it"
            )),
            Some(h) if h.gap_share > 0.0 => notes.push(format!(
                "part of the job fell where the grid's history has no reading: the nearest reading (within {within} h) stood in, else the static intensity"
            )),
            _ => {}
        }
        Ok(estimate)
    }

    fn lines(&self, job: &Job, alike: &mut PricedBefore) -> Result<JobLines, Error> {
        let hw = if self.hardware.is_empty() { Hardware::default() } else { hardware_of(self.settings, job) };
        let carbon = self.hardware.get(&hw).unwrap_or(self.carbon);
        // And whether it has CPU-hours: an estimate says what its own CPU-hours were priced at.
        let encoder = alike.encoders.entry((hw, job.cpu_hours > 0.0)).or_default();
        let cluster = job.cluster.as_deref().unwrap_or("");
        let sched = self.sched.as_str();
        let run_id = format!("{sched}:{cluster}:{}", job.id);
        let model = self.model(job);
        let gpu_hours = job.gpus * job.elapsed_s / 3600.0;
        let node_kwh =
            job.energy_j.filter(|e| self.exclusive && *e > 0.0).map(|e| crate::num::tidy(crate::model::energy::Joules(e).kwh().0));
        let mut made = JobLines {
            run_id: run_id.clone(),
            model: model.clone(),
            gpu_hours,
            node_kwh,
            co2e_g: None,
            cost_usd: None,
            lines: Vec::new(),
            notes: Vec::new(),
        };
        for (domain, pricer) in [(Domain::Carbon, carbon), (Domain::Cost, self.cost)] {
            // A provider without a CPU-hours term prices the GPU work and says so; with no GPU work it has nothing to price.
            let mut cpu = job.cpu_hours;
            if cpu > 0.0 && !pricer.accepts("cpu_hours") {
                if gpu_hours <= 0.0 {
                    made.notes.push(format!("{domain} provider '{}' cannot price CPU-only work: no {domain} record", pricer.name()));
                    continue;
                }
                made.notes.push(format!("{domain} provider '{}' has no CPU-hours term: the CPU-hours were not priced", pricer.name()));
                cpu = 0.0;
            }
            if gpu_hours > 0.0 && !pricer.accepts("gpu_hours") {
                made.notes.push(format!("{domain} provider '{}' has no GPU-hours term: no {domain} record", pricer.name()));
                continue;
            }
            let mut line = self.line(job, (domain, pricer), (gpu_hours, cpu), (&run_id, &model), encoder, &mut made)?;
            match domain {
                Domain::Carbon => made.co2e_g = line.figures.get(Figure::Co2eG),
                Domain::Cost => made.cost_usd = line.figures.get(Figure::CostUsd),
            }
            line.figures.set(Figure::DurationS, Some(job.elapsed_s));
            if domain == Domain::Carbon {
                line.figures.set(Figure::MeasuredKwh, node_kwh);
            }
            made.lines.push(line);
        }
        Ok(made)
    }

    /// A job's line in `domain`: priced from its hours alone into the frame of its provider's first estimate
    /// where it brings nothing else, else priced whole (and its frame kept, where it is one).
    fn line(
        &self,
        job: &Job,
        (domain, pricer): (Domain, &Pricer),
        (gpu_hours, cpu): (f64, f64),
        (run_id, model): (&str, &str),
        encoder: &mut store::Encoder,
        made: &mut JobLines,
    ) -> Result<Line, Error> {
        let node_kwh = made.node_kwh;
        let head = || store::Stamp {
            model: model.into(),
            run_id: Some(run_id.into()),
            recorded_at: job.end.or(job.start).unwrap_or(0),
            host: Word::from(&*self.host),
            // Every run of a requeued job is a part of its allocation's work.
            part: true,
            key: self.key(job, domain),
            labels: Labels::of(job.user.as_deref(), job.account.as_deref(), job.partition.as_deref()),
            work: crate::model::Work::default(),
        };
        let failed = |e: Error| Error::Failed(format!("job {run_id}: {e}"));
        // A job that brings only its hours is its provider's first estimate but for its figures: only they are
        // priced, into the frame of that first one. (Not with the grid's history, nor with a measured energy:
        // each such estimate says its own.)
        let alone = self.history.is_none() && (domain == Domain::Cost || node_kwh.is_none());
        let framed = (alone && encoder.has_frame(domain)).then(|| pricer.figures(gpu_hours, cpu)).flatten();
        match framed {
            Some(figures) => {
                let figures = figures.map_err(failed)?;
                let line = encoder.framed(domain, head(), &figures).expect("the domain has a frame");
                debug_assert_eq!(
                    line.estimate_json().as_deref(),
                    Some(serde_json::to_string(&pricer.price(gpu_hours, cpu, None).expect("priced")).expect("serialises").as_str()),
                    "a job priced from its figures alone is the estimate priced whole"
                );
                Ok(line)
            }
            None => {
                let estimate = self.priced(pricer, job, domain, (gpu_hours, cpu), &mut made.notes);
                let mut estimate = estimate.map_err(failed)?;
                if let Some(kwh) = node_kwh.filter(|_| domain == Domain::Carbon) {
                    estimate.notes.push(format!(
                        "Slurm measured {kwh} kWh for the job's nodes (ConsumedEnergyRaw; the allocation held them alone); kept beside this estimate"
                    ));
                }
                Ok(encoder.whole(head(), estimate, alone))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::listed_twice;

    #[test]
    fn a_listing_repeated_is_found_after_its_first_even_where_hashes_collide() {
        // Places 0..6 list the jobs "a b a c b a"; "c" shares "a"'s hash and is not "a".
        let jobs = ["a", "b", "a", "c", "b", "a"];
        let hash = |j: &str| if j == "b" { 2 } else { 1 };
        let mut hashed: Vec<(u64, usize)> = jobs.iter().enumerate().rev().map(|(at, j)| (hash(j), at)).collect();
        let mut twice = listed_twice(&mut hashed, |a, b| jobs[a] == jobs[b]);
        twice.sort_unstable();
        assert_eq!(twice, vec![2, 4, 5]);
        // One job listed many times: each later listing is held against the first alone.
        let compared = std::cell::Cell::new(0);
        let mut many: Vec<(u64, usize)> = (0..10_000).map(|at| (7, at)).collect();
        let twice = listed_twice(&mut many, |a, _| {
            compared.set(compared.get() + 1);
            a == 0
        });
        assert_eq!((twice.len(), compared.get()), (9_999, 9_999));
    }
}
