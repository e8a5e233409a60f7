//! The straightforward frame builder the optimised [`crate::FrameBuilder`] replaced, kept
//! for tests only: per object in queue order a prototype lookup by name, every node's
//! bounds tested, and every batch's material resolved on its own. The optimised builder
//! must give the very same [`RenderFrame`] (same items in the same order, same bits).

use crate::assets::SceneAssets;
use crate::camera::Frustum;
use crate::frame::{
    DISTANCE_QUANTUM, FrameParams, animation_time, lod_for, resolve_row, state_for,
};
use glam::Mat4;
use iron3d_abi::{DrawItem, RenderFrame, RenderPhase, SkipReason, SkippedObject, VisibleObject};
use iron3d_kernel::RenderSnapshot;
use iron3d_msh::{Msh, SampleOptions, sample_all, world_matrices};

/// The reference builder over borrowed assets (poses sampled afresh every frame).
pub(crate) struct Reference<'a> {
    assets: &'a SceneAssets,
    poses: Vec<Option<Vec<Mat4>>>,
}

impl<'a> Reference<'a> {
    /// A reference builder over `assets`.
    pub(crate) fn new(assets: &'a SceneAssets) -> Self {
        Self {
            assets,
            poses: vec![None; assets.models.len()],
        }
    }

    fn sample_model(&mut self, model: usize, time_ms: u64) -> Option<&[Mat4]> {
        if self.poses[model].is_none() {
            let m = &self.assets.models[model];
            let t = animation_time(time_ms, m.frame_count);
            let result = Msh::parse(&m.bytes)
                .map_err(|e| e.to_string())
                .and_then(|msh| {
                    let poses =
                        sample_all(&msh, t, SampleOptions::default()).map_err(|e| e.to_string())?;
                    world_matrices(&msh, &poses).map_err(|e| e.to_string())
                });
            match result {
                Ok(w) => self.poses[model] = Some(w),
                Err(e) => {
                    tracing::warn!(model = %m.name, error = %e, "animation sampling failed; bind pose");
                    self.poses[model] = Some(vec![Mat4::IDENTITY; m.node_slots.len()]);
                }
            }
        }
        self.poses[model].as_deref()
    }

