//! Unit tests: one per strict read check, the writer's byte identity, names with tails,
//! the body accessors, the time helpers, and a proptest encode → decode → encode.

use crate::*;
use proptest::prelude::*;

/// An effect with every opcode, data bits, a disabled command and non-zero bodies.
fn every_opcode() -> Fxid {
    let mut b = Fxid::builder()
        .time_mode(17)
        .duration_seconds(1.5)
        .phase_jitter(0.25)
        .flags(0xDEAD_0001)
        .settings_id(7)
        .random_shift([1.0, -2.0, 3.5])
        .pivot([0.0, 10.0, 0.0])
        .scale([2.0, 2.0, 2.0]);
    for (i, op) in Opcode::ALL.into_iter().enumerate() {
        let mut c = if op.has_resource_ref() {
            Command::with_resource(op, b"effects.lib", format!("res{i}").as_bytes()).unwrap()
        } else {
            Command::new(op)
        };
        c.set_data_bits(i as u32 * 0x1111);
        c.set_enabled(i % 3 != 0);
        if let Some(last) = c.body().len().checked_sub(4) {
            c.set_u32_at(last, 0xA5A5_0000 | i as u32).unwrap();
        }
        b = b.command(c);
    }
    b.build()
}

fn bytes_of(fx: &Fxid) -> Vec<u8> {
    fx.to_bytes().unwrap()
}

#[test]
fn every_opcode_roundtrips_byte_identical() {
    let fx = every_opcode();
    let bytes = bytes_of(&fx);
    let sizes: usize = Opcode::ALL.iter().map(|o| o.size()).sum();
    assert_eq!(bytes.len(), HEADER_LEN + sizes);
    assert_eq!(fx.encoded_len(), bytes.len());
    let back = Fxid::parse(&bytes).unwrap();
    assert_eq!(back, fx);
    assert_eq!(bytes_of(&back), bytes);
    let offsets: Vec<usize> = back.command_offsets().collect();
    for (c, at) in back.commands.iter().zip(offsets) {
        assert_eq!(
            u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()),
            c.word()
        );
    }
}

#[test]
fn opcode_table_matches_the_spec() {
    let table = [
        (1, 224, false),
        (2, 148, true),
        (3, 200, true),
        (4, 204, true),
        (5, 112, true),
        (6, 4, false),
        (7, 208, true),
        (8, 248, true),
        (9, 208, true),
        (10, 208, true),
    ];
    for (byte, size, has_ref) in table {
        let op = Opcode::from_u8(byte).unwrap();
        assert_eq!(
            (op.as_u8(), op.size(), op.has_resource_ref()),
            (byte, size, has_ref)
        );
    }
    assert!(Opcode::from_u8(0).is_none());
    assert!((11..=255).all(|b| Opcode::from_u8(b).is_none()));
}

#[test]
fn header_fields_sit_at_their_offsets() {
    let fx = every_opcode();
    let b = bytes_of(&fx);
    let u = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let f = |at: usize| f32::from_bits(u(at));
    assert_eq!(u(0x00), 10);
    assert_eq!(u(0x04), 17);
    assert_eq!(f(0x08), 1.5);
    assert_eq!(f(0x0C), 0.25);
    assert_eq!(u(0x10), 0xDEAD_0001);
    assert_eq!(u(0x14), 7);
    assert_eq!([f(0x18), f(0x1C), f(0x20)], [1.0, -2.0, 3.5]);
    assert_eq!([f(0x24), f(0x28), f(0x2C)], [0.0, 10.0, 0.0]);
    assert_eq!([f(0x30), f(0x34), f(0x38)], [2.0, 2.0, 2.0]);
    assert_eq!(u(0x3C) & 0xFF, 1);
    assert!(fx.header.time_mode_observed());
}

