//! `exa import kubernetes`: the pods' measured energy and time, day by day, from the Prometheus that scrapes
//! `gpu serve --pods`, into records a report groups by namespace, label or annotation.
//!
//! For each finished UTC day, each pod's energy (by component) and its GPU- and CPU-seconds are counted hour by
//! hour from the exporter's counters, in Rust, from three range queries a metric (the last value, the resets and
//! the highest value of each hour) and the value before the day: `increase()` would extrapolate to the hour's
//! edges and lose each new series' first sample. A series that first appears in the day counts from 0 (the
//! exporter's counters start at 0, with the exporter or the pod). One carbon and one cost record a pod a day,
//! measured, priced as `record --gpu-kwh/--cpu-kwh` prices (the measured energy's mean power standing in for the
//! provider's assumed one), as the run `k8s:<cluster>:<namespace>/<pod>@<day>#<uid8>`, keyed
//! `k8s:<cluster>:<uid>:<day>:<domain>`: importing a day again adds nothing. The current day is never imported:
//! it is not over, and the ledger only grows.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use crate::cli::KubeImport;
use crate::error::Error;
use crate::model::history::{Series, Weight};
use crate::model::{Domain, Estimate, HistoryAsk, Labels, Measured, NewRecord, Request};
use crate::pricing;
use crate::settings::Settings;
use crate::sources::prometheus::prom::{Client, RawSeries};
use crate::store::{self, Line};
use crate::time::{iso8601, now_unix};

const DAY: i64 = 86_400;
const HOUR: i64 = 3_600;
/// How long one query to Prometheus may take, where the cluster's config does not say.
const QUERY_TIMEOUT: Duration = Duration::from_secs(30);
/// The most days one import reads (a year): more is a mistake in --since.
const MOST_DAYS: i64 = 366;
/// How far back the value before a day is looked for: a series last seen longer ago counts from 0 that day (as a
/// new one does), and the hour's ceilings (`CEILINGS`) keep what that may claim to what a node could do.
const LOOKBACK_DAYS: i64 = 31;
/// How long after midnight a day is first imported: samples sent late (remote write, a federating Prometheus)
/// are in by then.
const SETTLE_S: i64 = 3600;
/// The most each of a pod's counters can rise in a second on one node, by slot (`Slot`): GPU energy (16 GPUs at
/// `GPU_CEILING_W`), CPU packages' (8 packages at 1 kW) and DRAM's (8 at 500 W), J; GPU-seconds (16 GPUs) and
/// CPU-seconds (1,024 CPUs). An hour that claims more is no reading of the hardware and is not counted.
const CEILINGS: [f64; 5] = [16.0 * crate::sources::gpu::energy::GPU_CEILING_W, 8_000.0, 4_000.0, 16.0, 1_024.0];

/// The exporter's series the import reads: each pod's energy by component, its GPU-seconds, its CPU-seconds.
const ENERGY: &str = "exa_pod_energy_joules_total";
const GPU_TIME: &str = "exa_pod_gpu_time_seconds_total";
const CPU_TIME: &str = "exa_pod_cpu_time_seconds_total";
const INFO: &str = "exa_pod_info";

/// One pod's day, as it would be recorded.
#[derive(Debug, Serialize)]
pub struct PodDay {
    pub run_id: String,
    pub model: String,
    pub namespace: String,
    pub pod: String,
    pub uid: String,
    /// The UTC day.
    pub day: String,
    pub gpu_hours: f64,
    pub cpu_hours: f64,
    /// The measured GPU energy; null where no GPU was read.
    pub gpu_kwh: Option<f64>,
    /// The measured CPU packages' and DRAM energy; null where RAPL was not read.
    pub cpu_kwh: Option<f64>,
    /// The pod's labels and annotations, as `label:KEY` and `annotation:KEY`.
    pub tags: BTreeMap<String, String>,
    pub co2e_g: Option<f64>,
    pub cost_usd: Option<f64>,
    pub notes: Vec<String>,
}

