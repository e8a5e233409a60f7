//! The free camera (tome V / FORMATS §13.6, §13.15): position, horizontal angle that wraps,
//! vertical angle that is clamped, a centring command that moves smoothly on time, the
//! view matrix (world Z up → view x right, y up, z forward) and the Ngi32 Direct3D7
//! projection, plus the sphere-vs-frustum test used for culling.

use glam::{Mat4, Vec3, Vec4};
use std::f32::consts::{PI, TAU};

/// Largest vertical angle magnitude (radians): just under straight up/down.
pub const PITCH_LIMIT: f32 = 1.50;
/// Default horizontal field of view (the upstream `CBufferingCamera` FOV field, 1.04 rad).
pub const DEFAULT_FOV: f32 = 1.04;
/// Default near plane (FORMATS §13.6 sample: 0.5).
pub const DEFAULT_NEAR: f32 = 0.5;
/// Default far plane (FORMATS §13.6 sample: 700).
pub const DEFAULT_FAR: f32 = 700.0;
/// Centring speed: radians of vertical angle per second.
pub const CENTRE_RATE: f32 = 2.0;

/// A free camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraState {
    /// Eye position (world, Z up).
    pub position: Vec3,
    /// Horizontal angle in `[0, 2π)`: 0 looks along +X, growing counter-clockwise.
    pub yaw: f32,
    /// Vertical angle in `[-PITCH_LIMIT, PITCH_LIMIT]`, positive looking up.
    pub pitch: f32,
    /// Horizontal field of view (radians).
    pub fov: f32,
    /// Near plane.
    pub near: f32,
    /// Far plane.
    pub far: f32,
    /// A centring command in progress (pitch moving back to 0).
    pub centring: bool,
}

impl Default for CameraState {
    fn default() -> Self {
        Self {
            position: Vec3::new(0.0, 0.0, 50.0),
            yaw: 0.0,
            pitch: 0.0,
            fov: DEFAULT_FOV,
            near: DEFAULT_NEAR,
            far: DEFAULT_FAR,
            centring: false,
        }
    }
}

/// Wraps an angle into `[0, 2π)`.
pub fn wrap_angle(a: f32) -> f32 {
    let w = a.rem_euclid(TAU);
    if w >= TAU { 0.0 } else { w }
}

impl CameraState {
    /// A camera at `position` looking towards `target`.
    pub fn looking_at(position: Vec3, target: Vec3) -> Self {
        let d = target - position;
        let yaw = wrap_angle(d.y.atan2(d.x));
        let pitch =
            d.z.atan2(d.truncate().length())
                .clamp(-PITCH_LIMIT, PITCH_LIMIT);
        Self {
            position,
            yaw,
            pitch,
            ..Self::default()
        }
    }

    /// Unit forward vector.
    pub fn forward(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        Vec3::new(cp * cy, cp * sy, sp)
    }

    /// Unit right vector (horizontal).
    pub fn right(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        Vec3::new(sy, -cy, 0.0)
    }

    /// Turns by `dyaw` (wraps) and `dpitch` (clamped); manual pitch cancels centring.
    pub fn turn(&mut self, dyaw: f32, dpitch: f32) {
        self.yaw = wrap_angle(self.yaw + dyaw);
        if dpitch != 0.0 {
            self.centring = false;
        }
        self.pitch = (self.pitch + dpitch).clamp(-PITCH_LIMIT, PITCH_LIMIT);
    }

    /// Moves `forward` along the horizontal heading, `right` sideways, `up` vertically.
    pub fn translate(&mut self, forward: f32, right: f32, up: f32) {
        let (sy, cy) = self.yaw.sin_cos();
        self.position += Vec3::new(cy, sy, 0.0) * forward + self.right() * right + Vec3::Z * up;
    }

    /// Starts the centring command (`CMD_CAMERA_CENTER`).
    pub fn centre(&mut self) {
        self.centring = true;
    }

