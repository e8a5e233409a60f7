#!/usr/bin/env bash
# Plays the demo: installs what is missing, builds the release launcher and runs the demo.
# For now the demo is the built-in scenario, headless, with per-phase stats; extra
# arguments go to `iron3d run` (e.g. --ticks 3000 --objects 2000 --seed 7).
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh
cargo build --release -p iron3d-launcher
exec ./target/release/iron3d run --headless --ticks 900 "$@"
