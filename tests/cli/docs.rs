//! Every `console` example in README.md and docs/ runs here against the real
//! binary and must print what the page shows (trycmd), so the documentation
//! cannot drift. Each page runs in a private home, with no GPU tool on PATH.

#[test]
fn every_console_example_in_the_docs_runs_as_shown() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("exa", std::path::PathBuf::from(env!("CARGO_BIN_EXE_exa")))
        .env("HOME", h.to_str().unwrap())
        .env("XDG_CONFIG_HOME", h.join(".config").to_str().unwrap())
        .env("XDG_DATA_HOME", h.join(".local/share").to_str().unwrap())
        .env("XDG_CACHE_HOME", h.join(".cache").to_str().unwrap())
        .env("PATH", "/usr/bin:/bin")
        .env("NO_COLOR", "1")
        .case(root.join("README.md"))
        .case(root.join("docs/*.md"));
    cases.run();
}
