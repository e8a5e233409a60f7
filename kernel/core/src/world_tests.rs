//! Unit tests of the World3D queue: two-step creation, stable order, deferred deletion, stale handles.

use super::*;
use proptest::prelude::*;

fn desc(id: u32) -> ObjectDesc {
    ObjectDesc {
        id: Some(OriginalObjectId(id)),
        ..Default::default()
    }
}

fn spawn(w: &mut World, id: u32) -> ObjectHandle {
    let h = w.create(desc(id)).unwrap();
    w.add_to_game(h).unwrap();
    h
}

fn ids_in_queue(w: &World) -> Vec<u32> {
    w.iter_registered().map(|(_, o)| o.id.raw()).collect()
}

fn traverse(w: &mut World, mut f: impl FnMut(&mut World, ObjectHandle)) -> Vec<u32> {
    let mut visited = Vec::new();
    w.begin_calculation().unwrap();
    for i in 0..w.queue_len() {
        if let Some(h) = w.queue_live_at(i) {
            visited.push(w.get(h).unwrap().id.raw());
            f(w, h);
        }
    }
    w.end_calculation();
    visited
}

#[test]
fn constructed_object_is_invisible_until_added_to_game() {
    let mut w = World::default();
    let a = spawn(&mut w, 1);
    let b = w.create(desc(2)).unwrap();
    assert_eq!(w.get(b).unwrap().status(), ObjectStatus::Constructed);
    assert_eq!(traverse(&mut w, |_, _| {}), vec![1]);
    w.add_to_game(b).unwrap();
    assert_eq!(traverse(&mut w, |_, _| {}), vec![1, 2]);
    assert!(matches!(
        w.add_to_game(a),
        Err(KernelError::AlreadyRegistered { .. })
    ));
}

#[test]
fn traversal_follows_insertion_order_not_ids_or_slots() {
    let mut w = World::default();
    for id in [30, 10, 20] {
        spawn(&mut w, id);
    }
    let h10 = w.handle_of(OriginalObjectId(10)).unwrap();
    w.delete(h10, DeleteMode::Normal);
    spawn(&mut w, 5); // reuses slot of 10, but joins at the end of the queue
    assert_eq!(traverse(&mut w, |_, _| {}), vec![30, 20, 5]);
}

#[test]
fn delete_during_traversal_is_applied_after_it() {
    let mut w = World::default();
    let hs: Vec<_> = (1..=4).map(|i| spawn(&mut w, i)).collect();
    let target = hs[2];
    let visited = traverse(&mut w, |w, h| {
        if h == hs[0] {
            assert_eq!(
                w.delete(target, DeleteMode::Normal),
                DeleteOutcome::Deferred
            );
            assert!(w.get(target).unwrap().is_pending_delete());
        }
    });
    // The pending object is skipped by the rest of the traversal but still exists.
    assert_eq!(visited, vec![1, 2, 4]);
    assert!(w.contains(target));
    assert_eq!(w.pending_delete_count(), 1);
    let report = w.apply_deferred().unwrap();
    assert_eq!(report.deleted, 1);
    assert!(!w.contains(target));
    assert_eq!(ids_in_queue(&w), vec![1, 2, 4]);
}

#[test]
fn delete_in_own_callback_is_safe() {
    let mut w = World::default();
    let hs: Vec<_> = (1..=3).map(|i| spawn(&mut w, i)).collect();
    let visited = traverse(&mut w, |w, h| {
        if h == hs[1] {
            assert_eq!(w.delete(h, DeleteMode::Normal), DeleteOutcome::Deferred);
            // The object is still readable and writable for the rest of its own callback.
            w.get_mut(h).unwrap().behaviour_state = 99;
            assert_eq!(w.get(h).unwrap().behaviour_state, 99);
        }
    });
    assert_eq!(visited, vec![1, 2, 3]);
    w.apply_deferred().unwrap();
    assert_eq!(ids_in_queue(&w), vec![1, 3]);
}

