//! The crate's one error type: every variant names the check that failed ([`Check`]) and
//! carries its context (header field, mip level, byte offset, expected versus found).

use std::fmt;

use crate::header::HeaderField;

/// The named validation rules. The read checks are the strict list of FORMATS §9.6 and
/// tome V "Texm", in the order the reader runs them; the rest guard decoding, mip-skip,
/// encoding and writing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Check {
    /// The input holds at least the 32-byte header.
    HeaderSize,
    /// `magic == "Texm"`.
    Magic,
    /// `width > 0`.
    Width,
    /// `height > 0`.
    Height,
    /// `mip_count > 0`.
    MipCount,
    /// `format` is one of 0, 565, 556, 4444, 88, 888, 8888.
    Format,
    /// The 1024-byte palette is present if and only if `format == 0`.
    Palette,
    /// The size of the mip chain fits the integer types (checked arithmetic).
    ChainSize,
    /// The whole mip chain is present in the input.
    ChainData,
    /// Bytes after the mip chain must begin a `Page` chunk ("no extra bytes").
    TrailingBytes,
    /// A `Page` chunk holds its 8-byte header.
    PageHeader,
    /// A `Page` chunk is exactly `8 + rect_count * 8` bytes and ends the payload.
    PageSize,
    /// A requested mip level exists.
    LevelIndex,
    /// A mip-skip leaves at least one level.
    MipSkip,
    /// An RGBA8 buffer holds exactly `width * height * 4` bytes.
    ImageSize,
    /// A raw pixel buffer holds exactly `pixels * bytes_per_pixel` bytes.
    PixelData,
    /// A level given to the writer has the size the mip chain prescribes.
    LevelDimensions,
    /// The writer gets between 1 and `u32::MAX` levels.
    LevelCount,
    /// A palette is exactly 256 × 4 bytes.
    PaletteLength,
    /// A palette suffix is a letter `A..Z` optionally followed by a digit `0..9`.
    PaletteSuffix,
    /// A written `Page` chunk holds at most `u32::MAX` rectangles.
    RectCount,
}

impl Check {
    /// Every check the reader runs, in the order it runs them.
    pub const READ_CHECKS: [Check; 12] = [
        Check::HeaderSize,
        Check::Magic,
        Check::Width,
        Check::Height,
        Check::MipCount,
        Check::Format,
        Check::Palette,
        Check::ChainSize,
        Check::ChainData,
        Check::TrailingBytes,
        Check::PageHeader,
        Check::PageSize,
    ];

    /// A stable `snake_case` name, used in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Check::HeaderSize => "header_size",
            Check::Magic => "magic",
            Check::Width => "width",
            Check::Height => "height",
            Check::MipCount => "mip_count",
            Check::Format => "format",
            Check::Palette => "palette",
            Check::ChainSize => "chain_size",
            Check::ChainData => "chain_data",
            Check::TrailingBytes => "trailing_bytes",
            Check::PageHeader => "page_header",
            Check::PageSize => "page_size",
            Check::LevelIndex => "level_index",
            Check::MipSkip => "mip_skip",
            Check::ImageSize => "image_size",
            Check::PixelData => "pixel_data",
            Check::LevelDimensions => "level_dimensions",
            Check::LevelCount => "level_count",
            Check::PaletteLength => "palette_length",
            Check::PaletteSuffix => "palette_suffix",
            Check::RectCount => "rect_count",
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a palette suffix was refused (FORMATS §9.5: a letter `A..Z`, then nothing or one
/// digit `0..9`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SuffixProblem {
    /// The suffix has no bytes.
    Empty,
    /// The suffix is longer than two bytes.
    TooLong,
    /// The first byte is not an ASCII letter.
    NotALetter,
    /// The second byte is not an ASCII digit.
    NotADigit,
}

impl fmt::Display for SuffixProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SuffixProblem::Empty => "expected 1 or 2 bytes, found none",
            SuffixProblem::TooLong => "expected 1 or 2 bytes, found more",
            SuffixProblem::NotALetter => "expected a letter A..Z first",
            SuffixProblem::NotADigit => "expected a digit 0..9 after the letter",
        })
    }
}

