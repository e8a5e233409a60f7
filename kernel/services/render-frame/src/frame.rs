//! Building one frame (tome V "Полный кадр", FORMATS §13.6–13.7): per object in queue
//! order — model lookup, LOD by distance, node matrices from the animation pose, slot
//! selection, bounds culling — and only then material resolve (phase selection, texture,
//! lightmap, legacy state) into draw items, sorted by render phase and stable keys.
//!
//! What does not change per object is done once: the prototype lookup per name, the
//! nodes with a slot per model and LOD, the poses per model and animation time, the
//! resolved material rows per model and time. An object whose whole prototype (every
//! node sphere of every placed model at its LOD, at the current poses) is surely outside
//! the view is skipped as culled before any per-node work; the frame is bit for bit the
//! one the per-node test alone gives (`reference.rs` keeps that builder for the tests).
//!
//! A unit DAT component mounted on its root model (an EXTO child, PD-UNIT-ROLE) is drawn
//! at `object × mount node (parent model's pose at the frame's time) × node`; every
//! other model at `object × node`.

use crate::assets::{MaterialRow, MountRef, PlacedModel, SceneAssets};
use crate::camera::{CameraState, Frustum};
use glam::{Mat4, Vec3};
use iron3d_abi::{
    BlendMode, CullMode, DepthMode, DrawItem, LegacyRenderState, Lighting, NO_TEXTURE, RenderFrame,
    RenderPhase, RenderTarget, SkipReason, SkippedObject, TextureOp, TextureStage, VertexFormat,
    VisibleObject,
};
use iron3d_kernel::RenderSnapshot;
use iron3d_material::{
    MaterialClock, ModeMapping, PhaseSelection, Surface, SurfaceMode, select_phase,
};
use iron3d_msh::{Msh, SampleOptions, sample_all, world_matrices};
use std::collections::BTreeMap;

/// **Project decision PD-RENDER-LOD** (the original thresholds are unknown, FORMATS §16
/// item 19): LOD 0 below this eye distance, LOD 1 below [`LOD2_DISTANCE`], else LOD 2;
/// group 0 always.
pub const LOD1_DISTANCE: f32 = 150.0;
/// See [`LOD1_DISTANCE`].
pub const LOD2_DISTANCE: f32 = 400.0;
/// **Project decision PD-RENDER-ANIM**: model animation runs at this many type-19 frames
/// per second of game time and loops over the model's timeline.
pub const ANIMATION_FPS: u64 = 10;
/// Transparent sort: distances are quantised to 1/16 world unit before ordering.
pub const DISTANCE_QUANTUM: f32 = 1.0 / 16.0;

/// The default lighting: a sun from the south-east, high up, and a grey ambient.
pub const DEFAULT_LIGHTING: Lighting = Lighting {
    sun_direction: iron3d_abi::Vec3f {
        x: 0.408_248_3,
        y: -0.408_248_3,
        z: 0.816_496_6,
    },
    sun_colour: [0.65, 0.62, 0.55],
    ambient: [0.40, 0.42, 0.45],
};

/// Per-frame inputs besides the snapshot.
#[derive(Clone, Copy, Debug)]
pub struct FrameParams {
    /// The camera.
    pub camera: CameraState,
    /// Target size, window, clear colour.
    pub target: RenderTarget,
    /// Lighting.
    pub lighting: Lighting,
}

/// The model animation time (in type-19 frames) at `time_ms` for a `frame_count` timeline.
pub fn animation_time(time_ms: u64, frame_count: u32) -> f32 {
    if frame_count == 0 {
        return 0.0;
    }
    let period_ms = u64::from(frame_count) * 1000 / ANIMATION_FPS;
    let local = if period_ms == 0 {
        0
    } else {
        time_ms % period_ms
    };
    (local as f64 * ANIMATION_FPS as f64 / 1000.0) as f32
}

pub(crate) fn lod_for(distance: f32) -> usize {
    if distance < LOD1_DISTANCE {
        0
    } else if distance < LOD2_DISTANCE {
        1
    } else {
        2
    }
}