    /// Advances the centring command by `dt` seconds of game time.
    pub fn advance(&mut self, dt: f32) {
        if !self.centring {
            return;
        }
        let step = CENTRE_RATE * dt.max(0.0);
        if self.pitch.abs() <= step {
            self.pitch = 0.0;
            self.centring = false;
        } else {
            self.pitch -= step * self.pitch.signum();
        }
    }

    /// World → view: view-space x right, y up, z forward.
    pub fn view_matrix(&self) -> Mat4 {
        let f = self.forward();
        let r = f.cross(Vec3::Z).try_normalize().unwrap_or(Vec3::NEG_Y);
        let u = r.cross(f);
        let p = self.position;
        Mat4::from_cols(
            Vec4::new(r.x, u.x, f.x, 0.0),
            Vec4::new(r.y, u.y, f.y, 0.0),
            Vec4::new(r.z, u.z, f.z, 0.0),
            Vec4::new(-r.dot(p), -u.dot(p), -f.dot(p), 1.0),
        )
    }

    /// The Ngi32 Direct3D7 projection of FORMATS §13.6 for a `width × height` viewport,
    /// transposed from the row-vector original to column vectors.
    pub fn projection_matrix(&self, width: u32, height: u32) -> Mat4 {
        d3d7_projection(self.fov, self.near, self.far, width, height)
    }

    /// The FFI camera for a `width × height` target.
    pub fn to_abi(&self, width: u32, height: u32) -> iron3d_abi::Camera {
        iron3d_abi::Camera {
            position: self.position.into(),
            yaw: self.yaw,
            pitch: self.pitch,
            fov: self.fov,
            near: self.near,
            far: self.far,
            view: self.view_matrix().into(),
            projection: self.projection_matrix(width, height).into(),
        }
    }
}

/// The Ngi32 projection (FORMATS §13.6) in column-vector form:
/// `x' = cos(f/2)·x`, `y' = (w/h)·cos(f/2)·y`, `z' = sin(f/2)·(z·far − near·far)/(far − near)`,
/// `w' = sin(f/2)·z`, so depth `z'/w'` runs 0 at `near` to 1 at `far`.
pub fn d3d7_projection(fov: f32, near: f32, far: f32, width: u32, height: u32) -> Mat4 {
    let (s, c) = (fov * 0.5).sin_cos();
    let aspect = width.max(1) as f32 / height.max(1) as f32;
    let q = far / (far - near);
    Mat4::from_cols(
        Vec4::new(c, 0.0, 0.0, 0.0),
        Vec4::new(0.0, aspect * c, 0.0, 0.0),
        Vec4::new(0.0, 0.0, s * q, s),
        Vec4::new(0.0, 0.0, -s * q * near, 0.0),
    )
}

/// The view frustum as planes in view space, for sphere tests.
#[derive(Clone, Copy, Debug)]
pub struct Frustum {
    near: f32,
    far: f32,
    /// Unit normals `(cos, -sin)` of the side planes: `x·a − z·b <= r` is inside.
    side_x: (f32, f32),
    side_y: (f32, f32),
}

impl Frustum {
    /// The frustum of `camera` on a `width × height` target.
    pub fn new(camera: &CameraState, width: u32, height: u32) -> Self {
        let half_x = (camera.fov * 0.5).clamp(0.01, PI * 0.5 - 0.01);
        let aspect = width.max(1) as f32 / height.max(1) as f32;
        let half_y = (half_x.tan() / aspect).atan();
        Self {
            near: camera.near,
            far: camera.far,
            side_x: (half_x.cos(), half_x.sin()),
            side_y: (half_y.cos(), half_y.sin()),
        }
    }

