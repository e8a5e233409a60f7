//! The player's camera as game state (tome VI "камера"; FORMATS §13.15): advanced once
//! per tick on game time from the tick's actions, saved with the plugin, so the same
//! input gives the same camera at any frame rate. The horizontal angle wraps into
//! `[0, 2π)`, the vertical one is clamped to the mode's range, and centring
//! (`CMD_CAMERA_CENTER`) moves the vertical angle back to the mode's rest angle at
//! [`CENTRE_RATE`] on game time.
//!
//! Modes: **overview** (RTS: a ground focus point seen from `distance` along the view
//! direction — pan, zoom, rotate, edge scrolling), **follow** (the same around a unit),
//! **free** (an eye that flies) and **possessed** (behind and above the driven unit,
//! looking where it aims). Picking rays use the engine's projection (FORMATS §13.6:
//! horizontal field of view, the window's aspect), so a click hits what is drawn there.

use glam::{Vec2, Vec3};
use serde::{Deserialize, Serialize};
use std::f32::consts::TAU;

/// Horizontal field of view (the engine's default camera, 1.04 rad).
pub const FOV: f32 = 1.04;
/// Largest vertical angle magnitude (free camera).
pub const PITCH_LIMIT: f32 = 1.5;
/// Overview vertical angle range (looking down at the ground).
pub const OVERVIEW_PITCH: (f32, f32) = (-1.45, -0.15);
/// Overview rest angle (what centring returns to).
pub const OVERVIEW_REST: f32 = -0.8;
/// Centring speed, radians per second of game time.
pub const CENTRE_RATE: f32 = 2.0;
/// Turning speed of the camera commands, radians per second.
pub const TURN_RATE: f32 = 1.5;
/// Panning speed, as a fraction of the view distance per second.
pub const PAN_RATE: f32 = 1.0;
/// Overview distance range and start.
pub const DISTANCE: (f32, f32, f32) = (10.0, 250.0, 60.0);
/// One zoom step multiplies the distance by this (zoom in) or divides by it.
pub const ZOOM_STEP: f32 = 0.8;
/// Pointer margin (fraction of the window) that scrolls the overview.
pub const EDGE: f32 = 0.02;
/// Eye of a possessed unit: behind by this much, above by [`SEAT_HEIGHT`].
pub const SEAT_BACK: f32 = 8.0;
/// Eye height above a possessed unit.
pub const SEAT_HEIGHT: f32 = 3.5;
/// Rest vertical angle from a possessed unit's seat.
pub const SEAT_REST: f32 = -0.2;
/// Largest aim offsets from a unit's heading (yaw, pitch).
pub const AIM_LIMIT: (f32, f32) = (1.2, 0.5);

/// Wraps an angle into `[0, 2π)`.
pub fn wrap(a: f32) -> f32 {
    if !a.is_finite() {
        return 0.0;
    }
    let w = a.rem_euclid(TAU);
    if w >= TAU { 0.0 } else { w }
}

/// How the camera is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// The RTS overview.
    Overview,
    /// Around a unit.
    Follow,
    /// A free eye.
    Free,
    /// In a possessed unit's seat.
    Possessed,
}

/// What moves the camera this tick (the seat fills it from the actions).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Controls {
    /// Horizontal turn, `-1..=1` (positive: left, counter-clockwise).
    pub turn: f32,
    /// Vertical turn, `-1..=1` (positive: up).
    pub tilt: f32,
    /// Pan forward, `-1..=1`.
    pub pan_forward: f32,
    /// Pan right, `-1..=1`.
    pub pan_right: f32,
    /// Zoom steps (positive: in).
    pub zoom: i32,
    /// Start centring.
    pub centre: bool,
}

