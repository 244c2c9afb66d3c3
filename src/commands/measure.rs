//! `exa finops measure`: run a command (or watch the node), measure the
//! GPUs' energy, and price it through the carbon and cost providers.
//!
//! The command's stdin, stdout and stderr are its own; exa prints nothing
//! while it runs except warnings on stderr. exa's exit status is the
//! command's. SIGINT, SIGTERM and SIGHUP reach the command, and what was
//! measured up to then is still reported, marked interrupted.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::estimate::{self, Estimate, Request};
use crate::error::Error;
use crate::gpu::energy::{summarize, DeviceSummary};
use crate::gpu::nvidia_smi::{NvidiaSmi, DEADLINE};
use crate::gpu::sampler::{Hooks, Options, Sampler, State};
use crate::provider::{Domain, Source};
use crate::settings::{env_amount, Settings, Sourced};
use crate::signals;
use crate::store::{check_name, hostname, Measured, NewRecord, Store};
use crate::time::{iso8601, now_unix};

/// Default seconds between GPU readings.
pub const INTERVAL_S: f64 = 5.0;

pub struct Args {
    pub command: Vec<String>,
    pub interval: Option<f64>,
    pub duration: Option<Duration>,
    pub trace: Option<PathBuf>,
    pub power_cost_per_kwh: Option<f64>,
    pub carbon_provider: Option<String>,
    pub cost_provider: Option<String>,
    /// Show a live line on stderr (only without a command, on a terminal).
    pub live: bool,
    /// Store the run's carbon and cost as records of this model, with this run id.
    pub record: Option<(String, Option<String>)>,
}

#[derive(Debug, Serialize)]
pub struct Stored {
    pub model: String,
    pub run_id: Option<String>,
    pub ids: Vec<i64>,
    pub db: String,
}

#[derive(Debug, Serialize)]
pub struct Gpu {
    /// `measured` or `not measured`.
    pub status: &'static str,
    /// Why not, or what limited the measurement.
    pub reason: Option<String>,
    pub source: Option<String>,
    pub fields: Option<&'static str>,
    pub samples: usize,
    pub missed: usize,
    pub gave_up: bool,
    pub devices: Vec<DeviceSummary>,
    /// GPU energy only: the sum over devices that had a power reading.
    pub energy_kwh: Option<f64>,
    pub device_hours: Option<f64>,
    pub mean_power_w: Option<f64>,
}

#[derive(Debug, Serialize)]
pub struct Cpu {
    pub hours: f64,
    pub user_s: f64,
    pub system_s: f64,
    pub source: &'static str,
}

#[derive(Debug, Serialize)]
pub struct Electricity {
    pub price_per_kwh: Sourced<f64>,
    pub kwh: f64,
    pub cost_usd: f64,
    pub note: &'static str,
}

#[derive(Debug, Serialize)]
pub struct Measurement {
    pub command: Option<Vec<String>>,
    pub exit_code: Option<i32>,
    /// The signal that ended the command, if one did.
    pub killed_by: Option<String>,
    /// The signal that interrupted the run, if one did.
    pub interrupted: Option<String>,
    pub started_at: String,
    pub duration_s: f64,
    pub interval_s: Sourced<f64>,
    pub gpu: Gpu,
    pub cpu: Option<Cpu>,
    pub carbon: Option<Estimate>,
    pub carbon_error: Option<String>,
    pub cost: Option<Estimate>,
    pub cost_error: Option<String>,
    pub electricity: Option<Electricity>,
    /// The records written for --record.
    pub recorded: Option<Stored>,
    /// Why --record wrote nothing.
    pub record_error: Option<String>,
    /// CPU seconds exa itself used (user + system; nvidia-smi and the command not included).
    pub exa_cpu_s: f64,
}

impl Measurement {
    /// The status exa exits with: the command's (128 + signal when a signal ended it).
    pub fn exit_status(&self) -> u8 {
        self.exit_code.map_or(0, |c| u8::try_from(c).unwrap_or(1))
    }
}

fn interval(flag: Option<f64>) -> Result<Sourced<f64>, Error> {
    let (v, src) = match (flag, env_amount("EXAMLOPS_GPU_INTERVAL")?) {
        (Some(f), _) => (f, Source::Flag),
        (None, Some(e)) => (e, Source::Env),
        (None, None) => (INTERVAL_S, Source::Default),
    };
    if v < 0.05 {
        return Err(Error::Usage(format!("the sampling interval {v} s is too short (0.05 s at least)")));
    }
    Ok(Sourced::new(v, src))
}

struct Child {
    pid: libc::pid_t,
}

