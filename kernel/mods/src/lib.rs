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
//! Errors are [`ModError`]s naming the file (and line/column, or archive entry).
//! [`config_key_warnings`] names the `Behavior.ini` keys of a mod that nothing reads.

pub mod config_keys;
mod discover;
mod error;
pub mod fingerprint;
pub mod manifest;
pub mod modlist;
pub mod package;
mod refusal;
pub mod resolve;
mod util;
mod verify;

pub use config_keys::{KeyWarning, config_key_warnings};
pub use discover::{Discovery, MAX_MANIFEST_BYTES, ModDir, discover};
pub use error::ModError;
pub use fingerprint::{FingerprintEntry, ModSetFingerprint, content_hash};
pub use manifest::{
    Conflict, Manifest, Overlay, PluginDecl, PluginLibrary, PluginTarget, Slot, check_id,
};
pub use modlist::ModList;
pub use package::{HASHES_FILE, InstallLimits, Installed, PackReport, install, pack};
pub use refusal::{Refusal, RefusalReason};
pub use resolve::{Environment, Resolution, current_platform, resolve};
pub use verify::{PluginBinary, VerifiedPlugin, sha256_file, verify_plugins};
