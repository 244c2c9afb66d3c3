//! Who a process works for on this node, from its control group (`/proc/<pid>/cgroup` under the host root): a
//! Slurm job, a Kubernetes pod, a container, a user's session, or the host itself. The groups an exporter
//! splits a shared GPU's energy among: one per job or container, never one per process, so the series it
//! exports stay as few as the jobs on the node.
//!
//! Read from the paths the managers make (cgroup v2's unified line, or any v1 hierarchy's):
//! `slurmstepd.scope/job_<id>` or `slurm/uid_<u>/job_<id>`; `kubepods…pod<uid>`; a `docker-<id>.scope`,
//! `/docker/<id>`, `libpod-<id>.scope` or `cri-containerd-<id>.scope` outside a pod; a `user-<uid>.slice`.
//! Anything else runs for the host. A pid exa cannot read (gone, or hidden by a PID namespace) is `unknown`.

use std::path::Path;

/// What a group is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GroupKind {
    /// A Slurm job, by its id.
    SlurmJob,
    /// A Kubernetes pod, by its UID.
    Pod,
    /// A container outside Kubernetes (Docker, Podman, containerd), by its id's first 12 characters.
    Container,
    /// A user's session (`user-<uid>.slice`), by the uid.
    User,
    /// The host's own services, or a process in no group exa knows.
    Host,
    /// A process exa could not read (gone, or in another PID namespace).
    Unknown,
    /// The device's idle energy: no process's.
    Idle,
}

impl GroupKind {
    /// As an exported attribute says it.
    pub fn as_str(self) -> &'static str {
        match self {
            GroupKind::SlurmJob => "slurm-job",
            GroupKind::Pod => "pod",
            GroupKind::Container => "container",
            GroupKind::User => "user",
            GroupKind::Host => "host",
            GroupKind::Unknown => "unknown",
            GroupKind::Idle => "idle",
        }
    }
}

/// A group a process works for: its kind and id (empty for the host, unknown and idle).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Group {
    /// What it is.
    pub kind: GroupKind,
    /// Its id in its kind's words: a job id, a pod UID, a container id, a uid.
    pub id: String,
}

impl Group {
    /// A group of no id.
    pub fn of(kind: GroupKind) -> Group {
        Group { kind, id: String::new() }
    }
}

/// The group of process `pid`, from `root/proc/<pid>/cgroup`.
pub fn group_of(root: &Path, pid: u32) -> Group {
    match crate::files::read_regular_text(&root.join(format!("proc/{pid}/cgroup")), 64 * 1024) {
        Ok(text) => group_in(&text),
        Err(_) => Group::of(GroupKind::Unknown),
    }
}

/// The group a `/proc/<pid>/cgroup` text names: of cgroup v2's line and v1's hierarchies, the one that names a
/// job, pod or container (v1's systemd hierarchy may say a user's session where its memory one says the job),
/// else a user's session, else the host.
pub fn group_in(text: &str) -> Group {
    let rank = |g: &Group| match g.kind {
        GroupKind::User => 1,
        GroupKind::Host | GroupKind::Unknown | GroupKind::Idle => 2,
        GroupKind::SlurmJob | GroupKind::Pod | GroupKind::Container => 0,
    };
    text.lines().filter_map(|l| l.splitn(3, ':').nth(2)).map(group_at).min_by_key(rank).unwrap_or_else(|| Group::of(GroupKind::Host))
}

/// The pod UID a control-group path names (`kubepods.slice/…/kubepods-burstable-pod<uid>.slice`,
/// `kubepods/burstable/pod<uid>`), as `group_in` reads it; None for any other path.
pub fn pod_at(path: &str) -> Option<String> {
    let g = group_at(path);
    (g.kind == GroupKind::Pod).then_some(g.id)
}

