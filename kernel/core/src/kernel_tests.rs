//! Scheduler-level tests: phase boundaries, bus delivery, registry guards, frame-rate
//! independence, pause, faults and ordered shutdown.

use crate::*;
use glam::Vec3;
use std::sync::{Arc, Mutex};

type Log = Arc<Mutex<Vec<String>>>;

fn kernel(seed: u64) -> (Kernel, ManualTimeSource) {
    let clock = ManualTimeSource::new();
    let k = Kernel::new(
        KernelConfig {
            seed,
            ..KernelConfig::default()
        },
        Box::new(clock.clone()),
    )
    .unwrap();
    (k, clock)
}

fn spawn(k: &mut Kernel, id: u32, pos: Vec3) -> ObjectHandle {
    let w = k.world_mut().unwrap();
    let h = w
        .create(ObjectDesc {
            id: Some(OriginalObjectId(id)),
            transform: Transform {
                position: pos,
                ..Transform::default()
            },
            ..ObjectDesc::default()
        })
        .unwrap();
    w.add_to_game(h).unwrap();
    h
}

/// Moves objects with AI-stream headings; used for determinism tests.
struct Wanderer;

impl System for Wanderer {
    fn name(&self) -> &str {
        "wanderer"
    }
    fn calc_slot(&self) -> Option<CalcSlot> {
        Some(CalcSlot::Control)
    }
    fn calculate_object(&mut self, ctx: &mut SystemCtx<'_>, h: ObjectHandle) -> SystemResult {
        let dt = ctx.time().step_seconds();
        let turn = ctx.rng(StreamName::Ai)?.next_unit_f32() - 0.5;
        let steer: f32 = ctx.input().commands.iter().map(|&(_, a)| a as f32).sum();
        let o = ctx.object_mut(h)?;
        o.velocity = glam::Quat::from_rotation_z(turn + steer) * (o.velocity + Vec3::X);
        o.velocity = o.velocity.clamp_length_max(5.0);
        o.transform.position += o.velocity * dt;
        Ok(())
    }
}

/// Records what it sees, in order.
struct Recorder {
    log: Log,
    slot: CalcSlot,
    name: &'static str,
}

impl System for Recorder {
    fn name(&self) -> &str {
        self.name
    }
    fn calc_slot(&self) -> Option<CalcSlot> {
        Some(self.slot)
    }
    fn calculate_object(&mut self, ctx: &mut SystemCtx<'_>, h: ObjectHandle) -> SystemResult {
        let id = ctx.object(h)?.id.raw();
        self.log
            .lock()
            .unwrap()
            .push(format!("{}:calc:{id}", self.name));
        Ok(())
    }
    fn on_message(
        &mut self,
        ctx: &mut SystemCtx<'_>,
        obj: Option<ObjectHandle>,
        env: &Envelope,
    ) -> SystemResult {
        let to = obj.map(|h| ctx.object(h).map(|o| o.id.raw()).unwrap_or(u32::MAX));
        self.log.lock().unwrap().push(format!(
            "{}:msg:{}:{:?}:{:?}:{}->{to:?}",
            self.name,
            env.message.name(),
            env.phase,
            env.sender,
            env.sequence
        ));
        Ok(())
    }
}

fn run_frames(
    k: &mut Kernel,
    clock: &ManualTimeSource,
    fps: u64,
    ticks: u64,
    input: &mut dyn InputSource,
) -> u64 {
    let mut frames = 0u64;
    let start = clock.now_ns();
    while k.tick() < ticks {
        frames += 1;
        clock.set_ns(start + frames * clock::NANOS_PER_SEC / fps);
        let left = ticks - k.tick();
        k.frame(input, Some(left)).unwrap();
    }
    frames
}

struct Scripted;
impl InputSource for Scripted {
    fn events_for_tick(&mut self, tick: u64) -> Vec<InputEvent> {
        if tick % 17 == 0 {
            vec![InputEvent::Command {
                code: 1,
                arg: (tick % 3) as i32 - 1,
            }]
        } else {
            vec![]
        }
    }
}

