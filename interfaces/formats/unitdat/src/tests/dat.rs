//! Unit DAT reader and writer: hand-laid files roundtrip byte for byte, every strict
//! check fails with its own error kind, record, field and offset, compatible mode turns
//! the record checks into diagnostics, and authoring writes `name + NUL + zero fill`.

use super::support::{RawRecord, field, raw_dat};
use crate::{Check, Field, NameProblem, ReadMode, UnitDat, UnitDatError, UnitHeader, UnitRecord};

const OPAQUE: [u8; 6] = [0x12, 0x34, 0x10, 0x00, 0x00, 0x80];

fn three_records() -> Vec<u8> {
    let mut second = RawRecord::valid(b"e_tur_a");
    second.link = 0;
    second.description = *b"A description filling 32 bytes!!";
    let mut third = RawRecord::valid(b"e_wpn_b");
    third.archive = field(b"OBJECTS.RLB", b"");
    third.link = 7;
    raw_dat(OPAQUE, &[RawRecord::valid(b"e_hull"), second, third])
}

#[test]
fn hand_laid_file_reads_every_field_and_roundtrips_byte_identical() {
    let bytes = three_records();
    let dat = UnitDat::parse(&bytes).expect("valid");
    assert_eq!(dat.header.opaque, OPAQUE);
    assert_eq!(dat.records.len(), 3);
    let r = &dat.records[0];
    assert_eq!(r.archive_name.value(), b"objects.rlb");
    assert!(r.archive_name.has_nonzero_tail());
    assert_eq!(r.resource_name.value(), b"e_hull");
    assert_eq!(&r.resource_name.tail()[..9], b"old_name\x7F");
    assert_eq!((r.kind, r.parent_or_link), (1, -1));
    assert_eq!(r.description.value(), b"Hull");
    assert_eq!((r.tail0, r.tail1), ([1, 2, 3, 4], [0xFF, 0, 0xEE, 0]));
    let d = &dat.records[1].description;
    assert!(!d.has_nul() && d.value().len() == 32 && d.tail().is_empty());
    assert_eq!(dat.records[2].parent_or_link, 7);
    let keys: Vec<&[u8]> = dat.component_keys().collect();
    assert_eq!(keys, [&b"e_hull"[..], b"e_tur_a", b"e_wpn_b"]);
    assert_eq!(dat.encoded_len(), bytes.len());
    assert_eq!(dat.to_bytes(), bytes);
}

#[test]
fn header_only_file_is_valid_with_zero_records() {
    let bytes = raw_dat(OPAQUE, &[]);
    let dat = UnitDat::parse(&bytes).expect("8 + 112 * 0");
    assert!(dat.records.is_empty());
    assert_eq!(dat.to_bytes(), bytes);
}

#[test]
fn class_word_is_an_inferred_view_of_the_opaque_header() {
    let dat = UnitDat::parse(&three_records()).expect("valid");
    assert_eq!(dat.header.class_word(), 0x8000_0010);
    assert!(dat.header.class_word_high_bit());
    let mut h = UnitHeader { opaque: OPAQUE };
    h.set_class_word(0x0100_8000);
    assert_eq!(h.opaque, [0x12, 0x34, 0x00, 0x80, 0x00, 0x01]);
    assert!(!h.class_word_high_bit());
}

#[test]
fn truncated_header_is_header_size_at_offset_zero() {
    for len in 0..8 {
        let bytes = &raw_dat(OPAQUE, &[])[..len];
        let e = UnitDat::parse(bytes).expect_err("truncated");
        assert!(
            matches!(e, UnitDatError::Truncated { need: 8, have } if have == len as u64),
            "{e}"
        );
        assert_eq!((e.check(), e.offset()), (Check::HeaderSize, Some(0)));
    }
}

#[test]
fn bad_signature_is_reported_before_the_size_formula() {
    let mut bytes = three_records();
    bytes[1] = 0xF1;
    bytes.push(0);
    let e = UnitDat::parse(&bytes).expect_err("bad signature");
    assert!(
        matches!(
            e,
            UnitDatError::BadSignature {
                found: [0xF1, 0xF1]
            }
        ),
        "{e}"
    );
    assert_eq!((e.check(), e.offset()), (Check::Signature, Some(0)));
    assert_eq!(
        e.to_string(),
        "[signature] offset 0x0: expected F1 F0, found F1 F1"
    );
}

