//! Fixed 32-byte ASCII fields and the 64-byte FXID resource reference (FORMATS §1.3,
//! §10.3): the value ends at the first NUL, the tail after it is data and is kept.
//!
//! ```text
//! FxResourceRef64 (command offset +0x04, body offset 0):
//!   +0x00 archive[32]   value up to first NUL, tail kept
//!   +0x20 name[32]      value up to first NUL, tail kept
//! ```

use crate::error::{FxidError, NameProblem};
use std::fmt;

/// Size of each fixed string field of a resource reference.
pub const NAME_FIELD_LEN: usize = 32;

/// Longest authored value: the field keeps one byte for the NUL.
pub const MAX_NAME_LEN: usize = NAME_FIELD_LEN - 1;

/// Size of a resource reference (`archive[32] + name[32]`).
pub const RESOURCE_REF_LEN: usize = 2 * NAME_FIELD_LEN;

/// Which field of a resource reference an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefField {
    /// `archive[32]`.
    Archive,
    /// `name[32]`.
    Name,
}

impl fmt::Display for RefField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RefField::Archive => "archive",
            RefField::Name => "name",
        })
    }
}

/// A fixed 32-byte string field kept exactly as stored.
///
/// The value ends at the first NUL, or is the whole field when it has none (FORMATS §1.3
/// does not require a terminator for FXID fields). The tail after the NUL is data:
/// [`Name32::raw`] returns it unchanged. Only [`Name32::new`] writes `value + NUL + zeros`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Name32 {
    bytes: [u8; NAME_FIELD_LEN],
}

impl Name32 {
    /// An all-zero field.
    pub const EMPTY: Name32 = Name32 {
        bytes: [0; NAME_FIELD_LEN],
    };

    /// Keeps an existing field byte for byte.
    pub const fn from_raw(bytes: [u8; NAME_FIELD_LEN]) -> Self {
        Self { bytes }
    }

    /// Authors a new field: `value` (at most 31 bytes, no NUL), then NUL and zero fill.
    pub fn new(value: &[u8], field: RefField) -> Result<Self, FxidError> {
        let problem = if let Some(position) = value.iter().position(|&b| b == 0) {
            Some(NameProblem::ContainsNul { position })
        } else if value.len() > MAX_NAME_LEN {
            Some(NameProblem::TooLong {
                len: value.len(),
                max: MAX_NAME_LEN,
            })
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(FxidError::InvalidName {
                field,
                name: String::from_utf8_lossy(value).into_owned(),
                problem,
            });
        }
        let mut bytes = [0; NAME_FIELD_LEN];
        bytes[..value.len()].copy_from_slice(value);
        Ok(Self { bytes })
    }

    /// The 32 stored bytes, tail included.
    pub const fn raw(&self) -> &[u8; NAME_FIELD_LEN] {
        &self.bytes
    }

    /// The value: bytes before the first NUL (all 32 when there is none).
    pub fn value(&self) -> &[u8] {
        let end = self
            .bytes
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(NAME_FIELD_LEN);
        &self.bytes[..end]
    }

    /// Bytes after the terminator (empty when there is no NUL).
    pub fn tail(&self) -> &[u8] {
        let v = self.value().len();
        self.bytes.get(v + 1..).unwrap_or(&[])
    }

    /// Whether the field has a NUL terminator.
    pub fn is_terminated(&self) -> bool {
        self.bytes.contains(&0)
    }

    /// ASCII-case-insensitive comparison of the value with `other` (FORMATS §1.5; bytes
    /// `>= 0x80` compare exactly; no white-space trimming).
    pub fn value_eq_ignore_case(&self, other: &[u8]) -> bool {
        self.value().eq_ignore_ascii_case(other)
    }
}

impl Default for Name32 {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl fmt::Debug for Name32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_tuple("Name32");
        d.field(&String::from_utf8_lossy(self.value()));
        if self.tail().iter().any(|&b| b != 0) {
            d.field(&format_args!("tail={:02x?}", self.tail()));
        }
        d.finish()
    }
}

/// A 64-byte resource reference (`archive[32]`, `name[32]`) as stored at the start of
/// the body of opcodes 2, 3, 4, 5, 7, 8, 9 and 10.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ResourceRef {
    /// The archive field (e.g. `sounds.lib`).
    pub archive: Name32,
    /// The resource field inside the archive.
    pub name: Name32,
}

impl ResourceRef {
    /// Authors a new reference (each value at most 31 bytes, no NUL).
    pub fn new(archive: &[u8], name: &[u8]) -> Result<Self, FxidError> {
        Ok(Self {
            archive: Name32::new(archive, RefField::Archive)?,
            name: Name32::new(name, RefField::Name)?,
        })
    }

    /// Reads the 64 bytes exactly as stored.
    pub fn from_raw(bytes: &[u8; RESOURCE_REF_LEN]) -> Self {
        let mut archive = [0; NAME_FIELD_LEN];
        let mut name = [0; NAME_FIELD_LEN];
        archive.copy_from_slice(&bytes[..NAME_FIELD_LEN]);
        name.copy_from_slice(&bytes[NAME_FIELD_LEN..]);
        Self {
            archive: Name32::from_raw(archive),
            name: Name32::from_raw(name),
        }
    }

    /// The 64 bytes as they are written.
    pub fn to_raw(&self) -> [u8; RESOURCE_REF_LEN] {
        let mut out = [0; RESOURCE_REF_LEN];
        out[..NAME_FIELD_LEN].copy_from_slice(self.archive.raw());
        out[NAME_FIELD_LEN..].copy_from_slice(self.name.raw());
        out
    }

    /// Whether both values equal the given ones, ASCII case ignored.
    pub fn matches(&self, archive: &[u8], name: &[u8]) -> bool {
        self.archive.value_eq_ignore_case(archive) && self.name.value_eq_ignore_case(name)
    }
}
