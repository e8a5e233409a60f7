//! `mod.toml`: what a mod is, what it needs and what it provides.
//!
//! # MANIFEST reference
//!
//! A mod is a folder `mods/<id>/` holding a `mod.toml`. The file is TOML and **strict**:
//! an unknown key, a wrong type or a bad value is an error naming the file, the line, the
//! column and the field — a typo never silently turns a feature off.
//!
//! ```toml
//! id = "faster-tanks"           # required: [a-z0-9][a-z0-9-]{0,63}, equal to the folder name
//! version = "1.2.0"             # required: semver (https://semver.org)
//! name = "Faster tanks"         # required: shown to players, not empty
//! authors = ["Ann", "Bo"]       # optional, default []
//! description = "Tanks go brr"  # optional
//! license = "MIT"               # optional
//! engine = ">=0.1, <0.2"        # required: semver requirement on the engine version
//! interface = 2                 # plugin-interface (ABI) major the plugins are built for:
//!                               #   required when [[plugin]] is present, else optional
//! simulation = true             # optional, default false: the mod changes the simulation
//!                               #   (it goes into the multiplayer/replay fingerprint)
//! load_after = ["a"]            # optional ordering hints (ids); ignored when the mod is
//! load_before = ["b"]           #   absent, overruled (with a warning) by dependencies
//!
//! [dependencies]                # required mods: id = "semver requirement"
//! base = "^1.0"
//!
//! [optional]                    # optional mods: loaded before this one when enabled,
//! x = ">=1"                     #   never required
//!
//! [conflicts]                   # mods that must not be enabled together with this one
//! other = { versions = "<2", reason = "both replace the AI" }   # versions defaults to "*"
//!
//! [[plugin]]                    # native plugins the mod provides, any number
//! slot = "ai"                   # one of terrain ai control effects audio render net input,
//! # service = "pathfinding"     #   or a service name: exactly one of slot/service
//! factory = "ai"                # the factory name inside the library
//! [plugin.library.linux-x86_64] # one table per platform "<os>-<arch>" (Rust's
//! path = "lib/libmy_ai.so"      #   std::env::consts::OS / ARCH); path relative to the
//! sha256 = "<64 lowercase hex>" #   mod folder, no "..", not absolute
//!
//! [[overlay]]                   # data folders laid over the game's files (VFS), in order:
//! path = "data"                 #   later overlays and later mods win
//! ```
//!
//! Rules checked by [`Manifest::parse`] besides the TOML shape:
//!
//! * every id (the mod's, and those in `dependencies`, `optional`, `conflicts`,
//!   `load_after`, `load_before`) matches `[a-z0-9][a-z0-9-]{0,63}`;
//! * a mod does not name itself in any of those, and no id is both a dependency and an
//!   optional dependency or a conflict, or listed twice in a hint list;
//! * `version` is a semver version, `engine`, dependency requirements and
//!   `conflicts.*.versions` are semver requirements;
//! * a plugin has exactly one of `slot`/`service`, a known slot, a non-empty factory, at
//!   least one library, platform keys of the form `<os>-<arch>`, a `sha256` of exactly 64
//!   lowercase hex digits;
//! * paths (libraries, overlays) are relative, `/`-separated, without `..`, `.` or empty
//!   components, backslashes or `:`.

use crate::ModError;
use crate::util::{check_relative, is_sha256_hex, join_relative, line_column};
use semver::{Version, VersionReq};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The longest mod id accepted (`[a-z0-9][a-z0-9-]{0,63}`).
pub const MAX_ID_LEN: usize = 64;

/// Why `id` is not a valid mod id, or `Ok` when it matches `[a-z0-9][a-z0-9-]{0,63}`.
///
/// # Errors
/// A sentence describing the first rule broken.
pub fn check_id(id: &str) -> Result<(), String> {
    let Some(first) = id.bytes().next() else {
        return Err("it is empty".to_owned());
    };
    if id.len() > MAX_ID_LEN {
        return Err(format!("it is longer than {MAX_ID_LEN} characters"));
    }
    if !(first.is_ascii_lowercase() || first.is_ascii_digit()) {
        return Err("it must start with a lowercase letter or a digit".to_owned());
    }
    if let Some(c) = id
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        return Err(format!(
            "{c:?} is not allowed; use lowercase letters, digits and '-'"
        ));
    }
    Ok(())
}

