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

/// The checks of the `campaign_file` fuzz target (a `dispatcher.ini` as a game directory
/// or a save folder could hold it): the bytes either fail with an error or read to a
/// campaign whose progress reads back losslessly, opens its missions one after the
/// other and, once a mission is completed, reads back the same; nothing else panics.
/// `true` when the bytes held a campaign.
pub fn campaign_file(data: &[u8]) -> bool {
    use crate::campaign::{Campaign, Progress};
    let Ok(campaign) = Campaign::parse(data, "fuzz") else {
        return false;
    };
    let progress = Progress::parse(data, "fuzz", &campaign)
        .unwrap_or_else(|e| panic!("its own campaign's progress reads: {e}"));
    assert!(!progress.set_aside(), "the file follows its own campaign");
    assert_eq!(progress.to_bytes(), data, "lossless");
    let open = progress.unlocked(&campaign);
    assert_eq!(open.len(), campaign.missions().len());
    assert!(open.first().is_none_or(|&o| o), "the first mission is open");
    if let Some(next) = progress.next(&campaign).map(str::to_owned) {
        let mut done = progress.clone();
        done.complete(&next);
        assert!(done.is_complete(&next));
        let back = Progress::parse(&done.to_bytes(), "fuzz", &campaign)
            .unwrap_or_else(|e| panic!("completed progress reads back: {e}"));
        assert!(back.is_complete(&next), "completion survives a write");
    }
    true
}