/// The camera (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rig {
    /// The mode.
    pub mode: Mode,
    /// Ground point looked at (overview, follow), or the eye (free).
    pub focus: Vec3,
    /// Horizontal angle (`[0, 2π)`).
    pub yaw: f32,
    /// Vertical angle.
    pub pitch: f32,
    /// Distance from the focus (overview, follow).
    pub distance: f32,
    /// Centring in progress.
    pub centring: bool,
    /// Aim offsets from the possessed unit's heading (yaw, pitch).
    pub aim: Vec2,
}

impl Default for Rig {
    fn default() -> Self {
        Self {
            mode: Mode::Overview,
            focus: Vec3::ZERO,
            yaw: 0.0,
            pitch: OVERVIEW_REST,
            distance: DISTANCE.2,
            centring: false,
            aim: Vec2::ZERO,
        }
    }
}

/// Unit forward vector of `yaw`, `pitch`.
pub fn forward(yaw: f32, pitch: f32) -> Vec3 {
    let (sy, cy) = yaw.sin_cos();
    let (sp, cp) = pitch.sin_cos();
    Vec3::new(cp * cy, cp * sy, sp)
}

impl Rig {
    /// The vertical range of the current mode.
    pub fn pitch_range(&self) -> (f32, f32) {
        match self.mode {
            Mode::Overview | Mode::Follow => OVERVIEW_PITCH,
            Mode::Free => (-PITCH_LIMIT, PITCH_LIMIT),
            Mode::Possessed => (-AIM_LIMIT.1, AIM_LIMIT.1),
        }
    }

    /// The rest vertical angle of the current mode (where centring goes).
    pub fn rest(&self) -> f32 {
        match self.mode {
            Mode::Overview | Mode::Follow => OVERVIEW_REST,
            Mode::Free => 0.0,
            Mode::Possessed => 0.0,
        }
    }

    /// Advances the camera by `dt` seconds of game time.
    pub fn advance(&mut self, c: &Controls, dt: f32) {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        let clean = |v: f32| {
            if v.is_finite() {
                v.clamp(-1.0, 1.0)
            } else {
                0.0
            }
        };
        let (turn, tilt) = (clean(c.turn), clean(c.tilt));
        if self.mode == Mode::Possessed {
            // Turning aims: the view follows the unit's heading plus the aim.
            self.aim.x = (self.aim.x + turn * TURN_RATE * dt).clamp(-AIM_LIMIT.0, AIM_LIMIT.0);
            if tilt != 0.0 {
                self.centring = false;
            }
            self.aim.y = (self.aim.y + tilt * TURN_RATE * dt).clamp(-AIM_LIMIT.1, AIM_LIMIT.1);
        } else {
            self.yaw = wrap(self.yaw + turn * TURN_RATE * dt);
            if tilt != 0.0 {
                self.centring = false;
            }
            let (lo, hi) = self.pitch_range();
            self.pitch = (self.pitch + tilt * TURN_RATE * dt).clamp(lo, hi);
        }
        if c.centre {
            self.centring = true;
        }
        if self.centring {
            let step = CENTRE_RATE * dt;
            let (value, rest) = match self.mode {
                Mode::Possessed => (&mut self.aim.y, 0.0),
                _ => {
                    let r = self.rest();
                    (&mut self.pitch, r)
                }
            };
            if (*value - rest).abs() <= step {
                *value = rest;
                self.centring = false;
            } else {
                *value -= step * (*value - rest).signum();
            }
        }
        let zoom = c.zoom.clamp(-8, 8);
        if zoom != 0 {
            let f = ZOOM_STEP.powi(zoom);
            match self.mode {
                Mode::Free => {
                    self.focus += forward(self.yaw, self.pitch) * self.distance * (1.0 - f)
                }
                _ => self.distance = (self.distance * f).clamp(DISTANCE.0, DISTANCE.1),
            }
        }
        let (pf, pr) = (clean(c.pan_forward), clean(c.pan_right));
        if (pf != 0.0 || pr != 0.0) && matches!(self.mode, Mode::Overview | Mode::Free) {
            let (sy, cy) = self.yaw.sin_cos();
            let ahead = Vec3::new(cy, sy, 0.0);
            let right = Vec3::new(sy, -cy, 0.0);
            self.focus += (ahead * pf + right * pr) * PAN_RATE * self.distance * dt;
        }
    }

