//! The circle check: no two modules import each other, at any depth.
//!
//! Every file under `src/` is a module (`store/cells.rs` is `store::cells`,
//! `store/mod.rs` is `store`). Its imports are read as whole paths —
//! `crate::store::cells::Cell`, `super::report::Filter`, `self::x`, one level
//! of braces — and each resolves to the deepest module it names. An import
//! between two modules counts between the two children of their nearest
//! common parent (`store::cells` → `store::report::x` is `cells` → `report`
//! inside `store`); a module naming its own parent or child is the normal
//! shape of a folder (`mod.rs` declares its files, a file uses its
//! `mod.rs`) and is no edge. Within each parent, modules that reach each
//! other are a circle. A file's `#[cfg(test)] mod` at its end is not read:
//! tests may reach anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One circle: the parent module, its members, and one import per edge that makes it.
#[derive(Debug, PartialEq, Eq)]
pub struct Circle {
    pub parent: String,
    pub members: Vec<String>,
    pub imports: Vec<String>,
}

impl std::fmt::Display for Circle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parent = if self.parent.is_empty() { "the crate".to_string() } else { self.parent.clone() };
        write!(f, "a circle in {parent}: {} import each other", self.members.join(", "))?;
        for i in &self.imports {
            write!(f, "\n  {i}")?;
        }
        Ok(())
    }
}

type Module = Vec<String>;

/// The module a file is, from its path under `src`.
fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Module = rel.components().map(|c| c.as_os_str().to_string_lossy().trim_end_matches(".rs").to_string()).collect();
    if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
        parts.pop();
    }
    parts
}

fn ident(s: &str) -> String {
    s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// The path segments after a prefix: `a::b::{c, d::e}` gives [a, b, c] and [a, b, d, e].
fn segments(rest: &str) -> Vec<Vec<String>> {
    let mut base = Vec::new();
    let mut r = rest;
    loop {
        if let Some(group) = r.strip_prefix('{') {
            let group = group.split('}').next().unwrap_or("");
            return group
                .split(',')
                .map(|part| {
                    let mut p = base.clone();
                    p.extend(part.trim().split("::").map(ident).take_while(|s| !s.is_empty()));
                    p
                })
                .collect();
        }
        let name = ident(r);
        if name.is_empty() {
            return vec![base];
        }
        r = &r[name.len()..];
        base.push(name);
        match r.strip_prefix("::") {
            Some(next) => r = next,
            None => return vec![base],
        }
    }
}

/// Every path a file's code names from the crate, its parent or itself, as absolute segments, with its line.
fn imports(me: &Module, text: &str) -> Vec<(usize, Module)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("#[cfg(test)]") && lines.get(i + 1).is_some_and(|l| l.starts_with("mod ")) {
            break;
        }
        let code = line.split("//").next().unwrap_or("");
        for (prefix, base) in [("crate::", Vec::new()), ("super::", parent_of(me)), ("self::", me.clone())] {
            let mut rest = code;
            while let Some(at) = rest.find(prefix) {
                let before = rest[..at].chars().last();
                rest = &rest[at + prefix.len()..];
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == ':') {
                    continue;
                }
                for seg in segments(rest) {
                    let mut p = base.clone();
                    p.extend(seg);
                    out.push((i + 1, p));
                }
            }
        }
    }
    out
}

/// `super` of a module: a file's folder; for a folder's `mod.rs`, the folder's parent.
fn parent_of(me: &Module) -> Module {
    me[..me.len().saturating_sub(1)].to_vec()
}

/// The deepest known module a path names.
fn resolve(path: &Module, known: &BTreeSet<Module>) -> Module {
    (0..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| known.contains(p)).unwrap_or_default()
}

