//! Phase selection (project decisions PD-MAT-1..3): every family at its boundaries,
//! zero-length keys and periods, unmapped modes and bad phase indices.

use crate::{
    AnimBlock, AnimFamily, AnimKey, Mat0, Mat0Metadata, MaterialClock, MaterialError, ModeMapping,
    Phase, PhaseSelection, select_phase,
};

/// A material with `phases` phases and one block per `(mode, keys)`.
fn mat(phases: usize, blocks: &[(u8, &[(u16, u16)])]) -> Mat0 {
    let phases = (0..phases)
        .map(|i| Phase::new([i as u8; 18], b"T").expect("phase"))
        .collect();
    let blocks = blocks
        .iter()
        .map(|(mode, keys)| {
            let keys = keys
                .iter()
                .map(|&(k0, k1)| AnimKey::new(k0, k1, 0xAAAA))
                .collect();
            AnimBlock::new(AnimBlock::header_from(*mode, 0b101), keys).expect("block")
        })
        .collect();
    Mat0::new(6, Mat0Metadata::DEFAULT, phases, blocks).expect("material")
}

const KEYS: &[(u16, u16)] = &[(0, 100), (2, 200), (3, 100)]; // L = 400

/// (phase_a, phase_b, key, elapsed, span) at `time` (offset `off`) for `mode`.
fn at(mode: u8, keys: &[(u16, u16)], time: u64, off: u64) -> (u16, u16, usize, u32, u32) {
    let m = mat(4, &[(mode, keys)]);
    let clock = MaterialClock {
        time_ms: time,
        random_offset_ms: off,
    };
    let s = select_phase(&m, 0, clock, &ModeMapping::PROJECT_DEFAULT).expect("selects");
    (s.phase_a, s.phase_b, s.key, s.elapsed_ms, s.span_ms)
}

#[test]
fn project_default_mapping() {
    let m = ModeMapping::PROJECT_DEFAULT;
    assert_eq!(m.family(0), Some(AnimFamily::Loop));
    assert_eq!(m.family(1), Some(AnimFamily::PingPong));
    assert_eq!(m.family(2), Some(AnimFamily::Clamp));
    assert_eq!(m.family(3), Some(AnimFamily::RandomOffset));
    assert!((4..8).all(|mode| m.family(mode).is_none()));
    assert_eq!(
        m.family(8),
        Some(AnimFamily::Loop),
        "only the low 3 bits count"
    );
    assert_eq!(ModeMapping::default(), m);
}

#[test]
fn loop_boundaries() {
    assert_eq!(at(0, KEYS, 0, 0), (0, 2, 0, 0, 100));
    assert_eq!(at(0, KEYS, 99, 0), (0, 2, 0, 99, 100));
    assert_eq!(at(0, KEYS, 100, 0), (2, 3, 1, 0, 200));
    assert_eq!(
        at(0, KEYS, 399, 0),
        (3, 0, 2, 99, 100),
        "last key blends back to key 0"
    );
    assert_eq!(at(0, KEYS, 400, 0), (0, 2, 0, 0, 100), "period wraps");
    assert_eq!(at(0, KEYS, 4_000_000_100, 0), (2, 3, 1, 0, 200));
    assert_eq!(at(0, KEYS, u64::MAX, 0), at(0, KEYS, u64::MAX % 400, 0));
}

#[test]
fn clamp_boundaries() {
    assert_eq!(at(2, KEYS, 0, 0), (0, 2, 0, 0, 100));
    assert_eq!(
        at(2, KEYS, 399, 0),
        (3, 3, 2, 99, 100),
        "last key blends to itself"
    );
    assert_eq!(at(2, KEYS, 400, 0), (3, 3, 2, 0, 0), "held from L on");
    assert_eq!(at(2, KEYS, u64::MAX, 0), (3, 3, 2, 0, 0));
}

#[test]
fn ping_pong_boundaries() {
    assert_eq!(at(1, KEYS, 0, 0), (0, 2, 0, 0, 100));
    assert_eq!(at(1, KEYS, 399, 0), (3, 3, 2, 99, 100));
    assert_eq!(
        at(1, KEYS, 400, 0),
        (3, 3, 2, 0, 0),
        "turning point holds the last key"
    );
    assert_eq!(at(1, KEYS, 401, 0), (3, 3, 2, 99, 100), "runs backwards");
    assert_eq!(at(1, KEYS, 700, 0), (2, 3, 1, 0, 200));
    assert_eq!(at(1, KEYS, 701, 0), (0, 2, 0, 99, 100));
    assert_eq!(at(1, KEYS, 799, 0), (0, 2, 0, 1, 100));
    assert_eq!(at(1, KEYS, 800, 0), (0, 2, 0, 0, 100), "period 2L");
    assert_eq!(at(1, KEYS, 1200, 0), (3, 3, 2, 0, 0));
}