fn wander_hash(fps: u64, ticks: u64) -> (StateHash, u64) {
    let (mut k, clock) = kernel(1234);
    k.add_system(Box::new(Wanderer)).unwrap();
    for i in 0..50 {
        spawn(&mut k, i, Vec3::new(i as f32, 0.0, 0.0));
    }
    let frames = run_frames(&mut k, &clock, fps, ticks, &mut Scripted);
    (k.state_hash(), frames)
}

#[test]
fn simulation_does_not_depend_on_frame_rate() {
    let (h30, f30) = wander_hash(30, 300);
    let (h144, f144) = wander_hash(144, 300);
    let (h7, _) = wander_hash(7, 300);
    assert_eq!(h30, h144);
    assert_eq!(h30, h7);
    assert!(f144 > 4 * f30, "144 fps ran {f144} frames vs {f30}");
    let (other, _) = wander_hash(30, 301);
    assert_ne!(h30, other);
}

#[test]
fn pause_stops_ticks_and_game_time_while_platform_time_goes_on() {
    let (mut k, clock) = kernel(0);
    k.add_system(Box::new(Wanderer)).unwrap();
    spawn(&mut k, 1, Vec3::ZERO);
    clock.advance_ns(clock::NANOS_PER_SEC / 10);
    k.frame(&mut NoInput, None).unwrap();
    let (tick, game) = (k.tick(), k.game_clock().now_ns());
    assert_eq!(tick, 3);
    let hash = k.state_hash();
    k.pause();
    for _ in 0..10 {
        clock.advance_ns(clock::NANOS_PER_SEC / 10);
        assert_eq!(k.frame(&mut NoInput, None).unwrap().ticks, 0);
    }
    assert_eq!(k.tick(), tick);
    assert_eq!(k.game_clock().now_ns(), game);
    assert_eq!(k.platform_now_ns(), 11 * clock::NANOS_PER_SEC / 10);
    // Pausing changes the hash (the paused flag is state), resuming restores it.
    assert_ne!(k.state_hash(), hash);
    k.resume();
    assert_eq!(k.state_hash(), hash);
    k.set_time_scale(2, 1).unwrap();
    clock.advance_ns(clock::NANOS_PER_SEC / 10);
    assert_eq!(k.frame(&mut NoInput, None).unwrap().ticks, 6);
}

#[test]
fn huge_stall_runs_bounded_steps_and_counts_the_dropped_frame() {
    let (mut k, clock) = kernel(0);
    clock.advance_ns(60 * clock::NANOS_PER_SEC);
    let r = k.frame(&mut NoInput, None).unwrap();
    assert_eq!(r.ticks, k.config().max_steps_per_frame);
    assert!(r.dropped);
    assert_eq!(k.stats().dropped_frames, 1);
}

/// Sends a collision message from object 1 to object 2 during traversal.
struct Collider {
    log: Log,
}

impl System for Collider {
    fn name(&self) -> &str {
        "collider"
    }
    fn calc_slot(&self) -> Option<CalcSlot> {
        Some(CalcSlot::Control)
    }
    fn calculate_object(&mut self, ctx: &mut SystemCtx<'_>, h: ObjectHandle) -> SystemResult {
        let id = ctx.object(h)?.id;
        if id.raw() == 1 {
            let other = ctx
                .world()
                .handle_of(OriginalObjectId(2))
                .ok_or(SystemError("no 2".into()))?;
            ctx.send(
                Target::Object(other),
                GameMessage::CollisionDetected {
                    a: id,
                    b: OriginalObjectId(2),
                    point: [0.0; 3],
                },
            )?;
            ctx.send(
                Target::Object(other),
                GameMessage::CollisionDetected {
                    a: id,
                    b: OriginalObjectId(2),
                    point: [1.0; 3],
                },
            )?;
            self.log.lock().unwrap().push("collider:sent".into());
        }
        if id.raw() == 3 {
            ctx.send(
                Target::Systems,
                GameMessage::TextForPlayer {
                    player: 0,
                    text: b"hi".to_vec(),
                },
            )?;
        }
        Ok(())
    }
}

