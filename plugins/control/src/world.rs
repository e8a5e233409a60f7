//! The physical world of the control plugin, free of the plugin interface so it can be
//! tested and measured on its own: the controller, terrain following, the broad and
//! narrow phases, contact resolution and contact begin events (tome VI "Collision
//! pipeline", steps 1–8).
//!
//! # One step ([`World::step`])
//! 1. **Controller** (every mobile unit, ascending id): the request in force gives a
//!    target speed and heading change; speed moves towards the target by at most
//!    `max_accel·dt`, the heading by at most `max_turn·dt`. **PD-CTRL-DT**: one policy,
//!    semi-implicit Euler on the kernel's fixed step — speed first, then heading, then
//!    the candidate position `p + dir(heading)·speed·dt`.
//! 2. (The walkable check runs at the final positions, step 6.)
//! 3. **Broad phase** ([`crate::broad`]): every pair of units, not both static, whose
//!    horizontal boxes at the candidates meet within [`CONTACT_MARGIN`], found through
//!    a uniform grid (the cell side changes the speed, never the pairs), in ascending
//!    index order. Indices follow ascending ids, so the pair order is a pure function
//!    of the ids and positions. The grid and the pairs of slightly grown boxes are
//!    reused from step to step while they cover the exact pairs
//!    (**PD-CTRL-PAIR-REUSE**, [`crate::broad::PairCache`]; same pairs, faster).
//! 4. **Narrow phase** ([`crate::shape::contact`]) on every candidate pair.
//! 5. **Resolution** (**PD-CTRL-SOLVER**): [`SOLVER_ITERATIONS`] Gauss–Seidel passes
//!    over the pairs in ascending `(a, b)` id order (the first over every candidate, the
//!    next ones over the pairs the first found closer than a quarter unit); each
//!    overlapping pair is pushed apart along its normal — half each for two vehicles,
//!    all of it by the vehicle against an obstacle.
//! 6. **Walkable check and terrain following** (**PD-CTRL-WALKABLE**), one batch
//!    [`Ground::probe`] at the final positions (the unit's own motion plus the contact
//!    pushes): a step that takes a unit from a walkable area onto a non-walkable one,
//!    or off the surface, is refused — the unit is put back where it was (its old point
//!    probed again). If its own motion moved it, it also stops and carries
//!    [`physical_flags::LEFT_WALKABLE`], the explicit error state of tome VI, until its
//!    next motion request; a unit only pushed there simply holds at the border, as
//!    against an obstacle. Nothing ever teleports a unit. A unit already on a
//!    non-walkable area ([`physical_flags::ON_NON_WALKABLE`]) may drive anywhere on the
//!    surface. Then the unit's proxy bottom sits on the surface (`z = height − z0`),
//!    its up axis is the surface normal and its heading is kept (**PD-CTRL-GROUND**).
//!    Without a surface (no map, off the map) the unit keeps its height
//!    ([`physical_flags::NO_GROUND`]). A put-back unit may still overlap a neighbour
//!    at the end of the step; the next step's resolution separates them.
//! 7. **Velocity** = displacement / dt. The drive speed is not changed by contacts (the
//!    unit keeps pushing, as wheels do): against an obstacle head-on it comes to rest,
//!    at an angle it slides along it; two vehicles pushing into each other share the
//!    push half and half.
//! 8. **Contact begins** (**PD-CTRL-CONTACT**): a pair whose proxies overlapped in this
//!    step's narrow phase and was not in contact before begins a contact (one event);
//!    it stays in contact while the gap stays under [`CONTACT_MARGIN`], so two units
//!    resting against each other do not flicker. Begins are reported in ascending
//!    `(a, b)` order with `a < b`.

use crate::broad::{self, CellIndex};
use crate::shape::{
    Contact, Placed, Proxy, Shape, circles, contact, heights_meet, overlaps_box, overlaps_sphere,
    segment_entry,
};
use glam::{Quat, Vec2, Vec3};
use iron3d_abi::{GroundSample, MotionMode, MotionRequest, PhysicalState, RayHit, physical_flags};

