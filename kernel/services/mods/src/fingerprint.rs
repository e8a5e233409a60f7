//! The mod-set fingerprint: which mods a game (a replay, a multiplayer session) ran with,
//! and whether the mods loaded now are the same.
//!
//! Only mods with `simulation = true` matter: their content hash (BLAKE3) covers the
//! `mod.toml` bytes, every file of every overlay (sorted relative paths and their bytes)
//! and the plugin libraries. Other mods are listed with an empty content and ignored by
//! [`ModSetFingerprint::diff`] (a texture pack may differ between players).
//!
//! Plugin libraries are hashed so that genuine installs on different platforms agree:
//! for every declared platform the hash covers the platform key, the library path and
//! its SHA-256 — the manifest's value for other platforms, the local file's actual
//! SHA-256 for this one. An altered local library therefore changes the fingerprint.

use crate::ModError;
use crate::discover::{MAX_MANIFEST_BYTES, ModDir};
use crate::files::{ModTree, open_regular};
use crate::util::join_relative;
use crate::verify::sha256_reader;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Read};

/// One loaded mod in a [`ModSetFingerprint`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FingerprintEntry {
    /// The mod's id.
    pub id: String,
    /// Its version, as written by semver.
    pub version: String,
    /// Whether it changes the simulation.
    pub simulation: bool,
    /// BLAKE3 content hash (64 lowercase hex) for simulation mods, empty otherwise.
    pub content: String,
}

/// The mods a game ran with, in load order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModSetFingerprint {
    /// One entry per loaded mod, in load order.
    pub mods: Vec<FingerprintEntry>,
}

/// BLAKE3 content hash of one mod (see the [module documentation](self)), as lowercase
/// hex; `platform` selects which library is hashed from disk.
///
/// Files are read as PD-MODS-REGULAR-FILES says: regular files only, links only inside
/// the mod folder.
///
/// # Errors
/// [`ModError::Io`] when the manifest, an overlay file or the local plugin library
/// exists but cannot be read; [`ModError::NotRegular`] / [`ModError::LinkOutside`] /
/// [`ModError::TooLarge`] when one may not be read. A missing overlay folder or library
/// is hashed as missing (and so differs from a complete install).
pub fn content_hash(mod_dir: &ModDir, platform: &str) -> Result<String, ModError> {
    let tree = ModTree::new(&mod_dir.root)?;
    let mut h = blake3::Hasher::new();
    h.update(b"iron3d-mod-content-v1\0");
    let manifest_path = mod_dir.root.join("mod.toml");
    let manifest = tree.read_capped(&manifest_path, MAX_MANIFEST_BYTES)?;
    field(&mut h, b"manifest", &manifest);
    for overlay in &mod_dir.manifest.overlays {
        field(&mut h, b"overlay", overlay.path.as_bytes());
        let dir = overlay.resolve(&mod_dir.root);
        if tree.resolve(&dir)?.is_none() {
            field(&mut h, b"missing", b"");
            continue;
        }
        for (rel, path) in tree.files(&dir)? {
            field(&mut h, b"file", rel.as_bytes());
            let (file, _) = open_regular(&path)?;
            let digest = blake3_reader(file).map_err(|e| ModError::io(&path, "read", e))?;
            field(&mut h, b"bytes", &digest);
        }
    }
    for (i, plugin) in mod_dir.manifest.plugins.iter().enumerate() {
        field(&mut h, b"plugin", i.to_string().as_bytes());
        // A source build (PD-MOD-SOURCE-PLUGIN) is named, not hashed: its bytes depend on
        // the local compiler; replays of source builds compare the name only.
        if let Some(build) = &plugin.build {
            field(&mut h, b"build", build.as_bytes());
        }
        for (key, lib) in &plugin.libraries {
            field(&mut h, b"platform", key.as_bytes());
            field(&mut h, b"path", lib.path.as_bytes());
            if key == platform {
                let path = join_relative(&mod_dir.root, &lib.path);
                match tree.open(&path)? {
                    Some((file, _)) => {
                        let found =
                            sha256_reader(file).map_err(|e| ModError::io(&path, "read", e))?;
                        field(&mut h, b"sha256", found.as_bytes());
                    }
                    None => field(&mut h, b"missing", b""),
                }
            } else {
                field(&mut h, b"sha256", lib.sha256.as_bytes());
            }
        }
    }
    Ok(h.finalize().to_hex().to_string())
}

