//! The `--trace` output: JSON Lines that tools and tests read to see what a run did.
//!
//! The first line is a header, `{"every":K,"format":"iron3d-trace","version":2}`. Then,
//! for tick 0 (the loaded world) and every tick after, in this order:
//!
//! 1. the tick's **events** in the order they happened (the kernel's journal):
//!    `{"tick":T,"type":"added","id":I}`, `{"tick":T,"type":"removed","id":I}`,
//!    `{"tick":T,"type":"collision","a":A,"b":B,"point":[x,y,z],"to":I|null}` (one line
//!    per delivered `GMSG_COLLISION_DETECTED`: a pair told to both objects is two lines),
//!    `{"tick":T,"type":"collision_end","a":A,"b":B,"to":I|null}` (one line per
//!    delivered contact end, `iron3d_abi::MessageCode::CONTACT_ENDED`: the episode the
//!    pair's `collision` began is over), and a `message` line for every other delivered message (`to` is null for a
//!    broadcast):
//!    `{"tick":T,"type":"message","code":C,"name":N|null,"to":I|null,"fields":{…},"payload_len":L,"payload_hex":"…","truncated":B}`;
//! 2. **behaviour state changes** of objects present before and after the tick, by id:
//!    `{"tick":T,"type":"state","id":I,"from":S,"to":S}`;
//! 3. on sampled ticks (`T % K == 0`), one **object** line per object in the game, by id:
//!    `{"tick":T,"type":"object","id":I,"pos":[x,y,z],"vel":[x,y,z],"heading":H,"state":S,"life":L,"ore":O,"target":G,"path":P,"clan":C,"prototype":"…"|null}`.
//!
//! Objects that were in the world when the run started are reported `added` in tick 1,
//! when the systems are told of them. Ids are raw original object ids. `heading` is the
//! yaw in radians: the angle of the object's rotated +X axis in the XY plane (the
//! inverse of `Quat::from_rotation_z`). `life` is `raw_value[1]` of the first
//! `Life state` property, `null` without one; `ore`, `target`, `path` and `clan` are
//! `raw_value[1]` of the first `CurrentOre`, `BehaviorTarget` (0: none), `BehaviorPath`
//! and `ClanID` properties the same way (names and layouts are the gameplay contract's,
//! [`iron3d_gameplay::property`]; the AI plugin keeps `target` and `path`: what a
//! unit aims at and its path revision; `clan` is the property as placed or created, so
//! an object without `ClanID` has `null` even when the AI gave it a clan from its TMA
//! record). `prototype` is the name the object was made from (the TMA resource name: a
//! prototype key or a unit DAT path, or what a plugin's spawn named) as CP1251 text,
//! `null` for an object made from none. `state` is the behaviour state (the `ai`
//! plugin's activity numbers: 0 idle … 8 dead).
//!
//! A **message** line's `code` is the plugin-interface number (PD-MSG-CODES: the
//! originals 1..=17, `SOUND` `0x100`, `CONTACT_ENDED` `0x101`, `EFFECT` `0x102`, plugin
//! codes `0x1000_0000..=0x7FFF_FFFF`) and `name` is [`code_name`]'s: `GMSG_…` /
//! `SYSMSG_…`, `SOUND`, `CONTACT_ENDED`, `EFFECT`, `PLUGIN_MESSAGE`, or `null` for any
//! other code. `fields` is the message decoded:
//! - originals: their own fields — `player`, `object`, `new_owner`, `owner`, `paused`,
//!   `game_time_ns`, `sequence`, `a`/`b`/`point` — and their texts as CP1251 text (at
//!   most [`TEXT_CAP`] bytes): `text` (`GMSG_TEXT_FOR_PLAYER`), `path`
//!   (`GMSG_MISSION_DATA_PATH`), `name` (`GMSG_APPEND_RESOURCE`, with `data_len`, and
//!   `GMSG_REMOVE_RESOURCE`); payloads of unknown layout (player data, sync state,
//!   mirrors) are only in the hex;
//! - plugin codes and `SOUND`: `from` (the sending system's name, e.g. `plugin:ai`, or
//!   `null`), `to_system` (the one system it was addressed to, or `null`), `object_a`,
//!   `object_b`, `player`, `value`, `point`; for `SOUND` also `sound`, the event as
//!   `iron3d_abi::SoundEvent::from_message` reads it (`kind`, `bus`, `library`, `name`,
//!   `owner`, `position` or `null`, `volume`, `min_distance`, `max_distance`, `rate`,
//!   `loop_id`), or `null` and `sound_error` (why) when the payload is not a well-formed
//!   event; for `EFFECT` also `effect`, the event as
//!   `iron3d_abi::EffectEvent::from_message` reads it (`library`, `name`, `owner`,
//!   `position`, `target` or `null`, `scale`), or `null` and `effect_error`.
//!
//! `payload_len` is the full length of the payload a plugin sees (for
//! `GMSG_APPEND_RESOURCE`: name, NUL, data), `payload_hex` its first
//! [`PAYLOAD_HEX_CAP`] bytes as lower-case hex, and `truncated` is true when the line
//! shows less than the message carried (the hex or a text was cut). Decoding never
//! fails a trace: a malformed payload is shown as hex.
//!
//! Numbers are written as the shortest decimal that reads back to the same `f32`; a
//! non-finite number is `null`. Keys are written in sorted order. The same run writes
//! the same bytes, always.

use iron3d_gameplay::property::{
    BEHAVIOR_PATH, BEHAVIOR_TARGET, CLAN_ID, CURRENT_ORE, LIFE_STATE, WordProperty,
};
use iron3d_kernel::{GameMessage, JournalEntry, Kernel, WorldChange};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::Write;

