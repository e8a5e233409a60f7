//! Behavior's movement levels above Control (tome VI "Wizard": the four levels):
//!
//! * **global path** — the sequence of areals from the terrain service's route;
//! * **local path** — points inside the corridor of that route: the portals (the edges
//!   shared by consecutive areals) narrowed by a margin, pulled taut with the funnel
//!   algorithm, then cut into steps of at most `PathFind_fStepDist`;
//! * **wizard path** — [`crate::wizard`];
//! * **physical step** — Control.
//!
//! The six explicit error states of tome VI are [`ErrorState`]; none is ever "fixed"
//! by moving the unit — the caller reports it on the `Behavior.log` channel and stops
//! the unit.
//!
//! **Project decisions:**
//! * **PD-AI-PORTAL-MARGIN**: each portal is narrowed at both ends by
//!   `PathFind_NearDoorCoeff × PathFind_CorridorRadius`, at most to its midpoint.
//! * **PD-AI-CYCLE**: a plan whose route names an areal twice, or the
//!   [`MAX_REPLANS`]-th re-plan without reaching the goal, is the path generator's
//!   infinite cycle (error state 6).
//! * **PD-AI-ARRIVE**: a local point is reached within [`REACH`] of it; the goal within
//!   [`GOAL_REACH`]. The goal reached is remembered ([`PathState::arrived`]) until the
//!   unit is given a goal again.
//! * **PD-AI-ARRIVE-UNDER** (a unit that drives past its goal, is held off it by a
//!   neighbour, or circles it, does not hunt for it forever): a unit with a goal `G`
//!   (not escaping, PD-AI-ESCAPE) has also arrived — exactly as on reaching `G` — when
//!   `G` lies under its proxy (within its proxy radius `r` of its centre) while it does
//!   not close in on `G`: its ground velocity toward `G` is at most
//!   [`ARRIVE_CLOSING_SPEED`] (it stands, drives past or away, or turns about `G`). A
//!   unit heading for `G` keeps closing in and arrives within [`GOAL_REACH`] as before.
//! * **PD-AI-CROWD-ARRIVE** (units sent to one point settle round it instead of pushing
//!   at it forever — only one of them can be within [`GOAL_REACH`]): a unit with a goal
//!   `G` (not escaping, PD-AI-ESCAPE), standing at distance `d` from `G` with proxy
//!   radius `r`, has arrived — exactly as on reaching `G` (the path is cleared, a move
//!   order is done, the unit is asked to stop) — when one of its neighbours (the
//!   objects Wizard looks at, with their proxy radius `rn` and position) is **settled
//!   at `G`**: it arrived at a goal within [`CROWD_SAME_GOAL`] of `G`, by either rule,
//!   and has had no goal since; and that neighbour
//!   * is nearer `G` than the unit (its distance to `G` is less than `d`),
//!   * touches the unit or nearly: the gap between the two proxies (centre distance
//!     `− r − rn`) is at most [`CROWD_GAP`],
//!   * and the unit is within the **crowd distance**
//!     `d ≤ GOAL_REACH + CROWD_MAX_RINGS · (r + rn + CROWD_GAP)`: every ring of a
//!     crowd packed round `G` out to the [`CROWD_MAX_RINGS`]-th settles (about 200
//!     units of one size in a hexagonal packing); a unit beyond it goes on driving.
//!
//!   Arrival so spreads outward through the crowd from the unit at the point, one
//!   touching ring after another; a neighbour settled at another goal, or farther from
//!   the goal than the unit, settles nobody. A settled unit stands (stop requests: it
//!   does not drive back when it is pushed) until it is given a goal again, which
//!   forgets where it arrived. The rule reads this tick's positions only, no RNG: the
//!   neighbours are visited in ascending id order and the lowest id qualifying is the
//!   one named on `Behavior.log`.
//! * **PD-AI-DETOUR** (a damaged global path): when the unit makes no progress along
//!   its path ([`PathState::stuck`], PD-AI-STUCK in [`crate::behavior`]), the link from
//!   the areal it stands in to the next areal of its route is taken as blocked. The
//!   re-plan asks the terrain for a route that avoids every link blocked so far for this
//!   goal (at most [`MAX_BLOCKED`], the oldest forgotten first); when no such route
//!   exists the plain route is tried again (the blockage may have cleared) — the re-plan
//!   counter still leads to error state 6 if it never does. A new goal forgets the
//!   blocked links.
//! * **PD-AI-ESCAPE** (a unit inside a non-walkable areal — placed or pushed into a
//!   lake — leaves it; Control lets a unit standing on non-walkable ground drive
//!   anywhere on the surface): when the plan fails with error state 4 and the
//!   terrain's probe ([`Planner::walkable`]) answers that the unit's position is on the
//!   surface but not walkable while the goal is walkable, Behavior searches for the
//!   nearest walkable ground ([`escape_point`]): rings about the unit every
//!   [`ESCAPE_STEP`] out to [`ESCAPE_MAX_RADIUS`], each with samples at most
//!   [`ESCAPE_STEP`] apart (never fewer than [`ESCAPE_MIN_ANGLES`]), angles counted
//!   from +x counter-clockwise, one probe batch per ring, nearest ring first, the first
//!   angle in that order on a tie. A sample qualifies when it and the point
//!   [`ESCAPE_MARGIN`] farther out on the same ray are both walkable; the unit then
//!   heads straight for that farther point ([`PathState::escape`], the one local-path
//!   point; Wizard still avoids neighbours), and on reaching it (within [`REACH`])
//!   plans to the goal as usual — the goal is kept, and a plan that fails from there
//!   is the usual error state. The escape is one plan of the re-plan counter
//!   (PD-AI-CYCLE bounds repeated escapes). No qualifying sample within
//!   [`ESCAPE_MAX_RADIUS`] is error state 4 with the words `no walkable area within R
//!   of (x, y)`, and the unit stops. A goal that is not walkable stays error state 4 at
//!   once (no escape first), as before; nothing is ever teleported, no RNG is used.

use glam::Vec2;

