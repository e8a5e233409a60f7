//! The per-call host context plugins get in every callback: [`Host`] with typed
//! wrappers over [`crate::HostApi`], and the typed service views [`Control`] and
//! [`Terrain`] (the provider active now, fetched per call).

use crate::control::{GroundSample, ModelBounds, MotionRequest, PhysicalState, RayHit};
use crate::extension::{ControlVisit, ExtensionId, ExtensionVisit_TO, TerrainVisit, Visit};
use crate::host::{
    Body, BodyWrite, ClockInfo, HostRef, InputView, MissionOutcome, NewObject, ObjectInfo,
    ObjectRef, Property,
};
use crate::input::PlayerView;
use crate::math::{Quatf, Vec3f};
use crate::message::{Message, MessageTarget};
use crate::plugin::{ControlService_TO, TerrainService_TO};
use crate::types::{AreaLink, Passage, PluginError, Portal};
use abi_stable::RMut;
use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{ROption, RResult, RSlice, RVec};

/// The host context of one callback, with typed wrappers over [`crate::HostApi`]. Valid
/// for the call it was handed to only.
pub struct Host<'a> {
    raw: HostRef<'a>,
}

impl<'a> Host<'a> {
    /// Wraps the raw context (the adapter does this; tests may too).
    pub fn new(raw: HostRef<'a>) -> Self {
        Self { raw }
    }

    /// The interface minor version the engine implements (2.9; an engine before 2.9
    /// answers 8): a plugin sends what a newer interface added only to an engine that
    /// knows it.
    pub fn interface_minor(&self) -> u32 {
        self.raw.interface_minor()
    }

    /// The clocks.
    pub fn clock(&self) -> ClockInfo {
        self.raw.clock()
    }

