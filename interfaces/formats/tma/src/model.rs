//! The mission document: public, constructible records that keep every raw word of the
//! file (floats as bits), with constructors for authoring and typed accessors.

use crate::text::LpString;
use std::fmt;

/// The `class_or_flags` value of every object in the corpus (strict rule).
pub const CLASS_OR_FLAGS: u32 = 0x8000_0002;

/// An `f32` kept as its raw bits, so NaN payloads, signed zeros and denormals survive a
/// round trip untouched (FORMATS §1.1).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RawF32(pub u32);

impl RawF32 {
    /// From the raw bits.
    pub const fn from_bits(bits: u32) -> Self {
        Self(bits)
    }

    /// From a float (its exact bits).
    pub const fn new(value: f32) -> Self {
        Self(value.to_bits())
    }

    /// The raw bits.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The float value.
    pub const fn get(self) -> f32 {
        f32::from_bits(self.0)
    }
}

impl From<f32> for RawF32 {
    fn from(value: f32) -> Self {
        Self::new(value)
    }
}

impl fmt::Debug for RawF32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.get();
        if v.is_nan() {
            write!(f, "NaN({:#010x})", self.0)
        } else {
            write!(f, "{v:?}")
        }
    }
}

/// Converts an array of floats to raw floats.
pub fn raw_array<const N: usize>(values: [f32; N]) -> [RawF32; N] {
    values.map(RawF32::new)
}

/// Converts an array of raw floats to floats.
pub fn f32_array<const N: usize>(values: [RawF32; N]) -> [f32; N] {
    values.map(RawF32::get)
}

/// A whole `data.tma`: every field of the grammar in file order. Counts are the lengths
/// of the vectors. [`Tma::default`] is an empty mission with the known versions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tma {
    /// `format_version` (1).
    pub format_version: u32,
    /// The paths, in file order.
    pub paths: Vec<Path>,
    /// `clan_section_version` (6).
    pub clan_section_version: u32,
    /// The clans, in file order.
    pub clans: Vec<Clan>,
    /// `object_section_version` (10).
    pub object_section_version: u32,
    /// The placed objects, in file order.
    pub objects: Vec<PlacedObject>,
    /// The landscape path.
    pub land_path: LpString,
    /// `mission_flag` (layout: raw).
    pub mission_flag: u32,
    /// `description_raw`: raw bytes that may hold service bytes and path remnants; its
    /// text view is only a convenience.
    pub description_raw: LpString,
    /// `extra_section_version` (1).
    pub extra_section_version: u32,
    /// The extra records (0..=4 in the corpus; no format limit).
    pub extras: Vec<ExtraRecord28>,
}

impl Default for Tma {
    fn default() -> Self {
        Self {
            format_version: 1,
            paths: Vec::new(),
            clan_section_version: 6,
            clans: Vec::new(),
            object_section_version: 10,
            objects: Vec::new(),
            land_path: LpString::empty(),
            mission_flag: 0,
            description_raw: LpString::empty(),
            extra_section_version: 1,
            extras: Vec::new(),
        }
    }
}

impl Tma {
    /// An empty mission with the known versions, flag 0 and empty strings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the landscape path.
    #[must_use]
    pub fn with_land_path(mut self, land_path: LpString) -> Self {
        self.land_path = land_path;
        self
    }

    /// Sets the raw description.
    #[must_use]
    pub fn with_description(mut self, description: LpString) -> Self {
        self.description_raw = description;
        self
    }

    /// Sets the mission flag.
    #[must_use]
    pub fn with_mission_flag(mut self, flag: u32) -> Self {
        self.mission_flag = flag;
        self
    }

    /// The path with stable id `id` (the first, if several share it).
    pub fn path_by_id(&self, id: i32) -> Option<&Path> {
        self.paths.iter().find(|p| p.id == id)
    }

    /// The first clan whose name equals `name` byte for byte.
    pub fn clan_by_name(&self, name: &[u8]) -> Option<&Clan> {
        self.clans.iter().find(|c| c.name.is(name))
    }
}

/// A path: `i32 path_id, u32 point_count, f32 points[point_count][3]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    /// The stable ID scripts use (not the array index).
    pub id: i32,
    /// The points in world coordinates.
    pub points: Vec<[RawF32; 3]>,
}

impl Path {
    /// A path from float points.
    pub fn new(id: i32, points: impl IntoIterator<Item = [f32; 3]>) -> Self {
        Self {
            id,
            points: points.into_iter().map(raw_array).collect(),
        }
    }