    /// Eye, yaw and pitch of the view for a subject at `subject` (position, heading)
    /// in the follow and possessed modes; `ground` is the terrain height under the
    /// overview focus.
    pub fn view(&self, subject: Option<(Vec3, f32)>) -> (Vec3, f32, f32) {
        match (self.mode, subject) {
            (Mode::Free, _) => (self.focus, self.yaw, self.pitch),
            (Mode::Possessed, Some((p, heading))) => {
                let yaw = wrap(heading + self.aim.x);
                let pitch = SEAT_REST + self.aim.y;
                let (sy, cy) = yaw.sin_cos();
                let eye = p - Vec3::new(cy, sy, 0.0) * SEAT_BACK + Vec3::Z * SEAT_HEIGHT;
                (eye, yaw, pitch)
            }
            (Mode::Follow, Some((p, _))) => (
                p - forward(self.yaw, self.pitch) * self.distance,
                self.yaw,
                self.pitch,
            ),
            _ => (
                self.focus - forward(self.yaw, self.pitch) * self.distance,
                self.yaw,
                self.pitch,
            ),
        }
    }
}

/// The view's forward, right and up vectors (the render camera's: right = forward × Z),
/// `tan(fov/2)` and the aspect (4:3 when not a positive finite number).
fn basis(yaw: f32, pitch: f32, aspect: f32) -> (Vec3, Vec3, Vec3, f32, f32) {
    let f = forward(yaw, pitch);
    let r = f.cross(Vec3::Z).try_normalize().unwrap_or(Vec3::NEG_Y);
    let u = r.cross(f);
    let aspect = if aspect.is_finite() && aspect > 0.0 {
        aspect
    } else {
        4.0 / 3.0
    };
    (f, r, u, (FOV * 0.5).tan(), aspect)
}

/// The world ray through the pointer `(px, py)` (`0..=1` from the top-left) of a view
/// at `eye` with `yaw`, `pitch`, the horizontal field of view [`FOV`] and `aspect`
/// (width / height): the engine's projection (`x = ndc·tan(fov/2)·z`, `y = ndc·
/// tan(fov/2)/aspect·z`). A unit direction.
pub fn pointer_ray(yaw: f32, pitch: f32, aspect: f32, px: f32, py: f32) -> Vec3 {
    let (f, r, u, t, aspect) = basis(yaw, pitch, aspect);
    let x = (2.0 * px - 1.0) * t;
    let y = (1.0 - 2.0 * py) * t / aspect;
    (f + r * x + u * y).normalize()
}

