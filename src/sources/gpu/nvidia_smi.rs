//! Readings from `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`.
//!
//! The `nvidia-smi` used is the first on `PATH`. It prints its errors on
//! stdout with a non-zero exit. A driver that rejects a field
//! (`Field "X" is not a valid field to query.`) moves the source down one
//! field set: the current clock-event names, then the older throttle names,
//! then the core set (utilisation, memory, temperature, power).

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use super::{Device, GpuSource, SampleError};
use crate::sources::child::{self, RunError};

const CORE: &[&str] =
    &["index", "name", "uuid", "utilization.gpu", "utilization.memory", "memory.used", "memory.total", "temperature.gpu", "power.draw"];
const EXTRA: &[&str] = &["power.limit", "clocks.current.sm", "clocks.current.memory", "fan.speed", "pstate"];
const ECC: &[&str] = &["ecc.errors.corrected.volatile.total", "ecc.errors.uncorrected.volatile.total"];
const REASONS: &[&str] = &["sw_thermal_slowdown", "hw_thermal_slowdown", "sw_power_cap", "hw_slowdown"];

/// The field sets, most complete first: (label, the prefix of the throttle fields or none).
const TIERS: &[(&str, Option<&str>)] =
    &[("full", Some("clocks_event_reasons")), ("full-throttle-names", Some("clocks_throttle_reasons")), ("core", None)];

fn fields(tier: usize) -> Vec<String> {
    let mut f: Vec<String> = CORE.iter().map(std::string::ToString::to_string).collect();
    if let Some(prefix) = TIERS[tier].1 {
        f.extend(EXTRA.iter().map(std::string::ToString::to_string));
        f.extend(REASONS.iter().map(|r| format!("{prefix}.{r}")));
        f.extend(ECC.iter().map(std::string::ToString::to_string));
    }
    f
}

/// GPU readings through `nvidia-smi --query-gpu`.
pub struct NvidiaSmi {
    program: PathBuf,
    tier: usize,
    deadline: Duration,
    notices: Vec<String>,
    /// Each device's index by UUID, from the last reading.
    uuids: Vec<(String, u32)>,
}

/// The first `nvidia-smi` in the directories of `path`.
pub fn locate(path: &[PathBuf]) -> Option<PathBuf> {
    path.iter().map(|d| d.join("nvidia-smi")).find(|p| crate::files::is_executable(p))
}

/// The deadline of a call beside the readings (the processes on the devices, the MIG list).
const ASIDE: Duration = Duration::from_secs(2);

impl NvidiaSmi {
    /// The program at `program`, each call bounded by `deadline`.
    pub fn new(program: PathBuf, deadline: Duration) -> Self {
        NvidiaSmi { program, tier: 0, deadline, notices: Vec::new(), uuids: Vec::new() }
    }

    /// The one on `PATH`, or why there is none.
    pub fn from_path(path: &[PathBuf], deadline: Duration) -> Result<Self, SampleError> {
        locate(path)
            .map(|p| NvidiaSmi::new(p, deadline))
            .ok_or_else(|| SampleError::Missing("no nvidia-smi on PATH: no GPU to read on this host".into()))
    }

    fn query(&self) -> Result<String, SampleError> {
        let q = format!("--query-gpu={}", fields(self.tier).join(","));
        self.call(&[&q, "--format=csv,noheader,nounits"])
    }

    /// One call of the tool with `args`: its stdout, or why there is none.
    fn call(&self, args: &[&str]) -> Result<String, SampleError> {
        self.call_within(args, self.deadline)
    }

    fn call_within(&self, args: &[&str], deadline: Duration) -> Result<String, SampleError> {
        let done = child::run(&self.program, args, None, Stdio::piped(), deadline).map_err(|e| match e {
            RunError::Spawn(e) => SampleError::Failed(format!("cannot run {}: {e}", self.program.display())),
            RunError::Timeout(d) => {
                SampleError::Failed(format!("nvidia-smi gave no answer within {:.0} s and was killed", d.as_secs_f64()))
            }
            RunError::Output(e) => SampleError::Failed(format!("nvidia-smi: {e}")),
        })?;
        let text = String::from_utf8_lossy(&done.stdout).into_owned();
        let said = text.trim();
        if said.contains("No devices were found") {
            return Err(SampleError::NoDevices("nvidia-smi found no devices (\"No devices were found\")".into()));
        }
        if !done.status.success() {
            let first = said.lines().next().unwrap_or("").trim();
            let what = if first.is_empty() { "no output".to_string() } else { format!("\"{first}\"") };
            return Err(SampleError::Failed(format!("nvidia-smi exited with {} and said {what}", done.status)));
        }
        if said.is_empty() {
            return Err(SampleError::Failed("nvidia-smi printed nothing".into()));
        }
        Ok(text)
    }
}

