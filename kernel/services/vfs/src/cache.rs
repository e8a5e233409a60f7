//! The archive cache: memory-mapped archives shared per normalised path with owner
//! counting, an owned entry index built once per archive, and a decoded-blob cache that
//! is independent of archive lifetime (closing an archive keeps its decoded blobs until
//! they are evicted).
//!
//! **Scopes** ([`ArchiveCache::scope`]): a mission load, a graph or a corpus run opens a
//! scope. Inside it every path is canonicalised once, every archive is checked for
//! replacement on disk once (one `stat`) and mapped once, and stays mapped until the
//! scope ends; a blob is decoded once per cache lifetime (budget permitting). Outside a
//! scope each request re-checks the file, so long-lived tools never see stale data.
//! A replaced archive is noticed by the next scope (or the next unscoped request).

use crate::error::VfsError;
use iron3d_nres::{Diagnostic, EntryRef, Family, Nres};
use iron3d_rsli::{Method, Rsli};
use memmap2::Mmap;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Archive container kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ArchiveKind {
    /// NRes (`"NRes"` magic).
    Nres,
    /// RsLi (`"NL"` magic).
    Rsli,
}

impl ArchiveKind {
    /// The kind named by the first bytes of `data`, if any.
    pub fn sniff(data: &[u8]) -> Option<Self> {
        if data.starts_with(b"NRes") {
            Some(ArchiveKind::Nres)
        } else if data.starts_with(b"NL") {
            Some(ArchiveKind::Rsli)
        } else {
            None
        }
    }
}

/// Strict or compatible parsing for every archive the cache opens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReadMode {
    /// Only fully valid archives.
    #[default]
    Strict,
    /// Named quirks of the original tolerated (and reported in the log).
    Compatible,
}

#[derive(Clone, Debug)]
enum Payload {
    /// Stored bytes (NRes entries, RsLi raw entries).
    Stored,
    /// An RsLi method to decode.
    Rsli {
        method: Method,
        unpacked: usize,
        key: u16,
    },
}

#[derive(Clone, Debug)]
struct EntryMeta {
    name: Vec<u8>,
    range: Range<usize>,
    payload: Payload,
    /// NRes `type_id, attr1, attr2, attr3` (zero for RsLi).
    attrs: [u32; 4],
}

/// One mapped archive with its owned entry index.
#[derive(Debug)]
pub struct OpenArchive {
    path: PathBuf,
    kind: ArchiveKind,
    map: Mmap,
    entries: Vec<EntryMeta>,
    by_name: BTreeMap<Vec<u8>, usize>,
    /// Length and mtime of the file that was mapped (from the open handle).
    stamp: Option<Stamp>,
}

fn nres_key(name: &[u8]) -> Vec<u8> {
    name.to_ascii_uppercase()
}

