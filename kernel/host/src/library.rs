//! Loading plugin libraries: the image check (a regular file, an ELF whose segments lie
//! inside it, with the plugin entry point), unique shadow copies written from the checked
//! bytes, the load probe, abi_stable header and layout checks, interface-version check,
//! and factory lookup.
//!
//! abi_stable caches per library image and the OS deduplicates by path, so every load
//! copies the file to a new unique path first (HOT-SWAP-FACTS.md). Libraries are never
//! unloaded: each load costs resident memory, so the host counts loaded images.

use crate::error::HostError;
use abi_stable::library::{LibraryError, lib_header_from_path};
use iron3d_abi::{
    ABI_MAJOR, ABI_MINOR, PluginDescription, PluginRootV2Ref, ROOT_VERSION, SlotKind,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static SHADOW_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A loaded plugin library (kept mapped for the life of the process).
pub struct LoadedLibrary {
    /// The file named by the registry or the swap request.
    pub source: PathBuf,
    /// The unique shadow copy actually mapped (removed from disk once mapped:
    /// PD-HOST-SHADOW-UNLINK; the path is kept for logs).
    pub shadow: PathBuf,
    /// BLAKE3 of the file contents (spurious file events are ignored when it is unchanged).
    pub content_hash: [u8; 32],
    /// The root module.
    pub root: PluginRootV2Ref,
    /// The library's self-description.
    pub description: PluginDescription,
}

impl std::fmt::Debug for LoadedLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedLibrary")
            .field("source", &self.source)
            .field("shadow", &self.shadow)
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

impl LoadedLibrary {
    /// Plugin name from the description.
    pub fn name(&self) -> &str {
        self.description.name.as_str()
    }

    /// Plugin version from the description.
    pub fn version(&self) -> &str {
        self.description.version.as_str()
    }

    /// The factory named `wanted`, whatever slot it declares (service plugins).
    ///
    /// # Errors
    /// [`HostError::NoServiceFactory`] listing the factories the library offers.
    pub fn factory_named(&self, wanted: &str) -> Result<String, HostError> {
        self.description
            .factories
            .iter()
            .find(|f| f.name.as_str() == wanted)
            .map(|f| f.name.to_string())
            .ok_or_else(|| HostError::NoServiceFactory {
                plugin: self.name().to_owned(),
                path: self.source.clone(),
                factory: wanted.to_owned(),
                offered: self.offered(),
            })
    }

    /// The factory `wanted` if given and present for `slot`, else the first factory for `slot`.
    pub fn factory_for(&self, slot: SlotKind, wanted: Option<&str>) -> Result<String, HostError> {
        let mut matching = self.description.factories.iter().filter(|f| f.slot == slot);
        let found = match wanted {
            Some(w) => matching.find(|f| f.name.as_str() == w),
            None => matching.next(),
        };
        found
            .map(|f| f.name.to_string())
            .ok_or_else(|| HostError::NoFactory {
                plugin: self.name().to_owned(),
                path: self.source.clone(),
                factory: wanted.unwrap_or("<any>").to_owned(),
                slot: slot.to_string(),
                offered: self.offered(),
            })
    }

    /// The factories the library offers, `name (slot)`, for error messages.
    fn offered(&self) -> String {
        self.description
            .factories
            .iter()
            .map(|f| format!("{} ({})", f.name, f.slot))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The last few meaningful lines of abi_stable's (very long) layout report.
pub fn summarize_load_error(e: &LibraryError) -> String {
    let text = e.to_string();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.len() <= 3 {
        return lines.join(" | ");
    }
    let interesting: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.contains("Expected") || l.contains("Found") || l.contains("mismatch"))
        .collect();
    let pick = if interesting.is_empty() {
        &lines[lines.len() - 3..]
    } else {
        &interesting[interesting.len().saturating_sub(3)..]
    };
    pick.join(" | ")
}

/// Copies `source` to a unique file in `shadow_dir`, loads it, checks layouts and the
/// interface version, then removes the copy (PD-HOST-SHADOW-UNLINK; the mapping stays).
/// Nothing is registered anywhere on failure.
pub fn load(source: &Path, shadow_dir: &Path) -> Result<LoadedLibrary, HostError> {
    let bytes = read(source)?;
    load_bytes(source, &bytes, shadow_dir)
}

/// Reads a library file, with the error naming it; anything but a regular file (a
/// directory, a FIFO, a device) is refused before it is opened.
pub fn read(source: &Path) -> Result<Vec<u8>, HostError> {
    let meta = std::fs::metadata(source).map_err(|e| HostError::LibraryUnreadable {
        path: source.to_owned(),
        source: e,
    })?;
    if !meta.is_file() {
        let kind = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file"
        };
        return Err(HostError::NotAPlugin {
            path: source.to_owned(),
            why: format!("not an Iron3D plugin: it is {kind}"),
        });
    }
    std::fs::read(source).map_err(|e| HostError::LibraryUnreadable {
        path: source.to_owned(),
        source: e,
    })
}

/// [`load`] for contents already read from `source`.
pub fn load_bytes(
    source: &Path,
    bytes: &[u8],
    shadow_dir: &Path,
) -> Result<LoadedLibrary, HostError> {
    // Before anything is mapped: a file cut short would end the process on its first
    // touched page (PD-HOST-IMAGE-CHECK). The shadow copy is written from these bytes.
    crate::image::check(source, bytes)?;
    let content_hash = *blake3::hash(bytes).as_bytes();
    // One load at a time in this process: "this load created the folder" stays exact.
    let _serial = LOAD_LOCK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let created_dir = match std::fs::create_dir(shadow_dir) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => false,
        Err(_) => {
            std::fs::create_dir_all(shadow_dir).map_err(|e| HostError::Io {
                path: shadow_dir.to_owned(),
                source: e,
            })?;
            true
        }
    };
    let stem = source
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "plugin".into());
    let ext = source
        .extension()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "so".into());
    let n = SHADOW_COUNTER.fetch_add(1, Ordering::SeqCst);
    let shadow = shadow_dir.join(format!("{stem}-{}-{n}.{ext}", std::process::id()));
    // PD-HOST-SHADOW-UNLINK: the copy is needed on disk only until it is mapped; it is
    // removed right after, on success and on failure, with the folder when this load
    // made it — a run that ends any way at all (even by a signal) leaves nothing behind
    // but what a load in progress had written.
    let _remove = RemoveOnDrop {
        file: shadow.clone(),
        dir: created_dir.then(|| shadow_dir.to_owned()),
    };
    std::fs::write(&shadow, bytes).map_err(|e| HostError::Io {
        path: shadow.clone(),
        source: e,
    })?;
    // In a process that probes (the launcher), a library that crashes while it is
    // described is refused here, before this process maps it.
    crate::probe::check(source, &shadow, &content_hash)?;
    let (root, description) = describe_in_process(&shadow, source)?;
    Ok(LoadedLibrary {
        source: source.to_owned(),
        shadow,
        content_hash,
        root,
        description,
    })
}