/// The group a control-group path names: the outermost tenant boundary on it, read from the root down, so a
/// name deeper in a tree its tenant controls (systemd delegates a user's subtree, a container its own) never
/// claims another's energy. A Slurm job is `job_<id>` directly under slurmstepd's scope (cgroup v2) or under
/// `slurm…/uid_<u>` (v1); a pod is the first `…pod<uid>` under `kubepods…`; a container a `<runtime>-<id>.scope`
/// or `docker/<id>`; a user a `user-<uid>.slice`.
fn group_at(path: &str) -> Group {
    let parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let id = |kind: GroupKind, id: &str| Group { kind, id: id.to_string() };
    for (i, p) in parts.iter().enumerate() {
        let next = parts.get(i + 1).copied();
        // The job's number as `measure --slurm-job` reads one (`job_0077` is job 77).
        let job = |s: Option<&str>| match s.and_then(|s| crate::cli::job_id(s.strip_prefix("job_")?).ok()) {
            Some(j) => Group { kind: GroupKind::SlurmJob, id: j },
            None => Group::of(GroupKind::Host),
        };
        if *p == "slurmstepd.scope" {
            return job(next);
        }
        if p.starts_with("slurm") && next.is_some_and(|n| n.strip_prefix("uid_").is_some_and(is_digits)) {
            return job(parts.get(i + 2).copied());
        }
        if p.starts_with("kubepods") {
            // `kubepods-burstable-pod<uid>.slice` (systemd, the UID's dashes as underscores) or `pod<uid>` (cgroupfs).
            let pod = parts[i..].iter().find_map(|p| {
                let p = p.strip_suffix(".slice").unwrap_or(p);
                p.rsplit_once("-pod").map(|(_, u)| u).or_else(|| p.strip_prefix("pod")).filter(|u| is_uid(u))
            });
            return match pod {
                Some(uid) => id(GroupKind::Pod, &uid.replace('_', "-")),
                None => Group::of(GroupKind::Host),
            };
        }
        let scope = p.strip_suffix(".scope").unwrap_or(p);
        let container = ["docker-", "libpod-", "cri-containerd-", "crio-"].iter().find_map(|pre| scope.strip_prefix(pre));
        if let Some(c) = container.filter(|c| is_hex(c)) {
            return id(GroupKind::Container, &c[..12]);
        }
        if *p == "docker" {
            if let Some(c) = next.filter(|c| is_hex(c)) {
                return id(GroupKind::Container, &c[..12]);
            }
        }
        if let Some(uid) = p.strip_prefix("user-").and_then(|u| u.strip_suffix(".slice")).filter(|u| is_digits(u)) {
            return id(GroupKind::User, uid);
        }
    }
    Group::of(GroupKind::Host)
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit())
}