    /// The points as floats.
    pub fn points_f32(&self) -> Vec<[f32; 3]> {
        self.points.iter().map(|p| f32_array(*p)).collect()
    }
}

/// The mode of a standard clan body (`mode` 1, 2 or 3; their difference is unknown).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StandardMode {
    /// `mode == 1`.
    One = 1,
    /// `mode == 2`.
    Two = 2,
    /// `mode == 3`.
    Three = 3,
}

impl StandardMode {
    /// From the raw word, or `None` outside `1..=3`.
    pub const fn from_raw(mode: u32) -> Option<Self> {
        match mode {
            1 => Some(Self::One),
            2 => Some(Self::Two),
            3 => Some(Self::Three),
            _ => None,
        }
    }

    /// The raw word.
    pub const fn raw(self) -> u32 {
        self as u32
    }
}

/// The mode-dependent body of a clan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClanBody {
    /// Modes 1..=3: two resource pairs.
    Standard {
        /// The mode word.
        mode: StandardMode,
        /// Script/formula bundle base (`.scr`, `.var`, `.fml`).
        resource_path_1: LpString,
        /// Tag of the first resource (layout: raw).
        resource_tag_1: i32,
        /// A TRF resource or empty (inferred).
        resource_path_2: LpString,
        /// Tag of the second resource (layout: raw).
        resource_tag_2: i32,
    },
    /// Mode 0: the count-driven spatial layout.
    Spatial {
        /// Script/formula bundle base.
        first_resource: LpString,
        /// The spatial groups (layout: raw floats).
        groups: Vec<SpatialGroup>,
        /// The second resource.
        second_resource: LpString,
        /// Its tag (layout: raw).
        second_tag: i32,
    },
}

impl ClanBody {
    /// A standard body with zero tags.
    pub fn standard(mode: StandardMode, script_base: LpString, second: LpString) -> Self {
        ClanBody::Standard {
            mode,
            resource_path_1: script_base,
            resource_tag_1: 0,
            resource_path_2: second,
            resource_tag_2: 0,
        }
    }

    /// A mode-0 body with a zero tag.
    pub fn spatial(first: LpString, groups: Vec<SpatialGroup>, second: LpString) -> Self {
        ClanBody::Spatial {
            first_resource: first,
            groups,
            second_resource: second,
            second_tag: 0,
        }
    }

    /// The raw `mode` word (0 for spatial).
    pub const fn mode(&self) -> u32 {
        match self {
            ClanBody::Standard { mode, .. } => mode.raw(),
            ClanBody::Spatial { .. } => 0,
        }
    }

    /// The script/formula bundle base: `resource_path_1` or `first_resource`.
    pub fn script_base(&self) -> &LpString {
        match self {
            ClanBody::Standard {
                resource_path_1, ..
            } => resource_path_1,
            ClanBody::Spatial { first_resource, .. } => first_resource,
        }
    }
}

/// One spatial group of a mode-0 clan: `u32 record_count, f32 raw[record_count][5]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpatialGroup {
    /// The records (layout: raw; `record_count` is 1 in every live sample).
    pub records: Vec<[RawF32; 5]>,
}

impl SpatialGroup {
    /// A group from float records.
    pub fn new(records: impl IntoIterator<Item = [f32; 5]>) -> Self {
        Self {
            records: records.into_iter().map(raw_array).collect(),
        }
    }
}

/// A relation: `LpString other_clan_name, i32 relation_value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    /// The other clan's name.
    pub other_clan_name: LpString,
    /// The relation value (raw).
    pub value: i32,
}

impl Relation {
    /// A relation.
    pub fn new(other_clan_name: LpString, value: i32) -> Self {
        Self {
            other_clan_name,
            value,
        }
    }
}

/// A clan: name, raw id, anchor, mode-dependent body, relation table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clan {
    /// The clan's name.
    pub name: LpString,
    /// `raw_id` (layout).
    pub raw_id: i32,
    /// `anchor_x, anchor_y` (SuperAI base X/Y).
    pub anchor: [RawF32; 2],
    /// The mode-dependent body.
    pub body: ClanBody,
    /// The relation table, in file order.
    pub relations: Vec<Relation>,
}

impl Clan {
    /// A clan with `raw_id` 0, anchor (0, 0) and no relations.
    pub fn new(name: LpString, body: ClanBody) -> Self {
        Self {
            name,
            raw_id: 0,
            anchor: [RawF32::default(); 2],
            body,
            relations: Vec::new(),
        }
    }

