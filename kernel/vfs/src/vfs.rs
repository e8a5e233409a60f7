//! The game-directory VFS: mounted roots (the game directory first, data overlays after:
//! the last mounted wins), legacy-path resolution through case-insensitive indexes, and
//! mission-context paths.

use crate::error::VfsError;
use crate::index::DirIndex;
use crate::path::GamePath;
use std::path::{Path, PathBuf};

/// One mounted directory tree.
#[derive(Debug)]
pub struct Mount {
    /// Name used in diagnostics (`game`, a mod id, …).
    pub name: String,
    index: DirIndex,
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

/// Layered, case-insensitive view of the game directory and its overlays.
#[derive(Debug, Default)]
pub struct Vfs {
    mounts: Vec<Mount>,
}

impl Vfs {
    /// A VFS over the game directory `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let mut v = Self::default();
        v.mount("game", root);
        v
    }

    /// Mounts an overlay; it shadows every earlier mount for the files it contains.
    pub fn mount(&mut self, name: &str, root: impl Into<PathBuf>) {
        self.mounts.push(Mount {
            name: name.to_owned(),
            index: DirIndex::new(root),
        });
    }

    /// The mounts, lowest priority first.
    pub fn mounts(&self) -> &[Mount] {
        &self.mounts
    }

    /// Forgets cached directory listings (files were added or removed).
    pub fn refresh(&self) {
        for m in &self.mounts {
            m.index.refresh();
        }
    }

    /// Resolves a game-root-relative path: the last mount that has the file wins.
    pub fn resolve(&self, path: &GamePath) -> Result<Resolved, VfsError> {
        for m in self.mounts.iter().rev() {
            if let Some(p) = m.index.find(path.components()) {
                if p.is_file() {
                    return Ok(Resolved {
                        path: p,
                        mount: m.name.clone(),
                    });
                }
            }
        }
        Err(VfsError::FileMissing {
            path: path.original().to_owned(),
            searched: self
                .mounts
                .iter()
                .rev()
                .map(|m| m.root().display().to_string())
                .collect(),
        })
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

    /// Reads a whole loose file.
    pub fn read(&self, path: &GamePath) -> Result<Vec<u8>, VfsError> {
        let r = self.resolve(path)?;
        std::fs::read(&r.path).map_err(|source| VfsError::Io {
            path: r.path.display().to_string(),
            source,
        })
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
}
