//! The session layer: two missions one after the other in one process (headless through
//! `iron3d_session::Session`, and `iron3d play --offscreen`): the second runs and draws
//! exactly as it does alone, nothing of the first leaks (objects, services, render data).

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::iron3d;
use iron3d_e2e::plugins::library_dir;
use iron3d_kernel::ManualTimeSource;
use iron3d_plugin_host::SearchPaths;
use iron3d_registry::{Dialect, Registry};
use iron3d_session::{MissionSpec, Session, SessionSpec};
use iron3d_vfs::ReadMode;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

fn spec(shadow: &Path) -> SessionSpec {
    let registry = Registry::parse(
        b"terrain iron3d_terrain terrain\nai iron3d_test_counter counter-terrain\n",
        "session.ini",
        Dialect::PluginsIni,
    )
    .unwrap();
    SessionSpec {
        seed: 3,
        tick_hz: 30,
        publish_snapshots: false,
        registry,
        search_paths: SearchPaths::new(vec![library_dir(), library_dir().join("..")]),
        shadow_dir: shadow.to_owned(),
        debounce: Duration::from_millis(50),
        services: Vec::new(),
        strict_plugins: false,
    }
}

fn game(dir: &Path, mission: &str) -> MissionSpec {
    MissionSpec::Game {
        game_dir: dir.to_owned(),
        mission: mission.to_owned(),
        mode: ReadMode::Strict,
        relax_mesh_tag: false,
        parameters: Default::default(),
        overlays: Vec::new(),
    }
}

/// Every object's behaviour state after one tick (the counter-terrain plugin writes the
/// bits of the terrain height under the object, asked through the terrain service).
fn one_tick(session: &mut Session) -> Vec<(u32, u32, glam::Vec3)> {
    session.kernel.step(&[]).unwrap();
    session
        .kernel
        .world()
        .iter_registered()
        .map(|(_, o)| (o.id.raw(), o.behaviour_state, o.transform.position))
        .collect()
}

#[test]
fn a_second_mission_in_the_same_process_runs_as_it_does_alone() {
    let dir = tempfile::tempdir().unwrap();
    iron3d_demo::build(dir.path(), 3, iron3d_demo::Profile::Demo).unwrap();
    let shadow = tempfile::tempdir().unwrap();
    let spec = spec(shadow.path());

    let mut alone = Session::open(
        &spec,
        game(dir.path(), "DEMO2"),
        Box::new(ManualTimeSource::new()),
    )
    .unwrap();
    let expected = one_tick(&mut alone);
    let alone_hash = alone.kernel.state_hash();
    alone.shutdown();

    let mut first = Session::open(
        &spec,
        game(dir.path(), "DEMO1"),
        Box::new(ManualTimeSource::new()),
    )
    .unwrap();
    let first_objects = one_tick(&mut first).len();
    let report = first.shutdown();
    assert_eq!(
        report.released_objects, first_objects,
        "the first mission's objects are released"
    );

    let mut second = Session::open(
        &spec,
        game(dir.path(), "DEMO2"),
        Box::new(ManualTimeSource::new()),
    )
    .unwrap();
    let got = one_tick(&mut second);
    assert_ne!(first_objects, got.len(), "DEMO1 and DEMO2 differ in size");
    assert_eq!(got, expected, "same objects, same terrain answers as alone");
    assert_eq!(second.kernel.state_hash(), alone_hash);
    // The terrain service answered from DEMO2's map, not DEMO1's.
    let terrain = iron3d_terrain::World::load(dir.path().join("MISSIONS/DEMO2").to_str().unwrap())
        .unwrap()
        .unwrap();
    let (_, bits, p) = got[0];
    let ground = terrain.surface.height_at(p.x, p.y).unwrap_or(-1.0);
    assert_eq!(f32::from_bits(bits), ground);
    second.shutdown();
}

