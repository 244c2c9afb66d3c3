//! FinOps FOCUS 1.2 cost rows from the ledger's counted runs (`exa report --format focus`).
//!
//! One row per run and resource (GPU-hours, CPU-hours), each run counted
//! once as reports count it. FOCUS has no carbon columns: exa's own ride in
//! `x_` columns, the prefix FOCUS reserves for them. Carbon and the run's
//! totals are on a run's first row only, so a sum over rows counts each run
//! once.

use serde::Serialize;

use crate::error::Error;
use crate::model::config::FocusConfig;
use crate::num::tidy;
use crate::store::charges::{Charged, RunCharge};
use crate::time::iso8601;

/// The columns, in the order written; FOCUS names, then exa's `x_` columns.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct FocusRow {
    pub billed_cost: f64,
    pub billing_account_id: String,
    pub billing_account_name: String,
    pub billing_currency: &'static str,
    pub billing_period_end: String,
    pub billing_period_start: String,
    pub charge_category: &'static str,
    pub charge_class: Option<&'static str>,
    pub charge_description: String,
    pub charge_frequency: &'static str,
    pub charge_period_end: String,
    pub charge_period_start: String,
    pub consumed_quantity: f64,
    pub consumed_unit: &'static str,
    pub contracted_cost: f64,
    pub contracted_unit_price: Option<f64>,
    pub effective_cost: f64,
    pub invoice_id: Option<String>,
    pub invoice_issuer_name: String,
    pub list_cost: f64,
    pub list_unit_price: Option<f64>,
    pub pricing_category: &'static str,
    pub pricing_quantity: f64,
    pub pricing_unit: &'static str,
    pub provider_name: String,
    pub publisher_name: String,
    pub resource_id: String,
    pub resource_name: String,
    pub resource_type: &'static str,
    pub service_category: &'static str,
    pub service_name: String,
    pub service_subcategory: &'static str,
    pub tags: String,
    #[serde(rename = "x_RecordIds")]
    pub x_record_ids: String,
    #[serde(rename = "x_Measured")]
    pub x_measured: bool,
    #[serde(rename = "x_CostProvider")]
    pub x_cost_provider: String,
    #[serde(rename = "x_CostProviderDigest")]
    pub x_cost_provider_digest: String,
    #[serde(rename = "x_CostAllocation")]
    pub x_cost_allocation: &'static str,
    #[serde(rename = "x_RunGpuHours")]
    pub x_run_gpu_hours: Option<f64>,
    #[serde(rename = "x_RunCpuHours")]
    pub x_run_cpu_hours: Option<f64>,
    #[serde(rename = "x_EnergyKwh")]
    pub x_energy_kwh: Option<f64>,
    #[serde(rename = "x_Co2eGrams")]
    pub x_co2e_grams: Option<f64>,
    #[serde(rename = "x_CarbonProvider")]
    pub x_carbon_provider: Option<String>,
    #[serde(rename = "x_CarbonProviderDigest")]
    pub x_carbon_provider_digest: Option<String>,
    /// The run's embodied CO2e, water and work.
    #[serde(flatten)]
    pub x_work: XWork,
}

/// The rows, and how many runs had no cost record to make a charge of.
#[derive(Debug)]
pub struct Focus {
    pub rows: Vec<FocusRow>,
    pub runs_without_cost: u64,
}

/// The names rows carry, from `finops.focus` or their defaults.
struct Names {
    account_id: String,
    account_name: String,
    provider: String,
    publisher: String,
    issuer: String,
    service: String,
}

impl Names {
    /// The publisher and the invoice issuer default to the provider: a provider unlike the issuer
    /// reads, in FOCUS, as a marketplace charge resold by the issuer (docs/records.md).
    fn of(c: &FocusConfig) -> Names {
        let or = |v: &Option<String>, d: &str| v.clone().unwrap_or_else(|| d.to_string());
        let provider = or(&c.provider_name, "ExaMLOps");
        Names {
            account_id: or(&c.billing_account_id, "examlops"),
            account_name: or(&c.billing_account_name, "ExaMLOps"),
            publisher: or(&c.publisher_name, &provider),
            issuer: or(&c.invoice_issuer_name, &provider),
            provider,
            service: or(&c.service_name, "ExaMLOps compute"),
        }
    }
}

const GPU: &str = "GPU-Hours";
const CPU: &str = "CPU-Hours";

/// One value shared by every record, else none (the rate is then not known for the sum).
fn shared(records: &[Charged], f: impl Fn(&Charged) -> Option<f64>) -> Option<f64> {
    let first = f(records.first()?)?;
    records.iter().all(|r| f(r) == Some(first)).then_some(first)
}

fn joined(records: &[Charged], f: impl Fn(&Charged) -> &str) -> String {
    let mut v: Vec<&str> = records.iter().map(f).collect();
    v.dedup();
    v.join("; ")
}

/// One resource's share of a run's charge.
struct Share {
    unit: &'static str,
    quantity: f64,
    cost: f64,
    rate: Option<f64>,
}

