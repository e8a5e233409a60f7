//! Cross-module robustness tests: no panics on arbitrary input, and every failing
//! mutation leaves its state unchanged.

#![allow(clippy::unwrap_used)]

use crate::*;

/// A small deterministic generator for test inputs (not the clock RNG).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }

    fn float(&mut self) -> f32 {
        const SPECIAL: [f32; 10] = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::MAX,
            f32::MIN_POSITIVE,
            1e-45,
            f32::INFINITY,
            f32::NAN,
            16_777_216.0,
        ];
        match self.next() % 4 {
            0 => SPECIAL[(self.next() % 10) as usize],
            1 => f32::from_bits(self.next()),
            _ => (self.next() % 2000) as f32 / 10.0 - 50.0,
        }
    }
}

#[test]
fn reader_never_panics() {
    let mut g = Lcg(1);
    let good = DeviceRecord::new(FactoryTag(4), [0; 44], vec![7, 9], Some(b"fx".to_vec()))
        .unwrap()
        .to_bytes();
    for _ in 0..5000 {
        let mut bytes = good.clone();
        for _ in 0..(g.next() % 4) {
            let i = (g.next() as usize) % bytes.len();
            bytes[i] = g.next() as u8;
        }
        bytes.truncate((g.next() as usize) % (bytes.len() + 8));
        let offset = (g.next() as usize) % 8;
        if let Ok((r, end)) = DeviceRecord::read(&bytes, offset, FactoryTag(4)) {
            assert!(end <= bytes.len());
            assert_eq!(r.to_bytes(), bytes[offset..end]);
        }
    }
}

#[test]
fn arithmetic_never_panics_and_failures_are_transactional() {
    let mut g = Lcg(7);
    for _ in 0..3000 {
        let n = 1 + (g.next() % 5) as usize;
        let rows: Vec<NdpRow> = (0..n)
            .map(|i| NdpRow {
                max_volume: (g.next() % 100) as f32,
                stage_count: g.next() % 4,
                parent: (g.next() % (i as u32 + 2)) as i32 - 1,
                flags: g.next() & 0x1DC,
            })
            .collect();
        let mut t = ProviderTable::new();
        if t.push_component(ProviderSource::Root, 1, &rows, 1.0)
            .is_err()
        {
            continue;
        }
        for _ in 0..6 {
            let before = t.clone();
            let row = (g.next() as usize) % (n + 1);
            let ok = match g.next() % 4 {
                0 => apply_delta(&mut t, row, g.float(), g.next() % 2 == 0).is_ok(),
                1 => {
                    let set: Vec<usize> = (0..n).filter(|_| g.next() % 2 == 0).collect();
                    let mode = if g.next() % 2 == 0 {
                        DistributionMode::Proportional
                    } else {
                        DistributionMode::Sequential
                    };
                    distribute(&mut t, &set, g.float(), mode).is_ok()
                }
                2 => update_stage(&mut t, row).is_ok(),
                _ => propagate(&mut t, row).is_ok(),
            };
            if !ok {
                // NaN-free comparison: the tables are bitwise equal.
                assert_eq!(format!("{t:?}"), format!("{before:?}"));
            }
        }
        let _ = stage_for_ratio(g.next() % 5, g.float());
        let _ = x87_product3(g.float(), g.float(), g.float());
    }
}
