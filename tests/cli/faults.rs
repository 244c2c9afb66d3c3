//! A bad day, met on the real binary: signals that would end exa with no report, files that are not
//! files, a trace that cannot grow, a full disk under a report, a tool that hangs.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{fake_smi, stderr, until_calls, Env};

#[test]
fn sigalrm_ends_the_run_as_sigterm_does_with_its_report() {
    // The command's own alarm, sent to exa (as a `timeout -s ALRM` or a batch system might): the run is
    // interrupted, passed on to the command, and reported; never exa killed with no report.
    let env = fake_smi(Env::new(), crate::telemetry::H100);
    let report = env.dir.path().join("r.json");
    let out = env.run(&[
        "-o",
        "json",
        "finops",
        "measure",
        "--interval",
        "0.2",
        "--report",
        report.to_str().unwrap(),
        "--",
        "sh",
        "-c",
        "kill -ALRM $PPID; sleep 30",
    ]);
    let r: Value = crate::common::checked(
        &["finops", "measure"],
        &std::fs::read(&report).unwrap_or_else(|e| panic!("no report ({e}): {}", stderr(&out))),
    );
    assert_eq!(r["interrupted"], "SIGALRM", "{r}");
    assert_eq!(r["killed_by"], "SIGALRM", "passed on to the command: {r}");
    assert_eq!(out.status.code(), Some(128 + 14), "exa exits as its command did: {}", stderr(&out));
}

#[test]
fn a_trace_past_the_jobs_file_size_limit_stops_growing_and_the_run_goes_on() {
    // `ulimit -f 4` (4 KiB), inherited by exa from the job's shell: eight GPUs' reading is 3.8 KB of trace, so
    // the second reaches it. SIGXFSZ would have killed exa and the job; the trace stops, said, and the run is
    // reported. (The fake tool's own log of its calls stays well under the limit.)
    let env = fake_smi(Env::new(), crate::telemetry::H100).env("FAKE_SMI_DEVICES", "8");
    let d = env.dir.path();
    let (trace, report) = (d.join("t.jsonl"), d.join("r.json"));
    let job = until_calls(&env, 6);
    let line = format!(
        "ulimit -f 4; exec {} -o json finops measure --interval 0.05 --trace {} --report /dev/stdout -- sh -c '{}'",
        env!("CARGO_BIN_EXE_exa"),
        trace.display(),
        job.replace('\'', "'\\''")
    );
    let out = env.cmd_for("bash").args(["-c", &line]).output().unwrap();
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("the trace stopped growing") && said.contains("File too large"), "{said}");
    // `--report /dev/stdout`.
    let r: Value = crate::common::checked(&["finops", "measure"], &out.stdout);
    assert_eq!(r["gpu"]["status"], "measured", "{r}");
    assert!(std::fs::metadata(&trace).unwrap().len() <= 4096);
    let _ = report;
}

#[test]
fn a_job_may_still_reach_its_own_file_size_limit() {
    // exa ignores SIGXFSZ for itself, never for the command it runs: the job meets its limit as without exa.
    let env = Env::new().env("PATH", "/usr/local/bin:/usr/bin:/bin");
    let big = env.dir.path().join("big");
    let line =
        format!("ulimit -f 1; exec {} finops measure -- sh -c 'head -c 4096 /dev/zero > {}'", env!("CARGO_BIN_EXE_exa"), big.display());
    let out = env.cmd_for("bash").args(["-c", &line]).output().unwrap();
    assert_eq!(out.status.code(), Some(128 + 25), "the job was killed by SIGXFSZ, as it would be alone: {}", stderr(&out));
}