/// How far region queries look beyond their region for units the grid placed there
/// (the grid holds every unit but the pair cache's strays by a box that contains its
/// box at the last step's candidate position, before contacts pushed it; world units).
pub const QUERY_PAD: f32 = 4.0;
/// Gauss–Seidel passes of the contact resolution.
pub const SOLVER_ITERATIONS: u32 = 4;
/// A contact ends once the gap exceeds this.
pub const CONTACT_MARGIN: f32 = 0.05;
/// A [`MotionMode::MOVE_TO`] target counts as reached within this distance.
pub const ARRIVE_RADIUS: f32 = 0.25;
/// The largest speed a request may ask for (units/s); larger values are clamped.
pub const MAX_SPEED: f32 = 100.0;
/// **PD-CTRL-LIMITS**: acceleration limit when `Behavior.ini` has no
/// `PathFind_MaxAccel` (units/s²).
pub const DEFAULT_MAX_ACCEL: f32 = 10.0;
/// **PD-CTRL-LIMITS**: turn limit when `Behavior.ini` has no `PathFind_MaxRotation`
/// (degrees/s).
pub const DEFAULT_MAX_ROTATION_DEG: f32 = 180.0;

/// The controller limits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Acceleration and braking limit (units/s²).
    pub max_accel: f32,
    /// Turn-rate limit (radians/s).
    pub max_turn: f32,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_accel: DEFAULT_MAX_ACCEL,
            max_turn: DEFAULT_MAX_ROTATION_DEG.to_radians(),
        }
    }
}

/// What the terrain answers for a batch of ground points.
pub trait Ground {
    /// One sample per point, in order; `Ok(None)` when there is no terrain at all (no
    /// map, no terrain plugin): units then keep their heights and every place is
    /// walkable.
    fn probe(&mut self, points: &[Vec3]) -> Result<Option<Vec<GroundSample>>, String>;
}

/// Flat ground at height 0, walkable everywhere (tests, benchmarks).
pub struct FlatGround;

impl Ground for FlatGround {
    fn probe(&mut self, points: &[Vec3]) -> Result<Option<Vec<GroundSample>>, String> {
        Ok(Some(
            points
                .iter()
                .map(|_| GroundSample {
                    on_surface: true,
                    height: 0.0,
                    normal: Vec3::Z.into(),
                    area: 0,
                    walkable: true,
                })
                .collect(),
        ))
    }
}

/// How the controller treats an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A vehicle: driven, follows the terrain, pushed by contacts.
    Mobile,
    /// An obstacle: never moves, blocks vehicles.
    Static,
}

/// One object of the world.
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    /// Original id.
    pub id: u32,
    /// Role.
    pub role: Role,
    /// Collision proxy.
    pub proxy: Proxy,
    /// Position.
    pub position: Vec3,
    /// Orientation (tilt × heading).
    pub orientation: Quat,
    /// Heading (radians, counter-clockwise from +X).
    pub heading: f32,
    /// Signed speed along the heading.
    pub speed: f32,
    /// Yaw rate of the last step.
    pub turn_rate: f32,
    /// Velocity of the last step.
    pub velocity: Vec3,
    /// The request in force.
    pub request: MotionRequest,
    /// [`physical_flags`] bits.
    pub flags: u32,
}

impl Unit {
    /// A unit at rest at `position` facing `orientation`'s heading, with a stop request.
    pub fn new(id: u32, role: Role, proxy: Proxy, position: Vec3, orientation: Quat) -> Self {
        let mut u = Self {
            id,
            role,
            proxy,
            position,
            orientation,
            heading: heading_of(orientation),
            speed: 0.0,
            turn_rate: 0.0,
            velocity: Vec3::ZERO,
            request: MotionRequest::stop(),
            flags: 0,
        };
        u.flags = u.role_flags();
        u
    }

    fn role_flags(&self) -> u32 {
        match self.role {
            Role::Mobile => physical_flags::MOBILE,
            Role::Static => physical_flags::STATIC,
        }
    }

    fn placed(&self, origin: Vec2, z: f32) -> Placed {
        Placed {
            origin,
            z,
            rot: dir_of(self.heading),
            proxy: self.proxy,
        }
    }

    /// The physical state as the control service reports it.
    pub fn state(&self) -> PhysicalState {
        PhysicalState {
            id: self.id,
            position: self.position.into(),
            heading: self.heading,
            velocity: self.velocity.into(),
            speed: self.speed,
            turn_rate: self.turn_rate,
            request: self.request,
            radius: self.proxy.reach(),
            flags: self.flags,
        }
    }
}

/// The heading (yaw of the rotated +X axis) of an orientation.
pub fn heading_of(q: Quat) -> f32 {
    let x = q * Vec3::X;
    if x.x.abs() + x.y.abs() <= 1e-9 {
        0.0
    } else {
        x.y.atan2(x.x)
    }
}

