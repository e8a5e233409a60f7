//! [`VulkanRenderer`]: device selection, upload caches, pipelines, the per-frame command
//! buffer (3D pass with the 2.11 effects at its end, then the 2.4 overlay pass) and the
//! read-back of the colour image.

use crate::effects::EffectsPass;
use crate::overlay::OverlayPass;
use crate::present::Presenter;
use crate::{RenderError, shaders};
use abi_stable::std_types::RString;
use iron3d_abi::{
    BlendMode, CullMode, DrawItem, EffectFrame, EffectPrimitive, ImageRgba8, NO_TEXTURE, Overlay,
    RenderFrame, RenderResources, RenderStats, TextureOp, TextureStage,
};
use std::collections::BTreeMap;
use std::sync::Arc;
use vulkano::VulkanLibrary;
use vulkano::buffer::{Buffer, BufferContents, BufferCreateInfo, BufferUsage, Subbuffer};
use vulkano::command_buffer::allocator::StandardCommandBufferAllocator;
use vulkano::command_buffer::{
    AutoCommandBufferBuilder, CommandBufferUsage, CopyBufferToImageInfo, CopyImageToBufferInfo,
    PrimaryAutoCommandBuffer, RenderPassBeginInfo, SubpassBeginInfo, SubpassContents,
    SubpassEndInfo,
};
use vulkano::descriptor_set::allocator::StandardDescriptorSetAllocator;
use vulkano::descriptor_set::{DescriptorSet, WriteDescriptorSet};
use vulkano::device::physical::{PhysicalDevice, PhysicalDeviceType};
use vulkano::device::{
    Device, DeviceCreateInfo, DeviceExtensions, Queue, QueueCreateInfo, QueueFlags,
};
use vulkano::format::Format;
use vulkano::image::view::ImageView;
use vulkano::image::{Image, ImageCreateInfo, ImageType, ImageUsage};
use vulkano::instance::{Instance, InstanceCreateFlags, InstanceCreateInfo, InstanceExtensions};
use vulkano::memory::allocator::{AllocationCreateInfo, MemoryTypeFilter, StandardMemoryAllocator};
use vulkano::pipeline::graphics::GraphicsPipelineCreateInfo;
use vulkano::pipeline::graphics::color_blend::{
    AttachmentBlend, BlendFactor, BlendOp, ColorBlendAttachmentState, ColorBlendState,
};
use vulkano::pipeline::graphics::depth_stencil::{CompareOp, DepthState, DepthStencilState};
use vulkano::pipeline::graphics::input_assembly::InputAssemblyState;
use vulkano::pipeline::graphics::multisample::MultisampleState;
use vulkano::pipeline::graphics::rasterization::{self, FrontFace, RasterizationState};
use vulkano::pipeline::graphics::subpass::PipelineSubpassType;
use vulkano::pipeline::graphics::vertex_input::{
    VertexInputAttributeDescription, VertexInputBindingDescription, VertexInputRate,
    VertexInputState,
};
use vulkano::pipeline::graphics::viewport::{Viewport, ViewportState};
use vulkano::pipeline::layout::PipelineDescriptorSetLayoutCreateInfo;
use vulkano::pipeline::{
    DynamicState, GraphicsPipeline, PipelineBindPoint, PipelineLayout,
    PipelineShaderStageCreateInfo,
};
use vulkano::render_pass::{Framebuffer, FramebufferCreateInfo, RenderPass, Subpass};
use vulkano::shader::{ShaderModule, ShaderModuleCreateInfo};
use vulkano::sync::GpuFuture;

/// Largest target side accepted (the software reference's limit as well).
pub const MAX_TARGET_DIM: u32 = 16384;

/// Colour format of the offscreen image (what [`VulkanRenderer::image`] returns).
pub const COLOR_FORMAT: Format = Format::R8G8B8A8_UNORM;

/// Depth format.
pub const DEPTH_FORMAT: Format = Format::D32_SFLOAT;

/// `e` and its sources, `: `-separated (vulkano's `Validated::Error` only says "a
/// non-validation error occurred"; the cause is its source).
pub(crate) use iron3d_abi::error_chain as chain;

/// The vertex and fragment stages of a validated SPIR-V module and the pipeline layout
/// their bindings call for (`what` names the pass in errors).
pub(crate) fn shader_stages(
    device: &Arc<Device>,
    words: &[u32],
    vertex: &str,
    fragment: &str,
    what: &str,
) -> Result<([PipelineShaderStageCreateInfo; 2], Arc<PipelineLayout>), RenderError> {
    // SAFETY: the SPIR-V comes from naga's validated module.
    let module = unsafe {
        ShaderModule::new(device.clone(), ShaderModuleCreateInfo::new(words))
            .map_err(|e| RenderError::Vulkan(format!("{what} shader module: {e:?}")))?
    };
    let entry = |name: &str| {
        module
            .entry_point(name)
            .ok_or_else(|| RenderError::Shader(format!("no entry point {name}")))
    };
    let stages = [
        PipelineShaderStageCreateInfo::new(entry(vertex)?),
        PipelineShaderStageCreateInfo::new(entry(fragment)?),
    ];
    let layout_info = PipelineDescriptorSetLayoutCreateInfo::from_stages(&stages)
        .into_pipeline_layout_create_info(device.clone())
        .map_err(|e| RenderError::Vulkan(format!("{what} pipeline layout: {e:?}")))?;
    let layout = PipelineLayout::new(device.clone(), layout_info)
        .map_err(|e| RenderError::Vulkan(format!("{what} layout: {e:?}")))?;
    Ok((stages, layout))
}

