#!/usr/bin/env bash
# The formula fuzz target for longer than the test run's 3 s: the stable
# generator for FUZZ_SECONDS (default 120), then libFuzzer for as long again
# where a nightly toolchain and cargo-fuzz are installed.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${FUZZ_SECONDS:-120}"
EXA_FUZZ_SECONDS="$secs" cargo test --release --test cli fuzz:: -- --nocapture
if cargo +nightly fuzz --version >/dev/null 2>&1; then
  (cd fuzz && cargo +nightly fuzz run formula -- -max_total_time="$secs")
else
  echo "libFuzzer skipped: needs a nightly toolchain and cargo-fuzz (cargo install cargo-fuzz)" >&2
fi
