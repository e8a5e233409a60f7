//! Sample AI plugin (`wanderer` factory, AI slot): each object keeps a countdown in its
//! behaviour state; at zero it picks a new heading from the plugin's own ChaCha8 stream
//! (seeded from the mission seed) and sets its velocity, plus a wind set by input command
//! `CMD_WIND`. The RNG position, the wind and a command counter are its saved state.

use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RErr, ROk, RResult, RSlice, RString, RVec};
use glam::{Quat, Vec3};
use iron3d_abi::{
    Command, ErrorKind, FactoryDescription, HostContext, MissionContext, ObjectState,
    PluginDescription, PluginError, PluginRuntime, SlotKind, StateBlob, Subsystem, Subsystem_TO,
    SubsystemBox, TickInfo,
};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// Input command code that sets the wind (`arg` = units per second × 2 along +X).
pub const CMD_WIND: u32 = 2;
/// Cruise speed in units per second.
pub const SPEED: f32 = 3.0;
/// State blob format name.
pub const STATE_FORMAT: &str = "iron3d-ai-wanderer";
/// RNG stream number of this plugin (independent of the kernel's streams).
pub const RNG_STREAM: u64 = 0xA1;

fn describe() -> PluginDescription {
    PluginDescription {
        name: RString::from("ai-wanderer"),
        version: RString::from(env!("CARGO_PKG_VERSION")),
        abi_major: iron3d_abi::ABI_MAJOR,
        abi_minor: iron3d_abi::ABI_MINOR,
        factories: RVec::from(vec![FactoryDescription {
            name: RString::from("wanderer"),
            slot: SlotKind::Ai,
            callbacks: iron3d_abi::callbacks::CALCULATE_OBJECT | iron3d_abi::callbacks::UPDATE,
        }]),
    }
}

fn create(factory: &str, host: HostContext) -> RResult<SubsystemBox, PluginError> {
    if factory != "wanderer" {
        return RErr(PluginError::new(
            ErrorKind::Unsupported,
            format!("ai-wanderer has no factory '{factory}'"),
        ));
    }
    let w = Wanderer {
        runtime: PluginRuntime::new(host.log, host.log_mode),
        seed: 0,
        rng: rng(0),
        wind: 0,
        commands_seen: 0,
    };
    ROk(Subsystem_TO::from_value(w, TD_Opaque))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

fn rng(seed: u64) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(RNG_STREAM);
    r
}

fn unit(r: &mut ChaCha8Rng) -> f32 {
    (r.next_u32() >> 8) as f32 / (1u32 << 24) as f32
}

/// The wanderer AI instance.
pub struct Wanderer {
    runtime: PluginRuntime,
    seed: u64,
    rng: ChaCha8Rng,
    wind: i32,
    commands_seen: u32,
}

impl Subsystem for Wanderer {
    fn slot(&self) -> SlotKind {
        SlotKind::Ai
    }

    fn init(&mut self, ctx: &MissionContext) -> RResult<(), PluginError> {
        let runtime = self.runtime.clone();
        runtime.call("init", || {
            self.seed = ctx.seed;
            self.rng = rng(ctx.seed);
            tracing::debug!(seed = ctx.seed, "wanderer AI ready");
            ROk(())
        })
    }

    fn calculate_object(
        &mut self,
        _tick: &TickInfo<'_>,
        o: &mut ObjectState,
        _out: &mut RVec<Command>,
    ) -> RResult<(), PluginError> {
        let runtime = self.runtime.clone();
        runtime.call("calculate_object", || {
            if o.behaviour_state > 0 {
                o.behaviour_state -= 1;
                return ROk(());
            }
            let heading = unit(&mut self.rng) * std::f32::consts::TAU;
            let next = 15 + self.rng.next_u32() % 45;
            let orientation = Quat::from_rotation_z(heading);
            o.orientation = orientation.into();
            o.velocity =
                (orientation * Vec3::X * SPEED + Vec3::X * (self.wind as f32 * 0.5)).into();
            o.behaviour_state = next;
            ROk(())
        })
    }

    fn update(
        &mut self,
        tick: &TickInfo<'_>,
        _objects: RSlice<'_, ObjectState>,
        _out: &mut RVec<Command>,
    ) -> RResult<(), PluginError> {
        let runtime = self.runtime.clone();
        runtime.call("update", || {
            for c in tick.commands.iter() {
                if c.code == CMD_WIND {
                    self.wind = c.arg;
                    self.commands_seen += 1;
                }
            }
            ROk(())
        })
    }

    fn save_state(&self) -> RResult<StateBlob, PluginError> {
        self.runtime.call("save_state", || self.encode_state())
    }

    fn restore_state(&mut self, blob: &StateBlob) -> RResult<(), PluginError> {
        let runtime = self.runtime.clone();
        runtime.call("restore_state", || self.decode_state(blob))
    }
}

impl Wanderer {
    fn encode_state(&self) -> RResult<StateBlob, PluginError> {
        let mut b = Vec::with_capacity(40);
        b.extend_from_slice(&self.seed.to_le_bytes());
        b.extend_from_slice(&self.rng.get_word_pos().to_le_bytes());
        b.extend_from_slice(&self.wind.to_le_bytes());
        b.extend_from_slice(&self.commands_seen.to_le_bytes());
        ROk(StateBlob {
            format: RString::from(STATE_FORMAT),
            version: 1,
            bytes: RVec::from(b),
        })
    }

    fn decode_state(&mut self, blob: &StateBlob) -> RResult<(), PluginError> {
        if blob.format.as_str() != STATE_FORMAT || blob.version != 1 || blob.bytes.len() != 32 {
            return RErr(PluginError::new(
                ErrorKind::BadState,
                format!(
                    "expected {STATE_FORMAT} v1 (32 bytes), got {} v{} ({} bytes)",
                    blob.format,
                    blob.version,
                    blob.bytes.len()
                ),
            ));
        }
        let b = blob.bytes.as_slice();
        let mut u64b = [0u8; 8];
        u64b.copy_from_slice(&b[0..8]);
        let mut u128b = [0u8; 16];
        u128b.copy_from_slice(&b[8..24]);
        let mut i32b = [0u8; 4];
        i32b.copy_from_slice(&b[24..28]);
        let mut u32b = [0u8; 4];
        u32b.copy_from_slice(&b[28..32]);
        self.seed = u64::from_le_bytes(u64b);
        self.rng = rng(self.seed);
        self.rng.set_word_pos(u128::from_le_bytes(u128b));
        self.wind = i32::from_le_bytes(i32b);
        self.commands_seen = u32::from_le_bytes(u32b);
        ROk(())
    }
}
