//! Precipitation (FORMATS §13.8): the volume in front of the observer, the particle
//! count, the particle sizes, the world velocities and the wrap of a particle that
//! leaves the volume.

use crate::round_half_even;
use glam::Vec3;

/// Nearest depth of the precipitation volume (camera space).
pub const NEAR: f32 = 2.0;
/// Farthest depth of the precipitation volume; `half_x`, `half_y` are taken here.
pub const FAR: f32 = 50.0;
/// Reference horizontal half-angle (radians).
pub const REFERENCE_HALF_X: f32 = 0.65;
/// Reference vertical half-angle (radians).
pub const REFERENCE_HALF_Y: f32 = 0.4875;
/// Rain particle size per unit of [`precip_scalar`].
pub const RAIN_SIZE: f32 = 0.0065;
/// Snow particle size per unit of [`precip_scalar`].
pub const SNOW_SIZE: f32 = 0.0195;
/// The working emitter's density.
pub const DENSITY: f32 = 1.0;
/// Particles at full intensity, density 1 and the whole reference volume.
pub const FULL_COUNT: f32 = 1000.0;
/// Rain velocity, a world vector (camera rotation never rotates it).
pub const RAIN_VELOCITY: Vec3 = Vec3::new(0.5, 0.0, -60.0);
/// Snow velocity, a world vector.
pub const SNOW_VELOCITY: Vec3 = Vec3::new(0.5, 0.0, -4.0);

/// What falls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precipitation {
    /// Drawn as a screen streak whose tail is the previous world position.
    Rain,
    /// Drawn as a square at the current position.
    Snow,
}

impl Precipitation {
    /// The world velocity of its particles.
    pub fn velocity(self) -> Vec3 {
        match self {
            Precipitation::Rain => RAIN_VELOCITY,
            Precipitation::Snow => SNOW_VELOCITY,
        }
    }

    /// Its particle size for `view` (`precip_scalar × 0.0065` or `× 0.0195`).
    pub fn size(self, view: &View) -> f32 {
        let k = match self {
            Precipitation::Rain => RAIN_SIZE,
            Precipitation::Snow => SNOW_SIZE,
        };
        precip_scalar(view) * k
    }
}

/// The camera as the rules read it, every frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Vertical field of view (radians, in `(0, π)`).
    pub vertical_fov: f32,
    /// Width over height of the viewport.
    pub aspect: f32,
    /// Width of the real viewport in pixels.
    pub viewport_width: f32,
}

impl View {
    /// Half height of the volume at depth [`FAR`]: `tan(vfov / 2) · 50`.
    pub fn half_y(&self) -> f32 {
        (self.vertical_fov * 0.5).tan() * FAR
    }

    /// Half width of the volume at depth [`FAR`]: `half_y · aspect`.
    pub fn half_x(&self) -> f32 {
        self.half_y() * self.aspect
    }

    /// `2 · atan(tan(vfov / 2) · aspect)`.
    pub fn horizontal_fov(&self) -> f32 {
        2.0 * ((self.vertical_fov * 0.5).tan() * self.aspect).atan()
    }
}

/// `viewport_width / horizontal_fov` (pixels per radian; 0 for a degenerate view).
pub fn precip_scalar(view: &View) -> f32 {
    let h = view.horizontal_fov();
    if h.is_finite() && h > 0.0 {
        view.viewport_width / h
    } else {
        0.0
    }
}

/// The current volume over the reference one (PD-FX-PRECIP-BOX; not clamped).
pub fn volume_ratio(view: &View) -> f32 {
    let reference = (REFERENCE_HALF_X.tan() * FAR) * (REFERENCE_HALF_Y.tan() * FAR);
    view.half_x() * view.half_y() / reference
}

