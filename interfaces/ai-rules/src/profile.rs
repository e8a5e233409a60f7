//! Class words, behaviour profiles and ore (FORMATS §13.12, §13.13, §11.12).
//!
//! **From the spec:** the class word (the second DWORD of a unit DAT) selects a
//! `behpsp.res` profile ([`profile_for`], 18 words); the profile fields
//! `Transfer_Ore_OffBoard` and `Transfer_Power_Out` start at the constructor defaults
//! 5.0 and 100.0 (that order, inferred) and `prof_mine.var` / `prof_generator.var` set
//! them to 1.0 / 0.0 and 0.0 / 10.0; an unmapped class keeps the defaults. Ore:
//! [`ore_defaults`] per class word; the effective start is the first exact
//! `CurrentOre` property's `raw_value[1]`, else the class default, and the maximum is
//! always the class default. Query `0x1005` returns `Transfer_Power_Out`; query
//! `0x1002` is (sum of the `0xE00` answers of the current tag-26 Control devices, in
//! table order) × `Transfer_Ore_OffBoard`.
//!
//! **PD-AI-PROFILES** (our rule): the byte layout of a `behpsp.res` row is not
//! documented, so the file is not read; a profile's fields are the values the spec
//! gives ([`ProfileFields::of`]) and the constructor defaults otherwise.

use iron3d_gameplay::property::CURRENT_ORE;

/// A behaviour profile of `behpsp.res`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Profile {
    /// `prof_mine.var`.
    Mine,
    /// `prof_storage.var`.
    Storage,
    /// `prof_generator.var`.
    Generator,
    /// `prof_plant.var`.
    Plant,
    /// `prof_angar.var`.
    Angar,
    /// `prof_mtp.var`.
    Mtp,
    /// `prof_institute.var`.
    Institute,
    /// `prof_bunker.var`.
    Bunker,
    /// `prof_tower.var`.
    Tower,
    /// `prof_trn.var` (transport).
    Transport,
    /// `prof_bld.var` (builder).
    Builder,
    /// `prof_war.var` (warrior).
    Warrior,
    /// `prof_hq.var`.
    Headquarters,
    /// `prof_hero.var`.
    Hero,
    /// `prof_animal.var`.
    Animal,
}

impl Profile {
    /// The profile's file name in `behpsp.res`.
    pub fn file_name(self) -> &'static str {
        match self {
            Profile::Mine => "prof_mine.var",
            Profile::Storage => "prof_storage.var",
            Profile::Generator => "prof_generator.var",
            Profile::Plant => "prof_plant.var",
            Profile::Angar => "prof_angar.var",
            Profile::Mtp => "prof_mtp.var",
            Profile::Institute => "prof_institute.var",
            Profile::Bunker => "prof_bunker.var",
            Profile::Tower => "prof_tower.var",
            Profile::Transport => "prof_trn.var",
            Profile::Builder => "prof_bld.var",
            Profile::Warrior => "prof_war.var",
            Profile::Headquarters => "prof_hq.var",
            Profile::Hero => "prof_hero.var",
            Profile::Animal => "prof_animal.var",
        }
    }
}

/// The 18 class words of the mapper (Behavior RVA `0x8A80`) and their profiles.
pub const CLASS_PROFILES: [(u32, Profile); 18] = [
    (0x8000_0004, Profile::Mine),
    (0x8000_0008, Profile::Storage),
    (0x8000_0002, Profile::Generator),
    (0x8000_0010, Profile::Plant),
    (0x8000_0040, Profile::Angar),
    (0x8000_0200, Profile::Mtp),
    (0x8000_0400, Profile::Institute),
    (0x8001_0000, Profile::Bunker),
    (0x8002_0000, Profile::Bunker),
    (0x8004_0000, Profile::Bunker),
    (0x8010_0000, Profile::Tower),
    (0x8020_0000, Profile::Tower),
    (0x0100_2000, Profile::Transport),
    (0x0100_4000, Profile::Builder),
    (0x0100_8000, Profile::Warrior),
    (0x0101_0000, Profile::Headquarters),
    (0x0102_0000, Profile::Hero),
    (0x2000_0000, Profile::Animal),
];

