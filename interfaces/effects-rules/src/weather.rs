//! Precipitation (FORMATS §13.8): the volume in front of the observer, the particle
//! count, the particle sizes, the world velocities and the wrap of a particle that
//! leaves the volume; [`Field`] keeps one kind's particles from frame to frame.
//!
//! **Project decisions**:
//! * **PD-FX-PRECIP-FRAME**: precipitation is advanced once per presented frame by the
//!   game time since the previous frame, with that frame's camera (the volume lives
//!   around the camera, which is not simulation). Its particles are presentation only
//!   and are not handed over: after a swap or a load they are spawned afresh (the
//!   intensity they follow is handed over).
//! * **PD-FX-PRECIP-SIZE**: our primitives are world-space, so a particle's size
//!   (§13.8's `precip_scalar × 0.0065` pixels, i.e. 0.0065 radians of view) is
//!   `0.0065 × depth` world units (snow `0.0195 × depth`): the same pixels on screen
//!   at any viewport.
//! * **PD-FX-PRECIP-SPAWN**: a new particle's three uniform draws come from the
//!   field's own SplitMix64 stream (seeded from the plugin's stream); when the count
//!   falls, the newest particles go first.

use crate::round_half_even;
use glam::{Mat4, Vec3};
use iron3d_abi::{EffectBlend, EffectPrimitive, NO_EFFECT_TEXTURE, PrimitiveKind, Vec3f};

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

impl View {
    /// The view of a camera (its projection's scales; `None` for a projection that is
    /// not a perspective one).
    pub fn of_projection(projection: &Mat4) -> Option<Self> {
        let (sx, sy) = (projection.x_axis.x, projection.y_axis.y);
        if !(sx.is_finite() && sy.is_finite() && sx > 0.0 && sy > 0.0) {
            return None;
        }
        Some(Self {
            vertical_fov: 2.0 * (1.0 / sy).atan(),
            aspect: sy / sx,
            viewport_width: 0.0,
        })
    }
}

impl Frame {
    /// The frame of a world → view matrix (view space: x right, y up, z forward).
    pub fn of_view(view: &Mat4) -> Option<Self> {
        let inv = view.inverse();
        let f = Self {
            origin: inv.w_axis.truncate(),
            right: inv.x_axis.truncate().try_normalize()?,
            up: inv.y_axis.truncate().try_normalize()?,
            forward: inv.z_axis.truncate().try_normalize()?,
        };
        f.origin.is_finite().then_some(f)
    }
}

/// The `instance` number of rain primitives (after every effect instance's).
pub const RAIN_INSTANCE: u32 = 0xFFFF_FF00;
/// The `instance` number of snow primitives.
pub const SNOW_INSTANCE: u32 = 0xFFFF_FF01;
/// The colour of rain streaks (linear RGB, opacity).
pub const RAIN_COLOUR: [f32; 4] = [0.62, 0.68, 0.78, 0.45];
/// The colour of snow flakes.
pub const SNOW_COLOUR: [f32; 4] = [0.95, 0.96, 1.0, 0.85];

#[derive(Clone, Copy, Debug, PartialEq)]
struct Drop {
    at: Vec3,
    tail: Vec3,
}

/// One kind's particles around the camera (PD-FX-PRECIP-FRAME): spawned in the
/// volume, moved by the world velocity, wrapped when they leave it.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    kind: Precipitation,
    drops: Vec<Drop>,
    rng: u64,
    last_ms: Option<u64>,
}

impl Field {
    /// An empty field of `kind` whose spawn draws start from `seed`.
    pub fn new(kind: Precipitation, seed: u64) -> Self {
        Self {
            kind,
            drops: Vec::new(),
            rng: seed,
            last_ms: None,
        }
    }

    /// Live particles.
    pub fn len(&self) -> usize {
        self.drops.len()
    }

    /// Whether no particle lives.
    pub fn is_empty(&self) -> bool {
        self.drops.is_empty()
    }

