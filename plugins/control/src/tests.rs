//! Scenario tests of the physical step on analytic ground, compared as transforms and
//! contact events per tick.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::shape::{DEFAULT_RADIUS, Shape};
use crate::world::{Begin, CONTACT_END_GAP, FlatGround, StepReport};
use glam::Vec2;
use iron3d_abi::physical_flags;

const DT: f32 = 1.0 / 30.0;

fn mobile(id: u32, x: f32, y: f32, heading: f32) -> Unit {
    Unit::new(
        id,
        Role::Mobile,
        Proxy::default_cylinder(Vec3::ONE),
        Vec3::new(x, y, 0.0),
        Quat::from_rotation_z(heading),
    )
}

fn building(id: u32, centre: Vec2, half: Vec2) -> Unit {
    Unit::new(
        id,
        Role::Static,
        Proxy {
            shape: Shape::Rect {
                centre: Vec2::ZERO,
                half,
            },
            z0: 0.0,
            z1: 5.0,
        },
        centre.extend(0.0),
        Quat::IDENTITY,
    )
}

fn run(w: &mut World, ticks: usize, ground: &mut dyn Ground) -> Vec<StepReport> {
    (0..ticks).map(|_| w.step(DT, ground).unwrap()).collect()
}

fn begins(reports: &[StepReport]) -> Vec<(usize, Begin)> {
    reports
        .iter()
        .enumerate()
        .flat_map(|(t, r)| r.begins.iter().map(move |b| (t, *b)))
        .collect()
}

/// A hill: `h = 4·sin(x/8)·cos(y/10)`, walkable where `x < wall` (analytic normal).
struct Hill {
    wall: f32,
}

impl Hill {
    fn h(x: f32, y: f32) -> f32 {
        4.0 * (x / 8.0).sin() * (y / 10.0).cos()
    }
    fn n(x: f32, y: f32) -> Vec3 {
        let dx = 0.5 * (x / 8.0).cos() * (y / 10.0).cos();
        let dy = -0.4 * (x / 8.0).sin() * (y / 10.0).sin();
        Vec3::new(-dx, -dy, 1.0).normalize()
    }
}

impl Ground for Hill {
    fn probe(&mut self, points: &[Vec3]) -> Result<Option<Vec<GroundSample>>, String> {
        Ok(Some(
            points
                .iter()
                .map(|p| GroundSample {
                    on_surface: true,
                    height: Hill::h(p.x, p.y),
                    normal: Hill::n(p.x, p.y).into(),
                    area: 0,
                    walkable: p.x < self.wall,
                })
                .collect(),
        ))
    }
}

#[test]
fn free_motion_follows_the_limits_and_the_dt_policy_exactly() {
    let mut w = World::new(Limits::default());
    w.insert(mobile(1, 0.0, 0.0, 0.0));
    w.set_request(1, MotionRequest::drive(5.0, 0.0)).unwrap();
    let reports = run(&mut w, 60, &mut FlatGround);
    // Reference: the documented policy, step by step.
    let (mut v, mut x) = (0.0f32, 0.0f32);
    for _ in 0..60 {
        v += (5.0 - v).clamp(-10.0 * DT, 10.0 * DT);
        x += v * DT;
    }
    let u = w.unit(1).unwrap();
    assert!((u.position.x - x).abs() < 1e-4, "{} vs {x}", u.position.x);
    assert_eq!(u.position.y, 0.0);
    assert_eq!(u.position.z, 0.0);
    assert!(
        (u.speed - 5.0).abs() < 1e-5,
        "top speed after 0.5 s at 10 u/s²"
    );
    assert!((u.velocity.x - 5.0).abs() < 1e-3);
    assert_eq!(u.heading, 0.0);
    assert!(begins(&reports).is_empty());
}

