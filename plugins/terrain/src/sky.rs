//! The sky object's owner (FORMATS §13.8–13.10). As the original's `Terrain.dll` owns
//! the atmosphere, the terrain plugin reads the mission's sky (`mission.cfg` block
//! `object sky`, PD-SKY-BLOCK in `iron3d_effects_rules::sky`), steps it once per tick on
//! the game time and sends what the step asks for: the weather to everyone
//! ([`iron3d_abi::WeatherEvent`], broadcast), the rain loop and thunder to the audio
//! slot, the lightning effect to the effects slot. Its state (the lightning timer, the
//! draws, what was sent) is part of the terrain's hashed state.

use crate::World;
use glam::Vec2;
use iron3d_abi::{ErrorKind, Host, MessageTarget, PluginError, SlotKind};
use iron3d_effects_rules::lightning::Bounds;
use iron3d_effects_rules::sky::{Atmosphere, Output, SkyConfig};

/// The host RNG stream the lightning draws are seeded from.
pub const ATMOSPHERE_STREAM: &str = "atmosphere";

/// Reads the sky object of the mission's `mission.cfg`: `Ok(None)` when the mission
/// has no `mission.cfg`, one that is not a block file (a warning: the file is other
/// plugins' business too) or no sky block.
///
/// # Errors
/// A sky block with a bad line ([`ErrorKind::INVALID`], naming line and parameter), or a
/// `mission.cfg` that exists but cannot be read.
pub fn read_sky(host: &Host<'_>) -> Result<Option<SkyConfig>, PluginError> {
    let text = match host.read_mission_file("mission.cfg") {
        Ok(t) => t,
        Err(e) if e.kind == ErrorKind::NOT_FOUND => return Ok(None),
        Err(e) => return Err(e),
    };
    match SkyConfig::from_mission_cfg(&text) {
        Ok(sky) => Ok(sky),
        Err(iron3d_effects_rules::sky::SkyError::File(why)) => {
            tracing::warn!(target: "Terrain", "mission.cfg is not a block file, no sky: {why}");
            Ok(None)
        }
        Err(e) => Err(PluginError::new(
            ErrorKind::INVALID,
            format!("terrain start: {e}"),
        )),
    }
}

/// Where strikes fall when the sky names no bounds: the terrain's extent, at its
/// highest point (`None` without a map).
pub fn default_bounds(world: Option<&World>) -> Option<Bounds> {
    let (lo, hi) = world?.surface.extent()?;
    (lo.x < hi.x && lo.y < hi.y).then(|| Bounds {
        min: Vec2::new(lo.x, lo.y),
        max: Vec2::new(hi.x, hi.y),
        z: hi.z,
    })
}

/// The atmosphere of `sky` for this mission (draws seeded from the host's
/// [`ATMOSPHERE_STREAM`]).
pub fn atmosphere(host: &Host<'_>, sky: SkyConfig, world: Option<&World>) -> Atmosphere {
    Atmosphere::new(sky, default_bounds(world), host.rng_seed(ATMOSPHERE_STREAM))
}

/// Steps `atmosphere` at the host's game time and sends what it asks for.
///
/// # Errors
/// A message the host refuses.
pub fn step(host: &mut Host<'_>, atmosphere: &mut Atmosphere) -> Result<(), PluginError> {
    let time_ms = host.clock().game_time_ns / 1_000_000;
    for out in atmosphere.step(time_ms) {
        match out {
            Output::Weather(w) => host.send(MessageTarget::broadcast(), &w.to_message()?)?,
            Output::Sound(s) => {
                host.send(MessageTarget::slot(SlotKind::Audio), &s.to_message()?)?
            }
            Output::Effect(e) => {
                host.send(MessageTarget::slot(SlotKind::Effects), &e.to_message()?)?;
            }
        }
    }
    Ok(())
}
