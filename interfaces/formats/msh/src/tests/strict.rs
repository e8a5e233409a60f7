//! One test per strict check of FORMATS §7.12 ([`Check::ALL`]), each starting from the
//! valid fixture and breaking exactly one rule.

use super::support::*;
use crate::*;
use iron3d_nres::NresDocument;

fn bad(b: &MshBuilder) -> Check {
    check_of(&b.build_unchecked().expect("writer"))
}

/// Applies an edit to the nested document of the fixture's bytes.
fn edited(edit: impl FnOnce(&mut NresDocument<'_>, &Msh<'_>)) -> Vec<u8> {
    let bytes = model().build().expect("valid fixture");
    let msh = Msh::parse(&bytes).expect("parse");
    let mut doc = msh.document().clone();
    edit(&mut doc, &msh);
    doc.to_bytes()
}

fn entry_of(msh: &Msh<'_>, t: u32) -> usize {
    msh.stream(t).expect("stream").index
}

#[test]
fn fixture_is_valid_and_every_check_is_listed_once() {
    assert!(Msh::parse(&model().build().unwrap()).is_ok());
    assert!(Msh::parse(&extended_model().build().unwrap()).is_ok());
    let mut all = Check::ALL.to_vec();
    all.dedup();
    assert_eq!(all.len(), Check::ALL.len());
}

#[test]
fn container_rejects_non_nres() {
    assert_eq!(check_of(b"not an archive at all"), Check::Container);
    assert_eq!(check_of(&[]), Check::Container);
}

#[test]
fn required_stream_missing() {
    let bytes = edited(|d, m| d.remove_entry(entry_of(m, 13)).unwrap());
    assert_eq!(check_of(&bytes), Check::RequiredStream);
}

#[test]
fn required_stream_twice() {
    let mut b = model();
    b.raw.push(RawStream::new(3, vec![0; 12]));
    assert_eq!(bad(&b), Check::RequiredStream);
}

#[test]
fn duplicate_stream_of_optional_typed_type() {
    for t in [4, 5, 7, 8, 10, 19] {
        let mut b = model();
        b.raw.push(RawStream::new(t, vec![]));
        assert_eq!(bad(&b), Check::DuplicateStream, "type {t}");
    }
}

#[test]
fn node_stride_other_than_38_or_24() {
    let bytes = edited(|d, m| d.set_attrs(entry_of(m, 1), 3, 0, 40).unwrap());
    assert_eq!(check_of(&bytes), Check::NodeStride);
}

#[test]
fn stream_stride_of_known_strides() {
    for (t, len) in [
        (3, 13),
        (4, 5),
        (5, 6),
        (6, 3),
        (7, 15),
        (8, 25),
        (13, 19),
        (15, 7),
        (18, 3),
        (19, 3),
    ] {
        let bytes = edited(|d, m| {
            let i = match m.stream(t) {
                Some(s) => s.index,
                None => d
                    .add_entry(iron3d_nres::NewEntry::new(b"x", t, &[][..]).unwrap())
                    .unwrap(),
            };
            d.replace_payload(i, &vec![0; len]).unwrap();
        });
        assert_eq!(check_of(&bytes), Check::StreamStride, "type {t}");
    }
    // Node stride 38 applies to type 1 itself.
    let bytes = edited(|d, m| d.replace_payload(entry_of(m, 1), &[0; 39]).unwrap());
    assert_eq!(check_of(&bytes), Check::StreamStride);
}

#[test]
fn slot_table_header_and_remainder() {
    for len in [0, 0x8B, 0x8C + 67, 0x8C + 69] {
        let bytes = edited(|d, m| d.replace_payload(entry_of(m, 2), &vec![0; len]).unwrap());
        assert_eq!(check_of(&bytes), Check::SlotTable, "size {len}");
    }
}

#[test]
fn slot_index_past_slot_count() {
    let mut b = model();
    b.nodes[2].slot_index[14] = 4;
    assert_eq!(bad(&b), Check::SlotIndex);
    b.nodes[2].slot_index[14] = 3; // last slot: fine
    assert!(b.build().is_ok());
}

#[test]
fn tri_range_past_type_7() {
    let mut b = model();
    b.slots[3].tri_count = 2; // 2 + 2 > 3
    assert_eq!(bad(&b), Check::TriRange);
    b.slots[3] = slot((3, 0), (0, 1)); // empty range at the end is fine
    assert!(b.build().is_ok());
}

#[test]
fn batch_range_past_type_13() {
    let mut b = model();
    b.slots[1].batch_count = 3;
    assert_eq!(bad(&b), Check::BatchRange);
}

#[test]
fn index_range_past_type_6() {
    let mut b = model();
    b.batches[2].index_start = 7;
    assert_eq!(bad(&b), Check::IndexRange);
}

#[test]
fn vertex_range_base_plus_index() {
    let mut b = model();
    b.batches[2].base_vertex = 4; // 4 + 2 = 6 = vertex count
    assert_eq!(bad(&b), Check::VertexRange);
    let mut b = model();
    b.indices[4] = 5; // batch 1: base 1 + 5
    assert_eq!(bad(&b), Check::VertexRange);
    // Indices not used by any batch are not checked.
    let mut b = model();
    b.indices.push(999);
    assert!(b.build().is_ok());
}