/// Waits for the child without blocking: its wait status and resource use once it exited.
fn poll(child: &Child) -> Option<(i32, libc::rusage)> {
    let mut status = 0;
    // SAFETY: wait4 writes into the two locals, which are valid for the call.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(child.pid, &mut status, libc::WNOHANG, &mut ru) };
    (r == child.pid).then_some((status, ru))
}

fn seconds(tv: libc::timeval) -> f64 {
    tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6
}

pub fn run(settings: &Settings, args: Args, hooks: Box<dyn Hooks>) -> Result<Measurement, Error> {
    if let Some((model, run_id)) = &args.record {
        check_name("model", model)?;
        if let Some(r) = run_id {
            check_name("run id", r)?;
        }
        settings.db_path()?;
    }
    let interval_s = interval(args.interval)?;
    let price = match args.power_cost_per_kwh {
        Some(p) => Some(Sourced::new(p, Source::Flag)),
        None => env_amount("EXAMLOPS_POWER_COST_PER_KWH")?.map(|p| Sourced::new(p, Source::Env)),
    };
    let deadline = env_amount("EXAMLOPS_NVIDIA_SMI_TIMEOUT")?.filter(|t| *t > 0.0).map_or(DEADLINE, Duration::from_secs_f64);
    let trace: Option<Box<dyn std::io::Write + Send>> = match &args.trace {
        Some(p) => Some(Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| Error::Failed(format!("cannot create the trace file {}: {e}", p.display())))?,
        ))),
        None => None,
    };
    let source = NvidiaSmi::from_path(deadline);
    signals::catch();
    let started_at = iso8601(now_unix());
    let start = Instant::now();
    let child = match args.command.split_first() {
        Some((program, rest)) => {
            let c = Command::new(program).args(rest).spawn().map_err(|e| Error::Failed(format!("cannot run '{program}': {e}")))?;
            Some(Child { pid: c.id() as libc::pid_t })
        }
        None => None,
    };
    let opts = Options { interval: Duration::from_secs_f64(interval_s.value), trace, live: args.live && child.is_none() };
    let (sampler, no_gpu) = match source {
        Ok(smi) => (Some(Sampler::start(Box::new(smi), opts, hooks, start)), None),
        Err(e) => (None, Some(e.to_string())),
    };

    let mut interrupted = None;
    let mut ended = None;
    loop {
        if let Some(c) = &child {
            if let Some(done) = poll(c) {
                ended = Some(done);
                break;
            }
        } else if args.duration.is_some_and(|d| start.elapsed() >= d) {
            break;
        }
        if let Some((sig, sent_by_a_process)) = signals::take() {
            interrupted = Some(signals::name(sig));
            match &child {
                // A terminal's Ctrl-C reached the command already; anything else is passed on.
                Some(c) if sent_by_a_process || sig != libc::SIGINT => {
                    // SAFETY: kill(2) on the child's pid touches no memory.
                    unsafe {
                        libc::kill(c.pid, sig);
                    }
                }
                Some(_) => {}
                None => break,
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let duration_s = start.elapsed().as_secs_f64();
    let outcome = sampler.map(Sampler::finish);

    let (exit_code, killed_by, cpu) = match ended {
        Some((status, ru)) => {
            let (code, killed) = if libc::WIFSIGNALED(status) {
                let sig = libc::WTERMSIG(status);
                (128 + sig, Some(signals::name(sig)))
            } else {
                (libc::WEXITSTATUS(status), None)
            };
            let (user_s, system_s) = (seconds(ru.ru_utime), seconds(ru.ru_stime));
            let cpu =
                Cpu { hours: (user_s + system_s) / 3600.0, user_s, system_s, source: "user + system time of the command and its children" };
            (Some(code), killed, Some(cpu))
        }
        None => (None, None, None),
    };

    let gpu = match outcome {
        None => Gpu { status: "not measured", reason: no_gpu, ..Gpu::empty() },
        Some(o) => {
            let devices = summarize(&o.samples);
            let energy: Vec<&DeviceSummary> = devices.iter().filter(|d| d.energy_kwh.is_some()).collect();
            let kwh = (!energy.is_empty()).then(|| energy.iter().filter_map(|d| d.energy_kwh).sum::<f64>());
            let hours = (!energy.is_empty()).then(|| energy.iter().map(|d| d.covered_s).sum::<f64>() / 3600.0);
            let (status, reason) = match (&o.state, kwh) {
                (State::NoGpu(why), _) => ("not measured", Some(why.clone())),
                (State::NeverStarted(why), _) => ("not measured", Some(format!("nvidia-smi never gave a reading: {why}"))),
                (State::Measured, None) if devices.iter().all(|d| d.peak_power_w.is_none()) => {
                    ("not measured", Some("no device reported its power".into()))
                }
                (State::Measured, None) => ("not measured", Some("fewer than two readings in a row: no interval to integrate".into())),
                (State::Measured, Some(_)) if o.gave_up => {
                    ("measured", Some("readings stopped after 5 failures in a row; the rest of the run is not counted".into()))
                }
                (State::Measured, Some(_)) => ("measured", None),
            };
            Gpu {
                status,
                reason,
                source: Some(o.source),
                fields: Some(o.fields),
                samples: o.samples.iter().filter(|s| s.result.is_ok()).count(),
                missed: o.samples.iter().filter(|s| s.result.is_err()).count(),
                gave_up: o.gave_up,
                mean_power_w: kwh.zip(hours).map(|(k, h)| k * 1000.0 / h),
                energy_kwh: kwh,
                device_hours: hours,
                devices,
            }
        }
    };

    let gpu_hours = gpu.device_hours.unwrap_or(0.0);
    let cpu_hours = cpu.as_ref().map_or(0.0, |c| c.hours);
    let price_it = |domain: Domain, provider: &Option<String>| -> (Option<Estimate>, Option<String>) {
        if gpu_hours <= 0.0 && cpu_hours <= 0.0 {
            return (None, Some("nothing was measured: no GPU energy and no CPU time".into()));
        }
        let req = Request {
            gpu_hours: Some(gpu_hours),
            cpu_hours: Some(cpu_hours),
            gpu_kwh: gpu.energy_kwh,
            provider: provider.clone(),
            flags: Vec::new(),
        };
        match estimate::run(settings, domain, &req) {
            Ok(e) => (Some(e), None),
            Err(e) => (None, Some(e.to_string())),
        }
    };
    let (carbon, carbon_error) = price_it(Domain::Carbon, &args.carbon_provider);
    let (cost, cost_error) = price_it(Domain::Cost, &args.cost_provider);
    let electricity = price.zip(gpu.energy_kwh).map(|(p, kwh)| Electricity {
        cost_usd: kwh * p.value,
        price_per_kwh: p,
        kwh,
        note: "measured GPU energy times the price; CPU and RAM energy are not measured",
    });
    let (recorded, record_error) = match &args.record {
        None => (None, None),
        Some((model, run_id)) => {
            let measured = Measured { duration_s, device_count: gpu.devices.len(), gpu_kwh: gpu.energy_kwh };
            let records: Vec<NewRecord> = [&carbon, &cost]
                .into_iter()
                .flatten()
                .map(|e| NewRecord {
                    model: model.clone(),
                    run_id: run_id.clone(),
                    recorded_at: now_unix(),
                    host: hostname(),
                    estimate: e.clone(),
                    measured: Some(measured.clone()),
                })
                .collect();
            if records.is_empty() {
                let why = carbon_error.clone().unwrap_or_else(|| "no estimate to record".into());
                settings.warn(format!("nothing recorded for {model}: {why}"));
                (None, Some(why))
            } else {
                match settings
                    .db_path()
                    .and_then(Store::open)
                    .and_then(|mut st| st.insert(&records).map(|ids| (ids, st.path.display().to_string())))
                {
                    Ok((ids, db)) => (Some(Stored { model: model.clone(), run_id: run_id.clone(), ids, db }), None),
                    Err(e) => {
                        settings.warn(format!("nothing recorded for {model}: {e}"));
                        (None, Some(e.to_string()))
                    }
                }
            }
        }
    };
    Ok(Measurement {
        command: (!args.command.is_empty()).then_some(args.command),
        exit_code,
        killed_by,
        interrupted,
        started_at,
        duration_s,
        interval_s,
        gpu,
        cpu,
        carbon,
        carbon_error,
        cost,
        cost_error,
        electricity,
        recorded,
        record_error,
        exa_cpu_s: own_cpu_s(),
    })
}

fn own_cpu_s() -> f64 {
    // SAFETY: getrusage writes into the local, which is valid for the call.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return 0.0;
    }
    seconds(ru.ru_utime) + seconds(ru.ru_stime)
}

impl Gpu {
    fn empty() -> Gpu {
        Gpu {
            status: "not measured",
            reason: None,
            source: None,
            fields: None,
            samples: 0,
            missed: 0,
            gave_up: false,
            devices: Vec::new(),
            energy_kwh: None,
            device_hours: None,
            mean_power_w: None,
        }
    }
}
