//! `exa mcp`: exa's read-only tools for AI agents, over the Model Context
//! Protocol, through the official Rust SDK (`rmcp`).
//!
//! stdio by default (a local agent or IDE starts `exa mcp`); `--listen ADDR`
//! serves streamable HTTP at `/mcp`, loopback unless told otherwise, and
//! every request must carry the bearer token. Each call runs on a blocking
//! thread of its own, so a slow Prometheus never holds up another call.

pub mod params;
pub mod tools;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::cli::Cli;
use crate::error::Error;
use crate::settings::Settings;

/// The server: the command line it was started with, from which each call resolves its settings.
#[derive(Clone)]
pub struct Exa {
    cli: Arc<Cli>,
    slow: Arc<Slow>,
    /// The clusters configured when the server started: what an organization-wide query weighs.
    clusters: usize,
}

/// The calls that wait on something outside (a cluster's Prometheus, the ledger, the GPUs): at most
/// `SLOW_RUNNING` requests at once, `SLOW_WAITING` more queued, and any beyond answered "busy" at once. A
/// call weighs the requests it makes: one, or a `metrics_query` without a cluster one per cluster it fans out
/// to (at most `SLOW_RUNNING`). Estimates and listings never queue behind them.
struct Slow {
    running: tokio::sync::Semaphore,
    waiting: std::sync::atomic::AtomicUsize,
}

/// Slow calls run at once.
const SLOW_RUNNING: usize = 16;
/// Slow calls queued behind them before a call is refused as busy.
const SLOW_WAITING: usize = 64;

impl Exa {
    fn new(cli: Cli, clusters: usize) -> Exa {
        Exa {
            clusters,
            cli: Arc::new(cli),
            slow: Arc::new(Slow { running: tokio::sync::Semaphore::new(SLOW_RUNNING), waiting: std::sync::atomic::AtomicUsize::new(0) }),
        }
    }
}

impl ServerHandler for Exa {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("exa", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "exa's read-only tools: cluster telemetry and flags (metrics_read, metrics_query, metrics_clusters), energy, \
                 carbon and cost estimates and providers (finops_estimate, finops_providers), stored-record totals \
                 (finops_report) and this host's GPUs (gpu_read). Answers are exa's JSON; unknown values are null, never 0.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list()))
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        tools::list().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(&self, request: CallToolRequestParams, _context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        let Some(name) = tools::Name::of(&request.name) else {
            return Err(ErrorData::invalid_params(format!("no tool '{}'", crate::text::clean(&request.name)), None));
        };
        let cli = Arc::clone(&self.cli);
        let args = request.arguments.unwrap_or_default();
        let _permit = if name.waits_outside() {
            use std::sync::atomic::Ordering;
            let org_wide = name == tools::Name::MetricsQuery && args.get("cluster").is_none_or(serde_json::Value::is_null);
            let weight = if org_wide { self.clusters.clamp(1, SLOW_RUNNING) } else { 1 };
            if self.slow.waiting.fetch_add(weight, Ordering::SeqCst) + weight > SLOW_WAITING {
                self.slow.waiting.fetch_sub(weight, Ordering::SeqCst);
                return Ok(tools::busy(SLOW_RUNNING + SLOW_WAITING).into());
            }
            let permit = self.slow.running.acquire_many(u32::try_from(weight).unwrap_or(1)).await;
            self.slow.waiting.fetch_sub(weight, Ordering::SeqCst);
            permit.ok()
        } else {
            None
        };
        let result = tokio::task::spawn_blocking(move || tools::call(&cli, name, &args))
            .await
            .unwrap_or_else(|e| tools::refusal(&Error::Failed(format!("the call did not finish: {e}"))));
        Ok(result.into())
    }
}

/// Resolves when SIGTERM or SIGINT arrives.
async fn stop_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = term => {}
    }
}

/// Runs the server until the client leaves (stdio) or a signal stops it.
pub fn serve(cli: Cli, listen: Option<&str>, settings: &Settings) -> Result<ExitCode, Error> {
    let token = match listen {
        Some(_) => Some(settings.mcp_token()?),
        None => None,
    };
    let addr: Option<SocketAddr> = listen
        .map(|l| {
            l.parse()
                .map_err(|_| Error::Usage(format!("--listen '{}': not a host:port address such as 127.0.0.1:8765", crate::text::clean(l))))
        })
        .transpose()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::Failed(format!("cannot start the MCP server: {e}")))?;
    let server = Exa::new(cli, settings.config.clusters.len());
    let hosts = settings.config.mcp.allowed_hosts.clone();
    runtime.block_on(async move {
        match (addr, token) {
            (Some(addr), Some((token, var))) => http(server, addr, token, &var, hosts).await,
            _ => stdio(server).await,
        }
    })?;
    // Blocking calls still running (a slow Prometheus) are not waited for.
    runtime.shutdown_background();
    Ok(ExitCode::SUCCESS)
}

