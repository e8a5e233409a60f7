//! Reader options: the named, opt-in quirks of the compatible reader, and the
//! diagnostics that report every quirk a parse actually applied.

use crate::error::{Check, NresError};
use std::fmt;

/// A named leniency of the compatible reader. Each one turns specific strict failures
/// into a [`Diagnostic`]; nothing else is ever relaxed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Quirk {
    /// The `sort_index` values are in range but are not a permutation, or the sorted view
    /// is out of order: accept the archive and look names up by a linear,
    /// ASCII-case-insensitive scan in original order (first match wins). Tolerates
    /// [`Check::SortIndexPermutation`] and [`Check::SortOrder`]; an out-of-range value
    /// ([`Check::SortIndexRange`]) stays fatal (tome III lists it outside "strict mode").
    LinearLookupWhenSortTableBroken,
    /// A payload offset is not a multiple of 8. Tome III counts alignment among the strict
    /// checks while FORMATS §2.6 does not require it, so the compatible reader accepts it.
    /// Tolerates [`Check::DataAlignment`].
    UnalignedDataOffsets,
    /// An entry read as a family carries another `type_id` (FORMATS §1.7): accept it.
    /// Tolerates [`Check::TypeId`] in [`ReadOptions::check_tag`]; the archive parse
    /// itself never checks tags.
    WrongTypeTag,
}

impl Quirk {
    /// Every quirk, in declaration order.
    pub const ALL: [Quirk; 3] = [
        Quirk::LinearLookupWhenSortTableBroken,
        Quirk::UnalignedDataOffsets,
        Quirk::WrongTypeTag,
    ];

    /// A stable `snake_case` name.
    pub const fn name(self) -> &'static str {
        match self {
            Quirk::LinearLookupWhenSortTableBroken => "linear_lookup_when_sort_table_broken",
            Quirk::UnalignedDataOffsets => "unaligned_data_offsets",
            Quirk::WrongTypeTag => "wrong_type_tag",
        }
    }

    /// The strict checks this quirk may turn into diagnostics.
    pub const fn tolerates(self) -> &'static [Check] {
        match self {
            Quirk::LinearLookupWhenSortTableBroken => {
                &[Check::SortIndexPermutation, Check::SortOrder]
            }
            Quirk::UnalignedDataOffsets => &[Check::DataAlignment],
            Quirk::WrongTypeTag => &[Check::TypeId],
        }
    }

    const fn bit(self) -> u32 {
        match self {
            Quirk::LinearLookupWhenSortTableBroken => 1,
            Quirk::UnalignedDataOffsets => 2,
            Quirk::WrongTypeTag => 4,
        }
    }
}

impl fmt::Display for Quirk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How to read: [`ReadOptions::strict`] (the default, no quirk) or with named quirks,
/// and whether rule PD-TAG-MESH (model entries carry the `MESH` tag, FORMATS §1.7, from
/// fparkan source) is relaxed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ReadOptions {
    quirks: u32,
    relax_mesh_tag: bool,
}

impl ReadOptions {
    /// Every check of the strict list is fatal.
    pub const fn strict() -> Self {
        Self {
            quirks: 0,
            relax_mesh_tag: false,
        }
    }

    /// Strict plus every quirk in [`Quirk::ALL`].
    pub const fn compatible() -> Self {
        let mut quirks = 0;
        let mut i = 0;
        while i < Quirk::ALL.len() {
            quirks |= Quirk::ALL[i].bit();
            i += 1;
        }
        Self {
            quirks,
            relax_mesh_tag: false,
        }
    }

    /// These options plus `quirk`.
    #[must_use]
    pub const fn with(self, quirk: Quirk) -> Self {
        Self {
            quirks: self.quirks | quirk.bit(),
            relax_mesh_tag: self.relax_mesh_tag,
        }
    }

    /// These options with rule PD-TAG-MESH relaxed: a model entry with any `type_id` is
    /// accepted without a diagnostic (the `MESH` tag is not confirmed by the original).
    #[must_use]
    pub const fn relax_mesh_tag(self) -> Self {
        Self {
            quirks: self.quirks,
            relax_mesh_tag: true,
        }
    }

    /// Whether rule PD-TAG-MESH is relaxed.
    pub const fn mesh_tag_relaxed(&self) -> bool {
        self.relax_mesh_tag
    }

    /// Whether `quirk` is enabled.
    pub const fn allows(&self, quirk: Quirk) -> bool {
        self.quirks & quirk.bit() != 0
    }

    /// The enabled quirks.
    pub fn quirks(&self) -> impl Iterator<Item = Quirk> + '_ {
        Quirk::ALL.into_iter().filter(|q| self.allows(*q))
    }
}

/// One strict failure that a quirk tolerated during a compatible parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The quirk that was applied.
    pub quirk: Quirk,
    /// The strict error it tolerated (check, entry, offset, expected vs found).
    pub tolerated: NresError,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "quirk {} applied: {}", self.quirk, self.tolerated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_has_no_quirk_and_compatible_has_all() {
        assert_eq!(ReadOptions::default(), ReadOptions::strict());
        assert_eq!(ReadOptions::strict().quirks().count(), 0);
        assert!(
            Quirk::ALL
                .iter()
                .all(|&q| ReadOptions::compatible().allows(q))
        );
        let one = ReadOptions::strict().with(Quirk::UnalignedDataOffsets);
        assert!(one.allows(Quirk::UnalignedDataOffsets));
        assert!(!one.allows(Quirk::LinearLookupWhenSortTableBroken));
    }
}
