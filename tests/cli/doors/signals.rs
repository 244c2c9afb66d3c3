//! Signals: passed on to the job, the job dying with exa, a plugin's process group.

use crate::common::{stderr, Env};
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::doors::{wait_for, zombie};

#[test]
fn measure_passes_usr1_and_quit_on_and_keeps_measuring() {
    let env = Env::new();
    let got = env.dir.path().join("got");
    let script = format!(
        "trap 'echo USR1 >> {g}' USR1; trap 'echo USR2 >> {g}' USR2; trap 'echo QUIT >> {g}; exit 3' QUIT; echo ready > {g}.ready; \
         while [ ! -s {g} ] || ! grep -q QUIT {g}; do sleep 0.05; done",
        g = got.display()
    );
    let report = env.dir.path().join("r.json");
    let mut child = env
        .cmd()
        .args(["-o", "json", "finops", "measure", "--report", report.to_str().unwrap(), "--", "sh", "-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let ready = env.dir.path().join("got.ready");
    let until = Instant::now() + Duration::from_secs(30);
    while !ready.exists() {
        assert!(Instant::now() < until, "the job never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = child.id().to_string();
    let kill = |sig: &str| assert!(Command::new("kill").args([sig, &pid]).status().unwrap().success());
    kill("-USR1");
    wait_for(&got, "USR1");
    kill("-USR2");
    wait_for(&got, "USR2");
    // exa is alive after both: the job got them through it.
    assert!(child.try_wait().unwrap().is_none(), "exa died of a signal it should pass on");
    kill("-QUIT");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(3), "exa exits with the job's status");
    let r: Value = crate::common::report_file(&report);
    assert_eq!(r["exit_code"], 3);
    assert_eq!(r["interrupted"], "SIGQUIT", "{r}");
}

#[test]
fn a_job_dies_with_exa_when_exa_is_killed_outright() {
    let env = Env::new();
    let pid_file = env.dir.path().join("job.pid");
    let script = format!("echo $$ > {}; exec sleep 300", pid_file.display());
    let mut child = env.cmd().args(["finops", "measure", "--", "sh", "-c", &script]).stderr(Stdio::null()).spawn().unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    let pid = loop {
        if let Some(p) = std::fs::read_to_string(&pid_file).ok().and_then(|s| s.trim().parse::<i32>().ok()) {
            break p;
        }
        assert!(Instant::now() < until, "the job never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    while std::path::Path::new(&format!("/proc/{pid}")).exists() && !zombie(pid) {
        assert!(Instant::now() < until, "the job {pid} outlived exa");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_plugin_that_exits_broken_takes_its_process_group_with_it() {
    let env = Env::new();
    let pid_file = env.dir.path().join("child.pid");
    env.program(
        "config/examlops/plugins/exa-carbon-broken",
        &format!("#!/bin/sh\nsleep 300 >/dev/null 2>&1 &\necho $! > {}\necho not-json\nexit 1\n", pid_file.display()),
    );
    let out = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--provider", "broken"]);
    assert!(stderr(&out).contains("exited with"), "{}", stderr(&out));
    let pid: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    while std::path::Path::new(&format!("/proc/{pid}")).exists() && !zombie(pid) {
        assert!(Instant::now() < until, "the plugin's child {pid} outlived it");
        std::thread::sleep(Duration::from_millis(20));
    }
}
