//! Numbers as reports show them.

use std::fmt::Write;

/// Rounds away floating-point noise (5.760000000000001 is 5.76) at 15 significant digits.
pub fn tidy(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    // A subnormal's last binary place is larger than the reasoning in `short` allows: it goes the long way.
    if !x.is_normal() {
        return rounded(x);
    }
    let mut buffer = zmij::Buffer::new();
    match Shortest::of(buffer.format_finite(x)) {
        Some(s) => s.tidy(x).unwrap_or_else(|| rounded(x)),
        None => rounded(x),
    }
}

/// A figure's band for a relative uncertainty `u`: `v × (1 − u)`, never below zero, to `v × (1 + u)`, each tidied.
/// Both ends are infinite where `v × (1 ± u)` overflows; callers say so.
pub fn band(v: f64, u: f64) -> [f64; 2] {
    let (lo, hi) = (v * (1.0 - u), v * (1.0 + u));
    if !lo.is_finite() || !hi.is_finite() {
        return [f64::INFINITY; 2];
    }
    [tidy(lo.max(0.0)), tidy(hi)]
}

/// The shortest decimal that reads back as a number, as `digits × 10^exp`: its significant digits (no leading
/// or trailing zero) and where they stand.
struct Shortest {
    digits: [u8; 17],
    len: usize,
    exp: i32,
}

/// 10^0 to 10^22: each exactly a double.
const POW10: [f64; 23] =
    [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

impl Shortest {
    /// The decimal of a text such as `-1.2345e-7`, `1200.0` or `0.000120`; None for one of more than 17 digits
    /// (which no shortest decimal of a double has).
    fn of(text: &str) -> Option<Shortest> {
        let (mantissa, exp) = match text.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.parse::<i32>().ok()?),
            None => (text, 0),
        };
        let mut s = Shortest { digits: [0; 17], len: 0, exp };
        let mut after_point = false;
        // Zeros after a digit, not yet known to be inside the number or trailing.
        let mut zeros = 0usize;
        for b in mantissa.bytes() {
            match b {
                b'.' => after_point = true,
                b'0'..=b'9' => {
                    if after_point {
                        s.exp -= 1;
                    }
                    if b == b'0' {
                        // Leading zeros are nothing; others wait to see whether a digit follows.
                        zeros += usize::from(s.len > 0);
                        continue;
                    }
                    for _ in 0..zeros {
                        *s.digits.get_mut(s.len)? = 0;
                        s.len += 1;
                    }
                    zeros = 0;
                    *s.digits.get_mut(s.len)? = b - b'0';
                    s.len += 1;
                }
                _ => {}
            }
        }
        s.exp += i32::try_from(zeros).ok()?;
        Some(s)
    }

    /// `x` (whose shortest decimal this is) rounded at 15 significant digits, found from this decimal where that
    /// gives what rounding `x` itself does; None where it may not (the long way then).
    ///
    /// Rounding `x` and rounding its shortest decimal `s` at 15 digits differ only where a boundary between two
    /// 15-digit decimals (a 16-digit decimal ending in 5) lies between `x` and `s`, or on either. Both lie in the
    /// interval of numbers that read back as `x`. If `s` has 17 digits, no 16-digit decimal lies in that interval
    /// (else it would be shorter): no boundary does. If `s` has 16, a boundary other than `s` is a candidate as
    /// short, so it is not between `x` and `s` (`s` is the candidate nearest `x`); `s` itself is one only when its
    /// last digit is 5, left to the long way. At 15 digits or fewer, `x` is tidy already (see `tidy`'s caller).
    fn tidy(&self, x: f64) -> Option<f64> {
        // Within half a unit in its last binary place of `s`, 2^-53 of `x` at most for a normal number, while half a
        // unit in the 15th decimal place is at least 5e-16 of it: rounding `x` at 15 digits gives `s` back.
        if self.len <= 15 {
            return Some(x);
        }
        if self.len == 16 && self.digits[15] == 5 {
            return None;
        }
        let mut m = self.digits[..15].iter().fold(0u64, |m, d| m * 10 + u64::from(*d));
        if self.digits[15] >= 5 {
            m += 1;
        }
        let exp = self.exp + i32::try_from(self.len - 15).ok()?;
        // m is at most 10^15, a double exactly: times or over an exact power of ten, the one rounding is the answer.
        let magnitude = match usize::try_from(exp.unsigned_abs()).ok().and_then(|e| POW10.get(e)) {
            Some(p) if exp >= 0 => m as f64 * p,
            Some(p) => m as f64 / p,
            None => {
                let mut text = Digits { bytes: [0; 32], len: 0 };
                write!(text, "{m}e{exp}").ok()?;
                std::str::from_utf8(&text.bytes[..text.len]).ok()?.parse::<f64>().ok()?
            }
        };
        Some(if x < 0.0 { -magnitude } else { magnitude }).filter(|t| t.is_finite())
    }
}

