//! Reading a mod folder safely: regular files only, links only inside the mod, bounded
//! sizes and walks, and the sweep of unfinished installs.
//!
//! **PD-MODS-REGULAR-FILES**: everything the mods code reads from disk — a `mod.toml`,
//! the user's `mods.toml`, an overlay file (fingerprints, `Behavior.ini` checks), a
//! plugin library — is opened with `O_NONBLOCK` and checked with `fstat` to be a regular
//! file before one byte is read, so a FIFO, a device or a socket is refused by name and
//! never blocks or streams forever. Sizes are checked against the file's real length
//! before reading (`read_capped`). Inside a mod folder (`ModTree`) a symbolic link is
//! followed only when it resolves inside the mod's own folder (after every link on the
//! way is resolved); a link leaving it — to `/etc`, to `/dev/zero`, to another mod — is
//! refused, and a linked folder outside the mod is never walked. A walk is bounded in
//! depth ([`MAX_DEPTH`]) and in entries ([`MAX_TREE_ENTRIES`]), so links that fan out
//! inside the mod cannot make it endless. A mod that breaks the rule is reported broken
//! by [`crate::discover`]; the other mods keep working.
//!
//! **PD-MODS-STALE-INSTALL**: [`crate::install`] unpacks into
//! `<mods>/.install-<pid in hex>-<n>-<noise>` and renames it into place; the folder is
//! removed on every error and on a panic, but a process killed midway leaves it behind.
//! When the mods folder is opened for an install and by every [`crate::discover`], such
//! folders whose process is no longer alive are removed (`sweep_stale_installs`). One of
//! a live process is never touched, nor one of this process (it may be in use), nor
//! anything whose name is not exactly of that form or that is not a plain folder.

use crate::ModError;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Deepest folder nesting walked inside a mod.
pub const MAX_DEPTH: usize = 64;

/// Most folder entries one walk of a mod's overlay looks at (links inside the mod may
/// show a folder more than once; each time counts).
pub const MAX_TREE_ENTRIES: usize = 200_000;

/// The prefix of the temporary folders [`crate::install`] unpacks into.
pub(crate) const INSTALL_PREFIX: &str = ".install-";

/// What a file-system object that is not a regular file or folder is, in words.
fn kind_name(ft: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if ft.is_socket() {
            return "a socket";
        }
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
    }
    if ft.is_dir() {
        "a folder"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else {
        "a special file"
    }
}

/// Opens `path` for reading without ever blocking in `open` (a FIFO with no writer would
/// block a plain open forever).
fn open_nonblocking(path: &Path) -> io::Result<fs::File> {
    let mut o = fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK);
    }
    o.open(path)
}

/// Opens `path` (links followed) for reading if it is a regular file, and returns it
/// with its length (PD-MODS-REGULAR-FILES).
///
/// # Errors
/// [`ModError::Io`] when it cannot be opened, [`ModError::NotRegular`] when it is a FIFO,
/// a device, a socket or a folder.
pub(crate) fn open_regular(path: &Path) -> Result<(fs::File, u64), ModError> {
    let file = open_nonblocking(path).map_err(|e| ModError::io(path, "read", e))?;
    let meta = file.metadata().map_err(|e| ModError::io(path, "read", e))?;
    if !meta.is_file() {
        return Err(ModError::NotRegular {
            path: path.to_path_buf(),
            kind: kind_name(&meta.file_type()),
        });
    }
    Ok((file, meta.len()))
}

/// Reads the regular file `path` whole, refusing one larger than `limit` bytes: by its
/// real size before reading, and while reading (a file that grows meanwhile is still
/// bounded, and then said to be "more than" the limit).
///
/// # Errors
/// Those of [`open_regular`], [`ModError::TooLarge`], [`ModError::Io`] when reading fails.
pub(crate) fn read_capped(path: &Path, limit: u64) -> Result<Vec<u8>, ModError> {
    let (file, len) = open_regular(path)?;
    if len > limit {
        return Err(ModError::TooLarge {
            path: path.to_path_buf(),
            size: Some(len),
            limit,
        });
    }
    let mut buf = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|e| ModError::io(path, "read", e))?;
    if buf.len() as u64 > limit {
        return Err(ModError::TooLarge {
            path: path.to_path_buf(),
            size: None,
            limit,
        });
    }
    Ok(buf)
}

