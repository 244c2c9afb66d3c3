//! How far one power series is from another: exa's measurement against a reference (a wall meter, a BMC log, a
//! DCGM export), after the clock offset between them is found, compared as energy over windows of several lengths.
//!
//! A series is pieces of power over time, each linear from its start's watts to its end's (a counter's mean over
//! an interval is a flat piece), with gaps where nothing was read. Energy over any span is then exact for that
//! shape, and a span a gap touches is not compared at all: a reference's drop-out is skipped, never counted as
//! zero watts.

/// A piece of a series: watts going linearly from `w0` at `a` to `w1` at `b` (seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Piece {
    /// Its start, seconds.
    pub a: f64,
    /// Its end, seconds.
    pub b: f64,
    /// Watts at its start.
    pub w0: f64,
    /// Watts at its end.
    pub w1: f64,
}

/// A power series: pieces in time order, not overlapping, with the energy and the time covered up to each
/// piece's start, so any span's energy is two binary searches.
#[derive(Debug, Clone, Default)]
pub struct Series {
    pieces: Vec<Piece>,
    energy_before: Vec<f64>,
    covered_before: Vec<f64>,
}

impl Series {
    /// A series of pieces (sorted by start; one overlapping the piece before is cut to start where it ends).
    pub fn new(mut pieces: Vec<Piece>) -> Series {
        pieces.retain(|p| p.b > p.a && [p.a, p.b, p.w0, p.w1].iter().all(|v| v.is_finite()));
        pieces.sort_by(|x, y| x.a.total_cmp(&y.a));
        let mut kept: Vec<Piece> = Vec::with_capacity(pieces.len());
        for mut p in pieces {
            if let Some(last) = kept.last() {
                if p.b <= last.b {
                    continue;
                }
                if p.a < last.b {
                    let w = p.at(last.b);
                    (p.a, p.w0) = (last.b, w);
                }
            }
            kept.push(p);
        }
        let (mut e, mut c) = (0.0, 0.0);
        let mut energy_before = Vec::with_capacity(kept.len());
        let mut covered_before = Vec::with_capacity(kept.len());
        for p in &kept {
            energy_before.push(e);
            covered_before.push(c);
            e += p.energy_to(p.b);
            c += p.b - p.a;
        }
        Series { pieces: kept, energy_before, covered_before }
    }

    /// Samples (time, watts) read as points of a line: a piece between each two, unless they are more than `gap`
    /// seconds apart (a drop-out).
    pub fn from_samples(samples: &[(f64, f64)], gap: f64) -> Series {
        let pieces =
            samples.windows(2).filter(|w| w[1].0 - w[0].0 <= gap).map(|w| Piece { a: w[0].0, b: w[1].0, w0: w[0].1, w1: w[1].1 }).collect();
        Series::new(pieces)
    }

    /// True when it covers no time.
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// The first and last instants the series covers.
    pub fn span(&self) -> Option<(f64, f64)> {
        Some((self.pieces.first()?.a, self.pieces.last()?.b))
    }

    /// The median length of its pieces (its sampling interval).
    pub fn median_step(&self) -> f64 {
        let mut lengths: Vec<f64> = self.pieces.iter().map(|p| p.b - p.a).collect();
        lengths.sort_by(f64::total_cmp);
        lengths.get(lengths.len() / 2).copied().unwrap_or(0.0)
    }

    /// (Energy in joules, seconds covered) from the start to `t`.
    fn upto(&self, t: f64) -> (f64, f64) {
        let i = self.pieces.partition_point(|p| p.a <= t);
        let Some(at) = i.checked_sub(1) else { return (0.0, 0.0) };
        let p = &self.pieces[at];
        let inside = t.min(p.b);
        (self.energy_before[at] + p.energy_to(inside), self.covered_before[at] + (inside - p.a))
    }

    /// The energy over `[a, b)` in joules, when the series covers all of it (but for rounding).
    pub fn energy(&self, a: f64, b: f64) -> Option<f64> {
        let ((e0, c0), (e1, c1)) = (self.upto(a), self.upto(b));
        let whole = (c1 - c0) >= (b - a) * (1.0 - 1e-9);
        (b > a && whole).then_some(e1 - e0)
    }

    /// The mean watts over `[a, b)`, when covered.
    fn mean(&self, a: f64, b: f64) -> Option<f64> {
        self.energy(a, b).map(|e| e / (b - a))
    }
}

impl Piece {
    fn at(&self, t: f64) -> f64 {
        self.w0 + (self.w1 - self.w0) * (t - self.a) / (self.b - self.a)
    }

    /// The energy from `a` to `t` (within the piece).
    fn energy_to(&self, t: f64) -> f64 {
        (t - self.a) * (self.w0 + self.at(t)) / 2.0
    }
}

/// The clock offset found between two series: the reference's clock reads `seconds` more than exa's (a moment exa
/// calls t, the reference calls t + seconds), how alike the two are there (Pearson's r of their mean watts in bins),
/// and another offset that fits almost as well, when one does (a load that repeats: one period off).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Offset {
    /// The reference's clock minus exa's.
    pub seconds: f64,
    /// Pearson's r there.
    pub correlation: f64,
    /// An offset at least two bins away whose fit is within 0.2 % of this one's.
    pub runner_up: Option<f64>,
}

