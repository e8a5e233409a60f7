//! The Control slot's plugin (factory `control`, the registry's default): units move
//! like vehicles on the real surface and collide, deterministically, for thousands of
//! units (tome VI "Control, физика и коллизии").
//!
//! * the physical step, terrain following, collisions and contact begins are
//!   [`world::World::step`] (its module docs list the eight steps and every named
//!   project decision);
//! * this file connects it to the engine: once per tick in `update` it reads every
//!   body in one batch, steps the world, writes the vehicles back in one batch and
//!   sends `GMSG_COLLISION_DETECTED` for every contact begin to both objects (lower id
//!   first) — one fixed phase after the narrow phase; the handlers run at the next
//!   boundary, so a handler may delete its object (deferred) and the plugin never
//!   touches it again (deleted objects leave through `object_removed`, and pending
//!   deletes are not in the batch read);
//! * the **control service** ([`iron3d_abi::ControlProvider`]) lets other plugins set a
//!   unit's desired motion, query objects in a sphere or box, hit-test a segment and
//!   read a unit's physical state. Answers reflect the last completed step; a request
//!   for an object the plugin has not seen yet waits for it.
//!
//! # Which objects are simulated (**PD-CTRL-CLASS**)
//! * a unit DAT prototype (`*.dat`) whose class word has the high bit set (buildings,
//!   FORMATS §13.13) → static obstacle; any other unit DAT → vehicle;
//! * an `objects.rlb` prototype placed directly with model bounds → static obstacle;
//!   without bounds (a light, the sun) → not simulated;
//! * an object without a prototype (made by a plugin) → vehicle with the default proxy;
//! * mirrors (net) → static obstacles at their replicated place.
//!
//! Proxies come from the model bounds ([`iron3d_abi::Host::object_bounds`]) and the
//! object's scale (**PD-CTRL-PROXY**, [`shape`]); they are rebuilt when an object's
//! scale or prototype changes, checked for [`REFRESH_SLICE`]-th of the objects per tick
//! in id order (**PD-CTRL-PROXY-REFRESH**: within that many ticks).
//!
//! Limits come from `Behavior.ini` `PathFind_MaxAccel` (units/s²) and
//! `PathFind_MaxRotation` (degrees/s) when present (**PD-CTRL-UNITS**: the sources do
//! not give their units; these are ours), else [`world::DEFAULT_MAX_ACCEL`] and
//! [`world::DEFAULT_MAX_ROTATION_DEG`].

pub mod broad;
pub mod shape;
pub mod state;
pub mod world;

#[cfg(test)]
mod quality_tests;
#[cfg(test)]
mod tests;

use glam::{Quat, Vec3};
use iron3d_abi::abi_stable::std_types::RVec;
use iron3d_abi::{
    Body, BodyWrite, ControlProvider, ErrorKind, FactoryDescription, GroundSample, Host, Message,
    MessageCode, MessageTarget, MissionInfo, MotionRequest, ObjectRef, PhysicalState, Plugin,
    PluginDescription, PluginError, RayHit, SlotKind, StateBlob, Vec3f,
};
use shape::Proxy;
use std::collections::BTreeMap;
use world::{Ground, Limits, Role, Unit, World};

/// Objects re-checked for a proxy change per tick: `ceil(count / REFRESH_SLICE)`.
pub const REFRESH_SLICE: usize = 16;
/// The configuration file of the limits.
pub const BEHAVIOR_INI: &str = "Behavior.ini";
/// `Behavior.ini` key of the acceleration limit.
pub const KEY_MAX_ACCEL: &str = "PathFind_MaxAccel";
/// `Behavior.ini` key of the turn limit.
pub const KEY_MAX_ROTATION: &str = "PathFind_MaxRotation";

fn describe() -> PluginDescription {
    PluginDescription::current(
        "iron3d-control",
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::of("control", SlotKind::Control)],
    )
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    if factory != "control" {
        return Err(PluginError::no_factory("iron3d-control", factory));
    }
    Ok(Box::new(ControlPlugin::default()))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// What the plugin knows about an object beyond its unit.
#[derive(Clone, Debug, PartialEq)]
struct Known {
    /// Scale and prototype the proxy was built from.
    scale: Vec3,
    prototype: Vec<u8>,
}

