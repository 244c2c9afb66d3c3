//! Formula providers: built-in documents, user files and inline expressions.
//!
//! The formulas are compiled once when the provider is loaded; `compute` only
//! evaluates.

use std::cell::RefCell;

use crate::model::IndexMap;

use super::{ComputeError, Meta, Provider, Values, INPUTS};
use crate::formula::{compile, Machine, Program, MAX_FORMULAS};

/// A provider defined by formulas: a built-in, a YAML file, or the config's expressions.
pub struct FormulaProvider {
    meta: Meta,
    /// Slot names: inputs, then coefficients, then outputs in order.
    slots: Vec<String>,
    programs: Vec<(String, Program)>,
}

thread_local! {
    static MACHINE: RefCell<Machine> = RefCell::new(Machine::default());
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic() || f == '_') && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

impl FormulaProvider {
    /// Compiles `meta.formulas`; `meta.accepts` and `meta.outputs` are derived here.
    pub fn new(mut meta: Meta) -> Result<Self, String> {
        if meta.formulas.is_empty() {
            return Err("it defines no formulas".into());
        }
        if meta.formulas.len() > MAX_FORMULAS {
            return Err(format!("it defines {} formulas, more than the limit of {MAX_FORMULAS}", meta.formulas.len()));
        }
        let mut slots: Vec<String> = INPUTS.iter().map(std::string::ToString::to_string).collect();
        for c in &meta.coefficients {
            if !is_ident(&c.name) {
                return Err(format!("coefficient '{}' is not a valid name (letters, digits and _)", c.name));
            }
            if slots.contains(&c.name) {
                return Err(format!("coefficient '{}' has the name of an input", c.name));
            }
            slots.push(c.name.clone());
        }
        let mut programs = Vec::with_capacity(meta.formulas.len());
        for (out, src) in &meta.formulas {
            if !is_ident(out) {
                return Err(format!("formula name '{out}' is not a valid name (letters, digits and _)"));
            }
            if slots.contains(out) {
                return Err(format!("formula '{out}' has the name of an input, coefficient or earlier formula"));
            }
            let p = compile(src, &slots).map_err(|e| format!("formula '{out}', {e}"))?;
            programs.push((out.clone(), p));
            slots.push(out.clone());
        }
        for want in meta.domain.outputs() {
            if !meta.formulas.iter().any(|(o, _)| o == want) {
                let have: Vec<&str> = meta.formulas.iter().map(|(o, _)| o.as_str()).collect();
                return Err(format!(
                    "a {} provider must produce {}; it has no formula '{want}' (it has: {})",
                    meta.domain,
                    meta.domain.outputs().join(" and "),
                    have.join(", ")
                ));
            }
        }
        meta.accepts = INPUTS
            .iter()
            .enumerate()
            .filter(|(i, _)| programs.iter().any(|(_, p)| p.reads.contains(i)))
            .map(|(_, n)| n.to_string())
            .collect();
        meta.outputs = meta.formulas.iter().map(|(o, _)| o.clone()).collect();
        let parts: Vec<&str> = meta.formulas.iter().flat_map(|(o, f)| [o.as_str(), f.as_str()]).collect();
        meta.digest = super::digest(&parts);
        Ok(FormulaProvider { meta, slots, programs })
    }
}

impl Provider for FormulaProvider {
    fn meta(&self) -> &Meta {
        &self.meta
    }

    fn compute(&self, values: &Values) -> Result<IndexMap<String, f64>, ComputeError> {
        let fixed = INPUTS.len() + self.meta.coefficients.len();
        let mut slots = Vec::with_capacity(self.slots.len());
        for name in &self.slots[..fixed] {
            let v = values.inputs.get(name).or_else(|| values.coefficients.get(name)).copied().unwrap_or(0.0);
            slots.push(v);
        }
        let mut out = IndexMap::with_capacity_and_hasher(self.programs.len(), Default::default());
        MACHINE.with(|m| {
            let mut m = m.borrow_mut();
            for (name, p) in &self.programs {
                let v = m.eval(p, &slots).map_err(|e| ComputeError::Formula { output: name.clone(), cause: e.to_string() })?;
                slots.push(v);
                out.insert(name.clone(), v);
            }
            Ok(out)
        })
    }
}
