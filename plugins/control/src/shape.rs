//! Collision proxies and their geometric tests: the narrow phase between two proxies,
//! segment intersection, and the overlap tests of the region queries.
//!
//! A proxy is a vertical prism over a horizontal shape — a circle (vehicles) or an
//! oriented rectangle (static obstacles) — between two heights relative to the object's
//! origin. **PD-CTRL-PROXY** (project decision; the sources give the shape records no
//! layout, FORMATS §16.31): vehicles are cylinders whose radius is the larger
//! horizontal half-extent of the model bounds, obstacles are the bounds' box turned by
//! the object's heading; an object without bounds is a cylinder of
//! [`DEFAULT_RADIUS`] × [`DEFAULT_HEIGHT`] standing on its origin. Scale applies.

use glam::{Vec2, Vec3};

/// Radius of an object without model bounds.
pub const DEFAULT_RADIUS: f32 = 0.5;
/// Height of an object without model bounds.
pub const DEFAULT_HEIGHT: f32 = 1.0;

/// The horizontal shape of a proxy, in the object's horizontal frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// A circle around the object's origin.
    Circle {
        /// Radius.
        radius: f32,
    },
    /// A rectangle centred at `centre` (object frame), half-sides `half`.
    Rect {
        /// Centre offset in the object's frame (before the heading turn).
        centre: Vec2,
        /// Half-sides.
        half: Vec2,
    },
}

/// A collision proxy: the shape and its height range `z0..z1` relative to the origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Proxy {
    /// Horizontal shape.
    pub shape: Shape,
    /// Bottom, relative to the object's origin.
    pub z0: f32,
    /// Top, relative to the object's origin.
    pub z1: f32,
}

impl Proxy {
    /// The default proxy (no model bounds).
    pub fn default_cylinder(scale: Vec3) -> Self {
        Self {
            shape: Shape::Circle {
                radius: DEFAULT_RADIUS * scale.x.abs().max(scale.y.abs()),
            },
            z0: 0.0,
            z1: DEFAULT_HEIGHT * scale.z.abs(),
        }
    }

    /// A vehicle's cylinder from its model bounds (object space) and scale.
    pub fn cylinder(min: Vec3, max: Vec3, scale: Vec3) -> Self {
        let (lo, hi) = (min * scale.abs(), max * scale.abs());
        let radius = lo.x.abs().max(hi.x.abs()).max(lo.y.abs()).max(hi.y.abs());
        Self {
            shape: Shape::Circle {
                radius: radius.max(1e-3),
            },
            z0: lo.z.min(hi.z),
            z1: lo.z.max(hi.z),
        }
    }

    /// An obstacle's box from its model bounds (object space) and scale.
    pub fn rect(min: Vec3, max: Vec3, scale: Vec3) -> Self {
        let (lo, hi) = (min * scale.abs(), max * scale.abs());
        Self {
            shape: Shape::Rect {
                centre: Vec2::new((lo.x + hi.x) * 0.5, (lo.y + hi.y) * 0.5),
                half: Vec2::new((hi.x - lo.x).abs() * 0.5, (hi.y - lo.y).abs() * 0.5),
            },
            z0: lo.z.min(hi.z),
            z1: lo.z.max(hi.z),
        }
    }

    /// Radius of the horizontal circumcircle around the object's origin.
    pub fn reach(&self) -> f32 {
        match self.shape {
            Shape::Circle { radius } => radius,
            Shape::Rect { centre, half } => centre.length() + half.length(),
        }
    }
}

/// A proxy placed in the world: origin, heading (cos, sin) and shape.
#[derive(Clone, Copy, Debug)]
pub struct Placed {
    /// Origin (horizontal).
    pub origin: Vec2,
    /// Origin height.
    pub z: f32,
    /// `(cos, sin)` of the heading.
    pub rot: Vec2,
    /// The proxy.
    pub proxy: Proxy,
}

fn rotate(rot: Vec2, v: Vec2) -> Vec2 {
    Vec2::new(rot.x * v.x - rot.y * v.y, rot.y * v.x + rot.x * v.y)
}

fn unrotate(rot: Vec2, v: Vec2) -> Vec2 {
    Vec2::new(rot.x * v.x + rot.y * v.y, -rot.y * v.x + rot.x * v.y)
}

impl Placed {
    /// World height range.
    pub fn z_range(&self) -> (f32, f32) {
        (self.z + self.proxy.z0, self.z + self.proxy.z1)
    }

    /// Horizontal world bounding box `(min, max)`.
    pub fn aabb(&self) -> (Vec2, Vec2) {
        match self.proxy.shape {
            Shape::Circle { radius } => (self.origin - radius, self.origin + radius),
            Shape::Rect { centre, half } => {
                let c = self.origin + rotate(self.rot, centre);
                let ext = Vec2::new(
                    self.rot.x.abs() * half.x + self.rot.y.abs() * half.y,
                    self.rot.y.abs() * half.x + self.rot.x.abs() * half.y,
                );
                (c - ext, c + ext)
            }
        }
    }

