//! The counter plugin body shared by the test builds: factories `counter`,
//! `counter-bad-restore`, `counter-panic-init`, `counter-panic-tick`,
//! `counter-panic-restore` and `counter-terrain` (AI slot; also reads the terrain height
//! under every object through the terrain service, for benchmarks), `counter-access`,
//! `terrain-reentry` and `collide-delete` (AI slot: drives every object to the origin
//! through the control service and, on `GMSG_COLLISION_DETECTED`, deletes the pair's
//! lower-id object from inside its own collision callback) and `grow` (AI slot: scales
//! the first object up at tick 10 and reports its collision radius as behaviour state),
//! `service-echo` (a service plugin, 2.5: method `echo` answers the request, `count` the
//! number of calls so far as `u64`, `big` an answer over the payload limit, `panic`
//! panics; its state is the call count) and `service-caller` (AI slot, `update`: a
//! scripted call per tick to the service named `echo`, see [`SERVICE_SCRIPT`], writing
//! each outcome on the first object's property `Svc` + the tick as
//! `[error kind or u32::MAX, answer length, first answer byte, 0]`; the outcome of a
//! call from `mission_start` goes to `Svc0` on the first tick), `audio-writer` (audio
//! slot, 2.6: every tick tries each of the [`WRITE_TRIES`] changes a plugin can ask for —
//! world writes, a message, the outcome, the player's view, a service call — all refused
//! for the audio slot, and counts the refusals; one accepted is a fault of the plugin;
//! its audio service reports `NO_DEVICE` with the refusal count as the reason and one
//! trace line per frame naming the listener's x) and `render-writer` (the same tries
//! from the render slot), `effects-writer` (effects slot, 2.11: the same tries every
//! tick, counted; its effects service answers one billboard per frame at the camera's
//! x, its `instance` the refusal count, its `command` the frame number),
//! `render-effects` (render slot, 2.11: draws nothing, keeps the effect frames it is
//! given, and its `capture_commands` answers them as JSON
//! `{"draws":D,"effect_frames":E,"last_frame":F,"primitives":P,"instance":I,"x":X}`),
//! `render-faulty` (render slot: every `draw` fails) and
//! `callback-probe` (AI slot, 2.9: overrides `calculate_object`, `on_message` and
//! `update`, declines the first two with `PluginError::declined`, and every tick writes
//! how often each was called on every object as property `Calls` = `[calculate_object,
//! on_message, update, 0]`, then sends itself a message) and `terrain-user` (AI slot,
//! 2.9: the terrain height asked typed and as the typed extension every tick, see
//! `Counter::use_terrain`). `terrain-reentry`'s own terrain (height 0) panics when asked
//! for x = [`PANIC_X`], and it writes `Reentry = [typed kind, extension kind, 0, 0]`.
//!
//! State: `count` (advanced by `STEP` once per tick, at the tick's first object),
//! `last_tick` and `ticks_seen`. Every object's `behaviour_state` is set to `count`, so
//! the build that runs is visible in the world and in the state hash.

use super::{REPORTED_ABI_MAJOR, STEP};
use iron3d_abi::{
    ErrorKind, FactoryDescription, Host, MissionInfo, ObjectRef, Plugin, PluginDescription,
    PluginError, SlotKind, StateBlob, callbacks,
};

/// Plugin name (identical for every build, as for two versions of one plugin).
pub const NAME: &str = "test-counter";
/// State blob format.
pub const STATE_FORMAT: &str = "iron3d-test-counter";

