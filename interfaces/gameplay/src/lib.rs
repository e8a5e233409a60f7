//! The gameplay contract of Iron3D-rs: what the plugins, the HUD and the trace agree on
//! beyond the plugin interface (`iron3d-abi`). One home for numbers and names that
//! must stay equal everywhere they are used — a plugin that sends an order, the AI that
//! obeys it, the HUD and the trace that read what the AI publishes.
//!
//! * [`orders`] — the order messages a seat or a mod sends to a unit and the AI obeys
//!   (plugin message codes `0x1000_A100..=0x1000_A107`; the rules are PD-AI-ORDERS of
//!   the AI, the seat's use PD-SEAT-ORDERS).
//! * [`property`] — the property names the plugins read and write (FORMATS §5.5: the
//!   first property whose name matches exactly and case-sensitively) and the layout of
//!   their raw values: the value is word 1, the word MisLoad passes to the Behavior
//!   setter (§5.5); `CurrentOre` bit-exact (§5.5, §13.12).
//! * [`clan`] — clans: the published `BehaviorClan` value (SuperAI slot + 1, 0 for
//!   none; PD-AI-CLAN, PD-SEAT-CLAN), hostility from a clan's relation table (FORMATS
//!   §5.2 `relation_value`; §16 leaves its meaning open, the rule here is ours), the
//!   player's clan.
//! * [`params`] — the mission parameters these rules read.
//!
//! The crate depends on nothing: it holds plain numbers and names, so an interface
//! crate, the kernel's trace, the launcher and any plugin (a mod's included) can use it.
//! Message codes are `u32` (wrap them in `iron3d_abi::MessageCode`).

pub mod clan;
pub mod orders;
pub mod params;
pub mod property;
