//! The effects slot end to end (issue 38): the demo battle with the effects plugin and
//! with the null one runs to the same outcome and state hashes (PD-FX-PRESENTATION);
//! every shot and kill starts its effect from the same events the audio plugin sounds
//! (PD-AI-EFFECTS), as the trace shows.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::messages;
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

/// `play` (offscreen, the capture renderer) of the battle for `frames` frames, with
/// `extra` arguments: the capture's JSON (its last frame) and the launcher's output.
fn played(dir: &Path, frames: u32, extra: &[&str]) -> (Value, String) {
    let game = iron3d_e2e::render::demo().to_str().unwrap().to_owned();
    let shot = dir.join(format!("capture-{frames}-{}.json", extra.len()));
    let frames = frames.to_string();
    let mut args = vec![
        "play",
        "--game-dir",
        &game,
        "--mission",
        iron3d_demo::BATTLE,
        "--seed",
        "1",
        "--offscreen",
        "--no-briefing",
        "--renderer",
        "capture",
        "--frames",
        &frames,
        "--screenshot",
        shot.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = iron3d_e2e::run_ok(&args);
    let json = serde_json::from_str(&std::fs::read_to_string(&shot).unwrap()).unwrap();
    (json, out)
}

/// The capture's effect groups as (instance, command, kind, first position).
fn groups(capture: &Value) -> Vec<(u64, u64, String, Value)> {
    capture["effects"]["groups"]
        .as_array()
        .unwrap_or_else(|| panic!("no effects in the capture: {capture}"))
        .iter()
        .map(|g| {
            (
                g["instance"].as_u64().unwrap(),
                g["command"].as_u64().unwrap(),
                g["kind"].as_str().unwrap().to_owned(),
                g["first"].clone(),
            )
        })
        .collect()
}

#[test]
fn a_played_battle_draws_shots_and_kills_where_they_happen_and_a_swap_keeps_them() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("play.jsonl");
    let (at_900, _) = played(
        dir.path(),
        900,
        &[
            "--trace",
            trace.to_str().unwrap(),
            "--trace-every",
            "100000",
        ],
    );
    let effects = messages(&trace, "EFFECT");
    let named = |name: &str| -> Vec<(u64, Value, Value)> {
        effects
            .iter()
            .filter(|v| v["fields"]["effect"]["name"] == name)
            .map(|v| {
                (
                    v["tick"].as_u64().unwrap(),
                    v["fields"]["effect"]["position"].clone(),
                    v["fields"]["effect"]["target"].clone(),
                )
            })
            .collect()
    };
    // Every wreck of the last 20 s (WRECK lives 20 s) shows its scorch where the unit
    // died: a billboard (command 1) whose place is the kill's.
    let shown = groups(&at_900);
    let wrecks: Vec<_> = named("WRECK")
        .into_iter()
        .filter(|(t, _, _)| *t + 600 > 900)
        .collect();
    assert!(!wrecks.is_empty(), "kills before frame 900");
    for (tick, at, _) in &wrecks {
        assert!(
            shown
                .iter()
                .any(|(_, c, k, first)| *c == 1 && k == "billboard" && first == at),
            "the wreck of tick {tick} at {at} is not drawn: {shown:?}"
        );
    }
    // The frame of the first shot: its muzzle flash at the muzzle, its tracer starting
    // there, its light; and the hit's sparks where the tracer ends.
    let (tick, muzzle, target) = named("SHOT").into_iter().next().unwrap();
    let (at_shot, _) = played(dir.path(), u32::try_from(tick).unwrap(), &[]);
    assert_eq!(at_shot["tick"], tick);
    let shown = groups(&at_shot);
    let kinds_at = |p: &Value| -> Vec<String> {
        shown
            .iter()
            .filter(|(_, _, _, first)| first == p)
            .map(|(_, _, k, _)| k.clone())
            .collect()
    };
    let at_muzzle = kinds_at(&muzzle);
    for k in ["billboard", "streak", "point_light"] {
        assert!(
            at_muzzle.iter().any(|x| x == k),
            "{k} at the muzzle: {shown:?}"
        );
    }
    assert!(
        kinds_at(&target).iter().any(|x| x == "particle"),
        "sparks where the shot hit {target}: {shown:?}"
    );
    // A hot swap of the effects plugin 50 ticks earlier draws the very same effects.
    let (swapped, out) = played(dir.path(), 900, &["--swap", "850:effects:iron3d_effects"]);
    assert!(out.contains("swapped effects after tick 850"), "{out}");
    assert_eq!(swapped["effects"], at_900["effects"]);
}

