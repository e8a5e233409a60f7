//! One test per strict check of FORMATS.md §3.9 (and the §3.6 trailer and §3.10 quirk).

use super::{patch_table, sample, set_u16, set_u32};
use crate::{Method, Quirk, ReadOptions, Rsli, RsliBuilder, RsliError};

fn strict_err(bytes: &[u8]) -> RsliError {
    Rsli::parse(bytes).expect_err("strict parse must fail")
}

#[test]
fn valid_sample_parses_and_decodes() {
    let bytes = sample();
    let a = Rsli::parse(&bytes).unwrap();
    assert_eq!(a.len(), 7);
    for (i, e) in a.entries().iter().enumerate() {
        assert_eq!(e.method(), Method::ALL[i]);
        assert_eq!(e.decode().unwrap(), super::sample_data(i));
    }
}

#[test]
fn check1_header_shorter_than_32_bytes() {
    let bytes = sample();
    assert_eq!(
        strict_err(&bytes[..31]),
        RsliError::HeaderTruncated { need: 32, have: 31 }
    );
    assert_eq!(
        strict_err(&[]),
        RsliError::HeaderTruncated { need: 32, have: 0 }
    );
}

#[test]
fn check1_magic() {
    let mut bytes = sample();
    bytes[1] = b'R';
    assert_eq!(strict_err(&bytes), RsliError::BadMagic { found: *b"NR" });
}

#[test]
fn check1_reserved_byte() {
    let mut bytes = sample();
    bytes[2] = 7;
    assert_eq!(strict_err(&bytes), RsliError::BadReserved { found: 7 });
}

#[test]
fn check1_version() {
    let mut bytes = sample();
    bytes[3] = 2;
    assert_eq!(strict_err(&bytes), RsliError::BadVersion { found: 2 });
}

#[test]
fn check2_negative_entry_count() {
    let mut bytes = sample();
    bytes[4..6].copy_from_slice(&(-1i16).to_le_bytes());
    assert_eq!(
        strict_err(&bytes),
        RsliError::NegativeEntryCount { count: -1 }
    );
}

#[test]
fn check2_table_must_fit_in_the_file() {
    let mut bytes = sample();
    bytes[4..6].copy_from_slice(&1000i16.to_le_bytes());
    let len = bytes.len();
    assert_eq!(
        strict_err(&bytes),
        RsliError::TableTruncated {
            count: 1000,
            table_end: 32 + 32_000,
            file_len: len
        }
    );
    // A table that ends exactly at the end of the file is fine.
    let mut b = RsliBuilder::new();
    b.add("EMPTY", Method::Raw, Vec::new());
    let bytes = b.build().unwrap();
    assert_eq!(bytes.len(), 64);
    assert_eq!(
        Rsli::parse(&bytes).unwrap().entries()[0].decode().unwrap(),
        b""
    );
}

#[test]
fn check3_presorted_value_out_of_range() {
    for bad in [-1i16, 7, 0x7FFF] {
        let mut bytes = sample();
        patch_table(&mut bytes, |r| set_u16(&mut r[3], 0x12, bad as u16));
        assert_eq!(
            strict_err(&bytes),
            RsliError::SortIndexOutOfRange {
                slot: 3,
                offset: 32 + 3 * 32 + 0x12,
                value: bad,
                count: 7
            }
        );
    }
}

#[test]
fn check3_presorted_not_a_permutation() {
    let mut bytes = sample();
    let mut first = 0;
    patch_table(&mut bytes, |r| {
        first = u16::from_le_bytes([r[0][0x12], r[0][0x13]]);
        r[5][0x12..0x14].copy_from_slice(&first.to_le_bytes());
    });
    assert!(matches!(
        strict_err(&bytes),
        RsliError::SortIndexDuplicate { slot: 5, first: 0, value, .. } if value == first
    ));
}

#[test]
fn check3_presorted_names_must_be_ordered() {
    // Swap the stored values of two slots: still a permutation, no longer ordered.
    let mut bytes = sample();
    patch_table(&mut bytes, |r| {
        let (a, b) = (r[0][0x12..0x14].to_vec(), r[1][0x12..0x14].to_vec());
        r[0][0x12..0x14].copy_from_slice(&b);
        r[1][0x12..0x14].copy_from_slice(&a);
    });
    assert!(matches!(
        strict_err(&bytes),
        RsliError::SortNotOrdered { slot: 1, .. }
    ));
    // Not presorted: the stored values are ignored and the order is rebuilt.
    bytes[0x0E] = 0;
    assert_eq!(
        Rsli::parse(&bytes).unwrap().sort_source(),
        crate::SortSource::Rebuilt
    );
}

