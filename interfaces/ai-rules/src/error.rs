//! The crate's one error type.

/// What went wrong in the AI rules.
#[derive(Debug, thiserror::Error)]
pub enum AiError {
    /// A getter answered NaN or an infinity.
    #[error("distributor row {key}: {what} is not finite ({value})")]
    NotFinite {
        /// The row's object key.
        key: u32,
        /// Which value.
        what: &'static str,
        /// The value.
        value: f32,
    },
    /// A getter answered a negative amount.
    #[error("distributor row {key}: {what} is negative ({value})")]
    Negative {
        /// The row's object key.
        key: u32,
        /// Which value.
        what: &'static str,
        /// The value.
        value: f32,
    },
    /// The ledger (the objects behind the rows) failed.
    #[error("distributor row {key}: {operation} failed")]
    Ledger {
        /// The row's object key.
        key: u32,
        /// `read` or `apply`.
        operation: &'static str,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A condition's list index equals the list's length: the original passes the
    /// first bounds check and then raises a C++ exception on the access.
    #[error("condition record {record}: list index {index} equals the list length")]
    IndexEqualsLength {
        /// The condition record.
        record: usize,
        /// The index (= length).
        index: u32,
    },
    /// `Behavior.ini` does not parse.
    #[error("{file}: does not parse")]
    Config {
        /// The file.
        file: String,
        /// Why.
        #[source]
        source: iron3d_config::ConfigError,
    },
    /// A `Behavior.ini` value is not a number of the key's kind.
    #[error("{file} line {line}: {key} = {raw:?} is not {expected}")]
    BadValue {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// The key.
        key: &'static str,
        /// The raw value.
        raw: String,
        /// What it should be.
        expected: &'static str,
    },
    /// A clan's script package is broken (its `.scr` or `.var` does not parse).
    #[error("clan {clan} ({name}): {file} does not parse")]
    Package {
        /// The clan's index.
        clan: usize,
        /// The clan's name (lossy text).
        name: String,
        /// The file.
        file: String,
        /// Why.
        #[source]
        source: Box<iron3d_aux::AuxError>,
    },
    /// The saved state does not decode.
    #[error("AI state: {0}")]
    State(#[source] postcard::Error),
}