impl OpenArchive {
    fn open(path: &Path, mode: ReadMode) -> Result<Self, VfsError> {
        let shown = path.display().to_string();
        // A FIFO or a device is refused before it could block or be mapped.
        let (file, _) = crate::files::open_regular(path)?;
        // SAFETY: the mapping is read-only and private to this process. A concurrent
        // truncation of the file by another process would fault the reader; archives
        // are game data that the engine never writes while running.
        let map = unsafe { Mmap::map(&file) }.map_err(|source| VfsError::Io {
            path: shown.clone(),
            source,
        })?;
        let stamp = file.metadata().ok().map(|m| (m.len(), m.modified().ok()));
        let kind = ArchiveKind::sniff(&map).ok_or_else(|| VfsError::NotAnArchive {
            path: shown.clone(),
            magic: map.iter().take(4).copied().collect(),
        })?;
        let mut entries = Vec::new();
        let mut by_name = BTreeMap::new();
        match kind {
            ArchiveKind::Nres => {
                let options = match mode {
                    ReadMode::Strict => iron3d_nres::ReadOptions::strict(),
                    ReadMode::Compatible => iron3d_nres::ReadOptions::compatible(),
                };
                let nres = Nres::parse_with(&map, options).map_err(|source| VfsError::Nres {
                    path: shown.clone(),
                    source: Box::new(source),
                })?;
                for d in nres.diagnostics() {
                    tracing::warn!(archive = %shown, "compatible read: {d:?}");
                }
                for e in nres.entries() {
                    by_name.entry(nres_key(e.name())).or_insert(entries.len());
                    entries.push(EntryMeta {
                        name: e.name().to_vec(),
                        range: e.data_range(),
                        payload: Payload::Stored,
                        attrs: [e.type_id(), e.attr1(), e.attr2(), e.attr3()],
                    });
                }
            }
            ArchiveKind::Rsli => {
                let options = match mode {
                    ReadMode::Strict => iron3d_rsli::ReadOptions::default(),
                    ReadMode::Compatible => iron3d_rsli::ReadOptions::compatible(),
                };
                let rsli = Rsli::parse_with(&map, options).map_err(|source| VfsError::Rsli {
                    path: shown.clone(),
                    source: Box::new(source),
                })?;
                for e in rsli.entries() {
                    let start = e.data_offset();
                    let range = start..start + e.packed_data().len();
                    let payload = match e.method() {
                        Method::Raw => Payload::Stored,
                        method => Payload::Rsli {
                            method,
                            unpacked: usize::try_from(e.unpacked_size()).unwrap_or(usize::MAX),
                            key: e.transform_key(),
                        },
                    };
                    let range = if matches!(payload, Payload::Stored) {
                        start
                            ..start
                                + usize::try_from(e.unpacked_size())
                                    .unwrap_or(0)
                                    .min(e.packed_data().len())
                    } else {
                        range
                    };
                    by_name
                        .entry(e.name().to_ascii_uppercase())
                        .or_insert(entries.len());
                    entries.push(EntryMeta {
                        name: e.name().to_vec(),
                        range,
                        payload,
                        attrs: [0; 4],
                    });
                }
            }
        }
        Ok(Self {
            path: path.to_owned(),
            kind,
            map,
            entries,
            by_name,
            stamp,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// NRes or RsLi.
    pub fn kind(&self) -> ArchiveKind {
        self.kind
    }

    /// Mapped size in bytes.
    pub fn mapped_len(&self) -> usize {
        self.map.len()
    }

    /// Entry names in directory order.
    pub fn names(&self) -> impl Iterator<Item = &[u8]> {
        self.entries.iter().map(|e| e.name.as_slice())
    }

    /// The index of entry `name` (ASCII-case-insensitive).
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        self.by_name.get(&name.to_ascii_uppercase()).copied()
    }

    /// NRes `[type_id, attr1, attr2, attr3]` of entry `index` (zeros for RsLi entries).
    pub fn attrs(&self, index: usize) -> Option<[u32; 4]> {
        self.entries.get(index).map(|e| e.attrs)
    }

    /// The NRes `type_id` of entry `index`; `None` for RsLi entries (RsLi carries no
    /// tags) and for an index out of range.
    pub fn type_id(&self, index: usize) -> Option<u32> {
        match self.kind {
            ArchiveKind::Nres => self.entries.get(index).map(|e| e.attrs[0]),
            ArchiveKind::Rsli => None,
        }
    }

    /// Checks that entry `index` carries the tag of `family` under `options`
    /// ([`iron3d_nres::ReadOptions::check_tag`]); RsLi entries always pass. A tolerated
    /// mismatch comes back as the diagnostic.
    pub fn check_tag(
        &self,
        index: usize,
        family: &Family,
        options: &iron3d_nres::ReadOptions,
    ) -> Result<Option<Diagnostic>, VfsError> {
        let Some(found) = self.type_id(index) else {
            return Ok(None);
        };
        let entry = EntryRef {
            index,
            name: self.name(index).map(<[u8]>::to_vec),
        };
        options
            .check_tag(entry, found, family)
            .map_err(|source| VfsError::TypeTag {
                archive: self.path.display().to_string(),
                source: Box::new(source),
            })
    }

    /// The name of entry `index` as stored.
    pub fn name(&self, index: usize) -> Option<&[u8]> {
        self.entries.get(index).map(|e| e.name.as_slice())
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True for an archive without entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The stored bytes of entry `index` when they need no decoding (zero-copy).
    pub fn stored(&self, index: usize) -> Option<&[u8]> {
        let e = self.entries.get(index)?;
        matches!(e.payload, Payload::Stored).then(|| &self.map[e.range.clone()])
    }

    /// The decoded payload of entry `index` (a copy for stored entries).
    fn decode(&self, index: usize) -> Result<Vec<u8>, VfsError> {
        let Some(e) = self.entries.get(index) else {
            return Err(VfsError::EntryMissing {
                archive: self.path.display().to_string(),
                entry: format!("#{index}"),
            });
        };
        match &e.payload {
            Payload::Stored => Ok(self.map[e.range.clone()].to_vec()),
            Payload::Rsli {
                method,
                unpacked,
                key,
            } => iron3d_rsli::codec::decode(*method, &self.map[e.range.clone()], *unpacked, *key)
                .map_err(|source| VfsError::Rsli {
                    path: self.path.display().to_string(),
                    source: Box::new(source.in_entry(index, &e.name)),
                }),
        }
    }
}

/// A shared handle to an open archive; the cache counts handles per path.
pub type ArchiveHandle = Arc<OpenArchive>;

/// Observable counters of the cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Archives currently open (with at least one owner).
    pub open_archives: usize,
    /// Bytes currently mapped.
    pub mapped_bytes: u64,
    /// Bytes of decoded blobs currently cached.
    pub decoded_bytes: u64,
    /// Blob requests served from the cache.
    pub hits: u64,
    /// Blob requests that decoded.
    pub misses: u64,
    /// Blobs evicted by the budget or by an invalidation.
    pub evictions: u64,
    /// Archives found replaced on disk (their blobs dropped).
    pub invalidations: u64,
    /// Archive files opened and mapped (each one `open` + `mmap`).
    pub maps: u64,
    /// Paths canonicalised (each a `realpath`: one `readlink` per component).
    pub canonicalisations: u64,
    /// Replacement checks (each one `stat`).
    pub stamp_checks: u64,
}

/// A tolerated `type_id` mismatch seen by a compatible cache (once per archive entry).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagDiagnostic {
    /// The archive file.
    pub archive: String,
    /// The quirk and the strict error it tolerated.
    pub diagnostic: Diagnostic,
}

impl std::fmt::Display for TagDiagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.archive, self.diagnostic)
    }
}

