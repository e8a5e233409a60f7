//! One test per strict check: a valid archive from the writer, exactly one thing
//! corrupted, the exact variant, entry and offset asserted.

use super::support::{dir_off, field, get, put, sample};
use crate::raw::entry_off::{DATA_OFFSET, NAME, SIZE, SORT_INDEX};
use crate::{Check, EntryRef, Nres, NresError, ReadOptions};

fn entry(index: usize, name: &str) -> EntryRef {
    EntryRef {
        index,
        name: Some(name.as_bytes().to_vec()),
    }
}

fn strict_err(bytes: &[u8]) -> NresError {
    let err = Nres::parse(bytes).unwrap_err();
    // Every error names its check first, and the compatible reader agrees unless a quirk
    // covers the check.
    assert!(
        err.to_string().starts_with(&format!("[{}]", err.check())),
        "{err}"
    );
    let covered = crate::Quirk::ALL
        .iter()
        .any(|q| q.tolerates().contains(&err.check()));
    if !covered {
        assert_eq!(
            Nres::parse_with(bytes, ReadOptions::compatible()).unwrap_err(),
            err
        );
    }
    err
}

#[test]
fn sample_is_valid_and_canonical() {
    let bytes = sample();
    let a = Nres::parse(&bytes).unwrap();
    assert_eq!((a.len(), a.directory_offset(), bytes.len()), (4, 48, 304));
    assert!(a.diagnostics().is_empty());
    let sorts: Vec<u32> = a.entries().map(|e| e.sort_index()).collect();
    assert_eq!(sorts, [1, 0, 3, 2]);
}

#[test]
fn header_size_rejects_truncated_header() {
    let bytes = sample();
    for len in 0..16 {
        let err = strict_err(&bytes[..len]);
        assert_eq!(
            err,
            NresError::Truncated {
                need: 16,
                have: len as u64
            }
        );
        assert_eq!(err.offset(), Some(0));
    }
}

#[test]
fn truncated_archive_fails_total_size_for_every_prefix() {
    let bytes = sample();
    for len in 16..bytes.len() {
        let err = strict_err(&bytes[..len]);
        assert_eq!(
            err,
            NresError::TotalSizeMismatch {
                declared: 304,
                actual: len as u64
            },
            "prefix {len}"
        );
    }
}

#[test]
fn magic_is_checked() {
    let mut bytes = sample();
    bytes[3] = b'S';
    assert_eq!(strict_err(&bytes), NresError::BadMagic { found: *b"NReS" });
}

#[test]
fn version_is_checked() {
    let mut bytes = sample();
    put(&mut bytes, 4, 0x101);
    let err = strict_err(&bytes);
    assert_eq!(err, NresError::BadVersion { found: 0x101 });
    assert_eq!(err.offset(), Some(4));
}

#[test]
fn entry_count_must_not_be_negative() {
    let mut bytes = sample();
    put(&mut bytes, 8, u32::MAX);
    assert_eq!(
        strict_err(&bytes),
        NresError::NegativeEntryCount { found: -1 }
    );
}

#[test]
fn directory_size_overflow_is_caught_before_allocation() {
    let mut bytes = sample();
    for count in [0x0400_0000u32, 0x7FFF_FFFF] {
        put(&mut bytes, 8, count);
        assert_eq!(
            strict_err(&bytes),
            NresError::DirectorySizeOverflow { entry_count: count }
        );
    }
}

#[test]
fn total_size_must_equal_input_length() {
    let mut bytes = sample();
    bytes.push(0);
    assert_eq!(
        strict_err(&bytes),
        NresError::TotalSizeMismatch {
            declared: 304,
            actual: 305
        }
    );
}

#[test]
fn directory_offset_must_not_reach_into_header() {
    let mut bytes = sample();
    // A huge but non-overflowing count: no allocation, just a clean error.
    put(&mut bytes, 8, 0x0100_0000);
    assert_eq!(
        strict_err(&bytes),
        NresError::DirectoryOverlapsHeader {
            directory_size: 0x4000_0000,
            total_size: 304
        }
    );
    put(&mut bytes, 8, 5);
    assert_eq!(strict_err(&bytes).check(), Check::DirectoryOffset);
    // Directory of one entry would start at byte 6.
    let mut small = crate::Header::new(1, 70).as_bytes().to_vec();
    small.resize(70, 0);
    assert_eq!(
        strict_err(&small),
        NresError::DirectoryOverlapsHeader {
            directory_size: 64,
            total_size: 70
        }
    );
}

#[test]
fn data_offset_must_be_past_header() {
    let mut bytes = sample();
    let off = field(&bytes, 1, DATA_OFFSET);
    put(&mut bytes, off, 8);
    assert_eq!(
        strict_err(&bytes),
        NresError::DataOffsetInHeader {
            entry: entry(1, "alpha"),
            offset: off as u64,
            data_offset: 8
        }
    );
}