/// The unit direction of a heading, `(cos, sin)` (one `sin_cos`: every phase and
/// query uses this one rule).
pub fn dir_of(heading: f32) -> Vec2 {
    let (sin, cos) = heading.sin_cos();
    Vec2::new(cos, sin)
}

/// `a` wrapped into `(−π, π]`: `a` itself when already there (no rounding), else
/// `a` modulo 2π.
pub fn wrap(a: f32) -> f32 {
    if a > -std::f32::consts::PI && a <= std::f32::consts::PI {
        return a;
    }
    let tau = std::f32::consts::TAU;
    let mut r = a.rem_euclid(tau);
    if r > std::f32::consts::PI {
        r -= tau;
    }
    r
}

/// Terrain following (step 6) and velocity (step 7) of one vehicle at its final
/// horizontal place `xy`: its proxy bottom on the surface, its up axis the surface
/// normal, its heading kept; without a sample it keeps its height (`NO_GROUND`).
fn follow(u: &mut Unit, hot: &mut Hot, xy: Vec2, sample: Option<&GroundSample>, dt: f32) {
    let old = u.position;
    let mut z = old.z;
    let mut up = Vec3::Z;
    u.flags &=
        !(physical_flags::NO_GROUND | physical_flags::ON_NON_WALKABLE | physical_flags::IN_CONTACT);
    match sample {
        Some(g) if g.on_surface => {
            z = g.height - u.proxy.z0;
            let nrm = Vec3::from(g.normal);
            if nrm.is_finite() && nrm.z > 1e-3 {
                up = nrm.normalize();
            }
            if !g.walkable {
                u.flags |= physical_flags::ON_NON_WALKABLE;
            }
        }
        _ => u.flags |= physical_flags::NO_GROUND,
    }
    let new = xy.extend(z);
    u.orientation =
        (Quat::from_rotation_arc(Vec3::Z, up) * Quat::from_rotation_z(u.heading)).normalize();
    if dt > 0.0 {
        u.velocity = (new - old) / dt;
    }
    u.position = new;
    hot.z = z;
}

/// Whether `key` is in the ascending `list`, walking `cursor` forward (the keys asked
/// ascend too).
fn in_sorted(list: &[(u32, u32)], cursor: &mut usize, key: (u32, u32)) -> bool {
    while *cursor < list.len() && list[*cursor] < key {
        *cursor += 1;
    }
    *cursor < list.len() && list[*cursor] == key
}

/// A contact begin of one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Begin {
    /// Lower id.
    pub a: u32,
    /// Higher id.
    pub b: u32,
    /// Contact point (narrow phase).
    pub point: Vec3,
}

/// What one step reports besides the new state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Contact begins, ascending `(a, b)`.
    pub begins: Vec<Begin>,
    /// Ids that entered the "left the walkable area" error state this step.
    pub left_walkable: Vec<u32>,
    /// Candidate pairs of the broad phase.
    pub pairs: usize,
    /// Pairs still overlapping by more than the margin after resolution.
    pub residual: usize,
    /// Largest overlap after resolution.
    pub max_depth: f32,
    /// Whether the broad phase rebuilt its grid this step (**PD-CTRL-PAIR-REUSE**;
    /// a diagnostic: the results never depend on it).
    pub pairs_rebuilt: bool,
    /// Units the broad phase paired one by one this step (strays of the pair cache).
    pub strays: usize,
}

/// What the narrow phase reads of one unit during a step, packed (the heading and
/// proxy are fixed after the controller; the height changes in terrain following).
#[derive(Clone, Copy, Debug)]
struct Hot {
    id: u32,
    z: f32,
    rot: Vec2,
    proxy: Proxy,
    mobile: bool,
}

/// The world: units ascending by id, the contact set and the last step's grid.
#[derive(Clone, Debug, Default)]
pub struct World {
    /// Units, ascending by id.
    pub units: Vec<Unit>,
    /// Pairs in contact, ascending, `a < b`.
    pub contacts: Vec<(u32, u32)>,
    /// Controller limits.
    pub limits: Limits,
    /// Rebuild the grid and the pairs every step instead of reusing them
    /// (**PD-CTRL-PAIR-REUSE** off: the reference the reuse is tested against; same
    /// results, slower).
    pub always_rebuild_pairs: bool,
    /// The pair cache's cell index (region queries use it, with the strays).
    index: CellIndex,
    // Buffers reused from step to step (no allocation per step once warm).
    hot: Vec<Hot>,
    mobile: Vec<u32>,
    scratch_xy: Vec<Vec2>,
    scratch_points: Vec<Vec3>,
    pairs: Vec<(u32, u32)>,
    boxes: Vec<broad::BoxEntry>,
    pair_cache: broad::PairCache,
    touched: Vec<(u32, u32)>,
    near: Vec<(u32, u32, u32)>,
    pushed_at: Vec<u32>,
    back: Vec<u32>,
    drove: Vec<bool>,
    kept: Vec<(u32, u32)>,
    spare_contacts: Vec<(u32, u32)>,
}

