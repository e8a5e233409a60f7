//! One test per strict read check (FORMATS §9.6), in `Check::READ_CHECKS` order, plus
//! truncated inputs, overflowing sizes and the error message format.

use super::support::{header, page_chunk, palette_bytes, payload, ramp};
use crate::{
    Check, HeaderField, PageRect, PixelFormat, RgbaImage, TEXM_MAGIC, Texm, TexmError, TexmWriter,
};

fn err(bytes: &[u8]) -> TexmError {
    Texm::parse(bytes).expect_err("must be rejected")
}

/// A valid 3×2 565 texture with two levels (12 + 2 chain bytes) and no Page.
fn small_565() -> Vec<u8> {
    payload(&header(3, 2, 2, 565), &[&ramp(1, 14)])
}

#[test]
fn valid_minimal_textures_of_every_format_parse() {
    for format in PixelFormat::ALL {
        let bpp = format.bytes_per_pixel() as usize;
        let pal = palette_bytes();
        let palette: &[u8] = if format.has_palette() { &pal } else { &[] };
        let bytes = payload(&header(1, 1, 1, format.raw()), &[palette, &ramp(7, bpp)]);
        let t = Texm::parse(&bytes).expect("valid");
        assert_eq!(t.format(), format);
        assert_eq!(
            t.chain_offset(),
            if format.has_palette() { 1056 } else { 32 }
        );
        assert_eq!(t.level(0).unwrap().bytes(), &ramp(7, bpp)[..]);
        assert_eq!(t.header().unknown6, 0xDEAD_BEEF);
        assert!(t.page().is_none());
        assert_eq!(t.to_bytes(), bytes);
    }
}

#[test]
fn header_size_check_rejects_every_input_shorter_than_32_bytes() {
    let bytes = small_565();
    for len in 0..32 {
        assert_eq!(
            err(&bytes[..len]),
            TexmError::HeaderTruncated { found: len }
        );
    }
}

#[test]
fn magic_check_rejects_a_wrong_tag() {
    let mut h = header(1, 1, 1, 565);
    h.magic = u32::from_le_bytes(*b"Texn");
    let e = err(&payload(&h, &[&[0, 0]]));
    assert_eq!(e, TexmError::BadMagic { found: *b"Texn" });
    assert_eq!(e.check(), Check::Magic);
    assert_eq!(
        e.to_string(),
        "[magic] offset 0x0: expected \"Texm\", found \"Texn\""
    );
}

#[test]
fn width_height_and_mip_count_checks_reject_zero() {
    for (h, field) in [
        (header(0, 1, 1, 565), HeaderField::Width),
        (header(1, 0, 1, 565), HeaderField::Height),
        (header(1, 1, 0, 565), HeaderField::MipCount),
    ] {
        let e = err(&payload(&h, &[&[0, 0]]));
        assert_eq!(e, TexmError::ZeroField { field });
        assert_eq!(e.check(), field.check());
    }
    assert_eq!(
        err(&payload(&header(1, 0, 1, 565), &[])).to_string(),
        "[height] offset 0x8: expected field `height` > 0, found 0"
    );
}

#[test]
fn format_check_rejects_unknown_codes() {
    for code in [1, 555, 5650, 8880, 32, u32::MAX] {
        let e = err(&payload(&header(1, 1, 1, code), &[&[0; 4]]));
        assert_eq!(e, TexmError::UnknownFormat { found: code });
        assert_eq!(e.check(), Check::Format);
    }
}

#[test]
fn palette_check_requires_1024_bytes_for_format_0() {
    // One pixel but no palette: only 1 byte after the header.
    let e = err(&payload(&header(1, 1, 1, 0), &[&[5]]));
    assert_eq!(e, TexmError::PaletteTruncated { found: 1 });
    let pal = palette_bytes();
    let e = err(&payload(&header(1, 1, 1, 0), &[&pal[..1023]]));
    assert_eq!(e, TexmError::PaletteTruncated { found: 1023 });
    assert_eq!(e.check(), Check::Palette);
}

