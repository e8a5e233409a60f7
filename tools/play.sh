#!/usr/bin/env bash
# Plays the demo: installs what is missing, builds the release launcher with every plugin
# of the shipped registries, generates the embedded default game directory (cached;
# rebuilt when the generator changes) and opens its main menu in a window
# (`iron3d play`: the player's seat — left click selects, right click orders, C changes
# the camera mode, Enter possesses, Pause/F3/Esc pause, F1/F2/F4 or Tab switch renderer,
# F10 quits; README lists every key). Without a display it says so, renders offscreen and
# writes iron3d-screenshot.png. Extra arguments go to `iron3d play` (e.g. --renderer soft
# --width 1280 --height 720, --strict-plugins; the default renderer is Vulkan, with the
# software renderer taking over when no device exists). With IRON3D_GAME_DIR set (an
# original game directory), it plays IRON3D_MISSION from there instead of the embedded
# default. `iron3d run --headless --demo` is the simulation-only run.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh
# The launcher depends on every plugin library the shipped registries name
# (config/plugins.ini, config/scenario.ini) and on the renderers the player can switch
# to, so this one build makes their .so files too (target/release/deps/). They are loaded
# at run time: tests/tests/front_door.rs fails when a registry names a library that this
# build does not produce.
cargo build --release -p iron3d-launcher
if [ -n "${IRON3D_GAME_DIR:-}" ]; then
    exec ./target/release/iron3d play --game-dir "$IRON3D_GAME_DIR" \
        --mission "${IRON3D_MISSION:?set IRON3D_MISSION to a directory under MISSIONS/}" "$@"
fi
exec ./target/release/iron3d play "$@"
