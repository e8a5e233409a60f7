//! Per-entry archive overlays with provenance: mods override single entries of the
//! game's archives instead of whole archive files.
//!
//! # Providing an archive path
//!
//! Every mount (the game directory and each overlay, see [`Vfs::mount`]) may provide an
//! archive path such as `Textures.lib` in one of two ways:
//!
//! * **(a) as an archive file** (NRes or RsLi): each entry it has overrides the entry of
//!   the same name in lower mounts; an entry it lacks falls through to lower mounts.
//! * **(b) as a directory of that name** (`Textures.lib/`): each regular file directly
//!   inside is a *loose entry* (file name = entry name), overriding that entry; entries
//!   without a file fall through to lower mounts.
//!
//! [`Vfs::resolve_entry`] walks the mounts from the top: the first mount whose archive
//! has the entry, or whose directory has the loose file, wins. Entry names match
//! ASCII-case-insensitively, as [`crate::OpenArchive::find`] does for archives and
//! [`crate::DirIndex`] for file names. Only an entry name that is a valid single file
//! name (UTF-8, no `/`, `\` or NUL, not `.` or `..`) can be provided loose.
//!
//! No mount provides the archive path: [`VfsError::FileMissing`]. Some do, none has the
//! entry: [`VfsError::EntryMissing`] naming the topmost provider. With only the game
//! directory mounted this is exactly what reading the archive file through
//! [`crate::ArchiveCache::read`] answers.
//!
//! # Loose entries carry no tag
//!
//! **PD-LOOSE-ENTRY-UNTAGGED** (project decision): a loose entry is bare bytes, with no
//! NRes `type_id` and no attributes. A typed read ([`Vfs::read_entry_as`]) of a loose
//! entry skips the tag check, and [`ResolvedEntry::attrs`] of a loose entry is all zeros
//! (readers that take a format version from `attr2`, such as MAT0, see version 0).
//!
//! # Memo
//!
//! Archive providers are found once per archive path and entries resolved once per
//! (archive, entry), until [`Vfs::refresh`]: a repeated lookup is one map lookup. When
//! the archive cache notices a replaced archive file, the entry memo starts over; an
//! entry read that finds its remembered source gone re-resolves once.
//!
//! # Provenance and conflicts
//!
//! [`Vfs::explain`] names the mount a file or an entry comes from and the mounts it
//! shadows; [`Vfs::conflicts`] lists every file and every archive entry provided by two
//! or more mounts.

use crate::cache::{ArchiveCache, ArchiveKind};
use crate::error::VfsError;
use crate::path::GamePath;
use crate::vfs::Vfs;
use iron3d_nres::Family;
use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The name [`Vfs::new`] gives the game directory's mount; provenance shows it bare
/// (`game`) and every other mount as `mod "name"`.
pub const BASE_MOUNT: &str = "game";

/// How deep [`Vfs::conflicts`] descends below a mount root; deeper directories are
/// skipped (and logged).
pub const MAX_WALK_DEPTH: usize = 32;

/// Where the bytes of a resolved entry are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntrySource {
    /// Entry `index` of the archive file `path`.
    Archive {
        /// The archive file.
        path: PathBuf,
        /// The entry's index in that archive's directory.
        index: usize,
    },
    /// A loose file in a directory standing for the archive (untagged,
    /// PD-LOOSE-ENTRY-UNTAGGED).
    Loose {
        /// The file.
        path: PathBuf,
    },
}

impl EntrySource {
    /// The real file: the archive or the loose file.
    pub fn path(&self) -> &Path {
        match self {
            EntrySource::Archive { path, .. } | EntrySource::Loose { path } => path,
        }
    }

    /// True for a loose entry.
    pub fn is_loose(&self) -> bool {
        matches!(self, EntrySource::Loose { .. })
    }
}

/// An archive entry found through the mounts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedEntry {
    /// The mount that provides it (the topmost one that has it).
    pub mount: String,
    /// Where its bytes are.
    pub source: EntrySource,
    /// Its name as stored: the archive directory's spelling, or the loose file's name.
    pub name: Vec<u8>,
    /// NRes `[type_id, attr1, attr2, attr3]`; zeros for RsLi entries and for loose
    /// entries (PD-LOOSE-ENTRY-UNTAGGED).
    pub attrs: [u32; 4],
}