#[test]
fn turning_is_limited_and_move_to_stops_at_the_target() {
    let limits = Limits {
        max_accel: 10.0,
        max_turn: 90f32.to_radians(),
    };
    let mut w = World::new(limits);
    w.insert(mobile(1, 0.0, 0.0, 0.0));
    w.set_request(1, MotionRequest::drive(0.0, 10.0)).unwrap();
    run(&mut w, 30, &mut FlatGround);
    let h = w.unit(1).unwrap().heading;
    assert!((h - std::f32::consts::FRAC_PI_2).abs() < 1e-4, "{h}");
    w.set_request(
        1,
        MotionRequest::move_to(
            Vec3f {
                x: 0.0,
                y: 20.0,
                z: 0.0,
            },
            6.0,
        ),
    )
    .unwrap();
    run(&mut w, 300, &mut FlatGround);
    let u = w.unit(1).unwrap();
    assert!(u.flags & physical_flags::ARRIVED != 0);
    assert!(u.position.truncate().distance(Vec2::new(0.0, 20.0)) <= world::ARRIVE_RADIUS);
    assert!(u.speed.abs() < 0.5);
}

#[test]
fn units_follow_the_slope_up_and_down_a_hill() {
    let mut w = World::new(Limits::default());
    w.insert(mobile(1, -20.0, 3.0, 0.0));
    w.set_request(1, MotionRequest::drive(6.0, 0.0)).unwrap();
    let mut ground = Hill { wall: 1e9 };
    let (mut up, mut down) = (false, false);
    let mut last_z = f32::NAN;
    for _ in 0..240 {
        w.step(DT, &mut ground).unwrap();
        let u = w.unit(1).unwrap();
        let (x, y) = (u.position.x, u.position.y);
        let err = (u.position.z - Hill::h(x, y)).abs();
        assert!(err <= 1e-4, "height error {err} at ({x}, {y})");
        let axis = u.orientation * Vec3::Z;
        assert!(
            axis.dot(Hill::n(x, y)) > 0.9999,
            "up axis follows the normal"
        );
        let fwd = u.orientation * Vec3::X;
        assert!(
            fwd.truncate().normalize().dot(Vec2::X) > 0.999,
            "heading kept"
        );
        if last_z.is_finite() {
            up |= u.position.z > last_z + 1e-3;
            down |= u.position.z < last_z - 1e-3;
        }
        last_z = u.position.z;
    }
    assert!(up && down, "the route climbs and descends");
}

#[test]
fn leaving_the_walkable_area_is_refused_as_an_error_state() {
    let mut w = World::new(Limits::default());
    w.insert(mobile(1, 0.0, 0.0, 0.0));
    w.set_request(1, MotionRequest::drive(5.0, 0.0)).unwrap();
    let mut ground = Hill { wall: 4.0 };
    let reports = run(&mut w, 90, &mut ground);
    let u = w.unit(1).unwrap();
    assert!(
        u.position.x < 4.0,
        "never past the border: {}",
        u.position.x
    );
    assert!(u.position.x > 3.5, "drove up to it: {}", u.position.x);
    assert!(u.flags & physical_flags::LEFT_WALKABLE != 0);
    let reported: Vec<u32> = reports
        .iter()
        .flat_map(|r| r.left_walkable.clone())
        .collect();
    assert_eq!(reported, vec![1], "reported once while the state lasts");
    // Turning back clears it.
    w.set_request(1, MotionRequest::drive(-3.0, 0.0)).unwrap();
    run(&mut w, 10, &mut ground);
    assert_eq!(w.unit(1).unwrap().flags & physical_flags::LEFT_WALKABLE, 0);
}

#[test]
fn a_unit_in_the_walkable_error_state_creeps_and_its_put_backs_are_quiet() {
    // PD-CTRL-TRACTION-CREEP and PD-CTRL-WALKABLE: once refused at the border, a unit
    // that keeps its request tries again by at most TRACTION_CREEP a step (no full
    // acceleration into the border every step), and a put-back that short runs no
    // second resolution.
    use crate::world::{QUIET_PUSH, TRACTION_CREEP, TRACTION_MOVING};
    let mut w = World::new(Limits::default());
    w.insert(mobile(1, 0.0, 0.0, 0.0));
    // A driven unit (DRIVE, the player's) keeps its full push: MOVE_TO instead.
    w.set_request(
        1,
        MotionRequest::move_to(Vec3::new(20.0, 0.0, 0.0).into(), 5.0),
    )
    .unwrap();
    let mut ground = Hill { wall: 4.0 };
    let mut refused_at = None;
    let mut achieved = 0.0f32;
    for t in 0..120 {
        let before = w.unit(1).unwrap().position.x;
        let r = w.step(DT, &mut ground).unwrap();
        let u = w.unit(1).unwrap();
        assert!(
            u.position.x < 4.0,
            "never past the border: {}",
            u.position.x
        );
        if refused_at.is_none() && u.flags & physical_flags::LEFT_WALKABLE != 0 {
            refused_at = Some(t);
        }
        if refused_at.is_some() {
            // Never faster than its last step went, plus one creep while it gets
            // (almost) nowhere.
            let gain = if achieved * DT < TRACTION_MOVING {
                TRACTION_CREEP / DT
            } else {
                Limits::default().max_accel * DT
            };
            assert!(
                u.speed <= achieved + gain + 1e-4,
                "tick {t}: speed {} after {achieved}",
                u.speed
            );
            if t >= 60 {
                // Resting at the border: each retry is put back quietly.
                assert!(r.put_back == 1 && r.passes == 1, "tick {t}: {r:?}");
                assert!((u.position.x - before).abs() <= QUIET_PUSH, "tick {t}");
            }
        }
        achieved = (u.position.x - before).max(0.0) / DT;
    }
    assert!(refused_at.is_some(), "it reached the border");
    assert!(w.unit(1).unwrap().position.x > 3.5, "and stands at it");
}

