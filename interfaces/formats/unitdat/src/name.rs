//! Fixed 32-byte ASCII fields (value up to the first NUL, tail kept as data), the ASCII
//! case rules of FORMATS §1.5, and validation of newly authored names.

use crate::error::{Field, NameProblem, UnitDatError};
use std::fmt;

/// Size of every fixed string field of this crate (unit DAT archive/resource/description,
/// `ObjectRef64` archive/resource).
pub const NAME_FIELD_LEN: usize = 32;

/// Longest authored NUL-terminated name: the field keeps one byte for the NUL.
pub const MAX_NAME_LEN: usize = NAME_FIELD_LEN - 1;

/// ASCII-case-insensitive equality: only `A..Z` ↔ `a..z` fold; bytes `>= 0x80` and all
/// other bytes compare exactly (FORMATS §1.5, confirmed).
pub fn names_equal(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// Whether `name` ends with `suffix`, ignoring ASCII case (`.MSH` matches `.msh`).
pub fn ends_with_ignore_case(name: &[u8], suffix: &[u8]) -> bool {
    name.len() >= suffix.len() && names_equal(&name[name.len() - suffix.len()..], suffix)
}

/// Folds a name to upper-case ASCII for use as an ordered map key (the NRes fold
/// direction; equality does not depend on the direction).
pub fn fold_key(name: &[u8]) -> Vec<u8> {
    name.to_ascii_uppercase()
}

/// A fixed 32-byte string field kept exactly as stored.
///
/// The value ends at the first NUL, or is the whole field when it has none (valid for all
/// fields of this crate: FORMATS §1.3 requires a terminator for none of them). The bytes
/// after the NUL (the *tail*) are data: [`Name32::raw`] returns them unchanged and the
/// writers re-emit them. Only authored names ([`Name32::new`]) are `value + NUL + zero fill`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name32 {
    bytes: [u8; NAME_FIELD_LEN],
}

impl Name32 {
    /// An all-zero field (empty value, zero tail).
    pub const EMPTY: Name32 = Name32 {
        bytes: [0; NAME_FIELD_LEN],
    };

    /// Keeps an existing field byte for byte (any content is valid).
    pub const fn from_raw(bytes: [u8; NAME_FIELD_LEN]) -> Self {
        Self { bytes }
    }

    /// Authors a new field: `value` (0..=31 bytes, no NUL), then NUL and zero fill.
    pub fn new(value: &[u8]) -> Result<Self, UnitDatError> {
        Self::author(value, MAX_NAME_LEN)
    }

    /// Authors a new field that may use all 32 bytes: a 32-byte `value` is stored without
    /// terminator (valid for a unit DAT description, FORMATS §1.3); shorter values get a
    /// NUL and zero fill as with [`Name32::new`].
    pub fn new_bounded(value: &[u8]) -> Result<Self, UnitDatError> {
        Self::author(value, NAME_FIELD_LEN)
    }

    fn author(value: &[u8], max: usize) -> Result<Self, UnitDatError> {
        let problem = if let Some(position) = value.iter().position(|&b| b == 0) {
            Some(NameProblem::ContainsNul { position })
        } else if value.len() > max {
            Some(NameProblem::TooLong {
                len: value.len(),
                max,
            })
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(UnitDatError::InvalidName {
                field: None,
                name: value.to_vec(),
                problem,
            });
        }
        let mut bytes = [0u8; NAME_FIELD_LEN];
        bytes[..value.len()].copy_from_slice(value);
        Ok(Self { bytes })
    }

    /// Like [`Name32::new`], naming `field` in the error.
    pub(crate) fn new_for(field: Field, value: &[u8]) -> Result<Self, UnitDatError> {
        Self::new(value).map_err(|e| e.with_field(field))
    }

    /// The 32 stored bytes, tail included.
    pub const fn raw(&self) -> &[u8; NAME_FIELD_LEN] {
        &self.bytes
    }

    /// The value: the bytes before the first NUL, or all 32 bytes when there is none.
    pub fn value(&self) -> &[u8] {
        match self.nul_position() {
            Some(nul) => &self.bytes[..nul],
            None => &self.bytes,
        }
    }

    /// Position of the first NUL, if the field has one.
    pub fn nul_position(&self) -> Option<usize> {
        self.bytes.iter().position(|&b| b == 0)
    }

    /// Whether the field has a NUL terminator.
    pub fn has_nul(&self) -> bool {
        self.nul_position().is_some()
    }

    /// The bytes after the terminator (empty when the field has no NUL).
    pub fn tail(&self) -> &[u8] {
        match self.nul_position() {
            Some(nul) => &self.bytes[nul + 1..],
            None => &[],
        }
    }

    /// Whether the tail holds any non-zero byte (5 205 of the 5 219 demo unit DAT name
    /// fields do; FORMATS §1.3).
    pub fn has_nonzero_tail(&self) -> bool {
        self.tail().iter().any(|&b| b != 0)
    }

    /// ASCII-case-insensitive comparison of the value with `other`.
    pub fn value_eq_ignore_case(&self, other: &[u8]) -> bool {
        names_equal(self.value(), other)
    }

    /// Replaces the value by an authored one, **keeping no tail** (`value + NUL + zero
    /// fill`). Use [`Name32::from_raw`] to keep specific bytes.
    pub fn set(&mut self, value: &[u8]) -> Result<(), UnitDatError> {
        *self = Self::new(value)?;
        Ok(())
    }
}

impl Default for Name32 {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl fmt::Debug for Name32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.value().escape_ascii())?;
        if !self.has_nul() {
            f.write_str(" (no NUL)")?;
        } else if self.has_nonzero_tail() {
            write!(f, " tail \"{}\"", self.tail().escape_ascii())?;
        }
        Ok(())
    }
}

impl fmt::Display for Name32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value().escape_ascii())
    }
}

/// Reads `N` bytes at `at`, or `None` when they are not all inside `bytes` (checked
/// arithmetic; the bounded-cursor primitive of this crate).
pub(crate) fn array_at<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    let end = at.checked_add(N)?;
    bytes.get(at..end)?.try_into().ok()
}
