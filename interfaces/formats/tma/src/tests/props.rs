//! Property tests: random valid missions encode → decode → encode byte-identically, random
//! compatible missions (any versions, flags, float bits) too, and random edits of valid
//! files never panic and either fail with a located error or round-trip.

use crate::{
    Check, Clan, ClanBody, ExtraRecord28, LpString, Path, PlacedObject, Property, RawF32, Relation,
    SpatialGroup, StandardMode, Tma,
};
use proptest::collection::vec;
use proptest::prelude::*;

fn lp() -> impl Strategy<Value = LpString> {
    prop_oneof![
        vec(any::<u8>(), 0..12).prop_map(LpString::from_bytes),
        "[a-zA-Z0-9 _.\\\\]{0,10}".prop_map(|s| LpString::from_bytes(s.into_bytes())),
        "[а-яА-ЯёЁ№ ]{0,8}".prop_map(|s| LpString::from_text(&s).expect("cyrillic is CP1251")),
    ]
}

fn any_f() -> impl Strategy<Value = RawF32> {
    any::<u32>().prop_map(RawF32)
}

fn finite_f() -> impl Strategy<Value = RawF32> {
    prop_oneof![
        (-1e6f32..1e6).prop_map(RawF32::new),
        any::<u32>()
            .prop_map(RawF32)
            .prop_filter("finite", |f| f.get().is_finite()),
    ]
}

fn path() -> impl Strategy<Value = Path> {
    (any::<i32>(), vec([any_f(), any_f(), any_f()], 0..4))
        .prop_map(|(id, points)| Path { id, points })
}

fn relation() -> impl Strategy<Value = Relation> {
    (lp(), any::<i32>()).prop_map(|(n, v)| Relation::new(n, v))
}

fn body() -> impl Strategy<Value = ClanBody> {
    let standard =
        (1u32..=3, lp(), any::<i32>(), lp(), any::<i32>()).prop_map(|(m, p1, t1, p2, t2)| {
            ClanBody::Standard {
                mode: StandardMode::from_raw(m).unwrap_or(StandardMode::One),
                resource_path_1: p1,
                resource_tag_1: t1,
                resource_path_2: p2,
                resource_tag_2: t2,
            }
        });
    let group = vec([any_f(), any_f(), any_f(), any_f(), any_f()], 0..3)
        .prop_map(|records| SpatialGroup { records });
    let spatial = (lp(), vec(group, 0..3), lp(), any::<i32>()).prop_map(|(f, groups, s, tag)| {
        ClanBody::Spatial {
            first_resource: f,
            groups,
            second_resource: s,
            second_tag: tag,
        }
    });
    prop_oneof![standard, spatial]
}

fn clan() -> impl Strategy<Value = Clan> {
    (
        lp(),
        any::<i32>(),
        [any_f(), any_f()],
        body(),
        vec(relation(), 0..3),
    )
        .prop_map(|(name, raw_id, anchor, body, relations)| Clan {
            name,
            raw_id,
            anchor,
            body,
            relations,
        })
}

fn property() -> impl Strategy<Value = Property> {
    let name = prop_oneof![
        Just(LpString::from(b"NOT USED")),
        Just(LpString::from(b"Life state")),
        Just(LpString::from(b"CurrentOre")),
        lp(),
    ];
    (any::<[u32; 4]>(), name).prop_map(|(raw_value, name)| Property { raw_value, name })
}

/// An object; `strict` keeps the fields the strict reader checks valid.
fn object(strict: bool) -> impl Strategy<Value = PlacedObject> {
    let f: BoxedStrategy<RawF32> = if strict {
        finite_f().boxed()
    } else {
        any_f().boxed()
    };
    let flags: BoxedStrategy<u32> = if strict {
        Just(crate::CLASS_OR_FLAGS).boxed()
    } else {
        prop_oneof![Just(crate::CLASS_OR_FLAGS), any::<u32>()].boxed()
    };
    let schema: BoxedStrategy<u32> = if strict {
        Just(1).boxed()
    } else {
        any::<u32>().boxed()
    };
    let head = (any::<u32>(), flags, lp(), any::<u32>(), any::<u32>());
    let xf = (
        [f.clone(), f.clone(), f.clone()],
        [f.clone(), f.clone(), f.clone()],
        [f.clone(), f.clone(), f],
    );
    let tail = (
        lp(),
        any::<u32>(),
        any::<i32>(),
        any::<i32>(),
        schema,
        vec(property(), 0..5),
    );
    (head, xf, tail).prop_map(|((k, c, r, a, id), (p, o, s), (n, an, l0, l1, v, props))| {
        PlacedObject {
            raw_kind: k,
            class_or_flags: c,
            resource_name: r,
            raw_after_resource: a,
            identity_or_clan_raw: id,
            position: p,
            orientation: o,
            scale: s,
            instance_name: n,
            raw_after_name: an,
            link0: l0,
            link1: l1,
            property_schema_version: v,
            properties: props,
        }
    })
}

fn extra() -> impl Strategy<Value = ExtraRecord28> {
    ([any_f(), any_f(), any_f()], any::<[u32; 4]>())
        .prop_map(|(position, raw)| ExtraRecord28 { position, raw })
}

fn mission(strict: bool) -> impl Strategy<Value = Tma> {
    let version = |v: u32| -> BoxedStrategy<u32> {
        if strict {
            Just(v).boxed()
        } else {
            prop_oneof![Just(v), any::<u32>()].boxed()
        }
    };
    let versions = (version(1), version(6), version(10), version(1));
    let body = (
        vec(path(), 0..3),
        vec(clan(), 0..3),
        vec(object(strict), 0..4),
    );
    let tail = (lp(), any::<u32>(), lp(), vec(extra(), 0..5));
    (versions, body, tail).prop_map(
        |((fv, cv, ov, ev), (paths, clans, objects), (land, flag, desc, extras))| Tma {
            format_version: fv,
            paths,
            clan_section_version: cv,
            clans,
            object_section_version: ov,
            objects,
            land_path: land,
            mission_flag: flag,
            description_raw: desc,
            extra_section_version: ev,
            extras,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn valid_missions_encode_decode_encode_identically(t in mission(true)) {
        let bytes = t.to_bytes().expect("encodable");
        let back = Tma::parse(&bytes).expect("strictly valid");
        prop_assert_eq!(&back, &t);
        prop_assert_eq!(back.to_bytes().expect("encodable"), bytes);
    }

    #[test]
    fn compatible_missions_round_trip_with_only_named_diagnostics(t in mission(false)) {
        let bytes = t.to_bytes().expect("encodable");
        let p = Tma::parse_compatible(&bytes).expect("compatible");
        prop_assert_eq!(&p.tma, &t);
        prop_assert_eq!(p.tma.to_bytes().expect("encodable"), bytes.clone());
        prop_assert_eq!(Tma::parse(&bytes).is_ok(), p.diagnostics.is_empty());
        for d in &p.diagnostics {
            prop_assert!(d.quirk.tolerates().contains(&d.tolerated.check()));
        }
    }

    #[test]
    fn edited_files_never_panic_and_accepted_ones_round_trip(
        t in mission(true),
        edits in vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = t.to_bytes().expect("encodable");
        for (at, v) in edits {
            let i = at.index(bytes.len());
            bytes[i] = v;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        match Tma::parse_compatible(&bytes) {
            Ok(p) => prop_assert_eq!(p.tma.to_bytes().expect("encodable"), bytes),
            Err(e) => {
                prop_assert!(Check::READ_CHECKS.contains(&e.check()));
                prop_assert!(e.offset() <= bytes.len() as u64);
            }
        }
    }
}
