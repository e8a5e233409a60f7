//! Window presentation: a surface per [`NativeWindow`] (Xlib, Xcb or Wayland raw
//! handles), a FIFO swapchain recreated on resize or when out of date, and a blit of the
//! offscreen colour image into the acquired swapchain image.

use crate::RenderError;
use crate::renderer::{VulkanRenderer, vk};
use iron3d_abi::NativeWindow;
use std::sync::Arc;
use vulkano::command_buffer::{AutoCommandBufferBuilder, BlitImageInfo, PrimaryAutoCommandBuffer};
use vulkano::format::{Format, FormatFeatures};
use vulkano::image::sampler::Filter;
use vulkano::image::{Image, ImageUsage};
use vulkano::instance::Instance;
use vulkano::swapchain::{
    CompositeAlpha, PresentMode, Surface, Swapchain, SwapchainCreateInfo, SwapchainPresentInfo,
    acquire_next_image,
};
use vulkano::sync::GpuFuture;
use vulkano::{Validated, VulkanError};

/// Swapchain formats in order of preference (UNORM first: the bytes of the offscreen
/// image reach the window unchanged).
const FORMATS: [Format; 4] = [
    Format::B8G8R8A8_UNORM,
    Format::R8G8B8A8_UNORM,
    Format::B8G8R8A8_SRGB,
    Format::R8G8B8A8_SRGB,
];

/// The surface and swapchain of one window.
pub(crate) struct Presenter {
    window: NativeWindow,
    surface: Arc<Surface>,
    swapchain: Option<Arc<Swapchain>>,
    images: Vec<Arc<Image>>,
    recreate: bool,
}

/// Creates a surface from the raw handles of `w`.
fn create_surface(instance: &Arc<Instance>, w: &NativeWindow) -> Result<Arc<Surface>, RenderError> {
    if w.display == 0 || w.window == 0 {
        return Err(RenderError::Window("null display or window handle".into()));
    }
    let instance = instance.clone();
    // SAFETY: the launcher passes live handles of a window that outlives the frames it
    // presents (it drops the window only after the render slot stops drawing to it).
    let surface = unsafe {
        match w.kind {
            0 => Surface::from_xlib(instance, w.display as usize as *mut _, w.window as _, None),
            1 => Surface::from_xcb(
                instance,
                w.display as usize as *mut _,
                w.window as u32,
                None,
            ),
            2 => Surface::from_wayland(
                instance,
                w.display as usize as *mut _,
                w.window as usize as *mut _,
                None,
            ),
            k => return Err(RenderError::Window(format!("unknown window kind {k}"))),
        }
    };
    surface.map_err(vk("surface"))
}

impl VulkanRenderer {
    /// (Re)creates the swapchain for the window's current size; `false` when the window
    /// has no area (nothing to present this frame).
    fn prepare_swapchain(&mut self, width: u32, height: u32) -> Result<bool, RenderError> {
        let physical = self.device.physical_device().clone();
        let Some(p) = self.presenter.as_mut() else {
            return Ok(false);
        };
        let caps = physical
            .surface_capabilities(&p.surface, Default::default())
            .map_err(vk("surface capabilities"))?;
        let extent = caps.current_extent.unwrap_or([
            width.clamp(caps.min_image_extent[0], caps.max_image_extent[0]),
            height.clamp(caps.min_image_extent[1], caps.max_image_extent[1]),
        ]);
        if extent[0] == 0 || extent[1] == 0 {
            return Ok(false);
        }
        let fresh = match &p.swapchain {
            Some(sc) => p.recreate || sc.image_extent() != extent,
            None => true,
        };
        if !fresh {
            return Ok(true);
        }
        let (swapchain, images) = match &p.swapchain {
            Some(sc) => sc
                .recreate(SwapchainCreateInfo {
                    image_extent: extent,
                    ..sc.create_info()
                })
                .map_err(vk("recreate swapchain"))?,
            None => {
                if !caps
                    .supported_usage_flags
                    .contains(ImageUsage::TRANSFER_DST)
                {
                    return Err(RenderError::Window(
                        "swapchain images cannot be transfer destinations".into(),
                    ));
                }
                let formats = physical
                    .surface_formats(&p.surface, Default::default())
                    .map_err(vk("surface formats"))?;
                let blit_dst = |f: Format| {
                    physical.format_properties(f).is_ok_and(|props| {
                        props
                            .optimal_tiling_features
                            .contains(FormatFeatures::BLIT_DST)
                    })
                };
                let (format, color_space) = FORMATS
                    .iter()
                    .find_map(|want| formats.iter().find(|(f, _)| f == want && blit_dst(*f)))
                    .copied()
                    .ok_or_else(|| {
                        RenderError::Window(format!("no blittable 8-bit format in {formats:?}"))
                    })?;
                let composite_alpha = if caps
                    .supported_composite_alpha
                    .contains_enum(CompositeAlpha::Opaque)
                {
                    CompositeAlpha::Opaque
                } else {
                    caps.supported_composite_alpha
                        .into_iter()
                        .next()
                        .ok_or_else(|| RenderError::Window("no composite alpha mode".into()))?
                };
                let mut min_image_count = caps.min_image_count.max(2);
                if let Some(max) = caps.max_image_count {
                    min_image_count = min_image_count.min(max);
                }
                Swapchain::new(
                    self.device.clone(),
                    p.surface.clone(),
                    SwapchainCreateInfo {
                        min_image_count,
                        image_format: format,
                        image_color_space: color_space,
                        image_extent: extent,
                        image_usage: ImageUsage::TRANSFER_DST,
                        composite_alpha,
                        present_mode: PresentMode::Fifo,
                        ..Default::default()
                    },
                )
                .map_err(vk("swapchain"))?
            }
        };
        tracing::debug!(?extent, format = ?swapchain.image_format(), "render-vulkan swapchain");
        p.swapchain = Some(swapchain);
        p.images = images;
        p.recreate = false;
        Ok(true)
    }

