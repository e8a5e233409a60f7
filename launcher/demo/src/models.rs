//! Model archives `models.rlb` and `buildings.rlb`: multi-node MSH models (parents, LOD
//! slots, batches, flat normals and atlas UVs; a rotating turret and a walking chassis
//! with two swinging legs, animated via the key pool and frame map) and a `<stem>.wea`
//! WEAR table per model.
//!
//! Every node keeps one slot per LOD (LOD 0 with every part, LOD 1 without the small
//! details) of one batch in one material, and the slot box (`Slot68` AABB and sphere)
//! of the generator-16 boxes it replaces: the simulation's collision bounds (union of
//! the LOD-0 slot boxes at the rest pose, `iron3d-mission` `bounds.rs`) and the frame
//! builder's culling and draw counts stay what they were. Inside that box a node is
//! built of many parts ([`crate::shapes`]): faces map into the quarter of the
//! material's 2×2 texture atlas that shows the right surface ([`crate::paint`]: camo
//! paint, track links, wheels and grilles in `CAMO`; plates, rust, hazard stripes and
//! corrugated sheet in `STEEL`; slabs, shutters, windows and louvres in `CONCRETE`;
//! girders, molten ore, glow and slag in the animated `LAVA`).
//!
//! * `tank.msh`: tracks with road wheels, sprockets and idlers, a hull with a sloped
//!   glacis, engine deck and grille, exhausts, lamps, tool boxes; the turret ring at the
//!   mount node [`TANK_TURRET_MOUNT`] where the unit DAT mounts `turret.msh`.
//! * `turret.msh`: a faceted turret (bustle, mantlet, cupola, bins, antenna) spinning
//!   about Z, and its gun (tube, fume extractor, muzzle brake) in `STEEL`.
//! * `chassis.msh`: a walker pod (nose, hazard bumper, sensor dome, hips, pods) with two
//!   legs (strut, knee, shin, foot) swinging in antiphase.
//! * `truck.msh`: six wheels, frame, ore hopper with its load, cab, grille, bumper, lamps;
//!   the cab's canopy uses `GLASS` (alpha-blended).
//! * `hangar.msh` (also the storage and the plant): a plinth, concrete walls with window
//!   bands and roller shutters, a corrugated steel gable roof with a ridge cap and vents.
//! * `tower.msh`: a tapered concrete shaft with a door and slit windows, a platform with
//!   posts and a pedestal under the mount node [`TOWER_GUN_MOUNT`] (where `Tower.dat`
//!   mounts the gun), and a fence of `GRATE` (alpha-tested) beside its foot.
//! * `mine.msh`: a pad with a shaft collar, an ore bunker, a hopper and a silo, and a
//!   steel derrick (headframe, sheave wheel, hoist bucket) over a crucible of molten ore
//!   in `LAVA`.

use crate::paint::{PANE, camo, concrete, lava, steel};
use crate::prototypes::nres;
use crate::shapes::{Axis, Geo, V3};
use crate::{DemoError, Out, fmt_err};
use iron3d_material::{RowSpec, Wear};
use iron3d_msh::{
    AnimKey24, Batch20, FrameMap, MshBuilder, Node38, PackedNormal, PackedUv, Slot68,
};
use iron3d_nres::Family;

/// Frames of the turret rotation.
const FRAMES: u16 = 8;

/// The node of `tank.msh` the tank's turret component is mounted at (on top of the hull,
/// behind its centre).
pub(crate) const TANK_TURRET_MOUNT: i32 = 1;
/// The node of `tower.msh` the tower's gun component is mounted at (its top).
pub(crate) const TOWER_GUN_MOUNT: i32 = 1;

/// How a node moves over the animation frames.
#[derive(Clone, Copy, PartialEq)]
enum Motion {
    /// One static key.
    Still,
    /// A full turn about Z (turrets).
    Spin,
    /// A ±0.5 rad swing about Y starting at the given phase (walking legs).
    Swing(f32),
}

/// One node of a model: parent index, slot box half extents, rest offset, material
/// row, motion, and what builds its geometry (`None`: a geometry-less mount node).
struct Node {
    parent: Option<u16>,
    half: V3,
    offset: V3,
    material: u16,
    motion: Motion,
    build: Option<fn(&mut Geo)>,
}

const fn node(parent: Option<u16>, half: V3, offset: V3, build: fn(&mut Geo)) -> Node {
    Node {
        parent,
        half,
        offset,
        material: 0,
        motion: Motion::Still,
        build: Some(build),
    }
}