/// How long in-flight calls may still answer once the client has closed stdin.
const AFTER_EOF: Duration = Duration::from_millis(500);

/// Room in each pipe between the lines read and written and the MCP service.
const PIPE: usize = 1 << 20;

/// The most requests passed to the service and not yet answered: past it, stdin is not read, so a client that
/// sends faster than exa answers (or reads nothing) never makes exa hold more than this many calls. Room for every
/// slow call held (running and queued) and as many more, so a fast call is never kept waiting behind them.
const IN_FLIGHT: usize = 2 * (SLOW_RUNNING + SLOW_WAITING);

/// Whether a line is a request (a method and an id), which the service answers, or an answer (an id and a result
/// or an error), which ends a request; None for anything else (a notification, text that is not JSON).
fn kind_of(line: &[u8]) -> Option<bool> {
    #[derive(serde::Deserialize)]
    struct Message {
        id: Option<serde::de::IgnoredAny>,
        method: Option<serde::de::IgnoredAny>,
        result: Option<serde::de::IgnoredAny>,
        error: Option<serde::de::IgnoredAny>,
    }
    let m: Message = serde_json::from_slice(line).ok()?;
    m.id.as_ref()?;
    if m.method.is_some() {
        Some(true)
    } else if m.result.is_some() || m.error.is_some() {
        Some(false)
    } else {
        None
    }
}

async fn stdio(server: Exa) -> Result<(), Error> {
    let flow = Arc::new(Flow::default());
    let (stdin, stdout) =
        (In { inner: tokio::io::stdin(), flow: Arc::clone(&flow) }, Out { inner: tokio::io::stdout(), flow: Arc::clone(&flow) });
    // The service reads its requests and writes its answers through pipes of exa's own, a line at a time: a
    // request that is JSON no number type holds (1e400) gets JSON-RPC's parse error, where the SDK would drop it.
    let (to_service, service_in) = tokio::io::duplex(PIPE);
    let (service_out, from_service) = tokio::io::duplex(PIPE);
    let (answers, answered) = tokio::sync::mpsc::channel::<Vec<u8>>(64);
    let (refusals, refused) = tokio::sync::mpsc::channel::<Vec<u8>>(64);
    let in_flight = Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
    tokio::spawn(requests(stdin, to_service, refusals, Arc::clone(&in_flight)));
    tokio::spawn(lines_of(from_service, answers, in_flight));
    let writer = tokio::spawn(write_out(answered, refused, stdout));
    let ended = serve_stdio(server, (service_in, service_out), &flow).await;
    // What the service answered last is written before exa exits.
    let _ = tokio::time::timeout(AFTER_EOF, writer).await;
    ended
}

/// Passes each request line on to the service; one that is JSON by its grammar but holds a number no number
/// type holds (`1e400`) is answered here with a parse error (-32700), its id kept where it can be read. Text
/// that is not JSON at all is passed on, for the service to ignore as every official SDK does.
async fn requests(
    stdin: In,
    mut to_service: tokio::io::DuplexStream,
    refusals: tokio::sync::mpsc::Sender<Vec<u8>>,
    in_flight: Arc<tokio::sync::Semaphore>,
) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let mut input = tokio::io::BufReader::new(stdin);
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if let Some(refusal) = out_of_range(&line) {
            if refusals.send(refusal).await.is_err() {
                break;
            }
            continue;
        }
        // A request waits for room among the calls in flight; its answer makes room again (`lines_of`).
        if kind_of(&line) == Some(true) {
            match in_flight.acquire().await {
                Ok(permit) => permit.forget(),
                Err(_) => break,
            }
        }
        if to_service.write_all(&line).await.is_err() {
            break;
        }
    }
    let _ = to_service.shutdown().await;
}

/// The parse error answering `line`, when it is JSON by its grammar that serde_json cannot hold (a number out
/// of range); None for a line the service reads (or ignores).
fn out_of_range(line: &[u8]) -> Option<Vec<u8>> {
    /// The request's id alone: its other members are skipped unread, whatever numbers they hold.
    #[derive(serde::Deserialize)]
    struct Id {
        #[serde(default)]
        id: Option<serde_json::Value>,
    }
    let text = line.strip_suffix(b"\n").unwrap_or(line);
    if text.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let e = serde_json::from_slice::<serde_json::Value>(text).err()?;
    // Not JSON at all: the service's to ignore.
    serde_json::from_slice::<serde::de::IgnoredAny>(text).ok()?;
    // The id as written, when it is a number or a string that serde_json holds (an id of 1e400 is none).
    let id = serde_json::from_slice::<Id>(text)
        .ok()
        .and_then(|i| i.id)
        .filter(|v| v.is_string() || v.is_number())
        .unwrap_or(serde_json::Value::Null);
    let answer = serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32700, "message": format!("parse error: {e}")}});
    let mut bytes = answer.to_string().into_bytes();
    bytes.push(b'\n');
    Some(bytes)
}

