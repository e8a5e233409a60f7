//! Node hierarchy: an order with every parent before its children (a cycle is an error)
//! and node world matrices `world[n] = world[parent(n)] * local[n]` (FORMATS §7.10).

use crate::anim::Pose;
use crate::error::MshError;
use crate::model::Msh;
use glam::{Mat4, Quat, Vec3};

/// An order of `0..parents.len()` where every parent comes before its children. For
/// `parent < child` tables it is `0, 1, 2, …`. A parent index out of range is treated as
/// a root (the strict reader already rejects it). A cycle (self-parent included) fails
/// with [`MshError::Cycle`].
pub fn order(parents: &[Option<usize>]) -> Result<Vec<usize>, MshError> {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let n = parents.len();
    let mut state = vec![NEW; n];
    let mut out = Vec::with_capacity(n);
    let mut chain = Vec::new();
    for start in 0..n {
        let mut cur = Some(start);
        while let Some(c) = cur.filter(|&c| c < n) {
            match state[c] {
                DONE => break,
                OPEN => return Err(MshError::Cycle { node: c }),
                _ => {
                    state[c] = OPEN;
                    chain.push(c);
                    cur = parents[c];
                }
            }
        }
        while let Some(c) = chain.pop() {
            state[c] = DONE;
            out.push(c);
        }
    }
    Ok(out)
}

/// The local matrix of a pose: rotation from the quaternion **normalised here** (the
/// only place this crate normalises, project decision 3; a zero quaternion gives the
/// identity rotation), translation = position.
pub fn local_matrix(pose: &Pose) -> Mat4 {
    let q = pose.rotation;
    let len = q.length();
    let rot = if len.is_finite() && len > 0.0 {
        q / len
    } else {
        Quat::IDENTITY
    };
    Mat4::from_rotation_translation(rot, pose.position)
}

/// World matrices of all typed nodes from one local pose per node.
pub fn world_matrices(msh: &Msh<'_>, poses: &[Pose]) -> Result<Vec<Mat4>, MshError> {
    let parents: Vec<Option<usize>> = msh.nodes().map(|n| n.parent()).collect();
    world_matrices_for(&parents, poses)
}

/// World matrices for an explicit parent table (`poses.len() == parents.len()`).
pub fn world_matrices_for(
    parents: &[Option<usize>],
    poses: &[Pose],
) -> Result<Vec<Mat4>, MshError> {
    if poses.len() != parents.len() {
        return Err(MshError::PoseCount {
            expected: parents.len(),
            found: poses.len(),
        });
    }
    let mut world = vec![Mat4::IDENTITY; parents.len()];
    for n in order(parents)? {
        let local = local_matrix(&poses[n]);
        world[n] = match parents[n].and_then(|p| world.get(p)) {
            Some(pw) => *pw * local,
            None => local,
        };
    }
    Ok(world)
}

/// The world position of the origin of node `n` (translation column).
pub fn world_origin(world: &Mat4) -> Vec3 {
    world.w_axis.truncate()
}