/// Which misbehaviour a factory asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Behaves.
    Normal,
    /// `restore_state` always fails.
    BadRestore,
    /// `mission_start` panics.
    PanicInit,
    /// `calculate_object` panics.
    PanicTick,
    /// `restore_state` panics.
    PanicRestore,
    /// Also asks the terrain service for the height under every object (benchmarks).
    Terrain,
    /// In `update`, reads every object through the host once (`object(h)`), and counts
    /// the active ones into its state (benchmarks of host-context access).
    Access,
    /// Terrain slot: a flat terrain (height 0) that, in `update`, asks the terrain
    /// service — itself — and writes the error kind it gets on the first object's
    /// `Reentry` property (the re-entry test).
    Reentry,
    /// AI slot: every tick, asks the control service to drive each object to the origin;
    /// on a collision message for the pair's lower id, deletes that object from inside
    /// its own callback (counted into `count`).
    CollideDelete,
    /// AI slot: at tick 10 triples the scale of the first object; every tick writes the
    /// bits of that object's collision radius (the control service's physical state) as
    /// its behaviour state, so a trace shows when the proxy was rebuilt.
    Grow,
    /// A service plugin (see the module docs).
    ServiceEcho,
    /// AI slot: calls the `echo` service by [`SERVICE_SCRIPT`].
    ServiceCaller,
    /// Audio slot: tries to write the world (see the module docs).
    AudioWriter,
    /// Render slot: tries to write the world as `audio-writer` does.
    RenderWriter,
    /// Render slot: a renderer whose every `draw` fails (the fallback tests).
    RenderFaulty,
    /// Effects slot: tries to write the world as `audio-writer` does; answers one
    /// billboard per frame.
    EffectsWriter,
    /// Render slot: keeps the effect frames it is given (2.11).
    RenderEffects,
    /// AI slot: counts its callbacks and declines all but `update` (2.9).
    Probe,
    /// AI slot: uses the terrain service both ways, typed and as an extension (2.9).
    TerrainUser,
    /// AI slot: in its first `update`, asks the control service to drive every object
    /// to [`JAM_POINT`] at [`JAM_SPEED`] (the crowd-jam benchmark); buildings, which
    /// refuse, are skipped. Counts the requests into `count`.
    Jam,
}

/// Where `jam` drives every object (the middle of the demo's 512 × 512 map).
pub const JAM_POINT: [f32; 2] = [256.0, 256.0];
/// How fast `jam` asks them to drive (units/s).
pub const JAM_SPEED: f32 = 5.0;

impl Mode {
    /// The slot the factory of this mode fills.
    fn slot(self) -> SlotKind {
        match self {
            Mode::Reentry => SlotKind::Terrain,
            Mode::AudioWriter => SlotKind::Audio,
            Mode::EffectsWriter => SlotKind::Effects,
            Mode::RenderWriter | Mode::RenderFaulty | Mode::RenderEffects => SlotKind::Render,
            _ => SlotKind::Ai,
        }
    }

    /// The callbacks the factory of this mode takes; the one `Counter` type declines
    /// the others ([`PluginError::declined`]), so each factory is called for its own.
    fn takes(self) -> u32 {
        match self {
            Mode::Access
            | Mode::Reentry
            | Mode::Grow
            | Mode::ServiceCaller
            | Mode::AudioWriter
            | Mode::EffectsWriter
            | Mode::RenderWriter
            | Mode::Probe
            | Mode::TerrainUser
            | Mode::Jam => callbacks::UPDATE,
            Mode::ServiceEcho | Mode::RenderFaulty | Mode::RenderEffects => 0,
            Mode::CollideDelete => callbacks::UPDATE | callbacks::MESSAGES,
            _ => callbacks::CALCULATE_OBJECT,
        }
    }
}

impl Counter {
    /// `Err(PluginError::declined())` when this instance's mode does not take callback
    /// `bit` (the one `Counter` type serves every factory).
    fn takes(&self, bit: u32) -> Result<(), PluginError> {
        if self.mode.takes() & bit != 0 {
            Ok(())
        } else {
            Err(PluginError::declined())
        }
    }
}

/// What `service-caller` asks the service `echo` at ticks 1, 2, …: `(service, method,
/// request length)`; the request bytes are `0, 1, 2, …` (mod 256).
pub const SERVICE_SCRIPT: [(&str, &str, usize); 7] = [
    ("echo", "echo", 3),
    ("no-such-service", "echo", 1),
    ("echo", "echo", iron3d_abi::MAX_SERVICE_PAYLOAD + 1),
    ("echo", "big", 0),
    ("echo", "count", 0),
    ("echo", "panic", 0),
    ("echo", "echo", 2),
];

/// How many writes `audio-writer` and `render-writer` try per tick (each refused).
pub const WRITE_TRIES: usize = 16;

