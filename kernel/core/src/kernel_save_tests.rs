//! PD-SAVE-KERNEL: a kernel restored from a save hashes as the saved one did and goes on
//! tick for tick as if never interrupted; a refused state changes nothing.

use crate::*;
use glam::Vec3;

fn kernel(seed: u64, tick_hz: u32) -> Kernel {
    let mut k = Kernel::new(
        KernelConfig {
            seed,
            tick_hz,
            ..KernelConfig::default()
        },
        Box::new(ManualTimeSource::new()),
    )
    .unwrap();
    k.add_system(Box::new(Churn::default())).unwrap();
    k
}

/// Exercises every part of the kernel state: objects made (auto ids) and killed, slots
/// reused, moves from a simulation random stream, messages left waiting for the next
/// boundary, property changes, and a counter of its own kept through its saved state.
#[derive(Default)]
struct Churn {
    ticks: u64,
    heard: u64,
}

impl System for Churn {
    fn name(&self) -> &str {
        "churn"
    }
    fn calc_slot(&self) -> Option<CalcSlot> {
        Some(CalcSlot::Control)
    }
    fn calculate_object(&mut self, ctx: &mut SystemCtx<'_>, h: ObjectHandle) -> SystemResult {
        let turn = ctx.rng(StreamName::World)?.next_unit_f32();
        let o = ctx.object_mut(h)?;
        o.transform.position += Vec3::new(turn, 1.0 - turn, 0.25);
        o.transform.orientation = glam::Quat::from_rotation_z(turn * 6.0);
        o.behaviour_state = o.behaviour_state.wrapping_add(1);
        Ok(())
    }
    fn on_message(
        &mut self,
        _ctx: &mut SystemCtx<'_>,
        _object: Option<ObjectHandle>,
        _envelope: &Envelope,
    ) -> SystemResult {
        self.heard += 1;
        Ok(())
    }
    fn update(&mut self, ctx: &mut SystemCtx<'_>) -> SystemResult {
        self.ticks += 1;
        if self.ticks % 3 == 0 {
            let h = ctx.create(ObjectDesc {
                kind: 7,
                prototype: b"UNIT.DAT".to_vec(),
                ..ObjectDesc::default()
            })?;
            ctx.add_to_game(h)?;
        }
        if self.ticks % 5 == 0 {
            let victim = ctx.world().iter_registered().map(|(h, _)| h).nth(1);
            if let Some(h) = victim {
                ctx.kill(h)?;
            }
        }
        ctx.send(
            Target::Systems,
            GameMessage::KillPlayer {
                player: self.ticks as u32,
            },
        )?;
        Ok(())
    }
    fn state_digest(&self) -> Option<[u8; 32]> {
        let mut d = [0u8; 32];
        d[..8].copy_from_slice(&self.ticks.to_le_bytes());
        d[8..16].copy_from_slice(&self.heard.to_le_bytes());
        Some(d)
    }
    fn save_state(&self) -> Option<Result<SavedState, String>> {
        let mut bytes = self.ticks.to_le_bytes().to_vec();
        bytes.extend_from_slice(&self.heard.to_le_bytes());
        Some(Ok(SavedState {
            format: "churn".into(),
            version: 1,
            bytes,
        }))
    }
    fn restore_state(&mut self, state: &SavedState) -> Result<(), String> {
        let b: [u8; 16] = state.bytes.as_slice().try_into().map_err(|_| "16 bytes")?;
        self.ticks = u64::from_le_bytes(b[..8].try_into().map_err(|_| "ticks")?);
        self.heard = u64::from_le_bytes(b[8..].try_into().map_err(|_| "heard")?);
        Ok(())
    }
}

fn events(t: u64) -> Vec<InputEvent> {
    match t % 4 {
        0 => vec![InputEvent::Key {
            code: (t % 9) as u32,
            down: true,
        }],
        1 => vec![InputEvent::Axis {
            axis: 1,
            value: t as f32 * 0.01,
        }],
        2 => vec![InputEvent::Command {
            code: 3,
            arg: t as i32,
        }],
        _ => vec![],
    }
}

fn run(k: &mut Kernel, from: u64, ticks: u64) -> Vec<StateHash> {
    (from..from + ticks)
        .map(|t| {
            k.step(&events(t)).unwrap();
            k.state_hash()
        })
        .collect()
}

fn saved(k: &Kernel) -> (Vec<u8>, Vec<(String, SavedState)>) {
    let systems = k
        .system_states()
        .into_iter()
        .map(|(n, s)| (n, s.unwrap()))
        .collect();
    (k.save_state().unwrap(), systems)
}

fn restored(bytes: &[u8], systems: &[(String, SavedState)], seed: u64) -> Kernel {
    let mut k = kernel(seed, 30);
    k.restore_state(bytes).unwrap();
    for (name, s) in systems {
        k.restore_system_state(name, s).unwrap();
    }
    k
}

#[test]
fn a_restored_kernel_hashes_the_same_and_goes_on_as_if_never_interrupted() {
    for at in [0u64, 1, 17, 40] {
        let mut a = kernel(11, 30);
        for t in 0..4 {
            let w = a.world_mut().unwrap();
            let h = w
                .create(ObjectDesc {
                    id: Some(OriginalObjectId(100 + t)),
                    ..ObjectDesc::default()
                })
                .unwrap();
            w.add_to_game(h).unwrap();
        }
        run(&mut a, 0, at);
        if at == 40 {
            // A paused, scaled clock and a property change are state too (S4, S9).
            a.pause();
            let h = a.world().iter_registered().next().unwrap().0;
            a.world_mut()
                .unwrap()
                .get_mut(h)
                .unwrap()
                .props
                .push("Life state", [0, 2, 0, 0]);
        }
        let (bytes, systems) = saved(&a);
        let mut b = restored(&bytes, &systems, 11);
        assert_eq!(b.state_hash(), a.state_hash(), "saved at tick {at}");
        assert!(a.world().pending_changes() == b.world().pending_changes());
        if at == 40 {
            a.resume();
            b.resume();
        }
        assert_eq!(run(&mut b, at, 60), run(&mut a, at, 60), "after tick {at}");
        // And a second save of the restored kernel is the same bytes as the original's.
        assert_eq!(saved(&b).0, saved(&a).0);
    }
}

#[test]
fn refused_states_change_nothing() {
    let mut a = kernel(5, 30);
    run(&mut a, 0, 20);
    let (bytes, _) = saved(&a);
    let mut b = kernel(5, 30);
    run(&mut b, 0, 3);
    let before = b.state_hash();
    for len in 0..bytes.len() {
        let e = b.restore_state(&bytes[..len]).unwrap_err();
        assert!(matches!(e, KernelError::BadState(_)), "{len}: {e}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(b.restore_state(&longer).is_err());
    assert_eq!(b.state_hash(), before);
    // Another seed, another tick rate.
    let e = kernel(6, 30).restore_state(&bytes).unwrap_err();
    assert!(e.to_string().contains("seed 5"), "{e}");
    let e = kernel(5, 60).restore_state(&bytes).unwrap_err();
    assert!(e.to_string().contains("step"), "{e}");
    // A system that refuses its blob says which; an unknown system is named.
    let bad = SavedState {
        format: "churn".into(),
        version: 1,
        bytes: vec![1, 2, 3],
    };
    let e = b.restore_system_state("churn", &bad).unwrap_err();
    assert!(e.to_string().contains("system 'churn' refused"), "{e}");
    let e = b.restore_system_state("nobody", &bad).unwrap_err();
    assert!(e.to_string().contains("no system 'nobody'"), "{e}");
    assert_eq!(b.state_hash(), before);
}
