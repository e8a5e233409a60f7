//! Unit assembly in the frame: a mounted component's draw items carry
//! `object × mount node (parent model's pose at the frame time) × local node`. Proven on
//! hand-built models (an animated mount node, so the parent's *current* pose matters)
//! and on the generated demo's Tank (turret.msh on tank.msh node 1).

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

mod common;

use abi_stable::std_types::{ROption, RString, RVec};
use glam::{Mat4, Quat, Vec3};
use iron3d_abi::{MeshResource, NO_TEXTURE, RenderResources, RenderTarget};
use iron3d_kernel::{
    IdLayout, NoInput, OriginalObjectId, RenderSnapshot, SnapshotObject, Transform,
};
use iron3d_mission::load_mission;
use iron3d_msh::{AnimKey24, Batch20, FrameMap, Msh, MshBuilder, Node38, SampleOptions, Slot68};
use iron3d_render_frame::assets::{ModelAsset, SlotInfo};
use iron3d_render_frame::frame::animation_time;
use iron3d_render_frame::{
    CameraState, DEFAULT_LIGHTING, FrameBuilder, FrameParams, MountRef, PlacedModel, SceneAssets,
};
use std::collections::BTreeMap;
use std::sync::Arc;

const FRAMES: u16 = 8;

fn quat_z(angle: f32) -> [i16; 4] {
    let (s, c) = (angle / 2.0).sin_cos();
    [0, 0, (s * 32767.0) as i16, (c * 32767.0) as i16]
}

/// One node per `(parent, offset, geometry, spins)`; geometry is a unit cube (one slot
/// for LOD 0, one batch); spinning nodes turn about Z over [`FRAMES`] frames.
fn msh(nodes: &[(Option<u16>, [f32; 3], bool, bool)]) -> Vec<u8> {
    let mut b = MshBuilder::new();
    let mut keys = Vec::new();
    let mut words = Vec::new();
    for &(parent, offset, geometry, spins) in nodes {
        let mut node = Node38::new(0);
        node.parent = parent.unwrap_or(iron3d_msh::NONE_U16);
        if geometry {
            let base_vertex = b.positions.len() as u32;
            for k in 0..8u8 {
                let s = |bit: u8| if k & bit != 0 { 0.5 } else { -0.5 };
                b.positions.push([s(1), s(2), s(4)]);
            }
            let index_start = b.indices.len() as u32;
            b.indices.extend([0u16, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6]);
            b.batches.push(Batch20 {
                batch_flags: 0,
                material_index: 0,
                opaque4: 0,
                opaque6: 0,
                index_count: 12,
                index_start,
                opaque14: 0,
                base_vertex,
            });
            node.slot_index[0] = b.slots.len() as u16;
            b.slots.push(Slot68 {
                tri_start: 0,
                tri_count: 0,
                batch_start: (b.batches.len() - 1) as u16,
                batch_count: 1,
                aabb_min: [-0.5; 3],
                aabb_max: [0.5; 3],
                sphere_center: [0.0; 3],
                sphere_radius: 0.9,
                opaque: [0; 5],
            });
        }
        if spins {
            let start = keys.len() as u16;
            for f in 0..=FRAMES {
                let turn = f32::from(f) * std::f32::consts::TAU / f32::from(FRAMES);
                keys.push(AnimKey24 {
                    position: offset,
                    time: f32::from(f),
                    rotation: quat_z(turn),
                });
            }
            node.anim_map_start = words.len() as u16;
            node.fallback_key = start + FRAMES;
            words.extend((0..FRAMES).map(|f| start + f));
        } else {
            node.fallback_key = keys.len() as u16;
            keys.push(AnimKey24 {
                position: offset,
                time: 0.0,
                rotation: [0, 0, 0, 32767],
            });
        }
        b.nodes.push(node);
    }
    b.keys = Some(keys);
    if !words.is_empty() {
        b.frame_map = Some(FrameMap {
            frame_count: u32::from(FRAMES),
            words,
        });
    }
    b.build().unwrap()
}

