//! The invariants the `fxid` fuzz target asserts, shared with the corpus-replay tests:
//! [`check`] panics on a violation (that is what the fuzzer detects) and returns whether
//! the input was accepted.

#![allow(
    clippy::missing_panics_doc,
    reason = "panicking on a broken invariant is the purpose"
)]

use crate::*;

/// Same checks as `fuzz/fuzz_targets/fxid.rs`; returns whether the input parsed.
pub fn check(data: &[u8]) -> bool {
    match Fxid::parse(data) {
        Ok(fx) => {
            assert_eq!(fx.encoded_len(), data.len());
            assert_eq!(
                fx.to_bytes().expect("count fits"),
                data,
                "accepted input re-serialises byte for byte"
            );
            let count = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
            assert_eq!(fx.commands.len(), count as usize);
            let mut at = HEADER_LEN;
            for (c, offset) in fx.commands.iter().zip(fx.command_offsets()) {
                assert_eq!(offset, at);
                assert_eq!(c.size(), c.opcode().size());
                assert_eq!(&data[at..at + 4], &c.word().to_le_bytes());
                assert_eq!(&data[at + 4..at + c.size()], c.body());
                if let Some(r) = c.resource() {
                    assert_eq!(&data[at + 4..at + 4 + RESOURCE_REF_LEN], &r.to_raw());
                }
                at += c.size();
            }
            assert_eq!(at, data.len());
            true
        }
        Err(e) => {
            assert!(e.to_string().starts_with('['), "{e}");
            assert!(e.offset().is_some_and(|o| o <= data.len()), "{e}");
            if let FxidError::UnknownOpcode { offset, opcode, .. } = e {
                assert_eq!(data[offset], opcode);
            }
            false
        }
    }
}
