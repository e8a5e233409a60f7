//! One test per strict check, plus lossless round trips of generated terrains and a
//! property test encode → decode → encode.

use iron3d_landmsh::*;
use iron3d_nres::NresDocument;
use proptest::prelude::*;

fn grid() -> Vec<u8> {
    let s = from_grid(5, 4, 16.0, |x, y| {
        (x * 0.05).sin() * 10.0 + (y * 0.03).cos() * 4.0
    })
    .expect("grid");
    LandMsh::from_streams(s)
        .expect("build")
        .to_bytes()
        .expect("bytes")
}

fn edit(f: impl FnOnce(&mut NresDocument<'static>)) -> Vec<u8> {
    let mut doc = NresDocument::from_bytes(&grid())
        .expect("valid")
        .into_owned();
    f(&mut doc);
    doc.to_bytes()
}

fn attrs(doc: &NresDocument<'_>, i: usize) -> (u32, u32, u32) {
    let r = doc.record(i).expect("entry");
    (r.attr1(), r.attr2(), r.attr3())
}

fn face_file(face: usize, field: usize, value: u16) -> Vec<u8> {
    edit(|d| {
        let mut p = d.payload(8).expect("faces").to_vec();
        let o = face * FACE_SIZE + field;
        p[o..o + 2].copy_from_slice(&value.to_le_bytes());
        d.replace_payload(8, &p).expect("replace");
    })
}

#[test]
fn generated_grid_is_valid_and_lossless() {
    let bytes = grid();
    let m = LandMsh::parse(&bytes).expect("strict");
    assert_eq!(m.streams.positions.len(), 6 * 5);
    assert_eq!(m.streams.faces.len(), 2 * 5 * 4);
    assert_eq!(m.to_bytes().expect("bytes"), bytes);
    // Every neighbour shares the reversed edge (our convention) and is mutual.
    let f = &m.streams.faces;
    for (i, face) in f.iter().enumerate() {
        for k in 0..3 {
            let n = face.neighbours[k];
            if n == NO_NEIGHBOUR {
                continue;
            }
            let other = &f[usize::from(n)];
            let (a, b) = (face.vertices[k], face.vertices[(k + 1) % 3]);
            let j = (0..3)
                .find(|&j| other.vertices[j] == b && other.vertices[(j + 1) % 3] == a)
                .expect("shared reversed edge");
            assert_eq!(usize::from(other.neighbours[j]), i);
        }
    }
    // link_neighbours reproduces the grid's neighbours.
    let mut relinked = f.clone();
    link_neighbours(&mut relinked);
    assert_eq!(&relinked, f);
}

#[test]
fn wrong_order_is_strict_error_and_compatible_quirk() {
    let bytes = edit(|d| {
        let (a, b) = (
            d.record(0).expect("0").type_id(),
            d.record(1).expect("1").type_id(),
        );
        let (p0, p1) = (
            d.payload(0).expect("p").to_vec(),
            d.payload(1).expect("p").to_vec(),
        );
        let (a0, a1) = (attrs(d, 0), attrs(d, 1));
        d.set_type_id(0, b).expect("t");
        d.set_type_id(1, a).expect("t");
        d.replace_payload(0, &p1).expect("p");
        d.replace_payload(1, &p0).expect("p");
        d.set_attrs(0, a1.0, a1.1, a1.2).expect("a");
        d.set_attrs(1, a0.0, a0.1, a0.2).expect("a");
    });
    let e = LandMsh::parse(&bytes).expect_err("strict");
    assert!(
        matches!(
            e,
            LandMshError::StreamOrder {
                index: 0,
                expected: 1,
                found: 2,
                ..
            }
        ),
        "{e}"
    );
    let m = LandMsh::parse_with(&bytes, ReadOptions::compatible()).expect("compatible");
    assert_eq!(m.diagnostics()[0].quirk, Quirk::StreamOrder);
    assert_eq!(m.to_bytes().expect("bytes"), bytes);
}

#[test]
fn stride_mismatch() {
    let bytes = edit(|d| {
        let (a1, a2, _) = attrs(d, 2);
        d.set_attrs(2, a1, a2, 16).expect("a");
    });
    let e = LandMsh::parse(&bytes).expect_err("strict");
    assert!(
        matches!(
            e,
            LandMshError::Stride {
                type_id: 3,
                expected: 12,
                found: 16,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn count_mismatch() {
    let bytes = edit(|d| {
        let (a1, a2, a3) = attrs(d, 8);
        d.set_attrs(8, a1 + 1, a2, a3).expect("a");
    });
    let e = LandMsh::parse(&bytes).expect_err("strict");
    assert!(
        matches!(e, LandMshError::SizeMismatch { type_id: 21, expected, found, .. } if expected == found + 28),
        "{e}"
    );
    let huge = edit(|d| {
        let (_, a2, a3) = attrs(d, 8);
        d.set_attrs(8, u32::MAX, a2, a3).expect("a");
    });
    assert!(LandMsh::parse(&huge).is_err());
}

#[test]
fn slot_count_and_remainder() {
    let bytes = edit(|d| {
        let (_, a2, a3) = attrs(d, 1);
        d.set_attrs(1, 2, a2, a3).expect("a");
    });
    let e = LandMsh::parse(&bytes).expect_err("strict");
    assert!(
        matches!(e, LandMshError::SizeMismatch { type_id: 2, .. }),
        "{e}"
    );
    let bytes = edit(|d| d.replace_payload(1, &[0; 0x8C + 5]).expect("p"));
    let e = LandMsh::parse(&bytes).expect_err("strict");
    assert!(
        matches!(e, LandMshError::SlotRemainder { found: 5, .. }),
        "{e}"
    );
}

#[test]
fn truncated() {
    let bytes = edit(|d| d.replace_payload(1, &[0; 0x10]).expect("p"));
    let e = LandMsh::parse(&bytes).expect_err("strict");
    assert!(
        matches!(
            e,
            LandMshError::Truncated {
                type_id: 2,
                expected: 0x8C,
                found: 0x10,
                ..
            }
        ),
        "{e}"
    );
    // A truncated positions payload (size no longer count × 12).
    let bytes = edit(|d| {
        let p = d.payload(2).expect("p").to_vec();
        d.replace_payload(2, &p[..p.len() - 3]).expect("p");
    });
    assert!(matches!(
        LandMsh::parse(&bytes),
        Err(LandMshError::SizeMismatch { type_id: 3, .. })
    ));
    // A truncated file fails in the container.
    let g = grid();
    for cut in [0, 10, g.len() / 2, g.len() - 1] {
        assert!(matches!(
            LandMsh::parse(&g[..cut]),
            Err(LandMshError::Nres(_))
        ));
    }
}

#[test]
fn vertex_index_out_of_range() {
    let bytes = face_file(3, 0x0A, 30);
    let e = LandMsh::parse(&bytes).expect_err("strict");
    assert!(
        matches!(
            e,
            LandMshError::VertexIndex {
                face: 3,
                corner: 1,
                limit: 30,
                found: 30,
                ..
            }
        ),
        "{e}"
    );
    let LandMshError::VertexIndex { offset, .. } = e else {
        unreachable!()
    };
    assert_eq!(
        &bytes[offset as usize..offset as usize + 2],
        &30u16.to_le_bytes()
    );
}

#[test]
fn neighbour_out_of_range() {
    let bytes = face_file(7, 0x12, 40);
    let e = LandMsh::parse(&bytes).expect_err("strict");
    assert!(
        matches!(
            e,
            LandMshError::NeighbourIndex {
                face: 7,
                edge: 2,
                limit: 40,
                found: 40,
                ..
            }
        ),
        "{e}"
    );
    assert!(LandMsh::parse_with(&bytes, ReadOptions::compatible()).is_err());
}

#[test]
fn self_neighbour_is_strict_error_and_compatible_quirk() {
    let bytes = face_file(5, 0x0E, 5);
    let e = LandMsh::parse(&bytes).expect_err("strict");
    assert!(
        matches!(
            e,
            LandMshError::SelfNeighbour {
                face: 5,
                edge: 0,
                ..
            }
        ),
        "{e}"
    );
    let m = LandMsh::parse_with(&bytes, ReadOptions::compatible()).expect("compatible");
    assert_eq!(m.diagnostics()[0].quirk, Quirk::SelfNeighbour);
    assert_eq!(m.to_bytes().expect("bytes"), bytes);
}

#[test]
fn missing_duplicate_unexpected_streams() {
    let bytes = edit(|d| d.remove_entry(6).expect("rm"));
    assert!(matches!(
        LandMsh::parse(&bytes),
        Err(LandMshError::MissingStream { type_id: 14 })
    ));
    let bytes = edit(|d| d.set_type_id(6, 18).expect("t"));
    assert!(matches!(
        LandMsh::parse(&bytes),
        Err(LandMshError::DuplicateStream {
            type_id: 18,
            first: 5,
            second: 6
        })
    ));
    let bytes = edit(|d| d.set_type_id(6, 7).expect("t"));
    assert!(matches!(
        LandMsh::parse(&bytes),
        Err(LandMshError::UnexpectedStream {
            index: 6,
            type_id: 7,
            ..
        })
    ));
}

#[test]
fn lossless_edit_keeps_other_bytes() {
    let g = grid();
    // Non-canonical attr2 and a name tail must survive an edit of the faces.
    let bytes = edit(|d| {
        let (a1, _, a3) = attrs(d, 3);
        d.set_attrs(3, a1, 0xDEAD_BEEF, a3).expect("a");
    });
    let mut m = LandMsh::parse(&bytes).expect("strict");
    m.streams.faces[0].full_mask = compact_to_full(CompactMask {
        compact: 1,
        class: 2,
        unknown: 0x8000_0000,
    });
    m.streams
        .positions
        .push([1.0, 2.0, f32::from_bits(0x7FC0_1234)]);
    let out = m.to_bytes().expect("bytes");
    let back = LandMsh::parse(&out).expect("strict");
    assert_eq!(back.document().record(3).expect("r").attr2(), 0xDEAD_BEEF);
    assert_eq!(back.streams.positions.len(), 31);
    assert_eq!(back.streams.positions[30][2].to_bits(), 0x7FC0_1234);
    assert_eq!(
        full_to_compact(back.streams.faces[0].full_mask).unknown,
        0x8000_0000
    );
    assert_ne!(out, g);
}

#[test]
fn authoring_limits() {
    assert!(matches!(
        from_grid(0, 3, 1.0, |_, _| 0.0),
        Err(LandMshError::Grid { .. })
    ));
    assert!(matches!(
        from_grid(3, 3, 0.0, |_, _| 0.0),
        Err(LandMshError::Grid { .. })
    ));
    assert!(matches!(
        from_grid(3, 3, 1.0, |_, _| f32::NAN),
        Err(LandMshError::Grid { .. })
    ));
    assert!(matches!(
        from_grid(255, 255, 1.0, |_, _| 0.0),
        Err(LandMshError::TooMany { type_id: 3, .. })
            | Err(LandMshError::TooMany { type_id: 21, .. })
    ));
    let mut s = from_grid(2, 2, 1.0, |_, _| 0.0).expect("grid");
    s.faces[0].neighbours[0] = 0;
    assert!(matches!(
        LandMsh::from_streams(s),
        Err(LandMshError::SelfNeighbour { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn encode_decode_encode(
        w in 1u16..12, h in 1u16..12, cell in 0.5f32..64.0,
        amp in -100.0f32..100.0, masks in proptest::collection::vec(any::<u32>(), 1..8),
        tails in any::<[u8; 8]>(), words in proptest::collection::vec(any::<u32>(), 0..16),
        nodes in 0usize..4, slots in 0usize..4, header in any::<u8>(),
    ) {
        let mut s = from_grid(w, h, cell, |x, y| amp * (x * 0.01 + y * 0.02).sin()).expect("grid");
        for (i, f) in s.faces.iter_mut().enumerate() {
            f.full_mask = masks[i % masks.len()];
            f.material_tag = (i as u16) | 0xFF00;
            f.aux_tag = i as u16;
            f.tail = tails;
        }
        s.nodes = vec![[header; NODE_SIZE]; nodes];
        s.slot_header = [header; SLOT_HEADER_SIZE];
        s.slots = vec![TerrainSlot { pair_table_index: 1, pair_count: 2, opaque: [header; 64] }; slots];
        s.microtexture = words.clone();
        s.auxiliary = words.iter().map(|x| !x).collect();
        s.cells = words;
        let bytes = LandMsh::from_streams(s.clone()).expect("build").to_bytes().expect("bytes");
        let m = LandMsh::parse(&bytes).expect("strict");
        prop_assert_eq!(&m.streams, &s);
        prop_assert_eq!(m.to_bytes().expect("again"), bytes.clone());
        let rebuilt = LandMsh::from_streams(m.streams.clone()).expect("rebuild").to_bytes().expect("b");
        prop_assert_eq!(&rebuilt, &bytes);
        prop_assert!(iron3d_landmsh::fuzz_check::check(&m.to_bytes().expect("b")));
    }
}
