//! `Page` records and mip-skip: rectangle bytes, rescaling at power-of-two and odd
//! sizes, negative and extreme values, and the `MipSkip` view of a parsed texture.

use super::support::{header, page_chunk, payload, ramp};
use crate::{PageRect, Texm, encode_page, rescale_page_rect, rescale_page_rects};

fn r(x: i16, width: i16, y: i16, height: i16) -> PageRect {
    PageRect {
        x,
        width,
        y,
        height,
    }
}

#[test]
fn rect_records_are_x_width_y_height_little_endian() {
    let rect = r(1, -2, 0x1234, i16::MIN);
    let bytes = rect.to_bytes();
    assert_eq!(bytes, [1, 0, 0xFE, 0xFF, 0x34, 0x12, 0x00, 0x80]);
    assert_eq!(PageRect::from_bytes(&bytes), Some(rect));
    assert_eq!(PageRect::from_bytes(&bytes[..7]), None);
    let chunk = encode_page(&[rect, rect]).unwrap();
    assert_eq!(&chunk[..8], b"Page\x02\x00\x00\x00");
    assert_eq!(chunk.len(), 8 + 2 * 8);
}

#[test]
fn skipping_zero_levels_keeps_rects() {
    for rect in [r(3, 4, 5, 6), r(i16::MIN, i16::MAX, -1, -1)] {
        assert_eq!(rescale_page_rect(rect, 37, 11, 0), rect);
    }
}

#[test]
fn power_of_two_sizes_halve_per_level_with_floor_origin_and_ceil_end() {
    assert_eq!(
        rescale_page_rect(r(10, 20, 30, 40), 256, 256, 1),
        r(5, 10, 15, 20)
    );
    // x 10/4 = 2.5 -> 2; end 30/4 = 7.5 -> 8. y 30/4 = 7.5 -> 7; end 70/4 = 17.5 -> 18.
    assert_eq!(
        rescale_page_rect(r(10, 20, 30, 40), 256, 256, 2),
        r(2, 6, 7, 11)
    );
    assert_eq!(
        rescale_page_rect(r(0, 256, 0, 256), 256, 256, 8),
        r(0, 1, 0, 1)
    );
    assert_eq!(
        rescale_page_rect(r(255, 1, 128, 1), 256, 256, 8),
        r(0, 1, 0, 1)
    );
}

#[test]
fn odd_sizes_scale_by_the_ratio_of_the_new_base_to_the_old() {
    // 5x3 -> 2x1 after one level.
    assert_eq!(rescale_page_rect(r(0, 5, 0, 3), 5, 3, 1), r(0, 2, 0, 1));
    // x 1*2/5 = 0.4 -> 0; end 4*2/5 = 1.6 -> 2. y 1/3 -> 0; end 3/3 = 1.
    assert_eq!(rescale_page_rect(r(1, 3, 1, 2), 5, 3, 1), r(0, 2, 0, 1));
    // x 3*2/5 = 1.2 -> 1; end 5*2/5 = 2: the right edge stays on the edge.
    assert_eq!(rescale_page_rect(r(3, 2, 2, 1), 5, 3, 1), r(1, 1, 0, 1));
    // 5x3 -> 1x1 after two levels.
    assert_eq!(rescale_page_rect(r(4, 1, 2, 1), 5, 3, 2), r(0, 1, 0, 1));
    // 7x9 -> 3x4: x 2*3/7 = 0.86 -> 0, end 5*3/7 = 2.14 -> 3; y 4*4/9 = 1.78 -> 1,
    // end 9*4/9 = 4.
    assert_eq!(rescale_page_rect(r(2, 3, 4, 5), 7, 9, 1), r(0, 3, 1, 3));
    // A rect inside the base stays inside every smaller base.
    for skip in 0..6 {
        for rect in [r(0, 7, 0, 9), r(6, 1, 8, 1), r(3, 2, 4, 3)] {
            let (w, h) = crate::level_dimensions(7, 9, skip);
            assert!(
                rescale_page_rect(rect, 7, 9, skip).fits_within(w, h),
                "{skip} {rect:?}"
            );
        }
    }
}

#[test]
fn negative_and_extreme_rects_round_outward_and_never_panic() {
    // x -3/2 = -1.5 -> -2; end -1/2 = -0.5 -> 0.
    assert_eq!(rescale_page_rect(r(-3, 2, 0, 0), 8, 8, 1), r(-2, 2, 0, 0));
    assert_eq!(rescale_page_rect(r(0, -4, 0, 0), 8, 8, 1), r(0, -2, 0, 0));
    let ext = r(i16::MIN, i16::MIN, i16::MAX, i16::MAX);
    for (w, h, skip) in [
        (1, 1, 5),
        (2, 2, 1),
        (u32::MAX, 3, 1),
        (65535, 65535, 40),
        (0, 0, 3),
    ] {
        let _ = rescale_page_rect(ext, w, h, skip);
    }
    assert_eq!(rescale_page_rect(ext, 0, 0, 3), ext);
    assert_eq!(
        rescale_page_rect(ext, 2, 2, 1),
        r(-16384, -16384, 16383, 16384)
    );
}

#[test]
fn rescale_page_rects_maps_every_rect() {
    let rects = [r(0, 4, 0, 4), r(4, 4, 4, 4)];
    assert_eq!(
        rescale_page_rects(rects, 8, 8, 2),
        [r(0, 1, 0, 1), r(1, 1, 1, 1)]
    );
}

#[test]
fn mip_skip_view_renumbers_levels_and_rescales_the_page() {
    // 5x3 8888, 3 levels: 60 + 8 + 4 bytes.
    let chain = ramp(0, 72);
    let page = page_chunk(2, &[r(1, 3, 1, 2), r(0, 5, 0, 3)]);
    let bytes = payload(&header(5, 3, 3, 8888), &[&chain, &page]);
    let t = Texm::parse(&bytes).unwrap();
    assert_eq!(t.chain_bytes(), &chain[..]);

    let s = t.skip_mips(1).unwrap();
    assert_eq!(
        (s.skipped(), s.width(), s.height(), s.mip_count()),
        (1, 2, 1, 2)
    );
    assert_eq!(s.data(), &chain[60..]);
    let l0 = s.level(0).unwrap();
    assert_eq!(
        (l0.level(), l0.offset(), l0.bytes()),
        (1, 32 + 60, &chain[60..68])
    );
    assert_eq!(s.levels().count(), 2);
    assert_eq!(s.page_rects(), [r(0, 2, 0, 1), r(0, 2, 0, 1)]);
    assert_eq!(s.decode_level(1).unwrap(), t.decode_level(2).unwrap());
    assert_eq!(s.texm(), &t);

    let s = t.skip_mips(2).unwrap();
    assert_eq!(
        (s.width(), s.height(), s.mip_count(), s.data()),
        (1, 1, 1, &chain[68..])
    );
    assert_eq!(s.page_rects(), [r(0, 1, 0, 1), r(0, 1, 0, 1)]);

    let s = t.skip_mips(0).unwrap();
    assert_eq!((s.width(), s.height(), s.data()), (5, 3, &chain[..]));
    assert_eq!(s.page_rects(), t.page_rects());
}

#[test]
fn fits_within_checks_origin_extent_and_edges() {
    assert!(r(0, 5, 0, 3).fits_within(5, 3));
    assert!(!r(1, 5, 0, 3).fits_within(5, 3));
    assert!(!r(-1, 1, 0, 1).fits_within(5, 3));
    assert!(!r(0, -1, 0, 1).fits_within(5, 3));
    assert!(r(0, 0, 0, 0).fits_within(1, 1));
}
