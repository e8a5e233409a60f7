//! Mod archives: [`pack`] a mod folder into a `.tar.gz`, [`install`] one safely.
//!
//! An archive holds exactly one top-level folder named after the mod id:
//!
//! ```text
//! faster-tanks/mod.toml          first
//! faster-tanks/…                 every other file of the mod folder, sorted by path
//! faster-tanks/HASHES.sha256     last: "<sha256>  <path relative to the folder>" per file
//! ```
//!
//! [`pack`] is deterministic: the same folder gives the same bytes (mtime 0, uid/gid 0,
//! no user names, mode 0644 or 0755 for executables, gzip without timestamp). It skips
//! dotfiles and dot-folders, a top-level `target/` folder and any folder holding a
//! `CACHEDIR.TAG` (Cargo build folders), an existing top-level `HASHES.sha256` (it is
//! regenerated) and the output archive itself, and refuses symlinks.
//!
//! [`install`] reads the whole archive once as a check before writing anything in the
//! mods folder: only plain files and folders inside one `<id>/` folder, no absolute paths,
//! `..`, links or devices, every entry and the whole archive within [`InstallLimits`]
//! (counting the bytes actually decompressed, whatever the headers claim), every file
//! listed in `HASHES.sha256` with the right hash, a valid manifest whose id is the folder
//! name, and no installed mod with that id. Then it unpacks into a `.install-*` folder
//! inside the mods folder, checks the bytes again, and renames that folder into place.
//! On any failure nothing is left behind.

use crate::ModError;
use crate::discover::{MAX_MANIFEST_BYTES, ModDir};
use crate::manifest::{Manifest, check_id};
use crate::util::{check_relative, hex, is_sha256_hex, join_relative, temp_name, write_atomic};
use flate2::Compression;
use flate2::GzBuilder;
use flate2::read::GzDecoder;
use semver::Version;
use sha2::{Digest, Sha256};
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The name of the hash list inside a mod archive's folder.
pub const HASHES_FILE: &str = "HASHES.sha256";

/// The largest `HASHES.sha256` accepted (4 MiB).
pub const MAX_HASHES_BYTES: u64 = 4 << 20;

/// Deepest folder nesting packed.
const MAX_DEPTH: usize = 64;

/// Decompressed bytes allowed per entry for tar headers, padding and long names, on top
/// of [`InstallLimits::max_total`].
const OVERHEAD_PER_ENTRY: u64 = 8 * 1024;

/// What [`pack`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackReport {
    /// The mod's id (the archive's folder).
    pub id: String,
    /// The mod's version.
    pub version: Version,
    /// The archive written.
    pub archive: PathBuf,
    /// Files packed, `mod.toml` included, `HASHES.sha256` not.
    pub files: usize,
    /// Their total size in bytes.
    pub bytes: u64,
    /// SHA-256 of the archive file, lowercase hex.
    pub sha256: String,
}

/// Bounds [`install`] enforces while reading an archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstallLimits {
    /// Largest decompressed size of one file, in bytes.
    pub max_entry: u64,
    /// Largest decompressed size of all files together, in bytes.
    pub max_total: u64,
    /// Most entries (files and folders).
    pub max_entries: usize,
}

impl Default for InstallLimits {
    /// 256 MiB per file, 2 GiB in all, 20 000 entries.
    fn default() -> Self {
        InstallLimits {
            max_entry: 256 << 20,
            max_total: 2 << 30,
            max_entries: 20_000,
        }
    }
}

/// A mod [`install`] put in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// The mod's id.
    pub id: String,
    /// Its version.
    pub version: Version,
    /// Its folder (`<mods root>/<id>`).
    pub path: PathBuf,
}

// ---------------------------------------------------------------------------------------
// pack

/// A file to pack.
struct Source {
    path: PathBuf,
    exec: bool,
    len: u64,
}

