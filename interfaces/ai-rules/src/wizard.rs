//! Wizard: short-term avoidance inside the corridor (tome VI "Wizard"). It takes the
//! point Behavior heads for and the nearby objects and answers the velocity to ask
//! Control for. Behavior clears it ([`Wizard::clear`], `ClearWizardPath`) when the
//! target changes, the global path is damaged or the unit becomes inactive.
//!
//! **PD-AI-WIZARD** (the sources give no algorithm; this one is ours):
//! * preferred velocity: towards the point at the cruise speed, slowed to
//!   `PathFind_NearBuildSpeedPercent` while a building is within
//!   `PathFind_BuildingNearestDist`;
//! * for each neighbour in ascending id order:
//!   - **separation** when the gap is under [`SEPARATION_GAP`]: a push away from it,
//!     proportional to the missing gap;
//!   - **anticipation** when the relative motion brings the two proxies into contact
//!     within [`HORIZON`] seconds: a side step perpendicular to the preferred velocity,
//!     weighted by how soon. The side is away from the neighbour's centre, and a
//!     neighbour dead ahead (within [`AHEAD_EPSILON`] of the line) is passed on the
//!     **right** (a fixed rule, so two units meeting head-on choose opposite sides in
//!     the world and never mirror each other into a deadlock);
//! * the sum is clamped to the cruise speed. The wizard path is the last answered
//!   velocity.

use glam::Vec2;

/// Seconds ahead that anticipation looks.
pub const HORIZON: f32 = 2.0;
/// Gap (beyond the two radii) under which separation pushes.
pub const SEPARATION_GAP: f32 = 0.5;
/// Lateral offset under which a neighbour counts as dead ahead.
pub const AHEAD_EPSILON: f32 = 0.05;

/// A nearby object as Wizard sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbour {
    /// Its id (neighbours are visited in ascending id order).
    pub id: u32,
    /// Ground position.
    pub position: Vec2,
    /// Horizontal velocity.
    pub velocity: Vec2,
    /// Proxy radius.
    pub radius: f32,
    /// A building or other static obstacle.
    pub building: bool,
}

/// The unit Wizard steers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mover {
    /// Ground position.
    pub at: Vec2,
    /// Proxy radius.
    pub radius: f32,
    /// The local-path point Behavior heads for.
    pub point: Vec2,
    /// Cruise speed.
    pub speed: f32,
}

/// Wizard's parameters (from `Behavior.ini`, see [`crate::config`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WizardParams {
    /// `PathFind_BuildingNearestDist`.
    pub building_nearest_dist: f32,
    /// `PathFind_NearBuildSpeedPercent`.
    pub near_build_speed_percent: f32,
}

/// One unit's wizard path.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Wizard {
    /// The last answered velocity (`None`: cleared).
    pub velocity: Option<Vec2>,
}

impl Wizard {
    /// `ClearWizardPath`.
    pub fn clear(&mut self) {
        self.velocity = None;
    }

