//! The counter plugin body shared by the test builds: factories `counter`,
//! `counter-bad-restore`, `counter-panic-init` and `counter-panic-tick` (AI slot).
//!
//! State: `count` (advanced by `STEP` once per tick, at the tick's first object),
//! `last_tick` and `ticks_seen`. Every object's `behaviour_state` is set to `count`, so
//! the build that runs is visible in the world and in the state hash.

use super::{REPORTED_ABI_MAJOR, STEP};
use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RErr, ROk, RResult, RString, RVec};
use iron3d_abi::{
    Command, ErrorKind, FactoryDescription, HostContext, MissionContext, ObjectState,
    PluginDescription, PluginError, PluginRuntime, SlotKind, StateBlob, Subsystem, Subsystem_TO,
    SubsystemBox, TickInfo,
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
    /// `init` panics.
    PanicInit,
    /// `calculate_object` panics.
    PanicTick,
}

const FACTORIES: [(&str, Mode); 4] = [
    ("counter", Mode::Normal),
    ("counter-bad-restore", Mode::BadRestore),
    ("counter-panic-init", Mode::PanicInit),
    ("counter-panic-tick", Mode::PanicTick),
];

fn describe() -> PluginDescription {
    PluginDescription {
        name: RString::from(NAME),
        version: RString::from(format!("{}+step{STEP}", env!("CARGO_PKG_VERSION"))),
        abi_major: REPORTED_ABI_MAJOR,
        abi_minor: iron3d_abi::ABI_MINOR,
        factories: FACTORIES
            .iter()
            .map(|(name, _)| FactoryDescription {
                name: RString::from(*name),
                slot: SlotKind::Ai,
                callbacks: iron3d_abi::callbacks::CALCULATE_OBJECT,
            })
            .collect(),
    }
}

fn create(factory: &str, host: HostContext) -> RResult<SubsystemBox, PluginError> {
    let Some(&(_, mode)) = FACTORIES.iter().find(|(n, _)| *n == factory) else {
        return RErr(PluginError::new(
            ErrorKind::Unsupported,
            format!("{NAME} has no factory '{factory}'"),
        ));
    };
    let counter = Counter {
        mode,
        runtime: PluginRuntime::new(host.log, host.log_mode),
        count: 0,
        last_tick: 0,
        ticks_seen: 0,
    };
    ROk(Subsystem_TO::from_value(counter, TD_Opaque))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// The counter instance.
pub struct Counter {
    mode: Mode,
    runtime: PluginRuntime,
    count: u64,
    last_tick: u64,
    ticks_seen: u64,
}

impl Subsystem for Counter {
    fn slot(&self) -> SlotKind {
        SlotKind::Ai
    }

    fn init(&mut self, ctx: &MissionContext) -> RResult<(), PluginError> {
        let mode = self.mode;
        self.runtime.call("init", || {
            if mode == Mode::PanicInit {
                panic!("counter-panic-init refuses to start");
            }
            tracing::info!(
                step = STEP,
                mission = ctx.mission.as_str(),
                "counter initialised"
            );
            ROk(())
        })
    }

    fn calculate_object(
        &mut self,
        tick: &TickInfo<'_>,
        object: &mut ObjectState,
        _out: &mut RVec<Command>,
    ) -> RResult<(), PluginError> {
        let runtime = self.runtime.clone();
        runtime.call("calculate_object", || {
            if self.mode == Mode::PanicTick {
                panic!("counter-panic-tick at tick {}", tick.tick);
            }
            if tick.tick != self.last_tick {
                self.last_tick = tick.tick;
                self.count += STEP;
                self.ticks_seen += 1;
            }
            object.behaviour_state = self.count as u32;
            ROk(())
        })
    }

    fn save_state(&self) -> RResult<StateBlob, PluginError> {
        self.runtime.call("save_state", || self.encode())
    }

    fn restore_state(&mut self, blob: &StateBlob) -> RResult<(), PluginError> {
        let runtime = self.runtime.clone();
        runtime.call("restore_state", || self.decode(blob))
    }
}

impl Counter {
    fn encode(&self) -> RResult<StateBlob, PluginError> {
        let mut bytes = Vec::with_capacity(24);
        for v in [self.count, self.last_tick, self.ticks_seen] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        ROk(StateBlob {
            format: RString::from(STATE_FORMAT),
            version: 1,
            bytes: RVec::from(bytes),
        })
    }

    fn decode(&mut self, blob: &StateBlob) -> RResult<(), PluginError> {
        {
            if self.mode == Mode::BadRestore {
                return RErr(PluginError::new(
                    ErrorKind::BadState,
                    "counter-bad-restore never accepts a state",
                ));
            }
            if blob.format.as_str() != STATE_FORMAT || blob.version != 1 || blob.bytes.len() != 24 {
                return RErr(PluginError::new(
                    ErrorKind::BadState,
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
            ROk(())
        }
    }
}
