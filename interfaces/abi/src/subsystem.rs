//! The `Subsystem` trait every plugin instance implements, and the kind-specific service
//! traits (terrain, ai, control, effects, audio, render, net, input) it may expose.
//!
//! Methods marked as added after 1.0 go **after** the `#[sabi(last_prefix_field)]`
//! method and must have a default body: a vtable from an older plugin then falls back
//! to the default (see the versioning policy in the crate docs).
#![allow(non_local_definitions)]

use crate::math::Vec3f;
use crate::render::RenderFrame;
use crate::types::{
    Command, FrameView, ImageRgba8, MessageView, MissionContext, ObjectState, Packet, PluginError,
    Portal, RawInputEvent, RenderStats, SlotKind, StateBlob, TickInfo,
};
use abi_stable::RMut;
use abi_stable::sabi_trait;
use abi_stable::std_types::{RBox, RErr, ROk, ROption, RResult, RSlice, RStr, RString, RVec};

fn unsupported<T>(what: &str) -> RResult<T, PluginError> {
    RErr(PluginError::new(
        crate::types::ErrorKind::Unsupported,
        format!("{what} is not provided by this plugin"),
    ))
}

/// A plugin instance filling one slot of a mission.
///
/// Every implementation must run its bodies through [`crate::PluginRuntime::call`] (or
/// [`crate::guard`]) so that no panic reaches the boundary.
#[sabi_trait]
pub trait Subsystem: Send {
    /// The slot this instance fills.
    fn slot(&self) -> SlotKind;

    /// Mission start (also called on a new instance before `restore_state` during a hot swap).
    fn init(&mut self, ctx: &MissionContext) -> RResult<(), PluginError>;

    /// Per object during queue traversal (AI and Control slots), in queue order.
    fn calculate_object(
        &mut self,
        _tick: &TickInfo<'_>,
        _object: &mut ObjectState,
        _out: &mut RVec<Command>,
    ) -> RResult<(), PluginError> {
        ROk(())
    }

    /// A message addressed to one object, delivered at a phase boundary.
    fn on_object_message(
        &mut self,
        _tick: &TickInfo<'_>,
        _object: &mut ObjectState,
        _message: &MessageView,
        _out: &mut RVec<Command>,
    ) -> RResult<(), PluginError> {
        ROk(())
    }

    /// A broadcast message, delivered at a phase boundary.
    fn on_message(
        &mut self,
        _tick: &TickInfo<'_>,
        _message: &MessageView,
        _out: &mut RVec<Command>,
    ) -> RResult<(), PluginError> {
        ROk(())
    }

    /// Once per tick in `update_navigation_physics_animation_fx`, with every registered object (read-only).
    fn update(
        &mut self,
        _tick: &TickInfo<'_>,
        _objects: RSlice<'_, ObjectState>,
        _out: &mut RVec<Command>,
    ) -> RResult<(), PluginError> {
        ROk(())
    }

    /// `on_end_render` after frame `frame`.
    fn end_frame(&mut self, _frame: u64) -> RResult<(), PluginError> {
        ROk(())
    }

    /// Cache maintenance on real time; must not change simulation state.
    fn maintenance(&mut self) -> RResult<(), PluginError> {
        ROk(())
    }

    /// The instance's simulation state as a versioned blob (hot swap, save games, state hash).
    fn save_state(&self) -> RResult<StateBlob, PluginError>;

    /// Takes over a state saved by an earlier instance (possibly an older build).
    fn restore_state(&mut self, blob: &StateBlob) -> RResult<(), PluginError>;

    /// Last call before the instance is dropped.
    fn shutdown(&mut self) {}

    /// The terrain service, for terrain plugins.
    fn terrain(&mut self) -> ROption<TerrainService_TO<'_, RMut<'_, ()>>> {
        ROption::RNone
    }

    /// The render backend, for render plugins.
    fn render(&mut self) -> ROption<RenderBackend_TO<'_, RMut<'_, ()>>> {
        ROption::RNone
    }

    /// The audio backend, for audio plugins.
    fn audio(&mut self) -> ROption<AudioBackend_TO<'_, RMut<'_, ()>>> {
        ROption::RNone
    }

    /// The network transport, for net plugins.
    fn net(&mut self) -> ROption<NetTransport_TO<'_, RMut<'_, ()>>> {
        ROption::RNone
    }

    /// The input device source, for input plugins.
    fn input(&mut self) -> ROption<InputDevice_TO<'_, RMut<'_, ()>>> {
        ROption::RNone
    }

    /// The effects service, for effects plugins.
    fn effects(&mut self) -> ROption<EffectsService_TO<'_, RMut<'_, ()>>> {
        ROption::RNone
    }

    /// AI queries and orders, for AI plugins.
    fn ai(&mut self) -> ROption<AiService_TO<'_, RMut<'_, ()>>> {
        ROption::RNone
    }

    /// Control / physics commands, for control plugins.
    #[sabi(last_prefix_field)]
    fn control(&mut self) -> ROption<ControlService_TO<'_, RMut<'_, ()>>> {
        ROption::RNone
    }
}

/// An owned plugin instance as the host keeps it.
pub type SubsystemBox = Subsystem_TO<'static, RBox<()>>;

