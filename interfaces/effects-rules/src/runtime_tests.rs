//! Tests of the effects runtime: lifetimes, time modes, opcode roles, particles, budgets, order, the state blob and the library.

use crate::EffectsError;
use crate::emitter::{EmitterBlock, PROJECT_LAYOUT};
use crate::library::Library;
use crate::runtime::{
    Emitter, MAX_INSTANCES, MAX_PARTICLES_PER_COMMAND, Role, Runtime, coefficient, mix,
};
use crate::state;
use iron3d_abi::{EffectBlend, EffectPrimitive, PrimitiveKind, StateBlob};
use iron3d_fxid::{Command, Fxid, Opcode};
use std::sync::Arc;

/// An effect in the project layout: `seconds` long, time mode `mode`, the commands
/// given as (opcode, block).
fn effect(seconds: f32, mode: u32, commands: &[(Opcode, EmitterBlock)]) -> Arc<Fxid> {
    let mut b = Fxid::builder()
        .duration_seconds(seconds)
        .time_mode(mode)
        .settings_id(PROJECT_LAYOUT);
    for (op, block) in commands {
        let mut c = if *op == Opcode::Op1 {
            Command::new(*op)
        } else {
            Command::with_resource(*op, b"sprites.lib", b"FX.TEX").unwrap()
        };
        block.write(&mut c).unwrap();
        b = b.command(c);
    }
    Arc::new(b.build())
}

fn start(
    rt: &mut Runtime,
    fx: &Arc<Fxid>,
    at: [f32; 3],
    target: Option<[f32; 3]>,
    now: u64,
) -> u32 {
    rt.start(fx.clone(), "effects.rlb", "T", 0, at, target, 1.0, now, 33)
        .unwrap()
}

fn of_kind(p: &[EffectPrimitive], k: PrimitiveKind) -> Vec<EffectPrimitive> {
    p.iter().copied().filter(|p| p.kind == k).collect()
}

#[test]
fn a_billboard_fades_by_the_time_mode_and_ends_with_its_lifetime() {
    let fx = effect(
        1.0,
        2,
        &[(
            Opcode::Op3,
            EmitterBlock {
                width: 4.0,
                height: 2.0,
                colour: [1.0, 0.5, 0.25, 0.8],
                ..EmitterBlock::default()
            },
        )],
    );
    let mut rt = Runtime::new(7);
    start(&mut rt, &fx, [10.0, 20.0, 5.0], None, 1_000);
    let at = |rt: &Runtime, ms| rt.emit(ms).frame.primitives.to_vec();
    let p = at(&rt, 1_000);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].kind, PrimitiveKind::BILLBOARD);
    assert_eq!(
        (p[0].position.x, p[0].position.y, p[0].position.z),
        (10.0, 20.0, 5.0)
    );
    assert_eq!((p[0].size, p[0].height), (4.0, 2.0));
    // Time mode 2 (reverse age): full opacity at the start, half at half time.
    assert_eq!(p[0].colour, [1.0, 0.5, 0.25, 0.8]);
    assert!((at(&rt, 1_500)[0].colour[3] - 0.4).abs() < 1e-6);
    // Before its start and from its end on: nothing.
    assert!(at(&rt, 999).is_empty());
    assert!(at(&rt, 2_000).is_empty());
    assert_eq!(rt.retire(1_999), 0);
    assert_eq!(rt.retire(2_000), 1);
    assert_eq!(rt.instances().count(), 0);
}

#[test]
fn time_modes_pick_their_intensity_and_unknown_ones_stay_constant() {
    assert_eq!(coefficient(0).eval(0.3), 1.0);
    assert_eq!(coefficient(1).eval(0.3), 0.3);
    assert!((coefficient(2).eval(0.3) - 0.7).abs() < 1e-12);
    assert!((coefficient(4).eval(1.25) - 0.25).abs() < 1e-12);
    assert_eq!(coefficient(14).eval(0.3), 1.0);
}

#[test]
fn a_zero_duration_effect_shows_for_one_tick() {
    let fx = effect(0.0, 0, &[(Opcode::Op3, EmitterBlock::default())]);
    let mut rt = Runtime::new(1);
    start(&mut rt, &fx, [0.0; 3], None, 500);
    assert_eq!(rt.emit(500).frame.primitives.len(), 1);
    assert_eq!(rt.emit(532).frame.primitives.len(), 1);
    assert!(rt.emit(533).frame.primitives.is_empty());
}