/// One interleaved vertex buffer (binding 0) of `V`, with attribute `k` at location `k`:
/// `(format, byte offset)`.
pub(crate) fn vertex_input<V>(attributes: &[(Format, u32)]) -> VertexInputState {
    let mut state = VertexInputState::new().binding(
        0,
        VertexInputBindingDescription {
            stride: std::mem::size_of::<V>() as u32,
            input_rate: VertexInputRate::Vertex,
            ..Default::default()
        },
    );
    for (location, &(format, offset)) in attributes.iter().enumerate() {
        state = state.attribute(
            location as u32,
            VertexInputAttributeDescription {
                binding: 0,
                format,
                offset,
                ..Default::default()
            },
        );
    }
    state
}

/// Maps a vulkano error to [`RenderError::Vulkan`] with context.
pub(crate) fn vk<E: std::error::Error>(what: &'static str) -> impl FnOnce(E) -> RenderError {
    move |e| RenderError::Vulkan(format!("{what}: {}", chain(&e)))
}

/// One interleaved vertex: position, normal, UV0.
type GpuVertex = [f32; 8];

/// Push constants of one draw (see [`shaders::WGSL`]).
#[derive(BufferContents, Clone, Copy)]
#[repr(C)]
struct Push {
    mvp: [f32; 16],
    n0: [f32; 4],
    n1: [f32; 4],
    n2: [f32; 4],
    uv_scale: [f32; 4],
}

/// Per-frame uniform block (lighting).
#[derive(BufferContents, Clone, Copy)]
#[repr(C)]
struct FrameUniform {
    sun_dir: [f32; 4],
    sun_colour: [f32; 4],
    ambient: [f32; 4],
}

/// An uploaded mesh.
struct GpuMesh {
    vertices: Subbuffer<[GpuVertex]>,
    indices: Subbuffer<[u16]>,
    /// Vertices usable by every attribute (`min` of the three array lengths).
    vertex_count: u32,
    /// Largest index in the whole index buffer.
    max_index: u32,
    /// CPU copy of the indices for the (rare) per-range vertex check.
    cpu_indices: Vec<u16>,
}

/// Pipeline-relevant state of an item: blend, depth test, depth write, cull.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct PipelineKey(u8, bool, bool, u8);

impl PipelineKey {
    fn blend(self) -> BlendMode {
        match self.0 {
            1 => BlendMode::AlphaBlend,
            2 => BlendMode::Additive,
            _ => BlendMode::Opaque,
        }
    }
}

/// Offscreen colour + depth targets of one size, with the read-back buffer.
pub(crate) struct Targets {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) color: Arc<Image>,
    framebuffer: Arc<Framebuffer>,
    /// The overlay pass's framebuffer on the same colour image.
    overlay_framebuffer: Arc<Framebuffer>,
    readback: Subbuffer<[u8]>,
}

/// Upload caches of one [`RenderResources::id`].
#[derive(Default)]
struct ResourceCache {
    id: Option<u64>,
    meshes: BTreeMap<u32, Option<Arc<GpuMesh>>>,
    textures: BTreeMap<u32, Option<Arc<ImageView>>>,
    sets: BTreeMap<(u32, u32), Arc<DescriptorSet>>,
    /// (2.11) The effects pass's set of each texture (`None`: unusable).
    effect_sets: BTreeMap<u32, Option<Arc<DescriptorSet>>>,
}

/// The Vulkan renderer (pure API, no plugin glue): draws [`RenderFrame`]s offscreen and,
/// when the frame names a window, presents them there too.
pub struct VulkanRenderer {
    pub(crate) instance: Arc<Instance>,
    pub(crate) device: Arc<Device>,
    pub(crate) queue: Arc<Queue>,
    pub(crate) memory: Arc<StandardMemoryAllocator>,
    pub(crate) commands: Arc<StandardCommandBufferAllocator>,
    descriptors: Arc<StandardDescriptorSetAllocator>,
    render_pass: Arc<RenderPass>,
    layout: Arc<PipelineLayout>,
    stages: [PipelineShaderStageCreateInfo; 2],
    pipelines: BTreeMap<PipelineKey, Arc<GraphicsPipeline>>,
    frame_uniform: Subbuffer<FrameUniform>,
    frame_set: Arc<DescriptorSet>,
    white: Arc<ImageView>,
    cache: ResourceCache,
    /// (2.4) The screen-overlay pass and its texture cache.
    pub(crate) overlay: OverlayPass,
    /// (2.11) The effects draw (pipelines, vertex buffer).
    effects: EffectsPass,
    /// (2.11) The primitives of the last [`VulkanRenderer::set_effects`] (reused buffer).
    effect_primitives: Vec<EffectPrimitive>,
    /// (2.11) The texture names of the last [`VulkanRenderer::set_effects`].
    effect_textures: Vec<RString>,
    /// Whether `effect_primitives` waits for the next draw.
    effects_pending: bool,
    /// Effect quads drawn in the last frame.
    effect_quads: u32,
    pub(crate) targets: Option<Targets>,
    pub(crate) presenter: Option<Presenter>,
    has_frame: bool,
    /// Whether the read-back buffer holds the last frame.
    read_back: bool,
    device_name: String,
    /// Uploads recorded for the next frame's command buffer.
    pending_uploads: Vec<(Subbuffer<[u8]>, Arc<Image>)>,
}

fn device_rank(p: &Arc<PhysicalDevice>) -> u32 {
    match p.properties().device_type {
        PhysicalDeviceType::DiscreteGpu => 0,
        PhysicalDeviceType::IntegratedGpu => 1,
        PhysicalDeviceType::VirtualGpu => 2,
        PhysicalDeviceType::Other => 3,
        PhysicalDeviceType::Cpu => 4,
        _ => 5,
    }
}