impl World {
    /// An empty world with `limits`.
    pub fn new(limits: Limits) -> Self {
        Self {
            limits,
            ..Self::default()
        }
    }

    /// The index of unit `id`.
    pub fn index_of(&self, id: u32) -> Option<usize> {
        self.units.binary_search_by_key(&id, |u| u.id).ok()
    }

    /// Unit `id`.
    pub fn unit(&self, id: u32) -> Option<&Unit> {
        self.index_of(id).map(|i| &self.units[i])
    }

    /// Inserts or replaces a unit (keeps the id order).
    pub fn insert(&mut self, unit: Unit) {
        match self.units.binary_search_by_key(&unit.id, |u| u.id) {
            Ok(i) => self.units[i] = unit,
            Err(i) => self.units.insert(i, unit),
        }
    }

    /// Removes unit `id` and its contacts.
    pub fn remove(&mut self, id: u32) {
        if let Some(i) = self.index_of(id) {
            self.units.remove(i);
        }
        self.contacts.retain(|&(a, b)| a != id && b != id);
    }

    /// Refuses a request of an unknown mode or with non-finite numbers.
    pub fn check_request(request: &MotionRequest) -> Result<(), String> {
        if !matches!(
            request.mode,
            MotionMode::STOP | MotionMode::DRIVE | MotionMode::MOVE_TO | MotionMode::VELOCITY
        ) {
            return Err(format!("unknown motion mode {}", request.mode.0));
        }
        let t = Vec3::from(request.target);
        if !request.speed.is_finite() || !request.turn.is_finite() || !t.is_finite() {
            return Err(format!("non-finite motion request {request:?}"));
        }
        Ok(())
    }

    /// Sets the request of unit `id`.
    pub fn set_request(&mut self, id: u32, request: MotionRequest) -> Result<(), String> {
        Self::check_request(&request)?;
        let Some(i) = self.index_of(id) else {
            return Err(format!(
                "object {id} is not simulated by the control plugin"
            ));
        };
        let u = &mut self.units[i];
        if u.role != Role::Mobile {
            return Err(format!("object {id} is a static obstacle: it cannot move"));
        }
        u.request = request;
        u.flags &= !(physical_flags::ARRIVED | physical_flags::LEFT_WALKABLE);
        Ok(())
    }

    /// Target speed and heading change of one unit for a step of `dt`.
    fn control(limits: &Limits, u: &Unit, dt: f32) -> (f32, f32, bool) {
        let turn = limits.max_turn * dt;
        let r = &u.request;
        let toward = |desired: f32| wrap(desired - u.heading).clamp(-turn, turn);
        match r.mode {
            MotionMode::DRIVE => (
                r.speed.clamp(-MAX_SPEED, MAX_SPEED),
                (r.turn * dt).clamp(-turn, turn),
                false,
            ),
            MotionMode::MOVE_TO => {
                let d = Vec2::new(r.target.x, r.target.y) - u.position.truncate();
                let dist = d.length();
                if dist <= ARRIVE_RADIUS {
                    return (0.0, 0.0, true);
                }
                let desired = d.y.atan2(d.x);
                let err = wrap(desired - u.heading);
                // Brake to arrive: v² = 2·a·s; slow down while facing away.
                let brake = (2.0 * limits.max_accel * (dist - ARRIVE_RADIUS * 0.5)).sqrt();
                let speed = r.speed.clamp(0.0, MAX_SPEED).min(brake) * err.cos().max(0.0);
                (speed, toward(desired), false)
            }
            MotionMode::VELOCITY => {
                let v = Vec2::new(r.target.x, r.target.y);
                let s = v.length().min(MAX_SPEED);
                if s <= 1e-6 {
                    return (0.0, 0.0, false);
                }
                let desired = v.y.atan2(v.x);
                let err = wrap(desired - u.heading);
                (s * err.cos().max(0.0), toward(desired), false)
            }
            _ => (0.0, 0.0, false),
        }
    }

