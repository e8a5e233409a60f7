//! Crate-level tests: strict validation (one test per check), quirks, lookup, trailer,
//! writer and lossless rewriting, plus property tests. Fixtures are built in code.

mod archive;
mod props;
mod validation;

use crate::codec::transform::Keystream;
use crate::header::HEADER_SIZE;
use crate::table::ENTRY_SIZE;
use crate::{Method, RsliBuilder};

/// A small valid archive: one entry per method with recognisable data.
pub(crate) fn sample() -> Vec<u8> {
    let mut b = RsliBuilder::new();
    for (i, m) in Method::ALL.into_iter().enumerate() {
        b.add(format!("E{i}.{}", &m.name()[..3]), m, sample_data(i));
    }
    b.build().expect("sample builds")
}

pub(crate) fn sample_data(i: usize) -> Vec<u8> {
    format!("entry {i} payload, entry {i} payload, some text {i}")
        .repeat(i + 1)
        .into_bytes()
}

/// Decodes the table of `bytes`, lets `f` edit the plain records, re-encodes it.
pub(crate) fn patch_table(bytes: &mut [u8], f: impl FnOnce(&mut [[u8; ENTRY_SIZE]])) {
    let key = u16::from_le_bytes([bytes[0x14], bytes[0x15]]);
    let count = usize::from(u16::from_le_bytes([bytes[4], bytes[5]]));
    let table = &mut bytes[HEADER_SIZE..HEADER_SIZE + count * ENTRY_SIZE];
    Keystream::new(key).apply(table);
    let mut records: Vec<[u8; ENTRY_SIZE]> = table
        .chunks_exact(ENTRY_SIZE)
        .map(|c| c.try_into().unwrap())
        .collect();
    f(&mut records);
    for (dst, src) in table.chunks_exact_mut(ENTRY_SIZE).zip(&records) {
        dst.copy_from_slice(src);
    }
    Keystream::new(key).apply(table);
}

/// Writes a little-endian u32 into a plain record.
pub(crate) fn set_u32(rec: &mut [u8; ENTRY_SIZE], at: usize, v: u32) {
    rec[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Writes a little-endian u16 into a plain record.
pub(crate) fn set_u16(rec: &mut [u8; ENTRY_SIZE], at: usize, v: u16) {
    rec[at..at + 2].copy_from_slice(&v.to_le_bytes());
}
