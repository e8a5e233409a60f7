//! [`ModError`]: the one error type of the crate.
//!
//! Every variant names the file it is about (a manifest, the mod list, an archive and the
//! entry inside it), and variants caused by an I/O error or a nested parse error keep it
//! as their [`std::error::Error::source`], so `{err:#}` through `anyhow` prints the whole
//! chain. The `Display` text of a variant never repeats its source.
//!
//! Paths, archive entry names and reasons are printed through [`escaped`]: a control
//! character in a file or entry name (a terminal escape code) is shown as `\u{1b}`, never
//! sent raw; entry names are also cut to [`crate::MAX_SHOWN_NAME`] characters when
//! the error is made.

use crate::util::{Shown, escaped};
use std::io;
use std::path::PathBuf;

/// Everything that can go wrong reading, writing, packing or installing mods.
///
/// Resolution problems (a missing dependency, a conflict, …) are not errors but
/// [`crate::Refusal`]s: one refused mod never stops the others.
#[derive(Debug, thiserror::Error)]
pub enum ModError {
    /// The registry with the mods' plugins over it could not be rebuilt (e.g. a plugin
    /// path the registry cannot hold).
    #[error("the registry with the mods' plugins")]
    Registry(#[source] iron3d_registry::RegistryError),
    /// A TOML file (manifest or mod list) does not parse or has an unknown/mistyped field.
    #[error("{}:{line}:{column}: {}", Shown(file), escaped(message))]
    Parse {
        /// The file as given to the parser.
        file: PathBuf,
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column (in characters) of the problem.
        column: usize,
        /// What is wrong, from the TOML parser.
        message: String,
    },
    /// A field parsed but its value is not acceptable (bad id, bad version, bad path, …).
    #[error("{}:{line}:{column}: {field}: {}", Shown(file), escaped(message))]
    Invalid {
        /// The file as given to the parser.
        file: PathBuf,
        /// 1-based line of the offending value (1 when unknown).
        line: usize,
        /// 1-based column of the offending value (1 when unknown).
        column: usize,
        /// The field, as a TOML path (`dependencies.base`, `plugin[0].slot`, …).
        field: String,
        /// What is wrong and what would be accepted.
        message: String,
    },
    /// Reading or writing a file or directory failed.
    #[error("{}: cannot {action}", Shown(path))]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done ("read", "write", "rename into place", …).
        action: &'static str,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// A file is larger than the crate is willing to read into memory.
    #[error("{}: is {}, more than the {limit} bytes accepted for it", Shown(path), size.map_or_else(|| "larger".to_owned(), |s| format!("{s} bytes")))]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size, as the file system gives it; `None` when it grew past the limit while
        /// being read (then only "more than" is known).
        size: Option<u64>,
        /// The largest size accepted.
        limit: u64,
    },
    /// A file a mod or the mod list is read from is not a regular file
    /// (PD-MODS-REGULAR-FILES): a FIFO, a device, a socket, a folder.
    #[error(
        "{}: is {kind}, not a regular file; mods read only regular files (replace it with one)",
        Shown(path)
    )]
    NotRegular {
        /// The file as named (before links are resolved).
        path: PathBuf,
        /// What it is instead (`a FIFO (named pipe)`, `a character device`, …).
        kind: &'static str,
    },
    /// A file or folder of a mod resolves, through a symbolic link, outside the mod's
    /// folder (PD-MODS-REGULAR-FILES).
    #[error(
        "{}: leads outside the mod folder through a link (to {}); a mod's links must stay inside its folder",
        Shown(path),
        Shown(target)
    )]
    LinkOutside {
        /// The file or folder as named inside the mod.
        path: PathBuf,
        /// Where it resolves.
        target: PathBuf,
    },
    /// A mod id given on the command line or to [`crate::ModList`] is not a valid id.
    #[error("\"{id}\" is not a valid mod id: {why}")]
    BadId {
        /// The id as given.
        id: String,
        /// Why it is rejected.
        why: String,
    },
    /// [`crate::ModList::move_to`] was asked to move a mod that is not in the list.
    #[error("mod \"{id}\" is not in the mod list; run `iron3d mods enable {id}` first")]
    NotInList {
        /// The id as given.
        id: String,
    },
    /// A mod directory cannot be packed (no manifest, a symlink inside, …).
    #[error("{}: cannot pack: {}", Shown(path), escaped(why))]
    Unpackable {
        /// The offending file or directory.
        path: PathBuf,
        /// Why, and what to do about it.
        why: String,
    },
    /// The archive cannot be read: not gzip, truncated, corrupt tar structure.
    #[error(
        "archive {}: {}: cannot read the archive (damaged or truncated download?)",
        Shown(archive),
        escaped(entry)
    )]
    ArchiveRead {
        /// The archive file.
        archive: PathBuf,
        /// The entry being read, or where in the archive the problem was met.
        entry: String,
        /// The decoder's error.
        #[source]
        source: io::Error,
    },
    /// Writing an entry into the temporary install folder failed.
    #[error(
        "archive {}: entry {}: cannot write it to {}",
        Shown(archive),
        escaped(entry),
        Shown(path)
    )]
    InstallWrite {
        /// The archive file.
        archive: PathBuf,
        /// The entry's name.
        entry: String,
        /// The file or folder being written.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// An entry would write outside the mod's folder or is not a plain file or directory.
    #[error(
        "archive {}: entry {}: {}; the archive is refused",
        Shown(archive),
        escaped(entry),
        escaped(why)
    )]
    UnsafeEntry {
        /// The archive file.
        archive: PathBuf,
        /// The entry's name as stored.
        entry: String,
        /// What makes it unsafe (absolute path, `..`, symlink, device, …).
        why: String,
    },
    /// An entry decompresses to more bytes than [`crate::InstallLimits::max_entry`].
    #[error(
        "archive {}: entry {}: larger than the limit of {limit} bytes",
        Shown(archive),
        escaped(entry)
    )]
    EntryTooLarge {
        /// The archive file.
        archive: PathBuf,
        /// The entry's name.
        entry: String,
        /// The limit that was exceeded.
        limit: u64,
    },
    /// The archive decompresses to more bytes than [`crate::InstallLimits::max_total`].
    #[error(
        "archive {}: entry {}: the archive unpacks to more than the limit of {limit} bytes",
        Shown(archive),
        escaped(entry)
    )]
    ArchiveTooLarge {
        /// The archive file.
        archive: PathBuf,
        /// The entry being read when the limit was reached.
        entry: String,
        /// The limit that was exceeded.
        limit: u64,
    },
    /// The archive has more entries than [`crate::InstallLimits::max_entries`].
    #[error(
        "archive {}: entry {}: more than the limit of {limit} entries",
        Shown(archive),
        escaped(entry)
    )]
    TooManyEntries {
        /// The archive file.
        archive: PathBuf,
        /// The first entry over the limit.
        entry: String,
        /// The limit that was exceeded.
        limit: usize,
    },
    /// A file the archive must contain is absent (`mod.toml`, `HASHES.sha256`, or a file
    /// `HASHES.sha256` lists).
    #[error(
        "archive {}: entry {}: missing; {}",
        Shown(archive),
        escaped(entry),
        escaped(why)
    )]
    ArchiveMissing {
        /// The archive file.
        archive: PathBuf,
        /// The entry that should be there.
        entry: String,
        /// Why it is needed.
        why: String,
    },
    /// `HASHES.sha256` is malformed or does not list an entry of the archive.
    #[error(
        "archive {}: entry {}: {}",
        Shown(archive),
        escaped(entry),
        escaped(why)
    )]
    BadHashes {
        /// The archive file.
        archive: PathBuf,
        /// The entry concerned (`<id>/HASHES.sha256` or an unlisted file).
        entry: String,
        /// What is wrong.
        why: String,
    },
    /// An entry's SHA-256 differs from the one `HASHES.sha256` lists.
    #[error(
        "archive {}: entry {}: sha256 is {found} but HASHES.sha256 says {expected}; the archive is damaged or was altered",
        Shown(archive),
        escaped(entry)
    )]
    HashMismatch {
        /// The archive file.
        archive: PathBuf,
        /// The entry's name.
        entry: String,
        /// The hash from `HASHES.sha256`.
        expected: String,
        /// The hash of the entry's bytes.
        found: String,
    },
    /// The archive's `mod.toml` does not parse or validate.
    #[error(
        "archive {}: entry {}: the manifest is broken",
        Shown(archive),
        escaped(entry)
    )]
    ArchiveManifest {
        /// The archive file.
        archive: PathBuf,
        /// The manifest entry.
        entry: String,
        /// The parse or validation error.
        #[source]
        source: Box<ModError>,
    },
    /// The manifest's id differs from the archive's top-level folder.
    #[error(
        "archive {}: entry {}: declares id \"{id}\" but the archive's folder is \"{folder}\"; the archive is refused",
        Shown(archive),
        escaped(entry)
    )]
    ArchiveIdMismatch {
        /// The archive file.
        archive: PathBuf,
        /// The manifest entry.
        entry: String,
        /// The id the manifest declares.
        id: String,
        /// The top-level folder of the archive.
        folder: String,
    },
    /// A mod with the archive's id is already installed.
    #[error(
        "archive {}: entry {}: mod \"{id}\" is already installed at {}; remove that folder first to install this archive",
        Shown(archive),
        escaped(entry),
        Shown(path)
    )]
    AlreadyInstalled {
        /// The archive file.
        archive: PathBuf,
        /// The archive's top-level folder entry.
        entry: String,
        /// The mod id.
        id: String,
        /// Where the installed mod is.
        path: PathBuf,
    },
    /// An install stopped by a signal (Ctrl-C, SIGTERM, SIGHUP) through
    /// [`crate::install_cancellable`]: its temporary folder was removed.
    #[error(
        "archive {}: install interrupted by a signal; nothing was installed",
        Shown(archive)
    )]
    Interrupted {
        /// The archive file.
        archive: PathBuf,
    },
}

impl ModError {
    /// The file, 1-based line and column of a [`ModError::Parse`] or
    /// [`ModError::Invalid`]; `None` for the other variants.
    #[must_use]
    pub fn location(&self) -> Option<(&std::path::Path, usize, usize)> {
        match self {
            ModError::Parse {
                file, line, column, ..
            }
            | ModError::Invalid {
                file, line, column, ..
            } => Some((file, *line, *column)),
            _ => None,
        }
    }

    /// An [`ModError::Io`] for `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, action: &'static str, source: io::Error) -> Self {
        Self::Io {
            path: path.into(),
            action,
            source,
        }
    }
}
