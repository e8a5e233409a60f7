//! (2.4) The screen-overlay pass: the [`Overlay`]'s quads drawn over the finished 3D
//! frame, in list order, by one pipeline (see the crate docs, "The overlay pass").

use crate::renderer::{COLOR_FORMAT, create_texture, vk};
use crate::{RenderError, shaders};
use iron3d_abi::{NO_TEXTURE, Overlay, OverlayQuad, TextureLevel};
use std::collections::BTreeMap;
use std::sync::Arc;
use vulkano::buffer::{Buffer, BufferContents, BufferCreateInfo, BufferUsage, Subbuffer};
use vulkano::command_buffer::{
    AutoCommandBufferBuilder, PrimaryAutoCommandBuffer, RenderPassBeginInfo, SubpassBeginInfo,
    SubpassContents, SubpassEndInfo,
};
use vulkano::descriptor_set::allocator::StandardDescriptorSetAllocator;
use vulkano::descriptor_set::layout::DescriptorSetLayout;
use vulkano::descriptor_set::{DescriptorSet, WriteDescriptorSet};
use vulkano::device::Device;
use vulkano::format::Format;
use vulkano::image::Image;
use vulkano::image::sampler::{Filter, Sampler, SamplerAddressMode, SamplerCreateInfo};
use vulkano::image::view::ImageView;
use vulkano::memory::allocator::{AllocationCreateInfo, MemoryTypeFilter, StandardMemoryAllocator};
use vulkano::pipeline::graphics::GraphicsPipelineCreateInfo;
use vulkano::pipeline::graphics::color_blend::{
    AttachmentBlend, BlendFactor, BlendOp, ColorBlendAttachmentState, ColorBlendState,
    ColorComponents,
};
use vulkano::pipeline::graphics::input_assembly::InputAssemblyState;
use vulkano::pipeline::graphics::multisample::MultisampleState;
use vulkano::pipeline::graphics::rasterization::{CullMode, RasterizationState};
use vulkano::pipeline::graphics::subpass::PipelineSubpassType;
use vulkano::pipeline::graphics::viewport::{Viewport, ViewportState};
use vulkano::pipeline::{DynamicState, GraphicsPipeline, PipelineBindPoint, PipelineLayout};
use vulkano::render_pass::{Framebuffer, FramebufferCreateInfo, RenderPass, Subpass};

/// One overlay vertex: clip-space position, texture coordinate, RGBA8 colour.
#[derive(BufferContents, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub(crate) struct OverlayVertex {
    pub(crate) position: [f32; 2],
    pub(crate) uv: [f32; 2],
    pub(crate) colour: [u8; 4],
}

/// Overlay textures uploaded for one [`Overlay::textures_id`]: the descriptor set of each
/// index used so far (`None`: missing or malformed, its quads are skipped).
#[derive(Default)]
struct TextureCache {
    id: Option<u64>,
    sets: BTreeMap<u32, Option<Arc<DescriptorSet>>>,
}

/// Consecutive quads drawn with one descriptor set.
struct Batch {
    set: Arc<DescriptorSet>,
    first: u32,
    count: u32,
}

/// The overlay of one frame, ready to record: its vertices are in the pass's buffer.
pub(crate) struct PreparedOverlay {
    vertices: Subbuffer<[OverlayVertex]>,
    batches: Vec<Batch>,
}

/// The overlay pass: its render pass (colour only, loaded and stored), pipeline, sampler,
/// the white texture's set for solid quads, the texture cache and the vertex buffer.
pub(crate) struct OverlayPass {
    memory: Arc<StandardMemoryAllocator>,
    descriptors: Arc<StandardDescriptorSetAllocator>,
    render_pass: Arc<RenderPass>,
    layout: Arc<PipelineLayout>,
    set_layout: Arc<DescriptorSetLayout>,
    pipeline: Arc<GraphicsPipeline>,
    sampler: Arc<Sampler>,
    white: Arc<DescriptorSet>,
    cache: TextureCache,
    /// Reused between frames (every frame waits for its fence), grown when too small.
    vertices: Option<Subbuffer<[OverlayVertex]>>,
    /// Texture uploads done since the renderer was created (for tests).
    pub(crate) uploads: u64,
}