    /// The velocity for `me` among `neighbours` (ascending ids, `me` not among them).
    pub fn steer(&mut self, me: &Mover, neighbours: &[Neighbour], p: &WizardParams) -> Vec2 {
        let Mover {
            at,
            radius,
            point,
            speed,
        } = *me;
        let to = point - at;
        let dist = to.length();
        if dist <= 1e-6 || speed <= 0.0 {
            self.velocity = Some(Vec2::ZERO);
            return Vec2::ZERO;
        }
        let dir = to / dist;
        let near_building = neighbours.iter().any(|n| {
            n.building && (n.position - at).length() - n.radius - radius <= p.building_nearest_dist
        });
        let cruise = if near_building {
            speed * (p.near_build_speed_percent / 100.0).clamp(0.0, 1.0)
        } else {
            speed
        };
        let preferred = dir * cruise;
        let right = Vec2::new(dir.y, -dir.x);
        let mut v = preferred;
        for n in neighbours {
            let offset = n.position - at;
            let d = offset.length();
            let reach = radius + n.radius;
            if d < reach + SEPARATION_GAP && d > 1e-6 {
                v -= offset / d * (reach + SEPARATION_GAP - d) * cruise.max(1.0);
            }
            // Time of closest approach with the preferred velocity against its current one.
            let rel = preferred - n.velocity;
            let rel2 = rel.length_squared();
            if rel2 <= 1e-9 {
                continue;
            }
            let t = (offset.dot(rel) / rel2).clamp(0.0, HORIZON);
            if t <= 0.0 {
                continue;
            }
            let miss = (offset - rel * t).length();
            if miss >= reach + SEPARATION_GAP {
                continue;
            }
            let lateral = offset.dot(right);
            // Step away from the neighbour's side; dead ahead → pass on the right.
            let side = if lateral.abs() <= AHEAD_EPSILON || lateral < 0.0 {
                right
            } else {
                -right
            };
            let urgency = 1.0 - t / HORIZON;
            v += side * cruise * urgency;
        }
        let v = v.clamp_length_max(cruise.max(0.0));
        self.velocity = Some(v);
        v
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const ME: Mover = Mover {
        at: Vec2::ZERO,
        radius: 0.5,
        point: Vec2::new(10.0, 0.0),
        speed: 3.0,
    };

    const P: WizardParams = WizardParams {
        building_nearest_dist: 6.0,
        near_build_speed_percent: 50.0,
    };

    #[test]
    fn free_motion_goes_straight_at_cruise_speed() {
        let mut w = Wizard::default();
        let v = w.steer(&ME, &[], &P);
        assert_eq!(v, Vec2::new(3.0, 0.0));
        assert_eq!(w.velocity, Some(v));
        w.clear();
        assert_eq!(w.velocity, None);
    }

    #[test]
    fn a_unit_dead_ahead_is_passed_on_the_right_and_buildings_slow_down() {
        let mut w = Wizard::default();
        let ahead = Neighbour {
            id: 2,
            position: Vec2::new(3.0, 0.0),
            velocity: Vec2::ZERO,
            radius: 0.5,
            building: false,
        };
        let v = w.steer(&ME, &[ahead], &P);
        assert!(v.y < 0.0, "heading +X, right is −Y: {v}");
        let house = Neighbour {
            building: true,
            position: Vec2::new(0.0, 5.0),
            radius: 2.0,
            ..ahead
        };
        let v = w.steer(&ME, &[house], &P);
        assert!((v.length() - 1.5).abs() < 1e-5, "{v}");
    }

    /// Two crowds of `n` units on a line cross each other head-on, driven only by
    /// Wizard with a simple kinematic step: everyone arrives within the stated time and
    /// no two units overlap by more than a quarter radius.
    #[test]
    fn two_crowds_cross_without_deadlock() {
        let (n, r, speed, dt) = (6, 0.5f32, 3.0f32, 0.05f32);
        let mut pos = Vec::new();
        let mut goal = Vec::new();
        for i in 0..n {
            let y = i as f32 * 2.0;
            pos.push(Vec2::new(0.0, y));
            goal.push(Vec2::new(30.0, y));
            pos.push(Vec2::new(30.0, y + 0.3));
            goal.push(Vec2::new(0.0, y + 0.3));
        }
        let mut vel = vec![Vec2::ZERO; pos.len()];
        let mut wiz = vec![Wizard::default(); pos.len()];
        let mut worst: f32 = 0.0;
        let limit = 40.0; // seconds: 10 s of straight driving, 4× allowed
        let mut t = 0.0;
        while t < limit && (0..pos.len()).any(|i| pos[i].distance(goal[i]) > 0.75) {
            let mut next = vel.clone();
            for i in 0..pos.len() {
                let nb: Vec<Neighbour> = (0..pos.len())
                    .filter(|&j| j != i && pos[j].distance(pos[i]) < 8.0)
                    .map(|j| Neighbour {
                        id: j as u32,
                        position: pos[j],
                        velocity: vel[j],
                        radius: r,
                        building: false,
                    })
                    .collect();
                next[i] = if pos[i].distance(goal[i]) > 0.75 {
                    wiz[i].steer(
                        &Mover {
                            at: pos[i],
                            radius: r,
                            point: goal[i],
                            speed,
                        },
                        &nb,
                        &P,
                    )
                } else {
                    Vec2::ZERO
                };
            }
            vel = next;
            for i in 0..pos.len() {
                pos[i] += vel[i] * dt;
            }
            for i in 0..pos.len() {
                for j in i + 1..pos.len() {
                    worst = worst.max(2.0 * r - pos[i].distance(pos[j]));
                }
            }
            t += dt;
        }
        assert!(t < limit, "deadlock: not everyone arrived within {limit} s");
        assert!(worst <= 0.25 * r, "overlap {worst}");
    }
}
