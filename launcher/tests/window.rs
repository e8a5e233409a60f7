//! `iron3d play` in a real window under Xvfb (as CI runs it): the run exits 0 with a
//! non-blank screenshot that changes with the camera; without a display the command says
//! so and falls back to an offscreen run that still writes a screenshot.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn iron3d() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_iron3d"));
    c.env_remove("WAYLAND_DISPLAY");
    c
}

/// The demo content, built once per test process by the real binary into
/// `iron3d-window-demo-<pid>` under the temporary folder (a static is never dropped, so
/// a `TempDir` would leak one folder per run); folders of processes that are gone are
/// removed first, as `iron3d_e2e::process_dir` does for the workspace's tests.
fn demo() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let tmp = std::env::temp_dir();
        let prefix = "iron3d-window-demo-";
        for e in std::fs::read_dir(&tmp).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(pid) = name.strip_prefix(prefix)
                && pid.parse::<u32>().is_ok()
                && !Path::new("/proc").join(pid).exists()
            {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
        let dir = tmp.join(format!("{prefix}{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = iron3d()
            .args(["demo", "build", "--out"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
}

fn pixels(path: &Path) -> Vec<u8> {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    buf
}

/// `xvfb-run -a iron3d play … --frames 120 --screenshot shot` with `camera` and `extra`.
fn play_in_xvfb(shot: &Path, camera: &str, extra: &[&str]) -> String {
    let exe = env!("CARGO_BIN_EXE_iron3d");
    let out = Command::new("xvfb-run")
        .args([
            "-a",
            "-s",
            "-screen 0 1024x768x24",
            exe,
            "play",
            "--game-dir",
        ])
        .arg(demo())
        .args(["--mission", "DEMO1", "--frames", "120", "--camera", camera])
        .args(extra)
        .arg("--screenshot")
        .arg(shot)
        .env_remove("WAYLAND_DISPLAY")
        // The defaults, not this machine's player settings.
        .env("XDG_CONFIG_HOME", shot.with_extension("config"))
        .output()
        .expect("xvfb-run (Debian package xvfb, installed by tools/setup.sh)");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !stdout.contains("no display"),
        "ran in the Xvfb window: {stdout}"
    );
    stdout
}

#[test]
fn play_in_a_window_under_xvfb_renders_and_follows_the_camera() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a.png");
    let b = tmp.path().join("b.png");
    let out = play_in_xvfb(&a, "200,160,30,2.4,-0.3", &[]);
    assert!(out.contains("frames=120 "), "{out}");
    play_in_xvfb(&b, "300,300,80,4.0,-0.6", &[]);
    let (pa, pb) = (pixels(&a), pixels(&b));
    // A window without --width/--height opens at the settings' default size.
    let v = iron3d_config::settings::Video::default();
    assert_eq!(pa.len(), (v.width * v.height * 4) as usize);
    let colours: std::collections::BTreeSet<&[u8]> = pa.chunks(4).collect();
    assert!(colours.len() > 50, "not blank: {} colours", colours.len());
    let differing = pa
        .chunks(4)
        .zip(pb.chunks(4))
        .filter(|(x, y)| x != y)
        .count();
    assert!(
        differing > 640 * 480 / 10,
        "{differing} pixels differ between cameras"
    );
}

#[test]
fn without_a_display_play_says_so_and_renders_offscreen() {
    let tmp = tempfile::tempdir().unwrap();
    let shot = tmp.path().join("shot.png");
    let out = iron3d()
        .env_remove("DISPLAY")
        .args(["play", "--game-dir"])
        .arg(demo())
        .args(["--mission", "DEMO1", "--frames", "5", "--screenshot"])
        .arg(&shot)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("play: no display"), "{stdout}");
    assert!(stdout.contains("frames=5 "), "{stdout}");
    assert!(shot.exists());
}

#[test]
fn without_a_vulkan_driver_play_falls_back_to_the_software_renderer() {
    let tmp = tempfile::tempdir().unwrap();
    let shot = tmp.path().join("shot.png");
    let out = iron3d()
        .env_remove("DISPLAY")
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .args(["play", "--offscreen", "--renderer", "vulkan", "--game-dir"])
        .arg(demo())
        .args(["--mission", "DEMO1", "--frames", "3", "--screenshot"])
        .arg(&shot)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("renderer vulkan: not available"),
        "{stdout}"
    );
    assert!(
        stdout.contains("falling back to the software renderer"),
        "{stdout}"
    );
    assert!(stdout.contains("renderer=soft frames=3 "), "{stdout}");
    assert!(shot.exists());
}

#[test]
fn vulkan_presents_in_the_window_and_renderers_switch_live() {
    let tmp = tempfile::tempdir().unwrap();
    // Vulkan through the swapchain of the Xvfb window (llvmpipe), no fallback.
    let shot = tmp.path().join("vulkan.png");
    let out = play_in_xvfb(&shot, "200,160,30,2.4,-0.3", &["--renderer", "vulkan"]);
    assert!(out.contains("renderer=vulkan frames=120 "), "{out}");
    let colours: std::collections::BTreeSet<Vec<u8>> =
        pixels(&shot).chunks(4).map(<[u8]>::to_vec).collect();
    assert!(colours.len() > 50, "not blank: {} colours", colours.len());
    // Switched live in the window: soft -> vulkan -> soft, ending on soft.
    let shot = tmp.path().join("switched.png");
    let out = play_in_xvfb(
        &shot,
        "200,160,30,2.4,-0.3",
        &[
            "--switch-renderer",
            "30:vulkan",
            "--switch-renderer",
            "80:soft",
        ],
    );
    assert!(out.contains("renderer=soft frames=120 "), "{out}");
    assert!(!out.contains("not available"), "{out}");
}
