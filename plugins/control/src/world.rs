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
//!    the candidate position `p + dir(heading)·speed·dt`. **PD-CTRL-WISH**: a
//!    `VELOCITY` request steers towards the unit's smoothed wish (an exponential
//!    average of the wanted directions, [`WISH_BLEND`] a step, [`WISH_BLEND_STALLED`]
//!    when the unit made no progress); a wish shorter than [`WISH_HOLD`] (the wanted
//!    direction keeps swinging) holds the heading and brakes. **PD-CTRL-CONTACT-DAMP**:
//!    a unit steering by a target (`MOVE_TO`, `VELOCITY`) that is blocked in contact
//!    (it ended its last step in contact, driving, yet moved less than half as far as
//!    its speed asked) or swinging (a `VELOCITY` unit slower than half its request
//!    whose wish is shorter than [`WISH_STEADY`]) keeps its heading while the wanted
//!    direction is within [`CONTACT_DEADBAND`] of it and otherwise turns at
//!    [`CONTACT_TURN_SCALE`] of its limit: a unit jostled in a jam does not spin after
//!    every push. Free units and units merely touching something steer as before.
//!    **PD-CTRL-TRACTION**: the speed of a unit steering by a target (`MOVE_TO`,
//!    `VELOCITY`; a `DRIVE` request, the player's, keeps its full push) in contact
//!    with another vehicle never exceeds what its last step achieved along its
//!    heading by more than one step of acceleration (**PD-CTRL-TRACTION-CREEP**: by
//!    [`TRACTION_CREEP`] only while that last step was shorter than
//!    [`TRACTION_MOVING`]): a unit held in a crowd builds no pressure and its probe of
//!    the crowd ahead is a quiet push (PD-CTRL-QUIET-PUSH), and one pushing another
//!    along settles at the pace they make together (wheels that slip do not push
//!    harder). Against obstacles alone speed is kept, so a unit slides along a wall.
//! 2. (The walkable check runs at the resolved positions, step 6.)
//! 3. **Broad phase** ([`crate::broad`]): every pair of units, not both static, whose
//!    horizontal boxes at the candidates meet within [`PAIR_MARGIN`], found through
//!    a uniform grid (the cell side changes the speed, never the pairs), in ascending
//!    index order. Indices follow ascending ids, so the pair order is a pure function
//!    of the ids and positions. The grid and the pairs of slightly grown boxes are
//!    reused from step to step while they cover the exact pairs
//!    (**PD-CTRL-PAIR-REUSE**, [`crate::broad::PairCache`]; same pairs, faster).
//! 4. **Narrow phase** ([`crate::shape::contact`]) on the pairs as the solver visits
//!    them. **PD-CTRL-SLOPE**: two height ranges are compared along the ground's
//!    normal between the units (the mean of their up axes), not along the world's Z:
//!    two vehicles on the same slope always meet, however steep it is; on flat ground
//!    this is the plain height test.
//! 5. **Resolution** (**PD-CTRL-SOLVER**): Gauss–Seidel passes over the pairs in
//!    ascending `(a, b)` id order until no pass pushes more than [`SOLVER_TOLERANCE`]
//!    (at most [`MAX_SOLVER_PASSES`], and [`MAX_STEP_PASSES`] for all the resolutions
//!    of a step: past it each runs one pass); a pass skips a pair neither of whose units moved
//!    since it was last looked at. **PD-CTRL-QUIET-PUSH**: a push of at most
//!    [`QUIET_PUSH`] moves its units but does not count as moving them, so it wakes
//!    none of their other pairs (in a jam thousands of pairs trade pushes of a few
//!    thousandths per pass; their error stays well within the tolerance, and the
//!    passes look only at the pairs near a real push). Each overlapping pair is pushed apart along its
//!    normal — half each for two vehicles, all of it by a vehicle against an obstacle,
//!    all of it by the free one when the other is **pinned** (pushed by an obstacle or
//!    put back at the walkable border this step: it cannot give way). Then
//!    **re-pairing**: every unit the pushes moved more than half of
//!    `PAIR_MARGIN − CONTACT_END_GAP` from where it was paired is paired again at its
//!    new place (the grid, plus the units it holds elsewhere) and the passes go on over
//!    the new pairs, at most [`MAX_REPAIR_ROUNDS`] times; no pair the step moved into
//!    contact is left unchecked, and no pair ends up within [`CONTACT_END_GAP`]
//!    unlisted (a pair never paired was more than the margin apart, and neither unit
//!    moved more than half of what the margin exceeds the end gap by).
//!    **PD-CTRL-DEPENETRATION**: an overlap a pair already had at the start of the step is taken out at most [`DEPENETRATION_SPEED`]·dt per
//!    step (the rest is the pair's slack for this step); overlap made by this step's
//!    motion is taken out at once. Placed or pushed-in overlaps so spread over ticks.
//! 6. **Walkable check** (**PD-CTRL-WALKABLE**), one batch [`Ground::probe`] at the
//!    resolved positions: a step that takes a unit from a walkable area onto a
//!    non-walkable one, or off the surface, is refused — the unit is put back where it
//!    was. If its own motion moved it, it also stops and carries
//!    [`physical_flags::LEFT_WALKABLE`], the explicit error state of tome VI, until its
//!    next motion request (while it lasts the unit tries again only by
//!    PD-CTRL-TRACTION-CREEP's [`TRACTION_CREEP`] a step, unless a `DRIVE` request, the
//!    player's, drives it); a unit only pushed there simply holds at the border, as
//!    against an obstacle. A put-back unit is pinned and the resolution runs again so
//!    its neighbours take the whole push, and the units that moved are probed again
//!    (at most [`WALKABLE_ROUNDS`] rounds; only units that moved are probed). A
//!    put-back of at most [`QUIET_PUSH`] (a unit creeping at the border) is quiet, as
//!    in PD-CTRL-QUIET-PUSH: the unit is pinned and probed where it stands, but no
//!    resolution runs again for it. Nothing
//!    ever teleports a unit. A unit already on a non-walkable area
//!    ([`physical_flags::ON_NON_WALKABLE`]) may drive anywhere on the surface.
//!    **Terrain following**: the unit's proxy bottom sits on the surface
//!    (`z = height − z0`), its up axis is the surface normal and its heading is kept
//!    (**PD-CTRL-GROUND**). Without a surface (no map, off the map) the unit keeps its
//!    height ([`physical_flags::NO_GROUND`]).
//! 7. **Velocity** = displacement / dt. Contacts change the drive speed only through
//!    PD-CTRL-TRACTION in the next step: against an obstacle head-on a unit comes to
//!    rest, at an angle it slides along it; two vehicles pushing into each other share
//!    the push half and half.
//! 8. **Contact episodes** (**PD-CTRL-CONTACT**), decided at the final positions: a
//!    pair not in contact whose gap is at most [`CONTACT_BEGIN_GAP`] begins a contact
//!    (one begin event, however it came there: its own motion or a third body's push);
//!    it stays in contact while the gap stays at most [`CONTACT_END_GAP`] (hysteresis:
//!    a resting contact that opens by less is the same episode) and ends, one end
//!    event, when the gap grows beyond it or one of the two is removed. Begins and ends
//!    are reported in ascending `(a, b)` order with `a < b`.

