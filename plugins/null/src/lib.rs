//! Null plugins: a do-nothing instance for each of the eight slots (`null-terrain`,
//! `null-ai`, …). They accept any handed-over state (and drop it), so the host can fall
//! back to them after a fault without losing the mission. The null renderer draws
//! nothing and counts frames.

use iron3d_abi::{
    FactoryDescription, Plugin, PluginDescription, PluginError, RenderFrame, RenderStats, Renderer,
    SlotKind, StateBlob,
};

/// Format name of the (empty) null state blob.
pub const NULL_STATE_FORMAT: &str = "iron3d-null";

/// The factory name for `slot` (`null-<slot>`).
pub fn factory_name(slot: SlotKind) -> String {
    format!("null-{}", slot.as_str())
}

fn describe() -> PluginDescription {
    PluginDescription::current(
        "iron3d-null",
        env!("CARGO_PKG_VERSION"),
        SlotKind::ALL
            .iter()
            .map(|&slot| FactoryDescription::of(&factory_name(slot), slot))
            .collect(),
    )
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    match SlotKind::ALL
        .into_iter()
        .find(|&s| factory_name(s) == factory)
    {
        Some(slot) => Ok(Box::new(NullPlugin { slot, frames: 0 })),
        None => Err(PluginError::no_factory("iron3d-null", factory)),
    }
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// A slot filled with nothing: no behaviour, empty state.
pub struct NullPlugin {
    slot: SlotKind,
    frames: u64,
}

impl Plugin for NullPlugin {
    fn save_state(&self) -> Result<StateBlob, PluginError> {
        Ok(StateBlob::empty(NULL_STATE_FORMAT, 1))
    }

    fn restore_state(&mut self, _blob: &StateBlob) -> Result<(), PluginError> {
        // A placeholder takes over any state by dropping it.
        Ok(())
    }

    fn renderer(&mut self) -> Option<&mut dyn Renderer> {
        (self.slot == SlotKind::Render).then_some(self as &mut dyn Renderer)
    }
}

impl Renderer for NullPlugin {
    fn draw(&mut self, frame: &RenderFrame) -> Result<RenderStats, PluginError> {
        self.frames += 1;
        Ok(RenderStats {
            draw_items: 0,
            objects: u32::try_from(frame.visible.len()).unwrap_or(u32::MAX),
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
        assert!(create("null-ai").is_ok());
        assert!(create("nope").is_err());
    }
}