/// Terrain queries (tome IV): surface, areas, routes.
#[sabi_trait]
pub trait TerrainService {
    /// Surface height at `(x, y)`, or an error off the map.
    fn height_at(&self, x: f32, y: f32) -> RResult<f32, PluginError> {
        let _ = (x, y);
        unsupported("height_at")
    }
    /// Unit surface normal at `(x, y)`.
    fn normal_at(&self, x: f32, y: f32) -> RResult<Vec3f, PluginError> {
        let _ = (x, y);
        unsupported("normal_at")
    }
    /// First intersection of the segment `a → b` with the surface.
    fn intersect_segment(&self, a: Vec3f, b: Vec3f) -> RResult<ROption<Vec3f>, PluginError> {
        let _ = (a, b);
        unsupported("intersect_segment")
    }
    /// The areal containing `(x, y)`, or `RNone` for an explicit miss.
    fn area_at(&self, x: f32, y: f32) -> RResult<ROption<u32>, PluginError> {
        let _ = (x, y);
        unsupported("area_at")
    }
    /// Area ids from the area under `from` to the area under `to`.
    #[sabi(last_prefix_field)]
    fn route(&self, from: Vec3f, to: Vec3f) -> RResult<RVec<u32>, PluginError> {
        let _ = (from, to);
        unsupported("route")
    }
    /// The portal edges between consecutive areas of the route from `from` to `to`, for
    /// movement controllers (a minor addition after the prefix: older plugins answer
    /// "unsupported").
    fn corridor(&self, from: Vec3f, to: Vec3f) -> RResult<RVec<Portal>, PluginError> {
        let _ = (from, to);
        unsupported("corridor")
    }
}

/// Render backend: draws published frames and captures images.
#[sabi_trait]
pub trait RenderBackend {
    /// Draws one frame from the bare object list (the interface 1.0 entry point; the host
    /// calls it only when `draw` is unsupported). The default draws nothing and reports
    /// the object count, which is all a backend drawing prepared frames needs. (A default
    /// body is source-level only: the vtable entry and its layout are unchanged.)
    fn render_frame(&mut self, frame: &FrameView<'_>) -> RResult<RenderStats, PluginError> {
        ROk(RenderStats {
            draw_items: 0,
            objects: u32::try_from(frame.objects.len()).unwrap_or(u32::MAX),
        })
    }
    /// The last frame as RGBA8 (capture backends may return an empty image).
    #[sabi(last_prefix_field)]
    fn capture(&mut self) -> RResult<ImageRgba8, PluginError> {
        unsupported("capture")
    }
    /// Draws a prepared [`RenderFrame`] (interface 1.1; older plugins answer
    /// "unsupported" and the host falls back to `render_frame`).
    fn draw(&mut self, frame: &RenderFrame) -> RResult<RenderStats, PluginError> {
        let _ = frame;
        unsupported("draw")
    }
    /// The last drawn frame's command list as JSON (capture backends; interface 1.1).
    fn capture_commands(&mut self) -> RResult<RString, PluginError> {
        unsupported("capture_commands")
    }
}

/// Audio backend: listener and voices.
#[sabi_trait]
pub trait AudioBackend {
    /// Moves the listener (updated before each frame's traversal).
    fn set_listener(
        &mut self,
        position: Vec3f,
        forward: Vec3f,
        up: Vec3f,
    ) -> RResult<(), PluginError>;
    /// Starts a sound; returns a voice id.
    fn play(&mut self, sound: RStr<'_>, position: Vec3f, volume: f32) -> RResult<u32, PluginError> {
        let _ = (sound, position, volume);
        unsupported("play")
    }
    /// Stops a voice.
    #[sabi(last_prefix_field)]
    fn stop(&mut self, voice: u32) -> RResult<(), PluginError> {
        let _ = voice;
        unsupported("stop")
    }
}

/// Network transport (transport peers are not object ids).
#[sabi_trait]
pub trait NetTransport {
    /// Queues `bytes` for `peer`.
    fn send(&mut self, peer: u32, bytes: RSlice<'_, u8>) -> RResult<(), PluginError>;
    /// Packets received since the last poll, in arrival order.
    #[sabi(last_prefix_field)]
    fn poll(&mut self) -> RResult<RVec<Packet>, PluginError>;
}

/// Input devices (keyboard, mouse, gamepads).
#[sabi_trait]
pub trait InputDevice {
    /// Raw events since the last poll, in arrival order.
    #[sabi(last_prefix_field)]
    fn poll(&mut self) -> RResult<RVec<RawInputEvent>, PluginError>;
}

/// Effects: FX instances.
#[sabi_trait]
pub trait EffectsService {
    /// Starts effect `name` at `position`; returns an instance id.
    fn spawn(&mut self, name: RStr<'_>, position: Vec3f) -> RResult<u32, PluginError>;
    /// Live instances.
    #[sabi(last_prefix_field)]
    fn active_count(&self) -> u32;
}

/// AI queries and orders.
#[sabi_trait]
pub trait AiService {
    /// Orders object `id` to `order` toward `target`.
    fn set_order(&mut self, id: u32, order: u32, target: Vec3f) -> RResult<(), PluginError>;
    /// The AI state id of object `id`.
    #[sabi(last_prefix_field)]
    fn state_of(&self, id: u32) -> RResult<u32, PluginError>;
}

/// Control / physics commands.
#[sabi_trait]
pub trait ControlService {
    /// Applies an impulse to object `id`.
    fn apply_impulse(&mut self, id: u32, impulse: Vec3f) -> RResult<(), PluginError>;
    /// Sets the maximum speed of object `id`.
    #[sabi(last_prefix_field)]
    fn set_max_speed(&mut self, id: u32, speed: f32) -> RResult<(), PluginError>;
}
