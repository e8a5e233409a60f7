//! What a slot is for, chosen once from its kind when the [`PluginSlot`](super::PluginSlot)
//! is built: the generic slot asks its role where it used to branch on the slot kind.

use iron3d_abi::SlotKind;
use iron3d_kernel::CalcSlot;

/// The part a slot plays: simulation, or one of the three presentation roles (render,
/// audio, effects) that read the world, never change it and stay out of the state hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotRole {
    /// Terrain, AI, control and input: the plugin's state is in the state
    /// hash; the AI and control slots run in their calculation slot. In the render phase
    /// a plugin that offers a renderer is drawn like the render slot's (there is no
    /// capture request for it, and no swap activates there).
    Simulation(Option<CalcSlot>),
    /// The render slot (2.8): a prepared swap also activates at the frame's render phase;
    /// draws the prepared frame (the world first, while taken) and serves capture
    /// requests (see `slot/render.rs`).
    Render,
    /// The audio slot (2.6): hands the plugin the frame's `AudioFrame` in the render
    /// phase (see `slot/audio.rs`).
    Audio,
    /// The effects slot (2.11, **PD-FX-PRESENTATION**): hears messages and updates like
    /// a simulation slot but never changes the world; in the render phase, before the
    /// render slot draws, hands the plugin the frame's `EffectView` and keeps the
    /// primitives it answers for the renderer (see `slot/effects.rs`).
    Effects,
    /// The net slot (2.14, **PD-NET-ROLE**): carries the players' input between peers
    /// (`PluginHost::net_exchange`, outside the phases); its state — connections, the
    /// local player's number — differs between the peers of one match, so it stays out
    /// of the state hash, and it never changes the world: what it carries enters the
    /// simulation only as the ticks' input.
    Net,
}

impl SlotRole {
    /// The role of `slot`.
    pub fn of(slot: SlotKind) -> Self {
        match slot {
            SlotKind::Render => Self::Render,
            SlotKind::Audio => Self::Audio,
            SlotKind::Effects => Self::Effects,
            SlotKind::Net => Self::Net,
            SlotKind::Ai => Self::Simulation(Some(CalcSlot::Ai)),
            SlotKind::Control => Self::Simulation(Some(CalcSlot::Control)),
            SlotKind::Terrain | SlotKind::Input => Self::Simulation(None),
        }
    }

    /// The calculation slot the kernel runs the slot in, if any.
    pub fn calc_slot(self) -> Option<CalcSlot> {
        match self {
            Self::Simulation(calc) => calc,
            Self::Render | Self::Audio | Self::Effects | Self::Net => None,
        }
    }

    /// Whether the plugin's state is part of the state hash. Presentation is not
    /// simulation: whichever renderer, audio or effects plugin is active (and its own
    /// state) never enters it, so switching renderers, playing with or without a sound
    /// card, or with or without effects cannot change it.
    pub fn hashed(self) -> bool {
        matches!(self, Self::Simulation(_))
    }

    /// Whether the plugin may change the world (objects, messages, outcome, player view,
    /// motion requests, service calls): the presentation roles may not — which is what
    /// keeps them out of the state hash safely (`HostCall::may_write`).
    pub fn writes_world(self) -> bool {
        self.hashed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_slot_kind_has_its_role() {
        for slot in SlotKind::ALL {
            let role = SlotRole::of(slot);
            let (calc, hashed) = match slot {
                SlotKind::Ai => (Some(CalcSlot::Ai), true),
                SlotKind::Control => (Some(CalcSlot::Control), true),
                SlotKind::Render | SlotKind::Audio | SlotKind::Effects | SlotKind::Net => {
                    (None, false)
                }
                SlotKind::Terrain | SlotKind::Input => (None, true),
            };
            assert_eq!(role.calc_slot(), calc, "{slot}");
            assert_eq!(role.hashed(), hashed, "{slot}");
            assert_eq!(role.writes_world(), hashed, "{slot}");
        }
        assert_eq!(SlotRole::of(SlotKind::Render), SlotRole::Render);
        assert_eq!(SlotRole::of(SlotKind::Audio), SlotRole::Audio);
        assert_eq!(
            SlotRole::of(SlotKind::Input),
            SlotRole::Simulation(None),
            "the input slot's polling is the host's (PluginHost::poll_input), not a role's"
        );
    }
}
