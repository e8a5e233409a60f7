//! The effects plugin (`effects` slot, factory `effects`): FXID effects started by
//! effect events ([`iron3d_abi::EffectEvent`], PD-MSG-EFFECT), run by the runtime of
//! `iron3d-effects-rules` ([`iron3d_effects_rules::runtime`]) and handed to the renderer
//! as world-space primitives once per presented frame. This crate is the plugin shell:
//! events in, frames out, the archives read through the host, the state handed over.
//!
//! * **Presentation only** (PD-FX-PRESENTATION): the host refuses every world change
//!   from this slot and leaves its state out of the state hash; a battle runs to the
//!   same hashes with this plugin or the null one.
//! * **Events**: an [`iron3d_abi::MessageCode::EFFECT`] message sent to the effects
//!   slot starts its FXID entry (archive `effects.rlb` when the event names none) at
//!   the game time of the tick it arrives in. A missing archive or entry, or an entry
//!   that does not parse, is logged once (target `Effects`, naming the archive, the
//!   entry and why) and then refused quietly; the mission goes on.
//! * **Frames**: [`iron3d_abi::EffectsProvider::frame`] answers the primitives at the
//!   frame's game time; instances end in `update` once their lifetime is over.
//! * **Weather**: a [`iron3d_abi::MessageCode::WEATHER`] message (PD-MSG-WEATHER, from
//!   the sky's owner) sets the rain and snow intensity; each frame with a camera the
//!   precipitation fields ([`iron3d_effects_rules::weather::Field`], PD-FX-PRECIP-FRAME)
//!   follow them and add rain streaks and snow flakes after the effects' primitives.
//!   Lightning strikes are ordinary effect events.
//! * **Hot swap and saves**: the state blob (`iron3d-effects` v2) holds the live
//!   instances, the next serial, the base seed and the weather heard; a new instance
//!   reloads the effects and draws on exactly where the old one was (PD-FX-EMIT-PURE);
//!   precipitation particles are spawned afresh.

use iron3d_abi::{
    EffectEvent, EffectFrame, EffectView, EffectsProvider, FactoryDescription, Host, Message,
    MessageCode, MissionInfo, ObjectRef, Plugin, PluginDescription, PluginError, SlotKind,
    StateBlob, WeatherEvent,
};
use iron3d_effects_rules::library::Library;
use iron3d_effects_rules::runtime::{self, Runtime};
use iron3d_effects_rules::state;
use iron3d_effects_rules::weather::{self, Field, Precipitation};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The archive an event without one starts its effect from.
pub const DEFAULT_ARCHIVE: &str = iron3d_effects_rules::library::DEFAULT_ARCHIVE;
/// The plugin's random stream (PD-FX-RNG: the base of every instance seed).
pub const RNG_STREAM: &str = "effects";

fn describe() -> PluginDescription {
    PluginDescription::current(
        "iron3d-effects",
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::of("effects", SlotKind::Effects)],
    )
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    match factory {
        "effects" => Ok(Box::new(EffectsPlugin::default())),
        _ => Err(PluginError::no_factory("iron3d-effects", factory)),
    }
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// The effects plugin: the library of effects and the runtime of their instances.
#[derive(Default)]
pub struct EffectsPlugin {
    library: Library,
    runtime: Runtime,
    /// Instances handed over by a restore whose effects are loaded on the next call
    /// with a host.
    pending: Vec<runtime::Instance>,
    /// Effects whose failure was already logged.
    reported: BTreeSet<(String, String)>,
    /// The rain and snow intensity last heard (`None`: no weather event yet).
    weather: Option<[f32; 2]>,
    /// Rain and snow around the camera (presentation; spawned afresh after a swap).
    fields: Option<[Field; 2]>,
}

impl EffectsPlugin {
    /// The runtime (tests and tools).
    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    fn archive_of(event_library: &str) -> &str {
        if event_library.is_empty() {
            DEFAULT_ARCHIVE
        } else {
            event_library
        }
    }

    /// The effect, its archive read through the host first if needed; a failure is
    /// logged once per effect.
    fn effect(
        &mut self,
        host: &Host<'_>,
        archive: &str,
        entry: &str,
    ) -> Option<Arc<iron3d_fxid::Fxid>> {
        if !self.library.has_archive(archive) {
            let bytes = host.read_mission_file(archive).map_err(|e| e.to_string());
            self.library.offer_archive(archive, bytes);
        }
        match self.library.effect(archive, entry) {
            Ok(fx) => Some(fx),
            Err(e) => {
                let key = (archive.to_ascii_uppercase(), entry.to_ascii_uppercase());
                if self.reported.insert(key) {
                    tracing::warn!(target: "Effects", "effect not started: {}", iron3d_abi::error_chain(&e));
                }
                None
            }
        }
    }

