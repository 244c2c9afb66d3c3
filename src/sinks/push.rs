//! A measured run's totals, sent once at its end: to a Pushgateway and/or
//! over OTLP. A failure is a warning and a field of the answer, never the
//! run's failure: the run and its records already happened.

use std::sync::Arc;
use std::time::Duration;

use super::catalog::{run_totals, RunEnergy};
use super::exporters;
use crate::model::measurement::Pushed;
use crate::settings::Reading;

/// Sends a measured run's totals once, to a Pushgateway and/or over OTLP; a failure is a warning and a field.
pub fn run(settings: &Reading<'_>, gateway: Option<&str>, energy: RunEnergy, job: &str, run_id: Option<&str>) -> Vec<Pushed> {
    let cfg = &settings.telemetry;
    let mut labels: Vec<(&'static str, String)> = vec![("job", job.to_string())];
    if let Some(r) = run_id {
        labels.push(("run_id", r.to_string()));
    }
    let mut out = Vec::new();
    if energy.gpu.is_none() && energy.cpu.is_none() && (gateway.is_some() || cfg.otlp.is_some()) {
        settings.warn("nothing was pushed: no GPU or CPU energy was measured".to_string());
        return out;
    }
    if let Some(url) = gateway {
        let mut grouping = vec![("job", job.to_string()), ("instance", crate::store::hostname())];
        if let Some(r) = run_id {
            grouping.push(("run_id", r.to_string()));
        }
        // The grouping key carries job, instance and run id: the points need no labels of their own.
        let fams = run_totals(energy, cfg, &[]);
        let error = exporters::push_gateway(url, &grouping, fams, Duration::from_secs(10)).err();
        if let Some(e) = &error {
            settings.warn(e.clone());
        }
        out.push(Pushed { to: "pushgateway", url: crate::text::redact_url(url), error });
    }
    if let Some(url) = &cfg.otlp {
        let fams = run_totals(energy, cfg, &labels);
        let list: Vec<_> = fams.iter().map(|f| (f.name, f.unit, f.kind, f.help)).collect();
        let source: exporters::Source = Arc::new(move || fams.clone());
        // One export, at shutdown: the interval only has to be longer than the run's end.
        // The one export's failure comes back from shutdown, and is said once, below.
        let quiet: exporters::Say = Arc::new(|_: &str| {});
        let sent = exporters::Otlp::start(&url.value, Duration::from_secs(3600), &list, source, quiet).and_then(|o| o.shutdown());
        let error = sent.err();
        if let Some(e) = &error {
            settings.warn(e.clone());
        }
        out.push(Pushed { to: "otlp", url: crate::text::redact_url(&url.value), error });
    }
    out
}
