//! `cargo xtask codegen [--check]`: writes (or checks) completions/ and man/.
//! `cargo xtask layers`: fails when a module imports from a layer above it.
//! `cargo xtask test`: installs what the tests need (or says what is missing), then runs them all.

mod circles;
mod deps;
mod layers;

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace");
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["codegen"] => match exa::codegen::write(root) {
            Ok(()) => {
                println!("wrote completions/ and man/");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        ["codegen", "--check"] => {
            let stale = exa::codegen::stale(root);
            if stale.is_empty() {
                println!("completions/ and man/ are up to date");
                ExitCode::SUCCESS
            } else {
                for p in stale {
                    eprintln!("stale: {}", p.display());
                }
                eprintln!("run `cargo xtask codegen` and commit the result");
                ExitCode::FAILURE
            }
        }
        ["layers"] => {
            let src = root.join("src");
            let (up, circles) = match (layers::check(&src), circles::check(&src)) {
                (Ok(u), Ok(c)) => (u, c),
                (Err(e), _) | (_, Err(e)) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            for x in &up {
                eprintln!("{x}");
            }
            for c in &circles {
                eprintln!("{c}");
            }
            if up.is_empty() && circles.is_empty() {
                println!("layers: no module imports from a layer above it, no command calls a sibling command, and no two modules import each other at any depth");
                ExitCode::SUCCESS
            } else {
                eprintln!(
                    "{} upward or sibling import(s), {} circle(s); the layers, top to bottom: xtask/src/layers.rs; circles: xtask/src/circles.rs",
                    up.len(),
                    circles.len()
                );
                ExitCode::FAILURE
            }
        }
        ["test", rest @ ..] => {
            if let Err(e) = deps::ensure() {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
            let python = match deps::python_env(root) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let focus = match deps::focus_env(root) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let node = match deps::node_env(root) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let ok = std::process::Command::new(cargo)
                .current_dir(root)
                .env("EXA_TEST_PYTHON", python)
                .env("EXA_TEST_FOCUS_VALIDATOR", focus)
                .env("EXA_TEST_NODE_MODULES", node)
                .args(["test", "--workspace"])
                .args(rest)
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        _ => {
            eprintln!("usage: cargo xtask codegen [--check] | cargo xtask layers | cargo xtask test [cargo test args]");
            ExitCode::from(2)
        }
    }
}
