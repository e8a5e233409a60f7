//! The strict validation list (FORMATS §2.6, tome III), run in full before any entry is
//! handed out; quirks of [`ReadOptions`] turn specific failures into diagnostics.
//!
//! Order: header (size, magic, version, count, directory size, total size, directory
//! offset), then per entry (data offset, data range, alignment, name NUL, empty name), then
//! the sort table (range, permutation, order), then payload overlap. The first fatal
//! failure is returned.

use crate::error::{EntryRef, NresError};
use crate::lookup::LookupMode;
use crate::name::{cmp_names, field_value};
use crate::options::{Diagnostic, Quirk, ReadOptions};
use crate::raw::{DirEntry, ENTRY_SIZE, HEADER_SIZE, Header, MAGIC, VERSION, entry_off};
use std::cmp::Ordering;

/// Payload alignment of canonical archives.
pub const ALIGNMENT: u32 = 8;

/// What a successful validation established.
#[derive(Debug)]
pub(crate) struct Validated {
    pub header: Header,
    pub count: usize,
    pub directory_offset: usize,
    pub lookup: LookupMode,
    pub diagnostics: Vec<Diagnostic>,
}

/// The 64-byte record of slot `i` of a directory slice.
pub(crate) fn record(dir: &[u8], i: usize) -> Option<&[u8; ENTRY_SIZE]> {
    dir.get(i.checked_mul(ENTRY_SIZE)?..)?
        .first_chunk::<ENTRY_SIZE>()
}

/// Runs every check; `Ok` means every entry may be handed out without further checks.
pub(crate) fn validate(data: &[u8], opts: ReadOptions) -> Result<Validated, NresError> {
    let (header, count, directory_offset) = check_header(data)?;
    let dir = data.get(directory_offset..).unwrap_or(&[]);
    let mut v = Validator {
        dir,
        dir_base: directory_offset as u64,
        count,
        opts,
        diagnostics: Vec::new(),
    };
    for i in 0..count {
        v.check_entry(i)?;
    }
    let lookup = v.check_sort_table()?;
    v.check_overlap()?;
    Ok(Validated {
        header,
        count,
        directory_offset,
        lookup,
        diagnostics: v.diagnostics,
    })
}

/// Checks 1–4; returns the header, the entry count and the directory offset. After this,
/// `count * 64` bytes of directory are known to be present (no allocation before).
fn check_header(data: &[u8]) -> Result<(Header, usize, usize), NresError> {
    let Some(head) = data.first_chunk::<HEADER_SIZE>() else {
        return Err(NresError::Truncated {
            need: HEADER_SIZE as u64,
            have: data.len() as u64,
        });
    };
    let header = Header::from_bytes(*head);
    if header.magic() != MAGIC {
        return Err(NresError::BadMagic {
            found: header.magic(),
        });
    }
    if header.version() != VERSION {
        return Err(NresError::BadVersion {
            found: header.version(),
        });
    }
    let count = u32::try_from(header.entry_count()).map_err(|_| NresError::NegativeEntryCount {
        found: header.entry_count(),
    })?;
    let directory_size = count
        .checked_mul(ENTRY_SIZE as u32)
        .ok_or(NresError::DirectorySizeOverflow { entry_count: count })?;
    let total = header.total_size();
    if u64::from(total) != data.len() as u64 {
        return Err(NresError::TotalSizeMismatch {
            declared: total,
            actual: data.len() as u64,
        });
    }
    let directory_offset = total
        .checked_sub(directory_size)
        .filter(|&off| off as usize >= HEADER_SIZE)
        .ok_or(NresError::DirectoryOverlapsHeader {
            directory_size: u64::from(directory_size),
            total_size: u64::from(total),
        })?;
    // The directory ends exactly at total_size == data.len() by construction.
    Ok((header, count as usize, directory_offset as usize))
}

struct Validator<'a> {
    dir: &'a [u8],
    dir_base: u64,
    count: usize,
    opts: ReadOptions,
    diagnostics: Vec<Diagnostic>,
}

