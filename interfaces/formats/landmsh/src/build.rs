//! Authoring helpers: triangulate a regular height grid ([`from_grid`]) and derive face
//! neighbours from shared edges ([`link_neighbours`]).

use crate::error::LandMshError;
use crate::model::{NO_NEIGHBOUR, Streams, TerrainFace};
use std::collections::BTreeMap;

/// Builds the streams of a `width × height`-cell grid: `(width + 1) × (height + 1)`
/// vertices at `(i·cell_size, j·cell_size, height_fn(x, y))` (Z up, world units), two
/// faces per cell (cell `(i, j)` → faces `2·(j·width + i)` = `(v00, v10, v11)` and `+1` =
/// `(v00, v11, v01)`, counter-clockwise seen from +Z) with neighbours per the
/// [`TerrainFace::neighbours`] edge convention, normals from central differences
/// (`i8` × 127, 4th byte 0) and UVs `i/width`, `j/height` (× 1024). Every other field
/// and stream is zero/empty (project decision 6); callers may fill them afterwards.
pub fn from_grid(
    width: u16,
    height: u16,
    cell_size: f32,
    mut height_fn: impl FnMut(f32, f32) -> f32,
) -> Result<Streams, LandMshError> {
    if width == 0 || height == 0 {
        return Err(LandMshError::Grid {
            field: "width/height",
            problem: "expected at least one cell in each direction",
        });
    }
    if !(cell_size.is_finite() && cell_size > 0.0) {
        return Err(LandMshError::Grid {
            field: "cell_size",
            problem: "expected a finite value > 0",
        });
    }
    let (w, h) = (usize::from(width), usize::from(height));
    let verts = (w + 1) * (h + 1);
    let faces = 2 * w * h;
    if verts > 1 << 16 {
        return Err(LandMshError::TooMany {
            type_id: crate::model::TYPE_POSITIONS,
            max: 1 << 16,
            found: verts as u64,
        });
    }
    if faces > usize::from(NO_NEIGHBOUR) {
        return Err(LandMshError::TooMany {
            type_id: crate::model::TYPE_FACES,
            max: u64::from(NO_NEIGHBOUR),
            found: faces as u64,
        });
    }
    let mut s = Streams::default();
    let mut zs = Vec::with_capacity(verts);
    for j in 0..=h {
        for i in 0..=w {
            let (x, y) = (i as f32 * cell_size, j as f32 * cell_size);
            let z = height_fn(x, y);
            if !z.is_finite() {
                return Err(LandMshError::Grid {
                    field: "height_fn",
                    problem: "returned a non-finite height",
                });
            }
            zs.push(z);
            s.positions.push([x, y, z]);
            let uv = |k: usize, n: usize| ((k as f32 / n as f32) * 1024.0).round() as i16;
            s.uvs.push([uv(i, w), uv(j, h)]);
        }
    }
    let z = |i: usize, j: usize| zs[j * (w + 1) + i];
    for j in 0..=h {
        for i in 0..=w {
            let (il, ir) = (i.saturating_sub(1), (i + 1).min(w));
            let (jd, ju) = (j.saturating_sub(1), (j + 1).min(h));
            let dx = (z(ir, j) - z(il, j)) / ((ir - il) as f32 * cell_size);
            let dy = (z(i, ju) - z(i, jd)) / ((ju - jd) as f32 * cell_size);
            let (nx, ny, nz) = (-dx, -dy, 1.0f32);
            let len = (nx * nx + ny * ny + nz * nz).sqrt();
            let q = |c: f32| (c / len * 127.0).round().clamp(-127.0, 127.0) as i8;
            s.normals.push([q(nx), q(ny), q(nz), 0]);
        }
    }
    let vid = |i: usize, j: usize| (j * (w + 1) + i) as u16;
    let fid = |i: usize, j: usize, b: usize| (2 * (j * w + i) + b) as u16;
    for j in 0..h {
        for i in 0..w {
            let (v00, v10, v01, v11) = (vid(i, j), vid(i + 1, j), vid(i, j + 1), vid(i + 1, j + 1));
            let below = if j > 0 {
                fid(i, j - 1, 1)
            } else {
                NO_NEIGHBOUR
            };
            let right = if i + 1 < w {
                fid(i + 1, j, 1)
            } else {
                NO_NEIGHBOUR
            };
            let above = if j + 1 < h {
                fid(i, j + 1, 0)
            } else {
                NO_NEIGHBOUR
            };
            let left = if i > 0 {
                fid(i - 1, j, 0)
            } else {
                NO_NEIGHBOUR
            };
            s.faces.push(TerrainFace {
                vertices: [v00, v10, v11],
                neighbours: [below, right, fid(i, j, 1)],
                ..TerrainFace::default()
            });
            s.faces.push(TerrainFace {
                vertices: [v00, v11, v01],
                neighbours: [fid(i, j, 0), above, left],
                ..TerrainFace::default()
            });
        }
    }
    Ok(s)
}

/// Sets every face's neighbours from shared edges (edge `k` = `vertices[k] →
/// vertices[(k + 1) % 3]`): the neighbour is the other face with the same undirected
/// edge, or `0xFFFF` when there is none or the edge is shared by more than two faces.
/// Faces beyond index `0xFFFE` cannot be named and get `0xFFFF`.
pub fn link_neighbours(faces: &mut [TerrainFace]) {
    let mut edges: BTreeMap<(u16, u16), (usize, usize, u32)> = BTreeMap::new();
    for (i, f) in faces.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (f.vertices[k], f.vertices[(k + 1) % 3]);
            let key = (a.min(b), a.max(b));
            edges
                .entry(key)
                .and_modify(|e| {
                    e.1 = i;
                    e.2 += 1;
                })
                .or_insert((i, i, 1));
        }
    }
    for (i, face) in faces.iter_mut().enumerate() {
        for k in 0..3 {
            let (a, b) = (face.vertices[k], face.vertices[(k + 1) % 3]);
            let n = match edges.get(&(a.min(b), a.max(b))) {
                Some(&(x, y, 2)) if x != y => {
                    let other = if x == i { y } else { x };
                    u16::try_from(other).ok().filter(|&o| o != NO_NEIGHBOUR)
                }
                _ => None,
            };
            face.neighbours[k] = n.unwrap_or(NO_NEIGHBOUR);
        }
    }
}
