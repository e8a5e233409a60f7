//! An example plugin written as a third party would write one: a `cdylib` depending on
//! `iron3d-abi` and, for the gameplay contract's property names, `iron3d-gameplay` only
//! (see `plugins/AUTHORS.md`). Three factories:
//!
//! * **`spawner`** (AI slot, `update`): every [`SPAWN_EVERY`] ticks, and on input command
//!   [`CMD_SPAWN`], creates an object at a position from its own RNG stream, standing on
//!   the terrain, of the prototype of the mission's first object (so it is drawn with
//!   that prototype's models), near it (height from the terrain service of whatever
//!   terrain plugin is active;
//!   when the service fails it spawns at height 0 and counts the failure). Each spawned
//!   object carries a `Life state` property that the spawner lowers every tick; at 0 the
//!   object is deleted. For every spawn it sends [`MSG_SPAWNED`] (a plugin-defined code)
//!   to the control slot. State: RNG, counters, the objects it owns.
//! * **`listener`** (Control slot, messages and object lifecycle): counts [`MSG_SPAWNED`]
//!   messages and writes a `Heard` property on the spawned object; counts every object
//!   that joins and leaves the game and writes `Noticed = [0, joined, left, 0]` on each
//!   spawned object as it joins. State: the three counts.
//! * **`fragile-terrain`** (Terrain slot): a flat terrain (height 0) whose `height_at`
//!   panics on its [`FRAGILE_AFTER`]-th query and whose destructor panics — to show that
//!   neither ends the process: the caller gets an error, the host reports the fault and
//!   rolls the terrain slot back at the next boundary.
//! * **`broken-getter`** (Terrain slot): its service getter panics — the same outcome.

use iron3d_abi::rng::{PLUGIN_RNG_BYTES, PluginRng};
use iron3d_abi::{
    ErrorKind, FactoryDescription, Host, Message, MessageCode, MessageTarget, MissionInfo,
    NewObject, ObjectRef, Plugin, PluginDescription, PluginError, SlotKind, StateBlob,
    TerrainProvider, Vec3f,
};
use iron3d_gameplay::property::LIFE_STATE;

/// The plugin-defined message sent for every spawn (`object_a` = the new object's id,
/// `value` = the spawn count so far).
pub const MSG_SPAWNED: MessageCode = match MessageCode::plugin(0x5350) {
    Some(c) => c,
    None => panic!("code in range"),
};
/// Input command that spawns one object at once.
pub const CMD_SPAWN: u32 = 0x5350;
/// Ticks between spawns.
pub const SPAWN_EVERY: u64 = 10;
/// `Life state` of a new object (ticks it lives).
pub const LIFE: u32 = 45;
/// Kind number of spawned objects.
pub const KIND: u32 = 0x5350;
/// Half size of the square spawns land in, around the first object of the mission.
pub const SPREAD: f32 = 40.0;

const HEARD: &[u8] = b"Heard";
const NOTICED: &[u8] = b"Noticed";

