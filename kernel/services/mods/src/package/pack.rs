//! [`pack`]: a mod folder into a deterministic `.tar.gz` (see the parent module).

use super::HASHES_FILE;
use crate::ModError;
use crate::discover::ModDir;
use crate::util::{check_relative, hex, write_atomic};
use flate2::{Compression, GzBuilder};
use semver::Version;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// Deepest folder nesting packed.
const MAX_DEPTH: usize = 64;

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

pub(super) fn file_header(size: u64, exec: bool) -> tar::Header {
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
/// [package module documentation](crate::package) for the layout). `out` is written atomically; the same
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
            // Collected as a regular file; opened so that a FIFO put there meanwhile is
            // refused, never waited on (PD-MODS-REGULAR-FILES).
            let (f, _) = crate::files::open_regular(&src.path)?;
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
