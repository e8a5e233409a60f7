//! Property tests: random canonical archives roundtrip through reader and writer; random
//! free-form layouts (tails, gaps, non-zero padding, unindexed bytes, shuffled payloads)
//! roundtrip through the editor, and random edit sequences keep them valid and lossless.

use super::support::{Layout, Piece, name_field};
use crate::{NewEntry, Nres, NresDocument, NresWriter, ReadOptions, names_equal};
use proptest::prelude::*;

const ALPHABET: &[u8] = b"aAbB_[`^.9\xC0\xE0";

fn name() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(prop::sample::select(ALPHABET), 1..=3),
        prop::collection::vec(prop::sample::select(ALPHABET), 1..=35),
    ]
}

fn data(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..max)
}

type Spec = (Vec<u8>, u32, [u32; 3], Vec<u8>);

fn spec() -> impl Strategy<Value = Spec> {
    (name(), any::<u32>(), any::<[u32; 3]>(), data(40))
}

fn piece() -> impl Strategy<Value = Piece> {
    (spec(), data(36), prop_oneof![Just(vec![]), data(20)]).prop_map(
        |((n, t, attrs, d), tail, gap)| Piece {
            field: name_field(&n, &tail),
            type_id: t,
            attrs,
            data: d,
            gap,
        },
    )
}

fn layout(aligned: bool) -> impl Strategy<Value = Layout> {
    prop::collection::vec(piece(), 0..8).prop_flat_map(move |pieces| {
        let order: Vec<usize> = (0..pieces.len()).collect();
        (
            Just(pieces),
            Just(order).prop_shuffle(),
            data(24),
            any::<u8>(),
        )
            .prop_map(move |(pieces, placement, trailing, fill)| Layout {
                pieces,
                placement,
                trailing,
                aligned,
                fill,
            })
    })
}

#[derive(Clone, Debug)]
enum Op {
    Replace(usize, Vec<u8>),
    Add(Vec<u8>, Vec<u8>),
    Remove(usize),
    Rename(usize, Vec<u8>),
    Attrs(usize, [u32; 3]),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (any::<usize>(), data(30)).prop_map(|(i, d)| Op::Replace(i, d)),
        1 => (name(), data(30)).prop_map(|(n, d)| Op::Add(n, d)),
        1 => any::<usize>().prop_map(Op::Remove),
        1 => (any::<usize>(), name()).prop_map(|(i, n)| Op::Rename(i, n)),
        1 => (any::<usize>(), any::<[u32; 3]>()).prop_map(|(i, a)| Op::Attrs(i, a)),
    ]
}

/// Non-payload bytes of the data region, zeros removed, in file order.
fn nonzero_gap_bytes(a: &Nres<'_>) -> Vec<u8> {
    let bytes = a.as_bytes();
    a.gaps()
        .iter()
        .flat_map(|g| bytes[g.range.clone()].iter().copied())
        .filter(|&b| b != 0)
        .collect()
}

/// Moves every empty entry to an arbitrary 8-aligned offset of the data region (at a
/// boundary, in a gap, or strictly inside another payload); the archive stays valid.
fn move_empty_entries(bytes: &mut [u8], moves: &[u16]) {
    let (dir, n) = {
        let a = Nres::parse(bytes).unwrap();
        (a.directory_offset(), a.len())
    };
    let slots = (dir - 16) / 8 + 1;
    for (i, m) in (0..n).zip(moves) {
        let rec = dir + i * 64;
        if bytes[rec + 0x0C..rec + 0x10] == [0; 4] {
            let off = (16 + 8 * (*m as usize % slots)) as u32;
            bytes[rec + 0x38..rec + 0x3C].copy_from_slice(&off.to_le_bytes());
        }
    }
    Nres::parse(bytes).unwrap();
}

