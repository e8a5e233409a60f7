//! The kernel hook: a [`FramePreparer`] that builds a [`RenderFrame`] for every published
//! snapshot from the camera and target the launcher shares with it.

use crate::frame::{FrameBuilder, FrameParams};
use iron3d_abi::RenderFrame;
use iron3d_kernel::{FramePreparer, RenderSnapshot};
use std::any::Any;
use std::sync::{Arc, Mutex};

/// Camera, target and lighting shared between the launcher (input, window size) and the
/// preparer (reads them once per frame).
pub type SharedView = Arc<Mutex<FrameParams>>;

/// The last frame a preparer built, shared with its owner.
pub type LastFrame = Arc<Mutex<Option<Arc<RenderFrame>>>>;

/// Builds a frame per snapshot through a [`FrameBuilder`]; keeps the last one.
pub struct MissionFramePreparer {
    builder: FrameBuilder,
    view: SharedView,
    last: LastFrame,
}

impl MissionFramePreparer {
    /// A preparer drawing with `builder` through `view`.
    pub fn new(builder: FrameBuilder, view: SharedView) -> Self {
        Self {
            builder,
            view,
            last: Arc::default(),
        }
    }

    /// A handle on the frame built last (stays valid after the preparer moves into the
    /// kernel).
    pub fn last_handle(&self) -> LastFrame {
        self.last.clone()
    }
}

impl FramePreparer for MissionFramePreparer {
    fn prepare(&mut self, snapshot: &RenderSnapshot) -> Option<Arc<dyn Any + Send + Sync>> {
        let params = *self
            .view
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let frame = Arc::new(self.builder.build(snapshot, &params));
        *self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(frame.clone());
        Some(frame)
    }
}