mod episodes;
mod solver;
mod walkable;

use crate::broad::{self, CellIndex};
use crate::shape::{
    Contact, Placed, Proxy, Shape, circles, heights_meet, horizontal_contact, overlaps_box,
    overlaps_sphere, segment_entry,
};
use glam::{Quat, Vec2, Vec3};
use iron3d_abi::{GroundSample, MotionMode, MotionRequest, PhysicalState, RayHit, physical_flags};
use solver::{NEVER, Solve, SolverPair};

/// How far region queries look beyond their region for units the grid placed there
/// (the grid holds every unit but the pair cache's strays by a box that contains its
/// box at the last step's candidate position, before contacts pushed it; world units).
pub const QUERY_PAD: f32 = 4.0;
/// Most Gauss–Seidel passes of one resolution (PD-CTRL-SOLVER).
pub const MAX_SOLVER_PASSES: u32 = 16;
/// Most passes of all the resolutions of one step together (re-pairing and walkable
/// rounds included); past it each further resolution runs one pass, so every new pair
/// is still looked at (PD-CTRL-SOLVER: the step's cost stays bounded where constraints
/// fight, e.g. two units pinned against each other).
pub const MAX_STEP_PASSES: u32 = 32;
/// A pass pushing no pair by more than this ends the resolution (world units; a fifth
/// of [`SETTLED_OVERLAP`]).
pub const SOLVER_TOLERANCE: f32 = 1.0e-2;
/// PD-CTRL-QUIET-PUSH: a push of at most this much does not wake the pushed units'
/// other pairs in the passes that follow (a quarter of [`SOLVER_TOLERANCE`]).
pub const QUIET_PUSH: f32 = SOLVER_TOLERANCE * 0.25;
/// **PD-CTRL-TRACTION-CREEP**: a unit held in contact with another vehicle tries to
/// go at most this much farther per step than its last step took it (world units;
/// four fifths of [`QUIET_PUSH`]). Its probe of the crowd ahead is a quiet push, which
/// wakes no other pair: a jam where every unit still leans on the next rests instead
/// of trading pushes through the whole crowd in every pass. A held unit that starts to
/// get somewhere gains this much per step until its step reaches [`TRACTION_MOVING`],
/// then a full step of acceleration as before (a unit pushing another along still
/// builds up its pace within a few steps); a free unit accelerates at its full limit.
pub const TRACTION_CREEP: f32 = QUIET_PUSH * 0.8;
/// **PD-CTRL-TRACTION-CREEP**: a held unit whose last step took it at least this far
/// (world units) is getting somewhere, and gains a full step of acceleration again.
pub const TRACTION_MOVING: f32 = TRACTION_CREEP * 4.0;
/// Most re-pairing rounds of one resolution (PD-CTRL-SOLVER).
pub const MAX_REPAIR_ROUNDS: u32 = 4;
/// Most put-back rounds of the walkable check (PD-CTRL-WALKABLE).
pub const WALKABLE_ROUNDS: u32 = 3;
/// The broad phase pairs boxes that meet within this (world units); a unit pushed more
/// than half of what it exceeds [`CONTACT_END_GAP`] by is paired again
/// (PD-CTRL-SOLVER), so every pair within the end gap after the step is a listed pair.
pub const PAIR_MARGIN: f32 = 0.3;
/// **PD-CTRL-DEPENETRATION**: how fast an overlap a pair started the step with is taken
/// out (world units per second, the pair's two units together).
pub const DEPENETRATION_SPEED: f32 = 3.0;
/// A pair this close (gap in world units) or overlapping begins a contact.
pub const CONTACT_BEGIN_GAP: f32 = 0.01;
/// A contact ends once the gap exceeds this (world units; hysteresis).
pub const CONTACT_END_GAP: f32 = 0.1;
/// Overlap the solver leaves after settling at most (world units): larger overlaps
/// are counted in [`StepReport::residual`].
pub const SETTLED_OVERLAP: f32 = 0.05;
/// PD-CTRL-CONTACT-DAMP: a blocked or swinging unit keeps its heading while the wanted
/// direction is within this angle of it (radians).
pub const CONTACT_DEADBAND: f32 = std::f32::consts::FRAC_PI_4;
/// PD-CTRL-CONTACT-DAMP: a blocked or swinging unit turns at this fraction of its turn
/// limit.
pub const CONTACT_TURN_SCALE: f32 = 0.25;
/// **PD-CTRL-WISH**: how much of the newly wanted direction a `VELOCITY` request adds
/// to the unit's smoothed wish each step (an exponential average, time constant about
/// five steps).
pub const WISH_BLEND: f32 = 0.2;
/// **PD-CTRL-WISH**: the blend of a unit that made no progress in its last step (it
/// grows linearly with the last step's speed over the requested one up to
/// [`WISH_BLEND`]): a stalled unit in a jam follows only a lasting change of mind.
pub const WISH_BLEND_STALLED: f32 = 0.04;
/// **PD-CTRL-WISH**: a slow unit whose smoothed wish is shorter than this is
/// swinging: it turns damped, as in contact (PD-CTRL-CONTACT-DAMP).
pub const WISH_STEADY: f32 = 0.9;
/// **PD-CTRL-WISH**: a smoothed wish shorter than this (the wanted direction keeps
/// swinging) holds the heading and brakes instead of turning after it.
pub const WISH_HOLD: f32 = 0.35;
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
    /// **PD-CTRL-WISH**: the smoothed wanted direction of a `VELOCITY` request (zero
    /// in the other modes).
    pub wish: Vec2,
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
            wish: Vec2::ZERO,
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
    hot.up = up;
    hot.flat = up.z >= 1.0 - FLAT;
}

