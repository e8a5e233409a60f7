//! The Iron3D-rs microkernel: World3D object queue, object identity, deferred deletion,
//! clocks, message bus, scheduler phases, named RNG streams, canonical state hash (replay logs are the `iron3d-replay` service).
//!
//! The kernel knows no concrete subsystem. Subsystems implement [`System`] (the plugin
//! host adapts dynamic plugins to it) and are called by the scheduler in the phases of
//! [`Phase`]. Everything observable is deterministic: stable queue order, bus delivery
//! sorted by `(phase, sender, sequence)`, seeded named RNG streams and a fixed
//! simulation step independent of the presentation frame rate.

pub mod bus;
pub mod clock;
pub mod error;
pub mod hash;
pub mod identity;
pub mod input;
mod kernel;
pub mod phase;
pub mod props;
pub mod rng;
pub mod snapshot;
pub mod stats;
pub mod system;
pub mod view;
pub mod world;

pub use bus::{Bus, Envelope, ExternalSender, GameMessage, PluginMessage, SenderId, Target};
pub use clock::{
    FixedStep, GameClock, LocalClock, MaintenanceClock, ManualTimeSource, SystemTimeSource,
    TimeSource,
};
pub use error::{KernelError, KernelResult};
pub use hash::{StateHash, StateHasher};
pub use identity::{IdLayout, Locality, ObjectHandle, OriginalObjectId};
pub use input::{InputEvent, InputSnapshot, ManualCommandKind};
pub use kernel::save::KERNEL_STATE_VERSION;
pub use kernel::{
    FrameReport, InputSource, JournalEntry, Kernel, KernelConfig, NoInput, ShutdownReport,
};
pub use phase::{Operation, Phase};
pub use props::{Property, PropertyBag};
pub use rng::{RngStream, RngStreams, StreamName};
pub use snapshot::{FramePreparer, Prepared, RenderSnapshot, SnapshotObject};
pub use stats::KernelStats;
pub use system::{
    CalcSlot, KernelCommand, SavedState, SimTime, System, SystemCtx, SystemError, SystemResult,
};
pub use view::PlayerView;
pub use world::{
    DeleteMode, DeleteOutcome, GameObject, ObjectDesc, ObjectStatus, Transform, World, WorldChange,
};

#[cfg(test)]
mod kernel_tests;
