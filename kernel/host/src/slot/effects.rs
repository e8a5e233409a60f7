//! The effects role of a slot (2.11, **PD-FX-PRESENTATION**): once per presented frame,
//! in the render phase before the render slot draws, the plugin gets an `EffectView`
//! (frame, tick, game time, the camera of the frame being drawn) and the `EffectFrame`
//! it answers is kept on the host until the render slot hands it to its renderer.

use super::render::prepared_frame;
use super::{PluginSlot, lock};
use abi_stable::std_types::{ROption, RResult};
use iron3d_kernel::{Phase, RenderSnapshot, SystemResult};

impl PluginSlot {
    /// The effects slot's frame: asks the plugin's effects service (when it offers one)
    /// for the primitives of `snapshot`'s frame and keeps them for the render slot; a
    /// plugin that offers none leaves nothing (the render slot then draws no effects).
    /// A failure rolls the slot back in `render_world` and leaves no primitives.
    pub(super) fn effects_frame(&mut self, snapshot: &RenderSnapshot) -> SystemResult {
        let camera = prepared_frame(snapshot).map(|(f, _)| f.camera);
        let view = iron3d_abi::EffectView {
            frame: snapshot.frame,
            tick: snapshot.tick,
            time_ms: snapshot.time_ms,
            camera: camera.into(),
        };
        let r = match lock(&self.cell).as_mut() {
            Some(a) => match a.object.effects() {
                RResult::ROk(ROption::RSome(mut fx)) => fx.frame(&view).map(Some),
                RResult::ROk(ROption::RNone) => RResult::ROk(None),
                RResult::RErr(e) => RResult::RErr(e),
            },
            None => RResult::ROk(None),
        };
        let mut kept = lock(&self.host.effects);
        match r {
            RResult::ROk(frame) => {
                *kept = frame;
                Ok(())
            }
            RResult::RErr(e) => {
                *kept = None;
                drop(kept);
                Err(self.fault(Phase::RenderWorld, &e))
            }
        }
    }
}
