//! `mods.toml`: the mods the user enabled, in the user's order.
//!
//! ```toml
//! # Enabled mods, in load order: later entries win.
//! enabled = ["base-fixes", "faster-tanks"]
//! ```
//!
//! Like OpenMW's content list, the order is the user's: when two mods replace the same
//! file, the later one wins (dependencies still load before the mods that need them, see
//! [`mod@crate::resolve`]). The file is strict: unknown keys, non-string entries, invalid ids
//! and duplicates are errors with file, line and column. A missing file is an empty list.

use crate::ModError;
use crate::files::read_capped;
use crate::manifest::{Locator, check_id};
use crate::util::write_atomic;
use serde::Deserialize;
use std::io::Write;
use std::path::Path;
use toml::Spanned;

/// The largest `mods.toml` read (1 MiB: about fifteen thousand ids).
pub const MAX_MODLIST_BYTES: u64 = 1 << 20;

/// The user's ordered list of enabled mod ids. Invariant: every id is valid
/// ([`check_id`]) and appears once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModList {
    enabled: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModList {
    #[serde(default)]
    enabled: Vec<Spanned<String>>,
}

impl ModList {
    /// An empty list.
    #[must_use]
    pub fn new() -> ModList {
        ModList::default()
    }

    /// Parses the text of a `mods.toml`; `origin` is only used in error messages.
    ///
    /// # Errors
    /// [`ModError::Parse`] for bad TOML or unknown keys, [`ModError::Invalid`] for an
    /// invalid or repeated id; both with line and column.
    pub fn parse(text: &str, origin: &Path) -> Result<ModList, ModError> {
        let loc = Locator { text, origin };
        let raw: RawModList = toml::from_str(text).map_err(|e| loc.parse_error(&e))?;
        let mut enabled: Vec<String> = Vec::with_capacity(raw.enabled.len());
        for (i, s) in raw.enabled.iter().enumerate() {
            let field = format!("enabled[{i}]");
            let id = loc.id(s, &field)?;
            if enabled.contains(&id) {
                return Err(loc.invalid(
                    s.span().start,
                    field,
                    format!("\"{id}\" is listed twice; keep one entry"),
                ));
            }
            enabled.push(id);
        }
        Ok(ModList { enabled })
    }