/// Where a file or an archive entry comes from ([`Vfs::explain`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// The path as asked.
    pub path: String,
    /// The entry as asked (`None`: the whole file).
    pub entry: Option<String>,
    /// The mount it comes from.
    pub winner: String,
    /// The winner's real file (the archive, the loose entry file or the whole file).
    pub source: PathBuf,
    /// The other mounts that also provide it, top to bottom.
    pub shadowed: Vec<String>,
}

/// `game`, or `mod "name"` for an overlay.
fn label(mount: &str) -> String {
    if mount == BASE_MOUNT {
        mount.to_owned()
    } else {
        format!("mod \"{mount}\"")
    }
}

fn labels(mounts: &[String]) -> String {
    mounts
        .iter()
        .map(|m| label(m))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `Textures.lib:GRASS.0 comes from mod "hd-textures" (mods/hd-textures/data/Textures.lib);
/// it shadows mod "old-pack", game` (without the `; it shadows …` part when nothing is
/// shadowed, without `:entry` for a whole file).
impl fmt::Display for Provenance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path)?;
        if let Some(e) = &self.entry {
            write!(f, ":{e}")?;
        }
        write!(
            f,
            " comes from {} ({})",
            label(&self.winner),
            self.source.display()
        )?;
        if !self.shadowed.is_empty() {
            write!(f, "; it shadows {}", labels(&self.shadowed))?;
        }
        Ok(())
    }
}

/// A file or an archive entry provided by two or more mounts ([`Vfs::conflicts`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The path relative to the mount roots, `/`-separated, as the lowest provider
    /// spells it.
    pub path: String,
    /// The archive entry, as the lowest provider spells it (`None`: a whole file).
    pub entry: Option<String>,
    /// The mounts providing it, bottom to top: the last one wins.
    pub providers: Vec<String>,
}

/// `Textures.lib:GRASS.0: game, mod "a", mod "b" (the last wins)`.
impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path)?;
        if let Some(e) = &self.entry {
            write!(f, ":{e}")?;
        }
        write!(f, ": {} (the last wins)", labels(&self.providers))
    }
}

/// How a mount provides an archive path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProviderKind {
    /// A file (an archive, to be opened as one).
    File,
    /// A directory of loose entries.
    Directory,
}

/// One mount providing an archive path.
#[derive(Clone, Debug)]
pub(crate) struct Provider {
    /// Index into the mounts.
    pub(crate) mount: usize,
    pub(crate) kind: ProviderKind,
    /// The archive file or the directory.
    pub(crate) path: PathBuf,
}

/// A remembered entry resolution.
#[derive(Clone, Debug)]
pub(crate) enum EntryMemo {
    Found(ResolvedEntry),
    /// No mount provides the archive path.
    NoArchive,
    /// Some do, none has the entry; the topmost provider's real path.
    NoEntry {
        archive: String,
    },
}