/// Whether `l` is a usable overlay texture: the reference's rule (non-empty, exactly
/// `width·height·4` bytes) and within the device's image size limit `max`.
fn usable(l: &TextureLevel, max: u32) -> bool {
    let need = u64::from(l.width)
        .checked_mul(u64::from(l.height))
        .and_then(|n| n.checked_mul(4));
    l.width > 0
        && l.height > 0
        && l.width <= max
        && l.height <= max
        && need == Some(l.rgba.len() as u64)
}

/// The six vertices (two triangles) of `q` on a `w`×`h` target, or `None` when it covers
/// nothing (a non-finite or empty rectangle, or one entirely off the target).
///
/// The rectangle is clipped to the target here, with the texture coordinates at the
/// clipped edges computed by the reference's formula
/// `u(x) = u0 + (x − left) / (right − left) · (u1 − u0)`, so the GPU only ever sees
/// clip-space positions in `[−1, 1]`; non-finite texture coordinates become 0. Positions
/// go from target pixels (top-left origin, y down) to Vulkan clip space (y down as well):
/// `x / w · 2 − 1`, `y / h · 2 − 1`.
pub(crate) fn quad_vertices(q: &OverlayQuad, w: u32, h: u32) -> Option<[OverlayVertex; 6]> {
    let [left, top, right, bottom] = q.rect;
    if !(left.is_finite() && top.is_finite() && right.is_finite() && bottom.is_finite()) {
        return None;
    }
    let (wf, hf) = (w as f32, h as f32);
    let (x0, x1) = (left.max(0.0), right.min(wf));
    let (y0, y1) = (top.max(0.0), bottom.min(hf));
    if !(x0 < x1 && y0 < y1) {
        return None;
    }
    let [u0, v0, u1, v1] = if q.texture == NO_TEXTURE {
        [0.0; 4]
    } else {
        q.uv
    };
    let finite = |t: f32| if t.is_finite() { t } else { 0.0 };
    let u = |x: f32| finite(u0 + (x - left) / (right - left) * (u1 - u0));
    let v = |y: f32| finite(v0 + (y - top) / (bottom - top) * (v1 - v0));
    let vert = |x: f32, y: f32| OverlayVertex {
        position: [x / wf * 2.0 - 1.0, y / hf * 2.0 - 1.0],
        uv: [u(x), v(y)],
        colour: q.color,
    };
    let (lt, rt, rb, lb) = (vert(x0, y0), vert(x1, y0), vert(x1, y1), vert(x0, y1));
    Some([lt, rt, rb, lt, rb, lb])
}

