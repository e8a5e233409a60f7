//! The effects slot end to end (issue 38): the demo battle with the effects plugin and
//! with the null one runs to the same outcome and state hashes (PD-FX-PRESENTATION);
//! every shot and kill starts its effect from the same events the audio plugin sounds
//! (PD-AI-EFFECTS), as the trace shows.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use serde_json::Value;
use std::path::{Path, PathBuf};

/// `config/plugins.ini` with the effects slot's line replaced by `effects`.
fn registry(dir: &Path, effects: &str) -> PathBuf {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/plugins.ini");
    let text = std::fs::read_to_string(config).unwrap();
    let mut out = String::new();
    let mut replaced = false;
    for l in text.lines() {
        if l.starts_with("effects ") {
            out.push_str(effects);
            replaced = true;
        } else {
            out.push_str(l);
        }
        out.push('\n');
    }
    assert!(replaced, "the registry has an effects line");
    let path = dir.join(format!(
        "plugins-{}.ini",
        effects.split_whitespace().last().unwrap()
    ));
    std::fs::write(&path, out).unwrap();
    path
}

fn outcome(out: &str) -> Option<String> {
    out.lines()
        .find(|l| l.starts_with("outcome="))
        .map(str::to_owned)
}

/// The battle (seed 1) with `registry`, traced into `trace`: the launcher's output.
fn battle(registry: &Path, trace: &Path) -> String {
    let game = iron3d_e2e::render::demo().to_str().unwrap().to_owned();
    iron3d_e2e::run_ok(&[
        "run",
        "--headless",
        "--game-dir",
        &game,
        "--mission",
        iron3d_demo::BATTLE,
        "--ticks",
        "20000",
        "--seed",
        "1",
        "--registry",
        registry.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
        "--trace-every",
        "100000",
    ])
}

fn messages(trace: &Path, name: &str) -> Vec<Value> {
    std::fs::read_to_string(trace)
        .unwrap()
        .lines()
        .filter(|l| l.contains(&format!("\"name\":\"{name}\"")))
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "message")
        .collect()
}

#[test]
fn the_battle_runs_the_same_with_effects_or_without_and_every_shot_and_kill_starts_one() {
    let dir = tempfile::tempdir().unwrap();
    let with = registry(dir.path(), "effects iron3d_effects effects");
    let without = registry(dir.path(), "effects iron3d_null null-effects");
    let (ta, tb) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    let a = battle(&with, &ta);
    let b = battle(&without, &tb);
    assert!(a.contains("iron3d-effects 0.1.0 effects"), "{a}");
    assert!(b.contains("null-effects"), "{b}");
    // PD-FX-PRESENTATION: the same outcome at the same tick, the same state hash.
    let o = outcome(&a).unwrap_or_else(|| panic!("no outcome:\n{a}"));
    assert_eq!(outcome(&b).as_deref(), Some(o.as_str()));
    assert_eq!(
        iron3d_e2e::last_state_hash(&a),
        iron3d_e2e::last_state_hash(&b)
    );
    // PD-AI-EFFECTS: one SHOT per shot sound, at the muzzle, pointing where it ended.
    let effects = messages(&ta, "EFFECT");
    let sounds = messages(&ta, "SOUND");
    let named = |list: &[Value], key: &str, name: &str| -> Vec<Value> {
        list.iter()
            .filter(|v| v["fields"][key]["name"] == name)
            .cloned()
            .collect()
    };
    let shots = named(&effects, "effect", "SHOT");
    let fire = named(&sounds, "sound", "FIRE.WAV");
    assert!(shots.len() > 10, "a battle has shots: {}", shots.len());
    assert_eq!(shots.len(), fire.len());
    for (e, s) in shots.iter().zip(&fire) {
        let (e, s) = (&e["fields"], &s["fields"]);
        assert_eq!(e["effect"]["position"], s["sound"]["position"], "{e} {s}");
        assert_eq!(e["effect"]["owner"], s["sound"]["owner"]);
        assert!(
            e["effect"]["target"].is_array(),
            "a tracer has a target: {e}"
        );
        assert_eq!(e["to_system"], "plugin:effects");
    }
    // Every kill: EXPLODE and WRECK where the death sound is.
    let deaths = named(&sounds, "sound", "EXPLODE.WAV");
    let explosions = named(&effects, "effect", "EXPLODE");
    let wrecks = named(&effects, "effect", "WRECK");
    assert!(!deaths.is_empty(), "the battle has kills");
    assert_eq!(explosions.len(), deaths.len());
    assert_eq!(wrecks.len(), deaths.len());
    for ((x, w), d) in explosions.iter().zip(&wrecks).zip(&deaths) {
        assert_eq!(
            x["fields"]["effect"]["position"],
            d["fields"]["sound"]["position"]
        );
        assert_eq!(
            w["fields"]["effect"]["position"],
            d["fields"]["sound"]["position"]
        );
        assert_eq!(x["tick"], d["tick"]);
    }
    // Hits: some shots hit something.
    assert!(!named(&effects, "effect", "HIT").is_empty());
    // The null-effects run had the same events (the sender does not know who listens).
    assert_eq!(messages(&tb, "EFFECT").len(), effects.len());
}
