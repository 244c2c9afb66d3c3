//! Telemetry out to the world: the OpenMetrics text a Prometheus scrape
//! reads (encoded by `prometheus-client`), an HTTP endpoint serving it,
//! a Prometheus Pushgateway push, and OTLP/HTTP through the OpenTelemetry
//! SDK (`opentelemetry_sdk` with `opentelemetry-otlp`). No encoder here is
//! hand-written.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::KeyValue;
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider, Temporality};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};

use crate::model::telemetry::{Family, Kind, Value};

/// The content type of the OpenMetrics text exposition.
pub const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
/// The Prometheus text format's content type.
pub const TEXT_004: &str = "text/plain; version=0.0.4; charset=utf-8";

/// OpenMetrics text as the Prometheus text format 0.0.4: a counter's family is named as its samples are
/// (`x_total`, so a 0.0.4 reader sees one family, not two), and what 0.0.4 has no place for (`# UNIT`,
/// `_created` samples, `# EOF`) is left out.
pub fn text_004(openmetrics: &str) -> String {
    let counters: std::collections::HashSet<&str> =
        openmetrics.lines().filter_map(|l| l.strip_prefix("# TYPE ")?.strip_suffix(" counter")).collect();
    let mut out = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ").or_else(|| line.strip_prefix("# HELP ")) {
            let name = rest.split(' ').next().unwrap_or("");
            if counters.contains(name) {
                out.push_str(&line[..7]);
                out.push_str(name);
                out.push_str("_total");
                out.push_str(&rest[name.len()..]);
                out.push('\n');
                continue;
            }
        }
        let sample = line.split(['{', ' ']).next().unwrap_or("");
        if sample.strip_suffix("_created").is_some_and(|f| counters.contains(f)) {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[derive(Debug)]
struct Families(Vec<Family>);

impl Collector for Families {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        for f in self.0.iter().filter(|f| !f.points.is_empty()) {
            let suffix = f.prometheus_unit();
            let unit = (!suffix.is_empty()).then_some(Unit::Other(suffix));
            let kind = match f.kind {
                Kind::Gauge | Kind::UpDownCounter => MetricType::Gauge,
                Kind::Counter => MetricType::Counter,
                Kind::Histogram => MetricType::Histogram,
            };
            let base = f.prometheus_base();
            let mut metric = encoder.encode_descriptor(&base, f.help, unit.as_ref(), kind)?;
            for p in &f.points {
                let labels: Vec<(String, String)> = p.attributes.iter().map(|(k, v)| (k.replace('.', "_"), v.clone())).collect();
                let mut m = metric.encode_family(&labels)?;
                match (&p.value, f.kind) {
                    (Value::Number(v), Kind::Counter) => m.encode_counter::<NoLabelSet, f64, f64>(v, None)?,
                    (Value::Number(v), _) => m.encode_gauge(v)?,
                    (Value::Histogram(h), _) => {
                        // The encoder takes counts per bucket and adds them up; ours are cumulative already.
                        let mut per: Vec<(f64, u64)> = Vec::with_capacity(h.buckets.len() + 1);
                        let mut below = 0;
                        for (bound, n) in &h.buckets {
                            per.push((*bound, n - below));
                            below = *n;
                        }
                        per.push((f64::INFINITY, h.count - below));
                        m.encode_histogram::<NoLabelSet>(h.sum, h.count, &per, None)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The families as OpenMetrics text; a family with no points is left out.
pub fn openmetrics(families: Vec<Family>) -> String {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Families(families)));
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = prometheus_client::encoding::text::encode(&mut out, &registry);
    out
}

/// Why serving stopped early: the address could not be bound, with why.
pub fn serve(
    listen: &str,
    render: Arc<dyn Fn() -> String + Send + Sync>,
    on_ready: impl FnOnce(std::net::SocketAddr),
) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| format!("cannot start the server: {e}"))?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen).await.map_err(|e| format!("cannot listen on {listen}: {e}"))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        on_ready(addr);
        let app = axum::Router::new().route(
            "/metrics",
            axum::routing::get(move |headers: axum::http::HeaderMap| {
                let render = Arc::clone(&render);
                async move {
                    // OpenMetrics for a client that asks for it (Prometheus does); the 0.0.4 text format otherwise.
                    let accept = headers.get(axum::http::header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
                    if accept.contains("application/openmetrics-text") {
                        ([(axum::http::header::CONTENT_TYPE, OPENMETRICS)], render())
                    } else {
                        ([(axum::http::header::CONTENT_TYPE, TEXT_004)], text_004(&render()))
                    }
                }
            }),
        );
        crate::sources::serve::axum(listener, app, stopped()).await
    })
}

/// Resolves on SIGTERM or Ctrl-C (SIGINT).
async fn stopped() {
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            s.recv().await;
        } else {
            std::future::pending::<()>().await;
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = term => {}
    }
}