impl VulkanRenderer {
    /// Creates the instance and device (a real GPU preferred, else a CPU device such as
    /// llvmpipe), the render pass, shaders and pipeline layout. Fails with
    /// [`RenderError::NoDevice`] when there is no Vulkan loader or no usable device.
    pub fn new() -> Result<Self, RenderError> {
        let no_device = |e: String| RenderError::NoDevice(e);
        let library = VulkanLibrary::new().map_err(|e| no_device(chain(&e)))?;
        let supported = *library.supported_extensions();
        let wanted = InstanceExtensions {
            khr_surface: true,
            khr_xlib_surface: true,
            khr_xcb_surface: true,
            // Only in a Wayland session: Mesa's Wayland WSI prints errors without one.
            khr_wayland_surface: std::env::var_os("WAYLAND_DISPLAY").is_some(),
            khr_portability_enumeration: true,
            ..InstanceExtensions::empty()
        };
        let enabled_extensions = supported.intersection(&wanted);
        let flags = if enabled_extensions.khr_portability_enumeration {
            InstanceCreateFlags::ENUMERATE_PORTABILITY
        } else {
            InstanceCreateFlags::empty()
        };
        let instance = Instance::new(
            library,
            InstanceCreateInfo {
                flags,
                enabled_extensions,
                application_name: Some("iron3d".into()),
                ..Default::default()
            },
        )
        .map_err(|e| no_device(format!("instance: {}", chain(&e))))?;
        let physical = instance
            .enumerate_physical_devices()
            .map_err(|e| no_device(format!("enumerate devices: {}", chain(&e))))?
            .filter(|p| {
                p.queue_family_properties()
                    .iter()
                    .any(|q| q.queue_flags.intersects(QueueFlags::GRAPHICS))
            })
            .min_by_key(device_rank)
            .ok_or_else(|| no_device("no physical device with a graphics queue".into()))?;
        let queue_family_index = physical
            .queue_family_properties()
            .iter()
            .position(|q| q.queue_flags.intersects(QueueFlags::GRAPHICS))
            .ok_or_else(|| no_device("no graphics queue".into()))?
            as u32;
        let device_name = physical.properties().device_name.clone();
        let dev_supported = physical.supported_extensions();
        let enabled_extensions = DeviceExtensions {
            khr_swapchain: dev_supported.khr_swapchain,
            khr_portability_subset: dev_supported.khr_portability_subset,
            ..DeviceExtensions::empty()
        };
        let (device, mut queues) = Device::new(
            physical,
            DeviceCreateInfo {
                queue_create_infos: vec![QueueCreateInfo {
                    queue_family_index,
                    ..Default::default()
                }],
                enabled_extensions,
                ..Default::default()
            },
        )
        .map_err(|e| no_device(format!("device {device_name}: {}", chain(&e))))?;
        let queue = queues
            .next()
            .ok_or_else(|| no_device("device without a queue".into()))?;
        tracing::info!(device = device_name.as_str(), "render-vulkan device");

        let memory = Arc::new(StandardMemoryAllocator::new_default(device.clone()));
        let commands = Arc::new(StandardCommandBufferAllocator::new(
            device.clone(),
            Default::default(),
        ));
        let descriptors = Arc::new(StandardDescriptorSetAllocator::new(
            device.clone(),
            Default::default(),
        ));
        let render_pass = vulkano::single_pass_renderpass!(
            device.clone(),
            attachments: {
                color: {
                    format: COLOR_FORMAT,
                    samples: 1,
                    load_op: Clear,
                    store_op: Store,
                },
                depth: {
                    format: DEPTH_FORMAT,
                    samples: 1,
                    load_op: Clear,
                    store_op: DontCare,
                },
            },
            pass: {
                color: [color],
                depth_stencil: {depth},
            },
        )
        .map_err(vk("render pass"))?;

        let (stages, layout) =
            shader_stages(&device, &shaders::spirv()?, "vs_main", "fs_main", "3D")?;

        let frame_uniform = Buffer::from_data(
            memory.clone(),
            BufferCreateInfo {
                usage: BufferUsage::UNIFORM_BUFFER,
                ..Default::default()
            },
            AllocationCreateInfo {
                memory_type_filter: MemoryTypeFilter::PREFER_DEVICE
                    | MemoryTypeFilter::HOST_SEQUENTIAL_WRITE,
                ..Default::default()
            },
            FrameUniform {
                sun_dir: [0.0; 4],
                sun_colour: [0.0; 4],
                ambient: [0.0; 4],
            },
        )
        .map_err(vk("uniform buffer"))?;
        let set0 = layout
            .set_layouts()
            .first()
            .cloned()
            .ok_or_else(|| RenderError::Shader("no descriptor set 0".into()))?;
        let frame_set = DescriptorSet::new(
            descriptors.clone(),
            set0,
            [WriteDescriptorSet::buffer(0, frame_uniform.clone())],
            [],
        )
        .map_err(vk("frame descriptor set"))?;

        let mut pending_uploads = Vec::new();
        let white = create_texture(&memory, 1, 1, &[255; 4], &mut pending_uploads)?;
        let overlay = OverlayPass::new(&device, &memory, &descriptors, white.clone())?;
        let effects =
            EffectsPass::new(&device, &memory, &descriptors, &render_pass, white.clone())?;
        let mut this = Self {
            instance,
            device,
            queue,
            memory,
            commands,
            descriptors,
            render_pass,
            layout,
            stages,
            pipelines: BTreeMap::new(),
            frame_uniform,
            frame_set,
            white,
            cache: ResourceCache::default(),
            overlay,
            effects,
            effect_primitives: Vec::new(),
            effect_textures: Vec::new(),
            effects_pending: false,
            effect_quads: 0,
            targets: None,
            presenter: None,
            device_name,
            pending_uploads,
            has_frame: false,
            read_back: false,
        };
        // Upload the white placeholder at once, so it is valid whatever happens later.
        let mut b = this.builder()?;
        this.record_uploads(&mut b)?;
        this.submit(b)?;
        Ok(this)
    }
}

