//! Four-character type tags (FORMATS §1.7): the NRes `type_id` values of the resource
//! families, how sure the spec is of each, and the one table every writer and reader of
//! the project takes them from.
//!
//! | family | tag | evidence | checked by strict readers |
//! |---|---|---|---|
//! | MESH | `0x4853454D` | from fparkan source | yes, rule **PD-TAG-MESH**, relaxable ([`ReadOptions::relax_mesh_tag`]) |
//! | WEAR | `0x52414557` | confirmed | yes |
//! | MAT0 | `0x3054414D` | confirmed | yes |
//! | FXID | `0x44495846` | confirmed | yes |
//! | Texm | `0x6D786554` | confirmed (payload magic; the `type_id` use is from fparkan source) | yes |
//! | CTPT, NDPR, EXPL, SUND, CTLD, SWAV, BASE | their names | inferred | no (**PD-TAG-AUX**) |
//!
//! **PD-TAG-AUX** (project decision): our writers tag the auxiliary families with their
//! four-character names, since §1.7 names them the same way, but no reader ever refuses
//! an entry for a different tag there, because the values are only inferred.
//!
//! **PD-TAG-UNTYPED** (project decision): entries of families §1.7 gives no tag for
//! (`objects.rlb` prototypes, palettes) are written with `type_id` 0.

use crate::error::{EntryRef, NresError};
use crate::options::{Diagnostic, Quirk, ReadOptions};
use std::fmt;

/// An NRes `type_id` read as a little-endian `u32`; the known ones are four ASCII
/// characters ([`TypeTag::MESH`], …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct TypeTag(pub u32);

impl TypeTag {
    /// No tag (`0`): what PD-TAG-UNTYPED families get.
    pub const UNTYPED: Self = Self(0);
    /// Model entries (`MESH`, `0x4853454D`).
    pub const MESH: Self = Self::from_fourcc(*b"MESH");
    /// WEAR tables (`0x52414557`).
    pub const WEAR: Self = Self::from_fourcc(*b"WEAR");
    /// MAT0 materials (`0x3054414D`).
    pub const MAT0: Self = Self::from_fourcc(*b"MAT0");
    /// FXID effects (`0x44495846`).
    pub const FXID: Self = Self::from_fourcc(*b"FXID");
    /// Texm textures (`0x6D786554`).
    pub const TEXM: Self = Self::from_fourcc(*b"Texm");
    /// The Texm atlas chunk magic (`0x65676150`); never an entry tag.
    pub const PAGE: Self = Self::from_fourcc(*b"Page");
    /// CTPT control points (inferred).
    pub const CTPT: Self = Self::from_fourcc(*b"CTPT");
    /// NDPR provider rows (inferred).
    pub const NDPR: Self = Self::from_fourcc(*b"NDPR");
    /// EXPL (inferred).
    pub const EXPL: Self = Self::from_fourcc(*b"EXPL");
    /// SUND (inferred).
    pub const SUND: Self = Self::from_fourcc(*b"SUND");
    /// CTLD control descriptions (inferred).
    pub const CTLD: Self = Self::from_fourcc(*b"CTLD");
    /// SWAV sounds (inferred).
    pub const SWAV: Self = Self::from_fourcc(*b"SWAV");
    /// BASE structure footprints (inferred).
    pub const BASE: Self = Self::from_fourcc(*b"BASE");

    /// The tag spelled by four bytes in file order.
    pub const fn from_fourcc(bytes: [u8; 4]) -> Self {
        Self(u32::from_le_bytes(bytes))
    }

    /// The raw `type_id`.
    pub const fn value(self) -> u32 {
        self.0
    }

    /// The four characters when every byte is a printable ASCII letter or digit.
    pub fn fourcc(self) -> Option<[u8; 4]> {
        let b = self.0.to_le_bytes();
        b.iter().all(u8::is_ascii_alphanumeric).then_some(b)
    }

