//! Pricing: resolve a provider, merge its coefficients, compute, and say
//! where every number came from. Used by estimate, record, measure and
//! every importer, so they price work the same way.

pub mod footprint;
mod grid;
pub mod hardware;
pub mod history;
pub mod region;

use std::sync::Arc;

use crate::model::IndexMap;

use crate::error::Error;
use crate::model::{Coef, CoefficientOverride, Domain, Estimate, GridInfo, ProviderInfo, ProviderKind, Request, Source, Sourced};
use crate::num::tidy;
use crate::provider::registry::{self, Registry};
use crate::provider::{ComputeError, Provider, Values};
use crate::settings::Settings;
use crate::suggest::nearest;

/// The provider a domain resolves to, and what was asked if it fell back.
pub struct Resolved {
    pub provider: Arc<dyn Provider>,
    pub source: Source,
    pub requested: Option<String>,
    pub fallback_reason: Option<String>,
    /// exa's own terms beside a carbon provider's for requests that set none (an importer's jobs), made once.
    own: std::sync::OnceLock<Own>,
}

/// exa's own terms and how they were made: the same for every request that sets no term and names no GPU.
type Own = (IndexMap<String, Coef>, crate::model::Footprint);

/// Resolves the provider: flag, env, config, default; falling back loudly, or failing under --strict.
pub fn resolve(settings: &Settings, domain: Domain, flag: Option<&str>) -> Result<Resolved, Error> {
    let ctx = settings.context(domain);
    let Some(asked) = settings.requested_provider(domain, flag) else {
        let p = registry::builtin(domain, domain.default_provider()).expect("the default provider is built in");
        return Ok(Resolved { provider: p, source: Source::Default, requested: None, fallback_reason: None, own: Default::default() });
    };
    match Registry::resolve(&ctx, &asked.value) {
        Ok(p) => {
            Ok(Resolved { provider: p, source: asked.source, requested: Some(asked.value), fallback_reason: None, own: Default::default() })
        }
        Err(reason) => fall_back(settings, domain, &asked, reason),
    }
}

fn where_from(domain: Domain, s: Source) -> String {
    match s {
        Source::Flag => "--provider".into(),
        Source::Env(var) => var.into(),
        Source::Config => format!("finops.{domain}.provider in the config"),
        other => other.to_string(),
    }
}

fn fall_back(settings: &Settings, domain: Domain, asked: &Sourced<String>, reason: String) -> Result<Resolved, Error> {
    let what = format!("{domain} provider '{}' (from {})", asked.value, where_from(domain, asked.source));
    if settings.strict.value {
        return Err(Error::Refused(format!("{what} cannot be used: {reason} (strict mode, from {})", settings.strict.source)));
    }
    let default = domain.default_provider();
    settings.warn(format!("{what} cannot be used: {reason}; falling back to the default, {default} (--strict refuses instead)"));
    Ok(Resolved {
        provider: registry::builtin(domain, default).expect("the default provider is built in"),
        source: Source::Default,
        requested: Some(asked.value.clone()),
        fallback_reason: Some(reason),
        own: Default::default(),
    })
}