/// The particle count `round_half_even(clamp(ratio, 0, 1) · density · intensity ·
/// 1000)` (intensity clamped to `[0, 1]`; a non-finite ratio or intensity counts 0).
pub fn particle_count(view: &View, intensity: f32) -> u32 {
    let ratio = volume_ratio(view);
    let ratio = if ratio.is_finite() {
        ratio.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let intensity = if intensity.is_finite() {
        intensity.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let n = f64::from(ratio) * f64::from(DENSITY) * f64::from(intensity) * f64::from(FULL_COUNT);
    round_half_even(n) as u32
}

/// The camera's frame: particles spawn in its local coordinates (x right, y up, z the
/// depth ahead) and live in world coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Camera position (world).
    pub origin: Vec3,
    /// Unit right axis (world).
    pub right: Vec3,
    /// Unit up axis (world).
    pub up: Vec3,
    /// Unit forward axis (world).
    pub forward: Vec3,
}

impl Frame {
    /// World point of the local point `p`.
    pub fn to_world(&self, p: Vec3) -> Vec3 {
        self.origin + self.right * p.x + self.up * p.y + self.forward * p.z
    }

    /// Local point of the world point `w` (the axes are orthonormal).
    pub fn to_local(&self, w: Vec3) -> Vec3 {
        let d = w - self.origin;
        Vec3::new(d.dot(self.right), d.dot(self.up), d.dot(self.forward))
    }
}

/// The local point `p` brought back into the volume of `view` (PD-FX-PRECIP-BOX): on
/// each axis a point past a face comes in through the opposite face by as much as it
/// went past (by whole box sizes, however far it went). A point inside is unchanged.
pub fn wrap_local(view: &View, p: Vec3) -> Vec3 {
    let wrap = |v: f32, lo: f32, hi: f32| {
        if (lo..=hi).contains(&v) || !v.is_finite() || hi <= lo {
            v
        } else {
            lo + (v - lo).rem_euclid(hi - lo)
        }
    };
    let (hx, hy) = (view.half_x(), view.half_y());
    Vec3::new(wrap(p.x, -hx, hx), wrap(p.y, -hy, hy), wrap(p.z, NEAR, FAR))
}

/// One particle's move over `dt` seconds: the world position after its velocity, and
/// wrapped (through local space) when it left the volume. Returns the new position and
/// whether it wrapped (a wrapped rain streak has no tail this frame).
pub fn advance(view: &View, frame: &Frame, kind: Precipitation, at: Vec3, dt: f32) -> (Vec3, bool) {
    let moved = at + kind.velocity() * dt;
    let local = frame.to_local(moved);
    let wrapped = wrap_local(view, local);
    if wrapped == local {
        (moved, false)
    } else {
        (frame.to_world(wrapped), true)
    }
}

/// The local spawn point of a particle from three uniform draws in `[0, 1]`: anywhere
/// in the volume, depth included.
pub fn spawn_local(view: &View, u: [f32; 3]) -> Vec3 {
    let (hx, hy) = (view.half_x(), view.half_y());
    Vec3::new(
        -hx + 2.0 * hx * u[0].clamp(0.0, 1.0),
        -hy + 2.0 * hy * u[1].clamp(0.0, 1.0),
        NEAR + (FAR - NEAR) * u[2].clamp(0.0, 1.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference view: half-angles 0.65 (horizontal) and 0.4875 (vertical).
    fn reference() -> View {
        let vertical_fov = 2.0 * REFERENCE_HALF_Y;
        View {
            vertical_fov,
            aspect: REFERENCE_HALF_X.tan() / REFERENCE_HALF_Y.tan(),
            viewport_width: 640.0,
        }
    }

    #[test]
    fn the_reference_view_has_ratio_one_and_a_full_count() {
        let v = reference();
        assert!(
            (volume_ratio(&v) - 1.0).abs() < 1e-5,
            "{}",
            volume_ratio(&v)
        );
        assert!((v.horizontal_fov() - 2.0 * REFERENCE_HALF_X).abs() < 1e-5);
        assert_eq!(particle_count(&v, 1.0), 1000);
        assert_eq!(particle_count(&v, 0.25), 250);
        // A wider view than the reference is clamped to the reference count.
        let wide = View {
            aspect: v.aspect * 2.0,
            ..v
        };
        assert!(volume_ratio(&wide) > 1.0);
        assert_eq!(particle_count(&wide, 1.0), 1000);
        // Intensity outside [0, 1] and non-finite values.
        assert_eq!(particle_count(&v, 2.0), 1000);
        assert_eq!(particle_count(&v, -1.0), 0);
        assert_eq!(particle_count(&v, f32::NAN), 0);
    }

    #[test]
    fn the_count_rounds_half_to_even() {
        // A view wider than the reference: the ratio clamps to exactly 1, and
        // intensities of sixteenths give exact ties (1000 / 16 = 62.5).
        let wide = View {
            aspect: reference().aspect * 2.0,
            ..reference()
        };
        for (intensity, want) in [
            (0.0625f32, 62u32),
            (0.1875, 188),
            (0.3125, 312),
            (0.4375, 438),
        ] {
            assert_eq!(
                particle_count(&wide, intensity),
                want,
                "intensity {intensity}"
            );
        }
        // Off the ties it is the nearest integer.
        assert_eq!(particle_count(&wide, 0.0626), 63);
        assert_eq!(particle_count(&wide, 0.0624), 62);
        // A view of a quarter of the reference volume at full intensity: 250.
        let quarter = View {
            vertical_fov: 2.0 * (REFERENCE_HALF_Y.tan() * 0.5).atan(),
            ..reference()
        };
        assert!((volume_ratio(&quarter) - 0.25).abs() < 1e-5);
        assert_eq!(particle_count(&quarter, 1.0), 250);
        assert_eq!(particle_count(&quarter, 0.5), 125);
    }

    #[test]
    fn sizes_follow_the_viewport_and_the_horizontal_fov() {
        let v = View {
            vertical_fov: std::f32::consts::FRAC_PI_2,
            aspect: 1.0,
            viewport_width: 800.0,
        };
        // Square 90° view: horizontal fov π/2, scalar 800 / (π/2).
        let scalar = 800.0 / std::f32::consts::FRAC_PI_2;
        assert!((precip_scalar(&v) - scalar).abs() < 1e-3);
        assert!((Precipitation::Rain.size(&v) - scalar * 0.0065).abs() < 1e-4);
        assert!((Precipitation::Snow.size(&v) - scalar * 0.0195).abs() < 1e-4);
        // Twice the viewport, twice the size.
        let wide = View {
            viewport_width: 1600.0,
            ..v
        };
        assert!(
            (Precipitation::Rain.size(&wide) - 2.0 * Precipitation::Rain.size(&v)).abs() < 1e-4
        );
        // A degenerate view has no size.
        assert_eq!(
            precip_scalar(&View {
                vertical_fov: 0.0,
                ..v
            }),
            0.0
        );
    }

    #[test]
    fn a_particle_past_a_face_comes_in_through_the_opposite_one() {
        let v = reference();
        let (hx, hy) = (v.half_x(), v.half_y());
        let inside = Vec3::new(1.0, -2.0, 20.0);
        assert_eq!(wrap_local(&v, inside), inside);
        // Below the bottom face by 1: in at the top, 1 below it.
        let w = wrap_local(&v, Vec3::new(0.0, -hy - 1.0, 10.0));
        assert!((w.y - (hy - 1.0)).abs() < 1e-4, "{w}");
        // Past the right face by 0.5, and past the far face by 3.
        let w = wrap_local(&v, Vec3::new(hx + 0.5, 0.0, FAR + 3.0));
        assert!((w.x - (-hx + 0.5)).abs() < 1e-4, "{w}");
        assert!((w.z - (NEAR + 3.0)).abs() < 1e-4, "{w}");
        // Nearer than the near face.
        let w = wrap_local(&v, Vec3::new(0.0, 0.0, NEAR - 1.0));
        assert!((w.z - (FAR - 1.0)).abs() < 1e-4, "{w}");
        // Many box sizes away still lands inside.
        let w = wrap_local(&v, Vec3::new(0.0, -hy - 10.0 * 2.0 * hy - 0.25, 10.0));
        assert!(w.y >= -hy && w.y <= hy, "{w}");
    }

    #[test]
    fn rain_falls_in_world_space_and_wraps_through_the_camera_frame() {
        let v = reference();
        // A camera looking along +X from (0, 0, 10), up Z: rotating the camera never
        // rotates the velocity.
        let frame = Frame {
            origin: Vec3::new(0.0, 0.0, 10.0),
            right: Vec3::new(0.0, -1.0, 0.0),
            up: Vec3::Z,
            forward: Vec3::X,
        };
        let at = frame.to_world(Vec3::new(0.0, 0.0, 20.0));
        let (next, wrapped) = advance(&v, &frame, Precipitation::Rain, at, 0.1);
        assert!(!wrapped);
        assert!((next - (at + RAIN_VELOCITY * 0.1)).length() < 1e-4);
        // Falling past the bottom face: it comes in from the top.
        let low = frame.to_world(Vec3::new(0.0, -v.half_y() + 1.0, 20.0));
        let (next, wrapped) = advance(&v, &frame, Precipitation::Rain, low, 0.1);
        assert!(wrapped);
        let local = frame.to_local(next);
        assert!(
            local.y > v.half_y() - 6.0 && local.y <= v.half_y(),
            "{local}"
        );
        // Round trip of the frame.
        let p = Vec3::new(3.0, -4.0, 17.0);
        assert!((frame.to_local(frame.to_world(p)) - p).length() < 1e-5);
    }

    #[test]
    fn spawns_fill_the_volume() {
        let v = reference();
        assert_eq!(
            spawn_local(&v, [0.0, 0.0, 0.0]),
            Vec3::new(-v.half_x(), -v.half_y(), NEAR)
        );
        let far = spawn_local(&v, [1.0, 1.0, 1.0]);
        assert!((far - Vec3::new(v.half_x(), v.half_y(), FAR)).length() < 1e-4);
        let p = spawn_local(&v, [0.5, 0.25, 0.5]);
        assert_eq!(wrap_local(&v, p), p);
    }
}