/// Splits a run's cost between GPU-hours and CPU-hours: by the rate card's
/// `cpu_rate` when it names one (the rest is the GPU-hours'), else the
/// whole cost on one row.
fn lines(cost: &[Charged], total: f64) -> (Vec<Share>, &'static str) {
    let gpu: f64 = cost.iter().map(|c| c.gpu_hours).sum();
    let cpu: f64 = cost.iter().map(|c| c.cpu_hours).sum();
    let (gpu_rate, cpu_rate) = (shared(cost, |c| c.gpu_rate), shared(cost, |c| c.cpu_rate));
    match (gpu > 0.0, cpu > 0.0, cpu_rate) {
        (true, true, Some(r)) => {
            let cpu_cost = (cpu * r).min(total);
            (
                vec![
                    Share { unit: GPU, quantity: gpu, cost: total - cpu_cost, rate: gpu_rate },
                    Share { unit: CPU, quantity: cpu, cost: cpu_cost, rate: Some(r) },
                ],
                "split: CPU-hours at cpu_rate, the rest to GPU-hours",
            )
        }
        (true, true, None) => {
            (vec![Share { unit: GPU, quantity: gpu, cost: total, rate: None }], "whole run: the rate card names no cpu_rate to split by")
        }
        (false, true, _) => (vec![Share { unit: CPU, quantity: cpu, cost: total, rate: cpu_rate }], "whole run: CPU-hours only"),
        _ => (vec![Share { unit: GPU, quantity: gpu, cost: total, rate: gpu_rate }], "whole run: GPU-hours only"),
    }
}

/// A run's figures beside its CO2e and the work it did, on its first row.
#[derive(Debug, Clone, Default, Serialize)]
pub struct XWork {
    /// The hardware's embodied CO2e for the run, beside `x_Co2eGrams` (not in it).
    #[serde(rename = "x_EmbodiedCo2eGrams")]
    pub x_embodied_co2e_grams: Option<f64>,
    #[serde(rename = "x_WaterLitres")]
    pub x_water_litres: Option<f64>,
    /// The run's work: output and prompt tokens, requests, and units of its own naming.
    #[serde(rename = "x_Tokens")]
    pub x_tokens: Option<f64>,
    #[serde(rename = "x_PromptTokens")]
    pub x_prompt_tokens: Option<f64>,
    #[serde(rename = "x_Requests")]
    pub x_requests: Option<f64>,
    #[serde(rename = "x_UnitName")]
    pub x_unit_name: Option<String>,
    #[serde(rename = "x_Units")]
    pub x_units: Option<f64>,
}

impl XWork {
    /// A run's, as its counted records give them.
    fn of(run: &RunCharge) -> XWork {
        // Summed over the counted carbon records that have the figure, as reports sum it.
        let carbon_sum = |f: fn(&Charged) -> Option<f64>| run.carbon.iter().filter_map(f).reduce(|a, b| a + b);
        let work = run.work();
        XWork {
            x_embodied_co2e_grams: carbon_sum(|c| c.embodied_co2e_g).map(tidy),
            x_water_litres: carbon_sum(|c| c.water_l).map(tidy),
            x_tokens: work.tokens,
            x_prompt_tokens: work.prompt_tokens,
            x_requests: work.requests,
            x_unit_name: work.unit.as_ref().map(|u| u.0.clone()),
            x_units: work.unit.as_ref().map(|u| u.1),
        }
    }
}

