//! Writers: [`TexmWriter`] encodes RGBA8 levels into a complete payload (header, palette,
//! mips, optional `Page`); [`write_raw`] assembles already-encoded parts. Both validate
//! everything the reader checks, so their output always parses, and both size the output
//! once before writing (two phases: plan, then emit in the same order).

use crate::chain::{MipChain, level_dimensions};
use crate::codec::{check_raw_level, encode_pixels};
use crate::error::TexmError;
use crate::header::{HEADER_SIZE, Header, HeaderField, PALETTE_SIZE, PixelFormat, TEXM_MAGIC};
use crate::image::RgbaImage;
use crate::page::{PageRect, encode_page};
use crate::palette::Palette;
use crate::texm::Texm;

/// Encodes RGBA8 mip levels into a new Texm payload.
///
/// New content follows project decision 6: `flags4`, `flags5`, `unknown6` and the 888 pad
/// bytes are zero unless set (or copied with [`TexmWriter::like`]). Indexed textures use
/// the palette given with [`TexmWriter::with_palette`], or else one built from all levels
/// by [`Palette::build`] (exact when there are at most 256 colours).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TexmWriter {
    format: PixelFormat,
    flags4: u32,
    flags5: u32,
    unknown6: u32,
    palette: Option<Palette>,
    page: Option<Vec<PageRect>>,
}

impl TexmWriter {
    /// A writer for `format` with zero opaque fields, no fixed palette and no `Page`.
    pub fn new(format: PixelFormat) -> TexmWriter {
        TexmWriter {
            format,
            flags4: 0,
            flags5: 0,
            unknown6: 0,
            palette: None,
            page: None,
        }
    }

    /// A writer that reproduces `texm`'s format, opaque header fields, palette and
    /// `Page` rectangles: writing its decoded levels re-creates the payload (byte for
    /// byte except the 888 pad bytes, which become zero, and indexed pixels whose colour
    /// occurs at a lower palette index).
    pub fn like(texm: &Texm<'_>) -> TexmWriter {
        let h = texm.header();
        TexmWriter {
            format: texm.format(),
            flags4: h.flags4,
            flags5: h.flags5,
            unknown6: h.unknown6,
            palette: texm.palette(),
            page: texm.page().map(|p| p.rects().collect()),
        }
    }

    /// Sets `flags4`, `flags5` and `unknown6`.
    pub fn with_flags(mut self, flags4: u32, flags5: u32, unknown6: u32) -> TexmWriter {
        (self.flags4, self.flags5, self.unknown6) = (flags4, flags5, unknown6);
        self
    }

    /// Uses `palette` for an indexed texture (an error for other formats).
    pub fn with_palette(mut self, palette: Palette) -> TexmWriter {
        self.palette = Some(palette);
        self
    }

    /// Appends a `Page` chunk with `rects` (base-level pixels).
    pub fn with_page(mut self, rects: Vec<PageRect>) -> TexmWriter {
        self.page = Some(rects);
        self
    }

    /// The format written.
    pub fn format(&self) -> PixelFormat {
        self.format
    }

    /// The palette an indexed payload of `levels` gets: the fixed one, or a built one.
    pub fn palette_for(&self, levels: &[RgbaImage]) -> Option<Palette> {
        if !self.format.has_palette() {
            return None;
        }
        Some(match &self.palette {
            Some(p) => p.clone(),
            None => Palette::build(levels.iter().map(RgbaImage::pixels)),
        })
    }

    /// Encodes `levels` (base first; level `i` must be `max(1, w >> i)` ×
    /// `max(1, h >> i)`) into a complete payload.
    pub fn write(&self, levels: &[RgbaImage]) -> Result<Vec<u8>, TexmError> {
        let mip_count =
            u32::try_from(levels.len())
                .ok()
                .filter(|&n| n > 0)
                .ok_or(TexmError::LevelCount {
                    found: levels.len(),
                })?;
        let (width, height) = base_dimensions(levels)?;
        if self.palette.is_some() && !self.format.has_palette() {
            return Err(TexmError::PaletteMismatch {
                format: self.format.raw(),
                present: true,
            });
        }
        let chain = MipChain::new(width, height, mip_count, self.format)?;
        let page = self.page.as_deref().map(encode_page).transpose()?;
        let palette = self.palette_for(levels);

        let header = Header {
            magic: TEXM_MAGIC,
            width,
            height,
            mip_count,
            flags4: self.flags4,
            flags5: self.flags5,
            unknown6: self.unknown6,
            format: self.format.raw(),
        };
        let size = planned_size(&chain, palette.is_some(), page.as_deref())?;
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(&header.to_bytes());
        if let Some(p) = &palette {
            out.extend_from_slice(&p.to_bytes());
        }
        for (level, image) in (0u32..).zip(levels) {
            encode_pixels(self.format, image.pixels(), palette.as_ref(), &mut out).map_err(
                |e| match e {
                    TexmError::PixelData {
                        format,
                        expected,
                        found,
                        ..
                    } => TexmError::PixelData {
                        level,
                        format,
                        expected,
                        found,
                    },
                    other => other,
                },
            )?;
        }
        if let Some(p) = &page {
            out.extend_from_slice(p);
        }
        Ok(out)
    }
}