#[test]
fn the_lightning_descriptor_is_a_beam_from_the_strike_up_its_length() {
    // §13.9: opcode 3 [40, 40, 600] starts at z + 300 (its centre): ends at z, z + 600.
    let fx = effect(
        0.8,
        0,
        &[
            (
                Opcode::Op1,
                EmitterBlock {
                    width: 300.0,
                    ..EmitterBlock::default()
                },
            ),
            (
                Opcode::Op3,
                EmitterBlock {
                    width: 40.0,
                    height: 40.0,
                    length: 600.0,
                    ..EmitterBlock::default()
                },
            ),
        ],
    );
    let mut rt = Runtime::new(1);
    start(&mut rt, &fx, [100.0, 200.0, 30.0], None, 0);
    let p = rt.emit(100).frame.primitives;
    let lights = of_kind(&p, PrimitiveKind::POINT_LIGHT);
    let beams = of_kind(&p, PrimitiveKind::BEAM);
    assert_eq!((lights.len(), beams.len()), (1, 1));
    assert_eq!(lights[0].size, 300.0);
    let b = beams[0];
    assert_eq!((b.position.z, b.end.z), (30.0, 630.0));
    assert_eq!((b.end.x, b.end.y), (100.0, 200.0));
    assert_eq!(b.size, 40.0);
    // Command order is disk order.
    assert_eq!((p[0].command, p[1].command), (0, 1));
}

#[test]
fn a_tracer_streak_travels_from_the_muzzle_to_the_target() {
    let fx = effect(
        0.2,
        0,
        &[(
            Opcode::Op8,
            EmitterBlock {
                width: 0.2,
                length: 3.0,
                ..EmitterBlock::default()
            },
        )],
    );
    let mut rt = Runtime::new(1);
    start(&mut rt, &fx, [0.0; 3], Some([20.0, 0.0, 0.0]), 0);
    let s = |ms| rt.emit(ms).frame.primitives[0];
    // At the start the head is at the muzzle; half way it is at 10 with a 3-long tail;
    // near the end it is close to the target.
    let a = s(0);
    assert_eq!((a.position.x, a.end.x), (0.0, 0.0));
    let b = s(100);
    assert!(
        (b.end.x - 10.0).abs() < 1e-4 && (b.position.x - 7.0).abs() < 1e-4,
        "{b:?}"
    );
    let c = s(190);
    assert!(c.end.x > 18.9 && c.end.x <= 20.0);
    assert_eq!(c.kind, PrimitiveKind::STREAK);
}

fn burst(count: u32, rate: f32) -> Arc<Fxid> {
    effect(
        2.0,
        0,
        &[(
            Opcode::Op7,
            EmitterBlock {
                width: 0.5,
                count,
                rate,
                speed: 4.0,
                spread: 1.0,
                gravity: -9.8,
                life: 1.0,
                grow: 1.0,
                blend: 1,
                fade: 1,
                ..EmitterBlock::default()
            },
        )],
    )
}

#[test]
fn particles_are_a_pure_function_of_the_event_order_and_the_time() {
    let fx = burst(32, 0.0);
    let run = |frames: &[u64]| {
        let mut rt = Runtime::new(42);
        start(&mut rt, &fx, [5.0, 5.0, 0.0], None, 0);
        let mut last = Vec::new();
        for &t in frames {
            last = rt.emit(t).frame.primitives.to_vec();
        }
        last
    };
    // Drawn at 60 fps or jumping straight to 500 ms: the same particles.
    let smooth: Vec<u64> = (0..=30).map(|k| k * 500 / 30).collect();
    let a = run(&smooth);
    let b = run(&[500]);
    assert_eq!(a, b);
    assert_eq!(a.len(), 32);
    // They moved, fell, grew and faded as the block says.
    for p in &a {
        assert_eq!(p.kind, PrimitiveKind::PARTICLE);
        assert_eq!(p.blend, EffectBlend::ALPHA);
        assert!(
            (p.size - 0.75).abs() < 1e-6,
            "grow 1/s for 0.5 s: {}",
            p.size
        );
        assert!((p.colour[3] - 0.5).abs() < 1e-6, "fade out at half life");
    }
    let spread = a.iter().map(|p| p.position.x).fold(f32::NAN, f32::max)
        - a.iter().map(|p| p.position.x).fold(f32::NAN, f32::min);
    assert!(
        spread > 0.5,
        "particles leave in different directions: {spread}"
    );
    // Another base seed: other draws.
    let mut other = Runtime::new(43);
    start(&mut other, &fx, [5.0, 5.0, 0.0], None, 0);
    assert_ne!(other.emit(500).frame.primitives.to_vec(), a);
    // The draws are SplitMix64 of the documented key (PD-FX-RNG).
    assert_ne!(mix(1), mix(2));
}