/// What an import of pods did.
#[derive(Debug, Serialize)]
pub struct KubeImported {
    pub cluster: String,
    /// The Prometheus read, credentials hidden.
    pub prometheus: String,
    /// The first day imported (inclusive) and the end (exclusive), UTC midnights.
    #[serde(serialize_with = "crate::time::serialize_iso")]
    pub since: i64,
    /// --since, or "the last import" (the day after the newest this cluster stored), or "yesterday".
    pub since_from: &'static str,
    #[serde(serialize_with = "crate::time::serialize_iso")]
    pub until: i64,
    pub days: u64,
    pub dry_run: bool,
    /// Pod-days read (a pod with energy or time that day).
    pub pod_days: u64,
    /// Pod-days recorded now.
    pub imported: u64,
    /// Pod-days whose records an earlier import stored: not written again.
    pub already_there: u64,
    pub records_written: u64,
    /// Pod-days not recorded, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// The measured energy of the pod-days read, kWh (GPU, CPU and DRAM).
    pub measured_kwh: f64,
    pub carbon_provider: String,
    pub cost_provider: String,
    /// Queries made to Prometheus.
    pub queries: u64,
    pub db: String,
    pub notes: Vec<String>,
    /// Every pod-day as it would be recorded; only with --dry-run (null otherwise).
    pub pods: Option<Vec<PodDay>>,
}

/// A pod's day, counted.
#[derive(Default)]
struct Counted {
    namespace: String,
    pod: String,
    tags: BTreeMap<String, String>,
    /// Energy by component (gpu, cpu, dram) and hour, J.
    energy: [[f64; 24]; 3],
    /// Which components a series said.
    said: [bool; 3],
    /// GPU-seconds and CPU-seconds, by hour.
    time: [[f64; 24]; 2],
    /// Whether an exporter restarted (a counter reset) that day.
    reset: bool,
    /// By slot (gpu, cpu, dram energy; GPU and CPU time), whether an hour's rise was more than a node can make
    /// (`CEILINGS`): not counted, and that energy not taken as measured.
    impossible: [bool; 5],
}

/// The three hourly answers of one metric, each series' by its labels: the last value, the resets, the highest
/// value of each hour (hour h ends at `day + (h + 1) h`); and the last value before the day.
struct Hourly {
    last: Vec<RawSeries>,
    resets: BTreeMap<BTreeMap<String, String>, Vec<(f64, f64)>>,
    max: BTreeMap<BTreeMap<String, String>, Vec<(f64, f64)>>,
    before: BTreeMap<BTreeMap<String, String>, f64>,
}

/// The sample at `t` of a series' samples, where it has one.
fn at(samples: &[(f64, f64)], t: i64) -> Option<f64> {
    samples.iter().find(|(s, _)| (*s - t as f64).abs() < 0.5).map(|(_, v)| *v)
}

/// A counter's rise in each hour of the day: from the value before the hour (the last reading before the day, or
/// 0 for a series new that day) to the hour's last. Where the counter reset in the hour (or went back), the hour's
/// highest reading is the last before the reset when it is above the hour's last (a counter after a reset only
/// climbs): its rise over the value before, then the hour's last; else the reset came first, and the hour's last is
/// its rise. What the exporter counted between its last scrape and its restart is lost to any reader. The second
/// value: whether any hour reset.
fn rises(day: i64, last: &[(f64, f64)], resets: &[(f64, f64)], max: &[(f64, f64)], before: Option<f64>) -> ([f64; 24], bool) {
    let mut out = [0.0; 24];
    let mut prev = before.unwrap_or(0.0);
    let mut reset = false;
    for (h, slot) in out.iter_mut().enumerate() {
        let end = day + (h as i64 + 1) * HOUR;
        let Some(v) = at(last, end) else { continue };
        let went_back = at(resets, end).is_some_and(|r| r > 0.0) || v < prev;
        *slot = if went_back {
            reset = true;
            match at(max, end) {
                Some(m) if m > v => (m - prev).max(0.0) + v,
                _ => v,
            }
        } else {
            v - prev
        };
        prev = v;
    }
    (out, reset)
}

