//! Invariant checks shared by the fuzz targets and the corpus tests: parse, and whatever
//! parses must re-serialise byte-identically (SWAV: and decode without panicking).

use crate::{Ctld, SoundLoad, Wave};

/// Outcome of one check: `Ok(true)` parsed and held, `Ok(false)` rejected cleanly,
/// `Err` an invariant violation (a bug).
pub type CheckResult = Result<bool, String>;

/// CTLD: parse; on success `to_bytes() == data`.
pub fn ctld(data: &[u8]) -> CheckResult {
    match Ctld::parse(data) {
        Err(_) => Ok(false),
        Ok(c) if c.to_bytes() == data => Ok(true),
        Ok(_) => Err("CTLD re-serialisation differs".into()),
    }
}

/// SWAV: parse; on success `to_bytes() == data` and decoding returns; `SoundLoad`
/// classification agrees with parse + decode.
pub fn swav(data: &[u8]) -> CheckResult {
    let load = SoundLoad::from_entry(Some(data));
    match Wave::parse(data) {
        Err(_) => {
            if data.is_empty() == matches!(load, SoundLoad::EntryEmpty) {
                Ok(false)
            } else {
                Err("SoundLoad disagrees with Wave::parse".into())
            }
        }
        Ok(w) => {
            if w.to_bytes() != data {
                return Err("SWAV re-serialisation differs".into());
            }
            let decoded = w.decode();
            match (&decoded, &load) {
                (Ok(d), SoundLoad::DecodedSample(e)) if d == e => Ok(true),
                (Err(_), SoundLoad::WaveInvalid(_)) => Ok(true),
                _ => Err("SoundLoad disagrees with decode".into()),
            }
        }
    }
}
