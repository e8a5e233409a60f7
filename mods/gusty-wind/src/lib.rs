//! The `gusty-wind` mod's plugin: a **service plugin** (interface 2.5) providing the
//! service named `wind` in its manifest, factory [`FACTORY`]. It depends on `iron3d-abi`
//! only, as a third party's would.
//!
//! Method [`METHOD_AT`] answers the wind at a place and tick. The wire contract is the
//! caller's (the wanderer AI of the built-in scenario, `iron3d-ai-wanderer`'s
//! `wind_request` / `parse_wind`): the request is x, y, z as `f32` then the tick as
//! `u64`, little-endian (20 bytes); the answer is the wind velocity x, y, z as `f32`
//! little-endian (12 bytes), in units per second.
//!
//! The gust rule: time is cut into periods of [`GUST_TICKS`] ticks; the wind of period
//! `p` has a heading uniform on the circle and a strength uniform in
//! `0..MAX_STRENGTH`, drawn from a stream seeded with the mission's seed for this
//! service (`Host::rng_seed("gusts")`) mixed with `p`. The answer is a pure function of
//! (seed, tick), so it does not depend on who asks or how often, and the service's state
//! is just its seed (saved, so a hot swap or a save game keeps the same gusts). The
//! place is not used: one wind blows over the whole map.

use iron3d_abi::rng::PluginRng;
use iron3d_abi::{
    ErrorKind, FactoryDescription, Host, MissionInfo, Plugin, PluginDescription, PluginError,
    ServiceProvider, SlotKind, StateBlob,
};

/// The factory the manifest names.
pub const FACTORY: &str = "gusts";
/// The method answering the wind at a place and tick.
pub const METHOD_AT: &str = "at";
/// Ticks per gust (3 s at the default 30 Hz).
pub const GUST_TICKS: u64 = 90;
/// The strongest gust, units per second.
pub const MAX_STRENGTH: f32 = 4.0;
/// State blob format.
pub const STATE_FORMAT: &str = "iron3d-mod-gusty-wind";
/// State blob version.
pub const STATE_VERSION: u32 = 1;
/// The seed stream.
pub const RNG_STREAM: &str = "gusts";

fn describe() -> PluginDescription {
    // A service's factory is found by name; the slot it declares is not used.
    PluginDescription::current(
        "gusty-wind",
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::of(FACTORY, SlotKind::Ai)],
    )
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    if factory != FACTORY {
        return Err(PluginError::no_factory("gusty-wind", factory));
    }
    Ok(Box::new(GustyWind { seed: 0 }))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// The service instance: the seed of its gusts.
pub struct GustyWind {
    seed: u64,
}

impl GustyWind {
    /// A service with gusts from `seed` (the engine seeds it in `mission_start`).
    pub fn with_seed(seed: u64) -> Self {
        Self { seed }
    }

    /// The wind at `tick`: `[x, y, z]` in units per second (see the crate docs).
    pub fn wind(&self, tick: u64) -> [f32; 3] {
        let period = tick / GUST_TICKS;
        // Distinct periods get distinct streams (an odd multiplier is a bijection).
        let mut rng = PluginRng::new(self.seed ^ period.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let heading = rng.next_unit() * std::f32::consts::TAU;
        let strength = rng.next_unit() * MAX_STRENGTH;
        [strength * heading.cos(), strength * heading.sin(), 0.0]
    }
}

impl ServiceProvider for GustyWind {
    fn call(&mut self, method: &str, request: &[u8]) -> Result<Vec<u8>, PluginError> {
        if method != METHOD_AT {
            return Err(PluginError::new(
                ErrorKind::UNSUPPORTED,
                format!("the wind service has no method \"{method}\" (it has \"{METHOD_AT}\")"),
            ));
        }
        let Ok(bytes) = <[u8; 20]>::try_from(request) else {
            return Err(PluginError::new(
                ErrorKind::INVALID,
                format!(
                    "\"{METHOD_AT}\" takes 20 bytes (x, y, z f32 and the tick u64), not {}",
                    request.len()
                ),
            ));
        };
        let mut tick = [0u8; 8];
        tick.copy_from_slice(&bytes[12..]);
        let w = self.wind(u64::from_le_bytes(tick));
        Ok(w.iter().flat_map(|v| v.to_le_bytes()).collect())
    }
}

impl Plugin for GustyWind {
    fn mission_start(&mut self, host: &mut Host<'_>, _: &MissionInfo) -> Result<(), PluginError> {
        self.seed = host.rng_seed(RNG_STREAM);
        Ok(())
    }

    fn service(&mut self) -> Option<&mut dyn ServiceProvider> {
        Some(self)
    }

    fn save_state(&self) -> Result<StateBlob, PluginError> {
        Ok(StateBlob::new(
            STATE_FORMAT,
            STATE_VERSION,
            self.seed.to_le_bytes().to_vec(),
        ))
    }

    fn restore_state(&mut self, blob: &StateBlob) -> Result<(), PluginError> {
        let b = blob.expect(STATE_FORMAT, STATE_VERSION)?;
        let seed = <[u8; 8]>::try_from(b).map_err(|_| {
            PluginError::new(
                ErrorKind::BAD_STATE,
                format!("expected 8 state bytes, got {}", b.len()),
            )
        })?;
        self.seed = u64::from_le_bytes(seed);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