    /// The input snapshot of the tick.
    pub fn input(&self) -> InputView<'_> {
        self.raw.input()
    }

    /// Registered objects, in queue order.
    pub fn objects(&self) -> impl Iterator<Item = ObjectRef> + '_ {
        (0..self.raw.object_count()).filter_map(|i| self.raw.object_at(i).into_option())
    }

    /// Number of registered objects.
    pub fn object_count(&self) -> u32 {
        self.raw.object_count()
    }

    /// The object with original id `id`.
    pub fn find(&self, id: u32) -> Option<ObjectRef> {
        self.raw.find(id).into_option()
    }

    /// Everything about an object but its properties.
    pub fn object(&self, object: ObjectRef) -> Result<ObjectInfo, PluginError> {
        self.raw.object(object).into_result()
    }

    /// Moves an object.
    pub fn set_transform(
        &mut self,
        object: ObjectRef,
        position: impl Into<Vec3f>,
        orientation: impl Into<Quatf>,
        scale: impl Into<Vec3f>,
    ) -> Result<(), PluginError> {
        self.raw
            .set_transform(object, position.into(), orientation.into(), scale.into())
            .into_result()
    }

    /// Sets an object's velocity.
    pub fn set_velocity(
        &mut self,
        object: ObjectRef,
        velocity: impl Into<Vec3f>,
    ) -> Result<(), PluginError> {
        self.raw.set_velocity(object, velocity.into()).into_result()
    }

    /// Sets an object's behaviour state.
    pub fn set_behaviour_state(
        &mut self,
        object: ObjectRef,
        state: u32,
    ) -> Result<(), PluginError> {
        self.raw.set_behaviour_state(object, state).into_result()
    }

    /// Switches an object's calculation on or off.
    pub fn set_active(&mut self, object: ObjectRef, active: bool) -> Result<(), PluginError> {
        self.raw.set_active(object, active).into_result()
    }

    /// The first property named exactly `name` (raw words), `None` when absent.
    pub fn property(
        &self,
        object: ObjectRef,
        name: &[u8],
    ) -> Result<Option<[u32; 4]>, PluginError> {
        self.raw
            .property(object, RSlice::from_slice(name))
            .into_result()
            .map(ROption::into_option)
    }

    /// Sets the first property named `name`, appending it when absent.
    pub fn set_property(
        &mut self,
        object: ObjectRef,
        name: &[u8],
        value: [u32; 4],
    ) -> Result<(), PluginError> {
        self.raw
            .set_property(object, RSlice::from_slice(name), &value)
            .into_result()
    }

    /// Appends a property (duplicates allowed).
    pub fn append_property(
        &mut self,
        object: ObjectRef,
        name: &[u8],
        value: [u32; 4],
    ) -> Result<(), PluginError> {
        self.raw
            .append_property(object, RSlice::from_slice(name), &value)
            .into_result()
    }

    /// The whole property bag.
    pub fn properties(&self, object: ObjectRef) -> Result<Vec<Property>, PluginError> {
        self.raw
            .properties(object)
            .into_result()
            .map(RVec::into_vec)
    }

    /// The prototype (resource name) an object was made from; empty for none.
    pub fn prototype(&self, object: ObjectRef) -> Result<Vec<u8>, PluginError> {
        self.raw.prototype(object).into_result().map(RVec::into_vec)
    }

    /// Creates an object and adds it to the game.
    pub fn create(&mut self, object: &NewObject) -> Result<ObjectRef, PluginError> {
        self.raw.create(object).into_result()
    }

    /// `DeleteGameObject`.
    pub fn delete(&mut self, object: ObjectRef) -> Result<(), PluginError> {
        self.raw.delete(object).into_result()
    }

    /// `KillGameObject`.
    pub fn kill(&mut self, object: ObjectRef) -> Result<(), PluginError> {
        self.raw.kill(object).into_result()
    }

    /// Every registered object's motion into `out` (one call for all of them).
    pub fn read_bodies(&self, out: &mut RVec<Body>) {
        self.raw.read_bodies(out);
    }

    /// Writes many objects' motion in one call (all validated first, all or nothing).
    pub fn write_bodies(&mut self, bodies: &[BodyWrite]) -> Result<u32, PluginError> {
        self.raw
            .write_bodies(RSlice::from_slice(bodies))
            .into_result()
    }

    /// Sends a message, delivered at the next phase boundary.
    pub fn send(&mut self, target: MessageTarget, message: &Message) -> Result<(), PluginError> {
        self.raw.send(target, message).into_result()
    }

    /// A seed for this plugin's RNG stream `stream` (see [`crate::rng::PluginRng`]).
    pub fn rng_seed(&self, stream: &str) -> u64 {
        self.raw.rng_seed(stream.into())
    }

    /// Reads a game file of the mission (mission directory first, then the game root).
    pub fn read_mission_file(&self, name: &str) -> Result<Vec<u8>, PluginError> {
        self.raw
            .read_mission_file(name.into())
            .into_result()
            .map(RVec::into_vec)
    }

    /// The mission parameter `key` (set by whoever started the mission), if any.
    pub fn mission_parameter(&self, key: &str) -> Option<String> {
        self.raw
            .mission_parameter(key.into())
            .into_option()
            .map(|s| s.into_string())
    }

    /// (2.3) Publishes the player's view and selection (see
    /// [`crate::HostApi::set_player_view`]).
    pub fn set_player_view(
        &mut self,
        view: &PlayerView,
        selected: &[u32],
    ) -> Result<(), PluginError> {
        self.raw
            .set_player_view(view, RSlice::from_slice(selected))
            .into_result()
    }

    /// The terrain service of the currently active terrain plugin (fetched per call:
    /// never keep it, a swap may replace the provider).
    pub fn terrain(&mut self) -> Terrain<'_, 'a> {
        Terrain { host: self }
    }

    /// The control service of the currently active control plugin (fetched per call,
    /// like [`Host::terrain`]).
    pub fn control(&mut self) -> Control<'_, 'a> {
        Control { host: self }
    }

    /// (2.1) Reports the mission's outcome (see [`crate::HostApi::mission_outcome`]).
    pub fn mission_outcome(&mut self, outcome: MissionOutcome) -> Result<(), PluginError> {
        self.raw.mission_outcome(outcome).into_result()
    }

    /// (2.1) The bounds of `object`'s models in object space, `None` when it has no
    /// model the mission loaded.
    pub fn object_bounds(&self, object: ObjectRef) -> Result<Option<ModelBounds>, PluginError> {
        self.raw
            .object_bounds(object)
            .into_result()
            .map(ROption::into_option)
    }

    /// (2.5) Calls `method` of the service plugin named `service` (see
    /// [`crate::service`]): the answer's bytes, or the service's error;
    /// [`crate::ErrorKind::NO_PROVIDER`] when no such service is loaded.
    pub fn call_service(
        &mut self,
        service: &str,
        method: &str,
        request: &[u8],
    ) -> Result<Vec<u8>, PluginError> {
        self.raw
            .call_service(service.into(), method.into(), RSlice::from_slice(request))
            .into_result()
            .map(RVec::into_vec)
    }
}