    /// The frame the straightforward builder makes for `snapshot` through `params`.
    pub(crate) fn build(&mut self, snapshot: &RenderSnapshot, params: &FrameParams) -> RenderFrame {
        let (w, h) = (params.target.width.max(1), params.target.height.max(1));
        let camera = params.camera;
        let view = camera.view_matrix();
        let frustum = Frustum::new(&camera, w, h);
        let time_ms = snapshot.time_ms;
        for p in &mut self.poses {
            *p = None;
        }
        let mut visible = Vec::new();
        let mut skipped = Vec::new();
        let mut nodes: Vec<iron3d_abi::Mat4f> = Vec::new();
        // (phase, sort key, insertion) → item
        let mut items: Vec<DrawItem> = Vec::new();
        let mut bad_batches = 0usize;
        let mut insertion = 0u32;
        let mut push = |items: &mut Vec<DrawItem>, mut item: DrawItem| {
            item.insertion = insertion;
            insertion += 1;
            items.push(item);
        };

        // Terrain first: phase 2 (opaque terrain).
        if let Some(t) = &self.assets.terrain {
            for g in &t.groups {
                let (sel, tex, surface, handle) = resolve_row(g.row.as_ref(), time_ms);
                let (state, transparent) = state_for(tex, t.lightmap, surface, true, t.uv_scale);
                let phase = if transparent {
                    RenderPhase::Transparent
                } else {
                    RenderPhase::OpaqueTerrain
                };
                push(
                    &mut items,
                    crate::frame::terrain_item(
                        t,
                        (g.index_start, g.index_count),
                        &sel,
                        handle,
                        (phase, (state.pipeline_key() << 32) | u64::from(handle)),
                        state,
                    ),
                );
            }
            let (mut blends, mut unused) = (Vec::new(), 0);
            crate::frame::terrain_blend_items(t, time_ms, &mut unused, &mut blends);
            for item in blends {
                push(&mut items, item);
            }
        }

        // Poses depend on the model and the time only: sample each model once per frame
        // (pure computation, no cache side effect), then borrow them per object.
        for model in 0..self.assets.models.len() {
            self.sample_model(model, time_ms);
        }
        let (assets, poses) = (&self.assets, &self.poses);
        for o in &snapshot.objects {
            let id = o.id.raw();
            let models = match assets.models_of(&o.prototype) {
                m if !m.is_empty() => m,
                _ => {
                    skipped.push(SkippedObject {
                        id,
                        reason: SkipReason::NoModel,
                    });
                    continue;
                }
            };
            let tr = o.transform;
            let object_matrix =
                Mat4::from_scale_rotation_translation(tr.scale, tr.orientation, tr.position);
            let distance = tr.position.distance(camera.position);
            let lod = lod_for(distance);
            let max_scale = tr.scale.abs().max_element();
            let mut any_slot = false;
            let mut any_visible = false;
            for placed in models {
                let model = placed.model;
                let pose: &[Mat4] = poses[model].as_deref().unwrap_or(&[]);
                let m = &assets.models[model];
                let table = o
                    .clan_id
                    .and_then(|c| m.clan_rows.iter().find(|(k, _)| *k == c))
                    .map_or(&m.rows, |(_, rows)| rows);
                let base = match placed.mount {
                    Some(mount) => {
                        object_matrix
                            * poses
                                .get(mount.parent_model)
                                .and_then(|p| p.as_deref())
                                .and_then(|p| p.get(mount.node))
                                .copied()
                                .unwrap_or(Mat4::IDENTITY)
                    }
                    None => object_matrix,
                };
                // Visibility and slot selection before any material work.
                let mut chosen: Vec<(usize, usize, Mat4)> = Vec::new();
                for (n, slots) in m.node_slots.iter().enumerate() {
                    let sid = slots[lod * 5];
                    if sid == 0xFFFF || usize::from(sid) >= m.slots.len() {
                        continue;
                    }
                    any_slot = true;
                    let node_world = base * pose.get(n).copied().unwrap_or(Mat4::IDENTITY);
                    let s = m.slots[usize::from(sid)];
                    let centre = view.transform_point3(node_world.transform_point3(s.centre));
                    if !frustum.culls(centre, s.radius * max_scale) {
                        chosen.push((n, usize::from(sid), node_world));
                    }
                }
                if chosen.is_empty() {
                    continue;
                }
                any_visible = true;
                let first_node = u32::try_from(nodes.len()).unwrap_or(u32::MAX);
                nodes.extend(chosen.iter().map(|c| iron3d_abi::Mat4f::from(c.2)));
                visible.push(VisibleObject {
                    id,
                    mesh: m.mesh,
                    lod: lod as u8,
                    group: 0,
                    first_node,
                    node_count: chosen.len() as u32,
                    distance,
                });
                let mesh = &assets.resources.meshes[m.mesh as usize];
                for (n, sid, node_world) in chosen {
                    let s = m.slots[sid];
                    let depth = view
                        .transform_point3(node_world.transform_point3(s.centre))
                        .z;
                    for b in m.batches.iter().skip(s.batch_start).take(s.batch_count) {
                        let end = u64::from(b.index_start) + u64::from(b.index_count);
                        if end > mesh.indices.len() as u64 || b.index_count % 3 != 0 {
                            bad_batches += 1;
                            continue;
                        }
                        let (sel, tex, surface, handle) =
                            resolve_row(table.get(usize::from(b.material_index)), time_ms);
                        let (state, transparent) =
                            state_for(tex, m.lightmap, surface, true, [1.0, 1.0]);
                        let (phase, sort_key) = if transparent {
                            let q = (depth.max(0.0) / DISTANCE_QUANTUM).min(u32::MAX as f32) as u64;
                            (RenderPhase::Transparent, u64::from(u32::MAX) - q)
                        } else if state.alpha_test {
                            (
                                RenderPhase::AlphaTested,
                                (state.pipeline_key() << 32) | u64::from(handle),
                            )
                        } else {
                            (
                                RenderPhase::OpaqueModels,
                                (state.pipeline_key() << 32) | u64::from(handle),
                            )
                        };
                        push(
                            &mut items,
                            DrawItem {
                                object: id,
                                node: n as u32,
                                slot: sid as u32,
                                mesh: m.mesh,
                                batch_flags: b.batch_flags,
                                index_start: b.index_start,
                                index_count: u32::from(b.index_count),
                                base_vertex: b.base_vertex,
                                world: node_world.into(),
                                material: handle,
                                phase_a: sel.phase_a,
                                phase_b: sel.phase_b,
                                phase_t: sel.t(),
                                phase,
                                sort_key,
                                insertion: 0,
                                state,
                            },
                        );
                    }
                }
            }
            if !any_visible {
                skipped.push(SkippedObject {
                    id,
                    reason: if any_slot {
                        SkipReason::Culled
                    } else {
                        SkipReason::NoSlot
                    },
                });
            }
        }
        let weather = self
            .assets
            .sky_schedule
            .as_ref()
            .map(|s| s.weather_at(time_ms).quantised());
        if let Some(sky) = self.assets.sky {
            let texture = sky.texture_for(weather.as_ref());
            let mut item =
                crate::sky::sky_item(sky.mesh, texture, camera.position, sky.index_count);
            item.insertion = insertion;
            items.push(item);
        }
        items.sort_by_key(|i| (i.phase, i.sort_key, i.insertion));
        let _ = bad_batches;
        RenderFrame {
            frame: snapshot.frame,
            tick: snapshot.tick,
            time_ms,
            camera: camera.to_abi(w, h),
            lighting: weather.map_or(params.lighting, |w| {
                crate::sky::weather_lighting(params.lighting, &w)
            }),
            target: params.target,
            resources: self.assets.resources.clone(),
            visible: visible.into(),
            skipped: skipped.into(),
            nodes: nodes.into(),
            items: items.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

    use super::Reference;
    use crate::assets::{ModelAsset, MountRef, PlacedModel, SceneAssets, SlotInfo};
    use crate::camera::CameraState;
    use crate::frame::{DEFAULT_LIGHTING, FrameBuilder, FrameParams};
    use abi_stable::std_types::RString;
    use glam::{Quat, Vec3};
    use iron3d_abi::{MeshResource, NO_TEXTURE, RenderFrame, RenderResources, RenderTarget};
    use iron3d_kernel::{
        Kernel, KernelConfig, ManualTimeSource, NoInput, RenderSnapshot, SnapshotObject,
    };
    use iron3d_mission::{GameFiles, load_mission};
    use iron3d_msh::{AnimKey24, Batch20, FrameMap, Msh, MshBuilder, Node38, Slot68};
    use iron3d_vfs::{ArchiveCache, ReadMode};
    use std::sync::Arc;

    /// Everything of a frame but the shared resources, with every float's bits.
    fn text(f: &RenderFrame) -> String {
        format!(
            "{:?}",
            (
                f.frame, f.tick, f.time_ms, f.camera, f.lighting, f.target, &f.visible, &f.skipped,
                &f.nodes, &f.items,
            )
        )
    }

    /// A small deterministic generator (SplitMix64).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn unit(&mut self) -> f32 {
            (self.next() >> 40) as f32 / (1u64 << 24) as f32
        }
        fn range(&mut self, lo: f32, hi: f32) -> f32 {
            lo + (hi - lo) * self.unit()
        }
    }