/// A series' labels as the answers of different functions share them: Prometheus keeps the metric's name through
/// `last_over_time` and drops it through `resets` and `max_over_time`.
fn named(mut labels: BTreeMap<String, String>) -> BTreeMap<String, String> {
    labels.remove("__name__");
    labels
}

fn keyed(series: Vec<RawSeries>) -> BTreeMap<BTreeMap<String, String>, Vec<(f64, f64)>> {
    series.into_iter().map(|s| (named(s.labels), s.samples)).collect()
}

/// The client of the Prometheus to read: --prometheus, else the configured cluster's (its token and labels too).
fn client(settings: &Settings, args: &KubeImport) -> Result<(Client, String), Error> {
    let configured = settings.config.clusters.get(&args.cluster);
    // A configured cluster keeps its token, labels (its tenancy in a shared Prometheus) and deadline when
    // --prometheus names another address for it.
    let (base, token, scope, timeout) = match (&args.prometheus, configured) {
        (Some(url), None) => (url.clone(), None, crate::model::IndexMap::default(), QUERY_TIMEOUT),
        (url, Some(c)) => (
            url.clone().unwrap_or_else(|| c.prometheus.clone()),
            c.token_env.as_deref().map(|v| settings.cluster_token(&args.cluster, v)).transpose()?,
            c.labels.clone(),
            c.timeout_s.map_or(QUERY_TIMEOUT, Duration::from_secs_f64),
        ),
        (None, None) => {
            return Err(Error::Usage(format!(
                "no Prometheus to read: give --prometheus URL, or configure cluster '{}' under clusters: in {}",
                crate::text::clean(&args.cluster),
                settings.config_path.value.display()
            )))
        }
    };
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(Error::Usage(format!("--prometheus: '{}' is not an http:// or https:// URL", crate::text::redact_url(&base))));
    }
    let shown = crate::text::redact_url(&base);
    Ok((Client::new(&args.cluster, &base, token, timeout, scope), shown))
}

/// A day's hourly answers of `metric`.
fn hourly(client: &Client, metric: &str, day: i64) -> Result<Hourly, Error> {
    let range = |q: String| {
        client.range(&q, day, day + DAY, HOUR).map(crate::sources::prometheus::prom::PromAnswer::series).map_err(Error::Metrics)
    };
    let last = range(format!("last_over_time({metric}[1h])"))?
        .into_iter()
        .map(|s| RawSeries { labels: named(s.labels), samples: s.samples })
        .collect();
    let resets = keyed(range(format!("resets({metric}[1h])"))?);
    let max = keyed(range(format!("max_over_time({metric}[1h])"))?);
    // The last value before the day, for a series the hour before midnight did not see (the exporter or the scrape
    // down then): looked for as far back as `LOOKBACK_DAYS`, among the series the day saw.
    let before = client
        .instant(&format!("last_over_time({metric}[{LOOKBACK_DAYS}d]) and present_over_time({metric}[1d] @ {})", day + DAY), day)
        .map_err(Error::Metrics)?
        .series()
        .into_iter()
        .filter_map(|s| Some((named(s.labels), s.samples.last()?.1)))
        .collect();
    Ok(Hourly { last, resets, max, before })
}

/// A label's value as a record keeps it: no control characters, at most 253 characters (a Kubernetes name's most).
fn said(v: &str) -> String {
    crate::text::clean(v).chars().take(253).collect()
}

