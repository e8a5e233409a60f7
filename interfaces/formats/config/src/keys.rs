//! The keys of the game's text configuration files that the engine knows: which
//! component reads each one, the value in force when a file leaves it out, and the
//! original's keys that nothing reads. One list shared by the modder's guide's table
//! ("Keys the engine reads" in `mods/README.md`, compared with this list by a test),
//! `iron3d mods check` (a `Behavior.ini` key of a mod that is not here is reported) and
//! the readers' own tests (the `ai` and `control` plugins check that the keys they read
//! are exactly the ones listed for them, with these defaults).
//!
//! `Behavior.ini` (FORMATS §12.3) has three kinds of keys:
//!
//! * the eleven keys the original's code looks up (`PathFind_*`,
//!   `Network_ResourceTransferMaxDelay`), read by the `ai` plugin (and the two limits by
//!   `control`) with the project's defaults (PD-AI-DEFAULTS, PD-CTRL-LIMITS);
//! * the fourteen keys of the original's demo file (`LogFile` … `UseWizard`), known but
//!   read by nothing ([`KnownKey::readers`] empty; [`KnownKey::demo`] holds the demo's
//!   value);
//! * three project keys the `ai` plugin reads (PD-AI-CONFIG-KEYS in
//!   `iron3d_ai_rules::config`): `AttackRange`, `RetreatLife`, `OreCapacity`.
//!
//! Keys are case-sensitive and looked up in any section; the first one written wins.

/// The `Behavior.ini` file name.
pub const BEHAVIOR_INI: &str = "Behavior.ini";

/// A component that reads a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reader {
    /// The `ai` plugin (`plugins/ai`, its rules in `interfaces/ai-rules`).
    Ai,
    /// The `control` plugin (`plugins/control`).
    Control,
    /// The `audio` plugin (`plugins/audio`).
    Audio,
    /// The HUD (`launcher/hud`).
    Hud,
}

impl Reader {
    /// The name the guide's table uses.
    pub fn name(self) -> &'static str {
        match self {
            Reader::Ai => "ai",
            Reader::Control => "control",
            Reader::Audio => "audio",
            Reader::Hud => "hud",
        }
    }
}

/// Where a key comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Origin {
    /// The original game's (the spec names it).
    Original,
    /// Ours (a named project decision says what it does).
    Project,
}

impl Origin {
    /// The name the guide's table uses.
    pub fn name(self) -> &'static str {
        match self {
            Origin::Original => "original",
            Origin::Project => "project",
        }
    }
}

/// One key a modder can set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownKey {
    /// The file (as the game names it).
    pub file: &'static str,
    /// The key (`*`: every key of the file).
    pub key: &'static str,
    /// Who reads it (empty: nothing does — known, but it changes nothing).
    pub readers: &'static [Reader],
    /// The value in force when the file leaves the key out (`-` for a key nothing
    /// reads or whose absence means "none").
    pub default: &'static str,
    /// The original's or ours.
    pub origin: Origin,
    /// The value the original's demo file writes (FORMATS §12.3), if it writes one.
    pub demo: Option<&'static str>,
}

impl KnownKey {
    /// Whether something reads the key.
    pub fn is_read(&self) -> bool {
        !self.readers.is_empty()
    }
}

const fn read(
    file: &'static str,
    key: &'static str,
    readers: &'static [Reader],
    default: &'static str,
    origin: Origin,
) -> KnownKey {
    KnownKey {
        file,
        key,
        readers,
        default,
        origin,
        demo: None,
    }
}

const fn unused(file: &'static str, key: &'static str, demo: Option<&'static str>) -> KnownKey {
    KnownKey {
        file,
        key,
        readers: &[],
        default: "-",
        origin: Origin::Original,
        demo,
    }
}

const AI: &[Reader] = &[Reader::Ai];
const CONTROL_AI: &[Reader] = &[Reader::Control, Reader::Ai];
const B: &str = BEHAVIOR_INI;
const O: Origin = Origin::Original;
const P: Origin = Origin::Project;

/// Every `Behavior.ini` key the engine knows: the original's looked-up keys, the
/// project's keys, then the original demo file's keys (read by nothing).
pub const BEHAVIOR_INI_KEYS: [KnownKey; 28] = [
    read(B, "PathFind_BuildingHitDist", AI, "2", O),
    read(B, "PathFind_BuildingNearestDist", AI, "6", O),
    read(B, "PathFind_NearBuildSpeedPercent", AI, "50", O),
    read(B, "PathFind_CorridorRadius", AI, "3", O),
    read(B, "PathFind_NearDoorCoeff", AI, "0.5", O),
    read(B, "PathFind_fStepOffBuilding", AI, "1.5", O),
    read(B, "PathFind_MaxAccel", CONTROL_AI, "10", O),
    read(B, "PathFind_MaxRotation", CONTROL_AI, "180", O),
    read(B, "PathFind_fStepDist", AI, "4", O),
    read(B, "PathFind_MinPointInTrajectory", AI, "2", O),
    read(B, "Network_ResourceTransferMaxDelay", AI, "5", O),
    read(B, "AttackRange", AI, "45", P),
    read(B, "RetreatLife", AI, "25", P),
    read(B, "OreCapacity", AI, "2000", P),
    unused(B, "LogFile", Some("Behavior.log")),
    unused(B, "SaveLog", Some("0")),
    unused(B, "MaxErrorLevel", Some("1")),
    unused(B, "DefErrorLevel", Some("2")),
    unused(B, "LookBugMode", Some("0")),
    unused(B, "ShowVectors", Some("0")),
    unused(B, "NoZBuffer", Some("0")),
    unused(B, "LockBehaviour", Some("0")),
    unused(B, "UseDebugKey", Some("1")),
    unused(B, "GiveDefaultOrder", Some("0")),
    unused(B, "DefaultOrderPhase", Some("10")),
    unused(B, "DeterminMode", Some("0")),
    unused(B, "ImmortalHero", Some("0")),
    unused(B, "UseWizard", Some("1")),
];

