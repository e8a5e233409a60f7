//! Profiling aid: steps a 10,000-unit crowd on flat ground and prints ms per step.
use glam::{Quat, Vec3};
use iron3d_abi::MotionRequest;
use iron3d_control::shape::Proxy;
use iron3d_control::world::{FlatGround, Limits, Role, Unit, World};

#[allow(
    clippy::disallowed_methods,
    reason = "a profiling aid measures wall time; it never feeds the simulation"
)]
fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let side = (n as f32).sqrt().ceil() as u32;
    let mut w = World::new(Limits::default());
    for i in 0..n {
        let p = Vec3::new((i % side) as f32 * 1.6, (i / side) as f32 * 1.6, 0.0);
        w.insert(Unit::new(
            i + 1,
            Role::Mobile,
            Proxy::default_cylinder(Vec3::ONE),
            p,
            Quat::from_rotation_z(i as f32),
        ));
        w.set_request(i + 1, MotionRequest::drive(3.0, 0.2))
            .expect("request");
    }
    for _ in 0..5 {
        w.step(1.0 / 30.0, &mut FlatGround).expect("step");
    }
    let t = std::time::Instant::now();
    for _ in 0..50 {
        w.step(1.0 / 30.0, &mut FlatGround).expect("step");
    }
    let r = w.step(1.0 / 30.0, &mut FlatGround).expect("step");
    println!(
        "pairs {} passes {} looks {} repaired {} begins {} contacts {}",
        r.pairs,
        r.passes,
        r.looks,
        r.repaired,
        r.begins.len(),
        w.contacts.len()
    );
    println!(
        "{n} units: {:.3} ms per step",
        t.elapsed().as_secs_f64() * 1e3 / 50.0
    );
}
