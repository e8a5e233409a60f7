//! Mip-chain geometry: level sizes, offsets and the total chain size, all with checked
//! arithmetic and without allocating (FORMATS §9.2, tome V "Texm").
//!
//! Level `i` is `max(1, width >> i)` × `max(1, height >> i)` pixels; a shift by 32 or
//! more gives 0, so every level from 32 on is 1×1. That makes the chain size a sum of at
//! most 32 terms plus `(mip_count - 32) * bytes_per_pixel`, computed in O(1) time even
//! for `mip_count = u32::MAX`.

use crate::error::TexmError;
use crate::header::PixelFormat;

/// From this level on every level is 1×1 (`x >> 32` is taken as 0).
const FLAT_FROM: u32 = 32;

/// Size in pixels of level `level` of a `width` × `height` texture:
/// `(max(1, width >> level), max(1, height >> level))`.
pub const fn level_dimensions(width: u32, height: u32, level: u32) -> (u32, u32) {
    (shrink(width, level), shrink(height, level))
}

/// `max(1, v >> level)`, with a shift of 32 or more giving 1.
const fn shrink(v: u32, level: u32) -> u32 {
    match v.checked_shr(level) {
        Some(0) | None => 1,
        Some(s) => s,
    }
}

/// Byte size of one level, `None` on overflow of `u64`.
fn level_size(width: u32, height: u32, level: u32, bpp: u32) -> Option<u64> {
    let (w, h) = level_dimensions(width, height, level);
    u64::from(w)
        .checked_mul(u64::from(h))?
        .checked_mul(u64::from(bpp))
}

/// Where one level lies inside the chain and how large it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LevelGeometry {
    /// Level index (0 = base).
    pub level: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Offset of the level from the start of the chain.
    pub offset: usize,
    /// Length of the level in bytes.
    pub len: usize,
}

/// The geometry of a whole mip chain whose total size is known to fit `usize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MipChain {
    width: u32,
    height: u32,
    mip_count: u32,
    format: PixelFormat,
    total: usize,
}

impl MipChain {
    /// Computes the chain; fails with [`TexmError::ChainOverflow`] when its size does not
    /// fit `u64` and `usize`. Zero dimensions and counts are allowed here (the reader
    /// rejects them earlier); a zero `mip_count` gives an empty chain.
    pub fn new(
        width: u32,
        height: u32,
        mip_count: u32,
        format: PixelFormat,
    ) -> Result<MipChain, TexmError> {
        let bpp = format.bytes_per_pixel();
        let overflow = |level| TexmError::ChainOverflow {
            level,
            width,
            height,
            mip_count,
            bytes_per_pixel: bpp,
        };
        let total = prefix_size(width, height, mip_count, bpp).map_err(overflow)?;
        let total = usize::try_from(total).map_err(|_| overflow(mip_count.saturating_sub(1)))?;
        Ok(MipChain {
            width,
            height,
            mip_count,
            format,
            total,
        })
    }

    /// Width of level 0.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height of level 0.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Number of levels.
    pub fn mip_count(&self) -> u32 {
        self.mip_count
    }

    /// The pixel format whose element size the chain uses.
    pub fn format(&self) -> PixelFormat {
        self.format
    }

    /// Total size of all levels in bytes.
    pub fn total_len(&self) -> usize {
        self.total
    }

    /// Geometry of level `level`, `None` past the last level.
    pub fn level(&self, level: u32) -> Option<LevelGeometry> {
        if level >= self.mip_count {
            return None;
        }
        let bpp = self.format.bytes_per_pixel();
        // Both values are at most `total`, which fits `usize`.
        let offset = prefix_size(self.width, self.height, level, bpp).ok()?;
        let len = level_size(self.width, self.height, level, bpp)?;
        let (width, height) = level_dimensions(self.width, self.height, level);
        Some(LevelGeometry {
            level,
            width,
            height,
            offset: usize::try_from(offset).ok()?,
            len: usize::try_from(len).ok()?,
        })
    }

    /// The first level whose end lies past `available` bytes of chain data, if any.
    pub fn first_level_past(&self, available: usize) -> Option<LevelGeometry> {
        if self.total <= available {
            return None;
        }
        // The levels shrink up to FLAT_FROM; after that each costs bpp bytes.
        let bpp = self.format.bytes_per_pixel();
        let mut level = 0;
        while level < self.mip_count.min(FLAT_FROM) {
            let g = self.level(level)?;
            if g.offset + g.len > available {
                return Some(g);
            }
            level += 1;
        }
        let flat_start = prefix_size(self.width, self.height, FLAT_FROM, bpp).ok()?;
        let past = (available as u64).saturating_sub(flat_start) / u64::from(bpp);
        let level = FLAT_FROM.saturating_add(u32::try_from(past).unwrap_or(u32::MAX));
        self.level(level)
    }
}

/// Total size of levels `0..count`; on overflow, the first level whose end overflows.
fn prefix_size(width: u32, height: u32, count: u32, bpp: u32) -> Result<u64, u32> {
    let mut total: u64 = 0;
    for level in 0..count.min(FLAT_FROM) {
        total = level_size(width, height, level, bpp)
            .and_then(|s| total.checked_add(s))
            .ok_or(level)?;
    }
    if count > FLAT_FROM {
        let flat = u64::from(count - FLAT_FROM) * u64::from(bpp);
        total = total.checked_add(flat).ok_or(FLAT_FROM)?;
    }
    Ok(total)
}
