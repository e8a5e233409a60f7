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

/// The seats of a match (**PD-SEAT-SEATS**): one clan slot per player, in player order,
/// separated by commas (`0,1`: player 0 commands slot 0, player 1 slot 1; at most
/// [`MAX_SEATS`]); `-` is a spectator's seat ([`SPECTATOR_SLOT`]: it commands no unit —
/// a dedicated server's, PD-NET-SERVE). Absent: one seat, player 0's, commanding [`PLAYER_CLAN`]'s slot.
/// Every seat is simulated on every peer from its own band of the tick's input
/// (`iron3d_input::SEAT_BAND`).
pub const SEATS: &str = "seats";

/// The most seats of a match.
pub const MAX_SEATS: usize = 16;

/// The seat this peer shows — its view, listener and selection markers — as a player
/// number (default 0). Presentation only: the simulation is the same whichever seat a
/// peer shows, so peers of one match differ in it.
pub const LOCAL_SEAT: &str = "local-seat";

/// The clan slot of a spectator's seat (`-` in [`SEATS`]): no mission has that many
/// clans, so no unit is the seat's.
pub const SPECTATOR_SLOT: u32 = u32::MAX;

/// The clan slots a [`SEATS`] value names, one per player ([`SPECTATOR_SLOT`] for `-`);
/// `None` when it is not 1 to [`MAX_SEATS`] slot numbers or `-` separated by commas.
pub fn parse_seats(value: &str) -> Option<Vec<u32>> {
    let slots: Option<Vec<u32>> = value
        .split(',')
        .map(|v| match v.trim() {
            "-" => Some(SPECTATOR_SLOT),
            v => parse_player_clan(v),
        })
        .collect();
    slots.filter(|s| (1..=MAX_SEATS).contains(&s.len()))
}

/// The clan slot of the seat a peer shows, from the mission parameters (`get` looks
/// one up): the [`LOCAL_SEAT`]'s slot of [`SEATS`] when both make sense, else
/// [`PLAYER_CLAN`]'s, else [`DEFAULT_PLAYER_CLAN`] (what the HUD counts as the
/// player's).
pub fn shown_clan(get: impl Fn(&str) -> Option<String>) -> u32 {
    let local: usize = get(LOCAL_SEAT)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    get(SEATS)
        .and_then(|v| parse_seats(&v))
        .and_then(|s| s.get(local).copied())
        .or_else(|| get(PLAYER_CLAN).and_then(|v| parse_player_clan(&v)))
        .unwrap_or(DEFAULT_PLAYER_CLAN)
}

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
    fn seats_are_one_clan_slot_per_player() {
        assert_eq!(parse_seats("0"), Some(vec![0]));
        assert_eq!(parse_seats("0, 1,3"), Some(vec![0, 1, 3]));
        assert_eq!(parse_seats("-,0,1"), Some(vec![SPECTATOR_SLOT, 0, 1]));
        let sixteen = vec!["1"; MAX_SEATS].join(",");
        assert_eq!(parse_seats(&sixteen).map(|s| s.len()), Some(MAX_SEATS));
        let seventeen = vec!["1"; MAX_SEATS + 1].join(",");
        for bad in ["", "0,", ",1", "a,b", "0;1", "--", seventeen.as_str()] {
            assert_eq!(parse_seats(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_shown_clan_is_the_local_seats() {
        let of = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == k)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert_eq!(shown_clan(of(&[])), DEFAULT_PLAYER_CLAN);
        assert_eq!(shown_clan(of(&[(PLAYER_CLAN, "2")])), 2);
        assert_eq!(shown_clan(of(&[(SEATS, "3,4"), (PLAYER_CLAN, "2")])), 3);
        assert_eq!(shown_clan(of(&[(SEATS, "3,4"), (LOCAL_SEAT, "1")])), 4);
        assert_eq!(
            shown_clan(of(&[(SEATS, "3,4"), (LOCAL_SEAT, "7"), (PLAYER_CLAN, "2")])),
            2,
            "no such seat"
        );
    }

    #[test]
    fn only_one_turns_the_auto_demo_on() {
        assert!(auto_demo("1"));
        for v in ["", "0", " 1", "true", "yes"] {
            assert!(!auto_demo(v), "{v:?}");
        }
    }
}