#[test]
fn vertex_range_on_long_batches_uses_block_maxima() {
    let mut b = model();
    b.positions = vec![[0.0; 3]; 300];
    b.indices = (0..200u16).chain([299]).chain(0..100).collect();
    b.batches = vec![batch(0, 301, 0), batch(3, 3, 1), batch(6, 3, 3)];
    assert!(b.build().is_ok());
    b.batches[0].base_vertex = 1;
    assert_eq!(bad(&b), Check::VertexRange);
}

#[test]
fn slot_bounds_finite_ordered_radius() {
    let mut b = model();
    b.slots[0].aabb_min[1] = 2.0;
    assert_eq!(bad(&b), Check::SlotBounds);
    let mut b = model();
    b.slots[2].aabb_max[0] = f32::NAN;
    assert_eq!(bad(&b), Check::SlotBounds);
    let mut b = model();
    b.slots[1].sphere_radius = -0.5;
    assert_eq!(bad(&b), Check::SlotBounds);
    let mut b = model();
    b.slots[1].sphere_radius = f32::INFINITY;
    assert_eq!(bad(&b), Check::SlotBounds);
}

#[test]
fn fallback_key_past_key_count() {
    let mut b = model();
    b.nodes[2].fallback_key = 8;
    assert_eq!(bad(&b), Check::FallbackKey);
}

#[test]
fn frame_map_block_past_type_19() {
    let mut b = model();
    b.nodes[1].anim_map_start = 6; // 6 + 5 > 10
    assert_eq!(bad(&b), Check::FrameMapBlock);
    let mut b = model();
    b.frame_map.as_mut().unwrap().frame_count = 6; // node 1: 5 + 6 > 10
    assert_eq!(bad(&b), Check::FrameMapBlock);
}

#[test]
fn key_times_increase_within_a_track() {
    let mut b = model();
    b.keys.as_mut().unwrap()[1].time = 0.0; // pair (0, 1) is mapped by node 0
    assert_eq!(bad(&b), Check::KeyTimes);
    let mut b = model();
    b.keys.as_mut().unwrap()[2].time = f32::NAN;
    assert_eq!(bad(&b), Check::KeyTimes);
    // Key 3 (t = 0 after key 2 at t = 4) is a fallback: no pair uses (2, 3).
    assert!(model().build().is_ok());
}

#[test]
fn parent_link_out_of_range() {
    let mut b = model();
    b.nodes[2].parent = 3;
    assert_eq!(bad(&b), Check::ParentLink);
}

#[test]
fn parent_cycle() {
    let mut b = model();
    b.nodes[0].parent = 2; // 0 -> 2 -> 1 -> 0
    assert_eq!(bad(&b), Check::ParentCycle);
    let mut b = model();
    b.nodes[1].parent = 1; // self
    assert_eq!(bad(&b), Check::ParentCycle);
    // A parent after its child is not a cycle (the tome only forbids cycles).
    let mut b = model();
    b.nodes[0].parent = 2;
    b.nodes[1].parent = NONE_U16;
    assert!(b.build().is_ok());
}

#[test]
fn node_names_framing() {
    let mut b = model();
    b.names.as_mut().unwrap().pop();
    assert_eq!(bad(&b), Check::NodeNames);
    let bytes = edited(|d, m| {
        let s = m.stream(10).unwrap();
        let mut data = s.data.to_vec();
        data.push(0);
        d.replace_payload(s.index, &data).unwrap();
    });
    assert_eq!(check_of(&bytes), Check::NodeNames, "trailing byte");
    let bytes = edited(|d, m| {
        let s = m.stream(10).unwrap();
        let mut data = s.data.to_vec();
        data[8] = b'!'; // the NUL after "root"
        d.replace_payload(s.index, &data).unwrap();
    });
    assert_eq!(check_of(&bytes), Check::NodeNames, "missing NUL");
    let bytes = edited(|d, m| {
        d.replace_payload(entry_of(m, 10), &[0xFF, 0xFF, 0xFF, 0xFF, 0])
            .unwrap();
    });
    assert_eq!(check_of(&bytes), Check::NodeNames, "huge length");
}

#[test]
fn errors_name_entry_type_record_offset_expected_found() {
    let mut b = model();
    b.nodes[1].slot_index[2] = 9;
    let bytes = b.build_unchecked().unwrap();
    let e = Msh::parse(&bytes).unwrap_err();
    let MshError::Invalid { at, found, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(at.type_id, Some(1));
    assert_eq!(at.entry, Some(0));
    assert_eq!(at.record, Some(1));
    assert_eq!(at.offset, Some(38 + 8 + 4));
    assert_eq!(*found, Found::Int(9));
    assert_eq!(
        e.to_string(),
        "[slot_index] entry #0 type 1 record 1 offset 0x32: slot_index: expected < 4, found 9"
    );
}

#[test]
fn mtcheck_variant_passes_through_unchanged() {
    let bytes = edited(|d, m| {
        let i = entry_of(m, 1);
        d.replace_payload(i, &[0x24; 48]).unwrap();
        d.set_attrs(i, 2, 0, 24).unwrap();
        d.remove_entry(entry_of(m, 10)).unwrap();
    });
    let msh = Msh::parse(&bytes).expect("MTCHECK variant accepted");
    assert_eq!(msh.node_layout(), NodeLayout::Opaque24);
    assert_eq!(msh.node_count(), 0);
    assert_eq!(msh.nodes().count(), 0);
    assert_eq!(msh.to_bytes(), bytes);
    assert_eq!(
        sample_node(&msh, 0, 0.0, SampleOptions::default()),
        Err(MshError::OpaqueNodes)
    );
    assert_eq!(MshBuilder::from_msh(&msh), Err(MshError::OpaqueNodes));
}
