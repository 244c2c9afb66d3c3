//! RAPL through the perf `power` PMU: the path that works without root
//! (CAP_PERFMON, or `kernel.perf_event_paranoid` at 0 or below).
//!
//! The PMU is described in `sys/bus/event_source/devices/power/`: its
//! `type`, the CPUs to open it on (`cpumask`, one per package), and each
//! event's code (`events/energy-pkg`: `event=0x02`) and scale (`.scale`,
//! joules per count). The kernel keeps a 64-bit count and handles the
//! hardware's 32-bit wrap itself, so these counters do not wrap.

use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;

use super::powercap::small;
use super::share::cpu_list;
use super::{CpuError, CpuSource, Kind, Zone};

/// `perf_event_attr` as far as the fifth revision (112 bytes): type, size and config set, the rest zero.
#[repr(C)]
struct Attr {
    kind: u32,
    size: u32,
    config: u64,
    rest: [u64; 12],
}

/// An opened counter: how to read its count (the descriptor's `read`, or recorded counts in tests), and joules per count.
struct Counter {
    count: Box<dyn FnMut() -> Option<u64> + Send>,
    scale: f64,
}

/// The PMU's package and DRAM counters, one per CPU of its mask.
pub struct Perf {
    zones: Vec<Zone>,
    counters: Vec<Counter>,
}

