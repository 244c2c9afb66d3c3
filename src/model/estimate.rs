//! An estimate: what was asked, which provider answered, and where every number came from.

use super::IndexMap;
use serde::Serialize;

use super::{Coef, Domain, ProviderKind, Source};

/// What an estimate is asked to compute.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Device-hours.
    pub gpu_hours: Option<f64>,
    /// CPU-core-hours.
    pub cpu_hours: Option<f64>,
    /// GPU energy measured over `gpu_hours`; its mean power stands in for the provider's assumed one.
    pub gpu_kwh: Option<f64>,
    /// CPU and memory energy measured over `cpu_hours`; its mean power stands in for `cpu_tdp_watts`.
    pub cpu_kwh: Option<f64>,
    /// The provider named on the command line, if any.
    pub provider: Option<String>,
    /// The grid region named on the command line (`--region`), if any.
    pub region: Option<String>,
    /// Coefficients set for this request (flags, or a tool's arguments), in the order given.
    pub overrides: Vec<CoefficientOverride>,
    /// The grid's history over the work, for a carbon estimate whose intensity it may give.
    pub history: Option<super::HistoryAsk>,
    /// The GPUs' model as they name themselves (`measure`), for exa's table of their embodied carbon.
    pub gpu_name: Option<String>,
    /// The GPU model named (`--gpu-model`): a provider that takes the hardware tables prices its board power.
    pub gpu_model: Option<String>,
    /// The CPU model named (`--cpu-model`), and its cores a socket (`--cpu-cores`): a provider that takes the
    /// hardware tables prices a core at the model's TDP over its cores.
    pub cpu_model: Option<(String, Option<f64>)>,
    /// The CPU model as the node names it (`/proc/cpuinfo`, in `measure`), with its cores a socket: used as
    /// `cpu_model` is where it fits exa's table, said where it does not.
    pub cpu_name: Option<(String, Option<f64>)>,
}

/// A coefficient set for one request, and what set it, for the message that refuses it.
#[derive(Debug, Clone, PartialEq)]
pub struct CoefficientOverride {
    /// The coefficient's name, e.g. `pue`.
    pub name: String,
    /// Its value for this request.
    pub value: f64,
    /// What set it, as a person gave it: `--pue`, `--set pue`, `coefficients.pue`.
    pub set_by: String,
}

impl CoefficientOverride {
    /// `name` set to `value` by `set_by`.
    pub fn new(name: impl Into<String>, value: f64, set_by: impl Into<String>) -> CoefficientOverride {
        CoefficientOverride { name: name.into(), value, set_by: set_by.into() }
    }
}

/// The provider that answered, as an answer names it.
#[derive(Debug, Clone, Serialize)]
pub struct ProviderInfo {
    /// Its name, e.g. `green-ai-default`.
    pub name: String,
    /// builtin, yaml, expression or plugin.
    pub kind: ProviderKind,
    /// Relative uncertainty (0.3 is ±30%); `None` when the author gave none.
    pub uncertainty: Option<f64>,
    /// What the methodology is, in a sentence.
    pub methodology: String,
    /// Where the methodology comes from (a paper, a tool).
    pub source: Option<String>,
    /// The file or program it was loaded from; `None` for built-ins.
    pub origin: Option<String>,
    /// A digest of what defines the methodology.
    pub digest: String,
}

/// Where the grid intensity in an answer came from (grid-live).
#[derive(Debug, Clone, Serialize)]
pub struct GridInfo {
    /// live, cache, default or explicit.
    pub origin: &'static str,
    /// The intensity used, gCO2e/kWh.
    pub value: f64,
    /// The endpoint, with secrets hidden.
    pub url: Option<String>,
    /// The grid zone asked for.
    pub zone: Option<String>,
    /// The reading's own time, when the body gives one.
    pub reading_time: Option<String>,
    /// Seconds since the cached reading was fetched.
    pub age_s: Option<u64>,
    /// Why the default is used, or what was read and how it was converted.
    pub detail: Option<String>,
    /// With origin `history`: the time-weighted intensity and how it was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<super::GridHistory>,
}

/// An estimate's own figures: its inputs, outputs and their bands. Estimates priced alike share all else
/// (`Estimate::same_but_figures`), and an importer prices a job into these alone (`pricing::Pricer::figures`).
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    /// As `Estimate::inputs`.
    pub inputs: IndexMap<String, f64>,
    /// As `Estimate::outputs`.
    pub outputs: IndexMap<String, f64>,
    /// As `Estimate::range`.
    pub range: Option<IndexMap<String, [f64; 2]>>,
    /// How pricing made each band of `range`, in its order, where it knows: `[v, u]` when the band is exactly
    /// `num::band(v, u)`. A store then need not make the band again to know it (`store::form`).
    pub(crate) made: Vec<Option<[f64; 2]>>,
}