/// The phase shown by `row` at `time_ms` (block 0; still phase 0 without blocks or on a
/// selection error, which is logged).
fn phase_of(row: &MaterialRow, time_ms: u64) -> PhaseSelection {
    let Some(mat) = &row.mat else {
        return PhaseSelection::still(0);
    };
    if mat.blocks().is_empty() {
        return PhaseSelection::still(0);
    }
    match select_phase(
        mat,
        0,
        MaterialClock::at(time_ms),
        &ModeMapping::PROJECT_DEFAULT,
    ) {
        Ok(s) => s,
        Err(e) => {
            tracing::debug!(material = row.handle, error = %e, "phase selection failed; phase 0");
            PhaseSelection::still(0)
        }
    }
}

/// Material resolve of one WEAR row at `time_ms`: the phase selection, the active phase's
/// texture and PD-MAT-4 surface, and the material handle. No row (an index outside the
/// table or an unresolved terrain tag): untextured, opaque, handle `u32::MAX`.
pub(crate) fn resolve_row(
    row: Option<&MaterialRow>,
    time_ms: u64,
) -> (PhaseSelection, u32, Surface, u32) {
    match row {
        Some(row) => {
            let sel = phase_of(row, time_ms);
            let pa = usize::from(sel.phase_a);
            (
                sel,
                row.textures.get(pa).copied().unwrap_or(NO_TEXTURE),
                row.surfaces.get(pa).copied().unwrap_or(Surface::OPAQUE),
                row.handle,
            )
        }
        None => (
            PhaseSelection::still(0),
            NO_TEXTURE,
            Surface::OPAQUE,
            u32::MAX,
        ),
    }
}

/// A draw item of `count` indices from `start` of the terrain mesh of `t` (identity
/// world matrix, material `handle` at phase selection `sel`), insertion 0.
pub(crate) fn terrain_item(
    t: &crate::assets::TerrainAsset,
    (start, count): (u32, u32),
    sel: &PhaseSelection,
    handle: u32,
    (phase, sort_key): (RenderPhase, u64),
    state: LegacyRenderState,
) -> DrawItem {
    DrawItem {
        object: 0,
        node: 0,
        slot: 0,
        mesh: t.mesh,
        batch_flags: 0,
        index_start: start,
        index_count: count,
        base_vertex: 0,
        world: Mat4::IDENTITY.into(),
        material: handle,
        phase_a: sel.phase_a,
        phase_b: sel.phase_b,
        phase_t: sel.t(),
        phase,
        sort_key,
        insertion: 0,
        state,
    }
}

/// The blend pass items of the terrain `t` at `time_ms` (PD-RENDER-TERRAIN-BLEND,
/// [`crate::terrain_blend`]), ascending by group, with insertions from `insertion` on:
/// a pass whose material is, at this time, untextured or not opaque (alpha-tested,
/// blended) is skipped.
pub(crate) fn terrain_blend_items(
    t: &crate::assets::TerrainAsset,
    time_ms: u64,
    insertion: &mut u32,
    items: &mut Vec<DrawItem>,
) {
    for b in &t.blends {
        let Some(g) = t.groups.get(b.group) else {
            continue;
        };
        let (sel, tex, surface, handle) = resolve_row(g.row.as_ref(), time_ms);
        let (base, transparent) = state_for(tex, t.lightmap, surface, true, t.uv_scale);
        if tex == NO_TEXTURE || transparent || base.alpha_test {
            continue;
        }
        let state = LegacyRenderState {
            stages: [
                TextureStage {
                    texture: b.mask,
                    op: TextureOp::Modulate,
                    uv_scale: [1.0, 1.0],
                },
                TextureStage {
                    texture: tex,
                    op: TextureOp::Modulate,
                    uv_scale: t.uv_scale,
                },
            ],
            blend: BlendMode::AlphaBlend,
            depth: DepthMode {
                test: true,
                write: false,
            },
            ..base
        };
        items.push(DrawItem {
            insertion: *insertion,
            ..terrain_item(
                t,
                (b.index_start, b.index_count),
                &sel,
                handle,
                (RenderPhase::MaterialPasses, b.group as u64),
                state,
            )
        });
        *insertion += 1;
    }
}