/// Merges coefficients for `p`: its defaults (or their environment variables), then the config, then flags.
pub fn coefficients(
    settings: &Settings,
    domain: Domain,
    p: &dyn Provider,
    overrides: &[CoefficientOverride],
) -> Result<(IndexMap<String, Coef>, Vec<String>), Error> {
    let meta = p.meta();
    let mut out = IndexMap::default();
    let mut notes = Vec::new();
    for c in &meta.coefficients {
        let mut coef = Coef { value: c.default, source: Source::Default };
        if let Some(var) = &c.env {
            if let Some(v) = settings.coefficient_env(var)? {
                coef = v;
            }
        }
        out.insert(c.name.clone(), coef);
    }
    // exa's own terms (embodied carbon, water) are read beside the provider's: `footprint::terms`.
    let own = |name: &str| domain == Domain::Carbon && footprint::is_term(name);
    for (name, v) in settings.block(domain).coefficients.iter().filter(|(n, _)| !own(n)) {
        match out.get_mut(name) {
            Some(c) => *c = Coef { value: *v, source: Source::Config },
            None if meta.kind == ProviderKind::Plugin => {
                out.insert(name.clone(), Coef { value: *v, source: Source::Config });
            }
            None => {
                let names = meta.coefficients.iter().map(|c| c.name.as_str());
                let hint = nearest(name, names).map(|n| format!("; did you mean '{n}'?")).unwrap_or_default();
                let note = format!("config coefficient '{name}' is not used by {}{hint}", meta.name);
                if !hint.is_empty() {
                    settings.warn(note.clone());
                }
                notes.push(note);
            }
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for CoefficientOverride { name, value: v, set_by: flag } in overrides {
        if seen.contains(&name.as_str()) {
            return Err(Error::Usage(format!("coefficient '{name}' is set twice on the command line")));
        }
        seen.push(name);
        if own(name) {
            continue;
        }
        match out.get_mut(name) {
            Some(c) => *c = Coef { value: *v, source: Source::Flag },
            None => {
                let names: Vec<&str> = meta.coefficients.iter().map(|c| c.name.as_str()).collect();
                let hint = match nearest(name, names.iter().copied()) {
                    Some(n) => format!("did you mean '{n}'? "),
                    None => String::new(),
                };
                return Err(Error::Usage(format!(
                    "{flag}: {domain} provider '{}' has no coefficient '{name}'; {hint}its coefficients: {}",
                    meta.name,
                    if names.is_empty() { "none".to_string() } else { names.join(", ") }
                )));
            }
        }
    }
    Ok((out, notes))
}

/// Refuses what the provider cannot price, rather than shrinking the figure.
/// GPU work with a measured energy may be priced from `gpu_kwh` alone.
fn check_inputs(domain: Domain, p: &dyn Provider, gpu: f64, cpu: f64, measured: bool) -> Result<(), Error> {
    let meta = p.meta();
    if cpu > 0.0 && !meta.accepts("cpu_hours") {
        let alt = Registry::cpu_capable(domain).map(|n| format!("; use a provider that can, e.g. --provider {n}")).unwrap_or_default();
        return Err(Error::Refused(format!("{domain} provider '{}' has no CPU-hours term and cannot price --cpu-hours{alt}", meta.name)));
    }
    if gpu > 0.0 && !meta.accepts("gpu_hours") && !(measured && meta.accepts("gpu_kwh")) {
        return Err(Error::Refused(format!("{domain} provider '{}' has no GPU-hours term and cannot price --gpu-hours", meta.name)));
    }
    Ok(())
}

/// Prices `req` in `domain`: the provider resolved, its coefficients merged, its outputs and their bands.
pub fn estimate(settings: &Settings, domain: Domain, req: &Request) -> Result<Estimate, Error> {
    let gpu = req.gpu_hours.unwrap_or(0.0);
    let cpu = req.cpu_hours.unwrap_or(0.0);
    if req.gpu_kwh.is_some() && gpu <= 0.0 {
        return Err(Error::Usage("--gpu-kwh needs --gpu-hours: the device-hours the energy was measured over".into()));
    }
    if req.cpu_kwh.is_some() && cpu <= 0.0 {
        return Err(Error::Usage("--cpu-kwh needs --cpu-hours: the CPU-hours the energy was measured over".into()));
    }
    if gpu <= 0.0 && cpu <= 0.0 {
        return Err(Error::Usage(
            "nothing to estimate: give --gpu-hours or --cpu-hours greater than 0 (a figure of 0 would claim the work used no energy)"
                .into(),
        ));
    }
    let mut resolved = resolve(settings, domain, req.provider.as_deref())?;
    loop {
        match compute(settings, domain, req, &resolved, gpu, cpu) {
            Err(ComputeFail::Broken(reason)) if resolved.fallback_reason.is_none() && resolved.source != Source::Default => {
                let asked = Sourced::new(resolved.provider.meta().name.clone(), resolved.source);
                resolved = fall_back(settings, domain, &asked, reason)?;
            }
            Err(ComputeFail::Broken(reason)) => return Err(Error::Failed(reason)),
            Err(ComputeFail::Error(e)) => return Err(e),
            Ok(est) => return Ok(est),
        }
    }
}

/// Puts a measured GPU energy where the provider assumes one: its mean power for
/// `gpu_tdp_watts`, or its energy per GPU-hour; a provider with neither must read `gpu_kwh`.
fn measured(p: &dyn Provider, coefs: &mut IndexMap<String, Coef>, kwh: f64, gpu_hours: f64) -> Result<(), Error> {
    let name = &p.meta().name;
    let slot = [("gpu_tdp_watts", tidy(kwh * 1000.0 / gpu_hours)), ("energy_coeff_kwh_per_gpu_hour", tidy(kwh / gpu_hours))]
        .into_iter()
        .find(|(c, _)| coefs.contains_key(*c));
    match slot {
        Some((c, value)) => {
            let coef = coefs.get_mut(c).expect("found above");
            if coef.source == Source::Flag {
                return Err(Error::Usage(format!("{c} is set on the command line, but the measured GPU energy sets it; drop one")));
            }
            *coef = Coef { value, source: Source::Measured };
            drawn(coefs, "gpu_usage_factor")
        }
        None if p.meta().accepts("gpu_kwh") => Ok(()),
        None => Err(Error::Refused(format!(
            "carbon provider '{name}' cannot take a measured GPU energy: it has no gpu_tdp_watts or energy_coeff_kwh_per_gpu_hour coefficient and does not read gpu_kwh"
        ))),
    }
}

/// The specification's default provider prices a CPU-hour at a whole socket's power (120 W): kept exactly, and said,
/// with the provider that knows better, whenever it prices CPU-hours at its own default.
fn socket_scale(p: &dyn Provider, coefs: &IndexMap<String, Coef>, cpu: f64, notes: &mut Vec<String>) {
    let default = p.meta().name == Domain::Carbon.default_provider() && p.meta().origin.is_none();
    if let Some(c) = coefs.get("cpu_tdp_watts").filter(|c| default && cpu > 0.0 && c.source == Source::Default) {
        notes.push(format!(
            "cpu_tdp_watts {} W a CPU-hour is a whole socket's power (the specification's default, kept): a server core draws some \
             4 to 12 W; --provider hardware-aware prices a core by its model (--cpu-model, --cpu-cores), else at 12 W",
            c.value
        ));
    }
}

/// A measured mean power is the power drawn: a provider's usage factor (the share of its rated power a device
/// draws) is then 1.
fn drawn(coefs: &mut IndexMap<String, Coef>, factor: &str) -> Result<(), Error> {
    match coefs.get_mut(factor) {
        Some(c) if c.source == Source::Flag => {
            Err(Error::Usage(format!("{factor} is set on the command line, but the measured energy is the power drawn; drop one")))
        }
        Some(c) => {
            *c = Coef { value: 1.0, source: Source::Measured };
            Ok(())
        }
        None => Ok(()),
    }
}

/// Puts a measured CPU energy where the provider assumes one: its mean power per CPU-hour for
/// `cpu_tdp_watts`; a provider without it must read `cpu_kwh`.
fn measured_cpu(p: &dyn Provider, coefs: &mut IndexMap<String, Coef>, kwh: f64, cpu_hours: f64) -> Result<(), Error> {
    match coefs.get_mut("cpu_tdp_watts") {
        Some(c) if c.source == Source::Flag => {
            Err(Error::Usage("cpu_tdp_watts is set on the command line, but the measured CPU energy sets it; drop one".into()))
        }
        Some(c) => {
            *c = Coef { value: tidy(kwh * 1000.0 / cpu_hours), source: Source::Measured };
            drawn(coefs, "cpu_usage_factor")
        }
        None if p.meta().accepts("cpu_kwh") => Ok(()),
        None => Err(Error::Refused(format!(
            "carbon provider '{}' cannot take a measured CPU energy: it has no cpu_tdp_watts coefficient and does not read cpu_kwh",
            p.meta().name
        ))),
    }
}

/// The coefficient a grid region's figure stands in for.
const GRID_INTENSITY: &str = "grid_intensity_g_per_kwh";

/// Puts the grid region's intensity (`--region`, else EXAMLOPS_GRID_REGION, else the config's
/// `finops.carbon.grid.region`) where the provider would use its default; an intensity set by the
/// person wins, and the region's figure is then said and not used.
fn from_region(
    settings: &Settings,
    req: &Request,
    p: &dyn Provider,
    coefs: &mut IndexMap<String, Coef>,
    notes: &mut Vec<String>,
) -> Result<Option<GridInfo>, Error> {
    let asked = match (&req.region, &settings.grid_region) {
        (Some(r), _) => Sourced::new(r.clone(), Source::Flag),
        (None, Some(r)) => r.clone(),
        (None, None) => return Ok(None),
    };
    let region = region::resolve(&asked.value).map_err(|e| match asked.source {
        Source::Flag => Error::Usage(format!("--region: {e}")),
        from => Error::Config(format!("the grid region (from {from}): {e}")),
    })?;
    let Some(c) = coefs.get_mut(GRID_INTENSITY) else {
        notes.push(format!(
            "carbon provider '{}' has no {GRID_INTENSITY} coefficient: the grid region {} does not apply",
            p.meta().name,
            region.key
        ));
        return Ok(None);
    };
    if c.source != Source::Default {
        notes.push(format!(
            "{GRID_INTENSITY} is set by {} ({}): {}'s {} gCO2e/kWh is not used",
            c.source,
            c.value,
            region.provenance(),
            region.g_per_kwh
        ));
        return Ok(None);
    }
    *c = Coef { value: region.g_per_kwh, source: Source::Region };
    Ok(Some(GridInfo {
        origin: "region",
        value: region.g_per_kwh,
        url: None,
        zone: Some(region.key.clone()),
        reading_time: None,
        age_s: None,
        detail: Some(format!(
            "{}: {}, from exa's tables of {} (exa finops carbon regions --sources)",
            region.provenance(),
            region.name,
            region::TABLES
        )),
        history: None,
    }))
}

/// The grid intensity's value and where it came from: the region's, then grid-live's reading (which wins; when
/// it falls back, the value it kept is the region's, and so is its provenance), then the history over the work
/// (which wins over both where it reaches the work).
fn intensity(
    settings: &Settings,
    domain: Domain,
    req: &Request,
    p: &dyn Provider,
    coefs: &mut IndexMap<String, Coef>,
    notes: &mut Vec<String>,
) -> Result<Option<GridInfo>, Error> {
    if domain != Domain::Carbon {
        return Ok(None);
    }
    let by_region = from_region(settings, req, p, coefs, notes)?;
    let static_g = coefs.get(GRID_INTENSITY).map(|c| c.value);
    let live = p.meta().live.as_ref().and_then(|live| coefs.get_mut(live).map(|c| grid::apply(settings, live, c)));
    let grid = match (live, by_region) {
        (Some(l), Some(r)) if l.origin == "default" => Some(r),
        (l, r) => l.or(r),
    };
    Ok(match (&req.history, static_g) {
        (Some(ask), Some(g)) => history::apply(ask, coefs, g, grid, notes),
        _ => grid,
    })
}

enum ComputeFail {
    Broken(String),
    Error(Error),
}

impl From<Error> for ComputeFail {
    fn from(e: Error) -> Self {
        ComputeFail::Error(e)
    }
}

/// What pricing a request takes from the settings and the provider before its own hours: the coefficients
/// merged, the grid intensity and where it came from, the notes on them, the provider as the answer names it.
/// The same for every request that brings nothing of its own (no energy, no coefficients, no history): a
/// `Pricer` makes it once for all of them.
#[derive(Clone)]
struct Prelude {
    coefs: IndexMap<String, Coef>,
    /// The coefficients' values, as the provider reads them.
    values: IndexMap<String, f64>,
    notes: Vec<String>,
    grid: Option<GridInfo>,
    provider: ProviderInfo,
}

fn prelude(settings: &Settings, domain: Domain, req: &Request, r: &Resolved, gpu: f64, cpu: f64) -> Result<Prelude, ComputeFail> {
    let p = r.provider.as_ref();
    let (mut coefs, mut notes) = coefficients(settings, domain, p, &req.overrides)?;
    if let Some(kwh) = req.gpu_kwh.filter(|_| domain == Domain::Carbon) {
        measured(p, &mut coefs, kwh, gpu)?;
    }
    if let Some(kwh) = req.cpu_kwh.filter(|_| domain == Domain::Carbon) {
        measured_cpu(p, &mut coefs, kwh, cpu)?;
    }
    // After the measured energy: a measured power is never replaced by a table's.
    if domain == Domain::Carbon {
        hardware::fill(&p.meta().name, &mut coefs, req, &mut notes)?;
    }
    let grid = intensity(settings, domain, req, p, &mut coefs, &mut notes)?;
    if let Some(c) = coefs.get(GRID_INTENSITY).filter(|c| domain == Domain::Carbon && grid.is_none() && c.source == Source::Default) {
        notes.push(format!(
            "{GRID_INTENSITY} is the provider's default, {} gCO2e/kWh, not your grid's: set --region, EXAMLOPS_GRID_REGION \
             or finops.carbon.grid.region (exa finops carbon regions lists them)",
            c.value
        ));
    }
    let values = coefs.iter().map(|(k, c)| (k.clone(), c.value)).collect();
    Ok(Prelude { coefs, values, notes, grid, provider: info(p) })
}

fn compute(settings: &Settings, domain: Domain, req: &Request, r: &Resolved, gpu: f64, cpu: f64) -> Result<Estimate, ComputeFail> {
    check_inputs(domain, r.provider.as_ref(), gpu, cpu, req.gpu_kwh.is_some())?;
    let before = prelude(settings, domain, req, r, gpu, cpu)?;
    finish(settings, domain, req, r, before, gpu, cpu)
}

/// A request priced from its prelude: the provider's formula over its hours, the bands, exa's own terms.
fn finish(
    settings: &Settings,
    domain: Domain,
    req: &Request,
    r: &Resolved,
    before: Prelude,
    gpu: f64,
    cpu: f64,
) -> Result<Estimate, ComputeFail> {
    let Prelude { mut coefs, values: coefficients, mut notes, grid, mut provider } = before;
    // Said of this work's own CPU-hours, not the prelude's (made once for an importer's many jobs).
    if domain == Domain::Carbon {
        socket_scale(r.provider.as_ref(), &coefs, cpu, &mut notes);
    }
    let mut values = Values::default();
    values.inputs.insert("gpu_hours".into(), gpu);
    values.inputs.insert("cpu_hours".into(), cpu);
    // Only a measured energy is an input; formulas read 0 for it otherwise, and the answer does not claim one.
    if let Some(kwh) = req.gpu_kwh {
        values.inputs.insert("gpu_kwh".into(), kwh);
    }
    if let Some(kwh) = req.cpu_kwh {
        values.inputs.insert("cpu_kwh".into(), kwh);
    }
    values.coefficients = coefficients;
    let Figured { outputs, range, degraded, own, .. } =
        figure(settings, domain, req, r, &values, &coefs, grid.as_ref(), provider.uncertainty, gpu, cpu)?;
    if let Some(u) = degraded {
        provider.uncertainty = u;
        notes.push(format!(
            "grid-live used the static grid intensity, so its band is the static methodology's ({}), not the live one's",
            pct(u)
        ));
    }
    let footprint = own.map(|own| {
        let (terms, said) = own.into_owned();
        coefs.extend(terms);
        said
    });
    Ok(Estimate {
        domain,
        provider,
        provider_source: r.source,
        requested_provider: r.requested.clone(),
        fallback_reason: r.fallback_reason.clone(),
        inputs: values.inputs,
        coefficients: coefs,
        outputs,
        range,
        grid,
        footprint,
        notes,
    })
}

/// What a request's hours make of its prelude: the provider's outputs (checked and tidied) with, for carbon, exa's
/// own beside them, their bands, and what else they change of the estimate: the uncertainty of a live provider that
/// fell back to the static intensity, and exa's own terms (to add to its coefficients, and how they were made).
struct Figured<'r> {
    outputs: IndexMap<String, f64>,
    range: Option<IndexMap<String, [f64; 2]>>,
    /// How each band of `range` was made (`model::Figures::made`).
    made: Vec<Option<[f64; 2]>>,
    degraded: Option<Option<f64>>,
    own: Option<std::borrow::Cow<'r, Own>>,
}

#[allow(clippy::too_many_arguments)]
fn figure<'r>(
    settings: &Settings,
    domain: Domain,
    req: &Request,
    r: &'r Resolved,
    values: &Values,
    coefs: &IndexMap<String, Coef>,
    grid: Option<&GridInfo>,
    uncertainty: Option<f64>,
    gpu: f64,
    cpu: f64,
) -> Result<Figured<'r>, ComputeFail> {
    let p = r.provider.as_ref();
    let outputs = p.compute(values).map_err(|e| match e {
        ComputeError::Broken(why) => ComputeFail::Broken(why),
        formula => ComputeFail::Error(Error::Failed(format!("{domain} provider '{}': {formula}", p.meta().name))),
    })?;
    let mut outputs = checked_outputs(domain, p, outputs)?;
    let degraded = match grid.filter(|g| g.origin == "default") {
        Some(g) => Some(degraded(settings, domain, g)?),
        None => None,
    };
    let u = degraded.unwrap_or(uncertainty);
    let mut range = u.map(|u| band(domain, &outputs, u)).transpose()?;
    // Each provider band is its output's, tidied, at `u`.
    let mut made: Vec<Option<[f64; 2]>> = match (&range, u) {
        (Some(r), Some(u)) => r.keys().map(|o| outputs.get(o).map(|v| [*v, u])).collect(),
        _ => Vec::new(),
    };
    let mut own = None;
    if domain == Domain::Carbon {
        own_names(p, &outputs)?;
        let terms = own_terms(settings, req, r)?;
        let pue = coefs.get("pue").map(|c| c.value);
        let added = footprint::compute(&terms.0, gpu, cpu, outputs.get("kwh").copied(), pue)?;
        outputs.extend(added.outputs.into_iter().map(|(k, v)| (k.to_string(), v)));
        // Beside the provider's bands; a provider that states no uncertainty has no `range`, and the embodied
        // figure's band is then its `embodied_uncertainty` alone, never a range the provider did not give.
        if let (Some(band), Some(r)) = (added.range, range.as_mut()) {
            // A new name (`own_names`), so it is the last band.
            if r.insert("embodied_co2e_g".into(), band).is_none() && made.len() + 1 == r.len() {
                made.push(Some(added.made));
            } else {
                made.clear();
            }
        }
        own = Some(terms);
    }
    Ok(Figured { outputs, range, made, degraded, own })
}

