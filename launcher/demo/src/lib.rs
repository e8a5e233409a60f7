//! A deterministic synthetic game directory written in the original formats by the
//! project's own writers: root configuration files, `objects.rlb` prototypes with
//! inheritance, unit DAT files, MSH model archives with WEAR tables, `Material.lib`,
//! `Textures.lib`, `LightMap.lib`, `Palettes.lib`, RsLi archives (effects, sounds and
//! music, voices, fonts, sprites) and missions (TMA, configuration blocks, `Land.msh`, `Land1.wea`,
//! `Land2.wea`, `Land.map`) with the campaign `MISSIONS/dispatcher.ini` (`DEMO1`, `DEMO2`,
//! then `BATTLE`; PD-CAMPAIGN-ORDER of `iron3d-save`).
//!
//! Content the renderer is exercised with:
//!
//! * **Surface modes** (PD-MAT-4, [`iron3d_material::Surface`]): `GLASS` is
//!   alpha-blended and two-sided (texture `GLASS0`, Argb8888, alpha 90..=160), `GRATE` is
//!   alpha-tested at 128 and two-sided (texture `GRATE0`, Argb4444, bars alpha 255 around
//!   holes alpha 0); every other material is opaque. The truck's cab canopy is `GLASS`,
//!   the tower (part of the Hangar, Mine and Tower units) has a `GRATE` fence.
//! * **Models and textures** (generator 17): every model node is built of many parts
//!   (tracks and wheels, hulls, turret and gun, walls, roofs, shutters, a derrick…) in
//!   the slot box of generator 16 (so collision bounds, culling and draw counts are
//!   unchanged), with type-4 normals, and LOD 1 leaves the small details out. Model
//!   textures are 2×2 atlases painted from seamless fBm noise (`noise` crate) seeded
//!   from the stream (riveted steel, rust, hazard stripes, camouflage, track links,
//!   concrete, shutters, windows, girders, flowing molten ore…); model lightmaps are
//!   soft ambient occlusion over the same atlas. The pictures are painted from a copy of
//!   the stream, which then moves on as generator 16's did: every other file keeps its
//!   bytes.
//! * **Clan colours** (generator 18): `CAMO_C0` (blue-grey) and `CAMO_C1` (rust-red),
//!   the clans' variants of `CAMO` (PD-RENDER-CLAN-MATERIAL in the frame builder), so
//!   the two sides of the battle are told apart at a glance.
//! * **Terrain materials** (FORMATS §6.2): `TerrainFace28.material_tag` low byte = row of
//!   `Land2.wea` (`WATER` under the water level, `GRASS`, `ROCK` on high ground), high
//!   byte = row of `Land1.wea` (`ROAD`, on a strip across the map) or `0xFF` = none.
//!   **Project rule**: the stage-0 texture of a face is the material of its `Land1.wea`
//!   row when the high byte is not `0xFF`, else that of its `Land2.wea` row; the terrain
//!   lightmap is the first `LIGHTMAPS` row of `Land1.wea` (`LM_LAND_<mission>` in
//!   `LightMap.lib`, a baked Lambert + ambient shading of the whole map, 64×64 greyscale
//!   with mips), addressed by the terrain UV stream (`0..1` over the map).
//!
//! * **Type tags** (FORMATS §1.7, [`iron3d_nres::tag`]): every NRes entry carries its
//!   family's `type_id`: `MESH` models, `WEAR` tables, `MAT0` materials, `Texm` textures
//!   and lightmaps, `BASE` for `sun.bas` (inferred tag, PD-TAG-AUX); prototypes and
//!   palettes have no known tag and get 0 (PD-TAG-UNTYPED).
//!
//! ```no_run
//! let manifest = iron3d_demo::build(std::path::Path::new("game"), 7, iron3d_demo::Profile::Demo)?;
//! assert!(!manifest.missions.is_empty());
//! # Ok::<(), iron3d_demo::DemoError>(())
//! ```

mod control;
mod materials;
mod missions;

pub use missions::clan_package;
mod models;
mod paint;
mod prototypes;
mod root;
mod rsli;
mod shapes;
mod sounds;

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::path::{Path, PathBuf};

/// Version of the generator; bumped whenever the produced bytes change.
pub const GENERATOR_VERSION: u32 = 19;

/// File name of the manifest written at the root of the output directory.
pub const MANIFEST_NAME: &str = "iron3d-demo.manifest";

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// The shared assets, the battle (listed first) and two small scattered missions
    /// (a few hundred objects).
    Demo,
    /// The shared assets plus one large mission with 10 000 objects on a 128×128 map.
    Stress,
}

/// The battle mission of the Demo profile (two clans with bases; the auto-demo).
pub const BATTLE: &str = "BATTLE";

/// Number of placed objects of the Stress mission.
pub const STRESS_OBJECTS: usize = 10_000;

/// An error while generating the directory.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// Writing or reading a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A format writer rejected the authored content.
    #[error("authoring {what}: {cause}")]
    Format {
        /// What was being written.
        what: String,
        /// The writer's message.
        cause: String,
    },
    /// The manifest text is malformed.
    #[error("manifest line {line}: {reason}")]
    Manifest {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        reason: &'static str,
    },
}

/// Maps a writer error into [`DemoError::Format`] for `what`.
pub(crate) fn fmt_err<E: std::fmt::Display>(what: &str) -> impl FnOnce(E) -> DemoError + '_ {
    move |e| DemoError::Format {
        what: what.to_owned(),
        cause: e.to_string(),
    }
}