const AUDIO: &[Reader] = &[Reader::Audio];
const HUD: &[Reader] = &[Reader::Hud];

/// The keys of the other files a mod can provide: the block files' parameters
/// (`mission.cfg` by the `audio` plugin, `briefing.cfg` and `messages.cfg` by the HUD)
/// and the INI files nothing reads (`*`).
pub const OTHER_KEYS: [KnownKey; 11] = [
    read("mission.cfg", "LIBRARY", AUDIO, "sounds.lib", O),
    read("mission.cfg", "THEME", AUDIO, "-", O),
    read("mission.cfg", "DEFAULT_VARIATIONn", AUDIO, "-", O),
    read("mission.cfg", "DAY_VARIATIONn", AUDIO, "-", O),
    read("mission.cfg", "NIGHT_VARIATIONn", AUDIO, "-", O),
    read("briefing.cfg", "Title", HUD, "-", P),
    read("briefing.cfg", "Text", HUD, "-", P),
    read("messages.cfg", "Text", HUD, "-", P),
    read("messages.cfg", "Time", HUD, "-", P),
    unused("Iron_3D.ini", "*", None),
    unused("ArealMap.ini", "*", None),
];

/// Every key of [`BEHAVIOR_INI_KEYS`] and [`OTHER_KEYS`], in that order.
pub fn known_keys() -> impl Iterator<Item = &'static KnownKey> {
    BEHAVIOR_INI_KEYS.iter().chain(OTHER_KEYS.iter())
}

/// The known `Behavior.ini` key spelled exactly `key` (keys are case-sensitive).
pub fn behavior_key(key: &str) -> Option<&'static KnownKey> {
    BEHAVIOR_INI_KEYS.iter().find(|k| k.key == key)
}

/// The `Behavior.ini` keys `reader` reads, in list order.
pub fn behavior_keys_read_by(reader: Reader) -> impl Iterator<Item = &'static str> {
    BEHAVIOR_INI_KEYS
        .iter()
        .filter(move |k| k.readers.contains(&reader))
        .map(|k| k.key)
}

/// Up to `n` known `Behavior.ini` keys nearest to `key` in spelling (edit distance,
/// ASCII case ignored; ties in list order) — what a warning about an unknown key offers.
pub fn nearest_behavior_keys(key: &str, n: usize) -> Vec<&'static str> {
    let key = key.to_ascii_lowercase();
    let mut scored: Vec<(usize, usize, &'static str)> = BEHAVIOR_INI_KEYS
        .iter()
        .enumerate()
        .map(|(i, k)| (distance(&key, &k.key.to_ascii_lowercase()), i, k.key))
        .collect();
    scored.sort_unstable();
    scored.into_iter().take(n).map(|(_, _, k)| k).collect()
}

/// Levenshtein distance over bytes.
fn distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_key_is_listed_once_per_file() {
        let mut seen = BTreeSet::new();
        for k in known_keys() {
            assert!(seen.insert((k.file, k.key)), "{} {} twice", k.file, k.key);
        }
        assert_eq!(seen.len(), BEHAVIOR_INI_KEYS.len() + OTHER_KEYS.len());
    }

    #[test]
    fn the_spec_s_keys_are_known_and_the_demo_keys_unused() {
        // FORMATS §12.3: the eleven looked-up keys and the fourteen demo keys.
        let looked_up = BEHAVIOR_INI_KEYS
            .iter()
            .filter(|k| k.origin == Origin::Original && k.is_read())
            .count();
        assert_eq!(looked_up, 11);
        let demo: Vec<&str> = BEHAVIOR_INI_KEYS
            .iter()
            .filter(|k| k.demo.is_some())
            .map(|k| k.key)
            .collect();
        assert_eq!(demo.len(), 14);
        assert_eq!((demo[0], demo[13]), ("LogFile", "UseWizard"));
        assert!(
            BEHAVIOR_INI_KEYS
                .iter()
                .filter(|k| k.demo.is_some())
                .all(|k| !k.is_read() && k.default == "-")
        );
        assert_eq!(behavior_key("SaveLog").and_then(|k| k.demo), Some("0"));
        assert_eq!(behavior_key("savelog"), None, "case-sensitive");
        let project: Vec<&str> = BEHAVIOR_INI_KEYS
            .iter()
            .filter(|k| k.origin == Origin::Project)
            .map(|k| k.key)
            .collect();
        assert_eq!(project, ["AttackRange", "RetreatLife", "OreCapacity"]);
        assert_eq!(
            behavior_keys_read_by(Reader::Control).collect::<Vec<_>>(),
            ["PathFind_MaxAccel", "PathFind_MaxRotation"]
        );
        assert_eq!(behavior_keys_read_by(Reader::Ai).count(), 14);
    }

    #[test]
    fn the_nearest_keys_are_the_closest_spellings() {
        assert_eq!(nearest_behavior_keys("AttackRang", 1), ["AttackRange"]);
        assert_eq!(nearest_behavior_keys("attackrange", 1), ["AttackRange"]);
        assert_eq!(
            nearest_behavior_keys("PathFind_MaxAcel", 2),
            ["PathFind_MaxAccel", "PathFind_MaxRotation"]
        );
        assert_eq!(nearest_behavior_keys("x", 3).len(), 3);
        assert!(nearest_behavior_keys("x", 0).is_empty());
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
    }
}