    /// Sets `raw_id`.
    #[must_use]
    pub fn with_raw_id(mut self, raw_id: i32) -> Self {
        self.raw_id = raw_id;
        self
    }

    /// Sets the anchor.
    #[must_use]
    pub fn with_anchor(mut self, x: f32, y: f32) -> Self {
        self.anchor = raw_array([x, y]);
        self
    }

    /// Appends a relation.
    #[must_use]
    pub fn with_relation(mut self, other: LpString, value: i32) -> Self {
        self.relations.push(Relation::new(other, value));
        self
    }

    /// The raw `mode` word.
    pub const fn mode(&self) -> u32 {
        self.body.mode()
    }

    /// The anchor as floats.
    pub fn anchor_f32(&self) -> [f32; 2] {
        f32_array(self.anchor)
    }
}

/// A property: `u32 raw_value[4], LpString name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// The 16 raw bytes, typed only per proven name (MisLoad passes `raw_value[1]`).
    pub raw_value: [u32; 4],
    /// The name (matched exactly and case-sensitively).
    pub name: LpString,
}

impl Property {
    /// A property.
    pub fn new(name: LpString, raw_value: [u32; 4]) -> Self {
        Self { raw_value, name }
    }

    /// The word MisLoad passes to the Behavior setter (`raw_value[1]`).
    pub const fn setter_word(&self) -> u32 {
        self.raw_value[1]
    }
}

/// A placed object (see the grammar in the crate docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacedObject {
    /// `raw_kind` (layout).
    pub raw_kind: u32,
    /// `class_or_flags` ([`CLASS_OR_FLAGS`] in the corpus).
    pub class_or_flags: u32,
    /// Prototype key or unit `*.dat` path.
    pub resource_name: LpString,
    /// `raw_after_resource`: the `GetSuperAI` slot (valid n <= 63).
    pub raw_after_resource: u32,
    /// `identity_or_clan_raw` (layout).
    pub identity_or_clan_raw: u32,
    /// Position in world units.
    pub position: [RawF32; 3],
    /// Euler angles in radians, applied as `Rz(z)·Ry(y)·Rx(x)`.
    pub orientation: [RawF32; 3],
    /// Scale per axis (usually 1, 1, 1).
    pub scale: [RawF32; 3],
    /// Instance name: empty for unit refs, or the prototype stem.
    pub instance_name: LpString,
    /// `raw_after_name` (layout).
    pub raw_after_name: u32,
    /// `link0` (layout).
    pub link0: i32,
    /// `link1` (layout).
    pub link1: i32,
    /// `property_schema_version` (1).
    pub property_schema_version: u32,
    /// The ordered property bag (duplicates kept).
    pub properties: Vec<Property>,
}

impl PlacedObject {
    /// An object at `position`: orientation 0, scale 1, [`CLASS_OR_FLAGS`], schema 1,
    /// empty instance name, every opaque word 0, no properties.
    pub fn new(resource_name: LpString, position: [f32; 3]) -> Self {
        Self {
            raw_kind: 0,
            class_or_flags: CLASS_OR_FLAGS,
            resource_name,
            raw_after_resource: 0,
            identity_or_clan_raw: 0,
            position: raw_array(position),
            orientation: raw_array([0.0; 3]),
            scale: raw_array([1.0; 3]),
            instance_name: LpString::empty(),
            raw_after_name: 0,
            link0: 0,
            link1: 0,
            property_schema_version: 1,
            properties: Vec::new(),
        }
    }

    /// Sets the Euler angles (radians).
    #[must_use]
    pub fn with_orientation(mut self, orientation: [f32; 3]) -> Self {
        self.orientation = raw_array(orientation);
        self
    }

    /// Sets the scale.
    #[must_use]
    pub fn with_scale(mut self, scale: [f32; 3]) -> Self {
        self.scale = raw_array(scale);
        self
    }

    /// Sets the instance name.
    #[must_use]
    pub fn with_instance_name(mut self, name: LpString) -> Self {
        self.instance_name = name;
        self
    }

    /// Sets the SuperAI slot (`raw_after_resource`).
    #[must_use]
    pub fn with_super_ai_slot(mut self, slot: u32) -> Self {
        self.raw_after_resource = slot;
        self
    }

    /// Appends a property (duplicates allowed).
    #[must_use]
    pub fn with_property(mut self, name: LpString, raw_value: [u32; 4]) -> Self {
        self.properties.push(Property::new(name, raw_value));
        self
    }

    /// The first property named exactly `name` (case-sensitive; the MisLoad rule).
    pub fn property(&self, name: &[u8]) -> Option<&Property> {
        self.properties.iter().find(|p| p.name.is(name))
    }

