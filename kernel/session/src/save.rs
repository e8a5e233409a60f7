//! Save games of a session (**PD-SAVE-SESSION**), in the container of [`iron3d_save`]:
//!
//! * section `HEAD`: the [`SaveHeader`] — engine, mission, seed, tick rate, the
//!   fingerprints of the game data and the mod set (the caller's [`SaveIdentity`]), the
//!   plugin set of the simulation slots with each blob's format version, tick, game
//!   time, pause, time scale, the state hash and the mission's outcome when it was
//!   decided (a decided mission stays decided after a load);
//! * section `WRLD`: the kernel's own state ([`iron3d_kernel::Kernel::save_state`]);
//! * one section `PLUG` per system that keeps a state, named by the system
//!   (`plugin:ai`, `services`, …): its blob's format name, version and bytes
//!   ([`encode_blob`]).
//!
//! A save is loaded into a session freshly opened on the same mission with the same
//! seed and plugin set ([`Session::restore_save`]): the header is checked against this
//! session first (every difference named, PD-SAVE-COMPAT), then the kernel's state,
//! then each system's blob; the state hash after the load must be the header's. A load
//! that fails leaves a session that must be discarded (the caller opened it for the
//! load, so the game the player had is untouched).
//!
//! **PD-SAVE-PRESENTATION**: the presentation slots (render, audio, effects) are saved
//! too, so a loaded game goes on with the effects and music it had; they are not part of
//! the compatibility check, and a presentation plugin that refuses its blob (another
//! renderer, another effects plugin) keeps its own state, with a warning. The net slot
//! (PD-NET-ROLE: its state is the peer's connection, not the simulation) is treated the
//! same way.

use crate::{Session, SessionError};
use iron3d_abi::SlotKind;
use iron3d_kernel::SavedState;
use iron3d_save::{
    PluginRecord, SaveFile, SaveHeader, SavedOutcome, Section, TAG_PLUGIN, TAG_WORLD,
};

/// What a save says about the data and mods a session runs on (the caller knows them:
/// the mission's data fingerprint, the enabled mod set).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SaveIdentity {
    /// The engine build (name and version, and the commit where known).
    pub engine: String,
    /// Fingerprint of the game data (hex BLAKE3).
    pub data: String,
    /// Fingerprint of the enabled mod set (hex BLAKE3).
    pub mods: String,
}

impl SaveIdentity {
    /// The identity of a run: this engine build; the mission's data fingerprint (every
    /// file its load read, by name and BLAKE3, as replay headers record it) or, for the
    /// built-in scenario, its parameters; and the enabled mod set.
    pub fn of(
        mission: Option<&iron3d_replay::ReplayMission>,
        scenario: &serde_json::Value,
        mods: &iron3d_mods::ModSetFingerprint,
    ) -> Self {
        let hex = |bytes: &[u8]| blake3::hash(bytes).to_hex().to_string();
        let data = match mission {
            Some(m) => {
                let mut text = String::new();
                for (file, sum) in &m.data {
                    text.push_str(file);
                    text.push('\0');
                    text.push_str(sum);
                    text.push('\n');
                }
                hex(text.as_bytes())
            }
            None => hex(scenario.to_string().as_bytes()),
        };
        Self {
            engine: format!("iron3d {}", env!("CARGO_PKG_VERSION")),
            data,
            mods: hex(serde_json::to_string(mods).unwrap_or_default().as_bytes()),
        }
    }
}

/// The prefix of a plugin slot's system name.
const SLOT_PREFIX: &str = "plugin:";

/// A system's blob as a section payload: `u16` format length, the format name, `u32`
/// version (little-endian), then the bytes.
pub fn encode_blob(state: &SavedState) -> Vec<u8> {
    let format = state.format.as_bytes();
    let len = u16::try_from(format.len()).unwrap_or(u16::MAX);
    let mut out = Vec::with_capacity(6 + format.len() + state.bytes.len());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&format[..usize::from(len)]);
    out.extend_from_slice(&state.version.to_le_bytes());
    out.extend_from_slice(&state.bytes);
    out
}

