//! The configuration error type: file, line, column and what is wrong.

use thiserror::Error;

/// A structural error in a configuration file.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{origin}:{line}:{column}: {message}")]
pub struct ConfigError {
    origin: String,
    line: usize,
    column: usize,
    message: String,
}

impl ConfigError {
    /// An error at 1-based `line` and `column` of `origin`.
    pub fn at(origin: &str, line: usize, column: usize, message: String) -> Self {
        Self {
            origin: origin.to_owned(),
            line,
            column,
            message,
        }
    }

    /// The file.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// 1-based line.
    pub fn line(&self) -> usize {
        self.line
    }

    /// 1-based column (bytes).
    pub fn column(&self) -> usize {
        self.column
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}
