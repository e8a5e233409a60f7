//! [`Refusal`]: why one mod is not loaded, in one plain sentence with the fix.

use semver::{Version, VersionReq};
use std::fmt;

/// Members and path steps of a dependency cycle named in a refusal; the rest is counted.
pub const CYCLE_SHOWN: usize = 5;

/// A mod that will not be loaded, and why. The rest of the mod set still loads.
///
/// `Display` writes one sentence naming the mod, the cause and what the user can do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The refused mod's id (for a folder whose manifest could not be read: the folder
    /// name).
    pub id: String,
    /// Why it is refused.
    pub reason: RefusalReason,
}

/// Why a mod is refused. Each variant carries what its sentence needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefusalReason {
    /// Enabled in the mod list, but there is no such mod installed.
    NotFound,
    /// A required mod is not installed, or installed but not enabled.
    MissingDependency {
        /// The required mod.
        dependency: String,
        /// The versions accepted.
        req: VersionReq,
        /// The version installed but not enabled, if any (it matches `req`).
        installed: Option<Version>,
    },
    /// A required mod is installed in a version the requirement rejects.
    DependencyVersion {
        /// The required mod.
        dependency: String,
        /// The versions accepted.
        req: VersionReq,
        /// The version installed.
        found: Version,
    },
    /// A required mod is itself refused.
    DependencyRefused {
        /// The required mod that was refused.
        dependency: String,
    },
    /// Another enabled mod (earlier in the user's order) conflicts with this one.
    Conflict {
        /// The mod that stays loaded.
        other: String,
        /// Which of the two declared the conflict.
        declared_by: String,
        /// The declared reason.
        reason: String,
    },
    /// The mod is part of a dependency cycle.
    Cycle {
        /// Every mod of the cycle, sorted by id.
        members: Vec<String>,
        /// One cycle through them, from the smallest id back to it (`a -> b -> a`: a
        /// needs b, b needs a).
        path: Vec<String>,
    },
    /// The mod's `engine` requirement rejects this engine.
    EngineVersion {
        /// What the mod accepts.
        required: VersionReq,
        /// This engine's version.
        engine: Version,
    },
    /// The mod's plugins are built for another plugin-interface major.
    InterfaceMajor {
        /// The major the mod declares.
        built_for: u32,
        /// This engine's interface major.
        major: u32,
        /// This engine's interface minor.
        minor: u32,
    },
    /// A plugin has no library for this platform.
    NoLibrary {
        /// This platform (`linux-x86_64`, …).
        platform: String,
        /// The platforms the plugin has libraries for.
        provided: Vec<String>,
    },
    /// The folder's `mod.toml` is missing or does not parse or validate.
    BrokenManifest {
        /// The folder, as `mods/<folder>`.
        dir: String,
        /// The error, with file, line and column.
        error: String,
    },
    /// A file of the mod may not be read (PD-MODS-REGULAR-FILES): a FIFO, a device or a
    /// socket, a link leaving the mod folder, a link loop, or a file that cannot be read.
    BrokenFiles {
        /// The folder, as `mods/<folder>`.
        dir: String,
        /// The error, naming the file.
        error: String,
    },
    /// The folder name differs from the id in its manifest.
    IdMismatch {
        /// The folder, as `mods/<folder>`.
        dir: String,
        /// The id the manifest declares.
        declared: String,
    },
    /// A plugin library's SHA-256 differs from the manifest's.
    HashMismatch {
        /// The library path as written in the manifest.
        library: String,
        /// The hash the manifest gives.
        expected: String,
        /// The hash of the file.
        found: String,
    },
    /// A plugin library cannot be read.
    LibraryUnreadable {
        /// The library path as written in the manifest.
        library: String,
        /// The operating system's error.
        error: String,
    },
}

impl Refusal {
    /// A refusal of `id` for `reason`.
    #[must_use]
    pub fn new(id: impl Into<String>, reason: RefusalReason) -> Refusal {
        Refusal {
            id: id.into(),
            reason,
        }
    }
}

