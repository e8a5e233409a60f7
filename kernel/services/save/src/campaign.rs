//! The campaign: `MISSIONS/dispatcher.ini` (FORMATS §12.6, campaign progression with a
//! `[COMPLETE]` section) and the player's progress through it.
//!
//! Beyond the `[COMPLETE]` section nothing of the original's file is recovered (§16 item
//! 32), so what follows are our own rules, named as project decisions:
//!
//! * **PD-CAMPAIGN-ORDER**: the campaign's missions, in play order, are the values of
//!   `MISSION1`, `MISSION2`, … of the section `[CAMPAIGN]` (a mission as `iron3d play
//!   --mission` takes it: a directory under `MISSIONS/`). The numbers run from 1
//!   without a gap, at most [`MAX_CAMPAIGN_MISSIONS`], no mission twice; anything else is
//!   an error naming the file, the line and the key. A file without `[CAMPAIGN]` (the
//!   original's) is a game without a campaign of ours: single missions only.
//! * **PD-CAMPAIGN-COMPLETE**: `[COMPLETE]` holds `<mission> = 1` for every mission the
//!   player completed (our reading of the spec's section); other keys and values are
//!   kept as read and count as not complete.
//! * **PD-CAMPAIGN-PROGRESS**: the game directory's file is read, never written. The
//!   player's progress is a file of the same shape in the save folder
//!   ([`PROGRESS_FILE`], beside `saveslots.cfg`): the campaign's `[CAMPAIGN]` section,
//!   then `[COMPLETE]`. Progress whose `[CAMPAIGN]` is not the game's follows another
//!   campaign (another game directory) and is set aside: the player starts afresh, and
//!   the first write keeps the old file as `dispatcher.ini.bak`. The file is read and
//!   written losslessly (unknown sections and keys stay) and atomically
//!   (PD-SAVE-ATOMIC).
//! * **PD-CAMPAIGN-UNLOCK**: the first mission is open; each next one opens when the
//!   one before it is complete. [`Progress::next`] is the first mission not complete
//!   (`None`: the campaign is won).
//! * **PD-CAMPAIGN-UNDECIDED**: a mission without `Objectives.txt` can be neither won
//!   nor lost ([`Campaign::decidable`]); the player's front end counts it complete as
//!   soon as it starts, so a campaign of tours and battles never blocks on a tour.

use crate::error::SaveError;
use iron3d_config::ini::IniDocument;
use std::path::{Path, PathBuf};

/// The campaign file's path in the game directory (FORMATS §12.6).
pub const CAMPAIGN_FILE: &str = "MISSIONS/dispatcher.ini";
/// The progress file's name in the save folder (PD-CAMPAIGN-PROGRESS).
pub const PROGRESS_FILE: &str = "dispatcher.ini";
/// The campaign's section (PD-CAMPAIGN-ORDER).
pub const CAMPAIGN_SECTION: &str = "CAMPAIGN";
/// The completed missions' section (FORMATS §12.6, PD-CAMPAIGN-COMPLETE).
pub const COMPLETE_SECTION: &str = "COMPLETE";
/// The most missions a campaign lists.
pub const MAX_CAMPAIGN_MISSIONS: usize = 256;
/// The largest campaign or progress file read (bytes).
pub const MAX_CAMPAIGN_FILE: u64 = 1 << 20;

/// A campaign: its missions in play order (PD-CAMPAIGN-ORDER).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Campaign {
    missions: Vec<String>,
}

fn bad(path: &str, line: usize, why: String) -> SaveError {
    SaveError::Campaign {
        path: path.to_owned(),
        line,
        why,
    }
}

/// Reads a file of at most [`MAX_CAMPAIGN_FILE`] bytes; `None` when there is none.
fn read_bounded(path: &Path) -> Result<Option<Vec<u8>>, SaveError> {
    let io = |source| SaveError::Io {
        op: "read",
        path: path.to_path_buf(),
        source,
    };
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
        Ok(m) if !m.is_file() => {
            return Err(bad(
                &path.display().to_string(),
                0,
                "not a regular file".into(),
            ));
        }
        Ok(m) if m.len() > MAX_CAMPAIGN_FILE => {
            return Err(SaveError::TooLarge {
                path: path.to_path_buf(),
                len: m.len(),
                max: MAX_CAMPAIGN_FILE,
            });
        }
        Ok(_) => {}
    }
    std::fs::read(path).map(Some).map_err(io)
}

