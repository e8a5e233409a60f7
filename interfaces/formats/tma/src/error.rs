//! The crate's one error type: every variant names the check that failed ([`Check`]), the
//! record ([`Location`], e.g. "object 17, property 3"), the field, the byte offset in the
//! input, and what was expected versus found.

use std::fmt;

/// The named validation rules (FORMATS §1.2 and §5.6; tome IV "data.tma").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Check {
    /// A fixed-size field lies within the input.
    Truncated,
    /// An `LpString`'s `byte_length` fits the bytes that remain.
    StringLength,
    /// A count read as `i32` is not negative (tome IV: "отрицательный count").
    NegativeCount,
    /// `count * minimum record size` fits the bytes that remain (checked before allocation).
    CountFits,
    /// A count is within the FParkan safety limits (FORMATS §5.6, from fparkan source).
    CountLimit,
    /// `format_version == 1`.
    FormatVersion,
    /// `clan_section_version == 6`.
    ClanSectionVersion,
    /// `object_section_version == 10`.
    ObjectSectionVersion,
    /// Every object's `property_schema_version == 1`.
    PropertySchemaVersion,
    /// `extra_section_version == 1`.
    ExtraSectionVersion,
    /// Clan `mode` is in `0..=3` (the layout of any other mode is unknown).
    ClanMode,
    /// `class_or_flags == 0x80000002` (from fparkan source; true for the whole corpus).
    ClassOrFlags,
    /// Object position, orientation and scale are finite (from fparkan source).
    FiniteTransform,
    /// The file ends exactly after the last extra record.
    ExactEof,
    /// Writing: every count and string length fits its `u32` field.
    WriteLength,
    /// Authoring: text encodes to CP1251.
    Cp1251Text,
}

impl Check {
    /// Every check the reader runs (all but [`Check::WriteLength`] and
    /// [`Check::Cp1251Text`]).
    pub const READ_CHECKS: [Check; 14] = [
        Check::Truncated,
        Check::StringLength,
        Check::NegativeCount,
        Check::CountFits,
        Check::CountLimit,
        Check::FormatVersion,
        Check::ClanSectionVersion,
        Check::ObjectSectionVersion,
        Check::PropertySchemaVersion,
        Check::ExtraSectionVersion,
        Check::ClanMode,
        Check::ClassOrFlags,
        Check::FiniteTransform,
        Check::ExactEof,
    ];

