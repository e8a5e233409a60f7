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
//! mods folder ([`check_package`] runs the same check on bytes in memory): only plain
//! files and folders inside one `<id>/` folder, no absolute paths, `..`, control
//! characters, links or devices, no two paths that differ only in letter case (the
//! game's lookups ignore case), every entry and the whole archive within
//! [`InstallLimits`] (counting the bytes actually decompressed, whatever the headers
//! claim), every file listed in `HASHES.sha256` with the right hash, a valid manifest
//! whose id is the folder name, and no installed mod with that id. Then it unpacks into a
//! `.install-*` folder inside the mods folder, checks the bytes again, and renames that
//! folder into place. On any failure nothing is left behind (and a process killed midway
//! leaves a folder the next install or discovery removes, PD-MODS-STALE-INSTALL).
//!
//! **PD-MODS-ARCHIVE-HEADERS**: the tar stream is read raw, so the tar reader never
//! buffers an extension header itself. A GNU long name or long link (`L`, `K`) is
//! refused when its header claims more than [`MAX_LONG_NAME`] bytes, a PAX header (`x`,
//! `g`) more than [`MAX_PAX_HEADER`], before one byte of it is read; all of them
//! together may not exceed [`MAX_EXTENSION_BYTES`]; at most one of each kind describes
//! one entry, a PAX `size` must equal the header's, sparse files are refused, and what
//! follows the end marker is bounded by [`MAX_TRAILING_BYTES`]. Names echoed in errors
//! are escaped and cut ([`crate::shown_name`]).

use crate::ModError;
use crate::discover::MAX_MANIFEST_BYTES;
use crate::files::{INSTALL_PREFIX, sweep_stale_installs};
use crate::manifest::{Manifest, check_id};
use crate::util::{
    check_relative, escaped, hex, is_sha256_hex, join_relative, shown_name, temp_name,
};
use flate2::read::GzDecoder;
use semver::Version;
use sha2::{Digest, Sha256};
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};

mod pack;
pub use pack::{PackReport, pack};

/// The name of the hash list inside a mod archive's folder.
pub const HASHES_FILE: &str = "HASHES.sha256";

/// The largest `HASHES.sha256` accepted (4 MiB).
pub const MAX_HASHES_BYTES: u64 = 4 << 20;

/// Decompressed bytes allowed per entry for tar headers, padding and long names, on top
/// of [`InstallLimits::max_total`].
const OVERHEAD_PER_ENTRY: u64 = 8 * 1024;

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
// install

/// Longest GNU long name or long link (`L` / `K` entries) accepted, in bytes; the
/// header's claim is checked before anything is read.
pub const MAX_LONG_NAME: u64 = 4 << 10;

/// Largest PAX extended header (`x` / `g` entries) accepted, in bytes; checked the same
/// way.
pub const MAX_PAX_HEADER: u64 = 64 << 10;

/// Most bytes of long names and PAX headers in one archive together.
pub const MAX_EXTENSION_BYTES: u64 = 16 << 20;

/// Most bytes accepted after the archive's end marker (tools pad to 10 KiB records).
pub const MAX_TRAILING_BYTES: u64 = 1 << 20;

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

/// Where the archive's bytes come from; each pass opens it again.
enum Input<'a> {
    /// A file on disk, read until `cancel` is set.
    File(&'a Path, &'a AtomicBool),
    /// Bytes in memory ([`check_package`]).
    Bytes(&'a [u8]),
}

impl<'a> Input<'a> {
    fn open(&self) -> Result<Box<dyn Read + 'a>, ModError> {
        match *self {
            Input::File(path, cancel) => {
                let (file, _) = crate::files::open_regular(path)?;
                Ok(Box::new(Cancellable {
                    inner: file,
                    cancel,
                }))
            }
            Input::Bytes(bytes) => Ok(Box::new(bytes)),
        }
    }
}

/// A reader that fails once `cancel` is set (an install interrupted by a signal): every
/// read of both passes goes through it, so the install stops within one buffer.
struct Cancellable<'a, R> {
    inner: R,
    cancel: &'a AtomicBool,
}

