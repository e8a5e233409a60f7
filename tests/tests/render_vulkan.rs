//! The Vulkan renderer end to end through `iron3d play --offscreen --renderer vulkan`:
//! the software goldens of `tests/goldens/` reproduced within the tolerance stated in the
//! `iron3d-render-vulkan` crate docs (per-channel difference ≤ 8 on ≥ 99 % of the pixels,
//! the rest only on edges), no fallback to the software renderer, and a renderer switched
//! soft → vulkan → soft mid-mission without touching the state hash.
//!
//! These tests need a Vulkan device (llvmpipe from `mesa-vulkan-drivers` is enough).

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::last_state_hash;
use iron3d_e2e::render::{TERRAIN_CAMERA, camera_near, play, shoot_golden};

/// Renders `camera` after `frames` frames with Vulkan and compares with
/// `goldens/<name>.png` (made by the software renderer) within the tolerance.
fn golden(name: &str, camera: &str, frames: u32) {
    let g = shoot_golden("vulkan", name, camera, frames, false);
    assert!(g.out.contains("renderer=vulkan "), "no fallback: {}", g.out);
    let d = iron3d_render_vulkan::compare_images(&g.got, &g.want, g.width, g.height);
    eprintln!("{name}: {d:?}");
    assert!(
        d.within_tolerance(),
        "{name}: {d:?} against {}",
        g.want_path.display()
    );
}

#[test]
fn vulkan_terrain_with_lightmap_matches_the_software_golden() {
    golden("terrain", TERRAIN_CAMERA, 2);
}

#[test]
fn vulkan_static_and_animated_models_match_the_software_goldens() {
    let cam = camera_near("opaque_models");
    golden("models_t0", &cam, 1);
    golden("models_t15", &cam, 16);
}

#[test]
fn vulkan_alpha_tested_and_transparent_surfaces_match_the_software_goldens() {
    for phase in ["alpha_tested", "transparent"] {
        golden(phase, &camera_near(phase), 2);
    }
}

#[test]
fn switching_to_vulkan_and_back_keeps_the_state_hash() {
    let size = ["--width", "96", "--height", "72"];
    let run = |extra: &[&str]| {
        let mut args = extra.to_vec();
        args.extend_from_slice(&size);
        play(&args)
    };
    let plain = last_state_hash(&run(&["--renderer", "soft", "--frames", "40"]));
    let switched = run(&[
        "--renderer",
        "soft",
        "--frames",
        "40",
        "--switch-renderer",
        "12:vulkan",
        "--switch-renderer",
        "25:soft",
    ]);
    assert!(switched.contains("renderer=soft "), "{switched}");
    assert_eq!(last_state_hash(&switched), plain);
    let vulkan = run(&["--renderer", "vulkan", "--frames", "40"]);
    assert!(vulkan.contains("renderer=vulkan "), "no fallback: {vulkan}");
    assert_eq!(
        last_state_hash(&vulkan),
        plain,
        "the renderer never changes the simulation"
    );
}