#[test]
fn particles_stream_in_bursts_and_die_at_their_life() {
    let fx = burst(2, 10.0);
    let mut rt = Runtime::new(1);
    start(&mut rt, &fx, [0.0; 3], None, 0);
    // At 0.55 s bursts 0..=5 are alive (life 1 s): 12 particles.
    assert_eq!(rt.emit(550).frame.primitives.len(), 12);
    // At 1.55 s bursts 0..=5 are dead (born before 0.55 s), 6..=15 alive: 20.
    assert_eq!(rt.emit(1_550).frame.primitives.len(), 20);
}

#[test]
fn one_command_never_shows_more_than_its_particle_budget() {
    let fx = effect(
        60.0,
        0,
        &[(
            Opcode::Op7,
            EmitterBlock {
                count: 256,
                rate: 240.0,
                life: 60.0,
                ..EmitterBlock::default()
            },
        )],
    );
    let mut rt = Runtime::new(1);
    start(&mut rt, &fx, [0.0; 3], None, 0);
    let n = rt.emit(30_000).frame.primitives.len();
    assert!(
        (MAX_PARTICLES_PER_COMMAND - 256..=MAX_PARTICLES_PER_COMMAND).contains(&n),
        "{n}"
    );
}

#[test]
fn disabled_commands_and_opcodes_this_runtime_does_not_run_emit_nothing() {
    let mut b = Fxid::builder()
        .duration_seconds(1.0)
        .settings_id(PROJECT_LAYOUT);
    let mut off = Command::with_resource(Opcode::Op3, b"a", b"b").unwrap();
    EmitterBlock::default().write(&mut off).unwrap();
    off.set_enabled(false);
    b = b.command(off);
    b = b
        .resource_command(Opcode::Op2, b"sounds.lib", b"FIRE.WAV")
        .unwrap()
        .resource_command(Opcode::Op4, b"a", b"b")
        .unwrap()
        .command(Command::new(Opcode::Op6));
    let fx = Arc::new(b.build());
    let mut rt = Runtime::new(1);
    start(&mut rt, &fx, [0.0; 3], None, 0);
    assert!(rt.emit(10).frame.primitives.is_empty());
    assert_eq!(rt.emit(10).frame.instances, 1);
}

#[test]
fn an_effect_outside_the_project_layout_runs_with_the_fallback_per_role() {
    let fx = Arc::new(
        Fxid::builder()
            .duration_seconds(1.0)
            .command(Command::new(Opcode::Op1))
            .resource_command(Opcode::Op3, b"a", b"b")
            .unwrap()
            .resource_command(Opcode::Op7, b"a", b"b")
            .unwrap()
            .build(),
    );
    let roles: Vec<Role> = fx
        .commands
        .iter()
        .zip(0..)
        .filter_map(|(c, i)| Emitter::of(&fx, i, c))
        .map(|e| e.role)
        .collect();
    assert_eq!(roles, [Role::Light, Role::Billboard, Role::Particles]);
    let mut rt = Runtime::new(1);
    start(&mut rt, &fx, [0.0; 3], None, 0);
    let p = rt.emit(100).frame.primitives;
    assert_eq!(p.len(), 1 + 1 + 16);
}

#[test]
fn primitives_list_in_instance_then_command_order() {
    let fx = effect(
        1.0,
        0,
        &[
            (Opcode::Op3, EmitterBlock::default()),
            (Opcode::Op1, EmitterBlock::default()),
        ],
    );
    let mut rt = Runtime::new(1);
    start(&mut rt, &fx, [0.0; 3], None, 0);
    start(&mut rt, &fx, [1.0; 3], None, 10);
    let keys: Vec<(u32, u32)> = rt
        .emit(20)
        .frame
        .primitives
        .iter()
        .map(|p| (p.instance, p.command))
        .collect();
    assert_eq!(keys, [(0, 0), (0, 1), (1, 0), (1, 1)]);
}

#[test]
fn starts_beyond_the_instance_limit_are_refused_and_counted() {
    let fx = effect(10.0, 0, &[(Opcode::Op3, EmitterBlock::default())]);
    let mut rt = Runtime::new(1);
    for _ in 0..MAX_INSTANCES {
        start(&mut rt, &fx, [0.0; 3], None, 0);
    }
    assert!(
        rt.start(fx.clone(), "e", "T", 0, [0.0; 3], None, 1.0, 0, 33)
            .is_none()
    );
    assert_eq!(rt.refused, 1);
}

