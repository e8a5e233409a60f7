//! The types of the control service (interface 2.1): what other plugins ask of the
//! Control slot's plugin — desired motion, the physical state of a unit, queries of
//! objects in a region and segment hits — and the model bounds and ground samples the
//! host gives a control plugin to build collision proxies and follow the terrain.
//!
//! All of it is plain `#[repr(C)]` data with open numbers for modes and flags (new modes
//! and flags are minor additions; an unknown mode is refused with
//! [`ErrorKind::INVALID`](crate::ErrorKind::INVALID), never undefined behaviour).

use crate::math::Vec3f;
use abi_stable::StableAbi;

/// How a [`MotionRequest`] is meant (an open number: compare with the constants).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MotionMode(pub u32);

impl MotionMode {
    /// Brake to a standstill and hold the heading.
    pub const STOP: Self = Self(0);
    /// Drive: `speed` (units/s along the heading, negative = reverse) and `turn`
    /// (radians/s, positive = counter-clockwise seen from above).
    pub const DRIVE: Self = Self(1);
    /// Drive to `target` (x, y; z is ignored) at up to `speed`, turning towards it, and
    /// stop there (within the controller's arrival tolerance).
    pub const MOVE_TO: Self = Self(2);
    /// Reach the horizontal velocity `target` (x, y; units/s): heading and speed follow
    /// it within the controller's limits.
    pub const VELOCITY: Self = Self(3);
}

/// Desired motion of one unit, as Behavior, Wizard or manual input express it. The
/// controller turns it into a physically allowed step within its acceleration and
/// turn limits; the request stays in force until replaced.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct MotionRequest {
    /// What the other fields mean.
    pub mode: MotionMode,
    /// Speed in units per second (see [`MotionMode`]).
    pub speed: f32,
    /// Turn rate in radians per second ([`MotionMode::DRIVE`]).
    pub turn: f32,
    /// Target point or velocity ([`MotionMode::MOVE_TO`], [`MotionMode::VELOCITY`]).
    pub target: Vec3f,
}

impl MotionRequest {
    /// Stop.
    pub fn stop() -> Self {
        Self {
            mode: MotionMode::STOP,
            speed: 0.0,
            turn: 0.0,
            target: Vec3f::default(),
        }
    }

    /// Drive at `speed` turning at `turn`.
    pub fn drive(speed: f32, turn: f32) -> Self {
        Self {
            mode: MotionMode::DRIVE,
            speed,
            turn,
            ..Self::stop()
        }
    }

    /// Drive to `target` at up to `speed`.
    pub fn move_to(target: Vec3f, speed: f32) -> Self {
        Self {
            mode: MotionMode::MOVE_TO,
            speed,
            target,
            ..Self::stop()
        }
    }

    /// Follow the horizontal velocity `velocity`.
    pub fn velocity(velocity: Vec3f) -> Self {
        Self {
            mode: MotionMode::VELOCITY,
            target: velocity,
            ..Self::stop()
        }
    }
}

/// Bits of [`PhysicalState::flags`] (open: unknown bits are to be ignored).
pub mod physical_flags {
    /// The controller moves this object (a vehicle).
    pub const MOBILE: u32 = 1;
    /// A static obstacle (building): blocks, never moves.
    pub const STATIC: u32 = 2;
    /// Touching another object at the end of the last step.
    pub const IN_CONTACT: u32 = 4;
    /// The explicit error state "tried to leave the walkable area" (tome VI): the step
    /// (the unit's own motion, with any contact push) was refused and the unit stopped
    /// at the border; cleared by its next motion request.
    pub const LEFT_WALKABLE: u32 = 8;
    /// Standing on a non-walkable area (placed there; neither driving nor a push takes a
    /// unit from walkable ground onto one); it may drive out.
    pub const ON_NON_WALKABLE: u32 = 16;
    /// A [`super::MotionMode::MOVE_TO`] target was reached.
    pub const ARRIVED: u32 = 32;
    /// No surface under the unit (off the map, or no terrain): it keeps its height.
    pub const NO_GROUND: u32 = 64;
}

/// A unit's physical state as the control plugin computed it in its last step.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct PhysicalState {
    /// Original object id.
    pub id: u32,
    /// Position.
    pub position: Vec3f,
    /// Heading (yaw, radians, counter-clockwise from +X).
    pub heading: f32,
    /// Linear velocity (units/s).
    pub velocity: Vec3f,
    /// Signed speed along the heading (units/s).
    pub speed: f32,
    /// Yaw rate (radians/s).
    pub turn_rate: f32,
    /// The request in force.
    pub request: MotionRequest,
    /// Radius of the collision proxy's horizontal circle (or the box's circumcircle).
    pub radius: f32,
    /// [`physical_flags`] bits.
    pub flags: u32,
}

/// The first object a segment hits.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Original id of the object hit.
    pub id: u32,
    /// Fraction along the segment (0 = start, 1 = end).
    pub fraction: f32,
    /// The hit point.
    pub point: Vec3f,
    /// Surface normal of the proxy at the hit point.
    pub normal: Vec3f,
}

/// The bounds of an object's models in object space (unscaled, before its transform):
/// the union of the LOD-0 slot boxes of every model of its prototype, each under its
/// node's rest transform.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct ModelBounds {
    /// Minimum corner.
    pub min: Vec3f,
    /// Maximum corner.
    pub max: Vec3f,
}

/// What the terrain says about one ground point (a batch query, so a control plugin can
/// follow the surface for thousands of units with one service call).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct GroundSample {
    /// There is a surface at this point (height and normal are meaningful).
    pub on_surface: bool,
    /// Surface height.
    pub height: f32,
    /// Unit surface normal.
    pub normal: Vec3f,
    /// The areal containing the point (`u32::MAX`: none).
    pub area: u32,
    /// That areal is walkable (`false` when there is none).
    pub walkable: bool,
}

impl GroundSample {
    /// "No areal" in [`GroundSample::area`].
    pub const NO_AREA: u32 = u32::MAX;
}
