//! Tests of the wire codec.

#![allow(clippy::unwrap_used, reason = "tests")]

use super::*;
use crate::identity::PluginId;
use proptest::prelude::*;

fn hello() -> Message {
    Message::Hello(Hello {
        guid: crate::APPLICATION_GUID,
        protocol: crate::PROTOCOL_VERSION,
        identity: PeerIdentity {
            engine: "iron3d 0.1.0".into(),
            data: "ab".repeat(32),
            mods: "cd".repeat(32),
            plugins: vec![PluginId {
                slot: "ai".into(),
                name: "iron3d-ai".into(),
                version: "0.1.0".into(),
            }],
        },
        name: "Anna".into(),
        reserve: false,
    })
}

fn orders() -> Message {
    Message::Orders(Orders {
        turn: 7,
        player: 2,
        events: vec![
            (
                0,
                WireEvent::Key {
                    code: 65_553,
                    down: true,
                },
            ),
            (
                1,
                WireEvent::Axis {
                    axis: 3,
                    value: -0.5,
                },
            ),
            (
                2,
                WireEvent::Manual {
                    kind: 1,
                    value: -40,
                },
            ),
            (2, WireEvent::Command { code: 9, arg: 1 }),
        ],
    })
}

fn samples() -> Vec<Message> {
    vec![
        hello(),
        Message::Refused(Refused {
            differences: vec!["engine build: host a, joining b".into()],
        }),
        Message::Welcome(Welcome {
            player: 1,
            seats: vec![
                Seat {
                    player: 0,
                    name: "host".into(),
                    clan: 1,
                },
                Seat {
                    player: 1,
                    name: "Anna".into(),
                    clan: 2,
                },
            ],
            seed: 42,
            mission: "BATTLE".into(),
            turn_ticks: 3,
            delay_turns: 2,
        }),
        orders(),
        Message::TurnHash(TurnHash {
            turn: 7,
            player: 2,
            tick: 23,
            hash: [5; 32],
        }),
        Message::Chat(Chat {
            from: 0,
            to: Some(1),
            text: "gl hf".into(),
        }),
        Message::Left(Left {
            player: 1,
            turn: 30,
            reason: "timed out".into(),
        }),
        Message::Reserved(Reserved {
            player: 1,
            clans: vec![0, 1],
            seed: 42,
            mission: "BATTLE".into(),
            turn_ticks: 3,
            delay_turns: 2,
        }),
        Message::StateReport(StateReport {
            player: 1,
            tick: 60,
            bytes: vec![1, 2, 3],
        }),
        Message::Rejoin(Rejoin {
            player: 1,
            seats: vec![
                Seat {
                    player: 0,
                    name: "host".into(),
                    clan: 0,
                },
                Seat {
                    player: 1,
                    name: "Anna".into(),
                    clan: 1,
                },
            ],
            seed: 42,
            mission: "BATTLE".into(),
            turn_ticks: 3,
            delay_turns: 2,
            next_turn: 100,
            from_turn: 102,
            gone: vec![3],
            chunks: 2,
            bytes: 70_000,
        }),
        Message::SnapshotChunk(SnapshotChunk {
            index: 1,
            bytes: vec![7; 10],
        }),
        Message::Rejoined(Rejoined {
            player: 1,
            turn: 102,
        }),
    ]
}

#[test]
fn every_kind_round_trips() {
    let all = samples();
    assert_eq!(all.len(), KINDS as usize);
    for (k, m) in all.iter().enumerate() {
        let bytes = encode(m).unwrap();
        assert_eq!(
            usize::from(bytes[0]),
            k,
            "{}: the kind comes first",
            m.kind()
        );
        assert_eq!(decode(&bytes).unwrap(), *m);
    }
}

