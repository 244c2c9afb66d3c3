//! Grid carbon intensity by region, offline: the tables in `data/grid/`
//! (countries, US states and NERC regions, cloud regions), embedded at
//! build time, each row naming its source and year.
//!
//! A query is a country (ISO 3166 alpha-2 or alpha-3), a US state
//! (`US-VA`), a NERC region (`SERC`), or a cloud region
//! (`aws:us-east-1`, `gcp:europe-west4`, `azure:westeurope`). Every cloud
//! region takes the figure of the grid it draws from on one basis, whoever
//! runs it: its US state's (eGRID) in the US, else its country's; a
//! provider's own published figure (Google's, for GCP) is shown beside,
//! never used, so Northern Virginia is one figure for AWS, Azure and GCP.

use serde::Serialize;

const COUNTRIES: &str = include_str!("../../data/grid/countries.tsv");
const US: &str = include_str!("../../data/grid/us.tsv");
const CLOUD: &str = include_str!("../../data/grid/cloud.tsv");
/// The tables' sources and licences, as shipped.
pub const ATTRIBUTION: &str = include_str!("../../data/grid/README.md");
/// The tables' version: the day they were derived.
pub const TABLES: &str = "2026-12-01";

const OWID: &str = "Ember via OWID";

/// One region's grid intensity.
#[derive(Debug, Clone, Serialize)]
pub struct Region {
    /// The name it is asked by: `FR`, `US-VA`, `SERC`, `aws:us-east-1`.
    pub key: String,
    /// country, us-state, us-nerc or cloud.
    pub kind: &'static str,
    /// Its place: `France`, `Virginia`, `US East (N. Virginia)`.
    pub name: String,
    /// gCO2e per kWh of electricity generated.
    pub g_per_kwh: f64,
    /// The year of the figure.
    pub year: u16,
    /// Whose figure it is.
    pub source: String,
    /// For a cloud region: the region whose figure it takes (`US-VA`, `NL`).
    pub via: Option<String>,
    /// What the figure is the average of: `country` (a country's generation), `us-state` (a US state's, eGRID),
    /// `us-nerc` (a NERC region's, eGRID). A cloud region's is that of the region it takes its figure from.
    pub basis: &'static str,
    /// The cloud provider's own published figure for the region (Google's, for GCP), on its own basis: shown
    /// beside, not used, since the other clouds in the same grid have none.
    pub provider_figure: Option<ProviderFigure>,
}

/// A cloud provider's own figure for one of its regions.
#[derive(Debug, Clone, Serialize)]
pub struct ProviderFigure {
    pub g_per_kwh: f64,
    pub year: u16,
    pub source: &'static str,
    /// `provider's own`: the provider's location-based figure for the region's grid, hour by hour.
    pub basis: &'static str,
}

impl Region {
    /// How provenance names it: `region FR (Ember via OWID, 2024)`.
    pub fn provenance(&self) -> String {
        let via = self.via.as_ref().map(|v| format!(", via {v}")).unwrap_or_default();
        format!("region {} ({}, {}{via})", self.key, self.source, self.year)
    }
}

fn rows(table: &'static str) -> impl Iterator<Item = Vec<&'static str>> {
    table.lines().skip(1).filter(|l| !l.trim().is_empty()).map(|l| l.split('\t').collect())
}

fn number(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)
}

fn countries() -> Vec<(Region, &'static str)> {
    rows(COUNTRIES)
        .filter_map(|r| {
            let region = Region {
                key: r.get(1)?.to_string(),
                kind: "country",
                name: r.get(2)?.to_string(),
                g_per_kwh: number(r.get(4)?)?,
                year: r.get(3)?.parse().ok()?,
                source: OWID.into(),
                via: None,
                basis: "country",
                provider_figure: None,
            };
            Some((region, *r.first()?))
        })
        .collect()
}

fn us() -> Vec<Region> {
    rows(US)
        .filter_map(|r| {
            let (kind, key) = match *r.first()? {
                "state" => ("us-state", format!("US-{}", r.get(1)?)),
                "nerc_region" => ("us-nerc", r.get(1)?.to_string()),
                _ => return None,
            };
            Some(Region {
                key,
                kind,
                name: r.get(2)?.to_string(),
                g_per_kwh: number(r.get(4)?)?,
                year: r.get(3)?.parse().ok()?,
                source: r.get(5)?.to_string(),
                via: None,
                basis: kind,
                provider_figure: None,
            })
        })
        .collect()
}

