//! MAT0: every version 0..=6 (prefix lengths, defaults), one test per strict check,
//! texture-name fields (tails, 16 bytes without NUL, empty), writing and authoring.

use crate::{
    AnimBlock, AnimKey, MAX_ANIMATION_BLOCKS, Mat0, Mat0Metadata, MaterialError, PHASE_SIZE, Phase,
    prefix_len,
};

/// A payload: header, `prefix` bytes, phases, then raw block bytes.
fn payload(
    phases: u16,
    blocks: u16,
    prefix: &[u8],
    phase_bytes: &[u8],
    block_bytes: &[u8],
) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&phases.to_le_bytes());
    v.extend_from_slice(&blocks.to_le_bytes());
    v.extend_from_slice(prefix);
    v.extend_from_slice(phase_bytes);
    v.extend_from_slice(block_bytes);
    v
}

fn phase_raw(fill: u8, name: &[u8]) -> Vec<u8> {
    let mut raw = vec![fill; 18];
    let mut field = [0u8; 16];
    field[..name.len()].copy_from_slice(name);
    raw.extend_from_slice(&field);
    raw
}

/// Block bytes: header word, key count, keys.
fn block_raw(header: u32, keys: &[(u16, u16, u16)]) -> Vec<u8> {
    let mut v = header.to_le_bytes().to_vec();
    v.extend_from_slice(&(keys.len() as u16).to_le_bytes());
    for &(a, b, c) in keys {
        for w in [a, b, c] {
            v.extend_from_slice(&w.to_le_bytes());
        }
    }
    v
}

const PREFIX10: [u8; 10] = [7, 8, 0x00, 0x00, 0x00, 0x40, 0xEF, 0xBE, 0xAD, 0xDE];

#[test]
fn prefix_lengths_per_version() {
    let expect = [
        (0, 0),
        (1, 0),
        (2, 2),
        (3, 6),
        (4, 10),
        (5, 10),
        (6, 10),
        (7, 10),
        (u32::MAX, 10),
    ];
    for (version, len) in expect {
        assert_eq!(prefix_len(version), len, "v{version}");
    }
}

#[test]
fn every_version_reads_its_prefix_applies_defaults_and_round_trips() {
    let phase = phase_raw(3, b"TEX");
    let block = block_raw(0x11, &[(0, 50, 9)]);
    for version in 0..=6u32 {
        let len = prefix_len(version);
        let bytes = payload(1, 1, &PREFIX10[..len], &phase, &block);
        let m = Mat0::parse(&bytes, version).unwrap_or_else(|e| panic!("v{version}: {e}"));
        let md = m.metadata();
        let d = Mat0Metadata::DEFAULT;
        assert_eq!(
            (md.a, md.b),
            if version >= 2 { (7, 8) } else { (d.a, d.b) },
            "v{version}"
        );
        assert_eq!(
            md.c_raw,
            if version >= 3 {
                0x4000_0000
            } else {
                0x3F80_0000
            },
            "v{version}"
        );
        assert_eq!(
            md.d_raw,
            if version >= 4 { 0xDEAD_BEEF } else { 0 },
            "v{version}"
        );
        assert_eq!(m.version(), version);
        assert_eq!(m.phases().len(), 1);
        assert_eq!(m.phases()[0].texture_name(), b"TEX");
        assert_eq!(m.blocks()[0].keys(), &[AnimKey::new(0, 50, 9)]);
        assert_eq!(m.encoded_len(version), bytes.len());
        assert_eq!(
            m.to_bytes(version).expect("writes"),
            bytes,
            "v{version} lossless"
        );
    }
    assert_eq!(Mat0Metadata::DEFAULT.c_f32(), 1.0);
}

#[test]
fn older_version_never_reads_newer_fields() {
    // Under v2 the 4 bytes after metadata_b are not metadata_c: they are the phase.
    let phase = phase_raw(1, b"A");
    let bytes = payload(1, 0, &[5, 6], &phase, &[]);
    let m = Mat0::parse(&bytes, 2).expect("v2");
    assert_eq!(m.metadata().c_raw, 0x3F80_0000);
    assert_eq!(m.phases()[0].parameters(), &[1; 18]);
    // The same bytes under v6 do not frame.
    assert!(Mat0::parse(&bytes, 6).is_err());
}

#[test]
fn check_header_fits() {
    for len in 0..4 {
        let err = Mat0::parse(&[0; 3][..len], 6).unwrap_err();
        let field = if len < 2 {
            "phase_count"
        } else {
            "animation_block_count"
        };
        assert!(
            matches!(err, MaterialError::Mat0Truncated { field: f, .. } if f == field),
            "{err}"
        );
    }
}

