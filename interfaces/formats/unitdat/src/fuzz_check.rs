//! The invariants the `unitdat` and `objects_rlb` fuzz targets assert, shared with the
//! corpus-replay tests: call [`unitdat`] or [`objects_rlb`] on any input; they panic on a
//! violation (that is what the fuzzer detects) and return whether the input was accepted.

#![allow(
    clippy::missing_panics_doc,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    reason = "panicking on a broken invariant is the purpose"
)]

use crate::*;
use std::borrow::Cow;

/// Same checks as `fuzz/fuzz_targets/unitdat.rs`; returns whether compatible mode accepted.
pub fn unitdat(data: &[u8]) -> bool {
    let strict = UnitDat::parse(data);
    let compat = UnitDat::parse_with(data, ReadMode::Compatible);
    match (&strict, &compat) {
        (Ok(s), Ok(c)) => {
            assert!(c.diagnostics.is_empty());
            assert_eq!(s, &c.dat);
        }
        (Err(e), Ok(c)) => {
            assert!(
                !c.diagnostics.is_empty(),
                "compatible accepted silently: {e}"
            );
            assert!(
                c.diagnostics
                    .iter()
                    .all(|d| Check::DAT_COMPATIBLE_TOLERATES.contains(&d.check()))
            );
            assert_eq!(c.diagnostics[0].to_string(), e.to_string());
        }
        (Ok(_), Err(e)) => panic!("strict accepted what compatible refused: {e}"),
        (Err(s), Err(c)) => {
            assert_eq!(s.to_string(), c.to_string());
            assert!(Check::DAT_READ_CHECKS.contains(&s.check()), "{s}");
            assert!(
                s.to_string().starts_with(&format!("[{}]", s.check())),
                "{s}"
            );
            assert!(s.offset().is_some_and(|o| o <= data.len() as u64));
        }
    }
    let Ok(c) = compat else { return false };
    assert_eq!(c.dat.encoded_len(), data.len());
    assert_eq!(
        c.dat.to_bytes(),
        data,
        "accepted input re-serialises byte for byte"
    );
    for (i, r) in c.dat.records.iter().enumerate() {
        let at = 8 + i * DAT_RECORD_SIZE;
        assert_eq!(&r.to_bytes()[..], &data[at..at + DAT_RECORD_SIZE]);
        assert_eq!(UnitRecord::from_bytes(&r.to_bytes()), *r);
    }
    true
}

/// The `objects_rlb` target's registry: every key names the input from a record boundary
/// picked by the key's folded bytes; `!key` is missing, `#key` fails; resources exist when
/// their folded byte sum is even; archives starting with `?` are missing.
pub struct Derived<'a>(&'a [u8]);

fn pick(key: &[u8], n: usize) -> usize {
    key.iter()
        .map(|b| b.to_ascii_uppercase() as usize)
        .sum::<usize>()
        % n.max(1)
}

impl PrototypeSource for Derived<'_> {
    fn payload(&self, key: &[u8]) -> Result<Option<Cow<'_, [u8]>>, SourceError> {
        if key.first() == Some(&b'!') {
            return Ok(None);
        }
        if key.first() == Some(&b'#') {
            return Err("backend failure".into());
        }
        let chunks = self.0.len() / OBJECT_REF_SIZE + 1;
        let at = pick(key, chunks) * OBJECT_REF_SIZE;
        Ok(self.0.get(at..).map(Cow::Borrowed))
    }
}

impl ResourceProbe for Derived<'_> {
    fn probe(&self, archive: &[u8], resource: &[u8]) -> Result<Presence, SourceError> {
        Ok(if archive.first() == Some(&b'?') {
            Presence::ArchiveMissing
        } else if pick(resource, 2) == 0 {
            Presence::Present
        } else {
            Presence::EntryMissing
        })
    }
}

/// Same checks as `fuzz/fuzz_targets/objects_rlb.rs`; returns whether the payload parsed.
pub fn objects_rlb(data: &[u8]) -> bool {
    let parsed = match ObjectRefList::parse(data) {
        Ok(list) => {
            assert_eq!(list.refs.len() * OBJECT_REF_SIZE, data.len());
            assert_eq!(
                list.to_bytes(),
                data,
                "accepted payload re-serialises byte for byte"
            );
            true
        }
        Err(e) => {
            assert_ne!(data.len() % OBJECT_REF_SIZE, 0, "{e}");
            assert_eq!(e.check(), Check::PayloadSize);
            assert_eq!(e.offset(), Some((data.len() / 64 * 64) as u64));
            false
        }
    };
    let source = Derived(data);
    let key: &[u8] = data
        .get(32..64)
        .map_or(b"root", |k| k.split(|&b| b == 0).next().unwrap_or(k));
    check_resolution(&source, key, resolve(&source, &source, key));
    parsed
}

fn check_resolution(source: &Derived<'_>, key: &[u8], result: Result<Resolution, UnitDatError>) {
    match result {
        Ok(r) => {
            let x = &r.expansion;
            assert_eq!(x.key(), key);
            assert!(x.prototypes.iter().all(|p| p.depth <= MAX_PROTOTYPE_DEPTH));
            assert!(x.refs.len() <= MAX_EXPANDED_RECORDS);
            assert!(
                x.refs
                    .iter()
                    .all(|e| !e.object_ref.is_parent() && e.origin.prototype < x.prototypes.len())
            );
            assert!(
                r.bases
                    .iter()
                    .all(|&b| ends_with_ignore_case(x.refs[b].object_ref.resource(), b".bas"))
            );
            match &r.geometry {
                Geometry::Mesh(m) => {
                    assert!(ends_with_ignore_case(&m.name, b".msh"));
                    let presence = source.probe(&m.archive, &m.name).ok();
                    assert_eq!(presence, Some(Presence::Present));
                    if let ModelVia::BaseStem { base } = m.via {
                        assert!(r.bases.contains(&base));
                    }
                }
                Geometry::NonGeometric { base_attempts } => {
                    assert!(x.with_suffix(b".msh").next().is_none());
                    assert!(
                        base_attempts
                            .iter()
                            .all(|a| a.presence != Presence::Present)
                    );
                }
            }
        }
        Err(e) => {
            let chain = e.chain().expect("resolution errors carry the chain");
            let n = chain.keys().len();
            assert!((1..=MAX_PROTOTYPE_DEPTH + 2).contains(&n), "{e}");
            assert_eq!(chain.keys()[0], key);
            assert!(e.to_string().starts_with('['), "{e}");
            if let UnitDatError::Cycle { chain } = &e {
                let (last, before) = chain.keys().split_last().expect("non-empty");
                assert!(before.iter().any(|k| names_equal(k, last)));
            }
        }
    }
}
