//! `iron3d-bench` embedded-default figures: time to generate each profile, to run the
//! corpus harness (with roundtrip checks) over it, to graph each mission and to load it
//! into a fresh kernel through every stage (cold archive cache and VFS), with the
//! file-system work of the load (archive mappings, canonicalisations, replacement
//! checks, VFS file checks: each about one system call or one per path component).
//! Targets (issue 13): stress mission load <= 200 ms, demo mission load <= 15 ms.

use iron3d_demo::Profile;
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

/// Runs the generator/corpus/mission-load benchmarks and prints `bench demo_…` lines.
pub fn run(out: &mut dyn Write) -> anyhow::Result<()> {
    let tmp = tempfile::tempdir()?;
    for (label, profile) in [("demo", Profile::Demo), ("stress", Profile::Stress)] {
        let dir = tmp.path().join(label);
        let t = now();
        let manifest = iron3d_demo::build(&dir, 7, profile)?;
        let gen_ms = t.elapsed().as_secs_f64() * 1e3;
        let bytes: u64 = manifest.files.iter().map(|f| f.1).sum();
        writeln!(
            out,
            "bench demo_generate profile={label} files={} bytes={bytes} ms={gen_ms:.1}",
            manifest.files.len()
        )?;

        let t = now();
        let report = iron3d_tools::corpus::report(&dir, true)?;
        let corpus_ms = t.elapsed().as_secs_f64() * 1e3;
        writeln!(
            out,
            "bench demo_corpus profile={label} files={} roundtrip=yes ms={corpus_ms:.1}",
            report["files"]
        )?;

        for name in &manifest.missions {
            let vfs = iron3d_vfs::Vfs::new(&dir);
            let cache = iron3d_vfs::ArchiveCache::new(iron3d_vfs::ReadMode::Strict, 256 << 20);
            let data = iron3d_mission::GameData {
                vfs: &vfs,
                cache: &cache,
            };
            let t = now();
            let mref = iron3d_mission::MissionRef::locate(&vfs, name)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            let tma = iron3d_tma::Tma::parse(&vfs.read(&mref.tma)?)?;
            let graph = iron3d_mission::mission_graph(&data, name, &tma);
            let graph_ms = t.elapsed().as_secs_f64() * 1e3;
            writeln!(
                out,
                "bench demo_graph profile={label} mission={name} objects={} prototype_requests={} failures={} ms={graph_ms:.2}",
                graph.counts.objects, graph.counts.prototype_requests, graph.counts.failures
            )?;

            let vfs = iron3d_vfs::Vfs::new(&dir);
            let cache = iron3d_vfs::ArchiveCache::new(iron3d_vfs::ReadMode::Strict, 256 << 20);
            let data = iron3d_mission::GameData {
                vfs: &vfs,
                cache: &cache,
            };
            let mut kernel =
                Kernel::new(KernelConfig::default(), Box::new(ManualTimeSource::new()))?;
            let t = now();
            let loaded = iron3d_mission::load_mission(&mut kernel, &data, name, None)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            let load_ms = t.elapsed().as_secs_f64() * 1e3;
            let (c, v) = (cache.stats(), vfs.stats());
            writeln!(
                out,
                "bench demo_mission_load profile={label} mission={name} objects={} ms={load_ms:.2} maps={} canonicalisations={} stamp_checks={} vfs_file_checks={} blob_decodes={}",
                loaded.objects.len(),
                c.maps,
                c.canonicalisations,
                c.stamp_checks,
                v.file_checks,
                c.misses
            )?;
            // The same mission again in the same context (warm blob cache, new kernel).
            let mut kernel =
                Kernel::new(KernelConfig::default(), Box::new(ManualTimeSource::new()))?;
            let t = now();
            iron3d_mission::load_mission(&mut kernel, &data, name, None)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            let warm_ms = t.elapsed().as_secs_f64() * 1e3;
            writeln!(
                out,
                "bench demo_mission_reload profile={label} mission={name} ms={warm_ms:.2} cold_over_warm={:.2}",
                load_ms / warm_ms.max(1e-9)
            )?;
        }
    }
    Ok(())
}