/// A geometry-less node at `offset` from `parent`: a mount for a unit component.
const fn mount(parent: u16, offset: V3) -> Node {
    Node {
        parent: Some(parent),
        half: [0.0; 3],
        offset,
        material: 0,
        motion: Motion::Still,
        build: None,
    }
}

/// One model: where it goes, its nodes, WEAR rows and lightmaps, the longest side of a
/// texture cell (world units) and the ambient-occlusion strength of its lightmap.
struct Model {
    archive: &'static str,
    stem: &'static str,
    nodes: Vec<Node>,
    materials: &'static [&'static str],
    lightmaps: &'static [&'static str],
    tile: f32,
    occlusion: f32,
}

/// `[lo, hi]` on the side `s` (`+1`: as given, `-1`: mirrored through 0).
fn side(s: f32, lo: f32, hi: f32) -> (f32, f32) {
    if s > 0.0 { (lo, hi) } else { (-hi, -lo) }
}

/// Both sides.
const SIDES: [f32; 2] = [-1.0, 1.0];

/// Tank hull, node box ±3 × ±2 × ±1 (a vehicle rests on the bottom of its box).
fn tank_hull(g: &mut Geo) {
    use camo::{GRILLE, PAINT, TREAD, WHEEL};
    for s in SIDES {
        let (y0, y1) = side(s, 1.15, 1.85);
        // The track run: short on the ground, long at the top.
        g.tapered(
            [-2.45, 2.45, y0, y1],
            -1.0,
            [-2.95, 2.95, y0, y1],
            -0.1,
            TREAD,
        );
        for k in 0..5 {
            let x = -1.9 + 0.95 * k as f32;
            g.cylinder(
                Axis::Y,
                [x, s * 1.925, -0.55],
                0.36,
                0.075,
                10,
                TREAD,
                WHEEL,
            );
        }
        // Drive sprocket (front) and idler (rear).
        for x in [-2.55, 2.55] {
            g.cylinder(Axis::Y, [x, s * 1.925, -0.35], 0.3, 0.075, 10, TREAD, WHEEL);
        }
    }
    // The hull between the tracks and the upper hull over them, glacis in front.
    g.tapered(
        [-2.7, 2.3, -1.15, 1.15],
        -0.85,
        [-2.8, 2.9, -1.15, 1.15],
        -0.1,
        PAINT,
    );
    g.tapered(
        [-2.95, 3.0, -2.0, 2.0],
        -0.1,
        [-2.75, 1.5, -1.9, 1.9],
        0.65,
        PAINT,
    );
    // The turret ring under the mount (its top at z = 1).
    g.cylinder(Axis::Z, [-0.5, 0.0, 0.825], 1.05, 0.175, 16, PAINT, GRILLE);
    // The engine deck and its grille behind the turret.
    g.tapered(
        [-2.75, -1.45, -1.45, 1.45],
        0.65,
        [-2.7, -1.5, -1.4, 1.4],
        0.8,
        PAINT,
    );
    g.cuboid([-2.6, -1.3, 0.8], [-1.6, 1.3, 0.86], GRILLE);
    g.detail(|g| {
        for s in SIDES {
            g.cylinder(Axis::X, [-2.85, s * 1.3, 0.3], 0.1, 0.15, 8, TREAD, WHEEL);
            g.cylinder(Axis::X, [1.85, s * 1.5, 0.6], 0.12, 0.12, 8, PAINT, WHEEL);
            let (y0, y1) = side(s, 1.5, 1.85);
            g.cuboid([-2.4, y0, 0.65], [-1.6, y1, 0.9], PAINT);
            let (y0, y1) = side(s, 0.8, 1.0);
            g.cuboid([2.6, y0, -0.35], [2.85, y1, -0.2], TREAD);
        }
        g.cylinder(Axis::Z, [1.05, 0.75, 0.685], 0.28, 0.035, 12, PAINT, WHEEL);
    });
}