/// The lookup key of a path: lower-case components.
fn path_key(path: &GamePath) -> Vec<String> {
    path.components()
        .iter()
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Largest side of a loose PNG texture (PD-MOD-PNG-TEXTURE): bounds what a PNG header
/// can make us allocate.
pub const MAX_PNG_SIDE: u32 = 4096;

/// Whether `path` is a `.png` file standing for `entry` (whose own name is not `.png`).
fn is_png_stand_in(path: &Path, entry: &[u8]) -> bool {
    let png = |n: &[u8]| n.len() > 4 && n[n.len() - 4..].eq_ignore_ascii_case(b".png");
    path.file_name()
        .is_some_and(|n| png(n.to_string_lossy().as_bytes()))
        && !png(entry)
}

/// **PD-MOD-PNG-TEXTURE**: a loose file `<entry>.png` in a folder standing for an archive
/// provides `entry` as a Texm texture: the image (any PNG colour type, 8 or 16 bits,
/// expanded to RGBA8) encoded as `Argb8888` with a full mip chain, so modders ship
/// textures without a Texm encoder. Sides above [`MAX_PNG_SIDE`] are refused.
///
/// # Errors
/// [`VfsError::Io`] when the file cannot be read; [`VfsError::LoosePng`] when it is not a
/// PNG this rule accepts.
pub fn png_to_texm(path: &Path, entry: &[u8]) -> Result<Vec<u8>, VfsError> {
    let fail = |reason: String| VfsError::LoosePng {
        path: path.display().to_string(),
        entry: lossy(entry),
        reason,
    };
    let (file, _) = crate::files::open_regular(path)?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder
        .read_info()
        .map_err(|e| fail(format!("not a readable PNG ({e})")))?;
    let (w, h) = {
        let info = reader.info();
        (info.width, info.height)
    };
    if w == 0 || h == 0 || w > MAX_PNG_SIDE || h > MAX_PNG_SIDE {
        return Err(fail(format!(
            "{w}x{h} pixels; sides must be 1 to {MAX_PNG_SIDE}"
        )));
    }
    let mut buf = vec![0; reader.output_buffer_size()];
    let frame = reader
        .next_frame(&mut buf)
        .map_err(|e| fail(format!("pixels not decoded ({e})")))?;
    let data = &buf[..frame.buffer_size()];
    let rgba: Vec<u8> = match frame.color_type {
        png::ColorType::Rgba => data.to_vec(),
        png::ColorType::Rgb => data
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => data
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Grayscale => data.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => {
            return Err(fail("indexed pixels were not expanded".to_owned()));
        }
    };
    let image = iron3d_texm::RgbaImage::new(w, h, rgba).map_err(|e| fail(e.to_string()))?;
    let mips = w.max(h).ilog2() + 1;
    iron3d_texm::TexmWriter::new(iron3d_texm::PixelFormat::Argb8888)
        .write(&image.mip_chain(mips))
        .map_err(|e| fail(format!("not encoded as Texm ({e})")))
}

/// The entry name as a loose file name, when it can be one.
fn loose_name(entry: &[u8]) -> Option<&str> {
    let name = std::str::from_utf8(entry).ok()?;
    let bad = name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']);
    (!bad).then_some(name)
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

impl Vfs {
    /// The mounts providing `archive` (as a file or a directory), top first; memoised.
    fn providers(&self, archive: &GamePath) -> Vec<Provider> {
        let key = path_key(archive);
        if let Some(known) = self.memo_lock().providers.get(&key) {
            return known.clone();
        }
        let mut checks = 0;
        let mut out = Vec::new();
        for (i, m) in self.mounts.iter().enumerate().rev() {
            let Some(path) = m.index.find(archive.components()) else {
                continue;
            };
            checks += 1;
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            // A FIFO or a device counts as a file: opening it is then refused by name
            // (PD-VFS-REGULAR-FILES) instead of the archive being reported missing.
            let kind = if meta.is_dir() {
                ProviderKind::Directory
            } else {
                ProviderKind::File
            };
            out.push(Provider {
                mount: i,
                kind,
                path,
            });
        }
        let mut memo = self.memo_lock();
        memo.stats.file_checks += checks;
        memo.providers.insert(key, out.clone());
        out
    }

    /// Records that an archive file was read (for [`Vfs::resolved_files`]).
    fn touch(&self, provider: &Provider) {
        if let Some(m) = self.mounts.get(provider.mount) {
            self.memo_lock()
                .touched
                .insert(provider.path.clone(), m.name.clone());
        }
    }

    /// What `provider` holds of `entry` (`None`: not there).
    fn provider_entry(
        &self,
        provider: &Provider,
        archive: &GamePath,
        entry: &[u8],
        cache: &ArchiveCache,
    ) -> Result<Option<ResolvedEntry>, VfsError> {
        let Some(mount) = self.mounts.get(provider.mount) else {
            return Ok(None);
        };
        match provider.kind {
            ProviderKind::File => {
                let handle = cache.open(&provider.path)?;
                let found = handle.find(entry).map(|index| ResolvedEntry {
                    mount: mount.name.clone(),
                    source: EntrySource::Archive {
                        path: provider.path.clone(),
                        index,
                    },
                    name: handle.name(index).unwrap_or_default().to_vec(),
                    attrs: handle.attrs(index).unwrap_or_default(),
                });
                drop(handle);
                cache.close(&provider.path);
                Ok(found)
            }
            ProviderKind::Directory => {
                let Some(name) = loose_name(entry) else {
                    return Ok(None);
                };
                let mut components = archive.components().to_vec();
                components.push(name.to_owned());
                // The entry under its own name, else PD-MOD-PNG-TEXTURE: `<entry>.png`.
                let found = mount.index.find(&components).or_else(|| {
                    let last = components.len() - 1;
                    components[last] = format!("{name}.png");
                    mount.index.find(&components)
                });
                let Some(path) = found else {
                    return Ok(None);
                };
                self.memo_lock().stats.file_checks += 1;
                // Anything but a folder is the entry; reading a FIFO or a device is
                // refused by name (PD-VFS-REGULAR-FILES).
                if path.metadata().map_or(true, |m| m.is_dir()) {
                    return Ok(None);
                }
                let stored = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned().into_bytes())
                    .unwrap_or_else(|| entry.to_vec());
                Ok(Some(ResolvedEntry {
                    mount: mount.name.clone(),
                    source: EntrySource::Loose { path },
                    name: stored,
                    attrs: [0; 4],
                }))
            }
        }
    }

    /// Walks the providers of `archive` from the top for `entry`.
    fn walk_entry(
        &self,
        archive: &GamePath,
        entry: &[u8],
        cache: &ArchiveCache,
    ) -> Result<EntryMemo, VfsError> {
        let providers = self.providers(archive);
        let Some(top) = providers.first() else {
            return Ok(EntryMemo::NoArchive);
        };
        for p in &providers {
            let found = self.provider_entry(p, archive, entry, cache)?;
            if p.kind == ProviderKind::File {
                self.touch(p);
            }
            if let Some(found) = found {
                if found.source.is_loose() {
                    self.memo_lock()
                        .touched
                        .insert(found.source.path().to_owned(), found.mount.clone());
                }
                return Ok(EntryMemo::Found(found));
            }
        }
        Ok(EntryMemo::NoEntry {
            archive: top.path.display().to_string(),
        })
    }

    /// Resolves entry `entry` of the archive path `archive` (game-root-relative) through
    /// the mounts, top first (see the [module docs](crate::overlay)): the first mount
    /// whose archive file has the entry, or whose directory of that name has the loose
    /// file, wins. [`VfsError::FileMissing`] when no mount provides the archive path,
    /// [`VfsError::EntryMissing`] (naming the topmost provider) when none has the entry;
    /// a provider that is not a valid archive is an error. Memoised per (archive,
    /// entry) until [`Vfs::refresh`]: a repeated lookup is one map lookup.
    pub fn resolve_entry(
        &self,
        archive: &GamePath,
        entry: &[u8],
        cache: &ArchiveCache,
    ) -> Result<ResolvedEntry, VfsError> {
        let key = (path_key(archive), entry.to_ascii_uppercase());
        let generation = cache.stats().invalidations;
        let known = {
            let mut memo = self.memo_lock();
            memo.stats.entry_resolves += 1;
            if memo.entry_generation != generation {
                memo.entries.clear();
                memo.entry_generation = generation;
            }
            let known = memo.entries.get(&key).cloned();
            if known.is_some() {
                memo.stats.entry_memo_hits += 1;
            }
            known
        };
        let outcome = match known {
            Some(k) => k,
            None => {
                let outcome = self.walk_entry(archive, entry, cache)?;
                self.memo_lock().entries.insert(key, outcome.clone());
                outcome
            }
        };
        match outcome {
            EntryMemo::Found(found) => Ok(found),
            EntryMemo::NoArchive => Err(self.file_missing(archive)),
            EntryMemo::NoEntry { archive } => Err(VfsError::EntryMissing {
                archive,
                entry: lossy(entry),
            }),
        }
    }

    /// Forgets the resolution of `entry` and the providers of `archive` (a remembered
    /// source turned out to be gone).
    fn forget_entry(&self, archive: &GamePath, entry: &[u8]) {
        let key = path_key(archive);
        let mut memo = self.memo_lock();
        memo.providers.remove(&key);
        memo.entries.remove(&(key, entry.to_ascii_uppercase()));
    }

    fn read_entry_with(
        &self,
        archive: &GamePath,
        entry: &[u8],
        family: Option<&Family>,
        cache: &ArchiveCache,
    ) -> Result<Arc<[u8]>, VfsError> {
        // One scope: the resolution and the read share one mapping of the archive.
        let _scope = cache.scope();
        let mut retried = false;
        loop {
            let found = self.resolve_entry(archive, entry, cache)?;
            let result = match (&found.source, family) {
                (EntrySource::Archive { path, .. }, Some(family)) => {
                    cache.read_as(path, entry, family)
                }
                (EntrySource::Archive { path, .. }, None) => cache.read(path, entry),
                // PD-MOD-PNG-TEXTURE: a PNG standing for a non-PNG entry.
                (EntrySource::Loose { path }, _) if is_png_stand_in(path, entry) => {
                    png_to_texm(path, entry).map(Arc::from)
                }
                // PD-LOOSE-ENTRY-UNTAGGED: no tag to check.
                (EntrySource::Loose { path }, _) => {
                    crate::files::read_regular(path, crate::files::MAX_LOOSE_FILE).map(Arc::from)
                }
            };
            let gone = match &result {
                Err(VfsError::EntryMissing { .. } | VfsError::FileMissing { .. }) => true,
                Err(VfsError::Io { source, .. }) => source.kind() == std::io::ErrorKind::NotFound,
                _ => false,
            };
            if gone && !retried {
                retried = true;
                self.forget_entry(archive, entry);
                continue;
            }
            return result;
        }
    }

    /// The decoded bytes of entry `entry` of the archive path `archive`, from the mount
    /// [`Vfs::resolve_entry`] chooses (no `type_id` check; errors as there).
    pub fn read_entry(
        &self,
        archive: &GamePath,
        entry: &[u8],
        cache: &ArchiveCache,
    ) -> Result<Arc<[u8]>, VfsError> {
        self.read_entry_with(archive, entry, None, cache)
    }

    /// [`Vfs::read_entry`] of an entry of `family`: an archive entry's `type_id` is
    /// checked as [`ArchiveCache::read_as`] does (strict: [`VfsError::TypeTag`];
    /// compatible: a diagnostic); a loose entry has no tag and is not checked
    /// (PD-LOOSE-ENTRY-UNTAGGED).
    pub fn read_entry_as(
        &self,
        archive: &GamePath,
        entry: &[u8],
        family: &Family,
        cache: &ArchiveCache,
    ) -> Result<Arc<[u8]>, VfsError> {
        self.read_entry_with(archive, entry, Some(family), cache)
    }

    /// Every entry name the mounts provide for the archive path `archive`: the lowest
    /// provider's names in directory order, then the names each higher provider adds
    /// (loose entries in file-name order), each name once (ASCII case ignored, first
    /// spelling kept). With only the game directory: the archive's directory.
    /// [`VfsError::FileMissing`] when no mount provides the path. The archive files read
    /// count as resolved ([`Vfs::resolved_files`]).
    pub fn entry_names(
        &self,
        archive: &GamePath,
        cache: &ArchiveCache,
    ) -> Result<Vec<Vec<u8>>, VfsError> {
        let providers = self.providers(archive);
        if providers.is_empty() {
            return Err(self.file_missing(archive));
        }
        let _scope = cache.scope();
        let mut seen = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        for p in providers.iter().rev() {
            if p.kind == ProviderKind::File {
                self.touch(p);
            }
            for name in provider_names(p, cache)? {
                if seen.insert(name.to_ascii_uppercase()) {
                    out.push(name);
                }
            }
        }
        Ok(out)
    }

    /// Where `path` (a whole file, `entry` `None`) or entry `entry` of the archive path
    /// `path` comes from: the winning mount (the one [`Vfs::resolve`] or
    /// [`Vfs::resolve_entry`] chooses), its real file, and every other mount that also
    /// provides it, top to bottom. Errors as those two functions.
    pub fn explain(
        &self,
        path: &GamePath,
        entry: Option<&[u8]>,
        cache: &ArchiveCache,
    ) -> Result<Provenance, VfsError> {
        let mut found: Vec<(String, PathBuf)> = Vec::new();
        match entry {
            None => {
                for m in self.mounts.iter().rev() {
                    if let Some(p) = m.index.find(path.components()) {
                        if p.metadata().is_ok_and(|m| !m.is_dir()) {
                            found.push((m.name.clone(), p));
                        }
                    }
                }
                if found.is_empty() {
                    return Err(self.file_missing(path));
                }
            }
            Some(entry) => {
                let providers = self.providers(path);
                let Some(top) = providers.first() else {
                    return Err(self.file_missing(path));
                };
                let _scope = cache.scope();
                for p in &providers {
                    if let Some(r) = self.provider_entry(p, path, entry, cache)? {
                        found.push((r.mount, r.source.path().to_owned()));
                    }
                }
                if found.is_empty() {
                    return Err(VfsError::EntryMissing {
                        archive: top.path.display().to_string(),
                        entry: lossy(entry),
                    });
                }
            }
        }
        let mut found = found.into_iter();
        let Some((winner, source)) = found.next() else {
            return Err(self.file_missing(path));
        };
        Ok(Provenance {
            path: path.original().to_owned(),
            entry: entry.map(lossy),
            winner,
            source,
            shadowed: found.map(|(m, _)| m).collect(),
        })
    }

    /// Everything provided by two or more mounts, sorted by path then entry:
    ///
    /// * every file path (not an archive path) two or more mounts have as a file
    ///   (`entry` `None`);
    /// * for every archive path two or more mounts provide (as an archive file or a
    ///   directory, at least one of them an archive file, NRes or RsLi by its magic),
    ///   every entry two or more of them have (a directory's files directly inside are
    ///   its entries and are not reported as files).
    ///
    /// The trees are walked at most [`MAX_WALK_DEPTH`] levels deep; symbolic links are
    /// neither followed nor reported. Unreadable directories are skipped, as the
    /// indexes do; a provider of an archive path that is not a valid archive is an error.
    pub fn conflicts(&self, cache: &ArchiveCache) -> Result<Vec<Conflict>, VfsError> {
        // Lower-case key → (mount index, spelling, real path, kind), bottom to top.
        let mut by_key: BTreeMap<String, Vec<(usize, String, PathBuf, ProviderKind)>> =
            BTreeMap::new();
        for (i, m) in self.mounts.iter().enumerate() {
            for (key, (rel, real, kind)) in walk(m.root()) {
                by_key.entry(key).or_default().push((i, rel, real, kind));
            }
        }
        let mount_name = |i: usize| self.mounts.get(i).map(|m| m.name.clone());
        let archive_keys: std::collections::BTreeSet<String> = by_key
            .iter()
            .filter(|(_, ps)| ps.len() >= 2)
            .filter(|(_, ps)| {
                ps.iter()
                    .any(|(_, _, real, kind)| *kind == ProviderKind::File && is_archive(real))
            })
            .map(|(k, _)| k.clone())
            .collect();
        let _scope = cache.scope();
        let mut out = Vec::new();
        for (key, ps) in &by_key {
            if archive_keys.contains(key) {
                // Upper-case entry → (spelling, providers bottom to top).
                let mut entries: BTreeMap<Vec<u8>, (Vec<u8>, Vec<String>)> = BTreeMap::new();
                for (i, _, real, kind) in ps {
                    let provider = Provider {
                        mount: *i,
                        kind: *kind,
                        path: real.clone(),
                    };
                    let Some(name) = mount_name(*i) else {
                        continue;
                    };
                    for entry in provider_names(&provider, cache)? {
                        let slot = entries
                            .entry(entry.to_ascii_uppercase())
                            .or_insert_with(|| (entry.clone(), Vec::new()));
                        slot.1.push(name.clone());
                    }
                }
                let path = ps.first().map(|p| p.1.clone()).unwrap_or_default();
                for (_, (entry, providers)) in entries {
                    if providers.len() >= 2 {
                        out.push(Conflict {
                            path: path.clone(),
                            entry: Some(lossy(&entry)),
                            providers,
                        });
                    }
                }
                continue;
            }
            let parent = key.rsplit_once('/').map(|(p, _)| p);
            if parent.is_some_and(|p| archive_keys.contains(p)) {
                continue; // a loose entry, reported with its archive
            }
            let files: Vec<&(usize, String, PathBuf, ProviderKind)> =
                ps.iter().filter(|p| p.3 == ProviderKind::File).collect();
            if let (true, Some(lowest)) = (files.len() >= 2, files.first()) {
                out.push(Conflict {
                    path: lowest.1.clone(),
                    entry: None,
                    providers: files.iter().filter_map(|p| mount_name(p.0)).collect(),
                });
            }
        }
        out.sort_by(|a, b| (&a.path, &a.entry).cmp(&(&b.path, &b.entry)));
        Ok(out)
    }
}

/// The entry names a provider has: an archive's directory, or the regular files directly
/// inside a directory (sorted, case clashes resolved as [`crate::DirIndex`] does).
fn provider_names(p: &Provider, cache: &ArchiveCache) -> Result<Vec<Vec<u8>>, VfsError> {
    match p.kind {
        ProviderKind::File => {
            let handle = cache.open(&p.path)?;
            let names = handle.names().map(<[u8]>::to_vec).collect();
            drop(handle);
            cache.close(&p.path);
            Ok(names)
        }
        ProviderKind::Directory => {
            let Ok(rd) = std::fs::read_dir(&p.path) else {
                return Ok(Vec::new());
            };
            let mut names: Vec<String> = rd
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| loose_name(n.as_bytes()).is_some())
                // PD-MOD-PNG-TEXTURE: `X.png` stands for entry `X`.
                .map(|n| match n.len().checked_sub(4) {
                    Some(cut) if cut > 0 && n[cut..].eq_ignore_ascii_case(".png") => {
                        n[..cut].to_owned()
                    }
                    _ => n,
                })
                .collect();
            names.sort();
            let mut seen = std::collections::BTreeSet::new();
            names.retain(|n| seen.insert(n.to_ascii_lowercase()));
            Ok(names.into_iter().map(String::into_bytes).collect())
        }
    }
}

