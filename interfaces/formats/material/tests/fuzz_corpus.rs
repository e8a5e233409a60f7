//! Runs the checks of the `wear` and `mat0` fuzz targets over seeds built in code by the
//! writers, and replays every file of `fuzz/corpus/wear/` and `fuzz/corpus/mat0/`
//! (minimised crash reproducers, if any) so each saved input stays a regression test.

use iron3d_material::fuzz_check;
use iron3d_material::{AnimBlock, AnimKey, Mat0, Mat0Metadata, Phase, RowSpec, Wear};
use std::path::Path;

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
        assert!(fuzz_check::wear(s), "seed accepted");
        // LF-only and trailing-blank variants of every seed stay valid and lossless.
        let lf: Vec<u8> = s.iter().copied().filter(|&b| b != b'\r').collect();
        assert!(fuzz_check::wear(&lf));
        assert!(fuzz_check::wear(&[s.as_slice(), b"\r\n \r\n"].concat()));
        // Every prefix must be handled without panic.
        for cut in 0..s.len() {
            fuzz_check::wear(&s[..cut]);
        }
    }
    replay("wear", fuzz_check::wear);
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
        assert!(fuzz_check::mat0(&data), "v{version} seed accepted");
        for cut in 1..data.len() {
            assert!(
                !fuzz_check::mat0(&data[..cut]),
                "a cut payload never frames"
            );
        }
    }
    replay("mat0", fuzz_check::mat0);
}