proptest! {
    #[test]
    fn canonical_archives_roundtrip(specs in prop::collection::vec(spec(), 0..10)) {
        let mut w = NresWriter::new();
        for (n, t, [a1, a2, a3], d) in &specs {
            w.push(NewEntry::new(n, *t, &d[..]).unwrap().with_attrs(*a1, *a2, *a3));
        }
        let bytes = w.finish().unwrap();
        let a = Nres::parse(&bytes).unwrap();
        prop_assert_eq!(a.len(), specs.len());
        // decode → encode is byte-identical, through the writer and through the editor.
        let mut again = NresWriter::new();
        for e in a.entries() {
            again.push(NewEntry::from_view(&e));
        }
        prop_assert_eq!(&again.finish().unwrap(), &bytes);
        prop_assert_eq!(&a.repack().unwrap(), &bytes);
        prop_assert_eq!(&NresDocument::from_bytes(&bytes).unwrap().to_bytes(), &bytes);
        for (i, (e, (n, t, attrs, d))) in a.entries().zip(&specs).enumerate() {
            prop_assert_eq!((e.name(), e.type_id(), [e.attr1(), e.attr2(), e.attr3()], e.data()),
                (&n[..], *t, *attrs, &d[..]));
            let first = specs.iter().position(|s| names_equal(&s.0, n)).unwrap();
            prop_assert_eq!(a.find(&n.to_ascii_lowercase()).unwrap().index(), first.min(i));
        }
    }

    #[test]
    fn free_layouts_roundtrip_losslessly(l in layout(true)) {
        let bytes = l.build();
        let a = Nres::parse(&bytes).unwrap();
        prop_assert_eq!(&NresDocument::from_nres(&a).to_bytes(), &bytes);
        for (e, p) in a.entries().zip(&l.pieces) {
            prop_assert_eq!(e.name_field(), &p.field);
            prop_assert_eq!(e.data(), &p.data[..]);
            prop_assert!(names_equal(a.find(e.name()).unwrap().name(), e.name()));
        }
        let packed = a.repack().unwrap();
        prop_assert_eq!(&Nres::parse(&packed).unwrap().repack().unwrap(), &packed);
    }

    #[test]
    fn quirky_layouts_roundtrip_through_the_compatible_reader(
        l in layout(false),
        table_seed in prop::collection::vec(any::<u32>(), 8),
    ) {
        let n = l.pieces.len().max(1) as u32;
        let table: Vec<u32> = table_seed.iter().map(|v| v % n).collect();
        for bytes in [l.build(), l.build_with_table(&table)] {
            let a = Nres::parse_with(&bytes, ReadOptions::compatible()).unwrap();
            if Nres::parse(&bytes).is_err() {
                prop_assert!(!a.diagnostics().is_empty());
            }
            prop_assert_eq!(&NresDocument::from_nres(&a).to_bytes(), &bytes);
            for e in a.entries() {
                prop_assert!(names_equal(a.find(e.name()).unwrap().name(), e.name()));
            }
        }
    }

    #[test]
    fn edit_sequences_stay_valid_and_keep_unindexed_bytes(
        l in layout(true),
        ops in prop::collection::vec(op(), 1..8),
        moves in prop::collection::vec(any::<u16>(), 8),
    ) {
        let mut bytes = l.build();
        move_empty_entries(&mut bytes, &moves);
        let kept = nonzero_gap_bytes(&Nres::parse(&bytes).unwrap());
        let mut model: Vec<(Vec<u8>, [u32; 3], Vec<u8>)> = l.pieces.iter()
            .map(|p| (crate::field_value(&p.field).to_vec(), p.attrs, p.data.clone()))
            .collect();
        let mut doc = NresDocument::from_bytes(&bytes).unwrap();
        for op in ops {
            let len = model.len();
            match op {
                Op::Add(n, d) => {
                    doc.add_entry(NewEntry::new(&n, 0, &d[..]).unwrap()).unwrap();
                    model.push((n, [0; 3], d));
                }
                _ if len == 0 => continue,
                Op::Replace(i, d) => {
                    doc.replace_payload(i % len, &d).unwrap();
                    model[i % len].2 = d;
                }
                Op::Remove(i) => {
                    doc.remove_entry(i % len).unwrap();
                    model.remove(i % len);
                }
                Op::Rename(i, n) => {
                    doc.rename(i % len, &n).unwrap();
                    model[i % len].0 = n;
                }
                Op::Attrs(i, [a1, a2, a3]) => {
                    doc.set_attrs(i % len, a1, a2, a3).unwrap();
                    model[i % len].1 = [a1, a2, a3];
                }
            }
            let out = doc.to_bytes();
            let a = Nres::parse(&out).unwrap();
            prop_assert_eq!(a.len(), model.len());
            for (e, (n, attrs, d)) in a.entries().zip(&model) {
                prop_assert_eq!((e.name(), [e.attr1(), e.attr2(), e.attr3()], e.data()),
                    (&n[..], *attrs, &d[..]));
            }
            prop_assert_eq!(&nonzero_gap_bytes(&a), &kept);
            prop_assert_eq!(&NresDocument::from_bytes(&out).unwrap().to_bytes(), &out);
        }
    }
}
