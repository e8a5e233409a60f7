#!/usr/bin/env bash
# Plays the demo: installs what is missing, builds the release launcher, generates the
# embedded default game directory (cached; rebuilt when the generator changes) and runs
# its first mission headless with per-phase stats. Extra arguments go to `iron3d run`
# (e.g. --ticks 3000 --seed 7). With IRON3D_GAME_DIR set (an original game directory),
# it plays IRON3D_MISSION from there instead of the embedded default.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh
cargo build --release -p iron3d-launcher
ticks=(--ticks 900)
for a in "$@"; do
    case "$a" in --ticks | --ticks=*) ticks=() ;; esac
done
if [ -n "${IRON3D_GAME_DIR:-}" ]; then
    exec ./target/release/iron3d run --headless --game-dir "$IRON3D_GAME_DIR" \
        --mission "${IRON3D_MISSION:?set IRON3D_MISSION to a directory under MISSIONS/}" \
        "${ticks[@]}" "$@"
fi
exec ./target/release/iron3d run --headless --demo "${ticks[@]}" "$@"
