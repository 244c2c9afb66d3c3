//! A Unix socket server for the processes of one node (`measure --serve`): one line of JSON each way, a
//! thread per connection, at most `MAX_CLIENTS` at once and `MAX_LINE` bytes a line. The socket is the
//! user's own: made under a umask that never lets another in, even for an instant (mode 0600), in a
//! directory no one else may write to, and a connection from another user (its peer credentials) is refused.
//!
//! The server answers what its handler says; it knows nothing of what the lines mean.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
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
    /// The socket file's device and inode: removed at the end only while it is still this one.
    file: (u64, u64),
}

/// Who is at the other end of a connection, as the kernel says (`SO_PEERCRED`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Peer {
    /// The connection's number, for `Bound::take`.
    pub id: u64,
    /// The peer's process.
    pub pid: u32,
}

/// The peer's process and user.
fn peer(stream: &UnixStream) -> Option<(u32, u32)> {
    let mut cred = libc::ucred { pid: 0, uid: 0, gid: 0 };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `cred`, which is that large and lives for the call.
    let rc =
        unsafe { libc::getsockopt(stream.as_raw_fd(), libc::SOL_SOCKET, libc::SO_PEERCRED, std::ptr::addr_of_mut!(cred).cast(), &mut len) };
    (rc == 0 && cred.pid > 0).then_some((cred.pid as u32, cred.uid))
}

/// This process's effective user.
fn me() -> u32 {
    // SAFETY: geteuid reads no memory and cannot fail.
    unsafe { libc::geteuid() }
}

/// A directory where only this user (or root) can make or remove a file: owned by one of them, and
/// writable by no one else.
fn private_dir(dir: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(dir).map_err(|e| format!("the socket's directory {}: {e}", dir.display()))?;
    if (meta.uid() != me() && meta.uid() != 0) || meta.mode() & 0o022 != 0 {
        return Err(format!(
            "the socket's directory {} may be written by others (mode {:o}): use a directory of your own ($XDG_RUNTIME_DIR, or one made with mode 700)",
            dir.display(),
            meta.mode() & 0o7777
        ));
    }
    Ok(())
}

/// Binds `path` for this user alone. A socket a server still answers on is refused (it is another
/// measurer's); a dead one (a measurer killed before it could remove it) is replaced; anything else at
/// the path is refused, never removed.
pub fn bind(path: &Path) -> Result<Bound, String> {
    let shown = path.display();
    private_dir(path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")))?;
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
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("{shown}: {e}"))?;
    Ok(Bound {
        file: (meta.dev(), meta.ino()),
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
    pub fn serve<'s, 'e>(&'s self, scope: &'s std::thread::Scope<'s, 'e>, handler: &'s (dyn Handler + 's)) {
        scope.spawn(move || {
            for conn in self.listener.incoming() {
                if self.stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut stream) = conn else { continue };
                let _ = stream.set_write_timeout(Some(WRITE_DEADLINE));
                let Some((pid, _)) = peer(&stream).filter(|(_, uid)| *uid == me()) else {
                    let _ = writeln!(stream, "{}", refusal("the measurer serves its own user's processes alone"));
                    continue;
                };
                if self.open.load(Ordering::SeqCst) >= MAX_CLIENTS {
                    let _ = writeln!(stream, "{}", refusal(&format!("the measurer serves {MAX_CLIENTS} connections at most")));
                    continue;
                }
                let id = self.next.fetch_add(1, Ordering::SeqCst);
                {
                    // Under the lock `stop` takes: a connection is either ended by it or never served.
                    let mut streams = lock(&self.streams);
                    let Ok(clone) = stream.try_clone() else { continue };
                    if self.stopping.load(Ordering::SeqCst) {
                        break;
                    }
                    streams.insert(id, clone);
                }
                self.open.fetch_add(1, Ordering::SeqCst);
                scope.spawn(move || {
                    connection(stream, Peer { id, pid }, handler);
                    handler.closed(Peer { id, pid });
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

    /// Stops accepting, removes the socket (so a client finds no measurer, rather than one that will never
    /// answer) and ends every connection still open (their threads then end).
    pub fn stop(&self) {
        let streams = {
            let mut held = lock(&self.streams);
            self.stopping.store(true, Ordering::SeqCst);
            std::mem::take(&mut *held)
        };
        self.remove();
        // Wakes the accepting thread through the listener itself (Linux ends a blocked accept on a socket
        // shut down), never by connecting to a path that may have gone.
        // SAFETY: shutdown(2) on a descriptor this listener owns; it stays open until the listener drops.
        unsafe { libc::shutdown(self.listener.as_raw_fd(), libc::SHUT_RDWR) };
        for s in streams.into_values() {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }

    /// Removes the socket file while it is this server's (not one a later measurer made at the path).
    fn remove(&self) {
        if std::fs::symlink_metadata(&self.path).is_ok_and(|m| (m.dev(), m.ino()) == self.file) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl Drop for Bound {
    fn drop(&mut self) {
        self.remove();
    }
}

/// What answers a connection's lines, given who sent them, and hears when it closes.
pub trait Handler: Sync {
    /// Answers one line.
    fn line(&self, line: &str, peer: Peer) -> Handled;
    /// The connection closed (its process left, or ended).
    fn closed(&self, _peer: Peer) {}
}

/// A refusal line: `{"ok":false,"error":…}`.
pub fn refusal(why: &str) -> String {
    serde_json::json!({"ok": false, "error": why}).to_string()
}

/// Reads lines and answers them until the client goes, a line is too long, or the handler keeps it.
fn connection(stream: UnixStream, peer: Peer, handler: &dyn Handler) {
    let Ok(read) = stream.try_clone() else { return };
    let mut reader = BufReader::new(read);
    let mut writer = &stream;
    let mut line = String::new();
    loop {
        line.clear();
        match reader.by_ref().take(MAX_LINE as u64 + 1).read_line(&mut line) {
            Ok(0) => return,
            Err(e) => {
                if e.kind() == std::io::ErrorKind::InvalidData {
                    let _ = writeln!(writer, "{}", refusal("a request is UTF-8 text"));
                }
                return;
            }
            Ok(n) if n > MAX_LINE => {
                let _ = writeln!(writer, "{}", refusal(&format!("a request is one line of {} KiB at most", MAX_LINE / 1024)));
                return;
            }
            Ok(_) => {}
        }
        let answer = match handler.line(line.trim_end_matches(['\n', '\r']), peer) {
            Handled::Reply(a) => a,
            Handled::Kept => return,
        };
        if writeln!(writer, "{answer}").and_then(|()| writer.flush()).is_err() {
            return;
        }
    }
}
