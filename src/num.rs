//! Numbers as reports show them.

use std::fmt::Write;

/// Rounds away floating-point noise (5.760000000000001 is 5.76) at 15 significant digits.
pub fn tidy(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    // Already tidy when the shortest decimal that reads back as `x` has at most 15 significant digits: `x` is
    // within half a unit in its last binary place of that decimal, 2^-53 of `x` at most for a normal number, and
    // half a unit in the 15th decimal place is at least 5e-16 of it, so rounding `x` itself at 15 digits gives
    // that decimal, which reads back as `x`. (A subnormal's last place is larger than that: it goes the long way.)
    if x.is_normal() && significant_digits(zmij::Buffer::new().format_finite(x)) <= 15 {
        return x;
    }
    rounded(x)
}

/// The number of significant digits in a decimal such as `-1.2345e-7` or `1200.0`: from its first digit that is
/// not 0 to its last.
fn significant_digits(text: &str) -> usize {
    let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
    let (mut first, mut last, mut at) = (None, 0, 0);
    for b in mantissa.bytes().filter(u8::is_ascii_digit) {
        if b != b'0' {
            first.get_or_insert(at);
            last = at;
        }
        at += 1;
    }
    first.map_or(0, |f| last - f + 1)
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
        assert_eq!((super::significant_digits("-1.2345e-7"), super::significant_digits("1200.0")), (5, 2));
        assert_eq!((super::significant_digits("0.000120"), super::significant_digits("1e300")), (2, 1));
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
    }
}