/// Checks the files given as (module, is a folder's mod.rs, display path, text).
pub fn check_modules(files: &[(Module, bool, String, String)]) -> Vec<Circle> {
    let known: BTreeSet<Module> = files.iter().map(|f| f.0.clone()).collect();
    // parent -> (child -> child -> first import that makes the edge)
    let mut edges: BTreeMap<Module, BTreeMap<String, BTreeMap<String, String>>> = BTreeMap::new();
    for (me, _, shown, text) in files {
        for (line, path) in imports(me, text) {
            let to = resolve(&path, &known);
            let common = me.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common == me.len() || common == to.len() {
                continue; // itself, its parent or its child
            }
            let (a, b) = (me[common].clone(), to[common].clone());
            edges
                .entry(me[..common].to_vec())
                .or_default()
                .entry(a)
                .or_default()
                .entry(b)
                .or_insert_with(|| format!("{shown}:{line} uses {}", path.join("::")));
        }
    }
    let mut circles = Vec::new();
    for (parent, graph) in &edges {
        for scc in components(graph) {
            if scc.len() < 2 {
                continue;
            }
            let imports = scc
                .iter()
                .flat_map(|a| graph.get(a).into_iter().flatten().filter(|(b, _)| scc.contains(*b)).map(|(_, why)| why.clone()))
                .collect();
            circles.push(Circle { parent: parent.join("::"), members: scc.into_iter().collect(), imports });
        }
    }
    circles
}

/// Strongly connected components (each a set of nodes that reach each other), by repeated reachability:
/// the graphs are a folder's files, a handful of nodes.
fn components(graph: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<BTreeSet<String>> {
    let reach = |from: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(n) = todo.pop() {
            for next in graph.get(&n).into_iter().flat_map(BTreeMap::keys) {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let nodes: BTreeSet<String> = graph.iter().flat_map(|(a, bs)| std::iter::once(a.clone()).chain(bs.keys().cloned())).collect();
    let reached: BTreeMap<String, BTreeSet<String>> = nodes.iter().map(|n| (n.clone(), reach(n))).collect();
    let mut out: Vec<BTreeSet<String>> = Vec::new();
    for n in &nodes {
        if out.iter().any(|c| c.contains(n)) {
            continue;
        }
        let scc: BTreeSet<String> =
            nodes.iter().filter(|m| *m == n || (reached[n].contains(*m) && reached[*m].contains(n))).cloned().collect();
        out.push(scc);
    }
    out
}

/// Checks every file under `src`.
pub fn check(src: &Path) -> std::io::Result<Vec<Circle>> {
    let mut paths = Vec::new();
    crate::layers::rust_files(src, &mut paths)?;
    paths.sort();
    let mut files = Vec::new();
    for p in paths {
        let folder = p.file_name().is_some_and(|n| n == "mod.rs" || n == "lib.rs");
        let shown = p.strip_prefix(src.parent().unwrap_or(src)).unwrap_or(&p).display().to_string();
        files.push((module_of(src, &p), folder, shown, std::fs::read_to_string(&p)?));
    }
    Ok(check_modules(&files))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Module {
        s.split("::").filter(|x| !x.is_empty()).map(str::to_string).collect()
    }

    fn file(module: &str, folder: bool, text: &str) -> (Module, bool, String, String) {
        (m(module), folder, format!("{module}.rs"), text.to_string())
    }

    #[test]
    fn the_tree_has_no_circle() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("src");
        let c = check(&src).unwrap();
        let shown: Vec<String> = c.iter().map(ToString::to_string).collect();
        assert!(shown.is_empty(), "{}", shown.join("\n"));
    }

    #[test]
    fn a_circle_through_super_is_found_at_depth() {
        let files = [
            file("store", true, "mod cells; mod report; pub use cells::Cell;\n"),
            file("store::cells", false, "use super::report::Filter;\n"),
            file("store::report", false, "fn f() { crate::store::cells::write(); }\n"),
            file("store::sqlite", false, "use super::{cells, report::By};\n"),
        ];
        let c = check_modules(&files);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!((c[0].parent.as_str(), c[0].members.clone()), ("store", vec!["cells".to_string(), "report".to_string()]));
        assert_eq!(c[0].imports.len(), 2);
    }

    #[test]
    fn parents_children_and_tests_make_no_circle() {
        let files = [
            file("formula", true, "mod lex; mod compile; use self::compile::Program;\n"),
            file("formula::lex", false, "use super::Token;\n"),
            file(
                "formula::compile",
                false,
                "use super::lex::lex;\n#[cfg(test)]\nmod tests { use crate::formula::compile::x; use super::super::compile; }\n",
            ),
        ];
        assert!(check_modules(&files).is_empty());
        let circle = [file("a", false, "use crate::b::x;\n"), file("b", false, "use crate::a::y;\n")];
        assert_eq!(check_modules(&circle)[0].parent, "");
    }
}