    /// Starts the effect of `event` at the current tick.
    pub fn start(&mut self, host: &Host<'_>, event: &EffectEvent) {
        let archive = Self::archive_of(&event.library).to_owned();
        let Some(fx) = self.effect(host, &archive, &event.name) else {
            return;
        };
        let clock = host.clock();
        let now_ms = clock.game_time_ns / 1_000_000;
        let step_ms = clock.step_ns / 1_000_000;
        let p = event.position;
        let started = self.runtime.start(
            fx,
            &archive,
            &event.name,
            event.owner,
            [p.x, p.y, p.z],
            event.target.map(|t| [t.x, t.y, t.z]),
            event.scale,
            now_ms,
            step_ms,
        );
        if started.is_none() {
            tracing::debug!(target: "Effects", effect = %event.name, "effect not started: too many live instances");
        }
    }

    /// The weather last heard: rain and snow intensity (`None`: none yet).
    pub fn weather(&self) -> Option<[f32; 2]> {
        self.weather
    }

    /// Adds the rain and snow of the weather heard around the frame's camera.
    fn precipitation(&mut self, view: &EffectView, frame: &mut EffectFrame) {
        let (Some([rain, snow]), Some(camera)) = (self.weather, view.camera.into_option()) else {
            return;
        };
        let (Some(v), Some(f)) = (
            weather::View::of_projection(&camera.projection.into()),
            weather::Frame::of_view(&camera.view.into()),
        ) else {
            return;
        };
        let seed = self.runtime.counters().1;
        let fields = self.fields.get_or_insert_with(|| {
            [
                Field::new(Precipitation::Rain, seed ^ 0x5241_494E),
                Field::new(Precipitation::Snow, seed ^ 0x534E_4F57),
            ]
        });
        let mut out = Vec::new();
        for (field, intensity) in fields.iter_mut().zip([rain, snow]) {
            field.update(&v, &f, intensity, view.time_ms);
            field.primitives(&f, &mut out);
        }
        frame.primitives.extend(out);
    }

    /// Loads the effects of instances handed over by a restore.
    fn adopt_pending(&mut self, host: &Host<'_>) {
        for i in std::mem::take(&mut self.pending) {
            if let Some(fx) = self.effect(host, &i.archive.clone(), &i.entry.clone()) {
                self.runtime.adopt(i, fx);
            }
        }
    }
}

impl Plugin for EffectsPlugin {
    fn mission_start(
        &mut self,
        host: &mut Host<'_>,
        _mission: &MissionInfo,
    ) -> Result<(), PluginError> {
        if self.runtime.instances().next().is_none() && self.pending.is_empty() {
            self.runtime = Runtime::new(host.rng_seed(RNG_STREAM));
            // A new mission's sky is told afresh (a hot swap restores it after this).
            self.weather = None;
            self.fields = None;
        }
        Ok(())
    }

    fn on_message(
        &mut self,
        host: &mut Host<'_>,
        _object: Option<ObjectRef>,
        message: &Message,
    ) -> Result<(), PluginError> {
        if message.code == MessageCode::WEATHER {
            match WeatherEvent::from_message(message) {
                Ok(w) => self.weather = Some([w.rain, w.snow]),
                Err(e) => tracing::warn!(target: "Effects", "ignored: {e}"),
            }
            return Ok(());
        }
        if message.code != MessageCode::EFFECT {
            return Ok(());
        }
        self.adopt_pending(host);
        match EffectEvent::from_message(message) {
            Ok(event) => self.start(host, &event),
            Err(e) => tracing::warn!(target: "Effects", "ignored: {e}"),
        }
        Ok(())
    }

    fn update(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        self.adopt_pending(host);
        let now_ms = host.clock().game_time_ns / 1_000_000;
        self.runtime.retire(now_ms);
        Ok(())
    }

    fn save_state(&self) -> Result<StateBlob, PluginError> {
        state::save(&self.runtime, &self.pending, self.weather)
    }

    fn restore_state(&mut self, blob: &StateBlob) -> Result<(), PluginError> {
        let saved = state::load(blob)?;
        self.runtime = Runtime::new(saved.base_seed);
        self.runtime
            .set_counters(saved.next_serial, saved.base_seed);
        self.pending = saved.instances;
        self.weather = saved.weather;
        self.fields = None;
        Ok(())
    }

    fn effects(&mut self) -> Option<&mut dyn EffectsProvider> {
        Some(self)
    }
}

impl EffectsProvider for EffectsPlugin {
    fn frame(&mut self, view: &EffectView) -> Result<EffectFrame, PluginError> {
        if !self.pending.is_empty() {
            // Handed over and not yet adopted (no tick ran since the swap): nothing to
            // draw without the effects; the next tick loads them.
            tracing::trace!(target: "Effects", pending = self.pending.len(), "instances wait for their effects");
        }
        let emitted = self.runtime.emit(view.time_ms);
        if emitted.dropped > 0 {
            tracing::debug!(target: "Effects", dropped = emitted.dropped, "primitives over the frame budget");
        }
        let mut frame = emitted.frame;
        frame.frame = view.frame;
        frame.tick = view.tick;
        self.precipitation(view, &mut frame);
        Ok(frame)
    }
}

#[cfg(test)]
mod tests;
