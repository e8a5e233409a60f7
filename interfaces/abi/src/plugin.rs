//! What plugin authors implement — the safe traits [`Plugin`], [`TerrainProvider`] and
//! [`Renderer`] — and the FFI layer this crate generates around them.
//!
//! A plugin never writes `extern "C"` code or `catch_unwind`: [`crate::export_plugin!`]
//! wraps every instance in an adapter whose every entry point (callbacks, service
//! methods, service getters, `save_state`/`restore_state`, shutdown and drop) runs
//! inside `catch_unwind` on the plugin side and turns a panic into
//! [`ErrorKind::PANICKED`]. Panic isolation holds by construction, whatever the plugin
//! does.
#![allow(non_local_definitions)]

use crate::audio::{AudioFrame, AudioProvider, AudioReport, AudioService, AudioService_TO};
use crate::control::{GroundSample, MotionRequest, PhysicalState, RayHit};
use crate::effects::{EffectFrame, EffectView, EffectsProvider, EffectsService, EffectsService_TO};
use crate::guard::PluginRuntime;
use crate::host::{HostRef, ObjectRef};
use crate::input::{DeviceInput, InputRecord};
use crate::math::Vec3f;
use crate::message::Message;
use crate::net::{NetFrame, NetProvider, NetReport, NetService, NetService_TO, NetStart};
use crate::overlay::Overlay;
use crate::render::{RenderFrame, RenderWorld};
use crate::service::{NamedService, NamedService_TO, ServiceProvider};
use crate::types::{
    AreaLink, ErrorKind, ImageRgba8, MissionInfo, Passage, PluginError, Portal, RenderStats,
    StateBlob,
};
use abi_stable::RMut;
use abi_stable::sabi_trait;
use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RBox, RErr, ROk, ROption, RResult, RSlice, RString, RVec};
use std::mem::ManuallyDrop;

fn unsupported<T>(what: &str) -> Result<T, PluginError> {
    Err(PluginError::new(
        ErrorKind::UNSUPPORTED,
        format!("{what} is not provided by this plugin"),
    ))
}

pub use crate::context::{Control, Host, Terrain};
/// A plugin instance filling one slot of a mission. Every method has a default except
/// the state pair. Override the callbacks you want: the host calls every callback, and
/// one left with its default body answers [`PluginError::declined`] on its first call,
/// after which the host never calls it on this instance again (see
/// [`crate::callbacks`]). There is nothing to declare; do not call the default bodies
/// from your own code (their answer is that error).
pub trait Plugin: Send {
    /// Mission start (a fresh instance per mission; on a hot swap the new instance gets
    /// this, then `restore_state`).
    fn mission_start(
        &mut self,
        host: &mut Host<'_>,
        mission: &MissionInfo,
    ) -> Result<(), PluginError> {
        let _ = (host, mission);
        Ok(())
    }

    /// Mission end, before `shutdown`.
    fn mission_end(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        let _ = host;
        Ok(())
    }

    /// Per object during queue traversal (AI and Control slots), in queue order.
    fn calculate_object(
        &mut self,
        host: &mut Host<'_>,
        object: ObjectRef,
    ) -> Result<(), PluginError> {
        let _ = (host, object);
        Err(PluginError::declined())
    }

    /// A message delivered at a phase boundary; `object` is its target object, `None`
    /// for messages to a slot or to every slot.
    fn on_message(
        &mut self,
        host: &mut Host<'_>,
        object: Option<ObjectRef>,
        message: &Message,
    ) -> Result<(), PluginError> {
        let _ = (host, object, message);
        Err(PluginError::declined())
    }

    /// Once per tick in `update_navigation_physics_animation_fx`.
    fn update(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        let _ = host;
        Err(PluginError::declined())
    }

    /// An object joined the game (the mission's objects after the load, creations,
    /// deferred registrations), reported at the next boundary in order.
    fn object_added(&mut self, host: &mut Host<'_>, object: ObjectRef) -> Result<(), PluginError> {
        let _ = (host, object);
        Err(PluginError::declined())
    }

    /// The object with original id `id` left the game (its handles are stale now).
    fn object_removed(&mut self, host: &mut Host<'_>, id: u32) -> Result<(), PluginError> {
        let _ = (host, id);
        Err(PluginError::declined())
    }

    /// After frame `frame` was presented.
    fn end_frame(&mut self, frame: u64) -> Result<(), PluginError> {
        let _ = frame;
        Err(PluginError::declined())
    }

    /// Cache maintenance on real time; must not change simulation state.
    fn maintenance(&mut self) -> Result<(), PluginError> {
        Err(PluginError::declined())
    }

    /// The instance's simulation state (hot swap, save games, the state hash).
    fn save_state(&self) -> Result<StateBlob, PluginError>;

    /// Takes over a state saved by an earlier instance (possibly an older build).
    fn restore_state(&mut self, blob: &StateBlob) -> Result<(), PluginError>;

    /// Last call before the instance is dropped.
    fn shutdown(&mut self) {}

    /// The terrain service, for terrain plugins.
    fn terrain(&self) -> Option<&dyn TerrainProvider> {
        None
    }

    /// The render backend, for render plugins (asked in each frame's render phase; an
    /// instance that answers `None` is not asked again, 2.9).
    fn renderer(&mut self) -> Option<&mut dyn Renderer> {
        None
    }

