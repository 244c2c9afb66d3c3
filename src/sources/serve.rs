//! The one HTTP server loop, for `exa gpu serve` and `exa mcp --listen`:
//! HTTP/1.1 by hyper, with a deadline for a request's headers, an idle
//! deadline on every connection, and a cap on connections. At the cap, the
//! oldest connection that never sent a whole request (a slow-loris client)
//! is closed to make room; when every connection has been served, a new
//! one is turned away. A real client is answered while a thousand slow ones
//! hang on.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_util::sync::CancellationToken;

/// How long a client may take to send a request's headers.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a connection may stay with nothing read or written (an event stream pings well within it).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(120);
/// The most connections held at once (the descriptor limit permitting).
pub const MAX_CONNECTIONS: usize = 2048;

/// One connection's state, as the accept loop sees it.
struct Held {
    /// A whole request came in on it.
    served: Arc<AtomicBool>,
    /// Closes it.
    close: CancellationToken,
}

/// Serves `app` on `listener` until `stop` resolves.
pub async fn axum(listener: tokio::net::TcpListener, app: axum::Router, stop: impl Future<Output = ()>) -> Result<(), String> {
    let cap = MAX_CONNECTIONS.min(raise_descriptor_limit().saturating_sub(64)).max(16);
    let held: Arc<Mutex<BTreeMap<u64, Held>>> = Arc::default();
    let everything = CancellationToken::new();
    let mut next_id = 0u64;
    tokio::pin!(stop);
    loop {
        let (stream, _) = tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // Out of descriptors, or a connection reset before it was taken: wait a moment, go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        {
            let mut h = held.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if h.len() >= cap {
                let oldest_unserved = h.iter().find(|(_, c)| !c.served.load(Ordering::Relaxed)).map(|(id, _)| *id);
                match oldest_unserved.and_then(|id| h.remove(&id)) {
                    Some(c) => c.close.cancel(),
                    // Every connection is a client that was served: this one waits its turn elsewhere.
                    None => continue,
                }
            }
        }
        next_id += 1;
        let id = next_id;
        let served = Arc::new(AtomicBool::new(false));
        let close = everything.child_token();
        held.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id, Held { served: Arc::clone(&served), close: close.clone() });
        let (app, held) = (app.clone(), Arc::clone(&held));
        tokio::spawn(async move {
            let last = Arc::new(AtomicU64::new(0));
            let started = Instant::now();
            let io = TokioIo::new(Watched { inner: stream, last: Arc::clone(&last), started });
            let service = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                served.store(true, Ordering::Relaxed);
                let mut app = app.clone();
                tower_service::Service::call(&mut app, req)
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .keep_alive(true)
                .serve_connection(io, service);
            let idle = async {
                loop {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    let quiet = started.elapsed().saturating_sub(Duration::from_millis(last.load(Ordering::Relaxed)));
                    if quiet >= IDLE_TIMEOUT {
                        break;
                    }
                }
            };
            tokio::select! {
                _ = conn => {}
                () = close.cancelled() => {}
                () = idle => {}
            }
            held.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&id);
        });
    }
    everything.cancel();
    Ok(())
}

/// Raises this process's soft limit on open descriptors to its hard limit; the soft limit now.
fn raise_descriptor_limit() -> usize {
    // SAFETY: getrlimit and setrlimit read and write the local struct only.
    unsafe {
        let mut l: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) != 0 {
            return 1024;
        }
        if l.rlim_cur < l.rlim_max {
            let raised = libc::rlimit { rlim_cur: l.rlim_max, rlim_max: l.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                l = raised;
            }
        }
        usize::try_from(l.rlim_cur).unwrap_or(usize::MAX)
    }
}

/// A connection's stream that notes when it last read or wrote a byte.
struct Watched<S> {
    inner: S,
    last: Arc<AtomicU64>,
    started: Instant,
}

impl<S> Watched<S> {
    fn touch(&self) {
        self.last.store(u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX), Ordering::Relaxed);
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.touch();
        }
        r
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        r
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