/// A re-plan counter beyond this is error state 6 (PD-AI-CYCLE).
pub const MAX_REPLANS: u32 = 16;
/// The most points one leg of the local path is cut into.
pub const MAX_POINTS_PER_LEG: u32 = 1024;
/// A local-path point counts as reached this close (world units).
pub const REACH: f32 = 1.0;
/// The goal counts as reached this close.
pub const GOAL_REACH: f32 = 0.75;
/// PD-AI-ARRIVE-UNDER: a unit with its goal under its proxy has arrived unless it
/// closes in on the goal faster than this (world units per second).
pub const ARRIVE_CLOSING_SPEED: f32 = 0.5;
/// PD-AI-CROWD-ARRIVE: the most gap between the proxies of a unit and a settled
/// neighbour for the unit to settle (the two touch, or nearly: half of Wizard's
/// [`crate::wizard::SEPARATION_GAP`]).
pub const CROWD_GAP: f32 = 0.25;
/// PD-AI-CROWD-ARRIVE: how many rings of units round the goal may settle — the crowd
/// distance is `GOAL_REACH + CROWD_MAX_RINGS · (r + rn + CROWD_GAP)`.
pub const CROWD_MAX_RINGS: f32 = 8.0;
/// PD-AI-CROWD-ARRIVE: two goals this close are the same point (one order to many
/// units gives them the same point; this only absorbs rounding).
pub const CROWD_SAME_GOAL: f32 = 0.1;
/// The most links a path remembers as blocked (PD-AI-DETOUR).
pub const MAX_BLOCKED: usize = 8;
/// PD-AI-ESCAPE: the distance between two rings of the search for walkable ground, and
/// the most distance between two samples on one ring: walkable ground is found on the
/// ring at most this far past where it begins along a sampled ray (a piece narrower
/// than this between two rays may be missed).
pub const ESCAPE_STEP: f32 = 2.0;
/// PD-AI-ESCAPE: the radius of the last ring searched; no walkable ground within it is
/// error state 4 (`no walkable area within R of (x, y)`).
pub const ESCAPE_MAX_RADIUS: f32 = 64.0;
/// PD-AI-ESCAPE: the fewest samples on a ring (the small rings near the unit).
pub const ESCAPE_MIN_ANGLES: u32 = 16;
/// PD-AI-ESCAPE: how far beyond the first walkable sample of its ray the escape point
/// lies (itself walkable). More than [`REACH`], so a unit that reached the escape point
/// stands on walkable ground at least `ESCAPE_MARGIN − REACH` past that sample.
pub const ESCAPE_MARGIN: f32 = 2.0;

/// Tome VI's six explicit error states of Behavior.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum ErrorState {
    /// 1. No system map (no `Land.map` loaded).
    NoSystemMap,
    /// 2. No terrain interface (no terrain provider).
    NoTerrain,
    /// 3. The active behaviour has no areal map (its position is in no areal).
    NoArealMap,
    /// 4. The object is in, or is sent to, an area it cannot reach.
    NonReachable,
    /// 5. The object tried to leave a non-walkable area (Control refused the step).
    LeavingNonWalkable,
    /// 6. The path generator entered an infinite cycle (PD-AI-CYCLE).
    PathCycle,
}

impl ErrorState {
    /// The tome's number (1–6).
    pub fn number(self) -> u32 {
        match self {
            ErrorState::NoSystemMap => 1,
            ErrorState::NoTerrain => 2,
            ErrorState::NoArealMap => 3,
            ErrorState::NonReachable => 4,
            ErrorState::LeavingNonWalkable => 5,
            ErrorState::PathCycle => 6,
        }
    }

    /// A short name for logs and traces.
    pub fn name(self) -> &'static str {
        match self {
            ErrorState::NoSystemMap => "no_system_map",
            ErrorState::NoTerrain => "no_terrain",
            ErrorState::NoArealMap => "no_areal_map",
            ErrorState::NonReachable => "non_reachable",
            ErrorState::LeavingNonWalkable => "leaving_non_walkable",
            ErrorState::PathCycle => "path_cycle",
        }
    }
}

/// What planning answers: the route's areals and its portals, or an error state with
/// the terrain's words.
pub type Plan = Result<(Vec<u32>, Vec<(Vec2, Vec2)>), (ErrorState, String)>;

/// The terrain service as Behavior plans with it.
pub trait Planner {
    /// The areal at `at` (`None`: none, or the terrain cannot say).
    fn area(&mut self, at: Vec2) -> Option<u32>;
    /// The route and corridor from `from` to `to` never stepping along a link of `avoid`
    /// (pairs of areals, either direction).
    fn plan(&mut self, from: Vec2, to: Vec2, avoid: &[(u32, u32)]) -> Plan;
    /// For each point: `Some(true)` in a walkable areal, `Some(false)` on the surface
    /// but not in a walkable areal, `None` off the surface or when the terrain cannot
    /// say (PD-AI-ESCAPE; the default answers `None` everywhere, so a planner without a
    /// probe never escapes).
    fn walkable(&mut self, points: &[Vec2]) -> Vec<Option<bool>> {
        vec![None; points.len()]
    }
}

/// PD-AI-ESCAPE: the point the unit at `at` heads for to leave non-walkable ground —
/// [`ESCAPE_MARGIN`] beyond the nearest walkable sample whose point that far out is
/// walkable too; `None` when there is none within [`ESCAPE_MAX_RADIUS`]. Rings every
/// [`ESCAPE_STEP`], nearest first, one [`Planner::walkable`] batch per ring; on a ring
/// the samples are at most [`ESCAPE_STEP`] apart (at least [`ESCAPE_MIN_ANGLES`]),
/// angles from +x counter-clockwise, the first qualifying angle wins.
pub fn escape_point(at: Vec2, planner: &mut dyn Planner) -> Option<Vec2> {
    let rings = (ESCAPE_MAX_RADIUS / ESCAPE_STEP).floor() as u32;
    let mut batch = Vec::new();
    for k in 1..=rings {
        let r = k as f32 * ESCAPE_STEP;
        let n = ((std::f32::consts::TAU * r / ESCAPE_STEP).ceil() as u32).max(ESCAPE_MIN_ANGLES);
        let rays: Vec<Vec2> = (0..n)
            .map(|j| {
                let a = j as f32 * std::f32::consts::TAU / n as f32;
                Vec2::new(a.cos(), a.sin())
            })
            .collect();
        batch.clear();
        for &d in &rays {
            batch.push(at + d * r);
            batch.push(at + d * (r + ESCAPE_MARGIN));
        }
        let ok = planner.walkable(&batch);
        let hit = (0..rays.len()).find(|&j| {
            ok.get(2 * j) == Some(&Some(true)) && ok.get(2 * j + 1) == Some(&Some(true))
        });
        if let Some(j) = hit {
            return Some(batch[2 * j + 1]);
        }
    }
    None
}

