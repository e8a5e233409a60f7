//! (2.11) The effects slot: effect events, the effect frame and its primitives.
//!
//! **Effects are presentation** (rule **PD-FX-PRESENTATION**): what the effects plugin
//! shows can never change the simulation. Like the audio slot's, its plugin hears
//! messages, reads the world and may be asked for services' answers, but every world
//! change, message, outcome and service call from it is refused
//! ([`crate::ErrorKind::FORBIDDEN`]) and its state stays out of the state hash: a battle
//! runs to the same hashes with the effects plugin or with the null one.
//!
//! **Effect events** are messages ([`MessageCode::EFFECT`], an engine code, rule
//! **PD-MSG-EFFECT**) that any simulation plugin sends to the effects slot
//! (`MessageTarget::slot(SlotKind::Effects)`): fire and forget. [`EffectEvent`] builds
//! and reads their body: the FXID entry to start (archive and name), where, towards
//! what (a tracer's end), for which object.
//!
//! **The frame**: once per presented frame, in the render phase before the render slot
//! draws, the host hands the effects plugin's [`EffectsProvider`] an [`EffectView`]
//! (frame, tick, game time, the camera of the frame being drawn) and passes the
//! [`EffectFrame`] it answers to the renderer ([`crate::Renderer::effects`]) right
//! before that frame's `draw`. Primitives are world-space particles, billboards,
//! streaks, point lights and beams, listed in a stable order (instance, then command,
//! then emission); a renderer blends them after the opaque world with a depth test.
#![allow(non_local_definitions)]

use crate::math::Vec3f;
use crate::message::{Message, MessageCode};
use crate::render::Camera;
use crate::types::{ErrorKind, PluginError};
use abi_stable::StableAbi;
use abi_stable::sabi_trait;
use abi_stable::std_types::{ROption, RResult, RString, RVec};
use glam::{Mat4, Vec4};

impl MessageCode {
    /// (2.11) An effect event for the effects slot (rule **PD-MSG-EFFECT**: engine code
    /// `0x102`, outside the original 1..=17 and the plugin range; the body is an
    /// [`EffectEvent`]).
    pub const EFFECT: Self = Self(0x102);
}

/// The longest archive or entry name an effect event carries (FXID resource names are
/// 32 bytes; we allow more, never unbounded).
pub const MAX_EFFECT_NAME: usize = 255;

/// The fixed part of an effect event's payload (see [`EffectEvent::to_message`]).
const EFFECT_HEADER: usize = 4 * 8;

/// Start effect `library`/`name` at `position` (the body of a [`MessageCode::EFFECT`]
/// message).
#[derive(Clone, Debug, PartialEq)]
pub struct EffectEvent {
    /// The archive (`effects.rlb`); empty: the effects plugin's default archive.
    pub library: String,
    /// The FXID entry (`EXPLODE`).
    pub name: String,
    /// The object the effect belongs to (original id; 0: none).
    pub owner: u32,
    /// Where it starts (world, Z up).
    pub position: Vec3f,
    /// Where it points (a tracer's or a beam's end; `None`: nowhere in particular).
    pub target: Option<Vec3f>,
    /// Uniform scale on top of the FXID header's (1: as authored).
    pub scale: f32,
}

impl EffectEvent {
    /// Effect `library`/`name` at `position` for `owner` (0: none), pointing nowhere.
    pub fn at(library: &str, name: &str, owner: u32, position: Vec3f) -> Self {
        Self {
            library: library.into(),
            name: name.into(),
            owner,
            position,
            target: None,
            scale: 1.0,
        }
    }

    /// The same event pointing at `target`.
    pub fn towards(mut self, target: Vec3f) -> Self {
        self.target = Some(target);
        self
    }

