//! Running a helper program (a plugin, nvidia-smi) with exa's own deadline.
//!
//! The deadline is a check, not a timer that races the child: a child that
//! has already exited when the deadline passes is never killed, and its
//! output is never lost. A child that outlives it is killed with its whole
//! process group, and so is whatever it left behind when it exits: a helper
//! never leaves a process running, whatever the outcome.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The most read from a helper's stdout.
const MAX_OUTPUT: u64 = 4 << 20;

/// A program that ran to the end.
#[derive(Debug)]
pub struct Finished {
    /// Its exit status.
    pub status: ExitStatus,
    /// What it wrote on stdout.
    pub stdout: Vec<u8>,
    /// True when stdout was longer than the cap and was cut.
    pub truncated: bool,
}

/// Why a program gave no answer.
#[derive(Debug)]
pub enum RunError {
    /// It could not be started.
    Spawn(std::io::Error),
    /// It outlived the deadline and was killed.
    Timeout(Duration),
    /// It exited but its stdout stayed open (a daemonised grandchild) or could not be read.
    Output(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Spawn(e) => write!(f, "cannot run it: {e}"),
            RunError::Timeout(d) => write!(f, "no answer within {:.1} s; it was killed", d.as_secs_f64()),
            RunError::Output(e) => f.write_str(e),
        }
    }
}

/// Runs `program args...`, feeding `stdin`, capturing stdout; stderr is `stderr`.
pub fn run(program: &Path, args: &[&str], stdin: Option<&[u8]>, stderr: Stdio, timeout: Duration) -> Result<Finished, RunError> {
    run_capped(program, args, stdin, stderr, timeout, MAX_OUTPUT)
}

/// A command for `program` that starts with SIGXFSZ as exa's parent left it (exa ignores it for its own trace),
/// so a tool that reaches its file-size limit meets it as it would outside exa.
fn command(program: &Path) -> Command {
    let mut c = Command::new(program);
    // SAFETY: between fork and exec the closure calls only signal(2), async-signal-safe, and reads one atomic.
    unsafe {
        c.pre_exec(|| {
            crate::sources::signals::as_inherited();
            Ok(())
        });
    }
    c
}