#[test]
fn message_sent_during_traversal_is_delivered_at_the_next_boundary_in_stable_order() {
    let run = || {
        let log: Log = Arc::default();
        let (mut k, _clock) = kernel(0);
        k.add_system(Box::new(Recorder {
            log: log.clone(),
            slot: CalcSlot::Ai,
            name: "rec",
        }))
        .unwrap();
        k.add_system(Box::new(Collider { log: log.clone() }))
            .unwrap();
        for id in 1..=3 {
            spawn(&mut k, id, Vec3::ZERO);
        }
        k.step(&[]).unwrap();
        log.lock().unwrap().clone()
    };
    let log = run();
    let sent = log.iter().position(|l| l == "collider:sent").unwrap();
    let last_calc = log.iter().rposition(|l| l.starts_with("rec:calc")).unwrap();
    let first_msg = log.iter().position(|l| l.contains(":msg:")).unwrap();
    assert!(
        sent < last_calc,
        "object 1 is calculated before objects 2 and 3"
    );
    assert!(
        first_msg > last_calc,
        "delivery waits for the end of the traversal: {log:#?}"
    );
    let msgs: Vec<&String> = log.iter().filter(|l| l.contains(":msg:")).collect();
    assert_eq!(
        msgs.len(),
        3,
        "two object messages and one broadcast reach the recorder: {msgs:#?}"
    );
    assert!(
        msgs[0].contains("GMSG_COLLISION_DETECTED") && msgs[0].ends_with(":0->Some(2)"),
        "{msgs:#?}"
    );
    assert!(msgs[1].ends_with(":1->Some(2)"), "{msgs:#?}");
    assert!(msgs[2].contains("GMSG_TEXT_FOR_PLAYER"), "{msgs:#?}");
    assert_eq!(run(), log, "delivery order is identical across runs");
}

/// Deletes its own object when it receives a collision; tries registry mutation during traversal.
struct SelfDestruct {
    registry_error: Arc<Mutex<Option<String>>>,
    outcomes: Arc<Mutex<Vec<(DeleteOutcome, DeleteOutcome)>>>,
}

impl System for SelfDestruct {
    fn name(&self) -> &str {
        "self-destruct"
    }
    fn calc_slot(&self) -> Option<CalcSlot> {
        Some(CalcSlot::Behavior)
    }
    fn calculate_object(&mut self, ctx: &mut SystemCtx<'_>, h: ObjectHandle) -> SystemResult {
        if ctx.object(h)?.id.raw() == 2 {
            let e = ctx.add_system(Box::new(Wanderer)).unwrap_err();
            *self.registry_error.lock().unwrap() = Some(e.to_string());
        }
        Ok(())
    }
    fn on_message(
        &mut self,
        ctx: &mut SystemCtx<'_>,
        obj: Option<ObjectHandle>,
        env: &Envelope,
    ) -> SystemResult {
        if let (Some(h), GameMessage::CollisionDetected { .. }) = (obj, &env.message) {
            // Two collisions arrive in the same batch: the first defers the delete, every
            // later request (in this callback or the next) is a harmless no-op.
            let first = ctx.delete(h, DeleteMode::Normal)?;
            let second = ctx.delete(h, DeleteMode::Normal)?;
            self.outcomes.lock().unwrap().push((first, second));
            // Still safe to touch in its own callback.
            ctx.object_mut(h)?.behaviour_state = 7;
        }
        Ok(())
    }
}