impl Validator<'_> {
    fn rec(&self, i: usize) -> DirEntry {
        record(self.dir, i).map_or(DirEntry::from_bytes([0; ENTRY_SIZE]), |r| {
            DirEntry::from_bytes(*r)
        })
    }

    /// Byte offset in the input of field `field` of slot `i`.
    fn field_offset(&self, i: usize, field: usize) -> u64 {
        self.dir_base + (i as u64) * ENTRY_SIZE as u64 + field as u64
    }

    fn entry_ref(&self, i: usize) -> EntryRef {
        let rec = self.rec(i);
        let field = rec.name_field();
        EntryRef {
            index: i,
            name: field.contains(&0).then(|| field_value(field).to_vec()),
        }
    }

    /// Records `err` as tolerated by `quirk`, or returns it if the quirk is off.
    fn tolerate(&mut self, quirk: Quirk, err: NresError) -> Result<(), NresError> {
        if self.opts.allows(quirk) {
            self.diagnostics.push(Diagnostic {
                quirk,
                tolerated: err,
            });
            Ok(())
        } else {
            Err(err)
        }
    }

    /// Checks 5 and 6 (and alignment) for slot `i`.
    fn check_entry(&mut self, i: usize) -> Result<(), NresError> {
        let rec = self.rec(i);
        let data_offset = rec.data_offset();
        if (data_offset as usize) < HEADER_SIZE {
            return Err(NresError::DataOffsetInHeader {
                entry: self.entry_ref(i),
                offset: self.field_offset(i, entry_off::DATA_OFFSET),
                data_offset,
            });
        }
        let end = u64::from(data_offset) + u64::from(rec.size());
        if end > self.dir_base {
            return Err(NresError::DataPastDirectory {
                entry: self.entry_ref(i),
                offset: self.field_offset(i, entry_off::SIZE),
                data_offset,
                size: rec.size(),
                directory_offset: self.dir_base,
            });
        }
        if data_offset % ALIGNMENT != 0 {
            let err = NresError::MisalignedDataOffset {
                entry: self.entry_ref(i),
                offset: self.field_offset(i, entry_off::DATA_OFFSET),
                data_offset,
            };
            self.tolerate(Quirk::UnalignedDataOffsets, err)?;
        }
        let field = rec.name_field();
        match field.iter().position(|&b| b == 0) {
            None => Err(NresError::NameWithoutNul {
                entry: EntryRef {
                    index: i,
                    name: None,
                },
                offset: self.field_offset(i, entry_off::NAME),
            }),
            Some(0) => Err(NresError::EmptyName {
                entry: self.entry_ref(i),
                offset: self.field_offset(i, entry_off::NAME),
            }),
            Some(_) => Ok(()),
        }
    }

    /// Checks 7 and 8. Range failures are always fatal; permutation and order failures
    /// fall back to linear lookup under [`Quirk::LinearLookupWhenSortTableBroken`].
    fn check_sort_table(&mut self) -> Result<LookupMode, NresError> {
        let n = self.count;
        let entry_count = u32::try_from(n).unwrap_or(u32::MAX);
        // One slot per entry; `count * 64` bytes are present, so this is bounded by input.
        let mut first_slot = vec![usize::MAX; n];
        let mut broken: Option<NresError> = None;
        for k in 0..n {
            let value = self.rec(k).sort_index();
            let Some(seen) = first_slot.get_mut(value as usize) else {
                return Err(NresError::SortIndexOutOfRange {
                    entry: self.entry_ref(k),
                    offset: self.field_offset(k, entry_off::SORT_INDEX),
                    value,
                    entry_count,
                });
            };
            if *seen == usize::MAX {
                *seen = k;
            } else if broken.is_none() {
                broken = Some(NresError::SortIndexDuplicate {
                    entry: self.entry_ref(k),
                    offset: self.field_offset(k, entry_off::SORT_INDEX),
                    value,
                    first: *seen,
                    entry_count,
                });
            }
        }
        if broken.is_none() {
            broken = self.check_sort_order();
        }
        match broken {
            None => Ok(LookupMode::SortTable),
            Some(err) => {
                self.tolerate(Quirk::LinearLookupWhenSortTableBroken, err)?;
                Ok(LookupMode::Linear)
            }
        }
    }

    /// Check 8 on a table already known to be a permutation.
    fn check_sort_order(&self) -> Option<NresError> {
        let original = |k: usize| self.rec(k).sort_index() as usize;
        for k in 1..self.count {
            let (prev, cur) = (self.rec(original(k - 1)), self.rec(original(k)));
            if cmp_names(prev.name(), cur.name()) == Ordering::Greater {
                return Some(NresError::SortOrder {
                    entry: self.entry_ref(k),
                    offset: self.field_offset(k, entry_off::SORT_INDEX),
                    rank: k,
                    previous: self.entry_ref(original(k - 1)),
                    current: self.entry_ref(original(k)),
                });
            }
        }
        None
    }

    /// Check 9: non-empty payload ranges must be disjoint.
    fn check_overlap(&self) -> Result<(), NresError> {
        let mut ranges: Vec<(u64, u64, usize)> = (0..self.count)
            .map(|i| {
                let r = self.rec(i);
                let start = u64::from(r.data_offset());
                (start, start + u64::from(r.size()), i)
            })
            .filter(|&(s, e, _)| e > s)
            .collect();
        ranges.sort_unstable();
        let mut furthest: Option<(u64, u64, usize)> = None;
        for (start, end, i) in ranges {
            if let Some((o_start, o_end, o)) = furthest {
                if start < o_end {
                    return Err(NresError::PayloadOverlap {
                        entry: self.entry_ref(i),
                        offset: self.field_offset(i, entry_off::DATA_OFFSET),
                        start,
                        end,
                        other: self.entry_ref(o),
                        other_start: o_start,
                        other_end: o_end,
                    });
                }
            }
            if furthest.is_none_or(|(_, o_end, _)| end > o_end) {
                furthest = Some((start, end, i));
            }
        }
        Ok(())
    }
}
