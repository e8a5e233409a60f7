//! Data overlays through [`GameData`]: a mod's archive or its directory of loose entries
//! overrides single entries of the game's archives for every loader (entries, typed
//! entries, probes, materials, the mission load and its fingerprint).

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]
#![allow(
    clippy::result_large_err,
    reason = "the crate's MissionError is its actionable chain, returned as is"
)]

mod common;

use iron3d_kernel::{Kernel, KernelConfig, ManualTimeSource};
use iron3d_mission::{GameData, data_fingerprint, load_mission};
use iron3d_nres::{Family, NewEntry, NresWriter};
use iron3d_unitdat::{Presence, ResourceProbe};
use iron3d_vfs::{EntrySource, GamePath, VfsError};
use std::path::Path;

const TEXTURES: &[u8] = b"Textures.lib";
const MATERIALS: &[u8] = b"Material.lib";

/// An NRes archive of `(name, [type_id, attr1, attr2, attr3], payload)` at `path`.
fn write_nres(path: &Path, entries: &[(&[u8], [u32; 4], &[u8])]) {
    let mut w = NresWriter::new();
    for (name, [t, a1, a2, a3], data) in entries {
        w.push(
            NewEntry::new(name, *t, data.to_vec())
                .unwrap()
                .with_attrs(*a1, *a2, *a3),
        );
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, w.finish().unwrap()).unwrap();
}

fn names(data: &GameData<'_>, archive: &str) -> Vec<Vec<u8>> {
    data.vfs
        .entry_names(&GamePath::parse(archive).unwrap(), data.cache)
        .unwrap()
}

/// Bytes and attributes of an entry of the unmodded game.
fn base_entry(data: &GameData<'_>, archive: &[u8], name: &[u8]) -> (Vec<u8>, [u32; 4]) {
    let r = data.resolve_entry(archive, name).unwrap();
    assert_eq!(r.mount, "game");
    (data.entry(archive, name).unwrap().to_vec(), r.attrs)
}

#[test]
fn a_mod_archive_overrides_single_entries_for_every_loader() {
    let dir = common::demo();
    let mods = tempfile::tempdir().unwrap();
    let mut files = common::game_files(dir.path());
    let (a, b, b_tex, x, y, y_mat) = {
        let data = files.data();
        let tex = names(&data, "Textures.lib");
        let mats = names(&data, "Material.lib");
        let (a, b) = (tex[0].clone(), tex[1].clone());
        let (x, y) = (mats[0].clone(), mats[1].clone());
        let b_tex = base_entry(&data, TEXTURES, &b);
        let y_mat = base_entry(&data, MATERIALS, &y);
        assert_ne!(base_entry(&data, TEXTURES, &a).0, b_tex.0);
        (a, b, b_tex, x, y, y_mat)
    };
    // The mod: texture A is B's picture, material X is Y's MAT0 (attributes kept, so
    // the MAT0 version travels with it).
    let hd = mods.path().join("hd");
    write_nres(&hd.join("textures.LIB"), &[(&a, b_tex.1, &b_tex.0)]);
    write_nres(&hd.join("MATERIAL.lib"), &[(&x, y_mat.1, &y_mat.0)]);
    files.vfs.mount("hd", &hd);
    let data = files.data();

    assert_eq!(&*data.entry(TEXTURES, &a).unwrap(), b_tex.0.as_slice());
    assert_eq!(
        &*data.entry_as(TEXTURES, &a, Family::texm()).unwrap(),
        b_tex.0.as_slice()
    );
    assert_eq!(
        data.probe_as(TEXTURES, &a, Family::texm()).unwrap(),
        Presence::Present
    );
    assert_eq!(data.resolve_entry(TEXTURES, &a).unwrap().mount, "hd");
    // Entries the mod lacks fall through.
    assert_eq!(&*data.entry(TEXTURES, &b).unwrap(), b_tex.0.as_slice());
    assert_eq!(data.resolve_entry(TEXTURES, &b).unwrap().mount, "game");
    assert_eq!(
        data.probe(TEXTURES, b"NO_SUCH.TEX").unwrap(),
        Presence::EntryMissing
    );
    assert_eq!(
        data.probe(b"no_such.lib", &a).unwrap(),
        Presence::ArchiveMissing
    );

    // Materials: the named MAT0 comes from the mod, with the mod entry's attributes.
    let found = data
        .resolve_material(MATERIALS, &x.to_ascii_lowercase())
        .unwrap()
        .unwrap();
    assert_eq!(
        (found.entry.mount.as_str(), found.entry.attrs),
        ("hd", y_mat.1)
    );
    assert_eq!(
        &*data
            .entry_as(MATERIALS, &found.entry.name, Family::mat0())
            .unwrap(),
        y_mat.0.as_slice()
    );
    let fallback = data
        .resolve_material(MATERIALS, b"NO SUCH MATERIAL")
        .unwrap()
        .unwrap();
    assert_ne!(fallback.rule, iron3d_material::FallbackRule::Named);
    assert!(
        data.resolve_material(b"none.lib", &y).is_err(),
        "no material archive at all"
    );

    // The mission loads with the mod, and its fingerprint names the mod's archive.
    let mut kernel =
        Kernel::new(KernelConfig::default(), Box::new(ManualTimeSource::new())).unwrap();
    load_mission(&mut kernel, &data, "DEMO1", None).unwrap();
    let fp = data_fingerprint(data.vfs).unwrap();
    assert!(fp.contains_key("hd:textures.LIB"), "{:?}", fp.keys());
    assert!(fp.contains_key("game:Textures.lib"), "{:?}", fp.keys());
}

