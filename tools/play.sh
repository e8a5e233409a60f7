#!/usr/bin/env bash
# Plays the demo: installs what is missing, builds the release launcher, generates the
# embedded default game directory (cached; rebuilt when the generator changes) and runs
# its first mission headless with per-phase stats. Extra arguments go to `iron3d run`
# (e.g. --ticks 3000 --seed 7).
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh
cargo build --release -p iron3d-launcher
exec ./target/release/iron3d run --headless --demo --ticks 900 "$@"