/// A subsystem slot a plugin can fill: the registry's slot names (`config/plugins.ini`),
/// written the same way in `mod.toml` (`"ai"`, `"render"`, …).
pub use iron3d_registry::SlotName as Slot;

/// What a plugin provides: a slot implementation or a named service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginTarget {
    /// It fills a subsystem slot.
    Slot(Slot),
    /// It provides a service other plugins can call, by name.
    Service(String),
}

impl fmt::Display for PluginTarget {
    /// `slot ai` or `service pathfinding`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PluginTarget::Slot(s) => write!(f, "slot {s}"),
            PluginTarget::Service(s) => write!(f, "service {s}"),
        }
    }
}

/// One platform's build of a plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginLibrary {
    /// Path relative to the mod folder, `/`-separated; checked: not absolute, no `..`.
    pub path: String,
    /// Expected SHA-256 of the file: 64 lowercase hex digits (checked).
    pub sha256: String,
}

impl PluginLibrary {
    /// The library's location inside the mod folder `mod_root`.
    #[must_use]
    pub fn resolve(&self, mod_root: &Path) -> PathBuf {
        join_relative(mod_root, &self.path)
    }
}

/// A `[[plugin]]` entry: native code the mod provides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginDecl {
    /// The slot or service it provides.
    pub target: PluginTarget,
    /// The factory name inside the library (not empty).
    pub factory: String,
    /// Builds by platform key `<os>-<arch>` (at least one unless [`PluginDecl::build`]
    /// is given).
    pub libraries: BTreeMap<String, PluginLibrary>,
    /// **PD-MOD-SOURCE-PLUGIN**: the cargo library name of a plugin built from source in
    /// a checkout (`build = "my_mod_ai"`). Where no [`PluginDecl::libraries`] entry exists
    /// for the platform, the engine loads `lib<build>.so` from its plugin search paths
    /// (the checkout's `target/` folder), with no hash to check: every listing marks such
    /// a plugin "built from source, not verified", and `iron3d mods pack` replaces it with
    /// the built library and its SHA-256.
    pub build: Option<String>,
}

impl PluginDecl {
    /// Whether this platform is served: a library for `platform`, or a source build.
    #[must_use]
    pub fn serves(&self, platform: &str) -> bool {
        self.libraries.contains_key(platform) || self.build.is_some()
    }
}

/// A `[conflicts]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// Which versions of the other mod conflict (`*` when not written).
    pub versions: VersionReq,
    /// Why, in the author's words (required, not empty).
    pub reason: String,
}

/// An `[[overlay]]` entry: a data folder laid over the game's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlay {
    /// Folder relative to the mod folder, `/`-separated; checked: not absolute, no `..`.
    pub path: String,
}

impl Overlay {
    /// The overlay's location inside the mod folder `mod_root`.
    #[must_use]
    pub fn resolve(&self, mod_root: &Path) -> PathBuf {
        join_relative(mod_root, &self.path)
    }
}