/// Reads exactly `remaining` bytes from `inner`, hashing them; fewer is an error (the file
/// shrank while being packed), more are ignored by the caller's `take`.
struct ExactReader<R> {
    inner: R,
    remaining: u64,
    hasher: Sha256,
    failed: bool,
}

impl<R: Read> Read for ExactReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.remaining == 0 {
            return Ok(0);
        }
        let want = buf
            .len()
            .min(usize::try_from(self.remaining).unwrap_or(usize::MAX));
        let n = match self.inner.read(&mut buf[..want]) {
            Ok(0) => {
                self.failed = true;
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the file became shorter while it was being packed",
                ));
            }
            Ok(n) => n,
            Err(e) => {
                self.failed = true;
                return Err(e);
            }
        };
        self.hasher.update(&buf[..n]);
        self.remaining -= n as u64;
        Ok(n)
    }
}

/// Hashes everything written through it.
struct HashingWriter<W> {
    inner: W,
    hasher: Sha256,
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn file_header(size: u64, exec: bool) -> tar::Header {
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(tar::EntryType::Regular);
    h.set_size(size);
    h.set_mode(if exec { 0o755 } else { 0o644 });
    h.set_mtime(0);
    h.set_uid(0);
    h.set_gid(0);
    h
}

#[cfg(unix)]
fn is_executable(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &fs::Metadata) -> bool {
    false
}

/// Collects the files to pack under `dir` (relative path `prefix`).
fn collect(
    dir: &Path,
    prefix: &str,
    depth: usize,
    skip: Option<&Path>,
    out: &mut BTreeMap<String, Source>,
) -> Result<(), ModError> {
    if depth > MAX_DEPTH {
        return Err(ModError::Unpackable {
            path: dir.to_path_buf(),
            why: format!("folders are nested deeper than {MAX_DEPTH} levels"),
        });
    }
    let entries = fs::read_dir(dir).map_err(|e| ModError::io(dir, "list", e))?;
    for entry in entries {
        let entry = entry.map_err(|e| ModError::io(dir, "list", e))?;
        let path = entry.path();
        let Ok(name) = entry.file_name().into_string() else {
            return Err(ModError::Unpackable {
                path,
                why: "its name is not UTF-8; rename it".to_owned(),
            });
        };
        if name.starts_with('.') {
            continue;
        }
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let meta = fs::symlink_metadata(&path).map_err(|e| ModError::io(&path, "read", e))?;
        let kind = meta.file_type();
        if kind.is_symlink() {
            return Err(ModError::Unpackable {
                path,
                why: "it is a symbolic link; mod archives hold only plain files, so replace it with a copy".to_owned(),
            });
        }
        if kind.is_dir() {
            if (depth == 0 && name == "target") || path.join("CACHEDIR.TAG").exists() {
                continue;
            }
            collect(&path, &rel, depth + 1, skip, out)?;
        } else if kind.is_file() {
            if depth == 0 && name == HASHES_FILE {
                continue;
            }
            if skip.is_some_and(|s| fs::canonicalize(&path).is_ok_and(|p| p == s)) {
                continue;
            }
            if let Err(why) = check_relative(&rel) {
                return Err(ModError::Unpackable {
                    path,
                    why: format!("its path {why}, which installing refuses; rename it"),
                });
            }
            out.insert(
                rel,
                Source {
                    path,
                    exec: is_executable(&meta),
                    len: meta.len(),
                },
            );
        } else {
            return Err(ModError::Unpackable {
                path,
                why: "it is not a plain file or folder".to_owned(),
            });
        }
    }
    Ok(())
}

/// Packs the mod folder `mod_dir` into the `.tar.gz` archive `out` (see the
/// [module documentation](self) for the layout). `out` is written atomically; the same
/// folder content always gives the same archive bytes.
///
/// # Errors
/// The errors of [`ModDir::open`] for the manifest, [`ModError::Unpackable`] for a
/// symlink, special file or unusable name, [`ModError::Io`] when reading or writing
/// fails.
pub fn pack(mod_dir: &Path, out: &Path) -> Result<PackReport, ModError> {
    let md = ModDir::open(mod_dir)?;
    let id = md.manifest.id.clone();
    // The output file, if it already exists inside the folder, is not packed.
    let skip = out
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .and_then(|p| fs::canonicalize(p).ok())
        .zip(out.file_name())
        .map(|(p, n)| p.join(n));
    let mut files = BTreeMap::new();
    collect(mod_dir, "", 0, skip.as_deref(), &mut files)?;
    let Some(manifest) = files.remove("mod.toml") else {
        return Err(ModError::Unpackable {
            path: mod_dir.join("mod.toml"),
            why: "mod.toml is not a plain file".to_owned(),
        });
    };
    let ordered: Vec<(String, Source)> = std::iter::once(("mod.toml".to_owned(), manifest))
        .chain(files)
        .collect();
    let count = ordered.len();
    let bytes: u64 = ordered.iter().map(|(_, s)| s.len).sum();
    let mut archive_sha = String::new();
    write_atomic(out, |file, tmp| {
        let write_err = |e: io::Error| ModError::io(tmp, "write", e);
        let mut hw = HashingWriter {
            inner: file,
            hasher: Sha256::new(),
        };
        let gz = GzBuilder::new()
            .mtime(0)
            .operating_system(255)
            .write(&mut hw, Compression::default());
        let mut tar = tar::Builder::new(gz);
        let mut hashes = BTreeMap::new();
        for (rel, src) in &ordered {
            let f = fs::File::open(&src.path).map_err(|e| ModError::io(&src.path, "read", e))?;
            let mut reader = ExactReader {
                inner: f.take(src.len),
                remaining: src.len,
                hasher: Sha256::new(),
                failed: false,
            };
            let mut header = file_header(src.len, src.exec);
            tar.append_data(&mut header, format!("{id}/{rel}"), &mut reader)
                .map_err(|e| {
                    if reader.failed {
                        ModError::io(&src.path, "read", e)
                    } else {
                        write_err(e)
                    }
                })?;
            hashes.insert(rel.clone(), hex(&reader.hasher.finalize()));
        }
        let mut list = String::new();
        for (rel, sha) in &hashes {
            list.push_str(sha);
            list.push_str("  ");
            list.push_str(rel);
            list.push('\n');
        }
        let mut header = file_header(list.len() as u64, false);
        tar.append_data(&mut header, format!("{id}/{HASHES_FILE}"), list.as_bytes())
            .map_err(write_err)?;
        tar.into_inner()
            .and_then(flate2::write::GzEncoder::finish)
            .map_err(write_err)?;
        archive_sha = hex(&hw.hasher.finalize());
        Ok(())
    })?;
    Ok(PackReport {
        id,
        version: md.manifest.version,
        archive: out.to_path_buf(),
        files: count,
        bytes,
        sha256: archive_sha,
    })
}

// ---------------------------------------------------------------------------------------
// install

/// Bounds the decompressed stream as a whole; past the cap it fails and raises `over`.
struct CappedReader<R> {
    inner: R,
    left: u64,
    over: Rc<Cell<bool>>,
}

impl<R: Read> Read for CappedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => {
                    self.over.set(true);
                    Err(io::Error::other(
                        "the archive decompresses to more than the limit",
                    ))
                }
            };
        }
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.left -= n as u64;
        Ok(n)
    }
}