/// Feeds a tagged, length-prefixed field (so no two different inputs hash the same
/// byte stream).
fn field(h: &mut blake3::Hasher, tag: &[u8], value: &[u8]) {
    h.update(&(tag.len() as u64).to_le_bytes());
    h.update(tag);
    h.update(&(value.len() as u64).to_le_bytes());
    h.update(value);
}

fn blake3_reader(mut r: impl Read) -> io::Result<[u8; 32]> {
    let mut h = blake3::Hasher::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                h.update(&buf[..n]);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(*h.finalize().as_bytes())
}

/// The first 12 hex digits of a hash and an ellipsis.
fn short(hash: &str) -> String {
    let cut: String = hash.chars().take(12).collect();
    if cut.len() < hash.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

impl ModSetFingerprint {
    /// The fingerprint of the mods `order` selects from `available` (a
    /// [`crate::Resolution::order`]), in that order; `platform` as for [`content_hash`].
    /// Indices out of range are skipped.
    ///
    /// # Errors
    /// The errors of [`content_hash`] for a simulation mod.
    pub fn compute(
        available: &[ModDir],
        order: &[usize],
        platform: &str,
    ) -> Result<ModSetFingerprint, ModError> {
        let mut mods = Vec::with_capacity(order.len());
        for m in order.iter().filter_map(|&i| available.get(i)) {
            let content = if m.manifest.simulation {
                content_hash(m, platform)?
            } else {
                String::new()
            };
            mods.push(FingerprintEntry {
                id: m.manifest.id.clone(),
                version: m.manifest.version.to_string(),
                simulation: m.manifest.simulation,
                content,
            });
        }
        Ok(ModSetFingerprint { mods })
    }

    /// What differs between `self` (the recorded game, e.g. the replay) and `loaded` (the
    /// mods loaded now), one readable line per difference; empty when the simulation mods
    /// are the same, in the same versions, contents and relative order. Mods without
    /// `simulation` on either side are ignored.
    #[must_use]
    pub fn diff(&self, loaded: &ModSetFingerprint) -> Vec<String> {
        let replay: BTreeMap<&str, &FingerprintEntry> =
            self.mods.iter().map(|e| (e.id.as_str(), e)).collect();
        let now: BTreeMap<&str, &FingerprintEntry> =
            loaded.mods.iter().map(|e| (e.id.as_str(), e)).collect();
        let mut lines = Vec::new();
        let mut common = BTreeSet::new();
        let mut reported = BTreeSet::new();
        for e in &self.mods {
            if !reported.insert(e.id.as_str()) {
                continue;
            }
            let id = &e.id;
            match now.get(id.as_str()) {
                None if e.simulation => {
                    lines.push(format!(
                        "mod \"{id}\" {} is in the replay but not loaded",
                        e.version
                    ));
                }
                None => {}
                Some(l) if !(e.simulation || l.simulation) => {}
                Some(l) => {
                    common.insert(id.as_str());
                    if e.version != l.version {
                        lines.push(format!(
                            "mod \"{id}\": replay has {}, loaded {}",
                            e.version, l.version
                        ));
                    } else if e.simulation != l.simulation {
                        let (r, n) = if e.simulation {
                            ("changes the simulation in the replay", "not as loaded")
                        } else {
                            (
                                "does not change the simulation in the replay",
                                "does as loaded",
                            )
                        };
                        lines.push(format!("mod \"{id}\" {}: {r} but {n}", e.version));
                    } else if e.content != l.content {
                        lines.push(format!(
                            "mod \"{id}\" {}: content differs (replay {}, loaded {})",
                            e.version,
                            short(&e.content),
                            short(&l.content)
                        ));
                    }
                }
            }
        }
        let mut reported = BTreeSet::new();
        for l in &loaded.mods {
            if l.simulation && !replay.contains_key(l.id.as_str()) && reported.insert(l.id.as_str())
            {
                lines.push(format!("mod \"{}\" is loaded but not in the replay", l.id));
            }
        }
        fn sequence<'a>(list: &'a [FingerprintEntry], common: &BTreeSet<&str>) -> Vec<&'a str> {
            let mut seen = BTreeSet::new();
            list.iter()
                .map(|e| e.id.as_str())
                .filter(|id| common.contains(id) && seen.insert(*id))
                .collect()
        }
        let (was, is) = (
            sequence(&self.mods, &common),
            sequence(&loaded.mods, &common),
        );
        if was != is {
            lines.push(format!(
                "the mods load in a different order: replay {}; loaded {}",
                was.join(", "),
                is.join(", ")
            ));
        }
        lines
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;
    use crate::discover::tests::write_mod;
    use std::fs;
    use std::path::Path;

    fn entry(id: &str, version: &str, simulation: bool, content: &str) -> FingerprintEntry {
        FingerprintEntry {
            id: id.into(),
            version: version.into(),
            simulation,
            content: content.into(),
        }
    }

    fn set(entries: Vec<FingerprintEntry>) -> ModSetFingerprint {
        ModSetFingerprint { mods: entries }
    }

    #[test]
    fn identical_sets_have_no_diff() {
        let a = set(vec![
            entry("a", "1.0.0", true, "abc"),
            entry("b", "1.0.0", false, ""),
        ]);
        assert!(a.diff(&a.clone()).is_empty());
    }

    #[test]
    fn diff_lines_word_for_word() {
        let replay = set(vec![
            entry("gone", "1.0.0", true, "aa"),
            entry("ver", "1.0.0", true, "bb"),
            entry("same", "2.0.0", true, "abc123abc123abc123"),
            entry("cosmetic", "1.0.0", false, ""),
        ]);
        let loaded = set(vec![
            entry("ver", "1.1.0", true, "bb"),
            entry("same", "2.0.0", true, "def456def456def456"),
            entry("new", "0.1.0", true, "cc"),
            entry("other-cosmetic", "1.0.0", false, ""),
        ]);
        assert_eq!(
            replay.diff(&loaded),
            [
                "mod \"gone\" 1.0.0 is in the replay but not loaded",
                "mod \"ver\": replay has 1.0.0, loaded 1.1.0",
                "mod \"same\" 2.0.0: content differs (replay abc123abc123…, loaded def456def456…)",
                "mod \"new\" is loaded but not in the replay",
            ]
        );
    }

    #[test]
    fn non_simulation_mods_are_ignored_and_order_is_reported() {
        let replay = set(vec![
            entry("a", "1.0.0", true, "x"),
            entry("look", "1.0.0", false, ""),
            entry("b", "1.0.0", true, "y"),
        ]);
        let loaded = set(vec![
            entry("b", "1.0.0", true, "y"),
            entry("a", "1.0.0", true, "x"),
        ]);
        assert_eq!(
            replay.diff(&loaded),
            ["the mods load in a different order: replay a, b; loaded b, a"]
        );
        let flag = set(vec![entry("a", "1.0.0", false, "")]);
        assert_eq!(
            set(vec![entry("a", "1.0.0", true, "x")]).diff(&flag),
            ["mod \"a\" 1.0.0: changes the simulation in the replay but not as loaded"]
        );
    }

    #[test]
    fn serde_round_trip() {
        let a = set(vec![
            entry("a", "1.0.0", true, "abc"),
            entry("b", "2.0.0", false, ""),
        ]);
        let text = toml::to_string(&a).unwrap();
        let back: ModSetFingerprint = toml::from_str(&text).unwrap();
        assert_eq!(back, a);
    }

    fn sim_mod(root: &Path) -> ModDir {
        write_mod(
            root,
            "sim",
            "sim",
            "1.0.0",
            "simulation = true\n[[overlay]]\npath = \"data\"\n",
        );
        let dir = root.join("sim");
        fs::create_dir_all(dir.join("data/units")).unwrap();
        fs::write(dir.join("data/units/tank.txt"), "speed=1").unwrap();
        fs::write(dir.join("data/a.txt"), "a").unwrap();
        ModDir::open(&dir).unwrap()
    }

    #[test]
    fn content_covers_manifest_and_overlay_files() {
        let tmp = tempfile::tempdir().unwrap();
        let m = sim_mod(tmp.path());
        write_mod(tmp.path(), "look", "look", "1.0.0", "");
        let look = ModDir::open(&tmp.path().join("look")).unwrap();
        let all = [m.clone(), look];
        let fp = ModSetFingerprint::compute(&all, &[1, 0], "linux-x86_64").unwrap();
        assert_eq!(fp.mods.len(), 2);
        assert_eq!(fp.mods[0], entry("look", "1.0.0", false, ""));
        let base = fp.mods[1].content.clone();
        assert_eq!(base.len(), 64);
        assert_eq!(content_hash(&m, "linux-x86_64").unwrap(), base, "stable");

        fs::write(m.root.join("data/units/tank.txt"), "speed=2").unwrap();
        let changed = content_hash(&m, "linux-x86_64").unwrap();
        assert_ne!(changed, base);
        let fp2 = ModSetFingerprint::compute(&all, &[1, 0], "linux-x86_64").unwrap();
        let lines = fp.diff(&fp2);
        assert_eq!(lines.len(), 1);
        assert!(
            lines[0].starts_with("mod \"sim\" 1.0.0: content differs (replay "),
            "{lines:?}"
        );

        // A renamed file changes the hash even with the same bytes.
        fs::write(m.root.join("data/units/tank.txt"), "speed=1").unwrap();
        assert_eq!(content_hash(&m, "linux-x86_64").unwrap(), base);
        fs::rename(m.root.join("data/a.txt"), m.root.join("data/b.txt")).unwrap();
        assert_ne!(content_hash(&m, "linux-x86_64").unwrap(), base);
    }

    #[test]
    fn plugin_library_hash_is_platform_independent_when_genuine() {
        let tmp = tempfile::tempdir().unwrap();
        let lin = crate::util::hex(&{
            use sha2::Digest;
            sha2::Sha256::digest(b"linux lib")
        });
        let extra = format!(
            "simulation = true\ninterface = 2\n[[plugin]]\nslot = \"ai\"\nfactory = \"ai\"\n\
             [plugin.library.linux-x86_64]\npath = \"lib/l.so\"\nsha256 = \"{lin}\"\n\
             [plugin.library.windows-x86_64]\npath = \"lib/w.dll\"\nsha256 = \"{}\"\n",
            "1".repeat(64)
        );
        write_mod(tmp.path(), "p", "p", "1.0.0", &extra);
        let dir = tmp.path().join("p");
        fs::create_dir_all(dir.join("lib")).unwrap();
        fs::write(dir.join("lib/l.so"), "linux lib").unwrap();
        let m = ModDir::open(&dir).unwrap();
        let on_linux = content_hash(&m, "linux-x86_64").unwrap();
        // Elsewhere the linux library is not read: its declared hash is used.
        let elsewhere = content_hash(&m, "freebsd-x86_64").unwrap();
        assert_eq!(on_linux, elsewhere);
        fs::write(dir.join("lib/l.so"), "patched").unwrap();
        assert_ne!(content_hash(&m, "linux-x86_64").unwrap(), on_linux);
    }

    #[test]
    fn missing_overlay_is_hashed_as_missing() {
        let tmp = tempfile::tempdir().unwrap();
        write_mod(
            tmp.path(),
            "m",
            "m",
            "1.0.0",
            "simulation = true\n[[overlay]]\npath = \"data\"\n",
        );
        let m = ModDir::open(&tmp.path().join("m")).unwrap();
        let missing = content_hash(&m, "x-y").unwrap();
        fs::create_dir_all(tmp.path().join("m/data")).unwrap();
        assert_ne!(content_hash(&m, "x-y").unwrap(), missing);
    }
}
