//! The compatible reader: each quirk accepts exactly the failures it names, reports them
//! as diagnostics, and nothing else is relaxed.

use super::support::{field, get, put, sample};
use crate::raw::entry_off::{DATA_OFFSET, SORT_INDEX};
use crate::{Check, LookupMode, Nres, NresDocument, NresError, Quirk, ReadOptions};

const LINEAR: ReadOptions = ReadOptions::strict().with(Quirk::LinearLookupWhenSortTableBroken);
const UNALIGNED: ReadOptions = ReadOptions::strict().with(Quirk::UnalignedDataOffsets);

fn with_duplicate_sort_index() -> Vec<u8> {
    let mut bytes = sample();
    let v = get(&bytes, field(&bytes, 0, SORT_INDEX));
    let off = field(&bytes, 1, SORT_INDEX);
    put(&mut bytes, off, v);
    bytes
}

fn with_unordered_sort_table() -> Vec<u8> {
    let mut bytes = sample();
    for (slot, v) in [0u32, 1, 2, 3].into_iter().enumerate() {
        let off = field(&bytes, slot, SORT_INDEX);
        put(&mut bytes, off, v);
    }
    bytes
}

fn assert_linear_lookup_works(a: &Nres<'_>) {
    assert_eq!(a.lookup_mode(), LookupMode::Linear);
    for (i, name) in ["BETA", "Alpha", "gamma.TEX", "Delta"].iter().enumerate() {
        assert_eq!(a.find(name.as_bytes()).unwrap().index(), i, "{name}");
    }
    assert!(a.find(b"epsilon").is_none());
}

#[test]
fn linear_lookup_quirk_accepts_a_sort_table_that_is_not_a_permutation() {
    let bytes = with_duplicate_sort_index();
    let strict = Nres::parse(&bytes).unwrap_err();
    assert_eq!(strict.check(), Check::SortIndexPermutation);
    assert_eq!(
        Nres::parse_with(&bytes, UNALIGNED).unwrap_err(),
        strict,
        "other quirks do not help"
    );
    let a = Nres::parse_with(&bytes, LINEAR).unwrap();
    assert_eq!(a.diagnostics().len(), 1);
    assert_eq!(
        a.diagnostics()[0].quirk,
        Quirk::LinearLookupWhenSortTableBroken
    );
    assert_eq!(a.diagnostics()[0].tolerated, strict);
    assert!(
        a.diagnostics()[0]
            .to_string()
            .contains("linear_lookup_when_sort_table_broken")
    );
    assert_linear_lookup_works(&a);
}

#[test]
fn linear_lookup_quirk_accepts_an_unordered_sort_table() {
    let bytes = with_unordered_sort_table();
    let strict = Nres::parse(&bytes).unwrap_err();
    assert_eq!(strict.check(), Check::SortOrder);
    let a = Nres::parse_with(&bytes, ReadOptions::compatible()).unwrap();
    assert_eq!(a.diagnostics()[0].tolerated, strict);
    assert_linear_lookup_works(&a);
}

#[test]
fn linear_lookup_quirk_keeps_out_of_range_sort_index_fatal() {
    let mut bytes = with_duplicate_sort_index();
    let off = field(&bytes, 3, SORT_INDEX);
    put(&mut bytes, off, 99);
    let err = Nres::parse_with(&bytes, ReadOptions::compatible()).unwrap_err();
    assert!(
        matches!(err, NresError::SortIndexOutOfRange { value: 99, .. }),
        "{err}"
    );
}

#[test]
fn linear_lookup_returns_first_duplicate_in_original_order() {
    let mut bytes = sample();
    // Rename entry 3 ("delta") to "ALPHA": a duplicate of entry 1, table now unordered.
    let off = field(&bytes, 3, crate::raw::entry_off::NAME);
    bytes[off..off + 6].copy_from_slice(b"ALPHA\0");
    let a = Nres::parse_with(&bytes, LINEAR).unwrap();
    assert_eq!(a.find(b"alpha").unwrap().index(), 1);
}

#[test]
fn unaligned_quirk_accepts_unaligned_payloads_with_one_diagnostic_each() {
    let mut bytes = sample();
    put(&mut bytes, field(&sample(), 0, DATA_OFFSET), 17);
    put(&mut bytes, field(&sample(), 3, DATA_OFFSET), 33);
    let strict = Nres::parse(&bytes).unwrap_err();
    assert_eq!(strict.check(), Check::DataAlignment);
    assert_eq!(Nres::parse_with(&bytes, LINEAR).unwrap_err(), strict);
    let a = Nres::parse_with(&bytes, UNALIGNED).unwrap();
    let d: Vec<_> = a
        .diagnostics()
        .iter()
        .map(|d| (d.quirk, d.tolerated.entry().unwrap().index))
        .collect();
    assert_eq!(
        d,
        [
            (Quirk::UnalignedDataOffsets, 0),
            (Quirk::UnalignedDataOffsets, 3)
        ]
    );
    assert_eq!(a.entry(0).unwrap().data(), &bytes[17..22]);
    assert_eq!(a.lookup_mode(), LookupMode::SortTable);
}

#[test]
fn compatible_parse_of_a_valid_archive_reports_nothing() {
    let bytes = sample();
    let a = Nres::parse_with(&bytes, ReadOptions::compatible()).unwrap();
    assert!(a.diagnostics().is_empty());
    assert_eq!(a.lookup_mode(), LookupMode::SortTable);
}

#[test]
fn quirky_inputs_roundtrip_losslessly_and_stay_editable() {
    let mut unaligned = with_unordered_sort_table();
    put(&mut unaligned, field(&sample(), 3, DATA_OFFSET), 33);
    for bytes in [
        with_duplicate_sort_index(),
        with_unordered_sort_table(),
        unaligned,
    ] {
        let opts = ReadOptions::compatible();
        let mut doc = NresDocument::from_bytes_with(&bytes, opts).unwrap();
        assert!(!doc.diagnostics().is_empty());
        assert_eq!(doc.to_bytes(), bytes);
        doc.replace_payload(1, b"0123456789").unwrap();
        let edited = doc.to_bytes();
        let a = Nres::parse_with(&edited, opts).unwrap();
        assert_eq!(a.entry(1).unwrap().data(), b"0123456789");
        // A rename rebuilds the table, so the sort quirk is no longer needed.
        doc.rename(0, b"Renamed").unwrap();
        let renamed = doc.to_bytes();
        let a = Nres::parse_with(&renamed, UNALIGNED).unwrap();
        assert_eq!(a.lookup_mode(), LookupMode::SortTable);
        assert_eq!(a.find(b"renamed").unwrap().index(), 0);
        // Repack is canonical, hence strict.
        Nres::parse(&doc.repack().unwrap()).unwrap();
    }
}