impl OverlayPass {
    /// Compiles the overlay shader and creates the render pass, pipeline, sampler and the
    /// descriptor set of `white` (the 1×1 white texture of solid quads).
    pub(crate) fn new(
        device: &Arc<Device>,
        memory: &Arc<StandardMemoryAllocator>,
        descriptors: &Arc<StandardDescriptorSetAllocator>,
        white: Arc<ImageView>,
    ) -> Result<Self, RenderError> {
        let render_pass = vulkano::single_pass_renderpass!(
            device.clone(),
            attachments: {
                color: {
                    format: COLOR_FORMAT,
                    samples: 1,
                    load_op: Load,
                    store_op: Store,
                },
            },
            pass: {
                color: [color],
                depth_stencil: {},
            },
        )
        .map_err(vk("overlay render pass"))?;

        let (stages, layout) = crate::renderer::shader_stages(
            device,
            &shaders::overlay_spirv()?,
            "vs_overlay",
            "fs_overlay",
            "overlay",
        )?;
        let set_layout = layout
            .set_layouts()
            .first()
            .cloned()
            .ok_or_else(|| RenderError::Shader("overlay: no descriptor set 0".into()))?;

        let vertex_input_state = crate::renderer::vertex_input::<OverlayVertex>(&[
            (Format::R32G32_SFLOAT, 0),
            (Format::R32G32_SFLOAT, 8),
            (Format::R8G8B8A8_UNORM, 16),
        ]);
        let subpass = Subpass::from(render_pass.clone(), 0)
            .ok_or_else(|| RenderError::Vulkan("overlay: no subpass 0".into()))?;
        let pipeline = GraphicsPipeline::new(
            device.clone(),
            None,
            GraphicsPipelineCreateInfo {
                stages: stages.iter().cloned().collect(),
                vertex_input_state: Some(vertex_input_state),
                input_assembly_state: Some(InputAssemblyState::default()),
                viewport_state: Some(ViewportState::default()),
                // Screen-space quads: no culling, no depth (the pass has no depth
                // attachment).
                rasterization_state: Some(RasterizationState {
                    cull_mode: CullMode::None,
                    ..Default::default()
                }),
                multisample_state: Some(MultisampleState::default()),
                depth_stencil_state: None,
                color_blend_state: Some(ColorBlendState::with_attachment_states(
                    1,
                    ColorBlendAttachmentState {
                        // dst = src·a + dst·(1 − a) on colour; the target's alpha is kept.
                        blend: Some(AttachmentBlend {
                            src_color_blend_factor: BlendFactor::SrcAlpha,
                            dst_color_blend_factor: BlendFactor::OneMinusSrcAlpha,
                            color_blend_op: BlendOp::Add,
                            src_alpha_blend_factor: BlendFactor::Zero,
                            dst_alpha_blend_factor: BlendFactor::One,
                            alpha_blend_op: BlendOp::Add,
                        }),
                        color_write_mask: ColorComponents::R
                            | ColorComponents::G
                            | ColorComponents::B,
                        ..Default::default()
                    },
                )),
                dynamic_state: [DynamicState::Viewport].into_iter().collect(),
                subpass: Some(PipelineSubpassType::BeginRenderPass(subpass)),
                ..GraphicsPipelineCreateInfo::layout(layout.clone())
            },
        )
        .map_err(vk("overlay pipeline"))?;

        let sampler = Sampler::new(
            device.clone(),
            SamplerCreateInfo {
                mag_filter: Filter::Nearest,
                min_filter: Filter::Nearest,
                address_mode: [SamplerAddressMode::ClampToEdge; 3],
                ..Default::default()
            },
        )
        .map_err(vk("overlay sampler"))?;
        let white = texture_set(descriptors, &set_layout, &sampler, white)?;
        Ok(Self {
            memory: memory.clone(),
            descriptors: descriptors.clone(),
            render_pass,
            layout,
            set_layout,
            pipeline,
            sampler,
            white,
            cache: TextureCache::default(),
            vertices: None,
            uploads: 0,
        })
    }

    /// The framebuffer of the pass on a target's colour image.
    pub(crate) fn framebuffer(
        &self,
        color: Arc<ImageView>,
    ) -> Result<Arc<Framebuffer>, RenderError> {
        Framebuffer::new(
            self.render_pass.clone(),
            FramebufferCreateInfo {
                attachments: vec![color],
                ..Default::default()
            },
        )
        .map_err(vk("overlay framebuffer"))
    }

    /// Forgets every upload (after a frame whose command buffer never ran).
    pub(crate) fn reset_cache(&mut self) {
        self.cache = TextureCache::default();
    }

    /// The descriptor set of overlay texture `index` (uploaded once per `textures_id`,
    /// queued in `pending`), or `None` when it is missing or malformed.
    fn texture(
        &mut self,
        overlay: &Overlay,
        index: u32,
        max: u32,
        pending: &mut Vec<(Subbuffer<[u8]>, Arc<Image>)>,
    ) -> Result<Option<Arc<DescriptorSet>>, RenderError> {
        if let Some(s) = self.cache.sets.get(&index) {
            return Ok(s.clone());
        }
        let set = match overlay.textures.get(index as usize) {
            Some(l) if usable(l, max) => {
                let view = create_texture(&self.memory, l.width, l.height, &l.rgba, pending)?;
                self.uploads += 1;
                Some(texture_set(
                    &self.descriptors,
                    &self.set_layout,
                    &self.sampler,
                    view,
                )?)
            }
            _ => None,
        };
        self.cache.sets.insert(index, set.clone());
        Ok(set)
    }