/// The control service as a consumer sees it (see [`Host::control`]). Answers reflect
/// the control plugin's last completed step; motion requests take effect in its next.
pub struct Control<'h, 'a> {
    host: &'h mut Host<'a>,
}

impl Control<'_, '_> {
    /// (2.9) Runs `f` on the control service of the control plugin active now (the
    /// typed extension [`ExtensionId::CONTROL`], see [`crate::extension`]): every method
    /// of [`ControlService_TO`], including ones newer than this wrapper's typed methods.
    /// `what` names the call in errors. Only slots that may change the world may.
    pub fn call<T>(
        &mut self,
        what: &str,
        f: impl FnOnce(&mut ControlService_TO<'_, RMut<'_, ()>>) -> RResult<T, PluginError>,
    ) -> Result<T, PluginError> {
        let mut visit = ControlVisit(Visit::new(f));
        self.host.visit(ExtensionId::CONTROL, what, &mut visit)?;
        visit.0.answer.ok_or_else(|| not_run(what))
    }

    /// Sets `object`'s desired motion (kept until replaced).
    pub fn set_motion(
        &mut self,
        object: ObjectRef,
        request: MotionRequest,
    ) -> Result<(), PluginError> {
        self.host
            .raw
            .control_set_motion(object, &request)
            .into_result()
    }
    /// Drive at `speed` (units/s) turning at `turn` (radians/s).
    pub fn drive(&mut self, object: ObjectRef, speed: f32, turn: f32) -> Result<(), PluginError> {
        self.set_motion(object, MotionRequest::drive(speed, turn))
    }
    /// Drive to `target` at up to `speed` and stop there.
    pub fn move_to(
        &mut self,
        object: ObjectRef,
        target: Vec3f,
        speed: f32,
    ) -> Result<(), PluginError> {
        self.set_motion(object, MotionRequest::move_to(target, speed))
    }
    /// Brake to a standstill.
    pub fn stop(&mut self, object: ObjectRef) -> Result<(), PluginError> {
        self.set_motion(object, MotionRequest::stop())
    }
    /// The physical state of `object`, `None` when the control plugin does not simulate it.
    pub fn state(&mut self, object: ObjectRef) -> Result<Option<PhysicalState>, PluginError> {
        self.host
            .raw
            .control_state(object)
            .into_result()
            .map(ROption::into_option)
    }
    /// Ids of the objects whose proxy overlaps the sphere, ascending (resolve them with
    /// [`Host::find`]).
    pub fn within(&mut self, centre: Vec3f, radius: f32) -> Result<Vec<u32>, PluginError> {
        self.host
            .raw
            .control_query_sphere(centre, radius)
            .into_result()
            .map(RVec::into_vec)
    }
    /// Ids of the objects whose proxy overlaps the axis-aligned box, ascending.
    pub fn in_box(&mut self, min: Vec3f, max: Vec3f) -> Result<Vec<u32>, PluginError> {
        self.host
            .raw
            .control_query_box(min, max)
            .into_result()
            .map(RVec::into_vec)
    }
    /// The first object the segment `a → b` hits, skipping `ignore`.
    pub fn ray(
        &mut self,
        a: Vec3f,
        b: Vec3f,
        ignore: Option<u32>,
    ) -> Result<Option<RayHit>, PluginError> {
        self.host
            .raw
            .control_ray(a, b, ignore.into())
            .into_result()
            .map(ROption::into_option)
    }
}

