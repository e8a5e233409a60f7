//! Save games end to end (issue 39, PD-SAVE-*): `run --headless --save-at/--save`, then
//! `--load` goes on to the same state hash and the same trace as the run that was never
//! interrupted — the demo battle with the registry's real plugins, and the built-in
//! scenario — and every refusal names the difference and runs nothing.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::{last_state_hash, run_ok};
use std::path::Path;

fn game() -> String {
    iron3d_e2e::render::demo().to_str().unwrap().to_owned()
}

/// `iron3d ARGS` expected to fail: the error with its whole cause chain.
fn refused(args: &[&str]) -> String {
    let argv = std::iter::once("iron3d").chain(args.iter().copied());
    match iron3d_launcher::try_main_with_args(argv, &mut Vec::new()) {
        Ok(code) => panic!("iron3d {args:?} ran ({code:?})"),
        Err(e) => format!("{e:#}"),
    }
}

fn battle(extra: &[&str]) -> String {
    let g = game();
    let mut args = vec![
        "run",
        "--headless",
        "--game-dir",
        g.as_str(),
        "--mission",
        iron3d_demo::BATTLE,
        "--seed",
        "1",
    ];
    args.extend_from_slice(extra);
    run_ok(&args)
}

fn load(save: &Path, ticks: &str, extra: &[&str]) -> String {
    let g = game();
    let mut args = vec![
        "run",
        "--headless",
        "--game-dir",
        g.as_str(),
        "--load",
        save.to_str().unwrap(),
        "--ticks",
        ticks,
    ];
    args.extend_from_slice(extra);
    run_ok(&args)
}

fn saved_hash(out: &str, file: &Path) -> String {
    let line = out
        .lines()
        .find(|l| l.starts_with("saved ") && l.ends_with(&format!("file={}", file.display())))
        .unwrap_or_else(|| panic!("no save line for {}:\n{out}", file.display()));
    line.split("state_hash=")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .to_owned()
}