#[test]
fn forced_delete_during_traversal_releases_at_once_and_traversal_skips_it() {
    let mut w = World::default();
    let hs: Vec<_> = (1..=3).map(|i| spawn(&mut w, i)).collect();
    let visited = traverse(&mut w, |w, h| {
        if h == hs[0] {
            assert_eq!(w.delete(hs[1], DeleteMode::Forced), DeleteOutcome::Released);
        }
    });
    assert_eq!(visited, vec![1, 3]);
    assert!(matches!(w.get(hs[1]), Err(KernelError::StaleHandle { .. })));
    w.apply_deferred().unwrap();
    assert_eq!(ids_in_queue(&w), vec![1, 3]);
}

#[test]
fn double_delete_is_harmless() {
    let mut w = World::default();
    let a = spawn(&mut w, 1);
    let b = spawn(&mut w, 2);
    traverse(&mut w, |w, h| {
        if h == a {
            assert_eq!(w.delete(b, DeleteMode::Normal), DeleteOutcome::Deferred);
            assert_eq!(
                w.delete(b, DeleteMode::Normal),
                DeleteOutcome::AlreadyPending
            );
            assert_eq!(w.kill(b), DeleteOutcome::AlreadyPending);
        }
    });
    assert_eq!(w.apply_deferred().unwrap().deleted, 1);
    assert_eq!(w.delete(b, DeleteMode::Normal), DeleteOutcome::AlreadyGone);
    assert_eq!(w.delete(b, DeleteMode::Forced), DeleteOutcome::AlreadyGone);
    assert_eq!(w.delete(a, DeleteMode::Normal), DeleteOutcome::Released);
    assert_eq!(w.delete(a, DeleteMode::Normal), DeleteOutcome::AlreadyGone);
    assert_eq!(w.registered_count(), 0);
}

#[test]
fn delete_of_never_registered_object_releases_it_silently() {
    let mut w = World::default();
    spawn(&mut w, 1);
    let pending = w.create(desc(2)).unwrap();
    // Even during a traversal: a constructed object is not in the queue, so it goes at once.
    traverse(&mut w, |w, _| {
        if w.contains(pending) {
            assert_eq!(
                w.delete(pending, DeleteMode::Normal),
                DeleteOutcome::Released
            );
        }
    });
    assert!(!w.contains(pending));
    assert_eq!(w.apply_deferred().unwrap(), DeferredReport::default());
    // Its id was never reserved, so another object may take it.
    spawn(&mut w, 2);
}

#[test]
fn registration_during_traversal_joins_at_the_boundary() {
    let mut w = World::default();
    let a = spawn(&mut w, 1);
    let mut created = None;
    let visited = traverse(&mut w, |w, h| {
        if h == a {
            let n = w.create(desc(7)).unwrap();
            w.add_to_game(n).unwrap();
            assert_eq!(w.get(n).unwrap().status(), ObjectStatus::RegistrationQueued);
            // The id is reserved immediately.
            let dup = w.create(desc(7)).unwrap();
            assert!(matches!(
                w.add_to_game(dup),
                Err(KernelError::DuplicateOriginalId { .. })
            ));
            created = Some(n);
        }
    });
    assert_eq!(visited, vec![1]);
    assert_eq!(w.apply_deferred().unwrap().registered, 1);
    assert_eq!(ids_in_queue(&w), vec![1, 7]);
    assert!(w.get(created.unwrap()).unwrap().is_registered());
}

#[test]
fn kill_always_goes_through_the_queue() {
    let mut w = World::default();
    let a = spawn(&mut w, 1);
    assert_eq!(w.kill(a), DeleteOutcome::Deferred);
    assert!(w.contains(a));
    w.apply_deferred().unwrap();
    assert!(!w.contains(a));
}

#[test]
fn stale_handles_are_detected_never_rebound() {
    let mut w = World::default();
    let a = spawn(&mut w, 1);
    w.delete(a, DeleteMode::Normal);
    let b = spawn(&mut w, 2);
    assert_eq!(a.slot, b.slot, "slot is reused");
    assert_ne!(a.generation, b.generation);
    assert!(matches!(w.get(a), Err(KernelError::StaleHandle { handle }) if handle == a));
    assert!(matches!(w.get_mut(a), Err(KernelError::StaleHandle { .. })));
    assert!(matches!(
        w.add_to_game(a),
        Err(KernelError::StaleHandle { .. })
    ));
    assert_eq!(w.delete(a, DeleteMode::Forced), DeleteOutcome::AlreadyGone);
    assert!(
        w.contains(b),
        "deleting through a stale handle must not touch the new occupant"
    );
    let bogus = ObjectHandle {
        slot: 999,
        generation: 0,
    };
    assert!(matches!(w.get(bogus), Err(KernelError::StaleHandle { .. })));
}