/// Hashes and counts an entry's bytes; keeps the first read error for the caller.
struct EntryReader<R> {
    inner: R,
    hasher: Sha256,
    count: u64,
    error: Option<io::Error>,
}

impl<R: Read> Read for EntryReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.hasher.update(&buf[..n]);
                self.count += n as u64;
                Ok(n)
            }
            Err(e) => {
                let copy = io::Error::new(e.kind(), e.to_string());
                self.error.get_or_insert(e);
                Err(copy)
            }
        }
    }
}

/// One checked archive entry handed to a [`scan`] sink.
enum Item<'a> {
    /// A folder, path relative to the mod folder.
    Dir { rel: &'a str, entry: &'a str },
    /// A file, path relative to the mod folder; `reader` yields its bytes (at most the
    /// limit plus one).
    File {
        rel: &'a str,
        entry: &'a str,
        exec: bool,
        reader: &'a mut dyn Read,
    },
}

/// What a pass over an archive found.
#[derive(Debug, Default, PartialEq, Eq)]
struct Scan {
    /// The single top-level folder.
    folder: String,
    /// Files by path relative to the folder: SHA-256 hex and size.
    files: BTreeMap<String, (String, u64)>,
}

/// One pass over `archive`, checking every entry and handing the good ones to `sink`.
fn scan(
    archive: &Path,
    limits: &InstallLimits,
    sink: &mut dyn FnMut(Item<'_>) -> Result<(), ModError>,
) -> Result<Scan, ModError> {
    let file = fs::File::open(archive).map_err(|e| ModError::io(archive, "read", e))?;
    let over = Rc::new(Cell::new(false));
    let cap = limits
        .max_total
        .saturating_add(
            (limits.max_entries as u64)
                .saturating_add(2)
                .saturating_mul(OVERHEAD_PER_ENTRY),
        )
        .saturating_add(1 << 20);
    let stream = CappedReader {
        inner: GzDecoder::new(BufReader::new(file)),
        left: cap,
        over: Rc::clone(&over),
    };
    let mut ar = tar::Archive::new(stream);
    let read_err = |entry: &str, e: io::Error| {
        if over.get() {
            ModError::ArchiveTooLarge {
                archive: archive.to_path_buf(),
                entry: entry.to_owned(),
                limit: limits.max_total,
            }
        } else {
            ModError::ArchiveRead {
                archive: archive.to_path_buf(),
                entry: entry.to_owned(),
                source: e,
            }
        }
    };
    let unsafe_entry = |entry: &str, why: String| ModError::UnsafeEntry {
        archive: archive.to_path_buf(),
        entry: entry.to_owned(),
        why,
    };
    let mut out = Scan::default();
    let mut dirs: BTreeSet<String> = BTreeSet::new();
    let mut where_ = "(start of archive)".to_owned();
    let mut entries_seen = 0usize;
    let mut total = 0u64;
    {
        let entries = ar.entries().map_err(|e| read_err(&where_, e))?;
        for entry in entries {
            let mut entry = entry.map_err(|e| read_err(&format!("(after {where_})"), e))?;
            let raw = entry.path_bytes().into_owned();
            let name = String::from_utf8_lossy(&raw).into_owned();
            where_.clone_from(&name);
            entries_seen += 1;
            if entries_seen > limits.max_entries {
                return Err(ModError::TooManyEntries {
                    archive: archive.to_path_buf(),
                    entry: name,
                    limit: limits.max_entries,
                });
            }
            let kind = entry.header().entry_type();
            let is_dir = match kind {
                tar::EntryType::Regular => false,
                tar::EntryType::Directory => true,
                tar::EntryType::XGlobalHeader => {
                    // Metadata for the tools that wrote the archive; read and ignored.
                    let mut r = EntryReader {
                        inner: (&mut entry).take(MAX_HASHES_BYTES + 1),
                        hasher: Sha256::new(),
                        count: 0,
                        error: None,
                    };
                    io::copy(&mut r, &mut io::sink()).map_err(|e| read_err(&name, e))?;
                    if r.count > MAX_HASHES_BYTES {
                        return Err(unsafe_entry(
                            &name,
                            "is an oversized global header".to_owned(),
                        ));
                    }
                    continue;
                }
                tar::EntryType::Symlink => {
                    return Err(unsafe_entry(
                        &name,
                        "is a symbolic link (not allowed in mod archives)".to_owned(),
                    ));
                }
                tar::EntryType::Link => {
                    return Err(unsafe_entry(
                        &name,
                        "is a hard link (not allowed in mod archives)".to_owned(),
                    ));
                }
                tar::EntryType::Char | tar::EntryType::Block => {
                    return Err(unsafe_entry(
                        &name,
                        "is a device file (not allowed in mod archives)".to_owned(),
                    ));
                }
                tar::EntryType::Fifo => {
                    return Err(unsafe_entry(
                        &name,
                        "is a named pipe (not allowed in mod archives)".to_owned(),
                    ));
                }
                other => {
                    return Err(unsafe_entry(
                        &name,
                        format!(
                            "is a special entry (tar type {:?}); only plain files and folders are allowed",
                            char::from(other.as_byte())
                        ),
                    ));
                }
            };
            let Ok(path) = std::str::from_utf8(&raw) else {
                return Err(unsafe_entry(&name, "its name is not UTF-8".to_owned()));
            };
            let path = if is_dir {
                path.strip_suffix('/').unwrap_or(path)
            } else {
                path
            };
            if let Err(why) = check_relative(path) {
                return Err(unsafe_entry(&name, format!("its path {why}")));
            }
            let (folder, rel) = path.split_once('/').unwrap_or((path, ""));
            if rel.is_empty() && !is_dir {
                return Err(unsafe_entry(
                    &name,
                    "is a file outside the mod's folder; everything must be inside one folder named after the mod".to_owned(),
                ));
            }
            if out.folder.is_empty() {
                if let Err(why) = check_id(folder) {
                    return Err(unsafe_entry(
                        &name,
                        format!("the top-level folder \"{folder}\" is not a mod id ({why})"),
                    ));
                }
                out.folder = folder.to_owned();
            } else if folder != out.folder {
                return Err(unsafe_entry(
                    &name,
                    format!(
                        "is outside the archive's single top-level folder \"{}/\"",
                        out.folder
                    ),
                ));
            }
            // Every ancestor is a folder, never a file.
            let mut cut = 0;
            while let Some(i) = rel[cut..].find('/') {
                let parent = &rel[..cut + i];
                if out.files.contains_key(parent) {
                    return Err(unsafe_entry(
                        &name,
                        format!("is inside \"{parent}\", which is a file"),
                    ));
                }
                dirs.insert(parent.to_owned());
                cut += i + 1;
            }
            let exec = entry.header().mode().is_ok_and(|m| m & 0o111 != 0);
            let budget = limits.max_entry.min(limits.max_total.saturating_sub(total));
            let mut reader = EntryReader {
                inner: (&mut entry).take(budget.saturating_add(1)),
                hasher: Sha256::new(),
                count: 0,
                error: None,
            };
            if is_dir {
                if out.files.contains_key(rel) {
                    return Err(unsafe_entry(
                        &name,
                        "is both a file and a folder".to_owned(),
                    ));
                }
                if !rel.is_empty() {
                    dirs.insert(rel.to_owned());
                    sink(Item::Dir { rel, entry: &name })?;
                }
            } else {
                if out.files.contains_key(rel) {
                    return Err(unsafe_entry(&name, "appears twice".to_owned()));
                }
                if dirs.contains(rel) {
                    return Err(unsafe_entry(
                        &name,
                        "is both a file and a folder".to_owned(),
                    ));
                }
                let sunk = sink(Item::File {
                    rel,
                    entry: &name,
                    exec,
                    reader: &mut reader,
                });
                if let Some(e) = reader.error.take() {
                    return Err(read_err(&name, e));
                }
                sunk?;
            }
            io::copy(&mut reader, &mut io::sink()).map_err(|e| read_err(&name, e))?;
            if reader.count > limits.max_entry {
                return Err(ModError::EntryTooLarge {
                    archive: archive.to_path_buf(),
                    entry: name,
                    limit: limits.max_entry,
                });
            }
            if total.saturating_add(reader.count) > limits.max_total {
                return Err(ModError::ArchiveTooLarge {
                    archive: archive.to_path_buf(),
                    entry: name,
                    limit: limits.max_total,
                });
            }
            if is_dir && reader.count > 0 {
                return Err(unsafe_entry(
                    &name,
                    "is a folder entry carrying data".to_owned(),
                ));
            }
            total += reader.count;
            if !is_dir {
                let sha = hex(&std::mem::take(&mut reader.hasher).finalize());
                out.files.insert(rel.to_owned(), (sha, reader.count));
            }
        }
    }
    // Read to the end of the gzip stream so its checksum is verified (a truncated or
    // altered download fails here even when the tar part looked complete).
    let mut rest = ar.into_inner();
    io::copy(&mut rest, &mut io::sink()).map_err(|e| read_err("(end of archive)", e))?;
    if out.folder.is_empty() {
        return Err(ModError::ArchiveMissing {
            archive: archive.to_path_buf(),
            entry: "mod.toml".to_owned(),
            why: "the archive is empty".to_owned(),
        });
    }
    Ok(out)
}

/// Parses `HASHES.sha256`: path → hash.
fn parse_hashes(
    bytes: &[u8],
    archive: &Path,
    entry: &str,
) -> Result<BTreeMap<String, String>, ModError> {
    let bad = |why: String| ModError::BadHashes {
        archive: archive.to_path_buf(),
        entry: entry.to_owned(),
        why,
    };
    let text = std::str::from_utf8(bytes).map_err(|_| bad("is not UTF-8 text".to_owned()))?;
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        if line.is_empty() {
            continue;
        }
        let Some((hash, path)) = line.split_once("  ") else {
            return Err(bad(format!("line {n}: expected \"<sha256>  <path>\"")));
        };
        if !is_sha256_hex(hash) {
            return Err(bad(format!(
                "line {n}: not a SHA-256 (64 lowercase hex digits)"
            )));
        }
        if let Err(why) = check_relative(path) {
            return Err(bad(format!("line {n}: the path {why}")));
        }
        if out.insert(path.to_owned(), hash.to_owned()).is_some() {
            return Err(bad(format!("line {n}: {path} is listed twice")));
        }
    }
    Ok(out)
}

