//! Game data as the prototype resolver sees it: `objects.rlb` entries and archive
//! presence, read through the VFS and the archive cache.

use iron3d_nres::Family;
use iron3d_unitdat::{Presence, PrototypeSource, ResourceProbe, SourceError};
use iron3d_vfs::{ArchiveCache, GamePath, Vfs, VfsError};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// Name of the prototype registry archive in the game root.
pub const OBJECTS_RLB: &str = "objects.rlb";

/// The game directory: VFS plus archive cache.
pub struct GameData<'a> {
    /// Layered, case-insensitive view of the game directory.
    pub vfs: &'a Vfs,
    /// Shared archives and decoded blobs.
    pub cache: &'a ArchiveCache,
}

/// An open game directory that owns its VFS and archive cache; [`GameFiles::data`]
/// lends them as the [`GameData`] every loader takes (one cache scope while it lives).
pub struct GameFiles {
    /// Layered, case-insensitive view of the game directory.
    pub vfs: Vfs,
    /// Shared archives and decoded blobs.
    pub cache: ArchiveCache,
}

impl GameFiles {
    /// The game directory at `root`, read through `cache`.
    pub fn new(root: impl AsRef<Path>, cache: ArchiveCache) -> Self {
        Self {
            vfs: Vfs::new(root.as_ref()),
            cache,
        }
    }

    /// The view every loader takes.
    pub fn data(&self) -> GameData<'_> {
        GameData {
            vfs: &self.vfs,
            cache: &self.cache,
        }
    }
}

impl GameData<'_> {
    /// The real path of a game-root-relative archive, or `FileMissing`.
    pub fn archive_path(&self, name: &[u8]) -> Result<PathBuf, VfsError> {
        let text = String::from_utf8_lossy(name);
        let p = GamePath::parse(&text)?;
        Ok(self.vfs.resolve(&p)?.path)
    }

    /// The decoded bytes of `entry` in archive `archive` (game-root-relative).
    pub fn entry(&self, archive: &[u8], entry: &[u8]) -> Result<std::sync::Arc<[u8]>, VfsError> {
        let path = self.archive_path(archive)?;
        self.cache.read(&path, entry)
    }

    /// [`GameData::entry`] of an entry of `family`, its `type_id` checked by the cache's
    /// profile ([`iron3d_vfs::ArchiveCache::read_as`]).
    pub fn entry_as(
        &self,
        archive: &[u8],
        entry: &[u8],
        family: &Family,
    ) -> Result<std::sync::Arc<[u8]>, VfsError> {
        let path = self.archive_path(archive)?;
        self.cache.read_as(&path, entry, family)
    }

    /// Whether `archive` holds `resource`; a present entry of another family's tag is
    /// [`VfsError::TypeTag`] in the strict profile (a diagnostic in the compatible one).
    pub fn probe_as(
        &self,
        archive: &[u8],
        resource: &[u8],
        family: &Family,
    ) -> Result<Presence, VfsError> {
        let path = match self.archive_path(archive) {
            Ok(p) => p,
            Err(VfsError::FileMissing { .. } | VfsError::Path(_)) => {
                return Ok(Presence::ArchiveMissing);
            }
            Err(e) => return Err(e),
        };
        let handle = self.cache.open(&path)?;
        let result = match handle.find(resource) {
            Some(i) => self
                .cache
                .check_tag(&handle, i, family)
                .map(|()| Presence::Present),
            None => Ok(Presence::EntryMissing),
        };
        drop(handle);
        self.cache.close(&path);
        result
    }
}

/// A fingerprint of the game data read so far through `vfs` (e.g. by a mission load):
/// `mount:relative/path` → BLAKE3 hex of the file's contents, sorted. Replays compare it
/// to name the files that differ.
pub fn data_fingerprint(vfs: &Vfs) -> Result<std::collections::BTreeMap<String, String>, VfsError> {
    let mut out = std::collections::BTreeMap::new();
    for (mount, rel, path) in vfs.resolved_files() {
        let bytes = std::fs::read(&path).map_err(|source| VfsError::Io {
            path: path.display().to_string(),
            source,
        })?;
        out.insert(
            format!("{mount}:{rel}"),
            blake3::hash(&bytes).to_hex().to_string(),
        );
    }
    Ok(out)
}

impl PrototypeSource for GameData<'_> {
    fn payload(&self, key: &[u8]) -> Result<Option<Cow<'_, [u8]>>, SourceError> {
        match self.entry(OBJECTS_RLB.as_bytes(), key) {
            Ok(bytes) => Ok(Some(Cow::Owned(bytes.to_vec()))),
            Err(VfsError::EntryMissing { .. }) => Ok(None),
            Err(e) => Err(Box::new(e)),
        }
    }
}

impl ResourceProbe for GameData<'_> {
    fn probe(&self, archive: &[u8], resource: &[u8]) -> Result<Presence, SourceError> {
        let path = match self.archive_path(archive) {
            Ok(p) => p,
            Err(VfsError::FileMissing { .. } | VfsError::Path(_)) => {
                return Ok(Presence::ArchiveMissing);
            }
            Err(e) => return Err(Box::new(e)),
        };
        let handle = self
            .cache
            .open(&path)
            .map_err(|e| Box::new(e) as SourceError)?;
        let present = handle.find(resource).is_some();
        self.cache.close(&path);
        Ok(if present {
            Presence::Present
        } else {
            Presence::EntryMissing
        })
    }
}