    /// Builds the vertices and batches of `overlay` on a `w`×`h` target (textures not
    /// seen for this `textures_id` are queued for upload in `pending`); `None` when no
    /// quad is drawn. Also answers the number of quads skipped for a missing or
    /// malformed texture.
    pub(crate) fn prepare(
        &mut self,
        overlay: &Overlay,
        w: u32,
        h: u32,
        max_texture: u32,
        pending: &mut Vec<(Subbuffer<[u8]>, Arc<Image>)>,
    ) -> Result<(Option<PreparedOverlay>, u32), RenderError> {
        if self.cache.id != Some(overlay.textures_id) {
            self.cache = TextureCache {
                id: Some(overlay.textures_id),
                ..Default::default()
            };
        }
        let mut skipped = 0u32;
        let mut vertices: Vec<OverlayVertex> = Vec::new();
        let mut batches: Vec<Batch> = Vec::new();
        for q in overlay.quads.iter() {
            let set = if q.texture == NO_TEXTURE {
                self.white.clone()
            } else {
                match self.texture(overlay, q.texture, max_texture, pending)? {
                    Some(s) => s,
                    None => {
                        skipped += 1;
                        continue;
                    }
                }
            };
            let Some(quad) = quad_vertices(q, w, h) else {
                continue;
            };
            let Ok(first) = u32::try_from(vertices.len()) else {
                break;
            };
            vertices.extend_from_slice(&quad);
            match batches.last_mut() {
                Some(b) if Arc::ptr_eq(&b.set, &set) => b.count += 6,
                _ => batches.push(Batch {
                    set,
                    first,
                    count: 6,
                }),
            }
        }
        if vertices.is_empty() {
            return Ok((None, skipped));
        }
        let n = vertices.len() as u64;
        let buffer = match &self.vertices {
            Some(b) if b.len() >= n => b.clone(),
            _ => {
                let b = Buffer::new_slice::<OverlayVertex>(
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
                    n.next_power_of_two().max(64),
                )
                .map_err(vk("overlay vertex buffer"))?;
                self.vertices = Some(b.clone());
                b
            }
        };
        let used = buffer.slice(0..n);
        used.write()
            .map_err(vk("overlay vertex write"))?
            .copy_from_slice(&vertices);
        Ok((
            Some(PreparedOverlay {
                vertices: used,
                batches,
            }),
            skipped,
        ))
    }

    /// Records the pass: over `framebuffer` (the target's colour image, loaded), every
    /// batch in order.
    pub(crate) fn record(
        &self,
        b: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        framebuffer: Arc<Framebuffer>,
        prepared: PreparedOverlay,
        w: u32,
        h: u32,
    ) -> Result<(), RenderError> {
        b.begin_render_pass(
            RenderPassBeginInfo {
                clear_values: vec![None],
                ..RenderPassBeginInfo::framebuffer(framebuffer)
            },
            SubpassBeginInfo {
                contents: SubpassContents::Inline,
                ..Default::default()
            },
        )
        .map_err(vk("begin overlay pass"))?
        .set_viewport(
            0,
            [Viewport {
                offset: [0.0, 0.0],
                extent: [w as f32, h as f32],
                depth_range: 0.0..=1.0,
            }]
            .into_iter()
            .collect(),
        )
        .map_err(vk("overlay viewport"))?
        .bind_pipeline_graphics(self.pipeline.clone())
        .map_err(vk("bind overlay pipeline"))?
        .bind_vertex_buffers(0, prepared.vertices.clone())
        .map_err(vk("bind overlay vertices"))?;
        for batch in &prepared.batches {
            b.bind_descriptor_sets(
                PipelineBindPoint::Graphics,
                self.layout.clone(),
                0,
                batch.set.clone(),
            )
            .map_err(vk("bind overlay texture"))?;
            // SAFETY: every batch lies inside the vertex slice bound above (built from
            // the same vertex list).
            unsafe {
                b.draw(batch.count, 1, batch.first, 0)
                    .map_err(vk("overlay draw"))?;
            }
        }
        b.end_render_pass(SubpassEndInfo::default())
            .map_err(vk("end overlay pass"))?;
        Ok(())
    }
}

