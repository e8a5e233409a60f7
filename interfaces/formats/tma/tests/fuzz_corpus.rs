//! Runs the checks of the `tma` fuzz target over seed missions built in code by the
//! writer (no binary seed is committed; set `IRON3D_TMA_SEED_DIR=<dir>` to write them
//! there for `cargo fuzz run tma <dir>`), and replays every file of `fuzz/corpus/tma/`
//! (minimised crash reproducers, if any) so each saved input stays a regression test.

use iron3d_tma::fuzz_check;
use iron3d_tma::{
    Clan, ClanBody, ExtraRecord28, LpString, Path, PlacedObject, RawF32, SpatialGroup,
    StandardMode, Tma,
};
use std::path::Path as FsPath;

fn lp(s: &str) -> LpString {
    LpString::from_text(s).expect("CP1251")
}

/// Seed missions: empty, a full one with every clan mode and 0..=4 extras, one needing
/// every compatible quirk.
fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut full = Tma::new()
        .with_land_path(lp("LAND\\Карта"))
        .with_mission_flag(1)
        .with_description(LpString::from_bytes(&b"desc\0\x01\xC0"[..]));
    full.paths
        .push(Path::new(3, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]));
    full.clans.push(
        Clan::new(
            lp("Игрок"),
            ClanBody::standard(StandardMode::Two, lp("player"), lp("p.trf")),
        )
        .with_anchor(10.0, 20.0)
        .with_relation(lp("Чужие"), -1),
    );
    full.clans.push(
        Clan::new(
            lp("Чужие"),
            ClanBody::spatial(
                lp("alien"),
                vec![
                    SpatialGroup::new([[1.0, 2.0, 3.0, 4.0, 5.0]]),
                    SpatialGroup::default(),
                ],
                lp(""),
            ),
        )
        .with_relation(lp("Игрок"), 1),
    );
    full.objects.push(
        PlacedObject::new(lp("UNITS\\tank.dat"), [1.0, 2.0, 3.0])
            .with_orientation([0.0, 0.0, 1.5])
            .with_property(lp("Life state"), [0, 1, 0, 0])
            .with_property(lp("NOT USED"), [0; 4])
            .with_property(lp("NOT USED"), [1; 4]),
    );
    full.objects
        .push(PlacedObject::new(lp("дерево"), [0.0; 3]).with_instance_name(lp("tree")));

    let mut out = vec![("empty".to_owned(), Tma::new().to_bytes().expect("seed"))];
    for n in 0..=4u32 {
        let mut t = full.clone();
        for i in 0..n {
            t.extras.push(ExtraRecord28::new(
                [i as f32, 0.0, -1.0],
                [i, 0, 0, u32::MAX],
            ));
        }
        out.push((format!("full, {n} extras"), t.to_bytes().expect("seed")));
    }
    let mut quirky = full.clone();
    quirky.format_version = 2;
    quirky.objects[0].class_or_flags = 0;
    quirky.objects[1].scale[0] = RawF32(0x7FC0_0001);
    quirky.objects[1].property_schema_version = 5;
    out.push(("quirky".to_owned(), quirky.to_bytes().expect("seed")));
    out
}

#[test]
fn seed_missions_pass_the_fuzz_checks() {
    let seed_dir = std::env::var_os("IRON3D_TMA_SEED_DIR");
    for (i, (name, data)) in seeds().into_iter().enumerate() {
        assert!(fuzz_check::check(&data), "{name} is accepted");
        if let Some(dir) = &seed_dir {
            let file = FsPath::new(dir).join(format!("seed-{i}"));
            std::fs::write(&file, &data).expect("seed directory is writable");
        }
        // Every prefix and a few single-byte corruptions fail cleanly or pass the checks.
        for len in 0..data.len() {
            assert!(
                !fuzz_check::check(&data[..len]),
                "{name}: prefix {len} is refused"
            );
        }
        for pos in 0..data.len() {
            for flip in [0x01, 0x80, 0xFF] {
                let mut bad = data.clone();
                bad[pos] ^= flip;
                fuzz_check::check(&bad);
            }
        }
    }
}

#[test]
fn saved_fuzz_corpus_replays_cleanly() {
    let dir = FsPath::new(env!("CARGO_MANIFEST_DIR")).join("../../../fuzz/corpus/tma");
    let Ok(read) = std::fs::read_dir(&dir) else {
        eprintln!("no {} yet: nothing to replay", dir.display());
        return;
    };
    let mut files: Vec<_> = read.map(|e| e.expect("dir entry").path()).collect();
    files.sort();
    for path in files {
        let data = std::fs::read(&path).expect("corpus file");
        fuzz_check::check(&data);
    }
}
