//! Tests of the parent module.

use super::*;
use crate::cache::ReadMode;
use iron3d_nres::{NewEntry, NresWriter};
use iron3d_rsli::{Method, RsliBuilder};

fn p(s: &str) -> GamePath {
    GamePath::parse(s).unwrap()
}

fn texm() -> u32 {
    Family::texm().tag.value()
}

/// Writes an NRes archive of `(name, type_id, payload)` at `dir/name`.
fn nres(dir: &Path, name: &str, entries: &[(&str, u32, &[u8])]) -> PathBuf {
    let mut w = NresWriter::new();
    for (n, t, d) in entries {
        w.push(NewEntry::new(n.as_bytes(), *t, d.to_vec()).unwrap());
    }
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, w.finish().unwrap()).unwrap();
    path
}

fn rsli(dir: &Path, name: &str, entries: &[(&str, &[u8])]) -> PathBuf {
    let mut b = RsliBuilder::new();
    for (n, d) in entries {
        b.add(n, Method::Lzss, d.to_vec());
    }
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, b.build().unwrap()).unwrap();
    path
}

fn loose(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, data).unwrap();
    path
}

fn cache() -> ArchiveCache {
    ArchiveCache::new(ReadMode::Strict, 1 << 20)
}

/// The game directory with `Textures.lib` (GRASS.0, ROCK.0) and two mods under
/// `mods/<id>/data`, not mounted.
struct Setup {
    root: tempfile::TempDir,
}

impl Setup {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        nres(
            root.path(),
            "Textures.lib",
            &[
                ("GRASS.0", texm(), b"base grass"),
                ("ROCK.0", texm(), b"base rock"),
            ],
        );
        Self { root }
    }

    fn game(&self) -> &Path {
        self.root.path()
    }

    fn mod_dir(&self, id: &str) -> PathBuf {
        self.root.path().join("mods").join(id).join("data")
    }

    fn vfs(&self, mods: &[&str]) -> Vfs {
        let mut vfs = Vfs::new(self.game());
        for id in mods {
            vfs.mount(id, self.mod_dir(id));
        }
        vfs
    }
}

#[test]
fn an_entry_overridden_by_two_mods_comes_from_the_last_and_others_fall_through() {
    let s = Setup::new();
    // An RsLi archive may override NRes entries: an archive is an archive.
    rsli(
        &s.mod_dir("old-pack"),
        "TEXTURES.LIB",
        &[("GRASS.0", b"old grass")],
    );
    let hd = nres(
        &s.mod_dir("hd-textures"),
        "textures.lib",
        &[
            ("grass.0", texm(), b"hd grass"),
            ("SAND.0", texm(), b"hd sand"),
        ],
    );
    let cache = cache();
    let vfs = s.vfs(&["old-pack", "hd-textures"]);
    let lib = p("Textures.lib");
    assert_eq!(
        &*vfs
            .read_entry_as(&lib, b"GRASS.0", Family::texm(), &cache)
            .unwrap(),
        b"hd grass"
    );
    let r = vfs.resolve_entry(&lib, b"Grass.0", &cache).unwrap();
    assert_eq!(r.mount, "hd-textures");
    assert_eq!(
        r.source,
        EntrySource::Archive {
            path: hd.clone(),
            index: 0
        }
    );
    assert_eq!((r.name.as_slice(), r.attrs[0]), (&b"grass.0"[..], texm()));
    // Only in the base: falls through both mods.
    assert_eq!(
        &*vfs.read_entry(&lib, b"rock.0", &cache).unwrap(),
        b"base rock"
    );
    assert_eq!(
        vfs.resolve_entry(&lib, b"ROCK.0", &cache).unwrap().mount,
        "game"
    );
    // Only in a mod: new entries are entries too.
    assert_eq!(
        &*vfs.read_entry(&lib, b"sand.0", &cache).unwrap(),
        b"hd sand"
    );
    // Mount order decides, not the archive kind.
    let reversed = s.vfs(&["hd-textures", "old-pack"]);
    assert_eq!(
        &*reversed.read_entry(&lib, b"GRASS.0", &cache).unwrap(),
        b"old grass"
    );
    assert_eq!(
        vfs.entry_names(&lib, &cache).unwrap(),
        vec![b"GRASS.0".to_vec(), b"ROCK.0".to_vec(), b"SAND.0".to_vec()],
        "the base's directory order, then what the mods add"
    );
}

