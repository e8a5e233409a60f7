//! Lookup through `sort_index`: ASCII-case-insensitive, upper-case fold order, original
//! entry returned, duplicates resolved to the first in original order.

use super::support::{Layout, Piece, name_field};
use crate::{LookupMode, NewEntry, Nres, NresWriter, ReadOptions};

fn archive(names: &[&[u8]]) -> Vec<u8> {
    let mut w = NresWriter::new();
    for (i, n) in names.iter().enumerate() {
        w.push(NewEntry::new(n, i as u32, vec![i as u8; i]).unwrap());
    }
    w.finish().unwrap()
}

#[test]
fn find_is_case_insensitive_and_returns_the_original_entry() {
    let names: [&[u8]; 6] = [b"zeta", b"Alpha.TEX", b"mid", b"\xC0\xE0", b"a", b"B"];
    let bytes = archive(&names);
    let a = Nres::parse(&bytes).unwrap();
    assert_eq!(a.lookup_mode(), LookupMode::SortTable);
    for (i, n) in names.iter().enumerate() {
        let e = a.find(n).unwrap();
        assert_eq!((e.index(), e.name(), e.data().len()), (i, *n, i));
        assert_eq!(a.find(&n.to_ascii_uppercase()).unwrap().index(), i);
        assert_eq!(a.find(&n.to_ascii_lowercase()).unwrap().index(), i);
    }
    assert!(
        a.find(b"\xE0\xE0").is_none(),
        "bytes >= 0x80 are not folded"
    );
    assert!(a.find(b"alpha.te").is_none());
    assert!(a.find(b"alpha.tex\0").is_none());
    assert!(a.find(b"").is_none());
}

#[test]
fn sort_order_uses_the_upper_case_fold() {
    // Upper fold: "A[" < "AA"? No: '[' (0x5B) > 'A' (0x41) → "AA" < "A["; with a lower
    // fold, 'a' (0x61) > '[' → the opposite. Same for '_' and '`'.
    let names: [&[u8]; 6] = [b"a_", b"aa", b"A[", b"a`", b"A^", b"a"];
    let bytes = archive(&names);
    let a = Nres::parse(&bytes).unwrap();
    let order: Vec<&[u8]> = (0..names.len())
        .map(|k| names[a.entry(k).unwrap().sort_index() as usize])
        .collect();
    assert_eq!(order, [&b"a"[..], b"aa", b"A[", b"A^", b"a_", b"a`"]);
    for (i, n) in names.iter().enumerate() {
        assert_eq!(a.find(n).unwrap().index(), i);
    }
}

#[test]
fn a_table_sorted_with_a_lower_case_fold_is_rejected_strictly() {
    let piece = |name: &[u8]| Piece {
        field: name_field(name, b""),
        type_id: 0,
        attrs: [0; 3],
        data: vec![],
        gap: vec![],
    };
    let layout = Layout {
        pieces: vec![piece(b"a_"), piece(b"ab")],
        placement: vec![0, 1],
        trailing: vec![],
        aligned: true,
        fill: 0,
    };
    // Lower fold: "a_" < "ab"; upper fold: "AB" < "A_".
    let bytes = layout.build_with_table(&[0, 1]);
    assert_eq!(
        Nres::parse(&bytes).unwrap_err().check(),
        crate::Check::SortOrder
    );
    let a = Nres::parse_with(&bytes, ReadOptions::compatible()).unwrap();
    assert_eq!(a.find(b"AB").unwrap().index(), 1);
    let canonical = layout.build();
    assert_eq!(
        Nres::parse(&canonical)
            .unwrap()
            .entry(0)
            .unwrap()
            .sort_index(),
        1
    );
}

#[test]
fn duplicates_resolve_to_the_first_in_original_order() {
    let bytes = archive(&[b"x", b"dup", b"DUP", b"Dup", b"a"]);
    let a = Nres::parse(&bytes).unwrap();
    assert_eq!(a.find(b"dUP").unwrap().index(), 1);
}

#[test]
fn entry_view_exposes_every_field() {
    let bytes = super::support::messy().build();
    let a = Nres::parse(&bytes).unwrap();
    let e = a.find(b"THREE").unwrap();
    assert_eq!(e.index(), 2);
    assert_eq!(e.name(), b"three");
    assert_eq!(&e.name_tail()[..9], b"junk tail");
    assert_eq!(e.name_field().len(), 36);
    assert_eq!(
        (e.type_id(), e.attr1(), e.attr2(), e.attr3()),
        (0x3054_414D, 1, 6, 0xDEAD_BEEF)
    );
    assert_eq!(e.size() as usize, e.data().len());
    assert_eq!(&bytes[e.data_range()], e.data());
    assert_eq!(e.data(), b"third!");
    let raw = e.raw_record();
    assert_eq!(&bytes[a.directory_offset() + 2 * 64..][..64], raw);
    assert_eq!(e.record().data_offset(), e.data_offset());
    assert_eq!(a.entries().len(), 3);
    assert_eq!(a.entries().next_back().unwrap().index(), 2);
}

#[test]
fn gaps_account_for_every_unaddressed_byte() {
    let bytes = super::support::messy().build();
    let a = Nres::parse(&bytes).unwrap();
    let gaps = a.gaps();
    let covered: usize = gaps.iter().map(|g| g.range.len()).sum::<usize>()
        + a.entries().map(|e| e.data().len()).sum::<usize>();
    assert_eq!(covered, a.data_region().len());
    assert!(
        gaps.iter()
            .any(|g| g.kind == crate::GapKind::Unindexed && bytes[g.range.clone()].contains(&0x55))
    );
    for g in &gaps {
        if g.kind == crate::GapKind::Padding {
            assert!(g.range.len() < 8 && bytes[g.range.clone()].iter().all(|&b| b == 0));
        }
    }
    // Canonical archives have padding only.
    let canonical = super::support::sample();
    let c = Nres::parse(&canonical).unwrap();
    assert!(c.gaps().iter().all(|g| g.kind == crate::GapKind::Padding));
}
