#!/usr/bin/env bash
# Installs what Iron3D-rs needs on a Debian machine, only when it is missing.
# Used by tools/play.sh and tools/test.sh (and so by CI); safe to run again.
set -euo pipefail

# System packages for the whole project (see ARCHITECTURE.md, "Platform"):
#   pkg-config, libasound2-dev  - kira audio through cpal/ALSA
#   libudev-dev                 - gilrs gamepads
#   libvulkan1, mesa-vulkan-drivers - Vulkan loader and llvmpipe (software Vulkan)
#   xvfb, xauth                 - windows in tests without a display
#   xdotool                     - synthetic X input (keys, clicks) for the window tests
#   python3                     - small helper scripts
PACKAGES=(pkg-config libasound2-dev libudev-dev libvulkan1 mesa-vulkan-drivers xvfb xauth xdotool python3)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing missing system packages: ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
      echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found. Install a Rust toolchain >= 1.85 (https://rustup.rs) and run again." >&2
  exit 1
fi
for component in rustfmt clippy; do
  if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
    if command -v rustup >/dev/null 2>&1; then
      rustup component add "$component"
    else
      echo "setup: cargo $component is missing and rustup is not available" >&2; exit 1
    fi
  fi
done
