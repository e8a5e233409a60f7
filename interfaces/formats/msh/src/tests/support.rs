//! Shared fixtures: a three-node model with LODs, groups, animation, names and opaque
//! streams, built in code.

use crate::*;

pub fn slot(tri: (u16, u16), batch: (u16, u16)) -> Slot68 {
    Slot68 {
        tri_start: tri.0,
        tri_count: tri.1,
        batch_start: batch.0,
        batch_count: batch.1,
        aabb_min: [-1.0; 3],
        aabb_max: [1.0; 3],
        sphere_center: [0.0; 3],
        sphere_radius: 1.75,
        opaque: [1, 2, 3, 4, 5],
    }
}

pub fn batch(start: u32, count: u16, base: u32) -> Batch20 {
    Batch20 {
        batch_flags: 0x11,
        material_index: 2,
        opaque4: 3,
        opaque6: 4,
        index_count: count,
        index_start: start,
        opaque14: 5,
        base_vertex: base,
    }
}

pub fn key(time: f32, position: [f32; 3], rotation: [i16; 4]) -> AnimKey24 {
    AnimKey24 {
        position,
        time,
        rotation,
    }
}

pub const Q_ID: [i16; 4] = [0, 0, 0, 32767];
pub const Q_Z90: [i16; 4] = [0, 0, 23170, 23170];
pub const Q_Z90_NEG: [i16; 4] = [0, 0, -23170, -23170];
pub const Q_Z180: [i16; 4] = [0, 0, 32767, 0];

/// Node 0 (root): keys 0..=2 at t = 0, 2, 4, fallback 3; map [0, 0, 1, 1, 3].
/// Node 1 (child of 0): keys 4, 5 at t = 0, 4 (5 in the other hemisphere), fallback 6;
/// map [4, 4, 4, 4, 6]. Node 2 (child of 1): no map, fallback 7. Frame count 5.
pub fn model() -> MshBuilder {
    let mut b = MshBuilder::new();
    let mut n0 = Node38::new(3);
    n0.anim_map_start = 0;
    n0.slot_index[0] = 0; // lod 0, group 0
    n0.slot_index[5] = 1; // lod 1, group 0
    n0.slot_index[10] = 2; // lod 2, group 0
    let mut n1 = Node38::new(6);
    n1.parent = 0;
    n1.anim_map_start = 5;
    n1.hdr0 = 0xABCD;
    n1.slot_index[2] = 3; // lod 0, group 2
    let mut n2 = Node38::new(7);
    n2.parent = 1;
    b.nodes = vec![n0, n1, n2];
    b.names = Some(vec![Some(b"root".to_vec()), None, Some(b"turret".to_vec())]);
    b.slot_header = [0x5A; SLOT_HEADER_SIZE];
    b.slots = vec![
        slot((0, 1), (0, 1)),
        slot((1, 1), (1, 1)),
        slot((0, 0), (2, 1)),
        slot((2, 1), (0, 3)),
    ];
    b.positions = (0..6).map(|i| [i as f32, -0.0, 1.5]).collect();
    b.normals = Some((0..6).map(|i| PackedNormal([127, -128, i, -7])).collect());
    b.uvs = Some((0..6).map(|i| PackedUv([i * 512, -1024])).collect());
    b.indices = vec![0, 1, 2, 0, 2, 3, 0, 1, 2];
    b.tris = Some(
        (0..3)
            .map(|i| TriDesc16 {
                tri_flags: i,
                links: [1, 2, NONE_U16],
                normal: [0, 0, 32767],
                sel_packed: 0b11_01_00 | 0xF000,
            })
            .collect(),
    );
    b.batches = vec![batch(0, 3, 0), batch(3, 3, 1), batch(6, 3, 3)];
    b.keys = Some(vec![
        key(0.0, [0.0, 0.0, 0.0], Q_ID),
        key(2.0, [2.0, 0.0, 0.0], Q_Z90),
        key(4.0, [4.0, 0.0, 0.0], Q_Z180),
        key(0.0, [9.0, 9.0, 9.0], Q_ID),
        key(0.0, [0.0, 1.0, 0.0], Q_ID),
        key(4.0, [0.0, 5.0, 0.0], Q_Z90_NEG),
        key(0.0, [0.0, 7.0, 0.0], Q_ID),
        key(0.0, [0.0, 0.0, 2.0], Q_Z90),
    ]);
    b.frame_map = Some(FrameMap {
        frame_count: 5,
        words: vec![0, 0, 1, 1, 3, 4, 4, 4, 4, 6],
    });
    b.raw = vec![
        RawStream::new(9, vec![9, 9, 9]),
        RawStream::new(15, vec![1, 2, 3, 4, 5, 6, 7, 8]),
        RawStream::new(17, vec![0xEE; 5]),
    ];
    b
}

/// The fixture with the extended order and types 18 and 20.
pub fn extended_model() -> MshBuilder {
    let mut b = model();
    b.order = EXTENDED_ORDER.to_vec();
    b.raw.push(RawStream::new(18, vec![1, 0, 0, 0, 2, 0, 0, 0]));
    b.raw.push(RawStream {
        type_id: 20,
        attrs: [7, 8, 9],
        name: Some(b"aux20".to_vec()),
        data: vec![0x20; 11],
    });
    b
}

pub fn check_of(bytes: &[u8]) -> Check {
    Msh::parse(bytes)
        .expect_err("must be rejected")
        .check()
        .expect("a strict check")
}
