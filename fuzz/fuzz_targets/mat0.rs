//! Fuzz target: the strict MAT0 reader (version = first byte mod 8, payload = the rest)
//! returns `Ok` or an offset-carrying error, never panics; whatever it accepts re-encodes
//! byte for byte for its version, upgrades to v6 without loss, and phase selection on
//! every block at a few instants never panics and stays within the phase table.
#![no_main]

use iron3d_material::{Mat0, MaterialClock, ModeMapping, select_phase};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&v, payload)) = data.split_first() else {
        return;
    };
    let version = u32::from(v % 8);
    match Mat0::parse(payload, version) {
        Ok(m) => {
            assert_eq!(
                m.to_bytes(version).expect("own version"),
                payload,
                "lossless"
            );
            let up = m.to_bytes(6).expect("upgrade never drops a field");
            let back = Mat0::parse(&up, 6).expect("upgraded payload parses");
            assert_eq!(
                (back.metadata(), back.phases(), back.blocks()),
                (m.metadata(), m.phases(), m.blocks())
            );
            for block in 0..m.blocks().len() {
                for time_ms in [0, 1, 999, 65_535, u64::MAX] {
                    let clock = MaterialClock {
                        time_ms,
                        random_offset_ms: time_ms.rotate_left(7),
                    };
                    if let Ok(s) = select_phase(&m, block, clock, &ModeMapping::PROJECT_DEFAULT) {
                        let n = m.phases().len();
                        assert!(usize::from(s.phase_a) < n && usize::from(s.phase_b) < n);
                        assert!(s.span_ms == 0 || s.elapsed_ms < s.span_ms);
                        let t = s.t();
                        assert!((0.0..1.0).contains(&t));
                    }
                }
            }
        }
        Err(e) => assert!(e.to_string().starts_with("MAT0 +0x"), "{e}"),
    }
});