/// The blob of [`encode_blob`]'s payload; `None` when it is too short or the format name
/// is not UTF-8.
pub fn decode_blob(payload: &[u8]) -> Option<SavedState> {
    let len = usize::from(u16::from_le_bytes(payload.get(..2)?.try_into().ok()?));
    let format = std::str::from_utf8(payload.get(2..2 + len)?).ok()?;
    let version = u32::from_le_bytes(payload.get(2 + len..6 + len)?.try_into().ok()?);
    Some(SavedState {
        format: format.to_owned(),
        version,
        bytes: payload[6 + len..].to_vec(),
    })
}

/// Whether the slot a system serves is presentation (PD-SAVE-PRESENTATION) or the net
/// slot (PD-NET-ROLE): outside the simulation, so outside the compatibility check.
fn presentation(system: &str) -> bool {
    system
        .strip_prefix(SLOT_PREFIX)
        .and_then(SlotKind::from_name)
        .is_some_and(|s| {
            matches!(
                s,
                SlotKind::Render | SlotKind::Audio | SlotKind::Effects | SlotKind::Net
            )
        })
}

fn refused(what: impl Into<String>) -> SessionError {
    SessionError::SaveRefused(what.into())
}

impl Session {
    /// The header this session would write now (also what a save is checked against).
    pub fn save_header(&self, identity: &SaveIdentity) -> SaveHeader {
        let k = &self.kernel;
        let states = k.system_states();
        let plugins = self
            .host
            .report()
            .iter()
            .filter(|r| !presentation(&format!("{SLOT_PREFIX}{}", r.slot)))
            .filter_map(|r| {
                let label = r.instance.split(" (").next().unwrap_or_default();
                let mut parts = label.split_whitespace();
                let (library, version, factory) = (parts.next()?, parts.next()?, parts.next()?);
                let system = format!("{SLOT_PREFIX}{}", r.slot);
                let blob_format = states
                    .iter()
                    .find(|(n, _)| *n == system)
                    .and_then(|(_, s)| s.as_ref().ok())
                    .map_or(0, |s| s.version);
                Some(PluginRecord {
                    slot: r.slot.to_string(),
                    library: library.to_owned(),
                    factory: factory.to_owned(),
                    version: version.to_owned(),
                    blob_format,
                })
            })
            .collect();
        let (num, den) = k.game_clock().scale();
        SaveHeader {
            engine: identity.engine.clone(),
            mission: self.mission.name().to_owned(),
            seed: k.config().seed,
            tick_hz: k.config().tick_hz,
            data_fingerprint: identity.data.clone(),
            mods_fingerprint: identity.mods.clone(),
            plugins,
            tick: k.tick(),
            game_time_ms: k.game_clock().now_ns() / 1_000_000,
            paused: k.game_clock().is_paused(),
            time_scale: f64::from(num) / f64::from(den.max(1)),
            state_hash: k.state_hash().to_hex(),
            outcome: self.host.mission_outcome().map(|o| SavedOutcome {
                code: o.outcome.0,
                slot: o.slot.to_string(),
                tick: o.tick,
            }),
            extra: Default::default(),
        }
    }

    /// The save of this session as it stands between ticks (see the module docs). A
    /// system that cannot save now fails the save, naming it.
    pub fn save_file(&self, identity: &SaveIdentity) -> Result<SaveFile, SessionError> {
        let mut save = SaveFile::new(self.save_header(identity));
        save.sections
            .push(Section::new(TAG_WORLD, "", self.kernel.save_state()?));
        for (name, state) in self.kernel.system_states() {
            let state = state.map_err(|e| refused(format!("system '{name}' cannot save: {e}")))?;
            save.sections
                .push(Section::new(TAG_PLUGIN, name, encode_blob(&state)));
        }
        Ok(save)
    }

