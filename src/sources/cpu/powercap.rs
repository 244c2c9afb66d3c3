//! RAPL through the Linux powercap tree: `sys/class/powercap/intel-rapl:*`
//! (AMD Zen exposes its packages through the same tree).
//!
//! Counted: each package zone (`package-N`) and each package's `dram`
//! subzone. Not counted, and said: `psys` (the platform, a superset of the
//! packages: never added to them), `core`/`uncore` (parts of their
//! package), an `intel-rapl-mmio` zone that reads the same counter as an
//! `intel-rapl` zone of the same name, and a package whose counter mirrors
//! another's (multi-die parts that show one package per die).

use std::path::Path;

use super::{CpuError, CpuSource, Kind, Zone};

/// A zone file is a number: a few bytes. Anything longer is not a counter.
const CAP: u64 = 64;

/// What granting access takes, said once with the refusal (`cpu::open`): to a group, never to every user
/// (a world-readable `energy_uj` is CVE-2020-8694 again: power side channels).
pub const GRANT: &str = "since CVE-2020-8694 only root may read RAPL energy: let one group read energy_uj with a udev rule \
(docs/measuring.md), never every user, or give exa CAP_PERFMON for --cpu-source perf";

/// The powercap tree's counters.
pub struct Powercap {
    zones: Vec<Zone>,
    /// Each zone's `energy_uj`, opened once and read again from its start at every reading (sysfs makes
    /// the value anew for a read at offset 0): one system call a zone, where opening it each time took three.
    files: Vec<std::fs::File>,
    notes: Vec<String>,
}

/// A small file's text, capped.
pub(super) fn small(path: &Path) -> std::io::Result<String> {
    Ok(crate::files::read_regular_text(path, CAP)?.trim().to_string())
}

/// The counter now: the file read from its start, a number of at most `CAP` bytes.
fn read_again(f: &std::fs::File) -> Option<u64> {
    use std::os::unix::fs::FileExt;
    let mut buf = [0u8; CAP as usize];
    let n = f.read_at(&mut buf, 0).ok()?;
    std::str::from_utf8(&buf[..n]).ok()?.trim().parse().ok()
}

fn counter(path: &Path) -> std::io::Result<u64> {
    let s = small(path)?;
    s.parse::<u64>()
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("'{}' is not a count", crate::text::clean(&s))))
}

/// A zone directory's name: its control type (`intel-rapl` or `intel-rapl-mmio`) and its ids in hex.
fn parse_dir(name: &str) -> Option<(bool, Vec<u32>)> {
    let (mmio, rest) =
        if let Some(r) = name.strip_prefix("intel-rapl-mmio:") { (true, r) } else { (false, name.strip_prefix("intel-rapl:")?) };
    let ids: Option<Vec<u32>> = rest.split(':').map(|p| u32::from_str_radix(p, 16).ok()).collect();
    ids.filter(|i| !i.is_empty() && i.len() <= 2).map(|i| (mmio, i))
}

struct Found {
    dir: String,
    mmio: bool,
    ids: Vec<u32>,
    name: String,
}

