//! CPU and memory energy: `measure` reads RAPL counters from a powercap tree
//! (a copy of the fixture trees under the test's own host root), whose
//! counters the measured command itself advances.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{fixtures, measure, stderr, Env};

/// A copy of the fixture tree `name` as the host root, with `online` as the node's CPUs and a `proc/stat`.
pub fn host(env: Env, name: &str, online: &str) -> (Env, PathBuf) {
    let root = env.dir.path().join("host");
    let status = Command::new("cp").arg("-r").arg(fixtures().join("powercap").join(name)).arg(&root).status().unwrap();
    assert!(status.success());
    std::fs::create_dir_all(root.join("sys/devices/system/cpu")).unwrap();
    std::fs::write(root.join("sys/devices/system/cpu/online"), format!("{online}\n")).unwrap();
    std::fs::create_dir_all(root.join("proc")).unwrap();
    std::fs::write(root.join("proc/stat"), "cpu  1000 0 500 90000 0 0 0 0 0 0\ncpu0 1000 0 500 90000 0 0 0 0 0 0\n").unwrap();
    let r = root.to_str().unwrap().to_string();
    (env.env("EXAMLOPS_HOST_ROOT", &r).env("PATH", "/usr/bin:/bin"), root)
}

pub fn zone(root: &Path, z: &str) -> String {
    root.join("sys/class/powercap").join(z).join("energy_uj").to_str().unwrap().to_string()
}

