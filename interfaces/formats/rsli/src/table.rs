//! The entry table: `entry_count` records of 32 bytes right after the header, stored
//! through the §3.4 transform as **one** stream keyed by the header seed (the state
//! never restarts at a record boundary). [`EntryRecord`] keeps a decoded record's bytes.
//!
//! ```text
//! +0x00 char[12] name            (NUL not required; bytes after a NUL are kept)
//! +0x0C u8[4]    service         opaque
//! +0x10 i16      flags           method = flags & 0x1E0, other bits kept
//! +0x12 i16      sort_to_original
//! +0x14 u32      unpacked_size
//! +0x18 u32      data_offset_raw (the AO overlay is added to it)
//! +0x1C u32      packed_size
//! ```

use crate::codec::transform::Keystream;
use crate::header::HEADER_SIZE;

/// Size of one table record.
pub const ENTRY_SIZE: usize = 32;
/// Size of the name field.
pub const NAME_SIZE: usize = 12;

/// One decoded (plain) 32-byte table record, kept whole; accessors decode on demand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntryRecord {
    raw: [u8; ENTRY_SIZE],
}

impl EntryRecord {
    /// A record from its plain bytes.
    pub const fn from_raw(raw: [u8; ENTRY_SIZE]) -> Self {
        EntryRecord { raw }
    }

    /// A record from its fields (flags and sort field as their 16-bit patterns).
    pub fn from_fields(
        name: [u8; NAME_SIZE],
        service: [u8; 4],
        flags: u16,
        sort_field: i16,
        unpacked_size: u32,
        data_offset_raw: u32,
        packed_size: u32,
    ) -> Self {
        let mut raw = [0u8; ENTRY_SIZE];
        raw[0..12].copy_from_slice(&name);
        raw[12..16].copy_from_slice(&service);
        raw[16..18].copy_from_slice(&flags.to_le_bytes());
        raw[18..20].copy_from_slice(&sort_field.to_le_bytes());
        raw[20..24].copy_from_slice(&unpacked_size.to_le_bytes());
        raw[24..28].copy_from_slice(&data_offset_raw.to_le_bytes());
        raw[28..32].copy_from_slice(&packed_size.to_le_bytes());
        EntryRecord { raw }
    }

    /// The 32 plain bytes.
    pub const fn raw(&self) -> &[u8; ENTRY_SIZE] {
        &self.raw
    }

    /// The whole 12-byte name field, tail included.
    pub fn name_field(&self) -> &[u8; NAME_SIZE] {
        self.raw[0..12].first_chunk().unwrap_or(&[0; NAME_SIZE])
    }

    /// The name: the field up to its first NUL, or all 12 bytes without one.
    pub fn name(&self) -> &[u8] {
        let f = &self.raw[0..12];
        f.iter().position(|&b| b == 0).map_or(f, |n| &f[..n])
    }

    /// The opaque 4 bytes at +0x0C.
    pub fn service(&self) -> [u8; 4] {
        [self.raw[12], self.raw[13], self.raw[14], self.raw[15]]
    }

    /// The flags at +0x10 as an unsigned bit pattern.
    pub fn flags(&self) -> u16 {
        u16::from_le_bytes([self.raw[16], self.raw[17]])
    }

    /// The signed `sort_to_original` field at +0x12.
    pub fn sort_field(&self) -> i16 {
        i16::from_le_bytes([self.raw[18], self.raw[19]])
    }

    /// The declared decoded size at +0x14.
    pub fn unpacked_size(&self) -> u32 {
        u32::from_le_bytes([self.raw[20], self.raw[21], self.raw[22], self.raw[23]])
    }

    /// The payload offset before the overlay, at +0x18.
    pub fn data_offset_raw(&self) -> u32 {
        u32::from_le_bytes([self.raw[24], self.raw[25], self.raw[26], self.raw[27]])
    }

    /// The stored byte length at +0x1C.
    pub fn packed_size(&self) -> u32 {
        u32::from_le_bytes([self.raw[28], self.raw[29], self.raw[30], self.raw[31]])
    }
}

/// Decodes `count` records from the transformed table at `data[32..]` with one
/// continuous keystream. The caller has checked that the table fits.
pub(crate) fn decode_table(data: &[u8], count: usize, key: u16) -> Vec<EntryRecord> {
    let mut ks = Keystream::new(key);
    let mut records = Vec::with_capacity(count);
    for chunk in data[HEADER_SIZE..].chunks_exact(ENTRY_SIZE).take(count) {
        let mut raw = [0u8; ENTRY_SIZE];
        raw.copy_from_slice(chunk);
        ks.apply(&mut raw);
        records.push(EntryRecord { raw });
    }
    records
}

/// Encodes records into the on-disk table bytes with one continuous keystream.
pub fn encode_table(records: &[EntryRecord], key: u16) -> Vec<u8> {
    let mut ks = Keystream::new(key);
    let mut out = Vec::with_capacity(records.len() * ENTRY_SIZE);
    for r in records {
        let start = out.len();
        out.extend_from_slice(&r.raw);
        ks.apply(&mut out[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_vector_state_runs_across_records() {
        // Two all-zero records under key 0x1234: the table bytes are the raw keystream,
        // and record 1 continues where record 0 stopped (its first bytes are keystream
        // bytes 32.., not a restart at 0x7A).
        let zero = EntryRecord::from_raw([0; ENTRY_SIZE]);
        let table = encode_table(&[zero, zero], 0x1234);
        assert_eq!(&table[..4], &[0x7A, 0x87, 0xB0, 0x8F]);
        let mut ks = Keystream::new(0x1234);
        let stream: Vec<u8> = (0..64).map(|_| ks.next_byte()).collect();
        assert_eq!(table, stream);
        assert_ne!(&table[32..36], &table[0..4]);
        let mut file = vec![0u8; HEADER_SIZE];
        file.extend_from_slice(&table);
        assert_eq!(decode_table(&file, 2, 0x1234), vec![zero, zero]);
    }

    #[test]
    fn fields_roundtrip_and_names_stop_at_nul() {
        let mut name = *b"AB\0TAILBYTES";
        let r = EntryRecord::from_fields(name, [1, 2, 3, 4], 0xFE40, -2, 7, 8, 9);
        assert_eq!(r.name(), b"AB");
        assert_eq!(r.name_field(), &name);
        assert_eq!(
            (r.service(), r.flags(), r.sort_field()),
            ([1, 2, 3, 4], 0xFE40, -2)
        );
        assert_eq!(
            (r.unpacked_size(), r.data_offset_raw(), r.packed_size()),
            (7, 8, 9)
        );
        name = *b"TWELVE_BYTES";
        assert_eq!(
            EntryRecord::from_fields(name, [0; 4], 0, 0, 0, 0, 0).name(),
            b"TWELVE_BYTES"
        );
    }
}
