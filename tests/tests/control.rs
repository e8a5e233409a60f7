//! End-to-end: the Control slot's plugin (`iron3d_control`, the registry default) in
//! missions and the built-in scenario — units drive on the generated terrain, collide,
//! and the run is reproducible to the byte, across a hot swap of the control plugin,
//! with a unit deleting itself from its own collision callback, and at 10,000 units.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::render::demo;
use iron3d_e2e::{last_state_hash, traced};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn of<'a>(lines: &'a [Value], t: &'static str) -> impl Iterator<Item = &'a Value> + 'a {
    lines.iter().filter(move |l| l["type"] == t)
}

fn pos(l: &Value) -> [f64; 3] {
    let p = &l["pos"];
    [0, 1, 2].map(|i| p[i].as_f64().unwrap())
}

/// A registry like the scenario's with the control plugin in the control slot and
/// `ai` in the AI slot.
fn registry(dir: &Path, ai: &str) -> String {
    iron3d_e2e::plugins::registry_file(dir, "control.ini", ai)
}

fn mission_args<'a>(game: &'a str, ticks: &'a str) -> Vec<&'a str> {
    vec![
        "--game-dir",
        game,
        "--mission",
        "DEMO1",
        "--ticks",
        ticks,
        "--trace-every",
        "10",
    ]
}

#[test]
fn units_drive_over_the_demo_terrain_and_the_run_is_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    let game = demo().to_str().unwrap().to_owned();
    let args = mission_args(&game, "300");
    let (out, lines, bytes) = traced(&args, &dir.path().join("a.jsonl"));
    let (out2, _, again) = traced(&args, &dir.path().join("b.jsonl"));
    assert_eq!(
        bytes, again,
        "same mission, seed and inputs: same trace bytes"
    );
    assert_eq!(last_state_hash(&out), last_state_hash(&out2));

    // First and last sample of every object.
    let mut first: BTreeMap<u64, [f64; 3]> = BTreeMap::new();
    let mut last: BTreeMap<u64, [f64; 3]> = BTreeMap::new();
    for l in of(&lines, "object") {
        let id = l["id"].as_u64().unwrap();
        first.entry(id).or_insert_with(|| pos(l));
        last.insert(id, pos(l));
    }
    let moved = first
        .iter()
        .filter(|(id, p)| {
            let q = last[id];
            ((q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2)).sqrt() > 5.0
        })
        .count();
    let still = first.iter().filter(|(id, p)| last[id] == **p).count();
    assert!(
        moved >= 20,
        "vehicles drive: {moved} of {} moved",
        first.len()
    );
    assert!(
        still >= 20,
        "buildings stay: {still} of {} did not move",
        first.len()
    );
    // Vehicles follow the surface: their height changes as they drive over hills.
    let climbed = first
        .iter()
        .filter(|(id, p)| (last[id][2] - p[2]).abs() > 0.5)
        .count();
    assert!(climbed >= 5, "heights follow the hills: {climbed}");
    // They drive into each other and into buildings (begins after the first tick, whose
    // begins are the placement's overlaps).
    let begins: Vec<&Value> = of(&lines, "collision")
        .filter(|c| c["to"] == c["a"] && c["tick"].as_u64() > Some(1))
        .collect();
    let is_static = |v: &Value| {
        let id = v.as_u64().unwrap();
        first.get(&id).is_some_and(|p| last[&id] == *p)
    };
    let with_building = begins
        .iter()
        .filter(|c| is_static(&c["a"]) || is_static(&c["b"]))
        .count();
    assert!(
        begins.len() >= 10,
        "contacts while driving: {}",
        begins.len()
    );
    assert!(
        with_building >= 1,
        "a vehicle meets a building: {with_building}"
    );
}

#[test]
fn swapping_the_control_plugin_mid_mission_changes_neither_trace_nor_hash() {
    let dir = tempfile::tempdir().unwrap();
    let game = demo().to_str().unwrap().to_owned();
    let lib = iron3d_e2e::plugins::library("iron3d_control");
    let spec = format!("120:control:{}", lib.display());
    let mut args = mission_args(&game, "240");
    args.extend(["--swap", spec.as_str()]);
    let (out, _, swapped) = traced(&args, &dir.path().join("s.jsonl"));
    assert!(
        out.contains("host: swapped control after tick 120"),
        "{out}"
    );
    let (plain_out, _, plain) = traced(&mission_args(&game, "240"), &dir.path().join("p.jsonl"));
    assert!(swapped == plain, "the trace is the same across a hot swap");
    assert_eq!(last_state_hash(&out), last_state_hash(&plain_out));
}

