//! Runs the checks of the `nres` fuzz target over seed archives built in code by the
//! writer and editor, and replays every file of `fuzz/corpus/nres/` (minimised crash
//! reproducers, if any) so each saved input stays a regression test.

use iron3d_nres::fuzz_check;
use iron3d_nres::{NewEntry, Nres, NresDocument, NresWriter};
use std::path::Path;

/// A handful of seed archives: empty, one entry, several with duplicates and empty
/// payloads, a long name, an edited archive with non-zero gaps, and a broken sort table.
fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let build = |entries: &[(&[u8], u32, &[u8])]| {
        let mut w = NresWriter::new();
        for (name, type_id, data) in entries {
            w.push(
                NewEntry::new(name, *type_id, *data)
                    .expect("seed name")
                    .with_attrs(1, 2, 3),
            );
        }
        w.finish().expect("seed archive")
    };
    let several = build(&[
        (b"Material.lib", 0x3054_414D, b"MAT0 payload"),
        (b"empty", 0, b""),
        (b"DUP", 1, b"first"),
        (b"dup", 2, b"second"),
        (b"a_[`]^", 3, &[0xFF; 17]),
    ]);
    let mut gappy = NresDocument::from_bytes(&several)
        .expect("valid")
        .into_owned();
    gappy.replace_payload(0, b"x").expect("replace");
    gappy
        .add_entry(NewEntry::new(b"Texm", 0x6D78_6554, &b"Texm...."[..]).expect("name"))
        .expect("add");
    let mut broken = several.clone();
    let dir = broken.len() - 5 * 64;
    broken[dir + 0x3C..dir + 0x40].copy_from_slice(&4u32.to_le_bytes());
    vec![
        ("empty archive", build(&[])),
        ("one entry", build(&[(b"one", 0x4853_454D, b"mesh")])),
        ("several", several.clone()),
        ("long name", build(&[(&[b'N'; 35], 0, &[0u8; 64])])),
        ("edited", gappy.to_bytes()),
        ("broken sort table", broken),
    ]
}

/// Fuzzer finding (hand-minimised; the fuzzer's own input was 392 bytes): entry 0 is
/// empty at offset 24, strictly inside entry 1's payload `[16, 32)`; giving entry 0 a
/// payload used to insert the bytes there and split entry 1's payload (overlap after edit).
const EMPTY_ENTRY_INSIDE_PAYLOAD: [u8; 160] = [
    0x4E, 0x52, 0x65, 0x73, 0x00, 0x01, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0xA0, 0x00, 0x00, 0x00,
    0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x45, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
];

#[test]
fn regression_filling_an_empty_entry_inside_another_payload() {
    assert!(fuzz_check::check(&EMPTY_ENTRY_INSIDE_PAYLOAD));
    let mut doc = NresDocument::from_bytes(&EMPTY_ENTRY_INSIDE_PAYLOAD).expect("valid");
    doc.replace_payload(0, b"new").expect("replace");
    let out = doc.to_bytes();
    let a = Nres::parse(&out).expect("still valid");
    assert_eq!(a.entry(1).expect("A").data(), b"0123456789ABCDEF");
    assert_eq!(a.entry(0).expect("E").data(), b"new");
}

#[test]
fn seed_archives_pass_the_fuzz_checks() {
    for (name, data) in seeds() {
        assert!(fuzz_check::check(&data), "{name} is accepted");
        // Every prefix and a few single-byte corruptions fail cleanly or pass the checks.
        for len in 0..data.len() {
            fuzz_check::check(&data[..len]);
        }
        for pos in (0..data.len()).step_by(7) {
            let mut bad = data.clone();
            bad[pos] ^= 0x41;
            fuzz_check::check(&bad);
        }
    }
}

#[test]
fn saved_fuzz_corpus_replays_cleanly() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../fuzz/corpus/nres");
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