/// Serialises shadow-copy loads within the process.
static LOAD_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Removes a shadow copy (and the folder a load made for it, when empty) on drop.
struct RemoveOnDrop {
    file: PathBuf,
    dir: Option<PathBuf>,
}

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        // Best effort: a file already gone is what we want; a folder someone else put
        // files in stays.
        let _ = std::fs::remove_file(&self.file);
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Maps `image` (named `source` in errors), checks its header, root module version and
/// layouts, calls its `describe` and checks the description. Runs the library's code:
/// the host calls it on a file the load probe accepted (see [`crate::probe`]).
pub fn describe_in_process(
    image: &Path,
    source: &Path,
) -> Result<(PluginRootV2Ref, PluginDescription), HostError> {
    let header = lib_header_from_path(image).map_err(|e| HostError::LoadRefused {
        path: source.to_owned(),
        summary: summarize_load_error(&e),
    })?;
    // The root module's version string first: a library of another interface major is
    // refused by name, not by a layout report.
    check_root_version(header.version_strings().version.as_str(), source)?;
    let root =
        header
            .init_root_module::<PluginRootV2Ref>()
            .map_err(|e| HostError::LoadRefused {
                path: source.to_owned(),
                summary: summarize_load_error(&e),
            })?;
    let description = (root.describe())();
    check_description(&description, source)?;
    Ok((root, description))
}

/// Refuses a root module of another interface major (`found` is its version string,
/// e.g. `1.0.0` for a 1.x plugin), by name and before any layout check.
pub fn check_root_version(found: &str, source: &Path) -> Result<(), HostError> {
    let major_of = |v: &str| v.split('.').next().and_then(|m| m.parse::<u32>().ok());
    if major_of(found) != major_of(ROOT_VERSION) {
        return Err(HostError::WrongInterface {
            path: source.to_owned(),
            found: found.to_owned(),
        });
    }
    Ok(())
}

