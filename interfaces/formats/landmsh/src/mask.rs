//! Surface masks (FORMATS §6.3, tome IV "Маски поверхности"): the 32-bit full face mask
//! and its two compact forms, the 16-bit compact mask and the 6-bit material-class
//! field. Both are built bit by bit (not truncations).
//!
//! # What is kept where
//!
//! [`full_to_compact`] splits a full mask into a [`CompactMask`]:
//!
//! * the 15 full bits of [`COMPACT_TABLE`] go to `compact` (compact bit `0x4000`, which
//!   has no full bit, is always 0);
//! * the 6 full bits of [`CLASS_TABLE`] go to `class` (bits `0x3F`);
//! * the remaining 11 full bits ([`UNKNOWN_FULL_BITS`] = `0xFFD0_0000`: bit 20 and bits
//!   22..=31) are copied unchanged into `unknown`, at their full-mask positions.
//!
//! [`compact_to_full`] ORs the three parts back together, so
//! `compact_to_full(full_to_compact(x)) == x` for **every** `u32` `x`.
//!
//! In the other direction, compact bit `0x4000`, class bits above `0x3F` and `unknown`
//! bits that lie on mapped positions have no place of their own in the full mask:
//! `compact_to_full` drops the first two and merges the third (so it is normalised into
//! `compact`/`class` by the next `full_to_compact`). A [`CompactMask`] that has none of
//! them ([`CompactMask::is_canonical`]) survives `full_to_compact(compact_to_full(c))`.

/// Full-mask bit → 16-bit compact bit (FORMATS §6.3 table, tome IV).
pub const COMPACT_TABLE: [(u32, u16); 15] = [
    (0x0000_0001, 0x0001),
    (0x0000_0008, 0x0002),
    (0x0000_0010, 0x0004),
    (0x0000_0020, 0x0008),
    (0x0000_1000, 0x0010),
    (0x0000_4000, 0x0020),
    (0x0000_0002, 0x0040),
    (0x0000_0400, 0x0080),
    (0x0000_0800, 0x0100),
    (0x0002_0000, 0x0200),
    (0x0000_2000, 0x0400),
    (0x0000_0200, 0x0800),
    (0x0000_0004, 0x1000),
    (0x0000_0040, 0x2000),
    (0x0020_0000, 0x8000),
];

/// Full-mask bit → 6-bit material-class bit (FORMATS §6.3 table, tome IV).
pub const CLASS_TABLE: [(u32, u8); 6] = [
    (0x0000_0100, 0x01),
    (0x0000_8000, 0x02),
    (0x0001_0000, 0x04),
    (0x0004_0000, 0x08),
    (0x0008_0000, 0x10),
    (0x0000_0080, 0x20),
];

/// The compact bit with no full-mask counterpart.
pub const COMPACT_UNMAPPED: u16 = 0x4000;

/// Bits of the class field that carry a class (`0x3F`).
pub const CLASS_BITS: u8 = 0x3F;

const fn mapped_full_bits() -> u32 {
    let mut m = 0;
    let mut i = 0;
    while i < COMPACT_TABLE.len() {
        m |= COMPACT_TABLE[i].0;
        i += 1;
    }
    let mut i = 0;
    while i < CLASS_TABLE.len() {
        m |= CLASS_TABLE[i].0;
        i += 1;
    }
    m
}

/// Full-mask bits that neither table maps; [`full_to_compact`] keeps them in
/// [`CompactMask::unknown`]: `0xFFD0_0000` (bit 20 and bits 22..=31), computed from the
/// tables.
pub const UNKNOWN_FULL_BITS: u32 = !mapped_full_bits();

/// The compact representation of a full mask, plus the full bits it cannot express.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CompactMask {
    /// The 16-bit compact surface mask.
    pub compact: u16,
    /// The 6-bit material-class field (bits `0x3F`).
    pub class: u8,
    /// Full-mask bits of [`UNKNOWN_FULL_BITS`], at their full-mask positions.
    pub unknown: u32,
}

impl CompactMask {
    /// Whether [`compact_to_full`] keeps every bit of `self` (no compact `0x4000`, no class
    /// bit above `0x3F`, no `unknown` bit on a mapped position).
    pub const fn is_canonical(&self) -> bool {
        self.compact & COMPACT_UNMAPPED == 0
            && self.class & !CLASS_BITS == 0
            && self.unknown & !UNKNOWN_FULL_BITS == 0
    }
}

/// Splits a full 32-bit face mask into compact mask, class field and unknown bits.
pub fn full_to_compact(full: u32) -> CompactMask {
    let mut out = CompactMask {
        unknown: full & UNKNOWN_FULL_BITS,
        ..CompactMask::default()
    };
    for (f, c) in COMPACT_TABLE {
        if full & f != 0 {
            out.compact |= c;
        }
    }
    for (f, c) in CLASS_TABLE {
        if full & f != 0 {
            out.class |= c;
        }
    }
    out
}

/// Rebuilds the full mask: mapped compact and class bits plus `unknown` (see the module
/// docs for the bits that are dropped or merged).
pub fn compact_to_full(mask: CompactMask) -> u32 {
    let mut full = mask.unknown;
    for (f, c) in COMPACT_TABLE {
        if mask.compact & c != 0 {
            full |= f;
        }
    }
    for (f, c) in CLASS_TABLE {
        if mask.class & c != 0 {
            full |= f;
        }
    }
    full
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn tables_are_disjoint_and_complete() {
        let mut seen = 0u32;
        for f in COMPACT_TABLE
            .iter()
            .map(|e| e.0)
            .chain(CLASS_TABLE.iter().map(|e| e.0))
        {
            assert_eq!(f.count_ones(), 1);
            assert_eq!(seen & f, 0);
            seen |= f;
        }
        assert_eq!(UNKNOWN_FULL_BITS, 0xFFD0_0000);
        let compact: u16 = COMPACT_TABLE.iter().fold(0, |a, e| a | e.1);
        assert_eq!(compact, !COMPACT_UNMAPPED);
    }

    #[test]
    fn each_table_row() {
        for (f, c) in COMPACT_TABLE {
            assert_eq!(
                full_to_compact(f),
                CompactMask {
                    compact: c,
                    class: 0,
                    unknown: 0
                }
            );
        }
        for (f, c) in CLASS_TABLE {
            assert_eq!(
                full_to_compact(f),
                CompactMask {
                    compact: 0,
                    class: c,
                    unknown: 0
                }
            );
        }
        let m = CompactMask {
            compact: COMPACT_UNMAPPED,
            class: 0xC0,
            unknown: 1,
        };
        assert!(!m.is_canonical());
        assert_eq!(compact_to_full(m), 1);
    }

    proptest! {
        #[test]
        fn full_roundtrip(x in any::<u32>()) {
            let c = full_to_compact(x);
            prop_assert!(c.is_canonical());
            prop_assert_eq!(compact_to_full(c), x);
        }

        #[test]
        fn canonical_compact_roundtrip(compact in any::<u16>(), class in any::<u8>(), unknown in any::<u32>()) {
            let c = CompactMask {
                compact: compact & !COMPACT_UNMAPPED,
                class: class & CLASS_BITS,
                unknown: unknown & UNKNOWN_FULL_BITS,
            };
            prop_assert_eq!(full_to_compact(compact_to_full(c)), c);
        }
    }
}
