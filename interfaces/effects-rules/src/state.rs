//! The effects plugin's state blob (`iron3d-effects` v2, postcard): the live instances
//! (each with its archive, entry, place, times and seed), the next serial, the base
//! seed and the weather last heard (rain and snow intensity) — all a new instance needs
//! to draw on exactly where the old one was. A v1 blob (no weather) is read too.

use crate::runtime::{Instance, MAX_INSTANCES, Runtime};
use iron3d_abi::{MAX_EFFECT_NAME, PluginError, StateBlob};
use serde::{Deserialize, Serialize};

/// The error of a state blob that is not a valid one of ours.
fn bad_state(why: String) -> PluginError {
    PluginError::new(iron3d_abi::ErrorKind::BAD_STATE, why)
}

/// Format name of the blob.
pub const STATE_FORMAT: &str = "iron3d-effects";
/// Version of the blob.
pub const STATE_VERSION: u32 = 2;

/// What the blob holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    /// Live instances, ascending by serial.
    pub instances: Vec<Instance>,
    /// The serial the next instance gets.
    pub next_serial: u32,
    /// The base of the instance seeds.
    pub base_seed: u64,
    /// The rain and snow intensity last heard (v2; `None`: no weather event yet).
    pub weather: Option<[f32; 2]>,
}

/// The v1 blob (before the weather).
#[derive(Deserialize)]
struct SavedV1 {
    instances: Vec<Instance>,
    next_serial: u32,
    base_seed: u64,
}

/// The blob of `runtime` plus instances still waiting for their effects.
pub fn save(
    runtime: &Runtime,
    pending: &[Instance],
    weather: Option<[f32; 2]>,
) -> Result<StateBlob, PluginError> {
    let (next_serial, base_seed) = runtime.counters();
    let mut instances: Vec<Instance> = runtime.instances().cloned().collect();
    instances.extend(pending.iter().cloned());
    instances.sort_by_key(|i| i.serial);
    let saved = Saved {
        instances,
        next_serial,
        base_seed,
        weather,
    };
    let bytes = postcard::to_allocvec(&saved)
        .map_err(|e| PluginError::failed(format!("{STATE_FORMAT}: encoding: {e}")))?;
    Ok(StateBlob::new(STATE_FORMAT, STATE_VERSION, bytes))
}

/// Reads a blob saved by [`save`]; another format or version, or bytes that do not
/// decode, are a `BAD_STATE` error saying which.
pub fn load(blob: &StateBlob) -> Result<Saved, PluginError> {
    let saved: Saved = if blob.format.as_str() == STATE_FORMAT && blob.version == 1 {
        let v1: SavedV1 = postcard::from_bytes(blob.bytes.as_slice())
            .map_err(|e| bad_state(format!("{STATE_FORMAT} v1: {e}")))?;
        Saved {
            instances: v1.instances,
            next_serial: v1.next_serial,
            base_seed: v1.base_seed,
            weather: None,
        }
    } else {
        let bytes = blob.expect(STATE_FORMAT, STATE_VERSION)?;
        postcard::from_bytes(bytes)
            .map_err(|e| bad_state(format!("{STATE_FORMAT} v{STATE_VERSION}: {e}")))?
    };
    if let Some(w) = saved.weather
        && !w.iter().all(|v| (0.0..=1.0).contains(v))
    {
        return Err(bad_state(format!(
            "{STATE_FORMAT}: weather {w:?} is not two intensities in 0..=1"
        )));
    }
    if saved.instances.len() > MAX_INSTANCES {
        return Err(bad_state(format!(
            "{STATE_FORMAT}: {} instances (at most {MAX_INSTANCES})",
            saved.instances.len()
        )));
    }
    for i in &saved.instances {
        let numbers = i.position.iter().chain(i.target.iter().flatten());
        if i.archive.len() > MAX_EFFECT_NAME
            || i.entry.len() > MAX_EFFECT_NAME
            || i.end_ms < i.start_ms
            || !i.scale.is_finite()
            || i.scale <= 0.0
            || numbers.clone().any(|v| !v.is_finite())
        {
            return Err(bad_state(format!(
                "{STATE_FORMAT}: instance {} ({}/{}) is not valid",
                i.serial, i.archive, i.entry
            )));
        }
    }
    Ok(saved)
}
