//! Tests of the effects plugin shell: its frame and the state it hands over.

use crate::EffectsPlugin;
use iron3d_abi::{EffectView, EffectsProvider, Plugin, StateBlob};
use iron3d_effects_rules::emitter::{EmitterBlock, PROJECT_LAYOUT};
use iron3d_effects_rules::runtime::Runtime;
use iron3d_fxid::{Command, Fxid, Opcode};
use std::sync::Arc;

fn effect() -> Arc<Fxid> {
    let mut c = Command::with_resource(Opcode::Op3, b"sprites.lib", b"FX.TEX").unwrap();
    EmitterBlock::default().write(&mut c).unwrap();
    Arc::new(
        Fxid::builder()
            .duration_seconds(1.0)
            .settings_id(PROJECT_LAYOUT)
            .command(c)
            .build(),
    )
}

#[test]
fn the_plugin_answers_its_runtime_as_a_frame_and_takes_over_a_saved_state() {
    let fx = effect();
    let mut p = EffectsPlugin {
        runtime: Runtime::new(3),
        ..EffectsPlugin::default()
    };
    p.runtime
        .start(fx, "effects.rlb", "T", 0, [0.0; 3], None, 1.0, 0, 33)
        .unwrap();
    let view = EffectView {
        frame: 12,
        tick: 3,
        time_ms: 100,
        camera: abi_stable::std_types::ROption::RNone,
    };
    let f = p.frame(&view).unwrap();
    assert_eq!(
        (f.frame, f.tick, f.instances, f.primitives.len()),
        (12, 3, 1, 1)
    );
    // Another plugin takes the state over: its instances wait for their effects.
    let blob = p.save_state().unwrap();
    let mut q = EffectsPlugin::default();
    q.restore_state(&blob).unwrap();
    assert_eq!(q.pending.len(), 1);
    assert_eq!(q.save_state().unwrap(), blob);
    assert!(
        q.restore_state(&StateBlob::empty("iron3d-null", 1))
            .is_err()
    );
}

#[test]
fn heard_rain_falls_around_the_frame_camera_and_is_handed_over() {
    use iron3d_abi::PrimitiveKind;
    use iron3d_abi::render::Camera;
    use iron3d_effects_rules::weather::{self, RAIN_INSTANCE};
    let eye = glam::Vec3::new(10.0, 20.0, 30.0);
    let view = glam::Mat4::look_to_lh(eye, glam::Vec3::X, glam::Vec3::Z);
    let projection = glam::Mat4::perspective_lh(1.0, 4.0 / 3.0, 1.0, 2000.0);
    let camera = Camera {
        position: eye.into(),
        yaw: 0.0,
        pitch: 0.0,
        fov: 1.2,
        near: 1.0,
        far: 2000.0,
        view: view.into(),
        projection: projection.into(),
    };
    let at = |frame: u64, time_ms: u64| EffectView {
        frame,
        tick: frame,
        time_ms,
        camera: abi_stable::std_types::ROption::RSome(camera),
    };
    let mut p = EffectsPlugin::default();
    // No weather heard: no precipitation.
    assert!(p.frame(&at(1, 0)).unwrap().primitives.is_empty());
    p.weather = Some([0.8, 0.0]);
    p.frame(&at(2, 1_000)).unwrap();
    let f = p.frame(&at(3, 1_033)).unwrap();
    let v = weather::View::of_projection(&projection).unwrap();
    let want = weather::particle_count(&v, 0.8) as usize;
    let streaks = f
        .primitives
        .iter()
        .filter(|q| q.kind == PrimitiveKind::STREAK && q.instance == RAIN_INSTANCE)
        .count();
    assert!(
        streaks > want * 9 / 10 && streaks <= want,
        "{streaks} of {want}"
    );
    // The weather travels with the state; the particles are spawned afresh.
    let mut q = EffectsPlugin::default();
    q.restore_state(&p.save_state().unwrap()).unwrap();
    assert_eq!(q.weather(), Some([0.8, 0.0]));
    assert!(q.frame(&at(4, 1_066)).unwrap().primitives.is_empty());
    assert!(!q.frame(&at(5, 1_100)).unwrap().primitives.is_empty());
}
