//! The invariants the `landmap` fuzz target asserts, shared with the corpus-replay
//! tests: call [`check`] on any input; it panics on a violation and returns whether the
//! input was accepted.

#![allow(
    clippy::missing_panics_doc,
    clippy::unwrap_used,
    reason = "panicking on a broken invariant is the purpose"
)]

use crate::*;

/// Parses `data` as a whole `Land.map` and, independently, as a bare payload (first 4
/// bytes = areal count). Whatever is accepted must re-serialise byte-identically,
/// re-encode to the same payload, re-parse to the same model, keep every reference in
/// range and pack its grid consistently. Returns whether the file parse accepted.
pub fn check(data: &[u8]) -> bool {
    if let Some((head, rest)) = data.split_first_chunk::<4>() {
        if let Ok(map) = parse_payload(rest, u32::from_le_bytes(*head)) {
            check_map(&map, Some(rest));
        }
    }
    match LandMapFile::parse(data) {
        Ok(file) => {
            assert_eq!(file.to_bytes(), data, "unedited file is lossless");
            let entry = file.document().payload(0).unwrap();
            check_map(file.map(), Some(entry));
            let fresh = file.map().to_file_bytes(b"Land").unwrap();
            let again = LandMapFile::parse(&fresh).unwrap();
            assert_eq!(again.map(), file.map());
            let mut edited = file.clone();
            edited.set_map(file.map().clone()).unwrap();
            assert_eq!(
                edited.to_bytes(),
                data,
                "re-setting the same map changes nothing"
            );
            true
        }
        Err(e) => {
            assert!(e.to_string().starts_with('['), "{e}");
            false
        }
    }
}

fn check_map(map: &LandMap, payload: Option<&[u8]>) {
    map.validate().unwrap();
    let encoded = map.encode_payload().unwrap();
    if let Some(p) = payload {
        assert_eq!(encoded, p, "payload re-encodes byte-identically");
    }
    let count = u32::try_from(map.areas.len()).unwrap();
    assert_eq!(&parse_payload(&encoded, count).unwrap(), map);
    for a in &map.areas {
        assert_eq!(u64::from(a.prefix.vertex_count()), a.vertices.len() as u64);
        assert_eq!(a.links.len() as u64, a.expected_links());
        for l in &a.links {
            if let Some((t, e)) = l.target() {
                assert!(e < map.areas[t].links.len());
            } else {
                assert_eq!(*l, EdgeLink::NONE);
            }
        }
    }
    let g = &map.grid;
    assert_eq!(
        g.len() as u64,
        u64::from(g.cells_x()) * u64::from(g.cells_y())
    );
    if let Ok(packed) = g.packed() {
        for (i, p) in packed.iter().enumerate() {
            let (hits, start) = unpack_cell(*p);
            let ids = &g.pool()[start as usize..start as usize + hits as usize];
            assert_eq!(Some(ids), g.cell_at(i));
            assert!(ids.iter().all(|&id| usize::from(id) < map.areas.len()));
        }
    }
}
