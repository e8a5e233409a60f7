//! The game-directory VFS and the archive cache (kernel-side services).
//!
//! * [`GamePath`]: legacy `\` or `/` paths, ASCII-case-insensitive keys, originals kept.
//! * [`Vfs`]: mounted roots (game directory, then overlays; the last mounted wins) with
//!   case-insensitive directory indexes, mission-context resolution.
//! * [`ArchiveCache`]: memory-mapped NRes/RsLi archives shared per normalised path with
//!   owner counting, and a budgeted decoded-blob cache that outlives archive handles.
//! * Data overlays per archive entry ([`overlay`]): a mount may provide an archive path as
//!   an archive file whose entries override lower mounts' entries of the same name, or as
//!   a directory of loose entries; [`Vfs::resolve_entry`] / [`Vfs::read_entry_as`] walk
//!   the mounts from the top, [`Vfs::explain`] tells where a file or an entry comes from
//!   and what it shadows, [`Vfs::conflicts`] lists everything two or more mounts provide.
//! * Missing files ([`VfsError::FileMissing`]) and missing entries in an existing archive
//!   ([`VfsError::EntryMissing`]) are different errors.
//! * Regular files only ([`files`], PD-VFS-REGULAR-FILES): a FIFO, a device or a folder
//!   where a game file is expected is refused by name, never opened for a blocking read;
//!   loose files read whole are bounded.

pub mod cache;
pub mod error;
pub mod files;
pub mod index;
pub mod overlay;
pub mod path;
pub mod vfs;

pub use cache::{
    ArchiveCache, ArchiveHandle, ArchiveKind, CacheScope, CacheStats, OpenArchive, ReadMode,
    TagDiagnostic,
};
pub use error::VfsError;
pub use index::DirIndex;
pub use overlay::{BASE_MOUNT, Conflict, EntrySource, MAX_WALK_DEPTH, Provenance, ResolvedEntry};
pub use path::{GamePath, PathError};
pub use vfs::{Mount, Resolved, Vfs, VfsStats};