/// Twice the signed area of `(a, b, c)`: positive when `c` is left of `a → b`.
fn cross(a: Vec2, b: Vec2, c: Vec2) -> f32 {
    (b - a).perp_dot(c - a)
}

/// Portals as `(left, right)` seen walking from `start`, narrowed by `margin`.
fn oriented(start: Vec2, portals: &[(Vec2, Vec2)], margin: f32) -> Vec<(Vec2, Vec2)> {
    let mut prev = start;
    portals
        .iter()
        .map(|&(a, b)| {
            let mid = (a + b) * 0.5;
            let (l, r) = if cross(prev, mid, a) >= 0.0 {
                (a, b)
            } else {
                (b, a)
            };
            let len = l.distance(r);
            let m = margin.min(len * 0.5);
            let dir = if len > 0.0 { (r - l) / len } else { Vec2::ZERO };
            prev = mid;
            (l + dir * m, r - dir * m)
        })
        .collect()
}

/// The funnel ("string pulling") through `(left, right)` portals from `start` to
/// `goal`: the corners of the shortest polyline inside the corridor, then `goal`.
pub fn funnel(start: Vec2, goal: Vec2, portals: &[(Vec2, Vec2)]) -> Vec<Vec2> {
    let mut gates: Vec<(Vec2, Vec2)> = Vec::with_capacity(portals.len() + 2);
    gates.push((start, start));
    gates.extend_from_slice(portals);
    gates.push((goal, goal));
    let mut out = Vec::new();
    let (mut apex, mut left, mut right) = (start, start, start);
    let (mut left_i, mut right_i) = (0usize, 0usize);
    let mut i = 1;
    // Each restart moves the apex strictly forward, so this ends.
    while i < gates.len() {
        let (l, r) = gates[i];
        // A side that would cross the other makes that other side's corner the apex.
        let mut new_apex = None;
        // Right side: `r` must not be right of the current right edge.
        if cross(apex, right, r) >= 0.0 {
            if apex == right || cross(apex, left, r) < 0.0 {
                right = r;
                right_i = i;
            } else {
                new_apex = Some((left, left_i));
            }
        }
        if new_apex.is_none() && cross(apex, left, l) <= 0.0 {
            if apex == left || cross(apex, right, l) > 0.0 {
                left = l;
                left_i = i;
            } else {
                new_apex = Some((right, right_i));
            }
        }
        match new_apex {
            Some((corner, at)) => {
                apex = corner;
                out.push(corner);
                (left, right, left_i, right_i) = (corner, corner, at, at);
                i = at + 1;
            }
            None => i += 1,
        }
    }
    if out.last() != Some(&goal) {
        out.push(goal);
    }
    out
}

/// Cuts the polyline `start → corners…` into points at most `step` apart (the corners
/// kept), without `start`; at most [`MAX_POINTS_PER_LEG`] points per leg, so a tiny
/// `PathFind_fStepDist` cannot make a huge path (the points are then farther apart).
pub fn subdivide(start: Vec2, corners: &[Vec2], step: f32) -> Vec<Vec2> {
    let mut out = Vec::new();
    let mut from = start;
    for &c in corners {
        let d = from.distance(c);
        if step > 0.0 && d > step {
            let n = ((d / step).ceil() as u32).min(MAX_POINTS_PER_LEG);
            for k in 1..n {
                out.push(from.lerp(c, k as f32 / n as f32));
            }
        }
        out.push(c);
        from = c;
    }
    out
}

/// One unit's path state: goal, global path (areals, with a revision number), local
/// path (points) and the re-plan counter.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PathState {
    /// Where the unit is going (`None`: nowhere).
    pub goal: Option<Vec2>,
    /// The global path.
    pub areals: Vec<u32>,
    /// Incremented on every plan.
    pub revision: u32,
    /// Local path points still ahead.
    pub points: Vec<Vec2>,
    /// Plans since the goal was set.
    pub replans: u32,
    /// Links (areal pairs) found blocked on the way to this goal (PD-AI-DETOUR).
    pub blocked: Vec<(u32, u32)>,
    /// The unit made no progress: the next plan blocks the link ahead.
    pub stalled: bool,
    /// PD-AI-ESCAPE: the walkable point the unit heads for to leave the non-walkable
    /// areal it stands in (also the one point of [`Self::points`]); the goal is planned
    /// once it is reached. A default for self-describing encodings; the plugin's
    /// postcard blob is not one, so its layout is a new state version.
    #[serde(default)]
    pub escape: Option<Vec2>,
    /// PD-AI-ARRIVE, PD-AI-CROWD-ARRIVE: the goal the unit arrived at last, kept while
    /// it has no goal (any new goal forgets it). Read by its neighbours: a unit settled
    /// here lets others sent to the same point settle against it. A new field of the
    /// plugin's postcard blob, so a new state version (as [`Self::escape`]).
    #[serde(default)]
    pub arrived: Option<Vec2>,
}

/// A neighbour settled at a goal, as PD-AI-CROWD-ARRIVE sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settled {
    /// Its id.
    pub id: u32,
    /// Ground position.
    pub position: Vec2,
    /// Proxy radius.
    pub radius: f32,
    /// The goal it arrived at ([`PathState::arrived`]).
    pub goal: Vec2,
}

/// PD-AI-CROWD-ARRIVE: the lowest id among `settled` that lets a unit at `at` with proxy
/// radius `radius` count as arrived at `goal` (settled at the same goal, nearer it,
/// touching the unit within [`CROWD_GAP`], the unit within the crowd distance); `None`:
/// none does.
pub fn crowd_arrival(at: Vec2, radius: f32, goal: Vec2, settled: &[Settled]) -> Option<u32> {
    let d = at.distance(goal);
    settled
        .iter()
        .filter(|s| {
            s.goal.distance(goal) <= CROWD_SAME_GOAL
                && s.position.distance(goal) < d
                && at.distance(s.position) - radius - s.radius <= CROWD_GAP
                && d <= GOAL_REACH + CROWD_MAX_RINGS * (radius + s.radius + CROWD_GAP)
        })
        .map(|s| s.id)
        .min()
}

