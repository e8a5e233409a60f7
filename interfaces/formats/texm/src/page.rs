//! The optional `Page` atlas chunk (FORMATS §9.4, tome V "Texm"): a zero-copy view, the
//! rectangle record, its encoder, and the mip-skip rescaling of rectangles.
//!
//! ```text
//! +0x00 u32 magic       'Page' = 0x65676150
//! +0x04 u32 rect_count
//! +0x08 PageRect8 rects[rect_count]:  i16 x, i16 width, i16 y, i16 height
//! chunk size == 8 + rect_count * 8, and the chunk ends the payload
//! ```
//!
//! # Rescaling after a mip-skip ([`rescale_page_rect`])
//!
//! Rectangles are in the pixel space of the base level. When the loader drops the first
//! `skip` levels, the new base is `new = max(1, base >> skip)` on each axis and every
//! rectangle is scaled by `new / base` on that axis, rounding the origin down and the end
//! (`origin + extent`) up:
//!
//! ```text
//! x'     = floor(x * new_w / base_w)
//! width' = ceil((x + width) * new_w / base_w) - x'        (y, height alike)
//! ```
//!
//! The floor/ceil policy is FParkan's (FORMATS §9.4 says the original rounding is not
//! documented); scaling by the exact ratio `new / base` instead of `2^-skip` is our
//! reading of "scaled to the new base level": the two agree for power-of-two sizes, and
//! the ratio keeps a rectangle that ends on the base level's edge on the new level's
//! edge at odd sizes (5 → 2: end 5 → 2, not 3).

use crate::chain::level_dimensions;
use crate::error::TexmError;

/// `'Page'` read as a little-endian `u32`.
pub const PAGE_MAGIC: u32 = 0x6567_6150;
/// Size of the `Page` chunk header (magic + count).
pub const PAGE_HEADER_SIZE: usize = 8;
/// Size of one rectangle record.
pub const PAGE_RECT_SIZE: usize = 8;

/// One atlas rectangle, fields in on-disk order, in base-level pixels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PageRect {
    /// Left edge.
    pub x: i16,
    /// Width.
    pub width: i16,
    /// Top edge.
    pub y: i16,
    /// Height.
    pub height: i16,
}

impl PageRect {
    /// Reads a record from exactly 8 bytes; `None` for any other length.
    pub fn from_bytes(bytes: &[u8]) -> Option<PageRect> {
        let f = |i: usize| -> Option<i16> {
            Some(i16::from_le_bytes(bytes.get(i..i + 2)?.try_into().ok()?))
        };
        (bytes.len() == PAGE_RECT_SIZE).then_some(())?;
        Some(PageRect {
            x: f(0)?,
            width: f(2)?,
            y: f(4)?,
            height: f(6)?,
        })
    }

    /// The 8 bytes of the record.
    pub fn to_bytes(self) -> [u8; PAGE_RECT_SIZE] {
        let mut out = [0u8; PAGE_RECT_SIZE];
        for (chunk, v) in out
            .chunks_exact_mut(2)
            .zip([self.x, self.width, self.y, self.height])
        {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// Whether the rectangle has non-negative origin and extent and lies inside a
    /// `width` × `height` level. Informative only: the reader does not require it.
    pub fn fits_within(self, width: u32, height: u32) -> bool {
        let axis = |o: i16, e: i16, limit: u32| {
            o >= 0 && e >= 0 && i64::from(o) + i64::from(e) <= i64::from(limit)
        };
        axis(self.x, self.width, width) && axis(self.y, self.height, height)
    }
}

/// A validated `Page` chunk borrowed from the payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page<'d> {
    offset: usize,
    bytes: &'d [u8],
}

impl<'d> Page<'d> {
    /// Validates the chunk that starts at `offset` and runs to the end of `payload`.
    pub(crate) fn parse(payload: &'d [u8], offset: usize) -> Result<Page<'d>, TexmError> {
        let bytes = payload.get(offset..).unwrap_or_default();
        let field = |at: usize| -> Option<u32> {
            Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
        };
        match field(0) {
            Some(PAGE_MAGIC) => {}
            _ => {
                let mut head = [0u8; 4];
                let n = bytes.len().min(4);
                head[..n].copy_from_slice(&bytes[..n]);
                if n < 4 && bytes == &b"Page"[..n] {
                    // A cut-off magic is a truncated chunk, not foreign bytes.
                    return Err(TexmError::PageTruncated {
                        offset,
                        found: bytes.len(),
                    });
                }
                return Err(TexmError::TrailingBytes {
                    offset,
                    len: bytes.len(),
                    head,
                });
            }
        }
        let Some(rect_count) = field(4) else {
            return Err(TexmError::PageTruncated {
                offset,
                found: bytes.len(),
            });
        };
        let expected = 8 + u64::from(rect_count) * 8;
        if expected != bytes.len() as u64 {
            return Err(TexmError::PageSize {
                offset,
                rect_count,
                expected,
                found: bytes.len(),
            });
        }
        Ok(Page { offset, bytes })
    }

    /// Offset of the chunk in the payload.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The whole chunk as stored (magic, count, records).
    pub fn as_bytes(&self) -> &'d [u8] {
        self.bytes
    }