mod message;
pub use message::{PAYLOAD_HEX_CAP, TEXT_CAP, code_name, code_of};

/// The `format` field of the header line.
pub const TRACE_FORMAT: &str = "iron3d-trace";
/// The `version` field of the header line; bumped when a line changes meaning.
pub const TRACE_VERSION: u32 = 2;

/// Why a trace could not be written.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// Writing a line failed.
    #[error("writing the trace after tick {tick}")]
    Io {
        /// The tick being written.
        tick: u64,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// `--trace-every 0`.
    #[error("the trace sampling interval must be at least 1 tick")]
    ZeroInterval,
}

/// Writes a run's trace; feed it the kernel after loading ([`TraceWriter::start`]) and
/// after every tick ([`TraceWriter::after_tick`]). Turns the kernel's journal on.
pub struct TraceWriter<W: Write> {
    out: W,
    every: u64,
    states: BTreeMap<u32, u32>,
}

impl<W: Write> TraceWriter<W> {
    /// A writer that samples objects every `every` ticks; writes the header line.
    pub fn new(mut out: W, every: u64) -> Result<Self, TraceError> {
        if every == 0 {
            return Err(TraceError::ZeroInterval);
        }
        let header = json!({"format": TRACE_FORMAT, "version": TRACE_VERSION, "every": every});
        writeln!(out, "{header}").map_err(|source| TraceError::Io { tick: 0, source })?;
        Ok(Self {
            out,
            every,
            states: BTreeMap::new(),
        })
    }

    /// Records the loaded world as tick 0 and turns on the kernel's journal.
    pub fn start(&mut self, kernel: &mut Kernel) -> Result<(), TraceError> {
        kernel.set_journal(true);
        self.write_tick(kernel, false)
    }

    /// Records the tick the kernel has just run.
    pub fn after_tick(&mut self, kernel: &Kernel) -> Result<(), TraceError> {
        self.write_tick(kernel, true)
    }

    /// Flushes and returns the output.
    pub fn finish(mut self, kernel: &Kernel) -> Result<W, TraceError> {
        let tick = kernel.tick();
        self.out
            .flush()
            .map_err(|source| TraceError::Io { tick, source })?;
        Ok(self.out)
    }

    fn write_tick(&mut self, kernel: &Kernel, events: bool) -> Result<(), TraceError> {
        let tick = kernel.tick();
        let mut lines: Vec<Value> = Vec::new();
        if events {
            lines.extend(kernel.journal().iter().map(|e| event(tick, e)));
        }
        let mut objects: Vec<_> = kernel.world().iter_registered().map(|(_, o)| o).collect();
        objects.sort_by_key(|o| o.id.0);
        let mut states = BTreeMap::new();
        for o in &objects {
            let id = o.id.0;
            if let Some(&from) = self.states.get(&id)
                && from != o.behaviour_state
            {
                lines.push(json!({"tick": tick, "type": "state", "id": id,
                    "from": from, "to": o.behaviour_state}));
            }
            states.insert(id, o.behaviour_state);
        }
        self.states = states;
        if tick % self.every == 0 {
            for o in &objects {
                let f = o.transform.orientation * glam::Vec3::X;
                // The value (word 1) of the first property of that name, `null` without.
                let word =
                    |p: WordProperty| o.props.first(p.as_bytes()).map(|x| p.value(x.raw_value));
                lines.push(json!({
                    "tick": tick,
                    "type": "object",
                    "id": o.id.0,
                    "pos": vec3(o.transform.position),
                    "vel": vec3(o.velocity),
                    "heading": num(f.y.atan2(f.x)),
                    "state": o.behaviour_state,
                    "life": word(LIFE_STATE),
                    "ore": word(CURRENT_ORE),
                    "target": word(BEHAVIOR_TARGET),
                    "path": word(BEHAVIOR_PATH),
                    "clan": word(CLAN_ID),
                    "prototype": (!o.prototype.is_empty()).then(|| message::cp1251(&o.prototype)),
                }));
            }
        }
        for line in lines {
            writeln!(self.out, "{line}").map_err(|source| TraceError::Io { tick, source })?;
        }
        Ok(())
    }
}

fn event(tick: u64, e: &JournalEntry) -> Value {
    match e {
        JournalEntry::World(WorldChange::Added(_, id)) => {
            json!({"tick": tick, "type": "added", "id": id.0})
        }
        JournalEntry::World(WorldChange::Removed(id)) => {
            json!({"tick": tick, "type": "removed", "id": id.0})
        }
        JournalEntry::Delivered {
            object,
            message: GameMessage::CollisionDetected { a, b, point },
            ..
        } => json!({"tick": tick, "type": "collision", "a": a.0, "b": b.0,
            "point": point.map(num), "to": object.map(|o| o.0)}),
        JournalEntry::Delivered {
            object,
            message: GameMessage::Plugin(p),
            ..
        } if p.code == iron3d_abi::MessageCode::CONTACT_ENDED.0 => {
            json!({"tick": tick, "type": "collision_end", "a": p.object_a, "b": p.object_b,
                "to": object.map(|o| o.0)})
        }
        JournalEntry::Delivered {
            object, message, ..
        } => message::message_line(tick, object.map(|o| o.0), message),
        other => json!({"tick": tick, "type": "unknown", "debug": format!("{other:?}")}),
    }
}

fn vec3(v: glam::Vec3) -> [Value; 3] {
    [num(v.x), num(v.y), num(v.z)]
}

/// The shortest decimal that reads back to the same `f32` (`null` when not finite).
fn num(x: f32) -> Value {
    if !x.is_finite() {
        return Value::Null;
    }
    // `f32`'s Display is the shortest round-trip form; as f64 it prints the same digits.
    x.to_string()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests;