    /// Finishes `b` (which already rendered into `color`) by blitting `color` into the
    /// window's next swapchain image and presenting it; waits for completion.
    pub(crate) fn present(
        &mut self,
        mut b: AutoCommandBufferBuilder<PrimaryAutoCommandBuffer>,
        window: NativeWindow,
        color: &Arc<Image>,
        width: u32,
        height: u32,
    ) -> Result<(), RenderError> {
        if self.presenter.as_ref().is_none_or(|p| p.window != window) {
            self.presenter = None;
            let surface = create_surface(&self.instance, &window)?;
            let supported = self
                .device
                .physical_device()
                .surface_support(self.queue.queue_family_index(), &surface)
                .map_err(vk("surface support"))?;
            if !supported || !self.device.enabled_extensions().khr_swapchain {
                return Err(RenderError::Window(
                    "the device cannot present to this window".into(),
                ));
            }
            self.presenter = Some(Presenter {
                window,
                surface,
                swapchain: None,
                images: Vec::new(),
                recreate: false,
            });
        }
        if !self.prepare_swapchain(width, height)? {
            return self.submit(b);
        }
        let Some(p) = self.presenter.as_mut() else {
            return self.submit(b);
        };
        let Some(swapchain) = p.swapchain.clone() else {
            return self.submit(b);
        };
        let (index, suboptimal, acquire) =
            match acquire_next_image(swapchain.clone(), None).map_err(Validated::unwrap) {
                Ok(r) => r,
                Err(VulkanError::OutOfDate) => {
                    p.recreate = true;
                    return self.submit(b);
                }
                Err(e) => return Err(RenderError::Vulkan(format!("acquire: {e}"))),
            };
        if suboptimal {
            p.recreate = true;
        }
        let target = p
            .images
            .get(index as usize)
            .cloned()
            .ok_or_else(|| RenderError::Vulkan("swapchain image index out of range".into()))?;
        b.blit_image(BlitImageInfo {
            filter: Filter::Nearest,
            ..BlitImageInfo::images(color.clone(), target)
        })
        .map_err(vk("blit to swapchain"))?;
        let cb = b.build().map_err(vk("build command buffer"))?;
        let flushed = acquire
            .then_execute(self.queue.clone(), cb)
            .map_err(vk("execute"))?
            .then_swapchain_present(
                self.queue.clone(),
                SwapchainPresentInfo::swapchain_image_index(swapchain, index),
            )
            .then_signal_fence_and_flush()
            .map_err(Validated::unwrap);
        match flushed {
            Ok(f) => f.wait(None).map_err(vk("wait")),
            Err(VulkanError::OutOfDate) => {
                if let Some(p) = self.presenter.as_mut() {
                    p.recreate = true;
                }
                self.queue
                    .with(|mut q| q.wait_idle())
                    .map_err(vk("wait idle"))
            }
            Err(e) => Err(RenderError::Vulkan(format!("present: {e}"))),
        }
    }
}
