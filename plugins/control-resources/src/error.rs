//! The one error type of the crate ([`ControlError`]) and the caller-supplied load
//! context ([`LoadContext`]) that names unit, component and file.

use std::fmt;

/// Where a merge or load step happened, as far as the caller knows it. Every field is
/// optional; the [`fmt::Display`] form names only the fields that are set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadContext {
    /// The unit (for example the Unit DAT path `UNITS/BUILDS/MINE/min_l_n1.dat`).
    pub unit: Option<String>,
    /// The component (descriptor) name or index within the unit.
    pub component: Option<String>,
    /// The resource file (for example `fr_l_mine.ctl`).
    pub file: Option<String>,
}

impl LoadContext {
    /// An empty context (displays as `unknown context`).
    pub fn new() -> Self {
        Self::default()
    }

    /// The same context with the unit set.
    pub fn unit(mut self, unit: impl Into<String>) -> Self {
        self.unit = Some(unit.into());
        self
    }

    /// The same context with the component set.
    pub fn component(mut self, component: impl Into<String>) -> Self {
        self.component = Some(component.into());
        self
    }

    /// The same context with the file set.
    pub fn file(mut self, file: impl Into<String>) -> Self {
        self.file = Some(file.into());
        self
    }
}

impl fmt::Display for LoadContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(u) = &self.unit {
            parts.push(format!("unit `{u}`"));
        }
        if let Some(c) = &self.component {
            parts.push(format!("component `{c}`"));
        }
        if let Some(file) = &self.file {
            parts.push(format!("file `{file}`"));
        }
        if parts.is_empty() {
            f.write_str("unknown context")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// Every failure of this crate. No operation panics; an operation that returns an
/// error leaves its state unchanged (each mutating API documents this).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ControlError {
    /// The record's framing does not hold (truncated, a value count past the input —
    /// checked before anything is allocated —, a text without its NUL): the CTLD
    /// codec's error, whose offsets count from `offset`.
    #[error("device record at offset {offset:#x}")]
    Record {
        /// Absolute offset of the record in the input.
        offset: usize,
        /// What the record reader found.
        #[source]
        source: iron3d_aux::AuxError,
    },
    /// The factory tag is not read by the common record reader: *unsupported*, no data
    /// is fabricated (FORMATS §11.6).
    #[error("factory tag {tag} is unsupported by {operation}")]
    UnsupportedTag {
        /// The factory tag.
        tag: u32,
        /// What was attempted.
        operation: &'static str,
    },
    /// A record cannot be encoded (a length does not fit the `u32` fields).
    #[error("device record cannot be encoded: {reason}")]
    Unencodable {
        /// Which length overflowed.
        reason: &'static str,
    },
    /// A fixed word index outside `0..44`, or the reserved `value_count` word 43.
    #[error("fixed word index {index} cannot be set (0..43 only; word 43 is value_count)")]
    FixedWordIndex {
        /// The index given.
        index: usize,
    },
    /// An error with the caller's context attached (the source chain is kept).
    #[error("{context}")]
    InContext {
        /// Unit, component and file as the caller gave them.
        context: LoadContext,
        /// The underlying error.
        #[source]
        source: Box<ControlError>,
    },
    /// An INTO override names a slot C8 that is not in the device table.
    #[error("INTO override slot C8 = {slot} is outside the device table of {device_count} devices")]
    IntoSlotOutOfRange {
        /// The C8 value.
        slot: i32,
        /// Devices in the table.
        device_count: usize,
    },
    /// An INTO override component has no typed record to apply.
    #[error("INTO override of slot C8 = {slot} has no typed records")]
    IntoWithoutRecords {
        /// The C8 value.
        slot: i32,
    },
    /// An EXTO record with a non-zero key, but the component owns no global MSH node
    /// (first global node −1, e.g. a one-node EXTO model).
    #[error("EXTO key {key} cannot be remapped: the component has no global MSH node")]
    ExtoKeyWithoutGlobalNodes {
        /// The CTLD key.
        key: u32,
    },
    /// An EXTO key remap leaves the `i32` node range.
    #[error("EXTO key {key} remapped from first global node {first_global_node} overflows")]
    KeyRemapOverflow {
        /// The CTLD key.
        key: u32,
        /// The component's first global node.
        first_global_node: i32,
    },
    /// The global MSH node counter would overflow.
    #[error("global MSH node count overflows")]
    NodeCountOverflow,
    /// A provider row index outside the table.
    #[error("provider row {row} is outside the table of {row_count} rows")]
    RowOutOfRange {
        /// The row index.
        row: usize,
        /// Rows in the table.
        row_count: usize,
    },
    /// The same row appears twice in one distribution request.
    #[error("provider row {row} appears twice in one distribution")]
    DuplicateRow {
        /// The row index.
        row: usize,
    },
    /// A device key selects no provider row.
    #[error("device key {key} selects no provider row (table has {row_count} rows)")]
    ProviderKeyOutOfRange {
        /// The device key (+0x04).
        key: u32,
        /// Rows in the table.
        row_count: usize,
    },
    /// The provider lookup is unavailable (an EXTO contributed an empty NDP table).
    #[error("provider lookup unavailable (an EXTO component has an empty NDP table)")]
    ProviderLookupUnavailable,
    /// A device index outside the device table.
    #[error("device {index} is outside the table of {device_count} devices")]
    DeviceOutOfRange {
        /// The device index.
        index: usize,
        /// Devices in the table.
        device_count: usize,
    },
    /// A row needs its parent (flags 4/8) but the parent index is −1 or out of range.
    #[error("provider row {row} needs its parent, but parent {parent} is not a row")]
    ParentMissing {
        /// The row.
        row: usize,
        /// The parent index stored in the row.
        parent: i32,
    },
    /// A row has stage count 0 (or above 2^24), so its stage cannot be computed.
    #[error("provider row {row} has unusable stage count {count}")]
    BadStageCount {
        /// The row.
        row: usize,
        /// The stage count.
        count: u32,
    },
    /// The stage formula gave a stage outside `0..=count` (ratio outside `[0, 1]`).
    #[error("stage {stage} for ratio {ratio} is outside 0..={count}")]
    StageOutOfRange {
        /// The computed stage.
        stage: i64,
        /// The ratio used.
        ratio: f32,
        /// The stage count.
        count: u32,
    },
    /// A row's maximum is zero, negative or not finite, so its ratio is undefined.
    #[error("provider row {row} has unusable maximum {maximum}")]
    BadMaximum {
        /// The row.
        row: usize,
        /// The maximum.
        maximum: f32,
    },
    /// An input or result is NaN or infinite.
    #[error("{operation}: value is not finite")]
    NotFinite {
        /// The operation.
        operation: &'static str,
    },
    /// A result leaves the normal `f32` range (overflow, or a non-zero value below
    /// `f32::MIN_POSITIVE`).
    #[error("{operation}: result {value:e} is outside the normal f32 range")]
    OutOfF32Range {
        /// The operation.
        operation: &'static str,
        /// The exact (24-bit rounded) result.
        value: f64,
    },
    /// An aggregate getter fails without a result (no matching record, or a
    /// non-positive base sum).
    #[error("aggregate getter {getter} has no result: {reason}")]
    AggregateUnavailable {
        /// Getter number (1 or 2).
        getter: u8,
        /// Why.
        reason: &'static str,
    },
    /// A clock period of zero.
    #[error("resource clock period must be positive")]
    ZeroPeriod,
}

impl ControlError {
    /// Wraps `self` with the caller's context (the original stays the source).
    pub fn in_context(self, context: &LoadContext) -> Self {
        ControlError::InContext {
            context: context.clone(),
            source: Box::new(self),
        }
    }
}

impl ControlError {
    /// The innermost error below any [`ControlError::InContext`] layers.
    pub fn root_cause(&self) -> &ControlError {
        let mut e = self;
        while let ControlError::InContext { source, .. } = e {
            e = source;
        }
        e
    }

    /// The context of the outermost [`ControlError::InContext`] layer, if any.
    pub fn context(&self) -> Option<&LoadContext> {
        match self {
            ControlError::InContext { context, .. } => Some(context),
            _ => None,
        }
    }
}

/// Crate result alias.
pub type Result<T> = std::result::Result<T, ControlError>;
