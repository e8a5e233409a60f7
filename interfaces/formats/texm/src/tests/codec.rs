//! Pixel codecs: bit-replication values, the quantiser's exactness and error bounds, and
//! known pixels of every format decoded through a parsed texture.

use super::support::{header, palette_bytes, payload};
use crate::codec::{expand4, expand5, expand6, luma, quantise4, quantise5, quantise6};
use crate::{
    Check, DecodeOptions, Palette, PaletteAlpha, PixelFormat, Texm, TexmError, decode_pixels,
    encode_pixels,
};

#[test]
fn bit_replication_values_of_project_decision_2() {
    assert_eq!(expand5(31), 255);
    assert_eq!(expand5(0), 0);
    assert_eq!(expand5(1), 8);
    assert_eq!(expand5(3), 24); // rounded division would give 25
    assert_eq!(expand5(16), 132);
    assert_eq!(expand6(1), 4);
    assert_eq!(expand6(63), 255);
    assert_eq!(expand6(32), 130);
    assert_eq!(expand6(17), 69);
    assert_eq!(expand4(1), 17);
    assert_eq!(expand4(15), 255);
    for v in 0..32u8 {
        assert_eq!(expand5(v), (v << 3) | (v >> 2));
    }
    for v in 0..64u8 {
        assert_eq!(expand6(v), (v << 2) | (v >> 4));
    }
    for v in 0..16u8 {
        assert_eq!(expand4(v), v * 17);
    }
}

#[test]
fn quantising_an_expanded_code_gives_the_code_back() {
    for v in 0..16 {
        assert_eq!(quantise4(expand4(v)), v);
    }
    for v in 0..32 {
        assert_eq!(quantise5(expand5(v)), v);
    }
    for v in 0..64 {
        assert_eq!(quantise6(expand6(v)), v);
    }
}

#[test]
fn quantiser_picks_the_nearest_expansion_with_ties_to_the_lower_code() {
    let mut worst = [0u8; 3];
    for c in 0..=255u8 {
        let cases = [
            (expand4(quantise4(c)), 16u8, 0usize),
            (expand5(quantise5(c)), 32, 1),
            (expand6(quantise6(c)), 64, 2),
        ];
        for (got, codes, k) in cases {
            let err = got.abs_diff(c);
            worst[k] = worst[k].max(err);
            let best = (0..codes)
                .map(|v| match codes {
                    16 => expand4(v),
                    32 => expand5(v),
                    _ => expand6(v),
                })
                .map(|e| e.abs_diff(c))
                .min()
                .unwrap();
            assert_eq!(err, best, "c={c} codes={codes}");
        }
    }
    assert_eq!(worst, [8, 4, 2]);
    // 4 is 4 away from both 0 and 8: the lower code wins.
    assert_eq!(quantise5(4), 0);
    assert_eq!(quantise6(2), 0);
    assert_eq!(quantise4(8), 0);
    assert_eq!(quantise4(9), 1);
}

#[test]
fn luma_is_exact_for_grey_and_rounds_half_up() {
    for v in 0..=255 {
        assert_eq!(luma(v, v, v), v);
    }
    assert_eq!(luma(255, 0, 0), 76); // 76.245
    assert_eq!(luma(0, 255, 0), 150); // 149.685
    assert_eq!(luma(0, 0, 255), 29); // 29.07
}

/// Decodes `raw` (one row) through a parsed texture of `format`.
fn decode(format: PixelFormat, raw: &[u8]) -> Vec<[u8; 4]> {
    let w = raw.len() as u32 / format.bytes_per_pixel();
    let pal = palette_bytes();
    let palette: &[u8] = if format.has_palette() { &pal } else { &[] };
    let bytes = payload(&header(w, 1, 1, format.raw()), &[palette, raw]);
    let t = Texm::parse(&bytes).unwrap();
    let img = t.decode_level(0).unwrap();
    assert_eq!((img.width(), img.height()), (w, 1));
    img.pixels()
        .chunks_exact(4)
        .map(|p| [p[0], p[1], p[2], p[3]])
        .collect()
}

