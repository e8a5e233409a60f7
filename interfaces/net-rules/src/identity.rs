//! What must match before a player is admitted: the engine build, the game data, the
//! mods and the plugin in every simulation slot. Peers that differ in any of these
//! would simulate differently, so the host refuses the join and says what differs
//! ([`admit`]); the refused player is sent the same list ([`crate::wire::Refused`]) and
//! shows it, so both sides read the same words.

use crate::wire::{Hello, MAX_PLUGINS, MAX_TEXT_BYTES};
use crate::{APPLICATION_GUID, PROTOCOL_VERSION, guid_text};
use serde::{Deserialize, Serialize};

/// One plugin a peer runs: its slot, library name and version.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PluginId {
    /// The registry slot (`ai`, `control`, …).
    pub slot: String,
    /// The plugin's name.
    pub name: String,
    /// Its version.
    pub version: String,
}

/// What a peer runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeerIdentity {
    /// The engine build (as saves record it).
    pub engine: String,
    /// Fingerprint of the game data (hex BLAKE3, as saves record it).
    pub data: String,
    /// Fingerprint of the enabled mod set (hex BLAKE3).
    pub mods: String,
    /// The plugins of the simulation slots, ascending slots (one per slot).
    pub plugins: Vec<PluginId>,
}

impl PeerIdentity {
    /// Every field within the wire's limits, plugins ascending by slot without a
    /// repeated slot; `Err` says which.
    pub fn check(&self) -> Result<(), String> {
        for (name, v) in [
            ("engine", &self.engine),
            ("data", &self.data),
            ("mods", &self.mods),
        ] {
            if v.len() > MAX_TEXT_BYTES {
                return Err(format!(
                    "{name}: {} bytes, the limit is {MAX_TEXT_BYTES}",
                    v.len()
                ));
            }
        }
        if self.plugins.len() > MAX_PLUGINS {
            return Err(format!(
                "{} plugins, the limit is {MAX_PLUGINS}",
                self.plugins.len()
            ));
        }
        for p in &self.plugins {
            for v in [&p.slot, &p.name, &p.version] {
                if v.len() > MAX_TEXT_BYTES {
                    return Err(format!("plugin {}: a name of {} bytes", p.slot, v.len()));
                }
            }
        }
        for pair in self.plugins.windows(2) {
            if pair[0].slot >= pair[1].slot {
                return Err(format!(
                    "plugins: slot {} after {}: slots ascend, one plugin each",
                    pair[1].slot, pair[0].slot
                ));
            }
        }
        Ok(())
    }

    /// Every difference between the host's identity (`self`) and a joining peer's, in
    /// a fixed order: engine, data, mods, then the plugins slot by slot (ascending).
    pub fn differences(&self, joining: &PeerIdentity) -> Vec<String> {
        let mut out = Vec::new();
        for (what, a, b) in [
            ("engine build", &self.engine, &joining.engine),
            ("game data fingerprint", &self.data, &joining.data),
            ("mod set fingerprint", &self.mods, &joining.mods),
        ] {
            if a != b {
                out.push(format!("{what}: host {a}, joining {b}"));
            }
        }
        let mut slots: Vec<&str> = self
            .plugins
            .iter()
            .chain(&joining.plugins)
            .map(|p| p.slot.as_str())
            .collect();
        slots.sort_unstable();
        slots.dedup();
        let find = |list: &[PluginId], slot: &str| {
            list.iter().find(|p| p.slot == slot).map_or_else(
                || "none".to_owned(),
                |p| format!("{} {}", p.name, p.version),
            )
        };
        for slot in slots {
            let (a, b) = (find(&self.plugins, slot), find(&joining.plugins, slot));
            if a != b {
                out.push(format!("plugin in slot {slot}: host {a}, joining {b}"));
            }
        }
        out
    }
}

/// Whether the host (running `host`) admits the peer that said `hello`: the GUID and
/// the protocol version first (a peer of another application or version is not
/// compared further), then [`PeerIdentity::differences`]. `Err` lists every
/// difference.
pub fn admit(host: &PeerIdentity, hello: &Hello) -> Result<(), Vec<String>> {
    if hello.guid != APPLICATION_GUID {
        return Err(vec![format!(
            "application: host {}, joining {}",
            guid_text(&APPLICATION_GUID),
            guid_text(&hello.guid)
        )]);
    }
    if hello.protocol != PROTOCOL_VERSION {
        return Err(vec![format!(
            "protocol version: host {PROTOCOL_VERSION}, joining {}",
            hello.protocol
        )]);
    }
    let d = host.differences(&hello.identity);
    if d.is_empty() { Ok(()) } else { Err(d) }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    fn id() -> PeerIdentity {
        PeerIdentity {
            engine: "iron3d 0.1.0".into(),
            data: "aa".into(),
            mods: "bb".into(),
            plugins: vec![
                PluginId {
                    slot: "ai".into(),
                    name: "iron3d-ai".into(),
                    version: "0.1.0".into(),
                },
                PluginId {
                    slot: "control".into(),
                    name: "iron3d-control".into(),
                    version: "0.1.0".into(),
                },
            ],
        }
    }

    fn hello(identity: PeerIdentity) -> Hello {
        Hello {
            guid: APPLICATION_GUID,
            protocol: PROTOCOL_VERSION,
            identity,
            name: "p".into(),
            reserve: false,
        }
    }

    /// Each item of the handshake refused on its own, named in words both sides show.
    #[test]
    fn every_difference_is_named() {
        let host = id();
        assert_eq!(admit(&host, &hello(id())), Ok(()));
        let mut h = hello(id());
        h.guid[0] ^= 1;
        assert_eq!(
            admit(&host, &h).unwrap_err(),
            [
                "application: host {3C1D1F01-A870-11D1-8400-000021B14415}, joining {3D1D1F01-A870-11D1-8400-000021B14415}"
            ]
        );
        let mut h = hello(id());
        h.protocol = 9;
        assert_eq!(
            admit(&host, &h).unwrap_err(),
            ["protocol version: host 1, joining 9"]
        );
        let mut other = id();
        other.engine = "iron3d 0.2.0".into();
        other.data = "cc".into();
        other.mods = "dd".into();
        other.plugins[1].version = "0.3.0".into();
        other.plugins.push(PluginId {
            slot: "net".into(),
            name: "iron3d-net".into(),
            version: "0.1.0".into(),
        });
        other.plugins.remove(0);
        assert_eq!(
            admit(&host, &hello(other)).unwrap_err(),
            [
                "engine build: host iron3d 0.1.0, joining iron3d 0.2.0",
                "game data fingerprint: host aa, joining cc",
                "mod set fingerprint: host bb, joining dd",
                "plugin in slot ai: host iron3d-ai 0.1.0, joining none",
                "plugin in slot control: host iron3d-control 0.1.0, joining iron3d-control 0.3.0",
                "plugin in slot net: host none, joining iron3d-net 0.1.0",
            ]
        );
    }

    #[test]
    fn an_identity_with_a_repeated_or_unordered_slot_is_refused() {
        let mut i = id();
        assert!(i.check().is_ok());
        i.plugins.swap(0, 1);
        assert!(i.check().unwrap_err().contains("slots ascend"));
        let mut i = id();
        i.engine = "x".repeat(MAX_TEXT_BYTES + 1);
        assert!(i.check().unwrap_err().starts_with("engine:"));
    }
}
