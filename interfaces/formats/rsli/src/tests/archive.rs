//! Lookup, transform keys, the `AO` trailer, the writer's choices and lossless rewriting.

use super::{patch_table, sample};
use crate::header::PRESORTED_FLAG;
use crate::writer::{DEFAULT_SEED, MAX_ENTRIES};
use crate::{EntrySpec, Method, ReadOptions, Rsli, RsliBuilder, RsliError, SortSource};

#[test]
fn lookup_upper_cases_the_query_and_compares_exactly() {
    let bytes = sample();
    let a = Rsli::parse(&bytes).unwrap();
    assert_eq!(a.sort_source(), SortSource::Presorted);
    for e in a.entries() {
        let lower = String::from_utf8(e.name().to_ascii_lowercase()).unwrap();
        assert_eq!(a.find(&lower).map(|f| f.index()), Some(e.index()));
    }
    assert!(a.find("NOPE").is_none());
    assert!(
        a.find("E0.RAW.TOO.LONG").is_none(),
        "longer than 12 bytes never matches"
    );
    assert!(
        a.find("E0.RAW\0").is_none(),
        "NUL in the query never matches"
    );
    assert!(a.find("E0.RA").is_none(), "a prefix is not a match");
}

#[test]
fn lookup_of_a_stored_lower_case_name_fails_like_the_original() {
    let mut bytes = sample();
    // Entry 6 "E6.DEF" is last in the order; lower-casing keeps the table ordered.
    patch_table(&mut bytes, |r| r[6][..6].copy_from_slice(b"e6.def"));
    let a = Rsli::parse(&bytes).unwrap();
    assert!(
        a.find("e6.def").is_none(),
        "the query is upper-cased, the stored name is not"
    );
    assert_eq!(a.find_bytes(b"E5.TRA").map(|e| e.index()), Some(5));
}

#[test]
fn twelve_byte_names_without_nul_and_name_tails() {
    let mut b = RsliBuilder::new();
    b.add("TWELVE.BYTES", Method::Raw, b"12".to_vec())
        .add("SHORT", Method::Raw, b"5".to_vec());
    let mut bytes = b.build().unwrap();
    patch_table(&mut bytes, |r| r[1][6..12].copy_from_slice(b"TAIL!!"));
    let a = Rsli::parse(&bytes).unwrap();
    assert_eq!(a.entries()[0].name(), b"TWELVE.BYTES");
    assert_eq!(a.entries()[0].name_field(), b"TWELVE.BYTES");
    assert_eq!(a.entries()[1].name(), b"SHORT");
    assert_eq!(a.entries()[1].name_field(), b"SHORT\0TAIL!!");
    assert_eq!(a.find("twelve.bytes").map(|e| e.index()), Some(0));
    assert_eq!(a.find("short").map(|e| e.index()), Some(1));
    assert_eq!(a.to_bytes(), bytes, "the tail is kept");
}

#[test]
fn not_presorted_rebuilds_the_order_and_keys_transforms_with_it() {
    let mut b = RsliBuilder::new();
    b.presorted(false)
        .add("ZETA", Method::Transform, b"zeta zeta".to_vec())
        .add(
            "ALPHA",
            Method::TransformLzss,
            b"alpha alpha alpha".to_vec(),
        )
        .add("MID", Method::TransformLzhuf, b"mid mid mid mid".to_vec());
    let bytes = b.build().unwrap();
    assert_eq!(&bytes[0x0E..0x10], &[0, 0]);
    let a = Rsli::parse(&bytes).unwrap();
    assert_eq!(a.sort_source(), SortSource::Rebuilt);
    assert_eq!(a.sort_order(), &[1, 2, 0]);
    // Stored sort fields are zero; the keys are the rebuilt mapping values per slot.
    let keys: Vec<u16> = a.entries().iter().map(|e| e.transform_key()).collect();
    assert_eq!(keys, [1, 2, 0]);
    assert!(a.entries().iter().all(|e| e.sort_field() == 0));
    assert_eq!(a.find("zeta").unwrap().decode().unwrap(), b"zeta zeta");
    assert_eq!(
        a.find("alpha").unwrap().decode().unwrap(),
        b"alpha alpha alpha"
    );
    assert_eq!(a.find("mid").unwrap().decode().unwrap(), b"mid mid mid mid");

    // The presorted form stores the same values and uses them as keys.
    b.presorted(true);
    let sorted = b.build().unwrap();
    let s = Rsli::parse(&sorted).unwrap();
    assert_eq!(
        u16::from_le_bytes([sorted[0x0E], sorted[0x0F]]),
        PRESORTED_FLAG
    );
    assert!(
        s.entries()
            .iter()
            .all(|e| e.transform_key() == e.sort_field() as u16)
    );
    assert_eq!(
        &sorted[32 + 96..],
        &bytes[32 + 96..],
        "same payload bytes either way"
    );
}

