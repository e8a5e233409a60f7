//! Sampling: key selection at frame boundaries (on a key, just before, just after, past
//! the last frame), fallback rules, shortest-path blends, pose blending, hierarchy and
//! world matrices, and parity with the scalar reference.

use super::support::*;
use crate::*;
use glam::{Quat, Vec3, Vec4};

fn fixture() -> Vec<u8> {
    model().build().unwrap()
}

fn sel(m: &Msh<'_>, node: usize, t: f32) -> KeySelection {
    select_key(m, node, t, FrameRule::Floor).unwrap()
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).abs().max_element() < 1e-5
}

fn same_rotation(a: Quat, b: Quat) -> bool {
    let (a, b) = (a.normalize(), b.normalize());
    a.dot(b).abs() > 1.0 - 1e-5
}

#[test]
fn exact_time_on_a_key_returns_the_key() {
    let b = fixture();
    let m = Msh::parse(&b).unwrap();
    assert_eq!(sel(&m, 0, 0.0), KeySelection::Exact(0));
    assert_eq!(sel(&m, 0, 2.0), KeySelection::Exact(1));
    let p = sample_node(&m, 0, 2.0, SampleOptions::default()).unwrap();
    assert_eq!(p, Pose::from_key(&m.key(1).unwrap()));
}

#[test]
fn exact_time_on_the_next_key_returns_it() {
    let mut bld = model();
    bld.frame_map.as_mut().unwrap().words[9] = 4; // node 1, frame 4 -> pair (4, 5)
    let b = bld.build().unwrap();
    let m = Msh::parse(&b).unwrap();
    assert_eq!(sel(&m, 1, 4.0), KeySelection::Exact(5));
}

#[test]
fn just_before_and_just_after_a_key() {
    let b = fixture();
    let m = Msh::parse(&b).unwrap();
    let before = f32::from_bits(2.0f32.to_bits() - 1);
    let after = f32::from_bits(2.0f32.to_bits() + 1);
    match sel(&m, 0, before) {
        KeySelection::Pair {
            k0: 0,
            k1: 1,
            alpha,
        } => assert!(alpha < 1.0 && alpha > 0.999),
        s => panic!("{s:?}"),
    }
    match sel(&m, 0, after) {
        KeySelection::Pair {
            k0: 1,
            k1: 2,
            alpha,
        } => assert!(alpha > 0.0 && alpha < 1e-5),
        s => panic!("{s:?}"),
    }
    let p = sample_node(&m, 0, before, SampleOptions::default()).unwrap();
    assert!(close(p.position, Vec3::new(2.0, 0.0, 0.0)));
}

#[test]
fn between_keys_interpolates() {
    let b = fixture();
    let m = Msh::parse(&b).unwrap();
    assert_eq!(
        sel(&m, 0, 1.0),
        KeySelection::Pair {
            k0: 0,
            k1: 1,
            alpha: 0.5
        }
    );
    let p = sample_node(&m, 0, 3.0, SampleOptions::default()).unwrap();
    assert_eq!(p.position, Vec3::new(3.0, 0.0, 0.0));
    let z135 = Quat::from_rotation_z(135f32.to_radians());
    assert!(same_rotation(p.rotation, z135));
}

#[test]
fn past_the_last_frame_and_negative_time_use_the_fallback() {
    let b = fixture();
    let m = Msh::parse(&b).unwrap();
    let last = f32::from_bits(5.0f32.to_bits() - 1);
    assert_eq!(
        sel(&m, 0, 4.0),
        KeySelection::Fallback(3),
        "map word >= fallback"
    );
    assert_eq!(sel(&m, 0, last), KeySelection::Fallback(3));
    assert_eq!(
        sel(&m, 0, 5.0),
        KeySelection::Fallback(3),
        "frame == frame count"
    );
    assert_eq!(sel(&m, 0, 1.0e9), KeySelection::Fallback(3));
    assert_eq!(sel(&m, 0, -0.25), KeySelection::Fallback(3));
    assert_eq!(sel(&m, 0, f32::NAN), KeySelection::Fallback(3));
    assert_eq!(sel(&m, 0, f32::INFINITY), KeySelection::Fallback(3));
    let p = sample_node(&m, 0, 7.0, SampleOptions::default()).unwrap();
    assert_eq!(
        p,
        Pose::from_key(&m.key(3).unwrap()),
        "fallback returned as is"
    );
}

