//! The provider document: one YAML file per formula provider.
//!
//! The built-ins under `providers/` are such documents, embedded at build
//! time; a user's file in `<config dir>/providers/<domain>/` uses the same
//! schema, so a built-in can be copied as the start of one.

use std::path::Path;

use crate::model::IndexMap;
use serde::Deserialize;

use super::formula::FormulaProvider;
use super::{Coefficient, Domain, Meta, ProviderKind};
use crate::model::COEFFICIENT_VARS;

/// The built-in providers, as shipped in `providers/`.
pub const BUILTINS: &[(&str, &str)] = &[
    ("providers/carbon/green-ai-default.yaml", include_str!("../../providers/carbon/green-ai-default.yaml")),
    ("providers/carbon/codecarbon-like.yaml", include_str!("../../providers/carbon/codecarbon-like.yaml")),
    ("providers/carbon/ccf-like.yaml", include_str!("../../providers/carbon/ccf-like.yaml")),
    ("providers/carbon/grid-live.yaml", include_str!("../../providers/carbon/grid-live.yaml")),
    ("providers/carbon/hardware-aware.yaml", include_str!("../../providers/carbon/hardware-aware.yaml")),
    ("providers/cost/flat-rate.yaml", include_str!("../../providers/cost/flat-rate.yaml")),
    ("providers/cost/tiered-example.yaml", include_str!("../../providers/cost/tiered-example.yaml")),
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    name: String,
    domain: Domain,
    uncertainty: Option<f64>,
    methodology: String,
    source: Option<String>,
    live: Option<String>,
    #[serde(default)]
    coefficients: IndexMap<String, CoefDoc>,
    formulas: IndexMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum CoefDoc {
    Value(f64),
    Full { default: f64, env: Option<String>, unit: Option<String>, description: Option<String> },
}

/// Parses and compiles a provider document. `origin` is `None` for built-ins.
pub fn load(text: &str, kind: ProviderKind, origin: Option<&Path>) -> Result<FormulaProvider, String> {
    crate::text::check_yaml_depth(text)?;
    let doc: Doc = serde_yaml_ng::from_str(text).map_err(|e| format!("not a provider document: {e}"))?;
    if doc.name.trim().is_empty() {
        return Err("its name is empty".into());
    }
    if let Some(u) = doc.uncertainty {
        if !(0.0..=10.0).contains(&u) {
            return Err(format!("uncertainty {u} is not a fraction between 0 and 10 (0.25 means ±25%)"));
        }
    }
    let mut coefficients = Vec::with_capacity(doc.coefficients.len());
    for (name, c) in doc.coefficients {
        let (default, env, unit, description) = match c {
            CoefDoc::Value(v) => (v, None, None, None),
            CoefDoc::Full { default, env, unit, description } => (default, env, unit, description),
        };
        if !default.is_finite() || default < 0.0 {
            return Err(format!("coefficient '{name}': default {default} is not a finite number >= 0"));
        }
        if let Some(var) = env.as_deref().filter(|v| !COEFFICIENT_VARS.contains(v)) {
            return Err(format!(
                "coefficient '{name}': env {var} is not a variable a provider may read (only {}); set the value in finops.yaml instead",
                COEFFICIENT_VARS.join(", ")
            ));
        }
        coefficients.push(Coefficient { name, default, env, unit, description });
    }
    if let Some(live) = &doc.live {
        if !coefficients.iter().any(|c| &c.name == live) {
            return Err(format!("live coefficient '{live}' is not one of its coefficients"));
        }
    }
    let meta = Meta {
        name: doc.name,
        kind,
        domain: doc.domain,
        uncertainty: doc.uncertainty,
        methodology: doc.methodology.trim().to_string(),
        source: doc.source,
        accepts: Vec::new(),
        coefficients,
        outputs: Vec::new(),
        formulas: doc.formulas.into_iter().collect(),
        live: doc.live,
        origin: origin.map(Path::to_path_buf),
        digest: String::new(),
    };
    FormulaProvider::new(meta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Provider;

    #[test]
    fn every_builtin_loads() {
        for (path, text) in BUILTINS {
            let p = load(text, ProviderKind::Builtin, None).unwrap_or_else(|e| panic!("{path}: {e}"));
            assert!(path.contains(&p.meta().name), "{path} is named {}", p.meta().name);
        }
    }
}