/// Path-following parameters (from `Behavior.ini`, see [`crate::config`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathParams {
    /// `PathFind_CorridorRadius`.
    pub corridor_radius: f32,
    /// `PathFind_NearDoorCoeff`.
    pub near_door_coeff: f32,
    /// `PathFind_fStepDist`.
    pub step_dist: f32,
}

/// What [`PathState::steer`] tells the caller.
#[derive(Clone, Debug, PartialEq)]
pub enum Steer {
    /// No goal.
    Idle,
    /// Head for this point (the next local-path point).
    Toward(Vec2),
    /// The goal is reached; the path is cleared.
    Arrived,
    /// Planning failed: the state and the terrain's words; the path is cleared.
    Error(ErrorState, String),
}

impl PathState {
    /// Sets a new goal (clears the path: the next [`Self::steer`] plans).
    pub fn set_goal(&mut self, goal: Option<Vec2>) {
        *self = PathState {
            goal,
            revision: self.revision,
            ..PathState::default()
        };
    }

    /// The goal is reached (PD-AI-ARRIVE): no goal, and where it arrived remembered.
    fn arrive(&mut self, goal: Vec2) {
        self.set_goal(None);
        self.arrived = Some(goal);
    }

    /// PD-AI-CROWD-ARRIVE for a unit at `at` with proxy radius `radius` among the
    /// `settled` neighbours: when it counts as arrived, the path is cleared as on
    /// reaching the goal ([`Steer::Arrived`] for the caller) and the id of the lowest
    /// neighbour it settled against is answered. Nothing without a goal or while
    /// escaping non-walkable ground (PD-AI-ESCAPE).
    pub fn crowd_arrive(&mut self, at: Vec2, radius: f32, settled: &[Settled]) -> Option<u32> {
        let goal = self.goal.filter(|_| self.escape.is_none())?;
        let by = crowd_arrival(at, radius, goal, settled)?;
        self.arrive(goal);
        Some(by)
    }

    /// PD-AI-ARRIVE-UNDER for a unit at `at` moving at `velocity` (ground, per second)
    /// with proxy radius `radius`: when its goal lies under it and it does not close in
    /// on it, the path is cleared as on reaching the goal ([`Steer::Arrived`] for the
    /// caller) and `true` is answered. Nothing without a goal or while escaping
    /// non-walkable ground (PD-AI-ESCAPE).
    pub fn arrive_under(&mut self, at: Vec2, velocity: Vec2, radius: f32) -> bool {
        let Some(goal) = self.goal.filter(|_| self.escape.is_none()) else {
            return false;
        };
        let to = goal - at;
        let d = to.length();
        if d > radius {
            return false;
        }
        let closing = if d > 0.0 { velocity.dot(to / d) } else { 0.0 };
        if closing > ARRIVE_CLOSING_SPEED {
            return false;
        }
        self.arrive(goal);
        true
    }

    /// The unit made no progress along its path: the path is dropped and the next plan
    /// avoids the link ahead (PD-AI-DETOUR).
    pub fn stuck(&mut self) {
        self.points.clear();
        self.escape = None;
        self.stalled = true;
    }

    /// Takes the link from the areal under `at` to the next areal of the route as
    /// blocked (nothing when `at` is off the route or in its last areal).
    fn block_ahead(&mut self, at: Vec2, planner: &mut dyn Planner) {
        let Some(here) = planner.area(at) else {
            return;
        };
        let Some(k) = self.areals.iter().position(|&a| a == here) else {
            return;
        };
        let Some(&next) = self.areals.get(k + 1) else {
            return;
        };
        let link = (here.min(next), here.max(next));
        if !self.blocked.contains(&link) {
            if self.blocked.len() >= MAX_BLOCKED {
                self.blocked.remove(0);
            }
            self.blocked.push(link);
        }
    }

    /// Plans from `at` (a re-plan keeps the goal and counts).
    pub fn plan(
        &mut self,
        at: Vec2,
        planner: &mut dyn Planner,
        p: &PathParams,
    ) -> Result<(), (ErrorState, String)> {
        let Some(goal) = self.goal else {
            return Ok(());
        };
        self.replans += 1;
        self.revision = self.revision.wrapping_add(1);
        if self.replans > MAX_REPLANS {
            return Err((
                ErrorState::PathCycle,
                format!("{} plans without reaching the goal", self.replans - 1),
            ));
        }
        if std::mem::take(&mut self.stalled) {
            self.block_ahead(at, planner);
        }
        let planned = match planner.plan(at, goal, &self.blocked) {
            // No way round what is blocked: the plain route again.
            Err((ErrorState::NonReachable, _)) if !self.blocked.is_empty() => {
                planner.plan(at, goal, &[])
            }
            p => p,
        };
        let (areals, portals) = match planned {
            Err((ErrorState::NonReachable, why)) => {
                return self.plan_escape(at, goal, planner, why);
            }
            p => p?,
        };
        self.escape = None;
        let mut seen = areals.clone();
        seen.sort_unstable();
        if seen.windows(2).any(|w| w[0] == w[1]) {
            return Err((
                ErrorState::PathCycle,
                format!("the route {areals:?} visits an areal twice"),
            ));
        }
        let gates = oriented(at, &portals, p.near_door_coeff * p.corridor_radius);
        let corners = funnel(at, goal, &gates);
        self.points = subdivide(at, &corners, p.step_dist);
        self.areals = areals;
        Ok(())
    }

    /// PD-AI-ESCAPE after a plan refused with `why` (error state 4): when `at` is on
    /// non-walkable ground and `goal` on walkable ground, the path becomes the one
    /// escape point; otherwise the refusal stands.
    fn plan_escape(
        &mut self,
        at: Vec2,
        goal: Vec2,
        planner: &mut dyn Planner,
        why: String,
    ) -> Result<(), (ErrorState, String)> {
        self.escape = None;
        let probe = planner.walkable(&[at, goal]);
        if probe.first() != Some(&Some(false)) || probe.get(1) != Some(&Some(true)) {
            return Err((ErrorState::NonReachable, why));
        }
        let Some(point) = escape_point(at, planner) else {
            return Err((
                ErrorState::NonReachable,
                format!(
                    "no walkable area within {ESCAPE_MAX_RADIUS} of ({}, {}) ({why})",
                    at.x, at.y
                ),
            ));
        };
        self.escape = Some(point);
        self.points = vec![point];
        self.areals.clear();
        Ok(())
    }

