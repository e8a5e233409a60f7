//! Strict reader: one test per check and per malformed input kind, each asserting the
//! error kind, the record and the byte offset of the offending field.

use super::support::{Enc, sample};
use crate::{Check, Limits, Location, ReadOptions, Tma, TmaError, VersionField};

fn strict_err(data: &[u8]) -> TmaError {
    let e = Tma::parse(data).expect_err("strict reader refuses");
    assert!(
        e.to_string().starts_with(&format!("[{}]", e.check())),
        "{e}"
    );
    e
}

#[test]
fn empty_input_is_truncated_at_offset_0() {
    let e = strict_err(&[]);
    assert_eq!(
        e,
        TmaError::Truncated {
            site: crate::Site {
                location: Location::Header,
                field: "format_version",
                offset: 0
            },
            need: 4,
            have: 0
        }
    );
    assert_eq!(
        e.to_string(),
        "[truncated] header `format_version` at offset 0x0: expected 4 bytes, found 0"
    );
}

#[test]
fn every_strict_prefix_of_a_valid_file_fails_cleanly() {
    let bytes = sample(3).to_bytes().expect("encodable");
    for len in 0..bytes.len() {
        let e = strict_err(&bytes[..len]);
        assert!(
            matches!(
                e.check(),
                Check::Truncated | Check::StringLength | Check::CountFits
            ),
            "prefix {len}: {e}"
        );
        assert!(e.offset() <= len as u64, "prefix {len}: {e}");
    }
}

#[test]
fn truncated_fixed_field_inside_an_object() {
    let mut e = Enc::new();
    e.header_no_paths()
        .no_clans()
        .u32(10)
        .u32(1)
        .object_head(&[b'r'; 20]);
    // The object count passed (84 bytes needed, 100 present); `link1` is cut in half.
    let link1 = e.out.len() - 4;
    let err = strict_err(&e.out[..link1 + 2]);
    assert_eq!(
        err,
        TmaError::Truncated {
            site: crate::Site {
                location: Location::Object(0),
                field: "link1",
                offset: link1 as u64
            },
            need: 4,
            have: 2
        }
    );
    // With fewer than 84 bytes after `object_count`, the count check fires first.
    let err = strict_err(&e.out[..60]);
    assert_eq!((err.check(), err.offset()), (Check::CountFits, 20));
}

#[test]
fn trailing_bytes_are_refused_at_the_end_of_the_extras() {
    let mut data = Enc::empty_mission();
    data.push(0);
    let err = strict_err(&data);
    assert_eq!(err.check(), Check::ExactEof);
    assert_eq!((err.location(), err.offset()), (Location::End, 44));
    assert!(matches!(err, TmaError::TrailingBytes { count: 1, .. }));
}

fn version_case(patch_at: usize, value: u32, which: VersionField, data: &[u8]) {
    let mut bad = data.to_vec();
    bad[patch_at..patch_at + 4].copy_from_slice(&value.to_le_bytes());
    let err = strict_err(&bad);
    assert_eq!(
        (err.check(), err.offset()),
        (which.check(), patch_at as u64),
        "{err}"
    );
    assert!(
        matches!(err, TmaError::BadVersion { found, which: w, .. } if found == value && w == which)
    );
}

#[test]
fn format_version_must_be_1() {
    version_case(0, 2, VersionField::Format, &Enc::empty_mission());
}

#[test]
fn clan_section_version_must_be_6() {
    version_case(8, 5, VersionField::ClanSection, &Enc::empty_mission());
}

#[test]
fn object_section_version_must_be_10() {
    version_case(16, 11, VersionField::ObjectSection, &Enc::empty_mission());
}

#[test]
fn extra_section_version_must_be_1() {
    version_case(36, 0, VersionField::ExtraSection, &Enc::empty_mission());
}

#[test]
fn property_schema_version_must_be_1() {
    let mut e = Enc::new();
    e.header_no_paths()
        .no_clans()
        .u32(10)
        .u32(1)
        .object_head(b"r");
    let at = e.out.len();
    e.u32(1).u32(0).epilogue().no_extras();
    version_case(at, 2, VersionField::PropertySchema, &e.out);
    let err = {
        let mut bad = e.out.clone();
        bad[at] = 0;
        strict_err(&bad)
    };
    assert_eq!(err.location(), Location::Object(0));
}

#[test]
fn clan_mode_must_be_0_to_3() {
    let mut e = Enc::new();
    e.header_no_paths()
        .u32(6)
        .u32(1)
        .lp(b"c")
        .i32(0)
        .f32s(&[0.0, 0.0]);
    let at = e.at();
    e.u32(4).bytes(&[0; 64]);
    let err = strict_err(&e.out);
    assert_eq!(
        (err.check(), err.location(), err.offset()),
        (Check::ClanMode, Location::Clan(0), at)
    );
    assert!(matches!(err, TmaError::BadClanMode { found: 4, .. }));
    // Fatal in compatible mode too.
    let err = Tma::parse_compatible(&e.out).expect_err("unknown layout");
    assert_eq!(err.check(), Check::ClanMode);
}

