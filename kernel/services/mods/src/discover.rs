//! Finding installed mods: every `<root>/<folder>/mod.toml`, each mod's files checked
//! (PD-MODS-REGULAR-FILES), unfinished installs of dead processes swept
//! (PD-MODS-STALE-INSTALL).

use crate::ModError;
use crate::files::{ModTree, sweep_stale_installs};
use crate::manifest::Manifest;
use crate::refusal::{Refusal, RefusalReason};
use crate::util::shown_name;
use std::fs;
use std::path::{Path, PathBuf};

/// The largest `mod.toml` read (1 MiB).
pub const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// An installed mod: its folder and its parsed manifest. From [`discover`], the folder
/// name equals `manifest.id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModDir {
    /// The mod's folder (`<mods root>/<id>`).
    pub root: PathBuf,
    /// Its manifest.
    pub manifest: Manifest,
}

impl ModDir {
    /// Reads and parses `<root>/mod.toml` (a regular file inside the folder,
    /// PD-MODS-REGULAR-FILES).
    ///
    /// # Errors
    /// [`ModError::Io`] / [`ModError::TooLarge`] / [`ModError::NotRegular`] /
    /// [`ModError::LinkOutside`] when the file cannot be read, [`ModError::Invalid`] when
    /// it is not UTF-8, and the errors of [`Manifest::parse`].
    pub fn open(root: &Path) -> Result<ModDir, ModError> {
        let file = root.join("mod.toml");
        // A folder that cannot be resolved is reported as its manifest being unreadable.
        let tree = ModTree::new(root).map_err(|e| match e {
            ModError::Io { action, source, .. } => ModError::Io {
                path: file.clone(),
                action,
                source,
            },
            other => other,
        })?;
        let bytes = tree.read_capped(&file, MAX_MANIFEST_BYTES)?;
        let text = std::str::from_utf8(&bytes).map_err(|e| ModError::Invalid {
            file: file.clone(),
            line: 1,
            column: 1,
            field: "file".to_owned(),
            message: format!(
                "is not UTF-8 text (invalid byte at offset {})",
                e.valid_up_to()
            ),
        })?;
        Ok(ModDir {
            root: root.to_path_buf(),
            manifest: Manifest::parse(text, &file)?,
        })
    }

    /// Checks every file of the mod's data overlays the way they will be read
    /// (PD-MODS-REGULAR-FILES): only regular files and folders, links only to places
    /// inside the mod folder, bounded depth and entry count. A missing overlay folder is
    /// fine (it provides nothing).
    ///
    /// # Errors
    /// The first offending file: [`ModError::NotRegular`], [`ModError::LinkOutside`], or
    /// [`ModError::Io`] (unreadable, too deep, a link loop, too many entries).
    pub fn check_files(&self) -> Result<(), ModError> {
        let tree = ModTree::new(&self.root)?;
        for overlay in &self.manifest.overlays {
            let dir = overlay.resolve(&self.root);
            if fs::symlink_metadata(&dir).is_err() {
                continue;
            }
            tree.files(&dir)?;
        }
        Ok(())
    }
}

/// What [`discover`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Discovery {
    /// Mods with a valid manifest whose id equals their folder name, sorted by folder.
    pub mods: Vec<ModDir>,
    /// Folders that are not usable mods (broken or missing manifest, id ≠ folder name),
    /// sorted by folder.
    pub broken: Vec<Refusal>,
}

impl Discovery {
    /// The installed mod with id `id`, if any.
    #[must_use]
    pub fn get(&self, id: &str) -> Option<&ModDir> {
        self.mods.iter().find(|m| m.manifest.id == id)
    }

    /// [`crate::resolve()`] over [`Discovery::mods`], except that an enabled id whose folder
    /// is broken is refused with the folder's own refusal (the parse error, the id
    /// mismatch) instead of [`RefusalReason::NotFound`]. `Resolution::order` indexes
    /// [`Discovery::mods`].
    #[must_use]
    pub fn resolve(&self, requested: &[String], env: &crate::Environment) -> crate::Resolution {
        let mut r = crate::resolve(&self.mods, requested, env);
        for refusal in &mut r.refused {
            if refusal.reason == RefusalReason::NotFound
                && let Some(broken) = self.broken.iter().find(|b| b.id == refusal.id)
            {
                refusal.clone_from(broken);
            }
        }
        r
    }
}

