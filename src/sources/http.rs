//! The one HTTP client: rustls with ring, a deadline for the whole exchange,
//! a capped body, and URLs shown only with their secrets hidden.
//!
//! A per-read timeout lets a server that trickles its body hold exa for as
//! long as it likes; here the deadline covers connecting, the headers and
//! the whole body, and a request still running when it passes is abandoned.

use std::io::Read;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A request to make: a GET, or a POST when it carries a JSON body.
#[derive(Debug, Clone)]
pub struct Request {
    /// The URL, secrets and all; it never appears in an error.
    pub url: String,
    /// Query parameters to add, encoded by the client.
    pub query: Vec<(String, String)>,
    /// Extra headers (`Accept`, an API key's header).
    pub headers: Vec<(&'static str, String)>,
    /// A bearer token for `Authorization`.
    pub bearer: Option<String>,
    /// The whole exchange must end within this.
    pub deadline: Duration,
    /// The largest body read; a larger one is an error.
    pub max_body: u64,
    /// A JSON body: the request is then a POST.
    pub json: Option<String>,
    /// A user name and password for basic authentication.
    pub basic: Option<(String, String)>,
    /// Accept any TLS certificate (only where a user asked for it, as MLFLOW_TRACKING_INSECURE_TLS does).
    pub insecure: bool,
    /// A body to PUT, with its content type: the request is then a PUT.
    pub put: Option<(&'static str, String)>,
    /// The only certificate authority trusted (PEM), in place of the web's: a cluster's own API server.
    pub ca_pem: Option<std::sync::Arc<Vec<u8>>>,
}

impl Request {
    /// A GET of `url` with a deadline and a body cap, and nothing else set.
    pub fn new(url: impl Into<String>, deadline: Duration, max_body: u64) -> Request {
        Request {
            url: url.into(),
            query: Vec::new(),
            headers: Vec::new(),
            bearer: None,
            deadline,
            max_body,
            json: None,
            basic: None,
            insecure: false,
            put: None,
            ca_pem: None,
        }
    }
}

/// What came back.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The HTTP status code.
    pub status: u16,
    /// The `Retry-After` header, when there was one.
    pub retry_after: Option<String>,
    /// The body, at most `max_body` bytes.
    pub body: Vec<u8>,
}

/// Why there is no answer, in words that never carry the URL.
#[derive(Debug, Clone, PartialEq)]
pub enum HttpError {
    /// The deadline passed.
    Timeout(Duration),
    /// No connection could be made.
    Connect(String),
    /// The body is over the cap.
    TooLarge(u64),
    /// Anything else.
    Other(String),
}

impl std::fmt::Display for HttpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HttpError::Timeout(d) => write!(f, "no answer within {:.1} s", d.as_secs_f64()),
            HttpError::Connect(why) => write!(f, "cannot connect ({why})"),
            HttpError::TooLarge(cap) => write!(f, "the body is larger than {cap} bytes"),
            HttpError::Other(why) => f.write_str(why),
        }
    }
}

/// `base` with `path` (segments split on `/`, each encoded as one) appended to its path; its query and fragment
/// stay after it, where they belong (`http://h/base?token=T` + `metrics` is `http://h/base/metrics?token=T`).
pub fn with_path(base: &str, path: &[&str]) -> Result<String, String> {
    let mut url = reqwest::Url::parse(base).map_err(|e| format!("'{}' is not a URL ({e})", crate::text::redact_url(base)))?;
    {
        let mut segments =
            url.path_segments_mut().map_err(|()| format!("'{}' is not a URL a path can follow", crate::text::redact_url(base)))?;
        segments.pop_if_empty();
        for p in path {
            segments.extend(p.split('/').filter(|s| !s.is_empty()));
        }
    }
    Ok(url.to_string())
}

/// Makes the request, all of it within `req.deadline`.
pub fn send(req: Request) -> Result<Answer, HttpError> {
    let deadline = req.deadline;
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .name("exa-http".into())
        .spawn(move || {
            let _ = tx.send(exchange(&req));
        })
        .map_err(|e| HttpError::Other(format!("cannot start a request: {e}")))?;
    match rx.recv_timeout(deadline) {
        Ok(answer) => {
            let _ = worker.join();
            answer
        }
        // The worker is left to end on its own; its socket closes with it.
        Err(_) => Err(HttpError::Timeout(deadline)),
    }
}