#[test]
fn transform_key_is_the_presorted_field() {
    // With a key other than the stored field, a transformed payload decodes to garbage.
    let bytes = sample();
    let a = Rsli::parse(&bytes).unwrap();
    let e = &a.entries()[1];
    assert_eq!(e.method(), Method::Transform);
    assert_eq!(e.transform_key(), e.sort_field() as u16);
    let wrong = crate::codec::decode(
        e.method(),
        e.packed_data(),
        e.unpacked_size() as usize,
        e.transform_key() ^ 1,
    )
    .unwrap();
    assert_ne!(wrong, super::sample_data(1));
}

#[test]
fn duplicate_names_find_the_lowest_original_index() {
    let mut b = RsliBuilder::new();
    b.presorted(false)
        .add("B", Method::Raw, b"b0".to_vec())
        .add("A", Method::Raw, b"a".to_vec())
        .add("C", Method::Raw, b"b2".to_vec());
    let mut bytes = b.build().unwrap();
    patch_table(&mut bytes, |r| r[2][0] = b'B');
    let a = Rsli::parse(&bytes).unwrap();
    assert_eq!(a.find("b").map(|e| e.index()), Some(0));
    assert_eq!(a.sort_order(), &[1, 0, 2]);
}

#[test]
fn ao_trailer_roundtrip_and_overlay_offsets() {
    let mut b = RsliBuilder::new();
    b.add("ONE", Method::Lzss, b"one one one one".to_vec())
        .add("TWO", Method::Deflate, b"two two two two".to_vec())
        .overlay(Some(64));
    let bytes = b.build().unwrap();
    assert_eq!(&bytes[bytes.len() - 6..bytes.len() - 4], b"AO");
    let a = Rsli::parse(&bytes).unwrap();
    assert_eq!(a.overlay(), 64);
    assert_eq!(a.trailer().map(|t| t.offset), Some(bytes.len() - 6));
    let e = &a.entries()[0];
    assert_eq!(e.data_offset(), e.data_offset_raw() as usize + 64);
    assert_eq!(e.data_offset(), a.table_end());
    assert_eq!(a.find("two").unwrap().decode().unwrap(), b"two two two two");
    assert_eq!(a.to_bytes(), bytes);
    // An overlay past the table end cannot be written.
    b.overlay(Some(1000));
    assert!(matches!(
        b.build(),
        Err(RsliError::OverlayTooLarge { overlay: 1000, .. })
    ));
}

#[test]
fn ao_inside_the_header_or_table_is_not_a_trailer() {
    let mut b = RsliBuilder::new();
    b.seed(0x4F41_0000);
    let mut bytes = b.build().unwrap();
    assert_eq!(bytes.len(), 32);
    bytes[26..28].copy_from_slice(b"AO");
    let a = Rsli::parse(&bytes).unwrap();
    assert!(a.trailer().is_none() && a.is_empty());
    assert_eq!(a.to_bytes(), bytes);
}

#[test]
fn writer_pads_a_payload_that_would_read_as_a_trailer() {
    let mut b = RsliBuilder::new();
    b.add("TRICKY", Method::Raw, b"data AO\xFF\xFF\xFF\xFF".to_vec());
    let bytes = b.build().unwrap();
    assert_eq!(bytes.last(), Some(&0));
    let a = Rsli::parse(&bytes).unwrap();
    assert!(a.trailer().is_none());
    assert_eq!(a.entries()[0].decode().unwrap(), b"data AO\xFF\xFF\xFF\xFF");
    assert_eq!(a.to_bytes(), bytes);
}

