//! The mission parameters (`--param KEY=VALUE`, `Host::mission_parameter`) the gameplay
//! rules read.

/// The player's clan: a SuperAI slot number, [`DEFAULT_PLAYER_CLAN`] when absent
/// ([`parse_player_clan`]). The seat and the HUD count the units whose published clan is
/// this slot's (PD-SEAT-CLAN, [`crate::clan::behavior_clan`]).
pub const PLAYER_CLAN: &str = "player-clan";

/// The player's clan without [`PLAYER_CLAN`]: slot 0, the mission's first clan.
pub const DEFAULT_PLAYER_CLAN: u32 = 0;

/// `1` runs the mission as the auto-demo: the AI's outcome latch suppresses every
/// outcome write, so the mission never ends decided (any other value or none: an
/// ordinary mission).
pub const AUTO_DEMO: &str = "auto-demo";

/// The clan slot a [`PLAYER_CLAN`] value names: a decimal `u32`, surrounding white space
/// ignored; `None` when it is not one.
pub fn parse_player_clan(value: &str) -> Option<u32> {
    value.trim().parse().ok()
}

/// Whether an [`AUTO_DEMO`] value turns the auto-demo on: exactly `1`.
pub fn auto_demo(value: &str) -> bool {
    value == "1"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_player_clan_is_a_slot_number() {
        assert_eq!(parse_player_clan("0"), Some(0));
        assert_eq!(parse_player_clan(" 2\n"), Some(2));
        assert_eq!(parse_player_clan("4294967295"), Some(u32::MAX));
        for bad in ["", "-1", "one", "1.0", "4294967296"] {
            assert_eq!(parse_player_clan(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn only_one_turns_the_auto_demo_on() {
        assert!(auto_demo("1"));
        for v in ["", "0", " 1", "true", "yes"] {
            assert!(!auto_demo(v), "{v:?}");
        }
    }
}
