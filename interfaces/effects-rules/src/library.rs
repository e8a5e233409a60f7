//! The FXID entries the effects plugin starts: archives read once through the host
//! (RsLi or NRes, told apart by their magic), entries found by ASCII case-insensitive
//! name, each effect parsed once and kept.

use crate::EffectsError;
use iron3d_fxid::Fxid;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;

/// One archive as read.
enum Archive {
    /// Not readable: the reason.
    Missing(String),
    /// An RsLi archive and its entry indices by upper-case name (lowest index wins).
    Rsli {
        bytes: Vec<u8>,
        names: BTreeMap<String, usize>,
    },
    /// An NRes archive and its payload ranges by upper-case name (first wins).
    Nres {
        bytes: Vec<u8>,
        names: BTreeMap<String, Range<usize>>,
    },
}

impl Archive {
    fn parse(name: &str, bytes: Vec<u8>) -> Result<Archive, EffectsError> {
        let bad = |why: String| EffectsError::Archive {
            archive: name.to_owned(),
            why,
        };
        if bytes.starts_with(&iron3d_nres::MAGIC) {
            let a = iron3d_nres::Nres::parse(&bytes).map_err(|e| bad(format!("NRes: {e}")))?;
            let mut names = BTreeMap::new();
            for e in a.entries() {
                let n = String::from_utf8_lossy(e.name()).to_ascii_uppercase();
                names.entry(n).or_insert_with(|| e.data_range());
            }
            Ok(Archive::Nres { bytes, names })
        } else if bytes.starts_with(b"NL") {
            let a = iron3d_rsli::Rsli::parse(&bytes).map_err(|e| bad(format!("RsLi: {e}")))?;
            let mut names = BTreeMap::new();
            for e in a.entries() {
                let n = String::from_utf8_lossy(e.name()).to_ascii_uppercase();
                names.entry(n).or_insert(e.index());
            }
            Ok(Archive::Rsli { bytes, names })
        } else {
            Err(bad("neither an RsLi (NL) nor an NRes archive".into()))
        }
    }

    /// The entry's bytes, `Ok(None)` when the archive has no such entry.
    fn read(&self, archive: &str, entry: &str) -> Result<Option<Vec<u8>>, EffectsError> {
        let key = entry.to_ascii_uppercase();
        match self {
            Archive::Missing(why) => Err(EffectsError::Archive {
                archive: archive.to_owned(),
                why: why.clone(),
            }),
            Archive::Nres { bytes, names } => Ok(names
                .get(&key)
                .map(|r| bytes.get(r.clone()).unwrap_or(&[]).to_vec())),
            Archive::Rsli { bytes, names } => {
                let Some(&index) = names.get(&key) else {
                    return Ok(None);
                };
                let a = iron3d_rsli::Rsli::parse(bytes).map_err(|e| EffectsError::Archive {
                    archive: archive.to_owned(),
                    why: format!("RsLi: {e}"),
                })?;
                let bad = |why: String| EffectsError::Entry {
                    archive: archive.to_owned(),
                    entry: entry.to_owned(),
                    why,
                };
                a.entry(index)
                    .ok_or_else(|| bad(format!("RsLi entry {index} vanished")))?
                    .decode()
                    .map(Some)
                    .map_err(|e| bad(e.to_string()))
            }
        }
    }
}

/// The archive an effect event that names none starts its effect from (the demo's
/// and the original game's effects archive).
pub const DEFAULT_ARCHIVE: &str = "effects.rlb";

/// Archives and parsed effects, by upper-case name.
#[derive(Default)]
pub struct Library {
    archives: BTreeMap<String, Archive>,
    effects: BTreeMap<(String, String), Result<Arc<Fxid>, EffectsError>>,
}

impl Library {
    /// Whether archive `name` was offered already (read or not).
    pub fn has_archive(&self, name: &str) -> bool {
        self.archives.contains_key(&name.to_ascii_uppercase())
    }

    /// Takes archive `name`'s bytes (`Err(why)`: not available); a second offer of the
    /// same name is ignored. An archive that does not parse makes every effect of it an
    /// error naming the archive and why.
    pub fn offer_archive(&mut self, name: &str, bytes: Result<Vec<u8>, String>) {
        let key = name.to_ascii_uppercase();
        if self.archives.contains_key(&key) {
            return;
        }
        let archive = match bytes {
            Ok(b) => Archive::parse(name, b).unwrap_or_else(|e| Archive::Missing(e.to_string())),
            Err(why) => Archive::Missing(why),
        };
        self.archives.insert(key, archive);
    }

    /// Effect `entry` of `archive`, parsed once (errors are kept too: a broken effect is
    /// reported once, then refused quietly by the caller).
    pub fn effect(&mut self, archive: &str, entry: &str) -> Result<Arc<Fxid>, EffectsError> {
        let key = (archive.to_ascii_uppercase(), entry.to_ascii_uppercase());
        if let Some(r) = self.effects.get(&key) {
            return r.clone();
        }
        let r = self.load(archive, entry);
        self.effects.insert(key, r.clone());
        r
    }

    /// Whether effect `entry` of `archive` was looked up before (its error, if any, was
    /// reported then).
    pub fn seen(&self, archive: &str, entry: &str) -> bool {
        self.effects
            .contains_key(&(archive.to_ascii_uppercase(), entry.to_ascii_uppercase()))
    }

    fn load(&self, archive: &str, entry: &str) -> Result<Arc<Fxid>, EffectsError> {
        let a = self
            .archives
            .get(&archive.to_ascii_uppercase())
            .ok_or_else(|| EffectsError::Archive {
                archive: archive.to_owned(),
                why: "not read".into(),
            })?;
        let bytes = a
            .read(archive, entry)?
            .ok_or_else(|| EffectsError::NoEntry {
                archive: archive.to_owned(),
                entry: entry.to_owned(),
            })?;
        Fxid::parse(&bytes)
            .map(Arc::new)
            .map_err(|source| EffectsError::Fxid {
                archive: archive.to_owned(),
                entry: entry.to_owned(),
                source: Arc::new(source),
            })
    }
}
