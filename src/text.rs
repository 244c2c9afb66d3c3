//! Text from outside (provider files, plugins, Prometheus labels, device
//! names, error messages) made safe to show: no control characters reach
//! a terminal, so no escape sequence can move the cursor, retitle the
//! window or plant a link.

/// `s` with every control character (C0, DEL, C1) replaced by `?`, and
/// bidirectional overrides removed. Tabs and newlines become spaces.
pub fn clean(s: &str) -> String {
    if !s.chars().any(needs_care) {
        return s.to_string();
    }
    s.chars()
        .filter(|c| !is_bidi_control(*c))
        .map(|c| match c {
            '\t' | '\n' | '\r' => ' ',
            c if c.is_control() => '?',
            c => c,
        })
        .collect()
}

/// Like [`clean`], but keeps line breaks: for multi-line messages.
pub fn clean_lines(s: &str) -> String {
    s.split('\n').map(clean).collect::<Vec<_>>().join("\n")
}

fn needs_care(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_never_pass() {
        assert_eq!(clean("ok name"), "ok name");
        assert_eq!(clean("a\x1b[2Jb"), "a?[2Jb");
        assert_eq!(clean("\x1b]8;;http://evil\x07x\x1b]8;;\x07"), "?]8;;http://evil?x?]8;;?");
        assert_eq!(clean("t\u{9b}31m"), "t?31m");
        assert_eq!(clean("a\tb\nc"), "a b c");
        assert_eq!(clean("x\u{202E}y"), "xy");
        assert_eq!(clean_lines("a\x1b\nb"), "a?\nb");
    }
}