    /// A stable `snake_case` name, used in messages and diagnostics.
    pub const fn name(self) -> &'static str {
        match self {
            Check::Truncated => "truncated",
            Check::StringLength => "string_length",
            Check::NegativeCount => "negative_count",
            Check::CountFits => "count_fits",
            Check::CountLimit => "count_limit",
            Check::FormatVersion => "format_version",
            Check::ClanSectionVersion => "clan_section_version",
            Check::ObjectSectionVersion => "object_section_version",
            Check::PropertySchemaVersion => "property_schema_version",
            Check::ExtraSectionVersion => "extra_section_version",
            Check::ClanMode => "clan_mode",
            Check::ClassOrFlags => "class_or_flags",
            Check::FiniteTransform => "finite_transform",
            Check::ExactEof => "exact_eof",
            Check::WriteLength => "write_length",
            Check::Cp1251Text => "cp1251_text",
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The five version words of the grammar and their known values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VersionField {
    /// `format_version` (offset 0), expected 1.
    Format,
    /// `clan_section_version`, expected 6.
    ClanSection,
    /// `object_section_version`, expected 10.
    ObjectSection,
    /// Each object's `property_schema_version`, expected 1.
    PropertySchema,
    /// `extra_section_version`, expected 1.
    ExtraSection,
}

impl VersionField {
    /// The value strict mode requires.
    pub const fn expected(self) -> u32 {
        match self {
            VersionField::Format => 1,
            VersionField::ClanSection => 6,
            VersionField::ObjectSection => 10,
            VersionField::PropertySchema => 1,
            VersionField::ExtraSection => 1,
        }
    }

    /// The check that compares it.
    pub const fn check(self) -> Check {
        match self {
            VersionField::Format => Check::FormatVersion,
            VersionField::ClanSection => Check::ClanSectionVersion,
            VersionField::ObjectSection => Check::ObjectSectionVersion,
            VersionField::PropertySchema => Check::PropertySchemaVersion,
            VersionField::ExtraSection => Check::ExtraSectionVersion,
        }
    }

    /// The field's name in the grammar.
    pub const fn field(self) -> &'static str {
        self.check().name()
    }
}

/// Which record of the file a field belongs to. Indices are positions in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Location {
    /// `format_version` and `path_count`.
    Header,
    /// Path record `n`.
    Path(usize),
    /// `clan_section_version` and `clan_count`.
    ClanSection,
    /// Clan record `n` (prefix and mode-dependent body).
    Clan(usize),
    /// Spatial group `group` of mode-0 clan `clan`.
    SpatialGroup {
        /// Clan index.
        clan: usize,
        /// Group index.
        group: usize,
    },
    /// Relation `relation` of clan `clan`.
    Relation {
        /// Clan index.
        clan: usize,
        /// Relation index.
        relation: usize,
    },
    /// `object_section_version` and `object_count`.
    ObjectSection,
    /// Placed object `n`.
    Object(usize),
    /// Property `property` of placed object `object`.
    Property {
        /// Object index.
        object: usize,
        /// Property index.
        property: usize,
    },
    /// `land_path`, `mission_flag` and `description_raw`.
    Epilogue,
    /// `extra_section_version` and `extra_count`.
    ExtraSection,
    /// Extra record `n`.
    Extra(usize),
    /// After the last extra record.
    End,
    /// Text being encoded to CP1251 for authoring (offsets are byte positions in it).
    Text,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Header => f.write_str("header"),
            Location::Path(n) => write!(f, "path {n}"),
            Location::ClanSection => f.write_str("clan section"),
            Location::Clan(n) => write!(f, "clan {n}"),
            Location::SpatialGroup { clan, group } => {
                write!(f, "clan {clan}, spatial group {group}")
            }
            Location::Relation { clan, relation } => write!(f, "clan {clan}, relation {relation}"),
            Location::ObjectSection => f.write_str("object section"),
            Location::Object(n) => write!(f, "object {n}"),
            Location::Property { object, property } => {
                write!(f, "object {object}, property {property}")
            }
            Location::Epilogue => f.write_str("epilogue"),
            Location::ExtraSection => f.write_str("extra section"),
            Location::Extra(n) => write!(f, "extra {n}"),
            Location::End => f.write_str("end of file"),
            Location::Text => f.write_str("text"),
        }
    }
}

/// Where an error is: the record, the field and the byte offset of that field (in the
/// input when reading, in the output when writing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Site {
    /// The record.
    pub location: Location,
    /// The field's name in the grammar (e.g. `"property_count"`, `"name"`).
    pub field: &'static str,
    /// Byte offset of the field.
    pub offset: u64,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} `{}` at offset {:#x}",
            self.location, self.field, self.offset
        )
    }
}

