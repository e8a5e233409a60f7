//! Property tests: random valid unit DAT files and random `objects.rlb` payloads
//! (arbitrary tails, fields without NUL) go encode → decode → encode byte-identical, and
//! any input with valid framing is accepted losslessly in compatible mode.

use crate::{
    DAT_RECORD_SIZE, Name32, OBJECT_REF_SIZE, ObjectRef, ObjectRefList, ReadMode, UnitDat,
    UnitHeader, UnitRecord,
};
use proptest::prelude::*;

/// A 32-byte field: a value of 0..=32 arbitrary non-NUL bytes, then NUL and arbitrary tail.
fn name32() -> impl Strategy<Value = Name32> {
    (prop::collection::vec(1u8..=255, 0..=32), any::<[u8; 32]>()).prop_map(|(value, tail)| {
        let mut raw = tail;
        raw[..value.len()].copy_from_slice(&value);
        if value.len() < 32 {
            raw[value.len()] = 0;
        }
        Name32::from_raw(raw)
    })
}

/// `objects.rlb` (any ASCII case) + NUL + arbitrary tail.
fn objects_rlb() -> impl Strategy<Value = Name32> {
    (any::<[u8; 32]>(), any::<[bool; 11]>()).prop_map(|(mut raw, upper)| {
        for (i, &b) in b"objects.rlb".iter().enumerate() {
            raw[i] = if upper[i] { b.to_ascii_uppercase() } else { b };
        }
        raw[11] = 0;
        Name32::from_raw(raw)
    })
}

fn record() -> impl Strategy<Value = UnitRecord> {
    (
        objects_rlb(),
        name32(),
        any::<i32>(),
        name32(),
        any::<[u8; 4]>(),
        any::<[u8; 4]>(),
    )
        .prop_map(
            |(archive_name, resource_name, parent_or_link, description, tail0, tail1)| UnitRecord {
                archive_name,
                resource_name,
                kind: 1,
                parent_or_link,
                description,
                tail0,
                tail1,
            },
        )
}

fn dat() -> impl Strategy<Value = UnitDat> {
    (any::<[u8; 6]>(), prop::collection::vec(record(), 0..12)).prop_map(|(opaque, records)| {
        UnitDat {
            header: UnitHeader { opaque },
            records,
        }
    })
}

proptest! {
    #[test]
    fn random_valid_dat_roundtrips(dat in dat()) {
        let bytes = dat.to_bytes();
        prop_assert_eq!(bytes.len(), 8 + 112 * dat.records.len());
        let back = UnitDat::parse(&bytes).expect("valid by construction");
        prop_assert_eq!(&back, &dat);
        prop_assert_eq!(back.to_bytes(), bytes);
    }

    #[test]
    fn any_well_framed_dat_is_lossless_in_compatible_mode(
        opaque in any::<[u8; 6]>(),
        body in (0usize..6).prop_flat_map(|n| {
            prop::collection::vec(any::<u8>(), n * DAT_RECORD_SIZE)
        }),
    ) {
        let mut bytes = vec![0xF1, 0xF0];
        bytes.extend_from_slice(&opaque);
        bytes.extend_from_slice(&body);
        let parsed = UnitDat::parse_with(&bytes, ReadMode::Compatible).expect("framing valid");
        prop_assert_eq!(parsed.dat.to_bytes(), bytes.clone());
        prop_assert_eq!(UnitDat::parse(&bytes).is_ok(), parsed.diagnostics.is_empty());
    }

    #[test]
    fn random_object_ref_payloads_roundtrip(refs in prop::collection::vec((name32(), name32()), 0..16)) {
        let list: ObjectRefList = refs
            .into_iter()
            .map(|(archive_name, resource_name)| ObjectRef { archive_name, resource_name })
            .collect();
        let bytes = list.to_bytes();
        prop_assert_eq!(bytes.len(), list.refs.len() * OBJECT_REF_SIZE);
        let back = ObjectRefList::parse(&bytes).expect("whole records");
        prop_assert_eq!(&back, &list);
        prop_assert_eq!(back.to_bytes(), bytes);
    }

    #[test]
    fn arbitrary_payload_bytes_parse_iff_whole_records(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        match ObjectRefList::parse(&bytes) {
            Ok(list) => prop_assert_eq!(list.to_bytes(), bytes),
            Err(e) => {
                prop_assert!(bytes.len() % 64 != 0);
                prop_assert_eq!(e.offset(), Some((bytes.len() / 64 * 64) as u64));
            }
        }
    }

    #[test]
    fn authored_names_roundtrip(value in prop::collection::vec(1u8..=255, 0..=31)) {
        let r = UnitRecord::new(&value, 0, &value).expect("fits");
        prop_assert_eq!(r.component_key(), value.as_slice());
        prop_assert!(r.resource_name.tail().iter().all(|&b| b == 0));
        let back = UnitRecord::from_bytes(&r.to_bytes());
        prop_assert_eq!(back, r);
    }
}
