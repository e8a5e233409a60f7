//! Rendering end to end through `iron3d play --offscreen`: software-renderer goldens of
//! fixed demo scenes (exact pixels), a stable capture JSON, a renderer switched mid-mission
//! without touching the state hash, non-blank screenshots that follow the camera, and a
//! renderer that faults from its first frame replaced by the software renderer
//! (PD-PLAY-RENDER-FALLBACK).
//!
//! Regenerate the goldens after an intended change with `IRON3D_UPDATE_GOLDENS=1`.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::last_state_hash;
use iron3d_e2e::render::{
    OVERVIEW, TERRAIN_CAMERA, camera_near, capture, decode, play, shoot_golden,
};

/// Renders `camera` after `frames` frames with the software renderer and compares with
/// `goldens/<name>.png` pixel for pixel.
fn golden(name: &str, camera: &str, frames: u32) {
    let update = std::env::var_os("IRON3D_UPDATE_GOLDENS").is_some();
    let g = shoot_golden("soft", name, camera, frames, update);
    let differing = g
        .got
        .chunks(4)
        .zip(g.want.chunks(4))
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(
        differing,
        0,
        "{name}: {differing} pixels differ from {}",
        g.want_path.display()
    );
}

#[test]
fn terrain_with_lightmap_matches_its_golden() {
    golden("terrain", TERRAIN_CAMERA, 2);
}

#[test]
fn static_and_animated_models_match_their_goldens() {
    let cam = camera_near("opaque_models");
    golden("models_t0", &cam, 1);
    golden("models_t15", &cam, 16);
}

#[test]
fn alpha_tested_and_transparent_surfaces_match_their_goldens() {
    for phase in ["alpha_tested", "transparent"] {
        let cam = camera_near(phase);
        let json: serde_json::Value = serde_json::from_str(&capture(&cam, 2)).unwrap();
        assert!(
            json["phases"][phase].as_u64().unwrap() > 0,
            "{phase} drawn in its scene"
        );
        golden(phase, &cam, 2);
    }
}

#[test]
fn the_capture_json_is_stable_and_lists_every_phase_used() {
    let a = capture(OVERVIEW, 3);
    let b = capture(OVERVIEW, 3);
    assert_eq!(a, b, "same frame, same JSON");
    let json: serde_json::Value = serde_json::from_str(&a).unwrap();
    for phase in [
        "opaque_terrain",
        "opaque_models",
        "alpha_tested",
        "transparent",
    ] {
        assert!(
            json["phases"][phase].as_u64().unwrap() > 0,
            "{phase}: {}",
            json["phases"]
        );
    }
    assert!(!json["visible"].as_array().unwrap().is_empty());
    assert!(
        json["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["reason"].is_string())
    );
}

#[test]
fn a_starting_renderer_that_faults_falls_back_to_the_software_renderer() {
    let dir = tempfile::tempdir().unwrap();
    let shot = |name: &str| dir.path().join(name);
    let (faulty_png, soft_png) = (shot("faulty.png"), shot("soft.png"));
    let args = |renderer: &'static str, png: &std::path::Path| -> Vec<String> {
        [
            "--renderer",
            renderer,
            "--frames",
            "8",
            "--width",
            "96",
            "--height",
            "72",
            "--camera",
            OVERVIEW,
            "--screenshot",
            png.to_str().unwrap(),
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let run = |a: Vec<String>| play(&a.iter().map(String::as_str).collect::<Vec<_>>());
    // Every draw of this test renderer fails: the slot rolls back to the null renderer,
    // which draws nothing, so play switches to the software renderer.
    let faulty = run(args("iron3d_test_counter:render-faulty", &faulty_png));
    assert!(
        faulty.contains("host: fault in render")
            && faulty.contains("render-faulty fails every frame"),
        "{faulty}"
    );
    assert!(
        faulty.contains(
            "renderer iron3d_test_counter: failed; falling back to the software renderer"
        ),
        "{faulty}"
    );
    // The summary names the renderer actually drawing, and the screenshot is its frame.
    assert!(faulty.contains("renderer=soft "), "{faulty}");
    let soft = run(args("soft", &soft_png));
    assert_eq!(last_state_hash(&faulty), last_state_hash(&soft));
    let (w, h, pixels) = decode(&faulty_png);
    assert_eq!((w, h), (96, 72));
    assert_eq!(
        pixels,
        decode(&soft_png).2,
        "the last frame is the software renderer's"
    );
}

#[test]
fn switching_renderers_mid_mission_keeps_the_state_hash() {
    let size = ["--width", "96", "--height", "72"];
    let run = |extra: &[&str]| play(&[extra, &size[..]].concat());
    let plain = last_state_hash(&run(&["--renderer", "soft", "--frames", "40"]));
    let switched = run(&[
        "--renderer",
        "soft",
        "--frames",
        "40",
        "--switch-renderer",
        "12:capture",
        "--switch-renderer",
        "25:soft",
    ]);
    assert!(switched.contains("renderer=soft "), "{switched}");
    assert_eq!(last_state_hash(&switched), plain);
    let capture_only = run(&["--renderer", "capture", "--frames", "40"]);
    assert_eq!(
        last_state_hash(&capture_only),
        plain,
        "the renderer never changes the simulation"
    );
}

#[test]
fn screenshots_are_not_blank_and_follow_the_camera() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a.png");
    let b = tmp.path().join("b.png");
    play(&["--frames", "120", "--screenshot", a.to_str().unwrap()]);
    play(&[
        "--frames",
        "120",
        "--camera",
        OVERVIEW,
        "--screenshot",
        b.to_str().unwrap(),
    ]);
    let (wa, ha, pa) = decode(&a);
    let (_, _, pb) = decode(&b);
    assert_eq!((wa, ha), (640, 480));
    let colours: std::collections::BTreeSet<&[u8]> = pa.chunks(4).collect();
    assert!(colours.len() > 50, "{} distinct colours", colours.len());
    let differing = pa
        .chunks(4)
        .zip(pb.chunks(4))
        .filter(|(x, y)| x != y)
        .count();
    assert!(
        differing > pa.len() / 4 / 10,
        "{differing} pixels differ between two cameras"
    );
}
