//! Checking plugin libraries against the SHA-256 their manifest pins, before loading them.

use crate::ModError;
use crate::discover::ModDir;
use crate::files::{ModTree, open_regular};
use crate::manifest::PluginDecl;
use crate::refusal::{Refusal, RefusalReason};
use crate::util::{Shown, hex};
use sha2::{Digest, Sha256};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// A plugin ready to load: its library for this platform has the SHA-256 the manifest
/// declares, or it is a source build (PD-MOD-SOURCE-PLUGIN).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedPlugin {
    /// The plugin as declared.
    pub decl: PluginDecl,
    /// What will be loaded.
    pub binary: PluginBinary,
}

/// The code of a [`VerifiedPlugin`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginBinary {
    /// A library shipped in the mod folder, hash checked.
    Shipped {
        /// The library file for the platform (inside the mod folder).
        library_path: PathBuf,
        /// The file's SHA-256, lowercase hex (equal to the manifest's).
        sha256: String,
    },
    /// Built from source in a checkout: `lib<library>.so` from the engine's plugin search
    /// paths, not verified.
    Source {
        /// The cargo library name ([`PluginDecl::build`]).
        library: String,
    },
}

/// SHA-256 of everything `reader` yields, as lowercase hex.
pub(crate) fn sha256_reader(mut reader: impl Read) -> io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

/// SHA-256 of the file at `path`, as lowercase hex (streamed, any size). Only a regular
/// file is read (PD-MODS-REGULAR-FILES): a FIFO or a device is refused, never read.
///
/// # Errors
/// The file cannot be opened or read, or is not a regular file
/// ([`io::ErrorKind::InvalidInput`]).
pub fn sha256_file(path: &Path) -> io::Result<String> {
    match open_regular(path) {
        Ok((file, _)) => sha256_reader(file),
        Err(ModError::Io { source, .. }) => Err(source),
        Err(e) => Err(io::Error::new(io::ErrorKind::InvalidInput, reason(&e))),
    }
}

/// Why a file cannot be read, without its path (the caller names it).
fn reason(e: &ModError) -> String {
    match e {
        ModError::Io { source, .. } => source.to_string(),
        ModError::NotRegular { kind, .. } => format!("it is {kind}, not a regular file"),
        ModError::LinkOutside { target, .. } => format!(
            "it leads outside the mod folder through a link (to {}); a mod's links must stay inside its folder",
            Shown(target)
        ),
        other => other.to_string(),
    }
}

/// SHA-256 of the plugin library `path` inside the mod folder `root` (a regular file,
/// links only inside the mod).
fn library_sha256(root: &Path, path: &Path) -> Result<String, String> {
    let tree = ModTree::new(root).map_err(|e| reason(&e))?;
    match tree.open(path) {
        Ok(Some((file, _))) => sha256_reader(file).map_err(|e| e.to_string()),
        Ok(None) => Err(io::Error::from(io::ErrorKind::NotFound).to_string()),
        Err(e) => Err(reason(&e)),
    }
}

