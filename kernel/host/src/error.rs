//! The plugin host's error type.

use std::path::PathBuf;
use thiserror::Error;

/// Everything that can go wrong while resolving, loading, creating or swapping a plugin.
#[derive(Debug, Error)]
pub enum HostError {
    /// No file for a registry library name in any search path.
    #[error("plugin library '{name}' not found; searched: {searched}")]
    LibraryNotFound {
        /// Registry name.
        name: String,
        /// The candidate paths tried, in order.
        searched: String,
    },
    /// The library file does not exist or cannot be read.
    #[error("plugin library {path}: {source}")]
    LibraryUnreadable {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a loadable Iron3D plugin (checked before it is mapped, rule
    /// PD-HOST-IMAGE-CHECK): not a regular file, not an ELF, cut short, or without the
    /// plugin entry point.
    #[error("plugin library {path} refused: {why}")]
    NotAPlugin {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// abi_stable refused the library (not a plugin, version or layout mismatch).
    #[error("plugin library {path} refused by the loader: {summary}")]
    LoadRefused {
        /// The file.
        path: PathBuf,
        /// A short summary of abi_stable's report (the last mismatch).
        summary: String,
    },
    /// The load probe (a child process) died or hung while loading and describing the
    /// library: it was not loaded into this process.
    #[error("plugin library {path} refused: {how}; it was not loaded into the engine")]
    ProbeCrashed {
        /// The file.
        path: PathBuf,
        /// How the probe ended (signal, status, its last line, a hint).
        how: String,
    },
    /// The library's root module is of another interface major (e.g. a 1.x plugin).
    #[error(
        "plugin library {path} was built against interface {found} (root module version); this engine loads interface {expected}.x plugins: rebuild it against iron3d-abi {expected}",
        expected = iron3d_abi::ABI_MAJOR
    )]
    WrongInterface {
        /// The file.
        path: PathBuf,
        /// The root module version string it carries.
        found: String,
    },
    /// The library was built with `panic = "abort"`: a panic would end the process.
    #[error(
        "plugin '{plugin}' ({path}) was built with panic = \"abort\": any panic in it would end the process; build it with panic = \"unwind\" (the default)"
    )]
    PanicAbort {
        /// Plugin name.
        plugin: String,
        /// The file.
        path: PathBuf,
    },
    /// The plugin was built against another interface major.
    #[error(
        "plugin '{plugin}' ({path}) was built for interface {found_major}.{found_minor}; this engine provides {expected_major}.{expected_minor}"
    )]
    AbiVersion {
        /// Plugin name.
        plugin: String,
        /// The file.
        path: PathBuf,
        /// Host major.
        expected_major: u32,
        /// Host minor.
        expected_minor: u32,
        /// Plugin major.
        found_major: u32,
        /// Plugin minor.
        found_minor: u32,
    },
    /// The library has no factory of that name for that slot.
    #[error(
        "plugin '{plugin}' ({path}) has no factory '{factory}' for slot {slot}; it offers: {offered}"
    )]
    NoFactory {
        /// Plugin name.
        plugin: String,
        /// The file.
        path: PathBuf,
        /// Requested factory.
        factory: String,
        /// Requested slot.
        slot: String,
        /// Factories the library describes.
        offered: String,
    },
    /// The library has no factory of the name a service plugin asks for.
    #[error(
        "plugin '{plugin}' ({path}) has no factory '{factory}' for a service; it offers: {offered}"
    )]
    NoServiceFactory {
        /// Plugin name.
        plugin: String,
        /// The file.
        path: PathBuf,
        /// Requested factory.
        factory: String,
        /// Factories the library describes.
        offered: String,
    },
    /// The plugin's factory or `init` failed (or panicked, caught inside the plugin).
    #[error("plugin '{plugin}' ({path}), factory '{factory}': {stage} failed: {reason}")]
    Instance {
        /// Plugin name.
        plugin: String,
        /// The file.
        path: PathBuf,
        /// Factory.
        factory: String,
        /// `create` or `init`.
        stage: &'static str,
        /// The plugin's message.
        reason: String,
    },
    /// The slot is not in the loaded registry.
    #[error("slot {0} has no plugin loaded")]
    NoSuchSlot(String),
    /// The registry file could not be read or parsed.
    #[error("registry: {0}")]
    Registry(String),
    /// The file watcher failed.
    #[error("file watcher: {0}")]
    Watch(String),
    /// An I/O error with its path.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}
