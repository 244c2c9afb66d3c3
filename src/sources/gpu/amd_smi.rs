//! Readings from AMD's `amd-smi metric --json`, names from `amd-smi static --json`.
//!
//! The `amd-smi` used is the first on `PATH`. Its JSON comes in two shapes:
//! a list of devices (ROCm 6.0 to 6.3) or `{"gpu_data": [...]}` (later);
//! each value is `{"value": V, "unit": U}` or the string `"N/A"`, which is
//! `None` here, never 0. The energy accumulator
//! (`energy.total_energy_consumption`, in the unit it names) is the
//! device's energy counter where it reports one.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;

use super::{Device, GpuSource, SampleError};
use crate::sources::child::{self, RunError};

/// GPU readings through `amd-smi`.
pub struct AmdSmi {
    program: PathBuf,
    deadline: Duration,
    /// Each device's name and power limit, read once from `amd-smi static`.
    statics: Option<Vec<Static>>,
}

#[derive(Debug, Clone, PartialEq)]
struct Static {
    index: u32,
    name: Option<String>,
    power_limit_w: Option<f64>,
}

/// The first `amd-smi` in the directories of `path`.
pub fn locate(path: &[PathBuf]) -> Option<PathBuf> {
    path.iter().map(|d| d.join("amd-smi")).find(|p| crate::files::is_executable(p))
}

impl AmdSmi {
    /// The one on `PATH`, or why there is none.
    pub fn from_path(path: &[PathBuf], deadline: Duration) -> Result<AmdSmi, SampleError> {
        locate(path)
            .map(|program| AmdSmi { program, deadline, statics: None })
            .ok_or_else(|| SampleError::Missing("no amd-smi on PATH".into()))
    }

    fn call(&self, args: &[&str]) -> Result<Value, SampleError> {
        let done = child::run(&self.program, args, None, Stdio::null(), self.deadline).map_err(|e| match e {
            RunError::Spawn(e) => SampleError::Failed(format!("cannot run {}: {e}", self.program.display())),
            RunError::Timeout(d) => SampleError::Failed(format!("amd-smi gave no answer within {:.0} s and was killed", d.as_secs_f64())),
            RunError::Output(e) => SampleError::Failed(format!("amd-smi: {e}")),
        })?;
        let text = String::from_utf8_lossy(&done.stdout);
        if !done.status.success() {
            let said = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let said = crate::text::clean(said.trim());
            if said.contains("No GPUs") || said.contains("no GPUs") {
                return Err(SampleError::NoDevices(format!("amd-smi found no devices (\"{said}\")")));
            }
            return Err(SampleError::Failed(format!("amd-smi {} exited with {} and said \"{said}\"", args[0], done.status)));
        }
        serde_json::from_str(&text).map_err(|e| SampleError::Failed(format!("amd-smi {} printed no JSON: {e}", args[0])))
    }
}

/// The devices of either shape: a list, or `{"gpu_data": [...]}`.
fn devices_of(v: &Value) -> Option<&Vec<Value>> {
    v.as_array().or_else(|| v.get("gpu_data")?.as_array())
}

/// A `{"value": V, "unit": U}` (or a bare number) in the unit given, where the device reports one.
fn measure(v: Option<&Value>) -> Option<(f64, String)> {
    let v = v?;
    let unit = v.get("unit").and_then(Value::as_str).unwrap_or("").to_string();
    let n = v.get("value").unwrap_or(v);
    let x = n.as_f64().or_else(|| n.as_str()?.trim().parse().ok())?;
    x.is_finite().then_some((x, unit))
}

fn value(v: &Value, path: &[&str]) -> Option<f64> {
    let mut at = v;
    for k in path {
        at = at.get(k)?;
    }
    measure(Some(at)).map(|(x, _)| x)
}

/// Joules from an energy reading in the unit amd-smi names.
fn joules(v: &Value) -> Option<f64> {
    let (x, unit) = measure(v.get("energy")?.get("total_energy_consumption"))?;
    let factor = match unit.as_str() {
        "J" | "" => 1.0,
        "mJ" => 1e-3,
        "uJ" | "\u{b5}J" => 1e-6,
        _ => return None,
    };
    Some(x * factor)
}

fn statics(v: &Value) -> Vec<Static> {
    devices_of(v)
        .into_iter()
        .flatten()
        .filter_map(|d| {
            let limit = d.get("limit");
            let power_limit_w = limit.and_then(|l| {
                value(l, &["socket_power"]).or_else(|| value(l, &["ppt0", "socket_power_limit"])).or_else(|| value(l, &["max_power"]))
            });
            let name = d.get("asic")?.get("market_name").and_then(Value::as_str).filter(|n| *n != "N/A").map(crate::text::clean);
            Some(Static { index: u32::try_from(d.get("gpu")?.as_u64()?).ok()?, name, power_limit_w })
        })
        .collect()
}