/// Turret, node box ±1.5 × ±1.5 × ±0.6 centred 0.6 above the mount.
fn turret(g: &mut Geo) {
    use camo::{PAINT, TREAD, WHEEL};
    g.tapered(
        [-1.45, 1.3, -1.3, 1.3],
        -0.6,
        [-1.25, 0.85, -1.0, 1.0],
        0.25,
        PAINT,
    );
    g.cuboid([-1.5, -1.1, -0.45], [-1.0, 1.1, 0.2], PAINT);
    g.cuboid([0.95, -0.5, -0.35], [1.5, 0.5, 0.42], PAINT);
    g.cylinder(Axis::Z, [-0.45, 0.45, 0.375], 0.38, 0.125, 12, PAINT, WHEEL);
    g.detail(|g| {
        for s in SIDES {
            let (y0, y1) = side(s, 1.15, 1.5);
            g.cuboid([-1.0, y0, -0.45], [0.4, y1, -0.05], PAINT);
            g.cylinder(Axis::X, [0.75, s * 1.05, 0.12], 0.07, 0.15, 6, TREAD, WHEEL);
        }
        g.cuboid([-0.2, -0.75, 0.25], [0.3, -0.3, 0.32], PAINT);
        g.beam([-1.15, -0.8, 0.2], [-1.15, -0.8, 0.6], 0.04, TREAD);
    });
}

/// The gun, node box ±2 × ±0.2 × ±0.2 from the turret's centre forwards.
fn barrel(g: &mut Geo) {
    use steel::{PLATE, RIBS, RUST};
    g.cylinder(Axis::X, [-0.1, 0.0, 0.0], 0.11, 1.9, 10, PLATE, RUST);
    g.cylinder(Axis::X, [0.35, 0.0, 0.0], 0.16, 0.3, 10, PLATE, PLATE);
    g.cylinder(Axis::X, [1.8, 0.0, 0.0], 0.2, 0.2, 10, RIBS, RUST);
}

/// Walker pod, node box ±3 × ±2 × ±1.
fn walker_hull(g: &mut Geo) {
    use steel::{HAZARD, PLATE, RIBS, RUST};
    g.tapered(
        [-2.2, 2.0, -1.5, 1.5],
        -1.0,
        [-2.6, 1.6, -1.7, 1.7],
        0.55,
        PLATE,
    );
    g.tapered(
        [-2.6, 1.6, -1.7, 1.7],
        0.55,
        [-2.2, 1.1, -1.3, 1.3],
        0.85,
        PLATE,
    );
    g.tapered(
        [1.6, 2.9, -1.0, 1.0],
        -0.6,
        [1.6, 2.1, -0.8, 0.8],
        0.45,
        PLATE,
    );
    g.cuboid([2.6, -1.05, -0.8], [3.0, 1.05, -0.55], HAZARD);
    g.cylinder(Axis::Z, [-0.8, 0.0, 0.925], 0.6, 0.075, 14, RIBS, RIBS);
    for s in SIDES {
        g.cylinder(Axis::Y, [0.0, s * 1.5, -0.55], 0.45, 0.5, 12, RUST, RIBS);
    }
    g.detail(|g| {
        for s in SIDES {
            let (y0, y1) = side(s, 1.6, 2.0);
            g.cuboid([-1.6, y0, 0.05], [-0.6, y1, 0.5], PLATE);
            g.cylinder(Axis::X, [-2.75, s * 0.6, 0.3], 0.12, 0.25, 8, RUST, RIBS);
        }
    });
}

/// Walker leg, node box ±0.3 × ±0.3 × ±1.2 (it swings about its centre).
fn walker_leg(g: &mut Geo) {
    use steel::{PLATE, RIBS, RUST};
    g.cuboid([-0.18, -0.2, 0.25], [0.18, 0.2, 1.2], RUST);
    g.cylinder(Axis::Y, [0.0, 0.0, 0.2], 0.28, 0.3, 10, RIBS, RIBS);
    g.tapered(
        [-0.22, 0.22, -0.2, 0.2],
        -0.95,
        [-0.16, 0.16, -0.16, 0.16],
        0.2,
        PLATE,
    );
    g.tapered(
        [-0.3, 0.3, -0.3, 0.3],
        -1.2,
        [-0.2, 0.2, -0.2, 0.2],
        -0.95,
        RIBS,
    );
    g.detail(|g| g.beam([0.2, 0.0, 0.9], [0.2, 0.0, -0.6], 0.08, PLATE));
}

