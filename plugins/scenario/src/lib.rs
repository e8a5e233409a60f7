//! The built-in "wanderers" scenario's gameplay, as a plugin of the Control slot (factory
//! `arena`; the headings come from the AI slot's plugin, e.g. `ai-wanderer`):
//!
//! * **arena control** (`calculate_object`): integrates velocity over the fixed step and
//!   reflects at the arena walls (`±arena_half_extent`, a mission parameter);
//! * **collisions** (`update`, unless the mission parameter `collisions` is `false`): a
//!   uniform grid of cell `2 × RADIUS`; each touching pair gets `GMSG_COLLISION_DETECTED`
//!   (lower id first, contact at the midpoint) sent to both objects, in id order;
//! * **life** (`on_message`): a collision costs one point of the object's `Life state`
//!   (`raw_value[1]`); at zero the object deletes itself in its own event callback;
//! * **spawner** (`update`): input command [`CMD_SPAWN`] with argument `n` (clamped to
//!   0..=64) creates `n` objects at random places of the arena from the plugin's own RNG
//!   stream, with the scenario's property bag.
//!
//! State: the RNG stream position (the arena and switches come from the mission).

use glam::{Quat, Vec3};
use iron3d_abi::rng::{PLUGIN_RNG_BYTES, PluginRng};
use iron3d_abi::{
    Body, ErrorKind, FactoryDescription, Host, Message, MessageCode, MessageTarget, MissionInfo,
    NewObject, ObjectRef, Plugin, PluginDescription, PluginError, Property, SlotKind, StateBlob,
    Vec3f,
};
use iron3d_gameplay::property::{CLAN_ID, INVULNERABILITY, LIFE_STATE, NOT_USED, WordProperty};

/// Input command code: spawn `arg` new objects.
pub const CMD_SPAWN: u32 = 1;
/// Hit points of a new object's `Life state` property (`raw_value[1]`).
pub const INITIAL_LIFE: u32 = 10;
/// Collision radius of every object.
pub const RADIUS: f32 = 0.5;
/// Cruise speed in units per second.
pub const SPEED: f32 = 3.0;
/// Mission parameter: half the side of the square arena (`f32`).
pub const PARAM_HALF_EXTENT: &str = "arena_half_extent";
/// Mission parameter: `false` turns collisions off.
pub const PARAM_COLLISIONS: &str = "collisions";
/// State format.
pub const STATE_FORMAT: &str = "iron3d-scenario-arena";

fn describe() -> PluginDescription {
    PluginDescription::current(
        "iron3d-scenario",
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::of("arena", SlotKind::Control)],
    )
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    if factory != "arena" {
        return Err(PluginError::no_factory("iron3d-scenario", factory));
    }
    Ok(Box::new(Arena::default()))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// The scenario's property bag for a new object owned by `owner`: `Invulnerability` 0,
/// `Life state` [`INITIAL_LIFE`], `ClanID` `owner`, `NOT USED` 0.
pub fn properties(owner: u32) -> Vec<Property> {
    let p = |property: WordProperty, value: u32| Property {
        name: property.as_bytes().to_vec().into(),
        value: property.raw(value),
    };
    vec![
        p(INVULNERABILITY, 0),
        p(LIFE_STATE, INITIAL_LIFE),
        p(CLAN_ID, owner),
        p(NOT_USED, 0),
    ]
}

/// The `arena` instance.
pub struct Arena {
    half: f32,
    collisions: bool,
    rng: PluginRng,
    bodies: iron3d_abi::abi_stable::std_types::RVec<Body>,
    cells: Vec<((i32, i32), u32, Vec3)>,
    pairs: Vec<(u32, u32, Vec3)>,
}

impl Default for Arena {
    fn default() -> Self {
        Self {
            half: f32::INFINITY,
            collisions: true,
            rng: PluginRng::new(0),
            bodies: Default::default(),
            cells: Vec::new(),
            pairs: Vec::new(),
        }
    }
}

impl Arena {
    fn spawn(&mut self, host: &mut Host<'_>, count: i32) -> Result<(), PluginError> {
        let half = if self.half.is_finite() {
            self.half
        } else {
            0.0
        };
        for _ in 0..count.clamp(0, 64) {
            let x = (self.rng.next_unit() * 2.0 - 1.0) * half;
            let y = (self.rng.next_unit() * 2.0 - 1.0) * half;
            let heading = self.rng.next_unit() * std::f32::consts::TAU;
            let orientation = Quat::from_rotation_z(heading);
            let h = host.create(&NewObject {
                kind: 1,
                position: Vec3f { x, y, z: 0.0 },
                orientation: orientation.into(),
                velocity: (orientation * Vec3::X * SPEED).into(),
                ..NewObject::default()
            })?;
            let owner = host.object(h)?.owner;
            for p in properties(owner) {
                host.append_property(h, p.name.as_slice(), p.value)?;
            }
        }
        Ok(())
    }