    /// The control service, for control plugins.
    fn control(&mut self) -> Option<&mut dyn ControlProvider> {
        None
    }

    /// (2.3) The input service, for input plugins.
    fn input(&mut self) -> Option<&mut dyn InputProvider> {
        None
    }

    /// (2.5) The named service, for service plugins (see [`crate::service`]).
    fn service(&mut self) -> Option<&mut dyn ServiceProvider> {
        None
    }

    /// (2.6) The audio service, for audio plugins (see [`crate::audio`]).
    fn audio(&mut self) -> Option<&mut dyn AudioProvider> {
        None
    }

    /// (2.11) The effects service, for effects plugins (see [`crate::effects`]).
    fn effects(&mut self) -> Option<&mut dyn EffectsProvider> {
        None
    }

    /// (2.14) The net service, for net plugins (see [`crate::net`]).
    fn net(&mut self) -> Option<&mut dyn NetProvider> {
        None
    }
}

/// The input service (see [`crate::input`]), implemented by input plugins.
pub trait InputProvider {
    /// Called once per presented frame outside the simulation with the window's device
    /// events since the last call (in arrival order); answers the input log's entries
    /// for the next tick, in order. It must not fail on any device event: an input it
    /// does not know is ignored (and may be logged).
    fn poll(&mut self, window: &[DeviceInput]) -> Result<Vec<InputRecord>, PluginError>;
}

/// The control service (tome VI "Control"), implemented by control plugins. Ids are
/// original object ids (the host resolves and checks handles). Every method defaults to
/// [`ErrorKind::UNSUPPORTED`].
pub trait ControlProvider {
    /// Sets the desired motion of object `id`; an unknown id or mode is an error.
    fn set_motion(&mut self, id: u32, request: MotionRequest) -> Result<(), PluginError> {
        let _ = (id, request);
        unsupported("set_motion")
    }
    /// The physical state of object `id` (`None`: not simulated).
    fn state(&self, id: u32) -> Result<Option<PhysicalState>, PluginError> {
        let _ = id;
        unsupported("state")
    }
    /// Ids whose proxy overlaps the sphere, ascending.
    fn query_sphere(&self, centre: Vec3f, radius: f32) -> Result<Vec<u32>, PluginError> {
        let _ = (centre, radius);
        unsupported("query_sphere")
    }
    /// Ids whose proxy overlaps the axis-aligned box, ascending.
    fn query_box(&self, min: Vec3f, max: Vec3f) -> Result<Vec<u32>, PluginError> {
        let _ = (min, max);
        unsupported("query_box")
    }
    /// The first proxy the segment `a → b` hits, skipping `ignore`.
    fn ray(&self, a: Vec3f, b: Vec3f, ignore: Option<u32>) -> Result<Option<RayHit>, PluginError> {
        let _ = (a, b, ignore);
        unsupported("ray")
    }
}

/// Terrain queries (tome IV), implemented by terrain plugins. Every method defaults to
/// [`ErrorKind::UNSUPPORTED`].
pub trait TerrainProvider {
    /// Surface height at `(x, y)`, or an error off the map.
    fn height_at(&self, x: f32, y: f32) -> Result<f32, PluginError> {
        let _ = (x, y);
        unsupported("height_at")
    }
    /// Unit surface normal at `(x, y)`.
    fn normal_at(&self, x: f32, y: f32) -> Result<Vec3f, PluginError> {
        let _ = (x, y);
        unsupported("normal_at")
    }
    /// First intersection of the segment `a → b` with the surface.
    fn intersect_segment(&self, a: Vec3f, b: Vec3f) -> Result<Option<Vec3f>, PluginError> {
        let _ = (a, b);
        unsupported("intersect_segment")
    }
    /// The areal containing `(x, y)`, or `None` for an explicit miss.
    fn area_at(&self, x: f32, y: f32) -> Result<Option<u32>, PluginError> {
        let _ = (x, y);
        unsupported("area_at")
    }
    /// Area ids from the area under `from` to the area under `to`. Errors by kind
    /// (2.1): [`ErrorKind::NOT_FOUND`] no map, [`ErrorKind::NO_AREA`] an end in no
    /// areal, [`ErrorKind::UNREACHABLE`] no walkable chain (Behavior's error states
    /// 1, 3 and 4 of tome VI).
    fn route(&self, from: Vec3f, to: Vec3f) -> Result<Vec<u32>, PluginError> {
        let _ = (from, to);
        unsupported("route")
    }
    /// The portal edges between consecutive areas of the route (errors as for `route`).
    fn corridor(&self, from: Vec3f, to: Vec3f) -> Result<Vec<Portal>, PluginError> {
        let _ = (from, to);
        unsupported("corridor")
    }
    /// (2.2) The route and its corridor in one answer, never through a link of `avoid`
    /// (either direction; errors as for `route`, a goal reachable only through avoided
    /// links [`ErrorKind::UNREACHABLE`]). The default answers `route` and `corridor`
    /// when `avoid` is empty and is unsupported otherwise: override it to honour
    /// `avoid` (and to search once instead of twice).
    fn passage(&self, from: Vec3f, to: Vec3f, avoid: &[AreaLink]) -> Result<Passage, PluginError> {
        if !avoid.is_empty() {
            return unsupported("passage with links to avoid");
        }
        Ok(Passage {
            route: self.route(from, to)?.into(),
            portals: self.corridor(from, to)?.into(),
        })
    }
    /// Height, normal, areal and walkability under each point (x, y), in order. The
    /// default answers from `height_at`, `normal_at` and `area_at` (a point off the
    /// surface gets `on_surface = false`; `walkable` is `area.is_some()`): override it
    /// with the real walkability and a faster batch.
    fn probe(&self, points: &[Vec3f]) -> Result<Vec<GroundSample>, PluginError> {
        points
            .iter()
            .map(|p| {
                let area = self.area_at(p.x, p.y)?;
                let mut g = GroundSample {
                    area: area.unwrap_or(GroundSample::NO_AREA),
                    walkable: area.is_some(),
                    ..GroundSample::default()
                };
                if let (Ok(h), Ok(n)) = (self.height_at(p.x, p.y), self.normal_at(p.x, p.y)) {
                    g.on_surface = true;
                    g.height = h;
                    g.normal = n;
                }
                Ok(g)
            })
            .collect()
    }
}