/// A camera `back` units south-west of and `up` above `at`, looking at it
/// (`X,Y,Z,YAW,PITCH`).
fn camera_on(at: &Value, back: f64, up: f64) -> String {
    let p: Vec<f64> = at
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let eye = [p[0] - back, p[1] - back, p[2] + up];
    let (dx, dy, dz) = (p[0] - eye[0], p[1] - eye[1], p[2] - eye[2]);
    let yaw = dy.atan2(dx);
    let pitch = dz.atan2((dx * dx + dy * dy).sqrt());
    format!("{},{},{},{yaw},{pitch}", eye[0], eye[1], eye[2])
}

/// The battle drawn by the software renderer through `camera` after `frames` frames,
/// compared with `goldens/<name>.png` pixel for pixel (`IRON3D_UPDATE_GOLDENS=1`
/// rewrites it after an intended change).
fn soft_golden(dir: &Path, name: &str, camera: &str, frames: u64) {
    use iron3d_e2e::render::{H, W, decode, goldens};
    let game = iron3d_e2e::render::demo().to_str().unwrap().to_owned();
    let shot = dir.join(format!("{name}.png"));
    let (w, h, f) = (W.to_string(), H.to_string(), frames.to_string());
    iron3d_e2e::run_ok(&[
        "play",
        "--game-dir",
        &game,
        "--mission",
        iron3d_demo::BATTLE,
        "--seed",
        "1",
        "--offscreen",
        "--no-briefing",
        "--no-hud",
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
    let want = goldens().join(format!("{name}.png"));
    if std::env::var_os("IRON3D_UPDATE_GOLDENS").is_some() {
        std::fs::copy(&shot, &want).unwrap();
    }
    let (gw, gh, got) = decode(&shot);
    let (ww, wh, wanted) = decode(&want);
    assert_eq!((gw, gh), (ww, wh), "{name}: size");
    let differing = got
        .chunks(4)
        .zip(wanted.chunks(4))
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(
        differing,
        0,
        "{name}: {differing} pixels differ from {}",
        want.display()
    );
}

/// Soft-renderer goldens of combat effects: the first shot two ticks in (its tracer
/// half way, the hit's sparks) seen from above the middle of its path, and the first
/// kill 10 ticks into its explosion (flash, fireball, debris, smoke, the scorch).
#[test]
fn the_first_shot_and_the_first_explosion_match_their_soft_goldens() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("play.jsonl");
    played(
        dir.path(),
        900,
        &[
            "--trace",
            trace.to_str().unwrap(),
            "--trace-every",
            "100000",
        ],
    );
    let effects = messages(&trace, "EFFECT");
    let first = |name: &str| -> (u64, Value) {
        effects
            .iter()
            .find(|v| v["fields"]["effect"]["name"] == name)
            .map(|v| {
                (
                    v["tick"].as_u64().unwrap(),
                    v["fields"]["effect"]["position"].clone(),
                )
            })
            .unwrap_or_else(|| panic!("no {name} before frame 900"))
    };
    let (shot_tick, shot) = effects
        .iter()
        .find(|v| v["fields"]["effect"]["name"] == "SHOT")
        .map(|v| (v["tick"].as_u64().unwrap(), v["fields"]["effect"].clone()))
        .unwrap();
    // Seen from above the middle of its path, two ticks in: the tracer half way.
    let mid: Vec<f64> = (0..3)
        .map(|k| {
            0.5 * (shot["position"][k].as_f64().unwrap() + shot["target"][k].as_f64().unwrap())
        })
        .collect();
    let mid = serde_json::json!(mid);
    soft_golden(
        dir.path(),
        "effects_shot",
        &camera_on(&mid, 12.0, 14.0),
        shot_tick + 2,
    );
    let (kill_tick, at) = first("EXPLODE");
    soft_golden(
        dir.path(),
        "effects_explosion",
        &camera_on(&at, 14.0, 9.0),
        kill_tick + 10,
    );
}
