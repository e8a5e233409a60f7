//! The render role of a slot (2.8): draws the frame the render-frame builder prepared
//! with the plugin's `RenderBackend` — the world first when the renderer takes it, then
//! (2.11) the effects slot's primitives when there are some and it takes them — and
//! reads back the captures the host asked for.

use super::{PluginSlot, lock};
use abi_stable::std_types::{ROption, RResult};
use iron3d_abi::callbacks;
use iron3d_kernel::{Phase, RenderSnapshot, SystemResult};

/// What to read back from a render backend after a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureKind {
    /// The frame's pixels (`RenderBackend::capture`).
    Image,
    /// The frame's command list as JSON (`RenderBackend::capture_commands`).
    Commands,
}

/// A capture read back from a render backend.
#[derive(Clone, Debug, PartialEq)]
pub enum Capture {
    /// RGBA8 pixels.
    Image(iron3d_abi::ImageRgba8),
    /// JSON command list.
    Commands(String),
}

/// The frame prepared for `snapshot`: a bare frame, or (2.4) a frame with its overlay.
pub(super) fn prepared_frame(
    snapshot: &RenderSnapshot,
) -> Option<(&iron3d_abi::RenderFrame, Option<&iron3d_abi::Overlay>)> {
    let prepared = snapshot.prepared.as_ref();
    prepared
        .and_then(|p| p.get::<iron3d_abi::RenderFrame>())
        .map(|f| (f, None))
        .or_else(|| {
            prepared
                .and_then(|p| p.get::<iron3d_abi::FrameWithOverlay>())
                .map(|f| (&*f.frame, Some(&f.overlay)))
        })
}

impl PluginSlot {
    /// Draws the prepared frame of `snapshot` with the active instance's render backend
    /// (when it offers one and takes `callbacks::RENDER`; an instance that answers no
    /// backend is not asked again): the world first while it takes `callbacks::WORLD` (a
    /// decline retires that bit, never a fault), then the frame,
    /// then the capture asked for, if any. A capture that cannot be served says why (a
    /// vacant slot, no prepared frame, the backend's error); a backend error rolls the
    /// slot back in `render_world`.
    pub(super) fn draw(&mut self, snapshot: &RenderSnapshot) -> SystemResult {
        if !self.wants(callbacks::RENDER) {
            return Ok(());
        }
        let request = lock(&self.shared.capture_request).take();
        let world_wanted = self.wants(callbacks::WORLD);
        // (2.11) The effects slot's primitives for this frame, taken whether or not this
        // renderer wants them (never drawn a frame late).
        let effects = lock(&self.host.effects).take();
        let effects_wanted = self.wants(callbacks::EFFECTS);
        let cell = self.cell.clone();
        let mut guard = lock(&cell);
        let Some(a) = guard.as_mut() else {
            if request.is_some() {
                *lock(&self.shared.capture_result) =
                    Some(Err("the render slot is vacant".to_owned()));
            }
            return Ok(());
        };
        let frame = prepared_frame(snapshot);
        let (mut world_declined, mut effects_declined, mut no_backend) = (false, false, false);
        let r = match (a.object.render(), frame) {
            (RResult::RErr(e), _) => RResult::RErr(e),
            (RResult::ROk(ROption::RSome(mut backend)), Some((frame, overlay))) => {
                let world = if world_wanted {
                    match backend.world(&render_world(snapshot, frame)) {
                        RResult::RErr(e) if e.kind == iron3d_abi::ErrorKind::DECLINED => {
                            world_declined = true;
                            RResult::ROk(())
                        }
                        r => r,
                    }
                } else {
                    RResult::ROk(())
                };
                let world = match (world, effects.as_ref()) {
                    (RResult::ROk(()), Some(fx)) if effects_wanted => match backend.effects(fx) {
                        RResult::RErr(e) if e.kind == iron3d_abi::ErrorKind::DECLINED => {
                            effects_declined = true;
                            RResult::ROk(())
                        }
                        r => r,
                    },
                    (w, _) => w,
                };
                let r = match (world, overlay) {
                    (RResult::RErr(e), _) => RResult::RErr(e),
                    (RResult::ROk(()), Some(o)) => backend.draw_with_overlay(frame, o).map(|_| ()),
                    (RResult::ROk(()), None) => backend.draw(frame).map(|_| ()),
                };
                if let (Some(kind), RResult::ROk(())) = (request, &r) {
                    let result = match kind {
                        CaptureKind::Image => backend.capture().into_result().map(Capture::Image),
                        CaptureKind::Commands => backend
                            .capture_commands()
                            .into_result()
                            .map(|s| Capture::Commands(s.into_string())),
                    };
                    *lock(&self.shared.capture_result) = Some(result.map_err(|e| e.to_string()));
                }
                r
            }
            (RResult::ROk(ROption::RSome(_)), None) => {
                if request.is_some() {
                    *lock(&self.shared.capture_result) =
                        Some(Err("no prepared frame to draw".to_owned()));
                }
                RResult::ROk(())
            }
            (RResult::ROk(ROption::RNone), _) => {
                no_backend = true;
                RResult::ROk(())
            }
        };
        // A decline of the world, and an instance that offers no backend (every plugin
        // of a simulation slot, usually), are not asked again.
        let retired = (if world_declined { callbacks::WORLD } else { 0 })
            | (if effects_declined {
                callbacks::EFFECTS
            } else {
                0
            })
            | (if no_backend { callbacks::RENDER } else { 0 });
        a.callbacks &= !retired;
        self.active_callbacks &= !retired;
        drop(guard);
        match r {
            RResult::ROk(()) => Ok(()),
            RResult::RErr(e) => {
                if request.is_some() {
                    *lock(&self.shared.capture_result) = Some(Err(e.to_string()));
                }
                Err(self.fault(Phase::RenderWorld, &e))
            }
        }
    }
}

