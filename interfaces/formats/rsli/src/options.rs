//! Read options: the strict profile and the named, opt-in quirks of the original.

use std::fmt;

/// A known irregularity of the original data that a compatible reader may accept.
/// Each one is scoped exactly as documented; nothing else is ever tolerated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Quirk {
    /// `deflate_eof_plus_one` (FORMATS.md §3.10): `sprites.lib::INTERF8.TEX` declares a
    /// packed range ending one byte past the end of the file. Accepted only when the
    /// method is `0x100`, the range end is exactly `file length + 1` and the name,
    /// upper-cased, is `INTERF8.TEX`; the inflater then gets `packed_size - 1` bytes.
    DeflateEofPlusOne,
    /// `sort_table_linear_lookup` (tome III: "an invalid index leads to a sequential
    /// search"): a presorted (`0xABBA`) mapping that is not a permutation or not ordered
    /// is not rejected; lookups scan the entries linearly instead. Payload transform
    /// keys still come from the stored sort fields.
    SortTableLinearLookup,
}

impl Quirk {
    /// Every quirk this crate knows.
    pub const ALL: [Quirk; 2] = [Quirk::DeflateEofPlusOne, Quirk::SortTableLinearLookup];

    /// The quirk's stable snake-case name.
    pub const fn name(self) -> &'static str {
        match self {
            Quirk::DeflateEofPlusOne => "deflate_eof_plus_one",
            Quirk::SortTableLinearLookup => "sort_table_linear_lookup",
        }
    }

    const fn bit(self) -> u32 {
        match self {
            Quirk::DeflateEofPlusOne => 1,
            Quirk::SortTableLinearLookup => 2,
        }
    }
}

impl fmt::Display for Quirk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How [`crate::Rsli::parse_with`] reads. The default is strict: no quirk is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadOptions {
    quirks: u32,
}

impl ReadOptions {
    /// Strict profile: every check of FORMATS.md §3.9, no quirk.
    pub const fn strict() -> Self {
        ReadOptions { quirks: 0 }
    }

    /// Compatible profile: strict plus every quirk in [`Quirk::ALL`].
    pub const fn compatible() -> Self {
        ReadOptions { quirks: 3 }
    }

    /// These options with `quirk` accepted as well.
    #[must_use]
    pub const fn with_quirk(self, quirk: Quirk) -> Self {
        ReadOptions {
            quirks: self.quirks | quirk.bit(),
        }
    }

    /// Whether `quirk` is accepted.
    pub const fn allows(&self, quirk: Quirk) -> bool {
        self.quirks & quirk.bit() != 0
    }
}
