//! The lossless editor and the canonical writer: unedited roundtrips, what each edit
//! changes and keeps, and repack.

use super::support::{messy, sample};
use crate::{Check, GapKind, NewEntry, Nres, NresDocument, NresError, NresWriter};

/// Non-payload bytes of the data region, zeros removed, in file order.
fn nonzero_gap_bytes(bytes: &[u8]) -> Vec<u8> {
    let a = Nres::parse(bytes).unwrap();
    a.gaps()
        .iter()
        .flat_map(|g| bytes[g.range.clone()].iter().copied())
        .filter(|&b| b != 0)
        .collect()
}

fn assert_others_kept(before: &[u8], after: &[u8], changed: usize) {
    let (a, b) = (Nres::parse(before).unwrap(), Nres::parse(after).unwrap());
    for (x, y) in a
        .entries()
        .zip(b.entries())
        .filter(|(x, _)| x.index() != changed)
    {
        assert_eq!(x.data(), y.data());
        assert_eq!(
            x.raw_record()[..0x38],
            y.raw_record()[..0x38],
            "all but offset/sort"
        );
        assert_eq!(x.sort_index(), y.sort_index());
    }
}

#[test]
fn unedited_documents_write_back_their_input() {
    for bytes in [
        sample(),
        messy().build(),
        NresWriter::new().finish().unwrap(),
    ] {
        let doc = NresDocument::from_bytes(&bytes).unwrap();
        assert_eq!(doc.to_bytes(), bytes);
        assert_eq!(doc.clone().into_owned().to_bytes(), bytes);
    }
}

#[test]
fn replace_payload_keeps_everything_else() {
    let bytes = messy().build();
    for new_len in [0usize, 1, 6, 7, 8, 9, 40] {
        for i in 0..3 {
            let mut doc = NresDocument::from_bytes(&bytes).unwrap();
            let data = vec![0xE1; new_len];
            doc.replace_payload(i, &data).unwrap();
            let out = doc.to_bytes();
            let a = Nres::parse(&out).unwrap();
            assert_eq!(a.entry(i).unwrap().data(), &data[..]);
            assert_eq!(doc.payload(i).unwrap(), &data[..]);
            assert_others_kept(&bytes, &out, i);
            assert_eq!(nonzero_gap_bytes(&out), nonzero_gap_bytes(&bytes));
            assert_eq!((out.len() as isize - bytes.len() as isize) % 8, 0);
            assert_eq!(&out[..16][..8], &bytes[..8]);
        }
    }
}

#[test]
fn replace_with_same_length_changes_only_the_payload() {
    let bytes = messy().build();
    let mut doc = NresDocument::from_bytes(&bytes).unwrap();
    doc.replace_payload(0, b"FIRST PAYLOAD").unwrap();
    let out = doc.to_bytes();
    let r = Nres::parse(&bytes).unwrap().entry(0).unwrap().data_range();
    let diff: Vec<usize> = (0..out.len()).filter(|&k| out[k] != bytes[k]).collect();
    assert!(diff.iter().all(|k| r.contains(k)), "{diff:?}");
}

#[test]
fn empty_entry_inside_an_edited_payload_moves_to_its_start() {
    let mut bytes = sample();
    let off = super::support::field(&bytes, 2, crate::raw::entry_off::DATA_OFFSET);
    super::support::put(&mut bytes, off, 40); // inside "delta" [32, 45)
    let mut doc = NresDocument::from_bytes(&bytes).unwrap();
    doc.replace_payload(3, b"x").unwrap();
    let a = Nres::parse(&doc.to_bytes())
        .unwrap()
        .entry(2)
        .unwrap()
        .data_offset();
    assert_eq!(a, 32);
}

#[test]
fn filling_an_empty_entry_inside_another_payload_appends_it() {
    // Regression (found by the fuzzer): inserting at the empty entry's offset would split
    // the payload around it.
    let mut bytes = sample();
    let off = super::support::field(&bytes, 2, crate::raw::entry_off::DATA_OFFSET);
    super::support::put(&mut bytes, off, 40); // inside "delta" [32, 45)
    let mut doc = NresDocument::from_bytes(&bytes).unwrap();
    doc.replace_payload(2, b"new").unwrap();
    let out = doc.to_bytes();
    let a = Nres::parse(&out).unwrap();
    assert_eq!(a.entry(2).unwrap().data(), b"new");
    assert_eq!(a.entry(2).unwrap().data_offset(), 48);
    assert_eq!(a.entry(3).unwrap().data(), b"0123456789abc");
    assert_eq!(&out[16..48], &bytes[16..48], "data region kept as prefix");
    // Removing an empty entry leaves the data region alone.
    let mut doc = NresDocument::from_bytes(&bytes).unwrap();
    doc.remove_entry(2).unwrap();
    assert_eq!(&doc.to_bytes()[16..48], &bytes[16..48]);
}

#[test]
fn add_entry_appends_after_all_existing_bytes() {
    let bytes = messy().build();
    let mut doc = NresDocument::from_bytes(&bytes).unwrap();
    let i = doc
        .add_entry(
            NewEntry::new(b"new.bin", 7, &b"hello"[..])
                .unwrap()
                .with_attrs(1, 2, 3),
        )
        .unwrap();
    assert_eq!(i, 3);
    let out = doc.to_bytes();
    let old = Nres::parse(&bytes).unwrap();
    let a = Nres::parse(&out).unwrap();
    assert_eq!(
        &out[16..old.directory_offset()],
        old.data_region(),
        "region kept as prefix"
    );
    let e = a.find(b"NEW.BIN").unwrap();
    assert_eq!((e.index(), e.data(), e.attr2()), (3, &b"hello"[..], 2));
    assert_eq!(e.data_offset() % 8, 0);
    for (x, y) in old.entries().zip(a.entries()) {
        assert_eq!(
            (x.data(), x.name_field(), x.data_offset()),
            (y.data(), y.name_field(), y.data_offset())
        );
    }
    assert!(a.find(b"two").is_some());
}