/// A container id: at least 12 hex digits.
fn is_hex(s: &str) -> bool {
    s.len() >= 12 && s.len() <= 128 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A pod UID, in either spelling (dashes, or the underscores systemd's slice names use); a static pod's is 32 hex
/// digits (its manifest's hash).
fn is_uid(s: &str) -> bool {
    (s.len() == 36 && s.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-' || b == b'_'))
        || (s.len() == 32 && s.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::{group_in, GroupKind};

    fn said(text: &str) -> (GroupKind, String) {
        let g = group_in(text);
        (g.kind, g.id)
    }

    #[test]
    fn a_process_is_known_by_the_job_pod_or_container_its_control_group_names() {
        let slurm_v2 = "0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n";
        assert_eq!(said(slurm_v2), (GroupKind::SlurmJob, "4242".into()));
        let slurm_v1 =
            "12:memory:/slurm/uid_1000/job_77/step_batch\n11:cpu,cpuacct:/slurm/uid_1000/job_77/step_batch\n1:name=systemd:/user.slice\n";
        assert_eq!(said(slurm_v1), (GroupKind::SlurmJob, "77".into()));
        let pod = "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod6f1c2a8e_3b7d_4c1e_9a2f_0d5e6b7c8a91.slice/cri-containerd-0123456789abcdef0123.scope\n";
        assert_eq!(said(pod), (GroupKind::Pod, "6f1c2a8e-3b7d-4c1e-9a2f-0d5e6b7c8a91".into()));
        let pod_v1 = "4:memory:/kubepods/besteffort/pod6f1c2a8e-3b7d-4c1e-9a2f-0d5e6b7c8a91/0123456789abcdef\n";
        assert_eq!(said(pod_v1), (GroupKind::Pod, "6f1c2a8e-3b7d-4c1e-9a2f-0d5e6b7c8a91".into()));
        assert_eq!(said("0::/system.slice/docker-3f4e5d6c7b8a9f0e1d2c3b4a.scope\n"), (GroupKind::Container, "3f4e5d6c7b8a".into()));
        assert_eq!(said("9:cpu:/docker/3f4e5d6c7b8a9f0e1d2c3b4a\n"), (GroupKind::Container, "3f4e5d6c7b8a".into()));
        assert_eq!(said("0::/user.slice/user-1000.slice/session-3.scope\n"), (GroupKind::User, "1000".into()));
        assert_eq!(said("0::/system.slice/nvidia-persistenced.service\n").0, GroupKind::Host);
        assert_eq!(said("0::/\n").0, GroupKind::Host);
        // A name that only looks like one: no job, no container.
        assert_eq!(said("0::/system.slice/job_x.service\n").0, GroupKind::Host);
        assert_eq!(said("0::/system.slice/docker-notanid.scope\n").0, GroupKind::Host);
        assert_eq!(said("").0, GroupKind::Host);
    }

    /// A name deeper in a tree its tenant controls claims nothing: the outermost boundary wins.
    #[test]
    fn a_name_inside_a_tenants_own_tree_claims_no_one_elses_energy() {
        // systemd delegates a user's subtree to the user: a `job_4242` there is the user's, not Slurm job 4242's.
        assert_eq!(said("0::/user.slice/user-1000.slice/user@1000.service/job_4242\n"), (GroupKind::User, "1000".into()));
        // A container's own tree: its `job_7` is the container's.
        assert_eq!(said("0::/system.slice/docker-3f4e5d6c7b8a9f0e1d2c3b4a.scope/job_7\n"), (GroupKind::Container, "3f4e5d6c7b8a".into()));
        // Slurm inside a pod: the pod's.
        let slurm_in_pod = "0::/kubepods.slice/kubepods-pod6f1c2a8e_3b7d_4c1e_9a2f_0d5e6b7c8a91.slice/cri-containerd-0123456789abcdef.scope/system.slice/slurmstepd.scope/job_1\n";
        assert_eq!(said(slurm_in_pod), (GroupKind::Pod, "6f1c2a8e-3b7d-4c1e-9a2f-0d5e6b7c8a91".into()));
        // A deeper `pod…` name does not hide the pod; a static pod's 32-digit UID is a pod's.
        let nested = "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod6f1c2a8e_3b7d_4c1e_9a2f_0d5e6b7c8a91.slice/crio-0123456789abcdef.scope/podman-1234.scope\n";
        assert_eq!(said(nested).0, GroupKind::Pod);
        assert_eq!(said("4:memory:/kubepods/burstable/pod0123456789abcdef0123456789abcdef/c0ffee\n").1, "0123456789abcdef0123456789abcdef");
        // Read from inside a container's cgroup namespace (a DaemonSet with hostPID): other pods' paths are relative.
        let relative =
            "0::/../../kubepods-besteffort-pod6f1c2a8e_3b7d_4c1e_9a2f_0d5e6b7c8a91.slice/cri-containerd-0123456789abcdef.scope\n";
        assert_eq!(said(relative), (GroupKind::Pod, "6f1c2a8e-3b7d-4c1e-9a2f-0d5e6b7c8a91".into()));
        // A job id as its control group spells it, leading zeros and all, is the job's number.
        assert_eq!(said("0::/system.slice/slurmstepd.scope/job_0077/step_0\n").1, "77");
    }
}