/// Truck, node box ±3.5 × ±1.5 × ±1.
fn truck_hull(g: &mut Geo) {
    use camo::{GRILLE, PAINT, TREAD, WHEEL};
    for x in [-2.5, -1.35, 2.35] {
        for s in SIDES {
            g.cylinder(Axis::Y, [x, s * 1.27, -0.5], 0.5, 0.23, 14, TREAD, WHEEL);
        }
    }
    g.cuboid([-3.4, -0.75, -0.65], [3.3, 0.75, -0.35], TREAD);
    // The ore hopper (wider at the top) and its load.
    g.tapered(
        [-3.3, 0.55, -1.3, 1.3],
        -0.35,
        [-3.5, 0.65, -1.5, 1.5],
        0.85,
        PAINT,
    );
    g.tapered(
        [-3.3, 0.45, -1.3, 1.3],
        0.85,
        [-2.8, 0.0, -0.9, 0.9],
        1.0,
        TREAD,
    );
    // The cab (its canopy is node 1), grille and bumper.
    g.tapered(
        [0.8, 3.35, -1.35, 1.35],
        -0.35,
        [0.8, 3.2, -1.35, 1.35],
        1.0,
        PAINT,
    );
    g.cuboid([3.28, -0.9, -0.2], [3.42, 0.9, 0.55], GRILLE);
    g.cuboid([3.3, -1.4, -0.55], [3.5, 1.4, -0.3], TREAD);
    g.detail(|g| {
        for s in SIDES {
            g.cylinder(Axis::X, [3.38, s * 1.1, 0.35], 0.14, 0.08, 10, PAINT, WHEEL);
            let (y0, y1) = side(s, 1.0, 1.5);
            for x in [-2.5, -1.35] {
                g.cuboid([x - 0.6, y0, 0.02], [x + 0.6, y1, 0.1], PAINT);
            }
        }
        g.cylinder(Axis::Z, [0.72, 1.2, 0.55], 0.07, 0.45, 8, TREAD, TREAD);
    });
}

/// The truck's cab canopy, node box ±1 × ±1.4 × ±0.8 (its foot inside the cab).
fn truck_canopy(g: &mut Geo) {
    g.tapered(
        [-1.0, 1.0, -1.34, 1.34],
        -0.8,
        [-1.0, 0.4, -1.2, 1.2],
        0.8,
        PANE,
    );
}

/// Hangar walls, node box ±10 × ±8 × ±4 (a building stands on its origin).
fn hangar_base(g: &mut Geo) {
    use concrete::{SHUTTER, SLAB, VENT, WINDOWS};
    g.cuboid([-10.0, -8.0, -4.0], [10.0, 8.0, 0.4], SLAB);
    g.cuboid([-9.4, -7.6, 0.4], [9.4, 7.6, 3.2], SLAB);
    for s in SIDES {
        let (y0, y1) = side(s, 7.6, 7.8);
        g.cuboid([-5.0, y0, 0.4], [5.0, y1, 3.0], SHUTTER);
        g.detail(|g| {
            let (x0, x1) = side(s, 9.4, 9.5);
            g.cuboid([x0, -6.5, 1.9], [x1, 6.5, 2.8], WINDOWS);
            g.cuboid([-5.3, y0, 3.0], [5.3, y1 + s * 0.05, 3.2], SLAB);
            for t in SIDES {
                let (x0, x1) = side(s, 9.2, 9.7);
                let (y0, y1) = side(t, 7.3, 7.9);
                g.cuboid([x0, y0, 0.4], [x1, y1, 3.05], SLAB);
            }
        });
    }
    g.detail(|g| g.cuboid([-9.8, -1.0, 0.8], [-9.4, 1.0, 1.6], VENT));
}

/// Hangar roof, node box ±10 × ±8 × ±2: a corrugated gable roof (ridge along Y).
fn hangar_roof(g: &mut Geo) {
    use steel::{PLATE, RIBS, RUST};
    g.tapered_faces(
        [-10.0, 10.0, -8.0, 8.0],
        -2.0,
        [0.0, 0.0, -8.0, 8.0],
        2.0,
        [RIBS, RIBS, PLATE, PLATE, PLATE, PLATE],
    );
    g.cuboid([-0.35, -8.0, 1.72], [0.35, 8.0, 1.98], RUST);
    g.detail(|g| {
        for s in SIDES {
            let (x0, x1) = side(s, 9.55, 10.0);
            g.cuboid([x0, -8.0, -2.0], [x1, 8.0, -1.75], RUST);
        }
        for y in [-5.0, 0.0, 5.0] {
            g.cylinder(Axis::Z, [0.0, y, 1.9], 0.45, 0.1, 12, RIBS, PLATE);
        }
    });
}

