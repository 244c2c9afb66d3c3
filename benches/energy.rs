//! Integration error of the trapezoid rule against exact energy, on
//! synthetic power traces (steady, square wave, spikes) sampled every 1, 5
//! and 10 s, as `exa finops measure` samples them: a reading at t = 0, one
//! every interval, and one at the end.
//!
//! `cargo bench --bench energy` prints the table quoted in the README. It
//! measures accuracy, not speed: the numbers are the same on every machine.

use exa::sources::gpu::energy::{summarize, Sample, J_PER_KWH};
use exa::sources::gpu::Device;

const RUN_S: f64 = 600.0;

fn steady(_: f64) -> f64 {
    300.0
}

/// 100 W and 500 W alternating every 37 s (out of step with any sampling grid).
fn square(t: f64) -> f64 {
    if (t / 37.0).floor() as i64 % 2 == 0 {
        100.0
    } else {
        500.0
    }
}

/// 200 W with a 2 s spike to 700 W every 47 s, starting 13.5 s into each period.
fn spikes(t: f64) -> f64 {
    if (t % 47.0) >= 13.5 && (t % 47.0) < 15.5 {
        700.0
    } else {
        200.0
    }
}

/// Exact energy by the midpoint rule at 1 ms (the traces are piecewise constant).
fn exact_j(p: fn(f64) -> f64) -> f64 {
    let dt = 0.001;
    (0..(RUN_S / dt) as usize).map(|i| p((i as f64 + 0.5) * dt) * dt).sum()
}

fn sampled_j(p: fn(f64) -> f64, interval: f64) -> f64 {
    let mut times: Vec<f64> = (0..).map(|i| f64::from(i) * interval).take_while(|t| *t < RUN_S).collect();
    times.push(RUN_S);
    let samples: Vec<Sample> = times
        .iter()
        .map(|&t| Sample {
            t,
            result: Ok(vec![Device { index: 0, name: "synthetic".into(), power_w: Some(p(t)), ..Device::default() }]),
            read_t: None,
        })
        .collect();
    summarize(&samples)[0].energy_kwh.unwrap().joules().0
}

fn main() {
    // `cargo test --benches` runs this with --bench absent; print either way, it is cheap.
    println!("| trace (600 s) | exact kWh | 1 s | 5 s | 10 s |");
    println!("|---|---|---|---|---|");
    for (name, p) in
        [("steady 300 W", steady as fn(f64) -> f64), ("square 100/500 W, 37 s", square), ("spikes 200→700 W, 2 s every 47 s", spikes)]
    {
        let exact = exact_j(p);
        let cells: Vec<String> = [1.0, 5.0, 10.0]
            .iter()
            .map(|&i| {
                let err = (sampled_j(p, i) - exact) / exact * 100.0;
                format!("{err:+.2}%")
            })
            .collect();
        println!("| {name} | {:.5} | {} |", exact / J_PER_KWH, cells.join(" | "));
    }
}
