//! Prototype resolution over in-memory registries: direct keys, multi-level inheritance
//! with order and provenance, cycles, the depth and size limits, `.bas` handling,
//! non-geometric prototypes versus broken references, backend failures, determinism.

use super::support::registry;
use crate::{
    Check, EffectiveRef, Geometry, KeyChain, MAX_EXPANDED_RECORDS, MAX_PROTOTYPE_DEPTH,
    MemoryRegistry, ModelVia, Presence, PrototypeSource, RefOrigin, ResourceProbe, SourceError,
    UnitDatError, expand, resolve,
};
use std::borrow::Cow;

const RLB: &str = "objects.rlb";

fn chain(keys: &[&str]) -> KeyChain {
    KeyChain(keys.iter().map(|k| k.as_bytes().to_vec()).collect())
}

fn values(refs: &[EffectiveRef]) -> Vec<String> {
    refs.iter()
        .map(|r| {
            let o = &r.object_ref;
            format!(
                "{}:{}",
                o.archive().escape_ascii(),
                o.resource().escape_ascii()
            )
        })
        .collect()
}

#[test]
fn direct_key_picks_its_msh_ignoring_key_case() {
    let reg = registry(
        &[(
            "tank_01",
            &[("static.rlb", "tank_01.msh"), ("static.rlb", "tank_01.wea")],
        )],
        &[("STATIC.RLB", "TANK_01.MSH")],
    );
    let r = resolve(&reg, &reg, b"Tank_01").expect("resolves");
    assert_eq!(r.expansion.key(), b"Tank_01");
    assert_eq!(r.expansion.prototypes.len(), 1);
    let m = r.model().expect("geometric");
    assert_eq!(
        (m.archive.as_slice(), m.name.as_slice()),
        (&b"static.rlb"[..], &b"tank_01.msh"[..])
    );
    assert_eq!(m.via, ModelVia::Explicit { reference: 0 });
    assert!(r.bases.is_empty() && r.skipped_models.is_empty());
    assert_eq!(
        r.expansion.refs[1].origin,
        RefOrigin {
            prototype: 0,
            record: 1
        }
    );
}

#[test]
fn three_level_inheritance_inlines_parents_in_order_with_provenance() {
    let reg = registry(
        &[
            (
                "child",
                &[
                    ("fortif.rlb", "c.bas"),
                    (RLB, "Middle"),
                    ("fortif.rlb", "c.ctl"),
                ],
            ),
            ("middle", &[(RLB, "ROOT"), ("fortif.rlb", "m.cpt")]),
            ("root", &[("fortif.rlb", "r.msh"), ("fortif.rlb", "r.wea")]),
        ],
        &[("fortif.rlb", "r.msh"), ("fortif.rlb", "c.msh")],
    );
    let r = resolve(&reg, &reg, b"child").expect("resolves");
    assert_eq!(
        values(&r.expansion.refs),
        [
            "fortif.rlb:c.bas",
            "fortif.rlb:r.msh",
            "fortif.rlb:r.wea",
            "fortif.rlb:m.cpt",
            "fortif.rlb:c.ctl"
        ]
    );
    let depths: Vec<usize> = r.expansion.prototypes.iter().map(|p| p.depth).collect();
    assert_eq!(depths, [0, 1, 2]);
    assert_eq!(
        r.expansion.prototypes[2].via,
        Some(RefOrigin {
            prototype: 1,
            record: 0
        })
    );
    let origin = r.expansion.refs[1].origin;
    assert_eq!(
        origin,
        RefOrigin {
            prototype: 2,
            record: 0
        }
    );
    assert_eq!(
        r.expansion.chain(origin.prototype),
        chain(&["child", "Middle", "ROOT"])
    );
    // The parent's explicit .msh wins over the local .bas stem (decision 4 applies only
    // without an explicit .msh); the BASE is still reported separately.
    assert_eq!(
        r.model().expect("mesh").via,
        ModelVia::Explicit { reference: 1 }
    );
    assert_eq!(r.bases, vec![0]);
}

#[test]
fn cycle_is_an_error_naming_the_cycle() {
    let reg = registry(
        &[
            ("a", &[(RLB, "b")]),
            ("b", &[("x.rlb", "b.wea"), (RLB, "c")]),
            ("c", &[(RLB, "A")]),
        ],
        &[],
    );
    let e = expand(&reg, b"a").expect_err("cycle");
    assert!(
        matches!(&e, UnitDatError::Cycle { chain: c } if *c == chain(&["a", "b", "c", "A"])),
        "{e}"
    );
    assert_eq!(e.check(), Check::InheritanceCycle);
    assert!(!e.is_broken_reference());
    assert_eq!(
        e.to_string(),
        "[inheritance_cycle] \"a\" -> \"b\" -> \"c\" -> \"A\": expected a chain without repeats, found a cycle"
    );
    let selfish = registry(&[("s", &[(RLB, "S")])], &[]);
    let e = expand(&selfish, b"s").expect_err("self cycle");
    assert_eq!(e.chain(), Some(&chain(&["s", "S"])));
}