    fn collide(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        let cell_size = 2.0 * RADIUS;
        let cell_of = |p: Vec3| {
            (
                (p.x / cell_size).floor() as i32,
                (p.y / cell_size).floor() as i32,
            )
        };
        host.read_bodies(&mut self.bodies);
        self.cells.clear();
        self.cells.extend(self.bodies.iter().map(|b: &Body| {
            let p = Vec3::from(b.position);
            (cell_of(p), b.id, p)
        }));
        self.cells.sort_unstable_by_key(|c| (c.0, c.1));
        self.pairs.clear();
        for &(cell, id, p) in &self.cells {
            for dx in -1..=1 {
                for dy in -1..=1 {
                    let key = (cell.0 + dx, cell.1 + dy);
                    let start = self.cells.partition_point(|c| c.0 < key);
                    for &(c2, id2, p2) in &self.cells[start..] {
                        if c2 != key {
                            break;
                        }
                        if id < id2 && p.distance_squared(p2) < (2.0 * RADIUS) * (2.0 * RADIUS) {
                            self.pairs.push((id, id2, (p + p2) * 0.5));
                        }
                    }
                }
            }
        }
        self.pairs.sort_unstable_by_key(|p| (p.0, p.1));
        for &(a, b, point) in &self.pairs {
            let mut m = Message::new(MessageCode::COLLISION_DETECTED).with_objects(a, b);
            m.point = point.into();
            host.send(MessageTarget::object(a), &m)?;
            host.send(MessageTarget::object(b), &m)?;
        }
        Ok(())
    }
}

impl Plugin for Arena {
    fn mission_start(
        &mut self,
        host: &mut Host<'_>,
        _mission: &MissionInfo,
    ) -> Result<(), PluginError> {
        self.half = match host.mission_parameter(PARAM_HALF_EXTENT) {
            Some(v) => v.parse().map_err(|e| {
                PluginError::new(
                    ErrorKind::INVALID,
                    format!("mission parameter {PARAM_HALF_EXTENT}={v:?}: {e}"),
                )
            })?,
            None => f32::INFINITY,
        };
        self.collisions = host.mission_parameter(PARAM_COLLISIONS).as_deref() != Some("false");
        self.rng = PluginRng::new(host.rng_seed("spawns"));
        Ok(())
    }

    fn calculate_object(
        &mut self,
        host: &mut Host<'_>,
        object: ObjectRef,
    ) -> Result<(), PluginError> {
        let dt = host.clock().step_seconds();
        let o = host.object(object)?;
        let mut v = Vec3::from(o.velocity);
        let mut p = Vec3::from(o.position) + v * dt;
        for axis in 0..2 {
            if p[axis].abs() > self.half {
                p[axis] = p[axis].clamp(-self.half, self.half);
                v[axis] = -v[axis];
            }
        }
        host.set_transform(object, p, o.orientation, o.scale)?;
        host.set_velocity(object, v)
    }

    fn on_message(
        &mut self,
        host: &mut Host<'_>,
        object: Option<ObjectRef>,
        message: &Message,
    ) -> Result<(), PluginError> {
        let (Some(o), MessageCode::COLLISION_DETECTED) = (object, message.code) else {
            return Ok(());
        };
        let Some(life) = host.property(o, LIFE_STATE.as_bytes())? else {
            return Ok(());
        };
        let left = LIFE_STATE.value(life).saturating_sub(1);
        host.set_property(o, LIFE_STATE.as_bytes(), LIFE_STATE.with_value(life, left))?;
        if left == 0 {
            host.delete(o)?;
        }
        Ok(())
    }

    fn update(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        let requests: Vec<i32> = host
            .input()
            .commands
            .iter()
            .filter(|c| c.code == CMD_SPAWN)
            .map(|c| c.arg)
            .collect();
        for n in requests {
            self.spawn(host, n)?;
        }
        if self.collisions {
            self.collide(host)?;
        }
        Ok(())
    }

    fn save_state(&self) -> Result<StateBlob, PluginError> {
        Ok(StateBlob::new(
            STATE_FORMAT,
            1,
            self.rng.to_bytes().to_vec(),
        ))
    }

    fn restore_state(&mut self, blob: &StateBlob) -> Result<(), PluginError> {
        let b = blob.expect(STATE_FORMAT, 1)?;
        self.rng = PluginRng::from_bytes(b).ok_or_else(|| {
            PluginError::new(
                ErrorKind::BAD_STATE,
                format!(
                    "{STATE_FORMAT} v1 is {PLUGIN_RNG_BYTES} bytes, got {}",
                    b.len()
                ),
            )
        })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_the_arena_and_round_trips_state() {
        let d = describe();
        assert_eq!(d.factories[0].slot, SlotKind::Control);
        let mut a = Arena::default();
        a.rng.next_u32();
        let blob = a.save_state().unwrap();
        let mut b = Arena::default();
        b.restore_state(&blob).unwrap();
        assert_eq!(a.rng, b.rng);
        assert!(
            b.restore_state(&StateBlob::new(STATE_FORMAT, 1, vec![1]))
                .is_err()
        );
        assert_eq!(properties(3)[2].value, [0, 3, 0, 0]);
    }
}
