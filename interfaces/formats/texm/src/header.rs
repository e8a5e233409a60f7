//! The 32-byte `TexmHeader32` as read (eight raw little-endian `u32` fields, nothing
//! interpreted), its field map, and the pixel-format enumeration it names.
//!
//! ```text
//! +0x00 u32 magic     'Texm' = 0x6D786554          confirmed
//! +0x04 u32 width     > 0                           confirmed
//! +0x08 u32 height    > 0                           confirmed
//! +0x0C u32 mip_count > 0                           confirmed
//! +0x10 u32 flags4    opaque, preserved             layout
//! +0x14 u32 flags5    takes part in mip-skip        layout/inferred
//! +0x18 u32 unknown6  opaque, preserved             layout
//! +0x1C u32 format    0 | 565 | 556 | 4444 | 88 | 888 | 8888
//! ```

use std::fmt;

use crate::error::Check;

/// `'Texm'` read as a little-endian `u32`.
pub const TEXM_MAGIC: u32 = 0x6D78_6554;
/// Size of [`Header`] on disk.
pub const HEADER_SIZE: usize = 32;
/// Size of the palette of an indexed texture (256 entries × 4 bytes).
pub const PALETTE_SIZE: usize = 1024;

/// The eight fields of the header, in on-disk order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeaderField {
    /// `+0x00` magic.
    Magic,
    /// `+0x04` width.
    Width,
    /// `+0x08` height.
    Height,
    /// `+0x0C` mip count.
    MipCount,
    /// `+0x10` flags4 (opaque).
    Flags4,
    /// `+0x14` flags5 (opaque; takes part in mip-skip).
    Flags5,
    /// `+0x18` unknown6 (opaque).
    Unknown6,
    /// `+0x1C` pixel format.
    Format,
}

impl HeaderField {
    /// Byte offset of the field in the header.
    pub const fn offset(self) -> usize {
        match self {
            HeaderField::Magic => 0x00,
            HeaderField::Width => 0x04,
            HeaderField::Height => 0x08,
            HeaderField::MipCount => 0x0C,
            HeaderField::Flags4 => 0x10,
            HeaderField::Flags5 => 0x14,
            HeaderField::Unknown6 => 0x18,
            HeaderField::Format => 0x1C,
        }
    }

    /// The spec's name of the field.
    pub const fn name(self) -> &'static str {
        match self {
            HeaderField::Magic => "magic",
            HeaderField::Width => "width",
            HeaderField::Height => "height",
            HeaderField::MipCount => "mip_count",
            HeaderField::Flags4 => "flags4",
            HeaderField::Flags5 => "flags5",
            HeaderField::Unknown6 => "unknown6",
            HeaderField::Format => "format",
        }
    }

    /// The check that validates the field's value. The opaque fields (`flags4`,
    /// `flags5`, `unknown6`) have no value check and report [`Check::HeaderSize`], the
    /// only check they take part in.
    pub const fn check(self) -> Check {
        match self {
            HeaderField::Magic => Check::Magic,
            HeaderField::Width => Check::Width,
            HeaderField::Height => Check::Height,
            HeaderField::MipCount => Check::MipCount,
            HeaderField::Format => Check::Format,
            HeaderField::Flags4 | HeaderField::Flags5 | HeaderField::Unknown6 => Check::HeaderSize,
        }
    }
}

impl fmt::Display for HeaderField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The 32-byte header exactly as stored. Nothing is validated or interpreted here; the
/// reader ([`crate::Texm::parse`]) runs the checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// `+0x00`, `'Texm'` in a valid file.
    pub magic: u32,
    /// `+0x04`, width of level 0 in pixels.
    pub width: u32,
    /// `+0x08`, height of level 0 in pixels.
    pub height: u32,
    /// `+0x0C`, number of mip levels stored.
    pub mip_count: u32,
    /// `+0x10`, opaque; preserved.
    pub flags4: u32,
    /// `+0x14`, opaque; takes part in the loader's mip-skip decision; preserved.
    pub flags5: u32,
    /// `+0x18`, opaque; preserved.
    pub unknown6: u32,
    /// `+0x1C`, raw pixel-format code (see [`PixelFormat::from_raw`]).
    pub format: u32,
}

