//! What a replay log says about the run that recorded it, and whether this run can
//! replay it: the header both recorders write (`run --record`, `play --record`) and the
//! compatibility checks `run --replay` makes before a tick runs. The log's own format
//! (parser, checkpoints, end) is [`iron3d_replay`].
//!
//! A header names the world (the built-in scenario with its parameters, or a game
//! mission with the fingerprint of the data its load read), the plugin set of the
//! simulation slots, the mission parameters and, when any, the mod set. Refusals name
//! every difference, one per line, and change nothing.

use iron3d_mods::ModSetFingerprint;
use iron3d_plugin_host::PluginHost;
use iron3d_replay::{REPLAY_FORMAT, REPLAY_VERSION, ReplayHeader, ReplayLog, ReplayMission};
use std::collections::BTreeMap;

/// The `scenario` field of a mission's header (the mission itself is in `mission`).
pub const MISSION_SCENARIO: &str = "mission";

/// The key of the plugin set in the header's `params`.
pub const PLUGINS_KEY: &str = "plugins";

/// The key of a mission's parameters in the header's `params`.
pub const MISSION_PARAMETERS_KEY: &str = "mission_parameters";

/// The key of the mod-set fingerprint in the header's `params`.
pub const MODS_KEY: &str = "mods";

/// Why a log cannot be replayed by this run (nothing ran).
#[derive(Debug, thiserror::Error)]
pub enum ReplayRefusal {
    /// The header's `params` hold a key no recorder writes (PD-REPLAY-KEYS).
    #[error("replay log {path}, line 1: header: params has unknown key '{key}'")]
    UnknownKey {
        /// The log.
        path: String,
        /// The key, cut to 64 characters and escaped.
        key: String,
    },
    /// `params.mission_parameters` is not a map of strings.
    #[error("replay header: params.mission_parameters is not a map of strings")]
    MissionParameters(#[source] serde_json::Error),
    /// `--param` on a replay differs from the recorded parameters.
    #[error(
        "replay refused: --param {given:?} differs from the recorded mission parameters {recorded:?}"
    )]
    Parameters {
        /// Given on the command line.
        given: BTreeMap<String, String>,
        /// Recorded.
        recorded: BTreeMap<String, String>,
    },
    /// The world, plugin set or mod set differ from the recording.
    #[error("replay refused: this run differs from the recording:\n  {}", .0.join("\n  "))]
    Differs(Vec<String>),
}

/// The plugin set of a run as recorded in replay headers: `slot=name version factory`
/// per simulation slot, in slot order (no machine paths). Plugins are part of the
/// simulation; the render and audio slots are presentation (never in the state hash,
/// unable to change the world) and are left out, so a replay may draw or sound
/// differently from its recording; so is the net slot (PD-NET-ROLE: a match's replay
/// is its merged input, played alone).
pub fn plugin_set(host: &PluginHost) -> Vec<String> {
    host.report()
        .iter()
        .filter(|r| {
            !matches!(
                r.slot,
                iron3d_abi::SlotKind::Render
                    | iron3d_abi::SlotKind::Audio
                    | iron3d_abi::SlotKind::Net
            )
        })
        .map(|r| {
            format!(
                "{}={}",
                r.slot,
                r.instance.split(" (").next().unwrap_or_default()
            )
        })
        .collect()
}

/// What a recorder needs beside the log's world: the plugin set, the mod set, the seed,
/// the tick rate and the checkpoint period.
#[derive(Clone, Debug)]
pub struct Recorded<'a> {
    /// [`plugin_set`] of the run.
    pub plugin_set: &'a [String],
    /// The enabled mods (an empty set is not written).
    pub mods: &'a ModSetFingerprint,
    /// Master seed.
    pub seed: u64,
    /// Ticks per second.
    pub tick_hz: u32,
    /// A checkpoint every this many ticks (at least 1).
    pub checkpoint_every: u64,
}