/// Reads every `<root>/<folder>/mod.toml`, folders in sorted order. Folders whose name
/// starts with `.` (such as unfinished `.install-*` folders) and plain files are
/// skipped. A folder without a readable, valid manifest, whose manifest declares
/// another id, or whose overlays hold a file that may not be read
/// ([`ModDir::check_files`]), becomes a refusal in [`Discovery::broken`]; it never stops
/// the others. A missing `root` means no mods are installed.
///
/// First, unfinished installs of processes that are gone are removed from `root`
/// (PD-MODS-STALE-INSTALL).
#[must_use]
pub fn discover(root: &Path) -> Discovery {
    let mut out = Discovery::default();
    sweep_stale_installs(root);
    let entries = match fs::read_dir(root) {
        Ok(entries) => entries,
        Err(e) => {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!(root = %root.display(), error = %e, "cannot list the mods folder");
            }
            return out;
        }
    };
    let mut folders: Vec<(String, PathBuf)> = Vec::new();
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                tracing::warn!(root = %root.display(), error = %e, "cannot list the mods folder");
                continue;
            }
        };
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        // Follows symlinks: a linked mod folder is a mod folder.
        if fs::metadata(entry.path()).is_ok_and(|m| m.is_dir()) {
            folders.push((name, entry.path()));
        }
    }
    folders.sort();
    let shown_root = root
        .file_name()
        .map_or_else(|| "mods".to_owned(), |n| n.to_string_lossy().into_owned());
    let shown_root = shown_name(&shown_root);
    for (name, path) in folders {
        let dir = format!("{shown_root}/{}", shown_name(&name));
        if !path.join("mod.toml").exists() {
            out.broken.push(Refusal::new(
                name,
                RefusalReason::BrokenManifest {
                    dir,
                    error: "there is no mod.toml in it".to_owned(),
                },
            ));
            continue;
        }
        match ModDir::open(&path) {
            Err(e) => out.broken.push(Refusal::new(
                name,
                RefusalReason::BrokenManifest {
                    dir,
                    error: error_chain(&e),
                },
            )),
            Ok(m) if m.manifest.id != name => out.broken.push(Refusal::new(
                name,
                RefusalReason::IdMismatch {
                    dir,
                    declared: m.manifest.id,
                },
            )),
            Ok(m) => match m.check_files() {
                Ok(()) => out.mods.push(m),
                Err(e) => out.broken.push(Refusal::new(
                    name,
                    RefusalReason::BrokenFiles {
                        dir,
                        error: error_chain(&e),
                    },
                )),
            },
        }
    }
    out
}

/// The refusal of `m` when one of its files cannot be read safely (for the launcher: a
/// file changed after [`discover`] checked it).
#[must_use]
pub fn broken_files(m: &ModDir, e: &ModError) -> Refusal {
    let folder = m.root.file_name().map_or_else(
        || m.manifest.id.clone(),
        |n| n.to_string_lossy().into_owned(),
    );
    let parent = m
        .root
        .parent()
        .and_then(Path::file_name)
        .map_or_else(|| "mods".to_owned(), |n| n.to_string_lossy().into_owned());
    Refusal::new(
        m.manifest.id.clone(),
        RefusalReason::BrokenFiles {
            dir: format!("{}/{}", shown_name(&parent), shown_name(&folder)),
            error: error_chain(e),
        },
    )
}

/// `e` and its sources joined with `: `, safe to print ([`crate::util::escaped`]).
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(inner) = source {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        source = inner.source();
    }
    crate::util::escaped(&s).into_owned()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
pub(crate) mod tests {
    use super::*;

