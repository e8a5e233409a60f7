//! The invariants the `texm` fuzz target asserts, shared with the corpus-replay
//! tests: call [`check`] on any input; it panics on a violation (that is what the fuzzer
//! detects) and returns whether the input was accepted.

#![allow(
    clippy::missing_panics_doc,
    reason = "panicking on a broken invariant is the purpose"
)]

use crate::*;

/// Same checks as `fuzz/fuzz_targets/texm.rs`; returns whether the reader accepted.
pub fn check(data: &[u8]) -> bool {
    match Texm::parse(data) {
        Ok(t) => {
            check_parsed(data, &t);
            true
        }
        Err(e) => {
            assert!(Check::READ_CHECKS.contains(&e.check()), "{e}");
            assert!(
                e.to_string().starts_with(&format!("[{}]", e.check())),
                "{e}"
            );
            false
        }
    }
}
fn check_parsed(data: &[u8], t: &Texm<'_>) {
    assert_eq!(t.to_bytes(), data, "lossless re-serialisation");
    let mut offset = t.chain_offset();
    let mut decoded = Vec::new();
    for l in t.levels() {
        assert_eq!(l.offset(), offset);
        assert_eq!(data.get(offset..offset + l.bytes().len()), Some(l.bytes()));
        assert_eq!(
            (l.width(), l.height()),
            level_dimensions(t.width(), t.height(), l.level())
        );
        offset += l.bytes().len();
        let img = t.decode_level(l.level()).expect("every level decodes");
        assert_eq!((img.width(), img.height()), (l.width(), l.height()));
        assert_eq!(
            img.pixels().len(),
            l.bytes().len() / t.format().bytes_per_pixel() as usize * 4
        );
        decoded.push(img);
    }
    assert_eq!(decoded.len() as u64, u64::from(t.mip_count()));
    let rects = t.page_rects();
    assert_eq!(
        offset + t.page().map_or(0, |p| p.as_bytes().len()),
        data.len()
    );
    for skip in 0..t.mip_count().min(40) {
        let s = t.skip_mips(skip).expect("skip leaves a level");
        assert_eq!(
            (s.width(), s.height()),
            level_dimensions(t.width(), t.height(), skip)
        );
        assert_eq!(s.page_rects().len(), rects.len());
        assert_eq!(s.data().len() + s.level(0).expect("base").offset(), offset);
    }
    assert!(t.skip_mips(t.mip_count()).is_err());

    let again = TexmWriter::like(t)
        .write(&decoded)
        .expect("decoded levels rewrite");
    let t2 = Texm::parse(&again).expect("rewrite parses");
    assert_eq!(t2.header(), t.header());
    assert_eq!(t2.page_rects(), rects);
    let same_bytes = !matches!(t.format(), PixelFormat::Indexed8 | PixelFormat::Rgb888x);
    if same_bytes {
        assert_eq!(again, data, "injective formats rewrite byte for byte");
    }
    for (i, img) in decoded.iter().enumerate() {
        assert_eq!(&t2.decode_level(i as u32).expect("decodes"), img);
    }
}