impl Recorded<'_> {
    fn header(
        &self,
        scenario: String,
        mut params: BTreeMap<String, serde_json::Value>,
        mission: Option<ReplayMission>,
    ) -> ReplayHeader {
        params.insert(PLUGINS_KEY.to_owned(), serde_json::json!(self.plugin_set));
        if !self.mods.mods.is_empty() {
            params.insert(MODS_KEY.to_owned(), serde_json::json!(self.mods));
        }
        ReplayHeader {
            format: REPLAY_FORMAT.into(),
            version: REPLAY_VERSION,
            seed: self.seed,
            tick_hz: self.tick_hz,
            scenario,
            params,
            checkpoint_every: self.checkpoint_every.max(1),
            mission,
            start: None,
        }
    }

    /// The header of a game mission: its identity and its parameters.
    pub fn mission_header(
        &self,
        mission: ReplayMission,
        parameters: &BTreeMap<String, String>,
    ) -> ReplayHeader {
        let params = BTreeMap::from([(
            MISSION_PARAMETERS_KEY.to_owned(),
            serde_json::json!(parameters),
        )]);
        self.header(MISSION_SCENARIO.to_owned(), params, Some(mission))
    }

    /// The header of a world built by the caller (the built-in scenario), with its
    /// parameters (`params` must not use [`PLUGINS_KEY`] or [`MODS_KEY`]).
    pub fn scenario_header(
        &self,
        scenario: &str,
        params: BTreeMap<String, serde_json::Value>,
    ) -> ReplayHeader {
        self.header(scenario.to_owned(), params, None)
    }
}

/// The mod-set fingerprint a header recorded (`None`: the log records none).
pub fn recorded_mods(params: &BTreeMap<String, serde_json::Value>) -> Option<ModSetFingerprint> {
    params
        .get(MODS_KEY)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
}

/// The mod ids a header recorded, in their order.
pub fn recorded_mod_ids(params: &BTreeMap<String, serde_json::Value>) -> Vec<String> {
    recorded_mods(params)
        .map(|f| f.mods.into_iter().map(|m| m.id).collect())
        .unwrap_or_default()
}

/// PD-REPLAY-KEYS: refuses a header whose `params` hold a key no recorder writes
/// (`scenario_keys`: the built-in scenario's own keys), naming it.
///
/// # Errors
/// [`ReplayRefusal::UnknownKey`].
pub fn check_keys(
    log: &ReplayLog,
    path: &std::path::Path,
    scenario_keys: &[&str],
) -> Result<(), ReplayRefusal> {
    let known = |k: &str| {
        k == PLUGINS_KEY
            || k == MODS_KEY
            || if log.header.mission.is_some() {
                k == MISSION_PARAMETERS_KEY
            } else {
                scenario_keys.contains(&k)
            }
    };
    match log.header.params.keys().find(|k| !known(k)) {
        None => Ok(()),
        Some(k) => {
            let mut key: String = k.chars().take(64).flat_map(char::escape_debug).collect();
            if k.chars().nth(64).is_some() {
                key.push('…');
            }
            Err(ReplayRefusal::UnknownKey {
                path: path.display().to_string(),
                key,
            })
        }
    }
}

