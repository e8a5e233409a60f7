//! Writers: `TexmWriter` output, its input checks, `like` rewriting, `write_raw`, the
//! box-filter mip chain and corpus statistics.

use super::support::{header, palette_bytes, payload, ramp};
use crate::{
    Check, HeaderField, PageRect, Palette, PixelFormat, RawParts, RgbaImage, Texm, TexmError,
    TexmStats, TexmWriter, write_raw,
};

fn gradient(w: u32, h: u32) -> RgbaImage {
    let px = (0..w * h)
        .flat_map(|i| {
            [
                (i * 37) as u8,
                (i * 11) as u8,
                (255 - i % 256) as u8,
                (i * 5) as u8,
            ]
        })
        .collect();
    RgbaImage::new(w, h, px).unwrap()
}

#[test]
fn writer_output_parses_with_the_given_header_fields_and_page() {
    let rect = PageRect {
        x: 1,
        width: 2,
        y: 0,
        height: 3,
    };
    for format in PixelFormat::ALL {
        let bytes = TexmWriter::new(format)
            .with_flags(1, 2, 3)
            .with_page(vec![rect])
            .write(&gradient(6, 3).mip_chain(3))
            .unwrap();
        let t = Texm::parse(&bytes).unwrap();
        let h = t.header();
        assert_eq!(
            (h.width, h.height, h.mip_count, h.format),
            (6, 3, 3, format.raw())
        );
        assert_eq!((h.flags4, h.flags5, h.unknown6), (1, 2, 3));
        assert_eq!(t.page_rects(), [rect]);
        assert_eq!(t.to_bytes(), bytes);
        let levels: Vec<_> = t.levels().map(|l| (l.width(), l.height())).collect();
        assert_eq!(levels, [(6, 3), (3, 1), (1, 1)]);
    }
}

#[test]
fn new_content_has_zero_opaque_fields_and_zero_888_pads() {
    let bytes = TexmWriter::new(PixelFormat::Rgb888x)
        .write(&[RgbaImage::filled(2, 1, [1, 2, 3, 4]).unwrap()])
        .unwrap();
    assert_eq!(&bytes[0x10..0x1C], &[0; 12]);
    assert_eq!(&bytes[32..], &[1, 2, 3, 0, 1, 2, 3, 0]);
}

#[test]
fn indexed_writer_builds_an_exact_palette_or_uses_the_given_one() {
    let img = gradient(8, 8);
    let bytes = TexmWriter::new(PixelFormat::Indexed8)
        .write(std::slice::from_ref(&img))
        .unwrap();
    let t = Texm::parse(&bytes).unwrap();
    assert_eq!(t.decode_level(0).unwrap(), img, "64 colours: exact");

    let fixed = Palette::from_bytes(&palette_bytes()).unwrap();
    let w = TexmWriter::new(PixelFormat::Indexed8).with_palette(fixed.clone());
    assert_eq!(w.palette_for(&[]), Some(fixed.clone()));
    let bytes = w.write(std::slice::from_ref(&img)).unwrap();
    let t = Texm::parse(&bytes).unwrap();
    assert_eq!(t.palette(), Some(fixed.clone()));
    for (px, &i) in img
        .pixels()
        .chunks_exact(4)
        .zip(t.level(0).unwrap().bytes())
    {
        assert_eq!(i, fixed.nearest([px[0], px[1], px[2], px[3]]));
    }
    assert_eq!(
        TexmWriter::new(PixelFormat::Rgb565).palette_for(&[img]),
        None
    );
}

#[test]
fn writer_rejects_inconsistent_levels() {
    let w = TexmWriter::new(PixelFormat::Argb8888);
    assert_eq!(w.write(&[]), Err(TexmError::LevelCount { found: 0 }));
    let e = w
        .write(&[RgbaImage::new(0, 4, vec![]).unwrap()])
        .unwrap_err();
    assert_eq!(
        e,
        TexmError::ZeroField {
            field: HeaderField::Width
        }
    );
    let e = w.write(&[gradient(5, 3), gradient(3, 1)]).unwrap_err();
    assert_eq!(
        e,
        TexmError::LevelDimensions {
            level: 1,
            expected: (2, 1),
            found: (3, 1),
        }
    );
    assert_eq!(e.check(), Check::LevelDimensions);
    let e = TexmWriter::new(PixelFormat::Rgb565)
        .with_palette(Palette::default())
        .write(&[gradient(1, 1)])
        .unwrap_err();
    assert_eq!(
        e,
        TexmError::PaletteMismatch {
            format: 565,
            present: true
        }
    );
    assert_eq!(
        RgbaImage::new(2, 2, vec![0; 15]),
        Err(TexmError::ImageSize {
            width: 2,
            height: 2,
            expected: 16,
            found: 15
        })
    );
    assert_eq!(
        RgbaImage::filled(u32::MAX, u32::MAX, [0; 4])
            .unwrap_err()
            .check(),
        Check::ImageSize
    );
}

#[test]
fn like_rewrites_a_parsed_texture_from_its_decoded_levels() {
    let raw = ramp(3, 2 * (15 + 2 + 1));
    let page = crate::encode_page(&[PageRect::default()]).unwrap();
    let bytes = payload(&header(5, 3, 3, 4444), &[&raw, &page]);
    let t = Texm::parse(&bytes).unwrap();
    let levels: Vec<_> = (0..3).map(|i| t.decode_level(i).unwrap()).collect();
    assert_eq!(TexmWriter::like(&t).write(&levels).unwrap(), bytes);

    // 888: everything but the pad bytes.
    let raw = ramp(200, 4 * (3 + 1));
    let bytes = payload(&header(3, 1, 2, 888), &[&raw]);
    let t = Texm::parse(&bytes).unwrap();
    let levels: Vec<_> = t
        .levels()
        .map(|l| t.decode_level(l.level()).unwrap())
        .collect();
    let out = TexmWriter::like(&t).write(&levels).unwrap();
    let mut expected = bytes.clone();
    for pad in [35, 39, 43, 47] {
        expected[pad] = 0;
    }
    assert_eq!(out, expected);
}

