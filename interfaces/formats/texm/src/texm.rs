//! The strict reader: [`Texm::parse`] runs every check of FORMATS §9.6 before any view is
//! handed out, then serves zero-copy level views, RGBA8 decoding, mip-skip and the
//! lossless re-serialisation.

use crate::chain::{LevelGeometry, MipChain};
use crate::codec::{PaletteAlpha, decode_pixels};
use crate::error::TexmError;
use crate::header::{HEADER_SIZE, Header, HeaderField, PALETTE_SIZE, PixelFormat, TEXM_MAGIC};
use crate::image::RgbaImage;
use crate::page::{PAGE_MAGIC, Page, PageRect, rescale_page_rects};
use crate::palette::Palette;

/// A strictly validated Texm payload borrowed from the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Texm<'d> {
    bytes: &'d [u8],
    header: Header,
    format: PixelFormat,
    chain_offset: usize,
    chain: MipChain,
    page: Option<Page<'d>>,
}

/// One mip level: its geometry and its raw bytes, borrowed from the payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MipLevel<'d> {
    level: u32,
    width: u32,
    height: u32,
    offset: usize,
    bytes: &'d [u8],
}

impl<'d> MipLevel<'d> {
    /// Level index in the stored chain (0 = base).
    pub fn level(&self) -> u32 {
        self.level
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Offset of the level in the payload.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The level's raw pixel bytes.
    pub fn bytes(&self) -> &'d [u8] {
        self.bytes
    }
}

/// How [`Texm::decode_level_with`] treats indexed textures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecodeOptions<'p> {
    /// A palette to use instead of the embedded one (e.g. one chosen by a
    /// [`crate::PaletteSlot`] from `Palettes.lib`); ignored for other formats.
    pub palette: Option<&'p Palette>,
    /// What the palette's 4th byte means.
    pub palette_alpha: PaletteAlpha,
}

impl<'d> Texm<'d> {
    /// Parses and validates a payload; see [`crate::Check::READ_CHECKS`] for the order.
    /// Nothing is allocated, so a header claiming a huge texture in a short input fails
    /// with [`TexmError::ChainTruncated`] (or [`TexmError::ChainOverflow`]) at no cost.
    pub fn parse(bytes: &'d [u8]) -> Result<Texm<'d>, TexmError> {
        let header =
            Header::read(bytes).ok_or(TexmError::HeaderTruncated { found: bytes.len() })?;
        if header.magic != TEXM_MAGIC {
            return Err(TexmError::BadMagic {
                found: header.magic.to_le_bytes(),
            });
        }
        for (field, value) in [
            (HeaderField::Width, header.width),
            (HeaderField::Height, header.height),
            (HeaderField::MipCount, header.mip_count),
        ] {
            if value == 0 {
                return Err(TexmError::ZeroField { field });
            }
        }
        let format = header.pixel_format().ok_or(TexmError::UnknownFormat {
            found: header.format,
        })?;
        let mut chain_offset = HEADER_SIZE;
        if format.has_palette() {
            let found = bytes.len() - HEADER_SIZE;
            if found < PALETTE_SIZE {
                return Err(TexmError::PaletteTruncated { found });
            }
            chain_offset += PALETTE_SIZE;
        }
        let chain = MipChain::new(header.width, header.height, header.mip_count, format)?;
        let available = bytes.len() - chain_offset;
        if let Some(level) = chain.first_level_past(available) {
            return Err(TexmError::ChainTruncated {
                level: level.level,
                offset: chain_offset + level.offset,
                expected_end: chain_offset as u64 + chain.total_len() as u64,
                found: bytes.len(),
            });
        }
        let chain_end = chain_offset + chain.total_len();
        let page = if chain_end == bytes.len() {
            None
        } else {
            Some(Page::parse(bytes, chain_end)?)
        };
        Ok(Texm {
            bytes,
            header,
            format,
            chain_offset,
            chain,
            page,
        })
    }

    /// The header as stored.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Width of level 0.
    pub fn width(&self) -> u32 {
        self.header.width
    }

    /// Height of level 0.
    pub fn height(&self) -> u32 {
        self.header.height
    }

    /// Number of stored levels.
    pub fn mip_count(&self) -> u32 {
        self.header.mip_count
    }

    /// The pixel format.
    pub fn format(&self) -> PixelFormat {
        self.format
    }

    /// The chain geometry (offsets relative to [`Self::chain_offset`]).
    pub fn chain(&self) -> &MipChain {
        &self.chain
    }

    /// Offset of level 0 in the payload: 32, or 1056 after a palette.
    pub fn chain_offset(&self) -> usize {
        self.chain_offset
    }

    /// The whole input.
    pub fn as_bytes(&self) -> &'d [u8] {
        self.bytes
    }

