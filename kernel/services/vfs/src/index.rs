//! A case-insensitive index of a directory tree, so legacy paths resolve on
//! case-sensitive file systems without renaming anything.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Lazily built, per-directory case-insensitive listing of a root directory.
///
/// When two names differ only in case (possible on case-sensitive file systems), the
/// byte-wise smallest actual name wins, deterministically, and the clash is logged.
#[derive(Debug)]
pub struct DirIndex {
    root: PathBuf,
    dirs: Mutex<BTreeMap<PathBuf, BTreeMap<String, OsString>>>,
}

impl DirIndex {
    /// An index of `root` (nothing is read until a lookup needs it).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            dirs: Mutex::new(BTreeMap::new()),
        }
    }

    /// The indexed root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The real path of `components` under the root, matching each component
    /// ASCII-case-insensitively; `None` when some component does not exist.
    pub fn find(&self, components: &[String]) -> Option<PathBuf> {
        let mut real = self.root.clone();
        for c in components {
            let name = self.lookup(&real, &c.to_ascii_lowercase())?;
            real.push(name);
        }
        Some(real)
    }

    fn lookup(&self, dir: &Path, key: &str) -> Option<OsString> {
        let mut dirs = self
            .dirs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !dirs.contains_key(dir) {
            let listing = list(dir);
            dirs.insert(dir.to_owned(), listing);
        }
        dirs.get(dir).and_then(|m| m.get(key)).cloned()
    }

    /// Forgets every cached listing (after files were added or removed).
    pub fn refresh(&self) {
        self.dirs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
    }
}

fn list(dir: &Path) -> BTreeMap<String, OsString> {
    let mut map: BTreeMap<String, OsString> = BTreeMap::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return map;
    };
    let mut names: Vec<OsString> = rd.filter_map(|e| e.ok().map(|e| e.file_name())).collect();
    names.sort();
    for name in names {
        let key = name.to_string_lossy().to_ascii_lowercase();
        if let Some(existing) = map.get(&key) {
            tracing::warn!(dir = %dir.display(), kept = ?existing, ignored = ?name, "names differ only in case");
            continue;
        }
        map.insert(key, name);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_files_whatever_the_case_of_the_query() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("MISSIONS/Mission.01")).unwrap();
        std::fs::write(dir.path().join("MISSIONS/Mission.01/Data.TMA"), b"x").unwrap();
        let idx = DirIndex::new(dir.path());
        let found = idx
            .find(&["missions".into(), "MISSION.01".into(), "data.tma".into()])
            .unwrap();
        assert_eq!(found, dir.path().join("MISSIONS/Mission.01/Data.TMA"));
        assert!(idx.find(&["missions".into(), "nope".into()]).is_none());
    }

    #[test]
    fn case_clashes_resolve_deterministically() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), b"1").unwrap();
        std::fs::write(dir.path().join("A.TXT"), b"2").unwrap();
        let idx = DirIndex::new(dir.path());
        assert_eq!(
            idx.find(&["A.txt".into()]).unwrap(),
            dir.path().join("A.TXT")
        );
    }
}
