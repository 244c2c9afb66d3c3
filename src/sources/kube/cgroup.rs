//! Each pod's CPU time, from the control groups the kubelet makes for it under `root/sys/fs/cgroup`: cgroup
//! v2's `cpu.stat` (`usage_usec`), or v1's `cpuacct.usage` (ns), at the pod's own level (its containers' time
//! is in it). Both of the kubelet's cgroup drivers: systemd's `kubepods.slice/kubepods-burstable.slice/
//! kubepods-burstable-pod<uid>.slice`, cgroupfs's `kubepods/burstable/pod<uid>`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// At most this many pods a node is read for (the kubelet's default is 110; a larger tree is not a node's).
pub const MAX_PODS: usize = 4096;

/// Where pods' control groups are, and how their CPU time is read.
#[derive(Debug, Clone, PartialEq)]
pub struct Tree {
    /// The `kubepods` directory.
    pub top: PathBuf,
    /// cgroup v2 (`cpu.stat`), else v1 (`cpuacct.usage`).
    pub v2: bool,
}

/// The node's pod tree under `root`, as the kubelet made it; None where there is none.
pub fn tree(root: &Path) -> Option<Tree> {
    let base = root.join("sys/fs/cgroup");
    let v2 = ["kubepods.slice", "kubepods"]
        .iter()
        .map(|d| base.join(d))
        .find(|p| p.join("cgroup.procs").is_file() || p.join("cpu.stat").is_file());
    if let Some(top) = v2 {
        return Some(Tree { top, v2: true });
    }
    ["cpu,cpuacct", "cpuacct", "cpu"]
        .iter()
        .flat_map(|h| ["kubepods.slice", "kubepods"].map(|d| base.join(h).join(d)))
        .find(|p| p.join("cpuacct.usage").is_file())
        .map(|top| Tree { top, v2: false })
}

/// Each pod's CPU time so far, s, by UID: None for a pod whose control group is there but whose counter could
/// not be read this time (a pod whose control group has gone is left out).
pub fn pods_cpu(tree: &Tree) -> BTreeMap<String, Option<f64>> {
    let mut out = BTreeMap::new();
    // Guaranteed pods sit directly under the top; burstable and best-effort ones one level down.
    let mut dirs = vec![tree.top.clone()];
    for qos in ["burstable", "besteffort"] {
        for name in [format!("kubepods-{qos}.slice"), qos.to_string()] {
            let d = tree.top.join(name);
            if d.is_dir() {
                dirs.push(d);
            }
        }
    }
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            if out.len() >= MAX_PODS {
                return out;
            }
            let name = e.file_name();
            let Some(uid) = name.to_str().and_then(|n| crate::sources::owner::pod_at(&format!("kubepods/{n}"))) else { continue };
            out.insert(uid, cpu_s(&e.path(), tree.v2));
        }
    }
    out
}

/// A control group's CPU time so far, s.
fn cpu_s(dir: &Path, v2: bool) -> Option<f64> {
    if v2 {
        let text = crate::files::read_regular_text(&dir.join("cpu.stat"), 64 * 1024).ok()?;
        let usec: u64 = text.lines().find_map(|l| l.strip_prefix("usage_usec "))?.trim().parse().ok()?;
        Some(usec as f64 / 1e6)
    } else {
        let text = crate::files::read_regular_text(&dir.join("cpuacct.usage"), 4096).ok()?;
        let ns: u64 = text.trim().parse().ok()?;
        Some(ns as f64 / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, text: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn each_pods_cpu_time_is_read_under_either_driver_and_either_version() {
        let d = tempfile::tempdir().unwrap();
        let v2 = d.path().join("v2/sys/fs/cgroup/kubepods.slice");
        write(&v2.join("cgroup.procs"), "");
        write(&v2.join("kubepods-pod11111111_2222_3333_4444_555555555555.slice/cpu.stat"), "usage_usec 2500000\nuser_usec 1\n");
        write(
            &v2.join("kubepods-burstable.slice/kubepods-burstable-pod66666666_7777_8888_9999_000000000000.slice/cpu.stat"),
            "usage_usec 1000\n",
        );
        // Not a pod: the QoS slice's own counter, and a stray directory.
        write(&v2.join("kubepods-burstable.slice/cpu.stat"), "usage_usec 9\n");
        write(&v2.join("kubepods-besteffort.slice/not-a-pod/cpu.stat"), "usage_usec 9\n");
        let t = tree(&d.path().join("v2")).unwrap();
        assert!(t.v2);
        let got = pods_cpu(&t);
        assert_eq!(got.len(), 2);
        assert_eq!(got["11111111-2222-3333-4444-555555555555"], Some(2.5));
        assert_eq!(got["66666666-7777-8888-9999-000000000000"], Some(0.001));

        let v1 = d.path().join("v1/sys/fs/cgroup/cpu,cpuacct/kubepods");
        write(&v1.join("cpuacct.usage"), "0\n");
        write(&v1.join("besteffort/pod66666666-7777-8888-9999-000000000000/cpuacct.usage"), "3000000000\n");
        let t = tree(&d.path().join("v1")).unwrap();
        assert!(!t.v2);
        assert_eq!(pods_cpu(&t)["66666666-7777-8888-9999-000000000000"], Some(3.0));
        // A counter not read this time (being written, or refused) is said as such, not left out.
        write(&v1.join("besteffort/pod66666666-7777-8888-9999-000000000000/cpuacct.usage"), "");
        assert_eq!(pods_cpu(&t)["66666666-7777-8888-9999-000000000000"], None);
        assert_eq!(tree(&d.path().join("none")), None);
    }
}