fn asset(name: &str, bytes: Vec<u8>, mesh: u32) -> (ModelAsset, MeshResource) {
    let m = Msh::parse(&bytes).unwrap();
    let positions: Vec<[f32; 3]> = m.positions().map(|p| p.0).collect();
    let resource = MeshResource {
        name: RString::from(name),
        normals: vec![[0.0, 0.0, 1.0]; positions.len()].into(),
        uvs: vec![[0.0, 0.0]; positions.len()].into(),
        positions: positions.into(),
        indices: m.indices().collect::<Vec<_>>().into(),
    };
    let model = ModelAsset {
        name: name.into(),
        mesh,
        node_slots: m.nodes().map(|n| n.slot_index).collect(),
        slots: m
            .slots()
            .map(|s| SlotInfo {
                batch_start: usize::from(s.batch_start),
                batch_count: usize::from(s.batch_count),
                centre: Vec3::from(s.sphere_center),
                radius: s.sphere_radius,
            })
            .collect(),
        batches: m.batches().collect(),
        rows: Vec::new(),
        clan_rows: Vec::new(),
        lightmap: NO_TEXTURE,
        frame_count: m.frame_count(),
        bytes: Arc::from(bytes.as_slice()),
    };
    (model, resource)
}

/// Node matrices of `model` at `time_ms` (the frame builder's sampling rule).
fn pose(model: &ModelAsset, time_ms: u64) -> Vec<Mat4> {
    let m = Msh::parse(&model.bytes).unwrap();
    let t = animation_time(time_ms, model.frame_count);
    let poses = iron3d_msh::sample_all(&m, t, SampleOptions::default()).unwrap();
    iron3d_msh::world_matrices(&m, &poses).unwrap()
}

fn params(camera: CameraState) -> FrameParams {
    FrameParams {
        camera,
        target: RenderTarget {
            width: 320,
            height: 240,
            window: ROption::RNone,
            clear: [0, 0, 0, 255],
        },
        lighting: DEFAULT_LIGHTING,
    }
}

fn close(a: Mat4, b: Mat4) -> bool {
    a.abs_diff_eq(b, 1e-4)
}

#[test]
fn a_mounted_model_follows_the_parent_mount_nodes_current_pose() {
    // Parent: a hull (node 0) and a spinning, geometry-less arm (node 1) at (2, 0, 1).
    // Child: one cube at (0, 0, 0.5) in its own model space.
    let (parent, parent_mesh) = asset(
        "parent",
        msh(&[
            (None, [0.0; 3], true, false),
            (Some(0), [2.0, 0.0, 1.0], false, true),
        ]),
        0,
    );
    let (child, child_mesh) = asset("child", msh(&[(None, [0.0, 0.0, 0.5], true, false)]), 1);
    let mut prototype_models = BTreeMap::new();
    prototype_models.insert(
        b"UNIT.DAT".to_vec(),
        vec![
            PlacedModel {
                model: 0,
                component: Some(0),
                mount: None,
            },
            PlacedModel {
                model: 1,
                component: Some(1),
                mount: Some(MountRef {
                    parent_model: 0,
                    node: 1,
                }),
            },
        ],
    );
    prototype_models.insert(
        b"LOOSE".to_vec(),
        vec![PlacedModel {
            model: 1,
            component: None,
            mount: None,
        }],
    );
    let assets = SceneAssets {
        resources: abi_stable::std_types::RArc::new(RenderResources {
            id: 1,
            meshes: RVec::from(vec![parent_mesh, child_mesh]),
            textures: RVec::new(),
        }),
        models: vec![parent.clone(), child.clone()],
        prototype_models,
        terrain: None,
        missing_textures: Vec::new(),
        sky: None,
        sky_schedule: None,
    };
    let object = |index, prototype: &[u8], position| SnapshotObject {
        id: OriginalObjectId::compose(IdLayout::PROJECT_DEFAULT, 0, 1, index).unwrap(),
        kind: 0,
        transform: Transform {
            position,
            orientation: Quat::from_rotation_z(0.7),
            scale: Vec3::splat(1.5),
        },
        prototype: Arc::from(prototype),
        clan_id: None,
    };
    let time_ms = 300; // 3 of 8 frames: the arm has turned 135°
    let snapshot = RenderSnapshot {
        frame: 1,
        tick: 1,
        time_ms,
        objects: vec![
            object(0, b"unit.dat", Vec3::new(10.0, 20.0, 0.0)),
            object(1, b"loose", Vec3::new(14.0, 20.0, 0.0)),
        ],
        prepared: None,
        view: None,
    };
    let camera = CameraState::looking_at(Vec3::new(0.0, 0.0, 15.0), Vec3::new(12.0, 20.0, 0.0));
    let mut builder = FrameBuilder::new(assets);
    let frame = builder.build(&snapshot, &params(camera));
    let o = &snapshot.objects[0].transform;
    let object_m = Mat4::from_scale_rotation_translation(o.scale, o.orientation, o.position);
    let mount = pose(&parent, time_ms)[1];
    let local = pose(&child, time_ms)[0];
    assert!(
        !close(mount, pose(&parent, 0)[1]),
        "the mount node is animated: its pose at the frame time matters"
    );
    let unit_id = snapshot.objects[0].id.raw();
    let mounted: Vec<_> = frame
        .items
        .iter()
        .filter(|i| i.object == unit_id && i.mesh == 1)
        .collect();
    assert_eq!(mounted.len(), 1, "the child's one batch");
    let world = Mat4::from(mounted[0].world);
    assert!(
        close(world, object_m * mount * local),
        "world = object × mount × local\n{world}\n{}",
        object_m * mount * local
    );
    assert!(
        !close(world, object_m * local),
        "not at the object transform"
    );
    // The root model of the unit and a loose (unmounted) copy stay at object × node.
    let root = frame
        .items
        .iter()
        .find(|i| i.object == unit_id && i.mesh == 0)
        .unwrap();
    assert!(close(
        Mat4::from(root.world),
        object_m * pose(&parent, time_ms)[0]
    ));
    let l = &snapshot.objects[1].transform;
    let loose_m = Mat4::from_scale_rotation_translation(l.scale, l.orientation, l.position);
    let loose = frame
        .items
        .iter()
        .find(|i| i.object == snapshot.objects[1].id.raw())
        .unwrap();
    assert!(close(Mat4::from(loose.world), loose_m * local));
    // The node matrices published for the renderer agree with the items.
    assert!(frame.nodes.iter().any(|n| close(Mat4::from(*n), world)));
}