/// Creates a sampled RGBA8 image of `w`×`h` and queues its upload from `rgba`.
pub(crate) fn create_texture(
    memory: &Arc<StandardMemoryAllocator>,
    w: u32,
    h: u32,
    rgba: &[u8],
    pending: &mut Vec<(Subbuffer<[u8]>, Arc<Image>)>,
) -> Result<Arc<ImageView>, RenderError> {
    let staging = Buffer::from_iter(
        memory.clone(),
        BufferCreateInfo {
            usage: BufferUsage::TRANSFER_SRC,
            ..Default::default()
        },
        AllocationCreateInfo {
            memory_type_filter: MemoryTypeFilter::PREFER_HOST
                | MemoryTypeFilter::HOST_SEQUENTIAL_WRITE,
            ..Default::default()
        },
        rgba.iter().copied(),
    )
    .map_err(vk("texture staging buffer"))?;
    let image = Image::new(
        memory.clone(),
        ImageCreateInfo {
            image_type: ImageType::Dim2d,
            format: COLOR_FORMAT,
            extent: [w, h, 1],
            usage: ImageUsage::TRANSFER_DST | ImageUsage::SAMPLED,
            ..Default::default()
        },
        AllocationCreateInfo::default(),
    )
    .map_err(vk("texture image"))?;
    pending.push((staging, image.clone()));
    ImageView::new_default(image).map_err(vk("texture view"))
}

/// A device-local buffer filled from `data` (at least one element).
fn device_buffer<T: BufferContents + Copy>(
    memory: &Arc<StandardMemoryAllocator>,
    usage: BufferUsage,
    data: &[T],
    fallback: T,
) -> Result<Subbuffer<[T]>, RenderError> {
    let one = [fallback];
    let data = if data.is_empty() { &one[..] } else { data };
    Buffer::from_iter(
        memory.clone(),
        BufferCreateInfo {
            usage,
            ..Default::default()
        },
        AllocationCreateInfo {
            memory_type_filter: MemoryTypeFilter::PREFER_DEVICE
                | MemoryTypeFilter::HOST_SEQUENTIAL_WRITE,
            ..Default::default()
        },
        data.iter().copied(),
    )
    .map_err(vk("mesh buffer"))
}

/// Stage op code of the shader: 0 off, 1 select, 2 modulate.
fn op_code(op: TextureOp) -> f32 {
    match op {
        TextureOp::Disable => 0.0,
        TextureOp::SelectTexture => 1.0,
        TextureOp::Modulate => 2.0,
    }
}

/// One prepared draw call.
struct Draw {
    key: PipelineKey,
    set: Arc<DescriptorSet>,
    mesh: Arc<GpuMesh>,
    push: Push,
    first_index: u32,
    index_count: u32,
    base_vertex: i32,
}

/// Outcome of preparing one item.
enum Prepared {
    /// Draw it.
    Draw(Box<Draw>),
    /// Counted as drawn, but no triangle is left (empty or past the index buffer).
    Empty,
    /// Skipped for out-of-range data.
    Skipped,
}

impl VulkanRenderer {
    /// Name of the physical device in use.
    pub fn device_name(&self) -> &str {
        &self.device_name
    }

    /// (2.11) Keeps `primitives` for the next draw, which draws them after the world's
    /// items (see the crate docs, "Effects") and consumes them; a later call before that
    /// draw replaces them. Every primitive draws soft ([`VulkanRenderer::set_effect_frame`]
    /// draws the textured ones).
    pub fn set_effects(&mut self, primitives: &[EffectPrimitive]) {
        self.effect_primitives.clear();
        self.effect_primitives.extend_from_slice(primitives);
        self.effect_textures.clear();
        self.effects_pending = true;
    }

    /// (2.11) [`VulkanRenderer::set_effects`] of `frame`'s primitives, with its texture
    /// names (PD-RENDER-EFFECT-TEXTURES: found among the drawn frame's resources,
    /// ASCII-case-insensitively; a particle or billboard whose texture is there draws
    /// textured).
    pub fn set_effect_frame(&mut self, frame: &EffectFrame) {
        self.set_effects(&frame.primitives);
        self.effect_textures.extend(frame.textures.iter().cloned());
    }

    /// The effects pass's set of each effect texture name (`None`: not among
    /// `resources`' textures, or unusable); the textures are uploaded once.
    fn effect_sets(
        &mut self,
        resources: &RenderResources,
    ) -> Result<Vec<Option<Arc<DescriptorSet>>>, RenderError> {
        let names = std::mem::take(&mut self.effect_textures);
        let mut sets = Vec::with_capacity(names.len());
        for name in &names {
            let index = resources
                .textures
                .iter()
                .position(|t| t.name.as_str().eq_ignore_ascii_case(name.as_str()));
            let set = match index {
                None => None,
                Some(i) => {
                    let i = i as u32;
                    match self.cache.effect_sets.get(&i) {
                        Some(s) => s.clone(),
                        None => {
                            let set = match self.texture(resources, i)? {
                                Some(view) => Some(self.effects.texture_set(view)?),
                                None => None,
                            };
                            self.cache.effect_sets.insert(i, set.clone());
                            set
                        }
                    }
                }
            };
            sets.push(set);
        }
        self.effect_textures = names;
        Ok(sets)
    }