/// `dir/rel` with every component matched case-insensitively (game directories come
/// from a case-insensitive file system); `None` when a component is missing.
fn find_case_insensitive(dir: &Path, rel: &str) -> Option<PathBuf> {
    let mut at = dir.to_path_buf();
    for part in rel.split('/') {
        let exact = at.join(part);
        if exact.exists() {
            at = exact;
            continue;
        }
        let entry = std::fs::read_dir(&at)
            .ok()?
            .filter_map(Result::ok)
            .take(100_000)
            .find(|e| e.file_name().to_string_lossy().eq_ignore_ascii_case(part))?;
        at = entry.path();
    }
    Some(at)
}

impl Campaign {
    /// A campaign of `missions` (tests and tools).
    pub fn of(missions: Vec<String>) -> Self {
        Self { missions }
    }

    /// Reads the campaign of a dispatcher file (`origin` names it in errors).
    pub fn parse(bytes: &[u8], origin: &str) -> Result<Self, SaveError> {
        let doc = IniDocument::parse(bytes, origin).map_err(|source| SaveError::Dispatcher {
            path: origin.to_owned(),
            source,
        })?;
        Self::from_doc(&doc, origin)
    }

    fn from_doc(doc: &IniDocument, origin: &str) -> Result<Self, SaveError> {
        use iron3d_config::ini::LineKind;
        let lines = doc.lines();
        for l in lines {
            let in_campaign = l.section.is_some_and(|k| {
                matches!(&lines[k].kind, LineKind::Section(n)
                    if n.eq_ignore_ascii_case(CAMPAIGN_SECTION.as_bytes()))
            });
            if in_campaign && l.kind == LineKind::Unparsed {
                return Err(bad(
                    origin,
                    l.raw.number,
                    format!("[{CAMPAIGN_SECTION}] line is not MISSIONn=<mission>"),
                ));
            }
        }
        let mut numbered: Vec<(usize, usize, String)> = Vec::new();
        for (section, line, pair) in doc.pairs() {
            if !section.is_some_and(|s| s.eq_ignore_ascii_case(CAMPAIGN_SECTION.as_bytes())) {
                continue;
            }
            let key = String::from_utf8_lossy(&pair.key).trim().to_owned();
            let number = key
                .get(..7)
                .filter(|p| p.eq_ignore_ascii_case("MISSION"))
                .and_then(|_| key[7..].parse::<usize>().ok())
                .filter(|&n| (1..=MAX_CAMPAIGN_MISSIONS).contains(&n))
                .ok_or_else(|| {
                    bad(
                        origin,
                        line,
                        format!(
                            "key `{key}` of [{CAMPAIGN_SECTION}] is not MISSION1..MISSION{MAX_CAMPAIGN_MISSIONS}"
                        ),
                    )
                })?;
            let value = String::from_utf8_lossy(pair.unquoted()).trim().to_owned();
            if value.is_empty() || value.contains("..") || value.starts_with(['/', '\\']) {
                return Err(bad(
                    origin,
                    line,
                    format!("`{key}` names no mission under MISSIONS/: `{value}`"),
                ));
            }
            if let Some(&(_, first, _)) = numbered.iter().find(|e| e.0 == number) {
                return Err(bad(
                    origin,
                    line,
                    format!("`{key}` is given twice (first on line {first})"),
                ));
            }
            numbered.push((number, line, value));
        }
        numbered.sort();
        for (k, (n, line, _)) in numbered.iter().enumerate() {
            if *n != k + 1 {
                return Err(bad(
                    origin,
                    *line,
                    format!("MISSION{n} follows MISSION{k} with a gap (numbers run from 1)"),
                ));
            }
        }
        let mut missions: Vec<String> = Vec::with_capacity(numbered.len());
        for (n, line, m) in numbered {
            if missions.iter().any(|x| x.eq_ignore_ascii_case(&m)) {
                return Err(bad(
                    origin,
                    line,
                    format!("MISSION{n} `{m}` is already in the campaign"),
                ));
            }
            missions.push(m);
        }
        Ok(Self { missions })
    }

