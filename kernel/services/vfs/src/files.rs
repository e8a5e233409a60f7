//! Opening game and overlay files (PD-VFS-REGULAR-FILES): every file the VFS reads or
//! maps is opened with `O_NONBLOCK` and checked with `fstat` to be a regular file before
//! a byte is read, so a FIFO never blocks a command, a link to `/dev/zero` never streams
//! forever and a device is never mapped; a loose file read whole is bounded by
//! [`MAX_LOOSE_FILE`] by its real size before reading (archives are mapped, not read).

use crate::error::VfsError;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The largest loose file read whole (256 MiB; the original's loose files are a few KiB).
pub const MAX_LOOSE_FILE: u64 = 256 << 20;

/// Opens `path` for reading without ever blocking, and refuses anything but a regular
/// file; returns the file and its length.
///
/// # Errors
/// [`VfsError::Io`] when it cannot be opened, [`VfsError::NotRegular`] naming what it is.
pub fn open_regular(path: &Path) -> Result<(File, u64), VfsError> {
    let io = |source| VfsError::Io {
        path: path.display().to_string(),
        source,
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(VfsError::NotRegular {
            path: path.display().to_string(),
            kind: kind_name(&meta.file_type()),
        });
    }
    Ok((file, meta.len()))
}

/// Reads the regular file `path` whole, at most `limit` bytes (checked by its size before
/// reading, and while reading for a file that grows).
///
/// # Errors
/// Those of [`open_regular`], [`VfsError::TooLarge`], [`VfsError::Io`] when reading fails.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, VfsError> {
    let (file, len) = open_regular(path)?;
    let too_large = |size| VfsError::TooLarge {
        path: path.display().to_string(),
        size,
        limit,
    };
    if len > limit {
        return Err(too_large(len));
    }
    let mut buf = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|source| VfsError::Io {
            path: path.display().to_string(),
            source,
        })?;
    if buf.len() as u64 > limit {
        return Err(too_large(buf.len() as u64));
    }
    Ok(buf)
}

/// What a non-regular file is, for messages.
fn kind_name(t: &std::fs::FileType) -> &'static str {
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
    if t.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifos_devices_and_folders_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("MISSION.CFG");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let e = read_regular(&fifo, MAX_LOOSE_FILE).unwrap_err().to_string();
        assert!(e.contains("MISSION.CFG") && e.contains("a FIFO"), "{e}");
        let zero = dir.path().join("zero.ini");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let e = read_regular(&zero, MAX_LOOSE_FILE).unwrap_err().to_string();
        assert!(e.contains("a character device"), "{e}");
        let e = read_regular(dir.path(), MAX_LOOSE_FILE)
            .unwrap_err()
            .to_string();
        assert!(e.contains("a folder"), "{e}");
    }

    #[test]
    fn loose_files_are_bounded_by_their_real_size() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.ini");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(100 << 20)
            .unwrap();
        let e = read_regular(&big, 1 << 20).unwrap_err().to_string();
        assert!(e.contains("104857600 bytes, more than the 1048576"), "{e}");
        std::fs::write(&big, b"ok").unwrap();
        assert_eq!(read_regular(&big, 2).unwrap(), b"ok");
    }
}