    /// The demo's `mission` loaded: its assets and the snapshot of its loaded world.
    fn mission(profile: iron3d_demo::Profile, name: &str) -> (SceneAssets, RenderSnapshot) {
        let dir = tempfile::tempdir().unwrap();
        iron3d_demo::build(dir.path(), 7, profile).unwrap();
        let files = GameFiles::new(dir.path(), ArchiveCache::new(ReadMode::Strict, 64 << 20));
        let data = files.data();
        let mut kernel =
            Kernel::new(KernelConfig::default(), Box::new(ManualTimeSource::new())).unwrap();
        let loaded = load_mission(&mut kernel, &data, name, None).unwrap();
        let assets = SceneAssets::load(&data, &loaded).unwrap();
        kernel.frame(&mut NoInput, Some(0)).unwrap();
        let snapshot = (*kernel.snapshot().unwrap()).clone();
        (assets, snapshot)
    }

    /// `count` objects made from `base`'s: spread over a `span`-wide square, turned,
    /// scaled (uniform, stretched, mirrored, flat, huge), some not finite, with names
    /// shared, copied into their own `Arc`, lower-cased or unknown.
    fn crowd(base: &RenderSnapshot, count: usize, span: f32, seed: u64) -> RenderSnapshot {
        let mut rng = Rng(seed);
        let mut objects = Vec::with_capacity(count);
        let unknown: Arc<[u8]> = Arc::from(&b"NO SUCH PROTOTYPE"[..]);
        for i in 0..count {
            let from = &base.objects[i % base.objects.len()];
            let mut o: SnapshotObject = from.clone();
            let t = &mut o.transform;
            t.position = Vec3::new(
                rng.range(-span, span),
                rng.range(-span, span),
                rng.range(-5.0, 40.0),
            );
            t.orientation = Quat::from_rotation_z(rng.range(0.0, 6.3))
                * Quat::from_rotation_x(rng.range(-0.3, 0.3));
            t.scale = match rng.next() % 16 {
                0 => Vec3::new(1.0, 2.5, 0.5),
                1 => Vec3::new(-1.0, 1.0, 1.0),
                2 => Vec3::ZERO,
                3 => Vec3::splat(40.0),
                4 => Vec3::splat(rng.range(0.1, 3.0)),
                _ => Vec3::ONE,
            };
            match rng.next() % 64 {
                0 => t.position.x = f32::NAN,
                1 => t.scale.y = f32::INFINITY,
                2 => t.orientation = Quat::from_xyzw(0.0, 0.0, 0.9, 0.9),
                _ => {}
            }
            o.prototype = match rng.next() % 8 {
                0 => Arc::from(&*from.prototype),
                1 => Arc::from(from.prototype.to_ascii_lowercase()),
                2 => unknown.clone(),
                _ => from.prototype.clone(),
            };
            o.id = iron3d_kernel::OriginalObjectId(i as u32 + 1);
            objects.push(o);
        }
        RenderSnapshot {
            objects,
            ..base.clone()
        }
    }

