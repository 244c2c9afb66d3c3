//! The formula fuzz target on stable Rust, for a bounded time on every test
//! run: `EXA_FUZZ_SECONDS` (default 3) of generated and mutated formulas
//! through `exa::formula::fuzz_one`. `benches/fuzz.sh` runs it longer, and
//! runs libFuzzer too where a nightly toolchain and cargo-fuzz exist.

use std::time::{Duration, Instant};

const SEEDS: &[&str] = &[
    "gpu_hours * (gpu_tdp_watts / 1000) * pue",
    "2 ** 3 ** 2",
    "-2 ** 2",
    "round(2.675, 2) % 3",
    "min(1, max(2, 3), sum(4, 5))",
    "log(kwh, 2) + sqrt(pue) - exp(1e300)",
    "((((1))))",
    "1e308 * 10",
    "0 ** -1",
    "1_000.5e1_0",
];

const PIECES: &[&str] = &[
    "(",
    ")",
    "+",
    "-",
    "*",
    "/",
    "%",
    "**",
    ",",
    "1",
    "0",
    "1e308",
    "1e-320",
    ".5",
    "_",
    "e",
    "gpu_hours",
    "pue",
    "kwh",
    "round(",
    "pow(",
    "log(",
    "min(",
    "sum(",
    "sqrt(",
    " ",
    "9999999999999999999999",
    "-0",
    "\u{0}",
    "é",
];

#[test]
fn formulas_never_panic_for_a_bounded_time() {
    let seconds: f64 = std::env::var("EXA_FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3.0);
    let until = Instant::now() + Duration::from_secs_f64(seconds);
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut rand = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut runs = 0u64;
    while Instant::now() < until {
        let mut s: Vec<u8> = SEEDS[(rand() % SEEDS.len() as u64) as usize].as_bytes().to_vec();
        for _ in 0..(rand() % 6) {
            let at = (rand() as usize) % (s.len() + 1);
            match rand() % 4 {
                0 => s.splice(at..at, PIECES[(rand() % PIECES.len() as u64) as usize].bytes()).for_each(drop),
                1 if at < s.len() => {
                    s.remove(at);
                }
                2 if at < s.len() => s[at] = (rand() % 256) as u8,
                _ => {
                    let copy = s.clone();
                    s.extend_from_slice(&copy[..copy.len().min(64)]);
                }
            }
        }
        exa::formula::fuzz_one(&s);
        runs += 1;
    }
    assert!(runs > 100, "only {runs} inputs in {seconds} s");
}
