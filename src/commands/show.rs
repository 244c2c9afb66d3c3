//! `exa finops <domain> show NAME`: a provider's formulas, coefficients and metadata.

use serde::Serialize;

use crate::error::Error;
use crate::model::{Domain, ProviderInfo, ProviderKind};
use crate::pricing;
use crate::provider::registry::Registry;
use crate::provider::Coefficient;
use crate::settings::Settings;

#[derive(Debug, Serialize)]
pub struct Formula {
    pub output: String,
    pub formula: String,
}

#[derive(Debug, Serialize)]
pub struct ProviderDetail {
    pub domain: Domain,
    pub provider: ProviderInfo,
    pub default: bool,
    pub accepts: Vec<String>,
    pub outputs: Vec<String>,
    pub live: Option<String>,
    pub formulas: Vec<Formula>,
    pub coefficients: Vec<Coefficient>,
    /// Carbon: exa's own terms beside every estimate of any provider (embodied carbon, water), as they are in
    /// effect here, set or not (`exa config show` lists the same); empty for cost.
    pub exa_terms: crate::model::IndexMap<String, crate::model::Coef>,
}

pub fn run(settings: &Settings, domain: Domain, name: &str) -> Result<ProviderDetail, Error> {
    let p = Registry::resolve(&settings.context(domain), name).map_err(Error::Refused)?;
    let m = p.meta();
    Ok(ProviderDetail {
        domain,
        provider: pricing::info(p.as_ref()),
        default: m.name == domain.default_provider() && m.kind == ProviderKind::Builtin,
        accepts: m.accepts.clone(),
        outputs: m.outputs.clone(),
        live: m.live.clone(),
        formulas: m.formulas.iter().map(|(o, f)| Formula { output: o.clone(), formula: f.clone() }).collect(),
        coefficients: m.coefficients.clone(),
        exa_terms: if domain == Domain::Carbon {
            pricing::footprint::terms(&settings.block(domain).coefficients, &[], None)?
        } else {
            crate::model::IndexMap::default()
        },
    })
}
