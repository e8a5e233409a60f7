//! The crate's one error type: every read error names the byte offset in the input and,
//! inside the command stream, the command index and opcode; authoring and resolution
//! errors name the field, the command and the expected versus found value.

use crate::name::RefField;

/// Why an authored name was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameProblem {
    /// The value is longer than the field allows (`max` useful bytes).
    TooLong {
        /// Length of the offered value.
        len: usize,
        /// Longest value the field accepts.
        max: usize,
    },
    /// The value holds a NUL byte at `position` (the NUL is the terminator, not data).
    ContainsNul {
        /// Index of the first NUL in the offered value.
        position: usize,
    },
}

impl std::fmt::Display for NameProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NameProblem::TooLong { len, max } => write!(f, "{len} bytes, at most {max} fit"),
            NameProblem::ContainsNul { position } => write!(f, "NUL at byte {position}"),
        }
    }
}

/// Every failure of this crate: strict reading, authoring and resource resolution.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FxidError {
    /// The input is shorter than the 60-byte header.
    #[error("[header_size] FXID header needs {expected} bytes, found {found} at offset 0")]
    TruncatedHeader {
        /// Bytes the header needs (60).
        expected: usize,
        /// Bytes in the input.
        found: usize,
    },
    /// `command_count` cannot fit: even at the smallest command size (4 bytes) the
    /// declared commands need more bytes than follow the header (checked before any
    /// allocation).
    #[error(
        "[command_count] {declared} commands need at least {min_bytes} bytes after offset \
         0x3C, found {found}"
    )]
    ImplausibleCount {
        /// The header's `command_count`.
        declared: u32,
        /// `declared * 4`, the least the stream could take.
        min_bytes: u64,
        /// Bytes after the header.
        found: usize,
    },
    /// Fewer than 4 bytes remain where the next command word should start.
    #[error(
        "[command_word] command {index} at offset {offset:#x}: needs a 4-byte word, \
         found {found} bytes"
    )]
    TruncatedCommandWord {
        /// Command index (0-based, disk order).
        index: u32,
        /// Byte offset of the command in the input.
        offset: usize,
        /// Bytes left in the input.
        found: usize,
    },
    /// The opcode (low byte of the command word) has no known size (FORMATS §10.3): the
    /// stream cannot be followed past it.
    #[error(
        "[opcode] command {index} at offset {offset:#x}: unknown opcode {opcode} \
         (command word {word:#010x})"
    )]
    UnknownOpcode {
        /// Command index (0-based, disk order).
        index: u32,
        /// The low byte of the command word.
        opcode: u8,
        /// The whole command word.
        word: u32,
        /// Byte offset of the command in the input.
        offset: usize,
    },
    /// A command's fixed size runs past the end of the payload.
    #[error(
        "[command_size] command {index} (opcode {opcode}) at offset {offset:#x}: needs \
         {expected} bytes, found {found}"
    )]
    CommandOverrun {
        /// Command index (0-based, disk order).
        index: u32,
        /// The command's opcode.
        opcode: u8,
        /// Byte offset of the command in the input.
        offset: usize,
        /// The opcode's size including the word.
        expected: usize,
        /// Bytes left in the input from `offset`.
        found: usize,
    },
    /// Bytes remain after the last declared command (the stream must end exactly at the
    /// payload end).
    #[error("[exact_end] {trailing} trailing bytes at offset {offset:#x} after {count} commands")]
    TrailingBytes {
        /// The header's `command_count`.
        count: u32,
        /// Where the stream ended.
        offset: usize,
        /// Bytes left after it.
        trailing: usize,
    },
    /// An authored name does not fit its 32-byte field.
    #[error("[new_name] {field} {name:?}: {problem}")]
    InvalidName {
        /// Which field of the resource reference.
        field: RefField,
        /// The offered value (lossy text view).
        name: String,
        /// What is wrong with it.
        problem: NameProblem,
    },
    /// A command was assembled from a word whose low byte is not a known opcode.
    #[error("[opcode] command word {word:#010x}: unknown opcode {opcode}")]
    NotAnOpcode {
        /// The low byte of the word.
        opcode: u8,
        /// The whole word.
        word: u32,
    },
    /// A resource reference was requested for an opcode that has none (1 and 6).
    #[error("[resource_ref] opcode {opcode} carries no resource reference")]
    NoResourceRef {
        /// The opcode.
        opcode: u8,
    },
    /// A command was assembled from a word and body whose length does not match the
    /// opcode's fixed size.
    #[error("[body_size] opcode {opcode}: body must be {expected} bytes, found {found}")]
    BodySize {
        /// The opcode.
        opcode: u8,
        /// Body bytes the opcode requires (size minus the 4-byte word).
        expected: usize,
        /// Body bytes offered.
        found: usize,
    },
    /// A raw body field access falls outside the body.
    #[error(
        "[body_field] opcode {opcode}: {width}-byte field at body offset {offset:#x} \
         outside the {body_len}-byte body"
    )]
    BodyField {
        /// The opcode.
        opcode: u8,
        /// Body offset asked for (the word is not part of the body).
        offset: usize,
        /// Field width in bytes.
        width: usize,
        /// Body length.
        body_len: usize,
    },
    /// More commands than `command_count` (a `u32`) can declare.
    #[error("[command_count] {count} commands do not fit a u32 count")]
    TooManyCommands {
        /// Number of commands in the model.
        count: usize,
    },
    /// A command's resource reference did not resolve (FORMATS §10.3: the error names
    /// the effect, the command number, the archive and the resource).
    #[error(
        "[resource_missing] effect {effect:?} command {index} (opcode {opcode}): \
         {archive:?} / {name:?} not found"
    )]
    UnresolvedResource {
        /// The effect's name as given by the caller.
        effect: String,
        /// Command index (0-based, disk order).
        index: u32,
        /// The command's opcode.
        opcode: u8,
        /// Archive value (before the NUL, lossy text view).
        archive: String,
        /// Resource value (before the NUL, lossy text view).
        name: String,
    },
}

impl FxidError {
    /// The byte offset in the input the error points at, for read errors.
    pub fn offset(&self) -> Option<usize> {
        match self {
            FxidError::TruncatedHeader { .. } => Some(0),
            FxidError::ImplausibleCount { .. } => Some(0),
            FxidError::TruncatedCommandWord { offset, .. }
            | FxidError::UnknownOpcode { offset, .. }
            | FxidError::CommandOverrun { offset, .. }
            | FxidError::TrailingBytes { offset, .. } => Some(*offset),
            _ => None,
        }
    }

    /// The command index the error names, where it names one.
    pub fn command_index(&self) -> Option<u32> {
        match self {
            FxidError::TruncatedCommandWord { index, .. }
            | FxidError::UnknownOpcode { index, .. }
            | FxidError::CommandOverrun { index, .. }
            | FxidError::UnresolvedResource { index, .. } => Some(*index),
            _ => None,
        }
    }
}