/// Tower, node box ±2 × ±2 × ±6.
fn tower_body(g: &mut Geo) {
    use concrete::{SHUTTER, SLAB, VENT, WINDOWS};
    g.cuboid([-2.0, -2.0, -6.0], [2.0, 2.0, 0.3], SLAB);
    g.tapered(
        [-1.7, 1.7, -1.7, 1.7],
        0.3,
        [-1.35, 1.35, -1.35, 1.35],
        4.6,
        SLAB,
    );
    g.cuboid([-2.0, -2.0, 4.6], [2.0, 2.0, 5.2], SLAB);
    for sx in SIDES {
        for sy in SIDES {
            let (x0, x1) = side(sx, 1.45, 2.0);
            let (y0, y1) = side(sy, 1.45, 2.0);
            g.cuboid([x0, y0, 5.2], [x1, y1, 6.0], SLAB);
        }
    }
    // The pedestal the gun sits on (the mount node is at its top, z = 6).
    g.cylinder(Axis::Z, [0.0, 0.0, 5.6], 0.9, 0.4, 14, SLAB, VENT);
    g.cuboid([1.55, -0.45, 0.3], [1.72, 0.45, 1.7], SHUTTER);
    g.detail(|g| {
        for s in SIDES {
            let (a0, a1) = side(s, 1.42, 1.54);
            g.cuboid([a0, -0.25, 2.6], [a1, 0.25, 3.4], WINDOWS);
            g.cuboid([-0.25, a0, 2.6], [0.25, a1, 3.4], WINDOWS);
            let (p0, p1) = side(s, 1.85, 2.0);
            g.cuboid([p0, -1.45, 5.2], [p1, 1.45, 5.5], SLAB);
            g.cuboid([-1.45, p0, 5.2], [1.45, p1, 5.5], SLAB);
        }
        g.cuboid([-1.62, -0.5, 1.0], [-1.5, 0.5, 1.6], VENT);
    });
}

/// The tower's fence, node box ±0.1 × ±3 × ±1.5: a grate panel.
fn tower_gate(g: &mut Geo) {
    g.cuboid([-0.1, -3.0, -1.5], [0.1, 3.0, 1.5], PANE);
}

/// Mine pad, node box ±6 × ±6 × ±2.
fn mine_base(g: &mut Geo) {
    use concrete::{SHUTTER, SLAB, VENT, WINDOWS};
    g.cuboid([-6.0, -6.0, -2.0], [6.0, 6.0, 0.3], SLAB);
    // The shaft collar (the Mine unit's tower stands on it).
    g.tapered(
        [-1.8, 1.8, -1.8, 1.8],
        0.3,
        [-1.5, 1.5, -1.5, 1.5],
        0.9,
        SLAB,
    );
    // The derrick's plinth (node 1 stands on it), the ore bunker and its door.
    g.cuboid([1.5, -5.5, 0.3], [5.5, -1.5, 1.0], SLAB);
    g.cuboid([-5.6, 1.4, 0.3], [-1.4, 5.6, 1.85], SLAB);
    g.cuboid([-1.4, 2.5, 0.3], [-1.3, 4.5, 1.6], SHUTTER);
    // An ore hopper (wide at the top, grated) and a silo.
    g.tapered_faces(
        [-4.3, -2.7, -4.3, -2.7],
        0.3,
        [-5.5, -1.5, -5.5, -1.5],
        2.0,
        [SLAB, SLAB, SLAB, SLAB, SLAB, VENT],
    );
    g.cylinder(Axis::Z, [3.5, 3.5, 1.15], 1.8, 0.85, 16, SLAB, VENT);
    g.detail(|g| {
        g.cuboid([-1.1, -1.1, 0.9], [1.1, 1.1, 0.96], VENT);
        g.cuboid([-5.0, 1.3, 1.0], [-2.0, 1.4, 1.55], WINDOWS);
        g.cuboid([-4.0, 3.0, 1.85], [-3.0, 4.0, 2.0], VENT);
    });
}