/// A shell command that burns a little CPU (so the job has CPU-hours), then sets each counter.
fn advance(sets: &[(String, u64)], then: &str) -> String {
    let mut s = String::from("i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; ");
    for (file, v) in sets {
        s.push_str(&format!("echo {v} > {file}; "));
    }
    s.push_str(then);
    s
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn measure_reads_packages_and_dram_once_each_across_a_wrap_and_prices_them() {
    let (env, root) = host(Env::new(), "intel-xeon-2s", "0");
    // package-0 +360 J; package-1, 50 J short of its range of 262,143,328,850 µJ, wraps and reads 1,000,000
    // after; each DRAM +180 J; psys and the core subzones move too, and must not be counted. Every figure
    // is one a CPU can make within the slack a reading has, however fast the command runs.
    std::fs::write(zone(&root, "intel-rapl:1"), "262093328850\n").unwrap();
    let sets = [
        (zone(&root, "intel-rapl:0"), 187_326_554_120 + 360_000_000),
        (zone(&root, "intel-rapl:1"), 1_000_000),
        (zone(&root, "intel-rapl:0:1"), 41_126_879_213 + 180_000_000),
        (zone(&root, "intel-rapl:1:1"), 39_870_215_532 + 180_000_000),
        (zone(&root, "intel-rapl:2"), 412_377_000_000 + 9_000_000_000_000),
        (zone(&root, "intel-rapl:0:0"), 98_211_330_771 + 5_000_000_000),
    ];
    let (out, r) = measure(&env, &["--interval", "0.2"], &["sh", "-c", &advance(&sets, "")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let e = &r["cpu_energy"];
    assert_eq!(e["status"], "measured", "{e}");
    assert_eq!(e["source"], "powercap");
    let zones: Vec<&str> = e["zones"].as_array().unwrap().iter().map(|z| z["id"].as_str().unwrap()).collect();
    assert_eq!(zones, ["intel-rapl:0", "intel-rapl:0:1 (dram)", "intel-rapl:1", "intel-rapl:1:1 (dram)"]);
    assert_eq!(e["wraps"], 1);
    let package_uj = 360_000_000.0 + (50_000_000.0 + 1_000_000.0);
    let close = |got: f64, want: f64| assert!((got - want).abs() <= 1e-6 * want, "{got} != {want}");
    close(f(&e["node_cpu_kwh"]), package_uj / 3.6e12);
    close(f(&e["node_dram_kwh"]), 360_000_000.0 / 3.6e12);
    assert_eq!(e["method"], "whole node");
    assert_eq!(e["share"], 1.0);
    assert!(e["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("psys")), "{e}");
    // Priced as measured: the default provider's kWh is the measured CPU and DRAM energy times its PUE.
    let carbon = &r["carbon"];
    assert_eq!(carbon["coefficients"]["cpu_tdp_watts"]["source"], "measured", "{carbon}");
    let job_kwh = f(&e["cpu_kwh"]) + f(&e["dram_kwh"]);
    close(f(&carbon["inputs"]["cpu_kwh"]), job_kwh);
    close(f(&carbon["outputs"]["kwh"]), job_kwh * f(&carbon["coefficients"]["pue"]["value"]));
    // The table says it too.
    let table = env.cmd().args(["finops", "measure", "--interval", "0.2", "--", "true"]).output().unwrap();
    assert!(stderr(&table).contains("CPU energy: "), "{}", stderr(&table));
}

#[test]
fn on_a_shared_node_the_job_gets_its_share_by_cpu_time() {
    // 96 CPUs online, the job's cpuset holds fewer: the node's busy time rises by 2,000 s (200,000 ticks).
    let (env, root) = host(Env::new(), "amd-epyc-1s", "0-95");
    let stat = root.join("proc/stat");
    let later = "cpu  101000 0 100500 90000 0 0 0 0 0 0";
    let before: u64 = std::fs::read_to_string(zone(&root, "intel-rapl:0")).unwrap().trim().parse().unwrap();
    let sets = [(zone(&root, "intel-rapl:0"), before + 720_000_000)];
    let then = format!("echo '{later}' > {}", stat.display());
    let (out, r) = measure(&env, &["--interval", "0.2"], &["sh", "-c", &advance(&sets, &then)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let e = &r["cpu_energy"];
    assert_eq!(e["method"], "share by CPU time", "{e}");
    let job_s = f(&r["cpu"]["user_s"]) + f(&r["cpu"]["system_s"]);
    let share = f(&e["share"]);
    assert!((share - job_s / 2000.0).abs() <= 1e-4, "share {share}, job {job_s} s of 2000 s");
    let node = 720_000_000.0 / 3.6e12;
    assert!((f(&e["node_cpu_kwh"]) - node).abs() <= 1e-9, "{e}");
    assert!((f(&e["cpu_kwh"]) - node * share).abs() <= 1e-9, "{e}");
    assert_eq!(e.get("node_dram_kwh"), Some(&Value::Null), "no DRAM counter: not measured, never 0");

    // Ranks on one node each take their share, even when each may run on every CPU.
    let (env, _) = host(Env::new(), "amd-epyc-1s", "0");
    let env = env.env("SLURM_NTASKS_PER_NODE", "4");
    let (_, r) = measure(&env, &["--interval", "0.2"], &["true"]);
    assert_ne!(r["cpu_energy"]["method"], "whole node", "{}", r["cpu_energy"]);
}

#[test]
fn duplicates_are_counted_once_and_said() {
    // The laptop's MMIO zone reads the MSR package counter again; psys is the platform.
    let (env, _) = host(Env::new(), "intel-client-mmio", "0");
    let c: Value = env.json(&["config", "show"]);
    assert_eq!(c["cpu_energy"]["source"], "powercap", "{c}");
    assert_eq!(c["cpu_energy"]["zones"], serde_json::json!(["intel-rapl:0"]));
    let notes = c["cpu_energy"]["notes"].to_string();
    assert!(notes.contains("intel-rapl-mmio:0") && notes.contains("counted once") && notes.contains("psys"), "{notes}");
    // A multi-die part showing its one package counter twice.
    let (env, root) = host(Env::new(), "amd-epyc-1s", "0");
    let twin = root.join("sys/class/powercap/intel-rapl:1");
    let status = Command::new("cp").arg("-r").arg(root.join("sys/class/powercap/intel-rapl:0")).arg(&twin).status().unwrap();
    assert!(status.success());
    std::fs::write(twin.join("name"), "package-1\n").unwrap();
    let c: Value = env.json(&["config", "show"]);
    assert_eq!(c["cpu_energy"]["zones"], serde_json::json!(["intel-rapl:0"]), "{c}");
    assert!(c["cpu_energy"]["notes"].to_string().contains("mirrors"), "{c}");
    // A mirrored package's DRAM goes with it.
    let (env, root) = host(Env::new(), "intel-xeon-2s", "0");
    let base = root.join("sys/class/powercap");
    for (from, to) in [("intel-rapl:0", "intel-rapl:3"), ("intel-rapl:0:1", "intel-rapl:3:0")] {
        assert!(Command::new("cp").arg("-r").arg(base.join(from)).arg(base.join(to)).status().unwrap().success());
    }
    std::fs::write(base.join("intel-rapl:3/name"), "package-3\n").unwrap();
    let c: Value = env.json(&["config", "show"]);
    assert_eq!(
        c["cpu_energy"]["zones"],
        serde_json::json!(["intel-rapl:0", "intel-rapl:0:1 (dram)", "intel-rapl:1", "intel-rapl:1:1 (dram)"]),
        "{c}"
    );
}

#[test]
fn without_access_exa_says_how_to_grant_it_and_keeps_the_estimate() {
    use std::os::unix::fs::PermissionsExt;
    let (env, root) = host(Env::new(), "intel-xeon-2s", "0");
    // As root, energy_uj is readable whatever its mode: run exa as nobody, as a user would be.
    let is_root = Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    Command::new("chmod").args(["-R", "a+rwX"]).arg(env.dir.path()).status().unwrap();
    for z in ["intel-rapl:0", "intel-rapl:1", "intel-rapl:0:1", "intel-rapl:1:1", "intel-rapl:2"] {
        std::fs::set_permissions(zone(&root, z), std::fs::Permissions::from_mode(0o400)).unwrap();
    }
    let run = |args: &[&str]| {
        let mut c = if is_root {
            let mut c = env.cmd_for("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", env!("CARGO_BIN_EXE_exa")]);
            c
        } else {
            env.cmd()
        };
        c.args(args).output().unwrap()
    };
    let asked = run(&["finops", "measure", "--cpu-source", "powercap", "--", "true"]);
    assert_eq!(asked.status.code(), Some(1), "{}", stderr(&asked));
    let said = stderr(&asked);
    assert!(said.contains("permission denied") && said.contains("udev") && said.contains("CAP_PERFMON"), "{said}");
    let report = env.dir.path().join("r.json");
    let auto = run(&["-o", "json", "finops", "measure", "--report", report.to_str().unwrap(), "--", "sh", "-c", &advance(&[], "")]);
    assert_eq!(auto.status.code(), Some(0), "{}", stderr(&auto));
    let warned: Vec<String> = stderr(&auto).lines().filter(|l| l.contains("CPU energy")).map(str::to_string).collect();
    assert_eq!(warned.len(), 1, "said once: {warned:?}");
    let r = crate::common::report_file(&report);
    assert_eq!(r["cpu_energy"]["status"], "not measured");
    assert!(r["cpu_energy"]["reason"].as_str().unwrap().contains("permission denied"));
    let notes = r["carbon"]["notes"].to_string();
    assert!(notes.contains("CPU energy not measured") && notes.contains("assumed power"), "{notes}");
    assert_eq!(r["carbon"]["coefficients"]["cpu_tdp_watts"]["source"], "default");
}

#[test]
fn a_cpu_energy_measured_elsewhere_is_priced_like_a_gpu_energy() {
    let env = Env::new();
    let e: Value = env.json(&["finops", "carbon", "estimate", "--cpu-hours", "32", "--cpu-kwh", "2.4"]);
    assert_eq!(e["coefficients"]["cpu_tdp_watts"]["value"], 75.0, "2.4 kWh over 32 CPU-hours is 75 W");
    assert_eq!(e["coefficients"]["cpu_tdp_watts"]["source"], "measured");
    assert_eq!(e["inputs"]["cpu_kwh"], 2.4);
    let out = env.run(&["finops", "carbon", "estimate", "--gpu-hours", "1", "--cpu-kwh", "2"]);
    crate::common::fails(&out, 2, "--cpu-kwh needs --cpu-hours");
    let out = env.run(&["finops", "carbon", "estimate", "--cpu-hours", "1", "--cpu-kwh", "2", "--cpu-tdp", "90"]);
    crate::common::fails(&out, 2, "cpu_tdp_watts is set on the command line");
    // Nothing read: --cpu-source none says so, and prices CPU-hours.
    let (out, r) = measure(&env, &["--cpu-source", "none"], &["true"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(r["cpu_energy"]["reason"].as_str().unwrap().contains("none"), "{}", r["cpu_energy"]);
}
