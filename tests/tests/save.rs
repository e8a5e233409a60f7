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
}

/// PD-REPLAY-FROM-SAVE: a run loaded from a save and recorded gives a log that goes on
/// from that save; replayed from the same save it matches every checkpoint and the end
/// (which is the uninterrupted run's); without the save, or from another one, it is
/// refused before anything runs.
#[test]
fn a_recording_made_from_a_save_replays_from_that_save_only() {
    let dir = tempfile::tempdir().unwrap();
    let (at100, at130) = (dir.path().join("t100.sav"), dir.path().join("t130.sav"));
    let saves = [
        format!("--save-at=100:{}", at100.display()),
        format!("--save-at=130:{}", at130.display()),
    ];
    let end = last_state_hash(&battle(&["--ticks", "400", &saves[0], &saves[1]]));
    let log = dir.path().join("from100.jsonl");
    let log_s = log.to_str().unwrap();
    let out = load(
        &at100,
        "300",
        &["--record", log_s, "--checkpoint-every", "30"],
    );
    assert_eq!(
        last_state_hash(&out),
        end,
        "the loaded run goes on as the full one"
    );
    let header: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["start"]["tick"], 100, "{header}");
    let g = game();
    let replay = |save: &Path| {
        vec![
            "run".to_owned(),
            "--headless".to_owned(),
            "--game-dir".to_owned(),
            g.clone(),
            "--replay".to_owned(),
            log_s.to_owned(),
            "--load".to_owned(),
            save.to_str().unwrap().to_owned(),
        ]
    };
    let args = replay(&at100);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_ok(&refs);
    // Checkpoints at 120, 150, …, 390 (the multiples of 30 after tick 100): 10.
    assert!(out.contains("replay: 10 checkpoints match"), "{out}");
    assert_eq!(last_state_hash(&out), end);
    // From another save: refused, naming both.
    let args = replay(&at130);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let e = refused(&refs);
    assert!(
        e.contains("another save (tick 100") && e.contains("tick 130"),
        "{e}"
    );
    // Without a save: refused, saying what to pass.
    let e = refused(&["run", "--headless", "--game-dir", &g, "--replay", log_s]);
    assert!(e.contains("pass that save with --load"), "{e}");
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
    assert_eq!(
        slots,
        ["terrain", "ai", "control", "input"],
        "the simulation slots: not the net slot (PD-NET-ROLE)"
    );
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

mod save_set {
    //! Tome VIII's minimum save set, S0–S9, on the demo battle with the registry's real
    //! plugins through the session API, driven frame by frame on a manual clock as
    //! `run --headless` drives it (one tick a frame at normal speed): each state is
    //! saved, written and read back as bytes, loaded into a fresh session (same hash,
    //! same tick, the same effects, the same outcome), and the next 300 frames hash
    //! exactly as the uninterrupted run's.

    use iron3d_e2e::plugins::library_dir;
    use iron3d_kernel::{InputSource, ManualTimeSource, StateHash};
    use iron3d_launcher::scenario::ScriptedInput;
    use iron3d_plugin_host::SearchPaths;
    use iron3d_registry::{Dialect, Registry};
    use iron3d_session::save::SaveIdentity;
    use iron3d_session::{MissionSpec, Session, SessionSpec};
    use std::path::Path;
    use std::time::Duration;

    /// Frames compared after each load.
    const AFTER: u64 = 300;

    struct Driven {
        session: Session,
        clock: ManualTimeSource,
        /// `run --headless`'s input script (the battle's outcome depends on it).
        script: ScriptedInput,
    }

    impl Driven {
        fn open(game: &Path, shadow: &Path) -> Self {
            let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/plugins.ini");
            let registry = Registry::parse(
                &std::fs::read(config).unwrap(),
                "plugins.ini",
                Dialect::PluginsIni,
            )
            .unwrap();
            let spec = SessionSpec {
                seed: 1,
                tick_hz: 30,
                publish_snapshots: false,
                registry,
                search_paths: SearchPaths::new(vec![library_dir(), library_dir().join("..")]),
                shadow_dir: shadow.to_owned(),
                debounce: Duration::from_millis(50),
                services: Vec::new(),
                strict_plugins: true,
            };
            let mission = MissionSpec::Game {
                game_dir: game.to_owned(),
                mission: iron3d_demo::BATTLE.to_owned(),
                mode: iron3d_vfs::ReadMode::Strict,
                relax_mesh_tag: false,
                parameters: Default::default(),
                overlays: Vec::new(),
            };
            let clock = ManualTimeSource::new();
            let session = Session::open(&spec, mission, Box::new(clock.clone())).unwrap();
            Self {
                session,
                clock,
                script: ScriptedInput::new(1),
            }
        }