/// Each pod's counted day, by UID.
fn count_day(client: &Client, day: i64) -> Result<BTreeMap<String, Counted>, Error> {
    let mut pods: BTreeMap<String, Counted> = BTreeMap::new();
    for (metric, time) in [(ENERGY, None), (GPU_TIME, Some(3)), (CPU_TIME, Some(4))] {
        let h = hourly(client, metric, day)?;
        for s in &h.last {
            // A pod's UID, as the API server makes them (a UUID): anything else is not the exporter's.
            let uid_ok = |u: &&String| (1..=64).contains(&u.len()) && u.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
            let Some(uid) = s.labels.get("k8s_pod_uid").filter(uid_ok) else { continue };
            let slot = match (time, s.labels.get("component").map(String::as_str)) {
                (Some(t), _) => t,
                (None, Some(c)) => match ["gpu", "cpu", "dram"].iter().position(|x| *x == c) {
                    Some(i) => i,
                    None => continue,
                },
                (None, None) => continue,
            };
            let none = Vec::new();
            let before = at(&s.samples, day).or_else(|| h.before.get(&s.labels).copied());
            let (mut rise, reset) =
                rises(day, &s.samples, h.resets.get(&s.labels).unwrap_or(&none), h.max.get(&s.labels).unwrap_or(&none), before);
            let p = pods.entry(uid.clone()).or_default();
            for (mine, name) in [(&mut p.namespace, "k8s_namespace_name"), (&mut p.pod, "k8s_pod_name")] {
                if mine.is_empty() {
                    *mine = s.labels.get(name).map(|v| said(v)).unwrap_or_default();
                }
            }
            p.reset |= reset;
            for r in &mut rise {
                if *r > CEILINGS[slot] * HOUR as f64 {
                    *r = 0.0;
                    p.impossible[slot] = true;
                }
            }
            if slot < 3 {
                p.said[slot] = true;
            }
            let into = if slot < 3 { &mut p.energy[slot] } else { &mut p.time[slot - 3] };
            // Two series of one pod's counter (one exporter scraped twice, or two exporters on its node for a
            // moment): the same energy said twice, counted once, the larger each hour.
            for (a, b) in into.iter_mut().zip(rise) {
                *a = a.max(b);
            }
        }
    }
    // A pod whose counters did not move that day (one whose last reading was at midnight: a range's window holds
    // both its ends) has no day to record.
    pods.retain(|_, p| p.energy.iter().chain(&p.time).flatten().any(|v| *v > 0.0) || p.impossible.iter().any(|i| *i));
    // The names, labels and annotations the exporter said last that day.
    let info = client.instant(&format!("last_over_time({INFO}[1d])"), day + DAY).map_err(Error::Metrics)?.series();
    for s in info {
        let Some(p) = s.labels.get("k8s_pod_uid").and_then(|u| pods.get_mut(u)) else { continue };
        for (k, v) in &s.labels {
            let tag = match (k.strip_prefix("k8s_pod_label_"), k.strip_prefix("k8s_pod_annotation_")) {
                (Some(key), _) => format!("label:{key}"),
                (_, Some(key)) => format!("annotation:{key}"),
                _ => continue,
            };
            if !v.is_empty() && crate::model::tags::check(&tag).is_ok() {
                p.tags.insert(tag, said(v));
            }
        }
        if let (Some(ns), Some(name)) = (s.labels.get("k8s_namespace_name"), s.labels.get("k8s_pod_name")) {
            if !ns.is_empty() && !name.is_empty() {
                p.namespace = said(ns);
                p.pod = said(name);
            }
        }
    }
    Ok(pods)
}