fn clouds(countries: &[(Region, &str)], us: &[Region]) -> Vec<Region> {
    rows(CLOUD)
        .filter_map(|r| {
            let key = format!("{}:{}", r.first()?, r.get(1)?);
            let name = r.get(2)?.to_string();
            let provider_figure = match (r.get(6).and_then(|v| number(v)), r.get(7).and_then(|y| y.parse::<u16>().ok())) {
                (Some(g_per_kwh), Some(year)) => {
                    Some(ProviderFigure { g_per_kwh, year, source: "Google region-carbon-info", basis: "provider's own" })
                }
                _ => None,
            };
            let state = r.get(4).filter(|s| !s.is_empty()).map(|s| format!("US-{s}"));
            let base = state
                .and_then(|s| us.iter().find(|u| u.key == s))
                .or_else(|| countries.iter().map(|(c, _)| c).find(|c| Some(c.key.as_str()) == r.get(3).copied()))?;
            Some(Region {
                key,
                kind: "cloud",
                name,
                g_per_kwh: base.g_per_kwh,
                year: base.year,
                source: base.source.clone(),
                via: Some(base.key.clone()),
                basis: base.basis,
                provider_figure,
            })
        })
        .collect()
}

/// The zone a grid forecast names region `r`'s grid by: a country's ISO 3166 alpha-2 code (Electricity Maps' zone
/// for most countries), also for a cloud region outside the US (its country's). None for a US state, a NERC region
/// or a cloud region in the US: forecasts zone US grids by balancing authority (Electricity Maps' US-MIDA-PJM,
/// WattTime's PJM_DC), which the tables do not map.
pub fn forecast_zone(r: &Region) -> Option<String> {
    let country = match r.kind {
        "country" => Some(r.key.as_str()),
        "cloud" if r.basis == "country" => r.via.as_deref(),
        _ => None,
    };
    country.filter(|c| *c != "US").map(str::to_string)
}

/// The tables, read once per process: an import prices every job through `resolve`.
static TABLE: std::sync::LazyLock<(Vec<Region>, Vec<&'static str>)> = std::sync::LazyLock::new(|| {
    let c = countries();
    let u = us();
    let cl = clouds(&c, &u);
    let iso3 = c.iter().map(|(_, iso3)| *iso3).collect();
    (c.into_iter().map(|(r, _)| r).chain(u).chain(cl).collect(), iso3)
});

/// Every region the tables know: countries, US states and NERC regions, cloud regions.
pub fn all() -> &'static [Region] {
    &TABLE.0
}

/// The region `q` names (any case): a country by alpha-2 or alpha-3, else any key; an error naming the
/// nearest known names when none.
pub fn resolve(q: &str) -> Result<Region, String> {
    let want = q.trim();
    let shown = crate::text::clean(want);
    if want.is_empty() || want.len() > 64 {
        return Err(format!(
            "'{shown}' is not a region: a country (FR, FRA), a US state (US-VA), a NERC region (SERC) or a cloud region (aws:us-east-1)"
        ));
    }
    let (every, iso3) = &*TABLE;
    // The countries come first in the table, in the order of their alpha-3 codes.
    let by_iso3 = iso3.iter().position(|c| c.eq_ignore_ascii_case(want)).map(|i| &every[i]);
    if let Some(r) = by_iso3.or_else(|| every.iter().find(|r| r.key.eq_ignore_ascii_case(want))) {
        return Ok(r.clone());
    }
    // A US state's two letters alone (VA) are a state first, never the country whose code is nearest (BA).
    let state = format!("US-{want}");
    let hint = if every.iter().any(|r| r.key.eq_ignore_ascii_case(&state)) {
        format!("; did you mean '{}' (the US state)?", state.to_ascii_uppercase())
    } else {
        let keys: Vec<String> = every.iter().map(|r| r.key.to_ascii_lowercase()).collect();
        let near = crate::suggest::nearest(&want.to_ascii_lowercase(), keys.iter().map(String::as_str));
        near.map(|n| format!("; did you mean '{n}'?")).unwrap_or_default()
    };
    Err(format!("no grid intensity is known for region '{shown}'{hint} (exa finops carbon regions lists them)"))
}

#[cfg(test)]
mod tests {
    use super::{all, resolve};

    #[test]
    fn every_table_row_is_read_and_every_cloud_region_resolves() {
        let every = all();
        let count = |k: &str| every.iter().filter(|r| r.kind == k).count();
        assert_eq!((count("country"), count("us-state"), count("us-nerc"), count("cloud")), (212, 51, 5, 121));
        assert_eq!(resolve("fra").unwrap().key, "FR");
        assert_eq!(resolve("AWS:US-EAST-1").unwrap().via.as_deref(), Some("US-VA"));
        // One grid, one figure on one basis, whichever cloud: Northern Virginia's is Virginia's.
        let (aws, gcp) = (resolve("aws:us-east-1").unwrap(), resolve("gcp:us-east4").unwrap());
        assert_eq!((aws.g_per_kwh, aws.basis), (gcp.g_per_kwh, "us-state"));
        assert_eq!(gcp.provider_figure.map(|p| p.g_per_kwh), Some(323.05));
        assert_eq!(resolve("gcp:europe-west9").unwrap().via.as_deref(), Some("FR"));
        assert!(resolve("atlantis").is_err());
    }
}
