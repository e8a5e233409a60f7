//! Round trips: hand-encoded files decode to the expected records, and every accepted
//! file re-serialises byte for byte (clan mode 0, `extra_count` 0..=4, repeated property
//! names, CP1251 strings, raw float bits).

use super::support::{Enc, lp, sample, spatial_clan};
use crate::{ClanBody, LpString, RawF32, StandardMode, Tma};

fn round_trip(t: &Tma) -> Vec<u8> {
    let bytes = t.to_bytes().expect("encodable");
    let back = Tma::parse(&bytes).expect("strictly valid");
    assert_eq!(&back, t);
    assert_eq!(back.to_bytes().expect("encodable"), bytes);
    bytes
}

#[test]
fn empty_mission_is_the_44_byte_skeleton() {
    let bytes = round_trip(&Tma::new());
    assert_eq!(bytes, Enc::empty_mission());
    assert_eq!(bytes.len(), 44);
}

#[test]
fn hand_encoded_file_decodes_field_by_field() {
    let mut e = Enc::new();
    e.u32(1)
        .u32(1)
        .i32(-5)
        .u32(2)
        .f32s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    e.u32(6).u32(1).clan_mode1(b"A");
    e.u32(10).u32(1).object_head(b"res").u32(1).u32(2);
    e.u32(1).u32(2).u32(3).u32(4).lp(b"Life state");
    e.u32(5).u32(6).u32(7).u32(8).lp(b"Life state");
    e.lp(b"LAND").u32(3).lp(b"desc\0").u32(1).u32(1);
    e.f32s(&[9.0, 8.0, 7.0]).u32(1).u32(2).u32(3).u32(4);
    let t = Tma::parse(&e.out).expect("valid");

    assert_eq!(t.paths[0].id, -5);
    assert_eq!(t.paths[0].points_f32(), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    let c = &t.clans[0];
    assert_eq!(
        (c.name.as_bytes(), c.raw_id, c.anchor_f32()),
        (&b"A"[..], 3, [1.0, 2.0])
    );
    assert_eq!(
        c.body,
        ClanBody::Standard {
            mode: StandardMode::One,
            resource_path_1: lp("script"),
            resource_tag_1: 10,
            resource_path_2: lp("trf"),
            resource_tag_2: 11,
        }
    );
    let o = &t.objects[0];
    assert_eq!(
        (o.raw_kind, o.raw_after_resource, o.identity_or_clan_raw),
        (5, 2, 9)
    );
    assert_eq!(o.position_f32(), [1.0, 2.0, 3.0]);
    assert_eq!(o.orientation_f32(), [0.0, 0.0, 1.5]);
    assert_eq!(o.scale_f32(), [1.0; 3]);
    assert_eq!(
        (o.instance_name.text(), o.link0, o.link1),
        ("stem".into(), -1, -1)
    );
    assert_eq!(o.properties.len(), 2);
    assert_eq!(
        o.property(b"Life state").map(|p| p.raw_value),
        Some([1, 2, 3, 4])
    );
    assert_eq!(o.property(b"life state"), None, "lookup is case-sensitive");
    assert_eq!((t.land_path.text(), t.mission_flag), ("LAND".into(), 3));
    assert_eq!(t.description_raw.as_bytes(), b"desc\0");
    assert_eq!(t.extras[0].position_f32(), [9.0, 8.0, 7.0]);
    assert_eq!(t.extras[0].raw, [1, 2, 3, 4]);
    assert_eq!(t.to_bytes().expect("encodable"), e.out);
}

#[test]
fn clan_mode_0_uses_the_count_driven_layout() {
    let mut t = Tma::new();
    t.clans.push(spatial_clan());
    let bytes = round_trip(&t);
    // Hand-encoded: one resource, the groups, the second resource, then the relations
    // (not two resource pairs).
    let mut e = Enc::new();
    e.header_no_paths().u32(6).u32(1);
    e.lp(&lp("Чужие").into_bytes())
        .i32(-3)
        .f32s(&[1500.5, -20.25])
        .u32(0);
    e.lp(b"MISSIONS\\SCRIPTS\\alien").u32(3);
    e.u32(1).f32s(&[1.0, 2.0, 3.0, 4.0, 5.0]).u32(0).u32(2);
    e.f32s(&[6.0, 7.0, 8.0, 9.0, 10.0, -1.0, -2.0, -3.0, -4.0, -5.0]);
    e.lp(b"alien.trf").i32(-7).u32(2);
    e.lp(&lp("Игрок").into_bytes()).i32(-1);
    e.lp(&lp("Нейтралы").into_bytes()).i32(0);
    e.no_objects().epilogue().no_extras();
    assert_eq!(bytes, e.out);

    t.clans.push(spatial_clan().with_relation(lp("third"), 5));
    let back = Tma::parse(&round_trip(&t)).expect("valid");
    assert_eq!(back.clans[1].relations.len(), 3);
    assert_eq!(back.clans[0].mode(), 0);
    assert_eq!(
        back.clans[0].body.script_base(),
        &lp("MISSIONS\\SCRIPTS\\alien")
    );
}

#[test]
fn extra_count_0_to_4_round_trips_and_5_is_accepted_too() {
    for n in 0..=5 {
        let t = sample(n);
        let bytes = round_trip(&t);
        assert_eq!(Tma::parse(&bytes).expect("valid").extras.len(), n);
        // The extras are exactly the last 8 + 28n bytes: nothing swallowed.
        let tail = 8 + 28 * n;
        let mut e = Enc::new();
        e.u32(1).u32(u32::try_from(n).expect("small"));
        for x in &t.extras {
            for p in x.position {
                e.u32(p.bits());
            }
            for w in x.raw {
                e.u32(w);
            }
        }
        assert_eq!(&bytes[bytes.len() - tail..], &e.out[..]);
    }
}

#[test]
fn repeated_property_names_keep_order_and_duplicates() {
    let t = sample(1);
    let bytes = round_trip(&t);
    let back = Tma::parse(&bytes).expect("valid");
    let names: Vec<String> = back.objects[0]
        .properties
        .iter()
        .map(|p| p.name.text())
        .collect();
    assert_eq!(
        names,
        [
            "Invulnerability",
            "Life state",
            "NOT USED",
            "CurrentOre",
            "NOT USED",
            "CurrentOre",
            "Свойство"
        ]
    );
    let first = back.objects[0].property(b"CurrentOre").expect("present");
    assert_eq!(
        first.setter_word(),
        0x4120_0000,
        "the first match wins, bit-exact"
    );
}

#[test]
fn cp1251_strings_round_trip_in_every_string_field() {
    let t = sample(2);
    let bytes = round_trip(&t);
    let back = Tma::parse(&bytes).expect("valid");
    assert_eq!(back.land_path.text(), "LAND\\Ландшафт1");
    assert_eq!(back.land_path.as_bytes()[5], 0xCB, "Л is 0xCB in CP1251");
    assert_eq!(back.clans[1].name.text(), "Чужие");
    assert_eq!(back.clans[0].relations[0].other_clan_name.text(), "Чужие");
    assert_eq!(back.objects[0].properties[6].name.text(), "Свойство");
    let s = back.summary();
    assert_eq!(s.clans[2].name, "Нейтралы");
    assert_eq!(s.objects[0].properties[6].name, "Свойство");
}

#[test]
fn description_and_strings_keep_service_bytes_and_nul() {
    let t = sample(0);
    let back = Tma::parse(&round_trip(&t)).expect("valid");
    assert_eq!(
        back.description_raw.as_bytes(),
        b"Mission \xC1\x00\x01\xFFC:\\old\\path"
    );
    assert_eq!(back.description_text(), "Mission Б\0\u{1}яC:\\old\\path");
    let mut t = Tma::new();
    t.land_path = LpString::from_bytes(&b"\0\0\0"[..]);
    let back = Tma::parse(&round_trip(&t)).expect("valid");
    assert_eq!(back.land_path.len(), 3);
}

#[test]
fn float_bits_survive_nan_payloads_signed_zero_and_denormals() {
    let mut t = sample(1);
    t.extras[0].position = [
        RawF32(0xFFBF_FFFF),
        RawF32(0x8000_0000),
        RawF32(0x0000_0001),
    ];
    t.clans[0].anchor = [RawF32(0x7F80_0001), RawF32(0xFF80_0000)];
    let bytes = round_trip(&t);
    let back = Tma::parse(&bytes).expect("paths, anchors and extras are not range-checked");
    assert_eq!(back.extras[0].position[0].bits(), 0xFFBF_FFFF);
    assert_eq!(back.paths[2].points[0][0].bits(), 0x7FC0_1234);
    assert_eq!(back.clans[0].anchor[0].bits(), 0x7F80_0001);
}

#[test]
fn summary_has_the_cli_shape() {
    let s = sample(2).summary();
    assert_eq!(s.paths[0].id, 42);
    assert_eq!(s.paths[0].points, [[0.0, 1.0, 2.0], [3.5, -4.0, 5.25]]);
    assert_eq!((s.clans[1].raw_id, s.clans[1].mode), (-3, 0));
    assert_eq!(s.clans[1].relations[1].name, "Нейтралы");
    assert_eq!(s.clans[1].relations[0].value, -1);
    let o = &s.objects[1];
    assert_eq!(
        (o.index, o.resource.as_str(), o.instance_name.as_str()),
        (1, "tree01", "tree01")
    );
    assert_eq!((o.position, o.scale), ([-1.0, 0.0, 1e30], [2.0, 2.0, 0.5]));
    assert_eq!(s.objects[0].properties[1].raw, [1, 2, 3, 4]);
    assert_eq!(s.land_path, "LAND\\Ландшафт1");
    assert_eq!(s.mission_flag, 0xDEAD_0001);
    assert_eq!(s.extras[1].position, [1.0, -1.0, 0.5]);
    assert_eq!(s.extras[1].raw, [1, 0, u32::MAX, 0x8000_0000]);
    assert_eq!(s.description_raw, sample(0).description_raw.as_bytes());
}

#[test]
fn lookups_by_id_and_name() {
    let t = sample(0);
    assert_eq!(t.path_by_id(7).map(|p| p.points.len()), Some(1));
    assert!(t.path_by_id(3).is_none());
    assert_eq!(
        t.clan_by_name("Нейтралы".as_bytes()).map(|c| c.mode()),
        None,
        "UTF-8 is not CP1251"
    );
    assert_eq!(
        t.clan_by_name(lp("Нейтралы").as_bytes()).map(|c| c.mode()),
        Some(3)
    );
}

#[test]
fn validate_re_reads_an_authored_mission() {
    let t = sample(4);
    assert_eq!(t.validate(crate::ReadOptions::strict()), Ok(vec![]));
    let mut bad = t.clone();
    bad.objects[2].class_or_flags = 7;
    let err = bad
        .validate(crate::ReadOptions::strict())
        .expect_err("strict");
    assert_eq!(err.check(), crate::Check::ClassOrFlags);
    assert_eq!(err.location(), crate::Location::Object(2));
    let diags = bad
        .validate(crate::ReadOptions::compatible())
        .expect("compatible");
    assert_eq!(diags.len(), 1);
}