#[test]
fn data_range_must_end_before_directory() {
    let bytes = sample();
    // Size past the directory.
    let mut b = bytes.clone();
    let off = field(&b, 3, SIZE);
    put(&mut b, off, 17);
    assert_eq!(
        strict_err(&b),
        NresError::DataPastDirectory {
            entry: entry(3, "delta"),
            offset: off as u64,
            data_offset: 32,
            size: 17,
            directory_offset: 48
        }
    );
    // Offset past EOF, and an add that would overflow u32.
    for (data_offset, size) in [(0x1000, 0), (0xFFFF_FFF8, 0x10)] {
        let mut b = bytes.clone();
        put(&mut b, field(&bytes, 2, DATA_OFFSET), data_offset);
        put(&mut b, field(&bytes, 2, SIZE), size);
        let err = strict_err(&b);
        assert_eq!(err.check(), Check::DataRange);
        assert_eq!(err.entry(), Some(&entry(2, "Gamma.tex")));
        assert_eq!(err.offset(), Some(field(&bytes, 2, SIZE) as u64));
    }
}

#[test]
fn data_offset_must_be_aligned() {
    let mut bytes = sample();
    let off = field(&bytes, 0, DATA_OFFSET);
    put(&mut bytes, off, 17);
    assert_eq!(
        strict_err(&bytes),
        NresError::MisalignedDataOffset {
            entry: entry(0, "Beta"),
            offset: off as u64,
            data_offset: 17
        }
    );
}

#[test]
fn name_field_needs_a_nul() {
    let mut bytes = sample();
    let off = field(&bytes, 3, NAME);
    bytes[off..off + 36].fill(b'N');
    assert_eq!(
        strict_err(&bytes),
        NresError::NameWithoutNul {
            entry: EntryRef {
                index: 3,
                name: None
            },
            offset: off as u64
        }
    );
}

#[test]
fn name_must_not_be_empty() {
    let mut bytes = sample();
    let off = field(&bytes, 2, NAME);
    bytes[off] = 0;
    assert_eq!(
        strict_err(&bytes),
        NresError::EmptyName {
            entry: entry(2, ""),
            offset: off as u64
        }
    );
}

#[test]
fn sort_index_must_be_in_range() {
    let mut bytes = sample();
    let off = field(&bytes, 2, SORT_INDEX);
    put(&mut bytes, off, 4);
    assert_eq!(
        strict_err(&bytes),
        NresError::SortIndexOutOfRange {
            entry: entry(2, "Gamma.tex"),
            offset: off as u64,
            value: 4,
            entry_count: 4
        }
    );
}

#[test]
fn sort_index_must_be_a_permutation() {
    let mut bytes = sample();
    let off = field(&bytes, 1, SORT_INDEX);
    let first = get(&bytes, field(&bytes, 0, SORT_INDEX));
    put(&mut bytes, off, first);
    assert_eq!(
        strict_err(&bytes),
        NresError::SortIndexDuplicate {
            entry: entry(1, "alpha"),
            offset: off as u64,
            value: first,
            first: 0,
            entry_count: 4
        }
    );
}

#[test]
fn sorted_view_must_be_ordered() {
    let mut bytes = sample();
    let (s0, s1) = (field(&bytes, 0, SORT_INDEX), field(&bytes, 1, SORT_INDEX));
    let (a, b) = (get(&bytes, s0), get(&bytes, s1));
    put(&mut bytes, s0, b);
    put(&mut bytes, s1, a);
    assert_eq!(
        strict_err(&bytes),
        NresError::SortOrder {
            entry: entry(1, "alpha"),
            offset: s1 as u64,
            rank: 1,
            previous: entry(0, "Beta"),
            current: entry(1, "alpha")
        }
    );
}

#[test]
fn payloads_must_not_overlap() {
    let mut bytes = sample();
    let off = field(&bytes, 1, DATA_OFFSET);
    put(&mut bytes, off, 16);
    assert_eq!(
        strict_err(&bytes),
        NresError::PayloadOverlap {
            entry: entry(1, "alpha"),
            offset: off as u64,
            start: 16,
            end: 24,
            other: entry(0, "Beta"),
            other_start: 16,
            other_end: 21
        }
    );
}

#[test]
fn empty_payloads_never_overlap() {
    // An empty entry at the start of another payload, and one strictly inside it.
    let mut bytes = sample();
    let off = field(&bytes, 2, DATA_OFFSET);
    for inside in [24, 40] {
        put(&mut bytes, off, inside);
        let a = Nres::parse(&bytes).unwrap();
        assert_eq!(a.entry(2).unwrap().data(), b"");
    }
}

#[test]
fn empty_archive_is_valid() {
    let bytes = crate::NresWriter::new().finish().unwrap();
    assert_eq!(bytes.len(), 16);
    let a = Nres::parse(&bytes).unwrap();
    assert!(a.is_empty());
    assert!(a.find(b"x").is_none());
    assert_eq!(dir_off(&bytes), 16);
}