#[test]
fn object_deleted_in_its_own_event_callback_and_registry_guard() {
    let log: Log = Arc::default();
    let registry_error = Arc::new(Mutex::new(None));
    let (mut k, _clock) = kernel(0);
    let outcomes = Arc::new(Mutex::new(Vec::new()));
    k.add_system(Box::new(SelfDestruct {
        registry_error: registry_error.clone(),
        outcomes: outcomes.clone(),
    }))
    .unwrap();
    k.add_system(Box::new(Collider { log })).unwrap();
    for id in 1..=3 {
        spawn(&mut k, id, Vec3::ZERO);
    }
    k.step(&[]).unwrap();
    let err = registry_error.lock().unwrap().clone().unwrap();
    assert!(
        err.contains("registry mutation is forbidden during phase calculate_world_queue"),
        "{err}"
    );
    assert!(
        k.world().handle_of(OriginalObjectId(2)).is_none(),
        "object 2 deleted itself"
    );
    assert_eq!(
        *outcomes.lock().unwrap(),
        vec![
            (DeleteOutcome::Deferred, DeleteOutcome::AlreadyPending),
            (DeleteOutcome::AlreadyPending, DeleteOutcome::AlreadyPending)
        ]
    );
    assert_eq!(k.stats().deferred_deletes, 1);
    assert_eq!(
        k.system_names(),
        vec!["self-destruct", "collider"],
        "registry untouched"
    );
    // The mission goes on (the collider now reports that object 2 is gone: a counted fault).
    k.step(&[]).unwrap();
    assert_eq!(k.system_faults("collider"), Some(1));
    assert_eq!(k.world().registered_count(), 2);
}

#[test]
fn calc_slots_run_in_fixed_order_per_object() {
    let log: Log = Arc::default();
    let (mut k, _clock) = kernel(0);
    for (slot, name) in [
        (CalcSlot::Control, "control"),
        (CalcSlot::Ai, "ai"),
        (CalcSlot::Wizard, "wizard"),
        (CalcSlot::Behavior, "behavior"),
    ] {
        k.add_system(Box::new(Recorder {
            log: log.clone(),
            slot,
            name,
        }))
        .unwrap();
    }
    spawn(&mut k, 10, Vec3::ZERO);
    spawn(&mut k, 5, Vec3::ZERO);
    k.step(&[]).unwrap();
    let got = log.lock().unwrap().clone();
    let want: Vec<String> = [10, 5]
        .iter()
        .flat_map(|id| ["ai", "behavior", "wizard", "control"].map(|s| format!("{s}:calc:{id}")))
        .collect();
    assert_eq!(got, want);
}

struct Faulty {
    calls: Arc<Mutex<u32>>,
}

impl System for Faulty {
    fn name(&self) -> &str {
        "faulty"
    }
    fn calc_slot(&self) -> Option<CalcSlot> {
        Some(CalcSlot::Ai)
    }
    fn calculate_object(&mut self, _ctx: &mut SystemCtx<'_>, _h: ObjectHandle) -> SystemResult {
        *self.calls.lock().unwrap() += 1;
        Err(SystemError("boom".into()))
    }
}

#[test]
fn system_errors_are_counted_and_the_mission_goes_on() {
    let (mut k, _clock) = kernel(0);
    let calls = Arc::default();
    k.add_system(Box::new(Faulty {
        calls: Arc::clone(&calls),
    }))
    .unwrap();
    k.add_system(Box::new(Wanderer)).unwrap();
    let h = spawn(&mut k, 1, Vec3::ZERO);
    for _ in 0..3 {
        k.step(&[]).unwrap();
    }
    assert_eq!(k.system_faults("faulty"), Some(3));
    assert_eq!(k.stats().system_faults, 3);
    assert_ne!(
        k.world().get(h).unwrap().transform.position,
        Vec3::ZERO,
        "other systems kept running"
    );
}

struct Lifecycle {
    name: &'static str,
    fail_init: bool,
    log: Log,
}

impl System for Lifecycle {
    fn name(&self) -> &str {
        self.name
    }
    fn init(&mut self, _ctx: &mut SystemCtx<'_>) -> SystemResult {
        self.log.lock().unwrap().push(format!("init {}", self.name));
        if self.fail_init {
            Err(SystemError("no device".into()))
        } else {
            Ok(())
        }
    }
    fn shutdown(&mut self) {
        self.log
            .lock()
            .unwrap()
            .push(format!("shutdown {}", self.name));
    }
}

