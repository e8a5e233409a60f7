//! The trace of a small scripted world: header, events in order, state changes,
//! sampling, and byte-identical output for identical runs.

use super::*;
use glam::{Quat, Vec3};
use iron3d_kernel::{
    CalcSlot, DeleteMode, KernelConfig, ManualTimeSource, ObjectDesc, ObjectHandle,
    OriginalObjectId, PropertyBag, System, SystemCtx, SystemResult, Target, Transform,
};

/// Moves every object +1 along its heading per second; object 1 collides with 2 in
/// tick 2 and changes state in tick 3; object 3 deletes itself in tick 2.
struct Script;

impl System for Script {
    fn name(&self) -> &str {
        "script"
    }
    fn calc_slot(&self) -> Option<CalcSlot> {
        Some(CalcSlot::Control)
    }
    fn calculate_object(&mut self, ctx: &mut SystemCtx<'_>, h: ObjectHandle) -> SystemResult {
        let tick = ctx.time().tick;
        let dt = ctx.time().step_seconds();
        let o = ctx.object_mut(h)?;
        let id = o.id.0;
        o.velocity = o.transform.orientation * Vec3::X;
        o.transform.position += o.velocity * dt;
        if id == 1 && tick == 3 {
            o.behaviour_state = 7;
        }
        if id == 1 && tick == 2 {
            let other = ctx.world().handle_of(OriginalObjectId(2)).unwrap();
            ctx.send(
                Target::Object(other),
                GameMessage::CollisionDetected {
                    a: OriginalObjectId(1),
                    b: OriginalObjectId(2),
                    point: [0.5, 0.0, 0.0],
                },
            )?;
        }
        if id == 3 && tick == 2 {
            ctx.delete(h, DeleteMode::Normal)?;
        }
        Ok(())
    }
}

fn world() -> Kernel {
    let mut k = Kernel::new(KernelConfig::default(), Box::new(ManualTimeSource::new())).unwrap();
    k.add_system(Box::new(Script)).unwrap();
    let w = k.world_mut().unwrap();
    // Created out of id order: the trace is still by id.
    for (id, heading) in [(3, 0.0), (1, 0.0), (2, std::f32::consts::FRAC_PI_2)] {
        let mut props = PropertyBag::new();
        props.push(&b"Life state"[..], [0, 10 * id, 0, 0]);
        let h = w
            .create(ObjectDesc {
                id: Some(OriginalObjectId(id)),
                transform: Transform {
                    position: Vec3::new(id as f32, 0.0, 0.0),
                    orientation: Quat::from_rotation_z(heading),
                    ..Transform::default()
                },
                props,
                ..ObjectDesc::default()
            })
            .unwrap();
        w.add_to_game(h).unwrap();
    }
    k
}

fn trace(every: u64, ticks: u64) -> String {
    let mut k = world();
    let mut t = TraceWriter::new(Vec::new(), every).unwrap();
    t.start(&mut k).unwrap();
    for _ in 0..ticks {
        k.step(&[]).unwrap();
        t.after_tick(&k).unwrap();
    }
    String::from_utf8(t.finish(&k).unwrap()).unwrap()
}

fn lines(s: &str) -> Vec<Value> {
    s.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn header_sample_events_and_state_changes_in_order() {
    let out = trace(2, 4);
    let l = lines(&out);
    assert_eq!(
        l[0],
        json!({"format": "iron3d-trace", "version": 1, "every": 2})
    );
    let kinds: Vec<(u64, String)> = l[1..]
        .iter()
        .map(|v| {
            (
                v["tick"].as_u64().unwrap(),
                v["type"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expect: Vec<(u64, &str)> = vec![
        (0, "object"),
        (0, "object"),
        (0, "object"),
        (1, "added"),
        (1, "added"),
        (1, "added"),
        (2, "collision"),
        (2, "removed"),
        (2, "object"),
        (2, "object"),
        (3, "state"),
        (4, "object"),
        (4, "object"),
    ];
    let got: Vec<(u64, &str)> = kinds.iter().map(|(t, k)| (*t, k.as_str())).collect();
    assert_eq!(got, expect, "{out}");
    // Tick 0 objects are by id, with life from `Life state` and the heading as yaw.
    assert_eq!(l[1]["id"], 1);
    assert_eq!(l[1]["life"], 10);
    assert_eq!(l[1]["pos"], json!([1.0, 0.0, 0.0]));
    assert_eq!(l[2]["id"], 2);
    assert!((l[2]["heading"].as_f64().unwrap() - std::f64::consts::FRAC_PI_2).abs() < 1e-6);
    assert_eq!(l[3]["id"], 3);
    // The collision names both ids and the point; the deletion is object 3.
    assert_eq!(
        l[7],
        json!({"tick": 2, "type": "collision", "a": 1, "b": 2, "point": [0.5, 0.0, 0.0], "to": 2})
    );
    assert_eq!(l[8], json!({"tick": 2, "type": "removed", "id": 3}));
    assert_eq!(
        l[11],
        json!({"tick": 3, "type": "state", "id": 1, "from": 0, "to": 7})
    );
    // Positions advance with the fixed step (30 Hz: 4 ticks = 4/30 s), written as the
    // shortest f32 decimal.
    let x = l[12]["pos"][0].as_f64().unwrap() as f32;
    let dt = 1.0 / 30.0f32;
    assert_eq!(x, 1.0 + dt + dt + dt + dt, "{}", l[12]);
    assert_eq!(l[12]["vel"], json!([1.0, 0.0, 0.0]));
}

#[test]
fn identical_runs_write_identical_bytes() {
    assert_eq!(trace(1, 6), trace(1, 6));
    assert_ne!(trace(1, 6), trace(3, 6));
}

#[test]
fn a_zero_interval_is_refused() {
    assert!(matches!(
        TraceWriter::new(Vec::new(), 0),
        Err(TraceError::ZeroInterval)
    ));
}

#[test]
fn numbers_are_shortest_and_non_finite_is_null() {
    assert_eq!(num(0.1).to_string(), "0.1");
    assert_eq!(num(f32::NAN), Value::Null);
    assert_eq!(num(f32::INFINITY), Value::Null);
}