#[test]
fn check3_compatible_quirk_falls_back_to_linear_lookup() {
    let mut bytes = sample();
    patch_table(&mut bytes, |r| set_u16(&mut r[2], 0x12, 0xFFFF));
    assert!(matches!(
        strict_err(&bytes),
        RsliError::SortIndexOutOfRange { .. }
    ));
    let a = Rsli::parse_with(
        &bytes,
        ReadOptions::strict().with_quirk(Quirk::SortTableLinearLookup),
    )
    .unwrap();
    assert_eq!(a.sort_source(), crate::SortSource::Linear);
    assert!(a.sort_order().is_empty());
    assert_eq!(a.find("e2.lzs").map(|e| e.index()), Some(2));
    assert_eq!(a.find("e6.def").map(|e| e.index()), Some(6));
    // Entry 2 (0x040) has no transform, so its broken sort field does not matter.
    assert_eq!(a.entries()[2].decode().unwrap(), super::sample_data(2));
}

#[test]
fn check4_unknown_method_names_the_entry_and_flags() {
    let mut bytes = sample();
    patch_table(&mut bytes, |r| set_u16(&mut r[4], 0x10, 0x00C0 | 0x8001));
    let err = strict_err(&bytes);
    assert_eq!(
        err,
        RsliError::InEntry {
            index: 4,
            name: "E4.LZH".into(),
            record_offset: 32 + 4 * 32,
            source: Box::new(RsliError::UnknownMethod {
                flags: 0x80C1,
                method: 0x0C0
            }),
        }
    );
    assert!(err.to_string().contains("0x80c1"), "{err}");
    for bad in [0x120u16, 0x140, 0x160, 0x180, 0x1A0, 0x1C0, 0x1E0] {
        let mut bytes = sample();
        patch_table(&mut bytes, |r| set_u16(&mut r[0], 0x10, bad));
        assert!(
            matches!(strict_err(&bytes).root(), RsliError::UnknownMethod { .. }),
            "{bad:#x}"
        );
    }
}

#[test]
fn check5_payload_range_inside_the_file() {
    let bytes0 = sample();
    let len = bytes0.len() as u64;
    // Offset past the end.
    let mut bytes = bytes0.clone();
    patch_table(&mut bytes, |r| set_u32(&mut r[1], 0x18, u32::MAX));
    assert!(matches!(
        strict_err(&bytes).root(),
        RsliError::PayloadOutOfRange {
            start: 0xFFFF_FFFF,
            ..
        }
    ));
    // Packed size one too large for the last entry (not INTERF8.TEX): no tolerance.
    let mut bytes = bytes0.clone();
    patch_table(&mut bytes, |r| {
        let p = u32::from_le_bytes(r[6][0x1C..0x20].try_into().unwrap());
        set_u32(&mut r[6], 0x1C, p + 1);
    });
    let err = Rsli::parse_with(&bytes, ReadOptions::compatible()).unwrap_err();
    assert!(
        matches!(err.root(), RsliError::PayloadOutOfRange { end, .. } if *end == len + 1),
        "{err}"
    );
    // Offset + size overflowing 32 bits is computed in 64 bits and rejected.
    let mut bytes = bytes0;
    patch_table(&mut bytes, |r| {
        set_u32(&mut r[0], 0x18, 0xFFFF_FFF0);
        set_u32(&mut r[0], 0x1C, 0x20);
        set_u32(&mut r[0], 0x14, 0x20);
    });
    assert!(matches!(
        strict_err(&bytes).root(),
        RsliError::PayloadOutOfRange {
            end: 0x1_0000_0010,
            ..
        }
    ));
}

#[test]
fn check5_overlay_is_added_before_the_range_check() {
    let mut b = RsliBuilder::new();
    b.add("A", Method::Raw, b"0123456789".to_vec())
        .overlay(Some(16));
    let mut bytes = b.build().unwrap();
    assert_eq!(
        Rsli::parse(&bytes).unwrap().entries()[0].decode().unwrap(),
        b"0123456789"
    );
    // A larger overlay pushes the entry past the end of the file.
    let n = bytes.len();
    bytes[n - 4..].copy_from_slice(&40u32.to_le_bytes());
    assert!(matches!(
        strict_err(&bytes).root(),
        RsliError::PayloadOutOfRange { .. }
    ));
}

#[test]
fn trailer_overlay_larger_than_the_file() {
    let mut b = RsliBuilder::new();
    b.add("A", Method::Raw, b"x".to_vec()).overlay(Some(0));
    let mut bytes = b.build().unwrap();
    let n = bytes.len();
    bytes[n - 4..].copy_from_slice(&(n as u32 + 1).to_le_bytes());
    assert_eq!(
        strict_err(&bytes),
        RsliError::OverlayOutOfRange {
            offset: n - 6,
            overlay: n as u32 + 1,
            file_len: n
        }
    );
}