/// The answer of an estimate: the JSON contract documented in docs/json.md.
#[derive(Debug, Clone, Serialize)]
pub struct Estimate {
    /// carbon or cost.
    pub domain: Domain,
    /// The provider that computed it.
    pub provider: ProviderInfo,
    /// Where the provider choice came from: flag, env, config or default.
    pub provider_source: Source,
    /// The provider asked for, when one was.
    pub requested_provider: Option<String>,
    /// Why the provider asked for was not used.
    pub fallback_reason: Option<String>,
    /// gpu_hours, cpu_hours and, when measured, gpu_kwh.
    pub inputs: IndexMap<String, f64>,
    /// Every coefficient used, with its source.
    pub coefficients: IndexMap<String, Coef>,
    /// kwh and co2e_g, or cost_usd.
    pub outputs: IndexMap<String, f64>,
    /// Each output's band from the provider's uncertainty; null when it gave none.
    pub range: Option<IndexMap<String, [f64; 2]>>,
    /// For a provider with a live coefficient (grid-live): where its value came from.
    pub grid: Option<GridInfo>,
    /// For a carbon estimate: how `embodied_co2e_g` (and `water_l`) were made; absent for cost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub footprint: Option<Footprint>,
    /// Anything the reader should know (an unused config coefficient, say).
    pub notes: Vec<String>,
}

fn shared_map<S: serde::Serializer>(m: &std::sync::Arc<IndexMap<&'static str, String>>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(m.iter())
}

/// How a carbon estimate's embodied CO2e and water were made: exa's own terms, beside the provider's figures.
#[derive(Debug, Clone, Serialize)]
pub struct Footprint {
    /// The formula, in words.
    pub method: &'static str,
    /// Each term at its default: what it is and where the figure comes from (shared by the estimates that
    /// price alike: an importer's million estimates hold one).
    #[serde(serialize_with = "shared_map")]
    pub defaults: std::sync::Arc<IndexMap<&'static str, String>>,
    /// The GPU of exa's table whose figure the GPU-card term is (set in the config, or matched by `measure`
    /// from the GPUs' name); null for the generic card.
    pub gpu: Option<&'static str>,
}

impl Estimate {
    /// Whether `other` is this estimate but for its figures (inputs, outputs, range): its JSON then differs
    /// only in their places. Numbers are compared as they are written (bit for bit: `-0.0` is not `0.0`), and
    /// an estimate with grid information (live or history, its readings per run) is never the same as another.
    /// Every field is named, so a field added to an estimate must be said here.
    pub fn same_but_figures(&self, other: &Estimate) -> bool {
        let Estimate {
            domain,
            provider,
            provider_source,
            requested_provider,
            fallback_reason,
            inputs: _,
            coefficients,
            outputs: _,
            range: _,
            grid,
            footprint,
            notes,
        } = self;
        let ProviderInfo { name, kind, uncertainty, methodology, source, origin, digest } = provider;
        let p = &other.provider;
        let bits = |a: Option<f64>, b: Option<f64>| a.map(f64::to_bits) == b.map(f64::to_bits);
        let same_provider = *name == p.name
            && *kind == p.kind
            && bits(*uncertainty, p.uncertainty)
            && *methodology == p.methodology
            && *source == p.source
            && *origin == p.origin
            && *digest == p.digest;
        let same_coefficients = coefficients.len() == other.coefficients.len()
            && coefficients
                .iter()
                .zip(&other.coefficients)
                .all(|((ka, a), (kb, b))| ka == kb && a.value.to_bits() == b.value.to_bits() && a.source == b.source);
        let same_footprint = match (footprint, &other.footprint) {
            (None, None) => true,
            (Some(Footprint { method, defaults, gpu }), Some(b)) => {
                *method == b.method && *gpu == b.gpu && (std::sync::Arc::ptr_eq(defaults, &b.defaults) || defaults == &b.defaults)
            }
            _ => false,
        };
        *domain == other.domain
            && same_provider
            && *provider_source == other.provider_source
            && *requested_provider == other.requested_provider
            && *fallback_reason == other.fallback_reason
            && same_coefficients
            && grid.is_none()
            && other.grid.is_none()
            && same_footprint
            && *notes == other.notes
    }
}
