//! Shared helpers for the integration tests: generated maps and NRes wrapping.

#![allow(dead_code, reason = "each test binary uses a subset")]

use iron3d_landmap::*;
use iron3d_nres::{NewEntry, NresWriter};

/// A `w x h` checkerboard of unit squares (walkable alternating), auto-linked, with a
/// `cells x cells` grid.
pub fn squares(w: usize, h: usize, cells: u32) -> LandMap {
    let mut b = MapBuilder::new();
    for y in 0..h {
        for x in 0..w {
            let (x, y) = (x as f32, y as f32);
            b.add_area(&AreaSpec {
                polygon: vec![
                    [x, y, y / 2.0],
                    [x + 1.0, y, y / 2.0],
                    [x + 1.0, y + 1.0, (y + 1.0) / 2.0],
                    [x, y + 1.0, (y + 1.0) / 2.0],
                ],
                walkable: (x + y) as u32 % 2 == 0,
                class_id: 7,
            })
            .expect("square");
        }
    }
    b.link_shared_edges();
    let bounds = Bounds {
        min: [0.0, 0.0],
        max: [w as f32, h as f32],
    };
    b.build(cells, cells, bounds).expect("build")
}

/// Wraps a raw payload into a one-entry NRes with the given type and `attr1`.
pub fn wrap(payload: &[u8], type_id: u32, attr1: u32) -> Vec<u8> {
    let mut w = NresWriter::new();
    w.push(
        NewEntry::new(b"Land", type_id, payload.to_vec())
            .expect("name")
            .with_attrs(attr1, 0, 0),
    );
    w.finish().expect("nres")
}