    /// The message carrying this event. Layout: `object_a` = owner, `point` = position;
    /// payload (little-endian) = flags u32 (bit 0: has a target), target x, y, z, scale
    /// (f32), a reserved u32 (0), library length u32, name length u32, then the library
    /// and name bytes.
    ///
    /// # Errors
    /// [`ErrorKind::INVALID`] for a name over [`MAX_EFFECT_NAME`] bytes, an empty name,
    /// or a non-finite number.
    pub fn to_message(&self) -> Result<Message, PluginError> {
        self.check()?;
        let t = self.target.unwrap_or_default();
        let mut p = Vec::with_capacity(EFFECT_HEADER + self.library.len() + self.name.len());
        p.extend_from_slice(&u32::from(self.target.is_some()).to_le_bytes());
        for f in [t.x, t.y, t.z, self.scale] {
            p.extend_from_slice(&f.to_le_bytes());
        }
        for w in [0, self.library.len() as u32, self.name.len() as u32] {
            p.extend_from_slice(&w.to_le_bytes());
        }
        p.extend_from_slice(self.library.as_bytes());
        p.extend_from_slice(self.name.as_bytes());
        let mut m = Message::new(MessageCode::EFFECT).with_payload(p);
        m.object_a = self.owner;
        m.point = self.position;
        Ok(m)
    }

    /// Reads the event a [`MessageCode::EFFECT`] message carries.
    ///
    /// # Errors
    /// [`ErrorKind::INVALID`] naming what is wrong: another code, a short payload,
    /// lengths that do not match it, names that are empty, not UTF-8 or too long,
    /// non-finite numbers.
    pub fn from_message(m: &Message) -> Result<Self, PluginError> {
        let bad =
            |why: String| PluginError::new(ErrorKind::INVALID, format!("effect event: {why}"));
        if m.code != MessageCode::EFFECT {
            return Err(bad(format!("message code {} is not EFFECT", m.code.0)));
        }
        let p = m.payload.as_slice();
        if p.len() < EFFECT_HEADER {
            return Err(bad(format!(
                "{} payload bytes, the header needs {EFFECT_HEADER}",
                p.len()
            )));
        }
        let word = |i: usize| u32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
        let float = |i: usize| f32::from_bits(word(i));
        let (lib_len, name_len) = (word(24) as usize, word(28) as usize);
        if lib_len > MAX_EFFECT_NAME || name_len > MAX_EFFECT_NAME {
            return Err(bad(format!(
                "names of {lib_len} and {name_len} bytes (at most {MAX_EFFECT_NAME})"
            )));
        }
        if p.len() != EFFECT_HEADER + lib_len + name_len {
            return Err(bad(format!(
                "{} payload bytes, the lengths say {}",
                p.len(),
                EFFECT_HEADER + lib_len + name_len
            )));
        }
        let text = |a: usize, n: usize, what: &str| {
            std::str::from_utf8(&p[a..a + n])
                .map(str::to_owned)
                .map_err(|e| bad(format!("{what} is not UTF-8: {e}")))
        };
        let target = Vec3f {
            x: float(4),
            y: float(8),
            z: float(12),
        };
        let e = Self {
            library: text(EFFECT_HEADER, lib_len, "the library")?,
            name: text(EFFECT_HEADER + lib_len, name_len, "the entry name")?,
            owner: m.object_a,
            position: m.point,
            target: (word(0) & 1 == 1).then_some(target),
            scale: float(16),
        };
        e.check()?;
        Ok(e)
    }

    fn check(&self) -> Result<(), PluginError> {
        let bad =
            |why: String| PluginError::new(ErrorKind::INVALID, format!("effect event: {why}"));
        if self.library.len() > MAX_EFFECT_NAME || self.name.len() > MAX_EFFECT_NAME {
            return Err(bad(format!(
                "names of {} and {} bytes (at most {MAX_EFFECT_NAME})",
                self.library.len(),
                self.name.len()
            )));
        }
        if self.name.is_empty() {
            return Err(bad("no entry name".into()));
        }
        let (p, t) = (self.position, self.target.unwrap_or_default());
        let numbers = [p.x, p.y, p.z, t.x, t.y, t.z, self.scale];
        if !numbers.iter().all(|v| v.is_finite()) {
            return Err(bad("a number is NaN or infinite".into()));
        }
        if self.scale <= 0.0 {
            return Err(bad(format!("scale {} is not positive", self.scale)));
        }
        Ok(())
    }
}