/// Reads a small file out of the archive into memory (at most `cap` bytes).
fn read_small(
    reader: &mut dyn Read,
    cap: u64,
    archive: &Path,
    entry: &str,
) -> Result<Vec<u8>, ModError> {
    let mut v = Vec::new();
    reader
        .take(cap.saturating_add(1))
        .read_to_end(&mut v)
        .map_err(|e| ModError::ArchiveRead {
            archive: archive.to_path_buf(),
            entry: entry.to_owned(),
            source: e,
        })?;
    if v.len() as u64 > cap {
        return Err(ModError::EntryTooLarge {
            archive: archive.to_path_buf(),
            entry: entry.to_owned(),
            limit: cap,
        });
    }
    Ok(v)
}

/// Removes the temporary install folder unless disarmed.
struct TempDir {
    path: Option<PathBuf>,
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Some(p) = self.path.take()
            && let Err(e) = fs::remove_dir_all(&p)
        {
            tracing::warn!(path = %p.display(), error = %e, "cannot remove the temporary install folder");
        }
    }
}

#[cfg(unix)]
fn set_mode(path: &Path, exec: bool) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(
        path,
        fs::Permissions::from_mode(if exec { 0o755 } else { 0o644 }),
    )
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _exec: bool) -> io::Result<()> {
    Ok(())
}

