//! Rendering end to end through `iron3d play --offscreen`: software-renderer goldens of
//! fixed demo scenes (exact pixels), a stable capture JSON, a renderer switched mid-mission
//! without touching the state hash, and non-blank screenshots that follow the camera.
//!
//! Regenerate the goldens after an intended change with `IRON3D_UPDATE_GOLDENS=1`.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::{iron3d, last_state_hash};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

/// Golden size (small, so committed PNGs stay a few KB).
const W: u32 = 160;
const H: u32 = 120;

/// The demo directory (seed 1), built once per test binary.
fn demo() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        iron3d_demo::build(dir.path(), 1, iron3d_demo::Profile::Demo).unwrap();
        dir
    })
    .path()
}

fn play(extra: &[&str]) -> String {
    let game = demo().to_str().unwrap().to_owned();
    let mut args = vec![
        "play",
        "--game-dir",
        &game,
        "--mission",
        "DEMO1",
        "--offscreen",
    ];
    args.extend_from_slice(extra);
    let (code, out) = iron3d(&args);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    out
}

fn decode(path: &Path) -> (u32, u32, Vec<u8>) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

fn goldens() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("goldens")
}

/// Renders `camera` after `frames` frames with the software renderer and compares with
/// `goldens/<name>.png` pixel for pixel.
fn golden(name: &str, camera: &str, frames: u32) {
    let tmp = tempfile::tempdir().unwrap();
    let shot = tmp.path().join("shot.png");
    let (w, h, f) = (W.to_string(), H.to_string(), frames.to_string());
    play(&[
        "--renderer",
        "soft",
        "--frames",
        &f,
        "--width",
        &w,
        "--height",
        &h,
        "--camera",
        camera,
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    let want_path = goldens().join(format!("{name}.png"));
    if std::env::var_os("IRON3D_UPDATE_GOLDENS").is_some() {
        std::fs::copy(&shot, &want_path).unwrap();
    }
    let got = decode(&shot);
    let want = decode(&want_path);
    assert_eq!((got.0, got.1), (want.0, want.1), "{name}: size");
    let differing = got
        .2
        .chunks(4)
        .zip(want.2.chunks(4))
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(
        differing,
        0,
        "{name}: {differing} pixels differ from {}",
        want_path.display()
    );
}

/// The capture JSON of one frame seen through `camera`.
fn capture(camera: &str, frames: u32) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let shot = tmp.path().join("frame.json");
    let (w, h, f) = (W.to_string(), H.to_string(), frames.to_string());
    play(&[
        "--renderer",
        "capture",
        "--frames",
        &f,
        "--width",
        &w,
        "--height",
        &h,
        "--camera",
        camera,
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    std::fs::read_to_string(shot).unwrap()
}

/// A camera 18 units south-west of and 9 above the first item of `phase` in the overview
/// frame, looking at it (`X,Y,Z,YAW,PITCH`).
fn camera_near(phase: &str) -> String {
    let json: serde_json::Value = serde_json::from_str(&capture_overview()).unwrap();
    let item = json["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["phase"] == phase && i["object"] != 0)
        .unwrap_or_else(|| panic!("no {phase} item in the overview frame"));
    let w: Vec<f32> = item["world"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    let target = glam::Vec3::new(w[12], w[13], w[14]);
    let eye = target + glam::Vec3::new(-14.0, -14.0, 9.0);
    let d = target - eye;
    let yaw = d.y.atan2(d.x);
    let pitch = d.z.atan2(d.truncate().length());
    format!("{},{},{},{yaw},{pitch}", eye.x, eye.y, eye.z)
}

/// The overview frame, far enough out to hold every phase the demo uses.
const OVERVIEW: &str = "180,150,60,0.6,-0.35";

fn capture_overview() -> String {
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| capture(OVERVIEW, 2)).clone()
}

#[test]
fn terrain_with_lightmap_matches_its_golden() {
    golden("terrain", "120,60,90,1.2,-0.7", 2);
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
fn switching_renderers_mid_mission_keeps_the_state_hash() {
    let plain = last_state_hash(&play(&[
        "--renderer",
        "soft",
        "--frames",
        "40",
        "--width",
        "96",
        "--height",
        "72",
    ]));
    let switched = play(&[
        "--renderer",
        "soft",
        "--frames",
        "40",
        "--width",
        "96",
        "--height",
        "72",
        "--switch-renderer",
        "12:capture",
        "--switch-renderer",
        "25:soft",
    ]);
    assert!(switched.contains("renderer=soft "), "{switched}");
    assert_eq!(last_state_hash(&switched), plain);
    let capture_only = play(&["--renderer", "capture", "--frames", "40"]);
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