/// An event's code from its file (`event=0x02`).
fn event_code(s: &str) -> Option<u64> {
    let v = s.split(',').find_map(|p| p.trim().strip_prefix("event="))?;
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

/// The descriptor is closed on exec: the measured job must never inherit a system-wide energy counter.
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 8;

/// Opens one system-wide counter of `kind`'s `config` on `cpu`.
fn open_counter(kind: u32, config: u64, cpu: i32) -> std::io::Result<OwnedFd> {
    let attr = Attr { kind, size: std::mem::size_of::<Attr>() as u32, config, rest: [0; 12] };
    // SAFETY: perf_event_open(2) reads `attr` (a live, fully initialised perf_event_attr of the size it
    // names) and returns a new descriptor or -1; no other memory is touched.
    let fd = unsafe {
        libc::syscall(libc::SYS_perf_event_open, &attr as *const Attr, -1 as libc::pid_t, cpu, -1 as libc::c_int, PERF_FLAG_FD_CLOEXEC)
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let fd = i32::try_from(fd).map_err(|_| std::io::Error::other("perf_event_open gave no descriptor"))?;
    // SAFETY: `fd` was just returned by the kernel and is owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn read_count(fd: &OwnedFd) -> Option<u64> {
    use std::os::fd::AsRawFd;
    let mut v = 0u64;
    // SAFETY: read(2) writes at most 8 bytes into `v`, which is 8 bytes long and lives across the call.
    let n = unsafe { libc::read(fd.as_raw_fd(), (&mut v as *mut u64).cast(), 8) };
    (n == 8).then_some(v)
}

impl Perf {
    /// The package and DRAM events of `root/sys/bus/event_source/devices/power`, opened on each CPU of its mask.
    pub fn open(root: &Path) -> Result<Perf, CpuError> {
        let pmu = root.join("sys/bus/event_source/devices/power");
        let kind: u32 = small(&pmu.join("type"))
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| CpuError::Missing(format!("no perf power PMU: {} cannot be read", pmu.join("type").display())))?;
        let cpus = small(&pmu.join("cpumask"))
            .ok()
            .and_then(|m| cpu_list(&m))
            .filter(|c| !c.is_empty())
            .ok_or_else(|| CpuError::Failed(format!("{}: not a CPU list", pmu.join("cpumask").display())))?;
        let mut p = Perf { zones: Vec::new(), counters: Vec::new() };
        for (event, kind_of) in [("energy-pkg", Kind::Package), ("energy-ram", Kind::Dram)] {
            let Some(config) = small(&pmu.join("events").join(event)).ok().and_then(|s| event_code(&s)) else { continue };
            let scale = small(&pmu.join("events").join(format!("{event}.scale"))).ok().and_then(|s| s.parse::<f64>().ok());
            let Some(scale) = scale.filter(|s| s.is_finite() && *s > 0.0) else {
                return Err(CpuError::Failed(format!("{}: no scale for {event}", pmu.display())));
            };
            for &cpu in &cpus {
                let cpu_i = i32::try_from(cpu).unwrap_or(i32::MAX);
                let fd = open_counter(kind, config, cpu_i).map_err(|e| {
                    let what = format!("perf_event_open(power/{event}, type {kind}, CPU {cpu})");
                    match e.raw_os_error() {
                        Some(libc::EACCES | libc::EPERM) => CpuError::NoAccess(format!("{what}: {e}")),
                        Some(libc::ENOENT | libc::ENODEV | libc::EINVAL | libc::EOPNOTSUPP) => {
                            CpuError::Missing(format!("{what}: {e}: this kernel has no such RAPL event"))
                        }
                        _ => CpuError::Failed(format!("{what}: {e}")),
                    }
                })?;
                p.zones.push(Zone { id: format!("power/{event} on CPU {cpu}"), name: event.to_string(), kind: kind_of, range_uj: None });
                p.counters.push(Counter { count: Box::new(move || read_count(&fd)), scale });
            }
        }
        if !p.zones.iter().any(|z| z.kind == Kind::Package) {
            return Err(CpuError::Missing(format!("the perf power PMU at {} has no energy-pkg event", pmu.display())));
        }
        Ok(p)
    }
}

impl CpuSource for Perf {
    fn kind(&self) -> &'static str {
        "perf"
    }

    fn zones(&self) -> &[Zone] {
        &self.zones
    }

    fn read(&mut self) -> Vec<Option<u64>> {
        // Counts in µJ: counts × joules per count × 10^6 (exact to well under a µJ for RAPL's 2^-32 J).
        // A count that comes to more µJ than 64 bits hold (a scale no RAPL PMU has) is no reading: never saturated to one.
        self.counters
            .iter_mut()
            .map(|c| (c.count)().map(|n| n as f64 * c.scale * 1e6).filter(|uj| uj.is_finite() && *uj < u64::MAX as f64).map(|uj| uj as u64))
            .collect()
    }

    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CpuSource, Kind, Meter, Zone};
    use super::{event_code, Counter, Perf};

    /// The PMU's scale for RAPL energy: 2^-32 J per count.
    const SCALE: f64 = 2.328_306_436_538_696_3e-10;

    fn recorded(counts: Vec<u64>) -> Counter {
        let mut it = counts.into_iter();
        Counter { count: Box::new(move || it.next()), scale: SCALE }
    }

    #[test]
    fn recorded_counts_are_scaled_to_joules_and_summed_over_the_packages() {
        // Two packages and one DRAM counter, as `perf stat -a -e power/energy-pkg/,power/energy-ram/` counts them:
        // 2^32 counts are a joule.
        let zone = |id: &str, kind| Zone { id: id.into(), name: "energy-pkg".into(), kind, range_uj: None };
        let mut p = Perf {
            zones: vec![
                zone("power/energy-pkg on CPU 0", Kind::Package),
                zone("power/energy-pkg on CPU 56", Kind::Package),
                zone("power/energy-ram on CPU 0", Kind::Dram),
            ],
            counters: vec![
                recorded(vec![10 << 32, 110 << 32, 250 << 32]),
                recorded(vec![5 << 32, 65 << 32, 105 << 32]),
                recorded(vec![1 << 32, 21 << 32, 41 << 32]),
            ],
        };
        let mut m = Meter::new(p.zones().to_vec(), p.read());
        m.add(&p.read(), 1.0);
        m.add(&p.read(), 2.0);
        assert_eq!(m.joules(Kind::Package), Some(240.0 + 100.0));
        assert_eq!(m.joules(Kind::Dram), Some(40.0));
        assert_eq!(m.wraps(), 0, "the kernel extends the count: no wrap");
        assert_eq!(p.read(), vec![None, None, None], "a counter that stops answering");
    }

    #[test]
    fn event_codes_are_read_as_the_kernel_writes_them() {
        assert_eq!(event_code("event=0x02"), Some(2));
        assert_eq!(event_code("event=0x03\n"), Some(3));
        assert_eq!(event_code("umask=0x1,event=5"), Some(5));
        assert_eq!(event_code("config:0-7"), None);
    }
}