#[test]
fn class_or_flags_must_be_0x80000002() {
    let mut e = Enc::new();
    e.header_no_paths()
        .no_clans()
        .u32(10)
        .u32(1)
        .object_head(b"r")
        .u32(1)
        .u32(0);
    e.epilogue().no_extras();
    let mut bad = e.out.clone();
    bad[28..32].copy_from_slice(&0x8000_0001u32.to_le_bytes());
    let err = strict_err(&bad);
    assert_eq!(
        (err.check(), err.location(), err.offset()),
        (Check::ClassOrFlags, Location::Object(0), 28)
    );
}

#[test]
fn non_finite_transforms_are_refused() {
    let mut e = Enc::new();
    e.header_no_paths()
        .no_clans()
        .u32(10)
        .u32(1)
        .object_head(b"r")
        .u32(1)
        .u32(0);
    e.epilogue().no_extras();
    // Object starts at 24: raw_kind, flags, "r" (5), two words -> position at 24+21 = 45.
    for (offset, field, bits) in [
        (45, "position", 0x7FC0_0000u32),
        (53, "position", 0xFF80_0000),
        (57, "orientation", 0x7F80_0000),
        (77, "scale", 0xFFFF_FFFF),
    ] {
        let mut bad = e.out.clone();
        bad[offset..offset + 4].copy_from_slice(&bits.to_le_bytes());
        let err = strict_err(&bad);
        assert_eq!(
            (err.check(), err.site().field, err.offset()),
            (Check::FiniteTransform, field, offset as u64)
        );
        assert!(matches!(err, TmaError::NonFinite { bits: b, .. } if b == bits));
    }
}

/// A count at `at` patched to `value` must fail `check` at that offset.
fn count_case(data: &[u8], at: usize, value: u32, check: Check, location: Location, field: &str) {
    let mut bad = data.to_vec();
    bad[at..at + 4].copy_from_slice(&value.to_le_bytes());
    let err = strict_err(&bad);
    assert_eq!(
        (err.check(), err.location(), err.site().field, err.offset()),
        (check, location, field, at as u64),
        "{err}"
    );
    let compat = Tma::parse_compatible(&bad).expect_err("structural errors stay fatal");
    assert_eq!(compat, err);
}

