//! Sample AI plugin (`wanderer` factory, AI slot): each object keeps a countdown in its
//! behaviour state; at zero it picks a new heading from the plugin's own RNG stream
//! (seeded through the host from the mission seed) and asks the control service to drive
//! that way (or, without a control service, sets the velocity itself), plus a wind set
//! by input command `CMD_WIND`. The RNG position, the wind and a command counter are its
//! saved state.

use glam::{Quat, Vec3};
use iron3d_abi::rng::{PLUGIN_RNG_BYTES, PluginRng};
use iron3d_abi::{
    ErrorKind, FactoryDescription, Host, MissionInfo, MotionRequest, ObjectRef, Plugin,
    PluginDescription, PluginError, SlotKind, StateBlob,
};

/// Input command code that sets the wind (`arg` = units per second × 2 along +X).
pub const CMD_WIND: u32 = 2;
/// Cruise speed in units per second.
pub const SPEED: f32 = 3.0;
/// State blob format name.
pub const STATE_FORMAT: &str = "iron3d-ai-wanderer";
/// State blob version.
pub const STATE_VERSION: u32 = 2;
/// Name of the RNG stream headings come from.
pub const RNG_STREAM: &str = "headings";

fn describe() -> PluginDescription {
    PluginDescription::current(
        "ai-wanderer",
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::new(
            "wanderer",
            SlotKind::Ai,
            iron3d_abi::callbacks::CALCULATE_OBJECT | iron3d_abi::callbacks::UPDATE,
        )],
    )
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    if factory != "wanderer" {
        return Err(PluginError::no_factory("ai-wanderer", factory));
    }
    Ok(Box::new(Wanderer {
        rng: PluginRng::new(0),
        wind: 0,
        commands_seen: 0,
    }))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// The wanderer AI instance.
pub struct Wanderer {
    rng: PluginRng,
    wind: i32,
    commands_seen: u32,
}

impl Plugin for Wanderer {
    fn mission_start(
        &mut self,
        host: &mut Host<'_>,
        mission: &MissionInfo,
    ) -> Result<(), PluginError> {
        self.rng = PluginRng::new(host.rng_seed(RNG_STREAM));
        tracing::debug!(mission = mission.mission.as_str(), "wanderer AI ready");
        Ok(())
    }

    fn calculate_object(
        &mut self,
        host: &mut Host<'_>,
        object: ObjectRef,
    ) -> Result<(), PluginError> {
        let o = host.object(object)?;
        if o.behaviour_state > 0 {
            return host.set_behaviour_state(object, o.behaviour_state - 1);
        }
        let heading = self.rng.next_unit() * std::f32::consts::TAU;
        let next = 15 + self.rng.below(45);
        let orientation = Quat::from_rotation_z(heading);
        let velocity = orientation * Vec3::X * SPEED + Vec3::X * (self.wind as f32 * 0.5);
        // Through the control service when the control plugin offers one (it drives the
        // unit within its limits on the terrain); else the velocity is set directly
        // (the built-in scenario's arena integrates it).
        match host
            .control()
            .set_motion(object, MotionRequest::velocity(velocity.into()))
        {
            Ok(()) => {}
            Err(e) if matches!(e.kind, ErrorKind::NO_PROVIDER | ErrorKind::UNSUPPORTED) => {
                host.set_transform(object, o.position, orientation, o.scale)?;
                host.set_velocity(object, velocity)?;
            }
            // A building or a light: the control plugin does not move it.
            Err(e) if e.kind == ErrorKind::INVALID => {}
            Err(e) => return Err(e),
        }
        host.set_behaviour_state(object, next)
    }

    fn update(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        for c in host.input().commands.iter() {
            if c.code == CMD_WIND {
                self.wind = c.arg;
                self.commands_seen += 1;
            }
        }
        Ok(())
    }

    fn save_state(&self) -> Result<StateBlob, PluginError> {
        let mut b = Vec::with_capacity(PLUGIN_RNG_BYTES + 8);
        b.extend_from_slice(&self.rng.to_bytes());
        b.extend_from_slice(&self.wind.to_le_bytes());
        b.extend_from_slice(&self.commands_seen.to_le_bytes());
        Ok(StateBlob::new(STATE_FORMAT, STATE_VERSION, b))
    }

    fn restore_state(&mut self, blob: &StateBlob) -> Result<(), PluginError> {
        let b = blob.expect(STATE_FORMAT, STATE_VERSION)?;
        if b.len() != PLUGIN_RNG_BYTES + 8 {
            return Err(PluginError::new(
                ErrorKind::BAD_STATE,
                format!(
                    "expected {} state bytes, got {}",
                    PLUGIN_RNG_BYTES + 8,
                    b.len()
                ),
            ));
        }
        let rng = PluginRng::from_bytes(&b[..PLUGIN_RNG_BYTES])
            .ok_or_else(|| PluginError::new(ErrorKind::BAD_STATE, "bad RNG state"))?;
        let word = |i: usize| {
            let mut w = [0u8; 4];
            w.copy_from_slice(&b[i..i + 4]);
            w
        };
        self.rng = rng;
        self.wind = i32::from_le_bytes(word(PLUGIN_RNG_BYTES));
        self.commands_seen = u32::from_le_bytes(word(PLUGIN_RNG_BYTES + 4));
        Ok(())
    }
}