#[test]
fn a_typed_read_checks_the_tag_of_the_winning_archive_entry() {
    let s = Setup::new();
    let bad = nres(
        &s.mod_dir("bad-tags"),
        "Textures.lib",
        &[("GRASS.0", 0, b"untagged")],
    );
    let vfs = s.vfs(&["bad-tags"]);
    let e = vfs
        .read_entry_as(&p("textures.lib"), b"grass.0", Family::texm(), &cache())
        .unwrap_err();
    assert!(matches!(e, VfsError::TypeTag { .. }), "{e}");
    assert!(
        e.to_string().starts_with(&bad.display().to_string()),
        "names the mod's archive: {e}"
    );
}

#[test]
fn a_mod_archive_without_the_entry_lets_it_fall_through() {
    let s = Setup::new();
    nres(
        &s.mod_dir("sand"),
        "Textures.lib",
        &[("SAND.0", texm(), b"sand")],
    );
    let cache = cache();
    let vfs = s.vfs(&["sand"]);
    let lib = p("Textures.lib");
    assert_eq!(
        &*vfs.read_entry(&lib, b"GRASS.0", &cache).unwrap(),
        b"base grass"
    );
    let why = vfs.explain(&lib, Some(b"GRASS.0"), &cache).unwrap();
    assert_eq!((why.winner.as_str(), why.shadowed.len()), ("game", 0));
}

#[test]
fn a_directory_of_loose_entries_overrides_single_entries() {
    let s = Setup::new();
    let file = loose(
        &s.mod_dir("loose").join("textures.LIB"),
        "grass.0",
        b"loose grass",
    );
    let cache = cache();
    let vfs = s.vfs(&["loose"]);
    let lib = p("TEXTURES.lib");
    let r = vfs.resolve_entry(&lib, b"GRASS.0", &cache).unwrap();
    assert_eq!(
        (r.mount.as_str(), &r.source, r.name.as_slice(), r.attrs),
        (
            "loose",
            &EntrySource::Loose { path: file.clone() },
            &b"grass.0"[..],
            [0; 4]
        )
    );
    assert_eq!(
        &*vfs.read_entry(&lib, b"Grass.0", &cache).unwrap(),
        b"loose grass"
    );
    assert_eq!(
        &*vfs.read_entry(&lib, b"ROCK.0", &cache).unwrap(),
        b"base rock",
        "entries without a file fall through"
    );
    // A name that is not a file name is never looked for loose.
    loose(&s.mod_dir("loose"), "evil", b"x");
    assert!(matches!(
        vfs.read_entry(&lib, b"../evil", &cache),
        Err(VfsError::EntryMissing { .. })
    ));
    // The whole-file view ignores the directory: the base archive file.
    assert_eq!(vfs.resolve(&lib).unwrap().mount, "game");
}

/// PD-LOOSE-ENTRY-UNTAGGED: a loose entry has no type tag, so a typed read of it
/// skips the tag check, even in the strict profile, even where the entry it shadows
/// carries the family's tag.
#[test]
fn pd_loose_entry_untagged_typed_reads_skip_the_tag_check() {
    let s = Setup::new();
    loose(
        &s.mod_dir("loose").join("Textures.lib"),
        "GRASS.0",
        b"not a TEXM at all",
    );
    let strict = cache();
    let vfs = s.vfs(&["loose"]);
    assert_eq!(
        &*vfs
            .read_entry_as(&p("Textures.lib"), b"GRASS.0", Family::wear(), &strict)
            .unwrap(),
        b"not a TEXM at all"
    );
    let compat = ArchiveCache::new(ReadMode::Compatible, 1 << 20);
    vfs.read_entry_as(&p("Textures.lib"), b"GRASS.0", Family::wear(), &compat)
        .unwrap();
    assert!(compat.tag_diagnostics().is_empty(), "nothing to report");
    // The same read of the base's tagged entry is checked.
    assert!(matches!(
        Vfs::new(s.game()).read_entry_as(&p("Textures.lib"), b"GRASS.0", Family::wear(), &strict),
        Err(VfsError::TypeTag { .. })
    ));
}