    /// Parses four characters starting with a letter (`"WEAR"`) or a number
    /// (`"0x52414557"`, `"1380009303"`).
    pub fn parse(text: &str) -> Option<Self> {
        let t = text.trim();
        if let Ok(b) = <[u8; 4]>::try_from(t.as_bytes()) {
            if b[0].is_ascii_alphabetic() && b.iter().all(u8::is_ascii_alphanumeric) {
                return Some(Self::from_fourcc(b));
            }
        }
        let n = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => t.parse().ok()?,
        };
        Some(Self(n))
    }
}

impl fmt::Display for TypeTag {
    /// `WEAR (0x52414557)` for a four-character tag, `0x0` otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.fourcc() {
            Some(b) => write!(f, "{} ({:#X})", b.escape_ascii(), self.0),
            None => write!(f, "{:#X}", self.0),
        }
    }
}

/// How sure FORMATS §1.7 is of a family's tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Evidence {
    /// Confirmed by the original's behaviour.
    Confirmed,
    /// Taken from the FParkan source, not confirmed.
    FparkanSource,
    /// Named the same way by the spec, value not proven.
    Inferred,
}

/// Whether strict readers check a family's tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TagCheck {
    /// Always checked (strict: error; compatible: diagnostic).
    Checked,
    /// Checked as rule PD-TAG-MESH unless [`ReadOptions::relax_mesh_tag`] is set.
    Relaxable,
    /// Written by our writers, never checked (PD-TAG-AUX).
    Unchecked,
}

/// A resource family stored in NRes entries.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Family {
    /// Display name (`"WEAR"`).
    pub name: &'static str,
    /// Its `type_id`.
    pub tag: TypeTag,
    /// How sure the spec is of the tag.
    pub evidence: Evidence,
    /// What strict readers do with a different tag.
    pub check: TagCheck,
    /// Entry-name extensions of the family, lower case without the dot.
    pub extensions: &'static [&'static str],
    /// Payload magic, when the payload carries one.
    pub magic: Option<&'static [u8]>,
}

/// The families with a tag, in the order of FORMATS §1.7.
pub static FAMILIES: [Family; 12] = [
    Family {
        name: "MESH",
        tag: TypeTag::MESH,
        evidence: Evidence::FparkanSource,
        check: TagCheck::Relaxable,
        extensions: &["msh"],
        magic: None,
    },
    Family {
        name: "WEAR",
        tag: TypeTag::WEAR,
        evidence: Evidence::Confirmed,
        check: TagCheck::Checked,
        extensions: &["wea"],
        magic: None,
    },
    Family {
        name: "MAT0",
        tag: TypeTag::MAT0,
        evidence: Evidence::Confirmed,
        check: TagCheck::Checked,
        extensions: &[],
        magic: None,
    },
    Family {
        name: "FXID",
        tag: TypeTag::FXID,
        evidence: Evidence::Confirmed,
        check: TagCheck::Checked,
        extensions: &[],
        magic: None,
    },
    Family {
        name: "Texm",
        tag: TypeTag::TEXM,
        evidence: Evidence::Confirmed,
        check: TagCheck::Checked,
        extensions: &[],
        magic: Some(b"Texm"),
    },
    Family {
        name: "CTPT",
        tag: TypeTag::CTPT,
        evidence: Evidence::Inferred,
        check: TagCheck::Unchecked,
        extensions: &["cpt"],
        magic: None,
    },
    Family {
        name: "NDPR",
        tag: TypeTag::NDPR,
        evidence: Evidence::Inferred,
        check: TagCheck::Unchecked,
        extensions: &["ndp"],
        magic: None,
    },
    Family {
        name: "EXPL",
        tag: TypeTag::EXPL,
        evidence: Evidence::Inferred,
        check: TagCheck::Unchecked,
        extensions: &[],
        magic: None,
    },
    Family {
        name: "SUND",
        tag: TypeTag::SUND,
        evidence: Evidence::Inferred,
        check: TagCheck::Unchecked,
        extensions: &[],
        magic: None,
    },
    Family {
        name: "CTLD",
        tag: TypeTag::CTLD,
        evidence: Evidence::Inferred,
        check: TagCheck::Unchecked,
        extensions: &["ctl"],
        magic: None,
    },
    Family {
        name: "SWAV",
        tag: TypeTag::SWAV,
        evidence: Evidence::Inferred,
        check: TagCheck::Unchecked,
        extensions: &["wav"],
        magic: Some(b"RIFF"),
    },
    Family {
        name: "BASE",
        tag: TypeTag::BASE,
        evidence: Evidence::Inferred,
        check: TagCheck::Unchecked,
        extensions: &["bas"],
        magic: None,
    },
];

