//! Registry keys: the original numeric component ids ([`Cid`]), the named subsystem
//! slots of `config/plugins.ini` ([`SlotName`]) and the key of an entry ([`SlotKey`]).

use std::fmt;
use std::str::FromStr;

/// A component id of the original `Comp.ini`: the numbers 0–7, each naming the factory the
/// original engine called for one kind of component. The discriminant is the number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Cid {
    /// `0 terrain.dll LoadLandscape`: the landscape.
    Landscape = 0,
    /// `1 terrain.dll LoadBuilding`: buildings.
    Building = 1,
    /// `2 terrain.dll LoadCamera`: the camera.
    Camera = 2,
    /// `3 animesh.dll LoadAgent`: agents (animated meshes).
    Agent = 3,
    /// `4 animesh.dll LoadAgent`: a second agent kind, same factory as CID 3.
    AgentAlt = 4,
    /// `5 terrain.dll CreateAtmosphere`: the atmosphere.
    Atmosphere = 5,
    /// `6 terrain.dll CreateShader`: shaders.
    Shader = 6,
    /// `7 misload.dll LoadResearch`: research.
    Research = 7,
}

impl Cid {
    /// Every CID, in numeric order (`Cid::ALL[n].number() == n`).
    pub const ALL: [Cid; 8] = [
        Cid::Landscape,
        Cid::Building,
        Cid::Camera,
        Cid::Agent,
        Cid::AgentAlt,
        Cid::Atmosphere,
        Cid::Shader,
        Cid::Research,
    ];

    /// The largest valid CID number.
    pub const MAX: u8 = 7;

    /// The CID with this number, or `None` when `n > 7`.
    #[must_use]
    pub const fn from_number(n: u8) -> Option<Cid> {
        match n {
            0 => Some(Cid::Landscape),
            1 => Some(Cid::Building),
            2 => Some(Cid::Camera),
            3 => Some(Cid::Agent),
            4 => Some(Cid::AgentAlt),
            5 => Some(Cid::Atmosphere),
            6 => Some(Cid::Shader),
            7 => Some(Cid::Research),
            _ => None,
        }
    }

    /// The number written in the registry (0–7).
    #[must_use]
    pub const fn number(self) -> u8 {
        self as u8
    }

    /// The factory the original `Comp.ini` names for this CID (e.g. `"LoadLandscape"`).
    #[must_use]
    pub const fn meaning(self) -> &'static str {
        match self {
            Cid::Landscape => "LoadLandscape",
            Cid::Building => "LoadBuilding",
            Cid::Camera => "LoadCamera",
            Cid::Agent | Cid::AgentAlt => "LoadAgent",
            Cid::Atmosphere => "CreateAtmosphere",
            Cid::Shader => "CreateShader",
            Cid::Research => "LoadResearch",
        }
    }

    /// The library the original `Comp.ini` names for this CID, as written there
    /// (e.g. `"terrain.dll"`).
    #[must_use]
    pub const fn original_library(self) -> &'static str {
        match self {
            Cid::Landscape | Cid::Building | Cid::Camera | Cid::Atmosphere | Cid::Shader => {
                "terrain.dll"
            }
            Cid::Agent | Cid::AgentAlt => "animesh.dll",
            Cid::Research => "misload.dll",
        }
    }
}

impl fmt::Display for Cid {
    /// Writes the number, exactly as a registry key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

impl TryFrom<u8> for Cid {
    type Error = u8;

    /// Fails with the number itself when it is above 7.
    fn try_from(n: u8) -> Result<Self, Self::Error> {
        Cid::from_number(n).ok_or(n)
    }
}

/// A named subsystem slot of `config/plugins.ini`. Names are exact lower-case ASCII.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SlotName {
    /// `terrain`
    Terrain,
    /// `ai`
    Ai,
    /// `control`
    Control,
    /// `effects`
    Effects,
    /// `audio`
    Audio,
    /// `render`
    Render,
    /// `net`
    Net,
    /// `input`
    Input,
}

impl SlotName {
    /// Every slot, in the documented order (terrain, ai, control, effects, audio, render,
    /// net, input).
    pub const ALL: [SlotName; 8] = [
        SlotName::Terrain,
        SlotName::Ai,
        SlotName::Control,
        SlotName::Effects,
        SlotName::Audio,
        SlotName::Render,
        SlotName::Net,
        SlotName::Input,
    ];

