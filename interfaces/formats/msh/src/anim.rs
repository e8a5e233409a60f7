//! Animation sampling (FORMATS §7.10, tome V "Иерархия и анимация"): time → frame, key
//! selection with the fallback rules, key-pair interpolation with a shortest-path
//! quaternion blend (named option), and pose blending between two states.
//!
//! Quaternions are used as decoded (`raw / 32767`, not normalised, project decision 3);
//! [`Blend::Nlerp`] is a component-wise linear blend whose normalisation happens where a
//! matrix is built ([`crate::local_matrix`]), so the rotation it denotes is the
//! normalised lerp.

use crate::error::MshError;
use crate::model::{Msh, NodeLayout};
use crate::records::{AnimKey24, NONE_U16};
use glam::{Quat, Vec3, Vec4};

/// The shortest-path quaternion blend (the sources leave slerp vs nlerp open, §16.18).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Blend {
    /// Spherical linear interpolation on the shorter arc.
    Slerp,
    /// Normalised linear interpolation on the shorter arc (FParkan's choice; default).
    #[default]
    Nlerp,
}

/// Time → logical frame index (the unit and rounding are open, FORMATS §16.17). Time is
/// in frame units, the unit of `AnimKey24::time`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FrameRule {
    /// `floor(t)` (default).
    #[default]
    Floor,
    /// Round half to even (the x87 default rounding mode).
    RoundHalfEven,
}

/// Sampling options, each a named choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SampleOptions {
    /// Quaternion blend.
    pub blend: Blend,
    /// Time → frame rule.
    pub frame_rule: FrameRule,
}

/// A node's local pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Local translation.
    pub position: Vec3,
    /// Local rotation, not normalised.
    pub rotation: Quat,
}

impl Pose {
    /// Identity pose (used when the model has no type-8 keys).
    pub const IDENTITY: Pose = Pose {
        position: Vec3::ZERO,
        rotation: Quat::IDENTITY,
    };

    /// The pose stored in a key.
    pub fn from_key(key: &AnimKey24) -> Self {
        Self {
            position: Vec3::from_array(key.position),
            rotation: key.quat(),
        }
    }

    /// All components finite.
    pub fn is_valid(&self) -> bool {
        self.position.is_finite() && self.rotation.is_finite()
    }
}

/// The key(s) chosen for one node at one time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KeySelection {
    /// The node's `fallback_key`, returned as is (static pose, end of track).
    Fallback(u16),
    /// The time hits this key exactly: returned as is.
    Exact(usize),
    /// Interpolate `k0 → k1 = k0 + 1` with `alpha = (t - t0) / (t1 - t0)`.
    Pair {
        /// Mapped key.
        k0: usize,
        /// Next key.
        k1: usize,
        /// Blend factor (not clamped).
        alpha: f32,
    },
}

/// `a > b`, false when either is NaN.
fn greater(a: f32, b: f32) -> bool {
    a > b
}

/// The logical frame of time `t`; `None` for NaN or a value outside `i64`.
pub fn frame_index(t: f32, rule: FrameRule) -> Option<i64> {
    let f = match rule {
        FrameRule::Floor => t.floor(),
        FrameRule::RoundHalfEven => t.round_ties_even(),
    };
    // f32 integers in this range convert exactly.
    (-9.0e18..=9.0e18).contains(&f).then_some(f as i64)
}

fn node_of(msh: &Msh<'_>, node: usize) -> Result<crate::Node38, MshError> {
    if msh.node_layout() == NodeLayout::Opaque24 {
        return Err(MshError::OpaqueNodes);
    }
    msh.node(node).ok_or(MshError::NodeOutOfRange {
        node,
        count: msh.node_count(),
    })
}

/// Key selection, steps 1–6 of FORMATS §7.10 / tome V, plus the exact-time hit and
/// FParkan's guard (`t1 <= t0` → fallback).
pub fn select_key(
    msh: &Msh<'_>,
    node: usize,
    t: f32,
    rule: FrameRule,
) -> Result<KeySelection, MshError> {
    let n = node_of(msh, node)?;
    let fallback = Ok(KeySelection::Fallback(n.fallback_key));
    let frames = i64::from(msh.frame_count());
    let Some(frame) = frame_index(t, rule).filter(|f| (0..frames).contains(f)) else {
        return fallback; // 2: outside [0, attr2(type 19))
    };
    if n.anim_map_start == NONE_U16 {
        return fallback; // 3
    }
    let word = usize::from(n.anim_map_start) + frame as usize;
    let Some(k) = msh.frame_map_word(word) else {
        return fallback;
    };
    if k >= n.fallback_key {
        return fallback; // 5
    }
    let (k0, k1) = (usize::from(k), usize::from(k) + 1);
    let (Some(a), Some(b)) = (msh.key(k0), msh.key(k1)) else {
        return fallback;
    };
    if t == a.time {
        return Ok(KeySelection::Exact(k0));
    }
    if t == b.time {
        return Ok(KeySelection::Exact(k1));
    }
    if !greater(b.time, a.time) {
        return fallback;
    }
    Ok(KeySelection::Pair {
        k0,
        k1,
        alpha: (t - a.time) / (b.time - a.time),
    })
}