impl<R: Read> Read for Cancellable<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.cancel.load(Ordering::Relaxed) {
            // Not `ErrorKind::Interrupted`: readers retry that one.
            return Err(io::Error::other("interrupted by a signal"));
        }
        self.inner.read(buf)
    }
}

/// The extension headers met since the last member: they describe the next one.
#[derive(Default)]
struct Pending {
    /// A GNU long name (`L`), trailing NUL removed.
    long_name: Option<Vec<u8>>,
    /// A GNU long link name (`K`) was seen.
    long_link: bool,
    /// A PAX extended header (`x`).
    pax: Option<Pax>,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.long_name.is_none() && !self.long_link && self.pax.is_none()
    }
}

/// The PAX records that matter here.
#[derive(Default)]
struct Pax {
    /// `path`: the member's name.
    path: Option<Vec<u8>>,
    /// `size`: the member's size (must equal its header's).
    size: Option<u64>,
}

/// A decimal number written in ASCII digits only.
fn decimal(bytes: &[u8]) -> Option<u64> {
    if bytes.is_empty() || bytes.len() > 20 || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(bytes).ok()?.parse().ok()
}

/// Parses PAX extended header records (`"<len> <key>=<value>\n"`, `len` counting the
/// whole record). Keys other than `path` and `size` are read and ignored, except the
/// `GNU.sparse` family (sparse files are not allowed). Returns why it is refused.
fn parse_pax(data: &[u8]) -> Result<Pax, String> {
    let mut pax = Pax::default();
    let mut rest = data;
    let mut n = 0usize;
    while !rest.is_empty() {
        n += 1;
        let bad = |what: &str| format!("is a PAX header whose record {n} {what}");
        let Some(sp) = rest.iter().take(21).position(|&b| b == b' ') else {
            return Err(bad("has no length"));
        };
        let len = decimal(&rest[..sp])
            .and_then(|l| usize::try_from(l).ok())
            .ok_or_else(|| bad("has a length that is not a number"))?;
        if len <= sp + 1 || len > rest.len() {
            return Err(bad(&format!(
                "claims {len} bytes where {} remain",
                rest.len()
            )));
        }
        let (record, tail) = rest.split_at(len);
        rest = tail;
        let Some(body) = record[sp + 1..].strip_suffix(b"\n") else {
            return Err(bad("does not end with a newline"));
        };
        let Some(eq) = body.iter().position(|&b| b == b'=') else {
            return Err(bad("has no '='"));
        };
        let (key, value) = (&body[..eq], &body[eq + 1..]);
        match key {
            b"path" => pax.path = Some(value.to_vec()),
            b"size" => {
                pax.size =
                    Some(decimal(value).ok_or_else(|| bad("has a size that is not a number"))?);
            }
            k if k.starts_with(b"GNU.sparse") => {
                return Err(
                    "is a PAX header of a sparse file (not allowed in mod archives)".to_owned(),
                );
            }
            _ => {}
        }
    }
    Ok(pax)
}

/// `name`'s folders and itself, lowercased, checked against the paths seen so far: the
/// first one that differs from a seen path only by ASCII case, if any (`seen` maps the
/// lowercase form to the path as first seen).
fn case_clash(seen: &mut BTreeMap<String, String>, rel: &str) -> Option<String> {
    let mut end = 0;
    loop {
        let next = rel[end..].find('/').map(|i| end + i);
        let part = &rel[..next.unwrap_or(rel.len())];
        let lower = part.to_ascii_lowercase();
        match seen.get(&lower) {
            Some(first) if first != part => return Some(first.clone()),
            Some(_) => {}
            None => {
                seen.insert(lower, part.to_owned());
            }
        }
        match next {
            Some(i) => end = i + 1,
            None => return None,
        }
    }
}

