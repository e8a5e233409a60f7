//! Property tests: for every format, random textures encode → decode → encode
//! byte-identically; encoding stays within the documented quantisation error; random raw
//! payloads rewrite losslessly; arbitrary and mutated inputs never panic; rescaled `Page`
//! rectangles stay inside the new base.

use super::support::header;
use crate::codec::luma;
use crate::{
    Check, Header, PageRect, Palette, PixelFormat, RawParts, RgbaImage, Texm, TexmWriter,
    level_dimensions, rescale_page_rect, write_raw,
};
use proptest::prelude::*;

fn format() -> impl Strategy<Value = PixelFormat> {
    prop::sample::select(PixelFormat::ALL.to_vec())
}

fn rect() -> impl Strategy<Value = PageRect> {
    any::<[i16; 4]>().prop_map(|[x, width, y, height]| PageRect {
        x,
        width,
        y,
        height,
    })
}

fn page() -> impl Strategy<Value = Option<Vec<PageRect>>> {
    prop::option::of(prop::collection::vec(rect(), 0..4))
}

/// Bytes per element for each level of a `w`×`h`×`n` chain, times `bpp`.
fn level_lens(w: u32, h: u32, n: u32, bpp: u32) -> Vec<usize> {
    (0..n)
        .map(|i| {
            let (lw, lh) = level_dimensions(w, h, i);
            (lw * lh * bpp) as usize
        })
        .collect()
}

/// A palette with random entries, often repeating (few distinct bytes).
fn palette() -> impl Strategy<Value = Palette> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 1024),
        prop::collection::vec(prop::sample::select(vec![0u8, 7, 255]), 1024),
    ]
    .prop_map(|b| Palette::from_bytes(&b).unwrap())
}

/// RGBA levels of a random chain (the caller's side of a new texture).
fn levels() -> impl Strategy<Value = Vec<RgbaImage>> {
    (1u32..=9, 1u32..=9, 1u32..=5).prop_flat_map(|(w, h, n)| {
        let lens = level_lens(w, h, n, 4);
        lens.into_iter()
            .map(|len| prop::collection::vec(any::<u8>(), len))
            .collect::<Vec<_>>()
            .prop_map(move |pixels| {
                (0u32..)
                    .zip(pixels)
                    .map(|(i, p)| {
                        let (lw, lh) = level_dimensions(w, h, i);
                        RgbaImage::new(lw, lh, p).unwrap()
                    })
                    .collect()
            })
    })
}

fn writer() -> impl Strategy<Value = TexmWriter> {
    (
        format(),
        any::<[u32; 3]>(),
        page(),
        prop::option::of(palette()),
    )
        .prop_map(|(format, [f4, f5, u6], page, pal)| {
            let mut w = TexmWriter::new(format).with_flags(f4, f5, u6);
            if let Some(rects) = page {
                w = w.with_page(rects);
            }
            match pal {
                Some(p) if format.has_palette() => w.with_palette(p),
                _ => w,
            }
        })
}

fn decode_all(t: &Texm<'_>) -> Vec<RgbaImage> {
    t.levels()
        .map(|l| t.decode_level(l.level()).unwrap())
        .collect()
}