impl Header {
    /// Reads the eight fields from the first 32 bytes; `None` when fewer are given.
    pub fn read(bytes: &[u8]) -> Option<Header> {
        let field = |f: HeaderField| -> Option<u32> {
            let at = f.offset();
            let b: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
            Some(u32::from_le_bytes(b))
        };
        Some(Header {
            magic: field(HeaderField::Magic)?,
            width: field(HeaderField::Width)?,
            height: field(HeaderField::Height)?,
            mip_count: field(HeaderField::MipCount)?,
            flags4: field(HeaderField::Flags4)?,
            flags5: field(HeaderField::Flags5)?,
            unknown6: field(HeaderField::Unknown6)?,
            format: field(HeaderField::Format)?,
        })
    }

    /// The 32 bytes of the header, fields little-endian in on-disk order.
    pub fn to_bytes(&self) -> [u8; HEADER_SIZE] {
        let fields = [
            self.magic,
            self.width,
            self.height,
            self.mip_count,
            self.flags4,
            self.flags5,
            self.unknown6,
            self.format,
        ];
        let mut out = [0u8; HEADER_SIZE];
        for (chunk, value) in out.chunks_exact_mut(4).zip(fields) {
            chunk.copy_from_slice(&value.to_le_bytes());
        }
        out
    }

    /// The pixel format, when `format` is a known code.
    pub fn pixel_format(&self) -> Option<PixelFormat> {
        PixelFormat::from_raw(self.format)
    }
}

/// The seven pixel formats of FORMATS §9.3 / tome V. Channel names follow the spec;
/// positions are those of FORMATS §9.3 (from fparkan source), little-endian.
///
/// ```text
/// code  B/px  element (LE u16 word bits, or bytes in order)
///    0   1    palette index; palette entry bytes R G B A
///  565   2    R 15..11  G 10..5   B 4..0
///  556   2    R 15..11  G 10..6   B 5..0
/// 4444   2    A 15..12  R 11..8   G 7..4   B 3..0
///   88   2    L 15..8 (byte 1)    A 7..0 (byte 0)
///  888   4    bytes R G B pad  (pad preserved, decoded alpha 255)
/// 8888   4    bytes A R G B
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PixelFormat {
    /// `0`: 8-bit palette index, 1024-byte palette after the header.
    Indexed8,
    /// `565`: R5 G6 B5.
    Rgb565,
    /// `556`: R5 G5 B6 (code-only: no corpus file uses it).
    Rgb556,
    /// `4444`: A4 R4 G4 B4.
    Argb4444,
    /// `88`: L8 A8 (code-only).
    La88,
    /// `888`: R8 G8 B8 in a 4-byte element whose 4th byte is preserved.
    Rgb888x,
    /// `8888`: A8 R8 G8 B8.
    Argb8888,
}

impl PixelFormat {
    /// Every format, in the order of FORMATS §9.3.
    pub const ALL: [PixelFormat; 7] = [
        PixelFormat::Indexed8,
        PixelFormat::Rgb565,
        PixelFormat::Rgb556,
        PixelFormat::Argb4444,
        PixelFormat::La88,
        PixelFormat::Rgb888x,
        PixelFormat::Argb8888,
    ];

    /// The format for a raw header code, `None` for an unknown code.
    pub const fn from_raw(code: u32) -> Option<PixelFormat> {
        Some(match code {
            0 => PixelFormat::Indexed8,
            565 => PixelFormat::Rgb565,
            556 => PixelFormat::Rgb556,
            4444 => PixelFormat::Argb4444,
            88 => PixelFormat::La88,
            888 => PixelFormat::Rgb888x,
            8888 => PixelFormat::Argb8888,
            _ => return None,
        })
    }

    /// The raw header code.
    pub const fn raw(self) -> u32 {
        match self {
            PixelFormat::Indexed8 => 0,
            PixelFormat::Rgb565 => 565,
            PixelFormat::Rgb556 => 556,
            PixelFormat::Argb4444 => 4444,
            PixelFormat::La88 => 88,
            PixelFormat::Rgb888x => 888,
            PixelFormat::Argb8888 => 8888,
        }
    }

    /// Bytes per pixel: 1, 2 or 4.
    pub const fn bytes_per_pixel(self) -> u32 {
        match self {
            PixelFormat::Indexed8 => 1,
            PixelFormat::Rgb565
            | PixelFormat::Rgb556
            | PixelFormat::Argb4444
            | PixelFormat::La88 => 2,
            PixelFormat::Rgb888x | PixelFormat::Argb8888 => 4,
        }
    }

    /// Whether the payload carries a palette (format 0 only).
    pub const fn has_palette(self) -> bool {
        matches!(self, PixelFormat::Indexed8)
    }
}

impl fmt::Display for PixelFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.raw())
    }
}