/// Blocks until SIGTERM or Ctrl-C.
pub fn wait_for_stop() -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| format!("cannot wait for signals: {e}"))?;
    rt.block_on(stopped());
    Ok(())
}

/// PUTs the families to a Pushgateway under `grouping` (job first), replacing that group's metrics.
pub fn push_gateway(base: &str, grouping: &[(&str, String)], families: Vec<Family>, timeout: Duration) -> Result<(), String> {
    // A value may hold any character: the Pushgateway takes it base64url-encoded after "@base64".
    let mut path = vec!["metrics".to_string()];
    for (k, v) in grouping {
        path.push(format!("{k}@base64"));
        path.push(base64url(v.as_bytes()));
    }
    let url = crate::sources::http::with_path(base, &path.iter().map(String::as_str).collect::<Vec<_>>())?;
    let body = text_004(&openmetrics(families));
    let mut req = crate::sources::http::Request::new(url, timeout, 64 * 1024);
    req.put = Some(("text/plain; version=0.0.4; charset=utf-8", body));
    let shown = crate::text::redact_url(base);
    let answer = crate::sources::http::send(req).map_err(|e| format!("the push to {shown} failed: {e}"))?;
    if (200..300).contains(&answer.status) {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&answer.body);
    let said: String = said.lines().next().unwrap_or("").chars().take(200).collect();
    Err(format!("the Pushgateway at {shown} answered {}: {}", answer.status, crate::text::clean(&said)))
}