    /// Writes `<root>/<folder>/mod.toml` with a minimal manifest for `id` plus `extra`.
    pub(crate) fn write_mod(root: &Path, folder: &str, id: &str, version: &str, extra: &str) {
        let dir = root.join(folder);
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("mod.toml"),
            format!(
                "id = \"{id}\"\nversion = \"{version}\"\nname = \"{id}\"\nengine = \"*\"\n{extra}"
            ),
        )
        .unwrap();
    }

    #[test]
    fn finds_mods_sorted_and_reports_broken_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("mods");
        write_mod(&root, "zeta", "zeta", "1.0.0", "");
        write_mod(&root, "alpha", "alpha", "2.0.0", "");
        write_mod(&root, "wrong", "right", "1.0.0", "");
        write_mod(&root, "bad", "bad", "1.0.0", "colour = 1\n");
        write_mod(&root, ".install-1234", "x", "1.0.0", "");
        fs::create_dir_all(root.join("empty")).unwrap();
        fs::write(root.join("README.txt"), "not a mod").unwrap();

        let d = discover(&root);
        let ids: Vec<_> = d.mods.iter().map(|m| m.manifest.id.as_str()).collect();
        assert_eq!(ids, ["alpha", "zeta"]);
        assert_eq!(d.mods[0].root, root.join("alpha"));
        assert!(d.get("zeta").is_some() && d.get("wrong").is_none());
        let broken: Vec<String> = d.broken.iter().map(ToString::to_string).collect();
        assert_eq!(broken.len(), 3, "{broken:#?}");
        let bad_file = root.join("bad").join("mod.toml");
        assert!(
            broken[0].starts_with(&format!(
                "mod in mods/bad is broken: {}:5:1: unknown field `colour`",
                bad_file.display()
            )),
            "{}",
            broken[0]
        );
        assert_eq!(
            broken[1],
            "mod in mods/empty is broken: there is no mod.toml in it"
        );
        assert_eq!(
            broken[2],
            "mod in mods/wrong declares id \"right\"; rename the folder to right"
        );
        assert_eq!(d.broken[2].id, "wrong");
    }

    #[test]
    fn resolving_a_discovery_explains_enabled_broken_folders() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("mods");
        write_mod(&root, "good", "good", "1.0.0", "");
        write_mod(&root, "wrong", "right", "1.0.0", "");
        let d = discover(&root);
        let env = crate::Environment {
            engine: semver::Version::new(0, 1, 0),
            interface_major: 2,
            interface_minor: 0,
            platform: "linux-x86_64".into(),
        };
        let requested = ["wrong", "good", "nowhere"].map(String::from);
        let r = d.resolve(&requested, &env);
        assert_eq!(r.ids(&d.mods), ["good"]);
        let refused: Vec<String> = r.refused.iter().map(ToString::to_string).collect();
        assert_eq!(
            refused,
            [
                "mod in mods/wrong declares id \"right\"; rename the folder to right",
                "mod \"nowhere\" is enabled but not installed: no mods/nowhere/mod.toml; install it or run `iron3d mods disable nowhere`",
            ]
        );
    }

    #[test]
    fn missing_root_is_no_mods() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(discover(&tmp.path().join("nope")), Discovery::default());
    }

    #[test]
    fn oversized_and_non_utf8_manifests_are_broken() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("mods");
        fs::create_dir_all(root.join("big")).unwrap();
        fs::write(
            root.join("big/mod.toml"),
            vec![b'#'; (MAX_MANIFEST_BYTES + 1) as usize],
        )
        .unwrap();
        fs::create_dir_all(root.join("bin")).unwrap();
        fs::write(root.join("bin/mod.toml"), b"id = \"\xff\"").unwrap();
        let d = discover(&root);
        assert!(d.mods.is_empty());
        assert_eq!(d.broken.len(), 2);
        assert!(
            d.broken[0].to_string().contains("more than the"),
            "{}",
            d.broken[0]
        );
        assert!(
            d.broken[1].to_string().contains("not UTF-8"),
            "{}",
            d.broken[1]
        );
    }

    #[test]
    fn a_sparse_100_mb_manifest_is_reported_with_its_real_size() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("mods");
        fs::create_dir_all(root.join("huge")).unwrap();
        fs::File::create(root.join("huge/mod.toml"))
            .unwrap()
            .set_len(100_000_000)
            .unwrap();
        let d = discover(&root);
        let text = d.broken[0].to_string();
        assert!(
            text.contains("is 100000000 bytes, more than the 1048576 bytes accepted"),
            "{text}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn special_files_and_links_leaving_the_mod_break_only_that_mod() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("mods");
        let overlay = "[[overlay]]\npath = \"data\"\n";
        for id in ["fine", "zero", "pipe", "etc", "outfile"] {
            write_mod(&root, id, id, "1.0.0", overlay);
            fs::create_dir_all(root.join(id).join("data")).unwrap();
            fs::write(root.join(id).join("data/a.txt"), "a").unwrap();
        }
        fs::create_dir_all(root.join("fifo-manifest")).unwrap();
        let mkfifo = |p: &Path| {
            let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: a valid NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        };
        mkfifo(&root.join("fifo-manifest/mod.toml"));
        symlink("/dev/zero", root.join("zero/data/Behavior.ini")).unwrap();
        mkfifo(&root.join("pipe/data/b.txt"));
        fs::remove_dir_all(root.join("etc/data")).unwrap();
        symlink("/etc", root.join("etc/data")).unwrap();
        fs::write(tmp.path().join("secret.txt"), "s").unwrap();
        symlink(
            tmp.path().join("secret.txt"),
            root.join("outfile/data/s.txt"),
        )
        .unwrap();
        // A link inside the mod is fine.
        symlink("a.txt", root.join("fine/data/b.txt")).unwrap();

        let d = discover(&root);
        let ids: Vec<_> = d.mods.iter().map(|m| m.manifest.id.as_str()).collect();
        assert_eq!(ids, ["fine"]);
        let broken: Vec<String> = d.broken.iter().map(ToString::to_string).collect();
        let find = |id: &str| {
            broken
                .iter()
                .find(|b| b.starts_with(&format!("mod in mods/{id} is broken: ")))
                .unwrap_or_else(|| panic!("{id}: {broken:#?}"))
                .clone()
        };
        assert!(
            find("etc").contains("data: leads outside the mod folder through a link (to /etc)"),
            "{broken:#?}"
        );
        assert!(
            find("zero").contains(
                "Behavior.ini: leads outside the mod folder through a link (to /dev/zero)"
            ),
            "{broken:#?}"
        );
        assert!(
            find("outfile").contains("s.txt: leads outside the mod folder"),
            "{broken:#?}"
        );
        assert!(
            find("pipe").contains("b.txt: is a FIFO (named pipe), not a regular file"),
            "{broken:#?}"
        );
        assert!(
            find("fifo-manifest").contains("mod.toml: is a FIFO (named pipe), not a regular file"),
            "{broken:#?}"
        );
    }

    #[test]
    fn folder_names_with_escape_codes_are_shown_escaped() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("mods");
        let evil = "\u{1b}[2J\u{1b}[31mevil";
        fs::create_dir_all(root.join(evil)).unwrap();
        let d = discover(&root);
        let text = d.broken[0].to_string();
        assert_eq!(
            text,
            "mod in mods/\\u{1b}[2J\\u{1b}[31mevil is broken: there is no mod.toml in it"
        );
    }
}