/// What the host refuses in a library's self-description: a `panic = "abort"` build, or
/// another interface major; a newer minor loads with a warning.
pub fn check_description(description: &PluginDescription, source: &Path) -> Result<(), HostError> {
    if !description.panic_unwind {
        return Err(HostError::PanicAbort {
            plugin: description.name.to_string(),
            path: source.to_owned(),
        });
    }
    if description.abi_major != ABI_MAJOR {
        return Err(HostError::AbiVersion {
            plugin: description.name.to_string(),
            path: source.to_owned(),
            expected_major: ABI_MAJOR,
            expected_minor: ABI_MINOR,
            found_major: description.abi_major,
            found_minor: description.abi_minor,
        });
    }
    if description.abi_minor > ABI_MINOR {
        tracing::warn!(
            plugin = description.name.as_str(),
            "plugin built for interface {}.{}, newer than this engine's {ABI_MAJOR}.{ABI_MINOR}: methods this engine does not know are ignored",
            description.abi_major,
            description.abi_minor
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_1_x_root_module_is_refused_with_both_versions() {
        let path = Path::new("/plugins/libold.so");
        assert!(check_root_version(ROOT_VERSION, path).is_ok());
        let e = check_root_version("1.0.0", path).unwrap_err().to_string();
        assert!(
            e.contains("libold.so") && e.contains("interface 1.0.0") && e.contains("2.x"),
            "{e}"
        );
        assert!(check_root_version("garbage", path).is_err());
    }

    #[test]
    fn abort_builds_and_other_majors_are_refused_by_name() {
        let path = Path::new("/plugins/libx.so");
        let ok = PluginDescription::current("x", "1", Vec::new());
        assert!(check_description(&ok, path).is_ok());
        let abort = PluginDescription {
            panic_unwind: false,
            ..ok.clone()
        };
        let e = check_description(&abort, path).unwrap_err().to_string();
        assert!(
            e.contains("'x'") && e.contains("libx.so") && e.contains("panic = \"abort\""),
            "{e}"
        );
        let old = PluginDescription { abi_major: 1, ..ok };
        let e = check_description(&old, path).unwrap_err().to_string();
        assert!(
            e.contains("interface 1.") && e.contains(&format!("provides {ABI_MAJOR}.")),
            "{e}"
        );
    }
}

/// Longest library name or path resolved (Linux `PATH_MAX`); a longer one is refused
/// without a search.
pub const MAX_LIBRARY_NAME: usize = 4096;

/// `s` for a message: control characters (terminal escapes included) escaped, cut to
/// `max` characters with "…".
fn printable(s: &str, max: usize) -> String {
    let mut out: String = s
        .chars()
        .take(max)
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_debug().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect();
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

/// Ordered search paths for registry library names.
#[derive(Clone, Debug, Default)]
pub struct SearchPaths {
    dirs: Vec<PathBuf>,
}

impl SearchPaths {
    /// Searches `dirs` in order (first hit wins: put mod directories first).
    pub fn new(dirs: Vec<PathBuf>) -> Self {
        Self { dirs }
    }

    /// The directories, in search order.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// File names tried for a registry name, in order: the name as given when it has an
    /// extension, then `lib<stem>.so`, `<stem>.so`, `libiron3d_<stem>.so` (original DLL
    /// names such as `terrain.dll` map to `libiron3d_terrain.so`).
    pub fn candidates(name: &str) -> Vec<String> {
        let stem = iron3d_registry::library_stem(name);
        let mut v = Vec::new();
        if Path::new(name).extension().is_some() && !name.to_ascii_lowercase().ends_with(".dll") {
            v.push(name.to_owned());
        }
        let (prefix, ext) = (
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_EXTENSION,
        );
        v.push(format!("{prefix}{stem}.{ext}"));
        v.push(format!("{stem}.{ext}"));
        if !stem.starts_with("iron3d_") {
            v.push(format!("{prefix}iron3d_{stem}.{ext}"));
        }
        v
    }

    /// The first existing file for registry name `name`; an absolute or relative path
    /// that exists is taken as is. A path that exists but is no file (a directory, a
    /// FIFO) is refused by name as "not an Iron3D plugin" rather than "not found".
    pub fn resolve(&self, name: &str) -> Result<PathBuf, HostError> {
        if name.len() > MAX_LIBRARY_NAME {
            return Err(HostError::LibraryNotFound {
                name: printable(name, 64),
                searched: format!(
                    "nowhere: the name is {} bytes, longer than any path ({MAX_LIBRARY_NAME})",
                    name.len()
                ),
            });
        }
        let direct = Path::new(name);
        let mut not_a_file = None;
        if direct.is_absolute() || name.contains('/') {
            if direct.is_file() {
                return Ok(direct.to_owned());
            }
            if direct.exists() {
                not_a_file = Some(direct.to_owned());
            }
        }
        let mut tried = Vec::new();
        for dir in &self.dirs {
            for c in Self::candidates(name) {
                let p = dir.join(&c);
                if p.is_file() {
                    return Ok(p);
                }
                if not_a_file.is_none() && p.exists() {
                    not_a_file = Some(p.clone());
                }
                tried.push(p.display().to_string());
            }
        }
        match not_a_file {
            // Read refuses it with what it is.
            Some(p) => read(&p).map(|_| p),
            None => Err(HostError::LibraryNotFound {
                name: printable(name, 256),
                searched: printable(&tried.join(", "), 64 * 1024),
            }),
        }
    }
}
