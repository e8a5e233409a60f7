//! End-to-end: `iron3d run --headless --trace FILE [--trace-every K]` writes the JSON Lines
//! documented in `iron3d_trace`: the same run writes the same bytes, tracing never
//! changes the simulation, events are consistent with the sampled objects.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::{last_state_hash, run_ok, traced};
use serde_json::Value;
use std::collections::BTreeSet;

#[test]
fn the_scenario_trace_is_reproducible_and_consistent_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--ticks", "300", "--objects", "200", "--seed", "4"];
    let (out, lines, bytes) = traced(&args, &dir.path().join("a.jsonl"));
    let (_, _, again) = traced(&args, &dir.path().join("b.jsonl"));
    assert_eq!(bytes, again, "same seed and inputs: same trace bytes");
    let plain = run_ok(&[
        "run",
        "--headless",
        "--ticks",
        "300",
        "--objects",
        "200",
        "--seed",
        "4",
    ]);
    assert_eq!(
        last_state_hash(&out),
        last_state_hash(&plain),
        "tracing is observation only"
    );
    assert_eq!(lines[0]["format"], "iron3d-trace");
    assert_eq!(lines[0]["version"], 2);
    assert_eq!(lines[0]["every"], 1);

    let of = |t: &'static str| lines.iter().filter(move |l| l["type"] == t);
    // The scenario's objects carry the `ClanID` their owner gave them and were made from
    // no prototype.
    for l in of("object") {
        assert!(l["clan"].is_u64(), "{l}");
        assert!(l["prototype"].is_null(), "{l}");
    }
    // Every tick 0..=300 is sampled, objects in id order within a tick.
    let ticks: BTreeSet<u64> = of("object").map(|l| l["tick"].as_u64().unwrap()).collect();
    assert_eq!(ticks, (0..=300).collect());
    let mut last = (0u64, 0u64);
    for l in of("object") {
        let key = (l["tick"].as_u64().unwrap(), l["id"].as_u64().unwrap());
        assert!(key > last || last == (0, 0), "{key:?} after {last:?}");
        last = key;
    }
    // The scenario's collisions and deaths show: a collision names the lower id first,
    // and a removed object is not sampled again until its id is added again (PD-ID-CREATE
    // hands out max+1, so the id of a removed maximum comes back).
    let collisions: Vec<&Value> = of("collision").collect();
    assert!(!collisions.is_empty(), "200 wanderers in the arena collide");
    for c in &collisions {
        assert!(c["a"].as_u64() < c["b"].as_u64(), "{c}");
    }
    let at = |l: &Value| (l["tick"].as_u64().unwrap(), l["id"].as_u64().unwrap());
    let removed: Vec<(u64, u64)> = of("removed").map(at).collect();
    assert!(
        !removed.is_empty(),
        "collisions cost life; some objects die"
    );
    for &(tick, id) in &removed {
        let back = of("added")
            .map(at)
            .find(|&(t, i)| i == id && t > tick)
            .map_or(u64::MAX, |(t, _)| t);
        assert!(
            !of("object")
                .map(at)
                .any(|(t, i)| i == id && t >= tick && t < back),
            "object {id} removed at tick {tick} is sampled before it comes back at {back}"
        );
    }
    // A state line's `to` is what the next sample shows.
    let s = of("state")
        .next()
        .expect("the wanderer's behaviour timers change");
    let (tick, id) = (s["tick"].as_u64().unwrap(), s["id"].as_u64().unwrap());
    let sample = of("object")
        .find(|l| l["tick"].as_u64() == Some(tick) && l["id"].as_u64() == Some(id))
        .unwrap();
    assert_eq!(sample["state"], s["to"]);
}

#[test]
fn a_mission_trace_samples_every_k_ticks() {
    let dir = tempfile::tempdir().unwrap();
    iron3d_demo::build(dir.path(), 1, iron3d_demo::Profile::Demo).unwrap();
    let game = dir.path().to_str().unwrap();
    let file = dir.path().join("m.jsonl");
    let args = [
        "--game-dir",
        game,
        "--mission",
        "DEMO1",
        "--ticks",
        "60",
        "--trace-every",
        "20",
    ];
    let (out, lines, _) = traced(&args, &file);
    assert!(out.contains(&format!("trace={}", file.display())), "{out}");
    let ticks: BTreeSet<u64> = lines
        .iter()
        .filter(|l| l["type"] == "object")
        .map(|l| l["tick"].as_u64().unwrap())
        .collect();
    assert_eq!(ticks, BTreeSet::from([0, 20, 40, 60]));
    let loaded = lines
        .iter()
        .filter(|l| l["type"] == "object" && l["tick"] == 0)
        .count();
    let added = lines
        .iter()
        .filter(|l| l["type"] == "added" && l["tick"] == 1)
        .count();
    assert_eq!(
        added, loaded,
        "the loaded world is reported added in tick 1"
    );
    // Every placed object names the prototype it was made from and its clan (the demo
    // gives each one a `ClanID`).
    for l in lines.iter().filter(|l| l["type"] == "object") {
        assert!(
            l["prototype"].as_str().is_some_and(|p| !p.is_empty()),
            "{l}"
        );
        assert!(l["clan"].is_u64(), "{l}");
    }
    assert!(
        lines
            .iter()
            .any(|l| l["prototype"].as_str() == Some("UNITS\\Tank.dat")),
        "the demo's tanks are told apart by their unit DAT"
    );
}