/// Installs the mod archive `archive` into `mods_root` as `<mods_root>/<id>` (see the
/// [module documentation](self) for every check). Nothing is written in `mods_root`
/// before the whole archive passed the checks, and on any failure nothing is left there.
///
/// # Errors
/// A [`ModError`] naming the archive and the entry: [`ModError::ArchiveRead`] (not gzip,
/// truncated, corrupt), [`ModError::UnsafeEntry`], [`ModError::EntryTooLarge`],
/// [`ModError::ArchiveTooLarge`], [`ModError::TooManyEntries`],
/// [`ModError::ArchiveMissing`], [`ModError::BadHashes`], [`ModError::HashMismatch`],
/// [`ModError::ArchiveManifest`], [`ModError::ArchiveIdMismatch`],
/// [`ModError::AlreadyInstalled`], [`ModError::InstallWrite`]; [`ModError::Io`] when the
/// archive or `mods_root` cannot be opened or created.
pub fn install(
    archive: &Path,
    mods_root: &Path,
    limits: InstallLimits,
) -> Result<Installed, ModError> {
    // Pass 1: check everything, write nothing.
    let mut manifest_bytes: Option<Vec<u8>> = None;
    let mut hashes_bytes: Option<Vec<u8>> = None;
    let checked = scan(archive, &limits, &mut |item| {
        if let Item::File {
            rel, entry, reader, ..
        } = item
        {
            if rel == "mod.toml" {
                manifest_bytes = Some(read_small(reader, MAX_MANIFEST_BYTES, archive, entry)?);
            } else if rel == HASHES_FILE {
                hashes_bytes = Some(read_small(reader, MAX_HASHES_BYTES, archive, entry)?);
            }
        }
        Ok(())
    })?;
    let folder = checked.folder.clone();
    let entry_of = |rel: &str| format!("{folder}/{rel}");
    let manifest_entry = entry_of("mod.toml");
    let hashes_entry = entry_of(HASHES_FILE);
    let Some(hashes_bytes) = hashes_bytes else {
        return Err(ModError::ArchiveMissing {
            archive: archive.to_path_buf(),
            entry: hashes_entry,
            why: "a mod archive lists its files' SHA-256 in it (`iron3d mods pack` writes it)"
                .to_owned(),
        });
    };
    let Some(manifest_bytes) = manifest_bytes else {
        return Err(ModError::ArchiveMissing {
            archive: archive.to_path_buf(),
            entry: manifest_entry,
            why: "a mod archive must contain the mod's manifest".to_owned(),
        });
    };
    let listed = parse_hashes(&hashes_bytes, archive, &hashes_entry)?;
    for (rel, expected) in &listed {
        if rel == HASHES_FILE {
            return Err(ModError::BadHashes {
                archive: archive.to_path_buf(),
                entry: hashes_entry,
                why: "lists itself".to_owned(),
            });
        }
        match checked.files.get(rel) {
            None => {
                return Err(ModError::ArchiveMissing {
                    archive: archive.to_path_buf(),
                    entry: entry_of(rel),
                    why: format!("{HASHES_FILE} lists it"),
                });
            }
            Some((found, _)) if found != expected => {
                return Err(ModError::HashMismatch {
                    archive: archive.to_path_buf(),
                    entry: entry_of(rel),
                    expected: expected.clone(),
                    found: found.clone(),
                });
            }
            Some(_) => {}
        }
    }
    if let Some(rel) = checked
        .files
        .keys()
        .find(|rel| *rel != HASHES_FILE && !listed.contains_key(*rel))
    {
        return Err(ModError::BadHashes {
            archive: archive.to_path_buf(),
            entry: entry_of(rel),
            why: format!("is not listed in {HASHES_FILE}; the archive was altered after packing"),
        });
    }
    let manifest_origin = PathBuf::from(format!("{}/{manifest_entry}", archive.display()));
    let manifest = std::str::from_utf8(&manifest_bytes)
        .map_err(|e| ModError::Invalid {
            file: manifest_origin.clone(),
            line: 1,
            column: 1,
            field: "file".to_owned(),
            message: format!(
                "is not UTF-8 text (invalid byte at offset {})",
                e.valid_up_to()
            ),
        })
        .and_then(|text| Manifest::parse(text, &manifest_origin))
        .map_err(|e| ModError::ArchiveManifest {
            archive: archive.to_path_buf(),
            entry: manifest_entry.clone(),
            source: Box::new(e),
        })?;
    if manifest.id != folder {
        return Err(ModError::ArchiveIdMismatch {
            archive: archive.to_path_buf(),
            entry: manifest_entry,
            id: manifest.id,
            folder,
        });
    }
    let dest = mods_root.join(&folder);
    let already = |dest: &Path| ModError::AlreadyInstalled {
        archive: archive.to_path_buf(),
        entry: format!("{folder}/"),
        id: folder.clone(),
        path: dest.to_path_buf(),
    };
    if fs::symlink_metadata(&dest).is_ok() {
        return Err(already(&dest));
    }

    // Pass 2: unpack into a temporary folder inside mods_root, then rename into place.
    let created_root = !mods_root.exists();
    fs::create_dir_all(mods_root).map_err(|e| ModError::io(mods_root, "create the folder", e))?;
    let result = unpack_and_place(archive, mods_root, &limits, &checked, &dest, &already);
    if result.is_err() && created_root {
        // Only removes it when empty, i.e. when nothing else appeared meanwhile.
        let _ = fs::remove_dir(mods_root);
    }
    result?;
    Ok(Installed {
        id: manifest.id,
        version: manifest.version,
        path: dest,
    })
}