fn words(ws: &[u16]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn decodes_565_r_bits_15_11_g_10_5_b_4_0() {
    let px = decode(
        PixelFormat::Rgb565,
        &words(&[0xF800, 0x07E0, 0x001F, 0x0020, 0x0801, 0x18C3, 0xFFFF]),
    );
    assert_eq!(
        px,
        [
            [255, 0, 0, 255],
            [0, 255, 0, 255],
            [0, 0, 255, 255],
            [0, 4, 0, 255],
            [8, 0, 8, 255],
            [24, 24, 24, 255],
            [255, 255, 255, 255],
        ]
    );
}

#[test]
fn decodes_556_r_bits_15_11_g_10_6_b_5_0() {
    let px = decode(
        PixelFormat::Rgb556,
        &words(&[0xF800, 0x07C0, 0x003F, 0x0001, 0x0040, 0x0800]),
    );
    assert_eq!(
        px,
        [
            [255, 0, 0, 255],
            [0, 255, 0, 255],
            [0, 0, 255, 255],
            [0, 0, 4, 255],
            [0, 8, 0, 255],
            [8, 0, 0, 255],
        ]
    );
}

#[test]
fn decodes_4444_a_r_g_b_from_the_high_nibble_down() {
    let px = decode(PixelFormat::Argb4444, &words(&[0xF12E, 0x0F00, 0x1000]));
    assert_eq!(px, [[17, 34, 238, 255], [255, 0, 0, 0], [0, 0, 0, 17]]);
}

#[test]
fn decodes_88_l_in_the_high_byte_a_in_the_low_byte() {
    let px = decode(PixelFormat::La88, &[0x40, 0x7F, 0xFF, 0x00]);
    assert_eq!(px, [[0x7F, 0x7F, 0x7F, 0x40], [0, 0, 0, 0xFF]]);
    assert_eq!(px[0], decode(PixelFormat::La88, &words(&[0x7F40]))[0]);
}

#[test]
fn decodes_888_as_r_g_b_pad_and_keeps_the_pad_byte() {
    let raw = [0x11, 0x22, 0x33, 0x99, 1, 2, 3, 0];
    assert_eq!(
        decode(PixelFormat::Rgb888x, &raw),
        [[0x11, 0x22, 0x33, 255], [1, 2, 3, 255]]
    );
    let bytes = payload(&header(2, 1, 1, 888), &[&raw]);
    let t = Texm::parse(&bytes).unwrap();
    assert_eq!(t.level(0).unwrap().bytes(), &raw);
    assert_eq!(t.to_bytes(), bytes);
}

#[test]
fn decodes_8888_as_a_r_g_b_bytes() {
    assert_eq!(
        decode(PixelFormat::Argb8888, &[0x40, 0x11, 0x22, 0x33]),
        [[0x11, 0x22, 0x33, 0x40]]
    );
}

#[test]
fn decodes_indexed_through_the_embedded_palette() {
    // Entry i = [i, 255 - i, i / 2, 255 - i / 3].
    assert_eq!(
        decode(PixelFormat::Indexed8, &[0, 5, 255]),
        [[0, 255, 0, 255], [5, 250, 2, 254], [255, 0, 127, 170]]
    );
}

#[test]
fn indexed_decoding_options_external_palette_and_opaque_alpha() {
    let bytes = payload(&header(2, 1, 1, 0), &[&palette_bytes(), &[1, 2]]);
    let t = Texm::parse(&bytes).unwrap();
    let opaque = DecodeOptions {
        palette: None,
        palette_alpha: PaletteAlpha::Opaque,
    };
    assert_eq!(
        t.decode_level_with(0, &opaque).unwrap().pixels(),
        [1, 254, 0, 255, 2, 253, 1, 255]
    );
    let mut entries = [[0u8; 4]; 256];
    entries[1] = [9, 9, 9, 9];
    entries[2] = [7, 7, 7, 0];
    let external = Palette::from_entries(entries);
    let with = DecodeOptions {
        palette: Some(&external),
        palette_alpha: PaletteAlpha::Stored,
    };
    assert_eq!(
        t.decode_level_with(0, &with).unwrap().pixels(),
        [9, 9, 9, 9, 7, 7, 7, 0]
    );
    assert_eq!(t.palette().unwrap().to_bytes().as_slice(), palette_bytes());
}

#[test]
fn encodes_known_pixels_of_every_direct_format() {
    let rgba = [255, 0, 0, 255, 0, 255, 0, 0, 0, 0, 255, 17, 8, 4, 4, 136];
    let cases: [(PixelFormat, Vec<u8>); 6] = [
        (
            PixelFormat::Rgb565,
            words(&[0xF800, 0x07E0, 0x001F, 0x0820]),
        ),
        (
            PixelFormat::Rgb556,
            words(&[0xF800, 0x07C0, 0x003F, 0x0801]),
        ),
        (
            PixelFormat::Argb4444,
            words(&[0xFF00, 0x00F0, 0x100F, 0x8000]),
        ),
        (PixelFormat::La88, vec![255, 76, 0, 150, 17, 29, 136, 5]),
        (
            PixelFormat::Rgb888x,
            vec![255, 0, 0, 0, 0, 255, 0, 0, 0, 0, 255, 0, 8, 4, 4, 0],
        ),
        (
            PixelFormat::Argb8888,
            vec![255, 255, 0, 0, 0, 0, 255, 0, 17, 0, 0, 255, 136, 8, 4, 4],
        ),
    ];
    for (format, expected) in cases {
        let mut out = Vec::new();
        encode_pixels(format, &rgba, None, &mut out).unwrap();
        assert_eq!(out, expected, "{format}");
    }
}

#[test]
fn codec_functions_reject_bad_lengths_and_missing_palettes() {
    let mut out = Vec::new();
    let e = encode_pixels(PixelFormat::Rgb565, &[0; 7], None, &mut out).unwrap_err();
    assert_eq!(e.check(), Check::PixelData);
    let e = encode_pixels(PixelFormat::Indexed8, &[0; 8], None, &mut out).unwrap_err();
    assert_eq!(
        e,
        TexmError::PaletteMismatch {
            format: 0,
            present: false
        }
    );
    let e = decode_pixels(
        PixelFormat::Argb8888,
        &[0; 6],
        None,
        PaletteAlpha::Stored,
        &mut out,
    )
    .unwrap_err();
    assert_eq!(e.check(), Check::PixelData);
    let e = decode_pixels(
        PixelFormat::Indexed8,
        &[0; 6],
        None,
        PaletteAlpha::Stored,
        &mut out,
    )
    .unwrap_err();
    assert_eq!(e.check(), Check::Palette);
    assert!(out.is_empty());
}