fn describe() -> PluginDescription {
    PluginDescription::current(
        "example-spawner",
        env!("CARGO_PKG_VERSION"),
        vec![
            FactoryDescription::of("spawner", SlotKind::Ai),
            FactoryDescription::of("listener", SlotKind::Control),
            FactoryDescription::of("fragile-terrain", SlotKind::Terrain),
            FactoryDescription::of("broken-getter", SlotKind::Terrain),
        ],
    )
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    match factory {
        "spawner" => Ok(Box::new(Spawner::default())),
        "listener" => Ok(Box::new(Listener::default())),
        "fragile-terrain" => Ok(Box::new(FragileTerrain::default())),
        "broken-getter" => Ok(Box::new(BrokenGetter)),
        other => Err(PluginError::no_factory("example-spawner", other)),
    }
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// The `spawner` instance.
pub struct Spawner {
    rng: PluginRng,
    spawned: u32,
    terrain_failures: u32,
    /// Original ids of the live objects it spawned, in spawn order.
    owned: Vec<u32>,
}

impl Default for Spawner {
    fn default() -> Self {
        Self {
            rng: PluginRng::new(0),
            spawned: 0,
            terrain_failures: 0,
            owned: Vec::new(),
        }
    }
}

/// State format of the spawner.
pub const SPAWNER_STATE: &str = "example-spawner";

impl Spawner {
    fn spawn(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        // Spawn more of what is there: the first object's place and prototype (so the
        // renderer draws the new objects with that prototype's models).
        let (centre, prototype) = match host.objects().next() {
            Some(first) => (host.object(first)?.position, host.prototype(first)?),
            None => (Vec3f::default(), Vec::new()),
        };
        let x = centre.x + (self.rng.next_unit() * 2.0 - 1.0) * SPREAD;
        let y = centre.y + (self.rng.next_unit() * 2.0 - 1.0) * SPREAD;
        // The service of the terrain plugin active *now*, fetched per call.
        let z = match host.terrain().height(x, y) {
            Ok(z) => z,
            Err(_) => {
                self.terrain_failures += 1;
                0.0
            }
        };
        let new = host.create(&NewObject {
            kind: KIND,
            position: Vec3f { x, y, z },
            properties: vec![iron3d_abi::Property {
                name: LIFE_STATE.as_bytes().to_vec().into(),
                value: LIFE_STATE.raw(LIFE),
            }]
            .into(),
            prototype: prototype.into(),
            ..NewObject::default()
        })?;
        let id = host.object(new)?.id;
        self.spawned += 1;
        self.owned.push(id);
        let message = Message::new(MSG_SPAWNED)
            .with_objects(id, 0)
            .with_value(u64::from(self.spawned));
        host.send(MessageTarget::slot(SlotKind::Control), &message)
    }

    /// Lowers every owned object's `Life state`; deletes those at 0.
    fn age(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        let mut alive = Vec::with_capacity(self.owned.len());
        for &id in &self.owned {
            let Some(o) = host.find(id) else { continue };
            let life = host
                .property(o, LIFE_STATE.as_bytes())?
                .map_or(0, |v| LIFE_STATE.value(v));
            if life <= 1 {
                host.delete(o)?;
            } else {
                host.set_property(o, LIFE_STATE.as_bytes(), LIFE_STATE.raw(life - 1))?;
                alive.push(id);
            }
        }
        self.owned = alive;
        Ok(())
    }
}

impl Plugin for Spawner {
    fn mission_start(
        &mut self,
        host: &mut Host<'_>,
        _mission: &MissionInfo,
    ) -> Result<(), PluginError> {
        self.rng = PluginRng::new(host.rng_seed("spawns"));
        Ok(())
    }

    fn update(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        self.age(host)?;
        let tick = host.clock().tick;
        let asked = host.input().commands.iter().any(|c| c.code == CMD_SPAWN);
        if asked || tick % SPAWN_EVERY == 0 {
            self.spawn(host)?;
        }
        Ok(())
    }

    fn save_state(&self) -> Result<StateBlob, PluginError> {
        let mut b = Vec::with_capacity(PLUGIN_RNG_BYTES + 12 + 4 * self.owned.len());
        b.extend_from_slice(&self.rng.to_bytes());
        b.extend_from_slice(&self.spawned.to_le_bytes());
        b.extend_from_slice(&self.terrain_failures.to_le_bytes());
        b.extend_from_slice(&(self.owned.len() as u32).to_le_bytes());
        for id in &self.owned {
            b.extend_from_slice(&id.to_le_bytes());
        }
        Ok(StateBlob::new(SPAWNER_STATE, 1, b))
    }

    fn restore_state(&mut self, blob: &StateBlob) -> Result<(), PluginError> {
        let b = blob.expect(SPAWNER_STATE, 1)?;
        let bad = || PluginError::new(ErrorKind::BAD_STATE, "truncated example-spawner state");
        let rng =
            PluginRng::from_bytes(b.get(..PLUGIN_RNG_BYTES).ok_or_else(bad)?).ok_or_else(bad)?;
        let word = |i: usize| -> Result<u32, PluginError> {
            let w = b.get(i..i + 4).ok_or_else(bad)?;
            Ok(u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        };
        let base = PLUGIN_RNG_BYTES;
        let (spawned, failures, n) = (word(base)?, word(base + 4)?, word(base + 8)? as usize);
        // The count is checked against the bytes present before anything is allocated.
        if b.len() != base + 12 + 4 * n {
            return Err(bad());
        }
        let owned = (0..n)
            .map(|i| word(base + 12 + 4 * i))
            .collect::<Result<_, _>>()?;
        *self = Self {
            rng,
            spawned,
            terrain_failures: failures,
            owned,
        };
        Ok(())
    }
}

/// The `listener` instance.
#[derive(Default)]
pub struct Listener {
    heard: u32,
    joined: u32,
    left: u32,
}

impl Plugin for Listener {
    fn on_message(
        &mut self,
        host: &mut Host<'_>,
        _object: Option<ObjectRef>,
        message: &Message,
    ) -> Result<(), PluginError> {
        if message.code != MSG_SPAWNED {
            return Ok(());
        }
        self.heard += 1;
        if let Some(o) = host.find(message.object_a) {
            host.set_property(o, HEARD, [0, self.heard, 0, 0])?;
        }
        Ok(())
    }

    fn object_added(&mut self, host: &mut Host<'_>, object: ObjectRef) -> Result<(), PluginError> {
        self.joined += 1;
        if host.object(object)?.kind == KIND {
            host.set_property(object, NOTICED, [0, self.joined, self.left, 0])?;
        }
        Ok(())
    }

    fn object_removed(&mut self, _host: &mut Host<'_>, _id: u32) -> Result<(), PluginError> {
        self.left += 1;
        Ok(())
    }

    fn save_state(&self) -> Result<StateBlob, PluginError> {
        let mut b = Vec::with_capacity(12);
        for v in [self.heard, self.joined, self.left] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        Ok(StateBlob::new("example-listener", 2, b))
    }

    fn restore_state(&mut self, blob: &StateBlob) -> Result<(), PluginError> {
        let b = blob.expect("example-listener", 2)?;
        if b.len() != 12 {
            return Err(PluginError::new(
                ErrorKind::BAD_STATE,
                "listener state is 12 bytes",
            ));
        }
        let w = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        (self.heard, self.joined, self.left) = (w(0), w(4), w(8));
        Ok(())
    }
}

/// The query on which `fragile-terrain` panics.
pub const FRAGILE_AFTER: u32 = 3;

/// The `fragile-terrain` instance: flat, panics on query [`FRAGILE_AFTER`] and when
/// dropped.
#[derive(Default)]
pub struct FragileTerrain {
    queries: std::cell::Cell<u32>,
}

impl Plugin for FragileTerrain {
    fn save_state(&self) -> Result<StateBlob, PluginError> {
        Ok(StateBlob::empty("example-fragile-terrain", 1))
    }

    fn restore_state(&mut self, _blob: &StateBlob) -> Result<(), PluginError> {
        Ok(())
    }

    fn terrain(&self) -> Option<&dyn TerrainProvider> {
        Some(self)
    }
}

impl TerrainProvider for FragileTerrain {
    fn height_at(&self, x: f32, y: f32) -> Result<f32, PluginError> {
        let n = self.queries.get() + 1;
        self.queries.set(n);
        if n == FRAGILE_AFTER {
            panic!("fragile-terrain: the ground gave way at ({x}, {y})");
        }
        Ok(0.0)
    }
}

impl Drop for FragileTerrain {
    fn drop(&mut self) {
        panic!("fragile-terrain panics when dropped");
    }
}

/// The `broken-getter` instance: asking it for its terrain service panics.
pub struct BrokenGetter;

impl Plugin for BrokenGetter {
    fn save_state(&self) -> Result<StateBlob, PluginError> {
        Ok(StateBlob::empty("example-broken-getter", 1))
    }

    fn restore_state(&mut self, _blob: &StateBlob) -> Result<(), PluginError> {
        Ok(())
    }

    fn terrain(&self) -> Option<&dyn TerrainProvider> {
        panic!("broken-getter: no terrain service today");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_three_factories_and_round_trips_state() {
        let d = describe();
        assert_eq!(d.factories.len(), 4);
        let s = Spawner {
            spawned: 3,
            owned: vec![7, 9],
            ..Spawner::default()
        };
        let blob = s.save_state().unwrap();
        let mut t = Spawner::default();
        t.restore_state(&blob).unwrap();
        assert_eq!((t.spawned, t.owned.clone()), (3, vec![7, 9]));
        let mut short = blob.clone();
        short.bytes.pop();
        assert!(t.restore_state(&short).is_err());
        assert!(MSG_SPAWNED.is_plugin_defined());
    }
}
