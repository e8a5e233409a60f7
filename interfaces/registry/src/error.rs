//! The registry's error type (hard errors, located by origin, line and column) and its
//! diagnostics (soft findings such as unknown keys).

use std::fmt;
use thiserror::Error;

/// Which token of an entry line an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenRole {
    /// The first token: a CID or a slot name.
    Key,
    /// The second token: the plugin library.
    Library,
    /// The third token: the factory symbol.
    Factory,
    /// The text after the factory (a comment).
    Comment,
}

impl fmt::Display for TokenRole {
    /// Writes the lower-case role name (`key`, `library`, `factory`, `comment`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TokenRole::Key => "key",
            TokenRole::Library => "library",
            TokenRole::Factory => "factory",
            TokenRole::Comment => "comment",
        })
    }
}

/// A registry that cannot be used. Every variant names the origin (the file name the caller
/// passed), the 1-based line and the 1-based byte column (a tab counts as one column).
/// Token texts quoted here are always printable ASCII.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RegistryError {
    /// A line is longer than [`crate::MAX_LINE_LEN`] bytes (line ending not counted); the
    /// column is the first byte past the limit.
    #[error(
        "{origin}:{line}:{column}: line is {len} bytes long, more than the limit of {max} bytes"
    )]
    LineTooLong {
        /// File name given by the caller.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column of the first byte past the limit.
        column: usize,
        /// Length of the line in bytes, without its line ending.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// An entry line has a key but no library token; the column is just past the key.
    #[error("{origin}:{line}:{column}: missing library after key `{key}`")]
    MissingLibrary {
        /// File name given by the caller.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column where the library was expected.
        column: usize,
        /// The key of the line.
        key: String,
    },
    /// An entry line has a key and a library but no factory token; the column is just past
    /// the library.
    #[error("{origin}:{line}:{column}: missing factory after library `{library}`")]
    MissingFactory {
        /// File name given by the caller.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column where the factory was expected.
        column: usize,
        /// The library of the line.
        library: String,
    },
    /// A token holds a byte that is not printable ASCII (`0x21..=0x7E`): a control byte,
    /// a lone CR, or a non-ASCII (e.g. CP1251) byte.
    #[error(
        "{origin}:{line}:{column}: {role} token holds byte 0x{byte:02X} at column {byte_column}; tokens must be printable ASCII"
    )]
    InvalidByte {
        /// File name given by the caller.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column of the token's first byte.
        column: usize,
        /// Which token.
        role: TokenRole,
        /// The offending byte.
        byte: u8,
        /// 1-based column of the offending byte itself.
        byte_column: usize,
    },
    /// A numeric key is not a CID 0–7.
    #[error("{origin}:{line}:{column}: CID `{key}` is out of range (valid CIDs are 0-7)")]
    CidOutOfRange {
        /// File name given by the caller.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column of the key.
        column: usize,
        /// The key as written.
        key: String,
    },
    /// In [`crate::Dialect::PluginsIni`], text after the factory that is not a `//` comment.
    #[error(
        "{origin}:{line}:{column}: unexpected text after the factory; plugins.ini allows only a `//` comment there"
    )]
    TrailingText {
        /// File name given by the caller.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column of the first unexpected byte.
        column: usize,
    },
    /// The same key appears on two lines.
    #[error("{origin}:{line}:{column}: duplicate key `{key}` (first defined on line {first_line})")]
    DuplicateKey {
        /// File name given by the caller.
        origin: String,
        /// 1-based line of the second definition.
        line: usize,
        /// 1-based column of the second definition's key.
        column: usize,
        /// The key as written on the second line.
        key: String,
        /// 1-based line of the first definition.
        first_line: usize,
    },
    /// The writer ([`crate::RegistryBuilder`]) was asked for a line it cannot emit so that
    /// it parses back to the same value; line and column are where it would have gone.
    #[error("{origin}:{line}:{column}: cannot write {role}: {reason}")]
    Unwritable {
        /// File name given to the builder.
        origin: String,
        /// 1-based line the entry would have had.
        line: usize,
        /// 1-based column the field would have had.
        column: usize,
        /// Which field.
        role: TokenRole,
        /// Why.
        reason: String,
    },
}

impl RegistryError {
    /// The origin (file name) given by the caller.
    #[must_use]
    pub fn origin(&self) -> &str {
        match self {
            RegistryError::LineTooLong { origin, .. }
            | RegistryError::MissingLibrary { origin, .. }
            | RegistryError::MissingFactory { origin, .. }
            | RegistryError::InvalidByte { origin, .. }
            | RegistryError::CidOutOfRange { origin, .. }
            | RegistryError::TrailingText { origin, .. }
            | RegistryError::DuplicateKey { origin, .. }
            | RegistryError::Unwritable { origin, .. } => origin,
        }
    }

    /// The 1-based line of the error.
    #[must_use]
    pub fn line(&self) -> usize {
        match self {
            RegistryError::LineTooLong { line, .. }
            | RegistryError::MissingLibrary { line, .. }
            | RegistryError::MissingFactory { line, .. }
            | RegistryError::InvalidByte { line, .. }
            | RegistryError::CidOutOfRange { line, .. }
            | RegistryError::TrailingText { line, .. }
            | RegistryError::DuplicateKey { line, .. }
            | RegistryError::Unwritable { line, .. } => *line,
        }
    }

    /// The 1-based byte column of the error.
    #[must_use]
    pub fn column(&self) -> usize {
        match self {
            RegistryError::LineTooLong { column, .. }
            | RegistryError::MissingLibrary { column, .. }
            | RegistryError::MissingFactory { column, .. }
            | RegistryError::InvalidByte { column, .. }
            | RegistryError::CidOutOfRange { column, .. }
            | RegistryError::TrailingText { column, .. }
            | RegistryError::DuplicateKey { column, .. }
            | RegistryError::Unwritable { column, .. } => *column,
        }
    }
}

/// A soft finding about a registry that still parsed, e.g. an unknown key. The entry it is
/// about stays in the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// 1-based line.
    pub line: usize,
    /// 1-based byte column.
    pub column: usize,
    /// Human-readable description (printable ASCII).
    pub message: String,
}

impl fmt::Display for Diagnostic {
    /// Writes `line:column: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}