    /// The point to head for from `at`, planning when there is a goal and no path.
    pub fn steer(&mut self, at: Vec2, planner: &mut dyn Planner, p: &PathParams) -> Steer {
        let Some(goal) = self.goal else {
            return Steer::Idle;
        };
        if at.distance(goal) <= GOAL_REACH {
            self.arrive(goal);
            return Steer::Arrived;
        }
        // Out of the non-walkable areal (PD-AI-ESCAPE): now the goal.
        if self.escape.is_some_and(|e| at.distance(e) <= REACH) {
            self.escape = None;
            self.points.clear();
        }
        if self.points.is_empty() {
            if let Err((state, why)) = self.plan(at, planner, p) {
                self.points.clear();
                self.areals.clear();
                return Steer::Error(state, why);
            }
        }
        while self.points.len() > 1 && at.distance(self.points[0]) <= REACH {
            self.points.remove(0);
        }
        match self.points.first() {
            Some(&next) => Steer::Toward(next),
            None => Steer::Toward(goal),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// An L-shaped corridor of unit squares: (0,0) → (1,0) → (2,0) → (2,1) → (2,2),
    /// each square 10 units.
    struct L;
    impl Planner for L {
        fn area(&mut self, _: Vec2) -> Option<u32> {
            None
        }
        fn plan(&mut self, _from: Vec2, to: Vec2, _: &[(u32, u32)]) -> Plan {
            if to.x > 100.0 {
                return Err((ErrorState::NonReachable, "area 9 is unreachable".into()));
            }
            Ok((
                vec![0, 1, 2, 5, 8],
                vec![
                    (Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0)),
                    (Vec2::new(20.0, 10.0), Vec2::new(20.0, 0.0)),
                    (Vec2::new(20.0, 10.0), Vec2::new(30.0, 10.0)),
                    (Vec2::new(30.0, 20.0), Vec2::new(20.0, 20.0)),
                ],
            ))
        }
    }

    const P: PathParams = PathParams {
        corridor_radius: 2.0,
        near_door_coeff: 0.5,
        step_dist: 4.0,
    };

    #[test]
    fn the_funnel_cuts_the_corner_of_an_l() {
        let start = Vec2::new(5.0, 5.0);
        let goal = Vec2::new(25.0, 25.0);
        let gates = oriented(start, &L.plan(start, goal, &[]).unwrap().1, 1.0);
        let corners = funnel(start, goal, &gates);
        // The path hugs the inner corner (20, 10): it touches the two narrowed portals
        // that meet there, one margin away from it on each.
        assert_eq!(
            corners,
            vec![Vec2::new(20.0, 9.0), Vec2::new(21.0, 10.0), goal],
            "{corners:?}"
        );
        // A straight corridor has no corner.
        let straight = [(Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0))];
        let g = oriented(Vec2::new(5.0, 5.0), &straight, 1.0);
        assert_eq!(
            funnel(Vec2::new(5.0, 5.0), Vec2::new(15.0, 5.0), &g),
            vec![Vec2::new(15.0, 5.0)]
        );
    }

    #[test]
    fn every_leg_stays_inside_the_corridor() {
        // Every point of the subdivided path is inside one of the five squares.
        let mut s = PathState::default();
        s.set_goal(Some(Vec2::new(25.0, 25.0)));
        s.plan(Vec2::new(5.0, 5.0), &mut L, &P).unwrap();
        let inside = |q: Vec2| {
            [
                (0.0, 0.0),
                (10.0, 0.0),
                (20.0, 0.0),
                (20.0, 10.0),
                (20.0, 20.0),
            ]
            .iter()
            .any(|&(x, y)| q.x >= x && q.x <= x + 10.0 && q.y >= y && q.y <= y + 10.0)
        };
        let mut prev = Vec2::new(5.0, 5.0);
        for &q in &s.points {
            assert!(prev.distance(q) <= P.step_dist + 1e-4);
            for k in 0..=10 {
                assert!(inside(prev.lerp(q, k as f32 / 10.0)), "{prev} → {q}");
            }
            prev = q;
        }
        assert_eq!(s.areals, [0, 1, 2, 5, 8]);
        assert_eq!(s.revision, 1);
    }

    #[test]
    fn a_tiny_step_is_bounded() {
        let pts = subdivide(Vec2::ZERO, &[Vec2::new(1000.0, 0.0)], f32::MIN_POSITIVE);
        assert_eq!(pts.len(), MAX_POINTS_PER_LEG as usize);
        assert_eq!(pts.last(), Some(&Vec2::new(1000.0, 0.0)));
        assert_eq!(subdivide(Vec2::ZERO, &[Vec2::new(9.0, 0.0)], 4.0).len(), 3);
        assert_eq!(subdivide(Vec2::ZERO, &[Vec2::new(9.0, 0.0)], 0.0).len(), 1);
    }

    #[test]
    fn steering_walks_the_points_and_arrives() {
        let mut s = PathState::default();
        s.set_goal(Some(Vec2::new(25.0, 25.0)));
        let mut at = Vec2::new(5.0, 5.0);
        for _ in 0..200 {
            match s.steer(at, &mut L, &P) {
                Steer::Toward(q) => at += (q - at).clamp_length_max(0.5),
                Steer::Arrived => break,
                other => panic!("{other:?}"),
            }
        }
        assert!(at.distance(Vec2::new(25.0, 25.0)) <= GOAL_REACH);
        assert_eq!(s.goal, None);
        assert_eq!(s.steer(at, &mut L, &P), Steer::Idle);
    }

    /// A settled neighbour of radius 0.5.
    fn settled(id: u32, x: f32, y: f32, goal: Vec2) -> Settled {
        Settled {
            id,
            position: Vec2::new(x, y),
            radius: 0.5,
            goal,
        }
    }

    #[test]
    fn arrival_remembers_the_goal_until_a_new_one() {
        let mut s = PathState::default();
        let goal = Vec2::new(25.0, 25.0);
        s.set_goal(Some(goal));
        assert_eq!(s.steer(goal, &mut L, &P), Steer::Arrived);
        assert_eq!((s.goal, s.arrived), (None, Some(goal)));
        assert_eq!(s.steer(goal, &mut L, &P), Steer::Idle);
        assert_eq!(s.arrived, Some(goal), "kept while idle");
        s.set_goal(Some(Vec2::new(5.0, 5.0)));
        assert_eq!(s.arrived, None, "a new goal forgets it");
    }