#[test]
fn palette_check_a_non_indexed_texture_with_a_palette_has_extra_bytes() {
    let pal = palette_bytes();
    let e = err(&payload(&header(1, 1, 1, 565), &[&pal, &[0, 0]]));
    assert_eq!(e.check(), Check::TrailingBytes);
}

#[test]
fn chain_size_check_rejects_overflowing_sizes_before_reading() {
    let e = err(&payload(&header(u32::MAX, u32::MAX, 1, 8888), &[]));
    assert!(
        matches!(e, TexmError::ChainOverflow { level: 0, .. }),
        "{e}"
    );
    assert_eq!(e.check(), Check::ChainSize);
    // 1 B/px: level 0 alone fits u64, levels 0..=1 do not.
    let e = err(&payload(
        &header(u32::MAX, u32::MAX, 2, 0),
        &[&palette_bytes()],
    ));
    assert!(
        matches!(e, TexmError::ChainOverflow { level: 1, .. }),
        "{e}"
    );
}

#[test]
fn chain_data_check_rejects_a_huge_header_in_a_100_byte_file() {
    let bytes = payload(&header(65535, 65535, 1, 8888), &[&[0; 68]]);
    assert_eq!(bytes.len(), 100);
    let e = err(&bytes);
    assert_eq!(
        e,
        TexmError::ChainTruncated {
            level: 0,
            offset: 32,
            expected_end: 32 + 65535 * 65535 * 4,
            found: 100,
        }
    );
    assert_eq!(e.check(), Check::ChainData);
}

#[test]
fn chain_data_check_names_the_first_missing_level() {
    // 4x4 8888, 3 levels: 64 + 16 + 4 bytes; level 2 is cut.
    let bytes = payload(&header(4, 4, 3, 8888), &[&[0; 82]]);
    assert_eq!(
        err(&bytes),
        TexmError::ChainTruncated {
            level: 2,
            offset: 32 + 80,
            expected_end: 32 + 84,
            found: 114,
        }
    );
    // u32::MAX levels of 1x1: answered in O(1), naming the level where the data ends.
    let bytes = payload(&header(1, 1, u32::MAX, 8888), &[&[0; 1000]]);
    assert_eq!(
        err(&bytes),
        TexmError::ChainTruncated {
            level: 250,
            offset: 32 + 1000,
            expected_end: 32 + 4 * u64::from(u32::MAX),
            found: 1032,
        }
    );
}

#[test]
fn trailing_bytes_check_rejects_a_tail_that_is_not_a_page() {
    let mut bytes = small_565();
    bytes.extend_from_slice(b"XYZW!");
    let e = err(&bytes);
    assert_eq!(
        e,
        TexmError::TrailingBytes {
            offset: 46,
            len: 5,
            head: *b"XYZW",
        }
    );
    assert_eq!(e.check(), Check::TrailingBytes);
    let mut one = small_565();
    one.push(0);
    assert!(matches!(err(&one), TexmError::TrailingBytes { len: 1, .. }));
}

#[test]
fn page_header_check_rejects_a_cut_off_page_header() {
    for tail in [&b"P"[..], b"Pag", b"Page", b"Page\x01\x00\x00"] {
        let mut bytes = small_565();
        bytes.extend_from_slice(tail);
        let e = err(&bytes);
        assert_eq!(
            e,
            TexmError::PageTruncated {
                offset: 46,
                found: tail.len(),
            }
        );
        assert_eq!(e.check(), Check::PageHeader);
    }
}

#[test]
fn page_size_check_requires_exactly_8_plus_8n_bytes() {
    let r = PageRect {
        x: 1,
        width: 2,
        y: 0,
        height: 1,
    };
    let cases: [(u32, Vec<u8>); 4] = [
        (2, vec![]),
        (0, r.to_bytes().to_vec()),
        (1, [r.to_bytes().as_slice(), &[0]].concat()),
        (u32::MAX, r.to_bytes().to_vec()),
    ];
    for (count, extra) in cases {
        let mut bytes = small_565();
        bytes.extend_from_slice(&page_chunk(count, &[r]));
        bytes.truncate(46 + 8);
        bytes.extend_from_slice(&extra);
        let e = err(&bytes);
        assert_eq!(
            e,
            TexmError::PageSize {
                offset: 46,
                rect_count: count,
                expected: 8 + 8 * u64::from(count),
                found: 8 + extra.len(),
            }
        );
        assert_eq!(e.check(), Check::PageSize);
    }
}