/// exa's own terms for a carbon request, how they were made, and the GPU of the table they took; made once per
/// resolved provider for the requests that set no term and name no GPU (an importer prices a million alike).
fn own_terms<'r>(settings: &Settings, req: &Request, r: &'r Resolved) -> Result<std::borrow::Cow<'r, Own>, Error> {
    let make = || -> Result<Own, Error> {
        let block = settings.block(Domain::Carbon);
        let gpu_model = match (&block.embodied_gpu, &req.gpu_name) {
            (Some(name), _) => Some(footprint::gpu_entry(name).map_err(Error::Config)?),
            (None, Some(device)) => footprint::gpu_for_device(device),
            (None, None) => None,
        };
        let terms = footprint::terms(&block.coefficients, &req.overrides, gpu_model)?;
        let said = footprint::said(&terms, gpu_model.filter(|g| g.name != "generic"));
        Ok((terms, said))
    };
    if !req.overrides.is_empty() || req.gpu_name.is_some() {
        return make().map(std::borrow::Cow::Owned);
    }
    if let Some(own) = r.own.get() {
        return Ok(std::borrow::Cow::Borrowed(own));
    }
    let own = make()?;
    Ok(std::borrow::Cow::Borrowed(r.own.get_or_init(|| own)))
}

/// Refuses a carbon provider that names a coefficient or an output as one of exa's own terms beside it
/// (embodied carbon, water): the two would be taken for each other, and the answer would say one while
/// the formula used the other.
fn own_names(p: &dyn Provider, outputs: &IndexMap<String, f64>) -> Result<(), ComputeFail> {
    let name = &p.meta().name;
    if let Some(c) = p.meta().coefficients.iter().find(|c| footprint::is_term(&c.name)) {
        return Err(ComputeFail::Error(Error::Config(format!(
            "carbon provider '{name}' has a coefficient '{}', a name exa keeps for its own term beside every carbon estimate (docs/per-unit.md): rename it",
            c.name
        ))));
    }
    match ["embodied_co2e_g", "water_l"].iter().find(|o| outputs.contains_key(**o)) {
        Some(o) => Err(ComputeFail::Error(Error::Config(format!(
            "carbon provider '{name}' computes '{o}', which exa computes beside every carbon estimate (docs/per-unit.md): rename it"
        )))),
        None => Ok(()),
    }
}

