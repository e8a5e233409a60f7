//! WEAR: rows, the lightmap block, CRLF, errors with line/column, losslessness, authoring.

use crate::{MaterialError, RowSpec, Wear, WearItem, WearSection};

fn rows(w: &Wear) -> Vec<(Vec<u8>, Vec<u8>)> {
    w.materials()
        .iter()
        .map(|r| (r.legacy_id().to_vec(), r.name().to_vec()))
        .collect()
}

fn lm_rows(w: &Wear) -> Vec<(Vec<u8>, Vec<u8>)> {
    w.lightmaps()
        .iter()
        .map(|r| (r.legacy_id().to_vec(), r.name().to_vec()))
        .collect()
}

fn pair(a: &str, b: &str) -> (Vec<u8>, Vec<u8>) {
    (a.as_bytes().to_vec(), b.as_bytes().to_vec())
}

#[test]
fn table_without_lightmaps_keeps_legacy_ids_and_row_order() {
    let text = b"3\n100 MAT_A\n5 MAT_B\n100 MAT_C\n";
    let w = Wear::parse(text).expect("valid");
    assert_eq!(
        rows(&w),
        vec![
            pair("100", "MAT_A"),
            pair("5", "MAT_B"),
            pair("100", "MAT_C")
        ]
    );
    assert!(!w.has_lightmap_block() && w.lightmaps().is_empty());
    // Selection is by position: row 1 is MAT_B whatever its legacy id says.
    assert_eq!(w.material(1).expect("row 1").name(), b"MAT_B");
    assert_eq!(w.material(1).expect("row 1").legacy_id_number(), Some(5));
    assert_eq!(w.material(2).expect("row 2").line(), 4);
    assert!(w.material(3).is_none());
    assert_eq!(w.to_bytes(), text);
}

#[test]
fn table_with_lightmaps() {
    let text = b"2\n0 HULL\n1 GLASS\n\nLIGHTMAPS\n2\n0 LM_A\n7 LM_B\n";
    let w = Wear::parse(text).expect("valid");
    assert_eq!(rows(&w), vec![pair("0", "HULL"), pair("1", "GLASS")]);
    assert!(w.has_lightmap_block());
    assert_eq!(lm_rows(&w), vec![pair("0", "LM_A"), pair("7", "LM_B")]);
    assert_eq!(w.lightmaps()[1].line(), 8);
    assert_eq!(w.to_bytes(), text);
}

#[test]
fn lightmap_block_may_be_empty() {
    let w = Wear::parse(b"1\n0 M\n\nLIGHTMAPS\n0\n").expect("valid");
    assert!(w.has_lightmap_block() && w.lightmaps().is_empty());
}

#[test]
fn crlf_spacing_tails_and_trailing_blanks_are_kept_byte_for_byte() {
    let text = b"  2 \r\n\t0   Mat_\xC0\t \r\n1 B extra tokens  \r\n\r\n  LIGHTMAPS\t\r\n 1\r\n9 LM\r\n\r\n \t\r\n\n";
    let w = Wear::parse(text).expect("valid");
    assert_eq!(w.to_bytes(), text);
    assert_eq!(w.as_bytes(), text);
    assert_eq!(w.materials()[0].name(), b"Mat_\xC0");
    assert_eq!(w.materials()[0].name_text(), "Mat_А");
    assert_eq!(w.materials()[0].tail(), b"");
    assert_eq!(w.materials()[1].tail(), b"extra tokens");
    assert_eq!(lm_rows(&w), vec![pair("9", "LM")]);
}

#[test]
fn last_line_without_newline_and_trailing_blank_lines_are_accepted() {
    for text in [
        &b"1\n0 M"[..],
        b"1\r\n0 M\r\n\r\n\r\n",
        b"1\n0 M\n\n\n  \n",
        b"1\n0 M\n\nLIGHTMAPS\n1\n0 L",
    ] {
        let w = Wear::parse(text).expect("valid");
        assert_eq!(w.to_bytes(), text);
    }
}