#[test]
fn write_raw_assembles_and_checks_every_part() {
    let pal = palette_bytes();
    let l0 = ramp(0, 6);
    let l1 = ramp(9, 1);
    let levels: [&[u8]; 2] = [&l0, &l1];
    let rects = [PageRect::default(); 2];
    let parts = RawParts {
        header: header(3, 2, 2, 0),
        palette: Some(&pal),
        levels: &levels,
        page: Some(&rects),
    };
    let bytes = write_raw(&parts).unwrap();
    let t = Texm::parse(&bytes).unwrap();
    assert_eq!(t.level(1).unwrap().bytes(), &l1[..]);
    assert_eq!(t.page_rects(), rects);
    assert_eq!(t.to_bytes(), bytes);

    let check = |parts: RawParts<'_>| write_raw(&parts).unwrap_err().check();
    let mut bad = header(3, 2, 2, 0);
    bad.magic = 0;
    assert_eq!(
        check(RawParts {
            header: bad,
            ..parts
        }),
        Check::Magic
    );
    assert_eq!(
        check(RawParts {
            header: header(3, 0, 2, 0),
            ..parts
        }),
        Check::Height
    );
    assert_eq!(
        check(RawParts {
            header: header(3, 2, 2, 1),
            ..parts
        }),
        Check::Format
    );
    assert_eq!(
        check(RawParts {
            palette: None,
            ..parts
        }),
        Check::Palette
    );
    assert_eq!(
        check(RawParts {
            header: header(3, 2, 2, 8),
            ..parts
        }),
        Check::Format
    );
    assert_eq!(
        check(RawParts {
            header: header(3, 2, 2, 88),
            ..parts
        }),
        Check::Palette
    );
    assert_eq!(
        check(RawParts {
            palette: Some(&pal[..5]),
            ..parts
        }),
        Check::PaletteLength
    );
    assert_eq!(
        check(RawParts {
            levels: &levels[..1],
            ..parts
        }),
        Check::LevelCount
    );
    let short: [&[u8]; 2] = [&l0[..5], &l1];
    assert_eq!(
        write_raw(&RawParts {
            levels: &short,
            ..parts
        }),
        Err(TexmError::PixelData {
            level: 0,
            format: 0,
            expected: 6,
            found: 5
        })
    );
}

#[test]
fn downsample_averages_existing_pixels_and_drops_odd_edges() {
    let px: Vec<u8> = (0..15u8).flat_map(|i| [i * 10, 0, 0, 255]).collect();
    let img = RgbaImage::new(5, 3, px).unwrap();
    let half = img.downsample();
    assert_eq!((half.width(), half.height()), (2, 1));
    // (0 + 10 + 50 + 60) / 4 = 30; (20 + 30 + 70 + 80) / 4 = 50.
    assert_eq!(half.pixels(), [30, 0, 0, 255, 50, 0, 0, 255]);
    let one = half.downsample();
    assert_eq!(one.pixels(), [40, 0, 0, 255]);
    assert_eq!(one.downsample(), one);
    // A column: only vertical neighbours exist. (1 + 2) / 2 = 1.5 -> 2.
    let col = RgbaImage::new(1, 2, vec![1, 1, 1, 1, 2, 2, 2, 2]).unwrap();
    assert_eq!(col.downsample().pixels(), [2, 2, 2, 2]);
    let chain = img.mip_chain(4);
    let sizes: Vec<_> = chain.iter().map(|l| (l.width(), l.height())).collect();
    assert_eq!(sizes, [(5, 3), (2, 1), (1, 1), (1, 1)]);
    assert_eq!(gradient(2, 2).mip_chain(0).len(), 1);
    assert_eq!(gradient(2, 2).pixel(2, 0), None);
    assert_eq!(gradient(2, 2).into_pixels().len(), 16);
}

#[test]
fn stats_count_formats_pages_and_size_range() {
    let mut stats = TexmStats::default();
    let small = TexmWriter::new(PixelFormat::Rgb565)
        .with_page(vec![
            PageRect {
                x: 0,
                width: 8,
                y: 0,
                height: 8,
            },
            PageRect {
                x: 4,
                width: 8,
                y: 0,
                height: 1,
            },
        ])
        .write(&gradient(8, 8).mip_chain(4))
        .unwrap();
    let big = TexmWriter::new(PixelFormat::Argb8888)
        .write(&[gradient(32, 16)])
        .unwrap();
    for b in [&small, &big, &small] {
        stats.add(&Texm::parse(b).unwrap());
    }
    assert_eq!(stats.textures, 3);
    assert_eq!(stats.by_format.get(&PixelFormat::Rgb565), Some(&2));
    assert_eq!(stats.by_format.get(&PixelFormat::Argb8888), Some(&1));
    assert_eq!(
        (stats.with_page, stats.page_rects, stats.page_rects_outside),
        (2, 4, 2)
    );
    assert_eq!(
        (stats.min_size, stats.max_size),
        (Some((8, 8)), Some((32, 16)))
    );
    assert_eq!(stats.levels, 9);
}
