//! `iron3d play --record`: a played mission's replay log plays back headless with every
//! checkpoint matching, though the replay draws nothing and sounds nothing (render and
//! audio are presentation, not part of the recorded plugin set).

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::render::{demo, play, registry};
use iron3d_e2e::{last_state_hash, run_ok};

#[test]
fn a_played_mission_replays_headless_with_every_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("played.jsonl");
    let played = play(&[
        "--frames",
        "90",
        "--record",
        log.to_str().unwrap(),
        "--checkpoint-every",
        "15",
    ]);
    assert!(
        played.contains(&format!("record={}", log.display())),
        "{played}"
    );
    let text = std::fs::read_to_string(&log).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["mission"]["name"], "DEMO1");
    let plugins = header["params"]["plugins"].as_array().unwrap();
    assert!(
        plugins
            .iter()
            .all(|p| !p.as_str().unwrap().starts_with("render=")
                && !p.as_str().unwrap().starts_with("audio=")),
        "presentation is not recorded: {plugins:?}"
    );
    let replayed = run_ok(&[
        "run",
        "--headless",
        "--game-dir",
        demo().to_str().unwrap(),
        "--replay",
        log.to_str().unwrap(),
        "--registry",
        registry().to_str().unwrap(),
    ]);
    assert!(
        replayed.contains("replay: 6 checkpoints match"),
        "{replayed}"
    );
    assert_eq!(last_state_hash(&replayed), last_state_hash(&played));
}

/// PD-REPLAY-END-UNPAUSED: a played mission that ends on its outcome screen (which pauses
/// the game clock) records its end as the last tick left the state, unpaused, so the
/// replay — which never pauses — matches it; the played session's own last hash is of
/// the paused state and differs.
#[test]
fn a_played_mission_that_ends_on_its_outcome_screen_replays_to_a_matching_end() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("battle.jsonl");
    let game = demo().to_str().unwrap().to_owned();
    let played = run_ok(&[
        "play",
        "--game-dir",
        &game,
        "--mission",
        "BATTLE",
        "--seed",
        "1",
        "--offscreen",
        "--renderer",
        "capture",
        "--width",
        "64",
        "--height",
        "48",
        "--frames",
        "20000",
        "--record",
        log.to_str().unwrap(),
        "--checkpoint-every",
        "600",
    ]);
    assert!(played.contains("outcome="), "decided: {played}");
    let text = std::fs::read_to_string(&log).unwrap();
    let end: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(end["kind"], "end", "the last record: {end}");
    let end_hash = end["hash"].as_str().unwrap().to_owned();
    let replayed = run_ok(&[
        "run",
        "--headless",
        "--game-dir",
        &game,
        "--replay",
        log.to_str().unwrap(),
    ]);
    assert!(replayed.contains("; the end matches (tick "), "{replayed}");
    assert_eq!(last_state_hash(&replayed), end_hash);
    assert_ne!(
        last_state_hash(&played),
        end_hash,
        "the played session ends paused on its outcome screen"
    );
}