#[test]
fn explain_names_the_winner_its_file_and_what_it_shadows() {
    let s = Setup::new();
    nres(
        &s.mod_dir("old-pack"),
        "Textures.lib",
        &[("GRASS.0", texm(), b"old")],
    );
    nres(
        &s.mod_dir("hd-textures"),
        "Textures.lib",
        &[("GRASS.0", texm(), b"hd")],
    );
    std::fs::write(s.game().join("Iron_3D.ini"), b"game").unwrap();
    loose(&s.mod_dir("old-pack"), "IRON_3D.INI", b"mod");
    let root = s.game().display().to_string();
    let cache = cache();
    let vfs = s.vfs(&["old-pack", "hd-textures"]);
    let why = vfs
        .explain(&p("Textures.lib"), Some(b"GRASS.0"), &cache)
        .unwrap();
    assert_eq!(
        why.to_string(),
        format!(
            "Textures.lib:GRASS.0 comes from mod \"hd-textures\" ({root}/mods/hd-textures/data/Textures.lib); it shadows mod \"old-pack\", game"
        )
    );
    assert_eq!(why.shadowed, ["old-pack", "game"]);
    assert_eq!(
        vfs.explain(&p("Textures.lib"), Some(b"ROCK.0"), &cache)
            .unwrap()
            .to_string(),
        format!("Textures.lib:ROCK.0 comes from game ({root}/Textures.lib)")
    );
    assert_eq!(
        vfs.explain(&p("iron_3d.ini"), None, &cache)
            .unwrap()
            .to_string(),
        format!(
            "iron_3d.ini comes from mod \"old-pack\" ({root}/mods/old-pack/data/IRON_3D.INI); it shadows game"
        )
    );
    // The whole archive file: the topmost file wins, as `resolve` says.
    let whole = vfs.explain(&p("Textures.lib"), None, &cache).unwrap();
    assert_eq!(
        (whole.winner.as_str(), whole.shadowed.clone()),
        (
            "hd-textures",
            vec!["old-pack".to_owned(), "game".to_owned()]
        )
    );
    assert!(matches!(
        vfs.explain(&p("Textures.lib"), Some(b"NONE.0"), &cache),
        Err(VfsError::EntryMissing { .. })
    ));
    assert!(matches!(
        vfs.explain(&p("none.lib"), None, &cache),
        Err(VfsError::FileMissing { .. })
    ));
}

#[test]
fn conflicts_list_files_and_entries_two_mounts_provide() {
    let s = Setup::new();
    std::fs::write(s.game().join("Iron_3D.ini"), b"game").unwrap();
    std::fs::write(s.game().join("only_game.txt"), b"g").unwrap();
    nres(
        &s.mod_dir("old-pack"),
        "TEXTURES.LIB",
        &[("grass.0", texm(), b"old"), ("SAND.0", texm(), b"old")],
    );
    loose(&s.mod_dir("old-pack"), "iron_3d.ini", b"mod");
    let hd = s.mod_dir("hd-textures").join("Textures.lib");
    loose(&hd, "GRASS.0", b"hd");
    loose(&hd, "rock.0", b"hd");
    loose(&hd, "new.0", b"hd");
    loose(&s.mod_dir("hd-textures"), "readme.txt", b"r");
    // Deeper than the walk goes: not reported.
    let mut deep_game = s.game().to_owned();
    let mut deep_mod = s.mod_dir("hd-textures");
    for _ in 0..MAX_WALK_DEPTH + 2 {
        deep_game.push("d");
        deep_mod.push("d");
    }
    loose(&deep_game, "deep.txt", b"1");
    loose(&deep_mod, "deep.txt", b"2");
    #[cfg(unix)]
    std::os::unix::fs::symlink(s.game(), s.mod_dir("old-pack").join("loop")).unwrap();

    let vfs = s.vfs(&["old-pack", "hd-textures"]);
    let c = vfs.conflicts(&cache()).unwrap();
    let shown: Vec<String> = c.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "Iron_3D.ini: game, mod \"old-pack\" (the last wins)",
            "Textures.lib:GRASS.0: game, mod \"old-pack\", mod \"hd-textures\" (the last wins)",
            "Textures.lib:ROCK.0: game, mod \"hd-textures\" (the last wins)",
        ]
    );
    assert_eq!(
        c[1],
        Conflict {
            path: "Textures.lib".into(),
            entry: Some("GRASS.0".into()),
            providers: vec!["game".into(), "old-pack".into(), "hd-textures".into()],
        }
    );
    // The last provider is the one resolution picks.
    let cache = cache();
    for conflict in &c {
        let path = p(&conflict.path);
        let winner = match &conflict.entry {
            Some(e) => {
                vfs.resolve_entry(&path, e.as_bytes(), &cache)
                    .unwrap()
                    .mount
            }
            None => vfs.resolve(&path).unwrap().mount,
        };
        assert_eq!(Some(&winner), conflict.providers.last());
    }
    assert!(Vfs::new(s.game()).conflicts(&cache).unwrap().is_empty());
}

