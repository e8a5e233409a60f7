//! `iron3d-bench` terrain figures: 1M height queries and 10k route searches on a
//! 128×128-cell surface with a 55×55 (3,025) areal map.

use iron3d_landmap::{AreaSpec, Bounds, MapBuilder};
use iron3d_terrain::{Areals, Surface};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use std::io::Write;
use std::time::Instant;

#[allow(
    clippy::disallowed_methods,
    reason = "benchmarks measure wall-clock time"
)]
fn now() -> Instant {
    Instant::now()
}

fn unit(r: &mut ChaCha8Rng) -> f32 {
    (r.next_u32() >> 8) as f32 / (1u32 << 24) as f32
}

/// Runs the terrain benchmarks and prints `bench terrain_…` lines.
pub fn run(out: &mut dyn Write) -> anyhow::Result<()> {
    let extent = 512.0f32;
    let streams = iron3d_landmsh::from_grid(128, 128, extent / 128.0, |x, y| {
        10.0 * (x / 40.0).sin() * (y / 55.0).cos()
    })?;
    let surface = Surface::from_streams(&streams);
    let n = 55usize;
    let side = extent / n as f32;
    let mut b = MapBuilder::new();
    for j in 0..n {
        for i in 0..n {
            // Corners computed the same way for both neighbours, so shared edges match bit for bit.
            let (x0, y0) = (i as f32 * side, j as f32 * side);
            let (x1, y1) = ((i + 1) as f32 * side, (j + 1) as f32 * side);
            let polygon = vec![[x0, y0, 0.0], [x1, y0, 0.0], [x1, y1, 0.0], [x0, y1, 0.0]];
            // Every 13th area is blocked so routes have to go around.
            b.add_area(&AreaSpec {
                polygon,
                walkable: (i * 7 + j * 3) % 13 != 0,
                class_id: 0,
            })?;
        }
    }
    b.link_shared_edges();
    let map = b.build(
        128,
        128,
        Bounds {
            min: [0.0, 0.0],
            max: [extent, extent],
        },
    )?;
    let areals = Areals::new(&map);

    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let queries = 1_000_000u32;
    let pts: Vec<(f32, f32)> = (0..queries)
        .map(|_| (unit(&mut rng) * extent, unit(&mut rng) * extent))
        .collect();
    let start = now();
    let mut hits = 0u32;
    for &(x, y) in &pts {
        if std::hint::black_box(surface.height_at(x, y)).is_some() {
            hits += 1;
        }
    }
    let d = start.elapsed();
    writeln!(
        out,
        "bench terrain_height queries={queries} hits={hits} total_ms={:.1} ns_per_query={:.1}",
        d.as_secs_f64() * 1e3,
        d.as_nanos() as f64 / f64::from(queries)
    )?;

    let routes = 10_000u32;
    let area_count = areals.len() as u32;
    let pairs: Vec<(u32, u32)> = (0..routes)
        .map(|_| (rng.next_u32() % area_count, rng.next_u32() % area_count))
        .collect();
    let start = now();
    let (mut found, mut refused, mut steps) = (0u32, 0u32, 0usize);
    for &(a, z) in &pairs {
        match areals.route(a, z) {
            Ok(r) => {
                found += 1;
                steps += r.len();
            }
            Err(_) => refused += 1,
        }
    }
    let d = start.elapsed();
    writeln!(
        out,
        "bench terrain_route areas={area_count} routes={routes} found={found} refused={refused} mean_len={:.1} total_ms={:.1} us_per_route={:.1}",
        steps as f64 / f64::from(found.max(1)),
        d.as_secs_f64() * 1e3,
        d.as_secs_f64() * 1e6 / f64::from(routes)
    )?;
    Ok(())
}