/// Length before content; unknown kinds, trailing bytes and fields out of their limits
/// are errors that name the kind and the field.
#[test]
fn bad_bytes_are_named_errors() {
    assert_eq!(decode(&[]), Err(WireError::Empty));
    assert_eq!(
        decode(&vec![3u8; MAX_MESSAGE_BYTES + 1]),
        Err(WireError::TooLong {
            len: MAX_MESSAGE_BYTES + 1
        })
    );
    assert_eq!(decode(&[12, 0]), Err(WireError::UnknownKind { kind: 12 }));
    let Message::Rejoin(mut r) = samples()[9].clone() else {
        unreachable!()
    };
    r.chunks = 5;
    assert_eq!(
        encode(&Message::Rejoin(r.clone())).unwrap_err().to_string(),
        "rejoin message: chunks: 5 for 70000 bytes: 2 expected"
    );
    r.chunks = 2;
    r.from_turn = 99;
    assert!(
        encode(&Message::Rejoin(r))
            .unwrap_err()
            .to_string()
            .contains("from_turn: 99 before")
    );
    let big = Message::StateReport(StateReport {
        player: 0,
        tick: 1,
        bytes: vec![0; MAX_REPORT_BYTES + 1],
    });
    assert!(
        encode(&big)
            .unwrap_err()
            .to_string()
            .contains("bytes: 61441 bytes")
    );
    assert_eq!(
        decode(&[0x85, 0x01]),
        Err(WireError::UnknownKind { kind: 133 })
    );
    let mut bytes = encode(&orders()).unwrap();
    bytes.push(0);
    assert_eq!(
        decode(&bytes),
        Err(WireError::Trailing {
            kind: "orders",
            extra: 1
        })
    );
    let bytes = encode(&orders()).unwrap();
    let e = decode(&bytes[..bytes.len() - 2]).unwrap_err();
    assert!(
        matches!(e, WireError::Malformed { kind: "orders", .. }),
        "{e}"
    );
    // A count larger than the bytes that follow is refused without allocating it.
    let huge = [3u8, 7, 2, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F];
    assert!(matches!(decode(&huge), Err(WireError::Malformed { .. })));
    // A reservation names a player of the match.
    let r = Reserved {
        player: 2,
        clans: vec![0, 1],
        seed: 1,
        mission: "M".into(),
        turn_ticks: 3,
        delay_turns: 2,
    };
    assert_eq!(
        encode(&Message::Reserved(r)).unwrap_err().to_string(),
        "reserved message: player: player 2 of 2"
    );
    // Fields.
    let Message::Orders(mut o) = orders() else {
        unreachable!()
    };
    o.events[1].1 = WireEvent::Axis {
        axis: 1,
        value: f32::NAN,
    };
    let e = encode(&Message::Orders(o.clone())).unwrap_err();
    assert_eq!(e.to_string(), "orders message: events: axis value NaN");
    o.events.truncate(1);
    o.player = 16;
    assert_eq!(
        encode(&Message::Orders(o)).unwrap_err().to_string(),
        "orders message: player: player 16: players are 0..16"
    );
    let chat = Message::Chat(Chat {
        from: 0,
        to: None,
        text: "x".repeat(MAX_CHAT_BYTES + 1),
    });
    assert!(
        encode(&chat)
            .unwrap_err()
            .to_string()
            .contains("text: 513 bytes")
    );
    // A field out of its limit in bytes from the network: the same error on decode.
    let ok = Message::Chat(Chat {
        from: 0,
        to: None,
        text: "x".repeat(MAX_CHAT_BYTES),
    });
    let mut bytes = encode(&ok).unwrap();
    bytes[1] = 15; // from = 15: a valid player
    assert!(decode(&bytes).is_ok());
    bytes[1] = 16;
    assert!(
        decode(&bytes)
            .unwrap_err()
            .to_string()
            .contains("from: player 16")
    );
}

/// FORMATS §13.15 "check the length before reading a payload": every strict prefix
/// of a valid message of every kind is a named error (never a panic, never a shorter
/// message of the same kind), and so is the whole message with one byte more.
#[test]
fn every_truncated_message_of_every_kind_is_an_error() {
    for m in samples() {
        let bytes = encode(&m).unwrap();
        assert_eq!(decode(&bytes).unwrap(), m);
        for cut in 0..bytes.len() {
            let e = decode(&bytes[..cut]).unwrap_err();
            match (cut, &e) {
                (0, WireError::Empty) => {}
                (_, WireError::Malformed { kind, .. }) => {
                    assert_eq!(*kind, m.kind(), "cut at {cut} of {}", bytes.len())
                }
                _ => panic!("{}: cut at {cut}: {e}", m.kind()),
            }
        }
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(
            decode(&long),
            Err(WireError::Trailing {
                kind: m.kind(),
                extra: 1
            })
        );
    }
}

proptest! {
    /// Any bytes decode or are refused, never panic; what decodes round-trips.
    #[test]
    fn any_bytes_decode_or_are_refused(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        fuzz_check(&bytes);
    }

    /// Every prefix and every single-bit flip of a valid message of every kind is
    /// handled.
    #[test]
    fn damaged_messages_are_handled(k in 0usize..KINDS as usize, cut in 0usize..200, bit in 0usize..2048) {
        let bytes = encode(&samples()[k]).unwrap();
        fuzz_check(&bytes[..cut.min(bytes.len())]);
        let mut flipped = bytes.clone();
        let at = (bit / 8) % flipped.len();
        flipped[at] ^= 1 << (bit % 8);
        fuzz_check(&flipped);
    }
}