        /// After a load: the script where the saved run's was (one draw set a tick).
        fn resume_script(&mut self) {
            for t in 1..=self.session.kernel.tick() {
                self.script.events_for_tick(t);
            }
        }

        /// One frame of one tick's length of platform time.
        fn frame(&mut self) {
            let step = 1_000_000_000 / u64::from(self.session.kernel.config().tick_hz);
            self.clock.advance_ns(step);
            self.session.kernel.frame(&mut self.script, None).unwrap();
        }

        fn blob(&self, system: &str) -> Vec<u8> {
            self.session
                .kernel
                .system_states()
                .into_iter()
                .find(|(n, _)| n == system)
                .map(|(_, b)| b.unwrap().bytes)
                .unwrap()
        }
    }

    /// What the run does to the state just before saving.
    type Change = fn(&mut Session);

    fn nothing(_: &mut Session) {}

    /// S2: one object's position changed (a vehicle moved 5 units east).
    fn move_one(s: &mut Session) {
        let w = s.kernel.world_mut().unwrap();
        let h = w.iter_registered().map(|(h, _)| h).nth(3).unwrap();
        w.get_mut(h).unwrap().transform.position.x += 5.0;
    }

    /// S3: one health/property changed.
    fn hurt_one(s: &mut Session) {
        let w = s.kernel.world_mut().unwrap();
        let h = w
            .iter_registered()
            .find(|(_, o)| !o.props.is_empty())
            .map(|(h, _)| h)
            .unwrap();
        let o = w.get_mut(h).unwrap();
        o.props.push("Life state", [0, 1, 0, 0]);
        o.behaviour_state ^= 1;
    }

    /// S9: a non-default game time (half speed: a tick every other frame).
    fn half_speed(s: &mut Session) {
        s.kernel.set_time_scale(1, 2).unwrap();
    }

    /// S9: paused (frames run no tick).
    fn pause(s: &mut Session) {
        s.kernel.pause();
    }

    #[test]
    fn s0_to_s9_load_to_the_saved_hash_and_go_on_as_the_uninterrupted_run() {
        let game = super::game();
        let game = Path::new(&game);
        let shadow = tempfile::tempdir().unwrap();
        let identity = SaveIdentity {
            engine: "test".into(),
            data: "d".into(),
            mods: "m".into(),
        };
        // The battle's decision with the changes of S2 and S3 made (a first pass: S8 is
        // saved either side of it).
        let decision = {
            let mut probe = Driven::open(game, shadow.path());
            let mut f = 0u64;
            while probe.session.host.mission_outcome().is_none() && f < 20_000 {
                if f == 30 {
                    move_one(&mut probe.session);
                }
                if f == 45 {
                    hurt_one(&mut probe.session);
                }
                probe.frame();
                f += 1;
            }
            let o = probe.session.host.mission_outcome();
            probe.session.shutdown();
            o.expect("the battle is decided within 20,000 ticks").tick
        };
        // S6 (a script variable) has no counterpart: the engine runs no mission scripts.
        // S4 (orders and paths), S5 (effects and the sky's lightning timer in the storm)
        // and S7 (the AI's economy) are what the battle is doing at those frames; S8 is
        // either side of the battle's decision.
        assert!(decision > 6_000, "decided at {decision}");
        let cases: [(&str, u64, Change); 10] = [
            ("S0 right after start", 0, nothing),
            ("S1 one frame in", 1, nothing),
            ("S2 a position changed", 30, move_one),
            ("S3 a property changed", 45, hurt_one),
            ("S4 orders and paths active", 150, nothing),
            ("S5 effects and a timer active", 4_000, nothing),
            ("S7 economy changed", 6_000, nothing),
            ("S8 before completion", decision - 1, nothing),
            (
                "S8/S9 after completion, half speed",
                decision + 1,
                half_speed,
            ),
            ("S9 paused", decision + 400, pause),
        ];
        let last = cases.iter().map(|c| c.1).max().unwrap() + AFTER;
        let mut reference = Driven::open(game, shadow.path());
        let mut hashes: Vec<StateHash> = Vec::new();
        let mut saves = Vec::new();
        for f in 0..=last {
            if let Some(&(name, _, change)) = cases.iter().find(|c| c.1 == f) {
                change(&mut reference.session);
                let bytes = reference
                    .session
                    .save_file(&identity)
                    .unwrap()
                    .to_bytes()
                    .unwrap();
                saves.push((
                    name,
                    f,
                    reference.session.kernel.tick(),
                    bytes,
                    reference.blob("plugin:effects"),
                    reference.session.host.mission_outcome(),
                ));
            }
            hashes.push(reference.session.kernel.state_hash());
            if f < last {
                reference.frame();
            }
        }
        let decided = reference.session.host.mission_outcome().map(|o| o.tick);
        assert_eq!(decided, Some(decision), "the same battle");
        reference.session.shutdown();
        for (name, f, tick, bytes, effects, outcome) in saves {
            let save = iron3d_save::SaveFile::parse(&bytes).unwrap();
            let shadow = tempfile::tempdir().unwrap();
            let mut s = Driven::open(game, shadow.path());
            s.session
                .restore_save(&save, &identity)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            s.resume_script();
            assert_eq!(s.session.kernel.state_hash(), hashes[f as usize], "{name}");
            assert_eq!(s.session.kernel.tick(), tick, "{name}");
            assert_eq!(
                s.blob("plugin:effects"),
                effects,
                "{name}: the effects go on"
            );
            assert_eq!(
                s.session.host.mission_outcome(),
                outcome,
                "{name}: decided stays decided"
            );
            for k in 1..=AFTER {
                s.frame();
                // The run's later changes, made at the same frames as in the reference.
                if let Some(&(_, _, change)) = cases.iter().find(|c| c.1 == f + k) {
                    change(&mut s.session);
                }
                assert_eq!(
                    s.session.kernel.state_hash(),
                    hashes[(f + k) as usize],
                    "{name}: {k} frames after the load"
                );
            }
            s.session.shutdown();
        }
    }
}

