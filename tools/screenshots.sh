#!/usr/bin/env bash
# Regenerates the README's screenshots from the embedded demo, deterministically: the
# demo (seed 1) and the 10,000-object stress mission written by our own writers, drawn
# offscreen by the software renderer (the pixel reference: same build, same bytes) at
# 1280 x 720 after a fixed number of frames of the simulated clock.
#
#   tools/screenshots.sh [OUT_DIR]        # default docs/screenshots
#
# Set IRON3D to use another binary (default: a release build, built here).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/screenshots}"
if [ -z "${IRON3D:-}" ]; then
    cargo build --release --locked -p iron3d-launcher
    IRON3D=target/release/iron3d
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
"$IRON3D" demo build --seed 1 --profile demo --out "$work/demo" > /dev/null
"$IRON3D" demo build --seed 1 --profile stress --out "$work/stress" > /dev/null
shot() {
    local name="$1" game="$2" mission="$3" frames="$4"
    shift 4
    "$IRON3D" play --offscreen --no-briefing --game-dir "$work/$game" --mission "$mission" \
        --renderer soft --width 1280 --height 720 --frames "$frames" --seed 7 \
        --screenshot "$out/$name.png" "$@" > "$work/$name.log"
    grep -h "state_hash=" "$work/$name.log" | tail -n 1 | sed "s/^/$name: /"
}
# The battle from above the middle of the map, when the tanks meet.
shot battle demo BATTLE 300 --camera "92,92,40,0.785,-0.55"
# A close-up of the player's base: storage, generator, plant, towers and the trucks.
shot base demo BATTLE 90 --camera "18,18,22,0.785,-0.35"
# The battle's storm at 5000 frames (about 167 s): rain, the dark sky and its light.
shot storm demo BATTLE 5000 --camera "92,92,40,0.785,-0.1"
# The 10,000-object stress mission, looking over a corner of its 1,024-unit map.
shot stress stress STRESS 30 --camera "100,100,60,0.785,-0.27"
echo "screenshots in $out"