impl fmt::Display for Refusal {
    /// One sentence: the mod, the cause, the fix.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = &self.id;
        match &self.reason {
            RefusalReason::NotFound => write!(
                f,
                "mod \"{id}\" is enabled but not installed: no mods/{id}/mod.toml; install it or run `iron3d mods disable {id}`"
            ),
            RefusalReason::MissingDependency {
                dependency,
                req,
                installed: None,
            } => write!(
                f,
                "mod \"{id}\" needs \"{dependency}\" ({req}), which is not installed; install a version of \"{dependency}\" matching {req}"
            ),
            RefusalReason::MissingDependency {
                dependency,
                req,
                installed: Some(v),
            } => write!(
                f,
                "mod \"{id}\" needs \"{dependency}\" ({req}), which is installed ({v}) but not enabled; run `iron3d mods enable {dependency}`"
            ),
            RefusalReason::DependencyVersion {
                dependency,
                req,
                found,
            } => write!(
                f,
                "mod \"{id}\" needs \"{dependency}\" {req} but {found} is installed; install a version of \"{dependency}\" matching {req}"
            ),
            RefusalReason::DependencyRefused { dependency } => write!(
                f,
                "mod \"{id}\" needs \"{dependency}\", which was refused (see above)"
            ),
            RefusalReason::Conflict {
                other,
                declared_by,
                reason,
            } => write!(
                f,
                "mod \"{id}\" conflicts with \"{other}\" (declared by \"{declared_by}\": {reason}); disable one of them"
            ),
            RefusalReason::Cycle { members, path } => {
                // Bounded: a cycle of hundreds of mods is named by its first members and
                // the first steps of its path, with counts.
                let mut names: Vec<String> = members
                    .iter()
                    .take(CYCLE_SHOWN)
                    .map(|m| format!("\"{m}\""))
                    .collect();
                if members.len() > CYCLE_SHOWN {
                    names.push(format!("… and {} more", members.len() - CYCLE_SHOWN));
                }
                let steps = if path.len() > CYCLE_SHOWN + 1 {
                    let mut s: Vec<&str> =
                        path.iter().take(CYCLE_SHOWN).map(String::as_str).collect();
                    s.push("…");
                    s.extend(path.last().map(String::as_str));
                    format!("{}; {} steps", s.join(" -> "), path.len() - 1)
                } else {
                    path.join(" -> ")
                };
                write!(
                    f,
                    "mods {} depend on each other in a cycle ({steps}); remove one of these dependencies",
                    names.join(", "),
                )
            }
            RefusalReason::EngineVersion { required, engine } => write!(
                f,
                "mod \"{id}\" needs engine {required} but this is {engine}; update the engine or use a version of \"{id}\" made for {engine}"
            ),
            RefusalReason::InterfaceMajor {
                built_for,
                major,
                minor,
            } => write!(
                f,
                "mod \"{id}\" was built for plugin interface {built_for}, this engine provides {major}.{minor}; rebuild it against iron3d-abi {major}"
            ),
            RefusalReason::NoLibrary { platform, provided } => write!(
                f,
                "mod \"{id}\" has no plugin library for {platform} (it provides: {}); ask its author for a {platform} build",
                provided.join(", ")
            ),
            RefusalReason::BrokenManifest { dir, error } => {
                write!(f, "mod in {dir} is broken: {error}")
            }
            RefusalReason::BrokenFiles { dir, error } => {
                write!(f, "mod in {dir} is broken: {error}")
            }
            RefusalReason::IdMismatch { dir, declared } => write!(
                f,
                "mod in {dir} declares id \"{declared}\"; rename the folder to {declared}"
            ),
            RefusalReason::HashMismatch {
                library,
                expected,
                found,
            } => write!(
                f,
                "mod \"{id}\" plugin {library} has sha256 {found}, its manifest says {expected}; reinstall the mod"
            ),
            RefusalReason::LibraryUnreadable { library, error } => write!(
                f,
                "mod \"{id}\" plugin {library} cannot be read ({error}); reinstall the mod"
            ),
        }
    }
}

impl std::error::Error for Refusal {}