/// The profile of a class word, `None` when the mapper does not know it.
pub fn profile_for(class_word: u32) -> Option<Profile> {
    CLASS_PROFILES
        .iter()
        .find(|(w, _)| *w == class_word)
        .map(|&(_, p)| p)
}

/// Whether a class word makes its object a distributor member candidate (high bit).
pub fn is_resource_class(class_word: u32) -> bool {
    class_word & 0x8000_0000 != 0
}

/// The profile fields the economy reads (Behavior block `+0x820`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProfileFields {
    /// `Transfer_Ore_OffBoard` (+0x58).
    pub transfer_ore_offboard: f32,
    /// `Transfer_Power_Out` (+0x60).
    pub transfer_power_out: f32,
}

/// Constructor defaults (5.0 then 100.0 in the source; which is which is inferred).
pub const CONSTRUCTOR_DEFAULTS: ProfileFields = ProfileFields {
    transfer_ore_offboard: 5.0,
    transfer_power_out: 100.0,
};

impl ProfileFields {
    /// The fields for a profile (PD-AI-PROFILES), or the constructor defaults.
    pub fn of(profile: Option<Profile>) -> Self {
        match profile {
            Some(Profile::Mine) => Self {
                transfer_ore_offboard: 1.0,
                transfer_power_out: 0.0,
            },
            Some(Profile::Generator) => Self {
                transfer_ore_offboard: 0.0,
                transfer_power_out: 10.0,
            },
            _ => CONSTRUCTOR_DEFAULTS,
        }
    }

    /// Query `0x1005`: the energy output rate (units per second).
    pub fn query_power_out(&self) -> f32 {
        self.transfer_power_out
    }

    /// Query `0x1002`: the `0xE00` answers of the tag-26 devices, summed in table order
    /// (`f32` additions), times `Transfer_Ore_OffBoard`.
    pub fn query_ore_offboard(&self, device_answers: &[f32]) -> f32 {
        let sum = device_answers.iter().fold(0.0f32, |a, &b| a + b);
        sum * self.transfer_ore_offboard
    }
}

/// `(CurrentOre, MaximumOre)` class defaults (Behavior RVA `0x8790`); every other class
/// of this branch gets `(0, 0)`.
pub fn ore_defaults(class_word: u32) -> (u32, u32) {
    match class_word {
        0x8000_0004 => (0, 500),
        0x8000_0008 => (0, 4000),
        0x0100_2000 => (0, 2000),
        0x0100_4000 => (2000, 2000),
        _ => (0, 0),
    }
}

/// An object's ore at load: the raw `CurrentOre` word when present (kept as bits, not
/// re-computed through a float), and the class maximum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OreStart {
    /// Current amount (the property's `raw_value[1]` or the class default).
    pub current: u32,
    /// Maximum (always the class default; the `MaximumOre` setter changes nothing).
    pub maximum: u32,
    /// Whether `current` came from the property.
    pub from_property: bool,
}

