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
                .redirect(reqwest::redirect::Policy::limited(3))
                .user_agent(concat!("exa/", env!("CARGO_PKG_VERSION")))
                .build()
                .map_err(|e| format!("cannot build an HTTP client: {}", strip_url(&e.to_string())))
        })
        .as_ref()
        .map_err(|e| HttpError::Other(e.clone()))
}

/// A client of its own for the OpenTelemetry exporter (which takes one by value), with exa's TLS set-up.
pub fn exporter_client(timeout: Duration) -> Result<reqwest::blocking::Client, String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::blocking::Client::builder()
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("exa/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {}", strip_url(&e.to_string())))
}

fn exchange(get: &Request) -> Result<Answer, HttpError> {
    let started = Instant::now();
    let c = client(get.insecure)?;
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
    let mut words = e.to_string();
    if let Some(u) = e.url() {
        words = words.replace(u.as_str(), &redact(u.as_str()));
    }
    HttpError::Other(strip_url(&words))
}

fn strip_url(s: &str) -> String {
    s.split(" for url (").next().unwrap_or(s).to_string()
}

/// Whether a query or fragment parameter's name looks like it holds a secret.
fn secret_key(k: &str) -> bool {
    let k = k.to_ascii_lowercase();
    ["token", "key", "auth", "secret", "pass", "pwd", "sig", "credential", "code", "session", "jwt", "bearer"].iter().any(|s| k.contains(s))
}

/// The URL as exa shows or stores it: user and password removed, and the
/// values of secret-looking parameters in the query, the path's `;params`
/// and the fragment hidden.
pub fn redact(url: &str) -> String {
    let (before_frag, frag) = match url.split_once('#') {
        Some((a, f)) => (a, Some(f)),
        None => (url, None),
    };
    let (before_query, query) = match before_frag.split_once('?') {
        Some((a, q)) => (a, Some(q)),
        None => (before_frag, None),
    };
    let mut out = strip_userinfo(before_query);
    out = redact_params(&out, ';');
    if let Some(q) = query {
        out.push('?');
        out.push_str(&redact_pairs(q, &['&', ';']));
    }
    if let Some(f) = frag {
        out.push('#');
        out.push_str(&redact_pairs(f, &['&', ';']));
    }
    out
}

fn strip_userinfo(s: &str) -> String {
    let Some(scheme_end) = s.find("://") else { return s.to_string() };
    let rest = &s[scheme_end + 3..];
    let auth_end = rest.find('/').unwrap_or(rest.len());
    match rest[..auth_end].rfind('@') {
        Some(at) => format!("{}://REDACTED@{}", &s[..scheme_end], &rest[at + 1..]),
        None => s.to_string(),
    }
}

/// Hides `;name=value` path parameters whose names look secret.
fn redact_params(s: &str, sep: char) -> String {
    let mut parts = s.split(sep);
    let first = parts.next().unwrap_or_default().to_string();
    parts.fold(first, |mut acc, p| {
        acc.push(sep);
        acc.push_str(&redact_pair(p));
        acc
    })
}

fn redact_pairs(s: &str, seps: &[char]) -> String {
    let mut out = String::with_capacity(s.len());
    let mut cur = String::new();
    for c in s.chars() {
        if seps.contains(&c) {
            out.push_str(&redact_pair(&cur));
            out.push(c);
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    out.push_str(&redact_pair(&cur));
    out
}

fn redact_pair(kv: &str) -> String {
    match kv.split_once('=') {
        Some((k, _)) if secret_key(k) => format!("{k}=REDACTED"),
        _ => kv.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

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