    #[test]
    fn a_unit_touching_a_settled_neighbour_nearer_the_goal_settles() {
        let g = Vec2::new(10.0, 10.0);
        // The neighbour settled 0.25 from the goal; the unit 1.125 beyond it (gap
        // 0.125).
        let n = [settled(7, 10.25, 10.0, g)];
        let mut s = PathState::default();
        s.set_goal(Some(g));
        assert_eq!(s.crowd_arrive(Vec2::new(11.375, 10.0), 0.5, &n), Some(7));
        assert_eq!((s.goal, s.arrived), (None, Some(g)));
        assert!(s.points.is_empty());
        // Gap exactly CROWD_GAP still touches; a little more does not.
        let at = |gap: f32| Vec2::new(10.25 + 1.0 + gap, 10.0);
        assert_eq!(crowd_arrival(at(CROWD_GAP), 0.5, g, &n), Some(7));
        assert_eq!(crowd_arrival(at(CROWD_GAP + 0.01), 0.5, g, &n), None);
        // Without a goal nothing happens; nor while escaping (PD-AI-ESCAPE).
        let mut s = PathState::default();
        assert_eq!(s.crowd_arrive(at(0.0), 0.5, &n), None);
        s.set_goal(Some(g));
        s.escape = Some(Vec2::ZERO);
        assert_eq!(s.crowd_arrive(at(0.0), 0.5, &n), None);
        assert_eq!(s.goal, Some(g));
        // The lowest qualifying id is named, whatever the order of the list.
        let two = [settled(9, 10.0, 11.0, g), settled(4, 11.0, 10.0, g)];
        assert_eq!(crowd_arrival(Vec2::new(11.0, 11.0), 0.5, g, &two), Some(4));
    }

    #[test]
    fn a_neighbour_farther_from_the_goal_settles_nobody() {
        let g = Vec2::new(10.0, 10.0);
        // The settled neighbour is beyond the unit (2.0 from the goal, the unit 1.0).
        let n = [settled(7, 12.0, 10.0, g)];
        assert_eq!(crowd_arrival(Vec2::new(11.0, 10.0), 0.5, g, &n), None);
        // As far as the unit: not nearer either.
        let n = [settled(7, 10.0, 11.0, g)];
        assert_eq!(crowd_arrival(Vec2::new(11.0, 10.0), 0.5, g, &n), None);
    }

    #[test]
    fn a_neighbour_settled_at_another_goal_settles_nobody() {
        let g = Vec2::new(10.0, 10.0);
        let other = Vec2::new(10.0 + CROWD_SAME_GOAL + 0.05, 10.0);
        let n = [settled(7, 10.0, 10.0, other)];
        let mut s = PathState::default();
        s.set_goal(Some(g));
        assert_eq!(s.crowd_arrive(Vec2::new(11.1, 10.0), 0.5, &n), None);
        assert_eq!(s.goal, Some(g));
        // Within CROWD_SAME_GOAL it is the same point.
        let same = [settled(7, 10.0, 10.0, g + Vec2::new(0.0, 0.09))];
        assert_eq!(crowd_arrival(Vec2::new(11.1, 10.0), 0.5, g, &same), Some(7));
    }

    #[test]
    fn arrival_spreads_outward_ring_by_ring_up_to_the_crowd_distance() {
        // A line of units 1.2 apart (gap 0.2) from the goal outward along +x, unit 0 at
        // the goal. Visiting the line in any order, repeatedly, settles every unit
        // within the crowd distance and none beyond it.
        let g = Vec2::new(0.0, 0.0);
        let n = 12;
        let pos = |k: usize| Vec2::new(k as f32 * 1.2, 0.0);
        let mut paths: Vec<PathState> = (0..n)
            .map(|_| {
                let mut s = PathState::default();
                s.set_goal(Some(g));
                s
            })
            .collect();
        assert_eq!(paths[0].steer(pos(0), &mut L, &P), Steer::Arrived);
        // Outermost first: each pass settles one more ring.
        for pass in 1..n {
            let settled: Vec<Settled> = (0..n)
                .filter_map(|k| {
                    Some(Settled {
                        id: k as u32,
                        position: pos(k),
                        radius: 0.5,
                        goal: paths[k].arrived?,
                    })
                })
                .collect();
            for k in (1..n).rev() {
                paths[k].crowd_arrive(pos(k), 0.5, &settled);
            }
            let done = paths.iter().filter(|s| s.arrived.is_some()).count();
            let reach = GOAL_REACH + CROWD_MAX_RINGS * (1.0 + CROWD_GAP);
            let within = (0..n).filter(|&k| pos(k).length() <= reach).count();
            assert_eq!(done, (pass + 1).min(within), "pass {pass}");
        }
        // The crowd distance is 0.75 + 8 · 1.25 = 10.75: units 0–8 (at 9.6) settle,
        // unit 9 (at 10.8) and beyond still drive.
        for (k, s) in paths.iter().enumerate() {
            assert_eq!(s.arrived.is_some(), k <= 8, "unit {k}");
            assert_eq!(s.goal.is_some(), k > 8, "unit {k}");
        }
    }

    #[test]
    fn errors_clear_the_path_and_replans_end_in_a_cycle() {
        let mut s = PathState::default();
        s.set_goal(Some(Vec2::new(500.0, 5.0)));
        let at = Vec2::new(5.0, 5.0);
        assert!(
            matches!(s.steer(at, &mut L, &P), Steer::Error(ErrorState::NonReachable, m) if m.contains("unreachable"))
        );
        assert!(s.points.is_empty());
        let mut s = PathState::default();
        s.set_goal(Some(Vec2::new(25.0, 25.0)));
        for _ in 0..MAX_REPLANS {
            s.plan(at, &mut L, &P).unwrap();
        }
        assert!(matches!(
            s.plan(at, &mut L, &P),
            Err((ErrorState::PathCycle, _))
        ));
        struct Loop;
        impl Planner for Loop {
            fn area(&mut self, _: Vec2) -> Option<u32> {
                None
            }
            fn plan(&mut self, _: Vec2, _: Vec2, _: &[(u32, u32)]) -> Plan {
                Ok((vec![0, 1, 0], vec![]))
            }
        }
        let mut s = PathState::default();
        s.set_goal(Some(Vec2::new(25.0, 25.0)));
        assert!(
            matches!(s.plan(at, &mut Loop, &P), Err((ErrorState::PathCycle, m)) if m.contains("twice"))
        );
        assert_eq!(ErrorState::PathCycle.number(), 6);
    }

