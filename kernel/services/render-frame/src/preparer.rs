//! The kernel hook: a [`FramePreparer`] that builds a [`RenderFrame`] for every published
//! snapshot from the camera and target the launcher shares with it.

use crate::frame::{FrameBuilder, FrameParams};
use iron3d_abi::{FrameWithOverlay, Overlay, RenderFrame};
use iron3d_kernel::{FramePreparer, RenderSnapshot};
use std::any::Any;
use std::sync::{Arc, Mutex};

/// Camera, target and lighting shared between the launcher (input, window size) and the
/// preparer (reads them once per frame).
pub type SharedView = Arc<Mutex<FrameParams>>;

/// The last frame a preparer built, shared with its owner.
pub type LastFrame = Arc<Mutex<Option<Arc<RenderFrame>>>>;

/// What draws a frame's screen overlay (the HUD): called once per prepared frame with
/// the snapshot and the frame's camera and target; `None` draws no overlay.
pub type OverlaySource =
    Box<dyn FnMut(&RenderSnapshot, &FrameParams) -> Option<Overlay> + Send + 'static>;

/// Builds a frame per snapshot through a [`FrameBuilder`]; keeps the last one.
pub struct MissionFramePreparer {
    builder: FrameBuilder,
    view: SharedView,
    last: LastFrame,
    follow_player: bool,
    overlay: Option<OverlaySource>,
}

impl MissionFramePreparer {
    /// A preparer drawing with `builder` through `view`.
    pub fn new(builder: FrameBuilder, view: SharedView) -> Self {
        Self {
            builder,
            view,
            last: Arc::default(),
            follow_player: true,
            overlay: None,
        }
    }

    /// Draws `source`'s overlay over every frame (interface 2.4): the preparer then
    /// publishes a [`FrameWithOverlay`] instead of the bare frame.
    pub fn with_overlay(mut self, source: OverlaySource) -> Self {
        self.overlay = Some(source);
        self
    }

    /// Whether the camera follows the player's view the seat publishes (default: yes).
    /// `false` pins the shared view's camera (automation: `iron3d play --camera`).
    pub fn with_player_view(mut self, follow: bool) -> Self {
        self.follow_player = follow;
        self
    }

    /// A handle on the frame built last (stays valid after the preparer moves into the
    /// kernel).
    pub fn last_handle(&self) -> LastFrame {
        self.last.clone()
    }
}

impl FramePreparer for MissionFramePreparer {
    fn prepare(&mut self, snapshot: &RenderSnapshot) -> Option<Arc<dyn Any + Send + Sync>> {
        let params = {
            let mut shared = self
                .view
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            // The player's view, when the seat publishes one, is the camera: the frame
            // and everything reading the shared view (the listener) use the same one.
            if let (true, Some(v)) = (self.follow_player, snapshot.view.as_ref()) {
                let c = &mut shared.camera;
                c.position = glam::Vec3::from_array(v.eye);
                c.yaw = crate::camera::wrap_angle(v.yaw);
                c.pitch = v
                    .pitch
                    .clamp(-crate::camera::PITCH_LIMIT, crate::camera::PITCH_LIMIT);
                if v.fov > 0.0 {
                    c.fov = v.fov;
                }
                c.centring = false;
            }
            *shared
        };
        let frame = Arc::new(self.builder.build(snapshot, &params));
        *self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(frame.clone());
        if let Some(overlay) = self.overlay.as_mut().and_then(|o| o(snapshot, &params)) {
            return Some(Arc::new(FrameWithOverlay { frame, overlay }));
        }
        Some(frame)
    }
}