/// The mine's derrick, node box ±2 × ±2 × ±3: a headframe of girders with a sheave
/// wheel and a hoist bucket over a crucible of molten ore.
fn derrick(g: &mut Geo) {
    use lava::{GIRDER, GLOW, MOLTEN, SLAG};
    g.cylinder(Axis::Z, [0.0, 0.0, -2.6], 1.0, 0.4, 16, SLAG, MOLTEN);
    let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
    // A leg's centre line at height z: 1.8 out at the foot, 0.75 at the top.
    let at = |(x, y): (f32, f32), z: f32| {
        let k = 1.8 - 1.05 * (z + 2.95) / 5.15;
        [x * k, y * k, z]
    };
    for &c in &corners {
        g.beam(at(c, -2.95), at(c, 2.2), 0.2, GIRDER);
    }
    for z in [-1.2, 0.8] {
        for i in 0..4 {
            g.beam(at(corners[i], z), at(corners[(i + 1) % 4], z), 0.14, GIRDER);
        }
    }
    g.cuboid([-0.95, -0.95, 2.2], [0.95, 0.95, 2.4], GIRDER);
    g.cylinder(Axis::Y, [0.0, 0.0, 2.45], 0.55, 0.1, 16, GIRDER, SLAG);
    g.detail(|g| {
        for i in 0..4 {
            let (a, b) = (corners[i], corners[(i + 1) % 4]);
            g.beam(at(a, -2.9), at(b, -1.2), 0.1, GIRDER);
            g.beam(at(a, -1.2), at(b, 0.8), 0.1, GIRDER);
            g.beam(at(b, -1.2), at(a, 0.8), 0.1, GIRDER);
        }
        g.beam([0.55, 0.0, 2.45], [0.55, 0.0, -1.0], 0.04, GIRDER);
        g.tapered_faces(
            [0.3, 0.8, -0.25, 0.25],
            -1.5,
            [0.3, 0.8, -0.25, 0.25],
            -1.0,
            [SLAG, SLAG, SLAG, SLAG, SLAG, MOLTEN],
        );
        g.cylinder(Axis::Z, [0.0, 0.0, -2.15], 1.08, 0.05, 16, GLOW, GLOW);
    });
}

fn specs() -> Vec<Model> {
    // The turret model's root sits on its mount (its bottom face at the mount node).
    let turret_node = Node {
        motion: Motion::Spin,
        material: 1,
        ..node(None, [1.5, 1.5, 0.6], [0.0, 0.0, 0.6], turret)
    };
    // A walking chassis: two legs swinging in antiphase under the hull.
    let leg = |phase, side| Node {
        motion: Motion::Swing(phase),
        ..node(Some(0), [0.3, 0.3, 1.2], [0.0, side, -1.6], walker_leg)
    };
    vec![
        Model {
            archive: "models.rlb",
            stem: "chassis",
            nodes: vec![
                node(None, [3.0, 2.0, 1.0], [0.0; 3], walker_hull),
                leg(0.0, 1.2),
                leg(std::f32::consts::PI, -1.2),
            ],
            materials: &["STEEL"],
            lightmaps: &["LM_CHASSIS"],
            tile: 2.0,
            occlusion: 0.6,
        },
        Model {
            archive: "models.rlb",
            stem: "tank",
            // The turret is the unit's `turret_proto` component, mounted on node 1.
            nodes: vec![
                node(None, [3.0, 2.0, 1.0], [0.0; 3], tank_hull),
                mount(0, [-0.5, 0.0, 1.0]),
            ],
            materials: &["CAMO", "STEEL"],
            lightmaps: &["LM_TANK"],
            tile: 2.0,
            occlusion: 0.6,
        },
        Model {
            archive: "models.rlb",
            stem: "turret",
            nodes: vec![
                turret_node,
                node(Some(0), [2.0, 0.2, 0.2], [2.0, 0.0, 0.2], barrel),
            ],
            materials: &["STEEL", "CAMO"],
            lightmaps: &[],
            tile: 1.5,
            occlusion: 0.6,
        },
        Model {
            archive: "models.rlb",
            stem: "truck",
            nodes: vec![
                node(None, [3.5, 1.5, 1.0], [0.0; 3], truck_hull),
                Node {
                    material: 1,
                    ..node(Some(0), [1.0, 1.4, 0.8], [2.0, 0.0, 1.4], truck_canopy)
                },
            ],
            materials: &["CAMO", "GLASS"],
            lightmaps: &["LM_TRUCK"],
            tile: 2.0,
            occlusion: 0.6,
        },
        Model {
            archive: "buildings.rlb",
            stem: "hangar",
            nodes: vec![
                node(None, [10.0, 8.0, 4.0], [0.0; 3], hangar_base),
                Node {
                    material: 1,
                    ..node(Some(0), [10.0, 8.0, 2.0], [0.0, 0.0, 5.0], hangar_roof)
                },
            ],
            materials: &["CONCRETE", "STEEL"],
            lightmaps: &["LM_HANGAR"],
            tile: 4.0,
            occlusion: 0.9,
        },
        Model {
            archive: "buildings.rlb",
            stem: "tower",
            nodes: vec![
                node(None, [2.0, 2.0, 6.0], [0.0; 3], tower_body),
                // Tower.dat mounts its gun (`turret_proto`) on top.
                mount(0, [0.0, 0.0, 6.0]),
                // A see-through grate fence beside the tower's foot (alpha-tested), sunk
                // 0.75 into the ground (generator 16 buried it whole). Its box stays
                // inside the tower's bounds on Z, so raising it leaves the bounds as
                // they were.
                Node {
                    material: 2,
                    ..node(Some(0), [0.1, 3.0, 1.5], [3.0, 0.0, 0.75], tower_gate)
                },
            ],
            materials: &["CONCRETE", "STEEL", "GRATE"],
            lightmaps: &["LM_TOWER"],
            tile: 2.0,
            occlusion: 0.9,
        },
        Model {
            archive: "buildings.rlb",
            stem: "mine",
            nodes: vec![
                node(None, [6.0, 6.0, 2.0], [0.0; 3], mine_base),
                // The derrick stands on a corner of the pad (generator 17: it was a
                // prism over the centre, where the Mine unit's tower stands); its box
                // stays inside the pad's on X and Y, so the bounds are as they were.
                Node {
                    material: 1,
                    ..node(Some(0), [2.0, 2.0, 3.0], [3.5, -3.5, 4.0], derrick)
                },
            ],
            materials: &["CONCRETE", "LAVA"],
            lightmaps: &["LM_MINE"],
            tile: 3.0,
            occlusion: 0.9,
        },
    ]
}

