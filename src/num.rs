//! Numbers as reports show them.

use std::fmt::Write;

/// Rounds away floating-point noise (5.760000000000001 is 5.76) at 15 significant digits.
pub fn tidy(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
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
}
