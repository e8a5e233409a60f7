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

/// Runs `iron3d` expecting failure; returns the error with its cause chain.
fn run_err(args: &[&str]) -> String {
    let argv = std::iter::once("iron3d").chain(args.iter().copied());
    match iron3d_launcher::try_main_with_args(argv, &mut Vec::new()) {
        Ok(code) => panic!("iron3d {args:?} did not fail ({code:?})"),
        Err(e) => format!("{e:#}"),
    }
}

#[test]
fn a_demo_mission_replays_over_2000_ticks_through_a_hot_swap_and_refuses_tampering() {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("game");
    iron3d_demo::build(&game, 5, iron3d_demo::Profile::Demo).unwrap();
    let g = game.to_str().unwrap();
    let log = dir.path().join("demo1.jsonl");
    let lib = iron3d_e2e::plugins::library("iron3d_ai");
    let swap = format!("1000:ai:{}", lib.display());
    let recorded = run_ok(&[
        "run",
        "--headless",
        "--game-dir",
        g,
        "--mission",
        "DEMO1",
        "--ticks",
        "2000",
        "--checkpoint-every",
        "100",
        "--record",
        log.to_str().unwrap(),
        "--swap",
        &swap,
    ]);
    assert!(
        recorded.contains("host: swapped ai after tick 1000"),
        "{recorded}"
    );
    let text = std::fs::read_to_string(&log).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["mission"]["name"], "DEMO1");
    assert!(
        header["mission"]["data"]["game:MISSIONS/DEMO1/data.tma"].is_string(),
        "{header:#}"
    );
    let checkpoints: std::collections::BTreeSet<&str> = text
        .lines()
        .filter(|l| l.contains("\"checkpoint\""))
        .collect();
    assert_eq!(
        checkpoints.len(),
        20,
        "the world moves: every checkpoint differs"
    );

    // The replay (mission named by the log) matches every checkpoint, with or without a
    // swap of the same build at another tick.
    // Presentation is not part of the plugin set: a replay with another sound output
    // (the mixer without a device, to trace it) is the same run.
    let audio_trace = dir.path().join("replay-audio.jsonl");
    for extra in [
        vec![],
        vec!["--swap".to_owned(), format!("700:ai:{}", lib.display())],
        vec![
            "--audio-trace".to_owned(),
            audio_trace.display().to_string(),
        ],
    ] {
        let mut args = vec![
            "run",
            "--headless",
            "--game-dir",
            g,
            "--replay",
            log.to_str().unwrap(),
        ];
        args.extend(extra.iter().map(String::as_str));
        let out = run_ok(&args);
        assert!(out.contains("replay: 20 checkpoints match"), "{out}");
        assert_eq!(last_state_hash(&out), last_state_hash(&recorded));
    }

    // Tampered data: a comment added to BuildDat.lst still loads, and is named.
    let tampered = dir.path().join("tampered");
    iron3d_demo::build(&tampered, 5, iron3d_demo::Profile::Demo).unwrap();
    let mut lst = std::fs::read(tampered.join("BuildDat.lst")).unwrap();
    lst.extend_from_slice(b"// tampered\n");
    std::fs::write(tampered.join("BuildDat.lst"), lst).unwrap();
    let e = run_err(&[
        "run",
        "--headless",
        "--game-dir",
        tampered.to_str().unwrap(),
        "--replay",
        log.to_str().unwrap(),
    ]);
    assert!(e.contains("replay refused"), "{e}");
    assert!(e.contains("game data game:BuildDat.lst: recorded"), "{e}");

    // Another plugin set: the AI slot's null plugin.
    let registry = dir.path().join("plugins.ini");
    std::fs::write(
        &registry,
        "terrain iron3d_terrain terrain\nai iron3d_null null-ai\n",
    )
    .unwrap();
    let e = run_err(&[
        "run",
        "--headless",
        "--game-dir",
        g,
        "--replay",
        log.to_str().unwrap(),
        "--registry",
        registry.to_str().unwrap(),
    ]);
    assert!(
        e.contains(
            "plugin set: slot ai recorded 'iron3d-ai 0.1.0 ai', here 'iron3d-null 0.1.0 null-ai'"
        ),
        "{e}"
    );

    // Another mission, and no game directory.
    let e = run_err(&[
        "run",
        "--headless",
        "--game-dir",
        g,
        "--mission",
        "DEMO2",
        "--replay",
        log.to_str().unwrap(),
    ]);
    assert!(
        e.contains("the log is of mission 'DEMO1', this run asks for 'DEMO2'"),
        "{e}"
    );
    let e = run_err(&["run", "--headless", "--replay", log.to_str().unwrap()]);
    assert!(e.contains("needs --game-dir"), "{e}");
}

/// The value of `key=` in the run's output.
fn field(out: &str, key: &str) -> i64 {
    out.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{key}=")))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key}= in:\n{out}"))
}

#[test]
fn the_scenario_plays_from_plugins_only_collisions_life_and_spawns() {
    let out = run_ok(&["run", "--headless", "--ticks", "600", "--objects", "200"]);
    assert!(
        out.contains("registry=") && out.contains("scenario.ini"),
        "{out}"
    );
    assert!(
        out.contains("plugin slot=control iron3d-scenario") && out.contains(" arena ("),
        "the gameplay is the control slot's plugin:\n{out}"
    );
    let (start, end) = (field(&out, "objects_start"), field(&out, "objects_end"));
    let deleted = field(&out, "deferred_deletes");
    let messages = field(&out, "messages");
    assert!(messages > 0, "collisions are sent on the bus");
    assert!(
        deleted > 0,
        "collisions cost life; at zero objects delete themselves"
    );
    assert!(
        end - start + deleted > 0,
        "scripted spawn commands create objects"
    );
    assert_eq!(field(&out, "system_faults"), 0);
    // The plugin-driven scenario is deterministic: same seed, same hash.
    let quiet = run_ok(&[
        "run",
        "--headless",
        "--ticks",
        "600",
        "--objects",
        "200",
        "--seed",
        "3",
    ]);
    assert_eq!(
        last_state_hash(&quiet),
        last_state_hash(&run_ok(&[
            "run",
            "--headless",
            "--ticks",
            "600",
            "--objects",
            "200",
            "--seed",
            "3",
        ]))
    );
}
