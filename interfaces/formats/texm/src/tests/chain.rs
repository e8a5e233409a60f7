//! Mip-chain geometry: sizes for 1×1, non-square and odd textures, offsets, huge counts
//! and overflow.

use crate::{Check, MipChain, PixelFormat, level_dimensions};

fn dims(w: u32, h: u32, n: u32) -> Vec<(u32, u32)> {
    (0..n).map(|i| level_dimensions(w, h, i)).collect()
}

#[test]
fn one_by_one_texture_has_one_pixel_per_level() {
    for format in PixelFormat::ALL {
        let bpp = format.bytes_per_pixel() as usize;
        let chain = MipChain::new(1, 1, 3, format).unwrap();
        assert_eq!(chain.total_len(), 3 * bpp);
        let l2 = chain.level(2).unwrap();
        assert_eq!(
            (l2.width, l2.height, l2.offset, l2.len),
            (1, 1, 2 * bpp, bpp)
        );
        assert_eq!(chain.level(3), None);
    }
}

#[test]
fn non_square_chain_clamps_each_axis_at_one() {
    assert_eq!(dims(8, 2, 5), [(8, 2), (4, 1), (2, 1), (1, 1), (1, 1)]);
    assert_eq!(dims(1, 16, 3), [(1, 16), (1, 8), (1, 4)]);
    let chain = MipChain::new(8, 2, 4, PixelFormat::Rgb565).unwrap();
    assert_eq!(chain.total_len(), (16 + 4 + 2 + 1) * 2);
}

#[test]
fn odd_sizes_round_down() {
    assert_eq!(dims(5, 3, 4), [(5, 3), (2, 1), (1, 1), (1, 1)]);
    assert_eq!(dims(255, 129, 3), [(255, 129), (127, 64), (63, 32)]);
    let chain = MipChain::new(5, 3, 3, PixelFormat::Argb8888).unwrap();
    assert_eq!(chain.total_len(), (15 + 2 + 1) * 4);
}

#[test]
fn shifts_of_32_or_more_give_one_pixel() {
    assert_eq!(level_dimensions(u32::MAX, 7, 31), (1, 1));
    assert_eq!(level_dimensions(u32::MAX, 7, 32), (1, 1));
    assert_eq!(level_dimensions(u32::MAX, u32::MAX, u32::MAX), (1, 1));
    assert_eq!(level_dimensions(u32::MAX, 8, 30), (3, 1));
}

#[test]
fn level_offsets_are_the_running_sum_of_level_sizes() {
    let chain = MipChain::new(37, 11, 40, PixelFormat::Rgb888x).unwrap();
    let mut offset = 0;
    for i in 0..40 {
        let g = chain.level(i).unwrap();
        assert_eq!(g.offset, offset, "level {i}");
        assert_eq!(g.len, (g.width * g.height * 4) as usize);
        offset += g.len;
    }
    assert_eq!(offset, chain.total_len());
}

#[test]
fn a_maximal_mip_count_is_computed_in_constant_time() {
    let chain = MipChain::new(1, 1, u32::MAX, PixelFormat::Argb8888).unwrap();
    assert_eq!(chain.total_len() as u64, 4 * u64::from(u32::MAX));
    let last = chain.level(u32::MAX - 1).unwrap();
    assert_eq!(last.offset as u64, 4 * u64::from(u32::MAX - 1));
    assert_eq!(chain.first_level_past(1000).unwrap().level, 250);
    assert_eq!(chain.first_level_past(1003).unwrap().level, 250);
    assert_eq!(chain.first_level_past(1004).unwrap().level, 251);
    assert_eq!(chain.first_level_past(chain.total_len()), None);
}

#[test]
fn first_level_past_finds_the_first_incomplete_level() {
    let chain = MipChain::new(4, 4, 3, PixelFormat::Argb8888).unwrap();
    assert_eq!(chain.first_level_past(0).unwrap().level, 0);
    assert_eq!(chain.first_level_past(63).unwrap().level, 0);
    assert_eq!(chain.first_level_past(64).unwrap().level, 1);
    assert_eq!(chain.first_level_past(83).unwrap().level, 2);
    assert_eq!(chain.first_level_past(84), None);
}

#[test]
fn overflowing_chains_are_errors_not_panics() {
    let e = MipChain::new(u32::MAX, u32::MAX, 1, PixelFormat::Argb8888).unwrap_err();
    assert_eq!(e.check(), Check::ChainSize);
    let e = MipChain::new(u32::MAX, u32::MAX, 2, PixelFormat::Indexed8).unwrap_err();
    assert_eq!(e.check(), Check::ChainSize);
    assert!(MipChain::new(u32::MAX, u32::MAX, 1, PixelFormat::Indexed8).is_ok());
    let e = MipChain::new(u32::MAX, 1 << 31, u32::MAX, PixelFormat::Rgb565).unwrap_err();
    assert_eq!(e.check(), Check::ChainSize);
}