/// The days to import: --since (a day, or an age) to --until, else from the day after this cluster's last
/// import, else yesterday; never today or later, nor yesterday in the first `SETTLE_S` of today.
fn days(args: &KubeImport, db: &store::Db) -> Result<(i64, &'static str, i64), Error> {
    let today = (now_unix() - SETTLE_S).div_euclid(DAY) * DAY;
    // The UTC day a --since or --until falls in (a date alone for --until: the day after it).
    let day_of = |flag: &str, s: &str, end: bool| super::when(flag, s, end).map(|t| t.div_euclid(DAY) * DAY);
    let until = match &args.until {
        Some(u) => day_of("--until", u, true)?.min(today),
        None => today,
    };
    let (since, from) = match &args.since {
        Some(s) => (day_of("--since", s, false)?, "--since"),
        None => {
            let newest = match store::open_read(db)? {
                Some(mut l) => l.newest_imported(&format!("k8s:{}:", args.cluster), now_unix() + DAY)?.0,
                None => None,
            };
            match newest {
                Some(t) => (t.div_euclid(DAY) * DAY + DAY, "the last import"),
                None => (today - DAY, "yesterday"),
            }
        }
    };
    if (args.since.is_some() || args.until.is_some()) && since >= until {
        return Err(Error::Usage(format!(
            "--since {} is not before {} (--until, or today, which is not over and is never imported; nor is yesterday in \
             today's first hour)",
            &iso8601(since)[..10],
            &iso8601(until)[..10]
        )));
    }
    if (until - since) / DAY > MOST_DAYS {
        let flag = if args.since.is_some() { "--since" } else { "the day after this cluster's last import" };
        return Err(Error::Usage(format!(
            "{flag}: {} days, more than the {MOST_DAYS} one import reads (give --since and --until)",
            (until - since) / DAY
        )));
    }
    Ok((since, from, until.max(since)))
}

pub fn run(settings: &Settings, args: &KubeImport) -> Result<KubeImported, Error> {
    super::check_cluster(&args.cluster)?;
    if let Some(m) = &args.model {
        store::check_record_name("--model", m)?;
    }
    let (client, shown) = client(settings, args)?;
    let db = settings.db()?;
    if !args.dry_run {
        store::check_writable(&db)?;
    }
    let carbon = pricing::Pricer::new(settings, Domain::Carbon, args.carbon_provider.as_deref())?;
    let cost = pricing::Pricer::new(settings, Domain::Cost, args.cost_provider.as_deref())?;
    let (since, since_from, until) = days(args, &db)?;
    let mut answer = KubeImported {
        cluster: args.cluster.clone(),
        prometheus: shown,
        since,
        since_from,
        until,
        days: u64::try_from((until - since) / DAY).unwrap_or(0),
        dry_run: args.dry_run,
        pod_days: 0,
        imported: 0,
        already_there: 0,
        records_written: 0,
        skipped: BTreeMap::new(),
        measured_kwh: 0.0,
        carbon_provider: carbon.name().to_string(),
        cost_provider: cost.name().to_string(),
        queries: 0,
        db: db.shown(),
        notes: Vec::new(),
        pods: args.dry_run.then(Vec::new),
    };
    let history = history(settings, args, &carbon, since, until, &mut answer)?;
    let mut ledger = if args.dry_run { None } else { Some(store::open(&db)?) };
    let mut notes: BTreeMap<String, u64> = BTreeMap::new();
    let mut day = since;
    while day < until {
        if answer.days > 1 {
            settings.warn(format!("kubernetes: reading {}", &iso8601(day)[..10]));
        }
        import_day(settings, args, (&client, day, history.as_ref()), ledger.as_mut(), (&mut answer, &mut notes))?;
        day += DAY;
    }
    answer.measured_kwh = crate::num::tidy(answer.measured_kwh);
    answer.queries = client.made.load(std::sync::atomic::Ordering::Relaxed);
    answer.notes.extend(notes.into_iter().map(|(n, k)| if k > 1 { format!("{n} ({k} pod-days)") } else { n }));
    if answer.days == 0 {
        answer.notes.push(format!("nothing to import: every finished day up to {} is imported", &iso8601(until - DAY)[..10]));
    } else if answer.pod_days == 0 {
        answer.notes.push(format!(
            "Prometheus holds no {ENERGY}, {GPU_TIME} or {CPU_TIME} for these days: is `exa gpu serve --pods` scraped by it?"
        ));
    }
    Ok(answer)
}

