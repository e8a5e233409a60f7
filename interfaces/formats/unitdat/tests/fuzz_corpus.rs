//! Runs the checks of the `unitdat` and `objects_rlb` fuzz targets over seeds built in
//! code by the writers, and replays every file of `fuzz/corpus/unitdat/` and
//! `fuzz/corpus/objects_rlb/` (minimised crash reproducers, if any) so each saved input
//! stays a regression test.

use iron3d_unitdat::{Name32, ObjectRef, ObjectRefList, UnitDat, UnitRecord, fuzz_check};
use std::path::Path;

/// Unit DAT seeds: header only, authored records (one with a 32-byte description), a
/// record with tails everywhere, and one that only compatible mode accepts.
fn dat_seeds() -> Vec<(&'static str, Vec<u8>)> {
    let mut authored = UnitDat::new();
    authored.header.set_class_word(0x8000_0004);
    for (key, link, desc) in [
        (&b"e_hull_01"[..], -1, &b"Hull"[..]),
        (b"e_tur_01", 0, b"A turret description of 32 byte"),
        (b"e_wpn_01", 1, &[b'W'; 32]),
    ] {
        authored
            .records
            .push(UnitRecord::new(key, link, desc).expect("seed record"));
    }
    let mut tails = authored.clone();
    let mut raw = [0xA5u8; 32];
    raw[..11].copy_from_slice(b"OBJECTS.rlb");
    raw[11] = 0;
    tails.records[1].archive_name = Name32::from_raw(raw);
    tails.records[1].resource_name = Name32::from_raw(*b"e_tur_01\0leftover-from-old-name!");
    tails.records[1].tail0 = [1, 2, 3, 4];
    tails.records[1].tail1 = [0xFF; 4];
    tails.header.opaque[0] = 0x77;
    let mut compat = authored.clone();
    compat.records[0].kind = 0;
    compat.records[2].archive_name = Name32::new(b"static.rlb").expect("name");
    vec![
        ("header only", UnitDat::new().to_bytes()),
        ("authored", authored.to_bytes()),
        ("tails", tails.to_bytes()),
        ("compatible only", compat.to_bytes()),
    ]
}

/// `objects.rlb` seeds: a plain prototype, a parent chain with a `.bas`, a cycle, missing
/// and failing parents, and an unterminated 32-byte name.
fn objects_seeds() -> Vec<(&'static str, Vec<u8>)> {
    let list = |refs: &[(&[u8], &[u8])]| {
        refs.iter()
            .map(|(a, r)| ObjectRef::new(a, r).expect("seed ref"))
            .collect::<ObjectRefList>()
            .to_bytes()
    };
    let mut unterminated = list(&[(b"static.rlb", b"x.msh")]);
    unterminated[32..64].copy_from_slice(&[b'N'; 32]);
    vec![
        ("empty", Vec::new()),
        (
            "plain",
            list(&[(b"static.rlb", b"tank.msh"), (b"static.rlb", b"tank.wea")]),
        ),
        (
            "parent and base",
            list(&[(b"objects.rlb", b"wall"), (b"fortif.rlb", b"wall_01.bas")]),
        ),
        ("self cycle", list(&[(b"objects.rlb", b"objects.rlb")])),
        (
            "missing and failing parents",
            list(&[(b"OBJECTS.RLB", b"!gone"), (b"objects.rlb", b"#boom")]),
        ),
        ("missing archive", list(&[(b"?lost.rlb", b"a.msh")])),
        ("unterminated", unterminated),
    ]
}

/// Every prefix and a spread of single-byte corruptions of `data` run through `check`.
fn mutate(data: &[u8], check: fn(&[u8]) -> bool) {
    for len in 0..data.len() {
        check(&data[..len]);
    }
    for pos in (0..data.len()).step_by(5) {
        let mut bad = data.to_vec();
        bad[pos] ^= 0x41;
        check(&bad);
    }
}

#[test]
fn dat_seeds_pass_the_fuzz_checks() {
    for (name, data) in dat_seeds() {
        assert!(fuzz_check::unitdat(&data), "{name} is accepted");
        mutate(&data, fuzz_check::unitdat);
    }
    let (_, compat) = &dat_seeds()[3];
    assert!(
        UnitDat::parse(compat).is_err(),
        "strict refuses the compatible-only seed"
    );
}

#[test]
fn objects_seeds_pass_the_fuzz_checks() {
    for (name, data) in objects_seeds() {
        assert!(fuzz_check::objects_rlb(&data), "{name} is accepted");
        mutate(&data, fuzz_check::objects_rlb);
    }
}

fn replay(target: &str, check: fn(&[u8]) -> bool) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../fuzz/corpus")
        .join(target);
    let Ok(read) = std::fs::read_dir(&dir) else {
        eprintln!("no {} yet: nothing to replay", dir.display());
        return;
    };
    let mut files: Vec<_> = read.map(|e| e.expect("dir entry").path()).collect();
    files.sort();
    for path in files {
        let data = std::fs::read(&path).expect("corpus file");
        check(&data);
    }
}

#[test]
fn saved_unitdat_corpus_replays_cleanly() {
    replay("unitdat", fuzz_check::unitdat);
}

#[test]
fn saved_objects_rlb_corpus_replays_cleanly() {
    replay("objects_rlb", fuzz_check::objects_rlb);
}
