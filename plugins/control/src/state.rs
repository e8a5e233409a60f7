//! The saved state of the control plugin (hot swap, save games, the state hash): every
//! unit's controller state, the contact set and the motion requests waiting for their
//! object. Little-endian, fixed layout per record; the reader checks every count
//! against the bytes left before allocating and refuses non-finite numbers, unsorted
//! ids and trailing bytes, naming the offset.

use crate::shape::{Proxy, Shape};
use crate::world::{Role, Unit, World};
use glam::{Quat, Vec2, Vec3};
use iron3d_abi::{MotionMode, MotionRequest};

/// State format name.
pub const STATE_FORMAT: &str = "iron3d-control";
/// State format version written: 2 adds each unit's smoothed wish (PD-CTRL-WISH).
pub const STATE_VERSION: u32 = 2;
/// The oldest state format version read (version 1 units get a zero wish).
pub const STATE_VERSION_MIN: u32 = 1;
/// Bytes of one version-1 unit record (version 2 adds two numbers).
const UNIT_BYTES_V1: usize = 4 + 1 + 1 + 6 * 4 + 3 * 4 + 4 * 4 + 3 * 4 + 3 * 4 + 6 * 4 + 4;
/// Bytes of one pending request record.
const PENDING_BYTES: usize = 4 + 6 * 4;

/// Everything the plugin saves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Saved {
    /// The world (units and contacts; limits and grid are not saved: they come from the
    /// data and the next step).
    pub units: Vec<Unit>,
    /// Contacts, ascending.
    pub contacts: Vec<(u32, u32)>,
    /// Requests for objects not simulated yet, ascending by id.
    pub pending: Vec<(u32, MotionRequest)>,
    /// The proxy refresh cursor.
    pub refresh_cursor: u32,
}

struct W(Vec<u8>);

impl W {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }
    fn v3(&mut self, v: Vec3) {
        self.f32(v.x);
        self.f32(v.y);
        self.f32(v.z);
    }
    fn request(&mut self, r: &MotionRequest) {
        self.u32(r.mode.0);
        self.f32(r.speed);
        self.f32(r.turn);
        self.v3(r.target.into());
    }
}

/// Encodes the plugin state.
pub fn encode(world: &World, pending: &[(u32, MotionRequest)], refresh_cursor: u32) -> Vec<u8> {
    let mut w = W(Vec::with_capacity(
        16 + world.units.len() * unit_bytes(STATE_VERSION),
    ));
    w.u32(world.units.len() as u32);
    for u in &world.units {
        w.u32(u.id);
        w.0.push(match u.role {
            Role::Mobile => 0,
            Role::Static => 1,
        });
        let (kind, a, b, c, d) = match u.proxy.shape {
            Shape::Circle { radius } => (0u8, radius, 0.0, 0.0, 0.0),
            Shape::Rect { centre, half } => (1u8, centre.x, centre.y, half.x, half.y),
        };
        w.0.push(kind);
        for v in [a, b, c, d, u.proxy.z0, u.proxy.z1] {
            w.f32(v);
        }
        w.v3(u.position);
        for v in u.orientation.to_array() {
            w.f32(v);
        }
        w.v3(u.velocity);
        w.f32(u.heading);
        w.f32(u.speed);
        w.f32(u.turn_rate);
        w.request(&u.request);
        w.u32(u.flags);
        w.f32(u.wish.x);
        w.f32(u.wish.y);
    }
    w.u32(world.contacts.len() as u32);
    for &(a, b) in &world.contacts {
        w.u32(a);
        w.u32(b);
    }
    w.u32(pending.len() as u32);
    for (id, r) in pending {
        w.u32(*id);
        w.request(r);
    }
    w.u32(refresh_cursor);
    w.0
}

struct R<'a> {
    b: &'a [u8],
    at: usize,
}

