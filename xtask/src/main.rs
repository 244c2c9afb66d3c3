//! `cargo xtask codegen [--check]`: writes (or checks) completions/ and man/.

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
        _ => {
            eprintln!("usage: cargo xtask codegen [--check]");
            ExitCode::from(2)
        }
    }
}