#[test]
fn trailing_bytes_break_the_size_formula_at_the_incomplete_record() {
    let mut bytes = three_records();
    bytes.extend_from_slice(&[0; 5]);
    let e = UnitDat::parse(&bytes).expect_err("trailing bytes");
    assert!(
        matches!(
            e,
            UnitDatError::SizeFormula {
                len: 349,
                record: 3,
                offset: 344,
                remainder: 5
            }
        ),
        "{e}"
    );
    assert_eq!(
        (e.check(), e.offset(), e.record()),
        (Check::SizeFormula, Some(344), Some(3))
    );
}

#[test]
fn truncated_record_breaks_the_size_formula_in_both_modes() {
    let full = three_records();
    for cut in [1, 56, 111] {
        let bytes = &full[..8 + 112 + cut];
        for mode in [ReadMode::Strict, ReadMode::Compatible] {
            let e = UnitDat::parse_with(bytes, mode).expect_err("cut record");
            assert!(
                matches!(e, UnitDatError::SizeFormula { record: 1, offset: 120, remainder, .. }
                    if remainder == cut as u64),
                "{e}"
            );
        }
    }
}

#[test]
fn unexpected_kind_is_strict_error_and_compatible_diagnostic() {
    let mut second = RawRecord::valid(b"b");
    second.kind = 0;
    let bytes = raw_dat(OPAQUE, &[RawRecord::valid(b"a"), second]);
    let e = UnitDat::parse(&bytes).expect_err("kind 0");
    assert!(
        matches!(
            e,
            UnitDatError::UnexpectedKind {
                record: 1,
                offset: 184,
                found: 0
            }
        ),
        "{e}"
    );
    assert_eq!(
        (e.check(), e.field()),
        (Check::RecordKind, Some(Field::Kind))
    );
    assert!(
        e.to_string()
            .starts_with("[record_kind] record #1 field kind at offset 0xb8")
    );

    let parsed = UnitDat::parse_with(&bytes, ReadMode::Compatible).expect("tolerated");
    assert_eq!(parsed.diagnostics.len(), 1);
    assert_eq!(parsed.diagnostics[0].check(), Check::RecordKind);
    assert_eq!(parsed.dat.records[1].kind, 0);
    assert_eq!(parsed.dat.to_bytes(), bytes);
}

#[test]
fn unexpected_archive_is_strict_error_and_compatible_diagnostic() {
    let mut bad = RawRecord::valid(b"a");
    bad.archive = field(b"static.rlb", b"x");
    let bytes = raw_dat(
        OPAQUE,
        &[RawRecord::valid(b"ok"), RawRecord::valid(b"ok2"), bad],
    );
    let e = UnitDat::parse(&bytes).expect_err("archive");
    assert!(
        matches!(&e, UnitDatError::UnexpectedArchive { record: 2, offset: 232, found }
            if found == b"static.rlb"),
        "{e}"
    );
    assert_eq!(
        (e.check(), e.field()),
        (Check::RecordArchive, Some(Field::ArchiveName))
    );
    let parsed = UnitDat::parse_with(&bytes, ReadMode::Compatible).expect("tolerated");
    assert_eq!(parsed.diagnostics.len(), 1);
    assert_eq!(parsed.dat.to_bytes(), bytes);
}

#[test]
fn archive_check_folds_ascii_case_but_does_not_trim_or_accept_unterminated() {
    for (archive, ok) in [
        (field(b"Objects.RLB", b""), true),
        (field(b"objects.rlb ", b""), false),
        (field(b" objects.rlb", b""), false),
        (*b"objects.rlbobjects.rlbobjects.rl", false),
    ] {
        let mut r = RawRecord::valid(b"a");
        r.archive = archive;
        let result = UnitDat::parse(&raw_dat(OPAQUE, &[r]));
        assert_eq!(
            result.is_ok(),
            ok,
            "{:?}",
            archive.escape_ascii().to_string()
        );
    }
}