#[test]
fn slot_whose_generation_is_exhausted_is_retired() {
    let mut w = World::default();
    let a = spawn(&mut w, 1);
    w.slots[a.slot as usize].generation = u32::MAX - 1;
    let a = ObjectHandle {
        slot: a.slot,
        generation: u32::MAX - 1,
    };
    w.delete(a, DeleteMode::Normal);
    assert_eq!(w.retired_slots(), 1);
    let b = spawn(&mut w, 2);
    assert_ne!(b.slot, a.slot);
}

#[test]
fn nested_traversal_is_refused() {
    let mut w = World::default();
    w.begin_calculation().unwrap();
    assert!(matches!(
        w.begin_calculation(),
        Err(KernelError::NestedTraversal { depth: 1 })
    ));
    assert!(w.apply_deferred().is_err());
    w.end_calculation();
    assert_eq!(w.calculation_depth(), 0);
}

#[test]
fn mirrors_keep_their_owner() {
    let mut w = World::default();
    let m = w.create_mirror(desc(5), 3).unwrap();
    w.add_to_game(m).unwrap();
    let o = w.get(m).unwrap();
    assert_eq!(o.locality, Locality::Mirror { owner_player: 3 });
    assert!(o.locality.is_mirror());
}

#[test]
fn clear_releases_everything() {
    let mut w = World::default();
    for i in 0..5 {
        spawn(&mut w, i);
    }
    w.create(desc(99)).unwrap();
    assert_eq!(w.clear(), 6);
    assert_eq!(w.registered_count(), 0);
    assert_eq!(w.iter_registered().count(), 0);
}

#[derive(Clone, Debug)]
enum Op {
    Spawn,
    Delete(u8, bool),
    Kill(u8),
    BeginCalc,
    EndCalcAndApply,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        Just(Op::Spawn),
        (any::<u8>(), any::<bool>()).prop_map(|(i, f)| Op::Delete(i, f)),
        any::<u8>().prop_map(Op::Kill),
        Just(Op::BeginCalc),
        Just(Op::EndCalcAndApply),
    ]
}

proptest! {
    /// Any sequence of operations keeps the invariants: the queue holds each live
    /// registered object once, in registration order; stale handles never resolve.
    #[test]
    fn random_operation_sequences_keep_queue_invariants(ops in proptest::collection::vec(op(), 1..200)) {
        let mut w = World::default();
        let mut handles: Vec<ObjectHandle> = Vec::new();
        let mut next_id = 0u32;
        for op in ops {
            match op {
                Op::Spawn => {
                    let h = w.create(desc(next_id)).unwrap();
                    next_id += 1;
                    w.add_to_game(h).unwrap();
                    handles.push(h);
                }
                Op::Delete(i, forced) if !handles.is_empty() => {
                    let h = handles[i as usize % handles.len()];
                    w.delete(h, if forced { DeleteMode::Forced } else { DeleteMode::Normal });
                }
                Op::Kill(i) if !handles.is_empty() => {
                    let h = handles[i as usize % handles.len()];
                    w.kill(h);
                }
                Op::BeginCalc => { let _ = w.begin_calculation(); }
                Op::EndCalcAndApply => {
                    w.end_calculation();
                    if w.calculation_depth() == 0 { w.apply_deferred().unwrap(); }
                }
                _ => {}
            }
            let seqs: Vec<u64> = w.iter_registered().map(|(_, o)| match o.status() {
                ObjectStatus::Registered { seq } | ObjectStatus::PendingDelete { seq } => seq,
                s => panic!("unexpected status {s:?} in queue"),
            }).collect();
            prop_assert!(seqs.windows(2).all(|p| p[0] < p[1]));
            for &h in &handles {
                if let Ok(o) = w.get(h) {
                    prop_assert_eq!(w.handle_of(o.id), Some(h));
                }
            }
        }
    }
}