impl R<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or_else(|| format!("truncated at offset {}: {n} more bytes needed", self.at))?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, String> {
        let s = self.take(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn f32(&mut self) -> Result<f32, String> {
        let at = self.at;
        let v = f32::from_bits(self.u32()?);
        if v.is_finite() {
            Ok(v)
        } else {
            Err(format!("non-finite number at offset {at}"))
        }
    }
    fn v3(&mut self) -> Result<Vec3, String> {
        Ok(Vec3::new(self.f32()?, self.f32()?, self.f32()?))
    }
    fn count(&mut self, record: usize, what: &str) -> Result<usize, String> {
        let at = self.at;
        let n = self.u32()? as usize;
        let left = self.b.len() - self.at;
        if n.checked_mul(record).is_none_or(|need| need > left) {
            return Err(format!(
                "{what} count {n} at offset {at} needs more than the {left} bytes left"
            ));
        }
        Ok(n)
    }
    fn request(&mut self) -> Result<MotionRequest, String> {
        Ok(MotionRequest {
            mode: MotionMode(self.u32()?),
            speed: self.f32()?,
            turn: self.f32()?,
            target: self.v3()?.into(),
        })
    }
}

/// Bytes of one unit record of state format `version`.
fn unit_bytes(version: u32) -> usize {
    if version >= 2 {
        UNIT_BYTES_V1 + 8
    } else {
        UNIT_BYTES_V1
    }
}

/// Decodes a state written by [`encode`] (format `version`, from
/// [`STATE_VERSION_MIN`] to [`STATE_VERSION`]).
pub fn decode(bytes: &[u8], version: u32) -> Result<Saved, String> {
    if !(STATE_VERSION_MIN..=STATE_VERSION).contains(&version) {
        return Err(format!(
            "state version {version} is not one of {STATE_VERSION_MIN}..={STATE_VERSION}"
        ));
    }
    let mut r = R { b: bytes, at: 0 };
    let n = r.count(unit_bytes(version), "unit")?;
    let mut units = Vec::with_capacity(n);
    for _ in 0..n {
        let at = r.at;
        let id = r.u32()?;
        let role = match r.u8()? {
            0 => Role::Mobile,
            1 => Role::Static,
            x => return Err(format!("unit {id} at offset {at}: unknown role {x}")),
        };
        let kind = r.u8()?;
        let (a, b, c, d, z0, z1) = (r.f32()?, r.f32()?, r.f32()?, r.f32()?, r.f32()?, r.f32()?);
        let shape = match kind {
            0 if [b, c, d].iter().any(|v| v.to_bits() != 0) => {
                return Err(format!(
                    "unit {id} at offset {at}: a circle's unused shape words are not zero"
                ));
            }
            0 => Shape::Circle { radius: a },
            1 => Shape::Rect {
                centre: Vec2::new(a, b),
                half: Vec2::new(c, d),
            },
            x => return Err(format!("unit {id} at offset {at}: unknown shape {x}")),
        };
        let position = r.v3()?;
        let q = [r.f32()?, r.f32()?, r.f32()?, r.f32()?];
        let velocity = r.v3()?;
        let heading = r.f32()?;
        let speed = r.f32()?;
        let turn_rate = r.f32()?;
        let request = r.request()?;
        let flags = r.u32()?;
        let wish = if version >= 2 {
            Vec2::new(r.f32()?, r.f32()?)
        } else {
            Vec2::ZERO
        };
        if units.last().is_some_and(|u: &Unit| u.id >= id) {
            return Err(format!("unit {id} at offset {at}: ids not ascending"));
        }
        units.push(Unit {
            id,
            role,
            proxy: Proxy { shape, z0, z1 },
            position,
            orientation: Quat::from_array(q),
            heading,
            speed,
            turn_rate,
            velocity,
            request,
            flags,
            wish,
        });
    }
    let n = r.count(8, "contact")?;
    let mut contacts = Vec::with_capacity(n);
    for _ in 0..n {
        let at = r.at;
        let pair = (r.u32()?, r.u32()?);
        if pair.0 >= pair.1 || contacts.last().is_some_and(|p| *p >= pair) {
            return Err(format!("contact {pair:?} at offset {at}: not ascending"));
        }
        contacts.push(pair);
    }
    let n = r.count(PENDING_BYTES, "pending request")?;
    let mut pending = Vec::with_capacity(n);
    for _ in 0..n {
        let at = r.at;
        let id = r.u32()?;
        if pending.last().is_some_and(|(p, _)| *p >= id) {
            return Err(format!(
                "pending request {id} at offset {at}: not ascending"
            ));
        }
        pending.push((id, r.request()?));
    }
    let refresh_cursor = r.u32()?;
    if r.at != bytes.len() {
        return Err(format!(
            "{} trailing bytes at offset {}",
            bytes.len() - r.at,
            r.at
        ));
    }
    Ok(Saved {
        units,
        contacts,
        pending,
        refresh_cursor,
    })
}
