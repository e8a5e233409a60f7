//! FXID commands (FORMATS §10.3): the command word, the fixed size per opcode, the
//! enabled bit, the resource reference of opcodes 2–5 and 7–10, and the raw body.
//!
//! ```text
//! command (no alignment between commands):
//!   +0x00 u32 command_word
//!           bits 0..7   opcode        (selects the fixed size)
//!           bit  8      enabled
//!           bits 9..31  data, preserved
//!   +0x04 body[size - 4]               raw; for opcodes 2,3,4,5,7,8,9,10 it starts
//!                                      with FxResourceRef64 (archive[32] name[32])
//!
//! opcode   1    2    3    4    5   6    7    8    9    10
//! size   224  148  200  204  112   4  208  248  208   208   (bytes, word included)
//! ```
//!
//! Only the word, the enabled bit and the resource reference are typed; the rest of
//! each body stays raw (project decision 7: no field-level body semantics are
//! confirmed). [`Command::u32_at`] and friends read and write body bytes by offset.

use crate::error::FxidError;
use crate::name::{RESOURCE_REF_LEN, ResourceRef};

/// Size of the command word.
pub const COMMAND_WORD_LEN: usize = 4;

/// Bit of the command word that marks the command enabled.
pub const ENABLED_BIT: u32 = 1 << 8;

/// The ten known opcodes. The opcode only selects the command size; the roles in the
/// variant docs are observations, not confirmed semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Opcode {
    /// Opcode 1, 224 bytes, no resource (updates a point light in the lightning effect).
    Op1 = 1,
    /// Opcode 2, 148 bytes, resource (usually a sound).
    Op2 = 2,
    /// Opcode 3, 200 bytes, resource (the lightning visual; the most frequent).
    Op3 = 3,
    /// Opcode 4, 204 bytes, resource.
    Op4 = 4,
    /// Opcode 5, 112 bytes, resource.
    Op5 = 5,
    /// Opcode 6, 4 bytes (word only), no resource; absent from every corpus (code-only).
    Op6 = 6,
    /// Opcode 7, 208 bytes, resource.
    Op7 = 7,
    /// Opcode 8, 248 bytes, resource.
    Op8 = 8,
    /// Opcode 9, 208 bytes, resource.
    Op9 = 9,
    /// Opcode 10, 208 bytes, resource.
    Op10 = 10,
}

impl Opcode {
    /// Every opcode in numeric order.
    pub const ALL: [Opcode; 10] = [
        Opcode::Op1,
        Opcode::Op2,
        Opcode::Op3,
        Opcode::Op4,
        Opcode::Op5,
        Opcode::Op6,
        Opcode::Op7,
        Opcode::Op8,
        Opcode::Op9,
        Opcode::Op10,
    ];

    /// The opcode for a byte, or `None` when the byte has no known size.
    pub const fn from_u8(byte: u8) -> Option<Opcode> {
        Some(match byte {
            1 => Opcode::Op1,
            2 => Opcode::Op2,
            3 => Opcode::Op3,
            4 => Opcode::Op4,
            5 => Opcode::Op5,
            6 => Opcode::Op6,
            7 => Opcode::Op7,
            8 => Opcode::Op8,
            9 => Opcode::Op9,
            10 => Opcode::Op10,
            _ => return None,
        })
    }

    /// The opcode byte.
    pub const fn as_u8(self) -> u8 {
        self as u8
    }

    /// The command size in bytes, command word included.
    pub const fn size(self) -> usize {
        match self {
            Opcode::Op1 => 224,
            Opcode::Op2 => 148,
            Opcode::Op3 => 200,
            Opcode::Op4 => 204,
            Opcode::Op5 => 112,
            Opcode::Op6 => 4,
            Opcode::Op7 | Opcode::Op9 | Opcode::Op10 => 208,
            Opcode::Op8 => 248,
        }
    }

    /// The body size (command size minus the word).
    pub const fn body_len(self) -> usize {
        self.size() - COMMAND_WORD_LEN
    }

    /// Whether the body starts with a 64-byte resource reference.
    pub const fn has_resource_ref(self) -> bool {
        !matches!(self, Opcode::Op1 | Opcode::Op6)
    }
}

/// One command: its word and its fixed-size body, kept byte for byte.
///
/// Invariant: the word's low byte is a known [`Opcode`] and `body.len()` equals its
/// [`Opcode::body_len`]; every constructor checks it and no method can break it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Command {
    word: u32,
    body: Vec<u8>,
}

impl Command {
    /// A new command: enabled, data bits zero, body all zero.
    pub fn new(opcode: Opcode) -> Self {
        Self {
            word: u32::from(opcode.as_u8()) | ENABLED_BIT,
            body: vec![0; opcode.body_len()],
        }
    }

    /// A new enabled command whose body starts with an authored resource reference
    /// (the rest of the body zero). Fails for opcodes 1 and 6 and for names that do not
    /// fit their field.
    pub fn with_resource(opcode: Opcode, archive: &[u8], name: &[u8]) -> Result<Self, FxidError> {
        let resource = ResourceRef::new(archive, name)?;
        let mut command = Self::new(opcode);
        command.set_resource(&resource)?;
        Ok(command)
    }

