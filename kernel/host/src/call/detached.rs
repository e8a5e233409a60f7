//! The host context of calls made outside a kernel phase ([`DetachedCall`]): instance
//! start-up and swap preparation get the mission's files and seeds, never the world.

use super::HostShared;
use abi_stable::std_types::{RErr, ROption, RResult, RSlice, RStr, RVec};
use iron3d_abi::{
    AreaLink, Body, BodyWrite, ClockInfo, ErrorKind, GroundSample, HostApi, InputView, Message,
    MessageTarget, MissionOutcome, ModelBounds, MotionRequest, NewObject, ObjectInfo, ObjectRef,
    Passage, PhysicalState, PluginError, Portal, Property, Quatf, RayHit, SlotKind, Vec3f,
};

/// The context of calls made outside a kernel phase (instance start-up, swap
/// preparation): the mission's files and seeds, no world (it reports no objects and
/// refuses every world operation and service with [`ErrorKind::FORBIDDEN`]).
pub struct DetachedCall<'c> {
    /// The host's shared state.
    pub shared: &'c HostShared,
    /// The slot the instance is for.
    pub slot: SlotKind,
    /// The service the instance is for (its seeds are the service's, not the slot's).
    pub service: Option<&'c str>,
}

fn detached<T>(what: &str) -> RResult<T, PluginError> {
    RErr(PluginError::new(
        ErrorKind::FORBIDDEN,
        format!("{what}: no world access outside the simulation phases (e.g. in mission_start)"),
    ))
}