/// What the effects plugin gets once per presented frame.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct EffectView {
    /// Presented frame number.
    pub frame: u64,
    /// Last completed simulation tick.
    pub tick: u64,
    /// Game time in milliseconds (the tick's; it stands still while paused).
    pub time_ms: u64,
    /// The camera of the frame being drawn (`RNone`: no prepared frame; weather that
    /// lives around the camera has nowhere to be).
    pub camera: ROption<Camera>,
}

/// What an [`EffectPrimitive`] is: an open number (compare with the constants; a
/// renderer skips a kind it does not know).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PrimitiveKind(pub u32);

impl PrimitiveKind {
    /// One particle: a camera-facing square `size` wide at `position`.
    pub const PARTICLE: Self = Self(0);
    /// A camera-facing quad `size` wide and `height` tall at `position` (a flash, a
    /// fireball, a smoke puff, a scorch seen from above).
    pub const BILLBOARD: Self = Self(1);
    /// A line from `position` to `end`, `size` wide, facing the camera (a tracer, a
    /// rain streak).
    pub const STREAK: Self = Self(2);
    /// A point light at `position` reaching `size` (no geometry of its own; a renderer
    /// without dynamic lights may draw a faint glow or nothing).
    pub const POINT_LIGHT: Self = Self(3);
    /// A beam from `position` to `end`, `size` wide (a lightning bolt).
    pub const BEAM: Self = Self(4);

    /// The lower-case name used by captures and traces (`"particle"`, …; `"unknown"`
    /// for a kind this build does not know).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PARTICLE => "particle",
            Self::BILLBOARD => "billboard",
            Self::STREAK => "streak",
            Self::POINT_LIGHT => "point_light",
            Self::BEAM => "beam",
            _ => "unknown",
        }
    }
}

/// How a primitive blends over what is behind it: an open number.
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EffectBlend(pub u32);

impl EffectBlend {
    /// `dst + src·alpha` (fire, flashes, tracers, lights).
    pub const ADDITIVE: Self = Self(0);
    /// `dst·(1 − alpha) + src·alpha` (smoke, rain, snow).
    pub const ALPHA: Self = Self(1);
}

/// "No texture" in [`EffectPrimitive::texture`].
pub const NO_EFFECT_TEXTURE: u32 = u32::MAX;

/// One world-space effect primitive of a frame.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct EffectPrimitive {
    /// The effect instance that emitted it (the plugin's own numbering, stable while
    /// the instance lives).
    pub instance: u32,
    /// The FXID command (disk index) that emitted it.
    pub command: u32,
    /// What it is.
    pub kind: PrimitiveKind,
    /// How it blends.
    pub blend: EffectBlend,
    /// Centre (particle, billboard, light) or start (streak, beam), world, Z up.
    pub position: Vec3f,
    /// End of a streak or beam (equal to `position` for the other kinds).
    pub end: Vec3f,
    /// Width (particle and billboard side, streak and beam width, light reach).
    pub size: f32,
    /// Height of a billboard (equal to `size` for the other kinds).
    pub height: f32,
    /// Rotation of a billboard in the screen plane (radians).
    pub rotation: f32,
    /// Colour, linear `[0, 1]`, and opacity (`[3]`).
    pub colour: [f32; 4],
    /// Texture: an index into [`EffectFrame::textures`], or [`NO_EFFECT_TEXTURE`] (a
    /// soft round sprite). Only particles and billboards are drawn textured (the
    /// sprite's `[-1, 1]²` mapped onto the whole texture, its `+v` the top row, the
    /// nearest texel; colour × texel, opacity × texel alpha); the other kinds ignore it.
    pub texture: u32,
}

/// The effects of one presented frame.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct EffectFrame {
    /// Presented frame number (the frame `draw` gets next).
    pub frame: u64,
    /// Last completed simulation tick.
    pub tick: u64,
    /// Live effect instances (emitting or not).
    pub instances: u32,
    /// The primitives, ascending by (instance, command), then in emission order.
    pub primitives: RVec<EffectPrimitive>,
    /// Texture names (`archive/entry`, as the FXID command names them) the primitives
    /// index, each once; a renderer that cannot load one draws the soft sprite. The
    /// built-in renderers find them among the frame's [`crate::RenderResources`]
    /// textures, which the engine loads under these names (ASCII-case-insensitive) for
    /// the effects of `effects.rlb`.
    pub textures: RVec<RString>,
}

