//! The runtime contract between the Iron3D-rs kernel and its plugins (interface 2),
//! built on abi_stable.
//!
//! # For plugin authors
//!
//! Implement the safe trait [`Plugin`] (plus [`TerrainProvider`] or [`Renderer`] for
//! those services), describe your factories with [`PluginDescription::current`], and
//! export them with [`export_plugin!`]. Every callback gets a [`Host`]: the per-call
//! context through which you read and change the world (objects by generation-checked
//! handle or original id, transforms, velocities, behaviour state, the property bag,
//! create / delete / kill, batch reads and writes of many objects), send messages (the
//! original codes or your own, [`MessageCode::plugin`]), read the clocks and the whole
//! input snapshot, seed your own RNG streams ([`rng::PluginRng`]), read the mission's
//! game files through the engine's VFS, and call other plugins' services (terrain and
//! control) and named services of service plugins ([`service`]) — always the provider
//! active *now*, fetched per call. You never write
//! `extern "C"` code or `catch_unwind`: the generated layer guards every entry point, so
//! a panic anywhere in your plugin (a callback, a service method, a getter, `drop`)
//! becomes an error the host handles by rolling back; the mission goes on. See
//! `plugins/examples/spawner` for a complete third-party plugin and `plugins/AUTHORS.md`
//! for the guide.
//!
//! # Versioning policy
//!
//! The interface has a major and a minor version ([`ABI_MAJOR`], [`ABI_MINOR`]), carried
//! in every [`PluginDescription`]; abi_stable additionally checks the layout of every
//! type reachable from the root module when a library is loaded.
//!
//! * **Minor change** (minor + 1, same major): a new method at the end of
//!   [`HostApi`], [`PluginInstance`](ffi::PluginInstance) or a service trait, *after* its
//!   `#[sabi(last_prefix_field)]` method and *with a default body*; a new service
//!   reached through such a method; new constants (message codes, error kinds: both are
//!   open numbers, never enums whose unknown values would be undefined behaviour); new
//!   helper functions and types. A newer engine calls the default when the plugin's
//!   vtable is older; an older engine ignores methods it does not know.
//! * **Major change** (major + 1): anything else — changing or removing a method, a field
//!   of a `#[repr(C)]` type, or the root module. [`PluginRootV2`] is frozen for all of
//!   major 2 (abi_stable rejects an older prefix root module in a newer host, issue
//!   #118); major 3 would add a `PluginRootV3`.
//! * The root module's version string ([`ROOT_VERSION`], `2.0.0`) is checked before its
//!   layout: a library built against interface 1.x is refused with a message naming
//!   the plugin file and both versions, not a layout report. A library whose
//!   description has another `abi_major`, or that was built with `panic = "abort"`, is
//!   refused too. A plugin with a higher minor than the host's loads (it was built
//!   against a superset) with a warning.
//! * abi_stable's own version check uses [`ROOT_VERSION`], not the crate version, so the
//!   crate version of `iron3d-abi` can move without locking out older plugins.

pub mod audio;
pub mod context;
pub mod control;
pub mod effects;
pub mod extension;
#[doc(hidden)]
pub mod fuzz_check;
mod guard;
pub mod host;
pub mod input;
pub mod log;
pub mod math;
pub mod message;
pub mod net;
pub mod overlay;
pub mod plugin;
pub mod render;
pub mod rng;
pub mod root;
pub mod service;
pub mod types;
pub mod weather;