#[test]
fn random_offset_boundaries() {
    assert_eq!(
        at(3, KEYS, 0, 0),
        at(0, KEYS, 0, 0),
        "offset 0 is a plain loop"
    );
    assert_eq!(at(3, KEYS, 0, 150), (2, 3, 1, 50, 200));
    assert_eq!(
        at(3, KEYS, 0, 550),
        (2, 3, 1, 50, 200),
        "offset taken mod L"
    );
    assert_eq!(at(3, KEYS, 300, 150), (0, 2, 0, 50, 100), "sum wraps");
    assert_eq!(
        at(3, KEYS, u64::MAX, u64::MAX),
        at(0, KEYS, 30, 0) // (u64::MAX % 400 = 215) * 2 mod 400
    );
    assert_eq!(
        at(0, KEYS, 0, 150),
        (0, 2, 0, 0, 100),
        "other families ignore the offset"
    );
}

#[test]
fn zero_duration_keys_are_skipped() {
    let keys: &[(u16, u16)] = &[(0, 100), (1, 0), (2, 100)];
    assert_eq!(at(0, keys, 99, 0), (0, 1, 0, 99, 100));
    assert_eq!(at(0, keys, 100, 0), (2, 0, 2, 0, 100));
    assert_eq!(at(2, keys, 100, 0), (2, 2, 2, 0, 100));
}

#[test]
fn zero_period_and_empty_blocks() {
    let keys: &[(u16, u16)] = &[(1, 0), (3, 0)];
    assert_eq!(at(0, keys, 77, 0), (1, 1, 0, 0, 0));
    assert_eq!(at(1, keys, 77, 0), (1, 1, 0, 0, 0));
    assert_eq!(at(3, keys, 77, 5), (1, 1, 0, 0, 0));
    assert_eq!(
        at(2, keys, 0, 0),
        (3, 3, 1, 0, 0),
        "clamp: time >= L = 0 holds the last key"
    );
    let m = mat(2, &[(0, &[])]);
    let s =
        select_phase(&m, 0, MaterialClock::at(5), &ModeMapping::PROJECT_DEFAULT).expect("selects");
    assert_eq!(
        (s.phase_a, s.phase_b, s.t(), s.family),
        (0, 0, 0.0, Some(AnimFamily::Loop))
    );
    assert_eq!(s.interpolation_mask, 0b101);
    assert_eq!(PhaseSelection::still(4).phase_b, 4);
}

#[test]
fn blend_factor() {
    let m = mat(4, &[(0, KEYS)]);
    let s = select_phase(&m, 0, MaterialClock::at(200), &ModeMapping::PROJECT_DEFAULT)
        .expect("selects");
    assert_eq!(s.t(), 0.5);
    let s = select_phase(&m, 0, MaterialClock::at(100), &ModeMapping::PROJECT_DEFAULT)
        .expect("selects");
    assert_eq!(s.t(), 0.0);
}

#[test]
fn errors() {
    let m = mat(4, &[(0, KEYS)]);
    let map = ModeMapping::PROJECT_DEFAULT;
    assert_eq!(
        select_phase(&m, 1, MaterialClock::at(0), &map).unwrap_err(),
        MaterialError::NoSuchBlock {
            block: 1,
            blocks: 1
        }
    );
    let m = mat(0, &[(0, &[])]);
    assert_eq!(
        select_phase(&m, 0, MaterialClock::at(0), &map).unwrap_err(),
        MaterialError::NoPhases
    );
    let m = mat(4, &[(5, KEYS)]);
    assert_eq!(
        select_phase(&m, 0, MaterialClock::at(0), &map).unwrap_err(),
        MaterialError::UnmappedMode { block: 0, mode: 5 }
    );
    let m = mat(3, &[(0, KEYS)]);
    assert_eq!(
        select_phase(&m, 0, MaterialClock::at(0), &map).unwrap_err(),
        MaterialError::KeyPhaseOutOfRange {
            block: 0,
            key: 2,
            phase: 3,
            phase_count: 3
        }
    );
}

#[test]
fn custom_mapping_is_honoured() {
    let m = mat(4, &[(5, KEYS)]);
    let mut families = [None; 8];
    families[5] = Some(AnimFamily::Clamp);
    let map = ModeMapping::new(families);
    let s = select_phase(&m, 0, MaterialClock::at(1000), &map).expect("selects");
    assert_eq!((s.phase_a, s.family), (3, Some(AnimFamily::Clamp)));
}