const FACTORIES: [(&str, Mode); 20] = [
    ("counter", Mode::Normal),
    ("counter-bad-restore", Mode::BadRestore),
    ("counter-panic-init", Mode::PanicInit),
    ("counter-panic-tick", Mode::PanicTick),
    ("counter-panic-restore", Mode::PanicRestore),
    ("counter-terrain", Mode::Terrain),
    ("counter-access", Mode::Access),
    ("terrain-reentry", Mode::Reentry),
    ("collide-delete", Mode::CollideDelete),
    ("grow", Mode::Grow),
    ("service-echo", Mode::ServiceEcho),
    ("service-caller", Mode::ServiceCaller),
    ("audio-writer", Mode::AudioWriter),
    ("render-writer", Mode::RenderWriter),
    ("render-faulty", Mode::RenderFaulty),
    ("effects-writer", Mode::EffectsWriter),
    ("render-effects", Mode::RenderEffects),
    ("callback-probe", Mode::Probe),
    ("terrain-user", Mode::TerrainUser),
    ("jam", Mode::Jam),
];

fn describe() -> PluginDescription {
    let mut d = PluginDescription::current(
        NAME,
        &format!("{}+step{STEP}", env!("CARGO_PKG_VERSION")),
        FACTORIES
            .iter()
            .map(|&(name, mode)| FactoryDescription::of(name, mode.slot()))
            .collect(),
    );
    d.abi_major = REPORTED_ABI_MAJOR;
    d
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    let Some(&(_, mode)) = FACTORIES.iter().find(|(n, _)| *n == factory) else {
        return Err(PluginError::no_factory(NAME, factory));
    };
    Ok(Box::new(Counter {
        mode,
        count: 0,
        last_tick: 0,
        ticks_seen: 0,
        start_call: u32::MAX,
        calls: [0; 3],
        seen: SeenEffects::default(),
    }))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// The counter instance.
pub struct Counter {
    mode: Mode,
    count: u64,
    last_tick: u64,
    ticks_seen: u64,
    /// `service-caller`: the error kind of its call from `mission_start`.
    start_call: u32,
    /// `callback-probe`: how often `calculate_object`, `on_message` and `update` were
    /// called (not part of the state).
    calls: [u32; 3],
    /// `render-effects`: what it was given (not part of the state).
    seen: SeenEffects,
}

/// What `render-effects` keeps of the effect frames it was given.
#[derive(Clone, Copy, Debug, Default)]
struct SeenEffects {
    draws: u64,
    frames: u64,
    last_frame: u64,
    primitives: usize,
    instance: u32,
    x: f32,
}

impl Plugin for Counter {
    fn mission_start(
        &mut self,
        host: &mut Host<'_>,
        mission: &MissionInfo,
    ) -> Result<(), PluginError> {
        if self.mode == Mode::PanicInit {
            panic!("counter-panic-init refuses to start");
        }
        if self.mode == Mode::ServiceCaller {
            self.start_call = host
                .call_service("echo", "echo", b"x")
                .map_or_else(|e| e.kind.0, |_| u32::MAX);
        }
        tracing::info!(
            step = STEP,
            mission = mission.mission.as_str(),
            "counter initialised"
        );
        Ok(())
    }

    fn calculate_object(
        &mut self,
        host: &mut Host<'_>,
        object: ObjectRef,
    ) -> Result<(), PluginError> {
        self.calls[0] += 1;
        self.takes(callbacks::CALCULATE_OBJECT)?;
        let tick = host.clock().tick;
        if self.mode == Mode::PanicTick {
            panic!("counter-panic-tick at tick {tick}");
        }
        if tick != self.last_tick {
            self.last_tick = tick;
            self.count += STEP;
            self.ticks_seen += 1;
        }
        if self.mode == Mode::Terrain {
            let p = host.object(object)?.position;
            let ground = host.terrain().height(p.x, p.y).unwrap_or(-1.0);
            return host.set_behaviour_state(object, ground.to_bits());
        }
        host.set_behaviour_state(object, self.count as u32)
    }

    fn on_message(
        &mut self,
        host: &mut Host<'_>,
        object: Option<ObjectRef>,
        message: &iron3d_abi::Message,
    ) -> Result<(), PluginError> {
        self.calls[1] += 1;
        self.takes(callbacks::MESSAGES)?;
        let (Mode::CollideDelete, Some(o), iron3d_abi::MessageCode::COLLISION_DETECTED) =
            (self.mode, object, message.code)
        else {
            return Ok(());
        };
        if host.object(o)?.id == message.object_a {
            host.delete(o)?;
            self.count += 1;
        }
        Ok(())
    }

    fn update(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        self.calls[2] += 1;
        self.takes(callbacks::UPDATE)?;
        if self.mode == Mode::Probe {
            // Every object reports, so an object_added/removed is heard of too.
            let calls = self.calls;
            for h in host.objects().collect::<Vec<_>>() {
                host.set_property(h, b"Calls", [calls[0], calls[1], calls[2], 0])?;
            }
            return host.send(
                iron3d_abi::MessageTarget::slot(SlotKind::Ai),
                &iron3d_abi::Message::new(
                    iron3d_abi::MessageCode::plugin(1)
                        .ok_or_else(|| PluginError::failed("plugin message code 1"))?,
                ),
            );
        }
        if self.mode == Mode::ServiceCaller {
            return self.call_by_script(host);
        }
        if matches!(
            self.mode,
            Mode::AudioWriter | Mode::RenderWriter | Mode::EffectsWriter
        ) {
            return self.try_writes(host);
        }
        if self.mode == Mode::Grow {
            let Some(first) = host.objects().next() else {
                return Ok(());
            };
            let o = host.object(first)?;
            if host.clock().tick == 10 {
                let big = iron3d_abi::Vec3f {
                    x: o.scale.x * 3.0,
                    y: o.scale.y * 3.0,
                    z: o.scale.z * 3.0,
                };
                host.set_transform(first, o.position, o.orientation, big)?;
            }
            let radius = host.control().state(first)?.map_or(0.0, |s| s.radius);
            return host.set_behaviour_state(first, radius.to_bits());
        }
        if self.mode == Mode::Jam {
            if self.count > 0 {
                return Ok(());
            }
            let point = iron3d_abi::Vec3f {
                x: JAM_POINT[0],
                y: JAM_POINT[1],
                z: 0.0,
            };
            for h in host.objects().collect::<Vec<_>>() {
                match host.control().move_to(h, point, JAM_SPEED) {
                    Ok(()) => self.count += 1,
                    Err(e) if e.kind == ErrorKind::INVALID => {}
                    Err(e) => return Err(e),
                }
            }
            return Ok(());
        }
        if self.mode == Mode::CollideDelete {
            for h in host.objects().collect::<Vec<_>>() {
                host.control()
                    .move_to(h, iron3d_abi::Vec3f::default(), 4.0)?;
            }
            return Ok(());
        }
        if self.mode == Mode::Reentry {
            let kind = match host.terrain().height(0.0, 0.0) {
                Ok(_) => u32::MAX,
                Err(e) => e.kind.0,
            };
            let extension = match host
                .terrain()
                .call("terrain height", |t| t.height_at(0.0, 0.0))
            {
                Ok(_) => u32::MAX,
                Err(e) => e.kind.0,
            };
            let first = host.objects().next();
            if let Some(first) = first {
                host.set_property(first, b"Reentry", [kind, extension, 0, 0])?;
            }
            return Ok(());
        }
        if self.mode == Mode::TerrainUser {
            return self.use_terrain(host);
        }
        let mut active = 0u64;
        for h in host.objects().collect::<Vec<_>>() {
            active += u64::from(host.object(h)?.active);
        }
        self.count = self.count.wrapping_add(active);
        Ok(())
    }

    fn save_state(&self) -> Result<StateBlob, PluginError> {
        self.encode()
    }

    fn renderer(&mut self) -> Option<&mut dyn iron3d_abi::Renderer> {
        matches!(self.mode, Mode::RenderFaulty | Mode::RenderEffects)
            .then_some(self as &mut dyn iron3d_abi::Renderer)
    }

    fn effects(&mut self) -> Option<&mut dyn iron3d_abi::EffectsProvider> {
        (self.mode == Mode::EffectsWriter).then_some(self as &mut dyn iron3d_abi::EffectsProvider)
    }

    fn audio(&mut self) -> Option<&mut dyn iron3d_abi::AudioProvider> {
        (self.mode == Mode::AudioWriter).then_some(self as &mut dyn iron3d_abi::AudioProvider)
    }

    fn service(&mut self) -> Option<&mut dyn iron3d_abi::ServiceProvider> {
        (self.mode == Mode::ServiceEcho).then_some(self as &mut dyn iron3d_abi::ServiceProvider)
    }

    fn terrain(&self) -> Option<&dyn iron3d_abi::TerrainProvider> {
        (self.mode == Mode::Reentry).then_some(self as &dyn iron3d_abi::TerrainProvider)
    }

    fn restore_state(&mut self, blob: &StateBlob) -> Result<(), PluginError> {
        if self.mode == Mode::PanicRestore {
            panic!("counter-panic-restore cannot take over a state");
        }
        self.decode(blob)
    }
}

impl iron3d_abi::TerrainProvider for Counter {
    fn height_at(&self, x: f32, _y: f32) -> Result<f32, PluginError> {
        if x == PANIC_X {
            panic!("the terrain was asked for x = {x}");
        }
        Ok(0.0)
    }
}

/// `terrain-user` asks for this x at tick [`PANIC_TICK`]: the counter's terrain panics.
pub const PANIC_X: f32 = -77.0;
/// The tick `terrain-user` asks for [`PANIC_X`].
pub const PANIC_TICK: u64 = 4;

impl iron3d_abi::ServiceProvider for Counter {
    fn call(&mut self, method: &str, request: &[u8]) -> Result<Vec<u8>, PluginError> {
        self.count += 1;
        match method {
            "echo" => Ok(request.to_vec()),
            "count" => Ok(self.count.to_le_bytes().to_vec()),
            "big" => Ok(vec![0; iron3d_abi::MAX_SERVICE_PAYLOAD + 1]),
            "panic" => panic!("service-echo was asked to panic"),
            other => Err(PluginError::new(
                ErrorKind::UNSUPPORTED,
                format!("service-echo has no method {other:?}"),
            )),
        }
    }
}

impl iron3d_abi::AudioProvider for Counter {
    fn frame(
        &mut self,
        frame: &iron3d_abi::AudioFrame,
    ) -> Result<iron3d_abi::AudioReport, PluginError> {
        let x = frame
            .listener
            .into_option()
            .map_or(f32::NAN, |l| l.position.x);
        Ok(iron3d_abi::AudioReport {
            output: iron3d_abi::AudioOutput::NO_DEVICE,
            reason: format!("{} refusals", self.count).into(),
            active_sources: 0,
            trace: if frame.trace {
                vec![format!("{{\"frame\":{},\"x\":{x}}}", frame.frame).into()].into()
            } else {
                Default::default()
            },
        })
    }
}

impl iron3d_abi::EffectsProvider for Counter {
    fn frame(
        &mut self,
        view: &iron3d_abi::EffectView,
    ) -> Result<iron3d_abi::EffectFrame, PluginError> {
        let x = view.camera.into_option().map_or(f32::NAN, |c| c.position.x);
        let at = iron3d_abi::Vec3f { x, y: 0.0, z: 0.0 };
        let p = iron3d_abi::EffectPrimitive {
            instance: u32::try_from(self.count).unwrap_or(u32::MAX),
            command: u32::try_from(view.frame).unwrap_or(u32::MAX),
            kind: iron3d_abi::PrimitiveKind::BILLBOARD,
            blend: iron3d_abi::EffectBlend::ADDITIVE,
            position: at,
            end: at,
            size: 1.0,
            height: 1.0,
            rotation: 0.0,
            colour: [1.0; 4],
            texture: iron3d_abi::NO_EFFECT_TEXTURE,
        };
        Ok(iron3d_abi::EffectFrame {
            frame: view.frame,
            tick: view.tick,
            instances: 1,
            primitives: vec![p].into(),
            textures: Default::default(),
        })
    }
}

impl iron3d_abi::Renderer for Counter {
    fn effects(&mut self, effects: &iron3d_abi::EffectFrame) -> Result<(), PluginError> {
        if self.mode != Mode::RenderEffects {
            return Err(PluginError::declined());
        }
        let first = effects.primitives.first();
        self.seen = SeenEffects {
            frames: self.seen.frames + 1,
            last_frame: effects.frame,
            primitives: effects.primitives.len(),
            instance: first.map_or(u32::MAX, |p| p.instance),
            x: first.map_or(f32::NAN, |p| p.position.x),
            ..self.seen
        };
        Ok(())
    }

    fn capture_commands(&mut self) -> Result<String, PluginError> {
        let s = self.seen;
        Ok(format!(
            "{{\"draws\":{},\"effect_frames\":{},\"last_frame\":{},\"primitives\":{},\"instance\":{},\"x\":{}}}",
            s.draws, s.frames, s.last_frame, s.primitives, s.instance, s.x
        ))
    }

    fn draw(
        &mut self,
        _frame: &iron3d_abi::RenderFrame,
    ) -> Result<iron3d_abi::RenderStats, PluginError> {
        if self.mode == Mode::RenderEffects {
            self.seen.draws += 1;
            return Ok(iron3d_abi::RenderStats {
                draw_items: 0,
                objects: 0,
            });
        }
        self.count += 1;
        Err(PluginError::new(
            ErrorKind::INVALID,
            format!("render-faulty fails every frame (draw {})", self.count),
        ))
    }
}

impl Counter {
    /// `terrain-user`: the height under (1, tick) asked typed and as the extension
    /// (2.9), written on the first object as `Ground` + tick = `[typed height bits or
    /// error kind, extension height bits or error kind, 0, 0]`; at [`PANIC_TICK`] the
    /// extension asks for [`PANIC_X`]. An unknown method id is not reachable from the
    /// typed wrappers; the host's own tests cover it.
    fn use_terrain(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        let Some(first) = host.objects().next() else {
            return Ok(());
        };
        let tick = host.clock().tick;
        let y = tick as f32;
        let x = if tick == PANIC_TICK { PANIC_X } else { 1.0 };
        let typed = host
            .terrain()
            .height(1.0, y)
            .map_or_else(|e| e.kind.0, f32::to_bits);
        let extension = host
            .terrain()
            .call("terrain height", |t| t.height_at(x, y))
            .map_or_else(|e| e.kind.0, f32::to_bits);
        host.set_property(
            first,
            format!("Ground{tick}").as_bytes(),
            [typed, extension, 0, 0],
        )
    }

    /// `audio-writer` and `render-writer`: tries every kind of change a plugin can ask
    /// for — each world write, a message, the mission outcome, the player's view and a
    /// service call ([`WRITE_TRIES`] in all) — and counts the refusals. A write that is
    /// accepted, or refused for another reason than `FORBIDDEN`, is a fault of this
    /// plugin naming it, so a host that lets one through shows as a rolled-back slot.
    fn try_writes(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        let Some(first) = host.objects().next() else {
            return Ok(());
        };
        let v = iron3d_abi::Vec3f {
            x: 1.0,
            y: 2.0,
            z: 3.0,
        };
        let q = iron3d_abi::Quatf::default();
        let sound = iron3d_abi::SoundEvent::one_shot("sounds.lib", "FIRE.WAV", 0, None)
            .to_message()
            .map_err(|e| PluginError::new(ErrorKind::INVALID, format!("sound: {e}")))?;
        let view = iron3d_abi::PlayerView {
            eye: v,
            yaw: 0.0,
            pitch: 0.0,
            fov: 0.0,
            mode: iron3d_abi::ViewMode::FREE,
            subject: 0,
            flags: 0,
        };
        let body = iron3d_abi::BodyWrite {
            handle: first,
            position: v,
            orientation: q,
            velocity: v,
        };
        let tries: [(&str, Result<(), PluginError>); WRITE_TRIES] = [
            ("set_transform", host.set_transform(first, v, q, v)),
            ("set_velocity", host.set_velocity(first, v)),
            ("set_behaviour_state", host.set_behaviour_state(first, 777)),
            ("set_active", host.set_active(first, false)),
            (
                "set_property",
                host.set_property(first, b"Wr", [1, 2, 3, 4]),
            ),
            (
                "append_property",
                host.append_property(first, b"Wr", [1, 2, 3, 4]),
            ),
            (
                "create",
                host.create(&iron3d_abi::NewObject::default()).map(|_| ()),
            ),
            ("delete", host.delete(first)),
            ("kill", host.kill(first)),
            ("write_bodies", host.write_bodies(&[body]).map(|_| ())),
            (
                "send",
                host.send(iron3d_abi::MessageTarget::slot(SlotKind::Audio), &sound),
            ),
            ("control drive", host.control().drive(first, 5.0, 0.0)),
            (
                "control extension",
                host.control()
                    .call("control extension", |c| c.state(0))
                    .map(|_| ()),
            ),
            (
                "mission_outcome",
                host.mission_outcome(iron3d_abi::MissionOutcome::COMPLETE),
            ),
            ("set_player_view", host.set_player_view(&view, &[])),
            (
                "call_service",
                host.call_service("echo", "echo", b"").map(|_| ()),
            ),
        ];
        for (what, outcome) in tries {
            match outcome {
                Err(e) if e.kind == ErrorKind::FORBIDDEN => self.count += 1,
                Err(e) => {
                    return Err(PluginError::new(
                        ErrorKind::INVALID,
                        format!("{what} was refused, but not as FORBIDDEN: {e}"),
                    ));
                }
                Ok(()) => {
                    return Err(PluginError::new(
                        ErrorKind::INVALID,
                        format!("{what} was accepted from a presentation slot"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// `service-caller`'s call of this tick (see [`SERVICE_SCRIPT`]).
    fn call_by_script(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        let Some(first) = host.objects().next() else {
            return Ok(());
        };
        let tick = host.clock().tick;
        if tick == 1 {
            host.set_property(first, b"Svc0", [self.start_call, 0, 0, 0])?;
        }
        let Some(&(service, method, len)) = usize::try_from(tick)
            .ok()
            .and_then(|t| SERVICE_SCRIPT.get(t.wrapping_sub(1)))
        else {
            return Ok(());
        };
        let request: Vec<u8> = (0..len).map(|i| i as u8).collect();
        let outcome = match host.call_service(service, method, &request) {
            Ok(a) => [
                u32::MAX,
                a.len() as u32,
                u32::from(a.first().copied().unwrap_or(0)),
                0,
            ],
            Err(e) => [e.kind.0, 0, 0, 0],
        };
        host.set_property(first, format!("Svc{tick}").as_bytes(), outcome)
    }

    fn encode(&self) -> Result<StateBlob, PluginError> {
        let mut bytes = Vec::with_capacity(24);
        for v in [self.count, self.last_tick, self.ticks_seen] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        Ok(StateBlob::new(STATE_FORMAT, 1, bytes))
    }

    fn decode(&mut self, blob: &StateBlob) -> Result<(), PluginError> {
        {
            if self.mode == Mode::RenderFaulty {
                // Takes over from any renderer: it keeps nothing of theirs.
                return Ok(());
            }
            if self.mode == Mode::BadRestore {
                return Err(PluginError::new(
                    ErrorKind::BAD_STATE,
                    "counter-bad-restore never accepts a state",
                ));
            }
            if blob.format.as_str() != STATE_FORMAT || blob.version != 1 || blob.bytes.len() != 24 {
                return Err(PluginError::new(
                    ErrorKind::BAD_STATE,
                    format!(
                        "expected {STATE_FORMAT} v1 (24 bytes), got {} v{} ({} bytes)",
                        blob.format,
                        blob.version,
                        blob.bytes.len()
                    ),
                ));
            }
            let word = |i: usize| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&blob.bytes[i * 8..i * 8 + 8]);
                u64::from_le_bytes(b)
            };
            self.count = word(0);
            self.last_tick = word(1);
            self.ticks_seen = word(2);
            tracing::info!(count = self.count, "counter state restored");
            Ok(())
        }
    }
}
