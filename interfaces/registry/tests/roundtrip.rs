//! Property tests: any input that parses is reproduced byte for byte by `to_bytes`, and
//! generated documents survive encode → decode → encode unchanged.

use iron3d_registry::{
    Cid, Dialect, Entry, LineKind, Registry, RegistryBuilder, SlotKey, SlotName,
};
use proptest::prelude::*;

const DIALECTS: [Dialect; 2] = [Dialect::PluginsIni, Dialect::CompIni];

/// A piece of a line: mostly plausible tokens, with separators, comments and hostile bytes.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        8 => prop::sample::select(vec![
            "0", "3", "7", "07", "8", "9", "-1", "terrain", "ai", "net", "input", "physics",
            "Terrain", "terrain.dll", "libx.so", "LoadAgent", "a/b", "c\\d", "x.dll", "Create",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        1 => ws(),
        1 => Just(b"//".to_vec()),
        1 => Just(b"/".to_vec()),
        1 => "[!-~]{1,6}".prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>().prop_filter("no LF", |&b| b != b'\n'), 1..4),
    ]
}

fn ws() -> impl Strategy<Value = Vec<u8>> {
    prop::sample::select(vec![" ", "\t", "  ", " \t "]).prop_map(|s| s.as_bytes().to_vec())
}

/// One line's content: mostly entry-shaped, sometimes blank, a comment or noise.
fn line() -> impl Strategy<Value = Vec<u8>> {
    let key = prop::sample::select(vec![
        "0", "1", "2", "3", "4", "5", "6", "7", "007", "9", "-1", "terrain", "ai", "control",
        "effects", "audio", "render", "net", "input", "physics", "Terrain",
    ]);
    let tail = prop_oneof![
        Just(Vec::new()),
        (ws(), piece()).prop_map(|(w, p)| [w, b"//".to_vec(), p].concat()),
        (ws(), piece()).prop_map(|(w, p)| [w, p].concat()),
        ws(),
    ];
    let word = || {
        prop_oneof![
            9 => prop::sample::select(vec![
                "terrain.dll", "libx.so", "a/b.so", "c\\d.DLL", "LoadAgent", "Create", "f",
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
            1 => piece(),
        ]
    };
    let entry = (
        prop::option::of(ws()),
        key,
        ws(),
        word(),
        ws(),
        word(),
        tail,
    )
        .prop_map(|(lead, k, w1, lib, w2, fac, tail)| {
            [
                lead.unwrap_or_default(),
                k.as_bytes().to_vec(),
                w1,
                lib,
                w2,
                fac,
                tail,
            ]
            .concat()
        });
    prop_oneof![
        6 => entry,
        1 => prop::option::of(ws()).prop_map(Option::unwrap_or_default),
        1 => (prop::option::of(ws()), piece()).prop_map(|(w, p)| [w.unwrap_or_default(), b"//".to_vec(), p].concat()),
        1 => prop::collection::vec(piece(), 0..8).prop_map(|ps| ps.concat()),
    ]
}

/// A document of lines, each ended by LF, CRLF or CR CRLF, the last one maybe by nothing.
fn document() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(
            (
                line(),
                prop_oneof![5 => Just(&b"\n"[..]), 5 => Just(&b"\r\n"[..]), 1 => Just(&b"\r\r\n"[..])],
            ),
            0..8,
        ),
        any::<bool>(),
    )
        .prop_map(|(lines, final_newline)| {
            let mut out = Vec::new();
            let count = lines.len();
            for (i, (content, ending)) in lines.into_iter().enumerate() {
                out.extend(content);
                if i + 1 < count || final_newline {
                    out.extend_from_slice(ending);
                }
            }
            out
        })
}

fn token() -> impl Strategy<Value = String> {
    "[!-~]{1,16}".prop_filter("no comment marker", |s| !s.contains("//"))
}

