#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing, then formatting, lints and every test.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh
echo "== cargo fmt --check" >&2
cargo fmt --all -- --check
echo "== cargo clippy" >&2
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test" >&2
cargo test --workspace --locked
