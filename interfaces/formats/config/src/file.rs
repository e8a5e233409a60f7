//! Reading a player's configuration file (settings, bindings) safely
//! (**PD-CONFIG-FILE**): only a regular file (a symbolic link to one is followed), of at
//! most a size limit. A FIFO, a device, a directory or a socket is refused before it is
//! opened, so nothing blocks; a larger file is refused by its size, and no more than the
//! limit is ever read, even from a file that grows while it is read.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest settings or bindings file read (1 MiB; the shipped ones are a few KiB).
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// Why a configuration file was not read.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Not a regular file.
    #[error("{}: not a regular file ({kind})", path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
        /// What it is (`a FIFO`, `a directory`, …).
        kind: &'static str,
    },
    /// Larger than the limit.
    #[error("{}: the file is {len} bytes or more, limit {limit}", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size (at least; reading stops past the limit).
        len: u64,
        /// The limit.
        limit: u64,
    },
    /// It could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl FileError {
    /// The file does not exist (a dangling link included).
    pub fn is_not_found(&self) -> bool {
        matches!(self, FileError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

/// What a file that is not a regular file is, for messages.
pub fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a plain file"
}

/// The bytes of `path`: a regular file of at most `limit` bytes (PD-CONFIG-FILE).
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let io = |source| FileError::Io {
        path: path.to_owned(),
        source,
    };
    let check = |meta: &std::fs::Metadata| {
        if !meta.is_file() {
            return Err(FileError::NotRegular {
                path: path.to_owned(),
                kind: kind_of(meta),
            });
        }
        if meta.len() > limit {
            return Err(FileError::TooLarge {
                path: path.to_owned(),
                len: meta.len(),
                limit,
            });
        }
        Ok(())
    };
    // Looked at before it is opened: opening a FIFO would wait for a writer.
    check(&std::fs::metadata(path).map_err(io)?)?;
    let file = std::fs::File::open(path).map_err(io)?;
    // The file opened may not be the one looked at.
    check(&file.metadata().map_err(io)?)?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(FileError::TooLarge {
            path: path.to_owned(),
            len: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.toml");
        std::fs::write(&f, b"abc").unwrap();
        assert_eq!(read_regular(&f, 3).unwrap(), b"abc");
        let e = read_regular(&f, 2).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("a.toml: the file is 3 bytes or more, limit 2"),
            "{e}"
        );
        let e = read_regular(dir.path(), 10).unwrap_err();
        assert!(
            e.to_string()
                .ends_with(": not a regular file (a directory)"),
            "{e}"
        );
        let link = dir.path().join("zero.toml");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let e = read_regular(&link, 10).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("zero.toml: not a regular file (a character device)"),
            "{e}"
        );
        let fifo = dir.path().join("fifo.toml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = read_regular(&fifo, 10).unwrap_err();
            assert!(
                e.to_string()
                    .ends_with("fifo.toml: not a regular file (a FIFO)"),
                "{e}"
            );
        }
        let sparse = dir.path().join("huge.toml");
        std::fs::File::create(&sparse)
            .unwrap()
            .set_len(100 << 20)
            .unwrap();
        let e = read_regular(&sparse, MAX_FILE_BYTES).unwrap_err();
        assert!(
            e.to_string()
                .contains("huge.toml: the file is 104857600 bytes"),
            "{e}"
        );
        let e = read_regular(&dir.path().join("nope"), 10).unwrap_err();
        assert!(e.is_not_found() && e.to_string().contains("nope"), "{e}");
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("gone"), &dangling).unwrap();
        assert!(read_regular(&dangling, 10).unwrap_err().is_not_found());
    }
}
