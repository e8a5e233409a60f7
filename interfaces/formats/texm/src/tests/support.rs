//! Test fixtures: a free-form payload builder that can produce invalid files (any header
//! value, any chain bytes, any tail), plus small helpers.

use crate::{HEADER_SIZE, Header, PAGE_MAGIC, PageRect, TEXM_MAGIC};

/// A header with the given geometry and format and distinctive opaque fields.
pub fn header(width: u32, height: u32, mip_count: u32, format: u32) -> Header {
    Header {
        magic: TEXM_MAGIC,
        width,
        height,
        mip_count,
        flags4: 0x0403_0201,
        flags5: 0x0807_0605,
        unknown6: 0xDEAD_BEEF,
        format,
    }
}

/// Header bytes, then every part in order.
pub fn payload(h: &Header, parts: &[&[u8]]) -> Vec<u8> {
    let mut out = h.to_bytes().to_vec();
    assert_eq!(out.len(), HEADER_SIZE);
    for p in parts {
        out.extend_from_slice(p);
    }
    out
}

/// Bytes of a `Page` chunk with a `rect_count` field that may lie.
pub fn page_chunk(rect_count: u32, rects: &[PageRect]) -> Vec<u8> {
    let mut out = PAGE_MAGIC.to_le_bytes().to_vec();
    out.extend_from_slice(&rect_count.to_le_bytes());
    for r in rects {
        out.extend_from_slice(&r.to_bytes());
    }
    out
}

/// `n` bytes counting up from `start`.
pub fn ramp(start: u8, n: usize) -> Vec<u8> {
    (0..n).map(|i| start.wrapping_add(i as u8)).collect()
}

/// A palette whose entry `i` is `[i, 255 - i, i / 2, 255 - i / 3]`.
pub fn palette_bytes() -> Vec<u8> {
    (0..=255u8)
        .flat_map(|i| [i, 255 - i, i / 2, 255 - i / 3])
        .collect()
}
