//! Integration tests for every auxiliary format: one test per strict check, byte-exact
//! round trips of files built in code, proptest encode→decode→encode, SWAV decoding.
// Fixture helpers outside #[test] fns build known-good files; a failure is a test bug.
#![allow(clippy::unwrap_used)]

use iron3d_aux::ctld::{CONTROL_ROW_LEN, sections_len};
use iron3d_aux::*;
use proptest::prelude::*;

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

// ---------------------------------------------------------------- CTPT

fn sample_ctpt() -> Ctpt {
    let p = |n: &[u8], f| CtptPoint::new(n, f, 3, -1, [1.0, 2.0, 3.0], [0.0, -0.5, 9.25]).unwrap();
    Ctpt {
        points: vec![p(b"TurretCenter", 0), p(b"Root", 0x8000_0000)],
    }
}

#[test]
fn ctpt_roundtrip_and_layout() {
    let c = sample_ctpt();
    let b = c.to_bytes();
    assert_eq!(b.len(), 4 + 2 * 68);
    assert_eq!(&b[4 + 72..4 + 72 + 12], b"TurretCenter");
    let back = Ctpt::parse(&b).unwrap();
    assert_eq!(back, c);
    assert_eq!(back.points[1].name(), b"Root");
    assert_eq!(back.to_bytes(), b);
}

#[test]
fn ctpt_name_tail_preserved() {
    let mut b = sample_ctpt().to_bytes();
    let last = b.len() - 1;
    b[last] = 0x55;
    assert_eq!(Ctpt::parse(&b).unwrap().to_bytes(), b);
}