/// A contact begin of one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Begin {
    /// Lower id.
    pub a: u32,
    /// Higher id.
    pub b: u32,
    /// Contact point (narrow phase, at the final positions).
    pub point: Vec3,
}

/// A contact end of one step: the pair's gap grew beyond [`CONTACT_END_GAP`], or one
/// of the two is gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct End {
    /// Lower id.
    pub a: u32,
    /// Higher id.
    pub b: u32,
}

/// What one step reports besides the new state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Contact begins, ascending `(a, b)`.
    pub begins: Vec<Begin>,
    /// Contact ends, ascending `(a, b)`.
    pub ends: Vec<End>,
    /// Ids that entered the "left the walkable area" error state this step.
    pub left_walkable: Vec<u32>,
    /// Candidate pairs of the broad phase.
    pub pairs: usize,
    /// Pairs still overlapping by more than [`SETTLED_OVERLAP`] after the step.
    pub residual: usize,
    /// Largest overlap after the step.
    pub max_depth: f32,
    /// Gauss–Seidel passes run (all resolutions of the step together).
    pub passes: u32,
    /// Pairs the passes looked at (all resolutions together; a diagnostic of the
    /// solver's work, PD-CTRL-QUIET-PUSH).
    pub looks: u32,
    /// Pairs the re-pairing added.
    pub repaired: usize,
    /// Units the walkable check put back.
    pub put_back: usize,
    /// Whether the broad phase rebuilt its grid this step (**PD-CTRL-PAIR-REUSE**;
    /// a diagnostic: the results never depend on it).
    pub pairs_rebuilt: bool,
    /// Units the broad phase paired one by one this step (strays of the pair cache).
    pub strays: usize,
}

