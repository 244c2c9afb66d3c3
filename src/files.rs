//! Files: writing them whole or not at all, and telling programs apart.

use std::io;
use std::path::Path;

/// Reads at most `cap` bytes of the regular file at `path`. It is opened without waiting (a FIFO with no
/// writer, a device, would hold the open or the read for ever) and refused unless it is a regular file; a
/// file of more than `cap` bytes is refused, never read into memory whole (`/dev/zero` put in its place).
pub fn read_regular(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let f = open_regular(path)?;
    let mut bytes = Vec::new();
    f.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("larger than {cap} bytes")));
    }
    Ok(bytes)
}

/// The regular file at `path`, opened to read without waiting, or an error: its type is looked at before it is
/// opened (opening some devices does something: a watchdog starts counting) and again once open (it may have
/// been swapped in between).
pub fn open_regular(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let not = || io::Error::new(io::ErrorKind::InvalidInput, "not a regular file");
    if !std::fs::metadata(path)?.is_file() {
        return Err(not());
    }
    let f = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY).open(path)?;
    if !f.metadata()?.is_file() {
        return Err(not());
    }
    Ok(f)
}

/// Whether this process may read and write `path` (access(2), without opening it).
pub fn may_read_write(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else { return false };
    // SAFETY: `c` is a NUL-terminated path that lives across the call.
    unsafe { libc::access(c.as_ptr(), libc::R_OK | libc::W_OK) == 0 }
}

/// `read_regular`, as text (UTF-8, else an error).
pub fn read_regular_text(path: &Path, cap: u64) -> io::Result<String> {
    String::from_utf8(read_regular(path, cap)?).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// Writes `bytes` to `path` whole or not at all: to a regular file (or a
/// path not there yet) through a temporary file beside it and a rename, so
/// a reader sees the old file or the new one, never half. A symlink is
/// followed and its target replaced, never the link itself; anything else
/// (a character device such as /dev/null, a FIFO, a terminal) is written
/// through, never replaced; a directory is an error.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory")),
        Ok(m) if !m.is_file() => write_through(path, bytes),
        Ok(_) if std::fs::symlink_metadata(path).is_ok_and(|l| l.file_type().is_symlink()) => replace(&std::fs::canonicalize(path)?, bytes),
        Ok(_) => replace(path, bytes),
        // A dangling link: write where it points, creating the file.
        Err(_) if std::fs::symlink_metadata(path).is_ok_and(|l| l.file_type().is_symlink()) => write_through(path, bytes),
        Err(_) => replace(path, bytes),
    }
}

fn write_through(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().write(true).create(true).truncate(true).open(path)?;
    f.write_all(bytes)?;
    f.flush()
}

/// Through a temporary file beside `path`, made exclusively (O_EXCL) under a random name, mode 0600, so
/// no one can plant it, then renamed over `path`: the old file's mode, or a new file's as umask gives it.
fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            dir
        }
        None => Path::new("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut tmp = tempfile::Builder::new().prefix(&format!(".{name}.")).suffix(".tmp").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.flush()?;
    let mode = std::fs::metadata(path).map_or_else(|_| 0o666 & !umask(), |m| m.permissions().mode() & 0o7777);
    tmp.as_file().set_permissions(std::fs::Permissions::from_mode(mode))?;
    tmp.persist(path).map(drop).map_err(|e| e.error)
}

/// This process's umask, as the kernel reports it (0o022 when it cannot be read).
fn umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("Umask:").and_then(|v| u32::from_str_radix(v.trim(), 8).ok())))
        .unwrap_or(0o022)
}

/// Whether `a` and `b` name the same file: the same inode when both exist, else the same place.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => place(a) == place(b),
    }
}

/// Where a path, which may not exist yet, points: its directory resolved, then its name.
fn place(p: &Path) -> Option<std::path::PathBuf> {
    let name = p.file_name()?;
    let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Some(std::fs::canonicalize(dir).ok()?.join(name))
}

/// Whether `path` is a SQLite database (its header says so). Only a regular file is one, and only a regular
/// file is opened to look: `/dev/stdout` on a pipe would be opened as the pipe's reading end, and wait for ever.
pub fn is_sqlite(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 16];
    open_regular(path).and_then(|mut f| f.read_exact(&mut head)).is_ok() && &head == b"SQLite format 3\0"
}

/// Refuses to write `what` (a flag, such as `--html`) to `path` when that would destroy something: the
/// ledger (or its `-wal` or `-shm`), another output of the same command, or any SQLite database.
pub fn check_output(what: &str, path: &Path, ledger: Option<&Path>, others: &[(&str, &Path)]) -> Result<(), String> {
    if let Some(db) = ledger {
        let with = |suffix: &str| {
            let mut s = db.as_os_str().to_os_string();
            s.push(suffix);
            std::path::PathBuf::from(s)
        };
        if [db.to_path_buf(), with("-wal"), with("-shm"), with("-journal")].iter().any(|l| same_file(path, l)) {
            return Err(format!("{what} {}: that is the ledger; name another file", path.display()));
        }
    }
    if let Some((other, _)) = others.iter().find(|(_, p)| same_file(path, p)) {
        return Err(format!("{what} {}: {other} writes there too; give each its own file", path.display()));
    }
    if is_sqlite(path) {
        return Err(format!("{what} {}: is a SQLite database, which exa never overwrites; name another file", path.display()));
    }
    Ok(())
}

/// True when `path` is a regular file (following links): never a FIFO, device or directory.
pub fn is_regular(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Refuses, as ssh and git do, code or methodology that someone else could
/// have changed: `path` and the directory holding it must not be writable by
/// group or others, and must belong to this user or to root.
pub fn check_trusted(path: &Path, what: &str) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions and touches no memory.
    let me = unsafe { libc::geteuid() };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    for (p, kind) in [(path, what), (dir, "its directory")] {
        let m = std::fs::metadata(p).map_err(|e| format!("cannot check {}: {e}", p.display()))?;
        let mode = m.mode() & 0o7777;
        if mode & 0o022 != 0 {
            return Err(format!(
                "refusing {what} {}: {kind} {} is writable by {} (mode {mode:04o}); run `chmod go-w {}`",
                path.display(),
                p.display(),
                if mode & 0o002 != 0 { "everyone" } else { "its group" },
                p.display()
            ));
        }
        if m.uid() != me && m.uid() != 0 {
            return Err(format!(
                "refusing {what} {}: {kind} {} belongs to another user (uid {}); only your own files or root's are trusted",
                path.display(),
                p.display(),
                m.uid()
            ));
        }
    }
    Ok(())
}

/// True when `path` is a file this user may execute.
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planted_temporary_name_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let target = dir.path().join("report.json");
        // The names a predictable writer would use, planted as links to the victim.
        for planted in [target.with_extension(format!("tmp.{}", std::process::id())), dir.path().join(".report.json.tmp")] {
            std::os::unix::fs::symlink(&victim, planted).unwrap();
        }
        write_atomic(&target, b"{}").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "{}");
    }
}
