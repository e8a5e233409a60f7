//! Community mods for Iron3D: manifests, the user's mod list, resolution, fingerprints
//! and packaging.
//!
//! A mod is a folder `mods/<id>/` with a [`mod.toml`](manifest) describing it. The flow:
//!
//! 1. [`discover`] reads every installed mod (broken ones become [`Refusal`]s, never
//!    errors that stop the rest);
//! 2. [`ModList`] is the user's `mods.toml`: the enabled ids in the user's order (later
//!    wins, like OpenMW's content list);
//! 3. [`resolve()`] checks versions (engine, plugin interface, dependencies), conflicts and
//!    cycles, refuses what cannot load with one plain sentence each (saying what to do),
//!    and orders the rest: dependencies first, then hints, then the user's order;
//! 4. [`verify_plugins`] checks plugin libraries against the manifest's SHA-256 before
//!    they are loaded;
//! 5. [`ModSetFingerprint`] records which simulation-changing mods a game ran with, and
//!    [`ModSetFingerprint::diff`] explains what differs when a replay or a multiplayer
//!    peer does not match;
//! 6. [`pack`] and [`install`] make and safely unpack `.tar.gz` mod archives.
//!
//! Errors are [`ModError`]s naming the file (and line/column, or archive entry), with
//! every name from a mod folder or an archive escaped ([`escaped`]: a terminal escape
//! code is shown as `\u{1b}`, never sent) and entry names cut to
//! [`MAX_SHOWN_NAME`] characters. [`config_key_warnings`] names the `Behavior.ini`
//! keys of a mod that nothing reads.
//!
//! Named rules about hostile input (issue 35), documented in [`files`] and [`package`]:
//!
//! - **PD-MODS-REGULAR-FILES**: everything read from a mod folder or the mod list is a
//!   regular file, opened without blocking and checked before one byte is read; links
//!   are followed only inside the mod's folder; a mod breaking this is reported broken
//!   and the others keep working.
//! - **PD-MODS-STALE-INSTALL**: unfinished `.install-<pid>-…` folders whose process is
//!   gone are removed when the mods folder is opened for an install and by every
//!   [`discover`]; a live process's folder, or this process's own, is never touched.
//! - **PD-MODS-ARCHIVE-HEADERS**: an archive's tar extension headers are bounded before
//!   they are read (GNU long names and links [`package::MAX_LONG_NAME`], PAX headers
//!   [`package::MAX_PAX_HEADER`], all together [`package::MAX_EXTENSION_BYTES`]), as are
//!   its entries and decompressed bytes ([`InstallLimits`]); two paths that differ only
//!   in letter case are refused, naming both.

pub mod active;
pub mod config_keys;
mod discover;
mod error;
pub mod files;
pub mod fingerprint;
pub mod manifest;
pub mod modlist;
pub mod package;
mod refusal;
pub mod resolve;
mod util;
mod verify;

pub use active::{
    ActiveMods, ModPlugin, ModService, built_in_mod, mod_build_candidates, refusal_lines,
    target_name,
};
pub use config_keys::{KeyWarning, config_key_warnings};
pub use discover::{Discovery, MAX_MANIFEST_BYTES, ModDir, broken_files, discover};
pub use error::ModError;
pub use fingerprint::{FingerprintEntry, ModSetFingerprint, content_hash};
pub use manifest::{
    Conflict, Manifest, Overlay, PluginDecl, PluginLibrary, PluginTarget, Slot, check_id,
};
pub use modlist::ModList;
pub use package::{
    CheckedPackage, HASHES_FILE, InstallLimits, Installed, PackReport, check_package, install,
    install_cancellable, pack,
};
pub use refusal::{CYCLE_SHOWN, Refusal, RefusalReason};
pub use resolve::{Environment, Resolution, current_platform, resolve};
pub use util::{MAX_SHOWN_NAME, escaped, shown_name};
pub use verify::{PluginBinary, VerifiedPlugin, sha256_file, verify_plugins};
