//! Compatible reader: each quirk keeps the raw value, reports a named diagnostic with
//! the record and offset, tolerates only its own checks, and the file still re-serialises
//! byte for byte.

use super::support::{Enc, sample};
use crate::{Check, Location, Quirk, RawF32, ReadOptions, Tma, TmaError, VersionField};

fn compat_round_trip(data: &[u8]) -> crate::Parsed {
    let p = Tma::parse_compatible(data).expect("compatible reader accepts");
    assert_eq!(p.tma.to_bytes().expect("encodable"), data, "lossless");
    assert!(
        Tma::parse(data).is_err(),
        "strict refuses what needed a quirk"
    );
    for d in &p.diagnostics {
        assert!(d.quirk.tolerates().contains(&d.tolerated.check()), "{d}");
        assert!(
            d.to_string()
                .starts_with(&format!("quirk {} applied: [", d.quirk)),
            "{d}"
        );
    }
    p
}

#[test]
fn unknown_versions_are_kept_and_reported_for_all_five_fields() {
    let mut t = sample(2);
    t.format_version = 2;
    t.clan_section_version = 7;
    t.object_section_version = 0xFFFF_FFFF;
    t.objects[1].property_schema_version = 0;
    t.extra_section_version = 3;
    let data = t.to_bytes().expect("encodable");
    let p = compat_round_trip(&data);
    assert_eq!(p.tma, t);
    let got: Vec<(VersionField, u32, Location)> = p
        .diagnostics
        .iter()
        .map(|d| match &d.tolerated {
            TmaError::BadVersion { which, found, site } => (*which, *found, site.location),
            other => panic!("unexpected {other}"),
        })
        .collect();
    assert_eq!(
        got,
        [
            (VersionField::Format, 2, Location::Header),
            (VersionField::ClanSection, 7, Location::ClanSection),
            (
                VersionField::ObjectSection,
                0xFFFF_FFFF,
                Location::ObjectSection
            ),
            (VersionField::PropertySchema, 0, Location::Object(1)),
            (VersionField::ExtraSection, 3, Location::ExtraSection),
        ]
    );
    assert!(
        p.diagnostics
            .iter()
            .all(|d| d.quirk == Quirk::UnknownVersions)
    );
    assert_eq!(p.diagnostics[0].tolerated.offset(), 0);
    assert_eq!(
        p.diagnostics[0].to_string(),
        "quirk unknown_versions applied: [format_version] header `format_version` at offset 0x0: expected 1, found 2"
    );
}

#[test]
fn other_class_or_flags_is_kept_and_reported() {
    let mut t = sample(0);
    t.objects[2].class_or_flags = 0;
    let p = compat_round_trip(&t.to_bytes().expect("encodable"));
    assert_eq!(p.diagnostics.len(), 1);
    let d = &p.diagnostics[0];
    assert_eq!(
        (d.quirk, d.tolerated.check()),
        (Quirk::OtherClassOrFlags, Check::ClassOrFlags)
    );
    assert_eq!(d.tolerated.location(), Location::Object(2));
    assert_eq!(p.tma.objects[2].class_or_flags, 0);
}

#[test]
fn non_finite_transforms_are_kept_bit_exact_and_reported_per_component() {
    let mut t = sample(0);
    t.objects[0].position[1] = RawF32(0x7FA0_0001); // signalling NaN payload
    t.objects[1].orientation[2] = RawF32(0xFF80_0000);
    t.objects[1].scale[0] = RawF32(0xFFFF_FFFF);
    let p = compat_round_trip(&t.to_bytes().expect("encodable"));
    let fields: Vec<(Location, &str, u32)> = p
        .diagnostics
        .iter()
        .map(|d| match &d.tolerated {
            TmaError::NonFinite { site, bits } => (site.location, site.field, *bits),
            other => panic!("unexpected {other}"),
        })
        .collect();
    assert_eq!(
        fields,
        [
            (Location::Object(0), "position", 0x7FA0_0001),
            (Location::Object(1), "orientation", 0xFF80_0000),
            (Location::Object(1), "scale", 0xFFFF_FFFF),
        ]
    );
    assert_eq!(p.tma.objects[0].position[1].bits(), 0x7FA0_0001);
}

#[test]
fn each_quirk_tolerates_only_its_own_checks() {
    let mut t = sample(1);
    t.format_version = 9;
    t.objects[0].class_or_flags = 1;
    t.objects[0].scale[2] = RawF32(0x7F80_0000);
    let data = t.to_bytes().expect("encodable");
    let only = |q| Tma::parse_with(&data, ReadOptions::strict().with(q));
    assert_eq!(
        only(Quirk::UnknownVersions).map_err(|e| e.check()).err(),
        Some(Check::ClassOrFlags)
    );
    assert_eq!(
        only(Quirk::OtherClassOrFlags).map_err(|e| e.check()).err(),
        Some(Check::FormatVersion)
    );
    assert_eq!(
        only(Quirk::CountsOverLimits).map_err(|e| e.check()).err(),
        Some(Check::FormatVersion)
    );
    let two = ReadOptions::strict()
        .with(Quirk::UnknownVersions)
        .with(Quirk::OtherClassOrFlags);
    assert_eq!(
        Tma::parse_with(&data, two).map_err(|e| e.check()).err(),
        Some(Check::FiniteTransform)
    );
    let p = compat_round_trip(&data);
    let quirks: Vec<Quirk> = p.diagnostics.iter().map(|d| d.quirk).collect();
    assert_eq!(
        quirks,
        [
            Quirk::UnknownVersions,
            Quirk::OtherClassOrFlags,
            Quirk::NonFiniteTransforms
        ]
    );
}

#[test]
fn valid_files_give_no_diagnostics_in_compatible_mode() {
    for n in 0..=4 {
        let data = sample(n).to_bytes().expect("encodable");
        let p = Tma::parse_compatible(&data).expect("valid");
        assert!(p.diagnostics.is_empty());
        assert_eq!(p.tma, Tma::parse(&data).expect("valid"));
    }
}

#[test]
fn counts_over_limits_are_tolerated_when_they_fit() {
    let mut e = Enc::new();
    e.header_no_paths()
        .no_clans()
        .no_objects()
        .epilogue()
        .u32(1)
        .u32(1_000_001);
    e.bytes(&vec![0; 28 * 1_000_001]);
    let err = Tma::parse(&e.out).expect_err("over the limit");
    assert_eq!((err.check(), err.offset()), (Check::CountLimit, 40));
    let p = compat_round_trip(&e.out);
    assert_eq!(p.tma.extras.len(), 1_000_001);
    assert_eq!(p.diagnostics.len(), 1);
    assert_eq!(p.diagnostics[0].quirk, Quirk::CountsOverLimits);
}

#[test]
fn structural_errors_stay_fatal_in_compatible_mode() {
    let mut trailing = Enc::empty_mission();
    trailing.extend_from_slice(b"xyz");
    let err = Tma::parse_compatible(&trailing).expect_err("trailing");
    assert_eq!((err.check(), err.offset()), (Check::ExactEof, 44));
    let err = Tma::parse_compatible(&trailing[..43]).expect_err("truncated");
    assert_eq!(err.check(), Check::Truncated);
}