/// The legacy state and render phase of a surface (PD-MAT-4 → fixed function).
pub(crate) fn state_for(
    texture: u32,
    lightmap: u32,
    surface: Surface,
    lit: bool,
    uv_scale: [f32; 2],
) -> (LegacyRenderState, bool) {
    let stage0 = if texture == NO_TEXTURE {
        TextureStage::OFF
    } else {
        TextureStage {
            texture,
            op: if lit {
                TextureOp::Modulate
            } else {
                TextureOp::SelectTexture
            },
            uv_scale,
        }
    };
    let stage1 = if lightmap == NO_TEXTURE {
        TextureStage::OFF
    } else {
        TextureStage {
            texture: lightmap,
            op: TextureOp::Modulate,
            uv_scale: [1.0, 1.0],
        }
    };
    let (blend, alpha_test, depth_write, transparent) = match surface.mode {
        SurfaceMode::Opaque | SurfaceMode::Unknown(_) => (BlendMode::Opaque, false, true, false),
        SurfaceMode::AlphaTested => (BlendMode::Opaque, true, true, false),
        SurfaceMode::AlphaBlended => (BlendMode::AlphaBlend, false, false, true),
        SurfaceMode::Additive => (BlendMode::Additive, false, false, true),
    };
    (
        LegacyRenderState {
            stages: [stage0, stage1],
            blend,
            depth: DepthMode {
                test: true,
                write: depth_write,
            },
            cull: if surface.two_sided {
                CullMode::None
            } else {
                CullMode::Back
            },
            alpha_test,
            alpha_ref: surface.alpha_ref,
            vertex_format: VertexFormat::PositionNormalUv,
        },
        transparent,
    )
}

/// Counters of the last built frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// Objects in the snapshot.
    pub objects: usize,
    /// Visible objects.
    pub visible: usize,
    /// Draw items.
    pub items: usize,
    /// Batches whose ranges fall outside the mesh (skipped).
    pub bad_batches: usize,
}

/// Past this many remembered prototype names the builder's name memo starts afresh, so
/// a stream of ever new names cannot grow it without bound.
const PROTOTYPE_MEMO_LIMIT: usize = 4096;

/// Relative slack of the per-object pre-cull (see [`Bound`]): the bounding sphere grows
/// by this much of the magnitudes involved, far above `f32` rounding, so an object the
/// pre-cull drops is one the per-node test would drop too.
const PRE_CULL_SLACK: f32 = 1e-3;

/// Prototype names seen so far, exactly as objects carry them, and the index in
/// [`FrameBuilder`]'s prototypes of what [`SceneAssets::models_of`] gives for each
/// (`None`: no models). The objects of a world each carry their own copy of the name,
/// so it is the bytes that are looked up (without the upper-casing fallback's
/// allocation).
type NameMemo = BTreeMap<Box<[u8]>, Option<usize>>;

/// A sphere holding every drawn node's bounding sphere of a prototype at one LOD, in
/// object space at the current poses: `centre`, the farthest node-sphere centre from it
/// (`reach`) and the largest slot radius (`radius`, scaled by the object like the
/// per-node test scales it). Only finite bounds are kept.
#[derive(Clone, Copy, Debug)]
struct Bound {
    centre: Vec3,
    reach: f32,
    radius: f32,
}

/// A prototype the mission draws: its placed models and, per LOD, whether any of them
/// has a slot and the [`Bound`] at the poses of `bound_epoch`.
#[derive(Debug)]
struct Prototype {
    placed: Vec<PlacedModel>,
    /// A placed model index outside the models: no shortcut (the per-node path runs).
    plain: bool,
    any_slot: [bool; 3],
    bound: [Option<Bound>; 3],
    bound_epoch: u64,
}

