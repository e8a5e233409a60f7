//! `iron3d-bench` archive figures: open + look up every name of a 10,000-entry NRes, and
//! decode throughput per RsLi method next to raw `flate2` inflate of the same data.

use iron3d_nres::{NewEntry, Nres, NresWriter};
use iron3d_rsli::Method;
use iron3d_rsli::codec;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use std::io::{Read, Write};
use std::time::{Duration, Instant};

#[allow(
    clippy::disallowed_methods,
    reason = "benchmarks measure wall-clock time"
)]
fn now() -> Instant {
    Instant::now()
}

/// Repeats `f` until at least `min` elapsed; returns (iterations, elapsed).
fn repeat(min: Duration, mut f: impl FnMut()) -> (u32, Duration) {
    let start = now();
    let mut n = 0;
    while n == 0 || start.elapsed() < min {
        f();
        n += 1;
    }
    (n, start.elapsed())
}

/// Text-like test data (words drawn from a small vocabulary), deterministic.
fn corpus(len: usize) -> Vec<u8> {
    const WORDS: [&str; 16] = [
        "terrain ",
        "robot ",
        "tower ",
        "ore ",
        "clan ",
        "mission ",
        "Land.msh ",
        "texture ",
        "lightmap ",
        "effect ",
        "\r\n",
        "0x3F ",
        "base ",
        "unit ",
        "shield ",
        "iron ",
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut out = Vec::with_capacity(len + 16);
    while out.len() < len {
        out.extend_from_slice(WORDS[(rng.next_u32() % 16) as usize].as_bytes());
        if rng.next_u32() % 8 == 0 {
            out.push((rng.next_u32() & 0xFF) as u8);
        }
    }
    out.truncate(len);
    out
}

/// Runs the archive benchmarks and prints `bench archive_…` lines.
pub fn run(out: &mut dyn Write) -> anyhow::Result<()> {
    // 1. NRes: 10,000 entries; open (strict parse) and look up every name.
    let n = 10_000u32;
    let mut w = NresWriter::new();
    for i in 0..n {
        w.push(NewEntry::new(
            format!("ENTRY{i:05}.BIN").as_bytes(),
            0x4853_454D,
            vec![(i % 251) as u8; 64],
        )?);
    }
    let archive = w.finish()?;
    let names: Vec<Vec<u8>> = (0..n)
        .map(|i| format!("entry{i:05}.bin").into_bytes())
        .collect();
    let (iters, d) = repeat(Duration::from_millis(300), || {
        let nres = Nres::parse(&archive).expect("valid archive");
        for name in &names {
            std::hint::black_box(nres.find(name).expect("present"));
        }
    });
    let open_only = repeat(Duration::from_millis(200), || {
        std::hint::black_box(Nres::parse(&archive).expect("valid archive"));
    });
    let per_round = d / iters;
    let open = open_only.1 / open_only.0;
    writeln!(
        out,
        "bench archive_nres entries={n} bytes={} open_us={:.1} open_plus_all_lookups_ms={:.2} ns_per_lookup={:.1}",
        archive.len(),
        open.as_secs_f64() * 1e6,
        per_round.as_secs_f64() * 1e3,
        per_round.saturating_sub(open).as_nanos() as f64 / f64::from(n)
    )?;

    // 2. RsLi decode throughput per method on the same 4 MiB, and raw flate2 inflate.
    let data = corpus(4 << 20);
    let mb = data.len() as f64 / (1024.0 * 1024.0);
    let key = 0x1234u16;
    let mut deflated = Vec::new();
    for m in Method::ALL {
        let packed = codec::encode(m, &data, key)?;
        if m == Method::Deflate {
            deflated = packed.clone();
        }
        let (iters, d) = repeat(Duration::from_millis(300), || {
            let decoded = codec::decode(m, &packed, data.len(), key).expect("decodes");
            std::hint::black_box(decoded);
        });
        writeln!(
            out,
            "bench archive_rsli method={} packed_ratio={:.3} decode_mb_per_s={:.1}",
            m.name(),
            packed.len() as f64 / data.len() as f64,
            mb * f64::from(iters) / d.as_secs_f64()
        )?;
    }
    let (iters, d) = repeat(Duration::from_millis(300), || {
        let mut dec = flate2::read::DeflateDecoder::new(&deflated[..]);
        let mut buf = Vec::with_capacity(data.len());
        dec.read_to_end(&mut buf).expect("inflates");
        std::hint::black_box(buf);
    });
    writeln!(
        out,
        "bench archive_flate2_inflate decode_mb_per_s={:.1}",
        mb * f64::from(iters) / d.as_secs_f64()
    )?;
    Ok(())
}
