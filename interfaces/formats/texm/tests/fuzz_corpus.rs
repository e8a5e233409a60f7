//! Runs the checks of the `texm` fuzz target over seed payloads built in code by the
//! writer (every format, odd sizes, `Page` chunks, long 1×1 tails), their prefixes and
//! single-byte corruptions, and replays every file of `fuzz/corpus/texm/` (minimised
//! crash reproducers, if any) so each saved input stays a regression test. Set
//! `TEXM_FUZZ_SEED_DIR` to dump the seeds as files for a fuzz run.

use iron3d_texm::fuzz_check;
use iron3d_texm::{PageRect, Palette, PixelFormat, RgbaImage, TexmWriter};
use std::path::Path;

fn image(w: u32, h: u32, salt: u32) -> RgbaImage {
    let px = (0..w * h)
        .flat_map(|i| {
            let v = i.wrapping_mul(2_654_435_761).wrapping_add(salt);
            v.to_le_bytes()
        })
        .collect();
    RgbaImage::new(w, h, px).expect("sized")
}

/// Seed payloads: every format at 1×1, odd and non-square sizes, with and without a
/// `Page` chunk, opaque header fields set, a fixed palette with duplicates, and a long
/// chain of 1×1 levels.
fn seeds() -> Vec<(String, Vec<u8>)> {
    let rects = vec![
        PageRect {
            x: 0,
            width: 5,
            y: 0,
            height: 3,
        },
        PageRect {
            x: -2,
            width: 7,
            y: 1,
            height: -1,
        },
    ];
    let mut out = Vec::new();
    for format in PixelFormat::ALL {
        for (w, h, n) in [(1, 1, 1), (5, 3, 3), (8, 2, 5), (3, 7, 2)] {
            let levels = image(w, h, format.raw()).mip_chain(n);
            let plain = TexmWriter::new(format).write(&levels).expect("seed");
            let paged = TexmWriter::new(format)
                .with_flags(0x11, 0x22, 0x33)
                .with_page(rects.clone())
                .write(&levels)
                .expect("seed");
            out.push((format!("{format} {w}x{h}x{n}"), plain));
            out.push((format!("{format} {w}x{h}x{n} page"), paged));
        }
        let tail: Vec<_> = (0..40).map(|i| image(1, 1, i)).collect();
        let long = TexmWriter::new(format)
            .with_page(vec![])
            .write(&tail)
            .expect("seed");
        out.push((format!("{format} 1x1x40 empty page"), long));
    }
    let dup: Vec<[u8; 4]> = (0..256).map(|i| [(i % 3) as u8 * 100, 0, 0, 255]).collect();
    let palette = Palette::from_entries(dup.try_into().expect("256 entries"));
    let fixed = TexmWriter::new(PixelFormat::Indexed8)
        .with_palette(palette)
        .write(&image(4, 4, 9).mip_chain(3))
        .expect("seed");
    out.push(("indexed with duplicate palette entries".into(), fixed));
    out
}

#[test]
fn seed_payloads_pass_the_fuzz_checks() {
    for (name, data) in seeds() {
        assert!(fuzz_check::check(&data), "{name} is accepted");
        // Every prefix and some single-byte corruptions fail cleanly or pass the checks.
        for len in 0..data.len() {
            fuzz_check::check(&data[..len]);
        }
        for pos in (0..data.len()).step_by(5) {
            let mut bad = data.clone();
            bad[pos] ^= 0x41;
            fuzz_check::check(&bad);
        }
    }
}

#[test]
fn saved_fuzz_corpus_replays_cleanly() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../fuzz/corpus/texm");
    let Ok(read) = std::fs::read_dir(&dir) else {
        eprintln!("no {} yet: nothing to replay", dir.display());
        return;
    };
    let mut files: Vec<_> = read.map(|e| e.expect("dir entry").path()).collect();
    files.sort();
    for path in files {
        let data = std::fs::read(&path).expect("corpus file");
        fuzz_check::check(&data);
    }
}

/// With `TEXM_FUZZ_SEED_DIR=<dir>` set, writes the seeds there (one file each) to start a
/// fuzz run from valid payloads: `cargo fuzz run texm <out-dir> <dir>`. Nothing is
/// written otherwise; seed files are never committed.
#[test]
fn seeds_can_be_dumped_for_a_fuzz_run() {
    let Some(dir) = std::env::var_os("TEXM_FUZZ_SEED_DIR") else {
        return;
    };
    std::fs::create_dir_all(&dir).expect("seed dir");
    for (i, (_, data)) in seeds().into_iter().enumerate() {
        std::fs::write(Path::new(&dir).join(format!("seed-{i:03}")), data).expect("seed file");
    }
}
