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

/// Python's float modulo: `fmod`, then the sign of the divisor (`-7 % 3` is 2).
fn py_mod(a: f64, b: f64) -> f64 {
    let m = a % b;
    if m == 0.0 {
        0.0_f64.copysign(b)
    } else if (m < 0.0) != (b < 0.0) {
        m + b
    } else {
        m
    }
}

/// Python's `round(x, n)`: the exact binary value rounded at the n-th decimal,
/// an exact tie to even (`round(2.675, 2)` is 2.67, since 2.675 is stored below it).
fn py_round(x: f64, n: f64) -> f64 {
    // Python's own bounds: beyond them the answer is x, or a zero of x's sign.
    if !x.is_finite() || x == 0.0 || n > 323.0 {
        return x;
    }
    if n < -308.0 {
        return 0.0 * x;
    }
    let n = n as i64;
    // Every double has an exact decimal expansion of at most 1074 fractional digits.
    let exact = format!("0{:.1100}", x.abs());
    let (int, frac) = exact.split_once('.').unwrap_or((&exact, ""));
    let digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
    let point = int.len() as i64;
    let keep = point + n;
    if keep <= 0 {
        return 0.0 * x;
    }
    let keep = keep as usize;
    if keep >= digits.len() {
        return x;
    }
    let (first, tail) = (digits[keep], &digits[keep + 1..]);
    let up = first > 5 || (first == 5 && (tail.iter().any(|d| *d != 0) || digits[keep - 1] % 2 == 1));
    let mut kept = digits[..keep].to_vec();
    if up {
        for d in kept.iter_mut().rev() {
            if *d == 9 {
                *d = 0;
            } else {
                *d += 1;
                break;
            }
        }
    }
    let mut text = String::with_capacity(kept.len() + 8);
    let point = point as usize;
    for (i, d) in kept.iter().enumerate() {
        if i == point {
            text.push('.');
        }
        text.push(char::from(b'0' + d));
    }
    for _ in kept.len()..point {
        text.push('0');
    }
    text.parse::<f64>().map_or(x, |v| v.copysign(x))
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
                        Op::Rem => py_mod(a, b),
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
            Some(d) if d.fract() != 0.0 => return Err(EvalError(format!("round: the number of digits {d} is not a whole number"))),
            Some(d) => py_round(a[0], *d),
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