/// A mod folder whose files are read only inside it (PD-MODS-REGULAR-FILES).
#[derive(Debug, Clone)]
pub(crate) struct ModTree {
    /// The folder as given (for messages).
    root: PathBuf,
    /// The folder with every link resolved.
    real: PathBuf,
}

impl ModTree {
    /// The mod folder `root` (itself possibly a link: a linked mod folder is a mod
    /// folder).
    ///
    /// # Errors
    /// [`ModError::Io`] when it cannot be resolved (missing, unreadable).
    pub(crate) fn new(root: &Path) -> Result<ModTree, ModError> {
        let real = fs::canonicalize(root).map_err(|e| ModError::io(root, "read", e))?;
        Ok(ModTree {
            root: root.to_path_buf(),
            real,
        })
    }

    /// `path` (inside the folder as given) with every link resolved; `Ok(None)` when it
    /// does not exist.
    ///
    /// # Errors
    /// [`ModError::LinkOutside`] when it resolves outside the mod folder,
    /// [`ModError::Io`] when it cannot be resolved.
    pub(crate) fn resolve(&self, path: &Path) -> Result<Option<PathBuf>, ModError> {
        let real = match fs::canonicalize(path) {
            Ok(p) => p,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(ModError::io(path, "read", e)),
        };
        if !real.starts_with(&self.real) {
            return Err(ModError::LinkOutside {
                path: path.to_path_buf(),
                target: real,
            });
        }
        Ok(Some(real))
    }

    /// Opens the regular file `path` inside the mod: [`ModTree::resolve`], then
    /// [`open_regular`] on the resolved path. `Ok(None)` when it does not exist.
    ///
    /// # Errors
    /// Those of [`ModTree::resolve`] and [`open_regular`] (naming `path` as given).
    pub(crate) fn open(&self, path: &Path) -> Result<Option<(fs::File, u64)>, ModError> {
        let Some(real) = self.resolve(path)? else {
            return Ok(None);
        };
        open_regular(&real).map(Some).map_err(|e| renamed(e, path))
    }

    /// [`read_capped`] of the file `path` inside the mod.
    ///
    /// # Errors
    /// Those of [`ModTree::resolve`] and [`read_capped`]; a missing file is
    /// [`ModError::Io`] (not found).
    pub(crate) fn read_capped(&self, path: &Path, limit: u64) -> Result<Vec<u8>, ModError> {
        match self.resolve(path)? {
            Some(real) => read_capped(&real, limit).map_err(|e| renamed(e, path)),
            None => Err(ModError::io(
                path,
                "read",
                io::Error::from(io::ErrorKind::NotFound),
            )),
        }
    }

    /// Every regular file under the folder `dir` of the mod, by `/`-separated path
    /// relative to `dir`, with its resolved path, in name order. Links are followed only
    /// inside the mod; a link to a folder that contains it (a loop) is refused.
    ///
    /// # Errors
    /// [`ModError::LinkOutside`], [`ModError::NotRegular`] for the first offending
    /// entry; [`ModError::Io`] when a folder cannot be listed, is nested deeper than
    /// [`MAX_DEPTH`], loops, or holds more than [`MAX_TREE_ENTRIES`] entries.
    pub(crate) fn files(&self, dir: &Path) -> Result<Vec<(String, PathBuf)>, ModError> {
        let Some(real) = self.resolve(dir)? else {
            return Err(ModError::io(
                dir,
                "list",
                io::Error::from(io::ErrorKind::NotFound),
            ));
        };
        let mut out = Vec::new();
        let mut budget = MAX_TREE_ENTRIES;
        let mut stack = vec![real.clone()];
        self.walk(dir, &real, "", &mut stack, &mut budget, &mut out)?;
        out.sort();
        Ok(out)
    }

