//! The work an inference server did beside the GPUs: read from its
//! Prometheus endpoint at a run's start and end (`measure --tokens-from
//! URL`), the counters' increase, or every interval for the GPUs' energy
//! per token (`gpu serve --tokens-from URL`). Never a guess: a server that
//! cannot be read at the start refuses (the caller says so); one that
//! cannot be read at the end leaves the run without a token count, said in
//! its report.

use std::time::Duration;

use super::http;
use super::inference::{self, Counters, Server};
use crate::model::energy::Kwh;
use crate::model::{MeasuredWork, Work, MAX_WORK};
use crate::num::tidy;
use crate::text::redact_url;

/// How long one scrape may take, all of it.
const DEADLINE: Duration = Duration::from_secs(10);
/// The largest exposition read (a server with many models and histograms is a few hundred kB).
const MAX_BODY: u64 = 16 << 20;

/// Reads the server every `every` until `stop`, putting its tokens and the GPUs' energy per token over
/// each interval into `state` (`gpu serve --tokens-from`). The energy is the collector's, from the GPUs'
/// energy counters where they have them. A reading that fails leaves a gap and is said once until one works.
pub fn watch(
    scrape: Scrape,
    every: Duration,
    state: std::sync::Arc<std::sync::Mutex<crate::sources::gpu::collector::Collected>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    warn: Box<dyn Fn(&str) + Send>,
) -> std::thread::JoinHandle<()> {
    use std::sync::atomic::Ordering;
    std::thread::spawn(move || {
        let joules_now = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner).total().map(|j| j.0);
        let mut before = (scrape.start.clone(), joules_now);
        let mut failing = false;
        state.lock().unwrap_or_else(std::sync::PoisonError::into_inner).tokens = Some(Default::default());
        while !stop.load(Ordering::Relaxed) {
            let waited = std::time::Instant::now();
            while waited.elapsed() < every && !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(20).min(every));
            }
            let read_at = read(&scrape.url, scrape.model.as_deref()).and_then(|c| inference::increase(&before.0, &c).map(|i| (c, i)));
            let mut s = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let joules = s.total().map(|j| j.0);
            let t = s.tokens.get_or_insert_with(Default::default);
            match read_at {
                Ok((now, inc)) if !(0.0..=MAX_WORK).contains(&inc.tokens) => {
                    // A counter that grew (or restarted at) more than one run's work is no count: not added.
                    warn(&format!(
                        "--tokens-from {}: the token counter grew by more than {MAX_WORK:e} in one interval: not counted",
                        redact_url(&scrape.url)
                    ));
                    t.j_per_token = None;
                    before = (now, joules);
                }
                Ok((now, inc)) => {
                    failing = false;
                    t.total += inc.tokens;
                    let spent = joules.zip(before.1).map(|(b, a)| b - a);
                    // A quotient that does not fit a number (a vanishing count after a reset) is none, never infinity.
                    t.j_per_token = spent.filter(|_| inc.tokens >= 1.0).map(|j| j / inc.tokens).filter(|q| q.is_finite()).map(tidy);
                    before = (now, joules);
                }
                Err(e) => {
                    t.j_per_token = None;
                    if !failing {
                        warn(&format!("--tokens-from {}: {e}; no energy per token until it answers", redact_url(&scrape.url)));
                    }
                    failing = true;
                }
            }
        }
    })
}

/// A server's counters read at the run's start.
pub struct Scrape {
    url: String,
    model: Option<String>,
    start: Counters,
}

fn read(url: &str, model: Option<&str>) -> Result<Counters, String> {
    let answer = http::send(http::Request::new(url, DEADLINE, MAX_BODY)).map_err(|e| e.to_string())?;
    if answer.status != 200 {
        return Err(format!("HTTP {}", answer.status));
    }
    let text = std::str::from_utf8(&answer.body).map_err(|_| "the exposition is not UTF-8 text".to_string())?;
    inference::parse(text, model)
}

/// Reads the counters at the start (of an HTTP URL the caller checked); why a server that does not answer
/// with an inference server's counters cannot be read.
pub fn start(url: &str, model: Option<&str>) -> Result<Scrape, String> {
    let start = read(url, model)?;
    let counts = [Some(start.tokens), start.prompt_tokens, start.requests];
    if counts.iter().flatten().any(|v| !v.is_finite()) {
        return Err("its counters sum to more than a number holds".into());
    }
    Ok(Scrape { url: url.to_string(), model: model.map(str::to_string), start })
}

impl Scrape {
    /// The tokens and requests served since the start scrape, read now (a window's edge, `measure --serve`).
    pub fn so_far(&self) -> Result<(f64, Option<f64>), String> {
        let inc = read(&self.url, self.model.as_deref()).and_then(|now| inference::increase(&self.start, &now))?;
        Ok((inc.tokens, inc.requests))
    }
}

fn server_name(s: Server) -> &'static str {
    match s {
        Server::Vllm => "vllm",
        Server::Tgi => "tgi",
        Server::Sglang => "sglang",
    }
}

/// The run's work: the flags' counts, or the counters' increase since `start`, and how it was found (None
/// when neither was given).
pub fn counted(scrape: Option<Scrape>, given: &Work, gpu_kwh: Option<f64>) -> (Work, Option<MeasuredWork>) {
    let per_token = |work: &Work| work.tokens.filter(|t| *t > 0.0).zip(gpu_kwh).map(|(t, kwh)| tidy(Kwh(kwh).joules().0 / t));
    let Some(s) = scrape else {
        if given.is_empty() {
            return (Work::default(), None);
        }
        let m = MeasuredWork {
            work: given.clone(),
            source: "flags",
            server: None,
            url: None,
            reset: false,
            gpu_j_per_token: per_token(given),
            error: None,
        };
        return (given.clone(), Some(m));
    };
    let shown = redact_url(&s.url);
    let end = read(&s.url, s.model.as_deref()).and_then(|end| inference::increase(&s.start, &end));
    let mut m = MeasuredWork {
        work: Work { unit: given.unit.clone(), ..Work::default() },
        source: "scrape",
        server: Some(server_name(s.start.server)),
        url: Some(shown),
        reset: false,
        gpu_j_per_token: None,
        error: None,
    };
    match end {
        Ok(inc) if [Some(inc.tokens), inc.prompt_tokens, inc.requests].iter().flatten().any(|v| !(0.0..=MAX_WORK).contains(v)) => {
            m.error = Some(format!("the counters grew by more than {MAX_WORK:e} during the run: not one run's work"));
        }
        Ok(inc) => {
            m.work.tokens = Some(tidy(inc.tokens));
            m.work.prompt_tokens = inc.prompt_tokens.map(tidy);
            m.work.requests = inc.requests.map(tidy);
            m.reset = inc.reset;
            m.gpu_j_per_token = per_token(&m.work);
        }
        Err(e) => m.error = Some(format!("the counters could not be read at the run's end: {e}")),
    }
    (m.work.clone(), Some(m))
}
