//! The embedded default end to end: `iron3d demo build` writes a game directory whose
//! missions inspect, graph with no failure and load into the kernel.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::{iron3d, last_state_hash};
use std::process::ExitCode;

#[test]
fn demo_content_is_complete_and_playable() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("game");
    let (code, out) = iron3d(&[
        "demo",
        "build",
        "--out",
        out_dir.to_str().unwrap(),
        "--seed",
        "3",
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let manifest = iron3d_demo::Manifest::read(&out_dir).unwrap();
    assert!(manifest.missions.len() >= 2, "{:?}", manifest.missions);
    for m in &manifest.missions {
        let (code, out) = iron3d(&["graph", out_dir.to_str().unwrap(), "--mission", m, "--json"]);
        assert_eq!(code, ExitCode::SUCCESS, "{out}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["failures"], 0, "mission {m}: {v}");
        assert!(v["objects"].as_u64().unwrap() > 0);
        let (code, out) = iron3d(&[
            "run",
            "--headless",
            "--ticks",
            "20",
            "--game-dir",
            out_dir.to_str().unwrap(),
            "--mission",
            m,
        ]);
        assert_eq!(code, ExitCode::SUCCESS, "{out}");
        assert!(!out.contains("host: terrain could not load"), "{out}");
        last_state_hash(&out);
    }
}