/// The service's answers, a line at a time, until it closes its end.
async fn lines_of(from: tokio::io::DuplexStream, to: tokio::sync::mpsc::Sender<Vec<u8>>, in_flight: Arc<tokio::sync::Semaphore>) {
    use tokio::io::AsyncBufReadExt;
    let mut input = tokio::io::BufReader::new(from);
    loop {
        let mut line = Vec::new();
        match input.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        // An answer ends a call in flight: room for the next request.
        if kind_of(&line) == Some(false) {
            in_flight.add_permits(1);
        }
        if to.send(line).await.is_err() {
            break;
        }
    }
}

/// Writes whole lines to stdout: the service's answers and the parse errors, until the service is done.
async fn write_out(mut answers: tokio::sync::mpsc::Receiver<Vec<u8>>, mut refusals: tokio::sync::mpsc::Receiver<Vec<u8>>, mut out: Out) {
    use tokio::io::AsyncWriteExt;
    loop {
        let line = tokio::select! {
            biased;
            a = answers.recv() => match a {
                Some(a) => a,
                // The service is done: the parse errors still queued are answered too.
                None => {
                    while let Ok(r) = refusals.try_recv() {
                        if out.write_all(&r).await.is_err() {
                            break;
                        }
                    }
                    let _ = out.flush().await;
                    break;
                }
            },
            Some(r) = refusals.recv() => r,
        };
        if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
            break;
        }
    }
}

async fn serve_stdio(server: Exa, pipes: (tokio::io::DuplexStream, tokio::io::DuplexStream), flow: &Arc<Flow>) -> Result<(), Error> {
    let running = match server.serve(pipes).await {
        Ok(r) => r,
        // A client that closed stdin before initializing: nothing to serve, a clean exit.
        Err(e) => {
            crate::output::diag("info", &format!("MCP client left before initializing ({e})"));
            return Ok(());
        }
    };
    let token = running.cancellation_token();
    let waiting = running.waiting();
    tokio::pin!(waiting);
    tokio::select! {
        r = &mut waiting => { r.map_err(|e| Error::Failed(format!("the MCP server stopped: {e}")))?; }
        () = stop_signal() => token.cancel(),
        // The client left: calls still waiting on a slow Prometheus are not waited for beyond a moment.
        () = async { flow.eof.cancelled().await; tokio::time::sleep(AFTER_EOF).await } => token.cancel(),
    }
    Ok(())
}

/// stdio's flow control: while exa cannot write (a client that does not read its answers), it reads no
/// more requests, so answers never pile up in memory; and the end of stdin, noticed at once.
#[derive(Default)]
struct Flow {
    blocked: std::sync::atomic::AtomicBool,
    reader: std::sync::Mutex<Option<std::task::Waker>>,
    eof: tokio_util::sync::CancellationToken,
}

/// stdin, read only while stdout takes what is written.
struct In {
    inner: tokio::io::Stdin,
    flow: Arc<Flow>,
}

/// stdout, telling `In` when it is full and when it drains.
struct Out {
    inner: tokio::io::Stdout,
    flow: Arc<Flow>,
}

impl tokio::io::AsyncRead for In {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::sync::atomic::Ordering;
        if self.flow.blocked.load(Ordering::SeqCst) {
            *self.flow.reader.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(cx.waker().clone());
            // Looked at again after the waker is in place, so an unblocking in between is not missed.
            if self.flow.blocked.load(Ordering::SeqCst) {
                return std::task::Poll::Pending;
            }
        }
        let before = buf.filled().len();
        let r = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(r, std::task::Poll::Ready(Ok(()))) && buf.filled().len() == before && buf.remaining() > 0 {
            self.flow.eof.cancel();
        }
        r
    }
}

impl Out {
    fn noted<T>(&self, r: std::task::Poll<std::io::Result<T>>) -> std::task::Poll<std::io::Result<T>> {
        use std::sync::atomic::Ordering;
        if r.is_pending() {
            self.flow.blocked.store(true, Ordering::SeqCst);
        } else if self.flow.blocked.swap(false, Ordering::SeqCst) {
            if let Some(w) = self.flow.reader.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take() {
                w.wake();
            }
        }
        r
    }
}

