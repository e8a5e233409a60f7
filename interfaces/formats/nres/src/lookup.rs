//! The `sort_index` table (FORMATS §2.4): building it for writers, and finding a name by
//! binary search through it or, when a compatible parse found it broken, by linear scan.

use crate::name::{cmp_names, names_equal};
use std::cmp::Ordering;

/// How [`crate::Nres::find`] searches an archive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LookupMode {
    /// Binary search through a `sort_index` table validated as an ordered permutation.
    SortTable,
    /// Linear ASCII-case-insensitive scan in original order, because the table is broken
    /// ([`crate::Quirk::LinearLookupWhenSortTableBroken`] was applied).
    Linear,
}

/// Builds the table: original indices stably sorted by folded name; slot `k` receives the
/// original index of the name with rank `k`.
pub(crate) fn build_sort_table<'n>(names: impl ExactSizeIterator<Item = &'n [u8]>) -> Vec<u32> {
    let names: Vec<&[u8]> = names.collect();
    let mut order: Vec<usize> = (0..names.len()).collect();
    // `sort_by` is stable: equal names keep their original relative order.
    order.sort_by(|&a, &b| cmp_names(name_at(&names, a), name_at(&names, b)));
    order
        .into_iter()
        .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
        .collect()
}

fn name_at<'n>(names: &[&'n [u8]], i: usize) -> &'n [u8] {
    names.get(i).copied().unwrap_or(&[])
}

/// Binary search over ranks `0..count`: `original(k)` is the entry at rank `k`, `name(i)`
/// the name of entry `i`. Among equal names it returns the lowest original index.
pub(crate) fn find_sorted<'n>(
    count: usize,
    original: impl Fn(usize) -> usize,
    name: impl Fn(usize) -> &'n [u8],
    query: &[u8],
) -> Option<usize> {
    let (mut lo, mut hi) = (0usize, count);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if cmp_names(name(original(mid)), query) == Ordering::Less {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let mut best: Option<usize> = None;
    let mut k = lo;
    while k < count {
        let i = original(k);
        if cmp_names(name(i), query) != Ordering::Equal {
            break;
        }
        best = Some(best.map_or(i, |b| b.min(i)));
        k += 1;
    }
    best
}

/// Linear scan in original order; the first ASCII-case-insensitive match wins.
pub(crate) fn find_linear<'n>(
    count: usize,
    name: impl Fn(usize) -> &'n [u8],
    query: &[u8],
) -> Option<usize> {
    (0..count).find(|&i| names_equal(name(i), query))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_stable_and_folded() {
        let names: [&[u8]; 5] = [b"b", b"A", b"_x", b"a", b"B"];
        let table = build_sort_table(names.iter().copied());
        // A(1) a(3) b(0) B(4) _x(2): upper fold puts '_' after letters.
        assert_eq!(table, vec![1, 3, 0, 4, 2]);
    }

    #[test]
    fn sorted_find_returns_first_original_duplicate() {
        let names: [&[u8]; 4] = [b"dup", b"a", b"DUP", b"z"];
        // A deliberately valid but non-canonical order of the equal names: 2 before 0.
        let table = [1usize, 2, 0, 3];
        let found = find_sorted(4, |k| table[k], |i| names[i], b"Dup");
        assert_eq!(found, Some(0));
        assert_eq!(find_sorted(4, |k| table[k], |i| names[i], b"zz"), None);
        assert_eq!(find_sorted(0, |k| k, |_| b"" as &[u8], b"a"), None);
        assert_eq!(find_linear(4, |i| names[i], b"dUp"), Some(0));
    }
}
