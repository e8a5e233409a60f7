//! Clans: a clan is the index of its record in the mission's `data.tma` (its SuperAI
//! slot, FORMATS §5.2, §13.11); these are the rules every user of a clan number shares.
//!
//! * **Published clan** (PD-AI-CLAN, PD-SEAT-CLAN): the AI publishes each unit's clan in
//!   its [`BEHAVIOR_CLAN`](crate::property::BEHAVIOR_CLAN) property as slot + 1, 0 for a
//!   unit without a clan ([`behavior_clan`], [`behavior_clan_slot`]). The player's units
//!   are those whose published clan is [`behavior_clan`]`(Some(player clan))`.
//! * **Hostility** (PD-AI-CLAN): clan `a` is hostile to clan `b` when `a`'s relation
//!   table (TMA `relation_value`, §5.2) gives `b`'s name a negative value
//!   ([`hostile`]); the relation is one-sided, and a unit without a clan is nobody's
//!   enemy. The spec leaves the value's meaning open (§16); the rule is ours.

/// The published value of a unit without a clan.
pub const NO_CLAN: u32 = 0;

/// The relation value our mission writers give a hostile clan (any negative is hostile).
pub const RELATION_HOSTILE: i32 = -1;

/// The relation value our mission writers give a clan that is not hostile.
pub const RELATION_NEUTRAL: i32 = 0;

/// The `BehaviorClan` value of a unit of SuperAI slot `slot`: `slot + 1` (saturating),
/// [`NO_CLAN`] for `None`.
pub const fn behavior_clan(slot: Option<u32>) -> u32 {
    match slot {
        Some(s) => s.saturating_add(1),
        None => NO_CLAN,
    }
}

/// The SuperAI slot a `BehaviorClan` value names, `None` for [`NO_CLAN`]; the inverse of
/// [`behavior_clan`] below `u32::MAX`.
pub const fn behavior_clan_slot(value: u32) -> Option<u32> {
    value.checked_sub(1)
}

/// Whether a clan whose relation table gives another clan `relation_value` is hostile
/// to it: a negative value.
pub const fn hostile(relation_value: i32) -> bool {
    relation_value < 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_clan_is_the_slot_plus_one() {
        assert_eq!(behavior_clan(None), 0);
        assert_eq!(behavior_clan(Some(0)), 1);
        assert_eq!(behavior_clan(Some(1)), 2);
        assert_eq!(behavior_clan(Some(u32::MAX)), u32::MAX);
        assert_eq!(behavior_clan_slot(0), None);
        for s in [0, 1, 63, 64, u32::MAX - 1] {
            assert_eq!(behavior_clan_slot(behavior_clan(Some(s))), Some(s));
        }
    }

    #[test]
    fn negative_relations_are_hostile() {
        assert!(hostile(RELATION_HOSTILE));
        assert!(hostile(i32::MIN));
        assert!(!hostile(RELATION_NEUTRAL));
        assert!(!hostile(1));
        assert!(!hostile(i32::MAX));
    }
}