/// Checks that the levels form a chain and returns the base size.
fn base_dimensions(levels: &[RgbaImage]) -> Result<(u32, u32), TexmError> {
    let Some(base) = levels.first() else {
        return Err(TexmError::LevelCount { found: 0 });
    };
    let (width, height) = (base.width(), base.height());
    for (field, value) in [(HeaderField::Width, width), (HeaderField::Height, height)] {
        if value == 0 {
            return Err(TexmError::ZeroField { field });
        }
    }
    for (level, image) in (0u32..).zip(levels) {
        let expected = level_dimensions(width, height, level);
        let found = (image.width(), image.height());
        if expected != found {
            return Err(TexmError::LevelDimensions {
                level,
                expected,
                found,
            });
        }
    }
    Ok((width, height))
}

/// Header + palette + chain + page, checked.
fn planned_size(chain: &MipChain, palette: bool, page: Option<&[u8]>) -> Result<usize, TexmError> {
    let overflow = || TexmError::ChainOverflow {
        level: chain.mip_count().saturating_sub(1),
        width: chain.width(),
        height: chain.height(),
        mip_count: chain.mip_count(),
        bytes_per_pixel: chain.format().bytes_per_pixel(),
    };
    HEADER_SIZE
        .checked_add(if palette { PALETTE_SIZE } else { 0 })
        .and_then(|n| n.checked_add(chain.total_len()))
        .and_then(|n| n.checked_add(page.map_or(0, <[u8]>::len)))
        .ok_or_else(overflow)
}

/// Already-encoded parts of a payload, for [`write_raw`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawParts<'a> {
    /// The header; `mip_count` must equal `levels.len()`.
    pub header: Header,
    /// The 1024 palette bytes: required for format 0, forbidden otherwise.
    pub palette: Option<&'a [u8]>,
    /// The raw bytes of each level, base first.
    pub levels: &'a [&'a [u8]],
    /// `Page` rectangles, if the payload has the chunk.
    pub page: Option<&'a [PageRect]>,
}

/// Assembles a payload from raw parts after running every read check on them (the
/// header fields, palette presence and length, each level's exact size, the rectangle
/// count). Opaque fields and pad bytes are written exactly as given.
pub fn write_raw(parts: &RawParts<'_>) -> Result<Vec<u8>, TexmError> {
    let h = &parts.header;
    if h.magic != TEXM_MAGIC {
        return Err(TexmError::BadMagic {
            found: h.magic.to_le_bytes(),
        });
    }
    for (field, value) in [
        (HeaderField::Width, h.width),
        (HeaderField::Height, h.height),
        (HeaderField::MipCount, h.mip_count),
    ] {
        if value == 0 {
            return Err(TexmError::ZeroField { field });
        }
    }
    let format = h
        .pixel_format()
        .ok_or(TexmError::UnknownFormat { found: h.format })?;
    match parts.palette {
        Some(p) if format.has_palette() => {
            if p.len() != PALETTE_SIZE {
                return Err(TexmError::PaletteLength { found: p.len() });
            }
        }
        None if !format.has_palette() => {}
        given => {
            return Err(TexmError::PaletteMismatch {
                format: h.format,
                present: given.is_some(),
            });
        }
    }
    if u32::try_from(parts.levels.len()).ok() != Some(h.mip_count) {
        return Err(TexmError::LevelCount {
            found: parts.levels.len(),
        });
    }
    let chain = MipChain::new(h.width, h.height, h.mip_count, format)?;
    for (level, raw) in (0u32..).zip(parts.levels) {
        let g = chain.level(level).ok_or(TexmError::LevelIndex {
            level,
            mip_count: h.mip_count,
        })?;
        let pixels =
            usize::try_from(u64::from(g.width) * u64::from(g.height)).unwrap_or(usize::MAX);
        check_raw_level(format, pixels, raw, level)?;
    }
    let page = parts.page.map(encode_page).transpose()?;
    let size = planned_size(&chain, parts.palette.is_some(), page.as_deref())?;
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(&h.to_bytes());
    out.extend_from_slice(parts.palette.unwrap_or_default());
    for raw in parts.levels {
        out.extend_from_slice(raw);
    }
    out.extend_from_slice(page.as_deref().unwrap_or_default());
    Ok(out)
}