/// Everything that can go wrong reading, decoding, encoding or writing a Texm payload.
///
/// `Display` always starts with `[check_name]`, then the location (field, level, byte
/// offset in the payload), then expected versus found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TexmError {
    /// [`Check::HeaderSize`].
    #[error("[header_size] offset 0x0: expected at least 32 bytes, found {found}")]
    HeaderTruncated {
        /// Length of the input.
        found: usize,
    },
    /// [`Check::Magic`].
    #[error("[magic] offset 0x0: expected \"Texm\", found \"{}\"", found.escape_ascii())]
    BadMagic {
        /// The four bytes found.
        found: [u8; 4],
    },
    /// [`Check::Width`], [`Check::Height`] or [`Check::MipCount`]: the field is zero.
    #[error("[{}] offset {:#x}: expected field `{field}` > 0, found 0", field.check(), field.offset())]
    ZeroField {
        /// `Width`, `Height` or `MipCount`.
        field: HeaderField,
    },
    /// [`Check::Format`].
    #[error(
        "[format] offset 0x1c: expected one of 0, 565, 556, 4444, 88, 888, 8888, found {found}"
    )]
    UnknownFormat {
        /// The raw `format` value.
        found: u32,
    },
    /// [`Check::Palette`]: the input ends inside the palette of an indexed texture.
    #[error("[palette] offset 0x20: expected 1024 palette bytes, found {found}")]
    PaletteTruncated {
        /// Bytes present after the header.
        found: usize,
    },
    /// [`Check::Palette`]: a palette was given for a non-indexed format, or none for
    /// format 0 (writer).
    #[error("[palette] format {format}: expected a palette {}, found {}",
        if *format == 0 { "(format 0)" } else { "only for format 0" },
        if *present { "one" } else { "none" })]
    PaletteMismatch {
        /// The raw format.
        format: u32,
        /// Whether a palette was given.
        present: bool,
    },
    /// [`Check::ChainSize`]: the size of levels `0..=level` overflows `u64`/`usize`.
    #[error(
        "[chain_size] level {level}: the mip chain size overflows ({width}x{height}, {mip_count} levels, {bytes_per_pixel} B/px)"
    )]
    ChainOverflow {
        /// First level whose end no longer fits.
        level: u32,
        /// Header width.
        width: u32,
        /// Header height.
        height: u32,
        /// Header mip count.
        mip_count: u32,
        /// Bytes per pixel of the format.
        bytes_per_pixel: u32,
    },
    /// [`Check::ChainData`]: the input ends before the mip chain does.
    #[error(
        "[chain_data] level {level} at offset {offset:#x}: expected the mip chain to end at {expected_end:#x}, found an input of {found:#x} bytes"
    )]
    ChainTruncated {
        /// First level that is not wholly present.
        level: u32,
        /// Offset where that level starts.
        offset: usize,
        /// Offset where the chain should end.
        expected_end: u64,
        /// Length of the input.
        found: usize,
    },
    /// [`Check::TrailingBytes`]: bytes after the chain that do not start a `Page` chunk.
    #[error("[trailing_bytes] offset {offset:#x}: expected the end of the payload or \"Page\", found {len} bytes starting \"{}\"", head[..(*len).min(4)].escape_ascii())]
    TrailingBytes {
        /// Offset where the chain ends.
        offset: usize,
        /// Number of extra bytes.
        len: usize,
        /// Their first (up to) four bytes.
        head: [u8; 4],
    },
    /// [`Check::PageHeader`]: a `Page` chunk shorter than its 8-byte header.
    #[error("[page_header] offset {offset:#x}: expected 8 bytes of Page header, found {found}")]
    PageTruncated {
        /// Offset of the chunk.
        offset: usize,
        /// Bytes present.
        found: usize,
    },
    /// [`Check::PageSize`]: the chunk is not exactly `8 + rect_count * 8` bytes.
    #[error(
        "[page_size] offset {offset:#x}: rect_count {rect_count} needs a {expected}-byte chunk ending the payload, found {found} bytes"
    )]
    PageSize {
        /// Offset of the chunk.
        offset: usize,
        /// `rect_count` field.
        rect_count: u32,
        /// `8 + rect_count * 8`.
        expected: u64,
        /// Bytes from the chunk start to the end of the payload.
        found: usize,
    },
    /// [`Check::LevelIndex`].
    #[error("[level_index] level {level}: expected a level < mip_count {mip_count}")]
    LevelIndex {
        /// Requested level.
        level: u32,
        /// Levels present.
        mip_count: u32,
    },
    /// [`Check::MipSkip`].
    #[error("[mip_skip] skip {skip}: expected fewer than mip_count {mip_count} levels skipped")]
    SkipTooLarge {
        /// Levels asked to be skipped.
        skip: u32,
        /// Levels present.
        mip_count: u32,
    },
    /// [`Check::ImageSize`]: an RGBA8 buffer of the wrong length (or a size that
    /// overflows).
    #[error("[image_size] {width}x{height}: expected {expected} RGBA8 bytes, found {found}")]
    ImageSize {
        /// Image width.
        width: u32,
        /// Image height.
        height: u32,
        /// `width * height * 4` (`u64::MAX` when it overflows).
        expected: u64,
        /// Buffer length.
        found: usize,
    },
    /// [`Check::PixelData`]: a raw pixel buffer of the wrong length.
    #[error(
        "[pixel_data] level {level}, format {format}: expected {expected} raw bytes, found {found}"
    )]
    PixelData {
        /// The level (0 outside a texture).
        level: u32,
        /// The raw format.
        format: u32,
        /// Expected length.
        expected: u64,
        /// Length found.
        found: usize,
    },
    /// [`Check::LevelDimensions`].
    #[error("[level_dimensions] level {level}: expected {}x{}, found {}x{}", expected.0, expected.1, found.0, found.1)]
    LevelDimensions {
        /// The level.
        level: u32,
        /// `(max(1, width >> level), max(1, height >> level))`, or `(>0, >0)` at level 0.
        expected: (u32, u32),
        /// The size given.
        found: (u32, u32),
    },
    /// [`Check::LevelCount`].
    #[error("[level_count] expected 1..=4294967295 levels, found {found}")]
    LevelCount {
        /// Levels given.
        found: usize,
    },
    /// [`Check::PaletteLength`].
    #[error("[palette_length] expected 1024 palette bytes, found {found}")]
    PaletteLength {
        /// Bytes given.
        found: usize,
    },
    /// [`Check::PaletteSuffix`].
    #[error("[palette_suffix] \"{}\": {problem}", suffix.escape_ascii())]
    PaletteSuffix {
        /// The suffix as given (at most its first 8 bytes).
        suffix: Vec<u8>,
        /// What is wrong with it.
        problem: SuffixProblem,
    },
    /// [`Check::RectCount`].
    #[error("[rect_count] expected at most 4294967295 Page rectangles, found {found}")]
    RectCount {
        /// Rectangles given.
        found: usize,
    },
}

