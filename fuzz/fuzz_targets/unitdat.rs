//! Fuzz target: the unit DAT readers (strict and compatible) must return `Ok` or a located
//! error for any bytes, never panic; whatever they accept must re-serialise byte for byte
//! (`to_bytes() == input`), and compatible mode may differ from strict only by listing
//! the tolerated record checks as diagnostics.
#![no_main]

use iron3d_unitdat::{Check, DAT_RECORD_SIZE, ReadMode, UnitDat, UnitRecord};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let strict = UnitDat::parse(data);
    let compat = UnitDat::parse_with(data, ReadMode::Compatible);
    match (&strict, &compat) {
        (Ok(s), Ok(c)) => {
            assert!(c.diagnostics.is_empty());
            assert_eq!(s, &c.dat);
        }
        (Err(e), Ok(c)) => {
            assert!(
                !c.diagnostics.is_empty(),
                "compatible accepted silently: {e}"
            );
            assert!(
                c.diagnostics
                    .iter()
                    .all(|d| Check::DAT_COMPATIBLE_TOLERATES.contains(&d.check()))
            );
            assert_eq!(c.diagnostics[0].to_string(), e.to_string());
        }
        (Ok(_), Err(e)) => panic!("strict accepted what compatible refused: {e}"),
        (Err(s), Err(c)) => {
            assert_eq!(s.to_string(), c.to_string());
            assert!(Check::DAT_READ_CHECKS.contains(&s.check()), "{s}");
            assert!(
                s.to_string().starts_with(&format!("[{}]", s.check())),
                "{s}"
            );
            assert!(s.offset().is_some_and(|o| o <= data.len() as u64));
        }
    }
    if let Ok(c) = compat {
        assert_eq!(c.dat.encoded_len(), data.len());
        assert_eq!(
            c.dat.to_bytes(),
            data,
            "accepted input re-serialises byte for byte"
        );
        for (i, r) in c.dat.records.iter().enumerate() {
            let at = 8 + i * DAT_RECORD_SIZE;
            assert_eq!(&r.to_bytes()[..], &data[at..at + DAT_RECORD_SIZE]);
            assert_eq!(UnitRecord::from_bytes(&r.to_bytes()), *r);
        }
    }
});
