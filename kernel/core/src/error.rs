//! The kernel's error type.

use crate::identity::{ObjectHandle, OriginalObjectId};
use crate::phase::{Operation, Phase};
use thiserror::Error;

/// Everything that can go wrong inside the kernel, with the context to act on it.
#[derive(Debug, Error)]
pub enum KernelError {
    /// A handle whose object was freed (or never existed) was used.
    #[error("stale object handle {handle}: the object was deleted or the handle never existed")]
    StaleHandle {
        /// The offending handle.
        handle: ObjectHandle,
    },
    /// An operation was attempted in a phase that forbids it.
    #[error("{op} is forbidden during phase {phase}")]
    Forbidden {
        /// What was attempted.
        op: Operation,
        /// The phase that was running.
        phase: Phase,
    },
    /// An object was registered twice.
    #[error("object {handle} is already registered in the queue")]
    AlreadyRegistered {
        /// The object.
        handle: ObjectHandle,
    },
    /// A second registered object claimed an original id already in use.
    #[error("original object id {id} is already used by registered object {existing}")]
    DuplicateOriginalId {
        /// The contested id.
        id: OriginalObjectId,
        /// The object that holds it.
        existing: ObjectHandle,
    },
    /// The slot table is full (`u32::MAX` slots).
    #[error("object slot table is exhausted")]
    SlotsExhausted,
    /// The queue was traversed while a traversal was already running.
    #[error("nested World3D traversal (in_calculation depth {depth})")]
    NestedTraversal {
        /// Depth when the nested traversal was attempted.
        depth: u32,
    },
    /// A system (future plugin) reported a failure.
    #[error("system '{system}' failed in phase {phase}: {reason}")]
    SystemFault {
        /// Name of the system.
        system: String,
        /// Phase in which it failed.
        phase: Phase,
        /// The system's message.
        reason: String,
    },
    /// Invalid configuration value.
    #[error("invalid kernel configuration: {0}")]
    Config(String),
    /// A saved kernel state was refused (see [`crate::Kernel::restore_state`]):
    /// nothing of it was applied.
    #[error("saved kernel state refused: {0}")]
    BadState(String),
    /// A published player view with non-finite numbers or an unsorted selection.
    #[error("invalid player view: {0}")]
    InvalidView(String),
}

/// Result alias for the kernel.
pub type KernelResult<T> = Result<T, KernelError>;