pub use abi_stable;
pub use audio::{
    AudioFrame, AudioMix, AudioOutput, AudioProvider, AudioReport, Listener, MAX_SOUND_NAME,
    SoundBus, SoundEvent, SoundKind,
};
pub use control::{
    GroundSample, ModelBounds, MotionMode, MotionRequest, PhysicalState, RayHit, physical_flags,
};
pub use effects::{
    EffectBlend, EffectEvent, EffectFrame, EffectPrimitive, EffectView, EffectsProvider,
    MAX_EFFECT_NAME, NO_EFFECT_TEXTURE, PrimitiveKind,
};
pub use extension::{ExtensionId, ExtensionVisit, ExtensionVisit_TO};
pub use host::{
    AxisValue, Body, BodyWrite, ClockInfo, HostApi, HostApi_TO, HostRef, InputCommand, InputView,
    MissionOutcome, NewObject, ObjectInfo, ObjectRef, Property,
};
pub use input::{
    DeviceInput, DeviceInputKind, InputRecord, InputRecordKind, MAX_SELECTED, PlayerView,
    SOURCE_KEYBOARD, SOURCE_MOUSE, SOURCE_PAD0, VIEW_INFRARED, VIEW_PAUSED, ViewMode,
};
pub use log::{ForwardingSubscriber, LogLevel, LogSink, LogSink_TO, LogSinkBox};
pub use math::{Mat4f, Quatf, Vec3f};
pub use message::{MAX_MESSAGE_PAYLOAD, Message, MessageCode, MessageTarget};
pub use net::{
    NetEvent, NetEventKind, NetFrame, NetHash, NetIdentity, NetPluginId, NetProvider, NetReport,
    NetReservation, NetRole, NetSnapshot, NetStart, NetState, NetStateReport, NetTick,
};
pub use overlay::{FrameWithOverlay, Overlay, OverlayQuad};
pub use plugin::{
    Control, ControlProvider, Host, InputProvider, Plugin, Renderer, RendererPlugin, Terrain,
    TerrainProvider,
};
pub use weather::{WEATHER_PAYLOAD, WeatherEvent};

/// The FFI side of the boundary, for the engine's host (not for plugins: a plugin
/// implements [`Plugin`] and the provider traits and exports them with
/// [`export_plugin!`], which wraps every instance in the guarded adapter — the only way
/// to an instance). The traits here are what the host calls; their layout is interface
/// 2's, checked by abi_stable when a library loads.
#[doc(hidden)]
pub mod ffi {
    pub use crate::audio::{AudioService, AudioService_TO};
    pub use crate::effects::{EffectsService, EffectsService_TO};
    pub use crate::net::{NetService, NetService_TO};
    pub use crate::plugin::{
        ControlService, ControlService_TO, InputService, InputService_TO, PluginInstance,
        PluginInstance_TO, PluginInstanceBox, RenderBackend, RenderBackend_TO, TerrainService,
        TerrainService_TO,
    };
    pub use crate::service::{NamedService, NamedService_TO};
}
pub use render::{
    BlendMode, Camera, CullMode, DepthMode, DrawItem, LegacyRenderState, Lighting, MeshResource,
    NO_TEXTURE, NativeWindow, RenderFrame, RenderPhase, RenderResources, RenderTarget, RenderWorld,
    SkipReason, SkippedObject, TextureKind, TextureLevel, TextureOp, TextureResource, TextureStage,
    VertexFormat, VisibleObject, WorldObject,
};
#[doc(hidden)]
pub use root::__private;
pub use root::{
    ABI_MAJOR, ABI_MINOR, HostContext, LogMode, PluginRootV2, PluginRootV2Ref, ROOT_VERSION,
};
pub use service::{MAX_SERVICE_PAYLOAD, ServiceProvider};
/// The `tracing` crate the host bridges plugin logs from: log with
/// `iron3d_abi::tracing::info!(…)` (or `use iron3d_abi::tracing;`) and your events reach
/// the engine's log under your plugin's name, without a `tracing` dependency of your own
/// (a plugin that adds one must use a version compatible with this re-export, `0.1`).
pub use tracing;
pub use types::{
    AreaLink, ErrorKind, FactoryDescription, ImageRgba8, MissionInfo, Passage, PluginDescription,
    PluginError, Portal, RenderStats, SlotKind, StateBlob, callbacks, error_chain,
};
