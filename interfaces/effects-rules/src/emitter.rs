//! **PD-FX-BODY**: the project's emitter block, the body fields our effects runtime
//! reads from an FXID command and our content writes — the contract between effect
//! authors (the demo generator, modders) and the effects plugin.
//!
//! The field meanings of original FXID bodies are open (FORMATS §10.3: "keep the bodies
//! raw"), so the block is our own layout, used only by effects whose header
//! `settings_id` is [`PROJECT_LAYOUT`]. It sits right after the 64-byte resource
//! reference (opcodes 3, 7 and 8; [`BLOCK_AFTER_REF`]) or at the start of the body
//! (opcode 1), 64 bytes, little-endian:
//!
//! | Offset | Type | Field | Range (clamped on read) |
//! |---|---|---|---|
//! | +0 | f32 | width (a light's reach) | 0..=10000 |
//! | +4 | f32 | height (0: the width) | 0..=10000 |
//! | +8 | f32 | length (beams, streaks; opcode 3 with a length is a beam) | 0..=10000 |
//! | +12 | f32 × 4 | colour RGBA, linear | 0..=1 |
//! | +28 | u32 | particles per burst | 1..=256 |
//! | +32 | f32 | bursts per second (0: one burst at the start) | 0..=240 |
//! | +36 | f32 | particle speed | 0..=1000 |
//! | +40 | f32 | spread: half-angle of the cone around up (radians) | 0..=π |
//! | +44 | f32 | vertical acceleration (negative falls) | −1000..=1000 |
//! | +48 | f32 | particle life in seconds (0: the instance's) | 0..=60 |
//! | +52 | f32 | growth per second of age (size × (1 + grow·age)) | −0.99..=100 |
//! | +56 | u32 | blend: 0 additive, 1 alpha (others: additive) | |
//! | +60 | u32 | particle fade: 0 none, 1 out, 2 triangle (others: none) | |
//!
//! A NaN or infinite number reads as the lower bound of its range.

use iron3d_fxid::{Command, FxidError, Opcode};

/// The header `settings_id` of an effect written in this layout: `"I3FX"` read as a
/// little-endian `u32`.
pub const PROJECT_LAYOUT: u32 = u32::from_le_bytes(*b"I3FX");
/// Where the block starts in the body of a command with a resource reference.
pub const BLOCK_AFTER_REF: usize = 64;
/// The block's size in bytes.
pub const BLOCK_LEN: usize = 64;

/// Where the block of an `opcode` command starts in its body, `None` for opcodes that
/// carry none (2, 4, 5, 6, 9, 10).
pub fn block_base(opcode: Opcode) -> Option<usize> {
    match opcode {
        Opcode::Op1 => Some(0),
        Opcode::Op3 | Opcode::Op7 | Opcode::Op8 => Some(BLOCK_AFTER_REF),
        _ => None,
    }
}

/// The emitter block's fields (see the module docs for the layout and ranges).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmitterBlock {
    /// Width (a light's reach).
    pub width: f32,
    /// Height (0: the width).
    pub height: f32,
    /// Length (beams, streaks).
    pub length: f32,
    /// Colour RGBA.
    pub colour: [f32; 4],
    /// Particles per burst.
    pub count: u32,
    /// Bursts per second (0: one burst at the start).
    pub rate: f32,
    /// Particle speed.
    pub speed: f32,
    /// Half-angle of the cone around up (radians).
    pub spread: f32,
    /// Vertical acceleration.
    pub gravity: f32,
    /// Particle life in seconds (0: the instance's).
    pub life: f32,
    /// Growth per second of age.
    pub grow: f32,
    /// 0 additive, 1 alpha.
    pub blend: u32,
    /// 0 none, 1 out, 2 triangle.
    pub fade: u32,
}

impl Default for EmitterBlock {
    /// A white, opaque, 1-wide single particle, additive, no motion.
    fn default() -> Self {
        Self {
            width: 1.0,
            height: 0.0,
            length: 0.0,
            colour: [1.0; 4],
            count: 1,
            rate: 0.0,
            speed: 0.0,
            spread: 0.0,
            gravity: 0.0,
            life: 0.0,
            grow: 0.0,
            blend: 0,
            fade: 0,
        }
    }
}

/// A finite value clamped to `lo..=hi` (NaN and infinities: `lo`).
fn sane(v: f32, lo: f32, hi: f32) -> f32 {
    if v.is_finite() { v.clamp(lo, hi) } else { lo }
}