#[test]
fn diamond_inheritance_is_not_a_cycle() {
    let reg = registry(
        &[
            ("top", &[(RLB, "left"), (RLB, "right")]),
            ("left", &[(RLB, "base")]),
            ("right", &[(RLB, "base")]),
            ("base", &[("s.rlb", "b.msh")]),
        ],
        &[("s.rlb", "b.msh")],
    );
    let r = resolve(&reg, &reg, b"top").expect("diamond");
    assert_eq!(r.expansion.prototypes.len(), 5);
    assert_eq!(r.expansion.refs.len(), 2);
}

fn linear_chain(len: usize) -> MemoryRegistry {
    let mut reg = MemoryRegistry::new();
    for i in 0..len {
        let mut refs = crate::ObjectRefList::new();
        if i + 1 < len {
            refs.push_parent(format!("p{}", i + 1).as_bytes())
                .expect("name");
        } else {
            refs.push(b"s.rlb", b"deep.msh").expect("name");
        }
        reg.insert_refs(format!("p{i}").as_bytes(), &refs);
    }
    reg.insert_resource(b"s.rlb", b"deep.msh");
    reg
}

#[test]
fn depth_limit_allows_32_parent_links_and_refuses_33() {
    let ok = linear_chain(MAX_PROTOTYPE_DEPTH + 1);
    let r = resolve(&ok, &ok, b"p0").expect("32 links");
    assert_eq!(r.expansion.prototypes.last().map(|p| p.depth), Some(32));
    assert!(r.is_geometric());

    let deep = linear_chain(MAX_PROTOTYPE_DEPTH + 2);
    let e = expand(&deep, b"p0").expect_err("33 links");
    let UnitDatError::DepthLimit { chain: c, limit } = &e else {
        panic!("{e}")
    };
    assert_eq!((*limit, c.keys().len()), (32, 34));
    assert_eq!(c.last(), Some(&b"p33"[..]));
    assert_eq!(e.check(), Check::InheritanceDepth);
}

