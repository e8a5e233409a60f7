//! Model archives `models.rlb` and `buildings.rlb`: multi-node MSH models (parents, LOD
//! slots, batches over boxes and prisms; a rotating turret and a walking chassis with two
//! swinging legs, animated via the key pool and frame map) and a `<stem>.wea` WEAR table
//! per model. The truck's cab uses `GLASS` (alpha-blended) and the tower has a gate of
//! `GRATE` (alpha-tested). `tank.msh` and `tower.msh` have a geometry-less mount node
//! ([`TANK_TURRET_MOUNT`], [`TOWER_GUN_MOUNT`]) where the unit DATs mount `turret.msh`
//! (an EXTO component, PD-UNIT-ROLE).

use crate::prototypes::nres;
use crate::{DemoError, Out, fmt_err};
use iron3d_material::{RowSpec, Wear};
use iron3d_msh::{AnimKey24, Batch20, FrameMap, MshBuilder, Node38, Slot68};
use iron3d_nres::Family;

/// Frames of the turret rotation.
const FRAMES: u16 = 8;

/// The node of `tank.msh` the tank's turret component is mounted at (on top of the hull,
/// behind its centre).
pub(crate) const TANK_TURRET_MOUNT: i32 = 1;
/// The node of `tower.msh` the tower's gun component is mounted at (its top).
pub(crate) const TOWER_GUN_MOUNT: i32 = 1;

/// How a part moves over the animation frames.
#[derive(Clone, Copy, PartialEq)]
enum Motion {
    /// One static key.
    Still,
    /// A full turn about Z (turrets).
    Spin,
    /// A ±0.5 rad swing about Y starting at the given phase (walking legs).
    Swing(f32),
}

/// One part of a model: parent index, half extents, offset, prism or box, material slot,
/// motion, and whether it has geometry (a mount node has none).
struct Part {
    parent: Option<u16>,
    half: [f32; 3],
    offset: [f32; 3],
    prism: bool,
    material: u16,
    motion: Motion,
    geometry: bool,
}

const fn part(parent: Option<u16>, half: [f32; 3], offset: [f32; 3], prism: bool) -> Part {
    Part {
        parent,
        half,
        offset,
        prism,
        material: 0,
        motion: Motion::Still,
        geometry: true,
    }
}

/// A geometry-less node at `offset` from `parent`: a mount for a unit component.
const fn mount(parent: u16, offset: [f32; 3]) -> Part {
    Part {
        geometry: false,
        ..part(Some(parent), [0.0; 3], offset, false)
    }
}

/// `(archive, model stem, parts, materials, lightmaps)`.
type ModelSpec = (
    &'static str,
    &'static str,
    Vec<Part>,
    &'static [&'static str],
    &'static [&'static str],
);

fn specs() -> Vec<ModelSpec> {
    // The turret model's root sits on its mount (its bottom face at the mount node).
    let turret = |parent| Part {
        motion: Motion::Spin,
        material: 1,
        ..part(parent, [1.5, 1.5, 0.6], [0.0, 0.0, 0.6], false)
    };
    // A walking chassis: two legs swinging in antiphase under the hull.
    let leg = |phase, side| Part {
        motion: Motion::Swing(phase),
        ..part(Some(0), [0.3, 0.3, 1.2], [0.0, side, -1.6], false)
    };
    let barrel = |parent| Part {
        material: 0,
        ..part(parent, [2.0, 0.2, 0.2], [2.0, 0.0, 0.2], true)
    };
    vec![
        (
            "models.rlb",
            "chassis",
            vec![
                part(None, [3.0, 2.0, 1.0], [0.0; 3], false),
                leg(0.0, 1.2),
                leg(std::f32::consts::PI, -1.2),
            ],
            &["STEEL"],
            &["LM_CHASSIS"],
        ),
        (
            "models.rlb",
            "tank",
            // The turret is the unit's `turret_proto` component, mounted on node 1.
            vec![
                part(None, [3.0, 2.0, 1.0], [0.0; 3], false),
                mount(0, [-0.5, 0.0, 1.0]),
            ],
            &["CAMO", "STEEL"],
            &["LM_TANK"],
        ),
        (
            "models.rlb",
            "turret",
            vec![turret(None), barrel(Some(0))],
            &["STEEL", "CAMO"],
            &[],
        ),
        (
            "models.rlb",
            "truck",
            vec![
                part(None, [3.5, 1.5, 1.0], [0.0; 3], false),
                Part {
                    material: 1,
                    ..part(Some(0), [1.0, 1.4, 0.8], [2.0, 0.0, 1.4], true)
                },
            ],
            &["CAMO", "GLASS"],
            &["LM_TRUCK"],
        ),
        (
            "buildings.rlb",
            "hangar",
            vec![
                part(None, [10.0, 8.0, 4.0], [0.0; 3], false),
                Part {
                    material: 1,
                    ..part(Some(0), [10.0, 8.0, 2.0], [0.0, 0.0, 5.0], true)
                },
            ],
            &["CONCRETE", "STEEL"],
            &["LM_HANGAR"],
        ),
        (
            "buildings.rlb",
            "tower",
            vec![
                part(None, [2.0, 2.0, 6.0], [0.0; 3], false),
                // Tower.dat mounts its gun (`turret_proto`) on top.
                mount(0, [0.0, 0.0, 6.0]),
                // A see-through grate gate beside the tower's foot (alpha-tested).
                Part {
                    material: 2,
                    ..part(Some(0), [0.1, 3.0, 1.5], [3.0, 0.0, -4.5], false)
                },
            ],
            &["CONCRETE", "STEEL", "GRATE"],
            &["LM_TOWER"],
        ),
        (
            "buildings.rlb",
            "mine",
            vec![
                part(None, [6.0, 6.0, 2.0], [0.0; 3], false),
                Part {
                    material: 1,
                    ..part(Some(0), [2.0, 2.0, 3.0], [0.0, 0.0, 4.0], true)
                },
            ],
            &["CONCRETE", "LAVA"],
            &["LM_MINE"],
        ),
    ]
}

