//! A record's figures where its own columns hold them: an estimate's form.
//!
//! A record's estimate is its shape (what records priced alike share: the
//! provider, the coefficients and their sources, the notes) and its figures
//! (inputs, outputs, range). Most figures are a record's columns already: its
//! GPU- and CPU-hours, kWh, CO2e, cost, embodied CO2e and water; and most
//! ranges are their outputs' bands, `v × (1 ∓ u)` tidied, for an
//! uncertainty the shape holds. A form says which figures an estimate has, in
//! order, and the uncertainty each band was made with; a record written with a
//! form keeps beside its columns only the figures they cannot give back
//! (`rest`), most often none. A million imported jobs then write no copy of
//! their figures at all.
//!
//! Every figure is checked as the form is made: one is left to a column or a
//! band only where that gives it back to the last bit, as the store reads it
//! (SQLite keeps no negative zero); any other is kept, as the estimate's own
//! JSON wrote it. So the estimate put together again is the very text it was
//! made from (`figures`), and SQL puts it together too (the view
//! `record_estimate_json`).

use std::sync::Arc;

use serde::Serialize;

use super::{FiguresOf, Line};
use crate::model::{Estimate, IndexMap};

/// Which figures an estimate has, in order, and where each comes from: its column, or the record's rest; a band
/// from its output and the uncertainty named, or the rest (`None`).
#[derive(Debug, PartialEq)]
pub struct Form {
    /// As a store keeps it: `{"inputs":[names],"outputs":[names],"range":{name: u or null} or null}`.
    pub text: String,
    inputs: Vec<String>,
    outputs: Vec<String>,
    range: Option<Vec<(String, Option<f64>)>>,
}

/// The form as stored: its names, and each band's uncertainty.
#[derive(Serialize, serde::Deserialize)]
struct Layout {
    inputs: Vec<String>,
    outputs: Vec<String>,
    range: Option<IndexMap<String, Option<f64>>>,
}

/// The figures a record keeps beside its columns, by section: each as the estimate's own JSON wrote it.
#[derive(serde::Deserialize, Default)]
struct Rest<'a> {
    #[serde(borrow, default)]
    inputs: IndexMap<&'a str, &'a serde_json::value::RawValue>,
    #[serde(borrow, default)]
    outputs: IndexMap<&'a str, &'a serde_json::value::RawValue>,
    #[serde(borrow, default)]
    range: IndexMap<&'a str, &'a serde_json::value::RawValue>,
}

/// The rest as written: only the sections that hold a figure.
#[derive(Serialize, Default)]
struct RestOf<'a> {
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    inputs: IndexMap<&'a str, f64>,
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    outputs: IndexMap<&'a str, f64>,
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    range: IndexMap<&'a str, [f64; 2]>,
}

/// An input's column: the hours.
fn input_column(l: &Line, name: &str) -> Option<f64> {
    match name {
        "gpu_hours" => Some(l.gpu_hours),
        "cpu_hours" => Some(l.cpu_hours),
        _ => None,
    }
}

/// An output's column. Embodied CO2e and water are a carbon record's (`Line::of_alike`); a cost provider's
/// outputs of those names have none.
fn output_column(l: &Line, name: &str) -> Option<f64> {
    super::columns::Figure::of_output(name).and_then(|f| l.figures.get(f))
}

/// A figure as a store reads back from its column: no NaN (SQLite keeps NULL) and no negative zero (a whole REAL
/// is kept as an integer).
fn stored(v: Option<f64>) -> Option<f64> {
    v.filter(|x| !x.is_nan()).map(|x| x + 0.0)
}

/// Whether `column` gives back `v` to the last bit.
fn gives_back(column: Option<f64>, v: f64) -> bool {
    stored(column).is_some_and(|c| c.to_bits() == v.to_bits())
}

/// A name a form may hold: SQL finds its figure in the rest by a JSON path (`$.inputs."name"`).
fn plain(name: &str) -> bool {
    !name.is_empty() && !name.chars().any(|c| c == '"' || c == '\\' || c.is_control())
}