    /// The unit placed at `origin` with this step's cached height, heading and proxy.
    fn placed_hot(&self, i: usize, origin: Vec2) -> Placed {
        let h = &self.hot[i];
        Placed {
            origin,
            z: h.z,
            rot: h.rot,
            proxy: h.proxy,
        }
    }

    /// The contact of units `i` and `j` placed at `xy` (this step's cached data).
    fn contact_at(&self, xy: &[Vec2], i: u32, j: u32) -> Option<Contact> {
        let (i, j) = (i as usize, j as usize);
        contact(&self.placed_hot(i, xy[i]), &self.placed_hot(j, xy[j]))
    }

    /// Depth and normal of the contact of units `i` and `j` placed at `xy`: exactly
    /// [`World::contact_at`]'s, without the contact point (two circles, the crowd's
    /// case, straight from this step's cached data).
    fn depth_at(&self, xy: &[Vec2], i: u32, j: u32) -> Option<(f32, Vec2)> {
        let (iu, ju) = (i as usize, j as usize);
        let (a, b) = (&self.hot[iu], &self.hot[ju]);
        match (a.proxy.shape, b.proxy.shape) {
            (Shape::Circle { radius: ra }, Shape::Circle { radius: rb }) => {
                // `shape::contact`'s rules, without building the placed proxies.
                let range = |h: &Hot| (h.z + h.proxy.z0, h.z + h.proxy.z1);
                heights_meet(range(a), range(b)).then(|| circles(xy[iu], ra, xy[ju], rb))
            }
            _ => self.contact_at(xy, i, j).map(|c| (c.depth, c.normal)),
        }
    }

    /// Resolves one pair at the current positions: an overlap pushes the pair apart
    /// along the normal (half each for two vehicles, all of it by the vehicle against
    /// an obstacle) and stamps the pushed units with the new push count. Returns the
    /// depth before the push, `None` when the height ranges do not meet.
    fn resolve_pair(
        &self,
        xy: &mut [Vec2],
        pushed_at: &mut [u32],
        pushes: &mut u32,
        i: u32,
        j: u32,
    ) -> Option<f32> {
        let (depth, normal) = self.depth_at(xy, i, j)?;
        let (i, j) = (i as usize, j as usize);
        if depth > 0.0 {
            let push = normal * depth;
            *pushes += 1;
            match (self.hot[i].mobile, self.hot[j].mobile) {
                (true, true) => {
                    xy[i] -= push * 0.5;
                    xy[j] += push * 0.5;
                    pushed_at[i] = *pushes;
                    pushed_at[j] = *pushes;
                }
                (true, false) => {
                    xy[i] -= push;
                    pushed_at[i] = *pushes;
                }
                (false, true) => {
                    xy[j] += push;
                    pushed_at[j] = *pushes;
                }
                (false, false) => {}
            }
        }
        Some(depth)
    }