/// The FOCUS rows of runs.
pub fn rows(runs: &[RunCharge], config: &FocusConfig) -> Result<Focus, Error> {
    let names = Names::of(config);
    let mut out = Vec::new();
    let mut without = 0;
    for run in runs {
        let Some(total) = run.cost.iter().map(|c| c.cost_usd).sum::<Option<f64>>().filter(|_| !run.cost.is_empty()) else {
            without += 1;
            continue;
        };
        let (lines, allocation) = lines(&run.cost, total);
        // Hourly charge periods, as cloud bills have them; the billing period is the month the work ended in.
        let (bill_start, bill_end) = crate::time::month(run.end);
        let start = (run.start.div_euclid(3600) * 3600).max(bill_start);
        let end = (run.end.div_euclid(3600) + 1) * 3600;
        let mut ids: Vec<i64> = run.carbon.iter().chain(&run.cost).map(|c| c.id).collect();
        ids.sort_unstable();
        let carbon_sum = |f: fn(&Charged) -> Option<f64>| run.carbon.iter().map(f).sum::<Option<f64>>().filter(|_| !run.carbon.is_empty());
        for (i, line) in lines.iter().enumerate() {
            let first = i == 0;
            let listed = line.rate.map(|r| tidy(r * line.quantity));
            let kind = if line.unit == GPU { "GPU-hours" } else { "CPU-hours" };
            out.push(FocusRow {
                billed_cost: tidy(line.cost),
                billing_account_id: names.account_id.clone(),
                billing_account_name: names.account_name.clone(),
                billing_currency: "USD",
                billing_period_end: iso8601(bill_end),
                billing_period_start: iso8601(bill_start),
                charge_category: "Usage",
                charge_class: None,
                charge_description: format!(
                    "{kind} of run {} (model {}), priced by the {} rate card",
                    run.run,
                    run.model,
                    joined(&run.cost, |c| &c.provider)
                ),
                charge_frequency: "Usage-Based",
                charge_period_end: iso8601(end),
                charge_period_start: iso8601(start),
                consumed_quantity: tidy(line.quantity),
                consumed_unit: line.unit,
                contracted_cost: listed.unwrap_or(tidy(line.cost)),
                contracted_unit_price: line.rate,
                effective_cost: tidy(line.cost),
                // A chargeback row belongs to no invoice: FOCUS's null.
                invoice_id: None,
                invoice_issuer_name: names.issuer.clone(),
                list_cost: listed.unwrap_or(tidy(line.cost)),
                list_unit_price: line.rate,
                pricing_category: "Standard",
                pricing_quantity: tidy(line.quantity),
                pricing_unit: line.unit,
                provider_name: names.provider.clone(),
                publisher_name: names.publisher.clone(),
                resource_id: run.run.clone(),
                resource_name: run.model.clone(),
                resource_type: "Run",
                service_category: "AI and Machine Learning",
                service_name: names.service.clone(),
                service_subcategory: "Machine Learning",
                tags: tags(run),
                x_record_ids: ids.iter().map(|i| format!("#{i}")).collect::<Vec<_>>().join(" "),
                x_measured: run.carbon.iter().chain(&run.cost).any(|c| c.measured),
                x_cost_provider: joined(&run.cost, |c| &c.provider),
                x_cost_provider_digest: joined(&run.cost, |c| &c.digest),
                x_cost_allocation: allocation,
                x_run_gpu_hours: first.then(|| tidy(run.cost.iter().map(|c| c.gpu_hours).sum())),
                x_run_cpu_hours: first.then(|| tidy(run.cost.iter().map(|c| c.cpu_hours).sum())),
                x_energy_kwh: first.then(|| carbon_sum(|c| c.kwh)).flatten().map(tidy),
                x_co2e_grams: first.then(|| carbon_sum(|c| c.co2e_g)).flatten().map(tidy),
                x_carbon_provider: (first && !run.carbon.is_empty()).then(|| joined(&run.carbon, |c| &c.provider)),
                x_carbon_provider_digest: (first && !run.carbon.is_empty()).then(|| joined(&run.carbon, |c| &c.digest)),
                x_work: if first { XWork::of(run) } else { XWork::default() },
            });
        }
    }
    for r in &out {
        let sums = [r.billed_cost, r.list_cost, r.contracted_cost, r.consumed_quantity];
        if sums.iter().any(|v| !v.is_finite()) {
            return Err(Error::Failed(format!("the charge of run '{}' is not a finite number", crate::text::clean(&r.resource_id))));
        }
    }
    Ok(Focus { rows: out, runs_without_cost: without })
}

/// A row of one run, for tests of the row's shape.
#[cfg(test)]
pub fn example() -> FocusRow {
    let c = Charged {
        id: 1,
        provider: "flat-rate".into(),
        digest: "fnv1a64:0".into(),
        measured: false,
        gpu_hours: 10.0,
        cpu_hours: 32.0,
        kwh: None,
        co2e_g: None,
        cost_usd: Some(26.6),
        gpu_rate: Some(2.5),
        cpu_rate: Some(0.05),
        embodied_co2e_g: None,
        water_l: None,
        work: crate::model::Work::default(),
    };
    let run = RunCharge {
        tags: std::collections::BTreeMap::new(),
        run: "r1".into(),
        model: "M".into(),
        start: 1_764_000_000,
        end: 1_764_000_000,
        carbon: vec![],
        cost: vec![c],
    };
    rows(&[run], &FocusConfig::default()).unwrap().rows.remove(0)
}

/// A row's FOCUS `Tags`: the run's model and id, and a pod's namespace, labels and annotations under the keys
/// `report --by` takes (`namespace`, `label:team`, `annotation:cost-center`).
fn tags(run: &RunCharge) -> String {
    let mut all: std::collections::BTreeMap<&str, &str> = run.tags.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    all.insert("model", &run.model);
    all.insert("run", &run.run);
    serde_json::to_string(&all).expect("a map of strings serialises")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_split_row_adds_up_and_periods_are_whole_hours_in_their_month() {
        let r = super::example();
        assert_eq!(r.consumed_unit, "GPU-Hours");
        assert_eq!(r.billed_cost, 25.0);
        assert_eq!(r.list_cost, 25.0);
        assert_eq!(r.charge_period_start, "2025-11-24T16:00:00Z");
        assert_eq!(r.charge_period_end, "2025-11-24T17:00:00Z");
        assert_eq!(r.billing_period_start, "2025-11-01T00:00:00Z");
        assert_eq!(r.billing_period_end, "2025-12-01T00:00:00Z");
    }
}
