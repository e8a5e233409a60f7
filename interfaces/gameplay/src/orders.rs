//! The order messages: plugin messages (`iron3d_abi::Message`, code in the plugin range
//! `0x1000_0000..=0x7FFF_FFFF`) addressed to one unit. A player's seat (the `input`
//! plugin) or a mod sends them; the AI plugin obeys them (PD-AI-ORDERS).
//!
//! | code | fields | who obeys |
//! |---|---|---|
//! | [`ORDER_MOVE`] | `point` = destination | every mobile unit |
//! | [`ORDER_ATTACK`] | `object_b` = target id | armed mobile units (fighters, animals) |
//! | [`ORDER_PATROL`] | `point` = centre of the patrol ring | fighters, animals |
//! | [`ORDER_HARVEST`] | `object_b` = mine id (its clan's or unowned) | transports |
//! | [`ORDER_CANCEL`] | — | every mobile unit: the order is dropped |
//! | [`ORDER_POSSESS`] | — | the player drives the unit: Behavior stops thinking and steering for it and drops its order |
//! | [`ORDER_RELEASE`] | — | Behavior takes the unit back at once |
//! | [`ORDER_FIRE`] | `point` = aim point | a possessed armed unit fires once at the next combat step (turret rate and reload apply) |
//!
//! Fields not named are ignored. An order a unit cannot obey is refused by the AI (a
//! line on its `Behavior.log`) and changes nothing. The numbers are part of recorded
//! runs (a replay's messages): they never change.

/// Move to `point` (to the unit).
pub const ORDER_MOVE: u32 = 0x1000_A100;
/// Drop the order (to the unit).
pub const ORDER_CANCEL: u32 = 0x1000_A101;
/// The player drives the unit from now on (to the unit).
pub const ORDER_POSSESS: u32 = 0x1000_A102;
/// The player left the unit; Behavior drives it again (to the unit).
pub const ORDER_RELEASE: u32 = 0x1000_A103;
/// Attack the object `object_b` until it is dead or gone (to the unit).
pub const ORDER_ATTACK: u32 = 0x1000_A104;
/// Patrol the ring about `point` (to the unit).
pub const ORDER_PATROL: u32 = 0x1000_A105;
/// Harvest the mine `object_b` (to the unit).
pub const ORDER_HARVEST: u32 = 0x1000_A106;
/// A possessed unit fires at `point` (to the unit).
pub const ORDER_FIRE: u32 = 0x1000_A107;

/// Every order code, ascending; the AI answers exactly these.
pub const ORDERS: [u32; 8] = [
    ORDER_MOVE,
    ORDER_CANCEL,
    ORDER_POSSESS,
    ORDER_RELEASE,
    ORDER_ATTACK,
    ORDER_PATROL,
    ORDER_HARVEST,
    ORDER_FIRE,
];

/// Whether `code` is one of the [`ORDERS`].
pub const fn is_order(code: u32) -> bool {
    code >= ORDER_MOVE && code <= ORDER_FIRE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codes_are_the_recorded_numbers() {
        assert_eq!(
            ORDERS,
            [
                0x1000_A100,
                0x1000_A101,
                0x1000_A102,
                0x1000_A103,
                0x1000_A104,
                0x1000_A105,
                0x1000_A106,
                0x1000_A107
            ]
        );
    }

    #[test]
    fn orders_are_plugin_codes_and_is_order_matches_the_list() {
        for c in ORDERS {
            assert!((0x1000_0000..=0x7FFF_FFFF).contains(&c));
            assert!(is_order(c));
        }
        for c in [0, 1, 0x100, ORDER_MOVE - 1, ORDER_FIRE + 1, u32::MAX] {
            assert!(!is_order(c), "{c:#x}");
            assert!(!ORDERS.contains(&c));
        }
    }
}