impl Powercap {
    /// The counters under `root/sys/class/powercap`, each read once to check it can be.
    pub fn open(root: &Path) -> Result<Powercap, CpuError> {
        let base = root.join("sys/class/powercap");
        let entries = std::fs::read_dir(&base).map_err(|e| {
            CpuError::Missing(format!("no RAPL counters: {} cannot be read ({e}); a VM or a container without them", base.display()))
        })?;
        let mut found = Vec::new();
        for e in entries.flatten() {
            let dir = e.file_name().to_string_lossy().into_owned();
            let Some((mmio, ids)) = parse_dir(&dir) else { continue };
            let Ok(name) = small(&base.join(&dir).join("name")) else { continue };
            found.push(Found { dir, mmio, ids, name: crate::text::clean(&name) });
        }
        found.sort_by(|a, b| (a.mmio, &a.ids).cmp(&(b.mmio, &b.ids)));
        let mut p = Powercap { zones: Vec::new(), files: Vec::new(), notes: Vec::new() };
        let mut firsts: Vec<u64> = Vec::new();
        // Packages left out (mirrors): their subzones go with them.
        let mut dropped: Vec<(bool, u32)> = Vec::new();
        for f in &found {
            if f.ids.len() == 2 && dropped.contains(&(f.mmio, f.ids[0])) {
                continue;
            }
            let kind = match (f.ids.len(), f.name.as_str()) {
                (1, n) if n.starts_with("package-") => Kind::Package,
                (2, "dram") => Kind::Dram,
                (1, "psys") => {
                    p.notes.push(format!("{} (psys, the whole platform) is a superset of the packages: not added to them", f.dir));
                    continue;
                }
                _ => continue,
            };
            if f.mmio {
                // The same counter read through MMIO: an intel-rapl zone of the same name and level has it.
                let twin = found
                    .iter()
                    .find(|g| !g.mmio && g.name == f.name && g.ids.len() == f.ids.len() && (f.ids.len() == 1 || g.ids[0] == f.ids[0]));
                if let Some(t) = twin {
                    p.notes.push(format!("{} ({}) reads the same counter as {}: counted once", f.dir, f.name, t.dir));
                    continue;
                }
            }
            let file = base.join(&f.dir).join("energy_uj");
            let first = counter(&file).map_err(|e| match e.kind() {
                std::io::ErrorKind::PermissionDenied => CpuError::NoAccess(format!("{}: permission denied", file.display())),
                _ => CpuError::Failed(format!("{}: {e}", file.display())),
            })?;
            let range_uj = counter(&base.join(&f.dir).join("max_energy_range_uj")).ok().filter(|r| *r > 0);
            let id = if f.ids.len() == 2 { format!("{} ({})", f.dir, f.name) } else { f.dir.clone() };
            if kind == Kind::Package {
                // A multi-die part may show one zone per die over one package counter: the same count, at once.
                let mirror = p.zones.iter().zip(&firsts).find(|(z, v)| z.kind == Kind::Package && **v == first && z.range_uj == range_uj);
                if let Some((z, _)) = mirror {
                    p.notes.push(format!(
                        "{} ({}) mirrors {} ({}): the same counter, counted once, its subzones with it",
                        f.dir, f.name, z.id, z.name
                    ));
                    dropped.push((f.mmio, f.ids[0]));
                    continue;
                }
            }
            // Opened to be read again and again: only a regular file (sysfs's are), never waited on.
            let opened = crate::files::open_regular(&file).map_err(|e| CpuError::Failed(format!("{}: {e}", file.display())))?;
            p.zones.push(Zone { id, name: f.name.clone(), kind, range_uj });
            p.files.push(opened);
            firsts.push(first);
        }
        if !p.zones.iter().any(|z| z.kind == Kind::Package) {
            return Err(CpuError::Missing(format!("no RAPL package counter under {}", base.display())));
        }
        Ok(p)
    }
}

impl CpuSource for Powercap {
    fn kind(&self) -> &'static str {
        "powercap"
    }

    fn zones(&self) -> &[Zone] {
        &self.zones
    }

    fn read(&mut self) -> Vec<Option<u64>> {
        self.files.iter().map(read_again).collect()
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::parse_dir;

    #[test]
    fn zone_names_are_read_in_hex() {
        assert_eq!(parse_dir("intel-rapl:a"), Some((false, vec![10])));
        assert_eq!(parse_dir("intel-rapl:0:1"), Some((false, vec![0, 1])));
        assert_eq!(parse_dir("intel-rapl-mmio:0"), Some((true, vec![0])));
        assert_eq!(parse_dir("intel-rapl"), None);
        assert_eq!(parse_dir("intel-rapl:0:1:2"), None);
    }
}