    /// Reads `path`; a file that does not exist is an empty list (nothing enabled yet).
    ///
    /// # Errors
    /// [`ModError::Io`] when the file exists but cannot be read, [`ModError::NotRegular`]
    /// when it is a FIFO, a device or a folder (never opened for a blocking read,
    /// PD-MODS-REGULAR-FILES), [`ModError::TooLarge`] above [`MAX_MODLIST_BYTES`], [`ModError::Invalid`] when it is not UTF-8, and the
    /// errors of [`ModList::parse`].
    pub fn load(path: &Path) -> Result<ModList, ModError> {
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ModList::new()),
            Err(e) => return Err(ModError::io(path, "read", e)),
            Ok(_) => {}
        }
        let bytes = read_capped(path, MAX_MODLIST_BYTES)?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let text = String::from_utf8_lossy(valid);
            Locator {
                text: &text,
                origin: path,
            }
            .invalid(valid.len(), "file", "is not UTF-8 text")
        })?;
        ModList::parse(&text, path)
    }

    /// The TOML text [`ModList::save`] writes; [`ModList::parse`] reads it back equal.
    #[must_use]
    pub fn to_toml(&self) -> String {
        let mut s = String::from("# Enabled mods, in load order: later entries win.\n");
        if self.enabled.is_empty() {
            s.push_str("enabled = []\n");
        } else {
            s.push_str("enabled = [\n");
            for id in &self.enabled {
                // Ids are [a-z0-9-]: nothing to escape.
                s.push_str("    \"");
                s.push_str(id);
                s.push_str("\",\n");
            }
            s.push_str("]\n");
        }
        s
    }

    /// Writes the list to `path` atomically (temporary file in the same folder, then
    /// rename): a crash leaves the old or the new list, never half of one.
    ///
    /// # Errors
    /// [`ModError::Io`] when the folder or file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), ModError> {
        let text = self.to_toml();
        write_atomic(path, |f, tmp| {
            f.write_all(text.as_bytes())
                .map_err(|e| ModError::io(tmp, "write", e))
        })
    }

    /// The enabled ids in the user's order (first = lowest priority, last wins).
    #[must_use]
    pub fn enabled(&self) -> &[String] {
        &self.enabled
    }

    /// Whether `id` is enabled.
    #[must_use]
    pub fn contains(&self, id: &str) -> bool {
        self.enabled.iter().any(|e| e == id)
    }

    /// Enables `id` at the end of the list (highest priority); returns `false` and
    /// changes nothing when it is already enabled.
    ///
    /// # Errors
    /// [`ModError::BadId`] when `id` is not a valid mod id.
    pub fn enable(&mut self, id: &str) -> Result<bool, ModError> {
        check_id(id).map_err(|why| ModError::BadId {
            id: id.to_owned(),
            why,
        })?;
        if self.contains(id) {
            return Ok(false);
        }
        self.enabled.push(id.to_owned());
        Ok(true)
    }

    /// Disables `id`; returns whether it was enabled.
    pub fn disable(&mut self, id: &str) -> bool {
        let before = self.enabled.len();
        self.enabled.retain(|e| e != id);
        self.enabled.len() != before
    }

    /// Moves `id` to `position` (0 = first, lowest priority); a position past the end
    /// moves it to the end. The other mods keep their relative order.
    ///
    /// # Errors
    /// [`ModError::NotInList`] when `id` is not enabled.
    pub fn move_to(&mut self, id: &str, position: usize) -> Result<(), ModError> {
        let from = self
            .enabled
            .iter()
            .position(|e| e == id)
            .ok_or_else(|| ModError::NotInList { id: id.to_owned() })?;
        let item = self.enabled.remove(from);
        let to = position.min(self.enabled.len());
        self.enabled.insert(to, item);
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    fn list(ids: &[&str]) -> ModList {
        let mut l = ModList::new();
        for id in ids {
            assert!(l.enable(id).unwrap());
        }
        l
    }

    #[test]
    fn parse_keeps_the_users_order() {
        let l =
            ModList::parse("enabled = [\"b\", \"a\", \"c\"]\n", Path::new("mods.toml")).unwrap();
        assert_eq!(l.enabled(), ["b", "a", "c"]);
        assert_eq!(ModList::parse("", Path::new("m")).unwrap(), ModList::new());
    }

    #[test]
    fn parse_is_strict_and_located() {
        let e = ModList::parse(
            "enabled = [\"a\"]\n[[mod]]\nid = \"x\"\n",
            Path::new("mods.toml"),
        )
        .unwrap_err();
        assert!(matches!(e, ModError::Parse { line: 2, .. }), "{e}");
        let e = ModList::parse(
            "enabled = [\n  \"a\",\n  \"B\",\n]\n",
            Path::new("mods.toml"),
        )
        .unwrap_err();
        match e {
            ModError::Invalid {
                line,
                column,
                field,
                ..
            } => assert_eq!((line, column, field.as_str()), (3, 3, "enabled[1]")),
            other => panic!("{other:?}"),
        }
        let e = ModList::parse("enabled = [\"a\", \"a\"]", Path::new("mods.toml")).unwrap_err();
        assert!(e.to_string().contains("listed twice"), "{e}");
        assert!(
            e.to_string().starts_with("mods.toml:1:17: enabled[1]"),
            "{e}"
        );
        let e = ModList::parse("enabled = [1]", Path::new("mods.toml")).unwrap_err();
        assert!(matches!(e, ModError::Parse { line: 1, .. }), "{e}");
    }

    #[test]
    fn enable_disable_move() {
        let mut l = list(&["a", "b", "c"]);
        assert!(!l.enable("b").unwrap());
        assert!(matches!(l.enable("Nope"), Err(ModError::BadId { .. })));
        l.move_to("c", 0).unwrap();
        assert_eq!(l.enabled(), ["c", "a", "b"]);
        l.move_to("c", 99).unwrap();
        assert_eq!(l.enabled(), ["a", "b", "c"]);
        l.move_to("a", 1).unwrap();
        assert_eq!(l.enabled(), ["b", "a", "c"]);
        let e = l.move_to("zz", 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "mod \"zz\" is not in the mod list; run `iron3d mods enable zz` first"
        );
        assert!(l.disable("a"));
        assert!(!l.disable("a"));
        assert_eq!(l.enabled(), ["b", "c"]);
        assert!(l.contains("c") && !l.contains("a"));
    }

    #[test]
    fn save_load_round_trip_and_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cfg/mods.toml");
        assert_eq!(ModList::load(&path).unwrap(), ModList::new());
        let l = list(&["zeta", "alpha", "m-1"]);
        l.save(&path).unwrap();
        assert_eq!(ModList::load(&path).unwrap(), l);
        ModList::new().save(&path).unwrap();
        assert_eq!(ModList::load(&path).unwrap(), ModList::new());
        let names: Vec<_> = std::fs::read_dir(dir.path().join("cfg"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["mods.toml"], "no temporary file left behind");
    }

    #[test]
    fn load_refuses_non_utf8_with_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mods.toml");
        std::fs::write(&path, b"enabled = [\n\"a\xff\"]").unwrap();
        let e = ModList::load(&path).unwrap_err();
        assert!(
            matches!(
                e,
                ModError::Invalid {
                    line: 2,
                    column: 3,
                    ..
                }
            ),
            "{e}"
        );
    }
}
