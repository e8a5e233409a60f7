//! The game-directory VFS: mounted roots (the game directory first, data overlays after:
//! the last mounted wins), legacy-path resolution through case-insensitive indexes, and
//! mission-context paths. Per-entry archive overlays, provenance and conflicts are in
//! [`crate::overlay`].

use crate::error::VfsError;
use crate::index::DirIndex;
use crate::overlay::{EntryMemo, Provider};
use crate::path::GamePath;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One mounted directory tree.
#[derive(Debug)]
pub struct Mount {
    /// Name used in diagnostics (`game`, a mod id, …).
    pub name: String,
    pub(crate) index: DirIndex,
}

impl Mount {
    /// The mounted directory.
    pub fn root(&self) -> &Path {
        self.index.root()
    }
}

/// Where a path was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The real file.
    pub path: PathBuf,
    /// The mount it came from.
    pub mount: String,
}

/// Observable counters of a [`Vfs`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VfsStats {
    /// Calls of [`Vfs::resolve`].
    pub resolves: u64,
    /// Resolutions answered from the memo (no file-system access).
    pub memo_hits: u64,
    /// File checks made (each one `stat`): whole files, archive paths (once per path
    /// and mount that has it) and loose entries.
    pub file_checks: u64,
    /// Calls of [`Vfs::resolve_entry`] (directly or through the entry reads).
    pub entry_resolves: u64,
    /// Entry resolutions answered from the memo (one map lookup, no archive opened).
    pub entry_memo_hits: u64,
}

#[derive(Debug, Default)]
pub(crate) struct Memo {
    /// Lower-case components → the resolution (`None`: no mount has the file).
    pub(crate) resolved: BTreeMap<Vec<String>, Option<Resolved>>,
    /// Lower-case components of an archive path → the mounts providing it, top first.
    pub(crate) providers: BTreeMap<Vec<String>, Vec<Provider>>,
    /// (lower-case archive components, upper-case entry name) → the entry resolution.
    pub(crate) entries: BTreeMap<(Vec<String>, Vec<u8>), EntryMemo>,
    /// The archive cache's invalidation count the entry memo was filled under: a
    /// replaced archive (noticed by the cache) makes the entry memo start over.
    pub(crate) entry_generation: u64,
    /// Files entry resolutions opened or read (real path → mount), for fingerprints.
    pub(crate) touched: BTreeMap<PathBuf, String>,
    pub(crate) stats: VfsStats,
}

impl Memo {
    /// Forgets every resolution (listings are the indexes' business).
    fn forget(&mut self) {
        self.resolved.clear();
        self.providers.clear();
        self.entries.clear();
        self.touched.clear();
    }
}

/// Layered, case-insensitive view of the game directory and its overlays.
///
/// Directory listings and resolutions are remembered for the life of the `Vfs` (one
/// mission context): a path is resolved, and its file checked, once. Call
/// [`Vfs::refresh`] after files were added or removed.
#[derive(Debug, Default)]
pub struct Vfs {
    pub(crate) mounts: Vec<Mount>,
    memo: Mutex<Memo>,
}