/// The effective ore start of an object of `class_word` whose first exact
/// `CurrentOre` property ([`iron3d_gameplay::property::CURRENT_ORE`]) has `raw_value`
/// (if any).
pub fn ore_start(class_word: u32, current_ore_property: Option<[u32; 4]>) -> OreStart {
    let (current, maximum) = ore_defaults(class_word);
    match current_ore_property {
        Some(raw) => OreStart {
            current: CURRENT_ORE.value(raw),
            maximum,
            from_property: true,
        },
        None => OreStart {
            current,
            maximum,
            from_property: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profile_map() {
        assert_eq!(profile_for(0x8000_0004), Some(Profile::Mine));
        assert_eq!(profile_for(0x8000_0008), Some(Profile::Storage));
        assert_eq!(profile_for(0x8000_0002), Some(Profile::Generator));
        assert_eq!(profile_for(0x8000_0010), Some(Profile::Plant));
        assert_eq!(profile_for(0x8000_0040), Some(Profile::Angar));
        assert_eq!(profile_for(0x8000_0200), Some(Profile::Mtp));
        assert_eq!(profile_for(0x8000_0400), Some(Profile::Institute));
        for w in [0x8001_0000, 0x8002_0000, 0x8004_0000] {
            assert_eq!(profile_for(w), Some(Profile::Bunker));
        }
        for w in [0x8010_0000, 0x8020_0000] {
            assert_eq!(profile_for(w), Some(Profile::Tower));
        }
        assert_eq!(profile_for(0x0100_2000), Some(Profile::Transport));
        assert_eq!(profile_for(0x0100_4000), Some(Profile::Builder));
        assert_eq!(profile_for(0x0100_8000), Some(Profile::Warrior));
        assert_eq!(profile_for(0x0101_0000), Some(Profile::Headquarters));
        assert_eq!(profile_for(0x0102_0000), Some(Profile::Hero));
        assert_eq!(profile_for(0x2000_0000), Some(Profile::Animal));
        assert_eq!(profile_for(0x8000_0001), None);
        assert_eq!(profile_for(0), None);
        assert_eq!(Profile::Transport.file_name(), "prof_trn.var");
        // 18 distinct words, 15 profiles.
        let mut words: Vec<u32> = CLASS_PROFILES.iter().map(|p| p.0).collect();
        words.sort_unstable();
        words.dedup();
        assert_eq!(words.len(), 18);
    }

    #[test]
    fn buildat_category_masks_are_class_words() {
        // All twelve BuildDat.lst category masks (§6.6) appear among the class words.
        for (name, mask) in iron3d_config::builddat::CATEGORIES {
            assert!(profile_for(mask).is_some(), "{name} {mask:#x}");
        }
    }

    #[test]
    fn ore_defaults_per_class_word() {
        assert_eq!(ore_defaults(0x8000_0004), (0, 500));
        assert_eq!(ore_defaults(0x8000_0008), (0, 4000));
        assert_eq!(ore_defaults(0x0100_2000), (0, 2000));
        assert_eq!(ore_defaults(0x0100_4000), (2000, 2000));
        assert_eq!(ore_defaults(0x0100_8000), (0, 0));
        assert_eq!(ore_defaults(0x8000_0002), (0, 0));
    }

    #[test]
    fn current_ore_comes_from_the_property_word() {
        let s = ore_start(0x8000_0004, Some([0, 750, 0, 0]));
        assert_eq!((s.current, s.maximum, s.from_property), (750, 500, true));
        // The word is kept as bits, even above the maximum or as a float pattern.
        let s = ore_start(0x0100_4000, Some([0, 0x4000_0000, 9, 9]));
        assert_eq!((s.current, s.maximum), (0x4000_0000, 2000));
        let s = ore_start(0x0100_4000, None);
        assert_eq!((s.current, s.maximum, s.from_property), (2000, 2000, false));
    }

    #[test]
    fn profile_fields_and_queries() {
        assert_eq!(ProfileFields::of(None), CONSTRUCTOR_DEFAULTS);
        assert_eq!(
            ProfileFields::of(Some(Profile::Warrior)),
            CONSTRUCTOR_DEFAULTS
        );
        let g = ProfileFields::of(Some(Profile::Generator));
        assert_eq!(g.query_power_out(), 10.0);
        // AutoDemo: 10 × 0.5 s = 5 energy units.
        assert_eq!(g.query_power_out() * crate::x87::ms_to_seconds(500), 5.0);
        let m = ProfileFields::of(Some(Profile::Mine));
        assert_eq!(m.query_ore_offboard(&[2.0, 3.5]), 5.5);
        assert_eq!(CONSTRUCTOR_DEFAULTS.query_ore_offboard(&[2.0]), 10.0);
        assert_eq!(m.query_ore_offboard(&[]), 0.0);
    }
}
