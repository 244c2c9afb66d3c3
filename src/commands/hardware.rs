//! `exa finops carbon hardware`: the GPU and CPU models exa knows the power of.

use serde::Serialize;

use crate::pricing::hardware::{self, Cpu, Gpu};

/// The models listed, or the tables' attribution.
#[derive(Debug, Serialize)]
pub struct Hardware {
    /// What was asked for; null for every model.
    pub query: Option<String>,
    /// The matching GPU and accelerator models, each with its board power and source.
    pub gpus: Vec<Gpu>,
    /// The matching CPU models with their TDP (none without a query: there are some 4,900).
    pub cpus: Vec<Cpu>,
    /// How many CPU models the table has.
    pub cpu_models: usize,
    /// Where every CPU row comes from.
    pub cpu_source: &'static str,
    /// With `--sources`: the tables' sources and licences.
    pub attribution: Option<&'static str>,
}

/// The models whose name (or another name they go by) contains `query` in exa's normal form; every GPU and no CPU
/// without one.
pub fn run(query: Option<&str>, sources: bool) -> Hardware {
    // A query of nothing but words every model's name may carry (`CPU`, `AMD`) asks for nothing.
    let q = query.map(|q| Some(hardware::normal(q)).filter(|n| !n.is_empty()).unwrap_or_else(|| "\u{0}".into()));
    let fits = |names: &[&String]| -> bool { q.as_ref().is_none_or(|q| names.iter().any(|n| hardware::normal(n).contains(q.as_str()))) };
    let gpus = hardware::gpus().iter().filter(|g| fits(&std::iter::once(&g.name).chain(&g.aliases).collect::<Vec<_>>())).cloned().collect();
    let cpus = match &q {
        Some(_) => hardware::cpus().iter().filter(|c| fits(&[&c.name])).cloned().collect(),
        None => Vec::new(),
    };
    Hardware {
        query: query.map(crate::text::clean),
        gpus: if sources { Vec::new() } else { gpus },
        cpus: if sources { Vec::new() } else { cpus },
        cpu_models: hardware::cpus().len(),
        cpu_source: hardware::CPU_SOURCE,
        attribution: sources.then_some(hardware::ATTRIBUTION),
    }
}
