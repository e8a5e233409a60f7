//! The render world (interface 2.8): a renderer that implements `Renderer::world` gets
//! every object of the mission before each frame — in view or culled, each once — with
//! its transform, `ClanID` and prototype; the capture renderer lists it as `world`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use iron3d_e2e::render::demo;
use std::collections::BTreeSet;
use std::process::ExitCode;

#[test]
fn the_capture_renderer_lists_every_object_with_clan_and_prototype_in_view_or_not() {
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("frame.json");
    let game = demo().to_str().unwrap().to_owned();
    // A camera over one corner looking in along the diagonal and down: the near base is
    // in view, objects beside and behind the view are culled (11 of 23 in view).
    let (code, out) = iron3d_e2e::iron3d(&[
        "play",
        "--game-dir",
        &game,
        "--mission",
        "BATTLE",
        "--offscreen",
        "--no-hud",
        "--renderer",
        "capture",
        "--frames",
        "3",
        "--camera",
        "10,10,40,0.785,-0.6",
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&shot).unwrap()).unwrap();
    let world = &json["world"];
    let objects = world["objects"].as_array().expect("a world list");
    let loaded: usize = out
        .lines()
        .find_map(|l| l.strip_prefix("mission=BATTLE objects="))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("the mission line");
    assert_eq!(objects.len(), loaded, "every object, once");
    let ids: BTreeSet<u64> = objects.iter().map(|o| o["id"].as_u64().unwrap()).collect();
    assert_eq!(ids.len(), objects.len(), "each once");
    assert_eq!(world["tick"], json["tick"]);
    let visible: BTreeSet<u64> = json["visible"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_u64().unwrap())
        .collect();
    let in_view: BTreeSet<u64> = objects
        .iter()
        .filter(|o| o["in_view"] == true)
        .map(|o| o["id"].as_u64().unwrap())
        .collect();
    assert_eq!(in_view, visible, "in_view is the frame's visible list");
    assert!(
        !in_view.is_empty() && in_view.len() < objects.len(),
        "some in view, some not: {} of {}",
        in_view.len(),
        objects.len()
    );
    let clans: BTreeSet<u64> = objects
        .iter()
        .filter_map(|o| o["clan_id"].as_u64())
        .collect();
    assert!(clans.len() >= 2, "both clans: {clans:?}");
    for o in objects {
        let p = o["prototype"].as_str().unwrap();
        assert!(p.starts_with("UNITS\\") && p.ends_with(".dat"), "{o}");
        let pos = o["position"].as_array().unwrap();
        assert_eq!(pos.len(), 3);
        assert!(
            pos.iter().all(|c| c.as_f64().is_some_and(f64::is_finite)),
            "{o}"
        );
    }
    // A culled object's transform is there too (the frame's `skipped` has ids only).
    let culled = objects.iter().find(|o| o["in_view"] == false).unwrap();
    assert!(culled["orientation"].as_array().unwrap().len() == 4);
}