impl TexmError {
    /// The check that failed.
    pub fn check(&self) -> Check {
        match self {
            TexmError::HeaderTruncated { .. } => Check::HeaderSize,
            TexmError::BadMagic { .. } => Check::Magic,
            TexmError::ZeroField { field } => field.check(),
            TexmError::UnknownFormat { .. } => Check::Format,
            TexmError::PaletteTruncated { .. } | TexmError::PaletteMismatch { .. } => {
                Check::Palette
            }
            TexmError::ChainOverflow { .. } => Check::ChainSize,
            TexmError::ChainTruncated { .. } => Check::ChainData,
            TexmError::TrailingBytes { .. } => Check::TrailingBytes,
            TexmError::PageTruncated { .. } => Check::PageHeader,
            TexmError::PageSize { .. } => Check::PageSize,
            TexmError::LevelIndex { .. } => Check::LevelIndex,
            TexmError::SkipTooLarge { .. } => Check::MipSkip,
            TexmError::ImageSize { .. } => Check::ImageSize,
            TexmError::PixelData { .. } => Check::PixelData,
            TexmError::LevelDimensions { .. } => Check::LevelDimensions,
            TexmError::LevelCount { .. } => Check::LevelCount,
            TexmError::PaletteLength { .. } => Check::PaletteLength,
            TexmError::PaletteSuffix { .. } => Check::PaletteSuffix,
            TexmError::RectCount { .. } => Check::RectCount,
        }
    }
}
