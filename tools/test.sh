#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing, then formatting, lints and every test.
# The last line is a plain total: "tests: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh
echo "== disk before the build: $(df -h --output=avail . | tail -1 | tr -d ' ') free" >&2
echo "== cargo fmt --check" >&2
cargo fmt --all -- --check
echo "== cargo clippy" >&2
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== fuzz targets build (corpora are replayed by the tests below)" >&2
RUSTC_BOOTSTRAP=1 cargo build --manifest-path fuzz/Cargo.toml --locked --quiet
echo "== cargo test" >&2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
cargo test --workspace --locked 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
echo "== disk after the build: $(du -sh target 2>/dev/null | cut -f1) in target/, $(df -h --output=avail . | tail -1 | tr -d ' ') free" >&2
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i; if ($(i+1) ~ /^ignored/) s += $i } }
     END { printf "tests: %d passed, %d failed, %d skipped\n", p, f, s }' "$log"
exit "$status"
