//! Raw on-disk records of NRes: the 16-byte header and the 64-byte directory entry, kept
//! as the bytes read, with little-endian accessors at explicit offsets.
//!
//! Nothing here validates; [`crate::Nres::parse`] does. An untouched record written back
//! is the record read, byte for byte (unknown attributes and name tails included).

/// Size of the file header in bytes.
pub const HEADER_SIZE: usize = 16;
/// Size of one directory entry in bytes.
pub const ENTRY_SIZE: usize = 64;
/// Size of the fixed name field inside a directory entry.
pub const NAME_FIELD_SIZE: usize = 36;
/// The magic at offset 0 of every NRes file.
pub const MAGIC: [u8; 4] = *b"NRes";
/// The only version the format defines (`0x100`).
pub const VERSION: u32 = 0x100;

/// Byte offsets of the header fields (`+0x00` .. `+0x0C`).
pub mod header_off {
    /// `char[4]` magic, `"NRes"`.
    pub const MAGIC: usize = 0x00;
    /// `u32` version, `0x100`.
    pub const VERSION: usize = 0x04;
    /// `i32` entry count.
    pub const ENTRY_COUNT: usize = 0x08;
    /// `u32` total file size.
    pub const TOTAL_SIZE: usize = 0x0C;
}

/// Byte offsets of the directory entry fields (`+0x00` .. `+0x3C`).
pub mod entry_off {
    /// `u32` resource kind.
    pub const TYPE_ID: usize = 0x00;
    /// `u32` opaque attribute 1.
    pub const ATTR1: usize = 0x04;
    /// `u32` opaque attribute 2.
    pub const ATTR2: usize = 0x08;
    /// `u32` payload byte length.
    pub const SIZE: usize = 0x0C;
    /// `u32` opaque attribute 3.
    pub const ATTR3: usize = 0x10;
    /// `char[36]` name, NUL required.
    pub const NAME: usize = 0x14;
    /// `u32` absolute payload offset.
    pub const DATA_OFFSET: usize = 0x38;
    /// `u32` original index of the entry with sorted rank = this slot.
    pub const SORT_INDEX: usize = 0x3C;
}

/// Reads a little-endian `u32` at `off`; `None` if fewer than 4 bytes remain.
pub(crate) fn read_u32(bytes: &[u8], off: usize) -> Option<u32> {
    let end = off.checked_add(4)?;
    let chunk: [u8; 4] = bytes.get(off..end)?.try_into().ok()?;
    Some(u32::from_le_bytes(chunk))
}

/// Writes a little-endian `u32` at `off` of a fixed-size record (offsets are constants).
fn put_u32<const N: usize>(bytes: &mut [u8; N], off: usize, value: u32) {
    if let Some(dst) = bytes.get_mut(off..off + 4) {
        dst.copy_from_slice(&value.to_le_bytes());
    }
}

/// Reads a `u32` from a fixed-size record at a constant offset (always in bounds).
fn get_u32<const N: usize>(bytes: &[u8; N], off: usize) -> u32 {
    read_u32(bytes, off).unwrap_or(0)
}

/// The 16-byte header exactly as stored.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    bytes: [u8; HEADER_SIZE],
}

impl Header {
    /// Wraps 16 raw bytes; no validation.
    pub const fn from_bytes(bytes: [u8; HEADER_SIZE]) -> Self {
        Self { bytes }
    }

    /// A canonical header: magic, version `0x100`, the given count and total size.
    pub fn new(entry_count: u32, total_size: u32) -> Self {
        let mut h = Self {
            bytes: [0; HEADER_SIZE],
        };
        h.bytes[..4].copy_from_slice(&MAGIC);
        put_u32(&mut h.bytes, header_off::VERSION, VERSION);
        h.set_entry_count(entry_count);
        h.set_total_size(total_size);
        h
    }

    /// The 16 bytes as stored.
    pub const fn as_bytes(&self) -> &[u8; HEADER_SIZE] {
        &self.bytes
    }

    /// `+0x00`: the four magic bytes.
    pub fn magic(&self) -> [u8; 4] {
        [self.bytes[0], self.bytes[1], self.bytes[2], self.bytes[3]]
    }

    /// `+0x04`: version.
    pub fn version(&self) -> u32 {
        get_u32(&self.bytes, header_off::VERSION)
    }

    /// `+0x08`: entry count as the signed value the format declares.
    pub fn entry_count(&self) -> i32 {
        i32::from_le_bytes(get_u32(&self.bytes, header_off::ENTRY_COUNT).to_le_bytes())
    }

    /// `+0x0C`: total file size.
    pub fn total_size(&self) -> u32 {
        get_u32(&self.bytes, header_off::TOTAL_SIZE)
    }

    /// Overwrites `+0x08` (a derived value).
    pub fn set_entry_count(&mut self, count: u32) {
        put_u32(&mut self.bytes, header_off::ENTRY_COUNT, count);
    }

    /// Overwrites `+0x0C` (a derived value).
    pub fn set_total_size(&mut self, size: u32) {
        put_u32(&mut self.bytes, header_off::TOTAL_SIZE, size);
    }
}

impl std::fmt::Debug for Header {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Header")
            .field("magic", &self.magic().escape_ascii().to_string())
            .field("version", &format_args!("{:#x}", self.version()))
            .field("entry_count", &self.entry_count())
            .field("total_size", &self.total_size())
            .finish()
    }
}

