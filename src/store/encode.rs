//! A record's estimate as a ledger keeps it, and the encoder that makes it: whole, split into the shape estimates
//! priced alike share and the record's own figures, or formed (the figures its columns give back not written
//! again: `store::form`). Both the core (`Line::of`) and an importer (`Encoder`) encode through here; a store
//! writes what comes out as it is, and puts it together again byte for byte.

use super::{form, Line};
use crate::model::{NewRecord, Word};

/// A record's estimate as JSON text: whole, or split in two. The shape is what records priced alike share
/// (the provider, the coefficients and their sources, the notes), with the figures' places left empty
/// (`"inputs":{}`, `"outputs":{},"range":null`); the figures are the record's own
/// (`{"inputs":…,"outputs":…,"range":…}`). A store may keep each shape once; `whole` puts the two together
/// again, byte for byte: a split is made only when it does.
///
/// A form (`store::form`) goes further: the figures its line's columns hold are not written again, and only
/// the rest is kept (`Formed`); the line puts its estimate together (`Line::estimate_json`).
#[derive(Debug, Clone, PartialEq)]
pub enum EstimateText {
    Whole(String),
    Split { shape: std::sync::Arc<str>, figures: String },
    Formed { shape: std::sync::Arc<str>, form: std::sync::Arc<form::Form>, rest: Option<String> },
}

impl From<String> for EstimateText {
    fn from(s: String) -> EstimateText {
        EstimateText::Whole(s)
    }
}

impl From<&str> for EstimateText {
    fn from(s: &str) -> EstimateText {
        EstimateText::Whole(s.to_string())
    }
}

/// The figures' places in a shape.
const INPUTS_AT: &str = "\"inputs\":{},\"coefficients\":";
const OUTPUTS_AT: &str = "\"outputs\":{},\"range\":null,";

/// A record's figures as stored beside a shape: each as the estimate's own JSON wrote it.
#[derive(serde::Deserialize)]
struct Figures<'a> {
    #[serde(borrow)]
    inputs: &'a serde_json::value::RawValue,
    #[serde(borrow)]
    outputs: &'a serde_json::value::RawValue,
    #[serde(borrow)]
    range: &'a serde_json::value::RawValue,
}

impl EstimateText {
    /// Splits a whole estimate's JSON, given its figures as serialised, when the split puts together again
    /// to the same text; else keeps it whole.
    pub(super) fn split(whole: String, inputs: &str, outputs: &str, range: &str) -> EstimateText {
        let at_inputs = format!("\"inputs\":{inputs},\"coefficients\":");
        let at_outputs = format!("\"outputs\":{outputs},\"range\":{range},");
        let shape = whole.replacen(&at_inputs, INPUTS_AT, 1).replacen(&at_outputs, OUTPUTS_AT, 1);
        let figures = format!("{{\"inputs\":{inputs},\"outputs\":{outputs},\"range\":{range}}}");
        let split = EstimateText::Split { shape: shape.into(), figures };
        match split.whole() {
            Some(w) if w == whole => split,
            _ => EstimateText::Whole(whole),
        }
    }

    /// The whole estimate's JSON text; None when a split's parts do not fit together (a store edited by hand),
    /// and for a form's, which its line puts together (`Line::estimate_json`).
    pub(super) fn whole(&self) -> Option<std::borrow::Cow<'_, str>> {
        match self {
            EstimateText::Whole(w) => Some(std::borrow::Cow::Borrowed(w)),
            EstimateText::Split { shape, figures } => together(shape, figures).map(std::borrow::Cow::Owned),
            EstimateText::Formed { .. } => None,
        }
    }
}

/// A shape with its figures (`{"inputs":…,"outputs":…,"range":…}`) in their places; None where they do not fit.
pub(super) fn together(shape: &str, figures: &str) -> Option<String> {
    let f: Figures = serde_json::from_str(figures).ok()?;
    let i = shape.find(INPUTS_AT)?;
    let o = i + shape[i..].find(OUTPUTS_AT)?;
    let mut out = String::with_capacity(shape.len() + figures.len());
    out.push_str(&shape[..i]);
    out.push_str("\"inputs\":");
    out.push_str(f.inputs.get());
    out.push_str(",\"coefficients\":");
    out.push_str(&shape[i + INPUTS_AT.len()..o]);
    out.push_str("\"outputs\":");
    out.push_str(f.outputs.get());
    out.push_str(",\"range\":");
    out.push_str(f.range.get());
    out.push(',');
    out.push_str(&shape[o + OUTPUTS_AT.len()..]);
    Some(out)
}