/// The outputs tidied, each finite, and the figures exa reports (`kwh`, `co2e_g`, `cost_usd`) not
/// negative: a provider that returns otherwise is broken, and no figure it gave is shown. Any other
/// value a provider computes on the way (a credit, an offset) may be negative.
/// The figures a report adds up: never negative, whatever the provider.
const REPORTED: [&str; 3] = ["kwh", "co2e_g", "cost_usd"];

fn checked_outputs(domain: Domain, p: &dyn Provider, outputs: IndexMap<String, f64>) -> Result<IndexMap<String, f64>, ComputeFail> {
    let name = &p.meta().name;
    for (k, v) in &outputs {
        if !v.is_finite() {
            return Err(ComputeFail::Error(Error::Failed(format!("{domain} provider '{name}': {k} overflowed (not a finite number)"))));
        }
        if *v < 0.0 && REPORTED.contains(&k.as_str()) {
            let why = format!(
                "{domain} provider '{name}' computed {k} = {v}: energy, carbon and money are never negative; the provider is broken"
            );
            return Err(if p.meta().kind == ProviderKind::Plugin {
                ComputeFail::Broken(why)
            } else {
                ComputeFail::Error(Error::Failed(why))
            });
        }
    }
    let mut outputs = outputs;
    for v in outputs.values_mut() {
        *v = tidy(*v);
    }
    Ok(outputs)
}