/// The mission parameters of a replaying run: the recorded ones (a log without them
/// recorded none); `given` (`--param`) must be empty or repeat them.
///
/// # Errors
/// The recorded parameters are malformed, or `given` differs.
pub fn mission_parameters(
    log: &ReplayLog,
    given: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, ReplayRefusal> {
    let recorded: BTreeMap<String, String> = match log.header.params.get(MISSION_PARAMETERS_KEY) {
        None => BTreeMap::new(),
        Some(v) => serde_json::from_value(v.clone()).map_err(ReplayRefusal::MissionParameters)?,
    };
    if !given.is_empty() && given != &recorded {
        return Err(ReplayRefusal::Parameters {
            given: given.clone(),
            recorded,
        });
    }
    Ok(recorded)
}

/// Refuses a log this run cannot replay: the mission's data (`here`: this run's
/// identity, `None` for the built-in scenario), the plugin set or the mod set differ
/// from the recording, every difference named.
///
/// # Errors
/// [`ReplayRefusal::Differs`].
pub fn check_compatible(
    log: &ReplayLog,
    here: Option<&ReplayMission>,
    plugin_set: &[String],
    mods: &ModSetFingerprint,
) -> Result<(), ReplayRefusal> {
    let mut differences = Vec::new();
    if let (Some(recorded), Some(here)) = (&log.header.mission, here) {
        differences.extend(recorded.differences(here));
    }
    differences.extend(plugin_set_differences(&log.header.params, plugin_set));
    differences.extend(
        recorded_mods(&log.header.params)
            .unwrap_or_default()
            .diff(mods)
            .into_iter()
            .map(|d| format!("mods: {d}")),
    );
    if differences.is_empty() {
        Ok(())
    } else {
        Err(ReplayRefusal::Differs(differences))
    }
}

/// How the recorded plugin set differs from this run's, one line per slot.
fn plugin_set_differences(
    params: &BTreeMap<String, serde_json::Value>,
    here: &[String],
) -> Vec<String> {
    let Some(recorded) = params
        .get(PLUGINS_KEY)
        .and_then(serde_json::Value::as_array)
    else {
        return vec!["plugin set: the log records none".to_owned()];
    };
    let split = |s: &str| -> (String, String) {
        match s.split_once('=') {
            Some((slot, p)) => (slot.to_owned(), p.to_owned()),
            None => (String::new(), s.to_owned()),
        }
    };
    let recorded: BTreeMap<String, String> = recorded
        .iter()
        .map(|v| split(v.as_str().unwrap_or_default()))
        .collect();
    let here: BTreeMap<String, String> = here.iter().map(|s| split(s)).collect();
    let mut out = Vec::new();
    for (slot, p) in &recorded {
        match here.get(slot) {
            Some(h) if h == p => {}
            Some(h) => out.push(format!(
                "plugin set: slot {slot} recorded '{p}', here '{h}'"
            )),
            None => out.push(format!("plugin set: slot {slot} recorded '{p}', here none")),
        }
    }
    for (slot, h) in here.iter().filter(|(s, _)| !recorded.contains_key(*s)) {
        out.push(format!("plugin set: slot {slot} not recorded, here '{h}'"));
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    fn log(params: serde_json::Value, mission: bool) -> ReplayLog {
        let fp = ModSetFingerprint::default();
        let set = ["ai=iron3d-ai 0.1.0 ai".to_owned()];
        let rec = Recorded {
            plugin_set: &set,
            mods: &fp,
            seed: 1,
            tick_hz: 30,
            checkpoint_every: 10,
        };
        let mut header = if mission {
            rec.mission_header(
                ReplayMission {
                    name: "M".into(),
                    data: Default::default(),
                },
                &BTreeMap::from([("auto-demo".to_owned(), "1".to_owned())]),
            )
        } else {
            rec.scenario_header("wanderers", BTreeMap::new())
        };
        if let serde_json::Value::Object(m) = params {
            header.params.extend(m);
        }
        ReplayLog::new(header)
    }

    #[test]
    fn a_key_no_recorder_writes_is_named_and_each_world_has_its_own() {
        let p = std::path::Path::new("r.jsonl");
        assert!(check_keys(&log(serde_json::json!({}), true), p, &[]).is_ok());
        let e = check_keys(&log(serde_json::json!({"objects": 3}), true), p, &[]).unwrap_err();
        assert!(e.to_string().contains("unknown key 'objects'"), "{e}");
        let scenario = log(serde_json::json!({"objects": 3}), false);
        assert!(check_keys(&scenario, p, &["objects"]).is_ok());
        let long = "k".repeat(100);
        let e = check_keys(&log(serde_json::json!({ long: 1 }), false), p, &[]).unwrap_err();
        assert!(
            e.to_string().contains(&format!("'{}…'", "k".repeat(64))),
            "{e}"
        );
    }

    #[test]
    fn parameters_come_from_the_log_and_a_different_param_is_refused() {
        let l = log(serde_json::json!({}), true);
        let recorded = mission_parameters(&l, &BTreeMap::new()).unwrap();
        assert_eq!(recorded["auto-demo"], "1");
        assert!(mission_parameters(&l, &recorded).is_ok());
        let other = BTreeMap::from([("auto-demo".to_owned(), "0".to_owned())]);
        assert!(matches!(
            mission_parameters(&l, &other),
            Err(ReplayRefusal::Parameters { .. })
        ));
    }

    #[test]
    fn every_plugin_set_difference_is_named() {
        let l = log(serde_json::json!({}), false);
        let fp = ModSetFingerprint::default();
        assert!(check_compatible(&l, None, &["ai=iron3d-ai 0.1.0 ai".to_owned()], &fp).is_ok());
        let here = ["ai=other 0.2.0 ai".to_owned(), "control=c 1 c".to_owned()];
        let ReplayRefusal::Differs(d) = check_compatible(&l, None, &here, &fp).unwrap_err() else {
            panic!("differs");
        };
        assert_eq!(
            d,
            [
                "plugin set: slot ai recorded 'iron3d-ai 0.1.0 ai', here 'other 0.2.0 ai'",
                "plugin set: slot control not recorded, here 'c 1 c'"
            ]
        );
    }
}
