//! The runtime contract between the Iron3D-rs kernel and its plugins, built on abi_stable.
//!
//! A plugin library exports one root module ([`PluginRootV1`], via [`export_plugin!`])
//! that describes the library and creates [`Subsystem`] instances by factory name.
//! Only FFI-safe types cross the boundary (abi_stable's `R*` types and the
//! `#[repr(C)]` types of this crate). No panic crosses it: every plugin body runs inside
//! [`guard`] / [`PluginRuntime::call`]. A plugin's `tracing` events reach the host through
//! the [`LogSink`] the host passes to the factory.
//!
//! # Versioning policy
//!
//! The interface has a major and a minor version ([`ABI_MAJOR`], [`ABI_MINOR`]), carried
//! in every [`PluginDescription`]; abi_stable additionally checks the layout of every
//! type reachable from the root module when a library is loaded.
//!
//! * **Minor change** (minor + 1, same major): a new method at the end of [`Subsystem`]
//!   or a service trait, *after* the `#[sabi(last_prefix_field)]` method and *with a
//!   default body*; a new service trait reached through such a method; new constants or
//!   helper functions. A newer engine calls the default when the plugin's vtable is older;
//!   an older engine ignores methods it does not know.
//! * **Major change** (major + 1): anything else — changing or removing a method, a field
//!   of a `#[repr(C)]` type, an enum variant, or the root module. The root module
//!   [`PluginRootV1`] is frozen for all of major 1 (abi_stable rejects an older prefix
//!   root module in a newer host, issue #118); major 2 will add a `PluginRootV2` with its
//!   own base name and the host will try V2, then V1 through a frozen adapter.
//! * The host refuses a plugin whose `abi_major` differs from its own, naming the plugin,
//!   the expected and the found version. A plugin with a higher minor than the host's
//!   loads (it was built against a superset) with a warning.
//! * abi_stable's own version check is pinned to `1.0.0` for this root module, so the
//!   crate version of `iron3d-abi` can move without locking out older plugins.

pub mod guard;
pub mod log;
pub mod math;
pub mod render;
pub mod root;
pub mod subsystem;
pub mod types;

pub use abi_stable;
pub use guard::{PluginRuntime, guard, guard_unit};
pub use log::{ForwardingSubscriber, LogLevel, LogSink, LogSink_TO, LogSinkBox};
pub use math::{Mat4f, Quatf, Vec3f};
pub use render::{
    BlendMode, Camera, CullMode, DepthMode, DrawItem, LegacyRenderState, Lighting, MeshResource,
    NO_TEXTURE, NativeWindow, RenderFrame, RenderPhase, RenderResources, RenderTarget, SkipReason,
    SkippedObject, TextureKind, TextureLevel, TextureOp, TextureResource, TextureStage,
    VertexFormat, VisibleObject,
};
pub use root::{ABI_MAJOR, ABI_MINOR, HostContext, LogMode, PluginRootV1, PluginRootV1Ref};
pub use subsystem::{
    AiService, AiService_TO, AudioBackend, AudioBackend_TO, ControlService, ControlService_TO,
    EffectsService, EffectsService_TO, InputDevice, InputDevice_TO, NetTransport, NetTransport_TO,
    RenderBackend, RenderBackend_TO, Subsystem, Subsystem_TO, SubsystemBox, TerrainService,
    TerrainService_TO,
};
pub use types::{
    Command, ErrorKind, FactoryDescription, FrameView, ImageRgba8, InputCommand, MessageCode,
    MessageView, MissionContext, ObjectState, Packet, PluginDescription, PluginError, Portal,
    RawInputEvent, RenderStats, SlotKind, StateBlob, TickInfo, callbacks,
};
