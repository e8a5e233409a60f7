//! `objects.rlb` entry payloads (FORMATS §4.2, tome III "Реестр объектов"): arrays of
//! `ObjectRef64`, read strictly, written losslessly, authored in code.
//!
//! ```text
//! payload = ObjectRef64 × N          (len % 64 == 0, checked before any record is read)
//!
//! ObjectRef64 (64):
//!  +0x00 char archive_name[32]   confirmed; "objects.rlb" = parent prototype reference
//!  +0x20 char resource_name[32]  confirmed; *.msh, *.bas, *.ctl, *.cpt, *.ndp, *.wea, or
//!                                 the parent's prototype key
//! ```
//!
//! Both values end at the first NUL (the whole field when there is none); the tails are
//! kept. Record order is significant.

use crate::dat::OBJECTS_RLB;
use crate::error::{Field, UnitDatError};
use crate::name::{Name32, array_at};

/// Size of one `ObjectRef64`.
pub const OBJECT_REF_SIZE: usize = 64;

/// One reference of a prototype: an archive and a resource in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectRef {
    /// `+0x00` archive (`static.rlb`, `fortif.rlb`, … or `objects.rlb` for a parent).
    pub archive_name: Name32,
    /// `+0x20` resource in that archive, or the parent prototype key.
    pub resource_name: Name32,
}

impl ObjectRef {
    /// Authors a reference; both values are 0..=31 bytes without NUL, written as
    /// `bytes + NUL + zero fill`.
    pub fn new(archive: &[u8], resource: &[u8]) -> Result<Self, UnitDatError> {
        Ok(Self {
            archive_name: Name32::new_for(Field::ArchiveName, archive)?,
            resource_name: Name32::new_for(Field::ResourceName, resource)?,
        })
    }

    /// Authors a parent reference: archive `objects.rlb`, resource = the parent's key.
    pub fn parent(key: &[u8]) -> Result<Self, UnitDatError> {
        Self::new(OBJECTS_RLB, key)
    }

    /// Decodes 64 bytes (every byte pattern is a reference).
    pub fn from_bytes(bytes: &[u8; OBJECT_REF_SIZE]) -> Self {
        let name = |at| Name32::from_raw(array_at(bytes, at).unwrap_or([0; 32]));
        Self {
            archive_name: name(Field::ArchiveName.offset()),
            resource_name: name(Field::ResourceName.offset()),
        }
    }

    /// Encodes the 64 bytes, tails included.
    pub fn to_bytes(&self) -> [u8; OBJECT_REF_SIZE] {
        let mut out = [0u8; OBJECT_REF_SIZE];
        out[..32].copy_from_slice(self.archive_name.raw());
        out[32..].copy_from_slice(self.resource_name.raw());
        out
    }

    /// The archive value (before the NUL).
    pub fn archive(&self) -> &[u8] {
        self.archive_name.value()
    }

    /// The resource value (before the NUL).
    pub fn resource(&self) -> &[u8] {
        self.resource_name.value()
    }

    /// Whether this names a parent prototype: the archive is `objects.rlb`, ASCII case
    /// ignored.
    pub fn is_parent(&self) -> bool {
        self.archive_name.value_eq_ignore_case(OBJECTS_RLB)
    }
}

/// Checks that `payload` is whole records (FORMATS §4.2) and returns the record count;
/// nothing is read or allocated before this passes.
pub fn object_ref_count(payload: &[u8]) -> Result<usize, UnitDatError> {
    let count = payload.len() / OBJECT_REF_SIZE;
    let remainder = payload.len() % OBJECT_REF_SIZE;
    if remainder != 0 {
        return Err(UnitDatError::PayloadSize {
            len: payload.len() as u64,
            record: count,
            offset: (count * OBJECT_REF_SIZE) as u64,
            remainder: remainder as u64,
        });
    }
    Ok(count)
}

/// Iterates over the references of a checked payload without copying it.
pub fn iter_object_refs(payload: &[u8]) -> Result<ObjectRefIter<'_>, UnitDatError> {
    object_ref_count(payload)?;
    Ok(ObjectRefIter {
        chunks: payload.chunks_exact(OBJECT_REF_SIZE),
    })
}

/// Iterator over the records of a payload already checked by [`iter_object_refs`].
#[derive(Clone, Debug)]
pub struct ObjectRefIter<'a> {
    chunks: std::slice::ChunksExact<'a, u8>,
}

impl Iterator for ObjectRefIter<'_> {
    type Item = ObjectRef;

    fn next(&mut self) -> Option<ObjectRef> {
        let chunk = self.chunks.next()?;
        chunk.first_chunk().map(ObjectRef::from_bytes)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl ExactSizeIterator for ObjectRefIter<'_> {}

/// The decoded payload of one `objects.rlb` entry. `to_bytes()` of a parsed payload is
/// the input, byte for byte.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ObjectRefList {
    /// The references in stored order.
    pub refs: Vec<ObjectRef>,
}

impl ObjectRefList {
    /// An empty list (authoring).
    pub fn new() -> Self {
        Self::default()
    }

    /// Strict read: the length is a multiple of 64, checked first.
    pub fn parse(payload: &[u8]) -> Result<Self, UnitDatError> {
        Ok(Self {
            refs: iter_object_refs(payload)?.collect(),
        })
    }

    /// Appends an authored reference.
    pub fn push(&mut self, archive: &[u8], resource: &[u8]) -> Result<&mut Self, UnitDatError> {
        self.refs.push(ObjectRef::new(archive, resource)?);
        Ok(self)
    }

    /// Appends an authored parent reference (`objects.rlb` + key).
    pub fn push_parent(&mut self, key: &[u8]) -> Result<&mut Self, UnitDatError> {
        self.refs.push(ObjectRef::parent(key)?);
        Ok(self)
    }

    /// Encodes the payload: every record as stored, in order.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.refs.len() * OBJECT_REF_SIZE);
        for r in &self.refs {
            out.extend_from_slice(&r.to_bytes());
        }
        out
    }
}

impl FromIterator<ObjectRef> for ObjectRefList {
    fn from_iter<I: IntoIterator<Item = ObjectRef>>(iter: I) -> Self {
        Self {
            refs: iter.into_iter().collect(),
        }
    }
}
