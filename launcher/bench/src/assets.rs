//! `iron3d-bench` asset figures: parse + validate a 10,000-vertex, 400-batch model, and
//! decode a 256×256 mip chain of each Texm pixel format.

use iron3d_msh::{Batch20, Msh, MshBuilder, Node38, Slot68};
use iron3d_texm::{PixelFormat, RgbaImage, Texm, TexmWriter};
use std::io::Write;
use std::time::{Duration, Instant};

#[allow(
    clippy::disallowed_methods,
    reason = "benchmarks measure wall-clock time"
)]
fn now() -> Instant {
    Instant::now()
}

fn repeat(min: Duration, mut f: impl FnMut()) -> (u32, Duration) {
    let start = now();
    let mut n = 0;
    while n == 0 || start.elapsed() < min {
        f();
        n += 1;
    }
    (n, start.elapsed())
}

/// A model with `vertices` vertices and `batches` batches of 25 triangles over 8 nodes.
fn model(vertices: u32, batches: u16) -> anyhow::Result<Vec<u8>> {
    let mut b = MshBuilder::new();
    let per_node = batches / 8;
    for n in 0..8u16 {
        let mut node = Node38::new(0);
        if n > 0 {
            node.parent = 0;
        }
        node.slot_index[0] = n;
        b.nodes.push(node);
        b.slots.push(Slot68 {
            tri_start: 0,
            tri_count: 0,
            batch_start: n * per_node,
            batch_count: per_node,
            aabb_min: [-100.0; 3],
            aabb_max: [100.0; 3],
            sphere_center: [0.0; 3],
            sphere_radius: 174.0,
            opaque: [0; 5],
        });
    }
    b.positions = (0..vertices)
        .map(|i| [(i % 100) as f32, (i / 100) as f32, (i % 7) as f32])
        .collect();
    let span = vertices / u32::from(batches);
    for i in 0..u32::from(batches) {
        let start = b.indices.len() as u32;
        for t in 0..25u16 {
            let v = t % (span as u16 - 2);
            b.indices.extend_from_slice(&[v, v + 1, v + 2]);
        }
        b.batches.push(Batch20 {
            batch_flags: 0,
            material_index: (i % 4) as u16,
            opaque4: 0,
            opaque6: 0,
            index_count: 75,
            index_start: start,
            opaque14: 0,
            base_vertex: i * span,
        });
    }
    Ok(b.build()?)
}

/// Runs the asset benchmarks and prints `bench asset_…` lines.
pub fn run(out: &mut dyn Write) -> anyhow::Result<()> {
    let bytes = model(10_000, 400)?;
    let (iters, d) = repeat(Duration::from_millis(300), || {
        std::hint::black_box(Msh::parse(&bytes).expect("valid model"));
    });
    writeln!(
        out,
        "bench asset_msh vertices=10000 batches=400 bytes={} parse_validate_us={:.1}",
        bytes.len(),
        d.as_secs_f64() * 1e6 / f64::from(iters)
    )?;
    let mut px = Vec::with_capacity(256 * 256 * 4);
    for y in 0..256u32 {
        for x in 0..256u32 {
            px.extend_from_slice(&[(x ^ y) as u8, x as u8, y as u8, ((x + y) / 2) as u8]);
        }
    }
    let base = RgbaImage::new(256, 256, px)?;
    let levels = base.mip_chain(9);
    for format in PixelFormat::ALL {
        let payload = TexmWriter::new(format).write(&levels)?;
        let (iters, d) = repeat(Duration::from_millis(200), || {
            let t = Texm::parse(&payload).expect("valid texture");
            for l in 0..t.mip_count() {
                std::hint::black_box(t.decode_level(l).expect("decodes"));
            }
        });
        let per = d.as_secs_f64() / f64::from(iters);
        let decoded_mb = (256.0 * 256.0 * 4.0 * 4.0 / 3.0) / (1024.0 * 1024.0);
        writeln!(
            out,
            "bench asset_texm format={} size=256x256 mips=9 decode_chain_us={:.1} rgba_mb_per_s={:.0}",
            format.raw(),
            per * 1e6,
            decoded_mb / per
        )?;
    }
    Ok(())
}