#[test]
fn removing_a_mod_restores_the_base_entry() {
    let s = Setup::new();
    nres(
        &s.mod_dir("hd-textures"),
        "Textures.lib",
        &[("GRASS.0", texm(), b"hd grass")],
    );
    let cache = cache();
    let lib = p("Textures.lib");
    let with = s.vfs(&["hd-textures"]);
    assert_eq!(
        &*with.read_entry(&lib, b"GRASS.0", &cache).unwrap(),
        b"hd grass"
    );
    let without = s.vfs(&[]);
    assert_eq!(
        &*without.read_entry(&lib, b"GRASS.0", &cache).unwrap(),
        b"base grass",
        "same archive cache, the base entry again"
    );
    assert_eq!(
        without
            .resolve_entry(&lib, b"GRASS.0", &cache)
            .unwrap()
            .mount,
        "game"
    );
}

#[test]
fn file_missing_and_entry_missing_stay_apart() {
    let s = Setup::new();
    loose(&s.mod_dir("loose").join("Only.lib"), "a.0", b"a");
    let cache = cache();
    let vfs = s.vfs(&["loose"]);
    let e = vfs.read_entry(&p("none.lib"), b"x", &cache).unwrap_err();
    assert!(
        matches!(&e, VfsError::FileMissing { path, searched } if path == "none.lib" && searched.len() == 2),
        "{e}"
    );
    let e = vfs
        .read_entry(&p("Textures.lib"), b"nope.0", &cache)
        .unwrap_err();
    assert!(
        matches!(&e, VfsError::EntryMissing { entry, .. } if entry == "nope.0"),
        "{e}"
    );
    // An archive path only a directory provides: its entries or EntryMissing.
    assert_eq!(
        &*vfs.read_entry(&p("only.lib"), b"A.0", &cache).unwrap(),
        b"a"
    );
    let e = vfs.read_entry(&p("only.lib"), b"b.0", &cache).unwrap_err();
    assert!(e.to_string().contains("Only.lib"), "{e}");
    assert!(matches!(e, VfsError::EntryMissing { .. }));

    // The base alone answers exactly what the archive cache answers.
    let base = Vfs::new(s.game());
    let real = s.game().join("Textures.lib");
    let ours = base
        .read_entry(&p("textures.lib"), b"nope.0", &cache)
        .unwrap_err();
    let theirs = cache.read(&real, b"nope.0").unwrap_err();
    assert_eq!(ours.to_string(), theirs.to_string());
    assert_eq!(
        base.resolve(&p("x.lib")).unwrap_err().to_string(),
        base.read_entry(&p("x.lib"), b"e", &cache)
            .unwrap_err()
            .to_string()
    );
}

#[test]
fn a_mod_archive_that_is_not_an_archive_is_an_error() {
    let s = Setup::new();
    loose(&s.mod_dir("junk"), "Textures.lib", b"JUNKJUNK");
    let e = s
        .vfs(&["junk"])
        .read_entry(&p("Textures.lib"), b"GRASS.0", &cache())
        .unwrap_err();
    assert!(matches!(e, VfsError::NotAnArchive { .. }), "{e}");
}