fn comment() -> impl Strategy<Value = Option<Vec<u8>>> {
    prop::option::of(
        prop::collection::vec(any::<u8>().prop_filter("no LF", |&b| b != b'\n'), 0..12).prop_map(
            |mut v| {
                // Canonical comments have no surrounding blanks and no final CR.
                while v
                    .last()
                    .is_some_and(|&b| b == b' ' || b == b'\t' || b == b'\r')
                {
                    v.pop();
                }
                while v.first().is_some_and(|&b| b == b' ' || b == b'\t') {
                    v.remove(0);
                }
                v
            },
        ),
    )
}

#[derive(Debug, Clone)]
enum Op {
    Entry(SlotKey, String, String, Option<Vec<u8>>),
    Comment(Vec<u8>),
    Blank,
}

fn key(dialect: Dialect) -> BoxedStrategy<SlotKey> {
    let cid = prop::sample::select(Cid::ALL.to_vec()).prop_map(SlotKey::Cid);
    match dialect {
        Dialect::CompIni => cid.boxed(),
        Dialect::PluginsIni => prop_oneof![
            cid,
            prop::sample::select(SlotName::ALL.to_vec()).prop_map(SlotKey::Slot),
        ]
        .boxed(),
    }
}

fn ops(dialect: Dialect) -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            4 => (key(dialect), token(), token(), comment())
                .prop_map(|(k, l, f, c)| Op::Entry(k, l, f, c)),
            1 => comment().prop_map(|c| Op::Comment(c.unwrap_or_default())),
            1 => Just(Op::Blank),
        ],
        0..20,
    )
}

/// Builds the document, skipping entries whose key was already used.
fn build(dialect: Dialect, ops: &[Op]) -> Registry {
    let mut b = RegistryBuilder::new("gen.ini", dialect);
    let mut used = Vec::new();
    for op in ops {
        match op {
            Op::Entry(k, l, f, c) => {
                if !used.contains(k) {
                    used.push(*k);
                    b.entry(*k, l, f, c.as_deref())
                        .expect("valid generated entry");
                }
            }
            Op::Comment(text) => {
                b.comment(text).expect("valid generated comment");
            }
            Op::Blank => {
                b.blank();
            }
        }
    }
    b.build()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn whatever_parses_roundtrips_byte_identically(input in document()) {
        for dialect in DIALECTS {
            if let Ok(reg) = Registry::parse(&input, "prop.ini", dialect) {
                prop_assert_eq!(reg.to_bytes(), input.clone());
                let again = Registry::parse(&reg.to_bytes(), "prop.ini", dialect).expect("reparses");
                prop_assert_eq!(again, reg);
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(input in prop::collection::vec(any::<u8>(), 0..256)) {
        for dialect in DIALECTS {
            if let Ok(reg) = Registry::parse(&input, "bytes", dialect) {
                prop_assert_eq!(reg.to_bytes(), input.clone());
            }
        }
    }

    #[test]
    fn generated_documents_encode_decode_encode(
        (dialect, ops) in prop::sample::select(DIALECTS.to_vec()).prop_flat_map(|d| (Just(d), ops(d)))
    ) {
        let built = build(dialect, &ops);
        let bytes = built.to_bytes();
        let decoded = Registry::parse(&bytes, "gen.ini", dialect).expect("generated document parses");
        prop_assert!(decoded.diagnostics().is_empty());
        prop_assert_eq!(&decoded, &built);
        prop_assert_eq!(decoded.to_bytes(), bytes.clone());
        // Re-encoding only the entries through the writer gives the same entries.
        let entries: Vec<Entry> = decoded.entries().cloned().collect();
        let rewritten = Registry::from_entries("gen.ini", dialect, entries.clone()).expect("writable");
        let reparsed = Registry::parse(&rewritten.to_bytes(), "gen.ini", dialect).expect("parses");
        let strip = |es: Vec<Entry>| -> Vec<_> {
            es.into_iter().map(|e| (e.key, e.library, e.factory, e.comment)).collect()
        };
        prop_assert_eq!(strip(reparsed.entries().cloned().collect()), strip(entries));
        let comments = decoded.lines().iter().filter(|l| matches!(l.kind(), LineKind::Comment(_))).count();
        let expected = ops.iter().filter(|o| matches!(o, Op::Comment(_))).count();
        prop_assert_eq!(comments, expected);
    }
}