#[test]
fn ordered_shutdown_from_a_partially_initialised_state() {
    let log: Log = Arc::default();
    let (mut k, _clock) = kernel(0);
    for (name, fail) in [("terrain", false), ("audio", false), ("render", true)] {
        let r = k.add_system(Box::new(Lifecycle {
            name,
            fail_init: fail,
            log: log.clone(),
        }));
        assert_eq!(r.is_err(), fail);
        if let Err(e) = r {
            assert!(
                e.to_string().contains("render") && e.to_string().contains("no device"),
                "{e}"
            );
        }
    }
    spawn(&mut k, 1, Vec3::ZERO);
    let c = k
        .world_mut()
        .unwrap()
        .create(ObjectDesc::default())
        .unwrap();
    let one = k.world().handle_of(OriginalObjectId(1)).unwrap();
    k.world_mut().unwrap().kill(one);
    let report = k.shutdown();
    assert_eq!(report.systems_shut_down, vec!["audio", "terrain"]);
    assert_eq!(report.drained_deletes, 1);
    assert_eq!(
        report.released_objects, 1,
        "the constructed object; the killed one was drained first"
    );
    assert!(!k.world().contains(c));
    assert_eq!(
        *log.lock().unwrap(),
        vec![
            "init terrain",
            "init audio",
            "init render",
            "shutdown audio",
            "shutdown terrain"
        ]
    );
    assert_eq!(
        k.shutdown(),
        ShutdownReport::default(),
        "second shutdown does nothing"
    );
    // A kernel that never got a system shuts down too.
    let (mut empty, _) = kernel(0);
    assert!(empty.shutdown().systems_shut_down.is_empty());
}

#[test]
fn external_messages_wait_for_a_boundary_and_keep_sender_order() {
    let log: Log = Arc::default();
    let (mut k, _clock) = kernel(0);
    k.add_system(Box::new(Recorder {
        log: log.clone(),
        slot: CalcSlot::Ai,
        name: "rec",
    }))
    .unwrap();
    let net = k.external_sender(7);
    let console = k.external_sender(2);
    net.send(
        Phase::CollectEvents,
        Target::Systems,
        GameMessage::KillPlayer { player: 1 },
    )
    .unwrap();
    console
        .send(
            Phase::CollectEvents,
            Target::Systems,
            GameMessage::KillPlayer { player: 2 },
        )
        .unwrap();
    net.send(
        Phase::CollectEvents,
        Target::Systems,
        GameMessage::KillPlayer { player: 3 },
    )
    .unwrap();
    assert!(log.lock().unwrap().is_empty());
    k.step(&[]).unwrap();
    let got = log.lock().unwrap().clone();
    assert_eq!(got.len(), 3);
    assert!(
        got[0].contains("External(2)")
            && got[1].contains("External(7):0")
            && got[2].contains("External(7):1"),
        "{got:#?}"
    );
}

#[test]
fn render_snapshot_is_published_each_frame() {
    let (mut k, clock) = kernel(0);
    spawn(&mut k, 4, Vec3::new(1.0, 2.0, 3.0));
    clock.advance_ns(clock::NANOS_PER_SEC / 30);
    k.frame(&mut NoInput, None).unwrap();
    let snap = k.snapshot().unwrap();
    assert_eq!((snap.frame, snap.tick), (1, 1));
    assert_eq!(snap.objects.len(), 1);
    assert_eq!(snap.objects[0].transform.position, Vec3::new(1.0, 2.0, 3.0));
}