impl EffectFrame {
    /// How many primitives of `kind` the frame has.
    pub fn count(&self, kind: PrimitiveKind) -> usize {
        self.primitives.iter().filter(|p| p.kind == kind).count()
    }
}

/// The effects service (see the module docs), implemented by effects plugins.
pub trait EffectsProvider {
    /// Called once per presented frame, in the render phase before the render slot
    /// draws: advance the effects' presentation to `view` and answer its primitives.
    /// It must not change the simulation (the host refuses any attempt).
    fn frame(&mut self, view: &EffectView) -> Result<EffectFrame, PluginError>;
}

/// The FFI form of [`EffectsProvider`].
#[sabi_trait]
pub trait EffectsService {
    /// [`EffectsProvider::frame`].
    #[sabi(last_prefix_field)]
    fn frame(&mut self, view: &EffectView) -> RResult<EffectFrame, PluginError>;
}

/// A point light's glow radius as a fraction of its reach (`size`), as the built-in
/// renderers draw it ([`effect_quad`]; they have no dynamic lights).
pub const GLOW_RADIUS: f32 = 0.25;

/// A point light's glow opacity as a fraction of its colour's opacity (`colour[3]`).
pub const GLOW_OPACITY: f32 = 0.25;

/// One primitive as the built-in renderers draw it ([`effect_quad`]): clip-space corners
/// in order around the quad, the sprite coordinates of each corner (the soft round
/// sprite's alpha is `opacity · max(0, 1 − (u² + v²))`), colour, opacity, and whether it
/// adds (else it mixes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EffectQuad {
    /// Clip-space corners.
    pub clip: [Vec4; 4],
    /// Sprite coordinates of the corners.
    pub sprite: [[f32; 2]; 4],
    /// Colour, clamped to `[0, 1]`.
    pub colour: [f32; 3],
    /// Opacity, clamped to `[0, 1]` (a point light's times [`GLOW_OPACITY`]).
    pub opacity: f32,
    /// `dst + src·a` (else `dst·(1 − a) + src·a`).
    pub additive: bool,
}

fn point(v: Vec3f) -> Option<Vec4> {
    (v.x.is_finite() && v.y.is_finite() && v.z.is_finite()).then(|| Vec4::new(v.x, v.y, v.z, 1.0))
}

fn positive(x: f32) -> Option<f32> {
    (x.is_finite() && x > 0.0).then_some(x)
}

/// Whether a primitive of `kind` is drawn with its texture when it has one (particles
/// and billboards; the glow of a light and the bands of streaks and beams stay soft).
pub fn textured_kind(kind: PrimitiveKind) -> bool {
    kind == PrimitiveKind::PARTICLE || kind == PrimitiveKind::BILLBOARD
}

/// The texel of a `width` × `height` sprite texture (base level, rows top to bottom)
/// at the sprite coordinates `sprite` (`[-1, 1]²`, [`EffectQuad::sprite`]): column
/// `floor((u + 1) / 2 · width)`, row `floor((1 − v) / 2 · height)`, each clamped to the
/// texture (NaN: 0) — the nearest texel, `+v` the top row. Every built-in renderer
/// picks texels by this rule. A texture with no texels answers `(0, 0)`.
pub fn sprite_texel(sprite: [f32; 2], width: u32, height: u32) -> (u32, u32) {
    let s = (sprite[0] + 1.0) * 0.5;
    let t = (1.0 - sprite[1]) * 0.5;
    // The casts saturate (negative and NaN: 0); positive values truncate (the floor).
    let x = ((s * width as f32) as u32).min(width.saturating_sub(1));
    let y = ((t * height as f32) as u32).min(height.saturating_sub(1));
    (x, y)
}

