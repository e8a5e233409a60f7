//! The presentation slots through the plugin host with a real library. The audio slot
//! (interface 2.6) reads the world but every change it tries is refused, its state stays
//! out of the state hash, and once per presented frame it gets the listener and the mix
//! and reports its output and trace, which the host keeps for the launcher. The render
//! slot (2.8) and the effects slot (2.11) are refused every change alike; the effects
//! slot's primitives reach the renderer before each draw.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::plugins::host;
use iron3d_kernel::{
    FramePreparer, Kernel, KernelConfig, ManualTimeSource, NoInput, ObjectDesc, OriginalObjectId,
    RenderSnapshot,
};
use iron3d_plugin_host::PluginHost;
use iron3d_registry::{Dialect, Registry};

/// Prepares every frame as the same render frame, its camera at x = 12.
struct CameraAt12;

impl FramePreparer for CameraAt12 {
    fn prepare(
        &mut self,
        _: &RenderSnapshot,
    ) -> Option<std::sync::Arc<dyn std::any::Any + Send + Sync>> {
        use iron3d_render_soft::fixtures::{frame_with, pixel_projection};
        let mut f = frame_with(4, 4, pixel_projection(4, 4), vec![], vec![], vec![]);
        f.camera.position.x = 12.0;
        Some(std::sync::Arc::new(f))
    }
}

/// `frames` frames of one tick each (30 Hz) of one object, each prepared with a camera,
/// so the audio frame has a listener.
fn run(host: &mut PluginHost, registry: &str, frames: u64) -> Kernel {
    let clock = ManualTimeSource::new();
    let mut k = Kernel::new(
        KernelConfig {
            seed: 4,
            publish_snapshots: true,
            ..KernelConfig::default()
        },
        Box::new(clock.clone()),
    )
    .unwrap();
    let reg = Registry::parse(registry.as_bytes(), "audio.ini", Dialect::PluginsIni).unwrap();
    for s in host.systems_from_registry(&reg) {
        k.add_system(s).unwrap();
    }
    let w = k.world_mut().unwrap();
    let h = w
        .create(ObjectDesc {
            id: Some(OriginalObjectId(100)),
            ..ObjectDesc::default()
        })
        .unwrap();
    w.add_to_game(h).unwrap();
    k.set_frame_preparer(Some(Box::new(CameraAt12)));
    for f in 1..=frames {
        clock.set_ns(f * 1_000_000_000 / 30);
        k.frame(&mut NoInput, None).unwrap();
    }
    k
}

#[test]
fn the_audio_slot_cannot_change_the_simulation_and_reports_each_frame() {
    let dir = tempfile::tempdir().unwrap();
    let mut with_audio = host(dir.path(), 4);
    with_audio.set_audio_trace(true);
    let k = run(
        &mut with_audio,
        "ai iron3d_test_counter counter\naudio iron3d_test_counter audio-writer\n",
        10,
    );
    assert_eq!(k.tick(), 10);
    let dir2 = tempfile::tempdir().unwrap();
    let mut without = host(dir2.path(), 4);
    let plain = run(&mut without, "ai iron3d_test_counter counter\n", 10);
    assert_eq!(
        k.state_hash(),
        plain.state_hash(),
        "an audio plugin that tries to write changes nothing"
    );
    // Sixteen refused writes per tick (every kind, the control extension of 2.9
    // included), counted by the plugin and reported each frame; one let through would
    // have faulted the plugin.
    let status = with_audio.audio_status().unwrap();
    assert_eq!(status.output, iron3d_abi::AudioOutput::NO_DEVICE);
    assert_eq!(status.reason, "160 refusals");
    // One trace line per frame; the listener is the player's view.
    let lines = with_audio.take_audio_trace();
    assert_eq!(lines.len(), 10, "{lines:?}");
    assert_eq!(lines[0], "{\"frame\":1,\"x\":12}");
    assert!(with_audio.take_audio_trace().is_empty(), "taken once");
    assert!(
        without.audio_status().is_none(),
        "the null audio reports nothing"
    );
}

#[test]
fn the_render_slot_cannot_change_the_simulation() {
    let dir = tempfile::tempdir().unwrap();
    let mut with_writer = host(dir.path(), 4);
    let k = run(
        &mut with_writer,
        "ai iron3d_test_counter counter\nrender iron3d_test_counter render-writer\n",
        10,
    );
    assert_eq!(k.tick(), 10);
    let instance = with_writer
        .report()
        .into_iter()
        .find(|r| r.slot == iron3d_abi::SlotKind::Render)
        .unwrap()
        .instance;
    assert!(instance.contains("render-writer"), "{instance}");
    let dir2 = tempfile::tempdir().unwrap();
    let mut without = host(dir2.path(), 4);
    let plain = run(&mut without, "ai iron3d_test_counter counter\n", 10);
    assert_eq!(
        k.state_hash(),
        plain.state_hash(),
        "a renderer that tries every write (transform, velocity, behaviour state 777, properties, create, delete, kill, bodies, a sound, control, the outcome, the view, a service call) changes nothing"
    );
    let (_, o) = k.world().iter_registered().next().unwrap();
    assert_ne!(o.behaviour_state, 777);
}

/// PD-FX-PRESENTATION (2.11): the effects slot is refused every change, stays out of
/// the state hash, and the primitives it answers each frame reach the render slot's
/// renderer right before that frame's draw.
#[test]
fn the_effects_slot_cannot_change_the_simulation_and_feeds_the_renderer() {
    let dir = tempfile::tempdir().unwrap();
    let mut with_fx = host(dir.path(), 4);
    let k = run(
        &mut with_fx,
        "ai iron3d_test_counter counter\neffects iron3d_test_counter effects-writer\n\
         render iron3d_test_counter render-effects\n",
        10,
    );
    assert_eq!(k.tick(), 10);
    assert_eq!(k.stats().system_faults, 0);
    let dir2 = tempfile::tempdir().unwrap();
    let mut without = host(dir2.path(), 4);
    let plain = run(&mut without, "ai iron3d_test_counter counter\n", 10);
    assert_eq!(
        k.state_hash(),
        plain.state_hash(),
        "an effects plugin that tries every write changes nothing"
    );
    // The renderer got one effect frame per drawn frame; the last one's billboard stands
    // at the camera's x and carries the writer's refusal count: 16 refused tries per tick.
    with_fx.request_capture(iron3d_plugin_host::CaptureKind::Commands);
    let mut k = k;
    k.frame(&mut iron3d_kernel::NoInput, None).unwrap();
    let Some(Ok(iron3d_plugin_host::Capture::Commands(json))) = with_fx.take_capture() else {
        panic!("no capture");
    };
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["draws"], v["effect_frames"], "{json}");
    assert_eq!(v["effect_frames"], 11, "{json}");
    assert_eq!(v["last_frame"], 11, "{json}");
    assert_eq!(v["primitives"], 1, "{json}");
    assert_eq!(v["x"], 12.0, "{json}");
    assert_eq!(v["instance"], 160, "{json}");
}

/// A renderer that declines effects (every renderer written before 2.11) is not offered
/// them again and draws on: no fault, the same hash.
#[test]
fn a_renderer_that_declines_effects_draws_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = host(dir.path(), 4);
    let k = run(
        &mut h,
        "ai iron3d_test_counter counter\neffects iron3d_test_counter effects-writer\n\
         render iron3d_null null-render\n",
        5,
    );
    assert_eq!(k.tick(), 5);
    assert_eq!(k.stats().system_faults, 0);
}