#[test]
fn a_battle_trace_tells_units_and_their_messages_apart() {
    let dir = tempfile::tempdir().unwrap();
    iron3d_demo::build(dir.path(), 1, iron3d_demo::Profile::Demo).unwrap();
    let game = dir.path().to_str().unwrap();
    let args = [
        "--game-dir",
        game,
        "--mission",
        iron3d_demo::BATTLE,
        "--ticks",
        "300",
        "--seed",
        "1",
        "--trace-every",
        "100",
    ];
    let (_, lines, bytes) = traced(&args, &dir.path().join("a.jsonl"));
    let (_, _, again) = traced(&args, &dir.path().join("b.jsonl"));
    assert!(
        bytes == again,
        "same mission, seed and inputs: same trace bytes"
    );
    let objects: Vec<&Value> = lines.iter().filter(|l| l["type"] == "object").collect();
    // Two clans of units, each unit with its unit DAT.
    let clans: BTreeSet<u64> = objects.iter().filter_map(|l| l["clan"].as_u64()).collect();
    assert!(clans.len() >= 2, "{clans:?}");
    for l in &objects {
        let p = l["prototype"].as_str().unwrap_or_default();
        assert!(p.starts_with("UNITS\\") && p.ends_with(".dat"), "{l}");
    }
    // Every message says its code; the battle's shots are sound events the AI sent,
    // decoded, owned by a unit the trace samples.
    let messages: Vec<&Value> = lines.iter().filter(|l| l["type"] == "message").collect();
    for m in &messages {
        assert!(m["code"].is_u64(), "{m}");
        let len = m["payload_len"].as_u64().unwrap();
        let hex = m["payload_hex"].as_str().unwrap();
        assert_eq!(hex.len() as u64, 2 * len.min(64), "{m}");
        assert_eq!(m["truncated"], len > 64, "{m}");
    }
    let sounds: Vec<&Value> = messages
        .iter()
        .copied()
        .filter(|m| m["name"] == "SOUND")
        .collect();
    assert!(
        !sounds.is_empty(),
        "the battle's units fire within 300 ticks"
    );
    for s in &sounds {
        assert_eq!(s["code"], 0x100, "{s}");
        assert_eq!(s["fields"]["from"], "plugin:ai", "{s}");
        let sound = &s["fields"]["sound"];
        assert!(
            sound["name"].as_str().is_some_and(|n| n.ends_with(".WAV")),
            "{s}"
        );
        let owner = sound["owner"].as_u64().unwrap();
        assert!(
            objects.iter().any(|o| o["id"].as_u64() == Some(owner)),
            "the owner {owner} of {s} is a sampled unit"
        );
    }
}

#[test]
fn a_trace_that_cannot_be_written_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("missing").join("t.jsonl");
    let argv = [
        "iron3d",
        "run",
        "--headless",
        "--ticks",
        "5",
        "--trace",
        file.to_str().unwrap(),
    ];
    let err = match iron3d_launcher::try_main_with_args(argv, &mut Vec::new()) {
        Ok(code) => panic!("did not fail ({code:?})"),
        Err(e) => format!("{e:#}"),
    };
    assert!(err.contains("t.jsonl"), "{err}");
    let argv = [
        "iron3d",
        "run",
        "--headless",
        "--ticks",
        "5",
        "--trace",
        "x",
        "--trace-every",
        "0",
    ];
    let err = match iron3d_launcher::try_main_with_args(argv, &mut Vec::new()) {
        Ok(code) => panic!("did not fail ({code:?})"),
        Err(e) => format!("{e:#}"),
    };
    assert!(err.contains("--trace-every"), "{err}");
}

#[test]
fn swapping_in_the_same_build_mid_run_leaves_the_trace_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let lib = iron3d_e2e::plugins::library("iron3d_ai_wanderer");
    let spec = format!("100:ai:{}", lib.display());
    let (out, _, swapped) = traced(
        &["--ticks", "200", "--swap", &spec],
        &dir.path().join("s.jsonl"),
    );
    assert!(out.contains("host: swapped ai after tick 100"), "{out}");
    let (_, _, plain) = traced(&["--ticks", "200"], &dir.path().join("p.jsonl"));
    assert!(swapped == plain, "the trace is the same across a hot swap");
}

#[test]
fn play_writes_the_same_trace_format_for_the_ticks_it_ran() {
    let dir = tempfile::tempdir().unwrap();
    iron3d_demo::build(dir.path(), 1, iron3d_demo::Profile::Demo).unwrap();
    let game = dir.path().to_str().unwrap();
    let file = dir.path().join("play.jsonl");
    let out = run_ok(&[
        "play",
        "--game-dir",
        game,
        "--mission",
        "BATTLE",
        "--offscreen",
        "--renderer",
        "capture",
        "--frames",
        "45",
        "--trace",
        file.to_str().unwrap(),
        "--trace-every",
        "10",
    ]);
    assert!(out.contains(&format!("trace={}", file.display())), "{out}");
    let ticks: u64 = out
        .split_whitespace()
        .find_map(|w| w.strip_prefix("ticks="))
        .and_then(|t| t.parse().ok())
        .expect("the summary names the ticks");
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["format"], "iron3d-trace");
    assert_eq!(lines[0]["every"], 10);
    let sampled: BTreeSet<u64> = lines
        .iter()
        .filter(|l| l["type"] == "object")
        .map(|l| l["tick"].as_u64().unwrap())
        .collect();
    let expected: BTreeSet<u64> = (0..=ticks).filter(|t| t % 10 == 0).collect();
    assert_eq!(sampled, expected, "{ticks} ticks");
    // Behaviour changes are there (the battle's units set off).
    assert!(lines.iter().any(|l| l["type"] == "state"));
}