#[test]
fn a_saved_state_round_trips_and_a_bad_one_is_refused() {
    let fx = burst(8, 5.0);
    let mut rt = Runtime::new(9);
    start(&mut rt, &fx, [1.0, 2.0, 3.0], Some([4.0, 5.0, 6.0]), 100);
    start(&mut rt, &fx, [7.0, 8.0, 9.0], None, 200);
    let blob = state::save(&rt, &[], Some([0.5, 0.0])).unwrap();
    let saved = state::load(&blob).unwrap();
    assert_eq!(saved.instances.len(), 2);
    assert_eq!(saved.next_serial, 2);
    assert_eq!(saved.weather, Some([0.5, 0.0]));
    // A v1 blob (no weather) is read too.
    #[derive(serde::Serialize)]
    struct V1<'a> {
        instances: &'a [crate::runtime::Instance],
        next_serial: u32,
        base_seed: u64,
    }
    let v1 = postcard::to_allocvec(&V1 {
        instances: &saved.instances,
        next_serial: saved.next_serial,
        base_seed: saved.base_seed,
    })
    .unwrap();
    let old = state::load(&StateBlob::new(state::STATE_FORMAT, 1, v1)).unwrap();
    assert_eq!((old.instances.len(), old.weather), (2, None));
    let wet = state::save(&rt, &[], Some([1.5, 0.0])).unwrap();
    assert!(state::load(&wet).unwrap_err().message.contains("weather"));
    // A new runtime that adopts them draws the very same primitives.
    let mut again = Runtime::new(saved.base_seed);
    again.set_counters(saved.next_serial, saved.base_seed);
    for i in saved.instances {
        again.adopt(i, fx.clone());
    }
    assert_eq!(again.emit(900), rt.emit(900));
    // Another format, garbage, an absurd instance: refused with the reason.
    let e = state::load(&StateBlob::empty("iron3d-null", 1)).unwrap_err();
    assert!(
        e.message.contains("expected state iron3d-effects"),
        "{}",
        e.message
    );
    let junk = StateBlob::new(state::STATE_FORMAT, state::STATE_VERSION, vec![0xFF; 9]);
    assert!(state::load(&junk).is_err());
    let mut bad = state::load(&blob).unwrap();
    bad.instances[0].scale = f32::NAN;
    let bytes = postcard::to_allocvec(&bad).unwrap();
    let e = state::load(&StateBlob::new(
        state::STATE_FORMAT,
        state::STATE_VERSION,
        bytes,
    ))
    .unwrap_err();
    assert!(e.message.contains("instance 0"), "{}", e.message);
}

#[test]
fn the_library_names_the_archive_the_entry_and_why() {
    let mut lib = Library::default();
    lib.offer_archive("effects.rlb", Err("no such file".into()));
    let e = lib.effect("effects.rlb", "SHOT").unwrap_err();
    assert!(e.to_string().contains("effects.rlb") && e.to_string().contains("no such file"));
    lib.offer_archive("junk.rlb", Ok(b"nothing".to_vec()));
    let e = lib.effect("junk.rlb", "SHOT").unwrap_err();
    assert!(e.to_string().contains("neither an RsLi"), "{e}");
    // A real archive: an entry found case-insensitively, a missing one, a broken one.
    let good = effect(1.0, 0, &[(Opcode::Op3, EmitterBlock::default())])
        .to_bytes()
        .unwrap();
    let mut b = iron3d_rsli::RsliBuilder::new();
    b.add("SHOT", iron3d_rsli::Method::Raw, good);
    b.add("BROKEN", iron3d_rsli::Method::Raw, vec![1, 0, 0, 0, 0]);
    lib.offer_archive("fx.rlb", Ok(b.build().unwrap()));
    assert!(lib.effect("FX.RLB", "shot").is_ok());
    let e = lib.effect("fx.rlb", "NOPE").unwrap_err();
    assert!(matches!(e, EffectsError::NoEntry { .. }), "{e}");
    let e = lib.effect("fx.rlb", "BROKEN").unwrap_err();
    let chain = iron3d_abi::error_chain(&e);
    assert!(
        chain.contains("BROKEN") && chain.contains("not a valid FXID"),
        "{chain}"
    );
    assert!(lib.seen("fx.rlb", "broken"));
}

