//! Byte-identical round-trips of built models and typed decoding of every stream.

use super::support::*;
use crate::*;

#[test]
fn built_models_roundtrip_in_both_observed_orders() {
    for (b, order) in [
        (model(), &BASE_ORDER[..]),
        (extended_model(), &EXTENDED_ORDER[..]),
    ] {
        let bytes = b.build().unwrap();
        let msh = Msh::parse(&bytes).unwrap();
        assert_eq!(msh.to_bytes(), bytes);
        assert_eq!(msh.type_order(), order);
        let again = MshBuilder::from_msh(&msh).unwrap();
        assert_eq!(again.build().unwrap(), bytes);
    }
}

#[test]
fn typed_views_decode_the_fixture() {
    let b = model();
    let bytes = b.build().unwrap();
    let m = Msh::parse(&bytes).unwrap();
    assert_eq!(m.nodes().collect::<Vec<_>>(), b.nodes);
    assert_eq!(m.node(0).unwrap().slot(1, 0), Some(1));
    assert_eq!(m.node(1).unwrap().slot(0, 2), Some(3));
    assert_eq!(m.node(1).unwrap().slot(0, 0), None);
    assert_eq!(m.node(1).unwrap().slot(3, 0), None);
    assert_eq!(m.node(1).unwrap().parent(), Some(0));
    assert_eq!(m.slot_header(), &[0x5A; 0x8C][..]);
    assert_eq!(m.slots().collect::<Vec<_>>(), b.slots);
    assert_eq!(m.slot_count(), 4);
    assert_eq!(m.positions().nth(5).unwrap().0, [5.0, -0.0, 1.5]);
    assert!(m.positions().nth(5).unwrap().0[1].is_sign_negative());
    let n = m.normals().next().unwrap();
    assert_eq!(n.decode_xyz(), [1.0, -1.0, 0.0]);
    assert_eq!(n.0[3], -7);
    assert_eq!(m.uvs().nth(1).unwrap().decode(), [0.5, -1.0]);
    assert_eq!(m.indices().collect::<Vec<_>>(), b.indices);
    assert_eq!(
        m.batch_indices(1).unwrap().collect::<Vec<_>>(),
        vec![0, 2, 3]
    );
    let t = m.tris().next().unwrap();
    assert_eq!(
        [0, 1, 2, 3].map(|i| t.selector(i)),
        [Some(0), Some(1), Some(NONE_U16), None]
    );
    assert_eq!(m.batches().collect::<Vec<_>>(), b.batches);
    assert_eq!(m.keys().count(), 8);
    assert_eq!(m.key(1).unwrap().quat().z, 23170.0 / 32767.0);
    assert_eq!(m.frame_count(), 5);
    assert_eq!(m.frame_map_word(9), Some(6));
    let names: Vec<_> = m.node_names().collect();
    assert_eq!(names, vec![Some(&b"root"[..]), None, Some(&b"turret"[..])]);
    let s = m.stream(20);
    assert!(s.is_none());
    assert_eq!(m.stream(1).unwrap().attr3, 38);
    assert_eq!(m.stream(19).unwrap().attr2, 5);
}

#[test]
fn records_encode_back_to_their_bytes() {
    let raw: Vec<u8> = (0u8..68).map(|i| i.wrapping_mul(37)).collect();
    fn back<T: Record>(raw: &[u8]) {
        let r = T::decode(&raw[..T::SIZE]);
        let mut out = Vec::new();
        r.encode(&mut out);
        assert_eq!(out, &raw[..T::SIZE]);
    }
    back::<Node38>(&raw);
    back::<Slot68>(&raw);
    back::<Position>(&raw);
    back::<PackedNormal>(&raw);
    back::<PackedUv>(&raw);
    back::<TriDesc16>(&raw);
    back::<Batch20>(&raw);
    back::<AnimKey24>(&raw);
}

#[test]
fn batch20_unaligned_fields() {
    let mut out = Vec::new();
    batch(0x0102_0304, 7, 0xA0B0_C0D0).encode(&mut out);
    assert_eq!(out.len(), 20);
    assert_eq!(&out[0x0A..0x0E], &[4, 3, 2, 1]);
    assert_eq!(&out[0x10..0x14], &[0xD0, 0xC0, 0xB0, 0xA0]);
}

#[test]
fn normal_minus_128_clamps() {
    assert_eq!(
        PackedNormal([-128, -127, 64, 0]).decode_xyz()[..2],
        [-1.0, -1.0]
    );
}

#[test]
fn unknown_types_are_kept_raw_and_in_place() {
    let mut b = model();
    b.raw.push(RawStream::new(0x4242, vec![1, 2, 3]));
    b.order.insert(3, 0x4242);
    let bytes = b.build().unwrap();
    let m = Msh::parse(&bytes).unwrap();
    assert_eq!(m.type_order()[3], 0x4242);
    assert_eq!(m.stream(0x4242).unwrap().data, &[1, 2, 3]);
    assert_eq!(m.to_bytes(), bytes);
}

#[test]
fn minimal_model_without_optional_streams() {
    let mut b = MshBuilder::new();
    b.nodes.push(Node38::new(0));
    b.positions = vec![[0.0; 3]];
    let bytes = b.build().unwrap();
    let m = Msh::parse(&bytes).unwrap();
    assert_eq!(m.type_order(), vec![1, 2, 3, 13, 6]);
    // No type 8: fallback_key is not checked, the pose is the identity.
    assert_eq!(
        sample_node(&m, 0, 0.0, SampleOptions::default()).unwrap(),
        Pose::IDENTITY
    );
}
