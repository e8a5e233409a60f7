//! Palettes: bytes, nearest-entry ties, the deterministic builder (exact and median cut)
//! and the 286 suffix slots.

use crate::{Check, Palette, PaletteSlot, SuffixProblem, TexmError};

#[test]
fn palette_bytes_round_trip_and_require_1024_bytes() {
    let bytes: Vec<u8> = (0..1024).map(|i| (i * 7 % 251) as u8).collect();
    let p = Palette::from_bytes(&bytes).unwrap();
    assert_eq!(p.to_bytes().as_slice(), bytes);
    assert_eq!(p.entry(1), [28, 35, 42, 49]);
    for len in [0, 1023, 1025] {
        assert_eq!(
            Palette::from_bytes(&vec![0; len]),
            Err(TexmError::PaletteLength { found: len })
        );
    }
    assert_eq!(Palette::default().entries(), &[[0u8; 4]; 256]);
}

#[test]
fn nearest_entry_ties_go_to_the_lowest_index() {
    let mut entries = [[200u8; 4]; 256];
    entries[3] = [10, 10, 10, 10];
    entries[7] = [10, 10, 10, 10];
    entries[9] = [12, 10, 10, 10];
    entries[4] = [8, 10, 10, 10];
    let p = Palette::from_entries(entries);
    assert_eq!(p.nearest([10, 10, 10, 10]), 3);
    // 11 is 1 away from entries 3, 7 and 9 (squared 1 each): lowest wins.
    assert_eq!(p.nearest([11, 10, 10, 10]), 3);
    assert_eq!(p.nearest([9, 10, 10, 10]), 3);
    assert_eq!(p.nearest([13, 10, 10, 10]), 9);
    assert_eq!(p.nearest([200, 200, 200, 200]), 0);
}

#[test]
fn up_to_256_colours_build_an_exact_sorted_palette() {
    let img = [9, 9, 9, 9, 1, 2, 3, 4, 9, 9, 9, 9, 0, 0, 0, 1];
    let p = Palette::build([&img[..]]);
    assert_eq!(
        &p.entries()[..4],
        &[[0, 0, 0, 1], [1, 2, 3, 4], [9, 9, 9, 9], [0; 4]]
    );
    let all: Vec<u8> = (0..=255u8).flat_map(|i| [i, 0, 255 - i, 7]).collect();
    let p = Palette::build([&all[..]]);
    for px in all.chunks_exact(4) {
        let c = [px[0], px[1], px[2], px[3]];
        assert_eq!(p.entry(p.nearest(c)), c);
    }
}

#[test]
fn more_than_256_colours_use_a_deterministic_median_cut() {
    let img: Vec<u8> = (0..4096u32)
        .flat_map(|i| {
            [
                (i % 64 * 4) as u8,
                (i / 64 * 4) as u8,
                (i % 7 * 30) as u8,
                255,
            ]
        })
        .collect();
    let a = Palette::build([&img[..]]);
    let b = Palette::build([&img[..2048], &img[2048..]]);
    assert_eq!(a, b, "same colours, same palette");
    let mut distinct: Vec<_> = a.entries().to_vec();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 256, "every box yields its own colour");
    // Error bound: every colour is near its entry (boxes are small on a 64x64x7 grid).
    let worst = img
        .chunks_exact(4)
        .map(|px| {
            let c = [px[0], px[1], px[2], px[3]];
            let e = a.entry(a.nearest(c));
            c.iter()
                .zip(e)
                .map(|(&x, y)| u32::from(x.abs_diff(y)))
                .max()
                .unwrap()
        })
        .max()
        .unwrap();
    assert!(worst <= 64, "worst channel error {worst}");
    assert!(format!("{a:?}").starts_with("Palette("));
}

#[test]
fn palette_slots_number_26_letters_times_11_variants() {
    let cases: [(&[u8], u16); 7] = [
        (b"A", 0),
        (b"A0", 1),
        (b"A9", 10),
        (b"B", 11),
        (b"b3", 15),
        (b"Z", 275),
        (b"Z9", 285),
    ];
    for (suffix, index) in cases {
        let slot = PaletteSlot::parse(suffix).unwrap();
        assert_eq!(slot.index(), index);
        assert_eq!(PaletteSlot::from_index(index), Some(slot));
    }
    let b3 = PaletteSlot::parse(b"b3").unwrap();
    assert_eq!(
        (b3.letter(), b3.variant(), b3.to_string()),
        (b'B', Some(3), "B3".into())
    );
    assert_eq!(PaletteSlot::parse(b"Q").unwrap().to_string(), "Q");
    assert_eq!(PaletteSlot::all().count(), 286);
    assert!(
        PaletteSlot::all()
            .zip(0u16..)
            .all(|(s, i)| s.index() == i && PaletteSlot::parse(s.to_string().as_bytes()) == Ok(s))
    );
    assert_eq!(PaletteSlot::from_index(PaletteSlot::COUNT), None);
}

#[test]
fn invalid_palette_suffixes_are_diagnosed() {
    let cases: [(&[u8], SuffixProblem); 7] = [
        (b"", SuffixProblem::Empty),
        (b"A12", SuffixProblem::TooLong),
        (b"1", SuffixProblem::NotALetter),
        (b"_", SuffixProblem::NotALetter),
        (b"\xC0", SuffixProblem::NotALetter),
        (b"AB", SuffixProblem::NotADigit),
        (b"A/", SuffixProblem::NotADigit),
    ];
    for (suffix, problem) in cases {
        let e = PaletteSlot::parse(suffix).unwrap_err();
        assert_eq!(
            e,
            TexmError::PaletteSuffix {
                suffix: suffix.to_vec(),
                problem
            }
        );
        assert_eq!(e.check(), Check::PaletteSuffix);
        assert!(e.to_string().starts_with("[palette_suffix]"), "{e}");
    }
    let long = PaletteSlot::parse(&[b'A'; 100]).unwrap_err();
    assert!(matches!(long, TexmError::PaletteSuffix { suffix, .. } if suffix.len() == 8));
}