/// An up axis whose Z is at least `1 − FLAT` counts as Z (PD-CTRL-SLOPE: the plain
/// height test; a rotation's round trip leaves Z a few ulps short of 1 on flat ground).
const FLAT: f32 = 1.0e-5;

/// What the narrow phase reads of one unit during a step, packed (the heading and
/// proxy are fixed after the controller; the height changes in terrain following).
#[derive(Clone, Copy, Debug)]
struct Hot {
    id: u32,
    z: f32,
    /// Up axis (the surface normal under a vehicle; Z for an obstacle).
    up: Vec3,
    /// The up axis is Z to within [`FLAT`] (the plain height test applies).
    flat: bool,
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
    /// The boxes where each unit was last paired (index = unit index).
    boxes: Vec<broad::BoxEntry>,
    pair_cache: broad::PairCache,
    solver: Vec<SolverPair>,
    pushed_at: Vec<u32>,
    /// Where each unit stood at the start of the step.
    old_xy: Vec<Vec2>,
    /// Where each unit was last paired.
    anchor: Vec<Vec2>,
    pinned: Vec<bool>,
    /// Units paired again this step (their boxes may lie outside the grid's).
    moved: Vec<u32>,
    fresh: Vec<SolverPair>,
    merged: Vec<SolverPair>,
    drove: Vec<bool>,
    /// Per mobile unit: the point its ground sample was taken at, and the sample.
    probed: Vec<Vec2>,
    samples: Vec<GroundSample>,
    todo: Vec<u32>,
    /// Per unit: in contact with another vehicle at the start of the step.
    pressed: Vec<bool>,
    /// The ids in contact with another vehicle after the last step, ascending (`None`:
    /// derive them from the contact set, after a load or a removal).
    pressed_ids: Option<Vec<u32>>,
    /// Re-pairing: the loose units by cell, and the loose units too big for cells.
    loose: Vec<(u64, u32)>,
    loose_big: Vec<u32>,
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