impl HostApi for DetachedCall<'_> {
    fn clock(&self) -> ClockInfo {
        ClockInfo {
            tick: 0,
            step_ns: 1_000_000_000 / u64::from(self.shared.tick_hz.max(1)),
            game_time_ns: 0,
            paused: false,
            phase: u32::MAX,
        }
    }
    fn input(&self) -> InputView<'_> {
        InputView {
            pressed: RSlice::from_slice(&[]),
            released: RSlice::from_slice(&[]),
            held: RSlice::from_slice(&[]),
            axes: RSlice::from_slice(&[]),
            manual: RSlice::from_slice(&[]),
            commands: RSlice::from_slice(&[]),
        }
    }
    fn object_count(&self) -> u32 {
        0
    }
    fn object_at(&self, _index: u32) -> ROption<ObjectRef> {
        ROption::RNone
    }
    fn find(&self, _id: u32) -> ROption<ObjectRef> {
        ROption::RNone
    }
    fn object(&self, _object: ObjectRef) -> RResult<ObjectInfo, PluginError> {
        detached("object")
    }
    fn set_transform(
        &mut self,
        _: ObjectRef,
        _: Vec3f,
        _: Quatf,
        _: Vec3f,
    ) -> RResult<(), PluginError> {
        detached("set_transform")
    }
    fn set_velocity(&mut self, _: ObjectRef, _: Vec3f) -> RResult<(), PluginError> {
        detached("set_velocity")
    }
    fn set_behaviour_state(&mut self, _: ObjectRef, _: u32) -> RResult<(), PluginError> {
        detached("set_behaviour_state")
    }
    fn set_active(&mut self, _: ObjectRef, _: bool) -> RResult<(), PluginError> {
        detached("set_active")
    }
    fn property(&self, _: ObjectRef, _: RSlice<'_, u8>) -> RResult<ROption<[u32; 4]>, PluginError> {
        detached("property")
    }
    fn set_property(
        &mut self,
        _: ObjectRef,
        _: RSlice<'_, u8>,
        _: &[u32; 4],
    ) -> RResult<(), PluginError> {
        detached("set_property")
    }
    fn append_property(
        &mut self,
        _: ObjectRef,
        _: RSlice<'_, u8>,
        _: &[u32; 4],
    ) -> RResult<(), PluginError> {
        detached("append_property")
    }
    fn properties(&self, _: ObjectRef) -> RResult<RVec<Property>, PluginError> {
        detached("properties")
    }
    fn prototype(&self, _: ObjectRef) -> RResult<RVec<u8>, PluginError> {
        detached("prototype")
    }
    fn create(&mut self, _: &NewObject) -> RResult<ObjectRef, PluginError> {
        detached("create")
    }
    fn delete(&mut self, _: ObjectRef) -> RResult<(), PluginError> {
        detached("delete")
    }
    fn kill(&mut self, _: ObjectRef) -> RResult<(), PluginError> {
        detached("kill")
    }
    fn read_bodies(&self, out: &mut RVec<Body>) {
        out.clear();
    }
    fn write_bodies(&mut self, _: RSlice<'_, BodyWrite>) -> RResult<u32, PluginError> {
        detached("write_bodies")
    }
    fn send(&mut self, _: MessageTarget, _: &Message) -> RResult<(), PluginError> {
        detached("send")
    }
    fn rng_seed(&self, stream: RStr<'_>) -> u64 {
        match self.service {
            Some(service) => self.shared.service_seed(service, stream.as_str()),
            None => self.shared.rng_seed(self.slot, stream.as_str()),
        }
    }
    fn read_mission_file(&self, name: RStr<'_>) -> RResult<RVec<u8>, PluginError> {
        self.shared
            .read_mission_file(name.as_str())
            .map(RVec::from)
            .into()
    }
    fn mission_parameter(&self, key: RStr<'_>) -> ROption<abi_stable::std_types::RString> {
        self.shared.mission_parameter(key.as_str())
    }
    fn terrain_height(&mut self, _: f32, _: f32) -> RResult<f32, PluginError> {
        detached("terrain height")
    }
    fn terrain_normal(&mut self, _: f32, _: f32) -> RResult<Vec3f, PluginError> {
        detached("terrain normal")
    }
    fn terrain_segment(&mut self, _: Vec3f, _: Vec3f) -> RResult<ROption<Vec3f>, PluginError> {
        detached("terrain segment")
    }
    fn terrain_area(&mut self, _: f32, _: f32) -> RResult<ROption<u32>, PluginError> {
        detached("terrain area")
    }
    fn terrain_route(&mut self, _: Vec3f, _: Vec3f) -> RResult<RVec<u32>, PluginError> {
        detached("terrain route")
    }
    fn terrain_corridor(&mut self, _: Vec3f, _: Vec3f) -> RResult<RVec<Portal>, PluginError> {
        detached("terrain corridor")
    }
    fn object_bounds(&self, _: ObjectRef) -> RResult<ROption<ModelBounds>, PluginError> {
        detached("object bounds")
    }
    fn terrain_probe(&mut self, _: RSlice<'_, Vec3f>) -> RResult<RVec<GroundSample>, PluginError> {
        detached("terrain probe")
    }
    fn control_set_motion(&mut self, _: ObjectRef, _: &MotionRequest) -> RResult<(), PluginError> {
        detached("control set_motion")
    }
    fn control_state(&mut self, _: ObjectRef) -> RResult<ROption<PhysicalState>, PluginError> {
        detached("control state")
    }
    fn control_query_sphere(&mut self, _: Vec3f, _: f32) -> RResult<RVec<u32>, PluginError> {
        detached("control query_sphere")
    }
    fn control_query_box(&mut self, _: Vec3f, _: Vec3f) -> RResult<RVec<u32>, PluginError> {
        detached("control query_box")
    }
    fn control_ray(
        &mut self,
        _: Vec3f,
        _: Vec3f,
        _: ROption<u32>,
    ) -> RResult<ROption<RayHit>, PluginError> {
        detached("control ray")
    }
    fn mission_outcome(&mut self, _: MissionOutcome) -> RResult<(), PluginError> {
        detached("mission_outcome")
    }
    fn terrain_passage(
        &mut self,
        _: Vec3f,
        _: Vec3f,
        _: RSlice<'_, AreaLink>,
    ) -> RResult<Passage, PluginError> {
        detached("terrain passage")
    }
    fn set_player_view(
        &mut self,
        _: &iron3d_abi::PlayerView,
        _: RSlice<'_, u32>,
    ) -> RResult<(), PluginError> {
        detached("set_player_view")
    }
    fn call_service(
        &mut self,
        service: RStr<'_>,
        _: RStr<'_>,
        _: RSlice<'_, u8>,
    ) -> RResult<RVec<u8>, PluginError> {
        detached(&format!("call_service {service}"))
    }

    fn interface_minor(&self) -> u32 {
        iron3d_abi::ABI_MINOR
    }
}