#[test]
fn a_unit_held_by_another_vehicle_creeps_instead_of_accelerating() {
    // PD-CTRL-TRACTION-CREEP: unit 2 leans on unit 1, which stands against a building;
    // 2 gains at most TRACTION_CREEP of travel per step over what its last step made,
    // so its lean is a quiet push (no second pass wakes their pair).
    use crate::world::TRACTION_CREEP;
    let mut w = World::new(Limits::default());
    w.insert(building(10, Vec2::new(3.0, 0.0), Vec2::new(1.0, 5.0)));
    w.insert(mobile(1, 1.45, 0.0, 0.0));
    w.insert(mobile(2, -3.0, 0.0, 0.0));
    w.set_request(
        2,
        MotionRequest::move_to(Vec3::new(10.0, 0.0, 0.0).into(), 5.0),
    )
    .unwrap();
    let reports = run(&mut w, 150, &mut FlatGround);
    let u = w.unit(2).unwrap();
    assert!(u.position.x > -0.1, "2 drove up to 1: {}", u.position.x);
    assert!(
        u.speed <= TRACTION_CREEP / DT + 1e-4,
        "held, it creeps: speed {}",
        u.speed
    );
    for (t, r) in reports.iter().enumerate().skip(120) {
        assert!(r.passes <= 2, "tick {t}: the lean settles at once ({r:?})");
        assert!(
            r.max_depth <= crate::world::SETTLED_OVERLAP,
            "tick {t}: {r:?}"
        );
    }
}

#[test]
fn a_push_towards_the_border_is_held_there_without_the_error_state() {
    // PD-CTRL-WALKABLE: unit 1 stands just inside the border (x < 4 walkable); unit 2
    // drives into it from behind and keeps pushing.
    let mut w = World::new(Limits::default());
    w.insert(mobile(1, 3.3, 0.0, 0.0));
    w.insert(mobile(2, 1.0, 0.0, 0.0));
    w.set_request(2, MotionRequest::drive(4.0, 0.0)).unwrap();
    let mut ground = Hill { wall: 4.0 };
    let mut pushed = false;
    for _ in 0..90 {
        let before = w.unit(1).unwrap().position.x;
        let r = w.step(DT, &mut ground).unwrap();
        assert!(r.left_walkable.is_empty(), "nobody drove off: {r:?}");
        let u = w.unit(1).unwrap();
        assert!(
            u.position.x < 4.0,
            "never pushed past the border: {}",
            u.position.x
        );
        assert_eq!(u.flags & physical_flags::ON_NON_WALKABLE, 0);
        pushed |= u.position.x > before + 1e-4;
    }
    assert!(pushed, "unit 2 reached and pushed unit 1");
    let (a, b) = (w.unit(1).unwrap(), w.unit(2).unwrap());
    assert_eq!(a.flags & physical_flags::LEFT_WALKABLE, 0);
    assert_eq!(b.flags & physical_flags::LEFT_WALKABLE, 0);
    assert!(b.position.x < a.position.x, "still behind it");
}