/// The `control` instance.
#[derive(Default)]
pub struct ControlPlugin {
    world: World,
    pending: BTreeMap<u32, MotionRequest>,
    known: BTreeMap<u32, Known>,
    /// Role by prototype (upper case): `None` = not simulated.
    classes: BTreeMap<Vec<u8>, Option<Role>>,
    refresh_cursor: u32,
    bodies: RVec<Body>,
    /// The previous tick's unit buffer, reused.
    spare_units: Vec<Unit>,
    /// This tick's `(id, handle)` pairs, ascending by id.
    sorted: Vec<(u32, ObjectRef)>,
    /// The orientations written last, ascending by id (an external change of an
    /// orientation re-reads the heading from it).
    written: Vec<(u32, Quat)>,
    writes: Vec<BodyWrite>,
    /// Body indices in ascending id order (reused).
    order: Vec<usize>,
    /// Ids whose proxy the refresh dropped this tick (reused).
    rebuild: Vec<u32>,
    /// Whether every unit of the world has its `known` entry (true after a sync,
    /// false after a restore, which rebuilds every proxy).
    units_known: bool,
}

/// Reads `key` of `Behavior.ini` in any section: `None` when absent; a value that is
/// not a finite positive number is an error naming the file and line.
pub fn behavior_limit(ini: &[u8], key: &str) -> Result<Option<f32>, String> {
    let doc = iron3d_config::IniDocument::parse(ini, BEHAVIOR_INI).map_err(|e| e.to_string())?;
    let Some((line, pair)) = doc.get_any(key) else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(pair.unquoted()).trim().to_owned();
    match text.parse::<f32>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(Some(v)),
        _ => Err(format!(
            "{BEHAVIOR_INI} line {line}: {key} = {text:?} is not a positive number"
        )),
    }
}

/// Reads the limits from `Behavior.ini` bytes (absent keys: the named defaults).
pub fn limits_from(ini: Option<&[u8]>) -> Result<Limits, String> {
    let mut l = Limits::default();
    if let Some(ini) = ini {
        if let Some(a) = behavior_limit(ini, KEY_MAX_ACCEL)? {
            l.max_accel = a;
        }
        if let Some(r) = behavior_limit(ini, KEY_MAX_ROTATION)? {
            l.max_turn = r.to_radians();
        }
    }
    Ok(l)
}

/// The terrain service as the world's [`Ground`]: no terrain plugin, or one without a
/// map, is "no terrain" (units keep their heights); other failures are errors.
struct HostGround<'h, 'a> {
    host: &'h mut Host<'a>,
    buf: Vec<Vec3f>,
}

impl Ground for HostGround<'_, '_> {
    fn probe(&mut self, points: &[Vec3]) -> Result<Option<Vec<GroundSample>>, String> {
        if points.is_empty() {
            return Ok(Some(Vec::new()));
        }
        self.buf.clear();
        self.buf.extend(points.iter().map(|&p| Vec3f::from(p)));
        match self.host.terrain().probe(&self.buf) {
            Ok(s) => Ok(Some(s)),
            Err(e)
                if matches!(
                    e.kind,
                    ErrorKind::NO_PROVIDER | ErrorKind::NOT_FOUND | ErrorKind::UNSUPPORTED
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(format!("terrain probe: {e}")),
        }
    }
}

fn is_dat(prototype: &[u8]) -> bool {
    prototype.len() > 4 && prototype[prototype.len() - 4..].eq_ignore_ascii_case(b".dat")
}

impl ControlPlugin {
    /// The role of objects made from `prototype` (cached per prototype).
    fn role_of(
        &mut self,
        host: &Host<'_>,
        object: ObjectRef,
        prototype: &[u8],
        has_bounds: bool,
    ) -> Option<Role> {
        let key = prototype.to_ascii_uppercase();
        if let Some(r) = self.classes.get(&key) {
            return *r;
        }
        let role = if prototype.is_empty() {
            Some(Role::Mobile)
        } else if is_dat(prototype) {
            let path = String::from_utf8_lossy(prototype).replace('\\', "/");
            match host
                .read_mission_file(&path)
                .map_err(|e| e.to_string())
                .and_then(|b| iron3d_unitdat::UnitDat::parse(&b).map_err(|e| e.to_string()))
            {
                Ok(dat) if dat.header.class_word_high_bit() => Some(Role::Static),
                Ok(_) => Some(Role::Mobile),
                Err(e) => {
                    tracing::warn!(target: "Control", object = ?object, prototype = path.as_str(), error = e.as_str(),
                        "unit DAT unreadable: the object is a static obstacle");
                    Some(Role::Static)
                }
            }
        } else if has_bounds {
            Some(Role::Static)
        } else {
            None
        };
        self.classes.insert(key, role);
        role
    }

