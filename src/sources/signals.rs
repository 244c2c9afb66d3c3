//! Catching the signals a shell passes on while exa waits for a command:
//! SIGINT, SIGTERM, SIGHUP and SIGQUIT (the run is interrupted), SIGUSR1
//! and SIGUSR2 (Slurm's `--signal=USR1@90` before a time limit), SIGWINCH
//! and SIGCONT (passed on; the run goes on). SIGTSTP keeps its default, so
//! Ctrl-Z stops exa with the command and `fg` resumes both.
//!
//! The handler only records which signal came and who sent it. What a
//! terminal sends (Ctrl-C, Ctrl-\, a resize) already reaches the command (it
//! is in exa's process group), so it is not sent again; a signal some process
//! sent (`kill`, a scheduler) is passed on to the command.
//!
//! The handler also writes one byte to a pipe (write(2) is safe in a
//! handler), so that a thread can wake whoever waits: nothing has to poll.

use std::sync::atomic::{AtomicI32, Ordering};

/// Signals not yet taken, one slot each (a signal that comes twice before it is taken is passed on once).
static PENDING: [AtomicI32; CAUGHT.len()] = [const { AtomicI32::new(0) }; CAUGHT.len()];
/// Per slot, the process that sent it (0: the kernel or a terminal).
static SENDERS: [AtomicI32; CAUGHT.len()] = [const { AtomicI32::new(0) }; CAUGHT.len()];
/// Whether SIGXFSZ was ignored before `catch` ignored it: the command exa starts gets it as exa got it.
static XFSZ_IGNORED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether `catch` set SIGXFSZ to be ignored: only then has exa anything to undo for a child.
static XFSZ_SET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// In a child between fork and exec (async-signal-safe): SIGXFSZ as exa's parent left it, not as exa set it.
pub fn as_inherited() {
    if XFSZ_SET.load(Ordering::SeqCst) && !XFSZ_IGNORED.load(Ordering::SeqCst) {
        // SAFETY: signal(2) is async-signal-safe and takes no memory.
        unsafe {
            libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
        }
    }
}

/// The pipe the handler writes to: (read end, write end), -1 until `catch` made it.
static PIPE: [AtomicI32; 2] = [AtomicI32::new(-1), AtomicI32::new(-1)];

extern "C" fn record(sig: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel hands a valid siginfo_t to an SA_SIGINFO handler; only atomics are touched.
    let pid = if info.is_null() { 0 } else { unsafe { (*info).si_pid() } };
    if let Some(slot) = CAUGHT.iter().position(|s| *s == sig) {
        SENDERS[slot].store(pid, Ordering::SeqCst);
        PENDING[slot].store(sig, Ordering::SeqCst);
    }
    let fd = PIPE[1].load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: write(2) of one byte from a static; the write end is non-blocking, so a full pipe drops it.
        unsafe {
            libc::write(fd, b"!".as_ptr().cast(), 1);
        }
    }
}

/// Calls `wake` on a thread of its own after each signal caught (at most once per signal).
pub fn on_signal(wake: impl Fn() + Send + 'static) {
    let fd = PIPE[0].load(Ordering::SeqCst);
    if fd < 0 {
        return;
    }
    std::thread::spawn(move || {
        let mut byte = [0u8; 1];
        // SAFETY: read(2) into a local buffer of the length given.
        while unsafe { libc::read(fd, byte.as_mut_ptr().cast(), 1) } != 0 {
            wake();
        }
    });
}

/// The signals caught and passed on: every one whose default would end exa that can be caught and is not a
/// fault of exa's own (SIGSEGV and the like), so none ends a run without its report.
const CAUGHT: [libc::c_int; 14] = [
    libc::SIGINT,
    libc::SIGTERM,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGWINCH,
    libc::SIGCONT,
    libc::SIGALRM,
    libc::SIGVTALRM,
    libc::SIGPROF,
    libc::SIGXCPU,
    libc::SIGPWR,
    libc::SIGIO,
];

