//! Property tests: random valid WEAR texts and MAT0 payloads re-encode byte for byte;
//! authored tables and materials parse back to what was authored; arbitrary bytes never
//! panic and whatever parses is lossless.

use crate::{AnimBlock, AnimKey, Mat0, Mat0Metadata, Phase, RowSpec, Wear, prefix_len};
use proptest::prelude::*;

fn token() -> impl Strategy<Value = Vec<u8>> {
    // Any byte but space, tab, CR, LF, NUL.
    proptest::collection::vec(
        any::<u8>().prop_filter("token byte", |b| {
            !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0)
        }),
        1..12,
    )
}

fn sp() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(prop_oneof![Just(b' '), Just(b'\t')], 0..3)
}

fn sp1() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(prop_oneof![Just(b' '), Just(b'\t')], 1..3)
}

fn eol() -> impl Strategy<Value = &'static [u8]> {
    prop_oneof![Just(&b"\n"[..]), Just(&b"\r\n"[..])]
}

/// A row line with random spacing; returns (line, legacy id, name).
fn row_line() -> impl Strategy<Value = (Vec<u8>, Vec<u8>, Vec<u8>)> {
    (sp(), token(), sp1(), token(), sp(), eol()).prop_map(|(a, id, b, name, c, e)| {
        let line = [a, id.clone(), b, name.clone(), c, e.to_vec()].concat();
        (line, id, name)
    })
}

fn count_line(n: usize) -> impl Strategy<Value = Vec<u8>> {
    (sp(), sp(), eol())
        .prop_map(move |(a, b, e)| [a, n.to_string().into_bytes(), b, e.to_vec()].concat())
}

fn blank_lines() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        (sp(), eol()).prop_map(|(s, e)| [s, e.to_vec()].concat()),
        0..3,
    )
    .prop_map(|v| v.concat())
}

type Rows = Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>;

/// A valid WEAR text and its expected (material, lightmap) rows.
fn wear_text() -> impl Strategy<Value = (Vec<u8>, Rows, Option<Rows>)> {
    (
        proptest::collection::vec(row_line(), 1..6),
        proptest::option::of(proptest::collection::vec(row_line(), 0..4)),
        blank_lines(),
    )
        .prop_flat_map(|(mats, lms, tail)| {
            let lm_count = lms.as_ref().map_or(0, Vec::len);
            (
                Just(mats.clone()),
                Just(lms),
                Just(tail),
                count_line(mats.len()),
                count_line(lm_count),
                eol(),
                sp(),
                eol(),
            )
        })
        .prop_map(
            |(mats, lms, tail, c1, c2, sep_eol, marker_sp, marker_eol)| {
                let mut text = c1;
                for (line, _, _) in &mats {
                    text.extend_from_slice(line);
                }
                if let Some(lms) = &lms {
                    text.extend_from_slice(sep_eol);
                    text.extend_from_slice(&marker_sp);
                    text.extend_from_slice(b"LIGHTMAPS");
                    text.extend_from_slice(marker_eol);
                    text.extend_from_slice(&c2);
                    for (line, _, _) in lms {
                        text.extend_from_slice(line);
                    }
                }
                text.extend_from_slice(&tail);
                (text, mats, lms)
            },
        )
}

fn ids_names(rows: &[crate::WearRow]) -> Vec<(Vec<u8>, Vec<u8>)> {
    rows.iter()
        .map(|r| (r.legacy_id().to_vec(), r.name().to_vec()))
        .collect()
}

fn expected(rows: &Rows) -> Vec<(Vec<u8>, Vec<u8>)> {
    rows.iter()
        .map(|(_, id, name)| (id.clone(), name.clone()))
        .collect()
}

fn phase() -> impl Strategy<Value = Phase> {
    proptest::collection::vec(any::<u8>(), 34).prop_map(|v| {
        let mut raw = [0u8; 34];
        raw.copy_from_slice(&v);
        Phase::from_raw(raw)
    })
}

fn block() -> impl Strategy<Value = AnimBlock> {
    (
        any::<u32>(),
        proptest::collection::vec(any::<(u16, u16, u16)>(), 0..6),
    )
        .prop_map(|(h, keys)| {
            let keys = keys
                .into_iter()
                .map(|(a, b, c)| AnimKey::new(a, b, c))
                .collect();
            AnimBlock::new(h, keys).expect("few keys")
        })
}

