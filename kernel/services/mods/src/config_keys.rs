//! Keys nothing reads: every `Behavior.ini` in a mod's data overlays (at any depth, name
//! compared without case, as the game's paths are) checked against the keys the engine
//! knows ([`iron3d_config::keys::BEHAVIOR_INI_KEYS`], the modder's guide's table "Keys
//! the engine reads"). A key that is not there changes nothing in any mission, so
//! `iron3d mods check` names it as a warning — file, line, key and the known keys
//! spelled nearest to it — instead of letting it pass silently. The original's keys
//! that nothing reads (`LogFile`, `SaveLog`, …) are known and not reported.
//!
//! Warnings never refuse a mod. A file that cannot be read or does not parse is a
//! warning too (the `ai` plugin refuses such a file when a mission starts). The walk is
//! bounded ([`MAX_DEPTH`], [`MAX_ENTRIES`], [`MAX_CONFIG_BYTES`]) and follows no links.

use crate::discover::ModDir;
use crate::files::{ModTree, read_capped};
use crate::util::{Shown, escaped};
use iron3d_config::IniDocument;
use iron3d_config::keys::{BEHAVIOR_INI, behavior_key, nearest_behavior_keys};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

/// Deepest folder level searched below an overlay.
pub const MAX_DEPTH: usize = 16;
/// Most folder entries looked at in one mod.
pub const MAX_ENTRIES: usize = 20_000;
/// Largest `Behavior.ini` read (1 MiB).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// Known keys offered with an unknown one.
const NEAREST: usize = 3;

/// What is wrong with a mod's `Behavior.ini`, warning level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyWarning {
    /// A key nothing reads.
    Unknown {
        /// The mod.
        mod_id: String,
        /// The file, relative to the mod's folder.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// The key as written (lossy text).
        key: String,
        /// The known keys spelled nearest to it, nearest first.
        nearest: Vec<&'static str>,
    },
    /// The file could not be read or does not parse.
    Unreadable {
        /// The mod.
        mod_id: String,
        /// The file, relative to the mod's folder.
        file: PathBuf,
        /// Why (the reader's message).
        why: String,
    },
}

impl fmt::Display for KeyWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyWarning::Unknown {
                mod_id,
                file,
                line,
                key,
                nearest,
            } => write!(
                f,
                "mod \"{mod_id}\": {} line {line}: key \"{}\" is read by nothing \
                 (known keys nearest to it: {}; all keys: \"Keys the engine reads\" in \
                 mods/README.md)",
                Shown(file),
                escaped(key),
                nearest.join(", ")
            ),
            KeyWarning::Unreadable { mod_id, file, why } => write!(
                f,
                "mod \"{mod_id}\": {} is not checked: {}",
                Shown(file),
                escaped(why)
            ),
        }
    }
}

/// The warnings about the `Behavior.ini` files of `m`'s overlays, in overlay order, then
/// path order, then line order.
#[must_use]
pub fn config_key_warnings(m: &ModDir) -> Vec<KeyWarning> {
    let mut files = Vec::new();
    let mut budget = MAX_ENTRIES;
    let Ok(tree) = ModTree::new(&m.root) else {
        return Vec::new();
    };
    for o in &m.manifest.overlays {
        // An overlay folder that is a link leaving the mod is not searched
        // (PD-MODS-REGULAR-FILES; discovery reports that mod broken).
        if let Ok(Some(dir)) = tree.resolve(&o.resolve(&m.root)) {
            find(&dir, 0, &mut budget, &mut files);
        }
    }
    let mut out = Vec::new();
    let real_root = tree
        .resolve(&m.root)
        .ok()
        .flatten()
        .unwrap_or_else(|| m.root.clone());
    for path in files {
        let file = path
            .strip_prefix(&real_root)
            .or_else(|_| path.strip_prefix(&m.root))
            .unwrap_or(&path)
            .to_path_buf();
        let id = m.manifest.id.clone();
        let unreadable = |why: String| KeyWarning::Unreadable {
            mod_id: id.clone(),
            file: file.clone(),
            why,
        };
        let bytes = match read_capped(&path, MAX_CONFIG_BYTES) {
            Ok(b) => b,
            Err(e) => {
                out.push(unreadable(e.to_string()));
                continue;
            }
        };
        let doc = match IniDocument::parse(&bytes, BEHAVIOR_INI) {
            Ok(d) => d,
            Err(e) => {
                out.push(unreadable(format!(
                    "{e} (the mission refuses to start with it)"
                )));
                continue;
            }
        };
        for (_, line, pair) in doc.pairs() {
            let key = String::from_utf8_lossy(&pair.key).into_owned();
            if behavior_key(&key).is_none() {
                out.push(KeyWarning::Unknown {
                    mod_id: id.clone(),
                    file: file.clone(),
                    line,
                    nearest: nearest_behavior_keys(&key, NEAREST),
                    key,
                });
            }
        }
    }
    out
}