/// Parses `amd-smi metric --json`; `names` from `amd-smi static --json`.
fn parse(v: &Value, names: &[Static]) -> Result<Vec<Device>, SampleError> {
    let list = devices_of(v).ok_or_else(|| SampleError::Failed("amd-smi metric printed no list of devices".into()))?;
    let mut out = Vec::new();
    for d in list {
        let Some(index) = d.get("gpu").and_then(Value::as_u64).and_then(|i| u32::try_from(i).ok()) else {
            return Err(SampleError::Failed("amd-smi metric printed a device without its \"gpu\" index".into()));
        };
        let st = names.iter().find(|s| s.index == index);
        let count = |k: &str| d.get("ecc")?.get(k).and_then(|c| measure(Some(c))).map(|(x, _)| x as u64);
        out.push(Device {
            index,
            name: st.and_then(|s| s.name.clone()).unwrap_or_else(|| "AMD GPU".into()),
            uuid: None,
            utilization_pct: value(d, &["usage", "gfx_activity"]),
            memory_utilization_pct: value(d, &["usage", "umc_activity"]),
            memory_used_mib: value(d, &["mem_usage", "used_vram"]),
            memory_total_mib: value(d, &["mem_usage", "total_vram"]),
            temperature_c: value(d, &["temperature", "edge"]).or_else(|| value(d, &["temperature", "hotspot"])),
            power_w: value(d, &["power", "socket_power"])
                .or_else(|| value(d, &["power", "average_socket_power"]))
                .filter(|w| (0.0..=super::nvidia_smi::MAX_DEVICE_W).contains(w)),
            power_limit_w: st.and_then(|s| s.power_limit_w),
            clock_sm_mhz: value(d, &["clock", "gfx_0", "clk"]),
            clock_memory_mhz: value(d, &["clock", "mem_0", "clk"]),
            fan_pct: value(d, &["fan", "usage"]),
            pstate: None,
            throttle_thermal: None,
            throttle_power: None,
            throttle_hw_slowdown: None,
            ecc_corrected: count("total_correctable_count"),
            ecc_uncorrected: count("total_uncorrectable_count"),
            energy_counter_j: joules(d).map(crate::model::energy::Joules),
        });
    }
    if out.is_empty() {
        return Err(SampleError::NoDevices("amd-smi found no devices".into()));
    }
    Ok(out)
}

impl GpuSource for AmdSmi {
    fn sample(&mut self) -> Result<Vec<Device>, SampleError> {
        if self.statics.is_none() {
            self.statics = Some(statics(&self.call(&["static", "--json"])?));
        }
        let metric = self.call(&["metric", "--json"])?;
        parse(&metric, self.statics.as_deref().unwrap_or_default())
    }

    fn describe(&self) -> String {
        format!("amd-smi ({})", self.program.display())
    }

    fn kind(&self) -> &'static str {
        "amd-smi"
    }

    fn fields(&self) -> &'static str {
        "amd-smi metric"
    }

    fn shorten(&mut self, deadline: Duration) {
        self.deadline = self.deadline.min(deadline);
    }

    fn processes(&mut self) -> Option<Vec<(u32, u32)>> {
        let v = self.call(&["process", "--json"]).ok()?;
        let list = devices_of(&v)?;
        let mut out = Vec::new();
        for d in list {
            let index = u32::try_from(d.get("gpu")?.as_u64()?).ok()?;
            for p in d.get("process_list").and_then(Value::as_array).into_iter().flatten() {
                let info = p.get("process_info").unwrap_or(p);
                if let Some(pid) = info.get("pid").and_then(Value::as_u64).and_then(|p| u32::try_from(p).ok()) {
                    out.push((index, pid));
                }
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn both_shapes_and_na_values() {
        let one = json!({"gpu": 0, "usage": {"gfx_activity": {"value": 40, "unit": "%"}, "umc_activity": "N/A"},
            "power": {"socket_power": {"value": 133, "unit": "W"}},
            "energy": {"total_energy_consumption": {"value": 78_098_902.25, "unit": "J"}},
            "temperature": {"edge": "N/A", "hotspot": {"value": 35, "unit": "C"}}});
        let names = vec![Static { index: 0, name: Some("AMD Instinct MI300X".into()), power_limit_w: Some(750.0) }];
        for shape in [json!([one.clone()]), json!({"gpu_data": [one.clone()]})] {
            let d = &parse(&shape, &names).unwrap()[0];
            assert_eq!((d.name.as_str(), d.utilization_pct, d.memory_utilization_pct), ("AMD Instinct MI300X", Some(40.0), None));
            assert_eq!((d.power_w, d.power_limit_w, d.temperature_c), (Some(133.0), Some(750.0), Some(35.0)));
            assert_eq!(d.energy_counter_j, Some(crate::model::energy::Joules(78_098_902.25)));
        }
        let micro = json!({"energy": {"total_energy_consumption": {"value": 2_000_000.0, "unit": "uJ"}}});
        assert_eq!(joules(&micro), Some(2.0));
    }
}