/// Each output's band at relative uncertainty `u`; a bound that overflows is an error naming it.
fn band(domain: Domain, outputs: &IndexMap<String, f64>, u: f64) -> Result<IndexMap<String, [f64; 2]>, ComputeFail> {
    let mut out = IndexMap::default();
    for o in domain.outputs() {
        let Some(v) = outputs.get(*o) else { continue };
        let band = crate::num::band(*v, u);
        if !band[1].is_finite() {
            return Err(ComputeFail::Error(Error::Failed(format!("the range of {o} overflowed: {v} ± {}%", u * 100.0))));
        }
        out.insert((*o).to_string(), band);
    }
    Ok(out)
}

/// A live provider that fell back to the static grid intensity: refused under
/// --strict, else it carries the static default methodology's uncertainty.
fn degraded(settings: &Settings, domain: Domain, g: &GridInfo) -> Result<Option<f64>, ComputeFail> {
    if settings.strict.value {
        let why = g.detail.clone().unwrap_or_default();
        return Err(ComputeFail::Error(Error::Refused(format!(
            "grid-live has no live grid intensity ({why}) and strict mode (from {}) refuses the static fallback",
            settings.strict.source
        ))));
    }
    Ok(registry::builtin(domain, domain.default_provider()).and_then(|p| p.meta().uncertainty))
}

