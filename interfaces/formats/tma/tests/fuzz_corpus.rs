//! Runs the checks of the `tma` fuzz target over seed missions built in code by the
//! writer (no binary seed is committed; set `IRON3D_TMA_SEED_DIR=<dir>` to write them
//! there for `cargo fuzz run tma <dir>`), and replays every file of `fuzz/corpus/tma/`
//! (minimised crash reproducers, if any) so each saved input stays a regression test.

use iron3d_tma::{
    Check, Clan, ClanBody, ExtraRecord28, LpString, Path, PlacedObject, Quirk, RawF32, ReadOptions,
    SpatialGroup, StandardMode, Tma,
};
use std::path::Path as FsPath;

fn tolerable(check: Check) -> bool {
    Quirk::ALL.iter().any(|q| q.tolerates().contains(&check))
}

/// Same checks as `fuzz/fuzz_targets/tma.rs`; returns whether the compatible reader accepted.
fn fuzz_check(data: &[u8]) -> bool {
    let strict = Tma::parse_with(data, ReadOptions::strict());
    let compat = Tma::parse_with(data, ReadOptions::compatible());
    match (&strict, &compat) {
        (Ok(s), Ok(c)) => {
            assert!(s.diagnostics.is_empty() && c.diagnostics.is_empty());
            assert_eq!(s.tma, c.tma);
        }
        (Err(e), Ok(c)) => {
            let first = c.diagnostics.first().expect("compatible accepted silently");
            assert_eq!(
                &first.tolerated, e,
                "strict fails where the first quirk applied"
            );
            for d in &c.diagnostics {
                assert!(d.quirk.tolerates().contains(&d.tolerated.check()), "{d}");
            }
        }
        (Ok(_), Err(e)) => panic!("strict accepted what compatible refused: {e}"),
        (Err(s), Err(c)) => {
            assert!(
                s == c || (tolerable(s.check()) && s.offset() <= c.offset()),
                "{s} / {c}"
            );
            assert!(!tolerable(c.check()), "{c}");
        }
    }
    for result in [&strict, &compat] {
        match result {
            Ok(p) => {
                let out = p
                    .tma
                    .to_bytes()
                    .expect("a parsed mission fits its u32 fields");
                assert_eq!(out, data, "lossless");
                let summary = p.tma.summary();
                assert_eq!(summary.objects.len(), p.tma.objects.len());
                for o in &p.tma.objects {
                    let _ = o.placement_matrix();
                }
            }
            Err(e) => {
                assert!(Check::READ_CHECKS.contains(&e.check()), "{e}");
                assert!(e.offset() <= data.len() as u64, "{e}");
                assert!(
                    e.to_string().starts_with(&format!("[{}]", e.check())),
                    "{e}"
                );
            }
        }
    }
    compat.is_ok()
}

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
        assert!(fuzz_check(&data), "{name} is accepted");
        if let Some(dir) = &seed_dir {
            let file = FsPath::new(dir).join(format!("seed-{i}"));
            std::fs::write(&file, &data).expect("seed directory is writable");
        }
        // Every prefix and a few single-byte corruptions fail cleanly or pass the checks.
        for len in 0..data.len() {
            assert!(!fuzz_check(&data[..len]), "{name}: prefix {len} is refused");
        }
        for pos in 0..data.len() {
            for flip in [0x01, 0x80, 0xFF] {
                let mut bad = data.clone();
                bad[pos] ^= flip;
                fuzz_check(&bad);
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
        fuzz_check(&data);
    }
}
