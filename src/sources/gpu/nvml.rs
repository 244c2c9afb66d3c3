//! Readings through NVML, the library `nvidia-smi` itself is built on,
//! loaded at run time (`nvml-wrapper` opens it with dlopen): no process is
//! forked per reading, and devices from Volta on have an energy counter
//! (`nvmlDeviceGetTotalEnergyConsumption`, millijoules since the driver
//! loaded), so a run's energy is exact whatever the interval.
//!
//! The library is `libnvidia-ml.so.1` from the loader's search path, or the
//! file `EXAMLOPS_NVML_LIBRARY` names. A field a device does not support
//! (`NVML_ERROR_NOT_SUPPORTED`, or any other error for that one field) is
//! `None`, never 0. A device that fell off the bus (`NVML_ERROR_GPU_IS_LOST`)
//! is missing from the reading, as a device `nvidia-smi` stopped listing.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nvml_wrapper::bitmasks::device::ThrottleReasons;
use nvml_wrapper::enum_wrappers::device::{Clock, EccCounter, MemoryError, TemperatureSensor};
use nvml_wrapper::error::NvmlError;

use super::{Device, GpuSource, SampleError};

/// The library's name on Linux, found by the dynamic loader.
pub const LIBRARY: &str = "libnvidia-ml.so.1";

/// GPU readings through NVML.
pub struct Nvml {
    nvml: nvml_wrapper::Nvml,
    library: String,
    notices: Vec<String>,
    /// Devices already said to be lost, so that it is said once.
    lost: Vec<u32>,
    /// The energy counter is read at most this often (zero: every reading); when last read (None: read
    /// it at the next reading).
    counter_every: Duration,
    counter_read: Option<Instant>,
    /// Per device, the newest per-process utilisation sample's time (µs) seen: the next call asks for newer ones.
    activity_seen: std::collections::BTreeMap<u32, u64>,
}

/// Why NVML cannot be used, in words.
fn why(e: &NvmlError) -> String {
    match e {
        NvmlError::LibloadingError(e) => format!("cannot load it: {e}"),
        NvmlError::FailedToLoadSymbol(s) => format!("it lacks a function exa needs: {s}"),
        NvmlError::DriverNotLoaded => "the NVIDIA driver is not loaded (NVML_ERROR_DRIVER_NOT_LOADED)".into(),
        NvmlError::NoPermission => "no permission to talk to the driver (NVML_ERROR_NO_PERMISSION)".into(),
        other => other.to_string(),
    }
}

impl Nvml {
    /// Loads and initialises the library at `path`, else `libnvidia-ml.so.1` from the loader's path.
    pub fn open(path: Option<&Path>) -> Result<Nvml, SampleError> {
        let library = path.map_or_else(|| LIBRARY.to_string(), |p| p.display().to_string());
        let mut builder = nvml_wrapper::Nvml::builder();
        if let Some(p) = path {
            builder.lib_path(p.as_os_str());
        } else {
            builder.lib_path(OsStr::new(LIBRARY));
        }
        match builder.init() {
            Ok(nvml) => Ok(Nvml {
                nvml,
                library,
                notices: Vec::new(),
                lost: Vec::new(),
                counter_every: Duration::ZERO,
                counter_read: None,
                activity_seen: std::collections::BTreeMap::new(),
            }),
            Err(e @ NvmlError::LibloadingError(_)) if path.is_none() => {
                Err(SampleError::Missing(format!("NVML ({library}) is not on this host: {}", why(&e))))
            }
            Err(e @ NvmlError::DriverNotLoaded) => Err(SampleError::Missing(format!("NVML ({library}): {}", why(&e)))),
            Err(e) => Err(SampleError::Failed(format!("NVML ({library}): {}", why(&e)))),
        }
    }

    /// The library it loaded.
    pub fn library(&self) -> PathBuf {
        PathBuf::from(&self.library)
    }

    fn read(&mut self, index: u32, counter: bool) -> Result<Option<Device>, NvmlError> {
        let d = match self.nvml.device_by_index(index) {
            Ok(d) => d,
            Err(NvmlError::GpuLost) => return Ok(None),
            Err(e) => return Err(e),
        };
        // The power reading decides whether the device is there: a lost device answers nothing else either.
        let power_w = match d.power_usage() {
            Ok(mw) => Some(f64::from(mw) / 1000.0),
            Err(NvmlError::GpuLost) => return Ok(None),
            Err(_) => None,
        };
        let reasons = d.current_throttle_reasons().ok();
        let has = |r: ThrottleReasons| reasons.map(|x| x.intersects(r));
        let util = d.utilization_rates().ok();
        let memory = d.memory_info().ok();
        let mib = |bytes: u64| bytes as f64 / 1_048_576.0;
        Ok(Some(Device {
            index,
            name: d.name().unwrap_or_else(|_| "unknown".into()),
            uuid: d.uuid().ok(),
            utilization_pct: util.as_ref().map(|u| f64::from(u.gpu)),
            memory_utilization_pct: util.as_ref().map(|u| f64::from(u.memory)),
            memory_used_mib: memory.as_ref().map(|m| mib(m.used)),
            memory_total_mib: memory.as_ref().map(|m| mib(m.total)),
            temperature_c: d.temperature(TemperatureSensor::Gpu).ok().map(f64::from),
            power_w: power_w.filter(|w| (0.0..=super::nvidia_smi::MAX_DEVICE_W).contains(w)),
            power_limit_w: d.enforced_power_limit().ok().map(|mw| f64::from(mw) / 1000.0),
            clock_sm_mhz: d.clock_info(Clock::SM).ok().map(f64::from),
            clock_memory_mhz: d.clock_info(Clock::Memory).ok().map(f64::from),
            fan_pct: d.fan_speed(0).ok().map(f64::from),
            pstate: d.performance_state().ok().and_then(|p| u8::try_from(p.as_c()).ok()).filter(|p| *p < 16),
            throttle_thermal: has(ThrottleReasons::SW_THERMAL_SLOWDOWN | ThrottleReasons::HW_THERMAL_SLOWDOWN),
            throttle_power: has(ThrottleReasons::SW_POWER_CAP),
            throttle_hw_slowdown: has(ThrottleReasons::HW_SLOWDOWN),
            ecc_corrected: d.total_ecc_errors(MemoryError::Corrected, EccCounter::Volatile).ok(),
            ecc_uncorrected: d.total_ecc_errors(MemoryError::Uncorrected, EccCounter::Volatile).ok(),
            energy_counter_j: if counter {
                d.total_energy_consumption().ok().map(crate::model::energy::Joules::of_millijoules)
            } else {
                None
            },
        }))
    }
}

