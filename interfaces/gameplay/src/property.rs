//! The object properties of the gameplay contract: names and raw-value layouts.
//!
//! A property is a name and four raw words (`raw_value`, FORMATS §5.5); a bag may hold
//! a name more than once and every reader here takes the **first** property whose name
//! matches exactly and case-sensitively (MisLoad's rule, §5.5; `Host::property`,
//! `PropertyBag::first`). Every property of this contract keeps its value in word 1
//! ([`VALUE_WORD`]), the word MisLoad passes to the Behavior setter; writers of a new
//! property write the other words 0 ([`WordProperty::raw`]), and updates keep them
//! ([`WordProperty::with_value`]).
//!
//! | property | word 1 | written by | read by |
//! |---|---|---|---|
//! | [`LIFE_STATE`] | life points; 0: destroyed | missions, spawners, the AI (built units) | the AI (damage), the scenario, the HUD, the trace `life` |
//! | [`CLAN_ID`] | the clan the object was placed or created with | missions, the AI (built units), the scenario | the AI (created objects, PD-AI-CLAN), the trace `clan` |
//! | [`CURRENT_ORE`] | current ore, bit-exact (§5.5, §13.12) | missions, the AI | the AI, the HUD, the trace `ore` |
//! | [`BEHAVIOR_CLAN`] | SuperAI slot + 1; 0: no clan ([`crate::clan`]) | the AI | the seat (PD-SEAT-CLAN), the HUD |
//! | [`BEHAVIOR_TARGET`] | id the unit aims at, harvests or delivers to; 0: none | the AI | the trace `target` |
//! | [`BEHAVIOR_PATH`] | the unit's path revision (bumped by every plan) | the AI | the trace `path`, benchmarks |
//! | [`INVULNERABILITY`], [`NOT_USED`] | 0 | missions, the scenario | nothing |

/// The word of a property's raw value that holds its value (FORMATS §5.5: the word
/// MisLoad passes to the Behavior setter).
pub const VALUE_WORD: usize = 1;

/// A property of the contract whose value is the `u32` in word [`VALUE_WORD`] of its raw
/// value: its exact name and accessors for that layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WordProperty(&'static str);

impl WordProperty {
    /// The exact name (ASCII, so its CP1251 bytes are its UTF-8 bytes).
    pub const fn name(self) -> &'static str {
        self.0
    }

    /// The exact name as the bytes a property bag stores and matches.
    pub const fn as_bytes(self) -> &'static [u8] {
        self.0.as_bytes()
    }

    /// The value held in `raw` (word [`VALUE_WORD`]).
    pub const fn value(self, raw: [u32; 4]) -> u32 {
        raw[VALUE_WORD]
    }

    /// The raw value of a new property holding `value`: `[0, value, 0, 0]`.
    pub const fn raw(self, value: u32) -> [u32; 4] {
        let mut raw = [0; 4];
        raw[VALUE_WORD] = value;
        raw
    }

    /// `raw` with its value replaced by `value`; the other words are kept.
    pub const fn with_value(self, raw: [u32; 4], value: u32) -> [u32; 4] {
        let mut raw = raw;
        raw[VALUE_WORD] = value;
        raw
    }
}

/// `Life state`: word 1 is the object's life; 0 is destroyed (the AI kills an object
/// whose life a shot brings to 0, the scenario deletes it). An object without it cannot
/// be damaged; on every object of the original demo (FORMATS §5.5).
pub const LIFE_STATE: WordProperty = WordProperty("Life state");

/// `ClanID`: word 1 is the clan an object was placed or created with (FORMATS §5.5, unit
/// references). For an object created during play the AI reads it as the object's
/// SuperAI slot and writes the slot into the units its plants build (PD-AI-CLAN); a
/// mission's own objects take their clan from their TMA record, so there it is
/// informational.
pub const CLAN_ID: WordProperty = WordProperty("ClanID");

