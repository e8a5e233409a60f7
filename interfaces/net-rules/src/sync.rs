//! State summaries for desync reports (**PD-NET-SYNC-REPORT**, after OpenRA's
//! `syncreport`): after every turn a peer of a match keeps a summary of its state — the
//! digest of each system's state as the state hash takes it, and each object's id,
//! position, orientation, velocity, behaviour state, activity and properties in queue
//! order — for its last turns (the engine builds them: `iron3d_session::sync`). When a desync is seen every peer sends its
//! summary of that tick to the others; comparing two summaries names the first thing
//! that differs: a system (the plugin whose state blob differs) or an object and field.
//!
//! The encoding is ours and little-endian: a version byte, the tick, the system count
//! and entries (name length, name, 32-byte digest), the object count and records, and a
//! flag when the objects were cut at [`MAX_OBJECTS`] (a message carries at most 60 KiB).
//! [`SyncReport::decode`] checks every count against the bytes left before reading, so
//! a hostile summary allocates nothing it does not carry.

use std::fmt::Write as _;

/// The most objects a summary lists (900 × [`OBJECT_BYTES`] fits a 60 KiB message with
/// room for the systems).
pub const MAX_OBJECTS: usize = 900;

/// The bytes of one object's record.
pub const OBJECT_BYTES: usize = 57;

/// The encoding's version.
const VERSION: u8 = 1;

/// One object as a summary keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectSync {
    /// The original object id.
    pub id: u32,
    /// World position.
    pub position: [f32; 3],
    /// Orientation (quaternion x, y, z, w).
    pub orientation: [f32; 4],
    /// Velocity.
    pub velocity: [f32; 3],
    /// Behaviour state.
    pub behaviour_state: u32,
    /// In the game.
    pub active: bool,
    /// BLAKE3 of the property bag (names and raw values, in order), first 8 bytes.
    pub props: [u8; 8],
}

/// What a fuzzer checks on any bytes: decoding never panics, and a summary that
/// decodes encodes to the same bytes.
pub fn fuzz_check(bytes: &[u8]) {
    if let Ok(s) = SyncReport::decode(bytes) {
        assert_eq!(s.encode(), bytes, "a decoded summary encodes to its bytes");
    }
}

/// A peer's state after a tick, for comparison with another peer's.
#[derive(Clone, Debug, PartialEq)]
pub struct SyncReport {
    /// The tick summarised.
    pub tick: u64,
    /// Each hashed system's state digest, by name.
    pub systems: Vec<(String, [u8; 32])>,
    /// The objects in queue order (at most [`MAX_OBJECTS`]).
    pub objects: Vec<ObjectSync>,
    /// More objects than [`MAX_OBJECTS`] were in the queue.
    pub cut: bool,
}

/// Why bytes are not a summary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("state summary: {0}")]
pub struct SyncError(String);

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], SyncError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(SyncError(format!(
                "{what} at offset {}: {n} bytes wanted, {} left",
                self.at,
                self.bytes.len() - self.at
            )));
        };
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u32(&mut self, what: &str) -> Result<u32, SyncError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn flag(&mut self, what: &str) -> Result<bool, SyncError> {
        let at = self.at;
        match self.take(1, what)?[0] {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(SyncError(format!("{what} at offset {at}: {b}, not 0 or 1"))),
        }
    }

    fn f32s<const N: usize>(&mut self, what: &str) -> Result<[f32; N], SyncError> {
        let mut out = [0.0; N];
        for v in &mut out {
            *v = f32::from_bits(self.u32(what)?);
        }
        Ok(out)
    }
}

impl SyncReport {
    /// The summary's bytes (see the module docs).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![VERSION];
        out.extend_from_slice(&self.tick.to_le_bytes());
        out.extend_from_slice(&(self.systems.len() as u32).to_le_bytes());
        for (name, d) in &self.systems {
            out.extend_from_slice(&(name.len() as u32).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(d);
        }
        out.extend_from_slice(&(self.objects.len() as u32).to_le_bytes());
        for o in &self.objects {
            out.extend_from_slice(&o.id.to_le_bytes());
            for v in o.position.iter().chain(&o.orientation).chain(&o.velocity) {
                out.extend_from_slice(&v.to_bits().to_le_bytes());
            }
            out.extend_from_slice(&o.behaviour_state.to_le_bytes());
            out.push(u8::from(o.active));
            out.extend_from_slice(&o.props);
        }
        out.push(u8::from(self.cut));
        out
    }