/// The field a driver rejected, from its stdout.
fn rejected_field(e: &SampleError) -> Option<String> {
    let SampleError::Failed(msg) = e else { return None };
    let start = msg.find("Field \"")? + 7;
    let len = msg[start..].find('"')?;
    msg.contains("is not a valid field").then(|| msg[start..start + len].to_string())
}

impl GpuSource for NvidiaSmi {
    fn sample(&mut self) -> Result<Vec<Device>, SampleError> {
        loop {
            match self.query() {
                Ok(text) => {
                    let devices = parse(&text, &fields(self.tier))?;
                    self.uuids = devices.iter().filter_map(|d| Some((d.uuid.clone()?, d.index))).collect();
                    return Ok(devices);
                }
                Err(e) => match rejected_field(&e) {
                    Some(field) if self.tier + 1 < TIERS.len() => {
                        self.tier += 1;
                        self.notices.push(format!(
                            "nvidia-smi does not know the field \"{field}\"; using the {} field set from now on",
                            TIERS[self.tier].0
                        ));
                    }
                    _ => return Err(e),
                },
            }
        }
    }

    fn describe(&self) -> String {
        format!("nvidia-smi ({})", self.program.display())
    }

    fn kind(&self) -> &'static str {
        "nvidia-smi"
    }

    fn processes(&mut self) -> Option<Vec<(u32, u32)>> {
        // A look beside the readings, never in their way: a hung listing holds them a moment, not a deadline.
        let text =
            self.call_within(&["--query-compute-apps=gpu_uuid,pid", "--format=csv,noheader,nounits"], self.deadline.min(ASIDE)).ok()?;
        Some(compute_apps(&text, &self.uuids))
    }

    /// One `nvidia-smi -L` for both: the instance's GPU and its profile's slices.
    fn mig(&mut self, uuid: &str) -> Option<(u32, Option<(u32, u32)>)> {
        let list = self.call_within(&["-L"], self.deadline.min(ASIDE)).ok()?;
        let gpu = list_mig(&list).into_iter().find(|(mig, _)| mig == uuid).map(|(_, gpu)| gpu)?;
        Some((gpu, mig_slices_in(&list, uuid)))
    }

    fn shorten(&mut self, deadline: Duration) {
        self.deadline = self.deadline.min(deadline);
    }

    fn fields(&self) -> &'static str {
        TIERS[self.tier].0
    }

    fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }
}

/// `--query-compute-apps=gpu_uuid,pid` as (device index, pid), devices found by UUID.
pub fn compute_apps(text: &str, uuids: &[(String, u32)]) -> Vec<(u32, u32)> {
    text.lines()
        .filter_map(|l| {
            let (uuid, pid) = l.split_once(',')?;
            let index = uuids.iter().find(|(u, _)| u == uuid.trim())?.1;
            Some((index, pid.trim().parse().ok()?))
        })
        .collect()
}

/// A MIG instance's compute slices of its GPU's, from `nvidia-smi -L`: its profile's (`3g.40gb` is 3, a compute
/// instance `1c.3g.40gb` 1) of its GPU's, which the list does not say: 4 on an A30, 7 on the others with MIG (A100,
/// H100, H200, GH200, B200).
pub fn mig_slices_in(text: &str, uuid: &str) -> Option<(u32, u32)> {
    let mut of = 7;
    for line in text.lines() {
        if line.starts_with("GPU ") {
            of = if line.contains(" A30") { 4 } else { 7 };
        } else if line.contains(&format!("(UUID: {uuid})")) {
            let profile = line.trim_start().strip_prefix("MIG ")?.split_whitespace().next()?;
            let slices =
                profile.split('.').find_map(|p| p.strip_suffix('c')).or_else(|| profile.split('.').find_map(|p| p.strip_suffix('g')));
            return slices?.parse::<u32>().ok().filter(|s| (1..=of).contains(s)).map(|s| (s, of));
        }
    }
    None
}