impl GpuSource for Nvml {
    fn sample(&mut self) -> Result<Vec<Device>, SampleError> {
        let count = self.nvml.device_count().map_err(|e| SampleError::Failed(format!("NVML cannot count the devices: {}", why(&e))))?;
        if count == 0 {
            return Err(SampleError::NoDevices("NVML found no devices".into()));
        }
        let counter = self.counter_read.is_none_or(|at| at.elapsed() >= self.counter_every);
        if counter {
            self.counter_read = Some(Instant::now());
        }
        let mut devices = Vec::new();
        for index in 0..count {
            match self.read(index, counter) {
                Ok(Some(d)) => devices.push(d),
                Ok(None) => {
                    if !self.lost.contains(&index) {
                        self.lost.push(index);
                        self.notices.push(format!("GPU {index} is lost (NVML_ERROR_GPU_IS_LOST): it has no readings from now on"));
                    }
                }
                Err(e) => return Err(SampleError::Failed(format!("NVML cannot open GPU {index}: {}", why(&e)))),
            }
        }
        if devices.is_empty() {
            return Err(SampleError::Failed("NVML: every device is lost".into()));
        }
        Ok(devices)
    }

    fn describe(&self) -> String {
        format!("NVML ({})", self.library)
    }

    fn kind(&self) -> &'static str {
        "nvml"
    }

    fn fields(&self) -> &'static str {
        "nvml"
    }

    fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    fn counter_every(&mut self, every: Duration) {
        self.counter_every = every;
    }

    fn counter_now(&mut self) {
        self.counter_read = None;
    }

    fn processes(&mut self) -> Option<Vec<(u32, u32)>> {
        let count = self.nvml.device_count().ok()?;
        let mut out = Vec::new();
        for index in 0..count {
            let Ok(d) = self.nvml.device_by_index(index) else { continue };
            out.extend(d.running_compute_processes().ok()?.into_iter().map(|p| (index, p.pid)));
        }
        Some(out)
    }

    /// NVML's per-process utilisation (`nvmlDeviceGetProcessUtilization`): one sample per process busy on the
    /// device in its last sampling period, newer than the last call's; several for one process are averaged. No
    /// sample (`NVML_ERROR_NOT_FOUND`) is no process busy. None where no device can say (the call unsupported,
    /// or a library without it).
    fn process_activity(&mut self) -> Option<super::ProcessActivity> {
        let count = self.nvml.device_count().ok()?;
        let mut out = Vec::new();
        let mut answered = Vec::new();
        for index in 0..count {
            let Ok(d) = self.nvml.device_by_index(index) else { continue };
            let seen = self.activity_seen.get(&index).copied();
            let samples = match d.process_utilization_stats(seen) {
                Ok(s) => s,
                Err(NvmlError::NotFound) => Vec::new(),
                Err(_) => continue,
            };
            answered.push(index);
            if let Some(newest) = samples.iter().map(|s| s.timestamp).max() {
                self.activity_seen.insert(index, newest);
            }
            let mut by_pid: std::collections::BTreeMap<u32, (f64, f64, f64)> = std::collections::BTreeMap::new();
            for s in samples {
                let e = by_pid.entry(s.pid).or_default();
                *e = (e.0 + f64::from(s.sm_util.min(100)), e.1 + f64::from(s.mem_util.min(100)), e.2 + 1.0);
            }
            out.extend(by_pid.into_iter().map(|(pid, (sm, mem, n))| (index, pid, sm / n, mem / n)));
        }
        (!answered.is_empty()).then_some(super::ProcessActivity { answered, samples: out })
    }

    /// The instance's GPU, and its compute slices (`nvmlDeviceGetAttributes_v2`, which answers for MIG handles
    /// only) of the MIG devices its GPU can hold (`nvmlDeviceGetMaxMigDeviceCount`: 7 on an A100 or H100, one per
    /// slice).
    fn mig(&mut self, uuid: &str) -> Option<(u32, Option<(u32, u32)>)> {
        let d = self.nvml.device_by_uuid(uuid).ok()?;
        let parent = d.mig_parent_device().ok()?;
        let slices = d.attributes().ok().map(|a| a.compute_instance_slice_count);
        let of = parent.mig_device_count().ok();
        let share = slices.zip(of).filter(|(s, of)| *s > 0 && of >= s);
        Some((parent.index().ok()?, share))
    }
}
