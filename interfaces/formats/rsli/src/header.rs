//! The 32-byte RsLi header (FORMATS.md §3.2) and the optional 6-byte `AO` media overlay
//! trailer (§3.6). Unnamed header bytes are opaque and kept as read.
//!
//! ```text
//! +0x00 "NL"          magic
//! +0x02 u8  reserved  0
//! +0x03 u8  version   1
//! +0x04 i16 entry_count (>= 0)
//! +0x06 u8[8]         opaque
//! +0x0E u16 presorted_flag (0xABBA = stored sort mapping ready)
//! +0x10 u8[4]         opaque
//! +0x14 u32 xor_seed  (low 16 bits key the table transform)
//! +0x18 u8[8]         opaque
//!
//! trailer (last 6 bytes of the file, only after the entry table): "AO" u32 overlay
//! ```

use crate::error::RsliError;

/// Header size in bytes.
pub const HEADER_SIZE: usize = 32;
/// The magic at +0x00.
pub const MAGIC: [u8; 2] = *b"NL";
/// The only known version (+0x03).
pub const VERSION: u8 = 1;
/// `presorted_flag` value meaning the stored sort mapping is ready for use.
pub const PRESORTED_FLAG: u16 = 0xABBA;
/// Size of the `AO` trailer.
pub const TRAILER_SIZE: usize = 6;
/// Magic of the `AO` trailer.
pub const TRAILER_MAGIC: [u8; 2] = *b"AO";

/// The header exactly as read; accessors decode fields on demand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    raw: [u8; HEADER_SIZE],
}

impl Header {
    /// Reads and checks the header: size, magic, reserved byte, version and a
    /// non-negative entry count (§3.9 checks 1 and the sign half of 2).
    pub fn parse(data: &[u8]) -> Result<Header, RsliError> {
        let raw: [u8; HEADER_SIZE] = data
            .get(..HEADER_SIZE)
            .and_then(|b| b.try_into().ok())
            .ok_or(RsliError::HeaderTruncated {
                need: HEADER_SIZE,
                have: data.len(),
            })?;
        let h = Header { raw };
        if raw[0..2] != MAGIC {
            return Err(RsliError::BadMagic {
                found: [raw[0], raw[1]],
            });
        }
        if raw[2] != 0 {
            return Err(RsliError::BadReserved { found: raw[2] });
        }
        if raw[3] != VERSION {
            return Err(RsliError::BadVersion { found: raw[3] });
        }
        if h.entry_count_raw() < 0 {
            return Err(RsliError::NegativeEntryCount {
                count: h.entry_count_raw(),
            });
        }
        Ok(h)
    }

    /// A header built from its bytes, unchecked (for writers).
    pub const fn from_raw(raw: [u8; HEADER_SIZE]) -> Header {
        Header { raw }
    }

    /// The 32 bytes as read.
    pub const fn raw(&self) -> &[u8; HEADER_SIZE] {
        &self.raw
    }

    /// The signed entry count at +0x04 as stored.
    pub const fn entry_count_raw(&self) -> i16 {
        i16::from_le_bytes([self.raw[4], self.raw[5]])
    }

    /// The entry count (0 for a negative value, which [`Header::parse`] rejects).
    pub fn entry_count(&self) -> usize {
        usize::try_from(self.entry_count_raw()).unwrap_or(0)
    }

    /// The u16 at +0x0E.
    pub const fn presorted_flag(&self) -> u16 {
        u16::from_le_bytes([self.raw[0x0E], self.raw[0x0F]])
    }

    /// Whether `presorted_flag == 0xABBA`.
    pub const fn is_presorted(&self) -> bool {
        self.presorted_flag() == PRESORTED_FLAG
    }

    /// The u32 at +0x14.
    pub const fn xor_seed(&self) -> u32 {
        u32::from_le_bytes([
            self.raw[0x14],
            self.raw[0x15],
            self.raw[0x16],
            self.raw[0x17],
        ])
    }

    /// The 16-bit table transform key: the low half of `xor_seed`.
    pub const fn table_key(&self) -> u16 {
        (self.xor_seed() & 0xFFFF) as u16
    }
}

/// A parsed `AO` media overlay trailer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trailer {
    /// File offset of the trailer (`file length - 6`).
    pub offset: usize,
    /// Added to every `data_offset_raw`.
    pub overlay: u32,
}

/// Finds the trailer: the last 6 bytes are `"AO" u32` and lie entirely after the entry
/// table (which ends at `table_end`); then checks `overlay <= file length`.
pub(crate) fn find_trailer(data: &[u8], table_end: usize) -> Result<Option<Trailer>, RsliError> {
    let Some(offset) = data.len().checked_sub(TRAILER_SIZE) else {
        return Ok(None);
    };
    if offset < table_end {
        return Ok(None);
    }
    let t = &data[offset..];
    if t[0..2] != TRAILER_MAGIC {
        return Ok(None);
    }
    let overlay = u32::from_le_bytes([t[2], t[3], t[4], t[5]]);
    if u64::from(overlay) > data.len() as u64 {
        return Err(RsliError::OverlayOutOfRange {
            offset,
            overlay,
            file_len: data.len(),
        });
    }
    Ok(Some(Trailer { offset, overlay }))
}