fn extension(name: &[u8]) -> Option<&[u8]> {
    let dot = name.iter().rposition(|&b| b == b'.')?;
    Some(&name[dot + 1..])
}

impl Family {
    /// The model family.
    pub fn mesh() -> &'static Family {
        &FAMILIES[0]
    }
    /// The WEAR family.
    pub fn wear() -> &'static Family {
        &FAMILIES[1]
    }
    /// The MAT0 family.
    pub fn mat0() -> &'static Family {
        &FAMILIES[2]
    }
    /// The FXID family.
    pub fn fxid() -> &'static Family {
        &FAMILIES[3]
    }
    /// The Texm family.
    pub fn texm() -> &'static Family {
        &FAMILIES[4]
    }

    /// The family whose tag is `tag`.
    pub fn by_tag(tag: TypeTag) -> Option<&'static Family> {
        FAMILIES.iter().find(|f| f.tag == tag)
    }

    /// The family whose extension ends the entry name (ASCII case ignored).
    pub fn by_extension(name: &[u8]) -> Option<&'static Family> {
        let ext = extension(name)?;
        FAMILIES.iter().find(|f| {
            f.extensions
                .iter()
                .any(|e| e.as_bytes().eq_ignore_ascii_case(ext))
        })
    }

    /// The family an authored entry belongs to: by extension first, then by payload
    /// magic; `None` for PD-TAG-UNTYPED entries.
    pub fn infer(name: &[u8], payload: &[u8]) -> Option<&'static Family> {
        Self::by_extension(name).or_else(|| {
            FAMILIES
                .iter()
                .find(|f| f.magic.is_some_and(|m| payload.starts_with(m)))
        })
    }

    /// The tag an authored entry gets ([`TypeTag::UNTYPED`] when no family fits).
    pub fn infer_tag(name: &[u8], payload: &[u8]) -> TypeTag {
        Self::infer(name, payload).map_or(TypeTag::UNTYPED, |f| f.tag)
    }
}

