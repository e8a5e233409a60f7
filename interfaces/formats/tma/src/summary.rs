//! Plain typed views of a mission for printing (e.g. as JSON by the CLI): strings as
//! CP1251-decoded text, floats as `f32` decoded from the kept bits, raw words as they are.

use crate::model::{Clan, ExtraRecord28, Path, PlacedObject, Tma};

/// A path: `{id, points: [[x, y, z], …]}`.
#[derive(Clone, Debug, PartialEq)]
pub struct PathSummary {
    /// Stable path id.
    pub id: i32,
    /// Points as floats.
    pub points: Vec<[f32; 3]>,
}

/// One relation of a clan: `{name, value}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelationSummary {
    /// The other clan's name (CP1251 text).
    pub name: String,
    /// The raw relation value.
    pub value: i32,
}

/// A clan: `{name, raw_id, mode, relations}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClanSummary {
    /// Name (CP1251 text).
    pub name: String,
    /// `raw_id`.
    pub raw_id: i32,
    /// The raw mode word (0 = spatial, 1..=3 = standard).
    pub mode: u32,
    /// The relation table in file order.
    pub relations: Vec<RelationSummary>,
}

/// One property: `{name, raw}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertySummary {
    /// Name (CP1251 text).
    pub name: String,
    /// The four raw words.
    pub raw: [u32; 4],
}

/// A placed object: `{index, resource, instance_name, position, orientation, scale,
/// properties}`.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectSummary {
    /// Position in file order.
    pub index: usize,
    /// `resource_name` (CP1251 text).
    pub resource: String,
    /// `instance_name` (CP1251 text).
    pub instance_name: String,
    /// Position.
    pub position: [f32; 3],
    /// Euler angles (radians).
    pub orientation: [f32; 3],
    /// Scale.
    pub scale: [f32; 3],
    /// The property bag in file order, duplicates kept.
    pub properties: Vec<PropertySummary>,
}

/// An extra record: `{position, raw}`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtraSummary {
    /// Position.
    pub position: [f32; 3],
    /// The four raw words.
    pub raw: [u32; 4],
}

/// The whole mission as plain values.
#[derive(Clone, Debug, PartialEq)]
pub struct MissionSummary {
    /// Paths.
    pub paths: Vec<PathSummary>,
    /// Clans.
    pub clans: Vec<ClanSummary>,
    /// Placed objects.
    pub objects: Vec<ObjectSummary>,
    /// `land_path` (CP1251 text).
    pub land_path: String,
    /// `mission_flag` (raw).
    pub mission_flag: u32,
    /// `description_raw` bytes.
    pub description_raw: Vec<u8>,
    /// Extra records.
    pub extras: Vec<ExtraSummary>,
}

impl Path {
    /// `{id, points}`.
    pub fn summary(&self) -> PathSummary {
        PathSummary {
            id: self.id,
            points: self.points_f32(),
        }
    }
}

impl Clan {
    /// `{name, raw_id, mode, relations}`.
    pub fn summary(&self) -> ClanSummary {
        ClanSummary {
            name: self.name.text(),
            raw_id: self.raw_id,
            mode: self.mode(),
            relations: self
                .relations
                .iter()
                .map(|r| RelationSummary {
                    name: r.other_clan_name.text(),
                    value: r.value,
                })
                .collect(),
        }
    }
}

impl PlacedObject {
    /// `{index, resource, instance_name, position, orientation, scale, properties}`;
    /// `index` is the object's position in the file, given by the caller.
    pub fn summary(&self, index: usize) -> ObjectSummary {
        ObjectSummary {
            index,
            resource: self.resource_name.text(),
            instance_name: self.instance_name.text(),
            position: self.position_f32(),
            orientation: self.orientation_f32(),
            scale: self.scale_f32(),
            properties: self
                .properties
                .iter()
                .map(|p| PropertySummary {
                    name: p.name.text(),
                    raw: p.raw_value,
                })
                .collect(),
        }
    }
}

impl ExtraRecord28 {
    /// `{position, raw}`.
    pub fn summary(&self) -> ExtraSummary {
        ExtraSummary {
            position: self.position_f32(),
            raw: self.raw,
        }
    }
}

impl Tma {
    /// Every piece of the mission as plain values, in file order.
    pub fn summary(&self) -> MissionSummary {
        MissionSummary {
            paths: self.paths.iter().map(Path::summary).collect(),
            clans: self.clans.iter().map(Clan::summary).collect(),
            objects: self
                .objects
                .iter()
                .enumerate()
                .map(|(i, o)| o.summary(i))
                .collect(),
            land_path: self.land_path.text(),
            mission_flag: self.mission_flag,
            description_raw: self.description_raw.as_bytes().to_vec(),
            extras: self.extras.iter().map(ExtraRecord28::summary).collect(),
        }
    }

    /// The CP1251 text view of `description_raw` (a convenience; the bytes are canonical).
    pub fn description_text(&self) -> String {
        self.description_raw.text()
    }
}