#[test]
fn the_demo_tank_draws_its_turret_on_the_hull_mount() {
    let (_dir, files) = common::demo();
    let data = files.data();
    let mut kernel = common::kernel();
    let loaded = load_mission(&mut kernel, &data, "DEMO1", None).unwrap();
    let assets = SceneAssets::load(&data, &loaded).unwrap();
    let placed = assets.models_of(b"UNITS\\Tank.dat").to_vec();
    assert_eq!(placed.len(), 2, "hull and turret (the lights are INTO)");
    let (hull, turret) = (placed[0], placed[1]);
    assert_eq!(assets.models[hull.model].name, "models.rlb:tank.msh");
    assert_eq!(assets.models[turret.model].name, "models.rlb:turret.msh");
    assert_eq!(hull.mount, None);
    assert_eq!(
        turret.mount,
        Some(MountRef {
            parent_model: hull.model,
            node: 1
        })
    );
    let (hull_model, turret_model) = (
        assets.models[hull.model].clone(),
        assets.models[turret.model].clone(),
    );
    kernel.frame(&mut NoInput, Some(0)).unwrap();
    let mut snapshot = (*kernel.snapshot().unwrap()).clone();
    snapshot.time_ms += 250;
    let tank = snapshot
        .objects
        .iter()
        .find(|o| o.prototype.eq_ignore_ascii_case(b"UNITS\\Tank.dat"))
        .expect("DEMO1 places a tank")
        .clone();
    let t = tank.transform;
    let camera = CameraState::looking_at(t.position + Vec3::new(-12.0, -12.0, 10.0), t.position);
    let mut builder = FrameBuilder::new(assets);
    let frame = builder.build(&snapshot, &params(camera));
    let turret_mesh = builder.assets().models[turret.model].mesh;
    let object_m = Mat4::from_scale_rotation_translation(t.scale, t.orientation, t.position);
    let mount = pose(&hull_model, snapshot.time_ms)[1];
    assert!(
        close(mount, Mat4::from_translation(Vec3::new(-0.5, 0.0, 1.0))),
        "tank.msh node 1: on top of the hull"
    );
    let local = pose(&turret_model, snapshot.time_ms);
    let items: Vec<_> = frame
        .items
        .iter()
        .filter(|i| i.object == tank.id.raw() && i.mesh == turret_mesh)
        .collect();
    assert_eq!(items.len(), 2, "turret and barrel");
    for i in items {
        let want = object_m * mount * local[i.node as usize];
        let got = Mat4::from(i.world);
        assert!(close(got, want), "node {}: {got} != {want}", i.node);
        assert!(!close(got, object_m * local[i.node as usize]));
    }
}