#[test]
fn entry_lookups_are_memoised_until_refresh() {
    let s = Setup::new();
    nres(
        &s.mod_dir("hd-textures"),
        "Textures.lib",
        &[("GRASS.0", texm(), b"hd grass")],
    );
    let cache = cache();
    let vfs = s.vfs(&["hd-textures"]);
    let lib = p("Textures.lib");
    for spelling in [&b"GRASS.0"[..], b"grass.0", b"Grass.0"] {
        vfs.resolve_entry(&lib, spelling, &cache).unwrap();
    }
    assert!(vfs.resolve_entry(&lib, b"late.0", &cache).is_err());
    assert!(vfs.resolve_entry(&lib, b"late.0", &cache).is_err());
    let st = vfs.stats();
    assert_eq!(
        (st.entry_resolves, st.entry_memo_hits, st.file_checks),
        (5, 3, 2),
        "the archive path checked once per mount: {st:?}"
    );
    // What the lookups read is part of the fingerprint set.
    let files: Vec<(String, String)> = vfs
        .resolved_files()
        .into_iter()
        .map(|(m, rel, _)| (m, rel))
        .collect();
    assert_eq!(
        files,
        [
            ("game".to_owned(), "Textures.lib".to_owned()),
            ("hd-textures".to_owned(), "Textures.lib".to_owned())
        ]
    );
    loose(&s.mod_dir("late").join("textures.lib"), "LATE.0", b"late");
    let mut vfs = vfs;
    vfs.mount("late", s.mod_dir("late"));
    assert_eq!(&*vfs.read_entry(&lib, b"late.0", &cache).unwrap(), b"late");
    std::fs::write(s.mod_dir("late").join("textures.lib").join("other.0"), b"o").unwrap();
    assert!(vfs.read_entry(&lib, b"other.0", &cache).is_err());
    assert!(
        vfs.read_entry(&lib, b"other.0", &cache).is_err(),
        "remembered"
    );
    vfs.refresh();
    assert_eq!(&*vfs.read_entry(&lib, b"other.0", &cache).unwrap(), b"o");
}

#[test]
fn an_entry_gone_from_a_replaced_mod_archive_falls_through() {
    let s = Setup::new();
    let modded = nres(
        &s.mod_dir("hd-textures"),
        "Textures.lib",
        &[("GRASS.0", texm(), b"hd grass")],
    );
    let cache = cache();
    let vfs = s.vfs(&["hd-textures"]);
    let lib = p("Textures.lib");
    assert_eq!(
        &*vfs.read_entry(&lib, b"GRASS.0", &cache).unwrap(),
        b"hd grass"
    );
    nres(
        &s.mod_dir("hd-textures"),
        "Textures.lib",
        &[("SAND.0", texm(), b"sand, and a longer archive")],
    );
    assert_eq!(
        &*vfs.read_entry(&lib, b"GRASS.0", &cache).unwrap(),
        b"base grass"
    );
    assert_eq!(
        &*vfs.read_entry(&lib, b"SAND.0", &cache).unwrap(),
        b"sand, and a longer archive"
    );
    assert!(modded.exists());
}

#[test]
fn a_loose_png_stands_for_a_texture_entry() {
    let game = tempfile::tempdir().unwrap();
    let modd = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(modd.path().join("Textures.lib")).unwrap();
    let png_path = modd.path().join("Textures.lib").join("GRASS.0.png");
    {
        let f = std::fs::File::create(&png_path).unwrap();
        let mut enc = png::Encoder::new(std::io::BufWriter::new(f), 4, 2);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().unwrap();
        let px: Vec<u8> = (0..8u8).flat_map(|i| [i * 30, 200, 7]).collect();
        w.write_image_data(&px).unwrap();
    }
    let mut vfs = Vfs::new(game.path());
    vfs.mount("mod:pack", modd.path());
    let cache = ArchiveCache::new(crate::ReadMode::Strict, 1 << 20);
    let a = GamePath::parse("textures.lib").unwrap();
    let bytes = vfs.read_entry(&a, b"grass.0", &cache).unwrap();
    let t = iron3d_texm::Texm::parse(&bytes).unwrap();
    assert_eq!((t.width(), t.height(), t.mip_count()), (4, 2, 3));
    assert_eq!(t.format(), iron3d_texm::PixelFormat::Argb8888);
    let level = t.decode_level(0).unwrap();
    assert_eq!(level.pixel(1, 0), Some([30, 200, 7, 255]));
    assert_eq!(level.pixel(3, 1), Some([210, 200, 7, 255]));
    // Listed under the entry's name; a broken PNG is a located error.
    let names = vfs.entry_names(&a, &cache).unwrap();
    assert_eq!(names, vec![b"GRASS.0".to_vec()]);
    std::fs::write(&png_path, b"not a png").unwrap();
    vfs.refresh();
    let e = vfs
        .read_entry(&a, b"GRASS.0", &cache)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("GRASS.0.png") && e.contains("loose PNG texture for entry 'GRASS.0'"),
        "{e}"
    );
}
