//! Runs the checks of the `wear` and `mat0` fuzz targets over seeds built in code by the
//! writers, and replays every file of `fuzz/corpus/wear/` and `fuzz/corpus/mat0/`
//! (minimised crash reproducers, if any) so each saved input stays a regression test.

use iron3d_material::{
    AnimBlock, AnimKey, Mat0, Mat0Metadata, MaterialClock, ModeMapping, Phase, RowSpec, Wear,
    WearRow, select_phase,
};
use std::path::Path;

fn pairs(rows: &[WearRow]) -> Vec<(&[u8], &[u8])> {
    rows.iter().map(|r| (r.legacy_id(), r.name())).collect()
}

/// Same checks as `fuzz/fuzz_targets/wear.rs`; returns whether the reader accepted.
fn check_wear(data: &[u8]) -> bool {
    match Wear::parse(data) {
        Ok(w) => {
            assert_eq!(w.to_bytes(), data, "lossless");
            assert!(!w.materials().is_empty());
            let specs: Vec<RowSpec<'_>> = w
                .materials()
                .iter()
                .map(|r| RowSpec::new(r.legacy_id(), r.name()))
                .collect();
            let lms: Vec<RowSpec<'_>> = w
                .lightmaps()
                .iter()
                .map(|r| RowSpec::new(r.legacy_id(), r.name()))
                .collect();
            let authored = Wear::author(&specs, w.has_lightmap_block().then_some(&lms[..]))
                .expect("parsed rows are authorable");
            let back = Wear::parse(&authored.to_bytes()).expect("canonical table parses");
            assert_eq!(pairs(back.materials()), pairs(w.materials()));
            assert_eq!(pairs(back.lightmaps()), pairs(w.lightmaps()));
            assert_eq!(back.has_lightmap_block(), w.has_lightmap_block());
            true
        }
        Err(e) => {
            assert!(e.to_string().starts_with("WEAR "), "{e}");
            false
        }
    }
}

/// Same checks as `fuzz/fuzz_targets/mat0.rs`; returns whether the reader accepted.
fn check_mat0(data: &[u8]) -> bool {
    let Some((&v, payload)) = data.split_first() else {
        return false;
    };
    let version = u32::from(v % 8);
    match Mat0::parse(payload, version) {
        Ok(m) => {
            assert_eq!(
                m.to_bytes(version).expect("own version"),
                payload,
                "lossless"
            );
            let up = m.to_bytes(6).expect("upgrade never drops a field");
            let back = Mat0::parse(&up, 6).expect("upgraded payload parses");
            assert_eq!(
                (back.metadata(), back.phases(), back.blocks()),
                (m.metadata(), m.phases(), m.blocks())
            );
            for block in 0..m.blocks().len() {
                for time_ms in [0, 1, 999, 65_535, u64::MAX] {
                    let clock = MaterialClock {
                        time_ms,
                        random_offset_ms: time_ms.rotate_left(7),
                    };
                    if let Ok(s) = select_phase(&m, block, clock, &ModeMapping::PROJECT_DEFAULT) {
                        let n = m.phases().len();
                        assert!(usize::from(s.phase_a) < n && usize::from(s.phase_b) < n);
                        assert!(s.span_ms == 0 || s.elapsed_ms < s.span_ms);
                        assert!((0.0..1.0).contains(&s.t()));
                    }
                }
            }
            true
        }
        Err(e) => {
            assert!(e.to_string().starts_with("MAT0 +0x"), "{e}");
            false
        }
    }
}

fn replay(dir: &str, check: fn(&[u8]) -> bool) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../fuzz/corpus")
        .join(dir);
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return 0;
    };
    let mut n = 0;
    for e in rd.flatten() {
        let data = std::fs::read(e.path()).expect("corpus file");
        check(&data);
        n += 1;
    }
    n
}

#[test]
fn wear_seeds_and_saved_inputs() {
    let mats = [
        RowSpec::new(b"0", b"HULL"),
        RowSpec::new(b"17", b"GLASS"),
        RowSpec::new(b"3", b"\xCC\xE0\xF2"),
    ];
    let lms = [
        RowSpec::new(b"0", b"LM_HULL"),
        RowSpec::new(b"1", b"LM_GLASS"),
    ];
    let seeds = [
        Wear::author(&mats, None).expect("seed").to_bytes(),
        Wear::author(&mats, Some(&lms)).expect("seed").to_bytes(),
        Wear::author(&mats[..1], Some(&[]))
            .expect("seed")
            .to_bytes(),
        Wear::author(&[RowSpec::new(b"1", b"LIGHT1")], None)
            .expect("Shade.wea-like")
            .to_bytes(),
    ];
    for s in &seeds {
        assert!(check_wear(s), "seed accepted");
        // LF-only and trailing-blank variants of every seed stay valid and lossless.
        let lf: Vec<u8> = s.iter().copied().filter(|&b| b != b'\r').collect();
        assert!(check_wear(&lf));
        assert!(check_wear(&[s.as_slice(), b"\r\n \r\n"].concat()));
        // Every prefix must be handled without panic.
        for cut in 0..s.len() {
            check_wear(&s[..cut]);
        }
    }
    replay("wear", check_wear);
}

#[test]
fn mat0_seeds_and_saved_inputs() {
    let phases = vec![
        Phase::new([0x11; 18], b"TEX_A").expect("phase"),
        Phase::new([0x22; 18], b"0123456789ABCDEF").expect("phase"),
        Phase::new([0x33; 18], b"").expect("phase"),
    ];
    let blocks = vec![
        AnimBlock::new(
            AnimBlock::header_from(0, 0x3),
            vec![AnimKey::new(0, 100, 0), AnimKey::new(1, 50, 7)],
        )
        .expect("block"),
        AnimBlock::new(AnimBlock::header_from(3, 0), vec![AnimKey::new(2, 0, 0)]).expect("block"),
    ];
    for version in 0..8u8 {
        let md = if version >= 4 {
            Mat0Metadata {
                a: 1,
                b: 2,
                c_raw: 0x4000_0000,
                d_raw: 9,
            }
        } else {
            Mat0Metadata::DEFAULT
        };
        let m = Mat0::new(u32::from(version), md, phases.clone(), blocks.clone()).expect("seed");
        let payload = m.to_bytes(u32::from(version)).expect("writes");
        let data = [&[version][..], &payload].concat();
        assert!(check_mat0(&data), "v{version} seed accepted");
        for cut in 1..data.len() {
            assert!(!check_mat0(&data[..cut]), "a cut payload never frames");
        }
    }
    replay("mat0", check_mat0);
}