impl tokio::io::AsyncWrite for Out {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        let r = std::pin::Pin::new(&mut self.inner).poll_write(cx, buf);
        self.noted(r)
    }

    fn poll_flush(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<std::io::Result<()>> {
        let r = std::pin::Pin::new(&mut self.inner).poll_flush(cx);
        self.noted(r)
    }

    fn poll_shutdown(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Constant-time comparison of the presented token with the expected one.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The most a request's body may hold.
const MAX_BODY: usize = 16 << 20;

/// The host of an `Origin` header (`http://127.0.0.1:8765` gives `127.0.0.1`), lower case, without port or
/// an IPv6 address's brackets, as the allowed hosts are written.
fn origin_host(origin: &str) -> Option<String> {
    let url = reqwest::Url::parse(origin).ok()?;
    Some(url.host_str()?.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase())
}

/// A JSON-RPC error answer with no id (the request could not be read far enough to have one).
fn rpc_error(status: axum::http::StatusCode, code: i64, message: &str) -> axum::response::Response {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}}).to_string();
    axum::response::IntoResponse::into_response((status, [(axum::http::header::CONTENT_TYPE, "application/json")], body))
}

async fn http(server: Exa, addr: SocketAddr, token: String, var: &str, configured: Vec<String>) -> Result<(), Error> {
    use axum::http::{header, StatusCode};
    use rmcp::transport::streamable_http_server::{session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService};

    let cancel = tokio_util::sync::CancellationToken::new();
    let mut hosts = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
    if !addr.ip().is_unspecified() {
        hosts.push(addr.ip().to_string());
    }
    hosts.extend(configured.iter().map(|h| h.to_ascii_lowercase()));
    let config = StreamableHttpServerConfig::default().with_allowed_hosts(hosts.clone()).with_cancellation_token(cancel.child_token());
    let service = StreamableHttpService::new(move || Ok(server.clone()), Arc::new(LocalSessionManager::default()), config);
    let expected = Arc::new(format!("Bearer {token}"));
    let origins = Arc::new(hosts.clone());
    let guard = axum::middleware::from_fn(move |req: axum::extract::Request, next: axum::middleware::Next| {
        let expected = Arc::clone(&expected);
        let origins = Arc::clone(&origins);
        async move {
            // A browser page must not reach a local server: an Origin that is not one of the allowed hosts is
            // refused (the MCP transport's rule), before the token is even looked at.
            if let Some(o) = req.headers().get(header::ORIGIN) {
                let allowed = o.to_str().ok().and_then(origin_host).is_some_and(|h| origins.contains(&h));
                if !allowed {
                    return axum::response::IntoResponse::into_response((
                        StatusCode::FORBIDDEN,
                        "403: this Origin may not use exa's MCP server\n",
                    ));
                }
            }
            let ok = req.headers().get(header::AUTHORIZATION).is_some_and(|v| same(v.as_bytes(), expected.as_bytes()));
            if !ok {
                let mut r = axum::response::IntoResponse::into_response((
                    StatusCode::UNAUTHORIZED,
                    "401: a bearer token is required (Authorization: Bearer <token>)\n",
                ));
                r.headers_mut().insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer"));
                return r;
            }
            if req.method() != axum::http::Method::POST {
                return next.run(req).await;
            }
            // A body that is not JSON (a number out of range, a cut-off message) gets JSON-RPC's parse error,
            // never silence; the rest goes on as it came.
            let (parts, body) = req.into_parts();
            let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY).await else {
                return rpc_error(StatusCode::PAYLOAD_TOO_LARGE, -32600, "the request is larger than 16 MiB");
            };
            if let Err(e) = serde_json::from_slice::<serde_json::Value>(&bytes) {
                return rpc_error(StatusCode::BAD_REQUEST, -32700, &format!("parse error: {e}"));
            }
            next.run(axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes))).await
        }
    });
    let app = axum::Router::new().nest_service("/mcp", service).layer(guard);
    let listener =
        tokio::net::TcpListener::bind(addr).await.map_err(|e| Error::Failed(format!("--listen {addr}: cannot listen there: {e}")))?;
    let bound = listener.local_addr().map_err(|e| Error::Failed(format!("--listen {addr}: {e}")))?;
    crate::output::diag("info", &format!("MCP over streamable HTTP at http://{bound}/mcp (bearer token from {var})"));
    if addr.ip().is_unspecified() {
        crate::output::diag(
            "info",
            &format!(
                "requests are answered only when their Host is one of: {} (mcp.allowed_hosts in the config adds the names clients use); any other gets 403",
                hosts.join(", ")
            ),
        );
    }
    let stop = async move {
        stop_signal().await;
        cancel.cancel();
    };
    crate::sources::serve::axum(listener, app, stop).await.map_err(|e| Error::Failed(format!("the MCP server stopped: {e}")))
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_compare_whole() {
        assert!(super::same(b"Bearer abc", b"Bearer abc"));
        assert!(!super::same(b"Bearer abd", b"Bearer abc"));
        assert!(!super::same(b"Bearer ab", b"Bearer abc"));
    }
}
