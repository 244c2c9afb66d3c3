//! Evaluating compiled formulas: an explicit stack, no recursion.

use std::fmt;

use super::compile::{Func, Op, Program};

/// Why a formula produced no number for the values given.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalError(pub String);

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EvalError {}

/// A reusable evaluation stack; keep one per thread of work.
#[derive(Debug, Default)]
pub struct Machine {
    stack: Vec<f64>,
}

fn finite(x: f64, what: &str) -> Result<f64, EvalError> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(EvalError(format!("{what} is not a finite number")))
    }
}

fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - x.signum()
    } else {
        r
    }
}

impl Machine {
    /// Runs `p` with `slots` as the values of the names it was compiled against.
    pub fn eval(&mut self, p: &Program, slots: &[f64]) -> Result<f64, EvalError> {
        let s = &mut self.stack;
        s.clear();
        s.reserve(p.max_stack);
        for op in &p.ops {
            match *op {
                Op::Const(c) => s.push(c),
                Op::Var(i) => s.push(slots[i]),
                Op::Neg => {
                    let a = s.pop().expect("compiled stack");
                    s.push(-a);
                }
                Op::Call(f, n) => {
                    let start = s.len() - n;
                    let v = call(f, &s[start..])?;
                    s.truncate(start);
                    s.push(v);
                }
                bin => {
                    let b = s.pop().expect("compiled stack");
                    let a = s.pop().expect("compiled stack");
                    let v = match bin {
                        Op::Add => a + b,
                        Op::Sub => a - b,
                        Op::Mul => a * b,
                        Op::Div | Op::Rem if b == 0.0 => return Err(EvalError("division by zero".into())),
                        Op::Div => a / b,
                        // Python's modulo: the result takes the sign of the divisor.
                        Op::Rem => a - b * (a / b).floor(),
                        Op::Pow => {
                            if a == 0.0 && b < 0.0 {
                                return Err(EvalError("zero raised to a negative power".into()));
                            }
                            if a < 0.0 && b.fract() != 0.0 {
                                return Err(EvalError("a negative number raised to a fractional power".into()));
                            }
                            a.powf(b)
                        }
                        _ => unreachable!("binary operators only"),
                    };
                    s.push(finite(v, "the result")?);
                }
            }
        }
        let v = s.pop().expect("compiled stack");
        finite(v, "the result")
    }
}

fn call(f: Func, a: &[f64]) -> Result<f64, EvalError> {
    let domain = |ok: bool, msg: &str| if ok { Ok(()) } else { Err(EvalError(msg.to_string())) };
    let v = match f {
        Func::Min => a.iter().copied().fold(f64::INFINITY, f64::min),
        Func::Max => a.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Func::Sum => a.iter().sum(),
        Func::Abs => a[0].abs(),
        Func::Round => match a.get(1) {
            None => round_half_even(a[0]),
            Some(d) => {
                let scale = 10f64.powi(d.trunc() as i32);
                round_half_even(a[0] * scale) / scale
            }
        },
        Func::Pow => {
            domain(!(a[0] == 0.0 && a[1] < 0.0), "pow: zero raised to a negative power")?;
            domain(!(a[0] < 0.0 && a[1].fract() != 0.0), "pow: a negative number raised to a fractional power")?;
            a[0].powf(a[1])
        }
        Func::Log => {
            domain(a[0] > 0.0, "log of a number that is not positive")?;
            match a.get(1) {
                None => a[0].ln(),
                Some(&b) => {
                    domain(b > 0.0 && b != 1.0, "log with a base that is not positive or is 1")?;
                    a[0].ln() / b.ln()
                }
            }
        }
        Func::Log10 => {
            domain(a[0] > 0.0, "log10 of a number that is not positive")?;
            a[0].log10()
        }
        Func::Log2 => {
            domain(a[0] > 0.0, "log2 of a number that is not positive")?;
            a[0].log2()
        }
        Func::Exp => a[0].exp(),
        Func::Sqrt => {
            domain(a[0] >= 0.0, "sqrt of a negative number")?;
            a[0].sqrt()
        }
        Func::Floor => a[0].floor(),
        Func::Ceil => a[0].ceil(),
    };
    finite(v, "the result")
}