    /// Assembles a command from a stored word and body; the word's opcode must be known
    /// and the body must have its exact size.
    pub fn from_parts(word: u32, body: Vec<u8>) -> Result<Self, FxidError> {
        let byte = (word & 0xFF) as u8;
        let opcode = Opcode::from_u8(byte).ok_or(FxidError::NotAnOpcode { opcode: byte, word })?;
        if body.len() != opcode.body_len() {
            return Err(FxidError::BodySize {
                opcode: byte,
                expected: opcode.body_len(),
                found: body.len(),
            });
        }
        Ok(Self { word, body })
    }

    /// The raw command word.
    pub const fn word(&self) -> u32 {
        self.word
    }

    /// The opcode (low byte of the word).
    pub fn opcode(&self) -> Opcode {
        // The invariant guarantees a known opcode; `Op6` is an unreachable fallback that
        // avoids a panic path.
        Opcode::from_u8((self.word & 0xFF) as u8).unwrap_or(Opcode::Op6)
    }

    /// Whether bit 8 of the word is set.
    pub const fn enabled(&self) -> bool {
        self.word & ENABLED_BIT != 0
    }

    /// Sets or clears bit 8, keeping every other bit.
    pub fn set_enabled(&mut self, enabled: bool) {
        if enabled {
            self.word |= ENABLED_BIT;
        } else {
            self.word &= !ENABLED_BIT;
        }
    }

    /// Bits 9..31 of the word, shifted down (preserved data, meaning open).
    pub const fn data_bits(&self) -> u32 {
        self.word >> 9
    }

    /// Replaces bits 9..31 of the word (only the low 23 bits of `bits` are used).
    pub fn set_data_bits(&mut self, bits: u32) {
        self.word = (self.word & 0x1FF) | (bits << 9);
    }

    /// The body after the word, exactly as stored.
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// The body for in-place edits (its length is fixed by the opcode).
    pub fn body_mut(&mut self) -> &mut [u8] {
        &mut self.body
    }

    /// The size of the whole command, word included.
    pub fn size(&self) -> usize {
        COMMAND_WORD_LEN + self.body.len()
    }

    /// The resource reference at the start of the body, for opcodes that have one.
    pub fn resource(&self) -> Option<ResourceRef> {
        if !self.opcode().has_resource_ref() {
            return None;
        }
        let bytes: &[u8; RESOURCE_REF_LEN] = self.body.get(..RESOURCE_REF_LEN)?.try_into().ok()?;
        Some(ResourceRef::from_raw(bytes))
    }

    /// Overwrites the body's first 64 bytes with `resource` (all 64 bytes, tails too).
    pub fn set_resource(&mut self, resource: &ResourceRef) -> Result<(), FxidError> {
        let opcode = self.opcode();
        match self.body.get_mut(..RESOURCE_REF_LEN) {
            Some(slot) if opcode.has_resource_ref() => {
                slot.copy_from_slice(&resource.to_raw());
                Ok(())
            }
            _ => Err(FxidError::NoResourceRef {
                opcode: opcode.as_u8(),
            }),
        }
    }

    fn field<const N: usize>(&self, offset: usize) -> Result<[u8; N], FxidError> {
        offset
            .checked_add(N)
            .and_then(|end| self.body.get(offset..end))
            .and_then(|s| s.try_into().ok())
            .ok_or(self.field_error(offset, N))
    }

    fn field_mut(&mut self, offset: usize, bytes: &[u8]) -> Result<(), FxidError> {
        let err = self.field_error(offset, bytes.len());
        let slot = offset
            .checked_add(bytes.len())
            .and_then(|end| self.body.get_mut(offset..end))
            .ok_or(err)?;
        slot.copy_from_slice(bytes);
        Ok(())
    }

    fn field_error(&self, offset: usize, width: usize) -> FxidError {
        FxidError::BodyField {
            opcode: self.opcode().as_u8(),
            offset,
            width,
            body_len: self.body.len(),
        }
    }

    /// Reads a little-endian `u32` at a body offset (the word is not counted).
    pub fn u32_at(&self, offset: usize) -> Result<u32, FxidError> {
        self.field::<4>(offset).map(u32::from_le_bytes)
    }

    /// Reads an `f32` at a body offset, bits unchanged.
    pub fn f32_at(&self, offset: usize) -> Result<f32, FxidError> {
        self.u32_at(offset).map(f32::from_bits)
    }

    /// Writes a little-endian `u32` at a body offset.
    pub fn set_u32_at(&mut self, offset: usize, value: u32) -> Result<(), FxidError> {
        self.field_mut(offset, &value.to_le_bytes())
    }

    /// Writes an `f32` at a body offset (its bits, unchanged).
    pub fn set_f32_at(&mut self, offset: usize, value: f32) -> Result<(), FxidError> {
        self.set_u32_at(offset, value.to_bits())
    }

    /// Copies `bytes` into the body at `offset`.
    pub fn set_bytes_at(&mut self, offset: usize, bytes: &[u8]) -> Result<(), FxidError> {
        self.field_mut(offset, bytes)
    }

    /// Appends the command's bytes (word, then body) to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.word.to_le_bytes());
        out.extend_from_slice(&self.body);
    }
}