    /// One step of `dt` seconds (see the module docs).
    pub fn step(&mut self, dt: f32, ground: &mut dyn Ground) -> Result<StepReport, String> {
        let mut report = StepReport::default();
        let n = self.units.len();
        let accel = self.limits.max_accel * dt;

        // 1. Controller → candidates; this step's compact copy of what the later
        // phases read (headings are fixed from here on).
        let mut xy = std::mem::take(&mut self.scratch_xy);
        xy.clear();
        self.hot.clear();
        self.mobile.clear();
        // Whether each mobile unit's own motion moved it (before any push).
        let mut drove = std::mem::take(&mut self.drove);
        drove.clear();
        for i in 0..n {
            let u = &mut self.units[i];
            if u.role != Role::Mobile {
                // An obstacle never moves; its contacts are set again in step 8.
                u.velocity = Vec3::ZERO;
                u.flags &= !physical_flags::IN_CONTACT;
                xy.push(u.position.truncate());
                self.hot.push(Hot {
                    id: u.id,
                    z: u.position.z,
                    rot: dir_of(u.heading),
                    proxy: u.proxy,
                    mobile: false,
                });
                continue;
            }
            let (target, dh, arrived) = Self::control(&self.limits, u, dt);
            u.speed += (target - u.speed).clamp(-accel, accel);
            u.heading = wrap(u.heading + dh);
            u.turn_rate = if dt > 0.0 { dh / dt } else { 0.0 };
            if arrived {
                u.flags |= physical_flags::ARRIVED;
            }
            let dir = dir_of(u.heading);
            let candidate = u.position.truncate() + dir * u.speed * dt;
            drove.push(candidate != u.position.truncate());
            xy.push(candidate);
            self.hot.push(Hot {
                id: u.id,
                z: u.position.z,
                rot: dir,
                proxy: u.proxy,
                mobile: true,
            });
            self.mobile.push(i as u32);
        }

        // 3. Broad phase.
        self.broad_phase(&xy);
        report.pairs = self.pairs.len();
        report.pairs_rebuilt = self.pair_cache.rebuilt();
        report.strays = self.pair_cache.strays().len();

        // 4. Narrow phase: overlaps at the candidates (for the begin events).
        let pairs = std::mem::take(&mut self.pairs);
        let mut touched = std::mem::take(&mut self.touched);
        touched.clear();
        // A touching pair not in contact before begins one (step 8's rule, decided here
        // where the candidate positions are: the contact point is computed only then).
        let mut cursor = 0;
        for &(i, j) in &pairs {
            if self.depth_at(&xy, i, j).is_some_and(|(d, _)| d > 0.0) {
                touched.push((i, j));
                let key = (self.hot[i as usize].id, self.hot[j as usize].id);
                if !in_sorted(&self.contacts, &mut cursor, key) {
                    if let Some(c) = self.contact_at(&xy, i, j) {
                        report.begins.push(Begin {
                            a: key.0,
                            b: key.1,
                            point: c.point,
                        });
                    }
                }
            }
        }

        // 5. Resolution. The first pass visits every candidate pair; later passes only
        // the pairs it found within `NEAR` (a push can close a gap that small). A later
        // pass skips a pair when neither unit was pushed since the pair was last
        // looked at without a push of its own: its contact is unchanged, so it would
        // push nothing again (an exact shortcut: the result is the same).
        const NEAR: f32 = 0.25;
        let mut near = std::mem::take(&mut self.near);
        near.clear();
        let mut pushed_at = std::mem::take(&mut self.pushed_at);
        pushed_at.clear();
        pushed_at.resize(n, 0);
        // Pushes so far; a unit's entry is the count just after its last push.
        let mut pushes: u32 = 0;
        let mut any = false;
        for &(i, j) in &pairs {
            let seen = pushes;
            match self.resolve_pair(&mut xy, &mut pushed_at, &mut pushes, i, j) {
                Some(depth) => {
                    any |= depth > 0.0;
                    if depth > -NEAR {
                        near.push((i, j, seen));
                    }
                }
                None => continue,
            }
        }
        for _ in 1..SOLVER_ITERATIONS {
            if !any {
                break;
            }
            any = false;
            for &mut (i, j, ref mut seen) in near.iter_mut() {
                if pushed_at[i as usize] <= *seen && pushed_at[j as usize] <= *seen {
                    continue;
                }
                *seen = pushes;
                if let Some(depth) = self.resolve_pair(&mut xy, &mut pushed_at, &mut pushes, i, j) {
                    any |= depth > 0.0;
                }
            }
        }
        self.near = near;
        self.pushed_at = pushed_at;

        // 6. The walkable check and terrain following at the final positions: one batch
        // probe; a refused step is put back and only those old points are probed again.
        let mut points = std::mem::take(&mut self.scratch_points);
        points.clear();
        points.extend(self.mobile.iter().map(|&i| xy[i as usize].extend(0.0)));
        let mut samples = ground.probe(&points)?;
        let mut back = std::mem::take(&mut self.back);
        back.clear();
        if let Some(s) = samples.as_mut() {
            if s.len() != self.mobile.len() {
                return Err(format!(
                    "terrain probe answered {} samples for {} points",
                    s.len(),
                    self.mobile.len()
                ));
            }
            // A unit whose step stands follows the ground at once (one pass over the
            // units); a refused one after its old point is probed again.
            for (k, &i) in self.mobile.iter().enumerate() {
                let i = i as usize;
                let u = &mut self.units[i];
                let on_walkable = u.flags & physical_flags::ON_NON_WALKABLE == 0;
                let moved = xy[i] != u.position.truncate();
                if moved && (!s[k].on_surface || (!s[k].walkable && on_walkable)) {
                    xy[i] = u.position.truncate();
                    back.push(k as u32);
                    if drove[k] {
                        u.speed = 0.0;
                        if u.flags & physical_flags::LEFT_WALKABLE == 0 {
                            report.left_walkable.push(u.id);
                        }
                        u.flags |= physical_flags::LEFT_WALKABLE;
                    }
                    continue;
                }
                follow(u, &mut self.hot[i], xy[i], Some(&s[k]), dt);
            }
            if !back.is_empty() {
                points.clear();
                points.extend(
                    back.iter()
                        .map(|&k| xy[self.mobile[k as usize] as usize].extend(0.0)),
                );
                if let Some(again) = ground.probe(&points)? {
                    if again.len() != back.len() {
                        return Err(format!(
                            "terrain probe answered {} samples for {} points",
                            again.len(),
                            back.len()
                        ));
                    }
                    for (&k, g) in back.iter().zip(again) {
                        s[k as usize] = g;
                    }
                }
                for &k in &back {
                    let i = self.mobile[k as usize] as usize;
                    follow(
                        &mut self.units[i],
                        &mut self.hot[i],
                        xy[i],
                        Some(&s[k as usize]),
                        dt,
                    );
                }
            }
        } else {
            for &i in &self.mobile {
                let i = i as usize;
                follow(&mut self.units[i], &mut self.hot[i], xy[i], None, dt);
            }
        }
        self.back = back;
        self.drove = drove;

        // 8. Contacts and begins. Pairs, and so their id keys, ascend (indices follow
        // ids): the kept contacts and the begins are two ascending lists merged below.
        let old = std::mem::take(&mut self.contacts);
        let mut kept = std::mem::take(&mut self.kept);
        kept.clear();
        let mut cursor = 0;
        for &(i, j) in &pairs {
            let (iu, ju) = (i as usize, j as usize);
            let Some((depth, _)) = self.depth_at(&xy, i, j) else {
                continue;
            };
            if depth > CONTACT_MARGIN {
                report.residual += 1;
            }
            report.max_depth = report.max_depth.max(depth);
            let key = (self.hot[iu].id, self.hot[ju].id);
            if in_sorted(&old, &mut cursor, key) && depth > -CONTACT_MARGIN {
                kept.push((i, j));
            }
        }
        let mut now = std::mem::take(&mut self.spare_contacts);
        now.clear();
        let (mut a, mut b) = (0, 0);
        while a < kept.len() || b < touched.len() {
            let next = match (kept.get(a), touched.get(b)) {
                (Some(&k), Some(&(ti, tj))) if k <= (ti, tj) => {
                    a += 1;
                    if k == (ti, tj) {
                        b += 1;
                    }
                    k
                }
                (_, Some(&(ti, tj))) => {
                    b += 1;
                    (ti, tj)
                }
                (Some(&k), None) => {
                    a += 1;
                    k
                }
                (None, None) => break,
            };
            let (i, j) = (next.0 as usize, next.1 as usize);
            self.units[i].flags |= physical_flags::IN_CONTACT;
            self.units[j].flags |= physical_flags::IN_CONTACT;
            now.push((self.hot[i].id, self.hot[j].id));
        }
        self.contacts = now;
        self.spare_contacts = old;
        self.kept = kept;
        self.touched = touched;
        self.pairs = pairs;
        self.scratch_xy = xy;
        self.scratch_points = points;
        Ok(report)
    }