/// The local pose of `node` at time `t`.
pub fn sample_node(
    msh: &Msh<'_>,
    node: usize,
    t: f32,
    options: SampleOptions,
) -> Result<Pose, MshError> {
    let key_pose = |k: usize| msh.key(k).map_or(Pose::IDENTITY, |k| Pose::from_key(&k));
    Ok(match select_key(msh, node, t, options.frame_rule)? {
        KeySelection::Fallback(k) => key_pose(usize::from(k)),
        KeySelection::Exact(k) => key_pose(k),
        KeySelection::Pair { k0, k1, alpha } => {
            let (a, b) = (key_pose(k0), key_pose(k1));
            Pose {
                position: a.position.lerp(b.position, alpha),
                rotation: blend_quat(a.rotation, b.rotation, alpha, options.blend),
            }
        }
    })
}

/// Local poses of every typed node at time `t`.
pub fn sample_all(msh: &Msh<'_>, t: f32, options: SampleOptions) -> Result<Vec<Pose>, MshError> {
    if msh.node_layout() == NodeLayout::Opaque24 {
        return Err(MshError::OpaqueNodes);
    }
    (0..msh.node_count())
        .map(|n| sample_node(msh, n, t, options))
        .collect()
}

/// Shortest-path blend: `q1` is negated when `dot(q0, q1) < 0`, then slerp or the linear
/// blend `q0 (1 - a) + q1 a` (normalised later, see the module docs).
pub fn blend_quat(q0: Quat, q1: Quat, alpha: f32, blend: Blend) -> Quat {
    let a = Vec4::from(q0);
    let mut b = Vec4::from(q1);
    let mut d = a.dot(b);
    if d < 0.0 {
        b = -b;
        d = -d;
    }
    let lerp = || Quat::from_vec4(a * (1.0 - alpha) + b * alpha);
    match blend {
        Blend::Nlerp => lerp(),
        Blend::Slerp => {
            let norm = a.length() * b.length();
            if !greater(norm, 0.0) {
                return lerp();
            }
            let theta = (d / norm).clamp(-1.0, 1.0).acos();
            let s = theta.sin();
            if !greater(s, 1.0e-6) {
                return lerp();
            }
            let w0 = ((1.0 - alpha) * theta).sin() / s;
            let w1 = (alpha * theta).sin() / s;
            Quat::from_vec4(a * w0 + b * w1)
        }
    }
}

/// Blends two states' poses of one node: position linearly, rotation with the
/// shortest-path blend; if one side is missing or not finite, the other is used.
pub fn blend_pose(a: Option<Pose>, b: Option<Pose>, weight: f32, blend: Blend) -> Option<Pose> {
    match (a.filter(Pose::is_valid), b.filter(Pose::is_valid)) {
        (Some(a), Some(b)) => Some(Pose {
            position: a.position.lerp(b.position, weight),
            rotation: blend_quat(a.rotation, b.rotation, weight, blend),
        }),
        (Some(p), None) | (None, Some(p)) => Some(p),
        (None, None) => None,
    }
}

/// A plain-`f32`, array-based reference of the sampling maths (no glam, no SIMD), for
/// parity tests of the main path. Quaternions are `[x, y, z, w]`.
pub mod reference {
    use super::greater;

    /// Shortest-path blend, same rules as [`super::blend_quat`].
    pub fn blend_quat(q0: [f32; 4], q1: [f32; 4], alpha: f32, slerp: bool) -> [f32; 4] {
        let dot = |a: [f32; 4], b: [f32; 4]| {
            // Same association as glam's scalar dot: (x*x' + y*y') + (z*z' + w*w').
            (a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3])
        };
        let mut b = q1;
        let mut d = dot(q0, b);
        if d < 0.0 {
            b = b.map(|v| -v);
            d = -d;
        }
        let lin = |w0: f32, w1: f32| [0, 1, 2, 3].map(|i| q0[i] * w0 + b[i] * w1);
        if !slerp {
            return lin(1.0 - alpha, alpha);
        }
        let norm = dot(q0, q0).sqrt() * dot(b, b).sqrt();
        if !greater(norm, 0.0) {
            return lin(1.0 - alpha, alpha);
        }
        let theta = (d / norm).clamp(-1.0, 1.0).acos();
        let s = theta.sin();
        if !greater(s, 1.0e-6) {
            return lin(1.0 - alpha, alpha);
        }
        lin(((1.0 - alpha) * theta).sin() / s, (alpha * theta).sin() / s)
    }

    /// Column-major 4×4 matrix of rotation (normalised here) and translation.
    pub fn local_matrix(q: [f32; 4], p: [f32; 3]) -> [[f32; 4]; 4] {
        let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
        let [x, y, z, w] = if len.is_finite() && len > 0.0 {
            q.map(|v| v / len)
        } else {
            [0.0, 0.0, 0.0, 1.0]
        };
        [
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y + w * z),
                2.0 * (x * z - w * y),
                0.0,
            ],
            [
                2.0 * (x * y - w * z),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z + w * x),
                0.0,
            ],
            [
                2.0 * (x * z + w * y),
                2.0 * (y * z - w * x),
                1.0 - 2.0 * (x * x + y * y),
                0.0,
            ],
            [p[0], p[1], p[2], 1.0],
        ]
    }

    /// Column-major product `a * b`.
    pub fn mul(a: &[[f32; 4]; 4], b: &[[f32; 4]; 4]) -> [[f32; 4]; 4] {
        let mut out = [[0.0; 4]; 4];
        for (c, col) in out.iter_mut().enumerate() {
            for (r, v) in col.iter_mut().enumerate() {
                *v = (0..4).map(|k| a[k][r] * b[c][k]).sum();
            }
        }
        out
    }
}