    /// (2.11) Effect quads drawn in the last frame (primitives skipped or entirely
    /// outside the view volume are not counted).
    pub fn effect_quads(&self) -> u32 {
        self.effect_quads
    }

    /// Whether [`VulkanRenderer::draw`] completed at least once.
    pub fn has_frame(&self) -> bool {
        self.has_frame
    }

    /// The last drawn frame as RGBA8, rows top to bottom (`None` before the first frame).
    /// The colour image is copied to the host here, on demand, not after every frame.
    pub fn image(&mut self) -> Result<Option<ImageRgba8>, RenderError> {
        if !self.has_frame {
            return Ok(None);
        }
        let Some(t) = &self.targets else {
            return Ok(Some(ImageRgba8 {
                width: 0,
                height: 0,
                pixels: Default::default(),
            }));
        };
        let (color, readback) = (t.color.clone(), t.readback.clone());
        if !self.read_back {
            let mut b = self.builder()?;
            b.copy_image_to_buffer(CopyImageToBufferInfo::image_buffer(color, readback.clone()))
                .map_err(vk("read back"))?;
            self.submit(b)?;
            self.read_back = true;
        }
        let data = readback.read().map_err(vk("read-back buffer"))?;
        Ok(Some(ImageRgba8 {
            width: t.width,
            height: t.height,
            pixels: data.to_vec().into(),
        }))
    }

    pub(crate) fn builder(
        &self,
    ) -> Result<AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>, RenderError> {
        AutoCommandBufferBuilder::primary(
            self.commands.clone(),
            self.queue.queue_family_index(),
            CommandBufferUsage::OneTimeSubmit,
        )
        .map_err(vk("command buffer"))
    }

    fn record_uploads(
        &mut self,
        b: &mut AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
    ) -> Result<(), RenderError> {
        for (src, image) in self.pending_uploads.drain(..) {
            b.copy_buffer_to_image(CopyBufferToImageInfo::buffer_image(src, image))
                .map_err(vk("texture upload"))?;
        }
        Ok(())
    }

    /// Submits `b` and waits for it.
    pub(crate) fn submit(
        &self,
        b: AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
    ) -> Result<(), RenderError> {
        let cb = b.build().map_err(vk("build command buffer"))?;
        vulkano::sync::now(self.device.clone())
            .then_execute(self.queue.clone(), cb)
            .map_err(vk("execute"))?
            .then_signal_fence_and_flush()
            .map_err(vk("flush"))?
            .wait(None)
            .map_err(vk("wait"))
    }

    fn ensure_targets(&mut self, width: u32, height: u32) -> Result<(), RenderError> {
        if matches!(&self.targets, Some(t) if t.width == width && t.height == height) {
            return Ok(());
        }
        self.targets = None;
        let image = |format, usage| {
            Image::new(
                self.memory.clone(),
                ImageCreateInfo {
                    image_type: ImageType::Dim2d,
                    format,
                    extent: [width, height, 1],
                    usage,
                    ..Default::default()
                },
                AllocationCreateInfo::default(),
            )
            .map_err(vk("target image"))
        };
        let color = image(
            COLOR_FORMAT,
            ImageUsage::COLOR_ATTACHMENT | ImageUsage::TRANSFER_SRC,
        )?;
        let depth = image(DEPTH_FORMAT, ImageUsage::DEPTH_STENCIL_ATTACHMENT)?;
        let color_view = ImageView::new_default(color.clone()).map_err(vk("colour view"))?;
        let framebuffer = Framebuffer::new(
            self.render_pass.clone(),
            FramebufferCreateInfo {
                attachments: vec![
                    color_view.clone(),
                    ImageView::new_default(depth).map_err(vk("depth view"))?,
                ],
                ..Default::default()
            },
        )
        .map_err(vk("framebuffer"))?;
        let overlay_framebuffer = self.overlay.framebuffer(color_view)?;
        let readback = Buffer::new_slice::<u8>(
            self.memory.clone(),
            BufferCreateInfo {
                usage: BufferUsage::TRANSFER_DST,
                ..Default::default()
            },
            AllocationCreateInfo {
                memory_type_filter: MemoryTypeFilter::PREFER_HOST
                    | MemoryTypeFilter::HOST_RANDOM_ACCESS,
                ..Default::default()
            },
            u64::from(width) * u64::from(height) * 4,
        )
        .map_err(vk("read-back buffer"))?;
        self.targets = Some(Targets {
            width,
            height,
            color,
            framebuffer,
            overlay_framebuffer,
            readback,
        });
        Ok(())
    }

    fn mesh(
        &mut self,
        resources: &RenderResources,
        index: u32,
    ) -> Result<Option<Arc<GpuMesh>>, RenderError> {
        if let Some(m) = self.cache.meshes.get(&index) {
            return Ok(m.clone());
        }
        let uploaded = match resources.meshes.get(index as usize) {
            None => None,
            Some(m) => {
                let n = m.positions.len().min(m.normals.len()).min(m.uvs.len());
                let vertices: Vec<GpuVertex> = (0..n)
                    .map(|i| {
                        let (p, nn, uv) = (m.positions[i], m.normals[i], m.uvs[i]);
                        [p[0], p[1], p[2], nn[0], nn[1], nn[2], uv[0], uv[1]]
                    })
                    .collect();
                let cpu_indices: Vec<u16> = m.indices.to_vec();
                Some(Arc::new(GpuMesh {
                    vertices: device_buffer(
                        &self.memory,
                        BufferUsage::VERTEX_BUFFER,
                        &vertices,
                        [0.0; 8],
                    )?,
                    indices: device_buffer(
                        &self.memory,
                        BufferUsage::INDEX_BUFFER,
                        &cpu_indices,
                        0,
                    )?,
                    vertex_count: u32::try_from(n).unwrap_or(u32::MAX),
                    max_index: cpu_indices.iter().copied().max().map_or(0, u32::from),
                    cpu_indices,
                }))
            }
        };
        self.cache.meshes.insert(index, uploaded.clone());
        Ok(uploaded)
    }