/// Hashes the library of every plugin of `mod_dir` for `platform` and compares it with
/// the manifest. `Ok` lists every plugin, in manifest order, only when all match.
///
/// # Errors
/// The first problem met, as a [`Refusal`] of the mod:
/// [`RefusalReason::NoLibrary`] when a plugin has no library for `platform`,
/// [`RefusalReason::LibraryUnreadable`] when a file cannot be read,
/// [`RefusalReason::HashMismatch`] when a file's hash differs from the manifest's.
pub fn verify_plugins(mod_dir: &ModDir, platform: &str) -> Result<Vec<VerifiedPlugin>, Refusal> {
    let m = &mod_dir.manifest;
    let mut out = Vec::with_capacity(m.plugins.len());
    for decl in &m.plugins {
        let Some(lib) = decl.libraries.get(platform) else {
            if let Some(library) = &decl.build {
                out.push(VerifiedPlugin {
                    decl: decl.clone(),
                    binary: PluginBinary::Source {
                        library: library.clone(),
                    },
                });
                continue;
            }
            return Err(Refusal::new(
                m.id.clone(),
                RefusalReason::NoLibrary {
                    platform: platform.to_owned(),
                    provided: decl.libraries.keys().cloned().collect(),
                },
            ));
        };
        let library_path = lib.resolve(&mod_dir.root);
        let found = library_sha256(&mod_dir.root, &library_path).map_err(|error| {
            Refusal::new(
                m.id.clone(),
                RefusalReason::LibraryUnreadable {
                    library: lib.path.clone(),
                    error,
                },
            )
        })?;
        if found != lib.sha256 {
            return Err(Refusal::new(
                m.id.clone(),
                RefusalReason::HashMismatch {
                    library: lib.path.clone(),
                    expected: lib.sha256.clone(),
                    found,
                },
            ));
        }
        out.push(VerifiedPlugin {
            decl: decl.clone(),
            binary: PluginBinary::Shipped {
                library_path,
                sha256: found,
            },
        });
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;
    use crate::manifest::Manifest;
    use std::fs;

    const EMPTY_SHA: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    fn mod_with(root: &Path, sha: &str) -> ModDir {
        let text = format!(
            "id = \"a\"\nversion = \"1.0.0\"\nname = \"A\"\nengine = \"*\"\ninterface = 2\n\
             [[plugin]]\nslot = \"ai\"\nfactory = \"ai\"\n\
             [plugin.library.linux-x86_64]\npath = \"lib/libx.so\"\nsha256 = \"{sha}\"\n\
             [plugin.library.windows-x86_64]\npath = \"lib/x.dll\"\nsha256 = \"{sha}\"\n"
        );
        ModDir {
            root: root.to_path_buf(),
            manifest: Manifest::parse(&text, &root.join("mod.toml")).unwrap(),
        }
    }

    #[test]
    fn known_digest() {
        assert_eq!(sha256_reader(&b""[..]).unwrap(), EMPTY_SHA);
        assert_eq!(
            sha256_reader(&b"abc"[..]).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn matching_library_verifies() {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir_all(tmp.path().join("lib")).unwrap();
        fs::write(tmp.path().join("lib/libx.so"), b"").unwrap();
        let m = mod_with(tmp.path(), EMPTY_SHA);
        let v = verify_plugins(&m, "linux-x86_64").unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(
            v[0].binary,
            PluginBinary::Shipped {
                library_path: tmp.path().join("lib").join("libx.so"),
                sha256: EMPTY_SHA.to_owned(),
            }
        );
        assert_eq!(v[0].decl.factory, "ai");
    }

    #[test]
    fn tampered_missing_and_unsupported_libraries_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir_all(tmp.path().join("lib")).unwrap();
        fs::write(tmp.path().join("lib/libx.so"), b"abc").unwrap();
        let m = mod_with(tmp.path(), EMPTY_SHA);
        let e = verify_plugins(&m, "linux-x86_64").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "mod \"a\" plugin lib/libx.so has sha256 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad, its manifest says {EMPTY_SHA}; reinstall the mod"
            )
        );
        let e = verify_plugins(&m, "windows-x86_64").unwrap_err();
        assert!(
            matches!(e.reason, RefusalReason::LibraryUnreadable { ref library, .. } if library == "lib/x.dll"),
            "{e}"
        );
        assert!(
            e.to_string()
                .starts_with("mod \"a\" plugin lib/x.dll cannot be read ("),
            "{e}"
        );
        let e = verify_plugins(&m, "macos-aarch64").unwrap_err();
        assert_eq!(
            e.to_string(),
            "mod \"a\" has no plugin library for macos-aarch64 (it provides: linux-x86_64, windows-x86_64); ask its author for a macos-aarch64 build"
        );
    }

    #[test]
    fn a_source_plugin_verifies_as_source_and_a_shipped_library_still_wins() {
        let tmp = tempfile::tempdir().unwrap();
        let text = "id = \"a\"\nversion = \"1.0.0\"\nname = \"A\"\nengine = \"*\"\ninterface = 2\n\
             [[plugin]]\nslot = \"ai\"\nfactory = \"ai\"\nbuild = \"my_ai\"\n\
             [plugin.library.windows-x86_64]\npath = \"lib/x.dll\"\nsha256 = \"{sha}\"\n"
            .replace("{sha}", EMPTY_SHA);
        let m = ModDir {
            root: tmp.path().to_path_buf(),
            manifest: Manifest::parse(&text, &tmp.path().join("mod.toml")).unwrap(),
        };
        let v = verify_plugins(&m, "linux-x86_64").unwrap();
        assert_eq!(
            v[0].binary,
            PluginBinary::Source {
                library: "my_ai".to_owned()
            }
        );
        // The windows build is shipped: it is hash checked (and missing here).
        let e = verify_plugins(&m, "windows-x86_64").unwrap_err();
        assert!(e.to_string().contains("lib/x.dll"), "{e}");
        let bad = text.replace("my_ai", "My-AI");
        let e = Manifest::parse(&bad, &tmp.path().join("mod.toml")).unwrap_err();
        assert!(e.to_string().contains("plugin[0].build"), "{e}");
    }
}