/// A random material valid for `version` (absent metadata fields at their defaults).
fn mat0() -> impl Strategy<Value = (u32, Mat0)> {
    (
        0u32..9,
        any::<(u8, u8, u32, u32)>(),
        proptest::collection::vec(phase(), 0..5),
        proptest::collection::vec(block(), 0..4),
    )
        .prop_map(|(version, (a, b, c, d), phases, blocks)| {
            let dft = Mat0Metadata::DEFAULT;
            let md = Mat0Metadata {
                a: if version >= 2 { a } else { dft.a },
                b: if version >= 2 { b } else { dft.b },
                c_raw: if version >= 3 { c } else { dft.c_raw },
                d_raw: if version >= 4 { d } else { dft.d_raw },
            };
            (
                version,
                Mat0::new(version, md, phases, blocks).expect("within limits"),
            )
        })
}

proptest! {
    #[test]
    fn valid_wear_text_round_trips((text, mats, lms) in wear_text()) {
        let w = Wear::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}: {:?}", String::from_utf8_lossy(&text))))?;
        prop_assert_eq!(w.to_bytes(), text.clone());
        prop_assert_eq!(ids_names(w.materials()), expected(&mats));
        prop_assert_eq!(w.has_lightmap_block(), lms.is_some());
        prop_assert_eq!(ids_names(w.lightmaps()), lms.as_ref().map(expected).unwrap_or_default());
        // Re-authoring the rows gives a canonical table with the same rows.
        let specs: Vec<RowSpec<'_>> = w.materials().iter().map(|r| RowSpec::new(r.legacy_id(), r.name())).collect();
        let lm_specs: Vec<RowSpec<'_>> = w.lightmaps().iter().map(|r| RowSpec::new(r.legacy_id(), r.name())).collect();
        let authored = Wear::author(&specs, w.has_lightmap_block().then_some(&lm_specs[..])).expect("authorable");
        let back = Wear::parse(&authored.to_bytes()).expect("canonical parses");
        prop_assert_eq!(ids_names(back.materials()), expected(&mats));
        prop_assert_eq!(ids_names(back.lightmaps()), ids_names(w.lightmaps()));
        prop_assert_eq!(back.to_bytes(), authored.to_bytes());
    }

    #[test]
    fn valid_mat0_encode_decode_encode((version, m) in mat0()) {
        let bytes = m.to_bytes(version).expect("writes its own version");
        prop_assert_eq!(bytes.len(), m.encoded_len(version));
        prop_assert_eq!(bytes.len() - 4 - prefix_len(version), m.phases().len() * 34 + m.blocks().iter().map(AnimBlock::encoded_len).sum::<usize>());
        let back = Mat0::parse(&bytes, version).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&back, &m);
        prop_assert_eq!(back.to_bytes(version).expect("writes"), bytes);
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_parses_are_lossless(data in proptest::collection::vec(any::<u8>(), 0..200), version in 0u32..8) {
        if let Ok(w) = Wear::parse(&data) {
            prop_assert_eq!(w.to_bytes(), data.clone());
        }
        if let Ok(m) = Mat0::parse(&data, version) {
            prop_assert_eq!(m.to_bytes(version).expect("writes"), data);
        }
    }

    #[test]
    fn arbitrary_wear_like_text_never_panics(lines in proptest::collection::vec(prop_oneof![
        Just(b"LIGHTMAPS".to_vec()), Just(Vec::new()), Just(b"1".to_vec()), Just(b"2".to_vec()),
        Just(b"0 A".to_vec()), Just(b"0".to_vec()), Just(b" \t".to_vec()), Just(b"0 A B".to_vec()),
    ], 0..10), crlf in any::<bool>()) {
        let text = lines.join(if crlf { &b"\r\n"[..] } else { &b"\n"[..] });
        if let Ok(w) = Wear::parse(&text) {
            prop_assert_eq!(w.to_bytes(), text);
            prop_assert!(!w.materials().is_empty());
        }
    }
}