    /// The rectangle's world centre (the origin for a circle).
    fn centre(&self) -> Vec2 {
        match self.proxy.shape {
            Shape::Circle { .. } => self.origin,
            Shape::Rect { centre, .. } => self.origin + rotate(self.rot, centre),
        }
    }

    /// Horizontal distance from `p` to the shape (negative inside: minus the depth to
    /// the nearest side) and the outward direction there.
    fn signed_distance(&self, p: Vec2) -> (f32, Vec2) {
        match self.proxy.shape {
            Shape::Circle { radius } => {
                let d = p - self.origin;
                let len = d.length();
                let n = if len > 1e-6 { d / len } else { Vec2::X };
                (len - radius, n)
            }
            Shape::Rect { half, .. } => {
                let local = unrotate(self.rot, p - self.centre());
                let clamped = local.clamp(-half, half);
                if clamped != local {
                    let d = local - clamped;
                    let len = d.length();
                    (len, rotate(self.rot, d / len.max(1e-12)))
                } else {
                    // Inside: out through the nearest side.
                    let dx = half.x - local.x.abs();
                    let dy = half.y - local.y.abs();
                    let n = if dx <= dy {
                        Vec2::new(if local.x >= 0.0 { 1.0 } else { -1.0 }, 0.0)
                    } else {
                        Vec2::new(0.0, if local.y >= 0.0 { 1.0 } else { -1.0 })
                    };
                    (-dx.min(dy), rotate(self.rot, n))
                }
            }
        }
    }
}

/// The contact between two proxies: `normal` points from `a` to `b`, `depth > 0` means
/// they overlap by that much, `point` lies between them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Penetration depth (negative: the gap).
    pub depth: f32,
    /// Unit horizontal normal from `a` to `b`.
    pub normal: Vec2,
    /// Contact point.
    pub point: Vec3,
}

/// Whether two height ranges `(bottom, top)` meet.
pub fn heights_meet(a: (f32, f32), b: (f32, f32)) -> bool {
    !(a.1 < b.0 || b.1 < a.0)
}

/// Depth and unit normal (from `a` to `b`) of two circles; coincident centres take
/// +X, a fixed direction (deterministic). The one rule of [`contact`] and the solver.
pub fn circles(a: Vec2, ra: f32, b: Vec2, rb: f32) -> (f32, Vec2) {
    let d = b - a;
    let len = d.length();
    let n = if len > 1e-6 { d / len } else { Vec2::X };
    (ra + rb - len, n)
}

/// The contact of two placed proxies, or `None` when their height ranges do not meet.
/// At least one of them must be a circle (two rectangles never collide: obstacles do
/// not move).
pub fn contact(a: &Placed, b: &Placed) -> Option<Contact> {
    let (a0, a1) = a.z_range();
    let (b0, b1) = b.z_range();
    if !heights_meet((a0, a1), (b0, b1)) {
        return None;
    }
    horizontal_contact(a, b)
}

/// The contact of two placed proxies' horizontal shapes, whatever their heights (the
/// caller decided that they meet); the point's height is the middle of the overlap of
/// the two world height ranges (of the ranges' inner ends when they miss vertically,
/// as on a slope). `None` for two rectangles.
pub fn horizontal_contact(a: &Placed, b: &Placed) -> Option<Contact> {
    let (a0, a1) = a.z_range();
    let (b0, b1) = b.z_range();
    let zmid = (a0.max(b0) + a1.min(b1)) * 0.5;
    let (depth, normal, point) = match (a.proxy.shape, b.proxy.shape) {
        (Shape::Circle { radius: ra }, Shape::Circle { radius: rb }) => {
            let (depth, n) = circles(a.origin, ra, b.origin, rb);
            (depth, n, a.origin + n * (ra - depth * 0.5))
        }
        (Shape::Circle { radius }, Shape::Rect { .. }) => {
            let (dist, out) = b.signed_distance(a.origin);
            // `out` points from the box to the circle: the normal a→b is its opposite.
            (radius - dist, -out, a.origin - out * dist.max(0.0))
        }
        (Shape::Rect { .. }, Shape::Circle { radius }) => {
            let (dist, out) = a.signed_distance(b.origin);
            (radius - dist, out, b.origin - out * dist.max(0.0))
        }
        (Shape::Rect { .. }, Shape::Rect { .. }) => return None,
    };
    Some(Contact {
        depth,
        normal,
        point: Vec3::new(point.x, point.y, zmid),
    })
}