    /// Builds the unit of a new object (or `None`: not simulated).
    fn build_unit(&mut self, host: &Host<'_>, body: &Body) -> Result<Option<Unit>, PluginError> {
        let info = host.object(body.handle)?;
        let prototype = host.prototype(body.handle)?;
        let bounds = host.object_bounds(body.handle)?;
        let scale = Vec3::from(info.scale);
        let role = if body.mirror {
            Some(Role::Static)
        } else {
            self.role_of(host, body.handle, &prototype, bounds.is_some())
        };
        self.known.insert(body.id, Known { scale, prototype });
        // A request that waited for this object applies only to a vehicle.
        let waiting = self.pending.remove(&body.id);
        let Some(role) = role else {
            return Ok(None);
        };
        let proxy = match (bounds, role) {
            (None, _) => Proxy::default_cylinder(scale),
            (Some(b), Role::Mobile) => Proxy::cylinder(b.min.into(), b.max.into(), scale),
            (Some(b), Role::Static) => Proxy::rect(b.min.into(), b.max.into(), scale),
        };
        let mut unit = Unit::new(
            body.id,
            role,
            proxy,
            body.position.into(),
            body.orientation.into(),
        );
        if let (Some(r), Role::Mobile) = (waiting, role) {
            unit.request = r;
        }
        Ok(Some(unit))
    }

    /// Brings the world in line with the kernel's bodies (ascending ids).
    fn sync(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        let mut bodies = std::mem::take(&mut self.bodies);
        host.read_bodies(&mut bodies);
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend(0..bodies.len());
        if !bodies.is_sorted_by_key(|b| b.id) {
            order.sort_unstable_by_key(|&i| bodies[i].id);
        }
        // Proxy refresh: a slice of the known objects, in id order.
        let slice = bodies.len().div_ceil(REFRESH_SLICE).max(1);
        let start = self.refresh_cursor as usize % bodies.len().max(1);
        self.refresh_cursor = ((start + slice) % bodies.len().max(1)) as u32;
        // Ids whose proxy must be rebuilt (ascending once sorted: the slice may wrap).
        let mut rebuild = std::mem::take(&mut self.rebuild);
        rebuild.clear();
        for k in 0..slice.min(bodies.len()) {
            let b = bodies[order[(start + k) % bodies.len()]];
            if let Some(k) = self.known.get(&b.id) {
                let info = host.object(b.handle)?;
                let prototype = host.prototype(b.handle)?;
                if Vec3::from(info.scale) != k.scale || prototype != k.prototype {
                    self.known.remove(&b.id);
                    rebuild.push(b.id);
                }
            }
        }
        rebuild.sort_unstable();
        if self.units_known && rebuild.is_empty() && self.sync_in_place(&bodies, &order) {
            self.finish_sync(bodies, order, rebuild);
            return Ok(());
        }
        let mut units = std::mem::take(&mut self.spare_units);
        units.clear();
        let mut written = 0;
        let mut previous = std::mem::take(&mut self.world.units);
        let mut next_rebuild = 0;
        let mut old = previous.drain(..).peekable();
        for &i in &order {
            let b = bodies[i];
            while old.peek().is_some_and(|u| u.id < b.id) {
                old.next();
            }
            let existing = old.next_if(|u| u.id == b.id);
            // A carried unit is known unless the refresh above just dropped it (no
            // map lookup per unit); an object without a unit is looked up.
            let known = if existing.is_some() && self.units_known {
                while next_rebuild < rebuild.len() && rebuild[next_rebuild] < b.id {
                    next_rebuild += 1;
                }
                rebuild.get(next_rebuild) != Some(&b.id)
            } else {
                self.known.contains_key(&b.id)
            };
            let unit = match (existing, known) {
                (Some(mut u), true) => {
                    carry(&mut u, &b, &self.written, &mut written);
                    Some(u)
                }
                (None, true) => None,
                (existing, false) => {
                    let rebuilt = self.build_unit(host, &b)?;
                    rebuilt.map(|mut r| {
                        // Keep the controller state of a unit whose proxy was rebuilt.
                        if let Some(e) = existing {
                            r.speed = e.speed;
                            r.heading = e.heading;
                            r.request = e.request;
                            r.flags = (e.flags & !ROLE_BITS) | (r.flags & ROLE_BITS);
                            r.velocity = e.velocity;
                            r.wish = e.wish;
                        }
                        r
                    })
                }
            };
            if let Some(u) = unit {
                units.push(u);
            }
        }
        drop(old);
        self.spare_units = previous;
        self.world.units = units;
        // Units came, went or were rebuilt (a role may have changed).
        self.world.contacts_changed();
        // The contacts of units gone since the last step end in the next step (an end
        // event each, PD-CTRL-CONTACT).
        self.finish_sync(bodies, order, rebuild);
        Ok(())
    }

