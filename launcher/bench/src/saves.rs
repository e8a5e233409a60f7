//! `iron3d-bench` save figures (issue 39): save and load of the demo battle and of the
//! 10,000-object stress mission with the real simulation plugins (terrain, AI, control,
//! effects) after some ticks on the manual clock — bytes of the save, milliseconds to
//! save (state, encoding, checksums, the atomic write) and to load (read, check,
//! restore into a session opened on the mission, the hash compared), and the session
//! opening a load needs first. Targets: save ≤ 50 ms, load ≤ 100 ms. Build the plugins
//! beside the driver first (`cargo build --release -p iron3d-bench -p iron3d-ai
//! -p iron3d-control -p iron3d-effects -p iron3d-terrain -p iron3d-null`); a missing one
//! runs its slot's null plugin and is counted in `fallbacks=`.

use anyhow::Context;
use iron3d_demo::Profile;
use iron3d_kernel::ManualTimeSource;
use iron3d_launcher::plugins;
use iron3d_registry::{Dialect, Registry};
use iron3d_session::save::SaveIdentity;
use iron3d_session::{MissionSpec, Session};
use std::io::Write;
use std::time::Instant;

/// The registry of the figures: the simulation plugins of `config/plugins.ini`, null
/// presentation.
const REGISTRY: &str = "terrain iron3d_terrain terrain\nai iron3d_ai ai\n\
control iron3d_control control\neffects iron3d_effects effects\naudio iron3d_null null-audio\n\
render iron3d_null null-render\nnet iron3d_null null-net\ninput iron3d_null null-input\n";

/// Target: milliseconds to save.
pub const TARGET_SAVE_MS: f64 = 50.0;
/// Target: milliseconds to load.
pub const TARGET_LOAD_MS: f64 = 100.0;

#[allow(
    clippy::disallowed_methods,
    reason = "benchmarks measure wall-clock time"
)]
fn now() -> Instant {
    Instant::now()
}

fn open(game: &std::path::Path, mission: &str) -> anyhow::Result<(Session, ManualTimeSource)> {
    let registry = Registry::parse(REGISTRY.as_bytes(), "bench-saves.ini", Dialect::PluginsIni)?;
    let spec = plugins::session_spec(&[], registry, 7, 30, false);
    let clock = ManualTimeSource::new();
    let s = Session::open(
        &spec,
        MissionSpec::Game {
            game_dir: game.to_path_buf(),
            mission: mission.into(),
            mode: iron3d_vfs::ReadMode::Strict,
            relax_mesh_tag: false,
            parameters: Default::default(),
            overlays: Vec::new(),
        },
        Box::new(clock.clone()),
    )
    .with_context(|| format!("bench saves: session on {mission}"))?;
    Ok((s, clock))
}

/// Prints one `bench save` line per mission.
pub fn run(out: &mut dyn Write) -> anyhow::Result<()> {
    let tmp = tempfile::tempdir()?;
    let identity = SaveIdentity {
        engine: "bench".into(),
        data: "d".into(),
        mods: "m".into(),
    };
    for (label, profile, mission, ticks) in [
        ("battle", Profile::Demo, iron3d_demo::BATTLE, 900u64),
        ("stress", Profile::Stress, "STRESS", 30),
    ] {
        let dir = tmp.path().join(label);
        iron3d_demo::build(&dir, 7, profile)?;
        let (mut s, clock) = open(&dir, mission)?;
        let fallbacks = s.host.fallbacks().len();
        for f in 1..=ticks {
            clock.set_ns(f * 1_000_000_000 / 30);
            s.kernel.frame(&mut iron3d_kernel::NoInput, None)?;
        }
        let objects = s.kernel.world().registered_count();
        let file = tmp.path().join(format!("{label}.sav"));
        let t = now();
        let save = s.save_file(&identity)?;
        iron3d_save::write_atomic(&file, &save)?;
        let save_ms = t.elapsed().as_secs_f64() * 1e3;
        let bytes = std::fs::metadata(&file)?.len();
        let hash = s.kernel.state_hash();
        s.shutdown();

        let t = now();
        let (mut loaded, _) = open(&dir, mission)?;
        let open_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = now();
        let read = iron3d_save::read(&file)?;
        loaded.restore_save(&read, &identity)?;
        let load_ms = t.elapsed().as_secs_f64() * 1e3;
        anyhow::ensure!(
            loaded.kernel.state_hash() == hash,
            "bench saves: {label}: the loaded state differs"
        );
        loaded.shutdown();
        writeln!(
            out,
            "bench save mission={label} objects={objects} ticks={ticks} bytes={bytes} save_ms={save_ms:.2} load_ms={load_ms:.2} open_ms={open_ms:.1} target_save_ms={TARGET_SAVE_MS} target_load_ms={TARGET_LOAD_MS} met={} fallbacks={fallbacks}",
            save_ms <= TARGET_SAVE_MS && load_ms <= TARGET_LOAD_MS
        )?;
    }
    Ok(())
}
