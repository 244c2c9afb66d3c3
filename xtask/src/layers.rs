//! The layer check: no module of `src/` imports from a layer above its own,
//! and no command calls a sibling command.
//!
//! Data flows argv → cli → settings → command → report → renderer. Each
//! top-level module has a rank; a `crate::X` path in a file may name only a
//! module of the same or a lower layer, and `model` names nothing at all.
//!
//! `cli` is the parsed argv, data that settings resolve from, so it sits
//! low, beside the vocabulary; `pricing` consumes resolved settings, so it
//! sits above them.

use std::path::{Path, PathBuf};

/// From the top of the crate to the bottom. A module may use its own layer and those below.
pub const LAYERS: &[&[&str]] = &[
    &["lib", "main", "codegen", "dispatch", "mcp"],
    &["output"],
    &["commands"],
    &["sinks"],
    &["pricing"],
    &["settings"],
    &["provider", "store"],
    &["sources"],
    &["formula"],
    &["cli"],
    &["error", "files", "num", "suggest", "text", "time"],
    &["model"],
];

/// One import that points up, or out of `model`.
#[derive(Debug, PartialEq, Eq)]
pub struct Violation {
    pub file: PathBuf,
    pub line: usize,
    pub from: String,
    pub to: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.from.starts_with("commands::") {
            return write!(
                f,
                "{}:{}: {} calls its sibling {}: what two commands share goes in commands/mod.rs or a room below",
                self.file.display(),
                self.line,
                self.from,
                self.to
            );
        }
        write!(f, "{}:{}: {} imports crate::{}, a layer above it", self.file.display(), self.line, self.from, self.to)
    }
}

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The top-level module a file under `src/` belongs to.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let first = rel.components().next().map(|c| c.as_os_str().to_string_lossy().into_owned()).unwrap_or_default();
    first.trim_end_matches(".rs").to_string()
}

/// Every `crate::name` in `text`, with its line, outside comments.
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().last();
            rest = &rest[at + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if name.is_empty() {
                // `use crate::{a, b}`: every name in the braces.
                if let Some(group) = rest.strip_prefix('{') {
                    let group = group.split('}').next().unwrap_or("");
                    for part in group.split(',') {
                        let n: String = part.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                        if !n.is_empty() {
                            out.push((i + 1, n));
                        }
                    }
                }
                continue;
            }
            out.push((i + 1, name));
        }
    }
    out
}

/// Checks one file's text as if it lived at `file` under `src`.
pub fn check_text(src: &Path, file: &Path, text: &str) -> Vec<Violation> {
    let from = module_of(src, file);
    let Some(from_rank) = rank(&from) else {
        return vec![Violation { file: file.to_path_buf(), line: 0, from: from.clone(), to: format!("({from} has no layer)") }];
    };
    crate_paths(text)
        .into_iter()
        .filter(|(_, to)| to != &from)
        .filter(|(_, to)| from == "model" || rank(to).is_some_and(|r| r < from_rank))
        .map(|(line, to)| Violation { file: file.to_path_buf(), line, from: from.clone(), to })
        .collect()
}

