//! Files: writing them whole or not at all, and telling programs apart.

use std::io;
use std::path::Path;

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

fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path)).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
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