    /// True when a sphere (view-space centre, radius) is entirely outside.
    pub fn culls(&self, centre: Vec3, radius: f32) -> bool {
        let Vec3 { x, y, z } = centre;
        z + radius < self.near
            || z - radius > self.far
            || x.abs() * self.side_x.0 - z * self.side_x.1 > radius
            || y.abs() * self.side_y.0 - z * self.side_y.1 > radius
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clip(cam: &CameraState, p: Vec3) -> Vec4 {
        cam.projection_matrix(640, 480) * cam.view_matrix() * p.extend(1.0)
    }

    #[test]
    fn a_point_straight_ahead_lands_in_the_centre_at_the_right_depth() {
        let cam = CameraState::default();
        let at_near = clip(&cam, cam.position + Vec3::X * cam.near);
        assert!((at_near.z / at_near.w).abs() < 1e-5);
        let at_far = clip(&cam, cam.position + Vec3::X * cam.far);
        assert!((at_far.z / at_far.w - 1.0).abs() < 1e-5);
        assert!(at_far.x.abs() < 1e-3 && at_far.y.abs() < 1e-3);
    }

    #[test]
    fn left_is_negative_x_and_up_is_positive_y_in_ndc() {
        let cam = CameraState::default();
        let left = clip(&cam, cam.position + Vec3::new(10.0, 2.0, 0.0));
        assert!(
            left.x / left.w < 0.0,
            "+Y world is left when looking along +X"
        );
        let up = clip(&cam, cam.position + Vec3::new(10.0, 0.0, 2.0));
        assert!(up.y / up.w > 0.0);
    }

    #[test]
    fn horizontal_fov_maps_the_half_angle_to_the_edge() {
        let cam = CameraState::default();
        let half = cam.fov * 0.5;
        let p = cam.position + Vec3::new(half.cos(), -half.sin(), 0.0) * 10.0;
        let c = clip(&cam, p);
        assert!((c.x / c.w - 1.0).abs() < 1e-4);
    }

    #[test]
    fn yaw_wraps_and_pitch_clamps() {
        let mut cam = CameraState::default();
        cam.turn(TAU + 0.25, 10.0);
        assert!((cam.yaw - 0.25).abs() < 1e-5);
        assert_eq!(cam.pitch, PITCH_LIMIT);
        cam.turn(-0.5, -20.0);
        assert!((cam.yaw - (TAU - 0.25)).abs() < 1e-5);
        assert_eq!(cam.pitch, -PITCH_LIMIT);
    }

    #[test]
    fn centring_moves_smoothly_and_stops_at_level() {
        let mut cam = CameraState::default();
        cam.turn(0.0, 1.0);
        cam.centre();
        cam.advance(0.25);
        assert!((cam.pitch - 0.5).abs() < 1e-5, "half way after 0.25 s");
        cam.advance(1.0);
        assert_eq!(cam.pitch, 0.0);
        assert!(!cam.centring);
    }

    #[test]
    fn looking_at_points_the_forward_vector_at_the_target() {
        let cam = CameraState::looking_at(Vec3::new(0.0, 0.0, 10.0), Vec3::new(10.0, 10.0, 0.0));
        let want = (Vec3::new(10.0, 10.0, 0.0) - cam.position).normalize();
        assert!(cam.forward().dot(want) > 0.9999);
    }

    #[test]
    fn frustum_culls_behind_far_and_beside() {
        let cam = CameraState::default();
        let f = Frustum::new(&cam, 640, 480);
        assert!(!f.culls(Vec3::new(0.0, 0.0, 50.0), 1.0));
        assert!(f.culls(Vec3::new(0.0, 0.0, -5.0), 1.0));
        assert!(f.culls(Vec3::new(0.0, 0.0, 800.0), 1.0));
        assert!(f.culls(Vec3::new(100.0, 0.0, 10.0), 1.0));
        assert!(
            !f.culls(Vec3::new(100.0, 0.0, 10.0), 100.0),
            "a big sphere overlaps"
        );
        assert!(f.culls(Vec3::new(0.0, 100.0, 10.0), 1.0));
    }
}
