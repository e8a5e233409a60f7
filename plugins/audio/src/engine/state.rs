//! The audio engine's state blob (hot swap, save games): the music, its RNG, the flags
//! and every loop with its playback position, postcard-encoded and bounded on restore;
//! then, when a weather event was heard, a trailer of the sky's base RGB (three
//! little-endian `f32`, 2.12): a reader that predates it ignores it, a blob without it
//! restores with no sky heard.

use super::*;

/// A loop in the state blob.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct SavedLoop {
    pub(super) slot: LoopSlot,
    pub(super) key: SampleKey,
    pub(super) owner: u32,
    pub(super) bus: Bus,
    pub(super) volume: f32,
    pub(super) position: Option<Vec3>,
    pub(super) min_distance: f32,
    pub(super) max_distance: f32,
    pub(super) rate: f32,
    pub(super) playback_seconds: f64,
}

/// The state blob's body (postcard).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct SavedState {
    /// The last tick the saving instance saw (restored records carry it).
    pub(super) tick: u64,
    pub(super) mission_library: String,
    pub(super) music: Option<AmbientMusic>,
    pub(super) music_rng: Vec<u8>,
    pub(super) theme_started: bool,
    pub(super) outcome_voice_played: bool,
    pub(super) loops: Vec<SavedLoop>,
}

impl AudioEngine {
    /// The state blob: the music (timer, index, generator, pools), its RNG, whether the
    /// theme started and the outcome voice played, and every loop with its playback
    /// position in seconds (postcard, [`STATE_FORMAT`] version [`STATE_VERSION`]).
    ///
    /// # Errors
    /// [`ErrorKind::FAILED`] when encoding fails.
    pub fn save(&self) -> Result<StateBlob, PluginError> {
        let loops = self
            .loops
            .iter()
            .map(|(&slot, l)| SavedLoop {
                slot,
                key: l.key.clone(),
                owner: l.owner,
                bus: l.bus,
                volume: l.volume,
                position: l.position,
                min_distance: l.min_distance,
                max_distance: l.max_distance,
                rate: l.rate,
                playback_seconds: l
                    .source
                    .and_then(|id| self.mixer.source_status(id).ok())
                    .map_or(0.0, |s| s.position_seconds),
            })
            .collect();
        let state = SavedState {
            tick: self.tick,
            mission_library: self.mission_library.clone(),
            music: self.music.clone(),
            music_rng: self.music_rng.to_bytes().to_vec(),
            theme_started: self.theme_started,
            outcome_voice_played: self.outcome_voice_played,
            loops,
        };
        let mut bytes = postcard::to_allocvec(&state)
            .map_err(|e| PluginError::failed(format!("audio state: {e}")))?;
        if let Some(rgb) = self.sky_rgb {
            for v in rgb.to_array() {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
        Ok(StateBlob::new(STATE_FORMAT, STATE_VERSION, bytes))
    }

    /// Takes over a state saved by [`AudioEngine::save`]: the loops running now stop and
    /// the saved ones restart at their saved playback position (one `loop_start` record
    /// each, detail `restored`), so a hot swap keeps them going.
    ///
    /// # Errors
    /// [`ErrorKind::BAD_STATE`] for another format or version, bytes that do not
    /// decode, or counts over [`MAX_SAVED_LOOPS`] / [`MAX_SAVED_POOL`] (postcard never
    /// preallocates more than the input can hold; the counts are checked after).
    pub fn restore(&mut self, blob: &StateBlob) -> Result<(), PluginError> {
        let bytes = blob.expect(STATE_FORMAT, STATE_VERSION)?;
        let (state, trailer): (SavedState, &[u8]) =
            postcard::take_from_bytes(bytes).map_err(|e| bad_state(format!("audio state: {e}")))?;
        let sky = match trailer {
            [] => None,
            t if t.len() == 12 => {
                let f = |i: usize| f32::from_le_bytes([t[i], t[i + 1], t[i + 2], t[i + 3]]);
                let rgb = Vec3::new(f(0), f(4), f(8));
                if !(rgb.is_finite() && rgb.min_element() >= 0.0) {
                    return Err(bad_state(format!(
                        "audio state: sky RGB {rgb} is not valid"
                    )));
                }
                Some(rgb)
            }
            t => {
                return Err(bad_state(format!(
                    "audio state: a trailer of {} bytes (the sky RGB takes 12)",
                    t.len()
                )));
            }
        };
        if state.loops.len() > MAX_SAVED_LOOPS {
            return Err(bad_state(format!(
                "audio state: {} loops (at most {MAX_SAVED_LOOPS})",
                state.loops.len()
            )));
        }
        if let Some(m) = &state.music {
            let c = m.config();
            let longest = c
                .default_pool
                .len()
                .max(c.day_pool.len())
                .max(c.night_pool.len());
            if longest > MAX_SAVED_POOL {
                return Err(bad_state(format!(
                    "audio state: a music pool of {longest} entries (at most {MAX_SAVED_POOL})"
                )));
            }
        }
        let rng = PluginRng::from_bytes(&state.music_rng)
            .ok_or_else(|| bad_state("audio state: bad music RNG"))?;
        let tick = state.tick;
        self.stop_all();
        self.tick = tick;
        self.mission_library = state.mission_library;
        self.music = state.music;
        self.music_rng = rng;
        self.theme_started = state.theme_started;
        self.outcome_voice_played = state.outcome_voice_played;
        self.sky_rgb = sky;
        for l in state.loops {
            let info = LoopInfo {
                key: l.key,
                owner: l.owner,
                bus: l.bus,
                volume: l.volume,
                position: l.position,
                min_distance: l.min_distance,
                max_distance: l.max_distance,
                rate: l.rate,
                source: None,
            };
            let kind = if l.slot == LoopSlot::Theme {
                TraceKind::MusicTheme
            } else {
                TraceKind::LoopStart
            };
            self.start_loop_at(
                tick,
                l.slot,
                info,
                kind,
                l.playback_seconds,
                Some(format!("restored at {:.4} s", l.playback_seconds)),
            );
        }
        Ok(())
    }
}