/// Where `point` appears on a view (`0..=1` from the top-left), `None` behind the eye.
pub fn project(eye: Vec3, yaw: f32, pitch: f32, aspect: f32, point: Vec3) -> Option<Vec2> {
    let (f, r, u, t, aspect) = basis(yaw, pitch, aspect);
    let d = point - eye;
    let z = d.dot(f);
    if z <= 1e-3 {
        return None;
    }
    let x = d.dot(r) / (z * t);
    let y = d.dot(u) * aspect / (z * t);
    Some(Vec2::new((x + 1.0) * 0.5, (1.0 - y) * 0.5))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_horizontal_angle_wraps_and_the_vertical_one_clamps() {
        let mut r = Rig::default();
        let turn = Controls {
            turn: 1.0,
            tilt: -1.0,
            ..Controls::default()
        };
        for _ in 0..300 {
            r.advance(&turn, 1.0 / 30.0);
            assert!((0.0..TAU).contains(&r.yaw));
            assert!(r.pitch >= OVERVIEW_PITCH.0 && r.pitch <= OVERVIEW_PITCH.1);
        }
        // 10 s at 1.5 rad/s = 15 rad: wrapped twice.
        assert!((r.yaw - wrap(15.0)).abs() < 1e-3, "{}", r.yaw);
        assert_eq!(r.pitch, OVERVIEW_PITCH.0);
        r.mode = Mode::Free;
        for _ in 0..300 {
            r.advance(
                &Controls {
                    tilt: 1.0,
                    ..Controls::default()
                },
                0.1,
            );
        }
        assert_eq!(r.pitch, PITCH_LIMIT);
    }

    #[test]
    fn centring_moves_on_game_time_whatever_the_step_size() {
        let centre = Controls {
            centre: true,
            ..Controls::default()
        };
        let run = |dt: f32, steps: u32| {
            let mut r = Rig {
                pitch: OVERVIEW_PITCH.0,
                ..Rig::default()
            };
            r.advance(&centre, dt);
            for _ in 1..steps {
                r.advance(&Controls::default(), dt);
            }
            r
        };
        // 0.2 s of game time in 6 or 60 steps: the same angle.
        let a = run(1.0 / 30.0, 6);
        let b = run(1.0 / 300.0, 60);
        assert!((a.pitch - b.pitch).abs() < 1e-4, "{} {}", a.pitch, b.pitch);
        assert!((a.pitch - (OVERVIEW_PITCH.0 + 0.4)).abs() < 1e-4);
        assert!(a.centring);
        // Long enough: at rest, and the command is over.
        let c = run(1.0 / 30.0, 30);
        assert_eq!(c.pitch, OVERVIEW_REST);
        assert!(!c.centring);
        // A manual tilt cancels it.
        let mut d = run(1.0 / 30.0, 2);
        d.advance(
            &Controls {
                tilt: 0.5,
                ..Controls::default()
            },
            1.0 / 30.0,
        );
        assert!(!d.centring);
    }

    #[test]
    fn zoom_is_bounded_and_pan_follows_the_heading() {
        let mut r = Rig::default();
        for _ in 0..40 {
            r.advance(
                &Controls {
                    zoom: 1,
                    ..Controls::default()
                },
                0.0,
            );
        }
        assert_eq!(r.distance, DISTANCE.0);
        r.yaw = std::f32::consts::FRAC_PI_2;
        r.advance(
            &Controls {
                pan_forward: 1.0,
                ..Controls::default()
            },
            1.0,
        );
        // Facing +Y: one second of panning moves the focus by the distance along +Y.
        assert!(r.focus.x.abs() < 1e-4 && (r.focus.y - DISTANCE.0).abs() < 1e-3);
    }

    #[test]
    fn the_possessed_view_sits_behind_the_unit_looking_along_its_heading_and_aim() {
        let r = Rig {
            mode: Mode::Possessed,
            aim: Vec2::new(0.5, 0.1),
            ..Rig::default()
        };
        let (eye, yaw, pitch) = r.view(Some((Vec3::new(10.0, 0.0, 2.0), 0.0)));
        assert!((yaw - 0.5).abs() < 1e-6);
        assert!((pitch - (SEAT_REST + 0.1)).abs() < 1e-6);
        assert!((eye.z - 5.5).abs() < 1e-5);
        assert!((eye.truncate() - Vec2::new(10.0, 0.0)).length() - SEAT_BACK < 1e-4);
    }

    proptest! {
        #[test]
        fn a_projected_point_picks_back_along_its_ray(
            yaw in 0.0f32..TAU, pitch in -1.4f32..1.4, aspect in 0.5f32..3.0,
            px in 0.05f32..0.95, py in 0.05f32..0.95, depth in 1.0f32..200.0,
        ) {
            let eye = Vec3::new(3.0, -7.0, 40.0);
            let dir = pointer_ray(yaw, pitch, aspect, px, py);
            prop_assert!((dir.length() - 1.0).abs() < 1e-4);
            let p = project(eye, yaw, pitch, aspect, eye + dir * depth).unwrap();
            prop_assert!((p.x - px).abs() < 1e-3 && (p.y - py).abs() < 1e-3, "{:?}", p);
        }
    }
}