#[test]
fn missing_separator_before_lightmaps_is_an_error() {
    let err = Wear::parse(b"1\n0 MAT\nLIGHTMAPS\n1\n0 LM\n").unwrap_err();
    assert!(
        matches!(&err, MaterialError::WearMissingSeparator { line: 3, column: 1, found } if found == "LIGHTMAPS"),
        "{err}"
    );
    assert!(err.to_string().starts_with("WEAR 3:1:"), "{err}");
}

#[test]
fn two_blank_lines_before_lightmaps_is_an_error() {
    let err = Wear::parse(b"1\n0 MAT\n\n\nLIGHTMAPS\n1\n0 LM\n").unwrap_err();
    assert!(
        matches!(err, MaterialError::WearMissingMarker { line: 4, .. }),
        "{err}"
    );
}

#[test]
fn wrong_marker_is_an_error() {
    let err = Wear::parse(b"1\n0 MAT\n\nlightmaps\n1\n0 LM\n").unwrap_err();
    assert!(
        matches!(
            err,
            MaterialError::WearMissingMarker {
                line: 4,
                column: 1,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn counts_not_matching_rows_are_errors() {
    // Too few rows.
    let err = Wear::parse(b"3\n0 A\n1 B\n").unwrap_err();
    assert_eq!(
        err,
        MaterialError::WearMissingLine {
            line: 4,
            column: 1,
            expected: WearItem::Row(WearSection::Materials)
        }
    );
    // Too many rows: the extra row is text where only a separator or blanks may follow.
    let err = Wear::parse(b"1\n0 A\n1 B\n").unwrap_err();
    assert!(
        matches!(err, MaterialError::WearMissingSeparator { line: 3, .. }),
        "{err}"
    );
    // A short count stops at a blank line inside the rows.
    let err = Wear::parse(b"2\n0 A\n\n1 B\n").unwrap_err();
    assert!(
        matches!(
            err,
            MaterialError::WearBadRow {
                line: 3,
                index: 1,
                ..
            }
        ),
        "{err}"
    );
    // Lightmap count too large / too small.
    let err = Wear::parse(b"1\n0 A\n\nLIGHTMAPS\n2\n0 L\n").unwrap_err();
    assert_eq!(
        err,
        MaterialError::WearMissingLine {
            line: 7,
            column: 1,
            expected: WearItem::Row(WearSection::Lightmaps)
        }
    );
    let err = Wear::parse(b"1\n0 A\n\nLIGHTMAPS\n1\n0 L\n1 M\n").unwrap_err();
    assert!(
        matches!(
            err,
            MaterialError::WearTrailingText {
                line: 7,
                column: 1,
                after: WearSection::Lightmaps,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn count_lines_must_be_decimal_and_wear_count_positive() {
    let err = Wear::parse(b"0\n").unwrap_err();
    assert_eq!(err, MaterialError::WearZeroCount { line: 1, column: 1 });
    let err = Wear::parse(b" x1\n0 A\n").unwrap_err();
    assert!(matches!(
        err,
        MaterialError::WearBadCount {
            line: 1,
            column: 2,
            expected: WearItem::WearCount,
            ..
        }
    ));
    let err = Wear::parse(b"12a\n").unwrap_err();
    assert!(
        matches!(
            err,
            MaterialError::WearBadCount {
                line: 1,
                column: 3,
                ..
            }
        ),
        "{err}"
    );
    let err = Wear::parse(b"+1\n0 A\n").unwrap_err();
    assert!(
        matches!(err, MaterialError::WearBadCount { column: 1, .. }),
        "{err}"
    );
    let err = Wear::parse(b"99999999999999999999999\n").unwrap_err();
    assert!(
        matches!(err, MaterialError::WearBadCount { column: 1, .. }),
        "{err}"
    );
    let err = Wear::parse(b"1\n0 A\n\nLIGHTMAPS\n\n").unwrap_err();
    assert!(
        matches!(
            err,
            MaterialError::WearBadCount {
                line: 5,
                expected: WearItem::LightmapCount,
                ..
            }
        ),
        "{err}"
    );
    let err = Wear::parse(b"1\n0 A\n\nLIGHTMAPS\n").unwrap_err();
    assert_eq!(
        err,
        MaterialError::WearMissingLine {
            line: 5,
            column: 1,
            expected: WearItem::LightmapCount
        }
    );
}

#[test]
fn huge_count_does_not_allocate_and_fails_at_end_of_text() {
    let err = Wear::parse(b"18446744073709551615\n0 A\n").unwrap_err();
    assert!(
        matches!(err, MaterialError::WearMissingLine { line: 3, .. }),
        "{err}"
    );
}

#[test]
fn empty_text_and_rows_with_one_token_are_errors() {
    assert_eq!(
        Wear::parse(b"").unwrap_err(),
        MaterialError::WearMissingLine {
            line: 1,
            column: 1,
            expected: WearItem::WearCount
        }
    );
    let err = Wear::parse(b"1\n  ONLY\n").unwrap_err();
    assert!(
        matches!(
            &err,
            MaterialError::WearBadRow {
                line: 2,
                column: 7,
                section: WearSection::Materials,
                index: 0,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn nul_and_lone_cr_are_errors() {
    assert_eq!(
        Wear::parse(b"1\n0 A\0B\n").unwrap_err(),
        MaterialError::WearNul { line: 2, column: 4 }
    );
    assert_eq!(
        Wear::parse(b"1\r0 A\n").unwrap_err(),
        MaterialError::WearStrayCr { line: 1, column: 2 }
    );
    assert_eq!(
        Wear::parse(b"1\n0 A\n\r").unwrap_err(),
        MaterialError::WearStrayCr { line: 3, column: 1 }
    );
}

#[test]
fn authoring_writes_canonical_crlf_and_parses_back() {
    let mats = [
        RowSpec::new(b"0", b"HULL"),
        RowSpec::new(b"12", b"\xCC\xE0\xF2"),
    ];
    let lms = [RowSpec::new(b"0", b"LM_HULL")];
    let w = Wear::author(&mats, Some(&lms)).expect("valid");
    assert_eq!(
        w.to_bytes(),
        b"2\r\n0 HULL\r\n12 \xCC\xE0\xF2\r\n\r\nLIGHTMAPS\r\n1\r\n0 LM_HULL\r\n"
    );
    let back = Wear::parse(&w.to_bytes()).expect("parses");
    assert_eq!(
        rows(&back),
        vec![
            pair("0", "HULL"),
            (b"12".to_vec(), b"\xCC\xE0\xF2".to_vec())
        ]
    );
    assert_eq!(back.materials()[1].name_text(), "Мат");
    assert_eq!(lm_rows(&back), vec![pair("0", "LM_HULL")]);
    let plain = Wear::author(&mats, None).expect("valid");
    assert!(!plain.has_lightmap_block());
    let empty_lm = Wear::author(&mats, Some(&[])).expect("valid");
    assert!(empty_lm.has_lightmap_block() && empty_lm.lightmaps().is_empty());
}

#[test]
fn authoring_rejects_empty_tables_and_bad_tokens() {
    assert_eq!(
        Wear::author(&[], None).unwrap_err(),
        MaterialError::WearAuthorEmpty
    );
    for bad in [&b""[..], b"A B", b"A\tB", b"A\r", b"A\n", b"A\0"] {
        let err = Wear::author(&[RowSpec::new(b"0", bad)], None).unwrap_err();
        assert!(
            matches!(
                err,
                MaterialError::WearAuthorToken {
                    index: 0,
                    field: "name",
                    ..
                }
            ),
            "{err}"
        );
    }
    let err = Wear::author(
        &[RowSpec::new(b"0", b"M")],
        Some(&[RowSpec::new(b"", b"L")]),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            MaterialError::WearAuthorToken {
                section: WearSection::Lightmaps,
                field: "legacy_id",
                ..
            }
        ),
        "{err}"
    );
}
