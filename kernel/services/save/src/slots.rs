//! `SAVE/saveslots.cfg` (FORMATS §12.6): the ordered list of save slots the game shows —
//! metadata, not payload (**PD-SAVE-SLOTS**). One `[slot]` section per slot, in the
//! order the list shows them, with `file` (the save beside the list), `mission`, `tick`,
//! `game_time_ms` and `state_hash` as they were when the slot was written. The list is
//! read and written losslessly with the INI reader of `iron3d-config` (unknown keys and
//! sections are kept), atomically. As the spec warns (in Part 2 slots 1 and 7 are
//! marked occupied without a payload), the metadata, the physical file and the
//! payload's integrity are checked independently ([`SlotList::check`]): a slot may be
//! listed with no file, with a damaged file, or with a file that is not the save the
//! list describes (stale).

use crate::container::peek_header;
use crate::error::SaveError;
use crate::header::SaveHeader;
use crate::write::MAX_FILE_LEN;
use iron3d_config::ini::IniDocument;
use std::path::Path;

/// The slot list's file name.
pub const SLOTS_FILE: &str = "saveslots.cfg";
/// The most slots a list may hold (a list is small; more is a damaged file).
pub const MAX_SLOTS: usize = 256;
/// The largest slot list read (bytes).
pub const MAX_SLOTS_FILE: u64 = 1 << 20;

/// One slot as the list describes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SlotMeta {
    /// The slot's name (its section).
    pub slot: String,
    /// The save file, relative to the list's folder.
    pub file: String,
    /// The mission saved.
    pub mission: String,
    /// The tick saved.
    pub tick: u64,
    /// The game time saved (milliseconds).
    pub game_time_ms: u64,
    /// The state hash saved.
    pub state_hash: String,
}

/// What a slot's file says against its metadata.
#[derive(Clone, Debug, PartialEq)]
pub enum SlotStatus {
    /// The file is there, whole, and is the save the list describes.
    Ready(Box<SaveHeader>),
    /// The list names a file that is not there (occupied without a payload).
    NoFile,
    /// The file is there but damaged or foreign (why).
    Damaged(String),
    /// The file is a whole save, but not the one the list describes (another tick or
    /// state): the list is stale.
    Stale(Box<SaveHeader>),
}

impl SlotStatus {
    /// A short word for lists: `ready`, `missing`, `damaged`, `stale`.
    pub fn word(&self) -> &'static str {
        match self {
            SlotStatus::Ready(_) => "ready",
            SlotStatus::NoFile => "missing",
            SlotStatus::Damaged(_) => "damaged",
            SlotStatus::Stale(_) => "stale",
        }
    }
}

/// The slot list (lossless).
#[derive(Clone, Debug)]
pub struct SlotList {
    doc: IniDocument,
}

fn text(v: &[u8]) -> String {
    String::from_utf8_lossy(v).into_owned()
}

impl SlotList {
    /// An empty list.
    pub fn new() -> Self {
        Self::parse(
            b"// Iron3D-rs save slots: metadata of the saves beside this file, in order.\n",
            SLOTS_FILE,
        )
        .unwrap_or_else(|_| unreachable!("the empty list parses"))
    }

    /// Parses a list (`origin` names it in errors).
    pub fn parse(bytes: &[u8], origin: &str) -> Result<Self, SaveError> {
        let doc = IniDocument::parse(bytes, origin).map_err(|source| SaveError::Slots {
            path: origin.to_owned(),
            source,
        })?;
        let n = doc.sections().len();
        if n > MAX_SLOTS {
            return Err(SaveError::TooManySlots {
                path: origin.to_owned(),
                count: n,
                max: MAX_SLOTS,
            });
        }
        Ok(Self { doc })
    }