#[test]
fn a_unit_deleted_in_its_own_collision_callback_is_never_touched_again() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path(), "ai iron3d_test_counter collide-delete");
    let (out, lines, _) = traced(
        &[
            "--registry",
            &reg,
            "--ticks",
            "400",
            "--objects",
            "40",
            "--seed",
            "3",
        ],
        &dir.path().join("d.jsonl"),
    );
    assert!(out.contains("system_faults=0"), "{out}");
    let collisions: Vec<&Value> = of(&lines, "collision").collect();
    assert!(
        collisions.len() >= 10,
        "they drive into each other: {}",
        collisions.len()
    );
    let mut gone: BTreeMap<u64, u64> = BTreeMap::new();
    for l in of(&lines, "removed") {
        gone.insert(l["id"].as_u64().unwrap(), l["tick"].as_u64().unwrap());
    }
    for c in &collisions {
        let (a, tick) = (c["a"].as_u64().unwrap(), c["tick"].as_u64().unwrap());
        if c["to"].as_u64() == Some(a) {
            assert_eq!(
                gone.get(&a),
                Some(&tick),
                "{a} deleted itself in its callback"
            );
        }
    }
    // Nothing about a deleted object after its removal, but the end of its contacts,
    // told to the partner that stays, with the removal (PD-CTRL-CONTACT: the control
    // plugin hears of the removal at the next boundary, so the end is delivered at most
    // one tick later).
    let mut ends_of_gone = 0;
    for l in &lines {
        let Some(tick) = l["tick"].as_u64() else {
            continue;
        };
        if l["type"] == "collision_end" {
            let to = l["to"].as_u64().unwrap();
            assert!(gone.get(&to).is_none_or(|&t| tick <= t), "{l}");
            for key in ["a", "b"] {
                let id = l[key].as_u64().unwrap();
                if let Some(&t) = gone.get(&id) {
                    assert!(tick <= t + 1, "the end comes with the removal: {l}");
                    ends_of_gone += usize::from(tick > t || to != id);
                }
            }
            continue;
        }
        for key in ["id", "a", "b"] {
            if let Some(id) = l[key].as_u64() {
                if let Some(&t) = gone.get(&id) {
                    assert!(
                        tick <= t || (l["type"] == "added"),
                        "object {id} deleted at tick {t} appears at tick {tick}: {l}"
                    );
                }
            }
        }
    }
    assert!(
        ends_of_gone >= 1,
        "a partner hears that its contact with a deleted object ended"
    );
    // One begin per contact: no pair begins twice while both live.
    let pairs: Vec<(u64, u64)> = collisions
        .iter()
        .filter(|c| c["to"] == c["a"])
        .map(|c| (c["a"].as_u64().unwrap(), c["b"].as_u64().unwrap()))
        .collect();
    let unique: BTreeSet<_> = pairs.iter().collect();
    assert_eq!(unique.len(), pairs.len(), "each pair begins once");
}

#[test]
fn ten_thousand_units_give_a_stable_trace() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path(), "ai iron3d_ai_wanderer wanderer");
    let args = [
        "--registry",
        &reg,
        "--ticks",
        "40",
        "--objects",
        "10000",
        "--trace-every",
        "20",
    ];
    let (out, lines, a) = traced(&args, &dir.path().join("a.jsonl"));
    let (out2, _, b) = traced(&args, &dir.path().join("b.jsonl"));
    assert!(a == b, "10,000 units: the same trace bytes");
    assert_eq!(last_state_hash(&out), last_state_hash(&out2));
    assert_eq!(
        of(&lines, "object").count(),
        3 * 10_000,
        "ticks 0, 20 and 40"
    );
}

#[test]
fn the_collision_proxy_is_rebuilt_after_a_model_change() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path(), "ai iron3d_test_counter grow");
    let (_, lines, _) = traced(
        &["--registry", &reg, "--ticks", "40", "--objects", "4"],
        &dir.path().join("g.jsonl"),
    );
    // The first object's behaviour state carries its proxy radius (f32 bits).
    let radius: Vec<(u64, f32)> = of(&lines, "state")
        .map(|l| {
            let bits = l["to"].as_u64().unwrap() as u32;
            (l["tick"].as_u64().unwrap(), f32::from_bits(bits))
        })
        .collect();
    let before: Vec<f32> = radius.iter().filter(|r| r.0 <= 10).map(|r| r.1).collect();
    assert!(
        !before.is_empty() && before.iter().all(|&r| r == 0.5),
        "default proxy radius: {radius:?}"
    );
    let grown = radius
        .iter()
        .find(|r| r.1 == 1.5)
        .unwrap_or_else(|| panic!("tripled within the refresh window: {radius:?}"));
    assert!(
        grown.0 > 10 && grown.0 <= 10 + REFRESH_SLICE + 1,
        "rebuilt at tick {} (scale changed at 10)",
        grown.0
    );
}

/// `iron3d_control::REFRESH_SLICE` (the e2e crate links no plugin code): a proxy is
/// rebuilt within that many ticks of the change.
const REFRESH_SLICE: u64 = 16;
