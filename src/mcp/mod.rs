//! `exa mcp`: exa's read-only tools for AI agents, over the Model Context
//! Protocol, through the official Rust SDK (`rmcp`).
//!
//! stdio by default (a local agent or IDE starts `exa mcp`); `--listen ADDR`
//! serves streamable HTTP at `/mcp`, loopback unless told otherwise, and
//! every request must carry the bearer token. Each call runs on a blocking
//! thread of its own, so a slow Prometheus never holds up another call.

pub mod tools;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

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
        if !tools::NAMES.contains(&request.name.as_ref()) {
            return Err(ErrorData::invalid_params(format!("no tool '{}'", crate::text::clean(&request.name)), None));
        }
        let cli = Arc::clone(&self.cli);
        let name = request.name.to_string();
        let args = request.arguments.unwrap_or_default();
        let result = tokio::task::spawn_blocking(move || tools::call(&cli, &name, &args))
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
    let server = Exa { cli: Arc::new(cli) };
    runtime.block_on(async move {
        match (addr, token) {
            (Some(addr), Some((token, var))) => http(server, addr, token, &var).await,
            _ => stdio(server).await,
        }
    })?;
    // Blocking calls still running (a slow Prometheus) are not waited for.
    runtime.shutdown_background();
    Ok(ExitCode::SUCCESS)
}

async fn stdio(server: Exa) -> Result<(), Error> {
    let running = match server.serve(rmcp::transport::stdio()).await {
        Ok(r) => r,
        // A client that closed stdin before initializing: nothing to serve, a clean exit.
        Err(e) => {
            crate::output::diag("info", &format!("MCP client left before initializing ({e})"));
            return Ok(());
        }
    };
    let token = running.cancellation_token();
    tokio::select! {
        r = running.waiting() => { r.map_err(|e| Error::Failed(format!("the MCP server stopped: {e}")))?; }
        () = stop_signal() => token.cancel(),
    }
    Ok(())
}

/// Constant-time comparison of the presented token with the expected one.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn http(server: Exa, addr: SocketAddr, token: String, var: &str) -> Result<(), Error> {
    use axum::http::{header, StatusCode};
    use rmcp::transport::streamable_http_server::{session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService};

    let cancel = tokio_util::sync::CancellationToken::new();
    let mut hosts = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
    hosts.push(addr.ip().to_string());
    let config = StreamableHttpServerConfig::default().with_allowed_hosts(hosts).with_cancellation_token(cancel.child_token());
    let service = StreamableHttpService::new(move || Ok(server.clone()), Arc::new(LocalSessionManager::default()), config);
    let expected = Arc::new(format!("Bearer {token}"));
    let auth = axum::middleware::from_fn(move |req: axum::extract::Request, next: axum::middleware::Next| {
        let expected = Arc::clone(&expected);
        async move {
            let ok = req.headers().get(header::AUTHORIZATION).is_some_and(|v| same(v.as_bytes(), expected.as_bytes()));
            if ok {
                next.run(req).await
            } else {
                let mut r = axum::response::IntoResponse::into_response((
                    StatusCode::UNAUTHORIZED,
                    "401: a bearer token is required (Authorization: Bearer <token>)\n",
                ));
                r.headers_mut().insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer"));
                r
            }
        }
    });
    let app = axum::Router::new().nest_service("/mcp", service).layer(auth);
    let listener =
        tokio::net::TcpListener::bind(addr).await.map_err(|e| Error::Failed(format!("--listen {addr}: cannot listen there: {e}")))?;
    let bound = listener.local_addr().map_err(|e| Error::Failed(format!("--listen {addr}: {e}")))?;
    crate::output::diag("info", &format!("MCP over streamable HTTP at http://{bound}/mcp (bearer token from {var})"));
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            stop_signal().await;
            cancel.cancel();
        })
        .await
        .map_err(|e| Error::Failed(format!("the MCP server stopped: {e}")))
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