/// One 64-byte directory entry exactly as stored; setters touch only their own field.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DirEntry {
    bytes: [u8; ENTRY_SIZE],
}

impl DirEntry {
    /// Wraps 64 raw bytes; no validation.
    pub const fn from_bytes(bytes: [u8; ENTRY_SIZE]) -> Self {
        Self { bytes }
    }

    /// The 64 bytes as stored.
    pub const fn as_bytes(&self) -> &[u8; ENTRY_SIZE] {
        &self.bytes
    }

    /// `+0x00`: resource kind.
    pub fn type_id(&self) -> u32 {
        get_u32(&self.bytes, entry_off::TYPE_ID)
    }

    /// `+0x04`: opaque attribute 1.
    pub fn attr1(&self) -> u32 {
        get_u32(&self.bytes, entry_off::ATTR1)
    }

    /// `+0x08`: opaque attribute 2.
    pub fn attr2(&self) -> u32 {
        get_u32(&self.bytes, entry_off::ATTR2)
    }

    /// `+0x0C`: payload length.
    pub fn size(&self) -> u32 {
        get_u32(&self.bytes, entry_off::SIZE)
    }

    /// `+0x10`: opaque attribute 3.
    pub fn attr3(&self) -> u32 {
        get_u32(&self.bytes, entry_off::ATTR3)
    }

    /// `+0x14`: the whole 36-byte name field, tail included.
    pub fn name_field(&self) -> &[u8; NAME_FIELD_SIZE] {
        const NONE: [u8; NAME_FIELD_SIZE] = [0; NAME_FIELD_SIZE];
        self.bytes[entry_off::NAME..]
            .first_chunk::<NAME_FIELD_SIZE>()
            .unwrap_or(&NONE)
    }

    /// The name value: the field's bytes before the first NUL (the whole field if none).
    pub fn name(&self) -> &[u8] {
        crate::name::field_value(self.name_field())
    }

    /// `+0x38`: absolute payload offset.
    pub fn data_offset(&self) -> u32 {
        get_u32(&self.bytes, entry_off::DATA_OFFSET)
    }

    /// `+0x3C`: sort table value stored in this slot.
    pub fn sort_index(&self) -> u32 {
        get_u32(&self.bytes, entry_off::SORT_INDEX)
    }

    /// Overwrites `+0x00`.
    pub fn set_type_id(&mut self, v: u32) {
        put_u32(&mut self.bytes, entry_off::TYPE_ID, v);
    }

    /// Overwrites `+0x04`.
    pub fn set_attr1(&mut self, v: u32) {
        put_u32(&mut self.bytes, entry_off::ATTR1, v);
    }

    /// Overwrites `+0x08`.
    pub fn set_attr2(&mut self, v: u32) {
        put_u32(&mut self.bytes, entry_off::ATTR2, v);
    }

    /// Overwrites `+0x0C`.
    pub fn set_size(&mut self, v: u32) {
        put_u32(&mut self.bytes, entry_off::SIZE, v);
    }

    /// Overwrites `+0x10`.
    pub fn set_attr3(&mut self, v: u32) {
        put_u32(&mut self.bytes, entry_off::ATTR3, v);
    }

    /// Overwrites the whole 36-byte name field.
    pub fn set_name_field(&mut self, field: &[u8; NAME_FIELD_SIZE]) {
        self.bytes[entry_off::NAME..entry_off::NAME + NAME_FIELD_SIZE].copy_from_slice(field);
    }

    /// Overwrites `+0x38`.
    pub fn set_data_offset(&mut self, v: u32) {
        put_u32(&mut self.bytes, entry_off::DATA_OFFSET, v);
    }

    /// Overwrites `+0x3C`.
    pub fn set_sort_index(&mut self, v: u32) {
        put_u32(&mut self.bytes, entry_off::SORT_INDEX, v);
    }
}

impl std::fmt::Debug for DirEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirEntry")
            .field("type_id", &format_args!("{:#010x}", self.type_id()))
            .field("attr1", &self.attr1())
            .field("attr2", &self.attr2())
            .field("size", &self.size())
            .field("attr3", &self.attr3())
            .field("name", &self.name().escape_ascii().to_string())
            .field("data_offset", &self.data_offset())
            .field("sort_index", &self.sort_index())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_fields_roundtrip_at_their_offsets() {
        let mut h = Header::new(3, 0x1234);
        assert_eq!(&h.as_bytes()[..8], b"NRes\x00\x01\x00\x00");
        assert_eq!((h.entry_count(), h.total_size()), (3, 0x1234));
        h.set_entry_count(u32::MAX);
        assert_eq!(h.entry_count(), -1);
    }

    #[test]
    fn dir_entry_setters_touch_only_their_field() {
        let mut e = DirEntry::from_bytes([0xAA; ENTRY_SIZE]);
        e.set_size(7);
        e.set_sort_index(2);
        let b = e.as_bytes();
        assert_eq!(&b[0x0C..0x10], &[7, 0, 0, 0]);
        assert_eq!(&b[0x3C..0x40], &[2, 0, 0, 0]);
        assert!(b[..0x0C].iter().chain(&b[0x10..0x3C]).all(|&x| x == 0xAA));
        assert_eq!(e.name_field(), &[0xAA; NAME_FIELD_SIZE]);
    }
}
