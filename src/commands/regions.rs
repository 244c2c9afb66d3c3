//! `exa finops carbon regions`: the grid regions exa knows offline.

use serde::Serialize;

use crate::pricing::region::{self, Region};

/// The regions listed, or the tables' attribution.
#[derive(Debug, Serialize)]
pub struct Regions {
    /// What was asked for; null for every region.
    pub query: Option<String>,
    /// The tables' version (the day they were derived).
    pub tables: &'static str,
    /// The matching regions, countries first, then US states and NERC regions, then cloud regions.
    pub regions: Vec<Region>,
    /// With `--sources`: the tables' sources, licences and attribution.
    pub attribution: Option<&'static str>,
}

/// The regions whose name or place contains `query` (any case); every region without one.
pub fn run(query: Option<&str>, sources: bool) -> Regions {
    let q = query.map(|q| q.trim().to_lowercase());
    let regions = region::all()
        .iter()
        .filter(|r| q.as_ref().is_none_or(|q| r.key.to_lowercase().contains(q) || r.name.to_lowercase().contains(q)))
        .cloned()
        .collect();
    Regions {
        query: query.map(crate::text::clean),
        tables: region::TABLES,
        regions: if sources { Vec::new() } else { regions },
        attribution: sources.then_some(region::ATTRIBUTION),
    }
}