fn pct(u: Option<f64>) -> String {
    u.map_or_else(|| "unknown".into(), |u| format!("±{}%", tidy(u * 100.0)))
}

/// The provider as an answer names it.
pub fn info(p: &dyn Provider) -> ProviderInfo {
    let m = p.meta();
    ProviderInfo {
        name: m.name.clone(),
        kind: m.kind,
        uncertainty: m.uncertainty,
        methodology: m.methodology.clone(),
        source: m.source.clone(),
        origin: m.origin.as_ref().map(|o| o.display().to_string()),
        digest: m.digest.clone(),
    }
}

/// Prices many pieces of work with one provider, resolved once: an importer's jobs.
pub struct Pricer<'a> {
    settings: &'a Settings,
    domain: Domain,
    resolved: Resolved,
    /// The prelude of the work priced without the grid's history, made by the first of it.
    prelude: std::sync::OnceLock<Prelude>,
    /// The values `figures` prices with: the prelude's coefficients, each work's hours put in their places.
    values: std::sync::Mutex<Option<Values>>,
    /// The hardware all its work ran on, as a scheduler names it (`Request::gpu_name`, `Request::cpu_model`).
    hardware: (Option<String>, Option<(String, Option<f64>)>),
    /// The memory available to each CPU, GB, where a config says (`finops.hardware.partitions.*.memory_gb_per_cpu`),
    /// set as the provider's `memory_gb_per_cpu` where it has one.
    memory: Option<f64>,
}