impl EmitterBlock {
    /// The block of `command` (clamped to the ranges), `None` for an opcode without one.
    pub fn read(command: &Command) -> Option<EmitterBlock> {
        let base = block_base(command.opcode())?;
        let f = |o: usize| command.f32_at(base + o).ok();
        let u = |o: usize| command.u32_at(base + o).ok();
        Some(EmitterBlock {
            width: sane(f(0)?, 0.0, 10_000.0),
            height: sane(f(4)?, 0.0, 10_000.0),
            length: sane(f(8)?, 0.0, 10_000.0),
            colour: [
                sane(f(12)?, 0.0, 1.0),
                sane(f(16)?, 0.0, 1.0),
                sane(f(20)?, 0.0, 1.0),
                sane(f(24)?, 0.0, 1.0),
            ],
            count: u(28)?.clamp(1, 256),
            rate: sane(f(32)?, 0.0, 240.0),
            speed: sane(f(36)?, 0.0, 1_000.0),
            spread: sane(f(40)?, 0.0, std::f32::consts::PI),
            gravity: sane(f(44)?, -1_000.0, 1_000.0),
            life: sane(f(48)?, 0.0, 60.0),
            grow: sane(f(52)?, -0.99, 100.0),
            blend: u(56)?,
            fade: u(60)?,
        })
    }

    /// Writes the block into `command` (as given, unclamped).
    ///
    /// # Errors
    /// [`FxidError::NoResourceRef`] for an opcode without a block (the block's place is
    /// after the resource reference, which those opcodes lack or have no room after).
    pub fn write(&self, command: &mut Command) -> Result<(), FxidError> {
        let Some(base) = block_base(command.opcode()) else {
            return Err(FxidError::NoResourceRef {
                opcode: command.opcode().as_u8(),
            });
        };
        let floats = [
            (0, self.width),
            (4, self.height),
            (8, self.length),
            (12, self.colour[0]),
            (16, self.colour[1]),
            (20, self.colour[2]),
            (24, self.colour[3]),
            (32, self.rate),
            (36, self.speed),
            (40, self.spread),
            (44, self.gravity),
            (48, self.life),
            (52, self.grow),
        ];
        for (o, v) in floats {
            command.set_f32_at(base + o, v)?;
        }
        command.set_u32_at(base + 28, self.count)?;
        command.set_u32_at(base + 56, self.blend)?;
        command.set_u32_at(base + 60, self.fade)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_round_trips_through_each_opcode_that_has_one() {
        let b = EmitterBlock {
            width: 2.0,
            height: 3.0,
            length: 0.5,
            colour: [0.25, 0.5, 0.75, 1.0],
            count: 12,
            rate: 30.0,
            speed: 4.0,
            spread: 0.5,
            gravity: -9.5,
            life: 1.25,
            grow: 0.5,
            blend: 1,
            fade: 2,
        };
        for op in [Opcode::Op1, Opcode::Op3, Opcode::Op7, Opcode::Op8] {
            let mut c = if op == Opcode::Op1 {
                Command::new(op)
            } else {
                Command::with_resource(op, b"sprites.lib", b"FX.TEX").unwrap()
            };
            b.write(&mut c).unwrap();
            assert_eq!(EmitterBlock::read(&c), Some(b), "{op:?}");
            if op != Opcode::Op1 {
                // The resource reference is untouched.
                assert!(c.resource().unwrap().matches(b"sprites.lib", b"FX.TEX"));
            }
            // The block's first field sits where the docs say.
            let base = block_base(op).unwrap();
            assert_eq!(c.f32_at(base).unwrap(), 2.0);
        }
    }

    #[test]
    fn opcodes_without_a_block_are_refused_and_read_as_none() {
        for op in [Opcode::Op2, Opcode::Op4, Opcode::Op5, Opcode::Op6] {
            let mut c = Command::new(op);
            assert!(EmitterBlock::default().write(&mut c).is_err(), "{op:?}");
            assert_eq!(EmitterBlock::read(&c), None);
        }
    }

    #[test]
    fn out_of_range_and_non_finite_values_are_clamped_on_read() {
        let mut c = Command::new(Opcode::Op1);
        let b = EmitterBlock {
            width: f32::NAN,
            height: 1e9,
            colour: [2.0, -1.0, f32::INFINITY, 0.5],
            count: 100_000,
            rate: 1e6,
            life: -3.0,
            grow: -5.0,
            ..EmitterBlock::default()
        };
        b.write(&mut c).unwrap();
        let r = EmitterBlock::read(&c).unwrap();
        assert_eq!(r.width, 0.0);
        assert_eq!(r.height, 10_000.0);
        assert_eq!(r.colour, [1.0, 0.0, 0.0, 0.5]);
        assert_eq!(r.count, 256);
        assert_eq!(r.rate, 240.0);
        assert_eq!(r.life, 0.0);
        assert_eq!(r.grow, -0.99);
        // A zero count reads as one.
        let z = EmitterBlock {
            count: 0,
            ..EmitterBlock::default()
        };
        z.write(&mut c).unwrap();
        assert_eq!(EmitterBlock::read(&c).unwrap().count, 1);
    }
}
