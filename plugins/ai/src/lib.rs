//! The `ai` plugin (AI slot, the registry's default; library `iron3d_ai`): the plugin
//! shell of the first-party AI. Everything it does — SuperAI per clan, Behavior per
//! unit, the economy, combat, objectives, orders, the state blob — is
//! [`iron3d_ai_rules`]'s [`AiPlugin`] under the standard doctrine; this crate only
//! describes it (plugin `iron3d-ai`, factory `ai` in the AI slot) and exports the
//! library's one root module.
//!
//! An alternative AI (`mods/rush-ai`) links `iron3d-ai-rules`, not this crate, and
//! exports [`AiPlugin::with_doctrine`] under a name of its own; both instances write the
//! same state blob, so they hot-swap into each other.

use iron3d_abi::{FactoryDescription, Plugin, PluginDescription, PluginError, SlotKind};
use iron3d_ai_rules::plugin::AiPlugin;

/// The plugin's name in listings (`plugin slot=ai iron3d-ai …`) and in recorded plugin
/// sets.
pub const PLUGIN_NAME: &str = "iron3d-ai";

/// The one factory, the AI slot's.
pub const FACTORY: &str = "ai";

/// The library's description: plugin [`PLUGIN_NAME`], factory [`FACTORY`] in the AI
/// slot.
pub fn describe() -> PluginDescription {
    PluginDescription::current(
        PLUGIN_NAME,
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::of(FACTORY, SlotKind::Ai)],
    )
}

/// Creates the instance of `factory`: the standard AI ([`AiPlugin::default`]).
///
/// # Errors
/// [`PluginError::no_factory`] for a factory other than [`FACTORY`].
pub fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    if factory != FACTORY {
        return Err(PluginError::no_factory(PLUGIN_NAME, factory));
    }
    Ok(Box::new(AiPlugin::default()))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn the_description_names_the_plugin_and_the_ai_slot() {
        let d = describe();
        assert_eq!(d.name.as_str(), "iron3d-ai");
        assert_eq!(d.factories.len(), 1);
        let f = &d.factories[0];
        assert_eq!(f.name.as_str(), "ai");
        assert_eq!(f.slot, SlotKind::Ai);
    }

    #[test]
    fn the_factory_creates_the_standard_ai_and_refuses_other_names() {
        assert!(create("ai").is_ok());
        for bad in ["", "AI", "iron3d-ai", "ai\0"] {
            let e = create(bad).err().unwrap();
            assert!(e.message.as_str().contains("iron3d-ai"), "{}", e.message);
        }
    }
}
