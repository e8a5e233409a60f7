//! Fuzz target: an `objects.rlb` entry payload must parse iff its length is a multiple of
//! 64 and re-serialise byte for byte; and prototype resolution over a registry built from
//! the input (every key maps to a slice of it, so parents, cycles and diamonds abound)
//! must end in a result or a located error within the limits, never panic or run away.
#![no_main]

use iron3d_unitdat::{
    Check, Geometry, MAX_EXPANDED_RECORDS, MAX_PROTOTYPE_DEPTH, ModelVia, OBJECT_REF_SIZE,
    ObjectRefList, Presence, PrototypeSource, ResourceProbe, SourceError, UnitDatError,
    ends_with_ignore_case, names_equal, resolve,
};
use libfuzzer_sys::fuzz_target;
use std::borrow::Cow;

/// Every key names the input from a record boundary picked by the key's folded bytes;
/// keys starting with `!` are missing; resources exist when their folded length sum is
/// even, archives starting with `?` are missing.
struct Derived<'a>(&'a [u8]);

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

fuzz_target!(|data: &[u8]| {
    match ObjectRefList::parse(data) {
        Ok(list) => {
            assert_eq!(list.refs.len() * OBJECT_REF_SIZE, data.len());
            assert_eq!(
                list.to_bytes(),
                data,
                "accepted payload re-serialises byte for byte"
            );
        }
        Err(e) => {
            assert_ne!(data.len() % OBJECT_REF_SIZE, 0, "{e}");
            assert_eq!(e.check(), Check::PayloadSize);
            assert_eq!(e.offset(), Some((data.len() / 64 * 64) as u64));
        }
    }
    let source = Derived(data);
    let key: &[u8] = data
        .get(32..64)
        .map_or(b"root", |k| k.split(|&b| b == 0).next().unwrap_or(k));
    check_resolution(&source, key, resolve(&source, &source, key));
});

fn check_resolution(
    source: &Derived<'_>,
    key: &[u8],
    result: Result<iron3d_unitdat::Resolution, UnitDatError>,
) {
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
                    assert_eq!(
                        source.probe(&m.archive, &m.name).ok(),
                        Some(Presence::Present)
                    );
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
            assert!(
                (1..=MAX_PROTOTYPE_DEPTH + 2).contains(&chain.keys().len()),
                "{e}"
            );
            assert_eq!(chain.keys()[0], key);
            assert!(e.to_string().starts_with('['), "{e}");
            if let UnitDatError::Cycle { chain } = &e {
                let (last, before) = chain.keys().split_last().expect("non-empty");
                assert!(before.iter().any(|k| names_equal(k, last)));
            }
        }
    }
}
