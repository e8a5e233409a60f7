//! (2.11) The effects draw: the frame's effect primitives as camera-facing quads, built
//! on the CPU into one vertex buffer per frame and drawn in list order with one
//! premultiplied-alpha pipeline, at the end of the 3D render pass, one draw call per run
//! of consecutive quads sharing a sprite texture (see the crate docs, "Effects").

use crate::renderer::{shader_stages, vertex_input, vk};
use crate::{RenderError, shaders};
use glam::{Mat4, Vec4};
use iron3d_abi::{Camera, EffectPrimitive};
use std::sync::Arc;
use vulkano::buffer::{Buffer, BufferContents, BufferCreateInfo, BufferUsage, Subbuffer};
use vulkano::command_buffer::{AutoCommandBufferBuilder, PrimaryAutoCommandBuffer};
use vulkano::descriptor_set::allocator::StandardDescriptorSetAllocator;
use vulkano::descriptor_set::layout::DescriptorSetLayout;
use vulkano::descriptor_set::{DescriptorSet, WriteDescriptorSet};
use vulkano::device::Device;
use vulkano::format::Format;
use vulkano::image::view::ImageView;
use vulkano::memory::allocator::{AllocationCreateInfo, MemoryTypeFilter, StandardMemoryAllocator};
use vulkano::pipeline::graphics::GraphicsPipelineCreateInfo;
use vulkano::pipeline::graphics::color_blend::{
    AttachmentBlend, BlendFactor, BlendOp, ColorBlendAttachmentState, ColorBlendState,
};
use vulkano::pipeline::graphics::depth_stencil::{CompareOp, DepthState, DepthStencilState};
use vulkano::pipeline::graphics::input_assembly::InputAssemblyState;
use vulkano::pipeline::graphics::multisample::MultisampleState;
use vulkano::pipeline::graphics::rasterization::{CullMode, RasterizationState};
use vulkano::pipeline::graphics::subpass::PipelineSubpassType;
use vulkano::pipeline::graphics::viewport::ViewportState;
use vulkano::pipeline::{DynamicState, GraphicsPipeline, PipelineBindPoint, PipelineLayout};
use vulkano::render_pass::{RenderPass, Subpass};

/// A point light's glow radius and opacity (the interface's, shared by the renderers).
pub use iron3d_abi::effects::{GLOW_OPACITY, GLOW_RADIUS};

/// One effect vertex: clip-space position (Direct3D, the shader flips y), colour with
/// the primitive's opacity in `w`, sprite coordinates, 1 for an additive primitive
/// (0: alpha-blended) and 1 for a textured one (0: the soft sprite).
#[derive(BufferContents, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub(crate) struct EffectVertex {
    pub(crate) clip: [f32; 4],
    pub(crate) colour: [f32; 4],
    pub(crate) sprite: [f32; 2],
    pub(crate) additive: f32,
    pub(crate) textured: f32,
}

/// One primitive as a quad: clip-space corners in order around it, the sprite
/// coordinates of each corner, colour and opacity, and whether it adds (else it mixes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct EffectQuad {
    pub(crate) clip: [Vec4; 4],
    pub(crate) sprite: [[f32; 2]; 4],
    pub(crate) colour: [f32; 4],
    pub(crate) additive: bool,
}

/// The quad of `p` seen through `view` and `projection`: the interface's
/// [`iron3d_abi::effects::effect_quad`], the geometry the software reference draws.
pub(crate) fn effect_quad(
    view: &Mat4,
    projection: &Mat4,
    p: &EffectPrimitive,
) -> Option<EffectQuad> {
    let q = iron3d_abi::effects::effect_quad(view, projection, p)?;
    Some(EffectQuad {
        clip: q.clip,
        sprite: q.sprite,
        colour: [q.colour[0], q.colour[1], q.colour[2], q.opacity],
        additive: q.additive,
    })
}

/// Whether all four corners are outside one plane of the view volume (or not finite:
/// such a quad is left out rather than handed to the GPU).
fn outside(c: &[Vec4; 4]) -> bool {
    let all = |f: &dyn Fn(&Vec4) -> bool| c.iter().all(f);
    !c.iter().all(|p| p.is_finite())
        || all(&|p| p.x > p.w)
        || all(&|p| p.x < -p.w)
        || all(&|p| p.y > p.w)
        || all(&|p| p.y < -p.w)
        || all(&|p| p.z < 0.0)
        || all(&|p| p.z > p.w)
}

/// Consecutive quads of one frame drawn with one texture set.
struct Run {
    first_vertex: u32,
    vertices: u32,
    set: Arc<DescriptorSet>,
}

/// The effects of one frame, ready to record: its vertices are in the pass's buffer.
pub(crate) struct PreparedEffects {
    vertices: Subbuffer<[EffectVertex]>,
    runs: Vec<Run>,
    /// Quads in the buffer.
    pub(crate) quads: u32,
}

