//! Property tests: random valid models encode → decode → encode byte-identically, and
//! sampling them never fails or panics.

use super::support::*;
use crate::*;
use proptest::prelude::*;

fn arb_model() -> impl Strategy<Value = MshBuilder> {
    (
        1usize..6,
        1usize..5,
        1usize..20,
        1usize..4,
        0u32..6,
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(|(nodes, slots, verts, batches, frames, extended, seed)| {
            let mut s = seed;
            let mut next = move |m: u64| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (s >> 33) % m.max(1)
            };
            let mut b = if extended {
                extended_model()
            } else {
                MshBuilder::new()
            };
            b.positions = (0..verts)
                .map(|i| [i as f32, next(100) as f32, -1.0])
                .collect();
            b.normals = Some(
                (0..verts)
                    .map(|_| PackedNormal([next(256) as u8 as i8; 4]))
                    .collect(),
            );
            b.uvs = (next(2) == 0).then(|| {
                (0..verts)
                    .map(|_| PackedUv([next(9000) as i16, -3]))
                    .collect()
            });
            b.indices = (0..batches * 3)
                .map(|_| next(verts as u64) as u16)
                .collect();
            b.batches = (0..batches).map(|i| batch(i as u32 * 3, 3, 0)).collect();
            b.tris = Some(
                (0..2)
                    .map(|i| TriDesc16 {
                        tri_flags: i,
                        links: [0; 3],
                        normal: [1, 2, 3],
                        sel_packed: next(65536) as u16,
                    })
                    .collect(),
            );
            b.slots = (0..slots)
                .map(|_| {
                    let bs = next(batches as u64) as u16;
                    slot(
                        (next(3) as u16, 0),
                        (bs, next((batches as u64) - u64::from(bs) + 1) as u16),
                    )
                })
                .collect();
            // Per node: a track of `frames` keys mapped one per frame, then a fallback.
            let mut keys = Vec::new();
            let mut words = Vec::new();
            b.nodes = (0..nodes)
                .map(|n| {
                    let first = keys.len() as u16;
                    for f in 0..frames {
                        keys.push(key(
                            f as f32,
                            [f as f32, n as f32, 0.0],
                            [next(65536) as u16 as i16, 0, 0, 32767],
                        ));
                    }
                    let fallback = keys.len() as u16;
                    keys.push(key(0.0, [0.0; 3], Q_ID));
                    let mut node = Node38::new(fallback);
                    if n > 0 {
                        node.parent = next(n as u64) as u16;
                    }
                    if frames > 0 && next(3) > 0 {
                        node.anim_map_start = words.len() as u16;
                        for f in 0..frames {
                            // Last frame maps to the fallback, others to their key.
                            words.push(if f + 1 == frames {
                                fallback
                            } else {
                                first + f as u16
                            });
                        }
                    }
                    for s in node.slot_index.iter_mut() {
                        let v = next(slots as u64 + 1);
                        *s = if v == slots as u64 {
                            NONE_U16
                        } else {
                            v as u16
                        };
                    }
                    node
                })
                .collect();
            b.keys = Some(keys);
            b.frame_map = Some(FrameMap {
                frame_count: frames,
                words,
            });
            b.names = (next(2) == 0).then(|| {
                (0..nodes)
                    .map(|i| (i % 2 == 0).then(|| vec![b'n', i as u8 + b'0']))
                    .collect()
            });
            b
        })
}

proptest! {
    #[test]
    fn encode_decode_encode_is_identity(b in arb_model()) {
        let bytes = b.build().expect("valid by construction");
        let m = Msh::parse(&bytes).unwrap();
        prop_assert_eq!(m.to_bytes(), bytes.clone());
        let again = MshBuilder::from_msh(&m).unwrap().build().unwrap();
        prop_assert_eq!(again, bytes);
    }

    #[test]
    fn sampling_random_models_never_fails(b in arb_model(), t in -2.0f32..8.0) {
        let bytes = b.build().unwrap();
        let m = Msh::parse(&bytes).unwrap();
        for blend in [Blend::Nlerp, Blend::Slerp] {
            for frame_rule in [FrameRule::Floor, FrameRule::RoundHalfEven] {
                let poses = sample_all(&m, t, SampleOptions { blend, frame_rule }).unwrap();
                let w = world_matrices(&m, &poses).unwrap();
                prop_assert!(w.iter().all(|m| m.is_finite()));
            }
        }
    }
}