/// The quad of `p` seen through `view` and `projection` (camera-facing: built in view
/// space, x right, y up; clip space as [`crate::Camera`] defines it), or `None` when it
/// is skipped: an unknown kind or blend, a non-finite position, end, size, height,
/// rotation or colour, a size or height that is not positive, or a streak or beam of
/// zero length or seen exactly end-on. Particles and billboards are `size` × `height`
/// (a particle `size` square) rotated by `rotation` on the screen, their sprite
/// coordinates the corners of `[-1, 1]²`; a point light is an additive glow of
/// half-side [`GLOW_RADIUS`] × `size` at [`GLOW_OPACITY`] of its opacity; a streak or
/// beam is a band `size` wide from `position` to `end`, across both the line and the
/// line of sight, its sprite `u` 0 and `v` ±1 across it.
pub fn effect_quad(view: &Mat4, projection: &Mat4, p: &EffectPrimitive) -> Option<EffectQuad> {
    let mut additive = match p.blend {
        EffectBlend::ADDITIVE => true,
        EffectBlend::ALPHA => false,
        _ => return None,
    };
    if !p.colour.iter().all(|c| c.is_finite()) {
        return None;
    }
    let colour = [
        p.colour[0].clamp(0.0, 1.0),
        p.colour[1].clamp(0.0, 1.0),
        p.colour[2].clamp(0.0, 1.0),
    ];
    let mut opacity = p.colour[3].clamp(0.0, 1.0);
    let centre = *view * point(p.position)?;
    let corners;
    let sprite;
    match p.kind {
        PrimitiveKind::PARTICLE | PrimitiveKind::BILLBOARD | PrimitiveKind::POINT_LIGHT => {
            let (half_w, half_h, rotation) = match p.kind {
                PrimitiveKind::PARTICLE => {
                    let s = positive(p.size)? * 0.5;
                    (s, s, p.rotation)
                }
                PrimitiveKind::BILLBOARD => (
                    positive(p.size)? * 0.5,
                    positive(p.height)? * 0.5,
                    p.rotation,
                ),
                _ => {
                    // No dynamic lights here: a faint additive glow instead.
                    let r = positive(p.size)? * GLOW_RADIUS;
                    additive = true;
                    opacity *= GLOW_OPACITY;
                    (r, r, 0.0)
                }
            };
            if !(rotation.is_finite() && half_w.is_finite() && half_h.is_finite()) {
                return None;
            }
            let (sin, cos) = rotation.sin_cos();
            // The quad's axes, rotated counter-clockwise on the screen by `rotation`.
            let ax = Vec4::new(cos * half_w, sin * half_w, 0.0, 0.0);
            let ay = Vec4::new(-sin * half_h, cos * half_h, 0.0, 0.0);
            corners = [
                centre - ax - ay,
                centre + ax - ay,
                centre + ax + ay,
                centre - ax + ay,
            ];
            sprite = [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]];
        }
        PrimitiveKind::STREAK | PrimitiveKind::BEAM => {
            let half = positive(p.size)? * 0.5;
            let end = *view * point(p.end)?;
            let (a, b) = (centre.truncate(), end.truncate());
            // Across the line and across the line of sight (the eye is the view-space
            // origin): the quad faces the camera as well as a flat band can.
            let side = (b - a).cross((a + b) * 0.5);
            let len = side.length();
            if !(len > 0.0 && len.is_finite()) {
                return None;
            }
            let s = (side * (half / len)).extend(0.0);
            if !s.is_finite() {
                return None;
            }
            corners = [centre - s, end - s, end + s, centre + s];
            sprite = [[0.0, -1.0], [0.0, -1.0], [0.0, 1.0], [0.0, 1.0]];
        }
        _ => return None,
    }
    let clip = corners.map(|c| *projection * c);
    Some(EffectQuad {
        clip,
        sprite,
        colour,
        opacity,
        additive,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32, z: f32) -> Vec3f {
        Vec3f { x, y, z }
    }

    #[test]
    fn sprite_texels_map_the_sprite_square_onto_the_texture_top_row_up() {
        // Corners: (-1, 1) is the top-left texel, (1, -1) (exclusive) the bottom-right.
        assert_eq!(sprite_texel([-1.0, 1.0], 4, 2), (0, 0));
        assert_eq!(sprite_texel([1.0, -1.0], 4, 2), (3, 1));
        assert_eq!(sprite_texel([0.999, -0.999], 4, 2), (3, 1));
        // The centre falls on the texel right and below of it.
        assert_eq!(sprite_texel([0.0, 0.0], 4, 2), (2, 1));
        // Quarter steps: u = -0.5 is s = 0.25, column 1 of 4.
        assert_eq!(sprite_texel([-0.5, 0.5], 4, 4), (1, 1));
        // Outside the square and NaN clamp to the texture.
        assert_eq!(sprite_texel([-3.0, 3.0], 4, 4), (0, 0));
        assert_eq!(sprite_texel([3.0, -3.0], 4, 4), (3, 3));
        assert_eq!(sprite_texel([f32::NAN, f32::NAN], 4, 4), (0, 0));
        assert_eq!(sprite_texel([0.5, 0.5], 0, 0), (0, 0));
        assert!(textured_kind(PrimitiveKind::PARTICLE) && textured_kind(PrimitiveKind::BILLBOARD));
        assert!(
            !textured_kind(PrimitiveKind::POINT_LIGHT) && !textured_kind(PrimitiveKind::STREAK)
        );
        assert!(!textured_kind(PrimitiveKind::BEAM));
    }

    #[test]
    fn an_effect_event_round_trips_through_its_message() {
        let e =
            EffectEvent::at("effects.rlb", "SHOT", 7, v(1.0, 2.0, 3.0)).towards(v(4.0, 5.0, 6.0));
        let m = e.to_message().unwrap();
        assert_eq!(m.code, MessageCode::EFFECT);
        assert_eq!(EffectEvent::from_message(&m).unwrap(), e);
        let plain = EffectEvent::at("", "EXPLODE", 0, v(0.0, 0.0, 0.0));
        assert_eq!(
            EffectEvent::from_message(&plain.to_message().unwrap()).unwrap(),
            plain
        );
    }

    #[test]
    fn a_bad_effect_event_is_refused_with_the_reason() {
        let e = EffectEvent::at("", "SHOT", 0, v(0.0, 0.0, 0.0));
        let mut m = e.to_message().unwrap();
        let full = m.payload.clone();
        m.payload.truncate(10);
        let err = EffectEvent::from_message(&m).unwrap_err();
        assert!(err.message.contains("10 payload bytes"), "{}", err.message);
        // Lengths that overrun the payload.
        let mut p = full.to_vec();
        p[28] = 200;
        m.payload = p.into();
        let err = EffectEvent::from_message(&m).unwrap_err();
        assert!(err.message.contains("the lengths say"), "{}", err.message);
        // Not an effect.
        let s = Message::new(MessageCode::SOUND);
        assert!(EffectEvent::from_message(&s).is_err());
        // Nothing to start, a NaN, a zero scale.
        assert!(
            EffectEvent::at("", "", 0, v(0.0, 0.0, 0.0))
                .to_message()
                .is_err()
        );
        assert!(
            EffectEvent::at("", "A", 0, v(f32::NAN, 0.0, 0.0))
                .to_message()
                .is_err()
        );
        let mut z = EffectEvent::at("", "A", 0, v(0.0, 0.0, 0.0));
        z.scale = 0.0;
        assert!(z.to_message().is_err());
        let long = "X".repeat(MAX_EFFECT_NAME + 1);
        assert!(
            EffectEvent::at("", &long, 0, v(0.0, 0.0, 0.0))
                .to_message()
                .is_err()
        );
    }

    #[test]
    fn kinds_have_names_and_an_unknown_one_says_so() {
        assert_eq!(PrimitiveKind::STREAK.as_str(), "streak");
        assert_eq!(PrimitiveKind(99).as_str(), "unknown");
        let mut f = EffectFrame::default();
        let p = EffectPrimitive {
            instance: 1,
            command: 0,
            kind: PrimitiveKind::PARTICLE,
            blend: EffectBlend::ALPHA,
            position: v(0.0, 0.0, 0.0),
            end: v(0.0, 0.0, 0.0),
            size: 1.0,
            height: 1.0,
            rotation: 0.0,
            colour: [1.0; 4],
            texture: NO_EFFECT_TEXTURE,
        };
        f.primitives.push(p);
        f.primitives.push(p);
        assert_eq!(f.count(PrimitiveKind::PARTICLE), 2);
        assert_eq!(f.count(PrimitiveKind::BEAM), 0);
    }
}