/// Everything that can go wrong reading or writing a TMA file.
///
/// `Display` always starts with `[check_name]`, then the site (record, field, offset),
/// then expected versus found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TmaError {
    /// [`Check::Truncated`].
    #[error("[truncated] {site}: expected {need} bytes, found {have}")]
    Truncated {
        /// Where.
        site: Site,
        /// Bytes the field needs.
        need: u64,
        /// Bytes that remain.
        have: u64,
    },
    /// [`Check::StringLength`]; `site` is the length prefix.
    #[error(
        "[string_length] {site}: expected byte_length <= {remaining} remaining bytes, found {len}"
    )]
    StringPastEnd {
        /// Where.
        site: Site,
        /// The declared `byte_length`.
        len: u32,
        /// Bytes that remain after the prefix.
        remaining: u64,
    },
    /// [`Check::NegativeCount`].
    #[error("[negative_count] {site}: expected a count >= 0, found {} ({raw:#x})", *raw as i32)]
    NegativeCount {
        /// Where.
        site: Site,
        /// The raw word.
        raw: u32,
    },
    /// [`Check::CountFits`]; nothing was allocated.
    #[error(
        "[count_fits] {site}: expected {count} records of at least {min_record} bytes to fit \
         the {remaining} bytes that remain"
    )]
    CountPastEnd {
        /// Where.
        site: Site,
        /// The declared count.
        count: u32,
        /// Smallest encoded size of one record.
        min_record: u64,
        /// Bytes that remain after the count.
        remaining: u64,
    },
    /// [`Check::CountLimit`].
    #[error("[count_limit] {site}: expected at most {limit}, found {count}")]
    CountOverLimit {
        /// Where.
        site: Site,
        /// The declared count.
        count: u32,
        /// The limit in force.
        limit: u32,
    },
    /// One of the version checks (see [`VersionField`]).
    #[error("[{}] {site}: expected {}, found {found}", which.check(), which.expected())]
    BadVersion {
        /// Which version word.
        which: VersionField,
        /// Where.
        site: Site,
        /// The value found.
        found: u32,
    },
    /// [`Check::ClanMode`]: fatal in every mode, the body layout is unknown.
    #[error("[clan_mode] {site}: expected 0..=3, found {found}")]
    BadClanMode {
        /// Where.
        site: Site,
        /// The mode found.
        found: u32,
    },
    /// [`Check::ClassOrFlags`].
    #[error("[class_or_flags] {site}: expected 0x80000002, found {found:#010x}")]
    BadClassOrFlags {
        /// Where.
        site: Site,
        /// The value found.
        found: u32,
    },
    /// [`Check::FiniteTransform`]; `site` is the offending component.
    #[error("[finite_transform] {site}: expected a finite float, found bits {bits:#010x}")]
    NonFinite {
        /// Where.
        site: Site,
        /// The raw bits found.
        bits: u32,
    },
    /// [`Check::ExactEof`].
    #[error("[exact_eof] {site}: expected end of file, found {count} trailing bytes")]
    TrailingBytes {
        /// Where the trailing bytes start.
        site: Site,
        /// How many there are.
        count: u64,
    },
    /// [`Check::WriteLength`]: a count or string length does not fit `u32`.
    #[error("[write_length] {site}: expected at most 4294967295, found {len}")]
    TooLong {
        /// Where (offset in the output).
        site: Site,
        /// The length found.
        len: u64,
    },
    /// [`Check::Cp1251Text`]: a character windows-1251 lacks.
    #[error("[cp1251_text] {site}: expected a CP1251 character, found {character:?}")]
    NotCp1251 {
        /// Where (`offset` is the byte position in the text).
        site: Site,
        /// The character.
        character: char,
    },
}

impl TmaError {
    /// The check that failed.
    pub fn check(&self) -> Check {
        match self {
            TmaError::Truncated { .. } => Check::Truncated,
            TmaError::StringPastEnd { .. } => Check::StringLength,
            TmaError::NegativeCount { .. } => Check::NegativeCount,
            TmaError::CountPastEnd { .. } => Check::CountFits,
            TmaError::CountOverLimit { .. } => Check::CountLimit,
            TmaError::BadVersion { which, .. } => which.check(),
            TmaError::BadClanMode { .. } => Check::ClanMode,
            TmaError::BadClassOrFlags { .. } => Check::ClassOrFlags,
            TmaError::NonFinite { .. } => Check::FiniteTransform,
            TmaError::TrailingBytes { .. } => Check::ExactEof,
            TmaError::TooLong { .. } => Check::WriteLength,
            TmaError::NotCp1251 { .. } => Check::Cp1251Text,
        }
    }

    /// Where the error is (record, field, offset).
    pub fn site(&self) -> Site {
        match self {
            TmaError::Truncated { site, .. }
            | TmaError::StringPastEnd { site, .. }
            | TmaError::NegativeCount { site, .. }
            | TmaError::CountPastEnd { site, .. }
            | TmaError::CountOverLimit { site, .. }
            | TmaError::BadVersion { site, .. }
            | TmaError::BadClanMode { site, .. }
            | TmaError::BadClassOrFlags { site, .. }
            | TmaError::NonFinite { site, .. }
            | TmaError::TrailingBytes { site, .. }
            | TmaError::TooLong { site, .. }
            | TmaError::NotCp1251 { site, .. } => *site,
        }
    }

    /// Byte offset of the offending field.
    pub fn offset(&self) -> u64 {
        self.site().offset
    }

    /// The record the error is about.
    pub fn location(&self) -> Location {
        self.site().location
    }
}