    #[test]
    fn a_unit_with_its_goal_under_it_arrives_unless_it_closes_in() {
        let goal = Vec2::new(10.0, 10.0);
        let fresh = || {
            let mut s = PathState::default();
            s.set_goal(Some(goal));
            s
        };
        // Driving past: the goal 1.7 behind a unit of radius 3.5 moving away from it.
        let mut s = fresh();
        assert!(s.arrive_under(Vec2::new(10.0, 8.3), Vec2::new(1.0, -2.0), 3.5));
        assert_eq!((s.goal, s.arrived), (None, Some(goal)));
        // Standing (held off by a neighbour) or circling it: arrived too.
        assert!(fresh().arrive_under(Vec2::new(12.0, 10.0), Vec2::ZERO, 3.5));
        assert!(fresh().arrive_under(Vec2::new(12.0, 10.0), Vec2::new(0.0, 5.0), 3.5));
        // Closing in faster than the threshold: it drives on to GOAL_REACH.
        let mut s = fresh();
        let toward = Vec2::new(-(ARRIVE_CLOSING_SPEED + 0.01), 0.0);
        assert!(!s.arrive_under(Vec2::new(12.0, 10.0), toward, 3.5));
        assert_eq!(s.goal, Some(goal));
        let slow = Vec2::new(-ARRIVE_CLOSING_SPEED, 0.0);
        assert!(fresh().arrive_under(Vec2::new(12.0, 10.0), slow, 3.5));
        // The goal beyond the proxy: not arrived, however the unit moves.
        assert!(!fresh().arrive_under(Vec2::new(13.6, 10.0), Vec2::ZERO, 3.5));
        // Standing on the goal itself (no direction to it): arrived.
        assert!(fresh().arrive_under(goal, Vec2::ZERO, 3.5));
        // No goal, or escaping non-walkable ground: nothing.
        assert!(!PathState::default().arrive_under(goal, Vec2::ZERO, 3.5));
        let mut s = fresh();
        s.escape = Some(Vec2::new(20.0, 20.0));
        assert!(!s.arrive_under(goal, Vec2::ZERO, 3.5));
        assert_eq!(s.goal, Some(goal));
    }

    /// Two ways from area 0 to area 2: the short one through area 1 and a long one
    /// through areas 3 and 4. The unit stands in `here`.
    struct Fork {
        here: Option<u32>,
        asked: Vec<Vec<(u32, u32)>>,
    }
    impl Planner for Fork {
        fn area(&mut self, _: Vec2) -> Option<u32> {
            self.here
        }
        fn plan(&mut self, _: Vec2, _: Vec2, avoid: &[(u32, u32)]) -> Plan {
            self.asked.push(avoid.to_vec());
            let cut = |a: u32, b: u32| avoid.contains(&(a.min(b), a.max(b)));
            if !cut(0, 1) && !cut(1, 2) {
                Ok((vec![0, 1, 2], vec![]))
            } else if !cut(0, 3) {
                Ok((vec![0, 3, 4, 2], vec![]))
            } else {
                Err((ErrorState::NonReachable, "cut off".into()))
            }
        }
    }

    #[test]
    fn a_stuck_unit_plans_round_the_link_ahead() {
        let at = Vec2::new(5.0, 5.0);
        let mut f = Fork {
            here: Some(0),
            asked: vec![],
        };
        let mut s = PathState::default();
        s.set_goal(Some(Vec2::new(50.0, 5.0)));
        s.plan(at, &mut f, &P).unwrap();
        assert_eq!(s.areals, vec![0, 1, 2]);
        // No progress: the link 0–1 ahead is blocked and the route goes round it.
        s.stuck();
        assert!(s.points.is_empty());
        let rev = s.revision;
        s.plan(at, &mut f, &P).unwrap();
        assert_eq!(s.blocked, vec![(0, 1)]);
        assert_eq!(s.areals, vec![0, 3, 4, 2]);
        assert_eq!(s.revision, rev + 1);
        // Stuck on the detour too: 0–3 is blocked as well; no way round both, so the
        // plain route is tried again (the links stay remembered for this goal).
        s.stuck();
        s.plan(at, &mut f, &P).unwrap();
        assert_eq!(s.blocked, vec![(0, 1), (0, 3)]);
        assert_eq!(s.areals, vec![0, 1, 2]);
        assert_eq!(f.asked.last().unwrap(), &Vec::<(u32, u32)>::new());
        // A plan that is not after a stall blocks nothing new.
        s.plan(at, &mut f, &P).unwrap();
        assert_eq!(s.blocked.len(), 2);
        // A new goal forgets them.
        s.set_goal(Some(Vec2::new(60.0, 5.0)));
        assert!(s.blocked.is_empty() && !s.stalled);
    }

    #[test]
    fn off_the_route_or_in_its_last_areal_nothing_is_blocked_and_memory_is_bounded() {
        let at = Vec2::ZERO;
        for here in [None, Some(2), Some(9)] {
            let mut f = Fork {
                here,
                asked: vec![],
            };
            let mut s = PathState::default();
            s.set_goal(Some(Vec2::new(50.0, 5.0)));
            s.plan(at, &mut f, &P).unwrap();
            s.stuck();
            s.plan(at, &mut f, &P).unwrap();
            assert!(s.blocked.is_empty(), "{here:?}");
            assert_eq!(s.areals, vec![0, 1, 2]);
        }
        // At most MAX_BLOCKED links, the oldest forgotten first.
        let mut s = PathState::default();
        s.set_goal(Some(Vec2::new(50.0, 5.0)));
        for k in 0..(MAX_BLOCKED as u32 + 3) {
            s.areals = vec![100 + k, 200 + k];
            let mut f = Fork {
                here: Some(100 + k),
                asked: vec![],
            };
            s.stalled = true;
            s.block_ahead(at, &mut f);
        }
        assert_eq!(s.blocked.len(), MAX_BLOCKED);
        assert_eq!(s.blocked[0], (103, 203));
    }