/// One WEAR row (or the missing row, `None`) resolved at one time for one model: what
/// every batch drawing with it gets.
#[derive(Clone, Copy, Debug)]
struct Resolved {
    phase_a: u16,
    phase_b: u16,
    phase_t: f32,
    handle: u32,
    state: LegacyRenderState,
    transparent: bool,
    /// `pipeline_key << 32 | handle`: the opaque and alpha-tested sort key.
    key: u64,
}

impl Resolved {
    fn of(row: Option<&MaterialRow>, lightmap: u32, time_ms: u64) -> Self {
        let (sel, tex, surface, handle) = resolve_row(row, time_ms);
        let (state, transparent) = state_for(tex, lightmap, surface, true, [1.0, 1.0]);
        Self {
            phase_a: sel.phase_a,
            phase_b: sel.phase_b,
            phase_t: sel.t(),
            handle,
            state,
            transparent,
            key: (state.pipeline_key() << 32) | u64::from(handle),
        }
    }
}

/// Builds frames from one mission's assets. Reuses its scratch buffers between frames
/// and keeps what depends on the assets alone (per prototype: its models and which LODs
/// have slots; per model and LOD: the nodes with a slot; per prototype name: its
/// prototype) or on the animation time alone (model poses, resolved material rows);
/// a frame is exactly the one a builder without any of it would make.
#[derive(Debug)]
pub struct FrameBuilder {
    assets: SceneAssets,
    /// Per model: node matrices (model space) at the animation time in `pose_time`.
    poses: Vec<Option<Vec<Mat4>>>,
    /// Per model: the animation time (bits) its pose was sampled at.
    pose_time: Vec<Option<u32>>,
    /// Bumped whenever a pose changes (bounds of older epochs are stale).
    pose_epoch: u64,
    /// Per model, per LOD: `(node, slot)` of every node with a valid slot, in node order.
    slot_lists: Vec<[Vec<(usize, usize)>; 3]>,
    /// The prototypes, one per non-empty [`SceneAssets::prototype_models`] list.
    prototypes: Vec<Prototype>,
    /// Address of a prototype list in the assets → its index in `prototypes`.
    list_index: BTreeMap<usize, usize>,
    /// Prototype names → prototypes.
    memo: NameMemo,
    /// Per model: its rows resolved at `resolved_time`, one block of `rows.len() + 1`
    /// (the last entry: a missing row) for its own rows, then one per clan variant
    /// (PD-RENDER-CLAN-MATERIAL).
    resolved: Vec<Vec<Option<Resolved>>>,
    resolved_time: Option<u64>,
    /// Scratch: the chosen `(node, slot, node matrix, view depth)` of one model.
    chosen: Vec<(usize, usize, Mat4, f32)>,
    /// Lengths of the last frame's lists (visible, skipped, nodes, items).
    last_lens: [usize; 4],
    stats: BuildStats,
}

impl FrameBuilder {
    /// A builder over `assets`.
    pub fn new(assets: SceneAssets) -> Self {
        let n = assets.models.len();
        let slot_lists: Vec<[Vec<(usize, usize)>; 3]> = assets
            .models
            .iter()
            .map(|m| {
                std::array::from_fn(|lod| {
                    m.node_slots
                        .iter()
                        .enumerate()
                        .filter_map(|(n, slots)| {
                            let sid = slots[lod * 5];
                            (sid != 0xFFFF && usize::from(sid) < m.slots.len())
                                .then_some((n, usize::from(sid)))
                        })
                        .collect()
                })
            })
            .collect();
        let mut prototypes = Vec::new();
        let mut list_index = BTreeMap::new();
        for list in assets.prototype_models.values() {
            if list.is_empty() {
                continue;
            }
            let plain = list.iter().any(|p| p.model >= n);
            let any_slot = std::array::from_fn(|lod| {
                plain
                    || list
                        .iter()
                        .any(|p| slot_lists.get(p.model).is_some_and(|l| !l[lod].is_empty()))
            });
            list_index.insert(list.as_ptr() as usize, prototypes.len());
            prototypes.push(Prototype {
                placed: list.clone(),
                plain,
                any_slot,
                bound: [None; 3],
                bound_epoch: u64::MAX,
            });
        }
        let resolved = assets
            .models
            .iter()
            .map(|m| vec![None; (m.rows.len() + 1) * (m.clan_rows.len() + 1)])
            .collect();
        Self {
            assets,
            poses: vec![None; n],
            pose_time: vec![None; n],
            pose_epoch: 0,
            slot_lists,
            prototypes,
            list_index,
            memo: NameMemo::default(),
            resolved,
            resolved_time: None,
            chosen: Vec::new(),
            last_lens: [0; 4],
            stats: BuildStats::default(),
        }
    }