    /// The 1024 palette bytes (format 0 only).
    pub fn palette_bytes(&self) -> Option<&'d [u8]> {
        self.format
            .has_palette()
            .then(|| &self.bytes[HEADER_SIZE..HEADER_SIZE + PALETTE_SIZE])
    }

    /// The embedded palette (format 0 only).
    pub fn palette(&self) -> Option<Palette> {
        self.palette_bytes()
            .and_then(|b| Palette::from_bytes(b).ok())
    }

    /// Level `level`; [`TexmError::LevelIndex`] past the last one.
    pub fn level(&self, level: u32) -> Result<MipLevel<'d>, TexmError> {
        let g = self.chain.level(level).ok_or(TexmError::LevelIndex {
            level,
            mip_count: self.mip_count(),
        })?;
        Ok(self.view(g))
    }

    fn view(&self, g: LevelGeometry) -> MipLevel<'d> {
        let offset = self.chain_offset + g.offset;
        MipLevel {
            level: g.level,
            width: g.width,
            height: g.height,
            offset,
            // In bounds: the reader checked the whole chain.
            bytes: self.bytes.get(offset..offset + g.len).unwrap_or_default(),
        }
    }

    /// Every level, base first.
    pub fn levels(&self) -> impl Iterator<Item = MipLevel<'d>> + '_ {
        (0..self.mip_count()).filter_map(|i| self.chain.level(i).map(|g| self.view(g)))
    }

    /// All level bytes, base first, as one slice.
    pub fn chain_bytes(&self) -> &'d [u8] {
        &self.bytes[self.chain_offset..self.chain_offset + self.chain.total_len()]
    }

    /// The `Page` chunk, if present.
    pub fn page(&self) -> Option<Page<'d>> {
        self.page
    }

    /// The `Page` rectangles in base-level pixels (empty without a chunk).
    pub fn page_rects(&self) -> Vec<PageRect> {
        self.page.map(|p| p.rects().collect()).unwrap_or_default()
    }

    /// Decodes level `level` to RGBA8 with the embedded palette (alpha as stored).
    pub fn decode_level(&self, level: u32) -> Result<RgbaImage, TexmError> {
        self.decode_level_with(level, &DecodeOptions::default())
    }

    /// Decodes level `level` to RGBA8 with `options` (see [`crate::codec`] for the
    /// channel rules).
    pub fn decode_level_with(
        &self,
        level: u32,
        options: &DecodeOptions<'_>,
    ) -> Result<RgbaImage, TexmError> {
        let view = self.level(level)?;
        let embedded = options.palette.is_none().then(|| self.palette()).flatten();
        let palette = options.palette.or(embedded.as_ref());
        let mut out = Vec::new();
        decode_pixels(
            self.format,
            view.bytes,
            palette,
            options.palette_alpha,
            &mut out,
        )
        .map_err(|e| match e {
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
        })?;
        RgbaImage::new(view.width, view.height, out)
    }

    /// The texture as a loader sees it after dropping the first `skip` levels;
    /// [`TexmError::SkipTooLarge`] unless at least one level remains.
    pub fn skip_mips(&self, skip: u32) -> Result<MipSkip<'d>, TexmError> {
        if skip >= self.mip_count() {
            return Err(TexmError::SkipTooLarge {
                skip,
                mip_count: self.mip_count(),
            });
        }
        Ok(MipSkip { texm: *self, skip })
    }

    /// Re-serialises the payload from its parsed parts (header fields, palette, level
    /// slices, `Page` rectangles); always equal to the input.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes.len());
        out.extend_from_slice(&self.header.to_bytes());
        if let Some(p) = self.palette_bytes() {
            out.extend_from_slice(p);
        }
        for level in self.levels() {
            out.extend_from_slice(level.bytes);
        }
        if let Some(page) = self.page {
            out.extend_from_slice(&PAGE_MAGIC.to_le_bytes());
            out.extend_from_slice(&(page.len() as u32).to_le_bytes());
            for r in page.rects() {
                out.extend_from_slice(&r.to_bytes());
            }
        }
        out
    }
}

/// A [`Texm`] seen through a mip-skip: levels renumbered from the new base, sizes of the
/// new base, `Page` rectangles rescaled (see [`crate::rescale_page_rect`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MipSkip<'d> {
    texm: Texm<'d>,
    skip: u32,
}

impl<'d> MipSkip<'d> {
    /// Levels dropped.
    pub fn skipped(&self) -> u32 {
        self.skip
    }

    /// The underlying texture.
    pub fn texm(&self) -> &Texm<'d> {
        &self.texm
    }

    /// Width of the new base level.
    pub fn width(&self) -> u32 {
        self.base().width
    }

    /// Height of the new base level.
    pub fn height(&self) -> u32 {
        self.base().height
    }

    fn base(&self) -> MipLevel<'d> {
        self.level(0).unwrap_or(MipLevel {
            level: 0,
            width: 1,
            height: 1,
            offset: 0,
            bytes: &[],
        })
    }

    /// Levels that remain.
    pub fn mip_count(&self) -> u32 {
        self.texm.mip_count() - self.skip
    }

    /// Level `level` counted from the new base (its [`MipLevel::level`] keeps the stored
    /// index).
    pub fn level(&self, level: u32) -> Result<MipLevel<'d>, TexmError> {
        let stored = level
            .checked_add(self.skip)
            .filter(|&l| l < self.texm.mip_count())
            .ok_or(TexmError::LevelIndex {
                level,
                mip_count: self.mip_count(),
            })?;
        self.texm.level(stored)
    }

    /// The remaining levels, new base first.
    pub fn levels(&self) -> impl Iterator<Item = MipLevel<'d>> + '_ {
        (0..self.mip_count()).filter_map(|i| self.level(i).ok())
    }

    /// The bytes of the remaining levels: what the loader points at after the skip.
    pub fn data(&self) -> &'d [u8] {
        let start = self.base().offset;
        let end = self.texm.chain_offset + self.texm.chain.total_len();
        self.texm.bytes.get(start..end).unwrap_or_default()
    }

    /// The `Page` rectangles rescaled to the new base level.
    pub fn page_rects(&self) -> Vec<PageRect> {
        let rects = self.texm.page.into_iter().flat_map(|p| p.rects());
        rescale_page_rects(rects, self.texm.width(), self.texm.height(), self.skip)
    }

    /// Decodes level `level` counted from the new base.
    pub fn decode_level(&self, level: u32) -> Result<RgbaImage, TexmError> {
        let stored = self.level(level)?.level;
        self.texm.decode_level(stored)
    }
}