#[test]
fn the_tools_exa_runs_get_the_file_size_signal_as_exa_got_it() {
    // nvidia-smi (a wrapper noting the signals it ignores) run by a measurement: SIGXFSZ is not among them, though
    // exa ignores it for its own trace.
    let env = fake_smi(Env::new(), crate::telemetry::H100);
    let log = env.dir.path().join("sigign");
    // The fake's own place on PATH, its link replaced by the wrapper.
    let smi = env.dir.path().join("smibin/nvidia-smi");
    let real = crate::common::fixtures().join("fake-nvidia-smi");
    std::fs::remove_file(&smi).unwrap();
    std::fs::write(&smi, format!("#!/bin/sh\ngrep SigIgn /proc/self/status >> {}\nexec {} \"$@\"\n", log.display(), real.display()))
        .unwrap();
    std::fs::set_permissions(&smi, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let trace = env.dir.path().join("t.jsonl");
    let job = until_calls(&env, 2);
    let out = env.run(&["finops", "measure", "--interval", "0.2", "--trace", trace.to_str().unwrap(), "--", "sh", "-c", &job]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let seen = std::fs::read_to_string(&log).unwrap();
    assert!(!seen.is_empty());
    for line in seen.lines() {
        let mask = u64::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap();
        assert_eq!(mask & (1 << (25 - 1)), 0, "nvidia-smi started with SIGXFSZ ignored: {line}");
    }
}

#[test]
fn a_slow_reader_never_hangs_measure_on_a_fifo_where_a_file_should_be() {
    // A FIFO where the host root's /proc/stat should be: never opened to block, the run ends and is reported.
    let (env, root) = crate::cpu::host(Env::new(), "intel-xeon-2s", "0");
    let stat = root.join("proc/stat");
    std::fs::remove_file(&stat).unwrap();
    assert!(Command::new("mkfifo").arg(&stat).status().unwrap().success());
    let started = Instant::now();
    let mut child = env
        .cmd()
        .args(["-o", "json", "finops", "measure", "--interval", "0.2", "--", "true"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("measure hung on a FIFO");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Unmounts its filesystem when the test ends, however it ends.
struct Unmount(std::path::PathBuf);

impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_report_on_a_full_disk_reads_without_writing() {
    // A ledger on a filesystem with no room left: reading it writes nothing (no -wal or -shm made), and answers.
    let env = Env::new();
    let mnt = env.dir.path().join("small");
    std::fs::create_dir_all(&mnt).unwrap();
    let mounted = Command::new("mount").args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"]).arg(&mnt).output().unwrap();
    if !mounted.status.success() {
        eprintln!("skipped: a full filesystem needs mount (root): {}", String::from_utf8_lossy(&mounted.stderr));
        return;
    }
    let _unmount = Unmount(mnt.clone());
    let db = mnt.join("ledger.sqlite3");
    let db = db.to_str().unwrap();
    for run in ["a", "b"] {
        let out = env.run(&["--db", db, "finops", "carbon", "record", "M", "--gpu-hours", "1", "--run-id", run]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    // Fill it: dd stops at the end of the room.
    let _ = Command::new("dd").args(["if=/dev/zero", "bs=4k"]).arg(format!("of={}", mnt.join("fill").display())).output().unwrap();
    let args = ["-o", "json", "--db", db, "report"];
    let report = env.run(&args);
    assert_eq!(report.status.code(), Some(0), "{}", stderr(&report));
    let v: Value = crate::common::answer(&args, &report);
    assert_eq!(v["groups"][0]["runs"], 2, "{v}");
    let made: Vec<String> = std::fs::read_dir(&mnt)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("-shm") || n.contains("-wal"))
        .collect();
    assert!(made.is_empty(), "reading wrote {made:?}");
}

#[test]
fn a_tool_that_hangs_after_its_first_answer_holds_the_end_one_deadline_at_most() {
    // nvidia-smi answers once, then every call hangs (the look at the processes too). The command ends at
    // once; exa's end waits one deadline (4 s here) at most, never a hung look and then a last reading's own.
    let env = fake_smi(Env::new(), crate::telemetry::H100).env("FAKE_SMI_MODE", "hang-after:1").env("EXAMLOPS_NVIDIA_SMI_TIMEOUT", "4");
    let report = env.dir.path().join("r.json");
    let started = Instant::now();
    let out = env.run(&["-o", "json", "finops", "measure", "--interval", "0.2", "--report", report.to_str().unwrap(), "--", "true"]);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = crate::common::report_file(&report);
    assert!(r["gpu"]["samples"].as_u64() >= Some(1), "{r}");
    // Two deadlines (8 s) were what it took; one and a margin for a slow machine's start is the bound.
    assert!(took < Duration::from_millis(7500), "the end took {took:?}");
}

#[test]
fn a_signal_exas_parent_ignores_stays_ignored_for_the_command() {
    // `nohup exa finops measure -- job`: the job still ignores SIGHUP, as it would under nohup alone.
    let env = Env::new().env("PATH", "/usr/local/bin:/usr/bin:/bin");
    let line = format!("trap '' HUP; exec {} finops measure -- sh -c 'kill -HUP $$; echo alive'", env!("CARGO_BIN_EXE_exa"));
    let out = env.cmd_for("sh").args(["-c", &line]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(crate::common::stdout(&out).trim(), "alive");
}
