//! A record to store: an estimate of a model's work, and what was measured of it.

use serde::Serialize;

use super::Estimate;

/// What a measured run adds to its records.
#[derive(Debug, Clone, Serialize)]
pub struct Measured {
    /// How long the run took, seconds.
    pub duration_s: f64,
    /// GPUs measured.
    pub device_count: usize,
    /// The measured GPU energy, kWh.
    pub gpu_kwh: Option<f64>,
    /// Where a meter read the whole node (`measure --node-source`): the job's part of the platform's energy, kWh
    /// (its measured energy and its part of the remainder), and that part of the remainder alone. The measured share
    /// of the first is the run's coverage. None where no meter covered the run, the meter read less than the counters
    /// (no hardware draws less than its parts), or the job's part could not be told.
    pub node: Option<NodePart>,
}

/// The job's part of its node's platform energy, as a record keeps it (`Measured::node`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct NodePart {
    /// The job's measured energy plus its part of the remainder, kWh.
    pub kwh: f64,
    /// Its part of the remainder, kWh: estimated by the policy, not measured for the job.
    pub rest_kwh: f64,
    /// The policy that gave it (`by measured share`, `by allocation`).
    pub policy: &'static str,
}

/// Who ran the work and where, as a scheduler reports it: kept on the record so
/// reports group by them. Empty for work recorded by hand or measured.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Labels {
    /// The user who ran the job.
    pub user: Option<super::Word>,
    /// The account (bank) it was charged to.
    pub account: Option<super::Word>,
    /// The partition (queue) it ran in.
    pub partition: Option<super::Word>,
    /// The Kubernetes namespace of a pod's work.
    pub namespace: Option<super::Word>,
    /// Its tags (a pod's labels and annotations, `Tags`), canonical JSON text: an object of strings, its keys
    /// sorted and each of a known kind (`label:team`, `annotation:cost-center`).
    pub tags: Option<super::Word>,
}

impl Labels {
    /// The labels of these words.
    pub fn of(user: Option<&str>, account: Option<&str>, partition: Option<&str>) -> Labels {
        Labels {
            user: user.map(super::Word::from),
            account: account.map(super::Word::from),
            partition: partition.map(super::Word::from),
            ..Labels::default()
        }
    }
}

/// The most work one record may count: a quadrillion tokens, requests or units (a count beyond it is a
/// mistake, and a million of them still sum to a finite figure).
pub const MAX_WORK: f64 = 1e15;

/// The work a run did, as its owner counts it: stored with its records and summed in reports like hours, so a
/// report can give energy, carbon and cost per unit of work (`report --per`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Work {
    /// Output (generated) tokens.
    pub tokens: Option<f64>,
    /// Prompt (input) tokens.
    pub prompt_tokens: Option<f64>,
    /// Requests served.
    pub requests: Option<f64>,
    /// A unit of the owner's naming and how many (`images`, 5000), as `{"name", "count"}` in JSON.
    #[serde(serialize_with = "named_count")]
    pub unit: Option<(String, f64)>,
}

fn named_count<S: serde::Serializer>(unit: &Option<(String, f64)>, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Named<'a> {
        name: &'a str,
        count: f64,
    }
    match unit {
        Some((name, count)) => s.serialize_some(&Named { name, count: *count }),
        None => s.serialize_none(),
    }
}

impl Work {
    /// True when nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_none() && self.prompt_tokens.is_none() && self.requests.is_none() && self.unit.is_none()
    }
}

/// A record to append to the ledger.
pub struct NewRecord {
    /// The model the work belongs to.
    pub model: String,
    /// The run id (an MLflow run's, say).
    pub run_id: Option<String>,
    /// When it was recorded, seconds since the epoch.
    pub recorded_at: i64,
    /// The host that recorded it.
    pub host: String,
    /// The estimate, whole.
    pub estimate: Estimate,
    /// What was measured, for a measured run.
    pub measured: Option<Measured>,
    /// One part of its run's work (summed with the other parts), not a repeat of it.
    pub part: bool,
    /// The idempotency key, made before the record is sent: a ledger writes a key once.
    pub key: String,
    /// The scheduler's user, account and partition, for an imported job.
    pub labels: Labels,
    /// The work done, when it was counted.
    pub work: Work,
}
