//! "Did you mean" for names: the nearest candidate by edit distance.

/// Levenshtein distance between two strings, by characters.
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb { prev } else { 1 + prev.min(cur).min(row[j]) };
            prev = cur;
        }
    }
    row[b.len()]
}

/// The candidate nearest to `word`, if any is close enough to be a likely typo.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (distance(word, c), c))
        .filter(|(d, c)| *d <= (c.chars().count().max(word.chars().count()) / 3).max(2) || c.contains(word) || word.contains(c))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_typos() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(nearest("pue", ["pue", "gpu_tdp_watts"]), Some("pue"));
        assert_eq!(nearest("gpu_tdp_wats", ["pue", "gpu_tdp_watts"]), Some("gpu_tdp_watts"));
        assert_eq!(nearest("coefficents", ["provider", "coefficients"]), Some("coefficients"));
        assert_eq!(nearest("zzzzzz", ["pue", "coefficients"]), None);
    }
}