#[test]
fn billboards_and_particles_carry_their_commands_sprite_texture_each_name_once() {
    // PD-FX-SPRITE-TEXTURE: opcode 3 (billboard) and 7 (particles) name their texture;
    // the light (no resource) and the beam (opcode 3 with a length) carry none.
    let mut b = Fxid::builder()
        .duration_seconds(2.0)
        .settings_id(PROJECT_LAYOUT);
    let commands: [(Opcode, &[u8], &[u8], EmitterBlock); 4] = [
        (
            Opcode::Op7,
            b"sprites.lib",
            b"SMOKE.TEX",
            EmitterBlock {
                width: 1.0,
                count: 3,
                colour: [1.0; 4],
                ..EmitterBlock::default()
            },
        ),
        (
            Opcode::Op3,
            b"sprites.lib",
            b"FIRE.TEX",
            EmitterBlock {
                width: 2.0,
                colour: [1.0; 4],
                ..EmitterBlock::default()
            },
        ),
        (
            Opcode::Op3,
            b"sprites.lib",
            b"BOLT.TEX",
            EmitterBlock {
                width: 2.0,
                length: 10.0,
                colour: [1.0; 4],
                ..EmitterBlock::default()
            },
        ),
        (
            Opcode::Op3,
            b"sprites.lib",
            b"SMOKE.TEX",
            EmitterBlock {
                width: 3.0,
                colour: [1.0; 4],
                ..EmitterBlock::default()
            },
        ),
    ];
    for (op, archive, entry, block) in commands {
        let mut c = Command::with_resource(op, archive, entry).unwrap();
        block.write(&mut c).unwrap();
        b = b.command(c);
    }
    let mut light = Command::new(Opcode::Op1);
    EmitterBlock {
        width: 5.0,
        colour: [1.0; 4],
        ..EmitterBlock::default()
    }
    .write(&mut light)
    .unwrap();
    let fx = Arc::new(b.command(light).build());
    let mut rt = Runtime::new(3);
    start(&mut rt, &fx, [0.0; 3], None, 0);
    let frame = rt.emit(100).frame;
    let names: Vec<&str> = frame.textures.iter().map(|t| t.as_str()).collect();
    assert_eq!(names, ["sprites.lib/SMOKE.TEX", "sprites.lib/FIRE.TEX"]);
    let by = |k| of_kind(&frame.primitives, k);
    let particles = by(PrimitiveKind::PARTICLE);
    assert_eq!(particles.len(), 3);
    assert!(particles.iter().all(|p| p.texture == 0));
    let boards = by(PrimitiveKind::BILLBOARD);
    assert_eq!(
        boards.iter().map(|p| p.texture).collect::<Vec<_>>(),
        [1, 0],
        "the fire billboard, then the smoke one sharing the particles' name"
    );
    assert!(
        by(PrimitiveKind::BEAM)
            .iter()
            .chain(&by(PrimitiveKind::POINT_LIGHT))
            .all(|p| p.texture == iron3d_abi::NO_EFFECT_TEXTURE)
    );
    assert_eq!(by(PrimitiveKind::BEAM).len(), 1);
    assert_eq!(by(PrimitiveKind::POINT_LIGHT).len(), 1);
}

#[test]
fn a_texture_no_primitive_uses_is_left_out_of_the_frame() {
    // Particles of a 0.5 s life are gone at 1 s; the billboard (no resource name
    // of its own: an empty entry) draws soft: no name is listed.
    let mut b = Fxid::builder()
        .duration_seconds(2.0)
        .settings_id(PROJECT_LAYOUT);
    let mut c = Command::with_resource(Opcode::Op7, b"sprites.lib", b"SMOKE.TEX").unwrap();
    EmitterBlock {
        width: 1.0,
        count: 2,
        life: 0.5,
        colour: [1.0; 4],
        ..EmitterBlock::default()
    }
    .write(&mut c)
    .unwrap();
    b = b.command(c);
    let mut c = Command::with_resource(Opcode::Op3, b"sprites.lib", b"").unwrap();
    EmitterBlock {
        width: 1.0,
        colour: [1.0; 4],
        ..EmitterBlock::default()
    }
    .write(&mut c)
    .unwrap();
    let fx = Arc::new(b.command(c).build());
    let mut rt = Runtime::new(3);
    start(&mut rt, &fx, [0.0; 3], None, 0);
    let early = rt.emit(100).frame;
    assert_eq!(early.textures.len(), 1);
    let late = rt.emit(1_000).frame;
    assert!(late.textures.is_empty());
    assert_eq!(late.primitives.len(), 1);
    assert_eq!(late.primitives[0].texture, iron3d_abi::NO_EFFECT_TEXTURE);
}