    /// The campaign of the game directory `game_dir` ([`CAMPAIGN_FILE`], names matched
    /// case-insensitively); an empty campaign when the file is missing.
    pub fn read(game_dir: &Path) -> Result<Self, SaveError> {
        let Some(path) = find_case_insensitive(game_dir, CAMPAIGN_FILE) else {
            return Ok(Self::default());
        };
        match read_bounded(&path)? {
            Some(bytes) => Self::parse(&bytes, &path.display().to_string()),
            None => Ok(Self::default()),
        }
    }

    /// The missions in play order.
    pub fn missions(&self) -> &[String] {
        &self.missions
    }

    /// Whether the game has no campaign of ours.
    pub fn is_empty(&self) -> bool {
        self.missions.is_empty()
    }

    /// Whether `mission` of the game directory `game_dir` can be decided: it has an
    /// `Objectives.txt` (PD-CAMPAIGN-UNDECIDED; names matched case-insensitively).
    pub fn decidable(game_dir: &Path, mission: &str) -> bool {
        let rel = format!("MISSIONS/{}/Objectives.txt", mission.replace('\\', "/"));
        find_case_insensitive(game_dir, &rel).is_some_and(|p| p.is_file())
    }

    /// Where `mission` stands in the campaign (names compare case-insensitively).
    pub fn position(&self, mission: &str) -> Option<usize> {
        self.missions
            .iter()
            .position(|m| m.eq_ignore_ascii_case(mission))
    }
}

/// The player's progress through a campaign (PD-CAMPAIGN-PROGRESS), lossless.
#[derive(Clone, Debug)]
pub struct Progress {
    doc: IniDocument,
    /// Progress of another campaign was set aside when this one was read.
    set_aside: bool,
}

impl Progress {
    /// Fresh progress through `campaign`: nothing complete.
    pub fn new(campaign: &Campaign) -> Self {
        let mut text = String::from(
            "// Iron3D-rs campaign progress (PD-CAMPAIGN-PROGRESS): the campaign followed and the\n\
             // missions completed.\n",
        );
        text.push_str(&format!("[{CAMPAIGN_SECTION}]\n"));
        for (k, m) in campaign.missions.iter().enumerate() {
            text.push_str(&format!("MISSION{}={m}\n", k + 1));
        }
        text.push_str(&format!("[{COMPLETE_SECTION}]\n"));
        let doc = IniDocument::parse(text.as_bytes(), PROGRESS_FILE)
            .unwrap_or_else(|_| unreachable!("the fresh progress file parses"));
        Self {
            doc,
            set_aside: false,
        }
    }

    /// Reads progress through `campaign` (`origin` names the bytes in errors): fresh
    /// progress when the file follows another campaign (PD-CAMPAIGN-PROGRESS).
    pub fn parse(bytes: &[u8], origin: &str, campaign: &Campaign) -> Result<Self, SaveError> {
        let doc = IniDocument::parse(bytes, origin).map_err(|source| SaveError::Dispatcher {
            path: origin.to_owned(),
            source,
        })?;
        let followed = Campaign::from_doc(&doc, origin)?;
        if followed != *campaign {
            return Ok(Self {
                set_aside: true,
                ..Self::new(campaign)
            });
        }
        Ok(Self {
            doc,
            set_aside: false,
        })
    }

    /// The progress kept in the save folder `dir` ([`PROGRESS_FILE`]): fresh progress
    /// when there is none or it follows another campaign.
    pub fn read(dir: &Path, campaign: &Campaign) -> Result<Self, SaveError> {
        let path = dir.join(PROGRESS_FILE);
        match read_bounded(&path)? {
            Some(bytes) => Self::parse(&bytes, &path.display().to_string(), campaign),
            None => Ok(Self::new(campaign)),
        }
    }

    /// Whether reading set aside progress of another campaign.
    pub fn set_aside(&self) -> bool {
        self.set_aside
    }