    /// The common case of [`ControlPlugin::sync`]: the bodies are exactly last tick's
    /// units plus objects known not to be simulated (nothing came, went or needs a new
    /// proxy). Updates the units in place, as the full merge would, and returns
    /// `true`; returns `false` at the first difference. The units updated before it
    /// hold exactly what the full merge then gives them again, so it may simply run.
    fn sync_in_place(&mut self, bodies: &[Body], order: &[usize]) -> bool {
        let units = &mut self.world.units;
        let mut k = 0;
        let mut written = 0;
        for &i in order {
            let b = &bodies[i];
            match units.get_mut(k) {
                Some(u) if u.id == b.id => {
                    carry(u, b, &self.written, &mut written);
                    k += 1;
                }
                Some(u) if u.id < b.id => return false,
                _ if self.known.contains_key(&b.id) => {}
                _ => return false,
            }
        }
        k == units.len()
    }

    /// Keeps this tick's batch and id order for the write back.
    fn finish_sync(&mut self, bodies: RVec<Body>, order: Vec<usize>, rebuild: Vec<u32>) {
        self.sorted.clear();
        self.sorted
            .extend(order.iter().map(|&i| (bodies[i].id, bodies[i].handle)));
        self.bodies = bodies;
        self.order = order;
        self.rebuild = rebuild;
        self.units_known = true;
    }

