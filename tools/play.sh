#!/usr/bin/env bash
# Plays the demo: installs what is missing, builds the release launcher and the plugins of
# the shipped registries, generates the
# embedded default game directory (cached; rebuilt when the generator changes) and opens
# its first mission in a window (`iron3d play`: free camera on W/A/S/D/R/F + arrows or
# mouse drag, C centres, P pauses, F1/F2/F3 or Tab switch renderer, Esc quits). Without
# a display it says so, renders offscreen and writes iron3d-screenshot.png. Extra
# arguments go to `iron3d play` (e.g. --renderer soft --width 1280 --height 720; the
# default renderer is Vulkan, with the software renderer taking over when no device exists).
# With IRON3D_GAME_DIR set (an original game directory), it plays IRON3D_MISSION from
# there instead of the embedded default. `iron3d run --headless --demo` is the
# simulation-only run.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh
# The launcher and every plugin library the shipped registries name (config/plugins.ini,
# config/scenario.ini) or the player can switch to (the three renderers). The plugins are
# loaded at run time, so building the launcher alone would leave their slots on the null
# plugin: tests/tests/front_door.rs fails when a registry names a library this set does
# not produce.
PLAY_PACKAGES=(
    iron3d-launcher
    iron3d-null
    iron3d-terrain
    iron3d-ai
    iron3d-control
    iron3d-audio
    iron3d-player-input
    iron3d-render-vulkan
    iron3d-render-soft
    iron3d-render-capture
    iron3d-ai-wanderer
    iron3d-scenario
)
args=()
for p in "${PLAY_PACKAGES[@]}"; do args+=(-p "$p"); done
cargo build --release --locked "${args[@]}"
if [ -n "${IRON3D_GAME_DIR:-}" ]; then
    exec ./target/release/iron3d play --game-dir "$IRON3D_GAME_DIR" \
        --mission "${IRON3D_MISSION:?set IRON3D_MISSION to a directory under MISSIONS/}" "$@"
fi
exec ./target/release/iron3d play "$@"