    /// The key as written in `plugins.ini`; `s.as_str().parse() == Ok(s)` for every slot.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            SlotName::Terrain => "terrain",
            SlotName::Ai => "ai",
            SlotName::Control => "control",
            SlotName::Effects => "effects",
            SlotName::Audio => "audio",
            SlotName::Render => "render",
            SlotName::Net => "net",
            SlotName::Input => "input",
        }
    }
}

impl fmt::Display for SlotName {
    /// Writes [`SlotName::as_str`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of [`SlotName::from_str`]: the text is not one of the eight exact names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown slot name {0:?} (expected one of terrain, ai, control, effects, audio, render, net, input)"
)]
pub struct UnknownSlotName(pub String);

impl FromStr for SlotName {
    type Err = UnknownSlotName;

    /// Accepts exactly the lower-case names of [`SlotName::as_str`]; no trimming, no case
    /// folding (`"Terrain"` is unknown).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SlotName::ALL
            .into_iter()
            .find(|slot| slot.as_str() == s)
            .ok_or_else(|| UnknownSlotName(s.to_owned()))
    }
}

/// The key of a usable registry entry: a CID (both dialects) or a named slot
/// (`plugins.ini` only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SlotKey {
    /// A numeric component id.
    Cid(Cid),
    /// A named subsystem slot.
    Slot(SlotName),
}

impl fmt::Display for SlotKey {
    /// Writes the key exactly as it appears in a canonical registry line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SlotKey::Cid(cid) => cid.fmt(f),
            SlotKey::Slot(slot) => slot.fmt(f),
        }
    }
}

impl From<Cid> for SlotKey {
    fn from(cid: Cid) -> Self {
        SlotKey::Cid(cid)
    }
}

impl From<SlotName> for SlotKey {
    fn from(slot: SlotName) -> Self {
        SlotKey::Slot(slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cid_numbers_meanings_and_libraries_follow_the_original_table() {
        let table = [
            (0, "terrain.dll", "LoadLandscape"),
            (1, "terrain.dll", "LoadBuilding"),
            (2, "terrain.dll", "LoadCamera"),
            (3, "animesh.dll", "LoadAgent"),
            (4, "animesh.dll", "LoadAgent"),
            (5, "terrain.dll", "CreateAtmosphere"),
            (6, "terrain.dll", "CreateShader"),
            (7, "misload.dll", "LoadResearch"),
        ];
        for (i, (n, lib, meaning)) in table.into_iter().enumerate() {
            let cid = Cid::from_number(n).unwrap();
            assert_eq!(Cid::ALL[i], cid);
            assert_eq!(cid.number(), n);
            assert_eq!(cid.original_library(), lib);
            assert_eq!(cid.meaning(), meaning);
            assert_eq!(cid.to_string(), n.to_string());
            assert_eq!(Cid::try_from(n), Ok(cid));
        }
        assert_eq!(Cid::from_number(8), None);
        assert_eq!(Cid::try_from(9), Err(9));
    }

    #[test]
    fn slot_names_roundtrip_and_are_case_sensitive() {
        for slot in SlotName::ALL {
            assert_eq!(slot.as_str().parse::<SlotName>(), Ok(slot));
            assert_eq!(SlotName::from_str(&slot.to_string()), Ok(slot));
            assert_eq!(SlotKey::Slot(slot).to_string(), slot.as_str());
        }
        assert!("Terrain".parse::<SlotName>().is_err());
        assert!(" terrain".parse::<SlotName>().is_err());
        assert_eq!(
            "physics".parse::<SlotName>(),
            Err(UnknownSlotName("physics".into()))
        );
    }
}

/// Whether `name` is an acceptable service name: `[a-z0-9][a-z0-9._-]{0,63}` — the rule
/// of mod manifests and of the plugin host's service plugins.
pub fn is_service_name(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() <= 64
        && matches!(b.first(), Some(c) if c.is_ascii_lowercase() || c.is_ascii_digit())
        && b.iter().all(|&c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'.' | b'_' | b'-')
        })
}

#[cfg(test)]
mod service_name_tests {
    #[test]
    fn service_names_follow_the_manifest_rule() {
        for ok in ["pathfinding", "a", "0x", "net.lobby-2_b", &"a".repeat(64)] {
            assert!(super::is_service_name(ok), "{ok}");
        }
        for bad in [
            "",
            "Path",
            "-a",
            ".a",
            "a b",
            "a/b",
            &"a".repeat(65),
            "\u{e9}",
        ] {
            assert!(!super::is_service_name(bad), "{bad}");
        }
    }
}