    /// The texture of `index` (uploaded once), or `None` when missing or malformed.
    fn texture(
        &mut self,
        resources: &RenderResources,
        index: u32,
    ) -> Result<Option<Arc<ImageView>>, RenderError> {
        if let Some(t) = self.cache.textures.get(&index) {
            return Ok(t.clone());
        }
        let max = self
            .device
            .physical_device()
            .properties()
            .max_image_dimension2_d;
        let level = resources
            .textures
            .get(index as usize)
            .and_then(|t| t.levels.first());
        let view = match level {
            Some(l)
                if l.width > 0
                    && l.height > 0
                    && l.width <= max
                    && l.height <= max
                    && l.rgba.len() as u64 >= u64::from(l.width) * u64::from(l.height) * 4 =>
            {
                let need = l.width as usize * l.height as usize * 4;
                Some(create_texture(
                    &self.memory,
                    l.width,
                    l.height,
                    &l.rgba[..need],
                    &mut self.pending_uploads,
                )?)
            }
            _ => None,
        };
        self.cache.textures.insert(index, view.clone());
        Ok(view)
    }

    /// Resolves a stage to (op code, texture key); `None` when its texture is unusable.
    fn stage(
        &mut self,
        resources: &RenderResources,
        stage: &TextureStage,
    ) -> Result<Option<(f32, u32)>, RenderError> {
        if stage.op == TextureOp::Disable || stage.texture == NO_TEXTURE {
            return Ok(Some((0.0, NO_TEXTURE)));
        }
        Ok(self
            .texture(resources, stage.texture)?
            .map(|_| (op_code(stage.op), stage.texture)))
    }

    fn texture_set(&mut self, key: (u32, u32)) -> Result<Arc<DescriptorSet>, RenderError> {
        if let Some(s) = self.cache.sets.get(&key) {
            return Ok(s.clone());
        }
        let view = |t: u32| -> Arc<ImageView> {
            self.cache
                .textures
                .get(&t)
                .and_then(Clone::clone)
                .unwrap_or_else(|| self.white.clone())
        };
        let layout = self
            .layout
            .set_layouts()
            .get(1)
            .cloned()
            .ok_or_else(|| RenderError::Shader("no descriptor set 1".into()))?;
        let set = DescriptorSet::new(
            self.descriptors.clone(),
            layout,
            [
                WriteDescriptorSet::image_view(0, view(key.0)),
                WriteDescriptorSet::image_view(1, view(key.1)),
            ],
            [],
        )
        .map_err(vk("texture descriptor set"))?;
        self.cache.sets.insert(key, set.clone());
        Ok(set)
    }

    fn prepare(
        &mut self,
        resources: &RenderResources,
        pv: &glam::Mat4,
        item: &DrawItem,
    ) -> Result<Prepared, RenderError> {
        let Some(mesh) = self.mesh(resources, item.mesh)? else {
            return Ok(Prepared::Skipped);
        };
        let st = &item.state;
        let (Some(s0), Some(s1)) = (
            self.stage(resources, &st.stages[0])?,
            self.stage(resources, &st.stages[1])?,
        ) else {
            return Ok(Prepared::Skipped);
        };
        // Whole triangles inside the index buffer (the software reference skips the rest).
        let start = item.index_start as usize;
        let available = mesh.cpu_indices.len().saturating_sub(start) / 3;
        let tris = (item.index_count as usize / 3).min(available);
        if tris == 0 {
            return Ok(Prepared::Empty);
        }
        let count = tris * 3;
        let Ok(base_vertex) = i32::try_from(item.base_vertex) else {
            return Ok(Prepared::Skipped);
        };
        if u64::from(item.base_vertex) + u64::from(mesh.max_index) >= u64::from(mesh.vertex_count) {
            let max = mesh.cpu_indices[start..start + count]
                .iter()
                .copied()
                .max()
                .map_or(0, u32::from);
            if u64::from(item.base_vertex) + u64::from(max) >= u64::from(mesh.vertex_count) {
                // A vertex past the arrays: the whole item is left out (the reference
                // drops only the affected triangles).
                return Ok(Prepared::Skipped);
            }
        }
        let set = self.texture_set((s0.1, s1.1))?;
        let world = glam::Mat4::from(item.world);
        let w = world.to_cols_array();
        let alpha_ref = if st.alpha_test {
            f32::from(st.alpha_ref)
        } else {
            -1.0
        };
        let s = [st.stages[0].uv_scale, st.stages[1].uv_scale];
        Ok(Prepared::Draw(Box::new(Draw {
            key: PipelineKey(
                match st.blend {
                    BlendMode::Opaque => 0,
                    BlendMode::AlphaBlend => 1,
                    BlendMode::Additive => 2,
                },
                st.depth.test,
                st.depth.write,
                u8::from(st.cull == CullMode::Back),
            ),
            set,
            mesh,
            push: Push {
                mvp: (*pv * world).to_cols_array(),
                n0: [w[0], w[1], w[2], s0.0],
                n1: [w[4], w[5], w[6], s1.0],
                n2: [w[8], w[9], w[10], alpha_ref],
                uv_scale: [s[0][0], s[0][1], s[1][0], s[1][1]],
            },
            first_index: item.index_start,
            index_count: count as u32,
            base_vertex,
        })))
    }