    /// Number of rectangles.
    pub fn len(&self) -> usize {
        (self.bytes.len() - PAGE_HEADER_SIZE) / PAGE_RECT_SIZE
    }

    /// Whether the chunk holds no rectangles (a valid 8-byte chunk).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Rectangle `index`, `None` past the end.
    pub fn rect(&self, index: usize) -> Option<PageRect> {
        let at = index
            .checked_mul(PAGE_RECT_SIZE)?
            .checked_add(PAGE_HEADER_SIZE)?;
        PageRect::from_bytes(self.bytes.get(at..at.checked_add(PAGE_RECT_SIZE)?)?)
    }

    /// Every rectangle in stored order.
    pub fn rects(&self) -> impl ExactSizeIterator<Item = PageRect> + use<'d> {
        self.bytes[PAGE_HEADER_SIZE..]
            .chunks_exact(PAGE_RECT_SIZE)
            .map(|c| PageRect::from_bytes(c).unwrap_or_default())
    }
}

/// The bytes of a `Page` chunk holding `rects`; fails with [`TexmError::RectCount`] past
/// `u32::MAX` rectangles.
pub fn encode_page(rects: &[PageRect]) -> Result<Vec<u8>, TexmError> {
    let count =
        u32::try_from(rects.len()).map_err(|_| TexmError::RectCount { found: rects.len() })?;
    let mut out = Vec::with_capacity(PAGE_HEADER_SIZE + rects.len() * PAGE_RECT_SIZE);
    out.extend_from_slice(&PAGE_MAGIC.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    for r in rects {
        out.extend_from_slice(&r.to_bytes());
    }
    Ok(out)
}

/// `floor(v * num / den)` or `ceil(..)`, for `den > 0`, saturated to `i16`.
fn scale(v: i32, num: u32, den: u32, round_up: bool) -> i64 {
    let p = i64::from(v) * i64::from(num);
    let d = i64::from(den);
    if round_up {
        p.div_euclid(d) + i64::from(p.rem_euclid(d) != 0)
    } else {
        p.div_euclid(d)
    }
}

fn to_i16(v: i64) -> i16 {
    i16::try_from(v).unwrap_or(if v < 0 { i16::MIN } else { i16::MAX })
}

/// Rescales one rectangle of a `base_width` × `base_height` base level to the base that
/// remains after dropping the first `skip` levels (see the module docs). A zero base
/// dimension leaves that axis unchanged; results outside `i16` saturate (cannot happen
/// when `skip > 0` and the base is the header's size).
pub fn rescale_page_rect(rect: PageRect, base_width: u32, base_height: u32, skip: u32) -> PageRect {
    let (new_w, new_h) = level_dimensions(base_width, base_height, skip);
    let axis = |origin: i16, extent: i16, base: u32, new: u32| -> (i16, i16) {
        if base == 0 || new == base {
            return (origin, extent);
        }
        let o = i32::from(origin);
        let start = scale(o, new, base, false);
        let end = scale(o + i32::from(extent), new, base, true);
        (to_i16(start), to_i16(end - start))
    };
    let (x, width) = axis(rect.x, rect.width, base_width, new_w);
    let (y, height) = axis(rect.y, rect.height, base_height, new_h);
    PageRect {
        x,
        width,
        y,
        height,
    }
}

/// [`rescale_page_rect`] over a list.
pub fn rescale_page_rects(
    rects: impl IntoIterator<Item = PageRect>,
    base_width: u32,
    base_height: u32,
    skip: u32,
) -> Vec<PageRect> {
    rects
        .into_iter()
        .map(|r| rescale_page_rect(r, base_width, base_height, skip))
        .collect()
}