#[test]
fn check_block_count_below_20() {
    let ok = payload(0, 19, &[0; 10], &[], &block_raw(0, &[]).repeat(19));
    assert_eq!(
        Mat0::parse(&ok, 6).expect("19 blocks").blocks().len(),
        MAX_ANIMATION_BLOCKS
    );
    let bad = payload(0, 20, &[0; 10], &[], &block_raw(0, &[]).repeat(20));
    assert_eq!(
        Mat0::parse(&bad, 6).unwrap_err(),
        MaterialError::Mat0BlockCount { found: 20 }
    );
}

#[test]
fn check_prefix_fits() {
    let cases: [(u32, usize, &str); 4] = [
        (2, 5, "metadata_b"),
        (3, 7, "metadata_c_raw"),
        (4, 13, "metadata_d_raw"),
        (6, 4, "metadata_a"),
    ];
    for (version, len, field) in cases {
        let bytes = payload(0, 0, &PREFIX10, &[], &[]);
        let err = Mat0::parse(&bytes[..len], version).unwrap_err();
        assert!(
            matches!(err, MaterialError::Mat0Truncated { field: f, .. } if f == field),
            "v{version}: {err}"
        );
    }
    let err = Mat0::parse(&payload(0, 0, &[1, 2, 3], &[], &[]), 4).unwrap_err();
    assert_eq!(
        err,
        MaterialError::Mat0Truncated {
            offset: 6,
            field: "metadata_c_raw",
            need: 4,
            have: 1
        }
    );
}

#[test]
fn check_phase_section_fits() {
    let two = [phase_raw(0, b"A"), phase_raw(0, b"B")].concat();
    let bytes = payload(3, 0, &[0; 10], &two, &[]);
    let err = Mat0::parse(&bytes, 6).unwrap_err();
    assert_eq!(
        err,
        MaterialError::Mat0PhaseSection {
            offset: 14,
            phase_count: 3,
            phase: 2,
            need: 3 * PHASE_SIZE,
            have: 68
        }
    );
    assert!(err.to_string().starts_with("MAT0 +0xe:"), "{err}");
    let huge = payload(u16::MAX, 0, &[], &[], &[]);
    assert!(matches!(
        Mat0::parse(&huge, 0).unwrap_err(),
        MaterialError::Mat0PhaseSection { phase: 0, .. }
    ));
}

#[test]
fn check_block_header_fits() {
    let bytes = payload(0, 2, &[], &[], &[block_raw(1, &[]), vec![0; 5]].concat());
    assert_eq!(
        Mat0::parse(&bytes, 0).unwrap_err(),
        MaterialError::Mat0BlockHeader {
            offset: 10,
            block: 1,
            have: 5
        }
    );
}

#[test]
fn check_keys_fit() {
    let mut block = block_raw(1, &[(0, 1, 2), (3, 4, 5), (6, 7, 8)]);
    block.truncate(block.len() - 1);
    let bytes = payload(0, 1, &[], &[], &block);
    assert_eq!(
        Mat0::parse(&bytes, 0).unwrap_err(),
        MaterialError::Mat0Keys {
            offset: 10,
            block: 0,
            key_count: 3,
            key: 2,
            need: 18,
            have: 17
        }
    );
    let huge = payload(0, 1, &[], &[], &[0, 0, 0, 0, 0xFF, 0xFF]);
    assert!(matches!(
        Mat0::parse(&huge, 0).unwrap_err(),
        MaterialError::Mat0Keys {
            key: 0,
            have: 0,
            ..
        }
    ));
}

#[test]
fn check_exact_end() {
    let bytes = payload(
        1,
        1,
        &[0; 10],
        &phase_raw(0, b""),
        &[block_raw(0, &[(0, 0, 0)]), vec![0xAA]].concat(),
    );
    assert_eq!(
        Mat0::parse(&bytes, 6).unwrap_err(),
        MaterialError::Mat0TrailingBytes {
            offset: bytes.len() - 1,
            extra: 1
        }
    );
    assert!(matches!(
        Mat0::parse(&[0, 0, 0, 0, 0], 0).unwrap_err(),
        MaterialError::Mat0TrailingBytes { .. }
    ));
}

#[test]
fn zero_phases_are_accepted() {
    let m = Mat0::parse(&[0, 0, 0, 0], 0).expect("FParkan accepts phase_count 0");
    assert!(m.phases().is_empty() && m.blocks().is_empty());
}

