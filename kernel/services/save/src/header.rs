//! The header section: what a save is of, and the check that it fits a running engine.

use crate::error::Mismatch;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One plugin of the save's plugin set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginRecord {
    /// The slot it serves (`terrain`, `ai`, `control`, …).
    pub slot: String,
    /// The library it was loaded from (as the registry names it).
    pub library: String,
    /// The factory.
    pub factory: String,
    /// The plugin's own version.
    pub version: String,
    /// The format version of its state blob.
    pub blob_format: u32,
}

impl PluginRecord {
    fn describe(&self) -> String {
        format!(
            "{}/{} {} (blob v{})",
            self.library, self.factory, self.version, self.blob_format
        )
    }
}

/// A mission outcome a plugin reported before the save (it stands after a load).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedOutcome {
    /// The outcome code (`0` failed, `1` complete; the plugin interface's values).
    pub code: u32,
    /// The slot whose plugin reported it.
    pub slot: String,
    /// The tick it was reported in.
    pub tick: u64,
}

/// The header (section 0, JSON): everything needed to decide whether a save fits the
/// running engine and to report where it stands, without reading the other sections.
/// Fields this build does not know are kept in [`SaveHeader::extra`] and written back.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SaveHeader {
    /// The engine build that wrote it (name, version and, where known, the commit).
    pub engine: String,
    /// The mission's name.
    pub mission: String,
    /// The session's seed.
    pub seed: u64,
    /// Simulation ticks per second.
    pub tick_hz: u32,
    /// Fingerprint of the game data (hex BLAKE3).
    pub data_fingerprint: String,
    /// Fingerprint of the enabled mod set in load order (hex BLAKE3).
    pub mods_fingerprint: String,
    /// The plugin set, ascending by slot.
    pub plugins: Vec<PluginRecord>,
    /// Ticks completed.
    pub tick: u64,
    /// Game time in milliseconds.
    pub game_time_ms: u64,
    /// Whether the game was paused.
    pub paused: bool,
    /// The game time's scale (1 = real time).
    pub time_scale: f64,
    /// The kernel's state hash at `tick` (hex, 64 digits).
    pub state_hash: String,
    /// The mission's outcome when it was decided before the save.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<SavedOutcome>,
    /// Fields of a newer writer, kept as read.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl SaveHeader {
    /// Every difference between this (a save's) header and `running` (the engine about
    /// to load it): game data, mod set, mission and plugin set (PD-SAVE-COMPAT). Empty
    /// when the save fits. Tick, time and hash are state, not compatibility.
    pub fn mismatches(&self, running: &SaveHeader) -> Vec<Mismatch> {
        let mut out = Vec::new();
        if self.data_fingerprint != running.data_fingerprint {
            out.push(Mismatch::GameData {
                saved: self.data_fingerprint.clone(),
                running: running.data_fingerprint.clone(),
            });
        }
        if self.mods_fingerprint != running.mods_fingerprint {
            out.push(Mismatch::Mods {
                saved: self.mods_fingerprint.clone(),
                running: running.mods_fingerprint.clone(),
            });
        }
        if self.tick_hz != running.tick_hz {
            out.push(Mismatch::TickRate {
                saved: self.tick_hz,
                running: running.tick_hz,
            });
        }
        if !self.mission.eq_ignore_ascii_case(&running.mission) {
            out.push(Mismatch::Mission {
                saved: self.mission.clone(),
                running: running.mission.clone(),
            });
        }
        let saved: BTreeMap<&str, &PluginRecord> =
            self.plugins.iter().map(|p| (p.slot.as_str(), p)).collect();
        let now: BTreeMap<&str, &PluginRecord> = running
            .plugins
            .iter()
            .map(|p| (p.slot.as_str(), p))
            .collect();
        for (slot, s) in &saved {
            match now.get(slot) {
                None => out.push(Mismatch::PluginMissing {
                    slot: (*slot).to_owned(),
                    saved: s.describe(),
                }),
                Some(r) if r != s => out.push(Mismatch::PluginDiffers {
                    slot: (*slot).to_owned(),
                    saved: s.describe(),
                    running: r.describe(),
                }),
                Some(_) => {}
            }
        }
        for (slot, r) in &now {
            if !saved.contains_key(slot) {
                out.push(Mismatch::PluginExtra {
                    slot: (*slot).to_owned(),
                    running: r.describe(),
                });
            }
        }
        out
    }

    /// The header as pretty JSON (what `save inspect` prints).
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}