struct Slot {
    archive: ArchiveHandle,
    owners: usize,
}

struct Blob {
    data: Arc<[u8]>,
    last_use: u64,
    /// The NRes entry's tag (`None` for RsLi entries).
    tag: Option<EntryTag>,
}

/// Index, stored name and `type_id` of an NRes entry.
#[derive(Clone)]
struct EntryTag {
    index: usize,
    name: Vec<u8>,
    type_id: u32,
}

/// Identity of a file's contents as far as the file system tells: length and mtime.
type Stamp = (u64, Option<std::time::SystemTime>);

fn stamp_of(path: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()))
}

/// What an open scope remembers; cleared when the last scope ends.
#[derive(Default)]
struct ScopeState {
    depth: usize,
    canonical: BTreeMap<PathBuf, PathBuf>,
    checked: BTreeSet<PathBuf>,
    held: BTreeSet<PathBuf>,
}

#[derive(Default)]
struct Inner {
    archives: BTreeMap<PathBuf, Slot>,
    blobs: BTreeMap<(PathBuf, Vec<u8>), Blob>,
    stamps: BTreeMap<PathBuf, Stamp>,
    clock: u64,
    stats: CacheStats,
    scope: ScopeState,
    diagnostics: BTreeMap<(PathBuf, usize), TagDiagnostic>,
}

/// Shared archive handles and decoded blobs, bounded by a byte budget for blobs.
pub struct ArchiveCache {
    mode: ReadMode,
    options: iron3d_nres::ReadOptions,
    budget: u64,
    inner: Mutex<Inner>,
}

/// An open scope of an [`ArchiveCache`] (see the module docs); ends when dropped.
/// Scopes nest: the state is kept until the outermost one ends.
#[must_use = "the scope ends when dropped"]
pub struct CacheScope<'c> {
    cache: &'c ArchiveCache,
}

impl Drop for CacheScope<'_> {
    fn drop(&mut self) {
        let mut inner = self.cache.lock();
        inner.scope.depth = inner.scope.depth.saturating_sub(1);
        if inner.scope.depth > 0 {
            return;
        }
        let state = std::mem::take(&mut inner.scope);
        for key in state.held {
            ArchiveCache::release(&mut inner, &key);
        }
        ArchiveCache::recount(&mut inner);
    }
}