fn head_on(left: u32, right: u32) -> (World, Vec<StepReport>) {
    let mut w = World::new(Limits::default());
    w.insert(mobile(left, -5.0, 0.0, 0.0));
    w.insert(mobile(right, 5.0, 0.0, std::f32::consts::PI));
    w.set_request(left, MotionRequest::drive(3.0, 0.0)).unwrap();
    w.set_request(right, MotionRequest::drive(3.0, 0.0))
        .unwrap();
    let reports = run(&mut w, 150, &mut FlatGround);
    (w, reports)
}

#[test]
fn a_head_on_pair_begins_one_contact_never_interpenetrates_and_slides_apart() {
    let (w, reports) = head_on(1, 2);
    let b = begins(&reports);
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!((b[0].1.a, b[0].1.b), (1, 2));
    assert!(b[0].1.point.x.abs() < 1e-3, "contact in the middle");
    for r in &reports {
        assert!(
            r.max_depth <= 1e-3,
            "overlap after resolution {}",
            r.max_depth
        );
    }
    // Two round units pushing head-on is an unstable balance: the rounding of
    // sin(π) in the heading tips it, and they slide past each other (deterministically).
    let (a, c) = (w.unit(1).unwrap(), w.unit(2).unwrap());
    assert!(a.position.x > c.position.x, "they slid past each other");
    assert!(w.contacts.is_empty(), "and the contact ended");
    assert!(a.position.truncate().distance(c.position.truncate()) > 2.0 * DEFAULT_RADIUS);
}

#[test]
fn two_units_pushing_at_rest_against_each_other_stay_in_one_contact() {
    let mut w = World::new(Limits::default());
    w.insert(mobile(1, -3.0, 0.0, 0.0));
    w.insert(mobile(2, 0.0, 0.0, 0.0));
    w.set_request(1, MotionRequest::drive(2.0, 0.0)).unwrap();
    let reports = run(&mut w, 120, &mut FlatGround);
    assert_eq!(
        begins(&reports).len(),
        1,
        "one begin while they stay in touch"
    );
    let (a, c) = (w.unit(1).unwrap(), w.unit(2).unwrap());
    let gap = c.position.x - a.position.x - 2.0 * DEFAULT_RADIUS;
    assert!(
        gap.abs() <= CONTACT_END_GAP,
        "the pusher rests against the other: {gap}"
    );
    assert!(
        (a.velocity.x - c.velocity.x).abs() < 1e-3,
        "it pushes it along"
    );
    assert!(c.velocity.x > 0.5);
    assert_eq!(w.contacts, vec![(1, 2)]);
}

#[test]
fn swapping_the_ids_mirrors_the_result() {
    let (w1, r1) = head_on(1, 2);
    let (w2, r2) = head_on(2, 1);
    // The unit on the left is id 1 in the first run and id 2 in the second.
    for (a, b) in [(1, 2), (2, 1)] {
        let (u, v) = (w1.unit(a).unwrap(), w2.unit(b).unwrap());
        assert_eq!(u.position, v.position);
        assert_eq!(u.velocity, v.velocity);
    }
    // And the scene is mirrored about x = 0.
    let (l, r) = (w1.unit(1).unwrap(), w1.unit(2).unwrap());
    assert_eq!(l.position.x, -r.position.x);
    let (b1, b2) = (begins(&r1), begins(&r2));
    assert_eq!(b1.len(), b2.len());
    assert_eq!(b1[0].0, b2[0].0, "same tick");
}

#[test]
fn a_unit_driving_into_a_building_stops_and_slides_along_it() {
    let mut w = World::new(Limits::default());
    w.insert(mobile(1, 0.0, 0.0, 0.0));
    w.insert(building(9, Vec2::new(10.0, 0.0), Vec2::new(2.0, 6.0)));
    w.set_request(1, MotionRequest::drive(4.0, 0.0)).unwrap();
    let reports = run(&mut w, 150, &mut FlatGround);
    let u = w.unit(1).unwrap();
    assert!(
        u.position.x <= 8.0 - DEFAULT_RADIUS + 1e-3,
        "{}",
        u.position.x
    );
    assert!(u.position.x >= 8.0 - DEFAULT_RADIUS - CONTACT_END_GAP);
    assert!(u.velocity.length() < 1e-3, "comes to rest: {}", u.velocity);
    assert_eq!(begins(&reports).len(), 1);
    assert_eq!(
        w.unit(9).unwrap().position,
        Vec3::new(10.0, 0.0, 0.0),
        "never moves"
    );
    // At an angle it slides along the wall instead.
    let mut w = World::new(Limits::default());
    w.insert(mobile(1, 0.0, 0.0, 0.5));
    w.insert(building(9, Vec2::new(10.0, 0.0), Vec2::new(2.0, 50.0)));
    w.set_request(1, MotionRequest::drive(4.0, 0.0)).unwrap();
    run(&mut w, 200, &mut FlatGround);
    let u = w.unit(1).unwrap();
    assert!(u.position.x <= 8.0 - DEFAULT_RADIUS + 1e-3);
    assert!(u.position.y > 10.0, "slid along the wall: {}", u.position.y);
}