/// One client for the process: its connection pool and TLS set-up are
/// shared by every request (a client per request costs a runtime thread and
/// a TLS configuration each time).
fn client(insecure: bool) -> Result<&'static reqwest::blocking::Client, HttpError> {
    static CLIENT: std::sync::OnceLock<Result<reqwest::blocking::Client, String>> = std::sync::OnceLock::new();
    static INSECURE: std::sync::OnceLock<Result<reqwest::blocking::Client, String>> = std::sync::OnceLock::new();
    (if insecure { &INSECURE } else { &CLIENT })
        .get_or_init(|| {
            let _ = rustls::crypto::ring::default_provider().install_default();
            reqwest::blocking::Client::builder()
                .danger_accept_invalid_certs(insecure)
                .redirect(same_origin_redirects())
                .user_agent(concat!("exa/", env!("CARGO_PKG_VERSION")))
                .build()
                .map_err(|e| format!("cannot build an HTTP client: {}", strip_url(&e.to_string())))
        })
        .as_ref()
        .map_err(|e| HttpError::Other(e.clone()))
}

/// A client that trusts only the certificate authority `pem` (a cluster's API server signs with its own).
fn client_trusting(pem: &[u8]) -> Result<reqwest::blocking::Client, HttpError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let ca = reqwest::Certificate::from_pem(pem).map_err(|e| HttpError::Other(format!("the certificate authority is not PEM ({e})")))?;
    reqwest::blocking::Client::builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(ca)
        .redirect(same_origin_redirects())
        .user_agent(concat!("exa/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| HttpError::Other(format!("cannot build an HTTP client: {}", strip_url(&e.to_string()))))
}

/// Redirects: at most three, and only within the origin asked (scheme, host and port). A key exa sends in a
/// header of its own (Electricity Maps' `auth-token`, a tenant's header) is never carried to another host:
/// reqwest itself drops only `Authorization` and cookies there.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        if attempt.previous().len() > 3 {
            return attempt.error("more than three redirects");
        }
        let same = attempt.previous().first().is_none_or(|first| {
            let to = attempt.url();
            first.scheme() == to.scheme()
                && first.host_str() == to.host_str()
                && first.port_or_known_default() == to.port_or_known_default()
        });
        if same {
            attempt.follow()
        } else {
            attempt.error("it redirects to another host, and exa sends what it was given only where it was told")
        }
    })
}

/// The HTTP client of the OpenTelemetry exporter (which takes one by value): exa's TLS set-up and deadline,
/// the collector's answer read to at most `cap` bytes, and failures in plain words without the URL.
#[derive(Debug)]
pub struct ExporterClient {
    inner: reqwest::blocking::Client,
    cap: u64,
    timeout: Duration,
}

impl ExporterClient {
    /// A client whose every exchange ends within `timeout`, reading at most `cap` bytes of an answer.
    pub fn new(timeout: Duration, cap: u64) -> Result<ExporterClient, String> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let inner = reqwest::blocking::Client::builder()
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("exa/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("cannot build an HTTP client: {}", strip_url(&e.to_string())))?;
        Ok(ExporterClient { inner, cap, timeout })
    }
}

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for ExporterClient {
    async fn send_bytes(
        &self,
        request: opentelemetry_http::Request<opentelemetry_http::Bytes>,
    ) -> Result<opentelemetry_http::Response<opentelemetry_http::Bytes>, opentelemetry_http::HttpError> {
        let request: reqwest::blocking::Request = request.try_into().map_err(|e: reqwest::Error| plain(&e, self.timeout))?;
        let response = self.inner.execute(request).map_err(|e| plain(&e, self.timeout))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("the collector answered HTTP {}", status.as_u16()).into());
        }
        let headers = response.headers().clone();
        if response.content_length().is_some_and(|n| n > self.cap) {
            return Err(HttpError::TooLarge(self.cap).to_string().into());
        }
        let mut body = Vec::new();
        response.take(self.cap + 1).read_to_end(&mut body).map_err(|e| format!("reading the answer failed: {e}"))?;
        if body.len() as u64 > self.cap {
            return Err(HttpError::TooLarge(self.cap).to_string().into());
        }
        let mut answer = opentelemetry_http::Response::builder().status(status).body(opentelemetry_http::Bytes::from(body))?;
        *answer.headers_mut() = headers;
        Ok(answer)
    }
}

/// A reqwest error as exa says it: no URL, no debug dump.
fn plain(e: &reqwest::Error, timeout: Duration) -> opentelemetry_http::HttpError {
    describe(e, timeout).to_string().into()
}