    fn params(camera: CameraState, width: u32, height: u32) -> FrameParams {
        FrameParams {
            camera,
            target: RenderTarget {
                width,
                height,
                window: abi_stable::std_types::ROption::RNone,
                clear: [1, 2, 3, 255],
            },
            lighting: DEFAULT_LIGHTING,
        }
    }

    /// Cameras all over `span`: low and high, looking every way, near and far plane.
    fn cameras(span: f32, seed: u64) -> Vec<FrameParams> {
        let mut rng = Rng(seed);
        let mut out = vec![
            params(
                CameraState::looking_at(Vec3::new(-30.0, -30.0, 25.0), Vec3::ZERO),
                640,
                480,
            ),
            params(
                CameraState::looking_at(Vec3::new(0.0, -span, span), Vec3::ZERO),
                1280,
                720,
            ),
        ];
        let mut wide = CameraState::looking_at(Vec3::new(0.0, 0.0, 300.0), Vec3::ZERO);
        wide.far = 10_000.0;
        out.push(params(wide, 320, 240));
        let mut up = CameraState::default();
        up.turn(0.0, 10.0);
        out.push(params(up, 640, 480));
        for _ in 0..6 {
            let mut c = CameraState::looking_at(
                Vec3::new(
                    rng.range(-span, span),
                    rng.range(-span, span),
                    rng.range(2.0, 200.0),
                ),
                Vec3::new(rng.range(-span, span), rng.range(-span, span), 0.0),
            );
            c.fov = rng.range(0.5, 2.0);
            c.far = rng.range(100.0, 2_000.0);
            out.push(params(c, 640, 480));
        }
        out
    }

