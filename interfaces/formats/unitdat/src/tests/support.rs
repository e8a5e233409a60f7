//! Raw fixture builders that write the on-disk layout by hand (offsets from FORMATS §4.2
//! and §4.4), independent of the crate's writers, plus a registry-building helper.

use crate::{MemoryRegistry, ObjectRefList};

/// A 32-byte field: `value`, then (if it is shorter than 32) a NUL and `tail`, cut or
/// zero-filled to 32 bytes.
pub fn field(value: &[u8], tail: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    let v = value.len().min(32);
    out[..v].copy_from_slice(&value[..v]);
    if v < 31 {
        let t = tail.len().min(31 - v);
        out[v + 1..v + 1 + t].copy_from_slice(&tail[..t]);
    }
    out
}

/// One hand-laid 112-byte unit DAT record.
pub struct RawRecord {
    pub archive: [u8; 32],
    pub resource: [u8; 32],
    pub kind: u32,
    pub link: i32,
    pub description: [u8; 32],
    pub tail0: [u8; 4],
    pub tail1: [u8; 4],
}

impl RawRecord {
    /// A valid record with tails after every NUL and non-zero opaque words.
    pub fn valid(key: &[u8]) -> Self {
        Self {
            archive: field(b"objects.rlb", b"\xCC\x01junk"),
            resource: field(key, b"old_name\x7F"),
            kind: 1,
            link: -1,
            description: field(b"Hull", b"\x80\x81"),
            tail0: [1, 2, 3, 4],
            tail1: [0xFF, 0, 0xEE, 0],
        }
    }

    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(112);
        out.extend_from_slice(&self.archive);
        out.extend_from_slice(&self.resource);
        out.extend_from_slice(&self.kind.to_le_bytes());
        out.extend_from_slice(&self.link.to_le_bytes());
        out.extend_from_slice(&self.description);
        out.extend_from_slice(&self.tail0);
        out.extend_from_slice(&self.tail1);
        assert_eq!(out.len(), 112);
        out
    }
}

/// A hand-laid unit DAT: `F1 F0`, the six opaque bytes, the records.
pub fn raw_dat(opaque: [u8; 6], records: &[RawRecord]) -> Vec<u8> {
    let mut out = vec![0xF1, 0xF0];
    out.extend_from_slice(&opaque);
    for r in records {
        out.extend_from_slice(&r.bytes());
    }
    out
}

/// A hand-laid `objects.rlb` payload from raw field pairs.
pub fn raw_refs(refs: &[([u8; 32], [u8; 32])]) -> Vec<u8> {
    refs.iter()
        .flat_map(|(a, r)| a.iter().chain(r).copied())
        .collect()
}

/// Builds a registry: each prototype is `(key, [(archive, resource)])`; a reference with
/// archive `objects.rlb` is a parent link.
pub fn registry(
    prototypes: &[(&str, &[(&str, &str)])],
    resources: &[(&str, &str)],
) -> MemoryRegistry {
    let mut reg = MemoryRegistry::new();
    for (key, refs) in prototypes {
        let mut list = ObjectRefList::new();
        for (archive, resource) in *refs {
            list.push(archive.as_bytes(), resource.as_bytes())
                .expect("fixture name");
        }
        assert!(
            reg.insert_refs(key.as_bytes(), &list),
            "duplicate fixture {key}"
        );
    }
    for (archive, resource) in resources {
        reg.insert_resource(archive.as_bytes(), resource.as_bytes());
    }
    reg
}