    /// The particles' world positions.
    pub fn positions(&self) -> impl Iterator<Item = Vec3> + '_ {
        self.drops.iter().map(|d| d.at)
    }

    fn draw(&mut self) -> f32 {
        (crate::runtime::next_in_stream(&mut self.rng) >> 40) as f32 / (1u64 << 24) as f32
    }

    /// One frame at game time `time_ms`: the count for `intensity` (new particles
    /// spawned in the volume, the newest dropped first), then every particle moved by
    /// the time since the previous frame and wrapped. While the game time stands still
    /// nothing moves and the tails stay.
    pub fn update(&mut self, view: &View, frame: &Frame, intensity: f32, time_ms: u64) {
        let n = particle_count(view, intensity) as usize;
        self.drops.truncate(n);
        while self.drops.len() < n {
            let u = [self.draw(), self.draw(), self.draw()];
            let at = frame.to_world(spawn_local(view, u));
            self.drops.push(Drop { at, tail: at });
        }
        let dt_ms = self.last_ms.map_or(0, |l| time_ms.saturating_sub(l));
        self.last_ms = Some(time_ms);
        let dt = (dt_ms.min(1_000) as f32) / 1000.0;
        for d in &mut self.drops {
            if dt > 0.0 {
                let (at, wrapped) = advance(view, frame, self.kind, d.at, dt);
                d.tail = if wrapped { at } else { d.at };
                d.at = at;
            } else {
                // The camera moved without game time: keep the drop in the volume.
                let local = frame.to_local(d.at);
                let inside = wrap_local(view, local);
                if inside != local {
                    d.at = frame.to_world(inside);
                    d.tail = d.at;
                }
            }
        }
    }

    /// The primitives of the particles (PD-FX-PRECIP-SIZE): rain as streaks from the
    /// previous position to the current one, snow as squares; listed in particle order.
    pub fn primitives(&self, frame: &Frame, out: &mut Vec<EffectPrimitive>) {
        let (instance, kind, colour, k) = match self.kind {
            Precipitation::Rain => (RAIN_INSTANCE, PrimitiveKind::STREAK, RAIN_COLOUR, RAIN_SIZE),
            Precipitation::Snow => (
                SNOW_INSTANCE,
                PrimitiveKind::PARTICLE,
                SNOW_COLOUR,
                SNOW_SIZE,
            ),
        };
        for d in &self.drops {
            if self.kind == Precipitation::Rain && d.tail == d.at {
                continue;
            }
            let depth = frame.to_local(d.at).z.max(NEAR);
            let size = k * depth;
            let end = if kind == PrimitiveKind::STREAK {
                d.tail
            } else {
                d.at
            };
            out.push(EffectPrimitive {
                instance,
                command: 0,
                kind,
                blend: EffectBlend::ALPHA,
                position: Vec3f::from(d.at),
                end: Vec3f::from(end),
                size,
                height: size,
                rotation: 0.0,
                colour,
                texture: NO_EFFECT_TEXTURE,
            });
        }
    }
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

    /// A camera at `eye` looking along `forward` (Z up) with the reference view.
    fn camera(eye: Vec3, forward: Vec3) -> (View, Frame, Mat4) {
        let v = reference();
        let view = Mat4::look_to_lh(eye, forward, Vec3::Z);
        let frame = Frame::of_view(&view).unwrap();
        (v, frame, view)
    }

    fn inside(v: &View, f: &Frame, p: Vec3) -> bool {
        let l = f.to_local(p);
        let e = 1e-3;
        l.x.abs() <= v.half_x() + e
            && l.y.abs() <= v.half_y() + e
            && l.z >= NEAR - e
            && l.z <= FAR + e
    }

    #[test]
    fn the_camera_gives_the_view_and_frame() {
        let proj = Mat4::perspective_lh(1.0, 1.5, 1.0, 1000.0);
        let v = View::of_projection(&proj).unwrap();
        assert!((v.vertical_fov - 1.0).abs() < 1e-5 && (v.aspect - 1.5).abs() < 1e-5);
        assert!(View::of_projection(&Mat4::ZERO).is_none());
        let (_, f, _) = camera(Vec3::new(1.0, 2.0, 3.0), Vec3::X);
        assert!((f.origin - Vec3::new(1.0, 2.0, 3.0)).length() < 1e-5);
        assert!((f.forward - Vec3::X).length() < 1e-5 && (f.up - Vec3::Z).length() < 1e-5);
    }

    #[test]
    fn a_field_keeps_its_count_in_the_volume_and_falls_with_the_world_velocity() {
        let (v, f, _) = camera(Vec3::new(0.0, 0.0, 10.0), Vec3::X);
        let mut rain = Field::new(Precipitation::Rain, 9);
        rain.update(&v, &f, 0.5, 1_000);
        assert_eq!(rain.len(), particle_count(&v, 0.5) as usize);
        assert!(rain.positions().all(|p| inside(&v, &f, p)));
        let before: Vec<Vec3> = rain.positions().collect();
        // 20 ms later every drop moved by the velocity or wrapped back into the volume.
        rain.update(&v, &f, 0.5, 1_020);
        let mut moved = 0;
        for (a, b) in before.iter().zip(rain.positions()) {
            assert!(inside(&v, &f, b));
            if (b - (*a + RAIN_VELOCITY * 0.02)).length() < 1e-3 {
                moved += 1;
            }
        }
        assert!(moved > before.len() * 9 / 10, "{moved} of {}", before.len());
        // The same seed spawns the same drops.
        let mut again = Field::new(Precipitation::Rain, 9);
        again.update(&v, &f, 0.5, 1_000);
        assert_eq!(again.positions().collect::<Vec<_>>(), before);
        // Paused: nothing moves. Less intensity: the newest go first.
        let now: Vec<Vec3> = rain.positions().collect();
        rain.update(&v, &f, 0.5, 1_020);
        assert_eq!(rain.positions().collect::<Vec<_>>(), now);
        rain.update(&v, &f, 0.1, 1_020);
        assert_eq!(rain.len(), particle_count(&v, 0.1) as usize);
        assert_eq!(rain.positions().collect::<Vec<_>>(), now[..rain.len()]);
        rain.update(&v, &f, 0.0, 1_040);
        assert!(rain.is_empty());
    }

    #[test]
    fn turning_the_camera_keeps_drops_in_the_world_and_the_velocity_unrotated() {
        let (v, f, _) = camera(Vec3::new(0.0, 0.0, 10.0), Vec3::X);
        let mut snow = Field::new(Precipitation::Snow, 4);
        snow.update(&v, &f, 1.0, 0);
        let (_, turned, _) = camera(Vec3::new(0.0, 0.0, 10.0), Vec3::Y);
        let before: Vec<Vec3> = snow.positions().collect();
        snow.update(&v, &turned, 1.0, 10);
        assert!(snow.positions().all(|p| inside(&v, &turned, p)));
        // Drops still in the turned view moved by the world velocity alone.
        let kept = before
            .iter()
            .zip(snow.positions())
            .filter(|(a, b)| (*b - (**a + SNOW_VELOCITY * 0.01)).length() < 1e-3)
            .count();
        assert!(kept > 0);
        // Snow: squares 0.0195 × depth wide.
        let mut out = Vec::new();
        snow.primitives(&turned, &mut out);
        assert_eq!(out.len(), snow.len());
        for p in &out {
            assert_eq!(
                (p.kind, p.instance),
                (PrimitiveKind::PARTICLE, SNOW_INSTANCE)
            );
            let depth = turned.to_local(Vec3::from(p.position)).z;
            assert!((p.size - SNOW_SIZE * depth).abs() < 1e-4);
        }
    }

    #[test]
    fn rain_is_drawn_as_streaks_from_the_previous_position() {
        let (v, f, _) = camera(Vec3::new(0.0, 0.0, 10.0), Vec3::X);
        let mut rain = Field::new(Precipitation::Rain, 2);
        rain.update(&v, &f, 1.0, 0);
        let mut out = Vec::new();
        rain.primitives(&f, &mut out);
        assert!(out.is_empty(), "fresh drops have no tail yet");
        rain.update(&v, &f, 1.0, 33);
        rain.primitives(&f, &mut out);
        assert!(out.len() > rain.len() * 9 / 10);
        for p in &out {
            assert_eq!(
                (p.kind, p.blend),
                (PrimitiveKind::STREAK, EffectBlend::ALPHA)
            );
            let d = Vec3::from(p.position) - Vec3::from(p.end);
            assert!((d - RAIN_VELOCITY * 0.033).length() < 1e-3, "{d}");
        }
    }
}