    fn pipeline(&mut self, key: PipelineKey) -> Result<Arc<GraphicsPipeline>, RenderError> {
        if let Some(p) = self.pipelines.get(&key) {
            return Ok(p.clone());
        }
        let vertex_input_state = vertex_input::<GpuVertex>(&[
            (Format::R32G32B32_SFLOAT, 0),
            (Format::R32G32B32_SFLOAT, 12),
            (Format::R32G32_SFLOAT, 24),
        ]);
        let blend = match key.blend() {
            BlendMode::Opaque => None,
            BlendMode::AlphaBlend => Some(AttachmentBlend {
                src_color_blend_factor: BlendFactor::SrcAlpha,
                dst_color_blend_factor: BlendFactor::OneMinusSrcAlpha,
                color_blend_op: BlendOp::Add,
                src_alpha_blend_factor: BlendFactor::One,
                dst_alpha_blend_factor: BlendFactor::OneMinusSrcAlpha,
                alpha_blend_op: BlendOp::Add,
            }),
            BlendMode::Additive => Some(AttachmentBlend {
                src_color_blend_factor: BlendFactor::SrcAlpha,
                dst_color_blend_factor: BlendFactor::One,
                color_blend_op: BlendOp::Add,
                src_alpha_blend_factor: BlendFactor::Zero,
                dst_alpha_blend_factor: BlendFactor::One,
                alpha_blend_op: BlendOp::Add,
            }),
        };
        let depth = match (key.1, key.2) {
            (true, write_enable) => Some(DepthState {
                write_enable,
                compare_op: CompareOp::LessOrEqual,
            }),
            (false, true) => Some(DepthState {
                write_enable: true,
                compare_op: CompareOp::Always,
            }),
            (false, false) => None,
        };
        let subpass = Subpass::from(self.render_pass.clone(), 0)
            .ok_or_else(|| RenderError::Vulkan("no subpass 0".into()))?;
        let pipeline = GraphicsPipeline::new(
            self.device.clone(),
            None,
            GraphicsPipelineCreateInfo {
                stages: self.stages.iter().cloned().collect(),
                vertex_input_state: Some(vertex_input_state),
                input_assembly_state: Some(InputAssemblyState::default()),
                viewport_state: Some(ViewportState::default()),
                rasterization_state: Some(RasterizationState {
                    cull_mode: if key.3 == 1 {
                        rasterization::CullMode::Back
                    } else {
                        rasterization::CullMode::None
                    },
                    // D3D fronts are counter-clockwise with +y up; the shader flips y,
                    // which Vulkan's y-down orientation rule compensates.
                    front_face: FrontFace::CounterClockwise,
                    ..Default::default()
                }),
                multisample_state: Some(MultisampleState::default()),
                depth_stencil_state: Some(DepthStencilState {
                    depth,
                    ..Default::default()
                }),
                color_blend_state: Some(ColorBlendState::with_attachment_states(
                    1,
                    ColorBlendAttachmentState {
                        blend,
                        ..Default::default()
                    },
                )),
                dynamic_state: [DynamicState::Viewport].into_iter().collect(),
                subpass: Some(PipelineSubpassType::BeginRenderPass(subpass)),
                ..GraphicsPipelineCreateInfo::layout(self.layout.clone())
            },
        )
        .map_err(vk("graphics pipeline"))?;
        self.pipelines.insert(key, pipeline.clone());
        Ok(pipeline)
    }

    /// Draws `frame`: offscreen always (read back for [`VulkanRenderer::image`]), and
    /// presented to `frame.target.window` when one is given.
    pub fn draw(&mut self, frame: &RenderFrame) -> Result<RenderStats, RenderError> {
        self.draw_checked(frame, None)
    }

    /// (2.4) Draws `frame` as [`VulkanRenderer::draw`] does, then `overlay` over it in
    /// the overlay pass (before the read-back and the present).
    pub fn draw_with_overlay(
        &mut self,
        frame: &RenderFrame,
        overlay: &Overlay,
    ) -> Result<RenderStats, RenderError> {
        self.draw_checked(frame, Some(overlay))
    }

    fn draw_checked(
        &mut self,
        frame: &RenderFrame,
        overlay: Option<&Overlay>,
    ) -> Result<RenderStats, RenderError> {
        let result = self.draw_inner(frame, overlay);
        if result.is_err() {
            // Uploads recorded into a command buffer that never ran: start over.
            self.cache = ResourceCache::default();
            self.overlay.reset_cache();
            self.pending_uploads.clear();
        }
        result
    }