impl ArchiveCache {
    /// A cache parsing with `mode`, keeping at most `blob_budget` decoded bytes. Typed
    /// reads ([`ArchiveCache::read_as`]) check `type_id` tags: strictly (an error) in
    /// [`ReadMode::Strict`], as diagnostics in [`ReadMode::Compatible`].
    pub fn new(mode: ReadMode, blob_budget: u64) -> Self {
        let options = match mode {
            ReadMode::Strict => iron3d_nres::ReadOptions::strict(),
            ReadMode::Compatible => iron3d_nres::ReadOptions::compatible(),
        };
        Self {
            mode,
            options,
            budget: blob_budget,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The same cache with rule PD-TAG-MESH relaxed: model entries are not checked for
    /// the `MESH` tag (FORMATS §1.7: from fparkan source, unconfirmed).
    #[must_use]
    pub fn relax_mesh_tag(mut self) -> Self {
        self.options = self.options.relax_mesh_tag();
        self
    }

    /// The parse mode.
    pub fn mode(&self) -> ReadMode {
        self.mode
    }

    /// The NRes options typed reads check tags with.
    pub fn tag_options(&self) -> &iron3d_nres::ReadOptions {
        &self.options
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Opens a scope: until it (and every scope opened inside it) is dropped, paths are
    /// canonicalised once, archives are checked for replacement once and stay mapped.
    pub fn scope(&self) -> CacheScope<'_> {
        self.lock().scope.depth += 1;
        CacheScope { cache: self }
    }

    /// The cache key of `path`: its canonical form (memoised inside a scope).
    fn key_of(&self, path: &Path) -> PathBuf {
        {
            let inner = self.lock();
            if inner.scope.depth > 0 {
                if let Some(k) = inner.scope.canonical.get(path) {
                    return k.clone();
                }
            }
        }
        let key = path.canonicalize().unwrap_or_else(|_| path.to_owned());
        let mut inner = self.lock();
        inner.stats.canonicalisations += 1;
        if inner.scope.depth > 0 {
            inner.scope.canonical.insert(path.to_owned(), key.clone());
        }
        key
    }

    /// Opens (or shares) the archive at `path`: one mapping per normalised path; each
    /// call adds an owner that [`ArchiveCache::close`] removes. Inside a scope the scope
    /// holds one more owner, so the mapping lives until the scope ends.
    pub fn open(&self, path: &Path) -> Result<ArchiveHandle, VfsError> {
        let key = self.key_of(path);
        self.open_key(&key)
    }

    fn open_key(&self, key: &Path) -> Result<ArchiveHandle, VfsError> {
        self.invalidate_if_replaced(key);
        let mut inner = self.lock();
        if let Some(slot) = inner.archives.get_mut(key) {
            slot.owners += 1;
            return Ok(slot.archive.clone());
        }
        drop(inner);
        let archive = Arc::new(OpenArchive::open(key, self.mode)?);
        let mut inner = self.lock();
        inner.stats.maps += 1;
        if let Some(st) = archive.stamp {
            inner.stamps.entry(key.to_owned()).or_insert(st);
        }
        let scoped = inner.scope.depth > 0 && inner.scope.held.insert(key.to_owned());
        if scoped {
            // Just mapped: this is the file the scope sees, no further check needed.
            inner.scope.checked.insert(key.to_owned());
        }
        let slot = inner
            .archives
            .entry(key.to_owned())
            .or_insert_with(|| Slot {
                archive: archive.clone(),
                owners: 0,
            });
        slot.owners += 1 + usize::from(scoped);
        let handle = slot.archive.clone();
        Self::recount(&mut inner);
        Ok(handle)
    }

    /// Drops one owner of the archive at `path`; the mapping goes with the last owner.
    /// Decoded blobs stay cached. Returns the owners left.
    pub fn close(&self, path: &Path) -> usize {
        let key = self.key_of(path);
        let mut inner = self.lock();
        let left = Self::release(&mut inner, &key);
        Self::recount(&mut inner);
        left
    }

    fn release(inner: &mut Inner, key: &Path) -> usize {
        let left = match inner.archives.get_mut(key) {
            Some(slot) => {
                slot.owners = slot.owners.saturating_sub(1);
                slot.owners
            }
            None => return 0,
        };
        if left == 0 {
            inner.archives.remove(key);
        }
        left
    }

    fn recount(inner: &mut Inner) {
        inner.stats.open_archives = inner.archives.len();
        inner.stats.mapped_bytes = inner
            .archives
            .values()
            .map(|s| s.archive.mapped_len() as u64)
            .sum();
        inner.stats.decoded_bytes = inner.blobs.values().map(|b| b.data.len() as u64).sum();
    }

    /// The decoded payload of entry `name` of the archive at `path` (opened for the
    /// duration of the call when not already open). A missing archive file and a missing
    /// entry are different errors. No `type_id` check: see [`ArchiveCache::read_as`].
    pub fn read(&self, path: &Path, name: &[u8]) -> Result<Arc<[u8]>, VfsError> {
        self.read_tagged(path, name).map(|(data, _)| data)
    }

    /// [`ArchiveCache::read`] of an entry of `family`: its `type_id` is checked
    /// (strict: [`VfsError::TypeTag`], `[type_id] entry #i "name": expected WEAR
    /// (0x52414557), found 0x0`; compatible: a [`TagDiagnostic`], logged once and kept in
    /// [`ArchiveCache::tag_diagnostics`]). RsLi entries carry no tag and always pass.
    pub fn read_as(
        &self,
        path: &Path,
        name: &[u8],
        family: &Family,
    ) -> Result<Arc<[u8]>, VfsError> {
        let (data, tag) = self.read_tagged(path, name)?;
        if let Some(tag) = tag {
            let entry = EntryRef {
                index: tag.index,
                name: Some(tag.name),
            };
            match self.options.check_tag(entry, tag.type_id, family) {
                Ok(None) => {}
                Ok(Some(d)) => self.note_diagnostic(path, tag.index, d),
                Err(source) => {
                    return Err(VfsError::TypeTag {
                        archive: path.display().to_string(),
                        source: Box::new(source),
                    });
                }
            }
        }
        Ok(data)
    }

    /// Checks entry `index` of an open archive for `family` like
    /// [`ArchiveCache::read_as`] (errors and diagnostics alike).
    pub fn check_tag(
        &self,
        archive: &OpenArchive,
        index: usize,
        family: &Family,
    ) -> Result<(), VfsError> {
        if let Some(d) = archive.check_tag(index, family, &self.options)? {
            self.note_diagnostic(archive.path(), index, d);
        }
        Ok(())
    }

    fn note_diagnostic(&self, path: &Path, index: usize, diagnostic: Diagnostic) {
        let mut inner = self.lock();
        let key = (path.to_owned(), index);
        if inner.diagnostics.contains_key(&key) {
            return;
        }
        let d = TagDiagnostic {
            archive: path.display().to_string(),
            diagnostic,
        };
        tracing::warn!(target: "iron3d::vfs", "compatible read: {d}");
        inner.diagnostics.insert(key, d);
    }

    /// Every tolerated `type_id` mismatch seen so far, by archive and entry index.
    pub fn tag_diagnostics(&self) -> Vec<TagDiagnostic> {
        self.lock().diagnostics.values().cloned().collect()
    }

    fn read_tagged(
        &self,
        path: &Path,
        name: &[u8],
    ) -> Result<(Arc<[u8]>, Option<EntryTag>), VfsError> {
        let key = self.key_of(path);
        self.invalidate_if_replaced(&key);
        let blob_key = (key.clone(), name.to_ascii_uppercase());
        {
            let mut inner = self.lock();
            inner.clock += 1;
            let now = inner.clock;
            if let Some(b) = inner.blobs.get_mut(&blob_key) {
                b.last_use = now;
                let found = (b.data.clone(), b.tag.clone());
                inner.stats.hits += 1;
                return Ok(found);
            }
        }
        let archive = self.open_key(&key).map_err(|e| match e {
            VfsError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                VfsError::FileMissing {
                    path: path.display().to_string(),
                    searched: Vec::new(),
                }
            }
            other => other,
        })?;
        let result = archive
            .find(name)
            .ok_or_else(|| VfsError::EntryMissing {
                archive: path.display().to_string(),
                entry: String::from_utf8_lossy(name).into_owned(),
            })
            .and_then(|i| {
                let tag = archive.type_id(i).map(|type_id| EntryTag {
                    index: i,
                    name: archive.name(i).unwrap_or_default().to_vec(),
                    type_id,
                });
                Ok((archive.decode(i)?, tag))
            });
        drop(archive);
        let mut inner = self.lock();
        Self::release(&mut inner, &key);
        let (data, tag) = match result {
            Ok(x) => x,
            Err(e) => {
                Self::recount(&mut inner);
                return Err(e);
            }
        };
        let data: Arc<[u8]> = Arc::from(data);
        inner.stats.misses += 1;
        inner.clock += 1;
        let now = inner.clock;
        inner.blobs.insert(
            blob_key,
            Blob {
                data: data.clone(),
                last_use: now,
                tag: tag.clone(),
            },
        );
        self.evict(&mut inner);
        Self::recount(&mut inner);
        Ok((data, tag))
    }

    /// Drops the blobs and the shared mapping of an archive whose file changed (length or
    /// mtime) since it was mapped: a replaced archive is never served stale. Inside a
    /// scope each archive is checked once (one `stat`). Handles already given out keep
    /// the old mapping until they are dropped.
    fn invalidate_if_replaced(&self, key: &Path) {
        {
            let mut inner = self.lock();
            if !inner.stamps.contains_key(key) {
                return;
            }
            if inner.scope.depth > 0 && !inner.scope.checked.insert(key.to_owned()) {
                return;
            }
            inner.stats.stamp_checks += 1;
        }
        let now = stamp_of(key);
        let mut inner = self.lock();
        let Some(&recorded) = inner.stamps.get(key) else {
            return;
        };
        if Some(recorded) == now {
            return;
        }
        let before = inner.blobs.len();
        inner.blobs.retain(|(p, _), _| p != key);
        let dropped = (before - inner.blobs.len()) as u64;
        inner.stats.evictions += dropped;
        inner.archives.remove(key);
        inner.scope.held.remove(key);
        inner.stamps.remove(key);
        inner.diagnostics.retain(|(p, _), _| p != key);
        inner.stats.invalidations += 1;
        tracing::info!(target: "iron3d::vfs", archive = %key.display(), "archive replaced on disk: cached blobs dropped");
        Self::recount(&mut inner);
    }

    fn evict(&self, inner: &mut Inner) {
        let mut total: u64 = inner.blobs.values().map(|b| b.data.len() as u64).sum();
        while total > self.budget && inner.blobs.len() > 1 {
            let Some(oldest) = inner
                .blobs
                .iter()
                .min_by_key(|(_, b)| b.last_use)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(b) = inner.blobs.remove(&oldest) {
                total -= b.data.len() as u64;
                inner.stats.evictions += 1;
            }
        }
    }

    /// Drops every decoded blob not used since `older_than` requests (maintenance; never
    /// touches open archives).
    pub fn purge_unused(&self, older_than: u64) -> usize {
        let mut inner = self.lock();
        let cutoff = inner.clock.saturating_sub(older_than);
        let before = inner.blobs.len();
        inner.blobs.retain(|_, b| b.last_use >= cutoff);
        let removed = before - inner.blobs.len();
        inner.stats.evictions += removed as u64;
        Self::recount(&mut inner);
        removed
    }

    /// Current counters.
    pub fn stats(&self) -> CacheStats {
        self.lock().stats
    }

    /// Owners of the archive at `path` (0 when not open); a scope's own hold counts.
    pub fn owners(&self, path: &Path) -> usize {
        let key = self.key_of(path);
        self.lock().archives.get(&key).map_or(0, |s| s.owners)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iron3d_nres::{NewEntry, NresWriter};
    use iron3d_rsli::RsliBuilder;

    fn nres_file(dir: &Path) -> PathBuf {
        let mut w = NresWriter::new();
        w.push(NewEntry::new(b"Alpha.txt", 1, b"alpha".to_vec()).unwrap());
        w.push(NewEntry::new(b"beta.bin", 2, vec![7u8; 100]).unwrap());
        let p = dir.join("test.lib");
        std::fs::write(&p, w.finish().unwrap()).unwrap();
        p
    }

    fn rsli_file(dir: &Path) -> PathBuf {
        let mut b = RsliBuilder::new();
        b.add("LZ.DAT", Method::Lzss, b"hello hello hello hello".to_vec());
        b.add("HUF.DAT", Method::Lzhuf, vec![3u8; 500]);
        b.add("RAW.DAT", Method::Raw, b"raw".to_vec());
        let p = dir.join("test.rlb");
        std::fs::write(&p, b.build().unwrap()).unwrap();
        p
    }

    #[test]
    fn one_mapping_per_path_with_owner_counting() {
        let dir = tempfile::tempdir().unwrap();
        let p = nres_file(dir.path());
        let cache = ArchiveCache::new(ReadMode::Strict, 1 << 20);
        let a = cache.open(&p).unwrap();
        let b = cache.open(&dir.path().join(".").join("test.lib")).unwrap();
        assert!(Arc::ptr_eq(&a, &b), "same normalised path, same mapping");
        assert_eq!(cache.owners(&p), 2);
        assert_eq!(cache.stats().open_archives, 1);
        assert_eq!(cache.close(&p), 1);
        assert_eq!(cache.close(&p), 0);
        assert_eq!(cache.stats().open_archives, 0);
        assert_eq!(cache.stats().mapped_bytes, 0);
        assert_eq!(a.find(b"ALPHA.TXT"), Some(0));
        assert_eq!(a.stored(0), Some(&b"alpha"[..]));
    }

    #[test]
    fn blobs_outlive_their_archive_and_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        let n = nres_file(dir.path());
        let r = rsli_file(dir.path());
        let cache = ArchiveCache::new(ReadMode::Strict, 1 << 20);
        assert_eq!(&*cache.read(&n, b"BETA.BIN").unwrap(), &[7u8; 100][..]);
        assert_eq!(
            &*cache.read(&r, b"lz.dat").unwrap(),
            b"hello hello hello hello"
        );
        assert_eq!(&*cache.read(&r, b"huf.dat").unwrap(), &[3u8; 500][..]);
        assert_eq!(&*cache.read(&r, b"RAW.DAT").unwrap(), b"raw");
        let s = cache.stats();
        assert_eq!(
            (s.open_archives, s.misses, s.hits),
            (0, 4, 0),
            "archives closed after reading"
        );
        assert_eq!(s.decoded_bytes, 100 + 23 + 500 + 3);
        cache.read(&n, b"beta.bin").unwrap();
        assert_eq!(
            cache.stats().hits,
            1,
            "served from the blob cache without reopening"
        );
    }

    #[test]
    fn missing_file_and_missing_entry_are_different_errors() {
        let dir = tempfile::tempdir().unwrap();
        let n = nres_file(dir.path());
        let cache = ArchiveCache::new(ReadMode::Strict, 1 << 20);
        assert!(matches!(
            cache.read(&dir.path().join("none.lib"), b"x"),
            Err(VfsError::FileMissing { .. })
        ));
        let e = cache.read(&n, b"gamma").unwrap_err();
        assert!(matches!(e, VfsError::EntryMissing { .. }), "{e}");
        assert!(e.to_string().contains("gamma") && e.to_string().contains("test.lib"));
        let junk = dir.path().join("junk.lib");
        std::fs::write(&junk, b"JUNKJUNK").unwrap();
        assert!(matches!(
            cache.open(&junk),
            Err(VfsError::NotAnArchive { .. })
        ));
    }

    #[test]
    fn a_replaced_archive_is_never_served_stale() {
        let dir = tempfile::tempdir().unwrap();
        let p = nres_file(dir.path());
        let cache = ArchiveCache::new(ReadMode::Strict, 1 << 20);
        assert_eq!(&*cache.read(&p, b"alpha.txt").unwrap(), b"alpha");
        let mut w = NresWriter::new();
        w.push(NewEntry::new(b"Alpha.txt", 1, b"ALPHA, the second build".to_vec()).unwrap());
        std::fs::write(&p, w.finish().unwrap()).unwrap();
        assert_eq!(
            &*cache.read(&p, b"alpha.txt").unwrap(),
            b"ALPHA, the second build"
        );
        assert_eq!(cache.stats().invalidations, 1);
        assert!(matches!(
            cache.read(&p, b"beta.bin"),
            Err(VfsError::EntryMissing { .. })
        ));
    }

    #[test]
    fn the_budget_evicts_least_recently_used_blobs() {
        let dir = tempfile::tempdir().unwrap();
        let r = rsli_file(dir.path());
        let cache = ArchiveCache::new(ReadMode::Strict, 520);
        cache.read(&r, b"HUF.DAT").unwrap();
        cache.read(&r, b"LZ.DAT").unwrap();
        cache.read(&r, b"RAW.DAT").unwrap();
        let s = cache.stats();
        assert!(s.decoded_bytes <= 520, "{s:?}");
        assert_eq!(s.evictions, 1);
        assert_eq!(
            cache.purge_unused(0),
            1,
            "only the blob used by the last request survives"
        );
    }

    #[test]
    fn a_scope_maps_canonicalises_and_checks_each_archive_once() {
        let dir = tempfile::tempdir().unwrap();
        let n = nres_file(dir.path());
        let r = rsli_file(dir.path());
        let cache = ArchiveCache::new(ReadMode::Strict, 1 << 20);
        {
            let _scope = cache.scope();
            for _ in 0..100 {
                for name in [&b"alpha.txt"[..], b"BETA.BIN"] {
                    cache.read(&n, name).unwrap();
                }
                for name in [&b"LZ.DAT"[..], b"huf.dat", b"raw.dat"] {
                    cache.read(&r, name).unwrap();
                }
                let h = cache.open(&n).unwrap();
                assert!(h.find(b"alpha.txt").is_some());
                drop(h);
                cache.close(&n);
            }
            let s = cache.stats();
            assert_eq!(s.maps, 2, "each archive mapped once: {s:?}");
            assert_eq!(
                s.canonicalisations, 2,
                "each path canonicalised once: {s:?}"
            );
            assert_eq!(s.misses, 5, "each blob decoded once: {s:?}");
            assert_eq!(s.open_archives, 2, "held by the scope");
            assert_eq!(
                s.stamp_checks, 0,
                "mapped in this scope: nothing to check: {s:?}"
            );
        }
        let s = cache.stats();
        assert_eq!(
            (s.open_archives, s.mapped_bytes),
            (0, 0),
            "released with the scope"
        );
    }

    #[test]
    fn a_replaced_archive_is_noticed_by_the_next_scope() {
        let dir = tempfile::tempdir().unwrap();
        let p = nres_file(dir.path());
        let cache = ArchiveCache::new(ReadMode::Strict, 1 << 20);
        {
            let _scope = cache.scope();
            assert_eq!(&*cache.read(&p, b"alpha.txt").unwrap(), b"alpha");
        }
        let mut w = NresWriter::new();
        w.push(NewEntry::new(b"Alpha.txt", 1, b"replaced between two loads".to_vec()).unwrap());
        std::fs::write(&p, w.finish().unwrap()).unwrap();
        let _scope = cache.scope();
        assert_eq!(
            &*cache.read(&p, b"alpha.txt").unwrap(),
            b"replaced between two loads"
        );
        assert_eq!(cache.stats().invalidations, 1);
        assert!(matches!(
            cache.read(&p, b"beta.bin"),
            Err(VfsError::EntryMissing { .. })
        ));
    }

    #[test]
    fn typed_reads_check_the_tag_strictly_or_with_a_diagnostic() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = NresWriter::new();
        w.push(NewEntry::new(b"good.wea", Family::wear().tag.value(), b"1\n1 A".to_vec()).unwrap());
        w.push(NewEntry::new(b"bad.wea", 0, b"1\n1 A".to_vec()).unwrap());
        w.push(NewEntry::new(b"model.msh", 0, b"x".to_vec()).unwrap());
        let p = dir.path().join("models.rlb");
        std::fs::write(&p, w.finish().unwrap()).unwrap();

        let strict = ArchiveCache::new(ReadMode::Strict, 1 << 20);
        assert!(strict.read_as(&p, b"good.wea", Family::wear()).is_ok());
        let e = strict.read_as(&p, b"BAD.WEA", Family::wear()).unwrap_err();
        assert!(matches!(e, VfsError::TypeTag { .. }));
        assert!(
            e.to_string()
                .ends_with("[type_id] entry #1 \"bad.wea\": expected WEAR (0x52414557), found 0x0"),
            "{e}"
        );
        // Served from the blob cache, still checked.
        assert!(strict.read_as(&p, b"bad.wea", Family::wear()).is_err());
        assert!(
            strict.read(&p, b"bad.wea").is_ok(),
            "untyped reads do not check"
        );
        assert!(strict.read_as(&p, b"model.msh", Family::mesh()).is_err());
        let relaxed = ArchiveCache::new(ReadMode::Strict, 1 << 20).relax_mesh_tag();
        assert!(relaxed.read_as(&p, b"model.msh", Family::mesh()).is_ok());

        let compat = ArchiveCache::new(ReadMode::Compatible, 1 << 20);
        assert!(compat.read_as(&p, b"bad.wea", Family::wear()).is_ok());
        assert!(compat.read_as(&p, b"bad.wea", Family::wear()).is_ok());
        let d = compat.tag_diagnostics();
        assert_eq!(d.len(), 1, "one diagnostic per entry: {d:?}");
        assert_eq!(d[0].diagnostic.quirk, iron3d_nres::Quirk::WrongTypeTag);
        assert!(d[0].to_string().contains("[type_id] entry #1"), "{}", d[0]);

        let r = rsli_file(dir.path());
        assert!(
            strict.read_as(&r, b"raw.dat", Family::wear()).is_ok(),
            "RsLi entries carry no tag"
        );
    }
}
