//! The render frame of tome V, built on the kernel side: [`SceneAssets`] decodes a loaded
//! mission's models, materials, textures, lightmaps and terrain once; [`FrameBuilder`]
//! turns each published [`iron3d_kernel::RenderSnapshot`] into an immutable
//! [`iron3d_abi::RenderFrame`] (camera, visible/skipped objects, node matrices, sorted
//! draw items with the legacy fixed-function state); [`MissionFramePreparer`] installs
//! that into the kernel's `publish_render_snapshot` phase so the `render` slot's plugin
//! draws it. The camera ([`CameraState`]) is a free camera with the tome's angle rules.
//!
//! Project decisions made here (the sources leave them open; each is a named constant):
//! PD-RENDER-LOD ([`frame::LOD1_DISTANCE`]), PD-RENDER-ANIM ([`frame::ANIMATION_FPS`]),
//! PD-RENDER-MIP ([`assets::MAX_TEXTURE_SIZE`]), PD-RENDER-TERRAIN (the Land1/Land2 row
//! rule and [`assets::TERRAIN_TEXTURE_REPEAT`]), PD-RENDER-SKY and PD-RENDER-SKY-WEATHER
//! ([`sky`]), PD-RENDER-TERRAIN-BLEND ([`terrain_blend`]); the surface mode of a MAT0
//! phase is PD-MAT-4 in `iron3d-material`.

pub mod assets;
pub mod camera;
mod error;
pub mod frame;
mod preparer;
#[cfg(test)]
mod reference;
pub mod sky;
pub mod terrain_blend;

pub use assets::{MountRef, PlacedModel, SceneAssets, SkyAsset};
pub use camera::{CameraState, Frustum};
pub use error::RenderFrameError;
pub use frame::{BuildStats, DEFAULT_LIGHTING, FrameBuilder, FrameParams};
pub use preparer::{LastFrame, MissionFramePreparer, SharedView};