/// The figures of an estimate, serialised as a split keeps them beside its shape.
#[derive(serde::Serialize, Clone, Copy)]
pub(super) struct FiguresOf<'a> {
    pub(super) inputs: &'a crate::model::IndexMap<String, f64>,
    pub(super) outputs: &'a crate::model::IndexMap<String, f64>,
    pub(super) range: &'a Option<crate::model::IndexMap<String, [f64; 2]>>,
    /// How pricing made each band, where it says (`model::Figures::made`).
    #[serde(skip)]
    pub(super) made: &'a [Option<[f64; 2]>],
}

impl<'a> FiguresOf<'a> {
    pub(super) fn of(e: &'a crate::model::Estimate) -> FiguresOf<'a> {
        FiguresOf { inputs: &e.inputs, outputs: &e.outputs, range: &e.range, made: &[] }
    }

    fn from(f: &'a crate::model::Figures) -> FiguresOf<'a> {
        FiguresOf { inputs: &f.inputs, outputs: &f.outputs, range: &f.range, made: &f.made }
    }
}

/// The shape of estimates priced alike, for lines made from their figures alone (`pricing::Pricer::figures`): each
/// line's estimate is what `Line::of_alike` makes of the whole one, without the whole one made.
pub struct Frame {
    /// An estimate of the shape, its figures emptied.
    like: crate::model::Estimate,
    shape: std::sync::Arc<str>,
    /// The forms made for it last (at most `FORMS`), the latest first: estimates of one shape often take turns
    /// between a few (a band its output's column gives back, or not).
    forms: Vec<std::sync::Arc<form::Form>>,
}

/// How many forms a `Frame` keeps.
pub(crate) const FORMS: usize = 4;

/// Makes `recent[at]` the first of a list kept latest first, those before it a place back.
fn to_front<T>(recent: &mut [T], at: usize) {
    if let Some(head) = recent.get_mut(..=at) {
        head.rotate_right(1);
    }
}

/// Puts `item` first in a list kept latest first, keeping at most `most`.
pub(crate) fn push_front<T>(recent: &mut Vec<T>, item: T, most: usize) {
    recent.truncate(most.saturating_sub(1));
    recent.insert(0, item);
}

impl Frame {
    /// The frame of `e`'s shape; `None` where its JSON does not split into a shape and figures.
    pub fn of(e: &crate::model::Estimate) -> Option<Frame> {
        let EstimateText::Split { shape, .. } = EstimateText::split(
            serde_json::to_string(e).expect("estimates serialise"),
            &serde_json::to_string(&e.inputs).expect("figures serialise"),
            &serde_json::to_string(&e.outputs).expect("figures serialise"),
            &serde_json::to_string(&e.range).expect("figures serialise"),
        ) else {
            return None;
        };
        let mut like = e.clone();
        like.inputs.clear();
        like.outputs.clear();
        like.range = None;
        Some(Frame { like, shape, forms: Vec::new() })
    }

    /// The line of `head` whose estimate is this frame's with figures `f`.
    pub fn line(&mut self, head: Stamp, f: &crate::model::Figures) -> Line {
        let f = FiguresOf::from(f);
        let mut line = Line::columns(head, &self.like, f, None);
        line.estimate = self.text(f, &line);
        line
    }

    /// The text of this frame's estimate with figures `f`, written as line `l`: a form where its columns give
    /// the figures back (the forms made for the frame tried first, the latest first), else split.
    fn text(&mut self, f: FiguresOf, l: &Line) -> EstimateText {
        match form::Form::of(f, &self.like, l, &self.forms) {
            Some((made, rest)) => {
                match self.forms.iter().position(|k| std::sync::Arc::ptr_eq(k, &made)) {
                    Some(at) => to_front(&mut self.forms, at),
                    None => push_front(&mut self.forms, std::sync::Arc::clone(&made), FORMS),
                }
                EstimateText::Formed { shape: std::sync::Arc::clone(&self.shape), form: made, rest }
            }
            None => EstimateText::Split {
                shape: std::sync::Arc::clone(&self.shape),
                figures: serde_json::to_string(&f).expect("figures serialise"),
            },
        }
    }
}

/// What a line holds beside its estimate: whose work it is, when, and the key it is written once by.
pub struct Stamp {
    pub key: String,
    pub model: Word,
    pub run_id: Option<Word>,
    pub recorded_at: i64,
    pub host: Word,
    pub part: bool,
    pub labels: crate::model::Labels,
    pub work: crate::model::Work,
}

impl Stamp {
    /// The head of record `r`.
    pub(super) fn of(r: &NewRecord) -> Stamp {
        Stamp {
            key: r.key.clone(),
            model: r.model.as_str().into(),
            run_id: r.run_id.as_deref().map(Word::from),
            recorded_at: r.recorded_at,
            host: r.host.as_str().into(),
            part: r.part,
            labels: r.labels.clone(),
            work: r.work.clone(),
        }
    }

    /// The record of this head with `estimate`, nothing measured.
    pub fn record(self, estimate: crate::model::Estimate) -> NewRecord {
        let Stamp { key, model, run_id, recorded_at, host, part, labels, work } = self;
        NewRecord {
            model: model.into(),
            run_id: run_id.map(Into::into),
            recorded_at,
            host: host.into(),
            estimate,
            measured: None,
            part,
            key,
            labels,
            work,
        }
    }
}

/// The shapes of the estimates a writer made last (at most `SHAPES`), each beside an estimate of that shape
/// (its figures emptied): an estimate priced as one of them takes its shape as it is, and only its figures are
/// serialised. An importer's million estimates from two providers serialise two shapes, not a million.
#[derive(Default)]
pub struct Shapes(Vec<Frame>);

/// How many shapes `Shapes` keeps (and a writer finds by pointer).
pub(crate) const SHAPES: usize = 4;

impl Shapes {
    /// The estimate's text as line `l` keeps it: in the frame of a shape made before where it is priced alike,
    /// else in a frame made afresh (and kept), or whole where it does not split (`Frame::text`).
    pub(super) fn text(&mut self, e: &crate::model::Estimate, l: &Line) -> EstimateText {
        let whole = || EstimateText::Whole(serde_json::to_string(e).expect("estimates serialise"));
        match self.0.iter().position(|frame| frame.like.same_but_figures(e)) {
            Some(at) => to_front(&mut self.0, at),
            None => match Frame::of(e) {
                Some(frame) => push_front(&mut self.0, frame, SHAPES),
                None => return whole(),
            },
        }
        self.0.first_mut().map_or_else(whole, |frame| frame.text(FiguresOf::of(e), l))
    }
}

/// What an importer encodes its jobs' estimates with: the shapes of the estimates it made last, and per domain
/// the frame of its provider's first estimate priced from a job's hours alone, once one was.
#[derive(Default)]
pub struct Encoder {
    shapes: Shapes,
    frames: [Option<Frame>; 2],
}

impl Encoder {
    fn slot(domain: crate::model::Domain) -> usize {
        usize::from(domain == crate::model::Domain::Cost)
    }

    /// Whether `domain` has a frame: a job of its priced from its hours alone is then its figures in it.
    pub fn has_frame(&self, domain: crate::model::Domain) -> bool {
        self.frames[Encoder::slot(domain)].is_some()
    }

    /// The line of `stamp` whose estimate is `domain`'s frame with figures `f`; None where it has no frame.
    pub fn framed(&mut self, domain: crate::model::Domain, stamp: Stamp, f: &crate::model::Figures) -> Option<Line> {
        Some(self.frames[Encoder::slot(domain)].as_mut()?.line(stamp, f))
    }

    /// The line of `stamp` with a whole `estimate`; `frame`: it was priced from a job's hours alone, and makes its
    /// domain's frame where there is none yet.
    pub fn whole(&mut self, stamp: Stamp, estimate: crate::model::Estimate, frame: bool) -> Line {
        let slot = &mut self.frames[Encoder::slot(estimate.domain)];
        if frame && slot.is_none() {
            *slot = Frame::of(&estimate);
        }
        Line::of_alike(&stamp.record(estimate), &mut self.shapes)
    }
}
