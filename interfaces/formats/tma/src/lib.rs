//! TMA mission files (`data.tma`) of Iron3D (Parkan: Iron Strategy): a strict and a
//! compatible sequential reader, a lossless writer and constructors for authoring. A pure
//! library over `&[u8]`: no file I/O, no kernel.
//!
//! # Grammar (FORMATS §5.2, tome IV "data.tma"; all integers little-endian, packed)
//!
//! ```text
//! TMA := u32 format_version (=1)
//!        u32 path_count            Path[path_count]
//!        u32 clan_section_version (=6)
//!        u32 clan_count            Clan[clan_count]
//!        u32 object_section_version (=10)
//!        u32 object_count          PlacedObject[object_count]
//!        LpString land_path
//!        u32 mission_flag                          (layout)
//!        LpString description_raw                  (raw bytes)
//!        u32 extra_section_version (=1)
//!        u32 extra_count           ExtraRecord28[extra_count]
//!        <EOF>                                     (exactly)
//!
//! LpString     := u32 byte_length, u8 bytes[byte_length]   (CP1251 view; NUL is content)
//! Path         := i32 path_id, u32 point_count, f32 points[point_count][3]
//! Clan         := LpString name, i32 raw_id, f32 anchor_x, f32 anchor_y, u32 mode,
//!                 mode 1..3: LpString resource_path_1, i32 tag_1,
//!                            LpString resource_path_2, i32 tag_2
//!                 mode 0:    LpString first_resource,
//!                            u32 spatial_group_count,
//!                            { u32 record_count, f32 raw_spatial[record_count][5] }[..],
//!                            LpString second_resource, i32 second_tag
//!                 other:     error (layout unknown)
//!                 u32 relation_count, { LpString other_clan_name, i32 value }[..]
//! PlacedObject := u32 raw_kind, u32 class_or_flags (=0x80000002), LpString resource_name,
//!                 u32 raw_after_resource (SuperAI slot), u32 identity_or_clan_raw,
//!                 f32 position[3], f32 orientation[3], f32 scale[3],
//!                 LpString instance_name, u32 raw_after_name, i32 link0, i32 link1,
//!                 u32 property_schema_version (=1), u32 property_count,
//!                 Property[property_count]
//! Property     := u32 raw_value[4], LpString name           (ordered, duplicates kept)
//! ExtraRecord28:= f32 position[3], u32 raw[4]
//! ```
//!
//! # Reading
//!
//! [`Tma::parse`] is strict; [`Tma::parse_with`] takes [`ReadOptions`] whose named
//! [`Quirk`]s turn specific failures into [`Diagnostic`]s (never silently);
//! [`Tma::parse_compatible`] enables them all. Every count is checked (negative as
//! `i32`? fits `count × minimum record size` in the remaining bytes? within [`Limits`]?)
//! before anything is allocated. Errors ([`TmaError`]) name the [`Check`], the record
//! ([`Location`]: "object 17, property 3"), the field and its byte offset.
//!
//! # Writing and authoring
//!
//! Every record is a public struct that keeps each raw word (floats as [`RawF32`] bits),
//! so [`Tma::to_bytes`] reproduces any accepted input byte for byte. Constructors
//! (`Tma::new`, `Path::new`, `Clan::new`, `PlacedObject::new`, …) fill opaque words
//! with zero and versions with the known values; [`Tma::validate`] re-reads the result.
//!
//! ```
//! use iron3d_tma::{Clan, ClanBody, LpString, PlacedObject, Path, StandardMode, Tma};
//!
//! let lp = |s: &str| LpString::from_text(s).expect("CP1251");
//! let mut tma = Tma::new().with_land_path(lp("LAND\\Land"));
//! tma.paths.push(Path::new(7, [[0.0, 0.0, 0.0], [10.0, 0.0, 5.0]]));
//! tma.clans.push(
//!     Clan::new(lp("Игрок"), ClanBody::standard(StandardMode::One, lp("player"), lp("")))
//!         .with_relation(lp("Враг"), -1),
//! );
//! tma.objects.push(
//!     PlacedObject::new(lp("tank.dat"), [1.0, 2.0, 3.0])
//!         .with_property(lp("Life state"), [0, 1, 0, 0])
//!         .with_property(lp("NOT USED"), [0; 4])
//!         .with_property(lp("NOT USED"), [0; 4]),
//! );
//! let bytes = tma.to_bytes()?;
//! let back = Tma::parse(&bytes)?;
//! assert_eq!(back, tma);
//! assert_eq!(back.to_bytes()?, bytes);
//! assert_eq!(back.summary().clans[0].name, "Игрок");
//! # Ok::<(), iron3d_tma::TmaError>(())
//! ```
//!
//! # Decisions where the sources leave a choice
//!
//! * **Negative counts**: the grammar says `u32`, tome IV calls a "negative" count an
//!   error. A count with bit 31 set fails [`Check::NegativeCount`] (before
//!   [`Check::CountFits`], which would also reject it).
//! * **Limits** ([`Limits::FPARKAN`], from fparkan source) apply in strict mode after the
//!   count is known to fit; [`Quirk::CountsOverLimits`] tolerates them. `record_count` of
//!   a spatial group has no published limit and is bounded by the remaining bytes only.
//!   FParkan's 64 KiB `LpString` cap is "not a format rule" (FORMATS §1.4): not applied.
//! * **`class_or_flags`** and **non-finite transforms** (both from fparkan source) are
//!   strict checks with their own quirks; version words other than 1/6/10/1/1 are kept
//!   raw under [`Quirk::UnknownVersions`] and the known layout is still used.
//! * **Clan mode outside `0..=3`** is fatal in every mode: the body layout is unknown.
//! * **`extra_count`**: "0–4" is a corpus observation (FORMATS §5.8, tome VII regression
//!   list), not a rule; any count that fits is accepted, limited like other counts.
//! * **Orientation order** `Rz·Ry·Rx` ([`PlacedObject::placement_matrix`]) follows
//!   FORMATS §5.4; tome IV still calls the Euler order unconfirmed.
//! * **CP1251 byte `0x98`** (unassigned) decodes to `U+0098`, as in the WHATWG table, so
//!   the text view is total and reversible.
//! * **Owned records** rather than borrowed views: missions are small and the same
//!   structs serve authoring.
//! * **`to_bytes` returns `Result`**: an authored vector or string longer than `u32::MAX`
//!   fails [`Check::WriteLength`] instead of writing a wrong count; it never fails for a
//!   parsed file.

mod error;
pub mod fuzz_check;
mod model;
mod options;
mod read;
mod summary;
mod text;
mod write;

#[cfg(test)]
mod tests;

pub use error::{Check, Location, Site, TmaError, VersionField};
pub use model::{
    CLASS_OR_FLAGS, Clan, ClanBody, ExtraRecord28, Path, PlacedObject, Property, RawF32, Relation,
    SpatialGroup, StandardMode, Tma, f32_array, raw_array,
};
pub use options::{Diagnostic, Limits, Quirk, ReadOptions};
pub use read::Parsed;
pub use summary::{
    ClanSummary, ExtraSummary, MissionSummary, ObjectSummary, PathSummary, PropertySummary,
    RelationSummary,
};
pub use text::{LpString, cp1251_byte, cp1251_char, decode_cp1251, encode_cp1251};