#[test]
fn the_frame_preparer_sees_each_snapshot_and_its_data_is_attached() {
    use crate::snapshot::FramePreparer;
    use std::any::Any;
    use std::sync::Arc;
    struct CountObjects;
    impl FramePreparer for CountObjects {
        fn prepare(&mut self, s: &RenderSnapshot) -> Option<Arc<dyn Any + Send + Sync>> {
            Some(Arc::new((s.frame, s.objects.len(), s.time_ms)))
        }
    }
    let time = ManualTimeSource::new();
    let mut k = Kernel::new(KernelConfig::default(), Box::new(time.clone())).unwrap();
    spawn(&mut k, 1, Vec3::ZERO);
    assert!(k.set_frame_preparer(Some(Box::new(CountObjects))).is_none());
    time.advance_ns(crate::clock::NANOS_PER_SEC / 10);
    k.frame(&mut NoInput, None).unwrap();
    let snap = k.snapshot().unwrap();
    let got = snap
        .prepared
        .as_ref()
        .and_then(|p| p.get::<(u64, usize, u64)>())
        .copied();
    let hz = u64::from(k.config().tick_hz.max(1));
    assert!(snap.tick > 0);
    assert_eq!(
        got,
        Some((1, 1, snap.tick * (1_000_000_000 / hz) / 1_000_000))
    );
    assert!(k.set_frame_preparer(None).is_some());
    k.frame(&mut NoInput, None).unwrap();
    assert!(k.snapshot().unwrap().prepared.is_none());
}

#[test]
fn the_state_hash_covers_the_queue_order() {
    let (mut a, _) = kernel(1);
    spawn(&mut a, 10, Vec3::ZERO);
    spawn(&mut a, 20, Vec3::ONE);
    let (mut b, _) = kernel(1);
    spawn(&mut b, 20, Vec3::ONE);
    spawn(&mut b, 10, Vec3::ZERO);
    let (mut c, _) = kernel(1);
    spawn(&mut c, 10, Vec3::ZERO);
    spawn(&mut c, 20, Vec3::ONE);
    assert_eq!(a.state_hash(), c.state_hash());
    assert_ne!(
        a.state_hash(),
        b.state_hash(),
        "same objects, other traversal order"
    );
}

#[test]
fn the_state_hash_covers_pending_messages_without_consuming_them() {
    let (mut a, clock) = kernel(1);
    let (mut b, _) = kernel(1);
    let h = spawn(&mut a, 10, Vec3::ZERO);
    spawn(&mut b, 10, Vec3::ZERO);
    assert_eq!(a.state_hash(), b.state_hash());
    let tx = a.external_sender(3);
    tx.send(
        Phase::UpdateSystems,
        Target::Object(h),
        GameMessage::KillPlayer { player: 2 },
    )
    .unwrap();
    let with = a.state_hash();
    assert_ne!(with, b.state_hash(), "a pending message is state");
    assert_eq!(a.state_hash(), with, "hashing does not consume it");
    let other = b.external_sender(3);
    other
        .send(
            Phase::UpdateSystems,
            Target::Object(h),
            GameMessage::KillPlayer { player: 3 },
        )
        .unwrap();
    assert_ne!(b.state_hash(), with, "the message body counts");
    clock.advance_ns(crate::clock::NANOS_PER_SEC);
    a.frame(&mut NoInput, Some(1)).unwrap();
    assert_eq!(a.stats().messages_delivered, 1, "still delivered once");
}

/// Records every world change it is told about.
struct ChangeLog(Arc<Mutex<Vec<WorldChange>>>);

impl System for ChangeLog {
    fn name(&self) -> &str {
        "change-log"
    }
    fn on_objects_changed(
        &mut self,
        _ctx: &mut SystemCtx<'_>,
        changes: &[WorldChange],
    ) -> SystemResult {
        self.0.lock().unwrap().extend_from_slice(changes);
        Ok(())
    }
}

#[test]
fn systems_hear_of_objects_joining_and_leaving_at_the_next_boundary() {
    let (mut k, _) = kernel(1);
    let log = Arc::new(Mutex::new(Vec::new()));
    k.add_system(Box::new(ChangeLog(log.clone()))).unwrap();
    let a = spawn(&mut k, 10, Vec3::ZERO);
    spawn(&mut k, 11, Vec3::ONE);
    assert!(
        log.lock().unwrap().is_empty(),
        "reported at a boundary, not at once"
    );
    let before = k.state_hash();
    k.step(&[]).unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        [
            WorldChange::Added(a, OriginalObjectId(10)),
            WorldChange::Added(
                k.world().handle_of(OriginalObjectId(11)).unwrap(),
                OriginalObjectId(11)
            ),
        ]
    );
    assert_ne!(before, k.state_hash());
    k.world_mut().unwrap().delete(a, DeleteMode::Normal);
    k.step(&[]).unwrap();
    assert_eq!(
        log.lock().unwrap().last(),
        Some(&WorldChange::Removed(OriginalObjectId(10)))
    );
    assert_eq!(log.lock().unwrap().len(), 3, "each change once");
}