/// As `run`, keeping at most `cap` bytes of stdout (a scheduler's accounting can be large).
pub fn run_capped(
    program: &Path,
    args: &[&str],
    stdin: Option<&[u8]>,
    stderr: Stdio,
    timeout: Duration,
    cap: u64,
) -> Result<Finished, RunError> {
    let mut child = command(program)
        .args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(stderr)
        .process_group(0)
        .spawn()
        .map_err(RunError::Spawn)?;
    if let (Some(mut pipe), Some(body)) = (child.stdin.take(), stdin) {
        let body = body.to_vec();
        // A child that never reads stdin must not block exa: write from a thread, ignore a closed pipe.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&body);
        });
    }
    let mut stdout = child.stdout.take().expect("piped stdout");
    // The reader keeps what it has read where `run` can take it: a grandchild that escaped the
    // group and holds stdout open must not cost the answer the tool itself gave before exiting.
    let read: std::sync::Arc<std::sync::Mutex<Vec<u8>>> = std::sync::Arc::default();
    let (tx, rx) = mpsc::channel();
    let shared = std::sync::Arc::clone(&read);
    std::thread::spawn(move || {
        let mut chunk = [0u8; 16 * 1024];
        let mut limited = (&mut stdout).take(cap.saturating_add(1));
        let r = loop {
            match limited.read(&mut chunk) {
                Ok(0) => break Ok(()),
                Ok(n) => shared.lock().unwrap_or_else(std::sync::PoisonError::into_inner).extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        let _ = tx.send(r);
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                // One last look: a child that exited just now keeps its answer.
                if let Ok(Some(status)) = child.try_wait() {
                    break status;
                }
                kill_group(&mut child);
                return Err(RunError::Timeout(timeout));
            }
            // Past the cap it is told to stop: its answer is not taken, however long it would go on.
            Ok(None) if read.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len() as u64 > cap => {
                kill_group(&mut child);
                let mut out = std::mem::take(&mut *read.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
                out.truncate(usize::try_from(cap).unwrap_or(usize::MAX));
                let status = child.try_wait().ok().flatten().ok_or_else(|| RunError::Output("it could not be stopped".into()))?;
                return Ok(Finished { status, stdout: out, truncated: true });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => {
                kill_group(&mut child);
                return Err(RunError::Output(format!("cannot wait for it: {e}")));
            }
        }
    };
    // The helper is done: anything it started in its group goes with it.
    signal_group(child.id());
    // When its stdout is still open after a second (something it started holds it), the tool has
    // exited, so what it wrote is all it will write: keep that.
    if let Ok(r) = rx.recv_timeout(Duration::from_secs(1)) {
        r.map_err(|e| RunError::Output(format!("cannot read its output: {e}")))?;
    }
    let mut out = std::mem::take(&mut *read.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    let truncated = out.len() as u64 > cap;
    out.truncate(usize::try_from(cap).unwrap_or(usize::MAX));
    Ok(Finished { status, stdout: out, truncated })
}

/// The most of a scheduler's accounting read: a million jobs' `sacct -P` lines are about 300 MB.
pub const MAX_ACCOUNTING: u64 = 2 << 30;

/// Runs a tool whose whole answer matters (a scheduler's accounting): all of its stdout, up to
/// `MAX_ACCOUNTING` (more is an error, never a cut answer taken as whole); when it fails, the first
/// line it wrote on stderr, with its exit status. Read into memory once, at its size.
pub fn output(program: &Path, args: &[&str], timeout: Duration) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = output_file(program, args, timeout)?;
    let size = file.metadata().map_or(0, |m| m.len());
    let mut out = Vec::new();
    out.try_reserve_exact(usize::try_from(size).unwrap_or(usize::MAX)).map_err(|e| format!("cannot hold its {size} bytes: {e}"))?;
    (&file).take(MAX_ACCOUNTING).read_to_end(&mut out).map_err(|e| format!("cannot read its output: {e}"))?;
    Ok(out)
}

/// `output`, its stdout left in an unlinked file of exa's own (random name, made exclusively, 0600), read from
/// its start: memory holds none of it, however much the tool prints, and the tool is stopped once it has
/// printed `MAX_ACCOUNTING` bytes (an endless stream costs that much disk for a moment, never memory).
pub fn output_file(program: &Path, args: &[&str], timeout: Duration) -> Result<std::fs::File, String> {
    use std::io::{Read, Seek};
    let past_cap = |f: &std::fs::File| f.metadata().is_ok_and(|m| m.len() > MAX_ACCOUNTING);
    let too_much = || format!("it printed more than {} GiB; ask for a shorter window (--since, --until)", MAX_ACCOUNTING >> 30);
    let made = |what: &str, e: std::io::Error| format!("cannot make a file for its {what} in {}: {e}", std::env::temp_dir().display());
    // Its errors too go to a file of exa's own: read back only when it failed. No one can plant it, or read it.
    let (mut out, mut err) = (tempfile::tempfile().map_err(|e| made("output", e))?, tempfile::tempfile().map_err(|e| made("errors", e))?);
    let (to_out, to_err) = (out.try_clone().map_err(|e| e.to_string())?, err.try_clone().map_err(|e| e.to_string())?);
    let mut child = command(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(to_out))
        .stderr(Stdio::from(to_err))
        .process_group(0)
        .spawn()
        .map_err(|e| if e.kind() == std::io::ErrorKind::NotFound { "not found on PATH".to_string() } else { e.to_string() })?;
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                kill_group(&mut child);
                return Err(RunError::Timeout(timeout).to_string());
            }
            Ok(None) if past_cap(&out) => {
                kill_group(&mut child);
                return Err(too_much());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => {
                kill_group(&mut child);
                return Err(format!("cannot wait for it: {e}"));
            }
        }
    };
    // The tool is done: anything it started in its group goes with it.
    signal_group(child.id());
    if past_cap(&out) {
        return Err(too_much());
    }
    if !status.success() {
        let mut text = String::new();
        let _ = err.seek(std::io::SeekFrom::Start(0)).and_then(|_| (&mut err).take(64 * 1024).read_to_string(&mut text));
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("no message");
        // Tools name themselves first ("sacct: error: ..."); the caller names the tool already.
        let name = program.file_name().map(|n| format!("{}: ", n.to_string_lossy())).unwrap_or_default();
        let first = first.strip_prefix(name.as_str()).unwrap_or(first);
        return Err(format!("{} ({status})", crate::text::clean(first)));
    }
    out.seek(std::io::SeekFrom::Start(0)).map_err(|e| format!("cannot read its output: {e}"))?;
    Ok(out)
}

