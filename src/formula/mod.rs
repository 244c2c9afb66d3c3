//! The sandboxed formula engine shared by built-in and user providers.
//!
//! A formula is arithmetic over named numbers: `+ - * / % **`, unary minus,
//! parentheses and a fixed allow-list of math functions. Every number is an
//! `f64`, so `700 / 1000` is `0.7`. `**` is right-associative (`2 ** 3 ** 2`
//! is 512), as in the Python reference formulas users bring.
//!
//! Formulas are compiled once (names resolved to slots, functions checked for
//! arity) into a small stack program, and evaluated many times without
//! allocation beyond a reused stack. Limits on length, nesting and count are
//! checked before parsing, so no input can exhaust the stack.
//!
//! This module must never reach anything outside the expression: no I/O, no
//! environment, no strings beyond the formula text itself.

mod compile;
mod error;
mod eval;
mod lex;

pub use compile::{compile, Program};
pub use error::CompileError;
pub use eval::{EvalError, Machine};

/// Longest formula accepted, in bytes.
pub const MAX_LEN: usize = 4096;
/// Deepest nesting of parentheses, unary operators and `**` chains.
pub const MAX_DEPTH: usize = 64;
/// Most formulas one provider may define.
pub const MAX_FORMULAS: usize = 64;

/// The functions a formula may call, with their arity (min, max).
pub const FUNCTIONS: &[(&str, usize, usize)] = &[
    ("min", 1, usize::MAX),
    ("max", 1, usize::MAX),
    ("abs", 1, 1),
    ("round", 1, 2),
    ("pow", 2, 2),
    ("log", 1, 2),
    ("log10", 1, 1),
    ("log2", 1, 1),
    ("exp", 1, 1),
    ("sqrt", 1, 1),
    ("floor", 1, 1),
    ("ceil", 1, 1),
    ("sum", 0, usize::MAX),
];