#[test]
fn a_record_with_both_violations_reports_kind_then_archive() {
    let mut r = RawRecord::valid(b"a");
    r.kind = 2;
    r.archive = field(b"", b"");
    let bytes = raw_dat(OPAQUE, &[r]);
    assert_eq!(
        UnitDat::parse(&bytes).expect_err("bad").check(),
        Check::RecordKind
    );
    let parsed = UnitDat::parse_with(&bytes, ReadMode::Compatible).expect("tolerated");
    let checks: Vec<Check> = parsed.diagnostics.iter().map(UnitDatError::check).collect();
    assert_eq!(checks, Check::DAT_COMPATIBLE_TOLERATES);
}

#[test]
fn resource_name_without_nul_is_accepted_and_kept() {
    let mut r = RawRecord::valid(b"a");
    r.resource = [b'k'; 32];
    let bytes = raw_dat(OPAQUE, &[r]);
    let dat = UnitDat::parse(&bytes).expect("no NUL is valid");
    assert_eq!(dat.records[0].component_key(), &[b'k'; 32]);
    assert_eq!(dat.to_bytes(), bytes);
}

#[test]
fn authored_records_are_name_nul_zero_fill_with_kind_one_and_zero_tails() {
    let r = UnitRecord::new(b"e_hull", 3, b"Hull").expect("valid");
    let b = r.to_bytes();
    assert_eq!(&b[..12], b"objects.rlb\0");
    assert!(b[12..32].iter().all(|&x| x == 0));
    assert_eq!(&b[32..39], b"e_hull\0");
    assert!(b[39..64].iter().all(|&x| x == 0));
    assert_eq!(&b[0x40..0x48], &[1, 0, 0, 0, 3, 0, 0, 0]);
    assert_eq!(&b[0x48..0x4D], b"Hull\0");
    assert!(b[0x4D..].iter().all(|&x| x == 0));
    assert_eq!(UnitRecord::from_bytes(&b), r);

    let full = UnitRecord::new(b"k", 0, &[b'D'; 32]).expect("32-byte description");
    assert!(!full.description.has_nul());

    let mut dat = UnitDat::new();
    dat.records.extend([r, full]);
    let bytes = dat.to_bytes();
    assert_eq!(&bytes[..8], &[0xF1, 0xF0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(
        UnitDat::parse(&bytes).expect("authored file is strict"),
        dat
    );
}

#[test]
fn authoring_refuses_long_names_and_embedded_nul_naming_the_field() {
    let e = UnitRecord::new(&[b'k'; 32], 0, b"").expect_err("32-byte key");
    assert!(
        matches!(
            e,
            UnitDatError::InvalidName {
                field: Some(Field::ResourceName),
                problem: NameProblem::TooLong { len: 32, max: 31 },
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.check(), Check::NewName);
    let e = UnitRecord::new(b"k", 0, &[b'd'; 33]).expect_err("33-byte description");
    assert!(
        matches!(
            e,
            UnitDatError::InvalidName {
                field: Some(Field::Description),
                problem: NameProblem::TooLong { len: 33, max: 32 },
                ..
            }
        ),
        "{e}"
    );
    let e = UnitRecord::new(b"a\0b", 0, b"").expect_err("NUL");
    assert!(matches!(
        e,
        UnitDatError::InvalidName {
            problem: NameProblem::ContainsNul { position: 1 },
            ..
        }
    ));
    assert!(
        e.to_string()
            .starts_with("[new_name] field resource_name name \"a\\x00b\""),
        "{e}"
    );
}

#[test]
fn editing_a_field_keeps_every_other_byte() {
    let bytes = three_records();
    let mut dat = UnitDat::parse(&bytes).expect("valid");
    dat.records[1].parent_or_link = 42;
    let out = dat.to_bytes();
    let changed: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i] != out[i]).collect();
    assert_eq!(changed, vec![8 + 112 + 0x44]);
}

#[test]
fn every_error_message_starts_with_its_check_name() {
    let mut bad_kind = RawRecord::valid(b"a");
    bad_kind.kind = 9;
    let inputs: Vec<Vec<u8>> = vec![
        vec![0xF1],
        vec![0, 0, 0, 0, 0, 0, 0, 0],
        vec![0xF1, 0xF0, 0, 0, 0, 0, 0, 0, 1],
        raw_dat(OPAQUE, &[bad_kind]),
    ];
    for input in inputs {
        let e = UnitDat::parse(&input).expect_err("invalid");
        assert!(Check::DAT_READ_CHECKS.contains(&e.check()));
        assert!(
            e.to_string().starts_with(&format!("[{}]", e.check())),
            "{e}"
        );
    }
}
