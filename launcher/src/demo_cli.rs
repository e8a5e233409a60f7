//! `iron3d demo build`: writes the embedded default game directory (deterministic, in the
//! original formats), and the cache the play command uses when no game directory is given.

use anyhow::Context;
use iron3d_demo::{GENERATOR_VERSION, Manifest, Profile};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `demo build --out DIR [--seed S] [--profile demo|stress]`.
pub fn build(
    out_dir: &Path,
    seed: u64,
    profile: Profile,
    out: &mut dyn Write,
) -> anyhow::Result<Manifest> {
    let manifest = iron3d_demo::build(out_dir, seed, profile)
        .with_context(|| format!("building demo content in {}", out_dir.display()))?;
    let bytes: u64 = manifest.files.iter().map(|f| f.1).sum();
    writeln!(
        out,
        "demo: {} files, {bytes} bytes, missions: {} (generator version {}, seed {seed}) in {}",
        manifest.files.len(),
        manifest.missions.join(", "),
        manifest.version,
        out_dir.display()
    )?;
    Ok(manifest)
}

/// The cached demo directory for `seed` and `profile`, rebuilt when missing or written by
/// another generator version. Returns the directory and its first mission.
pub fn cached(
    cache_root: &Path,
    seed: u64,
    profile: Profile,
    out: &mut dyn Write,
) -> anyhow::Result<(PathBuf, String)> {
    let dir =
        cache_root.join(format!("demo-v{GENERATOR_VERSION}-{profile:?}-{seed}").to_lowercase());
    let manifest = match Manifest::read(&dir) {
        Ok(m) if m.version == GENERATOR_VERSION && !m.missions.is_empty() => m,
        _ => {
            if dir.exists() {
                std::fs::remove_dir_all(&dir)
                    .with_context(|| format!("clearing stale demo cache {}", dir.display()))?;
            }
            build(&dir, seed, profile, out)?
        }
    };
    let mission = manifest
        .missions
        .first()
        .cloned()
        .context("demo content has no mission")?;
    Ok((dir, mission))
}