    /// Land over [-100, 100]² (areal 0; off the surface beyond) round a square lake of
    /// half side `half` about the origin (areal 14, not walkable; its border is lake).
    /// Routes on land are straight lines; every probe batch is counted.
    struct Lake {
        half: f32,
        batches: u32,
    }
    impl Lake {
        fn new(half: f32) -> Self {
            Self { half, batches: 0 }
        }
        fn ground(&self, p: Vec2) -> Option<bool> {
            let m = p.abs().max_element();
            (m <= 100.0).then_some(m > self.half)
        }
    }
    impl Planner for Lake {
        fn area(&mut self, at: Vec2) -> Option<u32> {
            self.ground(at).map(|w| if w { 0 } else { 14 })
        }
        fn plan(&mut self, from: Vec2, to: Vec2, _: &[(u32, u32)]) -> Plan {
            if [from, to].iter().any(|&p| self.ground(p) == Some(false)) {
                return Err((ErrorState::NonReachable, "area 14 is not walkable".into()));
            }
            Ok((vec![0], vec![]))
        }
        fn walkable(&mut self, points: &[Vec2]) -> Vec<Option<bool>> {
            self.batches += 1;
            points.iter().map(|&p| self.ground(p)).collect()
        }
    }

    #[test]
    fn a_unit_in_the_lake_heads_for_the_nearest_walkable_point_then_the_goal() {
        let (start, goal) = (Vec2::new(3.0, 2.0), Vec2::new(30.0, 0.0));
        let mut lake = Lake::new(10.0);
        let mut s = PathState::default();
        s.set_goal(Some(goal));
        let Steer::Toward(e) = s.steer(start, &mut lake, &P) else {
            panic!("no escape: {s:?}");
        };
        assert_eq!(s.escape, Some(e));
        assert_eq!(
            (s.points.as_slice(), s.replans, s.revision),
            (&[e][..], 1, 1)
        );
        // The nearest shore is east, 7 away: the first ring past it (8) holds the
        // sample, and the escape point is the margin beyond it on the same ray.
        assert_eq!(e, Vec2::new(3.0 + 8.0 + ESCAPE_MARGIN, 2.0));
        assert_eq!(lake.ground(e), Some(true));
        let sample = e - Vec2::X * ESCAPE_MARGIN;
        assert_eq!(lake.ground(sample), Some(true));
        assert!(start.distance(sample) <= 7.0 + ESCAPE_STEP);
        // The probe at the start and goal, then one batch per ring up to the fourth.
        assert_eq!(lake.batches, 1 + 4);
        // Deterministic: the same answer again.
        assert_eq!(escape_point(start, &mut Lake::new(10.0)), Some(e));
        // Drive: the escape point first, then on land to the goal, which is kept.
        let mut at = start;
        let mut heads = vec![e];
        for _ in 0..500 {
            match s.steer(at, &mut lake, &P) {
                Steer::Toward(q) => {
                    if heads.last() != Some(&q) {
                        heads.push(q);
                    }
                    at += (q - at).clamp_length_max(0.5);
                }
                Steer::Arrived => break,
                other => panic!("{other:?}"),
            }
        }
        assert!(at.distance(goal) <= GOAL_REACH, "{at}");
        assert_eq!(heads.last(), Some(&goal));
        assert!(heads[1..].iter().all(|&q| lake.ground(q) == Some(true)));
        assert_eq!((s.goal, s.escape), (None, None));
    }

    #[test]
    fn the_escape_search_breaks_ties_by_angle_from_east() {
        // From the centre the shore is 10 away every way (the border is lake): the
        // ring of 12, its first angle (+x).
        let mut lake = Lake::new(10.0);
        assert_eq!(
            escape_point(Vec2::ZERO, &mut lake),
            Some(Vec2::new(12.0 + ESCAPE_MARGIN, 0.0))
        );
        assert_eq!(lake.batches, 6);
        // Near the south shore (1 away) the first ring holds it: the first angle from
        // east whose ray is on land there is 225° (the ring's 16 samples are a tie).
        let at = Vec2::new(-5.0, -9.0);
        let e = escape_point(at, &mut Lake::new(10.0)).unwrap();
        let ray = Vec2::from_angle(225f32.to_radians());
        assert!(
            (e - (at + ray * (2.0 + ESCAPE_MARGIN))).length() < 1e-4,
            "{e}"
        );
        assert_eq!(Lake::new(10.0).ground(e), Some(true));
    }

    #[test]
    fn no_walkable_ground_within_the_radius_stops_the_unit() {
        // Shore 80 away, beyond the search.
        let mut lake = Lake::new(80.0);
        let mut s = PathState::default();
        s.set_goal(Some(Vec2::new(90.0, 0.0)));
        match s.steer(Vec2::ZERO, &mut lake, &P) {
            Steer::Error(ErrorState::NonReachable, m) => {
                assert!(m.contains("no walkable area within 64 of (0, 0)"), "{m}");
            }
            other => panic!("{other:?}"),
        }
        assert!(s.points.is_empty() && s.escape.is_none());
        assert_eq!(s.goal, Some(Vec2::new(90.0, 0.0)), "the goal is kept");
        let rings = (ESCAPE_MAX_RADIUS / ESCAPE_STEP) as u32;
        assert_eq!(lake.batches, 1 + rings);
    }

    #[test]
    fn a_goal_in_the_lake_is_refused_without_an_escape() {
        for start in [Vec2::new(30.0, 0.0), Vec2::new(3.0, 2.0)] {
            let mut lake = Lake::new(10.0);
            let mut s = PathState::default();
            s.set_goal(Some(Vec2::new(-2.0, 0.0)));
            assert!(
                matches!(s.steer(start, &mut lake, &P), Steer::Error(ErrorState::NonReachable, m) if m.contains("not walkable")),
                "{start}"
            );
            assert!(s.points.is_empty() && s.escape.is_none());
            assert_eq!(lake.batches, 1, "only the start and goal are probed");
        }
        // A planner that cannot probe never escapes: the refusal stands.
        struct Blind;
        impl Planner for Blind {
            fn area(&mut self, _: Vec2) -> Option<u32> {
                Some(14)
            }
            fn plan(&mut self, _: Vec2, _: Vec2, _: &[(u32, u32)]) -> Plan {
                Err((ErrorState::NonReachable, "area 14 is not walkable".into()))
            }
        }
        let mut s = PathState::default();
        s.set_goal(Some(Vec2::new(30.0, 0.0)));
        assert!(matches!(
            s.steer(Vec2::ZERO, &mut Blind, &P),
            Steer::Error(ErrorState::NonReachable, _)
        ));
    }
}
