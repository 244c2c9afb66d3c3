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
    /// A level that goes up and down, sent as a non-monotonic sum (OpenTelemetry's UpDownCounter):
    /// a gauge in Prometheus.
    UpDownCounter,
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
    /// The UCUM unit, e.g. W, Cel, %; the Prometheus suffix is made from it.
    pub unit: &'static str,
    /// Gauge, counter or histogram.
    pub kind: Kind,
    /// What it is.
    pub help: &'static str,
    /// Its points; an empty list exports nothing for it.
    pub points: Vec<Point>,
}

impl Family {
    /// The Prometheus name without the unit suffix or `_total`: the name's words joined by
    /// underscores, a counter's own `total` left for the suffix.
    pub fn prometheus_base(&self) -> String {
        let words = words(self.name);
        let unit = self.prometheus_unit();
        let moved = |w: &str| (self.kind == Kind::Counter && w == "total") || (unit == "ratio" && w == "ratio");
        let kept: Vec<&str> = words.iter().copied().filter(|w| !moved(w)).collect();
        kept.join("_")
    }

    /// The unit as the translation writes it as a suffix (`watts`, `grams_per_second`, `ratio`); empty for none.
    pub fn prometheus_unit(&self) -> String {
        let mut out = prometheus_unit(self.unit);
        let words = words(self.name);
        if !out.is_empty() && !out.contains('_') && words.contains(&out.as_str()) {
            // A unit the name already says is not said twice.
            out.clear();
        }
        if self.unit == "1" && self.kind == Kind::Gauge {
            out = "ratio".into();
        }
        out
    }

    /// The full Prometheus name as scraped (a histogram's series add `_bucket`, `_sum`, `_count`).
    pub fn prometheus_name(&self) -> String {
        let mut n = self.prometheus_base();
        let unit = self.prometheus_unit();
        if !unit.is_empty() {
            n.push('_');
            n.push_str(&unit);
        }
        if self.kind == Kind::Counter {
            n.push_str("_total");
        }
        n
    }
}

/// A name's words: what lies between characters Prometheus names cannot carry.
fn words(name: &str) -> Vec<&str> {
    name.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect()
}

/// The standard OpenTelemetry-to-Prometheus translation of a UCUM unit into a name suffix
/// (OpenTelemetry's Prometheus compatibility specification, as the Collector and Prometheus's OTLP
/// receiver implement it): the known units become words (`By` bytes, `MiBy` mebibytes, `W` watts,
/// `g` grams, `Cel` celsius, `%` percent, `1` nothing), any other unit is kept as it is written
/// (`kWh`, `MHz`, `USD`), an annotation in braces (`{error}`) gives no suffix, and `a/b` is `a_per_b`.
pub fn prometheus_unit(unit: &str) -> String {
    let (main, per) = match unit.split_once('/') {
        Some((m, p)) => (m.trim(), Some(p.trim())),
        None => (unit.trim(), None),
    };
    let clean = |s: &str| words(s).join("_");
    let known = |u: &str| -> Option<&'static str> {
        Some(match u {
            "d" => "days",
            "h" => "hours",
            "min" => "minutes",
            "s" => "seconds",
            "ms" => "milliseconds",
            "us" => "microseconds",
            "ns" => "nanoseconds",
            "By" => "bytes",
            "KiBy" => "kibibytes",
            "MiBy" => "mebibytes",
            "GiBy" => "gibibytes",
            "TiBy" => "tibibytes",
            "KBy" => "kilobytes",
            "MBy" => "megabytes",
            "GBy" => "gigabytes",
            "TBy" => "terabytes",
            "m" => "meters",
            "V" => "volts",
            "A" => "amperes",
            "J" => "joules",
            "W" => "watts",
            "g" => "grams",
            "Cel" => "celsius",
            "Hz" => "hertz",
            "1" => "",
            "%" => "percent",
            _ => return None,
        })
    };
    let per_word = |u: &str| -> Option<&'static str> {
        Some(match u {
            "s" => "second",
            "m" => "minute",
            "h" => "hour",
            "d" => "day",
            "w" => "week",
            "mo" => "month",
            "y" => "year",
            _ => return None,
        })
    };
    let annotated = |u: &str| u.is_empty() || u.contains(['{', '}']);
    let mut parts = Vec::new();
    if !annotated(main) {
        let m = known(main).map_or_else(|| clean(main), str::to_string);
        if !m.is_empty() {
            parts.push(m);
        }
    }
    if let Some(p) = per.filter(|p| !annotated(p)) {
        let w = per_word(p).map_or_else(|| clean(p), str::to_string);
        if !w.is_empty() {
            parts.push(format!("per_{w}"));
        }
    }
    parts.join("_")
}