#[test]
fn exponential_diamonds_hit_the_expansion_limit() {
    let mut reg = MemoryRegistry::new();
    for i in 0..20 {
        let mut refs = crate::ObjectRefList::new();
        let next = format!("d{}", i + 1);
        refs.push_parent(next.as_bytes())
            .expect("n")
            .push_parent(next.as_bytes())
            .expect("n");
        reg.insert_refs(format!("d{i}").as_bytes(), &refs);
    }
    reg.insert_refs(b"d20", &crate::ObjectRefList::new());
    let e = expand(&reg, b"d0").expect_err("2^20 visits");
    assert!(
        matches!(
            e,
            UnitDatError::ExpansionTooLarge {
                limit: MAX_EXPANDED_RECORDS,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn bas_without_msh_finds_the_same_stem_model_in_the_same_archive() {
    let reg = registry(
        &[(
            "bunker",
            &[
                ("fortif.rlb", "bunker_01.BAS"),
                ("fortif.rlb", "bunker.wea"),
            ],
        )],
        &[
            ("fortif.rlb", "BUNKER_01.msh"),
            ("other.rlb", "bunker_01.msh"),
        ],
    );
    let r = resolve(&reg, &reg, b"bunker").expect("resolves");
    let m = r.model().expect("stem model");
    assert_eq!(
        (m.archive.as_slice(), m.name.as_slice()),
        (&b"fortif.rlb"[..], &b"bunker_01.msh"[..])
    );
    assert_eq!(m.via, ModelVia::BaseStem { base: 0 });
    assert_eq!(r.bases, vec![0]);
}

#[test]
fn bas_whose_stem_model_is_absent_leaves_the_prototype_non_geometric() {
    let reg = registry(
        &[("pad", &[("fortif.rlb", "pad.bas")])],
        &[("fortif.rlb", "pad.bas")],
    );
    let r = resolve(&reg, &reg, b"pad").expect("non-geometric is not an error");
    let Geometry::NonGeometric { base_attempts } = &r.geometry else {
        panic!("{:?}", r.geometry)
    };
    assert_eq!(base_attempts.len(), 1);
    assert_eq!(base_attempts[0].name, b"pad.msh");
    assert_eq!(base_attempts[0].presence, Presence::EntryMissing);
    assert_eq!(r.bases, vec![0]);
}

#[test]
fn prototype_without_model_is_non_geometric() {
    let reg = registry(&[("sun_01", &[("fx.rlb", "sun.fx")]), ("empty", &[])], &[]);
    for key in [&b"sun_01"[..], b"EMPTY"] {
        let r = resolve(&reg, &reg, key).expect("valid");
        assert_eq!(
            r.geometry,
            Geometry::NonGeometric {
                base_attempts: vec![]
            }
        );
        assert!(!r.is_geometric());
    }
}

#[test]
fn missing_prototype_is_a_broken_reference_with_its_chain() {
    let reg = registry(&[("child", &[("x.rlb", "a.wea"), (RLB, "gone")])], &[]);
    let e = resolve(&reg, &reg, b"nothing").expect_err("missing");
    assert!(matches!(&e, UnitDatError::PrototypeMissing { chain: c } if *c == chain(&["nothing"])));
    assert!(e.is_broken_reference());
    let e = resolve(&reg, &reg, b"child").expect_err("missing parent");
    assert_eq!(e.chain(), Some(&chain(&["child", "gone"])));
    assert_eq!(e.check(), Check::PrototypePresent);
}

#[test]
fn explicit_msh_that_does_not_resolve_is_a_broken_reference_not_non_geometric() {
    let reg = registry(
        &[
            ("a", &[("gone.rlb", "a.msh"), ("fortif.rlb", "a.bas")]),
            ("b", &[(RLB, "a")]),
            ("c", &[("static.rlb", "c.msh")]),
        ],
        &[("fortif.rlb", "a.msh"), ("static.rlb", "other.msh")],
    );
    let e = resolve(&reg, &reg, b"b").expect_err("broken");
    assert!(
        matches!(&e, UnitDatError::ModelMissing { chain: c, presence: Presence::ArchiveMissing, explicit: 1, .. }
            if *c == chain(&["b", "a"])),
        "{e}"
    );
    assert!(e.is_broken_reference());
    let e = resolve(&reg, &reg, b"c").expect_err("entry missing");
    assert!(matches!(
        e,
        UnitDatError::ModelMissing {
            presence: Presence::EntryMissing,
            ..
        }
    ));
}

#[test]
fn first_existing_msh_wins_and_earlier_missing_ones_are_listed() {
    let reg = registry(
        &[(
            "m",
            &[
                ("static.rlb", "lod0.msh"),
                ("static.rlb", "lod1.msh"),
                ("static.rlb", "lod2.msh"),
            ],
        )],
        &[("static.rlb", "lod1.msh"), ("static.rlb", "lod2.msh")],
    );
    let r = resolve(&reg, &reg, b"m").expect("second exists");
    assert_eq!(
        r.model().expect("mesh").via,
        ModelVia::Explicit { reference: 1 }
    );
    assert_eq!(r.skipped_models.len(), 1);
    assert_eq!(r.skipped_models[0].name, b"lod0.msh");
}

#[test]
fn bad_parent_payload_reports_chain_and_payload_offset() {
    let mut reg = registry(&[("child", &[(RLB, "bad")])], &[]);
    reg.insert_payload(b"bad", vec![0; 70]);
    let e = expand(&reg, b"child").expect_err("bad payload");
    assert!(
        matches!(&e, UnitDatError::InPrototype { chain: c, .. } if *c == chain(&["child", "bad"]))
    );
    assert_eq!(
        (e.check(), e.offset(), e.record()),
        (Check::PayloadSize, Some(64), Some(1))
    );
    assert!(
        e.to_string()
            .starts_with("[payload_size] \"child\" -> \"bad\": [payload_size] record #1")
    );
}

struct Failing;

impl PrototypeSource for Failing {
    fn payload(&self, key: &[u8]) -> Result<Option<Cow<'_, [u8]>>, SourceError> {
        if key == b"ok" {
            let refs = crate::ObjectRefList::from_iter([
                crate::ObjectRef::new(b"a.rlb", b"m.msh").expect("name")
            ]);
            Ok(Some(Cow::Owned(refs.to_bytes())))
        } else {
            Err("archive unreadable".into())
        }
    }
}

impl ResourceProbe for Failing {
    fn probe(&self, _: &[u8], _: &[u8]) -> Result<Presence, SourceError> {
        Err("probe failed".into())
    }
}

#[test]
fn backend_failures_are_source_errors_with_chain() {
    let e = expand(&Failing, b"x").expect_err("source fails");
    assert!(matches!(&e, UnitDatError::Source { chain: c, .. } if *c == chain(&["x"])));
    assert_eq!(e.check(), Check::SourceAccess);
    assert!(!e.is_broken_reference());
    let e = resolve(&Failing, &Failing, b"ok").expect_err("probe fails");
    assert!(e.to_string().ends_with("probe failed"), "{e}");
}

#[test]
fn resolution_is_deterministic() {
    let reg = registry(
        &[
            ("a", &[(RLB, "b"), ("s.rlb", "a.bas")]),
            ("b", &[("s.rlb", "x.wea"), ("s.rlb", "b.msh")]),
        ],
        &[("s.rlb", "b.msh")],
    );
    let first = resolve(&reg, &reg, b"a").expect("ok");
    for _ in 0..3 {
        assert_eq!(resolve(&reg, &reg, b"a").expect("ok"), first);
    }
}