    /// Position as floats.
    pub fn position_f32(&self) -> [f32; 3] {
        f32_array(self.position)
    }

    /// Orientation as floats (radians).
    pub fn orientation_f32(&self) -> [f32; 3] {
        f32_array(self.orientation)
    }

    /// Scale as floats.
    pub fn scale_f32(&self) -> [f32; 3] {
        f32_array(self.scale)
    }

    /// The static placement matrix of FORMATS §5.4, row-major 3×4 with the translation
    /// in the last column: `R = Rz(z)·Ry(y)·Rx(x)`, `world = R·(scale ⊙ local) + position`.
    pub fn placement_matrix(&self) -> [[f32; 4]; 3] {
        let [x, y, z] = self.orientation_f32();
        let (sx, cx) = x.sin_cos();
        let (sy, cy) = y.sin_cos();
        let (sz, cz) = z.sin_cos();
        let r = [
            [cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx],
            [sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx],
            [-sy, cy * sx, cy * cx],
        ];
        let s = self.scale_f32();
        let t = self.position_f32();
        let mut m = [[0.0; 4]; 3];
        for (row, (rrow, ti)) in m.iter_mut().zip(r.iter().zip(t)) {
            for ((out, rv), sv) in row.iter_mut().zip(rrow).zip(s) {
                *out = rv * sv;
            }
            row[3] = ti;
        }
        m
    }
}

/// An extra record: `f32 position[3], u32 raw[4]` (28 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExtraRecord28 {
    /// Position.
    pub position: [RawF32; 3],
    /// Four opaque words (layout).
    pub raw: [u32; 4],
}

impl ExtraRecord28 {
    /// An extra record.
    pub fn new(position: [f32; 3], raw_words: [u32; 4]) -> Self {
        Self {
            position: raw_array(position),
            raw: raw_words,
        }
    }

    /// Position as floats.
    pub fn position_f32(&self) -> [f32; 3] {
        f32_array(self.position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_matrix_matches_the_live_autodemo_sample() {
        let o = PlacedObject::new(LpString::empty(), [10.0, 20.0, 30.0]).with_orientation([
            0.0,
            0.0,
            1.626_236_3,
        ]);
        let m = o.placement_matrix();
        assert!((m[0][1] - -0.998_46).abs() < 1e-4, "{m:?}");
        assert!((m[0][0] - -0.055_41).abs() < 1e-4, "{m:?}");
        assert!((m[1][0] - 0.998_46).abs() < 1e-4, "{m:?}");
        assert_eq!([m[0][3], m[1][3], m[2][3]], [10.0, 20.0, 30.0]);
        assert_eq!(m[2][2], 1.0);
    }

    #[test]
    fn rotation_order_is_z_then_y_then_x() {
        // Local +Y: Rx(90°) maps Y→Z, Rz leaves Z alone, so +Y lands on world +Z.
        let o = PlacedObject::new(LpString::empty(), [0.0; 3]).with_orientation([
            std::f32::consts::FRAC_PI_2,
            0.0,
            std::f32::consts::FRAC_PI_2,
        ]);
        let m = o.placement_matrix();
        let col_y = [m[0][1], m[1][1], m[2][1]];
        assert!(col_y[0].abs() < 1e-6 && col_y[1].abs() < 1e-6 && (col_y[2] - 1.0).abs() < 1e-6);
        // Local +Z: Rx maps Z→-Y, Rz maps -Y→+X.
        let col_z = [m[0][2], m[1][2], m[2][2]];
        assert!((col_z[0] - 1.0).abs() < 1e-6, "{col_z:?}");
    }

    #[test]
    fn raw_floats_keep_nan_payloads_and_signed_zero() {
        for bits in [0x7FA0_0001, 0xFFC0_1234, 0x8000_0000, 0x0000_0001] {
            assert_eq!(RawF32::from_bits(bits).bits(), bits);
        }
        assert_eq!(RawF32::new(-0.0).bits(), 0x8000_0000);
        assert_eq!(
            format!("{:?}", RawF32::from_bits(0x7FC0_0001)),
            "NaN(0x7fc00001)"
        );
    }

    #[test]
    fn standard_modes_are_one_to_three() {
        assert_eq!(StandardMode::from_raw(0), None);
        assert_eq!(StandardMode::from_raw(4), None);
        for m in 1..=3 {
            assert_eq!(StandardMode::from_raw(m).map(StandardMode::raw), Some(m));
        }
    }
}
