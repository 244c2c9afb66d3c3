//! A record's tags: what a pod's Kubernetes labels and annotations say of its work (its team, its cost centre),
//! kept on its records so a report groups by them (`report --by label:team`) and FOCUS rows carry them (`Tags`).
//!
//! A tag's key is its kind and the Kubernetes key, `label:team` or `annotation:cost-center`: the two kinds never
//! collide, and the key a report is grouped by is the key FOCUS shows. A record keeps its tags as one canonical
//! JSON object (keys sorted, values strings), so records alike store alike text.
//!
//! A key is checked against Kubernetes' own grammar for label and annotation keys (an optional DNS-subdomain
//! prefix and `/`, then a name of letters, digits, `-`, `_` and `.`): it never holds a quote or a backslash, so
//! a store may name it in SQL as a literal.

use std::collections::BTreeMap;
use std::sync::Mutex;

/// The kinds of tag a key may name.
pub const KINDS: [&str; 2] = ["label", "annotation"];

/// The most distinct keys one process groups by: a long-running server asked for ever new keys stays bounded.
pub const MAX_KEYS: usize = 4096;

/// Whether `name` is a Kubernetes label or annotation key: `[prefix/]name`, the prefix a DNS subdomain of at most
/// 253 characters, the name 1 to 63 letters, digits, `-`, `_` or `.`, beginning and ending with a letter or digit.
pub fn kubernetes_key(name: &str) -> bool {
    let (prefix, name) = match name.rsplit_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, name),
    };
    let alnum = |c: char| c.is_ascii_alphanumeric();
    let ends = |s: &str| s.starts_with(alnum) && s.ends_with(alnum);
    let name_ok = (1..=63).contains(&name.len()) && ends(name) && name.chars().all(|c| alnum(c) || matches!(c, '-' | '_' | '.'));
    let prefix_ok = prefix.is_none_or(|p| {
        (1..=253).contains(&p.len())
            && p.split('.').all(|part| {
                !part.is_empty() && ends(part) && part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            })
    });
    name_ok && prefix_ok
}

/// Checks a tag's key (`label:team`, `annotation:cost-center`); the message says what is wrong.
pub fn check(key: &str) -> Result<(), String> {
    let Some((kind, name)) = key.split_once(':') else {
        return Err(format!("a tag is label:KEY or annotation:KEY, not '{}'", clean(key)));
    };
    if !KINDS.contains(&kind) {
        return Err(format!("'{}' is not a kind of tag (label, annotation)", clean(kind)));
    }
    if !kubernetes_key(name) {
        return Err(format!(
            "'{}' is not a Kubernetes {kind} key ([prefix/]name: the name 1 to 63 letters, digits, '-', '_' or '.', begun and ended \
             with a letter or digit)",
            clean(name)
        ));
    }
    Ok(())
}

/// A tag's key, checked and kept for the process's life (so a grouping by it is `Copy`): the same key is kept once,
/// and `MAX_KEYS` at most.
pub fn key(key: &str) -> Result<&'static str, String> {
    static KEYS: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    check(key)?;
    let mut keys = KEYS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(k) = keys.iter().find(|k| **k == key) {
        return Ok(k);
    }
    if keys.len() >= MAX_KEYS {
        return Err(format!("more than {MAX_KEYS} tag keys asked of one exa"));
    }
    let kept: &'static str = Box::leak(key.to_owned().into_boxed_str());
    keys.push(kept);
    Ok(kept)
}

/// Tags as a record keeps them: canonical JSON (the map's sorted keys, string values), or None for no tags.
pub fn json(tags: &BTreeMap<String, String>) -> Option<super::Word> {
    if tags.is_empty() {
        return None;
    }
    Some(serde_json::to_string(tags).expect("a map of strings serialises").into())
}

/// The tags a record's JSON text holds: None for text that is not an object of strings (a store edited by hand).
pub fn parse(text: &str) -> Option<BTreeMap<String, String>> {
    serde_json::from_str(text).ok()
}

/// Text from outside, shown with no control characters and at most 80 characters.
pub(super) fn clean(s: &str) -> String {
    s.chars().take(80).map(|c| if c.is_control() { '?' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubernetes_keys_as_the_api_server_takes_them() {
        for good in ["team", "app.kubernetes.io/name", "cost-center", "a", "A_b.c-9", "example.com/x"] {
            assert!(kubernetes_key(good), "{good}");
        }
        let long = "x".repeat(64);
        for bad in ["", "-team", "team-", "a b", "a'b", "a\"b", "a\\b", "/name", "Example.com/x", "a..b/c", long.as_str(), "a/b/c"] {
            assert!(!kubernetes_key(bad), "{bad:?}");
        }
        assert_eq!(check("label:team"), Ok(()));
        assert!(check("team").unwrap_err().contains("label:KEY"));
        assert!(check("env:team").unwrap_err().contains("not a kind"));
        assert!(check("label:it's").unwrap_err().contains("Kubernetes label key"));
    }

    #[test]
    fn a_key_is_kept_once_and_tags_are_canonical() {
        let a = key("annotation:cost-center").unwrap();
        assert!(std::ptr::eq(a, key("annotation:cost-center").unwrap()));
        let tags = BTreeMap::from([("label:team".to_string(), "vision".to_string()), ("annotation:cc".to_string(), "cc-4\"2".to_string())]);
        let text = json(&tags).unwrap();
        assert_eq!(text, r#"{"annotation:cc":"cc-4\"2","label:team":"vision"}"#);
        assert_eq!(parse(&text), Some(tags));
        assert_eq!(json(&BTreeMap::new()), None);
        assert_eq!(parse("[1]"), None);
    }
}