#[test]
fn a_crowd_of_1000_settles_without_interpenetration() {
    let mut w = World::new(Limits::default());
    for i in 0..1000u32 {
        let (x, y) = ((i % 40) as f32 * 0.7, (i / 40) as f32 * 0.7);
        w.insert(mobile(i + 1, x, y, 0.0));
    }
    let reports = run(&mut w, 450, &mut FlatGround);
    let last = reports.last().unwrap();
    assert!(last.max_depth <= 1e-3, "max overlap {}", last.max_depth);
    assert_eq!(last.residual, 0);
    // Every pair checked by brute force, not only the broad phase's.
    let placed: Vec<_> = w
        .units
        .iter()
        .map(|u| (u.position.truncate(), DEFAULT_RADIUS))
        .collect();
    for i in 0..placed.len() {
        for j in i + 1..placed.len() {
            let d = placed[i].0.distance(placed[j].0);
            assert!(d >= 2.0 * DEFAULT_RADIUS - 1e-3, "{i} {j} {d}");
        }
    }
}

/// PD-CTRL-OVERSIZED: a wildly scaled obstacle (millions of grid cells) neither
/// stalls the step nor stops blocking: it is paired directly with the units near it.
#[test]
fn an_oversized_obstacle_keeps_the_step_bounded_and_still_blocks() {
    let mut w = World::new(Limits::default());
    w.insert(mobile(1, 0.0, 0.0, 0.0));
    w.insert(mobile(2, 0.0, 5.0, 0.0));
    // A wall 2·10⁶ units long, its face at x = 4.
    w.insert(building(9, Vec2::new(5.0, 0.0), Vec2::new(1.0, 1.0e6)));
    w.set_request(1, MotionRequest::drive(4.0, 0.0)).unwrap();
    let reports = run(&mut w, 120, &mut FlatGround);
    let u = w.unit(1).unwrap();
    assert!(
        u.position.x <= 4.0 - DEFAULT_RADIUS + 1e-3,
        "{}",
        u.position.x
    );
    assert!(
        u.position.x > 3.0,
        "it drove up to the wall: {}",
        u.position.x
    );
    let hits: Vec<_> = begins(&reports)
        .into_iter()
        .map(|(_, b)| (b.a, b.b))
        .collect();
    assert_eq!(hits, vec![(1, 9)]);
    assert!(reports.iter().all(|r| r.pairs <= 3));
}

#[test]
fn the_same_steps_give_bit_identical_worlds() {
    let build = || {
        let mut w = World::new(Limits::default());
        for i in 0..200u32 {
            let a = i as f32 * 0.37;
            w.insert(mobile(i + 1, a.cos() * 15.0, a.sin() * 15.0, a + 3.0));
            w.set_request(i + 1, MotionRequest::drive(4.0, 0.3))
                .unwrap();
        }
        w.insert(building(1000, Vec2::ZERO, Vec2::new(3.0, 3.0)));
        w
    };
    let (mut a, mut b) = (build(), build());
    let ra = run(&mut a, 120, &mut Hill { wall: 1e9 });
    let rb = run(&mut b, 120, &mut Hill { wall: 1e9 });
    assert_eq!(ra, rb);
    assert_eq!(a.units, b.units);
    assert!(!begins(&ra).is_empty(), "the scene has contacts");
}