    /// A summary from bytes another peer sent: every count checked against the bytes
    /// left, the whole read, nothing after it.
    ///
    /// # Errors
    /// What does not fit, with its offset.
    pub fn decode(bytes: &[u8]) -> Result<Self, SyncError> {
        let mut r = Reader { bytes, at: 0 };
        let v = r.take(1, "version")?[0];
        if v != VERSION {
            return Err(SyncError(format!(
                "version {v}: this engine reads {VERSION}"
            )));
        }
        let t = r.take(8, "tick")?;
        let tick = u64::from_le_bytes([t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]]);
        let n = r.u32("system count")? as usize;
        // Every system takes at least 36 bytes: a count past them is refused unread.
        if n > (bytes.len() - r.at) / 36 {
            return Err(SyncError(format!("{n} systems in {} bytes", bytes.len())));
        }
        let mut systems = Vec::with_capacity(n);
        for _ in 0..n {
            let len = r.u32("system name length")? as usize;
            let name = String::from_utf8(r.take(len, "system name")?.to_vec())
                .map_err(|_| SyncError("a system name is not UTF-8".into()))?;
            let mut d = [0u8; 32];
            d.copy_from_slice(r.take(32, "system digest")?);
            systems.push((name, d));
        }
        let n = r.u32("object count")? as usize;
        if n > MAX_OBJECTS || n > (bytes.len() - r.at) / OBJECT_BYTES {
            return Err(SyncError(format!("{n} objects in {} bytes", bytes.len())));
        }
        let mut objects = Vec::with_capacity(n);
        for _ in 0..n {
            let id = r.u32("object id")?;
            let position = r.f32s::<3>("position")?;
            let orientation = r.f32s::<4>("orientation")?;
            let velocity = r.f32s::<3>("velocity")?;
            let behaviour_state = r.u32("behaviour state")?;
            let active = r.flag("active")?;
            let mut props = [0u8; 8];
            props.copy_from_slice(r.take(8, "properties")?);
            objects.push(ObjectSync {
                id,
                position,
                orientation,
                velocity,
                behaviour_state,
                active,
                props,
            });
        }
        let cut = r.flag("cut flag")?;
        if r.at != bytes.len() {
            return Err(SyncError(format!(
                "{} bytes after its end",
                bytes.len() - r.at
            )));
        }
        Ok(Self {
            tick,
            systems,
            objects,
            cut,
        })
    }

    /// What differs between this summary (here) and `other` (there), first things
    /// first: the systems whose state differs, then the first object that differs
    /// (by queue position) and each of its fields that differ. `None`: nothing.
    pub fn differences(&self, other: &Self) -> Option<String> {
        let mut text = String::new();
        for (name, d) in &self.systems {
            match other.systems.iter().find(|(n, _)| n == name) {
                Some((_, e)) if e == d => {}
                Some(_) => {
                    let _ = writeln!(text, "system {name}: its state differs");
                }
                None => {
                    let _ = writeln!(text, "system {name}: only here");
                }
            }
        }
        for (name, _) in &other.systems {
            if !self.systems.iter().any(|(n, _)| n == name) {
                let _ = writeln!(text, "system {name}: only there");
            }
        }
        if self.objects.len() != other.objects.len() {
            let _ = writeln!(
                text,
                "objects: {} here, {} there",
                self.objects.len(),
                other.objects.len()
            );
        }
        if let Some((k, (a, b))) = self
            .objects
            .iter()
            .zip(&other.objects)
            .enumerate()
            .find(|(_, (a, b))| a != b)
        {
            let _ = write!(text, "object {} (queue {k})", a.id);
            if a.id != b.id {
                let _ = write!(text, ": object {} there", b.id);
            }
            let fields: [(&str, String, String); 6] = [
                (
                    "position",
                    format!("{:?}", a.position),
                    format!("{:?}", b.position),
                ),
                (
                    "orientation",
                    format!("{:?}", a.orientation),
                    format!("{:?}", b.orientation),
                ),
                (
                    "velocity",
                    format!("{:?}", a.velocity),
                    format!("{:?}", b.velocity),
                ),
                (
                    "behaviour state",
                    a.behaviour_state.to_string(),
                    b.behaviour_state.to_string(),
                ),
                ("active", a.active.to_string(), b.active.to_string()),
                ("properties", hex(&a.props), hex(&b.props)),
            ];
            for (name, here, there) in fields {
                if here != there {
                    let _ = write!(text, "; {name} {here} here, {there} there");
                }
            }
            text.push('\n');
        }
        (!text.is_empty()).then_some(text)
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    fn sample() -> SyncReport {
        SyncReport {
            tick: 60,
            systems: vec![
                ("plugin:ai".into(), [1; 32]),
                ("plugin:control".into(), [2; 32]),
            ],
            objects: (0..3)
                .map(|k| ObjectSync {
                    id: 100 + k,
                    position: [k as f32, 2.0, 3.0],
                    orientation: [0.0, 0.0, 0.0, 1.0],
                    velocity: [0.5; 3],
                    behaviour_state: 7,
                    active: true,
                    props: [k as u8; 8],
                })
                .collect(),
            cut: false,
        }
    }

    #[test]
    fn a_summary_round_trips_and_bad_bytes_are_named() {
        let s = sample();
        let bytes = s.encode();
        assert_eq!(SyncReport::decode(&bytes).unwrap(), s);
        for cut in [0, 1, 9, 13, 40, bytes.len() - 1] {
            assert!(SyncReport::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(
            SyncReport::decode(&long)
                .unwrap_err()
                .to_string()
                .contains("1 bytes after")
        );
        // A count past the bytes is refused before anything is allocated for it.
        let mut huge = bytes[..9].to_vec();
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(
            SyncReport::decode(&huge)
                .unwrap_err()
                .to_string()
                .contains("systems in")
        );
        // A flag is 0 or 1: another byte would decode to a summary that encodes
        // differently (found by the fuzz check).
        let mut flag = bytes.clone();
        *flag.last_mut().unwrap() = 2;
        assert!(
            SyncReport::decode(&flag)
                .unwrap_err()
                .to_string()
                .contains("not 0 or 1")
        );
        let mut v2 = bytes;
        v2[0] = 2;
        assert!(
            SyncReport::decode(&v2)
                .unwrap_err()
                .to_string()
                .contains("version 2")
        );
    }

    #[test]
    fn the_difference_names_the_system_the_object_and_the_field() {
        let a = sample();
        assert_eq!(a.differences(&a), None);
        let mut b = sample();
        b.systems[1].1 = [9; 32];
        b.objects[1].position[0] += 0.5;
        let d = a.differences(&b).unwrap();
        assert!(
            d.contains("system plugin:control: its state differs"),
            "{d}"
        );
        assert!(
            d.contains(
                "object 101 (queue 1); position [1.0, 2.0, 3.0] here, [1.5, 2.0, 3.0] there"
            ),
            "{d}"
        );
        assert!(!d.contains("plugin:ai"), "{d}");
    }

    /// FORMATS §13.15 "check the length before reading a payload": every strict prefix
    /// of a summary is a named error that says what was cut and where.
    #[test]
    fn every_truncated_summary_is_an_error() {
        let bytes = sample().encode();
        for cut in 0..bytes.len() {
            let e = SyncReport::decode(&bytes[..cut]).unwrap_err().to_string();
            assert!(
                e.contains("wanted") || e.contains(" in "),
                "cut at {cut}: {e}"
            );
        }
    }

    /// The fullest summary still fits one state-report message (60 KiB).
    #[test]
    fn the_fullest_summary_fits_a_message() {
        let mut s = sample();
        s.systems = (0..12)
            .map(|k| (format!("plugin:a-long-system-name-{k}"), [0; 32]))
            .collect();
        let one = s.objects[0].clone();
        s.objects = vec![one; MAX_OBJECTS];
        s.cut = true;
        let n = s.encode().len();
        assert!(n <= 60 * 1024, "{n} bytes");
        assert_eq!(SyncReport::decode(&s.encode()).unwrap(), s);
    }

    proptest::proptest! {
        /// Any bytes decode or are refused; never a panic.
        #[test]
        fn any_bytes_are_handled(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600)) {
            fuzz_check(&bytes);
        }

        /// Damaged summaries: handled, never a panic.
        #[test]
        fn damaged_summaries_are_handled(at in 0usize..300, byte in proptest::prelude::any::<u8>()) {
            let mut bytes = sample().encode();
            let k = at % bytes.len();
            bytes[k] = byte;
            fuzz_check(&bytes);
        }
    }
}