impl<'a> Pricer<'a> {
    /// Resolves the provider for `domain` as every command does (flag, env, config, default).
    pub fn new(settings: &'a Settings, domain: Domain, flag: Option<&str>) -> Result<Pricer<'a>, Error> {
        Ok(Pricer {
            settings,
            domain,
            resolved: resolve(settings, domain, flag)?,
            prelude: std::sync::OnceLock::new(),
            values: Default::default(),
            hardware: (None, None),
            memory: None,
        })
    }

    /// A pricer of work that ran on one hardware: a GPU model as a scheduler names it (kept where it fits exa's
    /// table, said where it does not), a CPU model with its cores a socket, and the GB of memory each CPU had.
    pub fn on_hardware(&self, gpu: Option<String>, cpu: Option<(String, Option<f64>)>, memory: Option<f64>) -> Pricer<'a> {
        Pricer {
            settings: self.settings,
            domain: self.domain,
            resolved: Resolved {
                provider: Arc::clone(&self.resolved.provider),
                source: self.resolved.source,
                requested: self.resolved.requested.clone(),
                fallback_reason: self.resolved.fallback_reason.clone(),
                own: std::sync::OnceLock::new(),
            },
            prelude: std::sync::OnceLock::new(),
            values: Default::default(),
            hardware: (gpu, cpu),
            memory,
        }
    }

    /// Whether the provider prices by hardware model (it has a GPU or CPU usage factor: `hardware::fill`).
    pub fn takes_hardware(&self) -> bool {
        self.resolved.provider.meta().coefficients.iter().any(|c| c.name == "gpu_usage_factor" || c.name == "cpu_usage_factor")
    }

    /// The request of work of these hours on this pricer's hardware.
    fn request(&self, gpu_hours: f64, cpu_hours: f64) -> Request {
        Request {
            gpu_hours: Some(gpu_hours),
            cpu_hours: Some(cpu_hours),
            gpu_name: self.hardware.0.clone(),
            cpu_model: self.hardware.1.clone(),
            overrides: self
                .memory
                .filter(|_| self.resolved.provider.meta().coefficients.iter().any(|c| c.name == "memory_gb_per_cpu"))
                .map(|gb| CoefficientOverride::new("memory_gb_per_cpu", gb, "finops.hardware.partitions' memory_gb_per_cpu"))
                .into_iter()
                .collect(),
            ..Request::default()
        }
    }