#[test]
fn loose_entries_are_present_untagged_and_wrong_tags_in_mod_archives_are_errors() {
    let dir = common::demo();
    let mods = tempfile::tempdir().unwrap();
    let mut files = common::game_files(dir.path());
    let a = names(&files.data(), "Textures.lib")[0].clone();
    let loose = mods.path().join("loose").join("Textures.lib");
    std::fs::create_dir_all(&loose).unwrap();
    let file = loose.join(String::from_utf8(a.to_ascii_lowercase()).unwrap());
    std::fs::write(&file, b"loose bytes, no tag").unwrap();
    files.vfs.mount("loose", mods.path().join("loose"));
    {
        let data = files.data();
        // PD-LOOSE-ENTRY-UNTAGGED: present, read as a texture without a tag check.
        assert_eq!(
            data.probe_as(TEXTURES, &a, Family::texm()).unwrap(),
            Presence::Present
        );
        assert_eq!(
            &*data.entry_as(TEXTURES, &a, Family::texm()).unwrap(),
            b"loose bytes, no tag"
        );
        assert_eq!(
            data.resolve_entry(TEXTURES, &a).unwrap().source,
            EntrySource::Loose { path: file }
        );
    }
    // A mod archive entry with the wrong tag is the strict profile's error.
    let bad = mods.path().join("bad");
    write_nres(&bad.join("Textures.lib"), &[(&a, [0; 4], b"untagged")]);
    files.vfs.mount("bad", &bad);
    let data = files.data();
    let e = data.probe_as(TEXTURES, &a, Family::texm()).unwrap_err();
    assert!(matches!(e, VfsError::TypeTag { .. }), "{e}");
    let why = data
        .vfs
        .explain(
            &GamePath::parse("TEXTURES.LIB").unwrap(),
            Some(&a),
            data.cache,
        )
        .unwrap();
    assert_eq!(
        (why.winner.as_str(), why.shadowed.clone()),
        ("bad", vec!["loose".to_owned(), "game".to_owned()])
    );
}

#[test]
fn archive_health_sees_prototypes_a_mod_adds() {
    let dir = common::demo();
    let mods = tempfile::tempdir().unwrap();
    let mut files = common::game_files(dir.path());
    let before = iron3d_mission::archive_health(&files.data()).unwrap();
    let keys = names(&files.data(), "objects.rlb");
    // A mod's objects.rlb adds one key (a copy of the first prototype).
    let (bytes, attrs) = base_entry(&files.data(), b"objects.rlb", &keys[0]);
    write_nres(
        &mods.path().join("objects.rlb"),
        &[(b"MODDED_PROTO", attrs, &bytes)],
    );
    files.vfs.mount("protos", mods.path());
    let after = iron3d_mission::archive_health(&files.data()).unwrap();
    assert_eq!(
        after.counts.prototype_requests,
        before.counts.prototype_requests + 1,
        "one more key walked"
    );
}
