//! Catching SIGINT, SIGTERM and SIGHUP while exa waits for a command.
//!
//! The handler only records which signal came and who sent it. A Ctrl-C
//! typed at a terminal already reaches the command (it is in exa's process
//! group), so it is not sent again; a signal some process sent to exa alone
//! (`kill`, a scheduler) is passed on to the command.

use std::sync::atomic::{AtomicI32, Ordering};

static SIGNAL: AtomicI32 = AtomicI32::new(0);
static SENDER: AtomicI32 = AtomicI32::new(0);

extern "C" fn record(sig: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel hands a valid siginfo_t to an SA_SIGINFO handler; only atomics are touched.
    let pid = if info.is_null() { 0 } else { unsafe { (*info).si_pid() } };
    SENDER.store(pid, Ordering::SeqCst);
    SIGNAL.store(sig, Ordering::SeqCst);
}

/// Installs the recording handler for SIGINT, SIGTERM and SIGHUP.
pub fn catch() {
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