fn unpack_and_place(
    archive: &Path,
    mods_root: &Path,
    limits: &InstallLimits,
    checked: &Scan,
    dest: &Path,
    already: &dyn Fn(&Path) -> ModError,
) -> Result<(), ModError> {
    let mut tmp_path = None;
    for _ in 0..16 {
        let candidate = mods_root.join(temp_name(".install-"));
        match fs::create_dir(&candidate) {
            Ok(()) => {
                tmp_path = Some(candidate);
                break;
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(ModError::io(candidate, "create the folder", e)),
        }
    }
    let Some(tmp_path) = tmp_path else {
        return Err(ModError::io(
            mods_root,
            "create a temporary install folder",
            io::Error::from(io::ErrorKind::AlreadyExists),
        ));
    };
    let mut guard = TempDir {
        path: Some(tmp_path.clone()),
    };
    let write_err = |entry: &str, path: &Path, e: io::Error| ModError::InstallWrite {
        archive: archive.to_path_buf(),
        entry: entry.to_owned(),
        path: path.to_path_buf(),
        source: e,
    };
    let unpacked = scan(archive, limits, &mut |item| match item {
        Item::Dir { rel, entry } => {
            let path = join_relative(&tmp_path, rel);
            fs::create_dir_all(&path).map_err(|e| write_err(entry, &path, e))
        }
        Item::File {
            rel,
            entry,
            exec,
            reader,
        } => {
            let path = join_relative(&tmp_path, rel);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(|e| write_err(entry, parent, e))?;
            }
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .map_err(|e| write_err(entry, &path, e))?;
            io::copy(reader, &mut f).map_err(|e| write_err(entry, &path, e))?;
            f.flush().map_err(|e| write_err(entry, &path, e))?;
            drop(f);
            set_mode(&path, exec).map_err(|e| write_err(entry, &path, e))
        }
    })?;
    if unpacked != *checked {
        return Err(ModError::ArchiveRead {
            archive: archive.to_path_buf(),
            entry: format!("{}/", checked.folder),
            source: io::Error::other("the archive changed while it was being installed"),
        });
    }
    if fs::symlink_metadata(dest).is_ok() {
        return Err(already(dest));
    }
    fs::rename(&tmp_path, dest).map_err(|e| {
        if fs::symlink_metadata(dest).is_ok() {
            already(dest)
        } else {
            ModError::io(dest, "move the unpacked mod into place", e)
        }
    })?;
    guard.path = None;
    Ok(())
}

#[cfg(test)]
mod tests;