#[test]
fn queries_and_rays_see_the_proxies() {
    let mut w = World::new(Limits::default());
    w.insert(mobile(1, 0.0, 0.0, 0.0));
    w.insert(mobile(2, 3.0, 0.0, 0.0));
    w.insert(building(3, Vec2::new(10.0, 0.0), Vec2::new(1.0, 1.0)));
    run(&mut w, 1, &mut FlatGround);
    let c = |x, y, z| Vec3::new(x, y, z);
    assert_eq!(w.query_sphere(c(1.5, 0.0, 0.5), 1.0), vec![1, 2]);
    assert_eq!(w.query_sphere(c(1.5, 0.0, 0.5), 0.9), Vec::<u32>::new());
    assert_eq!(w.query_box(c(8.5, -0.5, 0.0), c(9.5, 0.5, 1.0)), vec![3]);
    assert_eq!(
        w.query_box(c(-1.0, -1.0, 0.0), c(20.0, 1.0, 1.0)),
        vec![1, 2, 3]
    );
    let hit = w.ray(c(-5.0, 0.0, 0.5), c(20.0, 0.0, 0.5), None).unwrap();
    assert_eq!(hit.id, 1);
    assert!((hit.point.x + 0.5).abs() < 1e-4);
    assert!((hit.normal.x + 1.0).abs() < 1e-5);
    let hit = w
        .ray(c(-5.0, 0.0, 0.5), c(20.0, 0.0, 0.5), Some(1))
        .unwrap();
    assert_eq!(hit.id, 2);
    let hit = w.ray(c(5.0, 0.0, 0.5), c(20.0, 0.0, 0.5), None).unwrap();
    assert_eq!(hit.id, 3);
    assert!((hit.point.x - 9.0).abs() < 1e-4);
    assert!(
        w.ray(c(-5.0, 0.0, 2.0), c(20.0, 0.0, 2.0), None)
            .is_some_and(|h| h.id == 3)
    );
    assert!(
        w.ray(c(-5.0, 0.0, 6.0), c(20.0, 0.0, 6.0), None).is_none(),
        "above all"
    );
    assert!(
        w.ray(c(-5.0, 3.0, 0.5), c(20.0, 3.0, 0.5), None).is_none(),
        "beside all"
    );
}

#[test]
fn requests_are_checked() {
    let mut w = World::new(Limits::default());
    w.insert(mobile(1, 0.0, 0.0, 0.0));
    w.insert(building(2, Vec2::new(9.0, 0.0), Vec2::ONE));
    let bad = MotionRequest {
        mode: iron3d_abi::MotionMode(77),
        ..MotionRequest::stop()
    };
    assert!(
        w.set_request(1, bad)
            .unwrap_err()
            .contains("unknown motion mode 77")
    );
    assert!(
        w.set_request(2, MotionRequest::stop())
            .unwrap_err()
            .contains("static")
    );
    assert!(
        w.set_request(5, MotionRequest::stop())
            .unwrap_err()
            .contains("not simulated")
    );
    let nan = MotionRequest::drive(f32::NAN, 0.0);
    assert!(w.set_request(1, nan).is_err());
}

#[test]
fn the_state_round_trips_and_bad_bytes_are_refused_with_the_offset() {
    let mut w = World::new(Limits::default());
    w.insert(mobile(1, 0.0, 0.0, 0.0));
    w.insert(mobile(2, 0.9, 0.0, 1.0));
    w.insert(building(3, Vec2::new(5.0, 0.0), Vec2::ONE));
    w.set_request(1, MotionRequest::drive(2.0, 0.1)).unwrap();
    run(&mut w, 3, &mut FlatGround);
    let pending = vec![(7, MotionRequest::move_to(Vec3f::default(), 2.0))];
    let bytes = state::encode(&w, &pending, 5);
    let s = state::decode(&bytes, state::STATE_VERSION).unwrap();
    assert_eq!(s.units, w.units);
    assert_eq!(s.contacts, w.contacts);
    assert_eq!(s.pending, pending);
    assert_eq!(s.refresh_cursor, 5);
    for cut in [0, 3, 50, bytes.len() - 1] {
        assert!(
            state::decode(&bytes[..cut], state::STATE_VERSION).is_err(),
            "cut at {cut}"
        );
    }
    let mut long = bytes.clone();
    long.push(0);
    assert!(
        state::decode(&long, state::STATE_VERSION)
            .unwrap_err()
            .contains("trailing")
    );
    let mut huge = bytes.clone();
    huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(
        state::decode(&huge, state::STATE_VERSION)
            .unwrap_err()
            .contains("unit count")
    );
    let mut nan = bytes;
    nan[10..14].copy_from_slice(&f32::NAN.to_bits().to_le_bytes());
    assert!(
        state::decode(&nan, state::STATE_VERSION)
            .unwrap_err()
            .contains("offset 10")
    );
}