/// The trace's lines after tick `after`, as text (a loaded run's trace starts at the
/// saved tick; from the next tick on it is the uninterrupted run's, byte for byte).
fn trace_after(trace: &Path, after: u64) -> Vec<String> {
    std::fs::read_to_string(trace)
        .unwrap()
        .lines()
        .filter(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["tick"].as_u64().is_some_and(|t| t > after)
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_battle_saved_at_any_tick_loads_and_goes_on_exactly_as_if_never_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let at = |t: u64| dir.path().join(format!("t{t}.sav"));
    let full_trace = dir.path().join("full.jsonl");
    // The uninterrupted run, saving on its way: right after the start (S0), early, in
    // the fight (the battle's first kills are around tick 300) and at its end.
    let ticks = [0u64, 1, 150, 420];
    let mut args: Vec<String> = ticks
        .iter()
        .map(|t| format!("--save-at={t}:{}", at(*t).display()))
        .collect();
    args.extend(["--ticks".into(), "600".into()]);
    args.extend(["--trace".into(), full_trace.display().to_string()]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = battle(&refs);
    let end = last_state_hash(&out);
    // The same run without saves ends the same: saving changes nothing.
    assert_eq!(last_state_hash(&battle(&["--ticks", "600"])), end);
    for t in ticks {
        let file = at(t);
        let header = saved_hash(&out, &file);
        // S1: loaded with no step, the state is the one saved.
        assert_eq!(last_state_hash(&load(&file, "0", &[])), header, "tick {t}");
        // Then on to the same end, with the same trace from the next tick on.
        let trace = dir.path().join(format!("from{t}.jsonl"));
        let rest = (600 - t).to_string();
        let resumed = load(&file, &rest, &["--trace", trace.to_str().unwrap()]);
        assert!(
            resumed.contains(&format!("loaded tick={t} state_hash={header}")),
            "{resumed}"
        );
        assert_eq!(last_state_hash(&resumed), end, "loaded at tick {t}");
        let (a, b) = (trace_after(&full_trace, t), trace_after(&trace, t));
        assert!(!a.is_empty());
        assert!(
            a == b,
            "trace after tick {t}: {} vs {} lines",
            a.len(),
            b.len()
        );
    }
}

#[test]
fn the_scenario_saves_with_its_parameters_and_script_position() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("scenario.sav");
    let full = last_state_hash(&run_ok(&[
        "run",
        "--headless",
        "--ticks",
        "200",
        "--seed",
        "4",
        "--objects",
        "50",
    ]));
    run_ok(&[
        "run",
        "--headless",
        "--ticks",
        "90",
        "--seed",
        "4",
        "--objects",
        "50",
        "--save",
        file.to_str().unwrap(),
    ]);
    let out = run_ok(&[
        "run",
        "--headless",
        "--load",
        file.to_str().unwrap(),
        "--ticks",
        "110",
    ]);
    assert_eq!(last_state_hash(&out), full);
}

#[test]
fn refusals_name_the_difference_and_run_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("battle.sav");
    battle(&["--ticks", "60", "--save", file.to_str().unwrap()]);
    let g = game();
    let load_args = |f: &Path| {
        vec![
            "run".to_owned(),
            "--headless".into(),
            "--game-dir".into(),
            g.clone(),
            "--load".into(),
            f.display().to_string(),
            "--ticks".into(),
            "10".into(),
        ]
    };
    let refused_load = |f: &Path, extra: &[&str]| {
        let mut a = load_args(f);
        a.extend(extra.iter().map(|s| (*s).to_owned()));
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        refused(&refs)
    };
    let bytes = std::fs::read(&file).unwrap();
    // A flipped byte in the AI's section: that section is named.
    let save = iron3d_save::SaveFile::parse(&bytes).unwrap();
    let ai = save
        .sections
        .iter()
        .position(|s| s.name == "plugin:ai")
        .unwrap();
    let needle = &save.sections[ai].payload[..32];
    let at = bytes.windows(32).position(|w| w == needle).unwrap() + 20;
    let mut flipped = bytes.clone();
    flipped[at] ^= 0x04;
    let f = dir.path().join("flipped.sav");
    std::fs::write(&f, &flipped).unwrap();
    let e = refused_load(&f, &[]);
    assert!(
        e.contains(r#"PLUG "plugin:ai""#) && e.contains("checksum mismatch"),
        "{e}"
    );
    // Truncated.
    let f = dir.path().join("cut.sav");
    std::fs::write(&f, &bytes[..bytes.len() - 100]).unwrap();
    let e = refused_load(&f, &[]);
    assert!(e.contains("cut.sav"), "{e}");
    // A newer format that older readers cannot read.
    let mut newer = bytes.clone();
    newer[10..12].copy_from_slice(&9u16.to_le_bytes());
    let end = newer.len() - 32;
    let sum = blake3::hash(&newer[..end]);
    newer[end..].copy_from_slice(sum.as_bytes());
    let f = dir.path().join("newer.sav");
    std::fs::write(&f, &newer).unwrap();
    let e = refused_load(&f, &[]);
    assert!(e.contains("needs a reader of version 9"), "{e}");
    // Another plugin in a simulation slot: slot and versions named.
    let registry = dir.path().join("wanderer.ini");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/plugins.ini"),
    )
    .unwrap()
    .lines()
    .map(|l| {
        if l.starts_with("ai ") {
            "ai iron3d_ai_wanderer wanderer".to_owned()
        } else {
            l.to_owned()
        }
    })
    .collect::<Vec<_>>()
    .join("\n");
    std::fs::write(&registry, text).unwrap();
    let e = refused_load(&file, &["--registry", registry.to_str().unwrap()]);
    assert!(
        e.contains("slot ai: the save has iron3d-ai/ai")
            && e.contains("the engine runs ai-wanderer/wanderer"),
        "{e}"
    );
    // Other game data (the demo of another seed).
    let other = tempfile::tempdir().unwrap();
    iron3d_demo::build(other.path(), 2, iron3d_demo::Profile::Demo).unwrap();
    let mut a = load_args(&file);
    a[3] = other.path().display().to_string();
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    let e = refused(&refs);
    assert!(e.contains("game data differ"), "{e}");
    // Another mission asked for than the save's.
    let e = refused_load(&file, &["--mission", "DEMO1"]);
    assert!(e.contains("the save is of mission 'BATTLE'"), "{e}");
    // --load with --record: refused before anything runs.
    let e = refused_load(
        &file,
        &["--record", dir.path().join("r.log").to_str().unwrap()],
    );
    assert!(e.contains("--record"), "{e}");
}

#[test]
fn save_inspect_prints_the_checked_header() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("i.sav");
    let out = battle(&["--ticks", "30", "--save", file.to_str().unwrap()]);
    let hash = saved_hash(&out, &file);
    let json: serde_json::Value =
        serde_json::from_str(&run_ok(&["save", "inspect", file.to_str().unwrap()])).unwrap();
    assert_eq!(json["tick"], 30);
    assert_eq!(json["mission"], "BATTLE");
    assert_eq!(json["seed"], 1);
    assert_eq!(json["tick_hz"], 30);
    assert_eq!(json["state_hash"], hash.as_str());
    let slots: Vec<&str> = json["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["slot"].as_str().unwrap())
        .collect();
    assert_eq!(slots, ["terrain", "ai", "control", "net", "input"]);
    let sections: Vec<&str> = json["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(sections.contains(&"plugin:effects"), "{sections:?}");
    // A second save over it keeps the first as the backup.
    battle(&["--ticks", "31", "--save", file.to_str().unwrap()]);
    let bak = iron3d_save::backup_path(&file);
    let backup: serde_json::Value =
        serde_json::from_str(&run_ok(&["save", "inspect", bak.to_str().unwrap()])).unwrap();
    assert_eq!(backup["tick"], 30);
}
