//! Corpus statistics over parsed textures (FORMATS §9.6: formats, `Page` chunks, size
//! range), for regression gates such as "demo: 518 Texm, 65 with `Page`, 8×8..256×256".

use std::collections::BTreeMap;

use crate::header::PixelFormat;
use crate::texm::Texm;

/// Running totals over any number of textures.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TexmStats {
    /// Textures added.
    pub textures: u64,
    /// Textures per pixel format.
    pub by_format: BTreeMap<PixelFormat, u64>,
    /// Textures with a `Page` chunk.
    pub with_page: u64,
    /// `Page` rectangles in all.
    pub page_rects: u64,
    /// `Page` rectangles that do not fit inside their base level (informative).
    pub page_rects_outside: u64,
    /// Smallest base size seen, by pixel count then width.
    pub min_size: Option<(u32, u32)>,
    /// Largest base size seen, by pixel count then width.
    pub max_size: Option<(u32, u32)>,
    /// Mip levels in all.
    pub levels: u64,
}

impl TexmStats {
    /// Adds one texture.
    pub fn add(&mut self, texm: &Texm<'_>) {
        self.textures += 1;
        *self.by_format.entry(texm.format()).or_insert(0) += 1;
        self.levels += u64::from(texm.mip_count());
        if let Some(page) = texm.page() {
            self.with_page += 1;
            self.page_rects += page.len() as u64;
            self.page_rects_outside += page
                .rects()
                .filter(|r| !r.fits_within(texm.width(), texm.height()))
                .count() as u64;
        }
        let size = (texm.width(), texm.height());
        let key = |(w, h): (u32, u32)| (u64::from(w) * u64::from(h), w);
        if self.min_size.is_none_or(|m| key(size) < key(m)) {
            self.min_size = Some(size);
        }
        if self.max_size.is_none_or(|m| key(size) > key(m)) {
            self.max_size = Some(size);
        }
    }
}