/// Kills a child and everything in its process group.
pub fn kill_group(child: &mut Child) {
    signal_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
}

/// SIGKILL to the process group `pid` leads (started with `process_group(0)`).
fn signal_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) with a negative pid signals the group the child leads; it touches no memory.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

/// A command exa runs and measures: its pid, waited for without blocking.
#[derive(Debug, Clone, Copy)]
pub struct Spawned {
    pid: libc::pid_t,
}

/// How a job ended.
#[derive(Debug, Clone, Copy)]
pub struct Ended {
    /// The exit code, or 128 + the signal that ended it.
    pub code: i32,
    /// The signal that ended it, if one did.
    pub signal: Option<i32>,
    /// User CPU seconds of the job and its children.
    pub user_s: f64,
    /// System CPU seconds of the job and its children.
    pub system_s: f64,
}

impl Spawned {
    /// Starts `program` with `args`; stdin, stdout and stderr are the job's own.
    /// It dies with exa: when exa is killed outright (SIGKILL, the OOM killer), the kernel sends it SIGKILL.
    pub fn spawn(program: &std::ffi::OsStr, args: &[std::ffi::OsString]) -> std::io::Result<Spawned> {
        // SAFETY: getpid has no preconditions.
        let exa = unsafe { libc::getpid() };
        let mut c = std::process::Command::new(program);
        c.args(args);
        // SAFETY: between fork and exec the closure calls only async-signal-safe functions (prctl, getppid,
        // _exit, signal) and reads one atomic of the parent's.
        unsafe {
            c.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // exa died before the line above: nothing would ever kill this job.
                if libc::getppid() != exa {
                    libc::_exit(137);
                }
                crate::sources::signals::as_inherited();
                Ok(())
            });
        }
        let c = c.spawn()?;
        Ok(Spawned { pid: c.id() as libc::pid_t })
    }

    /// Waits for it to end (a blocking wait4, resumed after a signal) and says how it ended.
    pub fn wait(&self) -> Ended {
        let mut status = 0;
        // SAFETY: wait4 writes into the two locals, which are valid for the call.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        loop {
            let r = unsafe { libc::wait4(self.pid, &mut status, 0, &mut ru) };
            if r == self.pid {
                break;
            }
            if r < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                // Not our child any more (reaped elsewhere): nothing is known of how it ended.
                return Ended { code: 1, signal: None, user_s: 0.0, system_s: 0.0 };
            }
        }
        let (code, signal) = if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            (128 + sig, Some(sig))
        } else {
            (libc::WEXITSTATUS(status), None)
        };
        Ended { code, signal, user_s: seconds(ru.ru_utime), system_s: seconds(ru.ru_stime) }
    }

    /// CPU seconds (user + system) the job and the children it has reaped have used so far,
    /// from `/proc`; 0 where it cannot be read.
    pub fn cpu_s_so_far(&self) -> f64 {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{}/stat", self.pid)) else { return 0.0 };
        // Fields after the command name (which may hold spaces) start at field 3.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { return 0.0 };
        let f: Vec<&str> = rest.split_whitespace().collect();
        // utime, stime, cutime, cstime are fields 14 to 17, that is 11 to 14 after the name.
        let ticks: f64 = (11..=14).filter_map(|i| f.get(i)?.parse::<f64>().ok()).sum();
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        if hz > 0 {
            ticks / hz as f64
        } else {
            0.0
        }
    }

    /// Passes a signal on to the job.
    pub fn signal(&self, sig: i32) {
        // SAFETY: kill(2) on the job's pid touches no memory.
        unsafe {
            libc::kill(self.pid, sig);
        }
    }
}

