//! The kernel's plugin host: resolves registry library names through ordered search
//! paths, loads abi_stable plugins from unique shadow copies, adapts each registry slot
//! to a kernel [`System`](iron3d_kernel::System), isolates faults (roll back to the
//! previous instance, else the slot's null plugin, else vacant) and hot-swaps plugins at
//! the calculation boundary with `save_state → restore_state`.

pub mod call;
pub mod convert;
pub mod error;
pub mod host;
pub mod image;
pub mod input;
pub mod library;
pub mod log_sink;
pub mod probe;
pub mod service;
pub mod slot;
pub mod watch;

pub use call::{AudioStatus, MissionFiles, ReportedOutcome};
pub use error::HostError;
pub use host::{
    ComponentFactory, HostConfig, MissionSetup, NULL_LIBRARY, PluginHost, SlotFallback, SlotReport,
};
pub use library::{LoadedLibrary, SearchPaths};
pub use service::{SERVICES_FORMAT, SERVICES_VERSION, ServiceSpec, ServiceSystem};
pub use slot::{Capture, CaptureKind, HostEvent, Instance, PluginSlot};