#[test]
fn node_without_map_always_uses_the_fallback() {
    let b = fixture();
    let m = Msh::parse(&b).unwrap();
    for t in [0.0, 1.0, 2.5, 4.0] {
        assert_eq!(sel(&m, 2, t), KeySelection::Fallback(7));
    }
    assert!(matches!(
        select_key(&m, 3, 0.0, FrameRule::Floor),
        Err(MshError::NodeOutOfRange { node: 3, count: 3 })
    ));
}

#[test]
fn round_half_even_frame_rule() {
    assert_eq!(frame_index(2.5, FrameRule::RoundHalfEven), Some(2));
    assert_eq!(frame_index(3.5, FrameRule::RoundHalfEven), Some(4));
    assert_eq!(frame_index(2.5, FrameRule::Floor), Some(2));
    assert_eq!(frame_index(-0.5, FrameRule::Floor), Some(-1));
    assert_eq!(frame_index(-0.5, FrameRule::RoundHalfEven), Some(0));
    assert_eq!(frame_index(f32::NAN, FrameRule::Floor), None);
    let b = fixture();
    let m = Msh::parse(&b).unwrap();
    // 1.5 rounds to frame 2 -> pair (1, 2), alpha outside [0, 1] is kept (not clamped).
    assert_eq!(
        select_key(&m, 0, 1.5, FrameRule::RoundHalfEven).unwrap(),
        KeySelection::Pair {
            k0: 1,
            k1: 2,
            alpha: -0.25
        }
    );
}

#[test]
fn shortest_path_flips_the_second_quaternion() {
    let b = fixture();
    let m = Msh::parse(&b).unwrap();
    for blend in [Blend::Nlerp, Blend::Slerp] {
        let opts = SampleOptions {
            blend,
            ..Default::default()
        };
        let p = sample_node(&m, 1, 2.0, opts).unwrap();
        assert_eq!(p.position, Vec3::new(0.0, 3.0, 0.0));
        assert!(
            same_rotation(p.rotation, Quat::from_rotation_z(45f32.to_radians())),
            "{blend:?}"
        );
        assert!(p.rotation.w > 0.0, "stays in q0's hemisphere");
    }
}

#[test]
fn slerp_keeps_unit_length_nlerp_does_not_normalise() {
    let q0 = Quat::IDENTITY;
    let q1 = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let s = blend_quat(q0, q1, 0.5, Blend::Slerp);
    let n = blend_quat(q0, q1, 0.5, Blend::Nlerp);
    assert!((s.length() - 1.0).abs() < 1e-6);
    assert!(n.length() < 0.95);
    assert!(same_rotation(s, n));
    // Endpoints.
    assert_eq!(blend_quat(q0, q1, 0.0, Blend::Nlerp), q0);
    assert!(same_rotation(blend_quat(q0, q1, 1.0, Blend::Slerp), q1));
    // Degenerate inputs do not panic and stay finite where possible.
    let z = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    assert!(blend_quat(z, z, 0.5, Blend::Slerp).is_finite());
    assert_eq!(blend_quat(q0, q0, 0.3, Blend::Slerp), q0);
}

#[test]
fn keys_are_not_normalised_on_read() {
    let k = key(0.0, [0.0; 3], [100, 0, 0, 100]);
    let q = Pose::from_key(&k).rotation;
    assert_eq!(q.x, 100.0 / 32767.0);
    assert!(q.length() < 0.01);
    // The matrix normalises: a scaled quaternion is the same rotation.
    let m = local_matrix(&Pose {
        position: Vec3::ZERO,
        rotation: q,
    });
    let u = local_matrix(&Pose {
        position: Vec3::ZERO,
        rotation: q.normalize(),
    });
    assert!(m.abs_diff_eq(u, 1e-6));
    let zero = Pose {
        position: Vec3::ONE,
        rotation: Quat::from_vec4(Vec4::ZERO),
    };
    assert_eq!(local_matrix(&zero), glam::Mat4::from_translation(Vec3::ONE));
}

