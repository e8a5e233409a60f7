//! The audio role of a slot (2.6): once per presented frame, in the render phase before
//! the render slot draws, the plugin gets an `AudioFrame` (listener, mix, outcome, trace
//! switch) and its report is kept on the host for the launcher.

use super::render::prepared_frame;
use super::{PluginSlot, lock};
use abi_stable::std_types::{ROption, RResult};
use iron3d_kernel::{Phase, RenderSnapshot, SystemResult};

/// Where the player hears from in `snapshot`: the camera of the frame being drawn, else
/// the player's view, else nowhere.
fn listener(snapshot: &RenderSnapshot) -> Option<iron3d_abi::Listener> {
    let camera = prepared_frame(snapshot).map(|(f, _)| f.camera);
    camera
        .map(|c| iron3d_abi::Listener::from_angles(c.position, c.yaw, c.pitch))
        .or_else(|| {
            snapshot.view.as_ref().map(|v| {
                let eye = iron3d_abi::Vec3f {
                    x: v.eye[0],
                    y: v.eye[1],
                    z: v.eye[2],
                };
                iron3d_abi::Listener::from_angles(eye, v.yaw, v.pitch)
            })
        })
}

impl PluginSlot {
    /// The audio slot's frame (2.6): the listener from the camera of the frame being
    /// drawn (else the player's view), the mix, the outcome; the report is kept on the
    /// host for the launcher. A failure rolls the slot back in `render_world`.
    pub(super) fn audio_frame(&mut self, snapshot: &RenderSnapshot) -> SystemResult {
        let listener = listener(snapshot);
        let (mix, trace) = {
            let a = lock(&self.host.audio);
            (a.mix, a.trace)
        };
        let outcome = lock(&self.host.outcome).map(|o| o.outcome);
        let frame = iron3d_abi::AudioFrame {
            frame: snapshot.frame,
            tick: snapshot.tick,
            listener: listener.into(),
            mix,
            outcome: outcome.into(),
            trace,
        };
        let r = match lock(&self.cell).as_mut() {
            Some(a) => match a.object.audio() {
                RResult::ROk(ROption::RSome(mut audio)) => audio.frame(&frame).map(Some),
                RResult::ROk(ROption::RNone) => RResult::ROk(None),
                RResult::RErr(e) => RResult::RErr(e),
            },
            None => RResult::ROk(None),
        };
        match r {
            RResult::ROk(Some(report)) => {
                let mut a = lock(&self.host.audio);
                if trace {
                    a.lines
                        .extend(report.trace.into_iter().map(|l| l.into_string()));
                }
                a.status = Some(crate::call::AudioStatus {
                    output: report.output,
                    reason: report.reason.into_string(),
                    active_sources: report.active_sources,
                });
                Ok(())
            }
            RResult::ROk(None) => Ok(()),
            RResult::RErr(e) => Err(self.fault(Phase::RenderWorld, &e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_prepared_frame_the_listener_is_the_players_view() {
        let mut snapshot = RenderSnapshot::default();
        assert_eq!(listener(&snapshot), None);
        snapshot.view = Some(iron3d_kernel::PlayerView {
            eye: [1.0, 2.0, 3.0],
            yaw: 0.5,
            pitch: -0.25,
            fov: 0.0,
            mode: 0,
            subject: 0,
            flags: 0,
            selected: Vec::new(),
            tick: 0,
        });
        let eye = iron3d_abi::Vec3f {
            x: 1.0,
            y: 2.0,
            z: 3.0,
        };
        assert_eq!(
            listener(&snapshot),
            Some(iron3d_abi::Listener::from_angles(eye, 0.5, -0.25))
        );
    }
}