fn base64url(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..=c.len() {
            out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    while out.len() % 4 != 0 {
        out.push('=');
    }
    out
}

/// An OTLP/HTTP exporter: the SDK's periodic reader sends every `interval` (and once at shutdown).
pub struct Otlp {
    provider: SdkMeterProvider,
    histogram: opentelemetry::metrics::Histogram<f64>,
    last_error: Arc<Mutex<Option<String>>>,
}

/// Says what an export did: the SDK drops an exporter's errors, and a wrong URL must not be silent.
pub type Say = Arc<dyn Fn(&str) + Send + Sync>;

/// The OTLP exporter, saying when exports start failing and when they work again, and keeping the last error.
struct Watched<E> {
    inner: E,
    url: String,
    say: Say,
    last_error: Arc<Mutex<Option<String>>>,
}

impl<E: opentelemetry_sdk::metrics::exporter::PushMetricExporter> opentelemetry_sdk::metrics::exporter::PushMetricExporter for Watched<E> {
    async fn export(&self, metrics: &opentelemetry_sdk::metrics::data::ResourceMetrics) -> opentelemetry_sdk::error::OTelSdkResult {
        let result = self.inner.export(metrics).await;
        let mut last = self.last_error.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match &result {
            Err(e) => {
                let why = plain(&e.to_string());
                if last.is_none() {
                    (self.say)(&format!("the OTLP export to {} failed: {why}; trying again every interval", self.url));
                }
                *last = Some(format!("the OTLP export to {} failed: {why}", self.url));
            }
            Ok(()) => {
                if last.take().is_some() {
                    (self.say)(&format!("the OTLP export to {} works again", self.url));
                }
            }
        }
        result
    }

    fn force_flush(&self) -> opentelemetry_sdk::error::OTelSdkResult {
        self.inner.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> opentelemetry_sdk::error::OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn temporality(&self) -> Temporality {
        self.inner.temporality()
    }
}

/// The most of a collector's answer read (a collector answers an export with a few bytes).
const ANSWER_CAP: u64 = 1 << 20;

/// The families now, for the instruments' callbacks.
pub type Source = Arc<dyn Fn() -> Vec<Family> + Send + Sync>;

impl Otlp {
    /// Builds the provider and one observable instrument per family of `names` (name, unit, kind, help),
    /// each reporting the points `source` gives when the reader collects; `say` hears of failing exports.
    pub fn start(
        url: &str,
        interval: Duration,
        names: &[(&'static str, &'static str, Kind, &'static str)],
        source: Source,
        say: Say,
    ) -> Result<Otlp, String> {
        let exporter = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_endpoint(url)
            .with_timeout(Duration::from_secs(10))
            .with_http_client(crate::sources::http::ExporterClient::new(Duration::from_secs(10), ANSWER_CAP)?)
            // Delta: a gauge nobody observed since the last export is not sent (a gap, not a flat line).
            .with_temporality(Temporality::Delta)
            .build()
            .map_err(|e| format!("cannot build the OTLP exporter for {}: {e}", crate::text::redact_url(url)))?;
        let last_error: Arc<Mutex<Option<String>>> = Arc::default();
        let watched = Watched { inner: exporter, url: crate::text::redact_url(url), say, last_error: Arc::clone(&last_error) };
        let reader = PeriodicReader::builder(watched).with_interval(interval).build();
        let resource = opentelemetry_sdk::Resource::builder().with_service_name("exa").build();
        let provider = SdkMeterProvider::builder().with_reader(reader).with_resource(resource).build();
        let meter = provider.meter("exa");
        // Each instrument's callback takes the families as they are when the reader collects (every
        // interval, for microseconds) and keeps its own: no copy of the state is kept in step here.
        let snapshot = move |name: &str| -> Vec<(Vec<KeyValue>, f64)> {
            source()
                .into_iter()
                .filter(|f| f.name == name)
                .flat_map(|f| f.points)
                .filter_map(|p| match p.value {
                    Value::Number(v) => Some((p.attributes.iter().map(|(k, v)| KeyValue::new(*k, v.clone())).collect(), v)),
                    Value::Histogram(_) => None,
                })
                .collect()
        };
        let snapshot = Arc::new(snapshot);
        let mut histogram = None;
        for &(name, unit, kind, help) in names {
            let read = Arc::clone(&snapshot);
            match kind {
                Kind::Gauge => {
                    meter
                        .f64_observable_gauge(name)
                        .with_unit(unit)
                        .with_description(help)
                        .with_callback(move |o| read(name).iter().for_each(|(attrs, v)| o.observe(*v, attrs)))
                        .build();
                }
                Kind::UpDownCounter => {
                    meter
                        .f64_observable_up_down_counter(name)
                        .with_unit(unit)
                        .with_description(help)
                        .with_callback(move |o| read(name).iter().for_each(|(attrs, v)| o.observe(*v, attrs)))
                        .build();
                }
                Kind::Counter => {
                    meter
                        .f64_observable_counter(name)
                        .with_unit(unit)
                        .with_description(help)
                        .with_callback(move |o| read(name).iter().for_each(|(attrs, v)| o.observe(*v, attrs)))
                        .build();
                }
                Kind::Histogram => {
                    let bounds = crate::sources::gpu::collector::POWER_BOUNDS_W.to_vec();
                    histogram = Some(meter.f64_histogram(name).with_unit(unit).with_description(help).with_boundaries(bounds).build());
                }
            }
        }
        let histogram = histogram.unwrap_or_else(|| meter.f64_histogram("unused").build());
        Ok(Otlp { provider, histogram, last_error })
    }

    /// Records one power reading into the histogram.
    pub fn record(&self, watts: f64, attributes: &[(&'static str, String)]) {
        let attrs: Vec<KeyValue> = attributes.iter().map(|(k, v)| KeyValue::new(*k, v.clone())).collect();
        self.histogram.record(watts, &attrs);
    }

    /// Sends what is left and stops, for an exporter whose failures were said as they came: what has not
    /// been said yet (the export at shutdown failing without an answer, a shutdown that timed out).
    pub fn shutdown_unsaid(&self) -> Option<String> {
        let stopped = self.provider.shutdown();
        let said = self.last_error.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take().is_some();
        match stopped {
            Err(e) if !said => Some(format!("the last OTLP export, at shutdown, failed: {}", plain(&e.to_string()))),
            _ => None,
        }
    }

    /// Sends what is left (the reader's last collection) and stops; a failure is returned to be said.
    pub fn shutdown(&self) -> Result<(), String> {
        let stopped = self.provider.shutdown();
        // The export's own error says what went wrong; the provider's only that shutting down did.
        if let Some(e) = self.last_error.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take() {
            return Err(e);
        }
        stopped.map_err(|e| format!("the last OTLP export failed: {e}"))
    }
}

/// An exporter's error in a few plain words, with no URL in it (a URL may carry a secret).
fn plain(e: &str) -> String {
    let lower = e.to_ascii_lowercase();
    if lower.contains("connection refused") || lower.contains("connectionrefused") {
        return "cannot connect (connection refused)".into();
    }
    if lower.contains("timed out") || lower.contains("timedout") || lower.contains("timeout") {
        return "no answer in time".into();
    }
    if lower.contains("dns error") || lower.contains("failed to lookup") {
        return "cannot resolve the host".into();
    }
    let words: Vec<String> = e.split_whitespace().map(|w| if w.contains("://") { "<url>".to_string() } else { w.to_string() }).collect();
    crate::text::clean(&words.join(" ").chars().take(200).collect::<String>())
}

#[cfg(test)]
mod tests {
    #[test]
    fn export_errors_lose_their_urls() {
        let e = "Operation failed: reqwest::Error { kind: Request, url: \"http://u:secret@h:1/v1/metrics\", source: ConnectError(\"tcp connect error\", Os { code: 111, kind: ConnectionRefused }) }";
        assert_eq!(super::plain(e), "cannot connect (connection refused)");
        let s = super::plain("OpenTelemetry metrics export failed. Url: http://u:secret@h:1/v1/metrics, Status Code: 404");
        assert!(!s.contains("secret") && s.contains("404"), "{s}");
    }

    use super::*;

    #[test]
    fn base64url_as_the_pushgateway_reads_it() {
        assert_eq!(base64url(b"run/1"), "cnVuLzE=");
        assert_eq!(base64url(b"ab"), "YWI=");
        assert_eq!(base64url(b""), "");
    }
}