/// `CurrentOre`: word 1 is the ore an object holds, stored bit-exact (no float
/// reinterpretation; FORMATS §5.5, §13.12). At load it overrides the class default; the
/// AI mirrors each holder's ore (whole units) into it as the economy steps.
pub const CURRENT_ORE: WordProperty = WordProperty("CurrentOre");

/// `BehaviorClan` (ours): word 1 is the unit's clan as the AI knows it, SuperAI slot + 1,
/// 0 for none ([`crate::clan::behavior_clan`]); written by the AI the first time it
/// publishes a unit, so a seat knows the player's own units (PD-SEAT-CLAN).
pub const BEHAVIOR_CLAN: WordProperty = WordProperty("BehaviorClan");

/// `BehaviorTarget` (ours): word 1 is the id the unit aims at, harvests or delivers to;
/// 0 for none. Written by the AI when it changes; the trace's `target`.
pub const BEHAVIOR_TARGET: WordProperty = WordProperty("BehaviorTarget");

/// `BehaviorPath` (ours): word 1 is the unit's path revision, bumped by every (re-)plan.
/// Written by the AI when it changes; the trace's `path`.
pub const BEHAVIOR_PATH: WordProperty = WordProperty("BehaviorPath");

/// `Invulnerability` (FORMATS §5.5): on every placed object of the original demo; the
/// scenario writes it 0. Nothing reads it.
pub const INVULNERABILITY: WordProperty = WordProperty("Invulnerability");

/// `NOT USED` (FORMATS §5.5): a normal property that appears very often; the scenario
/// writes it 0. Nothing reads it.
pub const NOT_USED: WordProperty = WordProperty("NOT USED");

/// Every property of the contract.
pub const ALL: [WordProperty; 8] = [
    LIFE_STATE,
    CLAN_ID,
    CURRENT_ORE,
    BEHAVIOR_CLAN,
    BEHAVIOR_TARGET,
    BEHAVIOR_PATH,
    INVULNERABILITY,
    NOT_USED,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_are_the_bytes_missions_and_traces_hold() {
        let names: Vec<&[u8]> = ALL.iter().map(|p| p.as_bytes()).collect();
        assert_eq!(
            names,
            [
                &b"Life state"[..],
                b"ClanID",
                b"CurrentOre",
                b"BehaviorClan",
                b"BehaviorTarget",
                b"BehaviorPath",
                b"Invulnerability",
                b"NOT USED",
            ]
        );
        for p in ALL {
            assert!(p.name().is_ascii());
            assert_eq!(p.name().as_bytes(), p.as_bytes());
        }
        // Names are distinct (a reader takes the first exact match).
        for (i, a) in ALL.iter().enumerate() {
            assert!(ALL[i + 1..].iter().all(|b| b != a), "{a:?}");
        }
    }

    #[test]
    fn the_value_is_word_one() {
        assert_eq!(VALUE_WORD, 1);
        assert_eq!(LIFE_STATE.raw(100), [0, 100, 0, 0]);
        assert_eq!(CLAN_ID.raw(0), [0; 4]);
        assert_eq!(NOT_USED.raw(0), [0; 4]);
        assert_eq!(CURRENT_ORE.value([9, 0x4120_0000, 7, 8]), 0x4120_0000);
        assert_eq!(BEHAVIOR_PATH.value(BEHAVIOR_PATH.raw(u32::MAX)), u32::MAX);
    }

    #[test]
    fn an_update_keeps_the_other_words() {
        assert_eq!(LIFE_STATE.with_value([1, 2, 3, 4], 9), [1, 9, 3, 4]);
        for v in [0, 1, 77, u32::MAX] {
            let raw = [5, 6, 7, 8];
            let new = CURRENT_ORE.with_value(raw, v);
            assert_eq!(CURRENT_ORE.value(new), v);
            assert_eq!((new[0], new[2], new[3]), (5, 7, 8));
        }
    }
}