    /// The assets.
    pub fn assets(&self) -> &SceneAssets {
        &self.assets
    }

    /// Counters of the last frame.
    pub fn stats(&self) -> BuildStats {
        self.stats
    }

    /// Samples `model`'s pose at `time_ms` unless it already holds the pose of the same
    /// animation time (the pose is a function of the model and that time only).
    fn sample_model(&mut self, model: usize, time_ms: u64) {
        let m = &self.assets.models[model];
        let t = animation_time(time_ms, m.frame_count);
        if self.poses[model].is_some() && self.pose_time[model] == Some(t.to_bits()) {
            return;
        }
        self.pose_time[model] = Some(t.to_bits());
        self.pose_epoch += 1;
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

    /// Builds the frame for `snapshot` as seen through `params`.
    pub fn build(&mut self, snapshot: &RenderSnapshot, params: &FrameParams) -> RenderFrame {
        let (w, h) = (params.target.width.max(1), params.target.height.max(1));
        let camera = params.camera;
        let view = camera.view_matrix();
        let frustum = Frustum::new(&camera, w, h);
        let time_ms = snapshot.time_ms;
        // Poses depend on the model and the animation time only: sample each model whose
        // time moved, then borrow them per object.
        for model in 0..self.assets.models.len() {
            self.sample_model(model, time_ms);
        }
        if self.resolved_time != Some(time_ms) {
            self.resolved_time = Some(time_ms);
            for rows in &mut self.resolved {
                rows.fill(None);
            }
        }
        if self.memo.len() > PROTOTYPE_MEMO_LIMIT {
            self.memo.clear();
        }
        let Self {
            assets,
            poses,
            pose_epoch,
            slot_lists,
            prototypes,
            list_index,
            memo,
            resolved,
            chosen,
            last_lens,
            ..
        } = self;
        let (assets, poses, slot_lists) = (&*assets, &*poses, &*slot_lists);
        let mut visible = Vec::with_capacity(last_lens[0]);
        let mut skipped = Vec::with_capacity(last_lens[1]);
        let mut nodes: Vec<iron3d_abi::Mat4f> = Vec::with_capacity(last_lens[2]);
        // (phase, sort key, insertion) → item
        let mut items: Vec<DrawItem> = Vec::with_capacity(last_lens[3]);
        let mut bad_batches = 0usize;
        let mut insertion = 0u32;

        // Terrain first: phase 2 (opaque terrain).
        if let Some(t) = &assets.terrain {
            for g in &t.groups {
                let (sel, tex, surface, handle) = resolve_row(g.row.as_ref(), time_ms);
                let (state, transparent) = state_for(tex, t.lightmap, surface, true, t.uv_scale);
                let phase = if transparent {
                    RenderPhase::Transparent
                } else {
                    RenderPhase::OpaqueTerrain
                };
                items.push(DrawItem {
                    insertion,
                    ..terrain_item(
                        t,
                        (g.index_start, g.index_count),
                        &sel,
                        handle,
                        (phase, (state.pipeline_key() << 32) | u64::from(handle)),
                        state,
                    )
                });
                insertion += 1;
            }
            terrain_blend_items(t, time_ms, &mut insertion, &mut items);
        }

        for o in &snapshot.objects {
            let id = o.id.raw();
            let prototype = match memo.get(&*o.prototype) {
                Some(&p) => p,
                None => {
                    let list = assets.models_of(&o.prototype);
                    let p = if list.is_empty() {
                        None
                    } else {
                        list_index.get(&(list.as_ptr() as usize)).copied()
                    };
                    memo.insert(Box::from(&*o.prototype), p);
                    p
                }
            };
            let Some(prototype) = prototype else {
                skipped.push(SkippedObject {
                    id,
                    reason: SkipReason::NoModel,
                });
                continue;
            };
            let tr = o.transform;
            let object_matrix =
                Mat4::from_scale_rotation_translation(tr.scale, tr.orientation, tr.position);
            let distance = tr.position.distance(camera.position);
            let lod = lod_for(distance);
            let max_scale = tr.scale.abs().max_element();
            let proto = &mut prototypes[prototype];
            if !proto.any_slot[lod] {
                skipped.push(SkippedObject {
                    id,
                    reason: SkipReason::NoSlot,
                });
                continue;
            }
            if !proto.plain && proto.bound_epoch != *pose_epoch {
                proto.bound = std::array::from_fn(|lod| {
                    bound_of(&proto.placed, lod, assets, poses, slot_lists)
                });
                proto.bound_epoch = *pose_epoch;
            }
            if proto.bound[lod].is_some_and(|b| {
                b.surely_culled(&object_matrix, max_scale, &view, &frustum, camera.position)
            }) {
                skipped.push(SkippedObject {
                    id,
                    reason: SkipReason::Culled,
                });
                continue;
            }
            let mut any_visible = false;
            for placed in &proto.placed {
                let model = placed.model;
                let pose: &[Mat4] = poses[model].as_deref().unwrap_or(&[]);
                let m = &assets.models[model];
                let base = match placed.mount {
                    Some(mount) => object_matrix * mount_matrix(poses, mount),
                    None => object_matrix,
                };
                // Visibility and slot selection before any material work.
                chosen.clear();
                for &(n, sid) in &slot_lists[model][lod] {
                    let node_world = base * pose.get(n).copied().unwrap_or(Mat4::IDENTITY);
                    let s = m.slots[sid];
                    let centre = view.transform_point3(node_world.transform_point3(s.centre));
                    if !frustum.culls(centre, s.radius * max_scale) {
                        chosen.push((n, sid, node_world, centre.z));
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
                // PD-RENDER-CLAN-MATERIAL: the object's clan's rows, when the model has them.
                let variant = o
                    .clan_id
                    .and_then(|c| m.clan_rows.iter().position(|(k, _)| *k == c));
                let (table, block) = match variant {
                    Some(v) => (&m.clan_rows[v].1, v + 1),
                    None => (&m.rows, 0),
                };
                let stride = m.rows.len() + 1;
                let rows = &mut resolved[model][block * stride..(block + 1) * stride];
                for &(n, sid, node_world, depth) in chosen.iter() {
                    let s = m.slots[sid];
                    for b in m.batches.iter().skip(s.batch_start).take(s.batch_count) {
                        let end = u64::from(b.index_start) + u64::from(b.index_count);
                        if end > mesh.indices.len() as u64 || b.index_count % 3 != 0 {
                            bad_batches += 1;
                            continue;
                        }
                        let row = usize::from(b.material_index).min(m.rows.len());
                        let r = *rows[row].get_or_insert_with(|| {
                            Resolved::of(table.get(row), m.lightmap, time_ms)
                        });
                        let (phase, sort_key) = if r.transparent {
                            let q = (depth.max(0.0) / DISTANCE_QUANTUM).min(u32::MAX as f32) as u64;
                            (RenderPhase::Transparent, u64::from(u32::MAX) - q)
                        } else if r.state.alpha_test {
                            (RenderPhase::AlphaTested, r.key)
                        } else {
                            (RenderPhase::OpaqueModels, r.key)
                        };
                        items.push(DrawItem {
                            object: id,
                            node: n as u32,
                            slot: sid as u32,
                            mesh: m.mesh,
                            batch_flags: b.batch_flags,
                            index_start: b.index_start,
                            index_count: u32::from(b.index_count),
                            base_vertex: b.base_vertex,
                            world: node_world.into(),
                            material: r.handle,
                            phase_a: r.phase_a,
                            phase_b: r.phase_b,
                            phase_t: r.phase_t,
                            phase,
                            sort_key,
                            insertion,
                            state: r.state,
                        });
                        insertion += 1;
                    }
                }
            }
            if !any_visible {
                skipped.push(SkippedObject {
                    id,
                    reason: SkipReason::Culled,
                });
            }
        }
        // PD-RENDER-SKY-WEATHER: the sky schedule's weather at this time, as its owner
        // broadcasts it.
        let weather = assets
            .sky_schedule
            .as_ref()
            .map(|s| s.weather_at(time_ms).quantised());
        // PD-RENDER-SKY: the sky last, where nothing else was drawn.
        if let Some(sky) = assets.sky {
            let texture = sky.texture_for(weather.as_ref());
            let mut item =
                crate::sky::sky_item(sky.mesh, texture, camera.position, sky.index_count);
            item.insertion = insertion;
            items.push(item);
        }
        // `insertion` is unique: the unstable sort gives the one (phase, key, insertion)
        // order.
        items.sort_unstable_by_key(|i| (i.phase, i.sort_key, i.insertion));
        *last_lens = [visible.len(), skipped.len(), nodes.len(), items.len()];
        self.stats = BuildStats {
            objects: snapshot.objects.len(),
            visible: visible.len(),
            items: items.len(),
            bad_batches,
        };
        RenderFrame {
            frame: snapshot.frame,
            tick: snapshot.tick,
            time_ms,
            camera: camera.to_abi(w, h),
            lighting: match &weather {
                Some(w) => crate::sky::weather_lighting(params.lighting, w),
                None => params.lighting,
            },
            target: params.target,
            resources: self.assets.resources.clone(),
            visible: visible.into(),
            skipped: skipped.into(),
            nodes: nodes.into(),
            items: items.into(),
        }
    }
}

/// The mount node's matrix of `mount` at the current poses (identity when missing).
fn mount_matrix(poses: &[Option<Vec<Mat4>>], mount: MountRef) -> Mat4 {
    poses
        .get(mount.parent_model)
        .and_then(|p| p.as_deref())
        .and_then(|p| p.get(mount.node))
        .copied()
        .unwrap_or(Mat4::IDENTITY)
}

/// The [`Bound`] of `placed` at `lod` (`None`: no node with a slot, or a value that is
/// not finite — then every object takes the per-node test).
fn bound_of(
    placed: &[PlacedModel],
    lod: usize,
    assets: &SceneAssets,
    poses: &[Option<Vec<Mat4>>],
    slot_lists: &[[Vec<(usize, usize)>; 3]],
) -> Option<Bound> {
    let centres = || {
        placed.iter().flat_map(move |p| {
            let m = &assets.models[p.model];
            let pose: &[Mat4] = poses[p.model].as_deref().unwrap_or(&[]);
            let mount = p.mount.map_or(Mat4::IDENTITY, |r| mount_matrix(poses, r));
            slot_lists[p.model][lod].iter().map(move |&(n, sid)| {
                let node = pose.get(n).copied().unwrap_or(Mat4::IDENTITY);
                let s = m.slots[sid];
                (
                    mount.transform_point3(node.transform_point3(s.centre)),
                    s.radius,
                )
            })
        })
    };
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    let mut radius = f32::NEG_INFINITY;
    for (c, r) in centres() {
        if !c.is_finite() || !r.is_finite() {
            return None;
        }
        lo = lo.min(c);
        hi = hi.max(c);
        radius = radius.max(r);
    }
    if !radius.is_finite() {
        return None;
    }
    let centre = (lo + hi) * 0.5;
    let reach = centres()
        .map(|(c, _)| c.distance(centre))
        .fold(0.0f32, f32::max);
    (centre.is_finite() && reach.is_finite()).then_some(Bound {
        centre,
        reach,
        radius,
    })
}

impl Bound {
    /// True when every node sphere of an object at `object_matrix` (largest scale
    /// `max_scale`) is surely outside `frustum`: the whole bound, grown by
    /// [`PRE_CULL_SLACK`], is. The object matrix stretches distances by at most its
    /// linear part's Frobenius norm; the frustum test is a signed distance to each plane,
    /// so a sphere outside holds only spheres outside. Anything not finite: `false`.
    fn surely_culled(
        &self,
        object_matrix: &Mat4,
        max_scale: f32,
        view: &Mat4,
        frustum: &Frustum,
        eye: Vec3,
    ) -> bool {
        let centre = object_matrix.transform_point3(self.centre);
        let stretch = (object_matrix.x_axis.truncate().length_squared()
            + object_matrix.y_axis.truncate().length_squared()
            + object_matrix.z_axis.truncate().length_squared())
        .sqrt();
        let radius = stretch * self.reach + max_scale * self.radius;
        let slack = PRE_CULL_SLACK
            * (1.0
                + centre.abs().max_element()
                + eye.abs().max_element()
                + stretch * self.centre.abs().max_element()
                + radius.abs());
        let v = view.transform_point3(centre);
        let r = radius + slack;
        v.is_finite() && r.is_finite() && frustum.culls(v, r)
    }
}

/// Unit vector helper for callers building their own lighting.
pub fn sun_direction(v: Vec3) -> iron3d_abi::Vec3f {
    v.try_normalize().unwrap_or(Vec3::Z).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn animation_time_loops_over_the_timeline_at_the_decided_rate() {
        assert_eq!(animation_time(0, 8), 0.0);
        assert_eq!(animation_time(250, 8), 2.5);
        assert_eq!(
            animation_time(800, 8),
            0.0,
            "8 frames at 10/s loop every 800 ms"
        );
        assert_eq!(
            animation_time(1_234, 0),
            0.0,
            "static models stay at time 0"
        );
    }

    #[test]
    fn lod_follows_the_distance_thresholds() {
        assert_eq!(lod_for(0.0), 0);
        assert_eq!(lod_for(LOD1_DISTANCE), 1);
        assert_eq!(lod_for(LOD2_DISTANCE - 0.1), 1);
        assert_eq!(lod_for(LOD2_DISTANCE), 2);
    }

    #[test]
    fn surfaces_map_to_phases_and_fixed_function_state() {
        let s = |mode, two_sided| Surface {
            mode,
            alpha_ref: 128,
            two_sided,
        };
        let (st, tr) = state_for(
            3,
            NO_TEXTURE,
            s(SurfaceMode::Opaque, false),
            true,
            [1.0, 1.0],
        );
        assert!(
            !tr && st.depth.write && st.blend == BlendMode::Opaque && st.cull == CullMode::Back
        );
        assert_eq!(st.stages[0].op, TextureOp::Modulate);
        assert_eq!(
            st.stages[1].op,
            TextureOp::Disable,
            "no lightmap: stage 1 off, slot -1"
        );
        let (st, tr) = state_for(3, 4, s(SurfaceMode::AlphaTested, true), true, [1.0, 1.0]);
        assert!(!tr && st.alpha_test && st.alpha_ref == 128 && st.cull == CullMode::None);
        assert_eq!(
            (st.stages[1].texture, st.stages[1].op),
            (4, TextureOp::Modulate)
        );
        let (st, tr) = state_for(3, 4, s(SurfaceMode::AlphaBlended, false), true, [1.0, 1.0]);
        assert!(tr && !st.depth.write && st.blend == BlendMode::AlphaBlend);
        let (st, tr) = state_for(3, 4, s(SurfaceMode::Additive, false), true, [1.0, 1.0]);
        assert!(tr && st.blend == BlendMode::Additive);
        let (st, tr) = state_for(3, 4, s(SurfaceMode::Unknown(9), false), true, [1.0, 1.0]);
        assert!(
            !tr && st.blend == BlendMode::Opaque,
            "unknown modes draw opaque (named rule)"
        );
        let (st, _) = state_for(NO_TEXTURE, NO_TEXTURE, Surface::OPAQUE, true, [1.0, 1.0]);
        assert_eq!(st.stages[0].op, TextureOp::Disable, "untextured surface");
    }
}
