//! Generated files, help, and pipes.

use std::process::Stdio;

use crate::common::{stdout, Env};

#[test]
fn completions_and_man_pages_are_fresh() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let stale = exa::codegen::stale(root);
    assert!(stale.is_empty(), "stale generated files {stale:?}: run `cargo xtask codegen`");
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = Env::new().run(&["completions", shell]);
        assert!(out.status.success());
        assert!(stdout(&out).contains("estimate"), "{shell}");
    }
}

#[test]
fn help_answers_the_question() {
    let out = Env::new().run(&["finops", "carbon", "estimate", "--help"]);
    assert!(out.status.success());
    let s = stdout(&out);
    for needle in ["--gpu-hours", "--cpu-hours", "--provider", "--set", "EXAMLOPS_CARBON_PROVIDER", "Examples:"] {
        assert!(s.contains(needle), "help mentions {needle}");
    }
    let out = Env::new().run(&["--help"]);
    assert!(stdout(&out).contains("Exit status"));
}

#[test]
fn malformed_command_line_exits_2() {
    let out = Env::new().run(&["finops", "carbon", "estimat"]);
    assert_eq!(out.status.code(), Some(2));
    let out = Env::new().run(&["-o", "yaml", "finops", "carbon", "providers"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn closed_stdout_is_not_an_error() {
    let mut child = Env::new().cmd().args(["man"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn man_page_of_a_subcommand() {
    let out = Env::new().run(&["man", "finops", "carbon", "estimate"]);
    assert!(stdout(&out).contains(".TH exa-finops-carbon-estimate"));
    assert_eq!(Env::new().run(&["man", "nope"]).status.code(), Some(2));
}

#[test]
fn estimate_help_text() {
    let out = Env::new().run(&["finops", "carbon", "estimate", "--help"]);
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn refusal_message() {
    let out = Env::new().run(&["finops", "carbon", "estimate", "--cpu-hours", "32", "--provider", "ccf-like"]);
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stderr));
}
