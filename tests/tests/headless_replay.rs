//! End-to-end: `iron3d run --headless` output contract, determinism, frame-rate independence,
//! record/replay and first-divergence reporting.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::{iron3d, last_state_hash};
use std::process::ExitCode;

fn run_ok(args: &[&str]) -> String {
    let (code, out) = iron3d(args);
    assert_eq!(code, ExitCode::SUCCESS, "iron3d {args:?} failed:\n{out}");
    out
}

#[test]
fn last_stdout_line_is_the_state_hash_and_runs_are_reproducible() {
    let a = run_ok(&["run", "--headless", "--ticks", "150", "--seed", "9"]);
    let b = run_ok(&["run", "--headless", "--ticks", "150", "--seed", "9"]);
    assert_eq!(last_state_hash(&a), last_state_hash(&b));
    assert!(
        a.contains("calculate_world_queue") && a.contains("ticks=150"),
        "per-phase stats printed:\n{a}"
    );
    let c = run_ok(&["run", "--headless", "--ticks", "150", "--seed", "10"]);
    assert_ne!(last_state_hash(&a), last_state_hash(&c), "the seed matters");
}

#[test]
fn same_hash_at_30_and_144_frames_per_second() {
    let h30 = last_state_hash(&run_ok(&[
        "run",
        "--headless",
        "--ticks",
        "240",
        "--fps",
        "30",
    ]));
    let h144 = last_state_hash(&run_ok(&[
        "run",
        "--headless",
        "--ticks",
        "240",
        "--fps",
        "144",
    ]));
    let h12 = last_state_hash(&run_ok(&[
        "run",
        "--headless",
        "--ticks",
        "240",
        "--fps",
        "12",
    ]));
    assert_eq!(h30, h144);
    assert_eq!(h30, h12, "several ticks per frame give the same result too");
}

#[test]
fn replaying_a_log_twice_matches_every_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.jsonl");
    let log_s = log.to_str().unwrap();
    let rec = run_ok(&[
        "run",
        "--headless",
        "--ticks",
        "400",
        "--seed",
        "3",
        "--record",
        log_s,
    ]);
    for fps in ["60", "144"] {
        let out = run_ok(&["run", "--headless", "--replay", log_s, "--fps", fps]);
        assert!(out.contains("replay: 400 checkpoints match"), "{out}");
        assert_eq!(last_state_hash(&out), last_state_hash(&rec));
    }
}

#[test]
fn perturbed_input_is_reported_at_the_first_divergent_tick() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.jsonl");
    let log_s = log.to_str().unwrap();
    run_ok(&[
        "run",
        "--headless",
        "--ticks",
        "300",
        "--seed",
        "5",
        "--record",
        log_s,
    ]);
    let text = std::fs::read_to_string(&log).unwrap();
    // Perturb the second recorded input: change its argument (or key state).
    let (index, line) = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("\"kind\":\"input\""))
        .nth(1)
        .unwrap();
    let mut record: serde_json::Value = serde_json::from_str(line).unwrap();
    let tick = record["tick"].as_u64().unwrap();
    let event = &mut record["events"][0];
    if let Some(arg) = event.get("arg").and_then(serde_json::Value::as_i64) {
        event["arg"] = serde_json::json!(if arg == 1 { 2 } else { 1 });
    } else {
        let down = event["down"].as_bool().unwrap();
        event["down"] = serde_json::json!(!down);
    }
    let perturbed: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == index {
                record.to_string()
            } else {
                l.to_owned()
            }
        })
        .collect();
    let bad = dir.path().join("perturbed.jsonl");
    std::fs::write(&bad, perturbed.join("\n") + "\n").unwrap();
    let (code, out) = iron3d(&["run", "--headless", "--replay", bad.to_str().unwrap()]);
    assert_eq!(
        code,
        ExitCode::from(iron3d_launcher::EXIT_REPLAY_DIVERGED),
        "{out}"
    );
    assert!(
        out.contains(&format!("DIVERGED first at tick {tick} ")),
        "expected divergence at tick {tick}:\n{out}"
    );
    last_state_hash(&out);
}

#[test]
fn bad_replay_files_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.jsonl");
    let (code, out) = iron3d(&["run", "--headless", "--replay", missing.to_str().unwrap()]);
    assert_eq!(code, ExitCode::FAILURE);
    assert!(out.is_empty(), "nothing on stdout after a failure: {out}");
    let garbage = dir.path().join("garbage.jsonl");
    std::fs::write(&garbage, "{\"kind\":\"header\"}\n").unwrap();
    let (code, _) = iron3d(&["run", "--headless", "--replay", garbage.to_str().unwrap()]);
    assert_eq!(code, ExitCode::FAILURE);
}

#[test]
fn an_original_comp_ini_is_accepted_and_its_components_are_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let comp = dir.path().join("Comp.ini");
    std::fs::write(
        &comp,
        "0 terrain.dll LoadLandscape\r\n1 terrain.dll LoadBuilding\r\n2 terrain.dll LoadCamera\r\n3 animesh.dll LoadAgent\r\n4 animesh.dll LoadAgent\r\n5 terrain.dll CreateAtmosphere\r\n6 terrain.dll CreateShader\r\n7 misload.dll LoadResearch // research\r\n",
    )
    .unwrap();
    let out = run_ok(&[
        "run",
        "--headless",
        "--ticks",
        "5",
        "--registry",
        comp.to_str().unwrap(),
    ]);
    // terrain.dll maps to our terrain plugin; animesh.dll has no counterpart yet.
    assert!(
        out.contains("component cid=0 (LoadLandscape) terrain.dll LoadLandscape -> ")
            && out.contains("libiron3d_terrain.so"),
        "{out}"
    );
    assert!(
        out.contains("component cid=3 (LoadAgent) animesh.dll LoadAgent -> not available"),
        "{out}"
    );
    assert!(
        out.contains("component cid=7 (LoadResearch) misload.dll LoadResearch"),
        "{out}"
    );
    // No named slots in an original Comp.ini: every slot runs its null plugin, and says so.
    assert!(out.contains("plugin slot=ai iron3d-null"), "{out}");
    assert!(out.contains("host: ai could not load"), "{out}");
    last_state_hash(&out);
}

#[test]
fn a_scheduled_swap_happens_at_its_tick_and_is_reported() {
    let lib = iron3d_e2e::plugins::library("iron3d_ai_wanderer");
    let spec = format!("100:ai:{}", lib.display());
    let out = run_ok(&["run", "--headless", "--ticks", "200", "--swap", &spec]);
    assert!(out.contains("host: swapped ai after tick 100"), "{out}");
    // Same build swapped in: the result equals a run without the swap.
    let plain = run_ok(&["run", "--headless", "--ticks", "200"]);
    assert_eq!(last_state_hash(&out), last_state_hash(&plain));
}