fn quat_z(angle: f32) -> [i16; 4] {
    let (s, c) = (angle / 2.0).sin_cos();
    [0, 0, (s * 32767.0) as i16, (c * 32767.0) as i16]
}

fn quat_y(angle: f32) -> [i16; 4] {
    let (s, c) = (angle / 2.0).sin_cos();
    [0, (s * 32767.0) as i16, 0, (c * 32767.0) as i16]
}

/// A node's single key: at `offset`, unrotated, time 0.
fn rest_key(offset: V3) -> AnimKey24 {
    AnimKey24 {
        position: offset,
        time: 0.0,
        rotation: [0, 0, 0, 32767],
    }
}

fn packed_normal(n: V3) -> PackedNormal {
    let q = |v: f32| (v * 127.0).round().clamp(-127.0, 127.0) as i8;
    PackedNormal([q(n[0]), q(n[1]), q(n[2]), 0])
}

fn packed_uv(uv: [f32; 2]) -> PackedUv {
    let q = |v: f32| (v * 1024.0).round() as i16;
    PackedUv([q(uv[0]), q(uv[1])])
}

/// Builds one model: per geometry node two LOD slots of one batch each (LOD 0: every
/// part, LOD 1: no details) over its own vertices; the slot box is the node's.
fn model(m: &Model) -> Result<Vec<u8>, DemoError> {
    let stem = m.stem;
    let too_big = |what: &str| DemoError::Format {
        what: stem.to_owned(),
        cause: format!("{what} exceeds a 16-bit field"),
    };
    let mut b = MshBuilder::new();
    let mut normals = Vec::new();
    let mut uvs = Vec::new();
    let mut keys = Vec::new();
    let mut words = Vec::new();
    let mut names = Vec::new();
    for (n, p) in m.nodes.iter().enumerate() {
        let mut node = Node38::new(0);
        node.parent = p.parent.unwrap_or(iron3d_msh::NONE_U16);
        if let Some(build) = p.build {
            let mut g = Geo::new(m.tile);
            build(&mut g);
            if g.positions.len() > usize::from(u16::MAX) {
                return Err(too_big("vertex count"));
            }
            let base_vertex = b.positions.len() as u32;
            b.positions.extend(&g.positions);
            normals.extend(g.normals.iter().map(|&v| packed_normal(v)));
            uvs.extend(g.uvs.iter().map(|&uv| packed_uv(uv)));
            let radius = (p.half[0].powi(2) + p.half[1].powi(2) + p.half[2].powi(2)).sqrt();
            let first_slot = b.slots.len() as u16;
            let lod1 = if g.lod1.is_empty() { &g.lod0 } else { &g.lod1 };
            for lod in [&g.lod0, lod1] {
                let index_start = b.indices.len() as u32;
                b.indices.extend(lod.iter());
                let batch = b.batches.len() as u16;
                b.batches.push(Batch20 {
                    batch_flags: 0,
                    material_index: p.material,
                    opaque4: 0,
                    opaque6: 0,
                    index_count: u16::try_from(lod.len()).map_err(|_| too_big("index count"))?,
                    index_start,
                    opaque14: 0,
                    base_vertex,
                });
                b.slots.push(Slot68 {
                    tri_start: 0,
                    tri_count: 0,
                    batch_start: batch,
                    batch_count: 1,
                    aabb_min: [-p.half[0], -p.half[1], -p.half[2]],
                    aabb_max: p.half,
                    sphere_center: [0.0; 3],
                    sphere_radius: radius,
                    opaque: [0; 5],
                });
            }
            node.slot_index[0] = first_slot;
            node.slot_index[5] = first_slot + 1;
        }
        if p.motion != Motion::Still {
            // Keys: FRAMES keys at times 0..FRAMES, then the closing key.
            let start = keys.len() as u16;
            for f in 0..=FRAMES {
                let turn = f32::from(f) * std::f32::consts::TAU / f32::from(FRAMES);
                let rotation = match p.motion {
                    Motion::Swing(phase) => quat_y(0.5 * (turn + phase).sin()),
                    _ => quat_z(turn),
                };
                keys.push(AnimKey24 {
                    position: p.offset,
                    time: f32::from(f),
                    rotation,
                });
            }
            node.anim_map_start = words.len() as u16;
            node.fallback_key = start + FRAMES;
            words.extend((0..FRAMES).map(|f| start + f));
        } else {
            node.fallback_key = keys.len() as u16;
            keys.push(rest_key(p.offset));
        }
        b.nodes.push(node);
        names.push(Some(format!("{stem}_{n}").into_bytes()));
    }
    b.normals = Some(normals);
    b.uvs = Some(uvs);
    b.names = Some(names);
    b.keys = Some(keys);
    if !words.is_empty() {
        b.frame_map = Some(FrameMap {
            frame_count: u32::from(FRAMES),
            words,
        });
    }
    b.build().map_err(fmt_err(stem))
}

