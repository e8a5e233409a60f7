//! Sort mapping and lookup (FORMATS.md §3.7).
//!
//! ```text
//! sort_to_original[k] = original index of the k-th name in ascending order
//! order: unsigned bytes of the name up to its NUL, a shorter prefix first;
//!        equal names keep their original relative order (stable)
//! lookup: query -> upper-case ASCII -> 12-byte key -> binary search over k
//! ```

use crate::error::{RsliError, escape_name};
use crate::header::HEADER_SIZE;
use crate::table::{ENTRY_SIZE, EntryRecord, NAME_SIZE};
use std::cmp::Ordering;

/// Where the sorted order used for lookup came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortSource {
    /// The stored `sort_to_original` values (header flag `0xABBA`), validated.
    Presorted,
    /// Rebuilt by the reader because the archive is not presorted.
    Rebuilt,
    /// The stored mapping is invalid and [`crate::Quirk::SortTableLinearLookup`] is on:
    /// lookups scan linearly in original order.
    Linear,
}

/// Stable order of the original indices by name (the reader's rebuild and the writer's
/// mapping use the same rule).
pub(crate) fn build_order<'a>(names: impl ExactSizeIterator<Item = &'a [u8]>) -> Vec<u16> {
    let names: Vec<&[u8]> = names.collect();
    // Entry counts come from an i16 (or are checked by the writer), so indices fit u16.
    let mut order: Vec<u16> = (0..names.len())
        .map(|i| u16::try_from(i).unwrap_or(u16::MAX))
        .collect();
    order.sort_by(|&a, &b| names[usize::from(a)].cmp(names[usize::from(b)]));
    order
}

/// Validates a presorted table: every stored value names an entry, no value repeats,
/// and the names it yields never decrease (§3.9 check 3). Returns the mapping.
pub(crate) fn validate_presorted(records: &[EntryRecord]) -> Result<Vec<u16>, RsliError> {
    let count = records.len();
    let mut first_use = vec![usize::MAX; count];
    let mut order = Vec::with_capacity(count);
    for (slot, r) in records.iter().enumerate() {
        let value = r.sort_field();
        let offset = HEADER_SIZE + slot * ENTRY_SIZE + 0x12;
        let idx = usize::try_from(value).ok().filter(|&i| i < count).ok_or(
            RsliError::SortIndexOutOfRange {
                slot,
                offset,
                value,
                count,
            },
        )?;
        if first_use[idx] != usize::MAX {
            return Err(RsliError::SortIndexDuplicate {
                slot,
                offset,
                value: value as u16,
                first: first_use[idx],
            });
        }
        first_use[idx] = slot;
        // idx < count <= 32767.
        order.push(idx as u16);
    }
    for slot in 1..count {
        let prev = records[usize::from(order[slot - 1])].name();
        let cur = records[usize::from(order[slot])].name();
        if cur < prev {
            return Err(RsliError::SortNotOrdered {
                slot,
                index: usize::from(order[slot]),
                name: escape_name(cur),
                prev_name: escape_name(prev),
            });
        }
    }
    Ok(order)
}

/// The lookup key for a query: upper-case ASCII, at most 12 bytes, no NUL. `None` when
/// the query cannot name any entry (too long or containing NUL).
pub(crate) fn query_key(query: &[u8]) -> Option<([u8; NAME_SIZE], usize)> {
    if query.len() > NAME_SIZE || query.contains(&0) {
        return None;
    }
    let mut key = [0u8; NAME_SIZE];
    for (k, &b) in key.iter_mut().zip(query) {
        *k = b.to_ascii_uppercase();
    }
    Some((key, query.len()))
}

/// Binary search of `key` over `order`; among equal names returns the lowest original
/// index.
pub(crate) fn binary_search(records: &[EntryRecord], order: &[u16], key: &[u8]) -> Option<usize> {
    let name_at = |k: usize| records[usize::from(order[k])].name();
    let start =
        order.partition_point(|&i| records[usize::from(i)].name().cmp(key) == Ordering::Less);
    (start..order.len())
        .take_while(|&k| name_at(k) == key)
        .map(|k| usize::from(order[k]))
        .min()
}

/// Linear scan in original order for an exact name match.
pub(crate) fn linear_search(records: &[EntryRecord], key: &[u8]) -> Option<usize> {
    records.iter().position(|r| r.name() == key)
}