    /// Whether `mission` is complete (PD-CAMPAIGN-COMPLETE; case-insensitive).
    pub fn is_complete(&self, mission: &str) -> bool {
        self.doc.pairs().any(|(section, _, pair)| {
            section.is_some_and(|s| s.eq_ignore_ascii_case(COMPLETE_SECTION.as_bytes()))
                && pair.key.eq_ignore_ascii_case(mission.as_bytes())
                && pair.unquoted().trim_ascii() == b"1"
        })
    }

    /// Marks `mission` complete (a key already there keeps its spelling).
    pub fn complete(&mut self, mission: &str) {
        let is_complete = |s: &[u8]| s.eq_ignore_ascii_case(COMPLETE_SECTION.as_bytes());
        let section = self
            .doc
            .sections()
            .into_iter()
            .find(|s| is_complete(s))
            .map_or_else(
                || COMPLETE_SECTION.to_owned(),
                |s| String::from_utf8_lossy(s).into_owned(),
            );
        let key = self
            .doc
            .pairs()
            .find(|(s, _, p)| {
                s.is_some_and(is_complete) && p.key.eq_ignore_ascii_case(mission.as_bytes())
            })
            .map_or_else(
                || mission.to_owned(),
                |(_, _, p)| String::from_utf8_lossy(&p.key).into_owned(),
            );
        self.doc.set(Some(&section), &key, b"1");
    }