#[test]
fn pose_blending_between_two_states() {
    let a = Pose {
        position: Vec3::ZERO,
        rotation: Quat::IDENTITY,
    };
    let b = Pose {
        position: Vec3::new(2.0, 0.0, 0.0),
        rotation: -Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
    };
    let p = blend_pose(Some(a), Some(b), 0.5, Blend::Slerp).unwrap();
    assert_eq!(p.position, Vec3::new(1.0, 0.0, 0.0));
    assert!(same_rotation(
        p.rotation,
        Quat::from_rotation_z(std::f32::consts::FRAC_PI_4)
    ));
    assert!(p.rotation.w > 0.0);
    assert_eq!(blend_pose(Some(a), None, 0.5, Blend::Nlerp), Some(a));
    assert_eq!(blend_pose(None, Some(b), 0.5, Blend::Nlerp), Some(b));
    let broken = Pose {
        position: Vec3::NAN,
        ..a
    };
    assert_eq!(
        blend_pose(Some(broken), Some(b), 0.5, Blend::Nlerp),
        Some(b)
    );
    assert_eq!(blend_pose(None, None, 0.5, Blend::Nlerp), None);
}

#[test]
fn hierarchy_puts_parents_first_and_rejects_cycles() {
    assert_eq!(
        hierarchy_order(&[None, Some(0), Some(1)]).unwrap(),
        vec![0, 1, 2]
    );
    assert_eq!(
        hierarchy_order(&[Some(2), None, Some(1)]).unwrap(),
        vec![1, 2, 0]
    );
    assert_eq!(
        hierarchy_order(&[Some(1), Some(0)]),
        Err(MshError::Cycle { node: 0 })
    );
    assert_eq!(
        hierarchy_order(&[Some(0)]),
        Err(MshError::Cycle { node: 0 })
    );
    assert!(hierarchy_order(&[]).unwrap().is_empty());
}

#[test]
fn world_matrices_chain_parents() {
    let b = fixture();
    let m = Msh::parse(&b).unwrap();
    let poses = sample_all(&m, 0.0, SampleOptions::default()).unwrap();
    let w = world_matrices(&m, &poses).unwrap();
    assert!(close(world_origin(&w[2]), Vec3::new(0.0, 1.0, 2.0)));
    let poses = sample_all(&m, 2.0, SampleOptions::default()).unwrap();
    let w = world_matrices(&m, &poses).unwrap();
    // Node 0 at (2, 0, 0) rotated 90° about z; node 1's (0, 3, 0) becomes (-3, 0, 0).
    assert!(close(world_origin(&w[1]), Vec3::new(-1.0, 0.0, 0.0)));
    assert_eq!(
        world_matrices(&m, &poses[..2]),
        Err(MshError::PoseCount {
            expected: 3,
            found: 2
        })
    );
}

#[test]
fn scalar_reference_matches_the_glam_path() {
    let b = fixture();
    let m = Msh::parse(&b).unwrap();
    let quats: Vec<Quat> = m.keys().map(|k| k.quat()).collect();
    for (i, &q0) in quats.iter().enumerate() {
        for &q1 in &quats[i..] {
            for alpha in [0.0, 0.25, 0.5, 0.999, 1.0] {
                let g = blend_quat(q0, q1, alpha, Blend::Nlerp);
                let r = reference::blend_quat(q0.to_array(), q1.to_array(), alpha, false);
                assert_eq!(g.to_array(), r, "nlerp bit-identical");
                let g = blend_quat(q0, q1, alpha, Blend::Slerp);
                let r = reference::blend_quat(q0.to_array(), q1.to_array(), alpha, true);
                assert!(
                    Vec4::from(g).abs_diff_eq(Vec4::from_array(r), 1e-6),
                    "slerp"
                );
            }
        }
    }
    let parents: Vec<Option<usize>> = m.nodes().map(|n| n.parent()).collect();
    for t in [0.0, 0.5, 1.0, 2.0, 2.5, 3.999, 4.0, 9.0] {
        let poses = sample_all(&m, t, SampleOptions::default()).unwrap();
        let w = world_matrices(&m, &poses).unwrap();
        let mut rw: Vec<[[f32; 4]; 4]> = Vec::new();
        for (n, p) in poses.iter().enumerate() {
            let local = reference::local_matrix(p.rotation.to_array(), p.position.to_array());
            let world = match parents[n] {
                Some(par) => reference::mul(&rw[par], &local),
                None => local,
            };
            rw.push(world);
        }
        for (g, r) in w.iter().zip(&rw) {
            assert!(
                g.abs_diff_eq(glam::Mat4::from_cols_array_2d(r), 1e-5),
                "t = {t}"
            );
        }
    }
}
