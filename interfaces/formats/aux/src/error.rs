//! The crate's single error type, [`AuxError`], with format, record, field and offset context.

use std::fmt;

/// Which auxiliary format an error belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// CTPT / `*.cpt` control points.
    Ctpt,
    /// NDPR / `*.ndp` provider rows.
    Ndpr,
    /// EXPL (versions 1–3).
    Expl,
    /// Reference arrays.
    RefArray,
    /// SUND system-object parameters.
    Sund,
    /// CTLD / `*.ctl` control description.
    Ctld,
    /// BASE / `*.bas` structure base.
    Base,
    /// SWAV (RIFF/WAVE sound).
    Swav,
    /// Compiled script `*.scr`.
    Scr,
    /// `varset.var` declarations.
    Varset,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Format::Ctpt => "CTPT",
            Format::Ndpr => "NDPR",
            Format::Expl => "EXPL",
            Format::RefArray => "ReferenceArray",
            Format::Sund => "SUND",
            Format::Ctld => "CTLD",
            Format::Base => "BASE",
            Format::Swav => "SWAV",
            Format::Scr => "SCR",
            Format::Varset => "varset",
        };
        f.write_str(s)
    }
}

/// Index of the record an error refers to (`None` = file level).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Record(pub Option<usize>);

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(i) => write!(f, " record {i}"),
            None => Ok(()),
        }
    }
}

/// Every error this crate reports. Each variant names the format, the record (if any),
/// the field and the byte offset where the check failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuxError {
    /// Fewer bytes remain than a field or table needs (checked before any allocation).
    #[error(
        "{format}{record}: field `{field}` at offset {offset} needs {need} bytes, {have} remain"
    )]
    Truncated {
        /// Format being read.
        format: Format,
        /// Record index, if inside a record.
        record: Record,
        /// Field being read.
        field: &'static str,
        /// Byte offset of the field.
        offset: usize,
        /// Bytes needed.
        need: u64,
        /// Bytes remaining.
        have: u64,
    },
    /// A count × size or offset computation overflowed.
    #[error("{format}{record}: size of `{field}` at offset {offset} overflows")]
    Overflow {
        /// Format being read.
        format: Format,
        /// Record index, if inside a record.
        record: Record,
        /// Field whose size overflowed.
        field: &'static str,
        /// Byte offset of the count.
        offset: usize,
    },
    /// Bytes remain after the last structure of a format that must end exactly.
    #[error("{format}: {found} trailing bytes after offset {offset}, expected exact end")]
    TrailingBytes {
        /// Format being read.
        format: Format,
        /// Offset where the structure ended.
        offset: usize,
        /// Number of bytes left over.
        found: usize,
    },
    /// A field holds a value the format forbids.
    #[error(
        "{format}{record}: field `{field}` at offset {offset}: expected {expected}, found {found}"
    )]
    Invalid {
        /// Format being read.
        format: Format,
        /// Record index, if inside a record.
        record: Record,
        /// Field that failed.
        field: &'static str,
        /// Byte offset of the field.
        offset: usize,
        /// What the format requires.
        expected: &'static str,
        /// What the bytes hold.
        found: String,
    },
    /// An authoring constructor got arguments that cannot be written.
    #[error("{format}: cannot author `{field}`: {reason}")]
    Authoring {
        /// Format being authored.
        format: Format,
        /// Offending argument.
        field: &'static str,
        /// Why it was refused.
        reason: &'static str,
    },
}

impl AuxError {
    /// The format the error belongs to.
    pub fn format(&self) -> Format {
        match self {
            AuxError::Truncated { format, .. }
            | AuxError::Overflow { format, .. }
            | AuxError::TrailingBytes { format, .. }
            | AuxError::Invalid { format, .. }
            | AuxError::Authoring { format, .. } => *format,
        }
    }

    /// The byte offset where the check failed (`None` for an authoring error).
    pub fn offset(&self) -> Option<u64> {
        match self {
            AuxError::Truncated { offset, .. }
            | AuxError::Overflow { offset, .. }
            | AuxError::TrailingBytes { offset, .. }
            | AuxError::Invalid { offset, .. } => Some(*offset as u64),
            AuxError::Authoring { .. } => None,
        }
    }

    /// The field named by the error.
    pub fn field(&self) -> &'static str {
        match self {
            AuxError::Truncated { field, .. }
            | AuxError::Overflow { field, .. }
            | AuxError::Invalid { field, .. }
            | AuxError::Authoring { field, .. } => field,
            AuxError::TrailingBytes { .. } => "<end>",
        }
    }
}
