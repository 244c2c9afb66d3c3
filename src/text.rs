//! Text from outside (provider files, plugins, Prometheus labels, device
//! names, error messages) made safe to show: no control characters reach
//! a terminal, so no escape sequence can move the cursor, retitle the
//! window or plant a link.

/// `s` with every control character (C0, DEL, C1) replaced by `?`, and
/// bidirectional overrides removed. Tabs and newlines become spaces.
pub fn clean(s: &str) -> String {
    clean_cow(s).into_owned()
}

/// [`clean`] borrowing `s` where it needs no care (most text), so the common case allocates nothing.
pub fn clean_cow(s: &str) -> std::borrow::Cow<'_, str> {
    if is_clean(s) {
        std::borrow::Cow::Borrowed(s)
    } else {
        std::borrow::Cow::Owned(cleaned(s))
    }
}

/// [`clean`] as a [`crate::model::Word`]: text that needs no care (most of a scheduler's words) is copied in place,
/// never through a `String`.
pub fn clean_word(s: &str) -> crate::model::Word {
    if is_clean(s) {
        return s.into();
    }
    cleaned(s).into()
}

/// Whether `s` is as [`clean`] would leave it.
fn is_clean(s: &str) -> bool {
    // Printable ASCII (most of what is cleaned) needs no care, and is seen a byte at a time.
    s.bytes().all(|b| (b' '..=b'~').contains(&b)) || !s.chars().any(needs_care)
}

/// `s` cleaned, the long way.
fn cleaned(s: &str) -> String {
    s.chars()
        .filter(|c| !is_bidi_control(*c))
        .map(|c| match c {
            '\t' | '\n' | '\r' => ' ',
            c if c.is_control() => '?',
            c => c,
        })
        .collect()
}

/// Rendered table text made safe for a terminal: line breaks kept, and
/// with `keep_sgr` the colour sequences (`ESC [ params m`) the renderer
/// adds; every other control character, and so every cursor move, title
/// change or link, becomes `?`. (A colour sequence from outside survives
/// only on a colour terminal, and can change nothing but colour.)
pub fn for_terminal(s: &str, keep_sgr: bool) -> String {
    if !s.chars().any(|c| (needs_care(c) && c != '\n') || c == '\u{1b}') {
        return s.to_string();
    }
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\u{1b}' && keep_sgr && chars.get(i + 1) == Some(&'[') {
            let mut j = i + 2;
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == ';') {
                j += 1;
            }
            if chars.get(j) == Some(&'m') {
                out.extend(&chars[i..=j]);
                i = j + 1;
                continue;
            }
        }
        match c {
            '\n' => out.push('\n'),
            c if is_bidi_control(c) => {}
            c if c.is_control() => out.push('?'),
            c => out.push(c),
        }
        i += 1;
    }
    out
}

/// FNV-1a (64 bits) over `parts`, each ended by a zero byte: a short, stable
/// fingerprint of text (a methodology's definition, a cache key), not a secret.
pub fn fnv1a64(parts: &[&str]) -> u64 {
    use std::hash::Hasher;
    let mut h = Fnv::default();
    for p in parts {
        h.write(p.as_bytes());
        h.write(&[0]);
    }
    h.finish()
}

/// FNV-1a as a `Hasher`, for maps keyed by the user's own short strings (a
/// report's group keys): fast, and not meant to resist chosen collisions.
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// A `HashMap` hashed with [`Fnv`].
pub type FnvMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<Fnv>>;

/// A set hashed with `Fnv`, for the same keys.
pub type FnvSet<K> = std::collections::HashSet<K, std::hash::BuildHasherDefault<Fnv>>;

/// The deepest nesting YAML exa reads: far more than any config or provider needs.
pub const MAX_YAML_DEPTH: usize = 64;

/// Refuses YAML nested deeper than [`MAX_YAML_DEPTH`] in one linear pass,
/// before a parser spends quadratic time on it: flow brackets (`[[[`, `{{{`)
/// and block nesting (indentation, and `- - -` sequences on one line) both count.
pub fn check_yaml_depth(text: &str) -> Result<(), String> {
    let mut flow = 0usize;
    let mut quote: Option<char> = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let mut rest = line.trim_start_matches(' ');
        let mut dashes = 0;
        while let Some(r) = rest.strip_prefix("- ").or_else(|| rest.strip_prefix("? ")) {
            dashes += 1;
            rest = r.trim_start_matches(' ');
        }
        if indent / 2 + dashes > MAX_YAML_DEPTH * 2 || dashes > MAX_YAML_DEPTH {
            return Err(format!("the YAML is nested deeper than {MAX_YAML_DEPTH} levels"));
        }
        // A quote opens a quoted scalar only where a value starts.
        let mut prev = ' ';
        for c in line.chars() {
            let starts_value = matches!(prev, ' ' | ':' | '[' | '{' | ',' | '-');
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'') if starts_value => quote = Some(c),
                (None, '#') if prev == ' ' => break,
                (None, '[' | '{') => {
                    flow += 1;
                    if flow > MAX_YAML_DEPTH {
                        return Err(format!("the YAML is nested deeper than {MAX_YAML_DEPTH} levels"));
                    }
                }
                (None, ']' | '}') => flow = flow.saturating_sub(1),
                _ => {}
            }
            prev = c;
        }
        if quote == Some('\'') || flow == 0 {
            // A single-quoted scalar may span lines only inside flow; a double-quoted one may too, rarely.
            quote = quote.filter(|_| flow > 0);
        }
    }
    Ok(())
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