#[test]
fn a_page_with_zero_or_several_rects_is_valid_and_ends_the_payload() {
    let rects = [
        PageRect {
            x: 0,
            width: 3,
            y: 0,
            height: 2,
        },
        PageRect {
            x: -1,
            width: i16::MAX,
            y: i16::MIN,
            height: 0,
        },
    ];
    for n in 0..=2 {
        let mut bytes = small_565();
        bytes.extend_from_slice(&page_chunk(n as u32, &rects[..n]));
        let t = Texm::parse(&bytes).expect("valid");
        let page = t.page().expect("page");
        assert_eq!(
            (page.offset(), page.len(), page.is_empty()),
            (46, n, n == 0)
        );
        assert_eq!(t.page_rects(), &rects[..n]);
        assert_eq!(page.rect(n), None);
        assert_eq!(t.to_bytes(), bytes);
    }
}

#[test]
fn checks_run_in_read_checks_order() {
    // Zero width and unknown format: the earlier check (width) is reported.
    let e = err(&payload(&header(0, 1, 1, 7), &[]));
    assert_eq!(e.check(), Check::Width);
    let order: Vec<_> = Check::READ_CHECKS.iter().map(|c| c.name()).collect();
    assert_eq!(order.first(), Some(&"header_size"));
    assert_eq!(order.last(), Some(&"page_size"));
}

#[test]
fn every_prefix_of_a_valid_file_fails_cleanly_unless_it_ends_at_the_chain() {
    let base = RgbaImage::filled(5, 3, [9, 8, 7, 6]).unwrap();
    for format in PixelFormat::ALL {
        let rect = PageRect {
            x: 1,
            width: 2,
            y: 1,
            height: 1,
        };
        let bytes = TexmWriter::new(format)
            .with_page(vec![rect, rect])
            .write(&base.clone().mip_chain(3))
            .unwrap();
        let chain_end = bytes.len() - 24;
        for len in 0..bytes.len() {
            match Texm::parse(&bytes[..len]) {
                Ok(t) => assert!(len == chain_end && t.page().is_none(), "{format} {len}"),
                Err(e) => {
                    assert!(Check::READ_CHECKS.contains(&e.check()), "{e}");
                    assert!(
                        e.to_string().starts_with(&format!("[{}]", e.check())),
                        "{e}"
                    );
                }
            }
        }
    }
}

#[test]
fn level_index_and_mip_skip_are_bounded() {
    let bytes = small_565();
    let t = Texm::parse(&bytes).unwrap();
    assert_eq!(
        t.level(2),
        Err(TexmError::LevelIndex {
            level: 2,
            mip_count: 2
        })
    );
    assert_eq!(t.decode_level(9).unwrap_err().check(), Check::LevelIndex);
    assert_eq!(
        t.skip_mips(2).unwrap_err(),
        TexmError::SkipTooLarge {
            skip: 2,
            mip_count: 2
        }
    );
    assert_eq!(t.skip_mips(u32::MAX).unwrap_err().check(), Check::MipSkip);
    let s = t.skip_mips(1).unwrap();
    assert_eq!(s.level(1).unwrap_err().check(), Check::LevelIndex);
    assert_eq!(s.level(u32::MAX).unwrap_err().check(), Check::LevelIndex);
}

#[test]
fn texm_magic_constant_spells_texm() {
    assert_eq!(&TEXM_MAGIC.to_le_bytes(), b"Texm");
    assert_eq!(&crate::PAGE_MAGIC.to_le_bytes(), b"Page");
}