    fn walk(
        &self,
        shown: &Path,
        real: &Path,
        prefix: &str,
        stack: &mut Vec<PathBuf>,
        budget: &mut usize,
        out: &mut Vec<(String, PathBuf)>,
    ) -> Result<(), ModError> {
        if stack.len() > MAX_DEPTH {
            return Err(ModError::io(
                shown,
                "read",
                io::Error::other(format!("folders nested deeper than {MAX_DEPTH} levels")),
            ));
        }
        let meta = fs::metadata(real).map_err(|e| ModError::io(shown, "list", e))?;
        if !meta.is_dir() {
            return Err(ModError::NotRegular {
                path: shown.to_path_buf(),
                kind: "not a folder",
            });
        }
        let mut names: Vec<std::ffi::OsString> = Vec::new();
        for entry in fs::read_dir(real).map_err(|e| ModError::io(shown, "list", e))? {
            let entry = entry.map_err(|e| ModError::io(shown, "list", e))?;
            if *budget == 0 {
                return Err(ModError::io(
                    &self.root,
                    "read",
                    io::Error::other(format!(
                        "an overlay holds more than {MAX_TREE_ENTRIES} entries (counting each folder a link shows again)"
                    )),
                ));
            }
            *budget -= 1;
            names.push(entry.file_name());
        }
        names.sort();
        for name in names {
            let text = name.to_string_lossy().into_owned();
            let rel = if prefix.is_empty() {
                text
            } else {
                format!("{prefix}/{text}")
            };
            let shown_path = shown.join(&name);
            let path = real.join(&name);
            let lmeta =
                fs::symlink_metadata(&path).map_err(|e| ModError::io(&shown_path, "read", e))?;
            let ft = lmeta.file_type();
            if ft.is_file() {
                out.push((rel, path));
            } else if ft.is_dir() {
                stack.push(path.clone());
                self.walk(&shown_path, &path, &rel, stack, budget, out)?;
                stack.pop();
            } else if ft.is_symlink() {
                let Some(target) = self.resolve(&path).map_err(|e| renamed(e, &shown_path))? else {
                    return Err(ModError::io(
                        &shown_path,
                        "read",
                        io::Error::other("a link to nothing (its target does not exist)"),
                    ));
                };
                let tmeta =
                    fs::metadata(&target).map_err(|e| ModError::io(&shown_path, "read", e))?;
                if tmeta.is_file() {
                    out.push((rel, target));
                } else if tmeta.is_dir() {
                    if stack.iter().any(|s| s.starts_with(&target)) {
                        return Err(ModError::io(
                            &shown_path,
                            "read",
                            io::Error::other(
                                "a link to a folder that contains it (a loop); remove the link",
                            ),
                        ));
                    }
                    stack.push(target.clone());
                    self.walk(&shown_path, &target, &rel, stack, budget, out)?;
                    stack.pop();
                } else {
                    return Err(ModError::NotRegular {
                        path: shown_path,
                        kind: kind_name(&tmeta.file_type()),
                    });
                }
            } else {
                return Err(ModError::NotRegular {
                    path: shown_path,
                    kind: kind_name(&ft),
                });
            }
        }
        Ok(())
    }
}

/// `e` about `path` as the caller named it instead of the resolved path.
fn renamed(e: ModError, path: &Path) -> ModError {
    match e {
        ModError::Io { action, source, .. } => ModError::Io {
            path: path.to_path_buf(),
            action,
            source,
        },
        ModError::NotRegular { kind, .. } => ModError::NotRegular {
            path: path.to_path_buf(),
            kind,
        },
        ModError::TooLarge { size, limit, .. } => ModError::TooLarge {
            path: path.to_path_buf(),
            size,
            limit,
        },
        ModError::LinkOutside { target, .. } => ModError::LinkOutside {
            path: path.to_path_buf(),
            target,
        },
        other => other,
    }
}

