//! Game data as the prototype resolver sees it: `objects.rlb` entries and archive
//! presence, read through the VFS and the archive cache. Every archive entry is read
//! through the VFS's per-entry overlays ([`iron3d_vfs::overlay`]): a mod's archive or
//! directory of loose entries overrides single entries of the game's archives.

use iron3d_material::{Resolved as MaterialFound, resolve_material_with};
use iron3d_nres::Family;
use iron3d_unitdat::{Presence, PrototypeSource, ResourceProbe, SourceError};
use iron3d_vfs::{ArchiveCache, EntrySource, GamePath, ResolvedEntry, Vfs, VfsError};
use std::borrow::Cow;
use std::cell::RefCell;
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
    /// The real path of a game-root-relative archive file (the topmost mount's whole
    /// file), or `FileMissing`. Not for reading entries: that is [`GameData::entry`],
    /// which sees per-entry overlays.
    pub fn archive_path(&self, name: &[u8]) -> Result<PathBuf, VfsError> {
        Ok(self.vfs.resolve(&game_path(name)?)?.path)
    }

    /// Entry `entry` of archive `archive` (game-root-relative) as the mounts resolve it
    /// ([`Vfs::resolve_entry`]: the topmost mount that has it wins), with its stored name
    /// and attributes.
    pub fn resolve_entry(&self, archive: &[u8], entry: &[u8]) -> Result<ResolvedEntry, VfsError> {
        self.vfs
            .resolve_entry(&game_path(archive)?, entry, self.cache)
    }

    /// The decoded bytes of `entry` in archive `archive` (game-root-relative), from the
    /// mount that provides it ([`Vfs::read_entry`]).
    pub fn entry(&self, archive: &[u8], entry: &[u8]) -> Result<std::sync::Arc<[u8]>, VfsError> {
        self.vfs.read_entry(&game_path(archive)?, entry, self.cache)
    }

    /// [`GameData::entry`] of an entry of `family`, its `type_id` checked by the cache's
    /// profile ([`Vfs::read_entry_as`]; loose overlay entries carry no tag and are not
    /// checked, PD-LOOSE-ENTRY-UNTAGGED).
    pub fn entry_as(
        &self,
        archive: &[u8],
        entry: &[u8],
        family: &Family,
    ) -> Result<std::sync::Arc<[u8]>, VfsError> {
        self.vfs
            .read_entry_as(&game_path(archive)?, entry, family, self.cache)
    }

    /// Whether `archive` holds `resource` (through the overlays); a present archive entry
    /// of another family's tag is [`VfsError::TypeTag`] in the strict profile (a
    /// diagnostic in the compatible one); a loose overlay entry is present untagged.
    pub fn probe_as(
        &self,
        archive: &[u8],
        resource: &[u8],
        family: &Family,
    ) -> Result<Presence, VfsError> {
        let found = match self.resolve_entry(archive, resource) {
            Ok(found) => found,
            Err(VfsError::FileMissing { .. } | VfsError::Path(_)) => {
                return Ok(Presence::ArchiveMissing);
            }
            Err(VfsError::EntryMissing { .. }) => return Ok(Presence::EntryMissing),
            Err(e) => return Err(e),
        };
        let EntrySource::Archive { path, .. } = &found.source else {
            return Ok(Presence::Present);
        };
        let handle = self.cache.open(path)?;
        let result = match handle.find(resource) {
            Some(i) => self
                .cache
                .check_tag(&handle, i, family)
                .map(|()| Presence::Present),
            None => Ok(Presence::EntryMissing),
        };
        drop(handle);
        self.cache.close(path);
        result
    }

    /// Material `name` of the material archive `lib` through the overlays, with the
    /// fallback order named → `DEFAULT` → first entry ([`resolve_material_with`]; the
    /// first entry of the merged directory, [`Vfs::entry_names`]). `Ok(None)` when none
    /// applies; `FileMissing` when no mount has `lib`.
    pub fn resolve_material(
        &self,
        lib: &[u8],
        name: &[u8],
    ) -> Result<Option<MaterialFound<ResolvedEntry>>, VfsError> {
        let path = game_path(lib)?;
        let failure: RefCell<Option<VfsError>> = RefCell::new(None);
        let look = |n: &[u8]| match self.vfs.resolve_entry(&path, n, self.cache) {
            Ok(found) => Some(found),
            Err(VfsError::EntryMissing { .. }) => None,
            Err(e) => {
                failure.borrow_mut().get_or_insert(e);
                None
            }
        };
        let found = resolve_material_with(name, look, || {
            if failure.borrow().is_some() {
                return None;
            }
            match self.vfs.entry_names(&path, self.cache) {
                Ok(names) => look(names.first()?),
                Err(e) => {
                    failure.borrow_mut().get_or_insert(e);
                    None
                }
            }
        });
        match failure.into_inner() {
            Some(e) => Err(e),
            None => Ok(found),
        }
    }
}

fn game_path(name: &[u8]) -> Result<GamePath, VfsError> {
    Ok(GamePath::parse(&String::from_utf8_lossy(name))?)
}

/// A fingerprint of the game data read so far through `vfs` (e.g. by a mission load):
/// `mount:relative/path` → BLAKE3 hex of the file's contents, sorted. Replays compare it
/// to name the files that differ.
pub fn data_fingerprint(vfs: &Vfs) -> Result<std::collections::BTreeMap<String, String>, VfsError> {
    let mut out = std::collections::BTreeMap::new();
    for (mount, rel, path) in vfs.resolved_files() {
        // Streamed from a regular file only (PD-VFS-REGULAR-FILES): archives may be big.
        let (mut file, _) = iron3d_vfs::files::open_regular(&path)?;
        let mut hasher = blake3::Hasher::new();
        std::io::copy(&mut file, &mut hasher).map_err(|source| VfsError::Io {
            path: path.display().to_string(),
            source,
        })?;
        out.insert(
            format!("{mount}:{rel}"),
            hasher.finalize().to_hex().to_string(),
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
        match self.resolve_entry(archive, resource) {
            Ok(_) => Ok(Presence::Present),
            Err(VfsError::FileMissing { .. } | VfsError::Path(_)) => Ok(Presence::ArchiveMissing),
            Err(VfsError::EntryMissing { .. }) => Ok(Presence::EntryMissing),
            Err(e) => Err(Box::new(e)),
        }
    }
}