/// The effects draw: its pipeline in the 3D render pass, the vertex buffer reused between
/// frames and the CPU scratch list.
pub(crate) struct EffectsPass {
    memory: Arc<StandardMemoryAllocator>,
    descriptors: Arc<StandardDescriptorSetAllocator>,
    pipeline: Arc<GraphicsPipeline>,
    layout: Arc<PipelineLayout>,
    set_layout: Arc<DescriptorSetLayout>,
    /// The set of the untextured quads (a white texel the shader does not read).
    white_set: Arc<DescriptorSet>,
    /// Reused between frames (every frame waits for its fence), grown when too small.
    vertices: Option<Subbuffer<[EffectVertex]>>,
    scratch: Vec<EffectVertex>,
}

impl EffectsPass {
    /// Compiles the effects shader and creates the pipeline in subpass 0 of
    /// `render_pass` (the 3D pass: colour and depth); `white` backs the untextured quads.
    pub(crate) fn new(
        device: &Arc<Device>,
        memory: &Arc<StandardMemoryAllocator>,
        descriptors: &Arc<StandardDescriptorSetAllocator>,
        render_pass: &Arc<RenderPass>,
        white: Arc<ImageView>,
    ) -> Result<Self, RenderError> {
        let (stages, layout) = shader_stages(
            device,
            &shaders::effects_spirv()?,
            "vs_effect",
            "fs_effect",
            "effects",
        )?;
        let subpass = Subpass::from(render_pass.clone(), 0)
            .ok_or_else(|| RenderError::Vulkan("effects: no subpass 0".into()))?;
        let pipeline = |blend: AttachmentBlend| {
            GraphicsPipeline::new(
                device.clone(),
                None,
                GraphicsPipelineCreateInfo {
                    stages: stages.iter().cloned().collect(),
                    vertex_input_state: Some(vertex_input::<EffectVertex>(&[
                        (Format::R32G32B32A32_SFLOAT, 0),
                        (Format::R32G32B32A32_SFLOAT, 16),
                        (Format::R32G32_SFLOAT, 32),
                        (Format::R32_SFLOAT, 40),
                        (Format::R32_SFLOAT, 44),
                    ])),
                    input_assembly_state: Some(InputAssemblyState::default()),
                    viewport_state: Some(ViewportState::default()),
                    rasterization_state: Some(RasterizationState {
                        cull_mode: CullMode::None,
                        ..Default::default()
                    }),
                    multisample_state: Some(MultisampleState::default()),
                    // Tested against the world's depth, never written.
                    depth_stencil_state: Some(DepthStencilState {
                        depth: Some(DepthState {
                            write_enable: false,
                            compare_op: CompareOp::LessOrEqual,
                        }),
                        ..Default::default()
                    }),
                    color_blend_state: Some(ColorBlendState::with_attachment_states(
                        1,
                        ColorBlendAttachmentState {
                            blend: Some(blend),
                            ..Default::default()
                        },
                    )),
                    dynamic_state: [DynamicState::Viewport].into_iter().collect(),
                    subpass: Some(PipelineSubpassType::BeginRenderPass(subpass.clone())),
                    ..GraphicsPipelineCreateInfo::layout(layout.clone())
                },
            )
            .map_err(vk("effects pipeline"))
        };
        // Premultiplied: the shader writes (src·a, a) for an alpha-blended primitive and
        // (src·a, 0) for an additive one, so `out = src_out + dst·(1 − src_out.a)` is
        // `src·a + dst·(1 − a)` (alpha `a + dst_a·(1 − a)`) or `dst + src·a` (alpha
        // kept): both blends in one pipeline, one draw call, list order kept.
        let pipeline = pipeline(AttachmentBlend {
            src_color_blend_factor: BlendFactor::One,
            dst_color_blend_factor: BlendFactor::OneMinusSrcAlpha,
            color_blend_op: BlendOp::Add,
            src_alpha_blend_factor: BlendFactor::One,
            dst_alpha_blend_factor: BlendFactor::OneMinusSrcAlpha,
            alpha_blend_op: BlendOp::Add,
        })?;
        let set_layout = layout
            .set_layouts()
            .first()
            .cloned()
            .ok_or_else(|| RenderError::Shader("effects: no descriptor set 0".into()))?;
        let white_set = sprite_set(descriptors, &set_layout, white)?;
        Ok(Self {
            memory: memory.clone(),
            descriptors: descriptors.clone(),
            pipeline,
            layout,
            set_layout,
            white_set,
            vertices: None,
            scratch: Vec::new(),
        })
    }

    /// The descriptor set that draws quads with the sprite texture `view`.
    pub(crate) fn texture_set(
        &self,
        view: Arc<ImageView>,
    ) -> Result<Arc<DescriptorSet>, RenderError> {
        sprite_set(&self.descriptors, &self.set_layout, view)
    }