fn seconds(tv: libc::timeval) -> f64 {
    tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6
}

/// A running process's CPU seconds so far and when it started.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProcessCpu {
    /// User seconds, its waited-for children's included.
    pub user_s: f64,
    /// System seconds, its waited-for children's included.
    pub system_s: f64,
    /// Its start, in clock ticks after boot: a process given a pid that an ended one had starts later.
    pub started: u64,
    /// Whether it has ended and waits to be reaped (a zombie): it uses no more CPU.
    pub ended: bool,
}

/// A running process's user and system CPU seconds so far, its waited-for children's included
/// (`/proc/PID/stat`: utime + cutime, stime + cstime); None when there is no such process to read.
pub fn process_cpu_s(pid: u32) -> Option<(f64, f64)> {
    process_cpu(pid).map(|p| (p.user_s, p.system_s))
}

/// `process_cpu_s` with the process's start time.
pub fn process_cpu(pid: u32) -> Option<ProcessCpu> {
    // A process's stat line is a few hundred bytes.
    let text = crate::files::read_regular_text(std::path::Path::new(&format!("/proc/{pid}/stat")), 4096).ok()?;
    // The name (field 2) may hold spaces and parentheses: the fields after its last ')' are the numbers.
    let rest = &text[text.rfind(')')? + 1..];
    let v: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| v.get(i).and_then(|f| f.parse::<u64>().ok());
    // After the name: state, ppid, pgrp, session, tty, tpgid, flags, minflt, cminflt, majflt, cmajflt, utime (11)...
    // ... cstime (14), priority, nice, num_threads, itrealvalue, starttime (19).
    let (ut, st, cut, cst, started) = (tick(11)?, tick(12)?, tick(13)?, tick(14)?, tick(19)?);
    // SAFETY: sysconf(3) reads no memory of the caller's.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (hz > 0).then(|| ProcessCpu {
        user_s: ut.saturating_add(cut) as f64 / hz as f64,
        system_s: st.saturating_add(cst) as f64 / hz as f64,
        started,
        // A zombie leader whose other threads still run (its main thread called pthread_exit) has not ended.
        ended: matches!(v.first(), Some(&("Z" | "X" | "x"))) && tick(17).is_none_or(|threads| threads <= 1),
    })
}

/// CPU seconds this process has used (user + system), its children not included.
pub fn own_cpu_s() -> f64 {
    // SAFETY: getrusage writes into the local, which is valid for the call.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return 0.0;
    }
    seconds(ru.ru_utime) + seconds(ru.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_cpu_time_is_read_from_its_stat_line() {
        let (user, system) = process_cpu_s(std::process::id()).expect("this process");
        assert!(user >= 0.0 && system >= 0.0 && user.is_finite() && system.is_finite());
        assert_eq!(process_cpu_s(u32::MAX), None, "no such process");
    }

    #[test]
    fn a_tool_that_never_stops_printing_is_stopped_at_the_cap() {
        let started = Instant::now();
        let done = run_capped(Path::new("yes"), &[], None, Stdio::null(), Duration::from_secs(60), 1 << 20).unwrap();
        assert!(done.truncated);
        assert_eq!(done.stdout.len(), 1 << 20);
        assert!(started.elapsed() < Duration::from_secs(50), "it ran to the deadline instead of stopping at the cap");
    }
}
