//! The checks of the `save_file` fuzz target, shared with the corpus replay test: any
//! input either fails with an error (and [`crate::peek_header`] refuses it too) or parses
//! to a save whose header `peek_header` agrees with and which writes back to a file
//! that parses to the same save (every section's bytes kept); nothing else panics.

use crate::{SaveFile, peek_header};

/// Runs the checks on one input; `true` when it parsed.
pub fn save_file(data: &[u8]) -> bool {
    let parsed = SaveFile::parse(data);
    let peeked = peek_header(data);
    match parsed {
        Ok(save) => {
            let header = peeked.unwrap_or_else(|e| panic!("parse accepted, peek refused: {e}"));
            assert_eq!(header, save.header, "peek and parse agree");
            let again = save
                .to_bytes()
                .unwrap_or_else(|e| panic!("a parsed save writes back: {e}"));
            let reparsed =
                SaveFile::parse(&again).unwrap_or_else(|e| panic!("the written save parses: {e}"));
            assert_eq!(reparsed, save, "round trip");
            true
        }
        Err(_) => {
            assert!(peeked.is_err(), "peek accepted what parse refused");
            false
        }
    }
}