/// `play`'s quick save (F5, `game.quick_save`) and quick load (F9): the save goes into
/// the save folder with its slot in `saveslots.cfg`, a load returns to it in the running
/// session, and the game then goes on as a session that never loaded; a damaged quick
/// save is refused and changes nothing; `play --load` starts from a save.
#[test]
fn play_quick_saves_and_loads_in_the_running_session() {
    use iron3d_launcher::play::{PlayOptions, PlaySession, Renderer};
    let saves = tempfile::tempdir().unwrap();
    let opts = PlayOptions {
        renderer: Some(Renderer::Capture),
        seed: 1,
        save_dir: Some(saves.path().to_owned()),
        ..PlayOptions::new(iron3d_e2e::render::demo(), iron3d_demo::BATTLE)
    };
    let ns = 1_000_000_000 / 30;
    let frames = |s: &mut PlaySession, from: u64, n: u64| {
        for f in from..from + n {
            s.frame(f * ns).unwrap();
        }
    };
    // The reference: 240 frames straight.
    let mut reference = PlaySession::start(&opts, &mut Vec::new()).unwrap();
    frames(&mut reference, 1, 240);
    let end = reference.run.kernel.state_hash();
    let end_tick = reference.run.kernel.tick();
    reference.shutdown();
    // Save at frame 120, play on to 240, load (back to 120), play 120 more.
    let mut s = PlaySession::start(&opts, &mut Vec::new()).unwrap();
    frames(&mut s, 1, 120);
    let (file, header) = s.quick_save().unwrap();
    let (saved, saved_tick) = (s.run.kernel.state_hash(), s.run.kernel.tick());
    assert_eq!(file, saves.path().join("quick.sav"));
    assert_eq!(
        (header.tick, header.state_hash.clone()),
        (saved_tick, saved.to_string())
    );
    frames(&mut s, 121, 120);
    assert_ne!(s.run.kernel.state_hash(), saved);
    assert_eq!(s.quick_load().unwrap(), saved_tick);
    assert_eq!(s.run.kernel.state_hash(), saved);
    assert_eq!(s.run.kernel.tick(), saved_tick);
    frames(&mut s, 241, 120);
    assert_eq!(s.run.kernel.tick(), end_tick);
    assert_eq!(s.run.kernel.state_hash(), end, "as if it never loaded");
    // The slot list names the quick slot, and its file is the save it describes.
    let list = run_ok(&["save", "slots", "--dir", saves.path().to_str().unwrap()]);
    assert!(
        list.contains(&format!(
            "slot quick ready mission=BATTLE tick={saved_tick}"
        )),
        "{list}"
    );
    // A damaged quick save is refused; the game is where it was.
    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0x10;
    std::fs::write(&file, &bytes).unwrap();
    let before = s.run.kernel.state_hash();
    let e = format!("{:#}", s.quick_load().unwrap_err());
    assert!(e.contains("checksum mismatch"), "{e}");
    assert_eq!(s.run.kernel.state_hash(), before);
    assert!(
        run_ok(&["save", "slots", "--dir", saves.path().to_str().unwrap()])
            .contains("slot quick damaged"),
    );
    s.shutdown();
    // `play --load`: a headless save of the battle plays on from its tick.
    let headless = saves.path().join("h.sav");
    battle(&["--ticks", "90", "--save", headless.to_str().unwrap()]);
    let out = run_ok(&[
        "play",
        "--offscreen",
        "--renderer",
        "capture",
        "--game-dir",
        &game(),
        "--load",
        headless.to_str().unwrap(),
        "--frames",
        "30",
    ]);
    assert!(out.contains("loaded tick=90"), "{out}");
    // `play --load --record` (PD-REPLAY-FROM-SAVE): the played log replays headless from
    // the same save to the played end.
    let log = saves.path().join("played-from-save.jsonl");
    let played = run_ok(&[
        "play",
        "--offscreen",
        "--renderer",
        "capture",
        "--game-dir",
        &game(),
        "--load",
        headless.to_str().unwrap(),
        "--frames",
        "30",
        "--record",
        log.to_str().unwrap(),
        "--checkpoint-every",
        "10",
    ]);
    let replayed = run_ok(&[
        "run",
        "--headless",
        "--game-dir",
        &game(),
        "--replay",
        log.to_str().unwrap(),
        "--load",
        headless.to_str().unwrap(),
    ]);
    assert!(
        replayed.contains("replay: 3 checkpoints match"),
        "{replayed}"
    );
    assert_eq!(last_state_hash(&replayed), last_state_hash(&played));
}