#[test]
fn lossless_rewrite_keeps_gaps_unindexed_bytes_service_and_flags() {
    let mut b = RsliBuilder::new();
    b.push(EntrySpec {
        service: [9, 8, 7, 6],
        extra_flags: 0x8E1F,
        ..EntrySpec::new("KEEP", Method::Lzss, b"keep keep keep".to_vec())
    })
    .add("RAW", Method::Raw, b"raw".to_vec());
    let mut bytes = b.build().unwrap();
    // Opaque header bytes, an unindexed tail and a gap before the first payload.
    bytes[6..14].copy_from_slice(b"OPAQUE!!");
    bytes[0x18..0x20].copy_from_slice(&[0xA5; 8]);
    bytes.extend_from_slice(b"unindexed bytes at the end");
    let a = Rsli::parse(&bytes).unwrap();
    let e = &a.entries()[0];
    assert_eq!(e.service(), [9, 8, 7, 6]);
    assert_eq!(e.flags(), 0x8E1F & !0x1E0 | 0x040);
    assert_eq!(e.method(), Method::Lzss);
    assert_eq!(&a.header().raw()[6..14], b"OPAQUE!!");
    assert_eq!(a.to_bytes(), bytes);
    assert_eq!(a.entries()[1].raw_data(), Some(&b"raw"[..]));
    assert_eq!(e.raw_data(), None);
}

#[test]
fn writer_records_its_seed_and_zeroes_opaque_fields() {
    let bytes = {
        let mut b = RsliBuilder::new();
        b.add("X", Method::Raw, b"x".to_vec());
        b.build().unwrap()
    };
    let a = Rsli::parse(&bytes).unwrap();
    assert_eq!(a.header().xor_seed(), DEFAULT_SEED);
    assert!(
        bytes[6..14]
            .iter()
            .chain(&bytes[0x10..0x14])
            .chain(&bytes[0x18..0x20])
            .all(|&b| b == 0)
    );
    assert_eq!(a.entries()[0].service(), [0; 4]);
    let mut b = RsliBuilder::new();
    b.seed(0xDEAD_BEEF).add("X", Method::Raw, b"x".to_vec());
    let other = b.build().unwrap();
    assert_eq!(Rsli::parse(&other).unwrap().header().table_key(), 0xBEEF);
    assert_ne!(
        other[32..64],
        bytes[32..64],
        "a different seed gives a different table"
    );
    assert_eq!(other[64..], bytes[64..]);
}

#[test]
fn writer_refuses_bad_names_duplicates_and_too_many_entries() {
    for (name, reason) in [
        ("", "empty"),
        ("THIRTEEN.BYTE", "longer than 12 bytes"),
        ("A\0B", "contains NUL"),
    ] {
        let mut b = RsliBuilder::new();
        b.add(name, Method::Raw, Vec::new());
        assert!(
            matches!(b.build(), Err(RsliError::InvalidName { reason: r, .. }) if r == reason),
            "{name:?}"
        );
    }
    let mut b = RsliBuilder::new();
    b.add("Same", Method::Raw, Vec::new())
        .add("OTHER", Method::Raw, Vec::new())
        .add("SAME", Method::Raw, Vec::new());
    assert_eq!(
        b.build(),
        Err(RsliError::DuplicateName {
            name: "SAME".into(),
            first: 0,
            second: 2
        })
    );
    let mut b = RsliBuilder::new();
    for i in 0..=MAX_ENTRIES {
        b.add(format!("{i}"), Method::Raw, Vec::new());
    }
    assert_eq!(b.build(), Err(RsliError::TooManyEntries { count: 32768 }));
}

#[test]
fn writer_upper_cases_names_and_builds_the_largest_table() {
    let mut b = RsliBuilder::new();
    for i in 0..MAX_ENTRIES {
        b.add(format!("n{i}"), Method::Raw, Vec::new());
    }
    let bytes = b.build().unwrap();
    let a = Rsli::parse(&bytes).unwrap();
    assert_eq!(a.len(), MAX_ENTRIES);
    assert_eq!(a.entries()[123].name(), b"N123");
    assert_eq!(a.find("n32766").map(|e| e.index()), Some(32766));
}

#[test]
fn compatible_and_strict_agree_on_clean_archives() {
    let bytes = sample();
    let s = Rsli::parse(&bytes).unwrap();
    let c = Rsli::parse_with(&bytes, ReadOptions::compatible()).unwrap();
    assert_eq!(s.entries(), c.entries());
    assert!(c.entries().iter().all(|e| e.quirk().is_none()));
}