/// `x` rounded at 15 significant digits, by its text.
fn rounded(x: f64) -> f64 {
    // Written into a buffer on the stack (an import tidies millions of figures): `-d.dddddddddddddde-308` is
    // 22 bytes at most.
    let mut digits = Digits { bytes: [0; 32], len: 0 };
    if write!(digits, "{x:.14e}").is_err() {
        return x;
    }
    // The tidy-up never turns a finite number into infinity (1.7976931348623157e308 stays).
    std::str::from_utf8(&digits.bytes[..digits.len]).ok().and_then(|s| s.parse().ok()).filter(|t: &f64| t.is_finite()).unwrap_or(x)
}

/// A number's text, in a fixed buffer: writing more than it holds is an error.
struct Digits {
    bytes: [u8; 32],
    len: usize,
}

impl Write for Digits {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len.checked_add(s.len()).filter(|e| *e <= self.bytes.len()).ok_or(std::fmt::Error)?;
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::tidy;

    #[test]
    fn noise_is_rounded_away_at_fifteen_digits_and_extremes_stay() {
        assert_eq!(tidy(5.760000000000001), 5.76);
        assert_eq!(tidy(0.1 + 0.2), 0.3);
        assert_eq!(tidy(-2.0000000000000004), -2.0);
        assert_eq!(tidy(f64::MAX), f64::MAX);
        assert_eq!(tidy(-f64::MIN_POSITIVE), -2.2250738585072e-308);
        assert_eq!(tidy(5e-324), 5e-324);
        assert_eq!(tidy(1.0 / 3.0), 0.333333333333333);
        assert!(tidy(f64::NAN).is_nan());
        assert_eq!(tidy(f64::NEG_INFINITY), f64::NEG_INFINITY);
        // Each the number its 15 digits, as text, read back.
        for x in [14.383333333333333, 4142.4 + 4.5e-13, 189.803609862538, 1e300 / 7.0, -9.6656e-200] {
            assert_eq!(tidy(x), format!("{x:.14e}").parse::<f64>().unwrap(), "{x}");
        }
    }

    #[test]
    fn the_short_way_answers_what_rounding_the_text_does_bit_for_bit() {
        let of = |t: &str| super::Shortest::of(t).map(|s| (s.digits[..s.len].to_vec(), s.exp));
        assert_eq!(of("-1.2345e-7"), Some((vec![1, 2, 3, 4, 5], -11)));
        assert_eq!(of("1200.0"), Some((vec![1, 2], 2)));
        assert_eq!(of("0.000120"), Some((vec![1, 2], -5)));
        assert_eq!(of("1e300"), Some((vec![1], 300)));
        assert_eq!(of("100.5"), Some((vec![1, 0, 0, 5], -1)));
        assert_eq!(of("123456789012345678"), None);
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut short = 0;
        for i in 0..400_000 {
            let r = next();
            // Any bits at all, figures as an importer makes them (hours from seconds, products, bands), and
            // numbers of few digits a step from their neighbours.
            let x = match i % 4 {
                0 => f64::from_bits(r),
                1 => (r % 10_000_000) as f64 / 3600.0 * [0.7, 1.3, 0.3, 1.5][(r >> 60) as usize % 4],
                2 => (r % 1_000_000) as f64 / 1000.0,
                _ => f64::from_bits(((r % 1_000_000) as f64 / 100.0).to_bits().wrapping_add(r >> 62).wrapping_sub(1)),
            };
            if !x.is_finite() || x == 0.0 {
                continue;
            }
            let slow = super::rounded(x);
            assert_eq!(tidy(x).to_bits(), slow.to_bits(), "{x:e}");
            short += usize::from(slow.to_bits() == x.to_bits());
        }
        assert!(short > 100_000, "{short} numbers were already tidy");
        // Decimals of 16 and 17 digits, those ending in 5 most of all: a boundary between two 15-digit decimals.
        for i in 0..200_000u64 {
            let r = next();
            let digits = 1_000_000_000_000_000 + r % 9_000_000_000_000_000;
            let (digits, places) = if i % 2 == 0 { (digits / 10 * 10 + 5, (r >> 56) % 40) } else { (digits, (r >> 56) % 40) };
            let text = if i % 3 == 0 { format!("{digits}e-{places}") } else { format!("{}e{places}", digits / 10) };
            let x: f64 = text.parse().unwrap();
            assert_eq!(tidy(x).to_bits(), super::rounded(x).to_bits(), "{text}");
            assert_eq!(tidy(-x).to_bits(), super::rounded(-x).to_bits(), "-{text}");
        }
    }
}
