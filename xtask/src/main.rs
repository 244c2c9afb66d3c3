//! `cargo xtask codegen [--check]`: writes (or checks) completions/ and man/.
//! `cargo xtask layers`: fails when a module imports from a layer above it.

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
        ["layers"] => match layers::check(&root.join("src")) {
            Ok(v) if v.is_empty() => {
                println!("layers: no module imports from a layer above it");
                ExitCode::SUCCESS
            }
            Ok(v) => {
                for x in &v {
                    eprintln!("{x}");
                }
                eprintln!("{} upward import(s); the layers, top to bottom: see xtask/src/layers.rs", v.len());
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("usage: cargo xtask codegen [--check] | cargo xtask layers");
            ExitCode::from(2)
        }
    }
}
