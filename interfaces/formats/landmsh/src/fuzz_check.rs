//! The invariants the `landmsh` fuzz target asserts, shared with `tests/fuzz_corpus.rs`:
//! call [`check`] on any input; it panics on a violation (that is what the fuzzer
//! detects) and returns whether the input was accepted.

#![allow(
    clippy::missing_panics_doc,
    reason = "panicking on a broken invariant is the purpose"
)]

use crate::*;

/// Runs both readers on `data` and checks: errors are located (`[check] …`); strict
/// acceptance implies quirk-free compatible acceptance; compatible acceptance beyond
/// strict is always reported; accepted files have in-range references, re-serialise
/// byte-identically, survive an edit, and rebuild into a strictly valid file.
pub fn check(data: &[u8]) -> bool {
    let strict = LandMsh::parse(data);
    let compat = LandMsh::parse_with(data, ReadOptions::compatible());
    for e in [strict.as_ref().err(), compat.as_ref().err()]
        .into_iter()
        .flatten()
    {
        let text = e.to_string();
        assert!(text.starts_with(&format!("[{}]", e.check())), "{text}");
    }
    match (&strict, &compat) {
        (Ok(s), Ok(c)) => assert!(s.diagnostics().is_empty() && c.diagnostics().is_empty()),
        (Err(e), Ok(c)) => assert!(
            !c.diagnostics().is_empty() || matches!(e, LandMshError::Nres(_)),
            "compatible accepted silently: {e}"
        ),
        (Ok(_), Err(e)) => panic!("strict accepted what compatible refused: {e}"),
        (Err(_), Err(_)) => {}
    }
    let accepted = compat.is_ok();
    for (m, opts) in [
        (strict, ReadOptions::strict()),
        (compat, ReadOptions::compatible()),
    ] {
        if let Ok(m) = m {
            check_parsed(data, &m, opts);
        }
    }
    accepted
}

fn check_parsed(data: &[u8], m: &LandMsh<'_>, opts: ReadOptions) {
    let s = &m.streams;
    for f in &s.faces {
        assert!(
            f.vertices
                .iter()
                .all(|&v| usize::from(v) < s.positions.len())
        );
        assert!(
            f.neighbours
                .iter()
                .all(|&n| n == NO_NEIGHBOUR || usize::from(n) < s.faces.len())
        );
    }
    let nres = Nres::parse_with(data, opts.nres).expect("accepted above");
    for t in STREAM_ORDER {
        let e = nres
            .entry(m.entry_index(t).expect("stream"))
            .expect("entry");
        assert_eq!(e.type_id(), t);
        assert_eq!(e.attr1() as usize, s.count(t));
        assert_eq!(
            s.encode_stream(t),
            e.data(),
            "stream {t} re-encodes exactly"
        );
    }
    assert_eq!(m.to_bytes().expect("unedited").as_slice(), data, "lossless");

    // Edit: drop all neighbours and append a type-11 word; must stay readable.
    let mut edited = m.clone();
    edited
        .streams
        .faces
        .iter_mut()
        .for_each(|f| f.neighbours = [NO_NEIGHBOUR; 3]);
    edited.streams.cells.push(0x0010_0001);
    let out = edited.to_bytes().expect("edited");
    let back = LandMsh::parse_with(&out, opts).expect("edited file parses");
    assert_eq!(back.streams.cells.len(), s.cells.len() + 1);
    assert!(
        back.streams
            .faces
            .iter()
            .all(|f| f.neighbours == [NO_NEIGHBOUR; 3])
    );

    // Rebuild canonically when within the authoring limits.
    if let Ok(built) = LandMsh::from_streams(edited.streams.clone()) {
        let bytes = built.to_bytes().expect("built");
        let p = LandMsh::parse(&bytes).expect("built file is strictly valid");
        for t in STREAM_ORDER {
            assert_eq!(p.streams.encode_stream(t), edited.streams.encode_stream(t));
        }
    }
}