    /// Saves the session into slot `slot` of the save folder `dir` (made when missing):
    /// the save as `dir/file`, written atomically (PD-SAVE-ATOMIC), then the slot recorded
    /// in the folder's slot list (PD-SAVE-SLOTS). Returns the save's header.
    pub fn save_to_slot(
        &self,
        dir: &std::path::Path,
        slot: &str,
        file: &str,
        identity: &SaveIdentity,
    ) -> Result<SaveHeader, SessionError> {
        std::fs::create_dir_all(dir).map_err(|source| SessionError::File {
            what: "save folder",
            path: dir.to_path_buf(),
            source,
        })?;
        let save = self.save_file(identity)?;
        iron3d_save::write_atomic(&dir.join(file), &save)?;
        let mut slots = iron3d_save::SlotList::read(dir)?;
        slots.record(slot, file, &save.header);
        slots.write(dir)?;
        Ok(save.header)
    }

    /// Loads `save` into this running session (a quick load): as
    /// [`Session::restore_save`], but a refusal changes nothing — the state before the
    /// load, saved first, is put back when a restore fails half-way.
    pub fn load_in_place(
        &mut self,
        save: &SaveFile,
        identity: &SaveIdentity,
    ) -> Result<(), SessionError> {
        let before = self.save_file(identity)?;
        if let Err(e) = self.restore_save(save, identity) {
            if let Err(back) = self.restore_save(&before, identity) {
                tracing::error!(error = %back, "the state before the refused load could not be put back");
            }
            return Err(e);
        }
        Ok(())
    }

    /// Loads `save` into this session, freshly opened on the save's mission with its
    /// seed and plugin set (see the module docs). Refusals name every difference of the
    /// header (PD-SAVE-COMPAT), the section or the system; the state hash after the load
    /// is checked against the header's.
    pub fn restore_save(
        &mut self,
        save: &SaveFile,
        identity: &SaveIdentity,
    ) -> Result<(), SessionError> {
        let here = self.save_header(identity);
        let mismatches = save.header.mismatches(&here);
        if !mismatches.is_empty() {
            return Err(SessionError::Save(iron3d_save::SaveError::Incompatible(
                mismatches,
            )));
        }
        if save.header.seed != here.seed {
            return Err(refused(format!(
                "the save's seed is {}, this session runs seed {}",
                save.header.seed, here.seed
            )));
        }
        let world = save
            .section(TAG_WORLD, "")
            .ok_or_else(|| refused("the save has no WRLD section"))?;
        let mut blobs = Vec::new();
        for s in save.sections.iter().filter(|s| s.tag == TAG_PLUGIN) {
            let state = decode_blob(&s.payload)
                .ok_or_else(|| refused(format!("PLUG {:?}: not a state blob", s.name)))?;
            blobs.push((s.name.clone(), state));
        }
        // Every simulation system that keeps a state must find its blob.
        for (name, _) in self.kernel.system_states() {
            if !presentation(&name) && !blobs.iter().any(|(n, _)| *n == name) {
                return Err(refused(format!(
                    "the save has no state for system '{name}'"
                )));
            }
        }
        let outcome = match &save.header.outcome {
            None => None,
            Some(o) => Some(iron3d_plugin_host::ReportedOutcome {
                outcome: iron3d_abi::MissionOutcome(o.code),
                slot: SlotKind::from_name(&o.slot).ok_or_else(|| {
                    refused(format!("outcome reported by unknown slot '{}'", o.slot))
                })?,
                tick: o.tick,
            }),
        };
        self.kernel.restore_state(&world.payload)?;
        for (name, state) in &blobs {
            match self.kernel.restore_system_state(name, state) {
                Ok(()) => {}
                Err(e) if presentation(name) => {
                    tracing::warn!(system = name.as_str(), error = %e, "presentation state not restored; the plugin keeps its own");
                }
                Err(e) => return Err(e.into()),
            }
        }
        self.host.restore_outcome(outcome);
        let hash = self.kernel.state_hash().to_hex();
        if hash != save.header.state_hash {
            return Err(refused(format!(
                "the loaded state hashes to {hash}, the save was written at {}",
                save.header.state_hash
            )));
        }
        Ok(())
    }
}
