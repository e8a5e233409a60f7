//! Test fixtures: a canonical sample archive, byte patching helpers, and a free-form
//! layout builder (gaps, non-zero padding, name tails, payload order, unindexed bytes).

use crate::lookup::build_sort_table;
use crate::raw::{DirEntry, ENTRY_SIZE, HEADER_SIZE, Header, NAME_FIELD_SIZE};
use crate::{NewEntry, NresWriter};

/// Four entries: sizes 5, 8, 0, 13; sorted order alpha(1) Beta(0) delta(3) Gamma.tex(2).
pub fn sample() -> Vec<u8> {
    let mut w = NresWriter::new();
    w.push(
        NewEntry::new(b"Beta", 1, &b"12345"[..])
            .unwrap()
            .with_attrs(10, 11, 12),
    );
    w.push(NewEntry::new(b"alpha", 2, &b"ABCDEFGH"[..]).unwrap());
    w.push(NewEntry::new(b"Gamma.tex", 0x6D78_6554, &b""[..]).unwrap());
    w.push(
        NewEntry::new(b"delta", 3, &b"0123456789abc"[..])
            .unwrap()
            .with_attrs(u32::MAX, 0, 7),
    );
    w.finish().unwrap()
}

/// Offset of the directory of a valid archive.
pub fn dir_off(bytes: &[u8]) -> usize {
    let h = Header::from_bytes(*bytes.first_chunk::<HEADER_SIZE>().unwrap());
    h.total_size() as usize - h.entry_count() as usize * ENTRY_SIZE
}

/// Offset of field `field` of record `i`.
pub fn field(bytes: &[u8], i: usize, field: usize) -> usize {
    dir_off(bytes) + i * ENTRY_SIZE + field
}

/// Writes a little-endian u32.
pub fn put(bytes: &mut [u8], off: usize, v: u32) {
    bytes[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

/// Reads a little-endian u32.
pub fn get(bytes: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(bytes[off..off + 4].try_into().unwrap())
}

/// A name field `name + NUL + tail` (tail cut or zero-filled to fit).
pub fn name_field(name: &[u8], tail: &[u8]) -> [u8; NAME_FIELD_SIZE] {
    let mut f = [0u8; NAME_FIELD_SIZE];
    f[..name.len()].copy_from_slice(name);
    let rest = &mut f[name.len() + 1..];
    let n = tail.len().min(rest.len());
    rest[..n].copy_from_slice(&tail[..n]);
    f
}

/// One entry of a free-form layout.
#[derive(Clone, Debug)]
pub struct Piece {
    pub field: [u8; NAME_FIELD_SIZE],
    pub type_id: u32,
    pub attrs: [u32; 3],
    pub data: Vec<u8>,
    /// Bytes placed before this payload (after the previous one).
    pub gap: Vec<u8>,
}

/// A free-form archive: payloads in `placement` order, each preceded by its gap and, if
/// `aligned`, by `fill` bytes up to the next multiple of 8; `trailing` before the directory.
#[derive(Clone, Debug)]
pub struct Layout {
    pub pieces: Vec<Piece>,
    pub placement: Vec<usize>,
    pub trailing: Vec<u8>,
    pub aligned: bool,
    pub fill: u8,
}

impl Layout {
    /// The archive bytes with a canonical sort table.
    pub fn build(&self) -> Vec<u8> {
        let names: Vec<&[u8]> = self
            .pieces
            .iter()
            .map(|p| crate::field_value(&p.field))
            .collect();
        let table = build_sort_table(names.into_iter());
        self.build_with_table(&table)
    }

    /// The archive bytes with the given `sort_index` values.
    pub fn build_with_table(&self, table: &[u32]) -> Vec<u8> {
        let mut region = Vec::new();
        let mut offsets = vec![0usize; self.pieces.len()];
        for &i in &self.placement {
            let p = &self.pieces[i];
            region.extend_from_slice(&p.gap);
            if self.aligned {
                while (HEADER_SIZE + region.len()) % 8 != 0 {
                    region.push(self.fill);
                }
            }
            offsets[i] = HEADER_SIZE + region.len();
            region.extend_from_slice(&p.data);
        }
        region.extend_from_slice(&self.trailing);
        let total = HEADER_SIZE + region.len() + self.pieces.len() * ENTRY_SIZE;
        let mut out = Header::new(self.pieces.len() as u32, total as u32)
            .as_bytes()
            .to_vec();
        out.extend_from_slice(&region);
        for (i, p) in self.pieces.iter().enumerate() {
            let mut r = DirEntry::from_bytes([0; ENTRY_SIZE]);
            r.set_type_id(p.type_id);
            r.set_attr1(p.attrs[0]);
            r.set_attr2(p.attrs[1]);
            r.set_attr3(p.attrs[2]);
            r.set_size(p.data.len() as u32);
            r.set_name_field(&p.field);
            r.set_data_offset(offsets[i] as u32);
            r.set_sort_index(table[i]);
            out.extend_from_slice(r.as_bytes());
        }
        out
    }
}

/// A small non-canonical layout: name tails, a non-zero unindexed region before the first
/// payload, non-zero padding, payloads stored in reverse directory order, trailing bytes.
pub fn messy() -> Layout {
    let piece = |name: &[u8], tail: &[u8], data: &[u8], gap: &[u8]| Piece {
        field: name_field(name, tail),
        type_id: 0x3054_414D,
        attrs: [1, 6, 0xDEAD_BEEF],
        data: data.to_vec(),
        gap: gap.to_vec(),
    };
    Layout {
        pieces: vec![
            piece(b"one", b"\xAA\xBB", b"first payload", b""),
            piece(b"TWO", b"", b"2", b"\x00\x00"),
            piece(b"three", b"junk tail", b"third!", &[0x55; 21]),
        ],
        placement: vec![2, 1, 0],
        trailing: b"\x01unindexed trailer".to_vec(),
        aligned: true,
        fill: 0xCC,
    }
}
