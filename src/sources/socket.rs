//! A Unix socket server for the processes of one node (`measure --serve`): one line of JSON each way, a
//! thread per connection, at most `MAX_CLIENTS` at once and `MAX_LINE` bytes a line. The socket is the
//! user's own (mode 0600, made under a umask that never lets another in, even for an instant).
//!
//! The server answers what its handler says; it knows nothing of what the lines mean.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The most connections served at once: every rank of a node's largest job, and then some.
pub const MAX_CLIENTS: usize = 256;

/// The longest request line, bytes.
pub const MAX_LINE: usize = 64 * 1024;

/// How long an answer may take to write before the client is given up on.
const WRITE_DEADLINE: Duration = Duration::from_secs(10);

/// What the handler makes of one line.
pub enum Handled {
    /// This line back.
    Reply(String),
    /// Nothing now: the handler took the connection (`Bound::take`) to answer later; this connection reads no
    /// further line.
    Kept,
}

/// A bound socket, removed when dropped.
pub struct Bound {
    listener: UnixListener,
    path: PathBuf,
    open: AtomicUsize,
    idle_since: Mutex<Instant>,
    stopping: AtomicBool,
    /// The connections open, by number: each is shut at `stop`, but for one its handler kept.
    streams: Mutex<std::collections::BTreeMap<u64, UnixStream>>,
    next: AtomicU64,
}

/// Binds `path` for this user alone. A socket a server still answers on is refused (it is another
/// measurer's); a dead one (a measurer killed before it could remove it) is replaced; anything else at
/// the path is refused, never removed.
pub fn bind(path: &Path) -> Result<Bound, String> {
    let shown = path.display();
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_socket() {
            return Err(format!("{shown} exists and is not a socket: it is left as it is"));
        }
        if UnixStream::connect(path).is_ok() {
            return Err(format!("a measurer already serves {shown}"));
        }
        std::fs::remove_file(path).map_err(|e| format!("cannot replace the dead socket {shown}: {e}"))?;
    }
    // SAFETY: umask only swaps this process's file-creation mask, and is restored at once.
    let old = unsafe { libc::umask(0o177) };
    let bound = UnixListener::bind(path);
    // SAFETY: as above.
    unsafe { libc::umask(old) };
    let listener = bound.map_err(|e| format!("cannot listen on {shown}: {e}"))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(|e| format!("cannot make {shown} private: {e}"))?;
    Ok(Bound {
        listener,
        path: path.to_path_buf(),
        open: AtomicUsize::new(0),
        idle_since: Mutex::new(Instant::now()),
        stopping: AtomicBool::new(false),
        streams: Mutex::new(std::collections::BTreeMap::new()),
        next: AtomicU64::new(0),
    })
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Bound {
    /// Where it listens.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How long no client has been connected; None while one is.
    pub fn idle_for(&self) -> Option<Duration> {
        (self.open.load(Ordering::SeqCst) == 0).then(|| lock(&self.idle_since).elapsed())
    }

    /// Serves connections on threads of `scope` until `stop`, each line answered by `handler`.
    pub fn serve<'s, 'e>(&'s self, scope: &'s std::thread::Scope<'s, 'e>, handler: &'s Handler<'s>) {
        scope.spawn(move || {
            for conn in self.listener.incoming() {
                if self.stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut stream) = conn else { continue };
                if self.open.load(Ordering::SeqCst) >= MAX_CLIENTS {
                    let _ = stream.set_write_timeout(Some(WRITE_DEADLINE));
                    let _ = writeln!(stream, "{}", refusal(&format!("the measurer serves {MAX_CLIENTS} connections at most")));
                    continue;
                }
                let id = self.next.fetch_add(1, Ordering::SeqCst);
                if let Ok(clone) = stream.try_clone() {
                    lock(&self.streams).insert(id, clone);
                }
                self.open.fetch_add(1, Ordering::SeqCst);
                scope.spawn(move || {
                    connection(stream, id, handler);
                    lock(&self.streams).remove(&id);
                    if self.open.fetch_sub(1, Ordering::SeqCst) == 1 {
                        *lock(&self.idle_since) = Instant::now();
                    }
                });
            }
        });
    }

    /// Takes connection `id` from those `stop` ends, to answer it later.
    pub fn take(&self, id: u64) -> Option<UnixStream> {
        lock(&self.streams).remove(&id)
    }

    /// Stops accepting and ends every connection still open (their threads then end).
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        // The accepting thread wakes at a connection: this one.
        let _ = UnixStream::connect(&self.path);
        for s in std::mem::take(&mut *lock(&self.streams)).into_values() {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }
}

impl Drop for Bound {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// What answers a line, given the connection's number (for `Bound::take`).
pub type Handler<'a> = dyn Fn(&str, u64) -> Handled + Sync + 'a;

/// A refusal line: `{"ok":false,"error":…}`.
pub fn refusal(why: &str) -> String {
    serde_json::json!({"ok": false, "error": why}).to_string()
}

/// Reads lines and answers them until the client goes, a line is too long, or the handler keeps it.
fn connection(stream: UnixStream, id: u64, handler: &Handler<'_>) {
    let _ = stream.set_write_timeout(Some(WRITE_DEADLINE));
    let Ok(read) = stream.try_clone() else { return };
    let mut reader = BufReader::new(read);
    let mut writer = &stream;
    let mut line = String::new();
    loop {
        line.clear();
        match reader.by_ref().take(MAX_LINE as u64 + 1).read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(n) if n > MAX_LINE => {
                let _ = writeln!(writer, "{}", refusal(&format!("a request is one line of {} KiB at most", MAX_LINE / 1024)));
                return;
            }
            Ok(_) => {}
        }
        let answer = match handler(line.trim_end_matches(['\n', '\r']), id) {
            Handled::Reply(a) => a,
            Handled::Kept => return,
        };
        if writeln!(writer, "{answer}").and_then(|()| writer.flush()).is_err() {
            return;
        }
    }
}
