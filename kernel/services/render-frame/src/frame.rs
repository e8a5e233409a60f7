//! Building one frame (tome V "Полный кадр", FORMATS §13.6–13.7): per object in queue
//! order — model lookup, LOD by distance, node matrices from the animation pose, slot
//! selection, bounds culling — and only then material resolve (phase selection, texture,
//! lightmap, legacy state) into draw items, sorted by render phase and stable keys.
//!
//! A unit DAT component mounted on its root model (an EXTO child, PD-UNIT-ROLE) is drawn
//! at `object × mount node (parent model's pose at the frame's time) × node`; every
//! other model at `object × node`.

use crate::assets::{MaterialRow, SceneAssets};
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

fn lod_for(distance: f32) -> usize {
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
fn resolve_row(row: Option<&MaterialRow>, time_ms: u64) -> (PhaseSelection, u32, Surface, u32) {
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

/// The legacy state and render phase of a surface (PD-MAT-4 → fixed function).
fn state_for(
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

/// Builds frames from one mission's assets. Reuses its scratch buffers between frames.
#[derive(Debug)]
pub struct FrameBuilder {
    assets: SceneAssets,
    /// Per model: node matrices (model space) at the current animation time.
    poses: Vec<Option<Vec<Mat4>>>,
    stats: BuildStats,
}

impl FrameBuilder {
    /// A builder over `assets`.
    pub fn new(assets: SceneAssets) -> Self {
        let n = assets.models.len();
        Self {
            assets,
            poses: vec![None; n],
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

    /// Builds the frame for `snapshot` as seen through `params`.
    pub fn build(&mut self, snapshot: &RenderSnapshot, params: &FrameParams) -> RenderFrame {
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
                    DrawItem {
                        object: 0,
                        node: 0,
                        slot: 0,
                        mesh: t.mesh,
                        batch_flags: 0,
                        index_start: g.index_start,
                        index_count: g.index_count,
                        base_vertex: 0,
                        world: Mat4::IDENTITY.into(),
                        material: handle,
                        phase_a: sel.phase_a,
                        phase_b: sel.phase_b,
                        phase_t: sel.t(),
                        phase,
                        sort_key: (state.pipeline_key() << 32) | u64::from(handle),
                        insertion: 0,
                        state,
                    },
                );
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
                            resolve_row(m.rows.get(usize::from(b.material_index)), time_ms);
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
        items.sort_by_key(|i| (i.phase, i.sort_key, i.insertion));
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
            lighting: params.lighting,
            target: params.target,
            resources: self.assets.resources.clone(),
            visible: visible.into(),
            skipped: skipped.into(),
            nodes: nodes.into(),
            items: items.into(),
        }
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