/// Whether the file starts with an archive magic.
fn is_archive(path: &Path) -> bool {
    let mut head = [0u8; 4];
    let Ok((mut f, _)) = crate::files::open_regular(path) else {
        return false;
    };
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    ArchiveKind::sniff(&head[..n]).is_some()
}

/// Every regular file (kind `File`) and directory (kind `Directory`) under `root`, by
/// lower-case `/`-joined relative path → (spelling, real path, kind); at most
/// [`MAX_WALK_DEPTH`] levels, symbolic links skipped, case clashes resolved as
/// [`crate::DirIndex`] does (the byte-wise smallest name).
fn walk(root: &Path) -> BTreeMap<String, (String, PathBuf, ProviderKind)> {
    let mut out = BTreeMap::new();
    let mut stack: Vec<(PathBuf, String, usize)> = vec![(root.to_owned(), String::new(), 0)];
    while let Some((dir, rel, depth)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut items: Vec<(std::ffi::OsString, std::fs::FileType)> = rd
            .filter_map(Result::ok)
            .filter_map(|e| e.file_type().ok().map(|t| (e.file_name(), t)))
            .collect();
        items.sort_by(|a, b| a.0.cmp(&b.0));
        let mut seen = std::collections::BTreeSet::new();
        for (name, ty) in items {
            let shown = name.to_string_lossy().into_owned();
            if !seen.insert(shown.to_ascii_lowercase()) || ty.is_symlink() {
                continue;
            }
            let rel = if rel.is_empty() {
                shown
            } else {
                format!("{rel}/{shown}")
            };
            let real = dir.join(&name);
            let kind = if ty.is_file() {
                ProviderKind::File
            } else if ty.is_dir() {
                ProviderKind::Directory
            } else {
                continue;
            };
            if kind == ProviderKind::Directory {
                if depth + 1 < MAX_WALK_DEPTH {
                    stack.push((real.clone(), rel.clone(), depth + 1));
                } else {
                    tracing::warn!(target: "iron3d::vfs", dir = %real.display(), "conflict walk: deeper than {MAX_WALK_DEPTH} levels, skipped");
                }
            }
            out.insert(rel.to_ascii_lowercase(), (rel, real, kind));
        }
    }
    out
}

#[cfg(test)]
mod tests;