#[test]
fn limits_come_from_behavior_ini_or_the_named_defaults() {
    let l = limits_from(None).unwrap();
    assert_eq!(l, Limits::default());
    let ini =
        b"[Behavior]\r\nAttackRange=300\r\nPathFind_MaxAccel=4\r\nPathFind_MaxRotation = 45\r\n";
    let l = limits_from(Some(ini)).unwrap();
    assert_eq!(l.max_accel, 4.0);
    assert!((l.max_turn - 45f32.to_radians()).abs() < 1e-7);
    let e = limits_from(Some(b"[B]\r\nX=1\r\nPathFind_MaxAccel=fast\r\n")).unwrap_err();
    assert!(
        e.contains("Behavior.ini line 3") && e.contains("PathFind_MaxAccel"),
        "{e}"
    );
    assert!(limits_from(Some(b"PathFind_MaxRotation=-1\r\n")).is_err());
}

#[test]
fn the_plugin_describes_its_factory_and_round_trips_its_state() {
    let d = describe();
    assert_eq!(d.factories[0].slot, SlotKind::Control);
    assert!(create("nope").is_err());
    let mut p = ControlPlugin::default();
    p.world.insert(mobile(4, 1.0, 2.0, 0.5));
    p.pending.insert(9, MotionRequest::drive(1.0, 0.0));
    let blob = p.save_state().unwrap();
    let mut q = ControlPlugin::default();
    q.restore_state(&blob).unwrap();
    assert_eq!(q.world.units, p.world.units);
    assert_eq!(q.pending, p.pending);
    assert_eq!(q.save_state().unwrap(), blob);
    assert!(
        q.restore_state(&StateBlob::new(state::STATE_FORMAT, 1, vec![1, 0, 0, 0]))
            .is_err()
    );
}

#[test]
fn the_state_decoder_never_panics_and_whatever_it_accepts_re_encodes_identically() {
    let mut w = World::new(Limits::default());
    w.insert(mobile(1, 0.0, 0.0, 0.0));
    w.insert(mobile(2, 0.9, 0.0, 1.0));
    w.insert(building(3, Vec2::new(5.0, 0.0), Vec2::ONE));
    run(&mut w, 2, &mut FlatGround);
    let good = state::encode(&w, &[(9, MotionRequest::stop())], 1);
    let mut seed = 7u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize
    };
    for _ in 0..5000 {
        let mut bytes = good.clone();
        for _ in 0..next() % 4 {
            let i = next() % bytes.len();
            bytes[i] = next() as u8;
        }
        bytes.truncate(next() % (bytes.len() + 8));
        if let Ok(s) = state::decode(&bytes, state::STATE_VERSION) {
            let mut again = World::new(Limits::default());
            again.units = s.units;
            again.contacts = s.contacts;
            assert_eq!(state::encode(&again, &s.pending, s.refresh_cursor), bytes);
        }
    }
}

