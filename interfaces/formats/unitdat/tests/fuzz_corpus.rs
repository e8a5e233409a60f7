//! Runs the checks of the `unitdat` and `objects_rlb` fuzz targets over seeds built in
//! code by the writers, and replays every file of `fuzz/corpus/unitdat/` and
//! `fuzz/corpus/objects_rlb/` (minimised crash reproducers, if any) so each saved input
//! stays a regression test.

use iron3d_unitdat::{
    Check, DAT_RECORD_SIZE, Geometry, MAX_EXPANDED_RECORDS, MAX_PROTOTYPE_DEPTH, ModelVia, Name32,
    OBJECT_REF_SIZE, ObjectRef, ObjectRefList, Presence, PrototypeSource, ReadMode, Resolution,
    ResourceProbe, SourceError, UnitDat, UnitDatError, UnitRecord, ends_with_ignore_case,
    names_equal, resolve,
};
use std::borrow::Cow;
use std::path::Path;

/// Same checks as `fuzz/fuzz_targets/unitdat.rs`; returns whether compatible mode accepted.
fn unitdat_check(data: &[u8]) -> bool {
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

/// Same checks as `fuzz/fuzz_targets/objects_rlb.rs`; returns whether the payload parsed.
fn objects_rlb_check(data: &[u8]) -> bool {
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

/// Unit DAT seeds: header only, authored records (one with a 32-byte description), a
/// record with tails everywhere, and one that only compatible mode accepts.
fn dat_seeds() -> Vec<(&'static str, Vec<u8>)> {
    let mut authored = UnitDat::new();
    authored.header.set_class_word(0x8000_0004);
    for (key, link, desc) in [
        (&b"e_hull_01"[..], -1, &b"Hull"[..]),
        (b"e_tur_01", 0, b"A turret description of 32 byte"),
        (b"e_wpn_01", 1, &[b'W'; 32]),
    ] {
        authored
            .records
            .push(UnitRecord::new(key, link, desc).expect("seed record"));
    }
    let mut tails = authored.clone();
    let mut raw = [0xA5u8; 32];
    raw[..11].copy_from_slice(b"OBJECTS.rlb");
    raw[11] = 0;
    tails.records[1].archive_name = Name32::from_raw(raw);
    tails.records[1].resource_name = Name32::from_raw(*b"e_tur_01\0leftover-from-old-name!");
    tails.records[1].tail0 = [1, 2, 3, 4];
    tails.records[1].tail1 = [0xFF; 4];
    tails.header.opaque[0] = 0x77;
    let mut compat = authored.clone();
    compat.records[0].kind = 0;
    compat.records[2].archive_name = Name32::new(b"static.rlb").expect("name");
    vec![
        ("header only", UnitDat::new().to_bytes()),
        ("authored", authored.to_bytes()),
        ("tails", tails.to_bytes()),
        ("compatible only", compat.to_bytes()),
    ]
}

/// `objects.rlb` seeds: a plain prototype, a parent chain with a `.bas`, a cycle, missing
/// and failing parents, and an unterminated 32-byte name.
fn objects_seeds() -> Vec<(&'static str, Vec<u8>)> {
    let list = |refs: &[(&[u8], &[u8])]| {
        refs.iter()
            .map(|(a, r)| ObjectRef::new(a, r).expect("seed ref"))
            .collect::<ObjectRefList>()
            .to_bytes()
    };
    let mut unterminated = list(&[(b"static.rlb", b"x.msh")]);
    unterminated[32..64].copy_from_slice(&[b'N'; 32]);
    vec![
        ("empty", Vec::new()),
        (
            "plain",
            list(&[(b"static.rlb", b"tank.msh"), (b"static.rlb", b"tank.wea")]),
        ),
        (
            "parent and base",
            list(&[(b"objects.rlb", b"wall"), (b"fortif.rlb", b"wall_01.bas")]),
        ),
        ("self cycle", list(&[(b"objects.rlb", b"objects.rlb")])),
        (
            "missing and failing parents",
            list(&[(b"OBJECTS.RLB", b"!gone"), (b"objects.rlb", b"#boom")]),
        ),
        ("missing archive", list(&[(b"?lost.rlb", b"a.msh")])),
        ("unterminated", unterminated),
    ]
}

/// Every prefix and a spread of single-byte corruptions of `data` run through `check`.
fn mutate(data: &[u8], check: fn(&[u8]) -> bool) {
    for len in 0..data.len() {
        check(&data[..len]);
    }
    for pos in (0..data.len()).step_by(5) {
        let mut bad = data.to_vec();
        bad[pos] ^= 0x41;
        check(&bad);
    }
}

#[test]
fn dat_seeds_pass_the_fuzz_checks() {
    for (name, data) in dat_seeds() {
        assert!(unitdat_check(&data), "{name} is accepted");
        mutate(&data, unitdat_check);
    }
    let (_, compat) = &dat_seeds()[3];
    assert!(
        UnitDat::parse(compat).is_err(),
        "strict refuses the compatible-only seed"
    );
}

#[test]
fn objects_seeds_pass_the_fuzz_checks() {
    for (name, data) in objects_seeds() {
        assert!(objects_rlb_check(&data), "{name} is accepted");
        mutate(&data, objects_rlb_check);
    }
}

fn replay(target: &str, check: fn(&[u8]) -> bool) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../fuzz/corpus")
        .join(target);
    let Ok(read) = std::fs::read_dir(&dir) else {
        eprintln!("no {} yet: nothing to replay", dir.display());
        return;
    };
    let mut files: Vec<_> = read.map(|e| e.expect("dir entry").path()).collect();
    files.sort();
    for path in files {
        let data = std::fs::read(&path).expect("corpus file");
        check(&data);
    }
}

#[test]
fn saved_unitdat_corpus_replays_cleanly() {
    replay("unitdat", unitdat_check);
}

#[test]
fn saved_objects_rlb_corpus_replays_cleanly() {
    replay("objects_rlb", objects_rlb_check);
}