/// A render backend, implemented by render plugins.
pub trait Renderer {
    /// Draws a prepared frame.
    fn draw(&mut self, frame: &RenderFrame) -> Result<RenderStats, PluginError>;
    /// (2.4) Draws a prepared frame, then its screen overlay over it (the rules of
    /// [`crate::overlay`]; [`crate::overlay::composite`] is the reference). The default
    /// draws the frame without the overlay, as a renderer written before 2.4 does.
    fn draw_with_overlay(
        &mut self,
        frame: &RenderFrame,
        overlay: &Overlay,
    ) -> Result<RenderStats, PluginError> {
        let _ = overlay;
        self.draw(frame)
    }
    /// The last frame as RGBA8.
    fn capture(&mut self) -> Result<ImageRgba8, PluginError> {
        unsupported("capture")
    }
    /// The last drawn frame's command list as JSON.
    fn capture_commands(&mut self) -> Result<String, PluginError> {
        unsupported("capture_commands")
    }
    /// (2.8) Every object of the world, in view or not, right before the frame's `draw`
    /// (the default declines it, [`PluginError::declined`]: the host builds the world only
    /// for a renderer that overrides this). Keep what you need: the reference is valid
    /// for this call only.
    fn world(&mut self, world: &RenderWorld) -> Result<(), PluginError> {
        let _ = world;
        Err(PluginError::declined())
    }
    /// (2.11) The frame's effect primitives ([`crate::effects`]), right before the
    /// frame's `draw`, when the effects slot answered some (the default declines them,
    /// [`PluginError::declined`]: the host stops offering them to this renderer). Keep
    /// what you need: the reference is valid for this call only.
    fn effects(&mut self, effects: &EffectFrame) -> Result<(), PluginError> {
        let _ = effects;
        Err(PluginError::declined())
    }
}

/// A plugin that is a renderer and nothing else. Presentation is not simulation: it
/// saves an empty state blob of `format` (version 1) and takes over any state, so a
/// switch between renderers hands nothing over. Dereferences to the renderer.
pub struct RendererPlugin<R> {
    renderer: R,
    format: &'static str,
}

impl<R: Renderer + Send> RendererPlugin<R> {
    /// `renderer` as a plugin whose (empty) state blob is named `format`.
    pub fn new(renderer: R, format: &'static str) -> Self {
        Self { renderer, format }
    }
}

impl<R> std::ops::Deref for RendererPlugin<R> {
    type Target = R;
    fn deref(&self) -> &R {
        &self.renderer
    }
}

impl<R> std::ops::DerefMut for RendererPlugin<R> {
    fn deref_mut(&mut self) -> &mut R {
        &mut self.renderer
    }
}

impl<R: Renderer + Send> Plugin for RendererPlugin<R> {
    fn save_state(&self) -> Result<StateBlob, PluginError> {
        Ok(StateBlob::empty(self.format, 1))
    }

    fn restore_state(&mut self, _blob: &StateBlob) -> Result<(), PluginError> {
        Ok(())
    }

    fn renderer(&mut self) -> Option<&mut dyn Renderer> {
        Some(&mut self.renderer)
    }
}