/// A file with one of every counted record; returns it and the offsets of its counts.
fn counted_file() -> (Vec<u8>, Vec<(usize, Location, &'static str)>) {
    let mut offs = Vec::new();
    let mut e = Enc::new();
    e.u32(1);
    offs.push((e.out.len(), Location::Header, "path_count"));
    e.u32(1).i32(0);
    offs.push((e.out.len(), Location::Path(0), "point_count"));
    e.u32(1).f32s(&[0.0; 3]);
    e.u32(6);
    offs.push((e.out.len(), Location::ClanSection, "clan_count"));
    e.u32(1)
        .lp(b"c")
        .i32(0)
        .f32s(&[0.0, 0.0])
        .u32(0)
        .lp(b"first");
    offs.push((e.out.len(), Location::Clan(0), "spatial_group_count"));
    e.u32(1);
    offs.push((
        e.out.len(),
        Location::SpatialGroup { clan: 0, group: 0 },
        "record_count",
    ));
    e.u32(1).f32s(&[0.0; 5]).lp(b"second").i32(0);
    offs.push((e.out.len(), Location::Clan(0), "relation_count"));
    e.u32(1).lp(b"other").i32(1);
    e.u32(10);
    offs.push((e.out.len(), Location::ObjectSection, "object_count"));
    e.u32(1).object_head(b"r").u32(1);
    offs.push((e.out.len(), Location::Object(0), "property_count"));
    e.u32(1).u32(0).u32(0).u32(0).u32(0).lp(b"p");
    e.epilogue().u32(1);
    offs.push((e.out.len(), Location::ExtraSection, "extra_count"));
    e.u32(1).f32s(&[0.0; 3]).u32(0).u32(0).u32(0).u32(0);
    (e.out, offs)
}

#[test]
fn the_counted_file_is_valid() {
    let (data, offs) = counted_file();
    let t = Tma::parse(&data).expect("valid");
    assert_eq!(t.to_bytes().expect("encodable"), data);
    assert_eq!(offs.len(), 9);
}

#[test]
fn every_count_overflowing_the_remaining_bytes_fails_before_allocation() {
    let (data, offs) = counted_file();
    for (at, location, field) in offs {
        // Far more records than bytes remain, but not negative.
        for value in [
            0x7FFF_FFFF,
            0x0100_0000,
            u32::try_from(data.len()).expect("small"),
        ] {
            count_case(&data, at, value, Check::CountFits, location, field);
        }
    }
}

#[test]
fn count_past_end_reports_count_record_size_and_remaining() {
    let mut data = Enc::empty_mission();
    data[40..44].copy_from_slice(&2u32.to_le_bytes());
    data.extend_from_slice(&[0; 55]);
    let err = strict_err(&data);
    assert_eq!(
        err,
        TmaError::CountPastEnd {
            site: crate::Site {
                location: Location::ExtraSection,
                field: "extra_count",
                offset: 40
            },
            count: 2,
            min_record: 28,
            remaining: 55
        }
    );
}

#[test]
fn every_negative_count_is_refused() {
    let (data, offs) = counted_file();
    for (at, location, field) in offs {
        for value in [u32::MAX, 0x8000_0000] {
            count_case(&data, at, value, Check::NegativeCount, location, field);
        }
    }
}

#[test]
fn truncated_strings_report_their_length_prefix() {
    // land_path claims 10 bytes but only 3 remain after its prefix.
    let mut e = Enc::new();
    e.header_no_paths()
        .no_clans()
        .no_objects()
        .u32(10)
        .bytes(b"abc");
    let err = strict_err(&e.out);
    assert_eq!(
        err,
        TmaError::StringPastEnd {
            site: crate::Site {
                location: Location::Epilogue,
                field: "land_path",
                offset: 24
            },
            len: 10,
            remaining: 3
        }
    );
    // A property name, a clan name and a huge length.
    let (data, _) = counted_file();
    let t = Tma::parse(&data).expect("valid");
    let name_at = data.len() - 36 - 12 - 5; // 36 = extra section, 12 = epilogue, "p" = 5
    assert_eq!(&data[name_at..name_at + 5], b"\x01\0\0\0p");
    for len in [50u32, u32::MAX] {
        // 49 bytes remain after the prefix
        let mut bad = data.clone();
        bad[name_at..name_at + 4].copy_from_slice(&len.to_le_bytes());
        let err = strict_err(&bad);
        assert_eq!(
            (err.check(), err.location(), err.site().field, err.offset()),
            (
                Check::StringLength,
                Location::Property {
                    object: 0,
                    property: 0
                },
                "name",
                name_at as u64
            )
        );
    }
    let mut bad = data.clone();
    bad[36..40].copy_from_slice(&0xFFFF_FF00u32.to_le_bytes()); // clan name "c" at 36
    let err = strict_err(&bad);
    assert_eq!(
        (err.check(), err.location(), err.offset()),
        (Check::StringLength, Location::Clan(0), 36)
    );
    assert_eq!(t.clans[0].name.as_bytes(), b"c");
}

#[test]
fn fparkan_count_limits_apply_in_strict_mode() {
    // 16 385 empty paths: they fit the bytes but exceed FParkan's 16 384.
    let mut e = Enc::new();
    e.u32(1).u32(16_385);
    for i in 0..16_385 {
        e.i32(i).u32(0);
    }
    e.no_clans().no_objects().epilogue().no_extras();
    let err = strict_err(&e.out);
    assert!(matches!(
        err,
        TmaError::CountOverLimit {
            count: 16_385,
            limit: 16_384,
            ..
        }
    ));
    assert_eq!((err.location(), err.offset()), (Location::Header, 4));
    let ok =
        Tma::parse_with(&e.out, ReadOptions::strict().with_limits(Limits::NONE)).expect("no limit");
    assert_eq!(ok.tma.paths.len(), 16_385);
    assert!(ok.diagnostics.is_empty());
}

#[test]
fn custom_limits_cover_every_limited_count() {
    let (data, offs) = counted_file();
    let zero = Limits {
        paths: 0,
        points_per_path: 0,
        clans: 0,
        relations_per_clan: 0,
        spatial_groups_per_clan: 0,
        objects: 0,
        properties_per_object: 0,
        extras: 0,
    };
    let opts = ReadOptions::strict().with_limits(zero);
    let err = Tma::parse_with(&data, opts).expect_err("limit 0");
    assert_eq!((err.check(), err.offset()), (Check::CountLimit, 4));
    let compat =
        Tma::parse_with(&data, ReadOptions::compatible().with_limits(zero)).expect("tolerated");
    let at: Vec<u64> = compat
        .diagnostics
        .iter()
        .map(|d| d.tolerated.offset())
        .collect();
    // Every count but the spatial record_count (no published limit) is reported.
    let expected: Vec<u64> = offs
        .iter()
        .filter(|(_, _, f)| *f != "record_count")
        .map(|(o, _, _)| *o as u64)
        .collect();
    assert_eq!(at, expected);
}