    /// The list in `dir` (an empty list when there is none).
    pub fn read(dir: &Path) -> Result<Self, SaveError> {
        let path = dir.join(SLOTS_FILE);
        let io = |source| SaveError::Io {
            op: "read",
            path: path.clone(),
            source,
        };
        match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::new()),
            Err(e) => return Err(io(e)),
            Ok(m) if m.len() > MAX_SLOTS_FILE => {
                return Err(SaveError::TooLarge {
                    path,
                    len: m.len(),
                    max: MAX_SLOTS_FILE,
                });
            }
            Ok(_) => {}
        }
        let bytes = std::fs::read(&path).map_err(io)?;
        Self::parse(&bytes, &path.display().to_string())
    }

    /// The slots in list order.
    pub fn slots(&self) -> Vec<SlotMeta> {
        self.doc
            .sections()
            .into_iter()
            .map(|s| {
                let name = text(s);
                let get = |key: &str| {
                    self.doc
                        .get(Some(&name), key)
                        .map(|(_, p)| text(p.unquoted()))
                        .unwrap_or_default()
                };
                let num = |key: &str| get(key).trim().parse::<u64>().unwrap_or(0);
                SlotMeta {
                    file: get("file"),
                    mission: get("mission"),
                    tick: num("tick"),
                    game_time_ms: num("game_time_ms"),
                    state_hash: get("state_hash"),
                    slot: name,
                }
            })
            .collect()
    }

    /// Records `header` as slot `slot` saved in `file` (a new slot goes last; an
    /// existing one keeps its place and its other keys).
    pub fn record(&mut self, slot: &str, file: &str, header: &SaveHeader) {
        let s = Some(slot);
        self.doc.set(s, "file", file.as_bytes());
        self.doc.set(s, "mission", header.mission.as_bytes());
        self.doc.set(s, "tick", header.tick.to_string().as_bytes());
        self.doc.set(
            s,
            "game_time_ms",
            header.game_time_ms.to_string().as_bytes(),
        );
        self.doc.set(s, "state_hash", header.state_hash.as_bytes());
    }

    /// The list's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.doc.to_bytes()
    }

    /// Writes the list into `dir` atomically (the folder is made when missing).
    pub fn write(&self, dir: &Path) -> Result<(), SaveError> {
        crate::write::stage_in_folder(dir, SLOTS_FILE, &self.to_bytes())?.commit_without_backup()
    }

    /// Every slot with what its file says, checked independently of the list: is the
    /// file there, is it whole, is it the save the list describes.
    pub fn check(&self, dir: &Path) -> Vec<(SlotMeta, SlotStatus)> {
        self.slots()
            .into_iter()
            .map(|m| {
                let status = slot_status(dir, &m);
                (m, status)
            })
            .collect()
    }
}

impl Default for SlotList {
    fn default() -> Self {
        Self::new()
    }
}

fn slot_status(dir: &Path, m: &SlotMeta) -> SlotStatus {
    // A slot's file lies beside the list: a name with a folder in it is not one.
    if m.file.is_empty() || m.file.contains(['/', '\\']) || m.file == ".." {
        return SlotStatus::Damaged(format!(
            "file name {:?} is not a file beside the list",
            m.file
        ));
    }
    let path = dir.join(&m.file);
    match std::fs::metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return SlotStatus::NoFile,
        Err(e) => return SlotStatus::Damaged(e.to_string()),
        Ok(md) if md.len() > MAX_FILE_LEN => {
            return SlotStatus::Damaged(format!("{} bytes, more than a save may have", md.len()));
        }
        Ok(_) => {}
    }
    let header = match std::fs::read(&path) {
        Ok(bytes) => match peek_header(&bytes) {
            Ok(h) => h,
            Err(e) => return SlotStatus::Damaged(e.to_string()),
        },
        Err(e) => return SlotStatus::Damaged(e.to_string()),
    };
    if header.tick == m.tick && header.state_hash == m.state_hash && header.mission == m.mission {
        SlotStatus::Ready(Box::new(header))
    } else {
        SlotStatus::Stale(Box::new(header))
    }
}