impl ReadOptions {
    /// Checks that entry `entry` (tag `found`) belongs to `family`. A matching tag, an
    /// [`TagCheck::Unchecked`] family, or a relaxed MESH check gives `Ok(None)`; a
    /// mismatch is [`NresError::TypeTag`] (`[type_id] entry #i "name": expected WEAR
    /// (0x52414557), found 0x0`) unless [`Quirk::WrongTypeTag`] is enabled, which turns
    /// it into a [`Diagnostic`].
    pub fn check_tag(
        &self,
        entry: EntryRef,
        found: u32,
        family: &Family,
    ) -> Result<Option<Diagnostic>, NresError> {
        if found == family.tag.0 {
            return Ok(None);
        }
        match family.check {
            TagCheck::Unchecked => return Ok(None),
            TagCheck::Relaxable if self.mesh_tag_relaxed() => return Ok(None),
            TagCheck::Relaxable | TagCheck::Checked => {}
        }
        let error = NresError::TypeTag {
            entry,
            expected: family.tag,
            found: TypeTag(found),
        };
        if self.allows(Quirk::WrongTypeTag) {
            Ok(Some(Diagnostic {
                quirk: Quirk::WrongTypeTag,
                tolerated: error,
            }))
        } else {
            Err(error)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(index: usize, name: &str) -> EntryRef {
        EntryRef {
            index,
            name: Some(name.as_bytes().to_vec()),
        }
    }

    #[test]
    fn tags_have_the_values_of_the_spec() {
        assert_eq!(TypeTag::MESH.value(), 0x4853_454D);
        assert_eq!(TypeTag::WEAR.value(), 0x5241_4557);
        assert_eq!(TypeTag::MAT0.value(), 0x3054_414D);
        assert_eq!(TypeTag::FXID.value(), 0x4449_5846);
        assert_eq!(TypeTag::TEXM.value(), 0x6D78_6554);
        assert_eq!(TypeTag::PAGE.value(), 0x6567_6150);
        assert_eq!(TypeTag::WEAR.to_string(), "WEAR (0x52414557)");
        assert_eq!(TypeTag(0).to_string(), "0x0");
        assert_eq!(TypeTag(7).to_string(), "0x7");
    }

    #[test]
    fn tags_parse_from_names_and_numbers() {
        assert_eq!(TypeTag::parse("WEAR"), Some(TypeTag::WEAR));
        assert_eq!(TypeTag::parse("Texm"), Some(TypeTag::TEXM));
        assert_eq!(TypeTag::parse("0x52414557"), Some(TypeTag::WEAR));
        assert_eq!(TypeTag::parse("1234"), Some(TypeTag(1234)));
        assert_eq!(TypeTag::parse("12"), Some(TypeTag(12)));
        assert_eq!(TypeTag::parse("WE"), None);
        assert_eq!(TypeTag::parse("0xZZ"), None);
    }

    #[test]
    fn families_are_found_by_extension_tag_and_magic() {
        assert_eq!(
            Family::by_extension(b"tower.WEA").unwrap().tag,
            TypeTag::WEAR
        );
        assert_eq!(
            Family::by_extension(b"tank.msh").unwrap().tag,
            TypeTag::MESH
        );
        assert_eq!(Family::by_extension(b"sun.bas").unwrap().tag, TypeTag::BASE);
        assert!(Family::by_extension(b"GLASS0").is_none());
        assert_eq!(Family::infer_tag(b"GLASS0", b"Texm\0\0"), TypeTag::TEXM);
        assert_eq!(
            Family::infer_tag(b"tank_proto", b"models.rlb"),
            TypeTag::UNTYPED
        );
        assert_eq!(Family::by_tag(TypeTag::MAT0).unwrap().name, "MAT0");
        for f in &FAMILIES {
            assert_eq!(f.tag.fourcc().unwrap(), f.name.as_bytes(), "{f:?}");
        }
    }

    #[test]
    fn strict_refuses_a_wrong_confirmed_tag_with_the_named_check() {
        let e = ReadOptions::strict()
            .check_tag(entry(3, "tower.wea"), 0, Family::wear())
            .unwrap_err();
        assert_eq!(e.check(), crate::Check::TypeId);
        assert_eq!(
            e.to_string(),
            "[type_id] entry #3 \"tower.wea\": expected WEAR (0x52414557), found 0x0"
        );
        assert_eq!(
            ReadOptions::strict().check_tag(entry(0, "w"), TypeTag::WEAR.0, Family::wear()),
            Ok(None)
        );
    }

    #[test]
    fn compatible_accepts_a_wrong_tag_with_a_named_diagnostic() {
        let d = ReadOptions::compatible()
            .check_tag(entry(1, "DEFAULT"), 5, Family::mat0())
            .unwrap()
            .unwrap();
        assert_eq!(d.quirk, Quirk::WrongTypeTag);
        assert!(
            d.to_string()
                .starts_with("quirk wrong_type_tag applied: [type_id]"),
            "{d}"
        );
    }

    #[test]
    fn the_mesh_rule_is_checked_unless_relaxed_and_aux_tags_never_are() {
        let strict = ReadOptions::strict();
        assert!(
            strict
                .check_tag(entry(0, "a.msh"), 0, Family::mesh())
                .is_err()
        );
        assert_eq!(
            strict
                .relax_mesh_tag()
                .check_tag(entry(0, "a.msh"), 0, Family::mesh()),
            Ok(None)
        );
        assert!(
            strict
                .relax_mesh_tag()
                .check_tag(entry(0, "a.wea"), 0, Family::wear())
                .is_err(),
            "relaxing MESH relaxes nothing else"
        );
        let base = Family::by_tag(TypeTag::BASE).unwrap();
        assert_eq!(strict.check_tag(entry(0, "sun.bas"), 0, base), Ok(None));
    }
}