/// Exa's mean watts in bins of `bin` seconds across its span.
struct Bins {
    edges: Vec<f64>,
    means: Vec<Option<f64>>,
    bin: f64,
}

impl Bins {
    fn of(exa: &Series, bin: f64) -> Option<Bins> {
        let (from, to) = exa.span()?;
        let n = ((to - from) / bin).floor();
        if !(10.0..10_000_000.0).contains(&n) {
            return None;
        }
        let edges: Vec<f64> = (0..n as usize).map(|k| from + k as f64 * bin).collect();
        let means = edges.iter().map(|&a| exa.mean(a, a + bin)).collect();
        Some(Bins { edges, means, bin })
    }

    /// How well the reference moved by `off` fits: Pearson's r over the bins both cover, times the share of exa's
    /// bins they are, so that a short overlap that happens to match never beats the whole run; None under a quarter
    /// of the bins (or ten), or flat.
    fn fit(&self, reference: &Series, off: f64) -> Option<(f64, f64)> {
        let pairs: Vec<(f64, f64)> =
            self.means.iter().zip(&self.edges).filter_map(|(x, &a)| Some(((*x)?, reference.mean(a + off, a + off + self.bin)?))).collect();
        let have = self.means.iter().filter(|m| m.is_some()).count();
        if pairs.len() < 10 || pairs.len() * 4 < have {
            return None;
        }
        let r = pearson(&pairs)?;
        Some((r * pairs.len() as f64 / have as f64, r))
    }

    /// The best fits over `lo..=hi` every `step`: (offset, score, r), best first.
    fn scan(&self, reference: &Series, lo: f64, hi: f64, step: f64) -> Vec<(f64, f64, f64)> {
        let n = ((hi - lo) / step).round().max(0.0) as i64;
        let mut fits: Vec<(f64, f64, f64)> =
            (0..=n).map(|k| lo + k as f64 * step).filter_map(|off| self.fit(reference, off).map(|(s, r)| (off, s, r))).collect();
        fits.sort_by(|a, b| b.1.total_cmp(&a.1));
        fits
    }
}

/// The offset within `±most` seconds that makes the two series most alike, compared in bins of `bin` seconds: first
/// in bins wide enough that 4,000 steps span the range, the three best refined in bins of `bin` every quarter bin,
/// then every fortieth. None when they share too little (a quarter of the run, or ten bins) or one is flat there.
pub fn find_offset(exa: &Series, reference: &Series, most: f64, bin: f64) -> Option<Offset> {
    let fine = Bins::of(exa, bin)?;
    let wide = (most / 500.0).max(bin);
    let coarse = if wide > bin { Bins::of(exa, wide).unwrap_or(Bins::of(exa, bin)?) } else { Bins::of(exa, bin)? };
    let mut seeds: Vec<f64> = Vec::new();
    for (off, _, _) in coarse.scan(reference, -most, most, coarse.bin / 4.0) {
        if seeds.iter().all(|s| (s - off).abs() >= coarse.bin) {
            seeds.push(off);
        }
        if seeds.len() == 3 {
            break;
        }
    }
    let mut fits: Vec<(f64, f64, f64)> =
        seeds.iter().flat_map(|&s| fine.scan(reference, s - coarse.bin, s + coarse.bin, bin / 4.0)).collect();
    fits.sort_by(|a, b| b.1.total_cmp(&a.1));
    let &(at, _, _) = fits.first()?;
    let mut last = fine.scan(reference, at - bin / 4.0, at + bin / 4.0, bin / 40.0);
    last.extend(fits.iter().copied());
    last.sort_by(|a, b| b.1.total_cmp(&a.1));
    let &(seconds, score, correlation) = last.first()?;
    let runner_up = last.iter().find(|f| (f.0 - seconds).abs() >= 2.0 * bin && f.1 >= score - 0.002 * score.abs()).map(|f| f.0);
    Some(Offset { seconds, correlation, runner_up })
}

