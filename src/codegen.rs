//! Generated files: shell completions and man pages, from the one clap definition.
//!
//! `cargo xtask codegen` writes them under `completions/` and `man/`; a test
//! fails when the committed copies are stale.

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Cli;

pub const SHELLS: &[Shell] = &[Shell::Bash, Shell::Zsh, Shell::Fish, Shell::PowerShell, Shell::Elvish];

pub fn completion(shell: Shell) -> Vec<u8> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "exa", &mut out);
    out
}

fn completion_file(shell: Shell) -> String {
    match shell {
        Shell::Bash => "exa.bash".into(),
        Shell::Zsh => "_exa".into(),
        Shell::Fish => "exa.fish".into(),
        Shell::PowerShell => "_exa.ps1".into(),
        Shell::Elvish => "exa.elv".into(),
        other => format!("exa.{other}"),
    }
}

/// The built command tree, each subcommand named `exa-a-b` as its man page is.
fn built() -> clap::Command {
    let mut cmd = Cli::command();
    cmd.build();
    cmd
}

fn render(cmd: &clap::Command) -> Vec<u8> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut out).expect("rendering to memory cannot fail");
    out
}

fn pages(cmd: &clap::Command, name: String, out: &mut Vec<(String, Vec<u8>)>) {
    let named = cmd.clone().name(name.clone()).bin_name(name.replace('-', " "));
    out.push((format!("{name}.1"), render(&named)));
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        pages(sub, format!("{name}-{}", sub.get_name()), out);
    }
}

/// Every man page: `exa.1` and one per subcommand.
pub fn man_pages() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    pages(&built(), "exa".into(), &mut out);
    out
}

/// The man page of the subcommand at `path` (empty for exa itself).
pub fn man_page(path: &[String]) -> Option<Vec<u8>> {
    let name = std::iter::once("exa").chain(path.iter().map(String::as_str)).collect::<Vec<_>>().join("-");
    man_pages().into_iter().find(|(f, _)| *f == format!("{name}.1")).map(|(_, b)| b)
}

/// Every generated file, as (path relative to the repository root, contents).
pub fn files() -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<(PathBuf, Vec<u8>)> =
        SHELLS.iter().map(|s| (Path::new("completions").join(completion_file(*s)), completion(*s))).collect();
    out.extend(man_pages().into_iter().map(|(f, b)| (Path::new("man").join(f), b)));
    out
}

/// The generated files under `root` that are missing, differ, or should no longer be there.
pub fn stale(root: &Path) -> Vec<PathBuf> {
    let files = files();
    let mut out: Vec<PathBuf> =
        files.iter().filter(|(p, b)| std::fs::read(root.join(p)).ok().as_deref() != Some(b.as_slice())).map(|(p, _)| p.clone()).collect();
    for dir in ["completions", "man"] {
        for entry in std::fs::read_dir(root.join(dir)).into_iter().flatten().flatten() {
            let rel = Path::new(dir).join(entry.file_name());
            if !files.iter().any(|(f, _)| *f == rel) {
                out.push(rel);
            }
        }
    }
    out
}

/// Writes every generated file under `root`, removing stale man pages.
pub fn write(root: &Path) -> std::io::Result<()> {
    let files = files();
    for dir in ["completions", "man"] {
        std::fs::create_dir_all(root.join(dir))?;
        for entry in std::fs::read_dir(root.join(dir))? {
            let p = entry?.path();
            if !files.iter().any(|(f, _)| root.join(f) == p) {
                std::fs::remove_file(p)?;
            }
        }
    }
    for (p, b) in files {
        std::fs::write(root.join(p), b)?;
    }
    Ok(())
}