#[test]
fn ctpt_rejects_count_beyond_data() {
    let e = Ctpt::parse(&u32s(&[1_000_000])).unwrap_err();
    assert!(
        matches!(
            e,
            AuxError::Truncated {
                field: "points",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn ctpt_rejects_trailing_bytes() {
    let mut b = sample_ctpt().to_bytes();
    b.push(0);
    assert!(matches!(
        Ctpt::parse(&b).unwrap_err(),
        AuxError::TrailingBytes { found: 1, .. }
    ));
}

#[test]
fn ctpt_rejects_non_finite_float() {
    let mut b = sample_ctpt().to_bytes();
    b[4 + 12..4 + 16].copy_from_slice(&f32::NAN.to_bits().to_le_bytes());
    let e = Ctpt::parse(&b).unwrap_err();
    assert!(
        matches!(
            e,
            AuxError::Invalid {
                field: "vec",
                offset: 16,
                record: Record(Some(0)),
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn ctpt_rejects_missing_count() {
    assert!(matches!(
        Ctpt::parse(&[1, 0]).unwrap_err(),
        AuxError::Truncated { field: "count", .. }
    ));
}

#[test]
fn ctpt_authoring_refuses_long_name() {
    assert!(CtptPoint::new(&[b'a'; 32], 0, 0, 0, [0.0; 3], [0.0; 3]).is_err());
}

// ---------------------------------------------------------------- CTLD

fn sample_ctld() -> Ctld {
    let rows = vec![
        ControlRow::new(3, 0.0, 10.0, 0.25, 0),
        ControlRow::new(4, -1.0, -1.0, 0.0, 4),
        ControlRow::new(3, 2.0, 4.0, 1.5, 1 | 2),
    ];
    Ctld::new(rows, 1, 0, vec![0xAA; 40]).unwrap()
}

#[test]
fn ctld_row_start_formula_matches_example() {
    // fr_l_plant.ctl: counts [14, 0, 5, 11, 13] -> row_start 0xC18, rows end at 0xCCC.
    let s = sections_len(14, 0).unwrap() as usize;
    assert_eq!(128 + s, 0xC18);
    assert_eq!(128 + s + 5 * CONTROL_ROW_LEN, 0xCCC);
    let c = Ctld::with_sections(
        14,
        0,
        [7; 108],
        vec![1; s],
        vec![ControlRow::new(0, 0.0, 1.0, 0.5, 0); 5],
        11,
        13,
        vec![],
    )
    .unwrap();
    let b = c.to_bytes();
    assert_eq!(b.len(), 0xCCC);
    let back = Ctld::parse(&b).unwrap();
    assert_eq!(back.row_start(), 0xC18);
    assert_eq!(back.counts(), [14, 0, 5, 11, 13]);
}

#[test]
fn ctld_roundtrip() {
    let b = sample_ctld().to_bytes();
    let back = Ctld::parse(&b).unwrap();
    assert_eq!(back.rows().len(), 3);
    assert_eq!(back.tail(), &[0xAA; 40][..]);
    assert_eq!(back.to_bytes(), b);
}

#[test]
fn ctld_row_evaluation() {
    let c = sample_ctld();
    assert_eq!(c.rows()[0].initial_frame(), Some(2.5));
    assert_eq!(c.rows()[1].initial_frame(), None);
    // wrap 1.5 -> 0.5, invert -> 0.5: frame 3.0
    assert_eq!(c.rows()[2].initial_frame(), Some(3.0));
    assert_eq!(
        ControlRow::new(0, 0.0, 8.0, 2.0, 0).initial_frame(),
        Some(8.0)
    );
    assert_eq!(
        ControlRow::new(0, 0.0, 8.0, -0.25, 1).initial_frame(),
        Some(6.0)
    );
}

#[test]
fn ctld_rejects_short_prefix() {
    assert!(matches!(
        Ctld::parse(&[0; 127]).unwrap_err(),
        AuxError::Truncated {
            field: "prefix",
            ..
        }
    ));
}

#[test]
fn ctld_rejects_sections_beyond_data() {
    let mut b = vec![0u8; 128];
    b[0] = 1; // S = 1 -> 160 section bytes needed
    assert!(matches!(
        Ctld::parse(&b).unwrap_err(),
        AuxError::Truncated {
            field: "sections",
            ..
        }
    ));
}

#[test]
fn ctld_rejects_section_overflow_without_allocating() {
    let mut b = vec![0u8; 128];
    b[..8].copy_from_slice(&u32s(&[u32::MAX, u32::MAX]));
    let e = Ctld::parse(&b).unwrap_err();
    assert!(
        matches!(e, AuxError::Truncated { .. } | AuxError::Overflow { .. }),
        "{e}"
    );
}

#[test]
fn ctld_rejects_rows_beyond_data() {
    let mut b = vec![0u8; 128 + 35];
    b[8] = 1; // T = 1
    assert!(matches!(
        Ctld::parse(&b).unwrap_err(),
        AuxError::Truncated { field: "rows", .. }
    ));
}

#[test]
fn ctld_authoring_rejects_wrong_section_length() {
    assert!(Ctld::with_sections(1, 0, [0; 108], vec![0; 3], vec![], 0, 0, vec![]).is_err());
}

#[test]
fn ctld_typed_record_example() {
    // values 7, 9 and text "fx" end the record at +0xBF.
    let r = TypedRecord {
        fixed: [0; 0xB0],
        values: vec![7, 9],
        text: b"fx".to_vec(),
    };
    let b = r.to_bytes();
    assert_eq!(b.len(), 0xBF);
    let (back, len) = TypedRecord::parse(&b).unwrap();
    assert_eq!(len, 0xBF);
    assert_eq!((back.values, back.text), (r.values.clone(), r.text.clone()));
    assert_eq!(back.fixed[0xAC], 2);
}

#[test]
fn ctld_typed_record_rejects_missing_nul() {
    let r = TypedRecord {
        fixed: [0; 0xB0],
        values: vec![],
        text: b"fx".to_vec(),
    };
    let mut b = r.to_bytes();
    *b.last_mut().unwrap() = b'!';
    assert!(matches!(
        TypedRecord::parse(&b).unwrap_err(),
        AuxError::Invalid {
            field: "record.text_nul",
            ..
        }
    ));
    b.pop();
    assert!(matches!(
        TypedRecord::parse(&b).unwrap_err(),
        AuxError::Truncated {
            field: "record.text_nul",
            ..
        }
    ));
}

#[test]
fn ctld_typed_record_rejects_value_count_beyond_data() {
    let mut fixed = [0u8; 0xB0];
    fixed[0xAC..].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = TypedRecord::parse(&fixed).unwrap_err();
    assert!(
        matches!(
            e,
            AuxError::Truncated {
                field: "record.values",
                ..
            }
        ),
        "{e}"
    );
}

// ---------------------------------------------------------------- opaque formats

#[test]
fn opaque_formats_roundtrip_and_reject_empty() {
    let b = vec![1, 2, 3, 0, 255];
    assert_eq!(Ndpr::parse(&b).unwrap().to_bytes(), b);
    assert_eq!(Expl::parse(&b).unwrap().to_bytes(), b);
    assert_eq!(RefArray::parse(&b).unwrap().to_bytes(), b);
    assert_eq!(Sund::parse(&b).unwrap().to_bytes(), b);
    assert_eq!(Base::parse(&b).unwrap().raw(), &b[..]);
    assert_eq!(Ndpr::parse(&[]).unwrap_err().format(), Format::Ndpr);
    assert_eq!(Expl::parse(&[]).unwrap_err().format(), Format::Expl);
    assert_eq!(RefArray::parse(&[]).unwrap_err().format(), Format::RefArray);
    assert_eq!(Sund::parse(&[]).unwrap_err().format(), Format::Sund);
    assert_eq!(Base::parse(&[]).unwrap_err().format(), Format::Base);
}

// ---------------------------------------------------------------- SCR

fn sample_script() -> Script {
    let ins = |w0, refs: Vec<u32>| Instruction {
        words: [w0, 1, 2, 3, 4],
        references: refs,
        w6: 6,
    };
    Script {
        opcode_handler_count: 73,
        events: vec![
            Event {
                name: b"Init".to_vec(),
                event_word: 0,
                instructions: vec![ins(19, vec![224, 225, 226])],
            },
            Event {
                name: b"Mission".to_vec(),
                event_word: 5,
                instructions: vec![ins(0xFFFF_FFFF, vec![]), ins(99, vec![1])],
            },
            Event {
                name: b"Init".to_vec(),
                event_word: 9,
                instructions: vec![],
            },
        ],
        trailing: vec![],
    }
}

#[test]
fn scr_roundtrip_and_lookup() {
    let s = sample_script();
    let b = s.to_bytes();
    let back = Script::parse(&b).unwrap();
    assert_eq!(back, s);
    assert_eq!(back.event(b"Init").unwrap().event_word, 0);
    let m = back.event(b"Mission").unwrap();
    assert_eq!(
        back.selector(&m.instructions[0]),
        DispatchSelector::Sentinel
    );
    assert_eq!(
        back.selector(&m.instructions[1]),
        DispatchSelector::Unknown(99)
    );
    assert_eq!(
        back.selector(&back.events[0].instructions[0]),
        DispatchSelector::Handler(19)
    );
}

#[test]
fn scr_preserves_trailing_bytes() {
    let mut b = sample_script().to_bytes();
    b.extend_from_slice(&[1, 2, 3]);
    let s = Script::parse(&b).unwrap();
    assert_eq!(s.trailing, vec![1, 2, 3]);
    assert_eq!(s.to_bytes(), b);
}

#[test]
fn scr_rejects_missing_name_nul() {
    let mut b = u32s(&[73, 1, 1]);
    b.extend_from_slice(b"AB");
    b.extend_from_slice(&u32s(&[0, 0]));
    assert!(matches!(
        Script::parse(&b).unwrap_err(),
        AuxError::Invalid {
            field: "name_nul",
            ..
        }
    ));
}

#[test]
fn scr_rejects_event_count_beyond_data() {
    assert!(matches!(
        Script::parse(&u32s(&[73, 1000])).unwrap_err(),
        AuxError::Truncated {
            field: "events",
            ..
        }
    ));
}

#[test]
fn scr_rejects_instruction_count_beyond_data() {
    let mut b = u32s(&[73, 1, 0]);
    b.push(0);
    b.extend_from_slice(&u32s(&[0, 5]));
    assert!(matches!(
        Script::parse(&b).unwrap_err(),
        AuxError::Truncated {
            field: "instructions",
            ..
        }
    ));
}

#[test]
fn scr_rejects_reference_count_beyond_data() {
    let mut b = u32s(&[73, 1, 0]);
    b.push(0);
    b.extend_from_slice(&u32s(&[0, 1, 0, 0, 0, 0, 0, 1000, 0]));
    assert!(matches!(
        Script::parse(&b).unwrap_err(),
        AuxError::Truncated {
            field: "instruction.references",
            ..
        }
    ));
}

#[test]
fn scr_rejects_name_len_overflow() {
    let mut b = u32s(&[73, 1, u32::MAX]);
    b.extend_from_slice(&[0; 9]);
    assert!(matches!(
        Script::parse(&b).unwrap_err(),
        AuxError::Truncated { field: "name", .. }
    ));
}

// ---------------------------------------------------------------- varset

#[test]
fn varset_parses_forms_comments_and_legacy_bytes() {
    let text = b"// \xC2\xE0\xF0 comment\r\nVAR(DWORD, ClanID, 0x10);\r\n\r\nVAR(float, Speed, 2.5) // tail\r\nSTRING(Name, \"a//b\")\r\nFUNCTION(Go)\n";
    let v = Varset::parse(text).unwrap();
    let d = v.declarations();
    assert_eq!(d.len(), 4);
    assert_eq!(d[0].value, Some(VarValue::Dword(16)));
    assert_eq!(d[1].value, Some(VarValue::Float(2.5)));
    assert_eq!(d[2].kind, DeclKind::String);
    assert_eq!(d[2].args[1], b"\"a//b\"");
    assert_eq!(v.index_of(b"Speed"), Some(1));
    assert_eq!(v.index_of(b"Go"), Some(3));
    assert_eq!(v.to_bytes(), text);
}

#[test]
fn varset_rejects_unknown_line() {
    let e = Varset::parse(b"VAR(DWORD, a, 1)\nGARBAGE\n").unwrap_err();
    assert!(
        matches!(
            e,
            AuxError::Invalid {
                record: Record(Some(1)),
                offset: 17,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn varset_rejects_unknown_type_and_bad_default() {
    assert!(Varset::parse(b"VAR(int, a, 1)").is_err());
    assert!(Varset::parse(b"VAR(DWORD, a, 1.5)").is_err());
    assert!(Varset::parse(b"VAR(float, a, nan)").is_err());
    assert!(Varset::parse(b"VAR(DWORD, a)").is_err());
}

#[test]
fn varset_rejects_missing_paren_and_junk_after() {
    assert!(Varset::parse(b"VAR(DWORD, a, 1").is_err());
    assert!(Varset::parse(b"VAR(DWORD, a, 1) x").is_err());
}

// ---------------------------------------------------------------- SWAV

#[test]
fn swav_pcm16_decode_exact() {
    let s = [0i16, 1, -1, 32767, -32768, 1234];
    let w = Wave::pcm16(&s, 2, 22050).unwrap();
    let b = w.to_bytes();
    assert_eq!(&b[..4], b"RIFF");
    match SoundLoad::from_entry(Some(&b)) {
        SoundLoad::DecodedSample(d) => {
            assert_eq!((d.sample_rate, d.channels), (22050, 2));
            assert_eq!(d.samples, s);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn swav_pcm8_decode_exact() {
    let w = Wave::pcm8(&[0, 128, 255, 1], 1, 22050).unwrap();
    assert_eq!(w.decode().unwrap().samples, vec![-32768, 0, 32512, -32512]);
}

#[test]
fn swav_odd_chunk_padding_and_unknown_chunks_kept() {
    let mut fmt = Wave::pcm8(&[1], 1, 22050).unwrap().chunks()[0].clone();
    fmt.pad = None;
    let list = Chunk {
        id: *b"LIST",
        data: vec![1, 2, 3],
        pad: Some(0x77),
    };
    let data = Chunk {
        id: *b"data",
        data: vec![128; 3],
        pad: None,
    };
    let w = Wave::from_chunks(vec![fmt, list.clone(), data]).unwrap();
    let b = w.to_bytes();
    let back = Wave::parse(&b).unwrap();
    assert_eq!(back.chunks()[1], list);
    assert_eq!(back.chunks()[2].pad, None); // final odd chunk without pad
    assert_eq!(back.to_bytes(), b);
}

#[test]
fn swav_loader_outcomes() {
    assert_eq!(SoundLoad::from_entry(None).kind(), "entry_missing");
    assert_eq!(SoundLoad::from_entry(Some(&[])).kind(), "entry_empty");
    assert_eq!(SoundLoad::from_entry(Some(b"RIFX")).kind(), "wave_invalid");
    let b = Wave::pcm16(&[1, 2], 1, 22050).unwrap().to_bytes();
    assert_eq!(SoundLoad::from_entry(Some(&b)).kind(), "decoded_sample");
}

fn pcm16_bytes() -> Vec<u8> {
    Wave::pcm16(&[1, 2, 3, 4], 1, 22050).unwrap().to_bytes()
}

#[test]
fn swav_rejects_bad_magic() {
    let mut b = pcm16_bytes();
    b[0] = b'X';
    assert!(matches!(
        Wave::parse(&b).unwrap_err(),
        AuxError::Invalid {
            field: "riff.id",
            ..
        }
    ));
    let mut b = pcm16_bytes();
    b[8] = b'X';
    assert!(matches!(
        Wave::parse(&b).unwrap_err(),
        AuxError::Invalid {
            field: "riff.form",
            ..
        }
    ));
}

#[test]
fn swav_rejects_riff_size_mismatch() {
    let mut b = pcm16_bytes();
    b.push(0);
    assert!(matches!(
        Wave::parse(&b).unwrap_err(),
        AuxError::Invalid {
            field: "riff.size",
            ..
        }
    ));
}

#[test]
fn swav_rejects_chunk_beyond_data() {
    let mut b = pcm16_bytes();
    let n = b.len();
    b[n - 12..n - 8].copy_from_slice(&100u32.to_le_bytes()); // data chunk size
    assert!(matches!(
        Wave::parse(&b).unwrap_err(),
        AuxError::Truncated {
            field: "chunk.data",
            ..
        }
    ));
}

#[test]
fn swav_rejects_missing_or_misordered_fmt_and_data() {
    let c = Wave::pcm16(&[1], 1, 22050).unwrap().chunks().to_vec();
    assert!(Wave::from_chunks(vec![c[1].clone(), c[0].clone()]).is_err());
    assert!(Wave::from_chunks(vec![c[0].clone()]).is_err());
    assert!(Wave::from_chunks(vec![c[0].clone(), c[0].clone(), c[1].clone()]).is_err());
    assert!(Wave::from_chunks(vec![c[0].clone(), c[1].clone(), c[1].clone()]).is_err());
}

#[test]
fn swav_rejects_short_fmt() {
    let c = Chunk::new(*b"fmt ", vec![1, 0, 1, 0]);
    let e = Wave::from_chunks(vec![c, Chunk::new(*b"data", vec![])]).unwrap_err();
    assert!(
        matches!(
            e,
            AuxError::Truncated {
                field: "fmt.sample_rate",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn swav_decode_rejects_partial_pcm_frame_and_bad_bits() {
    let w = Wave::pcm8(&[1, 2, 3], 2, 22050);
    assert!(w.unwrap().decode().is_err());
    let mut c = Wave::pcm16(&[1], 1, 22050).unwrap().chunks().to_vec();
    c[0].data[14] = 24;
    assert!(Wave::from_chunks(c).unwrap().decode().is_err());
}

/// A mono MS-ADPCM file with the standard table, samples_per_block 4, block_align 8.
fn adpcm_file(blocks: &[u8]) -> Vec<u8> {
    let mut fmt = Vec::new();
    for v in [2u16, 1] {
        fmt.extend_from_slice(&v.to_le_bytes());
    }
    fmt.extend_from_slice(&22050u32.to_le_bytes());
    fmt.extend_from_slice(&22050u32.to_le_bytes());
    for v in [8u16, 4, 32, 4, 7] {
        fmt.extend_from_slice(&v.to_le_bytes());
    }
    for (a, b) in STANDARD_COEFFICIENTS {
        fmt.extend_from_slice(&a.to_le_bytes());
        fmt.extend_from_slice(&b.to_le_bytes());
    }
    Wave::from_chunks(vec![
        Chunk::new(*b"fmt ", fmt),
        Chunk::new(*b"data", blocks.to_vec()),
    ])
    .unwrap()
    .to_bytes()
}

#[test]
fn swav_ms_adpcm_decodes_hand_built_blocks() {
    // Block 1: predictor 0 (256, 0), delta 16, sample1 100, sample2 50, codes 1, -1.
    // Block 2: predictor 1 (512, -256), same header, codes 7, 0.
    let mut data = vec![0u8, 16, 0, 100, 0, 50, 0, 0x1F];
    data.extend_from_slice(&[1, 16, 0, 100, 0, 50, 0, 0x70]);
    let w = Wave::parse(&adpcm_file(&data)).unwrap();
    assert_eq!(w.format().adpcm.as_ref().unwrap().samples_per_block, 4);
    assert_eq!(
        w.decode().unwrap().samples,
        vec![50, 100, 116, 100, 50, 100, 262, 424]
    );
}

#[test]
fn swav_ms_adpcm_rejects_bad_predictor_and_short_block() {
    let w = Wave::parse(&adpcm_file(&[7, 16, 0, 0, 0, 0, 0, 0])).unwrap();
    assert!(matches!(
        w.decode().unwrap_err(),
        AuxError::Invalid {
            field: "adpcm.predictor",
            ..
        }
    ));
    let w = Wave::parse(&adpcm_file(&[0, 16, 0, 0, 0, 0, 0, 0, 1, 2])).unwrap();
    assert!(matches!(
        w.decode().unwrap_err(),
        AuxError::Truncated {
            field: "adpcm.block_header",
            ..
        }
    ));
}

#[test]
fn swav_ms_adpcm_rejects_bad_samples_per_block() {
    let mut b = adpcm_file(&[]);
    b[38..40].copy_from_slice(&5u16.to_le_bytes()); // spb 5 > max 4
    let w = Wave::parse(&b).unwrap();
    assert!(matches!(
        w.decode().unwrap_err(),
        AuxError::Invalid {
            field: "fmt.samples_per_block",
            ..
        }
    ));
}

fn sine(n: usize, channels: usize) -> Vec<i16> {
    (0..n * channels)
        .map(|i| {
            let t = (i / channels) as f64;
            let ph = if i % channels == 0 { 0.0 } else { 1.0 };
            (12000.0 * (t * 0.05 + ph).sin() + 3000.0 * (t * 0.31).sin()) as i16
        })
        .collect()
}

fn rms_error(a: &[i16], b: &[i16]) -> f64 {
    let s: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| (f64::from(*x) - f64::from(*y)).powi(2))
        .sum();
    (s / a.len() as f64).sqrt()
}

#[test]
fn swav_ms_adpcm_encoder_error_bounded() {
    for ch in [1u16, 2] {
        let s = sine(5000, usize::from(ch));
        let w = encode_ms_adpcm(&s, ch, 22050, 256 * ch).unwrap();
        let bytes = w.to_bytes();
        let d = Wave::parse(&bytes).unwrap().decode().unwrap();
        assert_eq!(d.samples.len(), s.len());
        let rms = rms_error(&s, &d.samples);
        let max = s
            .iter()
            .zip(&d.samples)
            .map(|(a, b)| (i32::from(*a) - i32::from(*b)).abs())
            .max()
            .unwrap();
        assert!(rms < 400.0, "rms {rms}");
        assert!(max < 4000, "max {max}");
    }
}

#[test]
fn swav_ms_adpcm_encoder_handles_tiny_inputs() {
    for n in 0..6 {
        let s: Vec<i16> = (0..n).map(|i| i * 100).collect();
        let d = encode_ms_adpcm(&s, 1, 22050, 8).unwrap().decode().unwrap();
        assert_eq!(d.samples.len(), s.len());
    }
    assert!(encode_ms_adpcm(&[1, 2, 3], 2, 22050, 256).is_err());
    assert!(encode_ms_adpcm(&[1], 1, 22050, 7).is_err());
}

// ---------------------------------------------------------------- proptests

fn finite() -> impl Strategy<Value = f32> {
    -1.0e6f32..1.0e6
}

proptest! {
    #[test]
    fn prop_ctpt_roundtrip(pts in prop::collection::vec((any::<u32>(), any::<i32>(), any::<i32>(), [finite(), finite(), finite()], [finite(), finite(), finite()], "[A-Za-z_0-9]{0,31}"), 0..8)) {
        let points = pts.iter().map(|(f, a, b, va, vb, n)| CtptPoint::new(n.as_bytes(), *f, *a, *b, *va, *vb).unwrap()).collect();
        let bytes = Ctpt { points }.to_bytes();
        let back = Ctpt::parse(&bytes).unwrap();
        prop_assert_eq!(back.to_bytes(), bytes);
    }

    #[test]
    fn prop_ctld_roundtrip(rows in prop::collection::vec((any::<i32>(), any::<u32>(), any::<u32>(), any::<u32>(), any::<[u8; 16]>(), any::<u32>()), 0..6), s in 0u32..3, m in 0u32..3, tail in prop::collection::vec(any::<u8>(), 0..64), c3 in any::<u32>(), c4 in any::<u32>()) {
        let rows = rows.into_iter().map(|(n, a, b, bl, o, f)| ControlRow { node_id: n, endpoint_a: f32::from_bits(a), endpoint_b: f32::from_bits(b), blend: f32::from_bits(bl), opaque: o, flags: f }).collect();
        let len = sections_len(s, m).unwrap() as usize;
        let c = Ctld::with_sections(s, m, [3; 108], vec![9; len], rows, c3, c4, tail).unwrap();
        let bytes = c.to_bytes();
        prop_assert_eq!(Ctld::parse(&bytes).unwrap().to_bytes(), bytes);
    }

    #[test]
    fn prop_typed_record_roundtrip(values in prop::collection::vec(any::<u32>(), 0..8), text in prop::collection::vec(1u8..=255, 0..12), extra in prop::collection::vec(any::<u8>(), 0..8)) {
        let r = TypedRecord { fixed: [5; 0xB0], values, text };
        let mut bytes = r.to_bytes();
        let len = bytes.len();
        bytes.extend_from_slice(&extra);
        let (back, used) = TypedRecord::parse(&bytes).unwrap();
        prop_assert_eq!(used, len);
        prop_assert_eq!(back.to_bytes(), &bytes[..len]);
    }

    #[test]
    fn prop_opaque_roundtrip(raw in prop::collection::vec(any::<u8>(), 1..64)) {
        prop_assert_eq!(Ndpr::parse(&raw).unwrap().to_bytes(), raw.clone());
        prop_assert_eq!(Expl::parse(&raw).unwrap().to_bytes(), raw.clone());
        prop_assert_eq!(RefArray::parse(&raw).unwrap().to_bytes(), raw.clone());
        prop_assert_eq!(Sund::parse(&raw).unwrap().to_bytes(), raw.clone());
        prop_assert_eq!(Base::parse(&raw).unwrap().to_bytes(), raw);
    }

    #[test]
    fn prop_scr_roundtrip(events in prop::collection::vec((prop::collection::vec(any::<u8>(), 0..8), any::<u32>(), prop::collection::vec((any::<[u32; 5]>(), prop::collection::vec(any::<u32>(), 0..4), any::<u32>()), 0..4)), 0..4), trailing in prop::collection::vec(any::<u8>(), 0..8)) {
        let events = events.into_iter().map(|(name, w, ins)| Event { name, event_word: w, instructions: ins.into_iter().map(|(words, references, w6)| Instruction { words, references, w6 }).collect() }).collect();
        let s = Script { opcode_handler_count: 73, events, trailing };
        let bytes = s.to_bytes();
        let back = Script::parse(&bytes).unwrap();
        prop_assert_eq!(&back, &s);
        prop_assert_eq!(back.to_bytes(), bytes);
    }

    #[test]
    fn prop_varset_roundtrip(vars in prop::collection::vec(("[A-Za-z_][A-Za-z0-9_]{0,12}", prop_oneof![any::<u32>().prop_map(VarValue::Dword), finite().prop_map(VarValue::Float)]), 0..8)) {
        let pairs: Vec<(&str, VarValue)> = vars.iter().map(|(n, v)| (n.as_str(), *v)).collect();
        let v = Varset::author(&pairs).unwrap();
        let back = Varset::parse(&v.to_bytes()).unwrap();
        prop_assert_eq!(back.declarations().len(), pairs.len());
        for (d, (_, val)) in back.declarations().iter().zip(&pairs) {
            prop_assert_eq!(d.value, Some(*val));
        }
        prop_assert_eq!(back.to_bytes(), v.to_bytes());
    }

    #[test]
    fn prop_swav_pcm_roundtrip(s in prop::collection::vec(any::<i16>(), 0..64)) {
        let bytes = Wave::pcm16(&s, 1, 22050).unwrap().to_bytes();
        let w = Wave::parse(&bytes).unwrap();
        prop_assert_eq!(w.to_bytes(), bytes.clone());
        let d = w.decode().unwrap();
        prop_assert_eq!(&d.samples, &s);
        prop_assert_eq!(Wave::pcm16(&d.samples, 1, 22050).unwrap().to_bytes(), bytes);
    }

    #[test]
    fn prop_swav_adpcm_encode_decode_encode(s in prop::collection::vec(any::<i16>(), 0..300), align in 8u16..64) {
        let w = encode_ms_adpcm(&s, 1, 22050, align).unwrap();
        let bytes = w.to_bytes();
        let back = Wave::parse(&bytes).unwrap();
        prop_assert_eq!(back.to_bytes(), bytes.clone());
        let d = back.decode().unwrap();
        prop_assert_eq!(d.samples.len(), s.len());
        // Re-encoding the decoded signal gives a file of the same shape that decodes.
        let again = encode_ms_adpcm(&d.samples, 1, 22050, align).unwrap();
        prop_assert_eq!(again.to_bytes().len(), bytes.len());
        prop_assert_eq!(again.decode().unwrap().samples.len(), s.len());
    }
}