impl Form {
    /// The form of an estimate with figures `e`, the shape of `shaped` (whose bands' uncertainties it may have),
    /// written as line `l`; and the figures its columns do not give back (the rest, as JSON; `None` when they give
    /// back all). `like` are forms made before for estimates of the same shape, the latest first: their bands'
    /// uncertainties are tried first, and one is answered again where this form is the same. `None` when the
    /// estimate has a name SQL could not find a figure by: it is split as before then.
    pub(super) fn of(e: FiguresOf, shaped: &Estimate, l: &Line, like: &[Arc<Form>]) -> Option<(Arc<Form>, Option<String>)> {
        let mut rest = RestOf::default();
        for (name, v) in e.inputs {
            if !gives_back(input_column(l, name), *v) {
                rest.inputs.insert(name, *v);
            }
        }
        for (name, v) in e.outputs {
            if !gives_back(output_column(l, name), *v) {
                rest.outputs.insert(name, *v);
            }
        }
        let mut bands: Option<Vec<(&str, Option<f64>)>> = None;
        if let Some(range) = e.range {
            let mut made = Vec::with_capacity(range.len());
            for (i, (name, [lo, hi])) in range.iter().enumerate() {
                // A band is made from its output, where the output's column gives it back (so the reader has it).
                let from = e.outputs.get(name).filter(|_| !rest.outputs.contains_key(name.as_str()));
                // Pricing's word for how it made the band, where it gives one: that band needs no making again.
                let priced = e.made.get(i).copied().flatten().map(|[v, u]| [v.to_bits(), u.to_bits()]);
                let u = from.and_then(|v| {
                    let tried = like.iter().find_map(|f| f.band_u(name));
                    let same = |u: f64| {
                        if priced == Some([v.to_bits(), u.to_bits()]) {
                            return true;
                        }
                        let [a, b] = crate::num::band(*v, u);
                        a.to_bits() == lo.to_bits() && b.to_bits() == hi.to_bits()
                    };
                    tried.into_iter().chain(uncertainties(shaped)).find(|u| same(*u))
                });
                if u.is_none() {
                    rest.range.insert(name, [*lo, *hi]);
                }
                made.push((name.as_str(), u));
            }
            bands = Some(made);
        }
        let rest = (!(rest.inputs.is_empty() && rest.outputs.is_empty() && rest.range.is_empty()))
            .then(|| serde_json::to_string(&rest).expect("figures serialise"));
        let bits = |u: &Option<f64>| u.map(f64::to_bits);
        let same = like.iter().find(|f| {
            f.inputs.iter().eq(e.inputs.keys())
                && f.outputs.iter().eq(e.outputs.keys())
                && match (&f.range, &bands) {
                    (Some(a), Some(b)) => a.len() == b.len() && a.iter().zip(b).all(|((n, u), (m, v))| n == m && bits(u) == bits(v)),
                    (None, None) => true,
                    _ => false,
                }
        });
        if let Some(f) = same {
            return Some((Arc::clone(f), rest));
        }
        // A name SQL could not find a figure by keeps the estimate split, as before.
        let names = e.inputs.keys().chain(e.outputs.keys()).chain(e.range.iter().flat_map(IndexMap::keys));
        if !names.into_iter().all(|n| plain(n)) {
            return None;
        }
        let layout = Layout {
            inputs: e.inputs.keys().cloned().collect(),
            outputs: e.outputs.keys().cloned().collect(),
            range: bands.map(|b| b.into_iter().map(|(n, u)| (n.to_string(), u)).collect()),
        };
        let text = serde_json::to_string(&layout).expect("a form serialises");
        let form = Form::parse(&text)?;
        // An uncertainty its text does not read back as exactly would make other bands: the form is not used.
        let read_back = form.range.iter().flatten().map(|(_, u)| bits(u)).eq(layout.range.iter().flatten().map(|(_, u)| bits(u)));
        read_back.then(|| (Arc::new(form), rest))
    }

    /// A form as a store kept it; `None` for text that is not one.
    pub fn parse(text: &str) -> Option<Form> {
        let layout: Layout = serde_json::from_str(text).ok()?;
        let names_plain = layout.inputs.iter().chain(&layout.outputs).chain(layout.range.iter().flat_map(IndexMap::keys)).all(|n| plain(n));
        names_plain.then(|| Form {
            text: text.to_string(),
            inputs: layout.inputs,
            outputs: layout.outputs,
            range: layout.range.map(|r| r.into_iter().collect()),
        })
    }

    /// The uncertainty the band of output `name` is made with, where it is made.
    fn band_u(&self, name: &str) -> Option<f64> {
        self.range.as_ref()?.iter().find(|(n, _)| n == name).and_then(|(_, u)| *u)
    }

    /// Line `l`'s figures, `{"inputs":…,"outputs":…,"range":…}`, as its estimate's own JSON wrote them: from its
    /// columns, its bands and its rest. `None` where they do not fit together (a store edited by hand).
    pub fn figures(&self, l: &Line, rest: Option<&str>) -> Option<String> {
        let rest: Rest = match rest {
            Some(r) => serde_json::from_str(r).ok()?,
            None => Rest::default(),
        };
        let mut out = String::with_capacity(256);
        out.push_str("{\"inputs\":{");
        for (i, name) in self.inputs.iter().enumerate() {
            entry(&mut out, i, name, rest.inputs.get(name.as_str()), stored(input_column(l, name)))?;
        }
        out.push_str("},\"outputs\":{");
        for (i, name) in self.outputs.iter().enumerate() {
            entry(&mut out, i, name, rest.outputs.get(name.as_str()), stored(output_column(l, name)))?;
        }
        out.push_str("},\"range\":");
        match &self.range {
            None => out.push_str("null"),
            Some(bands) => {
                out.push('{');
                for (i, (name, u)) in bands.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(name).ok()?);
                    out.push(':');
                    match (rest.range.get(name.as_str()), u) {
                        (Some(raw), _) => out.push_str(raw.get()),
                        (None, Some(u)) => {
                            let v = stored(output_column(l, name))?;
                            out.push_str(&serde_json::to_string(&crate::num::band(v, *u)).ok()?);
                        }
                        (None, None) => return None,
                    }
                }
                out.push('}');
            }
        }
        out.push('}');
        Some(out)
    }
}

/// One figure, `"name":value`, from the rest where it is there, else its column.
fn entry(out: &mut String, i: usize, name: &str, raw: Option<&&serde_json::value::RawValue>, column: Option<f64>) -> Option<()> {
    if i > 0 {
        out.push(',');
    }
    out.push_str(&serde_json::to_string(name).ok()?);
    out.push(':');
    match (raw, column) {
        (Some(raw), _) => out.push_str(raw.get()),
        (None, Some(v)) => out.push_str(&serde_json::to_string(&v).ok()?),
        (None, None) => return None,
    }
    Some(())
}

/// The uncertainties a band of estimate `e` may be made with: its provider's, and each coefficient that is one
/// (`embodied_uncertainty`, say). All of them are the shape's: records of one shape share them.
fn uncertainties(e: &Estimate) -> impl Iterator<Item = f64> + '_ {
    e.provider.uncertainty.into_iter().chain(e.coefficients.iter().filter(|(n, _)| n.ends_with("_uncertainty")).map(|(_, c)| c.value))
}