/// The terrain service as a consumer sees it (see [`Host::terrain`]).
pub struct Terrain<'h, 'a> {
    host: &'h mut Host<'a>,
}

impl Terrain<'_, '_> {
    /// (2.9) Runs `f` on the terrain service of the terrain plugin active now (the typed
    /// extension [`ExtensionId::TERRAIN`], see [`crate::extension`]): every method of
    /// [`TerrainService_TO`], including ones newer than this wrapper's typed methods.
    /// `what` names the call in errors.
    pub fn call<T>(
        &mut self,
        what: &str,
        f: impl FnOnce(&TerrainService_TO<'_, RMut<'_, ()>>) -> RResult<T, PluginError>,
    ) -> Result<T, PluginError> {
        let mut visit = TerrainVisit(Visit::new(f));
        self.host.visit(ExtensionId::TERRAIN, what, &mut visit)?;
        visit.0.answer.ok_or_else(|| not_run(what))
    }

    /// Surface height at `(x, y)`.
    pub fn height(&mut self, x: f32, y: f32) -> Result<f32, PluginError> {
        self.host.raw.terrain_height(x, y).into_result()
    }
    /// Unit surface normal at `(x, y)`.
    pub fn normal(&mut self, x: f32, y: f32) -> Result<Vec3f, PluginError> {
        self.host.raw.terrain_normal(x, y).into_result()
    }
    /// First intersection of the segment `a → b` with the surface.
    pub fn segment(&mut self, a: Vec3f, b: Vec3f) -> Result<Option<Vec3f>, PluginError> {
        self.host
            .raw
            .terrain_segment(a, b)
            .into_result()
            .map(ROption::into_option)
    }
    /// The areal at `(x, y)`.
    pub fn area(&mut self, x: f32, y: f32) -> Result<Option<u32>, PluginError> {
        self.host
            .raw
            .terrain_area(x, y)
            .into_result()
            .map(ROption::into_option)
    }
    /// Area ids from `from` to `to`.
    pub fn route(&mut self, from: Vec3f, to: Vec3f) -> Result<Vec<u32>, PluginError> {
        self.host
            .raw
            .terrain_route(from, to)
            .into_result()
            .map(RVec::into_vec)
    }
    /// The portals of the route from `from` to `to`.
    pub fn corridor(&mut self, from: Vec3f, to: Vec3f) -> Result<Vec<Portal>, PluginError> {
        self.host
            .raw
            .terrain_corridor(from, to)
            .into_result()
            .map(RVec::into_vec)
    }
    /// (2.1) Height, normal, areal and walkability under each point, in order.
    pub fn probe(&mut self, points: &[Vec3f]) -> Result<Vec<GroundSample>, PluginError> {
        self.host
            .raw
            .terrain_probe(RSlice::from_slice(points))
            .into_result()
            .map(RVec::into_vec)
    }
    /// (2.2) The route from `from` to `to` and its corridor in one answer, never through
    /// a link of `avoid` (see [`crate::HostApi::terrain_passage`]).
    pub fn passage(
        &mut self,
        from: Vec3f,
        to: Vec3f,
        avoid: &[AreaLink],
    ) -> Result<Passage, PluginError> {
        self.host
            .raw
            .terrain_passage(from, to, RSlice::from_slice(avoid))
            .into_result()
    }
}

impl Host<'_> {
    /// Hands `visit` to the host for the typed service `id` (see [`crate::extension`]).
    fn visit(
        &mut self,
        id: ExtensionId,
        what: &str,
        visit: &mut impl crate::extension::ExtensionVisit,
    ) -> Result<(), PluginError> {
        let v = ExtensionVisit_TO::from_ptr(RMut::new(visit), TD_Opaque);
        self.raw.use_extension(id, what.into(), v).into_result()
    }
}

/// The error of a service visit the host answered `Ok` without running.
fn not_run(what: &str) -> PluginError {
    PluginError::failed(format!(
        "{what}: the host answered without calling the service"
    ))
}