    /// The provider's name.
    pub fn name(&self) -> &str {
        &self.resolved.provider.meta().name
    }

    /// Whether the provider has a term for `input` (`gpu_hours`, `cpu_hours`).
    pub fn accepts(&self, input: &str) -> bool {
        self.resolved.provider.meta().accepts(input)
    }

    /// What set the grid intensity by hand (a flag, the config), when something did: grid-live and the grid's
    /// history then have no say, and need not be read.
    pub fn intensity_set_by(&self) -> Option<Source> {
        let (coefs, _) = coefficients(self.settings, self.domain, self.resolved.provider.as_ref(), &[]).ok()?;
        coefs.get(GRID_INTENSITY).map(|c| c.source).filter(|s| matches!(s, Source::Flag | Source::Config))
    }

    /// Prices GPU-hours and CPU-hours, at the grid's history over the work when one is given; refusals as
    /// `estimate` gives them.
    pub fn price(&self, gpu_hours: f64, cpu_hours: f64, history: Option<crate::model::HistoryAsk>) -> Result<Estimate, Error> {
        let req = Request { history, ..self.request(gpu_hours, cpu_hours) };
        // Without the history the work brings only its hours: its prelude is every such work's. Not a live
        // provider's: each work takes the reading (or the cached one, and its age) as it is when priced.
        let priced = if req.history.is_none() && self.resolved.provider.meta().live.is_none() {
            self.compute_shared(&req, gpu_hours, cpu_hours)
        } else {
            compute(self.settings, self.domain, &req, &self.resolved, gpu_hours, cpu_hours)
        };
        match priced {
            Ok(e) => Ok(e),
            Err(ComputeFail::Broken(why)) => Err(Error::Failed(why)),
            Err(ComputeFail::Error(e)) => Err(e),
        }
    }

    /// The figures of GPU-hours and CPU-hours priced as `price` prices them without the grid's history, where every
    /// such estimate is the first's but for its figures (`Estimate::same_but_figures`): the work brings only its
    /// hours, the provider is not live, and the prelude is made (by a `price` before). `None` otherwise: `price` it.
    /// An importer's million jobs are priced so without building a million estimates' coefficients, notes and
    /// provenance that are all alike; refusals are `price`'s.
    pub fn figures(&self, gpu_hours: f64, cpu_hours: f64) -> Option<Result<crate::model::Figures, Error>> {
        let (settings, domain, r) = (self.settings, self.domain, &self.resolved);
        let before =
            self.prelude.get().filter(|p| r.provider.meta().live.is_none() && p.grid.as_ref().is_none_or(|g| g.origin != "default"))?;
        let req = self.request(gpu_hours, cpu_hours);
        let figured = check_inputs(domain, r.provider.as_ref(), gpu_hours, cpu_hours, false).map_err(ComputeFail::from).and_then(|()| {
            let mut values = self.values.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let values = values.get_or_insert_with(|| Values { inputs: IndexMap::default(), coefficients: before.values.clone() });
            for (name, v) in [("gpu_hours", gpu_hours), ("cpu_hours", cpu_hours)] {
                match values.inputs.get_mut(name) {
                    Some(at) => *at = v,
                    None => _ = values.inputs.insert(name.into(), v),
                }
            }
            let f = figure(
                settings,
                domain,
                &req,
                r,
                values,
                &before.coefs,
                before.grid.as_ref(),
                before.provider.uncertainty,
                gpu_hours,
                cpu_hours,
            )?;
            Ok(crate::model::Figures { inputs: values.inputs.clone(), outputs: f.outputs, range: f.range, made: f.made })
        });
        Some(match figured {
            Ok(f) => Ok(f),
            Err(ComputeFail::Broken(why)) => Err(Error::Failed(why)),
            Err(ComputeFail::Error(e)) => Err(e),
        })
    }

    /// `compute`, with the prelude the first such work made; a prelude that fails is not kept, so the next work
    /// meets the same error.
    fn compute_shared(&self, req: &Request, gpu_hours: f64, cpu_hours: f64) -> Result<Estimate, ComputeFail> {
        let (settings, domain, r) = (self.settings, self.domain, &self.resolved);
        check_inputs(domain, r.provider.as_ref(), gpu_hours, cpu_hours, false)?;
        let before = match self.prelude.get() {
            Some(p) => p.clone(),
            None => {
                let made = prelude(settings, domain, req, r, gpu_hours, cpu_hours)?;
                self.prelude.get_or_init(|| made).clone()
            }
        };
        finish(settings, domain, req, r, before, gpu_hours, cpu_hours)
    }
}