    /// Call after replacing [`World::contacts`] or changing a unit's role: what the
    /// step derives from them (PD-CTRL-TRACTION's units in contact with another
    /// vehicle) is derived again.
    pub fn contacts_changed(&mut self) {
        self.pressed_ids = None;
    }

    /// Removes unit `id` and ends its contacts; returns them, ascending. (A unit that
    /// vanishes from the world without this call has its contacts ended by the next
    /// step, in its report.)
    pub fn remove(&mut self, id: u32) -> Vec<End> {
        if let Some(i) = self.index_of(id) {
            self.units.remove(i);
        }
        self.pressed_ids = None;
        let mut ended = Vec::new();
        self.contacts.retain(|&(a, b)| {
            let hit = a == id || b == id;
            if hit {
                ended.push(End { a, b });
            }
            !hit
        });
        ended
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
    fn control(limits: &Limits, u: &mut Unit, dt: f32) -> (f32, f32, bool) {
        // PD-CTRL-CONTACT-DAMP: a blocked or swinging unit steering by a target turns
        // less.
        // Swinging: a `VELOCITY` unit slower than half its request whose smoothed wish
        // has shrunk (the wanted direction keeps changing).
        let swinging = u.request.mode == MotionMode::VELOCITY
            && u.wish.length_squared() < WISH_STEADY * WISH_STEADY
            && u.velocity.truncate().length()
                < 0.5 * Vec2::new(u.request.target.x, u.request.target.y).length();
        // Blocked in contact: driving, yet its last step moved it less than half as far.
        let blocked = u.flags & physical_flags::IN_CONTACT != 0
            && u.speed.abs() > 1.0
            && u.velocity.truncate().length() < 0.5 * u.speed.abs();
        let damp = blocked || swinging;
        let turn = limits.max_turn * dt * if damp { CONTACT_TURN_SCALE } else { 1.0 };
        let r = u.request;
        if r.mode != MotionMode::VELOCITY {
            u.wish = Vec2::ZERO;
        }
        let toward = |err: f32| {
            if damp && err.abs() <= CONTACT_DEADBAND {
                0.0
            } else {
                err.clamp(-turn, turn)
            }
        };
        match r.mode {
            MotionMode::DRIVE => (
                r.speed.clamp(-MAX_SPEED, MAX_SPEED),
                (r.turn * dt).clamp(-limits.max_turn * dt, limits.max_turn * dt),
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
                (speed, toward(err), false)
            }
            MotionMode::VELOCITY => {
                let v = Vec2::new(r.target.x, r.target.y);
                let s = v.length().min(MAX_SPEED);
                if s <= 1e-6 {
                    return (0.0, 0.0, false);
                }
                // PD-CTRL-WISH: turn after the smoothed wish, not after every swing.
                let progress = (u.velocity.truncate().length() / s).min(1.0);
                let blend = WISH_BLEND_STALLED + (WISH_BLEND - WISH_BLEND_STALLED) * progress;
                if u.wish == Vec2::ZERO {
                    // A new request: its own direction, at once.
                    u.wish = v / v.length();
                } else {
                    u.wish += (v / v.length() - u.wish) * blend;
                }
                if u.wish.length_squared() < WISH_HOLD * WISH_HOLD {
                    return (0.0, 0.0, false);
                }
                let desired = u.wish.y.atan2(u.wish.x);
                let err = wrap(desired - u.heading);
                (s * err.cos().max(0.0), toward(err), false)
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

    /// Whether the height ranges of units `i` and `j` placed at `xy` meet
    /// (**PD-CTRL-SLOPE**): along the mean of their up axes; on flat ground (both up
    /// axes Z) the plain height test of [`heights_meet`].
    fn heights_at(&self, xy: &[Vec2], i: usize, j: usize) -> bool {
        let (a, b) = (&self.hot[i], &self.hot[j]);
        if a.flat & b.flat {
            return heights_meet(
                (a.z + a.proxy.z0, a.z + a.proxy.z1),
                (b.z + b.proxy.z0, b.z + b.proxy.z1),
            );
        }
        let n = (a.up + b.up).normalize_or(Vec3::Z);
        let h = (xy[j] - xy[i]).extend(b.z - a.z).dot(n);
        heights_meet((a.proxy.z0, a.proxy.z1), (h + b.proxy.z0, h + b.proxy.z1))
    }

    /// The contact of units `i` and `j` placed at `xy` (this step's cached data), or
    /// `None` when their height ranges miss (PD-CTRL-SLOPE).
    fn contact_at(&self, xy: &[Vec2], i: u32, j: u32) -> Option<Contact> {
        let (i, j) = (i as usize, j as usize);
        if !self.heights_at(xy, i, j) {
            return None;
        }
        horizontal_contact(&self.placed_hot(i, xy[i]), &self.placed_hot(j, xy[j]))
    }

    /// Depth and normal of the contact of units `i` and `j` placed at `xy`: exactly
    /// [`World::contact_at`]'s, without the contact point (two circles, the crowd's
    /// case, straight from this step's cached data).
    fn depth_at(&self, xy: &[Vec2], i: u32, j: u32) -> Option<(f32, Vec2)> {
        let (iu, ju) = (i as usize, j as usize);
        let (a, b) = (&self.hot[iu], &self.hot[ju]);
        match (a.proxy.shape, b.proxy.shape) {
            (Shape::Circle { radius: ra }, Shape::Circle { radius: rb }) => self
                .heights_at(xy, iu, ju)
                .then(|| circles(xy[iu], ra, xy[ju], rb)),
            _ => self.contact_at(xy, i, j).map(|c| (c.depth, c.normal)),
        }
    }

    /// One step of `dt` seconds (see the module docs).
    pub fn step(&mut self, dt: f32, ground: &mut dyn Ground) -> Result<StepReport, String> {
        let mut report = StepReport::default();
        let n = self.units.len();
        let accel = self.limits.max_accel * dt;
        // PD-CTRL-TRACTION-CREEP: how much faster than its last step a unit held in
        // contact with another vehicle may try to go.
        let creep = if dt > 0.0 {
            accel.min(TRACTION_CREEP / dt)
        } else {
            accel
        };

        // 1. Controller → candidates; this step's compact copy of what the later
        // phases read (headings are fixed from here on).
        let mut xy = std::mem::take(&mut self.scratch_xy);
        xy.clear();
        let mut old_xy = std::mem::take(&mut self.old_xy);
        old_xy.clear();
        self.hot.clear();
        self.mobile.clear();
        // Whether each mobile unit's own motion moved it (before any push).
        let mut drove = std::mem::take(&mut self.drove);
        drove.clear();
        // PD-CTRL-TRACTION applies to the units in contact with another vehicle: the
        // ids the last step found so, or, after a load or a removal, the same derived
        // from the contact set.
        let mut pressed = std::mem::take(&mut self.pressed);
        pressed.clear();
        pressed.resize(n, false);
        if self.pressed_ids.is_none() {
            let mut ids = Vec::new();
            for &(a, b) in &self.contacts {
                let mobile = |id| self.unit(id).is_some_and(|u: &Unit| u.role == Role::Mobile);
                if mobile(a) && mobile(b) {
                    ids.extend([a, b]);
                }
            }
            ids.sort_unstable();
            ids.dedup();
            self.pressed_ids = Some(ids);
        }
        if let Some(ids) = &self.pressed_ids {
            let mut k = 0;
            for (i, u) in self.units.iter().enumerate() {
                while k < ids.len() && ids[k] < u.id {
                    k += 1;
                }
                pressed[i] = k < ids.len() && ids[k] == u.id;
            }
        }
        #[allow(
            clippy::needless_range_loop,
            reason = "`i` is the unit index every later phase keys on"
        )]
        for i in 0..n {
            let u = &mut self.units[i];
            old_xy.push(u.position.truncate());
            if u.role != Role::Mobile {
                // An obstacle never moves; its contacts are set again in step 8.
                u.velocity = Vec3::ZERO;
                u.flags &= !physical_flags::IN_CONTACT;
                xy.push(u.position.truncate());
                self.hot.push(Hot {
                    id: u.id,
                    z: u.position.z,
                    up: Vec3::Z,
                    flat: true,
                    rot: dir_of(u.heading),
                    proxy: u.proxy,
                    mobile: false,
                });
                continue;
            }
            // PD-CTRL-TRACTION: what the last step achieved along the heading it drove,
            // for a unit that ended it touching another vehicle or that is in the
            // walkable error state (PD-CTRL-TRACTION-CREEP: it tries the border again
            // by a creep, not at full acceleration).
            // A driven (possessed) unit keeps its full push: the player drives it.
            let held = pressed[i] || u.flags & physical_flags::LEFT_WALKABLE != 0;
            let achieved = (held && u.request.mode != MotionMode::DRIVE)
                .then(|| u.velocity.truncate().dot(dir_of(u.heading)));
            let (target, dh, arrived) = Self::control(&self.limits, u, dt);
            u.speed += (target - u.speed).clamp(-accel, accel);
            if let Some(achieved) = achieved {
                // PD-CTRL-TRACTION-CREEP: a unit that got (almost) nowhere leans by a
                // creep; one that is getting somewhere gains a full step.
                let gain = if achieved.abs() * dt < TRACTION_MOVING {
                    creep
                } else {
                    accel
                };
                if u.speed > 0.0 {
                    u.speed = u.speed.min(achieved.max(0.0) + gain);
                } else if u.speed < 0.0 {
                    u.speed = u.speed.max(achieved.min(0.0) - gain);
                }
            }
            u.heading = wrap(u.heading + dh);
            u.turn_rate = if dt > 0.0 { dh / dt } else { 0.0 };
            if arrived {
                u.flags |= physical_flags::ARRIVED;
            }
            let dir = dir_of(u.heading);
            let candidate = u.position.truncate() + dir * u.speed * dt;
            drove.push(candidate != u.position.truncate());
            xy.push(candidate);
            let up = u.orientation * Vec3::Z;
            self.hot.push(Hot {
                id: u.id,
                z: u.position.z,
                up,
                flat: up.z >= 1.0 - FLAT,
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
        self.solver.clear();
        self.solver
            .extend(self.pairs.iter().map(|&(i, j)| SolverPair {
                i,
                j,
                seen: NEVER,
                slack: f32::NAN,
            }));
        self.anchor.clear();
        self.anchor.extend_from_slice(&xy);
        self.moved.clear();

        // 4.–5. Narrow phase and resolution; 6. the walkable check.
        let mut pushed_at = std::mem::take(&mut self.pushed_at);
        pushed_at.clear();
        pushed_at.resize(n, 0);
        let mut pinned = std::mem::take(&mut self.pinned);
        pinned.clear();
        pinned.resize(n, false);
        let mut pushes: u32 = 0;
        let terrain = {
            let mut s = Solve {
                xy: &mut xy,
                old_xy: &old_xy,
                pushed_at: &mut pushed_at,
                pinned: &mut pinned,
                pushes: &mut pushes,
                depenetration: DEPENETRATION_SPEED * dt.max(0.0),
                budget: MAX_STEP_PASSES,
                looks: 0,
            };
            self.resolve(&mut s, &mut report);
            self.walkable_check(ground, &mut s, &drove, &mut report)?
        };
        // Terrain following at the final places.
        for k in 0..self.mobile.len() {
            let i = self.mobile[k] as usize;
            let sample = terrain.then_some(&self.samples[k]);
            follow(&mut self.units[i], &mut self.hot[i], xy[i], sample, dt);
        }
        self.drove = drove;
        self.pressed = pressed;
        self.pushed_at = pushed_at;
        self.pinned = pinned;
        self.old_xy = old_xy;

        // 8. Contact episodes at the final positions.
        self.episodes(&xy, &mut report);
        self.scratch_xy = xy;
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