/// Whether the proxy overlaps the sphere.
pub fn overlaps_sphere(p: &Placed, centre: Vec3, radius: f32) -> bool {
    let (z0, z1) = p.z_range();
    let dz = if centre.z < z0 {
        z0 - centre.z
    } else if centre.z > z1 {
        centre.z - z1
    } else {
        0.0
    };
    let (dist, _) = p.signed_distance(centre.truncate());
    let dh = dist.max(0.0);
    dh * dh + dz * dz <= radius * radius
}

/// Whether the proxy overlaps the axis-aligned box.
pub fn overlaps_box(p: &Placed, min: Vec3, max: Vec3) -> bool {
    let (z0, z1) = p.z_range();
    if z1 < min.z || z0 > max.z {
        return false;
    }
    let (lo, hi) = p.aabb();
    if hi.x < min.x || lo.x > max.x || hi.y < min.y || lo.y > max.y {
        return false;
    }
    match p.proxy.shape {
        // Closest point of the box to the circle's centre.
        Shape::Circle { radius } => {
            let c = p.origin;
            let q = c.clamp(min.truncate(), max.truncate());
            q.distance_squared(c) <= radius * radius
        }
        // Separating axes: the box's two axes (the world axes passed above).
        Shape::Rect { half, .. } => {
            let centre = p.centre();
            let corners = [
                Vec2::new(min.x, min.y),
                Vec2::new(max.x, min.y),
                Vec2::new(min.x, max.y),
                Vec2::new(max.x, max.y),
            ];
            (0..2).all(|axis| {
                let (lo, hi) = corners.iter().fold((f32::MAX, f32::MIN), |(lo, hi), c| {
                    let v = unrotate(p.rot, *c - centre)[axis];
                    (lo.min(v), hi.max(v))
                });
                hi >= -half[axis] && lo <= half[axis]
            })
        }
    }
}

/// The entry of the segment `a + t·(b − a)`, `t ∈ [0, 1]`, into the proxy: `(t,
/// normal)`; a segment starting inside enters at `t = 0` against its direction.
pub fn segment_entry(p: &Placed, a: Vec3, b: Vec3) -> Option<(f32, Vec3)> {
    let d = b - a;
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    let mut normal = -d.normalize_or_zero();
    // Height slab.
    let (z0, z1) = p.z_range();
    if !slab(a.z, d.z, z0, z1, &mut t0, &mut t1, &mut normal, Vec3::Z) {
        return None;
    }
    match p.proxy.shape {
        Shape::Circle { radius } => {
            let o = a.truncate() - p.origin;
            let dd = d.truncate();
            let qa = dd.length_squared();
            let qb = 2.0 * o.dot(dd);
            let qc = o.length_squared() - radius * radius;
            if qa <= 1e-12 {
                if qc > 0.0 {
                    return None;
                }
            } else {
                let disc = qb * qb - 4.0 * qa * qc;
                if disc < 0.0 {
                    return None;
                }
                let s = disc.sqrt();
                let (e0, e1) = ((-qb - s) / (2.0 * qa), (-qb + s) / (2.0 * qa));
                if e0 > t0 {
                    t0 = e0;
                    let hit = o + dd * e0;
                    normal = (hit / radius).extend(0.0);
                }
                t1 = t1.min(e1);
            }
        }
        Shape::Rect { half, .. } => {
            let o = unrotate(p.rot, a.truncate() - p.centre());
            let dd = unrotate(p.rot, d.truncate());
            for axis in 0..2 {
                let mut n_local = Vec3::ZERO;
                n_local[axis] = 1.0;
                let mut n = normal;
                let before = t0;
                if !slab(
                    o[axis],
                    dd[axis],
                    -half[axis],
                    half[axis],
                    &mut t0,
                    &mut t1,
                    &mut n,
                    n_local,
                ) {
                    return None;
                }
                if t0 != before {
                    let r = rotate(p.rot, n.truncate());
                    normal = r.extend(0.0);
                }
            }
        }
    }
    (t0 <= t1).then_some((t0, normal))
}

/// Clips `[t0, t1]` to where `origin + t·dir` lies in `[lo, hi]`; `normal` becomes
/// ∓`axis` when the entry moves.
#[allow(clippy::too_many_arguments)]
fn slab(
    origin: f32,
    dir: f32,
    lo: f32,
    hi: f32,
    t0: &mut f32,
    t1: &mut f32,
    normal: &mut Vec3,
    axis: Vec3,
) -> bool {
    if dir.abs() <= 1e-12 {
        return origin >= lo && origin <= hi;
    }
    let (mut e0, mut e1) = ((lo - origin) / dir, (hi - origin) / dir);
    let mut n = -axis;
    if e0 > e1 {
        std::mem::swap(&mut e0, &mut e1);
        n = axis;
    }
    if e0 > *t0 {
        *t0 = e0;
        *normal = n;
    }
    *t1 = t1.min(e1);
    *t0 <= *t1
}