/// One pass over the archive, checking every entry and handing the good ones to `sink`.
/// The tar stream is read raw: extension headers (GNU long names and links, PAX headers)
/// are bounded by their header's claim before one byte of them is read, and applied
/// here, never buffered whole by the tar reader.
#[allow(
    clippy::too_many_lines,
    reason = "one pass with its checks in order, easier to audit in one place"
)]
fn scan(
    input: &Input<'_>,
    archive: &Path,
    limits: &InstallLimits,
    sink: &mut dyn FnMut(Item<'_>) -> Result<(), ModError>,
) -> Result<Scan, ModError> {
    let source = input.open()?;
    let over = Rc::new(Cell::new(false));
    let cap = limits
        .max_total
        .saturating_add(
            (limits.max_entries as u64)
                .saturating_add(2)
                .saturating_mul(OVERHEAD_PER_ENTRY),
        )
        .saturating_add(MAX_EXTENSION_BYTES)
        .saturating_add(MAX_TRAILING_BYTES)
        .saturating_add(1 << 20);
    let stream = CappedReader {
        inner: GzDecoder::new(BufReader::new(source)),
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
                // The reader's words may quote a name from the archive.
                source: io::Error::new(e.kind(), escaped(&e.to_string()).into_owned()),
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
    let mut cases: BTreeMap<String, String> = BTreeMap::new();
    let mut where_ = "(start of archive)".to_owned();
    let mut entries_seen = 0usize;
    let mut total = 0u64;
    let mut extension_bytes = 0u64;
    let mut pending = Pending::default();
    {
        let entries = ar.entries().map_err(|e| read_err(&where_, e))?.raw(true);
        for entry in entries {
            let mut entry = entry.map_err(|e| read_err(&format!("(after {where_})"), e))?;
            let kind = entry.header().entry_type();
            let size = entry.size();
            // Extension headers: bounded by their claim before they are read.
            let ext_cap = match kind {
                tar::EntryType::GNULongName | tar::EntryType::GNULongLink => Some(MAX_LONG_NAME),
                tar::EntryType::XHeader | tar::EntryType::XGlobalHeader => Some(MAX_PAX_HEADER),
                _ => None,
            };
            if let Some(ext_cap) = ext_cap {
                let what = match kind {
                    tar::EntryType::GNULongName => "a GNU long name",
                    tar::EntryType::GNULongLink => "a GNU long link name",
                    tar::EntryType::XHeader => "a PAX extended header",
                    _ => "a PAX global header",
                };
                let name = shown_name(&String::from_utf8_lossy(&entry.path_bytes()));
                let here = if entries_seen == 0 && out.folder.is_empty() {
                    format!("{name} (before the first entry)")
                } else {
                    format!("{name} (after {where_})")
                };
                if size > ext_cap {
                    return Err(unsafe_entry(
                        &here,
                        format!("is {what} of {size} bytes, more than the {ext_cap} accepted"),
                    ));
                }
                extension_bytes += size;
                if extension_bytes > MAX_EXTENSION_BYTES {
                    return Err(unsafe_entry(
                        &here,
                        format!(
                            "long names and PAX headers add up to more than the {MAX_EXTENSION_BYTES} bytes accepted in one archive"
                        ),
                    ));
                }
                let data = read_small(&mut entry, ext_cap, archive, &here)?;
                match kind {
                    tar::EntryType::GNULongName => {
                        if pending.long_name.is_some() {
                            return Err(unsafe_entry(
                                &here,
                                "is a second long name for one entry".to_owned(),
                            ));
                        }
                        let mut data = data;
                        if data.last() == Some(&0) {
                            data.pop();
                        }
                        pending.long_name = Some(data);
                    }
                    tar::EntryType::GNULongLink => {
                        if pending.long_link {
                            return Err(unsafe_entry(
                                &here,
                                "is a second long link name for one entry".to_owned(),
                            ));
                        }
                        pending.long_link = true;
                    }
                    tar::EntryType::XHeader => {
                        if pending.pax.is_some() {
                            return Err(unsafe_entry(
                                &here,
                                "is a second PAX header for one entry".to_owned(),
                            ));
                        }
                        pending.pax =
                            Some(parse_pax(&data).map_err(|why| unsafe_entry(&here, why))?);
                    }
                    _ => {
                        // Metadata for the tools that wrote the archive: checked, then
                        // ignored (as the tar reader does). Counted as an entry.
                        parse_pax(&data).map_err(|why| unsafe_entry(&here, why))?;
                        entries_seen += 1;
                        if entries_seen > limits.max_entries {
                            return Err(ModError::TooManyEntries {
                                archive: archive.to_path_buf(),
                                entry: here,
                                limit: limits.max_entries,
                            });
                        }
                    }
                }
                continue;
            }
            // A member: its name from the PAX header, else the long name, else the header.
            let ext = std::mem::take(&mut pending);
            let pax = ext.pax.unwrap_or_default();
            let raw: Vec<u8> = match (pax.path, ext.long_name) {
                (Some(p), _) | (None, Some(p)) => p,
                (None, None) => entry.path_bytes().into_owned(),
            };
            let name = shown_name(&String::from_utf8_lossy(&raw));
            where_.clone_from(&name);
            entries_seen += 1;
            if entries_seen > limits.max_entries {
                return Err(ModError::TooManyEntries {
                    archive: archive.to_path_buf(),
                    entry: name,
                    limit: limits.max_entries,
                });
            }
            if let Some(claimed) = pax.size
                && claimed != size
            {
                return Err(unsafe_entry(
                    &name,
                    format!("its PAX size ({claimed}) differs from its header's ({size})"),
                ));
            }
            let is_dir = match kind {
                tar::EntryType::Regular => false,
                tar::EntryType::Directory => true,
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
                            "is a special entry (tar type {}); only plain files and folders are allowed",
                            escaped(&format!("{:?}", char::from(other.as_byte())))
                        ),
                    ));
                }
            };
            if ext.long_link {
                return Err(unsafe_entry(
                    &name,
                    "has a long link name, which only links use (not allowed in mod archives)"
                        .to_owned(),
                ));
            }
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
                        format!(
                            "the top-level folder \"{}\" is not a mod id ({why})",
                            shown_name(folder)
                        ),
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
            // Paths that differ only in case: the game's lookups ignore case.
            if !rel.is_empty()
                && let Some(first) = case_clash(&mut cases, rel)
            {
                return Err(unsafe_entry(
                    &name,
                    format!(
                        "differs only in letter case from \"{}\" in the same archive; the game finds files whatever their case, so only one of them could ever be used (rename or remove one)",
                        shown_name(&format!("{}/{first}", out.folder))
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
                        format!("is inside \"{}\", which is a file", shown_name(parent)),
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
    if !pending.is_empty() {
        return Err(unsafe_entry(
            &format!("(after {where_})"),
            "a long name or PAX header describes no entry (the archive ends after it)".to_owned(),
        ));
    }
    // Read to the end of the gzip stream so its checksum is verified (a truncated or
    // altered download fails here even when the tar part looked complete); what follows
    // the end marker is padding, bounded.
    let rest = ar.into_inner();
    let trailing = io::copy(&mut rest.take(MAX_TRAILING_BYTES + 1), &mut io::sink())
        .map_err(|e| read_err("(end of archive)", e))?;
    if trailing > MAX_TRAILING_BYTES {
        return Err(unsafe_entry(
            "(end of archive)",
            format!("more than {MAX_TRAILING_BYTES} bytes follow the archive's end marker"),
        ));
    }
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
            return Err(bad(format!(
                "line {n}: {} is listed twice",
                shown_name(path)
            )));
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

/// Removes the temporary install folder unless disarmed (on errors and on a panic while
/// unpacking; PD-MODS-STALE-INSTALL covers a process killed meanwhile).
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

/// What the read-only check of a mod archive found ([`check_package`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedPackage {
    /// The mod's id (the archive's single folder).
    pub id: String,
    /// Its version.
    pub version: Version,
    /// Files in the archive, `HASHES.sha256` included.
    pub files: usize,
    /// Their total decompressed size in bytes.
    pub bytes: u64,
}

/// Pass 1 of [`install`]: every entry, the hash list and the manifest checked; nothing
/// written.
fn check(
    input: &Input<'_>,
    archive: &Path,
    limits: &InstallLimits,
) -> Result<(Scan, Manifest), ModError> {
    let mut manifest_bytes: Option<Vec<u8>> = None;
    let mut hashes_bytes: Option<Vec<u8>> = None;
    let checked = scan(input, archive, limits, &mut |item| {
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
    let entry_of = |rel: &str| shown_name(&format!("{folder}/{rel}"));
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
    Ok((checked, manifest))
}

/// The read-only check [`install`] runs before writing anything, on an archive held in
/// memory: every entry (kinds, paths, case, sizes, extension headers), the hash list and
/// the manifest. Nothing is written anywhere. Errors name the archive as
/// `(archive in memory)`.
///
/// # Errors
/// The errors of [`install`]'s first pass.
pub fn check_package(data: &[u8], limits: InstallLimits) -> Result<CheckedPackage, ModError> {
    let origin = Path::new("(archive in memory)");
    let (scan, manifest) = check(&Input::Bytes(data), origin, &limits)?;
    Ok(CheckedPackage {
        id: manifest.id,
        version: manifest.version,
        files: scan.files.len(),
        bytes: scan.files.values().map(|(_, n)| n).sum(),
    })
}

/// Installs the mod archive `archive` into `mods_root` as `<mods_root>/<id>` (see the
/// [module documentation](self) for every check). Nothing is written in `mods_root`
/// before the whole archive passed the checks, and on any failure nothing is left there.
/// Unfinished installs of processes that are gone are removed from `mods_root` first
/// (PD-MODS-STALE-INSTALL).
///
/// # Errors
/// A [`ModError`] naming the archive and the entry: [`ModError::ArchiveRead`] (not gzip,
/// truncated, corrupt), [`ModError::UnsafeEntry`], [`ModError::EntryTooLarge`],
/// [`ModError::ArchiveTooLarge`], [`ModError::TooManyEntries`],
/// [`ModError::ArchiveMissing`], [`ModError::BadHashes`], [`ModError::HashMismatch`],
/// [`ModError::ArchiveManifest`], [`ModError::ArchiveIdMismatch`],
/// [`ModError::AlreadyInstalled`], [`ModError::InstallWrite`]; [`ModError::Io`] /
/// [`ModError::NotRegular`] when the archive or `mods_root` cannot be opened or created.
pub fn install(
    archive: &Path,
    mods_root: &Path,
    limits: InstallLimits,
) -> Result<Installed, ModError> {
    install_cancellable(archive, mods_root, limits, &AtomicBool::new(false))
}

/// [`install`] that stops as soon as `cancel` is set — the launcher sets it from
/// SIGINT, SIGTERM and SIGHUP — removing its temporary folder like any failure
/// (PD-MODS-STALE-INSTALL covers only a process killed outright).
///
/// # Errors
/// Those of [`install`]; [`ModError::Interrupted`] once `cancel` was set.
pub fn install_cancellable(
    archive: &Path,
    mods_root: &Path,
    limits: InstallLimits,
    cancel: &AtomicBool,
) -> Result<Installed, ModError> {
    let result = install_with(archive, mods_root, limits, cancel);
    if result.is_err() && cancel.load(Ordering::Relaxed) {
        return Err(ModError::Interrupted {
            archive: archive.to_path_buf(),
        });
    }
    result
}

fn install_with(
    archive: &Path,
    mods_root: &Path,
    limits: InstallLimits,
    cancel: &AtomicBool,
) -> Result<Installed, ModError> {
    sweep_stale_installs(mods_root);
    // Pass 1: check everything, write nothing.
    let input = Input::File(archive, cancel);
    let (checked, manifest) = check(&input, archive, &limits)?;
    let folder = checked.folder.clone();
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
    let result = unpack_and_place(
        &input, archive, mods_root, &limits, &checked, &dest, &already,
    );
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
    input: &Input<'_>,
    archive: &Path,
    mods_root: &Path,
    limits: &InstallLimits,
    checked: &Scan,
    dest: &Path,
    already: &dyn Fn(&Path) -> ModError,
) -> Result<(), ModError> {
    let mut tmp_path = None;
    for _ in 0..16 {
        let candidate = mods_root.join(temp_name(INSTALL_PREFIX));
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
    let unpacked = scan(input, archive, limits, &mut |item| match item {
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
