//! The `audio` slot's plugin (interface 2.6): [`AudioPlugin`] implements
//! [`Plugin`] and [`AudioProvider`] over an [`AudioEngine`] and is exported with
//! [`iron3d_abi::export_plugin!`].
//!
//! Factories (slot [`SlotKind::Audio`]; `on_message`, `update` and `object_removed`):
//!
//! * `kira` — the default device; without one, the no-device state and ONE warning
//!   on target `Sound` (the game plays silently);
//! * `kira-mock` — kira's software mixer without a device, stepped by each frame
//!   (tests, benchmarks);
//! * `silent` — the no-device state on purpose.
//!
//! The plugin only reads the world (`read_bodies`, `find`, `object`, mission files,
//! seeds); it never calls a host write, send or service method (the host refuses them
//! from the audio slot anyway).
//!
//! `mission_start` seeds the music (`rng_seed("music")` for `rand()`,
//! `rng_seed("music-generator")` for the 16-bit index generator: its low and high
//! halves, PD-AUDIO-MUSIC-SEED), reads the mission library, `voices.lib` and
//! `mission.cfg` (absent: no music; bad text: a warning and no music), and the music
//! archives it names. Other archives are read the first time a sound event names them.
//!
//! The sky's colour (the DAY or NIGHT pool) comes from weather events
//! (PD-MSG-WEATHER); **PD-AUDIO-SKY-START**: its owner sends the first one on the first
//! tick, after that tick's music draw, so until then the colour is the one `mission.cfg`'s
//! sky block gives at game time 0 (no sky block, or a bad one: none, NIGHT).

#[cfg(test)]
mod tests;

use abi_stable::std_types::RVec;
use glam::Vec3;
use iron3d_abi::audio::{AudioFrame, AudioProvider, AudioReport, SoundEvent};
use iron3d_abi::host::Body;
use iron3d_abi::{
    ErrorKind, FactoryDescription, Host, Message, MessageCode, MissionInfo, ObjectRef, Plugin,
    PluginDescription, PluginError, SlotKind, StateBlob,
};
use iron3d_config::blocks::{Block, BlockFile};

use crate::engine::{AudioEngine, SOUNDS_LIBRARY, VOICES_LIBRARY};
use crate::mixer::{OutputChoice, OutputKind};
use crate::music::{MusicConfig, VariationGenerator};
use crate::sample::SampleKey;

/// The plugin's name in its description.
pub const PLUGIN_NAME: &str = "audio";
/// Factory: the default device, else no device (one warning).
pub const FACTORY_KIRA: &str = "kira";
/// Factory: the software mixer without a device.
pub const FACTORY_MOCK: &str = "kira-mock";
/// Factory: no device, on purpose.
pub const FACTORY_SILENT: &str = "silent";
/// The RNG stream of the music's `rand()`.
pub const MUSIC_RNG_STREAM: &str = "music";
/// The RNG stream seeding the variation index generator.
pub const MUSIC_GENERATOR_STREAM: &str = "music-generator";
/// The most entries one music pool takes from `mission.cfg`.
pub const MAX_POOL_ENTRIES: usize = 256;

/// The plugin's description: three factories in the audio slot.
pub fn describe() -> PluginDescription {
    PluginDescription::current(
        PLUGIN_NAME,
        env!("CARGO_PKG_VERSION"),
        [FACTORY_KIRA, FACTORY_MOCK, FACTORY_SILENT]
            .into_iter()
            .map(|f| FactoryDescription::of(f, SlotKind::Audio))
            .collect(),
    )
}

/// Creates the instance of `factory`.
///
/// # Errors
/// An unknown factory.
pub fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    let choice = match factory {
        FACTORY_KIRA => OutputChoice::Auto,
        FACTORY_MOCK => OutputChoice::Mock,
        FACTORY_SILENT => OutputChoice::None,
        other => return Err(PluginError::no_factory(PLUGIN_NAME, other)),
    };
    Ok(Box::new(AudioPlugin::new(choice)))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// The ambient music `mission.cfg` declares (FORMATS §12.5, §13.10) and the archives
/// it plays from (as written, to read with `read_mission_file`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MissionMusic {
    /// Theme and pools, keys resolved against their `LIBRARY`.
    pub config: MusicConfig,
    /// The archives named (the loop's, the variations').
    pub libraries: Vec<String>,
}

/// A parameter's value: the raw bytes after the name, with a leading `=`/`:` separator
/// and surrounding quotes removed (the separator is undocumented, §12.5).
fn value(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let t = text.trim();
    let t = t.strip_prefix(['=', ':']).unwrap_or(t).trim();
    let t = t
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(t);
    t.trim().to_owned()
}

fn param(block: &Block, name: &str) -> Option<String> {
    block
        .params
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(name.as_bytes()))
        .map(|p| value(&p.value))
        .filter(|v| !v.is_empty())
}