#[test]
fn header_float_bits_survive_unchanged() {
    let mut fx = Fxid::default();
    fx.header.duration_bits = 0x7FC0_1234; // NaN with payload
    fx.header.phase_jitter_bits = 0x8000_0000; // -0.0
    fx.header.pivot_bits = [0x0000_0001, 0xFF80_0001, 0x7F80_0000];
    let b = bytes_of(&fx);
    assert_eq!(Fxid::parse(&b).unwrap(), fx);
    assert_eq!(bytes_of(&Fxid::parse(&b).unwrap()), b);
}

#[test]
fn empty_effect_is_exactly_the_header() {
    let fx = Fxid::builder().build();
    let b = bytes_of(&fx);
    assert_eq!(b.len(), HEADER_LEN);
    assert_eq!(Fxid::parse(&b).unwrap().commands.len(), 0);
    assert_eq!(fx.header.scale(), [1.0; 3]);
}

#[test]
fn truncated_header_is_refused() {
    let b = bytes_of(&every_opcode());
    for len in [0, 1, 4, HEADER_LEN - 1] {
        assert_eq!(
            Fxid::parse(&b[..len]),
            Err(FxidError::TruncatedHeader {
                expected: HEADER_LEN,
                found: len
            })
        );
    }
}

#[test]
fn implausible_count_is_refused_before_allocation() {
    let mut b = bytes_of(&Fxid::builder().command(Command::new(Opcode::Op6)).build());
    b[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = Fxid::parse(&b).unwrap_err();
    assert_eq!(
        e,
        FxidError::ImplausibleCount {
            declared: u32::MAX,
            min_bytes: u64::from(u32::MAX) * 4,
            found: 4
        }
    );
    assert_eq!(e.offset(), Some(0));
}

#[test]
fn stream_shorter_than_a_word_is_trailing_when_count_is_zero() {
    let mut b = bytes_of(&Fxid::builder().build());
    b.extend_from_slice(&[6, 1]);
    assert_eq!(
        Fxid::parse(&b),
        Err(FxidError::TrailingBytes {
            count: 0,
            offset: HEADER_LEN,
            trailing: 2
        })
    );
}

#[test]
fn short_word_after_a_long_command_names_index_and_offset() {
    // Count 2: an opcode-5 command (112 bytes) then only 3 bytes; 2 * 4 <= 115 passes
    // the plausibility check, so the word check fires on command 1.
    let mut b = bytes_of(&Fxid::builder().command(Command::new(Opcode::Op5)).build());
    b[0..4].copy_from_slice(&2u32.to_le_bytes());
    b.extend_from_slice(&[6, 1, 0]);
    let e = Fxid::parse(&b).unwrap_err();
    assert_eq!(
        e,
        FxidError::TruncatedCommandWord {
            index: 1,
            offset: HEADER_LEN + 112,
            found: 3
        }
    );
    assert_eq!(e.command_index(), Some(1));
}

#[test]
fn unknown_opcode_names_index_opcode_and_offset() {
    let fx = every_opcode();
    let mut b = bytes_of(&fx);
    let at: usize = fx.command_offsets().nth(4).unwrap();
    b[at] = 11;
    let word = u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let e = Fxid::parse(&b).unwrap_err();
    assert_eq!(
        e,
        FxidError::UnknownOpcode {
            index: 4,
            opcode: 11,
            word,
            offset: at
        }
    );
    let text = e.to_string();
    assert!(
        text.contains("command 4") && text.contains("opcode 11"),
        "{text}"
    );
    b[at] = 0;
    assert!(matches!(
        Fxid::parse(&b),
        Err(FxidError::UnknownOpcode { opcode: 0, .. })
    ));
}

#[test]
fn command_overrunning_the_payload_is_refused() {
    let b = bytes_of(&Fxid::builder().command(Command::new(Opcode::Op8)).build());
    let cut = &b[..b.len() - 1];
    assert_eq!(
        Fxid::parse(cut),
        Err(FxidError::CommandOverrun {
            index: 0,
            opcode: 8,
            offset: HEADER_LEN,
            expected: 248,
            found: 247
        })
    );
}

#[test]
fn trailing_bytes_are_refused() {
    let fx = every_opcode();
    let mut b = bytes_of(&fx);
    let end = b.len();
    b.push(0);
    assert_eq!(
        Fxid::parse(&b),
        Err(FxidError::TrailingBytes {
            count: 10,
            offset: end,
            trailing: 1
        })
    );
}

#[test]
fn count_lower_than_the_stream_leaves_trailing_bytes() {
    let mut b = bytes_of(&every_opcode());
    b[0..4].copy_from_slice(&9u32.to_le_bytes());
    assert!(matches!(
        Fxid::parse(&b),
        Err(FxidError::TrailingBytes {
            count: 9,
            trailing: 208,
            ..
        })
    ));
}

#[test]
fn count_higher_than_the_stream_is_refused() {
    let mut b = bytes_of(&every_opcode());
    b[0..4].copy_from_slice(&11u32.to_le_bytes());
    assert!(matches!(
        Fxid::parse(&b),
        Err(FxidError::TruncatedCommandWord {
            index: 10,
            found: 0,
            ..
        })
    ));
}

#[test]
fn command_word_bits_are_kept_and_typed() {
    let mut c = Command::new(Opcode::Op3);
    assert!(c.enabled());
    assert_eq!(c.word(), 0x103);
    c.set_data_bits(0x7F_FFFF);
    c.set_enabled(false);
    assert_eq!(c.word(), 0xFFFF_FE03);
    assert_eq!(c.data_bits(), 0x7F_FFFF);
    assert_eq!(c.opcode(), Opcode::Op3);
    c.set_enabled(true);
    assert_eq!(c.word(), 0xFFFF_FF03);
    let fx = Fxid::builder().command(c.clone()).build();
    assert_eq!(Fxid::parse(&bytes_of(&fx)).unwrap().commands[0], c);
}

#[test]
fn resource_refs_keep_their_tails() {
    let mut raw = [0u8; RESOURCE_REF_LEN];
    raw[..10].copy_from_slice(b"sounds.lib");
    raw[11..20].copy_from_slice(b"old-stuff");
    raw[32..64].copy_from_slice(b"thunder.wav\0garbage-after-nul!!!");
    let r = ResourceRef::from_raw(&raw);
    assert_eq!(r.archive.value(), b"sounds.lib");
    assert_eq!(&r.archive.tail()[..10], b"old-stuff\0");
    assert_eq!(r.name.value(), b"thunder.wav");
    assert_eq!(r.name.tail(), b"garbage-after-nul!!!");
    assert!(r.matches(b"SOUNDS.LIB", b"Thunder.WAV"));
    assert!(!r.matches(b"sounds.lib ", b"thunder.wav"));
    let mut c = Command::new(Opcode::Op2);
    c.set_resource(&r).unwrap();
    let fx = Fxid::builder().command(c).build();
    let b = bytes_of(&fx);
    assert_eq!(&b[HEADER_LEN + 4..HEADER_LEN + 68], &raw);
    let back = Fxid::parse(&b).unwrap();
    assert_eq!(back.commands[0].resource(), Some(r));
    assert_eq!(bytes_of(&back), b);
}

#[test]
fn unterminated_name_is_the_whole_field() {
    let n = Name32::from_raw([b'N'; NAME_FIELD_LEN]);
    assert_eq!(n.value().len(), 32);
    assert!(n.tail().is_empty());
    assert!(!n.is_terminated());
}

#[test]
fn authored_names_are_nul_terminated_and_zero_filled() {
    let n = Name32::new(b"fire", RefField::Name).unwrap();
    assert_eq!(&n.raw()[..5], b"fire\0");
    assert!(n.raw()[5..].iter().all(|&b| b == 0));
    assert!(Name32::new(&[b'x'; 31], RefField::Name).is_ok());
    assert_eq!(
        Name32::new(&[b'x'; 32], RefField::Archive),
        Err(FxidError::InvalidName {
            field: RefField::Archive,
            name: "x".repeat(32),
            problem: NameProblem::TooLong { len: 32, max: 31 }
        })
    );
    assert!(matches!(
        Command::with_resource(Opcode::Op7, b"a", b"b\0c"),
        Err(FxidError::InvalidName {
            field: RefField::Name,
            problem: NameProblem::ContainsNul { position: 1 },
            ..
        })
    ));
}

#[test]
fn opcodes_without_refs_refuse_a_resource() {
    for op in [Opcode::Op1, Opcode::Op6] {
        assert_eq!(
            Command::with_resource(op, b"a", b"b"),
            Err(FxidError::NoResourceRef { opcode: op.as_u8() })
        );
        assert_eq!(Command::new(op).resource(), None);
    }
}

#[test]
fn from_parts_checks_opcode_and_body_size() {
    assert_eq!(
        Command::from_parts(0x10C, vec![]),
        Err(FxidError::NotAnOpcode {
            opcode: 12,
            word: 0x10C
        })
    );
    assert_eq!(
        Command::from_parts(0x105, vec![0; 107]),
        Err(FxidError::BodySize {
            opcode: 5,
            expected: 108,
            found: 107
        })
    );
    assert!(Command::from_parts(0x105, vec![0; 108]).is_ok());
}

#[test]
fn body_accessors_are_bounded() {
    let mut c = Command::new(Opcode::Op2);
    c.set_f32_at(64, 100.0).unwrap();
    c.set_f32_at(140, 1500.0).unwrap();
    assert_eq!(c.f32_at(64).unwrap(), 100.0);
    assert_eq!(c.u32_at(140).unwrap(), 1500.0f32.to_bits());
    assert_eq!(
        c.set_u32_at(141, 1),
        Err(FxidError::BodyField {
            opcode: 2,
            offset: 141,
            width: 4,
            body_len: 144
        })
    );
    assert!(c.u32_at(usize::MAX).is_err());
    assert!(c.set_bytes_at(usize::MAX, &[1]).is_err());
    assert!(Command::new(Opcode::Op6).u32_at(0).is_err());
}

#[test]
fn missing_resource_names_effect_command_archive_and_name() {
    let fx = every_opcode();
    assert_eq!(fx.resources().count(), 8);
    assert!(fx.resolve_resources("lightning", |_, _| true).is_ok());
    let e = fx
        .resolve_resources("lightning", |_, name| name != b"res4")
        .unwrap_err();
    assert_eq!(
        e,
        FxidError::UnresolvedResource {
            effect: "lightning".into(),
            index: 4,
            opcode: 5,
            archive: "effects.lib".into(),
            name: "res4".into()
        }
    );
    assert_eq!(e.command_index(), Some(4));
}

#[test]
fn time_scale_converts_and_refuses_bad_durations() {
    let ms = TimeScale::MILLISECONDS;
    assert_eq!(ms.ticks(1.5), Some(1500));
    assert_eq!(ms.ticks(0.0), Some(0));
    let sec = TimeScale {
        ticks_per_second: 1,
    };
    assert_eq!(sec.ticks(0.5), Some(0)); // ties go to even
    assert_eq!(sec.ticks(1.5), Some(2));
    assert_eq!(sec.ticks(2.5), Some(2));
    assert_eq!(sec.ticks(2.6), Some(3));
    assert_eq!(ms.ticks(-1.0), None);
    assert_eq!(ms.ticks(f32::NAN), None);
    assert_eq!(ms.ticks(f32::INFINITY), None);
    assert_eq!(ms.ticks(f32::MAX), Some(u64::MAX));
    assert_eq!(
        TimeScale {
            ticks_per_second: 0
        }
        .ticks(1.0),
        None
    );
}

#[test]
fn lifetime_and_normalized_age() {
    let fx = Fxid::builder().duration_seconds(2.0).build();
    let life = Lifetime::of(&fx, 1000, TimeScale::MILLISECONDS).unwrap();
    assert_eq!(
        life,
        Lifetime {
            start: 1000,
            end: 3000
        }
    );
    assert_eq!(life.age(2000), Some(0.5));
    assert_eq!(life.age(4000), Some(1.5));
    assert!(!life.is_over(2999));
    assert!(life.is_over(3000));
    assert_eq!(
        Lifetime::new(u64::MAX, 1.0, TimeScale::MILLISECONDS)
            .unwrap()
            .end,
        u64::MAX
    );
    assert_eq!(normalized_age(5.0, 5.0, 5.0), None);
    assert_eq!(normalized_age(5.0, 6.0, 5.0), None);
    assert_eq!(normalized_age(f64::NAN, 0.0, 1.0), None);
    assert_eq!(normalized_age(0.25, 0.0, 1.0), Some(0.25));
}

#[test]
fn coefficients_and_triangular_remap() {
    assert_eq!(Coefficient::Constant(0.7).eval(3.0), 0.7);
    assert_eq!(Coefficient::ForwardAge.eval(-1.0), 0.0);
    assert_eq!(Coefficient::ForwardAge.eval(0.3), 0.3);
    assert_eq!(Coefficient::ForwardAge.eval(2.0), 1.0);
    assert_eq!(Coefficient::ReverseAge.eval(0.25), 0.75);
    assert_eq!(Coefficient::CyclicPhase.eval(2.25), 0.25);
    assert_eq!(Coefficient::CyclicPhase.eval(-0.25), 0.75);
    assert_eq!(Coefficient::CyclicPhase.eval(f64::INFINITY), 0.0);
    assert_eq!(Coefficient::ForwardAge.eval(f64::NAN), 0.0);
    assert_eq!(triangular(0.0), 0.0);
    assert_eq!(triangular(0.5), 1.0);
    assert_eq!(triangular(1.0), 0.0);
    assert_eq!(triangular(0.25), 0.5);
}

#[test]
fn creation_order_is_disk_order_including_disabled() {
    let fx = every_opcode();
    let ops: Vec<u8> = creation_order(&fx)
        .map(|(_, c)| c.opcode().as_u8())
        .collect();
    assert_eq!(ops, (1..=10).collect::<Vec<u8>>());
    assert!(creation_order(&fx).any(|(_, c)| !c.enabled()));
}

fn arb_command() -> impl Strategy<Value = Command> {
    (0usize..10, any::<u32>(), any::<u64>()).prop_map(|(i, word_hi, seed)| {
        let op = Opcode::ALL[i];
        let body: Vec<u8> = (0..op.body_len())
            .map(|k| (seed.rotate_left(k as u32 % 64) as u8) ^ k as u8)
            .collect();
        Command::from_parts((word_hi & !0xFF) | u32::from(op.as_u8()), body).unwrap()
    })
}

fn arb_effect() -> impl Strategy<Value = Fxid> {
    (
        any::<[u32; 15]>(),
        proptest::collection::vec(arb_command(), 0..12),
    )
        .prop_map(|(w, commands)| Fxid {
            header: FxHeader {
                time_mode: w[0],
                duration_bits: w[1],
                phase_jitter_bits: w[2],
                flags: w[3],
                settings_id: w[4],
                random_shift_bits: [w[5], w[6], w[7]],
                pivot_bits: [w[8], w[9], w[10]],
                scale_bits: [w[11], w[12], w[13]],
            },
            commands,
        })
}

proptest! {
    #[test]
    fn encode_decode_encode_is_identity(fx in arb_effect()) {
        let bytes = fx.to_bytes().unwrap();
        prop_assert_eq!(bytes.len(), fx.encoded_len());
        let back = Fxid::parse(&bytes).unwrap();
        prop_assert_eq!(&back, &fx);
        prop_assert_eq!(back.to_bytes().unwrap(), bytes);
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..600)) {
        if let Ok(fx) = Fxid::parse(&data) {
            prop_assert_eq!(fx.to_bytes().unwrap(), data);
        }
    }
}