/// One day's pods priced, and written unless this is a dry run; what was done added to the answer.
fn import_day(
    settings: &Settings,
    args: &KubeImport,
    (client, day, history): (&Client, i64, Option<&std::sync::Arc<Series>>),
    ledger: Option<&mut Box<dyn store::Ledger>>,
    (answer, notes): (&mut KubeImported, &mut BTreeMap<String, u64>),
) -> Result<(), Error> {
    let pods = count_day(client, day)?;
    let mut records = Vec::new();
    for (uid, p) in &pods {
        answer.pod_days += 1;
        let made = priced(settings, args, (uid, p, day), history)?;
        answer.measured_kwh += made.1.gpu_kwh.unwrap_or(0.0) + made.1.cpu_kwh.unwrap_or(0.0);
        for n in &made.1.notes {
            *notes.entry(n.clone()).or_insert(0) += 1;
        }
        match made.0 {
            None => *answer.skipped.entry("no GPU or CPU time that day".into()).or_insert(0) += 1,
            Some(r) => records.push(r),
        }
        if let Some(shown) = answer.pods.as_mut() {
            shown.push(made.1);
        }
    }
    if let Some(l) = ledger {
        let lines: Vec<Line> = records.iter().flatten().map(Line::of).collect();
        let written = l.write(&lines)?;
        answer.records_written += written.iter().filter(|(_, new)| *new).count() as u64;
        let mut at = 0;
        for r in &records {
            let fresh = written[at..at + r.len()].iter().any(|(_, new)| *new);
            *(if fresh { &mut answer.imported } else { &mut answer.already_there }) += 1;
            at += r.len();
        }
    }
    Ok(())
}

/// The grid's history over the days, with --grid-history.
fn history(
    settings: &Settings,
    args: &KubeImport,
    carbon: &pricing::Pricer,
    since: i64,
    until: i64,
    answer: &mut KubeImported,
) -> Result<Option<std::sync::Arc<Series>>, Error> {
    if !args.grid_history {
        return Ok(None);
    }
    if let Some(by) = carbon.intensity_set_by() {
        answer.notes.push(format!("--grid-history: grid_intensity_g_per_kwh is set by {by}, and wins: the history is not read"));
        return Ok(None);
    }
    let days: Vec<i64> = (since / DAY..until / DAY).collect();
    match pricing::history::fetch(settings, &days) {
        Ok(Some(s)) => Ok(Some(std::sync::Arc::new(s))),
        Ok(None) => Err(Error::Config(
            "--grid-history needs the grid's history endpoint: set EXAMLOPS_GRID_HISTORY_URL or finops.carbon.grid.history_url".into(),
        )),
        Err(e) => Err(Error::Failed(format!("--grid-history: {e}; nothing was imported"))),
    }
}

fn sum(h: &[f64; 24]) -> f64 {
    h.iter().sum()
}

/// A pod's measured GPU energy and its CPU and DRAM energy, kWh, where they can be priced, and what was not.
fn energy(p: &Counted, gpu_s: f64, cpu_s: f64) -> (Option<f64>, Option<f64>, Vec<String>) {
    let joules = [sum(&p.energy[0]), sum(&p.energy[1]) + sum(&p.energy[2])];
    let kwh = |j: f64| crate::num::tidy(crate::model::energy::Joules(j).kwh().0);
    let mut notes = Vec::new();
    // Energy without the time it was spent over cannot be priced by a rate card, nor stand in for a provider's power.
    let gpu_kwh = match (p.said[0] && !p.impossible[0], gpu_s > 0.0) {
        (true, true) => Some(kwh(joules[0])),
        (true, false) if joules[0] > 0.0 => {
            notes.push("GPU energy without a GPU the kubelet gave the pod (a process on a GPU it did not hold): not priced".to_string());
            None
        }
        _ => None,
    };
    let cpu_kwh = match ((p.said[1] || p.said[2]) && !p.impossible[1] && !p.impossible[2], cpu_s > 0.0) {
        (true, true) => Some(kwh(joules[1])),
        (true, false) if joules[1] > 0.0 => {
            notes.push("CPU energy without CPU time (the idle policy's part, for a pod that used none): not priced".to_string());
            None
        }
        _ => None,
    };
    if p.reset {
        notes.push(
            "an exporter restarted during the day: what it counted between its last scrape and its restart is not in the counters".into(),
        );
    }
    if p.impossible.iter().any(|i| *i) {
        let what: Vec<&str> = ["GPU energy", "CPU energy", "DRAM energy", "GPU time", "CPU time"]
            .iter()
            .zip(p.impossible)
            .filter_map(|(w, i)| i.then_some(*w))
            .collect();
        notes.push(format!(
            "an hour's rise of {} was more than a node can make (16 GPUs at {} W, 8 CPU packages): not a reading of the hardware; \
             that hour not counted, and that energy estimated, not measured",
            what.join(", "),
            crate::sources::gpu::energy::GPU_CEILING_W
        ));
    }
    (gpu_kwh, cpu_kwh, notes)
}

