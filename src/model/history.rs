//! A grid's intensity history over a run, and what a run's energy weighs it by.

use std::sync::Arc;

use serde::Serialize;

/// One reading of a grid's history: from `start` (inclusive) to `end`, seconds since the epoch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    /// When it begins.
    pub start: i64,
    /// When it ends (the next reading, or its own stated period).
    pub end: i64,
    /// The intensity, gCO2e/kWh.
    pub g_per_kwh: f64,
    /// The provider gave only its forecast for this interval (the UK API, before its actual is known).
    pub forecast: bool,
}

/// A grid's history read for a window: readings in time order, none overlapping, and how it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// In time order; time in no reading is a hole.
    pub readings: Vec<Reading>,
    /// The endpoint, secrets hidden.
    pub url: String,
    /// The grid zone asked for.
    pub zone: Option<String>,
    /// Which API's shape the answers had (`uk`, `electricitymaps`, `watttime`, `carbon-aware-sdk`).
    pub shape: &'static str,
    /// Requests made for it.
    pub requests: usize,
    /// Pieces (UTC days) taken from the cache instead.
    pub cached: usize,
}

/// A share of the work: `weight` (energy, or time for a flat profile) spread evenly over [from, to), seconds
/// since the epoch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weight {
    /// Where it begins.
    pub from: f64,
    /// Where it ends.
    pub to: f64,
    /// How much of the work it holds (joules, or seconds).
    pub weight: f64,
}

/// What a carbon estimate weighs the grid's history by.
#[derive(Debug, Clone)]
pub struct HistoryAsk {
    /// The history read.
    pub series: Arc<Series>,
    /// The work over time.
    pub profile: Vec<Weight>,
    /// What the weights are, said in the answer: `GPU energy per interval`, `time (flat power)`.
    pub weighted_by: String,
}

/// A part of the run the history has no reading for, and what stood in for it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Gap {
    /// Where it begins, UTC.
    pub from: String,
    /// Where it ends, UTC.
    pub to: String,
    /// `nearest` (the nearest reading, at most three hours away) or `static` (the intensity exa had without the history).
    pub filled_with: &'static str,
    /// The intensity that stood in, gCO2e/kWh.
    pub g_per_kwh: f64,
}

/// The time-weighted intensity of a run, as an estimate's `grid.history` says it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GridHistory {
    /// The window weighed, UTC.
    pub from: String,
    /// Its end, UTC.
    pub to: String,
    /// The intensity weighted by the run's work over time, gCO2e/kWh: the figure the estimate used.
    pub time_weighted_g_per_kwh: f64,
    /// What the work was weighed by.
    pub weighted_by: String,
    /// One reading at the run's end, gCO2e/kWh: what a single reading would have given.
    pub end_of_run_g_per_kwh: f64,
    /// `live reading` (grid-live's, taken now) or `history` (the history's value at the run's end).
    pub end_of_run_from: &'static str,
    /// How far the time-weighted intensity is from the end-of-run reading, percent of the latter.
    pub difference_pct: f64,
    /// Readings of the history that fall in the window.
    pub readings: usize,
    /// Of them, those that were only the provider's forecast.
    pub forecast_readings: usize,
    /// Requests made to the history endpoint (one per UTC day, unless cached).
    pub requests: usize,
    /// Days taken from the cache.
    pub cached: usize,
    /// The share of the work in a part the history has no reading for (0 to 1).
    pub gap_share: f64,
    /// Those parts, the first 20.
    pub gaps: Vec<Gap>,
    /// Parts past the first 20, not listed.
    pub gaps_not_listed: usize,
}