/// `PREFIXn` entries of `block` in the order of `n` (ASCII case-insensitive names).
fn pool(block: &Block, prefix: &str, library: &str) -> Vec<SampleKey> {
    let mut numbered: Vec<(u32, SampleKey)> = block
        .params
        .iter()
        .filter_map(|p| {
            let name = String::from_utf8_lossy(&p.name).to_ascii_uppercase();
            let n: u32 = name.strip_prefix(prefix)?.parse().ok()?;
            let v = value(&p.value);
            (!v.is_empty()).then(|| (n, SampleKey::resolve(&v, library)))
        })
        .collect();
    numbered.sort_by_key(|(n, _)| *n);
    numbered.truncate(MAX_POOL_ENTRIES);
    numbered.into_iter().map(|(_, k)| k).collect()
}

/// Reads the ambient music of a `mission.cfg`: block `ambient_music_loop` (`LIBRARY`,
/// else `mission_library`; `THEME`) and block `ambient_music_variation` (its own
/// `LIBRARY`, else the loop's; `DEFAULT_VARIATIONn`, `DAY_VARIATIONn`,
/// `NIGHT_VARIATIONn`; when that block lists none, the pools are read from the loop
/// block — PD-AUDIO-MUSIC-BLOCKS).
/// `Ok(None)` when neither block is there.
///
/// # Errors
/// The parser's message for text that is not a block file.
pub fn parse_mission_music(
    text: &[u8],
    mission_library: &str,
) -> Result<Option<MissionMusic>, String> {
    let file = BlockFile::parse(text, "mission.cfg").map_err(|e| e.to_string())?;
    let find = |name: &str| {
        file.blocks()
            .iter()
            .find(|b| value(&b.name).eq_ignore_ascii_case(name))
    };
    let (music_loop, variation) = (find("ambient_music_loop"), find("ambient_music_variation"));
    if music_loop.is_none() && variation.is_none() {
        return Ok(None);
    }
    let mut libraries = Vec::new();
    let loop_library = music_loop
        .and_then(|b| param(b, "LIBRARY"))
        .unwrap_or_else(|| mission_library.to_owned());
    libraries.push(loop_library.clone());
    let theme = music_loop
        .and_then(|b| param(b, "THEME"))
        .map(|t| SampleKey::resolve(&t, &loop_library));
    // PD-AUDIO-MUSIC-BLOCKS: the pools are the variation block's when it lists any,
    // else the loop block's (the demo's layout; the spec names the parameters, not the
    // block that holds them); their library is the variation block's, else the loop's.
    let lists_pools = |b: &&Block| {
        ["DEFAULT_VARIATION", "DAY_VARIATION", "NIGHT_VARIATION"]
            .iter()
            .any(|prefix| !pool(b, prefix, "").is_empty())
    };
    let pools = variation.filter(lists_pools).or(music_loop);
    let variation_library = variation
        .and_then(|b| param(b, "LIBRARY"))
        .unwrap_or_else(|| loop_library.clone());
    if !libraries
        .iter()
        .any(|l| l.eq_ignore_ascii_case(&variation_library))
    {
        libraries.push(variation_library.clone());
    }
    let config = match pools {
        Some(b) => MusicConfig {
            theme,
            default_pool: pool(b, "DEFAULT_VARIATION", &variation_library),
            day_pool: pool(b, "DAY_VARIATION", &variation_library),
            night_pool: pool(b, "NIGHT_VARIATION", &variation_library),
        },
        None => MusicConfig {
            theme,
            ..MusicConfig::default()
        },
    };
    // Archives named inside entries (`archive/name`) are read too.
    for key in config
        .theme
        .iter()
        .chain(&config.default_pool)
        .chain(&config.day_pool)
        .chain(&config.night_pool)
    {
        if !libraries
            .iter()
            .any(|l| l.eq_ignore_ascii_case(key.library()))
        {
            libraries.push(key.library().to_owned());
        }
    }
    Ok(Some(MissionMusic { config, libraries }))
}

/// The audio slot's plugin (see the module docs).
#[derive(Debug)]
pub struct AudioPlugin {
    engine: AudioEngine,
    bodies: RVec<Body>,
    scratch: Vec<(u32, Vec3, Vec3)>,
}

impl AudioPlugin {
    /// An instance on `choice`; the `Auto` choice without a device logs one warning
    /// (target `Sound`).
    pub fn new(choice: OutputChoice) -> AudioPlugin {
        let engine = AudioEngine::new(choice, "");
        if choice == OutputChoice::Auto && engine.output() == OutputKind::NoDevice {
            tracing::warn!(
                target: "Sound",
                "{}",
                engine.no_device_reason().unwrap_or_default()
            );
        }
        AudioPlugin {
            engine,
            bodies: RVec::new(),
            scratch: Vec::new(),
        }
    }

    /// The engine.
    pub fn engine(&self) -> &AudioEngine {
        &self.engine
    }

    /// The engine, mutable.
    pub fn engine_mut(&mut self) -> &mut AudioEngine {
        &mut self.engine
    }

