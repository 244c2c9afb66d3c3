//! Catching SIGINT, SIGTERM and SIGHUP while exa waits for a command.
//!
//! The handler only records which signal came and who sent it. A Ctrl-C
//! typed at a terminal already reaches the command (it is in exa's process
//! group), so it is not sent again; a signal some process sent to exa alone
//! (`kill`, a scheduler) is passed on to the command.
//!
//! The handler also writes one byte to a pipe (write(2) is safe in a
//! handler), so that a thread can wake whoever waits: nothing has to poll.

use std::sync::atomic::{AtomicI32, Ordering};

static SIGNAL: AtomicI32 = AtomicI32::new(0);
static SENDER: AtomicI32 = AtomicI32::new(0);
/// The pipe the handler writes to: (read end, write end), -1 until `catch` made it.
static PIPE: [AtomicI32; 2] = [AtomicI32::new(-1), AtomicI32::new(-1)];

extern "C" fn record(sig: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel hands a valid siginfo_t to an SA_SIGINFO handler; only atomics are touched.
    let pid = if info.is_null() { 0 } else { unsafe { (*info).si_pid() } };
    SENDER.store(pid, Ordering::SeqCst);
    SIGNAL.store(sig, Ordering::SeqCst);
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

/// Installs the recording handler for SIGINT, SIGTERM and SIGHUP, and SIGCHLD's default
/// disposition (an ignored SIGCHLD, inherited from a parent, would reap the command before exa
/// could learn how it ended).
pub fn catch() {
    // SAFETY: setting a signal's disposition to its default takes no memory.
    unsafe {
        libc::signal(libc::SIGCHLD, libc::SIG_DFL);
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
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: a zeroed sigaction with a valid handler and SA_SIGINFO is a well-formed argument to sigaction(2).
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = record as *const () as usize;
            act.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(sig, &act, std::ptr::null_mut());
        }
    }
}

/// A signal that arrived since the last call: (signal, true when a process sent it rather than the terminal).
pub fn take() -> Option<(i32, bool)> {
    let sig = SIGNAL.swap(0, Ordering::SeqCst);
    (sig != 0).then(|| (sig, SENDER.load(Ordering::SeqCst) != 0))
}

/// The name of a signal, for reports.
pub fn name(sig: i32) -> String {
    match sig {
        libc::SIGINT => "SIGINT".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGHUP => "SIGHUP".into(),
        libc::SIGKILL => "SIGKILL".into(),
        other => format!("signal {other}"),
    }
}
