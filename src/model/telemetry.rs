//! Telemetry out as data: metric families with their points, named for
//! OpenTelemetry (dotted, UCUM units) and for Prometheus (the standard
//! translation: underscores, the unit as a suffix, `_total` on counters).

use serde::Serialize;

/// Which names the metrics carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Semconv {
    /// The spec's `gen_ai.*` names.
    Genai,
    /// OpenTelemetry's hardware semantic conventions: `hw.power`, `hw.energy`, `hw.gpu.*`.
    Hw,
}

impl Semconv {
    /// Its name, as `--semconv` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Semconv::Genai => "genai",
            Semconv::Hw => "hw",
        }
    }
}

impl std::str::FromStr for Semconv {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "genai" => Ok(Semconv::Genai),
            "hw" => Ok(Semconv::Hw),
            other => Err(format!("'{}' is not a set of metric names (genai, hw)", other.escape_default())),
        }
    }
}

/// What kind of instrument a family is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The latest value; absent when nothing was observed.
    Gauge,
    /// A running total since the exporter started.
    Counter,
    /// A distribution of readings.
    Histogram,
}

/// A histogram's state: the upper bounds with cumulative counts, the sum and the count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Histogram {
    /// (upper bound, readings at or below it), bounds ascending; +Inf is `count`.
    pub buckets: Vec<(f64, u64)>,
    /// The sum of the readings.
    pub sum: f64,
    /// How many readings.
    pub count: u64,
}

impl Histogram {
    /// An empty histogram with these upper bounds.
    pub fn new(bounds: &[f64]) -> Histogram {
        Histogram { buckets: bounds.iter().map(|b| (*b, 0)).collect(), sum: 0.0, count: 0 }
    }

    /// Adds one reading.
    pub fn record(&mut self, v: f64) {
        for (bound, n) in &mut self.buckets {
            if v <= *bound {
                *n += 1;
            }
        }
        self.sum += v;
        self.count += 1;
    }
}

/// One point's value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Value {
    /// A gauge's or a counter's number.
    Number(f64),
    /// A histogram.
    Histogram(Histogram),
}

/// One point: attributes (labels) and a value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// (name, value) pairs, e.g. ("gpu_id", "0").
    pub attributes: Vec<(&'static str, String)>,
    /// The value.
    pub value: Value,
}

/// One metric and its points now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Family {
    /// The OpenTelemetry name, e.g. gen_ai.gpu.power.
    pub name: &'static str,
    /// The UCUM unit, e.g. W, Cel, %.
    pub unit: &'static str,
    /// The unit as a Prometheus suffix (watts, celsius, percent); empty for none.
    pub prometheus_unit: &'static str,
    /// Gauge, counter or histogram.
    pub kind: Kind,
    /// What it is.
    pub help: &'static str,
    /// Its points; an empty list exports nothing for it.
    pub points: Vec<Point>,
}

impl Family {
    /// The Prometheus name without the unit suffix or `_total`: dots become underscores.
    pub fn prometheus_base(&self) -> String {
        self.name.replace('.', "_")
    }

    /// The full Prometheus name as scraped (a histogram's series add `_bucket`, `_sum`, `_count`).
    pub fn prometheus_name(&self) -> String {
        let mut n = self.prometheus_base();
        if !self.prometheus_unit.is_empty() {
            n.push('_');
            n.push_str(self.prometheus_unit);
        }
        if self.kind == Kind::Counter {
            n.push_str("_total");
        }
        n
    }
}