/// `nvidia-smi -L` as (MIG UUID, the index of its GPU).
pub fn list_mig(text: &str) -> Vec<(String, u32)> {
    let mut gpu = None;
    let mut out = Vec::new();
    for line in text.lines() {
        let uuid = line.rsplit_once("(UUID: ").and_then(|(_, u)| u.strip_suffix(')')).map(str::trim);
        if let Some(rest) = line.strip_prefix("GPU ") {
            gpu = rest.split(':').next().and_then(|i| i.trim().parse::<u32>().ok());
        } else if let (Some(g), Some(u)) = (gpu, uuid.filter(|u| u.starts_with("MIG-"))) {
            out.push((u.to_string(), g));
        }
    }
    out
}

/// Cell values meaning "this device cannot say".
fn absent(cell: &str) -> bool {
    let c = cell.trim();
    c.is_empty() || c.starts_with('[') || c.eq_ignore_ascii_case("N/A") || c.eq_ignore_ascii_case("Not Supported")
}

/// The most power a reading may claim for one device, W: beyond it the reading is broken.
pub const MAX_DEVICE_W: f64 = 100_000.0;

fn number(cell: &str) -> Option<f64> {
    if absent(cell) {
        return None;
    }
    // Tolerate a unit if the tool printed one anyway.
    let c = cell.split_whitespace().next()?;
    c.parse::<f64>().ok().filter(|v| v.is_finite())
}

fn active(cell: &str) -> Option<bool> {
    match cell.trim() {
        "Active" => Some(true),
        "Not Active" => Some(false),
        _ => None,
    }
}