/// Asserts the documented quantisation rule between an input pixel and its decoded form.
fn check_quantisation(format: PixelFormat, palette: Option<&Palette>, src: [u8; 4], dec: [u8; 4]) {
    let d = |k: usize| src[k].abs_diff(dec[k]);
    match format {
        PixelFormat::Rgb565 => assert!(d(0) <= 4 && d(1) <= 2 && d(2) <= 4 && dec[3] == 255),
        PixelFormat::Rgb556 => assert!(d(0) <= 4 && d(1) <= 4 && d(2) <= 2 && dec[3] == 255),
        PixelFormat::Argb4444 => assert!((0..4).all(|k| d(k) <= 8)),
        PixelFormat::La88 => {
            let l = luma(src[0], src[1], src[2]);
            assert_eq!(dec, [l, l, l, src[3]]);
        }
        PixelFormat::Rgb888x => assert_eq!(dec, [src[0], src[1], src[2], 255]),
        PixelFormat::Argb8888 => assert_eq!(dec, src),
        PixelFormat::Indexed8 => match palette {
            Some(p) => assert_eq!(dec, p.entry(p.nearest(src))),
            None => assert_eq!(dec, src, "at most 256 colours: exact"),
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn encode_decode_encode_is_byte_identical_for_every_format(
        w in writer(),
        levels in levels(),
    ) {
        let first = w.write(&levels).unwrap();
        let t = Texm::parse(&first).unwrap();
        prop_assert_eq!(t.to_bytes(), first.clone());
        let decoded = decode_all(&t);
        let second = TexmWriter::like(&t).write(&decoded).unwrap();
        prop_assert_eq!(second, first);
    }

    #[test]
    fn encoding_stays_within_the_documented_quantisation_error(
        format in format(),
        fixed in prop::option::of(palette()),
        levels in levels(),
    ) {
        let mut w = TexmWriter::new(format);
        let fixed = fixed.filter(|_| format.has_palette());
        if let Some(p) = &fixed {
            w = w.with_palette(p.clone());
        }
        let bytes = w.write(&levels).unwrap();
        let t = Texm::parse(&bytes).unwrap();
        for (src, dec) in levels.iter().zip(decode_all(&t)) {
            prop_assert_eq!((src.width(), src.height()), (dec.width(), dec.height()));
            for (s, d) in src.pixels().chunks_exact(4).zip(dec.pixels().chunks_exact(4)) {
                check_quantisation(
                    format,
                    fixed.as_ref(),
                    [s[0], s[1], s[2], s[3]],
                    [d[0], d[1], d[2], d[3]],
                );
            }
        }
    }

    #[test]
    fn random_raw_payloads_rewrite_losslessly(
        format in format(),
        (w, h, n) in (1u32..=9, 1u32..=9, 1u32..=6),
        flags in any::<[u32; 3]>(),
        pal in prop::collection::vec(any::<u8>(), 1024),
        seed in prop::collection::vec(any::<u8>(), 1..64),
        page in page(),
    ) {
        let lens = level_lens(w, h, n, format.bytes_per_pixel());
        let mut cursor = seed.iter().copied().cycle().enumerate();
        let raw: Vec<Vec<u8>> = lens
            .iter()
            .map(|&len| cursor.by_ref().take(len).map(|(i, b)| b ^ (i as u8)).collect())
            .collect();
        let refs: Vec<&[u8]> = raw.iter().map(Vec::as_slice).collect();
        let mut hd: Header = header(w, h, n, format.raw());
        (hd.flags4, hd.flags5, hd.unknown6) = (flags[0], flags[1], flags[2]);
        let parts = RawParts {
            header: hd,
            palette: format.has_palette().then_some(&pal[..]),
            levels: &refs,
            page: page.as_deref(),
        };
        let bytes = write_raw(&parts).unwrap();
        let t = Texm::parse(&bytes).unwrap();
        prop_assert_eq!(t.to_bytes(), bytes.clone());
        for (l, r) in t.levels().zip(&raw) {
            prop_assert_eq!(l.bytes(), &r[..]);
        }
        let decoded = decode_all(&t);
        let again = TexmWriter::like(&t).write(&decoded).unwrap();
        match format {
            PixelFormat::Indexed8 => {
                let t2 = Texm::parse(&again).unwrap();
                prop_assert_eq!(decode_all(&t2), decoded);
            }
            PixelFormat::Rgb888x => {
                prop_assert_eq!(again.len(), bytes.len());
                for (i, (a, b)) in again.iter().zip(&bytes).enumerate() {
                    let in_chain = i >= 32 && i < 32 + t.chain().total_len();
                    if in_chain && (i - 32) % 4 == 3 {
                        prop_assert_eq!(*a, 0);
                    } else {
                        prop_assert_eq!(a, b);
                    }
                }
            }
            _ => prop_assert_eq!(again, bytes),
        }
    }

    #[test]
    fn arbitrary_inputs_never_panic_and_accepted_ones_are_lossless(
        fields in any::<[u8; 16]>(),
        format in prop::sample::select(vec![0u32, 565, 556, 4444, 88, 888, 8888, 1]),
        body in prop::collection::vec(any::<u8>(), 0..1200),
        cut in any::<bool>(),
    ) {
        let mut bytes = b"Texm".to_vec();
        // Small width/height/mip_count so some inputs are valid.
        for f in &fields[..3] {
            bytes.extend_from_slice(&u32::from(f % 5).to_le_bytes());
        }
        bytes.extend_from_slice(&fields[3..15]);
        bytes.extend_from_slice(&format.to_le_bytes());
        bytes.extend_from_slice(&body);
        let exact = crate::MipChain::new(
            u32::from(fields[0] % 5),
            u32::from(fields[1] % 5),
            u32::from(fields[2] % 5),
            PixelFormat::from_raw(format).unwrap_or(PixelFormat::Rgb565),
        )
        .map(|c| 32 + c.total_len() + if format == 0 { 1024 } else { 0 });
        match (cut, exact) {
            // Exactly the chain: valid whenever the header is.
            (true, Ok(len)) if fields[15] % 2 == 0 => bytes.resize(len, 0x5A),
            (true, _) => bytes.truncate(usize::from(fields[15]) * 5),
            _ => {}
        }
        match Texm::parse(&bytes) {
            Ok(t) => {
                prop_assert_eq!(t.to_bytes(), bytes.clone());
                for l in t.levels() {
                    let img = t.decode_level(l.level()).unwrap();
                    prop_assert_eq!(img.pixels().len() as u64, u64::from(l.width() * l.height()) * 4);
                }
            }
            Err(e) => prop_assert!(Check::READ_CHECKS.contains(&e.check())),
        }
    }

    #[test]
    fn mutated_valid_payloads_never_panic(
        w in writer(),
        levels in levels(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
    ) {
        let mut bytes = w.write(&levels).unwrap();
        for (at, x) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= x;
        }
        if let Ok(t) = Texm::parse(&bytes) {
            prop_assert_eq!(t.to_bytes(), bytes.clone());
            for l in t.levels() {
                t.decode_level(l.level()).unwrap();
            }
        }
    }

    #[test]
    fn rescaled_rects_stay_inside_the_new_base(
        r in rect(),
        (bw, bh) in (1u32..=600, 1u32..=600),
        skip in 0u32..40,
    ) {
        let out = rescale_page_rect(r, bw, bh, skip);
        let (nw, nh) = level_dimensions(bw, bh, skip);
        if r.fits_within(bw, bh) {
            prop_assert!(out.fits_within(nw, nh), "{:?} -> {:?} in {}x{}", r, out, nw, nh);
            // The scaled rect covers the scaled original: origin down, end up.
            let x0 = i64::from(r.x) * i64::from(nw);
            prop_assert!(i64::from(out.x) * i64::from(bw) <= x0);
            let x1 = (i64::from(r.x) + i64::from(r.width)) * i64::from(nw);
            prop_assert!((i64::from(out.x) + i64::from(out.width)) * i64::from(bw) >= x1);
        }
        if skip == 0 {
            prop_assert_eq!(out, r);
        }
    }
}
