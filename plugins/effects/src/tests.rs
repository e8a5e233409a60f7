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