/// Pearson's r of the pairs; None when either side is flat.
fn pearson(pairs: &[(f64, f64)]) -> Option<f64> {
    let n = pairs.len() as f64;
    let (mx, my) = (pairs.iter().map(|p| p.0).sum::<f64>() / n, pairs.iter().map(|p| p.1).sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in pairs {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    let flat = 1e-12 * n * (mx.abs() + my.abs()).max(1.0);
    (sxx > flat && syy > flat).then(|| sxy / (sxx * syy).sqrt())
}

/// The error over windows of one length: how many were compared (both series cover them) and skipped, the mean
/// absolute percentage error of exa's energy against the reference's, the bias over them all, and the worst.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowErrors {
    /// The windows' length.
    pub seconds: f64,
    /// Windows both series cover.
    pub compared: usize,
    /// Windows one of them does not.
    pub skipped: usize,
    /// The mean of the windows' absolute errors, percent.
    pub mape_pct: Option<f64>,
    /// Exa's energy over the compared windows against the reference's, percent.
    pub bias_pct: Option<f64>,
    /// The worst window's absolute error, percent.
    pub max_abs_pct: Option<f64>,
}

/// Exa's energy against the reference's over consecutive windows of `seconds` across exa's span, the reference
/// read `offset` seconds on.
pub fn window_errors(exa: &Series, reference: &Series, offset: f64, seconds: f64) -> WindowErrors {
    let mut errors = Vec::new();
    let (mut sum_exa, mut sum_ref, mut skipped) = (0.0, 0.0, 0usize);
    if let Some((from, to)) = exa.span() {
        let n = ((to - from) / seconds).floor().clamp(0.0, 10_000_000.0) as usize;
        for k in 0..n {
            let a = from + k as f64 * seconds;
            let b = a + seconds;
            match (exa.energy(a, b), reference.energy(a + offset, b + offset)) {
                (Some(e), Some(r)) if r > 0.0 => {
                    errors.push((e - r) / r * 100.0);
                    sum_exa += e;
                    sum_ref += r;
                }
                _ => skipped += 1,
            }
        }
    }
    let compared = errors.len();
    let mape_pct = (compared > 0).then(|| errors.iter().map(|e| e.abs()).sum::<f64>() / compared as f64);
    let max_abs_pct = errors.iter().map(|e| e.abs()).reduce(f64::max);
    let bias_pct = (sum_ref > 0.0).then(|| (sum_exa - sum_ref) / sum_ref * 100.0);
    WindowErrors { seconds, compared, skipped, mape_pct, bias_pct, max_abs_pct }
}

/// Exa's and the reference's energy over every stretch both cover (exa's span, the reference moved by `offset`),
/// joules, and the seconds compared: the whole run's error without the windows' edges.
pub fn overlap_energy(exa: &Series, reference: &Series, offset: f64) -> (f64, f64, f64) {
    let (mut e, mut r, mut seconds) = (0.0, 0.0, 0.0);
    for p in &exa.pieces {
        if let Some(re) = reference.energy(p.a + offset, p.b + offset) {
            e += p.energy_to(p.b);
            r += re;
            seconds += p.b - p.a;
        }
    }
    (e, r, seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wave(t: f64) -> f64 {
        // A training loop's shape: 10 s at 600 W, 5 s at 150 W, with a slow swell.
        let phase = t.rem_euclid(15.0);
        (if phase < 10.0 { 600.0 } else { 150.0 }) + 40.0 * (t / 37.0).sin()
    }

    fn sampled(from: f64, to: f64, step: f64, lag: f64, scale: f64) -> Vec<(f64, f64)> {
        let n = ((to - from) / step) as usize;
        (0..=n).map(|k| from + k as f64 * step).map(|t| (t + lag, wave(t) * scale)).collect()
    }

    #[test]
    fn energy_over_a_span_is_exact_for_lines_and_refuses_gaps() {
        let s = Series::new(vec![Piece { a: 0.0, b: 10.0, w0: 100.0, w1: 200.0 }, Piece { a: 20.0, b: 30.0, w0: 50.0, w1: 50.0 }]);
        assert_eq!(s.energy(0.0, 10.0), Some(1500.0));
        assert_eq!(s.energy(5.0, 10.0), Some(5.0 * 175.0));
        assert_eq!(s.energy(20.0, 25.0), Some(250.0));
        assert_eq!(s.energy(5.0, 25.0), None, "the gap from 10 to 20 s is not zero watts");
        assert_eq!(s.energy(30.0, 40.0), None);
    }

    #[test]
    fn an_injected_lag_and_bias_are_recovered() {
        let exa = Series::from_samples(&sampled(1000.0, 1600.0, 1.0, 0.0, 1.0), 3.0);
        let reference = Series::from_samples(&sampled(1000.0, 1600.0, 0.5, 7.3, 1.05), 1.5);
        let off = find_offset(&exa, &reference, 30.0, 1.0).expect("an offset");
        // A step sampled every second is a ramp somewhere within that second: the lag is known to half of it.
        assert!((off.seconds - 7.3).abs() <= 0.5, "{off:?}");
        let (e, r, _) = overlap_energy(&exa, &reference, off.seconds);
        assert!((r / e / 1.05 - 1.0).abs() < 0.005, "{}", r / e);
        let w = window_errors(&exa, &reference, off.seconds, 60.0);
        assert!(w.compared >= 9 && w.skipped <= 1, "{w:?}");
        let bias = w.bias_pct.unwrap();
        assert!((bias - (1.0 / 1.05 - 1.0) * 100.0).abs() < 0.5, "{bias}");
    }

    #[test]
    fn flat_series_have_no_offset() {
        let flat: Vec<(f64, f64)> = (0..100).map(|t| (f64::from(t), 300.0)).collect();
        let s = Series::from_samples(&flat, 2.0);
        assert_eq!(find_offset(&s, &s, 10.0, 1.0), None);
    }
}