/// Parses `--format=csv,noheader,nounits` output queried with `fields`.
pub fn parse(text: &str, fields: &[String]) -> Result<Vec<Device>, SampleError> {
    let mut devices = Vec::new();
    for (n, line) in text.lines().map(str::trim).filter(|l| !l.is_empty()).enumerate() {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != fields.len() {
            let shown: String = line.chars().take(80).collect();
            return Err(SampleError::Failed(format!(
                "nvidia-smi line {} has {} values for {} fields: \"{shown}\"",
                n + 1,
                cells.len(),
                fields.len()
            )));
        }
        let get = |name: &str| fields.iter().position(|f| f == name || f.ends_with(&format!(".{name}"))).map(|i| cells[i]);
        let num = |name: &str| get(name).and_then(number);
        let flag = |name: &str| get(name).and_then(active);
        let either = |a: Option<bool>, b: Option<bool>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(false) || b.unwrap_or(false)),
        };
        let index = get("index").and_then(|c| c.parse::<u32>().ok()).unwrap_or(n as u32);
        devices.push(Device {
            index,
            name: get("name").filter(|c| !absent(c)).unwrap_or("unknown").to_string(),
            uuid: get("uuid").filter(|c| !absent(c)).map(str::to_string),
            utilization_pct: num("utilization.gpu"),
            memory_utilization_pct: num("utilization.memory"),
            memory_used_mib: num("memory.used"),
            memory_total_mib: num("memory.total"),
            temperature_c: num("temperature.gpu"),
            // A power below zero or beyond any device's is a failed reading, not a figure.
            power_w: num("power.draw").filter(|w| (0.0..=MAX_DEVICE_W).contains(w)),
            power_limit_w: num("power.limit"),
            clock_sm_mhz: num("clocks.current.sm"),
            clock_memory_mhz: num("clocks.current.memory"),
            fan_pct: num("fan.speed"),
            pstate: get("pstate").and_then(|c| c.trim().strip_prefix('P')).and_then(|p| p.parse().ok()),
            throttle_thermal: either(flag("sw_thermal_slowdown"), flag("hw_thermal_slowdown")),
            throttle_power: flag("sw_power_cap"),
            throttle_hw_slowdown: flag("hw_slowdown"),
            ecc_corrected: num("ecc.errors.corrected.volatile.total").map(|v| v as u64),
            ecc_uncorrected: num("ecc.errors.uncorrected.volatile.total").map(|v| v as u64),
            energy_counter_j: None,
        });
    }
    if devices.is_empty() {
        return Err(SampleError::Failed("nvidia-smi printed no device lines".into()));
    }
    let mut seen = std::collections::BTreeSet::new();
    if let Some(d) = devices.iter().find(|d| !seen.insert(d.index)) {
        return Err(SampleError::Failed(format!("nvidia-smi reported device index {} twice; this reading is not used", d.index)));
    }
    Ok(devices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn na_cells_are_absent_not_zero() {
        let f = fields(0);
        let line = "0, NVIDIA GeForce RTX 3080 Laptop GPU, GPU-1d2c, 3, 1, 10240, 16384, 54, 21.5, [N/A], 1230, 7000, [Not Supported], P3, Not Active, Not Active, Active, [Unknown Error], [N/A], N/A";
        let d = &parse(line, &f).unwrap()[0];
        assert_eq!(d.power_w, Some(21.5));
        assert_eq!(d.power_limit_w, None);
        assert_eq!(d.fan_pct, None);
        assert_eq!(d.pstate, Some(3));
        assert_eq!(d.throttle_thermal, Some(false));
        assert_eq!(d.throttle_power, Some(true));
        assert_eq!(d.throttle_hw_slowdown, None);
        assert_eq!((d.ecc_corrected, d.ecc_uncorrected), (None, None));
    }

    #[test]
    fn mig_instances_are_found_under_their_gpu() {
        let l = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0a)\n  MIG 3g.40gb     Device  0: (UUID: MIG-0b)\nGPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-1a)\n  MIG 1g.10gb     Device  0: (UUID: MIG-1b)\n";
        assert_eq!(list_mig(l), vec![("MIG-0b".to_string(), 0), ("MIG-1b".to_string(), 1)]);
        let uuids = vec![("GPU-0a".to_string(), 0), ("GPU-1a".to_string(), 1)];
        assert_eq!(compute_apps("GPU-1a, 4242\nGPU-zz, 1\n", &uuids), vec![(1, 4242)]);
    }

    #[test]
    fn a_mig_instances_slices_are_its_profiles_of_its_gpus() {
        let l = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0a)\n  MIG 3g.40gb     Device  0: (UUID: MIG-0b)\n  MIG 1c.3g.40gb  Device  1: (UUID: MIG-0c)\nGPU 1: NVIDIA A30 (UUID: GPU-1a)\n  MIG 2g.12gb     Device  0: (UUID: MIG-1b)\n  MIG 9g.99gb     Device  1: (UUID: MIG-1c)\n";
        assert_eq!(mig_slices_in(l, "MIG-0b"), Some((3, 7)));
        assert_eq!(mig_slices_in(l, "MIG-0c"), Some((1, 7)));
        assert_eq!(mig_slices_in(l, "MIG-1b"), Some((2, 4)));
        // More slices than the GPU has, or an instance not listed: not known.
        assert_eq!((mig_slices_in(l, "MIG-1c"), mig_slices_in(l, "MIG-zz")), (None, None));
    }

    #[test]
    fn a_real_h200_at_its_power_cap() {
        // exa's own query answered by an H200 (driver 580.159.04) under a matmul load.
        let capture = include_str!("../../../tests/fixtures/gpu/h200-device-check/nvidia-smi-exa-queries.txt");
        let line = capture.lines().filter(|l| l.starts_with("0, NVIDIA H200")).nth(1).unwrap();
        let d = &parse(line, &fields(0)).unwrap()[0];
        assert_eq!(d.name, "NVIDIA H200");
        assert_eq!(d.uuid.as_deref(), Some("GPU-9704ed00-075a-c676-9113-b6194c17379a"));
        assert_eq!(d.power_w, Some(413.77));
        assert_eq!(d.power_limit_w, Some(700.0));
        assert_eq!(d.fan_pct, None);
        assert_eq!(d.pstate, Some(0));
        assert_eq!((d.throttle_power, d.throttle_thermal, d.throttle_hw_slowdown), (Some(true), Some(false), Some(false)));
        assert_eq!((d.ecc_corrected, d.ecc_uncorrected), (Some(0), Some(0)));
    }

    #[test]
    fn a_short_line_is_an_error() {
        assert!(parse("0, GPU, 1", &fields(2)).is_err());
    }

    #[test]
    fn rejected_field_is_found() {
        let e = SampleError::Failed(
            "nvidia-smi exited with exit status: 2 and said \"Field \"clocks_event_reasons.hw_slowdown\" is not a valid field to query.\""
                .into(),
        );
        assert_eq!(rejected_field(&e).as_deref(), Some("clocks_event_reasons.hw_slowdown"));
    }
}