/// Collects the files named `Behavior.ini` (any case) under `dir`, in name order.
fn find(dir: &Path, depth: usize, budget: &mut usize, out: &mut Vec<PathBuf>) {
    if depth > MAX_DEPTH {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    for e in entries.flatten() {
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        paths.push(e.path());
    }
    paths.sort();
    for p in paths {
        let Ok(meta) = fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.is_dir() {
            find(&p, depth + 1, budget, out);
        } else if meta.is_file()
            && p.file_name()
                .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case(BEHAVIOR_INI))
        {
            out.push(p);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, bytes: &[u8]) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, bytes).unwrap();
    }

    fn mod_dir(root: &Path, overlays: &[&str]) -> ModDir {
        let mut toml =
            "id = \"tweak\"\nversion = \"1.0.0\"\nname = \"Tweak\"\nengine = \">=0.1\"\n"
                .to_owned();
        for o in overlays {
            toml.push_str(&format!("[[overlay]]\npath = \"{o}\"\n"));
        }
        write(root, "mod.toml", toml.as_bytes());
        ModDir::open(root).unwrap()
    }

    #[test]
    fn unknown_keys_are_named_with_file_line_and_the_nearest_known_keys() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("tweak");
        write(
            &root,
            "data/Behavior.ini",
            b"// tuning\r\n[Behavior]\r\nAttackRange=30\r\nGuardRadius=150\r\n\
              LogFile=Behavior.log\r\nPathFind_MaxAcel=4 RetreatLife=10\r\n",
        );
        // Any depth, any case: a mission's own file is read first by the game.
        write(&root, "data/MISSIONS/M1/BEHAVIOR.INI", b"oreCapacity=5\n");
        // Not a Behavior.ini: not checked.
        write(&root, "data/ArealMap.ini", b"Whatever=1\n");
        let m = mod_dir(&root, &["data"]);
        let w = config_key_warnings(&m);
        assert_eq!(w.len(), 3, "{w:#?}");
        let KeyWarning::Unknown {
            file,
            line,
            key,
            nearest,
            ..
        } = &w[0]
        else {
            panic!("{w:?}")
        };
        assert_eq!(
            (file.as_path(), *line, key.as_str()),
            (Path::new("data/Behavior.ini"), 4, "GuardRadius")
        );
        assert_eq!(nearest.len(), 3);
        assert_eq!(
            w[1].to_string(),
            "mod \"tweak\": data/Behavior.ini line 6: key \"PathFind_MaxAcel\" is read by \
             nothing (known keys nearest to it: PathFind_MaxAccel, PathFind_MaxRotation, \
             PathFind_fStepDist; all keys: \"Keys the engine reads\" in mods/README.md)"
        );
        let KeyWarning::Unknown {
            file, key, nearest, ..
        } = &w[2]
        else {
            panic!("{w:?}")
        };
        assert_eq!(file, Path::new("data/MISSIONS/M1/BEHAVIOR.INI"));
        assert_eq!((key.as_str(), nearest[0]), ("oreCapacity", "OreCapacity"));
    }

    #[test]
    fn known_keys_and_mods_without_the_file_give_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("tweak");
        let all: String = iron3d_config::keys::BEHAVIOR_INI_KEYS
            .iter()
            .map(|k| format!("{}=1\r\n", k.key))
            .collect();
        write(&root, "data/Behavior.ini", all.as_bytes());
        write(&root, "other/Behavior.ini", b"Nope=1\n");
        assert_eq!(config_key_warnings(&mod_dir(&root, &["data"])), []);
        let empty = dir.path().join("empty");
        assert_eq!(config_key_warnings(&mod_dir(&empty, &[])), []);
        // An overlay folder that is missing is not this check's business.
        assert_eq!(config_key_warnings(&mod_dir(&empty, &["gone"])), []);
    }

    #[test]
    fn a_file_that_does_not_parse_or_is_too_large_is_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("tweak");
        write(&root, "a/Behavior.ini", b"[Behavior\nAttackRange=1\n");
        write(
            &root,
            "b/Behavior.ini",
            &vec![b'/'; MAX_CONFIG_BYTES as usize + 1],
        );
        let w = config_key_warnings(&mod_dir(&root, &["a", "b"]));
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            matches!(&w[0], KeyWarning::Unreadable { file, why, .. }
                if file == Path::new("a/Behavior.ini") && why.starts_with("Behavior.ini:1:1: section header")),
            "{w:?}"
        );
        assert!(matches!(&w[1], KeyWarning::Unreadable { .. }), "{w:?}");
        assert!(
            w[0].to_string()
                .starts_with("mod \"tweak\": a/Behavior.ini is not checked: ")
        );
    }
}