    /// Fills `self.pairs` (ascending unit indices, each pair once) and the cell index
    /// (through the pair cache, **PD-CTRL-PAIR-REUSE**).
    fn broad_phase(&mut self, xy: &[Vec2]) {
        self.boxes.clear();
        for (i, &origin) in xy.iter().enumerate().take(self.units.len()) {
            let (lo, hi) = self.placed_hot(i, origin).aabb();
            self.boxes.push(broad::BoxEntry {
                lo,
                hi,
                cells: (0, 0, 0, 0),
                fixed: !self.hot[i].mobile,
            });
        }
        self.pair_cache.pairs(
            &mut self.index,
            &self.boxes,
            self.hot.iter().map(|h| h.id),
            !self.always_rebuild_pairs,
            &mut self.pairs,
        );
    }

    /// The units whose box may touch `lo..hi` (ascending): the grid's, plus the
    /// strays of the pair cache, which the grid does not hold where they are.
    fn candidates_in(&self, lo: Vec2, hi: Vec2) -> Vec<usize> {
        let mut c = self.index.candidates_in(lo, hi, self.units.len());
        let strays = self.pair_cache.strays();
        if !strays.is_empty() {
            c.extend(
                strays
                    .iter()
                    .map(|&i| i as usize)
                    .filter(|&i| i < self.units.len()),
            );
            c.sort_unstable();
            c.dedup();
        }
        c
    }