fn exchange(get: &Request) -> Result<Answer, HttpError> {
    let started = Instant::now();
    let own;
    let c = match &get.ca_pem {
        Some(pem) => {
            own = client_trusting(pem)?;
            &own
        }
        None => client(get.insecure)?,
    };
    let mut req = match (&get.json, &get.put) {
        (_, Some((kind, body))) => c.put(&get.url).header("content-type", *kind).body(body.clone()),
        (Some(body), None) => c.post(&get.url).header("content-type", "application/json").body(body.clone()),
        (None, None) => c.get(&get.url),
    }
    .timeout(get.deadline);
    if !get.query.is_empty() {
        req = req.query(&get.query);
    }
    for (k, v) in &get.headers {
        req = req.header(*k, v);
    }
    if let Some(t) = &get.bearer {
        req = req.bearer_auth(t);
    }
    if let Some((user, password)) = &get.basic {
        req = req.basic_auth(user, Some(password));
    }
    let resp = req.send().map_err(|e| describe(&e, get.deadline))?;
    let status = resp.status().as_u16();
    let retry_after = resp.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_string);
    if resp.content_length().is_some_and(|n| n > get.max_body) {
        return Err(HttpError::TooLarge(get.max_body));
    }
    let mut body = Vec::new();
    let mut reader = resp.take(get.max_body + 1);
    let mut chunk = [0u8; 16 * 1024];
    loop {
        if started.elapsed() >= get.deadline {
            return Err(HttpError::Timeout(get.deadline));
        }
        match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => body.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            // The client's own timeout can fire inside a read, just before the check above would: the same deadline.
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut || started.elapsed() >= get.deadline => {
                return Err(HttpError::Timeout(get.deadline))
            }
            Err(e) => return Err(HttpError::Other(format!("reading the body failed: {}", strip_url(&e.to_string())))),
        }
    }
    if body.len() as u64 > get.max_body {
        return Err(HttpError::TooLarge(get.max_body));
    }
    Ok(Answer { status, retry_after, body })
}

/// A reqwest error in words, without the URL it carries (which may hold secrets).
fn describe(e: &reqwest::Error, deadline: Duration) -> HttpError {
    if e.is_timeout() {
        return HttpError::Timeout(deadline);
    }
    if e.is_connect() {
        let mut cause = String::new();
        let mut src = std::error::Error::source(e);
        while let Some(s) = src {
            cause = s.to_string();
            src = s.source();
        }
        return HttpError::Connect(cause);
    }
    if e.is_redirect() {
        let why = std::error::Error::source(e).map_or_else(|| "redirect not followed".to_string(), ToString::to_string);
        return HttpError::Other(format!("redirect not followed: {why}"));
    }
    let mut words = e.to_string();
    if let Some(u) = e.url() {
        words = words.replace(u.as_str(), &crate::text::redact_url(u.as_str()));
    }
    HttpError::Other(strip_url(&words))
}

fn strip_url(s: &str) -> String {
    s.split(" for url (").next().unwrap_or(s).to_string()
}

#[cfg(test)]
mod tests {
    use crate::text::redact_url as redact;

    #[test]
    fn paths_go_before_the_query() {
        assert_eq!(
            super::with_path("http://h:9/base?token=T", &["metrics/job@base64", "ZXhh"]).unwrap(),
            "http://h:9/base/metrics/job@base64/ZXhh?token=T"
        );
        assert_eq!(super::with_path("http://h/", &["api/2.0/mlflow", "runs/log-batch"]).unwrap(), "http://h/api/2.0/mlflow/runs/log-batch");
        assert_eq!(super::with_path("http://h/x/#f", &["v1/metrics"]).unwrap(), "http://h/x/v1/metrics#f");
        assert!(super::with_path("not a url", &["x"]).is_err());
    }

    #[test]
    fn a_password_holding_url_characters_is_hidden_whole() {
        assert_eq!(redact("postgres://u:p@ss@host/db"), "postgres://REDACTED@host/db");
        assert_eq!(
            redact("postgres://u:a/b?c#d@host:5432/db?password=x&sslmode=require"),
            "postgres://REDACTED@host:5432/db?password=REDACTED&sslmode=require"
        );
        assert_eq!(redact("postgres://exa@host/db"), "postgres://REDACTED@host/db");
    }

    #[test]
    fn every_kind_of_url_secret_is_hidden() {
        assert_eq!(redact("https://x/y?zone=FR&auth-token=abc&api_key=k"), "https://x/y?zone=FR&auth-token=REDACTED&api_key=REDACTED");
        assert_eq!(redact("https://x/y"), "https://x/y");
        assert_eq!(redact("http://user:pass@host:9090/p"), "http://REDACTED@host:9090/p");
        assert_eq!(redact("http://host/p?pass=hunter2&zone=a"), "http://host/p?pass=REDACTED&zone=a");
        assert_eq!(redact("http://host/p?code=123"), "http://host/p?code=REDACTED");
        assert_eq!(redact("http://host/p;token=abc?x=1"), "http://host/p;token=REDACTED?x=1");
        assert_eq!(redact("http://host/p#token=abc"), "http://host/p#token=REDACTED");
        assert_eq!(redact("http://host/p?a=1;token=abc"), "http://host/p?a=1;token=REDACTED");
        assert_eq!(redact("http://host/a@b"), "http://host/a@b", "an @ in the path is not user info");
    }
}
