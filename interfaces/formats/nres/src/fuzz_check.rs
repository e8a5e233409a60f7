//! The invariants the `nres` fuzz target asserts, shared with the corpus-replay
//! tests: call [`check`] on any input; it panics on a violation (that is what the fuzzer
//! detects) and returns whether the input was accepted.

#![allow(
    clippy::missing_panics_doc,
    reason = "panicking on a broken invariant is the purpose"
)]

use crate::*;

/// Same checks as `fuzz/fuzz_targets/nres.rs`; returns whether either reader accepted.
pub fn check(data: &[u8]) -> bool {
    let strict = Nres::parse(data);
    let compat = Nres::parse_with(data, ReadOptions::compatible());
    match (&strict, &compat) {
        (Ok(s), Ok(c)) => assert!(s.diagnostics().is_empty() && c.diagnostics().is_empty()),
        (Err(e), Ok(c)) => {
            assert!(
                !c.diagnostics().is_empty(),
                "compatible accepted silently: {e}"
            );
            assert!(
                c.diagnostics()
                    .iter()
                    .all(|d| d.quirk.tolerates().contains(&d.tolerated.check()))
            );
        }
        (Ok(_), Err(e)) => panic!("strict accepted what compatible refused: {e}"),
        (Err(s), Err(c)) => {
            assert!(Check::READ_CHECKS.contains(&s.check()), "{s}");
            assert!(
                s.to_string().starts_with(&format!("[{}]", s.check())),
                "{s}"
            );
            assert!(c.to_string().starts_with('['), "{c}");
        }
    }
    let accepted = compat.is_ok();
    for (archive, opts) in [
        (strict, ReadOptions::strict()),
        (compat, ReadOptions::compatible()),
    ] {
        if let Ok(a) = archive {
            check_parsed(data, &a, opts);
        }
    }
    accepted
}
/// The tag check of an entry against every family: a match passes, a mismatch of a
/// checked family is `[type_id]` strictly and a `wrong_type_tag` diagnostic compatibly;
/// the hex form of any tag parses back to it.
fn check_tags(e: &EntryView<'_>, opts: ReadOptions) {
    let entry = EntryRef {
        index: e.index(),
        name: Some(e.name().to_vec()),
    };
    for family in &FAMILIES {
        let r = opts.check_tag(entry.clone(), e.type_id(), family);
        let checked = match family.check {
            TagCheck::Checked => true,
            TagCheck::Relaxable => !opts.mesh_tag_relaxed(),
            TagCheck::Unchecked => false,
        };
        match r {
            Ok(None) => assert!(e.type_id() == family.tag.value() || !checked),
            Ok(Some(d)) => {
                assert!(opts.allows(Quirk::WrongTypeTag) && d.tolerated.check() == Check::TypeId);
            }
            Err(err) => {
                assert!(!opts.allows(Quirk::WrongTypeTag) && err.check() == Check::TypeId);
                assert!(err.to_string().starts_with("[type_id] entry #"), "{err}");
            }
        }
    }
    let tag = TypeTag(e.type_id());
    assert_eq!(TypeTag::parse(&format!("{:#x}", tag.value())), Some(tag));
    if let Some(b) = tag.fourcc().filter(|b| b[0].is_ascii_alphabetic()) {
        assert_eq!(
            TypeTag::parse(std::str::from_utf8(&b).expect("ascii")),
            Some(tag)
        );
    }
}

fn check_parsed(data: &[u8], a: &Nres<'_>, opts: ReadOptions) {
    for e in a.entries() {
        let r = e.data_range();
        assert!(r.start >= 16 && r.end <= a.directory_offset() && r.end <= data.len());
        assert_eq!(data.get(r), Some(e.data()));
        assert!(e.name_field().contains(&0) && !e.name().is_empty());
        let found = a.find(e.name()).expect("every entry is found by its name");
        assert!(names_equal(found.name(), e.name()) && found.index() <= e.index());
        check_tags(&e, opts);
    }
    let doc = NresDocument::from_nres(a);
    assert_eq!(doc.to_bytes(), data, "unedited document is lossless");

    let packed = a.repack().expect("repack of a parsed archive fits");
    let p = Nres::parse(&packed).expect("repacked archive is strictly valid");
    assert_eq!(p.len(), a.len());
    assert!(
        a.entries()
            .zip(p.entries())
            .all(|(x, y)| x.data() == y.data() && x.name_field() == y.name_field())
    );

    let mut edited = doc.clone();
    if !a.is_empty() {
        let payload = &data[..data.len().min(13)];
        edited.replace_payload(0, payload).expect("replace");
        edited.remove_entry(a.len() - 1).expect("remove");
    }
    let new = NewEntry::new(b"fuzz.bin", 1, &data[..data.len().min(5)]).expect("name");
    edited.add_entry(new).expect("add");
    let out = edited.to_bytes();
    let e = Nres::parse_with(&out, opts).expect("edited archive parses");
    assert!(e.find(b"FUZZ.BIN").is_some());
}