    /// Reads archive `name` through the host once (NOT_FOUND or any error: missing).
    fn ensure_library(&mut self, host: &Host<'_>, name: &str) {
        if self.engine.has_library(name) {
            return;
        }
        let bytes = host.read_mission_file(name).map_err(|e| e.to_string());
        self.engine.load_library(name, bytes);
    }

    fn read_music(&mut self, host: &Host<'_>) {
        let text = match host.read_mission_file("mission.cfg") {
            Ok(t) => t,
            Err(e) if e.kind == ErrorKind::NOT_FOUND => return,
            Err(e) => {
                tracing::warn!(target: "Sound", "mission.cfg unreadable, no ambient music: {e}");
                return;
            }
        };
        // PD-AUDIO-SKY-START: the sky's owner tells the weather from the first tick on,
        // after the first music draw; until then the colour is the sky block's at game
        // time 0 (a bad block: no sky here; the owner reports it).
        if let Ok(Some(sky)) = iron3d_effects_rules::sky::SkyConfig::from_mission_cfg(&text) {
            self.engine.set_sky(Some(sky.weather_at(0).quantised().rgb));
        }
        let music = match parse_mission_music(&text, self.engine.mission_library()) {
            Ok(Some(m)) => m,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(target: "Sound", "mission.cfg: {e}; no ambient music");
                return;
            }
        };
        for library in &music.libraries {
            self.ensure_library(host, library);
        }
        let g = host.rng_seed(MUSIC_GENERATOR_STREAM);
        let generator = VariationGenerator::new(g as u16, (g >> 16) as u16);
        self.engine
            .set_music(music.config, generator, host.rng_seed(MUSIC_RNG_STREAM));
    }
}

impl Plugin for AudioPlugin {
    fn mission_start(
        &mut self,
        host: &mut Host<'_>,
        mission: &MissionInfo,
    ) -> Result<(), PluginError> {
        self.engine.set_mission(mission.mission.as_str());
        self.engine.set_tick_rate(mission.tick_hz);
        let library = self.engine.mission_library().to_owned();
        self.ensure_library(host, &library);
        self.ensure_library(host, SOUNDS_LIBRARY);
        self.ensure_library(host, VOICES_LIBRARY);
        self.engine.set_sky(None);
        self.read_music(host);
        Ok(())
    }

    fn on_message(
        &mut self,
        host: &mut Host<'_>,
        _object: Option<ObjectRef>,
        message: &Message,
    ) -> Result<(), PluginError> {
        let tick = host.clock().tick;
        if message.code == MessageCode::SOUND {
            let event = match SoundEvent::from_message(message) {
                Ok(e) => e,
                Err(e) => {
                    tracing::warn!(target: "Sound", "ignored: {e}");
                    return Ok(());
                }
            };
            let library = self.engine.library_of(&event);
            self.ensure_library(host, &library);
            let owner_position = if event.owner != 0 && event.position.is_none() {
                host.find(event.owner)
                    .and_then(|h| host.object(h).ok())
                    .map(|o| Vec3::from(o.position))
            } else {
                None
            };
            self.engine.sound(tick, &event, owner_position);
        } else if message.code == MessageCode::WEATHER {
            match iron3d_abi::WeatherEvent::from_message(message) {
                Ok(w) => self.engine.set_sky(Some(Vec3::from(w.sky_rgb))),
                Err(e) => tracing::warn!(target: "Sound", "ignored: {e}"),
            }
        } else if message.code == MessageCode::COLLISION_DETECTED {
            self.engine.collision(
                tick,
                message.object_a,
                message.object_b,
                Vec3::from(message.point),
            );
        }
        Ok(())
    }

    fn update(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        host.read_bodies(&mut self.bodies);
        self.scratch.clear();
        self.scratch.extend(
            self.bodies
                .iter()
                .map(|b| (b.id, Vec3::from(b.position), Vec3::from(b.velocity))),
        );
        let clock = host.clock();
        self.engine.tick(
            clock.tick,
            clock.step_seconds(),
            clock.paused,
            &self.scratch,
        );
        Ok(())
    }

    fn object_removed(&mut self, host: &mut Host<'_>, id: u32) -> Result<(), PluginError> {
        self.engine.removed(host.clock().tick, id);
        Ok(())
    }

    fn save_state(&self) -> Result<StateBlob, PluginError> {
        self.engine.save()
    }

    fn restore_state(&mut self, blob: &StateBlob) -> Result<(), PluginError> {
        self.engine.restore(blob)
    }

    fn shutdown(&mut self) {
        self.engine.stop_all();
    }

    fn audio(&mut self) -> Option<&mut dyn AudioProvider> {
        Some(self)
    }
}

impl AudioProvider for AudioPlugin {
    fn frame(&mut self, frame: &AudioFrame) -> Result<AudioReport, PluginError> {
        Ok(self.engine.frame(frame))
    }
}
