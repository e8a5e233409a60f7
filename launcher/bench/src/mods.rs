//! `iron3d-bench` mod figures (issue 18): mission load time of the demo's BATTLE with 0,
//! 10 and 100 data-overlay mods mounted (each mod overrides one `Textures.lib` entry as a
//! loose file and carries a `Textures.lib` folder, so every entry lookup walks every
//! layer), the VFS cost per entry lookup at each depth, and the cost of discovering and
//! resolving 100 installed mods (`iron3d mods check` without plugin hashing). Ratios
//! are printed against the 0-mod run of the same process.

use iron3d_kernel::{Kernel, KernelConfig, ManualTimeSource};
use std::io::Write;
use std::time::Instant;

#[allow(
    clippy::disallowed_methods,
    reason = "benchmarks measure wall-clock time"
)]
fn now() -> Instant {
    Instant::now()
}

/// Runs the mod benchmarks and prints `bench mods_…` lines.
pub fn run(out: &mut dyn Write) -> anyhow::Result<()> {
    let tmp = tempfile::tempdir()?;
    let game = tmp.path().join("game");
    let manifest = iron3d_demo::build(&game, 7, iron3d_demo::Profile::Demo)?;
    let mission = manifest
        .missions
        .first()
        .cloned()
        .ok_or_else(|| anyhow::anyhow!("the demo has no mission"))?;
    let mods_root = tmp.path().join("mods");
    let steel = {
        let vfs = iron3d_vfs::Vfs::new(&game);
        let cache = iron3d_vfs::ArchiveCache::new(iron3d_vfs::ReadMode::Strict, 64 << 20);
        vfs.read_entry(
            &iron3d_vfs::GamePath::parse("Textures.lib")?,
            b"STEEL0",
            &cache,
        )?
    };
    let mut ids = Vec::new();
    for i in 0..100 {
        let id = format!("overlay-{i:03}");
        let dir = mods_root.join(&id);
        std::fs::create_dir_all(dir.join("data/Textures.lib"))?;
        std::fs::write(
            dir.join("mod.toml"),
            format!(
                "id = \"{id}\"\nversion = \"1.0.{i}\"\nname = \"Overlay {i}\"\nengine = \"*\"\n\
                 load_after = [{}]\n[[overlay]]\npath = \"data\"\n",
                if i > 0 {
                    format!("\"overlay-{:03}\"", i - 1)
                } else {
                    String::new()
                }
            ),
        )?;
        // Only the last layer provides the entry: every lookup walks all layers.
        if i == 99 {
            std::fs::write(dir.join("data/Textures.lib/STEEL0"), &steel)?;
        }
        ids.push(id);
    }

    let t = now();
    let discovery = iron3d_mods::discover(&mods_root);
    let resolution = discovery.resolve(&ids, &iron3d_launcher::mods::environment());
    let check_ms = t.elapsed().as_secs_f64() * 1e3;
    writeln!(
        out,
        "bench mods_check mods=100 loaded={} refused={} ms={check_ms:.2}",
        resolution.order.len(),
        resolution.refused.len()
    )?;

    let mut base_ms = None;
    let mut base_ns = None;
    for n in [0usize, 10, 100] {
        let active = iron3d_launcher::mods::ActiveMods::load(
            &mods_root,
            &ids[100 - n..],
            &iron3d_launcher::mods::environment(),
        );
        let vfs = iron3d_session::game_vfs(&game, &iron3d_launcher::mods::overlays(&active));
        let cache = iron3d_vfs::ArchiveCache::new(iron3d_vfs::ReadMode::Strict, 256 << 20);
        let data = iron3d_mission::GameData {
            vfs: &vfs,
            cache: &cache,
        };
        let mut kernel = Kernel::new(KernelConfig::default(), Box::new(ManualTimeSource::new()))?;
        let t = now();
        iron3d_mission::load_mission(&mut kernel, &data, &mission, None)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let load_ms = t.elapsed().as_secs_f64() * 1e3;
        // Cold lookups of every entry of Textures.lib (a fresh VFS: nothing memoised),
        // then warm ones (memoised).
        let archive = iron3d_vfs::GamePath::parse("Textures.lib")?;
        let names = iron3d_vfs::Vfs::new(&game).entry_names(&archive, &cache)?;
        let fresh = iron3d_session::game_vfs(&game, &iron3d_launcher::mods::overlays(&active));
        let t = now();
        for name in &names {
            std::hint::black_box(fresh.resolve_entry(&archive, name, &cache)?);
        }
        let cold_ns = t.elapsed().as_secs_f64() * 1e9 / names.len().max(1) as f64;
        let reps = 1000;
        let t = now();
        for _ in 0..reps {
            for name in &names {
                std::hint::black_box(fresh.resolve_entry(&archive, name, &cache)?);
            }
        }
        let warm_ns = t.elapsed().as_secs_f64() * 1e9 / (reps * names.len().max(1)) as f64;
        let ratio_ms = load_ms / *base_ms.get_or_insert(load_ms);
        let ratio_ns = cold_ns / *base_ns.get_or_insert(cold_ns);
        writeln!(
            out,
            "bench mods_mission_load mission={mission} overlay_mods={n} ms={load_ms:.2} over_0_mods={ratio_ms:.2} entry_lookup_cold_ns={cold_ns:.0} cold_over_0_mods={ratio_ns:.2} entry_lookup_warm_ns={warm_ns:.0}"
        )?;
    }
    Ok(())
}