/// Whether a query or fragment parameter's name looks like it holds a secret.
fn secret_key(k: &str) -> bool {
    let k = k.to_ascii_lowercase();
    ["token", "key", "auth", "secret", "pass", "pwd", "sig", "credential", "code", "session", "jwt", "bearer"].iter().any(|s| k.contains(s))
}

/// The URL as exa shows or stores it: user and password removed, and the
/// values of secret-looking parameters in the query, the path's `;params`
/// and the fragment hidden.
pub fn redact_url(url: &str) -> String {
    // The user info first, on the whole URL: a password may hold `/`, `?`, `#` or `@` unencoded.
    let (head, url) = match url.find("://") {
        Some(i) => {
            let (scheme, rest) = (&url[..i], &url[i + 3..]);
            match userinfo_end(rest) {
                Some(at) => (format!("{scheme}://REDACTED@"), &rest[at + 1..]),
                None => (format!("{scheme}://"), rest),
            }
        }
        None => (String::new(), url),
    };
    let (before_frag, frag) = match url.split_once('#') {
        Some((a, f)) => (a, Some(f)),
        None => (url, None),
    };
    let (before_query, query) = match before_frag.split_once('?') {
        Some((a, q)) => (a, Some(q)),
        None => (before_frag, None),
    };
    let mut out = head;
    out.push_str(&redact_params(before_query, ';'));
    if let Some(q) = query {
        out.push('?');
        out.push_str(&redact_pairs(q, &['&', ';']));
    }
    if let Some(f) = frag {
        out.push('#');
        out.push_str(&redact_pairs(f, &['&', ';']));
    }
    out
}

/// Where the user info of what follows `scheme://` ends (its last `@`): user info with nothing
/// URL-like before it, or `user:password` whatever the password holds. An `@` in a path is not one.
fn userinfo_end(rest: &str) -> Option<usize> {
    let at = rest.rfind('@')?;
    let before = &rest[..at];
    let plain = !before.contains(['/', '?', '#']);
    let user_password = before.split_once(':').is_some_and(|(user, _)| !user.contains(['/', '?', '#']));
    (plain || user_password).then_some(at)
}

/// Hides `;name=value` path parameters whose names look secret.
fn redact_params(s: &str, sep: char) -> String {
    let mut parts = s.split(sep);
    let first = parts.next().unwrap_or_default().to_string();
    parts.fold(first, |mut acc, p| {
        acc.push(sep);
        acc.push_str(&redact_pair(p));
        acc
    })
}

fn redact_pairs(s: &str, seps: &[char]) -> String {
    let mut out = String::with_capacity(s.len());
    let mut cur = String::new();
    for c in s.chars() {
        if seps.contains(&c) {
            out.push_str(&redact_pair(&cur));
            out.push(c);
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    out.push_str(&redact_pair(&cur));
    out
}

fn redact_pair(kv: &str) -> String {
    match kv.split_once('=') {
        Some((k, _)) if secret_key(k) => format!("{k}=REDACTED"),
        _ => kv.to_string(),
    }
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
        assert_eq!(for_terminal("\x1b[1mbold\x1b[0m\n\x1b[2J\x1b]0;t\x07", true), "\x1b[1mbold\x1b[0m\n?[2J?]0;t?");
        assert_eq!(for_terminal("\x1b[1mx", false), "?[1mx");
    }

    #[test]
    fn deep_yaml_is_refused_in_linear_time() {
        assert!(check_yaml_depth("a:\n  b: [1, {c: 2}]\n  - x\n").is_ok());
        let deep = "[".repeat(100_000);
        let started = std::time::Instant::now();
        assert!(check_yaml_depth(&deep).is_err());
        assert!(check_yaml_depth(&"- ".repeat(100_000)).is_err());
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        assert!(check_yaml_depth(&format!("a: \"{}\"", "[".repeat(100))).is_ok(), "brackets in a string at block level are text");
    }
}