    fn placed_now(&self, i: usize) -> Placed {
        let u = &self.units[i];
        u.placed(u.position.truncate(), u.position.z)
    }

    /// Ids whose proxy overlaps the sphere, ascending (as of the last step's grid).
    pub fn query_sphere(&self, centre: Vec3, radius: f32) -> Vec<u32> {
        let r = radius.max(0.0);
        let c = centre.truncate();
        self.candidates_in(c - r - QUERY_PAD, c + r + QUERY_PAD)
            .into_iter()
            .filter(|&i| overlaps_sphere(&self.placed_now(i), centre, r))
            .map(|i| self.units[i].id)
            .collect()
    }

    /// Ids whose proxy overlaps the box, ascending.
    pub fn query_box(&self, min: Vec3, max: Vec3) -> Vec<u32> {
        let (lo, hi) = (min.min(max), min.max(max));
        self.candidates_in(lo.truncate() - QUERY_PAD, hi.truncate() + QUERY_PAD)
            .into_iter()
            .filter(|&i| overlaps_box(&self.placed_now(i), lo, hi))
            .map(|i| self.units[i].id)
            .collect()
    }

    /// The first proxy the segment hits (ties: the lower id), skipping `ignore`.
    pub fn ray(&self, a: Vec3, b: Vec3, ignore: Option<u32>) -> Option<RayHit> {
        let lo = a.truncate().min(b.truncate()) - QUERY_PAD;
        let hi = a.truncate().max(b.truncate()) + QUERY_PAD;
        let mut best: Option<(f32, u32, Vec3)> = None;
        for i in self.candidates_in(lo, hi) {
            let u = &self.units[i];
            if Some(u.id) == ignore {
                continue;
            }
            if let Some((t, n)) = segment_entry(&self.placed_now(i), a, b) {
                if best.is_none_or(|(bt, bid, _)| t < bt || (t == bt && u.id < bid)) {
                    best = Some((t, u.id, n));
                }
            }
        }
        best.map(|(t, id, n)| RayHit {
            id,
            fraction: t,
            point: (a + (b - a) * t).into(),
            normal: n.into(),
        })
    }
}

#[cfg(test)]
mod depth_tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    /// The solver's depth shortcut answers bit for bit what the narrow phase does, for
    /// every pair of circles (apart, touching, overlapping, coincident, at other
    /// heights) and rectangles.
    #[test]
    fn the_depth_shortcut_is_the_narrow_phase_bit_for_bit() {
        let mut w = World::new(Limits::default());
        let mut s = 77u32;
        let mut next = || {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as f32 / (1u32 << 24) as f32
        };
        for id in 1..=120u32 {
            let p = Vec3::new(next() * 12.0, next() * 12.0, next() * 3.0 - 1.0);
            let proxy = if id % 9 == 0 {
                Proxy {
                    shape: Shape::Rect {
                        centre: Vec2::new(0.3, -0.2),
                        half: Vec2::new(1.0 + next(), 0.5 + next()),
                    },
                    z0: 0.0,
                    z1: 2.0,
                }
            } else {
                Proxy::default_cylinder(Vec3::splat(0.5 + next()))
            };
            let role = if id % 9 == 0 {
                Role::Static
            } else {
                Role::Mobile
            };
            w.insert(Unit::new(
                id,
                role,
                proxy,
                p,
                Quat::from_rotation_z(next() * 6.0),
            ));
        }
        w.step(1.0 / 30.0, &mut FlatGround).unwrap();
        let xy: Vec<Vec2> = w.units.iter().map(|u| u.position.truncate()).collect();
        let bits =
            |v: Option<(f32, Vec2)>| v.map(|(d, n)| (d.to_bits(), n.x.to_bits(), n.y.to_bits()));
        // Also with every odd unit moved onto its even neighbour (coincident centres).
        let coincident: Vec<Vec2> = (0..xy.len()).map(|k| xy[k - k % 2]).collect();
        let mut overlapping = 0;
        for xy in [&xy, &coincident] {
            for i in 0..xy.len() as u32 {
                for j in i + 1..xy.len() as u32 {
                    let want = w.contact_at(xy, i, j).map(|c| (c.depth, c.normal));
                    overlapping += usize::from(want.is_some_and(|(d, _)| d > 0.0));
                    assert_eq!(bits(w.depth_at(xy, i, j)), bits(want), "pair {i} {j}");
                }
            }
        }
        assert!(overlapping > 20, "{overlapping} overlapping pairs");
    }
}