/// What was generated: the generator version, the missions and every file with its
/// size and BLAKE3 hash, sorted by relative path (`/` separators).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// [`GENERATOR_VERSION`] at generation time.
    pub version: u32,
    /// Mission directory names under `MISSIONS/`.
    pub missions: Vec<String>,
    /// `(relative path, size, blake3 hex)`, sorted by path.
    pub files: Vec<(String, u64, String)>,
}

impl Manifest {
    /// The manifest text: `iron3d-demo <version>`, `mission <name>` lines, then
    /// `file <size> <blake3> <path>` lines.
    pub fn to_text(&self) -> String {
        let mut s = format!("iron3d-demo {}\n", self.version);
        for m in &self.missions {
            s.push_str(&format!("mission {m}\n"));
        }
        for (p, size, hash) in &self.files {
            s.push_str(&format!("file {size} {hash} {p}\n"));
        }
        s
    }

    /// Parses [`Manifest::to_text`] output.
    pub fn parse(text: &str) -> Result<Self, DemoError> {
        let bad = |line, reason| DemoError::Manifest { line, reason };
        let mut lines = text.lines().enumerate();
        let version = lines
            .next()
            .and_then(|(_, l)| l.strip_prefix("iron3d-demo "))
            .and_then(|v| v.parse().ok())
            .ok_or(bad(1, "expected `iron3d-demo <version>`"))?;
        let mut m = Manifest {
            version,
            missions: Vec::new(),
            files: Vec::new(),
        };
        for (i, l) in lines {
            if let Some(name) = l.strip_prefix("mission ") {
                m.missions.push(name.to_owned());
            } else if let Some(rest) = l.strip_prefix("file ") {
                let mut it = rest.splitn(3, ' ');
                let size = it.next().and_then(|s| s.parse().ok());
                let hash = it.next();
                let path = it.next();
                match (size, hash, path) {
                    (Some(size), Some(h), Some(p)) => {
                        m.files.push((p.to_owned(), size, h.to_owned()))
                    }
                    _ => return Err(bad(i + 1, "expected `file <size> <hash> <path>`")),
                }
            } else if !l.is_empty() {
                return Err(bad(i + 1, "unknown line"));
            }
        }
        Ok(m)
    }

    /// Writes `<out>/iron3d-demo.manifest`.
    pub fn write(&self, out: &Path) -> Result<(), DemoError> {
        let path = out.join(MANIFEST_NAME);
        std::fs::write(&path, self.to_text()).map_err(|source| DemoError::Io { path, source })
    }

    /// Reads `<out>/iron3d-demo.manifest`.
    pub fn read(out: &Path) -> Result<Self, DemoError> {
        let path = out.join(MANIFEST_NAME);
        let text =
            std::fs::read_to_string(&path).map_err(|source| DemoError::Io { path, source })?;
        Self::parse(&text)
    }
}

/// Collects the written files for the manifest.
pub(crate) struct Out {
    root: PathBuf,
    files: Vec<(String, u64, String)>,
}

impl Out {
    /// Writes `bytes` to `rel` (a `/`-separated path) under the root.
    pub(crate) fn put(&mut self, rel: &str, bytes: &[u8]) -> Result<(), DemoError> {
        let path = self.root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| DemoError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        std::fs::write(&path, bytes).map_err(|source| DemoError::Io { path, source })?;
        self.files.push((
            rel.to_owned(),
            bytes.len() as u64,
            blake3::hash(bytes).to_hex().to_string(),
        ));
        Ok(())
    }
}

/// Writes the game directory for `seed` and `profile` under `out` (created if needed)
/// and its manifest; the same arguments always produce the same bytes.
pub fn build(out: &Path, seed: u64, profile: Profile) -> Result<Manifest, DemoError> {
    let mut o = Out {
        root: out.to_path_buf(),
        files: Vec::new(),
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    root::write(&mut o)?;
    prototypes::write(&mut o)?;
    models::write(&mut o)?;
    let mut lightmaps = materials::write(&mut o, &mut rng)?;
    materials::write_hud_font(&mut o)?;
    rsli::write(&mut o, &mut rng)?;
    let specs: &[(&str, u16, usize)] = match profile {
        Profile::Demo => &[("DEMO1", 64, 180), ("DEMO2", 48, 120)],
        Profile::Stress => &[("STRESS", 128, STRESS_OBJECTS)],
    };
    let mut missions = Vec::new();
    for &(name, cells, objects) in specs {
        let (name, lightmap) = missions::write(&mut o, &mut rng, name, cells, 8.0, objects)?;
        missions.push(name);
        lightmaps.push(lightmap);
    }
    // The battle is generated after the others (their bytes do not change) and listed
    // first: it is the mission `iron3d play` opens.
    if profile == Profile::Demo {
        let (name, lightmap) = missions::write_battle(&mut o, &mut rng, BATTLE)?;
        missions.insert(0, name);
        lightmaps.push(lightmap);
    }
    // The campaign (generator 16, PD-CAMPAIGN-ORDER): the two tours, then the battle.
    if profile == Profile::Demo {
        o.put(
            "MISSIONS/dispatcher.ini",
            b"// Iron3D-rs demo campaign (PD-CAMPAIGN-ORDER): the missions in play order.\r\n\
              [CAMPAIGN]\r\nMISSION1=DEMO1\r\nMISSION2=DEMO2\r\nMISSION3=BATTLE\r\n[COMPLETE]\r\n",
        )?;
    }
    // Written last because it holds the terrain lightmaps; the terrain shading draws
    // nothing from the stream, so the section order of the stream is unchanged.
    materials::write_lightmaps(&mut o, lightmaps)?;
    o.files.sort();
    let manifest = Manifest {
        version: GENERATOR_VERSION,
        missions,
        files: o.files,
    };
    manifest.write(out)?;
    Ok(manifest)
}