#[test]
fn the_journal_records_the_last_tick_and_never_changes_the_state() {
    let run = |journal: bool| {
        let (mut k, _) = kernel(5);
        k.add_system(Box::new(Wanderer)).unwrap();
        k.set_journal(journal);
        spawn(&mut k, 1, Vec3::ZERO);
        spawn(&mut k, 2, Vec3::X);
        k.step(&[]).unwrap();
        let first = k.journal().to_vec();
        k.step(&[]).unwrap();
        (first, k.journal().to_vec(), k.state_hash())
    };
    let (first, second, hash) = run(true);
    let ids: Vec<u32> = first
        .iter()
        .map(|e| match e {
            JournalEntry::World(WorldChange::Added(_, id)) => id.raw(),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        ids,
        [1, 2],
        "the loaded objects are reported in tick 1, in order"
    );
    assert!(second.is_empty(), "each tick starts an empty journal");
    let (off, _, plain) = run(false);
    assert!(off.is_empty(), "off: nothing recorded");
    assert_eq!(hash, plain, "observation only");
}

/// A system whose update does measurable work (a busy loop the optimiser cannot drop).
struct Busy;

impl System for Busy {
    fn name(&self) -> &str {
        "busy"
    }
    fn update(&mut self, _ctx: &mut SystemCtx<'_>) -> SystemResult {
        let mut x = 0u64;
        for i in 0..200_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        std::hint::black_box(x);
        Ok(())
    }
}

#[test]
fn each_system_has_its_own_busy_time() {
    let (mut k, _clock) = kernel(0);
    k.add_system(Box::new(Busy)).unwrap();
    k.add_system(Box::new(Wanderer)).unwrap();
    assert_eq!(k.system_busy_ns("busy"), Some(0));
    assert_eq!(k.system_busy_ns("nobody"), None);
    k.step(&[]).unwrap();
    let one = k.system_busy_ns("busy").unwrap();
    assert!(one > 0, "200k multiply-adds take time");
    k.step(&[]).unwrap();
    assert!(
        k.system_busy_ns("busy").unwrap() > one,
        "the time accumulates"
    );
}

/// A seat publishing a view from `update` (a non-finite one is refused and leaves the
/// published one alone).
struct Seat {
    view: crate::view::PlayerView,
}

impl System for Seat {
    fn name(&self) -> &str {
        "seat"
    }
    fn update(&mut self, ctx: &mut SystemCtx<'_>) -> SystemResult {
        self.view.yaw += 0.5;
        ctx.set_player_view(self.view.clone())?;
        let mut bad = self.view.clone();
        bad.eye[0] = f32::INFINITY;
        assert!(matches!(
            ctx.set_player_view(bad),
            Err(KernelError::InvalidView(_))
        ));
        assert_eq!(ctx.player_view().map(|v| v.yaw), Some(self.view.yaw));
        Ok(())
    }
}

#[test]
fn the_published_player_view_reaches_every_snapshot_and_a_bad_one_changes_nothing() {
    let (mut k, clock) = kernel(0);
    k.add_system(Box::new(Seat {
        view: crate::view::PlayerView {
            eye: [1.0, 2.0, 30.0],
            selected: vec![3, 9],
            ..Default::default()
        },
    }))
    .unwrap();
    clock.advance_ns(34_000_000);
    k.frame(&mut crate::NoInput, None).unwrap();
    let v = k.snapshot().unwrap().view.clone().unwrap();
    assert_eq!(
        (v.eye, v.yaw, v.selected.as_slice()),
        ([1.0, 2.0, 30.0], 0.5, &[3, 9][..])
    );
    assert_eq!(v.tick, k.tick());
    assert_eq!(k.system_faults("seat"), Some(0));
}