    fn draw_inner(
        &mut self,
        frame: &RenderFrame,
        overlay: Option<&Overlay>,
    ) -> Result<RenderStats, RenderError> {
        let objects = frame.visible.len() as u32;
        let with_effects = std::mem::take(&mut self.effects_pending);
        self.effect_quads = 0;
        let (width, height) = (frame.target.width, frame.target.height);
        let max = MAX_TARGET_DIM.min(
            self.device
                .physical_device()
                .properties()
                .max_image_dimension2_d,
        );
        if width > max || height > max {
            return Err(RenderError::Target(format!(
                "target {width}x{height} exceeds {max}x{max}"
            )));
        }
        self.read_back = false;
        if width == 0 || height == 0 {
            self.targets = None;
            self.has_frame = true;
            return Ok(RenderStats {
                draw_items: 0,
                objects,
            });
        }
        let resources: &RenderResources = &frame.resources;
        if self.cache.id != Some(resources.id) {
            self.cache = ResourceCache {
                id: Some(resources.id),
                ..Default::default()
            };
        }
        self.ensure_targets(width, height)?;
        {
            let l = &frame.lighting;
            let mut u = self.frame_uniform.write().map_err(vk("uniform write"))?;
            *u = FrameUniform {
                sun_dir: [l.sun_direction.x, l.sun_direction.y, l.sun_direction.z, 0.0],
                sun_colour: [l.sun_colour[0], l.sun_colour[1], l.sun_colour[2], 0.0],
                ambient: [l.ambient[0], l.ambient[1], l.ambient[2], 0.0],
            };
        }
        let pv = glam::Mat4::from(frame.camera.projection) * glam::Mat4::from(frame.camera.view);
        let mut draws = Vec::with_capacity(frame.items.len());
        let mut drawn = 0u32;
        for item in frame.items.iter() {
            match self.prepare(resources, &pv, item)? {
                Prepared::Draw(d) => {
                    drawn += 1;
                    draws.push(d);
                }
                Prepared::Empty => drawn += 1,
                Prepared::Skipped => {}
            }
        }
        let effects = if with_effects {
            let sets = self.effect_sets(resources)?;
            self.effects
                .prepare(&frame.camera, &self.effect_primitives, &sets)?
        } else {
            None
        };
        let overlay = match overlay {
            Some(o) => {
                let max_texture = self
                    .device
                    .physical_device()
                    .properties()
                    .max_image_dimension2_d;
                let (prepared, skipped) = self.overlay.prepare(
                    o,
                    width,
                    height,
                    max_texture,
                    &mut self.pending_uploads,
                )?;
                if skipped > 0 {
                    tracing::debug!(
                        frame = frame.frame,
                        skipped_quads = skipped,
                        "render-vulkan skipped overlay quads with a missing or malformed texture"
                    );
                }
                prepared
            }
            None => None,
        };

        let mut b = self.builder()?;
        self.record_uploads(&mut b)?;
        let (color, framebuffer, overlay_framebuffer) = match &self.targets {
            Some(t) => (
                t.color.clone(),
                t.framebuffer.clone(),
                t.overlay_framebuffer.clone(),
            ),
            None => return Err(RenderError::Vulkan("no targets".into())),
        };
        let clear = frame.target.clear.map(|c| f32::from(c) / 255.0);
        b.begin_render_pass(
            RenderPassBeginInfo {
                clear_values: vec![Some(clear.into()), Some(1.0f32.into())],
                ..RenderPassBeginInfo::framebuffer(framebuffer)
            },
            SubpassBeginInfo {
                contents: SubpassContents::Inline,
                ..Default::default()
            },
        )
        .map_err(vk("begin render pass"))?
        .set_viewport(
            0,
            [Viewport {
                offset: [0.0, 0.0],
                extent: [width as f32, height as f32],
                depth_range: 0.0..=1.0,
            }]
            .into_iter()
            .collect(),
        )
        .map_err(vk("viewport"))?;
        let mut bound_key = None;
        let mut bound_set: Option<Arc<DescriptorSet>> = None;
        let mut bound_mesh: Option<Arc<GpuMesh>> = None;
        for d in draws {
            if bound_key != Some(d.key) {
                let p = self.pipeline(d.key)?;
                b.bind_pipeline_graphics(p).map_err(vk("bind pipeline"))?;
                if bound_key.is_none() {
                    b.bind_descriptor_sets(
                        PipelineBindPoint::Graphics,
                        self.layout.clone(),
                        0,
                        self.frame_set.clone(),
                    )
                    .map_err(vk("bind frame set"))?;
                }
                bound_key = Some(d.key);
            }
            if !bound_set.as_ref().is_some_and(|s| Arc::ptr_eq(s, &d.set)) {
                b.bind_descriptor_sets(
                    PipelineBindPoint::Graphics,
                    self.layout.clone(),
                    1,
                    d.set.clone(),
                )
                .map_err(vk("bind texture set"))?;
                bound_set = Some(d.set.clone());
            }
            if !bound_mesh.as_ref().is_some_and(|m| Arc::ptr_eq(m, &d.mesh)) {
                b.bind_vertex_buffers(0, d.mesh.vertices.clone())
                    .map_err(vk("bind vertices"))?
                    .bind_index_buffer(d.mesh.indices.clone())
                    .map_err(vk("bind indices"))?;
                bound_mesh = Some(d.mesh.clone());
            }
            b.push_constants(self.layout.clone(), 0, d.push)
                .map_err(vk("push constants"))?;
            // SAFETY: every index of the range plus `base_vertex` was checked against the
            // vertex count in `prepare`, and the range lies inside the index buffer.
            unsafe {
                b.draw_indexed(d.index_count, 1, d.first_index, d.base_vertex, 0)
                    .map_err(vk("draw"))?;
            }
        }
        if let Some(prepared) = &effects {
            self.effects.record(&mut b, prepared)?;
        }
        b.end_render_pass(SubpassEndInfo::default())
            .map_err(vk("end render pass"))?;
        if let Some(prepared) = overlay {
            self.overlay
                .record(&mut b, overlay_framebuffer, prepared, width, height)?;
        }
        match frame.target.window {
            abi_stable::std_types::ROption::RSome(window) => {
                self.present(b, window, &color, width, height)?;
            }
            abi_stable::std_types::ROption::RNone => self.submit(b)?,
        }
        self.has_frame = true;
        self.effect_quads = effects.map_or(0, |e| e.quads);
        Ok(RenderStats {
            draw_items: drawn,
            objects,
        })
    }
}
