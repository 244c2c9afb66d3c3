//! Any text as a formula: compiling and evaluating it never panics, aborts
//! or hangs, and an evaluation gives a finite number or an error.

#![no_main]

use exa::formula::{compile, Machine};
use libfuzzer_sys::fuzz_target;

const NAMES: &[&str] = &["gpu_hours", "cpu_hours", "pue", "kwh"];
const VALUES: &[f64] = &[12.0, 0.0, 1.5, -3.25];

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let names: Vec<String> = NAMES.iter().map(|s| s.to_string()).collect();
    if let Ok(program) = compile(src, &names) {
        let mut m = Machine::default();
        if let Ok(v) = m.eval(&program, VALUES) {
            assert!(v.is_finite(), "{src:?} gave {v}");
        }
    }
});
