//! Unit tests of the plugin-call context: detached calls, caller identity and typed
//! services by id.

use super::*;

fn shared() -> HostShared {
    HostShared {
        mission: "detached".into(),
        seed: 42,
        tick_hz: 50,
        load_number: 1,
        files: None,
        parameters: BTreeMap::from([("difficulty".to_owned(), "hard".to_owned())]),
        cells: Mutex::default(),
        provider_faults: Mutex::default(),
        model_bounds: std::sync::RwLock::default(),
        outcome: Mutex::default(),
        services: Mutex::default(),
        stopped_services: Mutex::default(),
        audio: Mutex::default(),
        effects: Mutex::default(),
    }
}

fn refused<T: std::fmt::Debug>(r: RResult<T, PluginError>, what: &str) {
    let e = r.into_result().expect_err(what);
    assert_eq!(e.kind, ErrorKind::FORBIDDEN, "{what}: {e}");
    assert_eq!(
        e.message.as_str(),
        format!("{what}: no world access outside the simulation phases (e.g. in mission_start)"),
    );
}

#[test]
fn a_detached_call_has_files_and_seeds_and_no_world() {
    let shared = shared();
    let origin = Vec3f::default();
    // The render slot too: the detached refusal comes before the presentation rule;
    // and a service the same (its calls are all detached).
    let callers = [
        Caller::Slot(SlotKind::Ai),
        Caller::Slot(SlotKind::Render),
        Caller::Service("weather".into()),
    ];
    for caller in &callers {
        let mut call = HostCall::detached(&shared, caller);
        let clock = call.clock();
        assert_eq!((clock.tick, clock.phase), (0, u32::MAX));
        assert_eq!(clock.step_ns, 20_000_000);
        assert_eq!((clock.game_time_ns, clock.paused), (0, false));
        assert!(call.input().held.is_empty() && call.input().commands.is_empty());
        assert_eq!(call.object_count(), 0);
        assert!(call.object_at(0).is_none() && call.find(1).is_none());
        let mut bodies = RVec::new();
        call.read_bodies(&mut bodies);
        assert!(bodies.is_empty());

        let o = ObjectRef {
            slot: 0,
            generation: 0,
        };
        refused(call.object(o), "object");
        refused(call.object_bounds(o), "object bounds");
        refused(call.set_velocity(o, origin), "set_velocity");
        // NaN is not looked at: the call is refused first.
        let nan = Vec3f {
            x: f32::NAN,
            ..origin
        };
        refused(call.set_velocity(o, nan), "set_velocity");
        refused(call.write_bodies(RSlice::from_slice(&[])), "write_bodies");
        refused(call.terrain_height(0.0, 0.0), "terrain height");
        refused(call.control_state(o), "control state");
        refused(
            call.control_ray(origin, origin, ROption::RNone),
            "control ray",
        );
        let motion = MotionRequest::stop();
        refused(call.control_set_motion(o, &motion), "control set_motion");
        refused(
            call.mission_outcome(MissionOutcome::COMPLETE),
            "mission_outcome",
        );
        refused(
            call.call_service("weather".into(), "wind".into(), RSlice::from_slice(&[])),
            "call_service weather",
        );

        for id in [ExtensionId::TERRAIN, ExtensionId::CONTROL] {
            let mut never = NeverVisited;
            let visit = ExtensionVisit_TO::from_ptr(
                abi_stable::RMut::new(&mut never),
                abi_stable::sabi_trait::TD_Opaque,
            );
            refused(
                call.use_extension(id, "extension".into(), visit),
                "extension",
            );
        }

        let seed = match caller {
            Caller::Slot(slot) => shared.rng_seed(*slot, "spawn"),
            Caller::Service(name) => shared.service_seed(name, "spawn"),
        };
        assert_eq!(call.rng_seed("spawn".into()), seed);
        assert_eq!(
            call.mission_parameter("difficulty".into()).into_option(),
            Some("hard".into())
        );
        let e = call.read_mission_file("x.txt".into()).into_result();
        assert_eq!(e.expect_err("no game data").kind, ErrorKind::NOT_FOUND);
    }
    assert!(shared.outcome.lock().unwrap().is_none());
}

/// A typed-service visit that must not run.
struct NeverVisited;

impl iron3d_abi::ExtensionVisit for NeverVisited {
    fn terrain(
        &mut self,
        _: iron3d_abi::extension::TerrainService_TO<'_, abi_stable::RMut<'_, ()>>,
    ) -> RResult<(), PluginError> {
        panic!("the terrain visit ran")
    }
    fn control(
        &mut self,
        _: iron3d_abi::extension::ControlService_TO<'_, abi_stable::RMut<'_, ()>>,
    ) -> RResult<(), PluginError> {
        panic!("the control visit ran")
    }
}

#[test]
fn an_unknown_typed_service_is_unsupported_by_id() {
    let shared = shared();
    let caller = Caller::Slot(SlotKind::Ai);
    let mut call = HostCall::detached(&shared, &caller);
    let mut never = NeverVisited;
    let visit = ExtensionVisit_TO::from_ptr(
        abi_stable::RMut::new(&mut never),
        abi_stable::sabi_trait::TD_Opaque,
    );
    let e = call
        .use_extension(ExtensionId(99), "weather".into(), visit)
        .into_result()
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::UNSUPPORTED);
    assert_eq!(e.message.as_str(), "weather: no typed service has id 99");
}

#[test]
fn a_detached_service_call_has_the_service_seeds() {
    let shared = shared();
    let caller = Caller::Service("weather".into());
    let call = HostCall::detached(&shared, &caller);
    let seed = call.rng_seed("wind".into());
    assert_eq!(seed, shared.service_seed("weather", "wind"));
    assert_ne!(seed, shared.rng_seed(SlotKind::Ai, "wind"));
}

#[test]
fn a_caller_is_named_as_itself_and_a_service_follows_the_ai_rules() {
    assert_eq!(Caller::Slot(SlotKind::Render).to_string(), "render");
    assert_eq!(
        Caller::Service("weather".into()).to_string(),
        "service weather"
    );
    for slot in SlotKind::ALL {
        assert_eq!(Caller::Slot(slot).rules(), slot);
    }
    let service = Caller::Service("weather".into());
    assert_eq!(service.rules(), SlotKind::Ai);
    // The AI slot's rules: it may change the world, never a mirror.
    assert!(SlotRole::of(service.rules()).writes_world());
    assert_ne!(service.rules(), SlotKind::Net);
}
