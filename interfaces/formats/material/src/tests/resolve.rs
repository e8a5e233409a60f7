//! Material handles, the fallback order named → DEFAULT → archive entry 0, and the
//! lightmap rule (missing → slot −1).

use crate::{
    FallbackRule, LightmapSlot, MaterialError, MaterialHandle, MaterialLookup, Resolved, RowSpec,
    Wear, resolve_lightmap, resolve_material, resolve_material_with, resolve_wear_row,
};
use std::cell::RefCell;

/// An archive: entry names in directory order; lookups return the entry index and are
/// logged, ASCII case-insensitive like NRes.
struct Archive {
    names: Vec<&'static [u8]>,
    asked: RefCell<Vec<Vec<u8>>>,
}

impl Archive {
    fn new(names: &[&'static [u8]]) -> Self {
        Self {
            names: names.to_vec(),
            asked: RefCell::new(Vec::new()),
        }
    }
}

impl MaterialLookup for Archive {
    type Entry = usize;
    fn find(&self, name: &[u8]) -> Option<usize> {
        self.asked.borrow_mut().push(name.to_vec());
        self.names.iter().position(|n| n.eq_ignore_ascii_case(name))
    }
    fn first_entry(&self) -> Option<usize> {
        (!self.names.is_empty()).then_some(0)
    }
}

#[test]
fn handle_packs_table_and_row() {
    let h = MaterialHandle::new(1, 0x2345);
    assert_eq!(h.raw(), 0x0001_2345);
    assert_eq!((h.table(), h.row()), (1, 0x2345));
    assert_eq!(
        MaterialHandle::from_raw(0xFFFF_0000),
        MaterialHandle::new(0xFFFF, 0)
    );
    assert_eq!(h.to_string(), "1:9029");
}

#[test]
fn named_material_wins() {
    let a = Archive::new(&[b"FIRST", b"DEFAULT", b"HULL"]);
    assert_eq!(
        resolve_material(b"hull", &a),
        Some(Resolved {
            entry: 2,
            rule: FallbackRule::Named
        })
    );
    assert_eq!(a.asked.borrow().len(), 1, "DEFAULT is not looked up");
}

#[test]
fn missing_name_falls_back_to_default() {
    let a = Archive::new(&[b"FIRST", b"DEFAULT"]);
    assert_eq!(
        resolve_material(b"GONE", &a),
        Some(Resolved {
            entry: 1,
            rule: FallbackRule::Default
        })
    );
    assert_eq!(
        *a.asked.borrow(),
        vec![b"GONE".to_vec(), b"DEFAULT".to_vec()]
    );
}

#[test]
fn without_default_archive_entry_0_is_used_not_wear_row_0() {
    let a = Archive::new(&[b"ARCHIVE_FIRST", b"WEAR_FIRST"]);
    let wear = Wear::author(
        &[
            RowSpec::new(b"0", b"WEAR_FIRST"),
            RowSpec::new(b"1", b"MISSING"),
        ],
        None,
    )
    .expect("ok");
    let r = resolve_wear_row(&wear, 1, &a).expect("row exists");
    assert_eq!(
        r,
        Some(Resolved {
            entry: 0,
            rule: FallbackRule::FirstEntry
        })
    );
    assert_eq!(a.names[0], b"ARCHIVE_FIRST");
    let r = resolve_wear_row(&wear, 0, &a).expect("row exists");
    assert_eq!(
        r,
        Some(Resolved {
            entry: 1,
            rule: FallbackRule::Named
        })
    );
}

#[test]
fn empty_archive_resolves_nothing_and_bad_rows_are_errors() {
    let a = Archive::new(&[]);
    assert_eq!(resolve_material(b"X", &a), None);
    let wear = Wear::author(&[RowSpec::new(b"0", b"X")], None).expect("ok");
    assert_eq!(
        resolve_wear_row(&wear, 1, &a).unwrap_err(),
        MaterialError::NoSuchRow { row: 1, rows: 1 }
    );
}

#[test]
fn closure_form_follows_the_same_order() {
    let r = resolve_material_with(
        b"M",
        |n| (n == b"DEFAULT").then_some("def"),
        || Some("first"),
    );
    assert_eq!(
        r,
        Some(Resolved {
            entry: "def",
            rule: FallbackRule::Default
        })
    );
    let r = resolve_material_with(b"M", |_| None::<&str>, || Some("first"));
    assert_eq!(r.map(|r| r.rule), Some(FallbackRule::FirstEntry));
}

#[test]
fn missing_lightmap_is_slot_minus_one() {
    let find = |n: &[u8]| (n == b"LM_A").then_some(3u16);
    assert_eq!(resolve_lightmap(Some(b"LM_A"), find), LightmapSlot::some(3));
    assert_eq!(resolve_lightmap(Some(b"LM_A"), find).index(), 3);
    assert_eq!(resolve_lightmap(Some(b"LM_B"), find), LightmapSlot::NONE);
    assert_eq!(resolve_lightmap(Some(b"LM_B"), find).index(), -1);
    assert!(!resolve_lightmap(None, find).is_some());
    let mut called = false;
    assert_eq!(
        resolve_lightmap(Some(b""), |_| {
            called = true;
            Some(1)
        }),
        LightmapSlot::NONE
    );
    assert!(
        !called,
        "an empty name is no lightmap; nothing is looked up"
    );
}
