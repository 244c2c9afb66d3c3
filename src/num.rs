//! Numbers as reports show them.

/// Rounds away floating-point noise (5.760000000000001 is 5.76) at 15 significant digits.
pub fn tidy(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    // The tidy-up never turns a finite number into infinity (1.7976931348623157e308 stays).
    format!("{x:.14e}").parse().ok().filter(|t: &f64| t.is_finite()).unwrap_or(x)
}
