//! The VFS and archive-cache error type.

use thiserror::Error;

/// Everything the VFS and the archive cache can report. File-level and entry-level
/// absence are distinct variants (a missing archive is not a missing entry).
#[derive(Debug, Error)]
pub enum VfsError {
    /// No mount has the file.
    #[error("file missing: {path} (searched: {})", searched.join(", "))]
    FileMissing {
        /// The path as written.
        path: String,
        /// The mount roots searched, highest priority first.
        searched: Vec<String>,
    },
    /// The archive exists but has no entry of that name.
    #[error("entry missing: '{entry}' in archive {archive}")]
    EntryMissing {
        /// The archive file.
        archive: String,
        /// The entry name as asked.
        entry: String,
    },
    /// The file is neither NRes nor RsLi.
    #[error("{path}: not an archive (no NRes or RsLi magic at offset 0: {magic:02X?})")]
    NotAnArchive {
        /// The file.
        path: String,
        /// Its first bytes.
        magic: Vec<u8>,
    },
    /// An NRes archive failed to parse.
    #[error("{path}: {source}")]
    Nres {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: Box<iron3d_nres::NresError>,
    },
    /// An RsLi archive failed to parse or decode.
    #[error("{path}: {source}")]
    Rsli {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: Box<iron3d_rsli::RsliError>,
    },
    /// An entry read as a resource family carries another `type_id` (strict profile;
    /// the compatible profile records an [`crate::TagDiagnostic`] instead).
    #[error("{archive}: {source}")]
    TypeTag {
        /// The archive file.
        archive: String,
        /// The named check `[type_id]` with entry, expected and found tags.
        #[source]
        source: Box<iron3d_nres::NresError>,
    },
    /// A path was refused.
    #[error(transparent)]
    Path(#[from] crate::path::PathError),
    /// An I/O error with its path.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A game or overlay file that is not a regular file (a FIFO, a device, a socket, a
    /// folder): never opened for reading (PD-VFS-REGULAR-FILES).
    #[error("{path}: {kind}, not a regular file: refused (PD-VFS-REGULAR-FILES)")]
    NotRegular {
        /// The file.
        path: String,
        /// What it is instead.
        kind: &'static str,
    },
    /// A loose file larger than the VFS reads whole ([`crate::files::MAX_LOOSE_FILE`]).
    #[error("{path}: {size} bytes, more than the {limit} a loose file may have")]
    TooLarge {
        /// The file.
        path: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A loose PNG texture (PD-MOD-PNG-TEXTURE) could not become a Texm entry.
    #[error("{path}: loose PNG texture for entry '{entry}': {reason}")]
    LoosePng {
        /// The PNG file.
        path: String,
        /// The entry it stands for.
        entry: String,
        /// What was wrong (decoding, size, encoding).
        reason: String,
    },
}