#[test]
fn check6_stored_methods_need_equal_sizes() {
    for (index, method) in [(0usize, Method::Raw), (1, Method::Transform)] {
        let mut bytes = sample();
        patch_table(&mut bytes, |r| {
            let u = u32::from_le_bytes(r[index][0x14..0x18].try_into().unwrap());
            set_u32(&mut r[index], 0x14, u - 1);
        });
        assert!(
            matches!(strict_err(&bytes).root(), RsliError::StoredSizeMismatch { method: m, .. } if *m == method)
        );
    }
}

#[test]
fn check6_decoded_size_must_equal_unpacked_size() {
    // Declared sizes one larger and one smaller than the real payload.
    for index in 2..7 {
        for delta in [1i64, -1] {
            let mut bytes = sample();
            patch_table(&mut bytes, |r| {
                let u = i64::from(u32::from_le_bytes(r[index][0x14..0x18].try_into().unwrap()));
                set_u32(&mut r[index], 0x14, (u + delta) as u32);
            });
            let a = Rsli::parse(&bytes).unwrap();
            let e = &a.entries()[index];
            let result = e.decode();
            match e.method() {
                // Deflate knows where its stream ends: both directions are errors.
                Method::Deflate => assert!(
                    matches!(result, Err(RsliError::InEntry { index: i, .. }) if i == index)
                ),
                // LZSS has no padding: asking for one more byte runs out of input.
                Method::Lzss | Method::TransformLzss if delta > 0 => {
                    assert!(matches!(
                        result.unwrap_err().root(),
                        RsliError::InputTruncated { .. }
                    ));
                }
                // LZ streams have no end marker: a shorter size stops early, a longer one
                // may decode padding bits. Either way: an error or exactly the size.
                _ => {
                    if let Ok(v) = result {
                        assert_eq!(v.len() as u64, u64::from(e.unpacked_size()));
                    }
                }
            }
        }
    }
}

fn interf8_archive(name: &str, method: Method) -> Vec<u8> {
    let mut b = RsliBuilder::new();
    b.add("FIRST.TEX", Method::Deflate, vec![1u8; 300]);
    b.add(name, method, b"interface sprite interface sprite".repeat(9));
    let mut bytes = b.build().unwrap();
    // Declare the packed range one byte past the end of the file, as sprites.lib does.
    patch_table(&mut bytes, |r| {
        let p = u32::from_le_bytes(r[1][0x1C..0x20].try_into().unwrap());
        set_u32(&mut r[1], 0x1C, p + 1);
    });
    bytes
}

#[test]
fn quirk_deflate_eof_plus_one_strict_names_it_and_compatible_reads_it() {
    let bytes = interf8_archive("INTERF8.TEX", Method::Deflate);
    let err = strict_err(&bytes);
    assert_eq!(
        err.root(),
        &RsliError::QuirkRequired {
            quirk: Quirk::DeflateEofPlusOne
        }
    );
    assert!(
        err.to_string().contains("deflate_eof_plus_one") && err.to_string().contains("INTERF8.TEX"),
        "{err}"
    );
    let opts = ReadOptions::strict().with_quirk(Quirk::DeflateEofPlusOne);
    let a = Rsli::parse_with(&bytes, opts).unwrap();
    let e = &a.entries()[1];
    assert_eq!(e.quirk(), Some(Quirk::DeflateEofPlusOne));
    assert_eq!(e.packed_data().len() + 1, e.packed_size() as usize);
    assert_eq!(
        e.decode().unwrap(),
        b"interface sprite interface sprite".repeat(9)
    );
    assert_eq!(a.entries()[0].quirk(), None);
    assert_eq!(a.to_bytes(), bytes);
    // The name is compared upper-cased.
    let bytes = interf8_archive("interf8.tex", Method::Deflate);
    assert!(Rsli::parse_with(&bytes, opts).is_ok());
}

#[test]
fn quirk_deflate_eof_plus_one_does_not_extend_to_other_cases() {
    let compat = ReadOptions::compatible();
    // Other name, other method.
    for (name, method) in [
        ("INTERF9.TEX", Method::Deflate),
        ("INTERF8.TE", Method::Deflate),
        ("INTERF8.TEX", Method::Lzss),
        ("INTERF8.TEX", Method::Raw),
    ] {
        let bytes = interf8_archive(name, method);
        let err = Rsli::parse_with(&bytes, compat).unwrap_err();
        assert!(
            matches!(
                err.root(),
                RsliError::PayloadOutOfRange { .. } | RsliError::StoredSizeMismatch { .. }
            ),
            "{name} {method}: {err}"
        );
    }
    // Two bytes past the end.
    let mut bytes = interf8_archive("INTERF8.TEX", Method::Deflate);
    patch_table(&mut bytes, |r| {
        let p = u32::from_le_bytes(r[1][0x1C..0x20].try_into().unwrap());
        set_u32(&mut r[1], 0x1C, p + 1);
    });
    assert!(matches!(
        Rsli::parse_with(&bytes, compat).unwrap_err().root(),
        RsliError::PayloadOutOfRange { .. }
    ));
}