/// Vertices and triangle indices of a box or a triangular prism.
fn shape(half: [f32; 3], prism: bool) -> (Vec<[f32; 3]>, Vec<u16>) {
    let [x, y, z] = half;
    if prism {
        let v = vec![
            [-x, -y, -z],
            [x, -y, -z],
            [0.0, -y, z],
            [-x, y, -z],
            [x, y, -z],
            [0.0, y, z],
        ];
        let i = vec![
            0, 1, 2, 3, 5, 4, 0, 3, 4, 0, 4, 1, 1, 4, 5, 1, 5, 2, 2, 5, 3, 2, 3, 0,
        ];
        return (v, i);
    }
    let mut v = Vec::new();
    for k in 0..8u8 {
        let s = |bit: u8, h: f32| if k & bit != 0 { h } else { -h };
        v.push([s(1, x), s(2, y), s(4, z)]);
    }
    let i = vec![
        0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4, 2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6,
        1, 3, 5, 3, 7, 5,
    ];
    (v, i)
}

fn quat_z(angle: f32) -> [i16; 4] {
    let (s, c) = (angle / 2.0).sin_cos();
    [0, 0, (s * 32767.0) as i16, (c * 32767.0) as i16]
}

fn quat_y(angle: f32) -> [i16; 4] {
    let (s, c) = (angle / 2.0).sin_cos();
    [0, (s * 32767.0) as i16, 0, (c * 32767.0) as i16]
}

/// Builds one model: per part two LOD slots (LOD 1 reuses the batch), one batch each.
/// A node's single key: at `offset`, unrotated, time 0.
fn rest_key(offset: [f32; 3]) -> AnimKey24 {
    AnimKey24 {
        position: offset,
        time: 0.0,
        rotation: [0, 0, 0, 32767],
    }
}

fn model(stem: &str, parts: &[Part]) -> Result<Vec<u8>, DemoError> {
    let mut b = MshBuilder::new();
    let mut keys = Vec::new();
    let mut words = Vec::new();
    let mut names = Vec::new();
    for (n, p) in parts.iter().enumerate() {
        let mut node = Node38::new(0);
        node.parent = p.parent.unwrap_or(iron3d_msh::NONE_U16);
        if !p.geometry {
            node.fallback_key = keys.len() as u16;
            keys.push(rest_key(p.offset));
            b.nodes.push(node);
            names.push(Some(format!("{stem}_{n}").into_bytes()));
            continue;
        }
        let (verts, idx) = shape(p.half, p.prism);
        let base_vertex = b.positions.len() as u32;
        let index_start = b.indices.len() as u32;
        b.positions.extend(&verts);
        // UV0: a skewed planar projection (u from x and y, v from z and y) so that every
        // face of a box or prism gets a two-dimensional texture coordinate; 4 world units
        // per texture repeat.
        let uv = |c: f32| (c / 4.0 * 1024.0).round() as i16;
        b.uvs.get_or_insert_with(Vec::new).extend(
            verts
                .iter()
                .map(|v| iron3d_msh::PackedUv([uv(v[0] + 0.5 * v[1]), uv(v[2] + 0.5 * v[1])])),
        );
        b.indices.extend(&idx);
        let batch = b.batches.len() as u32;
        b.batches.push(Batch20 {
            batch_flags: 0,
            material_index: p.material,
            opaque4: 0,
            opaque6: 0,
            index_count: idx.len() as u16,
            index_start,
            opaque14: 0,
            base_vertex,
        });
        let radius = (p.half[0].powi(2) + p.half[1].powi(2) + p.half[2].powi(2)).sqrt();
        let slot = Slot68 {
            tri_start: 0,
            tri_count: 0,
            batch_start: batch as u16,
            batch_count: 1,
            aabb_min: [-p.half[0], -p.half[1], -p.half[2]],
            aabb_max: p.half,
            sphere_center: [0.0; 3],
            sphere_radius: radius,
            opaque: [0; 5],
        };
        let first_slot = b.slots.len() as u16;
        b.slots.push(slot);
        b.slots.push(slot);
        node.slot_index[0] = first_slot;
        node.slot_index[5] = first_slot + 1;
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

/// Every lightmap name the models use.
pub(crate) fn lightmaps() -> Vec<&'static str> {
    specs().iter().flat_map(|s| s.4.iter().copied()).collect()
}

/// Writes `models.rlb` and `buildings.rlb`.
pub(crate) fn write(o: &mut Out) -> Result<(), DemoError> {
    for archive in ["models.rlb", "buildings.rlb"] {
        let mut entries = Vec::new();
        for (a, stem, parts, mats, lms) in specs() {
            if a != archive {
                continue;
            }
            entries.push((format!("{stem}.msh"), model(stem, &parts)?));
            entries.push((format!("{stem}.wea"), wear(stem, mats, lms)?));
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