    fn step(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        self.sync(host)?;
        let dt = host.clock().step_seconds();
        let report = {
            let mut ground = HostGround {
                host,
                buf: Vec::new(),
            };
            self.world
                .step(dt, &mut ground)
                .map_err(PluginError::failed)?
        };
        // The error state is the unit's (Behavior reads it from the physical state and
        // decides); the log keeps a trace of it without flooding a long mission.
        for id in &report.left_walkable {
            tracing::debug!(target: "Control", object = id,
                "the unit tried to leave the walkable area: step refused, unit stopped (error state)");
        }
        // Write the vehicles back (handles from this tick's batch read; both lists
        // ascend by id).
        self.writes.clear();
        self.written.clear();
        let mut cursor = 0;
        for u in &self.world.units {
            while cursor < self.sorted.len() && self.sorted[cursor].0 < u.id {
                cursor += 1;
            }
            if u.role != Role::Mobile {
                continue;
            }
            if let Some(&(_, h)) = self.sorted.get(cursor).filter(|e| e.0 == u.id) {
                self.writes.push(BodyWrite {
                    handle: h,
                    position: u.position.into(),
                    orientation: u.orientation.into(),
                    velocity: u.velocity.into(),
                });
                self.written.push((u.id, u.orientation));
            }
        }
        host.write_bodies(&self.writes)?;
        for b in &report.begins {
            let mut m = Message::new(MessageCode::COLLISION_DETECTED).with_objects(b.a, b.b);
            m.point = b.point.into();
            host.send(MessageTarget::object(b.a), &m)?;
            host.send(MessageTarget::object(b.b), &m)?;
        }
        // Contact ends (PD-MSG-CONTACT-END, interface 2.10) to each of the pair still
        // simulated (a removed object is told nothing); an older engine gets none.
        if !report.ends.is_empty() && host.interface_minor() >= 10 {
            for e in &report.ends {
                let m = Message::new(MessageCode::CONTACT_ENDED).with_objects(e.a, e.b);
                for id in [e.a, e.b] {
                    if self.world.unit(id).is_some() {
                        host.send(MessageTarget::object(id), &m)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Brings a carried unit to its body: the position always; the orientation and the
/// heading read from it only when the body's orientation is not the one this plugin
/// wrote last (an outside change), so the heading never drifts through a round trip.
/// `written` ascends by id; `cursor` walks it along ascending ids.
fn carry(u: &mut Unit, b: &Body, written: &[(u32, Quat)], cursor: &mut usize) {
    u.position = b.position.into();
    let q = Quat::from(b.orientation);
    while *cursor < written.len() && written[*cursor].0 < b.id {
        *cursor += 1;
    }
    let ours = written.get(*cursor).filter(|w| w.0 == b.id);
    if ours.map(|w| w.1) != Some(q) {
        u.heading = world::heading_of(q);
        u.orientation = q;
    }
}

/// The flags a unit's role decides.
const ROLE_BITS: u32 = iron3d_abi::physical_flags::MOBILE | iron3d_abi::physical_flags::STATIC;

impl Plugin for ControlPlugin {
    fn mission_start(
        &mut self,
        host: &mut Host<'_>,
        _mission: &MissionInfo,
    ) -> Result<(), PluginError> {
        let ini = match host.read_mission_file(BEHAVIOR_INI) {
            Ok(b) => Some(b),
            Err(e) if e.kind == ErrorKind::NOT_FOUND => None,
            Err(e) => return Err(e),
        };
        self.world.limits =
            limits_from(ini.as_deref()).map_err(|m| PluginError::new(ErrorKind::INVALID, m))?;
        Ok(())
    }

    fn update(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        self.step(host)
    }

    fn object_removed(&mut self, host: &mut Host<'_>, id: u32) -> Result<(), PluginError> {
        let ended = self.world.remove(id);
        self.known.remove(&id);
        self.pending.remove(&id);
        // Its contacts end now, told to the partner that stays (PD-CTRL-CONTACT: the
        // end comes with the removal, never after it).
        if host.interface_minor() >= 10 {
            for e in ended {
                let m = Message::new(MessageCode::CONTACT_ENDED).with_objects(e.a, e.b);
                let other = if e.a == id { e.b } else { e.a };
                if self.world.unit(other).is_some() {
                    host.send(MessageTarget::object(other), &m)?;
                }
            }
        }
        Ok(())
    }

    fn save_state(&self) -> Result<StateBlob, PluginError> {
        let pending: Vec<(u32, MotionRequest)> =
            self.pending.iter().map(|(k, v)| (*k, *v)).collect();
        Ok(StateBlob::new(
            state::STATE_FORMAT,
            state::STATE_VERSION,
            state::encode(&self.world, &pending, self.refresh_cursor),
        ))
    }

    fn restore_state(&mut self, blob: &StateBlob) -> Result<(), PluginError> {
        // Version 1 (before PD-CTRL-WISH) is read too: its units start with no wish.
        let version = blob.version;
        let b = if (state::STATE_VERSION_MIN..state::STATE_VERSION).contains(&version) {
            blob.expect(state::STATE_FORMAT, version)?
        } else {
            blob.expect(state::STATE_FORMAT, state::STATE_VERSION)?
        };
        let saved = state::decode(b, version).map_err(|m| {
            PluginError::new(
                ErrorKind::BAD_STATE,
                format!("{} v{version}: {m}", state::STATE_FORMAT),
            )
        })?;
        self.world.units = saved.units;
        self.world.contacts = saved.contacts;
        self.world.contacts_changed();
        self.pending = saved.pending.into_iter().collect();
        self.refresh_cursor = saved.refresh_cursor;
        // Proxies are rebuilt from the data on the next step.
        self.known.clear();
        self.units_known = false;
        self.written.clear();
        Ok(())
    }

    fn control(&mut self) -> Option<&mut dyn ControlProvider> {
        Some(self)
    }
}

impl ControlProvider for ControlPlugin {
    fn set_motion(&mut self, id: u32, request: MotionRequest) -> Result<(), PluginError> {
        let invalid = |m: String| PluginError::new(ErrorKind::INVALID, m);
        if self.world.unit(id).is_none() && !self.known.contains_key(&id) {
            // Not seen yet (created this tick, or before the first step): the request
            // waits for it. The host checked that the object lives.
            World::check_request(&request).map_err(invalid)?;
            self.pending.insert(id, request);
            return Ok(());
        }
        self.world.set_request(id, request).map_err(invalid)
    }

    fn state(&self, id: u32) -> Result<Option<PhysicalState>, PluginError> {
        Ok(self.world.unit(id).map(Unit::state))
    }

    fn query_sphere(&self, centre: Vec3f, radius: f32) -> Result<Vec<u32>, PluginError> {
        Ok(self.world.query_sphere(centre.into(), radius))
    }

    fn query_box(&self, min: Vec3f, max: Vec3f) -> Result<Vec<u32>, PluginError> {
        Ok(self.world.query_box(min.into(), max.into()))
    }

    fn ray(&self, a: Vec3f, b: Vec3f, ignore: Option<u32>) -> Result<Option<RayHit>, PluginError> {
        Ok(self.world.ray(a.into(), b.into(), ignore))
    }
}