/// **PD-CTRL-PAIR-REUSE**: reusing the grown pairs gives, step by step, exactly what a
/// rebuild every step gives — unit states, reports, contacts and region queries —
/// through strays (a fast unit, a big one shoved by the crowd, a teleport), rebuilds
/// and a unit removed mid-run.
#[test]
fn reusing_the_pairs_changes_nothing_but_the_speed() {
    let make = |always_rebuild: bool| {
        let mut w = World::new(Limits::default());
        w.always_rebuild_pairs = always_rebuild;
        for i in 0..400u32 {
            let (x, y) = ((i % 20) as f32 * 1.05, (i / 20) as f32 * 1.05);
            w.insert(mobile(i + 1, x, y, i as f32 * 0.7));
            let v = Vec3::new(((i * 7) % 11) as f32 - 5.0, ((i * 3) % 7) as f32 - 3.0, 0.0);
            w.set_request(i + 1, MotionRequest::velocity(v.into()))
                .unwrap();
        }
        // A fast unit (1.7 units a tick) and a big vehicle in the middle of the crowd.
        w.set_request(7, MotionRequest::drive(50.0, 0.3)).unwrap();
        w.insert(Unit::new(
            900,
            Role::Mobile,
            Proxy::cylinder(
                Vec3::new(-3.0, -3.0, 0.0),
                Vec3::new(3.0, 3.0, 2.0),
                Vec3::ONE,
            ),
            Vec3::new(10.0, 10.0, 0.0),
            Quat::IDENTITY,
        ));
        w.insert(building(950, Vec2::new(25.0, 8.0), Vec2::new(2.0, 6.0)));
        w
    };
    let (mut reuse, mut rebuild) = (make(false), make(true));
    let mut ground = Hill {
        wall: f32::INFINITY,
    };
    let (mut reused, mut strays) = (0, 0);
    for t in 0..120 {
        if t == 40 {
            for w in [&mut reuse, &mut rebuild] {
                let i = w.index_of(123).unwrap();
                w.units[i].position += Vec3::new(30.0, -12.0, 0.0);
            }
        }
        if t == 70 {
            reuse.remove(37);
            rebuild.remove(37);
        }
        let a = reuse.step(DT, &mut ground).unwrap();
        let b = rebuild.step(DT, &mut ground).unwrap();
        assert!(b.pairs_rebuilt && b.strays == 0, "tick {t}");
        reused += usize::from(!a.pairs_rebuilt);
        strays += a.strays;
        let diagnostics = |r: &StepReport| StepReport {
            pairs_rebuilt: false,
            strays: 0,
            ..r.clone()
        };
        assert_eq!(diagnostics(&a), diagnostics(&b), "tick {t}");
        assert_eq!(reuse.units, rebuild.units, "tick {t}");
        assert_eq!(reuse.contacts, rebuild.contacts, "tick {t}");
        // Spots over the crowd, and where the teleported unit is now.
        let teleported = rebuild.unit(123).unwrap().position;
        for k in 0..13 {
            let c = if k == 12 {
                teleported
            } else {
                Vec3::new(k as f32 * 4.0 - 8.0, k as f32 * 2.5 - 4.0, 0.0)
            };
            assert_eq!(reuse.query_sphere(c, 2.5), rebuild.query_sphere(c, 2.5));
            let (lo, hi) = (c - Vec3::splat(3.0), c + Vec3::splat(3.0));
            assert_eq!(reuse.query_box(lo, hi), rebuild.query_box(lo, hi));
            let far = c + Vec3::new(40.0, 5.0, 1.0);
            assert_eq!(reuse.ray(c, far, None), rebuild.ray(c, far, None));
        }
    }
    assert!(
        reused > 30,
        "the pairs were reused on {reused} of 120 ticks"
    );
    assert!(strays > 0, "no stray was paired one by one");
}

/// State version 1 (before PD-CTRL-WISH) is still read: the same units with a zero
/// wish; a version outside 1..=2 is refused with both bounds named.
#[test]
fn a_version_1_state_is_read_with_no_wish() {
    let mut w = World::new(Limits::default());
    w.insert(mobile(1, 0.0, 0.0, 0.0));
    w.insert(mobile(2, 3.0, 0.0, 1.0));
    w.set_request(1, MotionRequest::velocity(Vec3::new(1.0, 2.0, 0.0).into()))
        .unwrap();
    run(&mut w, 3, &mut FlatGround);
    assert_ne!(
        w.unit(1).unwrap().wish,
        Vec2::ZERO,
        "a velocity request has a wish"
    );
    let v2 = state::encode(&w, &[], 0);
    // Version 1 records are the version 2 ones without their last 8 bytes.
    let record = (v2.len() - 4 - 4 - 4 - 4) / 2;
    let mut v1 = v2[..4].to_vec();
    for k in 0..2 {
        let at = 4 + k * record;
        v1.extend_from_slice(&v2[at..at + record - 8]);
    }
    v1.extend_from_slice(&v2[4 + 2 * record..]);
    let s = state::decode(&v1, 1).unwrap();
    for (got, want) in s.units.iter().zip(&w.units) {
        assert_eq!(got.wish, Vec2::ZERO);
        assert_eq!(
            (got.id, got.position, got.request),
            (want.id, want.position, want.request)
        );
    }
    assert!(
        state::decode(&v2, 1).is_err(),
        "a v2 blob read as v1 has trailing bytes"
    );
    let e = state::decode(&v2, 3).unwrap_err();
    assert!(e.contains("1..=2"), "{e}");
}