/// The FFI form of a plugin instance (generated by this crate; plugins implement
/// [`Plugin`]). Methods after `last_prefix_field` are minor additions. Host-side only
/// (`iron3d_abi::ffi`): an instance made any other way than by
/// [`crate::export_plugin!`] would run unguarded.
#[doc(hidden)]
#[sabi_trait]
pub trait PluginInstance: Send {
    /// [`Plugin::mission_start`].
    fn mission_start(
        &mut self,
        host: HostRef<'_>,
        mission: &MissionInfo,
    ) -> RResult<(), PluginError>;
    /// [`Plugin::mission_end`].
    fn mission_end(&mut self, host: HostRef<'_>) -> RResult<(), PluginError>;
    /// [`Plugin::calculate_object`].
    fn calculate_object(
        &mut self,
        host: HostRef<'_>,
        object: ObjectRef,
    ) -> RResult<(), PluginError>;
    /// [`Plugin::on_message`].
    fn on_message(
        &mut self,
        host: HostRef<'_>,
        object: ROption<ObjectRef>,
        message: &Message,
    ) -> RResult<(), PluginError>;
    /// [`Plugin::update`].
    fn update(&mut self, host: HostRef<'_>) -> RResult<(), PluginError>;
    /// [`Plugin::object_added`].
    fn object_added(&mut self, host: HostRef<'_>, object: ObjectRef) -> RResult<(), PluginError>;
    /// [`Plugin::object_removed`].
    fn object_removed(&mut self, host: HostRef<'_>, id: u32) -> RResult<(), PluginError>;
    /// [`Plugin::end_frame`].
    fn end_frame(&mut self, frame: u64) -> RResult<(), PluginError>;
    /// [`Plugin::maintenance`].
    fn maintenance(&mut self) -> RResult<(), PluginError>;
    /// [`Plugin::save_state`].
    fn save_state(&self) -> RResult<StateBlob, PluginError>;
    /// [`Plugin::restore_state`].
    fn restore_state(&mut self, blob: &StateBlob) -> RResult<(), PluginError>;
    /// [`Plugin::shutdown`]; a panic in it is reported, not propagated.
    fn shutdown(&mut self) -> RResult<(), PluginError>;
    /// The terrain service, when the plugin provides one (an error: the getter panicked).
    #[allow(clippy::type_complexity)]
    fn terrain(&mut self) -> RResult<ROption<TerrainService_TO<'_, RMut<'_, ()>>>, PluginError>;
    /// The render backend, when the plugin provides one (an error: the getter panicked).
    #[sabi(last_prefix_field)]
    #[allow(clippy::type_complexity)]
    fn render(&mut self) -> RResult<ROption<RenderBackend_TO<'_, RMut<'_, ()>>>, PluginError>;
    /// (2.1) The control service, when the plugin provides one (an older plugin: none).
    #[allow(clippy::type_complexity)]
    fn control(&mut self) -> RResult<ROption<ControlService_TO<'_, RMut<'_, ()>>>, PluginError> {
        ROk(ROption::RNone)
    }
    /// (2.3) The input service, when the plugin provides one (an older plugin: none).
    #[allow(clippy::type_complexity)]
    fn input(&mut self) -> RResult<ROption<InputService_TO<'_, RMut<'_, ()>>>, PluginError> {
        ROk(ROption::RNone)
    }
    /// (2.5) The named service, when the plugin provides one (an older plugin: none).
    #[allow(clippy::type_complexity)]
    fn service(&mut self) -> RResult<ROption<NamedService_TO<'_, RMut<'_, ()>>>, PluginError> {
        ROk(ROption::RNone)
    }
    /// (2.6) The audio service, when the plugin provides one (an older plugin: none).
    #[allow(clippy::type_complexity)]
    fn audio(&mut self) -> RResult<ROption<AudioService_TO<'_, RMut<'_, ()>>>, PluginError> {
        ROk(ROption::RNone)
    }
    /// (2.11) The effects service, when the plugin provides one (an older plugin: none).
    #[allow(clippy::type_complexity)]
    fn effects(&mut self) -> RResult<ROption<EffectsService_TO<'_, RMut<'_, ()>>>, PluginError> {
        ROk(ROption::RNone)
    }
    /// (2.14) The net service, when the plugin provides one (an older plugin: none).
    #[allow(clippy::type_complexity)]
    fn net(&mut self) -> RResult<ROption<NetService_TO<'_, RMut<'_, ()>>>, PluginError> {
        ROk(ROption::RNone)
    }
}

/// The FFI form of [`InputProvider`].
#[sabi_trait]
pub trait InputService {
    /// [`InputProvider::poll`].
    #[sabi(last_prefix_field)]
    fn poll(&mut self, window: RSlice<'_, DeviceInput>) -> RResult<RVec<InputRecord>, PluginError>;
}

/// An owned plugin instance as the host keeps it.
pub type PluginInstanceBox = PluginInstance_TO<'static, RBox<()>>;

/// The FFI form of [`TerrainProvider`].
#[sabi_trait]
pub trait TerrainService {
    /// [`TerrainProvider::height_at`].
    fn height_at(&self, x: f32, y: f32) -> RResult<f32, PluginError>;
    /// [`TerrainProvider::normal_at`].
    fn normal_at(&self, x: f32, y: f32) -> RResult<Vec3f, PluginError>;
    /// [`TerrainProvider::intersect_segment`].
    fn intersect_segment(&self, a: Vec3f, b: Vec3f) -> RResult<ROption<Vec3f>, PluginError>;
    /// [`TerrainProvider::area_at`].
    fn area_at(&self, x: f32, y: f32) -> RResult<ROption<u32>, PluginError>;
    /// [`TerrainProvider::route`].
    fn route(&self, from: Vec3f, to: Vec3f) -> RResult<RVec<u32>, PluginError>;
    /// [`TerrainProvider::corridor`].
    #[sabi(last_prefix_field)]
    fn corridor(&self, from: Vec3f, to: Vec3f) -> RResult<RVec<Portal>, PluginError>;
    /// (2.1) [`TerrainProvider::probe`] (an older plugin: unsupported).
    fn probe(&self, points: RSlice<'_, Vec3f>) -> RResult<RVec<GroundSample>, PluginError> {
        let _ = points;
        RErr(PluginError::new(
            ErrorKind::UNSUPPORTED,
            "probe: the terrain plugin predates interface 2.1",
        ))
    }
    /// (2.2) [`TerrainProvider::passage`] (an older plugin: unsupported).
    fn passage(
        &self,
        from: Vec3f,
        to: Vec3f,
        avoid: RSlice<'_, AreaLink>,
    ) -> RResult<Passage, PluginError> {
        let _ = (from, to, avoid);
        RErr(PluginError::new(
            ErrorKind::UNSUPPORTED,
            "passage: the terrain plugin predates interface 2.2",
        ))
    }
}

/// The FFI form of [`ControlProvider`].
#[sabi_trait]
pub trait ControlService {
    /// [`ControlProvider::set_motion`].
    fn set_motion(&mut self, id: u32, request: &MotionRequest) -> RResult<(), PluginError>;
    /// [`ControlProvider::state`].
    fn state(&mut self, id: u32) -> RResult<ROption<PhysicalState>, PluginError>;
    /// [`ControlProvider::query_sphere`].
    fn query_sphere(&mut self, centre: Vec3f, radius: f32) -> RResult<RVec<u32>, PluginError>;
    /// [`ControlProvider::query_box`].
    fn query_box(&mut self, min: Vec3f, max: Vec3f) -> RResult<RVec<u32>, PluginError>;
    /// [`ControlProvider::ray`].
    #[sabi(last_prefix_field)]
    fn ray(
        &mut self,
        a: Vec3f,
        b: Vec3f,
        ignore: ROption<u32>,
    ) -> RResult<ROption<RayHit>, PluginError>;
}

/// The FFI form of [`Renderer`].
#[sabi_trait]
pub trait RenderBackend {
    /// [`Renderer::draw`].
    fn draw(&mut self, frame: &RenderFrame) -> RResult<RenderStats, PluginError>;
    /// [`Renderer::capture`].
    fn capture(&mut self) -> RResult<ImageRgba8, PluginError>;
    /// [`Renderer::capture_commands`].
    #[sabi(last_prefix_field)]
    fn capture_commands(&mut self) -> RResult<RString, PluginError>;
    /// (2.4) [`Renderer::draw_with_overlay`]; a renderer built before 2.4 draws the
    /// frame without the overlay.
    fn draw_with_overlay(
        &mut self,
        frame: &RenderFrame,
        overlay: &Overlay,
    ) -> RResult<RenderStats, PluginError> {
        let _ = overlay;
        self.draw(frame)
    }
    /// (2.8) [`Renderer::world`]; a renderer built before 2.8 ignores it.
    fn world(&mut self, world: &RenderWorld) -> RResult<(), PluginError> {
        let _ = world;
        RResult::ROk(())
    }
    /// (2.11) [`Renderer::effects`]; a renderer built before 2.11 declines them.
    fn effects(&mut self, effects: &EffectFrame) -> RResult<(), PluginError> {
        let _ = effects;
        RResult::RErr(PluginError::declined())
    }
}

/// What an [`Adapter`] holds after `shutdown`: every call is an error.
struct Retired;

impl Plugin for Retired {
    fn save_state(&self) -> Result<StateBlob, PluginError> {
        Err(PluginError::failed("the instance was shut down"))
    }

    fn restore_state(&mut self, _blob: &StateBlob) -> Result<(), PluginError> {
        Err(PluginError::failed("the instance was shut down"))
    }
}

/// Wraps a [`Plugin`] into the FFI instance: every entry point guarded. Private to this
/// crate: the only way to an instance is [`crate::export_plugin!`], so no plugin can
/// reach the host around the guard.
pub(crate) struct Adapter {
    inner: ManuallyDrop<Box<dyn Plugin>>,
    runtime: PluginRuntime,
    /// The host's interface minor, from `mission_start` (8 until then: a host that
    /// predates [`ErrorKind::DECLINED`] is never told about declined callbacks).
    host_minor: u32,
}

impl Adapter {
    /// The boxed FFI instance of `plugin`, logging through `runtime`.
    pub(crate) fn boxed(plugin: Box<dyn Plugin>, runtime: PluginRuntime) -> PluginInstanceBox {
        PluginInstance_TO::from_value(
            Self {
                inner: ManuallyDrop::new(plugin),
                runtime,
                host_minor: 8,
            },
            TD_Opaque,
        )
    }

    fn call<T>(
        &self,
        what: &str,
        body: impl FnOnce() -> Result<T, PluginError>,
    ) -> RResult<T, PluginError> {
        self.runtime.call(what, || body().into())
    }

    /// Runs callback `what` guarded. A decline ([`PluginError::declined`]: a default body,
    /// or an override that answers it) reaches a host of 2.9 or later, which stops
    /// calling the callback; an older host, which would take it for a fault, is answered
    /// `Ok`. Nothing is added to a call that is taken.
    fn callback(
        &mut self,
        what: &str,
        body: impl FnOnce(&mut dyn Plugin) -> Result<(), PluginError>,
    ) -> RResult<(), PluginError> {
        let tells = self.host_minor >= 9;
        let runtime = self.runtime.clone();
        let inner: &mut dyn Plugin = &mut **self.inner;
        match runtime.call(what, || body(inner).into()) {
            RErr(e) if e.kind == ErrorKind::DECLINED && !tells => ROk(()),
            r => r,
        }
    }
}

impl Drop for Adapter {
    fn drop(&mut self) {
        // SAFETY: `inner` is taken exactly once, here, and never used again.
        let inner = unsafe { ManuallyDrop::take(&mut self.inner) };
        self.runtime.call_unit("drop", move || drop(inner));
    }
}

impl PluginInstance for Adapter {
    fn mission_start(
        &mut self,
        host: HostRef<'_>,
        mission: &MissionInfo,
    ) -> RResult<(), PluginError> {
        self.host_minor = host.interface_minor();
        let runtime = self.runtime.clone();
        let inner = &mut self.inner;
        runtime.call("mission_start", || {
            inner.mission_start(&mut Host::new(host), mission).into()
        })
    }

    fn mission_end(&mut self, host: HostRef<'_>) -> RResult<(), PluginError> {
        let runtime = self.runtime.clone();
        let inner = &mut self.inner;
        runtime.call("mission_end", || {
            inner.mission_end(&mut Host::new(host)).into()
        })
    }

    fn calculate_object(
        &mut self,
        host: HostRef<'_>,
        object: ObjectRef,
    ) -> RResult<(), PluginError> {
        self.callback("calculate_object", |p| {
            p.calculate_object(&mut Host::new(host), object)
        })
    }

    fn on_message(
        &mut self,
        host: HostRef<'_>,
        object: ROption<ObjectRef>,
        message: &Message,
    ) -> RResult<(), PluginError> {
        self.callback("on_message", |p| {
            p.on_message(&mut Host::new(host), object.into_option(), message)
        })
    }

    fn update(&mut self, host: HostRef<'_>) -> RResult<(), PluginError> {
        self.callback("update", |p| p.update(&mut Host::new(host)))
    }

    fn object_added(&mut self, host: HostRef<'_>, object: ObjectRef) -> RResult<(), PluginError> {
        self.callback("object_added", |p| {
            p.object_added(&mut Host::new(host), object)
        })
    }

    fn object_removed(&mut self, host: HostRef<'_>, id: u32) -> RResult<(), PluginError> {
        self.callback("object_removed", |p| {
            p.object_removed(&mut Host::new(host), id)
        })
    }

    fn end_frame(&mut self, frame: u64) -> RResult<(), PluginError> {
        self.callback("end_frame", |p| p.end_frame(frame))
    }

    fn maintenance(&mut self) -> RResult<(), PluginError> {
        self.callback("maintenance", |p| p.maintenance())
    }

    fn save_state(&self) -> RResult<StateBlob, PluginError> {
        self.call("save_state", || self.inner.save_state())
    }

    fn restore_state(&mut self, blob: &StateBlob) -> RResult<(), PluginError> {
        let runtime = self.runtime.clone();
        let inner = &mut self.inner;
        runtime.call("restore_state", || inner.restore_state(blob).into())
    }

    fn shutdown(&mut self) -> RResult<(), PluginError> {
        let runtime = self.runtime.clone();
        let inner = &mut self.inner;
        let stopped = runtime.call("shutdown", || {
            inner.shutdown();
            ROk(())
        });
        // The plugin goes now, inside the guard, so a panicking destructor is reported to
        // the host; what stays behind answers every call with an error.
        let old = std::mem::replace(&mut **inner, Box::new(Retired));
        let dropped = runtime.call("drop", move || {
            drop(old);
            ROk(())
        });
        match (stopped, dropped) {
            (RErr(e), _) => RErr(e),
            (ROk(()), r) => r,
        }
    }

    fn terrain(&mut self) -> RResult<ROption<TerrainService_TO<'_, RMut<'_, ()>>>, PluginError> {
        self.offer(
            "terrain",
            |p| p.terrain().is_some(),
            |a| TerrainService_TO::from_ptr(RMut::new(a), TD_Opaque),
        )
    }

    fn render(&mut self) -> RResult<ROption<RenderBackend_TO<'_, RMut<'_, ()>>>, PluginError> {
        self.offer(
            "render",
            |p| p.renderer().is_some(),
            |a| RenderBackend_TO::from_ptr(RMut::new(a), TD_Opaque),
        )
    }

    fn control(&mut self) -> RResult<ROption<ControlService_TO<'_, RMut<'_, ()>>>, PluginError> {
        self.offer(
            "control",
            |p| p.control().is_some(),
            |a| ControlService_TO::from_ptr(RMut::new(a), TD_Opaque),
        )
    }

    fn input(&mut self) -> RResult<ROption<InputService_TO<'_, RMut<'_, ()>>>, PluginError> {
        self.offer(
            "input",
            |p| p.input().is_some(),
            |a| InputService_TO::from_ptr(RMut::new(a), TD_Opaque),
        )
    }

    fn service(&mut self) -> RResult<ROption<NamedService_TO<'_, RMut<'_, ()>>>, PluginError> {
        self.offer(
            "service",
            |p| p.service().is_some(),
            |a| NamedService_TO::from_ptr(RMut::new(a), TD_Opaque),
        )
    }

    fn audio(&mut self) -> RResult<ROption<AudioService_TO<'_, RMut<'_, ()>>>, PluginError> {
        self.offer(
            "audio",
            |p| p.audio().is_some(),
            |a| AudioService_TO::from_ptr(RMut::new(a), TD_Opaque),
        )
    }

    fn effects(&mut self) -> RResult<ROption<EffectsService_TO<'_, RMut<'_, ()>>>, PluginError> {
        self.offer(
            "effects",
            |p| p.effects().is_some(),
            |a| EffectsService_TO::from_ptr(RMut::new(a), TD_Opaque),
        )
    }

    fn net(&mut self) -> RResult<ROption<NetService_TO<'_, RMut<'_, ()>>>, PluginError> {
        self.offer(
            "net",
            |p| p.net().is_some(),
            |a| NetService_TO::from_ptr(RMut::new(a), TD_Opaque),
        )
    }
}

impl Adapter {
    /// A service getter: asks the plugin (guarded) whether it provides the service and,
    /// if so, wraps this adapter as that service's FFI object.
    fn offer<'s, S>(
        &'s mut self,
        what: &str,
        has: impl FnOnce(&mut dyn Plugin) -> bool,
        wrap: impl FnOnce(&'s mut Self) -> S,
    ) -> RResult<ROption<S>, PluginError> {
        let runtime = self.runtime.clone();
        let inner: &mut dyn Plugin = &mut **self.inner;
        match runtime.call(what, || ROk(has(inner))) {
            ROk(true) => ROk(ROption::RSome(wrap(self))),
            ROk(false) => ROk(ROption::RNone),
            RErr(e) => RErr(e),
        }
    }

    fn terrain_call<T>(
        &self,
        what: &str,
        body: impl FnOnce(&dyn TerrainProvider) -> Result<T, PluginError>,
    ) -> RResult<T, PluginError> {
        self.call(what, || match self.inner.terrain() {
            Some(t) => body(t),
            None => unsupported("the terrain service"),
        })
    }

    fn control_call<T>(
        &mut self,
        what: &str,
        body: impl FnOnce(&mut dyn ControlProvider) -> Result<T, PluginError>,
    ) -> RResult<T, PluginError> {
        let runtime = self.runtime.clone();
        let inner = &mut self.inner;
        runtime.call(what, || {
            match inner.control() {
                Some(c) => body(c),
                None => unsupported("the control service"),
            }
            .into()
        })
    }

    fn render_call<T>(
        &mut self,
        what: &str,
        body: impl FnOnce(&mut dyn Renderer) -> Result<T, PluginError>,
    ) -> RResult<T, PluginError> {
        let runtime = self.runtime.clone();
        let inner = &mut self.inner;
        runtime.call(what, || {
            match inner.renderer() {
                Some(r) => body(r),
                None => unsupported("the render backend"),
            }
            .into()
        })
    }
}

impl TerrainService for Adapter {
    fn height_at(&self, x: f32, y: f32) -> RResult<f32, PluginError> {
        self.terrain_call("height_at", |t| t.height_at(x, y))
    }
    fn normal_at(&self, x: f32, y: f32) -> RResult<Vec3f, PluginError> {
        self.terrain_call("normal_at", |t| t.normal_at(x, y))
    }
    fn intersect_segment(&self, a: Vec3f, b: Vec3f) -> RResult<ROption<Vec3f>, PluginError> {
        self.terrain_call("intersect_segment", |t| {
            t.intersect_segment(a, b).map(ROption::from)
        })
    }
    fn area_at(&self, x: f32, y: f32) -> RResult<ROption<u32>, PluginError> {
        self.terrain_call("area_at", |t| t.area_at(x, y).map(ROption::from))
    }
    fn route(&self, from: Vec3f, to: Vec3f) -> RResult<RVec<u32>, PluginError> {
        self.terrain_call("route", |t| t.route(from, to).map(RVec::from))
    }
    fn corridor(&self, from: Vec3f, to: Vec3f) -> RResult<RVec<Portal>, PluginError> {
        self.terrain_call("corridor", |t| t.corridor(from, to).map(RVec::from))
    }
    fn probe(&self, points: RSlice<'_, Vec3f>) -> RResult<RVec<GroundSample>, PluginError> {
        self.terrain_call("probe", |t| t.probe(points.as_slice()).map(RVec::from))
    }
    fn passage(
        &self,
        from: Vec3f,
        to: Vec3f,
        avoid: RSlice<'_, AreaLink>,
    ) -> RResult<Passage, PluginError> {
        self.terrain_call("passage", |t| t.passage(from, to, avoid.as_slice()))
    }
}

impl ControlService for Adapter {
    fn set_motion(&mut self, id: u32, request: &MotionRequest) -> RResult<(), PluginError> {
        let request = *request;
        self.control_call("set_motion", |c| c.set_motion(id, request))
    }
    fn state(&mut self, id: u32) -> RResult<ROption<PhysicalState>, PluginError> {
        self.control_call("state", |c| c.state(id).map(ROption::from))
    }
    fn query_sphere(&mut self, centre: Vec3f, radius: f32) -> RResult<RVec<u32>, PluginError> {
        self.control_call("query_sphere", |c| {
            c.query_sphere(centre, radius).map(RVec::from)
        })
    }
    fn query_box(&mut self, min: Vec3f, max: Vec3f) -> RResult<RVec<u32>, PluginError> {
        self.control_call("query_box", |c| c.query_box(min, max).map(RVec::from))
    }
    fn ray(
        &mut self,
        a: Vec3f,
        b: Vec3f,
        ignore: ROption<u32>,
    ) -> RResult<ROption<RayHit>, PluginError> {
        self.control_call("ray", |c| {
            c.ray(a, b, ignore.into_option()).map(ROption::from)
        })
    }
}

impl InputService for Adapter {
    fn poll(&mut self, window: RSlice<'_, DeviceInput>) -> RResult<RVec<InputRecord>, PluginError> {
        let runtime = self.runtime.clone();
        let inner = &mut self.inner;
        runtime.call("poll", || {
            match inner.input() {
                Some(i) => i.poll(window.as_slice()).map(RVec::from),
                None => unsupported("the input service"),
            }
            .into()
        })
    }
}

impl NamedService for Adapter {
    fn call(
        &mut self,
        method: abi_stable::std_types::RStr<'_>,
        request: RSlice<'_, u8>,
    ) -> RResult<RVec<u8>, PluginError> {
        let runtime = self.runtime.clone();
        let inner = &mut self.inner;
        runtime.call("service call", || {
            match inner.service() {
                Some(s) => s.call(method.as_str(), request.as_slice()).map(RVec::from),
                None => unsupported("the named service"),
            }
            .into()
        })
    }
}

impl AudioService for Adapter {
    fn frame(&mut self, frame: &AudioFrame) -> RResult<AudioReport, PluginError> {
        let runtime = self.runtime.clone();
        let inner = &mut self.inner;
        runtime.call("audio frame", || {
            match inner.audio() {
                Some(a) => a.frame(frame),
                None => unsupported("the audio service"),
            }
            .into()
        })
    }
}

impl EffectsService for Adapter {
    fn frame(&mut self, view: &EffectView) -> RResult<EffectFrame, PluginError> {
        let runtime = self.runtime.clone();
        let inner = &mut self.inner;
        runtime.call("effects frame", || {
            match inner.effects() {
                Some(e) => e.frame(view),
                None => unsupported("the effects service"),
            }
            .into()
        })
    }
}

impl NetService for Adapter {
    fn start(&mut self, start: &NetStart) -> RResult<(), PluginError> {
        let runtime = self.runtime.clone();
        let inner = &mut self.inner;
        runtime.call("net start", || {
            match inner.net() {
                Some(n) => n.start(start),
                None => unsupported("the net service"),
            }
            .into()
        })
    }

    fn exchange(&mut self, frame: &NetFrame) -> RResult<NetReport, PluginError> {
        let runtime = self.runtime.clone();
        let inner = &mut self.inner;
        runtime.call("net exchange", || {
            match inner.net() {
                Some(n) => n.exchange(frame),
                None => unsupported("the net service"),
            }
            .into()
        })
    }
}

impl RenderBackend for Adapter {
    fn draw(&mut self, frame: &RenderFrame) -> RResult<RenderStats, PluginError> {
        self.render_call("draw", |r| r.draw(frame))
    }
    fn draw_with_overlay(
        &mut self,
        frame: &RenderFrame,
        overlay: &Overlay,
    ) -> RResult<RenderStats, PluginError> {
        self.render_call("draw_with_overlay", |r| r.draw_with_overlay(frame, overlay))
    }
    fn capture(&mut self) -> RResult<ImageRgba8, PluginError> {
        self.render_call("capture", |r| r.capture())
    }
    fn capture_commands(&mut self) -> RResult<RString, PluginError> {
        self.render_call("capture_commands", |r| {
            r.capture_commands().map(RString::from)
        })
    }
    fn world(&mut self, world: &RenderWorld) -> RResult<(), PluginError> {
        self.callback("world", |p| match p.renderer() {
            Some(r) => r.world(world),
            None => unsupported("the render backend"),
        })
    }
    fn effects(&mut self, effects: &EffectFrame) -> RResult<(), PluginError> {
        self.callback("effects", |p| match p.renderer() {
            Some(r) => r.effects(effects),
            None => unsupported("the render backend"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A terrain provider written before 2.2: a straight two-area route.
    struct Older;

    impl TerrainProvider for Older {
        fn route(&self, _: Vec3f, _: Vec3f) -> Result<Vec<u32>, PluginError> {
            Ok(vec![4, 7])
        }
        fn corridor(&self, _: Vec3f, _: Vec3f) -> Result<Vec<Portal>, PluginError> {
            Ok(vec![Portal::default()])
        }
    }

    #[test]
    fn an_older_provider_answers_a_plain_passage_and_refuses_links_to_avoid() {
        let o = Older;
        let p = o.passage(Vec3f::default(), Vec3f::default(), &[]).unwrap();
        assert_eq!(p.route.as_slice(), &[4, 7]);
        assert_eq!(p.portals.len(), 1);
        let e = o
            .passage(Vec3f::default(), Vec3f::default(), &[AreaLink::new(4, 7)])
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::UNSUPPORTED);
    }

    #[test]
    fn errors_keep_their_chain_and_name_a_missing_factory() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl std::fmt::Display for Outer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("reading Land.map")
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let e = Outer(std::io::Error::other("disk on fire"));
        assert_eq!(crate::error_chain(&e), "reading Land.map: disk on fire");
        let p = PluginError::from_error(ErrorKind::INVALID, &e);
        assert_eq!(
            (p.kind, p.message.as_str()),
            (ErrorKind::INVALID, "reading Land.map: disk on fire")
        );
        let n = PluginError::no_factory("iron3d-ai", "wander");
        assert_eq!(n.kind, ErrorKind::UNSUPPORTED);
        assert_eq!(n.message.as_str(), "iron3d-ai has no factory 'wander'");
    }

    #[test]
    fn a_link_joins_its_ends_in_either_order() {
        let l = AreaLink::new(9, 2);
        assert!(l.joins(2, 9) && l.joins(9, 2) && !l.joins(2, 3));
        assert_eq!(l.normalized(), AreaLink::new(2, 9));
    }
}