    /// Builds every (snapshot time, camera) with one builder, in an order that moves
    /// the time back and forth (its caches must follow), each against the reference.
    fn same_as_reference(assets: &SceneAssets, snapshot: &RenderSnapshot, views: &[FrameParams]) {
        let mut builder = FrameBuilder::new(assets.clone());
        let mut reference = Reference::new(assets);
        let mut compared_items = 0;
        for (k, time_ms) in [0u64, 250, 250, 1_700, 0, 33_333].into_iter().enumerate() {
            let snap = RenderSnapshot {
                time_ms,
                frame: k as u64,
                ..snapshot.clone()
            };
            for p in views {
                let want = reference.build(&snap, p);
                let got = builder.build(&snap, p);
                assert_eq!(
                    text(&got),
                    text(&want),
                    "time {time_ms}, camera {:?}",
                    p.camera
                );
                assert_eq!(builder.stats().items, want.items.len());
                compared_items += want.items.len();
            }
        }
        assert!(compared_items > 0, "some frames draw something");
    }

    const ARM_FRAMES: u16 = 8;

    /// A model of two nodes: node 0 spins about Z over [`ARM_FRAMES`] frames, node 1
    /// (its child at `(reach, 0, 0)`) holds a unit cube, so the cube sweeps a circle.
    /// `reach == 0`: one still node with the cube.
    fn arm_model(name: &str, reach: f32, mesh: u32) -> (ModelAsset, MeshResource) {
        let mut b = MshBuilder::new();
        let mut keys = Vec::new();
        let mut words = Vec::new();
        let nodes: &[(Option<u16>, [f32; 3], bool, bool)] = if reach == 0.0 {
            &[(None, [0.0; 3], true, false)]
        } else {
            &[
                (None, [0.0; 3], false, true),
                (Some(0), [reach, 0.0, 0.0], true, false),
            ]
        };
        for &(parent, offset, geometry, spins) in nodes {
            let mut node = Node38::new(0);
            node.parent = parent.unwrap_or(iron3d_msh::NONE_U16);
            if geometry {
                for k in 0..8u8 {
                    let c = |bit: u8| if k & bit != 0 { 0.5 } else { -0.5 };
                    b.positions.push([c(1), c(2), c(4)]);
                }
                b.indices.extend([0u16, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6]);
                b.batches.push(Batch20 {
                    batch_flags: 0,
                    material_index: 0,
                    opaque4: 0,
                    opaque6: 0,
                    index_count: 12,
                    index_start: 0,
                    opaque14: 0,
                    base_vertex: 0,
                });
                node.slot_index[0] = 0;
                b.slots.push(Slot68 {
                    tri_start: 0,
                    tri_count: 0,
                    batch_start: 0,
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
                for f in 0..=ARM_FRAMES {
                    let turn = f32::from(f) * std::f32::consts::TAU / f32::from(ARM_FRAMES);
                    let (s, c) = (turn / 2.0).sin_cos();
                    keys.push(AnimKey24 {
                        position: offset,
                        time: f32::from(f),
                        rotation: [0, 0, (s * 32767.0) as i16, (c * 32767.0) as i16],
                    });
                }
                node.anim_map_start = words.len() as u16;
                node.fallback_key = start + ARM_FRAMES;
                words.extend((0..ARM_FRAMES).map(|f| start + f));
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
                frame_count: u32::from(ARM_FRAMES),
                words,
            });
        }
        let bytes = b.build().unwrap();
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

    #[test]
    fn the_pre_cull_follows_the_animation_of_swinging_nodes_and_mounts() {
        // ARM: a cube swinging on a 12-unit arm; RIG: a pod at the object and a pod
        // mounted on the arm's swinging node (the arm itself not drawn); a grid of both
        // along the frustum's edges, at every frame time.
        let (arm, arm_mesh) = arm_model("arm", 12.0, 0);
        let (pod, pod_mesh) = arm_model("pod", 0.0, 1);
        let placed = |model, mount| PlacedModel {
            model,
            component: None,
            mount,
        };
        let mut prototype_models = std::collections::BTreeMap::new();
        prototype_models.insert(b"ARM".to_vec(), vec![placed(0, None)]);
        prototype_models.insert(
            b"RIG".to_vec(),
            vec![
                placed(1, None),
                placed(
                    1,
                    Some(MountRef {
                        parent_model: 0,
                        node: 1,
                    }),
                ),
            ],
        );
        let assets = SceneAssets {
            resources: abi_stable::std_types::RArc::new(RenderResources {
                id: 1,
                meshes: vec![arm_mesh, pod_mesh].into(),
                textures: Default::default(),
            }),
            models: vec![arm, pod],
            prototype_models,
            terrain: None,
            missing_textures: Vec::new(),
            sky: None,
            sky_schedule: None,
        };
        let names: [Arc<[u8]>; 2] = [Arc::from(&b"ARM"[..]), Arc::from(&b"RIG"[..])];
        let mut objects = Vec::new();
        for i in 0..40u32 {
            for j in 0..40u32 {
                let transform = iron3d_kernel::Transform {
                    position: Vec3::new(i as f32 * 3.0 - 60.0, j as f32 * 3.0 - 60.0, 0.0),
                    ..Default::default()
                };
                objects.push(SnapshotObject {
                    id: iron3d_kernel::OriginalObjectId(i * 100 + j + 1),
                    kind: 0,
                    transform,
                    prototype: names[((i + j) % 2) as usize].clone(),
                    clan_id: None,
                });
            }
        }
        let snapshot = RenderSnapshot {
            frame: 1,
            tick: 1,
            objects,
            ..RenderSnapshot::default()
        };
        let views: Vec<FrameParams> = [(0.0, -0.3), (0.8, -0.5), (2.0, -1.2)]
            .into_iter()
            .map(|(yaw, pitch)| {
                let mut c = CameraState {
                    position: Vec3::new(-20.0, -15.0, 25.0),
                    far: 90.0,
                    ..CameraState::default()
                };
                c.turn(yaw, pitch);
                params(c, 640, 480)
            })
            .collect();
        let mut builder = FrameBuilder::new(assets.clone());
        let mut reference = Reference::new(&assets);
        for time_ms in (0..=1_600).step_by(50) {
            let snap = RenderSnapshot {
                time_ms,
                ..snapshot.clone()
            };
            for p in &views {
                let want = reference.build(&snap, p);
                let got = builder.build(&snap, p);
                assert!(!want.visible.is_empty() && !want.skipped.is_empty());
                assert_eq!(text(&got), text(&want), "time {time_ms}");
            }
        }
    }

    #[test]
    fn the_optimised_builder_gives_the_reference_frame_on_crowded_demo_missions() {
        for (name, span) in [("BATTLE", 300.0), ("DEMO1", 600.0)] {
            let (assets, loaded) = mission(iron3d_demo::Profile::Demo, name);
            assert!(
                assets.prototype_models.values().any(|l| l.len() > 1),
                "{name}: a unit with mounted components"
            );
            let views = cameras(span, 11);
            same_as_reference(&assets, &loaded, &views);
            let crowd = crowd(&loaded, 3_000, span, 5);
            same_as_reference(&assets, &crowd, &views);
        }
    }

    #[test]
    #[ignore = "builds the 10,000-object stress content: run with --release -- --ignored"]
    fn the_optimised_builder_gives_the_reference_frame_on_the_stress_mission() {
        let (assets, loaded) = mission(iron3d_demo::Profile::Stress, "STRESS");
        assert_eq!(loaded.objects.len(), iron3d_demo::STRESS_OBJECTS);
        // The launcher's overview (over the object nearest the centroid) and more.
        let at: Vec<Vec3> = loaded
            .objects
            .iter()
            .map(|o| o.transform.position)
            .collect();
        let centroid = at.iter().copied().sum::<Vec3>() / at.len() as f32;
        let target = at
            .iter()
            .copied()
            .min_by(|a, b| {
                a.distance_squared(centroid)
                    .total_cmp(&b.distance_squared(centroid))
            })
            .unwrap();
        let mut views = cameras(1_024.0, 3);
        views.push(params(
            CameraState::looking_at(target + Vec3::new(-32.0, -32.0, 22.0), target),
            640,
            480,
        ));
        views.push(params(
            CameraState::looking_at(centroid + Vec3::new(-200.0, -200.0, 150.0), centroid),
            640,
            480,
        ));
        same_as_reference(&assets, &loaded, &views);
    }
}