    /// Builds the quads of `primitives` seen through `camera` (list order, skipped ones
    /// left out, ones entirely outside the view volume too) into the vertex buffer;
    /// `None` when none is left. `textures` holds, per effect frame texture name, the
    /// set of its texture (`None`: not loaded); a particle or billboard whose texture
    /// has a set draws textured (PD-RENDER-EFFECT-TEXTURES), everything else soft.
    pub(crate) fn prepare(
        &mut self,
        camera: &Camera,
        primitives: &[EffectPrimitive],
        textures: &[Option<Arc<DescriptorSet>>],
    ) -> Result<Option<PreparedEffects>, RenderError> {
        let view = Mat4::from(camera.view);
        let projection = Mat4::from(camera.projection);
        self.scratch.clear();
        let mut runs: Vec<Run> = Vec::new();
        // One draw call: its vertex count must fit a `u32`.
        let max_quads = (u32::MAX / 6) as usize;
        for p in primitives {
            let Some(q) = effect_quad(&view, &projection, p) else {
                continue;
            };
            if outside(&q.clip) {
                continue;
            }
            if self.scratch.len() / 6 >= max_quads {
                break;
            }
            let additive = if q.additive { 1.0 } else { 0.0 };
            let set = iron3d_abi::effects::textured_kind(p.kind)
                .then(|| textures.get(p.texture as usize).cloned().flatten())
                .flatten();
            let textured = if set.is_some() { 1.0 } else { 0.0 };
            let set = set.unwrap_or_else(|| self.white_set.clone());
            let v = |i: usize| EffectVertex {
                clip: q.clip[i].to_array(),
                colour: q.colour,
                sprite: q.sprite[i],
                additive,
                textured,
            };
            let first = self.scratch.len() as u32;
            self.scratch
                .extend_from_slice(&[v(0), v(1), v(2), v(0), v(2), v(3)]);
            match runs.last_mut() {
                Some(r) if Arc::ptr_eq(&r.set, &set) => r.vertices += 6,
                _ => runs.push(Run {
                    first_vertex: first,
                    vertices: 6,
                    set,
                }),
            }
        }
        if self.scratch.is_empty() {
            return Ok(None);
        }
        let n = self.scratch.len() as u64;
        let buffer = match &self.vertices {
            Some(b) if b.len() >= n => b.clone(),
            _ => {
                let b = Buffer::new_slice::<EffectVertex>(
                    self.memory.clone(),
                    BufferCreateInfo {
                        usage: BufferUsage::VERTEX_BUFFER,
                        ..Default::default()
                    },
                    AllocationCreateInfo {
                        memory_type_filter: MemoryTypeFilter::PREFER_DEVICE
                            | MemoryTypeFilter::HOST_SEQUENTIAL_WRITE,
                        ..Default::default()
                    },
                    n.next_power_of_two().max(256),
                )
                .map_err(vk("effects vertex buffer"))?;
                self.vertices = Some(b.clone());
                b
            }
        };
        let used = buffer.slice(0..n);
        used.write()
            .map_err(vk("effects vertex write"))?
            .copy_from_slice(&self.scratch);
        Ok(Some(PreparedEffects {
            vertices: used,
            runs,
            quads: (n / 6) as u32,
        }))
    }

    /// Records the draws, inside the 3D render pass after the world's items (the
    /// viewport is already set): one draw call per run of quads sharing a texture set,
    /// the runs in list order (Vulkan blends a draw's primitives, and the draws, in
    /// their order).
    pub(crate) fn record(
        &self,
        b: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        prepared: &PreparedEffects,
    ) -> Result<(), RenderError> {
        b.bind_pipeline_graphics(self.pipeline.clone())
            .map_err(vk("bind effects pipeline"))?
            .bind_vertex_buffers(0, prepared.vertices.clone())
            .map_err(vk("bind effects vertices"))?;
        for run in &prepared.runs {
            b.bind_descriptor_sets(
                PipelineBindPoint::Graphics,
                self.layout.clone(),
                0,
                run.set.clone(),
            )
            .map_err(vk("bind effects texture"))?;
            // SAFETY: the runs partition the vertex slice bound above.
            unsafe {
                b.draw(run.vertices, 1, run.first_vertex, 0)
                    .map_err(vk("effects draw"))?;
            }
        }
        Ok(())
    }
}

/// The effects descriptor set of the sprite texture `view` (read by `textureLoad`, no
/// sampler).
fn sprite_set(
    descriptors: &Arc<StandardDescriptorSetAllocator>,
    layout: &Arc<DescriptorSetLayout>,
    view: Arc<ImageView>,
) -> Result<Arc<DescriptorSet>, RenderError> {
    DescriptorSet::new(
        descriptors.clone(),
        layout.clone(),
        [WriteDescriptorSet::image_view(0, view)],
        [],
    )
    .map_err(vk("effects descriptor set"))
}

#[cfg(test)]
mod tests;
