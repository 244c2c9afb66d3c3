//! What pricing a measured run at the grid's history costs beyond the
//! fetch: a week-long trace read every second (8 GPUs with energy counters,
//! as NVML gives them) turned into the energy over time, then weighed
//! against a week of hourly history with holes. The budget is 10 ms;
//! the table prints the median of 7 rounds beside it, with counters (NVML)
//! and without (nvidia-smi, power alone).
//!
//! `cargo bench --bench history`. A ratio to a fixed budget on one machine,
//! not a timed test: nothing fails on a slow machine.

use std::time::Instant;

use exa::model::history::{Reading, Weight};
use exa::pricing::history::weigh;
use exa::sources::gpu::energy::{profile, summarize, Sample};
use exa::sources::gpu::Device;

const WEEK_S: usize = 7 * 24 * 3600;
const BUDGET_MS: f64 = 10.0;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let start = 1_796_169_600.0;
    let samples: Vec<Sample> = (0..=WEEK_S)
        .map(|t| Sample {
            t: t as f64,
            result: Ok((0..8)
                .map(|i| Device {
                    index: i,
                    power_w: Some(400.0),
                    energy_counter_j: Some(exa::model::energy::Joules(t as f64 * (400.0 + f64::from(i)))),
                    ..Device::default()
                })
                .collect()),
            read_t: None,
        })
        .collect();
    let readings: Vec<Reading> = (0..7 * 24)
        .filter(|h| h % 11 != 5)
        .map(|h| Reading {
            start: 1_796_169_600 + h * 3600,
            end: 1_796_169_600 + (h + 1) * 3600,
            g_per_kwh: 100.0 + (h * 37 % 300) as f64,
            forecast: false,
        })
        .collect();
    let (mut build, mut weighing) = (Vec::new(), Vec::new());
    for _ in 0..7 {
        let t = Instant::now();
        let p: Vec<Weight> =
            profile(&samples, 60.0, 0.0).into_iter().map(|(a, b, j)| Weight { from: start + a, to: start + b, weight: j }).collect();
        build.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let w = weigh(&readings, &p, 300.0).expect("a profile");
        weighing.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(w.mean > 100.0 && w.mean < 400.0);
    }
    // nvidia-smi gives power alone: every pair of readings is a trapezoid.
    let power_only: Vec<Sample> = samples
        .iter()
        .map(|s| Sample {
            t: s.t,
            result: s.result.clone().map(|d| d.into_iter().map(|x| Device { energy_counter_j: None, ..x }).collect()),
            read_t: None,
        })
        .collect();
    let mut trapezoids = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        let p = profile(&power_only, 60.0, 0.0);
        trapezoids.push(t.elapsed().as_secs_f64() * 1e3);
        assert_eq!(p.len(), WEEK_S / 60);
    }
    let mut totals = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        assert_eq!(summarize(&power_only).len(), 8);
        totals.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let (b, w) = (median(build), median(weighing));
    let (tp, sum) = (median(trapezoids), median(totals));
    println!("| a week at 1 s, 8 GPUs, against 168 hourly readings | median ms | / 10 ms budget |");
    println!("|---|---|---|");
    println!("| energy over time from {} samples | {b:.2} | {:.2}x |", samples.len(), b / BUDGET_MS);
    println!("| weighing its {} minutes against the history | {w:.2} | {:.2}x |", WEEK_S / 60, w / BUDGET_MS);
    println!("| both | {:.2} | {:.2}x |", b + w, (b + w) / BUDGET_MS);
    println!("| energy over time without counters (nvidia-smi: power alone) | {tp:.2} | {:.2}x |", tp / BUDGET_MS);
    println!("| both, without counters | {:.2} | {:.2}x |", tp + w, (tp + w) / BUDGET_MS);
    println!("| (for scale: measure's own totals over the same readings, summarize) | {sum:.2} | {:.2}x |", sum / BUDGET_MS);
}
