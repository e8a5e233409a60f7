//! Sample AI plugin (`wanderer` factory, AI slot): each object keeps a countdown in its
//! behaviour state; at zero it picks a new heading from the plugin's own RNG stream
//! (seeded through the host from the mission seed) and asks the control service to drive
//! that way (or, without a control service, sets the velocity itself), plus a wind set
//! by input command `CMD_WIND` — or, when a service plugin named [`WIND_SERVICE`] is
//! loaded (e.g. the `gusty-wind` mod), the wind that service answers at the object's
//! place and tick (the contract is [`wind_request`] / [`parse_wind`]). A wind service
//! that fails is reported once and the commanded wind is used instead: a broken mod
//! never stops the AI. The RNG position, the wind and a command counter are its saved
//! state.

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
/// The service the wanderer asks for the wind, when one is loaded.
pub const WIND_SERVICE: &str = "wind";
/// The wind service's method: the wind at a place and tick.
pub const WIND_METHOD: &str = "at";

/// The request of [`WIND_METHOD`]: position x, y, z as `f32` then the tick as `u64`,
/// little-endian (20 bytes).
pub fn wind_request(position: Vec3, tick: u64) -> [u8; 20] {
    let mut b = [0u8; 20];
    for (i, v) in position.to_array().into_iter().enumerate() {
        b[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
    }
    b[12..].copy_from_slice(&tick.to_le_bytes());
    b
}

/// The answer of [`WIND_METHOD`]: the wind velocity x, y, z as `f32` little-endian (12
/// bytes, finite), in units per second.
///
/// # Errors
/// [`ErrorKind::INVALID`] for another size or a non-finite component.
pub fn parse_wind(answer: &[u8]) -> Result<Vec3, PluginError> {
    let words: Option<Vec<f32>> = (answer.len() == 12).then(|| {
        answer
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    });
    match words {
        Some(w) if w.iter().all(|v| v.is_finite()) => Ok(Vec3::new(w[0], w[1], w[2])),
        _ => Err(PluginError::new(
            ErrorKind::INVALID,
            format!(
                "the {WIND_SERVICE} service answered {} bytes, not 3 finite f32",
                answer.len()
            ),
        )),
    }
}

fn describe() -> PluginDescription {
    PluginDescription::current(
        "ai-wanderer",
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::of("wanderer", SlotKind::Ai)],
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
        wind_service_failed: false,
    }))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// The wanderer AI instance.
pub struct Wanderer {
    rng: PluginRng,
    wind: i32,
    commands_seen: u32,
    /// The wind service failed once (reported; the commanded wind is used since).
    wind_service_failed: bool,
}

impl Wanderer {
    /// The wind at `position` now: the wind service's when one answers, else the
    /// commanded wind along +X.
    fn wind_at(&mut self, host: &mut Host<'_>, position: Vec3) -> Vec3 {
        let commanded = Vec3::X * (self.wind as f32 * 0.5);
        if self.wind_service_failed {
            return commanded;
        }
        let request = wind_request(position, host.clock().tick);
        match host
            .call_service(WIND_SERVICE, WIND_METHOD, &request)
            .and_then(|a| parse_wind(&a))
        {
            Ok(w) => w,
            // No wind service in this game (or an engine before 2.5): the commanded wind.
            Err(e) if matches!(e.kind, ErrorKind::NO_PROVIDER | ErrorKind::UNSUPPORTED) => {
                commanded
            }
            Err(e) => {
                tracing::warn!(error = %e, "the wind service failed: using the commanded wind from now on");
                self.wind_service_failed = true;
                commanded
            }
        }
    }
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
        let wind = self.wind_at(host, o.position.into());
        let velocity = orientation * Vec3::X * SPEED + wind;
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