/// The overlay descriptor set of one texture: the image and the NEAREST sampler.
fn texture_set(
    descriptors: &Arc<StandardDescriptorSetAllocator>,
    layout: &Arc<DescriptorSetLayout>,
    sampler: &Arc<Sampler>,
    view: Arc<ImageView>,
) -> Result<Arc<DescriptorSet>, RenderError> {
    DescriptorSet::new(
        descriptors.clone(),
        layout.clone(),
        [
            WriteDescriptorSet::image_view(0, view),
            WriteDescriptorSet::sampler(1, sampler.clone()),
        ],
        [],
    )
    .map_err(vk("overlay descriptor set"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quads_are_clipped_to_the_target_with_the_reference_uv() {
        // 100×50 target; the quad hangs 10 px off the left edge.
        let q = OverlayQuad {
            rect: [-10.0, 5.0, 30.0, 25.0],
            uv: [0.0, 0.0, 1.0, 1.0],
            texture: 0,
            color: [1, 2, 3, 4],
        };
        let v = quad_vertices(&q, 100, 50).unwrap();
        // Left-top, right-top, right-bottom, left-top, right-bottom, left-bottom.
        assert_eq!(v[0].position, [-1.0, 5.0 / 50.0 * 2.0 - 1.0]);
        assert_eq!(v[0].uv, [0.25, 0.0]);
        assert_eq!(
            v[2].position,
            [30.0 / 100.0 * 2.0 - 1.0, 25.0 / 50.0 * 2.0 - 1.0]
        );
        assert_eq!(v[2].uv, [1.0, 1.0]);
        assert_eq!((v[3], v[4]), (v[0], v[2]));
        assert!(v.iter().all(|x| x.colour == [1, 2, 3, 4]));
        // Solid quads ignore their uv (NaN there is harmless).
        let s = OverlayQuad {
            uv: [f32::NAN; 4],
            ..OverlayQuad::solid([0.0, 0.0, 1e30, 1e30], [9; 4])
        };
        let v = quad_vertices(&s, 100, 50).unwrap();
        assert_eq!(v[2].position, [1.0, 1.0]);
        assert!(v.iter().all(|x| x.uv == [0.0, 0.0]));
    }

    #[test]
    fn empty_non_finite_and_off_target_quads_give_no_vertices() {
        for rect in [
            [f32::NAN, 0.0, 4.0, 4.0],
            [0.0, f32::INFINITY, 4.0, 4.0],
            [3.0, 0.0, 1.0, 4.0],
            [0.0, 2.0, 4.0, 2.0],
            [-8.0, 0.0, -1.0, 4.0],
            [0.0, 60.0, 4.0, 70.0],
        ] {
            assert!(quad_vertices(&OverlayQuad::solid(rect, [255; 4]), 100, 50).is_none());
        }
        // Non-finite texture coordinates sample texel 0.
        let q = OverlayQuad {
            rect: [0.0, 0.0, 4.0, 4.0],
            uv: [f32::NAN, 0.0, 1.0, f32::INFINITY],
            texture: 0,
            color: [255; 4],
        };
        let v = quad_vertices(&q, 100, 50).unwrap();
        assert!(v.iter().all(|x| x.uv[0] == 0.0));
        assert_eq!(v[0].uv[1], 0.0);
    }

    #[test]
    fn textures_are_usable_by_the_reference_rule_and_the_device_limit() {
        let level = |w, h, n| TextureLevel {
            width: w,
            height: h,
            rgba: vec![0u8; n].into(),
        };
        assert!(usable(&level(2, 3, 24), 16));
        assert!(!usable(&level(2, 3, 25), 16), "exactly w·h·4 bytes");
        assert!(!usable(&level(2, 3, 23), 16));
        assert!(!usable(&level(0, 3, 0), 16));
        assert!(!usable(&level(32, 1, 128), 16), "past the device limit");
        assert!(
            !usable(&level(u32::MAX, u32::MAX, 4), u32::MAX),
            "no overflow"
        );
    }
}