/// The modules `commands/mod.rs` declares: one per verb (`pub mod x;`, `pub(crate) mod x;`, after any
/// attribute on the line), its tests aside.
fn commands_of(mod_rs: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in mod_rs.lines() {
        let mut l = line.trim();
        while l.starts_with("#[") {
            l = l.find(']').map_or("", |e| l[e + 1..].trim_start());
        }
        if let Some(rest) = l.strip_prefix("pub") {
            l = rest.trim_start();
            if l.starts_with('(') {
                l = l.find(')').map_or("", |e| l[e + 1..].trim_start());
            }
        }
        if let Some(name) = l.strip_prefix("mod ").and_then(|r| r.trim().strip_suffix(';')) {
            let name = name.trim();
            if name != "tests" {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// A line's code: what is before a `//` comment, with string literals emptied (a URL's `//`, a path in a
/// message, is not code).
fn code_of(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        match (in_str, c) {
            (true, '\\') => {
                chars.next();
            }
            (true, '"') => {
                in_str = false;
                out.push('"');
            }
            (true, _) => {}
            (false, '"') => {
                in_str = true;
                out.push('"');
            }
            (false, '/') if chars.peek() == Some(&'/') => break,
            (false, _) => out.push(c),
        }
    }
    out
}

/// The module names a path starting at `rest` names first: `x::…`, `x;`, or each of `{x, y::z}`.
fn first_names(rest: &str) -> Vec<String> {
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    match rest.strip_prefix('{') {
        Some(group) => group.split('}').next().unwrap_or("").split(',').map(|p| ident(p.trim())).filter(|n| !n.is_empty()).collect(),
        None => {
            let name = ident(rest);
            // A name followed by `(` is a function of the module itself (`super::cpu_source(…)`), not a module.
            let after = rest[name.len()..].trim_start();
            if name.is_empty() || after.starts_with('(') || after.starts_with('!') {
                Vec::new()
            } else {
                vec![name]
            }
        }
    }
}

/// Commands call no sibling command: what two verbs share lives in `commands/mod.rs` or in a room below
/// them (a sink, a source, the store). A file of one verb naming another's module (`super::other`,
/// `crate::commands::other`, in a path or a `use` group) is a violation.
pub fn check_siblings(src: &Path, file: &Path, text: &str, commands: &[String]) -> Vec<Violation> {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    // Only a verb's own file, directly in commands/: below it, `super::` is that verb's folder.
    let [room, own] = &parts[..] else { return Vec::new() };
    let own = own.trim_end_matches(".rs");
    if room != "commands" || own == "mod" {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = code_of(line);
        for prefix in ["super::", "crate::commands::"] {
            let mut rest = code.as_str();
            while let Some(at) = rest.find(prefix) {
                let before = rest[..at].chars().last();
                rest = &rest[at + prefix.len()..];
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                for name in first_names(rest).into_iter().filter(|n| n != own && commands.contains(n)) {
                    out.push(Violation {
                        file: file.to_path_buf(),
                        line: i + 1,
                        from: format!("commands::{own}"),
                        to: format!("commands::{name}"),
                    });
                }
            }
        }
    }
    out
}

pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let p = entry?.path();
        if p.is_dir() {
            rust_files(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    Ok(())
}

/// Checks every file under `src`.
pub fn check(src: &Path) -> std::io::Result<Vec<Violation>> {
    let mut files = Vec::new();
    rust_files(src, &mut files)?;
    files.sort();
    let commands = commands_of(&std::fs::read_to_string(src.join("commands/mod.rs")).unwrap_or_default());
    let mut all = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f)?;
        all.extend(check_text(src, &f, &text));
        all.extend(check_siblings(src, &f, &text, &commands));
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_calling_a_sibling_command_is_found() {
        let src = Path::new("/r/src");
        let commands = vec!["report".to_string(), "focus".to_string(), "measure".to_string(), "gpu".to_string()];
        let text = "use super::cpu_source;\n\
                    let f = super::focus::rows(&runs);\n\
                    // super::measure::X in a comment\n\
                    use crate::commands::measure;\n\
                    use super::{focus, report};\n\
                    let s = crate::commands::gpu_source(s);\n\
                    let u = \"http://x/super::focus::\"; use super::gpu;\n\
                    use super::report::Thing;\n";
        let v = check_siblings(src, Path::new("/r/src/commands/report.rs"), text, &commands);
        let found: Vec<(usize, &str)> = v.iter().map(|v| (v.line, v.to.as_str())).collect();
        assert_eq!(found, vec![(2, "commands::focus"), (4, "commands::measure"), (5, "commands::focus"), (7, "commands::gpu")]);
        // The room's own helpers, nested files and files outside commands/ are not siblings.
        assert!(check_siblings(src, Path::new("/r/src/commands/mod.rs"), text, &commands).is_empty());
        assert!(check_siblings(src, Path::new("/r/src/commands/report/part.rs"), text, &commands).is_empty());
        assert!(check_siblings(src, Path::new("/r/src/lib.rs"), text, &commands).is_empty());
        assert_eq!(
            commands_of("pub mod a;\nmod b;\npub(crate) mod c;\n#[cfg(unix)] pub mod d;\n#[cfg(test)]\nmod tests;\nuse x;\n"),
            vec!["a".to_string(), "b".to_string(), "c".to_string(), "d".to_string()]
        );
    }

    #[test]
    fn the_tree_keeps_its_layers() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("src");
        let v = check(&src).unwrap();
        assert!(v.is_empty(), "{}", v.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"));
    }

    #[test]
    fn an_upward_import_fails() {
        let src = Path::new("src");
        let v = check_text(src, &src.join("sources/grid.rs"), "use crate::settings::Settings;\n");
        assert_eq!(v.len(), 1);
        assert_eq!((v[0].from.as_str(), v[0].to.as_str(), v[0].line), ("sources", "settings", 1));
        let v = check_text(src, &src.join("model/estimate.rs"), "// crate::cli in a comment\nfn f() { crate::error::x() }\n");
        assert_eq!(v.len(), 1, "model imports nothing from the crate, not even the bottom layer");
        let v = check_text(src, &src.join("store/mod.rs"), "use crate::{model::Estimate, commands::x};\n");
        assert_eq!(v.iter().map(|v| v.to.as_str()).collect::<Vec<_>>(), ["commands"]);
        assert!(check_text(src, &src.join("commands/gpu.rs"), "use crate::settings::Settings;\nuse crate::model::X;\n").is_empty());
        assert!(!check_text(src, &src.join("newthing.rs"), "").is_empty(), "a module with no layer is refused");
    }
}