/// Whether a signal asks the command to stop (the run is then interrupted), rather than tells it something:
/// each whose default ends a process, as SIGTERM's does, but the two Slurm sends to warn of a time limit.
pub fn stops(sig: i32) -> bool {
    matches!(
        sig,
        libc::SIGINT
            | libc::SIGTERM
            | libc::SIGHUP
            | libc::SIGQUIT
            | libc::SIGALRM
            | libc::SIGVTALRM
            | libc::SIGPROF
            | libc::SIGXCPU
            | libc::SIGPWR
            | libc::SIGIO
    )
}

/// Whether a terminal sends this signal to its whole foreground group (so the command has it already).
pub fn from_terminal(sig: i32) -> bool {
    matches!(sig, libc::SIGINT | libc::SIGQUIT | libc::SIGWINCH)
}

/// Installs the recording handler for the signals above, and SIGCHLD's default
/// disposition (an ignored SIGCHLD, inherited from a parent, would reap the command before exa
/// could learn how it ended).
pub fn catch() {
    // SAFETY: setting a signal's disposition to its default takes no memory.
    unsafe {
        libc::signal(libc::SIGCHLD, libc::SIG_DFL);
        // A file grown past the job's own `ulimit -f` (the trace, the report) fails its write with EFBIG,
        // which is said; the signal would end exa and the run with no report.
        let was = libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        XFSZ_IGNORED.store(was == libc::SIG_IGN, Ordering::SeqCst);
        XFSZ_SET.store(true, Ordering::SeqCst);
    }
    if PIPE[0].load(Ordering::SeqCst) < 0 {
        let mut fds = [-1; 2];
        // SAFETY: pipe2 writes two descriptors into the local array; close-on-exec keeps them from the command.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == 0 {
            // SAFETY: fcntl on a descriptor just made.
            unsafe {
                libc::fcntl(fds[1], libc::F_SETFL, libc::O_NONBLOCK);
            }
            PIPE[0].store(fds[0], Ordering::SeqCst);
            PIPE[1].store(fds[1], Ordering::SeqCst);
        }
    }
    for sig in CAUGHT {
        // SAFETY: a zeroed sigaction with a valid handler and SA_SIGINFO is a well-formed argument to sigaction(2);
        // the old one is written into a zeroed local.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = record as *const () as usize;
            act.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
            libc::sigemptyset(&mut act.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(sig, &act, &mut old);
            // A hang-up exa's parent ignores (`nohup`) stays ignored, for exa and for the command, which inherits
            // it: caught, exec would have reset it to its default for the command. Not SIGINT or SIGQUIT: a shell
            // ignores those for every job it starts with `&`, and a script that starts exa so (the Slurm prolog)
            // ends the run by sending SIGINT.
            if sig == libc::SIGHUP && old.sa_sigaction == libc::SIG_IGN {
                libc::sigaction(sig, &old, std::ptr::null_mut());
            }
        }
    }
}

/// A signal that arrived since the last call: (signal, true when a process sent it rather than the terminal).
pub fn take() -> Option<(i32, bool)> {
    PENDING.iter().zip(&SENDERS).find_map(|(p, s)| {
        let sig = p.swap(0, Ordering::SeqCst);
        (sig != 0).then(|| (sig, s.load(Ordering::SeqCst) != 0))
    })
}

/// The name of a signal, for reports.
pub fn name(sig: i32) -> String {
    match sig {
        libc::SIGINT => "SIGINT".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGHUP => "SIGHUP".into(),
        libc::SIGKILL => "SIGKILL".into(),
        libc::SIGQUIT => "SIGQUIT".into(),
        libc::SIGUSR1 => "SIGUSR1".into(),
        libc::SIGUSR2 => "SIGUSR2".into(),
        libc::SIGWINCH => "SIGWINCH".into(),
        libc::SIGCONT => "SIGCONT".into(),
        libc::SIGALRM => "SIGALRM".into(),
        libc::SIGVTALRM => "SIGVTALRM".into(),
        libc::SIGPROF => "SIGPROF".into(),
        libc::SIGXCPU => "SIGXCPU".into(),
        libc::SIGPWR => "SIGPWR".into(),
        libc::SIGIO => "SIGIO".into(),
        other => format!("signal {other}"),
    }
}
