//! Null plugins: a do-nothing instance for each of the eight slots (`null-terrain`,
//! `null-ai`, …). They accept any handed-over state (and drop it), so the host can fall
//! back to them after a fault without losing the mission.

use abi_stable::std_types::{ROk, ROption, RResult, RString, RVec};
use abi_stable::{RMut, sabi_trait::TD_Opaque};
use iron3d_abi::{
    FactoryDescription, FrameView, HostContext, MissionContext, PluginDescription, PluginError,
    PluginRuntime, RenderBackend, RenderBackend_TO, RenderStats, SlotKind, StateBlob, Subsystem,
    Subsystem_TO, SubsystemBox,
};

/// Format name of the (empty) null state blob.
pub const NULL_STATE_FORMAT: &str = "iron3d-null";

/// The factory name for `slot` (`null-<slot>`).
pub fn factory_name(slot: SlotKind) -> String {
    format!("null-{}", slot.as_str())
}

fn describe() -> PluginDescription {
    PluginDescription {
        name: RString::from("iron3d-null"),
        version: RString::from(env!("CARGO_PKG_VERSION")),
        abi_major: iron3d_abi::ABI_MAJOR,
        abi_minor: iron3d_abi::ABI_MINOR,
        factories: SlotKind::ALL
            .iter()
            .map(|&slot| FactoryDescription {
                name: RString::from(factory_name(slot)),
                slot,
                callbacks: if slot == SlotKind::Render {
                    iron3d_abi::callbacks::RENDER
                } else {
                    0
                },
            })
            .collect(),
    }
}

fn create(factory: &str, host: HostContext) -> RResult<SubsystemBox, PluginError> {
    match SlotKind::ALL
        .into_iter()
        .find(|&s| factory_name(s) == factory)
    {
        Some(slot) => {
            let runtime = PluginRuntime::new(host.log, host.log_mode);
            ROk(Subsystem_TO::from_value(
                NullSubsystem {
                    slot,
                    runtime,
                    frames: 0,
                },
                TD_Opaque,
            ))
        }
        None => RResult::RErr(PluginError::new(
            iron3d_abi::ErrorKind::Unsupported,
            format!("iron3d-null has no factory '{factory}'"),
        )),
    }
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// A slot filled with nothing: no behaviour, empty state.
pub struct NullSubsystem {
    slot: SlotKind,
    runtime: PluginRuntime,
    frames: u64,
}

impl Subsystem for NullSubsystem {
    fn slot(&self) -> SlotKind {
        self.slot
    }

    fn init(&mut self, ctx: &MissionContext) -> RResult<(), PluginError> {
        let slot = self.slot;
        self.runtime.call("init", || {
            tracing::debug!(mission = ctx.mission.as_str(), "null {slot} ready");
            ROk(())
        })
    }

    fn save_state(&self) -> RResult<StateBlob, PluginError> {
        ROk(StateBlob {
            format: RString::from(NULL_STATE_FORMAT),
            version: 1,
            bytes: RVec::new(),
        })
    }

    fn restore_state(&mut self, _blob: &StateBlob) -> RResult<(), PluginError> {
        // A placeholder takes over any state by dropping it.
        ROk(())
    }

    fn render(&mut self) -> ROption<RenderBackend_TO<'_, RMut<'_, ()>>> {
        if self.slot == SlotKind::Render {
            ROption::RSome(RenderBackend_TO::from_ptr(RMut::new(self), TD_Opaque))
        } else {
            ROption::RNone
        }
    }
}

impl RenderBackend for NullSubsystem {
    fn render_frame(&mut self, frame: &FrameView<'_>) -> RResult<RenderStats, PluginError> {
        self.frames += 1;
        ROk(RenderStats {
            draw_items: 0,
            objects: frame.objects.len() as u32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_one_factory_per_slot() {
        let d = describe();
        assert_eq!(d.factories.len(), 8);
        assert_eq!(d.abi_major, iron3d_abi::ABI_MAJOR);
        assert!(
            d.factories
                .iter()
                .any(|f| f.name.as_str() == "null-render" && f.slot == SlotKind::Render)
        );
    }
}