impl Vfs {
    /// A VFS over the game directory `root`, mounted as [`crate::BASE_MOUNT`] (`game`).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let mut v = Self::default();
        v.mount(crate::overlay::BASE_MOUNT, root);
        v
    }

    /// Mounts an overlay; it shadows every earlier mount for the files it contains.
    pub fn mount(&mut self, name: &str, root: impl Into<PathBuf>) {
        self.mounts.push(Mount {
            name: name.to_owned(),
            index: DirIndex::new(root),
        });
        self.memo_lock().forget();
    }

    pub(crate) fn memo_lock(&self) -> std::sync::MutexGuard<'_, Memo> {
        self.memo
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Current counters.
    pub fn stats(&self) -> VfsStats {
        self.memo_lock().stats
    }

    /// Every file resolved so far (since the last [`Vfs::refresh`]), as `(mount name,
    /// path relative to that mount with `/` separators, real path)`, sorted: what a
    /// mission load read, for fingerprints. Entry resolutions add the archive files they
    /// opened and the loose entry files they chose.
    pub fn resolved_files(&self) -> Vec<(String, String, PathBuf)> {
        let memo = self.memo_lock();
        let mut out: Vec<(String, String, PathBuf)> = memo
            .resolved
            .values()
            .flatten()
            .map(|r| (&r.mount, &r.path))
            .chain(memo.touched.iter().map(|(path, mount)| (mount, path)))
            .map(|(mount, path)| {
                let root = self
                    .mounts
                    .iter()
                    .find(|m| &m.name == mount)
                    .map(Mount::root);
                let rel = root
                    .and_then(|root| path.strip_prefix(root).ok())
                    .unwrap_or(path)
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                (mount.clone(), rel, path.clone())
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The mounts, lowest priority first.
    pub fn mounts(&self) -> &[Mount] {
        &self.mounts
    }

    /// Forgets cached directory listings and resolutions, of whole files and of archive
    /// entries alike (files were added or removed).
    pub fn refresh(&self) {
        for m in &self.mounts {
            m.index.refresh();
        }
        self.memo_lock().forget();
    }

    /// Resolves a game-root-relative path: the last mount that has the file wins.
    pub fn resolve(&self, path: &GamePath) -> Result<Resolved, VfsError> {
        let key: Vec<String> = path
            .components()
            .iter()
            .map(|c| c.to_ascii_lowercase())
            .collect();
        let known = {
            let mut memo = self.memo_lock();
            memo.stats.resolves += 1;
            let known = memo.resolved.get(&key).cloned();
            if known.is_some() {
                memo.stats.memo_hits += 1;
            }
            known
        };
        let found = match known {
            Some(found) => found,
            None => {
                let mut checks = 0;
                let mut found = None;
                for m in self.mounts.iter().rev() {
                    if let Some(p) = m.index.find(path.components()) {
                        checks += 1;
                        // A FIFO or a device is found too, so that reading it is
                        // refused by name (PD-VFS-REGULAR-FILES), not "missing"; a
                        // folder is not a file (it may stand for an archive's entries).
                        if p.metadata().is_ok_and(|m| !m.is_dir()) {
                            found = Some(Resolved {
                                path: p,
                                mount: m.name.clone(),
                            });
                            break;
                        }
                    }
                }
                let mut memo = self.memo_lock();
                memo.stats.file_checks += checks;
                memo.resolved.insert(key, found.clone());
                found
            }
        };
        if let Some(r) = found {
            return Ok(r);
        }
        Err(self.file_missing(path))
    }

    /// The [`VfsError::FileMissing`] of `path`: every mount root searched, top first.
    pub(crate) fn file_missing(&self, path: &GamePath) -> VfsError {
        VfsError::FileMissing {
            path: path.original().to_owned(),
            searched: self
                .mounts
                .iter()
                .rev()
                .map(|m| m.root().display().to_string())
                .collect(),
        }
    }

    /// Resolves `path` relative to the mission directory `mission` first, then to the
    /// game root (legacy files name both kinds of paths).
    pub fn resolve_in_mission(
        &self,
        mission: &GamePath,
        path: &GamePath,
    ) -> Result<Resolved, VfsError> {
        match self.resolve(&mission.join(path)) {
            Ok(r) => Ok(r),
            Err(VfsError::FileMissing { .. }) => self.resolve(path).map_err(|e| match e {
                VfsError::FileMissing { path: p, searched } => VfsError::FileMissing {
                    path: format!("{p} (also tried in mission {})", mission.original()),
                    searched,
                },
                other => other,
            }),
            Err(e) => Err(e),
        }
    }

    /// Reads a whole loose file: a regular file of at most
    /// [`crate::files::MAX_LOOSE_FILE`] bytes (PD-VFS-REGULAR-FILES).
    pub fn read(&self, path: &GamePath) -> Result<Vec<u8>, VfsError> {
        let r = self.resolve(path)?;
        crate::files::read_regular(&r.path, crate::files::MAX_LOOSE_FILE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> GamePath {
        GamePath::parse(s).unwrap()
    }

    #[test]
    fn overlays_shadow_the_game_directory_and_missing_files_say_where_we_looked() {
        let game = tempfile::tempdir().unwrap();
        let modd = tempfile::tempdir().unwrap();
        std::fs::write(game.path().join("Iron_3D.ini"), b"game").unwrap();
        std::fs::write(game.path().join("only_game.txt"), b"g").unwrap();
        std::fs::write(modd.path().join("IRON_3D.INI"), b"mod").unwrap();
        let mut vfs = Vfs::new(game.path());
        assert_eq!(vfs.read(&p("iron_3d.ini")).unwrap(), b"game");
        vfs.mount("my-mod", modd.path());
        assert_eq!(vfs.read(&p(r"\IRON_3d.ini")).unwrap(), b"mod");
        assert_eq!(vfs.resolve(&p("ONLY_GAME.TXT")).unwrap().mount, "game");
        let e = vfs.resolve(&p("nope.lib")).unwrap_err();
        assert!(
            matches!(&e, VfsError::FileMissing { searched, .. } if searched.len() == 2),
            "{e}"
        );
        assert!(e.to_string().contains("nope.lib"));
    }

    #[test]
    fn mission_paths_try_the_mission_directory_first() {
        let game = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(game.path().join("MISSIONS/M1")).unwrap();
        std::fs::write(game.path().join("MISSIONS/M1/mission.cfg"), b"m").unwrap();
        std::fs::write(game.path().join("mission.cfg"), b"root").unwrap();
        std::fs::write(game.path().join("objects.rlb"), b"o").unwrap();
        let vfs = Vfs::new(game.path());
        let m = p(r"missions\m1");
        assert_eq!(
            std::fs::read(vfs.resolve_in_mission(&m, &p("MISSION.CFG")).unwrap().path).unwrap(),
            b"m"
        );
        assert!(vfs.resolve_in_mission(&m, &p("objects.rlb")).is_ok());
        let e = vfs.resolve_in_mission(&m, &p("x.y")).unwrap_err();
        assert!(e.to_string().contains("also tried in mission"), "{e}");
    }

    #[test]
    fn a_path_is_resolved_once_until_refresh() {
        let game = tempfile::tempdir().unwrap();
        std::fs::write(game.path().join("Objects.RLB"), b"o").unwrap();
        let vfs = Vfs::new(game.path());
        for spelling in [
            "objects.rlb",
            "OBJECTS.RLB",
            r"\objects.rlb",
            "a/../Objects.rlb",
        ] {
            assert_eq!(vfs.read(&p(spelling)).unwrap(), b"o");
        }
        assert!(vfs.resolve(&p("late.txt")).is_err());
        let s = vfs.stats();
        assert_eq!((s.resolves, s.memo_hits, s.file_checks), (5, 3, 1), "{s:?}");
        std::fs::write(game.path().join("late.txt"), b"l").unwrap();
        assert!(
            vfs.resolve(&p("late.txt")).is_err(),
            "remembered until refresh"
        );
        vfs.refresh();
        assert_eq!(vfs.read(&p("LATE.TXT")).unwrap(), b"l");
    }
}