#[test]
fn texture_names_with_tails_full_fields_and_empty_names() {
    let mut tail = phase_raw(0, b"ROCK");
    tail[18 + 5..18 + 9].copy_from_slice(b"JUNK");
    let full = phase_raw(0, b"ABCDEFGHIJKLMNOP");
    let empty = phase_raw(0, b"");
    let mut empty_tail = phase_raw(0, b"");
    empty_tail[18 + 3] = 0x7F;
    let padded = phase_raw(0, b" grass ");
    let bytes = payload(
        5,
        0,
        &[],
        &[tail, full, empty, empty_tail, padded].concat(),
        &[],
    );
    let m = Mat0::parse(&bytes, 0).expect("valid");
    let p = m.phases();
    assert_eq!(p[0].texture_name(), b"ROCK");
    assert_eq!(&p[0].texture_tail()[..4], b"JUNK");
    assert_eq!(p[1].texture_name(), b"ABCDEFGHIJKLMNOP");
    assert!(p[1].texture_tail().is_empty() && !p[1].is_untextured());
    assert!(p[2].is_untextured());
    assert!(p[3].is_untextured() && p[3].texture_tail()[2] == 0x7F);
    assert_eq!(p[4].texture_name(), b" grass ");
    assert_eq!(p[4].texture_lookup_key(), b"grass");
    let names: Vec<&[u8]> = m.texture_names().collect();
    assert_eq!(names, vec![&b"ROCK"[..], b"ABCDEFGHIJKLMNOP", b" grass "]);
    assert_eq!(m.to_bytes(0).expect("writes"), bytes, "tails kept");
}

#[test]
fn block_header_splits_mode_and_mask() {
    let bytes = payload(0, 1, &[], &[], &block_raw(0xFFFF_FFFB, &[]));
    let m = Mat0::parse(&bytes, 0).expect("valid");
    let b = &m.blocks()[0];
    assert_eq!(
        (b.mode(), b.interpolation_mask(), b.header_raw()),
        (3, 0x1FFF_FFFF, 0xFFFF_FFFB)
    );
    assert_eq!(AnimBlock::header_from(3, 0x1FFF_FFFF), 0xFFFF_FFFB);
    assert_eq!(AnimBlock::header_from(9, 1), 0b1001);
}

#[test]
fn writing_to_a_version_that_drops_non_default_metadata_fails() {
    let m = Mat0::parse(&payload(0, 0, &PREFIX10, &[], &[]), 6).expect("valid");
    let err = m.to_bytes(3).unwrap_err();
    assert_eq!(
        err,
        MaterialError::Mat0VersionDropsField {
            version: 3,
            field: "metadata_d_raw",
            value: 0xDEAD_BEEF,
            default: 0
        }
    );
    // Upgrading an old payload writes the defaults, which read back the same.
    let old = Mat0::parse(&payload(0, 0, &[], &[], &[]), 0).expect("v0");
    let up = old.to_bytes(6).expect("upgrade");
    assert_eq!(
        up,
        payload(0, 0, &[255, 255, 0, 0, 0x80, 0x3F, 0, 0, 0, 0], &[], &[])
    );
    assert_eq!(Mat0::parse(&up, 6).expect("v6").metadata(), old.metadata());
}

#[test]
fn authoring_limits_and_names() {
    assert!(Phase::new([0; 18], b"ABCDEFGHIJKLMNOP").is_ok());
    assert!(matches!(
        Phase::new([0; 18], b"ABCDEFGHIJKLMNOPQ"),
        Err(MaterialError::Mat0TextureName { .. })
    ));
    assert!(matches!(
        Phase::new([0; 18], b"A\0B"),
        Err(MaterialError::Mat0TextureName { .. })
    ));
    let p = Phase::new([1; 18], b"NEW").expect("valid");
    assert_eq!(&p.to_raw()[18..], b"NEW\0\0\0\0\0\0\0\0\0\0\0\0\0");
    assert_eq!(Phase::from_raw(p.to_raw()), p);
    let err = Mat0::new(
        6,
        Mat0Metadata::DEFAULT,
        vec![],
        vec![AnimBlock::new(0, vec![]).expect("ok"); 20],
    )
    .unwrap_err();
    assert_eq!(
        err,
        MaterialError::Mat0TooMany {
            what: "animation blocks",
            count: 20,
            max: 19
        }
    );
    let err = AnimBlock::new(0, vec![AnimKey::default(); 65_536]).unwrap_err();
    assert!(matches!(
        err,
        MaterialError::Mat0TooMany { what: "keys", .. }
    ));
    let err = Mat0::new(6, Mat0Metadata::DEFAULT, vec![p; 65_536], vec![]).unwrap_err();
    assert!(matches!(
        err,
        MaterialError::Mat0TooMany { what: "phases", .. }
    ));
}