fn capture(game: &str, mission: &str, shot: &Path) -> String {
    let (code, out) = iron3d(&[
        "play",
        "--game-dir",
        game,
        "--mission",
        mission,
        "--offscreen",
        "--renderer",
        "capture",
        "--frames",
        "3",
        "--width",
        "64",
        "--height",
        "48",
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    std::fs::read_to_string(shot).unwrap()
}

#[test]
fn play_draws_a_second_mission_as_it_draws_it_alone() {
    let dir = tempfile::tempdir().unwrap();
    iron3d_demo::build(dir.path(), 3, iron3d_demo::Profile::Demo).unwrap();
    let g = dir.path().to_str().unwrap();
    let shot = dir.path().join("shot.json");
    let alone = capture(g, "DEMO2", &shot);
    let first = capture(g, "DEMO1", &shot);
    let again = capture(g, "DEMO2", &shot);
    assert_ne!(first, alone);
    assert_eq!(again, alone, "nothing of DEMO1 is drawn in DEMO2");
}

#[test]
fn an_interactive_renderer_switch_is_prepared_off_the_frame_loop() {
    use iron3d_launcher::play::{PlayOptions, PlaySession, Renderer};
    let dir = tempfile::tempdir().unwrap();
    iron3d_demo::build(dir.path(), 3, iron3d_demo::Profile::Demo).unwrap();
    let opts = PlayOptions {
        renderer: Some(Renderer::Soft),
        width: 64,
        height: 48,
        seed: 3,
        hud: false,
        ..PlayOptions::new(dir.path(), "DEMO1")
    };
    let mut out = Vec::new();
    let mut s = PlaySession::start(&opts, &mut out).unwrap();
    s.switch_async(Renderer::Capture).unwrap();
    let mut frames = 0u64;
    let done = loop {
        frames += 1;
        s.frame(frames * 33_333_333).unwrap();
        if let Some(done) = s.poll_switch(&mut out).unwrap() {
            break done;
        }
        assert!(frames < 10_000, "the preparation never finished");
    };
    assert!(done, "{}", String::from_utf8_lossy(&out));
    s.run.host.request_capture(s.capture_kind());
    frames += 1;
    s.frame(frames * 33_333_333).unwrap();
    assert!(
        s.renderer_label().contains("render-capture"),
        "{}",
        s.renderer_label()
    );
    assert!(matches!(
        s.take_capture().unwrap(),
        iron3d_plugin_host::Capture::Commands(_)
    ));
    assert!(
        frames >= 2,
        "frames went on while the renderer was prepared"
    );
    s.shutdown();
}

#[test]
fn the_renderer_is_chosen_by_plugin_name_from_the_command_line_or_the_registry() {
    let dir = tempfile::tempdir().unwrap();
    iron3d_demo::build(dir.path(), 3, iron3d_demo::Profile::Demo).unwrap();
    let g = dir.path().to_str().unwrap();
    let play = |extra: &[&str], shot: &Path| -> String {
        let mut args = vec![
            "play",
            "--game-dir",
            g,
            "--mission",
            "DEMO1",
            "--offscreen",
            "--frames",
            "2",
            "--width",
            "32",
            "--height",
            "24",
            "--screenshot",
            shot.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let (code, out) = iron3d(&args);
        assert_eq!(code, ExitCode::SUCCESS, "{out}");
        out
    };
    // Any render plugin by LIBRARY:FACTORY draws like the built-in name.
    let (named, by_lib) = (dir.path().join("named.png"), dir.path().join("lib.png"));
    play(&["--renderer", "soft"], &named);
    let out = play(&["--renderer", "iron3d_render_soft:render-soft"], &by_lib);
    assert!(out.contains("renderer=soft "), "{out}");
    assert_eq!(
        std::fs::read(&named).unwrap(),
        std::fs::read(&by_lib).unwrap()
    );
    // A renderer of a mod, by path (here a copy of the software renderer's library).
    let modded = dir.path().join("libmy_renderer.so");
    std::fs::copy(iron3d_e2e::plugins::library("iron3d_render_soft"), &modded).unwrap();
    let by_path = dir.path().join("path.png");
    let out = play(&["--renderer", modded.to_str().unwrap()], &by_path);
    assert!(out.contains("libmy_renderer.so"), "{out}");
    assert_eq!(
        std::fs::read(&named).unwrap(),
        std::fs::read(&by_path).unwrap()
    );
    // Without --renderer, the registry's render slot decides.
    let registry = dir.path().join("plugins.ini");
    std::fs::write(
        &registry,
        "terrain iron3d_terrain terrain\nrender iron3d_render_capture render-capture\n",
    )
    .unwrap();
    let json = dir.path().join("frame.json");
    let out = play(&["--registry", registry.to_str().unwrap()], &json);
    assert!(out.contains("(capture JSON)"), "{out}");
    assert!(
        std::fs::read_to_string(&json)
            .unwrap()
            .contains("\"items\"")
    );
    // A renderer that cannot be had says why and the software renderer takes over.
    let out = play(&["--renderer", "no_such_renderer"], &named);
    assert!(
        out.contains("renderer no_such_renderer: not available"),
        "{out}"
    );
    assert!(
        out.contains("falling back to the software renderer"),
        "{out}"
    );
}
