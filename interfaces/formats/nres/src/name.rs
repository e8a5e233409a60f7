//! Names: the fixed 36-byte name field (value up to NUL, tail preserved), the ASCII case
//! fold used for lookup and `sort_index` order, and validation of newly authored names.

use crate::error::{NameProblem, NresError};
use crate::raw::NAME_FIELD_SIZE;
use std::cmp::Ordering;

/// Longest authored name: the field must keep one byte for the NUL terminator.
pub const MAX_NAME_LEN: usize = NAME_FIELD_SIZE - 1;

/// Folds one byte for comparison: only `a..=z` become `A..=Z`; every other byte,
/// including all bytes `>= 0x80`, is returned unchanged (FORMATS §1.5, upper-case fold).
pub const fn fold(byte: u8) -> u8 {
    byte.to_ascii_uppercase()
}

/// Orders two names the way the `sort_index` table does: byte-wise on the folded bytes,
/// unsigned, a shorter prefix first.
pub fn cmp_names(a: &[u8], b: &[u8]) -> Ordering {
    a.iter().map(|&x| fold(x)).cmp(b.iter().map(|&x| fold(x)))
}

/// ASCII-case-insensitive equality (`A..Z` ↔ `a..z` only, no other folding).
pub fn names_equal(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// The name value of a field: its bytes before the first NUL, or the whole field if it
/// has none.
pub fn field_value(field: &[u8; NAME_FIELD_SIZE]) -> &[u8] {
    match field.iter().position(|&b| b == 0) {
        Some(nul) => &field[..nul],
        None => field,
    }
}

/// A name field that the strict reader accepts: it holds a NUL and a non-empty value.
///
/// Built either from an authored name (`name + NUL + zero fill`) or from an existing
/// field, whose tail after the NUL is then kept byte for byte.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct NameField {
    bytes: [u8; NAME_FIELD_SIZE],
}

impl NameField {
    /// Authors a new field: 1..=35 bytes without NUL, then NUL and zero fill.
    pub fn new(name: &[u8]) -> Result<Self, NresError> {
        let problem = if name.is_empty() {
            Some(NameProblem::Empty)
        } else if let Some(position) = name.iter().position(|&b| b == 0) {
            Some(NameProblem::ContainsNul { position })
        } else if name.len() > MAX_NAME_LEN {
            Some(NameProblem::TooLong { len: name.len() })
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(NresError::InvalidName {
                name: name.to_vec(),
                problem,
            });
        }
        let mut bytes = [0u8; NAME_FIELD_SIZE];
        bytes[..name.len()].copy_from_slice(name);
        Ok(Self { bytes })
    }

    /// Keeps an existing 36-byte field (tail included) if it holds a NUL and a non-empty
    /// value.
    pub fn from_raw(field: [u8; NAME_FIELD_SIZE]) -> Result<Self, NresError> {
        match field.iter().position(|&b| b == 0) {
            None => Err(NresError::InvalidName {
                name: field.to_vec(),
                problem: NameProblem::NoNulInField,
            }),
            Some(0) => Err(NresError::InvalidName {
                name: Vec::new(),
                problem: NameProblem::Empty,
            }),
            Some(_) => Ok(Self { bytes: field }),
        }
    }

    /// Wraps a field the reader has already validated (NUL present, value non-empty).
    pub(crate) const fn from_validated(bytes: [u8; NAME_FIELD_SIZE]) -> Self {
        Self { bytes }
    }

    /// The 36 bytes to store.
    pub const fn as_bytes(&self) -> &[u8; NAME_FIELD_SIZE] {
        &self.bytes
    }

    /// The name value (before the NUL).
    pub fn value(&self) -> &[u8] {
        field_value(&self.bytes)
    }

    /// The bytes after the NUL terminator (preserved data, usually zeros).
    pub fn tail(&self) -> &[u8] {
        let len = self.value().len();
        self.bytes.get(len + 1..).unwrap_or(&[])
    }
}

impl std::fmt::Debug for NameField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NameField(\"{}\"", self.value().escape_ascii())?;
        if self.tail().iter().any(|&b| b != 0) {
            write!(f, ", tail \"{}\"", self.tail().escape_ascii())?;
        }
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_is_upper_case_ascii_only() {
        assert_eq!(fold(b'a'), b'A');
        assert_eq!(fold(b'_'), b'_');
        assert_eq!(fold(0xE0), 0xE0, "bytes >= 0x80 compare exactly");
        // The upper fold puts '_' (0x5F) after letters; a lower fold would not.
        assert_eq!(
            cmp_names(b"a_", b"ab"),
            Ordering::Greater,
            "'_' > 'B' after folding"
        );
        assert_eq!(cmp_names(b"_", b"z"), Ordering::Greater);
        assert_eq!(cmp_names(b"AB", b"ab"), Ordering::Equal);
        assert_eq!(
            cmp_names(b"ab", b"ABC"),
            Ordering::Less,
            "shorter prefix first"
        );
        assert!(names_equal(b"Foo.TEX", b"fOO.tex"));
        assert!(!names_equal(&[0xC0], &[0xE0]), "no CP1251 folding");
    }

    #[test]
    fn authored_names_are_validated_and_zero_filled() {
        let f = NameField::new(b"ABC").unwrap();
        assert_eq!(f.value(), b"ABC");
        assert_eq!(&f.as_bytes()[3..], &[0; 33]);
        assert!(NameField::new(&[b'x'; MAX_NAME_LEN]).is_ok());
        let too_long = NameField::new(&[b'x'; MAX_NAME_LEN + 1]).unwrap_err();
        assert!(matches!(
            too_long,
            NresError::InvalidName {
                problem: NameProblem::TooLong { len: 36 },
                ..
            }
        ));
        assert!(matches!(
            NameField::new(b"a\0b").unwrap_err(),
            NresError::InvalidName {
                problem: NameProblem::ContainsNul { position: 1 },
                ..
            }
        ));
        assert!(matches!(
            NameField::new(b"").unwrap_err(),
            NresError::InvalidName {
                problem: NameProblem::Empty,
                ..
            }
        ));
    }

    #[test]
    fn raw_fields_keep_their_tail() {
        let mut raw = [0xEEu8; NAME_FIELD_SIZE];
        raw[..3].copy_from_slice(b"AB\0");
        let f = NameField::from_raw(raw).unwrap();
        assert_eq!(f.value(), b"AB");
        assert_eq!(f.tail(), &[0xEE; 33]);
        assert!(NameField::from_raw([b'x'; NAME_FIELD_SIZE]).is_err());
        assert!(NameField::from_raw([0; NAME_FIELD_SIZE]).is_err());
    }
}