    /// The first mission of `campaign` not complete (`None`: the campaign is won).
    pub fn next<'c>(&self, campaign: &'c Campaign) -> Option<&'c str> {
        campaign
            .missions
            .iter()
            .find(|m| !self.is_complete(m))
            .map(String::as_str)
    }

    /// Whether each mission of `campaign` is open (PD-CAMPAIGN-UNLOCK).
    pub fn unlocked(&self, campaign: &Campaign) -> Vec<bool> {
        let mut open = true;
        campaign
            .missions
            .iter()
            .map(|m| {
                let this = open;
                open = self.is_complete(m);
                this
            })
            .collect()
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.doc.to_bytes()
    }

    /// Writes the progress into the save folder `dir` atomically, the previous file
    /// kept as `dispatcher.ini.bak` (the folder is made when missing).
    pub fn write(&self, dir: &Path) -> Result<(), SaveError> {
        crate::write::stage_in_folder(dir, PROGRESS_FILE, &self.to_bytes())?.commit()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    const DEMO: &[u8] =
        b"[CAMPAIGN]\r\nMISSION1=DEMO1\r\nMISSION2=DEMO2\r\nMISSION3=BATTLE\r\n[COMPLETE]\r\n";

    #[test]
    fn the_campaign_is_its_numbered_missions_in_order() {
        let c = Campaign::parse(
            b"[COMPLETE]\nX=1\n[campaign]\nMission2=B\nMISSION1 = \"A\"\nMISSION3=Campaign.00/Mission.01\n",
            "d",
        )
        .unwrap();
        assert_eq!(c.missions(), ["A", "B", "Campaign.00/Mission.01"]);
        assert_eq!(c.position("b"), Some(1));
        // The original's file: a [COMPLETE] section and no campaign of ours.
        assert!(Campaign::parse(b"[COMPLETE]\n", "d").unwrap().is_empty());
    }

    #[test]
    fn a_bad_campaign_names_its_line_and_key() {
        for (text, line, word) in [
            (&b"[CAMPAIGN]\nMISSION1=A\nMISSION3=C\n"[..], 3, "gap"),
            (b"[CAMPAIGN]\nMISSION1=A\nMISSION1=B\n", 3, "twice"),
            (b"[CAMPAIGN]\nLEVEL1=A\n", 2, "LEVEL1"),
            (b"[CAMPAIGN]\nMISSION0=A\n", 2, "MISSION0"),
            (b"[CAMPAIGN]\nMISSION1=\n", 2, "not MISSIONn"),
            (b"[CAMPAIGN]\nMISSION1=\"\"\n", 2, "names no mission"),
            (b"[CAMPAIGN]\nMISSION1=../x\n", 2, "names no mission"),
            (b"[CAMPAIGN]\nMISSION1=A\nMISSION2=a\n", 3, "already"),
            (b"[CAMPAIGN]\nMISSION999=A\n", 2, "MISSION999"),
        ] {
            let e =
                Campaign::parse(text, "dispatcher.ini").expect_err(&String::from_utf8_lossy(text));
            match &e {
                SaveError::Campaign { line: l, why, .. } => {
                    assert_eq!(*l, line, "{e}");
                    assert!(why.contains(word), "{e}");
                }
                other => panic!("{other}"),
            }
            assert!(e.to_string().contains("dispatcher.ini"), "{e}");
        }
    }

    #[test]
    fn missions_open_one_after_the_other() {
        let c = Campaign::parse(DEMO, "d").unwrap();
        let mut p = Progress::new(&c);
        assert_eq!(p.unlocked(&c), [true, false, false]);
        assert_eq!(p.next(&c), Some("DEMO1"));
        p.complete("DEMO1");
        assert_eq!(p.unlocked(&c), [true, true, false]);
        assert_eq!(p.next(&c), Some("DEMO2"));
        p.complete("demo2");
        p.complete("BATTLE");
        assert_eq!(p.unlocked(&c), [true, true, true]);
        assert_eq!(p.next(&c), None);
    }

    #[test]
    fn progress_round_trips_keeps_what_it_does_not_know_and_sets_another_campaign_aside() {
        let c = Campaign::parse(DEMO, "d").unwrap();
        let text = b"; mine\n[CAMPAIGN]\nMISSION1=DEMO1\nMISSION2=DEMO2\nMISSION3=BATTLE\n[COMPLETE]\nDEMO1=1\nDEMO2=0\nNOTE=kept\n[EXTRA]\nk=v\n";
        let p = Progress::parse(text, "p", &c).unwrap();
        assert!(!p.set_aside());
        assert!(p.is_complete("DEMO1") && !p.is_complete("DEMO2"));
        assert_eq!(p.to_bytes(), text.to_vec(), "lossless");
        let other = Campaign::of(vec!["X".into()]);
        let q = Progress::parse(text, "p", &other).unwrap();
        assert!(q.set_aside());
        assert_eq!(q.next(&other), Some("X"));
    }

    #[test]
    fn progress_is_written_atomically_with_a_backup_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let c = Campaign::parse(DEMO, "d").unwrap();
        let mut p = Progress::read(dir.path(), &c).unwrap();
        assert_eq!(p.next(&c), Some("DEMO1"));
        p.complete("DEMO1");
        p.write(dir.path()).unwrap();
        p.complete("DEMO2");
        p.write(dir.path()).unwrap();
        let back = Progress::read(dir.path(), &c).unwrap();
        assert_eq!(back.next(&c), Some("BATTLE"));
        let bak = std::fs::read(dir.path().join("dispatcher.ini.bak")).unwrap();
        let old = Progress::parse(&bak, "bak", &c).unwrap();
        assert_eq!(old.next(&c), Some("DEMO2"));
    }

    #[test]
    fn the_game_directorys_file_is_found_whatever_its_case() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("Missions")).unwrap();
        std::fs::write(dir.path().join("Missions/DISPATCHER.INI"), DEMO).unwrap();
        assert_eq!(Campaign::read(dir.path()).unwrap().missions().len(), 3);
        let none = tempfile::tempdir().unwrap();
        assert!(Campaign::read(none.path()).unwrap().is_empty());
        // A directory where the file should be is refused by name.
        std::fs::create_dir_all(none.path().join("MISSIONS/dispatcher.ini")).unwrap();
        let e = Campaign::read(none.path()).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        // PD-CAMPAIGN-UNDECIDED: only a mission with objectives can be decided.
        std::fs::create_dir_all(dir.path().join("Missions/Battle")).unwrap();
        std::fs::write(
            dir.path().join("Missions/Battle/OBJECTIVES.TXT"),
            b"win destroy 1\n",
        )
        .unwrap();
        assert!(Campaign::decidable(dir.path(), "BATTLE"));
        assert!(!Campaign::decidable(dir.path(), "DEMO1"));
    }
}
