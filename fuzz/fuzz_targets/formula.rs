//! Any text as a formula: compiling and evaluating it never panics, aborts
//! or hangs, and an evaluation gives a finite number or an error.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| exa::formula::fuzz_one(data));
