//! The job's share of a node's CPU energy: whole when it owns the node,
//! else its CPU time over the node's busy time (`proc/stat`).

use std::path::Path;

use super::powercap::small;

/// At most this many CPUs in a list (a larger one is not a CPU list).
const MAX_CPUS: u32 = 1 << 16;

/// A kernel CPU list (`0-3,8,10-11`), in order; None when it is not one.
pub fn cpu_list(s: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?),
            None => {
                let v = part.trim().parse::<u32>().ok()?;
                (v, v)
            }
        };
        if a > b || b >= MAX_CPUS || out.len() as u32 + (b - a) >= MAX_CPUS {
            return None;
        }
        out.extend(a..=b);
    }
    Some(out)
}

/// The node's busy CPU time so far, in seconds: user, nice, system, irq, softirq and steal of the
/// first line of `root/proc/stat` (guest time is in user already).
pub fn node_busy_s(root: &Path) -> Option<f64> {
    let path = root.join("proc/stat");
    let text = crate::files::read_regular_text(&path, 1 << 20).ok()?;
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line.split_whitespace().skip(1).map(|f| f.parse().ok()).collect::<Option<_>>()?;
    let ticks: u64 = [0, 1, 2, 5, 6, 7].iter().filter_map(|&i| v.get(i)).fold(0u64, |a, b| a.saturating_add(*b));
    // SAFETY: sysconf(3) reads no memory of the caller's.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (hz > 0).then(|| ticks as f64 / hz as f64)
}

/// The CPUs this process may run on (its cpuset, which the job it starts inherits).
fn allowed_cpus() -> Option<Vec<u32>> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity(2) writes at most its size into it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above; pid 0 is this thread.
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return None;
    }
    let n = u32::try_from(libc::CPU_SETSIZE).unwrap_or(1024);
    // SAFETY: CPU_ISSET reads the set within its size (i < CPU_SETSIZE).
    Some((0..n).filter(|&i| unsafe { libc::CPU_ISSET(i as usize, &set) }).collect())
}

/// How many CPUs the node has online (`root/sys/devices/system/cpu/online`); None when unreadable.
pub fn online(root: &Path) -> Option<usize> {
    small(&root.join("sys/devices/system/cpu/online")).ok().and_then(|s| cpu_list(&s)).map(|l| l.len())
}

/// The node's CPU model and its logical CPUs a socket (`siblings`: CPU-hours count logical CPUs), as
/// `/proc/cpuinfo` says them for its first processor (the file's first 64 KiB). None where there is no model name (an
/// ARM kernel says none); no CPUs a socket in a virtual machine (`hypervisor` among the flags), whose CPUs are not
/// its socket's.
pub fn model(root: &Path) -> Option<(String, Option<f64>)> {
    use std::io::Read;
    let f = std::fs::File::open(root.join("proc/cpuinfo")).ok()?;
    let mut bytes = Vec::new();
    f.take(64 << 10).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let first = text.split("\n\n").next()?;
    let field = |name: &str| {
        first.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim().to_string())
        })
    };
    let name = field("model name").filter(|n| !n.is_empty())?;
    let virtual_machine = field("flags").is_some_and(|f| f.split_whitespace().any(|x| x == "hypervisor"));
    let cores = field("siblings").and_then(|c| c.parse::<f64>().ok()).filter(|c| *c >= 1.0 && *c <= 4096.0 && !virtual_machine);
    Some((crate::text::clean(&name).chars().take(200).collect(), cores))
}

/// Whether the job owns the node's CPUs, and why it is judged so.
pub struct Ownership {
    /// The node's energy is all the job's.
    pub whole: bool,
    /// Why, as the report says it.
    pub why: String,
}

/// The job owns the node when its cpuset holds every online CPU (`root/sys/devices/system/cpu/online`) and
/// it is the only rank here: `ranks` (from the launcher's variables) over 1 means others share the node.
pub fn ownership(root: &Path, ranks: Option<(u32, &str)>) -> Ownership {
    if let Some((n, from)) = ranks.filter(|(n, _)| *n > 1) {
        return Ownership { whole: false, why: format!("{n} ranks on this node ({from}): each gets its share") };
    }
    let online_file = root.join("sys/devices/system/cpu/online");
    let Some(online) = small(&online_file).ok().and_then(|s| cpu_list(&s)) else {
        return Ownership { whole: false, why: format!("the node's CPUs are unknown ({} unreadable)", online_file.display()) };
    };
    match allowed_cpus() {
        Some(mine) if online.iter().all(|c| mine.contains(c)) => {
            Ownership { whole: true, why: format!("the job's cpuset holds all {} CPUs of the node", online.len()) }
        }
        Some(mine) => Ownership {
            whole: false,
            why: format!(
                "the job's cpuset holds {} of the node's {} CPUs",
                mine.iter().filter(|c| online.contains(c)).count(),
                online.len()
            ),
        },
        None => Ownership { whole: false, why: "the job's cpuset could not be read".into() },
    }
}

#[cfg(test)]
mod tests {
    use super::cpu_list;

    #[test]
    fn cpu_lists_as_the_kernel_writes_them() {
        assert_eq!(cpu_list("0-3,8,10-11\n"), Some(vec![0, 1, 2, 3, 8, 10, 11]));
        assert_eq!(cpu_list("0,56"), Some(vec![0, 56]));
        assert_eq!(cpu_list(""), Some(vec![]));
        assert_eq!(cpu_list("3-1"), None);
        assert_eq!(cpu_list("0-4294967295"), None);
        assert_eq!(cpu_list("x"), None);
    }
}