/// (2.8) The world a renderer that declared `callbacks::WORLD` gets before `frame`: every
/// object of `snapshot` in queue order, each once, with `in_view` from the frame's
/// visible list and prototype names (CP1251) in a table of first use.
pub fn render_world(
    snapshot: &RenderSnapshot,
    frame: &iron3d_abi::RenderFrame,
) -> iron3d_abi::RenderWorld {
    let mut visible: Vec<u32> = frame.visible.iter().map(|v| v.id).collect();
    visible.sort_unstable();
    let mut prototypes: Vec<(std::sync::Arc<[u8]>, u32)> = Vec::new();
    let mut names: Vec<abi_stable::std_types::RString> = Vec::new();
    let mut objects = abi_stable::std_types::RVec::with_capacity(snapshot.objects.len());
    for o in &snapshot.objects {
        // Objects of one prototype share its Arc: a pointer match first, bytes second.
        let index = match prototypes
            .iter()
            .find(|(p, _)| std::sync::Arc::ptr_eq(p, &o.prototype) || **p == *o.prototype)
        {
            Some(&(_, k)) => k,
            None => {
                let k = u32::try_from(names.len()).unwrap_or(u32::MAX);
                let (text, _, _) = encoding_rs::WINDOWS_1251.decode(&o.prototype);
                names.push(text.as_ref().into());
                prototypes.push((o.prototype.clone(), k));
                k
            }
        };
        let t = o.transform;
        objects.push(iron3d_abi::WorldObject {
            id: o.id.raw(),
            position: t.position.into(),
            orientation: t.orientation.into(),
            scale: t.scale.into(),
            clan_id: o.clan_id.into(),
            prototype: index,
            in_view: visible.binary_search(&o.id.raw()).is_ok(),
        });
    }
    iron3d_abi::RenderWorld {
        frame: snapshot.frame,
        tick: snapshot.tick,
        objects,
        prototypes: names.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_without_a_prepared_frame_has_none() {
        let mut snapshot = RenderSnapshot::default();
        assert!(prepared_frame(&snapshot).is_none());
        // Something else prepared (not a frame) is no frame either.
        snapshot.prepared = Some(iron3d_kernel::Prepared(std::sync::Arc::new(7u32)));
        assert!(prepared_frame(&snapshot).is_none());
    }
}