fn wear(stem: &str, materials: &[&str], lightmaps: &[&str]) -> Result<Vec<u8>, DemoError> {
    let rows: Vec<RowSpec<'_>> = materials
        .iter()
        .map(|m| RowSpec {
            legacy_id: b"1",
            name: m.as_bytes(),
        })
        .collect();
    let lms: Vec<RowSpec<'_>> = lightmaps
        .iter()
        .map(|m| RowSpec {
            legacy_id: b"0",
            name: m.as_bytes(),
        })
        .collect();
    Ok(
        Wear::author(&rows, (!lms.is_empty()).then_some(lms.as_slice()))
            .map_err(fmt_err(stem))?
            .to_bytes(),
    )
}

/// Every model lightmap: `(name, ambient-occlusion strength)`.
pub(crate) fn lightmaps() -> Vec<(&'static str, f32)> {
    specs()
        .iter()
        .flat_map(|m| m.lightmaps.iter().map(|&n| (n, m.occlusion)))
        .collect()
}

/// Writes `models.rlb` and `buildings.rlb`.
pub(crate) fn write(o: &mut Out) -> Result<(), DemoError> {
    for archive in ["models.rlb", "buildings.rlb"] {
        let mut entries = Vec::new();
        for m in specs() {
            if m.archive != archive {
                continue;
            }
            entries.push((format!("{}.msh", m.stem), model(&m)?));
            entries.push((
                format!("{}.wea", m.stem),
                wear(m.stem, m.materials, m.lightmaps)?,
            ));
        }
        entries.extend(crate::control::entries(archive)?);
        let refs: Vec<(&str, u32, Vec<u8>)> = entries
            .iter()
            // `MESH` for the models, `WEAR` for the tables (FORMATS §1.7), the inferred
            // auxiliary tags for the Control files (PD-TAG-AUX).
            .map(|(n, d)| {
                (
                    n.as_str(),
                    Family::infer_tag(n.as_bytes(), d).value(),
                    d.clone(),
                )
            })
            .collect();
        o.put(archive, &nres(archive, &refs)?)?;
    }
    Ok(())
}
