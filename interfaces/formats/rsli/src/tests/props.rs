//! Property tests: random valid archives round-trip for every method, every encoder's
//! output decodes back, and damaged archives never break the crate's guarantees.

use crate::codec;
use crate::{EntrySpec, Method, Rsli, RsliBuilder};
use proptest::prelude::*;

fn data() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..400),
        (proptest::collection::vec(any::<u8>(), 1..24), 1..120usize).prop_map(|(p, n)| p.repeat(n)),
        proptest::collection::vec(proptest::sample::select(b"ab \n".to_vec()), 0..3000),
    ]
}

fn method() -> impl Strategy<Value = Method> {
    proptest::sample::select(Method::ALL.to_vec())
}

fn specs() -> impl Strategy<Value = Vec<EntrySpec>> {
    proptest::collection::vec(
        (
            "[A-Z0-9_.]{1,12}",
            method(),
            data(),
            any::<[u8; 4]>(),
            any::<u16>(),
        ),
        0..8,
    )
    .prop_map(|v| {
        let mut seen = std::collections::BTreeSet::new();
        v.into_iter()
            .filter(|(n, ..)| seen.insert(n.clone()))
            .map(|(name, method, data, service, extra_flags)| EntrySpec {
                service,
                extra_flags,
                ..EntrySpec::new(name, method, data)
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn archives_encode_decode_encode_byte_identical(
        specs in specs(), seed in any::<u32>(), presorted in any::<bool>(), overlay in proptest::option::of(0u32..32),
    ) {
        let mut b = RsliBuilder::new();
        b.seed(seed).presorted(presorted).overlay(overlay);
        for s in &specs {
            b.push(s.clone());
        }
        let bytes = b.build().unwrap();
        let a = Rsli::parse(&bytes).unwrap();
        prop_assert_eq!(a.to_bytes(), bytes.clone());
        let mut again = RsliBuilder::new();
        again.seed(seed).presorted(presorted).overlay(overlay);
        for (spec, e) in specs.iter().zip(a.entries()) {
            let decoded = e.decode().unwrap();
            prop_assert_eq!(&decoded, &spec.data);
            prop_assert_eq!(e.method(), spec.method);
            prop_assert_eq!(a.find_bytes(&spec.name).map(|f| f.index()), Some(e.index()));
            again.push(EntrySpec {
                service: e.service(),
                extra_flags: e.flags(),
                ..EntrySpec::new(e.name(), e.method(), decoded)
            });
        }
        prop_assert_eq!(again.build().unwrap(), bytes);
    }

    #[test]
    fn every_encoder_output_decodes_back(data in data(), m in method(), key in any::<u16>()) {
        let packed = codec::encode(m, &data, key).unwrap();
        prop_assert_eq!(codec::decode(m, &packed, data.len(), key).unwrap(), data.clone());
        prop_assert_eq!(codec::encode(m, &data, key).unwrap(), packed, "deterministic");
    }

    #[test]
    fn damaged_archives_keep_every_guarantee(
        specs in specs(), edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        let mut b = RsliBuilder::new();
        for s in &specs {
            b.push(s.clone());
        }
        let mut bytes = b.build().unwrap();
        for (at, v) in edits {
            let i = at.index(bytes.len());
            bytes[i] = v;
        }
        if let Some(c) = cut {
            bytes.truncate(c.index(bytes.len() + 1));
        }
        prop_assert_eq!(crate::check::archive(&bytes), Ok(()));
    }

    #[test]
    fn codec_checks_hold_on_arbitrary_input(data in proptest::collection::vec(any::<u8>(), 0..300)) {
        prop_assert_eq!(crate::check::lzss(&data), Ok(()));
        prop_assert_eq!(crate::check::lzhuf(&data), Ok(()));
        prop_assert_eq!(crate::check::deflate(&data), Ok(()));
    }
}