/// The fuzzing property, shared by the libFuzzer target (`fuzz/`) and the
/// stable fuzz run in the tests: any bytes as a formula compile or are
/// refused, never panic, and an evaluation gives a finite number or an error.
pub fn fuzz_one(data: &[u8]) {
    const NAMES: &[&str] = &["gpu_hours", "cpu_hours", "pue", "kwh"];
    const VALUES: &[f64] = &[12.0, 0.0, 1.5, -3.25];
    let Ok(src) = std::str::from_utf8(data) else { return };
    let names: Vec<String> = NAMES.iter().map(|s| (*s).to_string()).collect();
    if let Ok(program) = compile(src, &names) {
        let mut m = Machine::default();
        if let Ok(v) = m.eval(&program, VALUES) {
            assert!(v.is_finite(), "{src:?} gave {v}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str, names: &[&str], values: &[f64]) -> Result<f64, String> {
        let names: Vec<String> = names.iter().map(std::string::ToString::to_string).collect();
        let p = compile(src, &names).map_err(|e| e.to_string())?;
        let mut m = Machine::default();
        m.eval(&p, values).map_err(|e| e.to_string())
    }

    #[test]
    fn float_division_and_power() {
        assert_eq!(run("700 / 1000", &[], &[]).unwrap(), 0.7);
        assert_eq!(run("2 ** 3 ** 2", &[], &[]).unwrap(), 512.0);
        assert_eq!(run("-2 ** 2", &[], &[]).unwrap(), -4.0);
        assert_eq!(run("(-2) ** 2", &[], &[]).unwrap(), 4.0);
        assert_eq!(run("2 ** -1", &[], &[]).unwrap(), 0.5);
        assert_eq!(run("7 % 3", &[], &[]).unwrap(), 1.0);
        assert_eq!(run("-7 % 3", &[], &[]).unwrap(), 2.0);
        assert_eq!(run("1 + 2 * 3 - 4 / 2", &[], &[]).unwrap(), 5.0);
        assert_eq!(run("1e3 + .5", &[], &[]).unwrap(), 1000.5);
    }

    #[test]
    fn every_function() {
        let cases = [
            ("min(3, 1, 2)", 1.0),
            ("max(3, 1, 2)", 3.0),
            ("abs(-2.5)", 2.5),
            ("round(2.5)", 2.0),
            ("round(3.5)", 4.0),
            ("round(2.71828, 2)", 2.72),
            ("pow(2, 10)", 1024.0),
            ("log(exp(2))", 2.0),
            ("log(8, 2)", 3.0),
            ("log10(1000)", 3.0),
            ("log2(8)", 3.0),
            ("sqrt(16)", 4.0),
            ("floor(-1.5)", -2.0),
            ("ceil(1.2)", 2.0),
            ("sum(1, 2, 3)", 6.0),
            ("sum()", 0.0),
        ];
        for (src, want) in cases {
            let got = run(src, &[], &[]).unwrap();
            assert!((got - want).abs() < 1e-12, "{src}: {got} != {want}");
        }
    }

    #[test]
    fn names_resolve_to_values() {
        let v = run("gpu_hours * (gpu_tdp_watts / 1000) * pue", &["gpu_hours", "gpu_tdp_watts", "pue"], &[12.0, 700.0, 1.3]).unwrap();
        assert!((v - 10.92).abs() < 1e-9);
    }

    #[test]
    fn errors_name_position_and_cause() {
        let e = run("gpu_hours * tdp", &["gpu_hours", "pue"], &[1.0, 1.0]).unwrap_err();
        assert!(e.contains("unknown name 'tdp'") && e.contains("column 13") && e.contains("gpu_hours, pue"), "{e}");
        let e = run("open(1)", &[], &[]).unwrap_err();
        assert!(e.contains("unknown function 'open'"), "{e}");
        let e = run("x.y", &["x"], &[1.0]).unwrap_err();
        assert!(e.contains("column 2"), "{e}");
        let e = run("2 ^ 3", &[], &[]).unwrap_err();
        assert!(e.contains("use ** for power"), "{e}");
        let e = run("a = 1", &["a"], &[1.0]).unwrap_err();
        assert!(e.contains("'='"), "{e}");
        let e = run("pow(1)", &[], &[]).unwrap_err();
        assert!(e.contains("pow takes 2 arguments"), "{e}");
        let e = run("'abc'", &[], &[]).unwrap_err();
        assert!(e.contains("unexpected character"), "{e}");
        let e = run("", &[], &[]).unwrap_err();
        assert!(e.contains("empty"), "{e}");
        let e = run("(1 + 2", &[], &[]).unwrap_err();
        assert!(e.contains("expected ')'"), "{e}");
    }

    #[test]
    fn limits_are_errors_not_crashes() {
        let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(run(&deep, &[], &[]).unwrap_err().contains("longer than"));
        let nested = format!("{}1{}", "(".repeat(MAX_DEPTH + 1), ")".repeat(MAX_DEPTH + 1));
        assert!(run(&nested, &[], &[]).unwrap_err().contains("nested deeper"));
        let minus = format!("{}1", "-".repeat(1000));
        assert!(run(&minus, &[], &[]).unwrap_err().contains("nested deeper"));
        let pow = vec!["2"; 500].join("**");
        assert!(run(&pow, &[], &[]).unwrap_err().contains("nested deeper"));
        let long_sum = vec!["1"; 1500].join("+");
        assert_eq!(run(&long_sum, &[], &[]).unwrap(), 1500.0);
    }

    #[test]
    fn non_finite_results_are_errors() {
        assert!(run("1 / 0", &[], &[]).unwrap_err().contains("division by zero"));
        assert!(run("5 % 0", &[], &[]).unwrap_err().contains("division by zero"));
        assert!(run("log(0)", &[], &[]).unwrap_err().contains("log"));
        assert!(run("sqrt(-1)", &[], &[]).unwrap_err().contains("sqrt"));
        assert!(run("10 ** 400", &[], &[]).unwrap_err().contains("not a finite number"));
    }
}