#[test]
fn remove_entry_drops_payload_and_record_only() {
    let bytes = messy().build();
    for i in 0..3 {
        let mut doc = NresDocument::from_bytes(&bytes).unwrap();
        doc.remove_entry(i).unwrap();
        let out = doc.to_bytes();
        let old = Nres::parse(&bytes).unwrap();
        let a = Nres::parse(&out).unwrap();
        assert_eq!(a.len(), 2);
        let kept: Vec<_> = old.entries().filter(|e| e.index() != i).collect();
        for (x, y) in kept.iter().zip(a.entries()) {
            assert_eq!((x.data(), x.name_field()), (y.data(), y.name_field()));
            assert_eq!(a.find(x.name()).unwrap().index(), y.index());
        }
        assert!(a.find(old.entry(i).unwrap().name()).is_none());
        assert_eq!(nonzero_gap_bytes(&out), nonzero_gap_bytes(&bytes));
    }
    let mut all = NresDocument::from_bytes(&bytes).unwrap();
    for _ in 0..3 {
        all.remove_entry(0).unwrap();
    }
    let out = all.to_bytes();
    assert!(Nres::parse(&out).unwrap().is_empty());
}

#[test]
fn rename_rewrites_the_field_and_rebuilds_the_table() {
    let bytes = sample();
    let mut doc = NresDocument::from_bytes(&bytes).unwrap();
    doc.rename(3, b"AAA").unwrap();
    let out = doc.to_bytes();
    let a = Nres::parse(&out).unwrap();
    assert_eq!(a.find(b"aaa").unwrap().index(), 3);
    assert!(a.find(b"delta").is_none());
    assert_eq!(a.entry(3).unwrap().name_tail(), &[0; 32]);
    assert_eq!(a.entry(0).unwrap().sort_index(), 3, "AAA now ranks first");
    assert_eq!(&out[..a.directory_offset()], &bytes[..a.directory_offset()]);
}

#[test]
fn attribute_edits_touch_only_their_fields() {
    let bytes = sample();
    let mut doc = NresDocument::from_bytes(&bytes).unwrap();
    doc.set_type_id(1, 0x4853_454D).unwrap();
    doc.set_attrs(1, 4, 5, 6).unwrap();
    let out = doc.to_bytes();
    let diff: Vec<usize> = (0..out.len()).filter(|&k| out[k] != bytes[k]).collect();
    let rec = super::support::dir_off(&bytes) + 64;
    assert!(
        diff.iter().all(|&k| (rec..rec + 0x14).contains(&k)),
        "{diff:?}"
    );
    let e = Nres::parse(&out).unwrap().entry(1).unwrap();
    assert_eq!(
        (e.type_id(), e.attr1(), e.attr2(), e.attr3()),
        (0x4853_454D, 4, 5, 6)
    );
}

#[test]
fn edits_report_bad_arguments() {
    let bytes = sample();
    let mut doc = NresDocument::from_bytes(&bytes).unwrap();
    let err = doc.replace_payload(4, b"").unwrap_err();
    assert_eq!(err, NresError::NoSuchEntry { index: 4, len: 4 });
    assert!(err.to_string().starts_with("[entry_index]"));
    assert_eq!(doc.rename(0, b"").unwrap_err().check(), Check::NewName);
    assert_eq!(
        doc.rename(0, &[b'x'; 36]).unwrap_err().check(),
        Check::NewName
    );
    assert_eq!(doc.remove_entry(9).unwrap_err().check(), Check::EntryIndex);
    assert_eq!(doc.to_bytes(), bytes, "failed edits change nothing");
}

#[test]
fn writer_output_is_canonical() {
    let bytes = sample();
    let a = Nres::parse(&bytes).unwrap();
    assert_eq!(a.repack().unwrap(), bytes);
    for e in a.entries() {
        assert_eq!(e.data_offset() % 8, 0);
    }
    // Padding is zero and only up to the next multiple of 8.
    assert!(a.gaps().iter().all(|g| g.kind == GapKind::Padding));
    assert_eq!(&bytes[21..24], &[0, 0, 0]);
}

#[test]
fn repack_drops_unindexed_bytes_and_keeps_entries() {
    let bytes = messy().build();
    let a = Nres::parse(&bytes).unwrap();
    let packed = a.repack().unwrap();
    let p = Nres::parse(&packed).unwrap();
    assert!(packed.len() < bytes.len());
    assert!(p.gaps().iter().all(|g| g.kind == GapKind::Padding));
    for (x, y) in a.entries().zip(p.entries()) {
        assert_eq!(
            (x.data(), x.name_field(), x.type_id(), x.attr3()),
            (y.data(), y.name_field(), y.type_id(), y.attr3())
        );
    }
    assert_eq!(
        NresDocument::from_bytes(&bytes).unwrap().repack().unwrap(),
        packed
    );
    assert_eq!(p.repack().unwrap(), packed, "repack is idempotent");
}