/// The weights the grid's history is averaged by: each hour's energy of the pod (or its time, where no energy was
/// read), and what they are.
fn weights(p: &Counted, day: i64) -> (Vec<Weight>, &'static str) {
    let measured = p.energy.iter().map(sum).sum::<f64>() > 0.0;
    let weights = (0..24)
        .map(|h| {
            let w = if measured { p.energy.iter().map(|c| c[h]).sum::<f64>() } else { p.time[0][h] + p.time[1][h] };
            Weight { from: (day + h as i64 * HOUR) as f64, to: (day + (h as i64 + 1) * HOUR) as f64, weight: w }
        })
        .collect();
    (weights, if measured { "the pod's measured energy per hour" } else { "the pod's GPU and CPU time per hour" })
}

/// A pod's day priced in both domains: its records (none where it held no GPU and used no CPU), and how it is
/// shown.
fn priced(
    settings: &Settings,
    args: &KubeImport,
    (uid, p, day): (&str, &Counted, i64),
    history: Option<&std::sync::Arc<Series>>,
) -> Result<(Option<Vec<NewRecord>>, PodDay), Error> {
    let date = iso8601(day)[..10].to_string();
    let namespace = if p.namespace.is_empty() { "(none)".to_string() } else { p.namespace.clone() };
    let pod = if p.pod.is_empty() { uid.to_string() } else { p.pod.clone() };
    let model = args.model.clone().unwrap_or_else(|| store::model_of(Some(&namespace), "namespace"));
    // The UID's first part tells apart pods made again under one name the same day (a StatefulSet's, moved): each is
    // a run of its own, so a measured one never supersedes another's estimate.
    let run_id = format!("k8s:{}:{namespace}/{pod}@{date}#{}", args.cluster, uid.get(..8).unwrap_or(uid));
    let (gpu_s, cpu_s) = (sum(&p.time[0]), sum(&p.time[1]));
    let (gpu_kwh, cpu_kwh, notes) = energy(p, gpu_s, cpu_s);
    let mut shown = PodDay {
        run_id: run_id.clone(),
        model: model.clone(),
        namespace: namespace.clone(),
        pod,
        uid: uid.to_string(),
        day: date.clone(),
        gpu_hours: crate::num::tidy(gpu_s / 3600.0),
        cpu_hours: crate::num::tidy(cpu_s / 3600.0),
        gpu_kwh,
        cpu_kwh,
        tags: p.tags.clone(),
        co2e_g: None,
        cost_usd: None,
        notes: Vec::new(),
    };
    if gpu_s <= 0.0 && cpu_s <= 0.0 {
        shown.notes = notes;
        return Ok((None, shown));
    }
    let (weights, by) = weights(p, day);
    let mut records = Vec::new();
    for (domain, flag) in [(Domain::Carbon, &args.carbon_provider), (Domain::Cost, &args.cost_provider)] {
        let req = Request {
            gpu_hours: (gpu_s > 0.0).then_some(gpu_s / 3600.0),
            cpu_hours: (cpu_s > 0.0).then_some(cpu_s / 3600.0),
            gpu_kwh,
            cpu_kwh,
            provider: flag.clone(),
            history: history.filter(|_| domain == Domain::Carbon).map(|s| HistoryAsk {
                series: std::sync::Arc::clone(s),
                profile: weights.clone(),
                weighted_by: by.into(),
            }),
            ..Request::default()
        };
        let estimate: Estimate = pricing::estimate(settings, domain, &req).map_err(|e| in_pod(&run_id, e))?;
        match domain {
            Domain::Carbon => shown.co2e_g = estimate.outputs.get("co2e_g").copied(),
            Domain::Cost => shown.cost_usd = estimate.outputs.get("cost_usd").copied(),
        }
        let labels = Labels {
            namespace: (!p.namespace.is_empty()).then(|| p.namespace.as_str().into()),
            tags: crate::model::tags::json(&p.tags),
            ..Labels::default()
        };
        let measured = (gpu_kwh.is_some() || cpu_kwh.is_some()).then(|| Measured {
            duration_s: (0..24).filter(|&h| p.time[0][h] + p.time[1][h] > 0.0).count() as f64 * HOUR as f64,
            device_count: p.time[0].iter().map(|s| (s / HOUR as f64).ceil() as usize).max().unwrap_or(0),
            gpu_kwh,
            node: None,
        });
        records.push(NewRecord {
            model: model.clone(),
            run_id: Some(run_id.clone()),
            recorded_at: day + DAY - 1,
            host: store::hostname(),
            estimate,
            measured,
            part: false,
            key: format!("k8s:{}:{uid}:{date}:{domain}", args.cluster),
            labels,
            work: crate::model::Work::default(),
        });
    }
    shown.notes = notes;
    Ok((Some(records), shown))
}

