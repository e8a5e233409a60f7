//! An in-memory registry and archive index implementing [`PrototypeSource`] and
//! [`ResourceProbe`]: for tests, tools and callers that already hold the payloads.

use crate::error::{Presence, SourceError};
use crate::name::fold_key;
use crate::objref::ObjectRefList;
use crate::resolve::{PrototypeSource, ResourceProbe};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// Prototype payloads and archive contents, keyed by their ASCII upper-case fold (so
/// lookups ignore ASCII case, FORMATS §1.5). Ordered maps only: deterministic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryRegistry {
    prototypes: BTreeMap<Vec<u8>, Vec<u8>>,
    archives: BTreeMap<Vec<u8>, BTreeSet<Vec<u8>>>,
}

impl MemoryRegistry {
    /// An empty registry with no archives.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores a raw `objects.rlb` payload under `key`; the first payload stored under a
    /// key (ASCII case ignored) wins, like a first-match lookup. Returns whether it was
    /// stored.
    pub fn insert_payload(&mut self, key: &[u8], payload: Vec<u8>) -> bool {
        let folded = fold_key(key);
        if self.prototypes.contains_key(&folded) {
            return false;
        }
        self.prototypes.insert(folded, payload);
        true
    }

    /// Stores an encoded reference list under `key` (see [`MemoryRegistry::insert_payload`]).
    pub fn insert_refs(&mut self, key: &[u8], refs: &ObjectRefList) -> bool {
        self.insert_payload(key, refs.to_bytes())
    }

    /// Declares an archive (possibly empty).
    pub fn insert_archive(&mut self, archive: &[u8]) {
        self.archives.entry(fold_key(archive)).or_default();
    }

    /// Declares `resource` inside `archive` (declaring the archive too).
    pub fn insert_resource(&mut self, archive: &[u8], resource: &[u8]) {
        self.archives
            .entry(fold_key(archive))
            .or_default()
            .insert(fold_key(resource));
    }

    /// Number of prototypes.
    pub fn len(&self) -> usize {
        self.prototypes.len()
    }

    /// Whether no prototype is stored.
    pub fn is_empty(&self) -> bool {
        self.prototypes.is_empty()
    }
}

impl PrototypeSource for MemoryRegistry {
    fn payload(&self, key: &[u8]) -> Result<Option<Cow<'_, [u8]>>, SourceError> {
        Ok(self
            .prototypes
            .get(&fold_key(key))
            .map(|p| Cow::Borrowed(p.as_slice())))
    }
}

impl ResourceProbe for MemoryRegistry {
    fn probe(&self, archive: &[u8], resource: &[u8]) -> Result<Presence, SourceError> {
        Ok(match self.archives.get(&fold_key(archive)) {
            None => Presence::ArchiveMissing,
            Some(entries) if entries.contains(&fold_key(resource)) => Presence::Present,
            Some(_) => Presence::EntryMissing,
        })
    }
}