/// PD-SAVE-AUTOSAVE: `play` saves itself every `[saves] autosave_minutes` of game time
/// into `auto1` … `autoN` in turn, each recorded in the slot list.
#[test]
fn play_autosaves_rotate_through_their_slots() {
    use iron3d_config::settings::{Saves, Settings};
    use iron3d_launcher::play::{PlayOptions, PlaySession, Renderer};
    let saves = tempfile::tempdir().unwrap();
    let opts = PlayOptions {
        renderer: Some(Renderer::Capture),
        seed: 1,
        save_dir: Some(saves.path().to_owned()),
        settings: Settings {
            saves: Saves {
                autosave_minutes: 1,
                autosave_slots: 2,
            },
            ..Settings::default()
        },
        ..PlayOptions::new(iron3d_e2e::render::demo(), iron3d_demo::BATTLE)
    };
    let mut s = PlaySession::start(&opts, &mut Vec::new()).unwrap();
    let ns = 1_000_000_000 / 30;
    let mut said = Vec::new();
    for f in 1..=5_450u64 {
        s.frame(f * ns).unwrap();
        s.write_notes(&mut said).unwrap();
    }
    s.shutdown();
    let said = String::from_utf8(said).unwrap();
    // (tick, slot) of each autosave: a minute of game time apart (1,800 ticks at 30 Hz;
    // a frame's 33,333,333 ns make a minute a tick or two later), the slots in turn.
    let made: Vec<(u64, String)> = said
        .lines()
        .filter_map(|l| l.strip_prefix("autosaved tick="))
        .map(|l| {
            let (t, slot) = l.split_once(" slot=").unwrap();
            (t.parse().unwrap(), slot.to_owned())
        })
        .collect();
    let slots: Vec<&str> = made.iter().map(|m| m.1.as_str()).collect();
    assert_eq!(slots, ["auto1", "auto2", "auto1"], "{said}");
    let mut last = 0;
    for (t, _) in &made {
        assert!((1_800..=1_805).contains(&(t - last)), "{said}");
        last = *t;
    }
    let list = run_ok(&["save", "slots", "--dir", saves.path().to_str().unwrap()]);
    for (t, slot) in &made[1..] {
        assert!(
            list.contains(&format!("slot {slot} ready mission=BATTLE tick={t}")),
            "{list}"
        );
    }
}

/// `--save` saves at the tick the run stopped at, the decision included; a save asked
/// for a later tick says it was not made; the decided save loads decided and runs on no
/// further (as the saved run did not).
#[test]
fn a_decided_battle_saves_at_its_decision_and_loads_decided() {
    let dir = tempfile::tempdir().unwrap();
    let (end, never) = (dir.path().join("end.sav"), dir.path().join("never.sav"));
    let at = format!("--save-at=19000:{}", never.display());
    let out = battle(&["--ticks", "20000", "--save", end.to_str().unwrap(), &at]);
    let decided = out
        .lines()
        .find(|l| l.starts_with("outcome="))
        .unwrap_or_else(|| panic!("undecided:\n{out}"))
        .to_owned();
    let tick: u64 = decided
        .split("tick=")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        out.contains(&format!("not saved: {}", never.display())),
        "{out}"
    );
    assert!(!never.exists());
    assert_eq!(saved_hash(&out, &end), last_state_hash(&out));
    let resumed = load(&end, "500", &[]);
    assert!(resumed.contains(&decided), "{resumed}");
    assert!(
        resumed.contains(&format!("ticks={tick} frames=0")),
        "{resumed}"
    );
    assert_eq!(last_state_hash(&resumed), last_state_hash(&out));
}