/// An error pricing a pod's day, naming it, of the same kind.
fn in_pod(run_id: &str, e: Error) -> Error {
    let said = |m: String| format!("{run_id}: {m}; nothing was imported from that day on");
    match e {
        Error::Usage(m) => Error::Usage(said(m)),
        Error::Config(m) => Error::Config(said(m)),
        Error::Refused(m) => Error::Refused(said(m)),
        Error::Failed(m) => Error::Failed(said(m)),
        other @ Error::Metrics(_) => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: i64 = 1_795_000_000 / DAY * DAY;

    fn hours(values: &[(i64, f64)]) -> Vec<(f64, f64)> {
        values.iter().map(|(h, v)| ((D + h * HOUR) as f64, *v)).collect()
    }

    /// A counter's hourly rises: from the value before the day, from 0 for a series new that day, across an
    /// hour with no reading, and through a reset (the hour's highest reading before it, its last after).
    #[test]
    fn a_counter_rises_hour_by_hour_through_gaps_and_resets() {
        let last = hours(&[(1, 110.0), (2, 130.0), (4, 170.0), (5, 20.0), (6, 50.0)]);
        let resets = hours(&[(5, 1.0)]);
        let max = hours(&[(5, 190.0)]);
        let (r, reset) = rises(D, &last, &resets, &max, Some(100.0));
        assert_eq!(&r[..6], &[10.0, 20.0, 0.0, 40.0, 40.0, 30.0]);
        assert!(reset);
        assert_eq!(r.iter().sum::<f64>(), 140.0);
        // A counter that climbed past its old value after the reset, within the hour: the hour's last alone.
        let (r, _) = rises(D, &hours(&[(1, 3540.0)]), &hours(&[(1, 1.0)]), &hours(&[(1, 3540.0)]), Some(1000.0));
        assert_eq!(r[0], 3540.0);
        let (r, reset) = rises(D, &hours(&[(3, 7.0)]), &[], &[], None);
        assert_eq!((r[2], r.iter().sum::<f64>(), reset), (7.0, 7.0, false));
        // A counter that went back with no reset seen (between two hours' readings): a reset all the same.
        let (r, reset) = rises(D, &hours(&[(1, 50.0), (2, 5.0)]), &[], &[], Some(40.0));
        assert_eq!((r[0], r[1], reset), (10.0, 5.0, true));
    }
}
