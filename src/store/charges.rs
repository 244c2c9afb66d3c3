//! The counted records of each run, with what a charge line needs: times,
//! providers and the rate card's unit prices. The same choice as reports
//! (`rule::choose`): a measurement over an estimate, parts summed,
//! repeats once. FOCUS rows and the HTML page are built from these.

use std::collections::BTreeMap;

use super::rule::{choose, Row};

/// One counted record.
#[derive(Debug, Clone)]
pub struct Charged {
    pub id: i64,
    pub provider: String,
    pub digest: String,
    pub measured: bool,
    pub gpu_hours: f64,
    pub cpu_hours: f64,
    pub kwh: Option<f64>,
    pub co2e_g: Option<f64>,
    pub cost_usd: Option<f64>,
    /// The rate card's price per GPU-hour and per CPU-hour, when its coefficients name them.
    pub gpu_rate: Option<f64>,
    pub cpu_rate: Option<f64>,
    /// The figures beside CO2e (carbon records), and the work done.
    pub embodied_co2e_g: Option<f64>,
    pub water_l: Option<f64>,
    pub work: crate::model::Work,
}

/// One run: its counted carbon and cost records.
#[derive(Debug, Clone)]
pub struct RunCharge {
    /// The run id, or `(record N)` for a record without one.
    pub run: String,
    pub model: String,
    /// When the work ran: from the earliest start (recorded time less a measured duration) to the latest record.
    pub start: i64,
    pub end: i64,
    pub carbon: Vec<Charged>,
    pub cost: Vec<Charged>,
    /// A pod's namespace (`namespace`) and its labels and annotations (`label:KEY`, `annotation:KEY`): the keys
    /// `report --by` takes.
    pub tags: BTreeMap<String, String>,
}

/// One stored record, as a store reads it for charges.
pub struct Raw {
    pub id: i64,
    pub model: String,
    pub run_id: Option<String>,
    pub recorded_at: i64,
    pub duration_s: Option<f64>,
    pub carbon: bool,
    pub measured: bool,
    pub part: bool,
    pub provider: String,
    pub digest: String,
    pub gpu_hours: f64,
    pub cpu_hours: f64,
    pub kwh: Option<f64>,
    pub co2e_g: Option<f64>,
    pub uncertainty: Option<f64>,
    pub cost_usd: Option<f64>,
    pub gpu_rate: Option<f64>,
    pub cpu_rate: Option<f64>,
    pub embodied_co2e_g: Option<f64>,
    pub water_l: Option<f64>,
    pub work: crate::model::Work,
    /// A pod's namespace and tags (`model::tags`' JSON text), where the record has them.
    pub namespace: Option<String>,
    pub tags: Option<String>,
}

struct Detail {
    model: String,
    namespace: Option<String>,
    tags: Option<String>,
    recorded_at: i64,
    duration_s: Option<f64>,
    charged: Charged,
}

/// Groups stored records (in id order) into runs and keeps what each run counts.
pub fn from_raw(raw: Vec<Raw>) -> Vec<RunCharge> {
    let mut order: Vec<String> = Vec::new();
    let mut by_run: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    let mut details: BTreeMap<i64, Detail> = BTreeMap::new();
    for r in raw {
        let charged = Charged {
            id: r.id,
            provider: r.provider,
            digest: r.digest,
            measured: r.measured,
            gpu_hours: r.gpu_hours,
            cpu_hours: r.cpu_hours,
            kwh: r.kwh,
            co2e_g: r.co2e_g,
            cost_usd: r.cost_usd,
            gpu_rate: r.gpu_rate,
            cpu_rate: r.cpu_rate,
            embodied_co2e_g: r.embodied_co2e_g,
            water_l: r.water_l,
            work: r.work,
        };
        let row = Row::new(r.id, r.carbon, r.measured, r.part, [r.gpu_hours, r.cpu_hours], [r.kwh, r.co2e_g, r.cost_usd], r.uncertainty);
        let key = r.run_id.unwrap_or_else(|| format!("(record {})", r.id));
        let entry = by_run.entry(key.clone()).or_default();
        if entry.is_empty() {
            order.push(key);
        }
        entry.push(row);
        details.insert(
            r.id,
            Detail { model: r.model, namespace: r.namespace, tags: r.tags, recorded_at: r.recorded_at, duration_s: r.duration_s, charged },
        );
    }
    let mut out = Vec::with_capacity(order.len());
    for run in order {
        let counted = choose(&run, &by_run[&run]);
        let used: Vec<&Detail> = counted.used.iter().map(|r| &details[&r.id]).collect();
        let Some(latest) = used.iter().max_by_key(|d| d.charged.id) else { continue };
        let start = used.iter().map(|d| d.recorded_at - d.duration_s.map_or(0, |s| s.ceil() as i64)).min().unwrap_or(latest.recorded_at);
        let end = used.iter().map(|d| d.recorded_at).max().unwrap_or(latest.recorded_at);
        let pick = |carbon: bool| -> Vec<Charged> {
            counted.used.iter().filter(|r| r.carbon == carbon).map(|r| details[&r.id].charged.clone()).collect()
        };
        // The latest counted record's namespace and tags, as its model.
        let mut tags = latest.tags.as_deref().and_then(crate::model::tags::parse).unwrap_or_default();
        if let Some(ns) = &latest.namespace {
            tags.insert("namespace".into(), ns.clone());
        }
        out.push(RunCharge { run, model: latest.model.clone(), start, end, carbon: pick(true), cost: pick(false), tags });
    }
    out
}

impl RunCharge {
    /// The run's work, counted as reports count it: per kind, the most of its domains' sums; units only
    /// of one name (the first counted record's), None where its records name several.
    pub fn work(&self) -> crate::model::Work {
        let sum = |records: &[Charged], f: fn(&crate::model::Work) -> Option<f64>| {
            records.iter().filter_map(|c| f(&c.work)).fold(None, |a: Option<f64>, v| Some(a.unwrap_or(0.0) + v))
        };
        let most = |f: fn(&crate::model::Work) -> Option<f64>| super::rule::most(sum(&self.carbon, f), sum(&self.cost, f));
        let all: Vec<&Charged> = self.carbon.iter().chain(&self.cost).collect();
        let names: std::collections::BTreeSet<&str> = all.iter().filter_map(|c| c.work.unit.as_ref().map(|u| u.0.as_str())).collect();
        let unit = match names.iter().next() {
            Some(name) if names.len() == 1 => {
                let of = |records: &[Charged]| records.iter().filter_map(|c| c.work.unit.as_ref().map(|u| u.1)).reduce(|a, b| a + b);
                super::rule::most(of(&self.carbon), of(&self.cost)).map(|n| ((*name).to_string(), n))
            }
            _ => None,
        };
        crate::model::Work { tokens: most(|w| w.tokens), prompt_tokens: most(|w| w.prompt_tokens), requests: most(|w| w.requests), unit }
    }
}
