//! `objects.rlb` payloads: hand-laid payloads roundtrip byte for byte (tails, fields
//! without NUL), a length that is not a multiple of 64 fails before any record is read,
//! and authoring writes `name + NUL + zero fill`.

use super::support::{field, raw_refs};
use crate::{
    Check, Field, NameProblem, ObjectRef, ObjectRefList, UnitDatError, iter_object_refs,
    object_ref_count,
};

fn payload() -> Vec<u8> {
    raw_refs(&[
        (
            field(b"objects.rlb", b"\x01\x02"),
            field(b"fr_wall", b"stale"),
        ),
        (
            field(b"fortif.rlb", b""),
            field(b"wall_01.bas", b"\xFF\xFE"),
        ),
        (field(b"static.rlb", b"\xAA"), [b'M'; 32]),
    ])
}

#[test]
fn hand_laid_payload_reads_values_and_roundtrips_byte_identical() {
    let bytes = payload();
    let list = ObjectRefList::parse(&bytes).expect("valid");
    assert_eq!(list.refs.len(), 3);
    assert!(list.refs[0].is_parent());
    assert_eq!(list.refs[0].resource(), b"fr_wall");
    assert!(list.refs[0].resource_name.has_nonzero_tail());
    assert_eq!(
        (list.refs[1].archive(), list.refs[1].resource()),
        (&b"fortif.rlb"[..], &b"wall_01.bas"[..])
    );
    assert!(!list.refs[1].is_parent());
    assert_eq!(list.refs[2].resource(), &[b'M'; 32]);
    assert!(!list.refs[2].resource_name.has_nul());
    assert_eq!(list.to_bytes(), bytes);
    assert_eq!(iter_object_refs(&bytes).expect("valid").len(), 3);
}

#[test]
fn empty_payload_is_an_empty_list() {
    assert_eq!(ObjectRefList::parse(&[]).expect("0 % 64 == 0").refs, vec![]);
}

#[test]
fn payload_not_a_multiple_of_64_fails_with_record_and_offset() {
    let full = payload();
    for len in [1, 63, 65, 127, 129, 191] {
        let e = ObjectRefList::parse(&full[..len]).expect_err("partial record");
        let (record, offset) = (len / 64, (len / 64 * 64) as u64);
        assert!(
            matches!(e, UnitDatError::PayloadSize { len: l, record: r, offset: o, remainder }
                if l == len as u64 && r == record && o == offset && remainder == (len % 64) as u64),
            "{e}"
        );
        assert_eq!(
            (e.check(), e.offset(), e.record()),
            (Check::PayloadSize, Some(offset), Some(record))
        );
        assert!(object_ref_count(&full[..len]).is_err());
    }
    let e = ObjectRefList::parse(&full[..100]).expect_err("partial");
    assert_eq!(
        e.to_string(),
        "[payload_size] record #1 at offset 0x40: expected a length that is a multiple of 64, \
         found 100 (36 bytes of an incomplete record)"
    );
}

#[test]
fn parent_detection_ignores_ascii_case_only() {
    let parent = |a: &[u8]| ObjectRef::new(a, b"x").expect("name").is_parent();
    assert!(parent(b"OBJECTS.rlb"));
    assert!(!parent(b"objects.rlb "));
    assert!(!parent(b"objects.rl"));
}

#[test]
fn authored_refs_are_name_nul_zero_fill_and_parse_back() {
    let mut list = ObjectRefList::new();
    list.push_parent(b"fr_wall")
        .expect("name")
        .push(b"fortif.rlb", &[b'b'; 31])
        .expect("31 bytes fit");
    let bytes = list.to_bytes();
    assert_eq!(bytes.len(), 128);
    assert_eq!(&bytes[..12], b"objects.rlb\0");
    assert!(bytes[12..32].iter().all(|&b| b == 0));
    assert_eq!(&bytes[32..40], b"fr_wall\0");
    assert_eq!(bytes[127], 0);
    assert_eq!(ObjectRefList::parse(&bytes).expect("authored"), list);
    let collected: ObjectRefList = list.refs.iter().copied().collect();
    assert_eq!(collected, list);
}

#[test]
fn authoring_refuses_32_byte_names_and_nul() {
    let e = ObjectRef::new(&[b'a'; 32], b"x").expect_err("too long");
    assert!(matches!(
        e,
        UnitDatError::InvalidName {
            field: Some(Field::ArchiveName),
            problem: NameProblem::TooLong { len: 32, max: 31 },
            ..
        }
    ));
    let e = ObjectRef::parent(b"\0").expect_err("NUL");
    assert_eq!(e.field(), Some(Field::ResourceName));
}
