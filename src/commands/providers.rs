//! `exa finops <domain> providers`: every provider with its kind and status.

use serde::Serialize;

use crate::provider::registry::Registry;
use crate::provider::{Domain, ProviderKind};
use crate::settings::{Settings, Sourced};

#[derive(Debug, Serialize)]
pub struct ProviderRow {
    pub name: String,
    pub kind: ProviderKind,
    pub uncertainty: Option<f64>,
    /// ok, broken or shadowed.
    pub status: &'static str,
    /// Why it is broken or shadowed.
    pub reason: Option<String>,
    /// True for the registered default.
    pub default: bool,
    pub origin: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ProviderList {
    pub domain: Domain,
    pub default: String,
    /// The provider an estimate would ask for now, and where that choice came from.
    pub selected: Option<Sourced<String>>,
    pub providers: Vec<ProviderRow>,
}

pub fn run(settings: &Settings, domain: Domain) -> ProviderList {
    let reg = Registry::list(&settings.context(domain));
    let mut providers: Vec<ProviderRow> = reg
        .entries
        .into_iter()
        .map(|e| ProviderRow {
            uncertainty: e.provider.as_ref().and_then(|p| p.meta().uncertainty),
            default: e.kind == ProviderKind::Builtin && e.name == domain.default_provider(),
            status: e.status.label(),
            reason: e.status.reason().map(str::to_string),
            origin: e.origin.map(|o| o.display().to_string()),
            name: e.name,
            kind: e.kind,
        })
        .collect();
    providers.sort_by(|a, b| a.name.cmp(&b.name).then((a.kind as u8).cmp(&(b.kind as u8))));
    ProviderList { domain, default: domain.default_provider().to_string(), selected: settings.requested_provider(domain, None), providers }
}