/// A parsed and validated `mod.toml` (see the [module documentation](self) for the
/// format). Every value satisfies the rules listed there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The mod's id: `[a-z0-9][a-z0-9-]{0,63}`.
    pub id: String,
    /// The mod's version.
    pub version: Version,
    /// Display name (not empty).
    pub name: String,
    /// Authors, as written.
    pub authors: Vec<String>,
    /// Free-form description.
    pub description: Option<String>,
    /// License expression, as written.
    pub license: Option<String>,
    /// Engine versions the mod works with.
    pub engine: VersionReq,
    /// Plugin-interface major the plugins are built for; `Some` whenever `plugins` is not
    /// empty.
    pub interface: Option<u32>,
    /// Whether the mod changes the simulation (and so belongs in the replay fingerprint).
    pub simulation: bool,
    /// Ordering hint: load after these mods when they are enabled.
    pub load_after: Vec<String>,
    /// Ordering hint: load before these mods when they are enabled.
    pub load_before: Vec<String>,
    /// Required mods and the versions accepted.
    pub dependencies: BTreeMap<String, VersionReq>,
    /// Optional mods: ordered before this one when enabled, never required.
    pub optional: BTreeMap<String, VersionReq>,
    /// Mods that must not be enabled together with this one.
    pub conflicts: BTreeMap<String, Conflict>,
    /// Native plugins, in file order.
    pub plugins: Vec<PluginDecl>,
    /// Data overlays, in file order (later wins).
    pub overlays: Vec<Overlay>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    id: Spanned<String>,
    version: Spanned<String>,
    name: Spanned<String>,
    #[serde(default)]
    authors: Vec<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    license: Option<String>,
    engine: Spanned<String>,
    #[serde(default)]
    interface: Option<u32>,
    #[serde(default)]
    simulation: bool,
    #[serde(default)]
    load_after: Vec<Spanned<String>>,
    #[serde(default)]
    load_before: Vec<Spanned<String>>,
    #[serde(default)]
    dependencies: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    optional: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    conflicts: BTreeMap<Spanned<String>, RawConflict>,
    #[serde(default, rename = "plugin")]
    plugins: Vec<Spanned<RawPlugin>>,
    #[serde(default, rename = "overlay")]
    overlays: Vec<RawOverlay>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConflict {
    #[serde(default)]
    versions: Option<Spanned<String>>,
    reason: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlugin {
    #[serde(default)]
    slot: Option<Spanned<String>>,
    #[serde(default)]
    service: Option<Spanned<String>>,
    factory: Spanned<String>,
    #[serde(default)]
    library: BTreeMap<Spanned<String>, RawLibrary>,
    #[serde(default)]
    build: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLibrary {
    path: Spanned<String>,
    sha256: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOverlay {
    path: Spanned<String>,
}

/// A cargo `[lib]` name: `[a-z0-9_]{1,64}`.
fn is_crate_lib_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Builds located errors for one file.
pub(crate) struct Locator<'a> {
    pub(crate) text: &'a str,
    pub(crate) origin: &'a Path,
}

impl Locator<'_> {
    /// A [`ModError::Invalid`] at byte `offset` about `field`.
    pub(crate) fn invalid(
        &self,
        offset: usize,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> ModError {
        let (line, column) = line_column(self.text, offset);
        ModError::Invalid {
            file: self.origin.to_path_buf(),
            line,
            column,
            field: field.into(),
            message: message.into(),
        }
    }

    /// A [`ModError::Parse`] from the TOML parser's error.
    pub(crate) fn parse_error(&self, e: &toml::de::Error) -> ModError {
        let (line, column) = e.span().map_or((1, 1), |r| line_column(self.text, r.start));
        ModError::Parse {
            file: self.origin.to_path_buf(),
            line,
            column,
            message: e.message().trim_end().to_owned(),
        }
    }

    /// Checks a mod id at `s`'s position.
    pub(crate) fn id(&self, s: &Spanned<String>, field: &str) -> Result<String, ModError> {
        check_id(s.get_ref()).map_err(|why| {
            self.invalid(
                s.span().start,
                field,
                format!("\"{}\" is not a valid mod id: {why}", s.get_ref()),
            )
        })?;
        Ok(s.get_ref().clone())
    }

    fn version_req(&self, s: &Spanned<String>, field: &str) -> Result<VersionReq, ModError> {
        VersionReq::parse(s.get_ref()).map_err(|e| {
            self.invalid(
                s.span().start,
                field,
                format!(
                    "\"{}\" is not a version requirement ({e}); write e.g. \"^1.2\" or \">=1.0, <2\"",
                    s.get_ref()
                ),
            )
        })
    }

    fn relative_path(&self, s: &Spanned<String>, field: &str) -> Result<String, ModError> {
        check_relative(s.get_ref()).map_err(|why| {
            self.invalid(
                s.span().start,
                field,
                format!(
                    "path \"{}\" {why}; write it relative to the mod's folder, with / between folders and no \"..\"",
                    s.get_ref()
                ),
            )
        })?;
        Ok(s.get_ref().clone())
    }
}

/// Whether `key` looks like `<os>-<arch>` (lowercase ASCII letters, digits and `_`).
fn is_platform_key(key: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    };
    matches!(key.split_once('-'), Some((os, arch)) if part(os) && part(arch))
}

impl Manifest {
    /// Parses and validates a `mod.toml`; `origin` is only used in error messages.
    ///
    /// # Errors
    /// [`ModError::Parse`] when the text is not TOML of the documented shape (unknown
    /// keys included), [`ModError::Invalid`] when a value breaks a rule; both carry the
    /// file, the 1-based line and column, and (for `Invalid`) the field.
    ///
    /// ```
    /// # use std::path::Path;
    /// let m = iron3d_mods::Manifest::parse(
    ///     "id = \"tanks\"\nversion = \"1.0.0\"\nname = \"Tanks\"\nengine = \"^0.1\"\n",
    ///     Path::new("mods/tanks/mod.toml"),
    /// ).expect("valid manifest");
    /// assert_eq!(m.id, "tanks");
    /// ```
    pub fn parse(text: &str, origin: &Path) -> Result<Manifest, ModError> {
        let loc = Locator { text, origin };
        let raw: RawManifest = toml::from_str(text).map_err(|e| loc.parse_error(&e))?;
        Self::validate(raw, &loc)
    }

    fn validate(raw: RawManifest, loc: &Locator<'_>) -> Result<Manifest, ModError> {
        let id = loc.id(&raw.id, "id")?;
        let version = Version::parse(raw.version.get_ref()).map_err(|e| {
            loc.invalid(
                raw.version.span().start,
                "version",
                format!(
                    "\"{}\" is not a semver version ({e}); write e.g. \"1.2.0\"",
                    raw.version.get_ref()
                ),
            )
        })?;
        if raw.name.get_ref().trim().is_empty() {
            return Err(loc.invalid(raw.name.span().start, "name", "is empty"));
        }
        let engine = loc.version_req(&raw.engine, "engine")?;

        let mut dependencies = BTreeMap::new();
        for (key, req) in &raw.dependencies {
            let field = format!("dependencies.{}", key.get_ref());
            let dep = loc.id(key, &field)?;
            if dep == id {
                return Err(loc.invalid(key.span().start, field, "a mod cannot depend on itself"));
            }
            dependencies.insert(dep, loc.version_req(req, &field)?);
        }
        let mut optional = BTreeMap::new();
        for (key, req) in &raw.optional {
            let field = format!("optional.{}", key.get_ref());
            let dep = loc.id(key, &field)?;
            if dep == id {
                return Err(loc.invalid(key.span().start, field, "a mod cannot depend on itself"));
            }
            if dependencies.contains_key(&dep) {
                return Err(loc.invalid(
                    key.span().start,
                    field,
                    format!(
                        "\"{dep}\" is already a required dependency; list it in one table only"
                    ),
                ));
            }
            optional.insert(dep, loc.version_req(req, &field)?);
        }
        let mut conflicts = BTreeMap::new();
        for (key, c) in &raw.conflicts {
            let field = format!("conflicts.{}", key.get_ref());
            let other = loc.id(key, &field)?;
            if other == id {
                return Err(loc.invalid(
                    key.span().start,
                    field,
                    "a mod cannot conflict with itself",
                ));
            }
            if dependencies.contains_key(&other) || optional.contains_key(&other) {
                return Err(loc.invalid(
                    key.span().start,
                    field,
                    format!("\"{other}\" is also listed as a dependency"),
                ));
            }
            let versions = match &c.versions {
                Some(v) => loc.version_req(v, &format!("{field}.versions"))?,
                None => VersionReq::STAR,
            };
            if c.reason.get_ref().trim().is_empty() {
                return Err(loc.invalid(
                    c.reason.span().start,
                    format!("{field}.reason"),
                    "is empty; say why the mods cannot be used together",
                ));
            }
            conflicts.insert(
                other,
                Conflict {
                    versions,
                    reason: c.reason.get_ref().clone(),
                },
            );
        }
        let load_after = Self::hint_list(&raw.load_after, "load_after", &id, loc)?;
        let load_before = Self::hint_list(&raw.load_before, "load_before", &id, loc)?;

        let mut plugins = Vec::with_capacity(raw.plugins.len());
        for (i, p) in raw.plugins.iter().enumerate() {
            plugins.push(Self::plugin(p, i, loc)?);
        }
        let interface = raw.interface;
        if !plugins.is_empty() && interface.is_none() {
            return Err(loc.invalid(
                raw.plugins.first().map_or(0, |p| p.span().start),
                "interface",
                "is required when the mod has [[plugin]] entries; set it to the plugin-interface major the plugins are built against",
            ));
        }
        let mut overlays = Vec::with_capacity(raw.overlays.len());
        for (i, o) in raw.overlays.iter().enumerate() {
            overlays.push(Overlay {
                path: loc.relative_path(&o.path, &format!("overlay[{i}].path"))?,
            });
        }
        Ok(Manifest {
            id,
            version,
            name: raw.name.into_inner(),
            authors: raw.authors,
            description: raw.description,
            license: raw.license,
            engine,
            interface,
            simulation: raw.simulation,
            load_after,
            load_before,
            dependencies,
            optional,
            conflicts,
            plugins,
            overlays,
        })
    }

    fn hint_list(
        list: &[Spanned<String>],
        field: &str,
        own: &str,
        loc: &Locator<'_>,
    ) -> Result<Vec<String>, ModError> {
        let mut out: Vec<String> = Vec::with_capacity(list.len());
        for (i, s) in list.iter().enumerate() {
            let f = format!("{field}[{i}]");
            let other = loc.id(s, &f)?;
            if other == own {
                return Err(loc.invalid(s.span().start, f, "a mod cannot name itself"));
            }
            if out.contains(&other) {
                return Err(loc.invalid(s.span().start, f, format!("\"{other}\" is listed twice")));
            }
            out.push(other);
        }
        Ok(out)
    }

    fn plugin(p: &Spanned<RawPlugin>, i: usize, loc: &Locator<'_>) -> Result<PluginDecl, ModError> {
        let at = p.span().start;
        let raw = p.get_ref();
        let target = match (&raw.slot, &raw.service) {
            (Some(_), Some(service)) => {
                return Err(loc.invalid(
                    service.span().start,
                    format!("plugin[{i}]"),
                    "has both slot and service; a plugin provides exactly one of them",
                ));
            }
            (None, None) => {
                return Err(loc.invalid(
                    at,
                    format!("plugin[{i}]"),
                    "has neither slot nor service; write slot = \"ai\" (or another slot) or service = \"name\"",
                ));
            }
            (Some(slot), None) => PluginTarget::Slot(slot.get_ref().parse::<Slot>().ok().ok_or_else(|| {
                loc.invalid(
                    slot.span().start,
                    format!("plugin[{i}].slot"),
                    format!(
                        "unknown slot \"{}\"; expected one of terrain, ai, control, effects, audio, render, net, input",
                        slot.get_ref()
                    ),
                )
            })?),
            (None, Some(service)) => {
                if !iron3d_registry::is_service_name(service.get_ref()) {
                    return Err(loc.invalid(
                        service.span().start,
                        format!("plugin[{i}].service"),
                        format!(
                            "\"{}\" is not a valid service name; use [a-z0-9][a-z0-9._-]{{0,63}}",
                            service.get_ref()
                        ),
                    ));
                }
                PluginTarget::Service(service.get_ref().clone())
            }
        };
        if raw.factory.get_ref().trim().is_empty() {
            return Err(loc.invalid(
                raw.factory.span().start,
                format!("plugin[{i}].factory"),
                "is empty",
            ));
        }
        let build = match &raw.build {
            Some(b) if !is_crate_lib_name(b.get_ref()) => {
                return Err(loc.invalid(
                    b.span().start,
                    format!("plugin[{i}].build"),
                    format!(
                        "\"{}\" is not a cargo library name; use [a-z0-9_]{{1,64}} (the [lib] name of the plugin crate)",
                        b.get_ref()
                    ),
                ));
            }
            Some(b) => Some(b.get_ref().clone()),
            None => None,
        };
        if raw.library.is_empty() && build.is_none() {
            return Err(loc.invalid(
                at,
                format!("plugin[{i}].library"),
                "no library given; add a [plugin.library.<os>-<arch>] table with path and sha256 (or build = \"<cargo lib name>\" for a plugin built from source)",
            ));
        }
        let mut libraries = BTreeMap::new();
        for (key, lib) in &raw.library {
            let field = format!("plugin[{i}].library.{}", key.get_ref());
            if !is_platform_key(key.get_ref()) {
                return Err(loc.invalid(
                    key.span().start,
                    field,
                    format!(
                        "\"{}\" is not a platform key; write <os>-<arch> such as linux-x86_64 or windows-x86_64",
                        key.get_ref()
                    ),
                ));
            }
            let path = loc.relative_path(&lib.path, &format!("{field}.path"))?;
            if !is_sha256_hex(lib.sha256.get_ref()) {
                return Err(loc.invalid(
                    lib.sha256.span().start,
                    format!("{field}.sha256"),
                    "must be exactly 64 lowercase hex digits (the file's SHA-256)",
                ));
            }
            libraries.insert(
                key.get_ref().clone(),
                PluginLibrary {
                    path,
                    sha256: lib.sha256.get_ref().clone(),
                },
            );
        }
        Ok(PluginDecl {
            target,
            factory: raw.factory.get_ref().clone(),
            libraries,
            build,
        })
    }

    /// Whether the mod provides native plugins (and so depends on the plugin interface).
    #[must_use]
    pub fn has_plugins(&self) -> bool {
        !self.plugins.is_empty()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    const SHA: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn full() -> String {
        format!(
            r#"id = "faster-tanks"
version = "1.2.0"
name = "Faster tanks"
authors = ["Ann"]
description = "Tanks go faster"
license = "MIT"
engine = ">=0.1, <0.2"
interface = 2
simulation = true
load_after = ["a"]
load_before = ["b"]

[dependencies]
base = "^1.0"

[optional]
x = ">=1"

[conflicts]
other = {{ versions = "<2", reason = "both replace the AI" }}
plain = {{ reason = "same files" }}

[[plugin]]
slot = "ai"
factory = "ai"
[plugin.library.linux-x86_64]
path = "lib/libmy_ai.so"
sha256 = "{SHA}"
[plugin.library.windows-x86_64]
path = "lib/my_ai.dll"
sha256 = "{SHA}"

[[plugin]]
service = "pathfinding"
factory = "paths"
[plugin.library.linux-x86_64]
path = "lib/libpaths.so"
sha256 = "{SHA}"

[[overlay]]
path = "data"
[[overlay]]
path = "data/hd"
"#
        )
    }

    fn parse(text: &str) -> Result<Manifest, ModError> {
        Manifest::parse(text, Path::new("mods/t/mod.toml"))
    }

    /// The error's (line, column, field) for an `Invalid`, (line, column, "") for `Parse`.
    fn located(text: &str) -> (usize, usize, String, String) {
        match parse(text).unwrap_err() {
            ModError::Invalid {
                line,
                column,
                field,
                message,
                file,
            } => {
                assert_eq!(file, Path::new("mods/t/mod.toml"));
                (line, column, field, message)
            }
            ModError::Parse {
                line,
                column,
                message,
                file,
            } => {
                assert_eq!(file, Path::new("mods/t/mod.toml"));
                (line, column, String::new(), message)
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    const MINIMAL: &str = "id = \"t\"\nversion = \"1.0.0\"\nname = \"T\"\nengine = \"^0.1\"\n";

    #[test]
    fn full_manifest_parses_every_field() {
        let m = parse(&full()).unwrap();
        assert_eq!(m.id, "faster-tanks");
        assert_eq!(m.version, Version::new(1, 2, 0));
        assert_eq!(m.name, "Faster tanks");
        assert_eq!(m.authors, ["Ann"]);
        assert_eq!(m.description.as_deref(), Some("Tanks go faster"));
        assert_eq!(m.license.as_deref(), Some("MIT"));
        assert_eq!(m.engine.to_string(), ">=0.1, <0.2");
        assert_eq!(m.interface, Some(2));
        assert!(m.simulation);
        assert_eq!(m.load_after, ["a"]);
        assert_eq!(m.load_before, ["b"]);
        assert_eq!(m.dependencies["base"].to_string(), "^1.0");
        assert_eq!(m.optional["x"].to_string(), ">=1");
        assert_eq!(m.conflicts["other"].versions.to_string(), "<2");
        assert_eq!(m.conflicts["other"].reason, "both replace the AI");
        assert_eq!(m.conflicts["plain"].versions, VersionReq::STAR);
        assert_eq!(m.plugins.len(), 2);
        assert_eq!(m.plugins[0].target, PluginTarget::Slot(Slot::Ai));
        assert_eq!(m.plugins[0].factory, "ai");
        assert_eq!(m.plugins[0].libraries.len(), 2);
        assert_eq!(
            m.plugins[0].libraries["linux-x86_64"].path,
            "lib/libmy_ai.so"
        );
        assert_eq!(
            m.plugins[1].target,
            PluginTarget::Service("pathfinding".into())
        );
        assert_eq!(
            m.overlays
                .iter()
                .map(|o| o.path.as_str())
                .collect::<Vec<_>>(),
            ["data", "data/hd"]
        );
        assert_eq!(
            m.overlays[1].resolve(Path::new("/m")),
            Path::new("/m/data/hd")
        );
        assert!(m.has_plugins());
    }

    #[test]
    fn minimal_manifest_gets_defaults() {
        let m = parse(MINIMAL).unwrap();
        assert!(m.authors.is_empty() && m.dependencies.is_empty() && m.plugins.is_empty());
        assert_eq!(m.interface, None);
        assert!(!m.simulation);
        assert!(!m.has_plugins());
    }

    #[test]
    fn unknown_field_is_located() {
        let (line, column, field, message) = located(&format!("{MINIMAL}colour = \"red\"\n"));
        assert_eq!((line, column, field.as_str()), (5, 1, ""));
        assert!(message.contains("colour"), "{message}");
        let e = parse(&format!("{MINIMAL}colour = \"red\"\n"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("mods/t/mod.toml:5:1: "), "{e}");
    }

    #[test]
    fn unknown_field_in_a_nested_table_is_located() {
        let text = full().replace("factory = \"paths\"", "factory = \"paths\"\nfactroy = 1");
        let (line, _, _, message) = located(&text);
        assert_eq!(line, 36);
        assert!(message.contains("factroy"), "{message}");
    }

    #[test]
    fn wrong_type_and_missing_field_fail_to_parse() {
        let (line, column, _, _) = located(&MINIMAL.replace("\"1.0.0\"", "1"));
        assert_eq!((line, column), (2, 11));
        let (_, _, field, message) = located("id = \"t\"\nname = \"T\"\nengine = \"*\"\n");
        assert_eq!(field, "");
        assert!(message.contains("version"), "{message}");
    }

    #[test]
    fn bad_id_names_field_and_position() {
        let (line, column, field, message) = located(&MINIMAL.replace("\"t\"", "\"Bad_Id\""));
        assert_eq!((line, column, field.as_str()), (1, 6, "id"));
        assert!(message.contains("Bad_Id"), "{message}");
        for bad in ["", "-x", &"a".repeat(65), "a.b", "é"] {
            assert!(
                parse(&MINIMAL.replace("\"t\"", &format!("{bad:?}"))).is_err(),
                "{bad:?}"
            );
        }
        assert!(parse(&MINIMAL.replace("\"t\"", &format!("\"{}\"", "a".repeat(64)))).is_ok());
        assert!(parse(&MINIMAL.replace("\"t\"", "\"0-9\"")).is_ok());
    }

    #[test]
    fn bad_versions_name_their_field() {
        let (line, _, field, _) = located(&MINIMAL.replace("\"1.0.0\"", "\"1.0\""));
        assert_eq!((line, field.as_str()), (2, "version"));
        let (line, _, field, _) = located(&MINIMAL.replace("\"^0.1\"", "\"banana\""));
        assert_eq!((line, field.as_str()), (4, "engine"));
        let (_, _, field, _) = located(&format!("{MINIMAL}[dependencies]\nbase = \"~>1\"\n"));
        assert_eq!(field, "dependencies.base");
        let (_, _, field, _) = located(&format!(
            "{MINIMAL}[conflicts]\no = {{ versions = \">>1\", reason = \"r\" }}\n"
        ));
        assert_eq!(field, "conflicts.o.versions");
    }

    #[test]
    fn self_references_are_refused() {
        let (line, column, field, message) =
            located(&format!("{MINIMAL}[dependencies]\nt = \"*\"\n"));
        assert_eq!((line, column, field.as_str()), (6, 1, "dependencies.t"));
        assert!(message.contains("itself"), "{message}");
        let (_, _, field, _) = located(&format!("{MINIMAL}[optional]\nt = \"*\"\n"));
        assert_eq!(field, "optional.t");
        let (_, _, field, _) =
            located(&format!("{MINIMAL}[conflicts]\nt = {{ reason = \"r\" }}\n"));
        assert_eq!(field, "conflicts.t");
        let (_, _, field, _) = located(&format!("load_after = [\"t\"]\n{MINIMAL}"));
        assert_eq!(field, "load_after[0]");
    }

    #[test]
    fn contradictory_tables_are_refused() {
        let (_, _, field, _) = located(&format!(
            "{MINIMAL}[dependencies]\na = \"*\"\n[optional]\na = \"*\"\n"
        ));
        assert_eq!(field, "optional.a");
        let (_, _, field, _) = located(&format!(
            "{MINIMAL}[dependencies]\na = \"*\"\n[conflicts]\na = {{ reason = \"r\" }}\n"
        ));
        assert_eq!(field, "conflicts.a");
        let (_, _, field, _) = located(&format!("load_before = [\"a\", \"a\"]\n{MINIMAL}"));
        assert_eq!(field, "load_before[1]");
        let (_, _, field, _) =
            located(&format!("{MINIMAL}[conflicts]\na = {{ reason = \" \" }}\n"));
        assert_eq!(field, "conflicts.a.reason");
        let (_, _, field, message) = located(&format!(
            "{MINIMAL}[conflicts]\na = {{ versions = \"*\" }}\n"
        ));
        assert_eq!(field, "");
        assert!(message.contains("reason"), "{message}");
    }

    #[test]
    fn plugin_slot_and_service_rules() {
        let both = full().replace("slot = \"ai\"", "slot = \"ai\"\nservice = \"s\"");
        let (line, _, field, message) = located(&both);
        assert_eq!((line, field.as_str()), (25, "plugin[0]"));
        assert!(message.contains("both"), "{message}");

        let neither = full().replace("slot = \"ai\"\n", "");
        let (_, _, field, message) = located(&neither);
        assert_eq!(field, "plugin[0]");
        assert!(message.contains("neither"), "{message}");

        let unknown = full().replace("slot = \"ai\"", "slot = \"physics\"");
        let (line, column, field, message) = located(&unknown);
        assert_eq!((line, column, field.as_str()), (24, 8, "plugin[0].slot"));
        assert!(message.contains("physics"), "{message}");

        let bad_service = full().replace("\"pathfinding\"", "\"Path Finding\"");
        let (_, _, field, _) = located(&bad_service);
        assert_eq!(field, "plugin[1].service");

        let no_interface = full().replace("interface = 2\n", "");
        let (_, _, field, _) = located(&no_interface);
        assert_eq!(field, "interface");

        let empty_factory = full().replace("factory = \"ai\"", "factory = \"\"");
        let (_, _, field, _) = located(&empty_factory);
        assert_eq!(field, "plugin[0].factory");
    }

    #[test]
    fn plugin_library_rules() {
        let short_sha = full().replacen(SHA, &SHA[..63], 1);
        let (line, column, field, _) = located(&short_sha);
        assert_eq!(
            (line, column, field.as_str()),
            (28, 10, "plugin[0].library.linux-x86_64.sha256")
        );
        let upper_sha = full().replacen(SHA, &SHA.to_uppercase(), 1);
        assert!(parse(&upper_sha).is_err());

        for bad in [
            "/lib/x.so",
            "../x.so",
            "lib/../../x.so",
            "lib\\\\x.so",
            "C:/x.dll",
            "",
        ] {
            let text = full().replace("lib/libmy_ai.so", bad);
            let (_, _, field, message) = located(&text);
            assert_eq!(field, "plugin[0].library.linux-x86_64.path", "{bad}");
            assert!(message.starts_with("path "), "{message}");
        }

        let bad_key = full().replace("library.windows-x86_64", "library.windows");
        let (_, _, field, _) = located(&bad_key);
        assert_eq!(field, "plugin[0].library.windows");

        let no_library =
            format!("{MINIMAL}interface = 2\n[[plugin]]\nslot = \"ai\"\nfactory = \"ai\"\n");
        let (_, _, field, _) = located(&no_library);
        assert_eq!(field, "plugin[0].library");
    }

    #[test]
    fn overlay_paths_are_checked() {
        let text = format!("{MINIMAL}[[overlay]]\npath = \"../data\"\n");
        let (line, column, field, _) = located(&text);
        assert_eq!((line, column, field.as_str()), (6, 8, "overlay[0].path"));
    }

    #[test]
    fn garbage_never_panics() {
        for text in [
            "",
            "=",
            "[[plugin]]",
            "id = 1",
            "[dependencies]\n\"\" = \"\"",
            "\u{feff}id = \"x\"",
            "id = \"x\"\nid = \"y\"",
        ] {
            assert!(parse(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn ids_and_platform_keys() {
        assert!(check_id("a").is_ok());
        assert!(check_id("a-b-1").is_ok());
        assert!(check_id("").is_err());
        assert!(check_id("A").is_err());
        assert!(is_platform_key("linux-x86_64"));
        assert!(is_platform_key("macos-aarch64"));
        assert!(!is_platform_key("linux"));
        assert!(!is_platform_key("-x86"));
        assert!(!is_platform_key("Linux-x86_64"));
        assert_eq!("render".parse::<Slot>(), Ok(Slot::Render));
    }
}
