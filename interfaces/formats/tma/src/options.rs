//! Reader options: the named, opt-in quirks of the compatible reader, the count limits,
//! and the diagnostics that report every quirk a parse actually applied.

use crate::error::{Check, TmaError};
use std::fmt;

/// A named leniency of the compatible reader. Each one turns specific strict failures
/// into a [`Diagnostic`]; nothing else is ever relaxed. Structural failures (truncation,
/// counts past the end, an unknown clan mode, trailing bytes) stay fatal in every mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Quirk {
    /// A version word differs from the known value (1/6/10/1/1). The raw value is kept
    /// (and written back) and the file is read with the known layout. Tolerates the five
    /// version checks (FORMATS §5.6, tome IV: "compatible mode сохраняет raw value").
    UnknownVersions,
    /// `class_or_flags != 0x80000002`. The strict rule is from fparkan source; the tome
    /// only observes the value. Tolerates [`Check::ClassOrFlags`].
    OtherClassOrFlags,
    /// A position, orientation or scale component is NaN or infinite (rejected by
    /// fparkan; the tome is silent). Tolerates [`Check::FiniteTransform`].
    NonFiniteTransforms,
    /// A count exceeds the [`Limits`] in force but still fits the remaining bytes.
    /// Tolerates [`Check::CountLimit`].
    CountsOverLimits,
}

impl Quirk {
    /// Every quirk, in declaration order.
    pub const ALL: [Quirk; 4] = [
        Quirk::UnknownVersions,
        Quirk::OtherClassOrFlags,
        Quirk::NonFiniteTransforms,
        Quirk::CountsOverLimits,
    ];

    /// A stable `snake_case` name.
    pub const fn name(self) -> &'static str {
        match self {
            Quirk::UnknownVersions => "unknown_versions",
            Quirk::OtherClassOrFlags => "other_class_or_flags",
            Quirk::NonFiniteTransforms => "non_finite_transforms",
            Quirk::CountsOverLimits => "counts_over_limits",
        }
    }

    /// The strict checks this quirk may turn into diagnostics.
    pub const fn tolerates(self) -> &'static [Check] {
        match self {
            Quirk::UnknownVersions => &[
                Check::FormatVersion,
                Check::ClanSectionVersion,
                Check::ObjectSectionVersion,
                Check::PropertySchemaVersion,
                Check::ExtraSectionVersion,
            ],
            Quirk::OtherClassOrFlags => &[Check::ClassOrFlags],
            Quirk::NonFiniteTransforms => &[Check::FiniteTransform],
            Quirk::CountsOverLimits => &[Check::CountLimit],
        }
    }

    const fn bit(self) -> u32 {
        match self {
            Quirk::UnknownVersions => 1,
            Quirk::OtherClassOrFlags => 2,
            Quirk::NonFiniteTransforms => 4,
            Quirk::CountsOverLimits => 8,
        }
    }
}

impl fmt::Display for Quirk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Upper bounds on counts, checked after the count is known to fit the remaining bytes.
/// The defaults ([`Limits::FPARKAN`]) are FParkan's safety limits (FORMATS §5.6, from
/// fparkan source); they are not format rules, hence [`Quirk::CountsOverLimits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// `path_count`.
    pub paths: u32,
    /// `point_count` of one path.
    pub points_per_path: u32,
    /// `clan_count`.
    pub clans: u32,
    /// `relation_count` of one clan.
    pub relations_per_clan: u32,
    /// `spatial_group_count` of one mode-0 clan.
    pub spatial_groups_per_clan: u32,
    /// `object_count`.
    pub objects: u32,
    /// `property_count` of one object.
    pub properties_per_object: u32,
    /// `extra_count`.
    pub extras: u32,
}

impl Limits {
    /// FParkan's limits: paths 16 384, points 1 000 000, clans 16 384, relations 65 536,
    /// spatial groups 65 536, objects/properties/extras 1 000 000.
    pub const FPARKAN: Limits = Limits {
        paths: 16_384,
        points_per_path: 1_000_000,
        clans: 16_384,
        relations_per_clan: 65_536,
        spatial_groups_per_clan: 65_536,
        objects: 1_000_000,
        properties_per_object: 1_000_000,
        extras: 1_000_000,
    };

    /// No limit beyond "fits the remaining bytes".
    pub const NONE: Limits = Limits {
        paths: u32::MAX,
        points_per_path: u32::MAX,
        clans: u32::MAX,
        relations_per_clan: u32::MAX,
        spatial_groups_per_clan: u32::MAX,
        objects: u32::MAX,
        properties_per_object: u32::MAX,
        extras: u32::MAX,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::FPARKAN
    }
}

/// How to read: [`ReadOptions::strict`] (the default: no quirk, [`Limits::FPARKAN`]) or
/// with named quirks ([`ReadOptions::compatible`] enables all of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReadOptions {
    quirks: u32,
    limits: Limits,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self::strict()
    }
}

impl ReadOptions {
    /// Every check is fatal; FParkan limits.
    pub const fn strict() -> Self {
        Self {
            quirks: 0,
            limits: Limits::FPARKAN,
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
            limits: Limits::FPARKAN,
        }
    }

    /// These options plus `quirk`.
    #[must_use]
    pub const fn with(self, quirk: Quirk) -> Self {
        Self {
            quirks: self.quirks | quirk.bit(),
            limits: self.limits,
        }
    }

    /// These options with other count limits.
    #[must_use]
    pub const fn with_limits(self, limits: Limits) -> Self {
        Self {
            quirks: self.quirks,
            limits,
        }
    }

    /// Whether `quirk` is enabled.
    pub const fn allows(&self, quirk: Quirk) -> bool {
        self.quirks & quirk.bit() != 0
    }

    /// The enabled quirks.
    pub fn quirks(&self) -> impl Iterator<Item = Quirk> + '_ {
        Quirk::ALL.into_iter().filter(|q| self.allows(*q))
    }

    /// The count limits in force.
    pub const fn limits(&self) -> Limits {
        self.limits
    }
}

/// One strict failure that a quirk tolerated during a compatible parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The quirk that was applied.
    pub quirk: Quirk,
    /// The strict error it tolerated (check, record, field, offset, expected vs found).
    pub tolerated: TmaError,
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
        assert_eq!(ReadOptions::strict().quirks().count(), 0);
        assert_eq!(
            ReadOptions::compatible().quirks().collect::<Vec<_>>(),
            Quirk::ALL
        );
        assert_eq!(ReadOptions::default(), ReadOptions::strict());
        let one = ReadOptions::strict().with(Quirk::OtherClassOrFlags);
        assert!(one.allows(Quirk::OtherClassOrFlags) && !one.allows(Quirk::UnknownVersions));
        assert_eq!(one.with_limits(Limits::NONE).limits(), Limits::NONE);
    }

    #[test]
    fn every_tolerated_check_is_a_read_check_owned_by_one_quirk() {
        let mut seen = Vec::new();
        for q in Quirk::ALL {
            for c in q.tolerates() {
                assert!(Check::READ_CHECKS.contains(c), "{q}: {c}");
                assert!(!seen.contains(c), "{c} tolerated twice");
                seen.push(*c);
            }
        }
    }
}