/// The process id in a temporary install folder's name `.install-<pid hex>-<n hex>-<8
/// hex>` (the form [`crate::util::temp_name`] makes), if the name is exactly of that form.
fn install_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(INSTALL_PREFIX)?;
    let mut parts = rest.split('-');
    let (pid, n, noise) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some()
        || noise.len() != 8
        || [pid, n, noise]
            .iter()
            .any(|p| p.is_empty() || p.len() > 16 || !p.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return None;
    }
    u32::from_str_radix(pid, 16).ok()
}

/// Whether process `pid` may still be running (when in doubt: yes).
fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return true;
        };
        if pid <= 0 {
            return true;
        }
        // SAFETY: kill with signal 0 sends nothing; it only checks that the process
        // exists (and whether we may signal it). No memory is involved.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// Removes the unfinished install folders in `root` whose process is gone
/// (PD-MODS-STALE-INSTALL); returns the names removed. Never fails: what cannot be
/// removed is logged and left.
pub(crate) fn sweep_stale_installs(root: &Path) -> Vec<String> {
    let mut removed = Vec::new();
    let Ok(entries) = fs::read_dir(root) else {
        return removed;
    };
    let me = std::process::id();
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Some(pid) = install_pid(&name) else {
            continue;
        };
        if pid == me || process_alive(pid) {
            continue;
        }
        let path = entry.path();
        if !fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        match fs::remove_dir_all(&path) {
            Ok(()) => {
                tracing::info!(path = %path.display(), "removed an unfinished install left by a process that is gone");
                removed.push(name);
            }
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "cannot remove an unfinished install");
            }
        }
    }
    removed.sort();
    removed
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    #[test]
    fn read_capped_says_the_real_size() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        fs::write(&p, [0u8; 10]).unwrap();
        assert_eq!(read_capped(&p, 10).unwrap().len(), 10);
        let e = read_capped(&p, 9).unwrap_err();
        assert!(
            matches!(
                e,
                ModError::TooLarge {
                    size: Some(10),
                    limit: 9,
                    ..
                }
            ),
            "{e}"
        );
        assert!(
            e.to_string()
                .ends_with(": is 10 bytes, more than the 9 bytes accepted for it"),
            "{e}"
        );
        // A sparse 100 MB file: its size is read, not its bytes.
        let big = dir.path().join("big");
        fs::File::create(&big)
            .unwrap()
            .set_len(100_000_000)
            .unwrap();
        let e = read_capped(&big, 1 << 20).unwrap_err();
        assert!(
            e.to_string()
                .contains("is 100000000 bytes, more than the 1048576 bytes"),
            "{e}"
        );
    }

    #[cfg(unix)]
    fn mkfifo(path: &Path) {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }

    #[cfg(unix)]
    #[test]
    fn fifos_and_devices_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        mkfifo(&fifo);
        let e = read_capped(&fifo, 100).unwrap_err();
        assert!(
            matches!(&e, ModError::NotRegular { kind, .. } if kind.contains("FIFO")),
            "{e}"
        );
        let e = read_capped(Path::new("/dev/zero"), 100).unwrap_err();
        assert!(
            matches!(&e, ModError::NotRegular { kind, .. } if kind.contains("character device")),
            "{e}"
        );
        let e = read_capped(dir.path(), 100).unwrap_err();
        assert!(matches!(&e, ModError::NotRegular { .. }), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_tree_follows_links_only_inside_the_mod() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let m = tmp.path().join("m");
        fs::create_dir_all(m.join("data/sub")).unwrap();
        fs::write(m.join("data/a.txt"), "a").unwrap();
        fs::write(m.join("data/sub/b.txt"), "b").unwrap();
        fs::write(m.join("real.txt"), "r").unwrap();
        symlink(m.join("real.txt"), m.join("data/link.txt")).unwrap();
        symlink("sub", m.join("data/again")).unwrap();
        let tree = ModTree::new(&m).unwrap();
        let names: Vec<String> = tree
            .files(&m.join("data"))
            .unwrap()
            .into_iter()
            .map(|(r, _)| r)
            .collect();
        assert_eq!(names, ["a.txt", "again/b.txt", "link.txt", "sub/b.txt"]);

        // Out: a file, a device, a folder.
        for (link, target) in [
            ("out.txt", tmp.path().join("outside.txt")),
            ("zero", PathBuf::from("/dev/zero")),
            ("etc", PathBuf::from("/etc")),
        ] {
            fs::write(tmp.path().join("outside.txt"), "o").unwrap();
            let p = m.join("data").join(link);
            symlink(&target, &p).unwrap();
            let e = tree.files(&m.join("data")).unwrap_err();
            assert!(
                matches!(&e, ModError::LinkOutside { path, .. } if *path == p),
                "{link}: {e}"
            );
            assert!(
                e.to_string().contains("leads outside the mod folder"),
                "{e}"
            );
            fs::remove_file(&p).unwrap();
        }
        // The overlay folder itself a link outside.
        symlink("/etc", m.join("etc-overlay")).unwrap();
        let e = tree.files(&m.join("etc-overlay")).unwrap_err();
        assert!(matches!(&e, ModError::LinkOutside { .. }), "{e}");
        // A loop.
        symlink("..", m.join("data/sub/up")).unwrap();
        let e = tree.files(&m.join("data")).unwrap_err();
        let chain = crate::discover::error_chain(&e);
        assert!(chain.contains("a loop"), "{chain}");
        fs::remove_file(m.join("data/sub/up")).unwrap();
        // A FIFO, directly and through a link inside.
        mkfifo(&m.join("pipe"));
        symlink(m.join("pipe"), m.join("data/pipe-link")).unwrap();
        let e = tree.files(&m.join("data")).unwrap_err();
        assert!(
            matches!(&e, ModError::NotRegular { kind, .. } if kind.contains("FIFO")),
            "{e}"
        );
        let e = tree.read_capped(&m.join("pipe"), 10).unwrap_err();
        assert!(matches!(&e, ModError::NotRegular { .. }), "{e}");
    }

    #[test]
    fn install_folder_names() {
        assert_eq!(install_pid(".install-1a2b-0-0000abcd"), Some(0x1a2b));
        for bad in [
            ".install-1a2b-0",
            ".install-1a2b-0-abc",
            ".install-zz-0-0000abcd",
            ".install--0-0000abcd",
            ".install-1-0-0000abcd-x",
            "install-1-0-0000abcd",
        ] {
            assert_eq!(install_pid(bad), None, "{bad}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn stale_installs_of_dead_processes_are_swept() {
        let tmp = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let stale = format!("{INSTALL_PREFIX}{dead:x}-0-0000abcd");
        let mine = format!("{INSTALL_PREFIX}{:x}-0-0000abcd", std::process::id());
        let odd = format!("{INSTALL_PREFIX}{dead:x}-0-xyz");
        for n in [&stale, &mine, &odd] {
            fs::create_dir_all(tmp.path().join(n).join("sub")).unwrap();
            fs::write(tmp.path().join(n).join("sub/f"), "x").unwrap();
        }
        // A file with the form of a folder name is not a folder: kept.
        let file = format!("{INSTALL_PREFIX}{dead:x}-1-0000abcd");
        fs::write(tmp.path().join(&file), "x").unwrap();
        let removed = sweep_stale_installs(tmp.path());
        if process_alive(dead) {
            // The pid was reused at once: nothing to check.
            return;
        }
        assert_eq!(removed, std::slice::from_ref(&stale));
        assert!(!tmp.path().join(&stale).exists());
        assert!(tmp.path().join(&mine).exists(), "our own is kept");
        assert!(tmp.path().join(&odd).exists());
        assert!(tmp.path().join(&file).exists());
    }
}
