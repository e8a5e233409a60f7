//! The input plugin's answers (interface 2.3 input records) as the kernel's input
//! events.

/// Most input records one poll of the input plugin may answer; the rest are dropped
/// with a warning (a runaway plugin cannot grow a tick's snapshot without bound).
pub const MAX_INPUT_RECORDS: usize = 4096;

/// The kernel's input events of the input plugin's records, in order. A record of an
/// unknown kind, an unknown manual command or a non-finite axis value is left out with
/// a warning on the `Input` channel; so are the records past [`MAX_INPUT_RECORDS`].
pub fn input_events(records: &[iron3d_abi::InputRecord]) -> Vec<iron3d_kernel::InputEvent> {
    use iron3d_abi::InputRecordKind as K;
    use iron3d_kernel::{InputEvent, ManualCommandKind};
    if records.len() > MAX_INPUT_RECORDS {
        tracing::warn!(target: "Input", records = records.len(), kept = MAX_INPUT_RECORDS,
            "the input plugin answered too many records: the rest are dropped");
    }
    records
        .iter()
        .take(MAX_INPUT_RECORDS)
        .filter_map(|r| {
            let e = match r.kind {
                K::KEY_DOWN | K::KEY_UP => InputEvent::Key {
                    code: r.code,
                    down: r.kind == K::KEY_DOWN,
                },
                K::AXIS if r.value.is_finite() => InputEvent::Axis {
                    axis: r.code,
                    value: r.value,
                },
                K::MANUAL if r.code <= 2 => InputEvent::Manual {
                    kind: [
                        ManualCommandKind::State,
                        ManualCommandKind::AngleX,
                        ManualCommandKind::AngleY,
                    ][r.code as usize],
                    value: r.arg,
                },
                K::COMMAND => InputEvent::Command {
                    code: r.code,
                    arg: r.arg,
                },
                _ => {
                    tracing::warn!(target: "Input", record = ?r, "input record left out (unknown kind, manual command or a non-finite value)");
                    return None;
                }
            };
            Some(e)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use iron3d_abi::{InputRecord, InputRecordKind};
    use iron3d_kernel::{InputEvent, ManualCommandKind};

    #[test]
    fn records_convert_in_order_and_bad_ones_are_left_out() {
        let manual = InputRecord {
            kind: InputRecordKind::MANUAL,
            code: 1,
            value: 0.0,
            arg: -3,
        };
        let bad_manual = InputRecord { code: 7, ..manual };
        let unknown = InputRecord {
            kind: InputRecordKind(42),
            ..manual
        };
        let events = input_events(&[
            InputRecord::key(5, true),
            InputRecord::axis(2, f32::NAN),
            InputRecord::axis(2, 0.5),
            manual,
            bad_manual,
            unknown,
            InputRecord::command(9, 4),
            InputRecord::key(5, false),
        ]);
        assert_eq!(
            events,
            [
                InputEvent::Key {
                    code: 5,
                    down: true
                },
                InputEvent::Axis {
                    axis: 2,
                    value: 0.5
                },
                InputEvent::Manual {
                    kind: ManualCommandKind::AngleX,
                    value: -3
                },
                InputEvent::Command { code: 9, arg: 4 },
                InputEvent::Key {
                    code: 5,
                    down: false
                },
            ]
        );
    }

    #[test]
    fn a_flood_of_records_is_cut_at_the_limit() {
        let many = vec![InputRecord::key(1, true); MAX_INPUT_RECORDS + 10];
        assert_eq!(input_events(&many).len(), MAX_INPUT_RECORDS);
    }
}
