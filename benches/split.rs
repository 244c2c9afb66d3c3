//! The cost of splitting shared GPUs' energy among their processes (`sources::gpu::split`), beside the
//! summary every measured run already makes of its readings (`energy::summarize`), over an hour of readings
//! at 1 s of 8 GPUs, each shared by three processes that join and leave.
//!
//! `cargo bench --bench split` prints the time per device per reading interval of each, and what the split
//! adds as a share of one core when a run reads 8 GPUs every second. The split runs once, at the run's end;
//! what a shared run pays as it goes is one more NVML call per device per reading
//! (`nvmlDeviceGetProcessUtilization`), which this bench cannot time without a GPU.

use std::time::Instant;

use exa::model::energy::Joules;
use exa::sources::gpu::energy::{summarize, Sample};
use exa::sources::gpu::split::{split, windows_of, Activity, IdlePolicy, Party};
use exa::sources::gpu::Device;

const DEVICES: u32 = 8;
const READINGS: usize = 3_600;

fn main() {
    let samples: Vec<Sample> = (0..READINGS)
        .map(|k| Sample {
            t: k as f64,
            result: Ok((0..DEVICES)
                .map(|index| Device {
                    index,
                    power_w: Some(100.0 + ((k * 7 + index as usize) % 300) as f64),
                    energy_counter_j: Some(Joules(1e6 + k as f64 * 250.0)),
                    ..Device::default()
                })
                .collect()),
            read_t: Some(k as f64),
        })
        .collect();
    let activity: Vec<Activity> = (0..READINGS)
        .flat_map(|at| {
            (0..DEVICES).flat_map(move |device| {
                let parties = [Party::Job, Party::Other(1000 + device), Party::Other(2000 + device)];
                // The third process joins for one reading in three.
                parties.into_iter().take(if at % 3 == 0 { 3 } else { 2 }).enumerate().map(move |(i, party)| Activity {
                    at,
                    device,
                    party,
                    sm: 20.0 + 10.0 * i as f64,
                    mem: 15.0,
                })
            })
        })
        .collect();
    let rounds = 5;
    let mut plain = Vec::new();
    let mut split_ns = Vec::new();
    let mut check = 0u64;
    for _ in 0..rounds {
        let t = Instant::now();
        let summary = summarize(&samples);
        plain.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for d in &summary {
            let total = d.energy_kwh.unwrap_or_default().joules().whole_millijoules();
            let s = split(&windows_of(&samples, &activity, d.index, total), IdlePolicy::ByActivity);
            check = check.wrapping_add(s.part(Party::Job));
        }
        split_ns.push(t.elapsed().as_secs_f64());
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let per = |s: f64| s / f64::from(DEVICES) / READINGS as f64 * 1e9;
    let (p, s) = (median(&mut plain), median(&mut split_ns));
    println!("{DEVICES} GPUs x {READINGS} readings (an hour at 1 s), 3 processes joining and leaving, median of {rounds}:");
    println!("  summary of the readings (every run): {:>8.0} ns per device per interval", per(p));
    println!("  split among the processes:           {:>8.0} ns per device per interval ({:.2}x the summary)", per(s), s / p);
    println!("  the split as a share of one core, 8 GPUs read every second: {:.5} %", s / 3600.0 * 100.0);
    assert!(check > 0);
}
